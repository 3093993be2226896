// SPDX-License-Identifier: MIT
/*
 * tests/fuzz/fuzz_anon.c - libFuzzer target: anonymous regions and swap
 * devices through the upc_ API, against a byte model.
 *
 * This file owns the fuzzer's input format.  Each input builds a cache
 * with a small memory limit and decodes a sequence of operations: swap
 * devices on and off (in memory, in a file, or refused: bad sizes,
 * shifts, flags, paths), regions created (sizes from 0 to past
 * UPC_MAX_FILE_SIZE) and destroyed, writes and reads at decoded offsets
 * (inside, across and past the end, next to INT64_MAX, negative) with
 * decoded lengths (0, short, whole pages, megabytes, SIZE_MAX), and calls
 * with NULL handles and buffers.  Every return value must be the one
 * upcache.h documents; every byte read must be the model's, and a read
 * must not touch its buffer past what it returned.  Checks (an operation,
 * and the end of every input) also compare the whole model, run
 * upc_check_mapping() on every region, and hold the accounting exact:
 * each page ever written is resident or swapped out, swap_used is the
 * swapped-out pages plus the copies resident pages kept (swap_cached, at
 * most the resident pages), memory_used is within the limit.  At the end every
 * region is destroyed, memory_used and swap_used must be 0 and no file
 * descriptor may be left open (a swap file).  Any difference prints the
 * operations so far and aborts.
 *
 * Running out of memory.  A write needs a frame for each page it
 * touches first; a page swapped out needs one to come back.  Reclaim
 * makes room by swapping a page out, which needs a free slot, so a page
 * can always be had while the pages ever written are fewer than the
 * limit's pages plus the device's slots (the capacity).  Without a
 * device the rule is exact: a write stops at the first new page past
 * the limit (-ENOMEM if that is its first page).  With one, a read or
 * write may stop early only once the pages written reach the capacity,
 * and then only at a page boundary.
 *
 * The model keeps every byte of a region up to FZ_FULL bytes; a larger
 * region is modelled in two windows, its first FZ_LOW bytes and its last
 * FZ_HIGH, and writes are kept inside them (the bytes between stay zero,
 * which reads check).
 *
 * Format (missing bytes read as zero, so every input is valid):
 *	byte 0		configuration: bit 0 a 4 MiB cache (else 2 MiB);
 *			bit 1 start with a 4 MiB swap device, in a file
 *			with bit 2, with chunk shift {0, 6, 9, 30}[bits 3-4];
 *			bit 5 start with an 8 MiB region in slot 0
 *	then, per operation (at most FZ_MAX_OPS), 10 bytes:
 *	  op		% 10: write (0-2), read (3-4), create, destroy,
 *			swapon, swapoff, misc (9)
 *	  slot		which of FZ_SLOTS regions (% FZ_SLOTS)
 *	  where, v[3]	an offset class and 24 bits (rd_offset())
 *	  len, u[2]	a length class and 16 bits (rd_len())
 *	  fill		where a write's data starts in a random pool;
 *			0xff: a NULL buffer instead
 *	create reads its size from where (% 14, rd_region_size()), v and
 *	u, and len % 16 == 1 or 2 passes a NULL cache or out; swapon
 *	reads the size from slot (% 10, rd_swap_size()), the shift from
 *	where, the path from len % 8 (1: a file, 2: a missing directory,
 *	else memory), flags when fill % 8 == 7, and fill % 16 == 5 makes it
 *	a pair of NULL-argument calls instead; misc is, by fill % 6, a full
 *	check (0, 1), NULL-handle calls (2, 3), upc_cache_destroy() with
 *	regions alive (4) or a check of one region (5).
 *
 * Run without libFuzzer by tests/fuzz/replay_main.c over the seed corpus
 * tests/fuzz/corpus/fuzz_anon/.  FUZZ_ANON_TRACE=1 prints every step and
 * every result checked.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <upcache/check.h>
#include <upcache/swap.h>
#include <upcache/upcache.h>

#include "api/internal.h"

#include "fuzz_input.h"

#define FZ_PAGE		4096L
#define FZ_MIB		(1L << 20)
#define FZ_FULL		(3 * FZ_MIB)	/* regions modelled whole */
#define FZ_LOW		(2 * FZ_MIB)	/* first window of larger ones */
#define FZ_HIGH		(FZ_MIB / 2)	/* last window of larger ones */
#define FZ_BUF		(FZ_FULL + 2 * FZ_PAGE)	/* longest transfer */
#define FZ_CANARY	64
#define FZ_POOL_SLACK	(FZ_PAGE + 13)	/* start offsets of write data */
#define FZ_SLOTS	3
#define FZ_MAX_OPS	64
#define FZ_LOG		96

struct fz_region {
	struct upc_anon *anon;		/* NULL: the slot is free */
	uint64_t size;
	uint64_t low_len;		/* bytes of @low: [0, low_len) */
	uint64_t high_start;		/* @high is [high_start, size) */
	uint64_t high_page;		/* first page @high_touched counts */
	unsigned char *low, *high;
	unsigned char *low_touched;	/* per page of [0, low_len) */
	unsigned char *high_touched;	/* per page from high_page */
};

struct fz {
	struct upc_cache *cache;
	uint64_t limit;
	bool swap_on;
	uint64_t swap_size;
	struct fz_region regions[FZ_SLOTS];
	unsigned long touched;		/* pages ever written, all regions */
	unsigned char *pool;		/* random bytes writes take a slice of */
	unsigned char *rbuf;
	char swap_path[64];		/* a file for file-backed devices */
	bool trace;			/* FUZZ_ANON_TRACE=1: print each step */
	char log[FZ_MAX_OPS + 8][FZ_LOG];
	unsigned int nr_log;
};

static struct fz fz;

/* ---- failing -------------------------------------------------------------- */

static void fz_fail(const char *what, int64_t got, int64_t want)
{
	unsigned int i;

	fprintf(stderr, "fuzz_anon: limit %" PRIu64 ", swap %" PRIu64
		"; operations:\n", fz.limit, fz.swap_on ? fz.swap_size : 0);
	for (i = 0; i < fz.nr_log; i++)
		fprintf(stderr, "  %s\n", fz.log[i]);
	fprintf(stderr, "fuzz_anon: %s: got %" PRId64 ", expected %" PRId64
		"\n", what, got, want);
	abort();
}

static void fz_expect(const char *what, int64_t got, int64_t want)
{
	if (fz.trace)
		fprintf(stderr, "    %s: %" PRId64 "\n", what, got);
	if (got != want)
		fz_fail(what, got, want);
}

static void fz_logf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void fz_logf(const char *fmt, ...)
{
	va_list ap;

	if (fz.nr_log >= FZ_MAX_OPS + 8)
		return;
	va_start(ap, fmt);
	vsnprintf(fz.log[fz.nr_log++], FZ_LOG, fmt, ap);
	va_end(ap);
	if (fz.trace)
		fprintf(stderr, "  %s\n", fz.log[fz.nr_log - 1]);
}

/* ---- the model ------------------------------------------------------------ */

static bool region_split(const struct fz_region *r)
{
	return r->size > FZ_FULL;
}

/* The model's byte at @pos (< size): zero between the windows. */
static unsigned char model_byte(const struct fz_region *r, uint64_t pos)
{
	if (pos < r->low_len)
		return r->low[pos];
	if (region_split(r) && pos >= r->high_start)
		return r->high[pos - r->high_start];
	return 0;
}

/* The touched flag of page @page, or NULL between the windows. */
static unsigned char *model_touched(struct fz_region *r, uint64_t page)
{
	if (page < (r->low_len + FZ_PAGE - 1) / FZ_PAGE)
		return &r->low_touched[page];
	if (region_split(r) && page >= r->high_page)
		return &r->high_touched[page - r->high_page];
	return NULL;
}

/* Can [@pos, @pos + @n) be written without leaving the model? */
static bool model_holds(const struct fz_region *r, uint64_t pos, uint64_t n)
{
	if (!region_split(r) || pos + n <= r->low_len)
		return true;
	return pos >= r->high_start;
}

static void model_write(struct fz_region *r, uint64_t pos, const void *src,
			uint64_t n)
{
	uint64_t p;

	if (!n)
		return;
	if (pos < r->low_len)
		memcpy(r->low + pos, src, n);
	else
		memcpy(r->high + (pos - r->high_start), src, n);
	for (p = pos / FZ_PAGE; p <= (pos + n - 1) / FZ_PAGE; p++) {
		unsigned char *t = model_touched(r, p);

		if (t && !*t) {
			*t = 1;
			fz.touched++;
		}
	}
}

/* Pages of [@pos, @pos + @n) never written before. */
static unsigned long model_new_pages(struct fz_region *r, uint64_t pos,
				     uint64_t n)
{
	unsigned long nr = 0;
	uint64_t p;

	if (!n)
		return 0;
	for (p = pos / FZ_PAGE; p <= (pos + n - 1) / FZ_PAGE; p++) {
		unsigned char *t = model_touched(r, p);

		nr += t && !*t;
	}
	return nr;
}

/*
 * Without a device: how many bytes of [@pos, @pos + @n) a write gets
 * before its first new page past the limit.  Return: that count, or
 * -ENOMEM if it is 0.
 */
static int64_t model_no_swap_write(struct fz_region *r, uint64_t pos,
				   uint64_t n)
{
	uint64_t limit_pages = fz.limit / FZ_PAGE, at = pos;
	unsigned long touched = fz.touched;

	while (at < pos + n) {
		uint64_t end = (at / FZ_PAGE + 1) * FZ_PAGE;
		unsigned char *t = model_touched(r, at / FZ_PAGE);

		if (t && !*t && touched++ >= limit_pages)
			return at > pos ? (int64_t)(at - pos) : -ENOMEM;
		at = end < pos + n ? end : pos + n;
	}
	return (int64_t)n;
}

/* May a call that needs @new_pages more pages run out of memory? */
static bool model_may_run_out(unsigned long new_pages)
{
	uint64_t capacity = fz.limit / FZ_PAGE +
			    (fz.swap_on ? fz.swap_size / FZ_PAGE : 0);

	return fz.touched + new_pages >= capacity;
}

/* May a read stop early?  Only a swap-in needs memory. */
static bool read_may_run_out(void)
{
	return fz.swap_on && model_may_run_out(0);
}

static void region_free_model(struct fz_region *r)
{
	free(r->low);
	free(r->high);
	free(r->low_touched);
	free(r->high_touched);
	memset(r, 0, sizeof(*r));
}

static void region_forget(struct fz_region *r)
{
	unsigned long i, nr_low = (r->low_len + FZ_PAGE - 1) / FZ_PAGE;

	for (i = 0; i < nr_low; i++)
		fz.touched -= r->low_touched[i];
	if (region_split(r))
		for (i = 0; i <= (r->size - 1) / FZ_PAGE - r->high_page; i++)
			fz.touched -= r->high_touched[i];
	region_free_model(r);
}

static void region_model_init(struct fz_region *r, struct upc_anon *anon,
			      uint64_t size)
{
	r->anon = anon;
	r->size = size;
	r->low_len = size > FZ_FULL ? FZ_LOW : size;
	r->low = calloc(1, r->low_len);
	r->low_touched = calloc(1, (r->low_len + FZ_PAGE - 1) / FZ_PAGE);
	if (region_split(r)) {
		r->high_start = size - FZ_HIGH;
		r->high_page = r->high_start / FZ_PAGE;
		r->high = calloc(1, FZ_HIGH);
		r->high_touched = calloc(1, FZ_HIGH / FZ_PAGE + 1);
	}
	if (!r->low || !r->low_touched ||
	    (region_split(r) && (!r->high || !r->high_touched)))
		abort();
}

/* ---- checks ------------------------------------------------------------- */

/* Do @n bytes at @buf match the model from @pos?  (memcmp by window.) */
static bool model_equal(const struct fz_region *r, uint64_t pos,
			const unsigned char *buf, size_t n)
{
	static const unsigned char zeros[FZ_PAGE];

	while (n) {
		size_t len;
		int diff;

		if (pos < r->low_len) {
			len = r->low_len - pos < n ? (size_t)(r->low_len - pos) : n;
			diff = memcmp(buf, r->low + pos, len);
		} else if (region_split(r) && pos >= r->high_start) {
			len = n;
			diff = memcmp(buf, r->high + (pos - r->high_start), len);
		} else {
			uint64_t end = region_split(r) ? r->high_start : r->size;

			len = end - pos < n ? (size_t)(end - pos) : n;
			if (len > sizeof(zeros))
				len = sizeof(zeros);
			diff = memcmp(buf, zeros, len);
		}
		if (diff)
			return false;
		buf += len;
		pos += len;
		n -= len;
	}
	return true;
}

/*
 * Read [@pos, @pos + @count) and compare with the model: the length
 * (@want), every byte, and the canary after them.  A short read (only
 * when @may_short) must end at a page boundary.  Return: bytes read.
 */
static int64_t check_read(struct fz_region *r, int64_t pos, size_t count,
			  int64_t want, bool may_short, const char *what)
{
	size_t room = want > 0 ? (size_t)want : 0, i;
	int64_t got;

	memset(fz.rbuf, 0xa5, room + FZ_CANARY);
	got = upc_anon_read(r->anon, fz.rbuf, count, pos);
	if (may_short && got != want &&
	    (got == -ENOMEM || (got > 0 && got < want &&
				(uint64_t)(pos + got) % FZ_PAGE == 0)))
		want = got;
	fz_expect(what, got, want);
	if (want > 0 && !model_equal(r, (uint64_t)pos, fz.rbuf, (size_t)want))
		for (i = 0; i < (size_t)want; i++)
			if (fz.rbuf[i] != model_byte(r, (uint64_t)pos + i))
				fz_fail("byte at", pos + (int64_t)i,
					model_byte(r, (uint64_t)pos + i));
	for (i = 0; i < FZ_CANARY; i++)
		if (fz.rbuf[room + i] != 0xa5)
			fz_fail("read wrote past its result at", pos + want + (int64_t)i,
				0);
	return got;
}

/* Compare a whole region, in reads of at most FZ_BUF bytes. */
static void check_region(struct fz_region *r)
{
	uint64_t pos = 0;

	while (pos < r->size) {
		uint64_t n = r->size - pos < FZ_BUF ? r->size - pos : FZ_BUF;

		/* Skip the middle of a split region: it reads as zeros. */
		if (region_split(r) && pos >= r->low_len && pos < r->high_start) {
			pos = r->high_start - FZ_PAGE;
			n = FZ_PAGE + (r->size - r->high_start);
		}
		check_read(r, (int64_t)pos, (size_t)n, (int64_t)n,
			   read_may_run_out(), "full read");
		pos += n;
	}
	fz_expect("upc_check_mapping()",
		  upc_check_mapping(&r->anon->region.mapping), 0);
}

/* Every region, and the accounting (see the opening comment). */
static void check_all(void)
{
	unsigned long resident = 0, swapped = 0, live = 0, index;
	struct upc_cache_stats st;
	unsigned int i;
	void *entry;

	/* Reads first: a swap-in in one region may swap out another's page. */
	for (i = 0; i < FZ_SLOTS; i++)
		if (fz.regions[i].anon)
			check_region(&fz.regions[i]);
	for (i = 0; i < FZ_SLOTS; i++) {
		struct fz_region *r = &fz.regions[i];

		if (!r->anon)
			continue;
		live++;
		xa_for_each(&r->anon->region.mapping.i_pages, index, entry) {
			unsigned char *t = model_touched(r, index);

			if (!t || !*t)
				fz_fail("a page never written is held", (int64_t)index, -1);
			if (xa_is_value(entry))
				swapped++;
			else
				resident++;
		}
	}
	fz_expect("pages held", (int64_t)(resident + swapped), (int64_t)fz.touched);
	fz_expect("upc_cache_stats()", upc_cache_stats(fz.cache, &st), 0);
	fz_expect("anon_regions", (int64_t)st.anon_regions, (int64_t)live);
	fz_expect("memory_limit", (int64_t)st.memory_limit, (int64_t)fz.limit);
	if (st.memory_used > st.memory_limit ||
	    st.memory_used < resident * FZ_PAGE)
		fz_fail("memory_used", (int64_t)st.memory_used,
			(int64_t)(resident * FZ_PAGE));
	fz_expect("swap_total", (int64_t)st.swap_total,
		  fz.swap_on ? (int64_t)fz.swap_size : 0);
	fz_expect("swap_used", (int64_t)st.swap_used,
		  (int64_t)(swapped * FZ_PAGE + st.swap_cached));
	if (st.swap_cached > resident * FZ_PAGE)
		fz_fail("swap_cached", (int64_t)st.swap_cached,
			(int64_t)(resident * FZ_PAGE));
}

/* ---- decoding ----------------------------------------------------------- */

struct fz_op {
	uint8_t op, slot, where, len;
	uint32_t v;	/* 24 bits */
	uint16_t u;
	uint8_t fill;
};

static void rd_op(struct input *in, struct fz_op *o)
{
	o->op = u8(in);
	o->slot = u8(in);
	o->where = u8(in);
	o->v = u8(in);
	o->v |= (uint32_t)u8(in) << 8;
	o->v |= (uint32_t)u8(in) << 16;
	o->len = u8(in);
	o->u = u8(in);
	o->u |= (uint16_t)(u8(in) << 8);
	o->fill = u8(in);
}

static int64_t sat_add(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* An offset in @r: see the classes in the switch. */
static int64_t rd_offset(const struct fz_region *r, const struct fz_op *o)
{
	int64_t size = (int64_t)r->size, low = (int64_t)r->low_len;
	int64_t v = o->v, page;

	switch (o->where % 16) {
	default:	/* anywhere in the first window, or just past it */
		return v % (low + 2 * FZ_PAGE);
	case 9:
	case 10:	/* on or next to a page boundary */
		page = (v % (low / FZ_PAGE + 2)) * FZ_PAGE;
		page += (int64_t)((o->where >> 4) % 3) - 1;
		return page < 0 ? 0 : page;
	case 11:	/* the last bytes */
		return size - 1 - v % (size < FZ_HIGH ? size : FZ_HIGH);
	case 12:	/* at or just past the end */
		return sat_add(size, v % (2 * FZ_PAGE));
	case 13:	/* far past it */
		return sat_add(size, v << 24);
	case 14:
		return INT64_MAX - v % (2 * FZ_PAGE);
	case 15:
		return v % 17 ? -1 - v % (2 * FZ_PAGE) : INT64_MIN;
	}
}

static size_t rd_len(const struct fz_op *o)
{
	size_t u = o->u;

	switch (o->len % 8) {
	case 0:
		return 0;
	case 1:
	case 2:
		return 1 + u % (2 * FZ_PAGE);
	case 3:
		return (1 + u % 16) * FZ_PAGE;
	case 4:
		return u;
	case 5:
		return (1 + u % 768) * FZ_PAGE;	/* up to 3 MiB */
	case 6:
		return SIZE_MAX - u % FZ_PAGE;
	default:
		return FZ_MIB + u;
	}
}

/* What upc_anon_read()/upc_anon_write() return before memory runs out. */
static int64_t rw_expected(const struct fz_region *r, int64_t pos,
			   size_t count, bool null_buf)
{
	if (pos < 0)
		return -EINVAL;
	if (null_buf && count)
		return -EFAULT;
	if ((uint64_t)pos >= r->size)
		return 0;
	return count < r->size - (uint64_t)pos ? (int64_t)count :
						 (int64_t)(r->size - (uint64_t)pos);
}

/* ---- operations --------------------------------------------------------- */

/*
 * The data of a write: a slice of a random pool that starts at a place
 * chosen by the offset and the fill byte, so that bytes landing at the
 * wrong offset, or an older write's bytes, show.  No per-byte work: a
 * fuzzer's executions per second depend on it.
 */
static const unsigned char *write_data(uint64_t pos, uint8_t fill)
{
	return fz.pool + (pos + fill * 131u) % FZ_POOL_SLACK;
}

static void op_write(struct fz_region *r, const struct fz_op *o)
{
	int64_t pos = rd_offset(r, o), want, got;
	size_t count = rd_len(o);
	bool null_buf = o->fill == 0xff;
	const unsigned char *src;
	unsigned long new_pages;

	want = rw_expected(r, pos, count, null_buf);
	/* Keep the data inside the model (and the buffer). */
	if (want > 0 && !model_holds(r, (uint64_t)pos, (uint64_t)want)) {
		if ((uint64_t)pos >= r->low_len) {
			fz_logf("write(%" PRId64 ", %zu): outside the model",
				pos, count);
			return;
		}
		count = (size_t)(r->low_len - (uint64_t)pos);
		want = (int64_t)count;
	}
	if (want > FZ_BUF) {
		count = FZ_BUF;
		want = FZ_BUF;
	}
	fz_logf("write(%" PRId64 ", %zu%s) fill %u", pos, count,
		null_buf ? ", NULL" : "", o->fill);
	src = null_buf ? NULL : write_data((uint64_t)pos, o->fill);
	new_pages = want > 0 ? model_new_pages(r, (uint64_t)pos, (uint64_t)want) : 0;
	if (want > 0 && !fz.swap_on)
		want = model_no_swap_write(r, (uint64_t)pos, (uint64_t)want);
	got = upc_anon_write(r->anon, src, count, pos);
	if (fz.swap_on && want > 0 && got != want && model_may_run_out(new_pages) &&
	    (got == -ENOMEM || (got > 0 && got < want &&
				(uint64_t)(pos + got) % FZ_PAGE == 0)))
		want = got;
	fz_expect("write", got, want);
	if (got <= 0)
		return;
	model_write(r, (uint64_t)pos, src, (uint64_t)got);
	/* Read back what was written, and a page either side. */
	if (got <= 256 * 1024) {
		int64_t lo = pos >= FZ_PAGE ? pos - FZ_PAGE : 0;
		int64_t hi = sat_add(pos + got, FZ_PAGE);
		size_t n = (size_t)(hi - lo);

		check_read(r, lo, n, rw_expected(r, lo, n, false),
			   read_may_run_out(), "read back");
	} else {
		check_read(r, pos, FZ_PAGE, FZ_PAGE, read_may_run_out(),
			   "read back the start");
		check_read(r, pos + got - FZ_PAGE, FZ_PAGE, FZ_PAGE,
			   read_may_run_out(), "read back the end");
	}
}

static void op_read(struct fz_region *r, const struct fz_op *o)
{
	int64_t pos = rd_offset(r, o), want;
	size_t count = rd_len(o);

	if (o->fill == 0xff) {
		fz_logf("read(%" PRId64 ", %zu, NULL)", pos, count);
		fz_expect("read into NULL",
			  upc_anon_read(r->anon, NULL, count, pos),
			  rw_expected(r, pos, count, true));
		return;
	}
	want = rw_expected(r, pos, count, false);
	if (want > FZ_BUF) {
		count = FZ_BUF;
		want = FZ_BUF;
	}
	fz_logf("read(%" PRId64 ", %zu)", pos, count);
	check_read(r, pos, count, want, read_may_run_out(), "read");
}

static uint64_t rd_region_size(const struct fz_op *o)
{
	uint64_t v = o->v, u = o->u;

	switch (o->where % 14) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return 1 + u;
	case 3:
		return (1 + (v & 0xff)) * FZ_PAGE;
	case 4:
		return FZ_FULL;
	case 5:
		return FZ_FULL + 1;
	case 6:
		return 2 * FZ_MIB + u;
	case 7:
		return 8 * FZ_MIB + u;
	case 8:
		return 16 * FZ_MIB;
	case 9:
		return UPC_MAX_FILE_SIZE;
	case 10:
		return (uint64_t)UPC_MAX_FILE_SIZE + 1;
	case 11:
		return UINT64_MAX - u;
	case 12:
		return (1ULL << 40) + u;
	default:
		return v;
	}
}

static void op_create(struct fz_region *r, const struct fz_op *o)
{
	uint64_t size = rd_region_size(o);
	struct upc_anon *anon = NULL;
	int want = size && size <= (uint64_t)UPC_MAX_FILE_SIZE ? 0 : -EINVAL;
	int choice = o->len % 16, got;

	if (choice == 1) {
		fz_logf("anon_create(NULL cache, %" PRIu64 ")", size);
		fz_expect("create with no cache",
			  upc_anon_create(NULL, size, &anon), -EBADF);
		return;
	}
	if (choice == 2) {
		fz_logf("anon_create(%" PRIu64 ", NULL out)", size);
		fz_expect("create with no out",
			  upc_anon_create(fz.cache, size, NULL), -EINVAL);
		return;
	}
	fz_logf("anon_create(%" PRIu64 ") into slot %ld", size,
		(long)(r - fz.regions));
	got = upc_anon_create(fz.cache, size, &anon);
	fz_expect("anon_create", got, want);
	if (got)
		return;
	/* The slot's old region is destroyed first, to keep its handle. */
	if (r->anon) {
		fz_expect("anon_destroy (replaced)", upc_anon_destroy(r->anon), 0);
		region_forget(r);
	}
	region_model_init(r, anon, size);
}

static void op_destroy(struct fz_region *r)
{
	fz_logf("anon_destroy(slot %ld)", (long)(r - fz.regions));
	if (!r->anon) {
		fz_expect("destroy NULL", upc_anon_destroy(NULL), -EBADF);
		return;
	}
	fz_expect("anon_destroy", upc_anon_destroy(r->anon), 0);
	region_forget(r);
}

static unsigned int nr_live_regions(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < FZ_SLOTS; i++)
		n += fz.regions[i].anon != NULL;
	return n;
}

static uint64_t rd_swap_size(const struct fz_op *o)
{
	switch (o->slot % 10) {
	case 0:
		return 0;
	case 1:
		return 2 * FZ_MIB;
	case 2:
		return 4 * FZ_MIB;
	case 3:
		return 2 * FZ_MIB + FZ_PAGE;	/* not a multiple of 2 MiB */
	case 4:
		return 8 * FZ_MIB;
	case 5:
		return FZ_MIB;
	case 6:	/* one cluster past the largest device */
		return (UPC_PAGE_SIZE << SWP_OFFSET_BITS) + 2 * FZ_MIB;
	case 7:
		return UINT64_MAX - 2 * FZ_MIB + 1;
	case 8:
		return 16 * FZ_MIB;
	default:
		return 6 * FZ_MIB;
	}
}

static void op_swapon(const struct fz_op *o)
{
	static const unsigned int shifts[] = {
		0, 6, 9, 14, 30, 1, 5, 31, 32, 64, UINT32_MAX,
	};
	struct upc_swap_config cfg = {
		.size = rd_swap_size(o),
		.space_shift = shifts[o->where % (sizeof(shifts) / sizeof(shifts[0]))],
		.flags = o->fill % 8 == 7 ? 1u << (o->fill >> 3) % 32 : 0,
	};
	unsigned int path = o->len % 8;
	int want, got;
	bool valid;

	if (path == 1 && fz.swap_path[0])
		cfg.path = fz.swap_path;
	else if (path == 2)
		cfg.path = "/nonexistent-upcache-dir/swap";
	valid = cfg.size && cfg.size % (2 * FZ_MIB) == 0 &&
		cfg.size <= (UPC_PAGE_SIZE << SWP_OFFSET_BITS) && !cfg.flags &&
		(!cfg.space_shift || (cfg.space_shift >= SWAP_SPACE_SHIFT_MIN &&
				      cfg.space_shift <= SWAP_SPACE_SHIFT_MAX));
	if (!valid)
		want = -EINVAL;
	else if (fz.swap_on)
		want = -EBUSY;
	else if (path == 2)
		want = -ENOENT;
	else
		want = 0;
	fz_logf("swapon(size %" PRIu64 ", shift %u, flags %#x, %s)", cfg.size,
		cfg.space_shift, cfg.flags, cfg.path ? cfg.path : "memory");
	if (o->fill % 16 == 5) {
		fz_expect("swapon with no cache", upc_swapon(NULL, &cfg), -EBADF);
		fz_expect("swapon with no config", upc_swapon(fz.cache, NULL),
			  -EINVAL);
		return;
	}
	got = upc_swapon(fz.cache, &cfg);
	fz_expect("swapon", got, want);
	if (!got) {
		fz.swap_on = true;
		fz.swap_size = cfg.size;
	}
}

static void op_swapoff(void)
{
	int want = !fz.swap_on ? -EINVAL : nr_live_regions() ? -EBUSY : 0;

	fz_logf("swapoff");
	fz_expect("swapoff", upc_swapoff(fz.cache), want);
	if (!want)
		fz.swap_on = false;
}

/* A full check, or one of the calls that must be refused. */
static void op_misc(struct fz_region *r, const struct fz_op *o)
{
	char byte = 0;

	switch (o->fill % 6) {
	case 0:
	case 1:
		fz_logf("check");
		check_all();
		break;
	case 2:
		fz_logf("read/write with no region");
		fz_expect("read NULL region", upc_anon_read(NULL, &byte, 1, 0),
			  -EBADF);
		fz_expect("write NULL region", upc_anon_write(NULL, &byte, 1, 0),
			  -EBADF);
		break;
	case 3:
		fz_logf("swapoff(NULL), stats(NULL)");
		fz_expect("swapoff NULL", upc_swapoff(NULL), -EBADF);
		fz_expect("stats into NULL", upc_cache_stats(fz.cache, NULL),
			  -EINVAL);
		break;
	case 4:
		/* Destroying the cache must wait for its regions. */
		fz_logf("cache_destroy while busy?");
		if (nr_live_regions())
			fz_expect("cache_destroy with regions",
				  upc_cache_destroy(fz.cache), -EBUSY);
		break;
	default:
		if (r->anon) {
			fz_logf("check slot %ld", (long)(r - fz.regions));
			check_region(r);
		}
	}
}

static void fz_step(struct input *in)
{
	struct fz_op o;
	struct fz_region *r;

	rd_op(in, &o);
	r = &fz.regions[o.slot % FZ_SLOTS];
	switch (o.op % 10) {
	case 0:
	case 1:
	case 2:
		if (r->anon)
			op_write(r, &o);
		break;
	case 3:
	case 4:
		if (r->anon)
			op_read(r, &o);
		break;
	case 5:
		op_create(r, &o);
		break;
	case 6:
		op_destroy(r);
		break;
	case 7:
		op_swapon(&o);
		break;
	case 8:
		op_swapoff();
		break;
	default:
		op_misc(r, &o);
	}
}

/* ---- the entry points --------------------------------------------------- */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char tmpl[] = "/tmp/upcache-fuzz-anon-XXXXXX";
	uint64_t x = 0x2545f4914f6cdd1dull;
	size_t i;
	int fd;

	(void)argc;
	(void)argv;
	fz.trace = getenv("FUZZ_ANON_TRACE") && *getenv("FUZZ_ANON_TRACE") == '1';
	fz.pool = malloc(FZ_BUF + FZ_POOL_SLACK);
	fz.rbuf = malloc(FZ_BUF + FZ_CANARY);
	if (!fz.pool || !fz.rbuf)
		abort();
	for (i = 0; i < FZ_BUF + FZ_POOL_SLACK; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		fz.pool[i] = (unsigned char)(x >> 24);
	}
	/*
	 * A swap file that goes away with the process: unlinked at once,
	 * and reopened by upc_swapon() through /proc.
	 */
	fd = mkstemp(tmpl);
	if (fd >= 0) {
		unlink(tmpl);
		snprintf(fz.swap_path, sizeof(fz.swap_path), "/proc/self/fd/%d", fd);
		if (access(fz.swap_path, R_OK | W_OK))
			fz.swap_path[0] = 0;
	}
	return 0;
}

/* The lowest free file descriptor: higher after a descriptor leaks. */
static int lowest_free_fd(void)
{
	int fd = dup(2);

	if (fd >= 0)
		close(fd);
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned int shifts[] = { 0, 6, 9, 30 };
	struct input in = { data, size };
	uint8_t config = u8(&in);
	struct upc_cache_config cfg = {
		.memory_limit = config & 1 ? 4 * FZ_MIB : 2 * FZ_MIB,
	};
	struct upc_cache_stats st = { 0 };
	unsigned int i;

	int free_fd;

	if (!fz.pool)
		LLVMFuzzerInitialize(NULL, NULL);
	free_fd = lowest_free_fd();
	fz.limit = cfg.memory_limit;
	fz.swap_on = false;
	fz.touched = 0;
	fz.nr_log = 0;
	fz_logf("cache(limit %" PRIu64 ")", fz.limit);
	if (upc_cache_create(&cfg, &fz.cache))
		abort();
	if (config & 2) {
		struct upc_swap_config swap = {
			.path = config & 4 && fz.swap_path[0] ? fz.swap_path : NULL,
			.size = 4 * FZ_MIB,
			.space_shift = shifts[(config >> 3) & 3],
		};

		fz_logf("swapon(4 MiB, shift %u, %s)", swap.space_shift,
			swap.path ? "file" : "memory");
		fz_expect("initial swapon", upc_swapon(fz.cache, &swap), 0);
		fz.swap_on = true;
		fz.swap_size = swap.size;
	}
	if (config & 32) {
		struct upc_anon *anon;

		fz_logf("anon_create(8 MiB) into slot 0");
		fz_expect("initial region",
			  upc_anon_create(fz.cache, 8 * FZ_MIB, &anon), 0);
		region_model_init(&fz.regions[0], anon, 8 * FZ_MIB);
	}

	for (i = 0; i < FZ_MAX_OPS && in.n; i++)
		fz_step(&in);

	fz_logf("final check");
	check_all();
	for (i = 0; i < FZ_SLOTS; i++) {
		if (!fz.regions[i].anon)
			continue;
		fz_expect("final anon_destroy", upc_anon_destroy(fz.regions[i].anon), 0);
		region_forget(&fz.regions[i]);
	}
	fz_expect("pages left in the model", (int64_t)fz.touched, 0);
	fz_expect("stats", upc_cache_stats(fz.cache, &st), 0);
	fz_expect("memory_used at the end", (int64_t)st.memory_used, 0);
	fz_expect("swap_used at the end", (int64_t)st.swap_used, 0);
	if (fz.swap_on)
		fz_expect("final swapoff", upc_swapoff(fz.cache), 0);
	fz_expect("cache_destroy", upc_cache_destroy(fz.cache), 0);
	fz_expect("lowest free descriptor", lowest_free_fd(), free_fd);
	return 0;
}
