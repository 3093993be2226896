// SPDX-License-Identifier: MIT
/*
 * tests/mm/test_vmscan_concurrency.c - readers and reclaim at once.
 *
 * Two reader threads read random pages of a file four times the limit
 * (the grab path, the batched grab and plain lookups), checking each
 * page's pattern while they hold it: a folio freed and reused while
 * referenced would show another index's pattern (or, under ASan, touch
 * poisoned memory).  Each also dirties pages of its own small range with
 * a stamp; reclaim must never drop them.  A third thread runs explicit
 * and background reclaim, and every allocation may reclaim directly.
 * At the end: the mapping is sound, every dirty page still holds its
 * last stamp, and every cached page is on the LRU exactly once.
 */
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "vmscan_helpers.h"

#include "rand.h"

#define LIMIT		1024UL
#define FILE_PAGES	(4 * LIMIT)
#define OPS		100000
#define DIRTY_PAGES	8

struct reader {
	pthread_t thread;
	struct vm_fixture *f;
	uint64_t seed;
	unsigned int slot;		/* which half of each 8-page run */
	pgoff_t dirty_base;		/* past the file: never read by others */
	uint64_t stamp[DIRTY_PAGES];
	unsigned long bad;
};

static volatile int stop;

/* Check the pattern of every page of a held folio. */
static unsigned long check_folio(struct folio *folio)
{
	unsigned long bad = 0;
	pgoff_t i;

	if (!folio_test_uptodate(folio))
		return 0;
	for (i = 0; i < folio_nr_pages(folio); i++)
		bad += *(uint64_t *)((char *)folio_address(folio) +
				     (i << UPC_PAGE_SHIFT)) !=
		       vm_pattern(folio->index + i);
	return bad;
}

static void reader_lookup(struct reader *r, pgoff_t index)
{
	struct folio *folio = filemap_get_folio(&r->f->mapping, index);

	if (IS_ERR(folio))
		return;
	r->bad += check_folio(folio);
	folio_put(folio);
}

/* Fill a locked folio that is not uptodate, check it, unlock and put. */
static void reader_finish(struct reader *r, struct folio *folio)
{
	pgoff_t p;

	if (!folio_test_uptodate(folio)) {
		for (p = 0; p < folio_nr_pages(folio); p++)
			*(uint64_t *)((char *)folio_address(folio) +
				      (p << UPC_PAGE_SHIFT)) =
				vm_pattern(folio->index + p);
		folio_set_uptodate(folio);
	}
	r->bad += check_folio(folio);
	folio_unlock(folio);
	folio_put(folio);
}

/* A read(2)-like access (cmocka asserts are for the main thread only). */
static void reader_read(struct reader *r, pgoff_t index)
{
	struct folio *folio = filemap_grab_folio(&r->f->mapping, index);

	if (!IS_ERR(folio))
		reader_finish(r, folio);
}

static void reader_grab(struct reader *r, pgoff_t index)
{
	struct folio *folios[4];
	int i, n = filemap_grab_folios(&r->f->mapping, index, 4, folios);

	for (i = 0; i < n; i++)
		reader_finish(r, folios[i]);
}

/* Write a new stamp into one of the reader's dirty pages. */
static void reader_dirty(struct reader *r, unsigned int slot, uint64_t stamp)
{
	struct folio *folio = filemap_grab_folio(&r->f->mapping,
						 r->dirty_base + slot);

	if (IS_ERR(folio))
		return;
	if (folio_test_uptodate(folio) &&
	    *(uint64_t *)folio_address(folio) != r->stamp[slot])
		r->bad++;
	*(uint64_t *)folio_address(folio) = stamp;
	r->stamp[slot] = stamp;
	folio_set_uptodate(folio);
	folio_mark_dirty(folio);
	folio_unlock(folio);
	folio_put(folio);
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	struct upc_rand rng;
	unsigned int op;

	upc_rand_seed(&rng, r->seed);
	for (op = 0; op < OPS; op++) {
		pgoff_t index = upc_rand_below(&rng, FILE_PAGES);

		switch (upc_rand_below(&rng, 8)) {
		case 0:
			reader_lookup(r, index);
			break;
		case 1:
			/*
			 * Disjoint runs per reader: two batched grabs of
			 * overlapping runs can deadlock on each other's new
			 * folio locks when one is only partly inserted (a
			 * filemap_grab_folios() bug, not reclaim's).
			 */
			reader_grab(r, (index & ~7UL) + r->slot * 4);
			break;
		case 2:
			reader_dirty(r, (unsigned int)(index % DIRTY_PAGES),
				     upc_rand_next(&rng) | 1);
			break;
		default:
			reader_read(r, index);
			break;
		}
	}
	return NULL;
}

static void *reclaimer_main(void *arg)
{
	struct vm_fixture *f = arg;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		upc_reclaim_pages(f->arena, 64);
		upc_reclaim_balance(f->arena);
		lru_add_drain_all(f->arena);
	}
	return NULL;
}

static void test_readers_and_reclaim(void **state)
{
	struct reader readers[2];
	struct vm_fixture f;
	struct upc_reclaim_stats st;
	pthread_t reclaimer;
	uint64_t seed = upc_test_seed();
	unsigned int i, s;

	(void)state;
	vm_setup(&f, 8, LIMIT, 0);
	stop = 0;
	for (i = 0; i < 2; i++) {
		readers[i] = (struct reader){ .f = &f, .seed = seed + i,
					      .slot = i,
					      .dirty_base = FILE_PAGES +
							    i * DIRTY_PAGES };
		assert_int_equal(pthread_create(&readers[i].thread, NULL,
						reader_main, &readers[i]), 0);
	}
	assert_int_equal(pthread_create(&reclaimer, NULL, reclaimer_main, &f),
			 0);
	for (i = 0; i < 2; i++)
		pthread_join(readers[i].thread, NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(reclaimer, NULL);

	st = vm_stats(f.arena);
	assert_true(st.pgsteal > 0);
	assert_true(st.workingset_refault > 0);
	for (i = 0; i < 2; i++) {
		assert_int_equal(readers[i].bad, 0);
		for (s = 0; s < DIRTY_PAGES; s++) {
			struct folio *folio;

			if (!readers[i].stamp[s])
				continue;
			folio = filemap_get_folio(&f.mapping,
						  readers[i].dirty_base + s);
			assert_false(IS_ERR(folio));
			assert_true(*(uint64_t *)folio_address(folio) ==
				    readers[i].stamp[s]);
			folio_lock(folio);
			folio_clear_dirty_for_io(folio);
			folio_unlock(folio);
			folio_put(folio);
		}
	}
	vm_assert_lru_consistent(&f);
	vm_teardown(&f);
}

/* ---- deactivation against the last put -------------------------------- */

#define CHURN_PAGES	256
#define CHURN_OPS	400000
/* Churn on, past CHURN_OPS, until the deactivator has moved a folio. */
#define CHURN_OPS_MAX	(100 * CHURN_OPS)

static int deactivator_running;

static void *deactivator_main(void *arg)
{
	struct vm_fixture *f = arg;

	__atomic_store_n(&deactivator_running, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
		shrink_active_list(f->arena->lruvec, 4, LRU_ACTIVE_FILE);
	return NULL;
}

/*
 * Folios made active and then truncated, so that their last reference
 * goes while shrink_active_list(), which holds none, moves them to the
 * inactive list.  The free path must see them listed all along: once
 * the move cleared PG_lru for a moment, and a folio whose last put fell
 * in that moment was freed while the move went on to list it (a
 * use-after-free that TSan and the free-time flag check reported).
 *
 * The race needs the deactivator to run beside the churn: it starts
 * first, and the churn goes on until it has deactivated something (a
 * loaded machine can leave it off the CPU for all of CHURN_OPS).
 */
static void test_deactivate_against_last_put(void **state)
{
	struct vm_fixture f;
	pthread_t deactivator;
	unsigned long op;

	(void)state;
	vm_setup(&f, 16, 2048, 0);
	stop = 0;
	__atomic_store_n(&deactivator_running, 0, __ATOMIC_RELAXED);
	assert_int_equal(pthread_create(&deactivator, NULL, deactivator_main,
					&f), 0);
	while (!__atomic_load_n(&deactivator_running, __ATOMIC_ACQUIRE))
		sched_yield();
	for (op = 0; op < CHURN_OPS_MAX; op++) {
		pgoff_t index = op % CHURN_PAGES;
		struct folio *folio = filemap_grab_folio(&f.mapping, index);

		assert_false(IS_ERR(folio));
		folio_set_uptodate(folio);
		folio_activate(folio);
		folio_unlock(folio);
		folio_put(folio);
		if (index % 16 == 15) {
			lru_add_drain_all(f.arena);
			truncate_inode_pages_range(&f.mapping,
					(int64_t)(index - 15) << UPC_PAGE_SHIFT,
					((int64_t)(index + 1) << UPC_PAGE_SHIFT) - 1);
			if (op >= CHURN_OPS &&
			    vm_stats(f.arena).pgdeactivate > 0)
				break;
		}
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(deactivator, NULL);
	assert_true(vm_stats(f.arena).pgdeactivate > 0);
	vm_assert_lru_consistent(&f);
	truncate_inode_pages(&f.mapping, 0);
	lru_add_drain_all(f.arena);
	assert_int_equal(upc_arena_charged(f.arena), 0);
	vm_teardown(&f);
}

/* ---- folios held for a moment ------------------------------------------ */

#define HELD_LIMIT	512UL

/*
 * How long a call needing memory waits for pages held by others while
 * nothing is evicted: "a second" (upc_cache_create() in upcache.h).
 */
#define STALL_US		1000000ULL

/*
 * A read waiting on held folios notices their release at its next
 * round: within a few milliseconds of sleep when it gets the CPU, and
 * this much more for a loaded machine.
 */
#define RELEASE_NOTICE_US	100000ULL

struct holder {
	struct vm_fixture *f;
	struct folio *held[HELD_LIMIT];
	int done;		/* the main thread's allocation returned */
	uint64_t released_us;	/* when the last held folio was put */
};

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* holder_release() - Put every held folio; note when. */
static void holder_release(struct holder *h)
{
	unsigned long i;

	for (i = 0; i < HELD_LIMIT; i++)
		folio_put(h->held[i]);
	__atomic_store_n(&h->released_us, now_us(), __ATOMIC_SEQ_CST);
}

/*
 * assert_read_waited() - A read that met only held folios gets a folio,
 * or fails as reclaim's contract allows: after a whole stall (STALL_US
 * since the read began) with the folios still held
 * when it gave up.  A loaded machine can keep the holder off the CPU
 * for longer than a stall; only a read that gave up early, or long
 * after the folios came back, is wrong.
 */
static void assert_read_waited(const struct folio *folio, uint64_t start_us,
			       uint64_t end_us, uint64_t released_us)
{
	if (folio)
		return;
	if (end_us - start_us < STALL_US)
		fail_msg("a read gave up after %llu us, before a stall of %llu us",
			 (unsigned long long)(end_us - start_us), STALL_US);
	if (end_us > released_us + RELEASE_NOTICE_US)
		fail_msg("a read gave up %llu us after the folios were let go",
			 (unsigned long long)(end_us - released_us));
}

/*
 * Let go of every held folio once a direct reclaimer sleeps (or the
 * allocation is over without one), as a reader lets go of the folios it
 * copied from.
 */
static void *holder_main(void *arg)
{
	struct holder *h = arg;
	struct lruvec *lruvec = h->f->arena->lruvec;

	while (!__atomic_load_n(&lruvec->reclaim_waiters, __ATOMIC_SEQ_CST) &&
	       !__atomic_load_n(&h->done, __ATOMIC_SEQ_CST))
		sched_yield();
	holder_release(h);
	return NULL;
}

/*
 * Every page of the cache held by another thread, as by readers in the
 * middle of their copies: an allocation finds nothing to evict, no read
 * under way and no batch isolated.  It must wait for the holders (the
 * round met them: pgbusy moved) and then evict, not fail with -ENOMEM
 * at once; thirty-two fd-file readers of a 2 MiB cache failed a read
 * that way now and then.  test_limit_and_enomem covers folios held for
 * good.
 */
static void test_reclaim_waits_for_held_folios(void **state)
{
	struct vm_fixture f;
	struct holder h = { .f = &f };
	struct folio *folio;
	pthread_t thread;
	uint64_t busy, start, end;
	unsigned long i;
	bool miss;

	(void)state;
	vm_setup(&f, 8, HELD_LIMIT, 0);
	for (i = 0; i < HELD_LIMIT; i++) {
		h.held[i] = vm_read(&f.mapping, i, &miss);
		assert_non_null(h.held[i]);
	}
	assert_int_equal(upc_arena_charged(f.arena), HELD_LIMIT);
	busy = vm_stats(f.arena).pgbusy;
	assert_int_equal(pthread_create(&thread, NULL, holder_main, &h), 0);
	start = now_us();
	folio = vm_read(&f.mapping, HELD_LIMIT, &miss);
	end = now_us();
	__atomic_store_n(&h.done, 1, __ATOMIC_SEQ_CST);
	pthread_join(thread, NULL);
	assert_true(vm_stats(f.arena).pgbusy > busy);
	assert_read_waited(folio, start, end, h.released_us);
	if (!folio)
		goto out;
	assert_true(miss);
	folio_put(folio);
	assert_true(vm_stats(f.arena).pgsteal > 0);
out:
	vm_assert_lru_consistent(&f);
	vm_teardown(&f);
}

#define STALL_READERS	3
#define STALL_HOLD_US	800000

struct stall_holder {
	struct holder h;
	int readers_done;	/* readers whose allocation returned */
};

/*
 * Hold every folio for STALL_HOLD_US after the first reclaimer sleeps
 * (or until all readers are done without one), then let go.
 */
static void *stall_holder_main(void *arg)
{
	struct stall_holder *sh = arg;
	struct lruvec *lruvec = sh->h.f->arena->lruvec;

	while (!__atomic_load_n(&lruvec->reclaim_waiters, __ATOMIC_SEQ_CST) &&
	       __atomic_load_n(&sh->readers_done, __ATOMIC_SEQ_CST) <
	       STALL_READERS)
		sched_yield();
	usleep(STALL_HOLD_US);
	holder_release(&sh->h);
	return NULL;
}

struct stall_reader {
	struct stall_holder *sh;
	pgoff_t index;
	struct folio *folio;
	uint64_t start_us;
	uint64_t end_us;
};

static void *stall_reader_main(void *arg)
{
	struct stall_reader *r = arg;
	bool miss;

	r->start_us = now_us();
	r->folio = vm_read(&r->sh->h.f->mapping, r->index, &miss);
	r->end_us = now_us();
	__atomic_fetch_add(&r->sh->readers_done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/*
 * Several allocations at once while another thread holds every page of
 * the cache for 0.8 s: each reclaimer isolates batches it cannot free
 * and wakes the others as it puts them back, so rounds pass quickly
 * while nobody evicts anything.  All must wait the holder out, since a
 * stall is bounded by time (a second), not by rounds: with 64 rounds,
 * 32 fd-file readers of a 2 MiB cache failed reads after 1-10 ms, and
 * with 4096 rounds counted in the stall these three readers failed
 * after 0.36 to 0.6 s.
 */
static void test_reclaim_stall_outlasts_holders(void **state)
{
	struct vm_fixture f;
	struct stall_holder sh = { .h = { .f = &f } };
	struct stall_reader readers[STALL_READERS];
	pthread_t holder, threads[STALL_READERS];
	unsigned long i;
	bool miss;

	(void)state;
	vm_setup(&f, 8, HELD_LIMIT, 0);
	for (i = 0; i < HELD_LIMIT; i++) {
		sh.h.held[i] = vm_read(&f.mapping, i, &miss);
		assert_non_null(sh.h.held[i]);
	}
	assert_int_equal(pthread_create(&holder, NULL, stall_holder_main,
					&sh), 0);
	for (i = 0; i < STALL_READERS; i++) {
		readers[i] = (struct stall_reader){ .sh = &sh,
						    .index = HELD_LIMIT + i };
		assert_int_equal(pthread_create(&threads[i], NULL,
						stall_reader_main,
						&readers[i]), 0);
	}
	for (i = 0; i < STALL_READERS; i++)
		pthread_join(threads[i], NULL);
	pthread_join(holder, NULL);
	for (i = 0; i < STALL_READERS; i++) {
		assert_read_waited(readers[i].folio, readers[i].start_us,
				   readers[i].end_us, sh.h.released_us);
		if (readers[i].folio)
			folio_put(readers[i].folio);
	}
	vm_assert_lru_consistent(&f);
	vm_teardown(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_readers_and_reclaim),
		cmocka_unit_test(test_deactivate_against_last_put),
		cmocka_unit_test(test_reclaim_waits_for_held_folios),
		cmocka_unit_test(test_reclaim_stall_outlasts_holders),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
