/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/xa_cases.h - the measured operations of the XArray suite.
 *
 * Every row of `upcache-bench xarray` is one of these hooks run by
 * measure.c; xa_suite.c pairs them with names, units and the kernel's
 * reference figures.  They share one struct xa_bench: read-only fixtures
 * built once (a dense array, a sparse array, an order-9 array, and the
 * index sequences that drive them) and one scratch array, @work, that the
 * writing rows build and destroy inside each of their rounds.
 *
 * Every entry is a value entry that encodes its own first index
 * (xab_entry()), so every load, iteration, erase and split checks what
 * it got; a wrong answer ends the run with a message naming the row and
 * the index (exit status 2), because a fast wrong XArray is not a result.
 */
#ifndef UPCACHE_TOOLS_BENCH_XA_CASES_H
#define UPCACHE_TOOLS_BENCH_XA_CASES_H

#include <stddef.h>
#include <stdint.h>

#include <upcache/xarray.h>

#include "measure.h"
#include "scale.h"

/* Order of the multi-index rows: a PMD-sized folio of 4K pages. */
#define XAB_ORDER	9
#define XAB_ORDER_SIZE	(1UL << XAB_ORDER)

/**
 * struct xa_bench - the state every XArray case shares.
 * @scale: The sizes of this run.
 * @dense: Entries 0..nr_entries-1 (fixture).
 * @sparse: nr_sparse entries at random 64-bit indices (fixture).
 * @order9: nr_order9 order-9 entries at 0, 512, 1024, ... (fixture).
 * @work: Scratch array of the writing rows, empty between rounds.
 * @perm: A random permutation of 0..nr_entries-1.
 * @sparse_idx: The indices of @sparse, in random order.
 * @order9_idx: nr_entries random indices inside @order9's entries.
 * @split_at: For each of nr_splits order-9 entries, a random index
 *	inside it: where try_split_order9 splits down to order 0.
 */
struct xa_bench {
	const struct bench_scale *scale;
	struct xarray dense;
	struct xarray sparse;
	struct xarray order9;
	struct xarray work;
	unsigned long *perm;
	unsigned long *sparse_idx;
	unsigned long *order9_idx;
	unsigned long *split_at;
};

/**
 * struct xab_readers - the argument of the multi-threaded load rows.
 * @b: The shared state.
 * @threads: How many threads load at once.
 */
struct xab_readers {
	struct xa_bench *b;
	unsigned int threads;
};

/**
 * xab_entry() - The entry the suite stores for an index.
 * @index: Any index covered by the entry.
 * @order: The entry's order.
 *
 * Return: A value entry holding the entry's first index (its top bit
 * dropped, so it fits a value entry).
 */
static inline void *xab_entry(unsigned long index, unsigned int order)
{
	return xa_mk_value((index >> order << order) & LONG_MAX);
}

/**
 * xab_load_indices() - xa_load() a sequence of indices and check them.
 * @xa: The array.
 * @idx: The indices.
 * @n: How many.
 * @order: Order of the entries stored at them.
 * @row: The row, for messages.
 *
 * Each load must return xab_entry(index, @order); dies otherwise.
 *
 * Return: @n, the loads.
 */
uint64_t xab_load_indices(struct xarray *xa, const unsigned long *idx,
			  size_t n, unsigned int order, const char *row);

/**
 * xab_init() - Build the fixtures and index sequences of a run.
 * @b: The state to fill.
 * @scale: The run's sizes.
 *
 * Context: Dies (exit status 2) if memory runs out or a store fails.
 */
void xab_init(struct xa_bench *b, const struct bench_scale *scale);

/**
 * xab_free() - Destroy the fixtures and free the index sequences.
 * @b: The state.
 */
void xab_free(struct xa_bench *b);

/*
 * The hooks of struct bench_case; @arg is the struct xa_bench.  Bodies
 * return the operations they ran: stores, loads, erases, entries
 * visited, splits or scan-and-store operations.
 */
uint64_t xab_store_seq(void *arg);
uint64_t xab_load_seq(void *arg);
uint64_t xab_load_random(void *arg);
void xab_erase_setup(void *arg);
uint64_t xab_erase_seq(void *arg);
void xab_erase_check(void *arg);
uint64_t xab_sparse_store(void *arg);
uint64_t xab_sparse_load(void *arg);
uint64_t xab_xas_for_each(void *arg);
uint64_t xab_xa_for_each(void *arg);
uint64_t xab_order9_store(void *arg);
uint64_t xab_order9_load_random(void *arg);
void xab_split_setup(void *arg);
uint64_t xab_split_order9(void *arg);
uint64_t xab_try_split_order9(void *arg);
void xab_split_check(void *arg);
void xab_try_split_check(void *arg);
void xab_conflict_setup(void *arg);
uint64_t xab_conflict_scan(void *arg);
void xab_conflict_check(void *arg);

/**
 * xab_work_destroy() - Teardown of the writing rows: empty @work.
 * @arg: The struct xa_bench.
 *
 * Waits for the freed nodes to pass their RCU grace period, so the
 * RCU worker's clearing of them never runs inside the next timed body.
 */
void xab_work_destroy(void *arg);

/**
 * xab_readers_run() - One round of random loads by several threads.
 * @arg: A struct xab_readers.
 * @s: The round's sample: loads summed over the threads, wall-clock
 *	time times the threads (so @s->ns / @s->ops is the time per load
 *	of one thread while all run at once).
 */
void xab_readers_run(void *arg, struct bench_sample *s);

#endif /* UPCACHE_TOOLS_BENCH_XA_CASES_H */
