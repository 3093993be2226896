/* SPDX-License-Identifier: MIT */
/*
 * tests/api/diff_helpers.h - pieces shared by the differential tests of
 * the upc_ API (test_file_diff.c, test_shmem_tmpfs_diff.c,
 * test_anon_diff.c).
 *
 * This header owns what those tests do alike: the failure report that
 * names the run, the step and the seed (diff_fail(), DIFF_CHECK()), the
 * seed and the trace (diff_seed(), diff_trace()), the seeded random
 * choices (rnd(), chance(), rand_near_base(), rand_near_page(),
 * fill_random()), and, for the tests that compare an upcache file with
 * a reference file, the same call on both with the results compared
 * (diff_write(), diff_fallocate(), diff_truncate()) and the comparison
 * of reads (diff_compare_read(), diff_compare_range(),
 * diff_compare_edges()).  What a test compares against, and how it
 * picks its steps, stays in the test.
 *
 * A test keeps its run's state in a struct diff of its own, reached
 * through a static pointer d, and includes this header after both.  The
 * struct must have these members:
 *
 *	struct upc_rand rnd;	the run's random stream
 *	uint64_t seed;		UPC_SEED, as printed
 *	unsigned long step;	the step under way
 *	bool trace;		UPC_DIFF_TRACE=1: print every step
 *	char op[160];		the step, for failure messages
 *
 * and the test defines diff_describe() (declared below).  The test is
 * compiled with _GNU_SOURCE (fallocate()).  Helpers here assert with
 * cmocka, so only a test's main thread may call them.
 *
 * Static functions in a header: each test program includes this once.
 */
#ifndef UPCACHE_TESTS_API_DIFF_HELPERS_H
#define UPCACHE_TESTS_API_DIFF_HELPERS_H

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <upcache/upcache.h>

#include "rand.h"

#define DIFF_UNUSED	__attribute__((unused))
#define DIFF_PAGE	4096L

/* ---- failures ------------------------------------------------------------ */

/**
 * diff_describe() - Name the run for a failure message.
 * @buf: Where the name goes ("file diff", "tmpfs diff (huge=never)").
 * @size: Its size.
 *
 * Defined by each test.  It may also print to stderr what else a
 * failure should show; diff_fail() calls it just before failing.
 */
static void diff_describe(char *buf, size_t size);

/**
 * diff_fail() - Fail the test: "<name> failed at step <n>, UPC_SEED=<s>:
 * <op>: <message>".
 * @fmt: printf() format of the message, and its arguments.
 *
 * Context: does not return (cmocka's fail_msg()).
 */
static DIFF_UNUSED void diff_fail(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static DIFF_UNUSED void diff_fail(const char *fmt, ...)
{
	char msg[256], name[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diff_describe(name, sizeof(name));
	fail_msg("%s failed at step %lu, UPC_SEED=%" PRIu64 ": %s: %s", name,
		 d->step, d->seed, d->op, msg);
}

/* DIFF_CHECK() - diff_fail() with the message unless @cond holds. */
#define DIFF_CHECK(cond, ...)						\
	do {								\
		if (!(cond))						\
			diff_fail(__VA_ARGS__);				\
	} while (0)

/* ---- the run ------------------------------------------------------------- */

/**
 * diff_seed() - Take the run's seed and trace setting from the
 * environment (UPC_SEED, UPC_DIFF_TRACE), and start its random stream.
 * @mix: XORed into the seed, so that the runs of one test (policies,
 * chunk shifts) take different streams from one UPC_SEED.
 */
static DIFF_UNUSED void diff_seed(uint64_t mix)
{
	d->seed = upc_test_seed();
	d->trace = upc_test_env_ulong("UPC_DIFF_TRACE", 0);
	upc_rand_seed(&d->rnd, d->seed ^ mix);
}

/*
 * diff_trace() - With UPC_DIFF_TRACE=1, print the step before this one:
 * a step names itself in d->op as it goes.
 */
static DIFF_UNUSED void diff_trace(void)
{
	if (d->trace && d->step)
		fprintf(stderr, "# step %lu: %s\n", d->step - 1, d->op);
}

/* seconds_since() - Seconds since @t0 (CLOCK_MONOTONIC). */
static DIFF_UNUSED double seconds_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) +
	       (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* ---- random choices ------------------------------------------------------ */

/* rnd() - A number in [0, @n) from the run's stream. */
static DIFF_UNUSED int64_t rnd(int64_t n)
{
	return (int64_t)upc_rand_below(&d->rnd, (uint64_t)n);
}

/* chance() - True @num times in @den. */
static DIFF_UNUSED bool chance(unsigned int num, unsigned int den)
{
	return upc_rand_chance(&d->rnd, num, den);
}

/*
 * rand_near_base() - @base (a boundary the caller picked), one byte either
 * side of it (not below 0), or, half the time, anywhere in [0, @n).
 */
static DIFF_UNUSED int64_t rand_near_base(int64_t base, int64_t n)
{
	int64_t off;

	switch (rnd(4)) {
	case 0:
		return base;
	case 1:
		off = base + rnd(3) - 1;
		return off < 0 ? 0 : off;
	default:
		return rnd(n);
	}
}

/*
 * rand_near_page() - An offset inside [0, @span]: on or next to a page
 * boundary, or anywhere.
 */
static DIFF_UNUSED int64_t rand_near_page(int64_t span)
{
	return rand_near_base(rnd(span / DIFF_PAGE + 1) * DIFF_PAGE,
			      span < INT64_MAX ? span + 1 : span);
}

/*
 * fill_random() - Fill @buf with @len random bytes: a fast generator
 * seeded from the run's stream, 8 bytes at a time.
 */
static DIFF_UNUSED void fill_random(void *buf, size_t len)
{
	unsigned char *p = buf;
	uint64_t x = upc_rand_next(&d->rnd) | 1;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(p + i, &x, 8);
	}
	for (; i < len; i++)
		p[i] = (unsigned char)(x >> (8 * (i & 7)));
}

/* ---- the kernel side and comparisons ------------------------------------- */

/* k_ret() - A system call's result as upcache gives it: -errno. */
static DIFF_UNUSED int64_t k_ret(int64_t ret)
{
	return ret < 0 ? -errno : ret;
}

/* fd_size() - The size of @fd's file (fstat()). */
static DIFF_UNUSED int64_t fd_size(int fd)
{
	struct stat st;

	assert_int_equal(fstat(fd, &st), 0);
	return st.st_size;
}

/* sat_add() - @a + @b, at most INT64_MAX (offsets next to the limit). */
static DIFF_UNUSED int64_t sat_add(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* first_diff() - The first byte where @a and @b differ; they must. */
static DIFF_UNUSED int64_t first_diff(const void *a, const void *b)
{
	const unsigned char *pa = a, *pb = b;
	int64_t i;

	for (i = 0; pa[i] == pb[i]; i++)
		;
	return i;
}

/**
 * diff_write() - pwrite() to a reference file and upc_write() to an
 * upcache file: the results must be the same.
 * @ref: The reference's name in failure messages ("tmpfs", "B").
 * @fd: The reference file.
 * @file: The upcache file.
 * @src: The bytes.
 * @len: How many.
 * @off: Where (any offset: the errors are compared too).
 *
 * The caller has named the step in d->op.
 * Return: the result, the same for both.
 */
static DIFF_UNUSED int64_t diff_write(const char *ref, int fd,
				      struct upc_file *file, const char *src,
				      int64_t len, int64_t off)
{
	int64_t rk = k_ret(pwrite(fd, src, (size_t)len, off));
	int64_t ru = upc_write(file, src, (size_t)len, off);

	DIFF_CHECK(rk == ru, "%s %" PRId64 ", upcache %" PRId64, ref, rk, ru);
	return rk;
}

/*
 * diff_fallocate() - diff_write() for fallocate() and upc_fallocate()
 * in @mode over [@off, @off + @len).
 */
static DIFF_UNUSED int64_t diff_fallocate(const char *ref, int fd,
					  struct upc_file *file, int mode,
					  int64_t off, int64_t len)
{
	int64_t rk = k_ret(fallocate(fd, mode, off, len));
	int64_t ru = upc_fallocate(file, mode, off, len);

	DIFF_CHECK(rk == ru, "%s %" PRId64 ", upcache %" PRId64, ref, rk, ru);
	return rk;
}

/* diff_truncate() - diff_write() for ftruncate() and upc_truncate(). */
static DIFF_UNUSED int64_t diff_truncate(const char *ref, int fd,
					 struct upc_file *file, int64_t size)
{
	int64_t rk = k_ret(ftruncate(fd, size));
	int64_t ru = upc_truncate(file, size);

	DIFF_CHECK(rk == ru, "%s %" PRId64 ", upcache %" PRId64, ref, rk, ru);
	return rk;
}

/**
 * diff_compare_read() - Read [@off, @off + @len) from a reference file
 * and through upcache: the results and the bytes must be the same.
 * @ref: The reference's name in failure messages ("tmpfs", "B").
 * @fd: The reference file.
 * @rbuf: Where its bytes go (@len of room).
 * @file: The upcache file.
 * @ubuf: Where upcache's bytes go (@len of room).
 * @off: Where to read (any offset: the errors are compared too).
 * @len: How many bytes.
 *
 * Return: upcache's result, the reference's.
 */
static DIFF_UNUSED int64_t diff_compare_read(const char *ref, int fd,
					     char *rbuf, struct upc_file *file,
					     char *ubuf, int64_t off,
					     int64_t len)
{
	int64_t rk, ru, i;

	rk = k_ret(pread(fd, rbuf, (size_t)len, off));
	ru = upc_read(file, ubuf, (size_t)len, off);
	DIFF_CHECK(rk == ru, "read(%" PRId64 ", %" PRId64 "): %s %" PRId64
		   ", upcache %" PRId64, off, len, ref, rk, ru);
	if (rk <= 0 || !memcmp(rbuf, ubuf, (size_t)rk))
		return ru;
	i = first_diff(rbuf, ubuf);
	diff_fail("read(%" PRId64 ", %" PRId64 "): byte %" PRId64
		  " differs: %s %#x, upcache %#x", off, len, off + i, ref,
		  (unsigned char)rbuf[i], (unsigned char)ubuf[i]);
	return ru;
}

/**
 * diff_compare_range() - Compare [@lo, @hi) in reads of at most @max_io
 * bytes; from 0 if @lo is negative.
 * @compare_read: The test's comparison of one read at an offset.
 * @max_io: The longest read it takes.
 * @lo: The start.
 * @hi: The end.
 */
static DIFF_UNUSED void diff_compare_range(void (*compare_read)(int64_t off,
								 int64_t len),
					   int64_t max_io, int64_t lo,
					   int64_t hi)
{
	if (lo < 0)
		lo = 0;
	while (lo < hi) {
		int64_t len = hi - lo < max_io ? hi - lo : max_io;

		compare_read(lo, len);
		lo += len;
	}
}

/**
 * diff_compare_edges() - After a step on [@off, @off + @len) of a file
 * of @size bytes, compare both ends of what it touched inside the file:
 * up to 64 KiB in from each end and a page out.
 * @compare_range: The test's comparison of a range.
 * @off: Where the step began (nothing is compared if it is negative or
 * at or past @size).
 * @len: How long it was (nothing if not positive).
 * @size: The file's size after it.
 */
static DIFF_UNUSED void diff_compare_edges(void (*compare_range)(int64_t lo,
								  int64_t hi),
					   int64_t off, int64_t len,
					   int64_t size)
{
	int64_t hi;

	if (off < 0 || len <= 0 || off >= size)
		return;
	hi = len > size - off ? size : off + len;
	compare_range(off - DIFF_PAGE, sat_add(off, 64 * 1024) < hi ?
		      off + 64 * 1024 : hi);
	compare_range(hi - 64 * 1024 < off ? off : hi - 64 * 1024,
		      sat_add(hi, DIFF_PAGE));
}

#endif /* UPCACHE_TESTS_API_DIFF_HELPERS_H */
