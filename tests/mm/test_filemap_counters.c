// SPDX-License-Identifier: MIT
/*
 * tests/mm/test_filemap_counters.c - the page cache's cost in counted
 * events: tree walks and i_pages lock round trips (upcache/stats.h).
 *
 * These are the figures the design is argued with (DESIGN.md, "The page
 * cache"; the seeds 000, 002 and 004): an add walks the tree once, or
 * twice when it splits a larger shadow; a batch lookup walks once and
 * then moves sideways; filemap_grab_folios() takes the lock once and
 * walks twice however long the run; a batch removal inside one leaf
 * walks once.  Counts are per thread and exact, so they are asserted
 * exactly.
 *
 * lock_acquires counts the i_pages lock (and other upc_lock_t users of
 * the measured algorithms); the arena allocator's own locks are counted
 * apart, in arena_lock_acquires, so allocating folios inside an
 * operation (filemap_grab_folios()) does not blur the round trips.
 */
#include "filemap_helpers.h"

/*
 * The counters of one measured operation: a difference of snapshots,
 * so that the fixture's node accounting (fm_init()) is not disturbed.
 */
static struct upc_thread_stats counted, count_base;

static void count_start(void)
{
	upc_stats_thread(&count_base);
}

static void count_stop(void)
{
	struct upc_thread_stats now;

	upc_stats_thread(&now);
	counted.xa_walks = now.xa_walks - count_base.xa_walks;
	counted.xa_node_allocs = now.xa_node_allocs - count_base.xa_node_allocs;
	counted.xa_node_frees = now.xa_node_frees - count_base.xa_node_frees;
	counted.lock_acquires = now.lock_acquires - count_base.lock_acquires;
	counted.arena_lock_acquires = now.arena_lock_acquires -
				      count_base.arena_lock_acquires;
}

/* Indices [first, last] hold order-0 shadows: the leaves exist. */
static void put_shadows(struct fm_env *env, pgoff_t first, pgoff_t last)
{
	pgoff_t i;

	for (i = first; i <= last; i++)
		fm_put_shadow(env, i, 0, i);
}

static void test_add_empty_slot(void **state)
{
	struct folio *folio;
	struct fm_env env;

	(void)state;
	fm_init(&env, 0);
	fm_add_range(&env, 0, 9);
	fm_add_range(&env, 11, 63);
	fm_add_range(&env, 4000, 4010);	/* a taller tree */
	folio = fm_alloc(&env, 0);

	count_start();
	assert_int_equal(filemap_add_folio(&env.mapping, folio, 10, GFP_KERNEL),
			 0);
	count_stop();
	assert_int_equal(counted.xa_walks, 1);
	assert_int_equal(counted.lock_acquires, 1);
	assert_int_equal(counted.xa_node_allocs, 0);
	assert_ptr_equal(xa_load(&env.mapping.i_pages, 10), folio);
	assert_mapping_ok(&env.mapping);
	fm_unlock_put(folio);
	fm_fini(&env);
}

static void test_add_over_order0_shadow(void **state)
{
	struct folio *folio;
	struct fm_env env;
	void *shadow;

	(void)state;
	fm_init(&env, 0);
	put_shadows(&env, 0, 63);
	fm_add_range(&env, 4000, 4010);
	folio = fm_alloc(&env, 0);

	count_start();
	assert_int_equal(__filemap_add_folio(&env.mapping, folio, 33,
					     GFP_KERNEL, &shadow), 0);
	count_stop();
	assert_int_equal(counted.xa_walks, 1);
	assert_int_equal(counted.lock_acquires, 1);
	assert_ptr_equal(shadow, fm_shadow(33));
	assert_ptr_equal(xa_load(&env.mapping.i_pages, 33), folio);
	assert_ptr_equal(xa_load(&env.mapping.i_pages, 32), fm_shadow(32));
	assert_ptr_equal(xa_load(&env.mapping.i_pages, 34), fm_shadow(34));
	assert_mapping_ok(&env.mapping);
	fm_unlock_put(folio);
	fm_fini(&env);
}

/*
 * An order-0 folio into an order-9 shadow: scan (walk 1), drop the lock
 * to preallocate the split, rescan (walk 2), split, and store at the
 * slot the split leaves the cursor on.  The seed did a third walk for
 * the store; the baseline is measured by the benchmark, not here.
 */
static void test_add_over_order9_shadow(void **state)
{
	static const pgoff_t at[] = { 512, 515, 575, 576, 1023 };
	struct fm_env env;
	unsigned int i;

	(void)state;
	fm_init(&env, 0);
	fm_add_range(&env, 0, 3);
	fm_add_range(&env, 4000, 4010);
	for (i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		struct folio *folio = fm_alloc(&env, 0);
		void *shadow = NULL;

		fm_put_shadow(&env, 512, 9, 99 + i);
		count_start();
		assert_int_equal(__filemap_add_folio(&env.mapping, folio, at[i],
						     GFP_KERNEL, &shadow), 0);
		count_stop();
		assert_int_equal(counted.xa_walks, 2);
		assert_ptr_equal(shadow, fm_shadow(99 + i));
		assert_ptr_equal(xa_load(&env.mapping.i_pages, at[i]), folio);
		fm_assert_cut_shadow(&env.mapping, 512, 9, at[i], 0,
				     fm_shadow(99 + i));
		assert_mapping_ok(&env.mapping);
		folio_unlock(folio);
		fm_remove(folio);
		folio_put(folio);
	}
	fm_fini(&env);
}

/* Lock round trips of the split add: drop to allocate, relock. */
static void test_add_over_order9_shadow_locks(void **state)
{
	struct folio *folio;
	struct fm_env env;

	(void)state;
	fm_init(&env, 0);
	fm_put_shadow(&env, 512, 9, 9);
	folio = fm_alloc(&env, 0);
	count_start();
	assert_int_equal(filemap_add_folio(&env.mapping, folio, 600,
					   GFP_KERNEL), 0);
	count_stop();
	assert_int_equal(counted.lock_acquires, 2);
	assert_true(counted.xa_node_allocs > 0);
	fm_unlock_put(folio);
	fm_fini(&env);
}

/* One walk for a contiguous run with large folios in it. */
static void test_get_folios_contig_one_walk(void **state)
{
	static const struct { pgoff_t index; unsigned int order; } run[] = {
		{ 0, 0 }, { 1, 0 }, { 2, 1 }, { 4, 2 }, { 8, 3 }, { 16, 4 },
		{ 32, 5 }, { 64, 6 }, { 128, 7 }, { 256, 8 }, { 512, 9 },
		{ 1024, 9 }, { 1536, 0 }, { 1537, 0 }, { 1538, 1 },
		{ 1540, 2 }, { 1544, 3 }, { 1552, 4 }, { 1568, 5 },
		{ 1600, 6 }, { 1664, 7 }, { 1792, 8 }, { 2048, 9 },
		{ 2560, 0 },
	};
	const unsigned int nr = sizeof(run) / sizeof(run[0]);
	struct folio_batch fbatch;
	struct fm_env env;
	unsigned int i;
	pgoff_t start;

	(void)state;
	fm_init(&env, FM_LARGE);
	for (i = 0; i < nr; i++)
		fm_add(&env, run[i].index, run[i].order);
	fm_add(&env, 2562, 0);	/* after the hole at 2561 */
	folio_batch_init(&fbatch);

	start = 0;
	count_start();
	assert_int_equal(filemap_get_folios_contig(&env.mapping, &start, 100000,
						   &fbatch), nr);
	count_stop();
	assert_int_equal(counted.xa_walks, 1);
	assert_int_equal(counted.lock_acquires, 0);
	assert_int_equal(start, 2561);
	for (i = 0; i < nr; i++) {
		assert_int_equal(fbatch.folios[i]->index, run[i].index);
		assert_int_equal(folio_order(fbatch.folios[i]), run[i].order);
	}
	folio_batch_release(&fbatch);

	/* From inside an order-9 folio, stopping inside another. */
	start = 700;
	count_start();
	assert_int_equal(filemap_get_folios_contig(&env.mapping, &start, 1100,
						   &fbatch), 2);
	count_stop();
	assert_int_equal(counted.xa_walks, 1);
	assert_int_equal(start, 1536);
	folio_batch_release(&fbatch);
	fm_fini(&env);
}

/* Other batch lookups walk once too (DESIGN.md, seed 002). */
static void test_batch_lookups_one_walk(void **state)
{
	pgoff_t indices[FOLIO_BATCH_SIZE];
	struct folio_batch fbatch;
	struct fm_env env;
	pgoff_t start, i;

	(void)state;
	fm_init(&env, FM_LARGE);
	fm_add(&env, 0, 9);
	for (i = 512; i < 530; i++)
		folio_mark_dirty(fm_add(&env, i, 0));
	fm_put_shadow(&env, 530, 0, 1);
	fm_add(&env, 532, 2);
	fm_add(&env, 1024, 9);
	folio_batch_init(&fbatch);

	count_start();
	filemap_get_read_batch(&env.mapping, 100, 5000, &fbatch);
	count_stop();
	assert_int_equal(folio_batch_count(&fbatch), 19);
	assert_int_equal(counted.xa_walks, 1);
	folio_batch_release(&fbatch);

	start = 100;
	count_start();
	assert_int_equal(filemap_get_folios(&env.mapping, &start, 5000,
					    &fbatch), 21);
	count_stop();
	assert_int_equal(counted.xa_walks, 1);
	folio_batch_release(&fbatch);

	start = 0;
	count_start();
	assert_int_equal(filemap_get_folios_tag(&env.mapping, &start, 5000,
						PAGECACHE_TAG_DIRTY, &fbatch),
			 18);
	count_stop();
	assert_int_equal(counted.xa_walks, 1);
	folio_batch_release(&fbatch);

	start = 0;
	count_start();
	assert_int_equal(find_get_entries(&env.mapping, &start, 5000, &fbatch,
					  indices), 22);
	count_stop();
	assert_int_equal(counted.xa_walks, 1);
	for (i = 0; i < folio_batch_count(&fbatch); i++)
		if (!xa_is_value(fbatch.folios[i]))
			folio_put(fbatch.folios[i]);
	folio_batch_init(&fbatch);

	/* Clean them, so that the truncation in fm_fini() may free them. */
	for (i = 512; i < 530; i++) {
		struct folio *folio = xa_load(&env.mapping.i_pages, i);

		folio_lock(folio);
		folio_clear_dirty_for_io(folio);
		folio_unlock(folio);
	}
	fm_fini(&env);
}

/*
 * grab_counted() - filemap_grab_folios() of @n folios at @index into
 * @folios, counted: it returns @n, after two walks (the lockless lookup
 * and the inserts) and one i_pages round trip, with no XArray node
 * allocated.  Return: what it returned.
 */
static int grab_counted(struct fm_env *env, pgoff_t index, unsigned int n,
			struct folio **folios)
{
	int nr;

	count_start();
	nr = filemap_grab_folios(&env->mapping, index, n, folios);
	count_stop();
	assert_int_equal(nr, n);
	assert_int_equal(counted.xa_walks, 2);
	assert_int_equal(counted.lock_acquires, 1);
	assert_int_equal(counted.xa_node_allocs, 0);
	return nr;
}

/*
 * filemap_grab_folios() of @n missing order-0 folios over order-0
 * shadows: two walks and one i_pages round trip, whatever @n; the n
 * allocations happen in between and count as arena locks only.
 */
static void grab_run_counts(unsigned int n)
{
	struct folio *folios[FILEMAP_GRAB_MAX];
	const pgoff_t index = 10000;
	struct fm_env env;
	int nr;

	fm_init(&env, 0);
	put_shadows(&env, index - 1, index + n);
	fm_add(&env, index - 2, 0);

	nr = grab_counted(&env, index, n, folios);
	/*
	 * The allocations did happen, counted apart, and in bulk: one hold
	 * of a per-CPU cache lock plus one buddy lock per refill batch.
	 */
	assert_true(counted.arena_lock_acquires >= 1);
	assert_true(counted.arena_lock_acquires <= n / UPC_PCP_BATCH + 2);
	assert_ptr_equal(xa_load(&env.mapping.i_pages, index - 1),
			 fm_shadow(index - 1));
	assert_ptr_equal(xa_load(&env.mapping.i_pages, index + n),
			 fm_shadow(index + n));
	assert_int_equal(env.mapping.nrpages, n + 1);
	assert_mapping_ok(&env.mapping);
	fm_unlock_put_all(folios, nr);
	fm_fini(&env);
}

static void test_grab_folios_counts(void **state)
{
	(void)state;
	grab_run_counts(64);
	grab_run_counts(256);
	grab_run_counts(FILEMAP_GRAB_MAX);
}

/*
 * The same with the leaves existing but most of the run's slots empty
 * (one shadow per leaf): the inserts need no node.
 */
static void test_grab_folios_counts_sparse(void **state)
{
	static const unsigned int sizes[] = { 64, 256, FILEMAP_GRAB_MAX };
	struct folio *folios[FILEMAP_GRAB_MAX];
	unsigned int s;

	(void)state;
	for (s = 0; s < 3; s++) {
		const unsigned int n = sizes[s];
		const pgoff_t index = 8192 + 1;
		struct fm_env env;
		pgoff_t i;
		int nr;

		fm_init(&env, 0);
		/* A shadow at the first index of each leaf. */
		for (i = 8192; i <= index + n; i += 64)
			fm_put_shadow(&env, i, 0, i);
		fm_put_shadow(&env, index + n, 0, 1);
		nr = grab_counted(&env, index, n, folios);
		assert_mapping_ok(&env.mapping);
		fm_unlock_put_all(folios, nr);
		fm_fini(&env);
	}
}

/*
 * A run that is all cached: one lockless walk finds it, and the folios
 * are locked without taking the i_pages lock at all.
 */
static void test_grab_folios_counts_cached(void **state)
{
	struct folio *first[FILEMAP_GRAB_MAX], *again[FILEMAP_GRAB_MAX];
	const pgoff_t index = 4096 + 7;
	struct fm_env env;
	int nr, i;

	(void)state;
	fm_init(&env, 0);
	nr = filemap_grab_folios(&env.mapping, index, FILEMAP_GRAB_MAX, first);
	assert_int_equal(nr, FILEMAP_GRAB_MAX);
	fm_unlock_put_all(first, nr);

	count_start();
	nr = filemap_grab_folios(&env.mapping, index, FILEMAP_GRAB_MAX, again);
	count_stop();
	assert_int_equal(nr, FILEMAP_GRAB_MAX);
	assert_int_equal(counted.xa_walks, 1);
	assert_int_equal(counted.lock_acquires, 0);
	for (i = 0; i < nr; i++) {
		assert_ptr_equal(again[i], first[i]);
		assert_true(folio_test_locked(again[i]));
	}
	assert_int_equal(env.mapping.nrpages, FILEMAP_GRAB_MAX);
	fm_unlock_put_all(again, nr);
	assert_mapping_ok(&env.mapping);
	fm_fini(&env);
}

/* batch_add_locked() - Get and lock @folio, then add it to @fbatch. */
static void batch_add_locked(struct folio_batch *fbatch, struct folio *folio)
{
	folio_get(folio);
	folio_lock(folio);
	folio_batch_add(fbatch, folio);
}

/*
 * delete_counted() - delete_from_page_cache_batch() of @fbatch, counted:
 * one walk and one i_pages round trip.
 */
static void delete_counted(struct fm_env *env, struct folio_batch *fbatch)
{
	count_start();
	delete_from_page_cache_batch(&env->mapping, fbatch);
	count_stop();
	assert_int_equal(counted.xa_walks, 1);
	assert_int_equal(counted.lock_acquires, 1);
}

/* One walk and one round trip for a batch inside one leaf. */
static void test_delete_batch_one_walk(void **state)
{
	struct folio *folios[FOLIO_BATCH_SIZE];
	struct folio_batch fbatch;
	struct fm_env env;
	unsigned int i;

	(void)state;
	fm_init(&env, 0);
	fm_add_range(&env, 128, 191);
	fm_add_range(&env, 4000, 4010);
	folio_batch_init(&fbatch);
	for (i = 0; i < FOLIO_BATCH_SIZE; i++) {
		folios[i] = xa_load(&env.mapping.i_pages, 130 + 2 * i);
		batch_add_locked(&fbatch, folios[i]);
	}

	delete_counted(&env, &fbatch);
	for (i = 0; i < FOLIO_BATCH_SIZE; i++) {
		assert_null(xa_load(&env.mapping.i_pages, 130 + 2 * i));
		assert_non_null(xa_load(&env.mapping.i_pages, 131 + 2 * i));
		assert_null(folios[i]->mapping);
		assert_int_equal(folio_ref_count(folios[i]), 1);
	}
	assert_int_equal(env.mapping.nrpages, 64 - FOLIO_BATCH_SIZE + 11);
	assert_mapping_ok(&env.mapping);
	fm_unlock_put_all(folios, FOLIO_BATCH_SIZE);

	/* Every entry of a leaf: the leaf goes with the last one. */
	folio_batch_init(&fbatch);
	for (i = 0; i < FOLIO_BATCH_SIZE; i++) {
		folios[i] = fm_add(&env, 256 + i, 0);
		batch_add_locked(&fbatch, folios[i]);
	}
	delete_counted(&env, &fbatch);
	assert_int_equal(counted.xa_node_frees, 1);
	assert_mapping_ok(&env.mapping);
	fm_unlock_put_all(folios, FOLIO_BATCH_SIZE);
	fm_fini(&env);
}

/*
 * folio_clear_dirty_start_writeback() swaps the dirty tag for the
 * writeback tag under one i_pages round trip: at no moment is a folio
 * being cleaned for its write in neither tag, where an fsync's pass
 * (dirty tag) and then its wait (writeback tag) would both miss it.  A
 * clean folio costs nothing.
 */
static void test_start_writeback_one_round_trip(void **state)
{
	struct fm_env env;
	struct folio *folio;

	(void)state;
	fm_init(&env, 0);
	folio = fm_add(&env, 5, 0);
	folio_lock(folio);
	assert_true(folio_mark_dirty(folio));
	assert_true(xa_get_mark(&env.mapping.i_pages, 5, PAGECACHE_TAG_DIRTY));
	count_start();
	assert_true(folio_clear_dirty_start_writeback(folio));
	count_stop();
	assert_int_equal(counted.lock_acquires, 1);
	assert_false(folio_test_dirty(folio));
	assert_true(folio_test_writeback(folio));
	assert_false(xa_get_mark(&env.mapping.i_pages, 5, PAGECACHE_TAG_DIRTY));
	assert_true(xa_get_mark(&env.mapping.i_pages, 5,
				PAGECACHE_TAG_WRITEBACK));
	folio_end_writeback(folio);
	assert_false(xa_get_mark(&env.mapping.i_pages, 5,
				 PAGECACHE_TAG_WRITEBACK));
	count_start();
	assert_false(folio_clear_dirty_start_writeback(folio));
	count_stop();
	assert_int_equal(counted.lock_acquires, 0);
	assert_false(folio_test_writeback(folio));
	folio_unlock(folio);
	fm_fini(&env);
}

/* The operation just counted took @locks round trips and @walks walks. */
static void assert_counted(uint64_t locks, uint64_t walks)
{
	assert_int_equal(counted.lock_acquires, locks);
	assert_int_equal(counted.xa_walks, walks);
}

/* The tag @tag of every folio of @folios is @set. */
static void assert_tags(struct fm_env *env, struct folio **folios,
			unsigned int nr, xa_mark_t tag, bool set)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		assert_int_equal(xa_get_mark(&env->mapping.i_pages,
					     folios[i]->index, tag), set);
}

/*
 * The batched state changes of writeback (filemap_dirty_folios(),
 * folios_tag_writeback(), folios_end_writeback()): one i_pages round
 * trip and one walk for a run of folios, however long and wherever in
 * the file: the cursor goes from one folio to the next through the node
 * they share.  The run: 64 order-0 folios at 40-103 (across the first
 * leaf's end at 64), an order-2 folio at 128, order-0 ones at 132-135
 * and 200-203 (the third and fourth leaves).  Bits change first; tags
 * follow, the dirty tag kept for a folio dirty again.
 */
static void test_writeback_state_batched(void **state)
{
	struct folio *folios[76];
	unsigned int i, nr = 0;
	struct fm_env env;

	(void)state;
	fm_init(&env, 0);
	for (i = 40; i <= 103; i++)
		folios[nr++] = fm_add(&env, i, 0);
	folios[nr++] = fm_add(&env, 128, 2);
	for (i = 132; i <= 135; i++)
		folios[nr++] = fm_add(&env, i, 0);
	for (i = 200; i <= 203; i++)
		folios[nr++] = fm_add(&env, i, 0);
	for (i = 0; i < nr; i++)
		folio_lock(folios[i]);

	count_start();
	assert_int_equal(filemap_dirty_folios(&env.mapping, folios, nr),
			 nr + 3);
	count_stop();
	assert_counted(1, 1);
	assert_tags(&env, folios, nr, PAGECACHE_TAG_DIRTY, true);
	/* All dirty already: no lock, no walk. */
	count_start();
	assert_int_equal(filemap_dirty_folios(&env.mapping, folios, nr), 0);
	count_stop();
	assert_counted(0, 0);

	count_start();
	for (i = 0; i < nr; i++)
		assert_true(folio_clear_dirty_set_writeback(folios[i]));
	count_stop();
	assert_int_equal(counted.lock_acquires, 0);
	/* Until the tags move, every folio keeps its dirty tag. */
	assert_tags(&env, folios, nr, PAGECACHE_TAG_DIRTY, true);
	assert_tags(&env, folios, nr, PAGECACHE_TAG_WRITEBACK, false);
	assert_true(folio_mark_dirty(folios[10]));

	count_start();
	folios_tag_writeback(folios, nr);
	count_stop();
	assert_counted(1, 1);
	assert_tags(&env, folios, nr, PAGECACHE_TAG_WRITEBACK, true);
	assert_true(xa_get_mark(&env.mapping.i_pages, folios[10]->index,
				PAGECACHE_TAG_DIRTY));
	for (i = 0; i < nr; i++)
		assert_int_equal(xa_get_mark(&env.mapping.i_pages,
					     folios[i]->index,
					     PAGECACHE_TAG_DIRTY), i == 10);

	count_start();
	folios_end_writeback(folios, nr);
	count_stop();
	assert_counted(1, 1);
	assert_tags(&env, folios, nr, PAGECACHE_TAG_WRITEBACK, false);
	for (i = 0; i < nr; i++) {
		assert_false(folio_test_writeback(folios[i]));
		assert_int_equal(folio_test_dirty(folios[i]), i == 10);
	}
	assert_true(folio_clear_dirty_for_io(folios[10]));
	assert_mapping_ok(&env.mapping);
	for (i = 0; i < nr; i++)
		folio_unlock(folios[i]);
	fm_fini(&env);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_empty_slot),
		cmocka_unit_test(test_add_over_order0_shadow),
		cmocka_unit_test(test_add_over_order9_shadow),
		cmocka_unit_test(test_add_over_order9_shadow_locks),
		cmocka_unit_test(test_get_folios_contig_one_walk),
		cmocka_unit_test(test_batch_lookups_one_walk),
		cmocka_unit_test(test_grab_folios_counts),
		cmocka_unit_test(test_grab_folios_counts_sparse),
		cmocka_unit_test(test_grab_folios_counts_cached),
		cmocka_unit_test(test_delete_batch_one_walk),
		cmocka_unit_test(test_start_writeback_one_round_trip),
		cmocka_unit_test(test_writeback_state_batched),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
