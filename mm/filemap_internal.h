/* SPDX-License-Identifier: MIT */
/*
 * mm/filemap_internal.h - what mm/filemap.c shares inside the library
 * (with the swap cache) and with tests.
 */
#ifndef UPCACHE_MM_FILEMAP_INTERNAL_H
#define UPCACHE_MM_FILEMAP_INTERNAL_H

#include "upcache/filemap.h"

/**
 * filemap_lock_store() - Store a folio over its range, lock held after.
 * @xas: Cursor on the tree, with the folio's index and order.
 * @folio: The folio to store (already given its mapping and index).
 * @gfp: Allocation flags for nodes and split preallocation.
 * @shadowp: If not NULL, receives the value entry replaced, or NULL.
 *
 * The seed-000 algorithm, shared by the page cache and the swap cache:
 * one conflict scan under the lock that reads a shadow's order in place;
 * a shadow larger than the folio is split with nodes allocated outside
 * the lock, and the shadow and its order are checked again after
 * relocking before the preallocation is used.  The split is the
 * non-uniform one (xas_try_split()): the folio's piece is cut out and the
 * rest of the shadow stays as the largest aligned shadows around it, so
 * a refault into an order-9 shadow costs one node, not eight.
 *
 * Context: Takes xas->xa's lock; on success returns with it held so the
 * caller can account under it.  May drop it to allocate.  On success
 * the cursor may still hold a node allocated for a retry that another
 * thread's store made unneeded: the caller frees it with xas_destroy()
 * once the lock is dropped.
 * Return: 0 (lock held); -EEXIST if a non-value entry is in the range;
 * -ENOMEM (lock not held).
 */
int filemap_lock_store(struct xa_state *xas, struct folio *folio, gfp_t gfp,
		       void **shadowp);

/**
 * struct filemap_split - a split preallocated by filemap_lock_store().
 * @shadow: The shadow entry the nodes were allocated for.
 * @order: Its order; 0 when nothing is preallocated.
 */
struct filemap_split {
	void *shadow;
	int order;
};

/**
 * filemap_store_scan() - The locked part of filemap_lock_store().
 * @xas: Cursor with the folio's index and order, reset or positioned.
 * @folio: The folio to store.
 * @shadowp: If not NULL, receives the value entry replaced, or NULL.
 * @split: What is preallocated for a split; updated.
 *
 * Context: Holds the lock of xas->xa.
 * Return: 0 if stored; 1 if a shadow larger than the folio must be split
 * and @split now names it (allocate, then call again); -EEXIST if a
 * folio is in the range; another error noted in the cursor (-ENOMEM).
 */
int filemap_store_scan(struct xa_state *xas, struct folio *folio,
		       void **shadowp, struct filemap_split *split);

/**
 * filemap_pin() - Take a reference on the folio a lockless lookup found
 * under @xas and check it is still there (L1, L2).
 * @xas: The cursor, on @folio's slot.
 * @folio: What the lookup loaded there.
 *
 * Context: RCU read lock held.
 * Return: true if the caller now holds a reference on a folio still at
 * the cursor; false if the cursor was reset and the lookup must be
 * retried from its index.
 */
bool filemap_pin(struct xa_state *xas, struct folio *folio);

/**
 * filemap_cursor_move() - Point an order-0 cursor at another index.
 * @xas: A cursor used under the lock the caller still holds.
 * @index: The new index.
 *
 * Moves sideways through the cursor's ancestors instead of walking from
 * the head when it can.
 *
 * Context: Holds the lock of xas->xa.
 */
void filemap_cursor_move(struct xa_state *xas, pgoff_t index);

/**
 * filemap_delete_folio() - Take a folio's slots out of the tree.
 * @folio: A locked folio in a mapping.
 * @shadow: NULL or a value entry to leave, of the folio's order.
 *
 * __filemap_remove_folio() without dropping the cache's references:
 * reclaim uses it on a folio whose refcount it has frozen.
 *
 * Context: Holds the folio lock and the mapping's i_pages lock.
 */
void filemap_delete_folio(struct folio *folio, void *shadow);

/**
 * filemap_folio_added() - What follows adding a folio to a mapping.
 * @folio: The folio just added, with a reference held by the caller.
 * @shadow: The value entry it replaced, or NULL.
 *
 * Accounts a refault (workingset_refault()) when @shadow is a shadow,
 * then puts the folio on the LRU (folio_add_lru()).
 *
 * Context: Any thread; no i_pages lock held.
 */
void filemap_folio_added(struct folio *folio, void *shadow);

/**
 * writeback_write_folios() - Write @nr folios under writeback and end it.
 * @mapping: Their mapping, which can write back (a writeback_folio hook).
 * @folios: Locked folios of @mapping in index order, dirty bit cleared
 *	and PG_writeback set (folio_clear_dirty_set_writeback()), tags
 *	not yet moved; at most WRITEBACK_MAX_RUN.
 * @nr: How many.
 * @errs: Receives 0 or -errno per folio.
 *
 * Moves their tags from dirty to writeback (folios_tag_writeback()),
 * then one call of the writeback_folios hook if the mapping has one,
 * else one writeback_folio call each.  A folio whose write failed is
 * dirtied again and the error recorded on the mapping
 * (mapping_set_error()) before its writeback tag and PG_writeback are
 * cleared (folios_end_writeback()), so that its data is never clean
 * unwritten and an fsync waiting for the writeback hears of it.  Two
 * i_pages lock round trips for all the folios, not two each.  The
 * folios stay locked.  Shared by sync (mm/page_writeback.c) and reclaim
 * (mm/vmscan.c).
 *
 * Context: May sleep (the hooks).
 */
void writeback_write_folios(struct address_space *mapping,
			    struct folio **folios, unsigned int nr, int *errs);

/*
 * Test hook: called by filemap_lock_store() with the lock dropped, after
 * the split preallocation and before relocking.  NULL in production; a
 * test sets it to change the tree at exactly that moment.
 */
extern void (*filemap_split_race_hook)(struct xa_state *xas);

#endif /* UPCACHE_MM_FILEMAP_INTERNAL_H */
