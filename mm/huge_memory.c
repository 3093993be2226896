// SPDX-License-Identifier: MIT
/*
 * mm/huge_memory.c - splitting a large folio into order-0 folios.
 *
 * Reclaim splits a swap-backed large folio that cannot go to swap whole
 * (no aligned run of free slots as long as it is, or larger than a swap
 * cache tree), so that its pages can go one at a time; as in the kernel,
 * where shrink_folio_list() splits a large folio that add_to_swap()
 * could not place.  Without the split such a folio stayed in memory, and
 * with swap fragmented enough, writes failed with -ENOSPC while swap
 * still had room.
 *
 * The split is made in place.  Page i keeps its memory and its index;
 * its entry in the arena's memmap, unused while the page was a tail of
 * the folio, becomes an order-0 folio, and the first page's entry (the
 * folio itself) becomes order 0.  Freed later, each goes back to the
 * allocator on its own and uncharges one page.
 *
 * Exclusion.  The caller holds the folio lock and one reference, and has
 * taken the folio off the LRU.  Under the mapping's evict_lock hook
 * (shmem's readers take no reference, so they must be kept out) and its
 * i_pages lock, the refcount is frozen from exactly the mapping's
 * references plus the caller's to zero, as eviction does: anybody else
 * holding a reference makes the split fail with -EAGAIN, and a lockless
 * lookup cannot take a new one until the split is done.  A lookup that
 * found the folio before the freeze and takes its reference after it
 * gets the first page's folio, which xas_reload() then does not find at
 * any other index, so it looks again (filemap_pin()).
 *
 * With the count frozen, the multi-index entry is split into order-0
 * entries (xas_split(), with the nodes allocated beforehand, outside the
 * lock, by xas_split_alloc(); each new slot keeps the entry's marks), and
 * each page's folio is set up and stored in its slot.  The counts are
 * published last: the first page's folio gets the mapping's reference and
 * the caller's back; every other page's gets the mapping's and one that
 * the split holds until, after dropping the tree's locks, it has put the
 * folio on its LRU list.  That extra reference keeps a truncation that
 * meets the new folio in between from freeing it before it is listed.
 */
#include <errno.h>

#include "huge_memory.h"
#include "lru_internal.h"

/* The flags a page's new folio takes over from the large folio. */
#define SPLIT_FLAGS_KEPT						\
	((1UL << PG_uptodate) | (1UL << PG_dirty) |			\
	 (1UL << PG_referenced) | (1UL << PG_active) |			\
	 (1UL << PG_workingset) | (1UL << PG_swapbacked) |		\
	 (1UL << PG_error) | (1UL << PG_dropbehind))

/*
 * split_prep_page() - Make page @i of the large folio @head an order-0
 * folio of its own, refcount still 0.  @head's count is frozen.
 */
static void split_prep_page(struct folio *head, struct folio *page,
			    unsigned long i)
{
	unsigned long flags = __atomic_load_n(&head->flags, __ATOMIC_RELAXED);

	__atomic_store_n(&page->flags, flags & SPLIT_FLAGS_KEPT,
			 __ATOMIC_RELAXED);
	page->order = 0;
	page->mapping = head->mapping;
	page->index = head->index + i;
	page->private = NULL;
	mm_list_init(&page->lru);
	page->arena = head->arena;
}

/*
 * split_locked() - The split itself, under the i_pages lock, on a cursor
 * prepared by xas_split_alloc().  Return: 0, or -EAGAIN (other
 * references) or the cursor's error, with nothing changed.
 */
static int split_locked(struct xa_state *xas, struct folio *folio)
{
	unsigned int order = folio_order(folio);
	unsigned long i, nr = 1UL << order;
	int refs = (int)nr + 1;

	if (!folio_ref_freeze(folio, refs))
		return -EAGAIN;
	xas_split(xas, folio, order);
	if (xas_error(xas)) {
		folio_ref_unfreeze(folio, refs);
		return xas_error(xas);
	}
	/* The cursor is on the first page's slot: walk sideways. */
	for (i = 1; i < nr; i++) {
		split_prep_page(folio, folio + i, i);
		xas_next(xas);
		xas_store(xas, folio + i);
	}
	folio->order = 0;
	for (i = 1; i < nr; i++)
		folio_ref_unfreeze(folio + i, 2);
	folio_ref_unfreeze(folio, 2);
	return 0;
}

/* split_list_pages() - List pages [1, @nr) of a split, drop their extra refs. */
static void split_list_pages(struct folio *folio, unsigned long nr)
{
	struct lruvec *lruvec = folio_lruvec(folio);
	unsigned long i;

	if (lruvec) {
		lru_lock(&lruvec->lock);
		for (i = 1; i < nr; i++)
			lruvec_add_folio_tail(lruvec, folio + i);
		upc_unlock(&lruvec->lock);
	}
	for (i = 1; i < nr; i++)
		folio_put(folio + i);
}

/*
 * split_mapped_folio() - split_folio() once its arguments are checked:
 * allocate the nodes, take the locks, split, list the new folios.
 */
static int split_mapped_folio(struct address_space *mapping,
			      struct folio *folio, gfp_t gfp)
{
	unsigned int order = folio_order(folio);
	XA_STATE(xas, &mapping->i_pages, folio->index);
	int err;

	mapping_set_update(&xas, mapping);
	xas_split_alloc(&xas, folio, order, gfp);
	err = xas_error(&xas);
	if (err)
		goto out;
	xas_reset(&xas);
	if (!mapping_evict_lock(mapping)) {
		err = -EAGAIN;
		goto out;
	}
	err = split_locked(&xas, folio);
	mapping_evict_unlock(mapping);
	if (!err)
		split_list_pages(folio, 1UL << order);
out:
	xas_destroy(&xas);
	return err;
}

int split_folio(struct folio *folio, gfp_t gfp)
{
	/*
	 * A folio that kept its swap slots (PG_swapslot) names them all
	 * from its first page: split, the pages after it would lose theirs.
	 * Its owner frees them first (swap_out_kept() does, before reclaim
	 * could ask for a split).
	 */
	if (!folio_order(folio) || !folio->mapping || folio_test_lru(folio) ||
	    folio_test_writeback(folio) || folio_test_swapcache(folio) ||
	    folio_test_swapslot(folio))
		return -EINVAL;
	/* Busy now: do not allocate the nodes only to find it frozen out. */
	if (folio_ref_count(folio) != (int)folio_nr_pages(folio) + 1)
		return -EAGAIN;
	return split_mapped_folio(folio->mapping, folio, gfp);
}
