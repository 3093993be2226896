// SPDX-License-Identifier: MIT
/*
 * tools/bench/rc_cases.c - the reclaim suite's caches, backing store and
 * rounds (rc_cases.h).
 *
 * Owns the mode table, the in-memory backing store and the a_ops that
 * read from it (the seed's brd ramdisk), the two caches, the thp round's
 * fill and evict, and the reader threads, which time themselves between
 * a start barrier and their last read.
 *
 * Conventions: @b is the shared state, @c one cache, @w a workload.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <upcache/check.h>
#include <upcache/rcu.h>
#include <upcache/stats.h>
#include <upcache/vmscan.h>

#include "clock.h"
#include "rc_baseline.h"
#include "rc_cases.h"
#include "rng.h"
#include "scale.h"
#include "util.h"

#define SEED_RC_READ	(BENCH_RNG_SEED + 32)
#define SEED_RC_WARM	(BENCH_RNG_SEED + 33)

/* Files are whole 4 MiB: the limit, half of it, is whole 2 MiB. */
#define RC_FILE_ALIGN	1024UL
/* Fill, evict and read cycles of a thp round (tiny mode: 2). */
#define RC_THP_CYCLES	16

/* The word the backing store stamps into page @index. */
#define RC_STAMP	0x7263626b73746d70ULL	/* "rcbkstmp" */

uint64_t rc_stamp(pgoff_t index)
{
	return RC_STAMP ^ index;
}

static const char *const rc_names[RC_NR_WORKLOADS] = { "randread", "thp" };

const char *rc_workload_name(enum rc_workload w)
{
	return rc_names[w];
}

static const struct bench_mode_pages rc_modes[] = {
	{ "full", 1UL << 17, 0 },	/* 512 MiB */
	{ "quick", 1UL << 15, 0 },	/* 128 MiB */
	{ "tiny", 1UL << 11, 0 },	/* 8 MiB */
};

static const struct bench_pages_spec rc_pages = {
	"reclaim", "file", rc_modes, sizeof(rc_modes) / sizeof(rc_modes[0]),
	RC_MAX_FILE_PAGES, RC_FILE_ALIGN,
};

/**
 * rc_scale_from_options() - Pick the sizes the options ask for.
 * @opts: The parsed options.
 * @scale: The result.
 */
void rc_scale_from_options(const struct bench_options *opts,
			   struct rc_scale *scale)
{
	struct bench_scale common;
	unsigned long pages = bench_scale_pages(opts, &rc_pages, &common);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	scale->mode = common.mode;
	scale->file_pages = pages;
	scale->limit_pages = pages / 2;
	scale->reads = 4 * pages;
	scale->thp_cycles = common.mode[0] == 't' ? 2 : RC_THP_CYCLES;
	scale->threads = cpus < 1 ? 1 : cpus > RC_MAX_THREADS ?
			 RC_MAX_THREADS : (unsigned int)cpus;
	scale->rounds = common.rounds;
	scale->warmups = common.warmups;
}

/* ---- the backing store ------------------------------------------------ */

static unsigned char *rc_backing_page(struct address_space *mapping,
				      pgoff_t index)
{
	struct rc_bench *b = mapping->host;

	return b->backing + (index << UPC_PAGE_SHIFT);
}

/* read_folio: copy from the backing store, like a ramdisk's read. */
static int rc_read_folio(struct address_space *mapping, struct folio *folio)
{
	memcpy(folio_address(folio), rc_backing_page(mapping, folio->index),
	       folio_size(folio));
	folio_set_uptodate(folio);
	folio_unlock(folio);
	return 0;
}

/* writeback_folio: copy back (the suite's files stay clean). */
static int rc_writeback_folio(struct address_space *mapping,
			      struct folio *folio)
{
	memcpy(rc_backing_page(mapping, folio->index), folio_address(folio),
	       folio_size(folio));
	return 0;
}

static const struct address_space_operations rc_aops = {
	.read_folio = rc_read_folio,
	.writeback_folio = rc_writeback_folio,
};

/* Map and stamp the backing store: first and last word of each page. */
static void rc_backing_init(struct rc_bench *b)
{
	size_t bytes = b->scale.file_pages << UPC_PAGE_SHIFT;
	unsigned long i;
	void *mem;

	mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (mem == MAP_FAILED)
		bench_die("reclaim: cannot map a %zu MiB backing store",
			  bytes >> 20);
	b->backing = mem;
	for (i = 0; i < b->scale.file_pages; i++) {
		uint64_t *word = (uint64_t *)(b->backing +
					      (i << UPC_PAGE_SHIFT));

		word[0] = rc_stamp(i);
		word[RC_WORDS - 1] = ~rc_stamp(i);
	}
}

/* ---- caches ----------------------------------------------------------- */

static void rc_cache_init(struct rc_bench *b, struct rc_cache *c,
			  unsigned long as_flags)
{
	size_t bytes = (b->scale.limit_pages << UPC_PAGE_SHIFT) +
		       BENCH_ARENA_SLACK;
	int err;

	err = upc_arena_create(bytes, &c->arena);
	if (!err)
		err = upc_reclaim_init(c->arena);
	if (!err)
		err = upc_reclaim_set_limit(c->arena, b->scale.limit_pages);
	if (err)
		bench_die("reclaim: cannot create a %zu MiB cache: %s",
			  bytes >> 20, strerror(-err));
	address_space_init(&c->mapping, c->arena, &rc_aops, as_flags);
	c->mapping.host = b;
}

/* Truncate a cache's file and check that nothing is left charged. */
static void rc_cache_empty(struct rc_cache *c, const char *what)
{
	struct address_space *mapping = &c->mapping;
	unsigned long charged;

	truncate_inode_pages(mapping, 0);
	lru_add_drain_all(c->arena);
	if (mapping->nrpages || !xa_empty(&mapping->i_pages))
		bench_die("reclaim %s: truncation left %lu pages%s", what,
			  mapping->nrpages, xa_empty(&mapping->i_pages) ?
			  "" : " and a non-empty tree");
	charged = upc_arena_charged(c->arena);
	if (charged)
		bench_die("reclaim %s: %lu pages still charged (a leaked "
			  "folio reference)", what, charged);
}

static void rc_cache_free(struct rc_cache *c, const char *what)
{
	if (upc_check_mapping(&c->mapping))
		bench_die("reclaim %s: the page cache is inconsistent", what);
	rc_cache_empty(c, what);
	xa_destroy(&c->mapping.i_pages);
	upc_reclaim_destroy(c->arena);
	upc_arena_destroy(c->arena);
}

/* ---- reading ---------------------------------------------------------- */

/*
 * rc_read() - One 4 KiB read of page @index: through the cache, copied
 * out to @buf, its stamps checked.  Dies on an error or a wrong page.
 */
static void rc_read(struct address_space *mapping, pgoff_t index,
		    bool baseline, uint64_t *buf)
{
	struct folio *folio;

	folio = baseline ? rcb_read_folio(mapping, index, GFP_KERNEL) :
			   mapping_read_folio_gfp(mapping, index, GFP_KERNEL);
	if (IS_ERR(folio))
		bench_die("reclaim: reading page %lu failed: %s", index,
			  strerror((int)-PTR_ERR(folio)));
	memcpy(buf, (char *)folio_address(folio) +
	       ((index - folio->index) << UPC_PAGE_SHIFT), UPC_PAGE_SIZE);
	folio_put(folio);
	if (buf[0] != rc_stamp(index) || buf[RC_WORDS - 1] != ~rc_stamp(index))
		bench_die("reclaim: page %lu read back %#llx..%#llx, not its "
			  "own data (%s path)", index,
			  (unsigned long long)buf[0],
			  (unsigned long long)buf[RC_WORDS - 1],
			  baseline ? "baseline" : "library");
}

/**
 * struct rc_reader - one reader thread of a round.
 * @thread: The thread.
 * @mapping: The file.
 * @baseline: Which read path.
 * @seed: Seed of its index sequence.
 * @indices: The pages to read, in order; NULL for random pages.
 * @nr: Reads to do.
 * @pages: Pages of the file.
 * @go: The start barrier.
 * @start: When it started (after the barrier).
 * @end: When it finished.
 * @cpu: CPU time it spent reading.
 * @walks: XArray walks it made while reading.
 */
struct rc_reader {
	pthread_t thread;
	struct address_space *mapping;
	bool baseline;
	uint64_t seed;
	const unsigned long *indices;
	unsigned long nr;
	unsigned long pages;
	pthread_barrier_t *go;
	uint64_t start;
	uint64_t end;
	uint64_t cpu;
	uint64_t walks;
};

static void *rc_reader_main(void *arg)
{
	struct rc_reader *r = arg;
	struct bench_rng rng = { .state = r->seed };
	struct upc_thread_stats before, after;
	uint64_t buf[RC_WORDS];
	unsigned long i;

	/*
	 * Registers with RCU and faults the stack in before the clock: a
	 * random read, or page 0 when the pages are listed (the list leaves
	 * out the first 2 MiB range for this).
	 */
	rc_read(r->mapping, r->indices ? 0 : bench_rng_below(&rng, r->pages),
		r->baseline, buf);
	/* Once to say "ready", once more after the main thread's snapshot. */
	pthread_barrier_wait(r->go);
	pthread_barrier_wait(r->go);
	upc_stats_thread(&before);
	r->start = bench_now_ns();
	r->cpu = bench_thread_cpu_ns();
	for (i = 0; i < r->nr; i++)
		rc_read(r->mapping, r->indices ? r->indices[i] :
			bench_rng_below(&rng, r->pages), r->baseline, buf);
	r->cpu = bench_thread_cpu_ns() - r->cpu;
	r->end = bench_now_ns();
	upc_stats_thread(&after);
	r->walks = after.xa_walks - before.xa_walks;
	return NULL;
}

/* The reclaim counters a round reports, as a sample's fields. */
static void rc_stats_snapshot(struct rc_cache *c, struct rc_sample *s)
{
	struct upc_reclaim_stats st;

	lru_add_drain_all(c->arena);
	if (upc_reclaim_stats_read(c->arena, &st))
		bench_die("reclaim: the cache has no reclaim statistics");
	s->adds = c->mapping.nrpages + st.pgsteal;
	s->evictions = st.pgsteal;
	s->nodes_reclaimed = st.workingset_nodereclaim;
	s->refaults = st.workingset_refault;
	s->activations = st.workingset_activate;
	s->promotions = st.pgactivate;
}

/* @s -= @before for the snapshot fields. */
static void rc_stats_since(struct rc_sample *s, const struct rc_sample *before)
{
	s->adds -= before->adds;
	s->evictions -= before->evictions;
	s->nodes_reclaimed -= before->nodes_reclaimed;
	s->refaults -= before->refaults;
	s->activations -= before->activations;
	s->promotions -= before->promotions;
}

/*
 * rc_readers_run() - @b->scale.threads readers, @nr reads each, over
 * @c's file: random pages, or reader i the @nr pages at @indices + i * @nr
 * if @indices is not NULL.  Fills @s.
 */
static void rc_readers_run(struct rc_bench *b, struct rc_cache *c,
			   bool baseline, uint64_t seed,
			   const unsigned long *indices, unsigned long nr,
			   struct rc_sample *s)
{
	unsigned int n = b->scale.threads, i;
	struct rc_reader readers[RC_MAX_THREADS];
	pthread_barrier_t go;
	struct rc_sample before;
	uint64_t first = UINT64_MAX, last = 0;

	memset(s, 0, sizeof(*s));
	memset(readers, 0, sizeof(readers));
	if (pthread_barrier_init(&go, NULL, n + 1))
		bench_die("reclaim: cannot create a barrier");
	for (i = 0; i < n; i++) {
		struct rc_reader *r = &readers[i];

		r->mapping = &c->mapping;
		r->baseline = baseline;
		r->seed = seed + i * 0x1000193ULL;
		r->indices = indices ? indices + i * nr : NULL;
		r->nr = nr;
		r->pages = b->scale.file_pages;
		r->go = &go;
		if (pthread_create(&r->thread, NULL, rc_reader_main, r))
			bench_die("reclaim: cannot start a reader thread");
	}
	/* Every reader has made its first (untimed) read by now. */
	pthread_barrier_wait(&go);
	rc_stats_snapshot(c, &before);
	pthread_barrier_wait(&go);
	for (i = 0; i < n; i++) {
		struct rc_reader *r = &readers[i];

		pthread_join(r->thread, NULL);
		s->ns += r->cpu;
		s->walks += r->walks;
		first = r->start < first ? r->start : first;
		last = r->end > last ? r->end : last;
	}
	pthread_barrier_destroy(&go);
	rc_stats_snapshot(c, s);
	rc_stats_since(s, &before);
	s->wall_ns = last - first;
	s->reads = (uint64_t)nr * n;
}

/* ---- the thp round's preparation --------------------------------------- */

/*
 * rc_thp_fill() - Fill @c's file with order-9 folios read from the
 * backing store; reclaim evicts the oldest when the limit is reached.
 */
static void rc_thp_fill(struct rc_bench *b, struct rc_cache *c)
{
	struct address_space *mapping = &c->mapping;
	pgoff_t index;

	for (index = 0; index < b->scale.file_pages;
	     index += 1UL << RC_THP_ORDER) {
		struct folio *folio = filemap_alloc_folio(mapping, GFP_KERNEL,
							  RC_THP_ORDER);
		int err;

		if (!folio)
			bench_die("reclaim thp: no order-%u folio for index "
				  "%lu, even after reclaim", RC_THP_ORDER,
				  index);
		folio_trylock(folio);
		err = filemap_add_folio(mapping, folio, index, GFP_KERNEL);
		if (!err)
			err = filemap_read_folio(mapping, folio);
		else
			folio_unlock(folio);
		folio_put(folio);
		if (err)
			bench_die("reclaim thp: filling index %lu: %s", index,
				  strerror(-err));
	}
}

/* rc_thp_evict() - Evict every folio of @c's file, leaving shadows. */
static void rc_thp_evict(struct rc_cache *c)
{
	unsigned int tries;

	for (tries = 0; c->mapping.nrpages && tries < 64; tries++)
		upc_reclaim_pages(c->arena, c->mapping.nrpages);
	if (c->mapping.nrpages)
		bench_die("reclaim thp: %lu pages would not be evicted",
			  c->mapping.nrpages);
}

unsigned long rc_thp_indices(const struct rc_scale *scale, uint64_t seed,
			     unsigned long *indices)
{
	unsigned long ranges = scale->file_pages >> RC_THP_ORDER;
	unsigned long *order = bench_permutation(seed, ranges - 1);
	struct bench_rng rng = { .state = seed };
	unsigned long i, nr;

	nr = (ranges - 1) / scale->threads * scale->threads;
	for (i = 0; i < nr; i++)
		indices[i] = ((order[i] + 1) << RC_THP_ORDER) +
			     bench_rng_below(&rng, 1UL << RC_THP_ORDER);
	free(order);
	return nr;
}

/**
 * rc_sample_add() - Add the counts of one sample to another.
 * @s: The totals.
 * @more: The sample to add.
 */
void rc_sample_add(struct rc_sample *s, const struct rc_sample *more)
{
	s->ns += more->ns;
	s->wall_ns += more->wall_ns;
	s->reads += more->reads;
	s->adds += more->adds;
	s->walks += more->walks;
	s->evictions += more->evictions;
	s->nodes_reclaimed += more->nodes_reclaimed;
	s->refaults += more->refaults;
	s->activations += more->activations;
	s->promotions += more->promotions;
	s->fill_ranges += more->fill_ranges;
	s->fill_huge_ranges += more->fill_huge_ranges;
}

/*
 * rc_thp_cycle() - Empty the cache, fill it with order-9 folios, evict
 * them, then (timed) read one page in each 2 MiB range, so that every
 * add splits an order-9 shadow.
 */
static void rc_thp_cycle(struct rc_bench *b, struct rc_cache *c,
			 bool baseline, uint64_t seed, struct rc_sample *s)
{
	unsigned long *indices = bench_xcalloc(b->scale.file_pages >>
					       RC_THP_ORDER, sizeof(*indices));
	unsigned long nr = rc_thp_indices(&b->scale, seed, indices);

	rc_cache_empty(c, rc_names[RC_THP_SPLIT]);
	rc_thp_fill(b, c);
	rc_thp_evict(c);
	rc_readers_run(b, c, baseline, seed, indices, nr / b->scale.threads, s);
	free(indices);
}

/* ---- rounds ------------------------------------------------------------ */

/**
 * rc_parts() - How many parts a round of a workload has.
 * @b: The state.
 * @w: The workload.
 *
 * Return: RC_RANDREAD_PARTS for randread, thp_cycles for thp.
 */
unsigned int rc_parts(const struct rc_bench *b, enum rc_workload w)
{
	return w == RC_THP_SPLIT ? b->scale.thp_cycles : RC_RANDREAD_PARTS;
}

/**
 * rc_round_part() - Run one part of a round of a workload on one path.
 * @b: The state.
 * @w: The workload.
 * @baseline: The baseline read path.
 * @round: The round's number.
 * @part: The part's number in the round.
 * @s: The part's figures.
 */
void rc_round_part(struct rc_bench *b, enum rc_workload w, bool baseline,
		   unsigned int round, unsigned int part, struct rc_sample *s)
{
	struct rc_cache *c = &b->cache[w];
	uint64_t seed = SEED_RC_READ + ((uint64_t)round << 32) +
			((uint64_t)part << 8) + w;

	if (w == RC_THP_SPLIT) {
		rc_thp_cycle(b, c, baseline, seed, s);
		return;
	}
	/*
	 * Both paths share the randread cache, so the one that goes second
	 * must not read the pages the first just brought in: each path has
	 * its own (equally random) pages.
	 */
	rc_readers_run(b, c, baseline, seed + ((uint64_t)baseline << 16), NULL,
		       b->scale.reads / RC_RANDREAD_PARTS, s);
}

/**
 * rc_walks_per_add() - XArray walks per add, from a round's counts.
 * @s: The round.
 *
 * Return: Walks per add; NaN without adds.
 */
double rc_walks_per_add(const struct rc_sample *s)
{
	double other = (double)s->reads + (double)s->evictions +
		       (double)s->nodes_reclaimed;

	if (!s->adds)
		return NAN;
	return ((double)s->walks - other) / (double)s->adds;
}

/**
 * rc_init() - Create the backing store and both caches; warm randread.
 * @b: The state to fill.
 * @scale: The sizes.
 */
void rc_init(struct rc_bench *b, const struct rc_scale *scale)
{
	struct rc_sample s;

	memset(b, 0, sizeof(*b));
	b->scale = *scale;
	rc_backing_init(b);
	rc_cache_init(b, &b->cache[RC_RANDREAD], 0);
	rc_cache_init(b, &b->cache[RC_THP_SPLIT], 1UL << AS_LARGE_FOLIOS);
	/* Steady state: every page read once, so shadows cover the file. */
	rc_readers_run(b, &b->cache[RC_RANDREAD], false, SEED_RC_WARM, NULL,
		       2 * scale->file_pages / scale->threads, &s);
}

/**
 * rc_free() - Empty both caches, check nothing leaked, free everything.
 * @b: The state.
 */
void rc_free(struct rc_bench *b)
{
	unsigned int w;

	for (w = 0; w < RC_NR_WORKLOADS; w++)
		rc_cache_free(&b->cache[w], rc_names[w]);
	munmap(b->backing, b->scale.file_pages << UPC_PAGE_SHIFT);
	memset(b, 0, sizeof(*b));
}
