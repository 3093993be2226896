// SPDX-License-Identifier: MIT
/*
 * tests/mm/test_folio_concurrency.c - the folio lock, references and the
 * allocator under several threads (also run under TSan).
 *
 * Covers: a thread sleeping in folio_lock() or folio_wait_locked() is
 * woken by folio_unlock() and sees what the holder wrote; several
 * threads contending folio_lock() on a few folios keep a non-atomic
 * counter in each folio exact; threads allocating, exchanging and
 * freeing folios of every order on a shared arena for a bounded time
 * never get overlapping or corrupted memory and leave the arena whole;
 * folio_try_get() racing with the last folio_put() never takes a
 * reference on a freed folio.  A lost wakeup would hang: an alarm turns
 * that into a failure.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <upcache/folio.h>

#include "../../mm/internal.h"
#include "rand.h"

#define MiB			(1UL << 20)
#define WATCHDOG_SECONDS	300

#if defined(UPC_SANITIZE_THREAD)
#define LOCK_ITERS		4000
#define TRY_GET_ROUNDS		20000
#define CHURN_SECONDS		1.0
#elif defined(UPC_SANITIZE_ADDRESS)
#define LOCK_ITERS		20000
#define TRY_GET_ROUNDS		100000
#define CHURN_SECONDS		1.0
#else
#define LOCK_ITERS		50000
#define TRY_GET_ROUNDS		300000
#define CHURN_SECONDS		1.0
#endif

#define assert_arena_ok(arena)	assert_int_equal(upc_arena_check(arena), 0)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void start_thread(pthread_t *thread, void *(*fn)(void *), void *arg)
{
	assert_int_equal(pthread_create(thread, NULL, fn, arg), 0);
}

static void join_thread(pthread_t thread)
{
	assert_int_equal(pthread_join(thread, NULL), 0);
}

static struct upc_arena *arena_new(size_t bytes)
{
	struct upc_arena *arena = NULL;

	assert_int_equal(upc_arena_create(bytes, &arena), 0);
	return arena;
}

/* assert_whole() - Nothing charged, and all of it to be had as 2 MiB folios. */
static void assert_whole(struct upc_arena *arena)
{
	unsigned long n = arena->nr_pages >> UPC_MAX_ORDER, i;
	struct folio **folios = calloc(n, sizeof(*folios));

	assert_non_null(folios);
	assert_int_equal(upc_arena_charged(arena), 0);
	assert_arena_ok(arena);
	for (i = 0; i < n; i++) {
		folios[i] = upc_arena_alloc_folio(arena, GFP_KERNEL,
						  UPC_MAX_ORDER);
		assert_non_null(folios[i]);
	}
	assert_null(upc_arena_alloc_folio(arena, GFP_KERNEL, 0));
	for (i = 0; i < n; i++)
		folio_put(folios[i]);
	free(folios);
}

/* ---- sleepers are woken -------------------------------------------------- */

/*
 * struct sleeper - a thread that sleeps on a folio locked by the test.
 * @folio: The folio.
 * @take: folio_lock() (and unlock) if true, folio_wait_locked() if false.
 * @seen: The folio's first word, read once the thread got through.
 */
struct sleeper {
	struct folio *folio;
	bool take;
	unsigned long seen;
};

static void *sleeper_fn(void *arg)
{
	struct sleeper *s = arg;
	unsigned long *word = folio_address(s->folio);

	if (s->take) {
		folio_lock(s->folio);
		s->seen = *word;
		folio_unlock(s->folio);
	} else {
		folio_wait_locked(s->folio);
		s->seen = *word;
	}
	return NULL;
}

/* wait_for_waiters() - Until someone set PG_waiters (bounded). */
static void wait_for_waiters(struct folio *folio)
{
	double deadline = now() + 30;

	while (!folio_test_flag(folio, PG_waiters)) {
		if (now() > deadline)
			fail_msg("nobody went to sleep on the folio lock");
		usleep(100);
	}
}

/*
 * Lock a folio, let @nr_take lockers and @nr_wait waiters go to sleep on
 * it, write a value, unlock: every one of them gets through and sees the
 * value.
 */
static void sleepers_run(unsigned int nr_take, unsigned int nr_wait)
{
	struct upc_arena *arena = arena_new(2 * MiB);
	struct folio *folio = upc_arena_alloc_folio(arena, GFP_KERNEL, 0);
	struct sleeper s[8];
	pthread_t threads[8];
	unsigned int i, n = nr_take + nr_wait;

	assert_non_null(folio);
	assert_true(n <= 8);
	*(unsigned long *)folio_address(folio) = 1;
	folio_lock(folio);
	for (i = 0; i < n; i++) {
		s[i] = (struct sleeper){ .folio = folio, .take = i < nr_take };
		start_thread(&threads[i], sleeper_fn, &s[i]);
	}
	wait_for_waiters(folio);
	usleep(20000);		/* let the others reach the futex too */
	*(unsigned long *)folio_address(folio) = 42;
	folio_unlock(folio);
	for (i = 0; i < n; i++) {
		join_thread(threads[i]);
		assert_int_equal(s[i].seen, 42);
	}
	assert_int_equal(folio->flags, 0);
	folio_put(folio);
	assert_whole(arena);
	upc_arena_destroy(arena);
}

static void test_lock_sleeper_woken(void **state)
{
	(void)state;
	sleepers_run(1, 0);
}

static void test_wait_locked_woken(void **state)
{
	(void)state;
	sleepers_run(0, 1);
}

static void test_many_sleepers_woken(void **state)
{
	(void)state;
	sleepers_run(3, 2);
}

/* ---- contended counters -------------------------------------------------- */

#define LOCK_THREADS	4
#define LOCK_FOLIOS	2

/*
 * struct lock_worker - one thread incrementing the folios' counters.
 * @folios: The folios; each one's first word is its counter, guarded by
 *	its folio lock.
 * @id: Thread number.
 */
struct lock_worker {
	struct folio **folios;
	unsigned int id;
};

/* lock_one() - Lock by one of the three ways the API offers. */
static void lock_one(struct folio *folio, unsigned long i)
{
	if (i % 3 == 0) {
		while (!folio_trylock(folio))
			folio_wait_locked(folio);
		return;
	}
	folio_lock(folio);
}

static void *lock_worker_fn(void *arg)
{
	struct lock_worker *w = arg;
	struct folio *folio;
	unsigned long i, *counter, v;

	for (i = 0; i < LOCK_ITERS; i++) {
		folio = w->folios[(i + w->id) % LOCK_FOLIOS];
		counter = folio_address(folio);
		lock_one(folio, i);
		v = *counter;
		if (i % 128 == 0)
			sched_yield();	/* be preempted holding the lock */
		*counter = v + 1;
		folio_unlock(folio);
	}
	return NULL;
}

static void test_lock_counter(void **state)
{
	struct upc_arena *arena = arena_new(2 * MiB);
	struct folio *folios[LOCK_FOLIOS];
	struct lock_worker workers[LOCK_THREADS];
	pthread_t threads[LOCK_THREADS];
	unsigned int i;

	(void)state;
	for (i = 0; i < LOCK_FOLIOS; i++) {
		folios[i] = upc_arena_alloc_folio(arena, GFP_KERNEL | __GFP_ZERO,
						  0);
		assert_non_null(folios[i]);
	}
	for (i = 0; i < LOCK_THREADS; i++) {
		workers[i] = (struct lock_worker){ .folios = folios, .id = i };
		start_thread(&threads[i], lock_worker_fn, &workers[i]);
	}
	for (i = 0; i < LOCK_THREADS; i++)
		join_thread(threads[i]);
	for (i = 0; i < LOCK_FOLIOS; i++) {
		assert_int_equal(*(unsigned long *)folio_address(folios[i]),
				 LOCK_THREADS * LOCK_ITERS / LOCK_FOLIOS);
		assert_int_equal(folios[i]->flags, 0);
		folio_put(folios[i]);
	}
	assert_whole(arena);
	upc_arena_destroy(arena);
}

/* ---- allocation churn ----------------------------------------------------- */

#define CHURN_THREADS	3
#define CHURN_LIVE	48
#define CHUNK		4096

/*
 * struct churn - one thread allocating, exchanging and freeing.
 * @arena: The shared arena.
 * @exchange: A folio handed between threads (shared by all).
 * @seed: This thread's seed.
 * @id: Thread number.
 * @allocs, @fails: Counts, for the log.
 * @bad: A new folio was not in the documented state, or a folio's
 *	memory changed under its owner.
 */
struct churn {
	struct upc_arena *arena;
	struct folio **exchange;
	uint64_t seed;
	unsigned int id;
	unsigned long allocs, fails;
	bool bad;
};

/* A folio's fill byte travels in ->private: the owner's to set. */
static unsigned char fill_of(const struct folio *folio)
{
	return (unsigned char)(uintptr_t)folio->private;
}

/* region_is() - Is every byte of the folio @byte?  Chunked memcmp. */
static bool region_is(const struct folio *folio, unsigned char byte)
{
	static const unsigned char zero[CHUNK];
	unsigned char want[CHUNK];
	const unsigned char *p = folio_address(folio);
	size_t off;

	memset(want, byte, sizeof(want));
	for (off = 0; off < folio_size(folio); off += CHUNK)
		if (memcmp(p + off, byte ? want : zero, CHUNK))
			return false;
	return true;
}

static unsigned int churn_order(struct upc_rand *rnd)
{
	unsigned int order = 0;

	while (order < UPC_MAX_ORDER && upc_rand_chance(rnd, 1, 2))
		order++;
	return order;
}

/* churn_new() - A new folio, checked, filled with a byte of its own. */
static struct folio *churn_new(struct churn *c, struct upc_rand *rnd)
{
	gfp_t gfp = upc_rand_chance(rnd, 1, 2) ? GFP_KERNEL : GFP_NOWAIT;
	unsigned int order = churn_order(rnd);
	unsigned char byte = (unsigned char)(1 + upc_rand_below(rnd, 255));
	struct folio *folio;

	if (upc_rand_chance(rnd, 1, 8))
		gfp |= __GFP_ZERO;
	folio = upc_arena_alloc_folio(c->arena, gfp, order);
	if (!folio) {
		c->fails++;
		return NULL;
	}
	c->allocs++;
	if (folio_ref_count(folio) != 1 || folio->flags || folio->private ||
	    folio_order(folio) != order || folio_pfn(folio) % (1UL << order) ||
	    ((gfp & __GFP_ZERO) && !region_is(folio, 0)))
		c->bad = true;
	memset(folio_address(folio), byte, folio_size(folio));
	folio->private = (void *)(uintptr_t)byte;
	return folio;
}

/* churn_drop() - Verify a folio's fill and free it.  Return: false if bad. */
static bool churn_drop(struct folio *folio)
{
	bool ok = region_is(folio, fill_of(folio));

	folio->private = NULL;
	folio_put(folio);
	return ok;
}

static void churn_drop_one(struct churn *c, struct folio *folio)
{
	if (!churn_drop(folio))
		c->bad = true;
}

static void *churn_fn(void *arg)
{
	struct churn *c = arg;
	struct folio *live[CHURN_LIVE], *folio;
	double deadline = now() + CHURN_SECONDS;
	unsigned int nr = 0, i;
	struct upc_rand rnd;

	upc_rand_seed(&rnd, c->seed);
	while (!c->bad && now() < deadline) {
		if (nr && (nr == CHURN_LIVE || upc_rand_chance(&rnd, 9, 20))) {
			i = (unsigned int)upc_rand_below(&rnd, nr);
			if (upc_rand_chance(&rnd, 1, 4))	/* swap owners */
				live[i] = __atomic_exchange_n(c->exchange,
							      live[i],
							      __ATOMIC_ACQ_REL);
			if (live[i])
				churn_drop_one(c, live[i]);
			live[i] = live[--nr];
			continue;
		}
		folio = churn_new(c, &rnd);
		if (folio)
			live[nr++] = folio;
	}
	while (nr)
		churn_drop_one(c, live[--nr]);
	return NULL;
}

/*
 * Threads allocate folios of every order from one arena, fill each with
 * its own byte, free some themselves and hand others to another thread
 * (so pages are freed on other CPUs' caches than they came from), for a
 * bounded time.  Overlapping folios would corrupt each other's bytes;
 * afterwards nothing is charged and the arena is whole again.
 */
static void test_alloc_free_churn(void **state)
{
	struct upc_arena *arena = arena_new(6 * MiB);
	struct churn c[CHURN_THREADS];
	pthread_t threads[CHURN_THREADS];
	struct folio *exchange = NULL;
	uint64_t seed = upc_test_seed();
	unsigned int i;

	(void)state;
	for (i = 0; i < CHURN_THREADS; i++) {
		c[i] = (struct churn){ .arena = arena, .exchange = &exchange,
				       .seed = seed + i, .id = i };
		start_thread(&threads[i], churn_fn, &c[i]);
	}
	for (i = 0; i < CHURN_THREADS; i++) {
		join_thread(threads[i]);
		if (c[i].bad)
			fail_msg("seed %llu: thread %u saw a bad folio",
				 (unsigned long long)seed, i);
		fprintf(stderr, "# churn thread %u: %lu allocations, %lu "
			"failed\n", i, c[i].allocs, c[i].fails);
	}
	if (exchange && !churn_drop(exchange))
		fail_msg("seed %llu: exchanged folio corrupted",
			 (unsigned long long)seed);
	assert_whole(arena);
	upc_arena_destroy(arena);
}

/* ---- folio_try_get() against the last folio_put() ------------------------ */

#define LIVE_MAGIC	((void *)0x5eed5eedUL)

/*
 * struct lookup - the "cache" slot and what the lookup thread saw.
 * @slot: Where the current folio is published; NULL between rounds.
 * @done: The publisher finished.
 * @got, @missed, @refused: Lookups that kept a reference, that took one
 *	but found the slot changed, and that folio_try_get() refused.
 * @bad: A reference was taken on a folio that is not live.
 */
struct lookup {
	struct folio *slot;
	int done;
	unsigned long got, missed, refused;
	bool bad;
};

/* lookup_once() - Find, try_get, re-check: the lockless lookup protocol. */
static void lookup_once(struct lookup *l)
{
	struct folio *folio = __atomic_load_n(&l->slot, __ATOMIC_ACQUIRE);

	if (!folio)
		return;
	if (!folio_try_get(folio)) {
		l->refused++;
		return;
	}
	if (__atomic_load_n(&l->slot, __ATOMIC_ACQUIRE) != folio) {
		l->missed++;
		folio_put(folio);
		return;
	}
	/* Ours and live: freeing would have cleared ->private. */
	if (folio->private != LIVE_MAGIC || folio_ref_count(folio) < 1)
		l->bad = true;
	l->got++;
	folio_put(folio);
}

static void *lookup_fn(void *arg)
{
	struct lookup *l = arg;

	while (!__atomic_load_n(&l->done, __ATOMIC_ACQUIRE))
		lookup_once(l);
	return NULL;
}

/*
 * One thread publishes a new folio each round and removes it with what
 * is usually the last folio_put(); another looks it up locklessly.  A
 * folio_try_get() that succeeded on a freed folio would leave the lookup
 * holding a folio without ->private, or free it a second time: the
 * charge would go wrong and the arena check would fail.
 */
static void test_try_get_vs_put(void **state)
{
	struct upc_arena *arena = arena_new(2 * MiB);
	struct lookup l = { 0 };
	struct folio *folio;
	pthread_t thread;
	unsigned long round;

	(void)state;
	start_thread(&thread, lookup_fn, &l);
	for (round = 0; round < TRY_GET_ROUNDS; round++) {
		folio = upc_arena_alloc_folio(arena, GFP_KERNEL, round % 2);
		assert_non_null(folio);
		folio->private = LIVE_MAGIC;
		folio->index = round;
		__atomic_store_n(&l.slot, folio, __ATOMIC_RELEASE);
		if (round % 4 == 0)
			sched_yield();
		__atomic_store_n(&l.slot, NULL, __ATOMIC_RELEASE);
		folio_put(folio);
	}
	__atomic_store_n(&l.done, 1, __ATOMIC_RELEASE);
	join_thread(thread);
	fprintf(stderr, "# lookups: %lu kept, %lu missed, %lu refused\n",
		l.got, l.missed, l.refused);
	assert_false(l.bad);
	assert_whole(arena);
	upc_arena_destroy(arena);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lock_sleeper_woken),
		cmocka_unit_test(test_wait_locked_woken),
		cmocka_unit_test(test_many_sleepers_woken),
		cmocka_unit_test(test_lock_counter),
		cmocka_unit_test(test_alloc_free_churn),
		cmocka_unit_test(test_try_get_vs_put),
	};

	alarm(WATCHDOG_SECONDS);	/* a lost wakeup hangs: fail instead */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
