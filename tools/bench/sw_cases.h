/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/sw_cases.h - the measured workload of the swap suite.
 *
 * `upcache-bench swap` is seed 003's experiment, scaled: memhog in a
 * memory cgroup with swap.  A cache (an arena with reclaim) is held to a
 * memory limit L; an anonymous region of 4 x L is written once, a whole
 * page at a time, from its first page to its last, as memhog touches its
 * memory.  Past L reclaim swaps the oldest pages out, each through the
 * swap cache: a slot is handed out, the folio added to the swap cache
 * (filemap_lock_store()), written, and taken out leaving a shadow.  So
 * by the end about 3 x L of slots hold data and the swap cache holds a
 * shadow for each of them.
 *
 * The two sides differ only in how the swap cache is indexed
 * (swap_device_create()'s space_shift):
 *
 *	after	SWAP_ADDRESS_SPACE_SHIFT (14): one tree per 64 MiB of
 *		swap, indexed inside its chunk: at most 3 levels
 *	before	SWAP_SPACE_FULL_INDEX: the same 64 MiB trees, each keyed
 *		by the slot's full offset, the layout before seed 003: 4
 *		levels for slots past 64^3 (1 GiB of swap), 5 past 64 GiB
 *		(the seed's 128 GiB memhog), with a node per level above
 *		every chunk's entries
 *
 * Each side has its own cache and its own swap device for the whole run
 * (two arenas and two devices side by side), so neither pays for the
 * other's state and a device's memory (or file) is reused from round to
 * round, as the seed's ramdisk was.  A round creates both regions and
 * touches them part by part, alternating: a sixteenth of one side's
 * region, then the same sixteenth of the other's, the side that goes
 * first changing every part, so a burst of other work on a shared
 * machine lands on both sides of a round.  Then, per side, it measures
 * the swap cache (swap_cache_info()), reads a sample of pages back to
 * check their data (untimed), and destroys the region, which frees
 * every slot and with it every shadow: each round starts from an empty
 * swap cache.
 *
 * Sizes (struct sw_scale), from the mode; --size N sets the region's
 * pages (rounded up to 8 MiB, at most SW_MAX_REGION_PAGES), the limit is
 * a quarter of it and the swap device as large as the region:
 *
 *	mode	limit	region	rounds	full-offset trees
 *	full	512M	2G	11	4 levels (1.5 GiB of swap in use)
 *	quick	384M	1.5G	5	4 levels (1.1 GiB of swap in use)
 *	tiny	4M	16M	3	2 levels, as every chunk's
 *
 * Every page written carries its index (first and last word), so a page
 * read back from swap is checked to be its own.
 *
 * After the touch, while the swap cache holds a shadow for every slot in
 * use, each side also times SW_LOOKUPS swap cache lookups
 * (swap_cache_get_folio()) of the same random slots in use, in parts
 * alternating between the sides like the touch: one walk each, from the
 * root of a 3-level tree or of a 4-level one.  That isolates what seed
 * 003 changes, the depth of every swap cache walk, from the rest of a
 * swap-out (allocation, the page copy, the region's update), which
 * dominates memhog's time.
 */
#ifndef UPCACHE_TOOLS_BENCH_SW_CASES_H
#define UPCACHE_TOOLS_BENCH_SW_CASES_H

#include <stdbool.h>
#include <stdint.h>

#include <upcache/swap.h>

#include "options.h"

/* The largest region --size may ask for: 4 GiB (two swap devices of it). */
#define SW_MAX_REGION_PAGES	(1UL << 20)
/* The parts a round's touch is cut into, alternating between the sides. */
#define SW_PARTS		16
/* Swap cache lookups timed per side and round. */
#define SW_LOOKUPS		(1UL << 17)

/**
 * enum sw_side - the two swap cache layouts.
 * @SW_AFTER: one tree per 2^SWAP_ADDRESS_SPACE_SHIFT slots.
 * @SW_BEFORE: the same trees keyed by the full offset
 *	(SWAP_SPACE_FULL_INDEX).
 * @SW_NR_SIDES: how many.
 */
enum sw_side {
	SW_AFTER,
	SW_BEFORE,
	SW_NR_SIDES
};

/**
 * struct sw_scale - the sizes of one run.
 * @mode: "full", "quick" or "tiny".
 * @limit_pages: The caches' memory limit.
 * @region_pages: Pages of the anonymous region: 4 x @limit_pages.
 * @swap_bytes: Bytes of each swap device: the region's size.
 * @swap_file: Path of the swap file of the "after" side (the "before"
 *	side's is @swap_file with ".whole" appended), or NULL for devices
 *	in memory.
 * @rounds: Timed rounds.
 * @warmups: Untimed rounds before them.
 */
struct sw_scale {
	const char *mode;
	unsigned long limit_pages;
	unsigned long region_pages;
	unsigned long long swap_bytes;
	const char *swap_file;
	unsigned int rounds;
	unsigned int warmups;
};

/**
 * struct sw_sample - what one round of one side yields.
 * @ns: Nanoseconds of the touch (every page written once), its parts'
 *	times summed.
 * @pages: Pages written.
 * @calib_pages: Pages of the touch's first parts, written before the
 *	cache reached half its limit (nothing swapped out yet).
 * @calib_walks: XArray walks of that part: what a touch costs alone.
 * @walks: XArray walks of the whole touch (the writer's thread,
 *	reclaim included: it runs in the writer as direct reclaim).
 * @node_allocs: Tree nodes allocated during the touch.
 * @locks: Lock acquisitions during the touch.
 * @swapouts: Pages written to swap during the touch.
 * @lookup_ns: Nanoseconds of the SW_LOOKUPS swap cache lookups.
 * @lookup_walks: XArray walks they made.
 * @lookup_misses: Slots looked up that held no shadow (0 unless the
 *	shadow shrinker took some).
 * @info: The swap cache's shape right after the touch.
 */
struct sw_sample {
	uint64_t ns;
	uint64_t pages;
	uint64_t calib_pages;
	uint64_t calib_walks;
	uint64_t walks;
	uint64_t node_allocs;
	uint64_t locks;
	uint64_t swapouts;
	uint64_t lookup_ns;
	uint64_t lookup_walks;
	uint64_t lookup_misses;
	struct swap_cache_info info;
};

/**
 * struct sw_cache - one side: an arena that reclaims and its swap device.
 * @arena: The arena; its limit is the scale's limit_pages.
 * @si: Its swap device.
 * @fd: The device's swap file, or -1.
 * @path: The swap file's path (malloc()ed), or NULL.
 * @created: This run created the swap file (it removes it at the end).
 */
struct sw_cache {
	struct upc_arena *arena;
	struct swap_info_struct *si;
	int fd;
	char *path;
	bool created;
};

/**
 * struct sw_bench - the state every round shares.
 * @scale: The sizes.
 * @side: The two caches, by enum sw_side.
 * @page: One page of data, stamped before each write.
 * @offs: The SW_LOOKUPS slots a round looks up.
 */
struct sw_bench {
	struct sw_scale scale;
	struct sw_cache side[SW_NR_SIDES];
	uint64_t *page;
	unsigned long *offs;
};

/**
 * sw_scale_from_options() - Pick the sizes the options ask for.
 * @opts: The parsed options (--tiny, --quick, --size, --rounds,
 *	--swap-file).
 * @scale: The result.
 *
 * Dies (exit status 2) if --size asks for more than SW_MAX_REGION_PAGES.
 */
void sw_scale_from_options(const struct bench_options *opts,
			   struct sw_scale *scale);

/**
 * sw_space_shift() - The swap cache layout of a side.
 * @side: The side.
 *
 * Return: SWAP_ADDRESS_SPACE_SHIFT or SWAP_SPACE_FULL_INDEX.
 */
unsigned int sw_space_shift(enum sw_side side);

/**
 * sw_init() - Create both caches and their swap devices.
 * @b: The state to fill.
 * @scale: The sizes; copied.
 *
 * Dies if memory, a swap file or a device cannot be had.
 */
void sw_init(struct sw_bench *b, const struct sw_scale *scale);

/**
 * sw_free() - Destroy the devices and caches (checking nothing leaked)
 * and remove swap files this run created.
 * @b: The state.
 */
void sw_free(struct sw_bench *b);

/**
 * sw_round() - One round: create both sides' regions, touch them part by
 * part, alternating (timed), then per side measure the swap cache, check
 * a sample of pages and destroy the region.
 * @b: The state.
 * @round: The round's number: in part k the side (k + @round) % 2 goes
 *	first.
 * @s: The round's figures, by side.
 *
 * Dies on a failed write, a page read back wrong, or slots, pages or
 * charge left behind by a region.
 */
void sw_round(struct sw_bench *b, unsigned int round,
	      struct sw_sample s[SW_NR_SIDES]);

/**
 * sw_pages_checked() - Pages a round reads back to check them: a spread
 * over the region, and its last page.
 * @scale: The sizes.
 *
 * Return: The count.
 */
unsigned long sw_pages_checked(const struct sw_scale *scale);

/**
 * sw_page_fill() - Fill a page buffer with what memhog writes.
 * @page: The buffer, UPC_PAGE_SIZE bytes.
 */
void sw_page_fill(uint64_t *page);

/**
 * sw_page_stamp() - Make a filled page buffer page @index's data: its
 * index in the first word, its complement in the last.
 * @page: A buffer from sw_page_fill().
 * @index: The page's index in its region.
 */
void sw_page_stamp(uint64_t *page, unsigned long index);

/**
 * sw_page_is_own() - Does a page read back hold page @index's data?
 * @page: What was read.
 * @index: The page's index in its region.
 *
 * Return: true if its stamps are @index's and the word after the first
 * is memhog's fill.
 */
bool sw_page_is_own(const uint64_t *page, unsigned long index);

/**
 * sw_check_step() - The distance between two pages a round reads back
 * (from its first page on; the last page is read too).
 * @scale: The sizes.
 *
 * Return: The step, at least 1.
 */
unsigned long sw_check_step(const struct sw_scale *scale);

/**
 * sw_walks_per_swapout() - XArray walks reclaim made per page it
 * swapped out.
 * @s: A round's figures (or rounds summed).
 *
 * The touch's walks minus what the touch itself costs per page
 * (measured on the part written before anything was swapped out), per
 * swap-out: the swap cache's add and delete and the region's store of
 * the swap entry.
 *
 * Return: The walks per swap-out; NaN without swap-outs or calibration.
 */
double sw_walks_per_swapout(const struct sw_sample *s);

#endif /* UPCACHE_TOOLS_BENCH_SW_CASES_H */
