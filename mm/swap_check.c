// SPDX-License-Identifier: MIT
/*
 * mm/swap_check.c - invariant checkers of the swap layer:
 * upc_check_swap() for a device and its swap cache, upc_check_anon() for
 * an anonymous region.
 *
 * They recount from scratch what mm/swapfile.c, mm/swap_state.c and
 * mm/anon.c keep incrementally, under the same locks, so a test that
 * calls them after its operations catches a slot leaked or freed twice,
 * a stale swap cache entry or a region pointing at a free slot.  For
 * tests and debug builds: O(slots + entries).
 *
 * Device (upc_check_swap()):
 *   1. inuse_pages equals the slots marked in swap_map, and each
 *      cluster's count equals its marked slots;
 *   2. the free-cluster stack holds distinct clusters, none in use and
 *      none the current one;
 *   3. every space passes upc_check_xarray(), and in every space: a
 *      folio has PG_swapcache, its entry is the slot it sits at, its
 *      slots are in use and its index is aligned to its size; a value
 *      entry (a shadow) sits at a slot in use, since freeing a slot
 *      erases its shadow; the folios' pages add up to the space's
 *      nrpages.
 * Region (upc_check_anon()): upc_check_mapping() on its mapping (which
 * checks that every value entry of a swap-backed mapping is a swap
 * entry of a live device whose slot is in use, and that the slots a
 * folio kept, PG_swapslot, are), and nothing lies past the region's
 * end.
 *
 * Lock order, as in the layer: a space's or the region's i_pages lock,
 * then the device lock.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "upcache/check.h"
#include "swap_internal.h"

/* Print one violation; return -EUCLEAN. */
static int __attribute__((format(printf, 2, 3)))
swap_bad(const void *what, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "upc_check_swap: %p: ", what);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -EUCLEAN;
}

/* Invariants 1 and 2.  Device lock held. */
static int check_slots(struct swap_info_struct *si)
{
	unsigned long nr_clusters = si->max / SWAPFILE_CLUSTER;
	unsigned long cluster, i, j, total = 0, idle = 0;

	for (cluster = 0; cluster < nr_clusters; cluster++) {
		unsigned long used = 0;

		for (i = 0; i < SWAPFILE_CLUSTER; i++)
			used += si->swap_map[cluster * SWAPFILE_CLUSTER + i] != 0;
		if (used != si->cluster_used[cluster])
			return swap_bad(si, "cluster %lu counts %u slots, has %lu",
					cluster, si->cluster_used[cluster], used);
		total += used;
		idle += !used && cluster != si->cur_cluster;
	}
	if (total != si->inuse_pages)
		return swap_bad(si, "inuse_pages %lu, slots in use %lu",
				si->inuse_pages, total);
	if (si->nr_free_clusters > nr_clusters)
		return swap_bad(si, "%lu free clusters of %lu",
				si->nr_free_clusters, nr_clusters);
	for (i = 0; i < si->nr_free_clusters; i++) {
		cluster = si->free_clusters[i];
		if (cluster >= nr_clusters || si->cluster_used[cluster] ||
		    cluster == si->cur_cluster)
			return swap_bad(si, "free cluster %lu is in use or current",
					cluster);
		for (j = 0; j < i; j++)
			if (si->free_clusters[j] == cluster)
				return swap_bad(si, "cluster %lu stacked twice",
						cluster);
	}
	/* The stack's clusters are distinct and idle: so they must be all. */
	if (idle != si->nr_free_clusters)
		return swap_bad(si, "%lu clusters wholly free and not current, "
				"%lu stacked", idle, si->nr_free_clusters);
	return 0;
}

/* Are @nr slots from @offset all in use?  Device lock held. */
static bool slots_in_use(const struct swap_info_struct *si,
			 unsigned long offset, unsigned long nr)
{
	unsigned long i;

	if (offset >= si->max || nr > si->max - offset)
		return false;
	for (i = 0; i < nr; i++)
		if (!si->swap_map[offset + i])
			return false;
	return true;
}

/* Invariant 3 for one space.  Its lock and the device lock held. */
static int check_space(struct swap_info_struct *si, unsigned long nr)
{
	struct address_space *space = &si->spaces[nr];
	unsigned long base = nr << si->space_shift;
	unsigned long chunk = 1UL << si->space_shift;
	XA_STATE(xas, &space->i_pages, 0);
	unsigned long pages = 0;
	void *entry;

	xas_for_each(&xas, entry, ULONG_MAX) {
		/* A key is the offset inside the chunk, or all of it. */
		unsigned long offset = base + (xas.xa_index & (chunk - 1));
		unsigned long n = 1UL << xas_get_order(&xas);
		struct folio *folio = entry;

		if (swap_cache_index(si, swp_entry(si->type, offset)) !=
		    xas.xa_index)
			return swap_bad(si, "key %lu in the space of slots "
					"%lu..%lu", xas.xa_index, base,
					base + chunk - 1);

		if (xa_is_value(entry)) {
			if (!slots_in_use(si, offset, n))
				return swap_bad(si, "shadow at free slot %lu",
						offset);
			continue;
		}
		if (!folio_test_swapcache(folio) ||
		    folio_swap_entry(folio).val != swp_entry(si->type, offset).val)
			return swap_bad(si, "folio at slot %lu names entry %#lx",
					offset, folio_swap_entry(folio).val);
		if (n != folio_nr_pages(folio) || offset & (n - 1) ||
		    !slots_in_use(si, offset, n))
			return swap_bad(si, "folio at slot %lu: order or slots",
					offset);
		pages += n;
	}
	if (pages != space->nrpages)
		return swap_bad(si, "space %lu: nrpages %lu, folios hold %lu",
				nr, space->nrpages, pages);
	return 0;
}

/**
 * upc_check_swap() - Verify a swap device and its swap cache.
 * @si: The device.
 *
 * Context: Takes each space's lock and the device's lock; the caller
 * holds neither and should keep swap-out and swap-in quiet.
 * Return: 0, or -EUCLEAN after printing the first violation.
 */
int upc_check_swap(struct swap_info_struct *si)
{
	unsigned long i;
	int ret;

	upc_lock(&si->lock);
	ret = check_slots(si);
	upc_unlock(&si->lock);
	for (i = 0; !ret && i < si->nr_spaces; i++) {
		ret = upc_check_xarray(&si->spaces[i].i_pages);
		if (ret)
			break;
		xa_lock(&si->spaces[i].i_pages);
		upc_lock(&si->lock);
		ret = check_space(si, i);
		upc_unlock(&si->lock);
		xa_unlock(&si->spaces[i].i_pages);
	}
	return ret;
}

/**
 * upc_check_anon() - Verify an anonymous region.
 * @region: The region.
 *
 * Context: Takes the region's i_pages lock and devices' locks; the
 * caller holds none and should keep the region quiet.
 * Return: 0, or -EUCLEAN after printing the first violation.
 */
int upc_check_anon(struct anon_region *region)
{
	struct address_space *mapping = &region->mapping;
	XA_STATE(xas, &mapping->i_pages, 0);
	void *entry;
	int ret;

	/* Checks, among the rest, swap entries and kept slots. */
	ret = upc_check_mapping(mapping);
	if (ret)
		return ret;
	xa_lock(&mapping->i_pages);
	xas_for_each(&xas, entry, ULONG_MAX) {
		if ((xas.xa_index << UPC_PAGE_SHIFT) >= region->size) {
			ret = swap_bad(region, "page %lu past the region's end",
				       xas.xa_index);
			break;
		}
	}
	xa_unlock(&mapping->i_pages);
	return ret;
}
