// SPDX-License-Identifier: MIT
/*
 * tests/mm/test_folio.c - folio references, flags and the folio lock,
 * single-threaded.
 *
 * Covers folio_get/folio_try_get/folio_put/folio_put_refs (the last
 * reference frees: the charge goes and the pages can be allocated again;
 * folio_try_get fails on a freed folio and leaves it free), every flag
 * helper of upcache/folio.h touching its own bit only, the geometry
 * helpers, and folio_trylock/folio_lock/folio_unlock/folio_wait_locked
 * without contention (other flags untouched, PG_waiters never left set).
 * tests/mm/test_folio_concurrency.c covers contention.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <upcache/folio.h>

#include "../../mm/internal.h"

#define MiB		(1UL << 20)

#define assert_arena_ok(arena)	assert_int_equal(upc_arena_check(arena), 0)

static struct upc_arena *arena;

static int setup(void **state)
{
	(void)state;
	return upc_arena_create(4 * MiB, &arena);
}

static int teardown(void **state)
{
	int err = upc_arena_check(arena);

	(void)state;
	if (upc_arena_charged(arena))
		err = -1;
	upc_arena_destroy(arena);
	return err;
}

static struct folio *alloc(unsigned int order)
{
	struct folio *folio = upc_arena_alloc_folio(arena, GFP_KERNEL, order);

	assert_non_null(folio);
	return folio;
}

/* ---- references --------------------------------------------------------- */

static void test_refcount(void **state)
{
	struct folio *folio = alloc(2);

	(void)state;
	assert_int_equal(folio_ref_count(folio), 1);
	folio_get(folio);
	assert_int_equal(folio_ref_count(folio), 2);
	assert_true(folio_try_get(folio));
	assert_int_equal(folio_ref_count(folio), 3);
	folio_put(folio);
	assert_int_equal(folio_ref_count(folio), 2);
	folio_put(folio);
	assert_int_equal(folio_ref_count(folio), 1);
	assert_int_equal(upc_arena_charged(arena), 4);
	folio_put(folio);
	assert_int_equal(folio_ref_count(folio), 0);
	assert_int_equal(upc_arena_charged(arena), 0);

	/* The metadata stays; a late lookup cannot take a reference. */
	assert_false(folio_try_get(folio));
	assert_false(folio_try_get(folio));
	assert_int_equal(folio_ref_count(folio), 0);
	assert_arena_ok(arena);
}

static void test_put_refs(void **state)
{
	struct folio *folio = alloc(0);
	int i;

	(void)state;
	for (i = 0; i < 9; i++)
		folio_get(folio);
	assert_int_equal(folio_ref_count(folio), 10);
	folio_put_refs(folio, 4);
	assert_int_equal(folio_ref_count(folio), 6);
	assert_int_equal(upc_arena_charged(arena), 1);
	folio_put_refs(folio, 6);
	assert_int_equal(folio_ref_count(folio), 0);
	assert_int_equal(upc_arena_charged(arena), 0);
	assert_false(folio_try_get(folio));
	assert_arena_ok(arena);
}

/*
 * Pins are UPC_FOLIO_PIN_BIAS references: folio_maybe_pinned() tells
 * them from plain ones beyond what is expected; a count too high for
 * one more pin refuses it, unchanged; the last unpin frees.
 */
static void test_pins(void **state)
{
	struct folio *folio = alloc(0);
	int i;

	(void)state;
	assert_false(folio_maybe_pinned(folio, 1));
	for (i = 0; i < 9; i++)
		folio_get(folio);
	assert_false(folio_maybe_pinned(folio, 1));
	assert_true(folio_try_pin(folio));
	assert_int_equal(folio_ref_count(folio), 10 + UPC_FOLIO_PIN_BIAS);
	assert_true(folio_maybe_pinned(folio, 10));
	assert_true(folio_maybe_pinned(folio, 1));
	assert_false(folio_maybe_pinned(folio, 11));
	folio_put_refs(folio, 9);
	assert_true(folio_maybe_pinned(folio, 1));

	folio_ref_add(folio, UPC_FOLIO_PIN_MAX - folio_ref_count(folio));
	assert_true(folio_try_pin(folio));
	assert_int_equal(folio_ref_count(folio),
			 UPC_FOLIO_PIN_MAX + UPC_FOLIO_PIN_BIAS);
	assert_false(folio_try_pin(folio));
	assert_int_equal(folio_ref_count(folio),
			 UPC_FOLIO_PIN_MAX + UPC_FOLIO_PIN_BIAS);
	folio_unpin(folio);
	folio_put_refs(folio, UPC_FOLIO_PIN_MAX - 1 - UPC_FOLIO_PIN_BIAS);
	assert_int_equal(folio_ref_count(folio), 1 + UPC_FOLIO_PIN_BIAS);
	assert_false(folio_maybe_pinned(folio, 2));
	folio_put(folio);
	assert_int_equal(upc_arena_charged(arena), 1);
	folio_unpin(folio);
	assert_int_equal(folio_ref_count(folio), 0);
	assert_int_equal(upc_arena_charged(arena), 0);
	assert_arena_ok(arena);
}

/* The last put clears what the owner left; the next owner gets a new folio. */
static void test_free_clears(void **state)
{
	struct folio *folio = alloc(UPC_MAX_ORDER), *again;

	(void)state;
	folio->index = 1234;
	folio->private = &arena;
	folio_set_uptodate(folio);
	folio_set_referenced(folio);
	folio_set_error(folio);
	folio_put(folio);
	/* Free: the allocator's own PG_buddy is all that may be set. */
	assert_int_equal(folio->flags & ~(1UL << PG_buddy), 0);
	assert_null(folio->private);
	assert_int_equal(folio->index, 0);

	again = alloc(UPC_MAX_ORDER);
	assert_int_equal(again->flags, 0);
	assert_int_equal(folio_ref_count(again), 1);
	folio_put(again);
	assert_arena_ok(arena);
}

/* ---- flags -------------------------------------------------------------- */

/* One UPC_FOLIO_FLAG() family, by address. */
struct flag_ops {
	int bit;
	bool (*test)(const struct folio *);
	void (*set)(struct folio *);
	void (*clear)(struct folio *);
	bool (*test_set)(struct folio *);
	bool (*test_clear)(struct folio *);
};

#define FLAG_OPS(name) {						\
	PG_##name, folio_test_##name, folio_set_##name,			\
	folio_clear_##name, folio_test_set_##name,			\
	folio_test_clear_##name						\
}

static const struct flag_ops flag_ops[] = {
	FLAG_OPS(uptodate), FLAG_OPS(dirty), FLAG_OPS(writeback),
	FLAG_OPS(referenced), FLAG_OPS(active), FLAG_OPS(lru),
	FLAG_OPS(workingset), FLAG_OPS(swapbacked), FLAG_OPS(error),
	FLAG_OPS(dropbehind),
};

#define NR_FLAG_OPS	(sizeof(flag_ops) / sizeof(flag_ops[0]))

/* check_one_flag() - One family on a folio with @others already set. */
static void check_one_flag(struct folio *folio, const struct flag_ops *op,
			   unsigned long others)
{
	unsigned long bit = 1UL << op->bit;

	assert_int_equal(folio->flags, others);
	assert_false(op->test(folio));
	op->set(folio);
	assert_true(op->test(folio));
	assert_true(folio_test_flag(folio, op->bit));
	assert_int_equal(folio->flags, others | bit);
	op->clear(folio);
	assert_false(op->test(folio));
	assert_int_equal(folio->flags, others);
	assert_false(op->test_set(folio));
	assert_true(op->test_set(folio));
	assert_int_equal(folio->flags, others | bit);
	assert_true(op->test_clear(folio));
	assert_false(op->test_clear(folio));
	assert_int_equal(folio->flags, others);
}

static void test_flags(void **state)
{
	struct folio *folio = alloc(0);
	unsigned long others;
	unsigned int i, j;

	(void)state;
	for (i = 0; i < NR_FLAG_OPS; i++) {
		check_one_flag(folio, &flag_ops[i], 0);
		/* With every other flag of the table set around it. */
		others = 0;
		for (j = 0; j < NR_FLAG_OPS; j++)
			if (j != i)
				others |= 1UL << flag_ops[j].bit;
		folio->flags = others;
		check_one_flag(folio, &flag_ops[i], others);
		folio->flags = 0;
	}
	/* The generic helpers, on a bit without a family. */
	folio_set_flag(folio, PG_locked);
	assert_true(folio_test_locked(folio));
	assert_true(folio_test_clear_flag(folio, PG_locked));
	assert_false(folio_test_locked(folio));
	assert_int_equal(folio->flags, 0);
	folio_put(folio);
}

static void test_geometry(void **state)
{
	struct folio *folio = alloc(3);

	(void)state;
	assert_int_equal(folio_order(folio), 3);
	assert_int_equal(folio_nr_pages(folio), 8);
	assert_int_equal(folio_size(folio), 8 * UPC_PAGE_SIZE);
	folio->index = 16;
	assert_int_equal(folio_next_index(folio), 24);
	assert_false(folio_contains(folio, 15));
	assert_true(folio_contains(folio, 16));
	assert_true(folio_contains(folio, 23));
	assert_false(folio_contains(folio, 24));
	assert_false(folio_contains(folio, 0));
	assert_ptr_equal(folio_address(folio),
			 arena->base + (folio_pfn(folio) << UPC_PAGE_SHIFT));
	folio->index = 0;
	folio_put(folio);
}

/* ---- the lock, uncontended --------------------------------------------- */

static void test_trylock(void **state)
{
	struct folio *folio = alloc(0);

	(void)state;
	assert_false(folio_test_locked(folio));
	assert_true(folio_trylock(folio));
	assert_true(folio_test_locked(folio));
	assert_false(folio_trylock(folio));
	assert_true(folio_test_locked(folio));
	folio_unlock(folio);
	assert_false(folio_test_locked(folio));
	assert_int_equal(folio->flags, 0);
	assert_true(folio_trylock(folio));
	folio_unlock(folio);
	folio_put(folio);
}

static void test_lock_unlock(void **state)
{
	struct folio *folio = alloc(1);
	unsigned long others = (1UL << PG_dirty) | (1UL << PG_uptodate) |
			       (1UL << PG_lru);
	int i;

	(void)state;
	for (i = 0; i < 100; i++) {
		folio_lock(folio);
		assert_true(folio_test_locked(folio));
		assert_false(folio_trylock(folio));
		folio_unlock(folio);
		assert_int_equal(folio->flags, 0);
	}

	/* The lock leaves the other flags alone, and they it. */
	folio->flags = others;
	folio_lock(folio);
	assert_int_equal(folio->flags, others | (1UL << PG_locked));
	folio_clear_dirty(folio);
	assert_true(folio_test_locked(folio));
	folio_unlock(folio);
	assert_int_equal(folio->flags, others & ~(1UL << PG_dirty));
	assert_false(folio_test_flag(folio, PG_waiters));
	folio->flags = 0;
	folio_put(folio);
}

static void test_wait_locked_unlocked(void **state)
{
	struct folio *folio = alloc(0);

	(void)state;
	folio_wait_locked(folio);
	folio_set_uptodate(folio);
	folio_wait_locked(folio);
	assert_int_equal(folio->flags, 1UL << PG_uptodate);
	folio_lock(folio);
	folio_unlock(folio);
	folio_wait_locked(folio);
	assert_int_equal(folio->flags, 1UL << PG_uptodate);
	folio_clear_uptodate(folio);
	folio_put(folio);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refcount),
		cmocka_unit_test(test_put_refs),
		cmocka_unit_test(test_pins),
		cmocka_unit_test(test_free_clears),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_geometry),
		cmocka_unit_test(test_trylock),
		cmocka_unit_test(test_lock_unlock),
		cmocka_unit_test(test_wait_locked_unlocked),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
