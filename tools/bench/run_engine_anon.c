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
 * the regions' size the job needs swap, which it gets by default:
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
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <upcache/upcache.h>

#include "run_engine.h"
#include "util.h"

#define ANON_ALIGN	(2ULL << 20)	/* upc_cache_create()'s granule */
/* Headroom past the regions: the allocator's per-CPU caches hold pages. */
#define ANON_SLACK	(16ULL << 20)
/*
 * Swap a job needs beyond what memory cannot hold: a swap-in needs a
 * free page, and making one needs a free slot for the page it swaps
 * out, so a device exactly as large as the overflow runs dry mid-job.
 */
#define ANON_SWAP_HEADROOM	ANON_ALIGN

/**
 * struct anon_ctx - one job's cache, swap and regions.
 * @job: The job (outlives the context).
 * @cache: The cache.
 * @regions: One per clone, or one.
 * @nr_regions: Number of @regions.
 * @swap_path: The swap file's path (malloc()ed), or NULL.
 * @swap_created: The job created the swap file.
 * @swap_lock_fd: The swap file, opened to hold an exclusive flock() on
 *	it while the job runs (two devices on one file would write over
 *	each other's slots), or -1.
 */
struct anon_ctx {
	const struct run_job *job;
	struct upc_cache *cache;
	struct upc_anon **regions;
	unsigned int nr_regions;
	char *swap_path;
	bool swap_created;
	int swap_lock_fd;
};

static uint64_t anon_round_up(uint64_t bytes)
{
	return (bytes + ANON_ALIGN - 1) & ~(ANON_ALIGN - 1);
}

/* anon_teardown() - Free the regions, the cache (and its swap), the file. */
static void anon_teardown(void *arg)
{
	struct anon_ctx *ctx = arg;
	unsigned int i;
	bool rm;

	if (!ctx)
		return;
	for (i = 0; i < ctx->nr_regions; i++)
		if (ctx->regions[i])
			upc_anon_destroy(ctx->regions[i]);
	if (ctx->cache && upc_cache_destroy(ctx->cache))
		bench_die("upcache-anon: the cache is still busy after the "
			  "job (a leaked region)");
	rm = ctx->job->unlink < 0 ? ctx->swap_created : ctx->job->unlink;
	if (ctx->swap_path && rm)
		unlink(ctx->swap_path);
	if (ctx->swap_lock_fd >= 0)
		close(ctx->swap_lock_fd);
	free(ctx->swap_path);
	free(ctx->regions);
	free(ctx);
}

/*
 * anon_sizes() - The cache's limit and the swap's size for the job's
 * regions of @need bytes in all.  Return: 0, or -EINVAL with a message
 * when the limit is below the regions and the job has no swap to go to.
 */
static int anon_sizes(const struct run_job *job, uint64_t need,
		      uint64_t *limit, uint64_t *swap, char *err,
		      size_t errlen)
{
	bool tight = job->memory_limit && job->memory_limit < need;

	*limit = anon_round_up(job->memory_limit ? job->memory_limit :
			       need + ANON_SLACK);
	*swap = 0;
	if (job->swap_size)
		*swap = anon_round_up(job->swap_size);
	else if (tight || job->swap_file || job->swap_space_shift)
		*swap = anon_round_up(need);
	if (tight && *limit + *swap < need + ANON_SWAP_HEADROOM) {
		snprintf(err, errlen, "upcache-anon: memory_limit= (%llu MiB) "
			 "and swap_size= (%llu MiB) cannot hold the regions' "
			 "%llu MiB with %llu MiB of swap to spare",
			 (unsigned long long)(*limit >> 20),
			 (unsigned long long)(*swap >> 20),
			 (unsigned long long)(need >> 20),
			 (unsigned long long)(ANON_SWAP_HEADROOM >> 20));
		return -EINVAL;
	}
	return 0;
}

/* anon_swapon() - Give the cache its swap: in memory or in a file. */
static int anon_swapon(struct anon_ctx *ctx, uint64_t bytes, char *err,
		       size_t errlen)
{
	const struct run_job *job = ctx->job;
	struct upc_swap_config sc = {
		.size = bytes, .space_shift = job->swap_space_shift,
	};
	struct stat st;
	char path[4096];
	int ret;

	if (job->swap_file) {
		if (job->swap_file[0] == '/')
			snprintf(path, sizeof(path), "%s", job->swap_file);
		else
			snprintf(path, sizeof(path), "%s/%s", job->directory,
				 job->swap_file);
		ctx->swap_path = bench_xstrdup(path);
		ctx->swap_created = stat(path, &st) != 0;
		sc.path = ctx->swap_path;
		ctx->swap_lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC,
					 0600);
		if (ctx->swap_lock_fd < 0 ||
		    flock(ctx->swap_lock_fd, LOCK_EX | LOCK_NB)) {
			snprintf(err, errlen, "upcache-anon: swap_file %s: %s",
				 path, errno == EWOULDBLOCK ?
				 "in use by another job" : strerror(errno));
			return -EBUSY;
		}
	}
	ret = upc_swapon(ctx->cache, &sc);
	if (ret)
		snprintf(err, errlen, "upcache-anon: %llu MiB of swap%s%s: %s",
			 (unsigned long long)(bytes >> 20),
			 sc.path ? " in " : " in memory", sc.path ? sc.path : "",
			 strerror(-ret));
	return ret;
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
	ctx->swap_lock_fd = -1;
	ctx->nr_regions = job->filename ? 1 : job->numjobs;
	ctx->regions = bench_xcalloc(ctx->nr_regions, sizeof(*ctx->regions));
	ret = anon_sizes(job, job->filesize * ctx->nr_regions, &limit, &swap,
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
		ret = anon_swapon(ctx, swap, err, errlen);
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
