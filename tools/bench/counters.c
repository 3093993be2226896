// SPDX-License-Identifier: MIT
/*
 * tools/bench/counters.c - upcache's per-thread counters, per operation.
 *
 * Owns turning upc_stats_thread() snapshots into totals over timed
 * operations and those totals into per-operation report fields.
 */
#include <math.h>

#include "counters.h"

/**
 * bench_counts_add_since() - Add this thread's counts since a snapshot.
 * @acc: The totals.
 * @snap: The thread's counters before the operations.
 * @ops: Operations run since @snap.
 *
 * Context: The thread that took @snap.
 */
void bench_counts_add_since(struct bench_counts *acc,
			    const struct upc_thread_stats *snap, uint64_t ops)
{
	struct upc_thread_stats now;

	upc_stats_thread(&now);
	acc->ops += ops;
	acc->walks += now.xa_walks - snap->xa_walks;
	acc->node_allocs += now.xa_node_allocs - snap->xa_node_allocs;
	acc->node_frees += now.xa_node_frees - snap->xa_node_frees;
	acc->locks += now.lock_acquires - snap->lock_acquires;
}

/**
 * bench_counts_merge() - Add one set of totals to another.
 * @acc: The totals.
 * @more: Totals to add.
 */
void bench_counts_merge(struct bench_counts *acc,
			const struct bench_counts *more)
{
	acc->ops += more->ops;
	acc->walks += more->walks;
	acc->node_allocs += more->node_allocs;
	acc->node_frees += more->node_frees;
	acc->locks += more->locks;
}

/**
 * bench_per_op() - A count divided by operations.
 * @count: The count.
 * @ops: The operations.
 *
 * Return: @count / @ops, or NaN if @ops is 0.
 */
double bench_per_op(uint64_t count, uint64_t ops)
{
	return ops ? (double)count / (double)ops : NAN;
}

/**
 * bench_counts_to_row() - Record per-operation counts in a row.
 * @row: The row.
 * @c: The totals.
 */
void bench_counts_to_row(struct bench_row *row, const struct bench_counts *c)
{
	bench_row_set_num(row, "walks_per_op", bench_per_op(c->walks, c->ops));
	bench_row_set_num(row, "node_allocs_per_op",
			  bench_per_op(c->node_allocs, c->ops));
	bench_row_set_num(row, "node_frees_per_op",
			  bench_per_op(c->node_frees, c->ops));
	bench_row_set_num(row, "locks_per_op", bench_per_op(c->locks, c->ops));
}
