/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/rc_baseline.h - the read path with the add from before
 * seed 000, for the reclaim suite's baseline rows only.
 *
 * rcb_read_folio() is mm/filemap_read.c's mapping_read_folio_gfp() step
 * for step (lockless lookup; on a miss allocate, add, account the
 * refault, put on the LRU, read; a not-uptodate folio read again under
 * its lock; mark accessed), except that the add is
 * fmb_before_add_folio_update(): three walks over a shadow, five when it
 * splits one.  It lives here, never in the library, so that the library's
 * fast path carries no branch for it.
 */
#ifndef UPCACHE_TOOLS_BENCH_RC_BASELINE_H
#define UPCACHE_TOOLS_BENCH_RC_BASELINE_H

#include <upcache/filemap.h>

/**
 * rcb_read_folio() - mapping_read_folio_gfp() with the baseline add.
 * @mapping: The mapping; its a_ops must have a read_folio.
 * @index: Page index.
 * @gfp: Allocation flags.
 *
 * Context: As mapping_read_folio_gfp().
 * Return: As mapping_read_folio_gfp().
 */
struct folio *rcb_read_folio(struct address_space *mapping, pgoff_t index,
			     gfp_t gfp);

#endif /* UPCACHE_TOOLS_BENCH_RC_BASELINE_H */
