// SPDX-License-Identifier: MIT
/*
 * mm/page_writeback.c - writing a mapping's dirty folios back on demand
 * (sync and fsync) and in the background (mm/writeback.h), and
 * reporting what failed.
 *
 * Follows the kernel's write_cache_pages(), __filemap_fdatawait_range()
 * and file_write_and_wait_range() (Linux 6.x, mm/page-writeback.c and
 * mm/filemap.c).  A mapping's writeback_folio hook is synchronous, so a
 * pass's own writes are done when it returns; what an fsync must still
 * wait for is reclaim, which writes dirty folios back too (mm/vmscan.c,
 * to evict them), and another thread's pass (a background one's, or
 * another fsync's), which have cleared their dirty bit and tag first:
 * the pass does not see them, and returning before their write
 * ends would call data durable that is not yet written.  Hence "write,
 * then wait for PG_writeback in the range, then check the error".
 * All writers follow the same protocol on a locked folio:
 *
 *  1. folio_clear_dirty_set_writeback(): the dirty bit goes first, so
 *     a write landing while the folio is written dirties it again and is
 *     written by the next pass, never lost; then PG_writeback; then, for
 *     all the folios written together under one i_pages lock round trip
 *     (folios_tag_writeback()), the writeback tag set and only then the
 *     dirty tag cleared, so that a pass always finds the folio by one
 *     tag or the other (until then it has its dirty tag, and its lock
 *     keeps a sync pass that finds it by that tag waiting);
 *  2. the hook, then folios_end_writeback() for all of them;
 *     a pass hands the dirty folios it has locked to the hook together
 *     (writeback_folios), up to WRITEBACK_MAX_RUN of them across lookup
 *     batches, so that a backing store can send them as a few large
 *     requests, or all at once (a dirty 1 MiB of order-0 folios is one
 *     pwritev() for a file, not one per lookup batch of 31 pages);
 *  3. on failure the folio is dirtied again (its data is still the only
 *     copy) and the error is recorded on the mapping (mapping_set_error()),
 *     both before PG_writeback is cleared, so that every open file
 *     reports it from its next fsync, and one waiting reports it now.
 *
 * Why the pass keeps going after an error: fsync promises the data that
 * could be written is written; one bad block must not hold the rest in
 * memory.  The first error is returned.
 */
#include <errno.h>
#include <pthread.h>

#include "filemap_internal.h"
#include "writeback.h"
#include "fault.h"

/*
 * Step 1's bits on a locked folio of @mapping; its tags follow for all
 * the folios written together (writeback_write_folios()).
 * Return: true if it was dirty and is now under writeback.
 */
static bool writeback_begin(struct folio *folio)
{
	/* Reclaim writes with the folio locked: no writeback is running. */
	return folio_clear_dirty_set_writeback(folio);
}

/* Step 1's tags, step 2, and step 3 on a failure: see filemap_internal.h. */
void writeback_write_folios(struct address_space *mapping,
			    struct folio **folios, unsigned int nr, int *errs)
{
	const struct address_space_operations *a_ops = mapping->a_ops;
	unsigned int i;

	folios_tag_writeback(folios, nr);
	if (a_ops->writeback_folios)
		a_ops->writeback_folios(mapping, folios, nr, errs);
	else
		for (i = 0; i < nr; i++)
			errs[i] = a_ops->writeback_folio(mapping, folios[i]);
	for (i = 0; i < nr; i++) {
		if (errs[i]) {
			folio_mark_dirty(folios[i]);
			mapping_set_error(mapping, errs[i]);
		}
	}
	folios_end_writeback(folios, nr);
}

/*
 * Write @nr locked folios of @mapping under writeback, in index order,
 * then unlock them and drop the references the pass took.  Return: 0 or
 * the first error.
 */
static int writeback_flush(struct address_space *mapping,
			   struct folio **folios, unsigned int nr)
{
	int errs[WRITEBACK_MAX_RUN];
	unsigned int i;
	int ret = 0;

	writeback_write_folios(mapping, folios, nr, errs);
	for (i = 0; i < nr; i++) {
		folio_unlock(folios[i]);
		folio_put(folios[i]);
		if (errs[i] && !ret)
			ret = errs[i];
	}
	return ret;
}

/* First and last page of a byte range (checked by the caller). */
static void wb_range(int64_t start, int64_t end, pgoff_t *index, pgoff_t *last)
{
	*index = (pgoff_t)start >> UPC_PAGE_SHIFT;
	*last = (pgoff_t)end >> UPC_PAGE_SHIFT;
}

/*
 * Lock a dirty folio of the batch for writeback, next to the folios
 * @locked already holds (@nr of them).  Folios are locked in index
 * order, but a lock held while sleeping on another could still meet a
 * holder of that one waiting for writeback of ours: so a folio that is
 * not free at once first sends what is held.  Return: 0 or the flush's
 * error; *@nr updated.
 */
static int writeback_lock(struct address_space *mapping, struct folio *folio,
			  struct folio **locked, unsigned int *nr)
{
	int err = 0;

	if (*nr && !folio_trylock(folio)) {
		err = writeback_flush(mapping, locked, *nr);
		*nr = 0;
	}
	if (!*nr)
		folio_lock(folio);
	return err;
}

/*
 * Does the pass take @folio, locked for it (*@nr folios already held in
 * @locked, written first where need be: *@nr updated)?  A sync pass
 * takes every dirty folio (writeback_lock()).  A flush leaves folios
 * others hold locked, and writes what it holds when @folio does not
 * follow it, so that a folio is locked only while its own stretch is
 * written: a writer rewriting scattered pages meets a locked one seldom.
 */
static bool writeback_take(struct address_space *mapping, struct folio *folio,
			   struct folio **locked, unsigned int *nr, bool flush,
			   int *ret)
{
	int err = 0;

	if (!flush) {
		err = writeback_lock(mapping, folio, locked, nr);
	} else {
		if (*nr && folio_next_index(locked[*nr - 1]) != folio->index) {
			err = writeback_flush(mapping, locked, *nr);
			*nr = 0;
		}
		if (!folio_trylock(folio))
			folio = NULL;
	}
	if (err && !*ret)
		*ret = err;
	return folio != NULL;
}

/*
 * The pass over [*@index, @last] keeps the folios it has locked across
 * lookup batches, each with a reference of its own, and writes them
 * when WRITEBACK_MAX_RUN are held, and at the end; and as
 * writeback_take() says.  With @budget, it stops once it has taken that
 * many pages (counted down), *@index then just after the last folio.
 */
static int write_cache_range(struct address_space *mapping, pgoff_t *index,
			     pgoff_t last, bool flush, unsigned long *budget)
{
	struct folio *locked[WRITEBACK_MAX_RUN];
	struct folio_batch fbatch;
	unsigned int i, nr = 0;
	int ret = 0, err;

	if (!mapping->a_ops || !mapping->a_ops->writeback_folio)
		return 0;
	folio_batch_init(&fbatch);
	while (*index <= last && (!budget || *budget) &&
	       filemap_get_folios_tag(mapping, index, last,
				      PAGECACHE_TAG_DIRTY, &fbatch)) {
		for (i = 0; i < folio_batch_count(&fbatch); i++) {
			struct folio *folio = fbatch.folios[i];

			if (!writeback_take(mapping, folio, locked, &nr, flush,
					    &ret))
				continue;
			/* Truncated since the lookup, or clean: not ours. */
			if (folio->mapping != mapping ||
			    !writeback_begin(folio)) {
				folio_unlock(folio);
				continue;
			}
			folio_get(folio);
			locked[nr++] = folio;
			if (nr == WRITEBACK_MAX_RUN) {
				err = writeback_flush(mapping, locked, nr);
				if (err && !ret)
					ret = err;
				nr = 0;
			}
			if (budget) {
				*budget -= *budget < folio_nr_pages(folio) ?
					   *budget : folio_nr_pages(folio);
				if (!*budget) {
					*index = folio_next_index(folio);
					break;
				}
			}
		}
		folio_batch_release(&fbatch);
	}
	if (nr) {
		err = writeback_flush(mapping, locked, nr);
		if (err && !ret)
			ret = err;
	}
	return ret;
}

int filemap_fdatawrite_range(struct address_space *mapping, int64_t start,
			     int64_t end)
{
	pgoff_t index, last;

	if (start < 0 || end < start)
		return -EINVAL;
	wb_range(start, end, &index, &last);
	return write_cache_range(mapping, &index, last, false, NULL);
}

int filemap_flush(struct address_space *mapping, pgoff_t *index,
		  unsigned long *nr_to_write)
{
	pgoff_t first, last;
	int ret;

	wb_range(0, INT64_MAX, &first, &last);
	ret = write_cache_range(mapping, index, last, true, nr_to_write);
	if (*nr_to_write)
		*index = 0;	/* the end: the next starts over */
	return ret;
}

int filemap_fdatawait_range(struct address_space *mapping, int64_t start,
			    int64_t end)
{
	struct folio_batch fbatch;
	pgoff_t index, last;
	unsigned int i;

	if (start < 0 || end < start)
		return -EINVAL;
	wb_range(start, end, &index, &last);
	folio_batch_init(&fbatch);
	while (index <= last &&
	       filemap_get_folios_tag(mapping, &index, last,
				      PAGECACHE_TAG_WRITEBACK, &fbatch)) {
		for (i = 0; i < folio_batch_count(&fbatch); i++)
			folio_wait_writeback(fbatch.folios[i]);
		folio_batch_release(&fbatch);
	}
	return 0;
}

int filemap_write_and_wait_range(struct address_space *mapping,
				 int64_t start, int64_t end)
{
	pgoff_t index, last;
	int err;

	err = filemap_fdatawrite_range(mapping, start, end);
	if (err)
		return err;
	filemap_fdatawait_range(mapping, start, end);
	/*
	 * Dirty again: a writeback reclaim had running failed.  Its error
	 * is the word's last, whether it changed it or not (the same errno
	 * again, unseen, leaves the word as it was).
	 */
	wb_range(start, end, &index, &last);
	if (!xa_find(&mapping->i_pages, &index, last, PAGECACHE_TAG_DIRTY))
		return 0;
	err = errseq_check(&mapping->wb_err, 0);
	return err ? err : -EIO;
}

int file_check_and_advance_wb_err(struct address_space *mapping,
				  errseq_t *since)
{
	return errseq_check_and_advance(&mapping->wb_err, since);
}

int file_write_and_wait_range(struct address_space *mapping, errseq_t *since,
			      int64_t start, int64_t end)
{
	int err = filemap_fdatawrite_range(mapping, start, end);
	int wb_err;

	if (err != -EINVAL)
		filemap_fdatawait_range(mapping, start, end);
	/* After the wait: a failure of the writebacks waited for counts. */
	wb_err = file_check_and_advance_wb_err(mapping, since);
	/* A pass's own failure is also on the mapping: report it once. */
	return err ? err : wb_err;
}

/* ---- background writeback ------------------------------------------------ */

/*
 * A mapping's flusher state, in the low two bits of wb->state: no pass;
 * a pass queued or running; one queued or running and a threshold's
 * worth dirtied since it began (it queues the next when it ends);
 * stopped for good.  The bits above hold the fork generation the state
 * was set in (wb_fork_gen): a child of fork() inherits a state whose
 * work the child has not got, when a writer had just set it, and must
 * see it as idle.
 */
enum { WB_IDLE, WB_QUEUED, WB_AGAIN, WB_STOPPED };
#define WB_STATE_BITS	2
#define WB_STATE_MASK	((1u << WB_STATE_BITS) - 1)

/* The flusher threads: one pass at a time per mapping. */
#define WB_WORKERS	4u

/* Made on first use, never destroyed (as readahead's workers). */
static struct workqueue_struct *wb_wq;

/* Forks this process descends through; see WB_IDLE.  Wraps harmlessly. */
static uint32_t wb_fork_gen;
static pthread_once_t wb_atfork_once = PTHREAD_ONCE_INIT;

/* In the child, alone: states set before the fork are stale. */
static void wb_atfork_child(void)
{
	wb_fork_gen++;
}

static void wb_register_atfork(void)
{
	pthread_atfork(NULL, NULL, wb_atfork_child);
}

/* @state as a state word of this generation. */
static uint32_t wb_word(uint32_t state)
{
	return __atomic_load_n(&wb_fork_gen, __ATOMIC_RELAXED) <<
	       WB_STATE_BITS | state;
}

/* The state @word says: idle if it was set before a fork, unless stopped. */
static uint32_t wb_state(uint32_t word)
{
	if (word >> WB_STATE_BITS != (wb_word(0) >> WB_STATE_BITS) &&
	    (word & WB_STATE_MASK) != WB_STOPPED)
		return WB_IDLE;
	return word & WB_STATE_MASK;
}

/*
 * The work: one pass, from where the last one stopped, then the next as
 * new work if this one ran out of pages to write before the end of the
 * file, or writers asked for one meanwhile (WB_AGAIN); so the queue is
 * idle between passes however long writers go on.  Its errors are on
 * the mapping (writeback_write_folios()).  Going idle, or queueing the
 * next, is the last thing it does with @wb.
 */
static void wb_workfn(struct work_struct *work)
{
	struct background_writeback *wb = (struct background_writeback *)work;
	unsigned long budget = WB_PASS_PAGES;
	uint32_t queued = wb_word(WB_QUEUED);
	pgoff_t index = wb->next_index;

	/* Closing: the pass would only hold the close up. */
	if (__atomic_load_n(&wb->stopping, __ATOMIC_RELAXED)) {
		__atomic_store_n(&wb->state, wb_word(WB_IDLE),
				 __ATOMIC_RELEASE);
		return;
	}
	__atomic_store_n(&wb->dirtied, 0, __ATOMIC_RELAXED);
	(void)filemap_flush(wb->mapping, &index, &budget);
	wb->next_index = index;
	/* Passes first: a reader of pages, then passes, sees both. */
	__atomic_fetch_add(&wb->passes, 1, __ATOMIC_RELEASE);
	__atomic_fetch_add(&wb->pages, WB_PASS_PAGES - budget,
			   __ATOMIC_RELEASE);
	if (!index &&
	    __atomic_compare_exchange_n(&wb->state, &queued, wb_word(WB_IDLE),
					false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
		return;
	/* The rest of the file, or WB_AGAIN: the next pass, unless stopping. */
	__atomic_store_n(&wb->state, wb_word(WB_QUEUED), __ATOMIC_RELAXED);
	if (__atomic_load_n(&wb->stopping, __ATOMIC_RELAXED) ||
	    queue_work(wb_wq, work))
		__atomic_store_n(&wb->state, wb_word(WB_IDLE),
				 __ATOMIC_RELEASE);
}

void background_writeback_init(struct background_writeback *wb,
			       struct address_space *mapping,
			       unsigned long thresh)
{
	pthread_once(&wb_atfork_once, wb_register_atfork);
	*wb = (struct background_writeback){
		.work.func = wb_workfn,
		.mapping = mapping,
		.thresh = thresh,
		.state = wb_word(WB_IDLE),
	};
}

/*
 * Has the cache less than a threshold's worth of room?  Then reclaim
 * will soon need the dirty pages' memory, and would write them on the
 * thread that allocates.  With room to spare, writing a file whose
 * pages are rewritten again and again would only slow its writers.
 */
static bool wb_cache_tight(const struct background_writeback *wb)
{
	const struct upc_arena *arena = wb->mapping->arena;

	return upc_arena_charged(arena) + wb->thresh >= upc_arena_limit(arena);
}

/* Has a threshold's worth been dirtied, @nr pages more counted? */
static bool wb_dirtied_enough(struct background_writeback *wb,
			      unsigned long nr)
{
	return __atomic_add_fetch(&wb->dirtied, nr, __ATOMIC_RELAXED) >=
	       wb->thresh;
}

void background_writeback_dirtied(struct background_writeback *wb,
				  unsigned long nr)
{
	struct workqueue_struct *wq;
	uint32_t word, state;

	if (!nr || !wb->thresh || !wb_dirtied_enough(wb, nr) ||
	    !wb_cache_tight(wb))
		return;
	word = __atomic_load_n(&wb->state, __ATOMIC_ACQUIRE);
	do {
		state = wb_state(word);
		/* Already asked, or stopped. */
		if (state == WB_AGAIN || state == WB_STOPPED)
			return;
	} while (!__atomic_compare_exchange_n(&wb->state, &word,
					      wb_word(state == WB_IDLE ?
						      WB_QUEUED : WB_AGAIN),
					      false, __ATOMIC_ACQ_REL,
					      __ATOMIC_ACQUIRE));
	if (state != WB_IDLE)
		return;		/* the pass under way queues the next */
	wq = upc_fault_should_fail() ? NULL :
	     alloc_workqueue_once(&wb_wq, WB_WORKERS);
	if (!wq || queue_work(wq, &wb->work))
		__atomic_store_n(&wb->state, wb_word(WB_IDLE),
				 __ATOMIC_RELEASE);
}

/*
 * Once the work is neither queued nor running (a pass that queues the
 * next is waited for again; the next, seeing @stopping, queues none),
 * nothing will touch @wb: whatever its state says (a child of fork()
 * may have inherited one with no work behind it), it is stopped.
 */
void background_writeback_stop(struct background_writeback *wb)
{
	__atomic_store_n(&wb->stopping, true, __ATOMIC_RELAXED);
	flush_work(__atomic_load_n(&wb_wq, __ATOMIC_ACQUIRE), &wb->work);
	__atomic_store_n(&wb->state, wb_word(WB_STOPPED), __ATOMIC_RELEASE);
}
