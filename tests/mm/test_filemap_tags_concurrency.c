// SPDX-License-Identifier: MIT
/*
 * tests/mm/test_filemap_tags_concurrency.c - what lockless tag lookups
 * see of a folio whose writeback is starting (run under ThreadSanitizer
 * too).
 *
 * An fsync looks for dirty folios by the dirty tag, writes them, then
 * waits for the folios under writeback it finds by the writeback tag;
 * both lookups are lockless (filemap_get_folios_tag()).  A folio that
 * reclaim cleans for its write between the two must show one of the two
 * tags at every moment in between, or the fsync can miss it and return
 * before its data is written.
 *
 * One thread cycles a locked folio through folio_mark_dirty(),
 * folio_clear_dirty_start_writeback() and folio_end_writeback(),
 * publishing an odd generation once the folio is dirty and an even one
 * before its writeback ends: in between it is dirty or under
 * writeback.  The main thread looks the folio up by the dirty
 * tag, then by the writeback tag, as an fsync does, and keeps one
 * sample per cycle, one whose generation was the same odd number
 * before and after:
 * in those, at least one lookup must find the folio.  Swapping the
 * tags in mark order (the dirty tag, mark 0, cleared before the
 * writeback tag, mark 1, was set) left it in neither in about a third
 * of the samples.  The run ends when the main thread has its samples,
 * not after a count of the writer's cycles: under load the writer could
 * finish a fixed count before the main thread ran at all.
 *
 * The writer never calls cmocka; the main thread asserts once it has
 * joined it.
 *
 * The second test runs the same cycle through the batched calls a
 * writeback pass makes, on the folio and its two neighbours together:
 * filemap_dirty_folios(), folio_clear_dirty_set_writeback() on each
 * (the dirty tag stays meanwhile), folios_tag_writeback() and
 * folios_end_writeback().
 */
#include <pthread.h>

#include <urcu/arch.h>

#include "filemap_helpers.h"
#include "rand.h"

#define TAGS_INDEX	100
/*
 * Samples the main thread takes, one per cycle (UPC_STRESS_OPS sets
 * it).  With the tags swapped in mark order, a third to four fifths of
 * the samples found neither tag, so 200 find the fault every time;
 * they come slowly when the two threads share a CPU (under two CPU
 * hogs, a few hundred in six seconds).
 */
#define TAGS_SAMPLES	200UL
/*
 * The writer's cycles at most: far more than the samples need on any
 * machine that runs both threads, so that only a main thread that
 * hardly ran stops the test short.
 */
#define TAGS_MAX_CYCLES	200000000UL

/* The folios the batched writer cycles: TAGS_INDEX and its neighbours. */
#define TAGS_RUN	3

struct tags_writer {
	struct folio *run[TAGS_RUN];	/* run[1] is at TAGS_INDEX */
	bool batched;
	unsigned long gen;	/* atomic: odd while dirty or under writeback */
	int stop;		/* atomic: the reader has its samples */
	int done;		/* atomic */
};

/* One cycle of the one folio at TAGS_INDEX, a folio at a time. */
static void tags_cycle_one(struct tags_writer *w, unsigned long i)
{
	struct folio *folio = w->run[1];

	folio_mark_dirty(folio);
	__atomic_store_n(&w->gen, 2 * i + 1, __ATOMIC_RELEASE);
	folio_clear_dirty_start_writeback(folio);
	__atomic_store_n(&w->gen, 2 * i + 2, __ATOMIC_RELEASE);
	folio_end_writeback(folio);
}

/* One cycle of the run, as a writer and then a writeback pass make it. */
static void tags_cycle_batched(struct tags_writer *w, unsigned long i)
{
	unsigned int k;

	filemap_dirty_folios(w->run[0]->mapping, w->run, TAGS_RUN);
	__atomic_store_n(&w->gen, 2 * i + 1, __ATOMIC_RELEASE);
	for (k = 0; k < TAGS_RUN; k++)
		folio_clear_dirty_set_writeback(w->run[k]);
	folios_tag_writeback(w->run, TAGS_RUN);
	__atomic_store_n(&w->gen, 2 * i + 2, __ATOMIC_RELEASE);
	folios_end_writeback(w->run, TAGS_RUN);
}

static void *tags_writer_fn(void *arg)
{
	struct tags_writer *w = arg;
	unsigned long i;
	unsigned int k;

	for (k = 0; k < TAGS_RUN; k++)
		folio_lock(w->run[k]);
	for (i = 0; i < TAGS_MAX_CYCLES &&
		    !__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE); i++) {
		if (w->batched)
			tags_cycle_batched(w, i);
		else
			tags_cycle_one(w, i);
	}
	for (k = 0; k < TAGS_RUN; k++)
		folio_unlock(w->run[k]);
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Does a lockless lookup by @tag find the folio at TAGS_INDEX? */
static bool tags_found(struct address_space *mapping, xa_mark_t tag)
{
	struct folio_batch fbatch;
	pgoff_t start = TAGS_INDEX;
	unsigned int n;

	folio_batch_init(&fbatch);
	n = filemap_get_folios_tag(mapping, &start, TAGS_INDEX, tag, &fbatch);
	folio_batch_release(&fbatch);
	return n != 0;
}

/*
 * Sample the folio at TAGS_INDEX as an fsync looks for it while a writer
 * cycles it (@batched: with its neighbours, through the batched calls).
 */
static void tags_sample(bool batched)
{
	unsigned long want = upc_test_env_ulong("UPC_STRESS_OPS", TAGS_SAMPLES);
	struct tags_writer w = { .batched = batched };
	unsigned long samples = 0, neither = 0, last = 0;
	struct fm_env env;
	unsigned int k;
	pthread_t t;

	fm_init(&env, 0);
	fm_add_range(&env, 0, 299);	/* a tree of a few nodes */
	for (k = 0; k < TAGS_RUN; k++)
		w.run[k] = xa_load(&env.mapping.i_pages, TAGS_INDEX - 1 + k);
	assert_int_equal(pthread_create(&t, NULL, tags_writer_fn, &w), 0);
	while (samples < want && !__atomic_load_n(&w.done, __ATOMIC_ACQUIRE)) {
		unsigned long g1 = __atomic_load_n(&w.gen, __ATOMIC_ACQUIRE);
		bool dirty, writeback;

		/* One sample per cycle: a writer stopped mid-cycle would
		 * give thousands of the same moment. */
		if (!(g1 & 1) || g1 == last)
			continue;
		dirty = tags_found(&env.mapping, PAGECACHE_TAG_DIRTY);
		writeback = tags_found(&env.mapping, PAGECACHE_TAG_WRITEBACK);
		cmm_smp_rmb();
		if (__atomic_load_n(&w.gen, __ATOMIC_RELAXED) != g1)
			continue;
		last = g1;
		samples++;
		neither += !dirty && !writeback;
	}
	__atomic_store_n(&w.stop, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(t, NULL), 0);
	print_message("# %lu samples inside a writeback start, %lu in neither "
		      "tag\n", samples, neither);
	assert_int_equal(neither, 0);
	assert_int_equal(samples, want);
	fm_fini(&env);
}

static void test_start_writeback_always_tagged(void **state)
{
	(void)state;
	tags_sample(false);
}

static void test_batched_writeback_always_tagged(void **state)
{
	(void)state;
	tags_sample(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_start_writeback_always_tagged),
		cmocka_unit_test(test_batched_writeback_always_tagged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
