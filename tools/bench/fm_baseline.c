// SPDX-License-Identifier: MIT
/*
 * tools/bench/fm_baseline.c - the page cache's "before" paths, timed
 * against the library's by the filemap suite (fm_baseline.h).
 *
 * Written from the seeds' descriptions of what they replaced, against
 * upcache's public XArray and filemap API; nothing here is used by the
 * library.  Conventions as in mm/filemap.c: @mapping the address_space,
 * @folio a folio, @index a page index, @xas a cursor on i_pages.
 */
#include <upcache/filemap.h>
#include <upcache/swap.h>
#include <upcache/vmscan.h>
#include <upcache/xarray.h>

#include "fm_baseline.h"

/*
 * before_store_locked() - The locked half of the old add: conflict scan,
 * a fresh order lookup if a shadow was met, split, store, account.
 * Errors (-EEXIST, -ENOMEM) are noted in the cursor.
 */
static void before_store_locked(struct xa_state *xas, struct folio *folio,
				void **shadowp)
{
	struct address_space *mapping = folio->mapping;
	void *entry, *old = NULL;
	int order;

	xas_for_each_conflict(xas, entry) {
		if (!xa_is_value(entry)) {
			xas_set_err(xas, -EEXIST);
			return;
		}
		/*
		 * The kernel kept the last shadow; the first is kept here so
		 * that both paths hand back the same one (a folio smaller
		 * than the shadow meets exactly one either way).
		 */
		if (!old)
			old = entry;
	}
	if (old) {
		if (shadowp)
			*shadowp = old;
		/* A walk of its own: the shadow may have been split since. */
		order = xa_get_order(xas->xa, xas->xa_index);
		if (order > (int)folio_order(folio)) {
			xas_try_split(xas, old, (unsigned int)order);
			xas_reset(xas);
		}
	}
	xas_store(xas, folio);
	if (!xas_error(xas))
		mapping->nrpages += folio_nr_pages(folio);
}

/**
 * fmb_before_add_folio() - __filemap_add_folio() as it was before seed 000.
 * @mapping: The mapping.
 * @folio: A locked folio not in any mapping.
 * @index: First page index, aligned to the folio's size.
 * @gfp: Allocation flags for the tree's nodes.
 * @shadowp: If not NULL, receives the shadow replaced (or NULL).
 *
 * Context: May sleep if @gfp allows.  Takes and releases the i_pages lock.
 * Return: 0, -EEXIST, -ENOMEM, -EINVAL or -EFBIG.
 */
int fmb_before_add_folio(struct address_space *mapping, struct folio *folio,
			 pgoff_t index, gfp_t gfp, void **shadowp)
{
	return fmb_before_add_folio_update(mapping, folio, index, gfp, shadowp,
					   NULL);
}

/**
 * fmb_before_add_folio_update() - fmb_before_add_folio() with a node
 * update callback.
 * @mapping: The mapping.
 * @folio: A locked folio not in any mapping.
 * @index: First page index, aligned to the folio's size.
 * @gfp: Allocation flags for the tree's nodes.
 * @shadowp: If not NULL, receives the shadow replaced (or NULL).
 * @update: Node callback for every cursor (xas_set_update()), or NULL.
 *
 * Context: May sleep if @gfp allows.  Takes and releases the i_pages lock.
 * Return: 0, -EEXIST, -ENOMEM, -EINVAL or -EFBIG.
 */
int fmb_before_add_folio_update(struct address_space *mapping,
				struct folio *folio, pgoff_t index, gfp_t gfp,
				void **shadowp, xa_update_node_t update)
{
	XA_STATE(xas, &mapping->i_pages, index);
	unsigned long nr = folio_nr_pages(folio);
	int err;

	if (index & (nr - 1) || folio->mapping)
		return -EINVAL;
	if (index > MAX_PAGECACHE_INDEX - (nr - 1))
		return -EFBIG;
	xas_set_order(&xas, index, folio_order(folio));
	if (update)
		xas_set_update(&xas, update);
	folio->mapping = mapping;
	folio->index = index;
	folio_ref_add(folio, (int)nr);
	if (shadowp)
		*shadowp = NULL;

	do {
		/* Outside the lock: what order is there now? */
		int order = xa_get_order(xas.xa, xas.xa_index);

		if (order > (int)folio_order(folio)) {
			/*
			 * The kernel passed this entry to its split's
			 * preallocation; the split kind is the library's
			 * (see fmb_before_add_folio()), the walk is kept.
			 */
			(void)xa_load(xas.xa, xas.xa_index);
			xas_try_split_alloc(&xas, (unsigned int)order, gfp);
			if (xas_error(&xas))
				break;
		}
		xas_lock(&xas);
		before_store_locked(&xas, folio, shadowp);
		xas_unlock(&xas);
	} while (xas_nomem(&xas, gfp));

	err = xas_error(&xas);
	if (err) {
		folio->mapping = NULL;
		folio_put_refs(folio, (int)nr);
	}
	return err;
}

/**
 * fmb_before_grab_folios() - filemap_grab_folios() as a per-folio loop.
 * @mapping: The mapping.
 * @index: First page index wanted.
 * @nr: Number of indices wanted.
 * @folios: Room for @nr folios.
 * @size: Preferred folio size for FGP_CREAT.
 *
 * Context: May sleep.
 * Return: The number of folios stored in @folios; -ENOMEM if none.
 */
int fmb_before_grab_folios(struct address_space *mapping, pgoff_t index,
			   unsigned int nr, struct folio **folios, size_t size)
{
	fgf_t fgp = FGP_LOCK | FGP_ACCESSED | FGP_CREAT | fgf_set_order(size);
	pgoff_t next = index;
	int count = 0;

	while (next - index < nr) {
		struct folio *folio = __filemap_get_folio(mapping, next, fgp,
							  GFP_KERNEL);

		if (IS_ERR(folio))
			break;
		folios[count++] = folio;
		next = folio_next_index(folio);
		/* A folio ending the index space ends the run too. */
		if (!next)
			break;
	}
	return count ? count : -ENOMEM;
}

/**
 * fmb_before_get_folios_contig() - filemap_get_folios_contig() as a
 * lookup per folio.
 * @mapping: The mapping.
 * @start: In: first index; out: the index after the last folio returned.
 * @end: Last index (inclusive).
 * @fbatch: Receives the folios, each with a reference.
 *
 * As shmem's read loop did before seed 002: look up the next index, take
 * its folio, go on from the folio's end; one lookup per folio.
 *
 * Context: Any thread; lockless.
 * Return: The number of folios added to @fbatch.
 */
unsigned int fmb_before_get_folios_contig(struct address_space *mapping,
					  pgoff_t *start, pgoff_t end,
					  struct folio_batch *fbatch)
{
	pgoff_t index = *start;
	unsigned int nr;

	while (index <= end) {
		struct folio *folio = filemap_get_folio(mapping, index);

		if (IS_ERR(folio))
			break;
		if (!folio_batch_add(fbatch, folio))
			break;
		index = folio_next_index(folio);
		/* The folio ended the index space. */
		if (!index)
			break;
	}
	nr = folio_batch_count(fbatch);
	if (nr)
		*start = folio_next_index(fbatch->folios[nr - 1]);
	return nr;
}

/**
 * fmb_before_add_to_swap_cache() - add_to_swap_cache() as it was before
 * seed 001.
 * @si: The device of @entry.
 * @folio: A locked folio, not in the swap cache.
 * @entry: Its first slot.
 * @gfp: Allocation flags for tree nodes.
 * @shadowp: If not NULL, receives the shadow met, or NULL.
 *
 * Context: May sleep if @gfp allows.  Takes the space's i_pages lock.
 * Return: 0; -ENOMEM.
 */
int fmb_before_add_to_swap_cache(struct swap_info_struct *si,
				 struct folio *folio, swp_entry_t entry,
				 gfp_t gfp, void **shadowp)
{
	struct address_space *space = swap_address_space(si, entry);
	pgoff_t first = swap_cache_index(si, entry);
	XA_STATE_ORDER(xas, &space->i_pages, first, folio_order(folio));
	unsigned long nr = folio_nr_pages(folio), i;
	int err;

	/*
	 * A device's arena always reclaims (swap_device_create() needs it),
	 * so the library's spaces always report node changes: so does this.
	 */
	xas_set_update(&xas, workingset_update_node);
	folio->private = (void *)entry.val;
	folio_set_swapcache(folio);
	folio_ref_add(folio, (int)nr);
	if (shadowp)
		*shadowp = NULL;
	do {
		xas_lock(&xas);
		xas_create_range(&xas);
		if (!xas_error(&xas)) {
			for (i = 0; i < nr; i++) {
				void *old = xas_load(&xas);

				if (shadowp && xa_is_value(old))
					*shadowp = old;
				xas_store(&xas, folio);
				xas_next(&xas);
			}
			space->nrpages += nr;
		}
		xas_unlock(&xas);
	} while (xas_nomem(&xas, gfp));

	err = xas_error(&xas);
	if (err) {
		folio_clear_swapcache(folio);
		folio->private = NULL;
		folio_put_refs(folio, (int)nr);
	}
	return err;
}
