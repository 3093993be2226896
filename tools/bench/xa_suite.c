// SPDX-License-Identifier: MIT
/*
 * tools/bench/xa_suite.c - `upcache-bench xarray`: the XArray suite.
 *
 * Owns the list of rows (name, unit, the kernel's reference figure, the
 * hooks that measure it), the order they run in, and how their figures
 * become report rows, the table and the notes under it.  The operations
 * themselves are in xa_cases.c and xa_readers.c.
 *
 * Three kinds of row:
 *
 *	time		ns per operation (or per entry visited, or per
 *			split), the median over interleaved rounds;
 *	bytes		node memory per entry stored, from the node
 *			allocations counted while a store row ran: exact,
 *			the same every round;
 *	throughput	million random loads per second per thread, with
 *			1 and 2 threads, to show that readers scale.
 *
 * The kernel figures are the kernel's own XArray on typical hardware,
 * published references rather than measurements on this machine; the
 * bytes rows also get a same-machine reference, the exact node memory of
 * the kernel's layout for the same index set (xa_layout.h).
 */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <upcache/xarray.h>

#include "suite.h"
#include "table.h"
#include "xa_cases.h"
#include "xa_layout.h"

#define KERNEL_REF_SOURCE \
	"the Linux kernel's own XArray measured on typical hardware: " \
	"references, not measurements on this machine"

/* enum xa_kind - what a row measures (see the file comment). */
enum xa_kind {
	XA_TIME,
	XA_BYTES,
	XA_THROUGHPUT,
};

/**
 * struct xa_row - one row of the suite.
 * @name: Its name in the table and the JSON.
 * @kind: What it measures.
 * @unit: The unit of its figure.
 * @kernel_ref: The kernel's figure in @unit, NAN if there is none.
 * @kernel_note: The published figure when @kernel_ref stands for a
 *	range, else NULL.
 * @hooks: How to measure a time or throughput row (@name and @arg are
 *	filled in at run time).
 * @threads: Threads of a throughput row.
 * @bytes_of: Bytes rows: the store row whose node allocations they count.
 * @sparse: Bytes rows: the index set is the sparse one, not 0..n-1.
 */
struct xa_row {
	const char *name;
	enum xa_kind kind;
	const char *unit;
	double kernel_ref;
	const char *kernel_note;
	struct bench_case hooks;
	unsigned int threads;
	const char *bytes_of;
	bool sparse;
};

#define TIME_ROW(_name, _unit, _ref, ...) \
	{ .name = _name, .kind = XA_TIME, .unit = _unit, \
	  .kernel_ref = _ref, .hooks = { __VA_ARGS__ } }
#define BYTES_ROW(_name, _ref, _of, _sparse) \
	{ .name = _name, .kind = XA_BYTES, .unit = "B/entry", \
	  .kernel_ref = _ref, .bytes_of = _of, .sparse = _sparse }
#define THROUGHPUT_ROW(_name, _threads) \
	{ .name = _name, .kind = XA_THROUGHPUT, .unit = "Mops/thread", \
	  .kernel_ref = NAN, .threads = _threads, \
	  .hooks = { .run = xab_readers_run } }

static const struct xa_row xa_rows[] = {
	TIME_ROW("store_seq", "ns/op", 28,
		 .body = xab_store_seq, .teardown = xab_work_destroy),
	TIME_ROW("load_seq", "ns/op", 9.7,
		 .body = xab_load_seq, .rewarm = true),
	TIME_ROW("load_random", "ns/op", 47,
		 .body = xab_load_random, .rewarm = true),
	TIME_ROW("erase_seq", "ns/op", 24,
		 .setup = xab_erase_setup, .body = xab_erase_seq,
		 .teardown = xab_erase_check),
	{ .name = "sparse_store", .kind = XA_TIME, .unit = "ns/op",
	  .kernel_ref = 1800, .kernel_note = "1600-2000",
	  .hooks = { .body = xab_sparse_store,
		     .teardown = xab_work_destroy } },
	TIME_ROW("sparse_load", "ns/op", 713,
		 .body = xab_sparse_load, .rewarm = true),
	TIME_ROW("xas_for_each", "ns/entry", 2.3,
		 .body = xab_xas_for_each, .rewarm = true),
	TIME_ROW("xa_for_each", "ns/entry", 12.4,
		 .body = xab_xa_for_each, .rewarm = true),
	TIME_ROW("order9_store", "ns/op", 76,
		 .body = xab_order9_store, .teardown = xab_work_destroy),
	TIME_ROW("order9_load_random", "ns/op", NAN,
		 .body = xab_order9_load_random, .rewarm = true),
	TIME_ROW("split_order9", "ns/split", NAN,
		 .setup = xab_split_setup, .body = xab_split_order9,
		 .teardown = xab_split_check),
	TIME_ROW("try_split_order9", "ns/split", NAN,
		 .setup = xab_split_setup, .body = xab_try_split_order9,
		 .teardown = xab_try_split_check),
	TIME_ROW("conflict_scan", "ns/op", NAN,
		 .setup = xab_conflict_setup, .body = xab_conflict_scan,
		 .teardown = xab_conflict_check),
	BYTES_ROW("bytes_per_entry_dense", 9.14, "store_seq", false),
	BYTES_ROW("bytes_per_entry_sparse", 1702, "sparse_store", true),
	THROUGHPUT_ROW("load_random_1thread", 1),
	THROUGHPUT_ROW("load_random_2threads", 2),
};

#define NR_ROWS	(sizeof(xa_rows) / sizeof(xa_rows[0]))

static const struct bench_table_col xa_cols[] = {
	{ "row", 22, true },
	{ "median", 7, false },
	{ "unit", 11, true },
	{ "min..max", 15, false },
	{ "kernel ref", 10, false },
	{ "ratio", 5, false },
	{ "walks/op", 8, false },
	{ "allocs/op", 9, false },
	{ "locks/op", 8, false },
};

#define NR_COLS	(sizeof(xa_cols) / sizeof(xa_cols[0]))

/**
 * struct xa_run - one run of the suite.
 * @b: The fixtures and index sequences.
 * @readers: The arguments of the throughput rows, by row.
 * @cases: The measured rows' cases, in xa_rows order.
 * @case_of: For each row, its index in @cases, or -1 (bytes rows).
 * @nr_cases: Number of @cases used.
 * @m: The measurements, parallel to @cases.
 */
struct xa_run {
	struct xa_bench b;
	struct xab_readers readers[NR_ROWS];
	struct bench_case cases[NR_ROWS];
	int case_of[NR_ROWS];
	size_t nr_cases;
	struct bench_measurement m[NR_ROWS];
};

/* xa_row_index() - The index of row @name in xa_rows; dies if none. */
static size_t xa_row_index(const char *name)
{
	size_t i;

	for (i = 0; i < NR_ROWS; i++)
		if (!strcmp(xa_rows[i].name, name))
			return i;
	bench_die("xarray: no row '%s'", name);
}

/* xa_build_cases() - One case per measured row, pointing at @run's state. */
static void xa_build_cases(struct xa_run *run)
{
	size_t i;

	for (i = 0; i < NR_ROWS; i++) {
		const struct xa_row *spec = &xa_rows[i];
		struct bench_case *c = &run->cases[run->nr_cases];

		run->case_of[i] = -1;
		if (spec->kind == XA_BYTES)
			continue;
		*c = spec->hooks;
		c->name = spec->name;
		c->arg = &run->b;
		if (spec->kind == XA_THROUGHPUT) {
			run->readers[i].b = &run->b;
			run->readers[i].threads = spec->threads;
			c->arg = &run->readers[i];
		}
		run->case_of[i] = (int)run->nr_cases++;
	}
}

/*
 * xa_report_common() - The fields every row has, in the same order:
 * its figure in its unit, the kernel's, their ratio, the time figures
 * (null for bytes rows), the counters and the rounds.
 */
static void xa_report_common(struct bench_row *row, const struct xa_row *spec,
			     const struct bench_summary *value,
			     const struct bench_measurement *m)
{
	bool is_time = spec->kind != XA_BYTES;

	bench_row_set_str(row, "unit", spec->unit);
	bench_row_set_summary(row, "value", "value_min", "value_max", value);
	bench_row_set_num(row, "kernel_ref", spec->kernel_ref);
	bench_row_set_str(row, "kernel_ref_note", spec->kernel_note);
	bench_row_set_num(row, "ratio",
			  bench_ratio(value->median, spec->kernel_ref));
	bench_row_set_summary(row, "ns_per_op", "ns_per_op_min",
			      "ns_per_op_max", is_time ? &m->ns : NULL);
	bench_row_set_num(row, "kernel_ref_ns",
			  is_time ? spec->kernel_ref : NAN);
	bench_counts_to_row(row, &m->counts);
	bench_row_set_num(row, "rounds", m->rounds);
	bench_row_set_num(row, "ops_per_round", (double)m->ops_per_round);
}

/* xa_report_time() - The row of a time row. */
static void xa_report_time(struct bench_row *row, const struct xa_row *spec,
			   const struct bench_measurement *m)
{
	xa_report_common(row, spec, &m->ns, m);
}

/*
 * xa_report_throughput() - The row of a throughput row: Mops per thread
 * of each round, from its per-thread ns per load, and its "scaling":
 * that rate over @one_thread, the 1-thread row's (reported first).
 */
static void xa_report_throughput(struct bench_row *row,
				 const struct xa_row *spec,
				 const struct bench_measurement *m,
				 double one_thread)
{
	double mops[BENCH_MAX_ROUNDS];
	struct bench_summary s;
	unsigned int r;

	for (r = 0; r < m->rounds; r++)
		mops[r] = 1000.0 / m->ns_per_op[r];
	if (bench_summarize(mops, m->rounds, &s))
		bench_die("xarray %s: cannot summarise", spec->name);
	xa_report_common(row, spec, &s, m);
	bench_row_set_summary(row, "mops_per_thread", "mops_per_thread_min",
			      "mops_per_thread_max", &s);
	bench_row_set_num(row, "threads", spec->threads);
	bench_row_set_num(row, "scaling",
			  bench_ratio(s.median, spec->threads == 1 ?
				      s.median : one_thread));
}

/*
 * xa_report_bytes() - The row of a bytes row: nodes allocated (net of
 * frees) per entry while its store row filled an empty array, times the
 * node size.  The counters other than node allocations belong to the
 * store row and are left out.
 */
static void xa_report_bytes(struct bench_row *row, const struct xa_row *spec,
			    const struct xa_run *run)
{
	const struct bench_measurement *m =
		&run->m[run->case_of[xa_row_index(spec->bytes_of)]];
	const struct bench_scale *scale = run->b.scale;
	uint64_t net = m->counts.node_allocs > m->counts.node_frees ?
		m->counts.node_allocs - m->counts.node_frees : 0;
	double nodes = bench_per_op(net, m->counts.ops);
	double bytes = nodes * (double)sizeof(struct xa_node);
	struct bench_summary s = { bytes, bytes, bytes, 1 };
	double layout = spec->sparse ?
		bench_xa_layout_bytes_per_entry(run->b.sparse_idx,
						scale->nr_sparse) :
		bench_xa_layout_bytes_per_entry(run->b.perm,
						scale->nr_entries);

	xa_report_common(row, spec, &s, m);
	bench_row_set_num(row, "walks_per_op", NAN);
	bench_row_set_num(row, "node_frees_per_op", NAN);
	bench_row_set_num(row, "locks_per_op", NAN);
	bench_row_set_num(row, "bytes_per_entry", bytes);
	bench_row_set_num(row, "kernel_ref_bytes", spec->kernel_ref);
	bench_row_set_num(row, "kernel_layout_bytes_per_entry", layout);
	bench_row_set_num(row, "nodes_per_entry", nodes);
	bench_row_set_num(row, "node_bytes", (double)sizeof(struct xa_node));
	bench_row_set_str(row, "measured_by", spec->bytes_of);
}

/* xa_print_row() - Print the table line of a report row. */
static void xa_print_row(const struct bench_table *t,
			 const struct bench_row *row)
{
	char cells[NR_COLS][BENCH_CELL_LEN];
	const char *cell[NR_COLS];
	const struct bench_field *unit = bench_row_get(row, "unit");
	static const char *const num_keys[NR_COLS] = {
		NULL, "value", NULL, NULL, "kernel_ref", "ratio",
		"walks_per_op", "node_allocs_per_op", "locks_per_op",
	};

	bench_fmt_row_nums(row, num_keys, NR_COLS, cells, cell);
	cell[0] = row->name;
	cell[2] = unit ? unit->str : NULL;
	bench_fmt_row_range(cells[3], sizeof(cells[3]), row, "value");
	bench_table_row(t, cell);
}

/* xa_report_meta() - The run's facts, at the top of the JSON object. */
static void xa_report_meta(struct bench_report *rep,
			   const struct bench_scale *scale)
{
	struct bench_row *meta = &rep->meta;

	bench_row_set_str(meta, "mode", scale->mode);
	bench_row_set_num(meta, "entries", (double)scale->nr_entries);
	bench_row_set_num(meta, "sparse_entries", (double)scale->nr_sparse);
	bench_row_set_num(meta, "order9_entries", (double)scale->nr_order9);
	bench_row_set_num(meta, "splits_per_round", (double)scale->nr_splits);
	bench_row_set_num(meta, "conflict_ranges_per_round",
			  (double)scale->nr_conflicts);
	bench_meta_set_rounds(meta, scale->rounds, scale->warmups);
	bench_row_set_str(meta, "kernel_ref_source", KERNEL_REF_SOURCE);
}

/* xa_print_header() - What the run measures and how to read it. */
static void xa_print_header(FILE *out, const struct bench_scale *scale)
{
	fprintf(out,
		"upcache-bench xarray (%s): %zu dense entries, %zu sparse, "
		"%zu order-9,\n"
		"  %zu splits and %zu conflict ranges a round; %u timed "
		"rounds after %u warm-up,\n"
		"  interleaved across rows\n"
		"figures: median over rounds [min..max]\n"
		"walks/op, allocs/op, locks/op: upcache's per-thread counters "
		"(XArray walks from\n"
		"  the root, nodes allocated, lock round trips) per operation\n"
		"kernel ref: the Linux kernel's own XArray measured on typical "
		"hardware; these are\n"
		"  references, not measurements on this machine.  ratio = "
		"upcache / kernel ref\n"
		"  (below 1: upcache faster or smaller)\n\n",
		scale->mode, scale->nr_entries, scale->nr_sparse,
		scale->nr_order9, scale->nr_splits, scale->nr_conflicts,
		scale->rounds, scale->warmups);
	fflush(out);
}

/* xa_print_notes() - The notes under the table. */
static void xa_print_notes(FILE *out, const struct bench_report *rep)
{
	const struct bench_row *rows = rep->rows;
	const struct bench_row *dense =
		&rows[xa_row_index("bytes_per_entry_dense")];
	const struct bench_row *sparse =
		&rows[xa_row_index("bytes_per_entry_sparse")];
	const struct bench_row *two =
		&rows[xa_row_index("load_random_2threads")];

	fprintf(out,
		"\nnotes:\n"
		"  sparse_store: the kernel figure is published as 1600-2000 "
		"ns/op; 1800 is used.\n"
		"  bytes_per_entry_*: nodes allocated net of frees x %zu B "
		"per entry stored (rows\n"
		"    store_seq and sparse_store).  The kernel's own layout "
		"needs exactly %.2f and\n"
		"    %.0f B/entry for these same index sets (one node per "
		"index prefix per level).\n"
		"  load_random_2threads: %.2fx the per-thread load rate of "
		"1 thread (1.00: readers\n"
		"    scale perfectly; %ld CPUs online).\n",
		sizeof(struct xa_node),
		bench_row_num(dense, "kernel_layout_bytes_per_entry"),
		bench_row_num(sparse, "kernel_layout_bytes_per_entry"),
		bench_row_num(two, "scaling"), sysconf(_SC_NPROCESSORS_ONLN));
}

/* xa_report_rows() - Report rows, table and notes from the measurements. */
static void xa_report_rows(const struct xa_run *run, struct bench_output *out,
			   struct bench_report *rep)
{
	struct bench_table t = { out->table, xa_cols, NR_COLS };
	double one_thread = NAN;
	size_t i;

	bench_table_header(&t);
	for (i = 0; i < NR_ROWS; i++) {
		const struct xa_row *spec = &xa_rows[i];
		struct bench_row *row = bench_report_add_row(rep, spec->name);
		const struct bench_measurement *m =
			run->case_of[i] >= 0 ? &run->m[run->case_of[i]] : NULL;

		if (spec->kind == XA_TIME) {
			xa_report_time(row, spec, m);
		} else if (spec->kind == XA_BYTES) {
			xa_report_bytes(row, spec, run);
		} else {
			xa_report_throughput(row, spec, m, one_thread);
			if (spec->threads == 1)
				one_thread = bench_row_num(row, "value");
		}
		xa_print_row(&t, row);
	}
	xa_print_notes(out->table, rep);
}

/**
 * bench_suite_xarray() - Run the XArray suite.
 * @opts: The suite's options.
 * @out: Where the table goes.
 * @rep: The report to fill.
 *
 * Return: 0.  A wrong answer from the XArray ends the run (exit status 2)
 * with a message naming the row.
 */
int bench_suite_xarray(const struct bench_options *opts,
		       struct bench_output *out, struct bench_report *rep)
{
	static struct xa_run run;
	struct bench_scale scale;

	bench_scale_from_options(opts, &scale);
	xa_print_header(out->table, &scale);
	xa_report_meta(rep, &scale);
	memset(&run, 0, sizeof(run));
	xab_init(&run.b, &scale);
	xa_build_cases(&run);
	bench_measure_cases(run.cases, run.nr_cases, scale.warmups,
			    scale.rounds, run.m,
			    isatty(STDERR_FILENO) ? stderr : NULL);
	xa_report_rows(&run, out, rep);
	xab_free(&run.b);
	return 0;
}
