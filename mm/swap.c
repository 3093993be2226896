// SPDX-License-Identifier: MIT
/*
 * mm/swap.c - the LRU lists: adding folios, activating them, isolating
 * them for reclaim and taking them off when they are freed.
 *
 * This file owns struct lruvec's lists and counts and the pending-work
 * batches in front of them.  Reclaim (mm/vmscan.c) scans the lists; the
 * working set (mm/workingset.c) decides where refaulting folios start.
 *
 * PG_lru says "on a list of its arena's lruvec"; it is set and cleared
 * only under lruvec->lock, together with the list link.  Whoever clears
 * it (isolation, the free path) owns the folio's ->lru afterwards.  A
 * folio on a list may have any refcount, zero included: its last
 * folio_put() calls lru_folio_freed(), which waits for the lock and
 * unlinks it, and isolation (which needs folio_try_get()) skips it.
 *
 * Batches.  folio_add_lru() and folio_activate() do not take the lruvec
 * lock: they put the folio, with a reference, in one of UPC_LRU_BATCHES
 * small batches picked by the CPU the thread runs on (as the allocator's
 * pcp caches are), under that batch's lock.  A full batch is drained:
 * its entries are taken out under the batch lock, applied under one
 * lruvec-lock round trip and their references dropped after both locks
 * are released (a dropped reference may be the last one, and the free
 * path takes the lruvec lock).  Reclaim drains every batch first.  Lock
 * order: never a batch lock and the lruvec lock at once.
 */
#define _GNU_SOURCE
#include <sched.h>

#include "lru_internal.h"

/* What a batch entry asks for. */
enum lru_op {
	LRU_OP_ADD,
	LRU_OP_ACTIVATE,
};

/* ---- list primitives (lruvec->lock held) ---------------------------------- */

/* Put @folio on the list its flags name and count it; PG_lru untouched. */
static void lruvec_insert(struct lruvec *lruvec, struct folio *folio, bool tail)
{
	enum lru_list lru = folio_lru_list(folio);

	if (tail)
		mm_list_add_tail(&folio->lru, &lruvec->lists[lru]);
	else
		mm_list_add(&folio->lru, &lruvec->lists[lru]);
	/* Atomic stores: reclaim and refaults read the counts unlocked. */
	__atomic_store_n(&lruvec->nr_pages[lru],
			 lruvec->nr_pages[lru] + folio_nr_pages(folio),
			 __ATOMIC_RELAXED);
}

static void lruvec_link(struct lruvec *lruvec, struct folio *folio, bool tail)
{
	UPC_MM_BUG_ON(folio_test_lru(folio));
	lruvec_insert(lruvec, folio, tail);
	folio_set_lru(folio);
}

void lruvec_add_folio(struct lruvec *lruvec, struct folio *folio)
{
	lruvec_link(lruvec, folio, false);
}

void lruvec_add_folio_tail(struct lruvec *lruvec, struct folio *folio)
{
	lruvec_link(lruvec, folio, true);
}

void lruvec_del_folio(struct lruvec *lruvec, struct folio *folio,
		      enum lru_list lru)
{
	mm_list_del_init(&folio->lru);
	UPC_MM_BUG_ON(lruvec->nr_pages[lru] < folio_nr_pages(folio));
	__atomic_store_n(&lruvec->nr_pages[lru],
			 lruvec->nr_pages[lru] - folio_nr_pages(folio),
			 __ATOMIC_RELAXED);
}

void lruvec_move_folio(struct lruvec *lruvec, struct folio *folio,
		       enum lru_list from)
{
	UPC_MM_BUG_ON(!folio_test_lru(folio));
	lruvec_del_folio(lruvec, folio, from);
	lruvec_insert(lruvec, folio, false);
}

/*
 * lruvec_activate_locked() - Make a folio active.  A listed one moves to
 * the head of its active list; one off the lists (its add is pending,
 * or reclaim holds it) only gets PG_active, which the list it reaches
 * obeys.  Either way under the lock, so that a listed folio's PG_active
 * always names the list it is on.
 */
static void lruvec_activate_locked(struct lruvec *lruvec, struct folio *folio)
{
	enum lru_list from = folio_lru_list(folio);

	if (folio_test_active(folio))
		return;
	folio_set_active(folio);
	if (folio_test_lru(folio))
		lruvec_move_folio(lruvec, folio, from);
	lru_stat_add(&lruvec->pgactivate, folio_nr_pages(folio));
	workingset_age_nonresident(lruvec, folio_nr_pages(folio));
}

/* ---- batches ------------------------------------------------------------------ */

static struct lru_batch *lru_batch_this_cpu(struct lruvec *lruvec)
{
	int cpu = sched_getcpu();

	return &lruvec->batch[cpu < 0 ? 0 : (unsigned int)cpu % UPC_LRU_BATCHES];
}

/* A batch's entries, taken out so they are applied without its lock. */
struct lru_work {
	unsigned int nr;
	struct folio *folios[UPC_LRU_BATCH_SIZE];
	unsigned char op[UPC_LRU_BATCH_SIZE];
};

/* lru_work_take() - Move @batch's entries to @work.  Batch lock held. */
static void lru_work_take(struct lru_batch *batch, struct lru_work *work)
{
	unsigned int i;

	for (i = 0; i < batch->nr; i++) {
		work->folios[i] = batch->folios[i];
		work->op[i] = batch->op[i];
	}
	work->nr = batch->nr;
	/* lru_drain() peeks at ->nr without the lock. */
	__atomic_store_n(&batch->nr, 0, __ATOMIC_RELAXED);
}

/* lru_work_apply() - Apply taken entries; drop their references after. */
static void lru_work_apply(struct lruvec *lruvec, struct lru_work *work)
{
	unsigned int i;

	if (!work->nr)
		return;
	lru_lock(&lruvec->lock);
	for (i = 0; i < work->nr; i++) {
		struct folio *folio = work->folios[i];

		if (work->op[i] == LRU_OP_ADD)
			lruvec_add_folio(lruvec, folio);
		else
			lruvec_activate_locked(lruvec, folio);
	}
	upc_unlock(&lruvec->lock);
	for (i = 0; i < work->nr; i++)
		folio_put(work->folios[i]);
}

/* lru_batch_drain() - Apply one batch. */
static void lru_batch_drain(struct lruvec *lruvec, struct lru_batch *batch)
{
	struct lru_work work;

	lru_lock(&batch->lock);
	lru_work_take(batch, &work);
	upc_unlock(&batch->lock);
	lru_work_apply(lruvec, &work);
}

void lru_drain(struct lruvec *lruvec)
{
	unsigned int i;

	for (i = 0; i < UPC_LRU_BATCHES; i++)
		if (__atomic_load_n(&lruvec->batch[i].nr, __ATOMIC_RELAXED))
			lru_batch_drain(lruvec, &lruvec->batch[i]);
}

/*
 * lru_batch_queue() - Queue @op on @folio (a reference is taken); apply
 * the batch when it is full.
 */
static void lru_batch_queue(struct lruvec *lruvec, struct folio *folio,
			    enum lru_op op)
{
	struct lru_batch *batch = lru_batch_this_cpu(lruvec);
	struct lru_work work = { .nr = 0 };

	folio_get(folio);
	lru_lock(&batch->lock);
	batch->folios[batch->nr] = folio;
	batch->op[batch->nr] = (unsigned char)op;
	__atomic_store_n(&batch->nr, batch->nr + 1, __ATOMIC_RELAXED);
	if (batch->nr == UPC_LRU_BATCH_SIZE)
		lru_work_take(batch, &work);
	upc_unlock(&batch->lock);
	lru_work_apply(lruvec, &work);
}

/* ---- the API ---------------------------------------------------------------- */

/**
 * folio_add_lru() - Put a folio on its arena's LRU.
 * @folio: A folio the caller holds a reference on, not on an LRU.
 *
 * Queued in this CPU's batch with a reference; the list (active by
 * PG_active, anon by PG_swapbacked) is chosen when the batch is applied.
 *
 * Context: Any thread.  Takes a batch lock; the lruvec lock when the
 * batch fills.
 */
void folio_add_lru(struct folio *folio)
{
	struct lruvec *lruvec = folio_lruvec(folio);

	if (!lruvec)
		return;
	UPC_MM_BUG_ON(folio_test_lru(folio));
	lru_batch_queue(lruvec, folio, LRU_OP_ADD);
}

/**
 * folio_activate() - Move a folio to the active list.
 * @folio: A folio the caller holds a reference on.
 *
 * Context: Any thread.  Takes a batch lock; the lruvec lock when the
 * batch fills.
 */
void folio_activate(struct folio *folio)
{
	struct lruvec *lruvec = folio_lruvec(folio);

	if (!lruvec || folio_test_active(folio))
		return;
	lru_batch_queue(lruvec, folio, LRU_OP_ACTIVATE);
}

/**
 * folio_mark_accessed() - Note a use of the folio (for reclaim).
 * @folio: The folio; the caller holds a reference.
 *
 * Inactive, unreferenced -> inactive, referenced -> active (queued),
 * unreferenced.  Without a lruvec only PG_referenced is set; folios of
 * unevictable mappings are never activated.
 *
 * Context: Any thread.  May take a batch lock.
 */
void folio_mark_accessed(struct folio *folio)
{
	struct lruvec *lruvec = folio_lruvec(folio);
	struct address_space *mapping;

	if (!folio_test_referenced(folio)) {
		folio_set_referenced(folio);
		return;
	}
	if (!lruvec || folio_test_active(folio))
		return;
	/*
	 * Only a reference is held: truncation or reclaim may clear the
	 * mapping meanwhile (filemap_unlink_folio()), so read it once.
	 */
	mapping = __atomic_load_n(&folio->mapping, __ATOMIC_RELAXED);
	if (mapping && mapping->flags & (1UL << AS_UNEVICTABLE))
		return;
	lru_batch_queue(lruvec, folio, LRU_OP_ACTIVATE);
	folio_clear_referenced(folio);
}

/**
 * lru_add_drain_all() - Apply every pending LRU batch of an arena.
 * @arena: The arena (nothing happens without a lruvec).
 *
 * Context: Any thread; takes the batch locks and the lruvec lock.
 */
void lru_add_drain_all(struct upc_arena *arena)
{
	struct lruvec *lruvec = arena_lruvec(arena);

	if (lruvec)
		lru_drain(lruvec);
}

/**
 * folio_isolate_lru() - Take a folio off its LRU list.
 * @folio: A folio the caller holds a reference on.
 *
 * Context: Takes the lruvec lock.
 * Return: true if the folio was on a list; it is now off it, PG_lru is
 * clear and the caller holds one more reference.
 */
bool folio_isolate_lru(struct folio *folio)
{
	struct lruvec *lruvec = folio_lruvec(folio);
	bool isolated = false;

	if (!lruvec || !folio_test_lru(folio))
		return false;
	lru_lock(&lruvec->lock);
	if (folio_test_lru(folio)) {
		lruvec_del_folio(lruvec, folio, folio_lru_list(folio));
		folio_clear_lru(folio);
		folio_get(folio);
		isolated = true;
	}
	upc_unlock(&lruvec->lock);
	return isolated;
}

/**
 * folio_putback_lru() - Return an isolated folio to the LRU.
 * @folio: A folio isolated by folio_isolate_lru().
 *
 * Context: Takes the lruvec lock.
 */
void folio_putback_lru(struct folio *folio)
{
	struct lruvec *lruvec = folio_lruvec(folio);

	lru_lock(&lruvec->lock);
	lruvec_add_folio(lruvec, folio);
	upc_unlock(&lruvec->lock);
	folio_put(folio);
}

void lru_folio_freed(struct folio *folio)
{
	struct lruvec *lruvec = folio_lruvec(folio);

	lru_lock(&lruvec->lock);
	/* Nobody else clears PG_lru of a folio nobody references. */
	if (folio_test_clear_lru(folio))
		lruvec_del_folio(lruvec, folio, folio_lru_list(folio));
	upc_unlock(&lruvec->lock);
	folio_clear_active(folio);
}
