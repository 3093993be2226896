// SPDX-License-Identifier: MIT
/*
 * tools/bench/run_cmdline.c - `upcache-bench run`'s command line.
 *
 * Owns fio's command-line form of jobs: every job option is also a long
 * option (--bs=4k, --rw randread, --time_based), options before the
 * first --name are global, --name starts a job, and any other word is a
 * job file.  Also owns the few options that are the tool's, not a job's
 * (--output-format, --json, --help), and the job list (struct run_spec).
 *
 * Conventions: @spec is the result, @err/@errlen the message buffer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "run_spec.h"
#include "util.h"

/**
 * run_spec_add_job() - Resolve @o and append it as a job.
 * @spec: The spec.
 * @o: The job's options.
 * @section: Its section name.
 * @err: Message buffer.
 * @errlen: Its size.
 *
 * Return: 0, or -EINVAL.
 */
int run_spec_add_job(struct run_spec *spec, const struct run_opts *o,
		     const char *section, char *err, size_t errlen)
{
	if (spec->nr_jobs >= RUN_MAX_JOBS) {
		snprintf(err, errlen, "more than %d jobs", RUN_MAX_JOBS);
		return -EINVAL;
	}
	if (run_job_resolve(o, section, &spec->jobs[spec->nr_jobs], err,
			    errlen)) {
		run_job_free(&spec->jobs[spec->nr_jobs]);
		return -EINVAL;
	}
	spec->nr_jobs++;
	return 0;
}

/**
 * run_spec_free() - Free the jobs.
 * @spec: The spec.
 */
void run_spec_free(struct run_spec *spec)
{
	size_t i;

	for (i = 0; i < spec->nr_jobs; i++)
		run_job_free(&spec->jobs[i]);
	spec->nr_jobs = 0;
}

/*
 * cmd_tool_option() - Handle an option of the tool rather than of a job.
 * Return: 1 if @name was one (*@used_next set when @next was its value),
 * 0 if not, -EINVAL on a bad value.
 */
static int cmd_tool_option(const char *name, const char *value,
			   const char *next, bool *used_next,
			   struct run_spec *spec, char *err, size_t errlen)
{
	if (!strcmp(name, "help") || !strcmp(name, "h")) {
		spec->help = true;
		return 1;
	}
	if (!strcmp(name, "json")) {
		if (!value && next && (next[0] != '-' || !strcmp(next, "-")) &&
		    bench_json_word_is_file(next)) {
			value = next;
			*used_next = true;
		}
		if (bench_json_path(value, &spec->json_path, err, errlen))
			return -EINVAL;
		spec->json = true;
		return 1;
	}
	if (strcmp(name, "output-format"))
		return 0;
	if (!value && next) {
		value = next;
		*used_next = true;
	}
	if (value && !strcmp(value, "json")) {
		spec->json = true;
		spec->normal = false;
	} else if (value && !strcmp(value, "normal")) {
		spec->normal = true;
	} else if (value && (!strcmp(value, "json,normal") ||
			     !strcmp(value, "normal,json"))) {
		spec->json = true;
		spec->normal = true;
	} else {
		snprintf(err, errlen, "--output-format=%s: not supported "
			 "(normal, json or both)", value ? value : "");
		return -EINVAL;
	}
	return 1;
}

/*
 * cmd_split() - Split "--name=value" (or "-h") into @name and @value.
 * Return: 0, or -EINVAL for an over-long name.
 */
static int cmd_split(const char *arg, char *name, size_t len,
		     const char **value)
{
	const char *s = arg + (arg[1] == '-' ? 2 : 1);
	const char *eq = strchr(s, '=');
	size_t n = eq ? (size_t)(eq - s) : strlen(s);

	if (n >= len)
		return -EINVAL;
	memcpy(name, s, n);
	name[n] = '\0';
	*value = eq ? eq + 1 : NULL;
	return 0;
}

/**
 * struct cmd_state - the command line being read.
 * @global: Options before the first --name.
 * @job: Options of the job being read.
 * @section: That job's --name ("" before the first).
 * @jobfiles: Whether a job file was named.
 * @pending: The job files named, not yet read: they are read once the
 *	global options are all known (at the first --name, or the end),
 *	so that, as in fio, a global option after a job file applies to it.
 * @nr_pending: How many.
 */
struct cmd_state {
	struct run_opts global;
	struct run_opts job;
	char section[RUN_NAME_MAX];
	bool jobfiles;
	const char **pending;
	int nr_pending;
};

/* cmd_load_jobfiles() - Read the job files named so far, in order. */
static int cmd_load_jobfiles(struct cmd_state *st, struct run_spec *spec,
			     char *err, size_t errlen)
{
	int i, ret = 0;

	for (i = 0; i < st->nr_pending && !ret; i++)
		ret = run_jobfile_load(st->pending[i], &st->global, spec, err,
				       errlen);
	st->nr_pending = 0;
	return ret;
}

/* cmd_end_job() - Finish the --name job being read, if any. */
static int cmd_end_job(struct cmd_state *st, struct run_spec *spec,
		       char *err, size_t errlen)
{
	if (!st->section[0])
		return 0;
	return run_spec_add_job(spec, &st->job, st->section, err, errlen);
}

/* cmd_job_option() - Handle a job option (--name included). */
static int cmd_job_option(struct cmd_state *st, const char *name,
			  const char *value, const char *next,
			  bool *used_next, struct run_spec *spec, char *err,
			  size_t errlen)
{
	struct run_opts probe = { { NULL } };
	int ret;

	/*
	 * Whether a separate next word is the value depends on the option's
	 * kind: a bool never takes one.  Probing with the bare name tells.
	 */
	if (!value && next && next[0] != '-' &&
	    run_opts_set(&probe, name, NULL, err, errlen)) {
		value = next;
		*used_next = true;
	}
	run_opts_free(&probe);
	if (!strcmp(name, "name")) {
		ret = cmd_load_jobfiles(st, spec, err, errlen);
		if (!ret)
			ret = cmd_end_job(st, spec, err, errlen);
		if (ret)
			return ret;
		if (!value || !*value || strlen(value) >= RUN_NAME_MAX) {
			snprintf(err, errlen, "--name needs a name of 1..%d "
				 "characters", RUN_NAME_MAX - 1);
			return -EINVAL;
		}
		snprintf(st->section, sizeof(st->section), "%s", value);
		run_opts_copy(&st->job, &st->global);
	}
	return run_opts_set(st->section[0] ? &st->job : &st->global, name,
			    value, err, errlen);
}

/* cmd_arg() - Handle argument @arg, with @next after it (or NULL). */
static int cmd_arg(struct cmd_state *st, const char *arg, const char *next,
		   bool *used_next, struct run_spec *spec, char *err,
		   size_t errlen)
{
	const char *value;
	char name[64];
	int ret;

	if (arg[0] != '-' || !strcmp(arg, "-")) {
		if (st->section[0]) {
			snprintf(err, errlen, "job file '%s' after --name: "
				 "give job files first", arg);
			return -EINVAL;
		}
		st->jobfiles = true;
		st->pending[st->nr_pending++] = arg;
		return 0;
	}
	if (!strcmp(arg, "--") ||
	    cmd_split(arg, name, sizeof(name), &value)) {
		snprintf(err, errlen, "unknown option '%.60s'", arg);
		return -EINVAL;
	}
	ret = cmd_tool_option(name, value, next, used_next, spec, err, errlen);
	if (ret)
		return ret < 0 ? ret : 0;
	return cmd_job_option(st, name, value, next, used_next, spec, err,
			      errlen);
}

/**
 * run_parse_args() - Parse `upcache-bench run`'s arguments.
 * @argc: Number of arguments.
 * @argv: The arguments after "run".
 * @spec: The result.
 * @err: Message buffer.
 * @errlen: Its size.
 *
 * Return: 0, -EINVAL or a job file's -errno, with a message.
 */
int run_parse_args(int argc, char **argv, struct run_spec *spec, char *err,
		   size_t errlen)
{
	struct cmd_state st;
	int i, ret = 0;

	memset(spec, 0, sizeof(*spec));
	memset(&st, 0, sizeof(st));
	st.pending = bench_xcalloc(argc > 0 ? (size_t)argc : 1,
				   sizeof(*st.pending));
	spec->normal = true;
	if (errlen)
		err[0] = '\0';
	for (i = 0; i < argc && !ret; i++) {
		bool used_next = false;

		ret = cmd_arg(&st, argv[i], i + 1 < argc ? argv[i + 1] : NULL,
			      &used_next, spec, err, errlen);
		i += used_next;
	}
	if (!ret)
		ret = cmd_load_jobfiles(&st, spec, err, errlen);
	if (!ret)
		ret = cmd_end_job(&st, spec, err, errlen);
	/* As in fio, options alone (no --name, no job file) are no job. */
	if (!ret && !spec->nr_jobs && !st.jobfiles && !spec->help) {
		snprintf(err, errlen, "no jobs: give --name=NAME and its "
			 "options, or a job file");
		ret = -EINVAL;
	}
	run_opts_free(&st.global);
	run_opts_free(&st.job);
	free(st.pending);
	return ret;
}
