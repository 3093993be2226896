// SPDX-License-Identifier: MIT
/*
 * tools/bench/seed_suite.c - `upcache-bench seeds`: every seed experiment
 * scaled to this machine, printed as the seeds print them.
 *
 *	upcache-bench seeds [--quick|--full] [--only 000,002,...]
 *			    [--rounds N] [--out DIR]
 *
 * Owns the list of experiments (one per seed, ../shared/seeds), which
 * suite measures each, and how that suite's rows become the seed's
 * table: before, after, the change the way the seed reports it (+7.3%
 * IOPS, -10.3% time), the kernel's figure for the same work on this
 * machine where there is one (with the suite's reason where that figure
 * is not like for like), and upcache's speed over the kernel's.
 * The measuring is the suites' (rc_suite.c, fm_suite.c, shm_suite.c,
 * sw_suite.c, seed_populate.c): this file only runs them and reads their
 * reports.
 *
 * For each experiment it writes DIR/seed-NNN.json (one object in the
 * suites' shape, {"benchmark": "seed-NNN", ..., "rows": [...]}, every row
 * with its before, after and kernel figures and their ratios) and
 * DIR/seed-NNN.txt (the measuring suite's own detailed table).  An
 * experiment whose layer has not landed is listed with what it needs,
 * in the table and in its JSON, instead of being left out.
 *
 * tools/plot/plot_seeds.py turns the JSON files into PNG charts.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "samples.h"
#include "seed_populate.h"
#include "suite.h"
#include "table.h"
#include "util.h"

#define SEEDS_DEFAULT_DIR	"results"

/**
 * struct seed_extra - a counter a seed's row carries besides its main one.
 * @key: The field both suite rows have.
 * @before_key: The seed row's field for the baseline row's value.
 * @after_key: The seed row's field for the library row's value.
 *
 * Keys are string literals: report rows keep them by reference.
 */
struct seed_extra {
	const char *key;
	const char *before_key;
	const char *after_key;
};

/**
 * struct seed_map - one row of a seed's table, read from a suite's rows.
 * @name: The seed row's name; NULL takes every suite row that has
 *	@after_key (the suite's row names are kept).
 * @figure: What the figures are ("IOPS", "ns/op", "GiB/s", "ms").
 * @higher_better: Throughput (true) or time (false).
 * @after_row: The suite row with the library's figure (NULL: as @name).
 * @after_key: Its field.
 * @before_row: The suite row with the baseline's figure (NULL: the
 *	after row).
 * @before_key: Its field.
 * @kernel_key: The after row's field with the kernel's figure, or NULL.
 * @counter: A counter both rows carry ("walks_per_add" ...), or NULL.
 * @before_counter: The baseline row's key for it (NULL: @counter).
 * @speedup_key: The after row's field with the median over rounds of
 *	the per-round speed ratio after/before (how many times faster),
 *	or NULL to take the ratio of the medians.  Per-round ratios are
 *	what the suites compare by: a slow phase of the machine hits both
 *	sides of one round.
 * @vs_kernel_key: The same for after over the kernel, or NULL.
 * @extras: More counters both rows carry, copied into the seed's row
 *	(JSON only), ended by an all-NULL entry; or NULL.
 */
struct seed_map {
	const char *name;
	const char *figure;
	bool higher_better;
	const char *after_row;
	const char *after_key;
	const char *before_row;
	const char *before_key;
	const char *kernel_key;
	const char *counter;
	const char *before_counter;
	const char *speedup_key;
	const char *vs_kernel_key;
	const struct seed_extra *extras;
};

/**
 * struct seed_experiment - one seed.
 * @id: "000" ... "004".
 * @title: What it measures.
 * @claim: What the seed itself reported.
 * @needs: The layer it waits for, or NULL once it runs.
 * @suite: The suite that measures it.
 * @suite_name: What it is, for the table and messages.
 * @rows: How its rows become the seed's, ended by an all-NULL entry.
 * @no_kernel: Why there is no kernel figure, for rows without one.
 * @pending: A part of the experiment whose layer has not landed, or NULL.
 */
struct seed_experiment {
	const char *id;
	const char *title;
	const char *claim;
	const char *needs;
	bench_suite_fn suite;
	const char *suite_name;
	const struct seed_map *rows;
	const char *no_kernel;
	const char *pending;
};

static int seed_populate_suite(const struct bench_options *opts,
			       struct bench_output *out,
			       struct bench_report *rep)
{
	return seed_populate_run(opts, out, rep);
}

static const struct seed_map seed000_rows[] = {
	{ "randread_4k", "IOPS", true, "randread_4k", "iops",
	  "randread_4k_baseline", "iops", "iops_kernel", "walks_per_add",
	  NULL, "speedup", "vs_kernel", NULL },
	{ "thp_split_4k", "IOPS", true, "thp_split_4k", "iops",
	  "thp_split_4k_baseline", "iops", "iops_kernel", "walks_per_add",
	  NULL, "speedup", "vs_kernel", NULL },
	{ NULL, NULL, false, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	  NULL },
};

static const struct seed_map seed001_rows[] = {
	{ "add_shadow0", "ns/op", false, "add_shadow0", "ns_per_op",
	  "add_shadow0_baseline", "ns_per_op", NULL, "walks_per_op", NULL,
	  "speedup", NULL, NULL },
	{ "add_split9", "ns/op", false, "add_split9", "ns_per_op",
	  "add_split9_baseline", "ns_per_op", NULL, "walks_per_op", NULL,
	  "speedup", NULL, NULL },
	{ "swapcache_add", "ns/op", false, "swapcache_add", "ns_per_op",
	  "swapcache_add_baseline", "ns_per_op", NULL, "walks_per_op", NULL,
	  "speedup", NULL, NULL },
	{ NULL, NULL, false, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	  NULL },
};

static const struct seed_map seed002_rows[] = {
	{ NULL, "GiB/s", true, NULL, "gib_per_s_batched", NULL,
	  "gib_per_s_per_folio", "gib_per_s_kernel", NULL, NULL,
	  "vs_per_folio", "vs_kernel", NULL },
	{ NULL, NULL, false, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	  NULL },
};

/*
 * Seed 003 changed the swap cache's shape, so next to memhog's time the
 * seed's table has the trees' height (the main counter: 3 levels per
 * chunk keyed inside it, against 4 or more keyed by the full offset)
 * and their memory (the
 * seed's "radix tree node slab usage").
 */
static const struct seed_extra seed003_extras[] = {
	{ "walks_per_swapout", "walks_per_swapout_before",
	  "walks_per_swapout_after" },
	{ "tree_nodes", "tree_nodes_before", "tree_nodes_after" },
	{ "swapouts", "swapouts_before", "swapouts_after" },
	{ NULL, NULL, NULL },
};

static const struct seed_map seed003_rows[] = {
	{ "memhog", "ms", false, "memhog", "ms", "memhog_baseline", "ms",
	  "ms_kernel", "max_height", NULL, "speedup", "vs_kernel",
	  seed003_extras },
	{ "swapcache_lookup", "ns/op", false, "memhog", "lookup_ns",
	  "memhog_baseline", "lookup_ns", NULL, "max_height", NULL,
	  "lookup_speedup", NULL, NULL },
	{ "swap_cache_nodes", "KiB", false, "memhog", "node_kib",
	  "memhog_baseline", "node_kib", NULL, "tree_nodes", NULL, NULL, NULL,
	  NULL },
	{ NULL, NULL, false, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	  NULL },
};

static const struct seed_map seed004_rows[] = {
	{ "populate_small", "ms", false, "populate_small", "ms_after", NULL,
	  "ms_before", "ms_kernel", "walks_per_write",
	  "walks_per_write_before", "speedup", "vs_kernel", NULL },
	{ "populate_large", "ms", false, "populate_large", "ms_after", NULL,
	  "ms_before", "ms_kernel", "walks_per_write",
	  "walks_per_write_before", "speedup", "vs_kernel", NULL },
	{ NULL, NULL, false, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	  NULL },
};

static const struct seed_experiment seed_experiments[] = {
	{ "000", "filemap_add_folio in one tree walk: random 4 KiB reads of "
	  "a file twice the memory limit (every read evicts and refaults)",
	  "fio mmap 4K randread +7.3% IOPS; THP split case +10.4%",
	  NULL, bench_suite_reclaim, "upcache-bench reclaim", seed000_rows,
	  NULL, NULL },
	{ "001", "one locked store helper for the page cache and the swap "
	  "cache: the add paths' cost (page cache add over a shadow, swap "
	  "cache add and delete)",
	  "same performance as before the helper", NULL, bench_suite_filemap,
	  "upcache-bench filemap", seed001_rows,
	  "filemap_add_folio() and add_to_swap_cache() have no userspace "
	  "entry point in the kernel", NULL },
	{ "002", "shmem sequential reads, 4k/64k/1M, normal/fallocated/hole, "
	  "huge never/always: batched vs per-folio vs tmpfs pread",
	  "faster reads on every file kind; v2 lost ~14% on holes",
	  NULL, bench_suite_shmem, "upcache-bench shmem", seed002_rows, NULL, NULL },
	{ "003", "swap cache indexed per 64 MiB chunk: memhog over 4x the "
	  "memory limit",
	  "memhog 128G in an 8G cgroup +1.8%; radix node slab 303952K -> "
	  "302224K",
	  NULL, bench_suite_swap, "upcache-bench swap", seed003_rows,
	  "the kernel's swap cache lookups and tree nodes have no userspace "
	  "entry point; its memhog is on the memhog row", NULL },
	{ "004", "populate a shmem file through writes (guest_memfd restore): "
	  "per-folio grab and copy vs filemap_grab_folios() and a copy per "
	  "adjacent stretch",
	  "3 GiB guest_memfd population 708 -> 635 ms (-10.3%)",
	  NULL, seed_populate_suite,
	  "tools/bench/seed_populate.c", seed004_rows, NULL, NULL },
};

#define NR_SEEDS	(sizeof(seed_experiments) / sizeof(seed_experiments[0]))

/* ---- the command line -------------------------------------------------- */

/**
 * struct seeds_args - the parsed command line.
 * @opts: What the suites get (mode and rounds).
 * @only: Which experiments run.
 * @dir: Where the JSON and detail files go.
 */
struct seeds_args {
	struct bench_options opts;
	bool only[NR_SEEDS];
	const char *dir;
};

static void seeds_usage(FILE *out)
{
	fputs("usage: upcache-bench seeds [--quick|--full] [--only LIST] "
	      "[--rounds N] [--out DIR]\n\n"
	      "  --quick      smaller files, fewer rounds (a few minutes in "
	      "all)\n"
	      "  --full       the full sizes (the default)\n"
	      "  --only LIST  experiments to run, e.g. 000,002 (default: "
	      "all)\n"
	      "  --rounds N   timed rounds per figure\n"
	      "  --out DIR    where seed-NNN.json and seed-NNN.txt go "
	      "(default: " SEEDS_DEFAULT_DIR ")\n\n"
	      "exit status: 0 success, 2 any error\n", out);
}

/* Mark the experiments a comma-separated @list names.  Return: 0 or -1. */
static int seeds_parse_only(const char *list, bool *only)
{
	const char *p = list;

	memset(only, 0, NR_SEEDS * sizeof(*only));
	for (;;) {
		size_t len = strcspn(p, ",");
		size_t i;

		for (i = 0; i < NR_SEEDS; i++)
			if (strlen(seed_experiments[i].id) == len &&
			    !strncmp(p, seed_experiments[i].id, len))
				break;
		if (i == NR_SEEDS) {
			fprintf(stderr, "upcache-bench seeds: --only: no "
				"experiment '%.*s' (000..%03zu)\n", (int)len,
				p, NR_SEEDS - 1);
			return -1;
		}
		only[i] = true;
		p += len;
		if (*p++ != ',')
			return 0;
	}
}

/* The value of option @argv[*i] (--opt VALUE or --opt=VALUE), or NULL. */
static const char *seeds_value(int argc, char **argv, int *i, const char *opt)
{
	size_t len = strlen(opt);

	if (strncmp(argv[*i], opt, len))
		return NULL;
	if (argv[*i][len] == '=')
		return argv[*i] + len + 1;
	if (argv[*i][len] || *i + 1 >= argc)
		return NULL;
	return argv[++*i];
}

/* Parse the command line.  Return: 0, 1 for --help, or -1 (reported). */
static int seeds_parse(int argc, char **argv, struct seeds_args *a)
{
	int i;

	memset(a, 0, sizeof(*a));
	a->dir = SEEDS_DEFAULT_DIR;
	for (i = 0; i < (int)NR_SEEDS; i++)
		a->only[i] = true;
	for (i = 0; i < argc; i++) {
		const char *arg = argv[i], *v;
		unsigned long n;

		if (!strcmp(arg, "-h") || !strcmp(arg, "--help"))
			return 1;
		if (!strcmp(arg, "--quick")) {
			a->opts.quick = true;
		} else if (!strcmp(arg, "--full")) {
			a->opts.quick = false;
		} else if (!strcmp(arg, "--tiny")) {
			a->opts.tiny = true;	/* hidden: the tests' size */
		} else if ((v = seeds_value(argc, argv, &i, "--only"))) {
			if (seeds_parse_only(v, a->only))
				return -1;
		} else if ((v = seeds_value(argc, argv, &i, "--out"))) {
			a->dir = v;
		} else if ((v = seeds_value(argc, argv, &i, "--rounds"))) {
			if (bench_parse_uint(v, 1, BENCH_MAX_ROUNDS, &n)) {
				fprintf(stderr, "upcache-bench seeds: --rounds:"
					" '%s' is not 1..%u\n", v,
					BENCH_MAX_ROUNDS);
				return -1;
			}
			a->opts.rounds = (unsigned int)n;
		} else {
			fprintf(stderr, "upcache-bench seeds: unknown option "
				"or missing value: '%s'\n", arg);
			return -1;
		}
	}
	return 0;
}

/* ---- turning a suite's rows into the seed's ------------------------------ */

/* The row of @rep named @name, or NULL. */
static const struct bench_row *seed_find_row(const struct bench_report *rep,
					     const char *name)
{
	size_t i;

	for (i = 0; i < rep->nr_rows; i++)
		if (!strcmp(rep->rows[i].name, name))
			return &rep->rows[i];
	return NULL;
}

/* How many times faster @a is than @b, for a figure of either direction. */
static double seed_speed(double a, double b, bool higher_better)
{
	return higher_better ? bench_ratio(a, b) : bench_ratio(b, a);
}

static const struct bench_table_col seed_cols[] = {
	{ "row", 22, true },
	{ "figure", 7, true },
	{ "before", 9, false },
	{ "after", 9, false },
	{ "change", 8, false },
	{ "kernel", 9, false },
	{ "upcache/kernel", 15, false },
	{ "counter", 16, false },
	{ "before", 7, false },
	{ "after", 7, false },
};

#define SEED_NR_COLS	(sizeof(seed_cols) / sizeof(seed_cols[0]))

/*
 * Why a row of @e has no kernel figure: the reason its suite gave for
 * skipping the kernel side (the "kernel_skipped" string of the row it
 * came from), else the experiment's.
 */
/*
 * Why a row's kernel figure is not like for like, where its suite says
 * (the "kernel_mismatch" string of the row it came from: seed 002's huge
 * rows against a tmpfs without huge pages), else NULL.
 */
static const char *seed_mismatch_of(const struct bench_row *row)
{
	return bench_row_str(row, "kernel_mismatch");
}

static const char *seed_kernel_note(const struct seed_experiment *e,
				    const struct bench_row *after)
{
	const char *skipped = bench_row_str(after, "kernel_skipped");

	if (skipped)
		return skipped;
	return e->no_kernel ? e->no_kernel : "no kernel figure";
}

/*
 * Add one seed row from the suite's rows @after and @before, and print
 * it.  The change is in the figure's own unit, as the seeds print it:
 * +7.3% IOPS, -10.3% time; it comes from the speedup (see struct
 * seed_map), so it is (after - before) / before only where the suite
 * has no per-round ratio.
 */
static void seed_add_row(const struct seed_experiment *e,
			 const struct seed_map *m, const char *name,
			 const struct bench_row *after,
			 const struct bench_row *before,
			 struct bench_report *rep, const struct bench_table *t)
{
	double a = bench_row_num(after, m->after_key);
	double b = bench_row_num(before, m->before_key);
	double k = m->kernel_key ? bench_row_num(after, m->kernel_key) : NAN;
	const char *bc = m->before_counter ? m->before_counter : m->counter;
	double ca = m->counter ? bench_row_num(after, m->counter) : NAN;
	double cb = m->counter ? bench_row_num(before, bc) : NAN;
	double speedup = m->speedup_key ? bench_row_num(after, m->speedup_key) :
		seed_speed(a, b, m->higher_better);
	double change = 100.0 * ((m->higher_better ? speedup : 1 / speedup) -
				 1);
	double vs_kernel = m->vs_kernel_key ?
		bench_row_num(after, m->vs_kernel_key) :
		seed_speed(a, k, m->higher_better);
	char cells[SEED_NR_COLS][40];
	const char *cellp[SEED_NR_COLS];
	const struct seed_extra *x;
	struct bench_row *row;
	unsigned int i;

	row = bench_report_add_row(rep, name);
	bench_row_set_str(row, "unit", m->figure);
	bench_row_set_str(row, "figure", m->figure);
	bench_row_set_str(row, "direction",
			  m->higher_better ? "higher_is_better" :
			  "lower_is_better");
	bench_row_set_num(row, "before", b);
	bench_row_set_num(row, "after", a);
	bench_row_set_num(row, "change_pct", change);
	bench_row_set_num(row, "speedup", speedup);
	bench_row_set_str(row, "speedup_from", m->speedup_key ?
			  "median of per-round ratios" : "ratio of medians");
	bench_row_set_num(row, "kernel", k);
	bench_row_set_num(row, "upcache_vs_kernel", vs_kernel);
	bench_row_set_num(row, "before_vs_kernel",
			  seed_speed(b, k, m->higher_better));
	if (isnan(k))
		bench_row_set_str(row, "kernel_note", seed_kernel_note(e, after));
	else if (seed_mismatch_of(after))
		bench_row_set_str(row, "kernel_note", seed_mismatch_of(after));
	if (m->counter) {
		bench_row_set_str(row, "counter", m->counter);
		bench_row_set_num(row, "counter_before", cb);
		bench_row_set_num(row, "counter_after", ca);
	}
	for (x = m->extras; x && x->key; x++) {
		bench_row_set_num(row, x->before_key,
				  bench_row_num(before, x->key));
		bench_row_set_num(row, x->after_key,
				  bench_row_num(after, x->key));
	}

	snprintf(cells[0], sizeof(cells[0]), "%s", name);
	snprintf(cells[1], sizeof(cells[1]), "%s", m->figure);
	bench_fmt_num(cells[2], sizeof(cells[2]), b);
	bench_fmt_num(cells[3], sizeof(cells[3]), a);
	snprintf(cells[4], sizeof(cells[4]), "%+.1f%%", change);
	bench_fmt_num(cells[5], sizeof(cells[5]), k);
	snprintf(cells[6], sizeof(cells[6]), "%.2fx", vs_kernel);
	snprintf(cells[7], sizeof(cells[7]), "%s",
		 m->counter ? m->counter : "");
	bench_fmt_num(cells[8], sizeof(cells[8]), cb);
	bench_fmt_num(cells[9], sizeof(cells[9]), ca);
	for (i = 0; i < SEED_NR_COLS; i++)
		cellp[i] = cells[i];
	if (isnan(k))
		cellp[5] = cellp[6] = NULL;
	if (!m->counter)
		cellp[7] = cellp[8] = cellp[9] = NULL;
	bench_table_row(t, cellp);
}

/* Map one entry of the experiment's table; die if the suite lacks a row. */
static void seed_map_rows(const struct seed_experiment *e,
			  const struct seed_map *m,
			  const struct bench_report *src,
			  struct bench_report *rep, const struct bench_table *t)
{
	const struct bench_row *after, *before;
	size_t i;

	if (m->name) {
		after = seed_find_row(src, m->after_row ? m->after_row :
				      m->name);
		before = m->before_row ? seed_find_row(src, m->before_row) :
			after;
		if (!after || !before)
			bench_die("seeds %s: %s gave no row %s", e->id,
				  e->suite_name, !after ? m->after_row :
				  m->before_row);
		seed_add_row(e, m, m->name, after, before, rep, t);
		return;
	}
	for (i = 0; i < src->nr_rows; i++)
		if (!isnan(bench_row_num(&src->rows[i], m->after_key)))
			seed_add_row(e, m, src->rows[i].name, &src->rows[i],
				     &src->rows[i], rep, t);
}

/*
 * Say under the table, once for each reason, which rows' kernel figure
 * is not like for like (seed_mismatch_of()): the seed's JSON has it in
 * each row's kernel_note, the table in one line.
 */
static void seed_print_mismatches(const struct bench_report *src)
{
	size_t i, j;

	for (i = 0; i < src->nr_rows; i++) {
		const char *why = seed_mismatch_of(&src->rows[i]);
		const char *last = src->rows[i].name;
		size_t n = 0;

		for (j = 0; why && j < i; j++)
			if (seed_mismatch_of(&src->rows[j]) &&
			    !strcmp(seed_mismatch_of(&src->rows[j]), why))
				why = NULL;	/* said already */
		if (!why)
			continue;
		for (j = i; j < src->nr_rows; j++) {
			if (!seed_mismatch_of(&src->rows[j]) ||
			    strcmp(seed_mismatch_of(&src->rows[j]), why))
				continue;
			last = src->rows[j].name;
			n++;
		}
		printf("  kernel: not like for like in %zu row%s (%s%s%s): "
		       "%s\n", n, n == 1 ? "" : "s", src->rows[i].name,
		       n == 1 ? "" : " .. ", n == 1 ? "" : last, why);
	}
}

/* ---- running one experiment ------------------------------------------------ */

/* Open DIR/seed-NNN.EXT for writing; die if it cannot be created. */
static FILE *seed_open(const struct seeds_args *a,
		       const struct seed_experiment *e, const char *ext,
		       char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/seed-%s.%s", a->dir, e->id, ext);
	f = fopen(path, "w");
	if (!f)
		bench_die("seeds: cannot create %s: %s", path,
			  strerror(errno));
	return f;
}

/* Print and record an experiment that cannot run yet. */
static void seed_pending(const struct seed_experiment *e,
			 struct bench_report *rep)
{
	struct bench_row *row;

	printf("  not yet implemented: needs %s\n", e->needs);
	bench_row_set_str(&rep->meta, "status", "not yet implemented");
	bench_row_set_str(&rep->meta, "needs", e->needs);
	row = bench_report_add_row(rep, "not_yet_implemented");
	bench_row_set_str(row, "unit", "none");
	bench_row_set_str(row, "needs", e->needs);
}

/* Run experiment @e; write its JSON and detail file. */
static void seed_run(const struct seeds_args *a,
		     const struct seed_experiment *e)
{
	struct bench_table t = { stdout, seed_cols, SEED_NR_COLS };
	struct bench_report src, rep;
	struct bench_output out = { NULL, NULL, NULL };
	char benchmark[16], path[4096];
	const struct seed_map *m;
	const char *skipped;
	FILE *json;

	snprintf(benchmark, sizeof(benchmark), "seed-%s", e->id);
	bench_report_init(&rep, benchmark);
	bench_row_set_str(&rep.meta, "seed", e->id);
	bench_row_set_str(&rep.meta, "title", e->title);
	bench_row_set_str(&rep.meta, "seed_claim", e->claim);
	bench_row_set_str(&rep.meta, "mode", a->opts.tiny ? "tiny" :
			  a->opts.quick ? "quick" : "full");
	printf("\nseed %s: %s\n  the seed reported: %s\n", e->id, e->title,
	       e->claim);
	if (e->needs) {
		seed_pending(e, &rep);
	} else {
		out.table = seed_open(a, e, "txt", path, sizeof(path));
		printf("  measured by %s; its table: %s\n",
		       e->suite_name, path);
		fflush(stdout);
		bench_report_init(&src, benchmark);
		if (e->suite(&a->opts, &out, &src))
			bench_die("seeds %s: %s failed", e->id,
				  e->suite_name);
		fclose(out.table);
		bench_row_set_str(&rep.meta, "measured_by", e->suite_name);
		bench_table_header(&t);
		for (m = e->rows; m->after_key; m++)
			seed_map_rows(e, m, &src, &rep, &t);
		/*
		 * A skipped kernel side first: an experiment's own reason
		 * (seed 003's lookup rows) is for rows the kernel cannot
		 * give even when its side runs.
		 */
		skipped = src.nr_rows ?
			  bench_row_str(&src.rows[0], "kernel_skipped") : NULL;
		if (skipped)
			printf("  kernel: skipped: %s\n", skipped);
		else if (e->no_kernel)
			printf("  kernel: none: %s\n", e->no_kernel);
		seed_print_mismatches(&src);
		bench_report_free(&src);
	}
	if (e->pending) {
		printf("  not yet implemented: %s\n", e->pending);
		bench_row_set_str(&rep.meta, "pending", e->pending);
	}
	json = seed_open(a, e, "json", path, sizeof(path));
	if (bench_report_write_json(&rep, json) || fclose(json))
		bench_die("seeds: cannot write %s", path);
	printf("  JSON: %s\n", path);
	bench_report_free(&rep);
}

/**
 * bench_suite_seeds_argv() - `upcache-bench seeds`.
 * @argc: Arguments after "seeds".
 * @argv: Those arguments.
 *
 * Return: 0, or BENCH_EXIT_ERROR for bad arguments or an output
 * directory that cannot be created (a wrong result in a suite exits with
 * BENCH_EXIT_ERROR through bench_die()).
 */
int bench_suite_seeds_argv(int argc, char **argv)
{
	struct seeds_args a;
	size_t i;
	int ret;

	ret = seeds_parse(argc, argv, &a);
	if (ret) {
		seeds_usage(ret > 0 ? stdout : stderr);
		return ret > 0 ? 0 : BENCH_EXIT_ERROR;
	}
	if (mkdir(a.dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "upcache-bench seeds: cannot create %s: %s\n",
			a.dir, strerror(errno));
		return BENCH_EXIT_ERROR;
	}
	printf("upcache-bench seeds (%s): the seed experiments on this "
	       "machine; before = the path the seed replaced,\n"
	       "after = upcache's, kernel = the Linux kernel doing the same "
	       "work here; change as the seed reports it\n",
	       a.opts.tiny ? "tiny" : a.opts.quick ? "quick" : "full");
	for (i = 0; i < NR_SEEDS; i++)
		if (a.only[i])
			seed_run(&a, &seed_experiments[i]);
	return 0;
}
