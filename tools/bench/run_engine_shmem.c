// SPDX-License-Identifier: MIT
/*
 * tools/bench/run_engine_shmem.c - the upcache-shmem engine.
 *
 * Owns running a job on upcache's in-memory files through the public
 * upc_ API: one cache per job, one file per clone or one shared with
 * filename=, laid out as file_kind= says (written, upc_fallocate()d,
 * or truncated up to one hole).  Operations are upc_read() and
 * upc_write(), and upc_fsync() or upc_fdatasync() for the sync options,
 * which for an in-memory file write nothing, as on tmpfs (the kernel
 * baselines' /dev/shm): what they measure is the call.
 *
 * The cache holds all the files unless memory_limit= says less; below
 * the files' size the job needs swap, which it gets by default, with the
 * options and defaults of upcache-anon (sized and set up by run_swap.c):
 *
 *	swap_size=		bytes of swap (rounded up to 2 MiB); by
 *				default the files' size whenever swap is
 *				wanted (memory_limit= below the files,
 *				swap_file= or swap_space_shift= given),
 *				otherwise none
 *	swap_file=		a swap file (under directory= unless
 *				absolute) instead of a device in memory; a
 *				file the job created is removed afterwards
 *				unless unlink=0
 *	swap_space_shift=	log2 of the slots per swap cache tree
 *				(upc_swapon(): 6..30, default 14, 64 MiB)
 *
 * Pages fallocated and never written never go to swap (mm/shmem.c).  So
 * a memory_limit= below the files with file_kind=fallocated (a write-only
 * job's default under fallocate=native, posix or keep) is an error that
 * says so before anything is created: the job could not lay its files
 * out.  Large folios (any huge= but never: a 2 MiB write gets a 2 MiB
 * folio, the layout's 1 MiB writes 1 MiB ones) go to swap whole, and
 * come back whole: a small read of one in swap reads all of it.
 */
#include <errno.h>
#include <linux/falloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <upcache/upcache.h>

#include "run_engine.h"
#include "run_swap.h"
#include "util.h"

/**
 * struct shm_ctx - one job's cache, swap and files.
 * @job: The job (outlives the context).
 * @cache: The cache.
 * @files: One per clone, or one.
 * @nr_files: Number of @files.
 * @swap: The swap file the job holds, if any (run_swap.c).
 */
struct shm_ctx {
	const struct run_job *job;
	struct upc_cache *cache;
	struct upc_file **files;
	unsigned int nr_files;
	struct run_swap swap;
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

/* shm_teardown() - Close the files, destroy the cache (and its swap). */
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
	run_swap_release(&ctx->swap, ctx->job);
	free(ctx->files);
	free(ctx);
}

/*
 * shm_sizes() - The cache's limit and the swap's size for the job's
 * files of @need bytes in all.  Return: 0, or -EINVAL with a message
 * when the limit is below the files and they cannot go to swap
 * (fallocated folios) or the job has too little swap to go to.
 */
static int shm_sizes(const struct run_job *job, uint64_t need,
		     uint64_t *limit, uint64_t *swap, char *err,
		     size_t errlen)
{
	bool tight = job->memory_limit && job->memory_limit < need;

	if (tight && job->file_kind == RUN_FILE_FALLOCATED) {
		snprintf(err, errlen, "upcache-shmem: memory_limit= (%llu MiB) "
			 "is below the files' %llu MiB, but file_kind="
			 "fallocated (a write-only job's default under "
			 "fallocate=native, posix or keep) allocates them in "
			 "full, and pages fallocated and never written never "
			 "go to swap: use file_kind=hole or empty "
			 "(fallocate=truncate or none)",
			 (unsigned long long)(job->memory_limit >> 20),
			 (unsigned long long)(need >> 20));
		return -EINVAL;
	}
	return run_swap_sizes(job, "upcache-shmem", "files", need, limit, swap,
			      err, errlen);
}

/* shm_setup() - Create the job's cache, swap and files; lay them out. */
static int shm_setup(const struct run_job *job, void **out, char *err,
		     size_t errlen)
{
	struct upc_shmem_options so = { .huge = shm_huge[job->huge] };
	struct upc_cache_config cfg = { .huge = UPC_HUGE_NEVER };
	struct shm_ctx *ctx = bench_xcalloc(1, sizeof(*ctx));
	uint64_t limit, swap;
	unsigned int i;
	int ret;

	ctx->job = job;
	run_swap_init(&ctx->swap, "upcache-shmem");
	ctx->nr_files = job->filename ? 1 : job->numjobs;
	ctx->files = bench_xcalloc(ctx->nr_files, sizeof(*ctx->files));
	if (job->huge == RUN_HUGE_ADVISE)
		so.flags = UPC_SHMEM_HUGE_ADVISED;
	ret = shm_sizes(job, job->filesize * ctx->nr_files, &limit, &swap,
			err, errlen);
	if (!ret) {
		cfg.memory_limit = limit;
		ret = upc_cache_create(&cfg, &ctx->cache);
		if (ret)
			snprintf(err, errlen, "upcache-shmem: a cache of %llu "
				 "MiB: %s", (unsigned long long)(limit >> 20),
				 strerror(-ret));
	}
	if (!ret && swap)
		ret = run_swap_on(&ctx->swap, job, ctx->cache, swap, err,
				  errlen);
	for (i = 0; !ret && i < ctx->nr_files; i++) {
		ret = upc_shmem_create(ctx->cache, &so, &ctx->files[i]);
		if (!ret)
			ret = shm_layout(job, ctx->files[i]);
		if (ret)
			snprintf(err, errlen, "upcache-shmem: laying out a "
				 "file of %llu bytes: %s",
				 (unsigned long long)job->filesize,
				 strerror(-ret));
	}
	if (ret) {
		shm_teardown(ctx);
		return ret;
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

/* shm_sync() - upc_fsync() or upc_fdatasync(): nothing to write (tmpfs). */
static int shm_sync(void *handle, bool datasync)
{
	return datasync ? upc_fdatasync(handle) : upc_fsync(handle);
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
	.sync = shm_sync,
	.close = shm_close,
	.teardown = shm_teardown,
};
