// SPDX-License-Identifier: MIT
/*
 * tools/bench/shm_kernel.c - the kernel's side of the shmem suite: files
 * on a real tmpfs and the huge policy they get (shm_kernel.h).
 *
 * Owns finding out whether a directory is a usable tmpfs, reading the
 * mount's huge= option and shmem_enabled, choosing among the tmpfs
 * mounts one whose policy gives the pages wanted, and creating a file of
 * each kind.  A kind is checked by its allocated blocks (st_blocks), the
 * only thing that tells a hole from written zeros from the outside.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "shm_kernel.h"
#include "util.h"

/* Where shmk_probe() looks: the running system's tables. */
static const struct shmk_where shmk_system = {
	.mounts = SHMK_MOUNTS, .shmem_enabled = SHMK_SHMEM_ENABLED,
};

/* Written in pieces of this size (any size works; this one is cheap). */
#define SHMK_WRITE_CHUNK	(2UL << 20)

const char *const shmk_kind_names[SHMK_NR_KINDS] = {
	"normal", "falloc", "hole",
};

/* shmk_copy() - strncpy() that always terminates. */
static void shmk_copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src);
}

void shmk_parse_enabled(FILE *f, char *out, size_t len)
{
	char line[256], *open, *close;

	shmk_copy(out, len, "unknown");
	if (fgets(line, sizeof(line), f)) {
		open = strchr(line, '[');
		close = open ? strchr(open, ']') : NULL;
		if (close) {
			*close = '\0';
			shmk_copy(out, len, open + 1);
		}
	}
}

/*
 * shmk_read_enabled() - The selected word of shmem_enabled (the file
 * @path): the one in brackets, as in
 * "always within_size advise [never] deny force".
 */
static void shmk_read_enabled(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "r");

	shmk_copy(out, len, "unknown");
	if (!f)
		return;
	shmk_parse_enabled(f, out, len);
	fclose(f);
}

/*
 * shmk_mount_fields() - Fields 2 to 4 of mount table line @line into @m.
 * sscanf() cuts a field at its width and reads the rest of it as the
 * next field (a long mount point's tail as the type), so a line with a
 * field too long for @m is not used rather than misread.
 */
static bool shmk_mount_fields(const char *line, struct shmk_mount *m)
{
	int end[3] = { 0, 0, 0 };
	size_t i;

	if (sscanf(line, "%*s %255s%n %63s%n %511s%n", m->point, &end[0],
		   m->type, &end[1], m->opts, &end[2]) != 3)
		return false;
	for (i = 0; i < 3; i++)
		if (line[end[i]] && !isspace((unsigned char)line[end[i]]))
			return false;
	return true;
}

bool shmk_next_mount(FILE *f, struct shmk_mount *m)
{
	char line[1024];

	while (fgets(line, sizeof(line), f)) {
		if (!strchr(line, '\n') && !feof(f)) {
			int c;

			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			continue;
		}
		if (shmk_mount_fields(line, m))
			return true;
	}
	return false;
}

/*
 * shmk_option() - The value of option @name in the comma-separated mount
 * options @opts (which it cuts at that option's end), or NULL.  A whole
 * option's name must match: "nohuge=" or "a=huge=" is not huge=.
 */
static const char *shmk_option(char *opts, const char *name)
{
	size_t len = strlen(name);
	char *save = NULL, *o;

	for (o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save))
		if (!strncmp(o, name, len) && o[len] == '=')
			return o + len + 1;
	return NULL;
}

void shmk_parse_mount_huge(FILE *f, const char *dir, char *out, size_t len)
{
	struct shmk_mount m;

	shmk_copy(out, len, "unknown");
	while (shmk_next_mount(f, &m)) {
		const char *huge;

		if (strcmp(m.point, dir) || strcmp(m.type, "tmpfs"))
			continue;
		huge = shmk_option(m.opts, "huge");
		shmk_copy(out, len, huge ? huge : "never");
	}
}

/*
 * shmk_read_mount_huge() - The huge= option of the tmpfs mounted at
 * @dir, in the mount table @mounts (shmk_parse_mount_huge()).
 */
static void shmk_read_mount_huge(const char *mounts, const char *dir,
				 char *out, size_t len)
{
	FILE *f = mounts ? fopen(mounts, "r") : NULL;

	shmk_copy(out, len, "unknown");
	if (!f)
		return;
	shmk_parse_mount_huge(f, dir, out, len);
	fclose(f);
}

/*
 * shmk_effective() - What the kernel's files get (see struct shmk_info):
 * the policy, and the pages a file written whole and read with pread()
 * gets under it.  "advise" gives huge pages only to a range madvise()d
 * MADV_HUGEPAGE, and the suite maps nothing.
 */
static void shmk_effective(struct shmk_info *info)
{
	const char *e = info->mount_huge;

	if (!strcmp(info->shmem_enabled, "deny"))
		e = "never";
	else if (!strcmp(info->shmem_enabled, "force"))
		e = "always";
	shmk_copy(info->effective, sizeof(info->effective), e);
	if (!strcmp(e, "always") || !strcmp(e, "within_size"))
		info->pages = "2m";
	else if (!strcmp(e, "never") || !strcmp(e, "advise"))
		info->pages = "4k";
	else
		info->pages = "unknown";
}

const char *shmk_pages_prose(const struct shmk_info *info)
{
	if (!strcmp(info->pages, "2m"))
		return "2 MiB";
	return strcmp(info->pages, "4k") ? "unknown-size" : "4 KiB";
}

/* shmk_probe_in() - shmk_probe(), reading the tables @where names. */
static void shmk_probe_in(const struct shmk_where *where, const char *dir,
			  struct shmk_info *info)
{
	struct statfs fs;

	memset(info, 0, sizeof(*info));
	shmk_copy(info->dir, sizeof(info->dir), dir);
	shmk_read_enabled(where->shmem_enabled, info->shmem_enabled,
			  sizeof(info->shmem_enabled));
	shmk_read_mount_huge(where->mounts, dir, info->mount_huge,
			     sizeof(info->mount_huge));
	shmk_effective(info);
	if (statfs(dir, &fs)) {
		snprintf(info->why, sizeof(info->why), "%s: %s", dir,
			 strerror(errno));
		return;
	}
	if (fs.f_type != TMPFS_MAGIC) {
		snprintf(info->why, sizeof(info->why), "%s is not a tmpfs",
			 dir);
		return;
	}
	if (access(dir, W_OK)) {
		snprintf(info->why, sizeof(info->why), "%s: %s", dir,
			 strerror(errno));
		return;
	}
	info->usable = true;
}

/**
 * shmk_probe() - Find out whether and how the kernel side can run.
 * @dir: The tmpfs directory.
 * @info: The result.
 */
void shmk_probe(const char *dir, struct shmk_info *info)
{
	shmk_probe_in(&shmk_system, dir, info);
}

void shmk_require_space(struct shmk_info *info, size_t bytes)
{
	struct statfs fs;
	unsigned long long avail;

	if (!info->usable || statfs(info->dir, &fs))
		return;
	avail = (unsigned long long)fs.f_bavail * (unsigned long long)fs.f_bsize;
	if (avail >= bytes)
		return;
	info->usable = false;
	snprintf(info->why, sizeof(info->why), "%.64s has %llu MiB free, the "
		 "kernel's file needs %zu MiB", info->dir, avail >> 20,
		 bytes >> 20);
}

/*
 * shmk_try() - Probe @dir for shmk_find(); true if it is usable, has
 * @bytes free and gives the pages @want.
 */
static bool shmk_try(const struct shmk_where *where, const char *dir,
		     const char *want, size_t bytes, struct shmk_info *info)
{
	shmk_probe_in(where, dir, info);
	shmk_require_space(info, bytes);
	info->matched = info->usable && !strcmp(info->pages, want);
	return info->matched;
}

/*
 * shmk_explain() - Fill @info->mismatch: the pages @info->dir gives
 * instead of those wanted, and what would give those.  A global
 * shmem_enabled of deny or force decides for every tmpfs, so no mount
 * helps then.
 */
static void shmk_explain(struct shmk_info *info, bool huge)
{
	const char *theirs = shmk_pages_prose(info);
	const char *ours = huge ? "2 MiB" : "4 KiB";
	bool global = !strcmp(info->shmem_enabled, "deny") ||
		      !strcmp(info->shmem_enabled, "force");

	if (global)
		snprintf(info->mismatch, sizeof(info->mismatch),
			 "shmem_enabled [%s] gives every tmpfs huge=%s: the "
			 "kernel's file in %.100s used %s pages where "
			 "upcache's used %s folios, and no mount can change "
			 "that", info->shmem_enabled, info->effective,
			 info->dir, theirs, ours);
	else if (!strcmp(info->pages, "unknown"))
		snprintf(info->mismatch, sizeof(info->mismatch),
			 "%.100s is no tmpfs mount point of its own: the "
			 "kernel's file there used %s pages where upcache's "
			 "used %s folios; mount a huge=%s tmpfs for a "
			 "like-for-like figure (docs/bench.md)", info->dir,
			 theirs, ours, huge ? "always" : "never");
	else
		snprintf(info->mismatch, sizeof(info->mismatch),
			 "the kernel's tmpfs at %.100s gives huge=%s: its file "
			 "used %s pages where upcache's used %s folios; mount "
			 "a huge=%s tmpfs for a like-for-like figure "
			 "(docs/bench.md)", info->dir, info->effective,
			 theirs, ours, huge ? "always" : "never");
}

/*
 * shmk_system_mount() - A tmpfs the system keeps for itself (cgroups,
 * runtime state): never a place for a benchmark's file, writable or not.
 */
static bool shmk_system_mount(const char *point)
{
	static const char *const system[] = { "/sys", "/proc", "/run" };
	size_t i, n;

	for (i = 0; i < sizeof(system) / sizeof(system[0]); i++) {
		n = strlen(system[i]);
		if (!strncmp(point, system[i], n) &&
		    (point[n] == '/' || !point[n]))
			return true;
	}
	return false;
}

/**
 * shmk_find() - Find a tmpfs whose files get the pages of upcache's.
 * @where: Where to look.
 * @huge: 2 MiB pages are wanted, else 4 KiB ones.
 * @bytes: The room the kernel's files need.
 * @info: The result.
 */
void shmk_find(const struct shmk_where *where, bool huge, size_t bytes,
	       struct shmk_info *info)
{
	const char *want = huge ? "2m" : "4k";
	struct shmk_info first;
	struct shmk_mount m;
	FILE *f;

	if (shmk_try(where, where->first, want, bytes, &first)) {
		*info = first;
		return;
	}
	f = where->mounts ? fopen(where->mounts, "r") : NULL;
	while (f && shmk_next_mount(f, &m)) {
		if (strcmp(m.type, "tmpfs") || !strcmp(m.point, where->first) ||
		    shmk_system_mount(m.point))
			continue;
		if (shmk_try(where, m.point, want, bytes, info)) {
			fclose(f);
			return;
		}
	}
	if (f)
		fclose(f);
	/* None matched: the first directory, as it was probed. */
	*info = first;
	if (info->usable)
		shmk_explain(info, huge);
}

/* shmk_write_all() - Write @size bytes of @data at offset 0; dies if not. */
static void shmk_write_all(int fd, const unsigned char *data, size_t size)
{
	size_t done = 0;

	while (done < size) {
		size_t n = size - done < SHMK_WRITE_CHUNK ?
			   size - done : SHMK_WRITE_CHUNK;
		ssize_t got = pwrite(fd, data + done, n, (off_t)done);

		if (got <= 0)
			bench_die("shmem: writing the kernel's file: %s",
				  got ? strerror(errno) : "short write");
		done += (size_t)got;
	}
}

/*
 * shmk_check_kind() - Is the file of its kind?  Its size, and its blocks:
 * all of them allocated (normal, falloc) or none (hole).
 */
static void shmk_check_kind(int fd, enum shmk_kind kind, size_t size)
{
	struct stat st;
	uint64_t bytes;

	if (fstat(fd, &st))
		bench_die("shmem: fstat of the kernel's file: %s",
			  strerror(errno));
	bytes = (uint64_t)st.st_blocks * 512;
	if ((size_t)st.st_size != size ||
	    (kind == SHMK_HOLE ? bytes != 0 : bytes < size))
		bench_die("shmem: the kernel's %s file is %lld bytes with "
			  "%llu allocated, expected %zu with %s",
			  shmk_kind_names[kind], (long long)st.st_size,
			  (unsigned long long)bytes, size,
			  kind == SHMK_HOLE ? "none" : "all");
}

/**
 * shmk_create() - Create an unlinked file of a kind in the directory.
 * @info: A usable directory.
 * @kind: What the file holds.
 * @data: Its contents for SHMK_NORMAL.
 * @size: Its size in bytes.
 *
 * Return: The file descriptor.
 */
int shmk_create(const struct shmk_info *info, enum shmk_kind kind,
		const unsigned char *data, size_t size)
{
	char path[sizeof(info->dir) + 32];
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/upcache-bench-shmem.XXXXXX",
		 info->dir);
	fd = mkstemp(path);
	if (fd < 0)
		bench_die("shmem: cannot create %s: %s", path,
			  strerror(errno));
	unlink(path);
	switch (kind) {
	case SHMK_NORMAL:
		shmk_write_all(fd, data, size);
		break;
	case SHMK_FALLOC:
		if (fallocate(fd, 0, 0, (off_t)size))
			err = errno;
		break;
	default:
		if (ftruncate(fd, (off_t)size))
			err = errno;
		break;
	}
	if (err)
		bench_die("shmem: cannot size the kernel's %s file (%zu MiB "
			  "in %s): %s", shmk_kind_names[kind], size >> 20,
			  info->dir, strerror(err));
	shmk_check_kind(fd, kind, size);
	return fd;
}
