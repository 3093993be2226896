/* SPDX-License-Identifier: MIT */
/*
 * io/fd.h - a file descriptor as a backing store: whole transfers at an
 * offset, retried over short counts and EINTR (internal).
 */
#ifndef UPCACHE_IO_FD_H
#define UPCACHE_IO_FD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

/**
 * struct io_counters - what one thread's backing-store I/O cost, for
 * tests and the benchmark (deterministic, unlike its time).
 * @transfers: Transfers asked for: fd_readv_full(), fd_read_full() and
 *	fd_write_full() calls, and io_batch_rw()'s entries (io/uring.h).
 * @syscalls: System calls made for them: each preadv()/pwritev(), and
 *	io/uring.c's submissions and waits.
 * @uring_batches: Batches that went through io_uring.
 * @bytes: Bytes moved, either way.
 * @iovecs: Buffers handed to preadv()/pwritev() and io_uring, after
 *	neighbours in memory were merged (fd_iov_merge()).
 */
struct io_counters {
	uint64_t transfers;
	uint64_t syscalls;
	uint64_t uring_batches;
	uint64_t bytes;
	uint64_t iovecs;
};

/**
 * io_thread_counters() - This thread's counters.
 *
 * Context: Any thread; each has its own, never shared.
 * Return: They, for reading and resetting by this thread only.
 */
struct io_counters *io_thread_counters(void);

/*
 * Entries of the copy of the buffers fd_rw_continue() makes on the
 * stack for one preadv()/pwritev() (and io/uring.c for one of its
 * transfers): buffers that follow each other in memory merged into one
 * entry, the first cut by what an earlier short transfer moved.  Buffers that do not merge into this many go to the
 * call as they are, up to IOV_MAX, unless the first must be cut: a
 * copy of 32 unmerged buffers capped every call at 32 pages, and a
 * 1 MiB direct read of order-0 folios took eight trips to the device.
 *
 * Why merge: 1 MiB O_DIRECT pwritev()s of 256 page buffers moved 9% to
 * 12% less than of a single 1 MiB buffer (3018 and 3086 against 3413
 * and 3373 MiB/s in two runs, overwriting a file on ext4 over a virtual
 * disk, Linux 6.18), and folios of a stretch are often neighbours in
 * the arena.
 */
#define FD_IOV_CHUNK	32

/**
 * fd_iov_merge() - Copy buffers, merging neighbours.
 * @iov: The buffers.
 * @nr: How many, 0 or more.
 * @skip: Bytes to leave out at the start of the first (less than its
 *	length).
 * @chunk: Receives at most FD_IOV_CHUNK entries.
 * @taken: Receives how many of the buffers @chunk holds: @nr, or fewer
 *	when it ran out of entries.
 *
 * Each buffer is merged with the entry before where it starts at that
 * entry's end.
 *
 * Context: Any thread.
 * Return: The entries of @chunk filled.
 */
int fd_iov_merge(const struct iovec *iov, int nr, size_t skip,
		 struct iovec *chunk, int *taken);

/**
 * fd_rw_continue() - Go on with a transfer of which some bytes have
 * already moved (preadv() or pwritev() in a loop).
 * @fd: The file.
 * @write: Write the buffers at @off; else read into them.
 * @iov: The transfer's buffers, all of them (the array is not changed).
 * @iovcnt: How many, 0 or more.
 * @off: The transfer's file offset, not negative.
 * @done: Bytes of the transfer already moved; updated as more move.
 *
 * A read stops early only at the end of the file; a write only on an
 * error.  io/uring.c finishes short completions with it.  Buffers that
 * follow each other in memory go to the system call as one.
 *
 * Context: May sleep (the system calls).
 * Return: The transfer's bytes moved, *@done; or the call's negative
 * errno, *@done then saying how many had moved before it (a write that
 * makes no progress and names no error is -EIO).
 */
ssize_t fd_rw_continue(int fd, bool write, const struct iovec *iov,
		       int iovcnt, int64_t off, size_t *done);

/**
 * fd_read_full() - Read up to @len bytes at @off, stopping only at the
 * end of the file.
 * @fd: The file.
 * @buf: Where the bytes go.
 * @len: How many are wanted.
 * @off: File offset, not negative.
 *
 * Context: May sleep (the system call).
 * Return: The bytes read (fewer than @len only at the end of the file);
 * pread()'s negative errno if any call failed, even after some bytes.
 */
ssize_t fd_read_full(int fd, void *buf, size_t len, int64_t off);

/**
 * fd_readv_full() - fd_read_full() into several buffers (preadv()).
 * @fd: The file.
 * @iov: The buffers (the array is not changed).
 * @iovcnt: How many, 1..IOV_MAX.
 * @off: File offset, not negative.
 *
 * Context: May sleep (the system call).
 * Return: As fd_read_full(), for the buffers' total length.
 */
ssize_t fd_readv_full(int fd, const struct iovec *iov, int iovcnt,
		      int64_t off);

/**
 * fd_write_full() - Write all @len bytes at @off.
 * @fd: The file.
 * @buf: The bytes.
 * @len: How many.
 * @off: File offset, not negative.
 *
 * Context: May sleep (the system call).
 * Return: 0; pwrite()'s negative errno; -EIO if pwrite() wrote nothing
 * and named no error.
 */
int fd_write_full(int fd, const void *buf, size_t len, int64_t off);

#endif /* UPCACHE_IO_FD_H */
