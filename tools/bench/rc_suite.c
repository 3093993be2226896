// SPDX-License-Identifier: MIT
/*
 * tools/bench/rc_suite.c - `upcache-bench reclaim`: seed 000's experiment.
 *
 * Owns the rows (name, workload, path, the seed's gain to match), the
 * order they run in, and how their figures become report rows, the table
 * and the notes.  The workloads, caches and reader threads are in
 * rc_cases.c; the baseline read path in rc_baseline.c.
 *
 *	randread_4k		random 4 KiB reads by every core of a file
 *				twice the memory limit, steady state, through
 *				mapping_read_folio_gfp() (one-walk add)
 *	randread_4k_baseline	the same through the baseline read path
 *				(three-walk add, tools/bench/fm_baseline.c)
 *	thp_split_4k		random 4 KiB reads of a file whose cache was
 *				filled with order-9 folios and evicted: the
 *				adds split order-9 shadows
 *	thp_split_4k_baseline	the same through the baseline read path
 *
 * Rounds interleave the two rows of a pair part by part (a part is a
 * sixteenth of a randread round, or one fill-evict-read cycle of a thp
 * round; the row that goes first alternates), and a pair's gain is the median over rounds of
 * new IOPS / baseline IOPS of the same round, minus one (samples.h).
 * The seed measured +7.3% (4K randread) and +10.4% (THP split) through
 * the kernel, where syscalls and page faults dilute the add; the suite
 * reports the seed's figure as the target and twice it as the aim.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rc_cases.h"
#include "rc_kernel.h"
#include "rng.h"
#include "samples.h"
#include "suite.h"
#include "table.h"
#include "util.h"

/* Seeds the kernel side's pages (rc_cases.c has +32 and +33). */
#define SEED_RC_KERNEL	(BENCH_RNG_SEED + 34)

/* How the kernel's figures differ from the seed's setup (rc_kernel.h). */
#define RC_KERNEL_MISMATCH \
	"the kernel's IOPS, and upcache's over them, are by the wall " \
	"clock (upcache's own IOPS by reader CPU time); a loop device " \
	"over tmpfs stands in for the seed's brd, and each miss waits " \
	"for the loop device's worker, as a brd miss does not"

#define BASELINE_SOURCE \
	"tools/bench/rc_baseline.c: the library's read path with the add " \
	"from before seed 000 (tools/bench/fm_baseline.c), on this machine"

/**
 * struct rc_row - one row of the suite.
 * @name: Its name in the table and the JSON.
 * @w: Its workload.
 * @baseline: The baseline read path.
 * @target_pct: New rows: the seed's gain in percent.
 */
struct rc_row {
	const char *name;
	enum rc_workload w;
	bool baseline;
	double target_pct;
};

static const struct rc_row rc_rows[] = {
	{ "randread_4k", RC_RANDREAD, false, 7.3 },
	{ "randread_4k_baseline", RC_RANDREAD, true, NAN },
	{ "thp_split_4k", RC_THP_SPLIT, false, 10.4 },
	{ "thp_split_4k_baseline", RC_THP_SPLIT, true, NAN },
};

#define NR_ROWS	(sizeof(rc_rows) / sizeof(rc_rows[0]))

static const struct bench_table_col rc_cols[] = {
	{ "row", 22, true },
	{ "IOPS", 8, false },
	{ "min..max", 15, false },
	{ "gain%", 6, false },
	{ "min..max", 11, false },
	{ "target%", 7, false },
	{ "walks/add", 9, false },
	{ "hit%", 5, false },
	{ "refaults", 9, false },
	{ "activations", 11, false },
};

#define NR_COLS	(sizeof(rc_cols) / sizeof(rc_cols[0]))

/**
 * struct rc_run - one run of the suite.
 * @b: The shared state.
 * @s: Each row's timed rounds.
 * @iops: Each row's IOPS by round.
 * @parts_first: Each row's parts run first of its pair, timed rounds.
 * @k: The kernel's side (rc_kernel.h).
 * @ks: Its timed rounds, per workload: one part each.
 * @kiops: Its IOPS by the wall clock, by round, per workload.
 */
struct rc_run {
	struct rc_bench b;
	struct rc_sample s[NR_ROWS][BENCH_MAX_ROUNDS];
	double iops[NR_ROWS][BENCH_MAX_ROUNDS];
	unsigned int parts_first[NR_ROWS];
	struct rc_kernel k;
	struct rc_sample ks[RC_NR_WORKLOADS][BENCH_MAX_ROUNDS];
	double kiops[RC_NR_WORKLOADS][BENCH_MAX_ROUNDS];
};

/* IOPS of a sample: reads x threads / reader CPU time. */
static double rc_iops(const struct rc_sample *s, unsigned int threads)
{
	return (double)s->reads * threads * 1e9 / (double)s->ns;
}

/* IOPS of a sample by the wall clock: reads / first start to last end. */
static double rc_iops_wall(const struct rc_sample *s)
{
	return s->wall_ns ? (double)s->reads * 1e9 / (double)s->wall_ns : 0;
}

/*
 * rc_measure_kernel() - Round @r's kernel part of workload @w, if the
 * kernel side runs; kept for timed rounds.
 */
static void rc_measure_kernel(struct rc_run *run, enum rc_workload w,
			      unsigned int r)
{
	const struct rc_scale *scale = &run->b.scale;
	struct rc_sample s;

	if (!run->k.usable)
		return;
	rc_kernel_part(&run->k, w, SEED_RC_KERNEL + ((uint64_t)r << 8) + w,
		       &s);
	if (r < scale->warmups)
		return;
	run->ks[w][r - scale->warmups] = s;
	run->kiops[w][r - scale->warmups] = rc_iops_wall(&s);
}

/* rc_partner() - The index of the other row of row @i's pair. */
static size_t rc_partner(size_t i)
{
	return rc_rows[i].baseline ? i - 1 : i + 1;
}

/*
 * rc_measure_pair() - Round @r of the pair starting at row @i: its parts
 * alternate between the two rows, each part's first row alternating too;
 * timed rounds count the parts each row ran first.
 */
static void rc_measure_pair(struct rc_run *run, size_t i, unsigned int r,
			    struct rc_sample *s)
{
	enum rc_workload w = rc_rows[i].w;
	unsigned int part;

	memset(s, 0, 2 * sizeof(*s));
	for (part = 0; part < rc_parts(&run->b, w); part++) {
		unsigned int k;

		for (k = 0; k < 2; k++) {
			unsigned int row = k ^ ((part + r) & 1);
			struct rc_sample one;

			if (!k && r >= run->b.scale.warmups)
				run->parts_first[i + row]++;
			rc_round_part(&run->b, w, rc_rows[i + row].baseline,
				      r, part, &one);
			rc_sample_add(&s[row], &one);
		}
	}
}

/* rc_measure() - Every round of every row, interleaved. */
static void rc_measure(struct rc_run *run, FILE *progress)
{
	const struct rc_scale *scale = &run->b.scale;
	unsigned int total = scale->warmups + scale->rounds, r;

	for (r = 0; r < total; r++) {
		size_t i;

		if (progress)
			fprintf(progress, "\rreclaim: round %u/%u", r + 1,
				total);
		for (i = 0; i < NR_ROWS; i += 2) {
			struct rc_sample s[2];
			unsigned int k;

			/* The kernel's part before the pair in odd rounds. */
			if (r & 1)
				rc_measure_kernel(run, rc_rows[i].w, r);
			rc_measure_pair(run, i, r, s);
			if (!(r & 1))
				rc_measure_kernel(run, rc_rows[i].w, r);
			if (r < scale->warmups)
				continue;
			for (k = 0; k < 2; k++) {
				run->s[i + k][r - scale->warmups] = s[k];
				run->iops[i + k][r - scale->warmups] =
					rc_iops(&s[k], scale->threads);
			}
		}
	}
	if (progress)
		fputs("\r\033[K", progress);
}

/* rc_total() - The sum of the timed rounds @s. */
static void rc_total(const struct rc_run *run, const struct rc_sample *s,
		     struct rc_sample *t)
{
	unsigned int r;

	memset(t, 0, sizeof(*t));
	for (r = 0; r < run->b.scale.rounds; r++)
		rc_sample_add(t, &s[r]);
}

/* rc_report_pair() - A new row's speedup and gain over its baseline. */
static void rc_report_pair(struct bench_row *row, const struct rc_run *run,
			   size_t i)
{
	const struct rc_row *spec = &rc_rows[i];
	struct bench_summary speedup = { 0 };
	bool is_new = !spec->baseline;
	struct bench_sign sg;
	double gain;

	if (is_new && bench_ratio_summary(run->iops[i], run->iops[i + 1],
					  run->b.scale.rounds, &speedup))
		bench_die("reclaim %s: cannot summarise its gain", spec->name);
	if (is_new) {
		/* IOPS, not times: the new side is the numerator. */
		bench_sign_test(run->iops[i], run->iops[i + 1],
				run->b.scale.rounds, &sg);
		bench_row_set_num(row, "rounds_faster", sg.above);
		bench_row_set_num(row, "rounds_slower", sg.below);
		bench_row_set_num(row, "sign_p", sg.p);
	}
	gain = bench_row_set_gain(row, is_new ? &speedup : NULL,
				  spec->target_pct);
	bench_row_set_num(row, "aim_gain_pct", spec->target_pct * 2);
	bench_row_set_str(row, "aim_met", !is_new ? NULL :
			  gain >= spec->target_pct * 2 ? "yes" : "no");
}

/*
 * rc_report_kernel_fill() - How many of the 2 MiB ranges the kernel's
 * fills left cached were one order-9 folio; the row is not the seed's
 * case unless some were: only those leave order-9 shadows to split.
 */
static void rc_report_kernel_fill(struct bench_row *row,
				  const struct rc_sample *t)
{
	bench_row_set_num(row, "kernel_fill_ranges", (double)t->fill_ranges);
	bench_row_set_num(row, "kernel_fill_huge_ranges",
			  (double)t->fill_huge_ranges);
	if (!t->fill_huge_ranges)
		bench_row_set_str(row, "kernel_mismatch", "the kernel's fills "
				  "showed no 2 MiB folio (transparent huge "
				  "pages off, or /proc/kpageflags not "
				  "readable), so its adds may split no "
				  "order-9 shadows");
}

/*
 * rc_report_kernel() - The kernel's figures in new row @i, or why there
 * are none.  Its IOPS are by the wall clock, and so is the upcache
 * figure they are compared with, round by round: a kernel reader sleeps
 * while the loop device's worker copies its page in, and that time is
 * part of the kernel's read, though not of the reader's CPU time (which
 * is given too, as iops_kernel_cpu).
 */
static void rc_report_kernel(struct bench_row *row, const struct rc_run *run,
			     size_t i)
{
	const struct rc_scale *scale = &run->b.scale;
	enum rc_workload w = rc_rows[i].w;
	double wall[BENCH_MAX_ROUNDS];
	struct bench_summary iops, vs;
	struct rc_sample t;
	unsigned int r;

	if (!run->k.usable) {
		bench_row_set_str(row, "kernel_skipped", run->k.why);
		return;
	}
	for (r = 0; r < scale->rounds; r++)
		wall[r] = rc_iops_wall(&run->s[i][r]);
	rc_total(run, run->ks[w], &t);
	if (bench_summarize(run->kiops[w], scale->rounds, &iops) ||
	    bench_ratio_summary(wall, run->kiops[w], scale->rounds, &vs))
		bench_die("reclaim %s: cannot summarise the kernel's IOPS",
			  rc_rows[i].name);
	bench_row_set_summary(row, "iops_kernel", "iops_kernel_min",
			      "iops_kernel_max", &iops);
	bench_row_set_summary(row, "vs_kernel", "vs_kernel_min",
			      "vs_kernel_max", &vs);
	bench_row_set_num(row, "iops_kernel_cpu",
			  rc_iops(&t, scale->threads));
	bench_row_set_num(row, "kernel_hit_ratio",
			  1 - (double)t.adds / (double)t.reads);
	bench_row_set_num(row, "kernel_reads_per_round",
			  (double)t.reads / scale->rounds);
	bench_row_set_str(row, "kernel_side", run->k.disk[w].loop.direct_io ?
			  "loop device over a tmpfs file, direct I/O" :
			  "loop device over a tmpfs file, buffered");
	bench_row_set_str(row, "kernel_memcg", run->k.disk[w].cg.v2 ? "v2" :
			  "v1");
	bench_row_set_str(row, "kernel_mismatch", RC_KERNEL_MISMATCH);
	if (w == RC_THP_SPLIT)
		rc_report_kernel_fill(row, &t);
}

/* rc_report_row() - Fill the report row of row @i. */
static void rc_report_row(struct bench_row *row, const struct rc_run *run,
			  size_t i)
{
	const struct rc_row *spec = &rc_rows[i];
	unsigned int rounds = run->b.scale.rounds;
	struct bench_summary iops;
	struct rc_sample t;

	if (bench_summarize(run->iops[i], rounds, &iops))
		bench_die("reclaim %s: cannot summarise its IOPS", spec->name);
	rc_total(run, run->s[i], &t);
	bench_row_set_str(row, "unit", "IOPS");
	bench_row_set_summary(row, "iops", "iops_min", "iops_max", &iops);
	bench_row_set_num(row, "walks_per_add", rc_walks_per_add(&t));
	bench_row_set_num(row, "walks_per_read",
			  (double)t.walks / (double)t.reads);
	bench_row_set_num(row, "hit_ratio",
			  1 - (double)t.adds / (double)t.reads);
	bench_row_set_num(row, "refaults", (double)t.refaults);
	bench_row_set_num(row, "activations", (double)t.activations);
	bench_row_set_num(row, "promotions", (double)t.promotions);
	bench_row_set_num(row, "evictions", (double)t.evictions);
	bench_row_set_num(row, "adds", (double)t.adds);
	bench_row_set_num(row, "reads", (double)t.reads);
	bench_row_set_num(row, "ns_per_read", (double)t.ns / (double)t.reads);
	/* Wall clock too: reader CPU time leaves out time asleep on locks. */
	bench_row_set_num(row, "iops_wall", rc_iops_wall(&t));
	bench_row_set_str(row, "role", spec->baseline ? "baseline" : "new");
	bench_row_set_str(row, "pair", rc_rows[rc_partner(i)].name);
	rc_report_pair(row, run, i);
	if (!spec->baseline)
		rc_report_kernel(row, run, i);
	bench_row_set_num(row, "rounds", rounds);
	bench_row_set_num(row, "parts_per_round", rc_parts(&run->b, spec->w));
	bench_row_set_num(row, "parts_run_first", run->parts_first[i]);
	bench_row_set_num(row, "reads_per_round", (double)t.reads / rounds);
}

/* rc_print_row() - Print the table line of a report row. */
static void rc_print_row(const struct bench_table *t,
			 const struct bench_row *row)
{
	static const char *const num_keys[NR_COLS] = {
		NULL, "iops", NULL, "gain_pct", NULL, "target_gain_pct",
		"walks_per_add", NULL, "refaults", "activations",
	};
	char cells[NR_COLS][BENCH_CELL_LEN];
	const char *cell[NR_COLS];

	bench_fmt_row_nums(row, num_keys, NR_COLS, cells, cell);
	cell[0] = row->name;
	bench_fmt_row_range(cells[2], sizeof(cells[2]), row, "iops");
	bench_fmt_row_range(cells[4], sizeof(cells[4]), row, "gain_pct");
	bench_fmt_num(cells[7], sizeof(cells[7]),
		      bench_row_num(row, "hit_ratio") * 100);
	bench_table_row(t, cell);
}

/* rc_report_meta() - The run's facts, at the top of the JSON object. */
static void rc_report_meta(struct bench_report *rep, const struct rc_scale *s)
{
	struct bench_row *meta = &rep->meta;

	bench_row_set_str(meta, "mode", s->mode);
	bench_row_set_num(meta, "file_pages", (double)s->file_pages);
	bench_row_set_num(meta, "file_mib",
			  (double)(s->file_pages >> (20 - UPC_PAGE_SHIFT)));
	bench_row_set_num(meta, "limit_pages", (double)s->limit_pages);
	bench_row_set_num(meta, "limit_mib",
			  (double)(s->limit_pages >> (20 - UPC_PAGE_SHIFT)));
	bench_row_set_num(meta, "threads", s->threads);
	bench_row_set_num(meta, "randread_reads_per_thread", (double)s->reads);
	bench_row_set_num(meta, "thp_cycles", s->thp_cycles);
	bench_meta_set_rounds(meta, s->rounds, s->warmups);
	bench_row_set_str(meta, "baseline_source", BASELINE_SOURCE);
}

/* rc_print_header() - What the run measures and how to read it. */
static void rc_print_header(FILE *out, const struct rc_scale *s)
{
	fprintf(out,
		"upcache-bench reclaim (%s): seed 000, a %lu MiB file over a "
		"%lu MiB cache (backing\n"
		"  store in memory), random 4 KiB reads by %u threads; %u "
		"timed rounds after %u warm-up,\n"
		"  interleaved; randread: %lu reads/thread/round in steady "
		"state; thp: %u cycles a round\n"
		"  of filling the cache with order-9 folios, evicting them, "
		"reading a page of each 2 MiB\n"
		"IOPS: reads x threads / reader CPU time, median over rounds "
		"[min..max]; gain%%: new IOPS /\n"
		"  baseline IOPS of the same round - 1, median [min..max]; "
		"baseline: the same read\n"
		"  path with the pre-seed-000 add\n"
		"walks/add: XArray walks of the adds (a read's lookup and an "
		"eviction's store taken out)\n"
		"refaults, activations: adds over a shadow, and of those the "
		"ones activated, all rounds\n\n",
		s->mode, s->file_pages >> (20 - UPC_PAGE_SHIFT),
		s->limit_pages >> (20 - UPC_PAGE_SHIFT), s->threads,
		s->rounds, s->warmups, s->reads, s->thp_cycles);
	fflush(out);
}

/* rc_print_kernel_note() - A new row's kernel figures, or why none. */
static void rc_print_kernel_note(FILE *out, const struct bench_row *row)
{
	const char *skipped = bench_row_str(row, "kernel_skipped");

	if (skipped) {
		fprintf(out, "    kernel: skipped: %s\n", skipped);
		return;
	}
	fprintf(out, "    kernel (%s, memory cgroup %s):\n"
		"      %.0f IOPS by the wall clock [%.0f..%.0f] (%.0f by "
		"reader CPU time), %.0f%% hits;\n"
		"      upcache by the wall clock %.2fx that [%.2f..%.2f]\n",
		bench_row_get(row, "kernel_side")->str,
		bench_row_get(row, "kernel_memcg")->str,
		bench_row_num(row, "iops_kernel"),
		bench_row_num(row, "iops_kernel_min"),
		bench_row_num(row, "iops_kernel_max"),
		bench_row_num(row, "iops_kernel_cpu"),
		bench_row_num(row, "kernel_hit_ratio") * 100,
		bench_row_num(row, "vs_kernel"),
		bench_row_num(row, "vs_kernel_min"),
		bench_row_num(row, "vs_kernel_max"));
}

/* rc_print_notes() - The notes under the table: targets. */
static void rc_print_notes(FILE *out, const struct bench_report *rep)
{
	size_t i;

	fputs("\nnotes:\n", out);
	for (i = 0; i < NR_ROWS; i++) {
		const struct bench_row *row = &rep->rows[i];

		if (rc_rows[i].baseline)
			continue;
		fprintf(out, "  %s: %+.1f%% over %s; seed %+.1f%%: %s, "
			"aim %+.1f%%: %s\n", row->name,
			bench_row_num(row, "gain_pct"),
			rc_rows[rc_partner(i)].name, rc_rows[i].target_pct,
			bench_row_get(row, "target_met")->str,
			rc_rows[i].target_pct * 2,
			bench_row_get(row, "aim_met")->str);
		fprintf(out, "    faster in %.0f of %.0f rounds, slower in "
			"%.0f (sign test p = %.2f)\n",
			bench_row_num(row, "rounds_faster"),
			bench_row_num(row, "rounds"),
			bench_row_num(row, "rounds_slower"),
			bench_row_num(row, "sign_p"));
		fprintf(out, "    by the wall clock, all rounds: %.0f against "
			"%.0f IOPS\n", bench_row_num(row, "iops_wall"),
			bench_row_num(&rep->rows[rc_partner(i)], "iops_wall"));
		rc_print_kernel_note(out, row);
	}
	fputs("  every read checked its page's stamps; both caches ended "
	      "with nothing charged\n", out);
}

/**
 * bench_suite_reclaim() - Run the reclaim suite.
 * @opts: The suite's options.
 * @out: Where the table goes.
 * @rep: The report to fill.
 *
 * Return: 0.  A wrong page, a failed read or a leak ends the run (exit
 * status 2) with a message.
 */
int bench_suite_reclaim(const struct bench_options *opts,
			struct bench_output *out, struct bench_report *rep)
{
	static struct rc_run run;
	struct bench_table t = { out->table, rc_cols, NR_COLS };
	struct rc_scale scale;
	size_t i;

	rc_scale_from_options(opts, &scale);
	rc_print_header(out->table, &scale);
	memset(&run, 0, sizeof(run));
	/* Forks the kernel side's reader before rc_init() maps anything. */
	rc_kernel_init(&run.k, &scale);
	rc_init(&run.b, &scale);
	rc_report_meta(rep, &scale);
	rc_measure(&run, isatty(STDERR_FILENO) ? stderr : NULL);
	bench_table_header(&t);
	for (i = 0; i < NR_ROWS; i++) {
		struct bench_row *row = bench_report_add_row(rep,
							     rc_rows[i].name);

		rc_report_row(row, &run, i);
		rc_print_row(&t, row);
	}
	/* Checks what the notes claim (or dies): before they are printed. */
	rc_free(&run.b);
	rc_kernel_free(&run.k);
	rc_print_notes(out->table, rep);
	return 0;
}
