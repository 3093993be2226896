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

/* Add dirty swap-backed folios (anonymous-like data) at [@first, @end). */
static void add_swapbacked_range(struct address_space *mapping, pgoff_t first,
				 pgoff_t end)
{
	pgoff_t i;

	for (i = first; i < end; i++) {
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

/* Add @nr dirty swap-backed folios at indices 0 to @nr - 1. */
static void add_swapbacked(struct address_space *mapping, unsigned long nr)
{
	add_swapbacked_range(mapping, 0, nr);
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

/* ---- a batch's swap-out and the evict_lock hook ------------------------- */

#define HK_PAGES	16
#define HK_GROUP	4

/* One mapping without the hook, two with it; what the hook saw. */
static struct address_space *hk_maps[3];
static unsigned int hk_calls, hk_saw_other_locked, hk_most_own_locked;

/* Folios of @mapping at indices below HK_PAGES that are locked. */
static unsigned int hk_locked(struct address_space *mapping)
{
	unsigned int n = 0;
	pgoff_t i;

	for (i = 0; i < HK_PAGES; i++) {
		void *entry = filemap_get_entry(mapping, i);

		if (entry && !xa_is_value(entry)) {
			n += folio_test_locked(entry);
			folio_put(entry);
		}
	}
	return n;
}

static bool hk_evict_lock(struct address_space *mapping)
{
	unsigned int i, own = 0;

	hk_calls++;
	for (i = 0; i < 3; i++) {
		if (hk_maps[i] == mapping)
			own = hk_locked(mapping);
		else
			hk_saw_other_locked += hk_locked(hk_maps[i]);
	}
	if (own > hk_most_own_locked)
		hk_most_own_locked = own;
	return true;
}

static void hk_evict_unlock(struct address_space *mapping)
{
	(void)mapping;
}

static const struct address_space_operations hk_aops = {
	.evict_lock = hk_evict_lock,
	.evict_unlock = hk_evict_unlock,
};

/* A pretend swap device taking batches: one slot per folio, in order. */
struct fake_batch_swap {
	unsigned long outs;
	unsigned int calls;
	unsigned int mixed;	/* batches mixing a hooked mapping with another */
};

static void fake_swap_out_folios(struct folio **folios, unsigned int nr,
				 void **entries, int *errs, void *priv)
{
	struct fake_batch_swap *sw = priv;
	bool mixed = false;
	unsigned int i;

	sw->calls++;
	for (i = 0; i < nr; i++) {
		struct address_space *mapping = folios[i]->mapping;

		assert_true(folio_test_locked(folios[i]));
		mixed |= mapping != folios[0]->mapping &&
			 (mapping->a_ops || folios[0]->mapping->a_ops);
		errs[i] = 0;
		entries[i] = xa_mk_value(sw->outs++);
	}
	sw->mixed += mixed;
}

static int fake_batch_swap_out(struct folio *folio, void **entryp, void *priv)
{
	int err;

	fake_swap_out_folios(&folio, 1, entryp, &err, priv);
	return err;
}

static void fake_batch_swap_free(struct folio *folio, void *entry, void *priv)
{
	(void)folio;
	(void)entry;
	(void)priv;
}

static const struct upc_swap_ops fake_batch_swap_ops = {
	.swap_out = fake_batch_swap_out,
	.swap_out_folios = fake_swap_out_folios,
	.swap_free = fake_batch_swap_free,
};

/*
 * Reclaim swaps out a batch's swap-backed folios together, those of a
 * mapping with an evict_lock hook (shmem) too, and takes the hook with
 * the folios of its own mapping it evicts locked, never another
 * mapping's: a batch holds folios of hookless mappings, or of one hooked
 * mapping.  The LRU holds groups of 4 folios of each mapping in turn.
 * Before hooked mappings were batched, every folio took the hook alone.
 */
static void test_vmscan_swapout_batch_and_hook(void **state)
{
	struct address_space maps[3];
	struct fake_batch_swap sw = { .outs = 0 };
	struct vm_fixture f;
	unsigned int m;
	pgoff_t i;

	(void)state;
	vm_setup(&f, 8, LIMIT, 0);
	for (m = 0; m < 3; m++) {
		address_space_init(&maps[m], f.arena, m ? &hk_aops : NULL,
				   1UL << AS_SWAPBACKED);
		hk_maps[m] = &maps[m];
	}
	hk_calls = hk_saw_other_locked = hk_most_own_locked = 0;
	for (i = 0; i < HK_PAGES; i += HK_GROUP)
		for (m = 0; m < 3; m++)
			add_swapbacked_range(&maps[m], i, i + HK_GROUP);
	lru_add_drain_all(f.arena);
	assert_int_equal(upc_reclaim_set_swap(f.arena, &fake_batch_swap_ops,
					      &sw), 0);

	assert_int_equal(upc_reclaim_pages(f.arena, 3 * HK_PAGES),
			 3 * HK_PAGES);
	assert_int_equal(sw.outs, 3 * HK_PAGES);
	assert_int_equal(sw.mixed, 0);
	assert_int_equal(hk_saw_other_locked, 0);
	/* One hook round trip per group of a hooked mapping. */
	assert_int_equal(hk_calls, 2 * HK_PAGES / HK_GROUP);
	assert_int_equal(hk_most_own_locked, HK_GROUP);
	for (m = 0; m < 3; m++) {
		assert_int_equal(maps[m].nrpages, 0);
		for (i = 0; i < HK_PAGES; i++)
			assert_true(xa_is_value(filemap_get_entry(&maps[m], i)));
	}

	assert_int_equal(upc_reclaim_set_swap(f.arena, NULL, NULL), 0);
	for (m = 0; m < 3; m++)
		drop_swapbacked(&maps[m]);
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
		cmocka_unit_test(test_vmscan_swapout_batch_and_hook),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
