/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/shm_kernel.h - the kernel's side of the shmem suite: a
 * file on a real tmpfs (/dev/shm) of the same kind as upcache's, read
 * with pread() in the same process.
 *
 * The kernel's huge policy cannot be chosen per file: a tmpfs mount has
 * one (its huge= option, "never" when absent), and
 * /sys/kernel/mm/transparent_hugepage/shmem_enabled overrides every
 * mount when it says "deny" or "force".  So both the huge and the
 * nohuge rows of the suite compare with whatever the machine gives, and
 * struct shmk_info records what that is for the report.
 */
#ifndef UPCACHE_TOOLS_BENCH_SHM_KERNEL_H
#define UPCACHE_TOOLS_BENCH_SHM_KERNEL_H

#include <stdbool.h>
#include <stddef.h>

/**
 * enum shmk_kind - what a file of the suite holds.
 * @SHMK_NORMAL: Written: data in every page.
 * @SHMK_FALLOC: fallocate()d, never written: allocated, reads as zeros.
 * @SHMK_HOLE: ftruncate()d to its size: nothing allocated.
 * @SHMK_NR_KINDS: how many.
 */
enum shmk_kind {
	SHMK_NORMAL,
	SHMK_FALLOC,
	SHMK_HOLE,
	SHMK_NR_KINDS
};

/* The kinds' names in row names: "normal", "falloc", "hole". */
extern const char *const shmk_kind_names[SHMK_NR_KINDS];

/**
 * struct shmk_info - where the kernel's files go, and their huge policy.
 * @usable: The directory is on a tmpfs and writable.
 * @dir: The directory.
 * @why: When not @usable, why not.
 * @mount_huge: The huge= option of the tmpfs mounted at @dir ("never"
 *	without one, "unknown" if @dir is not a mount point).
 * @shmem_enabled: The selected value of shmem_enabled ("unknown" if it
 *	cannot be read).
 * @effective: The policy the kernel's files get: @mount_huge, unless
 *	@shmem_enabled is "deny" (never) or "force" (always).
 */
struct shmk_info {
	bool usable;
	char dir[256];
	char why[160];
	char mount_huge[32];
	char shmem_enabled[32];
	char effective[32];
};

/**
 * shmk_probe() - Find out whether and how the kernel side can run.
 * @dir: The tmpfs directory ("/dev/shm").
 * @info: The result.
 *
 * Context: Reads /proc/self/mounts and sysfs; creates nothing.
 */
void shmk_probe(const char *dir, struct shmk_info *info);

/**
 * shmk_require_space() - Make the kernel side unusable, with the reason,
 * if the directory has less than @bytes free: a small tmpfs (a
 * container's 64 MiB /dev/shm) skips the baseline instead of failing
 * the run part-way.
 * @info: From shmk_probe().
 * @bytes: The most the kernel's files take at once.
 */
void shmk_require_space(struct shmk_info *info, size_t bytes);

/**
 * shmk_create() - Create an unlinked file of a kind in the directory.
 * @info: A usable directory, from shmk_probe().
 * @kind: What the file holds.
 * @data: Its contents for SHMK_NORMAL (@size bytes); else unused.
 * @size: Its size in bytes.
 *
 * The file is unlinked at once, so that nothing is left behind however
 * the run ends; its memory goes when the descriptor is closed.  Its
 * allocated blocks are checked against its kind.
 *
 * Context: Dies (exit status 2) if the file cannot be made, or is not
 * of its kind.
 * Return: The file descriptor, open for reading and writing.
 */
int shmk_create(const struct shmk_info *info, enum shmk_kind kind,
		const unsigned char *data, size_t size);

#endif /* UPCACHE_TOOLS_BENCH_SHM_KERNEL_H */
