// SPDX-License-Identifier: MIT
/*
 * tests/mm/test_iov_iter.c - the read and write paths' copies to and from
 * the caller's iovecs (mm/iov_iter.h).
 *
 * copy_to_iter() copies up to a page inline and longer runs out of line,
 * a source page at a time with the pages ahead prefetched; these tests
 * check every byte of both against the source, at every alignment around
 * page edges, with the source ending right before an unmapped page (a
 * copy that read past its end would fault), over one buffer and over
 * seeded random segment lists, and with buffers too short for the copy.
 * copy_from_iter() and iov_iter_zero() are checked over the same lists,
 * and struct copy_ahead, the queue a read feeds folio by folio, with
 * random runs that join or do not.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include <cmocka.h>

#include "../../mm/iov_iter.h"
#include "../utils/rand.h"

#define PAGE		4096UL
#define SRC_PAGES	260UL		/* a 1 MiB copy at any offset, and more */
#define DST_BYTES	(SRC_PAGES * PAGE)
#define MAX_SEGS	16

/*
 * The source: SRC_PAGES pages of a known pattern, followed by a page with
 * no access, so a copy that reads one byte past its source faults.
 */
static unsigned char *src_map;
static unsigned char *src;
static unsigned char *dst;

static unsigned char pattern(size_t i)
{
	return (unsigned char)(i * 131 + (i >> 12) * 7 + 1);
}

static int setup(void **state)
{
	size_t i;

	(void)state;
	src_map = mmap(NULL, (SRC_PAGES + 1) * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (src_map == MAP_FAILED)
		return -1;
	if (mprotect(src_map + SRC_PAGES * PAGE, PAGE, PROT_NONE))
		return -1;
	src = src_map;
	for (i = 0; i < SRC_PAGES * PAGE; i++)
		src[i] = pattern(i);
	dst = malloc(DST_BYTES + 2);
	return dst ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	free(dst);
	return munmap(src_map, (SRC_PAGES + 1) * PAGE);
}

/* The source's last @len bytes: they end right before the unmapped page. */
static const unsigned char *src_tail(size_t len)
{
	return src + SRC_PAGES * PAGE - len;
}

/*
 * Copy @len bytes ending at the source's end into dst + 1 as one
 * segment, and check the bytes, the count and the two bytes around.
 */
static void check_one_copy(size_t len)
{
	const unsigned char *from = src_tail(len);
	struct iovec iov = { .iov_base = dst + 1, .iov_len = len };
	struct iov_iter iter;

	memset(dst, 0xa5, len + 2);
	iov_iter_init(&iter, &iov, 1, len);
	assert_int_equal(copy_to_iter(from, len, &iter), len);
	assert_int_equal(iov_iter_count(&iter), 0);
	assert_memory_equal(dst + 1, from, len);
	assert_int_equal(dst[0], 0xa5);
	assert_int_equal(dst[len + 1], 0xa5);
}

/* Every length around page multiples, so every source alignment too. */
static void test_copy_to_iter_lengths(void **state)
{
	static const size_t pages[] = { 0, 1, 2, 3, 4, 5, 16, 256 };
	size_t p, delta;

	(void)state;
	for (p = 0; p < sizeof(pages) / sizeof(pages[0]); p++) {
		for (delta = 0; delta < 130; delta++) {
			size_t base = pages[p] * PAGE;

			check_one_copy(base + delta);
			if (base >= delta + 1)
				check_one_copy(base - delta);
		}
	}
	check_one_copy(SRC_PAGES * PAGE);
}

/* A copy that starts anywhere in a page and ends anywhere in another. */
static void test_copy_to_iter_offsets(void **state)
{
	struct upc_rand rnd;
	int round;

	(void)state;
	upc_rand_seed(&rnd, upc_test_seed());
	for (round = 0; round < 2000; round++) {
		size_t len = 1 + upc_rand_below(&rnd, 20 * PAGE);
		size_t start = upc_rand_below(&rnd, SRC_PAGES * PAGE - len + 1);
		struct iovec iov = { .iov_base = dst, .iov_len = len };
		struct iov_iter iter;

		iov_iter_init(&iter, &iov, 1, len);
		assert_int_equal(copy_to_iter(src + start, len, &iter), len);
		assert_memory_equal(dst, src + start, len);
	}
}

/*
 * Cut dst's first @len bytes into up to MAX_SEGS segments at random
 * points, empty ones included.  Return: the number of segments.
 */
static unsigned long random_segments(struct upc_rand *rnd, struct iovec *iov,
				     size_t len)
{
	unsigned long nr = 1 + upc_rand_below(rnd, MAX_SEGS);
	size_t cut[MAX_SEGS + 1], used = 0;
	unsigned long i, j;

	cut[0] = 0;
	cut[nr] = len;
	for (i = 1; i < nr; i++)
		cut[i] = upc_rand_below(rnd, len + 1);
	/* Insertion sort: nr is small. */
	for (i = 2; i < nr; i++)
		for (j = i; j > 1 && cut[j - 1] > cut[j]; j--) {
			size_t t = cut[j];

			cut[j] = cut[j - 1];
			cut[j - 1] = t;
		}
	for (i = 0; i < nr; i++) {
		iov[i].iov_base = dst + cut[i];
		iov[i].iov_len = cut[i + 1] - cut[i];
		used += iov[i].iov_len;
	}
	assert_int_equal(used, len);
	return nr;
}

/* Copies, fills and copies back over random segment lists. */
static void test_iter_segments(void **state)
{
	struct iovec iov[MAX_SEGS];
	struct upc_rand rnd;
	int round;

	(void)state;
	upc_rand_seed(&rnd, upc_test_seed() ^ 0x5e65);
	for (round = 0; round < 3000; round++) {
		size_t len = upc_rand_below(&rnd, 12 * PAGE);
		size_t start = upc_rand_below(&rnd, SRC_PAGES * PAGE - len + 1);
		unsigned long nr = random_segments(&rnd, iov, len);
		unsigned char back[12 * PAGE];
		struct iov_iter iter;
		size_t i;

		memset(dst, 0xa5, len + 1);
		iov_iter_init(&iter, iov, nr, len);
		assert_int_equal(copy_to_iter(src + start, len, &iter), len);
		assert_int_equal(iov_iter_count(&iter), 0);
		assert_memory_equal(dst, src + start, len);
		assert_int_equal(dst[len], 0xa5);

		iov_iter_init(&iter, iov, nr, len);
		assert_int_equal(copy_from_iter(back, len, &iter), len);
		assert_memory_equal(back, src + start, len);

		iov_iter_init(&iter, iov, nr, len);
		assert_int_equal(iov_iter_zero(len, &iter), len);
		for (i = 0; i < len; i++)
			assert_int_equal(dst[i], 0);
		assert_int_equal(dst[len], 0xa5);
	}
}

/*
 * Where the iterator stands after each copy: a copy that fits the
 * current segment stays in it; one that does not first steps past the
 * finished segment and the empty ones after it, each counted off
 * nr_segs, the segments left (the current one included).
 */
static void test_iter_position(void **state)
{
	struct iovec iov[4] = {
		{ .iov_base = dst, .iov_len = 10 },
		{ .iov_base = dst + 10, .iov_len = 0 },
		{ .iov_base = dst + 10, .iov_len = 0 },
		{ .iov_base = dst + 10, .iov_len = 20 },
	};
	struct iov_iter iter;

	(void)state;
	memset(dst, 0xa5, 31);
	iov_iter_init(&iter, iov, 4, 30);
	assert_int_equal(copy_to_iter(src, 10, &iter), 10);
	assert_ptr_equal(iter.iov, &iov[0]);
	assert_int_equal(iter.nr_segs, 4);
	assert_int_equal(iter.iov_offset, 10);
	assert_int_equal(iov_iter_count(&iter), 20);
	assert_int_equal(copy_to_iter(src + 10, 5, &iter), 5);
	assert_ptr_equal(iter.iov, &iov[3]);
	assert_int_equal(iter.nr_segs, 1);
	assert_int_equal(iter.iov_offset, 5);
	assert_int_equal(iov_iter_count(&iter), 15);
	assert_int_equal(copy_to_iter(src + 15, 15, &iter), 15);
	assert_ptr_equal(iter.iov, &iov[3]);
	assert_int_equal(iter.nr_segs, 1);
	assert_int_equal(iter.iov_offset, 20);
	assert_int_equal(iov_iter_count(&iter), 0);
	assert_memory_equal(dst, src, 30);
	assert_int_equal(dst[30], 0xa5);
}

/*
 * Buffers shorter than the copy: the copy stops where they end, says so,
 * and writes nothing past them, long copies and short ones alike.
 */
static void test_copy_to_iter_short_buffers(void **state)
{
	static const size_t want[] = { 100, PAGE, PAGE + 1, 9 * PAGE + 3 };
	size_t w;

	(void)state;
	for (w = 0; w < sizeof(want) / sizeof(want[0]); w++) {
		size_t room = want[w] / 2 + 1;
		struct iovec iov[2] = {
			{ .iov_base = dst, .iov_len = room / 2 },
			{ .iov_base = dst + room / 2, .iov_len = room - room / 2 },
		};
		struct iov_iter iter;

		memset(dst, 0xa5, want[w] + 1);
		iov_iter_init(&iter, iov, 2, room);
		assert_int_equal(copy_to_iter(src + 3, want[w], &iter), room);
		assert_int_equal(iov_iter_count(&iter), 0);
		assert_memory_equal(dst, src + 3, room);
		assert_int_equal(dst[room], 0xa5);
		/* Nothing left: nothing more is copied. */
		assert_int_equal(copy_to_iter(src, want[w], &iter), 0);
		assert_int_equal(dst[room], 0xa5);
	}
}

/*
 * A queue of copies (struct copy_ahead) fed random runs of the source,
 * some joining the run before them, some empty, with flushes at random
 * points: the buffers hold the runs in the order they were added, and
 * each flush counts what it copied.
 */
static void test_copy_ahead_runs(void **state)
{
	struct iovec iov[MAX_SEGS];
	struct upc_rand rnd;
	int round;

	(void)state;
	upc_rand_seed(&rnd, upc_test_seed() ^ 0xc0a4);
	for (round = 0; round < 500; round++) {
		size_t total = upc_rand_below(&rnd, 64 * PAGE);
		unsigned long nr = random_segments(&rnd, iov, total);
		size_t added = 0, flushed = 0, next = SRC_PAGES * PAGE;
		struct copy_ahead ca;
		struct iov_iter iter;
		unsigned char *want = malloc(total + 1);

		assert_non_null(want);
		memset(dst, 0xa5, total + 1);
		iov_iter_init(&iter, iov, nr, total);
		copy_ahead_init(&ca, &iter);
		while (added < total) {
			size_t len = upc_rand_below(&rnd, 3 * PAGE);
			size_t start;

			if (len > total - added)
				len = total - added;
			/* Half the runs go on where the last one ended. */
			if (next + len <= SRC_PAGES * PAGE &&
			    upc_rand_chance(&rnd, 1, 2))
				start = next;
			else
				start = upc_rand_below(&rnd,
						SRC_PAGES * PAGE - len + 1);
			copy_ahead_add(&ca, src + start, len);
			memcpy(want + added, src + start, len);
			added += len;
			next = start + len;
			if (upc_rand_chance(&rnd, 1, 8))
				flushed += copy_ahead_flush(&ca);
			assert_true(ca.nr <= COPY_AHEAD_RUNS);
		}
		flushed += copy_ahead_flush(&ca);
		assert_int_equal(flushed, total);
		assert_int_equal(ca.nr, 0);
		assert_int_equal(iov_iter_count(&iter), 0);
		assert_memory_equal(dst, want, total);
		assert_int_equal(dst[total], 0xa5);
		free(want);
	}
}

/*
 * Only the last run is joined: a run that begins where an older one ends
 * is queued after the runs between them.
 */
static void test_copy_ahead_join_last(void **state)
{
	struct iovec iov = { .iov_base = dst, .iov_len = 3 * PAGE };
	struct copy_ahead ca;
	struct iov_iter iter;

	(void)state;
	iov_iter_init(&iter, &iov, 1, iov.iov_len);
	copy_ahead_init(&ca, &iter);
	copy_ahead_add(&ca, src, PAGE);
	copy_ahead_add(&ca, src + 10 * PAGE, 100);
	copy_ahead_add(&ca, src + PAGE, PAGE);
	assert_int_equal(ca.nr, 3);
	copy_ahead_add(&ca, src + 2 * PAGE, 5);
	assert_int_equal(ca.nr, 3);
	assert_int_equal(copy_ahead_flush(&ca), 2 * PAGE + 105);
	assert_memory_equal(dst, src, PAGE);
	assert_memory_equal(dst + PAGE, src + 10 * PAGE, 100);
	assert_memory_equal(dst + PAGE + 100, src + PAGE, PAGE + 5);
}

/*
 * The queue holds COPY_AHEAD_RUNS runs before it copies any: a run that
 * joins the only one queued grows it, and one more run than fits copies
 * the oldest run alone.
 */
static void test_copy_ahead_depth(void **state)
{
	struct iovec iov = { .iov_base = dst, .iov_len = 8 * PAGE };
	struct copy_ahead ca;
	struct iov_iter iter;
	unsigned int r;

	(void)state;
	iov_iter_init(&iter, &iov, 1, iov.iov_len);
	copy_ahead_init(&ca, &iter);
	copy_ahead_add(&ca, src, 100);
	copy_ahead_add(&ca, src + 100, 50);
	assert_int_equal(ca.nr, 1);
	assert_int_equal(ca.run[0].len, 150);
	for (r = 1; r < COPY_AHEAD_RUNS; r++)
		copy_ahead_add(&ca, src + (size_t)r * 2 * PAGE, PAGE);
	assert_int_equal(ca.nr, COPY_AHEAD_RUNS);
	assert_int_equal(iov_iter_count(&iter), 8 * PAGE);
	copy_ahead_add(&ca, src + 20 * PAGE, 10);
	assert_int_equal(ca.nr, COPY_AHEAD_RUNS);
	assert_int_equal(iov_iter_count(&iter), 8 * PAGE - 150);
	assert_memory_equal(dst, src, 150);
	assert_int_equal(copy_ahead_flush(&ca),
			 150 + (COPY_AHEAD_RUNS - 1) * PAGE + 10);
}

/*
 * A run joins the last by where the last ends: after runs of 100 bytes
 * at src and 50 at src + 10 pages, one of 10 bytes at src + 10 pages +
 * 100 (where the last would end if it were as long as the first) is
 * queued on its own.
 */
static void test_copy_ahead_join_by_last_length(void **state)
{
	struct iovec iov = { .iov_base = dst, .iov_len = PAGE };
	struct copy_ahead ca;
	struct iov_iter iter;

	(void)state;
	iov_iter_init(&iter, &iov, 1, iov.iov_len);
	copy_ahead_init(&ca, &iter);
	copy_ahead_add(&ca, src, 100);
	copy_ahead_add(&ca, src + 10 * PAGE, 50);
	copy_ahead_add(&ca, src + 10 * PAGE + 100, 10);
	assert_int_equal(ca.nr, 3);
	assert_int_equal(copy_ahead_flush(&ca), 160);
	assert_memory_equal(dst, src, 100);
	assert_memory_equal(dst + 100, src + 10 * PAGE, 50);
	assert_memory_equal(dst + 150, src + 10 * PAGE + 100, 10);
}

/* Queued copies past the buffers' end: the flush counts what fitted. */
static void test_copy_ahead_short(void **state)
{
	struct iovec iov = { .iov_base = dst, .iov_len = 5 * PAGE + 7 };
	struct copy_ahead ca;
	struct iov_iter iter;
	int r;

	(void)state;
	memset(dst, 0xa5, 5 * PAGE + 8);
	iov_iter_init(&iter, &iov, 1, iov.iov_len);
	copy_ahead_init(&ca, &iter);
	for (r = 0; r < 6; r++)
		copy_ahead_add(&ca, src + (size_t)(40 - 7 * r) * PAGE, PAGE);
	assert_int_equal(copy_ahead_flush(&ca), 5 * PAGE + 7);
	for (r = 0; r < 5; r++)
		assert_memory_equal(dst + (size_t)r * PAGE,
				    src + (size_t)(40 - 7 * r) * PAGE, PAGE);
	assert_memory_equal(dst + 5 * PAGE, src + 5 * PAGE, 7);
	assert_int_equal(dst[5 * PAGE + 7], 0xa5);
	assert_int_equal(copy_ahead_flush(&ca), 0);
}

/* The group once with long copies prefetching page by page, once not. */
static int setup_prefetch(void **state)
{
	copy_prefetch_set(true);
	return setup(state);
}

static int setup_plain(void **state)
{
	copy_prefetch_set(false);
	return setup(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy_to_iter_lengths),
		cmocka_unit_test(test_copy_to_iter_offsets),
		cmocka_unit_test(test_iter_segments),
		cmocka_unit_test(test_iter_position),
		cmocka_unit_test(test_copy_to_iter_short_buffers),
		cmocka_unit_test(test_copy_ahead_runs),
		cmocka_unit_test(test_copy_ahead_join_last),
		cmocka_unit_test(test_copy_ahead_join_by_last_length),
		cmocka_unit_test(test_copy_ahead_depth),
		cmocka_unit_test(test_copy_ahead_short),
	};

	int failed;

	failed = cmocka_run_group_tests_name("prefetching", tests,
					     setup_prefetch, teardown);
	return failed | cmocka_run_group_tests_name("plain", tests,
						    setup_plain, teardown);
}
