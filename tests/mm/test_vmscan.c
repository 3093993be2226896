// SPDX-License-Identifier: MIT
/*
 * tests/mm/test_vmscan.c - reclaim under the memory limit, single
 * threaded: the scenarios with known answers, LRU bookkeeping,
 * what reclaim must leave alone, bad configuration and fault injection.
 *
 * Scenarios (limit 1024 pages):
 *  - a 768-page working set read in a loop: after the first pass no
 *    miss, no refault, no eviction;
 *  - an established 300-page active set survives a one-time scan of a
 *    file eight times the limit: re-reading it misses nothing;
 *  - a 700-page loop over an inactive list of about 600 pages next to a
 *    400-page active set: every miss of the second pass is a refault
 *    and (nearly all) activated; after a few passes the loop stays
 *    cached (at most 10% misses; a plain LRU would miss every page of
 *    every pass);
 *  - an inactive list of 200 held pages beside 100 active ones: reclaim
 *    deactivates and frees from the active ones.
 *
 * Counted: a batch of two files' folios is evicted under one i_pages
 * lock round trip per file.
 */
#define _GNU_SOURCE
#include "vmscan_helpers.h"

#include <upcache/stats.h>

#include "cpu_pin.h"
#include "fault.h"

#define LIMIT		1024UL

static void test_working_set_fits(void **state)
{
	struct vm_fixture f;
	struct upc_reclaim_stats st;
	unsigned int pass;

	(void)state;
	vm_setup(&f, 8, LIMIT, 0);
	assert_int_equal(vm_read_range(&f.mapping, 0, 768), 768);
	for (pass = 0; pass < 10; pass++)
		assert_int_equal(vm_read_range(&f.mapping, 0, 768), 0);
	st = vm_stats(f.arena);
	assert_int_equal(st.workingset_refault, 0);
	assert_int_equal(st.pgsteal, 0);
	vm_assert_lru_consistent(&f);
	/* Read twice or more: all of it promoted. */
	assert_int_equal(vm_stats(f.arena).nr_active_file, 768);
	vm_teardown(&f);
}

static void test_scan_keeps_active_set(void **state)
{
	struct vm_fixture f;
	struct upc_reclaim_stats st;
	const pgoff_t scan_base = 1UL << 20;

	(void)state;
	vm_setup(&f, 8, LIMIT, 0);
	vm_read_range(&f.mapping, 0, 300);
	assert_int_equal(vm_read_range(&f.mapping, 0, 300), 0);
	assert_int_equal(vm_read_range(&f.mapping, scan_base, 8 * LIMIT),
			 8 * LIMIT);
	st = vm_stats(f.arena);
	assert_true(st.pgsteal >= 8 * LIMIT - LIMIT);
	assert_int_equal(vm_read_range(&f.mapping, 0, 300), 0);
	vm_assert_lru_consistent(&f);
	vm_teardown(&f);
}

static void test_loop_activates_on_refault(void **state)
{
	struct vm_fixture f;
	struct upc_reclaim_stats before, after;
	const pgoff_t loop = 1UL << 20;
	unsigned long misses, pass;

	(void)state;
	vm_setup(&f, 8, LIMIT, 0);
	vm_read_range(&f.mapping, 0, 400);
	assert_int_equal(vm_read_range(&f.mapping, 0, 400), 0);
	assert_int_equal(vm_read_range(&f.mapping, loop, 700), 700);
	assert_int_equal(vm_stats(f.arena).workingset_refault, 0);

	before = vm_stats(f.arena);
	misses = vm_read_range(&f.mapping, loop, 700);
	after = vm_stats(f.arena);
	assert_true(misses > 0);
	assert_int_equal(after.workingset_refault - before.workingset_refault,
			 misses);
	assert_true(after.workingset_activate - before.workingset_activate >=
		    misses * 9 / 10);
	for (pass = 0; pass < 4; pass++)
		misses = vm_read_range(&f.mapping, loop, 700);
	assert_true(misses <= 700 / 10);
	vm_assert_lru_consistent(&f);
	vm_teardown(&f);
}

/* Dirty, locked, unevictable and extra-referenced folios stay. */
static void test_reclaim_skips_busy(void **state)
{
	struct vm_fixture f;
	struct address_space shm;
	struct folio *dirty, *locked, *held, *pinned;
	bool miss;
	pgoff_t i;

	(void)state;
	vm_setup(&f, 8, LIMIT, 0);
	address_space_init(&shm, f.arena, NULL, 1UL << AS_UNEVICTABLE);
	dirty = vm_read(&f.mapping, 0, &miss);
	folio_lock(dirty);
	folio_mark_dirty(dirty);
	folio_unlock(dirty);
	folio_put(dirty);
	locked = vm_read(&f.mapping, 1, &miss);
	folio_lock(locked);
	held = vm_read(&f.mapping, 2, &miss);
	pinned = vm_read(&shm, 0, &miss);
	folio_put(pinned);
	for (i = 3; i < 64; i++)
		folio_put(vm_read(&f.mapping, i, &miss));

	assert_int_equal(upc_reclaim_pages(f.arena, LIMIT), 61);
	assert_int_equal(f.mapping.nrpages, 3);
	assert_int_equal(shm.nrpages, 1);
	assert_true(filemap_get_entry(&f.mapping, 0) == dirty);
	folio_put(dirty);
	assert_true(xa_is_value(filemap_get_entry(&f.mapping, 3)));

	folio_unlock(locked);
	folio_put(locked);
	folio_put(held);
	folio_lock(dirty);
	folio_clear_dirty_for_io(dirty);
	folio_unlock(dirty);
	assert_int_equal(upc_reclaim_pages(f.arena, LIMIT), 3);
	truncate_inode_pages(&shm, 0);
	vm_teardown(&f);
}

/*
 * hold_inactive_beside_active() - Set @f up with 100 folios on the active
 * list, and the 200 of @held on the inactive one, referenced.
 */
static void hold_inactive_beside_active(struct vm_fixture *f,
					struct folio **held)
{
	unsigned int i;
	bool miss;

	vm_setup(f, 8, LIMIT, 0);
	vm_read_range(&f->mapping, 0, 100);
	assert_int_equal(vm_read_range(&f->mapping, 0, 100), 0);
	for (i = 0; i < 200; i++) {
		held[i] = vm_read(&f->mapping, 1000 + i, &miss);
		assert_non_null(held[i]);
	}
	lru_add_drain_all(f->arena);
	assert_int_equal(vm_stats(f->arena).nr_active_file, 100);
	assert_int_equal(vm_stats(f->arena).nr_inactive_file, 200);
}

/*
 * An inactive list that yields nothing (every folio on it held) beside a
 * smaller active list of folios that could go: balancing alone never
 * moves them, since the inactive list is the larger, so reclaim must
 * deactivate when a batch frees nothing.  Before it did, this reclaimed
 * nothing.
 */
static void test_reclaim_deactivates_past_busy(void **state)
{
	struct vm_fixture f;
	struct upc_reclaim_stats before, after;
	struct folio *held[200];
	unsigned long freed;
	unsigned int i;

	(void)state;
	hold_inactive_beside_active(&f, held);
	before = vm_stats(f.arena);

	freed = upc_reclaim_pages(f.arena, 50);
	after = vm_stats(f.arena);
	assert_true(freed >= 50);
	assert_int_equal(after.pgsteal - before.pgsteal, freed);
	assert_true(after.pgdeactivate - before.pgdeactivate >= freed);
	/* The held folios all stayed. */
	for (i = 0; i < 200; i++) {
		assert_true(filemap_get_entry(&f.mapping, 1000 + i) == held[i]);
		folio_put(held[i]);
		folio_put(held[i]);
	}
	vm_assert_lru_consistent(&f);
	vm_teardown(&f);
}

/* The limit holds: allocation reclaims, and fails when nothing can go. */
static void test_limit_and_enomem(void **state)
{
	struct vm_fixture f;
	struct folio *held[600];
	unsigned int i;
	uint64_t busy;
	bool miss;

	(void)state;
	vm_setup(&f, 8, 512, 0);
	for (i = 0; i < 4 * 512; i++) {
		folio_put(vm_read(&f.mapping, i, &miss));
		assert_true(upc_arena_charged(f.arena) <= 512);
	}
	truncate_inode_pages(&f.mapping, 0);
	/*
	 * Everything referenced: reclaim finds nothing but folios held
	 * (pgbusy), waits for them a while, and fails: -ENOMEM at the limit.
	 */
	for (i = 0; i < 512; i++) {
		held[i] = vm_read(&f.mapping, i, &miss);
		assert_non_null(held[i]);
	}
	busy = vm_stats(f.arena).pgbusy;
	assert_null(vm_read(&f.mapping, 512, &miss));
	assert_true(vm_stats(f.arena).pgbusy > busy);
	for (i = 0; i < 512; i++)
		folio_put(held[i]);
	assert_non_null(held[0] = vm_read(&f.mapping, 512, &miss));
	folio_put(held[0]);
	vm_teardown(&f);
}

/*
 * FGP_NOWAIT never sleeps: at the limit, creating a folio with it does
 * not reclaim (which may write back and wait), whatever gfp it is
 * given, and fails with -ENOMEM, as the kernel's drops GFP_KERNEL for
 * it.  Without FGP_NOWAIT the same call reclaims and succeeds.
 */
static void test_nowait_create_does_not_reclaim(void **state)
{
	struct vm_fixture f;
	struct folio *folio;
	uint64_t steals;

	(void)state;
	vm_setup(&f, 8, 512, 0);
	vm_read_range(&f.mapping, 0, 512);
	lru_add_drain_all(f.arena);
	assert_int_equal(upc_arena_charged(f.arena), 512);
	steals = vm_stats(f.arena).pgsteal;
	folio = __filemap_get_folio(&f.mapping, 600,
				    FGP_LOCK | FGP_CREAT | FGP_NOWAIT,
				    GFP_KERNEL);
	assert_true(folio == ERR_PTR(-ENOMEM));
	assert_int_equal(vm_stats(f.arena).pgsteal, steals);
	folio = __filemap_get_folio(&f.mapping, 600, FGP_LOCK | FGP_CREAT,
				    GFP_KERNEL);
	assert_false(IS_ERR(folio));
	assert_true(vm_stats(f.arena).pgsteal > steals);
	folio_unlock(folio);
	folio_put(folio);
	vm_teardown(&f);
}

/*
 * Truncating folios on the LRU takes them off it when they are freed.
 * One still referenced stays listed until then, unless reclaim finds
 * it first: without a mapping, it is taken off, not put back (put back,
 * it sat on the list, counted as cache, until its holder let go).
 */
static void test_truncate_leaves_lru(void **state)
{
	struct vm_fixture f;
	struct upc_reclaim_stats st;
	struct folio *kept, *stray;
	bool miss;

	(void)state;
	vm_setup(&f, 8, LIMIT, 0);
	vm_read_range(&f.mapping, 0, 100);
	kept = vm_read(&f.mapping, 7, &miss);
	stray = vm_read(&f.mapping, 200, &miss);
	lru_add_drain_all(f.arena);
	truncate_inode_pages(&f.mapping, 0);
	st = vm_stats(f.arena);
	assert_int_equal(st.nr_inactive_file + st.nr_active_file, 2);
	folio_put(kept);
	st = vm_stats(f.arena);
	assert_int_equal(st.nr_inactive_file + st.nr_active_file, 1);

	assert_null(stray->mapping);
	assert_int_equal(upc_reclaim_pages(f.arena, 1), 0);
	st = vm_stats(f.arena);
	assert_int_equal(st.pgscan, 1);
	assert_int_equal(st.nr_inactive_file + st.nr_active_file, 0);
	assert_false(folio_test_lru(stray));
	folio_put(stray);
	vm_teardown(&f);
}

static void test_isolate_putback(void **state)
{
	struct vm_fixture f;
	struct folio *folio;
	bool miss;

	(void)state;
	vm_setup(&f, 8, LIMIT, 0);
	folio = vm_read(&f.mapping, 3, &miss);
	assert_false(folio_isolate_lru(folio));	/* still batched */
	lru_add_drain_all(f.arena);
	assert_true(folio_isolate_lru(folio));
	assert_false(folio_test_lru(folio));
	assert_int_equal(folio_ref_count(folio), 3);
	assert_int_equal(upc_reclaim_pages(f.arena, 1), 0);
	folio_putback_lru(folio);
	assert_true(folio_test_lru(folio));
	folio_put(folio);
	assert_int_equal(upc_reclaim_pages(f.arena, 1), 1);
	vm_teardown(&f);
}

/*
 * A reclaim batch counts pages, not folios: asked for 32 pages of a list
 * of ten order-5 folios, reclaim evicts the oldest one only.  Counting
 * folios it took all ten, readahead's unused folios with them (a read
 * ahead stream through a small cache then refaulted what it had just
 * read ahead, and pushed out the working set).
 */
static void test_reclaim_batch_counts_pages(void **state)
{
	struct vm_fixture f;
	void *entry;
	pgoff_t i;

	(void)state;
	vm_setup(&f, 8, LIMIT, 1UL << AS_LARGE_FOLIOS);
	for (i = 0; i < 10; i++)
		folio_put(vm_add_folio(&f.mapping, i * 32, 5));
	lru_add_drain_all(f.arena);
	assert_int_equal(upc_reclaim_pages(f.arena, 32), 32);
	assert_int_equal(f.mapping.nrpages, 9 * 32);
	entry = xa_load(&f.mapping.i_pages, 0);
	assert_true(!entry || xa_is_value(entry));	/* gone: its shadow */
	for (i = 1; i < 10; i++) {
		struct folio *folio = filemap_get_folio(&f.mapping, i * 32);

		assert_false(IS_ERR(folio));
		folio_put(folio);
	}
	/*
	 * shrink_inactive_list() counts its budget in pages too: asked for
	 * 64, it evicts two more (counted as folios, the budget outlasted
	 * the list).  pgscan counts the pages isolated, as the kernel's.
	 */
	assert_int_equal(shrink_inactive_list(f.arena->lruvec, 64,
					      LRU_INACTIVE_FILE), 64);
	assert_int_equal(f.mapping.nrpages, 7 * 32);
	assert_int_equal(vm_stats(f.arena).pgscan, 3 * 32);
	vm_assert_lru_consistent(&f);
	vm_teardown(&f);
}

/*
 * pgsteal counts the pages reclaim freed, not the folios: evicting one
 * order-9 folio steals 512 pages, as upc_reclaim_pages() returns and as
 * the kernel's PGSTEAL counters count.  (Counted per folio, the figure
 * would read 1, and a cache of large folios would seem to reclaim
 * almost nothing.)
 */
static void test_pgsteal_counts_pages(void **state)
{
	struct vm_fixture f;

	(void)state;
	vm_setup(&f, 8, LIMIT, 1UL << AS_LARGE_FOLIOS);
	folio_put(vm_add_folio(&f.mapping, 0, UPC_MAX_ORDER));
	lru_add_drain_all(f.arena);
	assert_int_equal(vm_stats(f.arena).pgsteal, 0);
	assert_int_equal(upc_reclaim_pages(f.arena, 512), 512);
	assert_int_equal(f.mapping.nrpages, 0);
	assert_int_equal(vm_stats(f.arena).pgsteal, 512);
	vm_teardown(&f);
}

/*
 * A batch that frees nothing deactivates as many folios as it held: one
 * locked order-5 folio at the tail (a large folio under a read) moves
 * one active folio down, not a batch of 32.  Reclaim then frees the
 * order-0 folios behind it, and the 40 active ones stay active.
 */
static void test_reclaim_stuck_large_folio(void **state)
{
	struct vm_fixture f;
	struct folio *big;
	unsigned long active;

	(void)state;
	vm_setup(&f, 8, LIMIT, 1UL << AS_LARGE_FOLIOS);
	big = filemap_alloc_folio(&f.mapping, GFP_KERNEL, 5);
	assert_non_null(big);
	assert_true(folio_trylock(big));
	assert_int_equal(filemap_add_folio(&f.mapping, big, 0, GFP_KERNEL), 0);
	lru_add_drain_all(f.arena);
	assert_int_equal(vm_read_range(&f.mapping, 1000, 64), 64);
	assert_int_equal(vm_read_range(&f.mapping, 2000, 40), 40);
	assert_int_equal(vm_read_range(&f.mapping, 2000, 40), 0);
	lru_add_drain_all(f.arena);
	active = vm_stats(f.arena).nr_active_file;
	assert_int_equal(active, 40);
	assert_true(upc_reclaim_pages(f.arena, 32) >= 32);
	assert_true(vm_stats(f.arena).nr_active_file >= active - 1);
	/* The locked folio was kept. */
	assert_ptr_equal(xa_load(&f.mapping.i_pages, 0), big);
	folio_set_uptodate(big);
	folio_unlock(big);
	folio_put(big);
	vm_assert_lru_consistent(&f);
	vm_teardown(&f);
}

/*
 * A batch's clean folios leave a mapping at a time, each mapping's under
 * one round trip of its i_pages lock: a full batch of two files' folios,
 * interleaved on the inactive list, costs two acquisitions.  Evicted one
 * by one, it cost one per folio (32), and under a random read load on
 * many threads that lock is the one every add queues on.
 */
static void test_evict_batch_lock_trips(void **state)
{
	struct vm_fixture f;
	struct address_space other;
	struct upc_thread_stats before, after;
	bool miss;
	pgoff_t i;

	(void)state;
	vm_setup(&f, 8, LIMIT, 0);
	address_space_init(&other, f.arena, NULL, 0);
	for (i = 0; i < UPC_RECLAIM_BATCH / 2; i++) {
		folio_put(vm_read(&f.mapping, i, &miss));
		folio_put(vm_read(&other, i, &miss));
	}
	lru_add_drain_all(f.arena);
	upc_stats_thread(&before);
	assert_int_equal(upc_reclaim_pages(f.arena, UPC_RECLAIM_BATCH),
			 UPC_RECLAIM_BATCH);
	upc_stats_thread(&after);
	assert_int_equal(after.lock_acquires - before.lock_acquires, 2);
	assert_int_equal(f.mapping.nrpages, 0);
	assert_int_equal(other.nrpages, 0);
	for (i = 0; i < UPC_RECLAIM_BATCH / 2; i++) {
		assert_true(xa_is_value(filemap_get_entry(&f.mapping, i)));
		assert_true(xa_is_value(filemap_get_entry(&other, i)));
	}
	assert_int_equal(vm_stats(f.arena).pgsteal, UPC_RECLAIM_BATCH);
	assert_int_equal(upc_check_mapping(&other), 0);
	truncate_inode_pages(&other, 0);
	xa_destroy(&other.i_pages);
	vm_teardown(&f);
}

/* The plain file a hooked mapping's evict_lock looks at, and what it saw. */
static struct address_space *hook_other;
static unsigned int hook_calls, hook_saw_locked;

static bool hook_evict_lock(struct address_space *mapping)
{
	void *entry = filemap_get_entry(hook_other, 0);

	(void)mapping;
	hook_calls++;
	if (entry && !xa_is_value(entry)) {
		hook_saw_locked += folio_test_locked(entry);
		folio_put(entry);
	}
	return true;
}

static void hook_evict_unlock(struct address_space *mapping)
{
	(void)mapping;
}

static const struct address_space_operations hook_aops = {
	.evict_lock = hook_evict_lock,
	.evict_unlock = hook_evict_unlock,
};

/*
 * A mapping's evict_lock hook runs with no folio locked but the one it
 * is for: what the hook waits for (a shmem reader under its file's
 * lock) may itself wait on another file's folio lock.  So a plain
 * file's clean folio queued earlier in the same batch is evicted, and
 * unlocked, before the hook is taken.  Held pending across the hook, it
 * deadlocked such a reader; here the hook saw it locked.
 */
static void test_evict_hook_holds_no_other_folio(void **state)
{
	/*
	 * In one array, so the hooked mapping's address is the lower: a
	 * batch sorted by mapping would reach its hook first.
	 */
	struct address_space maps[2];
	struct address_space *hooked = &maps[0], *plain = &maps[1];
	struct vm_fixture f;
	bool miss;

	(void)state;
	vm_setup(&f, 8, LIMIT, 0);
	address_space_init(hooked, f.arena, &hook_aops, 0);
	address_space_init(plain, f.arena, NULL, 0);
	hook_other = plain;
	hook_calls = hook_saw_locked = 0;
	/* The plain file's folio is older: the batch takes it first. */
	folio_put(vm_read(plain, 0, &miss));
	folio_put(vm_read(hooked, 0, &miss));
	lru_add_drain_all(f.arena);
	assert_int_equal(upc_reclaim_pages(f.arena, 2), 2);
	assert_int_equal(hook_calls, 1);
	assert_int_equal(hook_saw_locked, 0);
	assert_true(xa_is_value(filemap_get_entry(plain, 0)));
	assert_true(xa_is_value(filemap_get_entry(hooked, 0)));
	assert_int_equal(upc_check_mapping(plain), 0);
	assert_int_equal(upc_check_mapping(hooked), 0);
	truncate_inode_pages(plain, 0);
	truncate_inode_pages(hooked, 0);
	xa_destroy(&plain->i_pages);
	xa_destroy(&hooked->i_pages);
	vm_teardown(&f);
}

/*
 * A limit lowered far below what is cached: the next allocation frees
 * everything past the new limit, however much, and succeeds.  Each of its
 * reclaim rounds used to bring back only the high watermark's worth, so
 * 16 rounds fell short of 7,000 clean pages over the limit: -ENOMEM with
 * everything evictable.
 */
static void test_lowered_limit_reclaims_the_excess(void **state)
{
	const unsigned long cached = 8000, limit = 1UL << UPC_MAX_ORDER;
	struct vm_fixture f;
	unsigned long i;
	bool miss;

	(void)state;
	vm_setup(&f, 64, 8192, 0);
	for (i = 0; i < cached; i++)
		folio_put(vm_read(&f.mapping, i, &miss));
	lru_add_drain_all(f.arena);
	assert_int_equal(upc_arena_charged(f.arena), cached);
	assert_int_equal(upc_reclaim_set_limit(f.arena, limit), 0);
	for (i = cached; i < cached + 4; i++) {
		struct folio *folio = vm_read(&f.mapping, i, &miss);

		assert_non_null(folio);
		folio_put(folio);
	}
	assert_true(upc_arena_charged(f.arena) <= limit);
	vm_teardown(&f);
}

/*
 * Reclaim resets the two-touch state of what it looks at: a folio it
 * scans and keeps (held here) loses PG_referenced, and so does one it
 * deactivates.  The next use of either only marks it referenced again;
 * a second one is needed to activate it.  Left referenced, one use after
 * a reclaim pass would promote a folio used once in a long while.
 */
static void test_reclaim_clears_referenced(void **state)
{
	struct vm_fixture f;
	struct folio *held, *active;
	bool miss;

	(void)state;
	vm_setup(&f, 8, LIMIT, 0);
	held = vm_read(&f.mapping, 1, &miss);
	assert_true(folio_test_referenced(held));
	lru_add_drain_all(f.arena);
	assert_int_equal(upc_reclaim_pages(f.arena, 1), 0);
	assert_false(folio_test_referenced(held));
	folio_mark_accessed(held);
	lru_add_drain_all(f.arena);
	assert_false(folio_test_active(held));
	assert_true(folio_test_referenced(held));

	/* Read three times: active, and referenced again. */
	vm_read_range(&f.mapping, 2, 1);
	vm_read_range(&f.mapping, 2, 1);
	active = vm_read(&f.mapping, 2, &miss);
	lru_add_drain_all(f.arena);
	assert_true(folio_test_active(active));
	assert_true(folio_test_referenced(active));
	assert_int_equal(shrink_active_list(f.arena->lruvec, 1,
					    LRU_ACTIVE_FILE), 1);
	assert_false(folio_test_active(active));
	assert_false(folio_test_referenced(active));
	folio_mark_accessed(active);
	lru_add_drain_all(f.arena);
	assert_false(folio_test_active(active));
	folio_put(active);
	folio_put(held);
	vm_assert_lru_consistent(&f);
	vm_teardown(&f);
}

/*
 * Deactivating an order-5 folio counts its 32 pages in pgdeactivate, as
 * pgsteal and pgactivate count pages.
 */
static void test_deactivate_counts_pages(void **state)
{
	struct vm_fixture f;
	struct folio *big;

	(void)state;
	vm_setup(&f, 8, LIMIT, 1UL << AS_LARGE_FOLIOS);
	big = vm_add_folio(&f.mapping, 0, 5);
	folio_activate(big);
	folio_put(big);
	lru_add_drain_all(f.arena);
	assert_int_equal(vm_stats(f.arena).nr_active_file, 32);
	assert_int_equal(shrink_active_list(f.arena->lruvec, 1,
					    LRU_ACTIVE_FILE), 1);
	assert_int_equal(vm_stats(f.arena).nr_inactive_file, 32);
	assert_int_equal(vm_stats(f.arena).pgdeactivate, 32);
	vm_teardown(&f);
}

/*
 * Balancing moves half the difference between the lists, rounded up,
 * and a batch at most per round: a cache holding one active page and
 * nothing inactive still gives it up (rounded down, nothing moved and
 * nothing could go); with 100 active pages, a round that needs one page
 * moves 32 down, evicts them, and leaves 68 active.
 */
static void test_balance_moves_half_up_to_a_batch(void **state)
{
	struct vm_fixture f;

	(void)state;
	vm_setup(&f, 8, LIMIT, 0);
	vm_read_range(&f.mapping, 0, 1);
	vm_read_range(&f.mapping, 0, 1);
	lru_add_drain_all(f.arena);
	assert_int_equal(vm_stats(f.arena).nr_active_file, 1);
	assert_int_equal(upc_reclaim_pages(f.arena, 1), 1);
	assert_int_equal(f.mapping.nrpages, 0);

	vm_read_range(&f.mapping, 100, 100);
	vm_read_range(&f.mapping, 100, 100);
	lru_add_drain_all(f.arena);
	assert_int_equal(vm_stats(f.arena).nr_active_file, 100);
	assert_int_equal(upc_reclaim_pages(f.arena, 1), UPC_RECLAIM_BATCH);
	assert_int_equal(vm_stats(f.arena).nr_active_file,
			 100 - UPC_RECLAIM_BATCH);
	assert_int_equal(vm_stats(f.arena).pgdeactivate, 1 + UPC_RECLAIM_BATCH);
	vm_teardown(&f);
}

/* Read pages from @next on until @free pages are left below the limit. */
static pgoff_t fill_to_free(struct vm_fixture *f, pgoff_t next,
			    unsigned long free)
{
	unsigned long limit = upc_arena_limit(f->arena);

	while (upc_arena_charged(f->arena) < limit - free)
		vm_read_range(&f->mapping, next++, 1);
	assert_int_equal(upc_arena_charged(f->arena), limit - free);
	return next;
}

/*
 * The watermarks, as upc_reclaim_balance() sees them: low 1/128 of the
 * limit and high 1/64, at least half a batch and a batch.  With 1024
 * pages (low 16, high 32) 20 free pages are enough and 12 are not; with
 * 8192 (low 64, high 128), from 10 free pages it frees 118 and rounds
 * up to whole batches: 128.
 */
static void test_balance_watermarks(void **state)
{
	struct vm_fixture f;
	pgoff_t next;

	(void)state;
	vm_setup(&f, 64, LIMIT, 0);
	next = fill_to_free(&f, 0, 20);
	assert_int_equal(upc_reclaim_balance(f.arena), 0);
	next = fill_to_free(&f, next, 12);
	assert_int_equal(upc_reclaim_balance(f.arena), UPC_RECLAIM_BATCH);

	assert_int_equal(upc_reclaim_set_limit(f.arena, 8 * LIMIT), 0);
	next = fill_to_free(&f, next, 100);
	assert_int_equal(upc_reclaim_balance(f.arena), 0);
	fill_to_free(&f, next, 10);
	assert_int_equal(upc_reclaim_balance(f.arena), 4 * UPC_RECLAIM_BATCH);
	assert_int_equal(upc_arena_charged(f.arena), 8 * LIMIT - 138);
	vm_teardown(&f);
}

/*
 * The LRU locks' round trips in a reclaim of one batch of clean folios,
 * swap installed: one to isolate from each list per round, none to
 * balance lists already balanced (the empty ones), none to put back a
 * batch that kept nothing, none to deactivate after a batch that
 * isolated nothing.  Two rounds (the second finds the lists empty):
 * four, and one of the shadow node list for the node the batch left
 * holding shadows only.
 */
static void test_reclaim_lru_lock_trips(void **state)
{
	struct upc_thread_stats before, after;
	struct vm_fixture f;

	(void)state;
	vm_setup(&f, 8, LIMIT, 0);
	assert_int_equal(upc_reclaim_set_swap(f.arena, vm_refusing_swap(),
					      NULL), 0);
	vm_read_range(&f.mapping, 0, UPC_RECLAIM_BATCH);
	lru_add_drain_all(f.arena);
	upc_stats_thread(&before);
	assert_int_equal(upc_reclaim_pages(f.arena, UPC_RECLAIM_BATCH + 1),
			 UPC_RECLAIM_BATCH);
	upc_stats_thread(&after);
	assert_int_equal(after.lru_lock_acquires - before.lru_lock_acquires, 5);
	vm_teardown(&f);
}

/* LRU lock round trips of this thread since @before. */
static unsigned long lru_trips_since(const struct upc_thread_stats *before)
{
	struct upc_thread_stats now;

	upc_stats_thread(&now);
	return now.lru_lock_acquires - before->lru_lock_acquires;
}

/*
 * Folios queued for the LRU go to this CPU's batch under its lock and
 * reach the lists under the lruvec lock only when the batch fills: one
 * round trip per folio, one more for the UPC_LRU_BATCH_SIZE-th.  The
 * thread is pinned to its CPU so that every folio meets the same batch.
 */
static void test_lru_batch_lock_trips(void **state)
{
	struct upc_thread_stats before;
	cpu_set_t old;
	struct vm_fixture f;
	unsigned int i;

	(void)state;
	vm_setup(&f, 8, LIMIT, 0);
	assert_true(test_pin_this_cpu(&old));
	lru_add_drain_all(f.arena);
	upc_stats_thread(&before);
	for (i = 0; i < UPC_LRU_BATCH_SIZE - 1; i++)
		folio_put(vm_add_folio(&f.mapping, i, 0));
	assert_int_equal(lru_trips_since(&before), UPC_LRU_BATCH_SIZE - 1);
	assert_int_equal(vm_stats(f.arena).nr_inactive_file, 0);
	folio_put(vm_add_folio(&f.mapping, i, 0));
	assert_int_equal(lru_trips_since(&before), UPC_LRU_BATCH_SIZE + 1);
	assert_int_equal(vm_stats(f.arena).nr_inactive_file,
			 UPC_LRU_BATCH_SIZE);
	/* Nothing left to drain: no lock taken. */
	lru_add_drain_all(f.arena);
	assert_int_equal(lru_trips_since(&before), UPC_LRU_BATCH_SIZE + 1);
	assert_true(test_unpin(&old));
	vm_teardown(&f);
}

/*
 * Activation: a folio accessed twice is queued, activated at the drain
 * and loses PG_referenced; queued twice before the drain it is counted
 * once; an active folio is not queued again, nor is a folio of an
 * unevictable mapping; isolating a folio already off the LRU takes no
 * lock; and a large folio counts its pages in pgactivate and in the
 * nonresident age.
 */
static void test_activate_counts(void **state)
{
	struct upc_thread_stats before;
	struct upc_reclaim_stats st0, st;
	struct address_space shm;
	struct folio *folio, *big, *pinned;
	struct vm_fixture f;

	(void)state;
	vm_setup(&f, 8, LIMIT, 1UL << AS_LARGE_FOLIOS);
	folio = vm_add_folio(&f.mapping, 0, 0);
	lru_add_drain_all(f.arena);
	st0 = vm_stats(f.arena);
	folio_mark_accessed(folio);
	folio_mark_accessed(folio);
	assert_false(folio_test_referenced(folio));
	lru_add_drain_all(f.arena);
	assert_true(folio_test_active(folio));
	assert_false(folio_test_referenced(folio));
	st = vm_stats(f.arena);
	assert_int_equal(st.pgactivate - st0.pgactivate, 1);
	assert_int_equal(st.nr_active_file, 1);
	upc_stats_thread(&before);
	folio_activate(folio);
	assert_int_equal(lru_trips_since(&before), 0);
	folio_put(folio);

	folio = vm_add_folio(&f.mapping, 1, 0);
	lru_add_drain_all(f.arena);
	st0 = vm_stats(f.arena);
	folio_activate(folio);
	folio_activate(folio);
	lru_add_drain_all(f.arena);
	st = vm_stats(f.arena);
	assert_int_equal(st.pgactivate - st0.pgactivate, 1);
	assert_int_equal(st.nonresident_age - st0.nonresident_age, 1);
	assert_int_equal(st.nr_active_file, 2);
	assert_true(folio_isolate_lru(folio));
	upc_stats_thread(&before);
	assert_false(folio_isolate_lru(folio));
	assert_int_equal(lru_trips_since(&before), 0);
	folio_putback_lru(folio);
	folio_put(folio);

	big = vm_add_folio(&f.mapping, 8, 3);
	lru_add_drain_all(f.arena);
	st0 = vm_stats(f.arena);
	folio_activate(big);
	lru_add_drain_all(f.arena);
	st = vm_stats(f.arena);
	assert_int_equal(st.pgactivate - st0.pgactivate, 8);
	assert_int_equal(st.nonresident_age - st0.nonresident_age, 8);
	assert_int_equal(st.nr_active_file, 10);
	folio_put(big);

	address_space_init(&shm, f.arena, NULL, 1UL << AS_UNEVICTABLE);
	pinned = vm_add_folio(&shm, 0, 0);
	lru_add_drain_all(f.arena);
	upc_stats_thread(&before);
	folio_mark_accessed(pinned);
	folio_mark_accessed(pinned);
	assert_int_equal(lru_trips_since(&before), 0);
	lru_add_drain_all(f.arena);
	assert_false(folio_test_active(pinned));
	folio_put(pinned);
	truncate_inode_pages(&shm, 0);
	xa_destroy(&shm.i_pages);
	vm_teardown(&f);
}

/*
 * Direct reclaim frees at least a batch, even when fewer pages bring
 * the free ones back to the high watermark: 4 pages free of 1024 (high
 * 32), an order-3 allocation needs 28 more, and the first batch, two of
 * its folios held, frees 30.  Reclaim goes on for a batch's worth, so
 * that the next allocations do not each reclaim a few pages.
 */
static void test_direct_reclaim_frees_a_batch(void **state)
{
	struct folio *held[2], *folio;
	struct vm_fixture f;
	bool miss;

	(void)state;
	vm_setup(&f, 8, LIMIT, 0);
	held[0] = vm_read(&f.mapping, 0, &miss);
	held[1] = vm_read(&f.mapping, 1, &miss);
	vm_read_range(&f.mapping, 2, LIMIT - 6);
	lru_add_drain_all(f.arena);
	assert_int_equal(upc_arena_charged(f.arena), LIMIT - 4);
	folio = filemap_alloc_folio(&f.mapping, GFP_KERNEL, 3);
	assert_non_null(folio);
	assert_true(vm_stats(f.arena).pgsteal >= UPC_RECLAIM_BATCH);
	folio_put(folio);
	folio_put(held[0]);
	folio_put(held[1]);
	vm_teardown(&f);
}

/*
 * Reclaim may scan the lists twice over before it gives up: 200 held
 * folios on the inactive list, 100 that could go on the active one, and
 * a request for all 100.  The held ones come round again and again while
 * the active ones move down a batch at a time; one pass over the lists
 * found only some of them.
 */
static void test_reclaim_scans_twice_over(void **state)
{
	struct vm_fixture f;
	struct folio *held[200];
	unsigned int i;

	(void)state;
	hold_inactive_beside_active(&f, held);
	assert_int_equal(upc_reclaim_pages(f.arena, 100), 100);
	assert_int_equal(f.mapping.nrpages, 200);
	for (i = 0; i < 200; i++)
		folio_put(held[i]);
	vm_teardown(&f);
}

/*
 * An allocation with __GFP_NORETRY that finds every folio held makes one
 * reclaim pass and fails: it scans the lists twice over (the pass's
 * budget) and no more, where one without the flag waits for the holders
 * and rescans again and again.
 */
static void test_noretry_reclaims_one_pass(void **state)
{
	struct folio *held[512];
	struct vm_fixture f;
	uint64_t scanned;
	unsigned int i;
	bool miss;

	(void)state;
	vm_setup(&f, 8, 512, 0);
	for (i = 0; i < 512; i++)
		held[i] = vm_read(&f.mapping, i, &miss);
	lru_add_drain_all(f.arena);
	scanned = vm_stats(f.arena).pgscan;
	assert_null(filemap_alloc_folio(&f.mapping,
					GFP_KERNEL | __GFP_NORETRY, 0));
	assert_int_equal(vm_stats(f.arena).pgscan - scanned,
			 2 * 512 + UPC_RECLAIM_BATCH);
	for (i = 0; i < 512; i++)
		folio_put(held[i]);
	vm_teardown(&f);
}

static void test_bad_config(void **state)
{
	struct upc_arena *arena;

	(void)state;
	assert_int_equal(upc_reclaim_init(NULL), -EINVAL);
	assert_int_equal(upc_arena_create(4 * MiB, &arena), 0);
	assert_int_equal(upc_reclaim_set_limit(arena, 600), -EINVAL);
	assert_int_equal(upc_arena_set_limit(arena, 511), 0);
	assert_int_equal(upc_reclaim_init(arena), -EINVAL);
	assert_int_equal(upc_arena_set_limit(arena, 512), 0);
	assert_int_equal(upc_reclaim_init(arena), 0);
	assert_int_equal(upc_reclaim_init(arena), -EBUSY);
	assert_int_equal(upc_reclaim_set_limit(arena, 0), -EINVAL);
	assert_int_equal(upc_reclaim_set_limit(arena, 511), -EINVAL);
	assert_int_equal(upc_reclaim_set_limit(arena, 1025), -EINVAL);
	assert_int_equal(upc_reclaim_set_limit(arena, 1024), 0);
	assert_int_equal(upc_reclaim_stats_read(arena, NULL), -EINVAL);
	upc_reclaim_destroy(arena);
	assert_int_equal(upc_reclaim_set_limit(arena, 1024), -EINVAL);
	upc_fault_fail_nth(1);
	assert_int_equal(upc_reclaim_init(arena), -ENOMEM);
	upc_fault_fail_nth(0);
	assert_null(arena->lruvec);
	upc_arena_destroy(arena);
}

/*
 * Every allocation of a workload that evicts order-9 folios and refaults
 * small ones into their shadows fails in turn: afterwards the mapping is
 * sound and every cached page is on the LRU exactly once.
 */
static void test_fault_injection(void **state)
{
	unsigned long n;

	(void)state;
	for (n = 1;; n++) {
		struct vm_fixture f;
		struct folio *folio;
		bool miss, injected;
		pgoff_t i;

		vm_setup(&f, 4, 1024, 1UL << AS_LARGE_FOLIOS);
		for (i = 0; i < 4 * 512; i += 512) {
			folio = __filemap_get_folio(&f.mapping, i,
						    FGP_LOCK | FGP_CREAT |
						    fgf_set_order(UPC_HUGE_SIZE),
						    GFP_KERNEL);
			assert_false(IS_ERR(folio));
			folio_set_uptodate(folio);
			folio_unlock(folio);
			folio_put(folio);
		}
		upc_fault_fail_nth(n);
		for (i = 0; i < 40; i++) {
			folio = vm_read(&f.mapping, i * 37, &miss);
			if (folio)
				folio_put(folio);
		}
		injected = upc_fault_injected();
		upc_fault_fail_nth(0);
		vm_assert_lru_consistent(&f);
		vm_teardown(&f);
		if (!injected)
			break;
	}
	assert_true(n > 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_working_set_fits),
		cmocka_unit_test(test_scan_keeps_active_set),
		cmocka_unit_test(test_loop_activates_on_refault),
		cmocka_unit_test(test_reclaim_skips_busy),
		cmocka_unit_test(test_reclaim_deactivates_past_busy),
		cmocka_unit_test(test_limit_and_enomem),
		cmocka_unit_test(test_nowait_create_does_not_reclaim),
		cmocka_unit_test(test_truncate_leaves_lru),
		cmocka_unit_test(test_isolate_putback),
		cmocka_unit_test(test_reclaim_batch_counts_pages),
		cmocka_unit_test(test_pgsteal_counts_pages),
		cmocka_unit_test(test_reclaim_stuck_large_folio),
		cmocka_unit_test(test_evict_batch_lock_trips),
		cmocka_unit_test(test_evict_hook_holds_no_other_folio),
		cmocka_unit_test(test_lowered_limit_reclaims_the_excess),
		cmocka_unit_test(test_reclaim_clears_referenced),
		cmocka_unit_test(test_deactivate_counts_pages),
		cmocka_unit_test(test_balance_moves_half_up_to_a_batch),
		cmocka_unit_test(test_balance_watermarks),
		cmocka_unit_test(test_reclaim_lru_lock_trips),
		cmocka_unit_test(test_lru_batch_lock_trips),
		cmocka_unit_test(test_activate_counts),
		cmocka_unit_test(test_direct_reclaim_frees_a_batch),
		cmocka_unit_test(test_reclaim_scans_twice_over),
		cmocka_unit_test(test_noretry_reclaims_one_pass),
		cmocka_unit_test(test_bad_config),
		cmocka_unit_test(test_fault_injection),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
