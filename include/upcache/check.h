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
 * cache's references); and the cached folios' pages add up to
 * @mapping->nrpages.
 *
 * Context: Takes and releases the i_pages lock itself; the caller must
 * not hold it, and should exclude writers.  Never sleeps except to wait
 * for the lock.  O(entries + nodes).
 * Return: 0 if every invariant holds, -EUCLEAN after printing the first
 * violation (and the index it was found at) to stderr otherwise.
 */
int upc_check_mapping(struct address_space *mapping);

#ifdef __cplusplus
}
#endif

#endif /* UPCACHE_CHECK_H */
