// SPDX-License-Identifier: MIT
/*
 * tests/mm/test_filemap_read_concurrency.c - the read-miss path racing
 * reclaim.
 *
 * Two reader threads read random pages of a file four times the limit
 * through mapping_read_folio_gfp(), so every other read misses, evicts
 * (direct reclaim on the reading thread) and refaults; both often miss
 * on the same index at once, so one of them loses the add and must use
 * the winner's folio.  Each checks the page's first word while it holds
 * the folio: a folio freed or reused while referenced, or handed out
 * before its read finished, shows another page's pattern (or zeros).
 * Each reader also rewrites a few pages of its own with new stamps and
 * dirties them; reclaim writes them back to the store and evicts them,
 * and a later read must find the last stamp (no lost data).  A third
 * thread runs explicit reclaim throughout.
 */
#include <pthread.h>

#include "vmscan_helpers.h"

#include "rand.h"

#define LIMIT		1024UL
#define FILE_PAGES	(4 * LIMIT)
#define OPS		60000
#define OWN_PAGES	8

struct reader {
	pthread_t thread;
	struct vm_fixture *f;
	uint64_t seed;
	pgoff_t own_base;		/* past FILE_PAGES: nobody else reads */
	uint64_t stamp[OWN_PAGES];
	unsigned long bad;
	unsigned long errors;
};

static volatile int stop;

/* Read page @index, check it holds @want in its first word. */
static void reader_check(struct reader *r, pgoff_t index, uint64_t want)
{
	struct folio *folio = read_mapping_folio(&r->f->mapping, index);

	if (IS_ERR(folio)) {
		r->errors++;
		return;
	}
	if (!folio_test_uptodate(folio) ||
	    *(uint64_t *)((char *)folio_address(folio) +
			  ((index - folio->index) << UPC_PAGE_SHIFT)) != want)
		r->bad++;
	folio_put(folio);
}

/* Write a new stamp into own page @slot and dirty it. */
static void reader_write(struct reader *r, unsigned int slot, uint64_t stamp)
{
	pgoff_t index = r->own_base + slot;
	struct folio *folio = read_mapping_folio(&r->f->mapping, index);

	if (IS_ERR(folio)) {
		r->errors++;
		return;
	}
	folio_lock(folio);
	if (*(uint64_t *)folio_address(folio) != r->stamp[slot])
		r->bad++;
	*(uint64_t *)folio_address(folio) = stamp;
	r->stamp[slot] = stamp;
	folio_mark_dirty(folio);
	folio_unlock(folio);
	folio_put(folio);
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	struct upc_rand rng;
	unsigned int op, slot;

	upc_rand_seed(&rng, r->seed);
	for (slot = 0; slot < OWN_PAGES; slot++)
		r->stamp[slot] = vm_pattern(r->own_base + slot);
	for (op = 0; op < OPS; op++) {
		pgoff_t index = upc_rand_below(&rng, FILE_PAGES);

		if (op % 16 == 0) {
			slot = (unsigned int)(index % OWN_PAGES);
			reader_write(r, slot, upc_rand_next(&rng) | 1);
		} else if (op % 16 == 8) {
			slot = (unsigned int)(index % OWN_PAGES);
			reader_check(r, r->own_base + slot, r->stamp[slot]);
		} else {
			reader_check(r, index, vm_pattern(index));
		}
	}
	return NULL;
}

static void *reclaimer_main(void *arg)
{
	struct vm_fixture *f = arg;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		upc_reclaim_pages(f->arena, 64);
		lru_add_drain_all(f->arena);
	}
	return NULL;
}

static void test_filemap_read_races_reclaim(void **state)
{
	struct reader readers[2];
	struct upc_reclaim_stats rs;
	struct vm_fixture f;
	struct vm_store st;
	pthread_t reclaimer;
	uint64_t seed = upc_test_seed();
	unsigned int i, s;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES + 2 * OWN_PAGES, true);
	stop = 0;
	for (i = 0; i < 2; i++) {
		readers[i] = (struct reader){
			.f = &f, .seed = seed + i,
			.own_base = FILE_PAGES + i * OWN_PAGES,
		};
		assert_int_equal(pthread_create(&readers[i].thread, NULL,
						reader_main, &readers[i]), 0);
	}
	assert_int_equal(pthread_create(&reclaimer, NULL, reclaimer_main, &f),
			 0);
	for (i = 0; i < 2; i++)
		pthread_join(readers[i].thread, NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(reclaimer, NULL);

	for (i = 0; i < 2; i++) {
		assert_int_equal(readers[i].bad, 0);
		assert_int_equal(readers[i].errors, 0);
	}
	rs = vm_stats(f.arena);
	assert_true(rs.pgsteal > 0);
	assert_true(rs.workingset_refault > 0);
	assert_true(upc_arena_charged(f.arena) <= LIMIT);

	/* Everything out: dirty pages written back, then read back. */
	upc_reclaim_pages(f.arena, LIMIT);
	for (i = 0; i < 2; i++)
		for (s = 0; s < OWN_PAGES; s++) {
			pgoff_t index = readers[i].own_base + s;

			assert_true(vm_read_word(&f.mapping, index) ==
				    readers[i].stamp[s]);
		}
	vm_assert_lru_consistent(&f);
	vm_store_teardown(&f, &st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filemap_read_races_reclaim),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
