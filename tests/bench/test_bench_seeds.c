// SPDX-License-Identifier: MIT
/*
 * tests/bench/test_bench_seeds.c - `upcache-bench seeds`, in-process at
 * the tests' size.
 *
 * Runs experiments 001, 002, 003 and 004 (the ones whose suites are
 * quick at --tiny) into a temporary directory and reads their JSON back: one
 * valid object per experiment in the suites' shape, every measured row
 * with its before, after, change and speed over the kernel, the change
 * derived from the speedup as the seeds print it, the counters the
 * design is argued with (one walk to add over a shadow against three
 * before; two walks for a swap cache add and delete through the helper,
 * as through the loop it replaced; swap cache trees of at most 3 levels
 * per 64 MiB chunk; fewer walks per populating write than a grab per
 * folio), the reason given for a missing kernel figure or one that is
 * not like for like (seed 002's huge rows against a tmpfs without huge
 * pages), and bad arguments giving exit status 2.
 *
 * Linked with the benchmark's sources (see cmake/UpcacheTests.cmake).
 */
#include <upcache/xarray.h>

#include "../../tools/bench/shm_suite.h"
#include "bench_helpers.h"

/*
 * Equal but for the JSON's six significant digits: a figure derived from
 * a rounded speedup s (a change of 100 * (1/s - 1) percent) is off by up
 * to 100 * 5e-6 / s, a thousandth of a percent for s near 1.
 */
#define assert_close(a, b) \
	assert_true(fabs((double)(a) - (double)(b)) <= \
		    1e-3 * (1 + fabs((double)(b))))

static char tmpdir[] = "/tmp/upc-bench-seeds-XXXXXX";

/* seeds() - Run `seeds` with the NULL-ended arguments; its status. */
static int seeds(const char *first, ...)
{
	char *argv[16];
	int argc = 0;
	va_list ap;

	va_start(ap, first);
	for (const char *a = first; a && argc < 16; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	return bench_suite_seeds_argv(argc, argv);
}

/* The text of the file read_json() read last (the reader keeps no strings). */
static char *last_text;

/*
 * read_json() - Parse DIR/seed-@id.json; fail if it is not valid.
 * Return: What the reader found (bt_parse()): free() it.
 */
static struct jread *read_json(const char *id)
{
	struct jread *jr;
	char path[256], *text;
	FILE *f;
	long len;

	snprintf(path, sizeof(path), "%s/seed-%s.json", tmpdir, id);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	assert_true(len > 0);
	rewind(f);
	text = calloc(1, (size_t)len + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	jr = bt_parse(text);
	free(last_text);
	last_text = text;
	return jr;
}

/* has_text() - The text read_json() read last contains @needle. */
static bool has_text(const char *needle)
{
	return last_text && strstr(last_text, needle);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	return seeds("--tiny", "--only", "001,002,003,004", "--out", tmpdir,
		      NULL);
}

static int teardown(void **state)
{
	static const char *const names[] = {
		"001.json", "001.txt", "002.json", "002.txt", "003.json",
		"003.txt", "004.json", "004.txt",
	};
	char path[256];
	size_t i;

	(void)state;
	free(last_text);
	last_text = NULL;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/seed-%s", tmpdir, names[i]);
		unlink(path);
	}
	return rmdir(tmpdir);
}

/* check_row() - The figures every measured row carries, consistent. */
static void check_row(const struct jrow *row, bool higher_better)
{
	double before = jread_row_num(row, "before");
	double after = jread_row_num(row, "after");

	assert_true(before > 0 && after > 0);
	double speedup = jread_row_num(row, "speedup");

	assert_true(speedup > 0);
	assert_close(jread_row_num(row, "change_pct"),
		     100.0 * ((higher_better ? speedup : 1 / speedup) - 1));
	/* Per-round ratios lie between the sides' extremes, not far off. */
	assert_true(speedup < 100 * (higher_better ? after / before :
					   before / after));
	assert_int_equal(jread_row_kind(row, "figure"), 0);
	assert_int_equal(jread_row_kind(row, "kernel") < 0, 0);
	/* "Before" against the kernel, as many times faster, either way up. */
	if (jread_row_kind(row, "kernel") == 1) {
		double kernel = jread_row_num(row, "kernel");

		assert_close(jread_row_num(row, "before_vs_kernel"),
			     higher_better ? before / kernel : kernel / before);
	}
}

static void test_seed001_add_rows(void **state)
{
	static const char *const top[] = {
		"benchmark", "seed", "title", "seed_claim", "mode",
		"measured_by", "rows",
	};
	struct jread *jr;
	const struct jrow *row;
	size_t i;

	(void)state;
	jr = read_json("001");
	for (i = 0; i < sizeof(top) / sizeof(top[0]); i++)
		assert_true(jread_has_top(jr, top[i]));
	/* Nothing of the experiment is pending any more. */
	assert_false(jread_has_top(jr, "pending"));
	assert_int_equal(jr->nr_rows, 3);

	row = jread_find_row(jr, "add_shadow0");
	assert_non_null(row);
	check_row(row, false);
	/* Seed 000's point: one walk where the old add made three. */
	assert_near(jread_row_num(row, "counter_before"), 3, 1e-9);
	assert_near(jread_row_num(row, "counter_after"), 1, 1e-9);
	/* The kernel's add has no userspace entry: no figure, a reason. */
	assert_int_equal(jread_row_kind(row, "kernel"), 0);
	assert_int_equal(jread_row_kind(row, "kernel_note"), 0);

	row = jread_find_row(jr, "add_split9");
	assert_non_null(row);
	check_row(row, false);
	assert_true(jread_row_num(row, "counter_after") <
		    jread_row_num(row, "counter_before"));

	/* The swap cache's use of the helper: a walk to add, one to delete. */
	row = jread_find_row(jr, "swapcache_add");
	assert_non_null(row);
	check_row(row, false);
	assert_true(has_text("\"name\":\"swapcache_add\",\"unit\":\"ns/op\""));
	assert_near(jread_row_num(row, "counter_after"), 2, 1e-9);
	assert_near(jread_row_num(row, "counter_before"), 2, 1e-9);
	assert_int_equal(jread_row_kind(row, "kernel_note"), 0);
	free(jr);
}

/* count_text() - How many times the text read_json() read has @needle. */
static size_t count_text(const char *needle)
{
	const char *p = last_text;
	size_t n = 0;

	while (p && (p = strstr(p, needle))) {
		n++;
		p += strlen(needle);
	}
	return n;
}

/*
 * Seed 002's kernel column: a row whose kernel file had other pages than
 * upcache's says so in its kernel_note, the suite's own words; the
 * others have none.  Which rows those are, the suite's choice of tmpfs
 * says (shmk_find(), as bench_suite_shmem() calls it at this size).
 */
static void test_seed002_kernel_notes(void **state)
{
	struct jread *jr;
	int huge;

	(void)state;
	jr = read_json("002");
	assert_int_equal(jr->nr_rows, 18);
	for (huge = 0; huge < 2; huge++) {
		struct shmk_info k;
		char note[sizeof(k.mismatch) + 32];
		size_t r;

		shmk_find(&shm_kernel_where, huge, (4UL << 20) + (16UL << 20),
			  &k);
		snprintf(note, sizeof(note), "\"kernel_note\":\"%s\"",
			 k.mismatch);
		for (r = 9 * (size_t)huge; r < 9 * (size_t)huge + 9; r++) {
			const struct jrow *row = &jr->rows[r];

			assert_non_null(strstr(jr->rows[r].name, huge ?
					       "_huge" : "_nohuge"));
			check_row(row, true);
			if (!k.usable) {
				assert_int_equal(jread_row_kind(row,
								"kernel"), 0);
				assert_int_equal(jread_row_kind(row,
								"kernel_note"),
						 0);
				continue;
			}
			assert_true(jread_row_num(row, "kernel") > 0);
			assert_int_equal(jread_row_kind(row, "kernel_note"),
					 k.matched ? -1 : 0);
		}
		/* The note is the suite's mismatch, in each of the 9 rows. */
		if (k.usable && !k.matched)
			assert_int_equal(count_text(note), 9);
	}
	free(jr);
}

static void test_seed003_swap_rows(void **state)
{
	static const char *const top[] = {
		"benchmark", "seed", "title", "seed_claim", "mode",
		"measured_by", "rows",
	};
	static const char *const extras[] = {
		"walks_per_swapout_before", "walks_per_swapout_after",
		"tree_nodes_before", "tree_nodes_after", "swapouts_before",
		"swapouts_after",
	};
	struct jread *jr;
	const struct jrow *row;
	size_t i;

	(void)state;
	jr = read_json("003");
	for (i = 0; i < sizeof(top) / sizeof(top[0]); i++)
		assert_true(jread_has_top(jr, top[i]));
	assert_false(jread_has_top(jr, "needs"));
	assert_int_equal(jr->nr_rows, 3);

	row = jread_find_row(jr, "memhog");
	assert_non_null(row);
	check_row(row, false);
	assert_true(has_text("\"name\":\"memhog\",\"unit\":\"ms\""));
	assert_true(has_text("\"counter\":\"max_height\""));
	/* A 64 MiB chunk's tree has 3 levels at most. */
	assert_true(jread_row_num(row, "counter_after") <= 3);
	assert_true(jread_row_num(row, "counter_before") >=
		    jread_row_num(row, "counter_after"));
	for (i = 0; i < sizeof(extras) / sizeof(extras[0]); i++)
		assert_true(jread_row_num(row, extras[i]) > 0);
	assert_near(jread_row_num(row, "swapouts_before"),
		    jread_row_num(row, "swapouts_after"), 0);
	/*
	 * The kernel's memhog (root: a memory cgroup and swap on a loop
	 * device): its time, upcache's speed over it and how its setup
	 * differs from the seed's; or none, and why.
	 */
	assert_int_equal(jread_row_kind(row, "kernel_note"), 0);
	if (jread_row_kind(row, "kernel") == 1) {
		assert_true(jread_row_num(row, "kernel") > 0);
		assert_true(jread_row_num(row, "upcache_vs_kernel") > 0);
		assert_true(has_text("\"kernel_note\":\"the kernel's ms, and "
				     "upcache's speed over them, are by the "
				     "wall clock"));
	} else {
		assert_int_equal(jread_row_kind(row, "kernel"), 0);
	}

	/* The walk seed 003 shortens, timed alone. */
	row = jread_find_row(jr, "swapcache_lookup");
	assert_non_null(row);
	check_row(row, false);
	assert_true(has_text("\"name\":\"swapcache_lookup\",\"unit\":"
			     "\"ns/op\""));
	assert_true(jread_row_num(row, "after") > 0);
	assert_true(jread_row_num(row, "before") > 0);

	row = jread_find_row(jr, "swap_cache_nodes");
	assert_non_null(row);
	check_row(row, false);
	assert_true(has_text("\"name\":\"swap_cache_nodes\",\"unit\":\"KiB\""));
	assert_true(has_text("\"counter\":\"tree_nodes\""));
	/* No per-round ratio for a count: the speedup is the medians'. */
	assert_close(jread_row_num(row, "speedup"),
		     jread_row_num(row, "before") / jread_row_num(row, "after"));
	/* Node memory is the nodes' count times one node's size. */
	assert_near(jread_row_num(row, "after") * 1024,
		    jread_row_num(row, "counter_after") *
		    sizeof(struct xa_node), 1e-3);
	free(jr);
}

static void test_seed004_populate_rows(void **state)
{
	static const char *const rows[] = { "populate_small", "populate_large" };
	struct jread *jr;
	size_t i;

	(void)state;
	jr = read_json("004");
	assert_int_equal(jr->nr_rows, 2);
	for (i = 0; i < 2; i++) {
		const struct jrow *row = jread_find_row(jr, rows[i]);

		assert_non_null(row);
		check_row(row, false);
		/* A kernel figure, or none and the reason. */
		if (jread_row_kind(row, "kernel") == 1)
			assert_true(jread_row_num(row,
						  "upcache_vs_kernel") > 0);
		else
			assert_int_equal(jread_row_kind(row, "kernel_note"),
					 0);
	}
	/* Small folios: one grab per write against a grab per folio. */
	assert_true(jread_row_num(&jr->rows[0], "counter_after") <
		    jread_row_num(&jr->rows[0], "counter_before"));
	free(jr);
}

static void test_seeds_bad_arguments(void **state)
{
	(void)state;
	assert_int_equal(seeds("--only", "009", NULL), BENCH_EXIT_ERROR);
	assert_int_equal(seeds("--only", "", NULL), BENCH_EXIT_ERROR);
	assert_int_equal(seeds("--only", "001,,003", NULL), BENCH_EXIT_ERROR);
	assert_int_equal(seeds("--rounds", "0", NULL), BENCH_EXIT_ERROR);
	assert_int_equal(seeds("--rounds", NULL), BENCH_EXIT_ERROR);
	assert_int_equal(seeds("--bogus", NULL), BENCH_EXIT_ERROR);
	assert_int_equal(seeds("--out", "/proc/no/such/dir", "--only", "003",
			       "--tiny", NULL), BENCH_EXIT_ERROR);
	assert_int_equal(seeds("--help", NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed001_add_rows),
		cmocka_unit_test(test_seed002_kernel_notes),
		cmocka_unit_test(test_seed003_swap_rows),
		cmocka_unit_test(test_seed004_populate_rows),
		cmocka_unit_test(test_seeds_bad_arguments),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
