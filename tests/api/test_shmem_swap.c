// SPDX-License-Identifier: MIT
/*
 * tests/api/test_shmem_swap.c - shmem files going to swap and coming
 * back, through the upc_ API (include/upcache/upcache.h).
 *
 * A cache with a swap device (upc_swapon()) writes shmem pages to swap
 * when its memory limit is reached and leaves swap entries in the
 * file's page cache; every operation on a file must treat those entries
 * as the data they stand for.  One test per behaviour:
 *  - a file larger than memory round-trips byte-exact, with the swap
 *    figures of upc_cache_stats() adding up (device in memory and in a
 *    file);
 *  - a write over pages in swap, which holds them all while it runs,
 *    gets its memory from active pages going to swap;
 *  - without swap, or with memory and swap both full, writes still end
 *    in a short count and -ENOSPC, and a swapped page cannot be read
 *    back while nothing can make room for it (-ENOMEM);
 *  - SEEK_DATA/SEEK_HOLE take pages in swap for data without swapping
 *    them in;
 *  - punch hole and truncation free the slots of whole pages, swap in
 *    and zero in part the pages they cover in part, and leave zeros
 *    behind when the file grows again; truncating to 0 and closing give
 *    every slot back;
 *  - pages fallocated and never written never go to swap; large
 *    folios go whole, come back whole, and punching or truncating inside
 *    their swap entries splits them;
 *  - upc_swapoff() is refused while a file is open;
 *  - upc_get_spans() swaps in and pins; spans pinning all memory make
 *    the next swap-in fail with -ENOMEM, the documented way, for every
 *    operation that needs one;
 *  - readv/writev across pages in swap;
 *  - a swap file that loses its contents makes reads, writes, truncation
 *    and punches that need a page back fail with -EIO, changing nothing,
 *    and the data is whole again once the file is.
 *
 * Most tests first push the pages they look at out to swap
 * (ss_push_out(): a second file fills memory until they have gone, and
 * is closed), so that memory is then free and what follows swaps in
 * without reclaiming: swap-in and slot counts are exact there.  The
 * file's page cache is checked with upc_check_mapping() and the device
 * with upc_check_swap() after the operations that change them.  The
 * smallest cache (2 MiB, 512 pages) makes a file of a few MiB swap.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <linux/falloc.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "api_helpers.h"
#include "fault.h"
#include "io/fd.h"
#include "mm/swap_internal.h"
#include <upcache/stats.h>

#define LIMIT		(2 * API_MIB)
#define LIMIT_PAGES	(LIMIT / API_PAGE)
#define SWAP		(32 * API_MIB)
#define P		API_PAGE

/* ---- helpers ------------------------------------------------------------- */

/* A temporary file's name, for swap files; removed by ss_unlink(). */
struct ss_path {
	char name[64];
};

static void ss_tmpname(struct ss_path *p)
{
	int fd;

	snprintf(p->name, sizeof(p->name), "/tmp/upc_test_shmem_swap_XXXXXX");
	fd = mkstemp(p->name);
	assert_true(fd >= 0);
	close(fd);
}

static void ss_unlink(struct ss_path *p)
{
	assert_int_equal(unlink(p->name), 0);
}

/* Give @env's cache @size bytes of swap at @path (NULL: in memory). */
static void ss_swapon(struct api_env *env, const char *path, uint64_t size)
{
	struct upc_swap_config cfg = { .path = path, .size = size };

	assert_int_equal(upc_swapon(env->cache, &cfg), 0);
}

/* A cache of @limit bytes with @swap bytes of swap (0: none) and a file. */
static struct upc_file *ss_init(struct api_env *env, size_t limit,
				enum upc_huge huge, uint64_t swap,
				const char *path)
{
	struct upc_file *file = api_init(env, limit, huge, 0);

	if (swap)
		ss_swapon(env, path, swap);
	return file;
}

/*
 * ss_init_swap_file() - ss_init() with @swap bytes of swap in a new
 * temporary file, removed at once: the device keeps it open.
 */
static struct upc_file *ss_init_swap_file(struct api_env *env, size_t limit,
					  enum upc_huge huge, uint64_t swap)
{
	struct upc_file *file;
	struct ss_path path;

	ss_tmpname(&path);
	file = ss_init(env, limit, huge, swap, path.name);
	ss_unlink(&path);
	return file;
}

static struct upc_cache_stats ss_stats(struct api_env *env)
{
	struct upc_cache_stats st;

	assert_int_equal(upc_cache_stats(env->cache, &st), 0);
	return st;
}

/* The file's page cache, and the swap device if there is one. */
static void ss_check(struct api_env *env, struct upc_file *file)
{
	assert_file_ok(file);
	if (env->cache->swap)
		assert_int_equal(upc_check_swap(env->cache->swap), 0);
}

/* Is the page at @pos in swap (a swap entry in the file's cache)? */
static bool ss_in_swap(struct upc_file *file, int64_t pos)
{
	void *entry = filemap_get_entry(upc_file_mapping(file),
					(pgoff_t)pos >> UPC_PAGE_SHIFT);

	if (entry && !xa_is_value(entry))
		folio_put(entry);
	return entry && xa_is_value(entry);
}

/* Is the page at @pos in a folio (not in swap) that is dirty? */
static bool ss_folio_dirty(struct upc_file *file, int64_t pos)
{
	void *entry = filemap_get_entry(upc_file_mapping(file),
					(pgoff_t)pos >> UPC_PAGE_SHIFT);
	bool dirty;

	if (!entry || xa_is_value(entry))
		return false;
	dirty = folio_test_dirty(entry);
	folio_put(entry);
	return dirty;
}

/* Pages in swap among those of [@lo, @hi). */
static unsigned long ss_count_swapped(struct upc_file *file, int64_t lo,
				      int64_t hi)
{
	unsigned long n = 0;
	int64_t pos;

	for (pos = lo & ~(P - 1); pos < hi; pos += P)
		n += ss_in_swap(file, pos);
	return n;
}

/*
 * Could reclaim still send a page of [@lo, @hi) to swap?  Only uptodate
 * folios go (see upc_swapon()).
 */
static bool ss_swappable_left(struct upc_file *file, int64_t lo, int64_t hi)
{
	int64_t pos;

	for (pos = lo & ~(P - 1); pos < hi; pos += P) {
		bool uptodate = false;

		if (api_folio_order(file, pos, &uptodate) >= 0 && uptodate)
			return true;
	}
	return false;
}

/*
 * The order of the swap entry standing for the page at @pos, or -1 if
 * the page is not in swap.
 */
static int ss_swap_order(struct upc_file *file, int64_t pos)
{
	struct xarray *xa = &upc_file_mapping(file)->i_pages;
	pgoff_t index = (pgoff_t)pos >> UPC_PAGE_SHIFT;

	if (!xa_is_value(xa_load(xa, index)))
		return -1;
	return xa_get_order(xa, index);
}

/*
 * Write @len bytes to a second file, then close it: memory pressure that
 * leaves the cache's memory free again (the filler's own slots go too).
 */
static void ss_pressure(struct api_env *env, int64_t len)
{
	struct upc_file *filler;
	char page[P];
	int64_t pos;

	memset(page, 0x5a, sizeof(page));
	assert_int_equal(upc_shmem_create(env->cache, NULL, &filler), 0);
	for (pos = 0; pos < len; pos += P)
		assert_int_equal(upc_write(filler, page, P, pos), P);
	assert_int_equal(upc_close(filler), 0);
}

/*
 * Send every page of [@lo, @hi) of @file that can go to swap there: a
 * filler file is written until none is left in memory, then closed.
 * Reclaim takes the oldest inactive pages first, so the filler's length
 * is not known beforehand.  Pages used again since they were written
 * are active and stay while the inactive list (the filler) is longer,
 * so callers push out only pages written once and not read since.
 * Afterwards memory holds only what cannot go.
 */
static void ss_push_out(struct api_env *env, struct upc_file *file,
			int64_t lo, int64_t hi)
{
	int64_t limit = (int64_t)env->cache->memory_limit;
	struct upc_file *filler;
	char page[P];
	int64_t pos = 0;
	int i;

	memset(page, 0xa5, sizeof(page));
	assert_int_equal(upc_shmem_create(env->cache, NULL, &filler), 0);
	while (ss_swappable_left(file, lo, hi)) {
		/* Everything else could have gone twice over by now. */
		assert_true(pos < 4 * limit);
		for (i = 0; i < 16; i++, pos += P)
			assert_int_equal(upc_write(filler, page, P, pos), P);
	}
	assert_int_equal(upc_close(filler), 0);
}

/* Write pattern @seed over [@pos, @pos + @len) in pieces of @chunk. */
static void ss_write_chunks(struct upc_file *file, int64_t pos, int64_t len,
			    int64_t chunk, unsigned int seed)
{
	int64_t end = pos + len;

	for (; pos < end; pos += chunk)
		api_write_pattern(file, pos, (size_t)(end - pos < chunk ?
						      end - pos : chunk), seed);
}

/* [@pos, @pos + @len) of @model holds pattern @seed (zeros: seed 0). */
static void ss_model_fill(unsigned char *model, int64_t pos, int64_t len,
			  unsigned int seed)
{
	if (seed)
		api_fill(model + pos, (size_t)len, pos, seed);
	else
		memset(model + pos, 0, (size_t)len);
}

/* The file reads as @model over [0, @size), and its size is @size. */
static void ss_expect_model(struct upc_file *file, const unsigned char *model,
			    int64_t size)
{
	unsigned char *buf = malloc((size_t)size + 1);
	int64_t i;

	assert_non_null(buf);
	assert_int_equal(upc_size(file), size);
	assert_int_equal(upc_read(file, buf, (size_t)size + 1, 0), size);
	for (i = 0; i < size; i++)
		if (buf[i] != model[i])
			fail_msg("byte %" PRId64 ": %#x, expected %#x", i,
				 buf[i], model[i]);
	free(buf);
}

/* Close the test's file; with it its slots go. */
static void ss_close(struct api_env *env)
{
	assert_file_ok(env->file);
	assert_int_equal(upc_close(env->file), 0);
	env->file = NULL;
	assert_int_equal(ss_stats(env).swap_used, 0);
	if (env->cache->swap)
		assert_int_equal(upc_check_swap(env->cache->swap), 0);
}

/* ---- larger than memory -------------------------------------------------- */

/*
 * A file three times the cache: what does not fit goes to swap, every
 * page is either in memory or in exactly one slot, everything reads
 * back, and closing the file gives the slots back.
 */
static void ss_round_trip(const char *path)
{
	const int64_t size = 3 * LIMIT;
	struct upc_cache_stats st, st2;
	struct upc_file *file;
	struct api_env env;
	unsigned long swapped;

	file = ss_init(&env, LIMIT, UPC_HUGE_NEVER, 8 * API_MIB, path);
	/* Odd-sized writes: pages written in two pieces, by two calls. */
	ss_write_chunks(file, 0, size, 3 * P + 1000, 1);
	st = ss_stats(&env);
	swapped = ss_count_swapped(file, 0, size);
	assert_int_equal(upc_size(file), size);
	assert_int_equal(st.swap_total, 8 * API_MIB);
	assert_true(st.swapouts >= (uint64_t)(size - LIMIT) / P);
	assert_true(st.swap_used >= (uint64_t)(size - LIMIT));
	/* One slot per page in swap, none leaked by pages swapped in. */
	assert_int_equal(st.swap_used, swapped * P);
	assert_true(st.swap_used <= st.swapouts * P);
	assert_int_equal(st.pages_cached + swapped, size / P);
	/* A write finishes a page it wrote just before, still in memory. */
	assert_int_equal(st.swapins, 0);
	ss_check(&env, file);

	api_expect(file, 0, size, 1);
	st2 = ss_stats(&env);
	/*
	 * Each page in swap came back once; pages the read's swap-ins
	 * pushed out before it reached them came back too, but none
	 * twice (the read goes forward).
	 */
	assert_true(st2.swapins >= swapped);
	assert_true(st2.swapins <= (uint64_t)size / P);
	swapped = ss_count_swapped(file, 0, size);
	assert_int_equal(st2.swap_used, swapped * P);
	assert_int_equal(st2.pages_cached + swapped, size / P);
	ss_check(&env, file);
	/* A second pass reads the same bytes. */
	api_expect(file, 0, size, 1);
	ss_close(&env);
	api_fini(&env);
}

static void test_shmem_swap_round_trip(void **state)
{
	struct ss_path path;

	(void)state;
	ss_round_trip(NULL);
	ss_tmpname(&path);
	ss_round_trip(path.name);
	ss_unlink(&path);
}

/*
 * Reads swap a file's pages in with readahead when they go through it in
 * order (swapin_readahead(): windows of 2, 4, then 8 pages, one read of
 * the swap file each), and without it backwards; either way every page
 * comes back once and reads as written.
 */
static void test_shmem_swap_readahead(void **state)
{
	const int64_t half = 256 * P;
	struct io_counters *io = io_thread_counters();
	struct upc_cache_stats st;
	struct upc_file *file;
	uint64_t syscalls, swapins;
	struct api_env env;
	int64_t pos;

	(void)state;
	file = ss_init_swap_file(&env, 1024 * P, UPC_HUGE_NEVER, 8 * 512 * P);
	api_write_pattern(file, 0, (size_t)(2 * half), 3);
	ss_push_out(&env, file, 0, 2 * half);
	assert_int_equal(ss_count_swapped(file, 0, 2 * half), 512);

	syscalls = io->syscalls;
	swapins = ss_stats(&env).swapins;
	for (pos = half - P; pos >= 0; pos -= P)
		api_expect(file, pos, P, 3);
	st = ss_stats(&env);
	assert_int_equal(st.swapins - swapins, 256);
	assert_int_equal(io->syscalls - syscalls, 256);

	syscalls = io->syscalls;
	swapins = st.swapins;
	for (pos = half; pos < 2 * half; pos += P)
		api_expect(file, pos, P, 3);
	st = ss_stats(&env);
	assert_int_equal(st.swapins - swapins, 256);
	if (io->syscalls - syscalls > 256 / SWAP_RA_MAX + 4)
		fail_msg("256 pages in %lu reads",
			 (unsigned long)(io->syscalls - syscalls));
	assert_int_equal(ss_count_swapped(file, 0, 2 * half), 0);
	ss_check(&env, file);
	api_fini(&env);
}

/*
 * Reclaim swaps a batch of a file's pages out together: pages whose slots
 * follow each other go in one write, SWAP_WRITE_RUN at a time
 * (swap_write_folios()).  One write per page before shmem's folios
 * joined the batch.
 */
static void test_shmem_swap_out_batched_writes(void **state)
{
	struct io_counters *io = io_thread_counters();
	struct upc_arena *arena;
	struct upc_file *file;
	struct api_env env;
	uint64_t syscalls, swapouts;

	(void)state;
	file = ss_init_swap_file(&env, LIMIT, UPC_HUGE_NEVER, SWAP);
	arena = upc_file_mapping(file)->arena;
	api_write_pattern(file, 0, 128 * P, 13);
	lru_add_drain_all(arena);
	syscalls = io->syscalls;
	swapouts = ss_stats(&env).swapouts;
	assert_int_equal(upc_reclaim_pages(arena, 64), 64);
	assert_int_equal(io->syscalls - syscalls, 64 / SWAP_WRITE_RUN);
	assert_int_equal(ss_stats(&env).swapouts - swapouts, 64);
	assert_int_equal(ss_count_swapped(file, 0, 128 * P), 64);
	ss_check(&env, file);
	api_expect(file, 0, 128 * P, 13);
	ss_check(&env, file);
	api_fini(&env);
}

/* Is the page at @pos in memory with the slots it came from (PG_swapslot)? */
static bool ss_kept(struct upc_file *file, int64_t pos)
{
	void *entry = filemap_get_entry(upc_file_mapping(file),
					(pgoff_t)pos >> UPC_PAGE_SHIFT);
	bool kept;

	if (!entry || xa_is_value(entry))
		return false;
	kept = folio_test_swapslot(entry);
	folio_put(entry);
	return kept;
}

/*
 * Pages read back from a swap file keep their slots (swap_cached) while
 * it is less than half in use, and reclaim sends them back without a
 * write; a write to one, a punch over one, a truncation and closing the
 * file free them.  Pages read back while it is half in use keep none.
 */
static void test_shmem_swap_keeps_clean_copy(void **state)
{
	const int64_t size = 256 * P;
	struct io_counters *io = io_thread_counters();
	struct upc_arena *arena;
	struct upc_file *file;
	struct api_env env;
	uint64_t syscalls, swapouts;
	int64_t pos;

	(void)state;
	file = ss_init_swap_file(&env, LIMIT, UPC_HUGE_NEVER, SWAP);
	arena = upc_file_mapping(file)->arena;
	api_write_pattern(file, 0, (size_t)size, 21);
	ss_push_out(&env, file, 0, size);
	assert_int_equal(ss_count_swapped(file, 0, size), 256);
	api_expect(file, 0, (size_t)size, 21);
	assert_int_equal(ss_count_swapped(file, 0, size), 0);
	assert_int_equal(ss_stats(&env).swap_cached, size);
	assert_int_equal(ss_stats(&env).swap_used, size);
	assert_true(ss_kept(file, 0) && ss_kept(file, size - P));
	ss_check(&env, file);

	/* Out again: no write, the same slots. */
	lru_add_drain_all(arena);
	syscalls = io->syscalls;
	swapouts = ss_stats(&env).swapouts;
	assert_int_equal(upc_reclaim_pages(arena, 256), 256);
	assert_int_equal(io->syscalls, syscalls);
	assert_int_equal(ss_stats(&env).swapouts - swapouts, 256);
	assert_int_equal(ss_count_swapped(file, 0, size), 256);
	assert_int_equal(ss_stats(&env).swap_cached, 0);
	assert_int_equal(ss_stats(&env).swap_used, size);
	ss_check(&env, file);
	api_expect(file, 0, (size_t)size, 21);
	assert_int_equal(ss_stats(&env).swap_cached, size);

	/* A one-byte write frees the page's slot. */
	api_write_pattern(file, 10 * P + 5, 1, 22);
	assert_false(ss_kept(file, 10 * P));
	assert_int_equal(ss_stats(&env).swap_cached, size - P);
	assert_int_equal(ss_stats(&env).swap_used, size - P);
	/* A punch over two pages and half of a third: all three. */
	assert_int_equal(upc_fallocate(file, FALLOC_FL_PUNCH_HOLE |
				       FALLOC_FL_KEEP_SIZE, 20 * P,
				       2 * P + P / 2), 0);
	assert_false(ss_kept(file, 22 * P));
	assert_int_equal(ss_stats(&env).swap_used, size - 4 * P);
	/* Truncation: the pages past the end, and the one cut in part. */
	assert_int_equal(upc_truncate(file, 200 * P + 1), 0);
	assert_int_equal(ss_stats(&env).swap_used, 200 * P - 4 * P);
	assert_int_equal(ss_stats(&env).swap_cached, 200 * P - 4 * P);
	ss_check(&env, file);
	for (pos = 0; pos < 200 * P; pos += P)
		if (pos != 10 * P && (pos < 20 * P || pos > 22 * P))
			assert_true(ss_kept(file, pos));
	ss_close(&env);		/* every slot back: the kept ones too */
	api_fini(&env);

	/*
	 * Swap half in use: a page read back keeps nothing.  Each such page
	 * frees its slot, so the later ones come back once it is less.
	 */
	file = ss_init_swap_file(&env, LIMIT, UPC_HUGE_NEVER, 2 * size);
	api_write_pattern(file, 0, (size_t)size, 23);
	ss_push_out(&env, file, 0, size);
	assert_int_equal(ss_stats(&env).swap_used, size);
	api_expect(file, 0, (size_t)size, 23);
	assert_false(ss_kept(file, 0));
	assert_true(ss_stats(&env).swap_cached < (uint64_t)size);
	assert_true(2 * ss_stats(&env).swap_cached <= ss_stats(&env).swap_total);
	assert_int_equal(ss_stats(&env).swap_used, ss_stats(&env).swap_cached);
	ss_check(&env, file);
	ss_close(&env);
	api_fini(&env);
}

/*
 * Rewriting pages that are in swap while other pages are active: the
 * write brings its pages back (a few dozen held at a time), so the
 * active pages must make room by going to swap, which has plenty.  (A
 * 400-page run plus 200 active pages is more than the 512 pages of
 * memory.)  Reclaim found nothing to free on the inactive list, full of
 * the write's pages, and never looked at the active one: -ENOSPC.
 */
static void test_shmem_swap_rewrite_beside_active(void **state)
{
	const int64_t run = 400 * P, hot = 200 * P;
	static char buf[400 * P];	/* a failed assertion frees nothing */
	struct upc_cache_stats st0, st;
	struct upc_file *file;
	struct api_env env;
	int i;

	(void)state;
	file = ss_init(&env, LIMIT, UPC_HUGE_NEVER, SWAP, NULL);
	/* Inside one aligned 2 MiB range: one run for the write. */
	api_write_pattern(file, 2 * LIMIT, (size_t)run, 25);
	ss_push_out(&env, file, 2 * LIMIT, 2 * LIMIT + run);
	assert_int_equal(ss_count_swapped(file, 2 * LIMIT, 2 * LIMIT + run),
			 run / P);
	/* Written three times: used again, so active. */
	for (i = 0; i < 3; i++)
		api_write_pattern(file, 0, (size_t)hot, 26);
	st0 = ss_stats(&env);
	assert_true(st0.pages_active >= (uint64_t)hot / P);
	assert_int_equal(st0.swap_used, run);

	api_fill(buf, (size_t)run, 2 * LIMIT, 27);
	assert_int_equal(upc_write(file, buf, (size_t)run, 2 * LIMIT), run);
	st = ss_stats(&env);
	/* At least what did not fit went out, all of it from the others. */
	assert_true(st.swapouts - st0.swapouts >=
		    (uint64_t)(run + hot - LIMIT) / P);
	/* Pages rewritten early may have gone out again for later ones. */
	assert_int_equal(st.swap_used,
			 (ss_count_swapped(file, 0, hot) +
			  ss_count_swapped(file, 2 * LIMIT, 2 * LIMIT + run)) * P);
	api_expect(file, 0, (size_t)hot, 26);
	api_expect(file, 2 * LIMIT, (size_t)run, 27);
	ss_check(&env, file);
	ss_close(&env);
	api_fini(&env);
}

/*
 * Reading is a use, as on tmpfs: pages written once and read over and
 * over go to the active list, and a stream written beside them twice
 * the cache's size goes to swap without them.
 */
static void test_shmem_swap_reads_keep_active(void **state)
{
	const int64_t hot = 64 * P, stream = 2 * LIMIT;
	struct upc_cache_stats st0, st;
	struct upc_file *file;
	struct api_env env;
	int i;

	(void)state;
	file = ss_init(&env, LIMIT, UPC_HUGE_NEVER, SWAP, NULL);
	api_write_pattern(file, 0, (size_t)hot, 31);
	st0 = ss_stats(&env);
	for (i = 0; i < 3; i++)
		api_expect(file, 0, (size_t)hot, 31);
	st = ss_stats(&env);
	assert_true(st.activations - st0.activations >= (uint64_t)hot / P);
	assert_true(st.pages_active >= (uint64_t)hot / P);
	ss_write_chunks(file, 4 * LIMIT, stream, 16 * P, 32);
	st = ss_stats(&env);
	assert_true(st.swapouts >= (uint64_t)(stream + hot - LIMIT) / P);
	assert_int_equal(ss_count_swapped(file, 0, hot), 0);
	api_expect(file, 0, (size_t)hot, 31);
	api_expect(file, 4 * LIMIT, (size_t)stream, 32);
	ss_check(&env, file);
	ss_close(&env);
	api_fini(&env);
}

/*
 * Rewriting a whole 2 MiB range that is in swap, in a 2 MiB cache that
 * also holds a fallocated (never written, so unswappable) page: the
 * write needs its pages back a few at a time, not all 512 at once plus
 * the one that cannot go, as tmpfs, which takes a page at a time.
 */
static void test_shmem_swap_rewrite_whole_range(void **state)
{
	const int64_t run = LIMIT;
	static char buf[LIMIT];	/* a failed assertion frees nothing */
	struct upc_cache_stats st;
	struct upc_file *file;
	struct api_env env;

	(void)state;
	file = ss_init(&env, LIMIT, UPC_HUGE_NEVER, SWAP, NULL);
	assert_int_equal(upc_fallocate(file, FALLOC_FL_KEEP_SIZE, 0, P), 0);
	api_write_pattern(file, 2 * LIMIT, (size_t)run, 28);
	ss_push_out(&env, file, 2 * LIMIT, 2 * LIMIT + run);
	assert_int_equal(ss_count_swapped(file, 2 * LIMIT, 2 * LIMIT + run),
			 run / P);

	api_fill(buf, (size_t)run, 2 * LIMIT, 29);
	assert_int_equal(upc_write(file, buf, (size_t)run, 2 * LIMIT), run);
	st = ss_stats(&env);
	assert_int_equal(st.swap_used,
			 ss_count_swapped(file, 2 * LIMIT, 2 * LIMIT + run) * P);
	api_expect(file, 2 * LIMIT, (size_t)run, 29);
	ss_check(&env, file);
	ss_close(&env);
	api_fini(&env);
}

/* A swap-in in flight elsewhere holds page @pin's slot for a while. */
struct ss_slot_pin {
	struct swap_info_struct *si;
	unsigned long off;
};

static void *ss_unpin_later(void *arg)
{
	struct ss_slot_pin *pin = arg;

	usleep(50 * 1000);
	swap_slots_put(pin->si, pin->off, 1, SWAP_HAS_CACHE);
	return NULL;
}

/*
 * A write over page 0 while its slot is pinned by a swap-in that is not
 * the write's (SWAP_HAS_CACHE, as a stale swap-in of another file holds
 * it): the write's swap-in must wait and look again, then bring the
 * page back before writing into it.  Page 0 is the case that broke: the
 * retry set the next index to 0, which was taken for a wrap past the
 * last page, and the write then took the swap entry for a shadow.
 */
static void test_shmem_swap_write_waits_for_pinned_slot(void **state)
{
	unsigned char want[2 * P], got[2 * P];
	struct ss_slot_pin pin;
	struct upc_file *file;
	struct api_env env;
	pthread_t thread;
	void *entry;

	(void)state;
	file = ss_init(&env, LIMIT, UPC_HUGE_NEVER, SWAP, NULL);
	api_write_pattern(file, 0, 2 * P, 31);
	ss_push_out(&env, file, 0, 2 * P);
	entry = filemap_get_entry(&file->shmem.mapping, 0);
	assert_true(xa_is_value(entry));
	pin.si = swap_info_get(radix_to_swp_entry(entry));
	pin.off = swp_offset(radix_to_swp_entry(entry));
	assert_non_null(pin.si);
	assert_int_equal(swapcache_prepare(pin.si, pin.off, 1), 0);
	assert_int_equal(pthread_create(&thread, NULL, ss_unpin_later, &pin),
			 0);

	assert_int_equal(upc_write(file, "B", 1, 10), 1);
	assert_int_equal(pthread_join(thread, NULL), 0);
	api_fill(want, sizeof(want), 0, 31);
	want[10] = 'B';
	assert_int_equal(upc_read(file, got, sizeof(got), 0), sizeof(got));
	assert_memory_equal(got, want, sizeof(want));
	ss_check(&env, file);
	ss_close(&env);
	api_fini(&env);
}

/* XArray walks one upc_write() of @len bytes at @pos takes. */
static uint64_t ss_write_walks(struct upc_file *file, int64_t pos, size_t len)
{
	static char buf[64 * P];
	struct upc_thread_stats st;

	assert_true(len <= sizeof(buf));
	upc_stats_thread_reset();
	assert_int_equal(upc_write(file, buf, len, pos), (ssize_t)len);
	upc_stats_thread(&st);
	return st.xa_walks;
}

/*
 * A write holds its run's folios (one walk) only once the file can swap:
 * without swap nothing can take them, and the write is the grab's two
 * walks, as seed 004 measures it.
 */
static void test_shmem_write_pins_only_with_swap(void **state)
{
	struct upc_file *file;
	struct api_env env;

	(void)state;
	file = ss_init(&env, LIMIT, UPC_HUGE_NEVER, 0, NULL);
	/* The first write also grows the tree; then its leaf is there. */
	ss_write_walks(file, 0, 16 * P);
	/* Overwriting: the grab finds every folio in its one walk. */
	assert_int_equal(ss_write_walks(file, 0, 16 * P), 1);
	/* New pages in the same leaf: the grab's lookup, then its insert. */
	assert_int_equal(ss_write_walks(file, 16 * P, 16 * P), 2);
	ss_swapon(&env, NULL, SWAP);
	/* Each write now holds its run first: one walk more. */
	assert_int_equal(ss_write_walks(file, 0, 16 * P), 2);
	assert_int_equal(ss_write_walks(file, 32 * P, 16 * P), 3);
	ss_check(&env, file);
	ss_close(&env);
	api_fini(&env);
}

/* XArray walks one page-aligned punch of [@pos, @pos + @len) takes. */
static uint64_t ss_punch_walks(struct upc_file *file, int64_t pos,
			       int64_t len)
{
	struct upc_thread_stats st;

	upc_stats_thread_reset();
	assert_int_equal(upc_fallocate(file, FALLOC_FL_PUNCH_HOLE |
				       FALLOC_FL_KEEP_SIZE, pos, len), 0);
	upc_stats_thread(&st);
	return st.xa_walks;
}

/*
 * A page-aligned punch looks at its two edge pages (a walk each) only
 * once the file can swap: before, no swap entry can reach across an
 * edge and reclaim cannot take an edge folio.
 */
static void test_shmem_punch_edges_only_with_swap(void **state)
{
	struct upc_file *file;
	struct api_env env;
	uint64_t without;

	(void)state;
	file = ss_init(&env, LIMIT, UPC_HUGE_NEVER, 0, NULL);
	api_write_pattern(file, 0, 64 * P, 33);
	without = ss_punch_walks(file, 4 * P, 8 * P);
	ss_swapon(&env, NULL, SWAP);
	assert_int_equal(ss_punch_walks(file, 36 * P, 8 * P), without + 2);
	api_expect(file, 0, 4 * P, 33);
	api_expect(file, 4 * P, 8 * P, 0);
	api_expect(file, 12 * P, 24 * P, 33);
	api_expect(file, 36 * P, 8 * P, 0);
	api_expect(file, 44 * P, 20 * P, 33);
	ss_check(&env, file);
	ss_close(&env);
	api_fini(&env);
}

/* Without swap, a full cache still means a short write, then -ENOSPC. */
static void test_shmem_no_swap_enospc(void **state)
{
	const size_t len = 2 * LIMIT;
	struct upc_cache_stats st;
	struct upc_file *file;
	struct api_env env;
	char *buf = malloc(len);

	(void)state;
	assert_non_null(buf);
	file = ss_init(&env, LIMIT, UPC_HUGE_NEVER, 0, NULL);
	api_fill(buf, len, 0, 2);
	assert_int_equal(upc_write(file, buf, len, 0), LIMIT);
	assert_int_equal(upc_write(file, buf, 1, LIMIT), -ENOSPC);
	assert_int_equal(upc_size(file), LIMIT);
	st = ss_stats(&env);
	assert_int_equal(st.swap_total, 0);
	assert_int_equal(st.swapouts, 0);
	assert_int_equal(st.memory_used, LIMIT);
	api_expect(file, 0, LIMIT, 2);
	ss_check(&env, file);
	free(buf);
	api_fini(&env);
}

/*
 * Memory and swap both full: the write stops where both are, then
 * -ENOSPC.  A page in swap cannot come back (nothing can go out to make
 * room for it): -ENOMEM, nothing lost; a punch makes room.
 */
static void test_shmem_swap_full(void **state)
{
	const size_t len = 3 * LIMIT;
	const int64_t full = LIMIT + 2 * API_MIB;
	struct upc_cache_stats st;
	struct upc_file *file;
	struct api_env env;
	char *buf = malloc(len);
	char c;

	(void)state;
	assert_non_null(buf);
	file = ss_init(&env, LIMIT, UPC_HUGE_NEVER, 2 * API_MIB, NULL);
	api_fill(buf, len, 0, 3);
	assert_int_equal(upc_write(file, buf, len, 0), full);
	assert_int_equal(upc_write(file, buf, 1, full), -ENOSPC);
	assert_int_equal(upc_size(file), full);
	st = ss_stats(&env);
	assert_int_equal(st.swap_used, 2 * API_MIB);
	assert_int_equal(st.memory_used, LIMIT);
	ss_check(&env, file);
	/* The oldest pages are in swap, the newest in memory. */
	assert_true(ss_in_swap(file, 0));
	assert_false(ss_in_swap(file, full - 1));
	assert_int_equal(upc_read(file, &c, 1, 0), -ENOMEM);
	assert_int_equal(ss_stats(&env).swap_used, 2 * API_MIB);
	api_expect(file, full - P, P, 3);
	ss_check(&env, file);
	/* Freeing swap lets a page go out, and another come back. */
	assert_int_equal(upc_fallocate(file, FALLOC_FL_PUNCH_HOLE |
				       FALLOC_FL_KEEP_SIZE, P, 16 * P), 0);
	assert_int_equal(ss_stats(&env).swap_used, 2 * API_MIB - 16 * P);
	api_expect(file, 0, P, 3);
	api_expect(file, P, 16 * P, 0);
	api_expect(file, 17 * P, (size_t)(full - 17 * P), 3);
	ss_check(&env, file);
	free(buf);
	ss_close(&env);
	api_fini(&env);
}

/* ---- seeking ------------------------------------------------------------- */

/*
 * Pages in swap are data for SEEK_DATA/SEEK_HOLE, and stay in swap;
 * fallocated pages, in memory, are holes.  Layout, in pages:
 *   [0, 16) data   [16, 32) hole   [32, 48) data (page 40 in memory)
 *   [48, 64) fallocated            [64, 80) data; size 80 pages.
 */
static void test_shmem_swap_seek(void **state)
{
	struct upc_cache_stats st;
	struct upc_file *file;
	struct api_env env;
	char c;

	(void)state;
	file = ss_init(&env, LIMIT, UPC_HUGE_NEVER, SWAP, NULL);
	api_write_pattern(file, 0, 16 * P, 4);
	api_write_pattern(file, 32 * P, 16 * P, 4);
	assert_int_equal(upc_fallocate(file, 0, 48 * P, 16 * P), 0);
	api_write_pattern(file, 64 * P, 16 * P, 4);
	ss_push_out(&env, file, 0, 80 * P);
	assert_int_equal(ss_count_swapped(file, 0, 80 * P), 48);
	assert_int_equal(ss_count_swapped(file, 48 * P, 64 * P), 0);
	assert_int_equal(upc_read(file, &c, 1, 40 * P), 1);
	assert_false(ss_in_swap(file, 40 * P));
	st = ss_stats(&env);
	assert_int_equal(st.swap_used, 47 * P);

	assert_int_equal(upc_seek_data(file, 0), 0);
	assert_int_equal(upc_seek_data(file, 100), 100);
	assert_int_equal(upc_seek_hole(file, 0), 16 * P);
	assert_int_equal(upc_seek_hole(file, 5 * P + 7), 16 * P);
	assert_int_equal(upc_seek_data(file, 16 * P), 32 * P);
	assert_int_equal(upc_seek_data(file, 20 * P + 1), 32 * P);
	assert_int_equal(upc_seek_hole(file, 16 * P), 16 * P);
	/* Across the page in memory. */
	assert_int_equal(upc_seek_hole(file, 32 * P), 48 * P);
	assert_int_equal(upc_seek_data(file, 41 * P + 9), 41 * P + 9);
	/* Fallocated pages stay holes beside swapped ones. */
	assert_int_equal(upc_seek_data(file, 47 * P + 5), 47 * P + 5);
	assert_int_equal(upc_seek_hole(file, 47 * P + 5), 48 * P);
	assert_int_equal(upc_seek_data(file, 48 * P), 64 * P);
	assert_int_equal(upc_seek_hole(file, 50 * P), 50 * P);
	assert_int_equal(upc_seek_hole(file, 64 * P), 80 * P);
	assert_int_equal(upc_seek_data(file, 80 * P - 1), 80 * P - 1);
	assert_int_equal(upc_seek_data(file, 80 * P), -ENXIO);
	assert_int_equal(upc_seek_hole(file, 80 * P), -ENXIO);
	/* Grown: the end is a hole after the swapped data. */
	assert_int_equal(upc_truncate(file, 100 * P), 0);
	assert_int_equal(upc_seek_data(file, 79 * P + 3), 79 * P + 3);
	assert_int_equal(upc_seek_data(file, 80 * P), -ENXIO);
	assert_int_equal(upc_seek_hole(file, 70 * P), 80 * P);

	/* Nothing came back for the seeks, and nothing moved. */
	assert_int_equal(ss_stats(&env).swapins, st.swapins);
	assert_int_equal(ss_stats(&env).swap_used, 47 * P);
	assert_int_equal(ss_count_swapped(file, 0, 80 * P), 47);
	ss_check(&env, file);
	api_expect(file, 0, 16 * P, 4);
	api_expect(file, 16 * P, 16 * P, 0);
	api_expect(file, 32 * P, 16 * P, 4);
	api_expect(file, 48 * P, 16 * P, 0);
	api_expect(file, 64 * P, 16 * P, 4);
	api_expect(file, 80 * P, 20 * P, 0);
	ss_close(&env);
	api_fini(&env);
}

/* ---- freeing ------------------------------------------------------------- */

/*
 * Punching over pages in swap: whole pages lose their slots without
 * coming back; a page covered in part comes back and is zeroed there.
 */
static void test_shmem_swap_punch(void **state)
{
	const int mode = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;
	const int64_t size = 32 * P;
	unsigned char model[32 * P];
	struct upc_cache_stats st;
	struct upc_file *file;
	struct api_env env;
	uint64_t swapins;

	(void)state;
	file = ss_init(&env, LIMIT, UPC_HUGE_NEVER, SWAP, NULL);
	api_write_pattern(file, 0, size, 5);
	ss_model_fill(model, 0, size, 5);
	ss_push_out(&env, file, 0, size);
	st = ss_stats(&env);
	assert_int_equal(ss_count_swapped(file, 0, size), 32);
	assert_int_equal(st.swap_used, 32 * P);
	assert_int_equal(st.memory_used, 0);
	swapins = st.swapins;

	/* Whole pages [4, 8): slots freed, nothing read. */
	assert_int_equal(upc_fallocate(file, mode, 4 * P, 4 * P), 0);
	ss_model_fill(model, 4 * P, 4 * P, 0);
	st = ss_stats(&env);
	assert_int_equal(st.swapins, swapins);
	assert_int_equal(st.swap_used, 28 * P);
	assert_int_equal(st.memory_used, 0);
	assert_int_equal(api_folio_order(file, 5 * P, NULL), -1);
	assert_false(ss_in_swap(file, 5 * P));
	assert_int_equal(upc_seek_hole(file, 0), 4 * P);
	assert_int_equal(upc_seek_data(file, 4 * P), 8 * P);
	ss_check(&env, file);

	/* [10 + 100 B, 13 + 200 B): pages 10 and 13 back, 11 and 12 freed. */
	assert_int_equal(upc_fallocate(file, mode, 10 * P + 100,
				       3 * P + 100), 0);
	ss_model_fill(model, 10 * P + 100, 3 * P + 100, 0);
	st = ss_stats(&env);
	assert_int_equal(st.swapins, swapins + 2);
	assert_int_equal(st.swap_used, 24 * P);
	assert_int_equal(st.memory_used, 2 * P);
	assert_false(ss_in_swap(file, 10 * P));
	assert_int_equal(api_folio_order(file, 10 * P, NULL), 0);
	assert_int_equal(api_folio_order(file, 11 * P, NULL), -1);
	assert_int_equal(api_folio_order(file, 12 * P, NULL), -1);
	assert_int_equal(api_folio_order(file, 13 * P, NULL), 0);
	assert_int_equal(upc_seek_hole(file, 10 * P), 11 * P);
	assert_int_equal(upc_seek_data(file, 11 * P), 13 * P);
	ss_check(&env, file);

	/* Inside one page: it comes back once. */
	assert_int_equal(upc_fallocate(file, mode, 20 * P + 10, 10), 0);
	ss_model_fill(model, 20 * P + 10, 10, 0);
	st = ss_stats(&env);
	assert_int_equal(st.swapins, swapins + 3);
	assert_int_equal(st.swap_used, 23 * P);
	ss_check(&env, file);

	/* Past the end: page 30 in part, 31 whole; the size stays. */
	assert_int_equal(upc_fallocate(file, mode, 30 * P + 1, 70 * P), 0);
	ss_model_fill(model, 30 * P + 1, 2 * P - 1, 0);
	st = ss_stats(&env);
	assert_int_equal(st.swapins, swapins + 4);
	assert_int_equal(st.swap_used, 21 * P);
	assert_int_equal(upc_size(file), size);
	ss_check(&env, file);

	/* The same pages, read as they were before any of it was punched. */
	ss_expect_model(file, model, size);
	ss_close(&env);
	api_fini(&env);
}

/*
 * A punch inside the first page, from offset 0, covers no whole page:
 * the range of whole pages inside it is empty (its first page is page
 * 1, its end page 0), so no slot is freed and only page 0 comes back.
 * The empty range must not be taken for [0, ULONG_MAX] (its last page
 * computed as 0 - 1), which would throw every slot of the file away.
 */
static void test_shmem_swap_punch_head_of_page_zero(void **state)
{
	const int mode = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;
	const int64_t size = 8 * P;
	unsigned char model[8 * P];
	struct upc_cache_stats st;
	struct upc_file *file;
	struct api_env env;
	uint64_t swapins;

	(void)state;
	file = ss_init(&env, LIMIT, UPC_HUGE_NEVER, SWAP, NULL);
	api_write_pattern(file, 0, size, 9);
	ss_model_fill(model, 0, size, 9);
	ss_push_out(&env, file, 0, size);
	st = ss_stats(&env);
	assert_int_equal(ss_count_swapped(file, 0, size), size / P);
	assert_int_equal(st.swap_used, size);
	swapins = st.swapins;

	assert_int_equal(upc_fallocate(file, mode, 0, 100), 0);
	ss_model_fill(model, 0, 100, 0);
	/* Page 0 came back to be zeroed in part; every other slot stays. */
	st = ss_stats(&env);
	assert_int_equal(st.swapins, swapins + 1);
	assert_int_equal(st.swap_used, size - P);
	assert_false(ss_in_swap(file, 0));
	assert_int_equal(ss_count_swapped(file, P, size), size / P - 1);
	ss_check(&env, file);
	ss_expect_model(file, model, size);
	ss_close(&env);
	api_fini(&env);
}

/*
 * A shmem folio is the only copy of its data, so it is dirty, as
 * tmpfs's are: dropping clean folios (invalidate_mapping_pages(), the
 * kernel's drop_caches) must leave a shmem file alone.  This holds for
 * written folios and for fallocated ones (tmpfs marks those dirty too,
 * so that the allocation is not dropped), and matters only once the
 * file can swap: before, the evict_lock hook refuses every folio.
 */
static void test_shmem_swap_invalidate_keeps_all(void **state)
{
	const int64_t half = 8 * P;
	struct upc_file *file;
	struct api_env env;
	int64_t pos;

	(void)state;
	file = ss_init(&env, LIMIT, UPC_HUGE_NEVER, SWAP, NULL);
	api_write_pattern(file, 0, half, 12);
	assert_int_equal(upc_fallocate(file, 0, half, half), 0);
	for (pos = 0; pos < 2 * half; pos += P)
		assert_true(ss_folio_dirty(file, pos));
	assert_int_equal(invalidate_mapping_pages(upc_file_mapping(file), 0,
						  ULONG_MAX), 0);
	assert_int_equal(ss_stats(&env).pages_cached, 2 * half / P);
	api_expect(file, 0, half, 12);
	api_expect(file, half, half, 0);
	/* The fallocated pages are still there, and still holes. */
	assert_int_equal(upc_seek_hole(file, 0), half);
	assert_int_equal(upc_seek_data(file, half), -ENXIO);
	ss_check(&env, file);
	ss_close(&env);
	api_fini(&env);
}

/*
 * Truncating over pages in swap: the slots of the pages past the new
 * size go, the page it falls in comes back with its tail zeroed, and
 * growing again shows zeros.  Truncating to 0, or closing, frees all.
 */
static void test_shmem_swap_truncate(void **state)
{
	struct upc_cache_stats st;
	struct upc_file *file;
	struct api_env env;
	uint64_t swapins;

	(void)state;
	file = ss_init(&env, LIMIT, UPC_HUGE_NEVER, SWAP, NULL);
	api_write_pattern(file, 0, 32 * P, 6);
	ss_push_out(&env, file, 0, 32 * P);
	st = ss_stats(&env);
	assert_int_equal(st.swap_used, 32 * P);
	swapins = st.swapins;

	/* On a page boundary: nothing needs to come back. */
	assert_int_equal(upc_truncate(file, 24 * P), 0);
	st = ss_stats(&env);
	assert_int_equal(st.swapins, swapins);
	assert_int_equal(st.swap_used, 24 * P);
	assert_int_equal(ss_count_swapped(file, 0, 32 * P), 24);
	ss_check(&env, file);

	/* Inside page 10: it comes back, 11..23 go. */
	assert_int_equal(upc_truncate(file, 10 * P + 123), 0);
	st = ss_stats(&env);
	assert_int_equal(st.swapins, swapins + 1);
	assert_int_equal(st.swap_used, 10 * P);
	assert_int_equal(st.memory_used, P);
	assert_int_equal(upc_size(file), 10 * P + 123);
	ss_check(&env, file);

	/* Grown again: zeros past the old end, also in page 10's tail. */
	assert_int_equal(upc_truncate(file, 40 * P), 0);
	api_expect(file, 0, 10 * P + 123, 6);
	api_expect(file, 10 * P + 123, 30 * P - 123, 0);
	assert_int_equal(upc_seek_hole(file, 0), 11 * P);
	/* A write further on leaves the zeros before it. */
	api_write_pattern(file, 30 * P, P, 7);
	api_expect(file, 10 * P + 123, 20 * P - 123, 0);
	api_expect(file, 30 * P, P, 7);
	ss_check(&env, file);

	/* Truncating to 0 gives every slot and page back. */
	assert_int_equal(upc_truncate(file, 0), 0);
	st = ss_stats(&env);
	assert_int_equal(st.swap_used, 0);
	assert_int_equal(st.memory_used, 0);
	assert_int_equal(st.pages_cached, 0);
	assert_int_equal(ss_count_swapped(file, 0, 40 * P), 0);
	ss_check(&env, file);

	/* So does closing a file with pages in swap and in memory. */
	api_write_pattern(file, 0, 64 * P, 8);
	ss_push_out(&env, file, 0, 64 * P);
	assert_int_equal(ss_stats(&env).swap_used, 64 * P);
	api_expect(file, 16 * P, 32 * P, 8);
	st = ss_stats(&env);
	assert_int_equal(st.swap_used, 32 * P);
	assert_int_equal(st.memory_used, 32 * P);
	ss_close(&env);
	assert_int_equal(ss_stats(&env).memory_used, 0);
	api_fini(&env);
}

/* ---- what stays in memory ------------------------------------------------ */

/*
 * Fallocated pages that nothing wrote hold no data and never go to
 * swap, however hard memory is pressed; once written, they can.
 */
static void test_shmem_swap_keeps_unwritten(void **state)
{
	const int64_t quarter = LIMIT / 4;
	struct upc_file *file;
	struct api_env env;
	int64_t pos;

	(void)state;
	file = ss_init(&env, LIMIT, UPC_HUGE_NEVER, SWAP, NULL);
	assert_int_equal(upc_fallocate(file, 0, 0, quarter), 0);
	assert_int_equal(upc_fallocate(file, FALLOC_FL_KEEP_SIZE, quarter,
				       quarter), 0);
	/* Data four times what the fallocated pages leave. */
	ss_write_chunks(file, LIMIT, 3 * LIMIT, 64 * P, 9);
	assert_true(ss_stats(&env).swapouts >= (uint64_t)(2 * LIMIT) / P);
	ss_pressure(&env, 2 * LIMIT);
	for (pos = 0; pos < 2 * quarter; pos += P) {
		bool uptodate = true;

		assert_int_equal(api_folio_order(file, pos, &uptodate), 0);
		assert_false(uptodate);
	}
	assert_int_equal(upc_seek_data(file, 0), LIMIT);
	api_expect(file, 0, LIMIT, 0);
	api_expect(file, LIMIT, 3 * LIMIT, 9);
	ss_check(&env, file);

	/* Written, the first half of them can go like any data. */
	api_write_pattern(file, 0, quarter, 10);
	ss_push_out(&env, file, 0, 2 * quarter);
	assert_int_equal(ss_count_swapped(file, 0, quarter), quarter / P);
	assert_int_equal(ss_count_swapped(file, quarter, 2 * quarter), 0);
	assert_int_equal(upc_seek_hole(file, 0), quarter);
	assert_int_equal(upc_seek_data(file, quarter), LIMIT);
	api_expect(file, 0, quarter, 10);
	api_expect(file, quarter, LIMIT - quarter, 0);
	api_expect(file, LIMIT, 3 * LIMIT, 9);
	ss_check(&env, file);
	ss_close(&env);
	api_fini(&env);
}

/*
 * Large folios go to swap whole: a 2 MiB folio and a 64 KiB one leave
 * one swap entry of their order each, and come back whole when any of
 * their pages is read.
 */
static void test_shmem_swap_large_folios(void **state)
{
	const size_t limit = 4 * API_MIB;
	struct upc_cache_stats st;
	struct upc_file *file;
	struct api_env env;

	(void)state;
	file = ss_init(&env, limit, UPC_HUGE_ALWAYS, SWAP, NULL);
	api_write_pattern(file, 0, API_HUGE, 11);
	api_write_pattern(file, 2 * API_HUGE, 16 * P, 12);
	api_write_pattern(file, 3 * API_HUGE + 5 * P, P, 13);
	assert_int_equal(api_folio_order(file, 0, NULL), UPC_MAX_ORDER);
	assert_int_equal(api_folio_order(file, 2 * API_HUGE, NULL), 4);
	assert_int_equal(api_folio_order(file, 3 * API_HUGE + 5 * P, NULL), 0);
	ss_push_out(&env, file, 0, 3 * API_HUGE + 6 * P);
	st = ss_stats(&env);
	assert_int_equal(ss_swap_order(file, 0), UPC_MAX_ORDER);
	assert_int_equal(ss_swap_order(file, API_HUGE - P), UPC_MAX_ORDER);
	assert_int_equal(ss_swap_order(file, 2 * API_HUGE + 7 * P), 4);
	assert_int_equal(ss_swap_order(file, 3 * API_HUGE + 5 * P), 0);
	assert_int_equal(ss_count_swapped(file, 0, 3 * API_HUGE + 6 * P),
			 512 + 16 + 1);
	assert_int_equal(st.swap_used, (512 + 16 + 1) * P);
	ss_check(&env, file);

	/* One page of each large entry read: the whole folio is back. */
	api_expect(file, API_HUGE - P, P, 11);
	api_expect(file, 2 * API_HUGE + 9 * P + 100, 10, 12);
	assert_int_equal(api_folio_order(file, 0, NULL), UPC_MAX_ORDER);
	assert_int_equal(api_folio_order(file, 2 * API_HUGE, NULL), 4);
	assert_int_equal(ss_stats(&env).swap_used, P);
	api_expect(file, 0, API_HUGE, 11);
	api_expect(file, API_HUGE, API_HUGE, 0);
	api_expect(file, 2 * API_HUGE, 16 * P, 12);
	api_expect(file, 3 * API_HUGE + 5 * P, P, 13);
	ss_check(&env, file);
	ss_close(&env);
	api_fini(&env);
}

/*
 * Punching and truncating inside a large swap entry: the entry is split
 * where the range begins and ends, pages covered in part come back alone
 * and are zeroed in part, the slots of the whole pages inside go, and
 * the rest stays in swap, still read back as it was.
 */
static void test_shmem_swap_large_punch(void **state)
{
	const size_t limit = 4 * API_MIB;
	unsigned char *model = calloc(1, API_HUGE * 2);
	struct upc_file *file;
	struct api_env env;
	uint64_t used;

	(void)state;
	assert_non_null(model);
	file = ss_init(&env, limit, UPC_HUGE_ALWAYS, SWAP, NULL);
	api_write_pattern(file, 0, 2 * API_HUGE, 31);
	ss_model_fill(model, 0, 2 * API_HUGE, 31);
	ss_push_out(&env, file, 0, 2 * API_HUGE);
	assert_int_equal(ss_swap_order(file, 0), UPC_MAX_ORDER);
	assert_int_equal(ss_swap_order(file, API_HUGE), UPC_MAX_ORDER);
	used = ss_stats(&env).swap_used;

	/* Whole pages [5, 9): their slots go, the rest stays in swap. */
	assert_int_equal(upc_fallocate(file, FALLOC_FL_PUNCH_HOLE |
				       FALLOC_FL_KEEP_SIZE, 5 * P, 4 * P), 0);
	ss_model_fill(model, 5 * P, 4 * P, 0);
	assert_int_equal(ss_stats(&env).swap_used, used - 4 * P);
	assert_int_equal(ss_count_swapped(file, 0, API_HUGE), 512 - 4);
	assert_int_equal(api_folio_order(file, 4 * P, NULL), -1);
	assert_int_equal(ss_swap_order(file, 4 * P), 0);
	assert_int_equal(upc_seek_hole(file, 0), 5 * P);
	assert_int_equal(upc_seek_data(file, 5 * P), 9 * P);
	ss_check(&env, file);

	/* In part: pages 20 and 23 come back alone, 21 and 22 go. */
	assert_int_equal(upc_fallocate(file, FALLOC_FL_PUNCH_HOLE |
				       FALLOC_FL_KEEP_SIZE, 20 * P + 100,
				       3 * P), 0);
	ss_model_fill(model, 20 * P + 100, 3 * P, 0);
	assert_int_equal(api_folio_order(file, 20 * P, NULL), 0);
	assert_int_equal(api_folio_order(file, 23 * P, NULL), 0);
	assert_int_equal(ss_count_swapped(file, 0, API_HUGE), 512 - 8);
	assert_int_equal(ss_stats(&env).swap_used, used - 8 * P);
	ss_check(&env, file);

	/* Truncation into the second entry: its tail's slots go. */
	assert_int_equal(upc_truncate(file, API_HUGE + 100 * P), 0);
	assert_int_equal(ss_count_swapped(file, API_HUGE, 2 * API_HUGE), 100);
	assert_int_equal(ss_stats(&env).swap_used,
			 used - 8 * P - (512 - 100) * P);
	ss_check(&env, file);
	ss_expect_model(file, model, API_HUGE + 100 * P);
	/* Grown again: zeros past the old end, not the old data. */
	assert_int_equal(upc_truncate(file, 2 * API_HUGE), 0);
	memset(model + API_HUGE + 100 * P, 0, (512 - 100) * P);
	ss_expect_model(file, model, 2 * API_HUGE);
	ss_check(&env, file);
	ss_close(&env);
	api_fini(&env);
	free(model);
}

/*
 * A 2 MiB file written whole and pushed out to swap as one order-9 entry,
 * with its model; returns the file.
 */
static struct upc_file *ss_huge_in_swap(struct api_env *env,
					unsigned char *model,
					unsigned int seed)
{
	struct upc_file *file;

	file = ss_init(env, 4 * API_MIB, UPC_HUGE_ALWAYS, SWAP, NULL);
	api_write_pattern(file, 0, API_HUGE, seed);
	ss_model_fill(model, 0, API_HUGE, seed);
	ss_push_out(env, file, 0, API_HUGE);
	assert_int_equal(ss_swap_order(file, 0), UPC_MAX_ORDER);
	return file;
}

/*
 * Seeking from inside a large swap entry: the entry is data from where
 * the seek starts to the entry's end, wherever in it the seek starts
 * (the walk finds the entry at the seek's page, and its extent is
 * measured from the entry's first page), and it stays in swap.
 */
static void test_shmem_swap_large_seek_inside(void **state)
{
	unsigned char *model = calloc(1, 2 * API_HUGE);
	struct upc_file *file;
	struct api_env env;
	uint64_t swapins;

	(void)state;
	assert_non_null(model);
	file = ss_huge_in_swap(&env, model, 41);
	assert_int_equal(upc_truncate(file, 2 * API_HUGE), 0);
	api_write_pattern(file, API_HUGE + 10 * P, P, 42);
	ss_model_fill(model, API_HUGE + 10 * P, P, 42);
	swapins = ss_stats(&env).swapins;

	assert_int_equal(upc_seek_hole(file, 100 * P + 5), API_HUGE);
	assert_int_equal(upc_seek_hole(file, API_HUGE - 1), API_HUGE);
	assert_int_equal(upc_seek_data(file, 100 * P + 5), 100 * P + 5);
	assert_int_equal(upc_seek_data(file, API_HUGE), API_HUGE + 10 * P);
	assert_int_equal(upc_seek_hole(file, API_HUGE + 10 * P),
			 API_HUGE + 11 * P);
	assert_int_equal(ss_stats(&env).swapins, swapins);
	assert_int_equal(ss_swap_order(file, 100 * P), UPC_MAX_ORDER);
	ss_check(&env, file);
	ss_expect_model(file, model, 2 * API_HUGE);
	ss_close(&env);
	api_fini(&env);
	free(model);
}

/*
 * Punching exactly one whole page out of a large swap entry: the range's
 * first and last page are the same page, and the entry must be split on
 * both sides of it, so that the page's own slot is an entry wholly inside
 * the range and is freed.  At the entry's first page only the split after
 * the page does anything, at its last page only the one before it.
 */
static void test_shmem_swap_large_punch_one_page(void **state)
{
	const int mode = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;
	static const int64_t pages[] = { 0, API_HUGE - P, 100 * P };
	unsigned char *model = calloc(1, API_HUGE);
	struct upc_file *file;
	struct api_env env;
	uint64_t used, swapins;
	unsigned int i;

	(void)state;
	assert_non_null(model);
	file = ss_huge_in_swap(&env, model, 40);
	used = ss_stats(&env).swap_used;
	swapins = ss_stats(&env).swapins;
	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		assert_int_equal(upc_fallocate(file, mode, pages[i], P), 0);
		ss_model_fill(model, pages[i], P, 0);
		assert_false(ss_in_swap(file, pages[i]));
		assert_int_equal(ss_stats(&env).swap_used, used - (i + 1) * P);
		assert_int_equal(ss_count_swapped(file, 0, API_HUGE),
				 API_HUGE / P - (i + 1));
		ss_check(&env, file);
	}
	/* Nothing was read back for whole pages. */
	assert_int_equal(ss_stats(&env).swapins, swapins);
	assert_int_equal(upc_seek_hole(file, 0), 0);
	assert_int_equal(upc_seek_data(file, 0), P);
	ss_expect_model(file, model, API_HUGE);
	ss_close(&env);
	api_fini(&env);
	free(model);
}

/*
 * A write that covers whole pages in swap (order-0 entries) does not read
 * them back: a new page takes each entry's place and its slot is freed
 * (swapin_overwrite()).  Pages a write covers in part are read back, as
 * the bytes it leaves are needed.
 */
static void test_shmem_swap_whole_page_write(void **state)
{
	const int64_t size = 256 * P;
	unsigned char *model = calloc(1, (size_t)size);
	struct upc_file *file;
	struct api_env env;
	uint64_t swapins;
	int64_t pos;

	(void)state;
	assert_non_null(model);
	file = ss_init(&env, LIMIT, UPC_HUGE_NEVER, SWAP, NULL);
	api_write_pattern(file, 0, (size_t)size, 5);
	ss_model_fill(model, 0, size, 5);
	ss_push_out(&env, file, 0, size);
	assert_int_equal(ss_count_swapped(file, 0, size), 256);

	/* Every other page of the first 64, a page per call; then 64 at once. */
	swapins = ss_stats(&env).swapins;
	for (pos = 0; pos < 64 * P; pos += 2 * P) {
		api_write_pattern(file, pos, P, 6);
		ss_model_fill(model, pos, P, 6);
	}
	api_write_pattern(file, 64 * P, 64 * P, 7);
	ss_model_fill(model, 64 * P, 64 * P, 7);
	assert_int_equal(ss_stats(&env).swapins, swapins);
	assert_int_equal(ss_count_swapped(file, 0, 128 * P), 32);
	assert_int_equal(ss_count_swapped(file, 0, size), 256 - 96);
	assert_int_equal(ss_stats(&env).swap_used, (256 - 96) * P);
	ss_check(&env, file);

	/* From inside one page to inside another: only those two are read. */
	api_write_pattern(file, 128 * P + 100, 10 * P, 8);
	ss_model_fill(model, 128 * P + 100, 10 * P, 8);
	assert_int_equal(ss_stats(&env).swapins, swapins + 2);
	/* One byte short of a page. */
	api_write_pattern(file, 200 * P + 1, P - 1, 9);
	ss_model_fill(model, 200 * P + 1, P - 1, 9);
	assert_int_equal(ss_stats(&env).swapins, swapins + 3);
	assert_int_equal(ss_stats(&env).swap_used, (256 - 96 - 12) * P);
	ss_check(&env, file);
	ss_expect_model(file, model, size);
	ss_check(&env, file);
	ss_close(&env);
	api_fini(&env);
	free(model);
}

/*
 * ss_write_in_huge_entry() - Write [@off, @off + @len) inside page 100 of
 * an order-9 swap entry, the first allocation failing if @fail_first;
 * then @swapins pages came back, page 100's folio has order @order, and
 * @swapped pages of the entry's 512 are still in swap.
 */
static void ss_write_in_huge_entry(size_t off, size_t len, bool fail_first,
				   uint64_t swapins, int order,
				   unsigned long swapped)
{
	unsigned char *model = calloc(1, API_HUGE);
	struct upc_file *file;
	struct api_env env;
	uint64_t before;

	assert_non_null(model);
	file = ss_huge_in_swap(&env, model, 41);
	before = ss_stats(&env).swapins;
	upc_fault_fail_nth(fail_first ? 1 : 0);
	api_write_pattern(file, 100 * P + (int64_t)off, len, 42);
	assert_int_equal(upc_fault_injected(), fail_first);
	upc_fault_fail_nth(0);
	ss_model_fill(model, 100 * P + (int64_t)off, (int64_t)len, 42);
	assert_int_equal(ss_stats(&env).swapins - before, swapins);
	assert_int_equal(api_folio_order(file, 100 * P, NULL), order);
	assert_int_equal(ss_count_swapped(file, 0, API_HUGE), swapped);
	ss_check(&env, file);
	ss_expect_model(file, model, API_HUGE);
	ss_check(&env, file);
	ss_close(&env);
	api_fini(&env);
	free(model);
}

/*
 * A write of a whole page of a large swap entry swaps the whole folio in,
 * as any access does: cutting the page's entry out to replace it would
 * leave the file's large folios to come back in pieces.
 */
static void test_shmem_swap_whole_page_write_keeps_large(void **state)
{
	(void)state;
	ss_write_in_huge_entry(0, P, false, 512, UPC_MAX_ORDER, 0);
}

/*
 * A write inside one page of a large swap entry, when no folio of the
 * entry's order can be had (the first allocation, the order-9 folio's,
 * fails), swaps in that page alone: the entry is split at the page
 * written, not at its first page.  (The write leaves a byte of the page
 * as it was, so the page must be read.)
 */
static void test_shmem_swap_large_write_split(void **state)
{
	(void)state;
	ss_write_in_huge_entry(1, P - 1, true, 1, 0, 511);
}

/*
 * Freeing whole large swap entries needs no memory: truncating to 0, or
 * punching exactly an aligned 2 MiB range, succeeds with every
 * allocation failing, and frees all the slots.  A punch covering part of
 * a page inside one splits the entry and swaps that page in alone.
 */
static void test_shmem_swap_large_free_whole(void **state)
{
	unsigned char *model = calloc(1, 2 * API_HUGE);
	struct upc_file *file;
	struct api_env env;
	uint64_t swapins;

	(void)state;
	assert_non_null(model);
	file = ss_huge_in_swap(&env, model, 43);
	upc_fault_fail_from(1);
	assert_int_equal(upc_truncate(file, 0), 0);
	upc_fault_fail_from(0);
	assert_int_equal(ss_stats(&env).swap_used, 0);
	ss_check(&env, file);
	ss_close(&env);
	api_fini(&env);

	file = ss_huge_in_swap(&env, model, 44);
	upc_fault_fail_from(1);
	assert_int_equal(upc_fallocate(file, FALLOC_FL_PUNCH_HOLE |
				       FALLOC_FL_KEEP_SIZE, 0, API_HUGE), 0);
	upc_fault_fail_from(0);
	assert_int_equal(ss_stats(&env).swap_used, 0);
	assert_int_equal(upc_seek_data(file, 0), -ENXIO);
	ss_check(&env, file);
	ss_close(&env);
	api_fini(&env);

	file = ss_huge_in_swap(&env, model, 45);
	swapins = ss_stats(&env).swapins;
	assert_int_equal(upc_fallocate(file, FALLOC_FL_PUNCH_HOLE |
				       FALLOC_FL_KEEP_SIZE, 100 * P + 1,
				       100 * P - 1), 0);
	ss_model_fill(model, 100 * P + 1, 100 * P - 1, 0);
	assert_int_equal(ss_stats(&env).swapins - swapins, 1);
	assert_int_equal(ss_count_swapped(file, 0, API_HUGE), 512 - 100);
	ss_check(&env, file);
	ss_expect_model(file, model, API_HUGE);
	ss_close(&env);
	api_fini(&env);
	free(model);
}

/*
 * With swap cache trees of 64 slots (space_shift 6), a 2 MiB folio
 * cannot be added to one, so under pressure reclaim splits it and its
 * pages go one at a time, while a 256 KiB one (order 6) goes whole.
 * (Before splits, the 2 MiB folio stayed in memory.)
 */
static void test_shmem_swap_large_space_shift(void **state)
{
	struct upc_swap_config cfg = { .size = SWAP, .space_shift = 6 };
	struct upc_file *file;
	struct api_env env;

	(void)state;
	file = api_init(&env, 4 * API_MIB, UPC_HUGE_ALWAYS, 0);
	assert_int_equal(upc_swapon(env.cache, &cfg), 0);
	api_write_pattern(file, 0, API_HUGE, 46);
	api_write_pattern(file, API_HUGE, 64 * P, 47);
	assert_int_equal(api_folio_order(file, API_HUGE, NULL), 6);
	ss_pressure(&env, 3 * 4 * (int64_t)API_MIB);
	assert_int_equal(ss_count_swapped(file, 0, API_HUGE), 512);
	assert_int_equal(ss_swap_order(file, 0), 0);
	assert_int_equal(ss_swap_order(file, API_HUGE - P), 0);
	assert_int_equal(ss_swap_order(file, API_HUGE), 6);
	ss_check(&env, file);
	api_expect(file, 0, API_HUGE, 46);
	api_expect(file, API_HUGE, 64 * P, 47);
	assert_int_equal(api_folio_order(file, 0, NULL), 0);
	assert_int_equal(api_folio_order(file, API_HUGE, NULL), 6);
	ss_check(&env, file);
	ss_close(&env);
	api_fini(&env);
}

/*
 * A fallocated large folio (not uptodate: no data) stays in memory
 * whole even when it could not go to swap whole anyway (space_shift 6):
 * split, its pages would stay too, and a later write to one page would
 * no longer make the whole 2 MiB data.
 */
static void test_shmem_swap_large_falloc_not_split(void **state)
{
	struct upc_swap_config cfg = { .size = SWAP, .space_shift = 6 };
	struct upc_reclaim_stats rs;
	struct upc_file *file;
	struct api_env env;

	(void)state;
	file = api_init(&env, 4 * API_MIB, UPC_HUGE_ALWAYS, 0);
	assert_int_equal(upc_swapon(env.cache, &cfg), 0);
	assert_int_equal(upc_fallocate(file, 0, 0, API_HUGE), 0);
	assert_int_equal(api_folio_order(file, 0, NULL), UPC_MAX_ORDER);
	ss_pressure(&env, 3 * 4 * (int64_t)API_MIB);
	assert_int_equal(api_folio_order(file, 0, NULL), UPC_MAX_ORDER);
	assert_int_equal(upc_reclaim_stats_read(env.cache->arena, &rs), 0);
	assert_int_equal(rs.thp_split, 0);
	api_write_pattern(file, 0, P, 48);
	assert_int_equal(upc_seek_hole(file, 0), API_HUGE);
	api_expect(file, 0, P, 48);
	api_expect(file, P, API_HUGE - P, 0);
	ss_check(&env, file);
	ss_close(&env);
	api_fini(&env);
}

/*
 * fallocate over pages in swap keeps their data (it allocates only what
 * is missing), and the pages it allocates stay holes beside them.
 */
static void test_shmem_swap_fallocate_over(void **state)
{
	struct upc_cache_stats st;
	struct upc_file *file;
	struct api_env env;

	(void)state;
	file = ss_init(&env, LIMIT, UPC_HUGE_NEVER, SWAP, NULL);
	api_write_pattern(file, 8 * P, 32 * P, 21);
	ss_push_out(&env, file, 0, 40 * P);
	assert_int_equal(ss_count_swapped(file, 0, 40 * P), 32);
	assert_int_equal(upc_fallocate(file, 0, 0, 64 * P), 0);
	assert_int_equal(upc_fallocate(file, FALLOC_FL_KEEP_SIZE, 64 * P,
				       36 * P + 1), 0);
	assert_int_equal(upc_size(file), 64 * P);
	st = ss_stats(&env);
	/*
	 * Pages [0, 8) and [40, 101) allocated (the second call's range
	 * ends 1 B into page 100); [8, 40) in swap or back, once each.
	 */
	assert_true(st.memory_used >= 69 * P);
	assert_int_equal(st.pages_cached + st.swap_used / P, 101);
	assert_int_equal(upc_seek_data(file, 0), 8 * P);
	assert_int_equal(upc_seek_hole(file, 8 * P), 40 * P);
	assert_int_equal(upc_seek_data(file, 40 * P), -ENXIO);
	api_expect(file, 0, 8 * P, 0);
	api_expect(file, 8 * P, 32 * P, 21);
	api_expect(file, 40 * P, 24 * P, 0);
	ss_check(&env, file);
	ss_close(&env);
	api_fini(&env);
}

/*
 * Two files swapping through one device keep their own data, however
 * their pages interleave in swap, and each gives back only its slots.
 */
static void test_shmem_swap_two_files(void **state)
{
	const int64_t size = 3 * LIMIT / 2;
	struct upc_file *a, *b;
	struct api_env env;
	unsigned long in_b;
	int64_t pos;

	(void)state;
	a = ss_init(&env, LIMIT, UPC_HUGE_NEVER, SWAP, NULL);
	assert_int_equal(upc_shmem_create(env.cache, NULL, &b), 0);
	for (pos = 0; pos < size; pos += P) {
		api_write_pattern(a, pos, P, 22);
		api_write_pattern(b, pos, P, 23);
	}
	/* Every other page of a rewritten, most of them from swap. */
	for (pos = 0; pos < size; pos += 2 * P)
		api_write_pattern(a, pos, P, 24);
	for (pos = 0; pos < size; pos += 2 * P) {
		api_expect(a, pos, P, 24);
		api_expect(a, pos + P, P, 22);
	}
	api_expect(b, 0, (size_t)size, 23);
	ss_check(&env, a);
	ss_check(&env, b);
	assert_int_equal(upc_close(a), 0);
	in_b = ss_count_swapped(b, 0, size);
	assert_int_equal(ss_stats(&env).swap_used, in_b * P);
	assert_int_equal(ss_stats(&env).pages_cached + in_b, size / P);
	api_expect(b, 0, (size_t)size, 23);
	env.file = b;
	ss_close(&env);
	api_fini(&env);
}

/* ---- swapoff ------------------------------------------------------------- */

/*
 * upc_swapoff() waits for no file: it is refused while one is open,
 * with or without pages in swap, and while an anonymous region exists.
 */
static void test_shmem_swapoff_busy(void **state)
{
	struct upc_anon *anon;
	struct upc_file *file;
	struct api_env env;
	char *buf = malloc(2 * LIMIT);

	(void)state;
	assert_non_null(buf);
	file = ss_init(&env, LIMIT, UPC_HUGE_NEVER, 8 * API_MIB, NULL);
	assert_int_equal(upc_swapoff(env.cache), -EBUSY);
	api_write_pattern(file, 0, 2 * LIMIT, 14);
	assert_true(ss_stats(&env).swap_used > 0);
	assert_int_equal(upc_swapoff(env.cache), -EBUSY);
	/* The refusal changed nothing. */
	assert_int_equal(ss_stats(&env).swap_total, 8 * API_MIB);
	api_expect(file, 0, 2 * LIMIT, 14);
	ss_check(&env, file);
	ss_close(&env);
	assert_int_equal(upc_swapoff(env.cache), 0);
	assert_int_equal(ss_stats(&env).swap_total, 0);

	/* No swap any more: a file is back to -ENOSPC past the limit. */
	assert_int_equal(upc_shmem_create(env.cache, NULL, &env.file), 0);
	api_fill(buf, 2 * LIMIT, 0, 15);
	assert_int_equal(upc_write(env.file, buf, 2 * LIMIT, 0), LIMIT);
	assert_int_equal(upc_write(env.file, buf, 1, LIMIT), -ENOSPC);
	ss_close(&env);

	/* An anonymous region alone keeps the device too. */
	ss_swapon(&env, NULL, 8 * API_MIB);
	assert_int_equal(upc_anon_create(env.cache, P, &anon), 0);
	assert_int_equal(upc_swapoff(env.cache), -EBUSY);
	assert_int_equal(upc_anon_destroy(anon), 0);
	assert_int_equal(upc_swapoff(env.cache), 0);
	free(buf);
	api_fini(&env);
}

/* ---- spans --------------------------------------------------------------- */

/* Check spans from @pos: in order, no gap, data as the model says. */
static int64_t ss_check_spans(const struct upc_span *spans, int n,
			      int64_t pos, const unsigned char *model)
{
	int i;

	for (i = 0; i < n; i++) {
		assert_int_equal(spans[i].offset, pos);
		assert_true(spans[i].len > 0);
		if (spans[i].data)
			assert_memory_equal(spans[i].data, model + pos,
					    spans[i].len);
		pos += (int64_t)spans[i].len;
	}
	return pos;
}

/*
 * Spans that fill up end the walk there: a page in swap just after the
 * last span is not swapped in (a page of memory and a read) for nothing,
 * whether that span is data or a hole (a hole's span is only reported
 * when the page in swap ends it, and filled the last slot unseen).
 */
static void test_shmem_swap_spans_full(void **state)
{
	struct upc_span spans[1];
	struct upc_cache_stats st;
	struct upc_file *file;
	struct api_env env;
	char page[P];
	uint64_t swapins;

	(void)state;
	file = ss_init(&env, LIMIT, UPC_HUGE_NEVER, SWAP, NULL);
	api_write_pattern(file, 0, 2 * P, 32);
	ss_push_out(&env, file, 0, 2 * P);
	/* Page 0 back in memory, page 1 still in swap. */
	assert_int_equal(upc_read(file, page, P, 0), P);
	assert_false(ss_in_swap(file, 0));
	assert_true(ss_in_swap(file, P));
	swapins = ss_stats(&env).swapins;

	assert_int_equal(upc_get_spans(file, 0, 2 * P, spans, 1), 1);
	assert_int_equal(spans[0].offset, 0);
	assert_int_equal(spans[0].len, P);
	assert_non_null(spans[0].data);
	st = ss_stats(&env);
	assert_int_equal(st.swapins, swapins);
	assert_true(ss_in_swap(file, P));
	upc_put_spans(spans, 1);

	/* A hole before the page in swap. */
	assert_int_equal(upc_fallocate(file, FALLOC_FL_PUNCH_HOLE |
				       FALLOC_FL_KEEP_SIZE, 0, P), 0);
	assert_int_equal(upc_get_spans(file, 0, 2 * P, spans, 1), 1);
	assert_int_equal(spans[0].offset, 0);
	assert_int_equal(spans[0].len, P);
	assert_null(spans[0].data);
	assert_int_equal(ss_stats(&env).swapins, swapins);
	assert_true(ss_in_swap(file, P));
	upc_put_spans(spans, 1);
	ss_check(&env, file);
	ss_close(&env);
	api_fini(&env);
}

/*
 * Spans over pages in swap bring them back and return their data; a
 * hole between them stays a NULL span.
 */
static void test_shmem_swap_spans(void **state)
{
	const int64_t size = 64 * P;
	unsigned char model[64 * P];
	struct upc_span spans[80];
	struct upc_cache_stats st;
	struct upc_file *file;
	struct api_env env;
	uint64_t swapins;
	int64_t end = 0;
	int i, n, holes;

	(void)state;
	file = ss_init(&env, LIMIT, UPC_HUGE_NEVER, SWAP, NULL);
	api_write_pattern(file, 0, 16 * P, 16);
	api_write_pattern(file, 32 * P, 32 * P, 16);
	ss_model_fill(model, 0, size, 16);
	ss_model_fill(model, 16 * P, 16 * P, 0);
	ss_push_out(&env, file, 0, size);
	st = ss_stats(&env);
	assert_int_equal(st.swap_used, 48 * P);
	swapins = st.swapins;

	n = upc_get_spans(file, 0, (size_t)size, spans, 80);
	assert_true(n > 0);
	end = ss_check_spans(spans, n, 0, model);
	assert_int_equal(end, size);
	/* The hole is one span with no data; every other span has data. */
	for (i = 0, holes = 0; i < n; i++) {
		if (spans[i].data)
			continue;
		holes++;
		assert_int_equal(spans[i].offset, 16 * P);
		assert_int_equal(spans[i].len, 16 * P);
	}
	assert_int_equal(holes, 1);
	/* Each page in swap came back once, and is held. */
	st = ss_stats(&env);
	assert_int_equal(st.swapins - swapins, 48);
	assert_int_equal(st.swap_used, 0);
	assert_int_equal(st.memory_used, 48 * P);
	assert_int_equal(ss_count_swapped(file, 0, size), 0);
	upc_put_spans(spans, (unsigned int)n);
	ss_check(&env, file);
	ss_close(&env);
	api_fini(&env);
}

/*
 * A write whose own run holds the only pages reclaim could swap out
 * still gets its memory: another file's spans pin all but the 15 pages
 * of this file that the write covers (with page 0, not there).  The
 * write holds those 15 while it allocates page 0, so that allocation
 * cannot swap them out; it is made again with them let go, and then it
 * can.
 */
static void test_shmem_swap_write_frees_what_it_holds(void **state)
{
	const int64_t pinned = 2 * API_MIB - 15 * P;
	struct upc_span *spans = calloc(pinned / P, sizeof(*spans));
	struct upc_shmem_options opts = { .huge = UPC_HUGE_NEVER };
	struct upc_file *file, *other;
	struct api_env env;
	int64_t got = 0;
	int i, n;

	(void)state;
	assert_non_null(spans);
	file = ss_init(&env, 2 * API_MIB, UPC_HUGE_NEVER, SWAP, NULL);
	assert_int_equal(upc_shmem_create(env.cache, &opts, &other), 0);
	api_write_pattern(other, 0, (size_t)pinned, 3);
	n = upc_get_spans(other, 0, (size_t)pinned, spans,
			  (unsigned int)(pinned / P));
	assert_true(n > 0);
	for (i = 0; i < n; i++)
		got += (int64_t)spans[i].len;
	assert_int_equal(got, pinned);
	api_write_pattern(file, P, 15 * P, 4);
	api_write_pattern(file, 0, 16 * P, 5);
	api_expect(file, 0, 16 * P, 5);
	upc_put_spans(spans, (unsigned int)n);
	api_expect(other, 0, (size_t)pinned, 3);
	ss_check(&env, file);
	assert_int_equal(upc_close(other), 0);
	free(spans);
	ss_close(&env);
	api_fini(&env);
}

/*
 * Spans pin what they cover, so spans over a file twice the memory run
 * out of memory part-way: the call returns the spans it could fill, and
 * every operation that then needs the next page back from swap fails
 * with -ENOMEM (a write with -ENOSPC: the cache is full), changing
 * nothing.  Releasing the spans heals it.
 */
static void test_shmem_swap_spans_enomem(void **state)
{
	const int64_t size = 2 * LIMIT;
	const int mode = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;
	struct upc_span *spans = calloc(2 * LIMIT_PAGES, sizeof(*spans));
	unsigned char *model = malloc((size_t)size);
	struct upc_cache_stats st, st2;
	struct upc_span more[4];
	struct upc_file *file;
	struct api_env env;
	char buf[2 * P];
	int64_t end;
	int n;

	(void)state;
	assert_non_null(spans);
	assert_non_null(model);
	file = ss_init(&env, LIMIT, UPC_HUGE_NEVER, SWAP, NULL);
	api_write_pattern(file, 0, (size_t)size, 17);
	ss_model_fill(model, 0, size, 17);
	assert_true(ss_in_swap(file, 0));

	n = upc_get_spans(file, 0, (size_t)size, spans, 2 * LIMIT_PAGES);
	assert_true(n > 0);
	end = ss_check_spans(spans, n, 0, model);
	/* No more than memory can be pinned, and the next page is in swap. */
	assert_true(end > 0 && end <= LIMIT);
	assert_int_equal(end % P, 0);
	assert_true(ss_in_swap(file, end));
	st = ss_stats(&env);

	assert_int_equal(upc_get_spans(file, end, P, more, 4), -ENOMEM);
	assert_int_equal(upc_read(file, buf, 1, end), -ENOMEM);
	/* A read that starts in memory stops short before the page. */
	assert_int_equal(upc_read(file, buf, 2 * P, end - P), P);
	api_check_pattern((unsigned char *)buf, end - P, P, 17);
	assert_int_equal(upc_truncate(file, end + 1), -ENOMEM);
	assert_int_equal(upc_size(file), size);
	assert_int_equal(upc_fallocate(file, mode, end + 1, 10), -ENOMEM);
	assert_int_equal(upc_write(file, "x", 1, end), -ENOSPC);
	assert_int_equal(upc_seek_data(file, end), end);
	st2 = ss_stats(&env);
	assert_int_equal(st2.swap_used, st.swap_used);
	assert_true(ss_in_swap(file, end));
	ss_check(&env, file);

	upc_put_spans(spans, (unsigned int)n);
	ss_expect_model(file, model, size);
	ss_check(&env, file);
	free(spans);
	free(model);
	ss_close(&env);
	api_fini(&env);
}

/* ---- vectored I/O -------------------------------------------------------- */

/* readv and writev across pages in swap, against a model of the file. */
static void test_shmem_swap_readv_writev(void **state)
{
	const int64_t size = 16 * P;
	unsigned char model[16 * P], src[9000], a[1000], b[6000], c[9000],
		d[100];
	struct iovec wv[3] = {
		{ src, 1000 }, { src + 1000, 5000 }, { src + 6000, 3000 },
	};
	struct iovec rv[4] = {
		{ a, sizeof(a) }, { b, sizeof(b) }, { c, sizeof(c) },
		{ d, sizeof(d) },
	};
	struct upc_cache_stats st;
	struct upc_file *file;
	struct api_env env;
	int64_t rpos = P + 7;
	uint64_t swapins;

	(void)state;
	file = ss_init(&env, LIMIT, UPC_HUGE_NEVER, SWAP, NULL);
	api_write_pattern(file, 0, size, 18);
	ss_model_fill(model, 0, size, 18);
	ss_push_out(&env, file, 0, size);
	swapins = ss_stats(&env).swapins;

	/* Pages 3 and 5 in part, 4 whole. */
	api_fill(src, sizeof(src), 3 * P + 100, 19);
	assert_int_equal(upc_writev(file, wv, 3, 3 * P + 100), sizeof(src));
	memcpy(model + 3 * P + 100, src, sizeof(src));
	st = ss_stats(&env);
	/* The pages written in part must have come back; 4 may have. */
	assert_true(st.swapins >= swapins + 2 && st.swapins <= swapins + 3);
	assert_false(ss_in_swap(file, 3 * P));
	assert_false(ss_in_swap(file, 5 * P));
	ss_check(&env, file);

	/* Across swapped and resident pages, and past the end (short). */
	assert_int_equal(upc_readv(file, rv, 3, rpos), 16000);
	assert_memory_equal(a, model + rpos, sizeof(a));
	assert_memory_equal(b, model + rpos + 1000, sizeof(b));
	assert_memory_equal(c, model + rpos + 7000, sizeof(c));
	/* It brought back pages 1 and 2 (3 to 5 were back); 0, 6.. stay. */
	assert_true(ss_in_swap(file, 0));
	assert_int_equal(ss_count_swapped(file, P, 6 * P), 0);
	assert_int_equal(ss_count_swapped(file, 6 * P, size), 10);
	rpos = size - 11000;
	assert_int_equal(upc_readv(file, rv, 4, rpos), 11000);
	assert_memory_equal(a, model + rpos, sizeof(a));
	assert_memory_equal(b, model + rpos + 1000, sizeof(b));
	assert_memory_equal(c, model + rpos + 7000, 4000);
	assert_int_equal(ss_count_swapped(file, 6 * P, 13 * P), 7);
	assert_int_equal(ss_count_swapped(file, 13 * P, size), 0);
	ss_check(&env, file);
	ss_expect_model(file, model, size);
	ss_close(&env);
	api_fini(&env);
}

/* ---- I/O errors ---------------------------------------------------------- */

/*
 * The swap file loses its contents (cut to 0 bytes): everything that
 * needs a page back from it fails with -EIO and changes nothing, while
 * what needs no read (seeks, punching whole pages, pages in memory)
 * works.  Once the file is whole again the data is all there.
 */
static void test_shmem_swap_read_eio(void **state)
{
	const int64_t size = 2 * LIMIT;
	const int mode = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;
	struct upc_cache_stats st, st2;
	struct upc_span spans[4];
	struct upc_file *file;
	struct ss_path path;
	struct api_env env;
	char buf[2 * P];
	struct stat sb;
	char *saved;
	int fd, n;

	(void)state;
	ss_tmpname(&path);
	file = ss_init(&env, LIMIT, UPC_HUGE_NEVER, 8 * API_MIB, path.name);
	api_write_pattern(file, 0, (size_t)size, 20);
	/*
	 * Free memory, so that nothing below swaps out: a write to the cut
	 * file would extend it with holes, which read back as zeros.
	 */
	ss_pressure(&env, 64 * P);
	assert_true(ss_stats(&env).memory_used <= LIMIT - 64 * P);
	/* Page 0 in memory, page 1 in swap. */
	api_expect(file, 0, P, 20);
	assert_false(ss_in_swap(file, 0));
	assert_true(ss_in_swap(file, P));
	assert_true(ss_in_swap(file, 4 * P));
	assert_true(ss_in_swap(file, 5 * P));

	fd = open(path.name, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &sb), 0);
	saved = malloc((size_t)sb.st_size);
	assert_non_null(saved);
	assert_int_equal(pread(fd, saved, (size_t)sb.st_size, 0), sb.st_size);
	assert_int_equal(ftruncate(fd, 0), 0);
	st = ss_stats(&env);

	assert_int_equal(upc_read(file, buf, 1, P), -EIO);
	assert_int_equal(upc_read(file, buf, 2 * P, 0), P);
	api_check_pattern((unsigned char *)buf, 0, P, 20);
	assert_int_equal(upc_write(file, "x", 1, P + 5), -EIO);
	assert_int_equal(upc_truncate(file, P + 10), -EIO);
	assert_int_equal(upc_size(file), size);
	assert_int_equal(upc_fallocate(file, mode, P + 10, 10), -EIO);
	assert_int_equal(upc_get_spans(file, P, P, spans, 4), -EIO);
	n = upc_get_spans(file, 0, 2 * P, spans, 4);
	assert_int_equal(n, 1);
	assert_int_equal(spans[0].len, P);
	upc_put_spans(spans, 1);
	/* What needs no read from swap still works. */
	assert_int_equal(upc_seek_data(file, P + 1), P + 1);
	assert_int_equal(upc_fallocate(file, mode, 4 * P, 2 * P), 0);
	st2 = ss_stats(&env);
	assert_int_equal(st2.swap_used, st.swap_used - 2 * P);
	/* Nothing went out to the cut file, nothing came back. */
	assert_int_equal(st2.swapouts, st.swapouts);
	assert_int_equal(st2.swapins, st.swapins);
	assert_true(ss_in_swap(file, P));
	ss_check(&env, file);

	assert_int_equal(pwrite(fd, saved, (size_t)sb.st_size, 0), sb.st_size);
	free(saved);
	close(fd);
	api_expect(file, 0, 4 * P, 20);
	api_expect(file, 4 * P, 2 * P, 0);
	api_expect(file, 6 * P, (size_t)(size - 6 * P), 20);
	ss_check(&env, file);
	ss_close(&env);
	api_fini(&env);
	ss_unlink(&path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shmem_swap_round_trip),
		cmocka_unit_test(test_shmem_swap_readahead),
		cmocka_unit_test(test_shmem_swap_rewrite_beside_active),
		cmocka_unit_test(test_shmem_swap_reads_keep_active),
		cmocka_unit_test(test_shmem_swap_rewrite_whole_range),
		cmocka_unit_test(test_shmem_write_pins_only_with_swap),
		cmocka_unit_test(test_shmem_punch_edges_only_with_swap),
		cmocka_unit_test(test_shmem_swap_write_waits_for_pinned_slot),
		cmocka_unit_test(test_shmem_no_swap_enospc),
		cmocka_unit_test(test_shmem_swap_full),
		cmocka_unit_test(test_shmem_swap_seek),
		cmocka_unit_test(test_shmem_swap_punch),
		cmocka_unit_test(test_shmem_swap_punch_head_of_page_zero),
		cmocka_unit_test(test_shmem_swap_invalidate_keeps_all),
		cmocka_unit_test(test_shmem_swap_truncate),
		cmocka_unit_test(test_shmem_swap_keeps_unwritten),
		cmocka_unit_test(test_shmem_swap_large_folios),
		cmocka_unit_test(test_shmem_swap_large_punch),
		cmocka_unit_test(test_shmem_swap_large_punch_one_page),
		cmocka_unit_test(test_shmem_swap_large_seek_inside),
		cmocka_unit_test(test_shmem_swap_large_write_split),
		cmocka_unit_test(test_shmem_swap_large_free_whole),
		cmocka_unit_test(test_shmem_swap_large_space_shift),
		cmocka_unit_test(test_shmem_swap_large_falloc_not_split),
		cmocka_unit_test(test_shmem_swap_fallocate_over),
		cmocka_unit_test(test_shmem_swap_two_files),
		cmocka_unit_test(test_shmem_swapoff_busy),
		cmocka_unit_test(test_shmem_swap_spans),
		cmocka_unit_test(test_shmem_swap_spans_full),
		cmocka_unit_test(test_shmem_swap_spans_enomem),
		cmocka_unit_test(test_shmem_swap_write_frees_what_it_holds),
		cmocka_unit_test(test_shmem_swap_readv_writev),
		cmocka_unit_test(test_shmem_swap_out_batched_writes),
		cmocka_unit_test(test_shmem_swap_keeps_clean_copy),
		cmocka_unit_test(test_shmem_swap_whole_page_write),
		cmocka_unit_test(test_shmem_swap_whole_page_write_keeps_large),
		cmocka_unit_test(test_shmem_swap_read_eio),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
