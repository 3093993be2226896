// SPDX-License-Identifier: MIT
/*
 * tools/bench/main.c - upcache-bench: parse the command line, run a suite.
 *
 *	upcache-bench <suite> [--quick] [--json [FILE]] [--rounds N] [--size N]
 *	upcache-bench swap ... [--swap-file PATH]
 *	upcache-bench run [fio job options] [jobfile ...]
 *	upcache-bench compare [--rounds N] -- <options A> -- <options B>
 *
 * Owns the command line's first word (the suite) and the exit status:
 * 0 success; 2 any error (unknown suite or option, bad number or size,
 * a suite not implemented yet, an unwritable JSON file, a wrong result
 * from the library).  The options themselves are options.c's, except
 * for run and compare, which parse their own (fio's job options) and
 * return their own status (also 130 after Ctrl-C; run_suite.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "output.h"
#include "report.h"
#include "suite.h"
#include "util.h"

/* usage() - Print the usage text. */
static void usage(FILE *out)
{
	fputs("usage: upcache-bench <suite> [options]\n\nsuites:\n", out);
	bench_suites_usage(out);
	fprintf(out, "\noptions:\n"
		"  --quick        smaller sizes, fewer rounds"
		" (well under a minute)\n"
		"  --json [FILE]  write the suite's JSON object to FILE"
		" (also --json=FILE);\n"
		"                 without FILE, or with '-', to stdout, and"
		" the table to stderr\n"
		"  --rounds N     timed rounds per figure, 1..%d"
		" (figures are medians of rounds)\n"
		"  --size N       entries of the main array: N, NK or NM,"
		" %luK..%luM\n"
		"  --swap-file PATH  swap: swap to files PATH and PATH.whole"
		" instead of memory\n"
		"  -h, --help     this text\n"
		"\nrun and compare take fio's job options instead:"
		" 'upcache-bench run --help'.\n"
		"\nexit status: 0 success, 2 any error"
		" (run/compare: 130 after Ctrl-C)\n",
		BENCH_MAX_ROUNDS, BENCH_MIN_SIZE >> 10, BENCH_MAX_SIZE >> 20);
}

/* run_suite() - Run @suite with its options; returns the exit status. */
static int run_suite(const struct bench_suite *suite,
		     const struct bench_options *opts)
{
	struct bench_output out;
	struct bench_report rep;
	int status;

	if (!suite->run) {
		fprintf(stderr, "upcache-bench %s: not yet implemented: "
			"needs %s\n", suite->name, suite->needs);
		return BENCH_EXIT_ERROR;
	}
	if (bench_output_open(opts, &out))
		return BENCH_EXIT_ERROR;
	bench_report_init(&rep, suite->name);
	status = suite->run(opts, &out, &rep) ? BENCH_EXIT_ERROR : 0;
	if (bench_output_finish(&out, &rep))
		status = BENCH_EXIT_ERROR;
	bench_report_free(&rep);
	return status;
}

/* is_help() - Is @arg a request for the usage text? */
static int is_help(const char *arg)
{
	return !strcmp(arg, "-h") || !strcmp(arg, "--help") ||
		!strcmp(arg, "help");
}

int main(int argc, char **argv)
{
	const struct bench_suite *suite;
	struct bench_options opts;

	if (argc < 2) {
		usage(stderr);
		return BENCH_EXIT_ERROR;
	}
	if (is_help(argv[1])) {
		usage(stdout);
		return EXIT_SUCCESS;
	}
	suite = bench_suite_find(argv[1]);
	if (!suite) {
		fprintf(stderr, "upcache-bench: unknown suite '%s' "
			"(try --help)\n", argv[1]);
		return BENCH_EXIT_ERROR;
	}
	if (suite->run_argv)
		return suite->run_argv(argc - 2, argv + 2);
	if (bench_options_from_argv(suite->name, argc - 2, argv + 2, &opts,
				    stderr))
		return BENCH_EXIT_ERROR;
	if (opts.help) {
		usage(stdout);
		return EXIT_SUCCESS;
	}
	bench_options_apply_env(&opts, getenv("UPC_BENCH_TINY"));
	return run_suite(suite, &opts);
}
