// SPDX-License-Identifier: MIT
/*
 * tools/bench/run_report.c - `upcache-bench run`'s output.
 *
 * Owns how a run's results are spelled: fio's normal text layout (units
 * chosen per figure, as fio does) and the JSON rows with raw numbers
 * (bytes, nanoseconds, bytes per second), whose fields run_report.h
 * lists.
 */
#include <math.h>
#include <string.h>

#include "run_report.h"
#include "table.h"

static const char *const dir_name[RUN_NR_DIRS] = { "read", "write" };
static const char *const dir_upper[RUN_NR_DIRS] = { "READ", "WRITE" };
static const double pcts[] = { 50, 90, 99, 99.9 };
static const char *const pct_keys[] = {
	"clat_ns_p50", "clat_ns_p90", "clat_ns_p99", "clat_ns_p99.9",
};
/* fio's JSON puts the syncs' percentiles under "sync": {"lat_ns": ...}. */
static const char *const sync_pct_keys[] = {
	"lat_ns_p50", "lat_ns_p90", "lat_ns_p99", "lat_ns_p99.9",
};

/* fmt_unit() - @v scaled by @base with a unit from @units: "4.69Gi". */
static char *fmt_unit(char *buf, size_t len, double v, double base,
		      const char *const *units, const char *suffix)
{
	unsigned int u = 0;

	while (v >= base && units[u + 1]) {
		v /= base;
		u++;
	}
	if (!u)
		snprintf(buf, len, "%.0f%s%s", v, units[u], suffix);
	else
		snprintf(buf, len, "%.*f%s%s", v < 10 ? 2 : v < 100 ? 1 : 0, v,
			 units[u], suffix);
	return buf;
}

/**
 * run_fmt_bytes() - A byte count with a binary unit.
 * @buf: The buffer.
 * @len: Its size.
 * @v: The count.
 *
 * Return: @buf.
 */
char *run_fmt_bytes(char *buf, size_t len, double v)
{
	static const char *const units[] = {
		"B", "KiB", "MiB", "GiB", "TiB", NULL,
	};

	return fmt_unit(buf, len, v, 1024, units, "");
}

/* fmt_bytes_si() - A byte count with a decimal unit: "67.1MB". */
static char *fmt_bytes_si(char *buf, size_t len, double v)
{
	static const char *const units[] = {
		"B", "kB", "MB", "GB", "TB", NULL,
	};

	return fmt_unit(buf, len, v, 1000, units, "");
}

/* fmt_count() - An operation count or rate: "1228k", "1.23M". */
static char *fmt_count(char *buf, size_t len, double v)
{
	static const char *const units[] = { "", "k", "M", "G", NULL };

	return fmt_unit(buf, len, v, 1000, units, "");
}

/*
 * stats_rate() - @n (bytes or operations of direction @d) per second,
 * over that direction's own run time: 0 for none, NaN for some in no
 * time.
 */
static double stats_rate(const struct run_stats *st, int d, uint64_t n)
{
	if (!n)
		return 0;
	return st->elapsed_ns[d] ?
		(double)n * 1e9 / (double)st->elapsed_ns[d] : NAN;
}

/* stats_bw() - Bytes per second of direction @d. */
static double stats_bw(const struct run_stats *st, int d)
{
	return stats_rate(st, d, st->bytes[d]);
}

/* stats_iops() - Operations per second of direction @d. */
static double stats_iops(const struct run_stats *st, int d)
{
	return stats_rate(st, d, st->ops[d]);
}

/*
 * fmt_bytes_pair() - @v in the job's units first and the other ones
 * second, as fio prints them: binary first (MiB, and kB in parentheses)
 * unless kb_base=1000 puts the decimal ones first.  Return: nothing;
 * @first and @second hold the two texts.
 */
static void fmt_bytes_pair(char *first, char *second, size_t len, double v,
			   unsigned int kb_base)
{
	if (kb_base == 1000) {
		fmt_bytes_si(first, len, v);
		run_fmt_bytes(second, len, v);
	} else {
		run_fmt_bytes(first, len, v);
		fmt_bytes_si(second, len, v);
	}
}

/*
 * text_percentiles() - " p50=290, p90=532, ..." of @h after @label, as
 * one line.
 */
static void text_percentiles(FILE *out, const char *label,
			     const struct run_hist *h)
{
	unsigned int i;

	fputs(label, out);
	for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
		fprintf(out, "%s p%g=%.0f", i ? "," : "", pcts[i],
			run_hist_percentile(h, pcts[i]));
	fputc('\n', out);
}

/* text_dir() - fio's block for one direction of one result. */
static void text_dir(FILE *out, const struct run_result *r, int d)
{
	const struct run_stats *st = &r->st;
	const struct run_hist *h = &st->hist[d];
	char iops[32], bw[32], bws[32], io[32], ios[32];

	fmt_bytes_pair(bw, bws, sizeof(bw), stats_bw(st, d), r->job->kb_base);
	fmt_bytes_pair(io, ios, sizeof(io), (double)st->bytes[d],
		       r->job->kb_base);
	fprintf(out, "  %s: IOPS=%s, BW=%s/s (%s/s)(%s/%llums)\n", dir_name[d],
		fmt_count(iops, sizeof(iops), stats_iops(st, d)), bw, bws, io,
		(unsigned long long)(st->elapsed_ns[d] / 1000000));
	if (!h->count)
		return;
	fprintf(out, "    clat (nsec): min=%llu, max=%llu, avg=%.2f\n",
		(unsigned long long)h->min, (unsigned long long)h->max,
		run_hist_mean(h));
	text_percentiles(out, "     clat percentiles (nsec):", h);
}

/*
 * text_sync() - fio's block for the syncs of one result, with their
 * number (fio's "issued rwts" line has it; this runner prints no such
 * line); nothing when there were none, as fio.
 */
static void text_sync(FILE *out, const struct run_stats *st)
{
	const struct run_hist *h = &st->sync;

	if (!h->count)
		return;
	fprintf(out, "  fsync/fdatasync/sync_file_range: syncs=%llu\n",
		(unsigned long long)h->count);
	fprintf(out, "    sync (nsec): min=%llu, max=%llu, avg=%.2f\n",
		(unsigned long long)h->min, (unsigned long long)h->max,
		run_hist_mean(h));
	text_percentiles(out, "     sync percentiles (nsec):", h);
}

/*
 * text_think() - The job's thinktime options, for its summary line:
 * its bandwidth counts the stalls, so it must not pass for that of a
 * job without them.  Microseconds, thinktime='s bare unit.
 */
static void text_think(FILE *out, const struct run_job *job)
{
	if (!job->thinktime_ns)
		return;
	fprintf(out, " thinktime=%lluus",
		(unsigned long long)(job->thinktime_ns / 1000));
	if (job->thinktime_spin_ns)
		fprintf(out, " thinktime_spin=%lluus",
			(unsigned long long)(job->thinktime_spin_ns / 1000));
	if (job->thinktime_blocks > 1)
		fprintf(out, " thinktime_blocks=%u", job->thinktime_blocks);
}

/* text_result() - fio's block for one result. */
static void text_result(FILE *out, const struct run_result *r)
{
	const struct run_job *job = r->job;
	const struct bench_counts *c = &r->st.counts;
	char size[32];
	int d;

	/* direct=1 is shown: a direct figure must never pass for a cached one. */
	fprintf(out, "%s: (groupid=%u, jobs=%u): ioengine=%s rw=%s bs=%llu "
		"size=%s%s%s%s", job->name, r->group, r->clones,
		job->engine, run_rw_name(job->rw), (unsigned long long)job->bs,
		run_fmt_bytes(size, sizeof(size), (double)job->size),
		job->direct ? " direct=1" : "",
		job->file_io_uring ? " file_io_uring=1" : "",
		job->file_background_writeback ?
		" file_background_writeback=1" : "");
	text_think(out, job);
	fputc('\n', out);
	if (r->skipped) {
		fprintf(out, "  skipped: %s\n", r->skipped);
		return;
	}
	for (d = 0; d < RUN_NR_DIRS; d++)
		if (r->st.ops[d] || (d == RUN_DIR_READ ? run_rw_reads(job->rw) :
				     run_rw_writes(job->rw)))
			text_dir(out, r, d);
	text_sync(out, &r->st);
	if (r->upcache && c->ops)
		fprintf(out, "    counters per op: walks=%.2f, node_allocs=%.2f,"
			" node_frees=%.2f, locks=%.2f\n",
			bench_per_op(c->walks, c->ops),
			bench_per_op(c->node_allocs, c->ops),
			bench_per_op(c->node_frees, c->ops),
			bench_per_op(c->locks, c->ops));
}

/*
 * text_group() - fio's "Run status group" block, in the units of
 * @kb_base (its first job's).
 */
static void text_group(FILE *out, const struct run_stats *g, unsigned int gid,
		       unsigned int kb_base)
{
	char bw[32], bws[32], io[32], ios[32];
	int d;

	fprintf(out, "\nRun status group %u (all jobs):\n", gid);
	for (d = 0; d < RUN_NR_DIRS; d++) {
		if (!g->ops[d])
			continue;
		fmt_bytes_pair(bw, bws, sizeof(bw), stats_bw(g, d), kb_base);
		fmt_bytes_pair(io, ios, sizeof(io), (double)g->bytes[d],
			       kb_base);
		fprintf(out, "%7s: bw=%s/s (%s/s), io=%s (%s), "
			"run=%llu-%llumsec\n", dir_upper[d], bw, bws, io, ios,
			(unsigned long long)(g->min_elapsed_ns[d] / 1000000),
			(unsigned long long)(g->elapsed_ns[d] / 1000000));
	}
}

/* group_kb_base() - The kb_base= of group @gid's first job, or 1024. */
static unsigned int group_kb_base(const struct run_outcome *res,
				  unsigned int gid)
{
	size_t i;

	for (i = 0; i < res->nr_results; i++)
		if (res->results[i].group == gid)
			return res->results[i].job->kb_base;
	return 1024;
}

/**
 * run_report_text() - Print fio's normal output for a run.
 * @out: The stream.
 * @res: The results.
 */
void run_report_text(FILE *out, const struct run_outcome *res)
{
	unsigned int g;
	size_t i;

	for (i = 0; i < res->nr_results; i++)
		text_result(out, &res->results[i]);
	for (g = 0; g < res->nr_groups; g++)
		if (res->groups[g].ops[0] || res->groups[g].ops[1])
			text_group(out, &res->groups[g], g,
				   group_kb_base(res, g));
	if (res->interrupted)
		fputs("\ninterrupted: the figures cover what ran before the "
		      "stop\n", out);
	fflush(out);
}

/* row_dir() - The figures of one direction into @row. */
static void row_dir(struct bench_row *row, const struct run_stats *st, int d,
		    bool counters)
{
	const struct run_hist *h = &st->hist[d];
	unsigned int i;

	bench_row_set_str(row, "dir", dir_name[d]);
	bench_row_set_num(row, "io_bytes", (double)st->bytes[d]);
	bench_row_set_num(row, "runtime_ms", (double)st->elapsed_ns[d] / 1e6);
	bench_row_set_num(row, "bw_bytes", stats_bw(st, d));
	bench_row_set_num(row, "bw_MiBps", stats_bw(st, d) / 1048576.0);
	bench_row_set_num(row, "iops", stats_iops(st, d));
	bench_row_set_num(row, "lat_ns_min", h->count ? (double)h->min : NAN);
	bench_row_set_num(row, "lat_ns_mean", run_hist_mean(h));
	bench_row_set_num(row, "lat_ns_max", h->count ? (double)h->max : NAN);
	for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
		bench_row_set_num(row, pct_keys[i],
				  run_hist_percentile(h, pcts[i]));
	if (counters) {
		bench_counts_to_row(row, &st->counts);
	} else {
		struct bench_counts none = { 0 };

		bench_counts_to_row(row, &none);
	}
}

/*
 * row_sync() - The syncs of one result into @row, flattened from fio's
 * JSON ("sync": {"total_ios": N, "lat_ns": {"min", "mean", "max",
 * "percentile"}}): total_ios and lat_ns_*, null latencies for none.
 */
static void row_sync(struct bench_row *row, const struct run_stats *st)
{
	const struct run_hist *h = &st->sync;
	unsigned int i;

	bench_row_set_str(row, "dir", "sync");
	bench_row_set_num(row, "total_ios", (double)h->count);
	bench_row_set_num(row, "lat_ns_min", h->count ? (double)h->min : NAN);
	bench_row_set_num(row, "lat_ns_mean", run_hist_mean(h));
	bench_row_set_num(row, "lat_ns_max", h->count ? (double)h->max : NAN);
	for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
		bench_row_set_num(row, sync_pct_keys[i],
				  run_hist_percentile(h, pcts[i]));
}

/*
 * result_syncs() - Does @r get a sync row?  fio reports "sync" for
 * every job; here every result whose job writes (the only ones that can
 * sync) or that synced (a group_reporting entry whose first job only
 * reads), so that compare pairs the rows of a job with and one without
 * sync options.
 */
static bool result_syncs(const struct run_result *r)
{
	return run_rw_writes(r->job->rw) || r->st.sync.count;
}

/* row_job() - The fields that describe @r's job. */
static void row_job(struct bench_row *row, const struct run_result *r,
		    const char *kind)
{
	bench_row_set_str(row, "kind", kind);
	bench_row_set_num(row, "group", r->group);
	bench_row_set_num(row, "clones", r->clones);
	bench_row_set_str(row, "ioengine", r->job->engine);
	bench_row_set_str(row, "rw", run_rw_name(r->job->rw));
	bench_row_set_num(row, "bs", (double)r->job->bs);
	bench_row_set_num(row, "size", (double)r->job->size);
	bench_row_set_num(row, "direct", r->job->direct);
}

/**
 * run_report_rows() - Record a run's results as JSON rows.
 * @rep: The report.
 * @res: The results.
 */
void run_report_rows(struct bench_report *rep, const struct run_outcome *res)
{
	unsigned int g;
	size_t i;
	int d;

	for (i = 0; i < res->nr_results; i++) {
		const struct run_result *r = &res->results[i];

		if (r->skipped) {
			struct bench_row *row = bench_report_add_row(
				rep, r->job->name);

			row_job(row, r, "job");
			bench_row_set_str(row, "skipped", r->skipped);
			continue;
		}
		for (d = 0; d < RUN_NR_DIRS; d++) {
			struct bench_row *row;

			if (!r->st.ops[d] &&
			    !(d == RUN_DIR_READ ? run_rw_reads(r->job->rw) :
			      run_rw_writes(r->job->rw)))
				continue;
			row = bench_report_add_row(rep, r->job->name);
			row_job(row, r, "job");
			row_dir(row, &r->st, d, r->upcache);
		}
		if (result_syncs(r)) {
			struct bench_row *row = bench_report_add_row(
				rep, r->job->name);

			row_job(row, r, "job");
			row_sync(row, &r->st);
		}
	}
	for (g = 0; g < res->nr_groups; g++) {
		for (d = 0; d < RUN_NR_DIRS; d++) {
			struct bench_row *row;
			char name[32];

			if (!res->groups[g].ops[d])
				continue;
			snprintf(name, sizeof(name), "group%u", g);
			row = bench_report_add_row(rep, name);
			bench_row_set_str(row, "kind", "group");
			bench_row_set_num(row, "group", g);
			row_dir(row, &res->groups[g], d, false);
		}
	}
}
