// SPDX-License-Identifier: MIT
/*
 * io/fd.c - pread()/pwrite() loops for file descriptors used as backing
 * stores (io/fd.h).
 *
 * A regular file may return fewer bytes than asked (a signal, a file
 * system's own limits) without being at its end; the page cache needs a
 * whole folio or a clear reason why not, so each call loops until the
 * transfer is done, the file ends (reads) or an error stops it.  An
 * error after part of a read is still the error: bytes that stop early
 * for a reason other than the end would otherwise read as a hole.
 */
#include <errno.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fd.h"

/* iovecs one preadv() of fd_readv_full() is given at most. */
#define FD_IOV_CHUNK	32

ssize_t fd_readv_full(int fd, const struct iovec *iov, int iovcnt,
		      int64_t off)
{
	struct iovec chunk[FD_IOV_CHUNK];
	size_t done = 0, skip = 0;

	/*
	 * Each call reads into a copy of the next buffers, the first cut
	 * by @skip, what an earlier short read already filled of it.
	 */
	while (iovcnt > 0) {
		int i, nr = iovcnt < FD_IOV_CHUNK ? iovcnt : FD_IOV_CHUNK;
		ssize_t n;

		for (i = 0; i < nr; i++)
			chunk[i] = iov[i];
		chunk[0].iov_base = (char *)chunk[0].iov_base + skip;
		chunk[0].iov_len -= skip;
		n = preadv(fd, chunk, nr, (off_t)(off + (int64_t)done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			break;
		done += (size_t)n;
		n += (ssize_t)skip;
		while (iovcnt > 0 && (size_t)n >= iov->iov_len) {
			n -= (ssize_t)iov->iov_len;
			iov++;
			iovcnt--;
		}
		skip = (size_t)n;
	}
	return (ssize_t)done;
}

ssize_t fd_read_full(int fd, void *buf, size_t len, int64_t off)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	return fd_readv_full(fd, &iov, 1, off);
}

int fd_write_full(int fd, const void *buf, size_t len, int64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pwrite(fd, (const char *)buf + done, len - done,
				   (off_t)(off + (int64_t)done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
	return 0;
}
