// SPDX-License-Identifier: MIT
/*
 * tests/fuzz/fuzz_bench_args.c - libFuzzer target: the options every
 * upcache-bench suite takes (tools/bench/options.c) and the command line
 * of `upcache-bench compare` (tools/bench/cmp_args.c).
 *
 * This file owns the fuzzer's input format.  An input is text, cut at
 * its first NUL byte; each line is one command-line word, empty lines
 * included (a final newline does not start one more word), at most
 * FZ_MAX_WORDS of them.  A word is never a file to open: the parsers
 * only keep pointers to --json's and --swap-file's values, and compare
 * asks a probe of this file's about --json's word.  Every input is
 * valid; the words are read four ways, and any broken contract
 * (options.h, cmp_args.h) prints the input and aborts:
 *
 *  1. as a suite's arguments: bench_parse_options() must succeed exactly
 *     when the grammar of options.h, evaluated here independently
 *     (model_parse()), accepts the words, and then hold what the words
 *     say: each field set by its option alone (the last one given wins),
 *     json_path and swap_file pointing at the value word itself, rounds
 *     0 or in 1..BENCH_MAX_ROUNDS, size 0 or in
 *     BENCH_MIN_SIZE..BENCH_MAX_SIZE.  An error must come with a
 *     one-line message, terminated within the buffer, that quotes the
 *     word blamed.  The message buffer's size is one of five (0 and 1
 *     included), chosen by the input's length, and is allocated to
 *     exactly that size so ASan sees an overrun.
 *  2. through bench_options_from_argv() for the suite "swap" or "shm"
 *     (chosen by the input's length): 0 and nothing printed when the
 *     words are good for that suite (--swap-file belongs to swap alone),
 *     else BENCH_EXIT_ERROR and exactly one line
 *     "upcache-bench SUITE: MESSAGE (try --help)".
 *  3. as numbers: each word goes to bench_parse_uint() and
 *     bench_parse_size() under a few limits, and
 *     bench_options_apply_env() as UPC_BENCH_TINY; return codes and
 *     values must match the grammar (expect_uint(), expect_size()), and
 *     the result is left alone on an error.
 *  4. as compare's arguments, in an argv of exactly their number:
 *     cmp_parse_args() must succeed exactly when the grammar of
 *     cmp_args.h, evaluated here independently (cmp_model()), accepts
 *     them, and then hold what they say: rounds, json, normal, help,
 *     json_path pointing at the word itself (NULL for none or "-"), and
 *     without --help each side as the words it starts at and their
 *     number.  Its disk probe is fake_json_word_is_file(): a word ending
 *     in ".fio" is an existing job file, no other word names a file, and
 *     the parser may ask only about the word after a bare --json that
 *     could be its FILE.  Errors as in 1 (an error about the sides
 *     quotes no word), with the same buffer sizes.
 *
 * Not covered: a word holding a newline (the input's line break splits
 * it), compare's real probe, bench_json_word_is_file() (tests/bench/),
 * and what compare does with the sides (run_parse_args(), which
 * fuzz_jobfile covers).
 *
 * Run without libFuzzer by tests/fuzz/replay_main.c over the seed corpus
 * tests/fuzz/corpus/fuzz_bench_args/ (dictionary
 * tests/fuzz/fuzz_bench_args.dict).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmp_args.h"
#include "options.h"

#define FZ_TARGET	"fuzz_bench_args"
#include "fuzz_text.h"

#define FZ_MAX_WORDS	64
/* How much of the blamed word an error message must quote. */
#define FZ_QUOTED	16

/* ------------------------------------------------------------------ */
/* Words */

/*
 * struct words - the input's lines as command-line words, each one
 * malloc()ed to its exact size so that ASan sees a read past its end.
 */
struct words {
	char *word[FZ_MAX_WORDS];
	int nr;
};

static void words_split(struct words *w, const char *text)
{
	const char *s = text, *nl;
	size_t n;

	w->nr = 0;
	while (*s && w->nr < FZ_MAX_WORDS) {
		nl = strchr(s, '\n');
		n = nl ? (size_t)(nl - s) : strlen(s);
		w->word[w->nr] = malloc(n + 1);
		FZ_CHECK(w->word[w->nr], "out of memory");
		memcpy(w->word[w->nr], s, n);
		w->word[w->nr][n] = '\0';
		w->nr++;
		if (!nl)
			break;
		s = nl + 1;
	}
}

static void words_free(struct words *w)
{
	int i;

	for (i = 0; i < w->nr; i++)
		free(w->word[i]);
	w->nr = 0;
}

/* ------------------------------------------------------------------ */
/* The number grammar of options.h */

/*
 * expect_uint() - What bench_parse_uint() must make of @s: one or more
 * decimal digits and nothing else, else -EINVAL (even after digits that
 * overflow); a number that does not fit or lies outside @min..@max is
 * -ERANGE.
 */
static int expect_uint(const char *s, unsigned long min, unsigned long max,
		       unsigned long *out)
{
	unsigned long v = 0;
	bool over = false;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		over |= __builtin_mul_overflow(v, 10UL, &v);
		over |= __builtin_add_overflow(v, (unsigned long)(*s - '0'),
					       &v);
	}
	if (over || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/* size_unit() - The multiplier of size suffix @c (K, M, G), or 0. */
static unsigned long size_unit(char c)
{
	switch (c) {
	case 'k': case 'K':
		return 1024UL;
	case 'm': case 'M':
		return 1024UL * 1024;
	case 'g': case 'G':
		return 1024UL * 1024 * 1024;
	}
	return 0;
}

/*
 * expect_size() - What bench_parse_size() must make of @s: digits, then
 * optionally one unit letter, which multiplies them.
 */
static int expect_size(const char *s, unsigned long min, unsigned long max,
		       unsigned long *out)
{
	size_t n = strlen(s);
	unsigned long unit = n ? size_unit(s[n - 1]) : 0;
	unsigned long v;
	char *digits;
	int ret;

	if (!unit)
		return expect_uint(s, min, max, out);
	digits = strndup(s, n - 1);
	FZ_CHECK(digits, "out of memory");
	ret = expect_uint(digits, 0, ULONG_MAX, &v);
	free(digits);
	if (ret)
		return ret;
	if (__builtin_mul_overflow(v, unit, &v) || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The option grammar of options.h */

/*
 * struct want - what the words must parse to.
 * @ok: The grammar accepts them.
 * @bad: On an error, the index of the word blamed.
 * @opts: On success, the options.
 */
struct want {
	bool ok;
	int bad;
	struct bench_options opts;
};

/* is_option() - Is the part of @word before any '=' the option @name? */
static bool is_option(const char *word, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(word, name, n) && (!word[n] || word[n] == '=');
}

/*
 * model_value() - The value of option @word: after its '=', else
 * @next when @take_next allows it; *@used is set when @next is taken.
 */
static const char *model_value(const char *word, const char *next,
			       bool take_next, bool *used)
{
	const char *eq = strchr(word, '=');

	if (eq)
		return eq + 1;
	*used = next && take_next;
	return *used ? next : NULL;
}

/*
 * model_word() - Apply @word to @o as options.h says; @next is the word
 * after it (NULL if none), and *@used is set when it was the value.
 * Return: whether the word is good.
 */
static bool model_word(const char *word, const char *next, bool *used,
		       struct bench_options *o)
{
	const char *v;
	unsigned long n;

	*used = false;
	/* Flags: no value, not even an empty one. */
	if (!strcmp(word, "--quick"))
		return o->quick = true;
	if (!strcmp(word, "--tiny"))
		return o->tiny = true;
	if (!strcmp(word, "--help") || !strcmp(word, "-h"))
		return o->help = true;
	/* A value, from its '=' or from the next word, whatever it is. */
	if (is_option(word, "--rounds")) {
		v = model_value(word, next, true, used);
		if (!v || expect_uint(v, 1, BENCH_MAX_ROUNDS, &n))
			return false;
		o->rounds = (unsigned int)n;
		return true;
	}
	if (is_option(word, "--size")) {
		v = model_value(word, next, true, used);
		return v && !expect_size(v, BENCH_MIN_SIZE, BENCH_MAX_SIZE,
					 &o->size);
	}
	if (is_option(word, "--swap-file")) {
		v = model_value(word, next, true, used);
		o->swap_file = v;
		return v && *v;
	}
	/* [FILE]: the next word when it is "-" or no option. */
	if (is_option(word, "--json")) {
		v = model_value(word, next, next && (next[0] != '-' ||
						     !strcmp(next, "-")), used);
		o->json = true;
		o->json_path = v && strcmp(v, "-") ? v : NULL;
		return !v || *v;
	}
	return false;
}

static void model_parse(int argc, char **argv, struct want *w)
{
	bool used;
	int i;

	memset(w, 0, sizeof(*w));
	w->ok = true;
	for (i = 0; i < argc; i++) {
		if (!model_word(argv[i], i + 1 < argc ? argv[i + 1] : NULL,
				&used, &w->opts)) {
			w->ok = false;
			w->bad = i;
			return;
		}
		i += used;
	}
}

/* ------------------------------------------------------------------ */
/* 1. bench_parse_options() */

/* check_opts() - @got against the model's options, field by field. */
static void check_opts(const struct bench_options *got,
		       const struct bench_options *want)
{
	FZ_CHECK(got->json == want->json && got->quick == want->quick &&
		 got->tiny == want->tiny && got->help == want->help,
		 "flags: json %d quick %d tiny %d help %d, want %d %d %d %d",
		 got->json, got->quick, got->tiny, got->help, want->json,
		 want->quick, want->tiny, want->help);
	FZ_CHECK(got->rounds == want->rounds, "rounds %u, want %u",
		 got->rounds, want->rounds);
	FZ_CHECK(!got->rounds || got->rounds <= BENCH_MAX_ROUNDS,
		 "rounds %u out of range", got->rounds);
	FZ_CHECK(got->size == want->size, "size %lu, want %lu", got->size,
		 want->size);
	FZ_CHECK(!got->size || (got->size >= BENCH_MIN_SIZE &&
				got->size <= BENCH_MAX_SIZE),
		 "size %lu out of range", got->size);
	/* The very value word, not a copy: argv outlives the options. */
	FZ_CHECK(got->json_path == want->json_path,
		 "json_path '%s', want '%s'", got->json_path ? got->json_path :
		 "(null)", want->json_path ? want->json_path : "(null)");
	FZ_CHECK(!got->json_path || got->json, "json_path without --json");
	FZ_CHECK(got->swap_file == want->swap_file,
		 "swap_file '%s', want '%s'", got->swap_file ?
		 got->swap_file : "(null)", want->swap_file ?
		 want->swap_file : "(null)");
}

/*
 * check_message() - An error's message: terminated within @errlen, one
 * line, not empty, and quoting the start of the word blamed, @bad (when
 * there is one and the buffer has room for it).
 */
static void check_message(const char *err, size_t errlen, const char *bad)
{
	char quoted[FZ_QUOTED + 1];
	size_t n;

	if (!errlen)
		return;
	FZ_CHECK(memchr(err, '\0', errlen), "message not terminated");
	FZ_CHECK(!strchr(err, '\n'), "message of two lines: %s", err);
	if (errlen < 2)
		return;
	FZ_CHECK(err[0], "error without a message");
	if (!bad)
		return;
	n = strcspn(bad, "=");
	n = n < FZ_QUOTED ? n : FZ_QUOTED;
	if (errlen < n + 64)
		return;
	memcpy(quoted, bad, n);
	quoted[n] = '\0';
	FZ_CHECK(strstr(err, quoted), "message '%s' does not quote '%s'", err,
		 quoted);
}

static void fuzz_parse(struct words *w, const struct want *want,
		       size_t errlen)
{
	char *err = fz_buf_alloc(errlen);
	struct bench_options opts;
	int ret;

	/* Garbage in: the parser must zero what no option sets. */
	memset(&opts, 0xa5, sizeof(opts));
	ret = bench_parse_options(w->nr, w->word, &opts, err, errlen);
	FZ_CHECK(ret == 0 || ret == -EINVAL, "bench_parse_options() = %d",
		 ret);
	FZ_CHECK(!ret == want->ok, "bench_parse_options() = %d, want %s",
		 ret, want->ok ? "success" : "an error");
	if (ret)
		check_message(err, errlen, w->word[want->bad]);
	else
		check_opts(&opts, &want->opts);
	free(err);
}

/* ------------------------------------------------------------------ */
/* 2. bench_options_from_argv() */

/* check_printed() - The one line an error prints: prefix, message, hint. */
static void check_printed(const char *out, size_t len, const char *suite)
{
	static const char hint[] = " (try --help)\n";
	char prefix[64];
	size_t pre;

	pre = (size_t)snprintf(prefix, sizeof(prefix), "upcache-bench %s: ",
			       suite);
	FZ_CHECK(len > pre + strlen(hint) && !strncmp(out, prefix, pre) &&
		 !strcmp(out + len - strlen(hint), hint),
		 "printed '%s'", out);
	FZ_CHECK(strchr(out, '\n') == out + len - 1, "printed lines: '%s'",
		 out);
	FZ_CHECK(out[pre] != ' ', "printed no message: '%s'", out);
}

static void fuzz_from_argv(struct words *w, const struct want *want,
			   const char *suite)
{
	bool swap = !strcmp(suite, "swap");
	bool ok = want->ok && (swap || !want->opts.swap_file);
	struct bench_options opts;
	char *out = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	f = open_memstream(&out, &len);
	FZ_CHECK(f, "out of memory");
	memset(&opts, 0xa5, sizeof(opts));
	ret = bench_options_from_argv(suite, w->nr, w->word, &opts, f);
	FZ_CHECK(!fclose(f), "out of memory");
	FZ_CHECK(ret == (ok ? 0 : BENCH_EXIT_ERROR),
		 "bench_options_from_argv(%s) = %d, want %d", suite, ret,
		 ok ? 0 : BENCH_EXIT_ERROR);
	if (ok) {
		FZ_CHECK(!len, "printed '%s' on success", out);
		check_opts(&opts, &want->opts);
	} else {
		check_printed(out, len, suite);
	}
	free(out);
}

/* ------------------------------------------------------------------ */
/* 3. Numbers and UPC_BENCH_TINY */

/* check_numbers() - One word through both number parsers, each limit. */
static void check_numbers(const char *s)
{
	static const struct {
		unsigned long min, max;
	} limits[] = {
		{ 0, ULONG_MAX },
		{ 1, BENCH_MAX_ROUNDS },
		{ BENCH_MIN_SIZE, BENCH_MAX_SIZE },
	};
	static const struct {
		const char *name;
		int (*parse)(const char *, unsigned long, unsigned long,
			     unsigned long *);
		int (*expect)(const char *, unsigned long, unsigned long,
			      unsigned long *);
	} parsers[] = {
		{ "bench_parse_uint", bench_parse_uint, expect_uint },
		{ "bench_parse_size", bench_parse_size, expect_size },
	};
	const unsigned long poison = 0x5a5a5a5aUL;
	unsigned long got, want, min, max;
	int ret, wret;
	size_t i, p;

	for (i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		min = limits[i].min;
		max = limits[i].max;
		for (p = 0; p < sizeof(parsers) / sizeof(parsers[0]); p++) {
			got = poison;
			want = poison;
			ret = parsers[p].parse(s, min, max, &got);
			wret = parsers[p].expect(s, min, max, &want);
			FZ_CHECK(ret == wret && got == want,
				 "%s(\"%s\", %lu, %lu) = %d (%lu), "
				 "want %d (%lu)",
				 parsers[p].name, s, min, max, ret, got, wret,
				 want);
		}
	}
}

/* check_tiny_env() - @s as UPC_BENCH_TINY turns on tiny, and nothing else. */
static void check_tiny_env(const char *s)
{
	struct bench_options opts, before;

	memset(&opts, 0, sizeof(opts));
	opts.rounds = 3;
	before = opts;
	bench_options_apply_env(&opts, s);
	before.tiny = s && *s && strcmp(s, "0");
	FZ_CHECK(!memcmp(&opts, &before, sizeof(opts)),
		 "UPC_BENCH_TINY='%s': tiny %d", s ? s : "(unset)", opts.tiny);
}

static void fuzz_words(const struct words *w)
{
	int i;

	FZ_CHECK(bench_parse_uint(NULL, 0, ULONG_MAX, NULL) == -EINVAL &&
		 bench_parse_size(NULL, 0, ULONG_MAX, NULL) == -EINVAL,
		 "a NULL number");
	check_tiny_env(NULL);
	for (i = 0; i < w->nr; i++) {
		check_numbers(w->word[i]);
		check_tiny_env(w->word[i]);
	}
}

/* ------------------------------------------------------------------ */
/* 4. compare's command line (cmp_args.h) */

/*
 * The file system the fuzzed compare sees: a word ending in ".fio"
 * names an existing job file, and no other word names anything.  So
 * the word after a bare --json is its FILE unless it ends in ".fio",
 * as bench_json_word_is_file() would decide on such a disk.
 */
#define FZ_JOB_SUFFIX	".fio"

static bool names_job_file(const char *word)
{
	size_t n = strlen(word), k = strlen(FZ_JOB_SUFFIX);

	return n >= k && !strcmp(word + n - k, FZ_JOB_SUFFIX);
}

/*
 * struct cmp_want - what compare's words must parse to.
 * @ok: The grammar accepts them.
 * @bad: On an error, the index of the option blamed, or -1 when the
 *	error is about the sides.
 * @rounds: On success, as struct cmp_args.
 * @json: Likewise.
 * @json_path: Likewise.
 * @normal: Likewise.
 * @help: Likewise.
 * @from: The index of each side's first word.
 * @nr: Its number of words.
 * @may_ask: The words the probe may be asked about: each one after a
 *	bare --json that is "-" or does not start with '-'.
 */
struct cmp_want {
	bool ok;
	int bad;
	unsigned int rounds;
	bool json;
	const char *json_path;
	bool normal;
	bool help;
	int from[2];
	int nr[2];
	bool may_ask[FZ_MAX_WORDS];
};

/*
 * cmp_model_option() - Apply compare's option @argv[*@i] to @w; the
 * option part of the words ends at @end (the first "--", or argc), so
 * no value is taken from past it.  *@i is moved past a value word.
 * Return: whether the option is good.
 */
static bool cmp_model_option(char **argv, int end, int *i,
			     struct cmp_want *w)
{
	const char *word = argv[*i], *next = *i + 1 < end ? argv[*i + 1] : NULL;
	bool used = false, could;
	unsigned long n;
	const char *v;

	if (!strcmp(word, "-h") || !strcmp(word, "--help"))
		return w->help = true;
	if (!strcmp(word, "--output-format=normal"))
		return w->normal = true;
	if (!strcmp(word, "--output-format=json")) {
		w->normal = false;
		return w->json = true;
	}
	if (is_option(word, "--rounds")) {
		v = model_value(word, next, true, &used);
		*i += used;
		if (!v || expect_uint(v, 1, BENCH_MAX_ROUNDS, &n))
			return false;
		w->rounds = (unsigned int)n;
		return true;
	}
	if (is_option(word, "--json")) {
		could = next && (next[0] != '-' || !strcmp(next, "-"));
		if (could && !strchr(word, '='))
			w->may_ask[*i + 1] = true;
		v = model_value(word, next, could && !names_job_file(next),
				&used);
		*i += used;
		w->json = true;
		w->json_path = v && strcmp(v, "-") ? v : NULL;
		return !v || *v;
	}
	return false;
}

/* cmp_model_sides() - The sides, once the options are read. */
static void cmp_model_sides(int argc, char **argv, int first, int nr_files,
			    struct cmp_want *w)
{
	int second = first + 1;

	while (second < argc && strcmp(argv[second], "--"))
		second++;
	if (first < argc) {
		/* "-- A -- B": no job files, and both "--" given. */
		if (nr_files || second >= argc)
			return;
		w->from[0] = first + 1;
		w->nr[0] = second - first - 1;
		w->from[1] = second + 1;
		w->nr[1] = argc - second - 1;
	} else if (nr_files != 2) {
		return;
	}
	w->ok = w->nr[0] && w->nr[1];
}

/*
 * cmp_model() - compare's grammar, cmp_args.h: the words before the
 * first "--" are options and up to two job files; the rest are the
 * sides.
 */
static void cmp_model(int argc, char **argv, struct cmp_want *w)
{
	int i, first = 0, nr_files = 0;

	memset(w, 0, sizeof(*w));
	w->rounds = CMP_DEFAULT_ROUNDS;
	w->normal = true;
	w->bad = -1;
	while (first < argc && strcmp(argv[first], "--"))
		first++;
	for (i = 0; i < first; i++) {
		if (argv[i][0] != '-') {
			if (nr_files == 2)
				return;
			w->from[nr_files] = i;
			w->nr[nr_files++] = 1;
		} else if (!cmp_model_option(argv, first, &i, w)) {
			w->bad = i;
			return;
		}
	}
	if (w->help)
		w->ok = true;
	else
		cmp_model_sides(argc, argv, first, nr_files, w);
}

/* The words and the model's answer, for fake_json_word_is_file(). */
static char **cmp_argv;
static int cmp_argc;
static const struct cmp_want *cmp_wanted;

/*
 * fake_json_word_is_file() - The probe, on the file system above; the
 * parser may ask it only about the words the grammar says.
 */
static bool fake_json_word_is_file(const char *word)
{
	int i;

	for (i = 0; i < cmp_argc && cmp_argv[i] != word; i++)
		;
	FZ_CHECK(i < cmp_argc && cmp_wanted->may_ask[i],
		 "asked the disk about '%s', not the word after a bare --json",
		 word);
	return !names_job_file(word);
}

/* check_cmp() - A parse that succeeded against the model's answer. */
static void check_cmp(char **argv, const struct cmp_args *got,
		      const struct cmp_want *want)
{
	int k;

	FZ_CHECK(got->rounds == want->rounds && got->rounds >= 1 &&
		 got->rounds <= BENCH_MAX_ROUNDS, "rounds %u, want %u",
		 got->rounds, want->rounds);
	FZ_CHECK(got->json == want->json && got->normal == want->normal &&
		 got->help == want->help,
		 "flags: json %d normal %d help %d, want %d %d %d", got->json,
		 got->normal, got->help, want->json, want->normal, want->help);
	/* The very word, not a copy: argv outlives the options. */
	FZ_CHECK(got->json_path == want->json_path,
		 "json_path '%s', want '%s'", got->json_path ? got->json_path :
		 "(null)", want->json_path ? want->json_path : "(null)");
	if (want->help)
		return;
	for (k = 0; k < 2; k++)
		FZ_CHECK(got->side[k] == &argv[want->from[k]] &&
			 got->nr_side[k] == want->nr[k],
			 "side %c: %d words at %p, want %d at word %d (%p)",
			 'A' + k, got->nr_side[k], (void *)got->side[k],
			 want->nr[k], want->from[k],
			 (void *)&argv[want->from[k]]);
}

/*
 * fuzz_compare() - The words as compare's command line, in an argv of
 * exactly their number (ASan sees a read past it).
 */
static void fuzz_compare(const struct words *w, size_t errlen)
{
	char **argv = malloc(sizeof(*argv) * (size_t)w->nr);
	char *err = fz_buf_alloc(errlen);
	struct cmp_want want;
	struct cmp_args got;
	int ret;

	FZ_CHECK(argv || !w->nr, "out of memory");
	if (w->nr)
		memcpy(argv, w->word, sizeof(*argv) * (size_t)w->nr);
	cmp_model(w->nr, argv, &want);
	cmp_argv = argv;
	cmp_argc = w->nr;
	cmp_wanted = &want;
	/* Garbage in: the parser must set what no option does. */
	memset(&got, 0xa5, sizeof(got));
	ret = cmp_parse_args(w->nr, argv, fake_json_word_is_file, &got, err,
			     errlen);
	FZ_CHECK(ret == 0 || ret == -EINVAL, "cmp_parse_args() = %d", ret);
	FZ_CHECK(!ret == want.ok, "cmp_parse_args() = %d, want %s", ret,
		 want.ok ? "success" : "an error");
	if (ret)
		check_message(err, errlen, want.bad < 0 ? NULL :
			      argv[want.bad]);
	else
		check_cmp(argv, &got, &want);
	cmp_wanted = NULL;
	free(err);
	free(argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t errlens[] = { 160, 0, 1, 2, 23 };
	char *text = fz_text_begin(data, size);
	struct words w;
	struct want want;

	words_split(&w, text);
	model_parse(w.nr, w.word, &want);
	fuzz_parse(&w, &want, errlens[size % 5]);
	fuzz_from_argv(&w, &want, size % 2 ? "shm" : "swap");
	fuzz_words(&w);
	fuzz_compare(&w, errlens[size % 5]);
	words_free(&w);
	fz_text_end(text);
	return 0;
}
