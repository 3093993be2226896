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

/*
 * A folio under writeback (a writer's, not reclaim's) is kept and counts
 * as held in pgbusy: direct reclaim that frees nothing waits for such
 * folios instead of failing at once.  Once the write ends it goes.
 */
static void test_vmscan_writeback_folio_is_busy(void **state)
{
	struct vm_fixture f;
	struct folio *folio;
	bool miss;

	(void)state;
	vm_setup(&f, 8, LIMIT, 0);
	folio = vm_read(&f.mapping, 4, &miss);
	folio_lock(folio);
	folio_mark_dirty(folio);
	assert_true(folio_clear_dirty_start_writeback(folio));
	folio_unlock(folio);
	lru_add_drain_all(f.arena);
	assert_int_equal(shrink_inactive_list(f.arena->lruvec, 1,
					      LRU_INACTIVE_FILE), 0);
	assert_int_equal(vm_stats(f.arena).pgbusy, 1);
	assert_true(filemap_get_entry(&f.mapping, 4) == folio);
	folio_put(folio);
	folio_end_writeback(folio);
	folio_put(folio);
	assert_int_equal(upc_reclaim_pages(f.arena, 1), 1);
	vm_teardown(&f);
}

/* What the writeback_folios hook below was handed. */
static unsigned int wbf_calls, wbf_mixed, wbf_unsorted, wbf_nr;
static pgoff_t wbf_first;

/* a_ops->writeback_folios: note the call, then write each folio. */
static void wbf_hook(struct address_space *mapping, struct folio **folios,
		     unsigned int nr, int *errs)
{
	unsigned int i;

	wbf_calls++;
	wbf_nr = nr;
	wbf_first = folios[0]->index;
	for (i = 0; i < nr; i++) {
		wbf_mixed += folios[i]->mapping != mapping;
		wbf_unsorted += i && folios[i]->index <= folios[i - 1]->index;
		errs[i] = vm_store_writeback_folio(mapping, folios[i]);
	}
}

/* vm_store_setup() of a file whose a_ops (in @aops) have wbf_hook(). */
static void wbf_setup(struct vm_fixture *f, struct vm_store *st,
		      struct address_space_operations *aops)
{
	vm_store_setup(f, st, 8, LIMIT, FILE_PAGES, true);
	*aops = *f->mapping.a_ops;
	aops->writeback_folios = wbf_hook;
	f->mapping.a_ops = aops;
	wbf_calls = wbf_mixed = wbf_unsorted = 0;
}

/*
 * A batch's dirty folios of a file that writes many at once go to its
 * writeback_folios hook in one call, in index order, with the dirty
 * folios that follow the last of them: WRITEBACK_MAX_RUN in all.  The
 * batch's are evicted, those that followed stay cached, clean, and all
 * of those written count in nr_vmscan_write; a write that failed (page 100)
 * counts as an error and leaves its page dirty.  The batch here is
 * pages 31 down to 0, dirtied in that order, then pages 32-299.
 */
static void test_vmscan_pageout_cluster(void **state)
{
	struct address_space_operations aops;
	struct upc_reclaim_stats rs;
	struct vm_fixture f;
	struct vm_store st;
	pgoff_t i;

	(void)state;
	wbf_setup(&f, &st, &aops);
	for (i = UPC_RECLAIM_BATCH; i-- > 0;)
		vm_write_stamp(&f.mapping, i, stamp_of(i));
	for (i = UPC_RECLAIM_BATCH; i < 300; i++)
		vm_write_stamp(&f.mapping, i, stamp_of(i));
	lru_add_drain_all(f.arena);
	st.fail_write_index = 100;
	assert_int_equal(shrink_inactive_list(f.arena->lruvec,
					      UPC_RECLAIM_BATCH,
					      LRU_INACTIVE_FILE),
			 UPC_RECLAIM_BATCH);
	assert_int_equal(wbf_calls, 1);
	assert_int_equal(wbf_nr, WRITEBACK_MAX_RUN);
	assert_int_equal(wbf_first, 0);
	assert_int_equal(wbf_unsorted, 0);
	rs = vm_stats(f.arena);
	assert_int_equal(rs.nr_vmscan_write, WRITEBACK_MAX_RUN - 1);
	assert_int_equal(rs.nr_vmscan_write_errors, 1);
	assert_int_equal(f.mapping.nrpages, 300 - UPC_RECLAIM_BATCH);
	for (i = UPC_RECLAIM_BATCH; i < 300; i++)
		assert_int_equal(xa_get_mark(&f.mapping.i_pages, i,
					     PAGECACHE_TAG_DIRTY),
				 i == 100 || i >= WRITEBACK_MAX_RUN);
	st.fail_write_index = -1;
	vm_store_teardown(&f, &st);
}

/*
 * The stretch written after a batch's dirty folios stops at a folio
 * under writeback, dirty again or not: another writer is writing it,
 * and it is not to be written twice at once.  Batch 0-31, page 32
 * dirty, page 33 dirty but under another write: 33 folios go.
 */
static void test_vmscan_pageout_stops_at_writeback(void **state)
{
	struct address_space_operations aops;
	struct vm_fixture f;
	struct vm_store st;
	struct folio *busy;
	pgoff_t i;

	(void)state;
	wbf_setup(&f, &st, &aops);
	for (i = 0; i < 40; i++)
		vm_write_stamp(&f.mapping, i, stamp_of(i));
	busy = filemap_get_folio(&f.mapping, 33);
	assert_false(IS_ERR(busy));
	folio_lock(busy);
	assert_true(folio_clear_dirty_start_writeback(busy));
	folio_mark_dirty(busy);
	folio_unlock(busy);
	lru_add_drain_all(f.arena);
	assert_int_equal(shrink_inactive_list(f.arena->lruvec,
					      UPC_RECLAIM_BATCH,
					      LRU_INACTIVE_FILE),
			 UPC_RECLAIM_BATCH);
	assert_int_equal(wbf_calls, 1);
	assert_int_equal(wbf_nr, UPC_RECLAIM_BATCH + 1);
	assert_true(folio_test_writeback(busy));
	folio_end_writeback(busy);
	folio_put(busy);
	vm_store_teardown(&f, &st);
}

/*
 * Dirty folios of two such files, alternating on the list: each call of
 * a file's hook gets its own folios only (the queue is written before a
 * folio of another file joins it), and the whole batch goes.
 */
static void test_vmscan_pageout_queue_one_file(void **state)
{
	struct address_space_operations aops;
	struct address_space other;
	struct vm_fixture f;
	struct vm_store st;
	pgoff_t i;

	(void)state;
	wbf_setup(&f, &st, &aops);
	address_space_init(&other, f.arena, &aops, 0);
	other.host = &st;
	for (i = 0; i < 4; i++) {
		vm_write_stamp(&f.mapping, i, stamp_of(i));
		vm_write_stamp(&other, 1000 + i, stamp_of(1000 + i));
	}
	lru_add_drain_all(f.arena);
	assert_int_equal(shrink_inactive_list(f.arena->lruvec, 8,
					      LRU_INACTIVE_FILE), 8);
	assert_true(wbf_calls >= 2);
	assert_int_equal(wbf_mixed, 0);
	assert_int_equal(f.mapping.nrpages + other.nrpages, 0);
	for (i = 0; i < 4; i++)
		assert_true(vm_read_word(&other, 1000 + i) ==
			    stamp_of(1000 + i));
	truncate_inode_pages(&other, 0);
	xa_destroy(&other.i_pages);
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
	unsigned int frees;
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
	struct fake_batch_swap *sw = priv;

	(void)folio;
	(void)entry;
	sw->frees++;
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

/*
 * Add a dirty swap-backed order-@order folio at @index of @mapping.
 * Return: it, with a reference.
 */
static struct folio *add_swapbacked_large(struct address_space *mapping,
					  pgoff_t index, unsigned int order)
{
	struct folio *folio = vm_add_folio(mapping, index, order);

	assert_true(folio_test_swapbacked(folio));
	folio_lock(folio);
	folio_mark_dirty(folio);
	folio_unlock(folio);
	return folio;
}

/*
 * Writeback and swap-out count pages: an order-2 dirty file folio
 * written and evicted adds 4 to nr_vmscan_write, an order-2 swap-backed
 * one swapped out whole 4 to pswpout, through @swap_out and through
 * @swap_out_folios alike (counted per folio, a cache of large folios
 * would seem to write and swap almost nothing).
 */
static void test_vmscan_large_folio_writes_count_pages(void **state)
{
	struct fake_batch_swap bsw = { .outs = 0 };
	struct fake_swap sw = { .fail = 0 };
	struct address_space anon;
	struct vm_fixture f;
	struct vm_store st;
	struct folio *folio;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, true);
	f.mapping.flags |= 1UL << AS_LARGE_FOLIOS;
	folio = vm_add_folio(&f.mapping, 0, 2);
	folio_lock(folio);
	folio_mark_dirty(folio);
	folio_unlock(folio);
	folio_put(folio);
	lru_add_drain_all(f.arena);
	assert_int_equal(upc_reclaim_pages(f.arena, 4), 4);
	assert_int_equal(st.writes, 1);
	assert_int_equal(vm_stats(f.arena).nr_vmscan_write, 4);

	address_space_init(&anon, f.arena, NULL, (1UL << AS_SWAPBACKED) |
			   (1UL << AS_LARGE_FOLIOS));
	folio_put(add_swapbacked_large(&anon, 0, 2));
	lru_add_drain_all(f.arena);
	assert_int_equal(upc_reclaim_set_swap(f.arena, &fake_swap_ops, &sw),
			 0);
	assert_int_equal(upc_reclaim_pages(f.arena, 4), 4);
	assert_int_equal(sw.outs, 1);
	assert_int_equal(vm_stats(f.arena).pswpout, 4);

	folio_put(add_swapbacked_large(&anon, 8, 2));
	lru_add_drain_all(f.arena);
	assert_int_equal(upc_reclaim_set_swap(f.arena, &fake_batch_swap_ops,
					      &bsw), 0);
	assert_int_equal(upc_reclaim_pages(f.arena, 4), 4);
	assert_int_equal(bsw.calls, 1);
	assert_int_equal(vm_stats(f.arena).pswpout, 8);

	assert_int_equal(upc_reclaim_set_swap(f.arena, NULL, NULL), 0);
	drop_swapbacked(&anon);
	vm_store_teardown(&f, &st);
}

/* The folio a swap hook below took a reference on, as a user would. */
static struct folio *swap_user_ref;

static int swap_out_then_use(struct folio *folio, void **entryp, void *priv)
{
	int err = fake_swap_out(folio, entryp, priv);

	folio_get(folio);
	swap_user_ref = folio;
	return err;
}

static void swap_out_folios_then_use(struct folio **folios, unsigned int nr,
				     void **entries, int *errs, void *priv)
{
	fake_swap_out_folios(folios, nr, entries, errs, priv);
	folio_get(folios[0]);
	swap_user_ref = folios[0];
}

/*
 * A swap-backed folio referenced again while the swap hook wrote it
 * cannot leave its mapping: reclaim gives the entry it got back through
 * @swap_free (or the swap slot leaks) and keeps the folio, dirty, on
 * both the single and the batched way out.
 */
static void test_vmscan_swap_entry_freed_when_kept(void **state)
{
	static const struct upc_swap_ops single_ops = {
		.swap_out = swap_out_then_use,
		.swap_free = fake_swap_free,
	};
	static const struct upc_swap_ops batch_ops = {
		.swap_out = fake_batch_swap_out,
		.swap_out_folios = swap_out_folios_then_use,
		.swap_free = fake_batch_swap_free,
	};
	struct fake_batch_swap bsw = { .outs = 0 };
	struct fake_swap sw = { .fail = 0 };
	struct address_space anon;
	struct vm_fixture f;
	struct folio *folio;
	int round;

	(void)state;
	vm_setup(&f, 8, LIMIT, 0);
	address_space_init(&anon, f.arena, NULL, 1UL << AS_SWAPBACKED);
	add_swapbacked(&anon, 1);
	lru_add_drain_all(f.arena);
	for (round = 0; round < 2; round++) {
		if (!round)
			assert_int_equal(upc_reclaim_set_swap(f.arena,
					 &single_ops, &sw), 0);
		else
			assert_int_equal(upc_reclaim_set_swap(f.arena,
					 &batch_ops, &bsw), 0);
		swap_user_ref = NULL;
		assert_int_equal(shrink_inactive_list(f.arena->lruvec, 1,
						      LRU_INACTIVE_ANON), 0);
		assert_non_null(swap_user_ref);
		folio = filemap_get_entry(&anon, 0);
		assert_ptr_equal(folio, swap_user_ref);
		assert_true(folio_test_dirty(folio));
		folio_put(folio);
		folio_put(swap_user_ref);
	}
	assert_int_equal(sw.frees, 1);
	assert_int_equal(bsw.frees, 1);
	assert_int_equal(vm_stats(f.arena).pswpout, 0);
	assert_int_equal(upc_reclaim_set_swap(f.arena, NULL, NULL), 0);
	drop_swapbacked(&anon);
	vm_teardown(&f);
}

/* Swap hooks that find large folios too large; the others go. */
static int swap_out_small(struct folio *folio, void **entryp, void *priv)
{
	if (folio_order(folio))
		return -EFBIG;
	return fake_swap_out(folio, entryp, priv);
}

static void swap_out_folios_small(struct folio **folios, unsigned int nr,
				  void **entries, int *errs, void *priv)
{
	unsigned int i;

	fake_swap_out_folios(folios, nr, entries, errs, priv);
	for (i = 0; i < nr; i++) {
		assert_false(folio_test_dirty(folios[i]));
		if (folio_order(folios[i]))
			errs[i] = -EFBIG;
	}
}

/*
 * A large folio the swap hook refuses with -EFBIG is split and its first
 * page offered again, clean as every folio offered is; the pages left
 * keep the dirty bit the folio had (their data is nowhere else), and the
 * split counts in thp_split.  Both ways out, single and batched.
 */
static void test_vmscan_swap_split_keeps_dirty(void **state)
{
	static const struct upc_swap_ops single_ops = {
		.swap_out = swap_out_small,
		.swap_free = fake_swap_free,
	};
	static const struct upc_swap_ops batch_ops = {
		.swap_out = fake_batch_swap_out,
		.swap_out_folios = swap_out_folios_small,
		.swap_free = fake_batch_swap_free,
	};
	struct fake_batch_swap bsw = { .outs = 0 };
	struct fake_swap sw = { .fail = 0 };
	struct address_space anon;
	struct vm_fixture f;
	unsigned int round;
	pgoff_t i;

	(void)state;
	vm_setup(&f, 8, LIMIT, 0);
	for (round = 1; round <= 2; round++) {
		address_space_init(&anon, f.arena, NULL,
				   (1UL << AS_SWAPBACKED) |
				   (1UL << AS_LARGE_FOLIOS));
		folio_put(add_swapbacked_large(&anon, 0, 2));
		lru_add_drain_all(f.arena);
		assert_int_equal(upc_reclaim_set_swap(f.arena, round == 1 ?
						      &single_ops : &batch_ops,
						      round == 1 ? (void *)&sw :
						      (void *)&bsw), 0);
		assert_int_equal(upc_reclaim_pages(f.arena, 1), 1);
		assert_int_equal(vm_stats(f.arena).thp_split, round);
		assert_int_equal(vm_stats(f.arena).pswpout, round);
		assert_true(xa_is_value(filemap_get_entry(&anon, 0)));
		for (i = 1; i < 4; i++) {
			struct folio *folio = filemap_get_entry(&anon, i);

			assert_false(xa_is_value(folio));
			assert_int_equal(folio_order(folio), 0);
			assert_true(folio_test_dirty(folio));
			folio_put(folio);
		}
		assert_int_equal(upc_reclaim_set_swap(f.arena, NULL, NULL), 0);
		drop_swapbacked(&anon);
	}
	vm_teardown(&f);
}

/*
 * Reclaim turns to the anon lists only while the file lists have not
 * freed what was asked: 32 clean file pages meet a request for 32, and
 * the dirty anonymous pages beside them are not written to swap.
 */
static void test_vmscan_anon_spared_once_goal_met(void **state)
{
	struct fake_swap sw = { .fail = 0 };
	struct address_space anon;
	struct vm_fixture f;

	(void)state;
	vm_setup(&f, 8, LIMIT, 0);
	address_space_init(&anon, f.arena, NULL, 1UL << AS_SWAPBACKED);
	add_swapbacked(&anon, 8);
	vm_read_range(&f.mapping, 0, UPC_RECLAIM_BATCH);
	lru_add_drain_all(f.arena);
	assert_int_equal(upc_reclaim_set_swap(f.arena, &fake_swap_ops, &sw),
			 0);
	assert_int_equal(upc_reclaim_pages(f.arena, UPC_RECLAIM_BATCH),
			 UPC_RECLAIM_BATCH);
	assert_int_equal(sw.outs, 0);
	assert_int_equal(anon.nrpages, 8);
	assert_int_equal(upc_reclaim_set_swap(f.arena, NULL, NULL), 0);
	drop_swapbacked(&anon);
	vm_teardown(&f);
}

/* Swap hooks are installed whole: @swap_out and @swap_free both. */
static void test_vmscan_swap_ops_need_both_hooks(void **state)
{
	static const struct upc_swap_ops no_free = {
		.swap_out = fake_swap_out,
	};
	static const struct upc_swap_ops no_out = {
		.swap_free = fake_swap_free,
	};
	struct fake_swap sw = { .fail = 0 };
	struct vm_fixture f;

	(void)state;
	vm_setup(&f, 8, LIMIT, 0);
	assert_int_equal(upc_reclaim_set_swap(f.arena, &no_free, &sw),
			 -EINVAL);
	assert_int_equal(upc_reclaim_set_swap(f.arena, &no_out, &sw),
			 -EINVAL);
	assert_int_equal(upc_reclaim_set_swap(f.arena, &fake_swap_ops, &sw),
			 0);
	assert_int_equal(upc_reclaim_set_swap(f.arena, NULL, NULL), 0);
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
		cmocka_unit_test(test_vmscan_writeback_folio_is_busy),
		cmocka_unit_test(test_vmscan_pageout_cluster),
		cmocka_unit_test(test_vmscan_pageout_stops_at_writeback),
		cmocka_unit_test(test_vmscan_pageout_queue_one_file),
		cmocka_unit_test(test_vmscan_large_folio_writes_count_pages),
		cmocka_unit_test(test_vmscan_swap_entry_freed_when_kept),
		cmocka_unit_test(test_vmscan_swap_split_keeps_dirty),
		cmocka_unit_test(test_vmscan_anon_spared_once_goal_met),
		cmocka_unit_test(test_vmscan_swap_ops_need_both_hooks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
