// SPDX-License-Identifier: MIT
/*
 * io/fd.c - pread()/pwrite() loops for file descriptors used as backing
 * stores (io/fd.h).
 *
 * A regular file may move fewer bytes than asked (a signal, a file
 * system's own limits) without being at its end; the page cache needs a
 * whole folio or a clear reason why not, so each call loops until the
 * transfer is done, the file ends (reads) or an error stops it.  An
 * error after part of a read is still the error: bytes that stop early
 * for a reason other than the end would otherwise read as a hole.
 *
 * With O_DIRECT, a read moves whole blocks except at the end of the
 * file, and asking again at an offset off a block's edge may be -EINVAL
 * (file systems on the old direct I/O code check the alignment before
 * the end): so a direct read that comes back short, ending off an edge
 * of the smallest block, has met the end (fd_direct_eof()), and one
 * asked again after a short count that answers EINVAL has too (the
 * device's blocks may be larger than that smallest).
 */
#define _GNU_SOURCE	/* O_DIRECT */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fd.h"

static __thread struct io_counters io_counters;

/* The smallest block direct I/O moves (the logical block size's floor). */
#define FD_DIRECT_BLOCK	512

/* Is @fd open with O_DIRECT? */
static bool fd_is_direct(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	return flags >= 0 && (flags & O_DIRECT);
}

/*
 * Did a read that has moved @done bytes from @off, short of what was
 * asked, meet the end of the file?  Only a direct read can tell without
 * asking again; a buffered one asks.
 */
static bool fd_direct_eof(int fd, int64_t off, size_t done)
{
	return ((off + (int64_t)done) & (FD_DIRECT_BLOCK - 1)) &&
	       fd_is_direct(fd);
}

struct io_counters *io_thread_counters(void)
{
	return &io_counters;
}

int fd_iov_merge(const struct iovec *iov, int nr, size_t skip,
		 struct iovec *chunk, int *taken)
{
	int i, m = 0;

	for (i = 0; i < nr; i++) {
		char *base = (char *)iov[i].iov_base + (i ? 0 : skip);
		size_t len = iov[i].iov_len - (i ? 0 : skip);

		if (m && (char *)chunk[m - 1].iov_base +
			 chunk[m - 1].iov_len == base) {
			chunk[m - 1].iov_len += len;
			continue;
		}
		if (m == FD_IOV_CHUNK)
			break;
		chunk[m++] = (struct iovec){ .iov_base = base, .iov_len = len };
	}
	*taken = i;
	return m;
}

/*
 * fd_rw_call() - One system call of a transfer: preadv()/pwritev(), or
 * pread()/pwrite() for a single buffer.  The kernel copies and checks
 * a vector before it moves a byte; for a 4 KiB transfer from its page
 * cache that was about a tenth of the cost (random 4 KiB writes to
 * anonymous memory swapping to a file, where every write swaps a page
 * in and most swap one out, ran 9% slower through the vector calls).
 */
static ssize_t fd_rw_call(int fd, bool write, const struct iovec *vec, int nr,
			  off_t at)
{
	if (nr == 1)
		return write ? pwrite(fd, vec->iov_base, vec->iov_len, at) :
			       pread(fd, vec->iov_base, vec->iov_len, at);
	return write ? pwritev(fd, vec, nr, at) : preadv(fd, vec, nr, at);
}

ssize_t fd_rw_continue(int fd, bool write, const struct iovec *iov,
		       int iovcnt, int64_t off, size_t *done)
{
	struct iovec chunk[FD_IOV_CHUNK];
	size_t skip = *done;

	/* Step over the buffers the bytes already moved filled. */
	while (iovcnt > 0 && skip >= iov->iov_len) {
		skip -= iov->iov_len;
		iov++;
		iovcnt--;
	}
	/*
	 * Each call moves the next buffers: a merged copy of them (with the
	 * first cut by @skip, what an earlier short transfer already moved
	 * of it) where it holds them all or the first is cut, else the
	 * buffers as they are.
	 */
	while (iovcnt > 0) {
		const struct iovec *vec = iov;
		int m, taken, nr = iovcnt < IOV_MAX ? iovcnt : IOV_MAX;
		off_t at = (off_t)(off + (int64_t)*done);
		ssize_t n;

		/* Short so far, and direct: the end, if off a block's edge. */
		if (!write && *done && fd_direct_eof(fd, off, *done))
			break;
		m = fd_iov_merge(iov, nr, skip, chunk, &taken);
		if (taken == nr || skip) {
			vec = chunk;
			nr = m;
		}
		io_counters.syscalls++;
		io_counters.iovecs += (uint64_t)nr;
		n = fd_rw_call(fd, write, vec, nr, at);
		if (n < 0 && errno == EINTR)
			continue;
		/* Asked again after a short direct read: the end (above). */
		if (n < 0 && errno == EINVAL && !write && *done &&
		    fd_is_direct(fd))
			break;
		if (n < 0)
			return -errno;
		if (!n && write)
			return -EIO;	/* no progress and no reason */
		if (!n)
			break;		/* the end of the file */
		*done += (size_t)n;
		io_counters.bytes += (uint64_t)n;
		n += (ssize_t)skip;
		while (iovcnt > 0 && (size_t)n >= iov->iov_len) {
			n -= (ssize_t)iov->iov_len;
			iov++;
			iovcnt--;
		}
		skip = (size_t)n;
	}
	return (ssize_t)*done;
}

ssize_t fd_readv_full(int fd, const struct iovec *iov, int iovcnt,
		      int64_t off)
{
	size_t done = 0;

	io_counters.transfers++;
	return fd_rw_continue(fd, false, iov, iovcnt, off, &done);
}

ssize_t fd_read_full(int fd, void *buf, size_t len, int64_t off)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	return fd_readv_full(fd, &iov, 1, off);
}

int fd_write_full(int fd, const void *buf, size_t len, int64_t off)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	size_t done = 0;
	ssize_t n;

	io_counters.transfers++;
	n = fd_rw_continue(fd, true, &iov, 1, off, &done);

	return n < 0 ? (int)n : 0;
}
