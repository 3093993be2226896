/* SPDX-License-Identifier: MIT */
/*
 * upcache/vmscan.h - reclaim and the working set: LRU lists, eviction
 * under the cache's memory limit, shadow entries and refault detection.
 *
 * Every arena that reclaims has one struct lruvec (upc_reclaim_init()).
 * Folios added to a mapping of that arena go on its LRU lists
 * (folio_add_lru(), called by filemap_add_folio() and the grab path).
 * When an allocation would pass the arena's charge limit, the allocating
 * thread reclaims (direct reclaim): it scans the inactive file list from
 * its tail, evicts clean folios and leaves a shadow entry
 * (workingset_eviction()) in their place.  Dirty file folios are written
 * back through their mapping's a_ops->writeback_folio first (kept if it
 * has none); swap-backed folios go to the swap hook (struct
 * upc_swap_ops) if one is installed and are kept otherwise.  Adding a folio over a shadow
 * measures the refault distance (workingset_refault()) and activates the
 * folio when it was part of the working set.
 *
 * Watermarks, in free pages below the limit: direct reclaim runs when an
 * allocation fails its charge and frees at least the larger of the
 * request and UPC_RECLAIM_BATCH pages, and up to the high watermark;
 * upc_reclaim_balance() (background reclaim, for a caller's own thread)
 * does nothing above the low watermark and reclaims up to the high one
 * below it.
 *
 * Locking: lruvec->lock (a upc_lock_t) protects the lists, their counts
 * and PG_lru/PG_active of listed folios.  It nests inside no other lock
 * and nothing is taken under it.  Adds and activations go through small
 * per-CPU-like batches, each with its own lock, drained under one
 * lruvec-lock round trip.  lruvec locks count in the thread statistic
 * lru_lock_acquires (upcache/stats.h), not in lock_acquires.
 */
#ifndef UPCACHE_VMSCAN_H
#define UPCACHE_VMSCAN_H

#include <stdbool.h>
#include <stdint.h>

#include "folio.h"
#include "lock.h"
#include "xarray.h"

#ifdef __cplusplus
extern "C" {
#endif

/* enum lru_list - the LRU lists of a lruvec. */
enum lru_list {
	LRU_INACTIVE_ANON,
	LRU_ACTIVE_ANON,
	LRU_INACTIVE_FILE,
	LRU_ACTIVE_FILE,
	NR_LRU_LISTS
};

/* Pages direct reclaim frees at least (the kernel's SWAP_CLUSTER_MAX). */
#define UPC_RECLAIM_BATCH	32
/* Batches of LRU operations, and folios per batch. */
#define UPC_LRU_BATCHES		16
#define UPC_LRU_BATCH_SIZE	15

/**
 * struct lru_batch - pending LRU operations of one CPU-like slot.
 * @lock: Protects the batch (counted in lru_lock_acquires).
 * @nr: Folios in the batch.
 * @folios: The folios, each with a reference held by the batch.
 * @op: What to do with each (private to mm/swap.c).
 */
struct lru_batch {
	upc_lock_t lock;
	unsigned int nr;
	struct folio *folios[UPC_LRU_BATCH_SIZE];
	unsigned char op[UPC_LRU_BATCH_SIZE];
} __attribute__((aligned(64)));

struct upc_swap_ops;

/**
 * struct lruvec - the LRU lists and reclaim state of one arena.
 * @lock: Protects @lists and @nr_pages.
 * @lists: Folios linked through folio->lru, most recent at the head.
 * @nr_pages: Pages on each list.
 * @arena: The arena.
 * @id: Small number that shadow entries carry to name this lruvec.
 * @nonresident_age: Advanced by every eviction and activation (atomic).
 * @wmark_low: Background reclaim starts below this many free pages.
 * @wmark_high: Reclaim stops at this many free pages.
 * @shadow_lock: Protects @shadow_nodes and @nr_shadow_nodes.
 * @shadow_nodes: Mapping tree nodes holding only shadows, oldest last.
 * @nr_shadow_nodes: Nodes on @shadow_nodes.
 * @workingset_refault: Pages of the folios added over a shadow of this
 *	lruvec.
 * @workingset_activate: Refaulted pages activated (distance within the
 *	active list).
 * @workingset_restore: Activated refaulted pages that were working set
 *	when evicted.
 * @workingset_nodereclaim: Shadow-only nodes reclaimed.
 * @pgscan: Pages isolated from the inactive lists for reclaim (a large
 *	folio counts its pages).
 * @pgsteal: Pages evicted (a large folio counts its pages).
 * @pgactivate: Pages moved to an active list (a large folio counts its
 *	pages).
 * @pgdeactivate: Pages moved from an active list to an inactive one.
 * @nr_vmscan_write: Pages reclaim wrote back: before evicting them, and
 *	the dirty pages that follow those in their file, written with
 *	them and left cached, clean.
 * @nr_vmscan_write_errors: Writebacks by reclaim that failed (the folio
 *	stayed, dirty).
 * @pswpout: Pages evicted through the swap hook.
 * @thp_split: Large folios split because the swap hook found them too
 *	large to go whole.
 * @pgbusy: Folios reclaim kept because they were held, maybe for a moment:
 *	locked, under writeback, or referenced beyond the cache without a
 *	pin (a reader copying from it; the holder may be the reclaiming
 *	thread itself; a span's pin, which may never go, is not counted
 *	by the eviction).  Direct reclaim that freed nothing waits for them
 *	while others evict or within a second of the last eviction
 *	(mm/vmscan.c, reclaim_hook()).
 * @swap_ops: The swap hook, or NULL (upc_reclaim_set_swap()).
 * @swap_priv: Its argument.
 * @nr_isolated: Folios reclaimers hold off the lists right now (atomic).
 * @nr_io: Runs of folios locked for a read that needs nothing from the
 *	threads that wait for it (readahead's), not yet done (atomic; a
 *	futex word).
 * @reclaim_seq: Moves on when a reclaimer is done with a batch (atomic;
 *	a futex word).
 * @reclaim_waiters: Direct reclaimers sleeping on @nr_io or @reclaim_seq.
 * @batch: Pending adds and activations.
 *
 * Counters are updated with relaxed atomic adds and read through
 * upc_reclaim_stats_read().
 */
struct lruvec {
	upc_lock_t lock;
	struct upc_list_head lists[NR_LRU_LISTS];
	unsigned long nr_pages[NR_LRU_LISTS];
	struct upc_arena *arena;
	unsigned int id;
	unsigned long nonresident_age;
	unsigned long wmark_low;
	unsigned long wmark_high;
	upc_lock_t shadow_lock;
	struct upc_list_head shadow_nodes;
	unsigned long nr_shadow_nodes;
	uint64_t workingset_refault;
	uint64_t workingset_activate;
	uint64_t workingset_restore;
	uint64_t workingset_nodereclaim;
	uint64_t pgscan;
	uint64_t pgsteal;
	uint64_t pgactivate;
	uint64_t pgdeactivate;
	uint64_t nr_vmscan_write;
	uint64_t nr_vmscan_write_errors;
	uint64_t pswpout;
	uint64_t thp_split;
	uint64_t pgbusy;
	const struct upc_swap_ops *swap_ops;
	void *swap_priv;
	unsigned long nr_isolated;
	uint32_t nr_io;
	uint32_t reclaim_seq;
	uint32_t reclaim_waiters;
	struct lru_batch batch[UPC_LRU_BATCHES];
};

/**
 * struct upc_reclaim_stats - what upc_reclaim_stats_read() reports.
 * @nr_cached: Pages charged to the arena (cached or otherwise held).
 * @nr_inactive_file: Pages on the inactive file list.
 * @nr_active_file: Pages on the active file list.
 * @nr_inactive_anon: Pages on the inactive anon list.
 * @nr_active_anon: Pages on the active anon list.
 * @nr_shadow_nodes: Tree nodes holding only shadows, tracked.
 * @nonresident_age: The eviction clock.
 * @workingset_refault: See struct lruvec.
 * @workingset_activate: See struct lruvec.
 * @workingset_restore: See struct lruvec.
 * @workingset_nodereclaim: See struct lruvec.
 * @pgscan: See struct lruvec.
 * @pgsteal: Evictions.
 * @pgactivate: See struct lruvec.
 * @pgdeactivate: See struct lruvec.
 * @nr_vmscan_write: See struct lruvec.
 * @nr_vmscan_write_errors: See struct lruvec.
 * @pswpout: See struct lruvec.
 * @thp_split: See struct lruvec.
 * @pgbusy: See struct lruvec.
 */
struct upc_reclaim_stats {
	uint64_t nr_cached;
	uint64_t nr_inactive_file;
	uint64_t nr_active_file;
	uint64_t nr_inactive_anon;
	uint64_t nr_active_anon;
	uint64_t nr_shadow_nodes;
	uint64_t nonresident_age;
	uint64_t workingset_refault;
	uint64_t workingset_activate;
	uint64_t workingset_restore;
	uint64_t workingset_nodereclaim;
	uint64_t pgscan;
	uint64_t pgsteal;
	uint64_t pgactivate;
	uint64_t pgdeactivate;
	uint64_t nr_vmscan_write;
	uint64_t nr_vmscan_write_errors;
	uint64_t pswpout;
	uint64_t thp_split;
	uint64_t pgbusy;
};

/**
 * struct upc_swap_ops - where reclaim sends swap-backed folios.
 * @swap_out: Write @folio (locked, isolated from the LRU, swap-backed,
 *	its dirty bit already cleared by reclaim) to swap and store in
 *	*@entryp the value entry that is to replace it in its mapping.
 *	Must not take the folio's i_pages lock on return (reclaim takes it
 *	next).  Return 0, or a negative errno to keep the folio (reclaim
 *	marks it dirty again if it was); -EFBIG says a large folio is too
 *	large to go whole, and reclaim splits it into order-0 folios and
 *	offers the first page's at once, the others from the tail of the
 *	list.
 * @swap_out_folios: Optional: @swap_out for @nr (at most
 *	UPC_RECLAIM_BATCH) folios at once, so that their writes can go
 *	together; @entries[i] and @errs[i] receive what *@entryp and the
 *	return value of @swap_out would for @folios[i].  Reclaim uses it for
 *	the swap-backed folios of a batch whose mapping has no evict_lock
 *	hook (anonymous regions), @swap_out for the others and to retry a
 *	folio refused with -EFBIG once split.
 * @swap_free: Drop an entry @swap_out made for @folio (still locked)
 *	that reclaim could not use: the folio was referenced or dirtied
 *	again before it could go.
 *
 * A hook point for the swap layer (mm/swap_state.c, mm/swapfile.c);
 * reclaim only scans the anon lists while one is installed.
 */
struct upc_swap_ops {
	int (*swap_out)(struct folio *folio, void **entryp, void *priv);
	void (*swap_out_folios)(struct folio **folios, unsigned int nr,
				void **entries, int *errs, void *priv);
	void (*swap_free)(struct folio *folio, void *entry, void *priv);
};

/* ---- setup ---------------------------------------------------------------- */

/**
 * upc_reclaim_init() - Give an arena LRU lists and direct reclaim.
 * @arena: An arena with no lruvec and nothing charged yet.
 *
 * Attaches a lruvec (arena->lruvec), sets the watermarks from the
 * arena's charge limit and installs the reclaim hook.
 *
 * Context: Before the arena is shared between threads.
 * Return: 0; -EINVAL if @arena is NULL or its limit is smaller than one
 * huge folio (512 pages); -EBUSY if it already has a lruvec; -ENOMEM.
 */
int upc_reclaim_init(struct upc_arena *arena);

/**
 * upc_reclaim_destroy() - Detach the lruvec of an arena.
 * @arena: The arena, or NULL.
 *
 * Waits for the readahead workers (readahead_flush()), which may still
 * be counting a run as I/O under way in the lruvec; drains the
 * batches, takes every folio still listed off its list (its owner keeps
 * it), uninstalls the hook and frees the lruvec.  Every
 * mapping of the arena must have been truncated: shadow-only nodes still
 * in a tree would be left tracked by freed memory.
 *
 * Context: No other thread may use the arena.
 */
void upc_reclaim_destroy(struct upc_arena *arena);

/**
 * upc_reclaim_set_limit() - Change the memory limit of a reclaiming arena.
 * @arena: An arena with a lruvec.
 * @nr_pages: The new limit in pages.
 *
 * Sets the arena's charge limit and recomputes the watermarks.  A limit
 * below what is charged is reached by the next allocation's reclaim,
 * which frees all of the excess (as much as can be freed) before it
 * gives up.
 *
 * Context: Any thread.
 * Return: 0; -EINVAL if @arena has no lruvec, or @nr_pages is 0,
 * smaller than one huge folio (512 pages) or larger than the arena.
 */
int upc_reclaim_set_limit(struct upc_arena *arena, unsigned long nr_pages);

/**
 * upc_reclaim_set_swap() - Install where reclaim sends swap-backed folios.
 * @arena: An arena with a lruvec.
 * @ops: The hooks (kept by reference), or NULL to stop swapping out.
 * @priv: Passed to each hook.
 *
 * Without hooks (the default) swap-backed folios are never evicted.
 * Folios of AS_UNEVICTABLE mappings stay either way.
 *
 * Context: Before reclaim may run on another thread.
 * Return: 0; -EINVAL if @arena has no lruvec or @ops lacks a hook.
 */
int upc_reclaim_set_swap(struct upc_arena *arena,
			 const struct upc_swap_ops *ops, void *priv);

/* ---- LRU ------------------------------------------------------------------- */

/**
 * folio_add_lru() - Put a folio on its arena's LRU.
 * @folio: A folio the caller holds a reference on, not on an LRU.
 *
 * The folio goes on the active list if PG_active is set (a refault that
 * decided activation), else on the inactive one; the file or anon list
 * by PG_swapbacked.  Batched: the folio reaches the list at the next
 * drain, with a reference held until then.  Nothing happens if the
 * arena has no lruvec.
 *
 * Context: Any thread.  Takes a batch lock, and the lruvec lock once
 * per UPC_LRU_BATCH_SIZE calls.
 */
void folio_add_lru(struct folio *folio);

/**
 * folio_activate() - Move a folio to the active list.
 * @folio: A folio the caller holds a reference on.
 *
 * Batched like folio_add_lru().  A folio not on a list (pending add,
 * isolated) is only marked PG_active, which the list it reaches obeys.
 *
 * Context: Any thread.  Takes a batch lock, sometimes the lruvec lock.
 */
void folio_activate(struct folio *folio);

/**
 * folio_mark_accessed() - Note a use of the folio (for reclaim).
 * @folio: The folio; the caller holds a reference.
 *
 * First use: sets PG_referenced.  Second use of an inactive folio:
 * activates it (referenced -> active promotion) and clears
 * PG_referenced.  Without a lruvec only PG_referenced is set.
 *
 * Context: Any thread.  May take a batch lock.
 */
void folio_mark_accessed(struct folio *folio);

/**
 * lru_add_drain_all() - Apply every pending LRU batch of an arena.
 * @arena: The arena (nothing happens without a lruvec).
 *
 * Context: Any thread; takes the batch locks and the lruvec lock.
 */
void lru_add_drain_all(struct upc_arena *arena);

/**
 * folio_isolate_lru() - Take a folio off its LRU list.
 * @folio: A folio the caller holds a reference on.
 *
 * On success the folio is off every list, PG_lru is clear and the caller
 * holds one more reference, which folio_putback_lru() gives back.
 *
 * Context: Takes the lruvec lock.
 * Return: true if the folio was on a list and is now isolated.
 */
bool folio_isolate_lru(struct folio *folio);

/**
 * folio_putback_lru() - Return an isolated folio to the LRU.
 * @folio: A folio isolated by folio_isolate_lru().
 *
 * Lists it by PG_active and drops the isolation reference.
 *
 * Context: Takes the lruvec lock.
 */
void folio_putback_lru(struct folio *folio);

/* ---- reclaim ----------------------------------------------------------------- */

/**
 * shrink_inactive_list() - Scan the tail of an inactive list and evict.
 * @lruvec: The lruvec.
 * @nr_to_scan: How many pages to isolate at most (a large folio counts
 *	its pages, as the kernel counts them; the last one may pass it).
 * @lru: LRU_INACTIVE_FILE or LRU_INACTIVE_ANON.
 *
 * Folios locked, under writeback, unevictable or still used by someone
 * else are put back, and so are dirty file folios whose mapping cannot
 * write back and swap-backed ones without a swap hook.  Dirty file
 * folios are written back (a_ops->writeback_folio) and evicted; the
 * others are replaced by a shadow entry (or their swap entry) and freed.
 *
 * Context: Any thread; holds no folio lock it could wait on (trylock).
 * Return: The number of pages freed.
 */
unsigned long shrink_inactive_list(struct lruvec *lruvec,
				   unsigned long nr_to_scan, enum lru_list lru);

/**
 * shrink_active_list() - Deactivate folios from the tail of an active list.
 * @lruvec: The lruvec.
 * @nr_to_scan: How many folios to move at most.
 * @lru: LRU_ACTIVE_FILE or LRU_ACTIVE_ANON.
 *
 * Moves them to the head of the inactive list, PG_referenced cleared
 * and PG_workingset set.
 *
 * Context: Takes the lruvec lock.
 * Return: The number of folios moved.
 */
unsigned long shrink_active_list(struct lruvec *lruvec,
				 unsigned long nr_to_scan, enum lru_list lru);

/**
 * upc_reclaim_pages() - Reclaim memory from an arena.
 * @arena: The arena.
 * @nr_pages: How many pages to free.
 *
 * Drains the batches, keeps the active file list no larger than the
 * inactive one and shrinks the inactive file list (and, while a swap
 * hook is installed, the anon lists likewise) until @nr_pages are freed
 * or two rounds over the lists freed nothing more; then trims the
 * shadow-only nodes if they exceed their bound.
 *
 * Context: Any thread holding no folio lock of the arena's folios that
 * it expects reclaim to evict, and no i_pages lock.
 * Return: The number of pages freed (0 without a lruvec).
 */
unsigned long upc_reclaim_pages(struct upc_arena *arena,
				unsigned long nr_pages);

/**
 * upc_reclaim_balance() - Background reclaim: restore the watermark.
 * @arena: The arena.
 *
 * Context: As upc_reclaim_pages(); meant for a caller's own thread.
 * Return: The number of pages freed: 0 while the free pages are at or
 * above the low watermark, else what it took to reach the high one.
 */
unsigned long upc_reclaim_balance(struct upc_arena *arena);

/**
 * upc_reclaim_stats_read() - Read an arena's reclaim statistics.
 * @arena: The arena.
 * @out: Where to write them.
 *
 * Context: Any thread; lockless, so a snapshot of moving counters.
 * Return: 0, or -EINVAL if @arena has no lruvec or @out is NULL.
 */
int upc_reclaim_stats_read(struct upc_arena *arena,
			   struct upc_reclaim_stats *out);

/* ---- the working set ---------------------------------------------------------- */

/**
 * workingset_eviction() - The shadow entry for a folio being evicted.
 * @folio: A locked folio about to leave its mapping.
 *
 * Advances the lruvec's nonresident age by the folio's pages and packs
 * the age before that, PG_workingset and the lruvec's id into a value
 * entry.
 *
 * Context: Holds the folio lock (and, in reclaim, the i_pages lock).
 * Return: The shadow entry; NULL if the arena has no lruvec.
 */
void *workingset_eviction(struct folio *folio);

/**
 * workingset_refault() - Account a folio added over a shadow entry.
 * @folio: The folio just added, not yet on the LRU.
 * @shadow: The value entry it replaced.
 *
 * A shadow of another lruvec is ignored.  Otherwise counts a refault;
 * if the refault distance (evictions and activations since the shadow
 * was made, its own eviction included) is at most the pages the kernel
 * compares it with (the active file list, and so on: mm/workingset.c),
 * the folio was part of the working set and is marked PG_active,
 * counted as an activation; and, when the shadow says it was working
 * set already when it was evicted, PG_workingset, counted as a restore.
 *
 * Context: Any thread, before folio_add_lru().
 */
void workingset_refault(struct folio *folio, void *shadow);

/**
 * workingset_update_node() - Track a node's shadow-only state.
 * @node: A node of a page cache tree whose cursor changed it.
 *
 * The xa_update_node_t of file mappings in reclaiming arenas: keeps
 * @node on its lruvec's list of shadow-only nodes exactly while it holds
 * only shadow entries, so reclaim can bound shadow memory.  The page
 * cache installs it on its own cursors; code that changes a mapping's
 * tree through its own cursor (a benchmark's baseline add) installs it
 * with xas_set_update() too.  Not for swap-backed mappings, whose value
 * entries are swap entries.
 *
 * Context: Holds the tree's lock; takes the lruvec's shadow lock.
 */
void workingset_update_node(struct xa_node *node);

/**
 * workingset_shadow_info() - Decode a shadow entry (for tests and tools).
 * @shadow: A value entry.
 * @id: If not NULL, receives the lruvec id.
 * @age: If not NULL, receives the nonresident age at eviction.
 * @workingset: If not NULL, receives the workingset bit.
 *
 * Context: Any.
 */
void workingset_shadow_info(void *shadow, unsigned int *id,
			    unsigned long *age, bool *workingset);

#ifdef __cplusplus
}
#endif

#endif /* UPCACHE_VMSCAN_H */
