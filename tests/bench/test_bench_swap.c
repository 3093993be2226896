// SPDX-License-Identifier: MIT
/*
 * tests/bench/test_bench_swap.c - upcache-bench's swap suite (seed 003).
 *
 * Runs the suite in-process at its tiny size and checks its JSON (the
 * common shape, the two rows, every field they promise), that the
 * figures hold together (every page past the limit swapped out, a
 * shadow in the swap cache for each, the walks reclaim makes per
 * swap-out: the swap cache's add and delete and the region's store, the
 * per-chunk trees at most 3 levels and never deeper than the whole
 * device's, node memory = nodes x node size, one tree per 64 MiB chunk
 * against one), the kernel side's figures where it runs (as root: memhog
 * in a memory cgroup swapping to a loop device), the swap-file variant
 * (files created and removed), and
 * the option's errors: --swap-file outside the swap suite and a --size
 * too large end with exit status 2.
 *
 * Linked with the benchmark's sources (see cmake/UpcacheTests.cmake).
 */
#include <signal.h>
#include <sys/stat.h>

#include <upcache/swap.h>

#include "../../tools/bench/kernel_disk.h"
#include "../../tools/bench/options.h"
#include "../../tools/bench/sw_cases.h"
#include "../../tools/bench/sw_kernel.h"
#include "bench_helpers.h"

static const char *const suite_rows[] = { "memhog", "memhog_baseline" };

#define NR_SUITE_ROWS	BT_ARRAY_SIZE(suite_rows)

static struct bt_suite suite;

static int suite_setup(void **state)
{
	*state = &suite;
	return bt_suite_run(&suite, bench_suite_swap, "swap");
}

/* num() - A numeric field of the suite's row @name (bt_num()). */
static double num(const char *name, const char *key)
{
	return bt_num(&suite.rep, name, key);
}

/* meta() - A numeric fact of the run. */
static double meta(const char *key)
{
	return bench_row_num(&suite.rep.meta, key);
}

/* The common shape, strict JSON, both rows with every promised field. */
static void test_swap_json_shape(void **state)
{
	static const char *const top[] = {
		"mode", "limit_pages", "limit_mib", "region_pages",
		"region_mib", "swap_mib", "swap_device", "space_shift",
		"space_shift_baseline", "pages_checked_per_round", "rounds",
		"warmup_rounds", "cpus", "baseline_source", "kernel_side",
	};
	static const char *const numbers[] = {
		"ms", "ms_min", "ms_max", "walks_per_swapout",
		"walks_per_page", "walks_per_page_no_reclaim",
		"node_allocs_per_swapout", "locks_per_page", "swapouts",
		"swap_used_mib", "tree_nodes", "node_bytes", "node_kib",
		"max_height", "swap_cache_entries", "swap_cache_trees",
		"space_shift", "pages_per_round", "rounds", "lookup_ns",
		"lookup_ns_min", "lookup_ns_max", "lookup_walks_per_op",
		"lookup_misses",
	};
	static const char *const keys[] = {
		"unit", "speedup", "speedup_min", "speedup_max", "gain_pct",
		"gain_pct_min", "gain_pct_max", "target_gain_pct",
		"target_met", "role", "pair", "note",
	};
	struct jread *jr;

	(void)state;
	jr = bt_parse_suite(suite.json, "swap", top, BT_ARRAY_SIZE(top));
	bt_check_rows(jr, suite_rows, NR_SUITE_ROWS);
	bt_rows_have(jr, numbers, BT_ARRAY_SIZE(numbers), true);
	bt_rows_have(jr, keys, BT_ARRAY_SIZE(keys), false);
	free(jr);
	assert_string_equal(bench_row_get(&suite.rep.meta, "mode")->str,
			    "tiny");
	assert_string_equal(bench_row_get(&suite.rep.meta,
					  "swap_device")->str, "memory");
}

/* Times and the gain: medians inside their ranges, the gain from them. */
static void test_swap_times(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < NR_SUITE_ROWS; i++) {
		const char *name = suite_rows[i];

		assert_string_equal(bt_str(&suite.rep, name, "unit"), "ms");
		assert_true(num(name, "ms") > 0);
		assert_true(num(name, "ms_min") <= num(name, "ms"));
		assert_true(num(name, "ms") <= num(name, "ms_max"));
		assert_near(num(name, "rounds"), meta("rounds"), 0);
		assert_string_equal(bt_str(&suite.rep, name, "pair"),
				    suite_rows[!i]);
	}
	assert_string_equal(bt_str(&suite.rep, "memhog", "role"), "new");
	assert_string_equal(bt_str(&suite.rep, "memhog_baseline", "role"),
			    "baseline");
	assert_true(num("memhog", "speedup") > 0);
	assert_true(num("memhog", "speedup_min") <= num("memhog", "speedup"));
	assert_true(num("memhog", "speedup") <= num("memhog", "speedup_max"));
	assert_near(num("memhog", "gain_pct"),
		    (num("memhog", "speedup") - 1) * 100, 1e-9);
	assert_near(num("memhog", "target_gain_pct"), 1.8, 1e-9);
	/*
	 * The per-round speedups bracket the ratio of the medians, the
	 * baseline's over the new row's (a median keeps an order that
	 * holds round by round): memhog's time and the lookups'.
	 */
	assert_true(num("memhog", "speedup_min") <=
		    num("memhog_baseline", "ms") / num("memhog", "ms") *
		    (1 + 1e-12));
	assert_true(num("memhog_baseline", "ms") / num("memhog", "ms") <=
		    num("memhog", "speedup_max") * (1 + 1e-12));
	assert_true(num("memhog", "lookup_speedup_min") <=
		    num("memhog_baseline", "lookup_ns") /
		    num("memhog", "lookup_ns") * (1 + 1e-12));
	assert_true(num("memhog_baseline", "lookup_ns") /
		    num("memhog", "lookup_ns") <=
		    num("memhog", "lookup_speedup_max") * (1 + 1e-12));
	/* The baseline has no gain of its own: null. */
	assert_true(isnan(bench_row_num(bt_row(&suite.rep, "memhog_baseline"),
					"speedup")));
}

/* The counters and the swap cache's shape agree with each other. */
static void test_swap_counters(void **state)
{
	double region = meta("region_pages"), limit = meta("limit_pages");
	size_t i;

	(void)state;
	assert_near(region, 4 * limit, 0);
	for (i = 0; i < NR_SUITE_ROWS; i++) {
		const char *name = suite_rows[i];
		double out = num(name, "swapouts");

		/* memhog: every page once; what is past the limit went out. */
		assert_near(num(name, "pages_per_round"), region, 0);
		/* Only the limit fits: at least the rest went out. */
		assert_true(out >= region - limit);
		assert_true(out <= region);
		assert_near(num(name, "swap_used_mib"), out / 256, 1e-9);
		/*
		 * Each swapped-out page left a shadow in the swap cache (too
		 * few here for the shadow shrinker to take any).
		 */
		assert_near(num(name, "swap_cache_entries"), out, 0);
		/* Every slot looked up held one. */
		assert_near(num(name, "lookup_misses"), 0, 0);
		/*
		 * Reclaim's walks per swap-out: the swap cache's add and
		 * delete, and the region's store of the swap entry.
		 */
		assert_true(num(name, "walks_per_swapout") > 2.5);
		assert_true(num(name, "walks_per_swapout") < 3.5);
		/* A touch alone: the region's lookup and its add. */
		assert_true(num(name, "walks_per_page_no_reclaim") >= 2);
		assert_true(num(name, "walks_per_page") >
			    num(name, "walks_per_page_no_reclaim"));
		assert_true(num(name, "tree_nodes") > 0);
		assert_near(num(name, "node_bytes"),
			    num(name, "tree_nodes") * sizeof(struct xa_node),
			    0);
		assert_near(num(name, "node_kib") * 1024,
			    num(name, "node_bytes"), 1e-6);
		/* A lookup of a slot in use is one walk, to its shadow. */
		assert_near(num(name, "lookup_walks_per_op"), 1, 0);
		assert_true(num(name, "lookup_ns") > 0);
		assert_true(num(name, "lookup_ns_min") <=
			    num(name, "lookup_ns"));
		assert_true(num(name, "lookup_ns") <=
			    num(name, "lookup_ns_max"));
	}
	/* The new row's lookup gain is its per-round speedup's median. */
	assert_near(num("memhog", "lookup_gain_pct"),
		    (num("memhog", "lookup_speedup") - 1) * 100, 1e-9);
	/* Both sides do the same work: the same pages go out. */
	assert_near(num("memhog", "swapouts"),
		    num("memhog_baseline", "swapouts"), 0);
	/* A 64 MiB chunk needs 3 levels at most; full-offset keys more. */
	assert_true(num("memhog", "max_height") >= 1);
	assert_true(num("memhog", "max_height") <= 3);
	assert_true(num("memhog_baseline", "max_height") >=
		    num("memhog", "max_height"));
	assert_near(num("memhog", "space_shift"), SWAP_ADDRESS_SPACE_SHIFT, 0);
	assert_near(num("memhog_baseline", "space_shift"), SWAP_SPACE_FULL_INDEX,
		    0);
	/* Both: one tree per 2^14 slots of the device, a partial one too. */
	assert_near(num("memhog_baseline", "swap_cache_trees"),
		    num("memhog", "swap_cache_trees"), 0);
	assert_near(num("memhog", "swap_cache_trees"),
		    ceil(meta("swap_mib") * 256 / (1 << SWAP_ADDRESS_SPACE_SHIFT)),
		    0);
	/* Under 64^3 slots in use the heights are the same; the note says. */
	assert_non_null(strstr(bt_str(&suite.rep, "memhog", "note"),
			       "same height"));
	assert_near(num("memhog_baseline", "max_height"),
		    num("memhog", "max_height"), 0);
}

/*
 * The walks-per-swap-out arithmetic: the touch's own walks, measured
 * before reclaim started, are taken out per page.
 */
static void test_swap_walks_formula(void **state)
{
	struct sw_sample s = {
		.pages = 1000, .calib_pages = 100, .calib_walks = 200,
		.walks = 2000 + 3 * 600, .swapouts = 600,
	};

	(void)state;
	assert_near(sw_walks_per_swapout(&s), 3, 1e-12);
	s.calib_pages = 0;
	assert_true(isnan(sw_walks_per_swapout(&s)));
	s.calib_pages = 100;
	s.swapouts = 0;
	assert_true(isnan(sw_walks_per_swapout(&s)));
}

/*
 * The kernel side: on the memhog row, its figures or why there are
 * none, never both, and on the baseline neither.  With figures: the
 * medians inside their ranges, CPU time no more than the wall clock's,
 * at least the region less the limit swapped out (anonymous pages leave
 * a cgroup at its limit only for swap), swap-ins on the read-back, the
 * suite's pages checked, and the device swapped off after the run.
 */
static void test_swap_kernel(void **state)
{
	const struct bench_row *row = bt_row(&suite.rep, "memhog");
	const struct bench_field *skipped = bench_row_get(row,
							  "kernel_skipped");
	const char *side = bench_row_get(&suite.rep.meta, "kernel_side")->str;
	struct bench_options opts = { .tiny = true };
	struct sw_scale scale;
	const char *dev;
	uint64_t kib;
	FILE *f;

	(void)state;
	sw_scale_from_options(&opts, &scale);
	assert_null(bench_row_get(bt_row(&suite.rep, "memhog_baseline"),
				  "kernel_skipped"));
	assert_null(bench_row_get(bt_row(&suite.rep, "memhog_baseline"),
				  "ms_kernel"));
	if (skipped) {
		print_message("memhog: kernel side skipped: %s\n",
			      skipped->str);
		assert_true(strlen(skipped->str) > 0);
		assert_string_equal(side, skipped->str);
		assert_null(bench_row_get(row, "ms_kernel"));
		return;
	}
	assert_string_equal(side, "measured");
	assert_true(num("memhog", "ms_kernel_min") > 0);
	assert_true(num("memhog", "ms_kernel_min") <= num("memhog", "ms_kernel"));
	assert_true(num("memhog", "ms_kernel") <= num("memhog", "ms_kernel_max"));
	assert_true(num("memhog", "ms_kernel_cpu") > 0);
	assert_true(num("memhog", "ms_kernel_cpu") <= num("memhog", "ms_kernel"));
	assert_true(num("memhog", "vs_kernel_min") > 0);
	assert_true(num("memhog", "vs_kernel_min") <= num("memhog", "vs_kernel"));
	assert_true(num("memhog", "vs_kernel") <= num("memhog", "vs_kernel_max"));
	assert_true(num("memhog", "kernel_swap_used_mib") >=
		    (double)((scale.region_pages - scale.limit_pages) >>
			     (20 - UPC_PAGE_SHIFT)));
	assert_true(num("memhog", "kernel_swap_used_mib") <=
		    (double)(scale.swap_bytes >> 20));
	assert_true(num("memhog", "kernel_swapins_per_round") > 0);
	assert_near(num("memhog", "kernel_pages_checked_per_round"),
		    (double)sw_pages_checked(&scale), 0);
	assert_non_null(bt_str(&suite.rep, "memhog", "kernel_mismatch"));
	assert_non_null(bt_str(&suite.rep, "memhog", "kernel_side"));
	dev = bt_str(&suite.rep, "memhog", "kernel_swap_device");
	assert_memory_equal(dev, "/dev/loop", 9);
	f = fopen("/proc/swaps", "r");
	assert_non_null(f);
	assert_int_equal(bench_swaps_used_kib(f, dev, &kib), -ENOENT);
	fclose(f);
}

/* locked_kib() - This process's locked memory (VmLck), in KiB. */
static unsigned long locked_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	unsigned long kib = 0;
	char line[256];

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmLck: %lu kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

/*
 * A memhog killed by a signal (as by its cgroup's OOM killer, where
 * the machine limits swap above the cgroup) ends the kernel side with a
 * reason, not the run; and freeing it swaps the device off.  While the
 * side is set up, its swap image is locked in memory.
 */
static void test_swap_kernel_killed(void **state)
{
	struct bench_options opts = { .tiny = true };
	struct sw_ksample s;
	struct sw_scale scale;
	struct sw_kernel k;
	char dev[32];
	uint64_t kib;
	FILE *f;

	(void)state;
	sw_scale_from_options(&opts, &scale);
	sw_kernel_init(&k, &scale);
	if (!k.usable) {
		print_message("kernel side skipped: %s\n", k.why);
		sw_kernel_free(&k);
		skip();
	}
	/* The image is locked in memory: it must never swap to itself. */
	assert_non_null(k.image_map);
	assert_true(locked_kib() >= scale.swap_bytes >> 10);
	assert_int_equal(sw_kernel_round(&k, &s), 0);
	assert_int_equal(s.pages, scale.region_pages);
	assert_int_equal(kill(k.child.pid, SIGKILL), 0);
	assert_int_equal(sw_kernel_round(&k, &s), -ECHILD);
	assert_non_null(strstr(k.why, "killed by signal 9"));
	snprintf(dev, sizeof(dev), "%s", k.loop.dev);
	sw_kernel_free(&k);
	assert_false(k.usable);
	f = fopen("/proc/swaps", "r");
	assert_non_null(f);
	assert_int_equal(bench_swaps_used_kib(f, dev, &kib), -ENOENT);
	fclose(f);
}

/* --swap-file: both devices in files, which the run removes. */
static void test_swap_files(void **state)
{
	char dir[] = "/tmp/upc-bench-swap-XXXXXX", path[128], whole[160];
	struct bench_options opts = { .tiny = true, .rounds = 1 };
	struct bench_output out = { .table = fopen("/dev/null", "w") };
	struct bench_report rep;
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_non_null(out.table);
	snprintf(path, sizeof(path), "%s/swap", dir);
	snprintf(whole, sizeof(whole), "%s.whole", path);
	opts.swap_file = path;
	bench_report_init(&rep, "swap");
	assert_int_equal(bench_suite_swap(&opts, &out, &rep), 0);
	fclose(out.table);
	assert_string_equal(bench_row_get(&rep.meta, "swap_device")->str,
			    "file");
	assert_true(bt_num(&rep, "memhog", "swapouts") > 0);
	assert_true(bt_num(&rep, "memhog", "walks_per_swapout") > 2.5);
	/* The kernel's swap is in memory only: no side to compare. */
	assert_non_null(strstr(bt_str(&rep, "memhog", "kernel_skipped"),
			       "--swap-file"));
	bench_report_free(&rep);
	assert_int_not_equal(stat(path, &st), 0);
	assert_int_not_equal(stat(whole, &st), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* bad_swap_file() - In the child: run with the swap file path @arg. */
static void bad_swap_file(void *arg)
{
	struct bench_options opts = { .tiny = true, .rounds = 1,
				      .swap_file = arg };
	struct bench_output out = { .table = fopen("/dev/null", "w") };
	struct bench_report rep;

	bench_report_init(&rep, "swap");
	bench_suite_swap(&opts, &out, &rep);
}

/*
 * PATH.whole is a directory: the run dies before making either file, so
 * it leaves no PATH behind (it used to create PATH first).
 */
static void test_swap_file_refused(void **state)
{
	char dir[] = "/tmp/upc-bench-swap-XXXXXX", path[128], whole[160];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/swap", dir);
	snprintf(whole, sizeof(whole), "%s.whole", path);
	assert_int_equal(mkdir(whole, 0700), 0);
	bt_expect_exit2(bad_swap_file, path, "not a regular file");
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(rmdir(whole), 0);
	assert_int_equal(rmdir(dir), 0);
}

/*
 * A run that fails after making PATH removes it on its way out: PATH is
 * made, then PATH.whole, a dangling symbolic link, cannot be created.
 */
static void test_swap_file_removed_on_error(void **state)
{
	char dir[] = "/tmp/upc-bench-swap-XXXXXX", path[128], whole[160];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/swap", dir);
	snprintf(whole, sizeof(whole), "%s.whole", path);
	assert_int_equal(symlink("/nonexistent/upc-swap", whole), 0);
	bt_expect_exit2(bad_swap_file, path, whole);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(unlink(whole), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* --swap-file belongs to the swap suite; elsewhere it is an error. */
static void test_swap_file_option(void **state)
{
	char *good[] = { "--swap-file", "/tmp/x", "--tiny" };
	char *bad[] = { "--swap-file=" };
	struct bench_options opts;
	FILE *devnull = fopen("/dev/null", "w");

	(void)state;
	assert_non_null(devnull);
	assert_int_equal(bench_options_from_argv("swap", 3, good, &opts,
						 devnull), 0);
	assert_string_equal(opts.swap_file, "/tmp/x");
	assert_true(opts.tiny);
	assert_int_equal(bench_options_from_argv("reclaim", 3, good, &opts,
						 devnull), BENCH_EXIT_ERROR);
	assert_int_equal(bench_options_from_argv("swap", 1, bad, &opts,
						 devnull), BENCH_EXIT_ERROR);
	assert_int_equal(bench_options_from_argv("swap", 1, good, &opts,
						 devnull), BENCH_EXIT_ERROR);
	fclose(devnull);
}

/* too_big() - In the child: ask for a region past the largest. */
static void too_big(void *arg)
{
	struct bench_options opts = { .tiny = true,
				      .size = SW_MAX_REGION_PAGES + 1 };
	struct sw_scale scale;

	(void)arg;
	sw_scale_from_options(&opts, &scale);
}

static void test_swap_size_too_big(void **state)
{
	struct bench_options opts = { .tiny = true, .size = 5000 };
	struct sw_scale scale;

	(void)state;
	/* Rounded up to whole 8 MiB: a limit of whole 2 MiB. */
	sw_scale_from_options(&opts, &scale);
	assert_int_equal(scale.region_pages, 6144);
	assert_int_equal(scale.limit_pages, 1536);
	assert_int_equal(scale.swap_bytes, 6144ULL << 12);
	bt_expect_exit2(too_big, NULL, "swap: --size");
}

int main(void)
{
	const struct CMUnitTest suite_tests[] = {
		cmocka_unit_test(test_swap_json_shape),
		cmocka_unit_test(test_swap_times),
		cmocka_unit_test(test_swap_counters),
		cmocka_unit_test(test_swap_kernel),
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_swap_walks_formula),
		cmocka_unit_test(test_swap_kernel_killed),
		cmocka_unit_test(test_swap_files),
		cmocka_unit_test(test_swap_file_option),
		cmocka_unit_test(test_swap_file_refused),
		cmocka_unit_test(test_swap_file_removed_on_error),
		cmocka_unit_test(test_swap_size_too_big),
	};

	return cmocka_run_group_tests(suite_tests, suite_setup,
				      bt_suite_teardown) |
		cmocka_run_group_tests(tests, NULL, NULL);
}
