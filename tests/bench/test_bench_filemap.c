// SPDX-License-Identifier: MIT
/*
 * tests/bench/test_bench_filemap.c - upcache-bench's filemap suite and
 * its "before" paths.
 *
 * Runs the suite in-process at its tiny size and checks its JSON (one
 * valid object, every row with its times, counters and speedup), the
 * counters the design is argued with (one walk and one lock round trip
 * to add over an order-0 shadow, at least three for the baseline, two
 * walks to add inside an order-9 shadow, one lock round trip per grab
 * of 512 indices, two walks for a swap cache add and delete), that each
 * baseline builds exactly the page cache its new path builds (add
 * scenarios with every kind of conflict, grab, contiguous lookup, swap
 * cache add over shadows and empty slots, small and large folios), and
 * that a leaked folio reference ends the run with exit status 2 and a
 * message.
 *
 * Linked with the benchmark's sources (all of tools/bench/ but main.c;
 * see cmake/UpcacheTests.cmake).
 */
#include <errno.h>

#include <upcache/check.h>
#include <upcache/filemap.h>
#include <upcache/stats.h>
#include <upcache/swap.h>
#include <upcache/vmscan.h>

#include "../../tools/bench/fm_baseline.h"
#include "../../tools/bench/fm_cases.h"
#include "bench_helpers.h"

/* ------------------------------------------------------------------ */
/* The suite, run once at its tiny size for every test that reads it   */
/* ------------------------------------------------------------------ */

static const char *const suite_rows[] = {
	"add_shadow0", "add_shadow0_baseline", "add_split9",
	"add_split9_baseline", "grab_order0", "grab_order0_loop",
	"grab_order9", "grab_order9_loop", "contig_order9",
	"contig_order9_baseline", "swapcache_add", "swapcache_add_baseline",
};

#define NR_SUITE_ROWS	BT_ARRAY_SIZE(suite_rows)

static struct bt_suite suite;

static int suite_setup(void **state)
{
	*state = &suite;
	return bt_suite_run(&suite, bench_suite_filemap, "filemap");
}

/* num() - A numeric field of the suite's row @name (bt_num()). */
static double num(const char *name, const char *key)
{
	return bt_num(&suite.rep, name, key);
}

static void test_suite_json(void **state)
{
	static const char *const numbers[] = {
		"ns_per_op", "ns_per_op_min", "ns_per_op_max", "value",
		"walks_per_op", "locks_per_op", "node_allocs_per_op", "rounds",
		"ops_per_round",
	};
	static const char *const present[] = {
		"unit", "role", "pair", "speedup", "speedup_min",
		"speedup_max", "speedup_target", "target_met",
	};
	static const char *const top[] = {
		"benchmark", "mode", "file_pages", "rounds", "arena_mib",
		"baseline_source", "rows",
	};
	struct jread *jr;
	int i;

	(void)state;
	jr = bt_parse_suite(suite.json, "filemap", top, BT_ARRAY_SIZE(top));
	bt_check_rows(jr, suite_rows, NR_SUITE_ROWS);
	bt_rows_have(jr, numbers, BT_ARRAY_SIZE(numbers), true);
	bt_rows_have(jr, present, BT_ARRAY_SIZE(present), false);
	/* A pair's speedup is on its new row, a number. */
	for (i = 0; i < jr->nr_rows; i++)
		assert_int_equal(jread_row_kind(&jr->rows[i], "speedup"),
				 i % 2 == 0);
	free(jr);
}

/* The reader is strict: what JSON forbids, it refuses. */
static void test_reader_strict(void **state)
{
	static const char *const bad[] = {
		"{\"a\":NaN}", "{\"a\":1,}", "[1 2]", "{\"a\":01}",
		"{\"a\":-inf}", "{\"a\":\"x\ny\"}", "{\"a\":1}}", "{a:1}",
		"{\"a\":.5}", "{\"a\":0x1}", "{\"a\":1.}", "{\"a\":1e}", "",
		"{} {}", "{\"a\":\"\\q\"}", "{\"a\":\"\\u12g4\"}",
		"{\"a\":\"\\u12\"}", "{\"a\":\"\\\"}",
	};
	struct jread *jr = calloc(1, sizeof(*jr));
	size_t i;

	(void)state;
	assert_non_null(jr);
	for (i = 0; i < BT_ARRAY_SIZE(bad); i++)
		if (bt_json_valid(jr, bad[i]))
			fail_msg("accepted %s", bad[i]);
	assert_true(bt_json_valid(jr, "{\"rows\":[{\"name\":\"r\",\"x\":-1.5e3,"
				  "\"y\":null,\"s\":\"\\\"\\u00e9\\n\"}]}"));
	assert_int_equal(jr->nr_rows, 1);
	assert_int_equal(jread_row_kind(&jr->rows[0], "x"), 1);
	assert_int_equal(jread_row_kind(&jr->rows[0], "y"), 0);
	assert_int_equal(jread_row_kind(&jr->rows[0], "s"), 0);
	assert_int_equal(jread_row_kind(&jr->rows[0], "z"), -1);
	free(jr);
}

static void test_suite_figures(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < NR_SUITE_ROWS; i++) {
		const char *name = suite_rows[i];

		assert_true(num(name, "ns_per_op_min") <=
			    num(name, "ns_per_op"));
		assert_true(num(name, "ns_per_op") <=
			    num(name, "ns_per_op_max"));
		assert_true(num(name, "ns_per_op") > 0);
		assert_near(num(name, "rounds"), 3, 0);
		if (i % 2)
			continue;
		assert_string_equal(bt_str(&suite.rep, name, "pair"),
				    suite_rows[i + 1]);
		assert_true(num(name, "speedup") > 0);
		assert_true(num(name, "speedup_min") <= num(name, "speedup"));
	}
	assert_near(num("add_shadow0", "speedup_target"), 1.15, 1e-12);
	assert_near(num("add_split9", "speedup_target"), 1.3, 1e-12);
	assert_near(num("grab_order0", "speedup_target"), 1.5, 1e-12);
	assert_string_equal(bt_str(&suite.rep, "add_shadow0_baseline", "role"),
			    "baseline");
	/* Every baseline round was compared with its new row's tree. */
	for (i = 1; i < NR_SUITE_ROWS; i += 2)
		assert_true(num(suite_rows[i], "trees_compared") >= 4);
}

/*
 * The figures follow from the rounds by their definitions: value is
 * ns_per_op with its extremes; a new row's speedup range brackets the
 * ratio of the pair's medians (a median keeps an order that holds round
 * by round) and its verdict is its median against the target; a grab
 * row's per-call counts are its per-op counts times the folios of a
 * call; the add rows do the run's adds and splits each round.
 */
static void test_suite_consistent(void **state)
{
	static const char *const per_call[] = { "walks", "locks" };
	const struct bench_row *meta = &suite.rep.meta;
	size_t i, k;

	(void)state;
	for (i = 0; i < NR_SUITE_ROWS; i++) {
		const char *name = suite_rows[i], *partner;
		const struct bench_row *row = bt_row(&suite.rep, name);
		double ratio, target;

		assert_near(num(name, "value"), num(name, "ns_per_op"), 0);
		assert_near(num(name, "value_min"), num(name, "ns_per_op_min"),
			    0);
		assert_near(num(name, "value_max"), num(name, "ns_per_op_max"),
			    0);
		if (i % 2)
			continue;
		partner = suite_rows[i + 1];
		ratio = num(partner, "ns_per_op") / num(name, "ns_per_op");
		assert_true(num(name, "speedup_min") <= ratio * (1 + 1e-12));
		assert_true(ratio <= num(name, "speedup_max") * (1 + 1e-12));
		assert_true(num(name, "speedup") <= num(name, "speedup_max"));
		target = bench_row_num(row, "speedup_target");
		if (isnan(target))
			assert_null(bt_str(&suite.rep, name, "target_met"));
		else
			assert_string_equal(bt_str(&suite.rep, name,
						   "target_met"),
					    num(name, "speedup") >= target ?
					    "yes" : "no");
	}
	for (i = 0; i < NR_SUITE_ROWS; i++) {
		const char *name = suite_rows[i];
		char op_key[32], call_key[32];

		if (strncmp(name, "grab_", 5))
			continue;
		assert_near(num(name, "calls_per_round"),
			    bench_row_num(meta, "grab_calls_per_round"), 0);
		for (k = 0; k < BT_ARRAY_SIZE(per_call); k++) {
			snprintf(op_key, sizeof(op_key), "%s_per_op",
				 per_call[k]);
			snprintf(call_key, sizeof(call_key), "%s_per_call",
				 per_call[k]);
			assert_near(num(name, call_key),
				    num(name, op_key) *
				    num(name, "folios_per_call"), 1e-9);
		}
	}
	assert_near(num("add_shadow0", "ops_per_round"),
		    bench_row_num(meta, "adds_per_round"), 0);
	assert_near(num("add_shadow0_baseline", "ops_per_round"),
		    bench_row_num(meta, "adds_per_round"), 0);
	assert_near(num("add_split9", "ops_per_round"),
		    bench_row_num(meta, "splits_per_round"), 0);
}

/* The counted costs: exact, whatever the machine. */
static void test_suite_counters(void **state)
{
	(void)state;
	assert_near(num("add_shadow0", "walks_per_op"), 1, 0);
	assert_near(num("add_shadow0", "locks_per_op"), 1, 0);
	assert_true(num("add_shadow0_baseline", "walks_per_op") >= 3);
	assert_near(num("add_shadow0_baseline", "locks_per_op"), 1, 0);
	assert_near(num("add_split9", "walks_per_op"), 2, 0);
	assert_near(num("add_split9", "locks_per_op"), 2, 0);
	assert_true(num("add_split9_baseline", "walks_per_op") >= 3);
	/*
	 * The add cuts its piece out of the shadow: one new leaf node, and
	 * the baseline splits the same way, so only the walks differ.
	 */
	assert_near(num("add_split9", "node_allocs_per_op"), 1, 0);
	assert_near(num("add_split9_baseline", "node_allocs_per_op"), 1, 0);

	assert_near(num("grab_order0", "locks_per_call"), 1, 0);
	assert_near(num("grab_order0", "locks_per_op") * FILEMAP_GRAB_MAX, 1,
		    1e-9);
	assert_near(num("grab_order0", "folios_per_call"), FILEMAP_GRAB_MAX, 0);
	assert_near(num("grab_order0_loop", "locks_per_call"),
		    FILEMAP_GRAB_MAX, 0);
	assert_near(num("grab_order0_loop", "walks_per_op"), 2, 1e-2);
	assert_near(num("grab_order9", "locks_per_call"), 1, 0);
	assert_near(num("grab_order9", "folios_per_call"), 1, 0);

	/* The baseline walks once per folio (512 pages); the batch less. */
	assert_near(num("contig_order9_baseline", "walks_per_op"), 1.0 / 512,
		    1e-9);
	assert_true(num("contig_order9", "walks_per_op") <
		    num("contig_order9_baseline", "walks_per_op"));
	assert_near(num("contig_order9", "locks_per_op"), 0, 0);

	/*
	 * A swap cache add over a shadow and its delete: a walk and a lock
	 * round trip each, through the helper as through the old loop (seed
	 * 001: the helper costs the swap cache nothing); no node allocated.
	 */
	assert_near(num("swapcache_add", "walks_per_op"), 2, 0);
	assert_near(num("swapcache_add", "locks_per_op"), 2, 0);
	assert_near(num("swapcache_add_baseline", "walks_per_op"), 2, 0);
	assert_near(num("swapcache_add_baseline", "locks_per_op"), 2, 0);
	assert_near(num("swapcache_add", "node_allocs_per_op"), 0, 0);
}

/* ------------------------------------------------------------------ */
/* The baselines build what the new paths build                        */
/* ------------------------------------------------------------------ */

/**
 * struct twin - two mappings on one arena: "new" and "before".
 * @arena: The arena.
 * @m: m[0] is driven by the library's paths, m[1] by the baselines.
 */
struct twin {
	struct upc_arena *arena;
	struct address_space m[2];
};

static void twin_init(struct twin *t, unsigned long flags)
{
	assert_int_equal(upc_arena_create(32UL << 20, &t->arena), 0);
	address_space_init(&t->m[0], t->arena, NULL, flags);
	address_space_init(&t->m[1], t->arena, NULL, flags);
}

/* twin_same() - Both mappings hold the same page cache. */
static void twin_same(struct twin *t)
{
	struct fmb_digest d[2];
	int i;

	for (i = 0; i < 2; i++) {
		assert_int_equal(upc_check_mapping(&t->m[i]), 0);
		fmb_digest(&t->m[i], &d[i]);
	}
	assert_int_equal(d[0].entries, d[1].entries);
	assert_int_equal(d[0].folios, d[1].folios);
	assert_int_equal(d[0].shadows, d[1].shadows);
	assert_int_equal(d[0].nrpages, d[1].nrpages);
	assert_true(d[0].hash == d[1].hash);
	assert_true(fmb_digest_equal(&d[0], &d[1]));
}

static void twin_fini(struct twin *t)
{
	int i;

	for (i = 0; i < 2; i++) {
		truncate_inode_pages(&t->m[i], 0);
		assert_true(xa_empty(&t->m[i].i_pages));
	}
	assert_int_equal(upc_arena_charged(t->arena), 0);
	upc_arena_destroy(t->arena);
}

/* The shadows and adds of one scenario step. */
enum step_kind { SHADOW, ADD };

struct step {
	enum step_kind kind;
	pgoff_t index;
	unsigned int order;
	int ret;		/* ADD: expected return */
	unsigned long shadow;	/* ADD: expected shadow's value, 0: none */
};

/*
 * Every kind of conflict an add meets: none, an order-0 shadow, a
 * larger shadow (split down one level and across levels), several
 * shadows under a large folio, a folio in the way, a misaligned index.
 */
static const struct step add_steps[] = {
	{ ADD, 5, 0, 0, 0 },
	{ SHADOW, 7, 0, 0, 0 },
	{ ADD, 7, 0, 0, 7 },
	{ SHADOW, 512, 9, 0, 0 },
	{ ADD, 600, 0, 0, 512 },
	{ SHADOW, 16, 0, 0, 0 }, { SHADOW, 17, 0, 0, 0 },
	{ SHADOW, 19, 0, 0, 0 },
	{ ADD, 16, 2, 0, 16 },
	{ SHADOW, 1024, 9, 0, 0 },
	{ ADD, 1040, 2, 0, 1024 },
	{ SHADOW, 1 << 20, 9, 0, 0 },
	{ ADD, (1 << 20) + 77, 0, 0, 1 << 20 },
	{ ADD, 7, 0, -EEXIST, 0 },
	{ SHADOW, 2048, 0, 0, 0 }, { SHADOW, 2050, 1, 0, 0 },
	{ ADD, 2048, 9, 0, 2048 },
	{ ADD, 512, 9, -EEXIST, 0 },
	{ ADD, 33, 2, -EINVAL, 0 },
};

static void test_add_same_trees(void **state)
{
	int (*const add[2])(struct address_space *, struct folio *, pgoff_t,
			    gfp_t, void **) = {
		__filemap_add_folio, fmb_before_add_folio,
	};
	struct twin t;
	size_t s;
	int i;

	(void)state;
	twin_init(&t, 1UL << AS_LARGE_FOLIOS);
	for (s = 0; s < sizeof(add_steps) / sizeof(add_steps[0]); s++) {
		const struct step *st = &add_steps[s];

		for (i = 0; i < 2; i++) {
			struct folio *folio;
			void *shadow = (void *)1;

			if (st->kind == SHADOW) {
				fmb_store_value(&t.m[i], st->index, st->order,
						xa_mk_value(st->index), "test");
				continue;
			}
			folio = filemap_alloc_folio(&t.m[i], GFP_KERNEL,
						    st->order);
			assert_non_null(folio);
			assert_true(folio_trylock(folio));
			assert_int_equal(add[i](&t.m[i], folio, st->index,
						GFP_KERNEL, &shadow), st->ret);
			if (!st->ret)
				assert_ptr_equal(shadow, st->shadow ?
						 xa_mk_value(st->shadow) :
						 NULL);
			folio_unlock(folio);
			folio_put(folio);
		}
		twin_same(&t);
	}
	twin_fini(&t);
}

/* Counted: the baseline's walks, against the new path's one. */
static void test_add_walks(void **state)
{
	struct upc_thread_stats before, after;
	struct twin t;
	pgoff_t i;
	int p;

	(void)state;
	twin_init(&t, 0);
	for (p = 0; p < 2; p++) {
		struct folio *folio;

		for (i = 0; i < 64; i++)
			fmb_store_value(&t.m[p], i, 0, xa_mk_value(i), "test");
		folio = filemap_alloc_folio(&t.m[p], GFP_KERNEL, 0);
		assert_non_null(folio);
		folio_trylock(folio);
		upc_stats_thread(&before);
		assert_int_equal((p ? fmb_before_add_folio :
				  __filemap_add_folio)(&t.m[p], folio, 33,
						       GFP_KERNEL, NULL), 0);
		upc_stats_thread(&after);
		assert_int_equal(after.xa_walks - before.xa_walks, p ? 3 : 1);
		assert_int_equal(after.lock_acquires - before.lock_acquires, 1);
		folio_unlock(folio);
		folio_put(folio);
	}
	twin_same(&t);
	twin_fini(&t);
}

/* Grab: the per-folio loop builds the file the batch builds. */
static void test_grab_same_trees(void **state)
{
	static const struct { unsigned long flags; size_t size; } kinds[] = {
		{ 0, UPC_PAGE_SIZE },
		{ 1UL << AS_LARGE_FOLIOS, UPC_HUGE_SIZE },
	};
	struct folio *folios[FILEMAP_GRAB_MAX];
	size_t k;

	(void)state;
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		struct twin t;
		pgoff_t index;
		int i, n[2];

		twin_init(&t, kinds[k].flags);
		/* A shadow in the way is replaced by both. */
		for (i = 0; i < 2; i++)
			fmb_store_value(&t.m[i], 700, 0, xa_mk_value(1),
					"test");
		for (index = 0; index < 2048; index += FILEMAP_GRAB_MAX) {
			n[0] = filemap_grab_folios(&t.m[0], index,
						   FILEMAP_GRAB_MAX, folios);
			assert_true(n[0] > 0);
			for (i = 0; i < n[0]; i++) {
				folio_unlock(folios[i]);
				folio_put(folios[i]);
			}
			n[1] = fmb_before_grab_folios(&t.m[1], index,
						      FILEMAP_GRAB_MAX, folios,
						      kinds[k].size);
			assert_int_equal(n[1], n[0]);
			for (i = 0; i < n[1]; i++) {
				assert_true(folio_test_locked(folios[i]));
				folio_unlock(folios[i]);
				folio_put(folios[i]);
			}
		}
		assert_int_equal(t.m[1].nrpages, 2048);
		twin_same(&t);
		twin_fini(&t);
	}
}

/*
 * Contiguous lookup: the per-folio baseline returns the batches the
 * batch lookup returns, over a full batch, mixed orders and a hole.
 */
static void test_contig_same_batches(void **state)
{
	static const unsigned int orders[] = { 0, 0, 1, 2, 9, 3, 0 };
	struct folio_batch fb[2];
	struct twin t;
	pgoff_t index = 0, start[2];
	bool first;
	size_t k;
	int i;

	(void)state;
	twin_init(&t, 1UL << AS_LARGE_FOLIOS);
	/* 40 order-0 folios (more than a batch), then mixed orders. */
	for (k = 0; k < 40 + sizeof(orders) / sizeof(orders[0]); k++) {
		unsigned int order = k < 40 ? 0 : orders[k - 40];
		struct folio *folio;

		index = (index + (1UL << order) - 1) & ~((1UL << order) - 1);
		folio = filemap_alloc_folio(&t.m[0], GFP_KERNEL, order);
		assert_non_null(folio);
		folio_trylock(folio);
		assert_int_equal(filemap_add_folio(&t.m[0], folio, index,
						   GFP_KERNEL), 0);
		folio_unlock(folio);
		folio_put(folio);
		index += 1UL << order;
	}
	start[0] = start[1] = 0;
	first = true;
	do {
		folio_batch_init(&fb[0]);
		folio_batch_init(&fb[1]);
		filemap_get_folios_contig(&t.m[0], &start[0], 100000, &fb[0]);
		fmb_before_get_folios_contig(&t.m[0], &start[1], 100000,
					     &fb[1]);
		assert_int_equal(folio_batch_count(&fb[1]),
				 folio_batch_count(&fb[0]));
		assert_int_equal(start[1], start[0]);
		for (i = 0; i < (int)folio_batch_count(&fb[0]); i++)
			assert_ptr_equal(fb[1].folios[i], fb[0].folios[i]);
		k = folio_batch_count(&fb[0]);
		if (first)
			assert_int_equal(k, FOLIO_BATCH_SIZE);
		first = false;
		folio_batch_release(&fb[0]);
		folio_batch_release(&fb[1]);
	} while (k);
	/*
	 * The order-9 folio is aligned to 512, which leaves a hole at
	 * 48..511: both stop there, after the order-2 folio at 44.
	 */
	assert_int_equal(start[0], 48);
	twin_fini(&t);
}

/*
 * Swap cache add: the old per-page loop puts the same folio at every
 * slot the library's multi-index store covers and hands back the same
 * shadow, over shadows and over empty slots, for order-0 and order-2
 * folios, and delete_from_swap_cache() takes either out again.  One
 * device per path (an arena has one), in one tree (the library indexes
 * the same way whatever the path).
 */
static void test_swapcache_same_entries(void **state)
{
	static const struct {
		unsigned long offset;
		unsigned int order;
		bool shadow;
	} cases[] = {
		{ 0, 0, true }, { 7, 0, false }, { 64, 2, true },
		{ 1000, 2, false }, { 2047, 0, true },
	};
	struct upc_arena *arena[2];
	struct swap_info_struct *si[2];
	size_t c;
	int k;

	(void)state;
	for (k = 0; k < 2; k++) {
		assert_int_equal(upc_arena_create(8UL << 20, &arena[k]), 0);
		assert_int_equal(upc_reclaim_init(arena[k]), 0);
		assert_int_equal(swap_device_create(arena[k], -1, 8UL << 20,
						    SWAP_SPACE_FULL_INDEX, &si[k]),
				 0);
	}
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		unsigned long nr = 1UL << cases[c].order, i;
		void *want = cases[c].shadow ? xa_mk_value(c + 1) : NULL;
		struct folio *folio[2];

		for (k = 0; k < 2; k++) {
			swp_entry_t entry = swp_entry(si[k]->type,
						      cases[c].offset);
			struct address_space *space =
				swap_address_space(si[k], entry);
			void *shadow = (void *)1;

			for (i = 0; want && i < nr; i++)
				fmb_store_value(space, cases[c].offset + i, 0,
						want, "test");
			folio[k] = upc_arena_alloc_folio(arena[k], GFP_KERNEL,
							 cases[c].order);
			assert_non_null(folio[k]);
			folio_trylock(folio[k]);
			assert_int_equal(k ? fmb_before_add_to_swap_cache(
						si[k], folio[k], entry,
						GFP_KERNEL, &shadow) :
					 add_to_swap_cache(si[k], folio[k],
						entry, GFP_KERNEL, &shadow), 0);
			assert_ptr_equal(shadow, want);
			assert_true(folio_test_swapcache(folio[k]));
			assert_int_equal(folio_swap_entry(folio[k]).val,
					 entry.val);
			assert_int_equal(folio_ref_count(folio[k]), 1 + nr);
			assert_int_equal(space->nrpages, nr);
			for (i = 0; i < nr; i++)
				assert_ptr_equal(xa_load(&space->i_pages,
						 cases[c].offset + i),
						 folio[k]);
			delete_from_swap_cache(si[k], folio[k], NULL);
			assert_false(folio_test_swapcache(folio[k]));
			assert_int_equal(folio_ref_count(folio[k]), 1);
			assert_int_equal(space->nrpages, 0);
			assert_true(xa_empty(&space->i_pages));
			folio_unlock(folio[k]);
			folio_put(folio[k]);
		}
	}
	for (k = 0; k < 2; k++) {
		assert_int_equal(swap_device_destroy(si[k]), 0);
		lru_add_drain_all(arena[k]);
		assert_int_equal(upc_arena_charged(arena[k]), 0);
		upc_reclaim_destroy(arena[k]);
		upc_arena_destroy(arena[k]);
	}
}

/* ------------------------------------------------------------------ */
/* A leak ends the run                                                 */
/* ------------------------------------------------------------------ */

/* leak_one() - In the child: reset the fixture with a folio held. */
static void leak_one(void *arg)
{
	static struct fm_bench b;
	struct bench_options opts = { .tiny = true };
	struct fm_scale scale;
	struct folio *folio;

	(void)arg;
	fmb_scale_from_options(&opts, &scale);
	fmb_init(&b, &scale);
	folio = filemap_alloc_folio(&b.mapping, GFP_KERNEL, 0);
	folio_trylock(folio);
	filemap_add_folio(&b.mapping, folio, 3, GFP_KERNEL);
	folio_unlock(folio);
	/* The caller's reference is kept: a leak. */
	fmb_reset(&b, "leaky_row");
}

static void test_leak_dies(void **state)
{
	(void)state;
	bt_expect_exit2(leak_one, NULL, "upcache-bench: filemap leaky_row: 1 "
			"pages still charged to the arena");
}

int main(void)
{
	const struct CMUnitTest suite_tests[] = {
		cmocka_unit_test(test_suite_json),
		cmocka_unit_test(test_suite_figures),
		cmocka_unit_test(test_suite_counters),
		cmocka_unit_test(test_suite_consistent),
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reader_strict),
		cmocka_unit_test(test_add_same_trees),
		cmocka_unit_test(test_add_walks),
		cmocka_unit_test(test_grab_same_trees),
		cmocka_unit_test(test_contig_same_batches),
		cmocka_unit_test(test_swapcache_same_entries),
		cmocka_unit_test(test_leak_dies),
	};

	return cmocka_run_group_tests(suite_tests, suite_setup,
				      bt_suite_teardown) |
		cmocka_run_group_tests(tests, NULL, NULL);
}
