// SPDX-License-Identifier: MIT
/*
 * tests/api/test_anon_concurrency.c - threads writing and reading one
 * anonymous region while reclaim swaps it out and in (also built and run
 * under ThreadSanitizer).
 *
 * The region is three times the cache's memory limit and has an
 * in-memory swap device, so nearly every access swaps a page in and
 * makes reclaim swap another out, on whichever thread allocates.
 *
 * CC_WORKERS threads each own every CC_WORKERS-th chunk of CC_CHUNK
 * pages.  A page is only ever written whole, by its owner, with a
 * pattern that encodes (page, generation) in every 8-byte word, so that
 * a reader can tell from the bytes alone which write it saw and whether
 * it saw all of it.  Work goes in rounds, separated by barriers:
 *
 *  1. Each owner writes generation r into every page it owns, in runs of
 *     1..CC_CHUNK pages, publishing each page's generation (a release
 *     store to committed[]) once upc_anon_write() has returned.  Between
 *     writes it reads random runs of 1..CC_MAX_READ pages of anyone,
 *     half of them where another owner is writing at that moment.
 *     Every page a read returns must be one complete write (not torn,
 *     not another page's, not zeros once written), of a generation at
 *     least what committed[] said before the read (never stale) and at
 *     most r (no write of a later round exists yet).
 *  2. After a barrier every thread reads the whole region: every page
 *     must be exactly generation r, since its owner wrote that before
 *     the barrier.
 *
 * Whole pages for readers too: a read that copied a page without the
 * folio lock while its owner's write copies under it would be a data
 * race (undefined behaviour, and in practice a torn page).  gcc expands
 * those 4 KiB copies inline, where its ThreadSanitizer does not look,
 * so the pattern check, not TSan, is what catches such a race.
 *
 * A further thread calls upc_cache_stats() throughout: memory_used never
 * over the limit, swap_used never over swap_total.  At the end the main
 * thread checks the region once more, that swap was used both ways,
 * and that destroying the region gives every byte of memory and every
 * slot back (memory_used == 0, swap_used == 0).
 *
 * Rounds stop after CC_TIME_BUDGET seconds (at least CC_MIN_ROUNDS, at
 * most UPC_STRESS_OPS rounds, default 1000), so the test is bounded
 * under TSan too.  UPC_SEED seeds the random choices (printed).
 *
 * The large variant starts from a region filled with zeroed large folios
 * through the kernel-layer API (the way tests/mm/test_anon.c's
 * an_add_huge() does; nothing in the upc_ API makes them): an order-6
 * folio over eight chunks, so three owners write into it, order-3 ones
 * over whole chunks and order-2 ones over half chunks, the rest left to
 * the writers' order-0 ones.  They go to swap whole and come back whole,
 * or split when no folio of their order can be had, under the same
 * threads and checks.  The statistics thread also samples the region's
 * swap entries and reads a page inside a large one now and then (the
 * page must decode as one whole write); the test requires large swap
 * entries and a large folio seen back whole.  Its swap is twice the
 * small variant's, since a large folio goes only to aligned free slots.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <upcache/check.h>
#include <upcache/filemap.h>
#include <upcache/rcu.h>
#include <upcache/upcache.h>

#include "api_helpers.h"
#include "rand.h"

#define CC_PAGE		4096L
#define CC_WORDS	(CC_PAGE / 8)
#define CC_LIMIT	(2L << 20)		/* the cache's memory */
#define CC_PAGES	1536L			/* 6 MiB: three times it */
#define CC_SWAP		(8L << 20)		/* room for every page */
#define CC_WORKERS	3
#define CC_CHUNK	8			/* pages per owned chunk */
#define CC_MAX_READ	16			/* pages per random read */
#define CC_MIN_ROUNDS	3

#ifdef UPC_SANITIZE_THREAD
#define CC_TIME_BUDGET	3.0
#else
#define CC_TIME_BUDGET	2.0
#endif

/* The large variant's swap, and the order-6 folio's first page. */
#define CC_LARGE_SWAP	(2 * CC_SWAP)
#define CC_LARGE_HUGE	512L

struct cc_shared {
	struct upc_cache *cache;
	struct upc_anon *anon;
	bool large;			/* seeded with large folios */
	uint64_t swap;			/* bytes of swap */
	unsigned long orders_seen;	/* atomic: bit k: order-k entry */
	unsigned long probes;		/* atomic: reads in a large entry */
	unsigned long whole;		/* atomic: ... that found it whole */
	uint64_t seed;
	unsigned long max_rounds;
	struct timespec start;
	pthread_barrier_t barrier;
	uint32_t committed[CC_PAGES];	/* atomic: generation written */
	long writing[CC_WORKERS];	/* atomic: first page each writes */
	int stop;			/* atomic: no more rounds */
	int workers_done;		/* atomic */
	unsigned long rounds;		/* atomic: rounds completed */
	unsigned long failures;		/* atomic */
	unsigned long pages_checked;	/* atomic */
	unsigned long stats_calls;	/* atomic */
	pthread_mutex_t msg_lock;
	char first_failure[256];	/* under msg_lock */
};

struct cc_thread {
	pthread_t tid;
	struct cc_shared *sh;
	unsigned int id;
	struct upc_rand rnd;
	uint64_t *buf;			/* CC_MAX_READ pages */
};

/* Record a failure; the main thread reports the first and the count. */
static void cc_fail(struct cc_shared *sh, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void cc_fail(struct cc_shared *sh, const char *fmt, ...)
{
	va_list ap;

	if (__atomic_fetch_add(&sh->failures, 1, __ATOMIC_RELAXED) == 0) {
		pthread_mutex_lock(&sh->msg_lock);
		va_start(ap, fmt);
		vsnprintf(sh->first_failure, sizeof(sh->first_failure), fmt, ap);
		va_end(ap);
		pthread_mutex_unlock(&sh->msg_lock);
	}
}

static bool cc_failed(struct cc_shared *sh)
{
	return __atomic_load_n(&sh->failures, __ATOMIC_RELAXED) != 0;
}

/* ---- the page pattern ----------------------------------------------------- */

static unsigned int cc_owner(long page)
{
	return (unsigned int)((page / CC_CHUNK) % CC_WORKERS);
}

/* Word 0 names the write; every other word is a hash of it and its place. */
static uint64_t cc_header(long page, uint32_t gen)
{
	return (uint64_t)page << 32 | gen;
}

static uint64_t cc_word(uint64_t header, long k)
{
	uint64_t x = header * 0x9e3779b97f4a7c15ull + (uint64_t)k;

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ull;
	return x ^ (x >> 29);
}

static void cc_fill(uint64_t *words, long page, uint32_t gen)
{
	uint64_t header = cc_header(page, gen);
	long k;

	words[0] = header;
	for (k = 1; k < CC_WORDS; k++)
		words[k] = cc_word(header, k);
}

/*
 * Decode a page read at @page.  Return: its generation (0: never
 * written, all zeros), or -1 if it is not one whole write of @page.
 */
static int64_t cc_decode(const uint64_t *words, long page)
{
	uint64_t header = words[0];
	long k;

	if (!header) {
		for (k = 1; k < CC_WORDS; k++)
			if (words[k])
				return -1;
		return 0;
	}
	if ((long)(header >> 32) != page || !(uint32_t)header)
		return -1;
	for (k = 1; k < CC_WORDS; k++)
		if (words[k] != cc_word(header, k))
			return -1;
	return (uint32_t)header;
}

/* Word @k of @page as generation @gen writes it (0: never written). */
static uint64_t cc_expect(long page, uint32_t gen, long k)
{
	if (!gen)
		return 0;
	return k ? cc_word(cc_header(page, gen), k) : cc_header(page, gen);
}

/*
 * Say which writes a bad page is made of, as runs of words "first-last:
 * generation" (generations up to @max_gen + 1 tried; '?' for none), so
 * a torn page shows where the two writes meet.
 */
static void cc_describe(const uint64_t *words, long page, uint32_t max_gen,
			char *out, size_t size)
{
	size_t len = 0;
	long k = 0;

	out[0] = 0;
	while (k < CC_WORDS && len + 32 < size) {
		int64_t gen = -1, g;
		long end;

		for (g = 0; g <= max_gen + 1 && gen < 0; g++)
			if (words[k] == cc_expect(page, (uint32_t)g, k))
				gen = g;
		for (end = k + 1; end < CC_WORDS; end++)
			if (gen < 0 ||
			    words[end] != cc_expect(page, (uint32_t)gen, end))
				break;
		if (gen < 0)
			len += (size_t)snprintf(out + len, size - len, "%ld:? ", k);
		else
			len += (size_t)snprintf(out + len, size - len,
						"%ld-%ld:%" PRId64 " ", k,
						end - 1, gen);
		k = end;
	}
}

/* ---- workers -------------------------------------------------------------- */

/*
 * Read @nr pages from @first and check each: one whole write, of a
 * generation in [committed before the read, @max_gen]; exactly @max_gen
 * when @exact.
 */
static void cc_read_check(struct cc_thread *t, long first, long nr,
			  uint32_t max_gen, bool exact)
{
	struct cc_shared *sh = t->sh;
	uint32_t before[CC_MAX_READ];
	ssize_t got;
	long i;

	for (i = 0; i < nr; i++)
		/* Pairs with the owner's release after its write returned. */
		before[i] = __atomic_load_n(&sh->committed[first + i],
					    __ATOMIC_ACQUIRE);
	got = upc_anon_read(sh->anon, t->buf, (size_t)(nr * CC_PAGE),
			    first * CC_PAGE);
	if (got != nr * CC_PAGE) {
		cc_fail(sh, "thread %u: read of pages %ld+%ld returned %zd",
			t->id, first, nr, got);
		return;
	}
	for (i = 0; i < nr; i++) {
		int64_t gen = cc_decode(t->buf + i * CC_WORDS, first + i);
		long page = first + i;

		if (gen < 0) {
			char what[128];

			cc_describe(t->buf + i * CC_WORDS, page, max_gen,
				    what, sizeof(what));
			cc_fail(sh, "thread %u: page %ld (owner %u) torn or "
				"misplaced in round %u (committed %u before the "
				"read); words by generation: %s", t->id, page,
				cc_owner(page), max_gen, before[i], what);
		}
		else if (gen < before[i])
			cc_fail(sh, "thread %u: page %ld (owner %u) stale: "
				"generation %" PRId64 " after %u was committed",
				t->id, page, cc_owner(page), gen, before[i]);
		else if (gen > max_gen || (exact && gen != max_gen))
			cc_fail(sh, "thread %u: page %ld has generation %"
				PRId64 ", expected %s%u", t->id, page, gen,
				exact ? "" : "at most ", max_gen);
	}
	__atomic_fetch_add(&sh->pages_checked, (unsigned long)nr,
			   __ATOMIC_RELAXED);
}

/*
 * Read a random run of pages; half the time the run another owner is
 * writing right now, where a read that is not atomic per page would
 * catch half a write.
 */
static void cc_random_read(struct cc_thread *t, uint32_t round)
{
	long nr = 1 + (long)upc_rand_below(&t->rnd, CC_MAX_READ);
	long first = (long)upc_rand_below(&t->rnd,
					  (uint64_t)(CC_PAGES - nr + 1));

	if (upc_rand_chance(&t->rnd, 1, 2)) {
		unsigned int owner = (unsigned int)upc_rand_below(&t->rnd,
								  CC_WORKERS);

		first = __atomic_load_n(&t->sh->writing[owner], __ATOMIC_RELAXED);
		nr = 1 + (long)upc_rand_below(&t->rnd, CC_CHUNK);
		if (first + nr > CC_PAGES)
			nr = CC_PAGES - first;
	}
	cc_read_check(t, first, nr, round, false);
}

/* Phase 1: write generation @round over every owned page, in runs. */
static void cc_write_round(struct cc_thread *t, uint32_t round)
{
	struct cc_shared *sh = t->sh;
	uint64_t *src = malloc(CC_CHUNK * CC_PAGE);
	long chunk, page, nr, i;
	ssize_t got;

	if (!src) {
		cc_fail(sh, "thread %u: out of memory", t->id);
		return;
	}
	for (chunk = t->id; chunk * CC_CHUNK < CC_PAGES; chunk += CC_WORKERS) {
		for (page = chunk * CC_CHUNK; page < (chunk + 1) * CC_CHUNK;
		     page += nr) {
			nr = 1 + (long)upc_rand_below(&t->rnd, CC_CHUNK);
			if (page + nr > (chunk + 1) * CC_CHUNK)
				nr = (chunk + 1) * CC_CHUNK - page;
			for (i = 0; i < nr; i++)
				cc_fill(src + i * CC_WORDS, page + i, round);
			__atomic_store_n(&sh->writing[t->id], page,
					 __ATOMIC_RELAXED);
			got = upc_anon_write(sh->anon, src,
					     (size_t)(nr * CC_PAGE),
					     page * CC_PAGE);
			if (got != nr * CC_PAGE)
				cc_fail(sh, "thread %u: write of pages "
					"%ld+%ld returned %zd", t->id, page,
					nr, got);
			for (i = 0; i < nr; i++)
				__atomic_store_n(&sh->committed[page + i], round,
						 __ATOMIC_RELEASE);
			if (upc_rand_chance(&t->rnd, 1, 2))
				cc_random_read(t, round);
		}
	}
	free(src);
}

/* Phase 2: the whole region, every page exactly generation @round. */
static void cc_verify_round(struct cc_thread *t, uint32_t round)
{
	/* Start at a different place on each thread to spread the swap-ins. */
	long start = (long)t->id * (CC_PAGES / CC_WORKERS), done;

	for (done = 0; done < CC_PAGES; done += CC_MAX_READ) {
		long first = (start + done) % CC_PAGES;

		cc_read_check(t, first, CC_MAX_READ, round, true);
	}
}

static double cc_elapsed(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start->tv_sec) +
	       (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

static void *cc_worker(void *arg)
{
	struct cc_thread *t = arg;
	struct cc_shared *sh = t->sh;
	uint32_t round;

	for (round = 1;; round++) {
		cc_write_round(t, round);
		pthread_barrier_wait(&sh->barrier);
		cc_verify_round(t, round);
		/* One thread decides whether another round runs... */
		if (pthread_barrier_wait(&sh->barrier) ==
		    PTHREAD_BARRIER_SERIAL_THREAD) {
			bool stop = cc_failed(sh) || round >= sh->max_rounds ||
				    (round >= CC_MIN_ROUNDS &&
				     cc_elapsed(&sh->start) > CC_TIME_BUDGET);

			__atomic_store_n(&sh->rounds, round, __ATOMIC_RELAXED);
			__atomic_store_n(&sh->stop, stop, __ATOMIC_RELAXED);
		}
		/* ...and all see it before anyone writes again. */
		pthread_barrier_wait(&sh->barrier);
		if (__atomic_load_n(&sh->stop, __ATOMIC_RELAXED))
			break;
	}
	__atomic_fetch_add(&sh->workers_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * The large variant: note the orders of the swap entries in a random
 * stretch of the region (under RCU); read a page inside the first large
 * one, which must decode as one whole write, and see whether its folio
 * came back whole.  Reclaim may have taken it again already.
 */
static void cc_probe_large(struct cc_thread *t)
{
	struct cc_shared *sh = t->sh;
	struct address_space *mapping = &sh->anon->region.mapping;
	pgoff_t first = (pgoff_t)upc_rand_below(&t->rnd, CC_PAGES / 64) * 64;
	pgoff_t head = 0;
	unsigned long seen, nr;
	unsigned int order;
	struct folio *folio;
	long page;
	ssize_t got;

	seen = api_swap_orders(mapping, first, first + 63, &head, &order);
	if (seen & ~__atomic_load_n(&sh->orders_seen, __ATOMIC_RELAXED))
		__atomic_fetch_or(&sh->orders_seen, seen, __ATOMIC_RELAXED);
	if (!order)
		return;
	nr = 1UL << order;
	page = (long)(head + upc_rand_below(&t->rnd, nr));
	got = upc_anon_read(sh->anon, t->buf, CC_PAGE, page * CC_PAGE);
	if (got != CC_PAGE) {
		cc_fail(sh, "probe: read of page %ld returned %zd", page, got);
		return;
	}
	if (cc_decode(t->buf, page) < 0)
		cc_fail(sh, "probe: page %ld torn or misplaced", page);
	__atomic_fetch_add(&sh->probes, 1, __ATOMIC_RELAXED);
	folio = filemap_get_entry(mapping, (pgoff_t)page);
	if (!folio || xa_is_value(folio))
		return;
	if (folio_nr_pages(folio) == nr)
		__atomic_fetch_add(&sh->whole, 1, __ATOMIC_RELAXED);
	folio_put(folio);
}

/* Statistics while everything moves: the limits always hold. */
static void *cc_stats(void *arg)
{
	struct cc_thread *t = arg;
	struct cc_shared *sh = t->sh;
	struct upc_cache_stats st;

	while (__atomic_load_n(&sh->workers_done, __ATOMIC_ACQUIRE) <
	       CC_WORKERS) {
		int err = upc_cache_stats(sh->cache, &st);

		__atomic_fetch_add(&sh->stats_calls, 1, __ATOMIC_RELAXED);
		if (err)
			cc_fail(sh, "upc_cache_stats() returned %d", err);
		else if (st.memory_used > st.memory_limit)
			cc_fail(sh, "memory_used %" PRIu64 " over the limit %"
				PRIu64, st.memory_used, st.memory_limit);
		else if (st.swap_used > st.swap_total ||
			 st.swap_total != sh->swap)
			cc_fail(sh, "swap_used %" PRIu64 ", swap_total %"
				PRIu64, st.swap_used, st.swap_total);
		else if (st.anon_regions != 1)
			cc_fail(sh, "anon_regions %" PRIu64, st.anon_regions);
		if (sh->large)
			cc_probe_large(t);
		/* Often, but leave the workers (and reclaim) the CPUs. */
		sched_yield();
	}
	return NULL;
}

/* ---- the test ------------------------------------------------------------- */

/* Free the run's objects (the threads are joined). */
static void cc_teardown(struct cc_shared *sh, struct cc_thread *threads)
{
	unsigned int i;

	for (i = 0; i <= CC_WORKERS; i++)
		free(threads[i].buf);
	pthread_barrier_destroy(&sh->barrier);
	pthread_mutex_destroy(&sh->msg_lock);
	free(sh);
}

/*
 * Report the threads' failures, if any, after freeing everything, so
 * that the report is not buried under LeakSanitizer's.
 */
static void cc_check_failures(struct cc_shared *sh, struct cc_thread *threads,
			      const char *when)
{
	char msg[sizeof(sh->first_failure)];
	unsigned long nr = sh->failures;
	uint64_t seed = sh->seed;

	if (!nr)
		return;
	memcpy(msg, sh->first_failure, sizeof(msg));
	upc_anon_destroy(sh->anon);
	upc_swapoff(sh->cache);
	upc_cache_destroy(sh->cache);
	cc_teardown(sh, threads);
	fail_msg("%s: %lu failures, UPC_SEED=%" PRIu64 "; first: %s", when,
		 nr, seed, msg);
}

/* Add a zeroed large folio of @order at page @index (never written: gen 0). */
static void cc_add_large(struct cc_shared *sh, long index, unsigned int order)
{
	struct address_space *mapping = &sh->anon->region.mapping;
	struct folio *folio = filemap_alloc_folio(mapping, GFP_KERNEL, order);

	assert_non_null(folio);
	memset(folio_address(folio), 0, folio_size(folio));
	folio_set_uptodate(folio);
	assert_int_equal(filemap_add_folio(mapping, folio, (pgoff_t)index,
					   GFP_KERNEL), 0);
	folio_put(folio);
}

/* The large variant's start (see the top of the file). */
static void cc_seed_large(struct cc_shared *sh)
{
	long chunk;

	cc_add_large(sh, CC_LARGE_HUGE, 6);
	for (chunk = 0; chunk * CC_CHUNK < CC_PAGES; chunk++) {
		long page = chunk * CC_CHUNK;

		if (page >= CC_LARGE_HUGE && page < CC_LARGE_HUGE + 64)
			continue;
		if (chunk % 3 == 0) {
			cc_add_large(sh, page, 3);
		} else if (chunk % 3 == 1) {
			cc_add_large(sh, page, 2);
			cc_add_large(sh, page + 4, 2);
		}
	}
}

/* cc_run() - One run; with @swap_path, swapping to that file. */
static void cc_run(bool large, const char *swap_path)
{
	struct upc_cache_config cfg = { .memory_limit = CC_LIMIT };
	struct upc_swap_config swap = {
		.path = swap_path, .size = large ? CC_LARGE_SWAP : CC_SWAP,
	};
	struct cc_thread threads[CC_WORKERS + 1];
	struct cc_shared *sh = calloc(1, sizeof(*sh));
	struct upc_cache_stats st;
	unsigned int i;

	assert_non_null(sh);
	sh->large = large;
	sh->swap = swap.size;
	sh->seed = upc_test_seed();
	sh->max_rounds = upc_test_env_ulong("UPC_STRESS_OPS", 1000);
	pthread_mutex_init(&sh->msg_lock, NULL);
	assert_int_equal(pthread_barrier_init(&sh->barrier, NULL, CC_WORKERS), 0);
	assert_int_equal(upc_cache_create(&cfg, &sh->cache), 0);
	assert_int_equal(upc_swapon(sh->cache, &swap), 0);
	assert_int_equal(upc_anon_create(sh->cache, CC_PAGES * CC_PAGE,
					 &sh->anon), 0);
	if (large)
		cc_seed_large(sh);

	clock_gettime(CLOCK_MONOTONIC, &sh->start);
	for (i = 0; i <= CC_WORKERS; i++) {
		threads[i].sh = sh;
		threads[i].id = i;
		upc_rand_seed(&threads[i].rnd, sh->seed + i);
		threads[i].buf = malloc(CC_MAX_READ * CC_PAGE);
		assert_non_null(threads[i].buf);
		assert_int_equal(pthread_create(&threads[i].tid, NULL,
						i < CC_WORKERS ? cc_worker :
								 cc_stats,
						&threads[i]), 0);
	}
	for (i = 0; i <= CC_WORKERS; i++)
		assert_int_equal(pthread_join(threads[i].tid, NULL), 0);

	fprintf(stderr, "# anon concurrency: %lu rounds in %.2f s, %lu pages "
		"checked, %lu stats calls, UPC_SEED=%" PRIu64 "\n", sh->rounds,
		cc_elapsed(&sh->start), sh->pages_checked, sh->stats_calls,
		sh->seed);
	cc_check_failures(sh, threads, "while the threads ran");
	assert_true(sh->rounds >= CC_MIN_ROUNDS || sh->rounds == sh->max_rounds);
	if (large) {
		fprintf(stderr, "# large: swap entry orders seen %#lx, %lu "
			"reads inside a large entry, %lu found it whole\n",
			sh->orders_seen, sh->probes, sh->whole);
		assert_true(sh->orders_seen & ~1UL);
		assert_true(sh->whole > 0);
	}

	/* Quiet now: the last round is everywhere and the table is sound. */
	cc_verify_round(&threads[0], (uint32_t)sh->rounds);
	cc_check_failures(sh, threads, "after the threads");
	assert_int_equal(upc_check_mapping(&sh->anon->region.mapping), 0);
	assert_int_equal(upc_cache_stats(sh->cache, &st), 0);
	assert_true(st.swapouts > 0);
	assert_true(st.swapins > 0);
	assert_true(st.swap_used > 0);

	assert_int_equal(upc_anon_destroy(sh->anon), 0);
	assert_int_equal(upc_cache_stats(sh->cache, &st), 0);
	assert_int_equal(st.swap_used, 0);
	assert_int_equal(st.memory_used, 0);
	assert_int_equal(st.anon_regions, 0);
	assert_int_equal(upc_swapoff(sh->cache), 0);
	assert_int_equal(upc_cache_destroy(sh->cache), 0);
	cc_teardown(sh, threads);
}

static void test_anon_concurrency_swap(void **state)
{
	(void)state;
	cc_run(false, NULL);
}

static void test_anon_concurrency_swap_large(void **state)
{
	(void)state;
	cc_run(true, NULL);
}

/*
 * Swapping to a file: the readers' runs swap in with readahead
 * (swapin_readahead(), which a device in memory does not use) and
 * reclaim writes neighbouring slots together.
 */
static void test_anon_concurrency_swap_file(void **state)
{
	char path[] = "/tmp/upc_test_anon_cc_XXXXXX";
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	cc_run(false, path);
	assert_int_equal(unlink(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_anon_concurrency_swap),
		cmocka_unit_test(test_anon_concurrency_swap_large),
		cmocka_unit_test(test_anon_concurrency_swap_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
