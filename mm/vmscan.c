// SPDX-License-Identifier: MIT
/*
 * mm/vmscan.c - reclaim under an arena's memory limit: the lruvec's
 * life, the direct reclaim hook, list balancing and eviction.
 *
 * Direct reclaim.  upc_reclaim_init() installs reclaim_hook() as the
 * arena's reclaim hook: an allocation that fails its charge calls it on
 * the allocating thread, and retries while it reports progress (see
 * mm/page_alloc.c).  The hook asks for the larger of the request,
 * UPC_RECLAIM_BATCH pages and what brings the free pages back to the
 * high watermark, counting the charge past a limit lowered below what
 * is cached (reclaim_deficit()).
 *
 * One round of upc_reclaim_pages(): apply the pending LRU batches; if
 * the inactive file list is smaller than the active one, move folios
 * from the active tail to the inactive head (PG_referenced cleared,
 * PG_workingset set) until they balance; then shrink the inactive file
 * list by one batch:
 *
 *  1. under the lruvec lock, isolate up to UPC_RECLAIM_BATCH folios from
 *     the tail: take a reference (folio_try_get(): a folio whose count
 *     already dropped to zero is being freed and is left to the free
 *     path) and clear PG_lru;
 *  2. without it, for each: trylock; keep (put back) what is locked,
 *     under writeback or in an unevictable mapping; clear PG_referenced
 *     (the two-touch policy promotes in folio_mark_accessed(); as in the
 *     kernel, a referenced unmapped file folio is still reclaimed); a
 *     dirty file folio is written back first (pageout_folio()), a
 *     swap-backed one goes to the swap hook (swap_out_folio()), and
 *     either is kept when its mapping or the arena has no hook; then
 *     evict: under the i_pages lock freeze the refcount from exactly the
 *     cache's references plus ours to zero, so no lockless lookup can
 *     take a new reference (the mapping's evict_lock hook, if any,
 *     first keeps out readers that take none: shmem's), replace the
 *     folio by its shadow (workingset_eviction()) or its swap entry,
 *     leave our reference alone as the count and drop it after
 *     unlocking, which frees the folio.  A batch's clean file folios
 *     are evicted together, a mapping's under one round trip of its
 *     i_pages lock (struct shrink_batch);
 *  3. under the lruvec lock, put the kept folios back at the head of
 *     their lists, then drop the isolation references.
 *
 * A folio found without a mapping was truncated while on the list: it is
 * not put back, and goes when its last reference does.
 *
 * Writeback (pageout_folio()).  The kernel's pageout() starts an
 * asynchronous write and reclaims the folio in a later pass; here the
 * mapping's writeback_folio hook is synchronous, so the folio is written
 * and evicted in the same pass: clear the dirty bit and tag, set
 * PG_writeback, call the hook with the folio locked, end the writeback,
 * then evict as a clean folio.  A folio dirtied again meanwhile fails
 * the eviction's dirty check under the frozen refcount and stays.  On a
 * write error the folio is marked dirty again and kept: the design
 * allows no I/O error to turn into lost data, so the data waits in the
 * cache for the next writeback, which can report the error.  A mapping
 * that also has a writeback_folios hook (fd files) gets the dirty
 * folios of a batch together (shrink_pageout_queue(), all of a batch's
 * of one mapping): they wait locked, cleaned and under writeback (their
 * tags still dirty: writeback_write_folios() moves them all at once)
 * while the batch goes on, then one call writes them (neighbours as one
 * transfer, the rest in one io_uring submission where the file asks
 * for it), with the dirty folios that follow the last of them in the
 * file (shrink_pageout_cluster(): up to WRITEBACK_MAX_RUN in all, the
 * way the kernel's flushers write a file in long stretches), and those
 * of the batch written are evicted with the clean ones.  The
 * clean folios waiting are evicted before the write, and the queue is
 * written before a swap-backed or hooked folio is looked at, so no lock
 * is held across a write but those of the folios written and of the
 * one folio being looked at (reclaim only trylocks, so none is waited
 * for).
 *
 * Swap (swap_out_folio()).  With struct upc_swap_ops installed
 * (upc_reclaim_set_swap(); the swap layer's swap_device_create() does
 * it), reclaim also scans the anon lists and hands each swap-backed
 * folio to @swap_out, which writes it and returns the swap entry that
 * replaces it in its mapping; if the eviction then fails, the entry
 * goes back through @swap_free.  Without the hook swap-backed folios are
 * never evicted (their data exists nowhere else).  A batch's swap-backed
 * folios wait, locked, and go to @swap_out_folios together
 * (shrink_swapout_queue()), so that the swap layer can write neighbours
 * as one transfer, and leave their mapping under one i_pages round trip
 * (and one of its evict_lock hook).  A mapping's hook may be taken with
 * folios of that mapping locked, never another's, so folios of a hooked
 * mapping (shmem) are queued only with folios of the same mapping.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fault.h"
#include "futex.h"
#include "filemap_internal.h"
#include "huge_memory.h"
#include "lru_internal.h"

/*
 * How long direct reclaim that frees nothing waits for folios held or
 * isolated by others while nobody evicts anything (a stall), before it
 * fails; how many stalls others' progress may restart, whatever they
 * free; and its sleeps, doubling from RECLAIM_WAIT_US to
 * RECLAIM_WAIT_MAX_US (reclaim_backoff_us()).
 *
 * The bound is time, not rounds: with many reclaimers each wakes the
 * others at the end of every batch, so 64 rounds could pass in 10 ms
 * (32 readers of a 2 MiB cache under ThreadSanitizer, a CPU hog beside
 * them: a read failed after 61 such waits, 9.6 ms), and 52 ms of sleep
 * was not enough for readers on a loaded machine to let go of a small
 * cache either.  Rounds in a stall are not counted for the same reason:
 * three readers waiting out a holder ran 4096 rounds in 0.36 to 0.6 s,
 * and failed before the second.  A stall restarts whenever anyone
 * evicts or a read ends; RECLAIM_MAX_RESTARTS such restarts end the
 * wait of a thread that others keep beating to the memory they free.
 * The cost: a call that cannot get memory at all, with others holding
 * folios or reclaiming beside it, fails a second late.  The paths that
 * allocate while they hold folios reclaim can meet (a grab, grab_gfp()
 * in filemap_grab.c; shmem's writes and fallocate, shmem_populate())
 * allocate without waiting, so the holder is not the waiting thread;
 * one exception is left: a punch or truncation of shmem whose second
 * edge page must come back from swap holds the first edge's folio.
 */
#define RECLAIM_STALL_US	1000000
#define RECLAIM_MAX_RESTARTS	4096
#define RECLAIM_WAIT_US		250
#define RECLAIM_WAIT_MAX_US	4000

/* What reclaim does with one isolated folio. */
enum folio_verdict {
	FOLIO_KEEP,		/* back on its list */
	FOLIO_DROP,		/* truncated meanwhile: not put back */
	FOLIO_FREED,		/* evicted */
	FOLIO_PENDING,		/* locked, waiting to be evicted with others */
};

/* ---- eviction ------------------------------------------------------------ */

static bool mapping_unevictable(const struct address_space *mapping)
{
	return mapping->flags & (1UL << AS_UNEVICTABLE);
}

/*
 * evict_locked() - Under its mapping's i_pages lock, replace the locked
 * clean @folio by @entry (a swap entry) or, with @entry NULL, by its
 * shadow, if only the cache and the caller reference it; a folio held
 * otherwise without a pin counts in pgbusy.  Return: true if it left the
 * cache (the caller's reference is then the only one the cache knows of).
 */
static bool evict_locked(struct folio *folio, void *entry)
{
	int refs = (int)folio_nr_pages(folio) + 1;

	if (!folio_ref_freeze(folio, refs)) {
		if (!folio_maybe_pinned(folio, refs))
			lru_stat_add(&folio_lruvec(folio)->pgbusy, 1);
		return false;
	}
	if (folio_test_dirty(folio)) {
		folio_ref_unfreeze(folio, refs);
		return false;
	}
	if (!entry)
		entry = workingset_eviction(folio);
	filemap_delete_folio(folio, entry);
	folio_ref_unfreeze(folio, 1);
	return true;
}

/*
 * evict_folios() - evict_locked() for @nr locked folios of @mapping, all
 * under one round trip of its i_pages lock (and of its evict_lock hook,
 * if it has one).  @entries[i] replaces @folios[i]; with @entries NULL
 * every folio leaves its shadow.  @evicted[i] gets the result.
 */
static void evict_folios(struct address_space *mapping, struct folio **folios,
			 void **entries, unsigned int nr, bool *evicted)
{
	unsigned int i;

	if (!mapping_evict_lock(mapping)) {
		memset(evicted, 0, nr * sizeof(*evicted));
		return;
	}
	for (i = 0; i < nr; i++)
		evicted[i] = evict_locked(folios[i],
					  entries ? entries[i] : NULL);
	mapping_evict_unlock(mapping);
}

/* evict_folio() - evict_folios() for one folio.  Return: evicted. */
static bool evict_folio(struct address_space *mapping, struct folio *folio,
			void *entry)
{
	bool evicted;

	evict_folios(mapping, &folio, entry ? &entry : NULL, 1, &evicted);
	return evicted;
}

/*
 * pageout_folio() - Write a locked dirty file folio back through its
 * mapping's writeback_folio hook, then evict it.  Without the hook the
 * folio stays.  Return: FOLIO_FREED or FOLIO_KEEP.
 */
static enum folio_verdict pageout_folio(struct lruvec *lruvec,
					struct address_space *mapping,
					struct folio *folio)
{
	const struct address_space_operations *a_ops = mapping->a_ops;
	int err;

	if (!a_ops || !a_ops->writeback_folio)
		return FOLIO_KEEP;
	/* Cleaned by someone else since we looked: evict as it is. */
	if (folio_clear_dirty_set_writeback(folio)) {
		/* A failure leaves it dirty, the error recorded. */
		writeback_write_folios(mapping, &folio, 1, &err);
		if (err) {
			lru_stat_add(&lruvec->nr_vmscan_write_errors, 1);
			return FOLIO_KEEP;
		}
		lru_stat_add(&lruvec->nr_vmscan_write, folio_nr_pages(folio));
	}
	return evict_folio(mapping, folio, NULL) ? FOLIO_FREED : FOLIO_KEEP;
}

/*
 * swap_out_split() - The swap hook found a large folio too large to go
 * whole: split it, so that its first page can go now and the others
 * from the tail of the list next.  @dirty: the dirty bit reclaim cleared,
 * given back first so that every page keeps it.  Return: split.
 */
static bool swap_out_split(struct lruvec *lruvec, struct folio *folio,
			   bool dirty)
{
	if (dirty)
		folio_mark_dirty(folio);
	if (split_folio(folio, GFP_KERNEL))
		return false;
	lru_stat_add(&lruvec->thp_split, 1);
	return true;
}

/*
 * swap_out_folio() - Hand a locked swap-backed folio to the swap hook and
 * leave the swap entry it returns in the folio's place.  Without the
 * hook the folio stays.  Return: FOLIO_FREED or FOLIO_KEEP.
 */
static enum folio_verdict swap_out_folio(struct lruvec *lruvec,
					 struct address_space *mapping,
					 struct folio *folio)
{
	const struct upc_swap_ops *ops = __atomic_load_n(&lruvec->swap_ops,
							 __ATOMIC_ACQUIRE);
	void *priv = lruvec->swap_priv;
	void *entry = NULL;
	bool dirty;
	int err;

	if (!ops)
		return FOLIO_KEEP;
	dirty = folio_clear_dirty_for_io(folio);
	err = ops->swap_out(folio, &entry, priv);
	if (err == -EFBIG && swap_out_split(lruvec, folio, dirty)) {
		dirty = folio_clear_dirty_for_io(folio);
		err = ops->swap_out(folio, &entry, priv);
	}
	if (!err && xa_is_value(entry)) {
		if (evict_folio(mapping, folio, entry)) {
			lru_stat_add(&lruvec->pswpout, folio_nr_pages(folio));
			return FOLIO_FREED;
		}
		/* Used again while it was written: the copy is not needed. */
		ops->swap_free(folio, entry, priv);
	}
	if (dirty)
		folio_mark_dirty(folio);
	return FOLIO_KEEP;
}

/*
 * struct shrink_batch - one batch of isolated folios on its way through
 * reclaim.  Clean file folios are not evicted one by one: they wait,
 * still locked, in @pending until a folio that must be written comes or
 * the batch ends, and then leave a mapping at a time, each mapping's
 * under one round trip of its i_pages lock.  That is the lock every add
 * to the file takes, so under a random read load (every miss evicts) it
 * is the lock the readers queue on.  While they wait, reclaim does
 * nothing but trylocks and flag tests on the other folios.
 * @lruvec: The lruvec the batch came from.
 * @freed: Pages evicted so far.
 * @nr_keep: Folios in @keep.
 * @nr_pending: Folios in @pending.
 * @nr_pageout: Folios in @pageout.
 * @nr_swapout: Folios in @swapout.
 * @keep: Folios to put back on their lists.
 * @pending: Locked clean file folios waiting for eviction.
 * @pageout: Locked dirty file folios of one mapping, under writeback,
 *	waiting to be written together (shrink_pageout_queue()).
 * @swapout: Locked swap-backed folios waiting to be swapped out together
 *	(shrink_swapout_queue()).  At most one of @pageout and @swapout
 *	holds folios at a time.
 * @swapout_dirty: For each of @swapout, the dirty bit reclaim cleared.
 */
struct shrink_batch {
	struct lruvec *lruvec;
	unsigned long freed;
	unsigned int nr_keep;
	unsigned int nr_pending;
	unsigned int nr_pageout;
	unsigned int nr_swapout;
	struct folio *keep[UPC_RECLAIM_BATCH];
	struct folio *pending[UPC_RECLAIM_BATCH];
	struct folio *pageout[WRITEBACK_MAX_RUN];
	struct folio *swapout[UPC_RECLAIM_BATCH];
	bool swapout_dirty[UPC_RECLAIM_BATCH];
};

/* shrink_settle() - Account @folio's verdict; drop what is not kept. */
static void shrink_settle(struct shrink_batch *sb, struct folio *folio,
			  enum folio_verdict verdict)
{
	unsigned long pages = folio_nr_pages(folio);

	switch (verdict) {
	case FOLIO_KEEP:
		sb->keep[sb->nr_keep++] = folio;
		return;
	case FOLIO_FREED:
		lru_stat_add(&sb->lruvec->pgsteal, pages);
		sb->freed += pages;
		break;
	case FOLIO_DROP:
	case FOLIO_PENDING:
		break;
	}
	folio_put(folio);
}

/*
 * sort_by_mapping() - Order @folios so that each mapping's come
 * together, keeping their order otherwise (insertion sort: a batch is
 * small, and usually of one file already).
 */
static void sort_by_mapping(struct folio **folios, unsigned int nr)
{
	unsigned int i, j;

	for (i = 1; i < nr; i++) {
		struct folio *folio = folios[i];

		for (j = i; j && (uintptr_t)folios[j - 1]->mapping >
				 (uintptr_t)folio->mapping; j--)
			folios[j] = folios[j - 1];
		folios[j] = folio;
	}
}

/*
 * evict_mapping_runs() - evict_folios() for each run of @folios of one
 * mapping, in order: @entries (or NULL) and @evicted as there.
 */
static void evict_mapping_runs(struct folio **folios, void **entries,
			       unsigned int nr, bool *evicted)
{
	unsigned int i, run;

	for (i = 0; i < nr; i += run) {
		struct address_space *mapping = folios[i]->mapping;

		for (run = 1; i + run < nr && folios[i + run]->mapping == mapping;
		     run++)
			;
		evict_folios(mapping, folios + i, entries ? entries + i : NULL,
			     run, evicted + i);
	}
}

/* shrink_evict_pending() - Evict @sb's pending folios and settle them. */
static void shrink_evict_pending(struct shrink_batch *sb)
{
	bool evicted[UPC_RECLAIM_BATCH];
	unsigned int i;

	sort_by_mapping(sb->pending, sb->nr_pending);
	evict_mapping_runs(sb->pending, NULL, sb->nr_pending, evicted);
	for (i = 0; i < sb->nr_pending; i++) {
		folio_unlock(sb->pending[i]);
		shrink_settle(sb, sb->pending[i],
			      evicted[i] ? FOLIO_FREED : FOLIO_KEEP);
	}
	sb->nr_pending = 0;
}

/* mapping_writes_back() - @mapping can write a dirty folio back. */
static bool mapping_writes_back(const struct address_space *mapping)
{
	return mapping->a_ops && mapping->a_ops->writeback_folio;
}

/* sort_by_index() - Order one mapping's @folios by index (insertion). */
static void sort_by_index(struct folio **folios, unsigned int nr)
{
	unsigned int i, j;

	for (i = 1; i < nr; i++) {
		struct folio *folio = folios[i];

		for (j = i; j && folios[j - 1]->index > folio->index; j--)
			folios[j] = folios[j - 1];
		folios[j] = folio;
	}
}

/*
 * shrink_pageout_cluster() - Queue after @sb's @nr sorted pageout folios
 * the dirty folios that follow the last of them in the file, up to
 * WRITEBACK_MAX_RUN in all, each locked (trylock: reclaim waits for no
 * lock) and under writeback, with a reference from the lookup.  The
 * kernel leaves such writing to its flusher threads, which write a
 * file's dirty pages in long stretches; reclaim here writes on the
 * allocating thread, and a stretch of 31 folios was a request of its
 * own: a writer streaming into an O_DIRECT file through a cache smaller
 * than it got a sixth of the kernel's bandwidth.  The folios added are
 * not isolated: written, they stay on their lists, clean, for a later
 * batch to evict without a write.  Return: how many were added.
 */
static unsigned int shrink_pageout_cluster(struct shrink_batch *sb,
					   unsigned int nr)
{
	struct folio *last = sb->pageout[nr - 1];
	struct address_space *mapping = last->mapping;
	pgoff_t index = last->index + folio_nr_pages(last);
	unsigned int added = 0;

	while (nr + added < WRITEBACK_MAX_RUN && index > last->index) {
		struct folio *folio = filemap_get_entry(mapping, index);

		if (!folio || xa_is_value(folio))
			break;
		if (!folio_test_dirty(folio) || !folio_trylock(folio)) {
			folio_put(folio);
			break;
		}
		/* Truncated or moved since the lookup, or clean by now. */
		if (folio->mapping != mapping || folio->index != index ||
		    folio_test_writeback(folio) ||
		    !folio_clear_dirty_set_writeback(folio)) {
			folio_unlock(folio);
			folio_put(folio);
			break;
		}
		sb->pageout[nr + added++] = folio;
		index += folio_nr_pages(folio);
	}
	return added;
}

/*
 * shrink_pageout_flush() - Write @sb's queued dirty folios (one
 * mapping's, locked, under writeback), and the dirty ones that follow
 * them in the file (shrink_pageout_cluster()), with one call of its
 * writeback_folios hook (writeback_write_folios()), then evict the
 * queued ones written with the batch's clean folios, under one i_pages
 * round trip.  The clean folios waiting are evicted first: no folio
 * lock is held across the write but those of the folios written and of
 * the folio the caller is looking at.  A folio whose write failed is
 * dirtied again, its error recorded on the mapping (as pageout_folio()
 * does), and kept.
 */
static void shrink_pageout_flush(struct shrink_batch *sb)
{
	struct address_space *mapping;
	int errs[WRITEBACK_MAX_RUN];
	unsigned int i, nr = sb->nr_pageout, added;

	if (!nr)
		return;
	shrink_evict_pending(sb);
	sb->nr_pageout = 0;
	mapping = sb->pageout[0]->mapping;
	sort_by_index(sb->pageout, nr);
	added = shrink_pageout_cluster(sb, nr);
	writeback_write_folios(mapping, sb->pageout, nr + added, errs);
	for (i = nr; i < nr + added; i++) {
		struct folio *folio = sb->pageout[i];

		if (errs[i])
			lru_stat_add(&sb->lruvec->nr_vmscan_write_errors, 1);
		else
			lru_stat_add(&sb->lruvec->nr_vmscan_write,
				     folio_nr_pages(folio));
		folio_unlock(folio);
		folio_put(folio);
	}
	for (i = 0; i < nr; i++) {
		struct folio *folio = sb->pageout[i];

		if (errs[i]) {
			lru_stat_add(&sb->lruvec->nr_vmscan_write_errors, 1);
			folio_unlock(folio);
			shrink_settle(sb, folio, FOLIO_KEEP);
			continue;
		}
		lru_stat_add(&sb->lruvec->nr_vmscan_write,
			     folio_nr_pages(folio));
		sb->pending[sb->nr_pending++] = folio;
	}
	shrink_evict_pending(sb);
}

/* ---- swapping out a batch ------------------------------------------------ */

/* The lruvec's swap hooks if they can take a batch, else NULL. */
static const struct upc_swap_ops *swap_ops_batched(struct lruvec *lruvec)
{
	/* Pairs with the release in upc_reclaim_set_swap(). */
	const struct upc_swap_ops *ops = __atomic_load_n(&lruvec->swap_ops,
							 __ATOMIC_ACQUIRE);

	return ops && ops->swap_out_folios ? ops : NULL;
}

/*
 * shrink_swapout_retry_split() - The swap hook refused some of @sb's
 * queued folios with -EFBIG: split each (swap_out_split()) and offer
 * the first pages again, together.  @errs and @entries are the first
 * offer's results, updated for the folios offered again.
 */
static void shrink_swapout_retry_split(struct shrink_batch *sb,
				       const struct upc_swap_ops *ops,
				       void *priv, void **entries, int *errs)
{
	struct folio *again[UPC_RECLAIM_BATCH];
	unsigned int idx[UPC_RECLAIM_BATCH];
	void *again_entries[UPC_RECLAIM_BATCH];
	int again_errs[UPC_RECLAIM_BATCH];
	unsigned int i, nr = 0;

	for (i = 0; i < sb->nr_swapout; i++) {
		struct folio *folio = sb->swapout[i];

		if (errs[i] != -EFBIG ||
		    !swap_out_split(sb->lruvec, folio, sb->swapout_dirty[i]))
			continue;
		sb->swapout_dirty[i] = folio_clear_dirty_for_io(folio);
		idx[nr] = i;
		again_entries[nr] = NULL;
		again[nr++] = folio;
	}
	if (!nr)
		return;
	ops->swap_out_folios(again, nr, again_entries, again_errs, priv);
	for (i = 0; i < nr; i++) {
		entries[idx[i]] = again_entries[i];
		errs[idx[i]] = again_errs[i];
	}
}

/*
 * shrink_swapout_evict() - Put each written folio of @sb's queue, given
 * by @written, in its swap entry's place, a mapping's folios under one
 * round trip of its i_pages lock (evict_folios()).  @evicted[i] gets
 * the result for @sb->swapout[i], false where it was not written.
 */
static void shrink_swapout_evict(struct shrink_batch *sb, void **entries,
				 const bool *written, bool *evicted)
{
	struct folio *folios[UPC_RECLAIM_BATCH];
	void *values[UPC_RECLAIM_BATCH];
	bool done[UPC_RECLAIM_BATCH];
	unsigned int i, j, n = 0;

	for (i = 0; i < sb->nr_swapout; i++) {
		if (!written[i])
			continue;
		folios[n] = sb->swapout[i];
		values[n++] = entries[i];
	}
	evict_mapping_runs(folios, values, n, done);
	for (i = 0, j = 0; i < sb->nr_swapout; i++)
		evicted[i] = written[i] && done[j++];
}

/*
 * shrink_swapout_flush() - Swap out @sb's queued folios with one call of
 * the swap layer's swap_out_folios hook (writes of neighbouring slots
 * merged), offer again split the large ones it found too large, then
 * evict those written and settle every one as swap_out_folio() would.
 * The clean folios waiting are evicted first: no folio lock is held
 * across the write but those of the folios written.
 */
static void shrink_swapout_flush(struct shrink_batch *sb)
{
	const struct upc_swap_ops *ops;
	void *priv, *entries[UPC_RECLAIM_BATCH];
	int errs[UPC_RECLAIM_BATCH];
	bool written[UPC_RECLAIM_BATCH], evicted[UPC_RECLAIM_BATCH];
	unsigned int i, nr = sb->nr_swapout;

	if (!nr)
		return;
	shrink_evict_pending(sb);
	/* After the acquire that pairs with upc_reclaim_set_swap(). */
	ops = swap_ops_batched(sb->lruvec);
	priv = sb->lruvec->swap_priv;
	for (i = 0; i < nr; i++) {
		entries[i] = NULL;
		errs[i] = ops ? 0 : -ENODEV;
	}
	if (ops) {
		ops->swap_out_folios(sb->swapout, nr, entries, errs, priv);
		shrink_swapout_retry_split(sb, ops, priv, entries, errs);
	}
	for (i = 0; i < nr; i++)
		written[i] = !errs[i] && xa_is_value(entries[i]);
	shrink_swapout_evict(sb, entries, written, evicted);
	sb->nr_swapout = 0;
	for (i = 0; i < nr; i++) {
		struct folio *folio = sb->swapout[i];
		enum folio_verdict verdict = FOLIO_KEEP;

		if (evicted[i]) {
			lru_stat_add(&sb->lruvec->pswpout,
				     folio_nr_pages(folio));
			verdict = FOLIO_FREED;
		} else if (written[i]) {
			/* Used again while it was written. */
			ops->swap_free(folio, entries[i], priv);
		}
		if (verdict == FOLIO_KEEP && sb->swapout_dirty[i])
			folio_mark_dirty(folio);
		folio_unlock(folio);
		shrink_settle(sb, folio, verdict);
	}
}

/*
 * swapout_joins() - May @folio wait in @sb's swap-out queue with the
 * folios there?  The queue's eviction takes each mapping's evict_lock
 * hook with the queue's folios locked (shrink_swapout_evict()), and a
 * hook may be taken with folios of its own mapping locked, never with
 * another's: so a queue holds folios of mappings without the hook, or
 * of one mapping with it.
 */
static bool swapout_joins(const struct shrink_batch *sb,
			  const struct folio *folio)
{
	const struct address_space *queued;

	if (!sb->nr_swapout)
		return true;
	queued = sb->swapout[0]->mapping;
	return queued == folio->mapping ||
	       (!mapping_evict_hooked(queued) &&
		!mapping_evict_hooked(folio->mapping));
}

/*
 * swapout_queue_hooked_other() - Does @sb's swap-out queue hold folios of
 * a mapping with an evict_lock hook other than locked @folio's?  Any
 * flush reclaim makes for @folio would then take that hook with @folio
 * locked.
 */
static bool swapout_queue_hooked_other(const struct shrink_batch *sb,
				       const struct folio *folio)
{
	return sb->nr_swapout &&
	       sb->swapout[0]->mapping != folio->mapping &&
	       mapping_evict_hooked(sb->swapout[0]->mapping);
}

/*
 * shrink_swapout_queue() - Queue a locked swap-backed @folio on @sb, its
 * dirty bit cleared, to be swapped out with the batch's others
 * (shrink_swapout_flush()).  Dirty file folios queued before are
 * written first, and the queue itself if it is full or @folio may not
 * join it (swapout_joins()).  Return: FOLIO_PENDING.
 */
static enum folio_verdict shrink_swapout_queue(struct shrink_batch *sb,
					       struct folio *folio)
{
	shrink_pageout_flush(sb);
	if (sb->nr_swapout == UPC_RECLAIM_BATCH || !swapout_joins(sb, folio))
		shrink_swapout_flush(sb);
	sb->swapout_dirty[sb->nr_swapout] = folio_clear_dirty_for_io(folio);
	sb->swapout[sb->nr_swapout++] = folio;
	return FOLIO_PENDING;
}

/*
 * shrink_flush() - Write and evict everything @sb has queued, before a
 * folio is written on its own or at the end of the batch.
 */
static void shrink_flush(struct shrink_batch *sb)
{
	shrink_swapout_flush(sb);
	shrink_pageout_flush(sb);
	shrink_evict_pending(sb);
}

/*
 * The queue holds a whole batch: a queue written when full, with the
 * batch's last folio locked by the caller (so not joinable), cut a
 * stretch of 16 dirty pages into 15 and 1 whenever a batch of 32 held
 * two of them (random 64 KiB writes sent 1.24 requests per write).
 */
_Static_assert(UPC_RECLAIM_BATCH <= WRITEBACK_MAX_RUN,
	       "a batch's dirty folios fit the pageout queue");

/*
 * shrink_pageout_queue() - Queue a locked dirty @folio of a mapping with
 * a writeback_folios hook on @sb, to be written with its neighbours in
 * the batch (shrink_pageout_flush()).  A folio cleaned meanwhile waits
 * with the clean ones.  Swap-backed folios queued before are swapped
 * out first.  Return: FOLIO_PENDING.
 */
static enum folio_verdict shrink_pageout_queue(struct shrink_batch *sb,
					       struct folio *folio)
{
	shrink_swapout_flush(sb);
	if (sb->nr_pageout &&
	    (sb->pageout[0]->mapping != folio->mapping ||
	     sb->nr_pageout == UPC_RECLAIM_BATCH))
		shrink_pageout_flush(sb);
	if (!folio_clear_dirty_set_writeback(folio)) {
		sb->pending[sb->nr_pending++] = folio;
		return FOLIO_PENDING;
	}
	sb->pageout[sb->nr_pageout++] = folio;
	return FOLIO_PENDING;
}

/*
 * shrink_folio() - Decide about one isolated folio: evict or keep it, or
 * queue it, locked, on @sb's pending list (FOLIO_PENDING).
 *
 * The pending folios wait only while reclaim looks at clean folios of
 * mappings without an evict_lock hook.  They are evicted first if this
 * one must be written (never hold folio locks across a write), or if
 * its mapping has the hook: the hook's holders may wait on folio locks
 * of other files, so it is taken with no folio of another mapping
 * locked.  Clean folios of such a mapping are therefore never pending;
 * its swap-backed ones wait in the swap-out queue with their own
 * mapping's only (swapout_joins()); the queue evicts the pending folios
 * before it takes the hook, and is itself flushed before a folio of
 * another mapping is looked at with its lock held.
 */
static enum folio_verdict shrink_folio(struct shrink_batch *sb,
				       struct folio *folio)
{
	struct address_space *mapping;
	enum folio_verdict verdict = FOLIO_KEEP;
	bool swapbacked, dirty, hooked, batched;

	if (!folio_trylock(folio))
		goto busy;
	if (swapout_queue_hooked_other(sb, folio)) {
		/* Not locked across the queue's hook (see above). */
		folio_unlock(folio);
		shrink_swapout_flush(sb);
		if (!folio_trylock(folio))
			goto busy;
	}
	mapping = folio->mapping;
	if (!mapping) {
		verdict = FOLIO_DROP;
		goto unlock;
	}
	if (mapping_unevictable(mapping))
		goto unlock;
	if (folio_test_writeback(folio)) {
		lru_stat_add(&sb->lruvec->pgbusy, 1);
		goto unlock;
	}
	folio_clear_referenced(folio);
	swapbacked = folio_test_swapbacked(folio);
	dirty = folio_test_dirty(folio);
	hooked = mapping_evict_hooked(mapping);
	/* Dirty folios of a mapping that writes many at once wait for more. */
	batched = dirty && !swapbacked && !hooked &&
		  mapping_writes_back(mapping) &&
		  mapping->a_ops->writeback_folios;
	if (batched)
		return shrink_pageout_queue(sb, folio);
	if (swapbacked && swap_ops_batched(sb->lruvec))
		return shrink_swapout_queue(sb, folio);
	if (swapbacked || hooked || (dirty && mapping_writes_back(mapping)))
		shrink_flush(sb);
	if (swapbacked) {
		verdict = swap_out_folio(sb->lruvec, mapping, folio);
	} else if (dirty) {
		verdict = pageout_folio(sb->lruvec, mapping, folio);
	} else if (hooked) {
		verdict = evict_folio(mapping, folio, NULL) ? FOLIO_FREED :
							      FOLIO_KEEP;
	} else {
		/* Dirtied since: evict_locked() sees it and keeps it. */
		sb->pending[sb->nr_pending++] = folio;
		return FOLIO_PENDING;
	}
unlock:
	folio_unlock(folio);
	return verdict;
busy:
	lru_stat_add(&sb->lruvec->pgbusy, 1);
	return FOLIO_KEEP;
}

/*
 * isolate_folios() - Take folios off the tail of list @lru, each with a
 * reference and PG_lru clear: up to @nr of them and @nr pages' worth
 * (as the kernel's isolate_lru_folios() counts a large folio's pages),
 * so that a batch of large folios does not reach past the oldest into
 * folios read ahead and not yet used.  *@pages gets their pages.
 * Return: how many.
 */
static unsigned int isolate_folios(struct lruvec *lruvec, enum lru_list lru,
				   struct folio **folios, unsigned int nr,
				   unsigned long *pages_out)
{
	struct upc_list_head *list = &lruvec->lists[lru];
	unsigned int tries, n = 0;
	unsigned long pages = 0;

	lru_lock(&lruvec->lock);
	for (tries = 0; tries < nr && pages < nr && !mm_list_empty(list);
	     tries++) {
		struct folio *folio = lru_to_folio(list->prev);

		if (!folio_try_get(folio)) {
			/* Being freed: the free path unlinks it. */
			mm_list_del_init(&folio->lru);
			mm_list_add(&folio->lru, list);
			continue;
		}
		lruvec_del_folio(lruvec, folio, lru);
		folio_clear_lru(folio);
		folios[n++] = folio;
		pages += folio_nr_pages(folio);
	}
	upc_unlock(&lruvec->lock);
	*pages_out = pages;
	return n;
}

/* putback_folios() - Relist kept folios, then drop every reference. */
static void putback_folios(struct lruvec *lruvec, struct folio **folios,
			   unsigned int nr)
{
	unsigned int i;

	if (!nr)
		return;
	lru_lock(&lruvec->lock);
	for (i = 0; i < nr; i++)
		lruvec_add_folio(lruvec, folios[i]);
	upc_unlock(&lruvec->lock);
	for (i = 0; i < nr; i++)
		folio_put(folios[i]);
}

/*
 * reclaim_wake() - @word (@lruvec's reclaim_seq or nr_io) has just
 * moved: wake the direct reclaimers sleeping on it (reclaim_sleep()).
 *
 * The word moves before the waiters are looked at, and a waiter is
 * counted before it compares the word (all sequentially consistent), so
 * either the waker sees the waiter or the waiter sees the new value.
 */
static void reclaim_wake(struct lruvec *lruvec, uint32_t *word)
{
	if (__atomic_load_n(&lruvec->reclaim_waiters, __ATOMIC_SEQ_CST))
		upc_futex_wake(word, INT32_MAX);
}

/*
 * reclaim_progress() - Something other reclaimers may be waiting for
 * happened: a batch went back to the lists or left them.  Wake them.
 */
static void reclaim_progress(struct lruvec *lruvec)
{
	__atomic_fetch_add(&lruvec->reclaim_seq, 1, __ATOMIC_SEQ_CST);
	reclaim_wake(lruvec, &lruvec->reclaim_seq);
}

/*
 * shrink_inactive_batch() - One batch; *@scanned gets the folios
 * isolated, *@scanned_pages their pages.
 */
static unsigned long shrink_inactive_batch(struct lruvec *lruvec,
					   enum lru_list lru,
					   unsigned int nr_to_scan,
					   unsigned int *scanned,
					   unsigned long *scanned_pages)
{
	struct folio *isolated[UPC_RECLAIM_BATCH];
	struct shrink_batch sb = { .lruvec = lruvec };
	unsigned int i, nr;

	nr = isolate_folios(lruvec, lru, isolated, nr_to_scan, scanned_pages);
	lru_stat_add(&lruvec->pgscan, *scanned_pages);
	__atomic_fetch_add(&lruvec->nr_isolated, nr, __ATOMIC_RELAXED);
	for (i = 0; i < nr; i++) {
		enum folio_verdict verdict = shrink_folio(&sb, isolated[i]);

		if (verdict != FOLIO_PENDING)
			shrink_settle(&sb, isolated[i], verdict);
	}
	shrink_flush(&sb);
	putback_folios(lruvec, sb.keep, sb.nr_keep);
	__atomic_fetch_sub(&lruvec->nr_isolated, nr, __ATOMIC_RELAXED);
	if (nr)
		reclaim_progress(lruvec);
	*scanned = nr;
	return sb.freed;
}

/**
 * shrink_inactive_list() - Scan the tail of an inactive list and evict.
 * @lruvec: The lruvec.
 * @nr_to_scan: How many pages to isolate at most (a large folio counts
 *	its pages; the last one may pass the count).
 * @lru: LRU_INACTIVE_FILE or LRU_INACTIVE_ANON.
 *
 * Works in batches of UPC_RECLAIM_BATCH pages, each isolated under one
 * lruvec-lock round trip and put back under another.
 *
 * Context: Any thread; holds no folio lock it could wait on (trylock).
 * Return: The number of pages freed.
 */
unsigned long shrink_inactive_list(struct lruvec *lruvec,
				   unsigned long nr_to_scan, enum lru_list lru)
{
	unsigned long freed = 0, pages;
	unsigned int scanned;

	while (nr_to_scan) {
		unsigned int batch = nr_to_scan < UPC_RECLAIM_BATCH ?
				     (unsigned int)nr_to_scan : UPC_RECLAIM_BATCH;

		freed += shrink_inactive_batch(lruvec, lru, batch, &scanned,
					       &pages);
		if (!scanned)
			break;
		nr_to_scan -= pages < nr_to_scan ? pages : nr_to_scan;
	}
	return freed;
}

/**
 * shrink_active_list() - Deactivate folios from the tail of an active list.
 * @lruvec: The lruvec.
 * @nr_to_scan: How many folios to move at most.
 * @lru: LRU_ACTIVE_FILE or LRU_ACTIVE_ANON.
 *
 * The move is done under the lruvec lock without isolating: the folios
 * stay listed, so their free path finds them on the right list.
 *
 * Context: Takes the lruvec lock.
 * Return: The number of folios moved.
 */
unsigned long shrink_active_list(struct lruvec *lruvec,
				 unsigned long nr_to_scan, enum lru_list lru)
{
	struct upc_list_head *list = &lruvec->lists[lru];
	unsigned long moved = 0, pages = 0;

	lru_lock(&lruvec->lock);
	while (moved < nr_to_scan && !mm_list_empty(list)) {
		struct folio *folio = lru_to_folio(list->prev);

		/* No reference is held: PG_lru must stay set (see there). */
		folio_clear_active(folio);
		folio_clear_referenced(folio);
		folio_set_workingset(folio);
		lruvec_move_folio(lruvec, folio, lru);
		pages += folio_nr_pages(folio);
		moved++;
	}
	upc_unlock(&lruvec->lock);
	lru_stat_add(&lruvec->pgdeactivate, pages);
	return moved;
}

/* ---- reclaim ---------------------------------------------------------------- */

/*
 * balance_lists() - Deactivate until inactive list @lru is at least as
 * large as its active list (one batch at most).  Return: folios moved.
 */
static unsigned long balance_lists(struct lruvec *lruvec, enum lru_list lru)
{
	unsigned long active = lru_pages(lruvec, lru + 1);
	unsigned long inactive = lru_pages(lruvec, lru);
	unsigned long excess;

	if (inactive >= active)
		return 0;
	excess = (active - inactive + 1) / 2;
	if (excess > UPC_RECLAIM_BATCH)
		excess = UPC_RECLAIM_BATCH;
	return shrink_active_list(lruvec, excess, lru + 1);
}

/*
 * shrink_lists() - One round on inactive list @lru and its active list:
 * balance them, shrink a batch of the inactive list (*@freed grows by
 * the pages freed, *@scanned gets the pages looked at), and if that
 * freed nothing, deactivate as many folios as the batch held anyway.
 * The inactive list may be full of folios that cannot go now (held by
 * a writer or a span, never written, large with no room in swap,
 * locked) while the active list, smaller, holds folios that could:
 * without this, balancing would never move them.  Folio for folio: one
 * large folio under a read (a batch of one, counting pages) must not
 * push a batch of the working set down.  Return: folios moved from the
 * active list.
 */
static unsigned long shrink_lists(struct lruvec *lruvec, enum lru_list lru,
				  unsigned long *freed, unsigned long *scanned)
{
	unsigned long moved = balance_lists(lruvec, lru);
	unsigned long got;
	unsigned int folios;

	got = shrink_inactive_batch(lruvec, lru, UPC_RECLAIM_BATCH, &folios,
				    scanned);
	*freed += got;
	if (!got && folios)
		moved += shrink_active_list(lruvec, folios, lru + 1);
	return moved;
}

/* Pages on the lists reclaim scans. */
static unsigned long lruvec_scannable(const struct lruvec *lruvec)
{
	unsigned long nr = lru_pages(lruvec, LRU_INACTIVE_FILE) +
			   lru_pages(lruvec, LRU_ACTIVE_FILE);

	if (lruvec_can_swap(lruvec))
		nr += lru_pages(lruvec, LRU_INACTIVE_ANON) +
		      lru_pages(lruvec, LRU_ACTIVE_ANON);
	return nr;
}

/**
 * upc_reclaim_pages() - Reclaim memory from an arena.
 * @arena: The arena.
 * @nr_pages: How many pages to free.
 *
 * Gives up after scanning twice as many pages as the lists held when it
 * started (plus a batch): every folio has then been looked at.
 *
 * Context: Any thread holding no i_pages lock.
 * Return: The number of pages freed (0 without a lruvec).
 */
unsigned long upc_reclaim_pages(struct upc_arena *arena,
				unsigned long nr_pages)
{
	struct lruvec *lruvec = arena_lruvec(arena);
	unsigned long freed = 0, budget;

	if (!lruvec)
		return 0;
	lru_drain(lruvec);
	budget = 2 * lruvec_scannable(lruvec) + UPC_RECLAIM_BATCH;
	while (freed < nr_pages && budget) {
		unsigned long scanned, anon = 0, moved;

		moved = shrink_lists(lruvec, LRU_INACTIVE_FILE, &freed,
				     &scanned);
		if (lruvec_can_swap(lruvec) && freed < nr_pages) {
			moved += shrink_lists(lruvec, LRU_INACTIVE_ANON, &freed,
					      &anon);
			scanned += anon;
		}
		if (!scanned && !moved)
			break;
		budget -= scanned < budget ? scanned : budget;
	}
	workingset_shrink_shadows(lruvec);
	return freed;
}

/* Free pages below the limit. */
static unsigned long arena_free_pages(const struct upc_arena *arena)
{
	unsigned long limit = upc_arena_limit(arena);
	unsigned long charged = upc_arena_charged(arena);

	return charged < limit ? limit - charged : 0;
}

/*
 * reclaim_deficit() - Pages to free for @goal pages to be free below the
 * limit.  The charge past the limit counts too: a limit lowered below
 * what is cached leaves all of that to free, not just @goal.
 */
static unsigned long reclaim_deficit(const struct upc_arena *arena,
				     unsigned long goal)
{
	unsigned long limit = upc_arena_limit(arena);
	unsigned long charged = upc_arena_charged(arena);

	return charged + goal > limit ? charged + goal - limit : 0;
}

/* lruvec_wmark() - A watermark, as lruvec_set_watermarks() left it. */
static unsigned long lruvec_wmark(const unsigned long *wmark)
{
	return __atomic_load_n(wmark, __ATOMIC_RELAXED);
}

/**
 * upc_reclaim_balance() - Background reclaim: restore the watermark.
 * @arena: The arena.
 *
 * Context: As upc_reclaim_pages().
 * Return: The number of pages freed.
 */
unsigned long upc_reclaim_balance(struct upc_arena *arena)
{
	struct lruvec *lruvec = arena_lruvec(arena);

	if (!lruvec ||
	    arena_free_pages(arena) >= lruvec_wmark(&lruvec->wmark_low))
		return 0;
	return upc_reclaim_pages(arena, reclaim_deficit(arena,
				 lruvec_wmark(&lruvec->wmark_high)));
}

/* ---- waiting for others ------------------------------------------------- */

/*
 * reclaim_sleep() - Sleep while @word (@lruvec's reclaim_seq or nr_io)
 * is @val, until reclaim_wake(); for @timeout_us at most, unless it is 0.
 * The count of reads under way needs no limit: such a read needs nothing
 * from the threads waiting for it.  The batches need one: a reclaimer
 * preempted while it holds its batch moves nothing on; and nothing
 * wakes a reclaimer when a reader lets go of a folio.
 */
static void reclaim_sleep(struct lruvec *lruvec, uint32_t *word, uint32_t val,
			  unsigned int timeout_us)
{
	__atomic_fetch_add(&lruvec->reclaim_waiters, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(word, __ATOMIC_SEQ_CST) == val) {
		if (timeout_us)
			upc_futex_wait_us(word, val, timeout_us);
		else
			upc_futex_wait(word, val);
	}
	__atomic_fetch_sub(&lruvec->reclaim_waiters, 1, __ATOMIC_RELAXED);
}

/*
 * reclaim_backoff_us() - The sleep before the (@waits + 1)th retry of a
 * stall: doubling from RECLAIM_WAIT_US to RECLAIM_WAIT_MAX_US, so that
 * holders a loaded machine has not run for a while get their turn, and
 * a stall costs a few rescans of the cache, not hundreds.
 */
static unsigned int reclaim_backoff_us(unsigned int waits)
{
	unsigned int us = RECLAIM_WAIT_US;

	while (waits-- && us < RECLAIM_WAIT_MAX_US)
		us *= 2;
	return us < RECLAIM_WAIT_MAX_US ? us : RECLAIM_WAIT_MAX_US;
}

/* reclaim_clock_us() - A monotonic clock, for the length of a stall. */
static uint64_t reclaim_clock_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

struct lruvec *reclaim_io_start(struct upc_arena *arena)
{
	struct lruvec *lruvec = arena_lruvec(arena);

	if (lruvec)
		__atomic_fetch_add(&lruvec->nr_io, 1, __ATOMIC_RELAXED);
	return lruvec;
}

void reclaim_io_end(struct lruvec *lruvec)
{
	if (!lruvec)
		return;
	__atomic_fetch_sub(&lruvec->nr_io, 1, __ATOMIC_SEQ_CST);
	reclaim_wake(lruvec, &lruvec->nr_io);
}

/*
 * The arena's reclaim hook: direct reclaim on the allocating thread.
 *
 * Finding nothing to evict does not mean there is nothing: folios
 * locked under a read that needs no memory (readahead's: many streams
 * can hold most of a small cache that way) can go once it ends, other
 * reclaimers may hold the evictable folios isolated (and be about to
 * free them), and readers hold the folios they copy from (thirty-two
 * readers, each holding a batch of up to 31 folios, can hold a 2 MiB
 * cache whole).  So a thread that frees nothing sleeps until a read
 * ends, or else, if a batch is isolated or the round met folios held
 * (pgbusy moved), until another reclaimer is done with a batch or a
 * while has passed (reclaim_sleep(), reclaim_backoff_us()), and tries
 * again, instead of failing its allocation with -ENOMEM: the kernel's
 * reclaim waits for I/O and throttles on isolated pages and on rounds
 * without progress for the same reasons.  It fails when a round met
 * nothing of the kind (nothing will change), when nobody has evicted
 * anything for RECLAIM_STALL_US while it waited, or after
 * RECLAIM_MAX_RESTARTS stalls that others' progress restarted.  Pinned
 * folios (spans') are not counted as held: a pin may never go, and its
 * owner may be the thread reclaiming, so a cache that spans pin whole
 * fails at once.  Memory that others freed meanwhile counts as
 * progress, so the allocator retries.  An allocation with __GFP_NORETRY
 * (readahead's, and a grab's once it holds folios) waits for nobody:
 * one pass.
 */
static unsigned long reclaim_hook(struct upc_arena *arena,
				  unsigned long nr_pages, gfp_t gfp, void *priv)
{
	struct lruvec *lruvec = priv;
	unsigned long target = nr_pages > UPC_RECLAIM_BATCH ?
			       nr_pages : UPC_RECLAIM_BATCH, freed;
	unsigned long want = reclaim_deficit(arena,
					     lruvec_wmark(&lruvec->wmark_high));
	uint64_t stolen = __atomic_load_n(&lruvec->pgsteal, __ATOMIC_RELAXED);
	uint64_t stall_start = 0;	/* 0: a stall starts this round */
	unsigned int restarts = 0, waits = 0;

	if (want > target)
		target = want;
	for (;;) {
		uint64_t busy = __atomic_load_n(&lruvec->pgbusy,
						__ATOMIC_RELAXED), now;
		uint32_t seq, io;

		freed = upc_reclaim_pages(arena, target);
		if (freed)
			return freed;
		if (arena_free_pages(arena) >= nr_pages)
			return nr_pages;
		if (gfp & __GFP_NORETRY)
			return 0;
		/* The word first: a batch done after it is not missed. */
		seq = __atomic_load_n(&lruvec->reclaim_seq, __ATOMIC_SEQ_CST);
		io = __atomic_load_n(&lruvec->nr_io, __ATOMIC_SEQ_CST);
		now = __atomic_load_n(&lruvec->pgsteal, __ATOMIC_RELAXED);
		if (now != stolen || !stall_start) {
			/* Others evicted (memory moves): a new stall. */
			if (stall_start)
				restarts++;
			stolen = now;
			stall_start = reclaim_clock_us();
			waits = 0;
		}
		if (restarts >= RECLAIM_MAX_RESTARTS)
			return 0;
		if (io) {
			reclaim_sleep(lruvec, &lruvec->nr_io, io, 0);
			stall_start = 0;  /* a read ended: its folios may go */
			restarts++;
			continue;
		}
		if (!__atomic_load_n(&lruvec->nr_isolated, __ATOMIC_RELAXED) &&
		    __atomic_load_n(&lruvec->pgbusy, __ATOMIC_RELAXED) == busy)
			return 0;
		if (reclaim_clock_us() - stall_start >= RECLAIM_STALL_US)
			return 0;
		reclaim_sleep(lruvec, &lruvec->reclaim_seq, seq,
			      reclaim_backoff_us(waits++));
	}
}

/* ---- setup ------------------------------------------------------------------- */

/*
 * Watermarks from the limit: low 1/128 of it, high 1/64, at least a batch.
 * upc_reclaim_set_limit() may change them while reclaimers read them, so
 * both sides go through atomics, and a reader loads each once.
 */
static void lruvec_set_watermarks(struct lruvec *lruvec, unsigned long limit)
{
	unsigned long high = limit / 64, low = limit / 128;

	__atomic_store_n(&lruvec->wmark_high, high > UPC_RECLAIM_BATCH ?
			 high : UPC_RECLAIM_BATCH, __ATOMIC_RELAXED);
	__atomic_store_n(&lruvec->wmark_low, low > UPC_RECLAIM_BATCH / 2 ?
			 low : UPC_RECLAIM_BATCH / 2, __ATOMIC_RELAXED);
}

static bool reclaim_limit_valid(const struct upc_arena *arena,
				unsigned long nr_pages)
{
	return nr_pages >= (1UL << UPC_MAX_ORDER) &&
	       nr_pages <= arena->nr_pages;
}

static struct lruvec *lruvec_alloc(struct upc_arena *arena)
{
	struct lruvec *lruvec;
	unsigned int i;
	void *mem;

	if (upc_fault_should_fail() || posix_memalign(&mem, 64, sizeof(*lruvec)))
		return NULL;
	lruvec = memset(mem, 0, sizeof(*lruvec));
	upc_lock_init(&lruvec->lock);
	for (i = 0; i < NR_LRU_LISTS; i++)
		mm_list_init(&lruvec->lists[i]);
	for (i = 0; i < UPC_LRU_BATCHES; i++)
		upc_lock_init(&lruvec->batch[i].lock);
	lruvec->arena = arena;
	workingset_init(lruvec);
	lruvec_set_watermarks(lruvec, arena->limit_pages);
	return lruvec;
}

/**
 * upc_reclaim_init() - Give an arena LRU lists and direct reclaim.
 * @arena: An arena with no lruvec.
 *
 * Context: Before the arena is shared between threads.
 * Return: 0; -EINVAL if @arena is NULL or its limit is smaller than one
 * huge folio (512 pages); -EBUSY if it already has a lruvec; -ENOMEM.
 */
int upc_reclaim_init(struct upc_arena *arena)
{
	struct lruvec *lruvec;

	if (!arena || !reclaim_limit_valid(arena, arena->limit_pages))
		return -EINVAL;
	if (arena->lruvec)
		return -EBUSY;
	lruvec = lruvec_alloc(arena);
	if (!lruvec)
		return -ENOMEM;
	upc_arena_set_reclaim(arena, reclaim_hook, lruvec);
	__atomic_store_n((struct lruvec **)&arena->lruvec, lruvec,
			 __ATOMIC_RELEASE);
	return 0;
}

/* Take every folio off list @lru (their owners keep them).  Lock held. */
static void lruvec_forget_list(struct lruvec *lruvec, enum lru_list lru)
{
	struct upc_list_head *list = &lruvec->lists[lru];

	while (!mm_list_empty(list)) {
		struct folio *folio = lru_to_folio(list->next);

		lruvec_del_folio(lruvec, folio, lru);
		folio_clear_lru(folio);
	}
}

/**
 * upc_reclaim_destroy() - Detach the lruvec of an arena.
 * @arena: The arena, or NULL.
 *
 * Context: No other thread may use the arena.
 */
void upc_reclaim_destroy(struct upc_arena *arena)
{
	struct lruvec *lruvec = arena_lruvec(arena);
	unsigned int i;

	if (!lruvec)
		return;
	/* A worker ends its run's count after unlocking the folios. */
	readahead_flush();
	lru_drain(lruvec);
	lru_lock(&lruvec->lock);
	for (i = 0; i < NR_LRU_LISTS; i++)
		lruvec_forget_list(lruvec, (enum lru_list)i);
	upc_unlock(&lruvec->lock);
	upc_arena_set_reclaim(arena, NULL, NULL);
	__atomic_store_n((struct lruvec **)&arena->lruvec, NULL,
			 __ATOMIC_RELEASE);
	free(lruvec);
}

/**
 * upc_reclaim_set_limit() - Change the memory limit of a reclaiming arena.
 * @arena: An arena with a lruvec.
 * @nr_pages: The new limit in pages.
 *
 * Context: Any thread.
 * Return: 0; -EINVAL if @arena has no lruvec, or @nr_pages is 0,
 * smaller than one huge folio (512 pages) or larger than the arena.
 */
int upc_reclaim_set_limit(struct upc_arena *arena, unsigned long nr_pages)
{
	struct lruvec *lruvec = arena_lruvec(arena);

	if (!lruvec || !reclaim_limit_valid(arena, nr_pages))
		return -EINVAL;
	lruvec_set_watermarks(lruvec, nr_pages);
	return upc_arena_set_limit(arena, nr_pages);
}

/**
 * upc_reclaim_stats_read() - Read an arena's reclaim statistics.
 * @arena: The arena.
 * @out: Where to write them.
 *
 * Context: Any thread; lockless, so a snapshot of moving counters.
 * Return: 0, or -EINVAL if @arena has no lruvec or @out is NULL.
 */
int upc_reclaim_stats_read(struct upc_arena *arena,
			   struct upc_reclaim_stats *out)
{
	struct lruvec *lruvec = arena_lruvec(arena);

	if (!lruvec || !out)
		return -EINVAL;
#define RD(field)	__atomic_load_n(&lruvec->field, __ATOMIC_RELAXED)
	out->nr_cached = upc_arena_charged(arena);
	out->nr_inactive_file = RD(nr_pages[LRU_INACTIVE_FILE]);
	out->nr_active_file = RD(nr_pages[LRU_ACTIVE_FILE]);
	out->nr_inactive_anon = RD(nr_pages[LRU_INACTIVE_ANON]);
	out->nr_active_anon = RD(nr_pages[LRU_ACTIVE_ANON]);
	out->nr_shadow_nodes = RD(nr_shadow_nodes);
	out->nonresident_age = RD(nonresident_age);
	out->workingset_refault = RD(workingset_refault);
	out->workingset_activate = RD(workingset_activate);
	out->workingset_restore = RD(workingset_restore);
	out->workingset_nodereclaim = RD(workingset_nodereclaim);
	out->pgscan = RD(pgscan);
	out->pgsteal = RD(pgsteal);
	out->pgactivate = RD(pgactivate);
	out->pgdeactivate = RD(pgdeactivate);
	out->nr_vmscan_write = RD(nr_vmscan_write);
	out->nr_vmscan_write_errors = RD(nr_vmscan_write_errors);
	out->pswpout = RD(pswpout);
	out->thp_split = RD(thp_split);
	out->pgbusy = RD(pgbusy);
#undef RD
	return 0;
}

/**
 * upc_reclaim_set_swap() - Install where reclaim sends swap-backed folios.
 * @arena: An arena with a lruvec.
 * @ops: The swap layer's hooks, or NULL to stop swapping.
 * @priv: Passed to them.
 *
 * Context: Before reclaim can run on another thread (the hooks and
 * @priv are read without a lock).
 * Return: 0; -EINVAL if @arena has no lruvec, or @ops lacks a hook.
 */
int upc_reclaim_set_swap(struct upc_arena *arena,
			 const struct upc_swap_ops *ops, void *priv)
{
	struct lruvec *lruvec = arena_lruvec(arena);

	if (!lruvec || (ops && (!ops->swap_out || !ops->swap_free)))
		return -EINVAL;
	/*
	 * Stopping leaves the old @priv in place: a reclaimer that loaded
	 * the old hooks just before must still find their argument.
	 */
	if (ops)
		lruvec->swap_priv = priv;
	/* Pairs with the acquire in swap_out_folio(): @priv is set first. */
	__atomic_store_n(&lruvec->swap_ops, ops, __ATOMIC_RELEASE);
	return 0;
}
