/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/cmp_args.h - the command line of `upcache-bench compare`.
 *
 *	upcache-bench compare [OPTION...] -- <run args A> -- <run args B>
 *	upcache-bench compare [OPTION...] A.fio B.fio
 *
 * Compare's own options come before the first "--" (or around the two
 * job files):
 *
 *	--rounds N	pairs of runs, 1..BENCH_MAX_ROUNDS (default
 *			CMP_DEFAULT_ROUNDS); also --rounds=N.  The word
 *			after a bare --rounds is its N, whatever it is.
 *	--json [FILE]	write the JSON object to FILE, or without FILE (or
 *			with "-") to stdout; also --json=FILE.  The word
 *			after a bare --json is its FILE when it is "-" or
 *			does not start with '-', and the caller's probe
 *			says it may be written (bench_json_word_is_file():
 *			not an existing job file).
 *	--output-format=json	the JSON object without the table
 *	--output-format=normal	the table (the default; after
 *			--output-format=json, both)
 *	-h, --help	usage; the words are still read, and the errors
 *			found while reading them (the first four below)
 *			still count, but the sides are not required
 *
 * The sides are either every word after the first "--" up to the
 * second, and every word after the second (a third "--" is one of B's
 * words), or two words not starting with '-' given among the options:
 * job files.  Nothing after the first "--" is read as compare's.
 *
 * Errors, each with a one-line message: a bad or missing N; an empty
 * FILE ("--json="); any other word starting with '-' before the first
 * "--", "-" alone included; a third job file; then, without --help: job
 * files and "--" both, or one "--" alone; a side without words, or
 * fewer than two job files.
 *
 * Pure code (no upcache calls, no file access but through the caller's
 * probe), compiled into tests/fuzz/ directly.
 */
#ifndef UPCACHE_TOOLS_BENCH_CMP_ARGS_H
#define UPCACHE_TOOLS_BENCH_CMP_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#define CMP_DEFAULT_ROUNDS	5

/**
 * struct cmp_args - the parsed command line.
 * @rounds: Pairs of runs.
 * @json: Write the JSON object.
 * @json_path: Its file (the word itself, in argv), or NULL for stdout.
 * @normal: Print the table.
 * @help: --help was given.
 * @side: The run arguments of A and B, pointing into argv.  Not
 *	meaningful with @help.
 * @nr_side: How many each (1 for a job file).
 */
struct cmp_args {
	unsigned int rounds;
	bool json;
	const char *json_path;
	bool normal;
	bool help;
	char **side[2];
	int nr_side[2];
};

/**
 * cmp_parse_args() - Split compare's command line into its options, A
 *	and B.
 * @argc: Number of arguments in @argv.
 * @argv: The arguments after "compare"; kept by reference (@a->side,
 *	@a->json_path).
 * @json_word_is_file: May the word after a bare --json be written as
 *	its FILE?  Asked only about such a word that is "-" or does not
 *	start with '-'; the tool passes bench_json_word_is_file().
 * @a: The result, zeroed first.
 * @err: Buffer for a one-line message on error.
 * @errlen: Size of @err.
 *
 * Return: 0; -EINVAL for bad input (see the errors above), described in
 * @err.
 */
int cmp_parse_args(int argc, char **argv,
		   bool (*json_word_is_file)(const char *word),
		   struct cmp_args *a, char *err, size_t errlen);

#endif /* UPCACHE_TOOLS_BENCH_CMP_ARGS_H */
