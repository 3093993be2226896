// SPDX-License-Identifier: MIT
/*
 * tests/api/test_file_ioerr.c - what a file from upc_file_open() does
 * when reading its file fails.
 *
 * A regular file does not fail a read on cue, so this test puts itself
 * between the library and the C library: it is linked with
 *
 * Link: -Wl,--wrap=preadv
 * Link: -Wl,--wrap=pread
 *
 * (cmake/UpcacheTests.cmake reads those lines), so the library's
 * preadv() and pread() calls (io/fd.c's read loop: pread() for a single
 * buffer) come to the wrappers below, which fail with EIO those that
 * touch a chosen range of the test's file and pass the rest on.  Each
 * failing call is counted, so a test can also check that a page was
 * not read at all.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "api_helpers.h"

#define PAGE		4096
#define FILE_SIZE	(64L * PAGE)

ssize_t __real_preadv(int fd, const struct iovec *iov, int iovcnt,
		      off_t offset);
ssize_t __wrap_preadv(int fd, const struct iovec *iov, int iovcnt,
		      off_t offset);
ssize_t __real_pread(int fd, void *buf, size_t count, off_t offset);
ssize_t __wrap_pread(int fd, void *buf, size_t count, off_t offset);

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_in_page_read_error),
		cmocka_unit_test(test_write_last_page_read_error),
		cmocka_unit_test(test_write_first_page_read_error),
		cmocka_unit_test(test_write_reads_only_edges),
		cmocka_unit_test(test_read_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
