// SPDX-License-Identifier: MIT
/*
 * tools/bench/options.c - parse the common options of a suite.
 *
 * Owns the command-line grammar after the suite's name: a table of
 * options says which take a value (always, optionally or never), one
 * small handler per option stores it, and bench_parse_options() only
 * splits "--name=value", finds the value in the next argument when the
 * option wants one, and dispatches.
 *
 * Conventions: @opts is the result, @err/@errlen the message buffer.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include "options.h"

int bench_opt_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/*
 * options_digits() - Parse the decimal digits at @s up to @end.
 * Every character is looked at before an overflow counts, so that text
 * which is no number ("99999999999999999999x") is -EINVAL, as
 * options.h says, and not reported as out of range.
 * Return: 0, -EINVAL for no digits or a non-digit, -ERANGE on overflow.
 */
static int options_digits(const char *s, const char *end, unsigned long *out)
{
	unsigned long v = 0, d;
	bool over = false;

	if (s == end)
		return -EINVAL;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		d = (unsigned long)(*s - '0');
		if (v > (~0UL - d) / 10)
			over = true;
		v = v * 10 + d;
	}
	if (over)
		return -ERANGE;
	*out = v;
	return 0;
}

/**
 * bench_parse_uint() - Parse a decimal number within limits.
 * @s: The text: digits only.
 * @min: Smallest accepted value.
 * @max: Largest accepted value.
 * @out: The number, set only on success.
 *
 * Return: 0, -EINVAL if not a number, -ERANGE if out of range.
 */
int bench_parse_uint(const char *s, unsigned long min, unsigned long max,
		     unsigned long *out)
{
	unsigned long v;
	int ret;

	if (!s)
		return -EINVAL;
	ret = options_digits(s, s + strlen(s), &v);
	if (ret)
		return ret;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/**
 * bench_parse_size() - Parse a count with an optional binary suffix.
 * @s: Digits, then optionally K, M or G.
 * @min: Smallest accepted value.
 * @max: Largest accepted value.
 * @out: The count, set only on success.
 *
 * Return: 0, -EINVAL if not a size, -ERANGE if out of range.
 */
int bench_parse_size(const char *s, unsigned long min, unsigned long max,
		     unsigned long *out)
{
	static const char suffixes[] = "kKmMgG";
	const char *end, *suf;
	unsigned int shift = 0;
	unsigned long v;
	int ret;

	if (!s || !*s)
		return -EINVAL;
	end = s + strlen(s);
	suf = strchr(suffixes, end[-1]);
	if (suf) {
		shift = 10 * (unsigned int)(1 + (suf - suffixes) / 2);
		end--;
	}
	ret = options_digits(s, end, &v);
	if (ret)
		return ret;
	if (v > (~0UL >> shift))
		return -ERANGE;
	v <<= shift;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/* options_rounds() - Handle the value of --rounds. */
static int options_rounds(const char *name, const char *value,
			  struct bench_options *opts, char *err, size_t errlen)
{
	unsigned long v;
	int ret = bench_parse_uint(value, 1, BENCH_MAX_ROUNDS, &v);

	if (ret == -ERANGE)
		return bench_opt_error(err, errlen,
				     "%s: '%s' is out of range 1..%d",
				     name, value, BENCH_MAX_ROUNDS);
	if (ret)
		return bench_opt_error(err, errlen, "%s: '%s' is not a number",
				     name, value);
	opts->rounds = (unsigned int)v;
	return 0;
}

/* options_size() - Handle the value of --size. */
static int options_size(const char *name, const char *value,
			struct bench_options *opts, char *err, size_t errlen)
{
	int ret = bench_parse_size(value, BENCH_MIN_SIZE, BENCH_MAX_SIZE,
				   &opts->size);

	if (ret == -ERANGE)
		return bench_opt_error(err, errlen,
				     "%s: '%s' is out of range %luK..%luM",
				     name, value, BENCH_MIN_SIZE >> 10,
				     BENCH_MAX_SIZE >> 20);
	if (ret)
		return bench_opt_error(err, errlen,
				     "%s: '%s' is not a size (N, NK or NM)",
				     name, value);
	return 0;
}

int bench_json_path(const char *value, const char **path, char *err,
		    size_t errlen)
{
	if (value && !*value)
		return bench_opt_error(err, errlen,
				       "--json: missing file name");
	*path = value && strcmp(value, "-") ? value : NULL;
	return 0;
}

/* options_json() - Handle --json, --json FILE and --json=FILE. */
static int options_json(const char *name, const char *value,
			struct bench_options *opts, char *err, size_t errlen)
{
	(void)name;
	if (bench_json_path(value, &opts->json_path, err, errlen))
		return -EINVAL;
	opts->json = true;
	return 0;
}

/* options_swap_file() - Handle the value of --swap-file. */
static int options_swap_file(const char *name, const char *value,
			     struct bench_options *opts, char *err,
			     size_t errlen)
{
	if (!*value)
		return bench_opt_error(err, errlen, "%s: missing file name",
				     name);
	opts->swap_file = value;
	return 0;
}

/*
 * enum options_arg - what an option takes.
 * @OPT_NONE: Nothing; "--name=value" is an error.
 * @OPT_REQUIRED: A value, as "--name=value" or "--name value".
 * @OPT_OPTIONAL: A value as "--name=value", or as "--name value" when the
 *	next argument is "-" or does not start with '-'.
 */
enum options_arg {
	OPT_NONE,
	OPT_REQUIRED,
	OPT_OPTIONAL,
};

/**
 * struct options_spec - one option of the grammar.
 * @name: Its spelling.
 * @arg: What it takes.
 * @handle: Stores it (@value is NULL when none was given); NULL for a
 *	flag, which sets the bool at @flag in struct bench_options.
 * @flag: offsetof() the flag's bool, for @handle NULL.
 */
struct options_spec {
	const char *name;
	enum options_arg arg;
	int (*handle)(const char *name, const char *value,
		      struct bench_options *opts, char *err, size_t errlen);
	size_t flag;
};

#define OPTIONS_FLAG(name, field) \
	{ name, OPT_NONE, NULL, offsetof(struct bench_options, field) }

static const struct options_spec options_specs[] = {
	{ "--json",	OPT_OPTIONAL,	options_json,	0 },
	{ "--rounds",	OPT_REQUIRED,	options_rounds,	0 },
	{ "--size",	OPT_REQUIRED,	options_size,	0 },
	{ "--swap-file", OPT_REQUIRED,	options_swap_file, 0 },
	OPTIONS_FLAG("--quick", quick),
	OPTIONS_FLAG("--tiny", tiny),
	OPTIONS_FLAG("--help", help),
	OPTIONS_FLAG("-h", help),
};

#define NR_OPTIONS	(sizeof(options_specs) / sizeof(options_specs[0]))

/* options_find() - The spec of @name, or NULL. */
static const struct options_spec *options_find(const char *name)
{
	size_t i;

	for (i = 0; i < NR_OPTIONS; i++)
		if (!strcmp(options_specs[i].name, name))
			return &options_specs[i];
	return NULL;
}

/*
 * options_next_is_value() - May @next be the value of an option of kind
 * @arg?
 */
static bool options_next_is_value(enum options_arg arg, const char *next)
{
	if (!next || arg == OPT_NONE)
		return false;
	if (arg == OPT_REQUIRED)
		return true;
	return next[0] != '-' || !strcmp(next, "-");
}

/*
 * options_arg() - Handle argument @arg, with @next the one after it (or
 * NULL); sets @used_next when @next was its value.
 */
static int options_arg(const char *arg, const char *next, bool *used_next,
		       struct bench_options *opts, char *err, size_t errlen)
{
	const struct options_spec *spec;
	const char *eq = strchr(arg, '=');
	const char *value = eq ? eq + 1 : NULL;
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
	char name[32];

	if (arg[0] != '-' || !strcmp(arg, "-") || !strcmp(arg, "--"))
		return bench_opt_error(err, errlen, "unexpected argument '%s'",
				     arg);
	if (len >= sizeof(name))
		return bench_opt_error(err, errlen, "unknown option '%.40s'",
				     arg);
	memcpy(name, arg, len);
	name[len] = '\0';
	spec = options_find(name);
	if (!spec)
		return bench_opt_error(err, errlen, "unknown option '%s'", name);
	if (value && spec->arg == OPT_NONE)
		return bench_opt_error(err, errlen, "%s takes no value", name);
	if (!value && options_next_is_value(spec->arg, next)) {
		value = next;
		*used_next = true;
	}
	if (!value && spec->arg == OPT_REQUIRED)
		return bench_opt_error(err, errlen, "%s needs a value", name);
	if (!spec->handle) {
		*(bool *)((char *)opts + spec->flag) = true;
		return 0;
	}
	return spec->handle(name, value, opts, err, errlen);
}

/**
 * bench_parse_options() - Parse a suite's options.
 * @argc: Number of arguments in @argv.
 * @argv: The arguments after the suite's name.
 * @opts: The result.
 * @err: Buffer for a one-line message on error.
 * @errlen: Size of @err.
 *
 * Return: 0, or -EINVAL for bad input described in @err.
 */
int bench_parse_options(int argc, char **argv, struct bench_options *opts,
			char *err, size_t errlen)
{
	int i, ret;

	memset(opts, 0, sizeof(*opts));
	if (errlen)
		err[0] = '\0';
	for (i = 0; i < argc; i++) {
		bool used_next = false;
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;

		ret = options_arg(argv[i], next, &used_next, opts, err, errlen);
		if (ret)
			return ret;
		i += used_next;
	}
	return 0;
}

/**
 * bench_options_from_argv() - Parse a suite's options, or report why not.
 * @suite: The suite's name.
 * @argc: Number of arguments in @argv.
 * @argv: The arguments after the suite's name.
 * @opts: The result.
 * @errf: Where the message goes.
 *
 * Return: 0, or BENCH_EXIT_ERROR after printing the message.
 */
int bench_options_from_argv(const char *suite, int argc, char **argv,
			    struct bench_options *opts, FILE *errf)
{
	char err[160];

	if (!bench_parse_options(argc, argv, opts, err, sizeof(err))) {
		/* One suite's option is an error elsewhere, not ignored. */
		if (!opts->swap_file || !strcmp(suite, "swap"))
			return 0;
		snprintf(err, sizeof(err), "--swap-file is an option of the "
			 "swap suite only");
	}
	fprintf(errf, "upcache-bench %s: %s (try --help)\n", suite, err);
	return BENCH_EXIT_ERROR;
}

/**
 * bench_options_apply_env() - Apply UPC_BENCH_TINY from the environment.
 * @opts: Options to update.
 * @tiny_env: The value of UPC_BENCH_TINY, or NULL if unset.
 */
void bench_options_apply_env(struct bench_options *opts, const char *tiny_env)
{
	if (tiny_env && *tiny_env && strcmp(tiny_env, "0"))
		opts->tiny = true;
}
