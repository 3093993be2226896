// SPDX-License-Identifier: MIT
/*
 * tests/bench/test_bench_xarray.c - upcache-bench's helpers and the JSON
 * of its XArray suite.
 *
 * Link-level tests: the benchmark binary is never run.  Covers the
 * statistics (median, percentiles, min/max, paired ratios, the
 * upcache/kernel ratio), the option grammar (every bad input is exit
 * status 2 with a message naming the problem), bench_die()'s exit
 * status, the report's rows (fields by kind, summaries, a pair's gain
 * and whether it met its target), the JSON writer (valid RFC 8259 text
 * for awkward strings and non-finite numbers, misuse reported), the
 * kernel-layout node count, and the XArray suite itself run at its tiny
 * size: its JSON must parse and every row must carry every field the
 * plot script and CI read.
 *
 * Tests under tests/bench/ are linked with the benchmark's sources (all
 * of tools/bench/ but main.c, as an object library; see
 * cmake/UpcacheTests.cmake).
 */
#include <errno.h>

#include <upcache/xarray.h>

#include "../../tools/bench/json.h"
#include "../../tools/bench/options.h"
#include "../../tools/bench/samples.h"
#include "../../tools/bench/xa_layout.h"
#include "bench_helpers.h"

/* ------------------------------------------------------------------ */
/* Statistics                                                          */
/* ------------------------------------------------------------------ */

static void test_median(void **state)
{
	const double odd[] = { 9, 1, 5, 3, 7 };
	const double even[] = { 4, 1, 3, 2 };
	const double one[] = { 42 };

	(void)state;
	assert_near(bench_median(odd, 5), 5, 1e-12);
	assert_near(bench_median(even, 4), 2.5, 1e-12);
	assert_near(bench_median(one, 1), 42, 1e-12);
	assert_true(isnan(bench_median(odd, 0)));
	/* The input is left unsorted. */
	assert_near(odd[0], 9, 0);
}

static void test_percentiles(void **state)
{
	const double v[] = { 50, 10, 40, 20, 30 };

	(void)state;
	assert_near(bench_percentile(v, 5, 0), 10, 1e-12);
	assert_near(bench_percentile(v, 5, 100), 50, 1e-12);
	assert_near(bench_percentile(v, 5, 25), 20, 1e-12);
	/* Rank 0.9 * 4 = 3.6: 40 + 0.6 * (50 - 40). */
	assert_near(bench_percentile(v, 5, 90), 46, 1e-12);
	assert_near(bench_percentile(v, 5, 12.5), 15, 1e-12);
	assert_true(isnan(bench_percentile(v, 5, -1)));
	assert_true(isnan(bench_percentile(v, 5, 100.5)));
	assert_true(isnan(bench_percentile(v, 5, NAN)));
}

static void test_summary(void **state)
{
	const double v[] = { 3.5, 1.25, 8, 2 };
	struct bench_summary s;

	(void)state;
	assert_int_equal(bench_summarize(v, 4, &s), 0);
	assert_near(s.median, 2.75, 1e-12);
	assert_near(s.min, 1.25, 0);
	assert_near(s.max, 8, 0);
	assert_int_equal(s.n, 4);
	assert_int_equal(bench_summarize(v, 0, &s), -EINVAL);
}

static void test_ratios(void **state)
{
	const double before[] = { 10, 20, 30 };
	const double after[] = { 5, 5, 10 };
	const double zero[] = { 5, 0, 10 };
	struct bench_summary s;

	(void)state;
	assert_int_equal(bench_ratio_summary(before, after, 3, &s), 0);
	assert_near(s.median, 3, 1e-12);
	assert_near(s.min, 2, 1e-12);
	assert_near(s.max, 4, 1e-12);
	assert_int_equal(bench_ratio_summary(before, zero, 3, &s), -EDOM);

	assert_near(bench_ratio(31.5, 28), 1.125, 1e-12);
	assert_near(bench_ratio(9.14, 9.14), 1, 1e-12);
	assert_true(isnan(bench_ratio(10, NAN)));
	assert_true(isnan(bench_ratio(10, 0)));
	assert_true(isnan(bench_ratio(10, -1)));
	assert_true(isnan(bench_ratio(10, INFINITY)));
	assert_true(isnan(bench_ratio(NAN, 28)));
}

/* The sign test: counts, ties left out, and binomial p-values. */
static void test_sign_test(void **state)
{
	const double nine_ones[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	const double nine_twos[9] = { 2, 2, 2, 2, 2, 2, 2, 2, 2 };
	const double seven_two[9] = { 2, 2, 2, 2, 2, 2, 2, 0.5, 0.5 };
	const double mixed[9] = { 2, 0.5, 2, 0.5, 2, 0.5, 2, 0.5, 1 };
	double many_num[100], many_den[100];
	struct bench_sign sg;
	int i;

	(void)state;
	/* 9 of 9 one way: p = 2 / 2^9. */
	bench_sign_test(nine_twos, nine_ones, 9, &sg);
	assert_int_equal(sg.above, 9);
	assert_int_equal(sg.below, 0);
	assert_near(sg.p, 2.0 / 512, 1e-12);
	bench_sign_test(nine_ones, nine_twos, 9, &sg);
	assert_int_equal(sg.above, 0);
	assert_int_equal(sg.below, 9);
	assert_near(sg.p, 2.0 / 512, 1e-12);
	/* 7 against 2: p = 2 (1 + 9 + 36) / 512. */
	bench_sign_test(seven_two, nine_ones, 9, &sg);
	assert_int_equal(sg.above, 7);
	assert_int_equal(sg.below, 2);
	assert_near(sg.p, 92.0 / 512, 1e-12);
	/* 4 against 4 and a tie: even, p capped at 1. */
	bench_sign_test(mixed, nine_ones, 9, &sg);
	assert_int_equal(sg.above, 4);
	assert_int_equal(sg.below, 4);
	assert_near(sg.p, 1, 1e-12);
	/* Only ties: nothing differs. */
	bench_sign_test(nine_ones, nine_ones, 9, &sg);
	assert_int_equal(sg.above + sg.below, 0);
	assert_near(sg.p, 1, 1e-12);
	bench_sign_test(nine_ones, nine_ones, 0, &sg);
	assert_true(isnan(sg.p));
	/* 100 rounds, all one way: 2^-99, no overflow on the way. */
	for (i = 0; i < 100; i++) {
		many_num[i] = 1;
		many_den[i] = 2;
	}
	bench_sign_test(many_num, many_den, 100, &sg);
	assert_int_equal(sg.below, 100);
	assert_near(sg.p / ldexp(1.0, -99), 1, 1e-9);
}

/* ------------------------------------------------------------------ */
/* Options and exit status                                             */
/* ------------------------------------------------------------------ */

/* parse() - bench_options_from_argv() on a NULL-terminated list. */
static int parse(struct bench_options *opts, char *msg, size_t len, ...)
{
	char *argv[16];
	int argc = 0, status;
	FILE *errf = fmemopen(msg, len, "w");
	va_list ap;

	assert_non_null(errf);
	va_start(ap, len);
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	memset(msg, 0, len);
	status = bench_options_from_argv("xarray", argc, argv, opts, errf);
	fclose(errf);
	return status;
}

static void test_options_good(void **state)
{
	struct bench_options o;
	char msg[256];

	(void)state;
	assert_int_equal(parse(&o, msg, sizeof(msg), NULL), 0);
	assert_false(o.quick || o.json || o.tiny || o.help);
	assert_int_equal(o.rounds, 0);
	assert_int_equal(o.size, 0);

	assert_int_equal(parse(&o, msg, sizeof(msg), "--quick", "--json",
			       "out.json", "--rounds", "7", "--size=256K",
			       NULL), 0);
	assert_true(o.quick && o.json);
	assert_string_equal(o.json_path, "out.json");
	assert_int_equal(o.rounds, 7);
	assert_int_equal(o.size, 256UL << 10);
	assert_string_equal(msg, "");

	/* --json before another option, or with "-": stdout. */
	assert_int_equal(parse(&o, msg, sizeof(msg), "--json", "--quick",
			       NULL), 0);
	assert_true(o.json && o.quick);
	assert_null(o.json_path);
	assert_int_equal(parse(&o, msg, sizeof(msg), "--json", "-", NULL), 0);
	assert_null(o.json_path);
	assert_int_equal(parse(&o, msg, sizeof(msg), "--json=r.json",
			       "--size", "1M", "-h", NULL), 0);
	assert_string_equal(o.json_path, "r.json");
	assert_int_equal(o.size, 1UL << 20);
	assert_true(o.help);
}

/* expect_bad() - The arguments are refused: status 2 and @needle said. */
#define expect_bad(needle, ...) do {					\
	struct bench_options o;						\
	char msg[256];							\
									\
	assert_int_equal(parse(&o, msg, sizeof(msg), __VA_ARGS__, NULL), \
			 BENCH_EXIT_ERROR);				\
	assert_non_null(strstr(msg, "upcache-bench xarray: "));	\
	assert_non_null(strstr(msg, needle));				\
} while (0)

static void test_options_bad(void **state)
{
	(void)state;
	expect_bad("unknown option '--bogus'", "--bogus");
	expect_bad("unknown option '--quik'", "--quik=1");
	expect_bad("unexpected argument 'extra'", "--quick", "extra");
	expect_bad("--size: '12x' is not a size", "--size", "12x");
	expect_bad("--size: 'K' is not a size", "--size=K");
	expect_bad("--size: '-5' is not a size", "--size", "-5");
	expect_bad("--size: '1K' is out of range", "--size", "1K");
	expect_bad("--size: '17M' is out of range", "--size", "17M");
	expect_bad("--size: '99999999999999999999' is out of range",
		   "--size", "99999999999999999999");
	expect_bad("--size needs a value", "--size");
	expect_bad("--rounds: '0' is out of range", "--rounds", "0");
	expect_bad("--rounds: 'many' is not a number", "--rounds=many");
	/* Not a number, however many digits come first. */
	expect_bad("--rounds: '99999999999999999999x' is not a number",
		   "--rounds", "99999999999999999999x");
	expect_bad("--size: '99999999999999999999xK' is not a size",
		   "--size=99999999999999999999xK");
	expect_bad("--quick takes no value", "--quick=yes");
	expect_bad("--json: missing file name", "--json=");
}

static void test_parse_size(void **state)
{
	unsigned long v = 0;

	(void)state;
	assert_int_equal(bench_parse_size("4096", 1, ~0UL, &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(bench_parse_size("3k", 1, ~0UL, &v), 0);
	assert_int_equal(v, 3072);
	assert_int_equal(bench_parse_size("2G", 1, ~0UL, &v), 0);
	assert_int_equal(v, 2UL << 30);
	assert_int_equal(bench_parse_size("", 1, ~0UL, &v), -EINVAL);
	assert_int_equal(bench_parse_size("1.5M", 1, ~0UL, &v), -EINVAL);
	assert_int_equal(bench_parse_size("1MB", 1, ~0UL, &v), -EINVAL);
	assert_int_equal(bench_parse_size("0", 1, ~0UL, &v), -ERANGE);
	assert_int_equal(bench_parse_size("99999999999G", 1, ~0UL, &v),
			 -ERANGE);
	assert_int_equal(bench_parse_size("99999999999999999999", 1, ~0UL, &v),
			 -ERANGE);
	assert_int_equal(bench_parse_size("99999999999999999999x", 1, ~0UL, &v),
			 -EINVAL);
	assert_int_equal(bench_parse_uint("99999999999999999999x", 1, ~0UL, &v),
			 -EINVAL);
}

/* die_load_seq() - In the child: bench_die() as a wrong load would. */
static void die_load_seq(void *arg)
{
	(void)arg;
	bench_die("xarray %s: index %#lx is wrong", "load_seq", 5UL);
}

static void test_die_status(void **state)
{
	static const char msg[] = "upcache-bench: xarray load_seq: "
				  "index 0x5 is wrong\n";

	(void)state;
	/* The message, and nothing else. */
	assert_string_equal(bt_expect_exit2(die_load_seq, NULL, msg), msg);
}

static void test_output_bad_path(void **state)
{
	struct bench_options o = { .json = true,
				   .json_path = "/nonexistent-dir/x.json" };
	struct bench_output out;

	(void)state;
	assert_int_equal(bench_output_open(&o, &out), -ENOENT);
}

/* ------------------------------------------------------------------ */
/* JSON writer                                                         */
/* ------------------------------------------------------------------ */

static void test_json_awkward_values(void **state)
{
	struct bench_report rep;
	struct bench_row *row;
	char *text;

	(void)state;
	bench_report_init(&rep, "xarray");
	bench_row_set_str(&rep.meta, "mode", "tiny");
	row = bench_report_add_row(&rep, "quote\"back\\slash\ttab\x01");
	bench_row_set_num(row, "nan", NAN);
	bench_row_set_num(row, "inf", -INFINITY);
	bench_row_set_num(row, "big", 1e300);
	bench_row_set_num(row, "tiny", 2.5e-9);
	bench_row_set_num(row, "int", 1048576);
	bench_row_set_num(row, "neg", -0.5);
	bench_row_set_str(row, "utf8", "\xc3\xa9 and bad \xff\xfe bytes");
	bench_row_set_str(row, "null", NULL);
	bench_row_set_num(row, "int", 7);	/* replaces, keeps place */
	text = bt_report_json(&rep);
	free(bt_parse(text));
	assert_non_null(strstr(text, "\"benchmark\":\"xarray\""));
	assert_non_null(strstr(text, "\"mode\":\"tiny\""));
	assert_non_null(strstr(text, "\"nan\":null"));
	assert_non_null(strstr(text, "\"inf\":null"));
	assert_non_null(strstr(text, "\"int\":7"));
	assert_null(strstr(text, "1048576"));
	assert_non_null(strstr(text, "\\ufffd"));
	assert_non_null(strstr(text, "\"null\":null"));
	free(text);
	bench_report_free(&rep);
}

/* ------------------------------------------------------------------ */
/* Report rows (report.c)                                              */
/* ------------------------------------------------------------------ */

/* Fields: set, read back by kind, replaced in place. */
static void test_report_fields(void **state)
{
	struct bench_report rep;
	struct bench_row *row;

	(void)state;
	bench_report_init(&rep, "t");
	row = bench_report_add_row(&rep, "r");
	bench_row_set_num(row, "a", 1.5);
	bench_row_set_str(row, "s", "text");
	bench_row_set_str(row, "n", NULL);
	assert_int_equal(row->nr_fields, 3);
	assert_near(bench_row_num(row, "a"), 1.5, 0);
	/* A string or null field has no number. */
	assert_true(isnan(bench_row_num(row, "s")));
	assert_true(isnan(bench_row_num(row, "n")));
	assert_true(isnan(bench_row_num(row, "missing")));
	assert_null(bench_row_get(row, "missing"));
	assert_int_equal(bench_row_get(row, "n")->kind, BENCH_FIELD_NULL);
	/* Setting a key again replaces it, whatever its kind was. */
	bench_row_set_num(row, "s", 2);
	bench_row_set_str(row, "a", "now text");
	assert_int_equal(row->nr_fields, 3);
	assert_near(bench_row_num(row, "s"), 2, 0);
	assert_string_equal(bench_row_get(row, "a")->str, "now text");
	bench_report_free(&rep);
}

/* A summary sets its median, min and max under their own keys. */
static void test_report_summary(void **state)
{
	const struct bench_summary s = { .median = 2, .min = 1, .max = 3,
					 .n = 3 };
	struct bench_report rep;
	struct bench_row *row;

	(void)state;
	bench_report_init(&rep, "t");
	row = bench_report_add_row(&rep, "r");
	bench_row_set_summary(row, "x", "x_min", "x_max", &s);
	assert_near(bench_row_num(row, "x"), 2, 0);
	assert_near(bench_row_num(row, "x_min"), 1, 0);
	assert_near(bench_row_num(row, "x_max"), 3, 0);
	bench_row_set_summary(row, "y", NULL, NULL, &s);
	assert_null(bench_row_get(row, "y_min"));
	assert_int_equal(row->nr_fields, 4);
	bench_row_set_summary(row, "x", "x_min", "x_max", NULL);
	assert_true(isnan(bench_row_num(row, "x")));
	assert_true(isnan(bench_row_num(row, "x_min")));
	assert_true(isnan(bench_row_num(row, "x_max")));
	bench_report_free(&rep);
}

/*
 * A pair's gain: speedups become percentages, and the target is met at
 * exactly the target.  A baseline row has every gain field null.
 */
static void test_report_gain(void **state)
{
	const struct bench_summary at = { .median = 1.25, .min = 0.5,
					  .max = 2, .n = 3 };
	const struct bench_summary below = { .median = 1.2, .min = 1.2,
					     .max = 1.2, .n = 1 };
	struct bench_report rep;
	struct bench_row *row, *base;

	(void)state;
	bench_report_init(&rep, "t");
	row = bench_report_add_row(&rep, "new");
	assert_near(bench_row_set_gain(row, &at, 25), 25, 1e-12);
	assert_near(bench_row_num(row, "speedup"), 1.25, 0);
	assert_near(bench_row_num(row, "speedup_min"), 0.5, 0);
	assert_near(bench_row_num(row, "speedup_max"), 2, 0);
	assert_near(bench_row_num(row, "gain_pct"), 25, 1e-12);
	assert_near(bench_row_num(row, "gain_pct_min"), -50, 1e-12);
	assert_near(bench_row_num(row, "gain_pct_max"), 100, 1e-12);
	assert_near(bench_row_num(row, "target_gain_pct"), 25, 0);
	assert_string_equal(bench_row_get(row, "target_met")->str, "yes");
	bench_row_set_gain(row, &below, 25);
	assert_string_equal(bench_row_get(row, "target_met")->str, "no");
	/* No target: nothing to meet. */
	bench_row_set_gain(row, &at, NAN);
	assert_int_equal(bench_row_get(row, "target_met")->kind,
			 BENCH_FIELD_NULL);

	base = bench_report_add_row(&rep, "baseline");
	assert_true(isnan(bench_row_set_gain(base, NULL, 25)));
	assert_true(isnan(bench_row_num(base, "gain_pct")));
	assert_true(isnan(bench_row_num(base, "speedup_min")));
	assert_true(isnan(bench_row_num(base, "target_gain_pct")));
	assert_int_equal(bench_row_get(base, "target_met")->kind,
			 BENCH_FIELD_NULL);
	bench_report_free(&rep);
}

/* How a run was timed, with the CPUs that could run it. */
static void test_report_meta_rounds(void **state)
{
	struct bench_report rep;

	(void)state;
	bench_report_init(&rep, "t");
	bench_meta_set_rounds(&rep.meta, 9, 1);
	assert_near(bench_row_num(&rep.meta, "rounds"), 9, 0);
	assert_near(bench_row_num(&rep.meta, "warmup_rounds"), 1, 0);
	assert_near(bench_row_num(&rep.meta, "cpus"),
		    sysconf(_SC_NPROCESSORS_ONLN), 0);
	bench_report_free(&rep);
}

static void test_json_misuse(void **state)
{
	struct bench_json js;
	FILE *f = fopen("/dev/null", "w");

	(void)state;
	assert_non_null(f);
	bench_json_init(&js, f);
	bench_json_begin_object(&js);
	bench_json_number(&js, 1);		/* a value without a key */
	bench_json_end_object(&js);
	assert_int_equal(bench_json_finish(&js), -EINVAL);

	bench_json_init(&js, f);
	bench_json_begin_array(&js);		/* never closed */
	assert_int_equal(bench_json_finish(&js), -EINVAL);

	bench_json_init(&js, f);
	bench_json_begin_array(&js);
	bench_json_end_object(&js);		/* wrong bracket */
	assert_int_equal(bench_json_finish(&js), -EINVAL);
	fclose(f);
}

/* ------------------------------------------------------------------ */
/* Kernel layout                                                       */
/* ------------------------------------------------------------------ */

static void test_layout(void **state)
{
	const size_t n = 1UL << 20;
	unsigned long *idx = bench_xcalloc(n, sizeof(*idx));
	const unsigned long zero = 0, five = 5, far = ~0UL;
	size_t i;

	(void)state;
	for (i = 0; i < n; i++)
		idx[i] = n - 1 - i;
	/* 16384 leaves + 256 + 4 + 1: the kernel's 9.14 B/entry. */
	assert_int_equal(bench_xa_layout_nodes(idx, n),
			 (n >> 6) + (n >> 12) + (n >> 18) + 1);
	assert_near(bench_xa_layout_bytes_per_entry(idx, n), 9.14, 0.005);
	assert_int_equal(bench_xa_layout_nodes(&zero, 1), 0);
	assert_int_equal(bench_xa_layout_nodes(&five, 1), 1);
	/* One entry at the top of the index space: a full-height chain. */
	assert_int_equal(bench_xa_layout_nodes(&far, 1),
			 (BITS_PER_LONG + XA_CHUNK_SHIFT - 1) / XA_CHUNK_SHIFT);
	free(idx);
}

/* ------------------------------------------------------------------ */
/* The XArray suite's JSON                                             */
/* ------------------------------------------------------------------ */

static const char *const suite_rows[] = {
	"store_seq", "load_seq", "load_random", "erase_seq", "sparse_store",
	"sparse_load", "xas_for_each", "xa_for_each", "order9_store",
	"order9_load_random", "split_order9", "try_split_order9",
	"conflict_scan", "bytes_per_entry_dense", "bytes_per_entry_sparse",
	"load_random_1thread", "load_random_2threads",
};

#define NR_SUITE_ROWS	BT_ARRAY_SIZE(suite_rows)

/* Every row has these, null where they do not apply. */
static const char *const row_keys[] = {
	"name", "unit", "value", "value_min", "value_max", "kernel_ref",
	"kernel_ref_note", "ratio", "ns_per_op", "ns_per_op_min",
	"ns_per_op_max", "kernel_ref_ns", "walks_per_op",
	"node_allocs_per_op", "node_frees_per_op", "locks_per_op", "rounds",
	"ops_per_round",
};

static const char *const top_keys[] = {
	"benchmark", "mode", "entries", "rounds", "kernel_ref_source", "rows",
};

static void test_suite_json(void **state)
{
	const struct bench_row *r;
	struct bench_report rep;
	struct jread *jr;
	char *text;
	size_t i;

	(void)state;
	assert_int_equal(bt_run_tiny(bench_suite_xarray, "xarray", &rep), 0);

	text = bt_report_json(&rep);
	jr = bt_parse_suite(text, "xarray", top_keys, BT_ARRAY_SIZE(top_keys));
	bt_check_rows(jr, suite_rows, NR_SUITE_ROWS);
	bt_rows_have(jr, row_keys, BT_ARRAY_SIZE(row_keys), false);
	free(jr);

	assert_int_equal(rep.nr_rows, NR_SUITE_ROWS);
	for (i = 0; i < NR_SUITE_ROWS; i++)
		assert_string_equal(rep.rows[i].name, suite_rows[i]);

	r = bt_row(&rep, "store_seq");
	assert_string_equal(bench_row_get(r, "unit")->str, "ns/op");
	assert_near(bench_row_num(r, "kernel_ref_ns"), 28, 0);
	assert_near(bench_row_num(r, "ratio"),
		    bench_row_num(r, "ns_per_op") / 28, 1e-9);
	assert_true(bench_row_num(r, "value_min") <= bench_row_num(r, "value"));
	assert_true(bench_row_num(r, "value") <= bench_row_num(r, "value_max"));
	assert_near(bench_row_num(r, "locks_per_op"), 1, 0);

	r = bt_row(&rep, "order9_load_random");
	assert_true(isnan(bench_row_num(r, "kernel_ref")));
	assert_true(isnan(bench_row_num(r, "ratio")));

	r = bt_row(&rep, "sparse_store");
	assert_string_equal(bench_row_get(r, "kernel_ref_note")->str,
			    "1600-2000");

	/* Stores into an empty array allocate the kernel's nodes, exactly. */
	r = bt_row(&rep, "bytes_per_entry_dense");
	assert_true(isnan(bench_row_num(r, "ns_per_op")));
	assert_near(bench_row_num(r, "bytes_per_entry"),
		    bench_row_num(r, "kernel_layout_bytes_per_entry"), 1e-9);
	assert_near(bench_row_num(r, "bytes_per_entry"), 9.14, 0.005);
	r = bt_row(&rep, "bytes_per_entry_sparse");
	assert_near(bench_row_num(r, "bytes_per_entry"),
		    bench_row_num(r, "kernel_layout_bytes_per_entry"), 1e-9);

	/* A bytes row's figure is its nodes per entry times a node's size. */
	for (i = 0; i < NR_SUITE_ROWS; i++) {
		r = bt_row(&rep, suite_rows[i]);
		if (strncmp(suite_rows[i], "bytes_per_entry", 15))
			continue;
		assert_near(bench_row_num(r, "node_bytes"),
			    sizeof(struct xa_node), 0);
		assert_near(bench_row_num(r, "bytes_per_entry"),
			    bench_row_num(r, "nodes_per_entry") *
			    sizeof(struct xa_node), 1e-9);
		assert_true(isnan(bench_row_num(r, "kernel_ref_ns")));
	}

	/*
	 * Throughput: Mops per thread is 1000 over the ns per load (with an
	 * odd count of rounds both medians are one round's), and the
	 * 2-thread row's scaling is its rate over the 1-thread row's.
	 */
	r = bt_row(&rep, "load_random_1thread");
	assert_near(bench_row_num(r, "scaling"), 1, 0);
	assert_string_equal(bench_row_get(r, "unit")->str, "Mops/thread");
	assert_int_equal((int)bench_row_num(r, "rounds") % 2, 1);
	assert_near(bench_row_num(r, "mops_per_thread") *
		    bench_row_num(r, "ns_per_op"), 1000, 1e-9);
	r = bt_row(&rep, "load_random_2threads");
	assert_near(bench_row_num(r, "threads"), 2, 0);
	assert_near(bench_row_num(r, "mops_per_thread"),
		    bench_row_num(r, "value"), 0);
	assert_near(bench_row_num(r, "mops_per_thread") *
		    bench_row_num(r, "ns_per_op"), 1000, 1e-9);
	assert_near(bench_row_num(r, "scaling"),
		    bench_row_num(r, "mops_per_thread") /
		    bench_row_num(bt_row(&rep, "load_random_1thread"),
				  "mops_per_thread"), 1e-12);

	free(text);
	bench_report_free(&rep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median),
		cmocka_unit_test(test_percentiles),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_ratios),
		cmocka_unit_test(test_sign_test),
		cmocka_unit_test(test_options_good),
		cmocka_unit_test(test_options_bad),
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_die_status),
		cmocka_unit_test(test_output_bad_path),
		cmocka_unit_test(test_report_fields),
		cmocka_unit_test(test_report_summary),
		cmocka_unit_test(test_report_gain),
		cmocka_unit_test(test_report_meta_rounds),
		cmocka_unit_test(test_json_awkward_values),
		cmocka_unit_test(test_json_misuse),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_suite_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
