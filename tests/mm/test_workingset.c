// SPDX-License-Identifier: MIT
/*
 * tests/mm/test_workingset.c - shadow entries and refault detection.
 *
 *  - eviction leaves a shadow naming this cache, the eviction clock and
 *    the workingset bit; a shadow of another cache is ignored;
 *  - order-9 folios leave one order-9 shadow each; small folios
 *    refaulting inside split it (order-0 reads and a batched grab of 8
 *    pages), each add counted as a refault of its pages; with the
 *    active list empty neither the refault 512 evictions old nor the one
 *    right after the last eviction (its own 512 pages away) is
 *    activated; nor is an order-9 folio back at once beside a 100-page
 *    active list; a batched grab over order-0 shadows counts its pages
 *    as refaults too;
 *  - a file refault's distance is compared with the active file list,
 *    never the inactive one it lost on; an activated refault advances
 *    the clock by its pages, as an eviction does;
 *  - shadow-only nodes stay under their bound (limit / 8 nodes) on a
 *    long random sparse workload, and node reclaim leaves the tree sound.
 */
#include <limits.h>

#include "vmscan_helpers.h"

#include "../../mm/lru_internal.h"
#include "rand.h"

/* The entry at @index and its order, under the lock. */
static void *entry_at(struct address_space *mapping, pgoff_t index,
		      unsigned int *order)
{
	XA_STATE(xas, &mapping->i_pages, index);
	void *entry;

	xas_lock(&xas);
	entry = xas_load(&xas);
	*order = entry ? xas_get_order(&xas) : 0;
	xas_unlock(&xas);
	return entry;
}

/* Read [@first, @first + @nr) and move it to the active list. */
static void activate_range(struct vm_fixture *f, pgoff_t first,
			   unsigned long nr)
{
	pgoff_t i;

	for (i = first; i < first + nr; i++) {
		bool miss;
		struct folio *folio = vm_read(&f->mapping, i, &miss);

		folio_activate(folio);
		folio_put(folio);
	}
	lru_add_drain_all(f->arena);
}

static unsigned long clock_of(struct vm_fixture *f)
{
	struct lruvec *lruvec = f->arena->lruvec;

	return __atomic_load_n(&lruvec->nonresident_age, __ATOMIC_RELAXED);
}

static void test_shadow_encoding(void **state)
{
	struct vm_fixture f, other;
	struct folio *folio;
	unsigned int order, id;
	unsigned long age, clock;
	bool miss, ws;
	void *shadow;

	(void)state;
	vm_setup(&f, 4, 1024, 0);
	vm_setup(&other, 4, 1024, 0);
	folio_put(vm_read(&f.mapping, 9, &miss));
	assert_int_equal(upc_reclaim_pages(f.arena, 1), 1);
	shadow = entry_at(&f.mapping, 9, &order);
	assert_true(xa_is_value(shadow));
	workingset_shadow_info(shadow, &id, &age, &ws);
	/* The clock before the eviction, which advanced it by the page. */
	assert_int_equal(age, 0);
	assert_int_equal(clock_of(&f), 1);
	assert_false(ws);
	assert_int_equal(id, ((struct lruvec *)f.arena->lruvec)->id);
	assert_int_not_equal(id, ((struct lruvec *)other.arena->lruvec)->id);

	/* Another cache's shadow counts nothing. */
	folio = upc_arena_alloc_folio(other.arena, GFP_KERNEL, 0);
	workingset_refault(folio, shadow);
	assert_int_equal(vm_stats(other.arena).workingset_refault, 0);
	folio_put(folio);

	/*
	 * Back at once: distance 1, its own eviction, and no active list
	 * to compare with: not activated, as in the kernel.
	 */
	folio = vm_read(&f.mapping, 9, &miss);
	assert_true(miss);
	assert_false(folio_test_active(folio));
	folio_put(folio);
	lru_add_drain_all(f.arena);
	assert_int_equal(vm_stats(f.arena).workingset_refault, 1);
	assert_int_equal(vm_stats(f.arena).workingset_activate, 0);

	/*
	 * With a page active, the same refault is activated, and the
	 * folio lands on active; PG_workingset only where the shadow had
	 * it (a restore), as the kernel does.
	 */
	activate_range(&f, 20, 1);
	clock = clock_of(&f);
	assert_int_equal(upc_reclaim_pages(f.arena, 1), 1);
	workingset_shadow_info(entry_at(&f.mapping, 9, &order), NULL, &age,
			       NULL);
	assert_int_equal(age, clock);
	folio = vm_read(&f.mapping, 9, &miss);
	assert_true(miss);
	assert_true(folio_test_active(folio));
	assert_false(folio_test_workingset(folio));
	folio_put(folio);
	lru_add_drain_all(f.arena);
	assert_int_equal(vm_stats(f.arena).nr_active_file, 2);
	assert_int_equal(vm_stats(f.arena).workingset_activate, 1);
	assert_int_equal(vm_stats(f.arena).workingset_restore, 0);

	/*
	 * Deactivated, then evicted, with page 20 too: the shadow says
	 * working set, and beside two new active pages the refault (at
	 * most 2 away) is a restore.
	 */
	assert_int_equal(shrink_active_list(f.arena->lruvec, 2,
					    LRU_ACTIVE_FILE), 2);
	activate_range(&f, 30, 2);
	assert_int_equal(upc_reclaim_pages(f.arena, 2), 2);
	workingset_shadow_info(entry_at(&f.mapping, 9, &order), NULL, NULL,
			       &ws);
	assert_true(ws);
	folio = vm_read(&f.mapping, 9, &miss);
	assert_true(miss);
	assert_true(folio_test_workingset(folio));
	folio_put(folio);
	assert_int_equal(vm_stats(f.arena).workingset_restore, 1);
	vm_teardown(&other);
	vm_teardown(&f);
}

/*
 * An order-9 folio evicted and read back at once is 512 pages away (its
 * own eviction), more than a 100-page active list: not activated.  (The
 * clock taken after the eviction made that distance 0.)
 */
static void test_huge_refault_own_distance(void **state)
{
	struct vm_fixture f;
	struct folio *folio;
	unsigned long before;

	(void)state;
	vm_setup(&f, 8, 1024, 1UL << AS_LARGE_FOLIOS);
	activate_range(&f, 2048, 100);
	folio_put(vm_add_folio(&f.mapping, 0, UPC_MAX_ORDER));
	lru_add_drain_all(f.arena);
	before = vm_stats(f.arena).workingset_activate;
	assert_int_equal(upc_reclaim_pages(f.arena, 512), 512);
	assert_int_equal(vm_stats(f.arena).nr_active_file, 100);
	folio = vm_add_folio(&f.mapping, 0, UPC_MAX_ORDER);
	assert_false(folio_test_active(folio));
	folio_put(folio);
	assert_int_equal(vm_stats(f.arena).workingset_refault, 512);
	assert_int_equal(vm_stats(f.arena).workingset_activate, before);
	vm_teardown(&f);
}

/*
 * evict_page9_then_32() - Read page 9 and evict it, then read pages
 * 100..131 and evict them: page 9's shadow is 32 evictions old.
 */
static void evict_page9_then_32(struct vm_fixture *f)
{
	bool miss;

	folio_put(vm_read(&f->mapping, 9, &miss));
	lru_add_drain_all(f->arena);
	assert_int_equal(upc_reclaim_pages(f->arena, 1), 1);
	vm_read_range(&f->mapping, 100, 32);
	lru_add_drain_all(f->arena);
	assert_int_equal(upc_reclaim_pages(f->arena, 32), 32);
}

/*
 * A file page refaults 32 evictions after it went, with the file's
 * active list empty and 64 swap-backed pages on the inactive anon list.
 * Return: whether the refault was activated.
 */
static bool file_refault_activated(bool swap)
{
	struct address_space anon;
	struct vm_fixture f;
	struct folio *folio;
	bool miss, active;

	vm_setup(&f, 8, 1024, 0);
	address_space_init(&anon, f.arena, NULL, 1UL << AS_SWAPBACKED);
	vm_read_range(&anon, 0, 64);
	evict_page9_then_32(&f);
	assert_int_equal(vm_stats(f.arena).nr_inactive_anon, 64);
	assert_int_equal(vm_stats(f.arena).nr_active_file, 0);
	if (swap)
		assert_int_equal(upc_reclaim_set_swap(f.arena,
						      vm_refusing_swap(), NULL),
				 0);
	folio = vm_read(&f.mapping, 9, &miss);
	assert_true(miss);
	active = folio_test_active(folio);
	folio_put(folio);
	assert_int_equal(upc_reclaim_set_swap(f.arena, NULL, NULL), 0);
	truncate_inode_pages(&anon, 0);
	xa_destroy(&anon.i_pages);
	vm_teardown(&f);
	return active;
}

/*
 * Which lists a refault distance is measured against, as the kernel's
 * workingset_test_recent() sums them: for a file refault, the active
 * file list, and the anon lists only when anon pages can go to swap.
 * Compared with the active file list alone, the 32-eviction refault
 * was never activated.
 */
static void test_refault_counts_anon_with_swap(void **state)
{
	(void)state;
	assert_false(file_refault_activated(false));
	assert_true(file_refault_activated(true));
}

/*
 * The lists a file refault is compared with leave out the inactive file
 * list: the refaulting page was on it and lost there, so its distance
 * says how much longer that list would have had to be, and only the
 * other lists could have given that room.  Here, 32 evictions after the
 * page went, the active list is empty and 64 pages sit on the inactive
 * file list: counting those, the refault would look recent and be
 * activated, and a stream read once would push the real working set
 * off the active list.
 */
static void test_file_refault_ignores_inactive_file(void **state)
{
	struct vm_fixture f;
	struct folio *folio;
	unsigned int order;
	void *shadow;
	bool miss;

	(void)state;
	vm_setup(&f, 8, 1024, 0);
	evict_page9_then_32(&f);
	vm_read_range(&f.mapping, 200, 64);
	lru_add_drain_all(f.arena);
	assert_int_equal(vm_stats(f.arena).nr_active_file, 0);
	assert_int_equal(vm_stats(f.arena).nr_inactive_file, 64);
	shadow = entry_at(&f.mapping, 9, &order);
	assert_true(xa_is_value(shadow));
	folio = vm_read(&f.mapping, 9, &miss);
	assert_true(miss);
	assert_false(folio_test_active(folio));
	folio_put(folio);
	assert_int_equal(vm_stats(f.arena).workingset_refault, 1);
	assert_int_equal(vm_stats(f.arena).workingset_activate, 0);

	/*
	 * An anonymous refault with the same shadow is measured against
	 * the file lists, the inactive one too: the room it lacked could
	 * have come from there.  It is recent.
	 */
	folio = upc_arena_alloc_folio(f.arena, GFP_KERNEL, 0);
	assert_non_null(folio);
	folio_set_swapbacked(folio);
	workingset_refault(folio, shadow);
	assert_true(folio_test_active(folio));
	assert_int_equal(vm_stats(f.arena).workingset_activate, 1);
	folio_clear_active(folio);
	folio_clear_swapbacked(folio);
	folio_put(folio);
	vm_teardown(&f);
}

/*
 * An activated refault advances the clock by its pages, as an eviction
 * does: the page it puts on the active list will push another down to
 * the inactive one, so the inactive list has moved by as much.  (The
 * kernel's clock counts evictions and activations alike; counting
 * evictions alone, later refault distances would come out too short
 * and activate pages that are not in the working set.)
 */
static void test_refault_activation_ages_clock(void **state)
{
	struct vm_fixture f;
	struct folio *folio;
	unsigned long clock;
	bool miss;

	(void)state;
	vm_setup(&f, 4, 1024, 0);
	folio_put(vm_read(&f.mapping, 9, &miss));
	activate_range(&f, 20, 1);
	assert_int_equal(upc_reclaim_pages(f.arena, 1), 1);	/* page 9 */
	clock = clock_of(&f);
	/* Distance 1, beside one active page: activated. */
	folio = vm_read(&f.mapping, 9, &miss);
	assert_true(miss);
	assert_true(folio_test_active(folio));
	folio_put(folio);
	assert_int_equal(vm_stats(f.arena).workingset_activate, 1);
	assert_int_equal(clock_of(&f), clock + 1);
	vm_teardown(&f);
}

static void test_huge_shadow_split(void **state)
{
	struct vm_fixture f;
	struct folio *folio, *run[8];
	struct upc_reclaim_stats st;
	unsigned int order;
	void *entry;
	unsigned long pages;
	bool miss;
	int i, n;

	(void)state;
	vm_setup(&f, 8, 1024, 1UL << AS_LARGE_FOLIOS);
	folio_put(vm_add_folio(&f.mapping, 0, UPC_MAX_ORDER));
	folio_put(vm_add_folio(&f.mapping, 512, UPC_MAX_ORDER));
	assert_int_equal(upc_reclaim_pages(f.arena, 1024), 1024);
	assert_int_equal(f.mapping.nrpages, 0);
	entry = entry_at(&f.mapping, 0, &order);
	assert_true(xa_is_value(entry));
	assert_int_equal(order, 9);
	assert_true(entry_at(&f.mapping, 511, &order) == entry);
	assert_true(xa_is_value(entry_at(&f.mapping, 512, &order)));
	assert_int_equal(order, 9);

	/* 512 evictions ago, active list empty: refault, no activation. */
	folio = vm_read(&f.mapping, 5, &miss);
	assert_true(miss);
	assert_int_equal(folio_order(folio), 0);
	assert_false(folio_test_active(folio));
	folio_put(folio);
	st = vm_stats(f.arena);
	assert_int_equal(st.workingset_refault, 1);
	assert_int_equal(st.workingset_activate, 0);
	assert_true(entry_at(&f.mapping, 4, &order) == entry);
	assert_int_equal(order, 0);
	assert_true(entry_at(&f.mapping, 6, &order) == entry);

	/* The last eviction: its own 512 pages away, still no activation. */
	folio = vm_read(&f.mapping, 600, &miss);
	assert_false(folio_test_active(folio));
	folio_put(folio);
	st = vm_stats(f.arena);
	assert_int_equal(st.workingset_refault, 2);
	assert_int_equal(st.workingset_activate, 0);

	/* The batched grab: every page it adds is a refault. */
	n = filemap_grab_folios(&f.mapping, 700, 8, run);
	assert_true(n >= 1);
	for (i = 0, pages = 0; i < n; i++) {
		pages += folio_nr_pages(run[i]);
		folio_unlock(run[i]);
		folio_put(run[i]);
	}
	assert_int_equal(pages, 8);
	assert_int_equal(vm_stats(f.arena).workingset_refault, 2 + 8);
	assert_true(xa_is_value(entry_at(&f.mapping, 699, &order)));
	assert_true(xa_is_value(entry_at(&f.mapping, 708, &order)));
	assert_int_equal(f.mapping.nrpages, 10);
	vm_assert_lru_consistent(&f);
	vm_teardown(&f);
}

/*
 * A batched grab over the order-0 shadows of a mapping without large
 * folios: each page it adds is a refault, as a read of it one at a time
 * would have counted.  (Were the grab to add its folios to the LRU
 * without their shadows, it would count none, and pages refaulting
 * through batched reads would never be seen as the working set coming
 * back.)
 */
static void test_grab_small_refaults(void **state)
{
	struct vm_fixture f;
	struct folio *run[8];
	int i, n;

	(void)state;
	vm_setup(&f, 4, 1024, 0);
	vm_read_range(&f.mapping, 0, 8);
	lru_add_drain_all(f.arena);
	assert_int_equal(upc_reclaim_pages(f.arena, 8), 8);
	assert_int_equal(f.mapping.nrpages, 0);
	assert_int_equal(vm_stats(f.arena).workingset_refault, 0);
	n = filemap_grab_folios(&f.mapping, 0, 8, run);
	assert_int_equal(n, 8);
	for (i = 0; i < n; i++) {
		assert_int_equal(folio_order(run[i]), 0);
		folio_unlock(run[i]);
		folio_put(run[i]);
	}
	assert_int_equal(vm_stats(f.arena).workingset_refault, 8);
	assert_int_equal(f.mapping.nrpages, 8);
	vm_assert_lru_consistent(&f);
	vm_teardown(&f);
}

/* Count the shadow-only nodes of a tree the slow way: every entry. */
static unsigned long count_shadow_nodes(struct address_space *mapping)
{
	XA_STATE(xas, &mapping->i_pages, 0);
	struct xa_node *last = NULL;
	unsigned long nodes = 0;
	void *entry;

	xas_lock(&xas);
	xas_for_each(&xas, entry, ULONG_MAX) {
		struct xa_node *node = xas.xa_node;

		if (!xas_is_node(&xas) || node == last)
			continue;
		last = node;
		nodes += node->count == node->nr_values;
	}
	xas_unlock(&xas);
	return nodes;
}

static void test_shadow_nodes_bounded(void **state)
{
	struct vm_fixture f;
	struct upc_reclaim_stats st;
	struct upc_rand rng;
	unsigned long i, max_nodes = 512 / 8, peak = 0;

	(void)state;
	upc_rand_seed(&rng, upc_test_seed());
	vm_setup(&f, 2, 512, 0);
	for (i = 0; i < 20000; i++) {
		bool miss;
		struct folio *folio = vm_read(&f.mapping,
					      upc_rand_below(&rng, 1UL << 22),
					      &miss);

		assert_non_null(folio);
		folio_put(folio);
		st = vm_stats(f.arena);
		if (st.nr_shadow_nodes > peak)
			peak = st.nr_shadow_nodes;
	}
	st = vm_stats(f.arena);
	/* Between two reclaims at most a high watermark of evictions. */
	assert_true(peak <= max_nodes + 2 * UPC_RECLAIM_BATCH);
	assert_true(st.workingset_nodereclaim > 1000);
	assert_int_equal(count_shadow_nodes(&f.mapping), st.nr_shadow_nodes);
	assert_int_equal(upc_check_mapping(&f.mapping), 0);
	vm_teardown(&f);
}

/*
 * An order-9 folio that refaults into the working set counts its 512
 * pages in workingset_activate and, deactivated before it went,
 * workingset_restore too, as workingset_refault counts them.
 */
static void test_huge_activation_counts_pages(void **state)
{
	struct vm_fixture f;
	struct upc_reclaim_stats st;
	struct folio *folio;

	(void)state;
	vm_setup(&f, 16, 2048, 1UL << AS_LARGE_FOLIOS);
	folio = vm_add_folio(&f.mapping, 0, UPC_MAX_ORDER);
	folio_activate(folio);
	folio_put(folio);
	activate_range(&f, 4096, 600);
	/* The oldest active folio, the huge one, goes down first. */
	assert_int_equal(shrink_active_list(f.arena->lruvec, 1,
					    LRU_ACTIVE_FILE), 1);
	assert_int_equal(upc_reclaim_pages(f.arena, 512), 512);
	assert_true(xa_is_value(xa_load(&f.mapping.i_pages, 0)));
	assert_true(vm_stats(f.arena).nr_active_file >= 512);
	folio = vm_add_folio(&f.mapping, 0, UPC_MAX_ORDER);
	assert_true(folio_test_active(folio));
	assert_true(folio_test_workingset(folio));
	folio_put(folio);
	st = vm_stats(f.arena);
	assert_int_equal(st.workingset_refault, 512);
	assert_int_equal(st.workingset_activate, 512);
	assert_int_equal(st.workingset_restore, 512);
	vm_teardown(&f);
}

/* Read a page in each of @nr leaf nodes of @mapping, from @first on. */
static void read_sparse(struct vm_fixture *f, struct address_space *mapping,
			pgoff_t first, unsigned long nr)
{
	unsigned long i;

	for (i = 0; i < nr; i++)
		vm_read_range(mapping, first + i * XA_CHUNK_SIZE, 1);
	lru_add_drain_all(f->arena);
}

/*
 * After reclaim, the shadow-only nodes are trimmed to exactly their
 * bound, an eighth of the limit's pages: 200 pages evicted from 200 leaf
 * nodes leave 64 of them with 512 pages, and 136 counted as reclaimed.
 */
static void test_shadow_nodes_trimmed_to_bound(void **state)
{
	struct vm_fixture f;
	struct upc_reclaim_stats st;

	(void)state;
	vm_setup(&f, 4, 512, 0);
	read_sparse(&f, &f.mapping, 0, 200);
	assert_int_equal(upc_reclaim_pages(f.arena, 200), 200);
	st = vm_stats(f.arena);
	assert_int_equal(st.nr_shadow_nodes, 512 / 8);
	assert_int_equal(st.workingset_nodereclaim, 200 - 512 / 8);
	assert_int_equal(count_shadow_nodes(&f.mapping), 512 / 8);
	vm_teardown(&f);
}

/*
 * The shadow node shrinker passes over the nodes of a tree whose lock
 * is taken (trylock) and frees the next ones: with the older file's
 * tree locked, the newer file's 100 nodes go, and the older ones once
 * its lock is free.  Retrying the same busy node, it freed nothing.
 */
static void test_shadow_shrink_passes_busy_tree(void **state)
{
	struct address_space newer;
	struct vm_fixture f;
	struct lruvec *lruvec;

	(void)state;
	vm_setup(&f, 16, 4096, 0);
	lruvec = f.arena->lruvec;
	address_space_init(&newer, f.arena, NULL, 0);
	read_sparse(&f, &f.mapping, 0, 100);
	assert_int_equal(upc_reclaim_pages(f.arena, 100), 100);
	read_sparse(&f, &newer, 0, 100);
	assert_int_equal(upc_reclaim_pages(f.arena, 100), 100);
	assert_int_equal(vm_stats(f.arena).nr_shadow_nodes, 200);

	assert_int_equal(upc_reclaim_set_limit(f.arena, 512), 0);
	xa_lock(&f.mapping.i_pages);
	assert_int_equal(workingset_shrink_shadows(lruvec), 100);
	xa_unlock(&f.mapping.i_pages);
	assert_int_equal(count_shadow_nodes(&newer), 0);
	assert_int_equal(workingset_shrink_shadows(lruvec), 100 - 512 / 8);
	assert_int_equal(count_shadow_nodes(&f.mapping), 512 / 8);
	assert_int_equal(upc_check_mapping(&newer), 0);
	truncate_inode_pages(&newer, 0);
	xa_destroy(&newer.i_pages);
	vm_teardown(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shadow_encoding),
		cmocka_unit_test(test_refault_counts_anon_with_swap),
		cmocka_unit_test(test_file_refault_ignores_inactive_file),
		cmocka_unit_test(test_refault_activation_ages_clock),
		cmocka_unit_test(test_huge_shadow_split),
		cmocka_unit_test(test_grab_small_refaults),
		cmocka_unit_test(test_huge_refault_own_distance),
		cmocka_unit_test(test_shadow_nodes_bounded),
		cmocka_unit_test(test_huge_activation_counts_pages),
		cmocka_unit_test(test_shadow_nodes_trimmed_to_bound),
		cmocka_unit_test(test_shadow_shrink_passes_busy_tree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
