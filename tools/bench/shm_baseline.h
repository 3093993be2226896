/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/shm_baseline.h - shmem's read path before seed 002, for
 * the shmem suite's per-folio rows only.
 *
 * Before seed 002, a shmem read took one step per folio or per page of
 * a hole: find the folio of the next index (a walk of the tree from the
 * root, and a reference; shmem_get_folio() returned it locked, and the
 * read unlocked it), copy from it up to its end, or copy the zero page
 * up to the page's end if there is no folio or it is not uptodate (the
 * "page-copy fallback" seed 002 removed), drop the reference, go on.  A
 * 1 MiB read of order-0 folios was 256 lookups, of one 2 MiB folio 1
 * lookup, and a 1 MiB hole 256 lookups and 256 copies of a 4 KiB zero
 * page.  shmb_per_folio_read() does exactly that, written against
 * upcache's page cache, so that `upcache-bench shmem` can time it and
 * the library's batched path (shmem_read_iter()) on the same file in
 * interleaved rounds.  The library never uses it, and it returns the
 * same bytes as the batched path (tests/bench/test_bench_shmem.c and
 * the suite's own checks compare them), so any difference in the
 * figures is the algorithm's.
 */
#ifndef UPCACHE_TOOLS_BENCH_SHM_BASELINE_H
#define UPCACHE_TOOLS_BENCH_SHM_BASELINE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../../mm/shmem.h"

/**
 * shmb_per_folio_read() - Read from a shmem file a folio at a time.
 * @sf: The file.
 * @buf: Where the bytes go.
 * @count: How many are wanted.
 * @pos: File offset, not negative.
 *
 * Takes @sf's lock shared for the whole read, as shmem_read_iter()
 * does; then, from the first index of the range, filemap_get_entry()
 * and the folio's lock taken and dropped, copying from an uptodate
 * folio up to its end, or copying a zero page up to the page's end
 * where there is no folio or it is not uptodate, and on from there.
 *
 * Context: Takes @sf's lock shared.
 * Return: The bytes read: fewer than asked only at the end of the file,
 * 0 at or past it.
 */
ssize_t shmb_per_folio_read(struct shmem_file *sf, void *buf, size_t count,
			    int64_t pos);

#endif /* UPCACHE_TOOLS_BENCH_SHM_BASELINE_H */
