/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/run_spec.h - everything one `upcache-bench run` was asked
 * to do: its jobs, in order, and where the results go.
 *
 * Jobs come from fio job files (run_jobfile.c) and from the command line
 * (run_cmdline.c), which follows fio's: options before the first --name
 * apply to every job (they are the base the job files' [global] sections
 * start from), and each --name=NAME starts a job whose options follow
 * it.
 *
 * Pure code (no upcache calls), compiled into tests/bench/ directly.
 */
#ifndef UPCACHE_TOOLS_BENCH_RUN_SPEC_H
#define UPCACHE_TOOLS_BENCH_RUN_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#include "run_options.h"

#define RUN_MAX_JOBS	64

/**
 * struct run_spec - the jobs of one run and its output settings.
 * @jobs: The resolved jobs, in the order they were given.
 * @nr_jobs: Number of @jobs.
 * @json: Write the JSON object (--output-format=json or --json).
 * @json_path: File for the JSON, or NULL for stdout.
 * @normal: Print fio's normal text output (not with
 *	--output-format=json alone).
 * @help: --help was given.
 */
struct run_spec {
	struct run_job jobs[RUN_MAX_JOBS];
	size_t nr_jobs;
	bool json;
	const char *json_path;
	bool normal;
	bool help;
};

/**
 * run_jobfile_parse() - Add the jobs of a fio job file's text.
 * @text: The file's contents, NUL-terminated.
 * @fname: The file's name, for messages.
 * @base: Options every job starts from (the command line's globals).
 * @spec: Where the jobs are appended.
 * @err: Buffer for a one-line message naming the file and line.
 * @errlen: Size of @err.
 *
 * INI as fio reads it: "[name]" starts a section, "[global]" one whose
 * options become the base of every job section after it, "key=value" or
 * a bare "key" sets an option, and lines starting with '#' or ';' are
 * comments.  Whitespace around keys and values is dropped.
 *
 * Return: 0; -EINVAL for a syntax error, an unsupported option or a bad
 * value, a job that does not resolve, or more than RUN_MAX_JOBS jobs.
 */
int run_jobfile_parse(const char *text, const char *fname,
		      const struct run_opts *base, struct run_spec *spec,
		      char *err, size_t errlen);

/**
 * run_jobfile_load() - Read a fio job file and add its jobs.
 * @path: The file.
 * @base: As run_jobfile_parse().
 * @spec: As run_jobfile_parse().
 * @err: As run_jobfile_parse().
 * @errlen: As run_jobfile_parse().
 *
 * Return: As run_jobfile_parse(); -ENOENT (or another -errno) if the
 * file cannot be read, with a message.
 */
int run_jobfile_load(const char *path, const struct run_opts *base,
		     struct run_spec *spec, char *err, size_t errlen);

/**
 * run_parse_args() - Parse `upcache-bench run`'s arguments.
 * @argc: Number of arguments.
 * @argv: The arguments after "run"; kept by reference (@spec->json_path).
 * @spec: The result, zeroed first (run_spec_free() it even on error).
 * @err: Buffer for a one-line message.
 * @errlen: Size of @err.
 *
 * Besides the job options as --option=value (or --option value, or a
 * bare --flag), takes --output-format=normal|json, --json [FILE] and
 * -h/--help; other arguments are job files.
 *
 * Return: 0; -EINVAL for bad input, described in @err; -ENOENT if a job
 * file is missing.
 */
int run_parse_args(int argc, char **argv, struct run_spec *spec, char *err,
		   size_t errlen);

/**
 * run_spec_add_job() - Resolve @o and append it as a job.
 * @spec: The spec.
 * @o: The job's options.
 * @section: Its section name.
 * @err: Message buffer.
 * @errlen: Its size.
 *
 * Return: 0, or -EINVAL (the job does not resolve, or too many jobs).
 */
int run_spec_add_job(struct run_spec *spec, const struct run_opts *o,
		     const char *section, char *err, size_t errlen);

/**
 * run_spec_free() - Free the jobs; @spec is left empty.
 * @spec: The spec.
 */
void run_spec_free(struct run_spec *spec);

#endif /* UPCACHE_TOOLS_BENCH_RUN_SPEC_H */
