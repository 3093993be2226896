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
