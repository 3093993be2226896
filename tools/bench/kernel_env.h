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

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
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

/**
 * bench_cgroup_path() - This process's cgroup in one hierarchy, from a
 * /proc/self/cgroup file.  A pure parser of the open file, as
 * bench_controllers_list().
 * @f: The file: lines "ID:CONTROLLERS:PATH", of any length; the first
 *	line that is @controller's counts.
 * @controller: A cgroup v1 controller ("memory"), found in a line's
 *	comma-separated list; or "" for the cgroup v2 line ("0::PATH").
 * @path: Where the path goes: absolute, as the file gives it.
 * @len: Its size.
 *
 * Return: 0; -ENOENT if no line is @controller's, or its path is not
 * absolute; -ENAMETOOLONG if the path does not fit in @len.
 */
int bench_cgroup_path(FILE *f, const char *controller, char *path,
		      size_t len);

/**
 * struct bench_memcg - a memory cgroup made for a kernel baseline, a
 * child of the cgroup this process is in.  The baseline's child
 * processes move into it (bench_memcg_enter()), so the page cache they
 * fault in is charged to it and held to its limit; this process stays
 * where it was.
 * @dir: Its directory.
 * @v2: In the cgroup v2 hierarchy (memory.max, memory.reclaim), rather
 *	than v1's memory hierarchy (memory.limit_in_bytes,
 *	memory.force_empty).
 */
struct bench_memcg {
	char dir[PATH_MAX];
	bool v2;
};

/**
 * bench_memcg_create() - Make a memory cgroup with a limit.
 * @cg: The cgroup to fill.
 * @name: Its directory's name, under this process's own cgroup.
 * @limit: Its memory limit in bytes.
 * @why: Where the reason goes if it cannot be made.
 * @len: Its size.
 *
 * Uses cgroup v2 if its root delegates the memory controller (enabling
 * it in this process's cgroup, which the kernel refuses for a non-root
 * cgroup with processes in it), else the v1 memory hierarchy mounted at
 * /sys/fs/cgroup/memory.  A directory left by an earlier run of the
 * same name is reused.
 *
 * Return: 0; or a negative errno with @why saying what was missing, and
 * @cg->dir empty.
 */
int bench_memcg_create(struct bench_memcg *cg, const char *name,
		       uint64_t limit, char *why, size_t len);

/**
 * bench_memcg_enter() - Move the calling process into @cg.
 * @cg: A cgroup from bench_memcg_create().
 *
 * Return: 0 or a negative errno.
 */
int bench_memcg_enter(const struct bench_memcg *cg);

/**
 * bench_memcg_reclaim() - Reclaim all the memory @cg can give back: its
 * clean page cache leaves, as under memory pressure (shadow entries
 * stay behind for refault detection).
 * @cg: A cgroup from bench_memcg_create().
 *
 * Return: 0 or a negative errno.  Memory that cannot go is not an error.
 */
int bench_memcg_reclaim(const struct bench_memcg *cg);

/**
 * bench_memcg_remove() - Remove @cg, once no process is in it.  Its
 * remaining charges go to its parent, as the kernel does on rmdir.
 * @cg: A cgroup from bench_memcg_create().
 *
 * Return: 0 or a negative errno.
 */
int bench_memcg_remove(const struct bench_memcg *cg);

#endif /* UPCACHE_TOOLS_BENCH_KERNEL_ENV_H */
