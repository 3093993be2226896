// SPDX-License-Identifier: MIT
/*
 * tools/bench/run_suite.c - the `upcache-bench run` subcommand.
 *
 *	upcache-bench run [--output-format=normal|json] [--json [FILE]]
 *			  [job options] [jobfile ...] [--name=NAME opts ...]
 *
 * Owns the subcommand's flow and its exit status: parse (run_cmdline.c,
 * run_jobfile.c), run (run_exec.c), print fio's text and the JSON
 * object {"benchmark": "run", ..., "rows": [...]} (run_report.c), and
 * Ctrl-C: the first SIGINT stops every job after its current operation
 * and the figures measured so far are printed; the exit status is then
 * RUN_EXIT_INTERRUPTED (130, a shell's 128 + SIGINT), so scripts can
 * tell a cut-short run from a complete one.  A second Ctrl-C kills the
 * process (the handler is reset after the first).
 *
 * Exit status: 0 success; 2 bad input (unknown or unsupported option,
 * bad size or time, missing job file or directory), an engine not yet
 * implemented, a failed setup or operation; 130 stopped by Ctrl-C.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output.h"
#include "run_report.h"
#include "run_suite.h"
#include "suite.h"
#include "util.h"

/* run_sigint() - First Ctrl-C: ask the jobs to stop (SA_RESETHAND). */
static void run_sigint(int sig)
{
	(void)sig;
	run_request_stop();
}

/**
 * bench_run_sigint_install() - Catch the first SIGINT as a stop request.
 * @old: Receives the previous action, for bench_run_sigint_restore().
 */
void bench_run_sigint_install(struct sigaction *old)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = run_sigint;
	sa.sa_flags = SA_RESTART | SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, old);
}

/**
 * bench_run_sigint_restore() - Put back the SIGINT action from before.
 * @old: What bench_run_sigint_install() saved.
 */
void bench_run_sigint_restore(const struct sigaction *old)
{
	sigaction(SIGINT, old, NULL);
}

/* run_usage() - The subcommand's help. */
static void run_usage(FILE *out)
{
	fputs("usage: upcache-bench run [--output-format=normal|json] "
	      "[--json [FILE]]\n"
	      "                         [global options] [jobfile ...] "
	      "[--name=NAME [options] ...]\n\n"
	      "Runs fio jobs on upcache engines and kernel baselines in one "
	      "process.\nJob options (as --opt=value, --opt value, or "
	      "opt=value in a job file):\n", out);
	run_options_usage(out);
	fputs("\nSizes: k/m/g/t/p are powers of 1024 (kb_base=1024); times: "
	      "us/ms/s/m/h/d, seconds\nby default.  Jobs always run as "
	      "threads.  Exit status: 0 success, 2 error,\n130 stopped by "
	      "Ctrl-C (the figures so far are printed).  See docs/bench.md."
	      "\n", out);
}

/* run_report_meta() - Facts about the whole run, for the JSON. */
static void run_report_meta(struct bench_report *rep,
			    const struct run_spec *spec,
			    const struct run_outcome *res)
{
	bench_row_set_num(&rep->meta, "jobs", (double)spec->nr_jobs);
	bench_row_set_num(&rep->meta, "groups", res->nr_groups);
	bench_row_set_num(&rep->meta, "interrupted", res->interrupted);
}

/* run_finish() - Print the results and write the JSON. */
static int run_finish(const struct run_spec *spec,
		      const struct run_outcome *res, struct bench_output *out)
{
	struct bench_report rep;
	int status = res->interrupted ? RUN_EXIT_INTERRUPTED : 0;

	if (spec->normal)
		run_report_text(out->table, res);
	bench_report_init(&rep, "run");
	run_report_meta(&rep, spec, res);
	run_report_rows(&rep, res);
	if (bench_output_finish(out, &rep))
		status = BENCH_EXIT_ERROR;
	bench_report_free(&rep);
	return status;
}

/**
 * bench_suite_run_argv() - `upcache-bench run`.
 * @argc: Number of arguments after "run".
 * @argv: The arguments.
 *
 * Return: The exit status (0, 2 or 130).
 */
int bench_suite_run_argv(int argc, char **argv)
{
	struct bench_options opts = { 0 };
	struct bench_output out;
	struct run_outcome res;
	struct sigaction old;
	struct run_spec *spec = bench_xcalloc(1, sizeof(*spec));
	char err[400];
	int status, ret;

	if (run_parse_args(argc, argv, spec, err, sizeof(err))) {
		fprintf(stderr, "upcache-bench run: %s (try --help)\n", err);
		run_spec_free(spec);
		free(spec);
		return BENCH_EXIT_ERROR;
	}
	if (spec->help) {
		run_usage(stdout);
		run_spec_free(spec);
		free(spec);
		return 0;
	}
	opts.json = spec->json;
	opts.json_path = spec->json_path;
	if (bench_output_open(&opts, &out)) {
		run_spec_free(spec);
		free(spec);
		return BENCH_EXIT_ERROR;
	}
	run_stop_reset();
	bench_run_sigint_install(&old);
	ret = run_execute(spec, &res, isatty(fileno(out.table)) ? out.table :
			  NULL, err, sizeof(err));
	bench_run_sigint_restore(&old);
	if (ret) {
		fprintf(stderr, "upcache-bench run: %s\n", err);
		if (out.json_path && out.json)
			fclose(out.json);
		status = BENCH_EXIT_ERROR;
	} else {
		status = run_finish(spec, &res, &out);
	}
	run_outcome_free(&res);
	run_spec_free(spec);
	free(spec);
	return status;
}
