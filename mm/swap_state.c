// SPDX-License-Identifier: MIT
/*
 * mm/swap_state.c - the swap cache, and the two trips through it:
 * swap-out (reclaim's hook) and swap-in.
 *
 * The swap cache maps a swap entry to the folio whose data is on its
 * way to or from that slot.  It is split into spaces of 2^space_shift
 * slots, each an address_space indexed by the offset inside its chunk
 * (seed 003): a 64 MiB chunk needs a tree of 3 levels at most, where its
 * slots keyed by their full offset in a 32 GiB device need 5, and every
 * walk pays for the levels.  SWAP_SPACE_FULL_INDEX keeps the full-offset
 * keys, the layout before seed 003, for the benchmark to compare.
 *
 * A folio enters a space through filemap_lock_store(), the store helper
 * of the page cache (seed 001): one locked conflict scan that also
 * reads and, for a large folio, splits the shadow it lands on.  While in
 * the swap cache a folio keeps its owner's mapping and index (it is
 * still, or about to be, in its region); PG_swapcache and
 * folio->private (its entry) say where it is in the swap cache.  The
 * cache holds one reference per page, like a mapping.
 *
 * Swap-out (swap_reclaim_out(), called by reclaim with the folio locked
 * and isolated): hand out slots, add the folio, write it, and take it
 * out again leaving a shadow (workingset_eviction()); reclaim then puts
 * the swap entry in the folio's place in its region.  A large folio gets
 * aligned consecutive slots and leaves one entry of its order, naming
 * the first.  One with no such run free while some slot is (or larger
 * than a swap cache space) is refused with -EFBIG, and reclaim splits
 * it (mm/huge_memory.c) and sends its pages one at a time.  The write is
 * synchronous, so the folio is in the swap cache only while it is
 * written.  If reclaim cannot evict the folio after all (someone took a
 * reference), swap_reclaim_free() gives the slots back.  Reclaim hands
 * over a batch of anonymous folios at once (swap_reclaim_out_folios()):
 * each gets its slots and enters the swap cache, then all are written,
 * those whose slots follow each other in one transfer (a pwritev() of
 * up to SWAP_WRITE_RUN folios to a swap file, where each had a pwrite()
 * of its own: swap_write_folios()), then each leaves the swap cache.
 *
 * Swap-in (swapin_folio()): read the entry's order from the region (an
 * entry no longer there: look again); look the entry up; a folio found
 * is being swapped in by another thread, which holds its lock until the
 * region has it, so wait for the lock and look at the region again.
 * Otherwise pin the slots (swapcache_prepare(): SWAP_HAS_CACHE, refused
 * if a slot was freed since the caller read the entry, so a stale
 * swap-in never puts a folio at a slot that a swap-out may be handed),
 * allocate a folio of the entry's order, add (the shadow found goes to
 * refault detection), read, and under the region's lock replace the
 * entry, if it is still there with that order, by the folio; then take
 * the folio out of the swap cache and let the slots go.  A large entry
 * for which no folio of its order can be had is split instead
 * (swap_entry_split()), so that the page asked for comes back alone.
 *
 * Readahead (swapin_readahead()).  A mapping that keeps a struct
 * swap_ra_state (anonymous regions) has a swap-in from a swap file that
 * follows the last one read the pages after it too, while they hold order-0 entries of
 * the slots that follow, up to SWAP_RA_MAX pages: the window doubles on
 * each sequential swap-in, and any other sets it back to one page.  The
 * pages are read in one transfer and each put in the mapping as if
 * swapped in on its own.  Pages swapped out in LRU order get their slots
 * in that order, so the page asked for goes on the LRU before those read
 * after it: the other way round, a region read in order came back from
 * its next trip to swap with each window's first page after the others,
 * the slots no longer followed the pages, and readahead stopped at once
 * (reading a 256 MiB region in order, 1 MiB at a time, through a 32 MiB
 * cache from a swap file, against no readahead, median of 3 runs: 1.04x
 * with the window's first page last on the LRU; 1.39x in page order).
 * A device in memory reads no ahead: there each page read ahead cost
 * more than it saved (the same job, swap in memory: 0.94x).
 *
 * Kept slots (swapin_release_slots(), swap_out_kept()).  A page swapped
 * in from a swap file into a mapping that allows it (AS_SWAP_KEEP:
 * anonymous regions and shmem files, whose writes each free them first)
 * keeps its slots while the file is less than half in use, as the
 * kernel keeps an anonymous page in its swap cache: the folio carries
 * PG_swapslot and the entry in folio->private, and the slots stay in
 * use (counted in nr_kept and the cache's swap_cached).  Reclaim sends
 * the folio back to them without writing it; a write frees them first
 * (swap_drop_kept(): mm/anon.c, mm/shmem.c), and so does truncation,
 * for every folio it zeroes in part or takes out (so destroying a
 * region or file, too).  Each page read back through a small cache was
 * otherwise written out again when next evicted.
 */
#include <errno.h>
#include <sched.h>
#include <string.h>

#include "filemap_internal.h"
#include "lru_internal.h"
#include "rcu_internal.h"
#include "swap_internal.h"

/* ---- the cache ----------------------------------------------------------- */

int add_to_swap_cache(struct swap_info_struct *si, struct folio *folio,
		      swp_entry_t entry, gfp_t gfp, void **shadowp)
{
	struct address_space *space = swap_address_space(si, entry);
	XA_STATE(xas, &space->i_pages, swap_cache_index(si, entry));
	unsigned long nr = folio_nr_pages(folio);
	int err;

	/*
	 * A folio larger than a chunk (a huge folio with space_shift below
	 * 9) would need an entry in each space it spans; stored as one
	 * entry in its first space, lookups of its other pages would miss
	 * it and conflicts there would go unseen.  Refuse it: reclaim then
	 * keeps the folio and gives its slots back.
	 */
	if (folio_order(folio) > si->space_shift)
		return -EINVAL;
	xas_set_order(&xas, swap_cache_index(si, entry), folio_order(folio));
	mapping_set_update(&xas, space);
	folio->private = (void *)entry.val;
	folio_set_swapcache(folio);
	folio_ref_add(folio, (int)nr);

	err = filemap_lock_store(&xas, folio, gfp, shadowp);
	if (err) {
		folio_clear_swapcache(folio);
		folio->private = NULL;
		folio_put_refs(folio, (int)nr);
		return err;
	}
	space->nrpages += nr;
	xas_unlock(&xas);
	xas_destroy(&xas);
	return 0;
}

void delete_from_swap_cache(struct swap_info_struct *si, struct folio *folio,
			    void *shadow)
{
	swp_entry_t entry = folio_swap_entry(folio);
	struct address_space *space = swap_address_space(si, entry);
	pgoff_t index = swap_cache_index(si, entry);
	XA_STATE_ORDER(xas, &space->i_pages, index, folio_order(folio));
	unsigned long nr = folio_nr_pages(folio);

	mapping_set_update(&xas, space);
	xas_lock(&xas);
	xas_store(&xas, shadow);
	space->nrpages -= nr;
	xas_unlock(&xas);
	folio_clear_swapcache(folio);
	folio->private = NULL;
	folio_put_refs(folio, (int)nr);
}

struct folio *swap_cache_get_folio(struct swap_info_struct *si,
				   swp_entry_t entry)
{
	struct folio *folio = filemap_get_entry(swap_address_space(si, entry),
						swap_cache_index(si, entry));

	return xa_is_value(folio) ? NULL : folio;
}

/*
 * Erase the value entry @entry under the cursor if it lies inside
 * [@first, @last].  One that reaches out of the range (a large folio's
 * shadow, some of whose slots are freed) is cut at the range's edge
 * instead, xas_try_split() leaving the shadow in aligned pieces around
 * the slot at the edge, and the cursor is set back to the range's part
 * of it: the caller's walk then meets those pieces again, erases the
 * ones inside and cuts one across the other edge in turn.  Without a
 * node to split with (none can be waited for under the lock) the whole
 * shadow goes: a lost shadow only costs refault accounting, one that
 * outlived its slot would mislead the slot's next user.  Caller holds
 * the lock.
 */
static void swap_erase_value(struct xa_state *xas, void *entry,
			     pgoff_t first, pgoff_t last)
{
	unsigned int order = (unsigned int)xas_get_order(xas);
	pgoff_t start = xas->xa_index & ~((1UL << order) - 1);
	pgoff_t end = start + (1UL << order) - 1;

	if (start >= first && end <= last) {
		xas_store(xas, NULL);
		return;
	}
	xas_set_order(xas, start < first ? first : last, 0);
	xas_try_split(xas, entry, order);
	if (!xas_error(xas)) {
		xas_set(xas, start < first ? first : start);
		return;
	}
	/*
	 * The cursor keeps order 0 for the rest of the walk (a store of a
	 * larger order would erase that many slots at each later entry);
	 * an order-0 store into the shadow erases all of it.
	 */
	xas_set(xas, start);
	xas_store(xas, NULL);
}

/*
 * Erase every value entry of @space in [@first, @last], and no part of
 * one outside it (swap_erase_value()).
 */
static void swap_space_erase_values(struct address_space *space,
				    pgoff_t first, pgoff_t last)
{
	XA_STATE(xas, &space->i_pages, first);
	void *entry;

	mapping_set_update(&xas, space);
	xas_lock(&xas);
	xas_for_each(&xas, entry, last) {
		if (xa_is_value(entry))
			swap_erase_value(&xas, entry, first, last);
	}
	xas_unlock(&xas);
}

void swap_cache_clear_shadows(struct swap_info_struct *si, swp_entry_t entry,
			      unsigned long nr)
{
	unsigned long off = swp_offset(entry), end = off + nr;

	/*
	 * A run crosses chunks when it straddles a chunk boundary (two
	 * consecutive slots may; a huge folio's slots with space_shift
	 * below 9 always do): clear each chunk's part in its own space, or
	 * the shadows of the later chunks would outlive their slots.
	 */
	while (off < end) {
		swp_entry_t at = swp_entry(si->type, off);
		pgoff_t index = swap_cache_index(si, at);
		unsigned long chunk = 1UL << si->space_shift;
		unsigned long n = end - off;

		if (n > chunk - (off & (chunk - 1)))
			n = chunk - (off & (chunk - 1));
		swap_space_erase_values(swap_address_space(si, at), index,
					index + n - 1);
		off += n;
	}
}

void swap_cache_space_destroy(struct address_space *space)
{
	swap_space_erase_values(space, 0, ULONG_MAX);
	xa_destroy(&space->i_pages);
}

/* Count the nodes under @entry, and the deepest level, into @info. */
static void swap_cache_count(void *entry, unsigned int depth,
			     struct swap_cache_info *info)
{
	struct xa_node *node;
	unsigned int i;

	if (!xa_is_node(entry)) {
		if (entry && !xa_is_sibling(entry) && !xa_is_retry(entry))
			info->nr_entries++;
		return;
	}
	node = xa_to_node(entry);
	info->nr_nodes++;
	if (depth + 1 > info->max_height)
		info->max_height = depth + 1;
	for (i = 0; i < XA_CHUNK_SIZE; i++)
		swap_cache_count(node->slots[i], depth + 1, info);
}

void swap_cache_info(struct swap_info_struct *si, struct swap_cache_info *info)
{
	unsigned long i;

	memset(info, 0, sizeof(*info));
	info->nr_spaces = si->nr_spaces;
	for (i = 0; i < si->nr_spaces; i++) {
		struct xarray *xa = &si->spaces[i].i_pages;

		xa_lock(xa);
		swap_cache_count(xa_head(xa), 0, info);
		xa_unlock(xa);
	}
	info->node_bytes = (unsigned long long)info->nr_nodes *
			   sizeof(struct xa_node);
}

/* ---- swap entries in a mapping ------------------------------------------ */

/*
 * A run of slots to free: a swap entry of order > 0 names 2^order
 * consecutive slots from its own.
 */
struct swap_run {
	swp_entry_t entry;
	unsigned long nr;
};

/*
 * Erase up to @max swap entries of @mapping lying wholly in [*@index,
 * @last] into @runs, in one pass under the i_pages lock that moves
 * sideways and steps over folios; *@index is left where the pass
 * stopped.  A large entry reaching outside the range is left alone:
 * callers split such entries at the range's edges first (shmem's
 * shmem_hold_edge() says why).  Return: entries erased.
 */
static unsigned int swap_take_entries(struct address_space *mapping,
				      pgoff_t *index, pgoff_t last,
				      struct swap_run *runs, unsigned int max)
{
	XA_STATE(xas, &mapping->i_pages, *index);
	pgoff_t first = *index;
	unsigned int n = 0;
	void *entry;

	xas_lock(&xas);
	xas_for_each(&xas, entry, last) {
		unsigned long nr;
		pgoff_t start;

		if (!xa_is_value(entry))
			continue;
		nr = 1UL << xas_get_order(&xas);
		start = xas.xa_index & ~(nr - 1);
		if (start < first || start + (nr - 1) > last)
			continue;
		xas_store(&xas, NULL);
		runs[n].entry = radix_to_swp_entry(entry);
		runs[n++].nr = nr;
		if (n == max)
			break;
	}
	*index = xas.xa_index;
	xas_unlock(&xas);
	return n;
}

/*
 * Free @n runs of slots, one swap_free_nr() per stretch of consecutive
 * ones (pages swapped out in order went to consecutive slots, and a
 * stretch's shadows go in one pass).
 */
static void swap_free_runs(const struct swap_run *runs, unsigned int n)
{
	unsigned int i, j;

	for (i = 0; i < n; i = j) {
		unsigned long nr = runs[i].nr;

		for (j = i + 1; j < n; j++) {
			if (runs[j].entry.val != runs[i].entry.val + nr)
				break;
			nr += runs[j].nr;
		}
		swap_free_nr(runs[i].entry, nr);
	}
}

/* Swap entries erased per pass of swap_free_range(). */
#define SWAP_FREE_BATCH	64

void swap_free_range(struct address_space *mapping, pgoff_t first,
		     pgoff_t last)
{
	struct swap_run runs[SWAP_FREE_BATCH];
	unsigned int n;

	do {
		n = swap_take_entries(mapping, &first, last, runs,
				      SWAP_FREE_BATCH);
		swap_free_runs(runs, n);
	} while (n == SWAP_FREE_BATCH);
}

/*
 * The slot of the piece of large swap entry @entry (first slot) that
 * begins @delta pages into it, as a value entry.
 */
static void *swap_value_at(swp_entry_t entry, unsigned long delta)
{
	return swp_to_radix_entry(swp_entry(swp_type(entry),
					    swp_offset(entry) + delta));
}

/*
 * After xas_try_split() every piece of the old entry, [@head, @head +
 * @nr), holds the old entry: make each name its own first slot.  Two
 * walks per piece (about one per order).  Lock held.
 */
static void swap_entry_renumber(struct xa_state *xas, pgoff_t head,
				unsigned long nr, swp_entry_t entry)
{
	pgoff_t start = head;

	while (start < head + nr) {
		unsigned int order;

		xas_set_order(xas, start, 0);
		xas_load(xas);
		order = (unsigned int)xas_get_order(xas);
		xas_set_order(xas, start, order);
		xas_store(xas, swap_value_at(entry, start - head));
		start += 1UL << order;
	}
}

int swap_entry_split(struct address_space *mapping, pgoff_t index, gfp_t gfp)
{
	XA_STATE(xas, &mapping->i_pages, index);
	int err;

	for (;;) {
		unsigned int order;
		void *entry;

		xas_lock(&xas);
		entry = xas_load(&xas);
		order = xa_is_value(entry) ?
			(unsigned int)xas_get_order(&xas) : 0;
		if (!order) {
			xas_unlock(&xas);
			break;
		}
		xas_try_split(&xas, entry, order);
		if (!xas_error(&xas)) {
			unsigned long nr = 1UL << order;

			swap_entry_renumber(&xas, index & ~(nr - 1), nr,
					    radix_to_swp_entry(entry));
			xas_unlock(&xas);
			break;
		}
		xas_unlock(&xas);
		if (xas_error(&xas) != -ENOMEM)
			break;
		/* Out of nodes: preallocate outside the lock, look again. */
		xas_set(&xas, index);
		xas_try_split_alloc(&xas, order, gfp);
		if (xas_error(&xas))
			break;
		xas_reset(&xas);
	}
	err = xas_error(&xas);
	xas_destroy(&xas);
	return err;
}

/* ---- swap-out ------------------------------------------------------------ */

/*
 * @folio cannot go whole: -EFBIG, for reclaim to split it, if some slot
 * is still free (a slot may be taken before the split's first page asks
 * for it: at worst a split that did not help); else -ENOSPC, and it
 * stays whole.  Takes the device lock, which guards the count.
 */
static int swap_out_too_large(struct swap_info_struct *si)
{
	bool room;

	upc_lock(&si->lock);
	room = si->inuse_pages < si->max;
	upc_unlock(&si->lock);
	return room ? -EFBIG : -ENOSPC;
}

/*
 * swap_out_kept() - @folio kept the slots it was swapped in from and has
 * not been written since (PG_swapslot): it goes back to them, with no
 * write.  Return: 0, *@entry its first slot, the folio in the swap
 * cache; -ENOENT if the slots are another device's (they are freed: go
 * on as for any folio); or add_to_swap_cache()'s error, the slots freed.
 */
static int swap_out_kept(struct swap_info_struct *si, struct folio *folio,
			 swp_entry_t *entry)
{
	int err;

	*entry = swap_unkeep(folio);
	if (swp_type(*entry) != si->type) {
		swap_free_nr(*entry, folio_nr_pages(folio));
		return -ENOENT;
	}
	err = add_to_swap_cache(si, folio, *entry, GFP_NOWAIT, NULL);
	if (err)
		swap_free_nr(*entry, folio_nr_pages(folio));
	return err;
}

/*
 * swap_out_prepare() - The first half of a swap-out: hand out @folio's
 * slots and add it to the swap cache.  Return: 0, *@entry its first
 * slot; or a negative errno, holding nothing (-EFBIG: split it).
 */
static int swap_out_prepare(struct swap_info_struct *si, struct folio *folio,
			    swp_entry_t *entry, bool *clean)
{
	int err;

	*clean = false;
	if (folio_test_swapslot(folio)) {
		err = swap_out_kept(si, folio, entry);
		if (err != -ENOENT) {
			*clean = !err;
			return err;
		}
	}

	/*
	 * A folio not uptodate holds no data (shmem's fallocated folios,
	 * which read as zeros and seek as holes): swapped in, it would come
	 * back uptodate with whatever its memory held.  It stays, whole:
	 * split, its pages would stay too, and a write to one would no
	 * longer make the others uptodate.
	 */
	if (!folio_test_uptodate(folio))
		return -EINVAL;
	/*
	 * A folio larger than a swap cache space cannot be added (see
	 * add_to_swap_cache()): refuse it before taking slots for it, as
	 * too large, so that reclaim splits it.
	 */
	if (folio_order(folio) > si->space_shift)
		return swap_out_too_large(si);
	err = folio_alloc_swap(si, folio, entry);
	if (err == -ENOSPC && folio_order(folio))
		return swap_out_too_large(si);
	if (err)
		return err;
	err = add_to_swap_cache(si, folio, *entry, GFP_NOWAIT, NULL);
	if (err)
		swap_free_nr(*entry, folio_nr_pages(folio));
	return err;
}

/*
 * swap_out_finish() - The second half, once the write of a prepared
 * @folio is done with @err: take it out of the swap cache, leaving its
 * shadow if it was written, else giving its slots back.  Return: @err.
 */
static int swap_out_finish(struct swap_info_struct *si, struct folio *folio,
			   swp_entry_t entry, int err, void **entryp)
{
	if (err) {
		delete_from_swap_cache(si, folio, NULL);
		swap_free_nr(entry, folio_nr_pages(folio));
		return err;
	}
	delete_from_swap_cache(si, folio, workingset_eviction(folio));
	*entryp = swp_to_radix_entry(entry);
	return 0;
}

/* struct upc_swap_ops.swap_out: see the top of the file. */
static int swap_reclaim_out(struct folio *folio, void **entryp, void *priv)
{
	struct swap_info_struct *si = priv;
	swp_entry_t entry;
	bool clean;
	int err;

	err = swap_out_prepare(si, folio, &entry, &clean);
	if (err)
		return err;
	if (!clean)
		err = swap_write_folio(si, folio, entry);
	return swap_out_finish(si, folio, entry, err, entryp);
}

/*
 * struct upc_swap_ops.swap_out_folios: swap_reclaim_out() for a batch,
 * its writes merged where the slots handed out follow each other
 * (swap_write_folios()).  All are prepared before any is written, so
 * that a batch's folios get consecutive slots.
 */
static void swap_reclaim_out_folios(struct folio **folios, unsigned int nr,
				    void **entries, int *errs, void *priv)
{
	struct swap_info_struct *si = priv;
	swp_entry_t slots[UPC_RECLAIM_BATCH] = { { 0 } };
	bool prepared[UPC_RECLAIM_BATCH], clean[UPC_RECLAIM_BATCH];
	unsigned int i;

	for (; nr > UPC_RECLAIM_BATCH; nr -= UPC_RECLAIM_BATCH) {
		swap_reclaim_out_folios(folios, UPC_RECLAIM_BATCH, entries,
					errs, priv);
		folios += UPC_RECLAIM_BATCH;
		entries += UPC_RECLAIM_BATCH;
		errs += UPC_RECLAIM_BATCH;
	}
	for (i = 0; i < nr; i++) {
		errs[i] = swap_out_prepare(si, folios[i], &slots[i], &clean[i]);
		prepared[i] = !errs[i];
		/* A copy kept in swap is left out of the write. */
		if (clean[i])
			errs[i] = -EALREADY;
	}
	swap_write_folios(si, folios, slots, errs, nr);
	for (i = 0; i < nr; i++)
		if (clean[i])
			errs[i] = 0;
	for (i = 0; i < nr; i++)
		if (prepared[i])
			swap_out_finish(si, folios[i], slots[i], errs[i],
					&entries[i]);
}

/* struct upc_swap_ops.swap_free: the folio stayed, its copy is not needed. */
static void swap_reclaim_free(struct folio *folio, void *value, void *priv)
{
	(void)priv;
	swap_free_nr(radix_to_swp_entry(value), folio_nr_pages(folio));
}

const struct upc_swap_ops swap_reclaim_ops = {
	.swap_out = swap_reclaim_out,
	.swap_out_folios = swap_reclaim_out_folios,
	.swap_free = swap_reclaim_free,
};

/* ---- swap-in ------------------------------------------------------------- */

/*
 * The entry covering page @index of @mapping, and in *@order its order:
 * a lockless look, which swapin_install() checks again under the lock.
 */
static void *swapin_peek(struct address_space *mapping, pgoff_t index,
			 int *order)
{
	XA_STATE(xas, &mapping->i_pages, index);
	void *entry;

	upc_rcu_enter();
	do {
		entry = xas_load(&xas);
	} while (xas_retry(&xas, entry));
	*order = entry ? xas_get_order(&xas) : 0;
	upc_rcu_exit();
	return entry;
}

/* The order of the entry at page @index if it is still @value, else -1. */
static int swapin_entry_order(struct address_space *mapping, pgoff_t index,
			      void *value)
{
	int order;

	return swapin_peek(mapping, index, &order) == value ? order : -1;
}

/*
 * Put a locked, read folio where @value, of the folio's order, still is
 * in @mapping.  Return: true if it went in (the mapping then holds its
 * references).
 */
static bool swapin_install(struct address_space *mapping, void *value,
			   struct folio *folio)
{
	XA_STATE(xas, &mapping->i_pages, folio->index);
	unsigned int order = folio_order(folio);
	unsigned long nr = folio_nr_pages(folio);

	xas_lock(&xas);
	if (xas_load(&xas) != value ||
	    (unsigned int)xas_get_order(&xas) != order) {
		xas_unlock(&xas);
		return false;
	}
	folio->mapping = mapping;
	folio_ref_add(folio, (int)nr);
	xas_set_order(&xas, folio->index, order);
	xas_store(&xas, folio);
	mapping->nrpages += nr;
	xas_unlock(&xas);
	return true;
}

/*
 * A folio found in the swap cache: another thread is swapping the entry
 * in.  Wait until it is done with it.  Return: ERR_PTR(-EAGAIN), so the
 * caller looks at its mapping again.
 */
static struct folio *swapin_wait(struct folio *folio)
{
	folio_wait_locked(folio);
	folio_put(folio);
	return ERR_PTR(-EAGAIN);
}

/*
 * No folio of the entry's order could be had: cut page @index's own
 * entry out of the large one (the other pages keep theirs, in the
 * largest pieces around it), so that the caller, looking again, swaps
 * in that page alone.  Return: ERR_PTR(-EAGAIN), or ERR_PTR(-ENOMEM)
 * if not even the split's nodes could be had.
 */
static struct folio *swapin_split(struct address_space *mapping,
				  pgoff_t index, gfp_t gfp)
{
	int err = swap_entry_split(mapping, index, gfp);

	return ERR_PTR(err ? err : -EAGAIN);
}

/*
 * swapin_release_slots() - A swap-in is done with @folio (locked), read
 * from the slots of @entry: drop its pin on them.  Installed in a
 * mapping that allows it (AS_SWAP_KEEP), the folio keeps them where the
 * device does (swap_slots_keep()): PG_swapslot, the entry in
 * folio->private, so that reclaim can send it back without a write
 * until someone writes to it; set under the folio lock, which every
 * writer takes.  Otherwise an installed folio's slots are freed.
 */
static void swapin_release_slots(struct swap_info_struct *si,
				 struct address_space *mapping,
				 struct folio *folio, swp_entry_t entry,
				 bool installed)
{
	unsigned long off = swp_offset(entry), nr = folio_nr_pages(folio);

	if (!installed) {
		swap_slots_put(si, off, nr, SWAP_HAS_CACHE);
		return;
	}
	if (!(mapping->flags & (1UL << AS_SWAP_KEEP))) {
		swap_slots_put(si, off, nr, SWAP_HAS_CACHE | SWAP_MAP_USED);
		return;
	}
	if (swap_slots_keep(si, off, nr)) {
		folio->private = (void *)entry.val;
		folio_set_swapslot(folio);
		__atomic_fetch_add(&si->nr_kept, nr, __ATOMIC_RELAXED);
	}
}

swp_entry_t swap_unkeep(struct folio *folio)
{
	swp_entry_t entry = { .val = (unsigned long)folio->private };
	struct swap_info_struct *si = swap_info_get(entry);

	folio_clear_swapslot(folio);
	folio->private = NULL;
	if (si)
		__atomic_fetch_sub(&si->nr_kept, folio_nr_pages(folio),
				   __ATOMIC_RELAXED);
	return entry;
}

/* ---- readahead ------------------------------------------------------------ */

/*
 * struct swap_ra_batch - the pages a swap-in reads after the one asked
 * for: each folio locked and in the swap cache at its slot (pinned with
 * SWAP_HAS_CACHE), with the entry it is to replace and the shadow found.
 */
struct swap_ra_batch {
	unsigned int nr;
	struct folio *folios[SWAP_RA_MAX];
	void *values[SWAP_RA_MAX];
	void *shadows[SWAP_RA_MAX];
};

/*
 * swap_ra_window() - Pages a swap-in at @index reads, the one asked for
 * included: 1 unless it follows the last one (@ra->next), then twice
 * the last window (2 after a window of 1), up to SWAP_RA_MAX.
 */
static unsigned int swap_ra_window(struct swap_ra_state *ra, pgoff_t index)
{
	unsigned int window;

	if (!ra || __atomic_load_n(&ra->next, __ATOMIC_RELAXED) != index)
		return 1;
	window = 2 * __atomic_load_n(&ra->window, __ATOMIC_RELAXED);
	return window < 2 ? 2 : window > SWAP_RA_MAX ? SWAP_RA_MAX : window;
}

static void swap_ra_update(struct swap_ra_state *ra, pgoff_t next,
			   unsigned int window)
{
	if (!ra)
		return;
	__atomic_store_n(&ra->next, next, __ATOMIC_RELAXED);
	__atomic_store_n(&ra->window, window, __ATOMIC_RELAXED);
}

/*
 * swap_ra_prepare() - Set up @ra for the pages after page @index (slot
 * @off) while they hold order-0 entries of the slots that follow, up to
 * @window pages in all: allocate (__GFP_NORETRY), pin the slot, add to
 * the swap cache.  Stops at the first that fails.  The folio of @index
 * is locked in the swap cache meanwhile; the allocations reclaim one
 * pass without waiting for anyone, and reclaim only trylocks, so holding
 * it is safe.
 */
static void swap_ra_prepare(struct swap_info_struct *si,
			    struct address_space *mapping, pgoff_t index,
			    swp_entry_t entry, unsigned int window,
			    struct swap_ra_batch *ra)
{
	unsigned long off = swp_offset(entry);
	unsigned int k;

	ra->nr = 0;
	for (k = 1; k < window; k++) {
		swp_entry_t next = swp_entry(swp_type(entry), off + k);
		void *value = swp_to_radix_entry(next);
		struct folio *folio;
		int order;

		if (off + k >= si->max ||
		    swapin_peek(mapping, index + k, &order) != value || order)
			break;
		folio = filemap_alloc_folio(mapping,
					    GFP_KERNEL | __GFP_NORETRY, 0);
		if (!folio)
			break;
		if (swapcache_prepare(si, off + k, 1)) {
			folio_put(folio);
			break;
		}
		folio_trylock(folio);
		folio->index = index + k;
		if (add_to_swap_cache(si, folio, next, GFP_NOWAIT,
				      &ra->shadows[ra->nr])) {
			swap_slots_put(si, off + k, 1, SWAP_HAS_CACHE);
			folio_unlock(folio);
			folio_put(folio);
			break;
		}
		ra->folios[ra->nr] = folio;
		ra->values[ra->nr++] = value;
	}
}

/*
 * swap_ra_finish() - The read of @ra's folios ended with @err: put each
 * in @mapping where its entry still is (if read), take it out of the
 * swap cache and let its slot go, as swapin_folio() does with the page
 * asked for; drop the reference of the allocation.
 */
static void swap_ra_finish(struct swap_info_struct *si,
			   struct address_space *mapping,
			   struct swap_ra_batch *ra, int err)
{
	unsigned int i;

	for (i = 0; i < ra->nr; i++) {
		struct folio *folio = ra->folios[i];
		bool installed = false;

		if (!err) {
			folio_set_uptodate(folio);
			installed = swapin_install(mapping, ra->values[i], folio);
		}
		delete_from_swap_cache(si, folio, NULL);
		swapin_release_slots(si, mapping, folio,
				     radix_to_swp_entry(ra->values[i]),
				     installed);
		folio_unlock(folio);
		if (installed)
			filemap_folio_added(folio, ra->shadows[i]);
		folio_put(folio);
	}
}

struct folio *swapin_overwrite(struct address_space *mapping, pgoff_t index,
			       void *value, gfp_t gfp)
{
	struct folio *folio = filemap_alloc_folio(mapping, gfp, 0);

	if (!folio)
		return ERR_PTR(-ENOMEM);
	/* Nobody else can see it yet: the lock cannot be contended. */
	folio_trylock(folio);
	folio_set_uptodate(folio);
	folio->index = index;
	if (!swapin_install(mapping, value, folio)) {
		folio_unlock(folio);
		folio_put(folio);
		return ERR_PTR(-EAGAIN);
	}
	swap_free_nr(radix_to_swp_entry(value), 1);
	filemap_folio_added(folio, NULL);
	return folio;
}

struct folio *swapin_folio(struct address_space *mapping, pgoff_t index,
			   void *value, gfp_t gfp)
{
	return swapin_readahead(mapping, index, value, gfp, NULL);
}

struct folio *swapin_readahead(struct address_space *mapping, pgoff_t index,
			       void *value, gfp_t gfp,
			       struct swap_ra_state *ra_state)
{
	swp_entry_t entry = radix_to_swp_entry(value);
	struct swap_info_struct *si = swap_info_get(entry);
	unsigned long nr, off = swp_offset(entry);
	struct swap_ra_batch ra = { .nr = 0 };
	struct folio *folio, *read[SWAP_RA_MAX];
	void *shadow = NULL;
	unsigned int i;
	int order, err;

	if (!si)
		return ERR_PTR(-EINVAL);
	order = swapin_entry_order(mapping, index, value);
	if (order < 0)
		return ERR_PTR(-EAGAIN);
	nr = 1UL << order;
	folio = swap_cache_get_folio(si, entry);
	if (folio)
		return swapin_wait(folio);
	err = swapcache_prepare(si, off, nr);
	if (err) {
		/* Freed (stale @value), or another swap-in is adding. */
		if (err == -EEXIST)
			sched_yield();
		return ERR_PTR(-EAGAIN);
	}

	folio = filemap_alloc_folio(mapping, gfp, (unsigned int)order);
	if (!folio) {
		swap_slots_put(si, off, nr, SWAP_HAS_CACHE);
		return order ? swapin_split(mapping, index, gfp) :
			       ERR_PTR(-ENOMEM);
	}
	/* Nobody else can see it yet: the lock cannot be contended. */
	folio_trylock(folio);
	folio->index = index & ~(nr - 1);
	err = add_to_swap_cache(si, folio, entry, gfp, &shadow);
	if (err) {
		swap_slots_put(si, off, nr, SWAP_HAS_CACHE);
		folio_unlock(folio);
		folio_put(folio);
		/* -EEXIST: the slot's new owner is swapping out through it. */
		return ERR_PTR(err == -EEXIST ? -EAGAIN : err);
	}
	/* A device in memory has no I/O to save (the kernel's synchronous
	 * devices skip readahead too): reading ahead only costs there. */
	if (!order && !si->mem)
		swap_ra_prepare(si, mapping, index, entry,
				swap_ra_window(ra_state, index), &ra);
	read[0] = folio;
	for (i = 0; i < ra.nr; i++)
		read[i + 1] = ra.folios[i];
	err = swap_read_folios(si, read, ra.nr + 1, entry);
	swap_ra_update(ra_state, folio->index + nr + ra.nr, ra.nr + 1);
	if (!err) {
		folio_set_uptodate(folio);
		if (!swapin_install(mapping, value, folio))
			err = -EAGAIN;
	}
	/*
	 * The shadow is not put back on failure: the slot may have been
	 * freed meanwhile (@value was stale), and a shadow must not outlive
	 * its slot.  A lost shadow only costs one refault's accounting.
	 */
	delete_from_swap_cache(si, folio, NULL);
	/* Installed: the slots go, or stay with the folio (kept). */
	swapin_release_slots(si, mapping, folio, entry, !err);
	folio_unlock(folio);
	/*
	 * The page asked for goes on the LRU before those read after it:
	 * swapped out again in LRU order, they get consecutive slots in
	 * page order, which the next pass's readahead needs.
	 */
	if (!err)
		filemap_folio_added(folio, shadow);
	swap_ra_finish(si, mapping, &ra, err == -EIO ? err : 0);
	if (err) {
		folio_put(folio);
		return ERR_PTR(err);
	}
	return folio;
}
