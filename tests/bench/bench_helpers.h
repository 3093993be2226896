/* SPDX-License-Identifier: MIT */
/*
 * tests/bench/bench_helpers.h - what the benchmark suites' tests
 * (tests/bench/test_bench_*.c) share.
 *
 *  - bt_suite_run() runs a suite in-process at its tiny size, its table
 *    thrown away, and keeps its report and the report's JSON text;
 *  - bt_row(), bt_num() and bt_str() read a report row's fields, failing
 *    the test where a field the test relies on is missing; bt_sign_p()
 *    recomputes a sign test's p-value;
 *  - bt_json_valid(), bt_parse() and bt_parse_suite() read JSON text with
 *    the strict reader of tests/utils/jread.h; bt_check_rows() and
 *    bt_rows_have() check the rows the reader found;
 *  - bt_expect_exit2() runs a function in a child process that must end
 *    with exit status 2 (BENCH_EXIT_ERROR) and a message on stderr (the
 *    fork and capture are tests/utils/death.h's test_run_child());
 *  - bt_call_argv() runs a subcommand's argv entry point (run, compare)
 *    on a NULL-terminated list of arguments; bt_slurp() reads a file;
 *    bt_rm_rf() removes a scratch directory.
 *
 * Helpers here assert with cmocka, so they may only be called from a
 * test's main thread (or a group's setup).
 *
 * Static functions in a header: each test program includes this once.
 * (Every tests/bench/test_*.c file is a program of its own, linked with
 * the benchmark's sources but main.c; see cmake/UpcacheTests.cmake.)
 */
#ifndef UPCACHE_TESTS_BENCH_BENCH_HELPERS_H
#define UPCACHE_TESTS_BENCH_BENCH_HELPERS_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../tools/bench/output.h"
#include "../../tools/bench/report.h"
#include "../../tools/bench/suite.h"
#include "../../tools/bench/util.h"
#include "death.h"
#include "jread.h"

#define BT_UNUSED	__attribute__((unused))

#define BT_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* assert_near() - @a is @b, give or take @eps. */
#define assert_near(a, b, eps) \
	assert_true(fabs((double)(a) - (double)(b)) <= (eps))

/**
 * struct bt_suite - a suite run once, for the tests that read it.
 * @rep: Its report.
 * @json: The report's JSON text, malloc()ed.
 */
struct bt_suite {
	struct bench_report rep;
	char *json;
};

/**
 * bt_run_tiny() - Run a suite in-process at its tiny size.
 * @fn: The suite.
 * @benchmark: Its name, for the report.
 * @rep: The report to fill; initialised here, bench_report_free() it.
 *
 * Its table goes to /dev/null.
 *
 * Return: What @fn returned; -1 if /dev/null could not be opened.
 */
static BT_UNUSED int bt_run_tiny(bench_suite_fn fn, const char *benchmark,
				 struct bench_report *rep)
{
	struct bench_options opts = { .tiny = true };
	struct bench_output out = { .table = fopen("/dev/null", "w") };
	int ret;

	bench_report_init(rep, benchmark);
	if (!out.table)
		return -1;
	ret = fn(&opts, &out, rep);
	fclose(out.table);
	return ret;
}

/**
 * bt_report_json() - A report's JSON text.
 * @rep: The report.
 *
 * Fails the test if the text cannot be written.
 *
 * Return: The text, malloc()ed.
 */
static BT_UNUSED char *bt_report_json(const struct bench_report *rep)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(bench_report_write_json(rep, f), 0);
	assert_int_equal(fclose(f), 0);
	return text;
}

/**
 * bt_suite_run() - Run a suite at its tiny size; keep its report and JSON.
 * @s: Receives the report and the text; bt_suite_free() it.
 * @fn: The suite.
 * @benchmark: Its name.
 *
 * Return: 0, or -1 if the suite failed (for a group's setup).
 */
static BT_UNUSED int bt_suite_run(struct bt_suite *s, bench_suite_fn fn,
				  const char *benchmark)
{
	s->json = NULL;
	if (bt_run_tiny(fn, benchmark, &s->rep))
		return -1;
	s->json = bt_report_json(&s->rep);
	return 0;
}

/**
 * bt_suite_free() - Free what bt_suite_run() kept.
 * @s: The suite's run.
 */
static BT_UNUSED void bt_suite_free(struct bt_suite *s)
{
	free(s->json);
	s->json = NULL;
	bench_report_free(&s->rep);
}

/**
 * bt_suite_teardown() - A group's teardown: bt_suite_free() the struct
 * bt_suite that the group's setup put in *@state.
 * @state: The group's state.
 *
 * Return: 0.
 */
static BT_UNUSED int bt_suite_teardown(void **state)
{
	bt_suite_free(*state);
	return 0;
}

/**
 * bt_row() - A report's row, by name.
 * @rep: The report.
 * @name: The row's name.
 *
 * Fails the test if there is no such row.
 *
 * Return: The row.
 */
static BT_UNUSED const struct bench_row *bt_row(const struct bench_report *rep,
						const char *name)
{
	size_t i;

	for (i = 0; i < rep->nr_rows; i++)
		if (!strcmp(rep->rows[i].name, name))
			return &rep->rows[i];
	fail_msg("no row %s", name);
	return NULL;
}

/**
 * bt_num() - A numeric field of a report's row.
 * @rep: The report.
 * @name: The row's name.
 * @key: The field's key.
 *
 * Fails the test if the row has no such field or it is not a number
 * (NaN counts as none: it is written as null).
 *
 * Return: The number.
 */
static BT_UNUSED double bt_num(const struct bench_report *rep,
			       const char *name, const char *key)
{
	double v = bench_row_num(bt_row(rep, name), key);

	if (isnan(v))
		fail_msg("%s.%s is not a number", name, key);
	return v;
}

/**
 * bt_str() - A string field of a report's row.
 * @rep: The report.
 * @name: The row's name.
 * @key: The field's key.
 *
 * Fails the test if the row has no such field.
 *
 * Return: The string; NULL if the field is null or a number.
 */
static BT_UNUSED const char *bt_str(const struct bench_report *rep,
				    const char *name, const char *key)
{
	const struct bench_field *f = bench_row_get(bt_row(rep, name), key);

	if (!f)
		fail_msg("%s lacks %s", name, key);
	return f->kind == BENCH_FIELD_STR ? f->str : NULL;
}

/**
 * bt_sign_p() - The sign test's two-sided p-value for @a rounds one way
 * and @b the other, from the binomial distribution with p = 1/2:
 * computed here on its own, to check bench_sign_test()'s in a report.
 * @a: Rounds won by one side.
 * @b: Rounds won by the other.
 *
 * Return: The p-value, at most 1.
 */
static BT_UNUSED double bt_sign_p(unsigned int a, unsigned int b)
{
	unsigned int n = a + b, k, tail = a < b ? a : b;
	double choose = 1, sum = 0, p;

	for (k = 0; k <= tail; k++) {
		sum += choose;
		choose = choose * (n - k) / (k + 1);
	}
	p = 2 * sum / pow(2, n);
	return p > 1 ? 1 : p;
}

/**
 * bt_json_valid() - Is @text exactly one JSON value, and white space?
 * @jr: Receives what jread_parse() read.
 * @text: The text.
 *
 * Return: true if jread_parse() accepts @text (escapes included).
 */
static BT_UNUSED bool bt_json_valid(struct jread *jr, const char *text)
{
	return jread_parse(jr, text);
}

/**
 * bt_parse() - Read JSON text that must be valid.
 * @text: The text.
 *
 * Fails the test if bt_json_valid() refuses @text.
 *
 * Return: What the reader found, calloc()ed (it is large): free() it.
 */
static BT_UNUSED struct jread *bt_parse(const char *text)
{
	struct jread *jr = calloc(1, sizeof(*jr));

	assert_non_null(jr);
	if (!bt_json_valid(jr, text)) {
		free(jr);
		fail_msg("not valid JSON: %.200s", text);
	}
	return jr;
}

/**
 * bt_parse_suite() - Read a suite's JSON text: one valid object in the
 * shape every suite writes.
 * @text: The text.
 * @benchmark: The suite's name: the object must begin
 *	{"benchmark":"<@benchmark>", and have "rows".
 * @top: Top-level keys it must have besides.
 * @nr_top: Number of @top.
 *
 * Return: As bt_parse().
 */
static BT_UNUSED struct jread *bt_parse_suite(const char *text,
					      const char *benchmark,
					      const char *const *top,
					      size_t nr_top)
{
	struct jread *jr = bt_parse(text);
	char head[64];
	size_t i;

	snprintf(head, sizeof(head), "{\"benchmark\":\"%s\",", benchmark);
	if (strncmp(text, head, strlen(head)))
		fail_msg("the text does not begin %s", head);
	if (!jread_has_top(jr, "rows"))
		fail_msg("top-level object lacks \"rows\"");
	for (i = 0; i < nr_top; i++)
		if (!jread_has_top(jr, top[i]))
			fail_msg("top-level object lacks \"%s\"", top[i]);
	return jr;
}

/**
 * bt_check_rows() - The rows are these, in this order, each object's
 * first member its "name".
 * @jr: What the reader found.
 * @names: The rows' names.
 * @nr: Number of @names.
 */
static BT_UNUSED void bt_check_rows(const struct jread *jr,
				    const char *const *names, size_t nr)
{
	size_t i;

	assert_int_equal(jr->nr_rows, nr);
	for (i = 0; i < nr; i++) {
		const struct jrow *row = &jr->rows[i];

		assert_string_equal(row->name, names[i]);
		assert_true(row->nr > 0);
		assert_string_equal(row->keys[0], "name");
	}
}

/**
 * bt_rows_have() - Every row has every one of @keys.
 * @jr: What the reader found.
 * @keys: The keys.
 * @nr: Number of @keys.
 * @numbers: Each must be a number, not null or a string.
 */
static BT_UNUSED void bt_rows_have(const struct jread *jr,
				   const char *const *keys, size_t nr,
				   bool numbers)
{
	int i;
	size_t k;

	for (i = 0; i < jr->nr_rows; i++) {
		const struct jrow *row = &jr->rows[i];

		for (k = 0; k < nr; k++) {
			int kind = jread_row_kind(row, keys[k]);

			if (kind < 0)
				fail_msg("row %s lacks \"%s\"", row->name,
					 keys[k]);
			if (numbers && kind != 1)
				fail_msg("row %s: \"%s\" is not a number",
					 row->name, keys[k]);
		}
	}
}

/*
 * Set in a bt_expect_exit2() child: it dies on purpose, through
 * bench_die(), with whatever it held.  LeakSanitizer's exit check would
 * report that and turn the exit status 2 into 1; worse, after fork() it
 * cannot see the pointers the parent's other threads held (liburcu's
 * call_rcu thread holding the XArray's deferred node frees), so its
 * verdict there is noise.  LSan asks __lsan_is_turned_off() at exit.
 */
static volatile int bt_child_dying;

__attribute__((weak, used)) int __lsan_is_turned_off(void);
__attribute__((weak, used)) int __lsan_is_turned_off(void)
{
	return bt_child_dying;
}

/* struct bt_dying - what a bt_expect_exit2() child runs. */
struct bt_dying {
	void (*fn)(void *arg);
	void *arg;
};

/* bt_dying_run() - In the child: LeakSanitizer off, then the function. */
static BT_UNUSED void bt_dying_run(void *arg)
{
	struct bt_dying *d = arg;

	bt_child_dying = 1;
	d->fn(d->arg);
}

/**
 * bt_expect_exit2() - Run @fn in a child that must fail as the benchmark
 * fails: exit status 2 (BENCH_EXIT_ERROR) and a message.
 * @fn: What the child runs; if it returns, the child exits with 0.
 * @arg: Its argument.
 * @needle: What the child's stderr must contain.
 *
 * Return: All the child wrote to stderr (the first 2047 bytes), in a
 * static buffer that the next call overwrites.
 */
static BT_UNUSED const char *bt_expect_exit2(void (*fn)(void *arg), void *arg,
					     const char *needle)
{
	static char buf[2048];
	struct bt_dying d = { fn, arg };
	int status = test_run_child(bt_dying_run, &d, buf, sizeof(buf));

	assert_true(status >= 0);
	if (!WIFEXITED(status))
		fail_msg("the child did not exit (status %#x): %s", status,
			 buf);
	if (WEXITSTATUS(status) != BENCH_EXIT_ERROR)
		fail_msg("the child exited with %d, not %d: %s",
			 WEXITSTATUS(status), BENCH_EXIT_ERROR, buf);
	if (!strstr(buf, needle))
		fail_msg("the child did not say \"%s\": %s", needle, buf);
	return buf;
}

/**
 * bt_call_argv() - Call @fn with the arguments from @first to a NULL.
 * @fn: A subcommand's entry point (bench_suite_run_argv(), ...).
 * @first: The first argument.
 *
 * At most 63 arguments.
 *
 * Return: What @fn returned: the process's exit status.
 */
static BT_UNUSED int bt_call_argv(int (*fn)(int argc, char **argv),
				  const char *first, ...)
{
	char *argv[64];
	const char *a;
	va_list ap;
	int argc = 0;

	va_start(ap, first);
	for (a = first; a && argc < 63; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	return fn(argc, argv);
}

/**
 * bt_slurp() - A file's text.
 * @path: The file.
 *
 * Return: Its first MiB, NUL-terminated, malloc()ed; NULL if it cannot
 * be opened.
 */
static BT_UNUSED char *bt_slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;

	if (!f)
		return NULL;
	buf = bench_xcalloc(1, 1 << 20);
	n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/**
 * bt_rm_rf() - Remove a test's scratch directory and what it holds.
 * @dir: The directory (made by mkdtemp()).
 *
 * Return: 0, or -1 if it could not be removed (for a group's teardown).
 */
static BT_UNUSED int bt_rm_rf(const char *dir)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/*
 * bt_tmpdir - the scratch directory of a test program that needs one:
 * made by bt_tmpdir_setup(), removed with all it holds by
 * bt_tmpdir_teardown() (a cmocka group's setup and teardown).
 */
static BT_UNUSED char bt_tmpdir[] = "/tmp/upc-bench-XXXXXX";

static BT_UNUSED int bt_tmpdir_setup(void **state)
{
	(void)state;
	return mkdtemp(bt_tmpdir) ? 0 : -1;
}

static BT_UNUSED int bt_tmpdir_teardown(void **state)
{
	(void)state;
	return bt_rm_rf(bt_tmpdir);
}

/*
 * bt_run_row_field() - The text after "@key": in the JSON row of `run`
 * job @name for direction @dir ("read", "write", "sync") in @text; fails
 * the test if there is none.
 */
static BT_UNUSED const char *bt_run_row_field(const char *text,
					      const char *name,
					      const char *dir, const char *key)
{
	char nm[64], dr[32], k[64];
	const char *row = text, *end, *at;

	snprintf(nm, sizeof(nm), "{\"name\":\"%s\"", name);
	snprintf(dr, sizeof(dr), "\"dir\":\"%s\"", dir);
	snprintf(k, sizeof(k), "\"%s\":", key);
	for (; (row = strstr(row, nm)); row++) {
		end = strchr(row, '}');
		at = strstr(row, dr);
		if (!at || at > end)
			continue;
		at = strstr(row, k);
		if (at && at < end)
			return at + strlen(k);
	}
	fail_msg("no %s for %s/%s", key, name, dir);
	return NULL;
}

/* bt_run_row_num() - bt_run_row_field()'s figure, as a number. */
static BT_UNUSED double bt_run_row_num(const char *text, const char *name,
				       const char *dir, const char *key)
{
	return strtod(bt_run_row_field(text, name, dir, key), NULL);
}

#endif /* UPCACHE_TESTS_BENCH_BENCH_HELPERS_H */
