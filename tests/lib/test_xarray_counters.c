// SPDX-License-Identifier: MIT
/*
 * tests/lib/test_xarray_counters.c - the XArray's deterministic counters.
 *
 * The design arguments of upcache are made of counts, not times: how many
 * walks from the root an operation takes, how many nodes a store
 * allocates or an erase frees, how many times a writer takes the lock.
 * This file pins those numbers down with upc_stats_thread(): xa_load is
 * one walk, xas_load followed by xas_store on the same cursor is one walk,
 * an xas_find loop over many entries is one walk, xas_get_order and
 * xas_reload are none; node allocations and frees for known tree shapes
 * (frees counted when the node is handed to RCU); one lock acquisition
 * per normal-API write and none per read.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <upcache/check.h>
#include <upcache/rcu.h>
#include <upcache/stats.h>
#include <upcache/xarray.h>

#include "rand.h"
#include "xa_test.h"

/* Levels of a tree that reaches ULONG_MAX. */
#define FULL_LEVELS	((BITS_PER_LONG + XA_CHUNK_SHIFT - 1) / XA_CHUNK_SHIFT)

static struct upc_thread_stats mark;

static void counters_start(void)
{
	upc_stats_thread(&mark);
}

/* Counter deltas since counters_start(). */
static struct upc_thread_stats counters_delta(void)
{
	struct upc_thread_stats now, d;

	upc_stats_thread(&now);
	d.xa_walks = now.xa_walks - mark.xa_walks;
	d.xa_node_allocs = now.xa_node_allocs - mark.xa_node_allocs;
	d.xa_node_frees = now.xa_node_frees - mark.xa_node_frees;
	d.lock_acquires = now.lock_acquires - mark.lock_acquires;
	return d;
}

/* ------------------------------------------------------------------ */
/* The per-thread counters themselves                                 */
/* ------------------------------------------------------------------ */

static void test_reset(void **state)
{
	struct upc_thread_stats s;
	DEFINE_XARRAY(xa);

	(void)state;
	xa_store(&xa, 1, P(1), GFP_KERNEL);
	upc_stats_thread(&s);
	assert_true(s.xa_node_allocs > 0);
	assert_true(s.lock_acquires > 0);
	upc_stats_thread_reset();
	upc_stats_thread(&s);
	assert_int_equal(s.xa_walks, 0);
	assert_int_equal(s.xa_node_allocs, 0);
	assert_int_equal(s.xa_node_frees, 0);
	assert_int_equal(s.lock_acquires, 0);
	xa_load(&xa, 1);
	upc_stats_thread(&s);
	assert_int_equal(s.xa_walks, 1);
	xat_fini(&xa);
}

/* ------------------------------------------------------------------ */
/* Walks                                                              */
/* ------------------------------------------------------------------ */

static void expect_load_walks(struct xarray *xa, unsigned long index)
{
	struct upc_thread_stats d;

	counters_start();
	xa_load(xa, index);
	d = counters_delta();
	if (d.xa_walks != 1 || d.lock_acquires != 0 || d.xa_node_allocs != 0)
		fail_msg("xa_load(%#lx): %llu walks, %llu locks, %llu allocs",
			 index, (unsigned long long)d.xa_walks,
			 (unsigned long long)d.lock_acquires,
			 (unsigned long long)d.xa_node_allocs);
}

static void test_load_one_walk(void **state)
{
	static const unsigned long idx[] = {
		0, 1, 63, 64, 4095, 4096, 1UL << 30, ULONG_MAX - 1, ULONG_MAX,
	};
	DEFINE_XARRAY(xa);
	unsigned int i;

	(void)state;
	/* Empty, head-only, one leaf, deep, multi-index. */
	for (i = 0; i < sizeof(idx) / sizeof(idx[0]); i++)
		expect_load_walks(&xa, idx[i]);
	xa_store(&xa, 0, P(0), GFP_KERNEL);
	for (i = 0; i < sizeof(idx) / sizeof(idx[0]); i++)
		expect_load_walks(&xa, idx[i]);
	xa_store(&xa, 5, P(5), GFP_KERNEL);
	for (i = 0; i < sizeof(idx) / sizeof(idx[0]); i++)
		expect_load_walks(&xa, idx[i]);
	xa_store(&xa, ULONG_MAX, P(6), GFP_KERNEL);
	xat_store_order(&xa, 1UL << 30, 12, P(7));
	for (i = 0; i < sizeof(idx) / sizeof(idx[0]); i++)
		expect_load_walks(&xa, idx[i]);
	expect_load_walks(&xa, (1UL << 30) + 77);
	xat_fini(&xa);
}

static void test_xas_load_store_one_walk(void **state)
{
	DEFINE_XARRAY(xa);
	struct upc_thread_stats d;
	unsigned long idx[] = { 0, 7, 100, 1UL << 40, ULONG_MAX };
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(idx) / sizeof(idx[0]); i++)
		xa_store(&xa, idx[i], P(i), GFP_KERNEL);
	xat_store_order(&xa, 4096, 8, P(9));
	for (i = 0; i < sizeof(idx) / sizeof(idx[0]); i++) {
		XA_STATE(xas, &xa, idx[i]);

		counters_start();
		xas_lock(&xas);
		assert_ptr_equal(xas_load(&xas), P(i));
		/* A valid cursor reloads without a walk. */
		assert_ptr_equal(xas_load(&xas), P(i));
		assert_ptr_equal(xas_store(&xas, P(i + 10)), P(i));
		xas_unlock(&xas);
		d = counters_delta();
		if (d.xa_walks != 1)
			fail_msg("xas_load+xas_store at %#lx: %llu walks", idx[i],
				 (unsigned long long)d.xa_walks);
		assert_int_equal(d.lock_acquires, 1);
		assert_int_equal(d.xa_node_allocs, 0);
	}
	/* Inside a multi-index entry. */
	{
		XA_STATE(xas, &xa, 4096 + 100);

		counters_start();
		xas_lock(&xas);
		assert_ptr_equal(xas_load(&xas), P(9));
		xas_store(&xas, P(10));
		xas_unlock(&xas);
		d = counters_delta();
		assert_int_equal(d.xa_walks, 1);
	}
	assert_ptr_equal(xa_load(&xa, 4096), P(10));
	xat_fini(&xa);
}

static void test_xas_store_restart_one_walk(void **state)
{
	DEFINE_XARRAY(xa);
	struct upc_thread_stats d;
	static const unsigned long idx[] = {
		0, 3, 64, 1UL << 20, 1UL << 20 | 1, ULONG_MAX, 5,
	};
	unsigned int i;

	(void)state;
	/* Non-NULL stores from RESTART: one walk, new slots or not. */
	for (i = 0; i < 2 * sizeof(idx) / sizeof(idx[0]); i++) {
		XA_STATE(xas, &xa, idx[i % (sizeof(idx) / sizeof(idx[0]))]);

		counters_start();
		xas_lock(&xas);
		xas_store(&xas, xa_mk_value(i));
		xas_unlock(&xas);
		d = counters_delta();
		assert_int_equal(xas_error(&xas), 0);
		if (d.xa_walks != 1)
			fail_msg("xas_store at %#lx (pass %u): %llu walks",
				 xas.xa_index, i, (unsigned long long)d.xa_walks);
	}
	/* The normal API's xa_store is the same single walk. */
	for (i = 0; i < sizeof(idx) / sizeof(idx[0]); i++) {
		counters_start();
		xa_store(&xa, idx[i] ^ 2, P(i), GFP_KERNEL);
		d = counters_delta();
		assert_int_equal(d.xa_walks, 1);
		assert_int_equal(d.lock_acquires, 1);
	}
	xat_fini(&xa);
}

static void test_find_conflict_store_one_walk(void **state)
{
	DEFINE_XARRAY(xa);
	struct upc_thread_stats d;
	unsigned int n = 0;
	void *e;

	(void)state;
	xa_store(&xa, 0, P(0), GFP_KERNEL);
	xa_store(&xa, 70, P(1), GFP_KERNEL);
	xa_store(&xa, 100, P(2), GFP_KERNEL);
	{
		XA_STATE_ORDER(xas, &xa, 64, 6);

		counters_start();
		xas_lock(&xas);
		xas_for_each_conflict(&xas, e)
			n++;
		xas_store(&xas, P(3));
		xas_unlock(&xas);
		d = counters_delta();
		assert_int_equal(xas_error(&xas), 0);
	}
	assert_int_equal(n, 2);
	assert_int_equal(d.xa_walks, 1);
	assert_ptr_equal(xa_load(&xa, 127), P(3));
	xat_fini(&xa);
}

static void test_find_one_walk(void **state)
{
	DEFINE_XARRAY(xa);
	struct upc_thread_stats d;
	unsigned long i, n = 0, want = 0;
	void *e;

	(void)state;
	/* Entries over many leaves and levels. */
	for (i = 0; i < 5000; i += 7, want++)
		xa_store(&xa, i, xa_mk_value(i), GFP_KERNEL);
	for (i = 1; i < 40; i++, want++)
		xa_store(&xa, i << 24, P(i), GFP_KERNEL);
	xat_store_order(&xa, 1UL << 50, 9, P(1));
	want++;
	xa_store(&xa, ULONG_MAX, P(2), GFP_KERNEL);
	want++;
	{
		XA_STATE(xas, &xa, 0);

		counters_start();
		rcu_read_lock();
		xas_for_each(&xas, e, ULONG_MAX)
			n++;
		rcu_read_unlock();
		d = counters_delta();
	}
	assert_int_equal(n, want);
	if (d.xa_walks != 1)
		fail_msg("xas_for_each over %lu entries: %llu walks", n,
			 (unsigned long long)d.xa_walks);
	/* The same for xas_find_marked. */
	for (i = 0; i < 5000; i += 70)
		xa_set_mark(&xa, i, XA_MARK_1);
	xa_set_mark(&xa, ULONG_MAX, XA_MARK_1);
	{
		XA_STATE(xas, &xa, 0);

		n = 0;
		counters_start();
		rcu_read_lock();
		xas_for_each_marked(&xas, e, ULONG_MAX, XA_MARK_1)
			n++;
		rcu_read_unlock();
		d = counters_delta();
	}
	assert_int_equal(n, 5000 / 70 + 1 + 1);
	if (d.xa_walks != 1)
		fail_msg("xas_for_each_marked: %llu walks",
			 (unsigned long long)d.xa_walks);
	/* xa_for_each: at most one walk per entry and one to start. */
	{
		unsigned long index;

		n = 0;
		counters_start();
		xa_for_each(&xa, index, e)
			n++;
		d = counters_delta();
		assert_int_equal(n, want);
		assert_true(d.xa_walks <= n + 1);
		assert_int_equal(d.lock_acquires, 0);
	}
	xat_fini(&xa);
}

static void test_no_walk(void **state)
{
	DEFINE_XARRAY(xa);
	struct upc_thread_stats d;

	(void)state;
	xa_store(&xa, 0, P(0), GFP_KERNEL);
	xat_store_order(&xa, 640, 6, P(1));
	xa_store(&xa, 1UL << 33, P(2), GFP_KERNEL);
	rcu_read_lock();
	{
		XA_STATE(xas, &xa, 650);

		assert_ptr_equal(xas_load(&xas), P(1));
		counters_start();
		assert_int_equal(xas_get_order(&xas), 6);
		assert_ptr_equal(xas_reload(&xas), P(1));
		assert_int_equal(xas_get_order(&xas), 6);
		d = counters_delta();
		assert_int_equal(d.xa_walks, 0);

		xas_set(&xas, 1UL << 33);
		assert_ptr_equal(xas_load(&xas), P(2));
		counters_start();
		assert_int_equal(xas_get_order(&xas), 0);
		assert_ptr_equal(xas_reload(&xas), P(2));
		/* Moving sideways is not a walk either. */
		xas_next(&xas);
		xas_prev(&xas);
		d = counters_delta();
		assert_int_equal(d.xa_walks, 0);
	}
	rcu_read_unlock();
	xat_fini(&xa);
}

/* ------------------------------------------------------------------ */
/* Nodes                                                              */
/* ------------------------------------------------------------------ */

static void test_nodes_one_leaf(void **state)
{
	DEFINE_XARRAY(xa);
	struct upc_thread_stats d;
	unsigned long i;

	(void)state;
	/* 0 .. XA_CHUNK_SIZE-1: the head entry, then exactly one leaf. */
	counters_start();
	xa_store(&xa, 0, P(0), GFP_KERNEL);
	d = counters_delta();
	assert_int_equal(d.xa_node_allocs, 0);
	for (i = 1; i < XA_CHUNK_SIZE; i++)
		xa_store(&xa, i, P(i), GFP_KERNEL);
	d = counters_delta();
	assert_int_equal(d.xa_node_allocs, 1);
	assert_int_equal(d.xa_node_frees, 0);
	assert_xa_ok(&xa);

	/* Index XA_CHUNK_SIZE: a new top and a new leaf. */
	counters_start();
	xa_store(&xa, XA_CHUNK_SIZE, P(64), GFP_KERNEL);
	d = counters_delta();
	assert_int_equal(d.xa_node_allocs, 2);
	assert_int_equal(d.xa_node_frees, 0);
	assert_xa_ok(&xa);

	/* Erasing everything frees all three (counted when queued for RCU). */
	counters_start();
	for (i = 0; i <= XA_CHUNK_SIZE; i++)
		xa_erase(&xa, i);
	d = counters_delta();
	assert_int_equal(d.xa_node_frees, 3);
	assert_int_equal(d.xa_node_allocs, 0);
	assert_true(xa_empty(&xa));
	assert_xa_ok(&xa);

	/* In reverse: the top goes first when index XA_CHUNK_SIZE leaves. */
	for (i = 0; i <= XA_CHUNK_SIZE; i++)
		xa_store(&xa, i, P(i), GFP_KERNEL);
	counters_start();
	xa_erase(&xa, XA_CHUNK_SIZE);
	d = counters_delta();
	assert_int_equal(d.xa_node_frees, 2);	/* its leaf, then the top */
	for (i = XA_CHUNK_SIZE; i-- > 1; )
		xa_erase(&xa, i);
	d = counters_delta();
	assert_int_equal(d.xa_node_frees, 3);	/* the last leaf shrinks away */
	assert_ptr_equal(xa_load(&xa, 0), P(0));
	xa_erase(&xa, 0);
	assert_xa_ok(&xa);
}

static void test_nodes_deep(void **state)
{
	DEFINE_XARRAY(xa);
	struct upc_thread_stats d;

	(void)state;
	/* ULONG_MAX in an empty array: one node per level. */
	counters_start();
	xa_store(&xa, ULONG_MAX, P(1), GFP_KERNEL);
	d = counters_delta();
	assert_int_equal(d.xa_node_allocs, FULL_LEVELS);
	/* Index 0 then needs its own path below the top. */
	counters_start();
	xa_store(&xa, 0, P(0), GFP_KERNEL);
	d = counters_delta();
	assert_int_equal(d.xa_node_allocs, FULL_LEVELS - 1);
	/* Its neighbour shares the leaf. */
	counters_start();
	xa_store(&xa, 1, P(2), GFP_KERNEL);
	d = counters_delta();
	assert_int_equal(d.xa_node_allocs, 0);
	xa_erase(&xa, 1);
	assert_xa_ok(&xa);
	/*
	 * Erasing ULONG_MAX frees its path, then the tree shrinks to a
	 * single head entry: every node goes.
	 */
	counters_start();
	xa_erase(&xa, ULONG_MAX);
	d = counters_delta();
	assert_int_equal(d.xa_node_frees, 2 * FULL_LEVELS - 1);
	assert_false(xa_is_node(xa.xa_head));
	assert_ptr_equal(xa_load(&xa, 0), P(0));
	xat_fini(&xa);
}

static void test_nodes_multi(void **state)
{
	DEFINE_XARRAY(xa);
	struct upc_thread_stats d;

	(void)state;
	/* An order-64 entry is one node; an order-(6k) entry near 0 too. */
	counters_start();
	xat_store_order(&xa, 0, BITS_PER_LONG, P(1));
	d = counters_delta();
	assert_int_equal(d.xa_node_allocs, 1);
	counters_start();
	xa_erase(&xa, 5);
	d = counters_delta();
	assert_int_equal(d.xa_node_frees, 1);
	assert_true(xa_empty(&xa));
	/* Storing a big entry over a subtree frees the subtree. */
	xa_store(&xa, 1UL << 20, P(2), GFP_KERNEL);
	xa_store(&xa, (1UL << 20) + 4095, P(3), GFP_KERNEL);
	counters_start();
	xat_store_order(&xa, 1UL << 20, 12, P(4));
	d = counters_delta();
	/* The leaves of 2^20 and 2^20 + 4095 and their common parent. */
	assert_true(d.xa_node_frees >= 3);
	assert_xa_ok(&xa);
	assert_xa_ok(&xa);
	counters_start();
	xa_destroy(&xa);
	d = counters_delta();
	assert_true(d.xa_node_frees > 0);
	assert_true(xa_empty(&xa));
}

static void test_destroy_frees_all(void **state)
{
	uint64_t seed = upc_test_seed();
	struct upc_rand r;
	DEFINE_XARRAY(xa);
	struct upc_thread_stats d;
	unsigned int i;

	(void)state;
	upc_rand_seed(&r, seed ^ 0xc0c0);
	counters_start();
	for (i = 0; i < 2000; i++)
		xa_store(&xa, upc_rand_chance(&r, 1, 2) ?
			 upc_rand_below(&r, 100000) : upc_rand_next(&r),
			 P(i), GFP_KERNEL);
	d = counters_delta();
	assert_true(d.xa_node_allocs > 0);
	assert_int_equal(d.xa_node_frees, 0);
	xat_fini(&xa);
	d = counters_delta();
	if (d.xa_node_frees != d.xa_node_allocs)
		fail_msg("seed %llu: %llu nodes allocated, %llu freed",
			 (unsigned long long)seed,
			 (unsigned long long)d.xa_node_allocs,
			 (unsigned long long)d.xa_node_frees);
	assert_xa_ok(&xa);
}

/* ------------------------------------------------------------------ */
/* Locks                                                              */
/* ------------------------------------------------------------------ */

static void expect_locks(const char *what, unsigned long want)
{
	struct upc_thread_stats d = counters_delta();

	if (d.lock_acquires != want)
		fail_msg("%s: %llu lock acquisitions, want %lu", what,
			 (unsigned long long)d.lock_acquires, want);
}

static void test_lock_acquires(void **state)
{
	DEFINE_XARRAY(xa);
	DEFINE_XARRAY_ALLOC(xb);
	unsigned long index;
	uint32_t id, next = 0;
	void *e;
	void *dst[4];

	(void)state;
	counters_start();
	xa_store(&xa, 1UL << 40, P(1), GFP_KERNEL);	/* allocates nodes */
	expect_locks("xa_store (allocating)", 1);
	counters_start();
	xa_store(&xa, (1UL << 40) + 1, P(2), GFP_KERNEL);
	expect_locks("xa_store", 1);
	counters_start();
	xa_store(&xa, 0, P(3), GFP_NOWAIT);
	expect_locks("xa_store GFP_NOWAIT", 1);
	counters_start();
	xa_erase(&xa, (1UL << 40) + 1);
	expect_locks("xa_erase", 1);
	counters_start();
	assert_int_equal(xa_insert(&xa, 5, P(5), GFP_KERNEL), 0);
	expect_locks("xa_insert", 1);
	counters_start();
	xa_cmpxchg(&xa, 5, P(5), P(6), GFP_KERNEL);
	expect_locks("xa_cmpxchg", 1);
	counters_start();
	xa_store_range(&xa, 64, 127, P(7), GFP_KERNEL);
	expect_locks("xa_store_range", 1);
	counters_start();
	xa_set_mark(&xa, 5, XA_MARK_0);
	expect_locks("xa_set_mark", 1);
	counters_start();
	xa_clear_mark(&xa, 5, XA_MARK_0);
	expect_locks("xa_clear_mark", 1);
	counters_start();
	assert_int_equal(xa_reserve(&xa, 9, GFP_KERNEL), 0);
	expect_locks("xa_reserve", 1);
	counters_start();
	xa_release(&xa, 9);
	expect_locks("xa_release", 1);
	counters_start();
	assert_int_equal(xa_alloc(&xb, &id, P(1), xa_limit_32b, GFP_KERNEL), 0);
	assert_int_equal(xa_alloc(&xb, &id, P(2), xa_limit_32b, GFP_KERNEL), 0);
	expect_locks("2 x xa_alloc", 2);
	counters_start();
	assert_int_equal(xa_alloc_cyclic(&xb, &id, P(3), xa_limit_32b, &next,
					 GFP_KERNEL), 0);
	expect_locks("xa_alloc_cyclic", 1);

	/*
	 * A trylock counts when it takes the lock, not when it fails: the
	 * second finds the lock the first took.
	 */
	counters_start();
	assert_true(xa_trylock(&xa));
	expect_locks("xa_trylock", 1);
	counters_start();
	assert_false(xa_trylock(&xa));
	xa_unlock(&xa);
	expect_locks("xa_trylock of a held lock", 0);

	/* Readers take no lock. */
	counters_start();
	xa_load(&xa, 5);
	xa_get_order(&xa, 64);
	xa_get_mark(&xa, 5, XA_MARK_0);
	index = 0;
	xa_find(&xa, &index, ULONG_MAX, XA_PRESENT);
	xa_find_after(&xa, &index, ULONG_MAX, XA_PRESENT);
	xa_extract(&xa, dst, 0, ULONG_MAX, 4, XA_PRESENT);
	xa_for_each(&xa, index, e)
		;
	expect_locks("readers", 0);

	assert_xa_ok(&xa);
	counters_start();
	xa_destroy(&xa);
	expect_locks("xa_destroy", 1);
	xat_fini(&xb);
	assert_xa_ok(&xa);
	assert_xa_ok(&xb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_load_one_walk),
		cmocka_unit_test(test_xas_load_store_one_walk),
		cmocka_unit_test(test_xas_store_restart_one_walk),
		cmocka_unit_test(test_find_conflict_store_one_walk),
		cmocka_unit_test(test_find_one_walk),
		cmocka_unit_test(test_no_walk),
		cmocka_unit_test(test_nodes_one_leaf),
		cmocka_unit_test(test_nodes_deep),
		cmocka_unit_test(test_nodes_multi),
		cmocka_unit_test(test_destroy_frees_all),
		cmocka_unit_test(test_lock_acquires),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
