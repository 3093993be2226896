/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/kernel_env.h - what this machine offers the kernel
 * baselines: a memory cgroup to hold the kernel's caches to a limit, a
 * swap device, and which filesystems can give pages back at all.
 *
 * A kernel baseline that needs what is missing is skipped with a reason,
 * and the reason must say truly why: what this machine lacks, or what it
 * has and the benchmark does not use.
 */
#ifndef UPCACHE_TOOLS_BENCH_KERNEL_ENV_H
#define UPCACHE_TOOLS_BENCH_KERNEL_ENV_H

#include <stdbool.h>
#include <stdio.h>

/**
 * bench_controllers_list() - Does a cgroup.controllers file list
 * @controller?  A pure parser of the open file, which
 * bench_memcg_writable() gives the cgroup v2 root's, and
 * tests/fuzz/fuzz_bench_sysfiles.c text of its own.
 * @f: The file: one line of names separated by spaces (of which 511
 *	bytes are looked at).
 * @controller: The name, as "memory".
 *
 * Return: true if the first line names @controller.
 */
bool bench_controllers_list(FILE *f, const char *controller);

/**
 * bench_swaps_list_device() - Does a /proc/swaps file list a device?
 * A pure parser of the open file, as bench_controllers_list().
 * @f: The file: a title line, then one line per device.
 *
 * Return: true if it has more than one line (a last one without its
 * newline counts), however long.
 */
bool bench_swaps_list_device(FILE *f);

/**
 * bench_memcg_writable() - Could this process make a memory cgroup?
 *
 * True if the cgroup v2 root delegates the memory controller and its
 * subtree_control is writable, or if a cgroup v1 memory hierarchy is
 * mounted at /sys/fs/cgroup/memory and writable.
 */
bool bench_memcg_writable(void);

/**
 * bench_has_swap() - Has this machine a swap device (/proc/swaps)?
 */
bool bench_has_swap(void);

/**
 * bench_is_tmpfs() - Is @dir on tmpfs, whose pages leave memory only
 * for swap?
 * @dir: A directory.
 *
 * Return: true if statfs() says tmpfs; false otherwise or on error.
 */
bool bench_is_tmpfs(const char *dir);

#endif /* UPCACHE_TOOLS_BENCH_KERNEL_ENV_H */
