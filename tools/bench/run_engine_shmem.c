// SPDX-License-Identifier: MIT
/*
 * tools/bench/run_engine_shmem.c - the upcache-shmem engine.
 *
 * Owns running a job on upcache's in-memory files through the public
 * upc_ API: one cache per job, sized to hold all of the job's files (so
 * nothing is reclaimed: the swap layer takes anonymous regions only, so
 * shmem cannot be swapped out yet), one file per clone or one shared
 * with filename=, laid out as file_kind= says (written, upc_fallocate()d,
 * or truncated up to one hole).  Operations are upc_read() and
 * upc_write().
 */
#include <errno.h>
#include <linux/falloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <upcache/upcache.h>

#include "run_engine.h"
#include "util.h"

#define SHM_ALIGN	(2ULL << 20)	/* upc_cache_create()'s granule */
/* Headroom past the files: the allocator's per-CPU caches hold pages. */
#define SHM_SLACK	(16ULL << 20)

/**
 * struct shm_ctx - one job's cache and files.
 * @cache: The cache.
 * @files: One per clone, or one.
 * @nr_files: Number of @files.
 */
struct shm_ctx {
	struct upc_cache *cache;
	struct upc_file **files;
	unsigned int nr_files;
};

static const enum upc_huge shm_huge[] = {
	[RUN_HUGE_NEVER] = UPC_HUGE_NEVER,
	[RUN_HUGE_ALWAYS] = UPC_HUGE_ALWAYS,
	[RUN_HUGE_WITHIN_SIZE] = UPC_HUGE_WITHIN_SIZE,
	[RUN_HUGE_ADVISE] = UPC_HUGE_ADVISE,
};

/* shm_pwrite() - upc_write() as run_layout_pattern() calls it. */
static ssize_t shm_pwrite(void *h, const void *buf, size_t len, uint64_t off)
{
	return upc_write(h, buf, len, (int64_t)off);
}

/* shm_layout() - Give one file what file_kind= asks for. */
static int shm_layout(const struct run_job *job, struct upc_file *f)
{
	int mode = job->fallocate == RUN_FALLOC_KEEP ? FALLOC_FL_KEEP_SIZE : 0;

	switch (job->file_kind) {
	case RUN_FILE_NORMAL:
		return run_layout_pattern(shm_pwrite, f, job->filesize);
	case RUN_FILE_FALLOCATED:
		return upc_fallocate(f, mode, 0, (int64_t)job->filesize);
	case RUN_FILE_HOLE:
		return upc_truncate(f, (int64_t)job->filesize);
	case RUN_FILE_EMPTY:
		return 0;
	}
	return 0;
}

/* shm_teardown() - Close the files and destroy the cache. */
static void shm_teardown(void *arg)
{
	struct shm_ctx *ctx = arg;
	unsigned int i;

	if (!ctx)
		return;
	for (i = 0; i < ctx->nr_files; i++)
		if (ctx->files[i])
			upc_close(ctx->files[i]);
	if (ctx->cache && upc_cache_destroy(ctx->cache))
		bench_die("upcache-shmem: the cache is still busy after the "
			  "job (a leaked span or file)");
	free(ctx->files);
	free(ctx);
}

/* shm_limit() - The cache's memory limit for @job, or 0 if too small. */
static uint64_t shm_limit(const struct run_job *job, unsigned int nr_files,
			  char *err, size_t errlen)
{
	uint64_t need = job->filesize * nr_files;

	if (job->memory_limit && job->memory_limit < need) {
		snprintf(err, errlen, "engine upcache-shmem: memory_limit= "
			 "below the files' size: not yet implemented: needs "
			 "shmem swap-out (swap takes anonymous regions only: "
			 "ioengine=upcache-anon)");
		return 0;
	}
	if (job->memory_limit)
		need = job->memory_limit;
	else
		need += SHM_SLACK;
	return (need + SHM_ALIGN - 1) & ~(SHM_ALIGN - 1);
}

/* shm_setup() - Create the job's cache and files and lay them out. */
static int shm_setup(const struct run_job *job, void **out, char *err,
		     size_t errlen)
{
	struct upc_shmem_options so = { .huge = shm_huge[job->huge] };
	struct upc_cache_config cfg = { .huge = UPC_HUGE_NEVER };
	struct shm_ctx *ctx = bench_xcalloc(1, sizeof(*ctx));
	unsigned int i;
	int ret;

	ctx->nr_files = job->filename ? 1 : job->numjobs;
	ctx->files = bench_xcalloc(ctx->nr_files, sizeof(*ctx->files));
	cfg.memory_limit = shm_limit(job, ctx->nr_files, err, errlen);
	if (!cfg.memory_limit) {
		shm_teardown(ctx);
		return -ENOSYS;
	}
	if (job->huge == RUN_HUGE_ADVISE)
		so.flags = UPC_SHMEM_HUGE_ADVISED;
	ret = upc_cache_create(&cfg, &ctx->cache);
	if (ret) {
		snprintf(err, errlen, "upcache-shmem: a cache of %zu MiB: %s",
			 cfg.memory_limit >> 20, strerror(-ret));
		free(ctx->files);
		free(ctx);
		return ret;
	}
	for (i = 0; i < ctx->nr_files; i++) {
		ret = upc_shmem_create(ctx->cache, &so, &ctx->files[i]);
		if (!ret)
			ret = shm_layout(job, ctx->files[i]);
		if (ret) {
			snprintf(err, errlen, "upcache-shmem: laying out a "
				 "file of %llu bytes: %s",
				 (unsigned long long)job->filesize,
				 strerror(-ret));
			shm_teardown(ctx);
			return ret;
		}
	}
	*out = ctx;
	return 0;
}

/* shm_open() - A clone's handle is its file. */
static int shm_open(void *arg, unsigned int clone, void **handle)
{
	struct shm_ctx *ctx = arg;

	*handle = ctx->files[ctx->nr_files == 1 ? 0 : clone];
	return 0;
}

/* shm_io() - One upc_read() or upc_write(). */
static ssize_t shm_io(void *handle, bool write, void *buf, size_t len,
		      uint64_t off)
{
	if (write)
		return upc_write(handle, buf, len, (int64_t)off);
	return upc_read(handle, buf, len, (int64_t)off);
}

/* shm_close() - Nothing: the files belong to the job. */
static void shm_close(void *handle)
{
	(void)handle;
}

const struct run_engine run_engine_shmem = {
	.name = "upcache-shmem",
	.upcache = true,
	.setup = shm_setup,
	.open = shm_open,
	.io = shm_io,
	.close = shm_close,
	.teardown = shm_teardown,
};
