// SPDX-License-Identifier: MIT
/*
 * mm/shmem.c - in-memory files with the semantics of the kernel's tmpfs
 * (mm/shmem.c in Linux 6.x; checked against 6.18's tmpfs by
 * tests/api/test_shmem_tmpfs_diff.c).
 *
 * This file owns a shmem file's data and size: reading, writing,
 * fallocate, punching holes, truncation and SEEK_DATA/SEEK_HOLE.
 * Omitted: swap (the mapping is swap-backed but unevictable, so a full
 * arena is -ENOSPC, as a full tmpfs without swap; the swap layer,
 * mm/swap_state.c, serves anonymous regions only so far), and mmap,
 * which has no layer yet.
 *
 * Semantics, as tmpfs:
 *  - Sparse: a hole has no folio and reads as zeros.
 *  - fallocate allocates folios that are not uptodate: they read as
 *    zeros and, as tmpfs reports them, are holes for SEEK_DATA and
 *    SEEK_HOLE until something is written into them.  Writing into one
 *    zeroes the rest of it first and makes all of it uptodate.
 *  - Punching a hole and truncating remove the folios wholly inside the
 *    range and zero the part inside of a folio that straddles it
 *    (truncate_inode_pages_range()); a large folio is zeroed, not split.
 *  - Bytes of an uptodate folio past the end of the file are always
 *    zero (truncation zeroes them; a write zeroes what it does not cover
 *    of a folio that was not uptodate), so growing a file shows zeros.
 *
 * Huge policy (tmpfs huge=).  Folios never reach outside the range an
 * operation populates: filemap_grab_folios() gives an aligned missing
 * stretch the largest order that fits in it, so a write or fallocate
 * that covers an aligned 2 MiB range gets one order-9 folio, and smaller
 * aligned pieces get smaller orders, as tmpfs with huge=always has done
 * since Linux 6.14 (orders from the write size).  NEVER leaves
 * AS_LARGE_FOLIOS off, so every folio is order 0.  WITHIN_SIZE follows
 * tmpfs's rule that a large folio must lie wholly inside i_size, taken
 * as it is after the operation (the kernel compares with the write's end
 * too): since folios stay inside the populated range, this only matters
 * for fallocate(FALLOC_FL_KEEP_SIZE) past the end of the file, which
 * gets order-0 folios there.  ADVISE is ALWAYS for a file created with
 * UPC_SHMEM_HUGE_ADVISED (madvise(MADV_HUGEPAGE)), otherwise NEVER; an
 * advised WITHIN_SIZE file is ALWAYS, as tmpfs honours the advice.
 *
 * Read path (seed 002, without its hole regression).  A read is one
 * RCU walk of the tree: xas_find() from the first page moves sideways
 * from folio to folio, stepping over a large folio's sibling slots and
 * over empty slots and subtrees, so the lookup that finds the next folio
 * also says where a hole ends, and a read costs one walk from the root
 * however many folios and holes it covers (the per-folio path made one
 * per page; batched lookups of FOLIO_BATCH_SIZE folios one per 31).
 * Data is copied one run at a time: folios that follow each other in
 * the file and in the arena (a file written in order) are one memcpy();
 * the bytes between folios, and folios that are not uptodate, are
 * zeroed as one run (one memset() per destination segment) up to the
 * next folio of data or the end of the read.  A read inside one page
 * (4 KiB reads, the case where seed 002's series lost against the
 * per-folio path) makes one xas_load(), the per-folio path's lookup
 * without its reference.  Measured by `upcache-bench shmem` against the
 * per-folio path and the kernel's tmpfs (tools/bench/shm_suite.c).
 * Seeks and zero-copy spans use the same walk (shmem_for_each_piece()).
 *
 * The walk takes no folio reference, unlike the kernel's lockless
 * readers: the shared lock already keeps the folios alive (see
 * Locking), and two atomic operations per folio would otherwise be a
 * large part of reading fallocated or small-folio data, whose copy or
 * memset is short.
 *
 * Write path.  Under the exclusive lock, the range is cut into runs that
 * do not cross a 2 MiB boundary, so that an aligned huge range is one
 * run.  Each run is got-or-created with filemap_grab_folios() (two lock
 * round trips and two walks per run); each folio is filled (zeroing
 * first what the write does not cover of a folio that is not uptodate),
 * marked uptodate and dirty, unlocked and released; then the size grows.
 *
 * Locking.  sf->rwsem (a pthread rwlock that prefers writers, so a
 * stream of readers cannot starve a writer) is taken outside everything
 * the page cache takes: folio locks, then i_pages' xa_lock, then the
 * arena's locks.  Readers take no folio lock and no folio reference:
 * every path that removes a folio from a shmem file (truncation, hole
 * punching, an undone fallocate, destroying the file) holds the rwsem
 * exclusive, and reclaim leaves the mapping alone (AS_UNEVICTABLE), so
 * under the shared rwsem the page cache's own reference keeps each folio
 * found alive and in the file until the read is done.  The RCU read
 * lock around the walk is kept for the tree's nodes, as the XArray's
 * lockless readers require.  This is also why shmem has no swap yet:
 * reclaim would remove folios without the rwsem, so the read walk would
 * have to take references again; and swap-out cannot take the rwsem
 * instead, since a writer holds it exclusive across allocation and could
 * then never swap out its own file's pages to make room.  Spans take
 * their own reference (folio_get(), safe on a folio the file holds) to
 * keep a folio past the walk.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "rcu_internal.h"
#include "shmem.h"

#define SHMEM_HUGE_PAGES	(1UL << UPC_MAX_ORDER)

/* ---- small helpers ------------------------------------------------------ */

static int64_t folio_pos(const struct folio *folio)
{
	return (int64_t)folio->index << UPC_PAGE_SHIFT;
}

/*
 * Where @folio's bytes end, cut at @end, which lies past the folio's
 * start (the end of the last possible page, 2^63, is not an int64_t).
 */
static int64_t folio_end_before(const struct folio *folio, int64_t end)
{
	int64_t pos = folio_pos(folio);

	if ((uint64_t)(end - pos) <= folio_size(folio))
		return end;
	return pos + (int64_t)folio_size(folio);
}

int64_t shmem_size(struct shmem_file *sf)
{
	return __atomic_load_n(&sf->mapping.size, __ATOMIC_RELAXED);
}

/* Only under the exclusive lock; upc_size() readers take no lock. */
static void shmem_set_size(struct shmem_file *sf, int64_t size)
{
	__atomic_store_n(&sf->mapping.size, size, __ATOMIC_RELAXED);
}

static void shmem_lock_shared(struct shmem_file *sf)
{
	pthread_rwlock_rdlock(&sf->rwsem);
}

static void shmem_lock_excl(struct shmem_file *sf)
{
	pthread_rwlock_wrlock(&sf->rwsem);
}

static void shmem_unlock(struct shmem_file *sf)
{
	pthread_rwlock_unlock(&sf->rwsem);
}

/* ---- creation ----------------------------------------------------------- */

/* The policy in force for @huge and the advice (see the opening comment). */
static enum shmem_huge shmem_resolve_huge(enum shmem_huge huge, bool advised)
{
	if (advised && huge != SHMEM_HUGE_NEVER)
		return SHMEM_HUGE_ALWAYS;
	return huge == SHMEM_HUGE_ADVISE ? SHMEM_HUGE_NEVER : huge;
}

/*
 * Nothing writes shmem back by tag (its data leaves only through swap),
 * so a folio made dirty needs only PG_dirty: no tag, no i_pages lock, no
 * walk per folio written, as tmpfs's noop_dirty_folio().
 */
static const struct address_space_operations shmem_aops = {
	.dirty_folio = noop_dirty_folio,
};

int shmem_file_init(struct shmem_file *sf, struct upc_arena *arena,
		    enum shmem_huge huge, bool advised)
{
	unsigned long flags = (1UL << AS_SWAPBACKED) | (1UL << AS_UNEVICTABLE);
	pthread_rwlockattr_t attr;
	int err;

	sf->huge = shmem_resolve_huge(huge, advised);
	if (sf->huge != SHMEM_HUGE_NEVER)
		flags |= 1UL << AS_LARGE_FOLIOS;
	address_space_init(&sf->mapping, arena, &shmem_aops, flags);
	sf->mapping.host = sf;

	if (pthread_rwlockattr_init(&attr))
		return -ENOMEM;
	pthread_rwlockattr_setkind_np(
		&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	err = pthread_rwlock_init(&sf->rwsem, &attr);
	pthread_rwlockattr_destroy(&attr);
	return err ? -ENOMEM : 0;
}

void shmem_file_destroy(struct shmem_file *sf)
{
	truncate_inode_pages(&sf->mapping, 0);
	xa_destroy(&sf->mapping.i_pages);
	pthread_rwlock_destroy(&sf->rwsem);
}

/* ---- walking a range: the read path ------------------------------------- */

/*
 * State of one walk: the callback, and the run of zeros reported to it
 * only when something else follows (or the walk ends), so that a hole
 * and the unwritten folios around it make one piece.
 */
struct piece_walk {
	shmem_piece_fn fn;
	void *arg;
	struct shmem_piece zeros;
	bool stopped;
};

/* Report the pending run of zeros, if any. */
static void walk_flush(struct piece_walk *w)
{
	if (!w->zeros.len || w->stopped)
		return;
	if (!w->fn(&w->zeros, w->arg))
		w->stopped = true;
	w->zeros.len = 0;
}

/* [@pos, @end) reads as zeros: extend the pending run (it ends at @pos). */
static void walk_zeros(struct piece_walk *w, int64_t pos, int64_t end)
{
	if (pos >= end)
		return;
	if (!w->zeros.len)
		w->zeros.pos = pos;
	w->zeros.len += (size_t)(end - pos);
}

/* [@pos, @end) is held by @folio: zeros if it is not uptodate. */
static void walk_folio(struct piece_walk *w, struct folio *folio, int64_t pos,
		       int64_t end)
{
	struct shmem_piece piece = {
		.pos = pos,
		.len = (size_t)(end - pos),
		.folio = folio,
		.offset = (size_t)(pos - folio_pos(folio)),
	};

	if (!folio_test_uptodate(folio)) {
		walk_zeros(w, pos, end);
		return;
	}
	walk_flush(w);
	if (!w->stopped && !w->fn(&piece, w->arg))
		w->stopped = true;
}

/*
 * The entry at or after the cursor, up to page @last: a folio, or NULL
 * when none is left.  Caller holds the RCU read lock and @sf's lock.
 * Value entries (swap, once shmem has it) are not folios: skipped, so
 * they read as holes.  A retry entry (a node being freed under a
 * lockless reader; not seen under the shared lock, but the XArray's
 * contract) restarts the walk at @index, the first page not yet done.
 */
static struct folio *walk_next(struct xa_state *xas, pgoff_t index,
			       pgoff_t last)
{
	void *entry;

	for (;;) {
		entry = xas_find(xas, last);
		if (xas_retry(xas, entry)) {
			xas_set(xas, index);
			continue;
		}
		if (!entry || !xa_is_value(entry))
			return entry;
	}
}

/*
 * The walk itself; the caller holds the lock shared and has cut @end at
 * the size.  One RCU walk from @pos on: xas_find() moves sideways from
 * folio to folio (over a large folio's sibling slots in one step, and
 * over a hole's empty slots and subtrees without descending into them),
 * so the whole range costs one walk from the root however many folios
 * it holds.  No folio reference is taken: see "Locking" in the opening
 * comment.
 */
static void shmem_walk_locked(struct shmem_file *sf, int64_t pos, int64_t end,
			      shmem_piece_fn fn, void *arg)
{
	XA_STATE(xas, &sf->mapping.i_pages, (pgoff_t)pos >> UPC_PAGE_SHIFT);
	pgoff_t last = (pgoff_t)(end - 1) >> UPC_PAGE_SHIFT;
	struct piece_walk w = { .fn = fn, .arg = arg };
	struct folio *folio;

	upc_rcu_enter();
	while (!w.stopped &&
	       (folio = walk_next(&xas, (pgoff_t)pos >> UPC_PAGE_SHIFT,
				  last))) {
		int64_t start = folio_pos(folio);
		int64_t stop = folio_end_before(folio, end);

		if (start > pos)
			walk_zeros(&w, pos, start);
		/* A large folio may begin before the range. */
		if (start < pos)
			start = pos;
		walk_folio(&w, folio, start, stop);
		pos = stop;
	}
	if (!w.stopped)
		walk_zeros(&w, pos, end);
	walk_flush(&w);
	upc_rcu_exit();
}

void shmem_for_each_piece(struct shmem_file *sf, int64_t pos, size_t len,
			  shmem_piece_fn fn, void *arg)
{
	int64_t size, end;

	shmem_lock_shared(sf);
	size = shmem_size(sf);
	if (pos < size && len) {
		end = (uint64_t)len < (uint64_t)(size - pos) ?
			pos + (int64_t)len : size;
		shmem_walk_locked(sf, pos, end, fn, arg);
	}
	shmem_unlock(sf);
}

/*
 * A read's copy still to be made: @len bytes at @src, the data of one or
 * more folios that follow each other both in the file and in the arena.
 * Files written in order get their order-0 folios in ascending arena
 * order (the allocator's bulk path hands out runs), so a 64 KiB read of
 * such a file is one 64 KiB memcpy() instead of sixteen 4 KiB ones.
 */
struct read_state {
	struct iov_iter *iter;
	const char *src;
	size_t len;
};

static void read_flush(struct read_state *rs)
{
	if (rs->len)
		copy_to_iter(rs->src, rs->len, rs->iter);
	rs->len = 0;
}

/*
 * Pieces come in file order, and two data pieces in a row are adjacent
 * in the file (a gap would have been a piece of zeros between them), so
 * a piece that also starts where the pending copy ends in memory joins
 * it.  The folios stay valid until the copy is made, after the walk if
 * need be: the shared lock keeps them in the file.
 */
static bool read_piece(const struct shmem_piece *piece, void *arg)
{
	struct read_state *rs = arg;
	const char *addr;

	if (!piece->folio) {
		read_flush(rs);
		iov_iter_zero(piece->len, rs->iter);
		return true;
	}
	addr = (const char *)folio_address(piece->folio) + piece->offset;
	if (rs->len && addr == rs->src + rs->len) {
		rs->len += piece->len;
		return true;
	}
	read_flush(rs);
	rs->src = addr;
	rs->len = piece->len;
	return true;
}

/*
 * A read inside one page (4 KiB or less) needs no walk state: one
 * xas_load(), the lookup a per-page read makes, finds the folio or says
 * the page is a hole.  Caller holds the lock shared; as for the walk, no
 * reference is taken.
 */
static void shmem_read_page(struct shmem_file *sf, struct iov_iter *iter,
			    int64_t pos, size_t count)
{
	XA_STATE(xas, &sf->mapping.i_pages, (pgoff_t)pos >> UPC_PAGE_SHIFT);
	struct folio *folio;

	upc_rcu_enter();
	do {
		folio = xas_load(&xas);
	} while (xas_retry(&xas, folio));
	/* A value entry would be swap; shmem has none yet. */
	if (folio && !xa_is_value(folio) && folio_test_uptodate(folio))
		copy_to_iter((char *)folio_address(folio) +
			     (pos - folio_pos(folio)), count, iter);
	else
		iov_iter_zero(count, iter);
	upc_rcu_exit();
}

ssize_t shmem_read_iter(struct shmem_file *sf, struct iov_iter *iter,
			int64_t pos)
{
	size_t count = iov_iter_count(iter);
	int64_t size;

	shmem_lock_shared(sf);
	size = shmem_size(sf);
	if (pos >= size || !count) {
		shmem_unlock(sf);
		return 0;
	}
	if (count > (uint64_t)(size - pos))
		count = (size_t)(size - pos);
	if ((pos ^ (pos + (int64_t)count - 1)) >> UPC_PAGE_SHIFT) {
		struct read_state rs = { .iter = iter };

		shmem_walk_locked(sf, pos, pos + (int64_t)count, read_piece,
				  &rs);
		read_flush(&rs);
	} else {
		shmem_read_page(sf, iter, pos, count);
	}
	shmem_unlock(sf);
	return (ssize_t)count;
}

/* ---- seeking ------------------------------------------------------------ */

struct seek_state {
	bool want_data;
	int64_t found;
};

static bool seek_piece(const struct shmem_piece *piece, void *arg)
{
	struct seek_state *s = arg;

	if ((piece->folio != NULL) != s->want_data)
		return true;
	s->found = piece->pos;
	return false;
}

/* SEEK_DATA or SEEK_HOLE: the first piece of the wanted kind. */
static int64_t shmem_seek(struct shmem_file *sf, int64_t pos, bool want_data)
{
	struct seek_state s = { .want_data = want_data };
	int64_t size;

	shmem_lock_shared(sf);
	size = shmem_size(sf);
	if (pos >= size) {
		shmem_unlock(sf);
		return -ENXIO;
	}
	/* Nothing found: no data follows, or the hole at the end. */
	s.found = want_data ? -ENXIO : size;
	shmem_walk_locked(sf, pos, size, seek_piece, &s);
	shmem_unlock(sf);
	return s.found;
}

int64_t shmem_seek_data(struct shmem_file *sf, int64_t pos)
{
	return shmem_seek(sf, pos, true);
}

int64_t shmem_seek_hole(struct shmem_file *sf, int64_t pos)
{
	return shmem_seek(sf, pos, false);
}

/* ---- populating: the write path and fallocate --------------------------- */

/*
 * How an operation populates a range.  @prepare (may be NULL) sees each
 * run of pages [@index, @last] before it is grabbed; @fill gets each
 * folio of the run locked, with the part [@from, @to) of the file the
 * operation covers in it.
 */
struct populate_ops {
	void (*prepare)(struct shmem_file *sf, pgoff_t index, pgoff_t last);
	void (*fill)(struct folio *folio, int64_t from, int64_t to, void *arg);
};

/*
 * The first page index where large folios stop being allowed for an
 * operation after which the file's size is @new_size: the page-rounded
 * @new_size for WITHIN_SIZE, nowhere for the others (NEVER has no large
 * folios at all).
 */
static pgoff_t shmem_large_limit(const struct shmem_file *sf, int64_t new_size)
{
	if (sf->huge != SHMEM_HUGE_WITHIN_SIZE)
		return (pgoff_t)-1;
	return (pgoff_t)(((uint64_t)new_size + UPC_PAGE_SIZE - 1) >>
			 UPC_PAGE_SHIFT);
}

/*
 * The last page of the run that starts at @index, @last at the latest:
 * up to the next 2 MiB boundary, so that an aligned huge range is one
 * run, and not across @large_limit; a single page at or past it.
 */
static pgoff_t shmem_run_last(const struct shmem_file *sf, pgoff_t index,
			      pgoff_t last, pgoff_t large_limit)
{
	pgoff_t stop = index | (SHMEM_HUGE_PAGES - 1);

	if (index >= large_limit && mapping_large_folio_support(&sf->mapping))
		return index;
	if (stop > last)
		stop = last;
	if (index < large_limit && stop >= large_limit)
		stop = large_limit - 1;
	return stop;
}

/*
 * Get locked folios for pages [@index, @last]: one batched grab; a
 * single page of a large-folio file (a one-page write, or WITHIN_SIZE
 * past the end of the file) takes the cheaper filemap_grab_folio(),
 * which gives the same order-0 folio.  Return: the number of folios in
 * @folios, or -ENOMEM.
 */
static int shmem_grab_run(struct shmem_file *sf, pgoff_t index, pgoff_t last,
			  struct folio **folios)
{
	struct folio *folio;

	if (index < last || !mapping_large_folio_support(&sf->mapping))
		return filemap_grab_folios(&sf->mapping, index,
					   (unsigned int)(last - index + 1),
					   folios);
	folio = filemap_grab_folio(&sf->mapping, index);
	if (IS_ERR(folio))
		return (int)PTR_ERR(folio);
	folios[0] = folio;
	return 1;
}

/*
 * A grab failed: -ENOSPC when the arena has no page left (a full tmpfs),
 * -ENOMEM when something else ran out (index nodes, an injected fault).
 */
static int shmem_alloc_error(struct shmem_file *sf)
{
	const struct upc_arena *arena = sf->mapping.arena;
	unsigned long limit = __atomic_load_n(&arena->limit_pages,
					      __ATOMIC_RELAXED);

	return upc_arena_charged(arena) >= limit ? -ENOSPC : -ENOMEM;
}

/*
 * Populate [@pos, @end): run by run, prepare, get or create the folios
 * and fill each.  Stops at the first run that cannot be had at all.
 * Caller holds the lock exclusive.  Return: 0 or -ENOSPC/-ENOMEM, with
 * *@done set to the end of what was filled.
 */
static int shmem_populate(struct shmem_file *sf, int64_t pos, int64_t end,
			  pgoff_t large_limit, const struct populate_ops *ops,
			  void *arg, int64_t *done)
{
	pgoff_t last = (pgoff_t)(end - 1) >> UPC_PAGE_SHIFT;
	struct folio *folios[FILEMAP_GRAB_MAX];
	int err = 0;

	while (pos < end) {
		pgoff_t index = (pgoff_t)pos >> UPC_PAGE_SHIFT;
		pgoff_t stop = shmem_run_last(sf, index, last, large_limit);
		int i, nr;

		if (ops->prepare)
			ops->prepare(sf, index, stop);
		nr = shmem_grab_run(sf, index, stop, folios);
		if (nr < 0) {
			err = shmem_alloc_error(sf);
			break;
		}
		for (i = 0; i < nr; i++) {
			struct folio *folio = folios[i];
			int64_t to = folio_end_before(folio, end);

			ops->fill(folio, pos, to, arg);
			folio_unlock(folio);
			folio_put(folio);
			pos = to;
		}
	}
	*done = pos;
	return err;
}

/* Copy the write's part of @folio in; the rest of a new one is zeroed. */
static void write_folio(struct folio *folio, int64_t from, int64_t to,
			void *arg)
{
	char *addr = folio_address(folio);
	size_t offset = (size_t)(from - folio_pos(folio));
	size_t len = (size_t)(to - from);

	if (!folio_test_uptodate(folio)) {
		memset(addr, 0, offset);
		memset(addr + offset + len, 0,
		       folio_size(folio) - offset - len);
	}
	copy_from_iter(addr + offset, len, arg);
	folio_set_uptodate(folio);
	folio_mark_dirty(folio);
}

static const struct populate_ops write_ops = {
	.fill = write_folio,
};

ssize_t shmem_write_iter(struct shmem_file *sf, struct iov_iter *iter,
			 int64_t pos)
{
	int64_t end = pos + (int64_t)iov_iter_count(iter);
	int64_t size, done;
	int err;

	shmem_lock_excl(sf);
	size = shmem_size(sf);
	err = shmem_populate(sf, pos, end,
			     shmem_large_limit(sf, end > size ? end : size),
			     &write_ops, iter, &done);
	/* Nothing written (done == pos) leaves the size alone. */
	if (done > pos && done > size)
		shmem_set_size(sf, done);
	shmem_unlock(sf);
	return done > pos ? (ssize_t)(done - pos) : err;
}

/*
 * Call @fn on the folios cached in pages [@index, @last], a batch at a
 * time.  Caller holds the lock exclusive.
 */
static void shmem_for_each_batch(struct shmem_file *sf, pgoff_t index,
				 pgoff_t last,
				 void (*fn)(struct shmem_file *sf,
					    struct folio_batch *fbatch))
{
	struct folio_batch fbatch;

	folio_batch_init(&fbatch);
	while (index <= last &&
	       filemap_get_folios(&sf->mapping, &index, last, &fbatch)) {
		fn(sf, &fbatch);
		folio_batch_release(&fbatch);
	}
}

/*
 * fallocate over a folio that an earlier fallocate left unwritten makes
 * it zeroed and uptodate, as tmpfs does (its shmem_get_folio() with
 * SGP_FALLOC initialises such a folio, so that undoing a later failed
 * fallocate cannot take back what the earlier one guaranteed).  Folios
 * this fallocate creates stay not uptodate.
 */
static void falloc_init_batch(struct shmem_file *sf, struct folio_batch *fbatch)
{
	unsigned int i;

	(void)sf;
	for (i = 0; i < folio_batch_count(fbatch); i++) {
		struct folio *folio = fbatch->folios[i];

		if (folio_test_uptodate(folio))
			continue;
		memset(folio_address(folio), 0, folio_size(folio));
		folio_set_uptodate(folio);
	}
}

static void falloc_prepare(struct shmem_file *sf, pgoff_t index, pgoff_t last)
{
	shmem_for_each_batch(sf, index, last, falloc_init_batch);
}

/*
 * A fallocated folio stays not uptodate (it reads as zeros and seeks as
 * a hole); it is marked dirty, as tmpfs does, so that reclaim will swap
 * it out rather than drop it once shmem has swap.
 */
static void falloc_folio(struct folio *folio, int64_t from, int64_t to,
			 void *arg)
{
	(void)from;
	(void)to;
	(void)arg;
	folio_mark_dirty(folio);
}

static const struct populate_ops falloc_ops = {
	.prepare = falloc_prepare,
	.fill = falloc_folio,
};

/* Remove the folios of a batch that are not uptodate. */
static void falloc_undo_batch(struct shmem_file *sf, struct folio_batch *fbatch)
{
	struct folio_batch doomed;
	unsigned int i;

	folio_batch_init(&doomed);
	for (i = 0; i < folio_batch_count(fbatch); i++) {
		struct folio *folio = fbatch->folios[i];

		if (folio_test_uptodate(folio))
			continue;
		folio_lock(folio);
		folio_clear_dirty(folio);
		folio_batch_add(&doomed, folio);
	}
	delete_from_page_cache_batch(&sf->mapping, &doomed);
	for (i = 0; i < folio_batch_count(&doomed); i++)
		folio_unlock(doomed.folios[i]);
}

/*
 * A fallocate failed part-way: as tmpfs, free what it allocated, which
 * is every folio of [@pos, @end) still not uptodate (falloc_prepare()
 * made the older ones uptodate).
 */
static void falloc_undo(struct shmem_file *sf, int64_t pos, int64_t end)
{
	if (pos < end)
		shmem_for_each_batch(sf, (pgoff_t)pos >> UPC_PAGE_SHIFT,
				     (pgoff_t)(end - 1) >> UPC_PAGE_SHIFT,
				     falloc_undo_batch);
}

int shmem_fallocate(struct shmem_file *sf, int64_t pos, int64_t len,
		    bool keep_size)
{
	const struct upc_arena *arena = sf->mapping.arena;
	int64_t end = pos + len, size, new_size, done;
	pgoff_t pages = ((pgoff_t)(end - 1) >> UPC_PAGE_SHIFT) -
			((pgoff_t)pos >> UPC_PAGE_SHIFT) + 1;
	int err = -ENOSPC;

	shmem_lock_excl(sf);
	size = shmem_size(sf);
	new_size = keep_size || end <= size ? size : end;
	/* As tmpfs: a range bigger than all memory fails before allocating. */
	if (pages <= __atomic_load_n(&arena->limit_pages, __ATOMIC_RELAXED)) {
		err = shmem_populate(sf, pos, end,
				     shmem_large_limit(sf, new_size),
				     &falloc_ops, NULL, &done);
		if (err)
			falloc_undo(sf, pos, done);
	}
	if (!err)
		shmem_set_size(sf, new_size);
	shmem_unlock(sf);
	return err;
}

/* ---- freeing ------------------------------------------------------------ */

void shmem_punch_hole(struct shmem_file *sf, int64_t pos, int64_t len)
{
	shmem_lock_excl(sf);
	truncate_inode_pages_range(&sf->mapping, pos, pos + len - 1);
	shmem_unlock(sf);
}

void shmem_truncate(struct shmem_file *sf, int64_t size)
{
	int64_t old;

	shmem_lock_excl(sf);
	old = shmem_size(sf);
	/* The size first, as the kernel's truncate_setsize() does. */
	if (size != old)
		shmem_set_size(sf, size);
	/*
	 * Not growing: free from @size on, as tmpfs does even when the size
	 * does not change, which drops what fallocate(FALLOC_FL_KEEP_SIZE)
	 * allocated past the end.
	 */
	if (size <= old)
		truncate_inode_pages(&sf->mapping, size);
	shmem_unlock(sf);
}
