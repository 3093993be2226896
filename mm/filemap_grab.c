// SPDX-License-Identifier: MIT
/*
 * mm/filemap_grab.c - filemap_grab_folios(): get or create a run of
 * folios with two lock round trips and two walks, however long the run.
 *
 * Seed 004 (the guest_memfd population RFC) did this for order-0 folios
 * with a bitmap of the indices already present.  Here the run may hold
 * large folios (one starting before the first index included), shadow
 * entries (replaced, split without waiting when larger than the new
 * folio), and the allocation may fail part-way.
 *
 *   Step 1  under the lock, one walk: reference the folios already
 *           cached in the run; note every index without one.
 *   Step 2  no lock: allocate folios for the missing indices (large
 *           ones where the mapping allows and an aligned stretch is
 *           missing).
 *   Step 3  under the lock, one walk: insert them in index order, moving
 *           the cursor sideways; an index where a folio appeared
 *           meanwhile, or whose insertion needs memory the lock cannot
 *           wait for, is left to step 5.
 *   Step 4  no lock: lock the folios found in step 1 (this may sleep) and
 *           drop any that left the mapping meanwhile.
 *   Step 5  indices still without a folio go through
 *           __filemap_get_folio() one at a time (the slow path).
 *
 * The result is the run of folios that covers the first index onwards
 * without a gap; whatever was grabbed beyond a gap is given back.
 */
#include <errno.h>
#include <stdlib.h>

#include "filemap_internal.h"

/* What the grab holds for each page index of the run. */
struct grab_run {
	struct address_space *mapping;
	pgoff_t index;
	unsigned int nr;
	struct folio *page[FILEMAP_GRAB_MAX];	/* folio covering index + i */
	bool created[FILEMAP_GRAB_MAX];		/* page[i] is new (locked) */
};

/* Record @folio (referenced by the caller) for the indices it covers. */
static void grab_record(struct grab_run *run, struct folio *folio,
			bool created)
{
	pgoff_t first = folio->index > run->index ? folio->index : run->index;
	pgoff_t end = folio_next_index(folio);
	unsigned int i;

	if (end - run->index > run->nr)
		end = run->index + run->nr;
	for (i = first - run->index; i < end - run->index; i++) {
		run->page[i] = folio;
		run->created[i] = created;
	}
}

/* Forget @folio's indices, so step 5 fills them. */
static void grab_forget(struct grab_run *run, struct folio *folio)
{
	unsigned int i;

	for (i = 0; i < run->nr; i++)
		if (run->page[i] == folio)
			run->page[i] = NULL;
}

/* Step 1: reference what is cached; one walk, sideways moves. */
static void grab_find_cached(struct grab_run *run)
{
	XA_STATE(xas, &run->mapping->i_pages, run->index);
	void *entry;

	xas_lock(&xas);
	for (entry = xas_load(&xas); xas.xa_index - run->index < run->nr;
	     entry = xas_next(&xas)) {
		struct folio *folio;

		/* Past the end of the tree: nothing more is cached. */
		if (xas.xa_node == XAS_BOUNDS)
			break;
		if (!entry || xa_is_value(entry))
			continue;
		/* Only the first index can land inside a large entry. */
		if (xa_is_sibling(entry)) {
			entry = xas_reload(&xas);
			if (xa_is_value(entry))
				continue;
		}
		folio = entry;
		folio_get(folio);
		grab_record(run, folio, false);
		xas_advance(&xas, folio_next_index(folio) - 1);
		if (xas.xa_index + 1 == 0)
			break;
	}
	xas_unlock(&xas);
}

/* Largest order for a new folio at run index @i, @left indices missing. */
static unsigned int grab_order(const struct grab_run *run, unsigned int i,
			       unsigned int left)
{
	pgoff_t index = run->index + i;
	unsigned int order = UPC_MAX_ORDER;

	if (!mapping_large_folio_support(run->mapping))
		return 0;
	while (order && ((index & ((1UL << order) - 1)) || (1U << order) > left))
		order--;
	return order;
}

/* A new locked folio set up as __filemap_add_folio() would, or NULL. */
static struct folio *grab_new_folio(struct grab_run *run, unsigned int i,
				    unsigned int order)
{
	struct folio *folio;

	folio = filemap_alloc_folio(run->mapping, GFP_KERNEL, order);
	if (!folio)
		return NULL;
	folio_trylock(folio);
	folio_set_referenced(folio);
	folio->mapping = run->mapping;
	folio->index = run->index + i;
	folio_ref_add(folio, (int)folio_nr_pages(folio));
	return folio;
}

/* Undo grab_new_folio() for a folio that was not inserted. */
static void grab_drop_new(struct folio *folio)
{
	folio->mapping = NULL;
	folio_put_refs(folio, (int)folio_nr_pages(folio));
	folio_unlock(folio);
	folio_put(folio);
}

/* Step 2: allocate folios for the missing stretches.  No lock. */
static void grab_allocate(struct grab_run *run)
{
	unsigned int i = 0;

	while (i < run->nr) {
		unsigned int left = 0;
		struct folio *folio;

		if (run->page[i]) {
			i++;
			continue;
		}
		while (i + left < run->nr && !run->page[i + left])
			left++;
		folio = grab_new_folio(run, i, grab_order(run, i, left));
		if (!folio)
			return;	/* step 5 gets its own chance */
		grab_record(run, folio, true);
		i += folio_nr_pages(folio);
	}
}

/*
 * Insert one new order-0 folio at the cursor, without waiting.
 * Return: 0, or -EEXIST / -ENOMEM / -EAGAIN (leave it to step 5).
 */
static int grab_insert_small(struct xa_state *xas, struct folio *folio)
{
	void *entry = xas_load(xas);
	int order;

	if (entry && !xa_is_value(entry))
		return -EEXIST;
	if (entry) {
		order = xas_get_order(xas);
		if (order > 0) {
			xas_try_split(xas, entry, order);
			if (xas_error(xas))
				return -EAGAIN;
		}
	}
	xas_store(xas, folio);
	return xas_error(xas) ? -ENOMEM : 0;
}

/* Insert one new large folio: a conflict scan of its own range. */
static int grab_insert_large(struct xa_state *xas, struct folio *folio)
{
	struct filemap_split split = { NULL, 0 };
	int ret;

	xas_set_order(xas, folio->index, folio_order(folio));
	ret = filemap_store_scan(xas, folio, NULL, &split);
	xas_destroy(xas);
	return ret > 0 ? -EAGAIN : ret;
}

/* Step 3: insert the new folios, one walk, sideways moves. */
static void grab_insert(struct grab_run *run)
{
	XA_STATE(xas, &run->mapping->i_pages, run->index);
	unsigned int i = 0;

	xas_lock(&xas);
	while (i < run->nr) {
		struct folio *folio = run->page[i];
		int err;

		if (!folio || !run->created[i]) {
			i++;
			continue;
		}
		i += folio->index + folio_nr_pages(folio) - (run->index + i);
		if (folio_order(folio)) {
			err = grab_insert_large(&xas, folio);
		} else {
			filemap_cursor_move(&xas, folio->index);
			err = grab_insert_small(&xas, folio);
		}
		if (err) {
			/* The cursor may be in error: the next one walks. */
			xas_set(&xas, folio->index);
			grab_forget(run, folio);
			grab_drop_new(folio);
			continue;
		}
		run->mapping->nrpages += folio_nr_pages(folio);
	}
	xas_unlock(&xas);
}

/* Step 4: lock the folios found cached; drop those truncated since. */
static void grab_lock_cached(struct grab_run *run)
{
	struct folio *prev = NULL;
	unsigned int i;

	for (i = 0; i < run->nr; i++) {
		struct folio *folio = run->page[i];

		if (!folio || run->created[i] || folio == prev)
			continue;
		prev = folio;
		folio_lock(folio);
		if (folio->mapping == run->mapping &&
		    folio_contains(folio, run->index + i)) {
			folio_mark_accessed(folio);
			continue;
		}
		folio_unlock(folio);
		grab_forget(run, folio);
		folio_put(folio);
	}
}

/* Step 5: fill what is still missing, one index at a time. */
static void grab_fill_gaps(struct grab_run *run)
{
	unsigned int i;

	for (i = 0; i < run->nr; i++) {
		struct folio *folio;

		if (run->page[i])
			continue;
		folio = filemap_grab_folio(run->mapping, run->index + i);
		if (IS_ERR(folio))
			return;
		/* Created locked or found and locked: either way, ours. */
		grab_record(run, folio, true);
	}
}

/*
 * Hand out the folios covering the run from its first index up to the
 * first gap; give back the rest.  Return: the number handed out.
 */
static int grab_collect(struct grab_run *run, struct folio **folios)
{
	struct folio *prev = NULL;
	bool gap = false;
	unsigned int i;
	int count = 0;

	for (i = 0; i < run->nr; i++) {
		struct folio *folio = run->page[i];

		if (!folio)
			gap = true;
		if (!folio || folio == prev)
			continue;
		prev = folio;
		if (gap) {
			folio_unlock(folio);
			folio_put(folio);
			continue;
		}
		folios[count++] = folio;
	}
	return count;
}

int filemap_grab_folios(struct address_space *mapping, pgoff_t index,
			unsigned int nr, struct folio **folios)
{
	struct grab_run *run;
	int count;

	if (!nr || nr > FILEMAP_GRAB_MAX)
		return -EINVAL;
	if (index > MAX_PAGECACHE_INDEX)
		return -EFBIG;
	if (nr - 1 > MAX_PAGECACHE_INDEX - index)
		nr = (unsigned int)(MAX_PAGECACHE_INDEX - index + 1);
	run = calloc(1, sizeof(*run));
	if (!run)
		return -ENOMEM;
	run->mapping = mapping;
	run->index = index;
	run->nr = nr;

	grab_find_cached(run);
	grab_allocate(run);
	grab_insert(run);
	grab_lock_cached(run);
	grab_fill_gaps(run);
	count = grab_collect(run, folios);
	free(run);
	return count ? count : -ENOMEM;
}
