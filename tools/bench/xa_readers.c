// SPDX-License-Identifier: MIT
/*
 * tools/bench/xa_readers.c - random xa_load() by several threads at once.
 *
 * Owns the threads of the load_random_Nthreads rows.  Readers of an
 * XArray take no lock and write no shared cache line (RCU's read side is
 * a thread-local counter in liburcu's bulletproof flavour), so the load
 * rate of each thread should not drop as threads are added, up to the
 * number of cores.  Each thread loads every dense index once, in the
 * shuffled order of @perm, starting at its own offset so that the
 * threads do not walk the same nodes in lockstep.
 *
 * Thread start-up is kept out of the timing: every thread registers with
 * RCU and runs its loads once untimed (as the single-threaded load rows
 * rewarm: the rows before this one evicted the array from the caches),
 * then all wait on a barrier, then each loads again, timed.
 *
 * The figure is wall-clock: from the first thread leaving the barrier to
 * the last one finishing.  Per-thread times would hide a shortage of
 * cores (two threads time-sliced on one core each look as fast as one
 * alone); the wall clock shows it as half the rate per thread.
 */
#include <pthread.h>
#include <string.h>

#include "clock.h"
#include "util.h"
#include "xa_cases.h"

#define READERS_MAX	64

/**
 * struct reader - one thread of a round.
 * @b: The shared state.
 * @offset: Where in @b->perm this thread starts.
 * @start: Barrier released once every thread is ready.
 * @t0: Clock when it left the barrier.
 * @t1: Clock when it finished its loads.
 * @sample: Its loads and counts.
 */
struct reader {
	struct xa_bench *b;
	size_t offset;
	pthread_barrier_t *start;
	uint64_t t0;
	uint64_t t1;
	struct bench_sample sample;
};

/* reader_body() - Load every dense index once, from @offset on. */
static uint64_t reader_body(void *arg)
{
	struct reader *r = arg;
	size_t n = r->b->scale->nr_entries;
	const char *row = "load_random_threads";

	return xab_load_indices(&r->b->dense, r->b->perm + r->offset,
				n - r->offset, 0, row) +
		xab_load_indices(&r->b->dense, r->b->perm, r->offset, 0, row);
}

/* reader_thread() - Warm up, wait for the others, then time the loads. */
static void *reader_thread(void *arg)
{
	struct reader *r = arg;

	reader_body(r);
	pthread_barrier_wait(r->start);
	r->t0 = bench_now_ns();
	bench_time_body(reader_body, r, &r->sample);
	r->t1 = bench_now_ns();
	return NULL;
}

/**
 * xab_readers_run() - One round of random loads by several threads.
 * @arg: A struct xab_readers.
 * @s: The round's sample: loads and counts summed over the threads, and
 *	the wall-clock time times the threads (so @s->ns / @s->ops is the
 *	time per load of one thread).
 */
void xab_readers_run(void *arg, struct bench_sample *s)
{
	struct xab_readers *rd = arg;
	struct reader readers[READERS_MAX];
	pthread_t tids[READERS_MAX];
	pthread_barrier_t start;
	unsigned int t, n = rd->threads;
	uint64_t t0 = UINT64_MAX, t1 = 0;
	int err;

	if (n < 1 || n > READERS_MAX)
		bench_die("xarray: %u reader threads (1..%d)", n, READERS_MAX);
	if (pthread_barrier_init(&start, NULL, n))
		bench_die("xarray: pthread_barrier_init failed");
	for (t = 0; t < n; t++) {
		readers[t] = (struct reader) {
			.b = rd->b,
			.offset = rd->b->scale->nr_entries / n * t,
			.start = &start,
		};
		err = pthread_create(&tids[t], NULL, reader_thread,
				     &readers[t]);
		if (err)
			bench_die("xarray: cannot start reader thread: %s",
				  strerror(err));
	}
	memset(s, 0, sizeof(*s));
	for (t = 0; t < n; t++) {
		pthread_join(tids[t], NULL);
		t0 = readers[t].t0 < t0 ? readers[t].t0 : t0;
		t1 = readers[t].t1 > t1 ? readers[t].t1 : t1;
		s->ops += readers[t].sample.ops;
		bench_counts_merge(&s->counts, &readers[t].sample.counts);
	}
	s->ns = (t1 - t0) * n;
	pthread_barrier_destroy(&start);
}
