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
 * it once, whether the pass or reclaim met it.  filemap_flush(), the
 * background pass, leaves folios others hold locked and writes each
 * stretch of neighbours on its own.
 */
#include <pthread.h>
#include <sched.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vmscan_helpers.h"
#include "mm/writeback.h"

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

typedef void (*runs_hook_t)(struct address_space *, struct folio **,
			    unsigned int, int *);

/* Give @f's mapping @hook as writeback_folios, in the test's @aops. */
static void set_runs_hook(struct vm_fixture *f,
			  struct address_space_operations *aops,
			  runs_hook_t hook)
{
	*aops = *f->mapping.a_ops;
	aops->writeback_folios = hook;
	f->mapping.a_ops = aops;
}

/* The runs of folios handed to the hook, for flush_hook(). */
static unsigned int flush_runs[16], flush_nr_runs;

/* a_ops->writeback_folios that notes each run, then writes its folios. */
static void flush_hook(struct address_space *mapping, struct folio **folios,
		       unsigned int nr, int *errs)
{
	unsigned int i;

	assert_true(flush_nr_runs < 16);
	flush_runs[flush_nr_runs++] = nr;
	for (i = 0; i < nr; i++)
		errs[i] = vm_store_writeback_folio(mapping, folios[i]);
}

/*
 * filemap_flush(): pages 0-9, 20-29 and 40 dirty, page 25 locked by this
 * thread.  It is left dirty, not waited for; each stretch goes to the
 * hook alone (0-9, 20-24, 26-29, 40), and comes out clean.
 */
static void test_flush_stretches_skips_locked(void **state)
{
	static const unsigned int want[] = { 10, 5, 4, 1 };
	struct address_space_operations aops;
	struct folio *held;
	struct vm_fixture f;
	struct vm_store st;
	unsigned long budget;
	pgoff_t i, index;
	unsigned int k;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, true);
	set_runs_hook(&f, &aops, flush_hook);
	for (i = 0; i <= 40; i++)
		if (i < 10 || (i >= 20 && i < 30) || i == 40)
			vm_write_stamp(&f.mapping, i, ~i);
	held = filemap_get_folio(&f.mapping, 25);
	assert_false(IS_ERR(held));
	folio_lock(held);
	flush_nr_runs = 0;
	index = 0;
	budget = FILE_PAGES;
	assert_int_equal(filemap_flush(&f.mapping, &index, &budget), 0);
	assert_int_equal(index, 0);
	assert_int_equal(budget, FILE_PAGES - 20);
	assert_int_equal(flush_nr_runs, 4);
	for (k = 0; k < 4; k++)
		assert_int_equal(flush_runs[k], want[k]);
	assert_int_equal(st.writes, 20);
	assert_true(page_dirty(&f.mapping, 25));
	assert_true(store_word(&st, 25) == vm_pattern(25));
	for (i = 0; i <= 40; i++)
		if (i != 25 && (i < 10 || (i >= 20 && i < 30) || i == 40)) {
			assert_false(page_dirty(&f.mapping, i));
			assert_true(store_word(&st, i) == ~i);
		}
	folio_unlock(held);
	folio_put(held);
	/* The sync pass then writes it: the only dirty folio left. */
	flush_nr_runs = 0;
	assert_int_equal(filemap_fdatawrite_range(&f.mapping, 0, INT64_MAX),
			 0);
	assert_int_equal(flush_nr_runs, 1);
	assert_false(page_dirty(&f.mapping, 25));
	assert_true(store_word(&st, 25) == ~(pgoff_t)25);
	vm_store_teardown(&f, &st);
}

/*
 * filemap_flush() takes no more than it is given: 100 dirty pages, 30
 * at first (the pass stops after page 29 and says to go on from 30),
 * then the rest from there, the pass reaching the end (index 0).
 */
static void test_flush_budget(void **state)
{
	unsigned long budget = 30;
	struct vm_fixture f;
	struct vm_store st;
	pgoff_t i, index = 0;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, true);
	for (i = 0; i < 100; i++)
		vm_write_stamp(&f.mapping, i, ~i);
	assert_int_equal(filemap_flush(&f.mapping, &index, &budget), 0);
	assert_int_equal(budget, 0);
	assert_int_equal(index, 30);
	assert_int_equal(st.writes, 30);
	for (i = 0; i < 100; i++)
		assert_int_equal(page_dirty(&f.mapping, i), i >= 30);
	budget = 100;
	assert_int_equal(filemap_flush(&f.mapping, &index, &budget), 0);
	assert_int_equal(budget, 30);
	assert_int_equal(index, 0);
	assert_int_equal(st.writes, 100);
	for (i = 0; i < 100; i++)
		assert_false(page_dirty(&f.mapping, i));
	vm_store_teardown(&f, &st);
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

/*
 * A range's last byte decides its last page: a range ending on the first
 * byte of page 16 writes page 16, and a range of one byte, the last of
 * page 19, writes page 19 alone.
 */
static void test_fdatawrite_range_last_byte(void **state)
{
	struct vm_fixture f;
	struct vm_store st;
	pgoff_t i;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, true);
	for (i = 0; i < 32; i++)
		vm_write_stamp(&f.mapping, i, ~i);
	assert_int_equal(filemap_fdatawrite_range(&f.mapping,
						  8 * UPC_PAGE_SIZE,
						  16 * UPC_PAGE_SIZE), 0);
	assert_int_equal(st.writes, 9);
	assert_false(page_dirty(&f.mapping, 16));
	assert_true(store_word(&st, 16) == ~(pgoff_t)16);
	assert_true(page_dirty(&f.mapping, 17));
	assert_int_equal(filemap_fdatawrite_range(&f.mapping,
						  20 * UPC_PAGE_SIZE - 1,
						  20 * UPC_PAGE_SIZE - 1), 0);
	assert_int_equal(st.writes, 10);
	assert_false(page_dirty(&f.mapping, 19));
	assert_true(store_word(&st, 19) == ~(pgoff_t)19);
	assert_true(page_dirty(&f.mapping, 18));
	assert_true(page_dirty(&f.mapping, 20));
	vm_store_teardown(&f, &st);
}

/*
 * The pass returns the hook's error whichever hand-over met it: 300
 * dirty folios go to the hook as a full run of WRITEBACK_MAX_RUN, then
 * the rest at the end; a failure in the first run, then one in the
 * last, is the pass's answer each time (and not only the mapping's,
 * which the pass's caller may not look at).
 */
static void test_fdatawrite_range_returns_error(void **state)
{
	static const long fail_at[] = { 5, 290 };
	struct vm_fixture f;
	struct vm_store st;
	unsigned int k;
	pgoff_t i;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, 2 * WRITEBACK_MAX_RUN, true);
	for (k = 0; k < 2; k++) {
		for (i = 0; i < 300; i++)
			vm_write_stamp(&f.mapping, i, ~i + k);
		st.fail_write_index = fail_at[k];
		assert_int_equal(filemap_fdatawrite_range(&f.mapping, 0,
							  INT64_MAX), -EIO);
		for (i = 0; i < 300; i++)
			assert_int_equal(page_dirty(&f.mapping, i),
					 (long)i == fail_at[k]);
		st.fail_write_index = -1;
		assert_int_equal(filemap_fdatawrite_range(&f.mapping, 0,
							  INT64_MAX), 0);
		assert_true(store_word(&st, (pgoff_t)fail_at[k]) ==
			    ~(pgoff_t)fail_at[k] + k);
	}
	vm_store_teardown(&f, &st);
}

/*
 * A sync pass over the whole of @mapping on a thread of its own:
 * filemap_write_and_wait_range() with @wait, else
 * filemap_fdatawrite_range(); @ret gets its answer.
 */
struct pass_thread {
	struct address_space *mapping;
	bool wait;
	int ret;
	pthread_t tid;
};

static void *pass_thread_fn(void *arg)
{
	struct pass_thread *pt = arg;

	pt->ret = pt->wait ?
		  filemap_write_and_wait_range(pt->mapping, 0, INT64_MAX) :
		  filemap_fdatawrite_range(pt->mapping, 0, INT64_MAX);
	return NULL;
}

/* Wait until a thread sleeps on @folio: PG_waiters, ten seconds at most. */
static void wait_for_sleeper(struct folio *folio)
{
	struct timespec tick = { 0, 1000000 };
	int n;

	for (n = 0; n < 10000 && !folio_test_flag(folio, PG_waiters); n++)
		nanosleep(&tick, NULL);
	assert_true(folio_test_flag(folio, PG_waiters));
}

/*
 * Start the pass, then wait until it sleeps on @folio, which the test
 * holds locked or under writeback: PG_waiters set (nobody else waits on
 * it), ten seconds at most.
 */
static void pass_start_until_asleep(struct pass_thread *pt,
				    struct folio *folio)
{
	assert_int_equal(pthread_create(&pt->tid, NULL, pass_thread_fn, pt),
			 0);
	wait_for_sleeper(folio);
}

/*
 * A sync pass that meets a folio another thread holds locked first
 * writes the folios it holds (so as not to sleep holding them), and a
 * failure among those is still the pass's answer.  Pages 0-20 dirty,
 * page 5 failing, page 10 locked by the test until the pass sleeps on it
 * (PG_waiters: nobody else waits for it): pages 0-9 go before the wait,
 * 10-20 after, and the pass returns page 5's -EIO.
 */
static void test_sync_pass_error_before_locked_folio(void **state)
{
	struct pass_thread pt = { 0 };
	struct folio *held;
	struct vm_fixture f;
	struct vm_store st;
	pgoff_t i;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, true);
	for (i = 0; i <= 20; i++)
		vm_write_stamp(&f.mapping, i, ~i);
	held = filemap_get_folio(&f.mapping, 10);
	assert_false(IS_ERR(held));
	folio_lock(held);
	st.fail_write_index = 5;
	pt.mapping = &f.mapping;
	pass_start_until_asleep(&pt, held);
	/* The pass wrote what it held before it slept. */
	assert_int_equal(__atomic_load_n(&st.writes, __ATOMIC_RELAXED), 9);
	folio_unlock(held);
	folio_put(held);
	assert_int_equal(pthread_join(pt.tid, NULL), 0);
	assert_int_equal(pt.ret, -EIO);
	assert_int_equal(st.writes, 20);
	for (i = 0; i <= 20; i++)
		assert_int_equal(page_dirty(&f.mapping, i), i == 5);
	st.fail_write_index = -1;
	assert_int_equal(filemap_fdatawrite_range(&f.mapping, 0, INT64_MAX), 0);
	assert_true(store_word(&st, 5) == ~(pgoff_t)5);
	vm_store_teardown(&f, &st);
}

/*
 * filemap_flush() writes a stretch when the next dirty folio does not
 * follow it; a failure in that stretch is the pass's answer, as one in
 * the last stretch is.  Pages 0-4 and 10 dirty, page 2 failing.
 */
static void test_flush_reports_stretch_error(void **state)
{
	unsigned long budget = FILE_PAGES;
	struct vm_fixture f;
	struct vm_store st;
	pgoff_t i, index = 0;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, true);
	for (i = 0; i < 5; i++)
		vm_write_stamp(&f.mapping, i, ~i);
	vm_write_stamp(&f.mapping, 10, ~(pgoff_t)10);
	st.fail_write_index = 2;
	assert_int_equal(filemap_flush(&f.mapping, &index, &budget), -EIO);
	assert_int_equal(st.writes, 5);
	assert_true(page_dirty(&f.mapping, 2));
	assert_false(page_dirty(&f.mapping, 10));
	st.fail_write_index = -1;
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

/*
 * A writeback hook that holds reclaim inside its write of page
 * GATE_INDEX until the test opens the gate, failing that write (only)
 * if @gate_fail.
 */
#define GATE_INDEX	7
static int gate_entered, gate_open, gate_fail;

static int gated_writeback(struct address_space *mapping, struct folio *folio)
{
	if (folio->index == GATE_INDEX) {
		__atomic_store_n(&gate_entered, 1, __ATOMIC_RELEASE);
		while (!__atomic_load_n(&gate_open, __ATOMIC_ACQUIRE))
			sched_yield();
		/* Once: reclaim may try the folio again in the same call. */
		if (__atomic_exchange_n(&gate_fail, 0, __ATOMIC_ACQ_REL))
			return -EIO;
	}
	return vm_store_writeback_folio(mapping, folio);
}

static const struct address_space_operations gated_aops = {
	.read_folio = vm_store_read_folio,
	.writeback_folio = gated_writeback,
};

static void *gate_reclaim(void *arg)
{
	struct vm_fixture *f = arg;

	upc_reclaim_pages(f->arena, LIMIT);
	return NULL;
}

struct gate_sync {
	struct address_space *mapping;
	errseq_t since;
	int ret;
	int done;
};

static void *gate_fsync(void *arg)
{
	struct gate_sync *gs = arg;

	gs->ret = file_write_and_wait_range(gs->mapping, &gs->since, 0,
					    INT64_MAX);
	__atomic_store_n(&gs->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * fsync while reclaim is writing a folio back (its dirty bit already
 * cleared): fsync must wait for that write and report its failure.
 * Correct code never returns before the gate opens, so waiting 200 ms
 * for it to finish is a check that cannot fail by timing; the old code
 * returned at once.
 */
static void gated_fsync_case(bool fail)
{
	struct timespec tick = { 0, 1000000 };
	struct gate_sync gs = { 0 };
	pthread_t reclaimer, syncer;
	struct vm_fixture f;
	struct vm_store st;
	int i;

	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, true);
	f.mapping.a_ops = &gated_aops;
	gate_entered = gate_open = 0;
	gate_fail = fail;
	gs.mapping = &f.mapping;
	gs.since = errseq_sample(&f.mapping.wb_err);
	vm_write_stamp(&f.mapping, GATE_INDEX, 77);
	assert_int_equal(pthread_create(&reclaimer, NULL, gate_reclaim, &f), 0);
	while (!__atomic_load_n(&gate_entered, __ATOMIC_ACQUIRE))
		sched_yield();
	assert_int_equal(pthread_create(&syncer, NULL, gate_fsync, &gs), 0);
	for (i = 0; i < 200 && !__atomic_load_n(&gs.done, __ATOMIC_ACQUIRE);
	     i++)
		nanosleep(&tick, NULL);
	assert_false(__atomic_load_n(&gs.done, __ATOMIC_ACQUIRE));
	__atomic_store_n(&gate_open, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(syncer, NULL), 0);
	assert_int_equal(pthread_join(reclaimer, NULL), 0);
	assert_int_equal(gs.ret, fail ? -EIO : 0);
	if (!fail)
		assert_true(store_word(&st, GATE_INDEX) == 77);
	if (fail) {
		/* Its data stayed: the next pass (or reclaim again) writes it. */
		assert_int_equal(file_write_and_wait_range(&f.mapping,
							   &gs.since, 0,
							   INT64_MAX), 0);
		assert_true(store_word(&st, GATE_INDEX) == 77);
	}
	vm_store_teardown(&f, &st);
}

static void test_fsync_waits_for_reclaim_writeback(void **state)
{
	(void)state;
	gated_fsync_case(false);
}

static void test_fsync_reports_reclaim_writeback_failure(void **state)
{
	(void)state;
	gated_fsync_case(true);
}

/* A hook that fails every write of page GATE_INDEX while @refuse. */
static int refuse;

static int refusing_writeback(struct address_space *mapping,
			      struct folio *folio)
{
	if (folio->index == GATE_INDEX &&
	    __atomic_load_n(&refuse, __ATOMIC_ACQUIRE))
		return -ENOSPC;
	return vm_store_writeback_folio(mapping, folio);
}

static const struct address_space_operations refusing_aops = {
	.read_folio = vm_store_read_folio,
	.writeback_folio = refusing_writeback,
};

/*
 * The pass that punch and seek make (filemap_write_and_wait_range())
 * while reclaim writes a page back, and that write fails with the errno
 * the mapping already holds, unseen: the word stays as it was, and the
 * page left dirty must still be told with that error, -ENOSPC, not a
 * made-up -EIO.  The test plays reclaim on the locked folio: writeback
 * started, then, once the pass sleeps waiting for it (PG_waiters set:
 * nobody else waits on the folio), the failure as
 * writeback_write_folios() handles one.
 */
static void test_wait_reports_repeated_error(void **state)
{
	struct pass_thread pt = { .wait = true };
	struct folio *folio;
	struct vm_fixture f;
	struct vm_store st;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, true);
	f.mapping.a_ops = &refusing_aops;
	__atomic_store_n(&refuse, 1, __ATOMIC_RELEASE);
	vm_write_stamp(&f.mapping, GATE_INDEX, 78);
	mapping_set_error(&f.mapping, -ENOSPC);
	folio = __filemap_get_folio(&f.mapping, GATE_INDEX, FGP_LOCK, 0);
	assert_false(IS_ERR(folio));
	assert_true(folio_clear_dirty_start_writeback(folio));
	pt.mapping = &f.mapping;
	pass_start_until_asleep(&pt, folio);
	folio_mark_dirty(folio);
	mapping_set_error(&f.mapping, -ENOSPC);
	folio_end_writeback(folio);
	folio_unlock(folio);
	folio_put(folio);
	assert_int_equal(pthread_join(pt.tid, NULL), 0);
	assert_int_equal(pt.ret, -ENOSPC);
	assert_true(page_dirty(&f.mapping, GATE_INDEX));
	__atomic_store_n(&refuse, 0, __ATOMIC_RELEASE);
	assert_int_equal(filemap_write_and_wait_range(&f.mapping, 0,
						      INT64_MAX), 0);
	assert_true(store_word(&st, GATE_INDEX) == 78);
	vm_store_teardown(&f, &st);
}

/*
 * The pages fail_hook() fails, each with its own errno: (fail_index[k],
 * fail_err[k]) for k below fail_nr.
 */
static pgoff_t fail_index[3];
static int fail_err[3];
static unsigned int fail_nr;

/* a_ops->writeback_folios noting each run, failing the pages above. */
static void fail_hook(struct address_space *mapping, struct folio **folios,
		      unsigned int nr, int *errs)
{
	unsigned int i, k;

	assert_true(flush_nr_runs < 16);
	flush_runs[flush_nr_runs++] = nr;
	for (i = 0; i < nr; i++) {
		errs[i] = 0;
		for (k = 0; k < fail_nr; k++)
			if (folios[i]->index == fail_index[k])
				errs[i] = fail_err[k];
		if (!errs[i])
			errs[i] = vm_store_writeback_folio(mapping, folios[i]);
	}
}

/* fail_hook() fails page @a with -EIO and page @b with -ENOSPC. */
static void fail_two_pages(pgoff_t a, pgoff_t b)
{
	fail_nr = 2;
	fail_index[0] = a;
	fail_err[0] = -EIO;
	fail_index[1] = b;
	fail_err[1] = -ENOSPC;
}

/*
 * 300 dirty folios go to the hook as a run of WRITEBACK_MAX_RUN, then
 * the other 44; of two failures in a run, the pass returns the first
 * (the mapping keeps the last, as each is recorded).  Both folios stay
 * dirty.
 */
static void test_fdatawrite_range_runs_and_first_error(void **state)
{
	struct address_space_operations aops;
	struct vm_fixture f;
	struct vm_store st;
	errseq_t since;
	pgoff_t i;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, 2 * WRITEBACK_MAX_RUN, true);
	set_runs_hook(&f, &aops, fail_hook);
	fail_two_pages(3, 7);
	since = errseq_sample(&f.mapping.wb_err);
	for (i = 0; i < 300; i++)
		vm_write_stamp(&f.mapping, i, ~i);
	flush_nr_runs = 0;
	assert_int_equal(filemap_fdatawrite_range(&f.mapping, 0, INT64_MAX),
			 -EIO);
	assert_int_equal(flush_nr_runs, 2);
	assert_int_equal(flush_runs[0], WRITEBACK_MAX_RUN);
	assert_int_equal(flush_runs[1], 300 - WRITEBACK_MAX_RUN);
	assert_int_equal(st.writes, 298);
	for (i = 0; i < 300; i++)
		assert_int_equal(page_dirty(&f.mapping, i), i == 3 || i == 7);
	assert_int_equal(file_check_and_advance_wb_err(&f.mapping, &since),
			 -ENOSPC);
	fail_nr = 0;
	vm_store_teardown(&f, &st);
}

/*
 * fsync whose own pass meets two failures returns the first, as the
 * pass does, not the mapping's last; and reports it once: the
 * watcher's record moves past both.  Page 3 fails with -EIO, page 7
 * with -ENOSPC (fail_two_pages()).
 */
static void test_fsync_returns_pass_first_error(void **state)
{
	struct address_space_operations aops;
	struct vm_fixture f;
	struct vm_store st;
	errseq_t since;
	pgoff_t i;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, true);
	set_runs_hook(&f, &aops, fail_hook);
	fail_two_pages(3, 7);
	since = errseq_sample(&f.mapping.wb_err);
	for (i = 0; i < 10; i++)
		vm_write_stamp(&f.mapping, i, ~i);
	flush_nr_runs = 0;
	assert_int_equal(file_write_and_wait_range(&f.mapping, &since, 0,
						   INT64_MAX), -EIO);
	assert_int_equal(st.writes, 8);
	assert_int_equal(file_check_and_advance_wb_err(&f.mapping, &since), 0);
	fail_nr = 0;
	vm_store_teardown(&f, &st);
}

/*
 * A sync pass hands the hook two full runs of WRITEBACK_MAX_RUN, then
 * the 10 folios left at the end, and each run has a failure of its own
 * errno: the pass returns the first run's, not a later run's (the
 * mapping keeps the last, as each is recorded).
 */
static void test_fdatawrite_range_first_error_across_runs(void **state)
{
	const pgoff_t nr = 2 * WRITEBACK_MAX_RUN + 10;
	struct address_space_operations aops;
	struct vm_fixture f;
	struct vm_store st;
	errseq_t since;
	pgoff_t i;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, 3 * WRITEBACK_MAX_RUN, true);
	set_runs_hook(&f, &aops, fail_hook);
	fail_nr = 3;
	fail_index[0] = 3;
	fail_err[0] = -EIO;
	fail_index[1] = WRITEBACK_MAX_RUN + 3;
	fail_err[1] = -ENOSPC;
	fail_index[2] = 2 * WRITEBACK_MAX_RUN + 3;
	fail_err[2] = -EROFS;
	since = errseq_sample(&f.mapping.wb_err);
	for (i = 0; i < nr; i++)
		vm_write_stamp(&f.mapping, i, ~i);
	flush_nr_runs = 0;
	assert_int_equal(filemap_fdatawrite_range(&f.mapping, 0, INT64_MAX),
			 -EIO);
	assert_int_equal(flush_nr_runs, 3);
	assert_int_equal(flush_runs[0], WRITEBACK_MAX_RUN);
	assert_int_equal(flush_runs[1], WRITEBACK_MAX_RUN);
	assert_int_equal(flush_runs[2], 10);
	assert_int_equal(st.writes, nr - 3);
	for (i = 0; i < nr; i++)
		assert_int_equal(page_dirty(&f.mapping, i),
				 i == fail_index[0] || i == fail_index[1] ||
				 i == fail_index[2]);
	assert_int_equal(file_check_and_advance_wb_err(&f.mapping, &since),
			 -EROFS);
	fail_nr = 0;
	vm_store_teardown(&f, &st);
}

/*
 * filemap_flush() writes each stretch when it meets a folio that does
 * not follow it; of two stretches that fail, each with its own errno,
 * the pass returns the first's.  Pages 0-4, 10-14 and 20 dirty, page 2
 * failing with -EIO, page 12 with -ENOSPC.
 */
static void test_flush_first_stretch_error(void **state)
{
	static const unsigned int want[] = { 5, 5, 1 };
	struct address_space_operations aops;
	unsigned long budget = FILE_PAGES;
	struct vm_fixture f;
	struct vm_store st;
	pgoff_t i, index = 0;
	unsigned int k;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, true);
	set_runs_hook(&f, &aops, fail_hook);
	fail_two_pages(2, 12);
	for (i = 0; i < 5; i++) {
		vm_write_stamp(&f.mapping, i, ~i);
		vm_write_stamp(&f.mapping, 10 + i, ~(10 + i));
	}
	vm_write_stamp(&f.mapping, 20, ~(pgoff_t)20);
	flush_nr_runs = 0;
	assert_int_equal(filemap_flush(&f.mapping, &index, &budget), -EIO);
	assert_int_equal(flush_nr_runs, 3);
	for (k = 0; k < 3; k++)
		assert_int_equal(flush_runs[k], want[k]);
	assert_int_equal(st.writes, 9);
	for (i = 0; i < 5; i++) {
		assert_int_equal(page_dirty(&f.mapping, i), i == 2);
		assert_int_equal(page_dirty(&f.mapping, 10 + i), i == 2);
	}
	assert_false(page_dirty(&f.mapping, 20));
	fail_nr = 0;
	vm_store_teardown(&f, &st);
}

/*
 * A range left dirty with no error ever recorded (nothing could write
 * it: no hook) is -EIO.  A bad range is -EINVAL from
 * file_write_and_wait_range() too, though no watcher has an error.
 */
static void test_write_and_wait_dirty_without_error(void **state)
{
	struct vm_fixture f;
	struct vm_store st;
	errseq_t since;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, false);
	since = errseq_sample(&f.mapping.wb_err);
	vm_write_stamp(&f.mapping, 3, 7);
	assert_int_equal(filemap_write_and_wait_range(&f.mapping, 0,
						      INT64_MAX), -EIO);
	assert_int_equal(filemap_write_and_wait_range(&f.mapping,
						      4 * UPC_PAGE_SIZE,
						      INT64_MAX), 0);
	assert_int_equal(file_write_and_wait_range(&f.mapping, &since, -1, 5),
			 -EINVAL);
	assert_int_equal(file_write_and_wait_range(&f.mapping, &since, 10, 9),
			 -EINVAL);
	assert_true(page_dirty(&f.mapping, 3));
	vm_store_teardown(&f, &st);
}

/* file_write_and_wait_range() over [@start, @end] on a thread. */
struct fsync_thread {
	struct address_space *mapping;
	errseq_t since;
	int64_t start, end;
	int ret;
	pthread_t tid;
};

static void *fsync_thread_fn(void *arg)
{
	struct fsync_thread *ft = arg;

	ft->ret = file_write_and_wait_range(ft->mapping, &ft->since,
					    ft->start, ft->end);
	return NULL;
}

/*
 * hold_writeback() - Stamp page @index of @mapping with @stamp, then
 * hold it as reclaim would while writing it: locked, clean, under
 * writeback.  Return: the folio, with a reference.
 */
static struct folio *hold_writeback(struct address_space *mapping,
				    pgoff_t index, uint64_t stamp)
{
	struct folio *folio;

	vm_write_stamp(mapping, index, stamp);
	folio = __filemap_get_folio(mapping, index, FGP_LOCK, 0);
	assert_false(IS_ERR(folio));
	assert_true(folio_clear_dirty_start_writeback(folio));
	return folio;
}

/* end_held_writeback() - Write a held folio to the store and end it. */
static void end_held_writeback(struct address_space *mapping,
			       struct folio *folio)
{
	assert_int_equal(vm_store_writeback_folio(mapping, folio), 0);
	folio_end_writeback(folio);
}

/* start_fsync() - file_write_and_wait_range() of [@start, @end] on @ft. */
static void start_fsync(struct fsync_thread *ft, struct address_space *mapping,
			int64_t start, int64_t end)
{
	ft->mapping = mapping;
	ft->since = errseq_sample(&mapping->wb_err);
	ft->start = start;
	ft->end = end;
	assert_int_equal(pthread_create(&ft->tid, NULL, fsync_thread_fn, ft),
			 0);
}

/*
 * fsync whose own pass fails still waits for the writeback another
 * writer has under way (here the test, as reclaim would): page 3 fails,
 * page GATE_INDEX is under writeback until the fsync sleeps on it.
 */
static void test_fsync_pass_error_still_waits(void **state)
{
	struct fsync_thread ft = { 0 };
	struct folio *folio;
	struct vm_fixture f;
	struct vm_store st;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, true);
	vm_write_stamp(&f.mapping, 3, 33);
	st.fail_write_index = 3;
	folio = hold_writeback(&f.mapping, GATE_INDEX, 77);
	start_fsync(&ft, &f.mapping, 0, INT64_MAX);
	wait_for_sleeper(folio);
	end_held_writeback(&f.mapping, folio);
	folio_unlock(folio);
	folio_put(folio);
	assert_int_equal(pthread_join(ft.tid, NULL), 0);
	assert_int_equal(ft.ret, -EIO);
	assert_true(page_dirty(&f.mapping, 3));
	assert_true(store_word(&st, GATE_INDEX) == 77);
	st.fail_write_index = -1;
	vm_store_teardown(&f, &st);
}

/*
 * fsync of one byte waits for the writeback another writer has under
 * way on that byte's page (the test, as reclaim would), though its own
 * pass has nothing to write: page GATE_INDEX is under writeback until
 * the fsync sleeps on it.
 */
static void test_fsync_one_page_waits(void **state)
{
	const int64_t pos = GATE_INDEX * (int64_t)UPC_PAGE_SIZE + 10;
	struct fsync_thread ft = { 0 };
	struct folio *folio;
	struct vm_fixture f;
	struct vm_store st;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, true);
	folio = hold_writeback(&f.mapping, GATE_INDEX, 79);
	start_fsync(&ft, &f.mapping, pos, pos);
	wait_for_sleeper(folio);
	end_held_writeback(&f.mapping, folio);
	folio_unlock(folio);
	folio_put(folio);
	assert_int_equal(pthread_join(ft.tid, NULL), 0);
	assert_int_equal(ft.ret, 0);
	assert_int_equal(st.writes, 1);
	assert_true(store_word(&st, GATE_INDEX) == 79);
	vm_store_teardown(&f, &st);
}

/*
 * fsync waits for every folio under writeback in its range, not only
 * the first of each lookup: pages 5 and GATE_INDEX are under writeback
 * (the test, as reclaim would); once page 5's write ends, the fsync
 * sleeps on page GATE_INDEX (nobody else waits on either page).
 */
static void test_fsync_waits_for_each_writeback(void **state)
{
	static const pgoff_t idx[2] = { 5, GATE_INDEX };
	struct fsync_thread ft = { 0 };
	struct folio *folio[2];
	struct vm_fixture f;
	struct vm_store st;
	int k;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, true);
	for (k = 0; k < 2; k++)
		folio[k] = hold_writeback(&f.mapping, idx[k], 80 + k);
	start_fsync(&ft, &f.mapping, 0, INT64_MAX);
	for (k = 0; k < 2; k++) {
		wait_for_sleeper(folio[k]);
		end_held_writeback(&f.mapping, folio[k]);
	}
	assert_int_equal(pthread_join(ft.tid, NULL), 0);
	assert_int_equal(ft.ret, 0);
	for (k = 0; k < 2; k++) {
		folio_unlock(folio[k]);
		folio_put(folio[k]);
		assert_true(store_word(&st, idx[k]) == (uint64_t)(80 + k));
	}
	vm_store_teardown(&f, &st);
}

/*
 * The background writeback states of mm/page_writeback.c, as the low two
 * bits of struct background_writeback's state word hold them.
 */
#define WB_TEST_IDLE	0u
#define WB_TEST_STOPPED	3u

/* wb_state() - @wb's state, from the low two bits of its word. */
static unsigned int wb_state(struct background_writeback *wb)
{
	return __atomic_load_n(&wb->state, __ATOMIC_ACQUIRE) & 3u;
}

/*
 * Wait until @wb's passes have taken @pages pages, @ms milliseconds at
 * most.  Return: whether they did.
 */
static bool wb_wait_pages(struct background_writeback *wb,
			  unsigned long pages, int ms)
{
	struct timespec tick = { 0, 1000000 };
	int n;

	for (n = 0; n < ms; n++) {
		if (background_writeback_pages(wb) >= pages)
			return true;
		nanosleep(&tick, NULL);
	}
	return false;
}

/*
 * A background pass starts once a threshold's worth is dirtied while
 * the cache has at most that much room (exactly that much here), and
 * counts the pages it took: the 100 dirty ones, in one pass.  With one
 * page more of room than the threshold none starts: nothing can start
 * one later, so 200 ms without a pass cannot fail by timing.
 */
static void test_background_pass_room_equals_threshold(void **state)
{
	struct background_writeback wb;
	struct vm_fixture f;
	struct vm_store st;
	unsigned long room;
	pgoff_t i;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, true);
	for (i = 0; i < 100; i++)
		vm_write_stamp(&f.mapping, i, ~i);
	room = LIMIT - upc_arena_charged(f.arena);
	background_writeback_init(&wb, &f.mapping, room - 1);
	background_writeback_dirtied(&wb, room - 1);
	assert_false(wb_wait_pages(&wb, 1, 200));
	background_writeback_stop(&wb);
	assert_true(page_dirty(&f.mapping, 0));
	background_writeback_init(&wb, &f.mapping, room);
	background_writeback_dirtied(&wb, room);
	assert_true(wb_wait_pages(&wb, 100, 10000));
	background_writeback_stop(&wb);
	assert_int_equal(background_writeback_passes(&wb), 1);
	assert_int_equal(background_writeback_pages(&wb), 100);
	for (i = 0; i < 100; i++) {
		assert_false(page_dirty(&f.mapping, i));
		assert_true(store_word(&st, i) == ~i);
	}
	vm_store_teardown(&f, &st);
}

/*
 * A pass takes WB_PASS_PAGES at most and queues the next for the rest
 * of the file: 1100 dirty pages are two passes, 1024 and 76.
 */
static void test_background_pass_continues(void **state)
{
	enum { NR = WB_PASS_PAGES + 76 };
	struct background_writeback wb;
	struct vm_fixture f;
	struct vm_store st;
	pgoff_t i;

	(void)state;
	vm_store_setup(&f, &st, 16, 2 * LIMIT, NR, true);
	for (i = 0; i < NR; i++)
		vm_write_stamp(&f.mapping, i, ~i);
	background_writeback_init(&wb, &f.mapping, 2 * LIMIT);
	background_writeback_dirtied(&wb, 2 * LIMIT);
	assert_true(wb_wait_pages(&wb, NR, 10000));
	background_writeback_stop(&wb);
	assert_int_equal(background_writeback_passes(&wb), 2);
	assert_int_equal(background_writeback_pages(&wb), NR);
	for (i = 0; i < NR; i++)
		assert_false(page_dirty(&f.mapping, i));
	vm_store_teardown(&f, &st);
}

/* Pages redirty_writeback() dirties again; whether it managed to. */
#define REDIRTY_PAGES	100
static int redirtied;

/*
 * a_ops->writeback_folio that, on the write of page WB_PASS_PAGES - 1
 * (the last of a first background pass), dirties pages 0 to
 * REDIRTY_PAGES - 1 again first: written, unlocked, in the pass's
 * first runs.  No cmocka asserts here: this is a flusher thread.
 */
static int redirty_writeback(struct address_space *mapping,
			     struct folio *folio)
{
	struct folio *other;
	pgoff_t i;

	if (folio->index == WB_PASS_PAGES - 1) {
		for (i = 0; i < REDIRTY_PAGES; i++) {
			other = read_mapping_folio(mapping, i);
			if (IS_ERR(other))
				return -EIO;
			folio_lock(other);
			*(uint64_t *)folio_address(other) = i + 5;
			folio_mark_dirty(other);
			folio_unlock(other);
			folio_put(other);
		}
		__atomic_store_n(&redirtied, 1, __ATOMIC_RELEASE);
	}
	return vm_store_writeback_folio(mapping, folio);
}

/*
 * The pass after a pass that ran out of budget goes on from where that
 * one stopped, not from the start of the file: pages dirtied again
 * behind it are left for later.  1100 dirty pages, pages 0-99 dirtied
 * again during the first pass: two passes, 1024 and 76 pages, and
 * pages 0-99 still dirty.
 */
static void test_background_pass_goes_on(void **state)
{
	enum { NR = WB_PASS_PAGES + 76 };
	struct address_space_operations aops;
	struct background_writeback wb;
	struct vm_fixture f;
	struct vm_store st;
	pgoff_t i;

	(void)state;
	vm_store_setup(&f, &st, 16, 2 * LIMIT, NR, true);
	aops = *f.mapping.a_ops;
	aops.writeback_folio = redirty_writeback;
	f.mapping.a_ops = &aops;
	redirtied = 0;
	for (i = 0; i < NR; i++)
		vm_write_stamp(&f.mapping, i, ~i);
	background_writeback_init(&wb, &f.mapping, 2 * LIMIT);
	background_writeback_dirtied(&wb, 2 * LIMIT);
	assert_true(wb_wait_pages(&wb, NR, 10000));
	background_writeback_stop(&wb);
	assert_true(__atomic_load_n(&redirtied, __ATOMIC_ACQUIRE));
	assert_int_equal(background_writeback_passes(&wb), 2);
	assert_int_equal(background_writeback_pages(&wb), NR);
	assert_int_equal(st.writes, NR);
	for (i = 0; i < NR; i++)
		assert_int_equal(page_dirty(&f.mapping, i), i < REDIRTY_PAGES);
	vm_store_teardown(&f, &st);
}

/*
 * Once stopped, background writeback starts no pass, however much is
 * dirtied with the cache tight: its state stays WB_STOPPED (3 in the
 * low two bits, mm/page_writeback.c), and nothing is written.
 */
static void test_background_none_after_stop(void **state)
{
	struct background_writeback wb;
	struct vm_fixture f;
	struct vm_store st;
	unsigned long room;
	int status;
	pid_t pid;
	pgoff_t i;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, true);
	for (i = 0; i < 10; i++)
		vm_write_stamp(&f.mapping, i, ~i);
	room = LIMIT - upc_arena_charged(f.arena);
	background_writeback_init(&wb, &f.mapping, room);
	background_writeback_stop(&wb);
	assert_int_equal(wb_state(&wb), WB_TEST_STOPPED);
	background_writeback_dirtied(&wb, room);
	assert_int_equal(wb_state(&wb), WB_TEST_STOPPED);
	background_writeback_stop(&wb);
	assert_int_equal(background_writeback_passes(&wb), 0);
	/* A child of fork() sees states from before it as idle, but not this. */
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		background_writeback_dirtied(&wb, room);
		_exit(wb_state(&wb) == WB_TEST_STOPPED ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(st.writes, 0);
	for (i = 0; i < 10; i++)
		assert_true(page_dirty(&f.mapping, i));
	vm_store_teardown(&f, &st);
}

/* Lock @folio, dirty it and unlock it. */
static void dirty_folio(struct folio *folio)
{
	folio_lock(folio);
	folio_mark_dirty(folio);
	folio_unlock(folio);
}

/*
 * filemap_flush()'s budget is in pages, not folios: two dirty order-2
 * folios at pages 0 and 4 and a budget of 4 pages.  The first folio
 * uses it all up: the pass stops there and says to go on from page 4,
 * which is still dirty.
 */
static void test_flush_budget_counts_pages(void **state)
{
	unsigned long budget = 4;
	struct folio *folios[2];
	struct vm_fixture f;
	struct vm_store st;
	pgoff_t index = 0;
	unsigned int k;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, true);
	for (k = 0; k < 2; k++) {
		folios[k] = vm_add_folio(&f.mapping, 4 * k, 2);
		dirty_folio(folios[k]);
	}
	assert_int_equal(filemap_flush(&f.mapping, &index, &budget), 0);
	assert_int_equal(budget, 0);
	assert_int_equal(index, 4);
	assert_int_equal(st.writes, 1);
	assert_false(folio_test_dirty(folios[0]));
	assert_true(folio_test_dirty(folios[1]));
	for (k = 0; k < 2; k++)
		folio_put(folios[k]);
	vm_store_teardown(&f, &st);
}

/*
 * Pages dirtied while a pass runs start the next when it ends: the pass
 * is held inside its write of page GATE_INDEX while a threshold's worth
 * more is dirtied.  Once the flusher is idle (a pass is counted before
 * the state goes idle) it has run two passes, the second finding
 * nothing left to write.
 */
static void test_background_dirtied_during_pass(void **state)
{
	struct timespec tick = { 0, 1000000 };
	struct background_writeback wb;
	struct vm_fixture f;
	struct vm_store st;
	unsigned long room;
	pgoff_t i;
	int n;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, true);
	f.mapping.a_ops = &gated_aops;
	gate_entered = gate_open = gate_fail = 0;
	for (i = 0; i < 100; i++)
		vm_write_stamp(&f.mapping, i, ~i);
	room = LIMIT - upc_arena_charged(f.arena);
	background_writeback_init(&wb, &f.mapping, room);
	background_writeback_dirtied(&wb, room);
	while (!__atomic_load_n(&gate_entered, __ATOMIC_ACQUIRE))
		sched_yield();
	background_writeback_dirtied(&wb, room);
	__atomic_store_n(&gate_open, 1, __ATOMIC_RELEASE);
	for (n = 0; n < 10000 && wb_state(&wb) != WB_TEST_IDLE; n++)
		nanosleep(&tick, NULL);
	assert_int_equal(wb_state(&wb), WB_TEST_IDLE);
	assert_int_equal(background_writeback_passes(&wb), 2);
	assert_int_equal(background_writeback_pages(&wb), 100);
	background_writeback_stop(&wb);
	for (i = 0; i < 100; i++)
		assert_true(store_word(&st, i) == ~i);
	vm_store_teardown(&f, &st);
}

/*
 * A write that dirties no page (it rewrote dirty ones) starts no pass,
 * even once a threshold's worth was dirtied before and the cache has
 * since become tight: the next write that dirties a page does.  Here
 * 100 pages dirtied with 50 pages more room than the threshold, then 50
 * pages read.  The state is read before the pass count: a pass started
 * shows as one or the other.
 */
static void test_background_nothing_dirtied(void **state)
{
	struct background_writeback wb;
	struct vm_fixture f;
	struct vm_store st;
	unsigned long thresh;
	pgoff_t i;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, true);
	for (i = 0; i < 100; i++)
		vm_write_stamp(&f.mapping, i, ~i);
	thresh = LIMIT - upc_arena_charged(f.arena) - 50;
	background_writeback_init(&wb, &f.mapping, thresh);
	background_writeback_dirtied(&wb, thresh);
	vm_read_range(&f.mapping, 100, 50);
	assert_int_equal(upc_arena_charged(f.arena) + thresh, LIMIT);
	background_writeback_dirtied(&wb, 0);
	assert_int_equal(wb_state(&wb), WB_TEST_IDLE);
	assert_int_equal(background_writeback_passes(&wb), 0);
	background_writeback_dirtied(&wb, 1);
	assert_true(wb_wait_pages(&wb, 100, 10000));
	background_writeback_stop(&wb);
	assert_int_equal(background_writeback_passes(&wb), 1);
	vm_store_teardown(&f, &st);
}

/*
 * A stretch is of pages, not folio indices: a dirty order-2 folio at
 * page 0 and dirty pages 4 and 5 follow each other, and filemap_flush()
 * hands the three folios to the hook as one run.
 */
static void test_flush_stretch_after_large_folio(void **state)
{
	struct address_space_operations aops;
	unsigned long budget = FILE_PAGES;
	struct vm_fixture f;
	struct vm_store st;
	struct folio *large;
	pgoff_t index = 0;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, true);
	set_runs_hook(&f, &aops, flush_hook);
	large = vm_add_folio(&f.mapping, 0, 2);
	dirty_folio(large);
	vm_write_stamp(&f.mapping, 4, 44);
	vm_write_stamp(&f.mapping, 5, 55);
	flush_nr_runs = 0;
	assert_int_equal(filemap_flush(&f.mapping, &index, &budget), 0);
	assert_int_equal(flush_nr_runs, 1);
	assert_int_equal(flush_runs[0], 3);
	assert_int_equal(st.writes, 3);
	assert_int_equal(budget, FILE_PAGES - 6);
	assert_false(folio_test_dirty(large));
	assert_true(store_word(&st, 5) == 55);
	folio_put(large);
	vm_store_teardown(&f, &st);
}

/*
 * A pass that was queued when its flusher was stopped does not run: the
 * closing file writes its pages itself.  The flusher threads
 * (WB_WORKERS, 4) are all held inside gated writes of page GATE_INDEX
 * of four other mappings (PG_writeback shows each one there), so the
 * fifth mapping's pass stays queued while a thread stops its flusher.
 * Once @stopping is set the gate opens: the queued work must find it
 * and write nothing.
 */
#define HELD_WBS	4

struct stop_thread {
	struct background_writeback *wb;
	pthread_t tid;
};

static void *stop_thread_fn(void *arg)
{
	struct stop_thread *sp = arg;

	background_writeback_stop(sp->wb);
	return NULL;
}

static void test_background_queued_pass_stopped(void **state)
{
	struct background_writeback wb[HELD_WBS + 1];
	struct vm_fixture f[HELD_WBS + 1];
	struct vm_store st[HELD_WBS + 1];
	struct timespec tick = { 0, 1000000 };
	struct folio *gated[HELD_WBS];
	struct stop_thread sp;
	unsigned long room;
	unsigned int k;
	int n;

	(void)state;
	gate_entered = gate_open = gate_fail = 0;
	for (k = 0; k <= HELD_WBS; k++) {
		vm_store_setup(&f[k], &st[k], 8, LIMIT, FILE_PAGES, true);
		if (k < HELD_WBS)
			f[k].mapping.a_ops = &gated_aops;
		vm_write_stamp(&f[k].mapping, GATE_INDEX, 70 + k);
		room = LIMIT - upc_arena_charged(f[k].arena);
		background_writeback_init(&wb[k], &f[k].mapping, room);
	}
	for (k = 0; k < HELD_WBS; k++) {
		gated[k] = filemap_get_folio(&f[k].mapping, GATE_INDEX);
		assert_false(IS_ERR(gated[k]));
		background_writeback_dirtied(&wb[k], wb[k].thresh);
		for (n = 0; n < 10000 && !folio_test_writeback(gated[k]); n++)
			nanosleep(&tick, NULL);
		assert_true(folio_test_writeback(gated[k]));
	}
	background_writeback_dirtied(&wb[HELD_WBS], wb[HELD_WBS].thresh);
	sp.wb = &wb[HELD_WBS];
	assert_int_equal(pthread_create(&sp.tid, NULL, stop_thread_fn, &sp),
			 0);
	while (!__atomic_load_n(&wb[HELD_WBS].stopping, __ATOMIC_RELAXED))
		sched_yield();
	__atomic_store_n(&gate_open, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(sp.tid, NULL), 0);
	assert_int_equal(background_writeback_passes(&wb[HELD_WBS]), 0);
	assert_true(page_dirty(&f[HELD_WBS].mapping, GATE_INDEX));
	for (k = 0; k <= HELD_WBS; k++) {
		if (k < HELD_WBS) {
			background_writeback_stop(&wb[k]);
			assert_int_equal(background_writeback_passes(&wb[k]),
					 1);
			assert_true(store_word(&st[k], GATE_INDEX) == 70 + k);
			folio_put(gated[k]);
		}
		vm_store_teardown(&f[k], &st[k]);
	}
}

/*
 * A folio that is clean by the time the pass has it locked is not the
 * pass's to write: page 10, the only dirty one, is locked by the test
 * until the pass sleeps on it, and written back by the test meanwhile.
 * The store sees that one write and no other.
 */
static void test_sync_pass_skips_folio_cleaned_meanwhile(void **state)
{
	struct pass_thread pt = { 0 };
	struct folio *held;
	struct vm_fixture f;
	struct vm_store st;

	(void)state;
	vm_store_setup(&f, &st, 8, LIMIT, FILE_PAGES, true);
	vm_write_stamp(&f.mapping, 10, 1010);
	held = filemap_get_folio(&f.mapping, 10);
	assert_false(IS_ERR(held));
	folio_lock(held);
	pt.mapping = &f.mapping;
	pass_start_until_asleep(&pt, held);
	assert_true(folio_clear_dirty_start_writeback(held));
	assert_int_equal(vm_store_writeback_folio(&f.mapping, held), 0);
	folio_end_writeback(held);
	folio_unlock(held);
	folio_put(held);
	assert_int_equal(pthread_join(pt.tid, NULL), 0);
	assert_int_equal(pt.ret, 0);
	assert_int_equal(st.writes, 1);
	assert_false(page_dirty(&f.mapping, 10));
	assert_false(xa_marked(&f.mapping.i_pages, PAGECACHE_TAG_WRITEBACK));
	assert_true(store_word(&st, 10) == 1010);
	vm_store_teardown(&f, &st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fdatawrite_range_writes_range),
		cmocka_unit_test(test_flush_stretches_skips_locked),
		cmocka_unit_test(test_flush_budget),
		cmocka_unit_test(test_fdatawrite_range_errors),
		cmocka_unit_test(test_fdatawrite_range_last_byte),
		cmocka_unit_test(test_fdatawrite_range_returns_error),
		cmocka_unit_test(test_sync_pass_error_before_locked_folio),
		cmocka_unit_test(test_flush_reports_stretch_error),
		cmocka_unit_test(test_fdatawrite_range_failure_keeps_data),
		cmocka_unit_test(test_reclaim_error_reported_once),
		cmocka_unit_test(test_fsync_waits_for_reclaim_writeback),
		cmocka_unit_test(test_fsync_reports_reclaim_writeback_failure),
		cmocka_unit_test(test_wait_reports_repeated_error),
		cmocka_unit_test(test_fdatawrite_range_runs_and_first_error),
		cmocka_unit_test(test_fdatawrite_range_first_error_across_runs),
		cmocka_unit_test(test_fsync_returns_pass_first_error),
		cmocka_unit_test(test_flush_first_stretch_error),
		cmocka_unit_test(test_write_and_wait_dirty_without_error),
		cmocka_unit_test(test_fsync_pass_error_still_waits),
		cmocka_unit_test(test_fsync_one_page_waits),
		cmocka_unit_test(test_fsync_waits_for_each_writeback),
		cmocka_unit_test(test_background_pass_room_equals_threshold),
		cmocka_unit_test(test_background_pass_continues),
		cmocka_unit_test(test_background_none_after_stop),
		cmocka_unit_test(test_background_pass_goes_on),
		cmocka_unit_test(test_flush_budget_counts_pages),
		cmocka_unit_test(test_background_dirtied_during_pass),
		cmocka_unit_test(test_background_nothing_dirtied),
		cmocka_unit_test(test_flush_stretch_after_large_folio),
		cmocka_unit_test(test_background_queued_pass_stopped),
		cmocka_unit_test(test_sync_pass_skips_folio_cleaned_meanwhile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
