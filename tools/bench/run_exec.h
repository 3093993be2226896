/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/run_exec.h - running the jobs of `upcache-bench run`.
 *
 * Jobs run in groups, as in fio: a job with stonewall=1 starts a new
 * group, which starts when every job of the group before it has ended;
 * the jobs of one group, and every clone of each (numjobs=), run at
 * the same time, one thread each (fio's thread=1; there is no process
 * mode).  Each clone:
 *
 *	1. opens its file (untimed; the job's files were laid out before),
 *	2. waits until every clone of the group is ready,
 *	3. runs the workload unmeasured for ramp_time=,
 *	4. runs it measured: one pass of size= bytes, or passes until
 *	   runtime= when time_based=1, stopping early at runtime= or when a
 *	   stop is requested (Ctrl-C),
 *	5. records bytes, operations, a latency histogram per direction and
 *	   upcache's counters.
 *
 * Latency is the time from the end of one operation to the end of the
 * next, read from CLOCK_MONOTONIC (vDSO, about 20 ns), so each
 * operation costs exactly one clock read; it includes choosing the next
 * offset, which is a few nanoseconds.
 */
#ifndef UPCACHE_TOOLS_BENCH_RUN_EXEC_H
#define UPCACHE_TOOLS_BENCH_RUN_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "counters.h"
#include "run_hist.h"
#include "run_spec.h"

/**
 * enum run_dir - a direction of I/O.
 */
enum run_dir {
	RUN_DIR_READ,
	RUN_DIR_WRITE,
	RUN_NR_DIRS,
};

/**
 * struct run_stats - what some clones measured.
 * @bytes: Bytes moved, per direction.
 * @ops: Operations, per direction.
 * @hist: Latencies, per direction.
 * @counts: upcache's counters over all operations.
 * @elapsed_ns: Length of the measured phase (the longest, once merged).
 * @min_elapsed_ns: The shortest measured phase among merged clones.
 */
struct run_stats {
	uint64_t bytes[RUN_NR_DIRS];
	uint64_t ops[RUN_NR_DIRS];
	struct run_hist hist[RUN_NR_DIRS];
	struct bench_counts counts;
	uint64_t elapsed_ns;
	uint64_t min_elapsed_ns;
};

/**
 * struct run_result - one reported entry: a clone, or a whole group with
 * group_reporting=1.
 * @job: The (first) job it covers.
 * @group: Its stonewall group, from 0.
 * @clones: Clones merged into it.
 * @upcache: Its engine runs on upcache (counters are meaningful).
 * @skipped: Why it did not run (malloc()ed), or NULL.
 * @st: The figures.
 */
struct run_result {
	const struct run_job *job;
	unsigned int group;
	unsigned int clones;
	bool upcache;
	char *skipped;
	struct run_stats st;
};

/**
 * struct run_outcome - the results of one run.
 * @results: One per reported entry, in job order.
 * @nr_results: Number of @results.
 * @groups: Per group, all its clones merged (fio's "Run status group").
 * @nr_groups: Number of @groups.
 * @interrupted: A stop was requested before the end.
 */
struct run_outcome {
	struct run_result *results;
	size_t nr_results;
	struct run_stats *groups;
	unsigned int nr_groups;
	bool interrupted;
};

/**
 * run_execute() - Run every job of @spec.
 * @spec: The jobs.
 * @out: The results (run_outcome_free() it, even on error).
 * @progress: Stream for the live progress line, or NULL for none.
 * @err: Buffer for a one-line message on error.
 * @errlen: Size of @err.
 *
 * Checks every job's engine before running anything, so a job file
 * with a job that cannot run fails at once, not after the jobs before
 * it.  A job its engine says this machine cannot run fairly is
 * reported as skipped, with the reason.
 *
 * Context: Starts and joins threads; call from one thread at a time.
 * Return: 0 (also when stopped early: @out->interrupted); -ENOSYS for
 * an engine that is not implemented yet; -EINVAL for an unknown engine;
 * another -errno when a file cannot be set up or an operation fails.
 */
int run_execute(const struct run_spec *spec, struct run_outcome *out,
		FILE *progress, char *err, size_t errlen);

/**
 * run_outcome_free() - Free the results.
 * @out: The results, left empty.
 */
void run_outcome_free(struct run_outcome *out);

/**
 * run_request_stop() - Ask running jobs to stop after their current
 * operation.
 *
 * Context: Any thread, and signal handlers (one relaxed atomic store).
 */
void run_request_stop(void);

/**
 * run_stop_requested() - Whether a stop was requested.
 */
bool run_stop_requested(void);

/**
 * run_stop_reset() - Forget a stop request, before a new run.
 */
void run_stop_reset(void);

#endif /* UPCACHE_TOOLS_BENCH_RUN_EXEC_H */
