// SPDX-License-Identifier: MIT
/*
 * tests/bench/test_bench_compare.c - how `upcache-bench compare` pairs
 * its two sides.
 *
 * The side that runs first alternates from round to round (seen in
 * whether the side that keeps its file or the one that removes it ran
 * last); rows that differ
 * between the sides are an error, not paired silently, except a job
 * one side skips, which pairs with nothing to compare; a figure that is
 * 0 on side A (a lock count) is still reported, with its medians and no
 * ratio; every figure's medians and per-pair ratios are consistent
 * summaries of the same rounds.  Bad command lines are said as the
 * suites say them (the grammar itself is fuzzed: fuzz_bench_args).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "bench_helpers.h"
#include "cmp_args.h"

#define compare_status(...) \
	bt_call_argv(bench_suite_compare_argv, __VA_ARGS__)

/*
 * Both sides write one file: A removes it when done (unlink=1), B keeps
 * it (unlink=0).  So the file is there afterwards exactly when B ran
 * last: after one round (A B) and three (A B, B A, A B), not after two.
 */
static void test_compare_alternates_first_side(void **state)
{
	char dir[96], path[128], rounds[8];
	struct stat st;
	unsigned int n;

	(void)state;
	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	snprintf(path, sizeof(path), "%s/w.img", bt_tmpdir);
	for (n = 1; n <= 3; n++) {
		snprintf(rounds, sizeof(rounds), "%u", n);
		assert_int_equal(compare_status("--rounds", rounds,
			"--output-format=json", "--json=/dev/null",
			"--", "--name=w", "--ioengine=kernel-psync",
			"--rw=write", "--size=64k", "--unlink=1",
			"--filename=w.img", dir,
			"--", "--name=w", "--ioengine=kernel-psync",
			"--rw=write", "--size=64k", "--unlink=0",
			"--filename=w.img", dir, NULL), 0);
		if (n % 2) {
			assert_int_equal(stat(path, &st), 0);
			assert_int_equal(unlink(path), 0);
		} else {
			assert_int_not_equal(stat(path, &st), 0);
		}
	}
}

/* compare_empty_json() - compare with "--json=", as its process would. */
static void compare_empty_json(void *arg)
{
	(void)arg;
	exit(compare_status("--json=", "--", "--name=x",
			    "--ioengine=upcache-shmem", "--size=64k", "--",
			    "--name=x", "--ioengine=upcache-shmem",
			    "--size=64k", NULL));
}

/*
 * An empty --json file name is bad input, said as the suites say it,
 * before anything runs (it used to be taken for the file "").
 */
static void test_compare_refuses_empty_json(void **state)
{
	(void)state;
	bt_expect_exit2(compare_empty_json, NULL, "--json: missing file name");
}

/*
 * A --rounds without its N is said as the suites say it, not as an
 * empty number ("--rounds: '' is not a number in 1..100").
 */
static void test_compare_rounds_needs_value(void **state)
{
	char *argv[] = { "a.fio", "b.fio", "--rounds" };
	struct cmp_args a;
	char err[200];

	(void)state;
	assert_int_equal(cmp_parse_args(3, argv, bench_json_word_is_file, &a,
					err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--rounds needs a value");
}

/*
 * The same number of rows, but other jobs, or other directions: an
 * error, not a pairing.
 */
static void test_compare_refuses_other_rows(void **state)
{
	(void)state;
	assert_int_equal(compare_status("--rounds", "1",
		"--output-format=json", "--json=/dev/null",
		"--", "--name=x", "--ioengine=upcache-shmem", "--rw=read",
		"--size=64k", "--name=y", "--ioengine=upcache-shmem",
		"--rw=write", "--size=64k",
		"--", "--name=y", "--ioengine=upcache-shmem", "--rw=write",
		"--size=64k", "--name=x", "--ioengine=upcache-shmem",
		"--rw=read", "--size=64k", NULL), BENCH_EXIT_ERROR);
	assert_int_equal(compare_status("--rounds", "1",
		"--output-format=json", "--json=/dev/null",
		"--", "--name=x", "--ioengine=upcache-shmem", "--rw=read",
		"--size=64k",
		"--", "--name=x", "--ioengine=upcache-shmem", "--rw=write",
		"--size=64k", NULL), BENCH_EXIT_ERROR);
	/* (Syncs on one side only are no error: test_bench_run_sync.c.) */
}

/*
 * A job one side skips (a kernel baseline held to a memory_limit= below
 * its files, which tmpfs cannot be) pairs with the other side's row:
 * nothing to compare, not an error.
 */
static void test_compare_pairs_skipped_job(void **state)
{
	char json[128], arg[160], dir[96];
	char *text;

	(void)state;
	snprintf(json, sizeof(json), "%s/skip.json", bt_tmpdir);
	snprintf(arg, sizeof(arg), "--json=%s", json);
	assert_int_equal(compare_status("--rounds", "2",
		"--output-format=json", arg,
		"--", "--name=big", "--ioengine=upcache-shmem", "--rw=read",
		"--size=4m",
		"--", "--name=big", "--ioengine=kernel-psync", "--rw=read",
		"--size=4m", "--memory_limit=2m", NULL), 0);
	text = bt_slurp(json);
	assert_non_null(text);
	assert_non_null(strstr(text, "\"benchmark\":\"compare\""));
	assert_null(strstr(text, "\"figure\":"));
	free(text);
	assert_int_equal(unlink(json), 0);
	/* A writer, whose entry has a write row and a sync row: skipped
	 * first (as A) or second, it still pairs. */
	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	assert_int_equal(compare_status("--rounds", "2",
		"--output-format=json", arg,
		"--", "--name=w", "--ioengine=kernel-psync", "--rw=write",
		"--size=4m", "--memory_limit=2m", "--end_fsync", dir,
		"--", "--name=w", "--ioengine=upcache-file", "--rw=write",
		"--size=4m", "--memory_limit=2m", "--end_fsync", dir, NULL), 0);
	text = bt_slurp(json);
	assert_non_null(text);
	assert_null(strstr(text, "\"figure\":"));
	free(text);
	assert_int_equal(compare_status("--rounds", "1",
		"--output-format=json", "--json=/dev/null",
		"--", "--name=w", "--ioengine=upcache-file", "--rw=write",
		"--size=4m", "--memory_limit=2m", "--end_fsync", dir,
		"--", "--name=w", "--ioengine=kernel-psync", "--rw=write",
		"--size=4m", "--memory_limit=2m", "--end_fsync", dir, NULL), 0);
	assert_int_equal(unlink(json), 0);
}

/*
 * upcache-shmem reads take no i_pages lock, upcache-file reads one: the
 * locks_per_op row is there with both medians and a null ratio.
 */
static void test_compare_reports_zero_on_a(void **state)
{
	char dir[96], json[128], arg[160];
	char *text, *row, *end;

	(void)state;
	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	snprintf(json, sizeof(json), "%s/cmp.json", bt_tmpdir);
	snprintf(arg, sizeof(arg), "--json=%s", json);
	assert_int_equal(compare_status("--rounds", "2",
		"--output-format=json", arg,
		"--", "--name=r", "--ioengine=upcache-shmem", "--rw=read",
		"--size=256k",
		"--", "--name=r", "--ioengine=upcache-file", "--rw=read",
		"--size=256k", dir, NULL), 0);
	text = bt_slurp(json);
	assert_non_null(text);
	row = strstr(text, "\"figure\":\"locks_per_op\"");
	assert_non_null(row);
	end = strchr(row, '}');
	assert_non_null(end);
	*end = '\0';
	assert_non_null(strstr(row, "\"a_median\":0"));
	assert_null(strstr(row, "\"b_median\":0,"));
	assert_non_null(strstr(row, "\"ratio_median\":null"));
	free(text);
	assert_int_equal(unlink(json), 0);
}

/*
 * check_summaries() - Row @row's medians and ratio as summaries must be:
 * each median inside its [min, max], and the ratio of the medians B/A
 * inside the per-pair ratios' [min, max] (a median keeps an order that
 * holds pair by pair), which lie within what the sides' extremes allow.
 * @strict: The figure is a timing of a run of milliseconds, measured in
 *	nanoseconds, so no two rounds are equal: each min < median < max.
 */
static void check_summaries(const struct jrow *row, bool strict)
{
	static const char *const sides[] = { "a", "b", "ratio" };
	double lo, mid, hi, eps = 1e-5;	/* the JSON's six digits */
	char key[32];
	size_t i;

	for (i = 0; i < 3; i++) {
		snprintf(key, sizeof(key), "%s_min", sides[i]);
		lo = jread_row_num(row, key);
		snprintf(key, sizeof(key), "%s_median", sides[i]);
		mid = jread_row_num(row, key);
		snprintf(key, sizeof(key), "%s_max", sides[i]);
		hi = jread_row_num(row, key);
		assert_true(lo <= mid && mid <= hi);
		if (strict)
			assert_true(lo < mid && mid < hi);
	}
	mid = jread_row_num(row, "b_median") / jread_row_num(row, "a_median");
	assert_true(mid >= jread_row_num(row, "ratio_min") * (1 - eps));
	assert_true(mid <= jread_row_num(row, "ratio_max") * (1 + eps));
	assert_true(jread_row_num(row, "ratio_max") <=
		    jread_row_num(row, "b_max") / jread_row_num(row, "a_min") *
		    (1 + eps));
	assert_true(jread_row_num(row, "ratio_min") >=
		    jread_row_num(row, "b_min") / jread_row_num(row, "a_max") *
		    (1 - eps));
	assert_near(jread_row_num(row, "rounds"), 3, 0);
}

/*
 * Two sides far apart (4 KiB against 64 KiB reads, so a side's extremes
 * cannot stand in for the other's): every figure with a ratio is
 * summarised consistently, and IOPS, a timing, has no ties.
 */
static void test_compare_summaries(void **state)
{
	char json[128], arg[160];
	struct jread *jr;
	char *text;
	int i, with_ratio = 0;

	(void)state;
	snprintf(json, sizeof(json), "%s/cmp.json", bt_tmpdir);
	snprintf(arg, sizeof(arg), "--json=%s", json);
	assert_int_equal(compare_status("--rounds", "3",
		"--output-format=json", arg,
		"--", "--name=r", "--ioengine=upcache-shmem", "--rw=read",
		"--size=32m", "--bs=4k",
		"--", "--name=r", "--ioengine=upcache-shmem", "--rw=read",
		"--size=32m", "--bs=64k", NULL), 0);
	text = bt_slurp(json);
	assert_non_null(text);
	jr = bt_parse(text);
	assert_non_null(strstr(text, "\"rounds\":3"));
	/* Rows in the order of the figures: bw_MiBps, iops, ... */
	assert_non_null(strstr(text, "\"figure\":\"bw_MiBps\""));
	assert_true(strstr(text, "\"figure\":\"bw_MiBps\"") <
		    strstr(text, "\"figure\":\"iops\""));
	for (i = 0; i < jr->nr_rows; i++) {
		if (jread_row_kind(&jr->rows[i], "ratio_median") != 1)
			continue;
		check_summaries(&jr->rows[i], i == 1);
		with_ratio++;
	}
	assert_true(with_ratio >= 7);
	free(jr);
	free(text);
	assert_int_equal(unlink(json), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compare_alternates_first_side),
		cmocka_unit_test(test_compare_refuses_empty_json),
		cmocka_unit_test(test_compare_rounds_needs_value),
		cmocka_unit_test(test_compare_refuses_other_rows),
		cmocka_unit_test(test_compare_pairs_skipped_job),
		cmocka_unit_test(test_compare_reports_zero_on_a),
		cmocka_unit_test(test_compare_summaries),
	};

	return cmocka_run_group_tests(tests, bt_tmpdir_setup,
				      bt_tmpdir_teardown);
}
