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
 * file, as a plain copy would.  Longer copies to the caller come here,
 * and go a page at a time with the pages ahead prefetched, which beats
 * one memcpy() of the whole run when the folios are not in the CPU's
 * caches (copy_prefetching()).
 */
#include <stdint.h>

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

#define COPY_CACHE_LINE		64

/*
 * What copy_prefetching() asks for before it copies a source page, in
 * bytes of the pages that follow it: the first 512 of the page three on,
 * the next 512 of the page two on, the next 1 KiB of the next page.  By
 * the time a page is copied its first half has been asked for, in three
 * steps, the first lines earliest; past that the CPU's stream prefetcher
 * keeps up on its own.
 *
 * Measured on this project's 2-core Xeon VM (AVX-512, ERMS/FSRM) with a
 * stand-alone loop copying 64 KiB or 1 MiB at a time through 1 GiB, 5
 * interleaved rounds: one memcpy() 10.5 and 10.1 GiB/s; this plan 13.8
 * and 13.6; the next page's first half alone 12.7 and 11.3; the whole
 * next page 10.7 and 10.0; the same plan with each page copied in 1 KiB
 * or 2 KiB pieces, below one memcpy().
 */
static const struct {
	unsigned int page;	/* pages after the one being copied */
	unsigned int from, to;	/* byte range of that page */
} copy_prefetch_plan[] = {
	{ 3, 0, 512 },
	{ 2, 512, 1024 },
	{ 1, 1024, 2048 },
};

/*
 * copy_page_ahead() - Copy @len bytes, a source page's part, from @src to
 * @dst, asking first for the @left bytes after it by copy_prefetch_plan.
 *
 * The prefetches and the copy stay in one function on purpose: GCC 12
 * takes a function that only prefetches for one without side effects
 * and deletes its calls.
 */
static void copy_page_ahead(char *dst, const char *src, size_t len,
			    size_t left)
{
	const char *next = src + len;
	size_t step;

	for (step = 0; step < sizeof(copy_prefetch_plan) /
			      sizeof(copy_prefetch_plan[0]); step++) {
		size_t page = (copy_prefetch_plan[step].page - 1) *
			      (size_t)COPY_TO_ITER_INLINE_MAX;
		size_t off = page + copy_prefetch_plan[step].from;
		size_t end = page + copy_prefetch_plan[step].to;

		if (end > left)
			end = left;
		for (; off < end; off += COPY_CACHE_LINE)
			__builtin_prefetch(next + off, 0, 3);
	}
	memcpy(dst, src, len);
}

/*
 * copy_prefetching() - memcpy() a source page at a time, asking for the
 * pages ahead (copy_prefetch_plan) before each page is copied.
 *
 * A read copies folios that are rarely in the CPU's caches, and the
 * CPU's stream prefetcher stops at every 4 KiB page of the source: each
 * page begins with misses that nothing asked for in advance, inside one
 * memcpy() of many pages too.  Asking ahead of time hides them.  Only
 * bytes inside [@src, @src + @n) are prefetched.
 */
static void copy_prefetching(char *dst, const char *src, size_t n)
{
	size_t len = COPY_TO_ITER_INLINE_MAX -
		     ((uintptr_t)src & (COPY_TO_ITER_INLINE_MAX - 1));

	while (n > len) {
		copy_page_ahead(dst, src, len, n - len);
		dst += len;
		src += len;
		n -= len;
		len = COPY_TO_ITER_INLINE_MAX;
	}
	copy_page_ahead(dst, src, n, 0);
}

size_t copy_to_iter_segs(const void *from, size_t bytes, struct iov_iter *i)
{
	const char *src = from;
	size_t done = 0, len;

	while ((len = iov_iter_step(i, bytes - done))) {
		copy_prefetching(iov_iter_base(i), src + done, len);
		iov_iter_advance_step(i, len);
		done += len;
	}
	return done;
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
