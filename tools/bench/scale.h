/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/scale.h - how big a run is: full, --quick or --tiny.
 *
 *	mode	entries	rounds	warm-ups
 *	full	1M	15	1	(under a minute on 2 cores)
 *	quick	256K	9	1	(a few seconds)
 *	tiny	4K	3	1	(tests: well under a second)
 *
 * Rounds are odd so that a median is one measured round.  A shared
 * 2-core machine slows some rounds by 2x or more; with 15 rounds a row's
 * median stays clean as long as fewer than 8 of them were hit.
 *
 * --size N replaces the mode's entry count and --rounds N its rounds.
 * Every other size derives from the entry count, so one knob scales the
 * whole suite: sparse arrays hold entries/16, at most SCALE_MAX_SPARSE
 * (a random 64-bit index costs about 4.5 KB of nodes, 500 times a dense
 * entry, and two sparse arrays exist at once), order-9 arrays entries/16
 * entries (covering 32 times the dense index range), and the split and
 * conflict rows rebuild entries/128 and entries/512 order-9 ranges a
 * round.  At the largest --size, 16M, the run needs about 3 GB.
 */
#ifndef UPCACHE_TOOLS_BENCH_SCALE_H
#define UPCACHE_TOOLS_BENCH_SCALE_H

#include <stddef.h>

#include "options.h"

#define SCALE_MAX_SPARSE	(256UL << 10)

/**
 * struct bench_scale - the sizes one run uses.
 * @mode: "full", "quick" or "tiny".
 * @nr_entries: Entries of the dense array (store/load/erase/iterate).
 * @nr_sparse: Entries of the sparse arrays (random 64-bit indices).
 * @nr_order9: Order-9 entries of the order-9 store and load rows.
 * @nr_splits: Order-9 entries split per round (each split row).
 * @nr_conflicts: Order-9 ranges scanned and replaced per round.
 * @rounds: Timed rounds per figure.
 * @warmups: Untimed rounds before them.
 */
struct bench_scale {
	const char *mode;
	size_t nr_entries;
	size_t nr_sparse;
	size_t nr_order9;
	size_t nr_splits;
	size_t nr_conflicts;
	unsigned int rounds;
	unsigned int warmups;
};

/**
 * bench_scale_from_options() - Pick the scale the options ask for.
 * @opts: The parsed options.
 * @scale: The result.
 *
 * --tiny wins over --quick; --size and --rounds override the mode.
 */
void bench_scale_from_options(const struct bench_options *opts,
			      struct bench_scale *scale);

/**
 * struct bench_mode_pages - a suite's main size (and rounds) in one mode.
 * @name: The mode, as bench_scale_from_options() names it.
 * @pages: Pages of the suite's file or region.
 * @rounds: Timed rounds; 0 keeps the common default.
 */
struct bench_mode_pages {
	const char *name;
	unsigned long pages;
	unsigned int rounds;
};

/**
 * struct bench_pages_spec - how a suite sizes its main file or region.
 * @suite: The suite's name, for messages.
 * @what: What the pages make ("file", "region"), for messages.
 * @modes: Its size in each mode.
 * @nr_modes: Number of @modes.
 * @max_pages: The most --size may ask for.
 * @align: --size is rounded up to a multiple of this many pages (a
 *	power of two).
 */
struct bench_pages_spec {
	const char *suite;
	const char *what;
	const struct bench_mode_pages *modes;
	size_t nr_modes;
	unsigned long max_pages;
	unsigned long align;
};

/**
 * bench_scale_pages() - The common scale, and a suite's main size.
 * @opts: The parsed options.
 * @spec: The suite's sizes.
 * @scale: The common scale (bench_scale_from_options()); its rounds
 *	become the mode's own where @spec gives them and --rounds does not
 *	say otherwise.
 *
 * Dies (exit status 2) for a mode @spec lacks or a --size over its
 * @max_pages.
 *
 * Return: The mode's pages, or --size's rounded up to @spec->align.
 */
unsigned long bench_scale_pages(const struct bench_options *opts,
				const struct bench_pages_spec *spec,
				struct bench_scale *scale);

#endif /* UPCACHE_TOOLS_BENCH_SCALE_H */
