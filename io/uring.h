/* SPDX-License-Identifier: MIT */
/*
 * io/uring.h - many transfers on one file at once: one io_uring
 * submission where the kernel allows it, a pread()/pwrite() loop where
 * it does not (internal).
 */
#ifndef UPCACHE_IO_URING_H
#define UPCACHE_IO_URING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "fd.h"

/**
 * struct io_rw - one transfer of a batch.
 * @iov: Its buffers (the array is not changed, and must stay valid
 *	until io_batch_rw() returns).
 * @iovcnt: How many, 1 to IOV_MAX.
 * @off: File offset, not negative.
 * @res: Set by io_batch_rw(): the bytes moved (a read's are fewer than
 *	asked only at the end of the file; a write's are all of them), or
 *	a negative errno.
 * @done: Set by io_batch_rw(): the bytes moved, also when @res is an
 *	error (a write that failed part way wrote the first @done).
 */
struct io_rw {
	const struct iovec *iov;
	int iovcnt;
	int64_t off;
	ssize_t res;
	size_t done;
};

/**
 * io_batch_rw() - Do @nr transfers on @fd, all reads or all writes.
 * @fd: The file.
 * @write: Write the buffers; else read into them.
 * @rws: The transfers: their @res and @done are set.
 * @nr: How many.
 * @uring: Send them through io_uring where this thread can.
 *
 * With @uring, two or more go to the kernel as one io_uring submission
 * when this thread has a ring (made on its first batch, kept until the
 * thread exits); completions the kernel cut short are finished with
 * fd_rw_continue(), so a transfer is whole, at the end of the file, or
 * an error, as with io/fd.h.  Without @uring, a single transfer, or
 * where io_uring cannot be had (an old kernel, a seccomp filter, a ring
 * that failed), each goes through fd_rw_continue() directly.  The transfers may run in any order and
 * at once: they must not overlap.
 *
 * Context: May sleep.  Any thread; each uses its own ring.
 */
void io_batch_rw(int fd, bool write, struct io_rw *rws, unsigned int nr,
		 bool uring);

/**
 * io_uring_usable() - Whether this thread's batches can use io_uring.
 *
 * Context: Makes this thread's ring if it has none yet.
 * Return: true if it has a working ring.
 */
bool io_uring_usable(void);

#endif /* UPCACHE_IO_URING_H */
