/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/rc_cases.h - the measured workloads of the reclaim suite.
 *
 * `upcache-bench reclaim` is seed 000's experiment, scaled: a file twice
 * the memory limit behind a cache, its backing store in memory (the
 * seed's brd ramdisk), read at random in 4 KiB pieces by every core.
 * Every read goes through the page cache; a miss allocates a folio (which
 * reclaims when the cache is full), adds it over the shadow its eviction
 * left and fills it from the backing store.  The "new" side is the
 * library's read path, mapping_read_folio_gfp(), whose add is the
 * one-walk filemap_add_folio(); the "baseline" side is the same read
 * path written in the benchmark (rc_baseline.h) with the three-walk add
 * from before seed 000 (fm_baseline.h).  Nothing else differs.
 *
 * Two caches, each an arena with reclaim over one mapping of the file:
 *
 *	randread	steady state: warmed by reading the whole file once,
 *			then each round reads random pages; about half
 *			miss, and each miss evicts a page
 *	thp		a round is thp_cycles cycles; each (untimed)
 *			truncates the mapping, fills it with order-9
 *			folios, 2 MiB at a time (reclaim evicting the
 *			oldest as it goes), and evicts them all, leaving
 *			order-9 shadows; then (timed) reads one random
 *			page of every 2 MiB range but the first, in random
 *			order, so every add splits an order-9 shadow
 *
 * Sizes (struct rc_scale), from the mode; --size N sets the file's pages
 * (rounded up to 4 MiB, at most RC_MAX_FILE_PAGES), the limit is half:
 *
 *	mode	file	limit	randread reads		thp cycles	rounds
 *	full	512M	256M	4 x file pages/thread	16 (4064 reads)	15
 *	quick	128M	64M	4 x file pages/thread	16 (992 reads)	9
 *	tiny	8M	4M	4 x file pages/thread	2 (4 reads)	3
 *
 * Each read copies its 4 KiB out of the cache, as a read(2) or fio's
 * mmap engine does, and checks the two words the backing store stamped
 * into that page (its index, and its complement at the end): a wrong
 * page ends the run (bench_die()).
 */
#ifndef UPCACHE_TOOLS_BENCH_RC_CASES_H
#define UPCACHE_TOOLS_BENCH_RC_CASES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <upcache/filemap.h>
#include <upcache/folio.h>

#include "options.h"

/* The largest file --size may ask for: 4 GiB. */
#define RC_MAX_FILE_PAGES	(1UL << 20)
/* Reader threads at most (the suite uses one per online CPU). */
#define RC_MAX_THREADS		64

/**
 * enum rc_workload - the two experiments.
 * @RC_RANDREAD: random 4 KiB reads in steady state.
 * @RC_THP_SPLIT: random 4 KiB reads over order-9 shadows.
 * @RC_NR_WORKLOADS: how many.
 */
enum rc_workload {
	RC_RANDREAD,
	RC_THP_SPLIT,
	RC_NR_WORKLOADS
};

/**
 * struct rc_scale - the sizes of one run.
 * @mode: "full", "quick" or "tiny".
 * @file_pages: Pages of the file: a multiple of 1024.
 * @limit_pages: The caches' memory limit: half the file.
 * @reads: Random reads per thread per round, randread.
 * @thp_cycles: Fill, evict and read cycles per round, thp.
 * @threads: Reader threads (online CPUs, at most RC_MAX_THREADS).
 * @rounds: Timed rounds.
 * @warmups: Untimed rounds before them.
 */
struct rc_scale {
	const char *mode;
	unsigned long file_pages;
	unsigned long limit_pages;
	unsigned long reads;
	unsigned int thp_cycles;
	unsigned int threads;
	unsigned int rounds;
	unsigned int warmups;
};

/**
 * struct rc_cache - one cache: an arena that reclaims and the file in it.
 * @arena: The arena; its limit is the scale's limit_pages.
 * @mapping: The file's page cache; a_ops read from the backing store.
 */
struct rc_cache {
	struct upc_arena *arena;
	struct address_space mapping;
};

/**
 * struct rc_bench - the state every round shares.
 * @scale: The sizes.
 * @backing: The backing store: file_pages pages, each stamped.
 * @cache: One cache per workload.
 */
struct rc_bench {
	struct rc_scale scale;
	unsigned char *backing;
	struct rc_cache cache[RC_NR_WORKLOADS];
};

/**
 * struct rc_sample - what one timed round yields.
 * @ns: CPU time the readers spent reading, in nanoseconds, summed over
 *	threads: IOPS = @reads * threads / @ns, what the threads would
 *	do with a core each and nothing else running.
 * @wall_ns: Nanoseconds from the first reader's start to the last one's
 *	end.
 * @reads: Reads, all threads.
 * @adds: Folios added (misses): pages that entered the mapping.
 * @walks: XArray walks, all threads.
 * @evictions: Pages evicted (pgsteal).
 * @nodes_reclaimed: Shadow-only nodes freed.
 * @refaults: Adds over a shadow of this cache (workingset_refault).
 * @activations: Refaults activated (workingset_activate).
 * @promotions: Pages moved to the active list for any reason
 *	(pgactivate).
 * @fill_ranges: The kernel's thp side (rc_kernel.h): 2 MiB ranges still
 *	mapped after its fills, and
 * @fill_huge_ranges: of those, the ones one order-9 folio held.
 */
struct rc_sample {
	uint64_t ns;
	uint64_t wall_ns;
	uint64_t reads;
	uint64_t adds;
	uint64_t walks;
	uint64_t evictions;
	uint64_t nodes_reclaimed;
	uint64_t refaults;
	uint64_t activations;
	uint64_t promotions;
	uint64_t fill_ranges;
	uint64_t fill_huge_ranges;
};

/* A page's words: its first is rc_stamp(index), its last ~rc_stamp(index). */
#define RC_WORDS	(UPC_PAGE_SIZE / sizeof(uint64_t))
/* The order of the thp workload's folios: 2 MiB. */
#define RC_THP_ORDER	UPC_MAX_ORDER

/**
 * rc_workload_name() - A workload's short name, for messages and the
 * names of what is made for it: "randread" or "thp".
 * @w: The workload.
 */
const char *rc_workload_name(enum rc_workload w);

/**
 * rc_stamp() - The word the backing store stamps into page @index: the
 * first word of the page; the last is its complement.  Every reader
 * checks both.
 * @index: The page.
 */
uint64_t rc_stamp(pgoff_t index);

/**
 * rc_thp_indices() - The pages a thp cycle reads: one in each 2 MiB
 * range of the file but the first, at a random offset, the ranges in
 * random order, so every read adds inside an untouched order-9 shadow
 * (the first range is left for the readers' untimed first read).
 * @scale: The sizes.
 * @seed: Seeds the order and the offsets.
 * @indices: Room for file_pages >> RC_THP_ORDER indices.
 *
 * Return: how many, a multiple of the reader count.
 */
unsigned long rc_thp_indices(const struct rc_scale *scale, uint64_t seed,
			     unsigned long *indices);

/**
 * rc_scale_from_options() - Pick the sizes the options ask for.
 * @opts: The parsed options.
 * @scale: The result.
 *
 * Dies (exit status 2) if --size asks for more than RC_MAX_FILE_PAGES.
 */
void rc_scale_from_options(const struct bench_options *opts,
			   struct rc_scale *scale);

/**
 * rc_init() - Create the backing store and both caches; warm randread.
 * @b: The state to fill.
 * @scale: The sizes; copied.
 *
 * Dies if memory cannot be had.
 */
void rc_init(struct rc_bench *b, const struct rc_scale *scale);

/**
 * rc_free() - Empty both caches, check nothing leaked, free everything.
 * @b: The state.
 */
void rc_free(struct rc_bench *b);

/*
 * A round of randread is this many parts, each reads/RC_RANDREAD_PARTS
 * reads per thread: the suite alternates the two paths part by part, so
 * a burst of other work on a shared machine hits both sides of a round.
 */
#define RC_RANDREAD_PARTS	16

/**
 * rc_parts() - How many parts a round of a workload has.
 * @b: The state.
 * @w: The workload.
 *
 * Return: RC_RANDREAD_PARTS for randread, thp_cycles for thp (a part is
 * one fill, evict and read cycle).
 */
unsigned int rc_parts(const struct rc_bench *b, enum rc_workload w);

/**
 * rc_round_part() - Run one part of a round of a workload on one path.
 * @b: The state.
 * @w: The workload.
 * @baseline: Read through the baseline path instead of the library's.
 * @round: The round's number, and
 * @part: the part's: together they seed the readers' index sequences:
 *	both paths of a thp part read the same pages; randread's paths
 *	share one cache, so each reads its own random pages.
 * @s: The part's figures.
 *
 * Untimed preparation first (thp: truncate, fill, evict), then the
 * readers run in threads and time themselves.  Dies on a wrong page.
 */
void rc_round_part(struct rc_bench *b, enum rc_workload w, bool baseline,
		   unsigned int round, unsigned int part, struct rc_sample *s);

/**
 * rc_sample_add() - Add the counts of one sample to another.
 * @s: The totals.
 * @more: The sample to add.
 */
void rc_sample_add(struct rc_sample *s, const struct rc_sample *more);

/**
 * rc_walks_per_add() - XArray walks per add, from a round's counts.
 * @s: The round (or rounds summed).
 *
 * A read walks once to look its index up; an eviction walks once to
 * leave its shadow and a freed shadow-only node once; what is left is
 * the adds'.
 *
 * Return: Walks per add; NaN without adds.
 */
double rc_walks_per_add(const struct rc_sample *s);

#endif /* UPCACHE_TOOLS_BENCH_RC_CASES_H */
