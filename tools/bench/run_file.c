// SPDX-License-Identifier: MIT
/*
 * tools/bench/run_file.c - the real files of `upcache-bench run` jobs:
 * where they are, and creating and laying them out as fio does.
 *
 * Shared by the engines that work on a real file: the kernel baselines
 * (run_engine_kernel.c) and upcache-file (run_engine_file.c), so that a
 * job's file is the same whichever engine reads it.  A file is
 * directory=/NAME.CLONE.0 unless filename= names one.  A missing file
 * is created and laid out: written once with the pattern (normal),
 * fallocate()d (fallocated) or ftruncate()d (hole), straight to the
 * file.  An existing one is never truncated, laid out again or (unless
 * unlink=1) removed: as fio does, a regular file that already holds
 * filesize= bytes is used as it is, whatever file_kind= says, and
 * anything else (shorter, not a regular file) is an error.
 *
 * The layout is always buffered I/O (its 1 MiB pieces need no
 * alignment); a direct=1 job's engine then opens the laid-out file again
 * with O_DIRECT (run_file_reopen()), which is where a file system that
 * takes no direct I/O says so.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run_engine.h"
#include "util.h"

int run_file_check_directory(const struct run_job *job, char *err,
			     size_t errlen)
{
	struct stat st;

	if (job->filename && job->filename[0] == '/')
		return 0;
	errno = 0;
	if (!stat(job->directory, &st) && S_ISDIR(st.st_mode))
		return 0;
	snprintf(err, errlen, "directory '%s': %s", job->directory,
		 errno ? strerror(errno) : "not a directory");
	return -ENOENT;
}

char *run_file_path(const struct run_job *job, unsigned int i)
{
	char buf[4096];

	if (job->filename && job->filename[0] == '/')
		snprintf(buf, sizeof(buf), "%s", job->filename);
	else if (job->filename)
		snprintf(buf, sizeof(buf), "%s/%s", job->directory,
			 job->filename);
	else
		snprintf(buf, sizeof(buf), "%s/%s.%u.0", job->directory,
			 job->name, i);
	return bench_xstrdup(buf);
}

/* pwrite() on a descriptor, as run_layout_pattern() calls it. */
static ssize_t run_file_pwrite(void *h, const void *buf, size_t len,
			       uint64_t off)
{
	ssize_t n = pwrite(*(int *)h, buf, len, (off_t)off);

	return n < 0 ? -errno : n;
}

/* Give an open, empty file what file_kind= asks for. */
static int run_file_layout(const struct run_job *job, int fd)
{
	int ret = 0;

	switch (job->file_kind) {
	case RUN_FILE_NORMAL:
		return run_layout_pattern(run_file_pwrite, &fd,
					  job->filesize);
	case RUN_FILE_FALLOCATED:
		if (job->fallocate == RUN_FALLOC_POSIX)
			return -posix_fallocate(fd, 0, (off_t)job->filesize);
		ret = fallocate(fd, job->fallocate == RUN_FALLOC_KEEP ?
				FALLOC_FL_KEEP_SIZE : 0, 0,
				(off_t)job->filesize);
		break;
	case RUN_FILE_HOLE:
		ret = ftruncate(fd, (off_t)job->filesize);
		break;
	case RUN_FILE_EMPTY:
		break;
	}
	return ret ? -errno : 0;
}

/*
 * run_file_existing() - May the job use the file open at @fd as it is?
 * Return: 0, or -EINVAL with a message in @err.
 */
static int run_file_existing(const struct run_job *job, const char *path,
			     int fd, char *err, size_t errlen)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: exists and is not a regular file",
			 path);
		return -EINVAL;
	}
	if ((uint64_t)st.st_size < job->filesize) {
		snprintf(err, errlen, "%s: exists with %llu bytes, fewer than "
			 "filesize=%llu: not overwritten (remove it, or make "
			 "filesize= fit)", path,
			 (unsigned long long)st.st_size,
			 (unsigned long long)job->filesize);
		return -EINVAL;
	}
	return 0;
}

int run_file_open(const struct run_job *job, const char *path, bool *created,
		  char *err, size_t errlen)
{
	int fd, ret;

	*created = false;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		/* O_EXCL: a file that appeared meanwhile is not ours. */
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		*created = fd >= 0;
	}
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	if (!*created) {
		ret = run_file_existing(job, path, fd, err, errlen);
		if (ret == -EINVAL)
			goto fail;
		if (ret) {
			snprintf(err, errlen, "%s: %s", path, strerror(-ret));
			goto fail;
		}
		return fd;
	}
	ret = run_file_layout(job, fd);
	if (ret) {
		snprintf(err, errlen, "%s: laying out %llu bytes: %s", path,
			 (unsigned long long)job->filesize, strerror(-ret));
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return ret;
}

int run_file_reopen(const struct run_job *job, const char *path, int flags,
		    const char *who, char *err, size_t errlen)
{
	int fd, ret;

	fd = open(path, flags | O_CLOEXEC | (job->direct ? O_DIRECT : 0));
	if (fd >= 0)
		return fd;
	ret = -errno;
	if (job->direct && ret == -EINVAL)
		snprintf(err, errlen, "%s: %s: the file system refuses O_DIRECT "
			 "(direct=1): open() says %s; it takes no direct I/O "
			 "(tmpfs before Linux 6.6, some overlayfs setups): put "
			 "the files elsewhere with directory= or filename=",
			 who, path, strerror(-ret));
	else
		snprintf(err, errlen, "%s: %s: opening it%s: %s", who, path,
			 job->direct ? " with O_DIRECT" : "", strerror(-ret));
	return ret;
}
