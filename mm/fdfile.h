/* SPDX-License-Identifier: MIT */
/*
 * mm/fdfile.h - files backed by a file descriptor (internal: the upc_
 * facade in api/ and the tests use it; applications use upcache.h).
 *
 * An fd file is an address_space in front of a regular file: misses read
 * it, writes dirty folios, and writeback (fsync, reclaim) writes them to
 * it.  See mm/fdfile.c for the semantics and the locking.
 *
 * Conventions: @ff is the file, @pos and @size byte offsets, @iter the
 * caller's buffers, @since an open file's writeback error sample.
 */
#ifndef UPCACHE_MM_FDFILE_H
#define UPCACHE_MM_FDFILE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <upcache/filemap.h>

#include "iov_iter.h"
#include "writeback.h"

/*
 * The most folios (order 0: a file that is written has no others) one
 * buffered write-back transfer carries.  Into the kernel's page cache, a
 * pwritev() of 256 pages took 28 times as long as one of 31 (837
 * against 30 us on average: strace -c of upcache-bench run
 * --ioengine=upcache-file --rw=write --bs=64k --fsync=64 on ext4, Linux
 * 6.18), and the job wrote 850-919 MiB/s with 1 MiB transfers against
 * 1.27-1.34 GiB/s with 128 KiB ones.  A direct transfer goes to the
 * device, where one large request beats several small ones: it is not
 * cut.
 */
#define FD_BUFFERED_RUN_FOLIOS	32

/* fd_file_init() flags. */
/* Writeback sends its batches through io_uring (io/uring.c). */
#define FD_FILE_IO_URING		(1U << 0)
/*
 * Background writeback (mm/writeback.h): passes start once writes have
 * dirtied 1/FD_WB_BACKGROUND_SHARE of the cache's memory limit since
 * the last one began, if the cache has less than that much room (the
 * kernel's dirty_background_ratio is 10%, of memory full or not).
 */
#define FD_FILE_WRITEBACK_BACKGROUND	(1U << 1)
#define FD_WB_BACKGROUND_SHARE		8

/**
 * struct fd_file - a page cache in front of a file descriptor.
 * @mapping: The cache; @mapping.size is the file's size as the cache's
 *	users see it, @mapping.host points back here.
 * @rwsem: Reads take it shared; writes, truncation and fallocate
 *	exclusive (the kernel's i_rwsem, held by reads too so that a read
 *	sees a write whole or not at all).
 * @ra: Readahead state (mm/readahead.c).
 * @fd: The backing file (the caller's; never closed here).
 * @writable: @fd was opened for writing.
 * @io_uring: Writeback sends its batches through io_uring
 *	(FD_FILE_IO_URING).
 * @direct: @fd is writable and has O_DIRECT (its flags are @fd_flags).
 * @fd_flags: @fd's file status flags when the cache was put in front.
 * @direct_lock: For a @direct file: held shared by every transfer on
 *	@fd and by its fsync, exclusive while O_DIRECT is cleared for the
 *	writes direct I/O cannot make (fd_file_write_buffered()), since
 *	the flag is the open file's, not the thread's.
 * @seek_lock: Held while a seek moves @fd's file offset and puts it
 *	back (fd_file_seek()): the offset is the open file's, so two
 *	seeks side by side would each put back what the other moved.
 * @wb: Background writeback (FD_FILE_WRITEBACK_BACKGROUND; else its
 *	threshold is 0 and it never starts).
 */
struct fd_file {
	struct address_space mapping;
	pthread_rwlock_t rwsem;
	struct file_ra_state ra;
	int fd;
	bool writable;
	bool io_uring;
	bool direct;
	int fd_flags;
	pthread_rwlock_t direct_lock;
	pthread_mutex_t seek_lock;
	struct background_writeback wb;
};

/**
 * fd_file_init() - Put a cache in front of an open file.
 * @ff: The file to set up.
 * @arena: Where its folios' memory comes from.
 * @fd: A regular file, open for reading (O_RDONLY or O_RDWR), without
 *	O_APPEND (pwrite() would append).  With O_DIRECT the cache is the
 *	file's only cache: folios are read and written whole (pages are
 *	aligned as direct I/O needs), except the page holding the end of
 *	the data (fd_file_write_buffered()).
 * @flags: 0, or FD_FILE_IO_URING and FD_FILE_WRITEBACK_BACKGROUND.
 *
 * The cache assumes it is the file's only user while it is open: a
 * change made through another descriptor is not seen by cached pages.
 *
 * Context: Any thread.
 * Return: 0; -EBADF if @fd is not open, or only for writing; -EINVAL if
 * it is not a regular file, has O_APPEND, or has O_DIRECT where its
 * file system needs direct I/O aligned to more than a page or takes
 * none for it; the error of fstat() or statx(); -ENOMEM.
 */
int fd_file_init(struct fd_file *ff, struct upc_arena *arena, int fd,
		 unsigned int flags);

/**
 * fd_file_destroy() - Drop the cache (dirty data is lost: write it
 * back first).  The descriptor stays open.
 * @ff: The file.
 *
 * Waits for a background writeback pass under way first.
 *
 * Context: No other thread uses @ff.  Not from a flusher thread.
 */
void fd_file_destroy(struct fd_file *ff);

/* fd_file_size() - The size the cache's users see. */
static inline int64_t fd_file_size(struct fd_file *ff)
{
	return __atomic_load_n(&ff->mapping.size, __ATOMIC_ACQUIRE);
}

/**
 * fd_file_read_iter() - Read from @pos into @iter through the cache.
 * @ff: The file.
 * @iter: The buffers; the read stops at the end of the file.
 * @pos: File offset, not negative.
 *
 * A miss reads the page from the file (pread()); bytes the file does
 * not have (a size the cache grew that is not written back yet) are
 * zeros.
 *
 * Context: May sleep; takes @ff->rwsem shared.
 * Return: Bytes read (short if a page could not be read after others
 * were); 0 at or past the end; -ENOMEM; the read's error (pread()'s
 * errno, -EIO if a page stayed not uptodate).
 */
ssize_t fd_file_read_iter(struct fd_file *ff, struct iov_iter *iter,
			  int64_t pos);

/**
 * typedef fd_file_folio_fn - What fd_file_for_each_folio() calls.
 * @folio: An uptodate folio of the file (the walk's reference: take one
 *	of your own to keep it).
 * @offset: Where in @folio the piece starts.
 * @pos: Its file offset.
 * @len: Its length.
 * @arg: The caller's.
 *
 * Return: true to go on, false to stop.
 */
typedef bool (*fd_file_folio_fn)(struct folio *folio, size_t offset,
				 int64_t pos, size_t len, void *arg);

/**
 * fd_file_for_each_folio() - Hand the folios of a range to @fn, read
 * as fd_file_read_iter() reads them (readahead on a miss).
 * @ff: The file.
 * @pos: Start of the range, not negative.
 * @len: Its length; the range is cut at the end of the file.
 * @fn: Called for each folio's part of the range, in order.
 * @arg: Passed to @fn.
 *
 * Context: May sleep; takes @ff->rwsem shared (@fn runs under it, and
 * may not call back into the file).
 * Return: 0 (also when @fn stopped the walk); the read's error for the
 * page where the walk stopped (the pieces before it were handed out).
 */
int fd_file_for_each_folio(struct fd_file *ff, int64_t pos, size_t len,
			   fd_file_folio_fn fn, void *arg);

/**
 * fd_file_write_iter() - Write @iter at @pos into the cache.
 * @ff: The file.
 * @iter: The bytes.
 * @pos: File offset, not negative; the size grows to cover the write.
 *
 * Folios are dirtied, not written: fd_file_fsync() or reclaim writes
 * them.  A page the write covers only in part is read from the file
 * first.
 *
 * Context: May sleep; takes @ff->rwsem exclusive.
 * Return: Bytes written (short when memory or a read ran out part-way);
 * -EBADF if the file is not open for writing; -ENOMEM; -EFBIG past the
 * largest page index; the error of the read of a partly written page.
 */
ssize_t fd_file_write_iter(struct fd_file *ff, struct iov_iter *iter,
			   int64_t pos);

/**
 * fd_file_truncate() - Set the size, in the cache and the file.
 * @ff: The file.
 * @size: New size, not negative.
 *
 * Shrinking cuts the file, stores the new size, waits for writebacks
 * that began before and cuts again what they wrote past it, then drops
 * the cached pages past @size (dirty ones too: their data is cut) and
 * zeroes the tail of the last.
 *
 * Context: May sleep; takes @ff->rwsem exclusive.
 * Return: 0; -EINVAL if the file is not open for writing (as ftruncate()
 * answers); ftruncate()'s error: from the first cut, with the size and
 * the cached pages as they were; from the second (rare: the first one
 * succeeded), with the cache truncated and the file perhaps longer.
 */
int fd_file_truncate(struct fd_file *ff, int64_t size);

/**
 * fd_file_write_back() - The data part of fsync: write every dirty folio
 * back, wait for reclaim's writebacks, report errors once.
 * @ff: The file.
 * @since: The caller's writeback error sample, advanced.
 *
 * Context: May sleep.  The caller serialises its uses of *@since (the
 * kernel's f_lock), so that two of its threads never both report one
 * error.
 * Return: 0; the first writeback error of this pass; else a writeback
 * error recorded since *@since (by reclaim, or another caller's pass)
 * and not reported to this caller yet.
 */
int fd_file_write_back(struct fd_file *ff, errseq_t *since);

/**
 * fd_file_flush() - fsync() or fdatasync() the file behind the cache.
 * @ff: The file.
 * @datasync: fdatasync() rather than fsync().
 *
 * What fd_file_write_back() wrote reaches the device.  Needs no lock of
 * the caller's, and takes none but direct_lock shared: threads syncing
 * one file flush at once, which a journaling file system can serve
 * with one commit (ext4 here: 4 threads made 1.9x the syncs per second
 * they made one at a time).
 *
 * Context: May sleep.
 * Return: 0, or the system call's -errno.
 */
int fd_file_flush(struct fd_file *ff, bool datasync);

/**
 * fd_file_fsync() - fd_file_write_back(), then fd_file_flush().
 * @ff: The file.
 * @since: The caller's writeback error sample, advanced.
 * @datasync: fdatasync() the file rather than fsync().
 *
 * Context: As fd_file_write_back().
 * Return: fd_file_write_back()'s error, else fd_file_flush()'s.
 */
int fd_file_fsync(struct fd_file *ff, errseq_t *since, bool datasync);

/**
 * fd_file_seek() - SEEK_DATA or SEEK_HOLE, answered by the file after
 * the dirty data is written back.
 * @ff: The file.
 * @pos: Where to start, not negative.
 * @whence: SEEK_DATA or SEEK_HOLE.
 *
 * Context: May sleep; takes @ff->rwsem shared.
 * The descriptor's file offset is put back where it was.
 *
 * Return: The offset; -ENXIO at or past the end (or no data follows);
 * the writeback's error; lseek()'s.
 */
int64_t fd_file_seek(struct fd_file *ff, int64_t pos, int whence);

/**
 * fd_file_fallocate() - Allocate or punch in the file, keeping the
 * cache in step.
 * @ff: The file.
 * @mode: 0, FALLOC_FL_KEEP_SIZE or FALLOC_FL_PUNCH_HOLE |
 *	FALLOC_FL_KEEP_SIZE (checked by the caller).
 * @pos: Start of the range.
 * @len: Its length, above 0.
 *
 * Punching first makes the range clean (filemap_write_and_wait_range()),
 * so that a file system that refuses the punch keeps the data and no
 * writeback lands in the hole; then punches the file, then drops the
 * range from the cache (zeroing the parts of pages it covers in part).
 *
 * Context: May sleep; takes @ff->rwsem exclusive.
 * Return: 0; -EBADF if not open for writing; the writeback's error
 * (nothing punched: the range could not be made clean); fallocate()'s
 * error.
 */
int fd_file_fallocate(struct fd_file *ff, int mode, int64_t pos, int64_t len);

#endif /* UPCACHE_MM_FDFILE_H */
