// SPDX-License-Identifier: MIT
/*
 * tests/lib/test_xarray_basic.c - the XArray's normal API.
 *
 * Covers initialisation (xa_init, xa_init_flags, DEFINE_XARRAY*), loads,
 * stores and erases at the edges of the index space (0, ULONG_MAX), value
 * and pointer entries, storing NULL, rejection of internal entries,
 * xa_insert, xa_cmpxchg, xa_reserve/xa_release, xa_store_range, xa_get_order,
 * xa_find/xa_find_after, every xa_for_each* iterator, xa_extract,
 * xa_destroy, xa_empty, marks, the _bh/_irq spellings and the lock
 * macros, as described in include/upcache/xarray.h and the
 * implementation contract.  Every test that changes an array runs the
 * invariant checker afterwards.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <upcache/check.h>
#include <upcache/stats.h>
#include <upcache/xarray.h>

#include "rand.h"
#include "xa_test.h"

/*
 * greedy_order() - The order of the piece xa_store_range() must put at
 * @pos when covering [@pos, @last]: the largest k such that @pos is
 * aligned to 2^k and the block does not pass @last.
 */
static unsigned int greedy_order(unsigned long pos, unsigned long last)
{
	unsigned int k;

	if (pos == 0 && last == ULONG_MAX)
		return BITS_PER_LONG;
	for (k = BITS_PER_LONG - 1; k > 0; k--) {
		unsigned long mask = (1UL << k) - 1;

		if ((pos & mask) == 0 && (pos | mask) <= last)
			return k;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Initialisation                                                     */
/* ------------------------------------------------------------------ */

static DEFINE_XARRAY(static_plain);
static DEFINE_XARRAY_FLAGS(static_irq, XA_FLAGS_LOCK_IRQ);
static DEFINE_XARRAY_ALLOC(static_alloc);
static DEFINE_XARRAY_ALLOC1(static_alloc1);

static void assert_fresh(struct xarray *xa)
{
	unsigned long index = 0;

	assert_true(xa_empty(xa));
	assert_null(xa_load(xa, 0));
	assert_null(xa_load(xa, 1));
	assert_null(xa_load(xa, ULONG_MAX));
	assert_int_equal(xa_get_order(xa, 0), 0);
	assert_null(xa_find(xa, &index, ULONG_MAX, XA_PRESENT));
	assert_int_equal(index, 0);
	assert_false(xa_marked(xa, XA_MARK_1));
	assert_false(xa_marked(xa, XA_MARK_2));
	assert_false(xa_get_mark(xa, 0, XA_MARK_1));
	assert_xa_ok(xa);
}

/* Store, load and erase a few entries: the array works. */
static void exercise(struct xarray *xa)
{
	assert_null(xa_store(xa, 0, P(0), GFP_KERNEL));
	assert_null(xa_store(xa, 77, P(1), GFP_KERNEL));
	assert_xa_ok(xa);
	assert_false(xa_empty(xa));
	assert_ptr_equal(xa_load(xa, 0), P(0));
	assert_ptr_equal(xa_load(xa, 77), P(1));
	assert_null(xa_load(xa, 76));
	assert_ptr_equal(xa_erase(xa, 0), P(0));
	assert_ptr_equal(xa_erase(xa, 77), P(1));
	assert_xa_ok(xa);
	assert_true(xa_empty(xa));
}

static void test_init(void **state)
{
	struct xarray a, b;
	struct xarray c;

	(void)state;
	memset(&a, 0xa5, sizeof(a));
	xa_init(&a);
	assert_fresh(&a);
	assert_false(xa_marked(&a, XA_MARK_0));
	exercise(&a);

	memset(&b, 0x5a, sizeof(b));
	xa_init_flags(&b, XA_FLAGS_LOCK_BH);
	assert_fresh(&b);
	exercise(&b);

	xa_init_flags(&c, XA_FLAGS_ALLOC);
	assert_fresh(&c);
	/* The free mark of an allocating array covers the empty head. */
	assert_true(xa_marked(&c, XA_FREE_MARK));
	xa_destroy(&c);

	assert_fresh(&static_plain);
	assert_false(xa_marked(&static_plain, XA_MARK_0));
	exercise(&static_plain);
	assert_fresh(&static_irq);
	exercise(&static_irq);
	assert_fresh(&static_alloc);
	assert_true(xa_marked(&static_alloc, XA_FREE_MARK));
	assert_fresh(&static_alloc1);
	/* ALLOC1 reserves index 0: nothing free at the head. */
	assert_false(xa_marked(&static_alloc1, XA_FREE_MARK));
}

/* ------------------------------------------------------------------ */
/* Loads, stores, erases                                              */
/* ------------------------------------------------------------------ */

static void test_index_zero(void **state)
{
	struct xarray xa;

	(void)state;
	xa_init(&xa);
	assert_null(xa_store(&xa, 0, P(1), GFP_KERNEL));
	assert_xa_ok(&xa);
	assert_ptr_equal(xa_load(&xa, 0), P(1));
	assert_null(xa_load(&xa, 1));
	assert_false(xa_empty(&xa));
	assert_ptr_equal(xa_store(&xa, 0, P(2), GFP_KERNEL), P(1));
	assert_xa_ok(&xa);
	assert_ptr_equal(xa_load(&xa, 0), P(2));
	/* Grow the tree under index 0 and shrink it back. */
	assert_null(xa_store(&xa, 1, P(3), GFP_KERNEL));
	assert_null(xa_store(&xa, 4096, P(4), GFP_KERNEL));
	assert_xa_ok(&xa);
	assert_ptr_equal(xa_load(&xa, 0), P(2));
	assert_ptr_equal(xa_erase(&xa, 4096), P(4));
	assert_ptr_equal(xa_erase(&xa, 1), P(3));
	assert_xa_ok(&xa);
	assert_ptr_equal(xa_load(&xa, 0), P(2));
	assert_ptr_equal(xa_erase(&xa, 0), P(2));
	assert_null(xa_erase(&xa, 0));
	assert_xa_ok(&xa);
	assert_true(xa_empty(&xa));
}

static void test_index_ulong_max(void **state)
{
	struct xarray xa;

	(void)state;
	xa_init(&xa);
	assert_null(xa_store(&xa, ULONG_MAX, xa_mk_value(7), GFP_KERNEL));
	assert_xa_ok(&xa);
	assert_ptr_equal(xa_load(&xa, ULONG_MAX), xa_mk_value(7));
	assert_null(xa_load(&xa, ULONG_MAX - 1));
	assert_null(xa_load(&xa, 0));
	assert_null(xa_load(&xa, ULONG_MAX >> 1));
	assert_null(xa_store(&xa, 0, P(0), GFP_KERNEL));
	assert_null(xa_store(&xa, ULONG_MAX - 1, P(1), GFP_KERNEL));
	assert_xa_ok(&xa);
	assert_ptr_equal(xa_load(&xa, 0), P(0));
	assert_ptr_equal(xa_load(&xa, ULONG_MAX - 1), P(1));
	assert_ptr_equal(xa_load(&xa, ULONG_MAX), xa_mk_value(7));
	assert_ptr_equal(xa_erase(&xa, ULONG_MAX), xa_mk_value(7));
	assert_xa_ok(&xa);
	assert_null(xa_load(&xa, ULONG_MAX));
	assert_ptr_equal(xa_load(&xa, ULONG_MAX - 1), P(1));
	assert_ptr_equal(xa_erase(&xa, ULONG_MAX - 1), P(1));
	assert_xa_ok(&xa);
	assert_ptr_equal(xa_load(&xa, 0), P(0));
	assert_ptr_equal(xa_erase(&xa, 0), P(0));
	assert_xa_ok(&xa);
	assert_true(xa_empty(&xa));
}

static void test_values_and_pointers(void **state)
{
	static const unsigned long vals[] = {
		0, 1, 2, 3, 0x7f, 0x12345678, LONG_MAX - 1, LONG_MAX,
	};
	struct xarray xa;
	unsigned long i;
	void *tagged = xa_tag_pointer(P(9), 3);

	(void)state;
	xa_init(&xa);
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		assert_null(xa_store(&xa, i * 3, xa_mk_value(vals[i]), GFP_KERNEL));
		assert_null(xa_store(&xa, i * 3 + 1, P(i), GFP_KERNEL));
	}
	assert_null(xa_store(&xa, 1000, tagged, GFP_KERNEL));
	assert_xa_ok(&xa);
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		void *v = xa_load(&xa, i * 3);
		void *p = xa_load(&xa, i * 3 + 1);

		assert_true(xa_is_value(v));
		assert_int_equal(xa_to_value(v), vals[i]);
		assert_false(xa_is_value(p));
		assert_ptr_equal(p, P(i));
		assert_null(xa_load(&xa, i * 3 + 2));
	}
	assert_ptr_equal(xa_load(&xa, 1000), tagged);
	assert_ptr_equal(xa_untag_pointer(xa_load(&xa, 1000)), P(9));
	assert_int_equal(xa_pointer_tag(xa_load(&xa, 1000)), 3);

	/* Replace values by pointers and back: nr_values must follow. */
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		assert_ptr_equal(xa_store(&xa, i * 3, P(i + 100), GFP_KERNEL),
				 xa_mk_value(vals[i]));
		assert_ptr_equal(xa_store(&xa, i * 3 + 1, xa_mk_value(i), GFP_KERNEL),
				 P(i));
		assert_xa_ok(&xa);
	}
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		assert_ptr_equal(xa_load(&xa, i * 3), P(i + 100));
		assert_ptr_equal(xa_load(&xa, i * 3 + 1), xa_mk_value(i));
	}
	xat_fini(&xa);
	assert_xa_ok(&xa);
	assert_true(xa_empty(&xa));
}

static void test_store_null(void **state)
{
	struct xarray xa;

	(void)state;
	xa_init(&xa);
	/* Storing NULL into nothing changes nothing. */
	assert_null(xa_store(&xa, 5, NULL, GFP_KERNEL));
	assert_true(xa_empty(&xa));
	assert_null(xa_store(&xa, 0, NULL, GFP_KERNEL));
	assert_true(xa_empty(&xa));
	assert_xa_ok(&xa);

	assert_null(xa_store(&xa, 5, P(5), GFP_KERNEL));
	assert_null(xa_store(&xa, 6, P(6), GFP_KERNEL));
	assert_null(xa_store(&xa, 300, NULL, GFP_KERNEL));
	assert_xa_ok(&xa);
	assert_ptr_equal(xa_store(&xa, 5, NULL, GFP_KERNEL), P(5));
	assert_xa_ok(&xa);
	assert_null(xa_load(&xa, 5));
	assert_ptr_equal(xa_load(&xa, 6), P(6));
	assert_ptr_equal(xa_store(&xa, 6, NULL, GFP_KERNEL), P(6));
	assert_xa_ok(&xa);
	assert_true(xa_empty(&xa));

	/* Erasing through a store of NULL at a single head entry. */
	assert_null(xa_store(&xa, 0, xa_mk_value(0), GFP_KERNEL));
	assert_ptr_equal(xa_store(&xa, 0, NULL, GFP_KERNEL), xa_mk_value(0));
	assert_xa_ok(&xa);
	assert_true(xa_empty(&xa));
}

static void test_store_internal_rejected(void **state)
{
	void *bad[] = {
		xa_mk_internal(0),		/* sibling of slot 0 */
		xa_mk_internal(5),		/* sibling */
		xa_mk_internal(62),		/* last sibling */
		XA_RETRY_ENTRY,
		xa_mk_internal(300),		/* unused internal */
		xa_mk_internal(-ENOMEM),	/* an error */
		xa_mk_internal(-EINVAL),
		xa_mk_internal(5000),		/* looks like a node */
	};
	static const unsigned long idx[] = { 0, 1, 100, ULONG_MAX };
	struct xarray xa;
	unsigned int i, j;

	(void)state;
	xa_init(&xa);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		/* Into an empty array. */
		for (j = 0; j < sizeof(idx) / sizeof(idx[0]); j++) {
			assert_int_equal(xa_err(xa_store(&xa, idx[j], bad[i],
							 GFP_KERNEL)), -EINVAL);
			assert_true(xa_empty(&xa));
		}
		assert_int_equal(xa_err(xa_store_range(&xa, 3, 9, bad[i],
						       GFP_KERNEL)), -EINVAL);
		assert_true(xa_empty(&xa));
		assert_xa_ok(&xa);
	}

	/* Over existing entries: nothing changes. */
	assert_null(xa_store(&xa, 0, P(0), GFP_KERNEL));
	assert_null(xa_store(&xa, 100, P(1), GFP_KERNEL));
	assert_null(xa_store(&xa, ULONG_MAX, P(2), GFP_KERNEL));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(xa_err(xa_store(&xa, 0, bad[i], GFP_KERNEL)),
				 -EINVAL);
		assert_int_equal(xa_err(xa_store(&xa, 100, bad[i], GFP_KERNEL)),
				 -EINVAL);
		assert_int_equal(xa_err(xa_store(&xa, 1, bad[i], GFP_KERNEL)),
				 -EINVAL);
		assert_int_equal(xa_err(xa_store(&xa, ULONG_MAX, bad[i],
						 GFP_KERNEL)), -EINVAL);
		assert_ptr_equal(xa_load(&xa, 0), P(0));
		assert_ptr_equal(xa_load(&xa, 100), P(1));
		assert_null(xa_load(&xa, 1));
		assert_ptr_equal(xa_load(&xa, ULONG_MAX), P(2));
		assert_xa_ok(&xa);
	}

	/* xa_insert and xa_cmpxchg refuse advanced entries too. */
	assert_int_equal(xa_insert(&xa, 7, xa_mk_internal(1), GFP_KERNEL),
			 -EINVAL);
	assert_int_equal(xa_insert(&xa, 7, XA_RETRY_ENTRY, GFP_KERNEL), -EINVAL);
	assert_null(xa_load(&xa, 7));
	assert_int_equal(xa_err(xa_cmpxchg(&xa, 100, P(1), XA_RETRY_ENTRY,
					   GFP_KERNEL)), -EINVAL);
	assert_int_equal(xa_err(xa_cmpxchg(&xa, 100, P(1), xa_mk_sibling(3),
					   GFP_KERNEL)), -EINVAL);
	assert_ptr_equal(xa_load(&xa, 100), P(1));
	xat_fini(&xa);
}

static void test_store_zero_entry(void **state)
{
	struct xarray xa;

	(void)state;
	xa_init(&xa);
	/* Storing XA_ZERO_ENTRY reserves the index. */
	assert_null(xa_store(&xa, 9, XA_ZERO_ENTRY, GFP_KERNEL));
	assert_xa_ok(&xa);
	assert_null(xa_load(&xa, 9));
	assert_false(xa_empty(&xa));
	assert_int_equal(xa_insert(&xa, 9, P(1), GFP_KERNEL), -EBUSY);
	/* The old entry of a reserved slot reads as NULL. */
	assert_null(xa_store(&xa, 9, P(2), GFP_KERNEL));
	assert_ptr_equal(xa_load(&xa, 9), P(2));
	assert_ptr_equal(xa_store(&xa, 9, XA_ZERO_ENTRY, GFP_KERNEL), P(2));
	assert_null(xa_load(&xa, 9));
	assert_null(xa_erase(&xa, 9));
	assert_xa_ok(&xa);
	assert_true(xa_empty(&xa));
}

/* ------------------------------------------------------------------ */
/* xa_insert, xa_cmpxchg, xa_reserve                                  */
/* ------------------------------------------------------------------ */

static void test_insert(void **state)
{
	static const unsigned long idx[] = { 0, 1, 63, 64, 4095, 1UL << 40, ULONG_MAX };
	struct xarray xa;
	unsigned int i;

	(void)state;
	xa_init(&xa);
	for (i = 0; i < sizeof(idx) / sizeof(idx[0]); i++) {
		assert_int_equal(xa_insert(&xa, idx[i], P(i), GFP_KERNEL), 0);
		assert_xa_ok(&xa);
		assert_int_equal(xa_insert(&xa, idx[i], P(i + 50), GFP_KERNEL),
				 -EBUSY);
		assert_ptr_equal(xa_load(&xa, idx[i]), P(i));
	}
	for (i = 0; i < sizeof(idx) / sizeof(idx[0]); i++)
		assert_ptr_equal(xa_erase(&xa, idx[i]), P(i));
	assert_xa_ok(&xa);
	assert_true(xa_empty(&xa));

	/* A reserved index is busy. */
	assert_int_equal(xa_reserve(&xa, 12, GFP_KERNEL), 0);
	assert_int_equal(xa_insert(&xa, 12, P(1), GFP_KERNEL), -EBUSY);
	assert_null(xa_load(&xa, 12));
	xa_release(&xa, 12);
	assert_true(xa_empty(&xa));
	assert_int_equal(xa_insert(&xa, 12, P(1), GFP_KERNEL), 0);
	assert_ptr_equal(xa_erase(&xa, 12), P(1));

	/* Inserting NULL reserves. */
	assert_int_equal(xa_insert(&xa, 0, NULL, GFP_KERNEL), 0);
	assert_int_equal(xa_insert(&xa, 33, NULL, GFP_KERNEL), 0);
	assert_xa_ok(&xa);
	assert_false(xa_empty(&xa));
	assert_null(xa_load(&xa, 0));
	assert_null(xa_load(&xa, 33));
	assert_int_equal(xa_insert(&xa, 0, P(3), GFP_KERNEL), -EBUSY);
	assert_int_equal(xa_insert(&xa, 33, NULL, GFP_KERNEL), -EBUSY);
	assert_null(xa_store(&xa, 33, P(4), GFP_KERNEL));
	assert_ptr_equal(xa_load(&xa, 33), P(4));
	assert_ptr_equal(xa_erase(&xa, 33), P(4));
	assert_null(xa_erase(&xa, 0));
	assert_xa_ok(&xa);
	assert_true(xa_empty(&xa));

	/* Inside a multi-index entry every index is busy. */
	assert_null(xa_store_range(&xa, 64, 127, P(7), GFP_KERNEL));
	assert_int_equal(xa_insert(&xa, 64, P(8), GFP_KERNEL), -EBUSY);
	assert_int_equal(xa_insert(&xa, 100, P(8), GFP_KERNEL), -EBUSY);
	assert_int_equal(xa_insert(&xa, 127, P(8), GFP_KERNEL), -EBUSY);
	assert_int_equal(xa_insert(&xa, 128, P(8), GFP_KERNEL), 0);
	assert_ptr_equal(xa_load(&xa, 100), P(7));
	assert_xa_ok(&xa);

	/* __xa_insert under the lock. */
	xa_lock(&xa);
	assert_int_equal(__xa_insert(&xa, 500, P(9), GFP_KERNEL), 0);
	assert_int_equal(__xa_insert(&xa, 500, P(9), GFP_KERNEL), -EBUSY);
	assert_true(upc_lock_is_held(&xa.xa_lock));
	xa_unlock(&xa);
	assert_ptr_equal(xa_load(&xa, 500), P(9));
	xat_fini(&xa);
	assert_xa_ok(&xa);
}

static void test_cmpxchg(void **state)
{
	struct xarray xa;

	(void)state;
	xa_init(&xa);
	/* NULL -> p on an empty index. */
	assert_null(xa_cmpxchg(&xa, 5, NULL, P(1), GFP_KERNEL));
	assert_ptr_equal(xa_load(&xa, 5), P(1));
	assert_xa_ok(&xa);
	/* Mismatch: returns the current entry, changes nothing. */
	assert_ptr_equal(xa_cmpxchg(&xa, 5, P(2), P(3), GFP_KERNEL), P(1));
	assert_ptr_equal(xa_cmpxchg(&xa, 5, NULL, P(3), GFP_KERNEL), P(1));
	assert_ptr_equal(xa_load(&xa, 5), P(1));
	/* Match. */
	assert_ptr_equal(xa_cmpxchg(&xa, 5, P(1), P(2), GFP_KERNEL), P(1));
	assert_ptr_equal(xa_load(&xa, 5), P(2));
	/* Mismatch on an empty index stores nothing. */
	assert_null(xa_cmpxchg(&xa, 6, P(2), P(4), GFP_KERNEL));
	assert_null(xa_load(&xa, 6));
	/* p -> NULL erases. */
	assert_ptr_equal(xa_cmpxchg(&xa, 5, P(2), NULL, GFP_KERNEL), P(2));
	assert_null(xa_load(&xa, 5));
	assert_xa_ok(&xa);
	assert_true(xa_empty(&xa));

	/* Values compare by value. */
	assert_null(xa_cmpxchg(&xa, ULONG_MAX, NULL, xa_mk_value(3), GFP_KERNEL));
	assert_ptr_equal(xa_cmpxchg(&xa, ULONG_MAX, xa_mk_value(4),
				    xa_mk_value(5), GFP_KERNEL), xa_mk_value(3));
	assert_ptr_equal(xa_cmpxchg(&xa, ULONG_MAX, xa_mk_value(3),
				    xa_mk_value(5), GFP_KERNEL), xa_mk_value(3));
	assert_ptr_equal(xa_load(&xa, ULONG_MAX), xa_mk_value(5));
	assert_xa_ok(&xa);

	/*
	 * A reserved slot holds XA_ZERO_ENTRY: it does not match NULL, and
	 * the old entry reads as NULL either way.
	 */
	assert_int_equal(xa_reserve(&xa, 40, GFP_KERNEL), 0);
	assert_null(xa_cmpxchg(&xa, 40, NULL, P(6), GFP_KERNEL));
	assert_null(xa_load(&xa, 40));
	assert_int_equal(xa_insert(&xa, 40, P(6), GFP_KERNEL), -EBUSY);
	assert_null(xa_cmpxchg(&xa, 40, XA_ZERO_ENTRY, P(6), GFP_KERNEL));
	assert_ptr_equal(xa_load(&xa, 40), P(6));
	assert_xa_ok(&xa);

	/* __xa_cmpxchg under the lock. */
	xa_lock(&xa);
	assert_ptr_equal(__xa_cmpxchg(&xa, 40, P(6), P(7), GFP_KERNEL), P(6));
	assert_ptr_equal(__xa_cmpxchg(&xa, 40, P(6), P(8), GFP_KERNEL), P(7));
	xa_unlock(&xa);
	assert_ptr_equal(xa_load(&xa, 40), P(7));
	xat_fini(&xa);
	assert_xa_ok(&xa);
}

static void test_reserve_release(void **state)
{
	struct xarray xa;
	unsigned long index;
	void *entry;
	unsigned int n;

	(void)state;
	xa_init(&xa);
	assert_int_equal(xa_reserve(&xa, 12, GFP_KERNEL), 0);
	assert_xa_ok(&xa);
	/* A reserved entry makes the array non-empty but loads as NULL. */
	assert_false(xa_empty(&xa));
	assert_null(xa_load(&xa, 12));
	index = 0;
	assert_null(xa_find(&xa, &index, ULONG_MAX, XA_PRESENT));
	n = 0;
	xa_for_each(&xa, index, entry)
		n++;
	assert_int_equal(n, 0);
	xa_release(&xa, 12);
	assert_xa_ok(&xa);
	assert_true(xa_empty(&xa));

	/* Release after a store does nothing. */
	assert_int_equal(xa_reserve(&xa, 12, GFP_KERNEL), 0);
	assert_null(xa_store(&xa, 12, P(1), GFP_KERNEL));
	xa_release(&xa, 12);
	assert_ptr_equal(xa_load(&xa, 12), P(1));
	assert_xa_ok(&xa);

	/* Reserving a present entry leaves it alone. */
	assert_int_equal(xa_reserve(&xa, 12, GFP_KERNEL), 0);
	assert_ptr_equal(xa_load(&xa, 12), P(1));
	assert_ptr_equal(xa_erase(&xa, 12), P(1));
	assert_true(xa_empty(&xa));

	/* Several reservations in one node and at the edges. */
	assert_int_equal(xa_reserve(&xa, 0, GFP_KERNEL), 0);
	assert_int_equal(xa_reserve(&xa, 1, GFP_KERNEL), 0);
	assert_int_equal(xa_reserve(&xa, 2, GFP_KERNEL), 0);
	assert_int_equal(xa_reserve(&xa, ULONG_MAX, GFP_KERNEL), 0);
	assert_null(xa_store(&xa, 3, P(3), GFP_KERNEL));
	assert_xa_ok(&xa);
	index = 0;
	assert_ptr_equal(xa_find(&xa, &index, ULONG_MAX, XA_PRESENT), P(3));
	assert_int_equal(index, 3);
	index = 3;
	assert_null(xa_find_after(&xa, &index, ULONG_MAX, XA_PRESENT));
	/* Erasing a reserved entry removes the reservation. */
	assert_null(xa_erase(&xa, 1));
	assert_int_equal(xa_insert(&xa, 1, P(4), GFP_KERNEL), 0);
	xa_release(&xa, 0);
	xa_release(&xa, 2);
	xa_release(&xa, ULONG_MAX);
	assert_xa_ok(&xa);
	assert_ptr_equal(xa_erase(&xa, 1), P(4));
	assert_ptr_equal(xa_erase(&xa, 3), P(3));
	assert_xa_ok(&xa);
	assert_true(xa_empty(&xa));
}

/* ------------------------------------------------------------------ */
/* xa_store_range and xa_get_order                                    */
/* ------------------------------------------------------------------ */

/*
 * check_range() - xa_store_range(@first, @last) covers exactly the range
 * with the greedy aligned pieces, leaves sentinels next to it alone, and
 * a store of NULL over the same range erases it.
 */
static void check_range(unsigned long first, unsigned long last)
{
	struct xarray xa;
	void *e = xa_mk_value(first & 0xffff);
	unsigned long pos;

	xa_init(&xa);
	xat_neighbours(&xa, first, last, XAT_NB_PUT);
	assert_null(xa_store_range(&xa, first, last, e, GFP_KERNEL));
	assert_xa_ok(&xa);

	pos = first;
	for (;;) {
		unsigned int order = greedy_order(pos, last);
		unsigned long end = range_last(pos, order);

		assert_ptr_equal(xa_load(&xa, pos), e);
		assert_ptr_equal(xa_load(&xa, end), e);
		assert_ptr_equal(xa_load(&xa, pos + (end - pos) / 2), e);
		if (xa_get_order(&xa, pos) != (int)order ||
		    xa_get_order(&xa, end) != (int)order)
			fail_msg("range [%#lx, %#lx]: piece at %#lx has order %d/%d, want %u",
				 first, last, pos, xa_get_order(&xa, pos),
				 xa_get_order(&xa, end), order);
		if (end == last)
			break;
		pos = end + 1;
	}
	if (last - first < 4096) {
		for (pos = first; ; pos++) {
			assert_ptr_equal(xa_load(&xa, pos), e);
			if (pos == last)
				break;
		}
	}
	xat_neighbours(&xa, first, last, XAT_NB_CHECK);

	/* Erase the range with NULL: only the sentinels remain. */
	assert_null(xa_store_range(&xa, first, last, NULL, GFP_KERNEL));
	assert_xa_ok(&xa);
	assert_null(xa_load(&xa, first));
	assert_null(xa_load(&xa, last));
	xat_neighbours(&xa, first, last, XAT_NB_ERASE);
	assert_xa_ok(&xa);
	assert_true(xa_empty(&xa));
}

static void test_store_range(void **state)
{
	static const unsigned long ranges[][2] = {
		{ 0, 0 }, { 3, 3 }, { 0, 1 }, { 0, 63 }, { 1, 6 }, { 5, 200 },
		{ 64, 127 }, { 63, 64 }, { 100, 5000 }, { 4096, 8191 },
		{ 1, 1UL << 20 }, { ULONG_MAX, ULONG_MAX },
		{ ULONG_MAX - 10, ULONG_MAX }, { ULONG_MAX - 4095, ULONG_MAX },
		{ 1UL << 63, ULONG_MAX }, { 0, ULONG_MAX >> 1 },
		{ 1, ULONG_MAX }, { 0, ULONG_MAX - 1 }, { 0, ULONG_MAX },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
		check_range(ranges[i][0], ranges[i][1]);
}

static void test_store_range_pieces_are_separate(void **state)
{
	struct xarray xa;
	unsigned long i;

	(void)state;
	xa_init(&xa);
	/* [1, 6] is 1 (order 0), 2-3 (order 1), 4-5 (order 1), 6 (order 0). */
	assert_null(xa_store_range(&xa, 1, 6, P(1), GFP_KERNEL));
	assert_int_equal(xa_get_order(&xa, 1), 0);
	assert_int_equal(xa_get_order(&xa, 2), 1);
	assert_int_equal(xa_get_order(&xa, 3), 1);
	assert_int_equal(xa_get_order(&xa, 4), 1);
	assert_int_equal(xa_get_order(&xa, 6), 0);
	/* Erasing index 3 erases its whole piece and nothing else. */
	assert_ptr_equal(xa_erase(&xa, 3), P(1));
	assert_xa_ok(&xa);
	assert_null(xa_load(&xa, 2));
	assert_null(xa_load(&xa, 3));
	assert_ptr_equal(xa_load(&xa, 1), P(1));
	assert_ptr_equal(xa_load(&xa, 4), P(1));
	assert_ptr_equal(xa_load(&xa, 5), P(1));
	assert_ptr_equal(xa_load(&xa, 6), P(1));
	/* A store into piece 4-5 updates both of its indices only. */
	assert_ptr_equal(xa_store(&xa, 5, P(2), GFP_KERNEL), P(1));
	assert_ptr_equal(xa_load(&xa, 4), P(2));
	assert_ptr_equal(xa_load(&xa, 6), P(1));
	assert_int_equal(xa_get_order(&xa, 4), 1);
	assert_xa_ok(&xa);

	/* A range stored over existing entries replaces them. */
	xat_fini(&xa);
	for (i = 0; i < 40; i++)
		xa_store(&xa, i, xa_mk_value(i), GFP_KERNEL);
	assert_null(xa_store_range(&xa, 8, 31, P(3), GFP_KERNEL));
	assert_xa_ok(&xa);
	for (i = 0; i < 40; i++) {
		if (i >= 8 && i <= 31)
			assert_ptr_equal(xa_load(&xa, i), P(3));
		else
			assert_ptr_equal(xa_load(&xa, i), xa_mk_value(i));
	}
	assert_int_equal(xa_get_order(&xa, 8), 3);
	assert_int_equal(xa_get_order(&xa, 16), 4);
	assert_int_equal(xa_get_order(&xa, 31), 4);
	xat_fini(&xa);
	assert_xa_ok(&xa);
}

static void test_store_range_bad(void **state)
{
	struct xarray xa;

	(void)state;
	xa_init(&xa);
	assert_null(xa_store(&xa, 4, P(4), GFP_KERNEL));
	assert_int_equal(xa_err(xa_store_range(&xa, 5, 4, P(1), GFP_KERNEL)),
			 -EINVAL);
	assert_int_equal(xa_err(xa_store_range(&xa, ULONG_MAX, 0, P(1),
					       GFP_KERNEL)), -EINVAL);
	assert_int_equal(xa_err(xa_store_range(&xa, 1, 0, NULL, GFP_KERNEL)),
			 -EINVAL);
	assert_int_equal(xa_err(xa_store_range(&xa, 0, 10, XA_RETRY_ENTRY,
					       GFP_KERNEL)), -EINVAL);
	assert_int_equal(xa_err(xa_store_range(&xa, 0, 10, xa_mk_internal(2),
					       GFP_KERNEL)), -EINVAL);
	assert_ptr_equal(xa_load(&xa, 4), P(4));
	assert_null(xa_load(&xa, 5));
	assert_null(xa_load(&xa, 0));
	assert_int_equal(xa_get_order(&xa, 4), 0);
	xat_fini(&xa);
}

static void test_get_order(void **state)
{
	struct xarray xa;
	unsigned int order;

	(void)state;
	xa_init(&xa);
	assert_int_equal(xa_get_order(&xa, 0), 0);
	assert_null(xa_store(&xa, 0, P(0), GFP_KERNEL));
	assert_int_equal(xa_get_order(&xa, 0), 0);
	assert_int_equal(xa_get_order(&xa, 1), 0);
	assert_ptr_equal(xa_erase(&xa, 0), P(0));
	for (order = 1; order < BITS_PER_LONG; order++) {
		unsigned long first = 1UL << order;	/* aligned to 2^order */
		unsigned long last = range_last(first, order);

		assert_null(xa_store_range(&xa, first, last, P(order), GFP_KERNEL));
		assert_int_equal(xa_get_order(&xa, first), order);
		assert_int_equal(xa_get_order(&xa, last), order);
		assert_int_equal(xa_get_order(&xa, first + (last - first) / 3),
				 order);
		assert_int_equal(xa_get_order(&xa, first - 1), 0);
		if (last < ULONG_MAX)
			assert_int_equal(xa_get_order(&xa, last + 1), 0);
		assert_xa_ok(&xa);
		assert_ptr_equal(xa_erase(&xa, last), P(order));
		assert_true(xa_empty(&xa));
	}
	assert_null(xa_store_range(&xa, 0, ULONG_MAX, P(0), GFP_KERNEL));
	assert_int_equal(xa_get_order(&xa, 0), BITS_PER_LONG);
	assert_int_equal(xa_get_order(&xa, ULONG_MAX), BITS_PER_LONG);
	assert_int_equal(xa_get_order(&xa, 12345), BITS_PER_LONG);
	xat_fini(&xa);
	assert_true(xa_empty(&xa));
}

/* ------------------------------------------------------------------ */
/* Searching and iterating                                            */
/* ------------------------------------------------------------------ */

/*
 * The search fixture: 3, 10, a reserved 5, [64, 127] as one order-6
 * entry, 1000 and ULONG_MAX.  Marks: MARK_1 on 10 and the order-6 entry,
 * MARK_2 on 1000 and ULONG_MAX.
 */
static void fill_search(struct xarray *xa)
{
	xa_init(xa);
	assert_null(xa_store(xa, 3, P(3), GFP_KERNEL));
	assert_null(xa_store(xa, 10, P(10), GFP_KERNEL));
	assert_int_equal(xa_reserve(xa, 5, GFP_KERNEL), 0);
	assert_null(xa_store_range(xa, 64, 127, P(64), GFP_KERNEL));
	assert_null(xa_store(xa, 1000, xa_mk_value(1000), GFP_KERNEL));
	assert_null(xa_store(xa, ULONG_MAX, P(99), GFP_KERNEL));
	xa_set_mark(xa, 10, XA_MARK_1);
	xa_set_mark(xa, 100, XA_MARK_1);
	xa_set_mark(xa, 1000, XA_MARK_2);
	xa_set_mark(xa, ULONG_MAX, XA_MARK_2);
	assert_xa_ok(xa);
}

static void test_find(void **state)
{
	struct xarray xa;
	unsigned long i;

	(void)state;
	fill_search(&xa);

	i = 0;
	assert_ptr_equal(xa_find(&xa, &i, ULONG_MAX, XA_PRESENT), P(3));
	assert_int_equal(i, 3);
	/* Present at *i: returned, *i unchanged. */
	assert_ptr_equal(xa_find(&xa, &i, ULONG_MAX, XA_PRESENT), P(3));
	assert_int_equal(i, 3);
	/* The reserved 5 is skipped. */
	i = 4;
	assert_ptr_equal(xa_find(&xa, &i, ULONG_MAX, XA_PRESENT), P(10));
	assert_int_equal(i, 10);
	i = 5;
	assert_ptr_equal(xa_find(&xa, &i, ULONG_MAX, XA_PRESENT), P(10));
	assert_int_equal(i, 10);
	/* Next entry is multi-index: *i is its first index. */
	i = 11;
	assert_ptr_equal(xa_find(&xa, &i, ULONG_MAX, XA_PRESENT), P(64));
	assert_int_equal(i, 64);
	/* Inside the multi-index entry: *i left where it was. */
	i = 70;
	assert_ptr_equal(xa_find(&xa, &i, ULONG_MAX, XA_PRESENT), P(64));
	assert_int_equal(i, 70);
	i = 127;
	assert_ptr_equal(xa_find(&xa, &i, 127, XA_PRESENT), P(64));
	assert_int_equal(i, 127);
	/* max is inclusive; nothing up to max leaves *i unchanged. */
	i = 0;
	assert_ptr_equal(xa_find(&xa, &i, 3, XA_PRESENT), P(3));
	i = 128;
	assert_null(xa_find(&xa, &i, 999, XA_PRESENT));
	assert_int_equal(i, 128);
	i = 128;
	assert_ptr_equal(xa_find(&xa, &i, 1000, XA_PRESENT), xa_mk_value(1000));
	assert_int_equal(i, 1000);
	i = 1001;
	assert_ptr_equal(xa_find(&xa, &i, ULONG_MAX, XA_PRESENT), P(99));
	assert_int_equal(i, ULONG_MAX);
	i = ULONG_MAX;
	assert_ptr_equal(xa_find(&xa, &i, ULONG_MAX, XA_PRESENT), P(99));
	assert_int_equal(i, ULONG_MAX);
	/* *i above max. */
	i = 20;
	assert_null(xa_find(&xa, &i, 10, XA_PRESENT));

	/* xa_find_after. */
	i = 0;
	assert_ptr_equal(xa_find_after(&xa, &i, ULONG_MAX, XA_PRESENT), P(3));
	assert_int_equal(i, 3);
	assert_ptr_equal(xa_find_after(&xa, &i, ULONG_MAX, XA_PRESENT), P(10));
	assert_int_equal(i, 10);
	assert_ptr_equal(xa_find_after(&xa, &i, ULONG_MAX, XA_PRESENT), P(64));
	assert_int_equal(i, 64);
	i = 70;	/* the whole entry containing 70 is skipped */
	assert_ptr_equal(xa_find_after(&xa, &i, ULONG_MAX, XA_PRESENT),
			 xa_mk_value(1000));
	assert_int_equal(i, 1000);
	i = 64;
	assert_null(xa_find_after(&xa, &i, 999, XA_PRESENT));
	i = 1000;
	assert_ptr_equal(xa_find_after(&xa, &i, ULONG_MAX, XA_PRESENT), P(99));
	assert_int_equal(i, ULONG_MAX);
	/* Nothing after ULONG_MAX: no wrap to index 3. */
	assert_null(xa_find_after(&xa, &i, ULONG_MAX, XA_PRESENT));

	/* Marks. */
	i = 0;
	assert_ptr_equal(xa_find(&xa, &i, ULONG_MAX, XA_MARK_1), P(10));
	assert_int_equal(i, 10);
	assert_ptr_equal(xa_find_after(&xa, &i, ULONG_MAX, XA_MARK_1), P(64));
	assert_int_equal(i, 64);
	assert_null(xa_find_after(&xa, &i, ULONG_MAX, XA_MARK_1));
	i = 100;
	assert_ptr_equal(xa_find(&xa, &i, ULONG_MAX, XA_MARK_1), P(64));
	assert_int_equal(i, 100);
	i = 0;
	assert_ptr_equal(xa_find(&xa, &i, ULONG_MAX, XA_MARK_2),
			 xa_mk_value(1000));
	assert_int_equal(i, 1000);
	assert_ptr_equal(xa_find_after(&xa, &i, ULONG_MAX, XA_MARK_2), P(99));
	assert_int_equal(i, ULONG_MAX);
	i = 0;
	assert_null(xa_find(&xa, &i, ULONG_MAX, XA_MARK_0));
	i = 0;
	assert_null(xa_find(&xa, &i, 999, XA_MARK_2));

	xat_fini(&xa);
	assert_xa_ok(&xa);
}

/*
 * A lone entry in the head stands for index 0 alone: a marked search
 * that starts above 0 must not return it, however the head is marked
 * (xa_find_after() would hide the mistake by skipping the entry again).
 */
static void test_find_marked_head_entry(void **state)
{
	struct xarray xa;
	void *dst[2];
	unsigned long i;

	(void)state;
	xa_init(&xa);
	assert_null(xa_store(&xa, 0, P(1), GFP_KERNEL));
	xa_set_mark(&xa, 0, XA_MARK_1);
	assert_xa_ok(&xa);
	i = 0;
	assert_ptr_equal(xa_find(&xa, &i, ULONG_MAX, XA_MARK_1), P(1));
	assert_int_equal(i, 0);
	i = 1;
	assert_null(xa_find(&xa, &i, ULONG_MAX, XA_MARK_1));
	assert_int_equal(i, 1);
	i = ULONG_MAX;
	assert_null(xa_find(&xa, &i, ULONG_MAX, XA_MARK_1));
	assert_int_equal(xa_extract(&xa, dst, 1, ULONG_MAX, 2, XA_MARK_1), 0);
	assert_int_equal(xa_extract(&xa, dst, 0, ULONG_MAX, 2, XA_MARK_1), 1);
	assert_ptr_equal(dst[0], P(1));
	xat_fini(&xa);
}

struct seen {
	unsigned long index[16];
	void *entry[16];
	unsigned int nr;
};

static void seen_add(struct seen *s, unsigned long index, void *entry)
{
	assert_true(s->nr < 16);
	s->index[s->nr] = index;
	s->entry[s->nr] = entry;
	s->nr++;
}

static void seen_expect(const struct seen *s, const unsigned long *index,
			void *const *entry, unsigned int nr)
{
	unsigned int i;

	assert_int_equal(s->nr, nr);
	for (i = 0; i < nr; i++) {
		assert_int_equal(s->index[i], index[i]);
		assert_ptr_equal(s->entry[i], entry[i]);
	}
}

static void test_for_each(void **state)
{
	struct xarray xa;
	struct seen s;
	unsigned long index;
	void *entry;

	(void)state;
	fill_search(&xa);

	memset(&s, 0, sizeof(s));
	xa_for_each(&xa, index, entry)
		seen_add(&s, index, entry);
	{
		const unsigned long ei[] = { 3, 10, 64, 1000, ULONG_MAX };
		void *const ee[] = { P(3), P(10), P(64), xa_mk_value(1000), P(99) };

		seen_expect(&s, ei, ee, 5);
	}

	memset(&s, 0, sizeof(s));
	xa_for_each_start(&xa, index, entry, 70)
		seen_add(&s, index, entry);
	{
		const unsigned long ei[] = { 70, 1000, ULONG_MAX };
		void *const ee[] = { P(64), xa_mk_value(1000), P(99) };

		seen_expect(&s, ei, ee, 3);
	}

	memset(&s, 0, sizeof(s));
	xa_for_each_range(&xa, index, entry, 4, 1000)
		seen_add(&s, index, entry);
	{
		const unsigned long ei[] = { 10, 64, 1000 };
		void *const ee[] = { P(10), P(64), xa_mk_value(1000) };

		seen_expect(&s, ei, ee, 3);
	}

	memset(&s, 0, sizeof(s));
	xa_for_each_range(&xa, index, entry, 11, 63)
		seen_add(&s, index, entry);
	assert_int_equal(s.nr, 0);

	memset(&s, 0, sizeof(s));
	xa_for_each_marked(&xa, index, entry, XA_MARK_1)
		seen_add(&s, index, entry);
	{
		const unsigned long ei[] = { 10, 64 };
		void *const ee[] = { P(10), P(64) };

		seen_expect(&s, ei, ee, 2);
	}

	memset(&s, 0, sizeof(s));
	xa_for_each_marked(&xa, index, entry, XA_MARK_2)
		seen_add(&s, index, entry);
	{
		const unsigned long ei[] = { 1000, ULONG_MAX };
		void *const ee[] = { xa_mk_value(1000), P(99) };

		seen_expect(&s, ei, ee, 2);
	}

	memset(&s, 0, sizeof(s));
	xa_for_each_marked(&xa, index, entry, XA_MARK_0)
		seen_add(&s, index, entry);
	assert_int_equal(s.nr, 0);

	/* Breaking out leaves index and entry on the entry. */
	xa_for_each(&xa, index, entry) {
		if (index >= 10)
			break;
	}
	assert_int_equal(index, 10);
	assert_ptr_equal(entry, P(10));

	/* Erasing the current entry inside the loop is safe. */
	memset(&s, 0, sizeof(s));
	xa_for_each(&xa, index, entry) {
		seen_add(&s, index, entry);
		xa_erase(&xa, index);
	}
	assert_int_equal(s.nr, 5);
	assert_xa_ok(&xa);
	/* Only the reservation is left. */
	assert_false(xa_empty(&xa));
	xa_release(&xa, 5);
	assert_true(xa_empty(&xa));
	assert_xa_ok(&xa);
}

/* Random indices, iterated in order, compared with a sorted copy. */
static void test_for_each_random(void **state)
{
	enum { N = 2000 };
	unsigned long *want, *got;
	struct upc_rand rnd;
	uint64_t seed = upc_test_seed();
	struct xarray xa;
	unsigned long index;
	void *entry;
	unsigned int i, nr = 0, n = 0, nmarked = 0, nm = 0;

	(void)state;
	upc_rand_seed(&rnd, seed ^ 0xba51c);
	want = calloc(N, sizeof(*want));
	got = calloc(N + 1, sizeof(*got));
	assert_non_null(want);
	assert_non_null(got);
	xa_init(&xa);
	for (i = 0; i < N; i++) {
		unsigned long idx;

		switch (upc_rand_below(&rnd, 3)) {
		case 0:
			idx = upc_rand_below(&rnd, 5000);
			break;
		case 1:
			idx = upc_rand_below(&rnd, 1UL << 32);
			break;
		default:
			idx = upc_rand_next(&rnd);
			break;
		}
		if (xa_insert(&xa, idx, xa_mk_value(idx >> 1), GFP_KERNEL) == 0)
			want[nr++] = idx;
	}
	assert_xa_ok(&xa);
	qsort(want, nr, sizeof(*want), xat_cmp_ulong);
	xa_for_each(&xa, index, entry) {
		if (n >= nr)
			fail_msg("seed %llu: more entries than stored",
				 (unsigned long long)seed);
		got[n++] = index;
		if (entry != xa_mk_value(index >> 1))
			fail_msg("seed %llu: wrong entry at %#lx",
				 (unsigned long long)seed, index);
	}
	if (n != nr || memcmp(got, want, nr * sizeof(*want)))
		fail_msg("seed %llu: iteration differs from the stored set (%u vs %u)",
			 (unsigned long long)seed, n, nr);
	/* Mark every third, iterate the marked ones. */
	for (i = 0; i < nr; i += 3) {
		xa_set_mark(&xa, want[i], XA_MARK_2);
		nmarked++;
	}
	assert_xa_ok(&xa);
	xa_for_each_marked(&xa, index, entry, XA_MARK_2) {
		if (nm * 3 >= nr || index != want[nm * 3])
			fail_msg("seed %llu: marked iteration wrong at %#lx",
				 (unsigned long long)seed, index);
		nm++;
	}
	assert_int_equal(nm, nmarked);
	xat_fini(&xa);
	assert_xa_ok(&xa);
	free(want);
	free(got);
}

static void test_extract(void **state)
{
	struct xarray xa;
	void *dst[8];
	unsigned int n;

	(void)state;
	fill_search(&xa);

	memset(dst, 0, sizeof(dst));
	n = xa_extract(&xa, dst, 0, ULONG_MAX, 8, XA_PRESENT);
	assert_int_equal(n, 5);
	assert_ptr_equal(dst[0], P(3));
	assert_ptr_equal(dst[1], P(10));
	assert_ptr_equal(dst[2], P(64));
	assert_ptr_equal(dst[3], xa_mk_value(1000));
	assert_ptr_equal(dst[4], P(99));
	assert_null(dst[5]);

	/* The n limit. */
	memset(dst, 0, sizeof(dst));
	n = xa_extract(&xa, dst, 0, ULONG_MAX, 2, XA_PRESENT);
	assert_int_equal(n, 2);
	assert_ptr_equal(dst[0], P(3));
	assert_ptr_equal(dst[1], P(10));
	assert_null(dst[2]);
	assert_int_equal(xa_extract(&xa, dst, 0, ULONG_MAX, 0, XA_PRESENT), 0);

	/* Range: starting inside the multi-index entry includes it once. */
	memset(dst, 0, sizeof(dst));
	n = xa_extract(&xa, dst, 70, 999, 8, XA_PRESENT);
	assert_int_equal(n, 1);
	assert_ptr_equal(dst[0], P(64));
	memset(dst, 0, sizeof(dst));
	n = xa_extract(&xa, dst, 4, 9, 8, XA_PRESENT);	/* only reserved 5 */
	assert_int_equal(n, 0);
	n = xa_extract(&xa, dst, 3, 3, 8, XA_PRESENT);
	assert_int_equal(n, 1);
	assert_ptr_equal(dst[0], P(3));

	/* Marked. */
	memset(dst, 0, sizeof(dst));
	n = xa_extract(&xa, dst, 0, ULONG_MAX, 8, XA_MARK_1);
	assert_int_equal(n, 2);
	assert_ptr_equal(dst[0], P(10));
	assert_ptr_equal(dst[1], P(64));
	memset(dst, 0, sizeof(dst));
	n = xa_extract(&xa, dst, 0, ULONG_MAX, 1, XA_MARK_2);
	assert_int_equal(n, 1);
	assert_ptr_equal(dst[0], xa_mk_value(1000));
	n = xa_extract(&xa, dst, 1001, ULONG_MAX, 8, XA_MARK_2);
	assert_int_equal(n, 1);
	assert_ptr_equal(dst[0], P(99));
	n = xa_extract(&xa, dst, 0, ULONG_MAX, 8, XA_MARK_0);
	assert_int_equal(n, 0);

	xat_fini(&xa);
	assert_xa_ok(&xa);
	assert_int_equal(xa_extract(&xa, dst, 0, ULONG_MAX, 8, XA_PRESENT), 0);
}

/* ------------------------------------------------------------------ */
/* xa_destroy, xa_empty                                               */
/* ------------------------------------------------------------------ */

static void test_destroy(void **state)
{
	struct upc_thread_stats before, after;
	struct upc_rand rnd;
	struct xarray xa;
	unsigned int i;

	(void)state;
	upc_rand_seed(&rnd, upc_test_seed() ^ 0xde57);
	xa_init(&xa);
	/* An empty array: destroy is harmless. */
	xat_fini(&xa);
	assert_true(xa_empty(&xa));
	assert_xa_ok(&xa);

	upc_stats_thread(&before);
	for (i = 0; i < 3000; i++) {
		unsigned long idx = upc_rand_below(&rnd, 3) ?
			upc_rand_below(&rnd, 100000) : upc_rand_next(&rnd);

		xa_store(&xa, idx, P(i & 255), GFP_KERNEL);
		if (i % 7 == 0)
			xa_set_mark(&xa, idx, XA_MARK_1);
		if (i % 11 == 0)
			xa_set_mark(&xa, idx, XA_MARK_2);
	}
	assert_null(xa_store_range(&xa, 1UL << 40, (1UL << 40) + 4095, P(1),
				   GFP_KERNEL));
	assert_int_equal(xa_reserve(&xa, 77777777, GFP_KERNEL), 0);
	assert_xa_ok(&xa);
	assert_true(xa_marked(&xa, XA_MARK_1));
	xat_fini(&xa);
	upc_stats_thread(&after);
	assert_xa_ok(&xa);
	assert_true(xa_empty(&xa));
	assert_false(xa_marked(&xa, XA_MARK_0));
	assert_false(xa_marked(&xa, XA_MARK_1));
	assert_false(xa_marked(&xa, XA_MARK_2));
	assert_null(xa_load(&xa, 1UL << 40));
	/* Every node allocated since "before" was freed. */
	assert_int_equal(after.xa_node_allocs - before.xa_node_allocs,
			 after.xa_node_frees - before.xa_node_frees);
	assert_true(after.xa_node_allocs > before.xa_node_allocs);

	/* The array is usable again. */
	assert_null(xa_store(&xa, 5, P(5), GFP_KERNEL));
	assert_ptr_equal(xa_load(&xa, 5), P(5));
	assert_false(xa_get_mark(&xa, 5, XA_MARK_1));
	xat_fini(&xa);

	/* Head-only arrays. */
	assert_null(xa_store(&xa, 0, P(0), GFP_KERNEL));
	xa_set_mark(&xa, 0, XA_MARK_2);
	xat_fini(&xa);
	assert_true(xa_empty(&xa));
	assert_false(xa_marked(&xa, XA_MARK_2));
	assert_xa_ok(&xa);
}

static void test_empty(void **state)
{
	struct xarray xa;

	(void)state;
	xa_init(&xa);
	assert_true(xa_empty(&xa));
	xa_store(&xa, 1, P(1), GFP_KERNEL);
	assert_false(xa_empty(&xa));
	xa_erase(&xa, 1);
	assert_true(xa_empty(&xa));
	assert_int_equal(xa_reserve(&xa, 0, GFP_KERNEL), 0);
	assert_false(xa_empty(&xa));
	xa_release(&xa, 0);
	assert_true(xa_empty(&xa));
	assert_int_equal(xa_reserve(&xa, 1UL << 50, GFP_KERNEL), 0);
	assert_false(xa_empty(&xa));
	xa_erase(&xa, 1UL << 50);
	assert_true(xa_empty(&xa));
	assert_null(xa_store_range(&xa, 10, 1000, P(2), GFP_KERNEL));
	assert_false(xa_empty(&xa));
	assert_null(xa_store_range(&xa, 10, 1000, NULL, GFP_KERNEL));
	assert_true(xa_empty(&xa));
	assert_xa_ok(&xa);
}

/* ------------------------------------------------------------------ */
/* Marks                                                              */
/* ------------------------------------------------------------------ */

static void test_marks(void **state)
{
	static const unsigned long idx[] = { 0, 1, 63, 64, 4096, 1UL << 33, ULONG_MAX };
	struct xarray xa;
	xa_mark_t m;
	unsigned int i;

	(void)state;
	xa_init(&xa);
	/* Marking nothing does not succeed. */
	xa_set_mark(&xa, 5, XA_MARK_0);
	assert_false(xa_get_mark(&xa, 5, XA_MARK_0));
	assert_false(xa_marked(&xa, XA_MARK_0));
	assert_true(xa_empty(&xa));
	assert_xa_ok(&xa);

	for (i = 0; i < sizeof(idx) / sizeof(idx[0]); i++)
		assert_null(xa_store(&xa, idx[i], P(i), GFP_KERNEL));
	/* A NULL index inside a populated node cannot be marked either. */
	xa_set_mark(&xa, 2, XA_MARK_1);
	assert_false(xa_get_mark(&xa, 2, XA_MARK_1));
	assert_false(xa_marked(&xa, XA_MARK_1));
	assert_xa_ok(&xa);

	for (m = XA_MARK_0; m <= XA_MARK_MAX; m++) {
		for (i = 0; i < sizeof(idx) / sizeof(idx[0]); i++) {
			xa_mark_t o;

			xa_set_mark(&xa, idx[i], m);
			assert_true(xa_get_mark(&xa, idx[i], m));
			assert_true(xa_marked(&xa, m));
			for (o = XA_MARK_0; o <= XA_MARK_MAX; o++)
				if (o != m)
					assert_false(xa_get_mark(&xa, idx[i], o));
			/* Setting twice is harmless. */
			xa_set_mark(&xa, idx[i], m);
			assert_xa_ok(&xa);
		}
		for (i = 0; i < sizeof(idx) / sizeof(idx[0]); i++) {
			assert_true(xa_marked(&xa, m));
			xa_clear_mark(&xa, idx[i], m);
			assert_false(xa_get_mark(&xa, idx[i], m));
			/* Clearing twice, and clearing nothing, succeed. */
			xa_clear_mark(&xa, idx[i], m);
			xa_clear_mark(&xa, idx[i] ^ 2, m);
			assert_xa_ok(&xa);
		}
		assert_false(xa_marked(&xa, m));
	}

	/* Invalid marks: no effect. */
	xa_set_mark(&xa, 1, 3);
	xa_set_mark(&xa, 1, XA_PRESENT);
	assert_false(xa_get_mark(&xa, 1, 3));
	assert_false(xa_get_mark(&xa, 1, XA_PRESENT));
	assert_false(xa_marked(&xa, 3));
	assert_false(xa_marked(&xa, XA_MARK_0));
	assert_false(xa_marked(&xa, XA_MARK_1));
	assert_false(xa_marked(&xa, XA_MARK_2));
	xa_clear_mark(&xa, 1, 3);
	xa_clear_mark(&xa, 1, XA_PRESENT);
	assert_xa_ok(&xa);

	/* A store over a marked entry keeps the mark; erase drops it. */
	xa_set_mark(&xa, 64, XA_MARK_2);
	assert_ptr_equal(xa_store(&xa, 64, P(100), GFP_KERNEL), P(3));
	assert_true(xa_get_mark(&xa, 64, XA_MARK_2));
	assert_true(xa_marked(&xa, XA_MARK_2));
	assert_ptr_equal(xa_erase(&xa, 64), P(100));
	assert_false(xa_marked(&xa, XA_MARK_2));
	assert_null(xa_store(&xa, 64, P(3), GFP_KERNEL));
	assert_false(xa_get_mark(&xa, 64, XA_MARK_2));
	assert_xa_ok(&xa);

	/* The head entry's marks. */
	xa_set_mark(&xa, 0, XA_MARK_0);
	for (i = 1; i < sizeof(idx) / sizeof(idx[0]); i++)
		xa_erase(&xa, idx[i]);
	assert_xa_ok(&xa);
	assert_true(xa_get_mark(&xa, 0, XA_MARK_0));
	assert_true(xa_marked(&xa, XA_MARK_0));
	assert_null(xa_store(&xa, 1UL << 20, P(1), GFP_KERNEL));
	assert_true(xa_get_mark(&xa, 0, XA_MARK_0));
	assert_false(xa_get_mark(&xa, 1UL << 20, XA_MARK_0));
	assert_xa_ok(&xa);
	xa_erase(&xa, 1UL << 20);
	assert_true(xa_get_mark(&xa, 0, XA_MARK_0));
	assert_xa_ok(&xa);
	xa_erase(&xa, 0);
	assert_false(xa_marked(&xa, XA_MARK_0));
	assert_xa_ok(&xa);

	/* __xa_set_mark and __xa_clear_mark under the lock. */
	xa_store(&xa, 9, P(9), GFP_KERNEL);
	xa_lock(&xa);
	__xa_set_mark(&xa, 9, XA_MARK_1);
	xa_unlock(&xa);
	assert_true(xa_get_mark(&xa, 9, XA_MARK_1));
	xa_lock(&xa);
	__xa_clear_mark(&xa, 9, XA_MARK_1);
	xa_unlock(&xa);
	assert_false(xa_get_mark(&xa, 9, XA_MARK_1));
	xat_fini(&xa);
}

static void test_marks_multi_index(void **state)
{
	struct xarray xa;
	unsigned long i;

	(void)state;
	xa_init(&xa);
	assert_null(xa_store_range(&xa, 256, 511, P(1), GFP_KERNEL));
	assert_null(xa_store(&xa, 512, P(2), GFP_KERNEL));
	/* Marking any index marks the whole entry. */
	xa_set_mark(&xa, 300, XA_MARK_0);
	assert_xa_ok(&xa);
	for (i = 256; i < 512; i++)
		assert_true(xa_get_mark(&xa, i, XA_MARK_0));
	assert_false(xa_get_mark(&xa, 255, XA_MARK_0));
	assert_false(xa_get_mark(&xa, 512, XA_MARK_0));
	/* Clearing through another index clears it all. */
	xa_clear_mark(&xa, 511, XA_MARK_0);
	assert_false(xa_get_mark(&xa, 256, XA_MARK_0));
	assert_false(xa_marked(&xa, XA_MARK_0));
	assert_xa_ok(&xa);
	xa_set_mark(&xa, 511, XA_MARK_1);
	assert_true(xa_get_mark(&xa, 256, XA_MARK_1));
	/* A store through any index keeps the entry's marks. */
	assert_ptr_equal(xa_store(&xa, 400, P(3), GFP_KERNEL), P(1));
	assert_true(xa_get_mark(&xa, 256, XA_MARK_1));
	assert_true(xa_get_mark(&xa, 511, XA_MARK_1));
	assert_ptr_equal(xa_load(&xa, 256), P(3));
	assert_int_equal(xa_get_order(&xa, 257), 8);
	assert_xa_ok(&xa);
	assert_ptr_equal(xa_erase(&xa, 260), P(3));
	assert_false(xa_marked(&xa, XA_MARK_1));
	xat_fini(&xa);
}

/* A random mix of order-0 operations against a plain table. */
static void test_random_ops(void **state)
{
	enum { NCAND = 512, OPS = 20000 };
	static unsigned long cand[NCAND];
	static void *model[NCAND];
	static unsigned char marks[NCAND];
	uint64_t seed = upc_test_seed();
	struct upc_rand rnd;
	struct xarray xa;
	unsigned int i, op;

	(void)state;
	upc_rand_seed(&rnd, seed ^ 0x7a2d0);
	/*
	 * Candidate i always has i in its low 9 bits, so the candidates are
	 * distinct: 0..299 dense, then some below 2^20, then anywhere.
	 */
	for (i = 0; i < NCAND; i++) {
		if (i < 300)
			cand[i] = i;
		else if (i < 400)
			cand[i] = ((1 + upc_rand_below(&rnd, 1023)) << 10) | i;
		else
			cand[i] = (upc_rand_next(&rnd) << 10) | i;
	}
	cand[NCAND - 1] = ULONG_MAX;
	memset(model, 0, sizeof(model));
	memset(marks, 0, sizeof(marks));
	xa_init(&xa);
	for (op = 0; op < OPS; op++) {
		unsigned int c = (unsigned int)upc_rand_below(&rnd, NCAND);
		unsigned long idx = cand[c];
		void *e = upc_rand_chance(&rnd, 1, 2) ?
			xa_mk_value(op) : P(op & 255);
		xa_mark_t m = (xa_mark_t)upc_rand_below(&rnd, 3);
		void *got;

		switch (upc_rand_below(&rnd, 6)) {
		case 0:
		case 1:
			got = xa_store(&xa, idx, e, GFP_KERNEL);
			if (got != model[c])
				fail_msg("seed %llu op %u: store %#lx returned %p, want %p",
					 (unsigned long long)seed, op, idx, got, model[c]);
			model[c] = e;
			break;
		case 2:
			got = xa_erase(&xa, idx);
			if (got != model[c])
				fail_msg("seed %llu op %u: erase %#lx returned %p, want %p",
					 (unsigned long long)seed, op, idx, got, model[c]);
			model[c] = NULL;
			marks[c] = 0;
			break;
		case 3:
			if (xa_insert(&xa, idx, e, GFP_KERNEL) !=
			    (model[c] ? -EBUSY : 0))
				fail_msg("seed %llu op %u: insert %#lx",
					 (unsigned long long)seed, op, idx);
			if (!model[c])
				model[c] = e;
			break;
		case 4:
			xa_set_mark(&xa, idx, m);
			if (model[c])
				marks[c] |= 1U << m;
			break;
		default:
			xa_clear_mark(&xa, idx, m);
			marks[c] &= ~(1U << m);
			break;
		}
		if (op % 1000 == 0 && upc_check_xarray(&xa))
			fail_msg("seed %llu op %u: invariant check failed",
				 (unsigned long long)seed, op);
	}
	assert_xa_ok(&xa);
	for (i = 0; i < NCAND; i++) {
		xa_mark_t m;

		if (xa_load(&xa, cand[i]) != model[i])
			fail_msg("seed %llu: index %#lx holds %p, want %p",
				 (unsigned long long)seed, cand[i],
				 xa_load(&xa, cand[i]), model[i]);
		for (m = XA_MARK_0; m <= XA_MARK_MAX; m++)
			if (xa_get_mark(&xa, cand[i], m) != !!(marks[i] & (1U << m)))
				fail_msg("seed %llu: index %#lx mark %u wrong",
					 (unsigned long long)seed, cand[i], m);
	}
	for (i = 0; i < NCAND; i++)
		xa_erase(&xa, cand[i]);
	assert_xa_ok(&xa);
	assert_true(xa_empty(&xa));
}

/* ------------------------------------------------------------------ */
/* Spellings and the lock                                             */
/* ------------------------------------------------------------------ */

static void *trylock_thread(void *arg)
{
	struct xarray *xa = arg;
	bool got = xa_trylock(xa);

	if (got)
		xa_unlock(xa);
	return (void *)(uintptr_t)got;
}

static bool trylock_elsewhere(struct xarray *xa)
{
	pthread_t t;
	void *ret;

	assert_int_equal(pthread_create(&t, NULL, trylock_thread, xa), 0);
	assert_int_equal(pthread_join(t, &ret), 0);
	return ret != NULL;
}

static void *held_thread(void *arg)
{
	struct xarray *xa = arg;

	return (void *)(uintptr_t)upc_lock_is_held(&xa->xa_lock);
}

/* Does another thread see @xa's lock as its own? */
static bool held_elsewhere(struct xarray *xa)
{
	pthread_t t;
	void *ret;

	assert_int_equal(pthread_create(&t, NULL, held_thread, xa), 0);
	assert_int_equal(pthread_join(t, &ret), 0);
	return ret != NULL;
}

static void test_aliases_and_locks(void **state)
{
	struct xarray xa;
	unsigned long flags;

	(void)state;
	xa_init_flags(&xa, XA_FLAGS_LOCK_IRQ);
	assert_null(xa_store_bh(&xa, 1, P(1), GFP_KERNEL));
	assert_null(xa_store_irq(&xa, 2, P(2), GFP_KERNEL));
	assert_ptr_equal(xa_store_bh(&xa, 1, P(3), GFP_KERNEL), P(1));
	assert_ptr_equal(xa_load(&xa, 1), P(3));
	assert_ptr_equal(xa_load(&xa, 2), P(2));
	assert_ptr_equal(xa_erase_bh(&xa, 1), P(3));
	assert_ptr_equal(xa_erase_irq(&xa, 2), P(2));
	assert_null(xa_erase_irq(&xa, 2));
	assert_xa_ok(&xa);
	assert_true(xa_empty(&xa));

	/* The normal API leaves the lock free. */
	assert_false(upc_lock_is_held(&xa.xa_lock));
	assert_true(trylock_elsewhere(&xa));

	xa_lock(&xa);
	assert_true(upc_lock_is_held(&xa.xa_lock));
	assert_false(trylock_elsewhere(&xa));
	/* Held, but by this thread: not by the other. */
	assert_false(held_elsewhere(&xa));
	assert_null(__xa_store(&xa, 10, P(10), GFP_KERNEL));
	/* GFP_KERNEL may drop the lock, but it is held again on return. */
	assert_null(__xa_store(&xa, 1UL << 40, P(11), GFP_KERNEL));
	assert_true(upc_lock_is_held(&xa.xa_lock));
	assert_null(__xa_store(&xa, 1UL << 50, P(12), GFP_NOWAIT));
	assert_true(upc_lock_is_held(&xa.xa_lock));
	assert_ptr_equal(__xa_erase(&xa, 10), P(10));
	assert_true(upc_lock_is_held(&xa.xa_lock));
	xa_unlock(&xa);
	assert_false(upc_lock_is_held(&xa.xa_lock));
	assert_xa_ok(&xa);
	assert_ptr_equal(xa_load(&xa, 1UL << 40), P(11));
	assert_ptr_equal(xa_load(&xa, 1UL << 50), P(12));
	assert_null(xa_load(&xa, 10));

	xa_lock_bh(&xa);
	assert_true(upc_lock_is_held(&xa.xa_lock));
	__xa_erase(&xa, 1UL << 40);
	xa_unlock_bh(&xa);
	xa_lock_irq(&xa);
	assert_true(upc_lock_is_held(&xa.xa_lock));
	__xa_erase(&xa, 1UL << 50);
	xa_unlock_irq(&xa);
	xa_lock_irqsave(&xa, flags);
	assert_true(upc_lock_is_held(&xa.xa_lock));
	assert_null(__xa_store(&xa, 3, P(3), GFP_ATOMIC));
	xa_unlock_irqrestore(&xa, flags);
	assert_false(upc_lock_is_held(&xa.xa_lock));
	xa_lock_nested(&xa, 1);
	xa_unlock(&xa);
	xa_lock_bh_nested(&xa, 1);
	xa_unlock_bh(&xa);
	xa_lock_irq_nested(&xa, 1);
	xa_unlock_irq(&xa);

	assert_true(xa_trylock(&xa));
	assert_true(upc_lock_is_held(&xa.xa_lock));
	assert_false(trylock_elsewhere(&xa));
	xa_unlock(&xa);
	assert_true(trylock_elsewhere(&xa));
	assert_ptr_equal(xa_load(&xa, 3), P(3));
	xat_fini(&xa);
	assert_false(upc_lock_is_held(&xa.xa_lock));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_index_zero),
		cmocka_unit_test(test_index_ulong_max),
		cmocka_unit_test(test_values_and_pointers),
		cmocka_unit_test(test_store_null),
		cmocka_unit_test(test_store_internal_rejected),
		cmocka_unit_test(test_store_zero_entry),
		cmocka_unit_test(test_insert),
		cmocka_unit_test(test_cmpxchg),
		cmocka_unit_test(test_reserve_release),
		cmocka_unit_test(test_store_range),
		cmocka_unit_test(test_store_range_pieces_are_separate),
		cmocka_unit_test(test_store_range_bad),
		cmocka_unit_test(test_get_order),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_find_marked_head_entry),
		cmocka_unit_test(test_for_each),
		cmocka_unit_test(test_for_each_random),
		cmocka_unit_test(test_extract),
		cmocka_unit_test(test_destroy),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_marks),
		cmocka_unit_test(test_marks_multi_index),
		cmocka_unit_test(test_random_ops),
		cmocka_unit_test(test_aliases_and_locks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
