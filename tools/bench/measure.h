/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/measure.h - timing cases over interleaved rounds.
 *
 * A case is a timed body plus untimed hooks around it:
 *
 *	prepare                         once, before anything else
 *	  warm-up rounds, then rounds 1..R, each:
 *	    setup   [body]   body   teardown
 *	            rewarm   timed
 *	finish                          once, after the last round
 *
 * Only the timed body is timed and counted (upcache's per-thread
 * counters, counters.h).  A case that runs threads times itself instead
 * through @run, which replaces setup, body and teardown.
 *
 * Several cases are measured together, round-robin: round 1 of every
 * case, then round 2 of every case, and so on.  A slow phase of a shared
 * machine (another job, a frequency drop) then costs every case one round
 * out of R instead of costing one case all of its rounds, and the median
 * over rounds discards it.  Each round yields ns per operation; a
 * figure is the median of its case's rounds, with their min and max.
 */
#ifndef UPCACHE_TOOLS_BENCH_MEASURE_H
#define UPCACHE_TOOLS_BENCH_MEASURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "counters.h"
#include "options.h"
#include "samples.h"

/**
 * struct bench_sample - what one timed round of a case yields.
 * @ns: Nanoseconds of its timed part (summed over threads).
 * @ops: Operations in it (summed over threads).
 * @counts: Counter totals of the timed part (all threads).
 */
struct bench_sample {
	uint64_t ns;
	uint64_t ops;
	struct bench_counts counts;
};

/**
 * struct bench_case - one measurable operation loop.
 * @name: Name, for messages.
 * @arg: Passed to every hook.
 * @prepare: Optional; once before the first round.
 * @setup: Optional; before each timed body.
 * @body: The timed loop.  Returns the number of operations it ran.
 * @teardown: Optional; after each timed body.
 * @finish: Optional; once after the last round.
 * @run: Optional; a round that times and counts itself (threads), used
 *	instead of @setup, @body and @teardown.
 * @rewarm: Run @body once, untimed, before each timed body: for bodies
 *	that only read, so the data they read is back in the caches after
 *	the other cases of the round evicted it.
 */
struct bench_case {
	const char *name;
	void *arg;
	void (*prepare)(void *arg);
	void (*setup)(void *arg);
	uint64_t (*body)(void *arg);
	void (*teardown)(void *arg);
	void (*finish)(void *arg);
	void (*run)(void *arg, struct bench_sample *s);
	bool rewarm;
};

/**
 * struct bench_measurement - the result of measuring a case.
 * @rounds: Timed rounds run.
 * @ns_per_op: ns per operation of each timed round.
 * @ns: Median, min and max of @ns_per_op.
 * @ops_per_round: Operations of the last timed round.
 * @counts: Counter totals over every timed round (warm-ups excluded).
 */
struct bench_measurement {
	unsigned int rounds;
	double ns_per_op[BENCH_MAX_ROUNDS];
	struct bench_summary ns;
	uint64_t ops_per_round;
	struct bench_counts counts;
};

/**
 * bench_time_body() - Time one call of a body and count its events.
 * @body: The body.
 * @arg: Its argument.
 * @s: Filled with the body's time, operations and counts.
 *
 * The building block of a round, exported for @run hooks whose threads
 * each time their own body.
 *
 * Context: The calling thread's counters are read.
 */
void bench_time_body(uint64_t (*body)(void *arg), void *arg,
		     struct bench_sample *s);

/**
 * bench_measure_cases() - Measure cases in interleaved rounds.
 * @cases: The cases.
 * @nr_cases: How many.
 * @warmups: Untimed rounds of each case before the timed ones.
 * @rounds: Timed rounds of each case, 1..BENCH_MAX_ROUNDS.
 * @m: One result per case.
 * @progress: Stream for a "round r/R" progress line, or NULL.
 *
 * Every case is prepared before the first round and finished after the
 * last, so the inputs of all cases exist side by side.  Odd rounds run
 * the cases in reverse order, so that of two neighbours each goes first
 * in half the rounds.  Dies (exit status 2) if a round timed no
 * operation.
 *
 * Context: Runs every hook on the calling thread.
 */
void bench_measure_cases(const struct bench_case *cases, size_t nr_cases,
			 unsigned int warmups, unsigned int rounds,
			 struct bench_measurement *m, FILE *progress);

#endif /* UPCACHE_TOOLS_BENCH_MEASURE_H */
