// SPDX-License-Identifier: MIT
/*
 * mm/filemap_read.c - the read-miss path of file-backed mappings:
 * mapping_read_folio_gfp() and filemap_read_folio().
 *
 * Follows the kernel's do_read_cache_folio() (Linux 6.x, mm/filemap.c)
 * without the filler argument (the mapping's a_ops->read_folio is the
 * only filler) and without readahead, which belongs to mm/readahead.c.
 * This file owns how a reader turns a page index into an uptodate folio:
 *
 *  1. lockless lookup (filemap_get_entry()); a folio that is uptodate
 *     is returned at once;
 *  2. a miss (nothing, or a shadow) allocates an order-0 folio, which
 *     may enter direct reclaim through the arena's hook, locks it and
 *     adds it with filemap_add_folio(): one tree walk, the shadow it
 *     replaces handed to workingset_refault() on the way to the LRU;
 *     -EEXIST means another reader won the race, so go back to step 1
 *     and use its folio;
 *  3. the new folio, still locked, goes to read_folio, which fills it,
 *     marks it uptodate and unlocks it;
 *  4. a cached folio that is not uptodate (being read by the thread that
 *     added it, or left behind by a failed read) is locked: once the
 *     lock is ours either the other read finished (uptodate: done) or it
 *     failed and this reader tries again, after checking that the folio
 *     was not truncated meanwhile (lockless guarantee L3 of
 *     mm/filemap.c);
 *  5. every folio handed back is marked accessed, so that the second use
 *     of an inactive folio activates it (mm/swap.c).
 *
 * Why a new folio is added before it is read: the locked, not uptodate
 * folio in the tree is what makes concurrent readers of the same index
 * wait (step 4) instead of reading the backing store twice.
 */
#include <errno.h>

#include "filemap_internal.h"

/**
 * filemap_read_folio() - Fill a locked folio through the mapping's read_folio.
 * @mapping: The mapping; its a_ops must have a read_folio.
 * @folio: A locked folio of @mapping that is not uptodate.
 *
 * Context: May sleep.  The caller gives up the folio lock.
 * Return: 0; read_folio's negative errno; -EIO if the folio is still not
 * uptodate once it is unlocked.
 */
int filemap_read_folio(struct address_space *mapping, struct folio *folio)
{
	int err;

	err = mapping->a_ops->read_folio(mapping, folio);
	if (err)
		return err;
	/* A read_folio that completes asynchronously unlocks at the end. */
	folio_wait_locked(folio);
	return folio_test_uptodate(folio) ? 0 : -EIO;
}

/*
 * Step 2 and 3: a miss.  Return: the new folio, uptodate, with the
 * caller's reference; ERR_PTR(-EEXIST) if another folio got there first
 * (look it up again); another ERR_PTR on failure.
 */
static struct folio *filemap_read_miss(struct address_space *mapping,
				       pgoff_t index, gfp_t gfp)
{
	struct folio *folio = filemap_alloc_folio(mapping, gfp, 0);
	int err;

	if (!folio)
		return ERR_PTR(-ENOMEM);
	/* Nobody else can see it yet: the lock cannot be contended. */
	folio_trylock(folio);
	err = filemap_add_folio(mapping, folio, index, gfp);
	if (err) {
		folio_unlock(folio);
		folio_put(folio);
		return ERR_PTR(err);
	}
	err = filemap_read_folio(mapping, folio);
	if (err) {
		folio_put(folio);
		return ERR_PTR(err);
	}
	return folio;
}

/*
 * Step 4: a cached folio that was not uptodate when found.  Return: 0
 * when it is uptodate now; 1 if it was truncated (look up again; not an
 * errno, which read_folio could return too); the read's error otherwise.
 * The caller keeps its reference.
 */
static int filemap_read_cached(struct address_space *mapping,
			       struct folio *folio)
{
	folio_lock(folio);
	if (folio->mapping != mapping) {
		folio_unlock(folio);
		return 1;
	}
	if (folio_test_uptodate(folio)) {
		folio_unlock(folio);
		return 0;
	}
	return filemap_read_folio(mapping, folio);
}

/**
 * mapping_read_folio_gfp() - Read a page of a file through the page cache.
 * @mapping: The mapping; its a_ops must have a read_folio.
 * @index: Page index.
 * @gfp: Allocation flags for a new folio and the tree's nodes.
 *
 * Context: May sleep; the caller holds no i_pages lock and no folio
 * lock of @mapping.
 * Return: The uptodate folio with a reference; ERR_PTR(-EINVAL) without
 * read_folio; ERR_PTR(-ENOMEM); ERR_PTR(-EFBIG) for an index past
 * MAX_PAGECACHE_INDEX; ERR_PTR(-EIO) or read_folio's error.
 */
struct folio *mapping_read_folio_gfp(struct address_space *mapping,
				     pgoff_t index, gfp_t gfp)
{
	struct folio *folio;
	int err;

	if (!mapping->a_ops || !mapping->a_ops->read_folio)
		return ERR_PTR(-EINVAL);
	for (;;) {
		/* Step 1. */
		folio = filemap_get_entry(mapping, index);
		if (!folio || xa_is_value(folio)) {
			folio = filemap_read_miss(mapping, index, gfp);
			if (folio == ERR_PTR(-EEXIST))
				continue;
			if (IS_ERR(folio))
				return folio;
			break;
		}
		if (folio_test_uptodate(folio))
			break;
		err = filemap_read_cached(mapping, folio);
		if (!err)
			break;
		folio_put(folio);
		if (err < 0)
			return ERR_PTR(err);
	}
	/* Step 5. */
	folio_mark_accessed(folio);
	return folio;
}
