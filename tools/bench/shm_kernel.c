// SPDX-License-Identifier: MIT
/*
 * tools/bench/shm_kernel.c - the kernel's side of the shmem suite: files
 * on a real tmpfs and the huge policy they get (shm_kernel.h).
 *
 * Owns finding out whether the directory is a usable tmpfs, reading the
 * mount's huge= option and shmem_enabled, and creating a file of each
 * kind.  A kind is checked by its allocated blocks (st_blocks), the
 * only thing that tells a hole from written zeros from the outside.
 */
#define _GNU_SOURCE
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

#define SHMK_SHMEM_ENABLED \
	"/sys/kernel/mm/transparent_hugepage/shmem_enabled"

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

/*
 * shmk_read_enabled() - The selected word of shmem_enabled: the one in
 * brackets, as in "always within_size advise [never] deny force".
 */
static void shmk_read_enabled(char *out, size_t len)
{
	char line[256], *open, *close;
	FILE *f = fopen(SHMK_SHMEM_ENABLED, "r");

	shmk_copy(out, len, "unknown");
	if (!f)
		return;
	if (fgets(line, sizeof(line), f)) {
		open = strchr(line, '[');
		close = open ? strchr(open, ']') : NULL;
		if (close) {
			*close = '\0';
			shmk_copy(out, len, open + 1);
		}
	}
	fclose(f);
}

/*
 * shmk_read_mount_huge() - The huge= option of the tmpfs mounted at
 * @dir; the last matching line of /proc/self/mounts wins, as it is the
 * one on top.
 */
static void shmk_read_mount_huge(const char *dir, char *out, size_t len)
{
	char point[256], type[64], opts[512];
	FILE *f = fopen("/proc/self/mounts", "r");

	shmk_copy(out, len, "unknown");
	if (!f)
		return;
	while (fscanf(f, "%*s %255s %63s %511s %*d %*d", point, type,
		      opts) == 3) {
		char *huge;

		if (strcmp(point, dir) || strcmp(type, "tmpfs"))
			continue;
		huge = strstr(opts, "huge=");
		if (!huge) {
			shmk_copy(out, len, "never");
			continue;
		}
		huge += strlen("huge=");
		huge[strcspn(huge, ",")] = '\0';
		shmk_copy(out, len, huge);
	}
	fclose(f);
}

/* shmk_effective() - What the kernel's files get (see struct shmk_info). */
static void shmk_effective(struct shmk_info *info)
{
	const char *e = info->mount_huge;

	if (!strcmp(info->shmem_enabled, "deny"))
		e = "never";
	else if (!strcmp(info->shmem_enabled, "force"))
		e = "always";
	shmk_copy(info->effective, sizeof(info->effective), e);
}

/**
 * shmk_probe() - Find out whether and how the kernel side can run.
 * @dir: The tmpfs directory.
 * @info: The result.
 */
void shmk_probe(const char *dir, struct shmk_info *info)
{
	struct statfs fs;

	memset(info, 0, sizeof(*info));
	shmk_copy(info->dir, sizeof(info->dir), dir);
	shmk_read_enabled(info->shmem_enabled, sizeof(info->shmem_enabled));
	shmk_read_mount_huge(dir, info->mount_huge, sizeof(info->mount_huge));
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
