// SPDX-License-Identifier: MIT
/*
 * tools/bench/run_jobfile.c - fio job files for `upcache-bench run`.
 *
 * Owns the INI grammar of fio job files and fio's inheritance rule: a
 * job section starts from a copy of everything the [global] sections
 * before it set (on top of the command line's global options), then
 * applies its own lines.  A second [global] further down changes the
 * base for the sections after it only, as in fio.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_spec.h"
#include "util.h"

#define JOBFILE_MAX_BYTES	(1 << 20)

/* jf_error() - Format "FILE:LINE: message" into @err; returns -EINVAL. */
__attribute__((format(printf, 5, 6)))
static int jf_error(char *err, size_t errlen, const char *fname,
		    unsigned int line, const char *fmt, ...)
{
	char msg[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (errlen)
		snprintf(err, errlen, "%s:%u: %s", fname, line, msg);
	return -EINVAL;
}

/* trim() - Drop leading and trailing blanks of @s in place. */
static char *trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' ||
			   end[-1] == '\r'))
		*--end = '\0';
	return s;
}

/**
 * struct jf_state - a job file being read.
 * @global: The options of the [global] sections so far.
 * @job: The options of the job section being read.
 * @section: That section's name ("" outside any section).
 * @in_global: The current section is a [global].
 * @line: The current line's number.
 */
struct jf_state {
	struct run_opts global;
	struct run_opts job;
	char section[RUN_NAME_MAX];
	bool in_global;
	unsigned int line;
};

/* jf_end_section() - Finish the section being read: add its job. */
static int jf_end_section(struct jf_state *st, struct run_spec *spec,
			  const char *fname, char *err, size_t errlen)
{
	char msg[320];
	int ret;

	if (!st->section[0] || st->in_global)
		return 0;
	ret = run_spec_add_job(spec, &st->job, st->section, msg, sizeof(msg));
	if (ret)
		return jf_error(err, errlen, fname, st->line, "%s", msg);
	return 0;
}

/* jf_section() - Handle a "[name]" line. */
static int jf_section(struct jf_state *st, char *s, struct run_spec *spec,
		      const char *fname, char *err, size_t errlen)
{
	char *end = strchr(s, ']');
	int ret;

	if (!end || trim(end + 1)[0])
		return jf_error(err, errlen, fname, st->line,
				"bad section header '%s'", s);
	*end = '\0';
	s = trim(s + 1);
	if (!*s || strlen(s) >= RUN_NAME_MAX)
		return jf_error(err, errlen, fname, st->line,
				"bad section name '%s'", s);
	ret = jf_end_section(st, spec, fname, err, errlen);
	if (ret)
		return ret;
	snprintf(st->section, sizeof(st->section), "%s", s);
	st->in_global = !strcmp(s, "global");
	if (!st->in_global)
		run_opts_copy(&st->job, &st->global);
	return 0;
}

/* jf_option() - Handle a "key=value" or "key" line. */
static int jf_option(struct jf_state *st, char *s, const char *fname,
		     char *err, size_t errlen)
{
	char *eq = strchr(s, '='), *value = NULL;
	char msg[320];

	if (!st->section[0])
		return jf_error(err, errlen, fname, st->line,
				"option '%s' outside any section", s);
	if (eq) {
		*eq = '\0';
		value = trim(eq + 1);
	}
	s = trim(s);
	if (run_opts_set(st->in_global ? &st->global : &st->job, s, value,
			 msg, sizeof(msg)))
		return jf_error(err, errlen, fname, st->line, "%s", msg);
	return 0;
}

/**
 * run_jobfile_parse() - Add the jobs of a fio job file's text.
 * @text: The contents.
 * @fname: The name, for messages.
 * @base: The command line's global options.
 * @spec: Where jobs go.
 * @err: Message buffer.
 * @errlen: Its size.
 *
 * Return: 0, or -EINVAL with "FILE:LINE: message" in @err.
 */
int run_jobfile_parse(const char *text, const char *fname,
		      const struct run_opts *base, struct run_spec *spec,
		      char *err, size_t errlen)
{
	struct jf_state st;
	char *copy = bench_xstrdup(text), *line = copy, *next;
	int ret = 0;

	memset(&st, 0, sizeof(st));
	run_opts_copy(&st.global, base);
	for (; line && !ret; line = next) {
		char *s;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		st.line++;
		/* A comment may also end a line, as fio cuts it. */
		line[strcspn(line, "#;")] = '\0';
		s = trim(line);
		if (!*s)
			continue;
		if (*s == '[')
			ret = jf_section(&st, s, spec, fname, err, errlen);
		else
			ret = jf_option(&st, s, fname, err, errlen);
	}
	if (!ret)
		ret = jf_end_section(&st, spec, fname, err, errlen);
	run_opts_free(&st.global);
	run_opts_free(&st.job);
	free(copy);
	return ret;
}

/**
 * run_jobfile_load() - Read a fio job file and add its jobs.
 * @path: The file.
 * @base: The command line's global options.
 * @spec: Where jobs go.
 * @err: Message buffer.
 * @errlen: Its size.
 *
 * Return: 0, -errno if unreadable, or -EINVAL.
 */
int run_jobfile_load(const char *path, const struct run_opts *base,
		     struct run_spec *spec, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *text;
	size_t n;
	int ret;

	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "job file '%s': %s", path,
			 strerror(-ret));
		return ret;
	}
	text = bench_xcalloc(JOBFILE_MAX_BYTES + 1, 1);
	n = fread(text, 1, JOBFILE_MAX_BYTES + 1, f);
	if (ferror(f) || n > JOBFILE_MAX_BYTES) {
		fclose(f);
		free(text);
		snprintf(err, errlen, "job file '%s': %s", path,
			 n > JOBFILE_MAX_BYTES ? "larger than 1 MiB" :
			 "read error");
		return -EINVAL;
	}
	fclose(f);
	text[n] = '\0';
	if (strlen(text) != n) {
		free(text);
		snprintf(err, errlen, "job file '%s': not a text file", path);
		return -EINVAL;
	}
	ret = run_jobfile_parse(text, path, base, spec, err, errlen);
	free(text);
	return ret;
}
