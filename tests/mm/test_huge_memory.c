// SPDX-License-Identifier: MIT
/*
 * tests/mm/test_huge_memory.c - split_folio(): a large folio of a
 * mapping becomes order-0 folios in place.
 *
 * Each test puts one large folio, every page stamped with its index's
 * pattern, into a file mapping of a reclaiming arena, takes it off the
 * LRU as reclaim would (its own reference dropped, the isolation's
 * kept) and splits it.  Checked afterwards: every index holds its own
 * order-0 folio with the page's data, the flags and the dirty mark;
 * only the first page's folio is locked and off the LRU; the reference
 * counts; the mapping's page count, the LRU counts, the tree checker;
 * and at teardown the arena's checker and charge (each page freed on its
 * own).  Failures (busy, bad arguments, every allocation point failed in
 * turn) must change nothing.
 */
#include "vmscan_helpers.h"

#include "fault.h"
#include "mm/huge_memory.h"
#include "mm/lru_internal.h"

#define LIMIT		4096UL

/*
 * huge_add() - An uptodate folio of @order at @index, each page stamped
 * with vm_pattern() of its index, dirty if @dirty, listed on the LRU.
 * Return: the folio, with the test's reference.
 */
static struct folio *huge_add(struct vm_fixture *f, pgoff_t index,
			      unsigned int order, bool dirty)
{
	struct folio *folio = filemap_alloc_folio(&f->mapping, GFP_KERNEL,
						  order);
	unsigned long i;

	assert_non_null(folio);
	for (i = 0; i < folio_nr_pages(folio); i++)
		*(uint64_t *)((char *)folio_address(folio) +
			      (i << UPC_PAGE_SHIFT)) = vm_pattern(index + i);
	folio_set_uptodate(folio);
	assert_int_equal(filemap_add_folio(&f->mapping, folio, index,
					   GFP_KERNEL), 0);
	if (dirty)
		folio_mark_dirty(folio);
	lru_add_drain_all(f->arena);
	return folio;
}

/*
 * huge_isolate() - Take @folio off the LRU and lock it, leaving exactly
 * the references split_folio() expects: the mapping's and the
 * isolation's (the test's own is dropped).
 */
static void huge_isolate(struct folio *folio)
{
	assert_true(folio_isolate_lru(folio));
	folio_put(folio);
	folio_lock(folio);
}

/* huge_unchanged() - @folio is still whole, of @order, at @index. */
static void huge_unchanged(struct vm_fixture *f, struct folio *folio,
			   pgoff_t index, unsigned int order)
{
	unsigned long i, nr = 1UL << order;

	assert_int_equal(folio_order(folio), order);
	assert_int_equal(folio_ref_count(folio), (int)nr + 1);
	assert_true(folio_test_locked(folio));
	for (i = 0; i < nr; i++) {
		assert_ptr_equal(xa_load(&f->mapping.i_pages, index + i),
				 folio);
		assert_int_equal(xa_get_order(&f->mapping.i_pages, index + i),
				 order);
	}
	assert_int_equal(f->mapping.nrpages, nr);
	assert_int_equal(upc_check_mapping(&f->mapping), 0);
}

/* huge_release() - Give back a folio that stayed whole, and drop it. */
static void huge_release(struct folio *folio)
{
	folio_unlock(folio);
	folio_putback_lru(folio);
}

/*
 * split_and_check() - Split an order-@order folio at @index (dirty if
 * @dirty) and check everything the split promises.
 */
static void split_and_check(unsigned int order, pgoff_t index, bool dirty)
{
	unsigned long i, nr = 1UL << order;
	struct vm_fixture f;
	struct folio *folio;
	struct upc_reclaim_stats st;

	vm_setup(&f, 32, LIMIT, 0);
	folio = huge_add(&f, index, order, dirty);
	huge_isolate(folio);
	assert_int_equal(vm_stats(f.arena).nr_inactive_file, 0);

	assert_int_equal(split_folio(folio, GFP_KERNEL), 0);
	assert_int_equal(f.mapping.nrpages, nr);
	assert_int_equal(upc_check_mapping(&f.mapping), 0);
	for (i = 0; i < nr; i++) {
		struct folio *page = xa_load(&f.mapping.i_pages, index + i);

		assert_ptr_equal(page, folio + i);
		assert_int_equal(xa_get_order(&f.mapping.i_pages, index + i),
				 0);
		assert_int_equal(folio_order(page), 0);
		assert_int_equal(page->index, index + i);
		assert_ptr_equal(page->mapping, &f.mapping);
		assert_true(folio_test_uptodate(page));
		assert_int_equal(folio_test_dirty(page), dirty);
		assert_int_equal(xa_get_mark(&f.mapping.i_pages, index + i,
					     PAGECACHE_TAG_DIRTY), dirty);
		assert_int_equal(folio_test_locked(page), i == 0);
		assert_int_equal(folio_test_lru(page), i != 0);
		assert_int_equal(folio_ref_count(page), i ? 1 : 2);
		assert_true(*(uint64_t *)folio_address(page) ==
			    vm_pattern(index + i));
	}
	st = vm_stats(f.arena);
	assert_int_equal(st.nr_inactive_file, nr - 1);

	/* Lookups find the pages' own folios, and the head goes back. */
	for (i = 0; i < nr; i += nr / 4) {
		struct folio *page = filemap_get_entry(&f.mapping, index + i);

		assert_ptr_equal(page, folio + i);
		folio_put(page);
	}
	huge_release(folio);
	assert_int_equal(vm_stats(f.arena).nr_inactive_file, nr);
	if (dirty)
		for (i = 0; i < nr; i++) {
			folio_lock(folio + i);
			folio_clear_dirty_for_io(folio + i);
			folio_unlock(folio + i);
		}
	/* Freed a page at a time: the arena's checker and charge agree. */
	vm_teardown(&f);
}

/* An order-9 folio: its entry spans several leaf nodes. */
static void test_split_order9(void **state)
{
	(void)state;
	split_and_check(UPC_MAX_ORDER, 1024, false);
}

/* A dirty one: every page keeps PG_dirty and the dirty mark. */
static void test_split_order9_dirty(void **state)
{
	(void)state;
	split_and_check(UPC_MAX_ORDER, 512, true);
}

/* An order-4 folio: its entry is inside one node, split in place. */
static void test_split_order4(void **state)
{
	(void)state;
	split_and_check(4, 48, true);
}

/*
 * Another reference (a reader's): -EAGAIN, nothing changed, and refused
 * before anything is allocated: no allocation for the fault injector to
 * fail.
 */
static void test_split_busy(void **state)
{
	struct vm_fixture f;
	struct folio *folio, *ref;

	(void)state;
	vm_setup(&f, 32, LIMIT, 0);
	folio = huge_add(&f, 0, UPC_MAX_ORDER, false);
	huge_isolate(folio);
	ref = filemap_get_entry(&f.mapping, 7);
	assert_ptr_equal(ref, folio);
	upc_fault_fail_nth(1);
	assert_int_equal(split_folio(folio, GFP_KERNEL), -EAGAIN);
	assert_false(upc_fault_injected());
	upc_fault_fail_nth(0);
	folio_put(ref);
	huge_unchanged(&f, folio, 0, UPC_MAX_ORDER);
	huge_release(folio);
	vm_teardown(&f);
}

/* Order 0, still on the LRU, under writeback or in swap cache: -EINVAL. */
static void test_split_bad_args(void **state)
{
	struct vm_fixture f;
	struct folio *folio;

	(void)state;
	vm_setup(&f, 32, LIMIT, 0);
	folio = huge_add(&f, 0, 0, false);
	huge_isolate(folio);
	assert_int_equal(split_folio(folio, GFP_KERNEL), -EINVAL);
	huge_release(folio);
	truncate_inode_pages(&f.mapping, 0);

	folio = huge_add(&f, 512, UPC_MAX_ORDER, false);
	folio_lock(folio);
	assert_int_equal(split_folio(folio, GFP_KERNEL), -EINVAL);
	folio_unlock(folio);
	assert_int_equal(xa_get_order(&f.mapping.i_pages, 512), UPC_MAX_ORDER);

	/* Off the LRU, but under writeback, in the swap cache or keeping
	 * swap slots. */
	huge_isolate(folio);
	folio_set_writeback(folio);
	assert_int_equal(split_folio(folio, GFP_KERNEL), -EINVAL);
	folio_clear_writeback(folio);
	folio_set_swapcache(folio);
	assert_int_equal(split_folio(folio, GFP_KERNEL), -EINVAL);
	folio_clear_swapcache(folio);
	folio_set_swapslot(folio);
	assert_int_equal(split_folio(folio, GFP_KERNEL), -EINVAL);
	folio_clear_swapslot(folio);
	huge_unchanged(&f, folio, 512, UPC_MAX_ORDER);
	huge_release(folio);
	vm_teardown(&f);
}

/*
 * Every allocation point failed in turn: each failure is -ENOMEM with
 * nothing changed, until the split needs no failed allocation.
 */
static void test_split_fault_injection(void **state)
{
	struct vm_fixture f;
	struct folio *folio;
	unsigned long n;
	int err;

	(void)state;
	vm_setup(&f, 32, LIMIT, 0);
	folio = huge_add(&f, 0, UPC_MAX_ORDER, false);
	huge_isolate(folio);
	for (n = 1;; n++) {
		upc_fault_fail_nth(n);
		err = split_folio(folio, GFP_KERNEL);
		if (!upc_fault_injected())
			break;
		upc_fault_fail_nth(0);
		assert_int_equal(err, -ENOMEM);
		huge_unchanged(&f, folio, 0, UPC_MAX_ORDER);
	}
	upc_fault_fail_nth(0);
	/* At least one allocation point was failed before success. */
	assert_true(n > 1);
	assert_int_equal(err, 0);
	assert_int_equal(xa_get_order(&f.mapping.i_pages, 511), 0);
	assert_int_equal(upc_check_mapping(&f.mapping), 0);
	huge_release(folio);
	vm_teardown(&f);
}

/*
 * A split page takes over the large folio's state flags (uptodate,
 * referenced, active, workingset, error, dropbehind), and neither its
 * lock nor its readahead mark: those stay with the first page.
 */
static void test_split_keeps_flags(void **state)
{
	const unsigned long kept = (1UL << PG_uptodate) |
		(1UL << PG_referenced) | (1UL << PG_active) |
		(1UL << PG_workingset) | (1UL << PG_error) |
		(1UL << PG_dropbehind);
	const unsigned long looked_at = kept | (1UL << PG_locked) |
		(1UL << PG_readahead);
	static const unsigned int set[] = {
		PG_referenced, PG_active, PG_workingset, PG_error,
		PG_dropbehind, PG_readahead,
	};
	struct vm_fixture f;
	struct folio *folio;
	unsigned long i;

	(void)state;
	vm_setup(&f, 32, LIMIT, 0);
	folio = huge_add(&f, 64, 4, false);
	huge_isolate(folio);
	for (i = 0; i < sizeof(set) / sizeof(set[0]); i++)
		folio_set_flag(folio, set[i]);
	assert_int_equal(split_folio(folio, GFP_KERNEL), 0);
	for (i = 1; i < 16; i++)
		assert_int_equal(__atomic_load_n(&folio[i].flags,
						 __ATOMIC_RELAXED) & looked_at,
				 kept);
	for (i = 0; i < sizeof(set) / sizeof(set[0]); i++)
		folio_clear_flag(folio, set[i]);
	huge_release(folio);
	vm_teardown(&f);
}

/*
 * The pages of a split join the inactive list at its tail, the end
 * reclaim takes from, in index order: the page that was part of a large
 * folio goes before the folios read since.
 */
static void test_split_pages_at_lru_tail(void **state)
{
	struct upc_list_head *list, *pos;
	struct vm_fixture f;
	struct folio *folio;
	unsigned long i;

	(void)state;
	vm_setup(&f, 32, LIMIT, 0);
	folio = huge_add(&f, 0, 3, false);
	vm_read_range(&f.mapping, 100, 4);
	lru_add_drain_all(f.arena);
	huge_isolate(folio);
	assert_int_equal(split_folio(folio, GFP_KERNEL), 0);
	list = &arena_lruvec(f.arena)->lists[LRU_INACTIVE_FILE];
	pos = list->prev;
	for (i = 7; i >= 1; i--, pos = pos->prev)
		assert_ptr_equal(lru_to_folio(pos), folio + i);
	/* Then the oldest of the others. */
	assert_int_equal(lru_to_folio(pos)->index, 100);
	huge_release(folio);
	vm_teardown(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_order9),
		cmocka_unit_test(test_split_order9_dirty),
		cmocka_unit_test(test_split_order4),
		cmocka_unit_test(test_split_busy),
		cmocka_unit_test(test_split_bad_args),
		cmocka_unit_test(test_split_fault_injection),
		cmocka_unit_test(test_split_keeps_flags),
		cmocka_unit_test(test_split_pages_at_lru_tail),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
