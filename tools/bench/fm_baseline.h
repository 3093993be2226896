/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/fm_baseline.h - the page cache's "before" paths, for the
 * filemap suite's speedup pairs only.
 *
 * Each function here is how the kernel did the job before a seed, written
 * against upcache's public API, so that `upcache-bench filemap` can time
 * the library's current path and its predecessor on the same machine, in
 * interleaved rounds:
 *
 *	fmb_before_add_folio()
 *		before seed 000: three walks to add over a shadow (order
 *		read outside the lock, conflict scan, order read again
 *		under the lock), five to split a larger one;
 *	fmb_before_grab_folios()
 *		before seed 004: one get-or-create lookup per folio
 *		(guest_memfd's population loop);
 *	fmb_before_get_folios_contig()
 *		before seed 002: one lookup per folio, a walk from the
 *		root each (shmem's old read loop);
 *	fmb_before_add_to_swap_cache()
 *		before seed 001: the swap cache's own store loop, a slot
 *		per page, instead of the page cache's locked store helper.
 *
 * They are never used by the library and produce exactly what the new
 * paths produce (the suite checks the trees after every round), so any
 * difference in the figures is the algorithm's.
 */
#ifndef UPCACHE_TOOLS_BENCH_FM_BASELINE_H
#define UPCACHE_TOOLS_BENCH_FM_BASELINE_H

#include <stddef.h>

#include <upcache/filemap.h>
#include <upcache/swap.h>

/**
 * fmb_before_add_folio() - __filemap_add_folio() as it was before seed 000.
 * @mapping: The mapping.
 * @folio: A locked folio not in any mapping.
 * @index: First page index, aligned to the folio's size.
 * @gfp: Allocation flags for the tree's nodes.
 * @shadowp: If not NULL, receives the shadow replaced (or NULL).
 *
 * Outside the lock, xa_get_order() reads the order of what covers @index
 * (walk 1) and, when it is larger than the folio, xa_load() fetches the
 * entry for the split's preallocation (walk 2).  Under the lock a
 * conflict scan (walk 3) and, if it met a shadow, a fresh xa_get_order()
 * (walk 4) that catches a split made meanwhile; a split resets the
 * cursor so the store walks again (walk 5).  Sets the folio's mapping,
 * index and references and the mapping's nrpages exactly as
 * __filemap_add_folio() does.
 *
 * The shadow is split as the library splits it (xas_try_split(): the
 * folio's piece cut out, the rest left as the largest shadows around
 * it), not into 512 order-0 shadows as the kernel of seed 000 did, so
 * that a pair of rows differs only in the seed's change, the walks.
 * With the kernel's split of that time, this add needed 8 nodes where
 * the library's needs 1, and that, not the walks, made most of the
 * THP rows' difference.
 *
 * Context: May sleep if @gfp allows.  Takes and releases the i_pages lock.
 * Return: 0; -EEXIST, -ENOMEM, -EINVAL or -EFBIG as __filemap_add_folio().
 */
int fmb_before_add_folio(struct address_space *mapping, struct folio *folio,
			 pgoff_t index, gfp_t gfp, void **shadowp);

/**
 * fmb_before_add_folio_update() - fmb_before_add_folio() on a mapping
 * whose tree nodes are tracked.
 * @mapping: The mapping.
 * @folio: A locked folio not in any mapping.
 * @index: First page index, aligned to the folio's size.
 * @gfp: Allocation flags for the tree's nodes.
 * @shadowp: If not NULL, receives the shadow replaced (or NULL).
 * @update: Called for every node the add changes (xas_set_update()), or
 *	NULL.  A mapping of a reclaiming arena passes
 *	workingset_update_node (upcache/vmscan.h), as the library's own
 *	add does, so that shadow-only nodes stay tracked.
 *
 * Context: As fmb_before_add_folio().
 * Return: As fmb_before_add_folio().
 */
int fmb_before_add_folio_update(struct address_space *mapping,
				struct folio *folio, pgoff_t index, gfp_t gfp,
				void **shadowp, xa_update_node_t update);

/**
 * fmb_before_grab_folios() - filemap_grab_folios() as a per-folio loop.
 * @mapping: The mapping.
 * @index: First page index wanted.
 * @nr: Number of indices wanted.
 * @folios: Room for @nr folios.
 * @size: Preferred folio size in bytes for FGP_CREAT (fgf_set_order()):
 *	UPC_PAGE_SIZE makes each call exactly filemap_grab_folio().
 *
 * Calls __filemap_get_folio(FGP_LOCK | FGP_ACCESSED | FGP_CREAT) for
 * every index not yet covered by a folio it got, stepping over each
 * folio it gets.  Stops at the first index it could not fill.
 *
 * Context: May sleep.
 * Return: The number of folios stored in @folios, each locked and
 * referenced; -ENOMEM if not even the first could be had.
 */
int fmb_before_grab_folios(struct address_space *mapping, pgoff_t index,
			   unsigned int nr, struct folio **folios, size_t size);

/**
 * fmb_before_get_folios_contig() - filemap_get_folios_contig() as a
 * lookup per folio.
 * @mapping: The mapping.
 * @start: In: first index; out: the index after the last folio returned.
 * @end: Last index (inclusive).
 * @fbatch: Receives the folios, each with a reference.
 *
 * filemap_get_folio() at *@start, then at the index after each folio
 * found, each a walk from the root, as shmem's read loop went before
 * seed 002.  Stops at the first index with no folio and when the batch
 * is full.
 *
 * Context: Any thread; lockless.
 * Return: The number of folios added to @fbatch.
 */
unsigned int fmb_before_get_folios_contig(struct address_space *mapping,
					  pgoff_t *start, pgoff_t end,
					  struct folio_batch *fbatch);

/**
 * fmb_before_add_to_swap_cache() - add_to_swap_cache() as it was before
 * seed 001.
 * @si: The device of @entry.
 * @folio: A locked folio, not in the swap cache.
 * @entry: Its first slot.
 * @gfp: Allocation flags for tree nodes.
 * @shadowp: If not NULL, receives the shadow the slots held (the last
 *	one met), or NULL.
 *
 * Under the lock, xas_create_range() makes a leaf slot for every page
 * (the walk), then each page's slot is read (a shadow is handed back)
 * and given the folio, moving right with xas_next(): one entry per page,
 * where the library stores a large folio as one multi-index entry.  Like
 * the kernel's, it does not look for a folio already there: the caller
 * owns the slots (the kernel's SWAP_HAS_CACHE bit).  Sets PG_swapcache,
 * folio->private and the cache's references as add_to_swap_cache()
 * does, so delete_from_swap_cache() takes the folio out again.  Node
 * changes go to workingset_update_node(), as the library's do (a
 * device's arena always reclaims).
 *
 * Context: May sleep if @gfp allows.  Takes the space's i_pages lock.
 * Return: 0; -ENOMEM.
 */
int fmb_before_add_to_swap_cache(struct swap_info_struct *si,
				 struct folio *folio, swp_entry_t entry,
				 gfp_t gfp, void **shadowp);

#endif /* UPCACHE_TOOLS_BENCH_FM_BASELINE_H */
