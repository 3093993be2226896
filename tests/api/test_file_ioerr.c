// SPDX-License-Identifier: MIT
/*
 * tests/api/test_file_ioerr.c - what a file from upc_file_open() does
 * when reading its file fails, when writing or syncing it fails, and
 * while a write to it is held up.
 *
 * A regular file does not fail a read on cue, so this test puts itself
 * between the library and the C library: it is linked with
 *
 * Link: -Wl,--wrap=preadv
 * Link: -Wl,--wrap=pread
 * Link: -Wl,--wrap=pwritev
 * Link: -Wl,--wrap=pwrite
 * Link: -Wl,--wrap=sync_file_range
 * Link: -Wl,--wrap=fsync
 * Link: -Wl,--wrap=fdatasync
 *
 * (cmake/UpcacheTests.cmake reads those lines), so the library's
 * preadv() and pread() calls (io/fd.c's read loop: pread() for a single
 * buffer) come to the wrappers below, which fail with EIO those that
 * touch a chosen range of the test's file and pass the rest on.  Each
 * failing call is counted, so a test can also check that a page was
 * not read at all.  The write wrappers can hold a write that covers a
 * chosen byte until the test lets it go, and refuse a direct write
 * (EINVAL, as a file system whose direct I/O will not take it); the
 * sync wrappers fail with EIO on cue.  Every wrapper passes on the
 * calls of other descriptors, and all calls while it is not armed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "api/internal.h"
#include "api_helpers.h"
#include "file_helpers.h"

#define PAGE		4096
#define FILE_SIZE	(64L * PAGE)

ssize_t __real_preadv(int fd, const struct iovec *iov, int iovcnt,
		      off_t offset);
ssize_t __wrap_preadv(int fd, const struct iovec *iov, int iovcnt,
		      off_t offset);
ssize_t __real_pread(int fd, void *buf, size_t count, off_t offset);
ssize_t __wrap_pread(int fd, void *buf, size_t count, off_t offset);
ssize_t __real_pwritev(int fd, const struct iovec *iov, int iovcnt,
		       off_t offset);
ssize_t __wrap_pwritev(int fd, const struct iovec *iov, int iovcnt,
		       off_t offset);
ssize_t __real_pwrite(int fd, const void *buf, size_t count, off_t offset);
ssize_t __wrap_pwrite(int fd, const void *buf, size_t count, off_t offset);
int __real_sync_file_range(int fd, off_t offset, off_t nbytes,
			   unsigned int flags);
int __wrap_sync_file_range(int fd, off_t offset, off_t nbytes,
			   unsigned int flags);
int __real_fsync(int fd);
int __wrap_fsync(int fd);
int __real_fdatasync(int fd);
int __wrap_fdatasync(int fd);

/* The range whose reads fail: [fail_from, fail_to) of fail_fd. */
static int fail_fd = -1;
static int64_t fail_from, fail_to;
static unsigned long failed_reads;

/* A read of @len bytes of @fd at @offset must fail: count it, set errno. */
static bool read_fails(int fd, off_t offset, int64_t len)
{
	if (fd != __atomic_load_n(&fail_fd, __ATOMIC_RELAXED) ||
	    offset >= fail_to || offset + len <= fail_from)
		return false;
	__atomic_fetch_add(&failed_reads, 1, __ATOMIC_RELAXED);
	errno = EIO;
	return true;
}

ssize_t __wrap_preadv(int fd, const struct iovec *iov, int iovcnt,
		      off_t offset)
{
	int64_t len = 0;
	int i;

	for (i = 0; i < iovcnt; i++)
		len += (int64_t)iov[i].iov_len;
	if (read_fails(fd, offset, len))
		return -1;
	return __real_preadv(fd, iov, iovcnt, offset);
}

ssize_t __wrap_pread(int fd, void *buf, size_t count, off_t offset)
{
	if (read_fails(fd, offset, (int64_t)count))
		return -1;
	return __real_pread(fd, buf, count, offset);
}

/*
 * Writes: one of hold_fd covering byte hold_at waits, hold_entered set,
 * until hold_open; while refuse_direct_fd has O_DIRECT, its writes fail
 * with EINVAL.
 */
static int hold_fd = -1, hold_entered, hold_open;
static int64_t hold_at;
static int refuse_direct_fd = -1;

/* The write of @len bytes of @fd at @offset: hold it, or refuse it? */
static bool write_refused(int fd, off_t offset, int64_t len)
{
	if (fd == __atomic_load_n(&hold_fd, __ATOMIC_ACQUIRE) &&
	    offset <= hold_at && offset + len > hold_at) {
		__atomic_store_n(&hold_entered, 1, __ATOMIC_RELEASE);
		while (!__atomic_load_n(&hold_open, __ATOMIC_ACQUIRE))
			sched_yield();
	}
	if (fd == __atomic_load_n(&refuse_direct_fd, __ATOMIC_RELAXED) &&
	    fcntl(fd, F_GETFL) & O_DIRECT) {
		errno = EINVAL;
		return true;
	}
	return false;
}

ssize_t __wrap_pwritev(int fd, const struct iovec *iov, int iovcnt,
		       off_t offset)
{
	int64_t len = 0;
	int i;

	for (i = 0; i < iovcnt; i++)
		len += (int64_t)iov[i].iov_len;
	if (write_refused(fd, offset, len))
		return -1;
	return __real_pwritev(fd, iov, iovcnt, offset);
}

ssize_t __wrap_pwrite(int fd, const void *buf, size_t count, off_t offset)
{
	if (write_refused(fd, offset, (int64_t)count))
		return -1;
	return __real_pwrite(fd, buf, count, offset);
}

/*
 * Syncs: sync_file_range() of fail_range_sync_fd, and fsync() and
 * fdatasync() of fail_fsync_fd, fail with EIO, counted in failed_syncs.
 */
static int fail_range_sync_fd = -1, fail_fsync_fd = -1;
static unsigned long failed_syncs;

static bool sync_fails(int fd, const int *fail)
{
	if (fd != __atomic_load_n(fail, __ATOMIC_RELAXED))
		return false;
	__atomic_fetch_add(&failed_syncs, 1, __ATOMIC_RELAXED);
	errno = EIO;
	return true;
}

int __wrap_sync_file_range(int fd, off_t offset, off_t nbytes,
			   unsigned int flags)
{
	if (sync_fails(fd, &fail_range_sync_fd))
		return -1;
	return __real_sync_file_range(fd, offset, nbytes, flags);
}

int __wrap_fsync(int fd)
{
	if (sync_fails(fd, &fail_fsync_fd))
		return -1;
	return __real_fsync(fd);
}

int __wrap_fdatasync(int fd)
{
	if (sync_fails(fd, &fail_fsync_fd))
		return -1;
	return __real_fdatasync(fd);
}

/**
 * struct ioenv - a cache and a file over a memfd holding api_byte(., 1).
 * @cache: The cache.
 * @file: The upc_ file.
 * @fd: The memfd.
 */
struct ioenv {
	struct upc_cache *cache;
	struct upc_file *file;
	int fd;
};

static void ioenv_init(struct ioenv *e)
{
	struct upc_cache_config cfg = { .memory_limit = 8UL << 20 };
	unsigned char *buf = malloc(FILE_SIZE);

	assert_non_null(buf);
	e->fd = memfd_create("upc-ioerr", 0);
	assert_true(e->fd >= 0);
	api_fill(buf, FILE_SIZE, 0, 1);
	assert_int_equal(pwrite(e->fd, buf, FILE_SIZE, 0), FILE_SIZE);
	free(buf);
	assert_int_equal(upc_cache_create(&cfg, &e->cache), 0);
	assert_int_equal(upc_file_open(e->cache, e->fd, 0, &e->file), 0);
}

/* Close (writing back), check nothing leaked, close the memfd. */
static void ioenv_fini(struct ioenv *e)
{
	struct upc_cache_stats st;

	assert_file_ok(e->file);
	assert_int_equal(upc_close(e->file), 0);
	assert_int_equal(upc_cache_stats(e->cache, &st), 0);
	assert_int_equal(st.memory_used, 0);
	assert_int_equal(upc_cache_destroy(e->cache), 0);
	close(e->fd);
}

/* Fail every read of [@from, @to) in @e's file from now on. */
static void fail_reads(const struct ioenv *e, int64_t from, int64_t to)
{
	fail_from = from;
	fail_to = to;
	failed_reads = 0;
	__atomic_store_n(&fail_fd, e->fd, __ATOMIC_RELAXED);
}

static void stop_failing(void)
{
	__atomic_store_n(&fail_fd, -1, __ATOMIC_RELAXED);
}

/* The memfd holds api_byte(., @seed) over [@pos, +@len). */
static void fd_expect(const struct ioenv *e, int64_t pos, size_t len,
		      unsigned int seed)
{
	unsigned char *buf = malloc(len);

	assert_non_null(buf);
	assert_int_equal(pread(e->fd, buf, len, pos), (ssize_t)len);
	api_check_pattern(buf, pos, len, seed);
	free(buf);
}

/*
 * A write inside one page not cached must read the page first; when
 * that fails, the write fails with the read's error and changes
 * nothing, in the cache or the file.
 */
static void test_write_in_page_read_error(void **state)
{
	unsigned char buf[100];
	struct ioenv e;

	(void)state;
	ioenv_init(&e);
	memset(buf, 0xee, sizeof(buf));
	fail_reads(&e, 0, PAGE);
	assert_int_equal(upc_write(e.file, buf, sizeof(buf), 10), -EIO);
	assert_true(failed_reads >= 1);
	stop_failing();
	api_expect(e.file, 0, 2 * PAGE, 1);
	assert_int_equal(upc_fsync(e.file), 0);
	fd_expect(&e, 0, 2 * PAGE, 1);
	ioenv_fini(&e);
}

/*
 * A write over many pages, its last page covered in part and failing
 * to read, writes the pages before it and stops there: a short count,
 * the last page as it was.
 */
static void test_write_last_page_read_error(void **state)
{
	const size_t len = 8 * PAGE - 100;
	unsigned char *buf = malloc(len);
	struct ioenv e;

	(void)state;
	assert_non_null(buf);
	ioenv_init(&e);
	api_fill(buf, len, PAGE, 2);
	fail_reads(&e, 8 * PAGE, 9 * PAGE);
	assert_int_equal(upc_write(e.file, buf, len, PAGE), 7 * PAGE);
	assert_true(failed_reads >= 1);
	stop_failing();
	api_expect(e.file, PAGE, 7 * PAGE, 2);
	api_expect(e.file, 8 * PAGE, PAGE, 1);
	api_expect(e.file, 0, PAGE, 1);
	assert_int_equal(upc_fsync(e.file), 0);
	fd_expect(&e, PAGE, 7 * PAGE, 2);
	fd_expect(&e, 8 * PAGE, PAGE, 1);
	free(buf);
	ioenv_fini(&e);
}

/*
 * A write over many pages, its first page covered in part and failing
 * to read, writes nothing: the read's error.
 */
static void test_write_first_page_read_error(void **state)
{
	const size_t len = 8 * PAGE;
	unsigned char *buf = malloc(len);
	struct ioenv e;

	(void)state;
	assert_non_null(buf);
	ioenv_init(&e);
	api_fill(buf, len, 100, 3);
	fail_reads(&e, 0, PAGE);
	assert_int_equal(upc_write(e.file, buf, len, 100), -EIO);
	stop_failing();
	api_expect(e.file, 0, 10 * PAGE, 1);
	assert_int_equal(upc_fsync(e.file), 0);
	fd_expect(&e, 0, 10 * PAGE, 1);
	free(buf);
	ioenv_fini(&e);
}

/*
 * Pages a write covers whole are never read from the file: with every
 * read of them failing, a write over them succeeds and no read of
 * theirs was tried, both when it starts and ends at page boundaries
 * and when it reaches into a page on each side.
 */
static void test_write_reads_only_edges(void **state)
{
	const size_t len = 6 * PAGE;
	unsigned char *buf = malloc(len);
	struct ioenv e;

	(void)state;
	assert_non_null(buf);
	ioenv_init(&e);
	api_fill(buf, len, 2 * PAGE, 4);
	fail_reads(&e, 2 * PAGE, 8 * PAGE);
	assert_int_equal(upc_write(e.file, buf, len, 2 * PAGE), (ssize_t)len);
	assert_int_equal(failed_reads, 0);
	api_fill(buf, len, 20 * PAGE - 200, 5);
	fail_reads(&e, 20 * PAGE, 25 * PAGE);
	assert_int_equal(upc_write(e.file, buf, len, 20 * PAGE - 200),
			 (ssize_t)len);
	assert_int_equal(failed_reads, 0);
	stop_failing();
	api_expect(e.file, 2 * PAGE, len, 4);
	api_expect(e.file, 20 * PAGE - 200, len, 5);
	api_expect(e.file, 19 * PAGE, PAGE - 200, 1);
	api_expect(e.file, 26 * PAGE - 200, 200, 1);
	assert_int_equal(upc_fsync(e.file), 0);
	fd_expect(&e, 2 * PAGE, len, 4);
	fd_expect(&e, 20 * PAGE - 200, len, 5);
	fd_expect(&e, 19 * PAGE, PAGE - 200, 1);
	free(buf);
	ioenv_fini(&e);
}

/*
 * A read of a page not cached whose read from the file fails returns
 * the error and caches nothing in its place; the next read, the file
 * healthy again, reads the data.
 */
static void test_read_error(void **state)
{
	unsigned char buf[PAGE];
	struct ioenv e;

	(void)state;
	ioenv_init(&e);
	fail_reads(&e, 4 * PAGE, 5 * PAGE);
	assert_int_equal(upc_read(e.file, buf, PAGE, 4 * PAGE), -EIO);
	assert_true(failed_reads >= 1);
	stop_failing();
	api_expect(e.file, 4 * PAGE, PAGE, 1);
	ioenv_fini(&e);
}

/* ---- writes held up, refused, or not made durable ---------------------- */

struct op_thread {
	struct upc_file *file;
	int64_t size;		/* the truncation's; 0: an fsync */
	int ret;
};

static void *op_thread(void *arg)
{
	struct op_thread *op = arg;

	op->ret = op->size ? upc_truncate(op->file, op->size) :
			     upc_fsync(op->file);
	return NULL;
}

/* Wait until someone sleeps on @folio (PG_waiters), for 10 s at most. */
static void wait_for_sleeper(struct folio *folio)
{
	struct timespec tick = { 0, 1000000 };
	int i;

	for (i = 0; i < 10000 && !folio_test_flag(folio, PG_waiters); i++)
		nanosleep(&tick, NULL);
	assert_true(folio_test_flag(folio, PG_waiters));
}

/*
 * A shrinking truncation while an fsync's write of a page past the new
 * size is under way (its folio locked, under writeback, no longer
 * dirty): the write lands after the file was cut, and makes it longer
 * again.  The truncation must wait for it and cut the file again, so
 * that the file ends where the cache does.  The write is held until
 * the truncation sleeps on the folio (PG_waiters: nobody else waits on
 * it), whatever it waits there for.
 */
static void test_truncate_during_writeback(void **state)
{
	struct op_thread sync = { 0 }, trunc = { 0 };
	unsigned char buf[PAGE];
	pthread_t syncer, truncater;
	struct folio *folio;
	struct ioenv e;

	(void)state;
	ioenv_init(&e);
	api_fill(buf, PAGE, 40 * PAGE, 6);
	assert_int_equal(upc_write(e.file, buf, PAGE, 40 * PAGE), PAGE);
	folio = filemap_get_folio(upc_file_mapping(e.file), 40);
	assert_false(IS_ERR(folio));
	hold_entered = hold_open = 0;
	hold_at = 40 * PAGE;
	__atomic_store_n(&hold_fd, e.fd, __ATOMIC_RELEASE);
	sync.file = trunc.file = e.file;
	assert_int_equal(pthread_create(&syncer, NULL, op_thread, &sync), 0);
	while (!__atomic_load_n(&hold_entered, __ATOMIC_ACQUIRE))
		sched_yield();
	trunc.size = 10 * PAGE;
	assert_int_equal(pthread_create(&truncater, NULL, op_thread, &trunc),
			 0);
	wait_for_sleeper(folio);
	__atomic_store_n(&hold_open, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(syncer, NULL), 0);
	assert_int_equal(pthread_join(truncater, NULL), 0);
	__atomic_store_n(&hold_fd, -1, __ATOMIC_RELEASE);
	folio_put(folio);
	assert_int_equal(sync.ret, 0);
	assert_int_equal(trunc.ret, 0);
	assert_int_equal(upc_size(e.file), 10 * PAGE);
	assert_int_equal(fd_size(e.fd), 10 * PAGE);
	fd_expect(&e, 0, 10 * PAGE, 1);
	ioenv_fini(&e);
}

/*
 * A direct file whose direct write is refused goes buffered, and only
 * bytes known to be on the device count as written: when the flush
 * after the buffered write fails, every page of the transfer stays
 * dirty, the fsync fails, and the next fsync writes them again.
 */
static void test_direct_fallback_flush_error(void **state)
{
	const size_t len = 4 * PAGE;
	struct upc_file *file;
	struct fenv e;
	int dfd;

	(void)state;
	fenv_init(&e, 8UL << 20, 0);
	dfd = direct_open(&e, &file);
	file_write_pattern(file, 0, len, 7);
	__atomic_store_n(&refuse_direct_fd, dfd, __ATOMIC_RELAXED);
	failed_syncs = 0;
	__atomic_store_n(&fail_range_sync_fd, dfd, __ATOMIC_RELAXED);
	assert_int_equal(upc_fsync(file), -EIO);
	assert_true(failed_syncs >= 1);
	__atomic_store_n(&fail_range_sync_fd, -1, __ATOMIC_RELAXED);
	assert_true(xa_marked(&upc_file_mapping(file)->i_pages,
			      PAGECACHE_TAG_DIRTY));
	assert_true(file_has_pattern(file, 0, len, 7));
	assert_int_equal(upc_fsync(file), 0);
	__atomic_store_n(&refuse_direct_fd, -1, __ATOMIC_RELAXED);
	assert_false(xa_marked(&upc_file_mapping(file)->i_pages,
			       PAGECACHE_TAG_DIRTY));
	assert_true(fd_has_pattern(e.fd, 0, len, 7));
	assert_int_equal(upc_close(file), 0);
	close(dfd);
	fenv_fini(&e);
}

/*
 * The file's own fsync() or fdatasync() failing (the device lost a
 * write the kernel had taken) is upc_fsync()'s and upc_fdatasync()'s
 * error, though the cache wrote every page it held.
 */
static void test_fsync_flush_error(void **state)
{
	unsigned char buf[100];
	struct ioenv e;

	(void)state;
	ioenv_init(&e);
	memset(buf, 0xdd, sizeof(buf));
	assert_int_equal(upc_write(e.file, buf, sizeof(buf), 10), 100);
	failed_syncs = 0;
	__atomic_store_n(&fail_fsync_fd, e.fd, __ATOMIC_RELAXED);
	assert_int_equal(upc_fsync(e.file), -EIO);
	assert_int_equal(upc_fdatasync(e.file), -EIO);
	assert_int_equal(failed_syncs, 2);
	__atomic_store_n(&fail_fsync_fd, -1, __ATOMIC_RELAXED);
	assert_int_equal(upc_fsync(e.file), 0);
	ioenv_fini(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_in_page_read_error),
		cmocka_unit_test(test_write_last_page_read_error),
		cmocka_unit_test(test_write_first_page_read_error),
		cmocka_unit_test(test_write_reads_only_edges),
		cmocka_unit_test(test_read_error),
		cmocka_unit_test(test_truncate_during_writeback),
		cmocka_unit_test(test_direct_fallback_flush_error),
		cmocka_unit_test(test_fsync_flush_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
