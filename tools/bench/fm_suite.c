// SPDX-License-Identifier: MIT
/*
 * tools/bench/fm_suite.c - `upcache-bench filemap`: the page cache suite.
 *
 * Owns the list of rows (name, unit, pair, the speedup target),
 * the order they run in, and how their figures become report rows, the
 * table and the notes under it.  The operations are in fm_cases.c, the
 * "before" paths in fm_baseline.c.
 *
 * Every row is one of a pair: the library's path and the one it
 * replaced, measured in the same interleaved rounds on the same input:
 *
 *	add_shadow0	__filemap_add_folio() of an order-0 folio over an
 *			order-0 shadow (seed 000's common case)
 *	add_split9	the same inside an order-9 shadow: every add splits
 *	grab_order0	fill a file with filemap_grab_folios(), 512 indices
 *			a call, vs filemap_grab_folio() per index (seed 004)
 *	grab_order9	the same creating order-9 folios
 *	contig_order9	filemap_get_folios_contig() over order-9 folios
 *			vs a lookup per folio (seed 002)
 *	swapcache_add	add_to_swap_cache() over a slot's shadow, then
 *			delete_from_swap_cache(): the swap cache through
 *			the page cache's locked store helper vs its own
 *			store loop (seed 001)
 *
 * A pair's speedup is the median over rounds of (before ns / new ns) of
 * the same round, so a slow phase of the machine hits both sides of one
 * ratio (samples.h).  Counters per operation come from upcache's
 * per-thread counters: walks from the root and i_pages lock round trips.
 */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "fm_cases.h"
#include "suite.h"
#include "table.h"
#include "util.h"

#define BASELINE_SOURCE \
	"tools/bench/fm_baseline.c: the paths before seeds 000 (add), " \
	"004 (grab), 002 (contiguous lookup) and 001 (swap cache add), on " \
	"this machine"

/**
 * struct fm_row - one row of the suite.
 * @name: Its name in the table and the JSON.
 * @unit: The unit of its time.
 * @pair: The pair it belongs to.
 * @before: The "before" side of the pair.
 * @target: New rows: the speedup the issue asks for, NaN if none.
 * @hooks: How to measure it (@name and @arg are filled in at run time).
 */
struct fm_row {
	const char *name;
	const char *unit;
	enum fmb_pair pair;
	bool before;
	double target;
	struct bench_case hooks;
};

#define HOOKS(what) \
	.setup = fmb_##what##_setup, .body = fmb_##what##_body, \
	.teardown = fmb_##what##_teardown
#define PAIR(_new, _before, _unit, _pair, _target, ...) \
	{ .name = _new, .unit = _unit, .pair = _pair, .before = false, \
	  .target = _target, .hooks = { __VA_ARGS__ } }, \
	{ .name = _before, .unit = _unit, .pair = _pair, .before = true, \
	  .target = NAN, .hooks = { __VA_ARGS__ } }

static const struct fm_row fm_rows[] = {
	PAIR("add_shadow0", "add_shadow0_baseline", "ns/op",
	     FMB_ADD_SHADOW0, 1.15, HOOKS(add0)),
	PAIR("add_split9", "add_split9_baseline", "ns/op",
	     FMB_ADD_SPLIT9, 1.3, HOOKS(split)),
	PAIR("grab_order0", "grab_order0_loop", "ns/folio",
	     FMB_GRAB_ORDER0, 1.5, .run = fmb_grab_run),
	PAIR("grab_order9", "grab_order9_loop", "ns/folio",
	     FMB_GRAB_ORDER9, NAN, .run = fmb_grab_run),
	PAIR("contig_order9", "contig_order9_baseline", "ns/page",
	     FMB_CONTIG_ORDER9, NAN, HOOKS(contig)),
	PAIR("swapcache_add", "swapcache_add_baseline", "ns/op",
	     FMB_SWAPCACHE_ADD, NAN, HOOKS(swap)),
};

#define NR_ROWS	(sizeof(fm_rows) / sizeof(fm_rows[0]))

static const struct bench_table_col fm_cols[] = {
	{ "row", 22, true },
	{ "median", 7, false },
	{ "unit", 8, true },
	{ "min..max", 13, false },
	{ "speedup", 7, false },
	{ "min..max", 11, false },
	{ "target", 6, false },
	{ "walks/op", 8, false },
	{ "locks/op", 8, false },
	{ "allocs/op", 9, false },
};

#define NR_COLS	(sizeof(fm_cols) / sizeof(fm_cols[0]))

/**
 * struct fm_run - one run of the suite.
 * @b: The shared state.
 * @args: The hooks' arguments, by row.
 * @cases: The rows' cases, in fm_rows order.
 * @m: Their measurements.
 */
struct fm_run {
	struct fm_bench b;
	struct fmb_case args[NR_ROWS];
	struct bench_case cases[NR_ROWS];
	struct bench_measurement m[NR_ROWS];
};

/* fm_partner() - The index of the other row of row @i's pair. */
static size_t fm_partner(size_t i)
{
	return fm_rows[i].before ? i - 1 : i + 1;
}

/* fm_build_cases() - One case per row, pointing at @run's state. */
static void fm_build_cases(struct fm_run *run)
{
	size_t i;

	for (i = 0; i < NR_ROWS; i++) {
		const struct fm_row *spec = &fm_rows[i];

		run->args[i] = (struct fmb_case) {
			.b = &run->b, .row = spec->name, .pair = spec->pair,
			.before = spec->before,
		};
		run->cases[i] = spec->hooks;
		run->cases[i].name = spec->name;
		run->cases[i].arg = &run->args[i];
	}
}

/*
 * fm_speedup() - The speedup of the pair of new row @i: the median over
 * rounds of the before row's ns/op over the new row's, with min and max.
 */
static void fm_speedup(const struct fm_run *run, size_t i,
		       struct bench_summary *s)
{
	const struct bench_measurement *fresh = &run->m[i];
	const struct bench_measurement *old = &run->m[fm_partner(i)];

	if (bench_ratio_summary(old->ns_per_op, fresh->ns_per_op,
				fresh->rounds, s))
		bench_die("filemap %s: cannot summarise its speedup",
			  fm_rows[i].name);
}

/*
 * fm_report_grab() - Grab rows: their counters per call of
 * FILEMAP_GRAB_MAX indices, the unit the design argues with.
 */
static void fm_report_grab(struct bench_row *row, const struct fm_run *run,
			   const struct bench_measurement *m)
{
	double calls = (double)fmb_grab_calls(&run->b) * m->rounds;

	bench_row_set_num(row, "indices_per_call", FILEMAP_GRAB_MAX);
	bench_row_set_num(row, "calls_per_round",
			  (double)fmb_grab_calls(&run->b));
	bench_row_set_num(row, "folios_per_call",
			  (double)m->counts.ops / calls);
	bench_row_set_num(row, "walks_per_call",
			  (double)m->counts.walks / calls);
	bench_row_set_num(row, "locks_per_call",
			  (double)m->counts.locks / calls);
}

/* fm_report_row() - Fill the report row of row @i. */
static void fm_report_row(struct bench_row *row, const struct fm_run *run,
			  size_t i)
{
	const struct fm_row *spec = &fm_rows[i];
	const struct bench_measurement *m = &run->m[i];
	struct bench_summary speedup;
	bool is_new = !spec->before;

	if (is_new)
		fm_speedup(run, i, &speedup);
	bench_row_set_str(row, "unit", spec->unit);
	bench_row_set_summary(row, "value", "value_min", "value_max", &m->ns);
	bench_row_set_summary(row, "ns_per_op", "ns_per_op_min",
			      "ns_per_op_max", &m->ns);
	bench_counts_to_row(row, &m->counts);
	bench_row_set_str(row, "role", spec->before ? "baseline" : "new");
	bench_row_set_str(row, "pair", fm_rows[fm_partner(i)].name);
	bench_row_set_summary(row, "speedup", "speedup_min", "speedup_max",
			      is_new ? &speedup : NULL);
	bench_row_set_num(row, "speedup_target", spec->target);
	if (is_new && !isnan(spec->target))
		bench_row_set_str(row, "target_met",
				  speedup.median >= spec->target ?
				  "yes" : "no");
	else
		bench_row_set_str(row, "target_met", NULL);
	if (spec->pair == FMB_GRAB_ORDER0 || spec->pair == FMB_GRAB_ORDER9)
		fm_report_grab(row, run, m);
	if (spec->before)
		bench_row_set_num(row, "trees_compared",
				  (double)run->b.compared[spec->pair]);
	bench_row_set_num(row, "rounds", m->rounds);
	bench_row_set_num(row, "ops_per_round", (double)m->ops_per_round);
}

/* fm_print_row() - Print the table line of a report row. */
static void fm_print_row(const struct bench_table *t,
			 const struct bench_row *row)
{
	static const char *const num_keys[NR_COLS] = {
		NULL, "value", NULL, NULL, "speedup", NULL, "speedup_target",
		"walks_per_op", "locks_per_op", "node_allocs_per_op",
	};
	char cells[NR_COLS][BENCH_CELL_LEN];
	const char *cell[NR_COLS];

	bench_fmt_row_nums(row, num_keys, NR_COLS, cells, cell);
	cell[0] = row->name;
	cell[2] = bench_row_get(row, "unit")->str;
	bench_fmt_row_range(cells[3], sizeof(cells[3]), row, "value");
	bench_fmt_row_range(cells[5], sizeof(cells[5]), row, "speedup");
	bench_table_row(t, cell);
}

/* fm_report_meta() - The run's facts, at the top of the JSON object. */
static void fm_report_meta(struct bench_report *rep, const struct fm_bench *b)
{
	struct bench_row *meta = &rep->meta;
	const struct fm_scale *scale = &b->scale;

	bench_row_set_str(meta, "mode", scale->mode);
	bench_row_set_num(meta, "file_pages", (double)scale->file_pages);
	bench_row_set_num(meta, "file_mib",
			  (double)(scale->file_pages >> (20 - UPC_PAGE_SHIFT)));
	bench_row_set_num(meta, "adds_per_round", (double)scale->file_pages);
	bench_row_set_num(meta, "splits_per_round", (double)scale->nr_splits);
	bench_row_set_num(meta, "grab_calls_per_round",
			  (double)fmb_grab_calls(b));
	bench_row_set_num(meta, "contig_passes", scale->contig_passes);
	bench_row_set_num(meta, "arena_mib",
			  (double)(scale->arena_bytes >> 20));
	bench_meta_set_rounds(meta, scale->rounds, scale->warmups);
	bench_row_set_str(meta, "baseline_source", BASELINE_SOURCE);
}

/* fm_print_header() - What the run measures and how to read it. */
static void fm_print_header(FILE *out, const struct fm_scale *scale)
{
	fprintf(out,
		"upcache-bench filemap (%s): a %lu MiB file (%lu pages), "
		"%lu order-9 splits,\n"
		"  %u timed rounds after %u warm-up, interleaved across rows, "
		"in a %zu MiB arena\n"
		"figures: median over rounds [min..max]; each row is freed "
		"before the next\n"
		"speedup: baseline ns / new ns of the same round, median "
		"[min..max] over rounds;\n"
		"  baselines are the paths before seeds 000, 004, 002 and 001 "
		"(tools/bench/fm_baseline.c)\n"
		"swapcache_add: an add to the swap cache over a slot's shadow "
		"and its delete, one op\n"
		"walks/op, locks/op, allocs/op: XArray walks from the root, "
		"i_pages lock round\n"
		"  trips and tree nodes allocated, per operation (upcache's "
		"per-thread counters)\n\n",
		scale->mode, scale->file_pages >> (20 - UPC_PAGE_SHIFT),
		scale->file_pages, scale->nr_splits, scale->rounds,
		scale->warmups, scale->arena_bytes >> 20);
	fflush(out);
}

/* fm_print_notes() - The notes under the table: targets and counters. */
static void fm_print_notes(FILE *out, const struct bench_report *rep)
{
	size_t i;

	fputs("\nnotes:\n", out);
	for (i = 0; i < NR_ROWS; i++) {
		const struct bench_row *row = &rep->rows[i];
		const struct fm_row *spec = &fm_rows[i];

		if (!spec->before && !isnan(spec->target))
			fprintf(out, "  %s: %.2fx over %s, target %.2fx: %s\n",
				spec->name, bench_row_num(row, "speedup"),
				fm_rows[fm_partner(i)].name, spec->target,
				bench_row_get(row, "target_met")->str);
	}
	for (i = 0; i < NR_ROWS; i++) {
		const struct bench_row *row = &rep->rows[i];

		if (bench_row_get(row, "locks_per_call"))
			fprintf(out, "  %s: per call of %u indices: %.2f "
				"folios, %.2f walks, %.2f lock round trips\n",
				row->name, FILEMAP_GRAB_MAX,
				bench_row_num(row, "folios_per_call"),
				bench_row_num(row, "walks_per_call"),
				bench_row_num(row, "locks_per_call"));
	}
	fputs("  same page cache as the new row after every round (warm-ups "
	      "and the split rows'\n    untimed passes included), rounds "
	      "compared:", out);
	for (i = 0; i < NR_ROWS; i++)
		if (fm_rows[i].before)
			fprintf(out, "%s %.0f", i > 1 ? "," : "",
				bench_row_num(&rep->rows[i], "trees_compared"));
	fputs("\n  every round ended with an empty mapping and nothing charged "
	      "to the arena (the swap\n    cache rows' trees keep a shadow "
	      "per slot from round to round)\n", out);
}

/* fm_report_rows() - Report rows, table and notes from the measurements. */
static void fm_report_rows(const struct fm_run *run, struct bench_output *out,
			   struct bench_report *rep)
{
	struct bench_table t = { out->table, fm_cols, NR_COLS };
	size_t i;

	bench_table_header(&t);
	for (i = 0; i < NR_ROWS; i++) {
		struct bench_row *row = bench_report_add_row(rep,
							     fm_rows[i].name);

		fm_report_row(row, run, i);
		fm_print_row(&t, row);
	}
	fm_print_notes(out->table, rep);
}

/**
 * bench_suite_filemap() - Run the page cache suite.
 * @opts: The suite's options.
 * @out: Where the table goes.
 * @rep: The report to fill.
 *
 * Return: 0.  A wrong result, a leak or a tree that differs between the
 * two paths of a pair ends the run (exit status 2) with a message naming
 * the row.
 */
int bench_suite_filemap(const struct bench_options *opts,
			struct bench_output *out, struct bench_report *rep)
{
	static struct fm_run run;
	struct fm_scale scale;

	fmb_scale_from_options(opts, &scale);
	fm_print_header(out->table, &scale);
	memset(&run, 0, sizeof(run));
	fmb_init(&run.b, &scale);
	fm_report_meta(rep, &run.b);
	fm_build_cases(&run);
	bench_measure_cases(run.cases, NR_ROWS, scale.warmups, scale.rounds,
			    run.m, isatty(STDERR_FILENO) ? stderr : NULL);
	fm_report_rows(&run, out, rep);
	fmb_free(&run.b);
	return 0;
}
