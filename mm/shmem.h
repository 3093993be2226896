/* SPDX-License-Identifier: MIT */
/*
 * mm/shmem.h - in-memory files with tmpfs semantics (internal: the upc_
 * facade in api/ and the tests use it; applications use upcache.h).
 *
 * A shmem file is an address_space whose folios are the only copy of
 * the data, its size, its huge policy and a per-file lock.  See
 * mm/shmem.c for the semantics and the read and write paths.
 *
 * Conventions: @sf is the file, @pos and @end byte offsets (end
 * exclusive), @iter the caller's buffers.
 */
#ifndef UPCACHE_MM_SHMEM_H
#define UPCACHE_MM_SHMEM_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <upcache/filemap.h>
#include <upcache/swap.h>

#include "iov_iter.h"

/**
 * enum shmem_huge - when a file uses large folios (tmpfs huge=).
 * @SHMEM_HUGE_NEVER: Order-0 folios only.
 * @SHMEM_HUGE_ALWAYS: Large folios (order 9 for an aligned 2 MiB range)
 *	wherever an operation populates an aligned range.
 * @SHMEM_HUGE_WITHIN_SIZE: As ALWAYS, but only for ranges inside the
 *	file's size as it is after the operation.
 * @SHMEM_HUGE_ADVISE: As ALWAYS for files created advised, else NEVER.
 */
enum shmem_huge {
	SHMEM_HUGE_NEVER,
	SHMEM_HUGE_ALWAYS,
	SHMEM_HUGE_WITHIN_SIZE,
	SHMEM_HUGE_ADVISE,
};

/**
 * struct shmem_file - one in-memory file.
 * @mapping: Its page cache; @mapping.size is the file's size (read and
 *	written with atomic accesses: upc_size() takes no lock).
 * @rwsem: Writes, truncation and fallocate hold it exclusive, reads,
 *	lookups and seeks shared, so a reader never sees half of a write.
 * @evict_lock: Readers hold it shared while they use folios they hold
 *	no reference on; reclaim holds it exclusive while it takes a folio
 *	out for swap (see Locking in mm/shmem.c).
 * @evictable: Reclaim may take folios out (so readers take @evict_lock):
 *	set by shmem_set_evictable(), cleared again only if the swap
 *	device it was set for never came.
 * @huge: The policy in force (ADVISE resolved to ALWAYS or NEVER at
 *	creation, WITHIN_SIZE to ALWAYS for an advised file).
 *
 * Fixed at creation: @huge and the mapping's flags.
 */
struct shmem_file {
	struct address_space mapping;
	pthread_rwlock_t rwsem;
	pthread_rwlock_t evict_lock;
	bool evictable;
	enum shmem_huge huge;
	struct swap_ra_state ra;
};

/**
 * struct shmem_piece - a piece of a byte range, as a walk reports it.
 * @pos: File offset of its first byte.
 * @len: Its length in bytes.
 * @folio: The uptodate folio holding its bytes (referenced for the
 *	duration of the callback only), or NULL: the piece reads as zeros
 *	(a hole, or folios allocated but never written).
 * @offset: Where @pos lies inside @folio.
 * @swapped: The piece is a page in swap (@folio NULL): data, not zeros.
 *	Only seeks see such pieces; reads and spans swap the page in.
 */
struct shmem_piece {
	int64_t pos;
	size_t len;
	struct folio *folio;
	size_t offset;
	bool swapped;
};

/*
 * typedef shmem_piece_fn - called for each piece of a walk, in order.
 * Return: true to go on, false to stop the walk.
 */
typedef bool (*shmem_piece_fn)(const struct shmem_piece *piece, void *arg);

/**
 * shmem_file_init() - Set up an empty file.
 * @sf: The file.
 * @arena: The arena its folios come from.
 * @huge: Its huge policy.
 * @advised: UPC_SHMEM_HUGE_ADVISED was given (madvise(MADV_HUGEPAGE)).
 *
 * Context: Before @sf is shared.
 * Return: 0; -ENOMEM if the lock cannot be set up.
 */
int shmem_file_init(struct shmem_file *sf, struct upc_arena *arena,
		    enum shmem_huge huge, bool advised);

/**
 * shmem_file_destroy() - Free every folio of a file and its lock.
 * @sf: The file.
 *
 * Folios still referenced elsewhere (spans) leave the file and are freed
 * by their last folio_put().
 *
 * Context: No other thread may use @sf.
 */
void shmem_file_destroy(struct shmem_file *sf);

/**
 * shmem_set_evictable() - Let reclaim swap the file's folios out, or not.
 * @sf: The file.
 * @evictable: true to let it; false only if no swap device was ever
 *	there to take them (a swapon that failed).
 *
 * Until this is called, reclaim leaves the file's folios in memory and
 * readers skip the evict lock; call it before the cache gets a swap
 * device, or before a file created while it has one is shared.
 *
 * Context: Takes @sf's lock exclusive.
 */
void shmem_set_evictable(struct shmem_file *sf, bool evictable);

/**
 * shmem_size() - The file's size.
 * @sf: The file.
 *
 * Context: Any thread; no lock.
 * Return: The size in bytes.
 */
int64_t shmem_size(struct shmem_file *sf);

/**
 * shmem_read_iter() - Read from @pos into @iter.
 * @sf: The file.
 * @iter: Where the bytes go; its count is how many are wanted.
 * @pos: File offset, not negative.
 *
 * Holes and folios not uptodate read as zeros, each run of them filled
 * with one memset() per destination segment; folios adjacent in the
 * file and in memory are copied with one memcpy().  One XArray walk
 * per read, and no folio reference; pages in swap are swapped in (one
 * more walk after each).
 *
 * Context: Takes @sf's locks shared.  May sleep (swap-in).
 * Return: The bytes read: fewer than asked at the end of the file, or
 * where a page in swap could not be swapped in; 0 at or past the end;
 * -ENOMEM or -EIO if the first page could not be swapped in.
 */
ssize_t shmem_read_iter(struct shmem_file *sf, struct iov_iter *iter,
			int64_t pos);

/**
 * shmem_write_iter() - Write @iter at @pos.
 * @sf: The file.
 * @iter: The bytes; its count is not 0, and @pos plus it does not pass
 *	INT64_MAX (the caller cuts it).
 * @pos: File offset, not negative.
 *
 * Pages in swap that the write covers are swapped in first.
 *
 * Context: Takes @sf's lock exclusive.  May sleep.
 * Return: The bytes written, short if memory ran out part-way; -ENOSPC
 * if the arena (and swap) is full and nothing was written; -ENOMEM if
 * other memory (index nodes, bookkeeping) ran out first; -EIO if a page
 * in swap could not be read back.
 */
ssize_t shmem_write_iter(struct shmem_file *sf, struct iov_iter *iter,
			 int64_t pos);

/**
 * shmem_fallocate() - Allocate [@pos, @pos + @len) (fallocate mode 0 or
 * FALLOC_FL_KEEP_SIZE).
 * @sf: The file.
 * @pos: Start, not negative.
 * @len: Length, above 0, with @pos + @len not past INT64_MAX.
 * @keep_size: Leave the size alone; otherwise it grows to @pos + @len.
 *
 * New folios are not uptodate: they read as zeros and count as holes
 * for seeking, as on tmpfs, until written.
 *
 * Context: Takes @sf's lock exclusive.  May sleep.
 * Return: 0; -ENOSPC if the range is larger than the arena or the arena
 * filled up (what was allocated stays, the size does not change);
 * -ENOMEM as for shmem_write_iter().
 */
int shmem_fallocate(struct shmem_file *sf, int64_t pos, int64_t len,
		    bool keep_size);

/**
 * shmem_punch_hole() - Free [@pos, @pos + @len); zero partial folios.
 * @sf: The file.
 * @pos: Start, not negative.
 * @len: Length, above 0, with @pos + @len not past INT64_MAX.
 *
 * Context: Takes @sf's lock exclusive.  May sleep (folio locks, swap).
 * Return: 0; -ENOMEM or -EIO if a page in swap that the range covers in
 * part could not be swapped in to be zeroed in part (nothing changed).
 */
int shmem_punch_hole(struct shmem_file *sf, int64_t pos, int64_t len);

/**
 * shmem_truncate() - Set the size.
 * @sf: The file.
 * @size: The new size, not negative.
 *
 * Shrinking frees the folios past @size and zeroes the rest of the one
 * @size falls in; so does setting the same size (freeing what was
 * fallocated past the end with FALLOC_FL_KEEP_SIZE), as on tmpfs;
 * growing leaves a hole.
 *
 * Context: Takes @sf's lock exclusive.  May sleep (folio locks, swap).
 * Return: 0; -ENOMEM or -EIO if the page @size falls in is in swap and
 * could not be swapped in to zero its tail (nothing changed).
 */
int shmem_truncate(struct shmem_file *sf, int64_t size);

/**
 * shmem_seek_data() - lseek(SEEK_DATA) from @pos.
 * @sf: The file.
 * @pos: Where to start, not negative.
 *
 * Data is what uptodate folios hold; allocated but unwritten folios are
 * holes, as tmpfs reports them.
 *
 * Context: Takes @sf's lock shared.
 * Return: The first offset at or after @pos holding data; -ENXIO if
 * @pos is at or past the end of the file or no data follows it.
 */
int64_t shmem_seek_data(struct shmem_file *sf, int64_t pos);

/**
 * shmem_seek_hole() - lseek(SEEK_HOLE) from @pos.
 * @sf: The file.
 * @pos: Where to start, not negative.
 *
 * Context: Takes @sf's lock shared.
 * Return: The first offset at or after @pos in a hole, the size if no
 * hole comes before the end; -ENXIO if @pos is at or past the end.
 */
int64_t shmem_seek_hole(struct shmem_file *sf, int64_t pos);

/**
 * shmem_for_each_piece() - Walk the pieces of a byte range.
 * @sf: The file.
 * @pos: Start, not negative.
 * @len: Length; the range is cut at the end of the file.
 * @fn: Called for each piece in order; a piece of zeros is reported
 *	once for the whole run (holes and unwritten folios together, up to
 *	the next piece of data).  The walk holds no reference on a piece's
 *	folio: the reader's locks keep it in the file until @fn returns,
 *	and @fn may take its own (folio_get()) to use it after that.
 * @arg: Passed to @fn.
 *
 * One XArray walk for the whole range, and one more after each page
 * the walk finds in swap and swaps in.
 *
 * Context: Takes @sf's locks shared; @fn runs under them and inside an
 * RCU read-side critical section, and must neither take them again nor
 * wait for an RCU grace period.  May sleep (swap-in).
 * Return: 0; or -ENOMEM or -EIO if a page could not be swapped in (the
 * pieces before it were reported).
 */
int shmem_for_each_piece(struct shmem_file *sf, int64_t pos, size_t len,
			 shmem_piece_fn fn, void *arg);

#endif /* UPCACHE_MM_SHMEM_H */
