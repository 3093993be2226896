// SPDX-License-Identifier: MIT
/*
 * tests/fuzz/fuzz_upcache.c - libFuzzer target: a shmem file through the
 * upc_ API against a simple model.
 *
 * This file owns the fuzzer's input format.  Each input is decoded into
 * a short sequence of operations applied to an upcache file and to a
 * model: the file's bytes, its size, and (for exact seek checks) the
 * state of each 4 KiB page: a hole, allocated but unwritten, or data,
 * with tmpfs's rules (tests/api/test_shmem_tmpfs_diff.c checks the
 * rules against the kernel).  Any difference in a result, a byte, the
 * size or a seek, or a broken page cache invariant (upc_check_mapping())
 * prints the operations so far and aborts.  Missing bytes read as zero,
 * so every input is valid.
 *
 * With swap (bit 2 of byte 0) the cache is 2 MiB, half the model, with a
 * swap device in memory large enough for all of it: reclaim swaps the
 * file's pages out as it grows, and reads, writes, fallocate, punch and
 * truncate swap them back in, against the same exact model.  Memory can
 * still run short where reclaim must keep folios: those fallocated and
 * never written, and those a write or fallocate holds while it fills a
 * run (up to 2 MiB of them); and with huge on, a large folio swapped
 * out comes back whole, needing up to 2 MiB at once.  So while the model
 * is exact, huge is off, at most FZ_SWAP_UNWRITTEN pages are unwritten
 * (after the operation) and an operation covers at most
 * FZ_SWAP_STRICT_PAGES pages,
 * every call must succeed in full; otherwise a call may come up short as
 * in the 2 MiB cache without swap (the model is then no longer exact),
 * and a read, punch or truncation may also fail with -ENOMEM having
 * changed nothing.  Fallocating more than the cache holds is always
 * -ENOSPC, with nothing changed.  At the end the device must pass
 * upc_check_swap() and, once the file is closed, hold nothing.  With
 * bit 3 too the device is a swap file (FZ_SWAP_FILE, made afresh each
 * run and removed once open, named by the process): less than half of it is ever in use, so
 * pages read back keep their slots until written or truncated, reads
 * in order read ahead, and reclaim writes neighbours together.
 *
 * Format:
 *	byte 0		configuration: bit 0 huge=always (seeks are then
 *			only checked for consistency: large folios keep
 *			zeroed pages as data), bit 1 a 2 MiB cache (writes
 *			run short, fallocate fails; seeks checked loosely),
 *			bit 2 a 2 MiB cache with FZ_SWAP bytes of swap in
 *			memory (bit 1 then changes nothing; see above),
 *			bit 3 with bit 2: the swap in a file
 *	then, per operation (at most FZ_MAX_OPS):
 *	  op byte	% 8: write, read, fallocate, punch, truncate,
 *			seek data, seek hole, writev
 *	  offset	3 bytes little-endian, % (FZ_SIZE + 1); offset
 *			byte >> 7 of the op byte set: a bad one instead
 *			(negative, or next to INT64_MAX)
 *	  length	2 bytes: < 0xf000 as is, else up to FZ_SIZE
 *	  arg		1 byte: the fill byte, or the fallocate mode
 *
 * Run without libFuzzer by tests/fuzz/replay_main.c over the seed corpus
 * tests/fuzz/corpus/fuzz_upcache/.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <linux/falloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <upcache/check.h>
#include <upcache/upcache.h>

#include "api/internal.h"

#include "fuzz_input.h"

#define FZ_SIZE		(4L << 20)	/* the model's bytes */
#define FZ_PAGE		4096L
#define FZ_PAGES	(FZ_SIZE / FZ_PAGE)
#define FZ_MAX_OPS	48
#define FZ_LIMIT_PAGES	512		/* the 2 MiB cache */
#define FZ_SWAP		(8L << 20)	/* twice the model */
#define FZ_SWAP_FILE	"/tmp/fuzz_upcache_swap.%d"	/* pid */
/* With swap: what memory must hold at most for no call to fail. */
#define FZ_SWAP_UNWRITTEN	(FZ_LIMIT_PAGES / 4)
#define FZ_SWAP_STRICT_PAGES	(FZ_LIMIT_PAGES / 2)

enum fz_page { FZ_HOLE, FZ_UNWRITTEN, FZ_DATA };

struct fz {
	struct upc_cache *cache;
	struct upc_file *file;
	bool huge;
	bool small;
	bool swap;
	bool swap_file;
	bool exact;		/* page states are known exactly */
	unsigned char *bytes;
	unsigned char *pages;	/* enum fz_page per page */
	unsigned char *buf;
	int64_t size;
	char log[FZ_MAX_OPS][80];
	unsigned int nr_log;
};


static void fz_fail(struct fz *z, const char *what, int64_t got, int64_t want)
{
	unsigned int i;

	fprintf(stderr, "fuzz_upcache: huge=%d small=%d swap=%d swap_file=%d; "
		"operations:\n", z->huge, z->small, z->swap, z->swap_file);
	for (i = 0; i < z->nr_log; i++)
		fprintf(stderr, "  %s\n", z->log[i]);
	fprintf(stderr, "fuzz_upcache: %s: got %" PRId64 ", expected %"
		PRId64 "\n", what, got, want);
	abort();
}

static void fz_expect(struct fz *z, const char *what, int64_t got, int64_t want)
{
	if (got != want)
		fz_fail(z, what, got, want);
}

/* ---- the model ----------------------------------------------------------- */

/* Page states over [@pos, @end) after a write of it. */
static void model_write(struct fz *z, int64_t pos, int64_t len, int64_t done,
			uint8_t fill)
{
	int64_t p;

	(void)len;
	if (done <= 0)
		return;
	memset(z->bytes + pos, fill, (size_t)done);
	for (p = pos / FZ_PAGE; p <= (pos + done - 1) / FZ_PAGE; p++)
		z->pages[p] = FZ_DATA;
	if (pos + done > z->size)
		z->size = pos + done;
}

/* tmpfs: unwritten pages covered again become data, holes unwritten. */
static void model_falloc(struct fz *z, int64_t pos, int64_t len, bool keep)
{
	int64_t last = (pos + len - 1) / FZ_PAGE, p;

	for (p = pos / FZ_PAGE; p <= last && p < FZ_PAGES; p++)
		z->pages[p] = z->pages[p] == FZ_HOLE ? FZ_UNWRITTEN : FZ_DATA;
	if (!keep && pos + len > z->size)
		z->size = pos + len;
}

/* Whole pages go; partial ones are zeroed. */
static void model_zero(struct fz *z, int64_t pos, int64_t end)
{
	int64_t p;

	end = in_min(end, FZ_SIZE);
	if (pos >= end)
		return;
	memset(z->bytes + pos, 0, (size_t)(end - pos));
	for (p = (pos + FZ_PAGE - 1) / FZ_PAGE; (p + 1) * FZ_PAGE <= end; p++)
		z->pages[p] = FZ_HOLE;
}

static void model_truncate(struct fz *z, int64_t size)
{
	if (size <= z->size)
		model_zero(z, size, FZ_SIZE);
	/* The partial last page past @size was zeroed; it keeps its state. */
	z->size = size;
}

static int64_t model_seek(struct fz *z, int64_t pos, bool data)
{
	int64_t p;

	if (pos >= z->size)
		return -ENXIO;
	for (p = pos / FZ_PAGE; p * FZ_PAGE < z->size; p++) {
		bool is_data = p < FZ_PAGES && z->pages[p] == FZ_DATA;

		if (is_data == data)
			return p * FZ_PAGE > pos ? p * FZ_PAGE : pos;
	}
	return data ? -ENXIO : z->size;
}

/* Pages of [@first, @end) in state @state (all pages: 0, FZ_PAGES). */
static int64_t model_count(const struct fz *z, int64_t first, int64_t end,
			   enum fz_page state)
{
	int64_t n = 0;

	for (int64_t p = first; p < end && p < FZ_PAGES; p++)
		n += z->pages[p] == state;
	return n;
}

/*
 * May a call covering [@pos, @pos + @len) run short of memory, with
 * @unwritten pages fallocated and never written once it is done?
 * Without swap only in the 2 MiB cache; with swap only where reclaim
 * may be left with too little to evict (see the opening comment).
 */
static bool fz_may_run_short(const struct fz *z, int64_t pos, int64_t len,
			     int64_t unwritten)
{
	int64_t pages;

	if (!z->swap)
		return z->small;
	if (!z->exact || z->huge || unwritten > FZ_SWAP_UNWRITTEN)
		return true;
	pages = len <= 0 ? 0 : (pos + len - 1) / FZ_PAGE - pos / FZ_PAGE + 1;
	return pages > FZ_SWAP_STRICT_PAGES;
}

/* The same for a call that allocates nothing but swapped-in pages. */
static bool fz_may_fail_swapin(const struct fz *z)
{
	return z->swap && fz_may_run_short(z, 0, FZ_PAGE,
					   model_count(z, 0, FZ_PAGES,
						       FZ_UNWRITTEN));
}

/* ---- checks -------------------------------------------------------------- */

static void check_range(struct fz *z, int64_t pos, int64_t len)
{
	int64_t want = pos >= z->size ? 0 : in_min(len, z->size - pos);
	ssize_t got = upc_read(z->file, z->buf, (size_t)len, pos);

	/* A swap-in that found no memory: what came before it is checked. */
	if (want > 0 && (got == -ENOMEM || (got >= 0 && got < want)) &&
	    fz_may_fail_swapin(z)) {
		if (got < 0)
			return;
		want = got;
	}
	fz_expect(z, "read length", got, want);
	if (want <= 0 || !memcmp(z->buf, z->bytes + pos, (size_t)want))
		return;
	for (int64_t i = 0; i < want; i++)
		if (z->buf[i] != z->bytes[pos + i])
			fz_fail(z, "byte at", pos + i, z->bytes[pos + i]);
}

/* Are the model's bytes [@pos, @end) all zero? */
static bool model_zeros(const struct fz *z, int64_t pos, int64_t end)
{
	static const unsigned char zeros[4096];

	while (pos < end) {
		size_t n = (size_t)in_min(end - pos, sizeof(zeros));

		if (memcmp(z->bytes + pos, zeros, n))
			return false;
		pos += (int64_t)n;
	}
	return true;
}

/*
 * Exact seeks where the page states are known; otherwise the answer must
 * be possible: in range, and for SEEK_DATA every byte skipped is zero.
 */
static void check_seek(struct fz *z, int64_t pos, bool data)
{
	int64_t got = data ? upc_seek_data(z->file, pos) :
			     upc_seek_hole(z->file, pos);

	if (z->exact) {
		fz_expect(z, data ? "SEEK_DATA" : "SEEK_HOLE", got,
			  model_seek(z, pos, data));
		return;
	}
	if (pos >= z->size) {
		fz_expect(z, "seek past the end", got, -ENXIO);
		return;
	}
	if (got == -ENXIO && data)
		got = z->size;
	if (got < pos || got > z->size)
		fz_fail(z, "seek out of range", got, pos);
	if (data && !model_zeros(z, pos, got))
		fz_fail(z, "SEEK_DATA skipped data before", got, pos);
}

static void check_all(struct fz *z)
{
	fz_expect(z, "size", upc_size(z->file), z->size);
	check_range(z, 0, FZ_SIZE);
	fz_expect(z, "upc_check_mapping()",
		  upc_check_mapping(upc_file_mapping(z->file)), 0);
}

/* ---- operations ---------------------------------------------------------- */

/* A write's expected result before memory limits: errors and the cut. */
static int64_t write_limit(int64_t pos, int64_t len)
{
	if (pos < 0 || len > INT64_MAX - pos)
		return -EINVAL;
	return len;
}

static void op_write(struct fz *z, int64_t pos, int64_t len, uint8_t fill,
		     bool vector)
{
	int64_t want = write_limit(pos, len), got;

	if (want > 0 && pos >= FZ_SIZE)
		return;		/* a valid write the model cannot hold */
	if (want > 0 && pos + len > FZ_SIZE) {
		len = FZ_SIZE - pos;	/* stay inside the model */
		want = len;
	}
	memset(z->buf, fill, (size_t)(len > 0 ? len : 0));
	if (vector) {
		struct iovec iov[2] = {
			{ z->buf, (size_t)len / 2 },
			{ z->buf + len / 2, (size_t)(len - len / 2) },
		};

		got = upc_writev(z->file, iov, 2, pos);
	} else {
		got = upc_write(z->file, z->buf, (size_t)len, pos);
	}
	if (want > 0 && (got == -ENOSPC || (got == -ENOMEM && z->swap) ||
			 (got >= 0 && got < want)) &&
	    fz_may_run_short(z, pos, len, model_count(z, 0, FZ_PAGES,
						      FZ_UNWRITTEN))) {
		z->exact = false;	/* short: fine when memory is short */
		want = got < 0 ? 0 : got;
		if (got < 0)
			return;
	}
	fz_expect(z, "write", got, want);
	model_write(z, pos, len, got, fill);
	if (got > 0)
		check_range(z, pos, got);
}

static void op_fallocate(struct fz *z, int64_t pos, int64_t len, uint8_t arg)
{
	static const int modes[] = {
		0, FALLOC_FL_KEEP_SIZE,
		FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		FALLOC_FL_PUNCH_HOLE, FALLOC_FL_ZERO_RANGE,
		FALLOC_FL_COLLAPSE_RANGE, 0x100, -1,
	};
	int mode = modes[arg % 8];
	bool supported = (arg % 8) < 3;
	/* Zeroing and collapsing pass the VFS: tmpfs refuses them later. */
	bool vfs_ok = (arg % 8) < 3 || (arg % 8) == 4 || (arg % 8) == 5;
	int64_t want = 0;
	int got;

	if (pos < 0 || len <= 0)
		want = -EINVAL;
	else if (!vfs_ok)
		want = -EOPNOTSUPP;
	else if (len > INT64_MAX - pos)
		want = -EFBIG;
	else if (!supported)
		want = -EOPNOTSUPP;
	else if (!(mode & FALLOC_FL_PUNCH_HOLE) && pos + len > FZ_SIZE)
		return;		/* would grow past the model */
	else if (z->swap && !(mode & FALLOC_FL_PUNCH_HOLE) &&
		 (pos + len - 1) / FZ_PAGE - pos / FZ_PAGE >= FZ_LIMIT_PAGES)
		want = -ENOSPC;	/* more than the cache: nothing is done */
	got = upc_fallocate(z->file, mode, pos, len);
	if (!want && (got == -ENOSPC || (got == -ENOMEM && z->swap))) {
		if (mode & FALLOC_FL_PUNCH_HOLE) {
			/* A page in swap it covers in part stayed there. */
			if (got == -ENOMEM && fz_may_fail_swapin(z))
				return;
		} else if (fz_may_run_short(z, pos, len,
					    model_count(z, 0, FZ_PAGES,
							FZ_UNWRITTEN) +
					    model_count(z, pos / FZ_PAGE,
							(pos + len - 1) /
							FZ_PAGE + 1,
							FZ_HOLE))) {
			z->exact = false;	/* part may have become data */
			return;
		}
	}
	fz_expect(z, "fallocate", got, want);
	if (want)
		return;
	if (mode & FALLOC_FL_PUNCH_HOLE)
		model_zero(z, pos, pos + len);
	else
		model_falloc(z, pos, len, mode & FALLOC_FL_KEEP_SIZE);
}

static void op_truncate(struct fz *z, int64_t size)
{
	bool may_fail = fz_may_fail_swapin(z);
	int got;

	/* Past the model: the way back might fail, and the model not say. */
	if (size > FZ_SIZE && may_fail)
		return;
	got = upc_truncate(z->file, size);
	if (size < 0) {
		fz_expect(z, "truncate", got, -EINVAL);
		return;
	}
	/* The page @size falls in was in swap and stayed: nothing changed. */
	if (got == -ENOMEM && may_fail)
		return;
	if (size > FZ_SIZE) {
		/* Past the model: only back to where the model holds. */
		fz_expect(z, "truncate", got, 0);
		got = upc_truncate(z->file, z->size);
	}
	fz_expect(z, "truncate", got, 0);
	if (size <= FZ_SIZE)
		model_truncate(z, size);
	else
		model_truncate(z, z->size);
}

static void fz_step(struct fz *z, struct input *in)
{
	uint8_t op = u8(in);
	int64_t pos = in_offset(in, op, FZ_SIZE), len = in_len(in, FZ_SIZE);
	uint8_t arg = u8(in);

	if (z->nr_log < FZ_MAX_OPS)
		snprintf(z->log[z->nr_log++], sizeof(z->log[0]),
			 "op %u pos %" PRId64 " len %" PRId64 " arg %u",
			 op & 7, pos, len, arg);
	switch (op & 7) {
	case 0:
	case 7:
		op_write(z, pos, len, arg | 1, (op & 7) == 7);
		break;
	case 1:
		if (pos < 0 || len > INT64_MAX - pos)
			fz_expect(z, "bad read", upc_read(z->file, z->buf,
							  (size_t)len, pos),
				  -EINVAL);
		else
			check_range(z, pos, in_min(len, FZ_SIZE));
		break;
	case 2:
	case 3:
		op_fallocate(z, pos, len, (op & 7) == 3 ? 2 : arg);
		break;
	case 4:
		op_truncate(z, pos);
		break;
	default:
		if (pos < 0)
			fz_expect(z, "bad seek", upc_seek_data(z->file, pos),
				  -ENXIO);
		else
			check_seek(z, pos, (op & 7) == 5);
	}
}

static struct fz fz;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz.bytes = malloc(FZ_SIZE);
	fz.pages = malloc(FZ_PAGES);
	fz.buf = malloc(FZ_SIZE);
	if (!fz.bytes || !fz.pages || !fz.buf)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	uint8_t config = u8(&in);
	struct upc_cache_config cfg = {
		.memory_limit = config & 6 ? FZ_LIMIT_PAGES * FZ_PAGE : 16UL << 20,
	};
	struct upc_swap_config scfg = { .size = FZ_SWAP };
	char swap_path[64];
	struct upc_shmem_options opts = {
		.huge = config & 1 ? UPC_HUGE_ALWAYS : UPC_HUGE_NEVER,
	};
	struct upc_cache_stats st = { 0 };
	unsigned int i;

	if (!fz.bytes)
		LLVMFuzzerInitialize(NULL, NULL);
	fz.huge = config & 1;
	fz.small = config & 2;
	fz.swap = config & 4;
	fz.swap_file = fz.swap && (config & 8);
	snprintf(swap_path, sizeof(swap_path), FZ_SWAP_FILE, (int)getpid());
	scfg.path = fz.swap_file ? swap_path : NULL;
	fz.exact = !fz.huge;
	fz.size = 0;
	fz.nr_log = 0;
	memset(fz.bytes, 0, FZ_SIZE);
	memset(fz.pages, FZ_HOLE, FZ_PAGES);
	if (upc_cache_create(&cfg, &fz.cache) ||
	    upc_shmem_create(fz.cache, &opts, &fz.file))
		abort();
	/* Swap on with the file open: it becomes evictable as it is. */
	if (fz.swap_file)
		unlink(swap_path);
	if (fz.swap && upc_swapon(fz.cache, &scfg))
		abort();
	/* The device holds it open; a crash leaves nothing behind. */
	if (fz.swap_file)
		unlink(swap_path);
	for (i = 0; i < FZ_MAX_OPS && in.n; i++)
		fz_step(&fz, &in);
	check_all(&fz);
	if (fz.swap)
		fz_expect(&fz, "upc_check_swap()",
			  upc_check_swap(fz.cache->swap), 0);
	if (upc_close(fz.file) || upc_cache_stats(fz.cache, &st) ||
	    st.memory_used || upc_cache_destroy(fz.cache))
		fz_fail(&fz, "leak at close", (int64_t)st.memory_used, 0);
	fz_expect(&fz, "swap used after close", (int64_t)st.swap_used, 0);
	return 0;
}
