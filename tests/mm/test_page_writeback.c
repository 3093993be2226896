// SPDX-License-Identifier: MIT
/*
 * tests/mm/test_page_writeback.c - writing dirty folios back on demand
 * (mm/page_writeback.c) and reporting what failed.
 *
 * filemap_fdatawrite_range() writes exactly the dirty folios of its
 * range through the mapping's hook and leaves them clean; a folio whose
 * write fails stays dirty with its data, the pass goes on with the
 * others, and the error lands on the mapping, where every watcher
 * (file_write_and_wait_range(), file_check_and_advance_wb_err()) reports
 * it once, whether the pass or reclaim met it.
 */
#include "vmscan_helpers.h"

#define LIMIT		1024UL
#define FILE_PAGES	256UL

static bool page_dirty(struct address_space *mapping, pgoff_t index)
{
	struct folio *folio = filemap_get_folio(mapping, index);
	bool dirty;

	assert_false(IS_ERR(folio));
	dirty = folio_test_dirty(folio);
	assert_int_equal(dirty, xa_get_mark(&mapping->i_pages, index,
					    PAGECACHE_TAG_DIRTY));
	folio_put(folio);
	return dirty;
}

static uint64_t store_word(struct vm_store *st, pgoff_t index)
{
	return *(uint64_t *)vm_store_page(st, index);
}

/* Only the range's dirty folios are written, and come out clean. */
static void test_fdatawrite_range_writes_range(void **state)
{
	struct vm_fixture f;
	struct vm_store st;
	pgoff_t i;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, true);
	for (i = 0; i < 32; i++)
		vm_write_stamp(&f.mapping, i, ~i);
	/* Pages 8..15: bytes from the middle of page 8 to that of 15. */
	assert_int_equal(filemap_fdatawrite_range(&f.mapping,
						  8 * UPC_PAGE_SIZE + 100,
						  15 * UPC_PAGE_SIZE + 5), 0);
	assert_int_equal(st.writes, 8);
	for (i = 0; i < 32; i++) {
		bool in = i >= 8 && i <= 15;

		assert_int_equal(page_dirty(&f.mapping, i), !in);
		assert_true(store_word(&st, i) == (in ? ~i : vm_pattern(i)));
	}
	assert_false(xa_marked(&f.mapping.i_pages, PAGECACHE_TAG_WRITEBACK));
	/* The rest, then nothing left. */
	assert_int_equal(filemap_fdatawrite_range(&f.mapping, 0, INT64_MAX), 0);
	assert_int_equal(st.writes, 32);
	assert_false(xa_marked(&f.mapping.i_pages, PAGECACHE_TAG_DIRTY));
	assert_int_equal(filemap_fdatawrite_range(&f.mapping, 0, INT64_MAX), 0);
	assert_int_equal(st.writes, 32);
	vm_store_teardown(&f, &st);
}

static void test_fdatawrite_range_errors(void **state)
{
	struct vm_fixture f;
	struct vm_store st;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, false);
	assert_int_equal(filemap_fdatawrite_range(&f.mapping, -1, 5), -EINVAL);
	assert_int_equal(filemap_fdatawrite_range(&f.mapping, 10, 9), -EINVAL);
	/* No writeback hook: nothing can be written, and that is no error. */
	vm_write_stamp(&f.mapping, 3, 7);
	assert_int_equal(filemap_fdatawrite_range(&f.mapping, 0, INT64_MAX), 0);
	assert_true(page_dirty(&f.mapping, 3));
	vm_store_teardown(&f, &st);
}

/* One failing folio: it stays dirty, the others are written, -EIO once. */
static void test_fdatawrite_range_failure_keeps_data(void **state)
{
	struct vm_fixture f;
	struct vm_store st;
	errseq_t since;
	pgoff_t i;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, true);
	since = errseq_sample(&f.mapping.wb_err);
	for (i = 0; i < 16; i++)
		vm_write_stamp(&f.mapping, i, ~i);
	st.fail_write_index = 5;
	assert_int_equal(file_write_and_wait_range(&f.mapping, &since, 0,
						   INT64_MAX), -EIO);
	assert_int_equal(st.writes, 15);
	for (i = 0; i < 16; i++) {
		assert_int_equal(page_dirty(&f.mapping, i), i == 5);
		assert_true(store_word(&st, i) == (i == 5 ? vm_pattern(i) : ~i));
	}
	assert_true(vm_read_word(&f.mapping, 5) == ~(pgoff_t)5);
	/* The pass reported it: the mapping's record is used up for us. */
	assert_int_equal(file_check_and_advance_wb_err(&f.mapping, &since), 0);
	/* Still failing: the next pass fails again, as it should. */
	assert_int_equal(file_write_and_wait_range(&f.mapping, &since, 0,
						   INT64_MAX), -EIO);
	st.fail_write_index = -1;
	assert_int_equal(file_write_and_wait_range(&f.mapping, &since, 0,
						   INT64_MAX), 0);
	assert_true(store_word(&st, 5) == ~(pgoff_t)5);
	assert_false(xa_marked(&f.mapping.i_pages, PAGECACHE_TAG_DIRTY));
	vm_store_teardown(&f, &st);
}

/* Reclaim's write failure reaches every watcher of the mapping once. */
static void test_reclaim_error_reported_once(void **state)
{
	struct vm_fixture f;
	struct vm_store st;
	errseq_t a, b;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, true);
	a = errseq_sample(&f.mapping.wb_err);
	b = errseq_sample(&f.mapping.wb_err);
	vm_write_stamp(&f.mapping, 9, 99);
	st.fail_write = 1;
	assert_int_equal(upc_reclaim_pages(f.arena, LIMIT), 0);
	st.fail_write = 0;
	assert_true(page_dirty(&f.mapping, 9));
	/* The pass itself now succeeds: the error is reclaim's. */
	assert_int_equal(file_write_and_wait_range(&f.mapping, &a, 0,
						   INT64_MAX), -EIO);
	assert_int_equal(file_write_and_wait_range(&f.mapping, &a, 0,
						   INT64_MAX), 0);
	assert_int_equal(file_check_and_advance_wb_err(&f.mapping, &b), -EIO);
	assert_int_equal(file_check_and_advance_wb_err(&f.mapping, &b), 0);
	assert_true(store_word(&st, 9) == 99);
	vm_store_teardown(&f, &st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fdatawrite_range_writes_range),
		cmocka_unit_test(test_fdatawrite_range_errors),
		cmocka_unit_test(test_fdatawrite_range_failure_keeps_data),
		cmocka_unit_test(test_reclaim_error_reported_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
