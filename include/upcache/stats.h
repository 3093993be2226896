/* SPDX-License-Identifier: MIT */
/*
 * upcache/stats.h - deterministic per-thread counters.
 *
 * Time is noisy on a shared machine; counts are not.  upcache counts, per
 * thread, the events its design arguments are made of: XArray walks (a
 * cursor descending from the root), node allocations and frees, and lock
 * acquisitions.  Tests assert them ("adding over an order-0 shadow takes
 * one walk") and upcache-bench prints them per operation.
 *
 * The counters live in thread-local storage and are plain increments: no
 * atomic operation and no shared cache line on any fast path.
 */
#ifndef UPCACHE_STATS_H
#define UPCACHE_STATS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct upc_thread_stats - counters of one thread since its last reset.
 * @xa_walks: Cursor descents from an XArray's root (xas_load(),
 *	xas_find(), xas_create() ... starting from a reset cursor).
 *	Moving an already-positioned cursor sideways is not a walk.
 * @xa_node_allocs: XArray nodes allocated.
 * @xa_node_frees: XArray nodes freed: nodes that left a tree (counted
 *	when queued for freeing after an RCU grace period) and
 *	preallocated nodes given back unused.
 * @lock_acquires: upc_lock()/upc_trylock() acquisitions: every
 *	xa_lock() (so the page cache's i_pages lock round trips) and the
 *	other locks of the algorithms measured.
 * @arena_lock_acquires: Locks taken inside an arena's page allocator
 *	(its per-CPU caches and buddy lists), counted apart so that
 *	allocating a folio does not blur the lock round trips above.
 * @lru_lock_acquires: LRU locks taken (a lruvec's lock and its batches'
 *	locks, see upcache/vmscan.h), counted apart for the same reason.
 */
struct upc_thread_stats {
	uint64_t xa_walks;
	uint64_t xa_node_allocs;
	uint64_t xa_node_frees;
	uint64_t lock_acquires;
	uint64_t arena_lock_acquires;
	uint64_t lru_lock_acquires;
};

/**
 * upc_stats_thread() - Read the calling thread's counters.
 * @out: Where to copy them.
 */
void upc_stats_thread(struct upc_thread_stats *out);

/**
 * upc_stats_thread_reset() - Zero the calling thread's counters.
 */
void upc_stats_thread_reset(void);

#ifdef __cplusplus
}
#endif

#endif /* UPCACHE_STATS_H */
