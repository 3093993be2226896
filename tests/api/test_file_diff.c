// SPDX-License-Identifier: MIT
/*
 * tests/api/test_file_diff.c - differential test of files backed by a
 * file descriptor (upc_file_open()) against the same file system used
 * directly.
 *
 * Two regular files, A and B, are made in a fresh directory under
 * $TMPDIR (or /tmp): the directory is made with mkdtemp(), and the files
 * and the directory are removed at once, so a failed run leaves nothing
 * behind.  A is opened O_RDWR and put behind upcache (upc_file_open())
 * in a cache of DIFF_LIMIT bytes; B is only ever used through its own
 * descriptor.  The same seeded random sequence of steps is applied to
 * both: writes (unaligned, across pages, at and past the end so that
 * holes open, up to DIFF_MAX_IO bytes), reads, readv/writev with a
 * random split of the buffer (empty segments, more than upcache keeps
 * on its stack), truncation up and down, fallocate in the three modes
 * upcache passes on (0, KEEP_SIZE, PUNCH_HOLE | KEEP_SIZE) and with bad
 * ranges, SEEK_DATA/SEEK_HOLE, fsync and fdatasync, and closing and
 * reopening the upc_ file.  Results must be the kernel's for B (errnos
 * included: a mode or range the file system refuses must be refused
 * through upcache too), and after every step the sizes must match, as
 * must the bytes around the range the step touched and one random
 * probe.
 *
 * Reclaim.  Most offsets fall in the first DIFF_WINDOW bytes, four times
 * the cache's memory, so the file is larger than the cache most of the
 * time and reclaim keeps evicting.  Seeks, fsync and close write every
 * dirty page back, so in every other DIFF_PHASE steps (a writeback
 * phase) they are replaced by writes: dirty pages then pile up past the
 * memory limit and reclaim must write them back (pwrite()) to evict
 * them.  A run of DIFF_MIN_OPS_RECLAIM steps or more must have seen both
 * evictions and such writebacks, or it tested little of what it claims.
 *
 * What the backing file itself must hold:
 *  - after upc_fsync()/upc_fdatasync() (which return 0), A's size (its
 *    fstat()) is B's, no page is left tagged dirty, and a random range
 *    of A read with pread() matches B;
 *  - after upc_close() (which returns 0 and frees every page), all of A
 *    matches B; then A is opened again and the run goes on, its cache
 *    starting cold.  The same holds at the end, before upc_close(),
 *    upc_cache_destroy() (both 0) and the files' removal.
 *
 * Seeks.  upcache answers them by writing the dirty pages back and
 * asking the file system (lseek() on A), and the file system's answer
 * for A need not be the one it gives for B: a hole in one may be an
 * allocated range in the other (upcache writes back whole pages, the
 * kernel's page cache of either file counts pages read into it as data
 * inside unwritten extents), so the answers are not compared with B's.
 * What must hold instead: the answer is the one lseek() on A gives
 * right after the call; it is -ENXIO from a negative offset or one at
 * or past the end; it is @off itself, the size or a file system block
 * boundary; SEEK_DATA lands in [off, size) and B reads as zeros from
 * @off to there (near both ends of that range); SEEK_HOLE lands in
 * [off, size], and B reads as zeros from the hole to the end of its
 * block.  Every DIFF_FULL_EVERY steps and at the end the whole file is
 * walked by upc_seek_data()/upc_seek_hole(): each data range must match
 * B byte for byte through upc_read(), and each hole must read as zeros
 * in B.  upc_check_mapping() runs every DIFF_CHECK_EVERY steps and at
 * every full check.  Whole-file comparisons read only where either file
 * may hold data (lseek() on the kernel's side), so a file that a file
 * system lets grow to 2^63 bytes (tmpfs, XFS) is compared in time too.
 *
 * A second test opens a file O_RDONLY: reads and readv match the file,
 * and writes (-EBADF), truncation and fallocate fail as the kernel fails
 * them on that descriptor (computed, not assumed).  The file is three
 * times the cache: reads evict, but never write back; one read of all of
 * it must cost about one eviction per page (readahead must not evict
 * what it read before the copy reaches it).
 *
 * A third test writes and reads the last page a file can have (offsets
 * next to UPC_MAX_FILE_SIZE), which the random run reaches only where
 * the file system takes files that long.
 *
 * A watchdog (SIGALRM) turns a call that never returns into a failure
 * that names the step and the seed, rather than CTest's timeout.
 *
 * UPC_DIFF_OPS sets the number of steps (DIFF_DEFAULT_OPS: the file
 * system's work, not upcache's, sets the pace: freeing blocks of a file
 * system mounted with discard waits for the device), UPC_SEED the seed
 * (printed at start and in every failure), UPC_DIFF_TRACE=1 prints every
 * step.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/falloc.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <upcache/check.h>
#include <upcache/upcache.h>

#include "api/internal.h"
#include "rand.h"

#define PAGE			4096L
#define MIB			(1L << 20)
#define DIFF_LIMIT		(4 * MIB)	/* the cache's memory */
#define DIFF_WINDOW		(16 * MIB)	/* where most offsets fall */
#define DIFF_FAR		(32 * MIB)	/* beyond it, up to this far */
#define DIFF_MAX_IO		(256 * 1024 + 2 * PAGE)
#define DIFF_CHUNK		(1 * MIB)	/* reads of whole-file checks */
#define DIFF_ZERO_CHECK		(256 * 1024)	/* zeros checked at a seek */
#define DIFF_MAX_IOV		12	/* more than upcache's 8 on stack */
#define DIFF_CHECK_EVERY	64
#define DIFF_FULL_EVERY		5000
#define DIFF_PHASE		1000	/* steps; every other: writeback */
/* Evictions and writebacks are required from runs at least this long. */
#define DIFF_MIN_OPS_RECLAIM	2000

#if defined(UPC_SANITIZE_ADDRESS) || defined(UPC_SANITIZE_THREAD)
#define DIFF_DEFAULT_OPS	20000
#else
#define DIFF_DEFAULT_OPS	30000
#endif

struct diff {
	struct upc_cache *cache;
	struct upc_file *file;	/* upcache in front of @afd */
	int afd;		/* file A */
	int cfd;		/* A as the cache has it: @afd, or O_DIRECT */
	int bfd;		/* file B, the reference */
	int64_t blksize;	/* A's file system block (hole granularity) */
	struct upc_rand rnd;
	uint64_t seed;		/* UPC_SEED, as printed */
	unsigned long step;
	bool trace;		/* UPC_DIFF_TRACE=1: print every step */
	bool dirty_phase;	/* a writeback phase (opening comment) */
	char op[160];		/* the current step, for failure messages */
	char *pool;		/* random bytes that writes take a slice of */
	char *abuf;		/* what reads of A go to */
	char *bbuf;		/* what reads of B go to */
	/* What the run did, for the report: */
	unsigned long fsyncs, reopens, seeks, full_checks;
	unsigned long falloc_unsupported;	/* B's fallocate refused */
	int64_t max_size;
};

static struct diff *d;

#include "diff_helpers.h"

/* The run's name in failure messages (diff_helpers.h). */
static void diff_describe(char *buf, size_t size)
{
	snprintf(buf, size, "file diff");
}

/* ---- a watchdog: a call that never returns fails the test -------------- */

/* Seconds one step may take (a full check reads the whole file). */
#define DIFF_STEP_TIMEOUT	60

/* Append decimal @v to @p; async-signal-safe.  Return: the new end. */
static char *put_u64(char *p, uint64_t v)
{
	char tmp[24];
	int n = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while (v /= 10);
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* SIGALRM: say which step hung, with the seed, and die. */
static void diff_hung(int sig)
{
	char msg[320], *p = msg;
	size_t n = strnlen(d->op, sizeof(d->op));

	(void)sig;
	memcpy(p, "# HUNG at step ", 15);
	p = put_u64(p + 15, d->step);
	memcpy(p, ", UPC_SEED=", 11);
	p = put_u64(p + 11, d->seed);
	memcpy(p, ": ", 2);
	memcpy(p + 2, d->op, n);
	p += 2 + n;
	*p++ = '\n';
	if (write(STDERR_FILENO, msg, (size_t)(p - msg)) < 0)
		_exit(2);
	_exit(1);
}

/* Arm the watchdog for @seconds (0: disarm). */
static void watchdog(unsigned int seconds)
{
	signal(SIGALRM, seconds ? diff_hung : SIG_DFL);
	alarm(seconds);
}

/* ---- the kernel side ----------------------------------------------------- */

static int64_t b_size(void)
{
	return fd_size(d->bfd);
}

/* pread() all of [@off, @off + @len) (a regular file may return less). */
static int64_t pread_full(int fd, char *buf, int64_t len, int64_t off)
{
	int64_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, buf + done, (size_t)(len - done),
				  off + done);

		if (n < 0)
			return -errno;
		if (!n)
			break;
		done += n;
	}
	return done;
}

/* ---- random choices ------------------------------------------------------ */

/*
 * A file offset: mostly in the window, some next to the current size
 * (appends, and punches of the tail that writeback has not reached),
 * some further out (holes).
 */
static int64_t rand_offset(void)
{
	int64_t r = rnd(100), size = b_size();

	if (r < 80)
		return rand_near_page(DIFF_WINDOW);
	if (r < 95)
		return sat_add(size - (size < 2 * PAGE ? size :
					       rand_near_page(2 * PAGE)),
			       chance(1, 2) ? rnd(2 * PAGE) : 0);
	return DIFF_WINDOW + rand_near_page(DIFF_FAR - DIFF_WINDOW);
}

/* A length: mostly small, some whole pages, some up to DIFF_MAX_IO. */
static int64_t rand_len(void)
{
	int64_t r = rnd(100);

	if (r < 40)
		return 1 + rnd(2 * PAGE);
	if (r < 55)
		return (1 + rnd(16)) * PAGE;
	if (r < 80)
		return 1 + rnd(64 * 1024);
	return 1 + rnd(DIFF_MAX_IO - 1);
}

/*
 * Split [@buf, @buf + @len) into 1..DIFF_MAX_IOV segments, some empty.
 * Return: how many.
 */
static int rand_iov(char *buf, int64_t len, struct iovec *iov)
{
	int n = 1 + (int)rnd(DIFF_MAX_IOV), i;
	int64_t left = len;

	for (i = 0; i < n - 1; i++) {
		int64_t seg = chance(1, 6) ? 0 : rnd(left + 1);

		iov[i].iov_base = buf;
		iov[i].iov_len = (size_t)seg;
		buf += seg;
		left -= seg;
	}
	iov[i].iov_base = buf;
	iov[i].iov_len = (size_t)left;
	return n;
}

/* ---- comparisons --------------------------------------------------------- */

static void compare_size(void)
{
	int64_t bs = b_size(), us = upc_size(d->file);

	DIFF_CHECK(bs == us, "size: B %" PRId64 ", upcache %" PRId64, bs, us);
	if (bs > d->max_size)
		d->max_size = bs;
}

/* Read [@off, @off + @len) (len <= DIFF_MAX_IO) from both and compare. */
static void compare_read(int64_t off, int64_t len)
{
	diff_compare_read("B", d->bfd, d->bbuf, d->file, d->abuf, off, len);
}

/* Compare [@lo, @hi) in reads of at most DIFF_MAX_IO. */
static void compare_range(int64_t lo, int64_t hi)
{
	diff_compare_range(compare_read, DIFF_MAX_IO, lo, hi);
}

/* Where @fd may hold data next, at or after @pos; @hi if not before it. */
static int64_t next_data(int fd, int64_t pos, int64_t hi)
{
	int64_t ret = lseek(fd, pos, SEEK_DATA);

	return ret < 0 || ret > hi ? hi : ret;
}

/*
 * B reads as zeros in [@lo, @hi) (clipped to its size): a hole of A's.
 * Only B's own data ranges there need reading (its holes are zeros on
 * the kernel's word, and a file may be sparse up to 2^63), and only
 * @budget bytes of them (0: all).
 */
static void expect_zeros(int64_t lo, int64_t hi, int64_t budget,
			 const char *why)
{
	int64_t size = b_size(), left = budget ? budget : INT64_MAX, n, i;

	if (hi > size)
		hi = size;
	while (lo < hi && left > 0) {
		lo = next_data(d->bfd, lo, hi);
		if (lo >= hi)
			break;
		n = hi - lo < DIFF_MAX_IO ? hi - lo : DIFF_MAX_IO;
		if (n > left)
			n = left;
		left -= n;
		DIFF_CHECK(pread_full(d->bfd, d->bbuf, n, lo) == n,
			   "short read of B at %" PRId64, lo);
		for (i = 0; i < n; i++)
			DIFF_CHECK(!d->bbuf[i], "%s: byte %" PRId64 " is %#x "
				   "in B", why, lo + i,
				   (unsigned char)d->bbuf[i]);
		lo += n;
	}
}

/*
 * As expect_zeros(), within DIFF_ZERO_CHECK bytes of B's data from
 * either end: a seek answer that skips data is usually wrong near one
 * of them (the range's start, or just before the answer).
 */
static void expect_zeros_ends(int64_t lo, int64_t hi, const char *why)
{
	expect_zeros(lo, hi, DIFF_ZERO_CHECK, why);
	expect_zeros(hi - DIFF_ZERO_CHECK > lo ? hi - DIFF_ZERO_CHECK : lo, hi,
		     DIFF_ZERO_CHECK, why);
}

static void check_mapping(void)
{
	DIFF_CHECK(upc_check_mapping(upc_file_mapping(d->file)) == 0,
		   "upc_check_mapping() failed");
}

/* A's file system's own answer, read right after upcache's. */
static int64_t a_seek(int64_t off, int whence)
{
	int64_t ret = lseek(d->afd, off, whence);

	return ret < 0 ? -errno : ret;
}

/*
 * upc_seek_data(@off) and upc_seek_hole(@off) against what they must
 * be (the opening comment).  Return: the data offset (or -ENXIO), and
 * the hole after it in *@hole when there is data.
 */
static int64_t check_seeks(int64_t off, int64_t *hole)
{
	int64_t size = b_size(), data, h, fs, end;

	d->seeks++;
	data = upc_seek_data(d->file, off);
	fs = a_seek(off, SEEK_DATA);
	DIFF_CHECK(data == fs, "SEEK_DATA(%" PRId64 "): upcache %" PRId64
		   ", lseek() on A after it %" PRId64, off, data, fs);
	if (off < 0 || off >= size)
		DIFF_CHECK(data == -ENXIO, "SEEK_DATA(%" PRId64 ") with size %"
			   PRId64 ": %" PRId64 ", not -ENXIO", off, size, data);
	else
		DIFF_CHECK(data == -ENXIO || (data >= off && data < size),
			   "SEEK_DATA(%" PRId64 ") with size %" PRId64
			   " (A's file: %" PRId64 "): %" PRId64, off, size,
			   fd_size(d->afd), data);
	/* File systems answer in blocks: a boundary, or @off itself. */
	DIFF_CHECK(data < 0 || data == off || data % d->blksize == 0,
		   "SEEK_DATA(%" PRId64 "): %" PRId64 " is inside a block",
		   off, data);
	if (off >= 0 && off < size)
		expect_zeros_ends(off, data < 0 ? size : data,
				  "before SEEK_DATA's answer");

	h = upc_seek_hole(d->file, off);
	fs = a_seek(off, SEEK_HOLE);
	DIFF_CHECK(h == fs, "SEEK_HOLE(%" PRId64 "): upcache %" PRId64
		   ", lseek() on A after it %" PRId64, off, h, fs);
	if (off < 0 || off >= size) {
		DIFF_CHECK(h == -ENXIO, "SEEK_HOLE(%" PRId64 ") with size %"
			   PRId64 ": %" PRId64 ", not -ENXIO", off, size, h);
	} else {
		DIFF_CHECK(h == off || h == size || h % d->blksize == 0,
			   "SEEK_HOLE(%" PRId64 "): %" PRId64 " is inside a "
			   "block", off, h);
		DIFF_CHECK(h >= off && h <= size, "SEEK_HOLE(%" PRId64
			   ") with size %" PRId64 " (A's file: %" PRId64 "): %"
			   PRId64, off, size, fd_size(d->afd), h);
		end = sat_add(h - h % d->blksize, d->blksize);
		expect_zeros(h, end, 0, "in SEEK_HOLE's hole");
	}
	if (data >= 0 && hole) {
		*hole = upc_seek_hole(d->file, data);
		DIFF_CHECK(*hole > data && *hole <= size, "SEEK_HOLE(%" PRId64
			   ") after data with size %" PRId64 ": %" PRId64,
			   data, size, *hole);
	}
	return data;
}

/*
 * The whole file: each data range upcache's seeks report must match B
 * through upc_read(), each hole must read as zeros in B.
 */
static void compare_full(void)
{
	int64_t size = b_size(), pos = 0, data, hole = 0;

	d->full_checks++;
	compare_size();
	while (pos < size) {
		data = check_seeks(pos, &hole);
		if (data < 0) {
			expect_zeros(pos, size, 0, "in the last hole");
			break;
		}
		expect_zeros(pos, data, 0, "in a hole");
		compare_range(data, hole);
		pos = hole;
	}
	check_mapping();
}

/*
 * A itself (its descriptor, not the cache) must hold what B holds, in
 * [@lo, @hi) and its size: everything has been written back.
 */
static void compare_disk(int64_t lo, int64_t hi)
{
	int64_t as = fd_size(d->afd), bs = b_size();

	DIFF_CHECK(as == bs, "size of A's file %" PRId64 ", B %" PRId64,
		   as, bs);
	if (hi > bs)
		hi = bs;
	while (lo < hi) {
		int64_t n, ra, rb, next = next_data(d->afd, lo, hi);

		/* Skip what is a hole in both: zeros in both. */
		lo = next_data(d->bfd, lo, next);
		if (lo >= hi)
			break;
		n = hi - lo < DIFF_CHUNK ? hi - lo : DIFF_CHUNK;
		ra = pread_full(d->afd, d->abuf, n, lo);
		rb = pread_full(d->bfd, d->bbuf, n, lo);
		DIFF_CHECK(ra == n && rb == n, "pread(%" PRId64 ", %" PRId64
			   "): A's file %" PRId64 ", B %" PRId64, lo, n, ra,
			   rb);
		if (memcmp(d->abuf, d->bbuf, (size_t)n)) {
			int64_t i = first_diff(d->bbuf, d->abuf);

			diff_fail("A's file at %" PRId64 ": %#x, B %#x", lo + i,
				  (unsigned char)d->abuf[i],
				  (unsigned char)d->bbuf[i]);
		}
		lo += n;
	}
}

/* After a step on [@off, @off + @len): the edges and a probe. */
static void compare_after(int64_t off, int64_t len)
{
	int64_t size = b_size();

	compare_size();
	diff_compare_edges(compare_range, off, len, size);
	compare_read(rand_near_page(sat_add(size, 2 * PAGE)),
		     1 + rnd(16 * 1024));
}

/* ---- the steps ----------------------------------------------------------- */

static void step_write(void)
{
	int64_t off = chance(1, 200) ? -1 - rnd(100) : rand_offset();
	int64_t len = rand_len();
	const char *src = d->pool + rnd(DIFF_MAX_IO);

	snprintf(d->op, sizeof(d->op), "write(%" PRId64 ", %" PRId64 ")",
		 off, len);
	diff_write("B", d->bfd, d->file, src, len, off);
	compare_after(off, len);
}

static void step_writev(void)
{
	struct iovec iov[DIFF_MAX_IOV];
	int64_t off = rand_offset(), len = rand_len(), rb, ru;
	char *src = d->pool + rnd(DIFF_MAX_IO);
	int n = rand_iov(src, len, iov);

	snprintf(d->op, sizeof(d->op), "writev(%" PRId64 ", %" PRId64
		 ", %d segments)", off, len, n);
	rb = k_ret(pwritev(d->bfd, iov, n, off));
	ru = upc_writev(d->file, iov, n, off);
	DIFF_CHECK(rb == ru, "B %" PRId64 ", upcache %" PRId64, rb, ru);
	compare_after(off, len);
}

static void step_read(void)
{
	int64_t off = chance(1, 200) ? -1 - rnd(100) : rand_offset();
	int64_t len = rand_len();

	snprintf(d->op, sizeof(d->op), "read(%" PRId64 ", %" PRId64 ")",
		 off, len);
	compare_read(off, len);
}

static void step_readv(void)
{
	struct iovec aiov[DIFF_MAX_IOV], biov[DIFF_MAX_IOV];
	int64_t off = rand_offset(), len = rand_len(), rb, ru;
	int n = rand_iov(d->abuf, len, aiov), i;

	/* The same split of B's buffer. */
	for (i = 0; i < n; i++) {
		biov[i].iov_base = d->bbuf + ((char *)aiov[i].iov_base -
					      d->abuf);
		biov[i].iov_len = aiov[i].iov_len;
	}
	snprintf(d->op, sizeof(d->op), "readv(%" PRId64 ", %" PRId64
		 ", %d segments)", off, len, n);
	rb = k_ret(preadv(d->bfd, biov, n, off));
	ru = upc_readv(d->file, aiov, n, off);
	DIFF_CHECK(rb == ru, "B %" PRId64 ", upcache %" PRId64, rb, ru);
	if (rb > 0 && memcmp(d->abuf, d->bbuf, (size_t)rb)) {
		i = (int)first_diff(d->bbuf, d->abuf);
		diff_fail("byte %" PRId64 " differs: B %#x, upcache %#x",
			  off + i, (unsigned char)d->bbuf[i],
			  (unsigned char)d->abuf[i]);
	}
}

static int rand_mode(void)
{
	int64_t r = rnd(100);

	if (r < 30)
		return 0;
	if (r < 55)
		return FALLOC_FL_KEEP_SIZE;
	return FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;
}

static void step_fallocate(void)
{
	int mode = rand_mode();
	int64_t off = rand_offset(), len = rand_len(), rb;

	/* Bad ranges: the kernel's EINVAL and EFBIG must come through. */
	if (chance(1, 50))
		len = -rnd(2);
	else if (chance(1, 100))
		off = -1 - rnd(PAGE);
	else if (chance(1, 100))
		off = INT64_MAX - rnd(2 * len);
	snprintf(d->op, sizeof(d->op), "fallocate(%#x, %" PRId64 ", %" PRId64
		 ")", (unsigned int)mode, off, len);
	rb = diff_fallocate("B", d->bfd, d->file, mode, off, len);
	d->falloc_unsupported += rb == -EOPNOTSUPP;
	compare_after(off, len);
}

static void step_truncate(void)
{
	int64_t r = rnd(100), size;

	/*
	 * Half of them move the end by a page or two (the partial last
	 * page, dirty or not, is the interesting part, and freeing little
	 * keeps the file system's discards cheap).  Most of the others keep
	 * half the window: the file stays larger than memory.
	 */
	if (r < 50)
		size = sat_add(b_size() - PAGE, rand_near_page(2 * PAGE));
	else if (r < 80)
		size = DIFF_WINDOW / 2 + rand_near_page(DIFF_WINDOW / 2);
	else if (r < 90)
		size = rand_near_page(DIFF_WINDOW);
	else if (r < 92)
		size = 0;
	else if (r < 97)
		size = DIFF_WINDOW + rand_near_page(DIFF_FAR - DIFF_WINDOW);
	else if (r < 98)	/* EFBIG, or a file 2^63 long (tmpfs) */
		size = UPC_MAX_FILE_SIZE - rnd(3 * PAGE);
	else
		size = -1 - rnd(100);
	if (size < 0 && r < 98)
		size = 0;
	snprintf(d->op, sizeof(d->op), "truncate(%" PRId64 ")", size);
	diff_truncate("B", d->bfd, d->file, size);
	compare_after(size > 2 * PAGE ? size - 2 * PAGE : 0, 4 * PAGE);
}

static void step_seek(void)
{
	int64_t size = b_size(), off;

	if (chance(1, 50))
		off = -1 - rnd(100);
	else if (chance(1, 10) || !size)
		off = sat_add(size, rnd(2 * PAGE));
	else
		off = rnd(size);
	snprintf(d->op, sizeof(d->op), "seek(%" PRId64 ")", off);
	check_seeks(off, NULL);
}

/*
 * upc_fsync() or upc_fdatasync(): A's file now holds everything.  Check
 * its size and a random range (all of it at the full checks' pace would
 * cost too much), and that nothing is left dirty.
 */
static void step_fsync(void)
{
	bool data = chance(1, 2);
	int64_t size, lo;
	int ret;

	snprintf(d->op, sizeof(d->op), "%s", data ? "fdatasync" : "fsync");
	d->fsyncs++;
	ret = data ? upc_fdatasync(d->file) : upc_fsync(d->file);
	DIFF_CHECK(ret == 0, "returned %d", ret);
	DIFF_CHECK(!xa_marked(&upc_file_mapping(d->file)->i_pages,
			      PAGECACHE_TAG_DIRTY), "pages still dirty");
	size = b_size();
	lo = size ? rnd(size) : 0;
	compare_disk(lo, sat_add(lo, DIFF_MAX_IO));
	compare_after(lo, DIFF_MAX_IO);
}

/*
 * upc_close() writes everything back and frees every page; A's file
 * must then be B, all of it.  Reopen: the cache starts cold.
 */
static void step_reopen(void)
{
	struct upc_cache_stats st;
	int ret;

	snprintf(d->op, sizeof(d->op), "close and reopen");
	d->reopens++;
	ret = upc_close(d->file);
	d->file = NULL;
	DIFF_CHECK(ret == 0, "upc_close() returned %d", ret);
	assert_int_equal(upc_cache_stats(d->cache, &st), 0);
	DIFF_CHECK(st.memory_used == 0 && st.pages_cached == 0 &&
		   st.files == 0, "after close: %" PRIu64 " bytes used, %"
		   PRIu64 " pages cached, %" PRIu64 " files", st.memory_used,
		   st.pages_cached, st.files);
	compare_disk(0, b_size());
	/* Writeback's batches through io_uring or pwritev(), by turns. */
	ret = upc_file_open(d->cache, d->cfd,
			    chance(1, 2) ? UPC_FILE_IO_URING : 0, &d->file);
	DIFF_CHECK(ret == 0, "upc_file_open() returned %d", ret);
	compare_after(rand_offset(), rand_len());
}

/*
 * One step.  In a writeback phase (odd DIFF_PHASE-long stretches of the
 * run) the steps that would write every dirty page back (seeks, fsync,
 * close) are writes instead, so that dirty pages pile up past the
 * cache's memory and reclaim must write them back to evict them.
 */
static void diff_step(void)
{
	int64_t r = rnd(1000);

	diff_trace();
	if (d->dirty_phase && r >= 880)
		r = rnd(400);
	if (r < 350)
		step_write();
	else if (r < 400)
		step_writev();
	else if (r < 590)
		step_read();
	else if (r < 640)
		step_readv();
	else if (r < 840)
		step_fallocate();
	else if (r < 880)
		step_truncate();
	else if (r < 990)
		step_seek();
	else if (r < 998)
		step_fsync();
	else
		step_reopen();
}

/* ---- set-up -------------------------------------------------------------- */

/*
 * Two empty files, O_RDWR, in a fresh directory under $TMPDIR or /tmp,
 * removed with it at once (the descriptors keep the files).
 */
static void make_files(int *afd, int *bfd)
{
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_MAX], a[PATH_MAX + 4], b[PATH_MAX + 4];

	snprintf(dir, sizeof(dir), "%s/upcache-file-diff-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	*afd = open(a, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	*bfd = open(b, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (*afd >= 0)
		unlink(a);
	if (*bfd >= 0)
		unlink(b);
	rmdir(dir);
	assert_true(*afd >= 0 && *bfd >= 0);
}

/*
 * A's descriptor again, with O_DIRECT (a description of its own, through
 * /proc): -1 where A's file system refuses direct I/O.
 */
static int open_direct(int fd)
{
	char path[40];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return open(path, O_RDWR | O_DIRECT | O_CLOEXEC);
}

/*
 * The run: the cache in front of A, through @direct's own O_DIRECT
 * descriptor or A's.  The test's own reads of A go through A's
 * buffered descriptor either way, so with O_DIRECT they also check
 * that what the cache wrote directly is what the file holds.  Return:
 * false if A's file system refuses direct I/O (nothing was run).
 */
static bool run_file_diff(bool direct)
{
	struct upc_cache_config cfg = { .memory_limit = DIFF_LIMIT };
	unsigned long i, ops = upc_test_diff_ops(DIFF_DEFAULT_OPS);
	struct upc_cache_stats st;
	struct diff env = { 0 };
	struct timespec t0;
	struct stat sb;

	watchdog(0);	/* a test that failed may have left it armed */
	d = &env;
	make_files(&env.afd, &env.bfd);
	env.cfd = direct ? open_direct(env.afd) : env.afd;
	if (env.cfd < 0) {
		close(env.afd);
		close(env.bfd);
		d = NULL;
		return false;
	}
	assert_int_equal(fstat(env.afd, &sb), 0);
	env.blksize = sb.st_blksize > 0 ? sb.st_blksize : PAGE;
	diff_seed(0);
	env.pool = malloc(2 * DIFF_MAX_IO);
	env.abuf = malloc(DIFF_CHUNK > DIFF_MAX_IO ? DIFF_CHUNK : DIFF_MAX_IO);
	env.bbuf = malloc(DIFF_CHUNK > DIFF_MAX_IO ? DIFF_CHUNK : DIFF_MAX_IO);
	assert_non_null(env.pool);
	assert_non_null(env.abuf);
	assert_non_null(env.bbuf);
	fill_random(env.pool, 2 * DIFF_MAX_IO);
	assert_int_equal(upc_cache_create(&cfg, &env.cache), 0);
	assert_int_equal(upc_file_open(env.cache, env.cfd, 0, &env.file), 0);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < ops; i++) {
		env.step = i;
		env.dirty_phase = i / DIFF_PHASE % 2;
		watchdog(DIFF_STEP_TIMEOUT);
		diff_step();
		if (i % DIFF_CHECK_EVERY == DIFF_CHECK_EVERY - 1)
			check_mapping();
		if (i % DIFF_FULL_EVERY == DIFF_FULL_EVERY - 1)
			compare_full();
	}
	env.step = ops;
	snprintf(env.op, sizeof(env.op), "final comparison");
	compare_full();
	watchdog(0);
	assert_int_equal(upc_cache_stats(env.cache, &st), 0);
	fprintf(stderr, "# file diff%s: %lu steps in %.2f s; largest size %"
		PRId64 " MiB; %" PRIu64 " pages evicted, %" PRIu64 " written "
		"back by reclaim, %" PRIu64 " refaults; %lu fsyncs, %lu "
		"reopens, %lu seek pairs, %lu full checks; fallocate "
		"unsupported %lu times\n", direct ? " (O_DIRECT)" : "", ops,
		seconds_since(&t0),
		env.max_size / MIB, st.evictions, st.writebacks, st.refaults,
		env.fsyncs, env.reopens, env.seeks, env.full_checks,
		env.falloc_unsupported);
	/* Short runs may never fill the cache; the default run must. */
	if (ops >= DIFF_MIN_OPS_RECLAIM)
		assert_true(st.evictions > 0 && st.writebacks > 0);

	snprintf(env.op, sizeof(env.op), "final fsync");
	DIFF_CHECK(upc_fsync(env.file) == 0, "upc_fsync() failed");
	compare_disk(0, b_size());
	assert_int_equal(upc_close(env.file), 0);
	assert_int_equal(upc_cache_stats(env.cache, &st), 0);
	assert_int_equal(st.memory_used, 0);
	assert_int_equal(st.files, 0);
	assert_int_equal(upc_cache_destroy(env.cache), 0);
	if (env.cfd != env.afd)
		close(env.cfd);
	close(env.afd);
	close(env.bfd);
	free(env.pool);
	free(env.abuf);
	free(env.bbuf);
	d = NULL;
	return true;
}

static void test_file_diff(void **state)
{
	(void)state;
	assert_true(run_file_diff(false));
}

/* The same with the cache's descriptor O_DIRECT: it is A's only cache. */
static void test_file_diff_direct(void **state)
{
	(void)state;
	if (!run_file_diff(true)) {
		print_message("O_DIRECT refused by $TMPDIR's file system: "
			      "skipped\n");
		skip();
	}
}

/* ---- a read-only descriptor ---------------------------------------------- */

#define RO_SIZE		(3 * DIFF_LIMIT + 1234)	/* three times the cache */
#define RO_PAGES	((RO_SIZE + PAGE - 1) / PAGE)
#define RO_OPS		2000

/*
 * Reads through upcache match the file, and every change is refused as
 * the kernel refuses it on the same descriptor (its errno is computed,
 * since ftruncate() on a descriptor without write access answers EINVAL
 * on Linux and EBADF elsewhere).  The file is three times the cache, so
 * reads evict; a read-only file has nothing to write back; and one read
 * of all of it may evict at most twice its pages.
 */
static void test_file_diff_rdonly(void **state)
{
	struct upc_cache_config cfg = { .memory_limit = DIFF_LIMIT };
	static const int modes[] = {
		0, FALLOC_FL_KEEP_SIZE,
		FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
	};
	char path[64], *buf, *want;
	struct upc_cache_stats st;
	struct diff env = { 0 };
	uint64_t evictions;
	int wfd, rofd, i;
	int64_t size;

	(void)state;
	watchdog(0);
	d = &env;
	diff_seed(0x524f);	/* "RO" */
	buf = malloc(RO_SIZE);
	want = malloc(RO_SIZE);
	assert_non_null(buf);
	assert_non_null(want);
	fill_random(want, RO_SIZE);
	/* A hole in the middle, and data after it. */
	memset(want + DIFF_LIMIT, 0, DIFF_LIMIT / 2);

	/* The file, written through one descriptor, read through another. */
	make_files(&wfd, &rofd);
	close(rofd);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", wfd);
	rofd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(rofd >= 0);
	assert_int_equal(pwrite(wfd, want, DIFF_LIMIT, 0), DIFF_LIMIT);
	assert_int_equal(pwrite(wfd, want + DIFF_LIMIT * 3 / 2,
				RO_SIZE - DIFF_LIMIT * 3 / 2,
				DIFF_LIMIT * 3 / 2),
			 RO_SIZE - DIFF_LIMIT * 3 / 2);
	assert_int_equal(fsync(wfd), 0);

	assert_int_equal(upc_cache_create(&cfg, &env.cache), 0);
	assert_int_equal(upc_file_open(env.cache, rofd, 0, &env.file), 0);
	assert_int_equal(upc_size(env.file), RO_SIZE);

	snprintf(env.op, sizeof(env.op), "read-only: random reads");
	watchdog(DIFF_STEP_TIMEOUT);
	for (i = 0; i < RO_OPS; i++) {
		int64_t off = rand_near_page(RO_SIZE + PAGE);
		int64_t len = rand_len();
		int64_t exp = off >= RO_SIZE ? 0 :
			      len < RO_SIZE - off ? len : RO_SIZE - off;
		ssize_t ret;

		env.step = (unsigned long)i;
		if (chance(1, 4)) {
			struct iovec iov[DIFF_MAX_IOV];
			int n = rand_iov(buf, len, iov);

			ret = upc_readv(env.file, iov, n, off);
		} else {
			ret = upc_read(env.file, buf, (size_t)len, off);
		}
		DIFF_CHECK(ret == exp, "read(%" PRId64 ", %" PRId64 "): %zd",
			   off, len, ret);
		DIFF_CHECK(!memcmp(buf, want + off, (size_t)exp),
			   "read(%" PRId64 ", %" PRId64 "): bytes differ", off,
			   len);
	}

	/*
	 * All of it in one call, three times the cache: the pages read
	 * first are evicted before the call ends.  Each page read should
	 * cost about one eviction; readahead that reads past what memory
	 * holds would evict its own pages before they are copied, and read
	 * them again and again.  The bound is checked at the end, so that
	 * the rest is checked whatever it finds.
	 */
	snprintf(env.op, sizeof(env.op), "read(0, %ld) in one call",
		 (long)RO_SIZE);
	assert_int_equal(upc_cache_stats(env.cache, &st), 0);
	evictions = st.evictions;
	DIFF_CHECK(upc_read(env.file, buf, RO_SIZE, 0) == RO_SIZE,
		   "short read");
	DIFF_CHECK(!memcmp(buf, want, RO_SIZE), "bytes differ");
	assert_int_equal(upc_cache_stats(env.cache, &st), 0);
	evictions = st.evictions - evictions;
	watchdog(0);

	/* Every change fails, and changes nothing. */
	assert_int_equal(upc_write(env.file, "x", 1, 0), -EBADF);
	assert_int_equal(upc_write(env.file, "x", 1, RO_SIZE), -EBADF);
	{
		struct iovec iov = { .iov_base = "xy", .iov_len = 2 };

		assert_int_equal(upc_writev(env.file, &iov, 1, 10), -EBADF);
	}
	for (size = 0; size <= 2 * RO_SIZE; size += RO_SIZE / 2) {
		int64_t rk = k_ret(ftruncate(rofd, size));

		assert_true(rk < 0);
		assert_int_equal(upc_truncate(env.file, size), rk);
	}
	for (i = 0; i < 3; i++) {
		int64_t rk = k_ret(fallocate(rofd, modes[i], PAGE, 3 * PAGE));

		assert_true(rk < 0);
		assert_int_equal(upc_fallocate(env.file, modes[i], PAGE,
					       3 * PAGE), rk);
		/* Bad arguments are found before the access mode. */
		rk = k_ret(fallocate(rofd, modes[i], PAGE, 0));
		assert_int_equal(upc_fallocate(env.file, modes[i], PAGE, 0),
				 rk);
	}
	assert_int_equal(upc_size(env.file), RO_SIZE);
	assert_int_equal(fd_size(rofd), RO_SIZE);
	assert_int_equal(upc_read(env.file, buf, RO_SIZE, 0), RO_SIZE);
	assert_memory_equal(buf, want, RO_SIZE);
	/* Seeks: the file's own answers (nothing is dirty). */
	assert_int_equal(upc_seek_data(env.file, 0),
			 lseek(rofd, 0, SEEK_DATA));
	assert_int_equal(upc_seek_hole(env.file, 0),
			 lseek(rofd, 0, SEEK_HOLE));
	assert_int_equal(upc_seek_data(env.file, DIFF_LIMIT + 1),
			 lseek(rofd, DIFF_LIMIT + 1, SEEK_DATA));
	assert_int_equal(upc_seek_data(env.file, RO_SIZE), -ENXIO);
	assert_int_equal(upc_fsync(env.file), 0);
	assert_int_equal(upc_fdatasync(env.file), 0);
	DIFF_CHECK(upc_check_mapping(upc_file_mapping(env.file)) == 0,
		   "upc_check_mapping() failed");

	/* Reads evicted pages, and no page was dirty to write back. */
	assert_int_equal(upc_cache_stats(env.cache, &st), 0);
	assert_true(st.evictions > 0);
	assert_int_equal(st.writebacks, 0);
	assert_int_equal(upc_close(env.file), 0);
	/* The descriptor is still the caller's, and the file unchanged. */
	assert_true(fcntl(rofd, F_GETFD) >= 0);
	assert_int_equal(pread_full(rofd, buf, RO_SIZE, 0), RO_SIZE);
	assert_memory_equal(buf, want, RO_SIZE);
	assert_int_equal(upc_cache_destroy(env.cache), 0);
	close(rofd);
	close(wfd);
	fprintf(stderr, "# file diff read-only: one read of %ld pages evicted "
		"%" PRIu64 " pages\n", (long)RO_PAGES, evictions);
	assert_true(evictions <= 2 * RO_PAGES);
	free(buf);
	free(want);
	d = NULL;
}

/* ---- the end of the offset space ---------------------------------------- */

#define END_TIMEOUT	10	/* seconds before a hang kills the test */

/*
 * A write into the last page a file can have (index MAX_PAGECACHE_INDEX,
 * whose end is 2^63) and reads of it.  The random run meets it only on
 * file systems that take files that long (tmpfs, XFS, btrfs); on others
 * (ext4) the kernel refuses B's write (EFBIG), while upcache may take it
 * into the cache and meet the limit at writeback (upcache.h), so only
 * that much is asked: an answer, and the bytes if it took them.  A hang
 * is a failure: the watchdog ends the test, rather than CTest's timeout.
 */
static void test_file_diff_offset_end(void **state)
{
	struct upc_cache_config cfg = { .memory_limit = DIFF_LIMIT };
	const int64_t off = UPC_MAX_FILE_SIZE - 10;
	struct diff env = { 0 };
	char buf[16];
	int64_t rb, ru;

	(void)state;
	watchdog(0);
	d = &env;
	env.seed = upc_test_seed();
	snprintf(env.op, sizeof(env.op), "offset end: write(%" PRId64 ", 10)",
		 off);
	make_files(&env.afd, &env.bfd);
	assert_int_equal(upc_cache_create(&cfg, &env.cache), 0);
	assert_int_equal(upc_file_open(env.cache, env.afd, 0, &env.file), 0);
	watchdog(END_TIMEOUT);

	rb = k_ret(pwrite(env.bfd, "0123456789", 10, off));
	ru = upc_write(env.file, "0123456789", 10, off);
	DIFF_CHECK(ru == rb || (rb == -EFBIG && (ru == 10 || ru < 0)),
		   "B %" PRId64 ", upcache %" PRId64, rb, ru);
	if (ru == 10) {
		memset(buf, 0, sizeof(buf));
		DIFF_CHECK(upc_size(env.file) == UPC_MAX_FILE_SIZE, "size %"
			   PRId64, upc_size(env.file));
		ru = upc_read(env.file, buf, 10, off);
		DIFF_CHECK(ru == 10 && !memcmp(buf, "0123456789", 10),
			   "read back: %" PRId64, ru);
		ru = upc_read(env.file, buf, 16, off - 6);
		DIFF_CHECK(ru == 16 && !memcmp(buf, "\0\0\0\0\0\0"
					       "0123456789", 16),
			   "read back from before it: %" PRId64, ru);
	}
	if (rb == 10) {
		/* The file system takes it: it must reach the file. */
		DIFF_CHECK(upc_fsync(env.file) == 0, "upc_fsync() failed");
		compare_disk(off - PAGE, UPC_MAX_FILE_SIZE);
	} else {
		/* Drop what the file system cannot hold. */
		DIFF_CHECK(upc_truncate(env.file, 0) == 0, "truncate(0)");
	}
	watchdog(0);
	assert_int_equal(upc_close(env.file), 0);
	assert_int_equal(upc_cache_destroy(env.cache), 0);
	close(env.afd);
	close(env.bfd);
	d = NULL;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_diff),
		cmocka_unit_test(test_file_diff_direct),
		cmocka_unit_test(test_file_diff_rdonly),
		cmocka_unit_test(test_file_diff_offset_end),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
