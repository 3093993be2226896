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
 *	1. opens its file (untimed; the job's files were laid out before)
 *	   and allocates its I/O buffer, page-aligned as direct=1 needs,
 *	2. waits until every clone of the group is ready,
 *	3. runs the workload unmeasured for ramp_time=,
 *	4. runs it measured, from where the ramp left its offsets: size=
 *	   bytes (reads and writes together; into the next pass where the
 *	   ramp's ends), or passes until runtime= when time_based=1,
 *	   stopping early at runtime= or when a stop is requested (Ctrl-C),
 *	   with its syncs and think time (thinktime=) between operations,
 *	   then, with end_fsync=1, syncs its file once,
 *	5. records bytes, operations, a latency histogram per direction,
 *	   the syncs' latencies and upcache's counters.
 *
 * Syncs follow fio (io_u.c's get_rw_ddir(), backend.c's do_io()): with
 * fsync=N (fdatasync=N) a clone's next operation after its N-th, 2N-th
 * ... write of a phase is an fsync (fdatasync) of its file, so N writes
 * and nothing after them is no sync: the phase ends first; fsync= wins
 * when both fall due.  The ramp syncs too, unmeasured, and the count of
 * writes starts again with the measured phase, as fio resets it when
 * the ramp ends.  end_fsync=1 syncs once after the measured phase in a
 * job that writes, unless the clone's last operation was a sync (fio's
 * should_fsync()).  A sync is timed like an operation, from the end of
 * the one before, into its own histogram; the end_fsync is part of the
 * measured phase's run time, as fio counts it in the job's, and, unlike
 * fio, which times it in the run time only, one of the syncs reported.
 * A failed sync ends the clone as a failed operation does.
 *
 * Think time follows fio (backend.c's handle_thinktime()): with
 * thinktime=T a clone stalls for T after its N-th, 2N-th ... read or
 * write of a phase (N is thinktime_blocks=, 1 by default; syncs are not
 * counted, and the count starts again with the measured phase), after
 * the last one of a phase too, and before a sync that write made due:
 * spinning on the clock for its first thinktime_spin=, asleep for the
 * rest.  A stall ends early at the end of its phase (the ramp's,
 * runtime=) and soon after a stop request.  It is part of the measured
 * phase's run time, so it lowers the bandwidth, as in fio, and of no
 * latency: the operation after it is timed from its end.
 *
 * Latency is the time from the end of one operation (or of the stall
 * after it) to the end of the next, read from CLOCK_MONOTONIC (vDSO,
 * about 20 ns), so each operation costs exactly one clock read; it
 * includes choosing the next offset, which is a few nanoseconds.
 *
 * The offsets and directions of a clone come from one generator (struct
 * run_gen), started once per clone: the measured phase carries on from
 * where the ramp left it, as fio only resets its figures when the ramp
 * ends.  An operation that moves fewer bytes than asked (a read past the
 * end of a file moves none) fails the run: counting it would report
 * work that was not done.
 */
#ifndef UPCACHE_TOOLS_BENCH_RUN_EXEC_H
#define UPCACHE_TOOLS_BENCH_RUN_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "counters.h"
#include "rng.h"
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
 * @sync: Latencies of the syncs (fsync=, fdatasync=, end_fsync=); its
 *	count is the number of syncs.
 * @counts: upcache's counters over all operations (and the syncs' work;
 *	per-operation figures divide by reads and writes only).
 * @elapsed_ns: Per direction, the length of the measured phase of a
 *	clone that moved data in it, 0 for one that did not (once merged,
 *	the longest), as fio keeps a run time per direction: a direction's
 *	bandwidth is its bytes over its own time, never over the time of a
 *	clone that only moved data the other way.
 * @min_elapsed_ns: Per direction, the shortest of those (UINT64_MAX
 *	when no clone moved data in it).
 */
struct run_stats {
	uint64_t bytes[RUN_NR_DIRS];
	uint64_t ops[RUN_NR_DIRS];
	struct run_hist hist[RUN_NR_DIRS];
	struct run_hist sync;
	struct bench_counts counts;
	uint64_t elapsed_ns[RUN_NR_DIRS];
	uint64_t min_elapsed_ns[RUN_NR_DIRS];
};

/**
 * struct run_gen - the offsets and directions of one clone.
 * @job: Its job.
 * @nr_blocks: Operations per pass (blocks in the region).
 * @next: Operations issued in this pass.
 * @seq: Per direction, the next block of a sequential pattern: reads and
 *	writes of a mixed job walk the region each on its own (fio's
 *	last_pos per direction), each back to its start past the end.
 * @map: A random pattern's blocks in this pass's order, or NULL.
 * @random: Offsets are random.
 * @read_pct: Percentage of operations that read (0 or 100 unless mixed).
 * @rng: Random blocks: the shuffles of @map, or the blocks themselves
 *	without one.
 * @dir_rng: The directions of a mixed job, a stream of its own so that
 *	they do not follow the block order.
 */
struct run_gen {
	const struct run_job *job;
	uint64_t nr_blocks;
	uint64_t next;
	uint64_t seq[RUN_NR_DIRS];
	unsigned long *map;
	bool random;
	unsigned int read_pct;
	struct bench_rng rng;
	struct bench_rng dir_rng;
};

/**
 * run_gen_init() - Start the offsets of one clone.
 * @g: The generator.
 * @job: The clone's job.
 * @thread: The clone's number among every clone of the run (the clones
 *	of the jobs before its job, plus its number within its job), which
 *	seeds it, so no two clones of a run (two jobs on one filename=
 *	included) follow the same sequence, and two runs of one spec do.
 *
 * Context: Allocates a random pattern's map (run_gen_free() it).
 */
void run_gen_init(struct run_gen *g, const struct run_job *job,
		  unsigned int thread);

/**
 * run_gen_next() - The next operation.
 * @g: The generator.
 * @dir: Its direction.
 * @off: Its offset.
 *
 * A pass is one operation per block of the region, in both directions
 * together (as fio ends a job when the bytes of both reach size=).
 * At the end of a pass, a random pattern's map is shuffled again, so the
 * next pass visits the blocks in a new order, as fio's does.
 *
 * Return: true, or false (and neither @dir nor @off) when the pass is
 * over; the next call starts a new pass.
 */
bool run_gen_next(struct run_gen *g, enum run_dir *dir, uint64_t *off);

/**
 * run_gen_free() - Free what run_gen_init() allocated.
 * @g: The generator.
 */
void run_gen_free(struct run_gen *g);

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
 * an engine that is not implemented yet; -EINVAL for an unknown engine,
 * or sync options on an engine without a sync; -EIO for an operation
 * that moved fewer bytes than asked (a read past the end of a file);
 * another -errno when a file cannot be set up or an operation or a sync
 * fails.  The message names the job, the operation and why.
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
