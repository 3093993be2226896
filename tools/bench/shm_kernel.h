/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/shm_kernel.h - the kernel's side of the shmem suite: a
 * file on a real tmpfs of the same kind as upcache's, read with pread()
 * in the same process.
 *
 * The kernel's huge policy cannot be chosen per file: a tmpfs mount has
 * one (its huge= option, "never" when absent), and
 * /sys/kernel/mm/transparent_hugepage/shmem_enabled overrides every
 * mount when it says "deny" or "force".  So a comparison with upcache's
 * 2 MiB folios is like for like only on a tmpfs mounted with huge pages,
 * and one with its 4 KiB folios only on one without: shmk_find() looks
 * for such a tmpfs among those mounted (/dev/shm first), and struct
 * shmk_info records what it found for the report, a mismatch included.
 * Nothing is mounted here: upcache-bench does not change the system.
 */
#ifndef UPCACHE_TOOLS_BENCH_SHM_KERNEL_H
#define UPCACHE_TOOLS_BENCH_SHM_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

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

/* Where the probes read the mount table and the global shmem policy. */
#define SHMK_MOUNTS		"/proc/self/mounts"
#define SHMK_SHMEM_ENABLED	\
	"/sys/kernel/mm/transparent_hugepage/shmem_enabled"

/**
 * struct shmk_where - where shmk_find() looks for a tmpfs and reads the
 * policies; the tests point it at tables of their own.
 * @first: The directory tried first, and used when no candidate gives
 *	the pages wanted ("/dev/shm").
 * @mounts: The mount table (SHMK_MOUNTS) whose tmpfs mount points are
 *	tried after @first, in its order, and where each directory's huge=
 *	option is read; NULL for none.
 * @shmem_enabled: The file with the global policy (SHMK_SHMEM_ENABLED).
 */
struct shmk_where {
	const char *first;
	const char *mounts;
	const char *shmem_enabled;
};

/**
 * struct shmk_info - where the kernel's files go, and their huge policy.
 * @usable: The directory is on a tmpfs, writable, and has room.
 * @matched: shmk_find() found a usable directory whose files get the
 *	pages it was asked for (always false after shmk_probe()).
 * @dir: The directory.
 * @why: When not @usable, why not.
 * @mount_huge: The huge= option of the tmpfs mounted at @dir ("never"
 *	without one, "unknown" if @dir is not a mount point).
 * @shmem_enabled: The selected value of shmem_enabled ("unknown" if it
 *	cannot be read).
 * @effective: The policy the kernel's files get: @mount_huge, unless
 *	@shmem_enabled is "deny" (never) or "force" (always).
 * @pages: The pages a file written whole and read with pread() gets
 *	under @effective: "2m" (always, within_size), "4k" (never, and
 *	advise, since no madvise() is made) or "unknown".
 * @mismatch: When shmk_find() found no match but @dir is usable: which
 *	pages the kernel's files get instead, and what would give the ones
 *	asked for; else empty.
 */
struct shmk_info {
	bool usable;
	bool matched;
	char dir[256];
	char why[160];
	char mount_huge[32];
	char shmem_enabled[32];
	char effective[32];
	const char *pages;
	char mismatch[512];
};

/*
 * The system's tables as text: pure parsers of an open file, which the
 * probes below give the real tables, and tests/fuzz/fuzz_bench_sysfiles.c
 * text of its own.
 */

/**
 * shmk_parse_enabled() - The selected word of shmem_enabled: the one in
 * brackets, as in "always within_size advise [never] deny force".
 * @f: The file, read from its first line (of which 255 bytes are looked
 *	at).
 * @out: The word, or "unknown" without one; cut to fit.
 * @len: Size of @out (at least 1).
 */
void shmk_parse_enabled(FILE *f, char *out, size_t len);

/**
 * struct shmk_mount - one line of a mount table, the fields used here.
 * @point: The mount point (octal escapes, as "\040", left as they are:
 *	such a directory is then not found, and not used).
 * @type: The file system type.
 * @opts: The mount options.
 */
struct shmk_mount {
	char point[256];
	char type[64];
	char opts[512];
};

/**
 * shmk_next_mount() - Read the next line of a mount table into @m.
 * @f: The table, as /proc/self/mounts: "SOURCE POINT TYPE OPTIONS ...",
 *	its fields separated by white space.
 * @m: The line's fields.
 *
 * A line too long for @m (or a field too long for its place) is
 * skipped whole rather than read in pieces, and so is one with fewer
 * than four fields.
 *
 * Return: false at the end of the table.
 */
bool shmk_next_mount(FILE *f, struct shmk_mount *m);

/**
 * shmk_parse_mount_huge() - The huge= option of the tmpfs mounted at
 * @dir in a mount table: its value, "never" without one, "unknown" if
 * no tmpfs is mounted at @dir.  The last matching line wins, as it is
 * the one on top.
 * @f: The table (shmk_next_mount()).
 * @dir: The mount point.
 * @out: The result, cut to fit.
 * @len: Size of @out (at least 1).
 */
void shmk_parse_mount_huge(FILE *f, const char *dir, char *out, size_t len);

/**
 * shmk_pages_prose() - @info->pages for people: "4 KiB", "2 MiB" or
 * "unknown-size", to go before "pages".
 * @info: From shmk_probe() or shmk_find().
 *
 * Return: A string literal.
 */
const char *shmk_pages_prose(const struct shmk_info *info);

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
 * shmk_find() - Find a tmpfs whose files get the pages of upcache's.
 * @where: Where to look: @where->first, then every tmpfs mount point of
 *	@where->mounts in order.
 * @huge: 2 MiB pages are wanted (upcache's file is huge=always), else
 *	4 KiB ones.
 * @bytes: The room the kernel's files need (shmk_require_space()).
 * @info: The result: the first candidate that is usable, has @bytes free
 *	and gives the pages wanted, with @info->matched set; if none does,
 *	@where->first as shmk_probe() and shmk_require_space() find it,
 *	with the reason in @info->mismatch when it is usable.
 *
 * Mounting a tmpfs of the right policy before the run (docs/bench.md)
 * is how a machine whose /dev/shm has the other one gets a like for
 * like figure: this only finds it.
 *
 * Context: Reads the mount table and sysfs; creates nothing.
 */
void shmk_find(const struct shmk_where *where, bool huge, size_t bytes,
	       struct shmk_info *info);

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
