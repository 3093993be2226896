/* SPDX-License-Identifier: MIT */
/*
 * mm/huge_memory.h - splitting a large folio (mm/huge_memory.c), for
 * reclaim and for tests.
 */
#ifndef UPCACHE_MM_HUGE_MEMORY_H
#define UPCACHE_MM_HUGE_MEMORY_H

#include <upcache/filemap.h>

/**
 * split_folio() - Split a large folio of a mapping into order-0 folios.
 * @folio: A locked large folio in a mapping, taken off the LRU by the
 *	caller (folio_isolate_lru() or reclaim's isolation), not under
 *	writeback, not in the swap cache and keeping no swap slots
 *	(PG_swapslot).
 * @gfp: Allocation flags for the XArray nodes the split needs.
 *
 * Every page becomes a folio of its own, in place: the same memory, the
 * same index in the mapping, the flags that describe its data (uptodate,
 * dirty, swap-backed, referenced, active, workingset) and the marks of
 * its slot.  @folio becomes the first page's folio, still locked and
 * still off the LRU, with the caller's reference; the others are
 * unlocked, referenced by the mapping only, and at the tail of their
 * LRU list, where reclaim looks next.  The mapping's page count does
 * not change, nor does the arena's charge.
 *
 * Context: Holds @folio's lock; may wait for memory if @gfp allows.
 * Takes the mapping's evict_lock hook (if any) and i_pages lock, then
 * the lruvec lock.
 * Return: 0; -EINVAL if @folio is order 0, in no mapping, listed on
 * the LRU, under writeback, in the swap cache or keeping swap slots;
 * -EAGAIN if anybody but the mapping and the caller holds a reference,
 * or the evict_lock hook refused; -ENOMEM if the nodes could not be
 * allocated.  On error nothing changed.
 */
int split_folio(struct folio *folio, gfp_t gfp);

#endif /* UPCACHE_MM_HUGE_MEMORY_H */
