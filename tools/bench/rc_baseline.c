// SPDX-License-Identifier: MIT
/*
 * tools/bench/rc_baseline.c - the read path with the pre-seed-000 add
 * (rc_baseline.h), timed against mm/filemap_read.c by the reclaim suite.
 *
 * Kept step for step like mapping_read_folio_gfp(), so the only
 * difference between the suite's pairs is the add.  What the library
 * does after its add (filemap_folio_added(): refault accounting, then
 * the LRU) is done here with the same public calls.
 */
#include <errno.h>

#include <upcache/filemap.h>
#include <upcache/vmscan.h>

#include "fm_baseline.h"
#include "rc_baseline.h"

/* A miss: allocate, add with the baseline, account, read. */
static struct folio *rcb_read_miss(struct address_space *mapping,
				   pgoff_t index, gfp_t gfp)
{
	struct folio *folio = filemap_alloc_folio(mapping, gfp, 0);
	void *shadow = NULL;
	int err;

	if (!folio)
		return ERR_PTR(-ENOMEM);
	folio_trylock(folio);
	err = fmb_before_add_folio_update(mapping, folio, index, gfp, &shadow,
					  workingset_update_node);
	if (err) {
		folio_unlock(folio);
		folio_put(folio);
		return ERR_PTR(err);
	}
	if (shadow)
		workingset_refault(folio, shadow);
	folio_add_lru(folio);
	err = filemap_read_folio(mapping, folio);
	if (err) {
		folio_put(folio);
		return ERR_PTR(err);
	}
	return folio;
}

/* A cached folio not uptodate: 0, 1 if truncated, or the read's error. */
static int rcb_read_cached(struct address_space *mapping, struct folio *folio)
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
 * rcb_read_folio() - mapping_read_folio_gfp() with the baseline add.
 * @mapping: The mapping.
 * @index: Page index.
 * @gfp: Allocation flags.
 *
 * Context: May sleep.
 * Return: The uptodate folio with a reference, or an ERR_PTR.
 */
struct folio *rcb_read_folio(struct address_space *mapping, pgoff_t index,
			     gfp_t gfp)
{
	struct folio *folio;
	int err;

	if (!mapping->a_ops || !mapping->a_ops->read_folio)
		return ERR_PTR(-EINVAL);
	for (;;) {
		folio = filemap_get_entry(mapping, index);
		if (!folio || xa_is_value(folio)) {
			folio = rcb_read_miss(mapping, index, gfp);
			if (folio == ERR_PTR(-EEXIST))
				continue;
			if (IS_ERR(folio))
				return folio;
			break;
		}
		if (folio_test_uptodate(folio))
			break;
		err = rcb_read_cached(mapping, folio);
		if (!err)
			break;
		folio_put(folio);
		if (err < 0)
			return ERR_PTR(err);
	}
	folio_mark_accessed(folio);
	return folio;
}
