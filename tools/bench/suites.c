// SPDX-License-Identifier: MIT
/*
 * tools/bench/suites.c - the table of upcache-bench's subcommands.
 *
 * Owns which suites exist and which of them can run yet.
 *
 * To plug in a suite: write its bench_suite_fn in its own file, declare
 * it in suite.h, and replace its NULL run below (dropping its "needs").
 */
#include <string.h>

#include "suite.h"

#define SUITE(name, summary, fn) \
	{ name, summary, NULL, fn, NULL }
#define SUITE_ARGV(name, summary, fn) \
	{ name, summary, NULL, NULL, fn }
#define SUITE_NEEDS(name, summary, needs) \
	{ name, summary, needs, NULL, NULL }

static const struct bench_suite bench_suites[] = {
	SUITE("xarray", "XArray micro-benchmarks: ns/op, counters, kernel refs",
	      bench_suite_xarray),
	SUITE("filemap", "page cache add/grab/contig paths vs their baselines",
	      bench_suite_filemap),
	SUITE("shmem",
	      "seed 002: shmem sequential reads, batched vs per-folio vs tmpfs",
	      bench_suite_shmem),
	SUITE("reclaim",
	      "seed 000: random reads over a file twice the memory limit",
	      bench_suite_reclaim),
	SUITE("swap", "seed 003: memhog with swap, swap cache keyed inside "
	      "vs by full offset", bench_suite_swap),
	SUITE_ARGV("seeds", "every seed experiment (000-004), before/after/"
		   "kernel (seeds --help)", bench_suite_seeds_argv),
	SUITE_ARGV("run", "fio-like jobs on upcache engines and kernel "
		   "baselines (run --help)", bench_suite_run_argv),
	SUITE_ARGV("compare", "two job configurations interleaved A B A B ..., "
		   "median ratios (compare --help)", bench_suite_compare_argv),
};

#define NR_SUITES	(sizeof(bench_suites) / sizeof(bench_suites[0]))

/**
 * bench_suite_find() - Look a suite up by name.
 * @name: The subcommand.
 *
 * Return: The suite, or NULL.
 */
const struct bench_suite *bench_suite_find(const char *name)
{
	size_t i;

	for (i = 0; i < NR_SUITES; i++)
		if (!strcmp(bench_suites[i].name, name))
			return &bench_suites[i];
	return NULL;
}

/**
 * bench_suites_usage() - Print one line per suite.
 * @out: The stream.
 */
void bench_suites_usage(FILE *out)
{
	size_t i;

	for (i = 0; i < NR_SUITES; i++) {
		const struct bench_suite *s = &bench_suites[i];

		fprintf(out, "  %-9s %s\n", s->name, s->summary);
		if (!s->run && !s->run_argv)
			fprintf(out, "%12snot yet implemented: needs %s\n",
				"", s->needs);
	}
}
