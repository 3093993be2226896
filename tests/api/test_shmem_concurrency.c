// SPDX-License-Identifier: MIT
/*
 * tests/api/test_shmem_concurrency.c - readers and writers on one shmem
 * file (also built and run under ThreadSanitizer).
 *
 * Writers write aligned runs of whole 4 KiB pages, each page holding one
 * repeated byte value after a short stamp that names the page and the
 * value (cc_fill_page()); a mutator punches whole pages, fallocates and
 * truncates to page multiples; readers read (and readv) aligned and
 * unaligned ranges, take zero-copy spans, seek and take statistics.
 * Since every change is made of whole pages (zeros for a punch), a
 * reader that saw any page of the file neither all zeros nor one stamped
 * value saw a write half done, or a page that came back from swap to
 * the wrong place: the per-file lock must make every write atomic for
 * readers.  Readers also check that a multi-page write of one value is
 * seen whole when they read exactly its range and no other write can
 * overlap it, and once the threads are done that range holds the last
 * value written to it.  Spans are checked for their shape only (they
 * tile the range in order, data with a folio), since a writer may change
 * their bytes under the reader.
 *
 * The swap variant runs the same threads in a 2 MiB cache with swap in
 * memory over a file four times that size, written whole first: reclaim
 * swaps pages out under the writers' allocations, and reads, spans,
 * writes, fallocate and punch swap them back in.  The mutator
 * fallocates only in a window of a quarter of the cache, since pages
 * fallocated and never written stay in memory: with that and enough
 * swap no call may fail.  After the threads, every page of the file
 * must still be zeros or one stamped value, the swap device passes
 * upc_check_swap(), and closing the file frees every slot.
 *
 * The large swap variant runs them with huge=always in an 8 MiB cache
 * over a 16 MiB file, prefilled one aligned 2 MiB write at a time, so
 * that order-9 folios go to swap whole and come back whole (or, when no
 * order-9 folio can be had, the swap entry is split and the page read
 * comes back alone); writer 0's run is an order-3 folio.  The mutator
 * also punches an aligned 2 MiB range and writes it whole again, so that
 * order-9 folios keep coming; its 1 to 8 page punches and truncations
 * split the large swap entries they end in.  The first 2 MiB of the file
 * are left to the mutator's refills and to the readers' probes, and the
 * mutator now and then punches a few pages inside the order-9 entry it
 * finds there (cc_low_page()).  Readers sample the swap entries of a
 * 2 MiB range and note their orders, and now and then probe: read a
 * page inside a large entry and look at the folio that came back.  The
 * test requires order-9 entries, entries of orders 1 to 8 in the first
 * 2 MiB (which only a split of an order-9 entry makes there), and a
 * large folio seen back whole, so that it cannot pass without
 * exercising large swap.  The cache holds what may be pinned at once
 * (each reader's spans over up to two order-9 folios, a writer's run of
 * 2 MiB, the fallocated window); swap is eight times the file, since a
 * large folio goes whole only to a wholly free cluster of slots (mm/
 * swapfile.c), and the small entries that punches and splits leave
 * spread over the clusters: with less, more order-9 folios are split
 * instead (the split variant below forces that for all of them).  Each
 * operation may move 2 MiB, so the variant runs a
 * quarter of the operations.  After the threads no two swap entries of
 * the file may name the same slot (api_assert_swap_unshared()), in
 * both swap variants.
 *
 * A second test pins pages with upc_get_spans() while the mutator
 * punches and truncates them: the pinned bytes must stay readable and
 * unchanged (nobody writes in that test), and everything is freed once
 * the spans are put.  Its swap variant refills a file three times the
 * cache each round, so that spans swap pages in while the refill
 * swaps others out.
 *
 * UPC_STRESS_OPS scales the operations per thread (default 60000,
 * 8000 under ThreadSanitizer; a quarter of that in the large swap
 * variant).
 */
#define _GNU_SOURCE
#include <linux/falloc.h>
#include <pthread.h>
#include <sched.h>
#include <sys/uio.h>
#include <unistd.h>

#include <upcache/rcu.h>
#include <upcache/vmscan.h>

#include "api_helpers.h"
#include "rand.h"

#define CC_PAGES	256		/* the file's first MiB */
#define CC_WRITERS	2
#define CC_READERS	2
#define CC_MAX_RUN	16		/* pages per write */
#define CC_ATOMIC_RUN	8		/* writer 0's run, after the others' */
#define CC_MAX_SPANS	8
#define CC_STAMP	8		/* bytes at a page's start naming it */

/* The swap variants: a cache of the smallest size, files several times it. */
#define CC_SWAP_LIMIT	(2 * API_MIB)
#define CC_SWAP_PAGES	(4 * CC_SWAP_LIMIT / API_PAGE)
#define CC_SWAP_FALLOC	(CC_SWAP_LIMIT / API_PAGE / 4)
#define CC_SWAP_SIZE	(2 * CC_SWAP_PAGES * API_PAGE)	/* never full */

/* The large swap variant (see the top of the file for the sizes). */
#define CC_LARGE_LIMIT	(8 * API_MIB)
#define CC_LARGE_PAGES	(2 * CC_LARGE_LIMIT / API_PAGE)
#define CC_LARGE_FALLOC	(CC_LARGE_LIMIT / API_PAGE / 16)
#define CC_LARGE_SIZE	(8 * CC_LARGE_PAGES * API_PAGE)
#define CC_LARGE_OPS_DIV 4
/* Fewer operations than this need not show every kind of large swap. */
#define CC_LARGE_MIN_OPS 500
#define CC_HUGE_PAGES	(API_HUGE / API_PAGE)
/* In the huge range, only a split of its order-9 entry makes these. */
#define CC_SPLIT_ORDERS	(((1UL << UPC_MAX_ORDER) - 1) & ~1UL)

#ifdef UPC_SANITIZE_THREAD
#define CC_DEFAULT_OPS	8000
#else
#define CC_DEFAULT_OPS	60000
#endif

/*
 * struct cc_config - one variant.
 * @pages: The pages writers write; writer 0's run follows them.
 * @falloc_pages: The mutator fallocates only in this many pages, from
 *	cc_low_page() on.
 * @swap: Bytes of swap in memory, 0 for none.
 * @large: Large folios go to swap: prefill and refill aligned 2 MiB
 *	ranges, and sample the swap entries' orders (@pages a multiple
 *	of CC_HUGE_PAGES).
 * @ops_div: Run UPC_STRESS_OPS / @ops_div operations per writer (0: 1).
 * @space_shift: The swap cache trees' space_shift (0: the default).
 *	Below 9, order-9 folios are split to go to swap.
 * @swap_file: The swap is a temporary file, not memory: reads in order
 *	then swap in with readahead (swapin_readahead()).
 */
struct cc_config {
	enum upc_huge huge;
	size_t limit;
	int64_t pages;
	int64_t falloc_pages;
	uint64_t swap;
	bool large;
	unsigned int ops_div;
	unsigned int space_shift;
	bool swap_file;
};

struct cc_shared {
	struct upc_file *file;
	struct upc_cache *cache;
	const struct cc_config *cfg;
	unsigned long ops;
	uint64_t seed;
	int writers_done;		/* atomic */
	unsigned long torn;		/* atomic: pages seen mixed */
	unsigned long bad_atomic;	/* atomic: a run seen half written */
	unsigned long bad_spans;	/* atomic: spans of the wrong shape */
	unsigned long errors;		/* atomic: calls that failed */
	/* With cfg->large, all atomic: */
	unsigned long orders_seen;	/* bit k: an order-k swap entry */
	unsigned long huge_orders;	/* the same, in the huge range */
	unsigned long refills;		/* 2 MiB punched and rewritten */
	unsigned long huge_splits;	/* punches into its order-9 entry */
	unsigned long probes;		/* reads inside a large swap entry */
	unsigned long whole;		/* ... that found it back whole */
	unsigned long whole_huge;	/* ... of order 9 */
	unsigned long cut;		/* ... that found a smaller folio */
};

struct cc_thread {
	pthread_t tid;
	struct cc_shared *sh;
	unsigned int id;
};

static void cc_count(unsigned long *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

/* A call failed: count it, and say which for the first few. */
static void cc_error(struct cc_shared *sh, const char *what, int64_t ret)
{
	if (__atomic_fetch_add(&sh->errors, 1, __ATOMIC_RELAXED) < 8)
		fprintf(stderr, "# %s returned %" PRId64 "\n", what, ret);
}

/*
 * Byte @o (below CC_STAMP) of page @page holding value @v: the page's
 * number and the value, so that a page found at another index, or one
 * whose stamp and body come from different writes, does not decode.
 */
static unsigned char cc_stamp(int64_t page, size_t o, unsigned char v)
{
	unsigned char b = (unsigned char)((uint64_t)page >> (8 * (o & 3)));

	return b ^ (o < 4 ? 0x5a : 0xa5) ^ v;
}

/* Fill @buf as page @page holding value @v. */
static void cc_fill_page(unsigned char *buf, int64_t page, unsigned char v)
{
	memset(buf, v, API_PAGE);
	for (size_t o = 0; o < CC_STAMP; o++)
		buf[o] = cc_stamp(page, o, v);
}

/*
 * Is @p, bytes [@from, @to) of page @page, all zeros or part of one
 * stamped value?  The value goes to *@value (0 for zeros).
 */
static bool cc_page_ok(const unsigned char *p, int64_t page, size_t from,
		       size_t to, unsigned char *value)
{
	unsigned char v = from < CC_STAMP ? p[0] ^ cc_stamp(page, from, 0) : p[0];
	size_t o;

	for (o = from; o < to; o++)
		if (p[o - from] != (o < CC_STAMP ? cc_stamp(page, o, v) : v))
			break;
	if (o == to && v) {
		*value = v;
		return true;
	}
	/* Not one value: a hole, or a page seen half written. */
	*value = 0;
	for (o = from; o < to; o++)
		if (p[o - from])
			return false;
	return true;
}

/*
 * Say what page @page holds instead ([@from, @to) of it at @p): where
 * the body changes, and which page and value the stamp names.
 */
static void cc_describe(const unsigned char *p, int64_t page, size_t from,
			size_t to)
{
	size_t o, body = from > CC_STAMP ? from : CC_STAMP;
	unsigned char v = body < to ? p[body - from] : 0;
	uint32_t named = 0;

	for (o = body; o < to && p[o - from] == v; o++)
		;
	if (from == 0 && to >= CC_STAMP)
		for (unsigned int b = 0; b < 4; b++)
			named |= (uint32_t)(p[b] ^ 0x5a ^ v) << (8 * b);
	fprintf(stderr, "# page %" PRId64 " [%zu, %zu): body %#x up to %zu "
		"(then %#x), stamp names page %u\n", page, from, to, v, o,
		o < to ? p[o - from] : 0, named);
}

/* Is every page of @buf, read at @pos, zeros or one stamped value? */
static bool cc_pages_ok(const unsigned char *buf, size_t len, int64_t pos)
{
	size_t i = 0;

	while (i < len) {
		int64_t at = pos + (int64_t)i;
		size_t from = (size_t)(at % API_PAGE);
		size_t end = i + API_PAGE - from;
		unsigned char v;

		if (end > len)
			end = len;
		if (!cc_page_ok(buf + i, at / API_PAGE, from, from + end - i,
				&v)) {
			cc_describe(buf + i, at / API_PAGE, from, from + end - i);
			return false;
		}
		i = end;
	}
	return true;
}

/* Writer 0's run starts right after the pages the others write. */
static int64_t cc_atomic_page(const struct cc_shared *sh)
{
	return sh->cfg->pages;
}

/*
 * With cfg->large, the file's first 2 MiB are the huge range: only the
 * mutator writes there, refilling it whole, or now and then punches a
 * few pages inside its order-9 swap entry (cc_split_huge()), and only
 * the readers' probes read it, so that the order-9 entry reclaim leaves
 * there lasts until a probe swaps it in, and a smaller large entry
 * there can only come from a split.  Everything else happens from the
 * page this returns on.
 */
static int64_t cc_low_page(const struct cc_shared *sh)
{
	return sh->cfg->large ? CC_HUGE_PAGES : 0;
}

/* The value writer @id writes in its @i-th operation (never 0). */
static unsigned char cc_value(unsigned int id, unsigned long i)
{
	return (unsigned char)((id << 6) | (i % 63) | 1);
}

static void *cc_writer(void *arg)
{
	struct cc_thread *t = arg;
	struct cc_shared *sh = t->sh;
	unsigned char *buf = malloc(CC_MAX_RUN * API_PAGE);
	struct upc_rand rnd;
	unsigned long i;

	upc_rand_seed(&rnd, sh->seed + t->id);
	for (i = 0; buf && i < sh->ops; i++) {
		unsigned char value = cc_value(t->id, i);
		int64_t pages = 1 + (int64_t)upc_rand_below(&rnd, CC_MAX_RUN);
		int64_t first = cc_low_page(sh) +
				(int64_t)upc_rand_below(&rnd, (uint64_t)
							(sh->cfg->pages -
							 cc_low_page(sh) -
							 pages + 1));
		ssize_t want, ret;

		/* Writer 0 also owns a run of its own, written whole. */
		if (t->id == 0 && i % 4 == 0) {
			first = cc_atomic_page(sh);
			pages = CC_ATOMIC_RUN;
		}
		want = pages * API_PAGE;
		for (int64_t p = 0; p < pages; p++)
			cc_fill_page(buf + p * API_PAGE, first + p, value);
		ret = upc_write(sh->file, buf, (size_t)want, first * API_PAGE);
		if (ret != want)
			cc_error(sh, "write", ret);
	}
	free(buf);
	__atomic_fetch_add(&sh->writers_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static bool cc_writers_running(struct cc_shared *sh)
{
	return __atomic_load_n(&sh->writers_done, __ATOMIC_ACQUIRE) < CC_WRITERS;
}

/* A random aligned 2 MiB range of the pages below writer 0's run. */
static pgoff_t cc_random_huge(const struct cc_shared *sh, struct upc_rand *rnd)
{
	return (pgoff_t)upc_rand_below(rnd, (uint64_t)sh->cfg->pages /
				       CC_HUGE_PAGES) * CC_HUGE_PAGES;
}

/*
 * Punch the 2 MiB from page @first and write them whole again (one
 * order-9 folio if no writer got in between and a 2 MiB block can be
 * had), one value, as the writers' pages, in @buf.
 */
static void cc_refill_huge(struct cc_shared *sh, int64_t first,
			   unsigned char *buf, unsigned long i)
{
	unsigned char value = cc_value(2, i);
	ssize_t ret;
	int err;

	err = upc_fallocate(sh->file,
			    FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			    first * API_PAGE, API_HUGE);
	if (err)
		cc_error(sh, "punch 2 MiB", err);
	for (int64_t p = 0; p < CC_HUGE_PAGES; p++)
		cc_fill_page(buf + p * API_PAGE, first + p, value);
	ret = upc_write(sh->file, buf, API_HUGE, first * API_PAGE);
	if (ret != API_HUGE)
		cc_error(sh, "write 2 MiB", ret);
	cc_count(&sh->refills);
}

static bool cc_sample_swap(struct cc_shared *sh, pgoff_t first,
			   pgoff_t *index, unsigned int *order);

/*
 * If the huge range is one order-9 swap entry, punch 1 to 8 pages inside
 * it, which splits it, and sample what is left.  Return: whether it did.
 */
static bool cc_split_huge(struct cc_shared *sh, struct upc_rand *rnd)
{
	int64_t first = 1 + (int64_t)upc_rand_below(rnd, CC_HUGE_PAGES - 9);
	int64_t n = 1 + (int64_t)upc_rand_below(rnd, 8);
	unsigned int order = 0;
	pgoff_t index = 0;
	int err;

	if (!cc_sample_swap(sh, 0, &index, &order) || order != UPC_MAX_ORDER)
		return false;
	err = upc_fallocate(sh->file,
			    FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			    first * API_PAGE, n * API_PAGE);
	if (err)
		cc_error(sh, "punch", err);
	cc_count(&sh->huge_splits);
	cc_sample_swap(sh, 0, &index, &order);
	return true;
}

/*
 * Punch, fallocate and truncate whole pages until the writers are done;
 * with cfg->large, also refill the huge range and other 2 MiB ranges,
 * and punch into the huge range's order-9 entry.
 */
static void *cc_mutator(void *arg)
{
	struct cc_thread *t = arg;
	struct cc_shared *sh = t->sh;
	int64_t pages = sh->cfg->pages, low = cc_low_page(sh);
	unsigned char *huge = NULL;
	struct upc_rand rnd;
	unsigned long i = 0;

	if (sh->cfg->large)
		huge = malloc(API_HUGE);
	upc_rand_seed(&rnd, sh->seed + 100);
	while (cc_writers_running(sh)) {
		int64_t first = low + (int64_t)upc_rand_below(&rnd, (uint64_t)
							      (pages - low));
		int64_t n = 1 + (int64_t)upc_rand_below(&rnd, 8);
		const char *what = NULL;
		int err = 0;

		/* Never into writer 0's run: it must stay whole. */
		if (n > pages - first)
			n = pages - first;
		switch (upc_rand_below(&rnd, 4)) {
		case 0:
			what = "punch";
			err = upc_fallocate(sh->file, FALLOC_FL_PUNCH_HOLE |
					    FALLOC_FL_KEEP_SIZE,
					    first * API_PAGE, n * API_PAGE);
			break;
		case 1:
			/* Unwritten folios stay in memory: keep them few. */
			first = low + (first - low) % sh->cfg->falloc_pages;
			if (n > low + sh->cfg->falloc_pages - first)
				n = low + sh->cfg->falloc_pages - first;
			what = "fallocate";
			err = upc_fallocate(sh->file, FALLOC_FL_KEEP_SIZE,
					    first * API_PAGE, n * API_PAGE);
			break;
		case 2:
			/* Below writer 0's run: it goes, or stays whole. */
			what = "truncate";
			err = upc_truncate(sh->file, (pages / 2 + first / 2) *
					   API_PAGE);
			break;
		default:
			if (huge && ++i % 4 == 0) {
				if (i % 8 == 0 && upc_rand_chance(&rnd, 1, 4) &&
				    cc_split_huge(sh, &rnd))
					break;
				cc_refill_huge(sh, i % 8 ? (int64_t)
					       cc_random_huge(sh, &rnd) : 0,
					       huge, i);
				break;
			}
			sched_yield();
		}
		if (err)
			cc_error(sh, what, err);
	}
	free(huge);
	return NULL;
}

/*
 * Read writer 0's run exactly: every page of it holds one value, the
 * same.  The run is never punched, and the size reaches its end only
 * once it was written after the last truncation, so no zeros either.
 */
static void cc_check_atomic_run(struct cc_shared *sh, unsigned char *buf)
{
	int64_t first = cc_atomic_page(sh);
	size_t len = CC_ATOMIC_RUN * API_PAGE;
	ssize_t got = upc_read(sh->file, buf, len, first * API_PAGE);
	unsigned char v0 = 0, v;

	if (got < 0) {
		cc_error(sh, "read", got);
		return;
	}
	if (got != (ssize_t)len)
		return;
	for (int64_t p = 0; p < CC_ATOMIC_RUN; p++) {
		if (!cc_page_ok(buf + p * API_PAGE, first + p, 0, API_PAGE,
				&v) || !v || (p && v != v0)) {
			cc_count(&sh->bad_atomic);
			return;
		}
		v0 = v;
	}
}

static void cc_read_once(struct cc_shared *sh, struct upc_rand *rnd,
			 unsigned char *buf)
{
	int64_t low = cc_low_page(sh) * API_PAGE;
	int64_t pos = low + (int64_t)upc_rand_below(rnd, (uint64_t)
						    ((cc_atomic_page(sh) +
						      CC_ATOMIC_RUN) *
						     API_PAGE - low));
	size_t len = 1 + (size_t)upc_rand_below(rnd, 4 * CC_MAX_RUN * API_PAGE);
	struct iovec iov[3];
	ssize_t got;

	if (upc_rand_chance(rnd, 1, 2))
		pos &= ~(int64_t)(API_PAGE - 1);
	if (upc_rand_chance(rnd, 1, 4)) {
		size_t a = len / 3, b = len / 2;

		iov[0] = (struct iovec){ buf, a };
		iov[1] = (struct iovec){ buf + a, b - a };
		iov[2] = (struct iovec){ buf + b, len - b };
		got = upc_readv(sh->file, iov, 3, pos);
	} else {
		got = upc_read(sh->file, buf, len, pos);
	}
	if (got < 0)
		cc_error(sh, "read", got);
	else if (!cc_pages_ok(buf, (size_t)got, pos))
		cc_count(&sh->torn);
}

/*
 * Take spans over a random range and check their shape: they follow
 * each other from @pos on, each with bytes, and data exactly when it
 * holds a folio.  Their bytes are not looked at: writers may be changing
 * them (a span keeps the memory, not the contents).
 */
static void cc_spans_once(struct cc_shared *sh, struct upc_rand *rnd)
{
	struct upc_span spans[CC_MAX_SPANS];
	int64_t low = cc_low_page(sh) * API_PAGE;
	int64_t pos = low + (int64_t)upc_rand_below(rnd, (uint64_t)
						    (cc_atomic_page(sh) *
						     API_PAGE - low));
	size_t len = 1 + (size_t)upc_rand_below(rnd, 2 * CC_MAX_RUN * API_PAGE);
	int nr = upc_get_spans(sh->file, pos, len, spans, CC_MAX_SPANS);
	int64_t at = pos;

	if (nr < 0) {
		cc_error(sh, "get_spans", nr);
		return;
	}
	for (int s = 0; s < nr; s++) {
		if (spans[s].offset != at || !spans[s].len ||
		    !spans[s].data != !spans[s].folio ||
		    spans[s].offset + (int64_t)spans[s].len > pos + (int64_t)len)
			cc_count(&sh->bad_spans);
		at = spans[s].offset + (int64_t)spans[s].len;
	}
	upc_put_spans(spans, (unsigned int)nr);
}

/*
 * The swap entries of the aligned 2 MiB range from page @first, under
 * RCU: note their orders in sh->orders_seen, and return the first one
 * of order > 0 (its first page in *@index, its order in *@order), or
 * false if there is none.
 */
static bool cc_sample_swap(struct cc_shared *sh, pgoff_t first,
			   pgoff_t *index, unsigned int *order)
{
	unsigned long seen = api_swap_orders(upc_file_mapping(sh->file), first,
					     first + CC_HUGE_PAGES - 1, index,
					     order);

	if (seen & ~__atomic_load_n(&sh->orders_seen, __ATOMIC_RELAXED))
		__atomic_fetch_or(&sh->orders_seen, seen, __ATOMIC_RELAXED);
	if (!first && seen & ~__atomic_load_n(&sh->huge_orders,
					      __ATOMIC_RELAXED))
		__atomic_fetch_or(&sh->huge_orders, seen, __ATOMIC_RELAXED);
	return *order != 0;
}

/*
 * Read one page inside a large swap entry of the huge range, or else of
 * a random 2 MiB range, which swaps the entry in, and see what came
 * back: a folio of the entry's order (swapped in whole), or a smaller
 * one (the entry was split: no folio of its order to be had, or a punch
 * cut it meanwhile).  Reclaim may have taken it out again already: then
 * nothing is counted.
 */
static void cc_probe_large(struct cc_shared *sh, struct upc_rand *rnd,
			   unsigned char *buf)
{
	unsigned int order = 0;
	pgoff_t index = 0;
	int64_t pos;
	ssize_t got;
	int now;

	if (!cc_sample_swap(sh, 0, &index, &order) &&
	    !cc_sample_swap(sh, cc_random_huge(sh, rnd), &index, &order))
		return;
	pos = (int64_t)(index + upc_rand_below(rnd, 1UL << order)) * API_PAGE;
	got = upc_read(sh->file, buf, API_PAGE, pos);
	if (got < 0) {
		cc_error(sh, "read", got);
		return;
	}
	if (!cc_pages_ok(buf, (size_t)got, pos))
		cc_count(&sh->torn);
	now = api_folio_order(sh->file, pos, NULL);
	cc_count(&sh->probes);
	if (now == (int)order)
		cc_count(&sh->whole);
	else if (now >= 0)
		cc_count(&sh->cut);
	if (now == UPC_MAX_ORDER && order == UPC_MAX_ORDER)
		cc_count(&sh->whole_huge);
}

static void *cc_reader(void *arg)
{
	struct cc_thread *t = arg;
	struct cc_shared *sh = t->sh;
	unsigned char *buf = malloc(4 * CC_MAX_RUN * API_PAGE);
	struct upc_cache_stats st;
	struct upc_rand rnd;
	unsigned long i = 0;

	upc_rand_seed(&rnd, sh->seed + 50 + t->id);
	while (buf && (cc_writers_running(sh) || i < sh->ops / 4)) {
		pgoff_t index;
		unsigned int order;

		/* Large swap entries come and go quickly: look often. */
		if (sh->cfg->large && i % 4 != 3)
			cc_sample_swap(sh, cc_random_huge(sh, &rnd), &index,
				       &order);
		switch (i++ % 8) {
		case 0:
			cc_check_atomic_run(sh, buf);
			break;
		case 1:
			if (upc_seek_data(sh->file, 0) < -ENXIO ||
			    upc_seek_hole(sh->file, 0) < -ENXIO ||
			    upc_size(sh->file) < 0 ||
			    upc_cache_stats(sh->cache, &st))
				cc_error(sh, "seek, size or stats", -1);
			break;
		case 2:
			cc_spans_once(sh, &rnd);
			break;
		case 3:
		case 7:
			if (sh->cfg->large) {
				cc_probe_large(sh, &rnd, buf);
				break;
			}
			/* fall through */
		default:
			cc_read_once(sh, &rnd, buf);
		}
	}
	free(buf);
	return NULL;
}

/*
 * Write the whole file first, so that the swap variants start swapping;
 * with cfg->large in aligned 2 MiB writes, which make order-9 folios.
 */
static void cc_prefill(struct cc_shared *sh)
{
	int64_t end = cc_atomic_page(sh) + CC_ATOMIC_RUN;
	int64_t run = sh->cfg->large ? CC_HUGE_PAGES : CC_MAX_RUN;
	unsigned char *buf = malloc((size_t)(run * API_PAGE));

	assert_non_null(buf);
	for (int64_t first = 0; first < end; first += run) {
		int64_t n = end - first < run ? end - first : run;

		/* One value per write, as the writers: the run is one. */
		for (int64_t p = 0; p < n; p++)
			cc_fill_page(buf + p * API_PAGE, first + p, 0xff);
		assert_int_equal(upc_write(sh->file, buf, (size_t)(n * API_PAGE),
					   first * API_PAGE), n * API_PAGE);
	}
	free(buf);
}

/*
 * Once the threads are done: every page reads as zeros or one stamped
 * value, and writer 0's run, if the size still covers it, holds the
 * last value writer 0 wrote there (no write was lost on its way through
 * swap).
 */
static void cc_check_final(struct cc_shared *sh)
{
	int64_t size = upc_size(sh->file), first = cc_atomic_page(sh);
	size_t chunk = 4 * CC_MAX_RUN * API_PAGE;
	unsigned char *buf = malloc(chunk), v;

	assert_non_null(buf);
	for (int64_t pos = 0; pos < size; pos += (int64_t)chunk) {
		ssize_t got = upc_read(sh->file, buf, chunk, pos);

		assert_true(got > 0);
		if (!cc_pages_ok(buf, (size_t)got, pos))
			fail_msg("a page in [%" PRId64 ", %" PRId64 ") is "
				 "neither zeros nor one stamped value", pos,
				 pos + got);
	}
	if (size >= (first + CC_ATOMIC_RUN) * API_PAGE && sh->ops) {
		unsigned char last = cc_value(0, (sh->ops - 1) / 4 * 4);

		for (int64_t p = 0; p < CC_ATOMIC_RUN; p++) {
			assert_int_equal(upc_read(sh->file, buf, API_PAGE,
						  (first + p) * API_PAGE),
					 API_PAGE);
			assert_true(cc_page_ok(buf, first + p, 0, API_PAGE,
					       &v));
			assert_int_equal(v, last);
		}
	} else if (sh->ops) {
		assert_true(size <= first * API_PAGE);
	}
	free(buf);
}

/*
 * The threads punch into the huge range's order-9 swap entry only if
 * reclaim has swapped the range out whole at a moment the mutator looks,
 * which a loaded machine's scheduling may never arrange (it did not in
 * 2 of 12 runs beside three busy loops on two cores).  If they never
 * did, arrange it once here, alone: make room, write the range whole,
 * reclaim until it is one order-9 entry, and punch inside it.  The split
 * is then exercised, and checked, in every run.
 */
static void cc_split_huge_alone(struct cc_shared *sh, struct upc_cache *cache)
{
	unsigned char *buf = malloc(API_HUGE);
	unsigned long limit = CC_LARGE_LIMIT / API_PAGE;
	unsigned int order = 0;
	struct upc_rand rnd;
	pgoff_t index = 0;
	int tries;

	assert_non_null(buf);
	upc_rand_seed(&rnd, upc_test_seed());
	upc_reclaim_pages(cache->arena, limit);
	cc_refill_huge(sh, 0, buf, 0);
	for (tries = 0; tries < 64; tries++) {
		if (cc_sample_swap(sh, 0, &index, &order) &&
		    order == UPC_MAX_ORDER)
			break;
		upc_reclaim_pages(cache->arena, limit);
	}
	fprintf(stderr, "# large swap: no punch into an order-9 entry under "
		"the threads; made one alone after %d reclaims\n", tries);
	assert_true(cc_split_huge(sh, &rnd));
	free(buf);
}

/*
 * Large swap was exercised: order-9 entries, entries only a split makes,
 * and a large entry swapped back in whole.
 */
static void cc_check_large(struct cc_shared *sh, struct upc_cache *cache)
{
	fprintf(stderr, "# large swap: entry orders seen %#lx (%#lx in the "
		"huge range), %lu refills of 2 MiB, %lu punches into an "
		"order-9 entry, %lu reads inside a large entry: %lu found it "
		"whole (%lu of order 9), %lu smaller\n", sh->orders_seen,
		sh->huge_orders, sh->refills, sh->huge_splits, sh->probes,
		sh->whole, sh->whole_huge, sh->cut);
	if (sh->ops < CC_LARGE_MIN_OPS)
		return;
	if (!sh->huge_splits)
		cc_split_huge_alone(sh, cache);
	assert_true(sh->orders_seen & (1UL << UPC_MAX_ORDER));
	assert_true(sh->huge_orders & CC_SPLIT_ORDERS);
	/*
	 * Order 9 comes back whole in most runs (tens of times), but the
	 * count varies too much under TSan to require it; any order will do.
	 */
	assert_true(sh->whole > 0);
}

/*
 * With swap cache trees of 2^space_shift slots, reclaim split order-9
 * folios (they cannot go whole), and no swap entry larger than a tree
 * was made.
 */
static void cc_check_split(struct cc_shared *sh, struct upc_cache *cache)
{
	struct upc_reclaim_stats rs;

	assert_int_equal(upc_reclaim_stats_read(cache->arena, &rs), 0);
	fprintf(stderr, "# split: %" PRIu64 " large folios split for swap, "
		"entry orders seen %#lx\n", rs.thp_split, sh->orders_seen);
	if (sh->ops < CC_LARGE_MIN_OPS)
		return;
	assert_true(rs.thp_split > 0);
	assert_int_equal(sh->orders_seen >> (sh->cfg->space_shift + 1), 0);
}

static void cc_run(const struct cc_config *cfg)
{
	struct cc_thread writers[CC_WRITERS], readers[CC_READERS], mutator;
	char swap_path[] = "/tmp/upc_test_shmem_cc_XXXXXX";
	struct cc_shared sh = { 0 };
	struct upc_cache_stats st;
	struct api_env env;
	unsigned int i;

	sh.cfg = cfg;
	sh.file = api_init(&env, cfg->limit, cfg->huge, 0);
	sh.cache = env.cache;
	sh.ops = upc_test_env_ulong("UPC_STRESS_OPS", CC_DEFAULT_OPS) /
		 (cfg->ops_div ? cfg->ops_div : 1);
	sh.seed = upc_test_seed();
	if (cfg->swap) {
		struct upc_swap_config scfg = {
			.size = cfg->swap, .space_shift = cfg->space_shift,
		};
		int fd;

		if (cfg->swap_file) {
			fd = mkstemp(swap_path);
			assert_true(fd >= 0);
			close(fd);
			scfg.path = swap_path;
		}
		assert_int_equal(upc_swapon(env.cache, &scfg), 0);
		cc_prefill(&sh);
	}
	mutator = (struct cc_thread){ .sh = &sh, .id = 0 };
	assert_int_equal(pthread_create(&mutator.tid, NULL, cc_mutator,
					&mutator), 0);
	for (i = 0; i < CC_READERS; i++) {
		readers[i] = (struct cc_thread){ .sh = &sh, .id = i };
		assert_int_equal(pthread_create(&readers[i].tid, NULL, cc_reader,
						&readers[i]), 0);
	}
	for (i = 0; i < CC_WRITERS; i++) {
		writers[i] = (struct cc_thread){ .sh = &sh, .id = i };
		assert_int_equal(pthread_create(&writers[i].tid, NULL, cc_writer,
						&writers[i]), 0);
	}
	for (i = 0; i < CC_WRITERS; i++)
		assert_int_equal(pthread_join(writers[i].tid, NULL), 0);
	for (i = 0; i < CC_READERS; i++)
		assert_int_equal(pthread_join(readers[i].tid, NULL), 0);
	assert_int_equal(pthread_join(mutator.tid, NULL), 0);

	assert_int_equal(sh.errors, 0);
	assert_int_equal(sh.torn, 0);
	assert_int_equal(sh.bad_atomic, 0);
	assert_int_equal(sh.bad_spans, 0);
	cc_check_final(&sh);
	assert_file_ok(sh.file);
	api_assert_swap_unshared(sh.file);
	if (cfg->swap) {
		assert_int_equal(upc_check_swap(env.cache->swap), 0);
		assert_int_equal(upc_cache_stats(env.cache, &st), 0);
		fprintf(stderr, "# swap: %" PRIu64 " pages out, %" PRIu64
			" in, %" PRIu64 " KiB in swap at the end\n",
			st.swapouts, st.swapins, st.swap_used >> 10);
		/* The file is larger than the cache: it did swap. */
		assert_true(st.swapouts > 0);
		assert_true(st.swapins > 0);
		if (cfg->space_shift)
			cc_check_split(&sh, env.cache);
		else if (cfg->large)
			cc_check_large(&sh, env.cache);
		assert_int_equal(upc_close(env.file), 0);
		env.file = NULL;
		assert_int_equal(upc_cache_stats(env.cache, &st), 0);
		assert_int_equal(st.swap_used, 0);
	}
	api_fini(&env);
	if (cfg->swap_file)
		assert_int_equal(unlink(swap_path), 0);
}

static void test_shmem_concurrency_small(void **state)
{
	static const struct cc_config cfg = {
		.huge = UPC_HUGE_NEVER, .limit = 64UL << 20,
		.pages = CC_PAGES, .falloc_pages = CC_PAGES,
	};

	(void)state;
	cc_run(&cfg);
}

static void test_shmem_concurrency_huge(void **state)
{
	static const struct cc_config cfg = {
		.huge = UPC_HUGE_ALWAYS, .limit = 64UL << 20,
		.pages = CC_PAGES, .falloc_pages = CC_PAGES,
	};

	(void)state;
	cc_run(&cfg);
}

/* Small folios only. */
static void test_shmem_concurrency_swap(void **state)
{
	static const struct cc_config cfg = {
		.huge = UPC_HUGE_NEVER, .limit = CC_SWAP_LIMIT,
		.pages = CC_SWAP_PAGES, .falloc_pages = CC_SWAP_FALLOC,
		.swap = CC_SWAP_SIZE,
	};

	(void)state;
	cc_run(&cfg);
}

/* The same, swapping to a file: reads in order swap in with readahead. */
static void test_shmem_concurrency_swap_file(void **state)
{
	static const struct cc_config cfg = {
		.huge = UPC_HUGE_NEVER, .limit = CC_SWAP_LIMIT,
		.pages = CC_SWAP_PAGES, .falloc_pages = CC_SWAP_FALLOC,
		.swap = CC_SWAP_SIZE, .swap_file = true,
	};

	(void)state;
	cc_run(&cfg);
}

/* Order-9 and smaller large folios through swap, and their entries split. */
static void test_shmem_concurrency_swap_large(void **state)
{
	static const struct cc_config cfg = {
		.huge = UPC_HUGE_ALWAYS, .limit = CC_LARGE_LIMIT,
		.pages = CC_LARGE_PAGES, .falloc_pages = CC_LARGE_FALLOC,
		.swap = CC_LARGE_SIZE, .large = true,
		.ops_div = CC_LARGE_OPS_DIV,
	};

	(void)state;
	cc_run(&cfg);
}

/*
 * The same with swap cache trees of 64 slots: order-9 folios cannot go
 * whole, so reclaim splits them under the readers, writers and punches.
 */
static void test_shmem_concurrency_swap_split(void **state)
{
	static const struct cc_config cfg = {
		.huge = UPC_HUGE_ALWAYS, .limit = CC_LARGE_LIMIT,
		.pages = CC_LARGE_PAGES, .falloc_pages = CC_LARGE_FALLOC,
		.swap = CC_LARGE_SIZE, .large = true,
		.ops_div = CC_LARGE_OPS_DIV, .space_shift = 6,
	};

	(void)state;
	cc_run(&cfg);
}

/* ---- spans against punch and truncate ------------------------------------ */

struct span_shared {
	struct upc_file *file;
	int64_t pages;
	int done;		/* atomic */
	unsigned long bad;	/* atomic */
};

/* The byte every byte of page @p holds in the spans test. */
static unsigned char span_value(int64_t p)
{
	return (unsigned char)(p + 1);
}

/* Pin a range, check each page still holds its own value, put it. */
static void *span_reader(void *arg)
{
	struct span_shared *sh = arg;
	struct upc_span spans[8];
	unsigned long i;

	for (i = 0; !__atomic_load_n(&sh->done, __ATOMIC_ACQUIRE); i++) {
		int64_t pos = (int64_t)(i * 7 % (unsigned long)sh->pages) *
			      API_PAGE;
		int nr = upc_get_spans(sh->file, pos, 8 * API_PAGE, spans, 8);

		for (int s = 0; s < nr; s++) {
			const unsigned char *p = spans[s].data;
			unsigned char want = span_value(spans[s].offset /
							API_PAGE);

			if (p && (p[0] != want || p[spans[s].len - 1] != want))
				cc_count(&sh->bad);
		}
		if (nr < 0)
			cc_count(&sh->bad);
		else
			upc_put_spans(spans, (unsigned int)nr);
	}
	return NULL;
}

/*
 * Refill and punch @pages pages @rounds times while a reader pins them;
 * with @swap, the cache of @limit bytes swaps to that much swap.
 */
static void span_run(size_t limit, int64_t pages, uint64_t swap,
		     unsigned long rounds)
{
	unsigned char *data = malloc((size_t)(pages * API_PAGE));
	struct span_shared sh = { .pages = pages };
	struct upc_cache_stats st;
	struct api_env env;
	pthread_t tid;

	assert_non_null(data);
	for (int64_t p = 0; p < pages; p++)
		memset(data + p * API_PAGE, span_value(p), API_PAGE);
	sh.file = api_init(&env, limit, UPC_HUGE_NEVER, 0);
	if (swap) {
		struct upc_swap_config scfg = { .size = swap };

		assert_int_equal(upc_swapon(env.cache, &scfg), 0);
	}
	assert_int_equal(pthread_create(&tid, NULL, span_reader, &sh), 0);
	for (unsigned long r = 0; r < rounds; r++) {
		/* Refill: new folios, which no span can be reading yet. */
		assert_int_equal(upc_truncate(sh.file, 0), 0);
		assert_int_equal(upc_write(sh.file, data,
					   (size_t)(pages * API_PAGE), 0),
				 pages * API_PAGE);
		assert_int_equal(upc_fallocate(sh.file, FALLOC_FL_PUNCH_HOLE |
					       FALLOC_FL_KEEP_SIZE,
					       (int64_t)(r % (unsigned long)pages) *
					       API_PAGE, 16 * API_PAGE), 0);
	}
	__atomic_store_n(&sh.done, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(tid, NULL), 0);
	assert_int_equal(sh.bad, 0);
	free(data);
	if (swap) {
		assert_int_equal(upc_check_swap(env.cache->swap), 0);
		assert_int_equal(upc_cache_stats(env.cache, &st), 0);
		/* Each refill is three times the cache. */
		assert_true(!rounds || st.swapouts > 0);
		assert_int_equal(upc_close(env.file), 0);
		env.file = NULL;
		assert_int_equal(upc_cache_stats(env.cache, &st), 0);
		assert_int_equal(st.swap_used, 0);
	}
	api_fini(&env);
}

static void test_shmem_concurrency_spans(void **state)
{
	unsigned long ops = upc_test_env_ulong("UPC_STRESS_OPS", CC_DEFAULT_OPS);

	(void)state;
	span_run(64UL << 20, CC_PAGES, 0, ops / 20);
}

/* As much data per run as above, in fewer rounds of a larger file. */
static void test_shmem_concurrency_spans_swap(void **state)
{
	unsigned long ops = upc_test_env_ulong("UPC_STRESS_OPS", CC_DEFAULT_OPS);
	int64_t pages = 3 * CC_SWAP_LIMIT / API_PAGE;

	(void)state;
	span_run(CC_SWAP_LIMIT, pages, 2 * (uint64_t)pages * API_PAGE,
		 ops / 20 * CC_PAGES / (unsigned long)pages + 1);
}

/* ---- upc_swapoff() against upc_close() ---------------------------------- */

/* Spins on upc_swapoff() until it succeeds; notes the memory then in use. */
struct swapoff_close {
	struct upc_cache *cache;
	int spinning;
	int err;
	int stats_err;
	uint64_t used_at_swapoff;
};

static void *swapoff_spinner(void *arg)
{
	struct swapoff_close *sc = arg;
	struct upc_cache_stats st;
	int err;

	/* cmocka's checks belong to the main thread: this one notes. */
	while ((err = upc_swapoff(sc->cache)) == -EBUSY)
		__atomic_store_n(&sc->spinning, 1, __ATOMIC_RELEASE);
	sc->err = err;
	sc->stats_err = upc_cache_stats(sc->cache, &st);
	sc->used_at_swapoff = st.memory_used;
	return NULL;
}

/*
 * A file that is closing is still open for upc_swapoff(): until its
 * memory is gone reclaim may still send its pages to the device.  A
 * thread tries to swap off all along a close of a 32 MiB file; when it
 * succeeds, the file's memory must already be free.
 */
static void test_shmem_concurrency_swapoff_close(void **state)
{
	struct upc_swap_config scfg = { .size = 8 * API_MIB };
	struct swapoff_close sc = { 0 };
	struct api_env env;
	pthread_t tid;

	(void)state;
	api_init(&env, 64 * API_MIB, UPC_HUGE_NEVER, 0);
	assert_int_equal(upc_swapon(env.cache, &scfg), 0);
	api_write_pattern(env.file, 0, 32 * API_MIB, 7);
	sc.cache = env.cache;
	assert_int_equal(pthread_create(&tid, NULL, swapoff_spinner, &sc), 0);
	while (!__atomic_load_n(&sc.spinning, __ATOMIC_ACQUIRE))
		sched_yield();
	assert_int_equal(upc_close(env.file), 0);
	env.file = NULL;
	assert_int_equal(pthread_join(tid, NULL), 0);
	assert_int_equal(sc.err, 0);
	assert_int_equal(sc.stats_err, 0);
	assert_int_equal(sc.used_at_swapoff, 0);
	api_fini(&env);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shmem_concurrency_small),
		cmocka_unit_test(test_shmem_concurrency_huge),
		cmocka_unit_test(test_shmem_concurrency_swap),
		cmocka_unit_test(test_shmem_concurrency_swap_file),
		cmocka_unit_test(test_shmem_concurrency_swap_large),
		cmocka_unit_test(test_shmem_concurrency_swap_split),
		cmocka_unit_test(test_shmem_concurrency_spans),
		cmocka_unit_test(test_shmem_concurrency_spans_swap),
		cmocka_unit_test(test_shmem_concurrency_swapoff_close),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
