/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/suite.h - the subcommands of upcache-bench.
 *
 * Each suite is one entry in the table in suites.c: its name, a summary
 * for the usage text, and either a run function or the layer it still
 * needs.  A suite whose layer has not landed stays listed and says so
 * ("not yet implemented: needs mm/filemap.c"); it plugs in by getting a
 * run function.
 *
 * Most suites take the common options (options.h) and fill a report; a
 * few (run, compare) have a grammar of their own (fio's job options) and
 * get the raw arguments instead, through @run_argv, and own their exit
 * status.
 */
#ifndef UPCACHE_TOOLS_BENCH_SUITE_H
#define UPCACHE_TOOLS_BENCH_SUITE_H

#include <stdio.h>

#include "options.h"
#include "output.h"
#include "report.h"

/**
 * typedef bench_suite_fn - run a suite.
 * @opts: The suite's parsed options.
 * @out: Where its table goes (@out->table); main() writes the JSON.
 * @rep: The report to fill, initialised with the suite's name.
 *
 * A check that finds a wrong result ends the run with a message and exit
 * status 2 (bench_die()).
 *
 * Return: 0 once every row was measured and checked.
 */
typedef int (*bench_suite_fn)(const struct bench_options *opts,
			      struct bench_output *out,
			      struct bench_report *rep);

/**
 * typedef bench_argv_fn - run a suite that parses its own arguments.
 * @argc: Number of arguments after the suite's name.
 * @argv: Those arguments.
 *
 * Return: The process's exit status (0 success, BENCH_EXIT_ERROR for
 * any error, or a status the suite documents).
 */
typedef int (*bench_argv_fn)(int argc, char **argv);

/**
 * struct bench_suite - one subcommand.
 * @name: Its name on the command line.
 * @summary: One line for the usage text.
 * @needs: The layer it waits for, or NULL once @run or @run_argv exists.
 * @run: The suite, or NULL while it is not implemented or takes raw
 *	arguments.
 * @run_argv: The suite, if it parses its own arguments; else NULL.
 */
struct bench_suite {
	const char *name;
	const char *summary;
	const char *needs;
	bench_suite_fn run;
	bench_argv_fn run_argv;
};

/**
 * bench_suite_find() - Look a suite up by name.
 * @name: The subcommand.
 *
 * Return: The suite, or NULL if there is none of that name.
 */
const struct bench_suite *bench_suite_find(const char *name);

/**
 * bench_suites_usage() - Print one line per suite.
 * @out: The stream.
 */
void bench_suites_usage(FILE *out);

/* The suites with a run function (one file each, xa_suite.c ...). */
int bench_suite_xarray(const struct bench_options *opts,
		       struct bench_output *out, struct bench_report *rep);
int bench_suite_filemap(const struct bench_options *opts,
			struct bench_output *out, struct bench_report *rep);
int bench_suite_shmem(const struct bench_options *opts,
		      struct bench_output *out, struct bench_report *rep);
int bench_suite_reclaim(const struct bench_options *opts,
			struct bench_output *out, struct bench_report *rep);
int bench_suite_swap(const struct bench_options *opts,
		     struct bench_output *out, struct bench_report *rep);

/* The suites with their own arguments (run_suite.c, cmp_suite.c,
 * seed_suite.c). */
int bench_suite_run_argv(int argc, char **argv);
int bench_suite_compare_argv(int argc, char **argv);
int bench_suite_seeds_argv(int argc, char **argv);

#endif /* UPCACHE_TOOLS_BENCH_SUITE_H */
