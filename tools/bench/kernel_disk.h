/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/kernel_disk.h - block devices made for the kernel
 * baselines: a loop device over a file in memory, standing in for the
 * seeds' ramdisks (this kernel has no brd), and swap on one.
 *
 * The image behind a loop device is an unnamed tmpfs file, and the
 * device detaches itself on its last close, so nothing outlives the run
 * that made it, except swap: a device swapped on stays on until
 * bench_swap_off(), for every process of the machine.
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
 * holds it open (swap does, until bench_swap_off()).
 * @l: A device from bench_loop_attach(), or one whose @fd is -1.
 */
void bench_loop_close(struct bench_loop *l);

/**
 * bench_swap_format() - Write a swap header (format version 1, no bad
 * pages, no label) at the start of a swap area of @bytes, as mkswap
 * does.
 * @fd: The area's file or device, open for writing.
 * @bytes: Its size: at least 10 pages (the kernel's least).
 *
 * Return: 0; -EINVAL if @bytes is too small or too large for the
 * header's 32-bit page count; or pwrite()'s negative errno (-ENOSPC for
 * a short write).
 */
int bench_swap_format(int fd, uint64_t bytes);

/**
 * bench_swaps_used_kib() - A device's swap in use, from a /proc/swaps
 * file.  A pure parser of the open file (tests/fuzz/
 * fuzz_bench_sysfiles.c gives it text of its own).
 * @f: The file: a title line, then "NAME TYPE SIZE USED PRIORITY" per
 *	device, fields separated by blanks, lines of any length.
 * @dev: The device's name, as the first field gives it.
 * @used_kib: Its USED field, in KiB.
 *
 * Return: 0; -ENOENT if no line after the title names @dev; -EINVAL if
 * that line's USED field is not a decimal number.
 */
int bench_swaps_used_kib(FILE *f, const char *dev, uint64_t *used_kib);

/**
 * bench_swap_on() - Swap on @dev, ahead of any other swap device (the
 * highest priority), so what the baseline swaps goes to it.
 * @dev: A block device holding a swap header (bench_swap_format()).
 *
 * Return: 0 or swapon()'s negative errno: -EPERM (not root), -EINVAL
 * (no valid header), -EBUSY (already on).
 */
int bench_swap_on(const char *dev);

/**
 * bench_swap_off() - Stop swapping on @dev: what it holds is read back
 * into memory first (none, if what swapped to it has exited).
 * @dev: A device bench_swap_on() turned on.
 *
 * Return: 0 or swapoff()'s negative errno.
 */
int bench_swap_off(const char *dev);

#endif /* UPCACHE_TOOLS_BENCH_KERNEL_DISK_H */
