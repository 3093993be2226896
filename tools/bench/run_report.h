/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/run_report.h - `upcache-bench run`'s output: fio's normal
 * text and the JSON rows.
 *
 * Per result (a clone, or a group with group_reporting=1) and direction
 * it moved data in, both say: bytes, run time, bandwidth, IOPS, the
 * latency's min/mean/max and its p50/p90/p99/p99.9 percentiles, and
 * upcache's counters per operation (null for kernel engines, which do
 * not run upcache code); and its syncs (fsync=, fdatasync=, end_fsync=):
 * how many, their latency's min/mean/max and percentiles, as fio's
 * "fsync/fdatasync/sync_file_range" block (text, only when there were
 * some) and "sync" object (JSON).  Then, per stonewall group, fio's
 * "Run status group" line: the group's total bandwidth (bytes over its
 * longest clone's run time) and the range of run times, per direction
 * and over the clones that moved data in that direction only (fio's per
 * direction run time): a write-only clone has no read run time.
 *
 * JSON row fields (one row per result and direction, "kind": "job"; one
 * per group and direction, "kind": "group"):
 *
 *	name, kind, group, clones, ioengine, rw, bs, size, dir,
 *	io_bytes, runtime_ms, bw_bytes (bytes/s), bw_MiBps, iops,
 *	lat_ns_min, lat_ns_mean, lat_ns_max, clat_ns_p50, clat_ns_p90,
 *	clat_ns_p99, clat_ns_p99.9, walks_per_op, node_allocs_per_op,
 *	node_frees_per_op, locks_per_op, and "skipped" (the reason) for a
 *	job that did not run.
 *
 * and one more per result whose job writes (or that synced), "kind":
 * "job", "dir": "sync": fio's "sync" object, flattened as the read and
 * write ones are:
 *
 *	name, kind, group, clones, ioengine, rw, bs, size, dir, total_ios
 *	(syncs), lat_ns_min, lat_ns_mean, lat_ns_max, lat_ns_p50,
 *	lat_ns_p90, lat_ns_p99, lat_ns_p99.9 (null without syncs).
 */
#ifndef UPCACHE_TOOLS_BENCH_RUN_REPORT_H
#define UPCACHE_TOOLS_BENCH_RUN_REPORT_H

#include <stdio.h>

#include "report.h"
#include "run_exec.h"

/**
 * run_report_text() - Print fio's normal output for a run.
 * @out: The stream.
 * @res: The results.
 */
void run_report_text(FILE *out, const struct run_outcome *res);

/**
 * run_report_rows() - Record a run's results as JSON rows.
 * @rep: The report to add rows to.
 * @res: The results.
 */
void run_report_rows(struct bench_report *rep, const struct run_outcome *res);

/**
 * run_fmt_bytes() - A byte count with a binary unit: "64.0MiB".
 * @buf: The buffer.
 * @len: Its size.
 * @v: The count.
 *
 * Return: @buf.
 */
char *run_fmt_bytes(char *buf, size_t len, double v);

#endif /* UPCACHE_TOOLS_BENCH_RUN_REPORT_H */
