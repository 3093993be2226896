// SPDX-License-Identifier: MIT
/*
 * tools/bench/measure.c - timing cases over interleaved rounds.
 *
 * Owns the order in which hooks run and what is timed; the cases own
 * what they do.  Conventions: @c is a case, @m its measurement, @r a
 * round number.
 */
#include <string.h>

#include "clock.h"
#include "measure.h"
#include "util.h"

/* measure_hook() - Call an optional hook. */
static void measure_hook(void (*hook)(void *), void *arg)
{
	if (hook)
		hook(arg);
}

/**
 * bench_time_body() - Time one call of a body and count its events.
 * @body: The body.
 * @arg: Its argument.
 * @s: Filled with the body's time, operations and counts.
 *
 * Context: The calling thread's counters are read.
 */
void bench_time_body(uint64_t (*body)(void *arg), void *arg,
		     struct bench_sample *s)
{
	struct upc_thread_stats snap;
	uint64_t t0;

	memset(s, 0, sizeof(*s));
	upc_stats_thread(&snap);
	t0 = bench_now_ns();
	s->ops = body(arg);
	s->ns = bench_now_ns() - t0;
	bench_counts_add_since(&s->counts, &snap, s->ops);
}

/* measure_sample() - Run one round of @c and return what it yields. */
static void measure_sample(const struct bench_case *c, struct bench_sample *s)
{
	if (c->run) {
		c->run(c->arg, s);
		return;
	}
	measure_hook(c->setup, c->arg);
	if (c->rewarm)
		c->body(c->arg);
	bench_time_body(c->body, c->arg, s);
	measure_hook(c->teardown, c->arg);
}

/* measure_round() - Run timed round @r of @c and record it in @m. */
static void measure_round(const struct bench_case *c, unsigned int r,
			  struct bench_measurement *m)
{
	struct bench_sample s;

	measure_sample(c, &s);
	if (!s.ops || !s.ns)
		bench_die("%s: round %u timed %llu operations in %llu ns",
			  c->name, r + 1, (unsigned long long)s.ops,
			  (unsigned long long)s.ns);
	m->ns_per_op[r] = (double)s.ns / (double)s.ops;
	m->ops_per_round = s.ops;
	m->rounds = r + 1;
	bench_counts_merge(&m->counts, &s.counts);
}

/* measure_progress() - Show how far the rounds have got. */
static void measure_progress(FILE *progress, unsigned int done,
			     unsigned int total)
{
	if (!progress)
		return;
	if (done < total)
		fprintf(progress, "\rmeasuring: round %u/%u ", done + 1, total);
	else
		fputs("\r                            \r", progress);
	fflush(progress);
}

/**
 * bench_measure_cases() - Measure cases in interleaved rounds.
 * @cases: The cases.
 * @nr_cases: How many.
 * @warmups: Untimed rounds of each case first.
 * @rounds: Timed rounds of each case.
 * @m: One result per case.
 * @progress: Stream for a progress line, or NULL.
 *
 * Context: Runs every hook on the calling thread.
 */
void bench_measure_cases(const struct bench_case *cases, size_t nr_cases,
			 unsigned int warmups, unsigned int rounds,
			 struct bench_measurement *m, FILE *progress)
{
	struct bench_sample unused;
	unsigned int r;
	size_t i;

	if (rounds < 1 || rounds > BENCH_MAX_ROUNDS)
		bench_die("%u rounds (1..%d)", rounds, BENCH_MAX_ROUNDS);
	memset(m, 0, nr_cases * sizeof(*m));
	for (i = 0; i < nr_cases; i++)
		measure_hook(cases[i].prepare, cases[i].arg);
	for (r = 0; r < warmups + rounds; r++) {
		size_t k;

		measure_progress(progress, r, warmups + rounds);
		/*
		 * Odd rounds run the cases backwards, so that of two
		 * neighbours (a pair's two sides) each goes first in half
		 * the rounds, instead of one always inheriting the caches,
		 * TLB and node pool the other left.
		 */
		for (k = 0; k < nr_cases; k++) {
			i = r & 1 ? nr_cases - 1 - k : k;
			if (r < warmups)
				measure_sample(&cases[i], &unused);
			else
				measure_round(&cases[i], r - warmups, &m[i]);
		}
	}
	measure_progress(progress, warmups + rounds, warmups + rounds);
	for (i = 0; i < nr_cases; i++) {
		measure_hook(cases[i].finish, cases[i].arg);
		if (bench_summarize(m[i].ns_per_op, m[i].rounds, &m[i].ns))
			bench_die("%s: cannot summarise %u rounds",
				  cases[i].name, m[i].rounds);
	}
}
