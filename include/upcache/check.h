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
 * @xa: The array.  The caller holds its xa_lock or otherwise excludes
 *	writers.
 *
 * Checks, for every node: parent, offset, shift and array links; count
 * equal to the non-NULL slots; nr_values equal to the slots holding value
 * entries (sibling slots of a value count too); sibling entries pointing
 * back to an aligned canonical slot in the same node; marks set only on
 * canonical non-NULL slots and propagated upward exactly (a node's mark
 * bit for a child slot is set if and only if the child has that mark
 * anywhere); the array's mark flags matching the top; no empty node and
 * no collapsible top node left behind; free-mark tracking in
 * XA_FLAGS_TRACK_FREE arrays.
 *
 * Context: Caller excludes writers.  Never sleeps.
 * Return: 0 if every invariant holds, -EUCLEAN (after printing the
 * violation and the index it was found at) otherwise.
 */
int upc_check_xarray(struct xarray *xa);

#ifdef __cplusplus
}
#endif

#endif /* UPCACHE_CHECK_H */
