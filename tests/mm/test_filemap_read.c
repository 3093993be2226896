// SPDX-License-Identifier: MIT
/*
 * tests/mm/test_filemap_read.c - the read-miss path of file-backed
 * mappings (mm/filemap_read.c): mapping_read_folio_gfp() and
 * filemap_read_folio().
 *
 * A miss reads through a_ops->read_folio once and a hit not at all; a
 * second use activates; a page evicted and read again refaults over its
 * shadow with one walk for the add; a failed read leaves the folio
 * cached but not uptodate and the next read tries again; the errors
 * (-EINVAL, -EFBIG, -ENOMEM, -EIO) come back as ERR_PTRs.
 */
#include <upcache/stats.h>

#include "vmscan_helpers.h"

#define LIMIT		1024UL
#define FILE_PAGES	(4 * LIMIT)

/* A miss reads once and returns the page's data; a hit reads nothing. */
static void test_filemap_read_miss_then_hit(void **state)
{
	struct vm_fixture f;
	struct vm_store st;
	struct folio *folio, *again;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, false);
	folio = read_mapping_folio(&f.mapping, 7);
	assert_false(IS_ERR(folio));
	assert_true(folio_test_uptodate(folio));
	assert_false(folio_test_locked(folio));
	assert_int_equal(folio->index, 7);
	assert_ptr_equal(folio->mapping, &f.mapping);
	assert_true(*(uint64_t *)folio_address(folio) == vm_pattern(7));
	assert_int_equal(st.reads, 1);
	assert_int_equal(f.mapping.nrpages, 1);
	/* First use: referenced, not yet active. */
	assert_true(folio_test_referenced(folio));

	again = read_mapping_folio(&f.mapping, 7);
	assert_ptr_equal(again, folio);
	assert_int_equal(st.reads, 1);
	folio_put(again);
	/* Second use: promoted to the active list. */
	lru_add_drain_all(f.arena);
	assert_true(folio_test_active(folio));
	assert_int_equal(vm_stats(f.arena).nr_active_file, 1);
	folio_put(folio);
	vm_assert_lru_consistent(&f);
	vm_store_teardown(&f, &st);
}

/*
 * A file four times the limit read twice: the second pass refaults over
 * shadows, the limit holds throughout, every page has its data.
 */
static void test_filemap_read_refaults(void **state)
{
	struct upc_reclaim_stats rs;
	struct vm_fixture f;
	struct vm_store st;
	pgoff_t i;
	int pass;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, false);
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < FILE_PAGES; i++) {
			assert_true(vm_read_word(&f.mapping, i) ==
				    vm_pattern(i));
			assert_true(upc_arena_charged(f.arena) <= LIMIT);
		}
	rs = vm_stats(f.arena);
	assert_true(rs.pgsteal >= FILE_PAGES);
	assert_true(rs.workingset_refault > 0);
	assert_true(xa_is_value(filemap_get_entry(&f.mapping, 0)));
	vm_assert_lru_consistent(&f);
	vm_store_teardown(&f, &st);
}

/*
 * Seed 000's count: a read that misses over an order-0 shadow walks once
 * to look up and once to add (no eviction needed: the cache has room).
 */
static void test_filemap_read_walks(void **state)
{
	struct upc_thread_stats before, after;
	struct vm_fixture f;
	struct vm_store st;
	struct folio *folio;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, false);
	folio_put(read_mapping_folio(&f.mapping, 100));
	folio_put(read_mapping_folio(&f.mapping, 101));
	/* Evict both: shadows at 100 and 101. */
	assert_int_equal(upc_reclaim_pages(f.arena, 2), 2);
	assert_true(xa_is_value(filemap_get_entry(&f.mapping, 100)));

	upc_stats_thread(&before);
	folio = read_mapping_folio(&f.mapping, 100);
	upc_stats_thread(&after);
	assert_false(IS_ERR(folio));
	assert_int_equal(after.xa_walks - before.xa_walks, 2);
	assert_int_equal(vm_stats(f.arena).workingset_refault, 1);
	folio_put(folio);
	vm_store_teardown(&f, &st);
}

/* A failed read: -EIO, the folio stays cached not uptodate, retried. */
static void test_filemap_read_error_retries(void **state)
{
	struct vm_fixture f;
	struct vm_store st;
	struct folio *folio;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, false);
	st.fail_read = 9;
	folio = read_mapping_folio(&f.mapping, 9);
	assert_ptr_equal(folio, ERR_PTR(-EIO));
	folio = filemap_get_folio(&f.mapping, 9);
	assert_false(IS_ERR(folio));
	assert_false(folio_test_uptodate(folio));
	assert_false(folio_test_locked(folio));
	folio_put(folio);
	/* Still failing: the cached folio is read again, and fails again. */
	assert_ptr_equal(read_mapping_folio(&f.mapping, 9), ERR_PTR(-EIO));
	assert_int_equal(st.reads, 2);

	st.fail_read = -1;
	assert_true(vm_read_word(&f.mapping, 9) == vm_pattern(9));
	assert_int_equal(st.reads, 3);
	assert_int_equal(f.mapping.nrpages, 1);
	vm_store_teardown(&f, &st);
}

/* A read_folio that returns 0 without making the folio uptodate: -EIO. */
static int read_folio_lies(struct address_space *mapping, struct folio *folio)
{
	(void)mapping;
	folio_unlock(folio);
	return 0;
}

static void test_filemap_read_einval_efbig_eio(void **state)
{
	static const struct address_space_operations liar = {
		.read_folio = read_folio_lies,
	};
	struct vm_fixture f;
	struct vm_store st;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, false);
	assert_ptr_equal(read_mapping_folio(&f.mapping,
					    MAX_PAGECACHE_INDEX + 1),
			 ERR_PTR(-EFBIG));
	f.mapping.a_ops = NULL;
	assert_ptr_equal(read_mapping_folio(&f.mapping, 0), ERR_PTR(-EINVAL));
	f.mapping.a_ops = &liar;
	assert_ptr_equal(read_mapping_folio(&f.mapping, 0), ERR_PTR(-EIO));
	assert_int_equal(f.mapping.nrpages, 1);
	vm_store_teardown(&f, &st);
}

/* A read_folio that fails with an errno of its own, leaving no data. */
static int read_folio_enodata(struct address_space *mapping,
			      struct folio *folio)
{
	struct vm_store *st = mapping->host;

	__atomic_fetch_add(&st->reads, 1, __ATOMIC_RELAXED);
	folio_unlock(folio);
	return -ENODATA;
}

/*
 * read_folio's own error comes back as it is, whether the read missed
 * (a new folio) or found the folio a failed read left behind: not
 * turned into -EIO, which only stands for a read that claimed success
 * and left the folio not uptodate.
 */
static void test_filemap_read_passes_read_error(void **state)
{
	static const struct address_space_operations enodata = {
		.read_folio = read_folio_enodata,
	};
	struct vm_fixture f;
	struct vm_store st;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, false);
	f.mapping.a_ops = &enodata;
	assert_ptr_equal(read_mapping_folio(&f.mapping, 3),
			 ERR_PTR(-ENODATA));
	assert_int_equal(f.mapping.nrpages, 1);
	assert_ptr_equal(read_mapping_folio(&f.mapping, 3),
			 ERR_PTR(-ENODATA));
	assert_int_equal(st.reads, 2);
	vm_store_teardown(&f, &st);
}

/* The cache's own reclaim hook, and where a racing read goes. */
static upc_reclaim_fn race_saved_fn;
static void *race_saved_priv;
static struct address_space *race_mapping;
static pgoff_t race_index;
static unsigned int race_calls;

/*
 * A reclaim hook that, before reclaiming as the cache does, reads
 * race_index itself: the read whose allocation it serves missed, and
 * finds the page cached when it comes to add its own folio, as it
 * would after another thread's read won the race.  Once only: it puts
 * the cache's hook back first.
 */
static unsigned long race_reclaim(struct upc_arena *arena,
				  unsigned long nr_pages, gfp_t gfp,
				  void *priv)
{
	struct folio *folio;

	(void)priv;
	race_calls++;
	upc_arena_set_reclaim(arena, race_saved_fn, race_saved_priv);
	folio = read_mapping_folio(race_mapping, race_index);
	assert_false(IS_ERR(folio));
	folio_put(folio);
	return race_saved_fn(arena, nr_pages, gfp, race_saved_priv);
}

/*
 * A read that loses the add of a missing page to another reader
 * (filemap_add_folio()'s -EEXIST) looks the page up again and returns
 * the winner's folio, read once: the loss is no error of the caller's.
 */
static void test_filemap_read_lost_add_uses_winner(void **state)
{
	struct vm_fixture f;
	struct vm_store st;
	struct folio *folio, *cached;

	(void)state;
	vm_store_setup(&f, &st, 8, 512, FILE_PAGES, false);
	while (upc_arena_charged(f.arena) < 512)
		folio_put(read_mapping_folio(&f.mapping, f.mapping.nrpages));
	race_saved_fn = f.arena->reclaim;
	race_saved_priv = f.arena->reclaim_priv;
	race_mapping = &f.mapping;
	race_index = 1000;
	race_calls = 0;
	upc_arena_set_reclaim(f.arena, race_reclaim, NULL);
	st.reads = 0;
	folio = read_mapping_folio(&f.mapping, 1000);
	assert_false(IS_ERR(folio));
	assert_int_equal(race_calls, 1);
	assert_int_equal(st.reads, 1);
	cached = filemap_get_entry(&f.mapping, 1000);
	assert_ptr_equal(cached, folio);
	folio_put(cached);
	assert_true(*(uint64_t *)folio_address(folio) == vm_pattern(1000));
	folio_put(folio);
	vm_store_teardown(&f, &st);
}

/* Every page of the limit pinned: nothing to reclaim, -ENOMEM. */
static void test_filemap_read_enomem(void **state)
{
	struct folio **held = calloc(LIMIT, sizeof(*held));
	struct vm_fixture f;
	struct vm_store st;
	unsigned long i, n = 0;

	(void)state;
	assert_non_null(held);
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, false);
	for (i = 0; i < LIMIT; i++) {
		held[n] = read_mapping_folio(&f.mapping, i);
		if (IS_ERR(held[n]))
			break;
		n++;
	}
	/* The watermarks may keep a few pages out of reach. */
	assert_true(n > LIMIT - 64);
	assert_ptr_equal(read_mapping_folio(&f.mapping, LIMIT + 1),
			 ERR_PTR(-ENOMEM));
	for (i = 0; i < n; i++)
		folio_put(held[i]);
	assert_true(vm_read_word(&f.mapping, LIMIT + 1) ==
		    vm_pattern(LIMIT + 1));
	free(held);
	vm_store_teardown(&f, &st);
}

/* An index inside a cached large folio is served by that folio. */
static void test_filemap_read_large_folio_hit(void **state)
{
	struct vm_fixture f;
	struct vm_store st;
	struct folio *folio, *hit;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, false);
	folio = filemap_alloc_folio(&f.mapping, GFP_KERNEL, 4);
	assert_non_null(folio);
	folio_trylock(folio);
	assert_int_equal(filemap_add_folio(&f.mapping, folio, 32, GFP_KERNEL),
			 0);
	assert_int_equal(filemap_read_folio(&f.mapping, folio), 0);
	hit = read_mapping_folio(&f.mapping, 45);
	assert_ptr_equal(hit, folio);
	assert_true(vm_read_word(&f.mapping, 45) == vm_pattern(45));
	assert_int_equal(st.reads, 1);
	folio_put(hit);
	folio_put(folio);
	vm_store_teardown(&f, &st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filemap_read_miss_then_hit),
		cmocka_unit_test(test_filemap_read_refaults),
		cmocka_unit_test(test_filemap_read_walks),
		cmocka_unit_test(test_filemap_read_error_retries),
		cmocka_unit_test(test_filemap_read_einval_efbig_eio),
		cmocka_unit_test(test_filemap_read_passes_read_error),
		cmocka_unit_test(test_filemap_read_lost_add_uses_winner),
		cmocka_unit_test(test_filemap_read_enomem),
		cmocka_unit_test(test_filemap_read_large_folio_hit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
