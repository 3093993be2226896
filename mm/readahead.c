// SPDX-License-Identifier: MIT
/*
 * mm/readahead.c - reading pages of a file before they are asked for.
 *
 * Follows the kernel's mm/readahead.c (Linux 6.x) in its ideas, not its
 * code: no asynchronous readahead (PG_readahead).
 *
 * A read that misses costs a trip to the backing store; a reader going
 * through a file in order would pay it for every page.  Readahead reads
 * a window of pages in one go instead, and grows the window while the
 * reader stays sequential, as the kernel's mm/readahead.c does.  This
 * version is synchronous only: the window is read when the reader
 * misses, never in the background, so a sequential stream misses once
 * per window rather than once per page.
 *
 * Two parts:
 *
 *  - page_cache_ra_unbounded(): the mechanism.  For each page of a range
 *    not in the cache (nothing, or a shadow), allocate a folio, add it
 *    locked and not uptodate (readers of that page now wait on its
 *    lock instead of reading it too), and hand runs of consecutive new
 *    folios to the mapping's a_ops->readahead (one request for the run:
 *    a preadv(), for a file) or, without one, to read_folio a folio at a
 *    time.  Cached pages split runs, and so does a page another thread
 *    added meanwhile.  It stops at the first folio it cannot allocate:
 *    readahead is a hint, the reader's own miss path still reads what
 *    it needs.
 *  - page_cache_sync_ra(): the policy, per open file (struct
 *    file_ra_state).  A miss at the start of the file starts a stream
 *    with four times the request; a miss right where the last window
 *    ended continues it with the window doubled.  Any other miss reads
 *    just the request's pages, so random readers read nothing they did
 *    not ask for.  Every window is capped (ra_max_pages()), whatever
 *    the request: a read larger than the cache must not read ahead
 *    pages that reclaim evicts before they are copied; the rest of the
 *    request misses where the window ended and continues the stream.
 *
 * The state is a hint shared by the file's readers without a lock (as in
 * the kernel, where racing readers may skew it): its fields are read and
 * written with relaxed atomics, and a skewed window only costs a larger
 * or smaller read.
 */
#include "filemap_internal.h"

/*
 * Largest window: 512 KiB, the kernel's default read_ahead_kb (128) is
 * smaller; a userspace cache pays a system call per window, not a bio.
 */
#define RA_MAX_PAGES	128UL

/*
 * How much larger each window of a stream makes its folios (in orders,
 * as the kernel's page_cache_ra_order() grows them): 0, 2, 4 ... up to
 * the window's size.
 */
#define RA_ORDER_STEP	2u

/* The window's cap: RA_MAX_PAGES, and an eighth of the cache's memory. */
static unsigned long ra_max_pages(struct address_space *mapping)
{
	unsigned long cap = upc_arena_limit(mapping->arena) / 8;

	if (cap > RA_MAX_PAGES)
		cap = RA_MAX_PAGES;
	return cap ? cap : 1;
}

/* Read a run of new, locked folios with consecutive indices. */
static void ra_read_run(struct address_space *mapping, struct folio **folios,
			unsigned int nr)
{
	unsigned int i;

	if (!nr)
		return;
	if (mapping->a_ops->readahead)
		mapping->a_ops->readahead(mapping, folios, nr);
	else
		for (i = 0; i < nr; i++)
			mapping->a_ops->read_folio(mapping, folios[i]);
	/* The cache holds them now; ours were the allocation's. */
	for (i = 0; i < nr; i++)
		folio_put(folios[i]);
}

/*
 * Allocate and add a locked folio of @order at @index.  A large one the
 * arena cannot give, or that meets a cached page in its range, becomes
 * an order-0 folio (readahead is worth doing small).  Return: it; or
 * NULL with the error in *@err (-EEXIST: a folio is already at @index).
 */
static struct folio *ra_add_folio(struct address_space *mapping, pgoff_t index,
				  unsigned int order, int *err)
{
	struct folio *folio = filemap_alloc_folio(mapping, GFP_KERNEL, order);

	if (!folio && order)
		return ra_add_folio(mapping, index, 0, err);
	*err = -ENOMEM;
	if (!folio)
		return NULL;
	folio_trylock(folio);	/* nobody else can see it yet */
	*err = filemap_add_folio(mapping, folio, index, GFP_KERNEL);
	if (*err) {
		folio_unlock(folio);
		folio_put(folio);
		if (order && *err == -EEXIST)
			return ra_add_folio(mapping, index, 0, err);
		return NULL;
	}
	return folio;
}

/*
 * The order of the folio to read at @index, at most @order: aligned to
 * its size, and inside [@index, @end].
 */
static unsigned int ra_folio_order(pgoff_t index, pgoff_t end,
				   unsigned int order)
{
	while (order && ((index & ((1UL << order) - 1)) ||
			 end - index < (1UL << order) - 1))
		order--;
	return order;
}

/*
 * page_cache_ra_unbounded() with folios of up to @order pages where the
 * mapping caches large folios: the kernel's page_cache_ra_order().
 */
static void ra_read_range(struct address_space *mapping, pgoff_t index,
			  unsigned long nr, unsigned int order)
{
	struct folio *run[FOLIO_BATCH_SIZE];
	unsigned int n = 0;
	pgoff_t end;
	int err;

	if (!mapping->a_ops || !mapping->a_ops->read_folio || !nr)
		return;
	if (!mapping_large_folio_support(mapping))
		order = 0;
	end = index + nr - 1 < index || index + nr - 1 > MAX_PAGECACHE_INDEX ?
	      MAX_PAGECACHE_INDEX : index + nr - 1;
	while (index <= end) {
		void *entry = filemap_get_entry(mapping, index);
		struct folio *folio;
		pgoff_t next = index + 1;

		if (entry && !xa_is_value(entry)) {
			/* Cached: the run ends here, and goes on after it. */
			folio = entry;
			next = folio->index + folio_nr_pages(folio);
			folio_put(folio);
			ra_read_run(mapping, run, n);
			n = 0;
		} else {
			folio = ra_add_folio(mapping, index,
					     ra_folio_order(index, end, order),
					     &err);
			if (!folio) {
				ra_read_run(mapping, run, n);
				n = 0;
				/* Added by another thread: go on past it. */
				if (err != -EEXIST)
					break;
			} else {
				next = index + folio_nr_pages(folio);
				run[n++] = folio;
				if (n == FOLIO_BATCH_SIZE) {
					ra_read_run(mapping, run, n);
					n = 0;
				}
			}
		}
		if (next <= index)	/* the end of the index space */
			break;
		index = next;
	}
	ra_read_run(mapping, run, n);
}

void page_cache_ra_unbounded(struct address_space *mapping, pgoff_t index,
			     unsigned long nr)
{
	ra_read_range(mapping, index, nr, 0);
}

void page_cache_sync_ra(struct address_space *mapping,
			struct file_ra_state *ra, pgoff_t index,
			unsigned long req_count)
{
	unsigned long size = __atomic_load_n(&ra->size, __ATOMIC_RELAXED);
	pgoff_t next = __atomic_load_n(&ra->next, __ATOMIC_RELAXED);
	unsigned int order = __atomic_load_n(&ra->order, __ATOMIC_RELAXED);
	int64_t isize = __atomic_load_n(&mapping->size, __ATOMIC_ACQUIRE);
	unsigned long max = ra_max_pages(mapping);
	bool stream = true;
	pgoff_t last;

	if (!req_count || isize <= 0)
		return;
	if (index == 0) {
		size = 4 * req_count;		/* a stream starts */
		order = 0;
	} else if (index == next && size) {
		size *= 2;			/* it goes on */
		order += RA_ORDER_STEP;
	} else if (index == next) {
		size = 4 * req_count;		/* after a random read */
		order = 0;
	} else {
		stream = false;
	}
	if (!stream || size < req_count)
		size = req_count;
	if (size > max)
		size = max;
	/* No folio larger than the window, nor than the largest kind. */
	if (!stream)
		order = 0;
	while (order && (1UL << order) > size)
		order--;
	if (order > UPC_MAX_ORDER)
		order = UPC_MAX_ORDER;
	/* Nothing past the last page of the file. */
	last = (pgoff_t)((isize - 1) >> UPC_PAGE_SHIFT);
	if (index > last)
		return;
	if (size > last - index + 1)
		size = last - index + 1;
	__atomic_store_n(&ra->size, stream ? size : 0, __ATOMIC_RELAXED);
	__atomic_store_n(&ra->next, index + size, __ATOMIC_RELAXED);
	__atomic_store_n(&ra->order, order, __ATOMIC_RELAXED);
	ra_read_range(mapping, index, size, order);
}
