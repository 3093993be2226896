/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/kernel_disk.h - block devices made for the kernel
 * baselines: a loop device over a file in memory, standing in for the
 * seeds' ramdisks (this kernel has no brd).
 *
 * The image behind a loop device is an unnamed tmpfs file, and the
 * device detaches itself on its last close, so nothing outlives the run
 * that made it.
 */
#ifndef UPCACHE_TOOLS_BENCH_KERNEL_DISK_H
#define UPCACHE_TOOLS_BENCH_KERNEL_DISK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/**
 * struct bench_loop - a loop device attached by bench_loop_attach().
 * @fd: The device, open (-1: none).
 * @dev: Its path, as "/dev/loop3".
 * @direct_io: It reads and writes its image with direct I/O.
 */
struct bench_loop {
	int fd;
	char dev[32];
	bool direct_io;
};

/**
 * bench_loop_attach() - Attach @image to a free loop device: 4 KiB
 * blocks, direct I/O asked for (the kernel may refuse it; see
 * @l->direct_io), detaching itself on its last close.
 * @l: The device to fill.
 * @image: The file behind it; the device holds its own reference, so
 *	the caller may close it after.
 * @read_only: The device is read-only (and opened so); else read-write.
 * @purpose: What it is for, in @why: "to stand in for the seed's
 *	ramdisk".
 * @why: Where the reason goes if none can be had.
 * @len: Its size.
 *
 * Return: 0; -ENOENT (no /dev/loop-control: no loop driver), -EACCES or
 * -EPERM (not root), -EBUSY (other users took every free device tried),
 * or another negative errno of open() or ioctl(), with @l->fd -1.
 */
int bench_loop_attach(struct bench_loop *l, int image, bool read_only,
		      const char *purpose, char *why, size_t len);

/**
 * bench_loop_close() - Close @l, which detaches it once nothing else
 * holds it open.
 * @l: A device from bench_loop_attach(), or one whose @fd is -1.
 */
void bench_loop_close(struct bench_loop *l);

#endif /* UPCACHE_TOOLS_BENCH_KERNEL_DISK_H */
