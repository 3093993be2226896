/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/options.h - the options every upcache-bench suite takes.
 *
 *	--json [FILE]	write the suite's JSON object to FILE; without FILE
 *			(or with "-") to stdout, and the table then goes to
 *			stderr so stdout stays parseable.  Also --json=FILE.
 *	--quick		smaller sizes and fewer rounds (well under a minute)
 *	--rounds N	rounds per figure, 1..BENCH_MAX_ROUNDS (also --rounds=N)
 *	--size N	entries of the main array: N, NK or NM (binary units),
 *			BENCH_MIN_SIZE..BENCH_MAX_SIZE (also --size=N)
 *	--swap-file PATH
 *			the swap suite only: swap to files (PATH and
 *			PATH.whole) instead of devices in memory; any other
 *			suite refuses it rather than ignore it
 *	--tiny		hidden: test-suite sizes, about a second per suite
 *	-h, --help	usage
 *
 * Bad input (an unknown option, a bad number or size, a missing or
 * unexpected value, a stray argument) is an error with a one-line message
 * and exit status BENCH_EXIT_ERROR.
 *
 * Pure code (no upcache calls, no getenv()), compiled into tests/bench/
 * directly.
 */
#ifndef UPCACHE_TOOLS_BENCH_OPTIONS_H
#define UPCACHE_TOOLS_BENCH_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util.h"

#define BENCH_MAX_ROUNDS	100
#define BENCH_MIN_SIZE		4096UL
#define BENCH_MAX_SIZE		(16UL << 20)

/**
 * struct bench_options - the parsed command line of one suite.
 * @json: Write the JSON object.
 * @json_path: File for the JSON; NULL means stdout.
 * @quick: Scale sizes and rounds down.
 * @tiny: Scale down to test size (hidden option, or UPC_BENCH_TINY=1).
 * @help: -h or --help was given.
 * @rounds: Rounds per figure; 0 means the suite's default.
 * @size: Entries of the main array; 0 means the mode's default.
 * @swap_file: --swap-file's path (the swap suite's), or NULL.
 */
struct bench_options {
	bool json;
	const char *json_path;
	bool quick;
	bool tiny;
	bool help;
	unsigned int rounds;
	unsigned long size;
	const char *swap_file;
};

/**
 * bench_opt_error() - Format an option error's message into @err.
 * @err: Where the message goes (nothing is written if @errlen is 0).
 * @errlen: Its size.
 * @fmt: printf() format of the message.
 *
 * Return: -EINVAL, so a parser can return it directly.
 */
__attribute__((format(printf, 3, 4)))
int bench_opt_error(char *err, size_t errlen, const char *fmt, ...);

/**
 * bench_json_path() - Where a --json option sends the JSON.
 * @value: Its FILE: from "--json=FILE", the word after a bare --json
 *	that the command's grammar takes as FILE, or NULL for none.
 * @path: Set to FILE, or to NULL (stdout) without one or for "-".
 * @err: Buffer for a one-line message on error.
 * @errlen: Size of @err.
 *
 * The one rule of every command's --json (the suites', run's and
 * compare's): an empty FILE, as in "--json=", is an error.
 * Return: 0, or -EINVAL with the message in @err.
 */
int bench_json_path(const char *value, const char **path, char *err,
		    size_t errlen);

/**
 * bench_parse_uint() - Parse a decimal number within limits.
 * @s: The text: digits only, no sign, no spaces, no suffix.
 * @min: Smallest accepted value.
 * @max: Largest accepted value.
 * @out: The number, set only on success.
 *
 * Return: 0; -EINVAL if @s is not a decimal number; -ERANGE if it is
 * outside @min..@max.
 */
int bench_parse_uint(const char *s, unsigned long min, unsigned long max,
		     unsigned long *out);

/**
 * bench_parse_size() - Parse a count with an optional binary suffix.
 * @s: Digits, then optionally one of K, M or G (either case): 256K is
 *	262144.
 * @min: Smallest accepted value.
 * @max: Largest accepted value.
 * @out: The count, set only on success.
 *
 * Return: 0; -EINVAL if @s is not a size; -ERANGE if it is outside
 * @min..@max.
 */
int bench_parse_size(const char *s, unsigned long min, unsigned long max,
		     unsigned long *out);

/**
 * bench_parse_options() - Parse a suite's options.
 * @argc: Number of arguments in @argv.
 * @argv: The arguments after the suite's name; kept by reference
 *	(@opts->json_path points into it).
 * @opts: The result, zeroed first.
 * @err: Buffer for a one-line message on error.
 * @errlen: Size of @err.
 *
 * Return: 0; -EINVAL for bad input, described in @err.
 */
int bench_parse_options(int argc, char **argv, struct bench_options *opts,
			char *err, size_t errlen);

/**
 * bench_options_from_argv() - Parse a suite's options, or report why not.
 * @suite: The suite's name, for the message.
 * @argc: Number of arguments in @argv.
 * @argv: The arguments after the suite's name.
 * @opts: The result.
 * @errf: Where the message goes (stderr in the tool).
 *
 * Prints "upcache-bench SUITE: MESSAGE (try --help)" on bad input,
 * which includes an option of another suite (--swap-file outside the
 * swap suite).
 *
 * Return: 0, or BENCH_EXIT_ERROR for bad input: the exit status.
 */
int bench_options_from_argv(const char *suite, int argc, char **argv,
			    struct bench_options *opts, FILE *errf);

/**
 * bench_options_apply_env() - Apply UPC_BENCH_TINY from the environment.
 * @opts: Options to update.
 * @tiny_env: The value of UPC_BENCH_TINY, or NULL if unset.
 *
 * Any value but "" and "0" turns on @opts->tiny.
 */
void bench_options_apply_env(struct bench_options *opts, const char *tiny_env);

#endif /* UPCACHE_TOOLS_BENCH_OPTIONS_H */
