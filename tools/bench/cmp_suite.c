// SPDX-License-Identifier: MIT
/*
 * tools/bench/cmp_suite.c - the `upcache-bench compare` subcommand.
 *
 *	upcache-bench compare [--rounds N] [--output-format=normal|json]
 *			      [--json [FILE]] -- <run args A> -- <run args B>
 *	upcache-bench compare [--rounds N] ... A.fio B.fio
 *
 * Owns A/B comparisons of two `run` configurations.  The machines this
 * runs on drift (shared cores, frequency, other tenants), so A and B
 * are never measured in two separate blocks: each round runs both, each
 * figure is reported as the median of its rounds, and the comparison as
 * the median of the per-pair ratios B/A with their min and max
 * (samples.h), so a slow phase of the machine hits both sides of one
 * ratio.  The side that goes first alternates (A B, B A, A B, ...): a
 * run right after the other's teardown can measure differently, and
 * always going second would put that into every ratio.
 *
 * The two sides must report the same entries (the same jobs, in order;
 * engines, sizes and options may differ, which is the point): entries
 * are paired by position, and one whose job differs between the sides
 * is an error.  Within an entry its reads, writes and syncs pair with
 * the other side's; what one side has and the other has not (a job the
 * other side skipped, syncs only one side makes) is not compared, but an
 * entry that reads on one side and writes on the other is an error.
 * Ctrl-C stops after the current operation; the pairs completed so far
 * are reported and the status is 130.
 *
 * Exit status: 0, 2 for bad input or a failed run, 130 after Ctrl-C.
 * The command line's grammar and its errors: cmp_args.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmp_args.h"
#include "options.h"
#include "output.h"
#include "report.h"
#include "run_exec.h"
#include "run_report.h"
#include "run_suite.h"
#include "samples.h"
#include "suite.h"
#include "table.h"
#include "util.h"

/* The figures compared, as run_report_rows() names them. */
static const char *const cmp_figures[] = {
	"bw_MiBps", "iops", "lat_ns_mean", "clat_ns_p50", "clat_ns_p90",
	"clat_ns_p99", "clat_ns_p99.9", "walks_per_op", "locks_per_op",
};

#define NR_CMP_FIGURES	(sizeof(cmp_figures) / sizeof(cmp_figures[0]))

/**
 * struct cmp_samples - every figure of every round.
 * @nr_entries: Entries each run reports.
 * @nr_rows: Their slots, NR_CMP_SLOTS each (see cmp_slots[]).
 * @names: Per entry, its job's name (malloc()ed).
 * @v: [side][round][row][figure], flat; NaN where a run had no such row.
 * @slots: Per side and entry, the slots its first run filled
 *	(CMP_SLOTS_SEEN set once known; CMP_SLOTS_SKIPPED if it skipped).
 * @done: Complete pairs.
 */
struct cmp_samples {
	size_t nr_entries;
	size_t nr_rows;
	char **names;
	double *v;
	unsigned char *slots[2];
	unsigned int done;
};

#define CMP_SLOTS_SKIPPED	0x40u
#define CMP_SLOTS_SEEN		0x80u

/* cmp_at() - The slot of one figure. */
static double *cmp_at(struct cmp_samples *s, unsigned int rounds, int side,
		      unsigned int round, size_t row, size_t fig)
{
	return &s->v[(((size_t)side * rounds + round) * s->nr_rows + row) *
		     NR_CMP_FIGURES + fig];
}

/* cmp_spec() - Parse one side's run arguments. */
static int cmp_spec(const struct cmp_args *a, int side, struct run_spec *spec,
		    char *err, size_t errlen)
{
	char msg[300];

	if (run_parse_args(a->nr_side[side], a->side[side], spec, msg,
			   sizeof(msg))) {
		snprintf(err, errlen, "%c: %s", 'A' + side, msg);
		return -EINVAL;
	}
	if (spec->json || spec->help || !spec->normal) {
		snprintf(err, errlen, "%c: output options belong before the "
			 "first '--'", 'A' + side);
		return -EINVAL;
	}
	return 0;
}

/*
 * Each entry a run reports (a job, or a clone, or a group of them) has
 * a row per slot: its reads, its writes, its syncs.  A run fills the
 * slots its entry has and leaves the others missing; an entry skipped
 * (a baseline this machine cannot run) fills none, so whatever the
 * other side's entry moved pairs with nothing and is not compared.
 */
static const char *const cmp_slots[] = { "read", "write", "sync" };

#define NR_CMP_SLOTS	(sizeof(cmp_slots) / sizeof(cmp_slots[0]))

/* cmp_slot() - The slot of a row's "dir", or NR_CMP_SLOTS if none. */
static size_t cmp_slot(const struct bench_field *dir)
{
	size_t i;

	for (i = 0; dir && i < NR_CMP_SLOTS; i++)
		if (!strcmp(dir->str, cmp_slots[i]))
			break;
	return dir ? i : NR_CMP_SLOTS;
}

/*
 * cmp_entries() - Split @rep's job rows into entries: the rows of one
 * entry come in slot order, so a row that does not follow the last
 * one's slot (or names another job, or is skipped) starts the next.
 * @entry gets each row's entry (-1 for rows of groups).
 * Return: the number of entries.
 */
static size_t cmp_entries(const struct bench_report *rep, long *entry)
{
	size_t r, n = 0, last_slot = NR_CMP_SLOTS;
	const char *last_name = NULL;

	for (r = 0; r < rep->nr_rows; r++) {
		const struct bench_row *row = &rep->rows[r];
		size_t slot = cmp_slot(bench_row_get(row, "dir"));

		if (strcmp(bench_row_get(row, "kind")->str, "job")) {
			entry[r] = -1;
			continue;
		}
		if (slot == NR_CMP_SLOTS || last_slot == NR_CMP_SLOTS ||
		    slot <= last_slot || strcmp(row->name, last_name))
			n++;
		last_slot = slot;
		last_name = row->name;
		entry[r] = (long)n - 1;
	}
	return n;
}

/*
 * cmp_check_slots() - Once both sides have run: an entry neither side
 * skipped must move data the same ways on both (a read job against a
 * write job is an error, not a comparison); syncs on one side only are
 * just not compared.
 */
static int cmp_check_slots(const struct cmp_samples *s, char *err,
			   size_t errlen)
{
	const unsigned int data = 1u << 0 | 1u << 1;	/* read, write */
	size_t e, k;

	for (e = 0; e < s->nr_entries; e++) {
		unsigned int a = s->slots[0][e], b = s->slots[1][e];

		if (!(a & b & CMP_SLOTS_SEEN) ||
		    ((a | b) & CMP_SLOTS_SKIPPED) || !((a ^ b) & data))
			continue;
		for (k = 0; k < NR_CMP_SLOTS; k++)
			if ((a ^ b) & (1u << k))
				break;
		snprintf(err, errlen, "row %s/%s is on side %c only: compare "
			 "needs the same jobs, moving data the same ways",
			 s->names[e], cmp_slots[k], a & (1u << k) ? 'A' : 'B');
		return -EINVAL;
	}
	return 0;
}

/* cmp_record() - Store one run's figures; sizes the samples on the first. */
static int cmp_record(struct cmp_samples *s, unsigned int rounds, int side,
		      unsigned int round, const struct run_outcome *res,
		      char *err, size_t errlen)
{
	struct bench_report rep;
	size_t r, f, n, e;
	long *entry;
	int ret = 0;

	bench_report_init(&rep, "run");
	run_report_rows(&rep, res);
	entry = bench_xcalloc(rep.nr_rows ? rep.nr_rows : 1, sizeof(*entry));
	n = cmp_entries(&rep, entry);
	if (!s->v) {
		s->nr_rows = n * NR_CMP_SLOTS;
		s->v = bench_xcalloc(2 * rounds * (n ? n : 1) * NR_CMP_SLOTS *
				     NR_CMP_FIGURES, sizeof(double));
		s->names = bench_xcalloc(n ? n : 1, sizeof(char *));
		s->slots[0] = bench_xcalloc(n ? n : 1, 1);
		s->slots[1] = bench_xcalloc(n ? n : 1, 1);
		s->nr_entries = n;
	} else if (n != s->nr_entries) {
		snprintf(err, errlen, "A and B report different entries (%zu "
			 "and %zu): compare needs the same jobs on both sides",
			 s->nr_entries, n);
		ret = -EINVAL;
		goto out;
	}
	for (r = 0; r < s->nr_rows; r++)
		for (f = 0; f < NR_CMP_FIGURES; f++)
			*cmp_at(s, rounds, side, round, r, f) = NAN;
	for (r = 0; r < rep.nr_rows; r++) {
		const struct bench_row *row = &rep.rows[r];
		size_t slot = cmp_slot(bench_row_get(row, "dir"));

		if (entry[r] < 0)
			continue;
		e = (size_t)entry[r];
		if (!s->names[e]) {
			s->names[e] = bench_xstrdup(row->name);
		} else if (strcmp(s->names[e], row->name)) {
			snprintf(err, errlen, "entry %zu is job %s on one side "
				 "and %s on the other: compare needs the same "
				 "jobs in the same order", e + 1, s->names[e],
				 row->name);
			ret = -EINVAL;
			goto out;
		}
		if (!(s->slots[side][e] & CMP_SLOTS_SEEN))
			s->slots[side][e] |= slot == NR_CMP_SLOTS ?
					     CMP_SLOTS_SKIPPED : 1u << slot;
		if (slot == NR_CMP_SLOTS)
			continue;
		for (f = 0; f < NR_CMP_FIGURES; f++)
			*cmp_at(s, rounds, side, round, e * NR_CMP_SLOTS + slot,
				f) = bench_row_num(row, cmp_figures[f]);
	}
	for (e = 0; e < n; e++)
		s->slots[side][e] |= CMP_SLOTS_SEEN;
	ret = cmp_check_slots(s, err, errlen);
out:
	free(entry);
	bench_report_free(&rep);
	return ret;
}

/*
 * cmp_rounds() - Run A B, B A, A B ... and record every figure.  Odd
 * rounds run B first (see the opening comment).
 */
static int cmp_rounds(const struct cmp_args *a, struct run_spec *spec,
		      struct cmp_samples *s, char *err, size_t errlen)
{
	struct run_outcome res;
	unsigned int round;
	int i, side, ret = 0;

	for (round = 0; round < a->rounds && !ret; round++) {
		for (i = 0; i < 2 && !ret; i++) {
			side = (int)(round & 1) ^ i;
			ret = run_execute(&spec[side], &res, NULL, err, errlen);
			if (!ret && res.interrupted)
				ret = -EINTR;
			if (!ret)
				ret = cmp_record(s, a->rounds, side, round,
						 &res, err, errlen);
			run_outcome_free(&res);
		}
		if (!ret)
			s->done++;
	}
	return ret == -EINTR ? 0 : ret;
}

/**
 * struct cmp_figure - one compared figure.
 * @a: A's rounds summarised.
 * @b: B's rounds summarised.
 * @ratio: The per-pair ratios B/A summarised; NaN (printed "-", null in
 *	JSON) when an A sample is 0, as a lock count that goes from 0 to
 *	1: the medians still show the change.
 * @ok: Every sample is a number (both sides have the figure).
 */
struct cmp_figure {
	struct bench_summary a, b, ratio;
	bool ok;
};

/* cmp_summarise() - Medians and ratios of one row's figure. */
static void cmp_summarise(struct cmp_samples *s, unsigned int rounds,
			  size_t row, size_t fig, struct cmp_figure *out)
{
	double va[BENCH_MAX_ROUNDS], vb[BENCH_MAX_ROUNDS];
	unsigned int i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < s->done; i++) {
		va[i] = *cmp_at(s, rounds, 0, i, row, fig);
		vb[i] = *cmp_at(s, rounds, 1, i, row, fig);
		if (isnan(va[i]) || isnan(vb[i]))
			return;
	}
	out->ok = s->done && !bench_summarize(va, s->done, &out->a) &&
		  !bench_summarize(vb, s->done, &out->b);
	if (out->ok && bench_ratio_summary(vb, va, s->done, &out->ratio))
		bench_summary_none(&out->ratio);
}

static const struct bench_table_col cmp_cols[] = {
	{ "row", 24, true },
	{ "figure", 13, true },
	{ "A median", 10, false },
	{ "B median", 10, false },
	{ "B/A", 6, false },
	{ "B/A min..max", 14, true },
};

/* cmp_report() - Print the table and fill the JSON rows. */
static void cmp_report(const struct cmp_args *a, struct cmp_samples *s,
		       FILE *out, struct bench_report *rep)
{
	struct bench_table t = { out, cmp_cols, 6 };
	size_t r, f;

	if (a->normal) {
		fprintf(out, "compare: %u of %u rounds, interleaved A B, B A, "
			"...; ratios are B/A per pair\n\n", s->done,
			a->rounds);
		bench_table_header(&t);
	}
	for (r = 0; r < s->nr_rows; r++) {
		/* The row's name on its first figure printed (sync rows
		 * have no bandwidth). */
		bool named = false;
		char name[160];

		snprintf(name, sizeof(name), "%s/%s",
			 s->names[r / NR_CMP_SLOTS] ?
			 s->names[r / NR_CMP_SLOTS] : "?",
			 cmp_slots[r % NR_CMP_SLOTS]);

		for (f = 0; f < NR_CMP_FIGURES; f++) {
			char am[24], bm[24], rm[24], rr[40];
			const char *cells[6];
			struct cmp_figure fig;
			struct bench_row *row;

			cmp_summarise(s, a->rounds, r, f, &fig);
			if (!fig.ok)
				continue;
			row = bench_report_add_row(rep, name);
			bench_row_set_str(row, "figure", cmp_figures[f]);
			bench_row_set_num(row, "a_median", fig.a.median);
			bench_row_set_num(row, "a_min", fig.a.min);
			bench_row_set_num(row, "a_max", fig.a.max);
			bench_row_set_num(row, "b_median", fig.b.median);
			bench_row_set_num(row, "b_min", fig.b.min);
			bench_row_set_num(row, "b_max", fig.b.max);
			bench_row_set_num(row, "ratio_median", fig.ratio.median);
			bench_row_set_num(row, "ratio_min", fig.ratio.min);
			bench_row_set_num(row, "ratio_max", fig.ratio.max);
			bench_row_set_num(row, "rounds", s->done);
			if (!a->normal)
				continue;
			cells[0] = named ? "" : name;
			named = true;
			cells[1] = cmp_figures[f];
			cells[2] = bench_fmt_num(am, sizeof(am), fig.a.median);
			cells[3] = bench_fmt_num(bm, sizeof(bm), fig.b.median);
			cells[4] = bench_fmt_num(rm, sizeof(rm),
						 fig.ratio.median);
			cells[5] = bench_fmt_range(rr, sizeof(rr),
						   fig.ratio.min,
						   fig.ratio.max);
			bench_table_row(&t, cells);
		}
	}
}

/* cmp_usage() - The subcommand's help. */
static void cmp_usage(FILE *out)
{
	fputs("usage: upcache-bench compare [--rounds N] "
	      "[--output-format=normal|json] [--json [FILE]]\n"
	      "                             -- <run options A> -- "
	      "<run options B>\n"
	      "       upcache-bench compare [--rounds N] ... A.fio B.fio\n\n"
	      "Runs A and B interleaved (A B, B A, A B ...) for N rounds "
	      "(default 5) and prints\neach figure's median per side and the "
	      "median of the per-pair ratios B/A with\nmin..max.  Both sides "
	      "must define the same jobs in the same order.  Exit\nstatus: "
	      "0, 2 error, 130 stopped by Ctrl-C (completed pairs are "
	      "reported).\n", out);
}

/* cmp_free() - Free the samples. */
static void cmp_free(struct cmp_samples *s)
{
	size_t r;

	for (r = 0; s->names && r < s->nr_entries; r++)
		free(s->names[r]);
	free(s->names);
	free(s->v);
	free(s->slots[0]);
	free(s->slots[1]);
}

/* cmp_output() - Report the samples; returns the exit status. */
static int cmp_output(const struct cmp_args *a, struct cmp_samples *s,
		      bool interrupted)
{
	struct bench_options opts = { 0 };
	struct bench_output out;
	struct bench_report rep;
	int status = interrupted ? RUN_EXIT_INTERRUPTED : 0;

	opts.json = a->json;
	opts.json_path = a->json_path;
	if (bench_output_open(&opts, &out))
		return BENCH_EXIT_ERROR;
	bench_report_init(&rep, "compare");
	bench_row_set_num(&rep.meta, "rounds", s->done);
	bench_row_set_num(&rep.meta, "interrupted", interrupted);
	cmp_report(a, s, out.table, &rep);
	if (interrupted && a->normal)
		fputs("\ninterrupted: the figures cover the pairs completed "
		      "before the stop\n", out.table);
	if (bench_output_finish(&out, &rep))
		status = BENCH_EXIT_ERROR;
	bench_report_free(&rep);
	return status;
}

/**
 * bench_suite_compare_argv() - `upcache-bench compare`.
 * @argc: Number of arguments after "compare".
 * @argv: The arguments.
 *
 * Return: The exit status (0, 2 or 130).
 */
int bench_suite_compare_argv(int argc, char **argv)
{
	struct run_spec *spec = bench_xcalloc(2, sizeof(*spec));
	struct cmp_samples s = { 0 };
	struct sigaction old;
	struct cmp_args a;
	char err[400];
	int status = BENCH_EXIT_ERROR, ret;

	ret = cmp_parse_args(argc, argv, bench_json_word_is_file, &a, err,
			     sizeof(err));
	if (!ret && a.help) {
		cmp_usage(stdout);
		free(spec);
		return 0;
	}
	if (!ret)
		ret = cmp_spec(&a, 0, &spec[0], err, sizeof(err));
	if (!ret)
		ret = cmp_spec(&a, 1, &spec[1], err, sizeof(err));
	if (ret) {
		fprintf(stderr, "upcache-bench compare: %s (try --help)\n",
			err);
		goto out;
	}
	run_stop_reset();
	bench_run_sigint_install(&old);
	ret = cmp_rounds(&a, spec, &s, err, sizeof(err));
	bench_run_sigint_restore(&old);
	if (ret)
		fprintf(stderr, "upcache-bench compare: %s\n", err);
	else
		status = cmp_output(&a, &s, run_stop_requested());
out:
	cmp_free(&s);
	run_spec_free(&spec[0]);
	run_spec_free(&spec[1]);
	free(spec);
	return status;
}
