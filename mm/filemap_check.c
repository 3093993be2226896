// SPDX-License-Identifier: MIT
/*
 * mm/filemap_check.c - the page cache invariant checker,
 * upc_check_mapping().
 *
 * This file owns the invariants that tie an address_space's i_pages to
 * the folios it caches, checked from scratch by one locked walk of the
 * tree.  It reads the tree with the advanced XArray API only (no code of
 * mm/filemap.c is reused), so a mistake there is not repeated here.  For
 * tests and debug builds: O(entries), never on a fast path.
 *
 * What is checked, for every entry of i_pages:
 *   1. it is a folio pointer or a value entry (shadow, swap entry); any
 *      other internal entry (zero/reserved, retry, a stray sibling or
 *      node seen as an entry) is a violation;
 *   2. a value entry carries no PAGECACHE_TAG_* mark (a shadow keeps no
 *      tags); in a swap-backed mapping (shmem, an anonymous region),
 *      where value entries are swap entries, not shadows, it names a
 *      slot in use on a live device;
 *   3. a folio pointer points at the first page of a folio inside the
 *      mapping's arena (a memmap entry), with:
 *        ->mapping == the mapping,
 *        ->index == the first index of its entry,
 *        the entry's order (xas_get_order()) == folio_order(),
 *        ->index aligned to folio_nr_pages(),
 *        refcount >= folio_nr_pages() (the cache's own references),
 *        slots it kept in swap (PG_swapslot) only where the mapping
 *        allows it (AS_SWAP_KEEP), all in use on a live device;
 * and for the whole mapping:
 *   4. the pages of the cached folios add up to mapping->nrpages;
 *   5. i_pages passes upc_check_xarray() (run first, without our lock,
 *      because that checker takes the lock itself and the lock is not
 *      recursive; a structurally broken tree is not walked).
 *
 * Conventions: @mapping is the address_space, @xas a cursor on
 * mapping->i_pages, @entry what it found, @first the entry's first
 * index.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "upcache/check.h"
#include "upcache/filemap.h"
#include "swap_internal.h"

/* Print one violation, naming the mapping and index; return -EUCLEAN. */
static int __attribute__((format(printf, 3, 4)))
bad(const struct address_space *mapping, unsigned long index,
    const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "upc_check_mapping: mapping %p: index %lu: ",
		(const void *)mapping, index);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -EUCLEAN;
}

/*
 * Is @folio the metadata entry of a page of @arena?  Checked before the
 * folio is dereferenced, so a garbage pointer in the tree is reported
 * rather than followed.
 */
static bool folio_in_arena(const struct upc_arena *arena,
			   const struct folio *folio)
{
	uintptr_t off;

	if (!arena || !arena->memmap)
		return true;	/* nothing to compare with */
	if ((uintptr_t)folio < (uintptr_t)arena->memmap)
		return false;
	off = (uintptr_t)folio - (uintptr_t)arena->memmap;
	return off % sizeof(struct folio) == 0 &&
		off / sizeof(struct folio) < arena->nr_pages;
}

/*
 * A swap entry of order k names the 2^k slots from its own, aligned as
 * swap-out hands them out; all must be in use.
 */
static int check_swap_entry(struct address_space *mapping,
			    struct xa_state *xas)
{
	swp_entry_t entry = radix_to_swp_entry(xas_reload(xas));
	unsigned long i, nr = 1UL << xas_get_order(xas);

	if (nr > 1 && swp_offset(entry) & (nr - 1))
		return bad(mapping, xas->xa_index,
			   "swap entry %#lx of %lu pages names an unaligned "
			   "slot", entry.val, nr);
	for (i = 0; i < nr; i++)
		if (!swap_slot_in_use(swp_entry(swp_type(entry),
						swp_offset(entry) + i)))
			return bad(mapping, xas->xa_index,
				   "swap entry %#lx names no slot in use "
				   "(page %lu of %lu)", entry.val, i, nr);
	return 0;
}

/* Check one value entry at the cursor. */
static int check_value(struct address_space *mapping, struct xa_state *xas)
{
	xa_mark_t mark;

	for (mark = XA_MARK_0; mark <= XA_MARK_MAX; mark++)
		if (xas_get_mark(xas, mark))
			return bad(mapping, xas->xa_index,
				   "value entry %#lx carries mark %u",
				   xa_to_value(xas_reload(xas)), mark);
	if (mapping->flags & (1UL << AS_SWAPBACKED))
		return check_swap_entry(mapping, xas);
	return 0;
}

/*
 * A folio that kept its slots (PG_swapslot, in a mapping with
 * AS_SWAP_KEEP): every one of them is still in use, on a live device.
 */
static int check_kept_slots(struct address_space *mapping,
			    unsigned long index, struct folio *folio)
{
	swp_entry_t entry = { .val = (unsigned long)folio->private };
	unsigned long i;

	if (!(mapping->flags & (1UL << AS_SWAP_KEEP)))
		return bad(mapping, index, "folio keeps slots in a mapping "
			   "that keeps none");
	if (!swap_info_get(entry))
		return bad(mapping, index, "folio keeps slots of no device");
	for (i = 0; i < folio_nr_pages(folio); i++)
		if (!swap_slot_in_use(swp_entry(swp_type(entry),
						swp_offset(entry) + i)))
			return bad(mapping, index, "folio keeps free slot %lu",
				   swp_offset(entry) + i);
	return 0;
}

/* Check one folio entry at the cursor; add its pages to *@nrpages. */
static int check_folio(struct address_space *mapping, struct xa_state *xas,
		       struct folio *folio, unsigned long *nrpages)
{
	unsigned long index = xas->xa_index;
	void *p = folio;
	unsigned long nr, first;
	int order;

	if (!folio_in_arena(mapping->arena, folio))
		return bad(mapping, index,
			   "entry %p is not a folio of arena %p",
			   p, (void *)mapping->arena);
	order = xas_get_order(xas);
	nr = folio_nr_pages(folio);
	first = index & ~((1UL << order) - 1);
	if (first != index)
		return bad(mapping, index,
			   "folio %p found inside its order-%d entry at %lu",
			   p, order, first);
	if (folio->mapping != mapping)
		return bad(mapping, index, "folio %p has mapping %p", p,
			   (void *)folio->mapping);
	if (folio->index != first)
		return bad(mapping, index,
			   "folio %p has index %lu, its entry starts at %lu",
			   p, folio->index, first);
	if ((unsigned int)order != folio_order(folio))
		return bad(mapping, index,
			   "folio %p of order %u in an entry of order %d",
			   p, folio_order(folio), order);
	if (folio->index & (nr - 1))
		return bad(mapping, index,
			   "folio %p of order %u at unaligned index %lu",
			   p, folio_order(folio), folio->index);
	if (folio_ref_count(folio) < (int)nr)
		return bad(mapping, index,
			   "folio %p of %lu pages has refcount %d",
			   p, nr, folio_ref_count(folio));
	*nrpages += nr;
	if (folio_test_swapslot(folio))
		return check_kept_slots(mapping, index, folio);
	return 0;
}

/* What kind of internal entry @entry is, for the report. */
static const char *internal_kind(const void *entry)
{
	if (xa_is_zero(entry))
		return "zero/reserved";
	if (xa_is_retry(entry))
		return "retry";
	if (xa_is_sibling(entry))
		return "sibling";
	if (xa_is_node(entry))
		return "node";
	return "other";
}

/* The walk, with the i_pages lock held. */
static int check_mapping_locked(struct address_space *mapping)
{
	XA_STATE(xas, &mapping->i_pages, 0);
	unsigned long nrpages = 0;
	void *entry;
	int ret;

	xas_for_each(&xas, entry, ULONG_MAX) {
		if (xa_is_value(entry))
			ret = check_value(mapping, &xas);
		else if (xa_is_internal(entry))
			ret = bad(mapping, xas.xa_index,
				  "internal entry %p (%s)", entry,
				  internal_kind(entry));
		else
			ret = check_folio(mapping, &xas, entry, &nrpages);
		if (ret)
			return ret;
	}
	if (xas_error(&xas))
		return bad(mapping, xas.xa_index, "walk ended in error %d",
			   xas_error(&xas));
	if (nrpages != mapping->nrpages)
		return bad(mapping, 0,
			   "nrpages is %lu, the cached folios hold %lu pages",
			   mapping->nrpages, nrpages);
	return 0;
}

/**
 * upc_check_mapping() - Verify the invariants of a page cache mapping.
 * @mapping: The mapping.
 *
 * Checks i_pages with upc_check_xarray(), then walks it under the
 * i_pages lock: every entry is a folio of the mapping's arena or a value
 * entry without tags; every folio has ->mapping == @mapping, ->index ==
 * the first index of its entry, folio_order() == the entry's order, an
 * index aligned to its size and at least one reference per page; and
 * the folios' pages add up to ->nrpages.
 *
 * Context: Takes and releases the i_pages lock (twice); the caller must
 * not hold it.  Writers should be excluded for a meaningful answer.
 * Return: 0 if everything holds; -EUCLEAN after printing the first
 * violation to stderr.
 */
int upc_check_mapping(struct address_space *mapping)
{
	int ret;

	ret = upc_check_xarray(&mapping->i_pages);
	if (ret)
		return ret;
	xa_lock(&mapping->i_pages);
	ret = check_mapping_locked(mapping);
	xa_unlock(&mapping->i_pages);
	return ret;
}
