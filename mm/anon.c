// SPDX-License-Identifier: MIT
/*
 * mm/anon.c - anonymous regions: swappable memory a program reads and
 * writes through upcache (what the kernel's anonymous faults and
 * do_swap_page() do for a process's memory).
 *
 * A region is an address_space standing in for a page table: slot i
 * holds the folio of page i, the swap entry (a value entry) of a page
 * that was swapped out, or nothing for a page never written, which
 * reads as zeros.  The mapping is swap-backed, so its folios go on the
 * anon LRU lists and, once a swap device is installed, reclaim swaps
 * them out and leaves their entries here (mm/swap_state.c).
 *
 * The value entries here are data, not shadows: a page is added only
 * into an empty slot (anon_add_folio()), never over an entry as the page
 * cache adds over a shadow, so a page that was swapped out meanwhile is
 * swapped in rather than overwritten.  The one exception is a write that
 * covers a whole swapped-out page of an order-0 entry: its old data is
 * not needed, so a new folio takes the entry's place and the slot is
 * freed, with no read (swapin_overwrite()).  A fault cannot know
 * that a store will cover the page, so the kernel always swaps in; a
 * write call can.
 *
 * A page swapped in from a swap file may keep its slots (PG_swapslot,
 * see mm/swap_state.c) so that reclaim need not write it again: every
 * write here frees them first, under the folio lock, since after a
 * write the copy in swap is stale (swap_drop_kept()).
 *
 * Reads and writes copy a page under its folio lock.  Reclaim holds that
 * lock while it writes a folio to swap, so a page never reaches swap
 * half written; and a read sees each page as it was before or after any
 * one write to it, never torn, so a page-aligned page-sized write is
 * atomic to readers.  A call spanning several pages is atomic per page
 * only.  The reference taken by the lookup keeps reclaim from evicting
 * the folio meanwhile (it must freeze the reference count).
 */
#include <errno.h>
#include <string.h>

#include <upcache/err.h>

#include "filemap_internal.h"
#include "swap_internal.h"

void anon_region_init(struct anon_region *region, struct upc_arena *arena,
		      uint64_t size)
{
	address_space_init(&region->mapping, arena, NULL,
			   (1UL << AS_SWAPBACKED) | (1UL << AS_SWAP_KEEP));
	region->size = size;
	/* No swap-in yet: the first starts no readahead. */
	region->ra = (struct swap_ra_state){ .next = (pgoff_t)-1 };
}

/*
 * Put a new zeroed folio at @index if the slot is empty, with a reference
 * for the mapping.  Return: 0; -EEXIST if anything is there (a folio or
 * a swap entry); -ENOMEM.
 */
static int anon_add_folio(struct address_space *mapping, struct folio *folio,
			  pgoff_t index)
{
	XA_STATE(xas, &mapping->i_pages, index);

	folio->mapping = mapping;
	folio->index = index;
	folio_ref_add(folio, 1);
	do {
		xas_lock(&xas);
		if (xas_load(&xas))
			xas_set_err(&xas, -EEXIST);
		else
			xas_store(&xas, folio);
		if (!xas_error(&xas))
			mapping->nrpages++;
		xas_unlock(&xas);
	} while (xas_nomem(&xas, GFP_KERNEL));
	if (xas_error(&xas)) {
		folio->mapping = NULL;
		folio_put_refs(folio, 1);
		return xas_error(&xas);
	}
	filemap_folio_added(folio, NULL);
	return 0;
}

/*
 * anon_get_swapped() - Page @index was swapped out as @value: swap it in
 * (reading ahead on a sequential stream: swapin_readahead()), or, for a
 * write of the whole page (@whole) with an order-0 entry, replace it
 * without reading it (swapin_overwrite()).  A page of a large entry
 * is swapped in with the rest of its folio even then: cutting its entry
 * out would leave the region's large folios to come back in pieces.
 * *@locked says whether the folio comes back locked.  Return: as
 * swapin_folio().
 */
static struct folio *anon_get_swapped(struct anon_region *region,
				      pgoff_t index, void *value, bool whole,
				      bool *locked)
{
	struct address_space *mapping = &region->mapping;
	struct folio *folio;

	*locked = false;
	if (!whole || xa_get_order(&mapping->i_pages, index))
		return swapin_readahead(mapping, index, value, GFP_KERNEL,
					&region->ra);
	folio = swapin_overwrite(mapping, index, value, GFP_KERNEL);
	*locked = !IS_ERR(folio);
	return folio;
}

/*
 * The folio of page @index, with a reference: swapped in if it was
 * swapped out (unless a write covers all of it, @whole: see
 * anon_get_swapped()), created zeroed with @create if never written.
 * *@locked says whether it comes back locked.  Return: the folio; NULL
 * (not @create, never written); or an ERR_PTR.
 */
static struct folio *anon_get_folio(struct anon_region *region, pgoff_t index,
				    bool create, bool whole, bool *locked)
{
	struct address_space *mapping = &region->mapping;

	*locked = false;
	for (;;) {
		void *entry = filemap_get_entry(mapping, index);
		struct folio *folio;
		int err;

		if (entry && !xa_is_value(entry))
			return entry;
		if (entry) {
			folio = anon_get_swapped(region, index, entry, whole,
						 locked);
			if (folio != ERR_PTR(-EAGAIN))
				return folio;
			continue;
		}
		if (!create)
			return NULL;
		folio = filemap_alloc_folio(mapping, GFP_KERNEL | __GFP_ZERO, 0);
		if (!folio)
			return ERR_PTR(-ENOMEM);
		folio_set_uptodate(folio);
		err = anon_add_folio(mapping, folio, index);
		if (!err)
			return folio;
		folio_put(folio);
		if (err != -EEXIST)
			return ERR_PTR(err);
	}
}

/* Copy between @buf and the region, a page at a time. */
static ssize_t anon_region_copy(struct anon_region *region, char *buf,
				size_t count, uint64_t pos, bool write)
{
	size_t done = 0;

	if (pos >= region->size)
		return 0;
	if (count > region->size - pos)
		count = (size_t)(region->size - pos);
	while (done < count) {
		uint64_t at = pos + done;
		pgoff_t index = (pgoff_t)(at >> UPC_PAGE_SHIFT);
		size_t off = (size_t)(at & (UPC_PAGE_SIZE - 1));
		size_t n = UPC_PAGE_SIZE - off;
		struct folio *folio;
		bool locked;
		char *page;

		if (n > count - done)
			n = count - done;
		folio = anon_get_folio(region, index, write,
				       write && n == UPC_PAGE_SIZE, &locked);
		if (IS_ERR(folio))
			return done ? (ssize_t)done : PTR_ERR(folio);
		if (!folio) {
			memset(buf + done, 0, n);
			done += n;
			continue;
		}
		if (!locked)
			folio_lock(folio);
		if (write)
			swap_drop_kept(folio);
		/* The page's place in its folio (a large one holds several). */
		page = (char *)folio_address(folio) +
		       ((index - folio->index) << UPC_PAGE_SHIFT);
		if (write)
			memcpy(page + off, buf + done, n);
		else
			memcpy(buf + done, page + off, n);
		folio_unlock(folio);
		folio_mark_accessed(folio);
		folio_put(folio);
		done += n;
	}
	return (ssize_t)done;
}

ssize_t anon_region_read(struct anon_region *region, void *buf, size_t count,
			 uint64_t pos)
{
	return anon_region_copy(region, buf, count, pos, false);
}

ssize_t anon_region_write(struct anon_region *region, const void *buf,
			  size_t count, uint64_t pos)
{
	return anon_region_copy(region, (char *)buf, count, pos, true);
}

/*
 * Free what the region holds: truncation takes the folios out, with the
 * slots they kept (locking each, which waits for a swap-out in flight;
 * that swap-out then fails to freeze the reference truncation holds,
 * and gives its slot back), then swap_free_range()
 * erases the swap entries, including those of folios evicted before
 * truncation reached them.  As a shmem file is freed (mm/shmem.c).
 */
void anon_region_destroy(struct anon_region *region)
{
	truncate_inode_pages(&region->mapping, 0);
	swap_free_range(&region->mapping, 0, ULONG_MAX);
	xa_destroy(&region->mapping.i_pages);
}
