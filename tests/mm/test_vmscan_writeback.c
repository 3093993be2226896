// SPDX-License-Identifier: MIT
/*
 * tests/mm/test_vmscan_writeback.c - what reclaim does with dirty and
 * swap-backed folios.
 *
 * A dirty file folio whose mapping can write back is written (PG_writeback
 * around the hook, dirty bit and tag cleared) and evicted, and reading it
 * again through read_folio returns the written data: nothing is lost.
 * A mapping without the hook keeps its dirty folios; a failing hook
 * keeps the folio dirty and cached, and so does a store into the folio
 * while reclaim writes it back.  Swap-backed folios stay without a
 * swap hook, go to it when one is installed (their slot then holds the
 * hook's swap entry), and stay when their mapping is unevictable.
 */
#include "vmscan_helpers.h"

#define LIMIT		1024UL
#define FILE_PAGES	(2 * LIMIT)

static uint64_t stamp_of(pgoff_t index)
{
	return ~vm_pattern(index);
}

/* Dirty data survives eviction and comes back through read_folio. */
static void test_vmscan_dirty_written_back(void **state)
{
	struct upc_reclaim_stats rs;
	struct vm_fixture f;
	struct vm_store st;
	pgoff_t i;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, true);
	for (i = 0; i < 64; i++)
		vm_write_stamp(&f.mapping, i, stamp_of(i));
	assert_true(xa_marked(&f.mapping.i_pages, PAGECACHE_TAG_DIRTY));
	assert_int_equal(upc_reclaim_pages(f.arena, LIMIT), 64);
	assert_int_equal(f.mapping.nrpages, 0);
	assert_false(xa_marked(&f.mapping.i_pages, PAGECACHE_TAG_DIRTY));
	assert_false(xa_marked(&f.mapping.i_pages, PAGECACHE_TAG_WRITEBACK));
	rs = vm_stats(f.arena);
	assert_int_equal(rs.nr_vmscan_write, 64);
	assert_int_equal(rs.nr_vmscan_write_errors, 0);
	assert_int_equal(st.writes, 64);
	for (i = 0; i < 64; i++) {
		assert_true(*(uint64_t *)vm_store_page(&st, i) == stamp_of(i));
		assert_true(vm_read_word(&f.mapping, i) == stamp_of(i));
	}
	vm_store_teardown(&f, &st);
}

/* Under memory pressure alone (direct reclaim), no dirty page is lost. */
static void test_vmscan_dirty_survives_pressure(void **state)
{
	struct vm_fixture f;
	struct vm_store st;
	pgoff_t i;
	int pass;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, true);
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < FILE_PAGES; i++) {
			if (i % 3 == 0)
				vm_write_stamp(&f.mapping, i, stamp_of(i) + pass);
			else
				assert_true(vm_read_word(&f.mapping, i) ==
					    vm_pattern(i));
			assert_true(upc_arena_charged(f.arena) <= LIMIT);
		}
	assert_true(vm_stats(f.arena).nr_vmscan_write > 0);
	for (i = 0; i < FILE_PAGES; i++)
		assert_true(vm_read_word(&f.mapping, i) ==
			    (i % 3 ? vm_pattern(i) : stamp_of(i) + 1));
	vm_store_teardown(&f, &st);
}

/* No writeback hook: dirty folios stay (and keep their data). */
static void test_vmscan_dirty_without_hook_stays(void **state)
{
	struct vm_fixture f;
	struct vm_store st;
	pgoff_t i;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, false);
	for (i = 0; i < 16; i++)
		vm_write_stamp(&f.mapping, i, stamp_of(i));
	for (i = 16; i < 32; i++)
		assert_true(vm_read_word(&f.mapping, i) == vm_pattern(i));
	assert_int_equal(upc_reclaim_pages(f.arena, LIMIT), 16);
	assert_int_equal(f.mapping.nrpages, 16);
	assert_int_equal(vm_stats(f.arena).nr_vmscan_write, 0);
	for (i = 0; i < 16; i++)
		assert_true(vm_read_word(&f.mapping, i) == stamp_of(i));
	vm_store_teardown(&f, &st);
}

/* A failing writeback keeps the folio, dirty and tagged. */
static void test_vmscan_writeback_error_keeps_dirty(void **state)
{
	struct upc_reclaim_stats rs;
	struct vm_fixture f;
	struct vm_store st;
	struct folio *folio;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, true);
	vm_write_stamp(&f.mapping, 5, stamp_of(5));
	st.fail_write = 1;
	assert_int_equal(upc_reclaim_pages(f.arena, LIMIT), 0);
	rs = vm_stats(f.arena);
	assert_int_equal(rs.nr_vmscan_write, 0);
	assert_true(rs.nr_vmscan_write_errors >= 1);
	folio = filemap_get_folio(&f.mapping, 5);
	assert_false(IS_ERR(folio));
	assert_true(folio_test_dirty(folio));
	assert_false(folio_test_writeback(folio));
	assert_true(xa_get_mark(&f.mapping.i_pages, 5, PAGECACHE_TAG_DIRTY));
	assert_true(*(uint64_t *)folio_address(folio) == stamp_of(5));
	folio_put(folio);
	assert_true(*(uint64_t *)vm_store_page(&st, 5) == vm_pattern(5));

	/* The store works again: the next reclaim writes and evicts it. */
	st.fail_write = 0;
	assert_int_equal(upc_reclaim_pages(f.arena, LIMIT), 1);
	assert_true(vm_read_word(&f.mapping, 5) == stamp_of(5));
	vm_store_teardown(&f, &st);
}

/* What a store into page 3 writes while reclaim writes the page back. */
#define LATE_STAMP	0xabcdef0123456789UL

/*
 * A writeback hook that writes the folio out, then stores into it and
 * dirties it again, as a writer with the page mapped could do while the
 * write is under way: the hook stands in for that writer, so the race
 * is there every time.
 */
static int writeback_then_store(struct address_space *mapping,
				struct folio *folio)
{
	int err = vm_store_writeback_folio(mapping, folio);

	*(uint64_t *)folio_address(folio) = LATE_STAMP;
	folio_mark_dirty(folio);
	return err;
}

/*
 * A folio dirtied again while reclaim writes it back stays, dirty: the
 * write took the data from before the store, and evicting the folio
 * would lose the store.  Reclaim checks PG_dirty again once it has
 * frozen the folio's references, when no new reference can come.  (It
 * may write the folio more than once before it gives up on it; each
 * time the store comes after.)  The next reclaim, with no writer, writes
 * the late store and evicts the folio.
 */
static void test_vmscan_redirtied_in_writeback_stays(void **state)
{
	static const struct address_space_operations late_store_ops = {
		.read_folio = vm_store_read_folio,
		.writeback_folio = writeback_then_store,
	};
	const struct address_space_operations *ops;
	struct vm_fixture f;
	struct vm_store st;
	struct folio *folio;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, true);
	ops = f.mapping.a_ops;
	f.mapping.a_ops = &late_store_ops;
	vm_write_stamp(&f.mapping, 3, stamp_of(3));
	lru_add_drain_all(f.arena);
	assert_int_equal(upc_reclaim_pages(f.arena, 1), 0);
	assert_true(st.writes >= 1);
	/* Still cached, still dirty, with the late store. */
	assert_int_equal(f.mapping.nrpages, 1);
	folio = filemap_get_folio(&f.mapping, 3);
	assert_false(IS_ERR(folio));
	assert_true(folio_test_dirty(folio));
	assert_true(*(uint64_t *)folio_address(folio) == LATE_STAMP);
	folio_put(folio);

	/* With the writer gone, it is written and evicted; nothing lost. */
	f.mapping.a_ops = ops;
	assert_int_equal(upc_reclaim_pages(f.arena, 1), 1);
	assert_int_equal(f.mapping.nrpages, 0);
	assert_true(*(uint64_t *)vm_store_page(&st, 3) == LATE_STAMP);
	assert_true(vm_read_word(&f.mapping, 3) == LATE_STAMP);
	vm_store_teardown(&f, &st);
}

/* ---- swap-backed folios ---------------------------------------------- */

/* A pretend swap device: one slot per index, entries xa_mk_value(slot). */
struct fake_swap {
	uint64_t slot[64];
	unsigned long outs;
	unsigned long frees;
	int fail;
};

static int fake_swap_out(struct folio *folio, void **entryp, void *priv)
{
	struct fake_swap *sw = priv;

	assert_true(folio_test_locked(folio));
	assert_true(folio_test_swapbacked(folio));
	assert_false(folio_test_dirty(folio));
	if (sw->fail)
		return -ENOSPC;
	sw->slot[folio->index] = *(uint64_t *)folio_address(folio);
	sw->outs++;
	*entryp = xa_mk_value(folio->index);
	return 0;
}

static void fake_swap_free(struct folio *folio, void *entry, void *priv)
{
	struct fake_swap *sw = priv;

	(void)folio;
	(void)entry;
	sw->frees++;
}

static const struct upc_swap_ops fake_swap_ops = {
	.swap_out = fake_swap_out,
	.swap_free = fake_swap_free,
};

/* Add @nr dirty swap-backed folios (anonymous-like data) to @mapping. */
static void add_swapbacked(struct address_space *mapping, unsigned long nr)
{
	pgoff_t i;

	for (i = 0; i < nr; i++) {
		struct folio *folio = filemap_alloc_folio(mapping, GFP_KERNEL,
							  0);

		assert_non_null(folio);
		folio_trylock(folio);
		assert_int_equal(filemap_add_folio(mapping, folio, i,
						   GFP_KERNEL), 0);
		assert_true(folio_test_swapbacked(folio));
		*(uint64_t *)folio_address(folio) = stamp_of(i);
		folio_set_uptodate(folio);
		folio_mark_dirty(folio);
		folio_unlock(folio);
		folio_put(folio);
	}
}

/* Drop whatever @mapping holds, swap entries included. */
static void drop_swapbacked(struct address_space *mapping)
{
	XA_STATE(xas, &mapping->i_pages, 0);
	void *entry;
	pgoff_t i;

	for (i = 0; i < 64; i++) {
		struct folio *folio = filemap_get_folio(mapping, i);

		if (IS_ERR(folio))
			continue;
		folio_lock(folio);
		folio_clear_dirty_for_io(folio);
		filemap_remove_folio(folio);
		folio_unlock(folio);
		folio_put(folio);
	}
	xas_lock(&xas);
	xas_for_each(&xas, entry, ULONG_MAX)
		xas_store(&xas, NULL);
	xas_unlock(&xas);
	xa_destroy(&mapping->i_pages);
}

static void test_vmscan_swapbacked_needs_swap_hook(void **state)
{
	struct address_space anon, shm;
	struct fake_swap sw = { .fail = 0 };
	struct vm_fixture f;
	pgoff_t i;

	(void)state;
	vm_setup(&f, 8, LIMIT, 0);
	address_space_init(&anon, f.arena, NULL, 1UL << AS_SWAPBACKED);
	address_space_init(&shm, f.arena, NULL,
			   (1UL << AS_SWAPBACKED) | (1UL << AS_UNEVICTABLE));
	add_swapbacked(&anon, 32);
	add_swapbacked(&shm, 32);

	/* No swap: nothing goes. */
	assert_int_equal(upc_reclaim_pages(f.arena, LIMIT), 0);
	assert_int_equal(anon.nrpages + shm.nrpages, 64);

	/* A failing swap: nothing goes, the folios stay dirty. */
	assert_int_equal(upc_reclaim_set_swap(f.arena, &fake_swap_ops, &sw),
			 0);
	sw.fail = 1;
	assert_int_equal(upc_reclaim_pages(f.arena, LIMIT), 0);
	assert_true(xa_get_mark(&anon.i_pages, 3, PAGECACHE_TAG_DIRTY));

	/* Swap: the evictable mapping's folios leave their swap entries. */
	sw.fail = 0;
	assert_int_equal(upc_reclaim_pages(f.arena, LIMIT), 32);
	assert_int_equal(anon.nrpages, 0);
	assert_int_equal(shm.nrpages, 32);
	assert_int_equal(sw.outs, 32);
	assert_int_equal(vm_stats(f.arena).pswpout, 32);
	for (i = 0; i < 32; i++) {
		assert_ptr_equal(filemap_get_entry(&anon, i), xa_mk_value(i));
		assert_true(sw.slot[i] == stamp_of(i));
	}

	assert_int_equal(upc_reclaim_set_swap(f.arena, NULL, NULL), 0);
	assert_int_equal(upc_reclaim_set_swap(NULL, &fake_swap_ops, &sw),
			 -EINVAL);
	drop_swapbacked(&anon);
	drop_swapbacked(&shm);
	lru_add_drain_all(f.arena);
	assert_int_equal(upc_arena_charged(f.arena), 0);
	address_space_init(&f.mapping, f.arena, NULL, 0);
	vm_teardown(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vmscan_dirty_written_back),
		cmocka_unit_test(test_vmscan_dirty_survives_pressure),
		cmocka_unit_test(test_vmscan_dirty_without_hook_stays),
		cmocka_unit_test(test_vmscan_writeback_error_keeps_dirty),
		cmocka_unit_test(test_vmscan_redirtied_in_writeback_stays),
		cmocka_unit_test(test_vmscan_swapbacked_needs_swap_hook),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
