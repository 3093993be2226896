/* SPDX-License-Identifier: MIT */
/*
 * mm/lru_internal.h - what the LRU (mm/swap.c), reclaim (mm/vmscan.c),
 * the working set (mm/workingset.c), the page cache, readahead and the
 * folio free path share about struct lruvec, and nobody else.
 */
#ifndef UPCACHE_MM_LRU_INTERNAL_H
#define UPCACHE_MM_LRU_INTERNAL_H

#include <upcache/filemap.h>
#include <upcache/vmscan.h>

#include "internal.h"
#include "stats_internal.h"

/* lru_lock() - Take an LRU lock, counted in lru_lock_acquires. */
static inline void lru_lock(upc_lock_t *lock)
{
	upc_lock_nostat(lock);
	upc_count(lru_lock_acquires);
}

/* arena_lruvec() - The lruvec of @arena, or NULL. */
static inline struct lruvec *arena_lruvec(const struct upc_arena *arena)
{
	return arena ? __atomic_load_n((struct lruvec **)&arena->lruvec,
				       __ATOMIC_ACQUIRE) : NULL;
}

/* folio_lruvec() - The lruvec of @folio's arena, or NULL. */
static inline struct lruvec *folio_lruvec(const struct folio *folio)
{
	return arena_lruvec(folio->arena);
}

/**
 * reclaim_io_start() - Count a run of folios, locked for a read that
 * needs no memory (a readahead worker's, or a reader's own while it
 * reads), as I/O under way.
 * @arena: Their arena.
 *
 * Reclaim cannot evict them until the read unlocks them, and can then:
 * direct reclaim that finds nothing to free waits for such a run to end
 * (reclaim_io_end()) instead of failing its allocation, as the kernel's
 * reclaim waits for I/O.  Only runs whose read needs nothing from any
 * thread that may be allocating (the one that queued them included)
 * may count, or a reclaimer could wait for itself.
 *
 * Context: Any thread.
 * Return: The lruvec to hand to reclaim_io_end(); NULL (nothing
 * counted) if @arena has none.
 */
struct lruvec *reclaim_io_start(struct upc_arena *arena);

/**
 * reclaim_io_end() - A run counted by reclaim_io_start() is read (or
 * will never be): wake the reclaimers waiting.
 * @lruvec: What reclaim_io_start() returned; NULL does nothing.
 *
 * Context: Any thread, after unlocking the run's folios.
 */
void reclaim_io_end(struct lruvec *lruvec);

/* lru_stat_add() - Add to a lruvec counter (relaxed atomic). */
static inline void lru_stat_add(uint64_t *counter, uint64_t nr)
{
	__atomic_fetch_add(counter, nr, __ATOMIC_RELAXED);
}

/* lru_pages() - Pages on list @lru (read without the lock). */
static inline unsigned long lru_pages(const struct lruvec *lruvec,
				      enum lru_list lru)
{
	return __atomic_load_n(&lruvec->nr_pages[lru], __ATOMIC_RELAXED);
}

/*
 * lruvec_can_swap() - The swap hook is installed, so anon folios can be
 * reclaimed: reclaim scans the anon lists, and they count in the
 * working set a refault is measured against.
 */
static inline bool lruvec_can_swap(const struct lruvec *lruvec)
{
	return __atomic_load_n(&lruvec->swap_ops, __ATOMIC_RELAXED) != NULL;
}

/* mapping_evict_hooked() - @mapping has an evict_lock hook (shmem's). */
static inline bool mapping_evict_hooked(const struct address_space *mapping)
{
	return mapping->a_ops && mapping->a_ops->evict_lock;
}

/*
 * mapping_evict_lock() - What taking folios out of @mapping needs, as
 * reclaim and a split do: its evict_lock hook, if it has one, then its
 * i_pages lock.  Return: false, holding nothing, if the hook refuses.
 */
static inline bool mapping_evict_lock(struct address_space *mapping)
{
	if (mapping_evict_hooked(mapping) &&
	    !mapping->a_ops->evict_lock(mapping))
		return false;
	xa_lock(&mapping->i_pages);
	return true;
}

/*
 * mapping_evict_unlock() - Undo a successful mapping_evict_lock().  The
 * hook is looked up before the i_pages lock goes: once it has, the
 * folios taken out may have been the mapping's last, and its owner may
 * free it (fd_file_destroy() waits only for the lock).  A mapping with
 * a hook is kept alive by the hook itself (shmem's evict lock).
 */
static inline void mapping_evict_unlock(struct address_space *mapping)
{
	bool hooked = mapping_evict_hooked(mapping);

	xa_unlock(&mapping->i_pages);
	if (hooked)
		mapping->a_ops->evict_unlock(mapping);
}

/* folio_lru_list() - The list @folio belongs on, by its flags. */
static inline enum lru_list folio_lru_list(const struct folio *folio)
{
	enum lru_list lru = folio_test_swapbacked(folio) ?
			    LRU_INACTIVE_ANON : LRU_INACTIVE_FILE;

	return folio_test_active(folio) ? lru + 1 : lru;
}

/*
 * lruvec_add_folio() - List @folio at the head of its list and set
 * PG_lru; lruvec_add_folio_tail() at the tail.  Caller holds the lock.
 */
void lruvec_add_folio(struct lruvec *lruvec, struct folio *folio);
void lruvec_add_folio_tail(struct lruvec *lruvec, struct folio *folio);

/*
 * lruvec_del_folio() - Unlink a listed folio (PG_lru set by the caller's
 * knowledge) from list @lru and fix the count.  Caller holds the lock.
 */
void lruvec_del_folio(struct lruvec *lruvec, struct folio *folio,
		      enum lru_list lru);

/*
 * lruvec_move_folio() - Move a listed folio from list @from to the head
 * of the list its flags name now (the caller has just changed them),
 * with PG_lru set throughout.  A last reference dropped meanwhile then
 * still sees the folio listed and waits for the lock to unlink it
 * (lru_folio_freed()); were PG_lru clear for a moment, the folio could
 * be freed while still linked.  Caller holds the lock.
 */
void lruvec_move_folio(struct lruvec *lruvec, struct folio *folio,
		       enum lru_list from);

/*
 * lru_folio_freed() - The last reference to a folio still on an LRU
 * list is gone: take it off.  Called by folio_put_refs() before the
 * folio goes back to the allocator.  Takes the lruvec lock.
 */
void lru_folio_freed(struct folio *folio);

/* lru_drain() - Apply every pending batch of @lruvec. */
void lru_drain(struct lruvec *lruvec);

/* workingset_age_nonresident() - Advance the eviction clock by @nr. */
void workingset_age_nonresident(struct lruvec *lruvec, unsigned long nr);

/*
 * workingset_update_node() - xa_update_node_t of the page cache: keep a
 * node on its lruvec's shadow node list exactly while it holds only
 * shadow entries.  Runs under the tree's lock.
 */
void workingset_update_node(struct xa_node *node);

/*
 * mapping_set_update() - Make @xas report node changes of @mapping's
 * tree to workingset_update_node(), if the mapping's arena reclaims and
 * the mapping's value entries are shadows (not shmem's swap entries).
 */
static inline void mapping_set_update(struct xa_state *xas,
				      struct address_space *mapping)
{
	if (arena_lruvec(mapping->arena) &&
	    !(mapping->flags & (1UL << AS_SWAPBACKED)))
		xas_set_update(xas, workingset_update_node);
}

/*
 * workingset_shrink_shadows() - Free the oldest shadow-only nodes while
 * they exceed their bound.  Return: nodes freed.
 */
unsigned long workingset_shrink_shadows(struct lruvec *lruvec);

/* workingset_init() - Give a new lruvec its id and shadow node list. */
void workingset_init(struct lruvec *lruvec);

#endif /* UPCACHE_MM_LRU_INTERNAL_H */
