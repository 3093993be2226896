// SPDX-License-Identifier: MIT
/*
 * tests/bench/test_bench_reclaim.c - upcache-bench's reclaim suite and
 * its baseline read path.
 *
 * Runs the suite in-process at its tiny size and checks its JSON (the
 * common shape, the four rows with their figures), the counters the
 * seed argues with (one walk per add for the library's read path and
 * three for the baseline on random reads; two and five when every add
 * splits an order-9 shadow), that both workloads refault, and that the
 * baseline read path returns the same data with its three-walk add.
 *
 * Linked with the benchmark's sources (all of tools/bench/ but main.c;
 * see cmake/UpcacheTests.cmake).
 */
#include <errno.h>

#include <upcache/filemap.h>
#include <upcache/stats.h>
#include <upcache/vmscan.h>

#include "../../tools/bench/rc_baseline.h"
#include "../../tools/bench/rc_cases.h"
#include "bench_helpers.h"

static const char *const suite_rows[] = {
	"randread_4k", "randread_4k_baseline",
	"thp_split_4k", "thp_split_4k_baseline",
};

#define NR_SUITE_ROWS	BT_ARRAY_SIZE(suite_rows)

static struct bt_suite suite;

static int suite_setup(void **state)
{
	*state = &suite;
	return bt_suite_run(&suite, bench_suite_reclaim, "reclaim");
}

/* num() - A numeric field of the suite's row @name (bt_num()). */
static double num(const char *name, const char *key)
{
	return bt_num(&suite.rep, name, key);
}

/*
 * The common shape: {"benchmark":"reclaim", ..., "rows":[{"name":...}]},
 * strict JSON (nothing it forbids that a figure could print: NaN, inf),
 * the rows in order.
 */
static void test_reclaim_json_shape(void **state)
{
	static const char *const top[] = {
		"mode", "file_pages", "limit_pages", "threads", "rounds",
		"baseline_source",
	};
	struct jread *jr;

	(void)state;
	jr = bt_parse_suite(suite.json, "reclaim", top, BT_ARRAY_SIZE(top));
	bt_check_rows(jr, suite_rows, NR_SUITE_ROWS);
	free(jr);
	assert_int_equal(suite.rep.nr_rows, NR_SUITE_ROWS);
}

/* Every row has its figures; new rows their gain. */
static void test_reclaim_rows(void **state)
{
	static const char *const numbers[] = {
		"iops", "iops_min", "iops_max", "walks_per_add",
		"walks_per_read", "refaults", "activations", "evictions",
		"reads", "adds", "rounds", "hit_ratio", "iops_wall",
	};
	size_t i, k;

	(void)state;
	for (i = 0; i < NR_SUITE_ROWS; i++) {
		const char *name = suite_rows[i];
		const struct bench_row *row = bt_row(&suite.rep, name);

		for (k = 0; k < sizeof(numbers) / sizeof(numbers[0]); k++)
			num(name, numbers[k]);
		assert_true(num(name, "iops") > 0);
		assert_true(num(name, "iops_wall") > 0);
		assert_true(num(name, "iops_min") <= num(name, "iops"));
		assert_true(num(name, "iops") <= num(name, "iops_max"));
		assert_near(num(name, "rounds"), 3, 0);
		assert_non_null(bench_row_get(row, "gain_pct"));
		assert_string_equal(bt_str(&suite.rep, name, "role"),
				    i % 2 ? "baseline" : "new");
		if (i % 2) {
			assert_true(isnan(bench_row_num(row, "gain_pct")));
			continue;
		}
		assert_string_equal(bt_str(&suite.rep, name, "pair"),
				    suite_rows[i + 1]);
		assert_near(num(name, "gain_pct"),
			    (num(name, "speedup") - 1) * 100, 1e-9);
		assert_true(num(name, "gain_pct_min") <=
			    num(name, "gain_pct"));
		assert_non_null(bt_str(&suite.rep, name, "target_met"));
	}
	assert_near(num("randread_4k", "target_gain_pct"), 7.3, 1e-12);
	assert_near(num("thp_split_4k", "target_gain_pct"), 10.4, 1e-12);
	assert_near(num("thp_split_4k", "aim_gain_pct"), 20.8, 1e-12);
}

/* The counted costs: what seed 000 is about, whatever the machine. */
static void test_reclaim_counters(void **state)
{
	size_t i;

	(void)state;
	assert_near(num("randread_4k", "walks_per_add"), 1, 0.05);
	assert_near(num("randread_4k_baseline", "walks_per_add"), 3, 0.1);
	assert_near(num("thp_split_4k", "walks_per_add"), 2, 0.05);
	assert_near(num("thp_split_4k_baseline", "walks_per_add"), 5, 0.1);
	for (i = 0; i < NR_SUITE_ROWS; i++) {
		const char *name = suite_rows[i];

		assert_true(num(name, "refaults") > 0);
		assert_true(num(name, "adds") > 0);
		assert_true(num(name, "activations") <= num(name, "refaults"));
	}
	/* Random reads over twice the limit: about half of them hit. */
	assert_true(num("randread_4k", "hit_ratio") > 0.3);
	assert_true(num("randread_4k", "hit_ratio") < 0.7);
	assert_true(num("randread_4k", "evictions") > 0);
	/* Every thp read adds over (and refaults on) an order-9 shadow. */
	assert_near(num("thp_split_4k", "hit_ratio"), 0, 0);
	assert_near(num("thp_split_4k", "refaults"),
		    num("thp_split_4k", "reads"), 0);
}

/*
 * The figures follow from the counts by their definitions: the run's
 * facts are its scale, every round reads what the workload reads, the
 * walks per read and per add agree, the IOPS of all rounds together (reader CPU time per read) lies between
 * the slowest and fastest round, the hit ratio is the reads that did
 * not add, a pair's sign test counts the rounds each side won, and
 * each row of a pair ran first in as many parts as the other.
 * With three rounds the median ratio is above 1 exactly when two or
 * more rounds were faster.
 */
static void test_reclaim_figures(void **state)
{
	struct bench_options opts = { .tiny = true };
	const struct bench_row *meta = &suite.rep.meta;
	struct rc_scale scale;
	unsigned long per_round[NR_SUITE_ROWS];
	size_t i;

	(void)state;
	rc_scale_from_options(&opts, &scale);
	assert_near(bench_row_num(meta, "file_pages"), scale.file_pages, 0);
	assert_near(bench_row_num(meta, "file_mib"),
		    scale.file_pages >> (20 - UPC_PAGE_SHIFT), 0);
	assert_near(bench_row_num(meta, "limit_pages"), scale.limit_pages, 0);
	assert_near(bench_row_num(meta, "limit_mib"),
		    scale.limit_pages >> (20 - UPC_PAGE_SHIFT), 0);
	assert_near(bench_row_num(meta, "threads"), scale.threads, 0);
	assert_near(bench_row_num(meta, "randread_reads_per_thread"),
		    scale.reads, 0);
	assert_near(bench_row_num(meta, "thp_cycles"), scale.thp_cycles, 0);
	assert_near(bench_row_num(meta, "rounds"), scale.rounds, 0);
	assert_near(bench_row_num(meta, "warmup_rounds"), scale.warmups, 0);

	/* randread: its parts' reads on every thread; thp: one per 2 MiB. */
	per_round[0] = per_round[1] = scale.reads / RC_RANDREAD_PARTS *
				      RC_RANDREAD_PARTS * scale.threads;
	per_round[2] = per_round[3] = scale.thp_cycles *
		(((scale.file_pages >> UPC_MAX_ORDER) - 1) / scale.threads *
		 scale.threads);
	for (i = 0; i < NR_SUITE_ROWS; i++) {
		const char *name = suite_rows[i];
		double all_rounds, gain, target, walks, other;
		unsigned int faster, slower;

		assert_near(num(name, "reads_per_round"), per_round[i], 0);
		assert_near(num(name, "reads"), per_round[i] * scale.rounds, 0);
		assert_near(num(name, "hit_ratio"),
			    1 - num(name, "adds") / num(name, "reads"), 1e-12);
		/*
		 * Walks: the adds' (walks_per_add), one lookup per read,
		 * one store per eviction, and those of shadow node reclaim,
		 * a few dozen nodes at most in a file of this size.
		 */
		walks = num(name, "walks_per_read") * num(name, "reads");
		other = walks - num(name, "walks_per_add") * num(name, "adds") -
			num(name, "reads") - num(name, "evictions");
		assert_true(other > -1e-6 * walks);
		assert_true(other <= num(name, "evictions") + 1e-6 * walks);
		all_rounds = scale.threads * 1e9 / num(name, "ns_per_read");
		assert_true(all_rounds >= num(name, "iops_min") * (1 - 1e-9));
		assert_true(all_rounds <= num(name, "iops_max") * (1 + 1e-9));
		if (i % 2)
			continue;
		faster = (unsigned int)num(name, "rounds_faster");
		slower = (unsigned int)num(name, "rounds_slower");
		/* Two rounds of equal IOPS down to the bit do not happen. */
		assert_int_equal(faster + slower, scale.rounds);
		gain = num(name, "gain_pct");
		assert_true((gain > 0) == (faster > scale.rounds / 2));
		assert_near(num(name, "sign_p"), bt_sign_p(faster, slower),
			    1e-12);
		target = num(name, "target_gain_pct");
		assert_string_equal(bt_str(&suite.rep, name, "target_met"),
				    gain >= target ? "yes" : "no");
		assert_near(num(name, "aim_gain_pct"), 2 * target, 1e-12);
		assert_string_equal(bt_str(&suite.rep, name, "aim_met"),
				    gain >= 2 * target ? "yes" : "no");
	}
	/*
	 * Interleaved: each part runs both rows, the first one alternating
	 * part by part and round by round, so in all the timed rounds
	 * neither row of a pair ran first in more parts than the other.
	 */
	for (i = 0; i < NR_SUITE_ROWS; i += 2) {
		double parts = num(suite_rows[i], "parts_per_round") *
			       scale.rounds;
		double first = num(suite_rows[i], "parts_run_first");
		double other = num(suite_rows[i + 1], "parts_run_first");

		assert_near(first + other, parts, 0);
		assert_true(fabs(first - other) <= scale.rounds);
		if ((unsigned long)parts % 2 == 0)
			assert_near(first, other, 0);
	}
	/* Random reads over twice the limit refault and activate. */
	assert_true(num("randread_4k", "activations") > 0);
	assert_true(num("randread_4k", "promotions") > 0);
}

/*
 * The kernel's side (rc_kernel.h), where the machine gives it: on each
 * new row either its figures or the reason it was skipped, never both;
 * nothing of it on the baseline rows.  With figures: the median IOPS
 * and upcache's ratio over them lie between their slowest and fastest
 * rounds, every round made the workload's reads, the hit ratio is a
 * ratio and, on thp, zero (every read is of a range the cgroup's
 * reclaim emptied), the row says how its setup differs from the seed's,
 * and the fill's count of 2 MiB folios agrees with the note about it.
 */
static void test_reclaim_kernel(void **state)
{
	struct bench_options opts = { .tiny = true };
	struct rc_scale scale;
	size_t i;

	(void)state;
	rc_scale_from_options(&opts, &scale);
	for (i = 0; i < NR_SUITE_ROWS; i++) {
		const char *name = suite_rows[i];
		const struct bench_row *row = bt_row(&suite.rep, name);
		const struct bench_field *skipped =
			bench_row_get(row, "kernel_skipped");
		const struct bench_field *mismatch =
			bench_row_get(row, "kernel_mismatch");
		bool thp = !strncmp(name, "thp", 3);
		double per_round;

		if (i % 2) {
			assert_null(skipped);
			assert_null(bench_row_get(row, "iops_kernel"));
			continue;
		}
		if (skipped) {
			print_message("%s: kernel side skipped: %s\n", name,
				      skipped->str);
			assert_true(strlen(skipped->str) > 0);
			assert_null(bench_row_get(row, "iops_kernel"));
			continue;
		}
		assert_true(num(name, "iops_kernel") > 0);
		assert_true(num(name, "iops_kernel_cpu") > 0);
		assert_true(num(name, "iops_kernel_min") <=
			    num(name, "iops_kernel"));
		assert_true(num(name, "iops_kernel") <=
			    num(name, "iops_kernel_max"));
		assert_true(num(name, "vs_kernel") > 0);
		assert_true(num(name, "vs_kernel_min") <=
			    num(name, "vs_kernel"));
		assert_true(num(name, "vs_kernel") <=
			    num(name, "vs_kernel_max"));
		per_round = thp ? (double)(((scale.file_pages >> RC_THP_ORDER) -
					    1) / scale.threads * scale.threads) :
			    (double)(scale.reads / RC_RANDREAD_PARTS *
				     scale.threads);
		assert_near(num(name, "kernel_reads_per_round"), per_round, 0);
		assert_true(num(name, "kernel_hit_ratio") >= 0);
		assert_true(num(name, "kernel_hit_ratio") <= 1);
		assert_non_null(mismatch);
		assert_non_null(bt_str(&suite.rep, name, "kernel_side"));
		if (!thp)
			continue;
		assert_near(num(name, "kernel_hit_ratio"), 0, 0);
		assert_true(num(name, "kernel_fill_huge_ranges") <=
			    num(name, "kernel_fill_ranges"));
		assert_int_equal(!num(name, "kernel_fill_huge_ranges"),
				 strstr(mismatch->str, "no 2 MiB folio") !=
				 NULL);
	}
}

/* ---- the baseline read path on its own ------------------------------- */

static unsigned char store[64 << 12];

static int store_read_folio(struct address_space *mapping, struct folio *folio)
{
	(void)mapping;
	memcpy(folio_address(folio), store + (folio->index << 12),
	       folio_size(folio));
	folio_set_uptodate(folio);
	folio_unlock(folio);
	return 0;
}

static const struct address_space_operations store_aops = {
	.read_folio = store_read_folio,
};

/* Same pages as the library; three walks to add over a shadow. */
static void test_baseline_read_path(void **state)
{
	struct upc_thread_stats before, after;
	struct address_space mapping;
	struct upc_arena *arena;
	struct folio *folio;
	unsigned int i;

	(void)state;
	for (i = 0; i < 64; i++)
		store[i << 12] = (unsigned char)(i + 1);
	assert_int_equal(upc_arena_create(4 << 20, &arena), 0);
	assert_int_equal(upc_reclaim_init(arena), 0);
	address_space_init(&mapping, arena, &store_aops, 0);
	assert_ptr_equal(rcb_read_folio(&mapping, MAX_PAGECACHE_INDEX + 1,
					GFP_KERNEL), ERR_PTR(-EFBIG));
	for (i = 0; i < 64; i++) {
		folio = i % 2 ? rcb_read_folio(&mapping, i, GFP_KERNEL) :
				mapping_read_folio_gfp(&mapping, i, GFP_KERNEL);
		assert_false(IS_ERR(folio));
		assert_int_equal(*(unsigned char *)folio_address(folio), i + 1);
		folio_put(folio);
	}
	assert_int_equal(upc_reclaim_pages(arena, 64), 64);
	assert_true(xa_is_value(xa_load(&mapping.i_pages, 9)));

	upc_stats_thread(&before);
	folio = rcb_read_folio(&mapping, 9, GFP_KERNEL);
	upc_stats_thread(&after);
	assert_false(IS_ERR(folio));
	assert_int_equal(*(unsigned char *)folio_address(folio), 10);
	/* The lookup, then the baseline add's three. */
	assert_int_equal(after.xa_walks - before.xa_walks, 1 + 3);
	folio_put(folio);

	upc_stats_thread(&before);
	folio = mapping_read_folio_gfp(&mapping, 11, GFP_KERNEL);
	upc_stats_thread(&after);
	assert_int_equal(after.xa_walks - before.xa_walks, 1 + 1);
	folio_put(folio);

	truncate_inode_pages(&mapping, 0);
	lru_add_drain_all(arena);
	assert_int_equal(upc_arena_charged(arena), 0);
	xa_destroy(&mapping.i_pages);
	upc_reclaim_destroy(arena);
	upc_arena_destroy(arena);
}

int main(void)
{
	const struct CMUnitTest suite_tests[] = {
		cmocka_unit_test(test_reclaim_json_shape),
		cmocka_unit_test(test_reclaim_rows),
		cmocka_unit_test(test_reclaim_counters),
		cmocka_unit_test(test_reclaim_figures),
		cmocka_unit_test(test_reclaim_kernel),
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_baseline_read_path),
	};
	int failed;

	failed = cmocka_run_group_tests(suite_tests, suite_setup,
					bt_suite_teardown);
	return failed | cmocka_run_group_tests(tests, NULL, NULL);
}
