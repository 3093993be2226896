// SPDX-License-Identifier: MIT
/*
 * tests/fuzz/fuzz_file.c - libFuzzer target: a file backed by a file
 * descriptor (upc_file_open()) through the upc_ API against a simple
 * model.
 *
 * This file owns the fuzzer's input format.  Each input gets a fresh
 * backing file (O_TMPFILE, or mkstemp() and unlink(), in /dev/shm, else
 * $TMPDIR, else /tmp), opened O_RDWR and closed when the input is done,
 * and a fresh cache.  The input is decoded into a short sequence of
 * operations applied to the upc_ file and to a model: the file's bytes
 * and its size, at most FZ_SIZE.  Bytes written come from a pattern that
 * never repeats within 251 bytes, so a byte landing at the wrong offset
 * shows.  After every operation the results (return values, bytes read)
 * and upc_size() must be the model's; any difference prints the
 * operations so far and aborts.  Missing bytes read as zero, so every
 * input is valid.
 *
 * Writes stay dirty in the cache until upc_fsync(), upc_close() or
 * reclaim writes them back; so the backing file itself is checked after
 * each of those: after upc_fsync()/upc_fdatasync() (which must return 0)
 * its fstat() size is the model's and a range read with pread() matches;
 * after upc_close() all of it matches and the cache holds no memory, and
 * upc_file_open() on the same descriptor must see the model's size.  In
 * the 2 MiB cache the model (up to 4 MiB) does not fit: reclaim writes
 * dirty pages back to evict them.  Every page of such a file can be
 * evicted, so no call may come up short for lack of memory (but see
 * fault injection below).
 *
 * Seeks are answered by the file system after the dirty pages are
 * written back, and a file system may count zeros upcache wrote back as
 * data, so they are checked for what is always true: the answer is the
 * one lseek() on the descriptor gives right after the call; -ENXIO at or
 * past the end (and for negative offsets); SEEK_DATA lands in [off,
 * size) and the model is zero from the offset to there (or to the end
 * when it says -ENXIO); SEEK_HOLE lands in [off, size] and the model is
 * zero from there to the end of that file system block (st_blksize) or
 * of the file.
 *
 * Format:
 *	byte 0		configuration: bit 0 a 2 MiB cache (else 16 MiB);
 *			bits 1-2 what the backing file holds first: 0
 *			nothing, 1 10000 bytes, 2 a sparse 1.5 MiB file
 *			with data at its start and 1 MiB in, 3 3 MiB (more
 *			than the small cache); other bits are ignored
 *	then, per operation (at most FZ_MAX_OPS), 7 bytes:
 *	  op byte	bits 0-3: 0, 12 write; 1 read; 2 writev;
 *			3 readv; 4 truncate to the offset; 5 fallocate
 *			(arg % 16 picks a mode from fz_modes[], invalid ones
 *			included); 6 SEEK_DATA; 7 SEEK_HOLE; 8 fsync (arg
 *			bit 0: fdatasync) and check the backing file;
 *			9 close and reopen (arg % 10 picks a bad
 *			upc_file_open() or a read-only interlude first,
 *			see op_reopen(); len bit 0: UPC_FILE_IO_URING,
 *			bit 1: through an O_DIRECT descriptor where the
 *			file system takes one, bit 2:
 *			UPC_FILE_WRITEBACK_BACKGROUND, whose flusher
 *			then writes beside the operations that follow);
 *			10 bad pointer and count
 *			arguments (arg % 10, see op_bad()); 11 write near
 *			the end of the file (offset - 4096 + offset %
 *			12288 from the size); 13 fault injection for the
 *			next operation (see below); 14 punch a hole;
 *			15 allocate (arg bit 0: FALLOC_FL_KEEP_SIZE).
 *			Bits 4-6: how many buffers writev/readv split into
 *			(1, 2, 3, 4, 7, 9, 12, 16; empty ones are NULL).
 *			Bit 7: a bad offset instead (negative, or next to
 *			INT64_MAX)
 *	  offset	3 bytes little-endian, % (FZ_SIZE + 1)
 *	  length	2 bytes: < 0xf000 as is, else up to FZ_SIZE
 *	  arg		1 byte: the pattern's start for writes (0 writes
 *			zeros), the fallocate mode, a variant
 *
 * Fault injection (lib/fault.h): op 13 makes allocation number 1 + length
 * % 48 fail in the upc_ calls of the next operation (arg bit 0: that one
 * and every one after it, until the call returns).  Writes and reads may
 * then come up short, or fail with nothing done (-ENOMEM, or -ENOSPC for
 * writes); a reopen may fail with -ENOMEM (and is tried again without);
 * truncation, fallocate, seeks, fsync and close allocate nothing and
 * must do as they do without.  The checks after the call run disarmed
 * and are as strict as ever: what a short write wrote is in the file,
 * nothing else is, and no memory is lost.
 *
 * A valid write, allocation or truncation that the model cannot hold
 * (past FZ_SIZE) is cut to it or skipped, except a truncation or a write
 * wholly past it, which is checked and undone at once.
 *
 * At the end: upc_fsync() is 0, the backing file (fstat() and pread())
 * and upc_read() of the whole file equal the model,
 * upc_check_mapping() is 0, and upc_close() and upc_cache_destroy()
 * return 0 with no memory left in use.
 *
 * Seeds last_page and last_page_write read and write the last page of
 * the offset space ([INT64_MAX - 4095, INT64_MAX]), where a page's end
 * is 2^63: the library once summed it and looped or failed there.
 * Reads in the 2 MiB cache may be larger than it (readahead must not
 * evict its own pages before they are copied).
 *
 * Run without libFuzzer by tests/fuzz/replay_main.c over the seed corpus
 * tests/fuzz/corpus/fuzz_file/.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/falloc.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <upcache/check.h>
#include <upcache/upcache.h>

#include "api/internal.h"
#include "fault.h"

#include "fuzz_input.h"

#define FZ_SIZE		(4L << 20)	/* the model's bytes */
#define FZ_MAX_OPS	48
#define FZ_SMALL_LIMIT	(2UL << 20)
#define FZ_BIG_LIMIT	(16UL << 20)
#define FZ_PERIOD	251		/* the pattern's */
#define FZ_MAX_IOV	16
#define FZ_CHECK_CHUNK	(256L << 10)
#define FZ_PATTERN_LEN	(FZ_SIZE + 256)	/* a write may start 255 bytes in */


#ifndef FALLOC_FL_WRITE_ZEROES
#define FALLOC_FL_WRITE_ZEROES	0x80	/* Linux 6.17 */
#endif

struct fz {
	struct upc_cache *cache;
	struct upc_file *file;
	int fd;
	int dfd;		/* @fd again with O_DIRECT, if the cache has it */
	bool small;
	unsigned int init;
	unsigned char *bytes;	/* the model; zero past @size */
	unsigned char *buf;	/* what reads return */
	unsigned char *pattern;	/* FZ_PATTERN_LEN bytes, then FZ_SIZE zeros */
	int64_t size;
	int64_t touched;	/* the model is zero from here on */
	int64_t blksize;	/* the file system's block (holes) */
	unsigned long fault_n;	/* op 13: the next operation's failure */
	bool fault_sticky;	/* ... and every allocation after it */
	bool faulty;		/* this operation runs with it armed */
	char log[FZ_MAX_OPS + 2][96];
	unsigned int nr_log;
};

static struct fz fz;
static char fz_dir[256];	/* where backing files are made */
static int fz_dir_fd = -1;	/* that directory: not a regular file */

static void fz_log(struct fz *z, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fz_log(struct fz *z, const char *fmt, ...)
{
	va_list ap;

	if (z->nr_log >= FZ_MAX_OPS + 2)
		return;
	va_start(ap, fmt);
	vsnprintf(z->log[z->nr_log++], sizeof(z->log[0]), fmt, ap);
	va_end(ap);
}

static void fz_fail(struct fz *z, const char *what, int64_t got, int64_t want)
{
	unsigned int i;

	fprintf(stderr, "fuzz_file: small=%d init=%u dir=%s; operations:\n",
		z->small, z->init, fz_dir);
	for (i = 0; i < z->nr_log; i++)
		fprintf(stderr, "  %s\n", z->log[i]);
	fprintf(stderr, "fuzz_file: %s: got %" PRId64 ", expected %" PRId64
		"\n", what, got, want);
	abort();
}

static void fz_expect(struct fz *z, const char *what, int64_t got, int64_t want)
{
	if (got != want)
		fz_fail(z, what, got, want);
}

/*
 * Fault injection around the upc_ calls of an operation that op 13
 * armed (the checks after it run disarmed).
 */
static void fz_arm(struct fz *z)
{
	if (!z->faulty)
		return;
	if (z->fault_sticky)
		upc_fault_fail_from(z->fault_n);
	else
		upc_fault_fail_nth(z->fault_n);
}

static void fz_disarm(struct fz *z)
{
	if (z->faulty)
		upc_fault_fail_nth(0);
}

/* ---- the model ----------------------------------------------------------- */

/* What a write with @arg writes: zeros for 0, else the pattern. */
static const unsigned char *fz_source(struct fz *z, uint8_t arg)
{
	return z->pattern + (arg ? arg : FZ_PATTERN_LEN);
}

static void model_write(struct fz *z, int64_t pos, const unsigned char *src,
			int64_t done)
{
	if (done <= 0)
		return;
	memcpy(z->bytes + pos, src, (size_t)done);
	z->touched = in_max(z->touched, pos + done);
	if (pos + done > z->size)
		z->size = pos + done;
}

static void model_zero(struct fz *z, int64_t pos, int64_t end)
{
	end = in_min(end, z->touched);
	if (pos < end)
		memset(z->bytes + pos, 0, (size_t)(end - pos));
}

static void model_truncate(struct fz *z, int64_t size)
{
	if (size < z->size)
		model_zero(z, size, z->size);
	z->size = size;
}

/* Are the model's bytes [@pos, @end) all zero? */
static bool model_zeros(const struct fz *z, int64_t pos, int64_t end)
{
	static const unsigned char zeros[4096];

	end = in_min(end, z->touched);
	while (pos < end) {
		size_t n = (size_t)in_min(end - pos, sizeof(zeros));

		if (memcmp(z->bytes + pos, zeros, n))
			return false;
		pos += (int64_t)n;
	}
	return true;
}

/* ---- checks -------------------------------------------------------------- */

static void check_bytes(struct fz *z, const char *what, int64_t pos,
			int64_t len)
{
	if (len <= 0 || !memcmp(z->buf, z->bytes + pos, (size_t)len))
		return;
	for (int64_t i = 0; i < len; i++)
		if (z->buf[i] != z->bytes[pos + i])
			fz_fail(z, what, pos + i, z->bytes[pos + i]);
}

/*
 * upc_read() of [@pos, @pos + @len), @len <= FZ_SIZE, against the model,
 * in reads of at most FZ_CHECK_CHUNK (a check, not the operation tested:
 * see op_read()).
 */
static void check_range(struct fz *z, int64_t pos, int64_t len)
{
	int64_t end = pos + len;

	do {
		int64_t n = in_min(end - pos, FZ_CHECK_CHUNK);
		int64_t want = pos >= z->size ? 0 : in_min(n, z->size - pos);
		ssize_t got = upc_read(z->file, z->buf, (size_t)n, pos);

		fz_expect(z, "read length", got, want);
		check_bytes(z, "byte read at", pos, want);
		pos += n;
	} while (pos < end && pos < z->size);
}

/* The backing file's size and bytes [@pos, @pos + @len) (pread()). */
static void check_backing(struct fz *z, int64_t pos, int64_t len)
{
	struct stat st;
	int64_t want;
	ssize_t got;

	if (fstat(z->fd, &st))
		fz_fail(z, "fstat() of the backing file", -errno, 0);
	fz_expect(z, "backing file size", (int64_t)st.st_size, z->size);
	pos = in_min(pos, FZ_SIZE);
	len = in_min(len, FZ_SIZE - pos);
	want = pos >= z->size ? 0 : in_min(len, z->size - pos);
	got = pread(z->fd, z->buf, (size_t)len, pos);
	fz_expect(z, "backing file pread()", got, want);
	check_bytes(z, "backing file byte at", pos, want);
}

static void check_size(struct fz *z)
{
	fz_expect(z, "upc_size()", upc_size(z->file), z->size);
}

static void check_no_memory(struct fz *z, const char *what)
{
	struct upc_cache_stats st = { 0 };

	fz_expect(z, "upc_cache_stats()", upc_cache_stats(z->cache, &st), 0);
	fz_expect(z, what, (int64_t)st.memory_used, 0);
}

static void check_clean(struct fz *z, const char *what);

/* lseek() on the backing file as the upc_ seeks answer: -errno. */
static int64_t kernel_seek(struct fz *z, int64_t pos, int whence)
{
	off_t r = lseek(z->fd, (off_t)pos, whence);

	return r < 0 ? -errno : (int64_t)r;
}

static void check_seek(struct fz *z, int64_t pos, bool data)
{
	const char *what = data ? "SEEK_DATA" : "SEEK_HOLE";
	int64_t got, end;

	fz_arm(z);
	got = data ? upc_seek_data(z->file, pos) : upc_seek_hole(z->file, pos);
	fz_disarm(z);

	if (pos < 0 || pos >= z->size) {
		fz_expect(z, what, got, -ENXIO);
		return;
	}
	/* The seek wrote every dirty page back first. */
	check_clean(z, "dirty pages after a seek");
	fz_expect(z, data ? "SEEK_DATA against lseek()" :
		  "SEEK_HOLE against lseek()", got,
		  kernel_seek(z, pos, data ? SEEK_DATA : SEEK_HOLE));
	if (data) {
		if ((got < pos || got >= z->size) && got != -ENXIO)
			fz_fail(z, "SEEK_DATA out of range", got, pos);
		if (got == -ENXIO)
			got = z->size;	/* no data: zeros to the end */
		if (!model_zeros(z, pos, got))
			fz_fail(z, "SEEK_DATA skipped data before", got, pos);
		return;
	}
	if (got < pos || got > z->size)
		fz_fail(z, "SEEK_HOLE out of range", got, pos);
	end = in_min((got / z->blksize + 1) * z->blksize, z->size);
	if (got < z->size && !model_zeros(z, got, end))
		fz_fail(z, "SEEK_HOLE landed on data; hole at", got, pos);
}

/* After a writeback of the whole file: no page is left dirty. */
static void check_clean(struct fz *z, const char *what)
{
	if (xa_marked(&upc_file_mapping(z->file)->i_pages,
		      PAGECACHE_TAG_DIRTY))
		fz_fail(z, what, 1, 0);
}

static void check_mapping(struct fz *z)
{
	fz_expect(z, "upc_check_mapping()",
		  upc_check_mapping(upc_file_mapping(z->file)), 0);
}

/* ---- operations ---------------------------------------------------------- */

/* As rw_verify_area(): the errors of a read or write before memory. */
static int64_t rw_verify(int64_t pos, int64_t len)
{
	if (pos < 0 || len > INT64_MAX - pos)
		return -EINVAL;
	return len;
}

/* Split [@buf, @buf + @len) into @cnt buffers, the empty ones NULL. */
static void fz_split(struct iovec *iov, int cnt, unsigned char *buf,
		     int64_t len)
{
	int64_t at = 0;

	for (int i = 0; i < cnt; i++) {
		/* Uneven: the first buffers take less. */
		int64_t next = i == cnt - 1 ? len :
			       len * (i + 1) * (i + 1) / ((int64_t)cnt * cnt);

		iov[i].iov_base = next > at ? buf + at : NULL;
		iov[i].iov_len = (size_t)(next - at);
		at = next;
	}
}

static const int fz_iovcnts[8] = { 1, 2, 3, 4, 7, 9, 12, 16 };

/*
 * More than 8 buffers are copied into memory allocated (after the offset
 * and count checks, before any other): -ENOMEM under fault injection.
 */
static bool fz_iov_nomem(const struct fz *z, int64_t pos, int iovcnt,
			 int64_t got)
{
	return z->faulty && iovcnt > 8 && pos >= 0 && got == -ENOMEM;
}

/*
 * A valid write past the model (next to INT64_MAX): it must write all,
 * grow the size and read back; then the file is cut back to the model.
 */
static void op_write_far(struct fz *z, int64_t pos, int64_t len,
			 const unsigned char *src)
{
	int64_t got;

	fz_arm(z);
	got = upc_write(z->file, src, (size_t)len, pos);
	fz_disarm(z);
	if (z->faulty && (got == -ENOMEM || got == -ENOSPC))
		return;		/* nothing written */
	if (z->faulty && got > 0 && got < len)
		len = got;
	fz_expect(z, "write past the model", got, len);
	fz_expect(z, "size after a write past the model", upc_size(z->file),
		  pos + len);
	memset(z->buf, 0, (size_t)len);
	fz_expect(z, "read back past the model",
		  upc_read(z->file, z->buf, (size_t)len, pos), len);
	for (int64_t i = 0; i < len; i++)
		if (z->buf[i] != src[i])
			fz_fail(z, "byte read back past the model at", pos + i,
				src[i]);
	fz_expect(z, "truncate back to the model",
		  upc_truncate(z->file, z->size), 0);
}

static void op_write(struct fz *z, int64_t pos, int64_t len, uint8_t arg,
		     int iovcnt)
{
	const unsigned char *src = fz_source(z, arg);
	int64_t want = rw_verify(pos, len), got;

	if (want > 0 && pos >= FZ_SIZE) {
		op_write_far(z, pos, len, src);
		return;
	}
	if (want > 0 && pos + len > FZ_SIZE) {
		len = FZ_SIZE - pos;	/* stay inside the model */
		want = len;
	}
	if (iovcnt) {
		struct iovec iov[FZ_MAX_IOV];

		fz_split(iov, iovcnt, (unsigned char *)src,
			 len > 0 ? len : 0);
		fz_arm(z);
		got = upc_writev(z->file, iov, iovcnt, pos);
	} else {
		fz_arm(z);
		got = upc_write(z->file, src, (size_t)len, pos);
	}
	fz_disarm(z);
	/* Allocations failed: short, or nothing written (-ENOMEM, -ENOSPC). */
	if (z->faulty && want > 0 && got != want &&
	    (got > 0 ? got < want : got == -ENOMEM || got == -ENOSPC))
		want = got;
	if (fz_iov_nomem(z, pos, iovcnt, got))
		want = got;
	fz_expect(z, iovcnt ? "writev" : "write", got, want);
	model_write(z, pos, src, got);
	check_size(z);
	if (got > 0)
		check_range(z, pos, got);
}

static void op_read(struct fz *z, int64_t pos, int64_t len, int iovcnt)
{
	int64_t want = rw_verify(pos, len), got;

	len = in_min(len, FZ_SIZE);
	if (want >= 0)
		want = pos >= z->size ? 0 : in_min(len, z->size - pos);
	memset(z->buf, 0xa5, (size_t)in_min(len, 4096));
	if (iovcnt) {
		struct iovec iov[FZ_MAX_IOV];

		fz_split(iov, iovcnt, z->buf, len);
		fz_arm(z);
		got = upc_readv(z->file, iov, iovcnt, pos);
	} else {
		fz_arm(z);
		got = upc_read(z->file, z->buf, (size_t)len, pos);
	}
	fz_disarm(z);
	/* Allocations failed: short, or -ENOMEM with nothing read. */
	if (z->faulty && want > 0 && got != want &&
	    (got > 0 ? got < want : got == -ENOMEM))
		want = got;
	if (fz_iov_nomem(z, pos, iovcnt, got))
		want = got;
	fz_expect(z, iovcnt ? "readv" : "read", got, want);
	if (want > 0)
		check_bytes(z, "byte read at", pos, want);
}

static void op_truncate(struct fz *z, int64_t size, int64_t len)
{
	int64_t tail;
	int got;

	fz_arm(z);
	got = upc_truncate(z->file, size);
	fz_disarm(z);

	if (size < 0) {
		fz_expect(z, "truncate", got, -EINVAL);
		return;
	}
	if (size > FZ_SIZE) {
		/* Past the model: the file system may refuse it. */
		if (got == -EFBIG)
			return;
		fz_expect(z, "truncate past the model", got, 0);
		fz_expect(z, "size past the model", upc_size(z->file), size);
		/* Up to the last page of the offset space, if it is there. */
		tail = in_min(len % 16384, size - FZ_SIZE - 1) + 1;
		memset(z->buf, 0xa5, (size_t)tail);
		fz_expect(z, "read past the model",
			  upc_read(z->file, z->buf, (size_t)tail, size - tail),
			  tail);
		for (int64_t i = 0; i < tail; i++)
			if (z->buf[i])
				fz_fail(z, "byte past the model at",
					size - tail + i, 0);
		/* Back to where the model holds. */
		got = upc_truncate(z->file, z->size);
		size = z->size;
	}
	fz_expect(z, "truncate", got, 0);
	model_truncate(z, size);
	check_size(z);
}

/*
 * Modes, valid and not.  @vfs_ok: Linux's vfs_fallocate() passes it on
 * to the file system (checking the size limit first); @ok: upcache
 * supports it (as tmpfs).
 */
static const struct {
	int mode;
	bool vfs_ok;
	bool ok;
} fz_modes[16] = {
	{ 0, true, true },
	{ FALLOC_FL_KEEP_SIZE, true, true },
	{ FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, true, true },
	{ FALLOC_FL_PUNCH_HOLE, false, false },
	{ FALLOC_FL_ZERO_RANGE, true, false },
	{ FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, true, false },
	{ FALLOC_FL_COLLAPSE_RANGE, true, false },
	{ FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_KEEP_SIZE, false, false },
	{ FALLOC_FL_INSERT_RANGE, true, false },
	{ FALLOC_FL_UNSHARE_RANGE | FALLOC_FL_KEEP_SIZE, true, false },
	{ FALLOC_FL_WRITE_ZEROES, true, false },
	{ FALLOC_FL_WRITE_ZEROES | FALLOC_FL_KEEP_SIZE, false, false },
	{ FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
	  false, false },
	{ 0x100, false, false },
	{ -1, false, false },
	{ FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, true, true },
};

static void op_fallocate(struct fz *z, int64_t pos, int64_t len,
			 unsigned int which)
{
	int mode = fz_modes[which].mode;
	bool punch = mode == (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE);
	int64_t want = 0;
	int got;

	if (pos < 0 || len <= 0)
		want = -EINVAL;
	else if (!fz_modes[which].vfs_ok)
		want = -EOPNOTSUPP;
	else if (len > INT64_MAX - pos)
		want = -EFBIG;
	else if (!fz_modes[which].ok)
		want = -EOPNOTSUPP;
	else if (!punch && pos + len > FZ_SIZE)
		return;		/* would allocate past the model */
	fz_arm(z);
	got = upc_fallocate(z->file, mode, pos, len);
	fz_disarm(z);
	fz_expect(z, "fallocate", got, want);
	if (!want) {
		if (punch)
			model_zero(z, pos, in_min(pos + len, FZ_SIZE));
		else if (!(mode & FALLOC_FL_KEEP_SIZE) && pos + len > z->size)
			z->size = pos + len;
	}
	check_size(z);
}

static void op_fsync(struct fz *z, int64_t pos, int64_t len, uint8_t arg)
{
	int got;

	fz_arm(z);
	got = arg & 1 ? upc_fdatasync(z->file) : upc_fsync(z->file);
	fz_disarm(z);

	fz_expect(z, arg & 1 ? "fdatasync" : "fsync", got, 0);
	check_clean(z, "dirty pages after fsync");
	check_backing(z, pos < 0 ? 0 : pos, len);
}

/* A path to the backing file for open(): another descriptor of it. */
static int fz_reopen_fd(struct fz *z, int flags)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", z->fd);
	return open(path, flags | O_CLOEXEC);
}

/* With the upc_ file closed: the backing file read-only behind a cache. */
static void fz_read_only(struct fz *z, int64_t pos, int64_t len)
{
	struct upc_file *main_file = z->file;
	int rofd = fz_reopen_fd(z, O_RDONLY);

	if (rofd < 0)
		return;		/* no /proc: nothing to check */
	fz_expect(z, "upc_file_open() read-only",
		  upc_file_open(z->cache, rofd, 0, &z->file), 0);
	check_size(z);
	pos = pos < 0 ? 0 : in_min(pos, FZ_SIZE);
	check_range(z, pos, in_min(len, FZ_SIZE - pos));
	fz_expect(z, "read-only write", upc_write(z->file, z->buf, 1, pos),
		  -EBADF);
	fz_expect(z, "read-only truncate", upc_truncate(z->file, pos),
		  -EINVAL);
	fz_expect(z, "read-only fallocate",
		  upc_fallocate(z->file, 0, pos, 1), -EBADF);
	fz_expect(z, "read-only punch",
		  upc_fallocate(z->file, FALLOC_FL_PUNCH_HOLE |
				FALLOC_FL_KEEP_SIZE, pos, 1), -EBADF);
	fz_expect(z, "read-only fsync", upc_fsync(z->file), 0);
	check_seek(z, pos, true);
	check_size(z);
	check_mapping(z);
	fz_expect(z, "read-only upc_close()", upc_close(z->file), 0);
	z->file = main_file;
	close(rofd);
	check_no_memory(z, "memory after the read-only close");
}

/* upc_file_open() that must fail: @which picks how. */
static void fz_bad_open(struct fz *z, unsigned int which)
{
	struct upc_file *f = NULL;
	int fd, flags;

	switch (which) {
	case 1:
		fz_expect(z, "open fd -1", upc_file_open(z->cache, -1, 0, &f),
			  -EBADF);
		break;
	case 2:
		fz_expect(z, "open flags unknown",
			  upc_file_open(z->cache, z->fd,
					UPC_FILE_WRITEBACK_BACKGROUND << 1,
					&f), -EINVAL);
		break;
	case 3:
		fz_expect(z, "open NULL out",
			  upc_file_open(z->cache, z->fd, 0, NULL), -EINVAL);
		break;
	case 4:
		fz_expect(z, "open NULL cache",
			  upc_file_open(NULL, z->fd, 0, &f), -EBADF);
		break;
	case 5:
		flags = fcntl(z->fd, F_GETFL);
		if (flags < 0 || fcntl(z->fd, F_SETFL, flags | O_APPEND))
			abort();
		fz_expect(z, "open O_APPEND",
			  upc_file_open(z->cache, z->fd, 0, &f), -EINVAL);
		if (fcntl(z->fd, F_SETFL, flags))
			abort();
		break;
	case 6:
		fd = fz_reopen_fd(z, O_WRONLY);
		if (fd < 0)
			break;
		fz_expect(z, "open O_WRONLY",
			  upc_file_open(z->cache, fd, 0, &f), -EBADF);
		close(fd);
		break;
	case 7:
		if (fz_dir_fd >= 0)
			fz_expect(z, "open a directory",
				  upc_file_open(z->cache, fz_dir_fd, 0, &f),
				  -EINVAL);
		break;
	case 9:
		fd = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (fd < 0)
			break;
		fz_expect(z, "open /dev/null",
			  upc_file_open(z->cache, fd, 0, &f), -EINVAL);
		close(fd);
		break;
	}
	if (f)
		fz_fail(z, "failed upc_file_open() set its file", 1, 0);
}

/*
 * Close: everything reaches the backing file and no memory stays; then
 * maybe a bad open or a read-only interlude; then open it again.
 */
static void op_reopen(struct fz *z, int64_t pos, int64_t len, uint8_t arg)
{
	unsigned int which = arg % 10, flags;
	int got;

	fz_arm(z);
	got = upc_close(z->file);
	fz_disarm(z);
	fz_expect(z, "upc_close()", got, 0);
	z->file = NULL;
	check_no_memory(z, "memory after upc_close()");
	check_backing(z, 0, FZ_SIZE);
	if (which == 8)
		fz_read_only(z, pos, len);
	else
		fz_bad_open(z, which);
	/* Writeback's batches through io_uring or pwritev() (io/uring.c). */
	flags = len & 1 ? UPC_FILE_IO_URING : 0;
	/* A flusher thread writing back beside what follows. */
	if (len & 4)
		flags |= UPC_FILE_WRITEBACK_BACKGROUND;
	/* The file direct or not; this program reads it through @fd. */
	if (z->dfd >= 0)
		close(z->dfd);
	z->dfd = len & 2 ? fz_reopen_fd(z, O_RDWR | O_DIRECT) : -1;
	fz_arm(z);
	got = upc_file_open(z->cache, z->dfd >= 0 ? z->dfd : z->fd, flags,
			    &z->file);
	fz_disarm(z);
	/* Its allocation failed: nothing was opened; again without. */
	if (z->faulty && got == -ENOMEM)
		got = upc_file_open(z->cache, z->dfd >= 0 ? z->dfd : z->fd,
				    flags, &z->file);
	fz_expect(z, "upc_file_open() again", got, 0);
	check_size(z);
}

/* Bad pointers and counts: each call fails (or does nothing) as said. */
static void op_bad(struct fz *z, int64_t pos, int64_t len, uint8_t arg)
{
	struct iovec iov[2] = { { z->buf, 10 }, { NULL, 5 } }, many[10];
	struct upc_span spans[4];
	int n;
	int64_t want = rw_verify(pos, len);
	bool neg = pos < 0;
	int64_t got;

	switch (arg % 10) {
	case 0:
		got = upc_read(z->file, NULL, (size_t)len, pos);
		/* NULL and past INT64_MAX: either may be reported. */
		if (!neg && want < 0 && got == -EFAULT)
			break;
		fz_expect(z, "read NULL", got,
			  neg ? -EINVAL : want < 0 ? -EINVAL :
			  len ? -EFAULT : 0);
		break;
	case 1:
		got = upc_write(z->file, NULL, (size_t)len, pos);
		if (!neg && want < 0 && got == -EFAULT)
			break;
		fz_expect(z, "write NULL", got,
			  neg ? -EINVAL : want < 0 ? -EINVAL :
			  len ? -EFAULT : 0);
		break;
	case 2:
		fz_expect(z, "readv NULL iov",
			  upc_readv(z->file, NULL, (int)(len % 3), pos),
			  neg ? -EINVAL : len % 3 ? -EFAULT : 0);
		break;
	case 3:
		fz_expect(z, "writev NULL iov",
			  upc_writev(z->file, NULL, (int)(len % 3), pos),
			  neg ? -EINVAL : len % 3 ? -EFAULT : 0);
		break;
	case 4:
		fz_expect(z, "readv iovcnt -1",
			  upc_readv(z->file, iov, -1, pos), -EINVAL);
		fz_expect(z, "writev iovcnt IOV_MAX + 1",
			  upc_writev(z->file, iov, IOV_MAX + 1, pos),
			  -EINVAL);
		break;
	case 5:
		iov[0].iov_len = SSIZE_MAX;
		iov[1].iov_base = z->buf;
		iov[1].iov_len = 2;
		fz_expect(z, "writev past SSIZE_MAX",
			  upc_writev(z->file, iov, 2, pos), -EINVAL);
		fz_expect(z, "readv past SSIZE_MAX",
			  upc_readv(z->file, iov, 2, pos), -EINVAL);
		break;
	case 6:
		/* The last of 2 or 10 (copied into allocated memory). */
		n = len & 1 ? 10 : 2;
		for (int i = 0; i < n; i++) {
			many[i].iov_base = i < n - 1 ? z->buf : NULL;
			many[i].iov_len = 10;
		}
		fz_expect(z, "writev NULL buffer",
			  upc_writev(z->file, many, n, pos),
			  neg ? -EINVAL : -EFAULT);
		fz_expect(z, "readv NULL buffer",
			  upc_readv(z->file, many, n, pos),
			  neg ? -EINVAL : -EFAULT);
		break;
	case 7:
		got = upc_get_spans(z->file, pos, (size_t)len, spans, 4);
		if (neg) {
			fz_expect(z, "upc_get_spans() bad offset", got, -EINVAL);
			break;
		}
		fz_expect(z, "upc_get_spans() count", got,
			  pos >= z->size || !len ? 0 :
			  got > 0 && got <= 4 ? got : 1);
		/* Data in order from @pos, the model's bytes, in the file. */
		for (int i = 0, at = 0; i < got; i++) {
			const struct upc_span *sp = &spans[i];

			if (!sp->data || sp->offset != pos + at || !sp->len ||
			    sp->offset + (int64_t)sp->len > z->size ||
			    memcmp(sp->data, z->bytes + sp->offset, sp->len))
				fz_fail(z, "span at", sp->offset, pos + at);
			at += (int)sp->len;
		}
		upc_put_spans(spans, got > 0 ? (unsigned int)got : 0);
		break;
	case 8:
		fz_expect(z, "read NULL file",
			  upc_read(NULL, z->buf, 1, 0), -EBADF);
		fz_expect(z, "write NULL file",
			  upc_write(NULL, z->buf, 1, 0), -EBADF);
		fz_expect(z, "size NULL file", upc_size(NULL), -EBADF);
		fz_expect(z, "fsync NULL file", upc_fsync(NULL), -EBADF);
		fz_expect(z, "fdatasync NULL file", upc_fdatasync(NULL),
			  -EBADF);
		fz_expect(z, "truncate NULL file", upc_truncate(NULL, 0),
			  -EBADF);
		fz_expect(z, "fallocate NULL file",
			  upc_fallocate(NULL, 0, 0, 1), -EBADF);
		fz_expect(z, "seek NULL file", upc_seek_data(NULL, 0),
			  -EBADF);
		fz_expect(z, "seek hole NULL file", upc_seek_hole(NULL, 0),
			  -EBADF);
		fz_expect(z, "readv NULL file",
			  upc_readv(NULL, iov, 1, 0), -EBADF);
		fz_expect(z, "close NULL file", upc_close(NULL), -EBADF);
		break;
	default:
		/* Nothing to move: 0, and the size stays. */
		iov[0].iov_base = NULL;
		iov[0].iov_len = 0;
		fz_expect(z, "empty writev", upc_writev(z->file, iov, 1, pos),
			  neg ? -EINVAL : 0);
		fz_expect(z, "no writev", upc_writev(z->file, NULL, 0, pos),
			  neg ? -EINVAL : 0);
		fz_expect(z, "empty write", upc_write(z->file, z->buf, 0, pos),
			  neg ? -EINVAL : 0);
		break;
	}
	check_size(z);
}

static void fz_step(struct fz *z, struct input *in)
{
	uint8_t op = u8(in);
	int64_t pos = in_offset(in, op, FZ_SIZE), len = in_len(in, FZ_SIZE);
	uint8_t arg = u8(in);
	int iovcnt = fz_iovcnts[(op >> 4) & 7];

	/* Armed by the operation before. */
	z->faulty = z->fault_n != 0;
	/* Near the end of the file (an extension, or a tail rewrite). */
	if ((op & 15) == 11 && pos >= 0 && pos <= FZ_SIZE)
		pos = in_max(0, z->size - 4096 + pos % 12288);
	fz_log(z, "op %u pos %" PRId64 " len %" PRId64 " arg %u iov %d "
	       "(size %" PRId64 ")", op & 15, pos, len, arg, iovcnt, z->size);
	switch (op & 15) {
	case 0:
	case 11:
	case 12:
		op_write(z, pos, len, arg, 0);
		break;
	case 1:
		op_read(z, pos, len, 0);
		break;
	case 13:
		/* Fault injection for the next operation. */
		z->fault_n = 1 + (unsigned long)len % 48;
		z->fault_sticky = arg & 1;
		check_size(z);
		return;
	case 2:
		op_write(z, pos, len, arg, iovcnt);
		break;
	case 3:
		op_read(z, pos, len, iovcnt);
		break;
	case 4:
		op_truncate(z, pos, len);
		break;
	case 5:
		op_fallocate(z, pos, len, arg % 16);
		break;
	case 6:
	case 7:
		check_seek(z, pos, (op & 15) == 6);
		break;
	case 8:
		op_fsync(z, pos, len, arg);
		break;
	case 9:
		op_reopen(z, pos, len, arg);
		break;
	case 10:
		op_bad(z, pos, len, arg);
		break;
	case 14:
		op_fallocate(z, pos, len, 2);
		break;
	default:
		op_fallocate(z, pos, len, arg & 1);
		break;
	}
	z->fault_n = 0;
	z->faulty = false;
	check_size(z);
}

/* ---- set-up -------------------------------------------------------------- */

static bool fz_dir_usable(const char *dir)
{
	char path[300];
	int fd;

	if (!dir || !*dir || strlen(dir) >= sizeof(fz_dir))
		return false;
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(path, sizeof(path), "%s/upcache-fuzz-XXXXXX", dir);
		fd = mkstemp(path);
		if (fd < 0)
			return false;
		unlink(path);
	}
	close(fd);
	snprintf(fz_dir, sizeof(fz_dir), "%s", dir);
	return true;
}

/* A new, empty backing file, already unlinked. */
static int fz_backing_file(void)
{
	char path[300];
	int fd = open(fz_dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd >= 0)
		return fd;
	snprintf(path, sizeof(path), "%s/upcache-fuzz-XXXXXX", fz_dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0) {
		perror("fuzz_file: backing file");
		abort();
	}
	unlink(path);
	return fd;
}

/* What the backing file holds before upc_file_open(). */
static void fz_fill(struct fz *z, int64_t pos, int64_t len, uint8_t arg)
{
	const unsigned char *src = fz_source(z, arg);

	if (pwrite(z->fd, src, (size_t)len, pos) != len)
		abort();
	model_write(z, pos, src, len);
}

static void fz_init_content(struct fz *z)
{
	switch (z->init) {
	case 1:
		fz_fill(z, 0, 10000, 7);
		break;
	case 2:
		fz_fill(z, 0, 5000, 11);
		fz_fill(z, (1L << 20) + 100, 8900, 13);
		if (ftruncate(z->fd, (3L << 19) + 3))
			abort();
		z->size = (3L << 19) + 3;
		break;
	case 3:
		fz_fill(z, 0, 3L << 20, 17);
		break;
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct stat st;
	int64_t i;
	int fd;

	(void)argc;
	(void)argv;
	fz.bytes = calloc(1, FZ_SIZE);
	fz.buf = malloc(FZ_SIZE);
	fz.pattern = calloc(1, FZ_PATTERN_LEN + FZ_SIZE);
	if (!fz.bytes || !fz.buf || !fz.pattern)
		abort();
	for (i = 0; i < FZ_PATTERN_LEN; i++)
		fz.pattern[i] = (unsigned char)(1 + i % FZ_PERIOD);
	if (!fz_dir_usable("/dev/shm") && !fz_dir_usable(getenv("TMPDIR")) &&
	    !fz_dir_usable("/tmp")) {
		fprintf(stderr, "fuzz_file: no directory for backing files\n");
		abort();
	}
	fz_dir_fd = open(fz_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fd = fz_backing_file();
	fz.blksize = fstat(fd, &st) || st.st_blksize <= 0 ? 4096 :
		     (int64_t)st.st_blksize;
	close(fd);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	uint8_t config = u8(&in);
	struct upc_cache_config cfg = {
		.memory_limit = config & 1 ? FZ_SMALL_LIMIT : FZ_BIG_LIMIT,
	};
	unsigned int i;

	if (!fz.bytes)
		LLVMFuzzerInitialize(NULL, NULL);
	fz.small = config & 1;
	fz.init = (config >> 1) & 3;
	fz.size = 0;
	fz.nr_log = 0;
	fz.fault_n = 0;
	fz.faulty = false;
	memset(fz.bytes, 0, (size_t)fz.touched);
	fz.touched = 0;
	fz.fd = fz_backing_file();
	fz.dfd = -1;
	fz_init_content(&fz);
	if (upc_cache_create(&cfg, &fz.cache))
		abort();
	fz_expect(&fz, "upc_file_open()",
		  upc_file_open(fz.cache, fz.fd, 0, &fz.file), 0);
	check_size(&fz);
	for (i = 0; i < FZ_MAX_OPS && in.n; i++) {
		fz_step(&fz, &in);
		check_mapping(&fz);
	}
	fz_log(&fz, "end: fsync, compare, close");
	fz_expect(&fz, "final fsync", upc_fsync(fz.file), 0);
	check_clean(&fz, "dirty pages after the final fsync");
	check_backing(&fz, 0, FZ_SIZE);
	check_size(&fz);
	check_range(&fz, 0, FZ_SIZE);
	check_mapping(&fz);
	fz_expect(&fz, "final upc_close()", upc_close(fz.file), 0);
	fz.file = NULL;
	check_no_memory(&fz, "memory after the final upc_close()");
	fz_expect(&fz, "upc_cache_destroy()", upc_cache_destroy(fz.cache), 0);
	fz.cache = NULL;
	if (fz.dfd >= 0)
		close(fz.dfd);
	fz.dfd = -1;
	close(fz.fd);
	fz.fd = -1;
	return 0;
}
