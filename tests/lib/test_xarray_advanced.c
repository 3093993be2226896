// SPDX-License-Identifier: MIT
/*
 * tests/lib/test_xarray_advanced.c - the XArray's advanced API.
 *
 * Covers XA_STATE/XA_STATE_ORDER, xas_load/xas_store, the searches
 * (xas_find, xas_find_marked, xas_next_entry and the xas_for_each*
 * loops, xas_find_conflict), stepping with xas_next/xas_prev including
 * the ends of the tree and wrap-around, cursor management (xas_set,
 * xas_set_order, xas_advance, xas_reset, xas_retry, xas_pause while the
 * lock is dropped), error states, xas_nomem with GFP_NOWAIT and GFP_KERNEL
 * under fault injection, marks through the cursor, xas_init_marks,
 * xas_create_range, xas_get_order, the node update callback, xas_set_lru
 * and xas_destroy, as specified by include/upcache/xarray.h and the
 * implementation contract.
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

#include "fault.h"
#include "rand.h"
#include "xa_test.h"

/* ------------------------------------------------------------------ */
/* Cursors                                                            */
/* ------------------------------------------------------------------ */

static void test_xa_state(void **state)
{
	DEFINE_XARRAY(xa);
	unsigned int order;

	(void)state;
	{
		XA_STATE(xas, &xa, 5);

		assert_ptr_equal(xas.xa, &xa);
		assert_int_equal(xas.xa_index, 5);
		assert_ptr_equal(xas.xa_node, XAS_RESTART);
		assert_int_equal(xas.xa_shift, 0);
		assert_int_equal(xas.xa_sibs, 0);
		assert_null(xas.xa_alloc);
		assert_null(xas.xa_update);
		assert_null(xas.xa_lru);
		assert_int_equal(xas_error(&xas), 0);
		assert_true(xas_invalid(&xas));
		assert_false(xas_valid(&xas));
	}
	/* Orders: the range is aligned and sized 2^order. */
	for (order = 0; order <= BITS_PER_LONG; order++) {
		unsigned long index = 0x123456789abcdef5UL;
		XA_STATE_ORDER(xas, &xa, index, order);
		unsigned long nslots = (unsigned long)xas.xa_sibs + 1;

		assert_int_equal(xas_error(&xas), 0);
		assert_int_equal(xas.xa_shift % XA_CHUNK_SHIFT, 0);
		/* 2^shift * slots covers exactly 2^order indices. */
		assert_int_equal(xas.xa_shift + __builtin_ctzl(nslots), order);
		assert_int_equal(nslots & (nslots - 1), 0);
		assert_true(nslots <= XA_CHUNK_SIZE);
		if (order < BITS_PER_LONG)
			assert_int_equal(xas.xa_index, index & ~((1UL << order) - 1));
		else
			assert_int_equal(xas.xa_index, 0);

		xas_set_order(&xas, 77, order);
		assert_int_equal(xas_error(&xas), 0);
		assert_ptr_equal(xas.xa_node, XAS_RESTART);
		assert_int_equal(xas.xa_shift + __builtin_ctzl(xas.xa_sibs + 1UL),
				 order);
		if (order < BITS_PER_LONG)
			assert_int_equal(xas.xa_index, 77 & ~((1UL << order) - 1));
	}
	{
		XA_STATE_ORDER(xas, &xa, 5, BITS_PER_LONG + 1);

		assert_int_equal(xas_error(&xas), -EINVAL);
		assert_null(xas_load(&xas));
		xas_set_order(&xas, 5, 3);
		assert_int_equal(xas_error(&xas), 0);
		xas_set_order(&xas, 5, BITS_PER_LONG + 6);
		assert_int_equal(xas_error(&xas), -EINVAL);
		/* xas_set leaves the error state for a fresh walk. */
		xas_set(&xas, 9);
		assert_int_equal(xas_error(&xas), 0);
		assert_ptr_equal(xas.xa_node, XAS_RESTART);
		assert_int_equal(xas.xa_index, 9);
	}
}

static void test_xas_load_store(void **state)
{
	DEFINE_XARRAY(xa);
	XA_STATE(xas, &xa, 0);
	void *old;

	(void)state;
	xas_lock(&xas);
	/* The head. */
	assert_null(xas_load(&xas));
	assert_null(xas_store(&xas, P(0)));
	assert_ptr_equal(xas_load(&xas), P(0));
	assert_true(xas_valid(&xas));
	assert_null(xas.xa_node);
	assert_ptr_equal(xas_store(&xas, P(1)), P(0));
	assert_ptr_equal(xas_reload(&xas), P(1));

	/* Grow: index 1000. */
	xas_set(&xas, 1000);
	assert_null(xas_load(&xas));
	assert_null(xas_store(&xas, xa_mk_value(1000)));
	assert_true(xas_valid(&xas));
	assert_ptr_equal(xas_load(&xas), xa_mk_value(1000));
	assert_true(xas_is_node(&xas));
	assert_int_equal(xas.xa_node->shift, 0);
	assert_int_equal(xas.xa_offset, 1000 & XA_CHUNK_MASK);
	assert_ptr_equal(xas_reload(&xas), xa_mk_value(1000));
	xas_unlock(&xas);
	assert_xa_ok(&xa);
	xas_lock(&xas);

	/* Reserve through the advanced API: xas_store returns it raw. */
	xas_set(&xas, 1001);
	assert_null(xas_store(&xas, XA_ZERO_ENTRY));
	xas_set(&xas, 1001);
	assert_ptr_equal(xas_load(&xas), XA_ZERO_ENTRY);
	assert_ptr_equal(xas_store(&xas, P(2)), XA_ZERO_ENTRY);
	assert_ptr_equal(xas_load(&xas), P(2));

	/* Multi-index: load from any index returns the canonical entry. */
	xas_set_order(&xas, 64, 4);
	assert_null(xas_store(&xas, P(3)));
	xas_set(&xas, 70);
	assert_ptr_equal(xas_load(&xas), P(3));
	xas_set(&xas, 79);
	assert_ptr_equal(xas_load(&xas), P(3));
	assert_ptr_equal(xas_reload(&xas), P(3));
	xas_set(&xas, 80);
	assert_null(xas_load(&xas));

	/* Erase with NULL (back to order 0 first: xas_set keeps the order). */
	xas_set_order(&xas, 1000, 0);
	assert_ptr_equal(xas_store(&xas, NULL), xa_mk_value(1000));
	xas_set(&xas, 1000);
	assert_null(xas_load(&xas));
	xas_unlock(&xas);
	assert_xa_ok(&xa);

	assert_ptr_equal(xa_load(&xa, 0), P(1));
	assert_ptr_equal(xa_load(&xa, 1001), P(2));
	assert_ptr_equal(xa_load(&xa, 72), P(3));
	assert_int_equal(xa_get_order(&xa, 72), 4);

	/* Reading under RCU only. */
	rcu_read_lock();
	xas_set(&xas, 1001);
	assert_ptr_equal(xas_load(&xas), P(2));
	rcu_read_unlock();

	/* Storing over a head entry and erasing it via the cursor. */
	xas_lock(&xas);
	xas_set(&xas, 0);
	old = xas_store(&xas, NULL);
	xas_unlock(&xas);
	assert_ptr_equal(old, P(1));
	assert_null(xa_load(&xa, 0));
	xat_fini(&xa);
	assert_xa_ok(&xa);
}

/* ------------------------------------------------------------------ */
/* Searching                                                          */
/* ------------------------------------------------------------------ */

/*
 * The search fixture: 5, 7, reserved 9, [32, 47] (order 4), 1000.
 * MARK_0 on 7 and the order-4 entry; MARK_1 on 1000.
 */
static void fill_search(struct xarray *xa)
{
	xa_init(xa);
	xa_store(xa, 5, P(5), GFP_KERNEL);
	xa_store(xa, 7, P(7), GFP_KERNEL);
	assert_int_equal(xa_reserve(xa, 9, GFP_KERNEL), 0);
	xat_store_order(xa, 32, 4, P(32));
	xa_store(xa, 1000, xa_mk_value(1000), GFP_KERNEL);
	xa_set_mark(xa, 7, XA_MARK_0);
	xa_set_mark(xa, 40, XA_MARK_0);
	xa_set_mark(xa, 1000, XA_MARK_1);
	assert_xa_ok(xa);
}

/* First index past a tree whose highest index is @max_index. */
static unsigned long tree_span(unsigned long max_index)
{
	unsigned long span = XA_CHUNK_SIZE;

	while (span <= max_index)
		span <<= XA_CHUNK_SHIFT;
	return span;
}

/* expect_find() - xas_find() up to @max finds @entry with @xas at @index. */
static void expect_find(struct xa_state *xas, unsigned long max, void *entry,
			unsigned long index)
{
	assert_ptr_equal(xas_find(xas, max), entry);
	assert_int_equal(xas->xa_index, index);
}

/* expect_find_marked() - The same for xas_find_marked() with @mark. */
static void expect_find_marked(struct xa_state *xas, unsigned long max,
			       xa_mark_t mark, void *entry,
			       unsigned long index)
{
	assert_ptr_equal(xas_find_marked(xas, max, mark), entry);
	assert_int_equal(xas->xa_index, index);
}

static void test_xas_find(void **state)
{
	struct xarray xa;
	void *e;

	(void)state;
	fill_search(&xa);
	rcu_read_lock();
	{
		XA_STATE(xas, &xa, 0);

		expect_find(&xas, ULONG_MAX, P(5), 5);
		assert_true(xas_valid(&xas));
		expect_find(&xas, ULONG_MAX, P(7), 7);
		/* The advanced API sees reservations. */
		expect_find(&xas, ULONG_MAX, XA_ZERO_ENTRY, 9);
		expect_find(&xas, ULONG_MAX, P(32), 32);
		assert_int_equal(xas_get_order(&xas), 4);
		expect_find(&xas, ULONG_MAX, xa_mk_value(1000), 1000);
		assert_null(xas_find(&xas, ULONG_MAX));
		assert_ptr_equal(xas.xa_node, XAS_BOUNDS);
		assert_null(xas_find(&xas, ULONG_MAX));
	}
	{
		/* From RESTART: the entry at the index itself. */
		XA_STATE(xas, &xa, 5);

		expect_find(&xas, ULONG_MAX, P(5), 5);
		/* Inside a multi-index entry: index unchanged. */
		xas_set(&xas, 40);
		expect_find(&xas, ULONG_MAX, P(32), 40);
		expect_find(&xas, ULONG_MAX, xa_mk_value(1000), 1000);
		/* max limits the search. */
		xas_set(&xas, 48);
		assert_null(xas_find(&xas, 999));
		xas_set(&xas, 48);
		assert_ptr_equal(xas_find(&xas, 1000), xa_mk_value(1000));
		xas_set(&xas, 0);
		assert_ptr_equal(xas_find(&xas, 5), P(5));
		assert_null(xas_find(&xas, 6));
		/* Past everything. */
		xas_set(&xas, 1001);
		assert_null(xas_find(&xas, ULONG_MAX));
		assert_ptr_equal(xas.xa_node, XAS_BOUNDS);
	}
	{
		/* The loop, with xas_next_entry. */
		XA_STATE(xas, &xa, 0);
		unsigned long idx[8];
		void *ent[8];
		unsigned int n = 0;

		xas_for_each(&xas, e, ULONG_MAX) {
			assert_true(n < 8);
			idx[n] = xas.xa_index;
			ent[n++] = e;
		}
		assert_int_equal(n, 5);
		assert_int_equal(idx[0], 5);
		assert_ptr_equal(ent[0], P(5));
		assert_int_equal(idx[1], 7);
		assert_int_equal(idx[2], 9);
		assert_ptr_equal(ent[2], XA_ZERO_ENTRY);
		assert_int_equal(idx[3], 32);
		assert_ptr_equal(ent[3], P(32));
		assert_int_equal(idx[4], 1000);
		/* Bounded. */
		n = 0;
		xas_set(&xas, 6);
		xas_for_each(&xas, e, 32)
			n++;
		assert_int_equal(n, 3);
	}
	rcu_read_unlock();
	xat_fini(&xa);

	/* Head-only and empty arrays. */
	xa_store(&xa, 0, P(0), GFP_KERNEL);
	rcu_read_lock();
	{
		XA_STATE(xas, &xa, 0);

		expect_find(&xas, ULONG_MAX, P(0), 0);
		assert_null(xas_find(&xas, ULONG_MAX));
		assert_ptr_equal(xas.xa_node, XAS_BOUNDS);
		xas_set(&xas, 1);
		assert_null(xas_find(&xas, ULONG_MAX));
	}
	rcu_read_unlock();
	xa_erase(&xa, 0);
	rcu_read_lock();
	{
		XA_STATE(xas, &xa, 0);

		assert_null(xas_find(&xas, ULONG_MAX));
		assert_ptr_equal(xas.xa_node, XAS_BOUNDS);
	}
	rcu_read_unlock();
}

/* xas_for_each over a large random array matches what was stored. */
static void test_xas_for_each_random(void **state)
{
	enum { N = 3000 };
	uint64_t seed = upc_test_seed();
	struct upc_rand rnd;
	DEFINE_XARRAY(xa);
	unsigned long prev = 0, count = 0, expect = 0;
	bool first = true;
	unsigned int i;
	void *e;

	(void)state;
	upc_rand_seed(&rnd, seed ^ 0xf0f0);
	for (i = 0; i < N; i++) {
		unsigned long idx = upc_rand_chance(&rnd, 1, 2) ?
			upc_rand_below(&rnd, 20000) : upc_rand_next(&rnd);

		if (xa_insert(&xa, idx, xa_mk_value(idx >> 1), GFP_KERNEL) == 0)
			expect++;
	}
	assert_xa_ok(&xa);
	{
		XA_STATE(xas, &xa, 0);

		rcu_read_lock();
		xas_for_each(&xas, e, ULONG_MAX) {
			if (!first && xas.xa_index <= prev)
				fail_msg("seed %llu: not ascending at %#lx",
					 (unsigned long long)seed, xas.xa_index);
			if (e != xa_mk_value(xas.xa_index >> 1) ||
			    xa_load(&xa, xas.xa_index) != e)
				fail_msg("seed %llu: wrong entry at %#lx",
					 (unsigned long long)seed, xas.xa_index);
			prev = xas.xa_index;
			first = false;
			count++;
		}
		rcu_read_unlock();
	}
	if (count != expect)
		fail_msg("seed %llu: iterated %lu entries, stored %lu",
			 (unsigned long long)seed, count, expect);
	xat_fini(&xa);
}

static void test_xas_find_marked(void **state)
{
	struct xarray xa;
	void *e;

	(void)state;
	fill_search(&xa);
	rcu_read_lock();
	{
		XA_STATE(xas, &xa, 0);

		expect_find_marked(&xas, ULONG_MAX, XA_MARK_0, P(7), 7);
		assert_true(xas_get_mark(&xas, XA_MARK_0));
		expect_find_marked(&xas, ULONG_MAX, XA_MARK_0, P(32), 32);
		assert_null(xas_find_marked(&xas, ULONG_MAX, XA_MARK_0));
		/* Ran off the tree: BOUNDS, index just past the tree. */
		assert_ptr_equal(xas.xa_node, XAS_BOUNDS);
		assert_int_equal(xas.xa_index, tree_span(1000));
	}
	{
		XA_STATE(xas, &xa, 40);

		/* Starting inside a marked multi-index entry. */
		expect_find_marked(&xas, ULONG_MAX, XA_MARK_0, P(32), 40);
		xas_set(&xas, 0);
		expect_find_marked(&xas, ULONG_MAX, XA_MARK_1, xa_mk_value(1000),
				   1000);
		/* Index above max: NULL, RESTART. */
		xas_set(&xas, 50);
		assert_null(xas_find_marked(&xas, 10, XA_MARK_0));
		assert_ptr_equal(xas.xa_node, XAS_RESTART);
		/* The next marked entry is beyond max. */
		xas_set(&xas, 0);
		assert_null(xas_find_marked(&xas, 999, XA_MARK_1));
		assert_int_equal(xas_error(&xas), 0);
		xas_set(&xas, 0);
		assert_null(xas_find_marked(&xas, ULONG_MAX, XA_MARK_2));
	}
	{
		XA_STATE(xas, &xa, 0);
		unsigned int n = 0;

		xas_for_each_marked(&xas, e, ULONG_MAX, XA_MARK_0) {
			assert_true(e == P(7) || e == P(32));
			n++;
		}
		assert_int_equal(n, 2);
		n = 0;
		xas_set(&xas, 0);
		xas_for_each_marked(&xas, e, 1000, XA_MARK_1)
			n++;
		assert_int_equal(n, 1);
	}
	rcu_read_unlock();
	xat_fini(&xa);

	/* A head entry. */
	xa_store(&xa, 0, P(0), GFP_KERNEL);
	xa_set_mark(&xa, 0, XA_MARK_2);
	rcu_read_lock();
	{
		XA_STATE(xas, &xa, 0);

		expect_find_marked(&xas, ULONG_MAX, XA_MARK_2, P(0), 0);
		assert_null(xas_find_marked(&xas, ULONG_MAX, XA_MARK_2));
		assert_ptr_equal(xas.xa_node, XAS_BOUNDS);
		assert_int_equal(xas.xa_index, 1);
		xas_set(&xas, 0);
		assert_null(xas_find_marked(&xas, ULONG_MAX, XA_MARK_1));
	}
	rcu_read_unlock();
	xat_fini(&xa);
}

static void test_xas_find_free(void **state)
{
	DEFINE_XARRAY_ALLOC(xa);
	uint32_t id;
	unsigned int i;

	(void)state;
	for (i = 0; i < 3; i++)
		assert_int_equal(xa_alloc(&xa, &id, P(i), xa_limit_32b,
					  GFP_KERNEL), 0);
	rcu_read_lock();
	{
		XA_STATE(xas, &xa, 0);

		/* The free mark finds a free slot: NULL, valid cursor. */
		assert_null(xas_find_marked(&xas, ULONG_MAX, XA_FREE_MARK));
		assert_true(xas_valid(&xas));
		assert_int_equal(xas.xa_index, 3);
	}
	rcu_read_unlock();
	xa_erase(&xa, 1);
	rcu_read_lock();
	{
		XA_STATE(xas, &xa, 0);

		assert_null(xas_find_marked(&xas, ULONG_MAX, XA_FREE_MARK));
		assert_true(xas_valid(&xas));
		assert_int_equal(xas.xa_index, 1);
		/* Nothing free below max: RESTART. */
		xas_set(&xas, 2);
		assert_null(xas_find_marked(&xas, 2, XA_FREE_MARK));
		assert_ptr_equal(xas.xa_node, XAS_RESTART);
	}
	rcu_read_unlock();
	xat_fini(&xa);
}

static void test_xas_find_conflict(void **state)
{
	DEFINE_XARRAY(xa);
	void *e;
	unsigned long i;

	(void)state;
	xa_store(&xa, 63, P(63), GFP_KERNEL);
	xa_store(&xa, 70, P(70), GFP_KERNEL);
	xa_store(&xa, 100, P(100), GFP_KERNEL);
	xat_store_order(&xa, 120, 2, P(120));
	xa_store(&xa, 128, P(128), GFP_KERNEL);
	{
		XA_STATE_ORDER(xas, &xa, 64, 6);
		void *seen[8];
		unsigned int n = 0;

		xas_lock(&xas);
		xas_for_each_conflict(&xas, e) {
			assert_true(n < 8);
			seen[n++] = e;
		}
		assert_null(e);
		assert_int_equal(n, 3);
		assert_ptr_equal(seen[0], P(70));
		assert_ptr_equal(seen[1], P(100));
		assert_ptr_equal(seen[2], P(120));
		/* The cursor is placed for the store. */
		xas_store(&xas, P(64));
		xas_unlock(&xas);
		assert_int_equal(xas_error(&xas), 0);
	}
	assert_xa_ok(&xa);
	for (i = 64; i < 128; i++)
		assert_ptr_equal(xa_load(&xa, i), P(64));
	assert_int_equal(xa_get_order(&xa, 64), 6);
	assert_ptr_equal(xa_load(&xa, 63), P(63));
	assert_ptr_equal(xa_load(&xa, 128), P(128));

	/* A conflict at the first index of the range comes first. */
	xa_store(&xa, 256, P(1), GFP_KERNEL);
	xa_store(&xa, 300, P(2), GFP_KERNEL);
	{
		XA_STATE_ORDER(xas, &xa, 256, 6);
		unsigned int n = 0;

		xas_lock(&xas);
		xas_for_each_conflict(&xas, e) {
			assert_ptr_equal(e, n == 0 ? P(1) : P(2));
			n++;
		}
		assert_int_equal(n, 2);
		xas_store(&xas, P(3));
		xas_unlock(&xas);
	}
	assert_ptr_equal(xa_load(&xa, 300), P(3));
	assert_ptr_equal(xa_load(&xa, 256), P(3));
	assert_xa_ok(&xa);

	/* An entry covering the whole range (and more). */
	{
		XA_STATE_ORDER(xas, &xa, 64, 5);

		xas_lock(&xas);
		e = xas_find_conflict(&xas);
		xas_unlock(&xas);
		assert_ptr_equal(e, P(64));
	}

	/* No conflict: the loop body never runs. */
	{
		XA_STATE_ORDER(xas, &xa, 4096, 3);
		unsigned int n = 0;

		xas_lock(&xas);
		xas_for_each_conflict(&xas, e)
			n++;
		assert_int_equal(n, 0);
		xas_store(&xas, P(4));
		xas_unlock(&xas);
		assert_int_equal(xas_error(&xas), 0);
	}
	assert_ptr_equal(xa_load(&xa, 4103), P(4));
	assert_int_equal(xa_get_order(&xa, 4096), 3);
	xat_fini(&xa);

	/* Head entry conflicts with a range at 0. */
	xa_store(&xa, 0, P(0), GFP_KERNEL);
	{
		XA_STATE_ORDER(xas, &xa, 0, 2);
		unsigned int n = 0;

		xas_lock(&xas);
		xas_for_each_conflict(&xas, e) {
			assert_ptr_equal(e, P(0));
			n++;
		}
		assert_int_equal(n, 1);
		xas_store(&xas, P(5));
		xas_unlock(&xas);
	}
	for (i = 0; i < 4; i++)
		assert_ptr_equal(xa_load(&xa, i), P(5));
	assert_null(xa_load(&xa, 4));
	xat_fini(&xa);
}

/* ------------------------------------------------------------------ */
/* Stepping                                                           */
/* ------------------------------------------------------------------ */

/* expect_next() - xas_next() returns @entry and moves @xas to @index. */
static void expect_next(struct xa_state *xas, void *entry, unsigned long index)
{
	assert_ptr_equal(xas_next(xas), entry);
	assert_int_equal(xas->xa_index, index);
}

/* expect_prev() - xas_prev() returns @entry and moves @xas to @index. */
static void expect_prev(struct xa_state *xas, void *entry, unsigned long index)
{
	assert_ptr_equal(xas_prev(xas), entry);
	assert_int_equal(xas->xa_index, index);
}

static void test_xas_next_prev(void **state)
{
	DEFINE_XARRAY(xa);
	void *e;

	(void)state;
	xa_store(&xa, 0, P(0), GFP_KERNEL);
	xat_store_order(&xa, 4, 2, P(4));
	xa_store(&xa, 63, P(63), GFP_KERNEL);
	xa_store(&xa, 64, P(64), GFP_KERNEL);

	rcu_read_lock();
	{
		XA_STATE(xas, &xa, 3);

		/* From RESTART xas_next acts as xas_load. */
		expect_next(&xas, NULL, 3);
		assert_true(xas_valid(&xas));
		expect_next(&xas, P(4), 4);
		/* Raw slots: siblings. */
		e = xas_next(&xas);
		assert_int_equal(xas.xa_index, 5);
		assert_true(xa_is_sibling(e));
		assert_int_equal(xa_to_sibling(e), 4 & XA_CHUNK_MASK);
		assert_true(xa_is_sibling(xas_next(&xas)));
		assert_true(xa_is_sibling(xas_next(&xas)));
		assert_int_equal(xas.xa_index, 7);
		expect_next(&xas, NULL, 8);
		/* And back. */
		assert_true(xa_is_sibling(xas_prev(&xas)));
		assert_int_equal(xas.xa_index, 7);
		assert_true(xa_is_sibling(xas_prev(&xas)));
		assert_true(xa_is_sibling(xas_prev(&xas)));
		expect_prev(&xas, P(4), 4);
		expect_prev(&xas, NULL, 3);

		/* Across a leaf boundary. */
		xas_set(&xas, 62);
		assert_null(xas_load(&xas));
		assert_ptr_equal(xas_next(&xas), P(63));
		expect_next(&xas, P(64), 64);
		expect_next(&xas, NULL, 65);
		expect_prev(&xas, P(64), 64);
		expect_prev(&xas, P(63), 63);
		expect_prev(&xas, NULL, 62);

		/* Walk 0..200 forward and back, checking against xa_load. */
		xas_set(&xas, 0);
		e = xas_load(&xas);
		for (;;) {
			void *want = xa_load(&xa, xas.xa_index);

			if (xa_is_sibling(e))
				assert_true(xas.xa_index > 4 && xas.xa_index < 8);
			else
				assert_ptr_equal(e, want);
			if (xas.xa_index == 200)
				break;
			e = xas_next(&xas);
		}
		for (;;) {
			e = xas_prev(&xas);
			if (!xa_is_sibling(e))
				assert_ptr_equal(e, xa_load(&xa, xas.xa_index));
			if (xas.xa_index == 0)
				break;
		}
		assert_ptr_equal(e, P(0));
	}
	rcu_read_unlock();
	xat_fini(&xa);
}

static void test_xas_next_prev_bounds(void **state)
{
	DEFINE_XARRAY(xa);

	(void)state;
	/* One leaf: indices 0..XA_CHUNK_SIZE-1. */
	xa_store(&xa, 1, P(1), GFP_KERNEL);
	xa_store(&xa, XA_CHUNK_SIZE - 2, P(2), GFP_KERNEL);
	rcu_read_lock();
	{
		XA_STATE(xas, &xa, XA_CHUNK_SIZE - 2);

		assert_ptr_equal(xas_load(&xas), P(2));
		expect_next(&xas, NULL, XA_CHUNK_SIZE - 1);
		assert_true(xas_valid(&xas));
		/* Past the tree. */
		expect_next(&xas, NULL, XA_CHUNK_SIZE);
		assert_ptr_equal(xas.xa_node, XAS_BOUNDS);
		/* And back in. */
		expect_prev(&xas, NULL, XA_CHUNK_SIZE - 1);
		expect_prev(&xas, P(2), XA_CHUNK_SIZE - 2);

		/* Below 0 wraps to ULONG_MAX, outside this tree. */
		xas_set(&xas, 1);
		assert_ptr_equal(xas_load(&xas), P(1));
		expect_prev(&xas, NULL, 0);
		expect_prev(&xas, NULL, ULONG_MAX);
		assert_ptr_equal(xas.xa_node, XAS_BOUNDS);
		/* xas_next from there wraps to 0. */
		expect_next(&xas, NULL, 0);
		expect_next(&xas, P(1), 1);
	}
	rcu_read_unlock();
	xat_fini(&xa);

	/* Head only. */
	xa_store(&xa, 0, P(0), GFP_KERNEL);
	rcu_read_lock();
	{
		XA_STATE(xas, &xa, 0);

		assert_ptr_equal(xas_load(&xas), P(0));
		expect_next(&xas, NULL, 1);
		assert_ptr_equal(xas.xa_node, XAS_BOUNDS);
		expect_prev(&xas, P(0), 0);
	}
	rcu_read_unlock();
	xat_fini(&xa);
}

static void test_xas_next_prev_wrap(void **state)
{
	DEFINE_XARRAY(xa);

	(void)state;
	/* A tree that spans the whole index space. */
	xa_store(&xa, 0, P(0), GFP_KERNEL);
	xa_store(&xa, ULONG_MAX, P(1), GFP_KERNEL);
	xa_store(&xa, ULONG_MAX - 1, P(2), GFP_KERNEL);
	rcu_read_lock();
	{
		XA_STATE(xas, &xa, ULONG_MAX - 1);

		assert_ptr_equal(xas_load(&xas), P(2));
		expect_next(&xas, P(1), ULONG_MAX);
		/* Wraps to 0. */
		expect_next(&xas, P(0), 0);
		expect_next(&xas, NULL, 1);
		expect_prev(&xas, P(0), 0);
		/* And back to ULONG_MAX. */
		expect_prev(&xas, P(1), ULONG_MAX);
		assert_ptr_equal(xas_prev(&xas), P(2));
	}
	rcu_read_unlock();
	xat_fini(&xa);
}

/* xas_prev/xas_next after an xas_load that landed inside a multi-index entry. */
static void test_xas_step_from_sibling(void **state)
{
	DEFINE_XARRAY(xa);
	void *e;

	(void)state;
	xa_store(&xa, 0, P(0), GFP_KERNEL);
	/* 8..11: a canonical slot, 3 siblings */
	xat_store_order(&xa, 8, 2, P(8));
	xa_store(&xa, 12, P(12), GFP_KERNEL);
	rcu_read_lock();
	{
		XA_STATE(xas, &xa, 10);

		assert_ptr_equal(xas_load(&xas), P(8));
		e = xas_prev(&xas);
		assert_int_equal(xas.xa_index, 9);
		assert_true(xa_is_sibling(e));
		expect_prev(&xas, P(8), 8);
		xas_set(&xas, 10);
		assert_ptr_equal(xas_load(&xas), P(8));
		e = xas_next(&xas);
		assert_int_equal(xas.xa_index, 11);
		assert_true(xa_is_sibling(e));
		expect_next(&xas, P(12), 12);
	}
	rcu_read_unlock();
	xat_fini(&xa);
}

static void test_xas_advance_retry_reset(void **state)
{
	DEFINE_XARRAY(xa);

	(void)state;
	xa_store(&xa, 0, P(0), GFP_KERNEL);
	xat_store_order(&xa, 4, 2, P(4));
	xa_store(&xa, 8, P(8), GFP_KERNEL);
	rcu_read_lock();
	{
		XA_STATE(xas, &xa, 4);

		assert_ptr_equal(xas_load(&xas), P(4));
		/* Skip the siblings. */
		xas_advance(&xas, 7);
		assert_int_equal(xas.xa_index, 7);
		expect_next(&xas, P(8), 8);

		/* xas_retry. */
		assert_false(xas_retry(&xas, NULL));
		assert_false(xas_retry(&xas, P(1)));
		assert_false(xas_retry(&xas, xa_mk_value(3)));
		assert_true(xas_valid(&xas));
		assert_true(xas_retry(&xas, XA_ZERO_ENTRY));
		assert_true(xas_valid(&xas));	/* zero entry: no restart */
		assert_true(xas_retry(&xas, XA_RETRY_ENTRY));
		assert_ptr_equal(xas.xa_node, XAS_RESTART);
		assert_int_equal(xas.xa_index, 8);
		assert_ptr_equal(xas_load(&xas), P(8));

		/* xas_reset: a fresh walk at the same index. */
		xas_set_err(&xas, -EAGAIN);
		xas_reset(&xas);
		assert_int_equal(xas_error(&xas), 0);
		assert_ptr_equal(xas.xa_node, XAS_RESTART);
		assert_ptr_equal(xas_load(&xas), P(8));
		assert_true(xas_valid(&xas));
	}
	rcu_read_unlock();
	xat_fini(&xa);
}

/*
 * A reader may keep a cursor in a node that a writer takes out of the
 * tree: the node is freed only after the reader's grace period, and what
 * it held must read as a retry entry meanwhile, so that the reader walks
 * again instead of trusting a slot nobody updates any more.  Both ways a
 * node leaves: the tree shrinking back into its head, and a subtree
 * replaced by a larger entry.
 */
static void test_xas_stale_cursor_retry(void **state)
{
	DEFINE_XARRAY(xa);

	(void)state;
	xa_store(&xa, 0, P(0), GFP_KERNEL);
	xa_store(&xa, 1, P(1), GFP_KERNEL);
	rcu_read_lock();
	{
		XA_STATE(xas, &xa, 0);

		assert_ptr_equal(xas_load(&xas), P(0));
		assert_true(xas_is_node(&xas));
		/* Index 0 moves into the head; its leaf leaves the tree. */
		assert_ptr_equal(xa_erase(&xa, 1), P(1));
		assert_ptr_equal(xas_reload(&xas), XA_RETRY_ENTRY);
		assert_true(xas_retry(&xas, XA_RETRY_ENTRY));
		assert_ptr_equal(xas_load(&xas), P(0));
		assert_false(xas_is_node(&xas));
	}
	rcu_read_unlock();
	assert_xa_ok(&xa);

	xa_store(&xa, 64, P(2), GFP_KERNEL);
	xa_store(&xa, 65, P(3), GFP_KERNEL);
	rcu_read_lock();
	{
		XA_STATE(xas, &xa, 65);

		assert_ptr_equal(xas_load(&xas), P(3));
		/* An order-6 entry takes the place of the leaf under 64. */
		assert_true(xa_is_node(xat_store_order(&xa, 64, 6, P(4))));
		assert_ptr_equal(xas_reload(&xas), XA_RETRY_ENTRY);
		assert_true(xas_retry(&xas, XA_RETRY_ENTRY));
		assert_ptr_equal(xas_load(&xas), P(4));
	}
	rcu_read_unlock();
	xat_fini(&xa);
}

/*
 * An erase that frees the cursor's leaf leaves the cursor on the slot of
 * the parent that held the leaf, so a store through the same cursor puts
 * the entry back at the cursor's index, not under another slot.
 */
static void test_xas_store_after_leaf_freed(void **state)
{
	DEFINE_XARRAY(xa);
	XA_STATE(xas, &xa, 70);

	(void)state;
	xa_store(&xa, 0, P(0), GFP_KERNEL);
	xa_store(&xa, 70, P(1), GFP_KERNEL);
	xa_store(&xa, 200, P(2), GFP_KERNEL);
	xas_lock(&xas);
	assert_ptr_equal(xas_load(&xas), P(1));
	assert_ptr_equal(xas_store(&xas, NULL), P(1));
	/* The leaf went; the top node keeps 0 and 200. */
	assert_true(xas_is_node(&xas));
	assert_null(xas_store(&xas, P(3)));
	assert_int_equal(xas_error(&xas), 0);
	xas_unlock(&xas);
	assert_xa_ok(&xa);
	assert_ptr_equal(xa_load(&xa, 70), P(3));
	assert_null(xa_load(&xa, 6 * 64 + 6));
	assert_ptr_equal(xa_load(&xa, 0), P(0));
	assert_ptr_equal(xa_load(&xa, 200), P(2));
	xat_fini(&xa);
}

static void test_xas_errors(void **state)
{
	DEFINE_XARRAY(xa);
	XA_STATE(xas, &xa, 3);

	(void)state;
	xa_store(&xa, 3, P(3), GFP_KERNEL);
	xa_store(&xa, 9, P(9), GFP_KERNEL);
	xas_set_err(&xas, -EIO);
	assert_int_equal(xas_error(&xas), -EIO);
	assert_true(xas_invalid(&xas));
	assert_false(xas_valid(&xas));
	assert_false(xas_is_node(&xas));

	rcu_read_lock();
	assert_null(xas_load(&xas));
	assert_null(xas_find(&xas, ULONG_MAX));
	assert_null(xas_find_marked(&xas, ULONG_MAX, XA_MARK_0));
	assert_null(xas_next(&xas));
	assert_null(xas_prev(&xas));
	assert_int_equal(xas_error(&xas), -EIO);
	assert_int_equal(xas.xa_index, 3);
	rcu_read_unlock();

	xas_lock(&xas);
	xas_store(&xas, P(4));
	xas_set_mark(&xas, XA_MARK_0);
	xas_pause(&xas);
	assert_int_equal(xas_error(&xas), -EIO);
	xas_unlock(&xas);
	assert_ptr_equal(xa_load(&xa, 3), P(3));
	assert_false(xa_marked(&xa, XA_MARK_0));
	assert_xa_ok(&xa);

	/* BOUNDS and RESTART are not errors, but not valid cursors. */
	xas_set(&xas, 3);
	assert_int_equal(xas_error(&xas), 0);
	assert_true(xas_invalid(&xas));
	rcu_read_lock();
	assert_ptr_equal(xas_load(&xas), P(3));
	assert_true(xas_valid(&xas));
	assert_true(xas_is_node(&xas));
	xas_set(&xas, 1UL << 40);
	assert_null(xas_load(&xas));
	assert_int_equal(xas_error(&xas), 0);
	rcu_read_unlock();
	xas.xa_node = XAS_BOUNDS;
	assert_true(xas_invalid(&xas));
	assert_int_equal(xas_error(&xas), 0);
	xat_fini(&xa);
}

static void test_xas_pause_positions(void **state)
{
	DEFINE_XARRAY(xa);

	(void)state;
	/* Head entry. */
	xa_store(&xa, 0, P(0), GFP_KERNEL);
	rcu_read_lock();
	{
		XA_STATE(xas, &xa, 0);

		assert_ptr_equal(xas_load(&xas), P(0));
		xas_pause(&xas);
		assert_int_equal(xas.xa_index, 1);
		assert_ptr_equal(xas.xa_node, XAS_RESTART);
		assert_null(xas_find(&xas, ULONG_MAX));
	}
	rcu_read_unlock();

	xat_store_order(&xa, 16, 4, P(16));	/* 16..31 */
	xa_store(&xa, 40, P(40), GFP_KERNEL);
	xat_store_order(&xa, 1UL << 20, 12, P(20));
	xa_store(&xa, ULONG_MAX, P(99), GFP_KERNEL);
	rcu_read_lock();
	{
		XA_STATE(xas, &xa, 16);

		assert_ptr_equal(xas_load(&xas), P(16));
		xas_pause(&xas);
		assert_int_equal(xas.xa_index, 32);
		assert_ptr_equal(xas.xa_node, XAS_RESTART);
		assert_ptr_equal(xas_find(&xas, ULONG_MAX), P(40));

		/* From an index inside the entry: still the next entry's start. */
		xas_set(&xas, 20);
		assert_ptr_equal(xas_load(&xas), P(16));
		xas_pause(&xas);
		assert_int_equal(xas.xa_index, 32);
		assert_ptr_equal(xas.xa_node, XAS_RESTART);

		xas_set(&xas, (1UL << 20) + 5);
		assert_ptr_equal(xas_load(&xas), P(20));
		xas_pause(&xas);
		assert_int_equal(xas.xa_index, (1UL << 20) + 4096);
		assert_ptr_equal(xas.xa_node, XAS_RESTART);

		/* Found by xas_find. */
		xas_set(&xas, 33);
		assert_ptr_equal(xas_find(&xas, ULONG_MAX), P(40));
		xas_pause(&xas);
		assert_int_equal(xas.xa_index, 41);

		/* The last index: the cursor wraps, so BOUNDS. */
		xas_set(&xas, ULONG_MAX);
		assert_ptr_equal(xas_load(&xas), P(99));
		xas_pause(&xas);
		assert_ptr_equal(xas.xa_node, XAS_BOUNDS);
		assert_null(xas_find(&xas, ULONG_MAX));
	}
	rcu_read_unlock();
	xat_fini(&xa);

	/* An order-64 entry. */
	xat_store_order(&xa, 0, BITS_PER_LONG, P(64));
	rcu_read_lock();
	{
		XA_STATE(xas, &xa, 12345);

		assert_ptr_equal(xas_load(&xas), P(64));
		xas_pause(&xas);
		assert_ptr_equal(xas.xa_node, XAS_BOUNDS);
	}
	rcu_read_unlock();
	xat_fini(&xa);
}

static bool in_sorted(const unsigned long *v, size_t n, unsigned long x)
{
	return bsearch(&x, v, n, sizeof(*v), xat_cmp_ulong) != NULL;
}

/*
 * Iterate under the lock, pausing and dropping it every few entries; while
 * it is dropped, erase entries already seen, insert entries behind the
 * cursor (never to be seen) and ahead of it (to be seen).
 */
static void test_xas_pause_iteration(void **state)
{
	enum { N = 600 };
	uint64_t seed = upc_test_seed();
	struct upc_rand rnd;
	DEFINE_XARRAY(xa);
	unsigned long *orig, *ahead;
	unsigned int norig = 0, nahead = 0, nbehind = 0, i;
	unsigned int seen_orig = 0, seen_ahead = 0, seen = 0;
	unsigned long last = 0;
	bool any = false;
	void *e;

	(void)state;
	upc_rand_seed(&rnd, seed ^ 0x9a05e);
	orig = calloc(N + 1, sizeof(*orig));
	ahead = calloc(N, sizeof(*ahead));
	assert_non_null(orig);
	assert_non_null(ahead);
	for (i = 0; i < N; i++) {
		unsigned long idx = upc_rand_chance(&rnd, 2, 3) ?
			upc_rand_below(&rnd, 1UL << 16) : upc_rand_next(&rnd);

		if (xa_insert(&xa, idx, xa_mk_value(0), GFP_KERNEL) == 0)
			orig[norig++] = idx;
	}
	if (xa_insert(&xa, ULONG_MAX, xa_mk_value(0), GFP_KERNEL) == 0)
		orig[norig++] = ULONG_MAX;
	qsort(orig, norig, sizeof(*orig), xat_cmp_ulong);
	assert_xa_ok(&xa);

	{
		XA_STATE(xas, &xa, 0);

		xas_lock(&xas);
		xas_for_each(&xas, e, ULONG_MAX) {
			unsigned long cur = xas.xa_index;

			if (xas_retry(&xas, e))
				continue;
			if (any && cur <= last)
				fail_msg("seed %llu: index %#lx after %#lx",
					 (unsigned long long)seed, cur, last);
			any = true;
			last = cur;
			seen++;
			if (e == xa_mk_value(0)) {
				if (!in_sorted(orig, norig, cur))
					fail_msg("seed %llu: unknown entry at %#lx",
						 (unsigned long long)seed, cur);
				seen_orig++;
			} else if (e == xa_mk_value(2)) {
				seen_ahead++;
			} else {
				fail_msg("seed %llu: entry %p at %#lx stored behind the cursor",
					 (unsigned long long)seed, e, cur);
			}
			if (seen % 3)
				continue;
			xas_pause(&xas);
			xas_unlock(&xas);
			/* Erase the current entry. */
			xa_erase(&xa, cur);
			/* Insert one behind: must not be seen. */
			if (cur > 0) {
				unsigned long b = upc_rand_below(&rnd, cur);

				if (xa_insert(&xa, b, xa_mk_value(1), GFP_KERNEL) == 0)
					nbehind++;
			}
			/* Insert one ahead: must be seen. */
			if (cur < ULONG_MAX - 1) {
				unsigned long a = cur + 1 +
					upc_rand_below(&rnd, ULONG_MAX - cur - 1);

				if (upc_rand_chance(&rnd, 1, 2) && cur < (1UL << 16))
					a = cur + 1 + upc_rand_below(&rnd, 100);
				if (!in_sorted(orig, norig, a) &&
				    xa_insert(&xa, a, xa_mk_value(2), GFP_KERNEL) == 0)
					ahead[nahead++] = a;
			}
			xas_lock(&xas);
		}
		xas_unlock(&xas);
	}
	if (seen_orig != norig || seen_ahead != nahead)
		fail_msg("seed %llu: saw %u/%u original and %u/%u ahead entries",
			 (unsigned long long)seed, seen_orig, norig, seen_ahead,
			 nahead);
	assert_true(nbehind > 0);
	xat_fini(&xa);
	free(orig);
	free(ahead);
}

/* ------------------------------------------------------------------ */
/* Memory                                                             */
/* ------------------------------------------------------------------ */

static void test_xas_nomem(void **state)
{
	DEFINE_XARRAY(xa);
	struct upc_thread_stats s0, s1;
	const gfp_t gfps[] = { GFP_KERNEL, GFP_NOWAIT };
	unsigned int g;

	(void)state;
	for (g = 0; g < 2; g++) {
		XA_STATE(xas, &xa, 1);
		unsigned int loops = 0;

		xa_store(&xa, 0, P(0), GFP_KERNEL);
		/* Index 1 needs the first node; its allocation fails once. */
		upc_fault_fail_nth(1);
		do {
			loops++;
			xas_lock(&xas);
			xas_store(&xas, P(1));
			xas_unlock(&xas);
			if (loops == 1) {
				assert_int_equal(xas_error(&xas), -ENOMEM);
				assert_null(xa_load(&xa, 1));
				assert_ptr_equal(xa_load(&xa, 0), P(0));
				assert_xa_ok(&xa);
			}
		} while (xas_nomem(&xas, gfps[g]));
		upc_fault_fail_nth(0);
		assert_int_equal(loops, 2);
		assert_int_equal(xas_error(&xas), 0);
		assert_null(xas.xa_alloc);
		assert_ptr_equal(xa_load(&xa, 1), P(1));
		assert_ptr_equal(xa_load(&xa, 0), P(0));
		xat_fini(&xa);
	}

	/* xas_nomem itself failing: false, error kept. */
	{
		XA_STATE(xas, &xa, 1);

		xa_store(&xa, 0, P(0), GFP_KERNEL);
		upc_fault_fail_nth(1);
		xas_lock(&xas);
		xas_store(&xas, P(1));
		xas_unlock(&xas);
		assert_int_equal(xas_error(&xas), -ENOMEM);
		upc_fault_fail_nth(1);
		assert_false(xas_nomem(&xas, GFP_KERNEL));
		assert_true(upc_fault_injected());
		upc_fault_fail_nth(0);
		assert_int_equal(xas_error(&xas), -ENOMEM);
		assert_null(xas.xa_alloc);
		assert_null(xa_load(&xa, 1));
		xat_fini(&xa);
	}

	/* A failing xas_nomem also frees what the cursor had preallocated. */
	{
		XA_STATE(xas, &xa, 1);

		upc_stats_thread(&s0);
		xas_set_err(&xas, -ENOMEM);
		assert_true(xas_nomem(&xas, GFP_KERNEL));
		assert_non_null(xas.xa_alloc);
		xas_set_err(&xas, -ENOMEM);
		upc_fault_fail_nth(1);
		assert_false(xas_nomem(&xas, GFP_KERNEL));
		upc_fault_fail_nth(0);
		assert_null(xas.xa_alloc);
		upc_stats_thread(&s1);
		assert_int_equal(s1.xa_node_allocs - s0.xa_node_allocs,
				 s1.xa_node_frees - s0.xa_node_frees);
	}

	/* No error, or another error: false, nothing allocated. */
	{
		XA_STATE(xas, &xa, 1);

		upc_stats_thread(&s0);
		assert_false(xas_nomem(&xas, GFP_KERNEL));
		xas_set_err(&xas, -EINVAL);
		assert_false(xas_nomem(&xas, GFP_KERNEL));
		assert_int_equal(xas_error(&xas), -EINVAL);
		upc_stats_thread(&s1);
		assert_int_equal(s1.xa_node_allocs, s0.xa_node_allocs);
		assert_null(xas.xa_alloc);
	}

	/* -ENOMEM: one node, cursor restarted; xas_destroy frees it. */
	{
		XA_STATE(xas, &xa, 1);

		upc_stats_thread(&s0);
		xas_set_err(&xas, -ENOMEM);
		assert_true(xas_nomem(&xas, GFP_NOWAIT));
		assert_int_equal(xas_error(&xas), 0);
		assert_ptr_equal(xas.xa_node, XAS_RESTART);
		assert_non_null(xas.xa_alloc);
		upc_stats_thread(&s1);
		assert_int_equal(s1.xa_node_allocs - s0.xa_node_allocs, 1);
		xas_destroy(&xas);
		assert_null(xas.xa_alloc);
		upc_stats_thread(&s1);
		assert_int_equal(s1.xa_node_frees - s0.xa_node_frees, 1);
		/* Destroying twice is harmless. */
		xas_destroy(&xas);
		upc_stats_thread(&s1);
		assert_int_equal(s1.xa_node_frees - s0.xa_node_frees, 1);
	}

	/* A preallocated node is used before allocating. */
	{
		XA_STATE(xas, &xa, 1);

		xa_store(&xa, 0, P(0), GFP_KERNEL);
		xas_set_err(&xas, -ENOMEM);
		assert_true(xas_nomem(&xas, GFP_KERNEL));
		upc_stats_thread(&s0);
		xas_lock(&xas);
		xas_store(&xas, P(1));
		xas_unlock(&xas);
		upc_stats_thread(&s1);
		assert_int_equal(xas_error(&xas), 0);
		assert_int_equal(s1.xa_node_allocs, s0.xa_node_allocs);
		assert_null(xas.xa_alloc);
		assert_false(xas_nomem(&xas, GFP_KERNEL));
		assert_ptr_equal(xa_load(&xa, 1), P(1));
		xat_fini(&xa);
	}

	/* An unused preallocation is freed by the final xas_nomem. */
	{
		XA_STATE(xas, &xa, 0);

		xas_set_err(&xas, -ENOMEM);
		assert_true(xas_nomem(&xas, GFP_KERNEL));
		upc_stats_thread(&s0);
		xas_lock(&xas);
		xas_store(&xas, P(0));	/* the head: no node needed */
		xas_unlock(&xas);
		assert_false(xas_nomem(&xas, GFP_KERNEL));
		upc_stats_thread(&s1);
		assert_null(xas.xa_alloc);
		assert_int_equal(s1.xa_node_frees - s0.xa_node_frees, 1);
		xat_fini(&xa);
	}
}

/*
 * nomem_scenario() - Store @index into an array holding @pre (@npre
 * indices), failing each node allocation in turn: the failed store
 * changes nothing and leaves no node behind, xas_nomem() recovers, and
 * the normal API's xa_store() with GFP_KERNEL succeeds despite the fault.
 */
static void nomem_scenario(const unsigned long *pre, unsigned int npre,
			   unsigned long index, unsigned long min_allocs)
{
	DEFINE_XARRAY(xa);
	int64_t live;
	unsigned long nth, attempts, before_nodes;
	unsigned int i;

	for (i = 0; i < npre; i++)
		assert_null(xa_store(&xa, pre[i], P(i), GFP_KERNEL));
	before_nodes = xat_count_nodes(&xa);
	for (nth = 1; ; nth++) {
		XA_STATE(xas, &xa, index);
		unsigned int loops = 0;

		live = xat_nodes_live();
		upc_fault_fail_nth(nth);
		xas_lock(&xas);
		xas_store(&xas, P(100));
		xas_unlock(&xas);
		attempts = upc_fault_attempts();
		if (!upc_fault_injected()) {
			upc_fault_fail_nth(0);
			assert_int_equal(xas_error(&xas), 0);
			assert_false(xas_nomem(&xas, GFP_KERNEL));
			assert_int_equal(attempts, nth - 1);
			break;
		}
		upc_fault_fail_nth(0);
		/* Nothing changed, no node left behind. */
		assert_int_equal(xas_error(&xas), -ENOMEM);
		assert_null(xa_load(&xa, index));
		for (i = 0; i < npre; i++)
			assert_ptr_equal(xa_load(&xa, pre[i]), P(i));
		if (xat_count_nodes(&xa) != before_nodes)
			fail_msg("store at %#lx, allocation %lu failed: %lu nodes, had %lu",
				 index, nth, xat_count_nodes(&xa), before_nodes);
		assert_xa_ok(&xa);
		/* Recover. */
		while (xas_nomem(&xas, GFP_KERNEL)) {
			loops++;
			xas_lock(&xas);
			xas_store(&xas, P(100));
			xas_unlock(&xas);
		}
		assert_int_equal(loops, 1);
		assert_int_equal(xas_error(&xas), 0);
		assert_ptr_equal(xa_load(&xa, index), P(100));
		assert_xa_ok(&xa);
		xa_erase(&xa, index);
		assert_xa_ok(&xa);
		assert_int_equal(xat_count_nodes(&xa), before_nodes);
		/* Back to the same shape: every node allocated was freed. */
		assert_int_equal(xat_nodes_live(), live);

		/* The normal API retries with GFP_KERNEL and succeeds. */
		upc_fault_fail_nth(nth);
		assert_null(xa_store(&xa, index, P(101), GFP_KERNEL));
		upc_fault_fail_nth(0);
		assert_ptr_equal(xa_load(&xa, index), P(101));
		assert_xa_ok(&xa);
		xa_erase(&xa, index);
		assert_int_equal(xat_count_nodes(&xa), before_nodes);
		assert_true(nth < 64);
	}
	assert_true(nth > min_allocs);
	xat_fini(&xa);
}

/* Into an empty array: the first node fails. */
static void test_nomem_empty(void **state)
{
	(void)state;
	nomem_scenario(NULL, 0, 1, 1);
	nomem_scenario(NULL, 0, 1UL << 13, 3);
	nomem_scenario(NULL, 0, ULONG_MAX, 2);
}

/* Growing a head entry into a tree. */
static void test_nomem_expand(void **state)
{
	static const unsigned long head[] = { 0 };

	(void)state;
	nomem_scenario(head, 1, 1, 1);
	nomem_scenario(head, 1, 1UL << 30, 3);
}

/* Growing an existing tree upwards and then down a new path. */
static void test_nomem_deep(void **state)
{
	static const unsigned long pre[] = { 0, 5 };
	static const unsigned long pre2[] = { 0, 5, 70, 4097 };

	(void)state;
	nomem_scenario(pre, 2, XA_CHUNK_SIZE, 2);
	nomem_scenario(pre, 2, 1UL << 40, 3);
	nomem_scenario(pre2, 4, 4096 + 64 * 5, 1);
	nomem_scenario(pre2, 4, ULONG_MAX, 3);
}

/* ------------------------------------------------------------------ */
/* Marks through the cursor                                           */
/* ------------------------------------------------------------------ */

/* init_marks_at() - xas_init_marks() on the entry at @index, locked. */
static void init_marks_at(struct xarray *xa, unsigned long index)
{
	XA_STATE(xas, xa, index);

	xas_lock(&xas);
	xas_load(&xas);
	xas_init_marks(&xas);
	xas_unlock(&xas);
}

static void test_xas_marks(void **state)
{
	DEFINE_XARRAY(xa);
	xa_mark_t m;

	(void)state;
	xa_store(&xa, 3, P(3), GFP_KERNEL);
	xat_store_order(&xa, 64, 5, P(64));
	{
		XA_STATE(xas, &xa, 3);

		xas_lock(&xas);
		assert_ptr_equal(xas_load(&xas), P(3));
		assert_false(xas_get_mark(&xas, XA_MARK_1));
		xas_set_mark(&xas, XA_MARK_1);
		assert_true(xas_get_mark(&xas, XA_MARK_1));
		assert_false(xas_get_mark(&xas, XA_MARK_0));
		assert_true(xas_marked(&xas, XA_MARK_1));
		xas_unlock(&xas);
		assert_true(xa_get_mark(&xa, 3, XA_MARK_1));
		assert_xa_ok(&xa);

		xas_lock(&xas);
		xas_set(&xas, 90);	/* inside 64..95 */
		assert_ptr_equal(xas_load(&xas), P(64));
		xas_set_mark(&xas, XA_MARK_2);
		xas_unlock(&xas);
		assert_true(xa_get_mark(&xa, 64, XA_MARK_2));
		assert_true(xa_get_mark(&xa, 95, XA_MARK_2));
		assert_xa_ok(&xa);

		xas_lock(&xas);
		xas_set(&xas, 3);
		xas_load(&xas);
		xas_clear_mark(&xas, XA_MARK_1);
		assert_false(xas_get_mark(&xas, XA_MARK_1));
		xas_unlock(&xas);
		assert_false(xa_marked(&xa, XA_MARK_1));
		assert_xa_ok(&xa);
	}

	/* xas_init_marks clears every mark in a plain array. */
	for (m = XA_MARK_0; m <= XA_MARK_MAX; m++) {
		xa_set_mark(&xa, 3, m);
		xa_set_mark(&xa, 70, m);
	}
	init_marks_at(&xa, 70);
	assert_xa_ok(&xa);
	for (m = XA_MARK_0; m <= XA_MARK_MAX; m++) {
		assert_false(xa_get_mark(&xa, 64, m));
		assert_true(xa_get_mark(&xa, 3, m));
	}
	init_marks_at(&xa, 3);
	assert_xa_ok(&xa);
	for (m = XA_MARK_0; m <= XA_MARK_MAX; m++) {
		assert_false(xa_get_mark(&xa, 3, m));
		assert_false(xa_marked(&xa, m));
	}

	/* The head entry. */
	xat_fini(&xa);
	xa_store(&xa, 0, P(0), GFP_KERNEL);
	{
		XA_STATE(xas, &xa, 0);

		xas_lock(&xas);
		xas_load(&xas);
		xas_set_mark(&xas, XA_MARK_0);
		assert_true(xas_get_mark(&xas, XA_MARK_0));
		xas_unlock(&xas);
		assert_true(xa_marked(&xa, XA_MARK_0));
		assert_true(xa_get_mark(&xa, 0, XA_MARK_0));
		xas_lock(&xas);
		xas_clear_mark(&xas, XA_MARK_0);
		xas_unlock(&xas);
		assert_false(xa_marked(&xa, XA_MARK_0));
	}
	xat_fini(&xa);
}

/* ------------------------------------------------------------------ */
/* xas_create_range, xas_get_order                                    */
/* ------------------------------------------------------------------ */

static void test_xas_create_range(void **state)
{
	DEFINE_XARRAY(xa);
	struct upc_thread_stats s0, s1;
	unsigned long i;

	(void)state;
	xa_store(&xa, 800, P(1), GFP_KERNEL);
	xa_store(&xa, 5000, P(2), GFP_KERNEL);
	{
		XA_STATE_ORDER(xas, &xa, 1000, 8);	/* 768..1023 */
		bool done = false;

		do {
			xas_lock(&xas);
			xas_create_range(&xas);
			if (!xas_error(&xas)) {
				assert_int_equal(xas.xa_index, 768);
				assert_int_equal(xas.xa_shift, 0);
				assert_int_equal(xas.xa_sibs, 0);
				/* Existing entries are untouched. */
				assert_ptr_equal(xa_load(&xa, 800), P(1));
				assert_null(xa_load(&xa, 768));
				/* Every slot exists: filling allocates nothing. */
				upc_stats_thread(&s0);
				for (i = 768; i < 1024; i++) {
					void *old = xas_store(&xas, xa_mk_value(i));

					assert_int_equal(xas_error(&xas), 0);
					assert_ptr_equal(old, i == 800 ? P(1) : NULL);
					xas_next(&xas);
				}
				upc_stats_thread(&s1);
				assert_int_equal(s1.xa_node_allocs, s0.xa_node_allocs);
				done = true;
			}
			xas_unlock(&xas);
		} while (xas_nomem(&xas, GFP_KERNEL));
		assert_true(done);
	}
	assert_xa_ok(&xa);
	for (i = 760; i < 1030; i++) {
		if (i >= 768 && i < 1024)
			assert_ptr_equal(xa_load(&xa, i), xa_mk_value(i));
		else
			assert_null(xa_load(&xa, i));
		assert_int_equal(xa_get_order(&xa, i), 0);
	}
	assert_ptr_equal(xa_load(&xa, 5000), P(2));

	/* A range high up, in a fresh array, with fault injection. */
	xat_fini(&xa);
	xa_store(&xa, 0, P(0), GFP_KERNEL);
	{
		unsigned long base = (1UL << 40) + (1UL << 12);
		XA_STATE_ORDER(xas, &xa, base, 7);
		unsigned int loops = 0;

		upc_fault_fail_nth(2);
		do {
			loops++;
			xas_lock(&xas);
			xas_create_range(&xas);
			if (!xas_error(&xas)) {
				upc_stats_thread(&s0);
				for (i = 0; i < 128; i++) {
					xas_store(&xas, P(i));
					xas_next(&xas);
				}
				upc_stats_thread(&s1);
				assert_int_equal(s1.xa_node_allocs, s0.xa_node_allocs);
			}
			xas_unlock(&xas);
		} while (xas_nomem(&xas, GFP_KERNEL));
		upc_fault_fail_nth(0);
		assert_int_equal(xas_error(&xas), 0);
		assert_true(loops >= 2);
		assert_xa_ok(&xa);
		for (i = 0; i < 128; i++)
			assert_ptr_equal(xa_load(&xa, base + i), P(i));
		assert_null(xa_load(&xa, base + 128));
		assert_null(xa_load(&xa, base - 1));
		assert_ptr_equal(xa_load(&xa, 0), P(0));
	}
	xat_fini(&xa);

	/*
	 * A failed range that ends at ULONG_MAX: removing the nodes it
	 * created stops at the last index instead of wrapping round to 0.
	 */
	xa_store(&xa, 0, P(0), GFP_KERNEL);
	{
		XA_STATE_ORDER(xas, &xa, ULONG_MAX, 7);

		upc_fault_fail_nth(2);
		xas_lock(&xas);
		xas_create_range(&xas);
		xas_unlock(&xas);
		upc_fault_fail_nth(0);
		assert_int_equal(xas_error(&xas), -ENOMEM);
		xas_destroy(&xas);
		assert_xa_ok(&xa);
		assert_int_equal(xat_count_nodes(&xa), 0);
		assert_ptr_equal(xa_load(&xa, 0), P(0));
	}
	xat_fini(&xa);
	assert_xa_ok(&xa);
}

/*
 * A range smaller than a leaf (order below XA_CHUNK_SHIFT) ends inside
 * its chunk: xas_create_range() creates that one leaf and stops at the
 * range's last index.  Allocations past the first fail, so a creation
 * that ran on into the next chunks would report -ENOMEM.
 */
static void test_xas_create_range_small(void **state)
{
	DEFINE_XARRAY(xa);
	struct upc_thread_stats s0, s1;
	unsigned long i;

	(void)state;
	{
		XA_STATE_ORDER(xas, &xa, 8, 3);

		upc_stats_thread(&s0);
		upc_fault_fail_from(2);
		xas_lock(&xas);
		xas_create_range(&xas);
		assert_int_equal(xas_error(&xas), 0);
		for (i = 8; i < 16; i++) {
			assert_int_equal(xas.xa_index, i);
			assert_null(xas_store(&xas, xa_mk_value(i)));
			xas_next(&xas);
		}
		xas_unlock(&xas);
		upc_fault_fail_nth(0);
		upc_stats_thread(&s1);
		assert_int_equal(s1.xa_node_allocs - s0.xa_node_allocs, 1);
	}
	assert_xa_ok(&xa);
	assert_int_equal(xat_count_nodes(&xa), 1);
	for (i = 0; i < 64; i++)
		assert_ptr_equal(xa_load(&xa, i),
				 i >= 8 && i < 16 ? xa_mk_value(i) : NULL);
	xat_fini(&xa);
}

static void test_xas_get_order(void **state)
{
	static const unsigned int orders[] = {
		0, 1, 2, 5, 6, 7, 11, 12, 13, 20, 30, 59, 60, 61, 63, 64,
	};
	DEFINE_XARRAY(xa);
	unsigned int i;

	(void)state;
	/* The head. */
	xa_store(&xa, 0, P(0), GFP_KERNEL);
	{
		XA_STATE(xas, &xa, 0);

		rcu_read_lock();
		assert_ptr_equal(xas_load(&xas), P(0));
		assert_int_equal(xas_get_order(&xas), 0);
		rcu_read_unlock();
	}
	xat_fini(&xa);

	for (i = 0; i < sizeof(orders) / sizeof(orders[0]); i++) {
		unsigned int order = orders[i];
		unsigned long base = order >= BITS_PER_LONG ? 0 :
			(0x5a5a5a5a5a5a5a5aUL >> order) << order;
		unsigned long inside = order >= BITS_PER_LONG ? 0x1234UL :
			base + ((1UL << order) - 1) / 3;
		XA_STATE(xas, &xa, inside);

		if (order < BITS_PER_LONG)
			xa_store(&xa, base ^ (1UL << 63), P(1), GFP_KERNEL);
		xat_store_order(&xa, base, order, P(2));
		rcu_read_lock();
		assert_ptr_equal(xas_load(&xas), P(2));
		if (xas_get_order(&xas) != (int)order)
			fail_msg("order %u: xas_get_order %d", order,
				 xas_get_order(&xas));
		xas_set(&xas, base);
		xas_load(&xas);
		assert_int_equal(xas_get_order(&xas), order);
		rcu_read_unlock();
		assert_int_equal(xa_get_order(&xa, inside), order);
		xat_fini(&xa);
	}
}

/* ------------------------------------------------------------------ */
/* Update callback, LRU, destroy                                      */
/* ------------------------------------------------------------------ */

struct upd_rec {
	struct xa_node *node;
	unsigned int shift;
	unsigned int count;
	unsigned int nr_values;
	unsigned int slots_used;
	unsigned int slots_values;
	bool locked;
	bool right_array;
};

static struct upd_rec upd_log[1024];
static unsigned int upd_nr;
static struct xarray *upd_xa;

static void upd_cb(struct xa_node *node)
{
	struct upd_rec *r;
	unsigned int i;

	if (upd_nr >= 1024)
		return;
	r = &upd_log[upd_nr++];
	r->node = node;
	r->shift = node->shift;
	r->count = node->count;
	r->nr_values = node->nr_values;
	r->locked = upc_lock_is_held(&upd_xa->xa_lock);
	r->right_array = node->array == upd_xa;
	r->slots_used = 0;
	r->slots_values = 0;
	for (i = 0; i < XA_CHUNK_SIZE; i++) {
		void *e = node->slots[i];

		if (!e)
			continue;
		r->slots_used++;
		if (xa_is_sibling(e))
			e = node->slots[xa_to_sibling(e)];
		if (xa_is_value(e))
			r->slots_values++;
	}
}

static void *upd_store(struct xarray *xa, unsigned long index, void *entry)
{
	XA_STATE(xas, xa, index);

	xas_set_update(&xas, upd_cb);
	assert_ptr_equal(xas.xa_update, upd_cb);
	return xat_store_xas(&xas, entry);
}

/* The last record of @node, or NULL. */
static const struct upd_rec *upd_last(const struct xa_node *node)
{
	unsigned int i = upd_nr;

	while (i--)
		if (upd_log[i].node == node)
			return &upd_log[i];
	return NULL;
}

/* Nodes whose last record has count 0: those reported as freed. */
static unsigned int upd_count_freed(void)
{
	unsigned int i, freed = 0;

	for (i = 0; i < upd_nr; i++)
		if (upd_last(upd_log[i].node) == &upd_log[i] &&
		    upd_log[i].count == 0)
			freed++;
	return freed;
}

static void upd_check_records(void)
{
	unsigned int i;

	assert_true(upd_nr < 1024);
	for (i = 0; i < upd_nr; i++) {
		const struct upd_rec *r = &upd_log[i];

		assert_true(r->locked);
		assert_true(r->right_array);
		assert_true(r->nr_values <= r->count);
		assert_true(r->count <= XA_CHUNK_SIZE);
		/*
		 * A leaf is reported after its slots changed; interior nodes
		 * may be reported while a child is being linked in.
		 */
		if (r->shift == 0 && r->count) {
			assert_int_equal(r->count, r->slots_used);
			assert_int_equal(r->nr_values, r->slots_values);
		}
	}
}

static void test_xas_set_update(void **state)
{
	DEFINE_XARRAY(xa);
	const struct upd_rec *r;
	struct xa_node *leaf;
	struct upc_thread_stats s0, s1;
	static const unsigned long idx[] = {
		0, 1, 64, 4096, 1UL << 20, 1UL << 40, ULONG_MAX, 65, 4097,
	};
	unsigned int i, nodes, freed;

	(void)state;
	upd_xa = &xa;
	upd_nr = 0;
	/* A value at 1 creates one leaf. */
	assert_null(upd_store(&xa, 1, xa_mk_value(1)));
	assert_true(xa_is_node(xa.xa_head));
	leaf = xa_to_node(xa.xa_head);
	r = upd_last(leaf);
	assert_non_null(r);
	assert_int_equal(r->count, 1);
	assert_int_equal(r->nr_values, 1);
	/* A pointer next to it. */
	assert_null(upd_store(&xa, 2, P(2)));
	r = upd_last(leaf);
	assert_int_equal(r->count, 2);
	assert_int_equal(r->nr_values, 1);
	/* Replace the pointer by a value: nr_values changes. */
	assert_ptr_equal(upd_store(&xa, 2, xa_mk_value(2)), P(2));
	r = upd_last(leaf);
	assert_int_equal(r->count, 2);
	assert_int_equal(r->nr_values, 2);
	/* Erase 1. */
	assert_ptr_equal(upd_store(&xa, 1, NULL), xa_mk_value(1));
	r = upd_last(leaf);
	assert_int_equal(r->count, 1);
	assert_int_equal(r->nr_values, 1);
	/* Erase 2: the leaf is freed, seen with count 0 first. */
	upc_stats_thread(&s0);
	assert_ptr_equal(upd_store(&xa, 2, NULL), xa_mk_value(2));
	upc_stats_thread(&s1);
	assert_int_equal(s1.xa_node_frees - s0.xa_node_frees, 1);
	r = upd_last(leaf);
	assert_int_equal(r->count, 0);
	assert_true(xa_empty(&xa));
	upd_check_records();
	assert_xa_ok(&xa);

	/* A deeper tree: every node allocated is reported. */
	upd_nr = 0;
	upc_stats_thread(&s0);
	for (i = 0; i < sizeof(idx) / sizeof(idx[0]); i++)
		upd_store(&xa, idx[i], xa_mk_value(i));
	upc_stats_thread(&s1);
	assert_xa_ok(&xa);
	upd_check_records();
	nodes = 0;
	for (i = 0; i < upd_nr; i++) {
		unsigned int j;

		for (j = 0; j < i; j++)
			if (upd_log[j].node == upd_log[i].node)
				break;
		if (j == i)
			nodes++;
	}
	assert_int_equal(nodes, s1.xa_node_allocs - s0.xa_node_allocs);
	assert_int_equal(nodes, xat_count_nodes(&xa));

	/* Erase everything: each freed node's last report has count 0. */
	upd_nr = 0;
	upc_stats_thread(&s0);
	for (i = sizeof(idx) / sizeof(idx[0]); i--; )
		assert_ptr_equal(upd_store(&xa, idx[i], NULL), xa_mk_value(i));
	upc_stats_thread(&s1);
	assert_true(xa_empty(&xa));
	upd_check_records();
	freed = upd_count_freed();
	assert_int_equal(freed, s1.xa_node_frees - s0.xa_node_frees);
	assert_int_equal(freed, nodes);
	assert_xa_ok(&xa);
	upd_xa = NULL;
}

/*
 * The owner of the update callback (the page cache keeps shadow nodes on
 * a list through it) hears of every node change, including the ones the
 * plain stores above do not reach: a subtree freed by a larger store, a
 * node pruned after a failed allocation (each reported with count 0
 * before it is freed), and a node whose entries a split rewrote.
 */
static void test_xas_set_update_other_paths(void **state)
{
	DEFINE_XARRAY(xa);
	struct upc_thread_stats s0, s1;
	const struct upd_rec *r;

	(void)state;
	upd_xa = &xa;
	upd_store(&xa, 0, xa_mk_value(0));
	upd_store(&xa, 4096 + 64, xa_mk_value(1));
	assert_int_equal(xat_count_nodes(&xa), 5);

	/* An order-12 entry replaces the two nodes under 4096. */
	upd_nr = 0;
	upc_stats_thread(&s0);
	{
		XA_STATE_ORDER(xas, &xa, 4096, 12);

		xas_set_update(&xas, upd_cb);
		assert_true(xa_is_node(xat_store_xas(&xas, P(1))));
	}
	upc_stats_thread(&s1);
	assert_int_equal(s1.xa_node_frees - s0.xa_node_frees, 2);
	assert_int_equal(upd_count_freed(), 2);
	upd_check_records();
	assert_xa_ok(&xa);

	/* The leaf under 5 * 4096 + 70 cannot be had: its parent goes. */
	upd_nr = 0;
	upc_stats_thread(&s0);
	{
		XA_STATE(xas, &xa, 5 * 4096 + 70);

		xas_set_update(&xas, upd_cb);
		upc_fault_fail_nth(2);
		xas_lock(&xas);
		xas_store(&xas, P(2));
		xas_unlock(&xas);
		upc_fault_fail_nth(0);
		assert_int_equal(xas_error(&xas), -ENOMEM);
	}
	upc_stats_thread(&s1);
	assert_int_equal(s1.xa_node_allocs - s0.xa_node_allocs, 1);
	assert_int_equal(s1.xa_node_frees - s0.xa_node_frees, 1);
	assert_int_equal(upd_count_freed(), 1);
	upd_check_records();
	assert_xa_ok(&xa);

	/* A split in place turns 16 value slots into pointers. */
	xat_store_order(&xa, 128, 4, xa_mk_value(128));
	upd_nr = 0;
	{
		XA_STATE_ORDER(xas, &xa, 128, 0);

		xas_set_update(&xas, upd_cb);
		xat_split(&xas, P(3), 4);
		assert_int_equal(xas_error(&xas), 0);
		r = upd_last(xas.xa_node);
	}
	assert_non_null(r);
	assert_int_equal(r->count, 16);
	assert_int_equal(r->nr_values, 0);
	upd_check_records();
	xat_fini(&xa);
	upd_xa = NULL;
}

static void test_xas_set_lru(void **state)
{
	DEFINE_XARRAY(xa);
	long dummy;
	unsigned long i;

	(void)state;
	for (i = 0; i < 200; i += 7) {
		XA_STATE(xas, &xa, i * 1000);

		xas_set_lru(&xas, (struct list_lru *)&dummy);
		assert_ptr_equal(xas.xa_lru, (struct list_lru *)&dummy);
		xat_store_xas(&xas, xa_mk_value(i));
		xas_set_lru(&xas, NULL);
		assert_null(xas.xa_lru);
	}
	assert_xa_ok(&xa);
	for (i = 0; i < 200; i += 7)
		assert_ptr_equal(xa_load(&xa, i * 1000), xa_mk_value(i));
	xat_fini(&xa);
	assert_xa_ok(&xa);
}

static void test_xas_destroy(void **state)
{
	DEFINE_XARRAY(xa);
	struct upc_thread_stats s0, s1, s2;
	unsigned long i;

	(void)state;
	xat_store_order(&xa, 0, 12, P(1));
	{
		XA_STATE_ORDER(xas, &xa, 0, 0);

		upc_stats_thread(&s0);
		xas_split_alloc(&xas, P(1), 12, GFP_KERNEL);
		assert_int_equal(xas_error(&xas), 0);
		upc_stats_thread(&s1);
		assert_non_null(xas.xa_alloc);
		assert_true(s1.xa_node_allocs > s0.xa_node_allocs);
		/* Changed our mind: every preallocated node goes back. */
		xas_destroy(&xas);
		upc_stats_thread(&s2);
		assert_null(xas.xa_alloc);
		assert_int_equal(s2.xa_node_frees - s1.xa_node_frees,
				 s1.xa_node_allocs - s0.xa_node_allocs);
	}
	for (i = 0; i < 4096; i += 255)
		assert_ptr_equal(xa_load(&xa, i), P(1));
	assert_int_equal(xa_get_order(&xa, 4095), 12);
	xat_fini(&xa);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		XAT_TEST(test_xa_state),
		XAT_TEST(test_xas_load_store),
		XAT_TEST(test_xas_find),
		XAT_TEST(test_xas_for_each_random),
		XAT_TEST(test_xas_find_marked),
		XAT_TEST(test_xas_find_free),
		XAT_TEST(test_xas_find_conflict),
		XAT_TEST(test_xas_next_prev),
		XAT_TEST(test_xas_next_prev_bounds),
		XAT_TEST(test_xas_next_prev_wrap),
		XAT_TEST(test_xas_step_from_sibling),
		XAT_TEST(test_xas_advance_retry_reset),
		XAT_TEST(test_xas_stale_cursor_retry),
		XAT_TEST(test_xas_store_after_leaf_freed),
		XAT_TEST(test_xas_errors),
		XAT_TEST(test_xas_pause_positions),
		XAT_TEST(test_xas_pause_iteration),
		XAT_TEST(test_xas_nomem),
		XAT_TEST(test_nomem_empty),
		XAT_TEST(test_nomem_expand),
		XAT_TEST(test_nomem_deep),
		XAT_TEST(test_xas_marks),
		XAT_TEST(test_xas_create_range),
		XAT_TEST(test_xas_create_range_small),
		XAT_TEST(test_xas_get_order),
		XAT_TEST(test_xas_set_update),
		XAT_TEST(test_xas_set_update_other_paths),
		XAT_TEST(test_xas_set_lru),
		XAT_TEST(test_xas_destroy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
