// SPDX-License-Identifier: MIT
/*
 * tools/bench/run_engine_kernel.c - the kernel baselines: kernel-sync,
 * kernel-psync and kernel-mmap.
 *
 * Owns running a job on the kernel's page cache through a real file, in
 * /dev/shm (tmpfs, the kernel's shmem) unless directory= or filename=
 * say elsewhere.  The three engines differ only in the operation:
 *
 *	kernel-sync	read()/write(), with an lseek() only when the
 *			offset is not where the last operation ended
 *			(fio's sync engine)
 *	kernel-psync	pread()/pwrite() (fio's psync, its default)
 *	kernel-mmap	memcpy() from or into a MAP_SHARED mapping of the
 *			whole file, one mapping per clone (fio's mmap)
 *
 * The sync options (fsync=, fdatasync=, end_fsync=) are fsync() or
 * fdatasync() of the clone's descriptor for kernel-sync and kernel-psync
 * (fio's do_io_u_sync()); kernel-mmap does what fio's mmap engine does
 * for both, msync(MS_SYNC) of the whole mapping and nothing more: the
 * data is written through the mapping, so msync() is what flushes it
 * (Linux runs it as an fdatasync() of the mapped range).
 *
 * All three see a file's end as pread() does: a read past it moves
 * nothing, a read across it moves the bytes before it (which the runner
 * reports as an error).  kernel-mmap extends the file before mapping it,
 * since a store past the end would fault, so it keeps the end that
 * pread() would see itself: the file's size before, raised by writes.
 *
 * Files: one per clone named JOB.CLONE.0 as fio names them, or the one
 * filename= gives (absolute, or relative to directory=).  A file the job
 * creates is laid out as file_kind= says and removed afterwards unless
 * unlink=0; an existing file at least filesize= long is used as it is,
 * whatever file_kind= says, and kept unless unlink=1 (run_file.c).
 *
 * direct=1 (kernel-sync and kernel-psync; run_job_resolve() refuses it
 * for kernel-mmap, whose mapping is the page cache whatever the flags)
 * opens the clones' descriptors with O_DIRECT: reads and writes go
 * between the job's buffer (page-aligned by the runner) and the file,
 * around the page cache.  The layout stays buffered; setup opens each
 * file once with O_DIRECT, so a file system that refuses it fails the
 * job before anything runs, naming the file.  A file system whose
 * direct I/O wants more alignment than bs= and offset= give (they are
 * multiples of RUN_DIRECT_ALIGN) answers EINVAL to the first operation,
 * which the runner reports as such (run_exec.c).  On tmpfs (Linux 6.6
 * and later) O_DIRECT is accepted but the file's pages are the page
 * cache: such a job measures what a buffered one does.
 *
 * A job whose memory_limit= is below its files' size asks for the
 * kernel's page cache to be held to that limit, which needs a memory
 * cgroup: such a job is skipped with that reason rather than measured
 * against an unlimited cache.  Not a direct job whose files are not in
 * tmpfs: its I/O does not go through the page cache, so there is nothing
 * to hold.
 */
#define _GNU_SOURCE	/* fallocate(), O_DIRECT */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/falloc.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel_env.h"
#include "run_engine.h"
#include "util.h"


enum kern_kind {
	KERN_SYNC,
	KERN_PSYNC,
	KERN_MMAP,
};

/**
 * struct kern_file - one file of a job.
 * @path: Its path.
 * @created: This run created it.
 * @data_end: kernel-mmap: the end of the data, as pread() would see it:
 *	the size after the layout, raised by the clones' writes.
 */
struct kern_file {
	char *path;
	bool created;
	_Atomic uint64_t data_end;
};

/**
 * struct kern_ctx - one job's files.
 * @kind: Which engine.
 * @job: The job (outlives the context).
 * @files: One per clone, or one.
 * @nr_files: Number of @files.
 */
struct kern_ctx {
	enum kern_kind kind;
	const struct run_job *job;
	struct kern_file *files;
	unsigned int nr_files;
};

/**
 * struct kern_handle - one clone's open file.
 * @kind: Which engine.
 * @fd: The descriptor.
 * @pos: The file position (kernel-sync).
 * @map: The mapping (kernel-mmap), or NULL.
 * @map_len: Its length.
 * @data_end: Its file's end of data (kernel-mmap).
 */
struct kern_handle {
	enum kern_kind kind;
	int fd;
	uint64_t pos;
	char *map;
	size_t map_len;
	_Atomic uint64_t *data_end;
};

/*
 * kern_skip() - A baseline held below its files' size needs the
 * kernel's page cache held to memory_limit=: say what stands in the way
 * here.  Files in tmpfs leave memory only for swap; elsewhere it would
 * take moving this process into a memory cgroup, which would charge
 * every other job of the run as well, so upcache-bench does not.
 */
static const char *kern_skip(const struct run_job *job, char *buf,
			     size_t len)
{
	uint64_t files = job->filesize * (job->filename ? 1 : job->numjobs);
	char name[4096];
	const char *where = job->directory;
	bool tmpfs;
	int n;

	if (!job->memory_limit || job->memory_limit >= files)
		return NULL;
	/* The directory the files are in: an absolute filename= says. */
	if (job->filename && job->filename[0] == '/') {
		snprintf(name, sizeof(name), "%s", job->filename);
		where = dirname(name);
	}
	tmpfs = bench_is_tmpfs(where);
	/* Direct I/O bypasses the page cache, except tmpfs's, its pages. */
	if (job->direct && !tmpfs)
		return NULL;
	n = snprintf(buf, len, "needs the kernel's page cache held to "
		     "memory_limit= (%llu MiB) below the files' %llu MiB; ",
		     (unsigned long long)(job->memory_limit >> 20),
		     (unsigned long long)(files >> 20));
	if (n < 0 || (size_t)n >= len)
		return buf;
	if (tmpfs)
		snprintf(buf + n, len - (size_t)n, "the files are in tmpfs, "
			 "whose pages leave memory only for swap, and %s",
			 bench_has_swap() ? "running a baseline in a memory "
			 "cgroup with swap is not implemented" :
			 "this machine has no swap device");
	else
		snprintf(buf + n, len - (size_t)n, "that takes moving this "
			 "process into a memory cgroup (%s), which would "
			 "charge every other job of the run too: not done",
			 bench_memcg_writable() ? "this machine has one" :
			 "this machine gives none");
	return buf;
}

/*
 * kern_direct_check() - direct=1: can @f be opened with O_DIRECT?  Asked
 * once here, untimed, so that a file system that refuses it fails the
 * job with a message naming the file, not a clone's open() in the run.
 * Return: 0 or -errno with a message.
 */
static int kern_direct_check(const struct run_job *job, struct kern_file *f,
			     char *err, size_t errlen)
{
	int fd;

	if (!job->direct)
		return 0;
	fd = run_file_reopen(job, f->path, O_RDWR, job->engine, err, errlen);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/*
 * kern_prepare() - Create or reuse one file; the clones open it later.
 * Return: 0 or -errno.
 */
static int kern_prepare(const struct run_job *job, struct kern_file *f,
			char *err, size_t errlen)
{
	int fd = run_file_open(job, f->path, &f->created, err, errlen);
	struct stat st;
	int ret = 0;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st)) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", f->path, strerror(-ret));
	} else {
		atomic_store(&f->data_end, (uint64_t)st.st_size);
	}
	close(fd);
	if (!ret)
		ret = kern_direct_check(job, f, err, errlen);
	return ret;
}

/* kern_teardown() - Remove the files the run made (or as unlink= says). */
static void kern_teardown(void *arg)
{
	struct kern_ctx *ctx = arg;
	unsigned int i;

	if (!ctx)
		return;
	for (i = 0; i < ctx->nr_files; i++) {
		struct kern_file *f = &ctx->files[i];
		bool rm = ctx->job->unlink < 0 ? f->created : ctx->job->unlink;

		if (f->path && rm)
			unlink(f->path);
		free(f->path);
	}
	free(ctx->files);
	free(ctx);
}

/* kern_setup() - Check the directory, create and lay out the files. */
static int kern_setup(const struct run_job *job, enum kern_kind kind,
		      void **out, char *err, size_t errlen)
{
	struct kern_ctx *ctx;
	unsigned int i;
	int ret;

	ret = run_file_check_directory(job, err, errlen);
	if (ret)
		return ret;
	ctx = bench_xcalloc(1, sizeof(*ctx));
	ctx->kind = kind;
	ctx->job = job;
	ctx->nr_files = job->filename ? 1 : job->numjobs;
	ctx->files = bench_xcalloc(ctx->nr_files, sizeof(*ctx->files));
	for (i = 0; i < ctx->nr_files; i++) {
		ctx->files[i].path = run_file_path(job, i);
		ret = kern_prepare(job, &ctx->files[i], err, errlen);
		if (ret) {
			kern_teardown(ctx);
			return ret;
		}
	}
	*out = ctx;
	return 0;
}

static int kern_setup_sync(const struct run_job *job, void **out, char *err,
			   size_t errlen)
{
	return kern_setup(job, KERN_SYNC, out, err, errlen);
}

static int kern_setup_psync(const struct run_job *job, void **out, char *err,
			    size_t errlen)
{
	return kern_setup(job, KERN_PSYNC, out, err, errlen);
}

static int kern_setup_mmap(const struct run_job *job, void **out, char *err,
			   size_t errlen)
{
	return kern_setup(job, KERN_MMAP, out, err, errlen);
}

/*
 * kern_map() - Map the whole file.  Stores past the end of a file fault
 * (SIGBUS), so a shorter file is first extended with a hole, as fio's
 * mmap engine extends files it writes; reads still stop at the end of
 * the data (kern_io_mmap()).  Return: 0 or -errno.
 */
static int kern_map(struct kern_handle *h, uint64_t filesize)
{
	struct stat st;

	if (fstat(h->fd, &st))
		return -errno;
	if ((uint64_t)st.st_size < filesize &&
	    ftruncate(h->fd, (off_t)filesize))
		return -errno;
	h->map_len = (size_t)filesize;
	h->map = mmap(NULL, h->map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		      h->fd, 0);
	if (h->map == MAP_FAILED) {
		h->map = NULL;
		return -errno;
	}
	return 0;
}

/* kern_open() - Open (and for kernel-mmap map) a clone's file. */
static int kern_open(void *arg, unsigned int clone, void **handle)
{
	struct kern_ctx *ctx = arg;
	struct kern_file *f = &ctx->files[ctx->nr_files == 1 ? 0 : clone];
	struct kern_handle *h = bench_xcalloc(1, sizeof(*h));
	int ret = 0;

	h->kind = ctx->kind;
	h->data_end = &f->data_end;
	h->fd = open(f->path, O_RDWR | O_CLOEXEC |
		     (ctx->job->direct ? O_DIRECT : 0));
	if (h->fd < 0)
		ret = -errno;
	else if (h->kind == KERN_MMAP)
		ret = kern_map(h, ctx->job->filesize);
	if (ret) {
		if (h->fd >= 0)
			close(h->fd);
		free(h);
		return ret;
	}
	*handle = h;
	return 0;
}

/* kern_io_sync() - read()/write() after an lseek() if needed. */
static ssize_t kern_io_sync(struct kern_handle *h, bool wr, void *buf,
			    size_t len, uint64_t off)
{
	ssize_t n;

	if (off != h->pos && lseek(h->fd, (off_t)off, SEEK_SET) < 0)
		return -errno;
	n = wr ? write(h->fd, buf, len) : read(h->fd, buf, len);
	if (n < 0)
		return -errno;
	h->pos = off + (uint64_t)n;
	return n;
}

/*
 * kern_io_mmap() - memcpy() from or into the mapping, no further than the
 * end of the data for a read (the mapping reads zeros past it, which
 * pread() would not return).  Return: the bytes moved.
 */
static ssize_t kern_io_mmap(struct kern_handle *h, bool wr, void *buf,
			    size_t len, uint64_t off)
{
	uint64_t end = atomic_load_explicit(h->data_end, memory_order_relaxed);

	if (off >= h->map_len)
		return 0;
	if (len > h->map_len - off)
		len = (size_t)(h->map_len - off);
	if (wr) {
		memcpy(h->map + off, buf, len);
		while (end < off + len &&
		       !atomic_compare_exchange_weak_explicit(h->data_end,
				&end, off + len, memory_order_relaxed,
				memory_order_relaxed))
			;
		return (ssize_t)len;
	}
	if (off >= end)
		return 0;
	if (len > end - off)
		len = (size_t)(end - off);
	memcpy(buf, h->map + off, len);
	return (ssize_t)len;
}

/* kern_io() - One operation. */
static ssize_t kern_io(void *handle, bool write, void *buf, size_t len,
		       uint64_t off)
{
	struct kern_handle *h = handle;
	ssize_t n;

	switch (h->kind) {
	case KERN_SYNC:
		return kern_io_sync(h, write, buf, len, off);
	case KERN_PSYNC:
		n = write ? pwrite(h->fd, buf, len, (off_t)off) :
			    pread(h->fd, buf, len, (off_t)off);
		return n < 0 ? -errno : n;
	case KERN_MMAP:
		return kern_io_mmap(h, write, buf, len, off);
	}
	return -EINVAL;
}

/* kern_sync() - fsync()/fdatasync(), or msync() of a kernel-mmap mapping. */
static int kern_sync(void *handle, bool datasync)
{
	struct kern_handle *h = handle;
	int ret;

	if (h->kind == KERN_MMAP)
		ret = msync(h->map, h->map_len, MS_SYNC);
	else
		ret = datasync ? fdatasync(h->fd) : fsync(h->fd);
	return ret ? -errno : 0;
}

/* kern_close() - Unmap and close a clone's file. */
static void kern_close(void *handle)
{
	struct kern_handle *h = handle;

	if (h->map)
		munmap(h->map, h->map_len);
	close(h->fd);
	free(h);
}

const struct run_engine run_engine_kernel_sync = {
	.name = "kernel-sync",
	.skip_reason = kern_skip,
	.setup = kern_setup_sync,
	.open = kern_open,
	.io = kern_io,
	.sync = kern_sync,
	.close = kern_close,
	.teardown = kern_teardown,
};

const struct run_engine run_engine_kernel_psync = {
	.name = "kernel-psync",
	.skip_reason = kern_skip,
	.setup = kern_setup_psync,
	.open = kern_open,
	.io = kern_io,
	.sync = kern_sync,
	.close = kern_close,
	.teardown = kern_teardown,
};

const struct run_engine run_engine_kernel_mmap = {
	.name = "kernel-mmap",
	.skip_reason = kern_skip,
	.setup = kern_setup_mmap,
	.open = kern_open,
	.io = kern_io,
	.sync = kern_sync,
	.close = kern_close,
	.teardown = kern_teardown,
};
