// SPDX-License-Identifier: MIT
/*
 * mm/page_writeback.c - writing a mapping's dirty folios back on demand
 * (sync and fsync), and reporting what failed.
 *
 * Follows the kernel's write_cache_pages() and file_write_and_wait_range()
 * (Linux 6.x, mm/page-writeback.c and mm/filemap.c), simplified by one
 * fact of upcache: a mapping's writeback_folio hook is synchronous, so
 * "start writeback" and "wait for it" are one pass.  Reclaim writes dirty
 * folios back too (mm/vmscan.c, one at a time, to evict them); both
 * follow the same protocol on a locked folio:
 *
 *  1. folio_clear_dirty_for_io(): the dirty bit and tag go first, so a
 *     write landing while the folio is written dirties it again and is
 *     written by the next pass, never lost;
 *  2. folio_start_writeback(), the hook, folio_end_writeback();
 *  3. on failure the folio is dirtied again (its data is still the only
 *     copy) and the error is recorded on the mapping (mapping_set_error()),
 *     so that every open file reports it from its next fsync.
 *
 * Why the pass keeps going after an error: fsync promises the data that
 * could be written is written; one bad block must not hold the rest in
 * memory.  The first error is returned.
 */
#include <errno.h>

#include "filemap_internal.h"

/*
 * Steps 1 to 3 on one folio (locked, of @mapping): Return: 0 if it was
 * clean or is written; the hook's error.
 */
static int writeback_one_folio(struct address_space *mapping,
			       struct folio *folio)
{
	int err;

	/* Reclaim may be writing it: wait, then see whether it is dirty. */
	folio_wait_writeback(folio);
	if (!folio_clear_dirty_for_io(folio))
		return 0;
	folio_start_writeback(folio);
	err = mapping->a_ops->writeback_folio(mapping, folio);
	if (err) {
		folio_mark_dirty(folio);
		mapping_set_error(mapping, err);
	}
	folio_end_writeback(folio);
	return err;
}

int filemap_fdatawrite_range(struct address_space *mapping, int64_t start,
			     int64_t end)
{
	struct folio_batch fbatch;
	pgoff_t index, last;
	unsigned int i;
	int ret = 0;

	if (start < 0 || end < start)
		return -EINVAL;
	if (!mapping->a_ops || !mapping->a_ops->writeback_folio)
		return 0;
	index = (pgoff_t)start >> UPC_PAGE_SHIFT;
	last = (pgoff_t)end >> UPC_PAGE_SHIFT;
	folio_batch_init(&fbatch);
	while (index <= last &&
	       filemap_get_folios_tag(mapping, &index, last,
				      PAGECACHE_TAG_DIRTY, &fbatch)) {
		for (i = 0; i < folio_batch_count(&fbatch); i++) {
			struct folio *folio = fbatch.folios[i];
			int err = 0;

			folio_lock(folio);
			/* Truncated since the lookup: nothing to write. */
			if (folio->mapping == mapping)
				err = writeback_one_folio(mapping, folio);
			folio_unlock(folio);
			if (err && !ret)
				ret = err;
		}
		folio_batch_release(&fbatch);
	}
	return ret;
}

int file_check_and_advance_wb_err(struct address_space *mapping,
				  errseq_t *since)
{
	return errseq_check_and_advance(&mapping->wb_err, since);
}

int file_write_and_wait_range(struct address_space *mapping, errseq_t *since,
			      int64_t start, int64_t end)
{
	int err = filemap_fdatawrite_range(mapping, start, end);
	int wb_err = file_check_and_advance_wb_err(mapping, since);

	/* A pass's own failure is also on the mapping: report it once. */
	return err ? err : wb_err;
}
