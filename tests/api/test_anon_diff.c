// SPDX-License-Identifier: MIT
/*
 * tests/api/test_anon_diff.c - differential test of anonymous regions
 * swapping under a small memory limit, against a plain byte array.
 *
 * A region several times larger than the cache's memory limit (2 MiB,
 * the smallest) is given an in-memory swap device (upc_swapon() with
 * path NULL), and the same seeded random sequence of upc_anon_write()
 * and upc_anon_read() calls is applied to it and to a malloc()ed model
 * of its bytes.  Offsets are unaligned, on or next to page boundaries,
 * next to and past the region's end (whose last page is only partly
 * inside), far past it, next to INT64_MAX, or negative; lengths are 0,
 * small, page-crossing, whole pages, up to 1 MiB, or larger than the
 * region; a few calls pass a NULL buffer.  After every step the result
 * must be the documented one (upcache.h) and the bytes must match: a
 * read is compared in full, and the bytes of its buffer after what it
 * returned must be untouched; a write is read back at both ends.
 *
 * Every DIFF_FULL_EVERY steps and at the end the whole region is
 * compared, and the bookkeeping is checked exactly, since nothing runs
 * beside the test:
 *  - upc_check_mapping() on the region's page table (its mapping);
 *  - every page ever written is either resident (a folio) or swapped out
 *    (a swap entry), and no other page is held;
 *  - swap_used is exactly the swapped-out pages (no slot leaks, none is
 *    shared), swap_used <= swap_total, memory_used <= the limit and at
 *    least the resident pages;
 *  - the swap cache has the number of spaces the chunk shift asks for,
 *    holds no more entries (shadows, at rest) than slots in use, and no
 *    tree deeper than the shift allows (seed 003's point).
 * At the end swapouts and swapins must both be non-zero (a run that
 * never swapped tested nothing), and destroying the region must give
 * back all memory and every slot.
 *
 * The run is repeated for three swap cache chunk shifts: the default
 * (config 0: 14), 6 (SWAP_SPACE_SHIFT_MIN, 64 slots per tree: many
 * trees) and SWAP_SPACE_SHIFT_MAX (30: one tree indexed by the offset
 * within its chunk).
 *
 * UPC_DIFF_OPS sets the number of steps per shift (default 34000,
 * 15000 under ASan or TSan), UPC_SEED the seed (printed at start and in
 * every failure), UPC_DIFF_TRACE=1 prints every step.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <upcache/check.h>
#include <upcache/swap.h>
#include <upcache/upcache.h>

#include "api/internal.h"
#include "rand.h"

#define PAGE			4096L
#define MIB			(1L << 20)
#define DIFF_LIMIT		(2 * MIB)	/* the cache's memory limit */
/* Six times the limit; the last page is partly inside the region. */
#define DIFF_SIZE		(12 * MIB + 1000)
#define DIFF_PAGES		((DIFF_SIZE + PAGE - 1) / PAGE)
#define DIFF_SWAP		(16 * MIB)	/* room for every page */
#define DIFF_MAX_IO		(1 * MIB)	/* longest ordinary length */
#define DIFF_CANARY		64		/* bytes checked after a read */
#define DIFF_CANARY_BYTE	0xa5
#define DIFF_FULL_EVERY		2000

#if defined(UPC_SANITIZE_ADDRESS) || defined(UPC_SANITIZE_THREAD)
#define DIFF_DEFAULT_OPS	15000
#else
#define DIFF_DEFAULT_OPS	34000
#endif

struct diff {
	struct upc_cache *cache;
	struct upc_anon *anon;
	unsigned int shift;	/* the config's space_shift */
	struct upc_rand rnd;
	uint64_t seed;		/* UPC_SEED, as printed */
	unsigned long step;
	bool trace;
	char op[160];		/* the current step, for failure messages */
	unsigned char *model;	/* the region's bytes */
	unsigned char *written;	/* per page: ever written (1 byte or more) */
	unsigned char *pool;	/* random bytes that writes take a slice of */
	unsigned char *buf;	/* what reads go to */
	unsigned long nr_reads, nr_writes;
};

static struct diff *d;

#include "diff_helpers.h"

/* The run's name in failure messages (diff_helpers.h). */
static void diff_describe(char *buf, size_t size)
{
	snprintf(buf, size, "anon diff (space_shift=%u)", d->shift);
}

/* ---- random choices ------------------------------------------------------ */

/* An offset: mostly inside, some at the edges, some invalid. */
static int64_t rand_offset(void)
{
	int64_t r = rnd(100);

	if (r < 82)
		return rand_near_page(DIFF_SIZE - 1);
	if (r < 90)	/* a few pages either side of the end */
		return DIFF_SIZE - 3 * PAGE + rnd(4 * PAGE);
	if (r < 92)
		return DIFF_SIZE;
	if (r < 95)
		return DIFF_SIZE + 1 + rnd(INT64_MAX / 2);
	if (r < 97)
		return INT64_MAX - rnd(2 * PAGE);
	if (r < 99)
		return -1 - rnd(2 * PAGE);
	return INT64_MIN + rnd(2);
}

/* A length: 0, short, page-crossing, whole pages, long, or huge. */
static size_t rand_len(void)
{
	int64_t r = rnd(100);

	if (r < 3)
		return 0;
	if (r < 45)
		return 1 + (size_t)rnd(2 * PAGE);
	if (r < 72)
		return 1 + (size_t)rnd(64 * 1024);
	if (r < 87)
		return (size_t)(1 + rnd(16)) * PAGE;
	if (r < 97)
		return 1 + (size_t)rnd(DIFF_MAX_IO);
	/* More than the region: the call must stop at its end. */
	return chance(1, 2) ? SIZE_MAX - (size_t)rnd(PAGE) :
			      (size_t)DIFF_SIZE + (size_t)rnd(MIB);
}

/* ---- the model's answers ------------------------------------------------- */

/* What upc_anon_read()/upc_anon_write() must return (upcache.h). */
static int64_t expected(int64_t off, size_t count, bool null_buf)
{
	if (off < 0)
		return -EINVAL;
	if (null_buf && count)
		return -EFAULT;
	if (off >= DIFF_SIZE)
		return 0;
	return count < (size_t)(DIFF_SIZE - off) ? (int64_t)count :
						   DIFF_SIZE - off;
}

/* ---- comparisons --------------------------------------------------------- */

/*
 * Read [@off, @off + @count) with the buffer pre-filled with a canary,
 * and check the result, the bytes, and that the canary after them is
 * untouched.  @count may exceed the buffer only when the region's end
 * cuts it short.
 */
static void compare_read(int64_t off, size_t count)
{
	int64_t want = expected(off, count, false), got, i;
	size_t fill = want > 0 ? (size_t)want : 0;

	memset(d->buf, DIFF_CANARY_BYTE, fill + DIFF_CANARY);
	got = upc_anon_read(d->anon, d->buf, count, off);
	d->nr_reads++;
	DIFF_CHECK(got == want, "read(%" PRId64 ", %zu): upcache %" PRId64
		   ", expected %" PRId64, off, count, got, want);
	if (want > 0 && memcmp(d->buf, d->model + off, (size_t)want)) {
		i = first_diff(d->buf, d->model + off);
		diff_fail("read(%" PRId64 ", %zu): byte %" PRId64
			  " is %#x, expected %#x", off, count, off + i,
			  d->buf[i], d->model[off + i]);
	}
	for (i = 0; i < DIFF_CANARY; i++)
		DIFF_CHECK(d->buf[fill + (size_t)i] == DIFF_CANARY_BYTE,
			   "read(%" PRId64 ", %zu) wrote %" PRId64
			   " bytes past what it returned", off, count, i + 1);
}

/* Compare [@lo, @hi) (clipped to the region) in reads of at most 1 MiB. */
static void compare_range(int64_t lo, int64_t hi)
{
	if (lo < 0)
		lo = 0;
	if (hi > DIFF_SIZE)
		hi = DIFF_SIZE;
	while (lo < hi) {
		int64_t len = hi - lo < DIFF_MAX_IO ? hi - lo : DIFF_MAX_IO;

		compare_read(lo, (size_t)len);
		lo += len;
	}
}

/* Levels a tree needs for indices below @n (XA_CHUNK_SHIFT bits each). */
static unsigned int levels_for(unsigned long n)
{
	unsigned int levels = 0;

	while (n > 1) {
		levels++;
		n = (n + XA_CHUNK_SIZE - 1) >> XA_CHUNK_SHIFT;
	}
	return levels;
}

/* The swap cache's shape: see the opening comment. */
static void check_swap_cache(uint64_t slots_used)
{
	struct swap_info_struct *si = d->cache->swap;
	unsigned int shift = d->shift ? d->shift : SWAP_ADDRESS_SPACE_SHIFT;
	unsigned long slots = DIFF_SWAP / PAGE, per_space = 1UL << shift;
	struct swap_cache_info info;

	DIFF_CHECK(si != NULL, "the cache has no swap device");
	swap_cache_info(si, &info);
	DIFF_CHECK(info.nr_spaces == (slots + per_space - 1) / per_space,
		   "%lu swap cache spaces for shift %u", info.nr_spaces, shift);
	DIFF_CHECK(info.nr_entries <= slots_used,
		   "swap cache holds %lu entries at rest, %" PRIu64
		   " slots in use", info.nr_entries, slots_used);
	DIFF_CHECK(info.max_height <= levels_for(per_space < slots ?
						  per_space : slots),
		   "swap cache tree of %u levels for shift %u",
		   info.max_height, shift);
}

/* Page states and counters: see the opening comment. */
static void check_accounting(void)
{
	struct address_space *mapping = &d->anon->region.mapping;
	unsigned long index, resident = 0, swapped = 0, written = 0, i;
	struct upc_cache_stats st;
	void *entry;

	xa_for_each(&mapping->i_pages, index, entry) {
		DIFF_CHECK(index < DIFF_PAGES && d->written[index],
			   "page %lu is held but was never written", index);
		if (xa_is_value(entry))
			swapped++;
		else
			resident++;
	}
	for (i = 0; i < DIFF_PAGES; i++)
		written += d->written[i];
	DIFF_CHECK(resident + swapped == written,
		   "%lu pages resident + %lu swapped, %lu written",
		   resident, swapped, written);
	DIFF_CHECK(mapping->nrpages == resident, "nrpages %lu, %lu folios",
		   mapping->nrpages, resident);

	DIFF_CHECK(upc_cache_stats(d->cache, &st) == 0, "upc_cache_stats()");
	DIFF_CHECK(st.memory_limit == DIFF_LIMIT, "memory_limit %" PRIu64,
		   st.memory_limit);
	DIFF_CHECK(st.memory_used <= st.memory_limit,
		   "memory_used %" PRIu64 " over the limit", st.memory_used);
	DIFF_CHECK(st.memory_used >= resident * PAGE,
		   "memory_used %" PRIu64 " under %lu resident pages",
		   st.memory_used, resident);
	DIFF_CHECK(st.swap_total == DIFF_SWAP, "swap_total %" PRIu64,
		   st.swap_total);
	DIFF_CHECK(st.swap_used <= st.swap_total, "swap_used %" PRIu64
		   " over swap_total", st.swap_used);
	DIFF_CHECK(st.swap_used == swapped * PAGE, "swap_used %" PRIu64
		   ", %lu pages swapped out", st.swap_used, swapped);
	DIFF_CHECK(st.anon_regions == 1, "anon_regions %" PRIu64,
		   st.anon_regions);
	check_swap_cache(st.swap_used / PAGE);
}

static void compare_full(void)
{
	compare_range(0, DIFF_SIZE);
	DIFF_CHECK(upc_check_mapping(&d->anon->region.mapping) == 0,
		   "upc_check_mapping() failed");
	check_accounting();
}

/* ---- the steps ----------------------------------------------------------- */

static void step_write(void)
{
	int64_t off = rand_offset(), want, got, p;
	size_t count = rand_len();
	bool null_buf = chance(1, 100);
	const unsigned char *src = null_buf ? NULL : d->pool + rnd(MIB);

	snprintf(d->op, sizeof(d->op), "write(%" PRId64 ", %zu%s)", off,
		 count, null_buf ? ", NULL" : "");
	want = expected(off, count, null_buf);
	got = upc_anon_write(d->anon, src, count, off);
	d->nr_writes++;
	DIFF_CHECK(got == want, "upcache %" PRId64 ", expected %" PRId64,
		   got, want);
	if (want <= 0)
		return;
	memcpy(d->model + off, src, (size_t)want);
	for (p = off / PAGE; p <= (off + want - 1) / PAGE; p++)
		d->written[p] = 1;
	/* Both ends of what was written, and a page either side. */
	compare_range(off - PAGE, off + (want < 64 * 1024 ? want : 64 * 1024));
	compare_range(off + want - (want < 64 * 1024 ? want : 64 * 1024),
		      off + want + PAGE);
}

static void step_read(void)
{
	int64_t off = rand_offset();
	size_t count = rand_len();

	snprintf(d->op, sizeof(d->op), "read(%" PRId64 ", %zu)", off, count);
	if (chance(1, 100)) {
		/* A NULL buffer: fine with 0 bytes, -EFAULT otherwise. */
		int64_t got = upc_anon_read(d->anon, NULL, count, off);

		DIFF_CHECK(got == expected(off, count, true),
			   "NULL buffer: upcache %" PRId64 ", expected %" PRId64,
			   got, expected(off, count, true));
		return;
	}
	compare_read(off, count);
}

/* A read of a run of whole, aligned pages: memhog's unit of access. */
static void step_pages(void)
{
	int64_t first = rnd(DIFF_PAGES), nr = 1 + rnd(8);

	if (first + nr > DIFF_PAGES)
		nr = DIFF_PAGES - first;
	snprintf(d->op, sizeof(d->op), "pages(%" PRId64 ", %" PRId64 ")",
		 first, nr);
	compare_read(first * PAGE, (size_t)(nr * PAGE));
}

static void diff_step(void)
{
	int64_t r = rnd(100);

	diff_trace();
	if (r < 50)
		step_write();
	else if (r < 90)
		step_read();
	else
		step_pages();
}

/* ---- setup and the runs -------------------------------------------------- */

static void diff_run(unsigned int shift)
{
	struct upc_cache_config cfg = { .memory_limit = DIFF_LIMIT };
	struct upc_swap_config swap = {
		.path = NULL, .size = DIFF_SWAP, .space_shift = shift,
	};
	unsigned long i, ops = upc_test_diff_ops(DIFF_DEFAULT_OPS);
	struct upc_cache_stats st;
	struct diff env = { 0 };
	struct timespec t0;

	d = &env;
	env.shift = shift;
	diff_seed((uint64_t)shift << 32);
	env.model = calloc(1, DIFF_SIZE);
	env.written = calloc(1, DIFF_PAGES);
	env.pool = malloc(DIFF_SIZE + MIB);
	env.buf = malloc(DIFF_SIZE + DIFF_CANARY);
	assert_non_null(env.model);
	assert_non_null(env.written);
	assert_non_null(env.pool);
	assert_non_null(env.buf);
	fill_random(env.pool, DIFF_SIZE + MIB);
	fprintf(stderr, "# anon diff: space_shift=%u, UPC_SEED=%" PRIu64
		", %lu steps\n", shift, env.seed, ops);

	assert_int_equal(upc_cache_create(&cfg, &env.cache), 0);
	assert_int_equal(upc_swapon(env.cache, &swap), 0);
	assert_int_equal(upc_anon_create(env.cache, DIFF_SIZE, &env.anon), 0);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < ops; i++) {
		env.step = i;
		diff_step();
		if (i % DIFF_FULL_EVERY == DIFF_FULL_EVERY - 1) {
			snprintf(env.op, sizeof(env.op), "full comparison");
			compare_full();
		}
	}
	snprintf(env.op, sizeof(env.op), "final comparison");
	compare_full();

	assert_int_equal(upc_cache_stats(env.cache, &st), 0);
	fprintf(stderr, "# anon diff space_shift=%u: %lu steps (%lu reads, "
		"%lu writes) in %.2f s; %" PRIu64 " swapouts, %" PRIu64
		" swapins\n", shift, ops, env.nr_reads, env.nr_writes,
		seconds_since(&t0), st.swapouts, st.swapins);
	/* A run that never swapped both ways tested nothing it claims to. */
	if (ops >= 1000) {
		DIFF_CHECK(st.swapouts > 0, "no page was swapped out");
		DIFF_CHECK(st.swapins > 0, "no page was swapped in");
	}

	/* Everything comes back; then the device can go. */
	snprintf(env.op, sizeof(env.op), "teardown");
	DIFF_CHECK(upc_swapoff(env.cache) == -EBUSY,
		   "swapoff with a region alive");
	assert_int_equal(upc_anon_destroy(env.anon), 0);
	assert_int_equal(upc_cache_stats(env.cache, &st), 0);
	DIFF_CHECK(st.memory_used == 0, "memory_used %" PRIu64
		   " after destroy", st.memory_used);
	DIFF_CHECK(st.swap_used == 0, "swap_used %" PRIu64 " after destroy",
		   st.swap_used);
	DIFF_CHECK(st.anon_regions == 0, "anon_regions %" PRIu64,
		   st.anon_regions);
	assert_int_equal(upc_swapoff(env.cache), 0);
	assert_int_equal(upc_swapoff(env.cache), -EINVAL);
	assert_int_equal(upc_cache_destroy(env.cache), 0);
	free(env.model);
	free(env.written);
	free(env.pool);
	free(env.buf);
	d = NULL;
}

static void test_anon_diff_shift_default(void **state)
{
	(void)state;
	diff_run(0);
}

static void test_anon_diff_shift_6(void **state)
{
	(void)state;
	diff_run(6);
}

static void test_anon_diff_shift_max(void **state)
{
	(void)state;
	diff_run(SWAP_SPACE_SHIFT_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_anon_diff_shift_default),
		cmocka_unit_test(test_anon_diff_shift_6),
		cmocka_unit_test(test_anon_diff_shift_max),
	};

	/* The minimum is what the second run uses. */
	_Static_assert(SWAP_SPACE_SHIFT_MIN == 6, "shift 6 is the minimum");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
