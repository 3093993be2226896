// SPDX-License-Identifier: MIT
/*
 * tests/mm/test_debug_checks.c - the debug build's checks on folio
 * misuse fire (UPC_MM_BUG_ON(), mm/internal.h).
 *
 * A caller that unlocks a folio it does not hold, drops references it
 * does not have or frees a folio still in use corrupts the cache in
 * ways that surface far from the bug.  Debug builds (UPC_DEBUG, the
 * default for tests) stop at the misuse instead.  Each test commits one
 * misuse in a child process (tests/utils/death.h) and checks that the
 * child aborted on the assertion meant for it, by the expression text
 * the assertion prints (with macros expanded: FOLIO_LOCKED reads
 * "(1UL << PG_locked)"), or by its function's name where two checks
 * print the same expression (gcc's assert() prints the name, clang's
 * the whole signature).  The parent's own folios are untouched by the
 * child and are freed normally after.  In a build without UPC_DEBUG the
 * checks are compiled out and every test is skipped.
 *
 * Not reached from here: the arena's uncharge underflow (only a
 * mis-paired charge inside mm/page_alloc.c could cause it) and the grab
 * path's check that a new folio is unlocked (only a reuse bug in the
 * allocator could cause it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <upcache/folio.h>
#include <upcache/vmscan.h>

#include "../../mm/internal.h"
#include "../../mm/lru_internal.h"
#include "death.h"

#define MiB		(1UL << 20)

static struct upc_arena *arena;

static int setup(void **state)
{
	(void)state;
#ifndef UPC_DEBUG
	return 0;
#else
	if (upc_arena_create(4 * MiB, &arena))
		return -1;
	if (upc_reclaim_init(arena)) {
		upc_arena_destroy(arena);
		return -1;
	}
	return 0;
#endif
}

static int teardown(void **state)
{
	int err;

	(void)state;
	if (!arena)
		return 0;
	lru_add_drain_all(arena);
	err = upc_arena_check(arena);
	if (upc_arena_charged(arena))
		err = -1;
	upc_reclaim_destroy(arena);
	upc_arena_destroy(arena);
	return err;
}

static struct folio *alloc(void)
{
	struct folio *folio;

#ifndef UPC_DEBUG
	skip();
#endif
	folio = upc_arena_alloc_folio(arena, GFP_KERNEL, 0);
	assert_non_null(folio);
	return folio;
}

/* ---- the folio lock and references -------------------------------------- */

static void unlock_it(void *arg)
{
	folio_unlock(arg);
}

static void test_unlock_unlocked(void **state)
{
	struct folio *folio = alloc();

	(void)state;
	assert_true(test_aborts_with(unlock_it, folio, "old & (1UL << PG_locked)"));
	/* Held, the same unlock is fine. */
	assert_true(folio_trylock(folio));
	folio_unlock(folio);
	folio_put(folio);
}

static void put_none(void *arg)
{
	folio_put_refs(arg, 0);
}

static void put_two(void *arg)
{
	folio_put_refs(arg, 2);
}

static void test_put_refs_misuse(void **state)
{
	struct folio *folio = alloc();

	(void)state;
	assert_true(test_aborts_with(put_none, folio, "nr <= 0"));
	/* One reference held, two dropped. */
	assert_int_equal(folio_ref_count(folio), 1);
	assert_true(test_aborts_with(put_two, folio, "left < 0"));
	/* With two held, the same call frees the folio. */
	folio_get(folio);
	folio_put_refs(folio, 2);
}

/* ---- freeing a folio in use --------------------------------------------- */

static void free_it(void *arg)
{
	upc_folio_free(arg);
}

static void put_it(void *arg)
{
	folio_put(arg);
}

static void test_free_referenced(void **state)
{
	struct folio *folio = alloc();

	(void)state;
	assert_true(test_aborts_with(free_it, folio,
				     "folio_ref_count(folio) != 0"));
	folio_put(folio);
}

/*
 * The last reference of a folio that is locked, dirty, under writeback,
 * in the swap cache, holding swap slots or marked free.  PG_lru is in
 * the same mask but cannot reach the check this way: the last put takes
 * a folio off its LRU list first.
 */
static void test_free_with_flags(void **state)
{
	static const unsigned int flags[] = {
		PG_locked, PG_dirty, PG_writeback, PG_swapcache, PG_buddy,
		PG_swapslot,
	};
	struct folio *folio = alloc();
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		unsigned long bit = 1UL << flags[i];

		__atomic_fetch_or(&folio->flags, bit, __ATOMIC_RELAXED);
		if (!test_aborts_with(put_it, folio,
				      "&folio->flags"))
			fail_msg("flag %u", flags[i]);
		__atomic_fetch_and(&folio->flags, ~bit, __ATOMIC_RELAXED);
	}
	folio_put(folio);
}

static void test_free_with_mapping(void **state)
{
	struct address_space mapping;
	struct folio *folio = alloc();

	(void)state;
	folio->mapping = &mapping;
	assert_true(test_aborts_with(put_it, folio,
				     "folio->mapping !="));
	folio->mapping = NULL;
	folio_put(folio);
}

/* ---- the LRU ------------------------------------------------------------ */

static void add_lru(void *arg)
{
	folio_add_lru(arg);
	lru_add_drain_all(arena);
}

static void test_add_lru_twice(void **state)
{
	struct folio *folio = alloc();

	(void)state;
	folio_add_lru(folio);
	lru_add_drain_all(arena);
	assert_true(folio_test_lru(folio));
	assert_true(test_aborts_with(add_lru, folio,
				     "folio_add_lru"));
	folio_put(folio);
}

static void link_again(void *arg)
{
	lruvec_add_folio(arena_lruvec(arena), arg);
}

/* Past folio_add_lru()'s own check: linking a listed folio again. */
static void test_link_listed(void **state)
{
	struct folio *folio = alloc();

	(void)state;
	folio_add_lru(folio);
	lru_add_drain_all(arena);
	assert_true(test_aborts_with(link_again, folio,
				     "lruvec_link"));
	folio_put(folio);
}

static void move_off_lru(void *arg)
{
	lruvec_move_folio(arena_lruvec(arena), arg, LRU_INACTIVE_FILE);
}

static void del_from_empty_list(void *arg)
{
	lruvec_del_folio(arena_lruvec(arena), arg, LRU_ACTIVE_FILE);
}

static void test_lru_list_misuse(void **state)
{
	struct folio *folio = alloc();

	(void)state;
	assert_true(test_aborts_with(move_off_lru, folio,
				     "!folio_test_lru(folio)"));
	/* On the inactive list, taken off the empty active one. */
	folio_add_lru(folio);
	lru_add_drain_all(arena);
	assert_int_equal(arena_lruvec(arena)->nr_pages[LRU_ACTIVE_FILE], 0);
	assert_true(test_aborts_with(del_from_empty_list, folio,
				     "nr_pages[lru] < folio_nr_pages(folio)"));
	folio_put(folio);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unlock_unlocked),
		cmocka_unit_test(test_put_refs_misuse),
		cmocka_unit_test(test_free_referenced),
		cmocka_unit_test(test_free_with_flags),
		cmocka_unit_test(test_free_with_mapping),
		cmocka_unit_test(test_add_lru_twice),
		cmocka_unit_test(test_link_listed),
		cmocka_unit_test(test_lru_list_misuse),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
