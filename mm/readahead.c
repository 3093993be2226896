// SPDX-License-Identifier: MIT
/*
 * mm/readahead.c - reading pages of a file before they are asked for.
 *
 * Follows the kernel's mm/readahead.c (Linux 6.x) in its ideas, not its
 * code.
 *
 * A read that misses costs a trip to the backing store; a reader going
 * through a file in order would pay it for every page.  Readahead reads
 * a window of pages in one go instead, grows the window while the
 * reader stays sequential, and reads the window's pages past the
 * request in the background, so that the reader copies what it has
 * while the next pages come in, as the kernel's mm/readahead.c does.
 *
 * Three parts:
 *
 *  - page_cache_ra_unbounded() (ra_read_range()): the mechanism.  For
 *    each page of a range not in the cache (nothing, or a shadow),
 *    allocate a folio, add it locked and not uptodate (readers of that
 *    page now wait on its lock instead of reading it too), and hand runs
 *    of consecutive new folios to the mapping's a_ops->readahead (one
 *    request for the run: a preadv(), for a file) or, without one, to
 *    read_folio a folio at a time.  Cached pages split runs, and so does
 *    a page another thread added meanwhile.  It stops at the first folio
 *    it cannot allocate with one round of reclaim (__GFP_NORETRY, as the
 *    kernel's readahead): readahead is a hint, and the folios it holds
 *    locked meanwhile must not wait for memory; the reader's own miss
 *    path still reads what it needs, and may wait.
 *  - The workers: the runs of a window's async part go to a small pool
 *    of threads (lib/workqueue.c), the userspace stand-in for the
 *    kernel's bios completing on their own.  A worker reads the run and
 *    unlocks its folios; a reader that needs one meanwhile sleeps on its
 *    lock, as it would on a folio under I/O in the kernel.  Queued runs
 *    count as I/O under way (reclaim_io_start()): many streams can hold
 *    most of a small cache locked in them, and an allocation that finds
 *    nothing else to reclaim then waits for one to be read instead of
 *    failing.  The worker takes no lock but the folios' (they are
 *    already locked) and what the mapping's read takes, so it never
 *    waits on a reader.  A run no worker can take (no memory, no
 *    thread) is read by the caller.
 *  - The policy, per open file (struct file_ra_state).  A miss at the
 *    start of the file starts a stream with four times the request; a
 *    miss right where the last window ended continues it with the
 *    window doubled.  Any other miss reads just the request's pages, so
 *    random readers read nothing they did not ask for.  Every window
 *    is capped (ra_max_pages(): 512 KiB for a stream's, 1 MiB for a
 *    request read alone), whatever the request: a read larger than
 *    the cache must not read ahead pages that reclaim evicts before
 *    they are copied.  Where the mapping asks for it
 *    (AS_ASYNC_READAHEAD), a stream's window is read in two parts: the
 *    request before returning (page_cache_sync_ra()), the rest by the
 *    workers, its first folio marked PG_readahead; a reader that meets
 *    the mark sends the next window, twice the size, to the workers
 *    (page_cache_async_ra()), so the stream stays a window ahead of
 *    it, and a request that takes the whole window sends the next
 *    window at once.  Otherwise the whole window is read before
 *    returning.
 *
 *    Which mappings ask: handing a run to another thread costs two
 *    wake-ups (the worker's, and the reader's if it reaches a folio the
 *    worker still holds).  That pays where the read waits for a device
 *    and nothing below reads ahead (an O_DIRECT file): a sequential
 *    reader that works 100 us on each 128 KiB it reads (fio's
 *    thinktime_spin=) read 1.56x as fast with it.  A buffered file's
 *    reads copy from the kernel's page cache, which reads ahead
 *    itself: the same reader gained 4%, and one that only copies ran
 *    18-25% slower with the copy on a worker (upcache-bench run,
 *    256 MiB file, 64 MiB cache, this 2-CPU machine).
 *
 * The state is a hint shared by the file's readers without a lock (as in
 * the kernel, where racing readers may skew it): its fields are read and
 * written with relaxed atomics, and a skewed window only costs a larger
 * or smaller read, or a miss where a mark was lost.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "filemap_internal.h"
#include "lru_internal.h"
#include "workqueue.h"

/*
 * Largest window of a stream: 512 KiB, the kernel's default
 * read_ahead_kb (128) is smaller; a userspace cache pays a system call
 * per window, not a bio.  Larger windows read no faster from a
 * buffered file and copied out slower (the window no longer stays in
 * the CPU's caches until the reader gets to it).
 */
#define RA_MAX_PAGES	128UL

/*
 * Largest window for a request read alone (not a stream): one run, so
 * that a random 1 MiB read of an O_DIRECT file is one trip to the
 * device, as the kernel's own direct read is, not two.
 */
#define RA_MAX_REQUEST_PAGES	((unsigned long)READAHEAD_MAX_RUN)

/*
 * How much larger each window of a stream makes its folios (in orders,
 * as the kernel's page_cache_ra_order() grows them): 0, 2, 4 ... up to
 * the window's size.
 */
#define RA_ORDER_STEP	2u

/*
 * Threads reading async windows, for every mapping: a few, so that one
 * slow device's window does not hold up another's.
 */
#define RA_WORKERS	4u

/* No folio was marked PG_readahead. */
#define RA_NO_MARK	((pgoff_t)-1)

/*
 * The window's cap: @max (RA_MAX_PAGES or RA_MAX_REQUEST_PAGES), and an
 * eighth of the cache's memory.
 */
static unsigned long ra_max_pages(struct address_space *mapping,
				  unsigned long max)
{
	unsigned long cap = upc_arena_limit(mapping->arena) / 8;

	if (cap > max)
		cap = max;
	return cap ? cap : 1;
}

/*
 * Read a run of new, locked folios with consecutive indices.  Our
 * references (the allocation's) go first: while a folio is locked the
 * cache's reference keeps it (nothing removes a folio without its
 * lock), and once the read unlocks it nothing here touches it again,
 * so closing the file frees it as soon as the read is done, as the
 * kernel's readahead_folio() drops the caller's reference.
 */
static void ra_submit_run(struct address_space *mapping, struct folio **folios,
			  unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		folio_put(folios[i]);
	if (mapping->a_ops->readahead)
		mapping->a_ops->readahead(mapping, folios, nr);
	else
		for (i = 0; i < nr; i++)
			mapping->a_ops->read_folio(mapping, folios[i]);
}

/**
 * struct ra_work - a run of folios an async window hands to a worker.
 * @work: The queue's part.
 * @mapping: Their mapping.
 * @lruvec: Where the run counts as I/O under way (reclaim_io_start()).
 * @nr: How many.
 * @folios: The run: locked, not uptodate, each with the allocation's
 *	reference, which the worker drops before it reads them.
 */
struct ra_work {
	struct work_struct work;
	struct address_space *mapping;
	struct lruvec *lruvec;
	unsigned int nr;
	struct folio *folios[READAHEAD_MAX_RUN];
};

/* The workers that read async windows: made on first use. */
static struct workqueue_struct *ra_wq;

static void ra_work_fn(struct work_struct *work)
{
	struct ra_work *w = (struct ra_work *)work;

	ra_submit_run(w->mapping, w->folios, w->nr);
	/* The lruvec outlives us: upc_reclaim_destroy() flushes the queue. */
	reclaim_io_end(w->lruvec);
	free(w);
}

/*
 * Hand a run to a worker.  Return: 0, or -errno when it could not be
 * (no memory, no worker): the caller reads it itself.
 */
static int ra_queue_run(struct address_space *mapping, struct folio **folios,
			unsigned int nr)
{
	struct workqueue_struct *wq = alloc_workqueue_once(&ra_wq, RA_WORKERS);
	struct ra_work *w;
	int err;

	if (!wq || upc_fault_should_fail())
		return -ENOMEM;
	w = malloc(sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->work.func = ra_work_fn;
	w->mapping = mapping;
	w->nr = nr;
	memcpy(w->folios, folios, nr * sizeof(*folios));
	/* Counted first: the worker may be done before queue_work() returns. */
	w->lruvec = reclaim_io_start(mapping->arena);
	err = queue_work(wq, &w->work);
	if (err) {
		reclaim_io_end(w->lruvec);
		free(w);
	}
	return err;
}

/*
 * Read a run now, or, @async, on a worker where one can take it.  Read
 * here, it counts as I/O under way too: the read needs no memory, so
 * reclaimers may wait for it.
 */
static void ra_read_run(struct address_space *mapping, struct folio **folios,
			unsigned int nr, bool async)
{
	struct lruvec *lruvec;

	if (!nr)
		return;
	if (async && !ra_queue_run(mapping, folios, nr))
		return;
	lruvec = reclaim_io_start(mapping->arena);
	ra_submit_run(mapping, folios, nr);
	reclaim_io_end(lruvec);
}

void readahead_flush(void)
{
	flush_workqueue(__atomic_load_n(&ra_wq, __ATOMIC_ACQUIRE));
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
	/* A hint: one round of reclaim, not the waits of a reader's miss. */
	struct folio *folio = filemap_alloc_folio(mapping,
						  GFP_KERNEL | __GFP_NORETRY,
						  order);

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
 * mapping caches large folios (the kernel's page_cache_ra_order()), and
 * the folios from @async_from on read by workers, the first of them
 * marked PG_readahead: a reader that reaches it starts the next window
 * (page_cache_async_ra()).  The folios before @async_from are read
 * before returning, the last run of them once the rest is queued, so
 * that the workers read while the caller does.
 * Return: the index of the marked folio, or RA_NO_MARK.
 */
static pgoff_t ra_read_range(struct address_space *mapping, pgoff_t index,
			     unsigned long nr, unsigned int order,
			     pgoff_t async_from)
{
	struct folio *run[READAHEAD_MAX_RUN], *first[READAHEAD_MAX_RUN];
	unsigned int n = 0, nfirst = 0;
	pgoff_t end, marked = RA_NO_MARK;
	bool async = false;
	int err;

	if (!mapping->a_ops || !mapping->a_ops->read_folio || !nr)
		return RA_NO_MARK;
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
			ra_read_run(mapping, run, n, async);
			n = 0;
		} else {
			folio = ra_add_folio(mapping, index,
					     ra_folio_order(index, end, order),
					     &err);
			if (!folio) {
				ra_read_run(mapping, run, n, async);
				n = 0;
				/* Added by another thread: go on past it. */
				if (err != -EEXIST)
					break;
			} else {
				if (!async && folio->index >= async_from) {
					/* Read last, the workers busy. */
					memcpy(first, run, n * sizeof(*run));
					nfirst = n;
					n = 0;
					async = true;
					folio_set_readahead(folio);
					marked = folio->index;
				}
				next = index + folio_nr_pages(folio);
				run[n++] = folio;
				if (n == READAHEAD_MAX_RUN) {
					ra_read_run(mapping, run, n, async);
					n = 0;
				}
			}
		}
		if (next <= index)	/* the end of the index space */
			break;
		index = next;
	}
	ra_read_run(mapping, run, n, async);
	ra_read_run(mapping, first, nfirst, false);
	return marked;
}

void page_cache_ra_unbounded(struct address_space *mapping, pgoff_t index,
			     unsigned long nr)
{
	ra_read_range(mapping, index, nr, 0, RA_NO_MARK);
}

/*
 * Fit a window of @size pages at @index: at most ra_max_pages() (a
 * stream's cap, RA_MAX_PAGES, if @stream), nothing past the file's last
 * page, folios (*@order) no larger than the window nor the largest
 * kind.  Return: its size, 0 if @index is past the end of the file.
 */
static unsigned long ra_fit_window(struct address_space *mapping,
				   pgoff_t index, unsigned long size,
				   unsigned int *order, bool stream)
{
	int64_t isize = __atomic_load_n(&mapping->size, __ATOMIC_ACQUIRE);
	unsigned long max = ra_max_pages(mapping, stream ? RA_MAX_PAGES :
					 RA_MAX_REQUEST_PAGES);
	pgoff_t last;

	if (size > max)
		size = max;
	while (*order && (1UL << *order) > size)
		(*order)--;
	if (*order > UPC_MAX_ORDER)
		*order = UPC_MAX_ORDER;
	if (isize <= 0)
		return 0;
	last = (pgoff_t)((isize - 1) >> UPC_PAGE_SHIFT);
	if (index > last)
		return 0;
	return size > last - index + 1 ? last - index + 1 : size;
}

/*
 * Record a window of @size pages at @start in @ra (@stream: the size a
 * stream's next window doubles; else 0) and read it, the folios from
 * @async_from on by workers (RA_NO_MARK: none).  The expected mark is
 * recorded first, for a reader that meets it while the rest is added;
 * the one really set (none, if that page was cached) once it is.
 */
static void ra_read_window(struct address_space *mapping,
			   struct file_ra_state *ra, pgoff_t start,
			   unsigned long size, unsigned int order, bool stream,
			   pgoff_t async_from)
{
	pgoff_t mark;

	__atomic_store_n(&ra->size, stream ? size : 0, __ATOMIC_RELAXED);
	__atomic_store_n(&ra->next, start + size, __ATOMIC_RELAXED);
	__atomic_store_n(&ra->order, order, __ATOMIC_RELAXED);
	__atomic_store_n(&ra->mark, async_from, __ATOMIC_RELAXED);
	mark = ra_read_range(mapping, start, size, order, async_from);
	if (mark != async_from)
		__atomic_store_n(&ra->mark, mark, __ATOMIC_RELAXED);
}

/*
 * The window after a stream's last one (@prev pages of order
 * @prev_order), at @start: twice the size, folios two orders larger,
 * all of it read by workers, its first folio marked.
 */
static void ra_next_window(struct address_space *mapping,
			   struct file_ra_state *ra, pgoff_t start,
			   unsigned long prev, unsigned int prev_order)
{
	unsigned int order = prev_order + RA_ORDER_STEP;
	unsigned long size = ra_fit_window(mapping, start, 2 * prev, &order,
					   true);

	if (size)
		ra_read_window(mapping, ra, start, size, order, true, start);
}

void page_cache_sync_ra(struct address_space *mapping,
			struct file_ra_state *ra, pgoff_t index,
			unsigned long req_count)
{
	unsigned long size = __atomic_load_n(&ra->size, __ATOMIC_RELAXED);
	pgoff_t next = __atomic_load_n(&ra->next, __ATOMIC_RELAXED);
	unsigned int order = __atomic_load_n(&ra->order, __ATOMIC_RELAXED);
	bool stream = true;

	if (!req_count)
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
		order = 0;
	}
	if (!stream || size < req_count)
		size = req_count;
	size = ra_fit_window(mapping, index, size, &order, stream);
	if (!size)
		return;
	if (!stream || !mapping_async_readahead(mapping)) {
		ra_read_window(mapping, ra, index, size, order, stream,
			       RA_NO_MARK);
	} else if (req_count < size) {
		/* The request now, the rest of the window by workers. */
		ra_read_window(mapping, ra, index, size, order, true,
			       index + req_count);
	} else {
		/* The request takes the window: the next one goes out too. */
		ra_next_window(mapping, ra, index + size, size, order);
		ra_read_range(mapping, index, size, order, RA_NO_MARK);
	}
}

void page_cache_async_ra(struct address_space *mapping,
			 struct file_ra_state *ra, struct folio *folio)
{
	pgoff_t mark = __atomic_load_n(&ra->mark, __ATOMIC_RELAXED);
	unsigned long size = __atomic_load_n(&ra->size, __ATOMIC_RELAXED);

	if (!folio_test_clear_readahead(folio))
		return;
	/* Another stream's, or one the state forgot: the next miss decides. */
	if (folio->index != mark || !size)
		return;
	ra_next_window(mapping, ra, __atomic_load_n(&ra->next, __ATOMIC_RELAXED),
		       size, __atomic_load_n(&ra->order, __ATOMIC_RELAXED));
}
