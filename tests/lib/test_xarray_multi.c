// SPDX-License-Identifier: MIT
/*
 * tests/lib/test_xarray_multi.c - multi-index entries.
 *
 * Entries of every order from 0 to BITS_PER_LONG, at index 0, near
 * ULONG_MAX and in between: every index of the range loads the entry and
 * its neighbours do not, xa_get_order() reports the order, marks cover
 * the whole entry, a store through any index replaces the whole entry
 * (keeping order and marks) and an erase through any index erases it.
 * Stores of a bigger entry over smaller ones, and of a smaller entry into
 * a bigger one.  Uniform splits (xas_split_alloc + xas_split) over one or
 * many levels, without the preallocation they need, and past the node
 * cap; non-uniform splits (xas_try_split) with the exact buddy layout,
 * at most one new node per level, and failures under fault injection
 * that leave the array unchanged.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <upcache/check.h>
#include <upcache/rcu.h>
#include <upcache/stats.h>
#include <upcache/xarray.h>

#include "fault.h"
#include "rand.h"
#include "xa_test.h"

/* Shift of the node an entry of @order lives in (the contract's layout). */
static unsigned int node_shift(unsigned int order)
{
	return order - order % XA_CHUNK_SHIFT;
}

/* A uniformly random index in [first, last]. */
static unsigned long rand_in(struct upc_rand *r, unsigned long first,
			     unsigned long last)
{
	if (first == 0 && last == ULONG_MAX)
		return upc_rand_next(r);
	return first + upc_rand_below(r, last - first + 1);
}

/*
 * check_entry() - The entry [@first, @first + 2^@order) holds @entry with
 * exactly the marks in @marks: at its ends, in the middle, at @samples
 * random indices, and at every index if the entry is small.
 */
static void check_entry(struct xarray *xa, struct upc_rand *r,
			unsigned long first, unsigned int order, void *entry,
			unsigned int marks, unsigned int samples)
{
	unsigned long last = range_last(first, order);
	unsigned long probe[3] = { first, last, first + (last - first) / 2 };
	unsigned int i;
	xa_mark_t m;

	for (i = 0; i < 3 + samples; i++) {
		unsigned long idx = i < 3 ? probe[i] : rand_in(r, first, last);

		if (xa_load(xa, idx) != entry)
			fail_msg("order %u at %#lx: index %#lx loads %p, want %p",
				 order, first, idx, xa_load(xa, idx), entry);
		if (xa_get_order(xa, idx) != (int)order)
			fail_msg("order %u at %#lx: index %#lx has order %d",
				 order, first, idx, xa_get_order(xa, idx));
		for (m = XA_MARK_0; m <= XA_MARK_MAX; m++)
			if (xa_get_mark(xa, idx, m) != !!(marks & (1U << m)))
				fail_msg("order %u at %#lx: index %#lx mark %u wrong",
					 order, first, idx, m);
	}
	if (order <= 12) {
		unsigned long idx;

		for (idx = first; ; idx++) {
			if (xa_load(xa, idx) != entry)
				fail_msg("order %u at %#lx: index %#lx loads %p",
					 order, first, idx, xa_load(xa, idx));
			if (idx == last)
				break;
		}
	}
}

/* ------------------------------------------------------------------ */
/* Every order                                                        */
/* ------------------------------------------------------------------ */

static void one_order(struct upc_rand *r, unsigned long base,
		      unsigned int order, void *e, void *e2)
{
	DEFINE_XARRAY(xa);
	int64_t live;
	unsigned long first = align_down(base, order);
	unsigned long last = range_last(first, order);
	unsigned long i;

	live = xat_nodes_live();
	xat_neighbours(&xa, first, last, XAT_NB_PUT);
	assert_null(xat_store_order(&xa, rand_in(r, first, last), order, e));
	assert_xa_ok(&xa);
	check_entry(&xa, r, first, order, e, 0, 32);
	xat_neighbours(&xa, first, last, XAT_NB_CHECK);
	if (first > 0)
		assert_int_equal(xa_get_order(&xa, first - 1), 0);
	if (last < ULONG_MAX)
		assert_int_equal(xa_get_order(&xa, last + 1), 0);

	/* Searching finds it once, from inside or before it. */
	i = rand_in(r, first, last);
	assert_ptr_equal(xa_find(&xa, &i, ULONG_MAX, XA_PRESENT), e);
	i = first;
	assert_ptr_equal(xa_find_after(&xa, &i, ULONG_MAX, XA_PRESENT),
			 last < ULONG_MAX ? P(2) : NULL);
	if (first > 0) {
		i = first - 1;
		assert_ptr_equal(xa_find_after(&xa, &i, ULONG_MAX, XA_PRESENT), e);
		assert_int_equal(i, first);
	}

	/* A mark set through one index covers all of them. */
	xa_set_mark(&xa, rand_in(r, first, last), XA_MARK_1);
	assert_xa_ok(&xa);
	assert_true(xa_marked(&xa, XA_MARK_1));
	check_entry(&xa, r, first, order, e, 1U << XA_MARK_1, 8);
	if (first > 0)
		assert_false(xa_get_mark(&xa, first - 1, XA_MARK_1));
	if (last < ULONG_MAX)
		assert_false(xa_get_mark(&xa, last + 1, XA_MARK_1));

	/* An order-0 store through any index replaces the whole entry. */
	assert_ptr_equal(xa_store(&xa, rand_in(r, first, last), e2, GFP_KERNEL), e);
	assert_xa_ok(&xa);
	check_entry(&xa, r, first, order, e2, 1U << XA_MARK_1, 8);

	/* An erase through any index erases it all. */
	assert_ptr_equal(xa_erase(&xa, rand_in(r, first, last)), e2);
	assert_xa_ok(&xa);
	assert_null(xa_load(&xa, first));
	assert_null(xa_load(&xa, last));
	assert_null(xa_load(&xa, rand_in(r, first, last)));
	assert_false(xa_marked(&xa, XA_MARK_1));
	xat_neighbours(&xa, first, last, XAT_NB_ERASE);
	assert_xa_ok(&xa);
	assert_true(xa_empty(&xa));
	assert_int_equal(xat_nodes_live(), live);
}

static void test_every_order(void **state)
{
	uint64_t seed = upc_test_seed();
	struct upc_rand r;
	unsigned int order;

	(void)state;
	upc_rand_seed(&r, seed ^ 0x3417);
	for (order = 0; order <= BITS_PER_LONG; order++) {
		one_order(&r, 0, order, P(3), xa_mk_value(order));
		one_order(&r, ULONG_MAX, order, xa_mk_value(order), P(4));
		one_order(&r, 0x0123456789abcdefUL, order, P(5), P(6));
		one_order(&r, upc_rand_next(&r), order, xa_mk_value(7), P(7));
	}
}

/* Entries of many orders side by side, every order at once. */
static void test_orders_side_by_side(void **state)
{
	DEFINE_XARRAY(xa);
	uint64_t seed = upc_test_seed();
	struct upc_rand r;
	unsigned int order;

	(void)state;
	upc_rand_seed(&r, seed ^ 0x51de);
	/* Order k at [2^k, 2^(k+1)): they tile [1, ULONG_MAX]. */
	assert_null(xa_store(&xa, 0, P(200), GFP_KERNEL));
	for (order = 0; order < BITS_PER_LONG; order++)
		assert_null(xat_store_order(&xa, 1UL << order, order, P(order)));
	assert_xa_ok(&xa);
	assert_ptr_equal(xa_load(&xa, 0), P(200));
	for (order = 0; order < BITS_PER_LONG; order++) {
		if (order % 3 == 0)
			xa_set_mark(&xa, 1UL << order, XA_MARK_0);
	}
	assert_xa_ok(&xa);
	for (order = 0; order < BITS_PER_LONG; order++)
		check_entry(&xa, &r, 1UL << order, order, P(order),
			    order % 3 == 0 ? 1U << XA_MARK_0 : 0, 4);
	/* Iteration visits each once, with its order. */
	{
		XA_STATE(xas, &xa, 1);
		unsigned int n = 0;
		void *e;

		rcu_read_lock();
		xas_for_each(&xas, e, ULONG_MAX) {
			assert_true(n < BITS_PER_LONG);
			assert_ptr_equal(e, P(n));
			assert_int_equal(xas.xa_index, 1UL << n);
			assert_int_equal(xas_get_order(&xas), n);
			n++;
		}
		rcu_read_unlock();
		assert_int_equal(n, BITS_PER_LONG);
	}
	/* Erase every other one through its last index. */
	for (order = 0; order < BITS_PER_LONG; order += 2)
		assert_ptr_equal(xa_erase(&xa, range_last(1UL << order, order)),
				 P(order));
	assert_xa_ok(&xa);
	for (order = 0; order < BITS_PER_LONG; order++) {
		if (order % 2 == 0)
			assert_null(xa_load(&xa, 1UL << order));
		else
			check_entry(&xa, &r, 1UL << order, order, P(order),
				    order % 3 == 0 ? 1U << XA_MARK_0 : 0, 2);
	}
	xat_fini(&xa);
	assert_xa_ok(&xa);
}

/* ------------------------------------------------------------------ */
/* Stores over multi-index entries                                    */
/* ------------------------------------------------------------------ */

static void test_store_smaller_into_bigger(void **state)
{
	static const unsigned int combos[][2] = {
		{ 6, 2 }, { 9, 3 }, { 12, 7 }, { 12, 0 }, { 13, 6 }, { 7, 6 },
		{ 20, 0 }, { 20, 13 }, { 64, 10 }, { 64, 0 }, { 64, 63 },
	};
	uint64_t seed = upc_test_seed();
	struct upc_rand r;
	unsigned int c;

	(void)state;
	upc_rand_seed(&r, seed ^ 0x5a11);
	for (c = 0; c < sizeof(combos) / sizeof(combos[0]); c++) {
		DEFINE_XARRAY(xa);
		unsigned int big = combos[c][0], small = combos[c][1];
		unsigned long first = align_down(0x7777777777UL, big);
		unsigned long last = range_last(first, big);
		unsigned long t = rand_in(&r, first, last);

		if (first > 0)
			xa_store(&xa, first - 1, P(1), GFP_KERNEL);
		if (last < ULONG_MAX)
			xa_store(&xa, last + 1, P(2), GFP_KERNEL);
		xat_store_order(&xa, first, big, P(10));
		xa_set_mark(&xa, first, XA_MARK_2);
		assert_ptr_equal(xat_store_order(&xa, t, small, xa_mk_value(c)),
				 P(10));
		assert_xa_ok(&xa);
		/* The whole bigger entry now holds the new value. */
		check_entry(&xa, &r, first, big, xa_mk_value(c), 1U << XA_MARK_2, 16);
		if (first > 0)
			assert_ptr_equal(xa_load(&xa, first - 1), P(1));
		if (last < ULONG_MAX)
			assert_ptr_equal(xa_load(&xa, last + 1), P(2));
		xat_fini(&xa);
	}
}

static void test_store_bigger_over_smaller(void **state)
{
	DEFINE_XARRAY(xa);
	int64_t live;
	unsigned long i;
	void *e;

	(void)state;
	live = xat_nodes_live();
	/* Order 6 at 0 over entries of order 0 and 2 in one leaf. */
	xa_store(&xa, 1, P(1), GFP_KERNEL);
	xa_store(&xa, 5, xa_mk_value(5), GFP_KERNEL);
	xat_store_order(&xa, 8, 2, P(8));
	xa_store(&xa, 63, P(63), GFP_KERNEL);
	xa_store(&xa, 64, P(64), GFP_KERNEL);
	xat_store_order(&xa, 0, 6, P(100));
	assert_xa_ok(&xa);
	for (i = 0; i < 64; i++)
		assert_ptr_equal(xa_load(&xa, i), P(100));
	assert_int_equal(xa_get_order(&xa, 9), 6);
	assert_ptr_equal(xa_load(&xa, 64), P(64));
	i = 0;
	assert_ptr_equal(xa_find_after(&xa, &i, ULONG_MAX, XA_PRESENT), P(64));
	assert_int_equal(i, 64);

	/* Order 12 over entries spread across several leaves. */
	xa_store(&xa, 4096 + 3, P(3), GFP_KERNEL);
	xa_store(&xa, 4096 + 700, P(4), GFP_KERNEL);
	xat_store_order(&xa, 4096 + 1024, 7, P(5));
	xat_store_order(&xa, 4096 + 4032, 6, P(6));
	xa_store(&xa, 8192, P(7), GFP_KERNEL);
	xat_store_order(&xa, 5000, 12, P(101));
	assert_xa_ok(&xa);
	for (i = 4096; i < 8192; i += 61)
		assert_ptr_equal(xa_load(&xa, i), P(101));
	assert_ptr_equal(xa_load(&xa, 8191), P(101));
	assert_int_equal(xa_get_order(&xa, 4096 + 3), 12);
	assert_ptr_equal(xa_load(&xa, 8192), P(7));
	{
		XA_STATE(xas, &xa, 4096);
		unsigned int n = 0;

		rcu_read_lock();
		xas_for_each(&xas, e, 8191)
			n++;
		rcu_read_unlock();
		assert_int_equal(n, 1);
	}

	/* Order 7 over two order-6 entries. */
	xat_store_order(&xa, 128, 6, P(8));
	xat_store_order(&xa, 192, 6, P(9));
	xat_store_order(&xa, 130, 7, P(102));
	assert_xa_ok(&xa);
	assert_ptr_equal(xa_load(&xa, 128), P(102));
	assert_ptr_equal(xa_load(&xa, 255), P(102));
	assert_int_equal(xa_get_order(&xa, 200), 7);

	/* Order 64 over everything. */
	xa_store(&xa, ULONG_MAX, P(11), GFP_KERNEL);
	xat_store_order(&xa, 1UL << 30, 20, P(12));
	xat_store_order(&xa, 42, BITS_PER_LONG, P(103));
	assert_xa_ok(&xa);
	assert_int_equal(xat_count_nodes(&xa), 1);
	assert_int_equal(xa_get_order(&xa, 0), BITS_PER_LONG);
	assert_int_equal(xa_get_order(&xa, ULONG_MAX), BITS_PER_LONG);
	assert_ptr_equal(xa_load(&xa, ULONG_MAX), P(103));
	assert_ptr_equal(xa_load(&xa, 64), P(103));
	assert_ptr_equal(xa_load(&xa, 1UL << 30), P(103));
	assert_ptr_equal(xa_erase(&xa, 7), P(103));
	assert_xa_ok(&xa);
	assert_true(xa_empty(&xa));
	assert_int_equal(xat_nodes_live(), live);
}

/* A bigger entry stored over smaller ones takes the union of their marks. */
static void test_store_bigger_marks_union(void **state)
{
	DEFINE_XARRAY(xa);

	(void)state;
	/* Same node: siblings replace marked entries. */
	xa_store(&xa, 0, P(0), GFP_KERNEL);
	xa_store(&xa, 9, P(1), GFP_KERNEL);
	xa_store(&xa, 13, P(2), GFP_KERNEL);
	xa_store(&xa, 16, P(3), GFP_KERNEL);
	xa_set_mark(&xa, 9, XA_MARK_0);
	xa_set_mark(&xa, 13, XA_MARK_2);
	xat_store_order(&xa, 8, 3, P(4));	/* 8..15 */
	assert_xa_ok(&xa);
	assert_true(xa_get_mark(&xa, 8, XA_MARK_0));
	assert_true(xa_get_mark(&xa, 15, XA_MARK_2));
	assert_false(xa_get_mark(&xa, 8, XA_MARK_1));
	assert_false(xa_get_mark(&xa, 16, XA_MARK_0));
	assert_false(xa_get_mark(&xa, 0, XA_MARK_2));
	/* Across nodes: a marked leaf replaced by one entry. */
	xa_store(&xa, 4096 + 7, P(5), GFP_KERNEL);
	xa_store(&xa, 4096 + 900, P(6), GFP_KERNEL);
	xa_set_mark(&xa, 4096 + 900, XA_MARK_1);
	xat_store_order(&xa, 4096, 12, P(7));
	assert_xa_ok(&xa);
	assert_true(xa_get_mark(&xa, 4096, XA_MARK_1));
	assert_false(xa_get_mark(&xa, 4096, XA_MARK_0));
	assert_false(xa_get_mark(&xa, 4096, XA_MARK_2));
	/* An unmarked range stays unmarked. */
	xa_store(&xa, 1UL << 20, P(8), GFP_KERNEL);
	xat_store_order(&xa, 1UL << 20, 5, P(9));
	assert_xa_ok(&xa);
	assert_false(xa_get_mark(&xa, 1UL << 20, XA_MARK_0));
	assert_false(xa_get_mark(&xa, 1UL << 20, XA_MARK_1));
	assert_false(xa_get_mark(&xa, 1UL << 20, XA_MARK_2));
	xat_fini(&xa);
}

static void test_multi_marks_iteration(void **state)
{
	static const unsigned int orders[] = { 1, 5, 6, 7, 12, 13, 30 };
	DEFINE_XARRAY(xa);
	unsigned long index, first[7];
	unsigned int i, n;
	void *e;

	(void)state;
	for (i = 0; i < 7; i++) {
		first[i] = (unsigned long)(i + 1) << 31;
		xat_store_order(&xa, first[i], orders[i], P(i));
		if (i % 2)
			xa_set_mark(&xa, range_last(first[i], orders[i]), XA_MARK_1);
	}
	assert_xa_ok(&xa);
	n = 0;
	xa_for_each_marked(&xa, index, e, XA_MARK_1) {
		assert_int_equal(index, first[2 * n + 1]);
		assert_ptr_equal(e, P(2 * n + 1));
		n++;
	}
	assert_int_equal(n, 3);
	{
		XA_STATE(xas, &xa, 0);

		n = 0;
		rcu_read_lock();
		xas_for_each_marked(&xas, e, ULONG_MAX, XA_MARK_1) {
			assert_ptr_equal(e, P(2 * n + 1));
			assert_int_equal(xas_get_order(&xas), orders[2 * n + 1]);
			n++;
		}
		rcu_read_unlock();
		assert_int_equal(n, 3);
	}
	/* Clear through the middle index. */
	for (i = 1; i < 7; i += 2)
		xa_clear_mark(&xa, first[i] + ((1UL << orders[i]) >> 1), XA_MARK_1);
	assert_false(xa_marked(&xa, XA_MARK_1));
	xat_fini(&xa);
}

/* ------------------------------------------------------------------ */
/* Uniform split                                                      */
/* ------------------------------------------------------------------ */

/*
 * verify_pieces() - [@first, @first + 2^@old) holds 2^(@old - @new)
 * entries of order @new, each @entry with marks 0 and 2, in index order.
 */
static void verify_pieces(struct xarray *xa, unsigned long first,
			  unsigned int old, unsigned int new, void *entry)
{
	unsigned long last = range_last(first, old);
	unsigned long n = 0, want = 1UL << (old - new);
	XA_STATE(xas, xa, first);
	void *e;

	rcu_read_lock();
	xas_for_each(&xas, e, last) {
		unsigned long expect = first + (n << new);

		if (xas.xa_index != expect || e != entry ||
		    xas_get_order(&xas) != (int)new)
			fail_msg("split %u->%u at %#lx: piece %lu at %#lx order %d entry %p",
				 old, new, first, n, xas.xa_index,
				 xas_get_order(&xas), e);
		if (!xas_get_mark(&xas, XA_MARK_0) ||
		    xas_get_mark(&xas, XA_MARK_1) ||
		    !xas_get_mark(&xas, XA_MARK_2))
			fail_msg("split %u->%u: marks of piece %lu", old, new, n);
		n++;
	}
	rcu_read_unlock();
	if (n != want)
		fail_msg("split %u->%u at %#lx: %lu pieces, want %lu",
			 old, new, first, n, want);
}

static void split_uniform(struct upc_rand *r, unsigned long base,
			  unsigned int old, unsigned int new, void *entry)
{
	DEFINE_XARRAY(xa);
	int64_t live;
	unsigned long first = align_down(base, old);
	unsigned long last = range_last(first, old);
	unsigned long victim, i, nodes;

	live = xat_nodes_live();
	if (first > 0)
		xa_store(&xa, first - 1, P(1), GFP_KERNEL);
	if (last < ULONG_MAX)
		xa_store(&xa, last + 1, P(2), GFP_KERNEL);
	xat_store_order(&xa, first, old, entry);
	xa_set_mark(&xa, first, XA_MARK_0);
	xa_set_mark(&xa, last, XA_MARK_2);
	nodes = xat_count_nodes(&xa);
	{
		XA_STATE_ORDER(xas, &xa, first, new);

		xas_split_alloc(&xas, entry, old, GFP_KERNEL);
		assert_int_equal(xas_error(&xas), 0);
		xat_split(&xas, entry, old);
		assert_int_equal(xas_error(&xas), 0);
		xas_destroy(&xas);
	}
	assert_xa_ok(&xa);
	verify_pieces(&xa, first, old, new, entry);
	/* Pieces below the old entry's level live in new nodes. */
	if (node_shift(old) > node_shift(new))
		assert_true(xat_count_nodes(&xa) > nodes);
	if (old - new <= 12) {
		for (i = 0; i < (1UL << (old - new)); i++) {
			unsigned long p = first + (i << new);

			assert_int_equal(xa_get_order(&xa, p), new);
			assert_int_equal(xa_get_order(&xa, range_last(p, new)), new);
		}
	}
	xat_neighbours(&xa, first, last, XAT_NB_CHECK);
	if (first > 0)
		assert_false(xa_get_mark(&xa, first - 1, XA_MARK_0));
	if (last < ULONG_MAX)
		assert_false(xa_get_mark(&xa, last + 1, XA_MARK_2));

	/* The pieces are separate entries now. */
	victim = align_down(rand_in(r, first, last), new);
	assert_ptr_equal(xa_erase(&xa, victim + (rand_in(r, 0, ULONG_MAX) &
						 (range_last(0, new)))), entry);
	assert_xa_ok(&xa);
	assert_null(xa_load(&xa, victim));
	assert_null(xa_load(&xa, range_last(victim, new)));
	if (victim > first)
		assert_ptr_equal(xa_load(&xa, victim - 1), entry);
	if (range_last(victim, new) < last)
		assert_ptr_equal(xa_load(&xa, range_last(victim, new) + 1), entry);
	xat_fini(&xa);
	assert_int_equal(xat_nodes_live(), live);
}

static void test_split(void **state)
{
	uint64_t seed = upc_test_seed();
	struct upc_rand r;

	(void)state;
	upc_rand_seed(&r, seed ^ 0x5b117);
	split_uniform(&r, 0, 6, 0, P(1));
	split_uniform(&r, 0, 9, 0, xa_mk_value(9));
	split_uniform(&r, 0, 12, 0, P(3));
	split_uniform(&r, 4096 * 5, 12, 6, xa_mk_value(12));
	split_uniform(&r, 0, 18, 0, P(4));
	split_uniform(&r, 128, 7, 3, P(5));
	split_uniform(&r, 0, BITS_PER_LONG, 60, P(6));
	split_uniform(&r, ULONG_MAX, 12, 0, xa_mk_value(3));
	split_uniform(&r, ULONG_MAX, 9, 3, P(7));
	split_uniform(&r, 1UL << 40, 13, 1, P(8));
	split_uniform(&r, 0, 8, 7, P(9));
}

/*
 * xas_split without preallocation builds the missing nodes itself
 * (GFP_NOWAIT under the lock); when one of those allocations fails it
 * reports -ENOMEM, leaves the array unchanged, and the xas_nomem() retry
 * loop completes the split.
 */
static void split_no_prealloc(struct upc_rand *r, unsigned int old,
			      unsigned int new)
{
	DEFINE_XARRAY(xa);
	int64_t live;
	unsigned long first = align_down(1UL << 33, old);
	unsigned long nodes, nth;

	xa_store(&xa, 3, P(3), GFP_KERNEL);
	xat_store_order(&xa, first, old, P(10));
	xa_set_mark(&xa, first, XA_MARK_0);
	xa_set_mark(&xa, first, XA_MARK_2);
	nodes = xat_count_nodes(&xa);
	live = xat_nodes_live();
	for (nth = 1; nth <= 3; nth++) {
		XA_STATE_ORDER(xas, &xa, first, new);

		upc_fault_fail_nth(nth);
		xat_split(&xas, P(10), old);
		upc_fault_fail_nth(0);
		assert_int_equal(xas_error(&xas), -ENOMEM);
		assert_xa_ok(&xa);
		assert_int_equal(xat_count_nodes(&xa), nodes);
		check_entry(&xa, r, first, old, P(10),
			    1U << XA_MARK_0 | 1U << XA_MARK_2, 16);
		assert_ptr_equal(xa_load(&xa, 3), P(3));
		xas_destroy(&xas);
	}
	assert_int_equal(xat_nodes_live(), live);
	{
		XA_STATE_ORDER(xas, &xa, first, new);
		unsigned int loops = 0;

		/* Fail once more, then let the retry loop finish the job. */
		upc_fault_fail_nth(2);
		do {
			loops++;
			xat_split(&xas, P(10), old);
		} while (xas_nomem(&xas, GFP_KERNEL));
		upc_fault_fail_nth(0);
		assert_int_equal(xas_error(&xas), 0);
		assert_true(loops >= 2);
	}
	assert_xa_ok(&xa);
	verify_pieces(&xa, first, old, new, P(10));
	assert_ptr_equal(xa_load(&xa, 3), P(3));
	xat_fini(&xa);
}

static void test_split_without_prealloc(void **state)
{
	uint64_t seed = upc_test_seed();
	struct upc_rand r;

	(void)state;
	upc_rand_seed(&r, seed ^ 0x0a11);
	split_no_prealloc(&r, 12, 0);
	split_no_prealloc(&r, 9, 0);
	split_no_prealloc(&r, 13, 2);
	split_no_prealloc(&r, 18, 6);
}

/* Without preallocation and without fault injection: it just works. */
static void test_split_builds_missing_nodes(void **state)
{
	static const unsigned int combos[][2] = {
		{ 12, 0 }, { 9, 0 }, { 7, 3 }, { 12, 6 }, { 13, 2 },
	};
	unsigned int c;

	(void)state;
	for (c = 0; c < sizeof(combos) / sizeof(combos[0]); c++) {
		DEFINE_XARRAY(xa);
		unsigned int old = combos[c][0], new = combos[c][1];
		unsigned long first = align_down(ULONG_MAX - (1UL << 20), old);

		xa_store(&xa, 0, P(0), GFP_KERNEL);
		xat_store_order(&xa, first, old, xa_mk_value(old));
		xa_set_mark(&xa, first, XA_MARK_0);
		xa_set_mark(&xa, first, XA_MARK_2);
		{
			XA_STATE_ORDER(xas, &xa, first, new);

			xat_split(&xas, xa_mk_value(old), old);
			assert_int_equal(xas_error(&xas), 0);
			xas_destroy(&xas);
		}
		assert_xa_ok(&xa);
		verify_pieces(&xa, first, old, new, xa_mk_value(old));
		assert_ptr_equal(xa_load(&xa, 0), P(0));
		xat_fini(&xa);
	}
}

/* Splitting where nothing is stored: -EINVAL, nothing created. */
static void test_split_nothing(void **state)
{
	DEFINE_XARRAY(xa);

	(void)state;
	xa_store(&xa, 0, P(0), GFP_KERNEL);
	xat_store_order(&xa, 8192, 12, P(1));
	{
		XA_STATE_ORDER(xas, &xa, 4096, 0);

		xas_split_alloc(&xas, P(1), 12, GFP_KERNEL);
		xat_split(&xas, P(1), 12);
		assert_int_equal(xas_error(&xas), -EINVAL);
		xas_destroy(&xas);
	}
	{
		XA_STATE_ORDER(xas, &xa, 4100, 0);

		xat_try_split(&xas, P(1), 12);
		assert_int_equal(xas_error(&xas), -EINVAL);
	}
	/* Beyond the top of the tree. */
	{
		XA_STATE_ORDER(xas, &xa, 1UL << 50, 0);

		xat_split(&xas, P(1), 12);
		assert_int_equal(xas_error(&xas), -EINVAL);
		xas_destroy(&xas);
	}
	{
		XA_STATE_ORDER(xas, &xa, 1UL << 50, 2);

		xat_try_split(&xas, P(1), 12);
		assert_int_equal(xas_error(&xas), -EINVAL);
	}
	assert_xa_ok(&xa);
	assert_null(xa_load(&xa, 4096));
	assert_null(xa_load(&xa, 1UL << 50));
	assert_int_equal(xa_get_order(&xa, 8192), 12);
	assert_ptr_equal(xa_load(&xa, 0), P(0));
	xat_fini(&xa);
}

/* A split inside one node needs no new node, hence no preallocation. */
static void test_split_same_node(void **state)
{
	DEFINE_XARRAY(xa);
	unsigned long i;

	(void)state;
	xa_store(&xa, 0, P(0), GFP_KERNEL);
	xat_store_order(&xa, 4096, 9, P(1));	/* 8 slots of a shift-6 node */
	xa_set_mark(&xa, 4096, XA_MARK_0);
	xa_set_mark(&xa, 4096, XA_MARK_2);
	{
		XA_STATE_ORDER(xas, &xa, 4096, 6);

		xat_split(&xas, P(1), 9);
		assert_int_equal(xas_error(&xas), 0);
	}
	assert_xa_ok(&xa);
	verify_pieces(&xa, 4096, 9, 6, P(1));
	for (i = 0; i < 8; i++)
		assert_int_equal(xa_get_order(&xa, 4096 + i * 64 + 5), 6);
	xat_fini(&xa);
}

/*
 * Beyond the node cap: -E2BIG, which xas_nomem() does not retry (with
 * -ENOMEM a caller's retry loop allocated a node a pass, forever).  An
 * allocation that fails: -ENOMEM.  Either way, no change.
 */
static void test_split_alloc_failures(void **state)
{
	DEFINE_XARRAY(xa);
	int64_t live;
	uint64_t seed = upc_test_seed();
	struct upc_rand r;
	unsigned long nth;

	(void)state;
	upc_rand_seed(&r, seed ^ 0xca9);
	/* Order 64 down to order 0 would need far more than 65536 nodes. */
	xat_store_order(&xa, 0, BITS_PER_LONG, P(1));
	live = xat_nodes_live();
	{
		XA_STATE_ORDER(xas, &xa, 0, 0);

		xas_split_alloc(&xas, P(1), BITS_PER_LONG, GFP_KERNEL);
		assert_int_equal(xas_error(&xas), -E2BIG);
		xat_split(&xas, P(1), BITS_PER_LONG);
		assert_int_equal(xas_error(&xas), -E2BIG);
		assert_false(xas_nomem(&xas, GFP_KERNEL));
		xas_destroy(&xas);
	}
	{
		XA_STATE_ORDER(xas, &xa, 0, 0);

		/* Without preallocation: the split itself says so. */
		xat_split(&xas, P(1), BITS_PER_LONG);
		assert_int_equal(xas_error(&xas), -E2BIG);
		assert_false(xas_nomem(&xas, GFP_KERNEL));
		assert_null(xas.xa_alloc);
	}
	assert_int_equal(xat_nodes_live(), live);
	assert_xa_ok(&xa);
	check_entry(&xa, &r, 0, BITS_PER_LONG, P(1), 0, 16);
	xat_fini(&xa);

	/* Fault injection in the preallocation of a 12 -> 0 split. */
	xat_store_order(&xa, 0, 12, P(2));
	for (nth = 1; nth <= 3; nth++) {
		XA_STATE_ORDER(xas, &xa, 0, 0);

		live = xat_nodes_live();
		upc_fault_fail_nth(nth);
		xas_split_alloc(&xas, P(2), 12, GFP_KERNEL);
		upc_fault_fail_nth(0);
		assert_int_equal(xas_error(&xas), -ENOMEM);
		xas_destroy(&xas);
		assert_int_equal(xat_nodes_live(), live);
		assert_xa_ok(&xa);
		check_entry(&xa, &r, 0, 12, P(2), 0, 8);
	}
	xat_fini(&xa);
}

/* ------------------------------------------------------------------ */
/* Non-uniform split                                                  */
/* ------------------------------------------------------------------ */

struct piece {
	unsigned long first;
	unsigned int order;
};

static int cmp_piece(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

/*
 * buddy_layout() - What xas_try_split() of an order-@old entry to @new at
 * @idx must leave: the piece holding @idx has order @new, and for every
 * order k from @old - 1 down to @new the half of the order-(k + 1) block
 * around @idx that does not hold it is one entry of order k.
 */
static unsigned int buddy_layout(unsigned int old, unsigned long idx,
				 unsigned int new, struct piece *out)
{
	unsigned int n = 0, k;

	for (k = old; k-- > new; ) {
		unsigned long block = align_down(idx, k + 1);
		unsigned long half = 1UL << k;

		out[n].first = (idx & half) ? block : block + half;
		out[n].order = k;
		n++;
	}
	out[n].first = align_down(idx, new);
	out[n].order = new;
	n++;
	qsort(out, n, sizeof(*out), cmp_piece);
	return n;
}

static void verify_layout(struct xarray *xa, unsigned long first,
			  unsigned int old, const struct piece *want,
			  unsigned int n, void *entry, const char *what)
{
	unsigned long last = range_last(first, old);
	XA_STATE(xas, xa, first);
	unsigned int i = 0;
	void *e;

	rcu_read_lock();
	xas_for_each(&xas, e, last) {
		if (i >= n || xas.xa_index != want[i].first || e != entry ||
		    xas_get_order(&xas) != (int)want[i].order)
			fail_msg("%s: entry %u at %#lx order %d, want %#lx order %u",
				 what, i, xas.xa_index, xas_get_order(&xas),
				 i < n ? want[i].first : 0UL,
				 i < n ? want[i].order : 0U);
		if (!xas_get_mark(&xas, XA_MARK_1) || xas_get_mark(&xas, XA_MARK_0))
			fail_msg("%s: marks of entry %u", what, i);
		i++;
	}
	rcu_read_unlock();
	if (i != n)
		fail_msg("%s: %u entries, want %u", what, i, n);
	for (i = 0; i < n; i++) {
		unsigned long l = range_last(want[i].first, want[i].order);

		if (xa_get_order(xa, want[i].first) != (int)want[i].order ||
		    xa_get_order(xa, l) != (int)want[i].order ||
		    xa_load(xa, l) != entry)
			fail_msg("%s: piece %#lx order %u: order %d/%d",
				 what, want[i].first, want[i].order,
				 xa_get_order(xa, want[i].first), xa_get_order(xa, l));
	}
}

static void try_split_one(unsigned long base, unsigned int old,
			  unsigned long off, unsigned int new, void *entry)
{
	DEFINE_XARRAY(xa);
	struct upc_thread_stats s0, s1;
	struct piece want[BITS_PER_LONG + 1];
	unsigned long first = align_down(base, old);
	unsigned long last = range_last(first, old);
	unsigned long idx = first + off;
	unsigned long nodes, levels = (node_shift(old) - node_shift(new)) /
				      XA_CHUNK_SHIFT;
	unsigned int n;
	char what[96];

	snprintf(what, sizeof(what), "try_split %u->%u at %#lx in [%#lx]",
		 old, new, idx, first);
	if (first > 0)
		xa_store(&xa, first - 1, P(1), GFP_KERNEL);
	if (last < ULONG_MAX)
		xa_store(&xa, last + 1, P(2), GFP_KERNEL);
	xat_store_order(&xa, first, old, entry);
	xa_set_mark(&xa, idx, XA_MARK_1);
	nodes = xat_count_nodes(&xa);
	upc_stats_thread(&s0);
	{
		XA_STATE_ORDER(xas, &xa, idx, new);

		xat_try_split(&xas, entry, old);
		if (xas_error(&xas))
			fail_msg("%s: error %d", what, xas_error(&xas));
		xas_destroy(&xas);
	}
	upc_stats_thread(&s1);
	assert_xa_ok(&xa);
	/* At most one new node per level, and exactly that many remain. */
	if (s1.xa_node_allocs - s0.xa_node_allocs > levels)
		fail_msg("%s: %lu node allocations for %lu levels", what,
			 (unsigned long)(s1.xa_node_allocs - s0.xa_node_allocs),
			 levels);
	if (xat_count_nodes(&xa) != nodes + levels)
		fail_msg("%s: %lu nodes, want %lu", what, xat_count_nodes(&xa),
			 nodes + levels);
	n = buddy_layout(old, idx, new, want);
	verify_layout(&xa, first, old, want, n, entry, what);
	xat_neighbours(&xa, first, last, XAT_NB_CHECK);
	/* The piece holding idx is an entry of its own. */
	assert_ptr_equal(xa_erase(&xa, idx), entry);
	assert_xa_ok(&xa);
	if (xa_load(&xa, align_down(idx, new)) ||
	    xa_load(&xa, range_last(align_down(idx, new), new)))
		fail_msg("%s: erase left part of its piece", what);
	if (align_down(idx, new) != first && xa_load(&xa, first) != entry)
		fail_msg("%s: erase took the first piece too", what);
	if (range_last(align_down(idx, new), new) != last &&
	    xa_load(&xa, last) != entry)
		fail_msg("%s: erase took the last piece too", what);
	xat_fini(&xa);
}

static void test_try_split_layout(void **state)
{
	static const unsigned long offs9[] = { 0, 5, 511, 256, 300, 64, 63 };
	static const unsigned long offs12[] = { 0, 4095, 1234, 2048 };
	static const unsigned long offs6[] = { 0, 37, 63 };
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(offs9) / sizeof(offs9[0]); i++) {
		try_split_one(0, 9, offs9[i], 0, P(1));
		try_split_one(512 * 7, 9, offs9[i], 0, xa_mk_value(9));
		try_split_one(ULONG_MAX, 9, offs9[i], 0, P(2));
		try_split_one(1UL << 35, 9, offs9[i], 3, P(3));
	}
	for (i = 0; i < sizeof(offs12) / sizeof(offs12[0]); i++) {
		try_split_one(0, 12, offs12[i], 0, P(4));
		try_split_one(ULONG_MAX, 12, offs12[i], 0, xa_mk_value(12));
		try_split_one(4096 * 3, 12, offs12[i], 6, P(5));
	}
	for (i = 0; i < sizeof(offs6) / sizeof(offs6[0]); i++) {
		try_split_one(0, 6, offs6[i], 0, P(6));
		try_split_one(64 * 9, 6, offs6[i], 0, P(7));
	}
	/* Within one node: no allocation at all. */
	try_split_one(4096, 9, 200, 6, P(8));
	try_split_one(128, 7, 100, 6, P(9));
	/* Many levels at once. */
	try_split_one(0, 18, 77777, 0, P(10));
	try_split_one(0, BITS_PER_LONG, 0x123456789UL, 0, P(11));
	try_split_one(0, BITS_PER_LONG, ULONG_MAX, 60, P(12));
}

static void test_try_split_worked_example(void **state)
{
	/* The contract's example: order 9 -> 0 at index 5. */
	static const struct piece want[] = {
		{ 0, 2 }, { 4, 0 }, { 5, 0 }, { 6, 1 }, { 8, 3 }, { 16, 4 },
		{ 32, 5 }, { 64, 6 }, { 128, 7 }, { 256, 8 },
	};
	DEFINE_XARRAY(xa);

	(void)state;
	xat_store_order(&xa, 0, 9, P(1));
	xa_set_mark(&xa, 0, XA_MARK_1);
	{
		XA_STATE_ORDER(xas, &xa, 5, 0);

		xat_try_split(&xas, P(1), 9);
		assert_int_equal(xas_error(&xas), 0);
	}
	assert_xa_ok(&xa);
	verify_layout(&xa, 0, 9, want, sizeof(want) / sizeof(want[0]), P(1),
		      "order 9 -> 0 at 5");
	xat_fini(&xa);
}

/*
 * After xas_try_split() the cursor is on its own index, ready for
 * xas_store(): a store through it replaces that index's new piece only,
 * whether the piece is in the old entry's node or in a new node below.
 */
static void try_split_then_store(unsigned int old, unsigned long idx)
{
	struct piece want[BITS_PER_LONG + 1];
	DEFINE_XARRAY(xa);
	unsigned int n, i;

	xat_store_order(&xa, 0, old, P(1));
	{
		XA_STATE_ORDER(xas, &xa, idx, 0);

		xat_try_split(&xas, P(1), old);
		assert_int_equal(xas_error(&xas), 0);
		assert_ptr_equal(xat_store_xas(&xas, P(2)), P(1));
		xas_destroy(&xas);
	}
	assert_xa_ok(&xa);
	assert_ptr_equal(xa_load(&xa, idx), P(2));
	n = buddy_layout(old, idx, 0, want);
	for (i = 0; i < n; i++) {
		if (want[i].first == idx)
			continue;
		assert_ptr_equal(xa_load(&xa, want[i].first), P(1));
		assert_int_equal(xa_get_order(&xa, want[i].first),
				 want[i].order);
	}
	xat_fini(&xa);
}

static void test_try_split_cursor_ready(void **state)
{
	(void)state;
	try_split_then_store(4, 5);
	try_split_then_store(5, 31);
	try_split_then_store(9, 300);
	try_split_then_store(12, 1000);
}

/*
 * xas_try_split_alloc() counts only blank nodes as its preallocation:
 * the subtrees that xas_split_alloc() left in the same cursor are of no
 * use to a non-uniform split, so the blanks are still allocated and the
 * split under the lock then needs no allocation at all.
 */
static void test_try_split_alloc_after_split_alloc(void **state)
{
	struct piece want[BITS_PER_LONG + 1];
	DEFINE_XARRAY(xa);
	XA_STATE_ORDER(xas, &xa, 1000, 0);
	unsigned int n;

	(void)state;
	xat_store_order(&xa, 0, 12, P(1));
	xa_set_mark(&xa, 0, XA_MARK_1);
	xas_split_alloc(&xas, P(1), 12, GFP_KERNEL);
	assert_int_equal(xas_error(&xas), 0);
	xas_try_split_alloc(&xas, 12, GFP_KERNEL);
	assert_int_equal(xas_error(&xas), 0);
	upc_fault_fail_from(1);
	xat_try_split(&xas, P(1), 12);
	upc_fault_fail_nth(0);
	assert_int_equal(xas_error(&xas), 0);
	xas_destroy(&xas);
	assert_xa_ok(&xa);
	n = buddy_layout(12, 1000, 0, want);
	verify_layout(&xa, 0, 12, want, n, P(1), "try_split after split_alloc");
	xat_fini(&xa);
}

static void test_try_split_einval(void **state)
{
	DEFINE_XARRAY(xa);
	uint64_t seed = upc_test_seed();
	struct upc_rand r;
	static const unsigned int bad[][2] = {
		/* { cursor order, order passed } for an order-9 entry */
		{ 9, 9 }, { 10, 9 }, { 0, 10 }, { 0, 8 }, { 3, 12 },
	};
	unsigned int i;

	(void)state;
	upc_rand_seed(&r, seed ^ 0xe1);
	xat_store_order(&xa, 1024, 9, P(1));
	xa_set_mark(&xa, 1024, XA_MARK_2);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		XA_STATE_ORDER(xas, &xa, 1030, bad[i][0]);

		xat_try_split(&xas, P(1), bad[i][1]);
		if (xas_error(&xas) != -EINVAL)
			fail_msg("cursor order %u, order %u: error %d",
				 bad[i][0], bad[i][1], xas_error(&xas));
		xas_destroy(&xas);
		assert_xa_ok(&xa);
		check_entry(&xa, &r, 1024, 9, P(1), 1U << XA_MARK_2, 8);
	}
	xat_fini(&xa);
}

/* Each allocation of a try_split fails in turn: no change, then recovery. */
static void try_split_fault(unsigned int old, unsigned long off,
			    unsigned int new)
{
	DEFINE_XARRAY(xa);
	struct upc_thread_stats s0, s1;
	struct piece want[BITS_PER_LONG + 1];
	uint64_t seed = upc_test_seed();
	struct upc_rand r;
	unsigned long levels = (node_shift(old) - node_shift(new)) /
			       XA_CHUNK_SHIFT;
	unsigned long nth, nodes;
	unsigned int n;

	upc_rand_seed(&r, seed ^ old);
	if (old < BITS_PER_LONG)
		xa_store(&xa, ULONG_MAX, P(1), GFP_KERNEL);
	xat_store_order(&xa, 0, old, P(2));
	xa_set_mark(&xa, 0, XA_MARK_1);
	nodes = xat_count_nodes(&xa);
	for (nth = 1; nth <= levels; nth++) {
		XA_STATE_ORDER(xas, &xa, off, new);

		upc_stats_thread(&s0);
		upc_fault_fail_nth(nth);
		xat_try_split(&xas, P(2), old);
		upc_fault_fail_nth(0);
		assert_int_equal(xas_error(&xas), -ENOMEM);
		/* Nothing changed. */
		assert_xa_ok(&xa);
		assert_int_equal(xat_count_nodes(&xa), nodes);
		check_entry(&xa, &r, 0, old, P(2), 1U << XA_MARK_1, 16);
		if (old < BITS_PER_LONG)
			assert_ptr_equal(xa_load(&xa, ULONG_MAX), P(1));
		if (nth < levels) {
			xas_destroy(&xas);
			continue;
		}
		/* Recover: one node from xas_nomem, the rest GFP_NOWAIT. */
		assert_true(xas_nomem(&xas, GFP_KERNEL));
		assert_non_null(xas.xa_alloc);
		upc_stats_thread(&s1);
		xat_try_split(&xas, P(2), old);
		assert_int_equal(xas_error(&xas), 0);
		upc_stats_thread(&s0);
		/* The preallocated node was used first. */
		assert_true(s0.xa_node_allocs - s1.xa_node_allocs <= levels - 1);
		assert_false(xas_nomem(&xas, GFP_KERNEL));
	}
	assert_xa_ok(&xa);
	assert_int_equal(xat_count_nodes(&xa), nodes + levels);
	n = buddy_layout(old, off, new, want);
	verify_layout(&xa, 0, old, want, n, P(2), "try_split after recovery");
	xat_fini(&xa);
}

static void test_try_split_fault(void **state)
{
	(void)state;
	try_split_fault(9, 5, 0);
	try_split_fault(12, 3000, 0);
	try_split_fault(18, 12345, 0);
	try_split_fault(BITS_PER_LONG, 0xfedcba9876UL, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		XAT_TEST(test_every_order),
		XAT_TEST(test_orders_side_by_side),
		XAT_TEST(test_store_smaller_into_bigger),
		XAT_TEST(test_store_bigger_over_smaller),
		XAT_TEST(test_store_bigger_marks_union),
		XAT_TEST(test_multi_marks_iteration),
		XAT_TEST(test_split),
		XAT_TEST(test_split_without_prealloc),
		XAT_TEST(test_split_builds_missing_nodes),
		XAT_TEST(test_split_nothing),
		XAT_TEST(test_split_same_node),
		XAT_TEST(test_split_alloc_failures),
		XAT_TEST(test_try_split_worked_example),
		XAT_TEST(test_try_split_layout),
		XAT_TEST(test_try_split_cursor_ready),
		XAT_TEST(test_try_split_alloc_after_split_alloc),
		XAT_TEST(test_try_split_einval),
		XAT_TEST(test_try_split_fault),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
