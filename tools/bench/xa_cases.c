// SPDX-License-Identifier: MIT
/*
 * tools/bench/xa_cases.c - the measured operations of the XArray suite.
 *
 * Owns the fixtures of a run and every single-threaded timed body, with
 * the untimed setup that feeds it and the check after it (xa_cases.h).
 * Each body is written the way kernel code uses the API: normal API rows
 * call xa_store()/xa_load()/xa_erase(); advanced rows declare an
 * XA_STATE, take xas_lock() and retry with xas_nomem() outside it.
 *
 * Conventions: @b is the shared state, @row the row's name for messages.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <upcache/rcu.h>

#include "rng.h"
#include "util.h"
#include "xa_cases.h"

/* Seeds of the index sequences: fixed, so every run sees the same input. */
#define SEED_PERM	(BENCH_RNG_SEED + 1)
#define SEED_SPARSE	(BENCH_RNG_SEED + 2)
#define SEED_ORDER9	(BENCH_RNG_SEED + 3)
#define SEED_SPLIT	(BENCH_RNG_SEED + 4)

/* xab_wrong() - Die: @index held @got where @want was expected. */
__attribute__((noreturn, cold))
static void xab_wrong(const char *row, unsigned long index, const void *got,
		      const void *want)
{
	bench_die("xarray %s: index %#lx holds %p, expected %p", row, index,
		  got, want);
}

/* xab_failed() - Die: an XArray call at @index returned error @err. */
__attribute__((noreturn, cold))
static void xab_failed(const char *row, const char *call, unsigned long index,
		       int err)
{
	bench_die("xarray %s: %s at index %#lx failed: %s", row, call, index,
		  strerror(-err));
}

/* xab_expect() - Die unless @got is @want. */
static inline void xab_expect(const char *row, unsigned long index,
			      const void *got, const void *want)
{
	if (__builtin_expect(got != want, 0))
		xab_wrong(row, index, got, want);
}

/*
 * xab_stored() - Check what a store into an empty range returned: NULL,
 * or else an error or an entry that should not have been there.
 */
static inline void xab_stored(const char *row, const char *call,
			      unsigned long index, void *old)
{
	if (__builtin_expect(old != NULL, 0)) {
		if (xa_is_err(old))
			xab_failed(row, call, index, xa_err(old));
		xab_wrong(row, index, old, NULL);
	}
}

/* xab_store_dense() - xa_store() entries 0..@n-1 into an empty @xa. */
static void xab_store_dense(struct xarray *xa, size_t n, const char *row)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		xab_stored(row, "xa_store", i,
			   xa_store(xa, i, xab_entry(i, 0), GFP_KERNEL));
}

/*
 * xab_store_order() - Store the entry of @order at @index into an empty
 * range: XA_STATE_ORDER, xas_store() under xas_lock(), and the
 * xas_nomem() retry loop, as kernel code does.
 */
static void xab_store_order(struct xarray *xa, unsigned long index,
			    unsigned int order, const char *row)
{
	XA_STATE_ORDER(xas, xa, index, order);
	void *old;

	do {
		xas_lock(&xas);
		old = xas_store(&xas, xab_entry(index, order));
		xas_unlock(&xas);
	} while (xas_nomem(&xas, GFP_KERNEL));
	if (xas_error(&xas))
		xab_failed(row, "xas_store", index, xas_error(&xas));
	xab_stored(row, "xas_store", index, old);
}

/**
 * xab_load_indices() - xa_load() a sequence of indices and check them.
 * @xa: The array.
 * @idx: The indices.
 * @n: How many.
 * @order: Order of the entries stored at them.
 * @row: The row, for messages.
 *
 * Return: @n, the loads.
 */
uint64_t xab_load_indices(struct xarray *xa, const unsigned long *idx,
				 size_t n, unsigned int order, const char *row)
{
	size_t i;

	for (i = 0; i < n; i++)
		xab_expect(row, idx[i], xa_load(xa, idx[i]),
			   xab_entry(idx[i], order));
	return n;
}

/* xab_random_indices() - @n random indices below @bound (0: any). */
static unsigned long *xab_random_indices(uint64_t seed, size_t n,
					 unsigned long bound)
{
	struct bench_rng rng = { .state = seed };
	unsigned long *v = bench_xcalloc(n, sizeof(*v));
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = bound ? bench_rng_below(&rng, bound) :
			bench_rng_next(&rng);
	return v;
}

/**
 * xab_init() - Build the fixtures and index sequences of a run.
 * @b: The state to fill.
 * @scale: The run's sizes.
 *
 * splitmix64 is a bijection of its counter, so the sparse indices are
 * distinct without a check.
 */
void xab_init(struct xa_bench *b, const struct bench_scale *scale)
{
	struct bench_rng rng = { .state = SEED_SPLIT };
	size_t k, i;

	memset(b, 0, sizeof(*b));
	b->scale = scale;
	xa_init(&b->dense);
	xa_init(&b->sparse);
	xa_init(&b->order9);
	xa_init(&b->work);
	b->perm = bench_permutation(SEED_PERM, scale->nr_entries);
	b->sparse_idx = xab_random_indices(SEED_SPARSE, scale->nr_sparse, 0);
	b->order9_idx = xab_random_indices(SEED_ORDER9, scale->nr_entries,
					   scale->nr_order9 << XAB_ORDER);
	b->split_at = bench_xcalloc(scale->nr_splits, sizeof(*b->split_at));
	for (k = 0; k < scale->nr_splits; k++)
		b->split_at[k] = (k << XAB_ORDER) +
			bench_rng_below(&rng, XAB_ORDER_SIZE);

	xab_store_dense(&b->dense, scale->nr_entries, "fixture");
	for (i = 0; i < scale->nr_sparse; i++)
		xab_stored("fixture", "xa_store", b->sparse_idx[i],
			   xa_store(&b->sparse, b->sparse_idx[i],
				    xab_entry(b->sparse_idx[i], 0),
				    GFP_KERNEL));
	for (k = 0; k < scale->nr_order9; k++)
		xab_store_order(&b->order9, k << XAB_ORDER, XAB_ORDER,
				"fixture");
}

/**
 * xab_free() - Destroy the fixtures and free the index sequences.
 * @b: The state.
 */
void xab_free(struct xa_bench *b)
{
	xa_destroy(&b->dense);
	xa_destroy(&b->sparse);
	xa_destroy(&b->order9);
	xa_destroy(&b->work);
	upc_rcu_barrier();
	free(b->perm);
	free(b->sparse_idx);
	free(b->order9_idx);
	free(b->split_at);
}

/**
 * xab_work_destroy() - Teardown of the writing rows: empty @work.
 * @arg: The struct xa_bench.
 */
void xab_work_destroy(void *arg)
{
	struct xa_bench *b = arg;

	xa_destroy(&b->work);
	upc_rcu_barrier();
}

/**
 * xab_store_seq() - store_seq: xa_store() 0..n-1 into an empty array.
 * @arg: The struct xa_bench.
 *
 * Return: The stores.
 */
uint64_t xab_store_seq(void *arg)
{
	struct xa_bench *b = arg;

	xab_store_dense(&b->work, b->scale->nr_entries, "store_seq");
	return b->scale->nr_entries;
}

/**
 * xab_load_seq() - load_seq: xa_load() every dense index in order.
 * @arg: The struct xa_bench.
 *
 * Return: The loads.
 */
uint64_t xab_load_seq(void *arg)
{
	struct xa_bench *b = arg;
	unsigned long i, n = b->scale->nr_entries;

	for (i = 0; i < n; i++)
		xab_expect("load_seq", i, xa_load(&b->dense, i),
			   xab_entry(i, 0));
	return n;
}

/**
 * xab_load_random() - load_random: xa_load() every dense index, shuffled.
 * @arg: The struct xa_bench.
 *
 * Return: The loads.
 */
uint64_t xab_load_random(void *arg)
{
	struct xa_bench *b = arg;

	return xab_load_indices(&b->dense, b->perm, b->scale->nr_entries, 0,
				"load_random");
}

/**
 * xab_erase_setup() - Fill @work densely for erase_seq.
 * @arg: The struct xa_bench.
 */
void xab_erase_setup(void *arg)
{
	struct xa_bench *b = arg;

	xab_store_dense(&b->work, b->scale->nr_entries, "erase_seq");
}

/**
 * xab_erase_seq() - erase_seq: xa_erase() 0..n-1 in order.
 * @arg: The struct xa_bench.
 *
 * Return: The erases.
 */
uint64_t xab_erase_seq(void *arg)
{
	struct xa_bench *b = arg;
	unsigned long i, n = b->scale->nr_entries;

	for (i = 0; i < n; i++)
		xab_expect("erase_seq", i, xa_erase(&b->work, i),
			   xab_entry(i, 0));
	return n;
}

/**
 * xab_erase_check() - Teardown of erase_seq: the array must be empty.
 * @arg: The struct xa_bench.
 */
void xab_erase_check(void *arg)
{
	struct xa_bench *b = arg;

	if (!xa_empty(&b->work))
		bench_die("xarray erase_seq: array not empty after erasing "
			  "every entry");
	xab_work_destroy(b);
}

/**
 * xab_sparse_store() - sparse_store: xa_store() at random 64-bit indices.
 * @arg: The struct xa_bench.
 *
 * Return: The stores.
 */
uint64_t xab_sparse_store(void *arg)
{
	struct xa_bench *b = arg;
	size_t i, n = b->scale->nr_sparse;

	for (i = 0; i < n; i++) {
		unsigned long index = b->sparse_idx[i];

		xab_stored("sparse_store", "xa_store", index,
			   xa_store(&b->work, index, xab_entry(index, 0),
				    GFP_KERNEL));
	}
	return n;
}

/**
 * xab_sparse_load() - sparse_load: xa_load() every sparse index.
 * @arg: The struct xa_bench.
 *
 * Return: The loads.
 */
uint64_t xab_sparse_load(void *arg)
{
	struct xa_bench *b = arg;

	return xab_load_indices(&b->sparse, b->sparse_idx, b->scale->nr_sparse,
				0, "sparse_load");
}

/* xab_visited() - Check an iteration visited every dense entry. */
static void xab_visited(const char *row, uint64_t seen, size_t n)
{
	if (seen != n)
		bench_die("xarray %s: visited %llu entries of %zu", row,
			  (unsigned long long)seen, n);
}

/**
 * xab_xas_for_each() - xas_for_each: walk the dense array under RCU.
 * @arg: The struct xa_bench.
 *
 * Return: The entries visited.
 */
uint64_t xab_xas_for_each(void *arg)
{
	struct xa_bench *b = arg;
	XA_STATE(xas, &b->dense, 0);
	uint64_t seen = 0;
	void *entry;

	upc_rcu_read_lock();
	xas_for_each(&xas, entry, ULONG_MAX) {
		if (xas_retry(&xas, entry))
			continue;
		xab_expect("xas_for_each", xas.xa_index, entry,
			   xab_entry(xas.xa_index, 0));
		seen++;
	}
	upc_rcu_read_unlock();
	xab_visited("xas_for_each", seen, b->scale->nr_entries);
	return seen;
}

/**
 * xab_xa_for_each() - xa_for_each: walk the dense array, normal API.
 * @arg: The struct xa_bench.
 *
 * Return: The entries visited.
 */
uint64_t xab_xa_for_each(void *arg)
{
	struct xa_bench *b = arg;
	unsigned long index;
	uint64_t seen = 0;
	void *entry;

	xa_for_each(&b->dense, index, entry) {
		xab_expect("xa_for_each", index, entry, xab_entry(index, 0));
		seen++;
	}
	xab_visited("xa_for_each", seen, b->scale->nr_entries);
	return seen;
}

/**
 * xab_order9_store() - order9_store: store order-9 entries side by side.
 * @arg: The struct xa_bench.
 *
 * Return: The stores.
 */
uint64_t xab_order9_store(void *arg)
{
	struct xa_bench *b = arg;
	size_t k, n = b->scale->nr_order9;

	for (k = 0; k < n; k++)
		xab_store_order(&b->work, k << XAB_ORDER, XAB_ORDER,
				"order9_store");
	return n;
}

/**
 * xab_order9_load_random() - order9_load_random: xa_load() at random
 * indices inside order-9 entries.
 * @arg: The struct xa_bench.
 *
 * Return: The loads.
 */
uint64_t xab_order9_load_random(void *arg)
{
	struct xa_bench *b = arg;

	return xab_load_indices(&b->order9, b->order9_idx,
				b->scale->nr_entries, XAB_ORDER,
				"order9_load_random");
}

/**
 * xab_split_setup() - Fill @work with nr_splits order-9 entries.
 * @arg: The struct xa_bench.
 */
void xab_split_setup(void *arg)
{
	struct xa_bench *b = arg;
	size_t k;

	for (k = 0; k < b->scale->nr_splits; k++)
		xab_store_order(&b->work, k << XAB_ORDER, XAB_ORDER, "split");
}

/**
 * xab_split_order9() - split_order9: split each order-9 entry to order 0.
 * @arg: The struct xa_bench.
 *
 * The page cache's way: xas_split_alloc() allocates the nodes outside the
 * lock, xas_split() installs them under it.
 *
 * Return: The splits.
 */
uint64_t xab_split_order9(void *arg)
{
	struct xa_bench *b = arg;
	size_t k, n = b->scale->nr_splits;

	for (k = 0; k < n; k++) {
		unsigned long index = k << XAB_ORDER;
		void *entry = xab_entry(index, XAB_ORDER);
		XA_STATE_ORDER(xas, &b->work, index, 0);

		xas_split_alloc(&xas, entry, XAB_ORDER, GFP_KERNEL);
		if (xas_error(&xas))
			xab_failed("split_order9", "xas_split_alloc", index,
				   xas_error(&xas));
		xas_lock(&xas);
		xas_split(&xas, entry, XAB_ORDER);
		xas_unlock(&xas);
		if (xas_error(&xas))
			xab_failed("split_order9", "xas_split", index,
				   xas_error(&xas));
		xas_destroy(&xas);
	}
	return n;
}

/**
 * xab_try_split_order9() - try_split_order9: split each order-9 entry
 * down to an order-0 entry at a random index in it.
 * @arg: The struct xa_bench.
 *
 * The non-uniform split of a large folio in one call: the entry holding
 * the target becomes order 0 and the rest of the old entry the largest
 * aligned pieces around it (orders 0 to 8).  Needs one new node, taken
 * without waiting under the lock; when that fails the lock is dropped for
 * xas_nomem() and the split tried again.
 *
 * Return: The splits.
 */
uint64_t xab_try_split_order9(void *arg)
{
	struct xa_bench *b = arg;
	size_t k, n = b->scale->nr_splits;

	for (k = 0; k < n; k++) {
		unsigned long target = b->split_at[k];
		void *entry = xab_entry(target, XAB_ORDER);
		XA_STATE(xas, &b->work, target);

		do {
			xas_lock(&xas);
			xas_try_split(&xas, entry, XAB_ORDER);
			xas_unlock(&xas);
		} while (xas_nomem(&xas, GFP_KERNEL));
		if (xas_error(&xas))
			xab_failed("try_split_order9", "xas_try_split", target,
				   xas_error(&xas));
	}
	return n;
}

/*
 * xab_check_order() - Check the entry covering @index: it holds @entry
 * and has @order.
 */
static void xab_check_order(struct xarray *xa, unsigned long index,
			    void *entry, int order, const char *row)
{
	int got = xa_get_order(xa, index);

	xab_expect(row, index, xa_load(xa, index), entry);
	if (got != order)
		bench_die("xarray %s: index %#lx has order %d, expected %d",
			  row, index, got, order);
}

/**
 * xab_split_check() - Teardown of split_order9: check, then empty @work.
 * @arg: The struct xa_bench.
 *
 * Every index of a split entry still holds the old entry, at order 0.
 */
void xab_split_check(void *arg)
{
	struct xa_bench *b = arg;
	unsigned long index;
	size_t k;

	for (k = 0; k < b->scale->nr_splits; k++) {
		index = k << XAB_ORDER;
		xab_check_order(&b->work, index, xab_entry(index, XAB_ORDER),
				0, "split_order9");
		xab_check_order(&b->work, index + XAB_ORDER_SIZE - 1,
				xab_entry(index, XAB_ORDER), 0,
				"split_order9");
	}
	xab_work_destroy(b);
}

/**
 * xab_try_split_check() - Teardown of try_split_order9: check, then
 * empty @work.
 * @arg: The struct xa_bench.
 *
 * The target is order 0 and its buddy at each order o is still one entry
 * of order o (the untouched half of every step).
 */
void xab_try_split_check(void *arg)
{
	struct xa_bench *b = arg;
	unsigned int order;
	size_t k;

	for (k = 0; k < b->scale->nr_splits; k++) {
		unsigned long target = b->split_at[k];
		void *entry = xab_entry(target, XAB_ORDER);

		xab_check_order(&b->work, target, entry, 0,
				"try_split_order9");
		for (order = 0; order < XAB_ORDER; order++)
			xab_check_order(&b->work, target ^ (1UL << order),
					entry, (int)order, "try_split_order9");
	}
	xab_work_destroy(b);
}

/**
 * xab_conflict_setup() - Fill nr_conflicts order-9 ranges of @work with
 * 512 order-0 entries each.
 * @arg: The struct xa_bench.
 */
void xab_conflict_setup(void *arg)
{
	struct xa_bench *b = arg;

	xab_store_dense(&b->work, b->scale->nr_conflicts << XAB_ORDER,
			"conflict_scan");
}

/**
 * xab_conflict_scan() - conflict_scan: per order-9 range, visit the 512
 * order-0 entries with xas_for_each_conflict(), then store one order-9
 * entry over them.
 * @arg: The struct xa_bench.
 *
 * What adding a large folio over small shadows does in the page cache.
 *
 * Return: The scan-and-store operations.
 */
uint64_t xab_conflict_scan(void *arg)
{
	struct xa_bench *b = arg;
	size_t k, n = b->scale->nr_conflicts;
	unsigned long seen;
	void *entry;

	for (k = 0; k < n; k++) {
		unsigned long index = k << XAB_ORDER;
		XA_STATE_ORDER(xas, &b->work, index, XAB_ORDER);

		do {
			seen = 0;
			xas_lock(&xas);
			xas_for_each_conflict(&xas, entry)
				seen++;
			xas_store(&xas, xab_entry(index, XAB_ORDER));
			xas_unlock(&xas);
		} while (xas_nomem(&xas, GFP_KERNEL));
		if (xas_error(&xas))
			xab_failed("conflict_scan", "xas_store", index,
				   xas_error(&xas));
		if (seen != XAB_ORDER_SIZE)
			bench_die("xarray conflict_scan: %lu conflicts in "
				  "range %#lx, expected %lu", seen, index,
				  XAB_ORDER_SIZE);
	}
	return n;
}

/**
 * xab_conflict_check() - Teardown of conflict_scan: check, then empty
 * @work.
 * @arg: The struct xa_bench.
 */
void xab_conflict_check(void *arg)
{
	struct xa_bench *b = arg;
	unsigned long index;
	size_t k;

	for (k = 0; k < b->scale->nr_conflicts; k++) {
		index = k << XAB_ORDER;
		xab_check_order(&b->work, index + 1,
				xab_entry(index, XAB_ORDER), XAB_ORDER,
				"conflict_scan");
	}
	xab_work_destroy(b);
}
