// SPDX-License-Identifier: MIT
/*
 * mm/fdfile.c - files backed by a file descriptor: upcache's page cache
 * in front of a regular file, as a simple file system puts the kernel's
 * page cache in front of its blocks.
 *
 * This file owns the file's semantics; mm/filemap*.c do the caching and
 * mm/page_writeback.c the writing back:
 *
 *  - Reads: runs of cached folios a batch at a time; a miss reads ahead
 *    (mm/readahead.c: the request's pages, a growing window for a
 *    sequential stream), new folios filled with one preadv() per run
 *    (fd_file_readahead()), then mapping_read_folio_gfp() waits for the
 *    page or reads it alone with pread() (fd_file_read_folio()).  With
 *    O_DIRECT, a stream's window past the request is read by readahead
 *    workers, and a read that meets its mark sends the next window
 *    (fd_file_ra_check()).  Bytes past what the file holds read as
 *    zeros: the cache's size may be ahead of the file's until
 *    writeback.
 *  - Writes: filemap_grab_folios() for a run of pages, the first and
 *    last of them, if written in part, read from the file first (the
 *    kernel's write_begin), copy in (one copy per stretch of folios
 *    adjacent in the arena), mark uptodate and dirty, grow the size.
 *    Nothing reaches the file until writeback.
 *  - Writeback: a folio is written up to the size, never past it (a
 *    whole last page would make the file longer than its data).
 *    Reclaim writes a batch's dirty folios of the file at once, with
 *    the dirty ones that follow them; fsync hands over up to 256 at
 *    once (fd_file_writeback_folios()): neighbours become one
 *    pwritev() (at most FD_BUFFERED_RUN_FOLIOS on a buffered
 *    descriptor), and with UPC_FILE_IO_URING the transfers go out
 *    together, 32 to an io_uring submission (io/uring.c).  With
 *    FD_FILE_WRITEBACK_BACKGROUND, writes count the pages they dirty
 *    and a flusher thread writes the file back once the count, and the
 *    cache's lack of room, call for it (mm/writeback.h).
 *    A failure keeps the folio dirty and is recorded on the mapping, so
 *    data is never dropped because a write failed, and every open file
 *    hears of it from its next fsync (mm/page_writeback.c).
 *  - The size: @mapping.size, read atomically.  A write grows it before
 *    it unlocks the last folio it wrote, so writeback of that folio (it
 *    must lock it first) sees a size that covers the new bytes.
 *  - O_DIRECT: the cache is then the file's only cache.  Folios are read
 *    whole (what lies past the size zeroed after) and written whole,
 *    page-aligned as direct I/O needs; the one write it cannot make,
 *    the page holding the end of the data cut at the size, goes through
 *    the same descriptor with O_DIRECT cleared for the while, and is
 *    flushed to the device before the folio is clean
 *    (fd_file_write_buffered()).  The kernel keeps the two kinds of
 *    I/O coherent: a direct read or write of a range flushes and drops
 *    what its page cache holds there.
 *
 * Follows the kernel's generic file paths (Linux 6.x: filemap_read(),
 * generic_perform_write(), truncate_setsize() and a simple file
 * system's setattr), without mmap.  Large folios come only from
 * readahead, and only on files opened read-only (see fd_file_init()).
 *
 * Locking, outermost first:
 *
 *	@rwsem (reads shared; writes, truncation, fallocate exclusive)
 *	  folio lock (grabbed runs in index order; readahead's new folios)
 *	    i_pages lock (mm/filemap.c)
 *
 * Reclaim takes no @rwsem, and runs inside any of these callers when an
 * allocation needs memory: it only trylocks folios, and writes back a
 * dirty folio of this very file with the folio locked, never waiting
 * for @rwsem.  A reader holds a reference on each folio it copies from,
 * which reclaim cannot freeze (and waits a while for, mm/vmscan.c).  Writeback needs the folio lock, so the
 * folio lock orders it against truncation.  What reclaim or a
 * background pass has in flight (PG_writeback, no longer dirty) is
 * waited for where it matters:
 * fsync, close, punch and seek (filemap_fdatawait_range()), and a
 * shrinking truncation, which cuts the file first (a file system
 * refusing the cut leaves the size and every page as they were), then
 * stores the new size (a writeback starting later writes nothing past
 * it), waits for the writebacks that began before, cuts again what
 * they wrote past it, and only then drops the pages.
 */
#define _GNU_SOURCE	/* fallocate(), SEEK_DATA, O_DIRECT, statx(),
			 * sync_file_range() */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fdfile.h"
#include "internal.h"
#include "io/fd.h"
#include "io/uring.h"

/* Pages one step of a write grabs at once (a stack array of pointers). */
#define FD_FILE_GRAB	64u

/* ---- the backing store ---------------------------------------------------- */

/*
 * A transfer on a direct file's descriptor, or its fsync, is under way:
 * O_DIRECT must not be cleared meanwhile (struct fd_file's direct_lock).
 * A buffered write in that window would leave dirty pages in the
 * kernel's cache behind folios the cache calls clean, and an fsync
 * could take the error sync_file_range() is waiting to report.
 */
static void fd_file_io_begin(struct fd_file *ff)
{
	if (ff->direct)
		pthread_rwlock_rdlock(&ff->direct_lock);
}

static void fd_file_io_end(struct fd_file *ff)
{
	if (ff->direct)
		pthread_rwlock_unlock(&ff->direct_lock);
}

/*
 * Zero what a folio at @pos holds past @got bytes read into it and past
 * the size @size: the file's own bytes there are not the cache's (as
 * write_begin zeroes a page past i_size instead of reading it).
 */
static void fd_file_zero_tail(struct folio *folio, int64_t pos, int64_t size,
			      size_t got)
{
	size_t len = folio_size(folio);

	if (size - pos < (int64_t)got)
		got = size > pos ? (size_t)(size - pos) : 0;
	if (got < len)
		memset((char *)folio_address(folio) + got, 0, len - got);
}

/*
 * How much of a folio at @pos to read: all of it (a direct read stays
 * aligned), short of the end of the offset space, which a read may not
 * reach (the last page's end is 2^63).
 */
static size_t fd_file_read_len(const struct folio *folio, int64_t pos)
{
	size_t len = folio_size(folio);

	return (uint64_t)(INT64_MAX - pos) < len ? (size_t)(INT64_MAX - pos) :
						   len;
}

/*
 * Read a locked folio's bytes from the file, zeros past its end and past
 * the size.  The whole folio is read (fd_file_read_len()).  The folio's
 * flags are the caller's.  Return: 0 or pread()'s error.
 */
static int fd_file_fill(struct fd_file *ff, struct folio *folio)
{
	int64_t pos = folio_pos(folio), size = fd_file_size(ff);
	ssize_t n = 0;

	if (pos < size) {
		fd_file_io_begin(ff);
		n = fd_read_full(ff->fd, folio_address(folio),
				 fd_file_read_len(folio, pos), pos);
		fd_file_io_end(ff);
	}
	if (n < 0)
		return (int)n;
	fd_file_zero_tail(folio, pos, size, (size_t)n);
	return 0;
}

/* a_ops->read_folio: fill, mark uptodate on success, unlock. */
static int fd_file_read_folio(struct address_space *mapping,
			      struct folio *folio)
{
	int err = fd_file_fill(mapping->host, folio);

	if (!err)
		folio_set_uptodate(folio);
	folio_unlock(folio);
	return err;
}

/*
 * fd_file_write_buffered() - Write through a direct file's descriptor
 * with O_DIRECT cleared for the while: the writes direct I/O cannot
 * make, the page holding the end of the data cut at the size, and a run
 * the kernel cut off a block's edge (at RLIMIT_FSIZE: direct I/O then
 * answers EINVAL, where a buffered write writes up to the limit).  Goes
 * on from @done bytes of the transfer (@iov, @iovcnt at @pos) already
 * written, and sets it.
 *
 * The same descriptor, not a second one: closing any descriptor of a
 * file drops the process's POSIX record locks on it (fcntl() F_SETLK),
 * which databases hold on their files.  The flag is the open file's, so
 * every other transfer on it, and its fsync, waits meanwhile
 * (direct_lock).  The bytes are then made to reach the file's device
 * (sync_file_range()): a buffered write fails later, in the kernel's
 * writeback, after the folio was called clean, and its data would be
 * lost; this way a failure keeps the folio dirty, as a direct write's
 * does.
 *
 * Return: The transfer's bytes written, or -errno (*@done then counts
 * only bytes known to be on the device: 0 if the flush failed).
 */
static ssize_t fd_file_write_buffered(struct fd_file *ff,
				      const struct iovec *iov, int iovcnt,
				      int64_t pos, size_t *done)
{
	size_t before = *done;
	ssize_t ret;

	pthread_rwlock_wrlock(&ff->direct_lock);
	if (fcntl(ff->fd, F_SETFL, ff->fd_flags & ~O_DIRECT)) {
		ret = -errno;
		goto out;
	}
	ret = fd_rw_continue(ff->fd, true, iov, iovcnt, pos, done);
	if (fcntl(ff->fd, F_SETFL, ff->fd_flags) && ret >= 0)
		ret = -errno;
	if (*done > before &&
	    sync_file_range(ff->fd, pos + (int64_t)before,
			    (int64_t)(*done - before),
			    SYNC_FILE_RANGE_WAIT_BEFORE |
			    SYNC_FILE_RANGE_WRITE |
			    SYNC_FILE_RANGE_WAIT_AFTER)) {
		ret = -errno;
		*done = before;
	}
out:
	pthread_rwlock_unlock(&ff->direct_lock);
	return ret;
}

/*
 * Transfers one io_batch_rw() call of fd_file_writeback_folios() is
 * given at most: its arrays live on the stack of whatever thread
 * reclaims, so they stay small (a 1 MiB direct stretch is still one).
 */
#define FD_WB_TRANSFERS		32

/*
 * Send @nrw transfers of the folios' buffers @iov (each transfer's
 * buffers are a stretch of @iov, one per folio, so folio i's is
 * iov[i]), the direct ones the kernel refused buffered, and set the
 * error in @errs of each folio a transfer did not write whole.
 */
static void fd_file_write_transfers(struct fd_file *ff,
				    const struct iovec *iov, struct io_rw *rws,
				    unsigned int nrw, int *errs)
{
	unsigned int t, k;

	if (!nrw)
		return;
	fd_file_io_begin(ff);
	io_batch_rw(ff->fd, true, rws, nrw, ff->io_uring);
	fd_file_io_end(ff);
	for (t = 0; t < nrw; t++) {
		size_t off = 0;

		/* Direct I/O moves whole blocks; the kernel's refusal: buffered. */
		if (ff->direct && rws[t].res == -EINVAL)
			rws[t].res = fd_file_write_buffered(ff, rws[t].iov,
							    rws[t].iovcnt,
							    rws[t].off,
							    &rws[t].done);
		if (rws[t].res >= 0)
			continue;
		for (k = 0; k < (unsigned int)rws[t].iovcnt; k++) {
			unsigned int i = (unsigned int)(rws[t].iov - iov) + k;

			if (off + iov[i].iov_len > rws[t].done)
				errs[i] = (int)rws[t].res;
			off += iov[i].iov_len;
		}
	}
}

/*
 * a_ops->writeback_folios: write locked folios, each up to the size.
 * Neighbours go as one transfer of several buffers (with O_DIRECT up to
 * all of them: 256 contiguous pages cost one pwritev(); buffered, up to
 * FD_BUFFERED_RUN_FOLIOS (fdfile.h) a transfer), and the transfers go
 * to io_batch_rw() together, FD_WB_TRANSFERS at a time: thirty
 * scattered pages cost thirty, or one io_uring submission where the
 * file was opened with UPC_FILE_IO_URING.  A transfer that fails part
 * way fails only the folios it had not written.
 */
static void fd_file_writeback_folios(struct address_space *mapping,
				     struct folio **folios, unsigned int nr,
				     int *errs)
{
	struct fd_file *ff = mapping->host;
	int64_t size = fd_file_size(ff), next = -1;
	struct iovec iov[WRITEBACK_MAX_RUN];
	struct io_rw rws[FD_WB_TRANSFERS];
	unsigned int i, nrw = 0, tail = UINT32_MAX;

	if (nr > WRITEBACK_MAX_RUN) {	/* more than the hook is handed */
		for (i = 0; i < nr; i++)
			errs[i] = -EINVAL;
		return;
	}
	for (i = 0; i < nr; i++) {
		int64_t pos = folio_pos(folios[i]);
		size_t len = folio_size(folios[i]);

		errs[i] = 0;
		if (pos >= size)
			continue;	/* nothing of the file's there */
		if ((int64_t)len > size - pos)
			len = (size_t)(size - pos);
		iov[i].iov_base = folio_address(folios[i]);
		iov[i].iov_len = len;
		/*
		 * Direct, a cut folio (the last) is not aligned: it goes
		 * buffered, below.
		 */
		if (ff->direct && len < folio_size(folios[i])) {
			tail = i;
			continue;
		}
		/* A new transfer: not a neighbour, or a full buffered one. */
		if (pos != next ||
		    (!ff->direct &&
		     rws[nrw - 1].iovcnt == FD_BUFFERED_RUN_FOLIOS)) {
			if (nrw == FD_WB_TRANSFERS) {
				fd_file_write_transfers(ff, iov, rws, nrw,
							errs);
				nrw = 0;
			}
			rws[nrw++] = (struct io_rw){ .iov = &iov[i],
						     .off = pos };
		}
		rws[nrw - 1].iovcnt++;
		next = pos + (int64_t)len;
	}
	fd_file_write_transfers(ff, iov, rws, nrw, errs);
	/*
	 * The folio holding the end of the data, direct: a whole page
	 * would make the file longer than its data.
	 */
	if (tail != UINT32_MAX) {
		size_t done = 0;
		ssize_t ret = fd_file_write_buffered(ff, &iov[tail], 1,
						     folio_pos(folios[tail]),
						     &done);

		errs[tail] = ret < 0 ? (int)ret : 0;
	}
}

/* a_ops->writeback_folio: write a locked folio, up to the size. */
static int fd_file_writeback_folio(struct address_space *mapping,
				   struct folio *folio)
{
	int err;

	fd_file_writeback_folios(mapping, &folio, 1, &err);
	return err;
}

/*
 * a_ops->readahead: fill a run of locked folios with consecutive indices
 * with one preadv(), zeros past the end of the file; all uptodate on
 * success, none on failure (each reader then retries with read_folio).
 */
static void fd_file_readahead(struct address_space *mapping,
			      struct folio **folios, unsigned int nr)
{
	struct fd_file *ff = mapping->host;
	struct iovec iov[READAHEAD_MAX_RUN];
	int64_t pos0, size;
	unsigned int i, nread = 0;
	ssize_t n = 0;

	if (!nr || nr > READAHEAD_MAX_RUN) {
		for (i = 0; i < nr; i++)
			folio_unlock(folios[i]);	/* not read: not uptodate */
		return;
	}
	/*
	 * The folios that start below the size, read whole (a direct read
	 * stays aligned); what lies past the size is zeroed after.
	 */
	pos0 = folio_pos(folios[0]);
	size = fd_file_size(ff);
	for (i = 0; i < nr && folio_pos(folios[i]) < size; i++) {
		iov[i].iov_base = folio_address(folios[i]);
		iov[i].iov_len = fd_file_read_len(folios[i],
						  folio_pos(folios[i]));
		nread++;
	}
	if (nread) {
		fd_file_io_begin(ff);
		n = fd_readv_full(ff->fd, iov, (int)nread, pos0);
		fd_file_io_end(ff);
	}
	for (i = 0; i < nr; i++) {
		if (n >= 0) {
			int64_t pos = folio_pos(folios[i]);
			size_t off = (size_t)(pos - pos0);

			fd_file_zero_tail(folios[i], pos, size,
					  (size_t)n > off ? (size_t)n - off : 0);
			folio_set_uptodate(folios[i]);
		}
		folio_unlock(folios[i]);
	}
}

static const struct address_space_operations fd_file_aops = {
	.read_folio = fd_file_read_folio,
	.writeback_folio = fd_file_writeback_folio,
	.writeback_folios = fd_file_writeback_folios,
	.readahead = fd_file_readahead,
};

/* ---- set-up ---------------------------------------------------------------- */

/*
 * For a descriptor with O_DIRECT: can whole pages at page offsets go to
 * and from it directly?  Where the file system does not say (statx()
 * without STATX_DIOALIGN), open() taking O_DIRECT is the answer.
 * Return: 0, -EINVAL, or statx()'s error.
 */
static int fd_file_direct_ok(int fd)
{
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx))
		return -errno;
	if (!(stx.stx_mask & STATX_DIOALIGN))
		return 0;
	if (!stx.stx_dio_offset_align ||
	    stx.stx_dio_offset_align > UPC_PAGE_SIZE ||
	    stx.stx_dio_mem_align > UPC_PAGE_SIZE)
		return -EINVAL;
	return 0;
}

int fd_file_init(struct fd_file *ff, struct upc_arena *arena, int fd,
		 unsigned int flags)
{
	pthread_rwlockattr_t attr;
	unsigned long wb_thresh = 0;
	struct stat st;
	int status, err;

	status = fcntl(fd, F_GETFL);
	if (status < 0)
		return -EBADF;
	if ((status & O_ACCMODE) == O_WRONLY || (status & O_PATH))
		return -EBADF;
	if (status & O_APPEND)
		return -EINVAL;
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (status & O_DIRECT) {
		err = fd_file_direct_ok(fd);
		if (err)
			return err;
	}
	memset(ff, 0, sizeof(*ff));
	ff->writable = (status & O_ACCMODE) == O_RDWR;
	ff->direct = ff->writable && (status & O_DIRECT);
	ff->fd_flags = status;
	/* Writers first, as shmem's: readers in a loop must not starve them. */
	if (pthread_rwlockattr_init(&attr))
		return -ENOMEM;
	pthread_rwlockattr_setkind_np(
		&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	err = pthread_rwlock_init(&ff->rwsem, &attr);
	pthread_rwlockattr_destroy(&attr);
	if (err)
		return -ENOMEM;
	/* The same kind: a stream of transfers must not starve a writer. */
	if (pthread_rwlockattr_init(&attr)) {
		pthread_rwlock_destroy(&ff->rwsem);
		return -ENOMEM;
	}
	pthread_rwlockattr_setkind_np(
		&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	err = pthread_rwlock_init(&ff->direct_lock, &attr);
	pthread_rwlockattr_destroy(&attr);
	if (err) {
		pthread_rwlock_destroy(&ff->rwsem);
		return -ENOMEM;
	}
	if (pthread_mutex_init(&ff->seek_lock, NULL)) {
		pthread_rwlock_destroy(&ff->direct_lock);
		pthread_rwlock_destroy(&ff->rwsem);
		return -ENOMEM;
	}
	/*
	 * Large folios only where nothing is written: dirt is tracked per
	 * folio, and a 4 KiB write into a 512 KiB folio would write back
	 * 512 KiB.  Read-only, a stream's readahead grows its folios.
	 * Readahead in the background only with O_DIRECT: nothing else
	 * reads ahead for the device then (mm/readahead.c says why not
	 * for buffered descriptors).
	 */
	address_space_init(&ff->mapping, arena, &fd_file_aops,
			   (ff->writable ? 0 : 1UL << AS_LARGE_FOLIOS) |
			   (status & O_DIRECT ? 1UL << AS_ASYNC_READAHEAD : 0));
	ff->mapping.host = ff;
	ff->mapping.size = (int64_t)st.st_size;
	ff->fd = fd;
	ff->io_uring = flags & FD_FILE_IO_URING;
	if (ff->writable && (flags & FD_FILE_WRITEBACK_BACKGROUND)) {
		wb_thresh = upc_arena_limit(arena) / FD_WB_BACKGROUND_SHARE;
		if (!wb_thresh)
			wb_thresh = 1;
	}
	background_writeback_init(&ff->wb, &ff->mapping, wb_thresh);
	return 0;
}

void fd_file_destroy(struct fd_file *ff)
{
	background_writeback_stop(&ff->wb);
	truncate_inode_pages(&ff->mapping, 0);
	/*
	 * Reclaim may have taken the last folio out just before: it is done
	 * with the mapping once it drops the i_pages lock.
	 */
	xa_lock(&ff->mapping.i_pages);
	xa_unlock(&ff->mapping.i_pages);
	xa_destroy(&ff->mapping.i_pages);
	pthread_rwlock_destroy(&ff->rwsem);
	pthread_rwlock_destroy(&ff->direct_lock);
	pthread_mutex_destroy(&ff->seek_lock);
}

/* ---- reads ----------------------------------------------------------------- */

/*
 * The part of [*@pos, @end) an uptodate folio holds: its address, its
 * length in *@n; *@pos is moved past it.
 */
static const char *fd_file_part(struct folio *folio, int64_t *pos,
				int64_t end, size_t *n)
{
	size_t offset = (size_t)(*pos - folio_pos(folio));

	*n = folio_size(folio) - offset;
	/* Not the folio's end, which is 2^63 for the last page: no overflow. */
	if ((uint64_t)(end - *pos) < *n)
		*n = (size_t)(end - *pos);
	*pos += (int64_t)*n;
	return (const char *)folio_address(folio) + offset;
}

/* Copy the part of [*@pos, @end) an uptodate folio holds; move *@pos. */
static void fd_file_copy_out(struct folio *folio, struct iov_iter *iter,
			     int64_t *pos, int64_t end)
{
	size_t n;
	const char *addr = fd_file_part(folio, pos, end, &n);

	copy_to_iter(addr, n, iter);
}

/*
 * The uptodate folio holding byte @pos, with a reference, for a reader
 * of [@pos, @end) that found it @missing (else cached, not uptodate):
 * a missing page is read ahead first (the request's pages, more for a
 * sequential stream); then the page is waited for or read.  Caller
 * holds the rwsem shared.  Return: the folio, or an ERR_PTR() of the
 * read's error.
 */
static struct folio *fd_file_fetch_folio(struct fd_file *ff, int64_t pos,
					 int64_t end, bool missing)
{
	pgoff_t index = (pgoff_t)pos >> UPC_PAGE_SHIFT;
	pgoff_t last = (pgoff_t)(end - 1) >> UPC_PAGE_SHIFT;

	if (missing)
		page_cache_sync_ra(&ff->mapping, &ff->ra, index,
				   last - index + 1);
	return mapping_read_folio_gfp(&ff->mapping, index, GFP_KERNEL);
}

/*
 * Mark a cached folio a read found accessed, unless the file's last read
 * ended inside it: a reader going through a large folio in small reads
 * uses it once, and marking it each time would make a one-pass stream
 * look like a working set and activate it (the kernel's filemap_read()
 * checks the same with prev_pos).
 */
static void fd_file_mark_accessed(struct fd_file *ff, struct folio *folio)
{
	int64_t last = __atomic_load_n(&ff->ra.prev_pos, __ATOMIC_RELAXED) - 1;
	int64_t start = folio_pos(folio);

	if (last >= start && (uint64_t)(last - start) < folio_size(folio))
		return;
	folio_mark_accessed(folio);
}

/*
 * A read met @folio: where it is the first of the stream's async
 * readahead window, the next window goes out now (the kernel's
 * filemap_readahead()), a window ahead of the reader.
 */
static void fd_file_ra_check(struct fd_file *ff, struct folio *folio)
{
	if (folio_test_readahead(folio))
		page_cache_async_ra(&ff->mapping, &ff->ra, folio);
}

/* fd_file_fetch_folio() for a caller that has not looked the page up. */
static struct folio *fd_file_get_folio(struct fd_file *ff, int64_t pos,
				       int64_t end)
{
	void *entry = filemap_get_entry(&ff->mapping,
					(pgoff_t)pos >> UPC_PAGE_SHIFT);

	if (!entry || xa_is_value(entry))
		return fd_file_fetch_folio(ff, pos, end, true);
	fd_file_ra_check(ff, entry);
	if (folio_test_uptodate(entry)) {
		fd_file_mark_accessed(ff, entry);
		return entry;
	}
	folio_put(entry);
	return fd_file_fetch_folio(ff, pos, end, false);
}

/*
 * The batch found the page at *@pos @missing, or not uptodate: read it
 * (fd_file_fetch_folio()) and copy.  Return: 0 or -errno.
 */
static int fd_file_read_slow(struct fd_file *ff, struct iov_iter *iter,
			     int64_t *pos, int64_t end, bool missing)
{
	struct folio *folio = fd_file_fetch_folio(ff, *pos, end, missing);

	if (IS_ERR(folio))
		return (int)PTR_ERR(folio);
	fd_file_copy_out(folio, iter, pos, end);
	folio_put(folio);
	return 0;
}

/*
 * Reads take runs of cached folios a batch at a time (one tree walk per
 * batch, as seed 002's shmem read); a page that is missing or not
 * uptodate goes the slow way, which reads ahead.
 */
ssize_t fd_file_read_iter(struct fd_file *ff, struct iov_iter *iter,
			  int64_t pos)
{
	int64_t start = pos, end, size;
	struct copy_ahead ca;
	int err = 0;

	copy_ahead_init(&ca, iter);
	pthread_rwlock_rdlock(&ff->rwsem);
	size = fd_file_size(ff);
	if (pos >= size || !iov_iter_count(iter))
		goto out;
	end = size - pos < (int64_t)iov_iter_count(iter) ?
	      size : pos + (int64_t)iov_iter_count(iter);
	while (!err && pos < end) {
		struct folio_batch fbatch;
		unsigned int i, nr;

		folio_batch_init(&fbatch);
		filemap_get_read_batch(&ff->mapping,
				       (pgoff_t)pos >> UPC_PAGE_SHIFT,
				       (pgoff_t)(end - 1) >> UPC_PAGE_SHIFT,
				       &fbatch);
		nr = folio_batch_count(&fbatch);
		if (!nr || !folio_test_uptodate(fbatch.folios[0])) {
			if (nr)		/* being read: maybe a window's first */
				fd_file_ra_check(ff, fbatch.folios[0]);
			folio_batch_release(&fbatch);
			err = fd_file_read_slow(ff, iter, &pos, end, !nr);
			continue;
		}
		/*
		 * Up to the first not uptodate: the next step starts there.
		 * The copies are queued, to prefetch across the folios (or
		 * join runs), and made while the batch still holds them.
		 */
		for (i = 0; i < nr && folio_test_uptodate(fbatch.folios[i]);
		     i++) {
			const char *addr;
			size_t n;

			fd_file_ra_check(ff, fbatch.folios[i]);
			if (i)
				folio_mark_accessed(fbatch.folios[i]);
			else
				fd_file_mark_accessed(ff, fbatch.folios[0]);
			addr = fd_file_part(fbatch.folios[i], &pos, end, &n);
			copy_ahead_add(&ca, addr, n);
		}
		copy_ahead_flush(&ca);
		folio_batch_release(&fbatch);
	}
	__atomic_store_n(&ff->ra.prev_pos, pos, __ATOMIC_RELAXED);
out:
	pthread_rwlock_unlock(&ff->rwsem);
	return pos > start ? (ssize_t)(pos - start) : err;
}

int fd_file_for_each_folio(struct fd_file *ff, int64_t pos, size_t len,
			   fd_file_folio_fn fn, void *arg)
{
	int64_t end, size;
	int err = 0;

	pthread_rwlock_rdlock(&ff->rwsem);
	size = fd_file_size(ff);
	if (pos >= size || !len)
		goto out;
	end = (uint64_t)(size - pos) < len ? size : pos + (int64_t)len;
	while (pos < end) {
		struct folio *folio = fd_file_get_folio(ff, pos, end);
		size_t offset, n;
		bool more;

		if (IS_ERR(folio)) {
			err = (int)PTR_ERR(folio);
			break;
		}
		offset = (size_t)(pos - folio_pos(folio));
		n = folio_size(folio) - offset;
		if ((uint64_t)(end - pos) < n)
			n = (size_t)(end - pos);
		more = fn(folio, offset, pos, n, arg);
		folio_put(folio);
		pos += (int64_t)n;
		if (!more)
			break;
	}
	__atomic_store_n(&ff->ra.prev_pos, pos, __ATOMIC_RELAXED);
out:
	pthread_rwlock_unlock(&ff->rwsem);
	return err;
}

/* ---- writes ---------------------------------------------------------------- */

/* Set the size the cache's users and its writeback see. */
static void fd_file_set_size(struct fd_file *ff, int64_t size)
{
	__atomic_store_n(&ff->mapping.size, size, __ATOMIC_RELEASE);
}

/* Grow the size to @end if it is smaller.  Caller holds the rwsem. */
static void fd_file_size_extend(struct fd_file *ff, int64_t end)
{
	if (end > fd_file_size(ff))
		fd_file_set_size(ff, end);
}

/*
 * Whether the write [@pos, @end) covers a locked @folio in part while
 * the folio does not hold the file's bytes: then the bytes around the
 * write must be read first.
 */
static bool fd_file_write_partial(const struct folio *folio, int64_t pos,
				  int64_t end)
{
	int64_t fpos = folio_pos(folio);

	if (folio_test_uptodate(folio))
		return false;
	/* Not the folio's end, which is 2^63 for the last page: no overflow. */
	return pos > fpos || (uint64_t)(end - fpos) < folio_size(folio);
}

/*
 * Read the file's bytes around the write [@pos, @end) into the first and
 * the last of @nr locked folios, the only ones it can cover in part.
 * Return: how many of the folios the write can go into: @nr, or fewer,
 * up to the one whose read failed, with the error in *@err.
 */
static unsigned int fd_file_write_prepare(struct fd_file *ff,
					  struct folio **folios,
					  unsigned int nr, int64_t pos,
					  int64_t end, int *err)
{
	if (fd_file_write_partial(folios[0], pos, end)) {
		*err = fd_file_fill(ff, folios[0]);
		if (*err)
			return 0;
	}
	if (nr > 1 && fd_file_write_partial(folios[nr - 1], pos, end)) {
		*err = fd_file_fill(ff, folios[nr - 1]);
		if (*err)
			return nr - 1;
	}
	return nr;
}

/*
 * Copy the write's part [@pos, @end) that @nr locked folios hold from
 * @iter (which is at @pos), one copy for each run of folios that follow
 * each other in the arena (folios_adjacent()): a copy of many pages
 * into memory not in the CPU's caches beats a copy per page (a 256 MiB
 * file written in 64 KiB and 1 MiB blocks: 10% to 16% faster).  Then
 * all of them are dirtied with one i_pages lock round trip (none if
 * none was clean), not one each (the file's a_ops leave dirtying to
 * filemap_dirty_folio(), which filemap_dirty_folios() does in bulk).
 * Return: the new position; *@dirtied counts the pages that were clean.
 */
static int64_t fd_file_write_folios(struct fd_file *ff, struct folio **folios,
				    unsigned int nr, struct iov_iter *iter,
				    int64_t pos, int64_t end,
				    unsigned long *dirtied)
{
	struct folio **written = folios;
	unsigned int nr_written = nr;

	while (nr) {
		unsigned int i, n = folios_adjacent(folios, nr);
		int64_t to = folio_end_before(folios[n - 1], end);

		copy_from_iter((char *)folio_address(folios[0]) +
			       (pos - folio_pos(folios[0])),
			       (size_t)(to - pos), iter);
		/* Uptodate once the bytes are in: lockless readers trust it. */
		for (i = 0; i < n; i++)
			folio_set_uptodate(folios[i]);
		fd_file_size_extend(ff, to);
		folios += n;
		nr -= n;
		pos = to;
	}
	*dirtied += filemap_dirty_folios(&ff->mapping, written, nr_written);
	return pos;
}

ssize_t fd_file_write_iter(struct fd_file *ff, struct iov_iter *iter,
			   int64_t pos)
{
	int64_t start = pos, end = pos + (int64_t)iov_iter_count(iter);
	int err = 0;

	if (!ff->writable)
		return -EBADF;
	pthread_rwlock_wrlock(&ff->rwsem);
	while (!err && pos < end) {
		pgoff_t index = (pgoff_t)pos >> UPC_PAGE_SHIFT;
		pgoff_t last = (pgoff_t)(end - 1) >> UPC_PAGE_SHIFT;
		unsigned int nr = last - index + 1 < FD_FILE_GRAB ?
				  (unsigned int)(last - index + 1) :
				  FD_FILE_GRAB;
		struct folio *folios[FD_FILE_GRAB];
		unsigned long dirtied = 0;
		unsigned int ready;
		int got, i;

		got = filemap_grab_folios(&ff->mapping, index, nr, folios);
		if (got < 0) {
			/* Full of pages the file system would not take? */
			err = upc_arena_alloc_error(ff->mapping.arena);
			break;
		}
		ready = fd_file_write_prepare(ff, folios, (unsigned int)got,
					      pos, end, &err);
		pos = fd_file_write_folios(ff, folios, ready, iter, pos, end,
					   &dirtied);
		for (i = 0; i < got; i++) {
			folio_unlock(folios[i]);
			folio_put(folios[i]);
		}
		background_writeback_dirtied(&ff->wb, dirtied);
	}
	pthread_rwlock_unlock(&ff->rwsem);
	return pos > start ? (ssize_t)(pos - start) : err;
}

/* ---- size, space, sync and seeks ---------------------------------------- */

int fd_file_truncate(struct fd_file *ff, int64_t size)
{
	int err = 0;

	if (!ff->writable)
		return -EINVAL;
	pthread_rwlock_wrlock(&ff->rwsem);
	if (size >= fd_file_size(ff)) {
		/* Growing: the file first, so the cache never claims more. */
		if (ftruncate(ff->fd, (off_t)size))
			err = -errno;
		else
			fd_file_set_size(ff, size);
		goto out;
	}
	/*
	 * The file first: if it refuses, nothing changed.  Only then the
	 * size (a writeback counting on the old one would have written a
	 * folio past @size as nothing, and let reclaim drop it) ...
	 */
	if (ftruncate(ff->fd, (off_t)size)) {
		err = -errno;
		goto out;
	}
	fd_file_set_size(ff, size);
	/*
	 * ... then the writebacks that began with the old size are waited
	 * for, and what they wrote past @size is cut again; later ones see
	 * the new size and write nothing past it.
	 */
	filemap_fdatawait_range(&ff->mapping, size, INT64_MAX);
	if (ftruncate(ff->fd, (off_t)size))
		err = -errno;
	truncate_inode_pages(&ff->mapping, size);
out:
	pthread_rwlock_unlock(&ff->rwsem);
	return err;
}

int fd_file_fallocate(struct fd_file *ff, int mode, int64_t pos, int64_t len)
{
	int err = 0;

	if (!ff->writable)
		return -EBADF;
	pthread_rwlock_wrlock(&ff->rwsem);
	/*
	 * A punch makes the range clean first, as ext4 does: written back,
	 * and reclaim's writebacks in it waited for.  Writers are out, so
	 * nothing in it can be dirtied again and written into the hole
	 * after it is made; and if the file system refuses the punch, the
	 * data is in the file.
	 */
	if (mode & FALLOC_FL_PUNCH_HOLE)
		err = filemap_write_and_wait_range(&ff->mapping, pos,
						   pos + len - 1);
	if (!err && fallocate(ff->fd, mode, (off_t)pos, (off_t)len))
		err = -errno;
	if (!err && (mode & FALLOC_FL_PUNCH_HOLE))
		truncate_inode_pages_range(&ff->mapping, pos, pos + len - 1);
	else if (!err && !(mode & FALLOC_FL_KEEP_SIZE))
		fd_file_size_extend(ff, pos + len);
	pthread_rwlock_unlock(&ff->rwsem);
	return err;
}

int fd_file_write_back(struct fd_file *ff, errseq_t *since)
{
	return file_write_and_wait_range(&ff->mapping, since, 0, INT64_MAX);
}

int fd_file_flush(struct fd_file *ff, bool datasync)
{
	int ret;

	fd_file_io_begin(ff);
	ret = datasync ? fdatasync(ff->fd) : fsync(ff->fd);
	if (ret)
		ret = -errno;
	fd_file_io_end(ff);
	return ret;
}

int fd_file_fsync(struct fd_file *ff, errseq_t *since, bool datasync)
{
	int err = fd_file_write_back(ff, since);
	int ret = fd_file_flush(ff, datasync);

	return err ? err : ret;
}

int64_t fd_file_seek(struct fd_file *ff, int64_t pos, int whence)
{
	off_t saved;
	int64_t ret;

	pthread_rwlock_rdlock(&ff->rwsem);
	if (pos >= fd_file_size(ff)) {
		ret = -ENXIO;
		goto out;
	}
	/* The file answers for the data it holds: give it all of it. */
	ret = filemap_write_and_wait_range(&ff->mapping, 0, INT64_MAX);
	if (ret)
		goto out;
	/* The caller's file offset is left where it was. */
	pthread_mutex_lock(&ff->seek_lock);
	saved = lseek(ff->fd, 0, SEEK_CUR);
	ret = lseek(ff->fd, (off_t)pos, whence);
	if (ret < 0)
		ret = -errno;
	if (saved >= 0)
		lseek(ff->fd, saved, SEEK_SET);
	pthread_mutex_unlock(&ff->seek_lock);
out:
	pthread_rwlock_unlock(&ff->rwsem);
	return ret;
}
