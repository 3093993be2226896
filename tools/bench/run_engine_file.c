// SPDX-License-Identifier: MIT
/*
 * tools/bench/run_engine_file.c - the upcache-file engine.
 *
 * Owns running a job on upcache's page cache in front of a real file:
 * the file is the backing store (its a_ops read with pread() and write
 * back with pwrite()), the cache is upcache's address_space with an
 * arena, LRU lists and direct reclaim, so a file larger than
 * memory_limit= is read through eviction and refaults as the kernel's
 * page cache would be under a memory cgroup.
 *
 * Files are the kernel baselines' (run_engine_kernel.c): in /dev/shm
 * unless directory= or filename= say elsewhere, one per clone named
 * JOB.CLONE.0 or the one filename= gives, laid out as file_kind= says
 * when the run creates it (an existing file at least filesize= long is
 * used as it is), removed afterwards as unlink= says.  One cache per
 * job holds every file of the job (as upcache-shmem's does), sized to
 * hold them all unless memory_limit= is given.
 *
 * Operations:
 *
 *	read	per page: mapping_read_folio_gfp() (a hit is a lockless
 *		lookup; a miss allocates, may reclaim, and reads the page
 *		from the file), copy out, folio_put(); bytes past the
 *		file's size are not read, as pread() does
 *	write	filemap_grab_folios() for the block's pages (locked,
 *		created when missing), a folio the write covers only in
 *		part filled from the file first, copy in, folio_mark_dirty()
 *
 * Dirty folios reach the file when reclaim evicts them (writeback_folio)
 * and, for the rest, when the job ends: teardown writes them back before
 * dropping the cache, outside the measured phase, as fio's jobs do not
 * fsync by default.  A file teardown is about to remove is not written.
 *
 * The cache's size (address_space->size) is this engine's to keep: the
 * library leaves it to the mapping's owner.  It starts as the file's size and
 * grows with writes, under the folio lock of the last folio written, so
 * that reclaim writing that folio back sees the size that covers it.
 */
#define _GNU_SOURCE	/* fallocate() */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <upcache/filemap.h>
#include <upcache/folio.h>
#include <upcache/vmscan.h>

#include "run_engine.h"
#include "util.h"

#define UF_ALIGN	UPC_HUGE_SIZE	/* upc_arena_create()'s granule */
/* Folios grabbed at once by a write (a stack array of pointers). */
#define UF_GRAB		64u

/**
 * struct uf_file - one file of a job and its page cache.
 * @mapping: The page cache; @mapping.host points back here.
 * @path: The file's path.
 * @fd: The file, open for the whole job.
 * @created: This run created the file.
 *
 * The file's size as the cache sees it is @mapping.size, read and grown
 * atomically.
 */
struct uf_file {
	struct address_space mapping;
	char *path;
	int fd;
	bool created;
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

static inline int64_t uf_size(struct uf_file *f)
{
	return __atomic_load_n(&f->mapping.size, __ATOMIC_ACQUIRE);
}

/* uf_size_extend() - Grow the size to @end if smaller (racing writers). */
static void uf_size_extend(struct uf_file *f, int64_t end)
{
	int64_t old = uf_size(f);

	while (old < end &&
	       !__atomic_compare_exchange_n(&f->mapping.size, &old, end, false,
					    __ATOMIC_RELEASE, __ATOMIC_ACQUIRE))
		;
}

/* ---- the backing store --------------------------------------------------- */

/*
 * uf_fill() - Read a locked folio's bytes from the file, zeros past its
 * end.  Leaves the folio locked and its flags alone.
 */
static int uf_fill(struct uf_file *f, struct folio *folio)
{
	char *p = folio_address(folio);
	size_t len = folio_size(folio), done = 0;
	off_t pos = (off_t)folio->index << UPC_PAGE_SHIFT;

	while (done < len) {
		ssize_t n = pread(f->fd, p + done, len - done,
				  pos + (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	memset(p + done, 0, len - done);
	return 0;
}

/*
 * uf_write_out() - Write a locked folio to the file, no further than
 * the size: a whole last folio would make the file longer than the data.
 */
static int uf_write_out(struct uf_file *f, struct folio *folio)
{
	const char *p = folio_address(folio);
	int64_t pos = (int64_t)folio->index << UPC_PAGE_SHIFT;
	int64_t size = uf_size(f);
	size_t len = folio_size(folio), done = 0;

	if (pos >= size)
		return 0;
	if ((int64_t)len > size - pos)
		len = (size_t)(size - pos);
	while (done < len) {
		ssize_t n = pwrite(f->fd, p + done, len - done,
				   (off_t)pos + (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
	return 0;
}

/* read_folio: fill from the file, like a filesystem's read of a block. */
static int uf_read_folio(struct address_space *mapping, struct folio *folio)
{
	int ret = uf_fill(mapping->host, folio);

	if (!ret)
		folio_set_uptodate(folio);
	folio_unlock(folio);
	return ret;
}

/* writeback_folio: reclaim evicting a dirty folio writes it first. */
static int uf_writeback_folio(struct address_space *mapping,
			      struct folio *folio)
{
	return uf_write_out(mapping->host, folio);
}

static const struct address_space_operations uf_aops = {
	.read_folio = uf_read_folio,
	.writeback_folio = uf_writeback_folio,
};

/*
 * uf_flush() - Write every dirty folio back, as sync would: clear the
 * dirty bit and tag, mark writeback, write, end writeback.
 */
static int uf_flush(struct uf_file *f)
{
	struct address_space *mapping = &f->mapping;
	struct folio_batch fbatch;
	pgoff_t index = 0;
	unsigned int i;
	int ret = 0;

	folio_batch_init(&fbatch);
	while (!ret && filemap_get_folios_tag(mapping, &index,
					      MAX_PAGECACHE_INDEX,
					      PAGECACHE_TAG_DIRTY, &fbatch)) {
		for (i = 0; i < folio_batch_count(&fbatch); i++) {
			struct folio *folio = fbatch.folios[i];

			folio_lock(folio);
			if (!ret && folio->mapping == mapping &&
			    folio_clear_dirty_for_io(folio)) {
				folio_start_writeback(folio);
				ret = uf_write_out(f, folio);
				if (ret)
					folio_mark_dirty(folio);
				folio_end_writeback(folio);
			}
			folio_unlock(folio);
		}
		folio_batch_release(&fbatch);
	}
	return ret;
}

/* ---- operations ---------------------------------------------------------- */

/* uf_read() - Copy [@off, @off + @len) out of the cache, up to the size. */
static ssize_t uf_read(struct uf_file *f, char *buf, size_t len, uint64_t off)
{
	int64_t size = uf_size(f);
	uint64_t pos = off, end;

	if (off >= (uint64_t)size)
		return 0;
	if (len > (uint64_t)size - off)
		len = (size_t)((uint64_t)size - off);
	end = off + len;
	while (pos < end) {
		struct folio *folio;
		uint64_t fpos, to;

		folio = mapping_read_folio_gfp(&f->mapping,
					       (pgoff_t)(pos >> UPC_PAGE_SHIFT),
					       GFP_KERNEL);
		if (IS_ERR(folio))
			return pos > off ? (ssize_t)(pos - off) :
			       (ssize_t)PTR_ERR(folio);
		fpos = (uint64_t)folio->index << UPC_PAGE_SHIFT;
		to = fpos + folio_size(folio);
		if (to > end)
			to = end;
		memcpy(buf + (pos - off),
		       (char *)folio_address(folio) + (pos - fpos),
		       (size_t)(to - pos));
		folio_put(folio);
		pos = to;
	}
	return (ssize_t)len;
}

/*
 * uf_write_folio() - Copy the part of [@off, @end) that a locked folio
 * holds in, from @buf (which starts at @off); Return: where it ended,
 * or -errno if the folio could not be read first.  Unlocks and puts the
 * folio either way.
 */
static int64_t uf_write_folio(struct uf_file *f, struct folio *folio,
			      const char *buf, uint64_t off, uint64_t end)
{
	uint64_t fpos = (uint64_t)folio->index << UPC_PAGE_SHIFT;
	uint64_t fend = fpos + folio_size(folio);
	uint64_t from = off > fpos ? off : fpos;
	uint64_t to = end < fend ? end : fend;
	int ret = 0;

	/* A folio written in part keeps the file's bytes around the write. */
	if (!folio_test_uptodate(folio) && (from > fpos || to < fend))
		ret = uf_fill(f, folio);
	if (!ret) {
		memcpy((char *)folio_address(folio) + (from - fpos),
		       buf + (from - off), (size_t)(to - from));
		/*
		 * Uptodate only once the bytes are in: a lockless reader
		 * that sees the flag reads them without the lock.
		 */
		folio_set_uptodate(folio);
		folio_mark_dirty(folio);
		/* Before the unlock: writeback must not cut the folio short. */
		uf_size_extend(f, (int64_t)to);
	}
	folio_unlock(folio);
	folio_put(folio);
	return ret ? ret : (int64_t)to;
}

/* uf_write() - Copy [@off, @off + @len) into the cache, dirtying it. */
static ssize_t uf_write(struct uf_file *f, const char *buf, size_t len,
			uint64_t off)
{
	uint64_t pos = off, end = off + len;

	while (pos < end) {
		pgoff_t index = (pgoff_t)(pos >> UPC_PAGE_SHIFT);
		pgoff_t last = (pgoff_t)((end - 1) >> UPC_PAGE_SHIFT);
		unsigned int nr = last - index + 1 < UF_GRAB ?
				  (unsigned int)(last - index + 1) : UF_GRAB;
		struct folio *folios[UF_GRAB];
		int got, i;
		int64_t ret = 0;

		got = filemap_grab_folios(&f->mapping, index, nr, folios);
		if (got < 0)
			return pos > off ? (ssize_t)(pos - off) : got;
		for (i = 0; i < got; i++) {
			/* After a failure, only give the rest back. */
			if (ret < 0) {
				folio_unlock(folios[i]);
				folio_put(folios[i]);
				continue;
			}
			ret = uf_write_folio(f, folios[i], buf, off, end);
			if (ret >= 0)
				pos = (uint64_t)ret;
		}
		if (ret < 0)
			return pos > off ? (ssize_t)(pos - off) : (ssize_t)ret;
	}
	return (ssize_t)len;
}

/* ---- files --------------------------------------------------------------- */

/*
 * uf_prepare() - Open one file for the job (run_file_open()); its size
 * is the cache's starting size.
 */
static int uf_prepare(const struct run_job *job, struct uf_file *f,
		      char *err, size_t errlen)
{
	struct stat st;
	int ret;

	f->fd = run_file_open(job, f->path, &f->created, err, errlen);
	if (f->fd < 0)
		return f->fd;
	if (fstat(f->fd, &st)) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", f->path, strerror(-ret));
		return ret;
	}
	f->mapping.size = (int64_t)st.st_size;
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

		if (f->mapping.arena) {
			if (!rm && f->fd >= 0)
				ret = uf_flush(f);
			if (ret)
				bench_die("upcache-file: writing %s back: %s",
					  f->path, strerror(-ret));
			truncate_inode_pages(&f->mapping, 0);
			xa_destroy(&f->mapping.i_pages);
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
	struct stat st;
	unsigned int i;
	int ret;

	errno = 0;
	if ((!job->filename || job->filename[0] != '/') &&
	    (stat(job->directory, &st) || !S_ISDIR(st.st_mode))) {
		snprintf(err, errlen, "directory '%s': %s", job->directory,
			 errno ? strerror(errno) : "not a directory");
		return -ENOENT;
	}
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
		address_space_init(&f->mapping, ctx->arena, &uf_aops, 0);
		f->mapping.host = f;
		ret = uf_prepare(job, f, err, errlen);
	}
	if (ret) {
		uf_teardown(ctx);
		return ret;
	}
	*out = ctx;
	return 0;
}

/* uf_open() - A clone's handle is its file (shared with filename=). */
static int uf_open(void *arg, unsigned int clone, void **handle)
{
	struct uf_ctx *ctx = arg;

	*handle = &ctx->files[ctx->nr_files == 1 ? 0 : clone];
	return 0;
}

/* uf_io() - One read or write through the cache. */
static ssize_t uf_io(void *handle, bool write, void *buf, size_t len,
		     uint64_t off)
{
	if (write)
		return uf_write(handle, buf, len, off);
	return uf_read(handle, buf, len, off);
}

/* uf_close() - Nothing: the files belong to the job. */
static void uf_close(void *handle)
{
	(void)handle;
}

const struct run_engine run_engine_file = {
	.name = "upcache-file",
	.upcache = true,
	.setup = uf_setup,
	.open = uf_open,
	.io = uf_io,
	.close = uf_close,
	.teardown = uf_teardown,
};
