// SPDX-License-Identifier: MIT
/*
 * mm/filemap.c - the page cache: adding, finding and removing the folios
 * of an address_space.
 *
 * Follows the kernel's mm/filemap.c (Linux 6.x) with the seeds' changes:
 * filemap_add_folio() in one tree walk (seed 000) through a store helper
 * the swap cache shares (seed 001), batch lookups that walk once and move
 * sideways over large folios (seed 002), and batched get-or-create
 * (seed 004, with large folios and shadows).  Every folio added goes on
 * its arena's LRU (mm/swap.c), after refault accounting when it replaced
 * a shadow (mm/workingset.c); every cursor that changes the tree reports
 * node changes for shadow node tracking (mapping_set_update()).
 * Omitted: readahead, mmap.
 *
 * Conventions: @mapping is the address_space, @folio a folio, @index a
 * page index in @mapping, @nr a number of pages or folios, @xas a cursor
 * on mapping->i_pages.
 *
 * Lockless lookup guarantees (cited by tests as L1-L3):
 *  L1. A folio returned by a lookup had a non-zero refcount when the
 *      reference was taken (folio_try_get()), so it was not free.
 *  L2. After taking the reference the lookup reloads the slot; if the
 *      slot no longer holds the folio the reference is dropped and the
 *      lookup retried, so a returned folio was cached at that index at a
 *      moment after the reference was taken.
 *  L3. A folio's mapping and index are set before it is stored in the
 *      tree (release) and cleared only after it is removed, under the
 *      folio lock: a caller that locks a looked-up folio and sees its
 *      mapping unchanged holds a folio still cached at that index.
 */
#include <errno.h>
#include <string.h>

#include "futex.h"
#include "rcu_internal.h"
#include "filemap_internal.h"
#include "lru_internal.h"
#include "swap_internal.h"

void (*filemap_split_race_hook)(struct xa_state *xas);

void address_space_init(struct address_space *mapping, struct upc_arena *arena,
			const struct address_space_operations *a_ops,
			unsigned long flags)
{
	memset(mapping, 0, sizeof(*mapping));
	xa_init_flags(&mapping->i_pages, 0);
	mapping->arena = arena;
	mapping->a_ops = a_ops;
	mapping->flags = flags;
}

void folio_batch_release(struct folio_batch *fbatch)
{
	unsigned int i;

	for (i = 0; i < fbatch->nr; i++)
		folio_put(fbatch->folios[i]);
	folio_batch_init(fbatch);
}

struct folio *filemap_alloc_folio(struct address_space *mapping, gfp_t gfp,
				  unsigned int order)
{
	return upc_arena_alloc_folio(mapping->arena, gfp, order);
}

/* ---- adding ---------------------------------------------------------------- */

int filemap_store_scan(struct xa_state *xas, struct folio *folio,
		       void **shadowp, struct filemap_split *split)
{
	void *entry, *old = NULL;
	int order = -1;

	xas_for_each_conflict(xas, entry) {
		if (!xa_is_value(entry)) {
			xas_set_err(xas, -EEXIST);
			return -EEXIST;
		}
		/* The first shadow is the one handed back (and split). */
		if (!old) {
			old = entry;
			order = xas_get_order(xas);
		}
	}

	/* The preallocation is only good for what it was made for. */
	if (split->order && (old != split->shadow || order != split->order)) {
		xas_destroy(xas);
		split->order = 0;
	}
	if (old && order > (int)folio_order(folio)) {
		if (!split->order) {
			split->shadow = old;
			split->order = order;
			return 1;
		}
		/*
		 * Cut only the folio's piece out of the shadow (the rest
		 * stays as the largest aligned shadows around it); the nodes
		 * were allocated outside the lock, so this cannot fail for
		 * memory, and it leaves the cursor on the folio's slot.
		 */
		xas_try_split(xas, old, order);
		split->order = 0;
		if (xas_error(xas))
			return xas_error(xas);
	}
	if (shadowp)
		*shadowp = old;
	xas_store(xas, folio);
	return xas_error(xas);
}

int filemap_lock_store(struct xa_state *xas, struct folio *folio, gfp_t gfp,
		       void **shadowp)
{
	struct filemap_split split = { NULL, 0 };

	for (;;) {
		int ret;

		/* Step 1: scan, split with what is preallocated, store. */
		xas_lock(xas);
		ret = filemap_store_scan(xas, folio, shadowp, &split);
		if (!ret)
			return 0;
		xas_unlock(xas);

		/* Step 2: a split is needed: allocate outside the lock, rescan. */
		if (ret > 0) {
			xas_try_split_alloc(xas, split.order, gfp);
			if (xas_error(xas))
				return xas_error(xas);
			if (filemap_split_race_hook)
				filemap_split_race_hook(xas);
			xas_reset(xas);
			continue;
		}
		/* Step 3: out of nodes: allocate one and retry, or give up. */
		split.order = 0;
		if (!xas_nomem(xas, gfp))
			return xas_error(xas);
	}
}

int __filemap_add_folio(struct address_space *mapping, struct folio *folio,
			pgoff_t index, gfp_t gfp, void **shadowp)
{
	XA_STATE(xas, &mapping->i_pages, index);
	unsigned long nr = folio_nr_pages(folio);
	int err;

	if (index & (nr - 1) || folio->mapping)
		return -EINVAL;
	if (index > MAX_PAGECACHE_INDEX - (nr - 1))
		return -EFBIG;
	xas_set_order(&xas, index, folio_order(folio));
	mapping_set_update(&xas, mapping);
	/* Readers that find the folio may look at these at once (L3). */
	folio->mapping = mapping;
	folio->index = index;
	folio_ref_add(folio, (int)nr);

	err = filemap_lock_store(&xas, folio, gfp, shadowp);
	if (err) {
		folio->mapping = NULL;
		folio_put_refs(folio, (int)nr);
		return err;
	}
	mapping->nrpages += nr;
	xas_unlock(&xas);
	xas_destroy(&xas);
	return 0;
}

void filemap_folio_added(struct folio *folio, void *shadow)
{
	struct address_space *mapping = __atomic_load_n(&folio->mapping,
							__ATOMIC_RELAXED);

	/*
	 * PG_swapbacked picks the LRU list and must not change while the
	 * folio is listed, so it is set before the folio can reach a list.
	 */
	if (mapping && mapping->flags & (1UL << AS_SWAPBACKED))
		folio_set_swapbacked(folio);
	if (shadow)
		workingset_refault(folio, shadow);
	folio_add_lru(folio);
}

int filemap_add_folio(struct address_space *mapping, struct folio *folio,
		      pgoff_t index, gfp_t gfp)
{
	void *shadow = NULL;
	int err;

	err = __filemap_add_folio(mapping, folio, index, gfp, &shadow);
	if (!err)
		filemap_folio_added(folio, shadow);
	return err;
}

/* ---- lookup ---------------------------------------------------------------- */

bool filemap_pin(struct xa_state *xas, struct folio *folio)
{
	if (!folio_try_get(folio)) {
		xas_reset(xas);
		return false;
	}
	if (folio != xas_reload(xas)) {
		folio_put(folio);
		xas_reset(xas);
		return false;
	}
	return true;
}

void *filemap_get_entry(struct address_space *mapping, pgoff_t index)
{
	XA_STATE(xas, &mapping->i_pages, index);
	void *entry;

	upc_rcu_enter();
	for (;;) {
		entry = xas_load(&xas);
		if (xas_retry(&xas, entry))
			continue;
		if (!entry || xa_is_value(entry) || filemap_pin(&xas, entry))
			break;
	}
	upc_rcu_exit();
	return entry;
}

/* Lock a looked-up folio and check it was not truncated meanwhile (L3). */
static int filemap_lock_found(struct address_space *mapping,
			      struct folio *folio, fgf_t fgp_flags)
{
	if (fgp_flags & FGP_NOWAIT) {
		if (!folio_trylock(folio))
			return -EAGAIN;
	} else {
		folio_lock(folio);
	}
	if (folio->mapping != mapping) {
		folio_unlock(folio);
		return -ENOENT;
	}
	return 0;
}

/* The order FGP_CREAT tries first at @index. */
static unsigned int filemap_create_order(struct address_space *mapping,
					 pgoff_t index, fgf_t fgp_flags)
{
	unsigned int order = FGF_GET_ORDER(fgp_flags);

	if (!mapping_large_folio_support(mapping))
		return 0;
	if (order > UPC_MAX_ORDER)
		order = UPC_MAX_ORDER;
	if (index && order > (unsigned int)__builtin_ctzl(index))
		order = __builtin_ctzl(index);
	return order;
}

/*
 * Create a locked folio covering @index, trying smaller orders when a
 * large one does not fit.  Return: the folio, or ERR_PTR(-EEXIST) when
 * someone else cached one first, ERR_PTR(-ENOMEM).
 */
static struct folio *filemap_create_folio(struct address_space *mapping,
					  pgoff_t index, fgf_t fgp_flags,
					  gfp_t gfp)
{
	unsigned int order = filemap_create_order(mapping, index, fgp_flags);
	int err;

	for (;;) {
		struct folio *folio = filemap_alloc_folio(mapping, gfp, order);

		err = -ENOMEM;
		if (folio) {
			folio_trylock(folio);
			if (fgp_flags & FGP_ACCESSED)
				folio_set_referenced(folio);
			err = filemap_add_folio(mapping, folio,
						index & ~((1UL << order) - 1), gfp);
			if (!err)
				return folio;
			folio_unlock(folio);
			folio_put(folio);
		}
		if (!order)
			return ERR_PTR(err);
		order--;
	}
}

struct folio *__filemap_get_folio(struct address_space *mapping, pgoff_t index,
				  fgf_t fgp_flags, gfp_t gfp)
{
	struct folio *folio;
	void *entry;
	int err;

	for (;;) {
		entry = filemap_get_entry(mapping, index);
		if (!entry || xa_is_value(entry)) {
			if (!(fgp_flags & FGP_CREAT))
				return ERR_PTR(-ENOENT);
			/* Never sleeping: no reclaim either, as the kernel's. */
			if (fgp_flags & FGP_NOWAIT)
				gfp |= GFP_NOWAIT;
			folio = filemap_create_folio(mapping, index, fgp_flags, gfp);
			if (folio == ERR_PTR(-EEXIST))
				continue;
			if (IS_ERR(folio))
				return folio;
			if (!(fgp_flags & FGP_LOCK))
				folio_unlock(folio);
			return folio;
		}
		folio = entry;
		if (fgp_flags & FGP_LOCK) {
			err = filemap_lock_found(mapping, folio, fgp_flags);
			if (err) {
				folio_put(folio);
				if (err == -ENOENT)
					continue;
				return ERR_PTR(err);
			}
		}
		if (fgp_flags & FGP_ACCESSED)
			folio_mark_accessed(folio);
		if (fgp_flags & FGP_STABLE)
			folio_wait_writeback(folio);
		return folio;
	}
}

/*
 * Walk once from the cursor and collect contiguous folios sideways,
 * stepping over each large folio in one move.  Stops at a hole, a value
 * entry, past @max, when the batch is full, and (@stop_not_uptodate) after
 * a folio that is not uptodate.  Caller holds the RCU read lock.
 */
static void filemap_batch_contig(struct xa_state *xas, pgoff_t max,
				 struct folio_batch *fbatch,
				 bool stop_not_uptodate)
{
	struct folio *folio;

	for (folio = xas_load(xas); folio; folio = xas_next(xas)) {
		if (xas_retry(xas, folio))
			continue;
		if (xas->xa_index > max || xa_is_value(folio) ||
		    xa_is_sibling(folio))
			break;
		if (!filemap_pin(xas, folio))
			continue;
		if (!folio_batch_add(fbatch, folio))
			break;
		if (stop_not_uptodate && !folio_test_uptodate(folio))
			break;
		/* Jump to the folio's last index: xas_next() leaves it. */
		xas_advance(xas, folio_next_index(folio) - 1);
		if (xas->xa_index >= max)
			break;
	}
}

unsigned int filemap_get_folios_contig(struct address_space *mapping,
				       pgoff_t *start, pgoff_t end,
				       struct folio_batch *fbatch)
{
	XA_STATE(xas, &mapping->i_pages, *start);
	unsigned int nr;

	upc_rcu_enter();
	filemap_batch_contig(&xas, end, fbatch, false);
	upc_rcu_exit();
	nr = folio_batch_count(fbatch);
	if (nr)
		*start = folio_next_index(fbatch->folios[nr - 1]);
	return nr;
}

void filemap_get_read_batch(struct address_space *mapping, pgoff_t index,
			    pgoff_t max, struct folio_batch *fbatch)
{
	XA_STATE(xas, &mapping->i_pages, index);

	upc_rcu_enter();
	filemap_batch_contig(&xas, max, fbatch, true);
	upc_rcu_exit();
}

/*
 * The next entry at or after the cursor (with @mark, or any with
 * XA_PRESENT) up to @max: a folio with a reference, a value entry, or
 * NULL.  Caller holds the RCU read lock.
 */
static void *filemap_find_entry(struct xa_state *xas, pgoff_t max,
				xa_mark_t mark)
{
	void *entry;

	for (;;) {
		if (mark == XA_PRESENT)
			entry = xas_find(xas, max);
		else
			entry = xas_find_marked(xas, max, mark);
		if (xas_retry(xas, entry))
			continue;
		if (!entry || xa_is_value(entry) || filemap_pin(xas, entry))
			return entry;
	}
}

/* Where a folio lookup that ended with @fbatch full or done resumes. */
static void filemap_batch_resume(struct folio_batch *fbatch, bool full,
				 pgoff_t *start, pgoff_t end)
{
	if (full)
		*start = folio_next_index(fbatch->folios[fbatch->nr - 1]);
	else
		*start = end == (pgoff_t)-1 ? end : end + 1;
}

/* Folios (values skipped) in [*start, end], with @mark or XA_PRESENT. */
static unsigned int filemap_get_folios_mark(struct address_space *mapping,
					    pgoff_t *start, pgoff_t end,
					    xa_mark_t mark,
					    struct folio_batch *fbatch)
{
	XA_STATE(xas, &mapping->i_pages, *start);
	bool full = false;
	void *entry;

	upc_rcu_enter();
	while ((entry = filemap_find_entry(&xas, end, mark))) {
		if (xa_is_value(entry))
			continue;
		if (!folio_batch_add(fbatch, entry)) {
			full = true;
			break;
		}
	}
	upc_rcu_exit();
	filemap_batch_resume(fbatch, full, start, end);
	return folio_batch_count(fbatch);
}

unsigned int filemap_get_folios(struct address_space *mapping, pgoff_t *start,
				pgoff_t end, struct folio_batch *fbatch)
{
	return filemap_get_folios_mark(mapping, start, end, XA_PRESENT, fbatch);
}

unsigned int filemap_get_folios_tag(struct address_space *mapping,
				    pgoff_t *start, pgoff_t end, xa_mark_t tag,
				    struct folio_batch *fbatch)
{
	if (tag > XA_MARK_MAX)
		return 0;
	return filemap_get_folios_mark(mapping, start, end, tag, fbatch);
}

/* First index and size in pages of the entry under the cursor. */
static pgoff_t entry_extent(struct xa_state *xas, void *entry,
			    unsigned long *nr)
{
	unsigned long pages;

	if (!xa_is_value(entry)) {
		*nr = folio_nr_pages(entry);
		return ((struct folio *)entry)->index;
	}
	pages = 1UL << xas_get_order(xas);
	*nr = pages;
	return xas->xa_index & ~(pages - 1);
}

/*
 * For find_lock_entries(): lock a referenced folio if that does not wait,
 * and keep it only if it is still cached here and not under writeback.
 * Value entries need nothing.  Return: true to keep the entry.
 */
static bool filemap_lock_entry(struct address_space *mapping, void *entry,
			       pgoff_t index)
{
	struct folio *folio = entry;

	if (xa_is_value(entry))
		return true;
	if (!folio_trylock(folio))
		return false;
	if (folio->mapping != mapping || folio->index != index ||
	    folio_test_writeback(folio)) {
		folio_unlock(folio);
		return false;
	}
	return true;
}

/*
 * Entries in [*start, end] into @fbatch and @indices; with @lock, only
 * entries wholly inside the range, folios locked.
 */
static unsigned int filemap_get_entries(struct address_space *mapping,
					pgoff_t *start, pgoff_t end,
					struct folio_batch *fbatch,
					pgoff_t *indices, bool lock)
{
	XA_STATE(xas, &mapping->i_pages, *start);
	pgoff_t next = *start;
	void *entry;

	upc_rcu_enter();
	while ((entry = filemap_find_entry(&xas, end, XA_PRESENT))) {
		unsigned long nr;
		pgoff_t first = entry_extent(&xas, entry, &nr);

		if (lock && (first < *start || first + nr - 1 > end ||
			     !filemap_lock_entry(mapping, entry, first)))
			goto skip;
		indices[fbatch->nr] = first;
		next = first + nr;
		if (!folio_batch_add(fbatch, entry))
			break;
		continue;
skip:
		if (!xa_is_value(entry))
			folio_put(entry);
	}
	upc_rcu_exit();
	if (folio_batch_count(fbatch))
		*start = next;
	return folio_batch_count(fbatch);
}

unsigned int find_get_entries(struct address_space *mapping, pgoff_t *start,
			      pgoff_t end, struct folio_batch *fbatch,
			      pgoff_t *indices)
{
	return filemap_get_entries(mapping, start, end, fbatch, indices, false);
}

unsigned int find_lock_entries(struct address_space *mapping, pgoff_t *start,
			       pgoff_t end, struct folio_batch *fbatch,
			       pgoff_t *indices)
{
	return filemap_get_entries(mapping, start, end, fbatch, indices, true);
}

/* ---- removal ------------------------------------------------------------- */

/*
 * filemap_cursor_move() - Point an order-0 cursor at @index, sideways if
 * it can.  The cursor climbs from its node (still in the tree: the caller
 * has held the lock since the cursor was last used) to the first
 * ancestor that spans @index, so the next xas_load() or xas_store()
 * descends from there instead of walking from the head.  A cursor with
 * no node is reset for a walk.
 */
void filemap_cursor_move(struct xa_state *xas, pgoff_t index)
{
	struct xa_node *node = xas->xa_node;

	xas->xa_shift = 0;
	xas->xa_sibs = 0;
	if (!xas_is_node(xas)) {
		xas_set(xas, index);
		return;
	}
	while ((index ^ xas->xa_index) &
	       ~(((unsigned long)XA_CHUNK_SIZE << node->shift) - 1)) {
		node = xa_parent(node);
		if (!node) {
			xas_set(xas, index);
			return;
		}
	}
	xas->xa_node = node;
	xas->xa_index = index;
	xas->xa_offset = (index >> node->shift) & XA_CHUNK_MASK;
}

/*
 * Take @folio's slots out of the tree with the cursor on them, leaving
 * @shadow, and drop what the cache held.  Lock held.
 */
static void filemap_unlink_folio(struct xa_state *xas, struct folio *folio,
				 void *shadow)
{
	struct address_space *mapping = folio->mapping;
	unsigned long nr = folio_nr_pages(folio);

	xas_store(xas, shadow);
	/* A shadow keeps no tags; NULL already cleared them. */
	if (shadow)
		xas_init_marks(xas);
	/* Referenced holders may read it unlocked (folio_mark_accessed()). */
	__atomic_store_n(&folio->mapping, NULL, __ATOMIC_RELAXED);
	mapping->nrpages -= nr;
}

void filemap_delete_folio(struct folio *folio, void *shadow)
{
	struct address_space *mapping = folio->mapping;
	XA_STATE_ORDER(xas, &mapping->i_pages, folio->index, folio_order(folio));

	mapping_set_update(&xas, mapping);
	filemap_unlink_folio(&xas, folio, shadow);
}

void __filemap_remove_folio(struct folio *folio, void *shadow)
{
	unsigned long nr = folio_nr_pages(folio);

	filemap_delete_folio(folio, shadow);
	folio_put_refs(folio, (int)nr);
}

void filemap_remove_folio(struct folio *folio)
{
	struct address_space *mapping = folio->mapping;

	xa_lock(&mapping->i_pages);
	__filemap_remove_folio(folio, NULL);
	xa_unlock(&mapping->i_pages);
}

void delete_from_page_cache_batch(struct address_space *mapping,
				  struct folio_batch *fbatch)
{
	XA_STATE(xas, &mapping->i_pages, 0);
	unsigned int i;

	if (!folio_batch_count(fbatch))
		return;
	xas_set(&xas, fbatch->folios[0]->index);
	mapping_set_update(&xas, mapping);
	xas_lock(&xas);
	for (i = 0; i < folio_batch_count(fbatch); i++) {
		struct folio *folio = fbatch->folios[i];

		filemap_cursor_move(&xas, folio->index);
		xas_load(&xas);
		filemap_unlink_folio(&xas, folio, NULL);
	}
	xas_unlock(&xas);
	for (i = 0; i < folio_batch_count(fbatch); i++)
		folio_put_refs(fbatch->folios[i],
			       (int)folio_nr_pages(fbatch->folios[i]));
}

/* Drop the references a batch of entries holds (value entries hold none). */
static void filemap_release_entries(struct folio_batch *fbatch)
{
	unsigned int i;

	for (i = 0; i < folio_batch_count(fbatch); i++)
		if (!xa_is_value(fbatch->folios[i]))
			folio_put(fbatch->folios[i]);
	folio_batch_init(fbatch);
}

/*
 * Erase the value entry @entry found at @index if it is still there.
 * Shmem keeps swap entries, which only shmem may drop (its data would
 * go with them), so values of a swap-backed mapping are left alone.
 */
static void filemap_erase_value(struct address_space *mapping, pgoff_t index,
				void *entry)
{
	XA_STATE(xas, &mapping->i_pages, index);

	if (mapping->flags & (1UL << AS_SWAPBACKED))
		return;
	mapping_set_update(&xas, mapping);
	xas_lock(&xas);
	if (xas_load(&xas) == entry)
		xas_store(&xas, NULL);
	xas_unlock(&xas);
}

/*
 * Truncate a locked folio against the byte range [@lstart, @lend]:
 * remove it when it lies inside, else zero the part that does; either
 * way, free the swap slots it kept (swap_drop_kept()).
 */
static void truncate_folio(struct folio *folio, int64_t lstart, int64_t lend)
{
	int64_t first = (int64_t)folio->index << UPC_PAGE_SHIFT;
	int64_t last = first + ((int64_t)folio_size(folio) - 1);

	folio_wait_writeback(folio);
	/* Zeroed in part or gone: a copy kept in swap is stale either way. */
	swap_drop_kept(folio);
	if (lstart <= first && (lend < 0 || last <= lend)) {
		/* Its data is being thrown away: nothing left to write. */
		folio_clear_dirty(folio);
		filemap_remove_folio(folio);
		return;
	}
	if (lstart > first)
		first = lstart;
	if (lend >= 0 && lend < last)
		last = lend;
	memset((char *)folio_address(folio) +
	       (first - ((int64_t)folio->index << UPC_PAGE_SHIFT)),
	       0, (size_t)(last - first + 1));
}

/*
 * filemap_visit_range() - Apply @fn to the folios of [@start, @end].
 * Value entries are erased (filemap_erase_value()); each folio is passed
 * to @fn locked and still in @mapping, then unlocked and released.
 * With @trylock only folios wholly inside the range whose lock is free
 * are visited (find_lock_entries()); otherwise every folio touching the
 * range is, waiting for its lock.
 */
static void filemap_visit_range(struct address_space *mapping, pgoff_t start,
				pgoff_t end, bool trylock,
				void (*fn)(struct folio *folio, void *arg),
				void *arg)
{
	pgoff_t indices[FOLIO_BATCH_SIZE];
	struct folio_batch fbatch;
	pgoff_t index = start;

	folio_batch_init(&fbatch);
	while (filemap_get_entries(mapping, &index, end, &fbatch, indices,
				   trylock)) {
		unsigned int i;

		for (i = 0; i < folio_batch_count(&fbatch); i++) {
			struct folio *folio = fbatch.folios[i];

			if (xa_is_value(folio)) {
				filemap_erase_value(mapping, indices[i], folio);
				continue;
			}
			if (!trylock)
				folio_lock(folio);
			if (folio->mapping == mapping)
				fn(folio, arg);
			folio_unlock(folio);
		}
		filemap_release_entries(&fbatch);
		/* Past @end, or wrapped past the end of the index space. */
		if (!index || index > end)
			break;
	}
}

/* The byte range a truncation covers. */
struct truncate_range {
	int64_t lstart;
	int64_t lend;
};

static void truncate_visit(struct folio *folio, void *arg)
{
	struct truncate_range *range = arg;

	truncate_folio(folio, range->lstart, range->lend);
}

void truncate_inode_pages_range(struct address_space *mapping, int64_t lstart,
				int64_t lend)
{
	struct truncate_range range = { lstart, lend };

	if (lstart < 0 || (lend >= 0 && lend < lstart))
		return;
	filemap_visit_range(mapping, (pgoff_t)lstart >> UPC_PAGE_SHIFT,
			    lend < 0 ? (pgoff_t)-1 : (pgoff_t)lend >> UPC_PAGE_SHIFT,
			    false, truncate_visit, &range);
}

/*
 * Drop a locked folio if nobody else uses it; count its pages.  As
 * reclaim does, the refcount is frozen before the folio leaves, under
 * the locks taking folios out needs: a lockless lookup could otherwise
 * take a reference between the check and the removal and dirty a folio
 * no longer cached, a write nothing would ever write back.
 */
static void invalidate_visit(struct folio *folio, void *arg)
{
	struct address_space *mapping = folio->mapping;
	int refs = (int)folio_nr_pages(folio) + 1;
	unsigned long *count = arg;
	bool gone = false;

	if (folio_test_dirty(folio) || folio_test_writeback(folio) ||
	    folio_ref_count(folio) != refs || !mapping_evict_lock(mapping))
		return;
	if (folio_ref_freeze(folio, refs)) {
		gone = !folio_test_dirty(folio);
		if (gone)
			filemap_delete_folio(folio, NULL);
		/* Gone: the caller's reference is the last. */
		folio_ref_unfreeze(folio, gone ? 1 : refs);
	}
	mapping_evict_unlock(mapping);
	if (gone)
		*count += folio_nr_pages(folio);
}

unsigned long invalidate_mapping_pages(struct address_space *mapping,
				       pgoff_t start, pgoff_t end)
{
	unsigned long count = 0;

	if (start <= end)
		filemap_visit_range(mapping, start, end, true,
				    invalidate_visit, &count);
	return count;
}

/* ---- state ----------------------------------------------------------------- */

/* The bit for @tag in the masks folios_retag() takes. */
#define TAG(tag)	(1U << (tag))

/*
 * Point @xas, under @mapping's i_pages lock (held since the cursor was
 * last used, if it was), at @folio's slot, moving sideways from where
 * the cursor is (filemap_cursor_move()).  Return: whether the slot
 * holds @folio, which is still in @mapping.
 */
static bool retag_seek(struct xa_state *xas, struct address_space *mapping,
		       struct folio *folio)
{
	filemap_cursor_move(xas, folio->index);
	return xas_load(xas) == folio && folio->mapping == mapping;
}

/* Set the tags in @set, then clear those in @clear, at @xas's slot. */
static void retag_slot(struct xa_state *xas, struct folio *folio,
		       unsigned int set, unsigned int clear)
{
	xa_mark_t tag;

	/*
	 * A dirtier may have set the bit again since the caller cleared it,
	 * and tagged the folio before this: the tag stays with the bit
	 * (under the lock, the bit says who came last).
	 */
	if (folio_test_dirty(folio))
		clear &= ~TAG(PAGECACHE_TAG_DIRTY);
	for (tag = 0; tag <= XA_MARK_MAX; tag++)
		if (set & TAG(tag))
			xas_set_mark(xas, tag);
	cmm_smp_wmb();
	for (tag = 0; tag <= XA_MARK_MAX; tag++)
		if (clear & TAG(tag))
			xas_clear_mark(xas, tag);
}

/*
 * Set the tags in mask @set and clear those in @clear on the slots of
 * @nr cached folios: one lock round trip and one walk for each mapping
 * they belong to in a row (callers pass one mapping's); from one folio
 * to the next the cursor climbs only to the node they share.  A folio
 * no longer in its mapping is passed over.
 *
 * Every set comes before any clear, with a write barrier between
 * (liburcu's cmm_smp_wmb(), a compiler barrier where stores are not
 * reordered with each other, as on x86):
 * lockless tag lookups take no lock, so to them the lock makes nothing
 * one step.  A folio going from dirty to under writeback must show at
 * every moment at least one of the two tags, or an fsync's pass (dirty
 * tag) and then its wait (writeback tag) could both miss it; the
 * kernel's __folio_start_writeback() sets the one before it clears the
 * other for the same reason.
 */
static void folios_retag(struct folio **folios, unsigned int nr,
			 unsigned int set, unsigned int clear)
{
	struct address_space *locked = NULL;
	XA_STATE(xas, NULL, 0);
	unsigned int i;

	for (i = 0; i < nr; i++) {
		struct folio *folio = folios[i];
		struct address_space *mapping = folio->mapping;

		if (!mapping)
			continue;
		if (mapping != locked) {
			if (locked)
				xas_unlock(&xas);
			locked = mapping;
			xas.xa = &mapping->i_pages;
			xas_set(&xas, folio->index);	/* another tree */
			xas_lock(&xas);
		}
		if (retag_seek(&xas, mapping, folio))
			retag_slot(&xas, folio, set, clear);
	}
	if (locked)
		xas_unlock(&xas);
}

static void folio_retag(struct folio *folio, unsigned int set,
			unsigned int clear)
{
	folios_retag(&folio, 1, set, clear);
}

bool filemap_dirty_folio(struct address_space *mapping, struct folio *folio)
{
	(void)mapping;	/* folio_retag() rechecks the folio's own */
	if (folio_test_set_dirty(folio))
		return false;
	folio_retag(folio, TAG(PAGECACHE_TAG_DIRTY), 0);
	return true;
}

unsigned long filemap_dirty_folios(struct address_space *mapping,
				   struct folio **folios, unsigned int nr)
{
	unsigned int i, first = nr, last = 0;
	unsigned long pages = 0;

	(void)mapping;	/* folios_retag() rechecks the folios' own */
	for (i = 0; i < nr; i++) {
		if (folio_test_set_dirty(folios[i]))
			continue;
		pages += folio_nr_pages(folios[i]);
		if (first == nr)
			first = i;
		last = i;
	}
	/* Tagging a folio that was dirty already changes nothing. */
	if (pages)
		folios_retag(folios + first, last - first + 1,
			     TAG(PAGECACHE_TAG_DIRTY), 0);
	return pages;
}

bool noop_dirty_folio(struct address_space *mapping, struct folio *folio)
{
	(void)mapping;
	return !folio_test_set_dirty(folio);
}

bool folio_mark_dirty(struct folio *folio)
{
	struct address_space *mapping = folio->mapping;

	if (mapping && mapping->a_ops && mapping->a_ops->dirty_folio)
		return mapping->a_ops->dirty_folio(mapping, folio);
	return filemap_dirty_folio(mapping, folio);
}

bool folio_clear_dirty_for_io(struct folio *folio)
{
	if (!folio_test_clear_dirty(folio))
		return false;
	folio_retag(folio, 0, TAG(PAGECACHE_TAG_DIRTY));
	return true;
}

void tag_pages_for_writeback(struct address_space *mapping, pgoff_t start,
			     pgoff_t end)
{
	XA_STATE(xas, &mapping->i_pages, start);
	unsigned int tagged = 0;
	void *entry;

	xas_lock(&xas);
	xas_for_each_marked(&xas, entry, end, PAGECACHE_TAG_DIRTY) {
		xas_set_mark(&xas, PAGECACHE_TAG_TOWRITE);
		/* Let others in now and then on a long range. */
		if (++tagged % 1024)
			continue;
		xas_pause(&xas);
		xas_unlock(&xas);
		xas_lock(&xas);
	}
	xas_unlock(&xas);
}

/* ---- writeback state -------------------------------------------------- */

/*
 * A folio's writeback bit is waited for like its lock: sleepers set
 * PG_waiters and sleep on the low half of the flags word; whoever clears
 * the bit and finds PG_waiters clears it and wakes them all, and each
 * re-checks its own condition (lock waiters included).
 */
_Static_assert(PG_writeback < 32 && PG_waiters < 32,
	       "the bits slept on must be in the futex word");

void folio_wait_writeback(struct folio *folio)
{
	/* The common case: no writeback, and no PG_waiters left behind. */
	if (!folio_test_writeback(folio))
		return;
	for (;;) {
		unsigned long flags = __atomic_fetch_or(&folio->flags,
							1UL << PG_waiters,
							__ATOMIC_ACQ_REL);

		if (!(flags & (1UL << PG_writeback)))
			return;
		upc_futex_wait(&folio->flags,
			       (uint32_t)(flags | (1UL << PG_waiters)));
	}
}

void folios_tag_writeback(struct folio **folios, unsigned int nr)
{
	/* folios_retag() keeps the dirty tag of a folio dirty again. */
	folios_retag(folios, nr, TAG(PAGECACHE_TAG_WRITEBACK),
		     TAG(PAGECACHE_TAG_TOWRITE) | TAG(PAGECACHE_TAG_DIRTY));
}

void folio_start_writeback(struct folio *folio)
{
	folio_set_writeback(folio);
	folios_tag_writeback(&folio, 1);
}

bool folio_clear_dirty_set_writeback(struct folio *folio)
{
	if (!folio_test_clear_dirty(folio))
		return false;
	folio_set_writeback(folio);
	return true;
}

bool folio_clear_dirty_start_writeback(struct folio *folio)
{
	if (!folio_clear_dirty_set_writeback(folio))
		return false;
	folios_tag_writeback(&folio, 1);
	return true;
}

void folios_end_writeback(struct folio **folios, unsigned int nr)
{
	unsigned long flags;
	unsigned int i;

	folios_retag(folios, nr, 0, TAG(PAGECACHE_TAG_WRITEBACK));
	for (i = 0; i < nr; i++) {
		flags = __atomic_fetch_and(&folios[i]->flags,
					   ~(1UL << PG_writeback),
					   __ATOMIC_ACQ_REL);
		if (flags & (1UL << PG_waiters) &&
		    folio_test_clear_flag(folios[i], PG_waiters))
			upc_futex_wake(&folios[i]->flags, INT32_MAX);
	}
}

void folio_end_writeback(struct folio *folio)
{
	folios_end_writeback(&folio, 1);
}
