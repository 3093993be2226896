// SPDX-License-Identifier: MIT
/*
 * tools/bench/cmp_args.c - the command line of `upcache-bench compare`
 * (the grammar is in cmp_args.h).
 *
 * Apart from the runs (cmp_suite.c) so that a fuzz target can hold it:
 * it touches no file itself, and asks the caller's probe whether the
 * word after a bare --json is a job file.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmp_args.h"
#include "options.h"

/* cmp_parse_own() - Handle one of compare's own options. */
static int cmp_parse_own(struct cmp_args *a, char **argv, int argc, int *i,
			 bool (*json_word_is_file)(const char *word),
			 char *err, size_t errlen)
{
	const char *arg = argv[*i];
	const char *next = *i + 1 < argc ? argv[*i + 1] : NULL;
	unsigned long v;

	if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
		a->help = true;
	} else if (!strcmp(arg, "--rounds") || !strncmp(arg, "--rounds=", 9)) {
		const char *val = arg[8] == '=' ? arg + 9 : next;

		if (arg[8] != '=')
			(*i)++;
		if (!val)
			return bench_opt_error(err, errlen,
					       "--rounds needs a value");
		if (bench_parse_uint(val, 1, BENCH_MAX_ROUNDS, &v)) {
			snprintf(err, errlen, "--rounds: '%s' is not a number "
				 "in 1..%d", val, BENCH_MAX_ROUNDS);
			return -EINVAL;
		}
		a->rounds = (unsigned int)v;
	} else if (!strcmp(arg, "--json") || !strncmp(arg, "--json=", 7)) {
		const char *val = arg[6] == '=' ? arg + 7 : NULL;

		if (!val && next && strcmp(next, "--") &&
		    (next[0] != '-' || !strcmp(next, "-")) &&
		    json_word_is_file(next)) {
			val = next;
			(*i)++;
		}
		if (bench_json_path(val, &a->json_path, err, errlen))
			return -EINVAL;
		a->json = true;
	} else if (!strcmp(arg, "--output-format=json")) {
		a->json = true;
		a->normal = false;
	} else if (!strcmp(arg, "--output-format=normal")) {
		a->normal = true;
	} else {
		snprintf(err, errlen, "unknown option '%s' (run options go "
			 "after '--')", arg);
		return -EINVAL;
	}
	return 0;
}

int cmp_parse_args(int argc, char **argv,
		   bool (*json_word_is_file)(const char *word),
		   struct cmp_args *a, char *err, size_t errlen)
{
	int i, first = -1, second = -1;

	memset(a, 0, sizeof(*a));
	a->rounds = CMP_DEFAULT_ROUNDS;
	a->normal = true;
	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			if (first < 0)
				first = i;
			else if (second < 0)
				second = i;
			continue;
		}
		if (first >= 0)
			continue;
		if (argv[i][0] != '-') {
			/* Two job files: compare A.fio B.fio. */
			if (a->nr_side[1]) {
				snprintf(err, errlen, "give two job files, or "
					 "'-- A -- B'");
				return -EINVAL;
			}
			a->side[a->nr_side[0] ? 1 : 0] = &argv[i];
			a->nr_side[a->nr_side[0] ? 1 : 0] = 1;
			continue;
		}
		if (cmp_parse_own(a, argv, argc, &i, json_word_is_file, err,
				  errlen))
			return -EINVAL;
	}
	if (a->help)
		return 0;
	if (first >= 0 && (a->nr_side[0] || second < 0)) {
		snprintf(err, errlen, "give '-- <options A> -- <options B>' "
			 "or two job files");
		return -EINVAL;
	}
	if (first >= 0) {
		a->side[0] = &argv[first + 1];
		a->nr_side[0] = second - first - 1;
		a->side[1] = &argv[second + 1];
		a->nr_side[1] = argc - second - 1;
	}
	if (!a->nr_side[0] || !a->nr_side[1]) {
		snprintf(err, errlen, "two configurations are needed: "
			 "'-- <options A> -- <options B>' or A.fio B.fio");
		return -EINVAL;
	}
	return 0;
}
