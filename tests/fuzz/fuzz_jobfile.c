// SPDX-License-Identifier: MIT
/*
 * tests/fuzz/fuzz_jobfile.c - libFuzzer target: `upcache-bench run`'s
 * fio job files, command line and units (tools/bench/run_jobfile.c,
 * run_cmdline.c, run_options.c).
 *
 * This file owns the fuzzer's input format.  An input is text: a fio job
 * file, cut at its first NUL byte.  Every input is valid; each one is
 * read four ways, and any broken contract (run_spec.h, run_options.h)
 * prints the input and aborts:
 *
 *  1. as a job file: run_jobfile_parse() with an empty base.
 *  2. as a command line: each line that is not blank or a comment is one
 *     word: "[global]" is dropped, "[X]" becomes "--name=X", a word
 *     starting with '-' (but not "-" alone) is kept, and any other word
 *     becomes "--" + the line, unless the word before it is a bare
 *     option that takes the next word as its value (see argv_build()).
 *     So no word is ever read as a job file: the target opens no file,
 *     and --json FILE only records FILE.
 *  3. as units: the value of each line (after its '=', or all of it)
 *     goes to run_parse_size() with both kb_base values and to
 *     run_parse_time(), whose results must match the grammar of
 *     run_options.h, evaluated here independently (expect_size(),
 *     expect_time()).
 *  4. as one job: every "key=value" or "key" line (a leading "--"
 *     dropped) through run_opts_set() into one struct run_opts, then
 *     run_job_resolve(); a resolved job must hold what its texts say,
 *     with the defaults run_options.h documents (check_texts()).
 *
 * Every job that resolves, however it was read, must also satisfy the
 * invariants run_job_resolve() establishes (check_job()); every error
 * must come with a one-line message within the buffer.  The message
 * buffer's size is one of four, chosen by the input's length, and is
 * allocated to exactly that size so ASan sees an overrun.
 *
 * Run without libFuzzer by tests/fuzz/replay_main.c over the seed corpus
 * tests/fuzz/corpus/fuzz_jobfile/ (dictionary tests/fuzz/fuzz_jobfile.dict).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "run_options.h"
#include "run_spec.h"

#define FZ_TARGET	"fuzz_jobfile"
#include "fuzz_text.h"

#define FZ_FNAME	"fuzz.fio"
#define FZ_SECTION	"fuzz"
#define FZ_MAX_LINES	256

/* fz_xstrdup() - strdup() that aborts: the target has no error path. */
static char *fz_xstrdup(const char *s)
{
	char *copy = strdup(s);

	FZ_CHECK(copy, "out of memory");
	return copy;
}

/* ------------------------------------------------------------------ */
/* Lines */

/*
 * struct lines - the text's lines that are neither blank nor comments,
 * trimmed as run_jobfile.c trims them.
 */
struct lines {
	char *buf;
	char *line[FZ_MAX_LINES];
	size_t nr;
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static char *trim(char *s)
{
	char *end;

	while (is_blank(*s))
		s++;
	end = s + strlen(s);
	while (end > s && is_blank(end[-1]))
		*--end = '\0';
	return s;
}

static void lines_split(struct lines *l, const char *text)
{
	char *s, *next;

	l->buf = fz_xstrdup(text);
	l->nr = 0;
	for (s = l->buf; s && l->nr < FZ_MAX_LINES; s = next) {
		next = strchr(s, '\n');
		if (next)
			*next++ = '\0';
		s = trim(s);
		if (*s && *s != '#' && *s != ';')
			l->line[l->nr++] = s;
	}
}

/* ------------------------------------------------------------------ */
/* The unit grammar of run_options.h, written as tables */

/*
 * expect_digits() - The decimal number at the start of @s; *@end is set
 * past it.  Return: 0, -EINVAL for no digit, -ERANGE if it does not fit
 * 64 bits (*@end is still set: the suffix decides between the two).
 */
static int expect_digits(const char *s, const char **end, uint64_t *out)
{
	bool over = false;
	uint64_t v = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		over |= __builtin_mul_overflow(v, 10, &v);
		over |= __builtin_add_overflow(v, (uint64_t)(*s - '0'), &v);
	}
	*end = s;
	*out = v;
	return over ? -ERANGE : 0;
}

/*
 * size_unit() - The multiplier of size suffix @p: "" or "b", or one of
 * k m g t p, then optionally "i", then optionally "b", in any case.
 * With kb_base=1024 the plain prefixes are powers of 1024 and the IEC
 * ones ("ib" after the prefix, both) of 1000; kb_base=1000 swaps them;
 * an "i" without the "b" is plain.  Return: 0 for no such suffix.
 */
static uint64_t size_unit(const char *p, unsigned int kb_base)
{
	static const char prefixes[] = "kmgtp";
	unsigned int e, form, i;
	uint64_t unit, base;
	char spelling[4];

	if (!strcasecmp(p, "") || !strcasecmp(p, "b"))
		return 1;
	for (e = 0; e < sizeof(prefixes) - 1; e++) {
		/* form: bit 1 the IEC "i", bit 0 the "b". */
		for (form = 0; form < 4; form++) {
			i = 0;
			spelling[i++] = prefixes[e];
			if (form & 2)
				spelling[i++] = 'i';
			if (form & 1)
				spelling[i++] = 'b';
			spelling[i] = '\0';
			if (strcasecmp(p, spelling))
				continue;
			base = (form == 3) == (kb_base == 1000) ? 1024 : 1000;
			for (unit = 1, i = 0; i <= e; i++)
				unit *= base;
			return unit;
		}
	}
	return 0;
}

/*
 * time_unit() - Nanoseconds per unit @p, or 0 for no such unit: the
 * header's list read as "short and long name, then the unit as a
 * multiple or a fraction of a second" (an oracle apart from the
 * parser's own table).
 */
static uint64_t time_unit(const char *p, unsigned int unused)
{
	static const struct {
		const char *name[2];
		uint64_t per_sec;	/* units in a second, or 0 */
		uint64_t secs;		/* seconds in a unit, if per_sec is 0 */
	} units[] = {
		{ { "", "s" }, 0, 1 }, { { "sec", "sec" }, 0, 1 },
		{ { "us", "usec" }, 1000000, 0 },
		{ { "ms", "msec" }, 1000, 0 },
		{ { "m", "min" }, 0, 60 },
		{ { "h", "h" }, 0, 3600 },
		{ { "d", "d" }, 0, 24 * 3600 },
	};
	size_t i, k;

	(void)unused;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		for (k = 0; k < 2; k++)
			if (!strcasecmp(p, units[i].name[k]))
				return units[i].per_sec ?
				       RUN_NSEC_PER_SEC / units[i].per_sec :
				       units[i].secs * RUN_NSEC_PER_SEC;
	return 0;
}

/*
 * expect_number() - What the parser must make of @s: digits, then a
 * suffix that @unit_of knows.  A bad suffix is -EINVAL even after digits
 * that overflow; -ERANGE is for a size or time that does not fit.
 */
static int expect_number(const char *s,
			 uint64_t (*unit_of)(const char *, unsigned int),
			 unsigned int kb_base, uint64_t *out)
{
	const char *p;
	uint64_t v, unit;
	int ret;

	ret = expect_digits(s, &p, &v);
	if (ret == -EINVAL)
		return ret;
	unit = unit_of(p, kb_base);
	if (!unit)
		return -EINVAL;
	if (ret || __builtin_mul_overflow(v, unit, &v))
		return -ERANGE;
	*out = v;
	return 0;
}

static int expect_size(const char *s, unsigned int kb_base, uint64_t *out)
{
	return expect_number(s, size_unit, kb_base, out);
}

static int expect_time(const char *s, uint64_t *out)
{
	return expect_number(s, time_unit, 0, out);
}

/*
 * check_units() - run_parse_size() (both bases) and run_parse_time() on
 * @s against the tables: the same result, the same value, and @out left
 * alone on an error.
 */
static void check_units(const char *s)
{
	static const unsigned int bases[] = { 1024, 1000 };
	const uint64_t poison = 0x5a5a5a5a5a5a5a5aULL;
	uint64_t got, want;
	int ret, wret;
	size_t i;

	for (i = 0; i < 2; i++) {
		got = poison;
		want = 0;
		ret = run_parse_size(s, bases[i], &got);
		wret = expect_size(s, bases[i], &want);
		FZ_CHECK(ret == wret, "run_parse_size(\"%s\", %u) = %d, want %d",
			 s, bases[i], ret, wret);
		FZ_CHECK(ret ? got == poison : got == want,
			 "run_parse_size(\"%s\", %u): %llu, want %llu", s,
			 bases[i], (unsigned long long)got,
			 (unsigned long long)(ret ? poison : want));
	}
	got = poison;
	want = 0;
	ret = run_parse_time(s, &got);
	wret = expect_time(s, &want);
	FZ_CHECK(ret == wret, "run_parse_time(\"%s\") = %d, want %d", s, ret,
		 wret);
	FZ_CHECK(ret ? got == poison : got == want,
		 "run_parse_time(\"%s\"): %llu, want %llu", s,
		 (unsigned long long)got,
		 (unsigned long long)(ret ? poison : want));
}

/* ------------------------------------------------------------------ */
/* Errors and resolved jobs */

/*
 * check_ret() - @what returned @ret: 0 or -EINVAL, and an error comes
 * with a one-line message, NUL-terminated within @errlen.
 */
static void check_ret(const char *what, int ret, const char *err,
		      size_t errlen)
{
	FZ_CHECK(ret == 0 || ret == -EINVAL, "%s returned %d", what, ret);
	if (!ret)
		return;
	FZ_CHECK(memchr(err, '\0', errlen), "%s: message not terminated",
		 what);
	FZ_CHECK(err[0], "%s: -EINVAL without a message", what);
	FZ_CHECK(!strchr(err, '\n'), "%s: message of two lines: %s", what,
		 err);
}

static bool is_engine(const char *e)
{
	static const char *const engines[] = {
		"upcache-shmem", "upcache-file", "upcache-anon",
		"kernel-sync", "kernel-psync", "kernel-mmap",
	};
	size_t i;

	for (i = 0; i < sizeof(engines) / sizeof(engines[0]); i++)
		if (!strcmp(e, engines[i]))
			return true;
	return false;
}

static bool swaps(const struct run_job *job)
{
	return !strcmp(job->engine, "upcache-anon") ||
	       !strcmp(job->engine, "upcache-shmem");
}

/*
 * check_job() - What run_job_resolve() guarantees of every job it
 * returns, whatever its options were.
 */
static void check_job(const struct run_job *job)
{
	const char *n;

	FZ_CHECK(memchr(job->name, '\0', RUN_NAME_MAX) && job->name[0],
		 "job name empty or not terminated");
	n = job->name;
	FZ_CHECK(memchr(job->engine, '\0', RUN_NAME_MAX) &&
		 is_engine(job->engine), "job '%s': engine", n);
	FZ_CHECK(job->rw <= RUN_RW_RANDRW, "job '%s': rw %d", n, job->rw);
	FZ_CHECK(job->rwmixread <= 100, "job '%s': rwmixread %u", n,
		 job->rwmixread);
	FZ_CHECK(job->bs >= 1 && job->bs <= RUN_MAX_BS && job->bs <= job->size,
		 "job '%s': bs %llu, size %llu", n,
		 (unsigned long long)job->bs, (unsigned long long)job->size);
	FZ_CHECK(job->offset <= job->filesize &&
		 job->size <= job->filesize - job->offset &&
		 job->filesize <= (uint64_t)INT64_MAX,
		 "job '%s': offset %llu + size %llu past filesize %llu", n,
		 (unsigned long long)job->offset,
		 (unsigned long long)job->size,
		 (unsigned long long)job->filesize);
	FZ_CHECK(job->numjobs >= 1 && job->numjobs <= RUN_MAX_NUMJOBS,
		 "job '%s': numjobs %u", n, job->numjobs);
	FZ_CHECK(!job->time_based || job->runtime_ns,
		 "job '%s': time_based without runtime", n);
	FZ_CHECK(job->fallocate <= RUN_FALLOC_TRUNCATE &&
		 job->file_kind <= RUN_FILE_EMPTY &&
		 job->huge <= RUN_HUGE_ADVISE,
		 "job '%s': fallocate %d, file_kind %d, huge %d", n,
		 job->fallocate, job->file_kind, job->huge);
	FZ_CHECK(job->unlink >= -1 && job->unlink <= 1,
		 "job '%s': unlink %d", n, job->unlink);
	FZ_CHECK(job->kb_base == 1024 || job->kb_base == 1000,
		 "job '%s': kb_base %u", n, job->kb_base);
	FZ_CHECK(job->directory && job->directory[0],
		 "job '%s': no directory", n);
	FZ_CHECK(!job->filename || (job->filename[0] &&
				    !strchr(job->filename, ':')),
		 "job '%s': filename", n);
	FZ_CHECK(!job->swap_file || job->swap_file[0],
		 "job '%s': empty swap_file", n);
	FZ_CHECK(swaps(job) || (!job->swap_size && !job->swap_file &&
				!job->swap_space_shift),
		 "job '%s': swap options on %s", n, job->engine);
	FZ_CHECK(!job->swap_space_shift ||
		 (job->swap_space_shift >= 6 && job->swap_space_shift <= 30),
		 "job '%s': swap_space_shift %u", n, job->swap_space_shift);
}

static void check_spec(const struct run_spec *spec)
{
	size_t i;

	FZ_CHECK(spec->nr_jobs <= RUN_MAX_JOBS, "%zu jobs", spec->nr_jobs);
	for (i = 0; i < spec->nr_jobs; i++)
		check_job(&spec->jobs[i]);
}

/* ------------------------------------------------------------------ */
/* 1. The job file */

/*
 * check_err_line() - A job file's message starts "FILE:LINE:", LINE one
 * of the text's lines (a final newline starts one more, empty line).
 */
static void check_err_line(const char *text, const char *err, size_t errlen)
{
	const size_t pre = strlen(FZ_FNAME ":");
	unsigned long line, nr_lines = 1;
	const char *s;
	char *end;

	if (errlen < 64)
		return;
	for (s = text; (s = strchr(s, '\n')); s++)
		nr_lines++;
	FZ_CHECK(!strncmp(err, FZ_FNAME ":", pre), "message '%s' lacks the "
		 "file name", err);
	line = strtoul(err + pre, &end, 10);
	FZ_CHECK(*end == ':' && line >= 1 && line <= nr_lines,
		 "message '%s': not a line of %lu", err, nr_lines);
}

static void fuzz_jobfile(const char *text, size_t errlen)
{
	struct run_opts base = { { NULL } };
	char *err = fz_buf_alloc(errlen);
	struct run_spec spec;
	int ret;

	memset(&spec, 0, sizeof(spec));
	ret = run_jobfile_parse(text, FZ_FNAME, &base, &spec, err, errlen);
	check_ret("run_jobfile_parse()", ret, err, errlen);
	if (ret)
		check_err_line(text, err, errlen);
	/* The jobs before an error resolved too. */
	check_spec(&spec);
	run_spec_free(&spec);
	FZ_CHECK(!spec.nr_jobs, "run_spec_free() left jobs");
	free(err);
}

/* ------------------------------------------------------------------ */
/* 2. The command line */

/*
 * takes_next() - Does bare option word @w (read as an option, not as a
 * value) take the next word as its value when that word does not start
 * with '-'?  run_parse_args() documents --option value and --json FILE;
 * it decides by probing the bare name with run_opts_set(), as here.
 * -h/--help takes no value, and "--" or a name of 64 bytes or more is an
 * error there.  @any is set for --output-format, which takes the next
 * word whatever it is.
 */
static bool takes_next(const char *w, bool *any)
{
	const char *name = w + (w[1] == '-' ? 2 : 1);
	struct run_opts probe = { { NULL } };
	char err[200];
	bool takes;

	*any = false;
	if (w[0] != '-' || !*name || strchr(name, '=') ||
	    strlen(name) >= 64 || !strcmp(name, "help") || !strcmp(name, "h"))
		return false;
	if (!strcmp(name, "json"))
		return true;
	if (!strcmp(name, "output-format")) {
		*any = true;
		return true;
	}
	takes = run_opts_set(&probe, name, NULL, err, sizeof(err)) != 0;
	run_opts_free(&probe);
	return takes;
}

/* to_word() - Line @s as a command-line word, "--" in front if @dash. */
static char *to_word(const char *s, bool dash)
{
	size_t n = strlen(s);
	char *w;

	if (s[0] == '[') {
		/* "[X]" is "--name=X", "[X" too (an error either way). */
		const char *end = strchr(s, ']');

		n = end ? (size_t)(end - s - 1) : n - 1;
		w = malloc(n + 8);
		FZ_CHECK(w, "out of memory");
		memcpy(w, "--name=", 7);
		memcpy(w + 7, s + 1, n);
		w[n + 7] = '\0';
		return w;
	}
	if (!dash || (s[0] == '-' && s[1]))
		return fz_xstrdup(s);
	w = malloc(n + 3);
	FZ_CHECK(w, "out of memory");
	memcpy(w, "--", 2);
	memcpy(w + 2, s, n + 1);
	return w;
}

/*
 * argv_build() - The words of @l, none of which run_parse_args() can take
 * for a job file: a word not starting with '-' is passed as it is only
 * after a bare option that, read as an option, takes it as its value.
 * Whether a word is read as an option is followed through the words: a
 * value taken by the word before is not.
 * Return: The number of words in @argv.
 */
static int argv_build(const struct lines *l, char **argv)
{
	bool prev_read = false, prev_takes = false, prev_any = false;
	bool raw, read, any;
	int argc = 0;
	size_t i;

	for (i = 0; i < l->nr; i++) {
		const char *s = l->line[i];

		if (!strcmp(s, "[global]"))
			continue;
		raw = s[0] != '-' && s[0] != '[' && prev_read && prev_takes;
		argv[argc] = to_word(s, !raw);
		/* Taken as a value: by --output-format, or raw after any. */
		read = !(prev_read && (prev_any || raw));
		prev_takes = read && takes_next(argv[argc], &any);
		prev_any = prev_takes && any;
		prev_read = read;
		argc++;
	}
	return argc;
}

/* in_argv() - Does @p point into one of the words? */
static bool in_argv(const char *p, char **argv, int argc)
{
	uintptr_t a = (uintptr_t)p;
	int i;

	for (i = 0; i < argc; i++)
		if (a >= (uintptr_t)argv[i] &&
		    a <= (uintptr_t)argv[i] + strlen(argv[i]))
			return true;
	return false;
}

static void fuzz_cmdline(const char *text, size_t errlen)
{
	char *err = fz_buf_alloc(errlen), *argv[FZ_MAX_LINES];
	struct run_spec spec;
	struct lines l;
	int argc, i, ret;

	lines_split(&l, text);
	argc = argv_build(&l, argv);
	ret = run_parse_args(argc, argv, &spec, err, errlen);
	check_ret("run_parse_args()", ret, err, errlen);
	check_spec(&spec);
	if (!ret) {
		FZ_CHECK(spec.nr_jobs || spec.help, "no jobs and no --help");
		FZ_CHECK(spec.json || spec.normal, "neither json nor normal "
			 "output");
		FZ_CHECK(!spec.json_path || (spec.json && in_argv(spec.json_path,
								  argv, argc)),
			 "json_path not one of the words");
		FZ_CHECK(!spec.json_path || *spec.json_path,
			 "an empty json_path");
	}
	run_spec_free(&spec);
	for (i = 0; i < argc; i++)
		free(argv[i]);
	free(l.buf);
	free(err);
}

/* ------------------------------------------------------------------ */
/* 3. Units */

static void fuzz_units(const char *text)
{
	struct lines l;
	const char *eq;
	size_t i;

	lines_split(&l, text);
	for (i = 0; i < l.nr; i++) {
		eq = strchr(l.line[i], '=');
		if (eq) {
			eq++;
			while (is_blank(*eq))
				eq++;
		}
		check_units(eq ? eq : l.line[i]);
	}
	free(l.buf);
}

/* ------------------------------------------------------------------ */
/* 4. One job, resolved against its texts */

/* text_size() - Option @id's size under @kb_base; 0 when not given. */
static uint64_t text_size(const struct run_opts *o, enum run_opt_id id,
			  const struct run_job *job)
{
	uint64_t v = 0;

	if (!o->val[id])
		return 0;
	FZ_CHECK(!expect_size(o->val[id], job->kb_base, &v),
		 "job '%s' resolved with option %d '%s', not a size with "
		 "kb_base=%u", job->name, id, o->val[id], job->kb_base);
	return v;
}

static uint64_t text_time(const struct run_opts *o, enum run_opt_id id)
{
	uint64_t v = 0;

	if (o->val[id])
		FZ_CHECK(!expect_time(o->val[id], &v), "option %d '%s' is not "
			 "a time", id, o->val[id]);
	return v;
}

static unsigned long text_uint(const struct run_opts *o, enum run_opt_id id,
			       unsigned long dflt)
{
	return o->val[id] ? strtoul(o->val[id], NULL, 10) : dflt;
}

/* text_flag() - A bool: -1 when not given. */
static int text_flag(const struct run_opts *o, enum run_opt_id id)
{
	return o->val[id] ? !strcmp(o->val[id], "1") : -1;
}

static bool str_is(const char *s, const char *want)
{
	return s && want ? !strcmp(s, want) : s == want;
}

/* check_sizes() - bs, size, filesize, offset, memory_limit, swap_size. */
static void check_sizes(const struct run_opts *o, const struct run_job *job)
{
	uint64_t size = text_size(o, RUN_OPT_SIZE, job);
	uint64_t filesize = text_size(o, RUN_OPT_FILESIZE, job);
	const char *n = job->name;

	FZ_CHECK(job->bs == (o->val[RUN_OPT_BS] ?
			     text_size(o, RUN_OPT_BS, job) : 4096),
		 "job '%s': bs %llu", n, (unsigned long long)job->bs);
	FZ_CHECK(job->offset == text_size(o, RUN_OPT_OFFSET, job),
		 "job '%s': offset %llu", n, (unsigned long long)job->offset);
	FZ_CHECK(job->memory_limit == text_size(o, RUN_OPT_MEMORY_LIMIT, job) &&
		 job->swap_size == text_size(o, RUN_OPT_SWAP_SIZE, job),
		 "job '%s': memory_limit or swap_size", n);
	/* A zero size or filesize counts as not given (fio's size=0). */
	FZ_CHECK(job->size == (size ? size : job->filesize - job->offset) &&
		 job->filesize == (filesize ? filesize :
				   job->offset + job->size),
		 "job '%s': size %llu, filesize %llu", n,
		 (unsigned long long)job->size,
		 (unsigned long long)job->filesize);
}

/* check_kinds() - The engine and the enumerated options. */
static void check_kinds(const struct run_opts *o, const struct run_job *job)
{
	static const char *const huge[] = {
		"never", "always", "within_size", "advise",
	};
	static const char *const kinds[] = {
		"normal", "fallocated", "hole", "empty",
	};
	static const char *const falloc[] = {
		"none", "native", "posix", "keep", "truncate",
	};
	const char *e = o->val[RUN_OPT_IOENGINE], *t;
	enum run_file_kind kind;
	char want[RUN_NAME_MAX + 8];

	if (!e || !strcmp(e, "sync") || !strcmp(e, "psync") ||
	    !strcmp(e, "mmap"))
		snprintf(want, sizeof(want), "kernel-%s", e ? e : "psync");
	else
		snprintf(want, sizeof(want), "%s", e);
	FZ_CHECK(!strcmp(job->engine, want), "engine %s, want %s",
		 job->engine, want);
	t = o->val[RUN_OPT_RW] ? o->val[RUN_OPT_RW] : "read";
	FZ_CHECK(!strcmp(run_rw_name(job->rw), t) ||
		 (!strcmp(t, "readwrite") && job->rw == RUN_RW_RW),
		 "rw %d for '%s'", job->rw, t);
	t = o->val[RUN_OPT_FALLOCATE] ? o->val[RUN_OPT_FALLOCATE] : "native";
	t = !strcmp(t, "0") ? "none" : !strcmp(t, "1") ? "posix" : t;
	FZ_CHECK(!strcmp(falloc[job->fallocate], t), "fallocate %d for '%s'",
		 job->fallocate, t);
	t = o->val[RUN_OPT_HUGE] ? o->val[RUN_OPT_HUGE] : "never";
	FZ_CHECK(!strcmp(huge[job->huge], t), "huge %d for '%s'", job->huge,
		 t);
	/* Without file_kind: data to read, else what fallocate= leaves. */
	if (run_rw_reads(job->rw))
		kind = RUN_FILE_NORMAL;
	else if (job->fallocate == RUN_FALLOC_NONE)
		kind = RUN_FILE_EMPTY;
	else if (job->fallocate == RUN_FALLOC_TRUNCATE)
		kind = RUN_FILE_HOLE;
	else
		kind = RUN_FILE_FALLOCATED;
	t = o->val[RUN_OPT_FILE_KIND] ? o->val[RUN_OPT_FILE_KIND] : kinds[kind];
	FZ_CHECK(!strcmp(kinds[job->file_kind], t), "file_kind %d for '%s'",
		 job->file_kind, t);
}

/* check_texts() - A resolved job against the option texts it came from. */
static void check_texts(const struct run_opts *o, const struct run_job *job)
{
	const char *kb = o->val[RUN_OPT_KB_BASE];
	unsigned long mix;
	int flag;

	FZ_CHECK(job->kb_base == (kb && !strcmp(kb, "1000") ? 1000 : 1024),
		 "kb_base %u", job->kb_base);
	FZ_CHECK(!strcmp(job->name, o->val[RUN_OPT_NAME] ?
			 o->val[RUN_OPT_NAME] : FZ_SECTION),
		 "job name '%s', name= '%s'", job->name,
		 o->val[RUN_OPT_NAME]);
	check_sizes(o, job);
	check_kinds(o, job);
	mix = o->val[RUN_OPT_RWMIXREAD] ? text_uint(o, RUN_OPT_RWMIXREAD, 0) :
	      100 - text_uint(o, RUN_OPT_RWMIXWRITE, 50);
	FZ_CHECK(job->rwmixread == mix, "rwmixread %u, want %lu",
		 job->rwmixread, mix);
	FZ_CHECK(job->numjobs == text_uint(o, RUN_OPT_NUMJOBS, 1) &&
		 text_uint(o, RUN_OPT_IODEPTH, 1) == 1 &&
		 job->swap_space_shift == text_uint(o, RUN_OPT_SWAP_SPACE_SHIFT, 0),
		 "numjobs, iodepth or swap_space_shift");
	FZ_CHECK(job->runtime_ns == text_time(o, RUN_OPT_RUNTIME) &&
		 job->ramp_ns == text_time(o, RUN_OPT_RAMP_TIME),
		 "runtime or ramp_time");
	FZ_CHECK(job->time_based == (text_flag(o, RUN_OPT_TIME_BASED) == 1) &&
		 job->group_reporting ==
		 (text_flag(o, RUN_OPT_GROUP_REPORTING) == 1) &&
		 job->stonewall == (text_flag(o, RUN_OPT_STONEWALL) == 1),
		 "time_based, group_reporting or stonewall");
	flag = text_flag(o, RUN_OPT_UNLINK);
	FZ_CHECK(job->unlink == flag, "unlink %d, want %d", job->unlink, flag);
	FZ_CHECK(str_is(job->filename, o->val[RUN_OPT_FILENAME]) &&
		 str_is(job->swap_file, o->val[RUN_OPT_SWAP_FILE]) &&
		 !strcmp(job->directory, o->val[RUN_OPT_DIRECTORY] ?
			 o->val[RUN_OPT_DIRECTORY] : "/dev/shm"),
		 "filename, swap_file or directory");
}

/* opts_line() - Apply one "key=value" or "key" line to @o. */
static void opts_line(struct run_opts *o, char *s, char *err, size_t errlen)
{
	char *eq = strchr(s, '='), *value = NULL;
	int ret;

	if (s[0] == '-' && s[1] == '-')
		s += 2;
	if (eq) {
		*eq = '\0';
		value = trim(eq + 1);
	}
	ret = run_opts_set(o, trim(s), value, err, errlen);
	check_ret("run_opts_set()", ret, err, errlen);
}

static void fuzz_resolve(const char *text, size_t errlen)
{
	struct run_opts o = { { NULL } };
	char *err = fz_buf_alloc(errlen);
	struct run_job job;
	struct lines l;
	size_t i;
	int ret;

	lines_split(&l, text);
	for (i = 0; i < l.nr; i++)
		if (l.line[i][0] != '[')
			opts_line(&o, l.line[i], err, errlen);
	ret = run_job_resolve(&o, FZ_SECTION, &job, err, errlen);
	check_ret("run_job_resolve()", ret, err, errlen);
	if (!ret) {
		check_job(&job);
		check_texts(&o, &job);
	}
	run_job_free(&job);
	run_opts_free(&o);
	free(l.buf);
	free(err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t errlens[] = { 256, 2, 17, 80 };
	size_t errlen = errlens[size % 4];
	char *text = fz_text_begin(data, size);

	fuzz_jobfile(text, errlen);
	fuzz_cmdline(text, errlen);
	fuzz_units(text);
	fuzz_resolve(text, errlen);
	fz_text_end(text);
	return 0;
}
