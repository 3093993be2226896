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

ssize_t fd_read_full(int fd, void *buf, size_t len, int64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done,
				  (off_t)(off + (int64_t)done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

ssize_t fd_readv_full(int fd, const struct iovec *iov, int iovcnt,
		      int64_t off)
{
	struct iovec first;
	size_t done = 0;

	/* After a short read, go on from the middle of a buffer. */
	while (iovcnt > 0) {
		ssize_t n = preadv(fd, iov, iovcnt, (off_t)(off + (int64_t)done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			break;
		done += (size_t)n;
		while (iovcnt > 0 && (size_t)n >= iov->iov_len) {
			n -= (ssize_t)iov->iov_len;
			iov++;
			iovcnt--;
		}
		if (iovcnt > 0 && n) {
			first.iov_base = (char *)iov->iov_base + n;
			first.iov_len = iov->iov_len - (size_t)n;
			/* The rest of this buffer alone, then the others. */
			n = fd_read_full(fd, first.iov_base, first.iov_len,
					 off + (int64_t)done);
			if (n < 0)
				return n;
			done += (size_t)n;
			if ((size_t)n < first.iov_len)
				break;
			iov++;
			iovcnt--;
		}
	}
	return (ssize_t)done;
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
