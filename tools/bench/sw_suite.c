// SPDX-License-Identifier: MIT
/*
 * tools/bench/sw_suite.c - `upcache-bench swap`: seed 003's experiment.
 *
 * Owns the rows, the order the rounds run in, and how their figures
 * become report rows, the table and the notes.  The caches, devices and
 * the memhog round are in sw_cases.c.
 *
 *	memhog		memhog over 4 x the memory limit with the swap cache
 *			split per 64 MiB chunk, indexed inside the chunk
 *	memhog_baseline	the same 64 MiB swap cache spaces, each indexed
 *			by the slot's full offset (before seed 003)
 *
 * Rounds interleave the two part by part (a sixteenth of one region,
 * then of the other, the first side alternating; sw_round()), and the
 * gain is the median over rounds of baseline ms / memhog ms of the same
 * round, minus one (samples.h).  Next to the time: the walks reclaim
 * made per page it swapped out, the shape of the swap cache right after
 * the touch (tree nodes, their memory, the deepest tree's height), which
 * is what the seed changed, and the time of one swap cache lookup.  The
 * seed measured +1.8% (memhog 128G in an 8G cgroup); the suite reports
 * that as the target.
 *
 * The kernel side (sw_kernel.h), memhog in a memory cgroup swapping to
 * a loop device, runs once a round, before the pair in odd rounds and
 * after it in even ones; its time by the wall clock, and upcache's speed
 * over it round by round, go on the memhog row.  Where it cannot run,
 * that row and the notes say why.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "counters.h"
#include "samples.h"
#include "suite.h"
#include "sw_cases.h"
#include "sw_kernel.h"
#include "table.h"
#include "util.h"

#define BASELINE_SOURCE \
	"swap_device_create(space_shift = SWAP_SPACE_FULL_INDEX): a swap " \
	"cache tree per 64 MiB chunk, indexed by the full offset (before " \
	"seed 003), on this machine"

/* The seed's gain: memhog 4:17.26 -> 4:12.58 elapsed. */
#define SW_SEED_GAIN_PCT	1.8
/* How the kernel's figures differ from the seed's setup (sw_kernel.h). */
#define SW_KERNEL_MISMATCH \
	"the kernel's ms, and upcache's speed over them, are by the wall " \
	"clock, as the seed's time gave them; its swap-outs are written " \
	"by a loop device's worker into tmpfs, where the seed's went to a " \
	"ramdisk's pages"
/* Slots a 3-level tree indexes: 64^3, 1 GiB of swap. */
#define SW_3_LEVEL_SLOTS	(1UL << 18)

/**
 * struct sw_row - one row of the suite.
 * @name: Its name in the table and the JSON.
 * @side: Its swap cache layout.
 */
struct sw_row {
	const char *name;
	enum sw_side side;
};

/* By enum sw_side: the new row, then its baseline. */
static const struct sw_row sw_rows[SW_NR_SIDES] = {
	{ "memhog", SW_AFTER },
	{ "memhog_baseline", SW_BEFORE },
};

static const struct bench_table_col sw_cols[] = {
	{ "row", 16, true },
	{ "ms", 7, false },
	{ "min..max", 13, false },
	{ "gain%", 6, false },
	{ "min..max", 11, false },
	{ "walks/swapout", 13, false },
	{ "nodes", 6, false },
	{ "node KiB", 8, false },
	{ "height", 6, false },
	{ "swapouts", 8, false },
	{ "lookup ns", 9, false },
	{ "gain%", 6, false },
};

#define NR_COLS	(sizeof(sw_cols) / sizeof(sw_cols[0]))

/**
 * struct sw_run - one run of the suite.
 * @b: The shared state.
 * @s: Each side's timed rounds.
 * @ms: Each side's milliseconds by round.
 * @lookup_ns: Each side's nanoseconds per swap cache lookup by round.
 * @k: The kernel's side (sw_kernel.h).
 * @ks: Its timed rounds, where it runs.
 * @kms: Its milliseconds by round, by the wall clock.
 */
struct sw_run {
	struct sw_bench b;
	struct sw_sample s[SW_NR_SIDES][BENCH_MAX_ROUNDS];
	double ms[SW_NR_SIDES][BENCH_MAX_ROUNDS];
	double lookup_ns[SW_NR_SIDES][BENCH_MAX_ROUNDS];
	struct sw_kernel k;
	struct sw_ksample ks[BENCH_MAX_ROUNDS];
	double kms[BENCH_MAX_ROUNDS];
};

/*
 * sw_measure_kernel() - Round @r's memhog through the kernel, if the
 * kernel side runs; kept for timed rounds.
 */
static void sw_measure_kernel(struct sw_run *run, unsigned int r)
{
	const struct sw_scale *scale = &run->b.scale;
	struct sw_ksample s;

	if (!run->k.usable)
		return;
	if (sw_kernel_round(&run->k, &s)) {
		/* The comparison is lost, not the run: the row says why. */
		sw_kernel_free(&run->k);
		return;
	}
	if (r < scale->warmups)
		return;
	run->ks[r - scale->warmups] = s;
	run->kms[r - scale->warmups] = (double)s.wall_ns / 1e6;
}

/* sw_measure() - Every round, both sides interleaved in each (sw_round()). */
static void sw_measure(struct sw_run *run, FILE *progress)
{
	const struct sw_scale *scale = &run->b.scale;
	unsigned int total = scale->warmups + scale->rounds, r;

	for (r = 0; r < total; r++) {
		struct sw_sample s[SW_NR_SIDES];
		unsigned int side;

		if (progress)
			fprintf(progress, "\rswap: round %u/%u", r + 1, total);
		/* The kernel's memhog before the pair in odd rounds. */
		if (r & 1)
			sw_measure_kernel(run, r);
		sw_round(&run->b, r, s);
		if (!(r & 1))
			sw_measure_kernel(run, r);
		if (r < scale->warmups)
			continue;
		for (side = 0; side < SW_NR_SIDES; side++) {
			run->s[side][r - scale->warmups] = s[side];
			run->ms[side][r - scale->warmups] =
				(double)s[side].ns / 1e6;
			run->lookup_ns[side][r - scale->warmups] =
				(double)s[side].lookup_ns / SW_LOOKUPS;
		}
	}
	if (progress)
		fputs("\r\033[K", progress);
}

/*
 * sw_total() - The sum of side @side's timed rounds, with the swap
 * cache's shape of the last round and the deepest tree of any.
 */
static void sw_total(const struct sw_run *run, enum sw_side side,
		     struct sw_sample *t)
{
	unsigned int r, rounds = run->b.scale.rounds;

	memset(t, 0, sizeof(*t));
	for (r = 0; r < rounds; r++) {
		const struct sw_sample *s = &run->s[side][r];

		t->ns += s->ns;
		t->pages += s->pages;
		t->calib_pages += s->calib_pages;
		t->calib_walks += s->calib_walks;
		t->walks += s->walks;
		t->node_allocs += s->node_allocs;
		t->locks += s->locks;
		t->swapouts += s->swapouts;
		t->lookup_walks += s->lookup_walks;
		t->lookup_misses += s->lookup_misses;
	}
	t->info = run->s[side][rounds - 1].info;
	for (r = 0; r < rounds; r++)
		if (run->s[side][r].info.max_height > t->info.max_height)
			t->info.max_height = run->s[side][r].info.max_height;
}

/* sw_report_gain() - The new row's speedup and gain over its baseline. */
static void sw_report_gain(struct bench_row *row, const struct sw_run *run,
			   enum sw_side side)
{
	struct bench_summary speedup;

	if (side != SW_AFTER) {
		bench_row_set_gain(row, NULL, NAN);
		return;
	}
	/* Times: the baseline's over the new row's is how much faster. */
	if (bench_ratio_summary(run->ms[SW_BEFORE], run->ms[SW_AFTER],
				run->b.scale.rounds, &speedup))
		bench_die("swap: cannot summarise memhog's gain");
	bench_row_set_gain(row, &speedup, SW_SEED_GAIN_PCT);
}

/*
 * sw_report_lookups() - Side @side's swap cache lookup time and, for the
 * new row, its speedup and gain over the baseline's (per-round ratios).
 */
static void sw_report_lookups(struct bench_row *row, const struct sw_run *run,
			      enum sw_side side, const struct sw_sample *t)
{
	unsigned int rounds = run->b.scale.rounds;
	struct bench_summary ns, speedup;
	bool after = side == SW_AFTER;

	if (bench_summarize(run->lookup_ns[side], rounds, &ns) ||
	    (after && bench_ratio_summary(run->lookup_ns[SW_BEFORE],
					  run->lookup_ns[SW_AFTER], rounds,
					  &speedup)))
		bench_die("swap: cannot summarise the swap cache lookups");
	bench_row_set_summary(row, "lookup_ns", "lookup_ns_min",
			      "lookup_ns_max", &ns);
	bench_row_set_summary(row, "lookup_speedup", "lookup_speedup_min",
			      "lookup_speedup_max", after ? &speedup : NULL);
	bench_row_set_num(row, "lookup_gain_pct",
			  after ? (speedup.median - 1) * 100 : NAN);
	bench_row_set_num(row, "lookup_walks_per_op",
			  bench_per_op(t->lookup_walks,
				       (uint64_t)SW_LOOKUPS * rounds));
	bench_row_set_num(row, "lookup_misses", (double)t->lookup_misses);
}

/*
 * sw_height_note() - Whether this run could show the height difference
 * at all: a chunk's tree keyed by full offsets grows a 4th level only
 * for slots past 64^3.
 */
static const char *sw_height_note(const struct sw_run *run, char *buf,
				  size_t len)
{
	const struct sw_sample *s = &run->s[SW_BEFORE][0];

	if (s->swapouts > SW_3_LEVEL_SLOTS)
		snprintf(buf, len, "%llu MiB of swap in use: past 1 GiB, the "
			 "trees keyed by the full offset need a 4th level where"
			 " keys inside the chunk need 3", (unsigned long long)
			 (s->swapouts >> (20 - UPC_PAGE_SHIFT)));
	else
		snprintf(buf, len, "%llu MiB of swap in use: under 1 GiB (64^3"
			 " slots) both layouts have trees of the same height; "
			 "past it (the full and --quick sizes) the trees keyed "
			 "by the full offset grow a 4th level",
			 (unsigned long long)
			 (s->swapouts >> (20 - UPC_PAGE_SHIFT)));
	return buf;
}

/*
 * sw_report_kernel() - The kernel's figures in the new row, or why
 * there are none.  Its time is by the wall clock, as the seed's `time`
 * gave it, and so is upcache's it is compared with: whatever the
 * kernel's writer waits for (a swap-out written by the loop device's
 * worker) is part of its memhog.  Its CPU time is given too.
 */
static void sw_report_kernel(struct bench_row *row, const struct sw_run *run)
{
	unsigned int rounds = run->b.scale.rounds, r;
	double cpu[BENCH_MAX_ROUNDS], used = 0, left = 0, swapins = 0;
	struct bench_summary ms, vs, cpu_ms;

	if (!run->k.usable) {
		bench_row_set_str(row, "kernel_skipped", run->k.why);
		return;
	}
	for (r = 0; r < rounds; r++) {
		cpu[r] = (double)run->ks[r].cpu_ns / 1e6;
		used += (double)run->ks[r].swap_used_kib / 1024 / rounds;
		left += (double)run->ks[r].swap_left_kib / 1024 / rounds;
		swapins += (double)run->ks[r].swapins / rounds;
	}
	if (bench_summarize(run->kms, rounds, &ms) ||
	    bench_summarize(cpu, rounds, &cpu_ms) ||
	    bench_ratio_summary(run->kms, run->ms[SW_AFTER], rounds, &vs))
		bench_die("swap: cannot summarise the kernel's memhog");
	bench_row_set_summary(row, "ms_kernel", "ms_kernel_min",
			      "ms_kernel_max", &ms);
	bench_row_set_summary(row, "vs_kernel", "vs_kernel_min",
			      "vs_kernel_max", &vs);
	bench_row_set_num(row, "ms_kernel_cpu", cpu_ms.median);
	bench_row_set_num(row, "kernel_swap_used_mib", used);
	bench_row_set_num(row, "kernel_swap_left_mib", left);
	bench_row_set_num(row, "kernel_swapins_per_round", swapins);
	bench_row_set_num(row, "kernel_pages_checked_per_round",
			  (double)run->ks[0].checked);
	bench_row_set_str(row, "kernel_side", run->k.loop.direct_io ?
			  "swap on a loop device over a tmpfs file, direct I/O" :
			  "swap on a loop device over a tmpfs file, buffered");
	bench_row_set_str(row, "kernel_swap_device", run->k.loop.dev);
	bench_row_set_str(row, "kernel_memcg", run->k.cg.v2 ? "v2" : "v1");
	bench_row_set_str(row, "kernel_mismatch", SW_KERNEL_MISMATCH);
}

/* sw_report_row() - Fill the report row of side @side. */
static void sw_report_row(struct bench_row *row, const struct sw_run *run,
			  enum sw_side side)
{
	const struct sw_bench *b = &run->b;
	unsigned int rounds = b->scale.rounds;
	struct bench_summary ms;
	struct sw_sample t;
	char note[300];

	if (bench_summarize(run->ms[side], rounds, &ms))
		bench_die("swap %s: cannot summarise its time",
			  sw_rows[side].name);
	sw_total(run, side, &t);
	bench_row_set_str(row, "unit", "ms");
	bench_row_set_summary(row, "ms", "ms_min", "ms_max", &ms);
	sw_report_gain(row, run, side);
	sw_report_lookups(row, run, side, &t);
	bench_row_set_num(row, "walks_per_swapout", sw_walks_per_swapout(&t));
	bench_row_set_num(row, "walks_per_page",
			  bench_per_op(t.walks, t.pages));
	bench_row_set_num(row, "walks_per_page_no_reclaim",
			  bench_per_op(t.calib_walks, t.calib_pages));
	bench_row_set_num(row, "node_allocs_per_swapout",
			  bench_per_op(t.node_allocs, t.swapouts));
	bench_row_set_num(row, "locks_per_page",
			  bench_per_op(t.locks, t.pages));
	bench_row_set_num(row, "swapouts", (double)t.swapouts / rounds);
	bench_row_set_num(row, "swap_used_mib", (double)t.swapouts / rounds /
			  (1 << (20 - UPC_PAGE_SHIFT)));
	bench_row_set_num(row, "tree_nodes", (double)t.info.nr_nodes);
	bench_row_set_num(row, "node_bytes", (double)t.info.node_bytes);
	bench_row_set_num(row, "node_kib", (double)t.info.node_bytes / 1024);
	bench_row_set_num(row, "max_height", t.info.max_height);
	bench_row_set_num(row, "swap_cache_entries",
			  (double)t.info.nr_entries);
	bench_row_set_num(row, "swap_cache_trees", (double)t.info.nr_spaces);
	bench_row_set_num(row, "space_shift", sw_space_shift(side));
	bench_row_set_num(row, "pages_per_round", (double)t.pages / rounds);
	bench_row_set_str(row, "role", side == SW_AFTER ? "new" : "baseline");
	bench_row_set_str(row, "pair", sw_rows[!side].name);
	bench_row_set_num(row, "rounds", rounds);
	if (side == SW_AFTER)
		sw_report_kernel(row, run);
	bench_row_set_str(row, "note", sw_height_note(run, note,
						      sizeof(note)));
}

/* sw_print_row() - Print the table line of a report row. */
static void sw_print_row(const struct bench_table *t,
			 const struct bench_row *row)
{
	static const char *const num_keys[NR_COLS] = {
		NULL, "ms", NULL, "gain_pct", NULL, "walks_per_swapout",
		"tree_nodes", "node_kib", "max_height", "swapouts",
		"lookup_ns", "lookup_gain_pct",
	};
	char cells[NR_COLS][BENCH_CELL_LEN];
	const char *cell[NR_COLS];

	bench_fmt_row_nums(row, num_keys, NR_COLS, cells, cell);
	cell[0] = row->name;
	bench_fmt_row_range(cells[2], sizeof(cells[2]), row, "ms");
	bench_fmt_row_range(cells[4], sizeof(cells[4]), row, "gain_pct");
	bench_table_row(t, cell);
}

/* sw_report_meta() - The run's facts, at the top of the JSON object. */
static void sw_report_meta(struct bench_report *rep, const struct sw_run *run)
{
	const struct sw_scale *s = &run->b.scale;
	struct bench_row *meta = &rep->meta;

	bench_row_set_str(meta, "mode", s->mode);
	bench_row_set_num(meta, "limit_pages", (double)s->limit_pages);
	bench_row_set_num(meta, "limit_mib",
			  (double)(s->limit_pages >> (20 - UPC_PAGE_SHIFT)));
	bench_row_set_num(meta, "region_pages", (double)s->region_pages);
	bench_row_set_num(meta, "region_mib",
			  (double)(s->region_pages >> (20 - UPC_PAGE_SHIFT)));
	bench_row_set_num(meta, "swap_mib", (double)(s->swap_bytes >> 20));
	bench_row_set_str(meta, "swap_device", s->swap_file ? "file" :
			  "memory");
	bench_row_set_str(meta, "swap_file", s->swap_file);
	bench_row_set_num(meta, "pages_checked_per_round",
			  (double)sw_pages_checked(s));
	bench_row_set_num(meta, "space_shift", SWAP_ADDRESS_SPACE_SHIFT);
	bench_row_set_num(meta, "space_shift_baseline", SWAP_SPACE_FULL_INDEX);
	bench_row_set_num(meta, "parts_per_round", SW_PARTS);
	bench_meta_set_rounds(meta, s->rounds, s->warmups);
	bench_row_set_str(meta, "baseline_source", BASELINE_SOURCE);
	bench_row_set_str(meta, "kernel_side", run->k.usable ? "measured" :
			  run->k.why);
}

/* sw_print_header() - What the run measures and how to read it. */
static void sw_print_header(FILE *out, const struct sw_scale *s)
{
	fprintf(out,
		"upcache-bench swap (%s): seed 003, memhog: a %lu MiB "
		"anonymous region written once, in\n"
		"  order, in a %lu MiB cache swapping to %llu MiB of swap "
		"(%s); %u timed rounds after %u\n"
		"  warm-up, the sides interleaved in %u parts a round; memhog: "
		"swap cache per 64 MiB\n"
		"  chunk (shift %u), keyed inside it; baseline: keyed by the "
		"full offset (before seed 003)\n"
		"ms: time to touch the region, median over rounds [min..max]; "
		"gain%%: baseline ms /\n"
		"  memhog ms of the same round - 1, median [min..max]\n"
		"walks/swapout: XArray walks reclaim made per page swapped "
		"out (swap cache add and\n"
		"  delete, the region's store of the swap entry)\n"
		"nodes, node KiB, height: the swap cache's trees right after "
		"the touch (all of them;\n"
		"  height: the deepest)\n"
		"lookup ns: one swap cache lookup of a random slot in use "
		"after the touch (one walk to\n"
		"  a shadow), median over rounds; its gain%%: baseline / "
		"memhog of the same round - 1\n\n",
		s->mode, s->region_pages >> (20 - UPC_PAGE_SHIFT),
		s->limit_pages >> (20 - UPC_PAGE_SHIFT), s->swap_bytes >> 20,
		s->swap_file ? s->swap_file : "in memory", s->rounds,
		s->warmups, SW_PARTS, SWAP_ADDRESS_SPACE_SHIFT);
	fflush(out);
}

/* sw_print_kernel_note() - The kernel's figures, or why none. */
static void sw_print_kernel_note(FILE *out, const struct bench_row *row)
{
	const char *skipped = bench_row_str(row, "kernel_skipped");

	if (skipped) {
		fprintf(out, "  kernel: skipped: %s\n", skipped);
		return;
	}
	fprintf(out, "  kernel (memhog in a memory cgroup %s, %s):\n"
		"    %.0f ms by the wall clock [%.0f..%.0f] (%.0f ms of CPU "
		"time), %.0f MiB of swap in use;\n"
		"    upcache's memhog %.2fx as fast [%.2f..%.2f]\n",
		bench_row_get(row, "kernel_memcg")->str,
		bench_row_get(row, "kernel_side")->str,
		bench_row_num(row, "ms_kernel"),
		bench_row_num(row, "ms_kernel_min"),
		bench_row_num(row, "ms_kernel_max"),
		bench_row_num(row, "ms_kernel_cpu"),
		bench_row_num(row, "kernel_swap_used_mib"),
		bench_row_num(row, "vs_kernel"),
		bench_row_num(row, "vs_kernel_min"),
		bench_row_num(row, "vs_kernel_max"));
}

/* sw_print_notes() - The notes under the table. */
static void sw_print_notes(FILE *out, const struct bench_report *rep,
			   const struct sw_run *run)
{
	const struct bench_row *row = &rep->rows[SW_AFTER];

	fprintf(out, "\nnotes:\n  memhog: %+.1f%% over memhog_baseline; seed "
		"%+.1f%%: %s\n  %s\n",
		bench_row_num(row, "gain_pct"), SW_SEED_GAIN_PCT,
		bench_row_get(row, "target_met")->str,
		bench_row_get(row, "note")->str);
	sw_print_kernel_note(out, row);
	fprintf(out, "  every round read %lu pages back (most from swap) and "
		"checked them; then each\n"
		"    device had no slot in use, an empty swap cache and "
		"nothing charged\n", sw_pages_checked(&run->b.scale));
}

/**
 * bench_suite_swap() - Run the swap suite.
 * @opts: The suite's options.
 * @out: Where the table goes.
 * @rep: The report to fill.
 *
 * Return: 0.  A failed write, a page read back wrong or a leak ends the
 * run (exit status 2) with a message.
 */
int bench_suite_swap(const struct bench_options *opts,
		     struct bench_output *out, struct bench_report *rep)
{
	static struct sw_run run;
	struct bench_table t = { out->table, sw_cols, NR_COLS };
	struct sw_scale scale;
	unsigned int side;

	sw_scale_from_options(opts, &scale);
	sw_print_header(out->table, &scale);
	memset(&run, 0, sizeof(run));
	/* Forks memhog's process before sw_init() maps anything. */
	sw_kernel_init(&run.k, &scale);
	sw_init(&run.b, &scale);
	sw_report_meta(rep, &run);
	sw_measure(&run, isatty(STDERR_FILENO) ? stderr : NULL);
	bench_table_header(&t);
	for (side = 0; side < SW_NR_SIDES; side++) {
		struct bench_row *row = bench_report_add_row(rep,
							     sw_rows[side].name);

		sw_report_row(row, &run, side);
		sw_print_row(&t, row);
	}
	sw_print_notes(out->table, rep, &run);
	sw_free(&run.b);
	sw_kernel_free(&run.k);
	return 0;
}
