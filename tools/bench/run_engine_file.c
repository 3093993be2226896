// SPDX-License-Identifier: MIT
/*
 * tools/bench/run_engine_file.c - the upcache-file engine.
 *
 * Owns running a job on the library's fd files (mm/fdfile.c): upcache's
 * page cache in front of a real file, which is the backing store (read
 * with pread() on a miss, written back with pwrite()), the cache being
 * upcache's address_space with an arena, LRU lists and direct reclaim,
 * so a file larger than memory_limit= is read through eviction and
 * refaults as the kernel's page cache would be under a memory cgroup.
 * The engine adds only the job around it: the files, one arena per job
 * and its limit, and the writeback at the end.
 *
 * Files are the kernel baselines' (run_engine_kernel.c): in /dev/shm
 * unless directory= or filename= say elsewhere, one per clone named
 * JOB.CLONE.0 or the one filename= gives, laid out as file_kind= says
 * when the run creates it (an existing file at least filesize= long is
 * used as it is), removed afterwards as unlink= says.  One cache per
 * job holds every file of the job (as upcache-shmem's does), sized to
 * hold them all unless memory_limit= is given.
 *
 * direct=1 opens each file again, after its (buffered) layout, with
 * O_DIRECT, as upc_file_open() takes an O_DIRECT descriptor: the cache
 * is then the file's only cache, misses read and writeback writes whole
 * aligned pages straight to the file, and the job's buffers need no
 * alignment, since the cache copies.  file_io_uring=1 is fd_file_init()'s
 * FD_FILE_IO_URING (what UPC_FILE_IO_URING asks of upc_file_open()):
 * writeback sends each batch of dirty pages in one io_uring submission
 * rather than one pwritev() per run of neighbours.
 * file_background_writeback=1 is FD_FILE_WRITEBACK_BACKGROUND
 * (UPC_FILE_WRITEBACK_BACKGROUND): a flusher thread writes dirty pages
 * back while the job writes.
 *
 * Operations:
 *
 *	read	fd_file_read_iter() into the block's buffer: cached
 *		folios a batch at a time (lockless); a miss reads ahead
 *		(mm/readahead.c: a window that grows for sequential
 *		jobs, allocating and maybe reclaiming, one preadv() per
 *		run of pages); bytes past the file's size are not read,
 *		as pread() does
 *	write	fd_file_write_iter() from the block's buffer:
 *		filemap_grab_folios() for the block's pages (locked,
 *		created when missing), a folio the write covers only in
 *		part filled from the file first, copy in,
 *		folio_mark_dirty(), the size grown to cover the write
 *
 * Both take the fd file's lock (reads shared, writes exclusive), so
 * clones sharing one file (filename=) write it in turn, as the kernel's
 * i_rwsem has them do.
 *
 *	sync	fd_file_fsync() (fsync=, fdatasync=, end_fsync=): every
 *		dirty folio written back, reclaim's writebacks
 *		waited for, then fsync() or fdatasync() of the file: what
 *		upc_fsync() and upc_fdatasync() do for a upc_ file, which
 *		is this engine's fd file behind the API's handle
 *
 * Dirty folios reach the file when reclaim evicts them (writeback_folio),
 * when a sync option asks, and, for the rest, when the job ends: teardown
 * writes them back (filemap_fdatawrite_range()) before dropping the
 * cache, outside the measured phase, as fio's jobs do not fsync by
 * default.  A file teardown is about to remove is not written.
 *
 * A clone's handle is its file plus its own sample of the file's
 * writeback errors (errseq_t), taken when it opens, as each upc_ file
 * handle (and each open file of the kernel's) has one: a writeback error
 * is reported once to every clone that syncs, whichever clone's sync or
 * reclaim met it, so clones sharing one file (filename=) each hear of
 * it, and no lock is needed between their syncs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <upcache/errseq.h>
#include <upcache/filemap.h>
#include <upcache/folio.h>
#include <upcache/vmscan.h>

#include "../../mm/fdfile.h"
#include "run_engine.h"
#include "util.h"

#define UF_ALIGN	UPC_HUGE_SIZE	/* upc_arena_create()'s granule */

/**
 * struct uf_file - one file of a job and its page cache.
 * @ff: The fd file: the page cache in front of @fd.
 * @path: The file's path.
 * @fd: The file, open for the whole job (@ff does not close it).
 * @created: This run created the file.
 * @cached: @ff is set up (fd_file_init() succeeded).
 */
struct uf_file {
	struct fd_file ff;
	char *path;
	int fd;
	bool created;
	bool cached;
};

/**
 * struct uf_handle - one clone's view of its file.
 * @f: The file (shared with filename=).
 * @wb_since: The clone's sample of @f's writeback errors, advanced by
 *	its syncs (upc_file's wb_since).
 */
struct uf_handle {
	struct uf_file *f;
	errseq_t wb_since;
};

/**
 * struct uf_ctx - one job's cache and files.
 * @job: The job (outlives the context).
 * @arena: The cache's memory, with a lruvec.
 * @files: One per clone, or one.
 * @nr_files: Number of @files.
 */
struct uf_ctx {
	const struct run_job *job;
	struct upc_arena *arena;
	struct uf_file *files;
	unsigned int nr_files;
};

/* ---- files --------------------------------------------------------------- */

/*
 * uf_init_error() - Say why fd_file_init() refused @f's file.  With
 * O_DIRECT its EINVAL most likely means a file system whose direct I/O
 * needs more than the page alignment the cache gives.
 */
static void uf_init_error(struct uf_ctx *ctx, struct uf_file *f, int ret,
			  char *err, size_t errlen)
{
	if (ctx->job->direct && ret == -EINVAL)
		snprintf(err, errlen, "upcache-file: %s: fd_file_init() refused "
			 "it with O_DIRECT (direct=1): %s; its file system's "
			 "direct I/O needs alignment past a page (%lu bytes), "
			 "which the cache cannot give", f->path, strerror(-ret),
			 (unsigned long)UPC_PAGE_SIZE);
	else if (ctx->job->direct && ret == -ENOENT)
		snprintf(err, errlen, "upcache-file: %s: fd_file_init(): %s "
			 "(a writable O_DIRECT file is opened again through "
			 "/proc, for the page holding its end)", f->path,
			 strerror(-ret));
	else
		snprintf(err, errlen, "upcache-file: %s: fd_file_init() "
			 "refused it (a regular file open for reading, without "
			 "O_APPEND, is needed): %s", f->path,
			 strerror(-ret));
}

/*
 * uf_prepare() - Open one file for the job (run_file_open()) and put
 * the job's cache in front of it; the file's size is the cache's
 * starting size.
 */
static int uf_prepare(struct uf_ctx *ctx, struct uf_file *f, char *err,
		      size_t errlen)
{
	const struct run_job *job = ctx->job;
	bool writes = run_rw_writes(job->rw);
	int ret;

	f->fd = run_file_open(job, f->path, &f->created, err, errlen);
	if (f->fd < 0)
		return f->fd;
	/*
	 * A job that only reads has its file open read-only, as fio opens
	 * it: the fd file then reads streams into large folios.  direct=1
	 * opens it again with O_DIRECT (the layout was buffered), so the
	 * cache is the file's only cache, as upc_file_open() makes it for
	 * an O_DIRECT descriptor.
	 */
	if (!writes || job->direct) {
		int fd = run_file_reopen(job, f->path,
					 writes ? O_RDWR : O_RDONLY,
					 "upcache-file", err, errlen);

		if (fd < 0)
			return fd;
		close(f->fd);
		f->fd = fd;
	}
	ret = fd_file_init(&f->ff, ctx->arena, f->fd,
			   (job->file_io_uring ? FD_FILE_IO_URING : 0) |
			   (job->file_background_writeback ?
			    FD_FILE_WRITEBACK_BACKGROUND : 0));
	if (ret) {
		uf_init_error(ctx, f, ret, err, errlen);
		return ret;
	}
	f->cached = true;
	return 0;
}

/* ---- setup and teardown -------------------------------------------------- */

/* uf_teardown() - Write back, drop the caches, remove what the run made. */
static void uf_teardown(void *arg)
{
	struct uf_ctx *ctx = arg;
	unsigned int i;

	if (!ctx)
		return;
	for (i = 0; i < ctx->nr_files; i++) {
		struct uf_file *f = &ctx->files[i];
		bool rm = ctx->job->unlink < 0 ? f->created : ctx->job->unlink;
		int ret = 0;

		if (f->cached) {
			if (!rm)
				ret = filemap_fdatawrite_range(&f->ff.mapping,
							       0, INT64_MAX);
			if (ret)
				bench_die("upcache-file: writing %s back: %s",
					  f->path, strerror(-ret));
			fd_file_destroy(&f->ff);
		}
		if (f->fd >= 0)
			close(f->fd);
		if (f->path && rm)
			unlink(f->path);
		free(f->path);
	}
	if (ctx->arena) {
		lru_add_drain_all(ctx->arena);
		if (upc_arena_charged(ctx->arena))
			bench_die("upcache-file: %lu pages still charged after "
				  "the job (a leaked folio reference)",
				  upc_arena_charged(ctx->arena));
		upc_reclaim_destroy(ctx->arena);
		upc_arena_destroy(ctx->arena);
	}
	free(ctx->files);
	free(ctx);
}

/*
 * uf_prefault() - Touch the arena's memory up to the limit, untimed.
 * The arena is mmap()ed lazily, so the first use of each 2 MiB would
 * otherwise take a page fault (and a huge page's zeroing) inside a
 * measured operation; the kernel's page cache allocates from memory
 * that is already there.  upcache-shmem gets this from its layout,
 * which writes through the cache; this engine lays out the real file
 * only.  Whole huge folios are allocated without reclaim until the
 * charge limit stops them, written, and freed again.
 */
static void uf_prefault(struct upc_arena *arena, unsigned long pages)
{
	unsigned long max = pages / (1UL << UPC_MAX_ORDER) + 1, nr, i;
	struct folio **folios = bench_xcalloc(max, sizeof(*folios));

	for (nr = 0; nr < max; nr++) {
		folios[nr] = upc_arena_alloc_folio(arena, GFP_NOWAIT,
						   UPC_MAX_ORDER);
		if (!folios[nr])
			break;
		memset(folio_address(folios[nr]), 0, folio_size(folios[nr]));
	}
	for (i = 0; i < nr; i++)
		folio_put(folios[i]);
	free(folios);
}

/*
 * uf_cache() - Create the job's arena: memory_limit= if given (reclaim
 * holds the files to it, to the page), else room for all the files.
 * The arena itself is whole 2 MiB and has headroom past the limit.
 */
static int uf_cache(struct uf_ctx *ctx, char *err, size_t errlen)
{
	const struct run_job *job = ctx->job;
	uint64_t limit = job->memory_limit;
	uint64_t bytes;
	int ret;

	if (!limit)
		limit = job->filesize * ctx->nr_files + BENCH_ARENA_SLACK;
	if (limit < UPC_HUGE_SIZE) {
		snprintf(err, errlen, "upcache-file: memory_limit=%llu: "
			 "reclaim needs at least 2 MiB",
			 (unsigned long long)limit);
		return -EINVAL;
	}
	limit = (limit + UPC_PAGE_SIZE - 1) & ~(uint64_t)(UPC_PAGE_SIZE - 1);
	bytes = ((limit + UF_ALIGN - 1) & ~(uint64_t)(UF_ALIGN - 1)) +
		BENCH_ARENA_SLACK;
	ret = upc_arena_create((size_t)bytes, &ctx->arena);
	if (!ret)
		ret = upc_reclaim_init(ctx->arena);
	if (!ret)
		ret = upc_reclaim_set_limit(ctx->arena,
					    (unsigned long)(limit >>
							    UPC_PAGE_SHIFT));
	if (ret) {
		snprintf(err, errlen, "upcache-file: a cache of %llu MiB: %s",
			 (unsigned long long)(limit >> 20), strerror(-ret));
		return ret;
	}
	uf_prefault(ctx->arena, (unsigned long)(limit >> UPC_PAGE_SHIFT));
	return 0;
}

/* uf_setup() - Check the directory, create the cache, open the files. */
static int uf_setup(const struct run_job *job, void **out, char *err,
		    size_t errlen)
{
	struct uf_ctx *ctx;
	unsigned int i;
	int ret;

	ret = run_file_check_directory(job, err, errlen);
	if (ret)
		return ret;
	ctx = bench_xcalloc(1, sizeof(*ctx));
	ctx->job = job;
	ctx->nr_files = job->filename ? 1 : job->numjobs;
	ctx->files = bench_xcalloc(ctx->nr_files, sizeof(*ctx->files));
	for (i = 0; i < ctx->nr_files; i++)
		ctx->files[i].fd = -1;
	ret = uf_cache(ctx, err, errlen);
	for (i = 0; !ret && i < ctx->nr_files; i++) {
		struct uf_file *f = &ctx->files[i];

		f->path = run_file_path(job, i);
		ret = uf_prepare(ctx, f, err, errlen);
	}
	if (ret) {
		uf_teardown(ctx);
		return ret;
	}
	*out = ctx;
	return 0;
}

/*
 * uf_open() - A clone's handle: its file (shared with filename=) and its
 * own writeback error sample, taken now, so its syncs report errors met
 * from here on (an open file's f_wb_err).
 */
static int uf_open(void *arg, unsigned int clone, void **handle)
{
	struct uf_ctx *ctx = arg;
	struct uf_handle *h = bench_xcalloc(1, sizeof(*h));

	h->f = &ctx->files[ctx->nr_files == 1 ? 0 : clone];
	h->wb_since = errseq_sample(&h->f->ff.mapping.wb_err);
	*handle = h;
	return 0;
}

/*
 * uf_io() - One read or write through the cache, into or out of one
 * buffer (a one-segment iov_iter, as upc_read() and upc_write() make).
 */
static ssize_t uf_io(void *handle, bool write, void *buf, size_t len,
		     uint64_t off)
{
	struct uf_file *f = ((struct uf_handle *)handle)->f;
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct iov_iter iter;

	iov_iter_init(&iter, &iov, 1, len);
	if (write)
		return fd_file_write_iter(&f->ff, &iter, (int64_t)off);
	return fd_file_read_iter(&f->ff, &iter, (int64_t)off);
}

/*
 * uf_sync() - upc_fsync() (upc_fdatasync() for @datasync) of the clone's
 * file: write back, wait, flush.  Return: 0; the first writeback error
 * of this pass, else one met since the clone's last sync (by reclaim or
 * another clone's pass), reported once; fsync()'s or fdatasync()'s.
 */
static int uf_sync(void *handle, bool datasync)
{
	struct uf_handle *h = handle;

	return fd_file_fsync(&h->f->ff, &h->wb_since, datasync);
}

/* uf_close() - Free the handle: the file belongs to the job. */
static void uf_close(void *handle)
{
	free(handle);
}

const struct run_engine run_engine_file = {
	.name = "upcache-file",
	.upcache = true,
	.setup = uf_setup,
	.open = uf_open,
	.io = uf_io,
	.sync = uf_sync,
	.close = uf_close,
	.teardown = uf_teardown,
};
