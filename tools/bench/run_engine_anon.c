// SPDX-License-Identifier: MIT
/*
 * tools/bench/run_engine_anon.c - the upcache-anon engine.
 *
 * Owns running a job on upcache's anonymous memory through the public
 * upc_ API: one cache per job, one anonymous region of filesize= bytes
 * per clone (or one shared with filename=), and upc_anon_read() /
 * upc_anon_write() as the operations: a program's memory, touched
 * through upcache, swapping under the cache's limit (seed 003's memhog
 * is `rw=write`, a region four times memory_limit=).
 *
 * The cache holds all the regions unless memory_limit= says less; below
 * the regions' size the job needs swap, which it gets by default (sized
 * and set up by run_swap.c, shared with upcache-shmem):
 *
 *	swap_size=		bytes of swap (rounded up to 2 MiB); by
 *				default the regions' size whenever swap is
 *				wanted (memory_limit= below the regions,
 *				swap_file= or swap_space_shift= given),
 *				otherwise none
 *	swap_file=		a swap file (under directory= unless
 *				absolute) instead of a device in memory; a
 *				file the job created is removed afterwards
 *				unless unlink=0
 *	swap_space_shift=	log2 of the slots per swap cache tree
 *				(upc_swapon(): 6..30, default 14, 64 MiB)
 *
 * Layout: file_kind=normal writes every region once with the pattern
 * (through the cache, so with a small limit most of it is in swap when
 * the job starts, as memhog leaves it); every other kind leaves the
 * region untouched: anonymous memory is allocated when first written and
 * reads as zeros until then, so there is nothing to fallocate.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <upcache/upcache.h>

#include "run_engine.h"
#include "run_swap.h"
#include "util.h"

/**
 * struct anon_ctx - one job's cache, swap and regions.
 * @job: The job (outlives the context).
 * @cache: The cache.
 * @regions: One per clone, or one.
 * @nr_regions: Number of @regions.
 * @swap: The swap file the job holds, if any (run_swap.c).
 */
struct anon_ctx {
	const struct run_job *job;
	struct upc_cache *cache;
	struct upc_anon **regions;
	unsigned int nr_regions;
	struct run_swap swap;
};

/* anon_teardown() - Free the regions, the cache (and its swap), the file. */
static void anon_teardown(void *arg)
{
	struct anon_ctx *ctx = arg;
	unsigned int i;

	if (!ctx)
		return;
	for (i = 0; i < ctx->nr_regions; i++)
		if (ctx->regions[i])
			upc_anon_destroy(ctx->regions[i]);
	if (ctx->cache && upc_cache_destroy(ctx->cache))
		bench_die("upcache-anon: the cache is still busy after the "
			  "job (a leaked region)");
	run_swap_release(&ctx->swap, ctx->job);
	free(ctx->regions);
	free(ctx);
}

/* anon_pwrite() - upc_anon_write() as run_layout_pattern() calls it. */
static ssize_t anon_pwrite(void *h, const void *buf, size_t len, uint64_t off)
{
	return upc_anon_write(h, buf, len, (int64_t)off);
}

/* anon_setup() - Create the job's cache, swap and regions; lay them out. */
static int anon_setup(const struct run_job *job, void **out, char *err,
		      size_t errlen)
{
	struct upc_cache_config cfg = { .huge = UPC_HUGE_NEVER };
	struct anon_ctx *ctx = bench_xcalloc(1, sizeof(*ctx));
	uint64_t limit, swap;
	unsigned int i;
	int ret;

	ctx->job = job;
	run_swap_init(&ctx->swap, "upcache-anon");
	ctx->nr_regions = job->filename ? 1 : job->numjobs;
	ctx->regions = bench_xcalloc(ctx->nr_regions, sizeof(*ctx->regions));
	ret = run_swap_sizes(job, "upcache-anon", "regions",
			     job->filesize * ctx->nr_regions, &limit, &swap,
			     err, errlen);
	if (!ret) {
		cfg.memory_limit = limit;
		ret = upc_cache_create(&cfg, &ctx->cache);
		if (ret)
			snprintf(err, errlen, "upcache-anon: a cache of %llu "
				 "MiB: %s", (unsigned long long)(limit >> 20),
				 strerror(-ret));
	}
	if (!ret && swap)
		ret = run_swap_on(&ctx->swap, job, ctx->cache, swap, err,
				  errlen);
	for (i = 0; !ret && i < ctx->nr_regions; i++) {
		ret = upc_anon_create(ctx->cache, job->filesize,
				      &ctx->regions[i]);
		if (!ret && job->file_kind == RUN_FILE_NORMAL)
			ret = run_layout_pattern(anon_pwrite, ctx->regions[i],
						 job->filesize);
		if (ret)
			snprintf(err, errlen, "upcache-anon: laying out a "
				 "region of %llu bytes: %s",
				 (unsigned long long)job->filesize,
				 strerror(-ret));
	}
	if (ret) {
		anon_teardown(ctx);
		return ret;
	}
	*out = ctx;
	return 0;
}

/* anon_open() - A clone's handle is its region. */
static int anon_open(void *arg, unsigned int clone, void **handle)
{
	struct anon_ctx *ctx = arg;

	*handle = ctx->regions[ctx->nr_regions == 1 ? 0 : clone];
	return 0;
}

/* anon_io() - One upc_anon_read() or upc_anon_write(). */
static ssize_t anon_io(void *handle, bool write, void *buf, size_t len,
		       uint64_t off)
{
	if (write)
		return upc_anon_write(handle, buf, len, (int64_t)off);
	return upc_anon_read(handle, buf, len, (int64_t)off);
}

/* anon_close() - Nothing: the regions belong to the job. */
static void anon_close(void *handle)
{
	(void)handle;
}

const struct run_engine run_engine_anon = {
	.name = "upcache-anon",
	.upcache = true,
	.setup = anon_setup,
	.open = anon_open,
	.io = anon_io,
	.close = anon_close,
	.teardown = anon_teardown,
};
