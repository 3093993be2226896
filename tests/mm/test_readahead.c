// SPDX-License-Identifier: MIT
/*
 * tests/mm/test_readahead.c - readahead (mm/readahead.c): which pages
 * page_cache_ra_unbounded() reads and in what runs, and the window
 * page_cache_sync_ra() chooses for sequential and random misses.
 *
 * The mapping reads from a vm_store (vmscan_helpers.h); its readahead
 * hook counts requests and fills each folio of a run from the store,
 * so every page read ahead is checked against the store's pattern.
 */
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vmscan_helpers.h"

#include "fault.h"
#include "mm/lru_internal.h"

#define LIMIT		1024UL
#define FILE_PAGES	512UL

/*
 * Calls of the readahead hook, the pages they were handed, the most
 * folios one was handed, and the calls made on a thread other than the
 * test's (a readahead worker).  Workers run the hook, several at once:
 * the counts are atomic, and what the hook finds wrong is counted in
 * ra_bad for the test's thread to assert (cmocka asserts only there).
 */
static unsigned long ra_calls, ra_pages, ra_largest, ra_async_calls, ra_bad;
static int ra_fail;
static pthread_t ra_test_thread;

#define RA_ADD(var, n)	__atomic_fetch_add(&(var), (n), __ATOMIC_RELAXED)
#define RA_GET(var)	__atomic_load_n(&(var), __ATOMIC_RELAXED)

/* a_ops->readahead: one request per run; fill and unlock each folio. */
static void test_readahead_hook(struct address_space *mapping,
				struct folio **folios, unsigned int nr)
{
	unsigned long largest = RA_GET(ra_largest);
	unsigned int i;

	RA_ADD(ra_calls, 1);
	if (!pthread_equal(pthread_self(), ra_test_thread))
		RA_ADD(ra_async_calls, 1);
	while (nr > largest &&
	       !__atomic_compare_exchange_n(&ra_largest, &largest, nr, false,
					    __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
	for (i = 0; i < nr; i++) {
		RA_ADD(ra_pages, folio_nr_pages(folios[i]));
		/* Consecutive indices, locked, not uptodate, in the cache. */
		if ((i && folios[i]->index != folios[i - 1]->index +
			  folio_nr_pages(folios[i - 1])) ||
		    !folio_test_locked(folios[i]) ||
		    folio_test_uptodate(folios[i]) ||
		    folios[i]->mapping != mapping)
			RA_ADD(ra_bad, 1);
		if (ra_fail)
			folio_unlock(folios[i]);
		else
			vm_store_read_folio(mapping, folios[i]);
	}
}

static const struct address_space_operations ra_aops = {
	.read_folio = vm_store_read_folio,
	.readahead = test_readahead_hook,
};

static void ra_setup(struct vm_fixture *f, struct vm_store *st,
		     bool with_hook)
{
	vm_store_setup(f, st, 8, LIMIT, FILE_PAGES, false);
	if (with_hook)
		f->mapping.a_ops = &ra_aops;
	f->mapping.flags |= 1UL << AS_ASYNC_READAHEAD;
	f->mapping.size = (int64_t)FILE_PAGES << UPC_PAGE_SHIFT;
	ra_calls = ra_pages = ra_largest = ra_async_calls = ra_bad = 0;
	ra_fail = 0;
	ra_test_thread = pthread_self();
}

/* ra_teardown() - No hook call went wrong; the fixture's teardown. */
static void ra_teardown(struct vm_fixture *f, struct vm_store *st)
{
	readahead_flush();
	assert_int_equal(RA_GET(ra_bad), 0);
	vm_store_teardown(f, st);
}

/* page_cache_sync_ra(), then wait for the workers' part. */
static void sync_ra(struct address_space *mapping, struct file_ra_state *ra,
		    pgoff_t index, unsigned long req)
{
	page_cache_sync_ra(mapping, ra, index, req);
	readahead_flush();
}

/* Is the folio at @index marked PG_readahead? */
static bool ra_marked(struct address_space *mapping, pgoff_t index)
{
	struct folio *folio = filemap_get_folio(mapping, index);
	bool marked;

	if (IS_ERR(folio))
		return false;
	marked = folio_test_readahead(folio);
	folio_put(folio);
	return marked;
}

/* Is page @index cached and uptodate, with the store's data? */
static bool page_read(struct address_space *mapping, pgoff_t index)
{
	struct folio *folio = filemap_get_folio(mapping, index);
	bool ok;

	if (IS_ERR(folio))
		return false;
	/* The page's own first word, inside a large folio too. */
	ok = folio_test_uptodate(folio) &&
	     *(uint64_t *)((char *)folio_address(folio) +
			   ((index - folio->index) << UPC_PAGE_SHIFT)) ==
	     vm_pattern(index);
	folio_put(folio);
	return ok;
}

/*
 * Missing pages in runs of at most READAHEAD_MAX_RUN; cached pages split
 * runs.
 */
static void test_ra_unbounded_runs(void **state)
{
	const pgoff_t nr = READAHEAD_MAX_RUN + 44;
	struct vm_fixture f;
	struct vm_store st;
	pgoff_t i;

	(void)state;
	ra_setup(&f, &st, true);
	assert_int_equal(vm_read_word(&f.mapping, 10), vm_pattern(10));
	assert_int_equal(vm_read_word(&f.mapping, 20), vm_pattern(20));
	st.reads = 0;
	page_cache_ra_unbounded(&f.mapping, 0, nr);
	/* [0, 9], [11, 19], then 21 on: a full run and the 23 left. */
	assert_int_equal(ra_calls, 4);
	assert_int_equal(ra_pages, nr - 2);
	assert_int_equal(ra_largest, READAHEAD_MAX_RUN);
	assert_int_equal(st.reads, nr - 2);
	for (i = 0; i < nr; i++)
		assert_true(page_read(&f.mapping, i));
	assert_false(page_read(&f.mapping, nr));
	/* All there: nothing more to read. */
	page_cache_ra_unbounded(&f.mapping, 0, nr);
	assert_int_equal(ra_calls, 4);
	ra_teardown(&f, &st);
}

/* Without a readahead hook, read_folio reads each page. */
static void test_ra_unbounded_read_folio(void **state)
{
	struct vm_fixture f;
	struct vm_store st;
	pgoff_t i;

	(void)state;
	ra_setup(&f, &st, false);
	page_cache_ra_unbounded(&f.mapping, 40, 20);
	assert_int_equal(st.reads, 20);
	for (i = 40; i < 60; i++)
		assert_true(page_read(&f.mapping, i));
	ra_teardown(&f, &st);
}

/* A failed request leaves the folios for the reader's own read. */
static void test_ra_failure_left_to_reader(void **state)
{
	struct vm_fixture f;
	struct vm_store st;

	(void)state;
	ra_setup(&f, &st, true);
	ra_fail = 1;
	page_cache_ra_unbounded(&f.mapping, 0, 8);
	assert_int_equal(ra_pages, 8);
	assert_false(page_read(&f.mapping, 3));
	assert_int_equal(vm_read_word(&f.mapping, 3), vm_pattern(3));
	ra_teardown(&f, &st);
}

/* Sequential misses double the window; a random miss reads its request. */
static void test_sync_ra_window(void **state)
{
	struct file_ra_state ra = { 0 };
	struct vm_fixture f;
	struct vm_store st;

	(void)state;
	ra_setup(&f, &st, true);
	sync_ra(&f.mapping, &ra, 0, 1);
	assert_int_equal(ra_pages, 4);
	assert_int_equal(ra.next, 4);
	/* The request's page now, the rest by a worker, marked. */
	assert_int_equal(ra.mark, 1);
	assert_true(ra_marked(&f.mapping, 1));
	assert_false(ra_marked(&f.mapping, 0));
	assert_false(ra_marked(&f.mapping, 2));
	sync_ra(&f.mapping, &ra, 4, 1);
	assert_int_equal(ra_pages, 4 + 8);
	sync_ra(&f.mapping, &ra, 12, 1);
	assert_int_equal(ra_pages, 12 + 16);
	assert_int_equal(ra.next, 28);
	/* Random: just what was asked, and the stream is forgotten. */
	ra_pages = 0;
	sync_ra(&f.mapping, &ra, 300, 3);
	assert_int_equal(ra_pages, 3);
	assert_int_equal(ra.size, 0);
	/* Its end starts a stream again: 4 times the request. */
	sync_ra(&f.mapping, &ra, 303, 2);
	assert_int_equal(ra_pages, 3 + 8);
	ra_teardown(&f, &st);
}

/* The window stops growing at 128 pages and at the end of the file. */
static void test_sync_ra_limits(void **state)
{
	/* 4, 8, ... 128, 128, 128; then the 4 pages left of the 512. */
	static const unsigned long want[] = {
		4, 8, 16, 32, 64, 128, 128, 128, 4,
	};
	struct file_ra_state ra = { 0 };
	struct vm_fixture f;
	struct vm_store st;
	pgoff_t index = 0;
	int i;

	(void)state;
	ra_setup(&f, &st, true);
	for (i = 0; i < 9; i++) {
		unsigned long before = ra_pages;

		sync_ra(&f.mapping, &ra, index, 1);
		assert_int_equal(ra_pages - before, want[i]);
		index = ra.next;
	}
	assert_int_equal(ra_pages, FILE_PAGES);
	assert_int_equal(index, FILE_PAGES);
	/* Past the end: nothing. */
	sync_ra(&f.mapping, &ra, FILE_PAGES, 4);
	assert_int_equal(ra_pages, FILE_PAGES);
	/*
	 * A request larger than the cap gets the cap, and the next window
	 * goes to the workers at once, its first folio marked.
	 */
	truncate_inode_pages(&f.mapping, 0);
	ra_pages = 0;
	sync_ra(&f.mapping, &ra, 0, 200);
	assert_int_equal(ra_pages, 256);
	assert_int_equal(ra.next, 256);
	assert_int_equal(ra.mark, 128);
	assert_true(ra_marked(&f.mapping, 128));
	/* A stream starting again at 0 starts small, whatever came before. */
	truncate_inode_pages(&f.mapping, 0);
	ra_pages = 0;
	sync_ra(&f.mapping, &ra, 0, 1);
	assert_int_equal(ra_pages, 4);
	ra_teardown(&f, &st);
}

/* In a 2 MiB cache (512 pages) the window is an eighth of it. */
static void test_sync_ra_small_cache(void **state)
{
	struct file_ra_state ra = { 0 };
	struct vm_fixture f;
	struct vm_store st;

	(void)state;
	vm_store_setup(&f, &st, 8, 512, FILE_PAGES, false);
	f.mapping.a_ops = &ra_aops;
	f.mapping.flags |= 1UL << AS_ASYNC_READAHEAD;
	f.mapping.size = (int64_t)FILE_PAGES << UPC_PAGE_SHIFT;
	ra_calls = ra_pages = ra_largest = 0;
	ra_test_thread = pthread_self();
	/* The cap now, and the next window of the cap by the workers. */
	sync_ra(&f.mapping, &ra, 0, 100);
	assert_int_equal(ra_pages, 128);
	assert_int_equal(ra.next, 128);
	/* A random read of more than the cap: the cap. */
	sync_ra(&f.mapping, &ra, 300, 100);
	assert_int_equal(ra_pages, 192);
	ra_teardown(&f, &st);
}

/*
 * A request read alone (not a stream) may take up to READAHEAD_MAX_RUN
 * pages, twice a stream's window, in one call of the hook, where the
 * cache is large enough (an eighth of it).
 */
static void test_sync_ra_request_cap(void **state)
{
	struct file_ra_state ra = { 0 };
	struct vm_fixture f;
	struct vm_store st;

	(void)state;
	vm_store_setup(&f, &st, 8, 8 * READAHEAD_MAX_RUN, FILE_PAGES, false);
	f.mapping.a_ops = &ra_aops;
	f.mapping.size = (int64_t)FILE_PAGES << UPC_PAGE_SHIFT;
	ra_calls = ra_pages = ra_largest = 0;
	ra_test_thread = pthread_self();
	sync_ra(&f.mapping, &ra, 100, READAHEAD_MAX_RUN + 50);
	assert_int_equal(ra_pages, READAHEAD_MAX_RUN);
	assert_int_equal(ra_calls, 1);
	assert_int_equal(ra.next, 100 + READAHEAD_MAX_RUN);
	assert_int_equal(ra.size, 0);	/* not a stream */
	/* A stream's window stays at 128 pages, whatever the request. */
	truncate_inode_pages(&f.mapping, 0);
	ra_pages = 0;
	sync_ra(&f.mapping, &ra, 0, READAHEAD_MAX_RUN + 50);
	assert_int_equal(ra_pages, 128);
	assert_int_equal(ra.size, 128);
	ra_teardown(&f, &st);
}

/* The order of the folio caching page @index (-1: none). */
static int cached_order(struct address_space *mapping, pgoff_t index)
{
	struct folio *folio = filemap_get_folio(mapping, index);
	int order;

	if (IS_ERR(folio))
		return -1;
	order = (int)folio_order(folio);
	folio_put(folio);
	return order;
}

/*
 * Where the mapping caches large folios, a stream's windows are read
 * into folios of order 0, 2, 4 ... (never larger than the window), each
 * aligned to its size and inside its window; every page holds the
 * store's data.  A random miss stays at order 0.
 */
static void test_sync_ra_large_folios(void **state)
{
	/* Page -> the order of its folio after the six windows below. */
	static const struct { pgoff_t index; int order; } want[] = {
		{ 0, 0 }, { 3, 0 },				/* [0, 4) */
		{ 4, 2 }, { 8, 2 },				/* [4, 12) */
		{ 12, 2 }, { 16, 3 }, { 24, 2 },		/* [12, 28) */
		{ 28, 2 }, { 32, 4 }, { 48, 3 }, { 56, 2 },	/* [28, 60) */
		{ 60, 2 }, { 64, 5 }, { 96, 4 }, { 120, 2 },	/* [60, 124) */
		{ 124, 2 }, { 128, 6 }, { 192, 5 }, { 248, 2 },	/* to 252 */
	};
	struct file_ra_state ra = { 0 };
	struct vm_fixture f;
	struct vm_store st;
	pgoff_t index = 0;
	unsigned int i;

	(void)state;
	ra_setup(&f, &st, true);
	f.mapping.flags |= 1UL << AS_LARGE_FOLIOS;
	for (i = 0; i < 6; i++) {
		sync_ra(&f.mapping, &ra, index, 1);
		index = ra.next;
	}
	/* Windows of 4, 8, 16, 32, 64 and 128 pages. */
	assert_int_equal(index, 252);
	assert_int_equal(ra_pages, 252);
	assert_int_equal(ra.order, 7);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_int_equal(cached_order(&f.mapping, want[i].index),
				 want[i].order);
	for (i = 0; i < 252; i++)
		if (!page_read(&f.mapping, i))
			fail_msg("page %u", i);
	assert_int_equal(cached_order(&f.mapping, 252), -1);
	/* A random miss: its pages only, order 0. */
	sync_ra(&f.mapping, &ra, 384, 64);
	assert_int_equal(cached_order(&f.mapping, 384), 0);
	assert_int_equal(ra.order, 0);
	ra_teardown(&f, &st);
}

/* A large folio whose range holds a cached page: single pages there. */
static void test_ra_large_folio_meets_cached_page(void **state)
{
	struct file_ra_state ra = { .next = 64, .size = 64, .order = 4 };
	struct vm_fixture f;
	struct vm_store st;
	pgoff_t i;

	(void)state;
	ra_setup(&f, &st, true);
	f.mapping.flags |= 1UL << AS_LARGE_FOLIOS;
	/* Page 70 cached alone; the window [64, 192) of order 6 meets it. */
	assert_int_equal(vm_read_word(&f.mapping, 70), vm_pattern(70));
	sync_ra(&f.mapping, &ra, 64, 1);
	assert_int_equal(ra.order, 6);
	assert_int_equal(cached_order(&f.mapping, 64), 0);
	assert_int_equal(cached_order(&f.mapping, 69), 0);
	assert_int_equal(cached_order(&f.mapping, 70), 0);
	/* Past it, aligned again: large. */
	assert_int_equal(cached_order(&f.mapping, 128), 6);
	for (i = 64; i < 192; i++)
		if (!page_read(&f.mapping, i))
			fail_msg("page %lu", i);
	ra_teardown(&f, &st);
}

/*
 * A stream's window: the request's pages are read on the caller's
 * thread before page_cache_sync_ra() returns, the rest on a worker.
 */
static void test_sync_ra_request_first(void **state)
{
	struct file_ra_state ra = { 0 };
	struct vm_fixture f;
	struct vm_store st;
	pgoff_t i;

	(void)state;
	ra_setup(&f, &st, true);
	page_cache_sync_ra(&f.mapping, &ra, 0, 2);
	/* No flush yet: the request is there, uptodate. */
	assert_true(page_read(&f.mapping, 0));
	assert_true(page_read(&f.mapping, 1));
	readahead_flush();
	for (i = 0; i < 8; i++)
		assert_true(page_read(&f.mapping, i));
	assert_false(page_read(&f.mapping, 8));
	/* [0, 2) here, [2, 8) there. */
	assert_int_equal(RA_GET(ra_calls), 2);
	assert_int_equal(RA_GET(ra_async_calls), 1);
	assert_int_equal(ra.mark, 2);
	assert_true(ra_marked(&f.mapping, 2));
	ra_teardown(&f, &st);
}

/*
 * Without AS_ASYNC_READAHEAD the whole window is read on the caller's
 * thread before page_cache_sync_ra() returns, nothing is marked, and a
 * request that takes the window sends nothing further.
 */
static void test_sync_ra_without_async(void **state)
{
	struct file_ra_state ra = { 0 };
	struct vm_fixture f;
	struct vm_store st;
	pgoff_t i;

	(void)state;
	ra_setup(&f, &st, true);
	f.mapping.flags &= ~(1UL << AS_ASYNC_READAHEAD);
	page_cache_sync_ra(&f.mapping, &ra, 0, 2);
	for (i = 0; i < 8; i++)
		assert_true(page_read(&f.mapping, i));
	assert_int_equal(RA_GET(ra_calls), 1);
	assert_int_equal(RA_GET(ra_async_calls), 0);
	for (i = 0; i < 8; i++)
		assert_false(ra_marked(&f.mapping, i));
	page_cache_sync_ra(&f.mapping, &ra, 8, 1);
	assert_int_equal(ra_pages, 24);
	/* The cap, and nothing past it. */
	page_cache_sync_ra(&f.mapping, &ra, 24, 400);
	assert_int_equal(ra_pages, 24 + 128);
	assert_int_equal(ra.next, 152);
	assert_int_equal(RA_GET(ra_async_calls), 0);
	ra_teardown(&f, &st);
}

/*
 * Meeting the mark sends the next window, twice as large, to the
 * workers and moves the mark to its first folio; a folio met again, or
 * a mark the state did not set, reads nothing.  A reader that meets
 * each mark stays a window ahead to the end of the file, every window
 * read off its own thread.
 */
static void test_async_ra_chain(void **state)
{
	struct file_ra_state ra = { 0 };
	struct vm_fixture f;
	struct vm_store st;
	struct folio *folio;
	unsigned long windows = 0;
	pgoff_t i;

	(void)state;
	ra_setup(&f, &st, true);
	sync_ra(&f.mapping, &ra, 0, 1);
	folio = filemap_get_folio(&f.mapping, 1);
	assert_false(IS_ERR(folio));
	page_cache_async_ra(&f.mapping, &ra, folio);
	readahead_flush();
	assert_false(folio_test_readahead(folio));
	assert_int_equal(ra_pages, 4 + 8);
	assert_int_equal(ra.next, 12);
	assert_int_equal(ra.size, 8);
	assert_int_equal(ra.mark, 4);
	assert_true(ra_marked(&f.mapping, 4));
	/* Met again: its mark is gone, nothing more. */
	page_cache_async_ra(&f.mapping, &ra, folio);
	readahead_flush();
	assert_int_equal(ra_pages, 12);
	folio_put(folio);
	/* A mark at another index is dropped, and reads nothing. */
	folio = filemap_get_folio(&f.mapping, 2);
	assert_false(IS_ERR(folio));
	folio_set_readahead(folio);
	page_cache_async_ra(&f.mapping, &ra, folio);
	readahead_flush();
	assert_false(folio_test_readahead(folio));
	assert_int_equal(ra_pages, 12);
	assert_int_equal(ra.mark, 4);
	folio_put(folio);
	/* Follow the marks: 16, 32, 64, 128, 128, 128 and the rest, 4. */
	ra_async_calls = ra_calls = 0;
	while (ra.next < FILE_PAGES) {
		folio = filemap_get_folio(&f.mapping, ra.mark);
		assert_false(IS_ERR(folio));
		page_cache_async_ra(&f.mapping, &ra, folio);
		readahead_flush();
		folio_put(folio);
		windows++;
	}
	assert_int_equal(windows, 7);
	assert_int_equal(ra_pages, FILE_PAGES);
	/* Each window one run. */
	assert_int_equal(RA_GET(ra_calls), 7);
	assert_int_equal(RA_GET(ra_async_calls), 7);
	for (i = 0; i < FILE_PAGES; i++)
		if (!page_read(&f.mapping, i))
			fail_msg("page %lu", i);
	/* The last mark, at the end of the file: nothing past it. */
	folio = filemap_get_folio(&f.mapping, ra.mark);
	page_cache_async_ra(&f.mapping, &ra, folio);
	readahead_flush();
	folio_put(folio);
	assert_int_equal(ra_pages, FILE_PAGES);
	ra_teardown(&f, &st);
}

/*
 * Every allocation of a window failed in turn (folios, tree nodes, the
 * worker's request, the worker thread): whatever readahead leaves is
 * uptodate with the store's data or not cached, nothing stays locked,
 * and the reader's own read gets every page.
 */
static void test_ra_fault_injection(void **state)
{
	unsigned long n;
	bool injected = true;

	(void)state;
	for (n = 1; injected; n++) {
		struct file_ra_state ra = { 0 };
		struct vm_fixture f;
		struct vm_store st;
		pgoff_t i;

		ra_setup(&f, &st, true);
		upc_fault_fail_nth(n);
		page_cache_sync_ra(&f.mapping, &ra, 0, 3);
		readahead_flush();
		injected = upc_fault_injected();
		upc_fault_fail_nth(0);
		for (i = 0; i < 12; i++) {
			struct folio *folio = filemap_get_folio(&f.mapping, i);

			if (IS_ERR(folio))
				continue;
			assert_false(folio_test_locked(folio));
			assert_true(folio_test_uptodate(folio));
			folio_put(folio);
			assert_true(page_read(&f.mapping, i));
		}
		for (i = 0; i < 12; i++)
			assert_int_equal(vm_read_word(&f.mapping, i),
					 vm_pattern(i));
		ra_teardown(&f, &st);
	}
	assert_true(n > 5);
}

/*
 * ra_child_fault() - In a forked child, fail allocation attempt @n of a
 * sync window and its async one, and check what is left: no I/O still
 * counted under way (a run the workers could not take is read here and
 * counted once), no folio locked, every cached page read.  No cmocka
 * asserts here: the child reports through its exit status.
 * Return: 0 if the attempt failed and all was well, 1 if there was no
 * @n-th attempt, 2 and more for what went wrong.
 */
static int ra_child_fault(struct address_space *mapping, unsigned long n)
{
	struct file_ra_state ra = { 0 };
	bool injected;
	pgoff_t i;

	upc_fault_fail_nth(n);
	page_cache_sync_ra(mapping, &ra, 0, 3);
	readahead_flush();
	injected = upc_fault_injected();
	upc_fault_fail_nth(0);
	if (__atomic_load_n(&arena_lruvec(mapping->arena)->nr_io,
			    __ATOMIC_SEQ_CST))
		return 2;
	for (i = 0; i < 12; i++) {
		struct folio *folio = filemap_get_folio(mapping, i);
		bool locked;

		if (IS_ERR(folio))
			continue;
		locked = folio_test_locked(folio);
		folio_put(folio);
		if (locked)
			return 3;
		if (!page_read(mapping, i))
			return 4;
	}
	if (RA_GET(ra_bad))
		return 5;
	return injected ? 0 : 1;
}

/*
 * The same faults in a fresh child: its pool has no worker yet, so a
 * failure to start one makes queue_work() refuse the async run, which
 * the parent's running workers never do.
 */
static void test_ra_fault_injection_no_workers(void **state)
{
	unsigned long n;
	int status = 0;

	(void)state;
	for (n = 1; !WIFEXITED(status) || WEXITSTATUS(status) != 1; n++) {
		struct vm_fixture f;
		struct vm_store st;
		pid_t pid;

		ra_setup(&f, &st, true);
		pid = fork();
		assert_true(pid >= 0);
		if (!pid)
			_exit(ra_child_fault(&f.mapping, n));
		assert_int_equal(waitpid(pid, &status, 0), pid);
		if (!WIFEXITED(status) || WEXITSTATUS(status) > 1)
			fail_msg("attempt %lu: child status %#x", n, status);
		ra_teardown(&f, &st);
	}
	assert_true(n > 5);
}

/*
 * A request that takes a stream's whole window exactly (not only one
 * larger than it) reads the window now and sends the next one, twice
 * as large, to the workers, its first folio marked.
 */
static void test_sync_ra_request_equals_window(void **state)
{
	struct file_ra_state ra = { 0 };
	struct vm_fixture f;
	struct vm_store st;

	(void)state;
	ra_setup(&f, &st, true);
	sync_ra(&f.mapping, &ra, 0, 1);
	assert_int_equal(ra.next, 4);
	/* The window doubles to 8 pages, all of them asked for. */
	sync_ra(&f.mapping, &ra, 4, 8);
	assert_int_equal(ra_pages, 4 + 8 + 16);
	assert_int_equal(ra.next, 28);
	assert_int_equal(ra.size, 16);
	assert_int_equal(ra.mark, 12);
	assert_true(ra_marked(&f.mapping, 12));
	ra_teardown(&f, &st);
}

/*
 * Where the page the mark was meant for is cached already, the first
 * folio added after it takes the mark, and the state records that one.
 */
static void test_ra_mark_past_cached_page(void **state)
{
	struct file_ra_state ra = { 0 };
	struct vm_fixture f;
	struct vm_store st;

	(void)state;
	ra_setup(&f, &st, true);
	assert_int_equal(vm_read_word(&f.mapping, 1), vm_pattern(1));
	sync_ra(&f.mapping, &ra, 0, 1);
	assert_int_equal(ra_pages, 3);
	assert_false(ra_marked(&f.mapping, 1));
	assert_true(ra_marked(&f.mapping, 2));
	assert_int_equal(ra.mark, 2);
	ra_teardown(&f, &st);
}

/*
 * The window the mark sends out is read into folios two orders larger
 * than the last window's, as a sync window that continues a stream is.
 */
static void test_async_ra_large_folios(void **state)
{
	struct file_ra_state ra = { 0 };
	struct vm_fixture f;
	struct vm_store st;
	struct folio *folio;

	(void)state;
	ra_setup(&f, &st, true);
	f.mapping.flags |= 1UL << AS_LARGE_FOLIOS;
	sync_ra(&f.mapping, &ra, 0, 1);
	assert_int_equal(ra.order, 0);
	folio = filemap_get_folio(&f.mapping, ra.mark);
	assert_false(IS_ERR(folio));
	page_cache_async_ra(&f.mapping, &ra, folio);
	readahead_flush();
	folio_put(folio);
	/* [4, 12): two folios of order 2. */
	assert_int_equal(ra.next, 12);
	assert_int_equal(ra.order, 2);
	assert_int_equal(cached_order(&f.mapping, 4), 2);
	assert_int_equal(cached_order(&f.mapping, 8), 2);
	assert_true(page_read(&f.mapping, 11));
	ra_teardown(&f, &st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ra_unbounded_runs),
		cmocka_unit_test(test_ra_unbounded_read_folio),
		cmocka_unit_test(test_ra_failure_left_to_reader),
		cmocka_unit_test(test_sync_ra_window),
		cmocka_unit_test(test_sync_ra_limits),
		cmocka_unit_test(test_sync_ra_small_cache),
		cmocka_unit_test(test_sync_ra_request_cap),
		cmocka_unit_test(test_sync_ra_large_folios),
		cmocka_unit_test(test_ra_large_folio_meets_cached_page),
		cmocka_unit_test(test_sync_ra_request_first),
		cmocka_unit_test(test_sync_ra_without_async),
		cmocka_unit_test(test_async_ra_chain),
		cmocka_unit_test(test_ra_fault_injection),
		cmocka_unit_test(test_ra_fault_injection_no_workers),
		cmocka_unit_test(test_sync_ra_request_equals_window),
		cmocka_unit_test(test_ra_mark_past_cached_page),
		cmocka_unit_test(test_async_ra_large_folios),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
