// SPDX-License-Identifier: MIT
/*
 * tests/lib/test_xarray_fault.c - the XArray when node allocation fails.
 *
 * This file owns the fault-injection tests.  Each scenario is an XArray
 * operation that allocates nodes (a store into an empty or sparse array,
 * multi-index stores, xa_store_range(), xas_create_range(), splits,
 * xa_alloc(), GFP_NOWAIT paths, and the raw advanced calls without an
 * xas_nomem() retry, xas_split() with and without xas_split_alloc()).  For n = 1, 2, 3 ... the n-th allocation attempt
 * is made to fail (lib/fault.h: upc_fault_fail_nth()), the scenario runs
 * on a freshly built array, and then:
 *
 *   - the operation returned 0 or -ENOMEM, and 0 if nothing failed;
 *   - the array holds exactly what the model says: the new contents on
 *     success, the old ones on -ENOMEM (for xa_store_range(), each
 *     aligned piece of the range wholly old or wholly new), and then in
 *     as many nodes as before: every node a failed operation made is
 *     gone again, levels added on top included;
 *   - upc_check_xarray() finds the tree sound (in particular no empty
 *     node is left behind by a failed allocation);
 *   - after xa_destroy() this thread has freed every node it allocated
 *     (upc_stats_thread(): xa_node_allocs - xa_node_frees is back where
 *     it was while the array was empty).
 *
 * The loop ends when a run makes fewer than n attempts, so every
 * allocation point of every scenario fails once.  test_fault_injector_contract
 * checks the injector itself: which attempts fail, and what it counts.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <upcache/check.h>
#include <upcache/stats.h>
#include <upcache/xarray.h>

#include "fault.h"
#include "xa_harness.h"
#include "xa_model.h"
#include "xa_test.h"

/* struct fctx - what a scenario's run reports beyond its return value. */
struct fctx {
	uint32_t id;
	uint32_t next;
};

/**
 * struct fault_case - one scenario.
 * @name: For messages.
 * @flags: XA_FLAGS_* of the array.
 * @setup: Builds the initial contents through the harness (model kept).
 * @run: The operation under test; returns 0 or a negative errno.
 * @expect: Applies the operation to the model (what success means).
 * @partial: A failure may leave pieces of the range stored
 *	(xa_store_range()): @range_first..@range_last with @range_entry.
 * @allocates: The scenario must make at least one allocation attempt.
 * @raw: No retry: when its first allocation fails it must fail.
 */
struct fault_case {
	const char *name;
	gfp_t flags;
	void (*setup)(struct xa_harness *h);
	int (*run)(struct xarray *xa, struct fctx *c);
	void (*expect)(struct xa_model *m, struct fctx *c);
	bool partial;
	unsigned long range_first, range_last;
	void *range_entry;
	bool allocates;
	bool raw;
};

/* ---- building blocks ---------------------------------------------------- */

static void put(struct xa_harness *h, unsigned long index, unsigned int order,
		void *entry)
{
	struct xah_op op = { .kind = XAH_STORE_ORDER, .index = index,
			     .order = (uint8_t)order, .entry = entry };

	assert_int_equal(xah_apply(h, &op), 0);
}

static void mark(struct xa_harness *h, unsigned long index, xa_mark_t m)
{
	struct xah_op op = { .kind = XAH_SET_MARK, .index = index,
			     .arg = (uint8_t)m };

	assert_int_equal(xah_apply(h, &op), 0);
}

static void *val(unsigned long index)
{
	return xa_mk_value(index & 0xffffffffUL);
}

/* The raw advanced store, no retry: -ENOMEM when a node is missing. */
static int store_order_once(struct xarray *xa, unsigned long index,
			    unsigned int order, void *entry)
{
	XA_STATE_ORDER(xas, xa, index, order);
	int err;

	xas_lock(&xas);
	xas_store(&xas, entry);
	xas_unlock(&xas);
	err = xas_error(&xas);
	xas_destroy(&xas);
	return err;
}

/* The advanced store in an xas_nomem() loop with @gfp. */
static int store_order_loop(struct xarray *xa, unsigned long index,
			    unsigned int order, void *entry, gfp_t gfp)
{
	XA_STATE_ORDER(xas, xa, index, order);

	do {
		xas_lock(&xas);
		xas_store(&xas, entry);
		xas_unlock(&xas);
	} while (xas_nomem(&xas, gfp));
	return xas_error(&xas);
}

static void setup_empty(struct xa_harness *h)
{
	(void)h;
}

/* A few scattered entries, one multi-index, with marks. */
static void setup_sparse(struct xa_harness *h)
{
	put(h, 0, 0, val(0));
	put(h, 3, 0, val(3));
	put(h, 70, 0, (void *)0x1000);
	put(h, 1UL << 20, 0, val(1UL << 20));
	put(h, (1UL << 20) + 64, 4, val(5));
	mark(h, 3, XA_MARK_1);
	mark(h, (1UL << 20) + 70, XA_MARK_2);
}

#define SPARSE_FAR	((1UL << 50) + 7)
#define BIG_INDEX	((1UL << 40) | 5)

/* ---- scenarios ------------------------------------------------------------ */

static int run_store_far(struct xarray *xa, struct fctx *c)
{
	(void)c;
	return xa_err(xa_store(xa, BIG_INDEX, val(BIG_INDEX), GFP_KERNEL));
}

static void expect_store_far(struct xa_model *m, struct fctx *c)
{
	(void)c;
	xa_model_store(m, BIG_INDEX, val(BIG_INDEX));
}

static int run_store_sparse(struct xarray *xa, struct fctx *c)
{
	(void)c;
	return xa_err(xa_store(xa, SPARSE_FAR, val(SPARSE_FAR), GFP_KERNEL));
}

static int run_store_sparse_nowait(struct xarray *xa, struct fctx *c)
{
	(void)c;
	return xa_err(xa_store(xa, SPARSE_FAR, val(SPARSE_FAR), GFP_NOWAIT));
}

static int run_store_sparse_raw(struct xarray *xa, struct fctx *c)
{
	(void)c;
	return store_order_once(xa, SPARSE_FAR, 0, val(SPARSE_FAR));
}

static void expect_store_sparse(struct xa_model *m, struct fctx *c)
{
	(void)c;
	xa_model_store(m, SPARSE_FAR, val(SPARSE_FAR));
}

static int run_insert_nowait(struct xarray *xa, struct fctx *c)
{
	(void)c;
	return xa_insert(xa, SPARSE_FAR, val(1), GFP_NOWAIT);
}

static void expect_insert(struct xa_model *m, struct fctx *c)
{
	(void)c;
	xa_model_insert(m, SPARSE_FAR, val(1));
}

static int run_reserve_nowait(struct xarray *xa, struct fctx *c)
{
	(void)c;
	return xa_reserve(xa, SPARSE_FAR, GFP_NOWAIT);
}

static void expect_reserve(struct xa_model *m, struct fctx *c)
{
	(void)c;
	xa_model_cmpxchg(m, SPARSE_FAR, NULL, XA_ZERO_ENTRY);
}

static int run_cmpxchg_nowait(struct xarray *xa, struct fctx *c)
{
	(void)c;
	return xa_err(xa_cmpxchg(xa, SPARSE_FAR, NULL, val(2), GFP_NOWAIT));
}

static void expect_cmpxchg(struct xa_model *m, struct fctx *c)
{
	(void)c;
	xa_model_cmpxchg(m, SPARSE_FAR, NULL, val(2));
}

/*
 * Multi-index: an order-13 store over a small tree (entries, marks) must
 * grow it by a level; an order-9 store far away needs a new subtree.
 */
static void setup_multi(struct xa_harness *h)
{
	put(h, 3, 0, val(3));
	put(h, 70, 0, (void *)0x1000);
	put(h, 600, 2, val(600));
	put(h, 4000, 0, val(4000));
	mark(h, 70, XA_MARK_1);
	mark(h, 4000, XA_MARK_0);
}

#define MULTI_FAR	((1UL << 28) + 512)

static int run_multi(struct xarray *xa, struct fctx *c)
{
	(void)c;
	return store_order_loop(xa, 0, 13, val(13), GFP_KERNEL);
}

static int run_multi_nowait(struct xarray *xa, struct fctx *c)
{
	(void)c;
	return store_order_loop(xa, 0, 13, val(13), GFP_NOWAIT);
}

static int run_multi_raw(struct xarray *xa, struct fctx *c)
{
	(void)c;
	return store_order_once(xa, 0, 13, val(13));
}

static void expect_multi(struct xa_model *m, struct fctx *c)
{
	(void)c;
	xa_model_store_order(m, 0, 13, val(13), NULL);
}

static int run_multi_subtree(struct xarray *xa, struct fctx *c)
{
	(void)c;
	return store_order_loop(xa, MULTI_FAR, 9, val(9), GFP_KERNEL);
}

static int run_multi_subtree_raw(struct xarray *xa, struct fctx *c)
{
	(void)c;
	return store_order_once(xa, MULTI_FAR, 9, val(9));
}

static void expect_multi_subtree(struct xa_model *m, struct fctx *c)
{
	(void)c;
	xa_model_store_order(m, MULTI_FAR, 9, val(9), NULL);
}

/* Order 14 far away, and order 64 over everything. */
static int run_multi_far(struct xarray *xa, struct fctx *c)
{
	(void)c;
	return store_order_loop(xa, 3UL << 44, 14, val(14), GFP_KERNEL);
}

static void expect_multi_far(struct xa_model *m, struct fctx *c)
{
	(void)c;
	xa_model_store_order(m, 3UL << 44, 14, val(14), NULL);
}

static int run_multi_all(struct xarray *xa, struct fctx *c)
{
	(void)c;
	return store_order_once(xa, 0, BITS_PER_LONG, val(64));
}

static void expect_multi_all(struct xa_model *m, struct fctx *c)
{
	(void)c;
	xa_model_store_order(m, 0, BITS_PER_LONG, val(64), NULL);
}

#define RANGE_FIRST	100UL
#define RANGE_LAST	100000UL
#define RANGE_ENTRY	((void *)((77UL << 1) | 1))	/* xa_mk_value(77) */

static int run_range(struct xarray *xa, struct fctx *c)
{
	(void)c;
	return xa_err(xa_store_range(xa, RANGE_FIRST, RANGE_LAST, RANGE_ENTRY,
				     GFP_KERNEL));
}

static int run_range_nowait(struct xarray *xa, struct fctx *c)
{
	(void)c;
	return xa_err(xa_store_range(xa, RANGE_FIRST, RANGE_LAST, RANGE_ENTRY,
				     GFP_NOWAIT));
}

static void expect_range(struct xa_model *m, struct fctx *c)
{
	(void)c;
	xa_model_store_range(m, RANGE_FIRST, RANGE_LAST, RANGE_ENTRY);
}

/*
 * xas_create_range() for order 9, then a value in every index: inside
 * the tree's reach, and far up, where it first adds levels on top.
 */
#define CREATE_FIRST	((1UL << 20) + 4096)
#define CREATE_FAR	((1UL << 30) + 4096)

static int create_and_fill(struct xarray *xa, unsigned long first, bool retry)
{
	XA_STATE_ORDER(xas, xa, first, 9);
	unsigned long i;

	for (;;) {
		xas_lock(&xas);
		xas_create_range(&xas);
		if (!xas_error(&xas))
			break;
		xas_unlock(&xas);
		if (!retry || !xas_nomem(&xas, GFP_KERNEL)) {
			xas_destroy(&xas);
			return xas_error(&xas) ? xas_error(&xas) : -ENOMEM;
		}
	}
	for (i = 0; i < 512; i++) {
		if (xas.xa_index != first + i) {
			xas_unlock(&xas);
			xas_destroy(&xas);
			return -EIO;
		}
		xas_store(&xas, val(first + i));
		if (xas_error(&xas))
			break;
		xas_next(&xas);
	}
	xas_unlock(&xas);
	xas_destroy(&xas);
	return i == 512 ? 0 : -EIO;
}

static void setup_create(struct xa_harness *h)
{
	setup_sparse(h);
	put(h, CREATE_FIRST - 1, 0, val(1));
	put(h, CREATE_FIRST + 512, 0, val(2));
	put(h, CREATE_FIRST + 100, 0, val(3));
}

static int run_create(struct xarray *xa, struct fctx *c)
{
	(void)c;
	return create_and_fill(xa, CREATE_FIRST, true);
}

static int run_create_raw(struct xarray *xa, struct fctx *c)
{
	(void)c;
	return create_and_fill(xa, CREATE_FIRST, false);
}

static int run_create_far_raw(struct xarray *xa, struct fctx *c)
{
	(void)c;
	return create_and_fill(xa, CREATE_FAR, false);
}

static void expect_filled(struct xa_model *m, unsigned long first)
{
	unsigned long i;

	for (i = 0; i < 512; i++)
		xa_model_store(m, first + i, val(first + i));
}

static void expect_create(struct xa_model *m, struct fctx *c)
{
	(void)c;
	expect_filled(m, CREATE_FIRST);
}

static void expect_create_far(struct xa_model *m, struct fctx *c)
{
	(void)c;
	expect_filled(m, CREATE_FAR);
}

/* Splits: an order-12 entry (and an order-18 one) with marks. */
#define SPLIT_AT	(4096UL * 5)
#define SPLIT18_AT	(1UL << 30)

static void setup_split(struct xa_harness *h)
{
	setup_sparse(h);
	put(h, SPLIT_AT, 12, val(12));
	mark(h, SPLIT_AT + 3, XA_MARK_1);
	put(h, SPLIT_AT + 4096, 0, val(4));
	put(h, SPLIT18_AT, 18, (void *)0x1800);
	mark(h, SPLIT18_AT, XA_MARK_2);
}

/*
 * split_uniform() - xas_split_alloc() then xas_split() of the entry at
 * @index, order @order, into order @new.  @reset: ignore a failed
 * preallocation and split anyway (which must then fail and change
 * nothing).
 */
static int split_uniform(struct xarray *xa, unsigned long index,
			 unsigned int order, unsigned int new, void *entry,
			 bool reset)
{
	XA_STATE_ORDER(xas, xa, index, new);
	int err;

	xas_split_alloc(&xas, entry, order, GFP_KERNEL);
	err = xas_error(&xas);
	if (err && !reset) {
		xas_destroy(&xas);
		return err;
	}
	xas_reset(&xas);
	xas_lock(&xas);
	xas_split(&xas, entry, order);
	xas_unlock(&xas);
	err = xas_error(&xas);
	xas_destroy(&xas);
	return err;
}

static int run_split(struct xarray *xa, struct fctx *c)
{
	(void)c;
	return split_uniform(xa, SPLIT_AT, 12, 0, val(12), false);
}

static void expect_split(struct xa_model *m, struct fctx *c)
{
	(void)c;
	xa_model_split(m, SPLIT_AT, 0, val(12));
}

static int run_split_noprealloc(struct xarray *xa, struct fctx *c)
{
	(void)c;
	return split_uniform(xa, SPLIT_AT, 12, 4, val(12), true);
}

static void expect_split_noprealloc(struct xa_model *m, struct fctx *c)
{
	(void)c;
	xa_model_split(m, SPLIT_AT, 4, val(12));
}

/* xas_split() with no xas_split_alloc(): once, or in an xas_nomem() loop. */
static int split_bare(struct xarray *xa, bool retry)
{
	XA_STATE_ORDER(xas, xa, SPLIT_AT, 0);

	do {
		xas_lock(&xas);
		xas_split(&xas, val(12), 12);
		xas_unlock(&xas);
	} while (retry && xas_nomem(&xas, GFP_KERNEL));
	if (!retry)
		xas_destroy(&xas);
	return xas_error(&xas);
}

static int run_split_bare(struct xarray *xa, struct fctx *c)
{
	(void)c;
	return split_bare(xa, false);
}

static int run_split_bare_retry(struct xarray *xa, struct fctx *c)
{
	(void)c;
	return split_bare(xa, true);
}

static int run_split18(struct xarray *xa, struct fctx *c)
{
	(void)c;
	return split_uniform(xa, SPLIT18_AT + 4096 * 7, 18, 9, (void *)0x1800,
			     false);
}

static void expect_split18(struct xa_model *m, struct fctx *c)
{
	(void)c;
	xa_model_split(m, SPLIT18_AT + 4096 * 7, 9, (void *)0x1800);
}

/* xas_try_split() in an xas_nomem() loop (or once, with @gfp 0). */
static int try_split(struct xarray *xa, unsigned long index,
		     unsigned int order, unsigned int new, void *entry,
		     bool retry, gfp_t gfp)
{
	XA_STATE_ORDER(xas, xa, index, new);

	do {
		xas_lock(&xas);
		xas_try_split(&xas, entry, order);
		xas_unlock(&xas);
	} while (retry && xas_nomem(&xas, gfp));
	if (!retry)
		xas_destroy(&xas);
	return xas_error(&xas);
}

static int run_try_split(struct xarray *xa, struct fctx *c)
{
	(void)c;
	return try_split(xa, SPLIT_AT + 5, 12, 0, val(12), true, GFP_KERNEL);
}

static int run_try_split_nowait(struct xarray *xa, struct fctx *c)
{
	(void)c;
	return try_split(xa, SPLIT_AT + 5, 12, 0, val(12), true, GFP_NOWAIT);
}

static int run_try_split_raw(struct xarray *xa, struct fctx *c)
{
	(void)c;
	return try_split(xa, SPLIT_AT + 5, 12, 0, val(12), false, 0);
}

static void expect_try_split(struct xa_model *m, struct fctx *c)
{
	(void)c;
	xa_model_try_split(m, SPLIT_AT + 5, 0, 12, val(12));
}

static int run_try_split18(struct xarray *xa, struct fctx *c)
{
	(void)c;
	return try_split(xa, SPLIT18_AT + 77777, 18, 1, (void *)0x1800, true,
			 GFP_KERNEL);
}

static void expect_try_split18(struct xa_model *m, struct fctx *c)
{
	(void)c;
	xa_model_try_split(m, SPLIT18_AT + 77776, 1, 18, (void *)0x1800);
}

/* Allocating arrays: a full first leaf, and ids far up. */
static void setup_alloc(struct xa_harness *h)
{
	struct xah_op op = { .kind = XAH_STORE };
	unsigned long i;

	for (i = 0; i < XA_CHUNK_SIZE; i++) {
		op.index = h->flags & XA_FLAGS_ZERO_BUSY ? i + 1 : i;
		op.entry = val(i);
		assert_int_equal(xah_apply(h, &op), 0);
	}
	op.index = 1UL << 31;
	assert_int_equal(xah_apply(h, &op), 0);
	mark(h, 5, XA_MARK_1);
}

static int run_alloc(struct xarray *xa, struct fctx *c)
{
	return xa_alloc(xa, &c->id, val(99), XA_LIMIT(0, 1000), GFP_KERNEL);
}

static void expect_alloc(struct xa_model *m, struct fctx *c)
{
	xa_model_alloc(m, &c->id, val(99), XA_LIMIT(0, 1000));
}

static int run_alloc_high(struct xarray *xa, struct fctx *c)
{
	return xa_alloc(xa, &c->id, NULL, XA_LIMIT(3U << 30, UINT32_MAX),
			GFP_KERNEL);
}

static void expect_alloc_high(struct xa_model *m, struct fctx *c)
{
	xa_model_alloc(m, &c->id, NULL, XA_LIMIT(3U << 30, UINT32_MAX));
}

static int run_alloc_cyclic(struct xarray *xa, struct fctx *c)
{
	int ret;

	c->next = 200;
	ret = xa_alloc_cyclic(xa, &c->id, val(7), XA_LIMIT(0, 1000), &c->next,
			      GFP_NOWAIT);
	return ret < 0 ? ret : 0;
}

static void expect_alloc_cyclic(struct xa_model *m, struct fctx *c)
{
	c->next = 200;
	xa_model_alloc_cyclic(m, &c->id, val(7), XA_LIMIT(0, 1000), &c->next);
}

static const struct fault_case cases[] = {
	{ "store far into empty", 0, setup_empty, run_store_far,
	  expect_store_far, .allocates = true },
	{ "sparse store", 0, setup_sparse, run_store_sparse,
	  expect_store_sparse, .allocates = true },
	{ "sparse store, GFP_NOWAIT", 0, setup_sparse, run_store_sparse_nowait,
	  expect_store_sparse, .allocates = true },
	{ "sparse store, raw xas_store", 0, setup_sparse, run_store_sparse_raw,
	  expect_store_sparse, .allocates = true, .raw = true },
	{ "insert, GFP_NOWAIT", 0, setup_sparse, run_insert_nowait,
	  expect_insert, .allocates = true },
	{ "reserve, GFP_NOWAIT", 0, setup_sparse, run_reserve_nowait,
	  expect_reserve, .allocates = true },
	{ "cmpxchg, GFP_NOWAIT", 0, setup_sparse, run_cmpxchg_nowait,
	  expect_cmpxchg, .allocates = true },
	{ "order-13 store over a small tree", 0, setup_multi, run_multi, expect_multi,
	  .allocates = true },
	{ "order-13 store over a small tree, xas_nomem(GFP_NOWAIT)", 0, setup_multi,
	  run_multi_nowait, expect_multi, .allocates = true },
	{ "order-13 store over a small tree, raw", 0, setup_multi, run_multi_raw,
	  expect_multi, .allocates = true, .raw = true },
	{ "order-9 store into a new subtree", 0, setup_sparse,
	  run_multi_subtree, expect_multi_subtree, .allocates = true },
	{ "order-9 store into a new subtree, raw", 0, setup_sparse,
	  run_multi_subtree_raw, expect_multi_subtree, .allocates = true,
	  .raw = true },
	{ "order-14 store far away", 0, setup_multi, run_multi_far,
	  expect_multi_far, .allocates = true },
	{ "store_range", 0, setup_sparse, run_range, expect_range,
	  .partial = true, .range_first = RANGE_FIRST,
	  .range_last = RANGE_LAST, .range_entry = RANGE_ENTRY,
	  .allocates = true },
	{ "store_range, GFP_NOWAIT", 0, setup_sparse, run_range_nowait,
	  expect_range, .partial = true, .range_first = RANGE_FIRST,
	  .range_last = RANGE_LAST, .range_entry = RANGE_ENTRY,
	  .allocates = true },
	{ "xas_create_range", 0, setup_create, run_create, expect_create,
	  .allocates = true },
	{ "xas_create_range, no retry", 0, setup_create, run_create_raw,
	  expect_create, .allocates = true, .raw = true },
	{ "xas_create_range far up, no retry", 0, setup_sparse,
	  run_create_far_raw, expect_create_far, .allocates = true,
	  .raw = true },
	{ "xas_split 12 -> 0", 0, setup_split, run_split, expect_split,
	  .allocates = true },
	{ "xas_split 12 -> 4, split even if preallocation failed", 0,
	  setup_split, run_split_noprealloc, expect_split_noprealloc,
	  .allocates = true },
	{ "xas_split 18 -> 9", 0, setup_split, run_split18, expect_split18,
	  .allocates = true },
	{ "xas_split 12 -> 0 without xas_split_alloc", 0, setup_split,
	  run_split_bare, expect_split, .allocates = true, .raw = true },
	{ "xas_split 12 -> 0 without xas_split_alloc, xas_nomem() loop", 0,
	  setup_split, run_split_bare_retry, expect_split, .allocates = true },
	{ "xas_try_split 12 -> 0", 0, setup_split, run_try_split,
	  expect_try_split, .allocates = true },
	{ "xas_try_split 12 -> 0, xas_nomem(GFP_NOWAIT)", 0, setup_split,
	  run_try_split_nowait, expect_try_split, .allocates = true },
	{ "xas_try_split 12 -> 0, no retry", 0, setup_split,
	  run_try_split_raw, expect_try_split, .allocates = true, .raw = true },
	{ "order-64 store, raw", 0, setup_multi, run_multi_all,
	  expect_multi_all, .allocates = true, .raw = true },
	{ "xas_try_split 18 -> 1", 0, setup_split, run_try_split18,
	  expect_try_split18, .allocates = true },
	{ "xa_alloc", XA_FLAGS_ALLOC, setup_alloc, run_alloc, expect_alloc,
	  .allocates = true },
	{ "xa_alloc far up", XA_FLAGS_ALLOC, setup_alloc, run_alloc_high,
	  expect_alloc_high, .allocates = true },
	{ "xa_alloc_cyclic, GFP_NOWAIT", XA_FLAGS_ALLOC1, setup_alloc,
	  run_alloc_cyclic, expect_alloc_cyclic, .allocates = true },
	{ "xa_alloc_cyclic, GFP_NOWAIT (ALLOC)", XA_FLAGS_ALLOC, setup_alloc,
	  run_alloc_cyclic, expect_alloc_cyclic, .allocates = true },
};

/*
 * check_partial() - After a failed xa_store_range(): every aligned piece
 * of the range is wholly old or wholly new, and nothing else changed.
 */
static int check_partial(const struct fault_case *fc, struct xarray *xa,
			 const struct xa_model *old)
{
	unsigned long first = fc->range_first;
	struct xa_model mixed;
	int ret;

	xa_model_copy(&mixed, old);
	for (;;) {
		unsigned int order = xa_model_range_piece(first, fc->range_last);
		unsigned long end = xa_model_range_last(first, order);

		if (xa_load(xa, first) == fc->range_entry)
			xa_model_store_order(&mixed, first, order,
					     fc->range_entry, NULL);
		if (end >= fc->range_last)
			break;
		first = end + 1;
	}
	ret = xah_compare(xa, &mixed, false);
	xa_model_fini(&mixed);
	return ret;
}

/*
 * run_case_nth() - Build, fail the @n-th allocation, run, check.
 * Return: The number of allocation attempts the run made.
 */
static unsigned long run_case_nth(const struct fault_case *fc,
				  unsigned long n, unsigned int *nr_enomem)
{
	struct fctx c = { 0 }, mc = { 0 };
	struct xa_model old, new;
	struct xa_harness h;
	unsigned long attempts;
	int64_t live;
	bool injected;
	int ret;

	xah_init(&h, fc->flags, 0);
	h.verify_every = 1;
	fc->setup(&h);
	xa_model_copy(&old, &h.m);
	xa_model_copy(&new, &h.m);
	fc->expect(&new, &mc);

	live = xat_nodes_live();
	upc_fault_fail_nth(n);
	ret = fc->run(&h.xa, &c);
	attempts = upc_fault_attempts();
	injected = upc_fault_injected();
	upc_fault_fail_nth(0);

	if (ret != 0 && ret != -ENOMEM)
		fail_msg("%s, fail #%lu: returned %d", fc->name, n, ret);
	if (!injected && ret)
		fail_msg("%s, fail #%lu: returned %d though no allocation failed",
			 fc->name, n, ret);
	if (ret == 0) {
		if (xah_compare(&h.xa, &new, false))
			fail_msg("%s, fail #%lu: succeeded, but the contents are wrong",
				 fc->name, n);
		if (c.id != mc.id || c.next != mc.next)
			fail_msg("%s, fail #%lu: id %u next %u, expected %u and %u",
				 fc->name, n, c.id, c.next, mc.id, mc.next);
	} else {
		(*nr_enomem)++;
		if (fc->partial ? check_partial(fc, &h.xa, &old) :
		    xah_compare(&h.xa, &old, false))
			fail_msg("%s, fail #%lu: -ENOMEM, but the old contents changed",
				 fc->name, n);
		if (!fc->partial && xat_nodes_live() != live)
			fail_msg("%s, fail #%lu: -ENOMEM, but %lld node(s) more "
				 "than before", fc->name, n,
				 (long long)(xat_nodes_live() - live));
	}
	if (upc_check_xarray(&h.xa))
		fail_msg("%s, fail #%lu (returned %d): broken invariant",
			 fc->name, n, ret);

	xa_destroy(&h.xa);
	if (xat_nodes_live() != h.node_base)
		fail_msg("%s, fail #%lu (returned %d): %lld node(s) leaked",
			 fc->name, n, ret,
			 (long long)(xat_nodes_live() - h.node_base));
	xa_model_fini(&h.m);
	xa_model_fini(&old);
	xa_model_fini(&new);
	return attempts;
}

static void run_case(const struct fault_case *fc)
{
	unsigned long n, attempts = 0;
	unsigned int nr_enomem = 0;

	for (n = 1;; n++) {
		attempts = run_case_nth(fc, n, &nr_enomem);
		if (attempts < n)
			break;
		if (n > 100000)
			fail_msg("%s: more than 100000 allocation attempts",
				 fc->name);
	}
	if (fc->allocates && n == 1)
		fail_msg("%s: made no allocation attempt", fc->name);
	fprintf(stderr, "# %s: %lu allocation points, %u runs failed with -ENOMEM\n",
		fc->name, n - 1, nr_enomem);
}

static void test_xarray_fault_scenarios(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
}

/*
 * The raw scenarios cannot retry: when their first allocation fails they
 * must report -ENOMEM (this is what proves the injector reaches them).
 */
static void test_xarray_fault_raw_fails(void **state)
{
	unsigned int nr_enomem = 0, nr_raw = 0, before;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (!cases[i].raw)
			continue;
		nr_raw++;
		before = nr_enomem;
		run_case_nth(&cases[i], 1, &nr_enomem);
		if (nr_enomem == before)
			fail_msg("%s: first allocation failed, yet it succeeded",
				 cases[i].name);
	}
	assert_int_equal(nr_raw, 8);
}

/*
 * xas_split() without xas_split_alloc() builds what it needs under the
 * lock (GFP_NOWAIT): with nothing failing it succeeds, leaks nothing and
 * leaves a sound tree.
 */
static void test_xarray_fault_split_without_prealloc(void **state)
{
	struct xa_harness h;
	struct xa_model new;

	(void)state;
	xah_init(&h, 0, 0);
	setup_split(&h);
	xa_model_copy(&new, &h.m);
	xa_model_split(&new, SPLIT_AT, 0, val(12));
	{
		XA_STATE_ORDER(xas, &h.xa, SPLIT_AT, 0);

		xas_lock(&xas);
		xas_split(&xas, val(12), 12);
		xas_unlock(&xas);
		assert_int_equal(xas_error(&xas), 0);
		xas_destroy(&xas);
	}
	assert_int_equal(xah_compare(&h.xa, &new, false), 0);
	assert_int_equal(upc_check_xarray(&h.xa), 0);
	xa_model_fini(&h.m);
	h.m = new;
	assert_int_equal(xah_fini(&h), 0);
}

/* assert_disarmed() - A few attempts: none fails, none is counted. */
static void assert_disarmed(void)
{
	int i;

	for (i = 0; i < 3; i++)
		assert_false(upc_fault_should_fail());
	assert_int_equal(upc_fault_attempts(), 0);
	assert_false(upc_fault_injected());
}

/*
 * The injector itself (lib/fault.h), asked directly as an allocator asks
 * it: armed with fail_nth(n) it fails only the n-th attempt, armed with
 * fail_from(n) every attempt from the n-th on, and disarmed (n = 0,
 * either way) it neither fails nor counts, as the attempt counter
 * documents only attempts made while armed.
 */
static void test_fault_injector_contract(void **state)
{
	unsigned long i;

	(void)state;
	upc_fault_fail_nth(3);
	for (i = 1; i <= 5; i++) {
		assert_int_equal(upc_fault_should_fail(), i == 3);
		assert_int_equal(upc_fault_injected(), i >= 3);
		assert_int_equal(upc_fault_attempts(), i);
	}

	upc_fault_fail_from(2);
	assert_int_equal(upc_fault_attempts(), 0);
	assert_false(upc_fault_injected());
	for (i = 1; i <= 5; i++)
		assert_int_equal(upc_fault_should_fail(), i >= 2);
	assert_true(upc_fault_injected());

	upc_fault_fail_from(0);
	assert_disarmed();

	upc_fault_fail_nth(1);
	assert_true(upc_fault_should_fail());
	upc_fault_fail_nth(0);
	assert_disarmed();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fault_injector_contract),
		cmocka_unit_test(test_xarray_fault_raw_fails),
		cmocka_unit_test(test_xarray_fault_split_without_prealloc),
		cmocka_unit_test(test_xarray_fault_scenarios),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
