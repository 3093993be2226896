/* SPDX-License-Identifier: MIT */
/*
 * io/fd.h - a file descriptor as a backing store: whole transfers at an
 * offset, retried over short counts and EINTR (internal).
 */
#ifndef UPCACHE_IO_FD_H
#define UPCACHE_IO_FD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

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
