// SPDX-License-Identifier: MIT
/*
 * mm/iov_iter.c - moving bytes between the page cache and the caller's
 * iovecs (see mm/iov_iter.h).
 *
 * The kernel keeps its iov_iter in lib/; this one lives in mm/ because
 * only the page cache's read and write paths use it.  Each helper walks
 * the segments with iov_iter_step(); the common case, a piece of a page
 * or less that fits in the current segment, is inline in mm/iov_iter.h,
 * so a read into one buffer costs one memcpy() or memset() per piece of
 * file, as a plain copy would.  Longer copies to the caller come here.
 * On Intel CPUs they go a page at a time with the pages ahead
 * prefetched, which beats one memcpy() of the whole run there when the
 * folios are not in the CPU's caches; a read that meets many folios
 * queues them (struct copy_ahead) so that it can prefetch across them
 * too.  Elsewhere (an AMD EPYC measured) prefetching loses, and a run
 * is one memcpy().
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "iov_iter.h"

size_t iov_iter_step(struct iov_iter *i, size_t bytes)
{
	size_t len;

	if (bytes > i->count)
		bytes = i->count;
	if (!bytes)
		return 0;
	/* Skip finished and empty segments; count > 0 means one is left. */
	while (i->iov_offset == i->iov->iov_len) {
		i->iov++;
		i->nr_segs--;
		i->iov_offset = 0;
	}
	len = i->iov->iov_len - i->iov_offset;
	return len < bytes ? len : bytes;
}

#define COPY_PAGE		((size_t)COPY_TO_ITER_INLINE_MAX)
#define COPY_CACHE_LINE		64

/*
 * What copy_ahead_prefetch() asks for before a source page is copied, in
 * bytes of the page chunks queued after it (entry k - 1 for the k-th):
 * the next 1 KiB of the next page, the next 512 of the page two on, the
 * first 512 of the page three on.  By the time a page is copied its
 * first half has been asked for, in three steps, the first lines
 * earliest; past that the CPU's stream prefetcher keeps up on its own.
 *
 * Measured on this project's 2-core Xeon VM (AVX-512, ERMS/FSRM) with
 * stand-alone loops through 1 GiB, medians of 3 to 7 interleaved rounds.
 * Copying 64 KiB or 1 MiB at a time: one memcpy() 10.5 and 10.1 GiB/s;
 * this plan 13.8 and 13.6; the next page's first half alone 12.4 and
 * 11.0; the whole next page 10.7 and 10.0; each page copied in 1 KiB or
 * 2 KiB pieces, a part of the next page prefetched before each piece,
 * 10.2-10.5 and 9.5-9.7.  Copying pages in random order, 16 or 256 at a
 * time: 9.8 and 9.3 GiB/s without prefetching, 12.5 and 12.0 with this
 * plan.
 *
 * The price is paid when the source is in the CPU's caches already: a
 * 256 KiB shmem file read over and over through upc_read() in 64 KiB and
 * 8 KiB blocks went from 39.7 and 68.5 GiB/s (one memcpy() per run) to
 * 36.5 and 64.4 (medians of three alternated runs).  Neither prefetching every
 * other line nor into L2 only won that back without losing the gain on
 * data in memory, which is what a page cache mostly copies.
 *
 * On a 2-core AMD EPYC VM (family 25, AVX-512, ERMS/FSRM) any of it
 * loses: copying 1 GiB 64 KiB or 1 MiB at a time (best of 5 interleaved
 * rounds, two runs): one memcpy() 14.9-15.7 and 16.3-19.8 GiB/s, page
 * by page 15.3-15.8 and 14.8-18.0, this plan 13.3-13.9 and 11.8-15.1,
 * the next page's first two lines 15.4 and 14.6, its first 512 bytes
 * 15.2 and 13.2.  So the plan is used on Intel CPUs, where it was
 * measured to win, and elsewhere a run is copied with one memcpy()
 * (copy_prefetch_on()).
 */
static const struct {
	unsigned int from, to;	/* byte range of the page */
} copy_prefetch_plan[] = {
	{ 1024, 2048 },
	{ 512, 1024 },
	{ 0, 512 },
};

#define COPY_PLAN_PAGES	\
	(sizeof(copy_prefetch_plan) / sizeof(copy_prefetch_plan[0]))

/* copy_prefetch_on()'s answer: -1 until asked, then 0 or 1. */
static int copy_prefetch_state = -1;

/* Whether this CPU is one the prefetch plan was measured to help. */
static bool copy_prefetch_wanted(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_cpu_init();
	return __builtin_cpu_is("intel");
#else
	return false;
#endif
}

/*
 * copy_prefetch_on() - Whether long copies go a page at a time by
 * copy_prefetch_plan (see above), or a run at a time with no prefetch.
 * Threads asking at once all get the same answer, so the race is benign.
 */
static bool copy_prefetch_on(void)
{
	int on = __atomic_load_n(&copy_prefetch_state, __ATOMIC_RELAXED);

	if (on < 0) {
		on = copy_prefetch_wanted();
		__atomic_store_n(&copy_prefetch_state, on, __ATOMIC_RELAXED);
	}
	return on;
}

void copy_prefetch_set(bool on)
{
	__atomic_store_n(&copy_prefetch_state, on, __ATOMIC_RELAXED);
}

/* The start of the source page after the one holding @p. */
static const char *copy_next_page(const char *p)
{
	return (const char *)(((uintptr_t)p & ~(uintptr_t)(COPY_PAGE - 1)) +
			      COPY_PAGE);
}

/*
 * copy_ahead_prefetch() - Prefetch, by copy_prefetch_plan, the page
 * chunks queued after the one that ends at @end in the first run.  A
 * chunk is a run's part inside one source page; nothing outside the
 * queued runs is prefetched.
 */
static void copy_ahead_prefetch(const struct copy_ahead *ca, const char *end)
{
	const char *p = end;
	unsigned int r = 0, k = 0;

	while (k < COPY_PLAN_PAGES) {
		const char *run_end = ca->run[r].src + ca->run[r].len;
		const char *from, *to;

		if (p >= run_end) {
			if (++r == ca->nr)
				break;
			p = ca->run[r].src;
			continue;
		}
		from = p + copy_prefetch_plan[k].from;
		to = p + copy_prefetch_plan[k].to;
		if (to > run_end)
			to = run_end;
		for (; from < to; from += COPY_CACHE_LINE)
			__builtin_prefetch(from, 0, 3);
		p = copy_next_page(p);
		k++;
	}
}

/* Copy @bytes from @from to @i, one memcpy() per segment it meets. */
static size_t copy_to_iter_plain(const char *from, size_t bytes,
				 struct iov_iter *i)
{
	size_t done = 0, len;

	while ((len = iov_iter_step(i, bytes - done))) {
		memcpy(iov_iter_base(i), from + done, len);
		iov_iter_advance_step(i, len);
		done += len;
	}
	return done;
}

/*
 * copy_ahead_pages() - Copy the first queued run, [@src, @end), a source
 * page chunk at a time, each after prefetching what is queued after it.
 */
static void copy_ahead_pages(struct copy_ahead *ca, const char *src,
			     const char *end)
{
	while (src < end) {
		const char *chunk_end = copy_next_page(src);

		if (chunk_end > end)
			chunk_end = end;
		copy_ahead_prefetch(ca, chunk_end);
		ca->copied += copy_to_iter(src, (size_t)(chunk_end - src),
					   ca->iter);
		src = chunk_end;
	}
}

/*
 * copy_ahead_pop() - Copy the first queued run to the iterator, page by
 * page with prefetching (copy_ahead_pages()) or, without
 * copy_prefetch_on(), all at once; then drop the run from the queue.
 */
static void copy_ahead_pop(struct copy_ahead *ca)
{
	const char *src = ca->run[0].src;

	if (copy_prefetch_on())
		copy_ahead_pages(ca, src, src + ca->run[0].len);
	else
		ca->copied += copy_to_iter_plain(src, ca->run[0].len, ca->iter);
	ca->nr--;
	memmove(&ca->run[0], &ca->run[1], ca->nr * sizeof(ca->run[0]));
}

void copy_ahead_add(struct copy_ahead *ca, const void *src, size_t len)
{
	if (!len)
		return;
	if (ca->nr && (const char *)src ==
		      ca->run[ca->nr - 1].src + ca->run[ca->nr - 1].len) {
		ca->run[ca->nr - 1].len += len;
		return;
	}
	if (ca->nr == COPY_AHEAD_RUNS)
		copy_ahead_pop(ca);
	if (copy_prefetch_on())
		__builtin_prefetch(src, 0, 3);
	ca->run[ca->nr].src = src;
	ca->run[ca->nr].len = len;
	ca->nr++;
}

size_t copy_ahead_flush(struct copy_ahead *ca)
{
	size_t copied;

	while (ca->nr)
		copy_ahead_pop(ca);
	copied = ca->copied;
	ca->copied = 0;
	return copied;
}

size_t copy_to_iter_segs(const void *from, size_t bytes, struct iov_iter *i)
{
	if (bytes > COPY_TO_ITER_INLINE_MAX) {
		struct copy_ahead ca;

		copy_ahead_init(&ca, i);
		copy_ahead_add(&ca, from, bytes);
		return copy_ahead_flush(&ca);
	}
	return copy_to_iter_plain(from, bytes, i);
}

size_t copy_from_iter_segs(void *to, size_t bytes, struct iov_iter *i)
{
	char *dst = to;
	size_t done = 0, len;

	while ((len = iov_iter_step(i, bytes - done))) {
		memcpy(dst + done, iov_iter_base(i), len);
		iov_iter_advance_step(i, len);
		done += len;
	}
	return done;
}

size_t iov_iter_zero_segs(size_t bytes, struct iov_iter *i)
{
	size_t done = 0, len;

	while ((len = iov_iter_step(i, bytes - done))) {
		memset(iov_iter_base(i), 0, len);
		iov_iter_advance_step(i, len);
		done += len;
	}
	return done;
}
