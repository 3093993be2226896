/* SPDX-License-Identifier: MIT */
/*
 * upcache/check.h - invariant checkers.
 *
 * Each checker walks a structure and verifies every invariant its design
 * promises, printing the first violation to stderr.  Tests call them after
 * operations; they are O(size) and meant for debug builds and tests, not
 * for fast paths.
 */
#ifndef UPCACHE_CHECK_H
#define UPCACHE_CHECK_H

#include "xarray.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * upc_check_xarray() - Verify every structural invariant of an XArray.
 * @xa: The array.
 *
 * Checks, for every node: parent, offset, shift and array links; count
 * equal to the non-NULL slots and never 0; nr_values equal to the slots
 * holding value entries (sibling slots of a value count too); sibling
 * entries forming aligned power-of-two runs after their canonical slot;
 * no retry entries; marks set only on canonical non-NULL slots and
 * propagated upward exactly (a node's mark bit for a child slot is set
 * if and only if the child has that mark anywhere); the array's mark
 * flags matching the top; free-mark tracking in XA_FLAGS_TRACK_FREE
 * arrays.  Whether the top could be shrunk is not checked.  The full
 * list is at the top of lib/xarray_check.c.
 *
 * Context: Takes and releases the array's xa_lock: do not call it with
 * the lock held.  Never sleeps otherwise.
 * Return: 0 if every invariant holds, -EUCLEAN (after printing the
 * violation and the index it was found at) otherwise.
 */
int upc_check_xarray(struct xarray *xa);

struct address_space;

/**
 * upc_check_mapping() - Verify the invariants of a page cache mapping.
 * @mapping: The mapping (see upcache/filemap.h).
 *
 * Runs upc_check_xarray() on @mapping->i_pages, then walks it: every
 * entry is a folio of the mapping's arena or a value entry (shadow or
 * swap entry) carrying no tag, and no other internal entry; every folio
 * has ->mapping == @mapping, ->index == the first index of its entry,
 * folio_order() == the entry's order (xas_get_order()), an index aligned
 * to its size and a refcount of at least its number of pages (the
 * cache's references), and keeps slots in swap (PG_swapslot) only in a
 * mapping with AS_SWAP_KEEP, each of them in use on a live device; and
 * the cached folios' pages add up to @mapping->nrpages.
 *
 * Context: Takes and releases the i_pages lock itself; the caller must
 * not hold it, and should exclude writers.  Never sleeps except to wait
 * for the lock.  O(entries + nodes).
 * Return: 0 if every invariant holds, -EUCLEAN after printing the first
 * violation (and the index it was found at) to stderr otherwise.
 */
int upc_check_mapping(struct address_space *mapping);

struct swap_info_struct;
struct anon_region;

/**
 * upc_check_swap() - Verify a swap device and its swap cache.
 * @si: The device (see upcache/swap.h).
 *
 * Recounts the slots in use (in all, and per cluster) against the
 * device's counts; checks the free-cluster stack holds distinct unused
 * clusters; runs upc_check_xarray() on every swap cache space and checks
 * that each folio there is marked PG_swapcache with the entry of the
 * slot it sits at, that its slots and those of every shadow are in use,
 * and that each space's folios add up to its nrpages.
 *
 * Context: Takes each space's lock and the device's lock; the caller
 * holds neither and should keep swapping quiet.
 * Return: 0, or -EUCLEAN after printing the first violation to stderr.
 */
int upc_check_swap(struct swap_info_struct *si);

/**
 * upc_check_anon() - Verify an anonymous region.
 * @region: The region (see upcache/swap.h).
 *
 * upc_check_mapping() on its mapping, then: every value entry is the
 * swap entry of a live device's slot in use, and no folio lies past the
 * region's end.
 *
 * Context: As upc_check_swap().
 * Return: 0, or -EUCLEAN after printing the first violation to stderr.
 */
int upc_check_anon(struct anon_region *region);

#ifdef __cplusplus
}
#endif

#endif /* UPCACHE_CHECK_H */
