// SPDX-License-Identifier: MIT
/*
 * tests/io/test_io_batch.c - io_batch_rw() and fd_rw_continue() (io/):
 * every transfer of a batch comes back whole, short only at the end of
 * the file, or with its error and the bytes moved before it; the same
 * with io_uring and without; and what each path costs in system calls,
 * which the counters make exact.
 *
 * Where this kernel refuses io_uring (a seccomp filter, an old kernel),
 * the io_uring cases say so and are skipped; the other path is tested
 * either way.
 *
 * A regular file never takes none of a write without an error, so the
 * test stands between io/fd.c and pwrite(), linked with
 *
 * Link: -Wl,--wrap=pwrite
 *
 * (cmake/UpcacheTests.cmake reads that line): a pwrite() to
 * zero_write_fd moves nothing and says so with 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "fault.h"
#include "io/fd.h"
#include "io/uring.h"

#define PAGE	4096
#define NPAGES	96

static char dir[256];
static char path[300];

ssize_t __real_pwrite(int fd, const void *buf, size_t count, off_t offset);
ssize_t __wrap_pwrite(int fd, const void *buf, size_t count, off_t offset);

/* The descriptor whose pwrite() calls take nothing, or -1. */
static int zero_write_fd = -1;

ssize_t __wrap_pwrite(int fd, const void *buf, size_t count, off_t offset)
{
	if (fd >= 0 && fd == zero_write_fd)
		return 0;
	return __real_pwrite(fd, buf, count, offset);
}

/* The byte at @pos of a file written with @seed. */
static unsigned char byte_at(int64_t pos, unsigned int seed)
{
	return (unsigned char)((pos * 131 + seed * 7 + (pos >> 12)) & 0xff);
}

/* A file of NPAGES pages of byte_at(., @seed); its descriptor, O_RDWR. */
static int make_file(unsigned int seed)
{
	unsigned char buf[PAGE];
	int fd, p, i;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	for (p = 0; p < NPAGES; p++) {
		for (i = 0; i < PAGE; i++)
			buf[i] = byte_at((int64_t)p * PAGE + i, seed);
		assert_int_equal(pwrite(fd, buf, PAGE, (off_t)p * PAGE), PAGE);
	}
	return fd;
}

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");

	(void)state;
	snprintf(dir, sizeof(dir), "%s/upc-io-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/data", dir);
	/* pwrite() past RLIMIT_FSIZE: EFBIG, not death by SIGXFSZ. */
	signal(SIGXFSZ, SIG_IGN);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return rmdir(dir);
}

/* Skip an io_uring case where this thread cannot have a ring. */
static bool need_uring(void)
{
	if (io_uring_usable())
		return true;
	print_message("io_uring is not available here: case skipped\n");
	return false;
}

/*
 * IO_BOTH_PATHS() - test_@name_sync() and test_@name_uring(): the case
 * check_@name(uring) through each path, the ring's skipped where this
 * thread cannot have one.
 */
#define IO_BOTH_PATHS(name)						\
static void test_##name##_sync(void **state)				\
{									\
	(void)state;							\
	check_##name(false);						\
}									\
									\
static void test_##name##_uring(void **state)				\
{									\
	(void)state;							\
	if (!need_uring())						\
		skip();							\
	check_##name(true);						\
}

/*
 * Reads (through io_uring if @uring) of @nr transfers of two buffers each (a page and a half, then
 * half a page), two pages apart, the last ending past the end
 * of the file; check every byte and result.
 */
static void check_reads(unsigned int nr, bool uring)
{
	static unsigned char bufs[40][2][PAGE];
	struct iovec iov[40][2];
	struct io_rw rws[40];
	unsigned int i;
	int fd = make_file(3);
	size_t b;

	assert_true(nr <= 40 && 2 * nr < NPAGES);
	memset(bufs, 0xee, sizeof(bufs));
	for (i = 0; i < nr; i++) {
		iov[i][0] = (struct iovec){ bufs[i][0], PAGE };
		iov[i][1] = (struct iovec){ bufs[i][1], PAGE / 2 };
		rws[i] = (struct io_rw){ .iov = iov[i], .iovcnt = 2 };
		rws[i].off = (int64_t)(2 * i) * PAGE + 100;
	}
	/* The last one starts inside the last page and runs past the end. */
	rws[nr - 1].off = (int64_t)NPAGES * PAGE - 1000;
	io_batch_rw(fd, false, rws, nr, uring);
	for (i = 0; i < nr; i++) {
		size_t want = i == nr - 1 ? 1000 : PAGE + PAGE / 2;

		assert_int_equal(rws[i].res, (ssize_t)want);
		assert_int_equal(rws[i].done, want);
		for (b = 0; b < want; b++) {
			unsigned char got = b < PAGE ? bufs[i][0][b] :
					    bufs[i][1][b - PAGE];

			assert_int_equal(got, byte_at(rws[i].off +
						      (int64_t)b, 3));
		}
		/* Nothing written past what was read. */
		if (want < PAGE)
			assert_int_equal(bufs[i][0][want], 0xee);
	}
	close(fd);
}

/* Without io_uring: one preadv() per transfer. */
static void test_reads_sync(void **state)
{
	struct io_counters *c = io_thread_counters();

	(void)state;
	*c = (struct io_counters){ 0 };
	check_reads(10, false);
	assert_int_equal(c->transfers, 10);
	assert_int_equal(c->bytes, 9 * (PAGE + PAGE / 2) + 1000);
	/* One each, and the last one's second call, which finds the end. */
	assert_int_equal(c->syscalls, 10 + 1);
	assert_int_equal(c->uring_batches, 0);
}

/* With it: one submission for all ten, the same bytes. */
static void test_reads_uring(void **state)
{
	struct io_counters *c = io_thread_counters();

	(void)state;
	if (!need_uring())
		skip();
	*c = (struct io_counters){ 0 };
	check_reads(10, true);
	assert_int_equal(c->transfers, 10);
	assert_int_equal(c->bytes, 9 * (PAGE + PAGE / 2) + 1000);
	assert_int_equal(c->uring_batches, 1);
	/* One submit-and-wait; a wait more only if a completion lagged. */
	assert_true(c->syscalls >= 1 && c->syscalls <= 10);
}

/* A single transfer never takes the ring: preadv() alone (twice, as
 * the first ends at the end of the file). */
static void test_single_transfer_is_direct(void **state)
{
	struct io_counters *c = io_thread_counters();

	(void)state;
	*c = (struct io_counters){ 0 };
	check_reads(1, true);
	assert_int_equal(c->syscalls, 2);
	assert_int_equal(c->uring_batches, 0);
}

/* One submission per ring of 32 transfers. */
static void test_batch_larger_than_ring(void **state)
{
	struct io_counters *c = io_thread_counters();

	(void)state;
	if (!need_uring())
		skip();
	*c = (struct io_counters){ 0 };
	check_reads(32, true);
	assert_int_equal(c->uring_batches, 1);
	*c = (struct io_counters){ 0 };
	check_reads(32 + 1, true);
	assert_int_equal(c->uring_batches, 2);
	/* Each transfer once: the second submission takes the 33rd. */
	assert_int_equal(c->transfers, 32 + 1);
	assert_int_equal(c->bytes, 32 * (PAGE + PAGE / 2) + 1000);
}

/* Write every other page with @seed through one batch; check the file. */
static void check_writes(bool uring)
{
	static unsigned char src[NPAGES / 2][PAGE];
	unsigned char got[PAGE];
	struct iovec iov[NPAGES / 2];
	struct io_rw rws[NPAGES / 2];
	unsigned int i, b;
	int fd = make_file(1);

	for (i = 0; i < NPAGES / 2; i++) {
		for (b = 0; b < PAGE; b++)
			src[i][b] = byte_at((int64_t)(2 * i) * PAGE + b, 9);
		iov[i] = (struct iovec){ src[i], PAGE };
		rws[i] = (struct io_rw){ .iov = &iov[i], .iovcnt = 1,
					 .off = (int64_t)(2 * i) * PAGE };
	}
	io_batch_rw(fd, true, rws, NPAGES / 2, uring);
	for (i = 0; i < NPAGES / 2; i++) {
		assert_int_equal(rws[i].res, PAGE);
		assert_int_equal(rws[i].done, PAGE);
	}
	for (i = 0; i < NPAGES; i++) {
		assert_int_equal(pread(fd, got, PAGE, (off_t)i * PAGE), PAGE);
		for (b = 0; b < PAGE; b++)
			assert_int_equal(got[b],
					 byte_at((int64_t)i * PAGE + b,
						 i % 2 ? 1 : 9));
	}
	close(fd);
}

static void test_writes_sync(void **state)
{
	struct io_counters *c = io_thread_counters();

	(void)state;
	*c = (struct io_counters){ 0 };
	check_writes(false);
	assert_int_equal(c->syscalls, NPAGES / 2);
}

static void test_writes_uring(void **state)
{
	struct io_counters *c = io_thread_counters();

	(void)state;
	if (!need_uring())
		skip();
	*c = (struct io_counters){ 0 };
	check_writes(true);
	assert_int_equal(c->uring_batches, 2);		/* 32 + 16 */
	assert_true(c->syscalls < NPAGES / 2);
}

/*
 * Errors, per transfer: a descriptor that is not open, or open for the
 * other direction; a write crossing RLIMIT_FSIZE fails with EFBIG after
 * the bytes below it, and @done says how many.
 */
static void check_errors(bool uring)
{
	static unsigned char buf[4][2 * PAGE];
	struct iovec iov[4];
	struct io_rw rws[4];
	struct rlimit rl, old;
	unsigned int i;
	int fd = make_file(1), rdonly = open(path, O_RDONLY);

	assert_true(rdonly >= 0);
	for (i = 0; i < 4; i++) {
		iov[i] = (struct iovec){ buf[i], sizeof(buf[i]) };
		rws[i] = (struct io_rw){ .iov = &iov[i], .iovcnt = 1,
					 .off = (int64_t)i * 4 * PAGE };
	}
	io_batch_rw(-1, false, rws, 4, uring);
	for (i = 0; i < 4; i++) {
		assert_int_equal(rws[i].res, -EBADF);
		assert_int_equal(rws[i].done, 0);
	}
	io_batch_rw(rdonly, true, rws, 4, uring);
	for (i = 0; i < 4; i++)
		assert_int_equal(rws[i].res, -EBADF);

	/* Files end at page 100 + 1 KiB; transfer 2 crosses it. */
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	rl = old;
	rl.rlim_cur = 100 * PAGE + 1024;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &rl), 0);
	rws[0].off = 10 * PAGE;
	rws[1].off = 50 * PAGE;
	rws[2].off = 99 * PAGE;
	rws[3].off = 120 * PAGE;
	io_batch_rw(fd, true, rws, 4, uring);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	assert_int_equal(rws[0].res, 2 * PAGE);
	assert_int_equal(rws[1].res, 2 * PAGE);
	assert_int_equal(rws[2].res, -EFBIG);
	assert_int_equal(rws[2].done, PAGE + 1024);
	assert_int_equal(rws[3].res, -EFBIG);
	assert_int_equal(rws[3].done, 0);
	close(rdonly);
	close(fd);
}

IO_BOTH_PATHS(errors)

/* fd_rw_continue() picks up after the bytes already moved. */
static void test_rw_continue(void **state)
{
	unsigned char a[100], b[PAGE];
	struct iovec iov[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
	size_t done = 150, i;
	int fd = make_file(5);

	(void)state;
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	assert_int_equal(fd_rw_continue(fd, false, iov, 2, 1000, &done),
			 sizeof(a) + sizeof(b));
	assert_int_equal(done, sizeof(a) + sizeof(b));
	/* The first 150 bytes were "already read": left as they were. */
	for (i = 0; i < sizeof(a); i++)
		assert_int_equal(a[i], 0);
	for (i = 0; i < 50; i++)
		assert_int_equal(b[i], 0);
	for (i = 50; i < sizeof(b); i++)
		assert_int_equal(b[i], byte_at(1000 + 100 + (int64_t)i, 5));
	/* Nothing left to move: no system call. */
	io_thread_counters()->syscalls = 0;
	assert_int_equal(fd_rw_continue(fd, true, iov, 2, 0, &done),
			 sizeof(a) + sizeof(b));
	assert_int_equal(io_thread_counters()->syscalls, 0);
	close(fd);
}

/* Does page @page of @fd hold @value in every byte? */
static void assert_page_filled(int fd, int page, unsigned char value)
{
	unsigned char got[PAGE];
	int b;

	assert_int_equal(pread(fd, got, PAGE, (off_t)page * PAGE), PAGE);
	for (b = 0; b < PAGE; b++)
		assert_int_equal(got[b], value);
}

/*
 * Whole buffers go to one system call, up to IOV_MAX of them: a read
 * of 96 pages into 96 separate pages is one preadv(), and their write
 * one pwritev() (a copy of 32 buffers per call once made that three).
 */
static void test_many_buffers_one_call(void **state)
{
	static unsigned char pages[NPAGES][PAGE];
	struct iovec iov[NPAGES];
	int fd = make_file(6);
	size_t done = 0;
	int i, b;

	(void)state;
	/* Backwards in memory, so that no two neighbours could merge. */
	for (i = 0; i < NPAGES; i++)
		iov[i] = (struct iovec){ pages[NPAGES - 1 - i], PAGE };
	io_thread_counters()->syscalls = 0;
	assert_int_equal(fd_readv_full(fd, iov, NPAGES, 0),
			 (ssize_t)NPAGES * PAGE);
	assert_int_equal(io_thread_counters()->syscalls, 1);
	for (i = 0; i < NPAGES; i++)
		for (b = 0; b < PAGE; b++)
			assert_int_equal(pages[NPAGES - 1 - i][b],
					 byte_at((int64_t)i * PAGE + b, 6));
	for (i = 0; i < NPAGES; i++)
		memset(pages[i], i, PAGE);
	io_thread_counters()->syscalls = 0;
	assert_int_equal(fd_rw_continue(fd, true, iov, NPAGES, 0, &done),
			 (ssize_t)NPAGES * PAGE);
	assert_int_equal(io_thread_counters()->syscalls, 1);
	for (i = 0; i < NPAGES; i++)
		assert_page_filled(fd, i, NPAGES - 1 - i);
	close(fd);
}

/*
 * Buffers that follow each other in memory go to the call as one: 96
 * pages of one array, each its own buffer, are one buffer of a preadv()
 * and of a pwritev(); 32 runs of two pages, 32 buffers; every other
 * page, 48 runs, more than a merged copy holds (FD_IOV_CHUNK): the 48
 * buffers as they are.  Every byte lands where it belongs.
 */
static void test_neighbours_merge(void **state)
{
	static unsigned char pages[NPAGES][PAGE];
	static const struct {
		int step, run, iovecs;
	} cases[] = { { 1, 1, 1 }, { 3, 2, 32 }, { 2, 1, 48 } };
	struct io_counters *c = io_thread_counters();
	struct iovec iov[NPAGES];
	unsigned int k;

	(void)state;
	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		int i, b, nr = 0, fd = make_file(7);
		size_t done = 0;

		for (i = 0; i + cases[k].run <= NPAGES; i += cases[k].step)
			for (b = 0; b < cases[k].run; b++)
				iov[nr++] = (struct iovec){ pages[i + b],
							    PAGE };
		for (i = 0; i < NPAGES; i++)
			memset(pages[i], 0xee, PAGE);
		*c = (struct io_counters){ 0 };
		assert_int_equal(fd_readv_full(fd, iov, nr, 0),
				 (ssize_t)nr * PAGE);
		assert_int_equal(c->syscalls, 1);
		assert_int_equal(c->iovecs, cases[k].iovecs);
		for (i = 0; i < nr; i++)
			for (b = 0; b < PAGE; b++)
				assert_int_equal(((unsigned char *)
						  iov[i].iov_base)[b],
						 byte_at((int64_t)i * PAGE + b,
							 7));
		for (i = 0; i < nr; i++)
			memset(iov[i].iov_base, i + 1, PAGE);
		*c = (struct io_counters){ 0 };
		assert_int_equal(fd_rw_continue(fd, true, iov, nr, 0, &done),
				 (ssize_t)nr * PAGE);
		assert_int_equal(c->syscalls, 1);
		assert_int_equal(c->iovecs, cases[k].iovecs);
		for (i = 0; i < nr; i++)
			assert_page_filled(fd, i, (unsigned char)(i + 1));
		close(fd);
	}
}

/*
 * A batch of two transfers, each of 48 neighbouring page buffers: each
 * goes as one buffer, through io_uring (one submission) or not (two
 * calls), and writes its bytes where they belong.
 */
static void check_neighbours_batch(bool uring)
{
	static unsigned char pages[NPAGES][PAGE];
	struct io_counters *c = io_thread_counters();
	struct iovec iov[NPAGES];
	struct io_rw rws[2];
	int fd = make_file(8), i;

	for (i = 0; i < NPAGES; i++) {
		iov[i] = (struct iovec){ pages[i], PAGE };
		memset(pages[i], i + 3, PAGE);
	}
	for (i = 0; i < 2; i++)
		rws[i] = (struct io_rw){ .iov = &iov[i * NPAGES / 2],
					 .iovcnt = NPAGES / 2,
					 .off = (int64_t)i * NPAGES / 2 * PAGE };
	*c = (struct io_counters){ 0 };
	io_batch_rw(fd, true, rws, 2, uring);
	for (i = 0; i < 2; i++)
		assert_int_equal(rws[i].res, NPAGES / 2 * PAGE);
	assert_int_equal(c->iovecs, 2);
	assert_int_equal(c->uring_batches, uring ? 1 : 0);
	for (i = 0; i < NPAGES; i++)
		assert_page_filled(fd, i, (unsigned char)(i + 3));
	close(fd);
}

IO_BOTH_PATHS(neighbours_batch)

#define RESUME_LEN	64

/*
 * resume_past_iov_max() - fd_rw_continue() of file 7 from byte 1000
 * into @nr buffers of RESUME_LEN bytes, one every @stride in @bytes
 * (the ones between untouched), 100 bytes already moved: every byte
 * lands where it belongs, none before the 100th or between buffers.
 * Return: the calls it took.
 */
static unsigned long resume_past_iov_max(unsigned char (*bytes)[RESUME_LEN],
					 struct iovec *iov, int nr, int stride)
{
	int fd = make_file(7);
	size_t done = 100;
	int i, b, k;

	memset(bytes, 0xee, (size_t)nr * stride * RESUME_LEN);
	for (i = 0; i < nr; i++)
		iov[i] = (struct iovec){ bytes[stride * i], RESUME_LEN };
	io_thread_counters()->syscalls = 0;
	assert_int_equal(fd_rw_continue(fd, false, iov, nr, 1000, &done),
			 (ssize_t)nr * RESUME_LEN);
	assert_int_equal(done, (size_t)nr * RESUME_LEN);
	for (i = 0; i < nr; i++)
		for (b = 0; b < RESUME_LEN; b++) {
			int64_t at = (int64_t)i * RESUME_LEN + b;

			assert_int_equal(bytes[stride * i][b], at < 100 ? 0xee :
					 byte_at(1000 + at, 7));
			for (k = 1; k < stride; k++)
				assert_int_equal(bytes[stride * i + k][b], 0xee);
		}
	close(fd);
	return io_thread_counters()->syscalls;
}

/*
 * More buffers than one call takes (IOV_MAX), the first of them cut by
 * bytes already moved: every byte lands where it belongs, in a few
 * calls, none past the end of the buffers.  The cut copy of 32, then
 * whole ones: IOV_MAX and the rest.
 */
static void test_more_buffers_than_iov_max(void **state)
{
	enum { NR = IOV_MAX + 476 };
	static unsigned char bytes[NR][RESUME_LEN];
	static struct iovec iov[NR];

	(void)state;
	assert_true(resume_past_iov_max(bytes, iov, NR, 1) <= 3);
}

/*
 * The same with buffers that cannot merge (every other one of an
 * array): the cut first call takes a copy of FD_IOV_CHUNK buffers, the
 * first starting past the bytes already moved; the next calls take the
 * buffers as they are, IOV_MAX at most, so that none is refused: the
 * cut, then IOV_MAX whole, then the rest.
 */
static void test_unmerged_buffers_past_iov_max(void **state)
{
	enum { NR = IOV_MAX + 100 };
	static unsigned char bytes[2 * NR][RESUME_LEN];
	static struct iovec iov[NR];

	(void)state;
	assert_int_equal(resume_past_iov_max(bytes, iov, NR, 2), 3);
}

/*
 * A transfer that starts past the end of the file reads nothing and
 * says so: 0, not an error, beside one that reads a whole page.  Each
 * is asked once, one buffer each, whichever way the batch goes: the
 * ring's answers are final, not asked again without it.
 */
static void check_read_past_end(bool uring)
{
	static unsigned char buf[2][PAGE];
	struct io_counters *c = io_thread_counters();
	struct iovec iov[2];
	struct io_rw rws[2];
	unsigned int i, b;
	int fd = make_file(4);

	memset(buf, 0xee, sizeof(buf));
	for (i = 0; i < 2; i++)
		iov[i] = (struct iovec){ buf[i], PAGE };
	rws[0] = (struct io_rw){ .iov = &iov[0], .iovcnt = 1, .off = PAGE };
	rws[1] = (struct io_rw){ .iov = &iov[1], .iovcnt = 1,
				 .off = (int64_t)(NPAGES + 2) * PAGE };
	*c = (struct io_counters){ 0 };
	io_batch_rw(fd, false, rws, 2, uring);
	assert_int_equal(c->iovecs, 2);
	assert_int_equal(c->uring_batches, uring ? 1 : 0);
	if (!uring)
		assert_int_equal(c->syscalls, 2);
	assert_int_equal(rws[0].res, PAGE);
	assert_int_equal(rws[0].done, PAGE);
	assert_int_equal(rws[1].res, 0);
	assert_int_equal(rws[1].done, 0);
	for (b = 0; b < PAGE; b++) {
		assert_int_equal(buf[0][b], byte_at(PAGE + (int64_t)b, 4));
		assert_int_equal(buf[1][b], 0xee);
	}
	close(fd);
}

IO_BOTH_PATHS(read_past_end)

/*
 * The same transfers sent again, as a caller that keeps its array does:
 * each starts from nothing moved, whatever the last batch left in it.
 */
static void check_batch_sent_twice(bool uring)
{
	static unsigned char buf[4][PAGE];
	struct iovec iov[4];
	struct io_rw rws[4];
	unsigned int i, b, round;
	int fd = make_file(5);

	for (i = 0; i < 4; i++) {
		iov[i] = (struct iovec){ buf[i], PAGE };
		rws[i] = (struct io_rw){ .iov = &iov[i], .iovcnt = 1,
					 .off = (int64_t)(3 * i) * PAGE };
	}
	for (round = 0; round < 2; round++) {
		memset(buf, 0xee, sizeof(buf));
		io_batch_rw(fd, false, rws, 4, uring);
		for (i = 0; i < 4; i++) {
			assert_int_equal(rws[i].res, PAGE);
			assert_int_equal(rws[i].done, PAGE);
			for (b = 0; b < PAGE; b++)
				assert_int_equal(buf[i][b],
						 byte_at(rws[i].off +
							 (int64_t)b, 5));
		}
	}
	close(fd);
}

IO_BOTH_PATHS(batch_sent_twice)

/*
 * A transfer of more buffers than a merged copy holds (40 that cannot
 * merge) goes to the ring as it is, all 40: one submission reads all 32
 * transfers whole, and none needs a call of its own to finish.  (A
 * call more is a wait for a completion that lagged, at most one per
 * completion short of all of them.)
 */
static void test_unmerged_transfers_uring(void **state)
{
	enum { NR = 32, BUFS = 40, LEN = 64 };
	static unsigned char bytes[NR][2 * BUFS][LEN];
	static struct iovec iov[NR][BUFS];
	struct io_counters *c = io_thread_counters();
	struct io_rw rws[NR];
	int fd = make_file(2), i, j, b;

	(void)state;
	if (!need_uring()) {
		close(fd);
		skip();
	}
	memset(bytes, 0xee, sizeof(bytes));
	for (i = 0; i < NR; i++) {
		for (j = 0; j < BUFS; j++)
			iov[i][j] = (struct iovec){ bytes[i][2 * j], LEN };
		rws[i] = (struct io_rw){ .iov = iov[i], .iovcnt = BUFS,
					 .off = (int64_t)i * PAGE };
	}
	*c = (struct io_counters){ 0 };
	io_batch_rw(fd, false, rws, NR, true);
	assert_int_equal(c->uring_batches, 1);
	assert_int_equal(c->iovecs, NR * BUFS);
	assert_int_equal(c->bytes, NR * BUFS * LEN);
	assert_true(c->syscalls < 1 + NR);
	for (i = 0; i < NR; i++) {
		assert_int_equal(rws[i].res, BUFS * LEN);
		for (j = 0; j < BUFS; j++)
			for (b = 0; b < LEN; b++)
				assert_int_equal(bytes[i][2 * j][b],
						 byte_at((int64_t)i * PAGE +
							 j * LEN + b, 2));
	}
	close(fd);
}

/*
 * A write that moves nothing and names no error (a pwrite() that
 * returns 0) is an error, -EIO, not a write that stopped early: no
 * progress would otherwise look like success.
 */
static void test_write_no_progress(void **state)
{
	unsigned char buf[100];
	int fd = make_file(3);

	(void)state;
	memset(buf, 0x5a, sizeof(buf));
	zero_write_fd = fd;
	assert_int_equal(fd_write_full(fd, buf, sizeof(buf), 0), -EIO);
	zero_write_fd = -1;
	assert_int_equal(fd_write_full(fd, buf, sizeof(buf), 0), 0);
	close(fd);
}

/*
 * One batch: eight pages of @fd (written with @seed), five apart from
 * page @first, in eight transfers.  No cmocka assertion: it runs off
 * the main thread.  Return: whether it read the right bytes.
 */
static bool batch_reads_right(int fd, unsigned int seed, int first)
{
	unsigned char *buf = malloc(8 * PAGE);
	struct iovec iov[8];
	struct io_rw rws[8];
	bool ok = buf != NULL;
	int i, b;

	for (i = 0; ok && i < 8; i++) {
		iov[i] = (struct iovec){ buf + i * PAGE, PAGE };
		rws[i] = (struct io_rw){ .iov = &iov[i], .iovcnt = 1,
					 .off = (int64_t)(first + 5 * i) * PAGE };
	}
	if (ok)
		io_batch_rw(fd, false, rws, 8, true);
	for (i = 0; ok && i < 8; i++) {
		ok = rws[i].res == PAGE;
		for (b = 0; ok && b < PAGE; b++)
			ok = buf[i * PAGE + b] ==
			     byte_at(rws[i].off + b, seed);
	}
	free(buf);
	return ok;
}

/* A thread's batch (@arg: the descriptor of a file written with 3). */
static void *thread_batches(void *arg)
{
	bool right = batch_reads_right((int)(intptr_t)arg, 3, 0);

	return (void *)(uintptr_t)(right &&
				   io_thread_counters()->uring_batches);
}

/*
 * A new thread whose ring cannot be allocated (@arg: the descriptor of
 * a file written with 3): its batch goes through preadv() instead, with
 * the same bytes, and its next batch makes the ring after all.
 * Return: non-NULL if both batches went so.
 */
static void *thread_ring_fails(void *arg)
{
	int fd = (int)(intptr_t)arg;
	bool fell_back, injected;

	upc_fault_fail_nth(1);
	fell_back = batch_reads_right(fd, 3, 0) &&
		    !io_thread_counters()->uring_batches;
	injected = upc_fault_injected();
	upc_fault_fail_nth(0);
	return (void *)(uintptr_t)(fell_back && injected &&
				   batch_reads_right(fd, 3, 1) &&
				   io_thread_counters()->uring_batches == 1);
}

/*
 * Threads that send batches at once and exit: each has its own ring,
 * closed when it exits (a leak would show under the sanitizers' leak
 * check).
 */
static void test_threads_own_rings(void **state)
{
	pthread_t t[4];
	void *ret;
	int i, fd;

	(void)state;
	if (!need_uring())
		skip();
	fd = make_file(3);
	for (i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, thread_batches,
						(void *)(intptr_t)fd), 0);
	for (i = 0; i < 4; i++) {
		assert_int_equal(pthread_join(t[i], &ret), 0);
		assert_true(ret != NULL);
	}
	close(fd);
}

/* No memory for a thread's ring: the batch still completes, without it. */
static void test_ring_alloc_fails(void **state)
{
	pthread_t t;
	void *ret;
	int fd;

	(void)state;
	if (!need_uring())
		skip();
	fd = make_file(3);
	assert_int_equal(pthread_create(&t, NULL, thread_ring_fails,
					(void *)(intptr_t)fd), 0);
	assert_int_equal(pthread_join(t, &ret), 0);
	assert_true(ret != NULL);
	close(fd);
}

/*
 * @rounds batches of 31 writes of scattered pages to @fd, each round's
 * bytes its own (from @seed), read back after each batch.  No cmocka
 * assertion (it runs in a child too).  Return: true if all were right.
 */
static bool write_rounds(int fd, unsigned int seed, int rounds)
{
	static unsigned char src[31][PAGE];
	unsigned char got[PAGE];
	struct iovec iov[31];
	struct io_rw rws[31];
	int r, i;

	for (r = 0; r < rounds; r++) {
		for (i = 0; i < 31; i++) {
			memset(src[i], (int)(seed * 31 + (unsigned int)r + i),
			       PAGE);
			iov[i] = (struct iovec){ src[i], PAGE };
			rws[i] = (struct io_rw){ .iov = &iov[i], .iovcnt = 1,
						 .off = (int64_t)(3 * i) * PAGE };
		}
		io_batch_rw(fd, true, rws, 31, true);
		for (i = 0; i < 31; i++)
			if (rws[i].res != PAGE ||
			    pread(fd, got, PAGE, rws[i].off) != PAGE ||
			    memcmp(got, src[i], PAGE))
				return false;
	}
	return io_thread_counters()->uring_batches >= (uint64_t)rounds;
}

/*
 * fork() after this thread made its ring: the child must not queue
 * into the ring it inherited (its memory is the parent's too).  Parent
 * and child then send batches of writes at once, each to its own file,
 * and each file must get its own bytes.
 */
static void test_fork_child_own_ring(void **state)
{
	int fd_parent, fd_child, status;
	pid_t pid;

	(void)state;
	if (!need_uring())
		skip();
	fd_parent = make_file(3);
	assert_true(unlink(path) == 0);
	fd_child = make_file(4);
	io_thread_counters()->uring_batches = 0;
	assert_true(write_rounds(fd_parent, 3, 1));	/* the ring exists */
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		io_thread_counters()->uring_batches = 0;
		_exit(write_rounds(fd_child, 4, 1000) ? 0 : 1);
	}
	io_thread_counters()->uring_batches = 0;
	assert_true(write_rounds(fd_parent, 5, 1000));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	close(fd_parent);
	close(fd_child);
}

/*
 * A direct read that ends short, off a block's edge, has met the end of
 * the file: no second call at an offset direct I/O would refuse (some
 * file systems check alignment before the end).  A buffered read that
 * ends short asks again, to be sure.
 */
static void test_direct_read_end(void **state)
{
	struct io_counters *c = io_thread_counters();
	int fd = make_file(6), dfd;
	void *buf = NULL;
	size_t i;

	(void)state;
	assert_int_equal(ftruncate(fd, PAGE + 100), 0);
	dfd = open(path, O_RDONLY | O_DIRECT);
	if (dfd < 0) {
		close(fd);
		print_message("O_DIRECT refused here: skipped\n");
		skip();
	}
	assert_int_equal(posix_memalign(&buf, PAGE, 2 * PAGE), 0);
	*c = (struct io_counters){ 0 };
	assert_int_equal(fd_read_full(dfd, buf, 2 * PAGE, 0), PAGE + 100);
	assert_int_equal(c->syscalls, 1);
	for (i = 0; i < PAGE + 100; i++)
		assert_int_equal(((unsigned char *)buf)[i],
				 byte_at((int64_t)i, 6));
	*c = (struct io_counters){ 0 };
	assert_int_equal(fd_read_full(fd, buf, 2 * PAGE, 0), PAGE + 100);
	assert_int_equal(c->syscalls, 2);
	free(buf);
	close(dfd);
	close(fd);
}

/*
 * A direct read asked at an offset off a block's edge is asked of the
 * kernel, which answers: -EINVAL where the file system checks the
 * alignment, the bytes where it does not.  It is not taken for the end
 * of the file: nothing has been read yet.
 */
static void test_direct_read_unaligned(void **state)
{
	struct io_counters *c = io_thread_counters();
	int fd = make_file(6), dfd;
	void *buf = NULL;
	ssize_t n;

	(void)state;
	dfd = open(path, O_RDONLY | O_DIRECT);
	if (dfd < 0) {
		close(fd);
		print_message("O_DIRECT refused here: skipped\n");
		skip();
	}
	assert_int_equal(posix_memalign(&buf, PAGE, PAGE), 0);
	*c = (struct io_counters){ 0 };
	n = fd_read_full(dfd, buf, PAGE, 100);
	assert_true(n == -EINVAL || n == PAGE);
	assert_true(c->syscalls >= 1);
	free(buf);
	close(dfd);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reads_sync),
		cmocka_unit_test(test_reads_uring),
		cmocka_unit_test(test_single_transfer_is_direct),
		cmocka_unit_test(test_batch_larger_than_ring),
		cmocka_unit_test(test_writes_sync),
		cmocka_unit_test(test_writes_uring),
		cmocka_unit_test(test_errors_sync),
		cmocka_unit_test(test_errors_uring),
		cmocka_unit_test(test_rw_continue),
		cmocka_unit_test(test_many_buffers_one_call),
		cmocka_unit_test(test_neighbours_merge),
		cmocka_unit_test(test_neighbours_batch_sync),
		cmocka_unit_test(test_neighbours_batch_uring),
		cmocka_unit_test(test_more_buffers_than_iov_max),
		cmocka_unit_test(test_unmerged_buffers_past_iov_max),
		cmocka_unit_test(test_read_past_end_sync),
		cmocka_unit_test(test_read_past_end_uring),
		cmocka_unit_test(test_batch_sent_twice_sync),
		cmocka_unit_test(test_batch_sent_twice_uring),
		cmocka_unit_test(test_unmerged_transfers_uring),
		cmocka_unit_test(test_write_no_progress),
		cmocka_unit_test(test_threads_own_rings),
		cmocka_unit_test(test_ring_alloc_fails),
		cmocka_unit_test(test_fork_child_own_ring),
		cmocka_unit_test(test_direct_read_end),
		cmocka_unit_test(test_direct_read_unaligned),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
