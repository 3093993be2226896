// SPDX-License-Identifier: MIT
/*
 * tests/api/test_shmem_tmpfs_diff.c - differential test of shmem files
 * against the kernel's tmpfs.
 *
 * The same seeded random sequence of writes, reads, fallocate in every
 * mode (the unsupported ones and bad arguments included: the errno must
 * match), punches, truncations and SEEK_DATA/SEEK_HOLE is applied to an
 * upcache file and to a real file in /dev/shm (mkstemp(), unlinked at
 * once).  After every step the results, the sizes, the bytes around the
 * range the step touched, one random probe read and one random seek pair
 * must agree, and so must the memory held (tmpfs's st_blocks against
 * the pages cached; upcache may hold more with large folios); every
 * DIFF_FULL_EVERY steps and at the end the whole first
 * window of the files, every data extent of both and the mapping's
 * invariants (upc_check_mapping()) are checked as well.
 *
 * Offsets fall mostly in the first DIFF_WINDOW bytes, often on or next
 * to 4 KiB and 2 MiB boundaries, sometimes far away (up to 2^44) and
 * sometimes next to UPC_MAX_FILE_SIZE.
 *
 * Huge policies.  /dev/shm is normally mounted huge=never (checked: a
 * huge= mount option other than never skips the test), so the kernel's
 * file has order-0 folios.  With upcache's policy NEVER everything must
 * match exactly.  With ALWAYS upcache keeps large folios that tmpfs,
 * with small pages, would have partly freed (punch, truncate) or partly
 * left unwritten (fallocate then a small write): their zeroed or
 * zero-filled pages are data for upcache and holes for tmpfs.  A seek
 * result may then differ only that way: SEEK_DATA may stop earlier and
 * SEEK_HOLE later than tmpfs's, and only at a page that upcache holds in
 * an uptodate large folio.  Contents must still match exactly.  The
 * same holds for WITHIN_SIZE, whose large folios lie inside the size.
 *
 * Swap.  A fourth run uses policy NEVER in a small cache
 * (DIFF_SWAP_LIMIT) with swap in memory (DIFF_SWAP_SIZE; a fifth, the
 * same with a swap file, where pages read back keep their slots) and a
 * wider window (DIFF_SWAP_WINDOW), so that the file holds more than the
 * cache's memory: reclaim keeps writing its pages to swap, and every
 * read, write, punch, truncation and fallocate that reaches one brings
 * it back (or frees its slot), while seeks take it for data where it
 * is.  To keep the file that large most of the time, one write in ten
 * inside the window is 1 to 4 MiB long, and most truncations inside the
 * window keep its first half (truncations to 0 and far ones stay).
 * Everything must still match tmpfs exactly, and the memory check
 * counts a page in swap like one in memory: pages cached plus slots in
 * use (the file is the device's only user), less the slots of pages in
 * memory that kept them, must equal tmpfs's pages, so no slot may leak
 * or be freed early.  Pages fallocated and never
 * written cannot go to swap (they hold no data), so they must not fill
 * the cache, which tmpfs, not short of memory, would not notice:
 * fallocate calls that allocate are cut to keep such pages within
 * DIFF_SWAP_UNWRITTEN, and become punches when that budget is spent.
 * The full checks also run upc_check_swap() on the device.  The run
 * must have swapped both ways and held more than its memory at some
 * point.
 *
 * A fifth run does the same with policy ALWAYS, under the relaxed rule,
 * for the swap of large folios: reclaim writes one whole, as one swap
 * entry of its order; reads, writes and fallocate bring it back whole,
 * or, when no folio of that order can be had, split the entry and bring
 * back the page wanted alone; punches and truncations split the entries
 * their edges fall inside and free those wholly inside.  The zeroed or
 * zero-filled pages of a large folio (see above) go to swap and come
 * back with it, and once its entry is split they may lie in small swap
 * entries or come back in small folios: in this run the relaxed rule
 * accepts any page upcache holds in swap or in an uptodate folio.  A
 * page in swap still holds one slot, and the memory check is the
 * relaxed one (held >= tmpfs's pages).  To show that the run exercised
 * this, it counts the large swap entries present at the full checks,
 * the reads that began in one and found a large folio there after
 * (swapped in whole) or a small one (split), and the punch and
 * truncation edges inside one; it must have seen large entries and
 * whole swap-ins.
 *
 * UPC_DIFF_OPS sets the number of steps per run (default 100000;
 * DIFF_SWAP_DEFAULT_OPS and DIFF_SWAP_HUGE_DEFAULT_OPS for the swap
 * runs), UPC_SEED the seed (printed at start and in every failure), and
 * UPC_DIFF_TRACE=1 prints every step.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/falloc.h>
#include <linux/magic.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <upcache/check.h>
#include <upcache/upcache.h>

#include "api/internal.h"
#include "rand.h"

#define MIB			(1L << 20)
#define DIFF_WINDOW		(8 * MIB)
#define DIFF_MAX_IO		(4 * MIB + 3 * 4096)
#define DIFF_FAR		(1L << 44)
#define DIFF_FULL_EVERY		1000
#define DIFF_MEMORY		(256UL << 20)
#define DIFF_DEFAULT_OPS	100000

/* The swap runs (see the opening comment). */
#define DIFF_SWAP_LIMIT		(4UL << 20)
#define DIFF_SWAP_SIZE		(64UL << 20)
#define DIFF_SWAP_WINDOW	(16 * MIB)
#define DIFF_SWAP_UNWRITTEN	256	/* pages: a quarter of memory */
#define DIFF_SWAP_DEFAULT_OPS	25000
#define DIFF_SWAP_HUGE_DEFAULT_OPS 50000	/* the run with large folios */

struct diff {
	struct upc_cache *cache;
	struct upc_file *file;
	int fd;
	char policy[24];	/* "never", "always" or "within_size", with
				 * "+swap" for the swap runs */
	bool relaxed;		/* upcache may hold large folios */
	bool swap;		/* a small cache with swap: the swap runs */
	int64_t window;		/* where most offsets fall */
	uint64_t peak_pages;	/* most pages held, in memory and in swap */
	unsigned long checks;		/* compare_size() calls */
	unsigned long swapped_checks;	/* ...that found pages in swap */
	unsigned long fallocs_cut;	/* fallocate calls cut to budget */
	struct upc_rand rnd;
	uint64_t seed;		/* UPC_SEED, as printed */
	unsigned long step;
	bool trace;		/* UPC_DIFF_TRACE=1: print every step */
	unsigned long relaxed_seeks;	/* answers the relaxed rule allowed */
	unsigned long huge_folios;	/* order-9 folios seen */
	/* What the swap runs saw of large swap entries (opening comment): */
	unsigned long large_entries;	/* found at the full checks */
	int max_entry_order;		/* the largest of them */
	unsigned long large_swapins;	/* reads that brought one in whole */
	unsigned long split_swapins;	/* ...or their page alone */
	unsigned long cut_entries;	/* punch/truncation edges in one */
	char op[160];		/* the current step, for failure messages */
	bool zeroes_size_first;	/* the kernel checks WRITE_ZEROES' size
				 * before refusing it (6.17 on) */
	char *pool;		/* random bytes that writes take a slice of */
	char *kbuf;
	char *ubuf;
};

static struct diff *d;

#include "diff_helpers.h"

static uint64_t unwritten_pages(void);

/*
 * The run's name in failure messages (diff_helpers.h); a swap run's
 * also prints what the cache held.
 */
static void diff_describe(char *buf, size_t size)
{
	if (d->swap) {
		struct upc_cache_stats st;

		/* What the cache held, to tell a full cache from a bug. */
		upc_cache_stats(d->cache, &st);
		fprintf(stderr, "# at failure: %" PRIu64 " of %" PRIu64
			" pages of memory used, %" PRIu64 " of %" PRIu64
			" swap pages, %" PRIu64 " pages unwritten\n",
			st.memory_used / 4096, st.memory_limit / 4096,
			st.swap_used / 4096, st.swap_total / 4096,
			unwritten_pages());
	}
	snprintf(buf, size, "tmpfs diff (huge=%s)", d->policy);
}

/* ---- the kernel side: -errno like upcache -------------------------------- */

/* lseek(): -errno on failure; a wrapped result (see check_seek()) as is. */
static int64_t k_seek(int64_t off, int whence)
{
	int64_t ret = lseek(d->fd, off, whence);

	return ret == -1 ? -errno : ret;
}

static int64_t k_size(void)
{
	return fd_size(d->fd);
}

/* ---- random choices ------------------------------------------------------ */

/* Near a 4 KiB or 2 MiB boundary, or anywhere, inside [0, @span). */
static int64_t rand_near(int64_t span)
{
	int64_t unit = chance(1, 3) ? 2 * MIB : 4096;

	return rand_near_base(rnd(span / unit + 1) * unit, span);
}

/* A file offset: mostly in the window, sometimes far or near the limit. */
static int64_t rand_offset(void)
{
	int64_t r = rnd(100);

	if (r < 85)
		return rand_near(d->window);
	if (r < 97)
		return d->window + rand_near(DIFF_FAR);
	return UPC_MAX_FILE_SIZE - rnd(3 * MIB);
}

/* A length for @off: mostly small; long ones only inside the window. */
static int64_t rand_len(int64_t off)
{
	int64_t r = rnd(100);

	if (r < 45)
		return 1 + rnd(8192);
	if (r < 75 || off >= d->window)
		return 1 + rnd(64 * 1024);
	if (r < 96)
		return 1 + rnd(MIB / 4);
	if (r < 98)
		return 2 * MIB * (1 + rnd(2));
	return 1 + rnd(DIFF_MAX_IO - 1);
}

/* ---- comparisons --------------------------------------------------------- */

/* What upcache holds at a page. */
enum held {
	HELD_NOTHING,
	HELD_SWAP,		/* a swap entry */
	HELD_UNWRITTEN,		/* a folio that is not uptodate */
	HELD_DATA,		/* an uptodate folio */
};

/* What upcache holds at the page of @pos, and *@order its order. */
static enum held held_at(int64_t pos, int *order)
{
	struct address_space *mapping = upc_file_mapping(d->file);
	pgoff_t index = (pgoff_t)pos >> UPC_PAGE_SHIFT;
	void *entry = filemap_get_entry(mapping, index);
	struct folio *folio = entry;
	bool uptodate;

	*order = 0;
	if (!entry)
		return HELD_NOTHING;
	if (xa_is_value(entry)) {
		*order = xa_get_order(&mapping->i_pages, index);
		return HELD_SWAP;
	}
	*order = (int)folio_order(folio);
	uptodate = folio_test_uptodate(folio);
	folio_put(folio);
	return uptodate ? HELD_DATA : HELD_UNWRITTEN;
}

/*
 * May upcache take the page at @pos for data where tmpfs has a hole?
 * Yes if it holds the page in an uptodate large folio; in a swap run
 * also if it holds it in swap or in any uptodate folio, since a large
 * folio's pages stay together in swap and may come back one by one.
 */
static bool relaxed_page(int64_t pos)
{
	int order;

	switch (held_at(pos, &order)) {
	case HELD_DATA:
		return order > 0 || d->swap;
	case HELD_SWAP:
		return d->swap;
	default:
		return false;
	}
}

/* The order of the swap entry holding the page at @pos, or -1. */
static int swap_order_at(int64_t pos)
{
	int order;

	if (pos < 0 || held_at(pos, &order) != HELD_SWAP)
		return -1;
	return order;
}

/*
 * The swap runs: a read from @pos found a swap entry of order
 * @entry_order there before.  If it was large, count what the read left
 * at @pos: a large folio (swapped in whole) or a small one (split).
 * Reclaim may have swapped it out again meanwhile: then nothing counts.
 */
static void note_swapin(int64_t pos, int entry_order)
{
	int order;

	if (entry_order <= 0 || held_at(pos, &order) != HELD_DATA)
		return;
	if (order >= entry_order)
		d->large_swapins++;
	else
		d->split_swapins++;
}

/*
 * The swap runs: count a punch's or truncation's edge @pos that falls
 * inside a large swap entry (not at its start), which must be split.
 */
static void note_cut(int64_t pos)
{
	int order = d->swap ? swap_order_at(pos) : -1;

	if (order > 0 && pos & ((UPC_PAGE_SIZE << order) - 1))
		d->cut_entries++;
}

/* Read [@off, @off + @len) from both (len <= DIFF_MAX_IO) and compare. */
static void compare_read(int64_t off, int64_t len)
{
	int order = d->swap ? swap_order_at(off) : -1;

	if (diff_compare_read("tmpfs", d->fd, d->kbuf, d->file, d->ubuf, off,
			      len) > 0)
		note_swapin(off, order);
}

/* Compare [@lo, @hi) in reads of at most DIFF_MAX_IO. */
static void compare_range(int64_t lo, int64_t hi)
{
	diff_compare_range(compare_read, DIFF_MAX_IO, lo, hi);
}

/*
 * tmpfs cannot seek into the last page a file can have (index
 * MAX_PAGECACHE_INDEX): mapping_seek_hole_data() rounds the end of that
 * page, 2^63, into a negative loff_t, so SEEK_DATA answers ENXIO and
 * SEEK_HOLE LLONG_MIN when the answer lies there.  upcache answers
 * correctly; a tmpfs answer of that kind is not held against it.
 */
static bool tmpfs_last_page_bug(bool data, int64_t rk, int64_t ru)
{
	const int64_t last = (int64_t)MAX_PAGECACHE_INDEX << UPC_PAGE_SHIFT;

	if (data)
		return rk == -ENXIO && ru >= last;
	return rk == INT64_MIN && ru >= 0;
}

/*
 * Compare seek results @rk (tmpfs) and @ru (upcache) from @off; see the
 * opening comment for what the relaxed rule allows.
 */
static void check_seek(int64_t off, bool data, int64_t rk, int64_t ru)
{
	bool ok;

	if (rk == ru || tmpfs_last_page_bug(data, rk, ru))
		return;
	if (!d->relaxed)
		ok = false;
	else if (data)
		ok = ru >= off && (rk == -ENXIO || ru < rk) && relaxed_page(ru);
	else
		ok = rk >= off && ru > rk && relaxed_page(rk);
	d->relaxed_seeks += ok;
	DIFF_CHECK(ok, "%s(%" PRId64 "): tmpfs %" PRId64 ", upcache %" PRId64,
		   data ? "SEEK_DATA" : "SEEK_HOLE", off, rk, ru);
}

static void compare_seeks(int64_t off)
{
	check_seek(off, true, k_seek(off, SEEK_DATA),
		   upc_seek_data(d->file, off));
	check_seek(off, false, k_seek(off, SEEK_HOLE),
		   upc_seek_hole(d->file, off));
}

/*
 * The sizes, and the memory held: tmpfs's st_blocks counts its pages,
 * fallocated ones included; upcache's large folios may hold more.  A
 * page in swap holds one slot (a swap run's file is the device's only
 * user; a large swap entry holds one per page) and counts as a page, as
 * tmpfs counts its own swapped pages.
 */
static void compare_size(void)
{
	int64_t ks = k_size(), us = upc_size(d->file);
	struct upc_cache_stats st;
	struct stat kst;
	uint64_t held;

	DIFF_CHECK(ks == us, "size: tmpfs %" PRId64 ", upcache %" PRId64, ks, us);
	assert_int_equal(fstat(d->fd, &kst), 0);
	assert_int_equal(upc_cache_stats(d->cache, &st), 0);
	/* A page swapped in that kept its slot counts once. */
	held = st.pages_cached + (st.swap_used - st.swap_cached) / 4096;
	DIFF_CHECK(d->relaxed ? held >= (uint64_t)kst.st_blocks / 8 :
		   held == (uint64_t)kst.st_blocks / 8,
		   "pages: tmpfs %" PRIu64 ", upcache %" PRIu64 " (%" PRIu64
		   " in swap)", (uint64_t)kst.st_blocks / 8, held,
		   st.swap_used / 4096);
	if (held > d->peak_pages)
		d->peak_pages = held;
	d->checks++;
	d->swapped_checks += st.swap_used > 0;
}

/*
 * Walk the data extents of tmpfs's file (exact mode: upcache's must be
 * the same) and compare their bytes; then the same over upcache's
 * extents, which may be wider in relaxed mode.
 */
static void compare_extents(bool kernel_side)
{
	int64_t size = k_size(), pos = 0;

	while (pos < size) {
		int64_t kd = k_seek(pos, SEEK_DATA);
		int64_t ud = upc_seek_data(d->file, pos);
		int64_t start = kernel_side ? kd : ud, kh, uh, end;

		check_seek(pos, true, kd, ud);
		if (start < 0)
			break;
		kh = k_seek(start, SEEK_HOLE);
		uh = upc_seek_hole(d->file, start);
		check_seek(start, false, kh, uh);
		end = kernel_side ? kh : uh;
		if (end <= start)
			break;	/* tmpfs's last-page answer */
		compare_range(start, end);
		pos = end;
	}
}

/*
 * Count the order-9 folios of the file, to show huge=always used some,
 * and its swap entries of order > 0, to show the swap runs made some.
 */
static void count_large(void)
{
	struct address_space *mapping = upc_file_mapping(d->file);
	unsigned long index;
	void *entry;
	int order;

	xa_for_each(&mapping->i_pages, index, entry) {
		if (!xa_is_value(entry)) {
			d->huge_folios += folio_order(entry) == UPC_MAX_ORDER;
			continue;
		}
		order = xa_get_order(&mapping->i_pages, index);
		d->large_entries += order > 0;
		if (order > d->max_entry_order)
			d->max_entry_order = order;
	}
}

static void compare_full(void)
{
	int64_t size = k_size(), window = d->window + 4 * MIB;

	compare_size();
	compare_range(0, size < window ? size : window);
	compare_extents(true);
	compare_extents(false);
	DIFF_CHECK(upc_check_mapping(upc_file_mapping(d->file)) == 0,
		   "upc_check_mapping() failed");
	if (d->swap)
		DIFF_CHECK(upc_check_swap(d->cache->swap) == 0,
			   "upc_check_swap() failed");
	count_large();
}

/* After a step on [@off, @off + @len): the edges, a probe, a seek pair. */
static void compare_after(int64_t off, int64_t len)
{
	int64_t size = k_size();

	compare_size();
	diff_compare_edges(compare_range, off, len, size);
	compare_read(rand_near(sat_add(size, 8192)), 1 + rnd(16 * 1024));
	compare_seeks(chance(3, 4) && size ? rnd(size) : rand_offset());
}

/* ---- the steps ----------------------------------------------------------- */

static void step_write(void)
{
	int64_t off = chance(1, 100) ? -1 - rnd(100) : rand_offset();
	int64_t len = rand_len(off);

	const char *src = d->pool + rnd(DIFF_MAX_IO);

	/* The swap runs refill their window faster after truncations. */
	if (d->swap && off >= 0 && off < d->window && chance(1, 10))
		len = MIB + rnd(DIFF_MAX_IO - MIB);

	snprintf(d->op, sizeof(d->op), "write(%" PRId64 ", %" PRId64 ")",
		 off, len);
	diff_write("tmpfs", d->fd, d->file, src, len, off);
	compare_after(off, len);
}

static void step_read(void)
{
	int64_t off = chance(1, 100) ? -1 - rnd(100) : rand_offset();
	int64_t len = rand_len(off);

	snprintf(d->op, sizeof(d->op), "read(%" PRId64 ", %" PRId64 ")",
		 off, len);
	compare_read(off, len);
}

/* fallocate modes tmpfs refuses with EOPNOTSUPP. */
static const int unsupported_modes[] = {
	FALLOC_FL_PUNCH_HOLE,
	FALLOC_FL_ZERO_RANGE,
	FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
	FALLOC_FL_COLLAPSE_RANGE,
	FALLOC_FL_INSERT_RANGE,
	FALLOC_FL_UNSHARE_RANGE,
	FALLOC_FL_UNSHARE_RANGE | FALLOC_FL_KEEP_SIZE,
	0x80,		/* FALLOC_FL_WRITE_ZEROES, Linux 6.17 */
	0x100,
	FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
	-1,
};

static int rand_mode(void)
{
	int64_t r = rnd(100);

	if (r < 30)
		return 0;
	if (r < 60)
		return FALLOC_FL_KEEP_SIZE;
	if (r < 92)
		return FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;
	return unsupported_modes[rnd(sizeof(unsupported_modes) /
				     sizeof(unsupported_modes[0]))];
}

/* Pages the file holds in folios that are not uptodate (swap runs). */
static uint64_t unwritten_pages(void)
{
	struct address_space *mapping = upc_file_mapping(d->file);
	struct folio_batch fbatch;
	pgoff_t index = 0;
	uint64_t n = 0;
	unsigned int i;

	folio_batch_init(&fbatch);
	while (filemap_get_folios(mapping, &index, MAX_PAGECACHE_INDEX,
				  &fbatch)) {
		for (i = 0; i < folio_batch_count(&fbatch); i++)
			if (!folio_test_uptodate(fbatch.folios[i]))
				n += folio_nr_pages(fbatch.folios[i]);
		folio_batch_release(&fbatch);
		if (index > MAX_PAGECACHE_INDEX)
			break;
	}
	return n;
}

/*
 * A swap run: a fallocate that allocates [@off, @off + *@len) could
 * add that many pages that cannot go to swap.  Cut it so that they stay
 * within DIFF_SWAP_UNWRITTEN pages (counting every page of the range,
 * allocated already or not), or make it a punch when none are left.
 * Calls that fail on their arguments are left alone.
 */
static void falloc_budget(int *mode, int64_t off, int64_t *len)
{
	uint64_t used, room, pages;

	if (!d->swap || off < 0 || *len <= 0 ||
	    (*mode && *mode != FALLOC_FL_KEEP_SIZE) ||
	    *len > UPC_MAX_FILE_SIZE - off)
		return;
	used = unwritten_pages();
	room = used < DIFF_SWAP_UNWRITTEN ? DIFF_SWAP_UNWRITTEN - used : 0;
	pages = (uint64_t)((off + *len - 1) / 4096 - off / 4096 + 1);
	if (pages <= room)
		return;
	d->fallocs_cut++;
	if (room > 1) {
		/* Whole pages from the next boundary on: room - 1 of them. */
		*len = (int64_t)((off | 4095) + 1 - off) +
		       (int64_t)(room - 2) * 4096;
		return;
	}
	*mode = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;
}

static void step_fallocate(void)
{
	int mode = rand_mode();
	/*
	 * Any offset, for the refused modes too: which of them the size
	 * check (-EFBIG) comes before is the VFS's business, and compared.
	 * upcache answers WRITE_ZEROES as Linux 6.17 on; before that the
	 * kernel refused it first, so its ranges stay in reach there.
	 */
	int64_t off = mode == 0x80 && !d->zeroes_size_first ?
		      rand_near(d->window) : rand_offset();
	int64_t len = rand_len(off);

	if (chance(1, 50))
		len = -rnd(2);
	if (chance(1, 100))
		off = -1 - rnd(4096);
	falloc_budget(&mode, off, &len);
	if (mode == (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE) && len > 0) {
		note_cut(off);
		note_cut(sat_add(off, len));
	}
	snprintf(d->op, sizeof(d->op), "fallocate(%#x, %" PRId64 ", %" PRId64 ")",
		 (unsigned int)mode, off, len);
	diff_fallocate("tmpfs", d->fd, d->file, mode, off, len);
	compare_after(off, len);
}

static void step_truncate(void)
{
	int64_t r = rnd(100), size;

	/*
	 * The swap runs keep the first half of its window mostly, so that
	 * the file stays larger than the cache's memory between the
	 * truncations to 0 (and the far ones, which free all of it).
	 */
	if (r < 75 && d->swap && chance(3, 4))
		size = d->window / 2 + rand_near(d->window / 2);
	else if (r < 75)
		size = rand_near(d->window);
	else if (r < 80)
		size = 0;
	else if (r < 98)
		size = rand_offset();
	else
		size = -1 - rnd(100);
	snprintf(d->op, sizeof(d->op), "truncate(%" PRId64 ")", size);
	note_cut(size);
	diff_truncate("tmpfs", d->fd, d->file, size);
	compare_after(size > 8192 ? size - 8192 : 0, 16384);
}

static void step_seek(void)
{
	int64_t size = k_size();
	int64_t off = chance(2, 3) && size ? rnd(size) : rand_offset();

	snprintf(d->op, sizeof(d->op), "seek(%" PRId64 ")", off);
	compare_seeks(off);
}

static void diff_step(void)
{
	int64_t r = rnd(100);

	diff_trace();
	if (r < 30)
		step_write();
	else if (r < 45)
		step_read();
	else if (r < 70)
		step_fallocate();
	else if (r < 80)
		step_truncate();
	else
		step_seek();
}

/*
 * What a relaxed run must see, made sure of before the random steps
 * (which, for some seeds, never leave an order-9 folio in place at a
 * full comparison): an aligned 2 MiB write, which gets an order-9
 * folio, and a one-page punch inside it, which tmpfs turns into a hole
 * and upcache into zeros in the large folio, so that SEEK_HOLE from 0
 * is an answer the relaxed rule explains.
 */
static void diff_prologue(void)
{
	snprintf(d->op, sizeof(d->op), "prologue: write(0, %ld)", 2 * MIB);
	diff_write("tmpfs", d->fd, d->file, d->pool, 2 * MIB, 0);
	compare_full();
	DIFF_CHECK(d->huge_folios > 0, "no order-9 folio after an aligned "
		   "2 MiB write");
	snprintf(d->op, sizeof(d->op), "prologue: punch(4096, 4096)");
	diff_fallocate("tmpfs", d->fd, d->file,
		       FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 4096, 4096);
	compare_seeks(0);
	DIFF_CHECK(d->relaxed_seeks > 0, "SEEK_HOLE(0) inside a large folio "
		   "matched tmpfs's hole");
}

/* ---- setup and the runs -------------------------------------------------- */

/* Is /dev/shm a tmpfs without huge pages?  Return: NULL, or why not. */
static const char *dev_shm_unusable(void)
{
	char line[512];
	struct statfs sfs;
	const char *why = NULL;
	FILE *f;

	if (statfs("/dev/shm", &sfs) || sfs.f_type != TMPFS_MAGIC)
		return "/dev/shm is not a tmpfs";
	f = fopen("/proc/mounts", "r");
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, " /dev/shm tmpfs ") && strstr(line, "huge=") &&
		    !strstr(line, "huge=never"))
			why = "/dev/shm is mounted with huge pages";
	fclose(f);
	return why;
}

/*
 * A swap run's figures, and what it must have done: swapped both ways
 * and held more than its memory; with large folios, made large swap
 * entries and swapped some in whole.  Short runs (UPC_DIFF_OPS) may not
 * get that far.
 */
static void swap_report(unsigned long ops)
{
	struct upc_cache_stats st;

	assert_int_equal(upc_cache_stats(d->cache, &st), 0);
	fprintf(stderr, "# tmpfs diff huge=%s: %" PRIu64 " pages swapped out, %"
		PRIu64 " in; at most %" PRIu64 " pages held (%lu in memory); "
		"pages in swap at %lu of %lu checks; %lu fallocate calls cut\n",
		d->policy, st.swapouts, st.swapins, d->peak_pages,
		DIFF_SWAP_LIMIT / 4096, d->swapped_checks, d->checks,
		d->fallocs_cut);
	fprintf(stderr, "# tmpfs diff huge=%s: %lu large swap entries at full "
		"checks (order <= %d); reads of one swapped in %lu whole, %lu "
		"split; %lu punch/truncation edges inside one\n", d->policy,
		d->large_entries, d->max_entry_order, d->large_swapins,
		d->split_swapins, d->cut_entries);
	if (ops < 10000)
		return;
	assert_true(st.swapouts > 0 && st.swapins > 0 &&
		    d->peak_pages > DIFF_SWAP_LIMIT / 4096);
	if (d->relaxed)
		assert_true(d->large_entries > 0 && d->large_swapins > 0);
	else
		assert_int_equal(d->large_entries, 0);
}

/* The swap runs' seeds differ from the other runs' (same policy). */
#define DIFF_SWAP_SEED		0x5357415000000000ull	/* "SWAP" */
#define DIFF_SWAP_FILE_SEED	0x46494c45ull		/* "FILE" */

/*
 * One run: policy @huge; with @swap, in a small cache with swap, in a
 * file with @swap_file (else in memory).
 */
static void diff_run(void **state, enum upc_huge huge, bool swap,
		     bool swap_file)
{
	struct upc_cache_config cfg = {
		.memory_limit = swap ? DIFF_SWAP_LIMIT : DIFF_MEMORY,
	};
	struct upc_swap_config swap_cfg = { .size = DIFF_SWAP_SIZE };
	struct upc_shmem_options opts = { .huge = huge };
	char path[] = "/dev/shm/upcache-diff-XXXXXX";
	char swap_path[] = "/tmp/upcache-diff-swap-XXXXXX";
	unsigned long i, ops = upc_test_diff_ops(!swap ? DIFF_DEFAULT_OPS :
						 huge == UPC_HUGE_NEVER ?
						 DIFF_SWAP_DEFAULT_OPS :
						 DIFF_SWAP_HUGE_DEFAULT_OPS);
	const char *why = dev_shm_unusable();
	struct upc_cache_stats st;
	struct diff env = { 0 };
	struct timespec t0;

	(void)state;
	if (why) {
		fprintf(stderr, "# skipped: %s; the tmpfs differential "
			"test needs one\n", why);
		skip();
	}
	d = &env;
	env.fd = mkstemp(path);
	assert_true(env.fd >= 0);
	unlink(path);
	/* Older kernels refuse the mode (0x80) before the size check. */
	env.zeroes_size_first = fallocate(env.fd, 0x80, INT64_MAX - 1, 10) &&
				errno == EFBIG;
	env.relaxed = huge != UPC_HUGE_NEVER;
	env.swap = swap;
	env.window = swap ? DIFF_SWAP_WINDOW : DIFF_WINDOW;
	snprintf(env.policy, sizeof(env.policy), "%s%s",
		 huge == UPC_HUGE_NEVER ? "never" :
		 huge == UPC_HUGE_ALWAYS ? "always" : "within_size",
		 swap_file ? "+swapfile" : swap ? "+swap" : "");
	diff_seed((uint64_t)huge ^ (swap ? DIFF_SWAP_SEED : 0) ^
		  (swap_file ? DIFF_SWAP_FILE_SEED : 0));
	env.pool = malloc(2 * DIFF_MAX_IO);
	env.kbuf = malloc(DIFF_MAX_IO);
	env.ubuf = malloc(DIFF_MAX_IO);
	assert_non_null(env.pool);
	fill_random(env.pool, 2 * DIFF_MAX_IO);
	assert_non_null(env.kbuf);
	assert_non_null(env.ubuf);
	assert_int_equal(upc_cache_create(&cfg, &env.cache), 0);
	if (swap_file) {
		int sfd = mkstemp(swap_path);

		assert_true(sfd >= 0);
		close(sfd);
		swap_cfg.path = swap_path;
	}
	if (swap)
		assert_int_equal(upc_swapon(env.cache, &swap_cfg), 0);
	assert_int_equal(upc_shmem_create(env.cache, &opts, &env.file), 0);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (env.relaxed)
		diff_prologue();
	for (i = 0; i < ops; i++) {
		env.step = i;
		diff_step();
		if (i % DIFF_FULL_EVERY == DIFF_FULL_EVERY - 1)
			compare_full();
	}
	snprintf(env.op, sizeof(env.op), "final comparison");
	compare_full();
	fprintf(stderr, "# tmpfs diff huge=%s: %lu steps in %.2f s; %lu order-9 "
		"folios seen, %lu seek answers explained by large folios\n",
		env.policy, ops, seconds_since(&t0), env.huge_folios,
		env.relaxed_seeks);
	/* The prologue made sure a relaxed run exercised what it claims. */
	if (env.relaxed)
		assert_true(env.huge_folios > 0 && env.relaxed_seeks > 0);
	if (!env.relaxed)
		assert_int_equal(env.huge_folios, 0);
	if (swap)
		swap_report(ops);

	assert_int_equal(upc_close(env.file), 0);
	assert_int_equal(upc_cache_stats(env.cache, &st), 0);
	assert_int_equal(st.memory_used, 0);
	assert_int_equal(st.swap_used, 0);
	assert_int_equal(upc_cache_destroy(env.cache), 0);
	if (swap_file)
		unlink(swap_path);
	close(env.fd);
	free(env.pool);
	free(env.kbuf);
	free(env.ubuf);
	d = NULL;
}

static void test_shmem_tmpfs_diff_huge_never(void **state)
{
	diff_run(state, UPC_HUGE_NEVER, false, false);
}

static void test_shmem_tmpfs_diff_huge_always(void **state)
{
	diff_run(state, UPC_HUGE_ALWAYS, false, false);
}

static void test_shmem_tmpfs_diff_huge_within_size(void **state)
{
	diff_run(state, UPC_HUGE_WITHIN_SIZE, false, false);
}

static void test_shmem_tmpfs_diff_swap(void **state)
{
	diff_run(state, UPC_HUGE_NEVER, true, false);
}

/*
 * Swap to a file: pages read back keep their slots until written or
 * truncated (a write that forgot to free them would leave reclaim to
 * send a page back to its stale copy), sequential swap-ins read ahead,
 * and reclaim writes neighbours together.
 */
static void test_shmem_tmpfs_diff_swap_file(void **state)
{
	diff_run(state, UPC_HUGE_NEVER, true, true);
}

/* Large folios to swap and back, whole or split (the opening comment). */
static void test_shmem_tmpfs_diff_swap_huge_always(void **state)
{
	diff_run(state, UPC_HUGE_ALWAYS, true, false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shmem_tmpfs_diff_huge_never),
		cmocka_unit_test(test_shmem_tmpfs_diff_huge_always),
		cmocka_unit_test(test_shmem_tmpfs_diff_huge_within_size),
		cmocka_unit_test(test_shmem_tmpfs_diff_swap),
		cmocka_unit_test(test_shmem_tmpfs_diff_swap_file),
		cmocka_unit_test(test_shmem_tmpfs_diff_swap_huge_always),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
