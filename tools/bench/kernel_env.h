/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/kernel_env.h - what this machine offers the kernel
 * baselines: a memory cgroup to hold the kernel's caches to a limit.
 *
 * A kernel baseline that needs one is skipped with a reason, and the
 * reason must say truly why: that the machine has no writable memory
 * cgroup, or that it has one and the benchmark does not use it yet.
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
 * bench_memcg_state() - The end of a skip reason about memory cgroups.
 *
 * Return: "this machine gives no writable memory cgroup" or "running it
 * in one is not implemented yet".
 */
const char *bench_memcg_state(void);

#endif /* UPCACHE_TOOLS_BENCH_KERNEL_ENV_H */
