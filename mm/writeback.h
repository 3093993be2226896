/* SPDX-License-Identifier: MIT */
/*
 * mm/writeback.h - background writeback of one mapping (internal: the
 * fd files of mm/fdfile.c use it; mm/page_writeback.c has the code).
 *
 * The kernel's flusher threads write dirty data back while the
 * programs that dirtied it go on (dirty_background_ratio, wb_workfn()),
 * so that a writer seldom meets reclaim that must write before it can
 * free anything.  Here a mapping that asks for it has the same: its
 * writers count the pages they dirty, and once that count passes the
 * mapping's threshold while the cache has less than a threshold's worth
 * of room, a worker thread (lib/workqueue.c) runs a writeback pass over
 * the mapping, and more passes while writers keep dirtying a
 * threshold's worth in the meantime.
 *
 * The room test is upcache's, not the kernel's: the kernel writes back
 * once dirty pages pass a share of memory, full or not.  A program that
 * rewrites a set of pages that fits in the cache would then have them
 * written again and again, its writers meeting pages under writeback
 * and the flusher's locks: 4 KiB random writes over 16 MiB of an
 * O_DIRECT file in a 32 MiB cache, with background writeback but no
 * room test, ran at 0.23 times their speed without it (upcache-bench
 * compare, file_background_writeback=0 against 1).  While there is
 * room, reclaim writes nothing either.
 *
 * A pass is filemap_flush(): the same protocol as fsync's, so its
 * errors are recorded on the mapping (an open file's next fsync reports
 * them) and its writes are waited for by filemap_fdatawait_range() like
 * reclaim's; it never waits for a folio lock, and holds a folio locked
 * only while the stretch of neighbours it belongs to is written.  A
 * pass writes at most 4 MiB, from where the last one stopped, and
 * queues the next as new work if the file has more: a fork() (which
 * waits for the flusher threads to be idle) and other files' passes
 * wait for one such pass at most, never for a writer.
 *
 * There is no periodic writeback (the kernel's dirty_expire_centisecs):
 * a file dirtied below its threshold stays dirty until fsync, close or
 * reclaim.  Writers are not throttled: a writer that outruns the pass
 * meets reclaim, which writes what it must to free memory.
 */
#ifndef UPCACHE_MM_WRITEBACK_H
#define UPCACHE_MM_WRITEBACK_H

#include <stdbool.h>
#include <stdint.h>

#include <upcache/filemap.h>

#include "../lib/workqueue.h"

/*
 * The most pages one pass takes: 4 MiB, as the kernel's background
 * writeback writes a file MAX_WRITEBACK_PAGES at a time.  Not a share
 * of the cache: a fork() (which waits for the flusher threads to be
 * idle) and other files' passes wait for one pass, and an eighth of a
 * 1 GiB cache made a fork() wait 113 ms on average, 527 ms at most,
 * beside a streaming writer (3 ms without the flusher).
 */
#define WB_PASS_PAGES	1024ul

/**
 * struct background_writeback - background writeback of one mapping.
 * @work: The pass's work (first: the worker finds the rest from it).
 * @mapping: The mapping written back.
 * @thresh: Pages dirtied that start a pass; 0: never.
 * @dirtied: Pages dirtied since the last pass began (atomic).
 * @next_index: Where the next pass starts (the work's own).
 * @state: Whether a pass is queued or running, and another is wanted
 *	after it (mm/page_writeback.c; atomic).
 * @stopping: background_writeback_stop() waits: no further pass.
 * @passes: Passes ended, for tests (atomic).
 * @pages: Pages the passes took, for tests (atomic).
 */
struct background_writeback {
	struct work_struct work;
	struct address_space *mapping;
	unsigned long thresh;
	unsigned long dirtied;
	pgoff_t next_index;
	uint32_t state;
	bool stopping;
	unsigned long passes;
	unsigned long pages;
};

/**
 * background_writeback_init() - Set up background writeback of @mapping.
 * @wb: The state to set up.
 * @mapping: The mapping; its a_ops can write back.
 * @thresh: Pages dirtied that start a pass (0: none ever starts).
 *
 * Context: Before @mapping is shared.
 */
void background_writeback_init(struct background_writeback *wb,
			       struct address_space *mapping,
			       unsigned long thresh);

/**
 * background_writeback_dirtied() - Count pages a write dirtied; start a
 * pass once a threshold's worth has been dirtied since the last began.
 * @wb: The mapping's state.
 * @nr: Pages the write dirtied.
 *
 * If no worker can take the pass (no memory, no thread, a fork() in
 * progress), none starts; the next write past the threshold tries
 * again.
 *
 * Context: Any thread.  May sleep briefly: starting a flusher thread,
 * or while a fork() waits for the flusher threads.
 */
void background_writeback_dirtied(struct background_writeback *wb,
				  unsigned long nr);

/**
 * background_writeback_stop() - Wait for a pass under way; start none.
 * @wb: The mapping's state.
 *
 * Waits for this mapping's pass only (one pass: see above), not for
 * other mappings'.  Afterwards @wb and its mapping may be freed.
 * Calling it again does nothing.
 *
 * Context: No thread dirties the mapping any more.  Sleeps.  Not from
 * a flusher thread.
 */
void background_writeback_stop(struct background_writeback *wb);

/**
 * background_writeback_passes() - Passes @wb has run (for tests).
 * @wb: The mapping's state.
 *
 * Context: Any thread.
 * Return: The count of passes that have ended.
 */
static inline unsigned long
background_writeback_passes(const struct background_writeback *wb)
{
	return __atomic_load_n(&wb->passes, __ATOMIC_ACQUIRE);
}

/**
 * background_writeback_pages() - Pages @wb's passes took (for tests).
 * @wb: The mapping's state.
 *
 * Each pass is counted in background_writeback_passes() before its
 * pages are counted here: read this first, then that, and no more than
 * the passes read can have taken the pages read.
 *
 * Context: Any thread.
 * Return: The count.
 */
static inline unsigned long
background_writeback_pages(const struct background_writeback *wb)
{
	return __atomic_load_n(&wb->pages, __ATOMIC_ACQUIRE);
}

#endif /* UPCACHE_MM_WRITEBACK_H */
