// SPDX-License-Identifier: MIT
/*
 * tests/api/test_file_writeback.c - background writeback of files
 * opened with UPC_FILE_WRITEBACK_BACKGROUND (mm/writeback.h): when a
 * pass starts (a threshold's worth of pages dirtied, an eighth of the
 * cache, while the cache has less than that of room), that it writes
 * what the writer left dirty without the writer's thread writing
 * anything, that its errors reach the next upc_fsync() once, and that
 * closing while passes run loses nothing.  Without the flag nothing is
 * written until fsync, close or reclaim.
 *
 * Most tests first fill the cache with clean pages, read from the far
 * half of the file, so that it is tight; the writes that follow are a
 * fraction of the cache, and reclaim evicts those clean pages for them
 * without writing anything: whatever reaches the file without fsync
 * was written by a flusher thread.  Threads beside everything else are
 * in test_file_concurrency.c.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#include "api_helpers.h"
#include "file_helpers.h"
#include "fault.h"
#include "io/fd.h"

#define MEM		(8UL << 20)
/* The test files: the data written, then the far half read to fill. */
#define FILE_SIZE	(2 * (int64_t)MEM)
/* Pages dirtied that start a pass: an eighth of MEM (1 MiB). */
#define THRESH_PAGES	(MEM / 8 / API_PAGE)

static struct background_writeback *file_wb(struct upc_file *file)
{
	return &file->fdf.wb;
}

/* Fill the cache with clean pages: read the far half of the file. */
static void fill_cache(struct upc_file *file)
{
	char *buf = malloc(1 << 20);
	int64_t pos;

	assert_non_null(buf);
	for (pos = FILE_SIZE / 2; pos < FILE_SIZE; pos += 1 << 20)
		assert_int_equal(upc_read(file, buf, 1 << 20, pos), 1 << 20);
	free(buf);
}

/*
 * Wait until @fd reads as api_byte(., @seed) over [@pos, +@len), for
 * FILE_WAIT_MS at most.  Return: whether it did.
 */
static bool wait_for_pattern(int fd, int64_t pos, size_t len,
			     unsigned int seed)
{
	long waited;

	for (waited = 0; waited < FILE_WAIT_MS; waited += 5) {
		if (fd_has_pattern(fd, pos, len, seed))
			return true;
		sleep_ms(5);
	}
	return false;
}

/* Wait, as above, until no pass of @file's flusher is queued or running. */
static bool wait_for_idle(struct upc_file *file)
{
	long waited;

	for (waited = 0; waited < FILE_WAIT_MS; waited += 5) {
		/* WB_IDLE (mm/page_writeback.c): 0 in the low two bits. */
		if (!(__atomic_load_n(&file_wb(file)->state,
				      __ATOMIC_ACQUIRE) & 3u))
			return true;
		sleep_ms(5);
	}
	return false;
}

/*
 * Twice the threshold written in 64 KiB pieces: the pages dirtied
 * before the threshold was reached reach the file with no fsync, and
 * the writer's thread made no transfer of its own.  Whether the pages
 * after them are written too depends on timing: a pass writes them if
 * it meets them dirty, and they start a pass of their own only if a
 * threshold's worth of them is dirtied after the last pass began.
 */
static void test_background_writes_back(void **state)
{
	const size_t len = 2 * THRESH_PAGES * API_PAGE;
	struct io_counters *c = io_thread_counters();
	struct fenv e;
	size_t pos;

	(void)state;
	fenv_init_flags(&e, MEM, FILE_SIZE, UPC_FILE_WRITEBACK_BACKGROUND);
	fill_cache(e.file);
	*c = (struct io_counters){ 0 };
	for (pos = 0; pos < len; pos += 64 << 10)
		file_write_pattern(e.file, (int64_t)pos, 64 << 10, 61);
	assert_true(wait_for_pattern(e.fd, 0, len / 2, 61));
	assert_int_equal(c->transfers, 0);
	assert_true(file_wait_for_passes(e.file, 1));
	assert_int_equal(upc_fsync(e.file), 0);
	assert_true(fd_has_pattern(e.fd, 0, len, 61));
	fenv_fini(&e);
}

/*
 * One page short of the threshold starts nothing; the page that reaches
 * it starts a pass, which writes all of them.  Rewriting dirty pages
 * does not count: only pages that were clean.
 */
static void test_background_threshold(void **state)
{
	const size_t len = THRESH_PAGES * API_PAGE;
	struct fenv e;

	(void)state;
	fenv_init_flags(&e, MEM, FILE_SIZE, UPC_FILE_WRITEBACK_BACKGROUND);
	fill_cache(e.file);
	file_write_pattern(e.file, 0, len - API_PAGE, 62);
	file_write_pattern(e.file, 0, len - API_PAGE, 63);	/* again */
	sleep_ms(200);
	assert_int_equal(background_writeback_passes(file_wb(e.file)), 0);
	assert_true(fd_has_pattern(e.fd, 0, len, 1));
	file_write_pattern(e.file, (int64_t)(len - API_PAGE), API_PAGE, 63);
	assert_true(wait_for_pattern(e.fd, 0, len, 63));
	assert_true(file_wait_for_passes(e.file, 1));
	fenv_fini(&e);
}

/*
 * The count of pages dirtied starts over with each pass: after a pass
 * that a threshold's worth started has ended, one page short of the
 * threshold dirtied again starts nothing.  The flusher's state is read
 * before its pass count, so a pass queued by the writes shows either as
 * a state that is not idle (queued or running) or, once it ended
 * (passes counted before the state goes idle), as a second pass.
 */
static void test_background_count_starts_over(void **state)
{
	const size_t len = THRESH_PAGES * API_PAGE;
	struct background_writeback *wb;
	uint32_t word;
	struct fenv e;

	(void)state;
	fenv_init_flags(&e, MEM, FILE_SIZE, UPC_FILE_WRITEBACK_BACKGROUND);
	wb = file_wb(e.file);
	fill_cache(e.file);
	file_write_pattern(e.file, 0, len, 71);
	assert_true(file_wait_for_passes(e.file, 1));
	assert_true(wait_for_idle(e.file));
	assert_int_equal(background_writeback_passes(wb), 1);
	file_write_pattern(e.file, (int64_t)len, len - API_PAGE, 72);
	word = __atomic_load_n(&wb->state, __ATOMIC_ACQUIRE);
	/* WB_IDLE (mm/page_writeback.c): 0 in the low two bits. */
	assert_int_equal(word & 3u, 0);
	assert_int_equal(background_writeback_passes(wb), 1);
	assert_int_equal(upc_fsync(e.file), 0);
	assert_true(fd_has_pattern(e.fd, 0, len, 71));
	assert_true(fd_has_pattern(e.fd, (int64_t)len, len - API_PAGE, 72));
	fenv_fini(&e);
}

/*
 * With room in the cache, twice the threshold starts no pass (reclaim
 * would write nothing either); once reads fill the cache, the next
 * write that dirties a page starts one.  (The reads may have made
 * reclaim write the dirty pages first: what the pass finds is timing.)
 */
static void test_background_waits_for_tight_cache(void **state)
{
	const size_t len = 2 * THRESH_PAGES * API_PAGE;
	struct fenv e;

	(void)state;
	fenv_init_flags(&e, MEM, FILE_SIZE, UPC_FILE_WRITEBACK_BACKGROUND);
	file_write_pattern(e.file, 0, len, 68);
	sleep_ms(200);
	assert_int_equal(background_writeback_passes(file_wb(e.file)), 0);
	assert_true(fd_has_pattern(e.fd, 0, len, 1));
	fill_cache(e.file);
	file_write_pattern(e.file, (int64_t)len, API_PAGE, 68);
	assert_true(file_wait_for_passes(e.file, 1));
	assert_int_equal(upc_fsync(e.file), 0);
	assert_true(fd_has_pattern(e.fd, 0, len + API_PAGE, 68));
	fenv_fini(&e);
}

/* Without the flag, the same writes stay in the cache until fsync. */
static void test_no_background_without_flag(void **state)
{
	const size_t len = 2 * THRESH_PAGES * API_PAGE;
	struct fenv e;

	(void)state;
	fenv_init(&e, MEM, FILE_SIZE);
	fill_cache(e.file);
	file_write_pattern(e.file, 0, len, 64);
	sleep_ms(200);
	assert_int_equal(background_writeback_passes(file_wb(e.file)), 0);
	assert_true(fd_has_pattern(e.fd, 0, len, 1));
	assert_int_equal(upc_fsync(e.file), 0);
	assert_true(fd_has_pattern(e.fd, 0, len, 64));
	fenv_fini(&e);
}

/* A read-only file never starts a pass (nothing is ever dirty). */
static void test_background_read_only(void **state)
{
	struct upc_file *file;
	struct fenv e;
	int fd;

	(void)state;
	fenv_init(&e, MEM, 4096);
	fd = open(e.path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(upc_file_open(e.cache, fd,
				       UPC_FILE_WRITEBACK_BACKGROUND, &file),
			 0);
	assert_int_equal(file_wb(file)->thresh, 0);
	assert_int_equal(upc_write(file, "x", 1, 0), -EBADF);
	assert_int_equal(upc_close(file), 0);
	close(fd);
	fenv_fini(&e);
}

/*
 * A pass that fails (pwrite() past RLIMIT_FSIZE: EFBIG) keeps the pages
 * dirty and leaves the error for upc_fsync(), which reports it once,
 * and, the limit lifted, writes the data.
 */
static void test_background_error_reaches_fsync(void **state)
{
	const size_t len = 2 * THRESH_PAGES * API_PAGE;
	struct rlimit was, lim;
	struct fenv e;

	(void)state;
	fenv_init_flags(&e, MEM, FILE_SIZE, UPC_FILE_WRITEBACK_BACKGROUND);
	fill_cache(e.file);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &was), 0);
	lim = was;
	lim.rlim_cur = FILE_SIZE;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	file_write_pattern(e.file, FILE_SIZE, len, 65);
	assert_true(file_wait_for_passes(e.file, 1));
	/* A pass the writes queued meanwhile fails too, before the lift. */
	assert_true(wait_for_idle(e.file));
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &was), 0);
	assert_int_equal(fd_size(e.fd), FILE_SIZE);
	assert_int_equal(upc_fsync(e.file), -EFBIG);
	assert_int_equal(upc_fsync(e.file), 0);
	assert_true(fd_has_pattern(e.fd, FILE_SIZE, len, 65));
	fenv_fini(&e);
}

/*
 * A pass takes at most 4 MiB and leaves the rest of the file to the
 * next: with 12 MiB written in one call, no pass took more than its
 * share (a fork() or another file's close waits for one pass at most,
 * never for a writer).  What the passes leave dirty (less than a
 * threshold, dirtied after the last began) fsync writes.
 */
static void test_background_passes_bounded(void **state)
{
	const size_t len = 12UL << 20;
	struct background_writeback *wb;
	unsigned long passes, pages;
	struct fenv e;

	(void)state;
	fenv_init_flags(&e, MEM, FILE_SIZE, UPC_FILE_WRITEBACK_BACKGROUND);
	wb = file_wb(e.file);
	fill_cache(e.file);
	file_write_pattern(e.file, 0, len, 69);
	assert_true(file_wait_for_passes(e.file, 1));
	assert_int_equal(upc_fsync(e.file), 0);
	assert_true(fd_has_pattern(e.fd, 0, len, 69));
	pages = background_writeback_pages(wb);
	passes = background_writeback_passes(wb);
	print_message("%lu passes took %lu pages, at most %lu each\n",
		      passes, pages, WB_PASS_PAGES);
	assert_true(pages > 0);
	assert_true(pages <= passes * WB_PASS_PAGES);
	fenv_fini(&e);
}

/*
 * A writer had just asked for a pass when the process forked: the
 * child inherits the state without the work.  The child's writes must
 * still start passes, and its close must not wait for a pass that does
 * not exist; nor must the parent's.
 */
static void test_background_fork_child(void **state)
{
	const size_t len = 2 * THRESH_PAGES * API_PAGE;
	struct background_writeback *wb;
	struct fenv e;
	int status;
	pid_t pid;

	(void)state;
	fenv_init_flags(&e, MEM, FILE_SIZE, UPC_FILE_WRITEBACK_BACKGROUND);
	wb = file_wb(e.file);
	fill_cache(e.file);
	/* WB_QUEUED (mm/page_writeback.c), as a writer sets it first. */
	__atomic_fetch_or(&wb->state, 1u, __ATOMIC_RELAXED);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		unsigned char *buf = malloc(len);
		size_t i;

		alarm(60);
		if (!buf)
			_exit(2);
		for (i = 0; i < len; i++)
			buf[i] = api_byte((int64_t)i, 70);
		if (upc_write(e.file, buf, len, 0) != (ssize_t)len)
			_exit(3);
		/* A pass must start: nothing else writes the file here. */
		for (i = 0; i < 4000; i++) {
			if (background_writeback_passes(wb))
				break;
			sleep_ms(5);
		}
		if (!background_writeback_passes(wb))
			_exit(4);
		_exit(upc_close(e.file) ? 5 : 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_true(fd_has_pattern(e.fd, 0, len, 70));
	fenv_fini(&e);
}

/*
 * Closing right after writes that keep passes going: upc_close() waits
 * for the pass under way, writes the rest, and the file holds every
 * byte; again and again, so that some closes land inside a pass.
 */
static void test_background_close_during_pass(void **state)
{
	const size_t len = 8 * THRESH_PAGES * API_PAGE;
	struct fenv e;
	unsigned int round;

	(void)state;
	memset(&e, 0, sizeof(e));
	fenv_make_file(&e, 0);
	for (round = 0; round < 20; round++) {
		struct upc_cache_config cfg = { .memory_limit = MEM };
		struct upc_file *file;
		size_t pos;

		assert_int_equal(upc_cache_create(&cfg, &e.cache), 0);
		assert_int_equal(upc_file_open(e.cache, e.fd,
					       UPC_FILE_WRITEBACK_BACKGROUND,
					       &file), 0);
		for (pos = 0; pos < len; pos += 256 << 10)
			file_write_pattern(file, (int64_t)pos, 256 << 10,
					   70 + round);
		assert_int_equal(upc_close(file), 0);
		assert_int_equal(upc_cache_destroy(e.cache), 0);
		assert_true(fd_has_pattern(e.fd, 0, len, 70 + round));
	}
	/* fenv_fini() checks and destroys a cache: an empty one. */
	assert_int_equal(upc_cache_create(&(struct upc_cache_config){
					  .memory_limit = MEM }, &e.cache), 0);
	fenv_fini(&e);
}

/*
 * No worker for the pass (making the queue fails): nothing is written
 * in the background, nothing is lost, and the next write past the
 * threshold starts a pass.  The pages are cached and clean before the
 * write that crosses it, so that it needs no new folio (the allocations
 * it may still attempt are ones it does without).
 */
static void test_background_no_worker(void **state)
{
	const size_t len = (THRESH_PAGES - 1) * API_PAGE;
	struct fenv e;

	(void)state;
	fenv_init_flags(&e, MEM, FILE_SIZE, UPC_FILE_WRITEBACK_BACKGROUND);
	fill_cache(e.file);
	file_write_pattern(e.file, 0, len, 66);
	assert_int_equal(upc_fsync(e.file), 0);
	upc_fault_fail_from(1);
	file_write_pattern(e.file, 0, len, 67);
	assert_true(upc_fault_injected());
	upc_fault_fail_from(0);
	sleep_ms(200);
	assert_int_equal(background_writeback_passes(file_wb(e.file)), 0);
	assert_true(fd_has_pattern(e.fd, 0, len, 66));
	file_write_pattern(e.file, (int64_t)len, API_PAGE, 67);
	assert_true(wait_for_pattern(e.fd, 0, len + API_PAGE, 67));
	fenv_fini(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_background_writes_back),
		cmocka_unit_test(test_background_threshold),
		cmocka_unit_test(test_background_count_starts_over),
		cmocka_unit_test(test_background_waits_for_tight_cache),
		cmocka_unit_test(test_no_background_without_flag),
		cmocka_unit_test(test_background_read_only),
		cmocka_unit_test(test_background_error_reaches_fsync),
		cmocka_unit_test(test_background_close_during_pass),
		cmocka_unit_test(test_background_passes_bounded),
		cmocka_unit_test(test_background_fork_child),
		cmocka_unit_test(test_background_no_worker),
	};

	/* pwrite() past RLIMIT_FSIZE: EFBIG, not death by SIGXFSZ. */
	signal(SIGXFSZ, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
