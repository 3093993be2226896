// SPDX-License-Identifier: MIT
/*
 * tools/bench/sw_cases.c - the swap suite's caches, swap devices and
 * memhog rounds (sw_cases.h).
 *
 * Owns the mode table, creating each side's arena (with reclaim held to
 * the limit) and swap device (in memory, or a swap file), the timed touch
 * of the region and the checks around it, and the page data both it and
 * the kernel side (sw_kernel.c) write and check.
 *
 * Conventions: @b is the shared state, @c one side's cache.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <upcache/stats.h>
#include <upcache/vmscan.h>

#include "clock.h"
#include "rng.h"
#include "scale.h"
#include "sw_cases.h"
#include "util.h"

/* Regions are whole 8 MiB: the limit, a quarter, is whole 2 MiB. */
#define SW_REGION_ALIGN	2048UL
/* Pages read back after a round to check them (and the last page). */
#define SW_CHECK_PAGES	1024UL

/* The words each page carries: its index, and its complement at the end. */
#define SW_STAMP	0x7377706d656d686fULL	/* "swpmemho" */
#define SW_WORDS	(UPC_PAGE_SIZE / sizeof(uint64_t))
/* What memhog writes ('m'); the stamps go over it. */
#define SW_FILL_BYTE	0x6d

static uint64_t sw_stamp(pgoff_t index)
{
	return SW_STAMP ^ index;
}

void sw_page_fill(uint64_t *page)
{
	memset(page, SW_FILL_BYTE, UPC_PAGE_SIZE);
}

void sw_page_stamp(uint64_t *page, unsigned long index)
{
	page[0] = sw_stamp(index);
	page[SW_WORDS - 1] = ~sw_stamp(index);
}

bool sw_page_is_own(const uint64_t *page, unsigned long index)
{
	uint64_t fill;

	memset(&fill, SW_FILL_BYTE, sizeof(fill));
	return page[0] == sw_stamp(index) &&
	       page[SW_WORDS - 1] == ~sw_stamp(index) && page[1] == fill;
}

static const char *const sw_side_names[SW_NR_SIDES] = { "after", "before" };

/*
 * More than 1 GiB of swap in use (64^3 slots) takes the trees keyed by
 * full offsets to 4 levels while keys inside a chunk keep 3: full swaps out
 * 1.5 GiB, quick 1.1 GiB, the least that shows it (most of a quick run
 * is the warm-up's first touch of the devices' memory).  tiny's trees
 * have 3 levels or fewer either way.
 */
static const struct bench_mode_pages sw_modes[] = {
	{ "full", 1UL << 19, 11 },	/* 2 GiB region, 512 MiB limit */
	{ "quick", 3UL << 17, 5 },	/* 1.5 GiB region, 384 MiB limit */
	{ "tiny", 1UL << 12, 3 },	/* 16 MiB region, 4 MiB limit */
};

static const struct bench_pages_spec sw_pages = {
	"swap", "region", sw_modes, sizeof(sw_modes) / sizeof(sw_modes[0]),
	SW_MAX_REGION_PAGES, SW_REGION_ALIGN,
};

/**
 * sw_scale_from_options() - Pick the sizes the options ask for.
 * @opts: The parsed options.
 * @scale: The result.
 */
void sw_scale_from_options(const struct bench_options *opts,
			   struct sw_scale *scale)
{
	struct bench_scale common;
	unsigned long pages = bench_scale_pages(opts, &sw_pages, &common);

	scale->mode = common.mode;
	scale->region_pages = pages;
	scale->limit_pages = pages / 4;
	scale->swap_bytes = (unsigned long long)pages << UPC_PAGE_SHIFT;
	scale->swap_file = opts->swap_file;
	scale->rounds = common.rounds;
	scale->warmups = 1;
}

/**
 * sw_space_shift() - The swap cache layout of a side.
 * @side: The side.
 *
 * Return: SWAP_ADDRESS_SPACE_SHIFT or SWAP_SPACE_FULL_INDEX.
 */
unsigned int sw_space_shift(enum sw_side side)
{
	return side == SW_AFTER ? SWAP_ADDRESS_SPACE_SHIFT : SWAP_SPACE_FULL_INDEX;
}

/* ---- caches and devices ------------------------------------------------- */

/*
 * Swap files this run created and has not removed yet, by side.  A run
 * that dies (bench_die() exits) leaves none behind: sw_remove_created()
 * runs at exit.
 */
static char *sw_created[SW_NR_SIDES];

static void sw_remove_created(void)
{
	unsigned int side;

	for (side = 0; side < SW_NR_SIDES; side++)
		if (sw_created[side])
			unlink(sw_created[side]);
}

/* The swap file of side @side: --swap-file, or it with ".whole". */
static void sw_swap_file_path(const struct sw_bench *b, enum sw_side side,
			      char *path, size_t len)
{
	snprintf(path, len, "%s%s", b->scale.swap_file,
		 side == SW_AFTER ? "" : ".whole");
}

/* Both sides' paths are regular files or missing, before either is made. */
static void sw_swap_files_check(const struct sw_bench *b)
{
	unsigned int side;

	for (side = 0; side < SW_NR_SIDES; side++) {
		char path[4096];
		struct stat st;

		sw_swap_file_path(b, side, path, sizeof(path));
		if (!stat(path, &st) && !S_ISREG(st.st_mode))
			bench_die("swap: --swap-file %s: not a regular file",
				  path);
	}
}

/*
 * Open (or create, sized to the device) the swap file of side @side.
 * An existing file is used and kept, but its first swap_bytes are
 * overwritten: the device only reads slots it wrote.
 */
static void sw_swap_file_open(struct sw_bench *b, struct sw_cache *c,
			      enum sw_side side)
{
	static bool at_exit;
	char path[4096];

	sw_swap_file_path(b, side, path, sizeof(path));
	c->path = bench_xstrdup(path);
	c->fd = open(path, O_RDWR | O_CLOEXEC);
	if (c->fd < 0 && errno == ENOENT) {
		c->fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
			     0600);
		c->created = c->fd >= 0;
		if (c->created) {
			if (!at_exit)
				at_exit = !atexit(sw_remove_created);
			sw_created[side] = c->path;
		}
		if (c->created &&
		    ftruncate(c->fd, (off_t)b->scale.swap_bytes))
			bench_die("swap: sizing %s to %llu MiB: %s", path,
				  b->scale.swap_bytes >> 20, strerror(errno));
	}
	if (c->fd < 0)
		bench_die("swap: --swap-file %s: %s", path, strerror(errno));
}

static void sw_cache_init(struct sw_bench *b, enum sw_side side)
{
	struct sw_cache *c = &b->side[side];
	size_t bytes = (b->scale.limit_pages << UPC_PAGE_SHIFT) +
		       BENCH_ARENA_SLACK;
	int err;

	c->fd = -1;
	err = upc_arena_create(bytes, &c->arena);
	if (!err)
		err = upc_reclaim_init(c->arena);
	if (!err)
		err = upc_reclaim_set_limit(c->arena, b->scale.limit_pages);
	if (err)
		bench_die("swap: cannot create a %zu MiB cache: %s",
			  bytes >> 20, strerror(-err));
	if (b->scale.swap_file)
		sw_swap_file_open(b, c, side);
	/* A device in memory is in huge pages (mm/swapfile.c asks). */
	err = swap_device_create(c->arena, c->fd, b->scale.swap_bytes,
				 sw_space_shift(side), &c->si);
	if (err)
		bench_die("swap: cannot create a %llu MiB swap device (%s): "
			  "%s", b->scale.swap_bytes >> 20, sw_side_names[side],
			  strerror(-err));
}

static void sw_cache_free(struct sw_cache *c, enum sw_side side)
{
	int err = swap_device_destroy(c->si);

	if (err)
		bench_die("swap %s: the device still has %lu slots in use",
			  sw_side_names[side], c->si->inuse_pages);
	lru_add_drain_all(c->arena);
	if (upc_arena_charged(c->arena))
		bench_die("swap %s: %lu pages still charged (a leaked folio "
			  "reference)", sw_side_names[side],
			  upc_arena_charged(c->arena));
	upc_reclaim_destroy(c->arena);
	upc_arena_destroy(c->arena);
	if (c->fd >= 0)
		close(c->fd);
	if (c->created)
		unlink(c->path);
	sw_created[side] = NULL;
	free(c->path);
}

/**
 * sw_init() - Create both caches and their swap devices.
 * @b: The state to fill.
 * @scale: The sizes.
 */
void sw_init(struct sw_bench *b, const struct sw_scale *scale)
{
	unsigned int side;

	memset(b, 0, sizeof(*b));
	b->scale = *scale;
	b->page = bench_xcalloc(1, UPC_PAGE_SIZE);
	b->offs = bench_xcalloc(SW_LOOKUPS, sizeof(*b->offs));
	/* memhog writes a constant; the stamps go over it. */
	sw_page_fill(b->page);
	if (b->scale.swap_file)
		sw_swap_files_check(b);
	for (side = 0; side < SW_NR_SIDES; side++)
		sw_cache_init(b, side);
}

/**
 * sw_free() - Destroy the devices and caches and remove their files.
 * @b: The state.
 */
void sw_free(struct sw_bench *b)
{
	unsigned int side;

	for (side = 0; side < SW_NR_SIDES; side++)
		sw_cache_free(&b->side[side], side);
	free(b->page);
	free(b->offs);
	memset(b, 0, sizeof(*b));
}

/* ---- a round ------------------------------------------------------------ */

/* Write page @index of @region: the page buffer, stamped with @index. */
static void sw_touch(struct sw_bench *b, struct anon_region *region,
		     pgoff_t index, enum sw_side side)
{
	ssize_t n;

	sw_page_stamp(b->page, index);
	n = anon_region_write(region, b->page, UPC_PAGE_SIZE,
			      (uint64_t)index << UPC_PAGE_SHIFT);
	if (n != (ssize_t)UPC_PAGE_SIZE)
		bench_die("swap %s: writing page %lu: %s", sw_side_names[side],
			  index, n < 0 ? strerror((int)-n) : "short write");
}

/**
 * struct sw_pass - one side's region during a round.
 * @region: The region.
 * @out0: The device's swap-outs when the round began.
 * @calibrating: Every part so far lay below the calibration mark with
 *	nothing swapped out: the walks counted are a touch's own.
 */
struct sw_pass {
	struct anon_region region;
	uint64_t out0;
	bool calibrating;
};

/*
 * sw_touch_part() - memhog's touch of part @part of a side's region:
 * its pages once, in order, timed and counted.  Parts that lie in the
 * first half of the limit, where nothing is swapped out yet, also count
 * as the calibration: what a touch costs without reclaim.
 */
static void sw_touch_part(struct sw_bench *b, struct sw_pass *p,
			  enum sw_side side, unsigned int part,
			  struct sw_sample *s)
{
	struct swap_info_struct *si = b->side[side].si;
	unsigned long pages = b->scale.region_pages;
	pgoff_t first = (pgoff_t)(pages * part / SW_PARTS);
	pgoff_t last = (pgoff_t)(pages * (part + 1) / SW_PARTS);
	struct upc_thread_stats t0, t1;
	uint64_t start, walks;
	pgoff_t index;

	upc_stats_thread(&t0);
	start = bench_now_ns();
	for (index = first; index < last; index++)
		sw_touch(b, &p->region, index, side);
	s->ns += bench_now_ns() - start;
	upc_stats_thread(&t1);
	walks = t1.xa_walks - t0.xa_walks;
	s->pages += last - first;
	s->walks += walks;
	s->node_allocs += t1.xa_node_allocs - t0.xa_node_allocs;
	s->locks += t1.lock_acquires - t0.lock_acquires;
	p->calibrating = p->calibrating && last <= b->scale.limit_pages / 2 &&
		__atomic_load_n(&si->pswpout, __ATOMIC_RELAXED) == p->out0;
	if (p->calibrating) {
		s->calib_pages += last - first;
		s->calib_walks += walks;
	}
}

/* Read page @index back and check it is its own. */
static void sw_check_page(struct anon_region *region,
			  pgoff_t index, enum sw_side side, uint64_t *buf)
{
	ssize_t n = anon_region_read(region, buf, UPC_PAGE_SIZE,
				     (uint64_t)index << UPC_PAGE_SHIFT);

	if (n != (ssize_t)UPC_PAGE_SIZE)
		bench_die("swap %s: reading page %lu back: %s",
			  sw_side_names[side], index,
			  n < 0 ? strerror((int)-n) : "short read");
	if (!sw_page_is_own(buf, index))
		bench_die("swap %s: page %lu read back %#llx..%#llx, not its "
			  "own data", sw_side_names[side], index,
			  (unsigned long long)buf[0],
			  (unsigned long long)buf[SW_WORDS - 1]);
}

unsigned long sw_check_step(const struct sw_scale *scale)
{
	unsigned long step = scale->region_pages / SW_CHECK_PAGES;

	return step ? step : 1;
}

/**
 * sw_pages_checked() - Pages a round reads back to check them.
 * @scale: The sizes.
 *
 * Return: The count.
 */
unsigned long sw_pages_checked(const struct sw_scale *scale)
{
	unsigned long step = sw_check_step(scale);

	return (scale->region_pages + step - 1) / step + 1;
}

/*
 * sw_check_region() - Read a spread of pages back, most of them from
 * swap (the first three quarters of the region were swapped out), and
 * the last page, which is in memory.
 */
static void sw_check_region(struct sw_bench *b, struct anon_region *region,
			    enum sw_side side)
{
	unsigned long pages = b->scale.region_pages;
	unsigned long step = sw_check_step(&b->scale);
	uint64_t *buf = bench_xcalloc(1, UPC_PAGE_SIZE);
	pgoff_t index;

	for (index = 0; index < pages; index += step)
		sw_check_page(region, index, side, buf);
	sw_check_page(region, pages - 1, side, buf);
	free(buf);
}

/* After the region is gone: no slot, no swap cache entry, no charge. */
static void sw_check_empty(struct sw_cache *c, enum sw_side side)
{
	struct swap_cache_info info;

	lru_add_drain_all(c->arena);
	if (c->si->inuse_pages)
		bench_die("swap %s: %lu slots still in use after the region "
			  "was destroyed", sw_side_names[side],
			  c->si->inuse_pages);
	swap_cache_info(c->si, &info);
	if (info.nr_entries || info.nr_nodes)
		bench_die("swap %s: the swap cache still holds %lu entries in "
			  "%lu nodes after every slot was freed",
			  sw_side_names[side], info.nr_entries, info.nr_nodes);
	if (upc_arena_charged(c->arena))
		bench_die("swap %s: %lu pages still charged after the region "
			  "was destroyed", sw_side_names[side],
			  upc_arena_charged(c->arena));
}

/*
 * sw_lookup_part() - Look up part @part of @offs (slots in use) in side
 * @side's swap cache, timed and counted.  Every slot holds a shadow, so
 * each lookup is one walk to a leaf and finds no folio.
 */
static void sw_lookup_part(struct sw_bench *b, const unsigned long *offs,
			   enum sw_side side, unsigned int part,
			   struct sw_sample *s)
{
	struct swap_info_struct *si = b->side[side].si;
	unsigned long i, first = SW_LOOKUPS * part / SW_PARTS;
	unsigned long last = SW_LOOKUPS * (part + 1) / SW_PARTS;
	struct upc_thread_stats t0, t1;
	uint64_t start;

	upc_stats_thread(&t0);
	start = bench_now_ns();
	for (i = first; i < last; i++) {
		struct folio *folio = swap_cache_get_folio(si,
				swp_entry(si->type, offs[i]));

		if (folio)
			bench_die("swap %s: slot %lu holds a folio after the "
				  "touch", sw_side_names[side], offs[i]);

	}
	s->lookup_ns += bench_now_ns() - start;
	upc_stats_thread(&t1);
	s->lookup_walks += t1.xa_walks - t0.xa_walks;
}

/* Is slot @off in use on both sides' devices?  (Nothing runs meanwhile.) */
static bool sw_slot_in_use(const struct sw_bench *b, unsigned long off)
{
	unsigned int side;

	for (side = 0; side < SW_NR_SIDES; side++) {
		const struct swap_info_struct *si = b->side[side].si;

		if (off >= si->max || !si->swap_map[off])
			return false;
	}
	return true;
}

/*
 * sw_lookups() - Both sides look up the same random slots, each in use
 * on both devices (so each lookup walks to a shadow: the slots in use
 * are not always the lowest ones, since rounds free and take clusters
 * in different orders), alternating part by part as the touch does.
 */
static void sw_lookups(struct sw_bench *b, unsigned int round,
		       struct sw_sample s[SW_NR_SIDES])
{
	unsigned long max = b->side[SW_AFTER].si->max, i, tries = 0;
	struct bench_rng rng = { 0x5eed0003ULL + round };
	unsigned int part, k;

	if (!s[SW_AFTER].swapouts || !s[SW_BEFORE].swapouts)
		return;
	for (i = 0; i < SW_LOOKUPS; tries++) {
		unsigned long off = (unsigned long)bench_rng_below(&rng, max);

		if (tries > 64 * SW_LOOKUPS)
			bench_die("swap: too few slots in use on both devices "
				  "to sample lookups from");
		if (sw_slot_in_use(b, off))
			b->offs[i++] = off;
	}
	for (part = 0; part < SW_PARTS; part++)
		for (k = 0; k < SW_NR_SIDES; k++)
			sw_lookup_part(b, b->offs, k ^ ((part + round) & 1),
				       part, &s[k ^ ((part + round) & 1)]);
	/* Untimed: how many of the slots looked up held no shadow. */
	for (k = 0; k < SW_NR_SIDES; k++) {
		struct swap_info_struct *si = b->side[k].si;

		for (i = 0; i < SW_LOOKUPS; i++) {
			swp_entry_t e = swp_entry(si->type, b->offs[i]);

			s[k].lookup_misses += !xa_is_value(xa_load(
				&swap_address_space(si, e)->i_pages,
				swap_cache_index(si, e)));
		}
	}
}

/**
 * sw_round() - One round: both sides' regions touched part by part.
 * @b: The state.
 * @round: The round's number: which side goes first in each part.
 * @s: The round's figures, by side.
 */
void sw_round(struct sw_bench *b, unsigned int round,
	      struct sw_sample s[SW_NR_SIDES])
{
	struct sw_pass pass[SW_NR_SIDES];
	unsigned int side, part, k;

	for (side = 0; side < SW_NR_SIDES; side++) {
		struct sw_cache *c = &b->side[side];

		memset(&s[side], 0, sizeof(s[side]));
		anon_region_init(&pass[side].region, c->arena,
				 (uint64_t)b->scale.region_pages <<
				 UPC_PAGE_SHIFT);
		pass[side].out0 = __atomic_load_n(&c->si->pswpout,
						  __ATOMIC_RELAXED);
		pass[side].calibrating = true;
	}
	for (part = 0; part < SW_PARTS; part++)
		for (k = 0; k < SW_NR_SIDES; k++) {
			side = k ^ ((part + round) & 1);
			sw_touch_part(b, &pass[side], side, part, &s[side]);
		}
	for (side = 0; side < SW_NR_SIDES; side++) {
		struct sw_cache *c = &b->side[side];

		s[side].swapouts = __atomic_load_n(&c->si->pswpout,
						   __ATOMIC_RELAXED) -
				   pass[side].out0;
		swap_cache_info(c->si, &s[side].info);
	}
	sw_lookups(b, round, s);
	for (side = 0; side < SW_NR_SIDES; side++) {
		struct sw_cache *c = &b->side[side];

		sw_check_region(b, &pass[side].region, side);
		anon_region_destroy(&pass[side].region);
		sw_check_empty(c, side);
	}
}

/**
 * sw_walks_per_swapout() - XArray walks reclaim made per swap-out.
 * @s: A round's figures.
 *
 * Return: The walks per swap-out; NaN without swap-outs or calibration.
 */
double sw_walks_per_swapout(const struct sw_sample *s)
{
	double touch;

	if (!s->swapouts || !s->calib_pages)
		return NAN;
	touch = (double)s->calib_walks / (double)s->calib_pages;
	return ((double)s->walks - touch * (double)s->pages) /
	       (double)s->swapouts;
}
