// SPDX-License-Identifier: MIT
/*
 * tests/fuzz/fuzz_bench_args.c - libFuzzer target: the options every
 * upcache-bench suite takes (tools/bench/options.c).
 *
 * This file owns the fuzzer's input format.  An input is text, cut at
 * its first NUL byte; each line is one command-line word, empty lines
 * included (a final newline does not start one more word), at most
 * FZ_MAX_WORDS of them.  A word is never a file to open: the parsers
 * only keep pointers to --json's and --swap-file's values.  Every input
 * is valid; the words are read three ways, and any broken contract
 * (options.h) prints the input and aborts:
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
 *
 * Not covered: a word holding a newline (the input's line break splits
 * it), and `upcache-bench compare`'s own options, which cmp_suite.c
 * parses in a static function beside the runs and asks the file system
 * about --json's word (bench_json_word_is_file()).
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

/* err_alloc() - A message buffer of exactly @errlen bytes, not zeroed. */
static char *err_alloc(size_t errlen)
{
	char *err = malloc(errlen);

	/* malloc(0) may be NULL, and nothing may be written to it anyway. */
	FZ_CHECK(err || !errlen, "out of memory");
	if (errlen)
		memset(err, 0xa5, errlen);
	return err;
}

static bool str_is(const char *s, const char *want)
{
	return s && want ? !strcmp(s, want) : s == want;
}

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
	FZ_CHECK(got->swap_file == want->swap_file && str_is(got->swap_file,
							     want->swap_file),
		 "swap_file '%s', want '%s'", got->swap_file ?
		 got->swap_file : "(null)", want->swap_file ?
		 want->swap_file : "(null)");
}

/*
 * check_message() - An error's message: terminated within @errlen, one
 * line, not empty, and quoting the start of the word blamed, @bad (when
 * the buffer has room for it).
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
	char *err = err_alloc(errlen);
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
				 "%s(\"%s\", %lu, %lu) = %d (%lu), want %d (%lu)",
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
	words_free(&w);
	fz_text_end(text);
	return 0;
}
