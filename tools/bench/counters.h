/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/counters.h - upcache's per-thread counters, per operation.
 *
 * Next to each time, upcache-bench prints the deterministic counts the
 * seeds argue with (upcache/stats.h): XArray walks, node allocations and
 * frees, and lock acquisitions, divided by the operations timed.  Times
 * move with the machine; these do not, so a regression in them is a
 * regression in the code.
 */
#ifndef UPCACHE_TOOLS_BENCH_COUNTERS_H
#define UPCACHE_TOOLS_BENCH_COUNTERS_H

#include <stdint.h>

#include <upcache/stats.h>

#include "report.h"

/**
 * struct bench_counts - counter totals over some timed operations.
 * @ops: Operations timed.
 * @walks: XArray walks from the root.
 * @node_allocs: XArray nodes allocated.
 * @node_frees: XArray nodes freed.
 * @locks: Lock acquisitions.
 */
struct bench_counts {
	uint64_t ops;
	uint64_t walks;
	uint64_t node_allocs;
	uint64_t node_frees;
	uint64_t locks;
};

/**
 * bench_counts_add_since() - Add this thread's counts since a snapshot.
 * @acc: The totals.
 * @snap: The thread's counters before the operations (upc_stats_thread()).
 * @ops: Operations run since @snap.
 *
 * Context: The thread that took @snap.
 */
void bench_counts_add_since(struct bench_counts *acc,
			    const struct upc_thread_stats *snap, uint64_t ops);

/**
 * bench_counts_merge() - Add one set of totals to another.
 * @acc: The totals.
 * @more: Totals to add, from another thread or round.
 */
void bench_counts_merge(struct bench_counts *acc,
			const struct bench_counts *more);

/**
 * bench_per_op() - A count divided by operations.
 * @count: The count.
 * @ops: The operations.
 *
 * Return: @count / @ops, or NaN if @ops is 0.
 */
double bench_per_op(uint64_t count, uint64_t ops);

/**
 * bench_counts_to_row() - Record per-operation counts in a row.
 * @row: The row.
 * @c: The totals.
 *
 * Sets walks_per_op, node_allocs_per_op, node_frees_per_op and
 * locks_per_op (NaN, written as null, when @c has no operations).
 */
void bench_counts_to_row(struct bench_row *row, const struct bench_counts *c);

#endif /* UPCACHE_TOOLS_BENCH_COUNTERS_H */
