// SPDX-License-Identifier: MIT
/*
 * tests/lib/test_xarray_alloc.c - allocating XArrays (XA_FLAGS_ALLOC and
 * XA_FLAGS_ALLOC1).
 *
 * xa_alloc() hands out the lowest free ID inside the limit and -EBUSY when
 * there is none; freed IDs are reused; ALLOC1 arrays never hand out 0;
 * NULL entries reserve their ID; xa_alloc_cyclic() continues from *next,
 * wraps back to the minimum and reports the wrap with 1; a non-allocating
 * array or an advanced entry gets -EINVAL.  Every test that changes an
 * array runs the invariant checker, which also verifies the free-mark
 * tracking of these arrays.
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
#include <upcache/xarray.h>

#include "fault.h"
#include "rand.h"
#include "xa_test.h"

/*
 * expect_alloc() - xa_alloc() of @entry with @limit (GFP_KERNEL) succeeds
 * and allocates ID @want.
 */
static void expect_alloc(struct xarray *xa, void *entry, struct xa_limit limit,
			 uint32_t want)
{
	uint32_t id = want + 1;	/* wrong unless xa_alloc() writes it */

	assert_int_equal(xa_alloc(xa, &id, entry, limit, GFP_KERNEL), 0);
	assert_int_equal(id, want);
}

static void test_alloc_in_limits(void **state)
{
	DEFINE_XARRAY_ALLOC(xa);
	uint32_t id, i;

	(void)state;
	for (i = 0; i < 8; i++) {
		expect_alloc(&xa, P(i), XA_LIMIT(0, 7), i);
		assert_xa_ok(&xa);
	}
	/* Full. */
	assert_int_equal(xa_alloc(&xa, &id, P(9), XA_LIMIT(0, 7), GFP_KERNEL),
			 -EBUSY);
	assert_null(xa_load(&xa, 8));
	for (i = 0; i < 8; i++)
		assert_ptr_equal(xa_load(&xa, i), P(i));
	/* A wider limit finds the next one. */
	expect_alloc(&xa, P(8), XA_LIMIT(0, 8), 8);
	assert_xa_ok(&xa);

	/* A limit that starts in the middle. */
	expect_alloc(&xa, P(20), XA_LIMIT(20, 22), 20);
	expect_alloc(&xa, P(21), XA_LIMIT(20, 22), 21);
	expect_alloc(&xa, P(22), XA_LIMIT(20, 22), 22);
	assert_int_equal(xa_alloc(&xa, &id, P(23), XA_LIMIT(20, 22), GFP_KERNEL),
			 -EBUSY);
	/* A single-ID limit. */
	expect_alloc(&xa, P(9), XA_LIMIT(9, 9), 9);
	assert_int_equal(xa_alloc(&xa, &id, P(9), XA_LIMIT(9, 9), GFP_KERNEL),
			 -EBUSY);
	assert_xa_ok(&xa);

	/* The top of the 32-bit range. */
	expect_alloc(&xa, P(1), XA_LIMIT(UINT32_MAX - 1, UINT32_MAX),
		     UINT32_MAX - 1);
	expect_alloc(&xa, P(2), XA_LIMIT(UINT32_MAX - 1, UINT32_MAX),
		     UINT32_MAX);
	assert_int_equal(xa_alloc(&xa, &id, P(3), XA_LIMIT(UINT32_MAX - 1,
							   UINT32_MAX), GFP_KERNEL), -EBUSY);
	assert_ptr_equal(xa_load(&xa, UINT32_MAX), P(2));
	assert_null(xa_load(&xa, (unsigned long)UINT32_MAX + 1));
	xat_fini(&xa);
	assert_xa_ok(&xa);
	assert_true(xa_empty(&xa));
}

static void test_alloc_reuse(void **state)
{
	struct xarray xa;
	uint32_t id, i;

	(void)state;
	xa_init_flags(&xa, XA_FLAGS_ALLOC);
	for (i = 0; i < 8; i++) {
		expect_alloc(&xa, xa_mk_value(i), XA_LIMIT(0, 7), i);
	}
	assert_ptr_equal(xa_erase(&xa, 6), xa_mk_value(6));
	assert_ptr_equal(xa_erase(&xa, 3), xa_mk_value(3));
	assert_xa_ok(&xa);
	/* Lowest free first. */
	expect_alloc(&xa, P(3), XA_LIMIT(0, 7), 3);
	expect_alloc(&xa, P(6), XA_LIMIT(0, 7), 6);
	assert_int_equal(xa_alloc(&xa, &id, P(6), XA_LIMIT(0, 7), GFP_KERNEL),
			 -EBUSY);
	assert_xa_ok(&xa);
	/* Freeing 0 (the only entry once the rest goes) and reusing it. */
	for (i = 1; i < 8; i++)
		xa_erase(&xa, i);
	assert_xa_ok(&xa);
	assert_ptr_equal(xa_erase(&xa, 0), xa_mk_value(0));
	assert_xa_ok(&xa);
	assert_true(xa_empty(&xa));
	expect_alloc(&xa, P(0), XA_LIMIT(0, 7), 0);
	expect_alloc(&xa, P(1), XA_LIMIT(0, 7), 1);
	xat_fini(&xa);
}

static void test_alloc1(void **state)
{
	DEFINE_XARRAY_ALLOC1(xa);
	uint32_t id, i;

	(void)state;
	/* Nothing but 0 in the limit: busy. */
	assert_int_equal(xa_alloc(&xa, &id, P(0), XA_LIMIT(0, 0), GFP_KERNEL),
			 -EBUSY);
	assert_true(xa_empty(&xa));
	for (i = 1; i < 8; i++) {
		expect_alloc(&xa, P(i), XA_LIMIT(0, 7), i);
		assert_xa_ok(&xa);
	}
	assert_int_equal(xa_alloc(&xa, &id, P(8), XA_LIMIT(0, 7), GFP_KERNEL),
			 -EBUSY);
	assert_null(xa_load(&xa, 0));
	/* After freeing everything, still never 0. */
	for (i = 1; i < 8; i++)
		assert_ptr_equal(xa_erase(&xa, i), P(i));
	assert_xa_ok(&xa);
	assert_true(xa_empty(&xa));
	expect_alloc(&xa, P(1), xa_limit_32b, 1);
	expect_alloc(&xa, P(2), xa_limit_31b, 2);
	assert_xa_ok(&xa);
	/* Cyclic allocation in an ALLOC1 array never wraps to 0 either. */
	{
		uint32_t next = 7;
		int ret;

		assert_int_equal(xa_alloc_cyclic(&xa, &id, P(7), XA_LIMIT(0, 7),
						 &next, GFP_KERNEL), 0);
		assert_int_equal(id, 7);
		ret = xa_alloc_cyclic(&xa, &id, P(3), XA_LIMIT(0, 7), &next,
				      GFP_KERNEL);
		assert_int_equal(ret, 1);
		assert_int_equal(id, 3);
	}
	assert_null(xa_load(&xa, 0));
	xat_fini(&xa);
	assert_xa_ok(&xa);
}

/*
 * xa_destroy() leaves an ALLOC1 array as it was when defined: index 0
 * stays busy, so the first ID handed out afterwards is still 1.  (The
 * invariant checker accepts either state of the head's free mark in an
 * empty ALLOC1 array, so only an allocation shows the difference.)
 */
static void test_alloc1_after_destroy(void **state)
{
	DEFINE_XARRAY_ALLOC1(xa);

	(void)state;
	expect_alloc(&xa, P(1), xa_limit_32b, 1);
	expect_alloc(&xa, P(2), xa_limit_32b, 2);
	xa_destroy(&xa);
	assert_true(xa_empty(&xa));
	expect_alloc(&xa, P(3), xa_limit_32b, 1);
	assert_null(xa_load(&xa, 0));
	xat_fini(&xa);
	expect_alloc(&xa, P(4), XA_LIMIT(0, 7), 1);
	xat_fini(&xa);
}

static void test_alloc_null_reserves(void **state)
{
	struct xarray xa;
	uint32_t id;
	unsigned long index;
	void *entry;
	unsigned int n = 0;

	(void)state;
	xa_init_flags(&xa, XA_FLAGS_ALLOC);
	expect_alloc(&xa, NULL, XA_LIMIT(0, 3), 0);
	assert_null(xa_load(&xa, 0));
	assert_false(xa_empty(&xa));
	expect_alloc(&xa, P(1), XA_LIMIT(0, 3), 1);
	assert_xa_ok(&xa);
	/* In an allocating array storing NULL keeps the ID reserved. */
	assert_ptr_equal(xa_store(&xa, 1, NULL, GFP_KERNEL), P(1));
	assert_null(xa_load(&xa, 1));
	assert_xa_ok(&xa);
	expect_alloc(&xa, P(2), XA_LIMIT(0, 3), 2);
	/* The normal iterators skip reservations. */
	xa_for_each(&xa, index, entry)
		n++;
	assert_int_equal(n, 1);
	/* xa_erase really frees. */
	assert_null(xa_erase(&xa, 1));
	assert_xa_ok(&xa);
	expect_alloc(&xa, P(3), XA_LIMIT(0, 3), 1);
	/* xa_release frees a reservation too. */
	xa_release(&xa, 0);
	assert_xa_ok(&xa);
	expect_alloc(&xa, P(4), XA_LIMIT(0, 3), 0);
	expect_alloc(&xa, P(5), XA_LIMIT(0, 3), 3);
	assert_int_equal(xa_alloc(&xa, &id, P(6), XA_LIMIT(0, 3), GFP_KERNEL),
			 -EBUSY);
	/* xa_reserve makes an ID busy for xa_alloc. */
	assert_int_equal(xa_reserve(&xa, 4, GFP_KERNEL), 0);
	expect_alloc(&xa, P(6), XA_LIMIT(0, 5), 5);
	xat_fini(&xa);
	assert_xa_ok(&xa);
}

static void test_alloc_skips_stored(void **state)
{
	struct xarray xa;
	uint32_t id;

	(void)state;
	xa_init_flags(&xa, XA_FLAGS_ALLOC);
	/* Entries stored directly are busy for xa_alloc. */
	assert_null(xa_store(&xa, 0, P(0), GFP_KERNEL));
	assert_null(xa_store(&xa, 2, P(2), GFP_KERNEL));
	assert_null(xa_store(&xa, 1000, P(3), GFP_KERNEL));
	assert_xa_ok(&xa);
	expect_alloc(&xa, P(1), XA_LIMIT(0, 7), 1);
	expect_alloc(&xa, P(1), XA_LIMIT(0, 7), 3);
	expect_alloc(&xa, P(1), XA_LIMIT(999, 1001), 999);
	expect_alloc(&xa, P(1), XA_LIMIT(1000, 1001), 1001);
	/* A multi-index entry occupies all its IDs. */
	assert_null(xa_store_range(&xa, 64, 127, P(5), GFP_KERNEL));
	expect_alloc(&xa, P(1), XA_LIMIT(64, 128), 128);
	assert_int_equal(xa_alloc(&xa, &id, P(1), XA_LIMIT(70, 127), GFP_KERNEL),
			 -EBUSY);
	assert_xa_ok(&xa);
	/* Erasing the multi-index entry frees all of its IDs. */
	xa_erase(&xa, 100);
	assert_xa_ok(&xa);
	expect_alloc(&xa, P(1), XA_LIMIT(70, 127), 70);
	/* Marks of user entries work next to the free tracking. */
	xa_set_mark(&xa, 70, XA_MARK_1);
	xa_set_mark(&xa, 1000, XA_MARK_2);
	assert_true(xa_get_mark(&xa, 70, XA_MARK_1));
	assert_true(xa_marked(&xa, XA_MARK_1));
	xat_fini(&xa);
}

static void test_alloc_cyclic(void **state)
{
	DEFINE_XARRAY_ALLOC(xa);
	uint32_t id, next = 0, i;

	(void)state;
	for (i = 0; i < 8; i++) {
		assert_int_equal(xa_alloc_cyclic(&xa, &id, P(i), XA_LIMIT(0, 7),
						 &next, GFP_KERNEL), 0);
		assert_int_equal(id, i);
		assert_int_equal(next, i + 1);
	}
	assert_xa_ok(&xa);
	/* Full. */
	assert_int_equal(xa_alloc_cyclic(&xa, &id, P(9), XA_LIMIT(0, 7), &next,
					 GFP_KERNEL), -EBUSY);
	assert_int_equal(next, 8);
	/* Free 2: next (8) is past max, so the search wraps: returns 1. */
	xa_erase(&xa, 2);
	assert_int_equal(xa_alloc_cyclic(&xa, &id, P(2), XA_LIMIT(0, 7), &next,
					 GFP_KERNEL), 1);
	assert_int_equal(id, 2);
	assert_int_equal(next, 3);
	/* Free 1 and 5: the search starts at next = 3, so 5 comes first. */
	xa_erase(&xa, 1);
	xa_erase(&xa, 5);
	assert_xa_ok(&xa);
	assert_int_equal(xa_alloc_cyclic(&xa, &id, P(5), XA_LIMIT(0, 7), &next,
					 GFP_KERNEL), 0);
	assert_int_equal(id, 5);
	assert_int_equal(next, 6);
	assert_int_equal(xa_alloc_cyclic(&xa, &id, P(1), XA_LIMIT(0, 7), &next,
					 GFP_KERNEL), 1);
	assert_int_equal(id, 1);
	assert_int_equal(next, 2);
	assert_int_equal(xa_alloc_cyclic(&xa, &id, P(1), XA_LIMIT(0, 7), &next,
					 GFP_KERNEL), -EBUSY);
	assert_int_equal(next, 2);
	assert_xa_ok(&xa);

	/* next below limit.min: starts at min. */
	next = 0;
	assert_int_equal(xa_alloc_cyclic(&xa, &id, P(1), XA_LIMIT(100, 200),
					 &next, GFP_KERNEL), 0);
	assert_int_equal(id, 100);
	assert_int_equal(next, 101);
	/* Cycles through freed IDs instead of reusing the lowest. */
	xa_erase(&xa, 100);
	assert_int_equal(xa_alloc_cyclic(&xa, &id, P(1), XA_LIMIT(100, 200),
					 &next, GFP_KERNEL), 0);
	assert_int_equal(id, 101);
	xat_fini(&xa);
}

/*
 * The cyclic search goes back to limit.min whenever it started above it,
 * even when *next is only one past limit.min: [next, max] full with
 * limit.min free allocates limit.min and reports the wrap.
 */
static void test_alloc_cyclic_wrap_to_min(void **state)
{
	DEFINE_XARRAY_ALLOC(xa);
	uint32_t id, next = 0, i;

	(void)state;
	for (i = 10; i < 14; i++)
		assert_int_equal(xa_alloc_cyclic(&xa, &id, P(i),
						 XA_LIMIT(10, 13), &next,
						 GFP_KERNEL), 0);
	assert_ptr_equal(xa_erase(&xa, 10), P(10));
	next = 11;
	assert_int_equal(xa_alloc_cyclic(&xa, &id, P(20), XA_LIMIT(10, 13),
					 &next, GFP_KERNEL), 1);
	assert_int_equal(id, 10);
	assert_int_equal(next, 11);
	assert_ptr_equal(xa_load(&xa, 10), P(20));
	xat_fini(&xa);
}

static void test_alloc_cyclic_wrap_32b(void **state)
{
	DEFINE_XARRAY_ALLOC(xa);
	uint32_t id, next = UINT32_MAX - 1;

	(void)state;
	assert_int_equal(xa_alloc_cyclic(&xa, &id, P(1), xa_limit_32b, &next,
					 GFP_KERNEL), 0);
	assert_int_equal(id, UINT32_MAX - 1);
	assert_int_equal(next, UINT32_MAX);
	assert_int_equal(xa_alloc_cyclic(&xa, &id, P(2), xa_limit_32b, &next,
					 GFP_KERNEL), 0);
	assert_int_equal(id, UINT32_MAX);
	/* next wrapped to 0; the allocation after the wrap reports it. */
	assert_int_equal(next, 0);
	assert_int_equal(xa_alloc_cyclic(&xa, &id, P(3), xa_limit_32b, &next,
					 GFP_KERNEL), 1);
	assert_int_equal(id, 0);
	assert_int_equal(next, 1);
	/* Reported once only. */
	assert_int_equal(xa_alloc_cyclic(&xa, &id, P(4), xa_limit_32b, &next,
					 GFP_KERNEL), 0);
	assert_int_equal(id, 1);
	assert_int_equal(next, 2);
	assert_ptr_equal(xa_load(&xa, UINT32_MAX), P(2));
	assert_ptr_equal(xa_load(&xa, UINT32_MAX - 1), P(1));
	assert_ptr_equal(xa_load(&xa, 0), P(3));
	xat_fini(&xa);
}

static void test_alloc_einval(void **state)
{
	DEFINE_XARRAY(plain);
	DEFINE_XARRAY_ALLOC(xa);
	uint32_t id = 77, next = 0;

	(void)state;
	assert_int_equal(xa_alloc(&plain, &id, P(1), xa_limit_32b, GFP_KERNEL),
			 -EINVAL);
	assert_int_equal(xa_alloc(&plain, &id, NULL, XA_LIMIT(0, 7), GFP_KERNEL),
			 -EINVAL);
	assert_int_equal(xa_alloc_cyclic(&plain, &id, P(1), xa_limit_32b, &next,
					 GFP_KERNEL), -EINVAL);
	assert_true(xa_empty(&plain));
	assert_xa_ok(&plain);

	/* Advanced internal entries are refused by allocating arrays. */
	assert_int_equal(xa_alloc(&xa, &id, XA_RETRY_ENTRY, xa_limit_32b,
				  GFP_KERNEL), -EINVAL);
	assert_int_equal(xa_alloc(&xa, &id, xa_mk_sibling(0), xa_limit_32b,
				  GFP_KERNEL), -EINVAL);
	assert_int_equal(xa_alloc_cyclic(&xa, &id, xa_mk_sibling(2), xa_limit_32b,
					 &next, GFP_KERNEL), -EINVAL);
	assert_true(xa_empty(&xa));
	assert_xa_ok(&xa);
	expect_alloc(&xa, P(1), xa_limit_32b, 0);
	xat_fini(&xa);
}

/* Many IDs, random frees: xa_alloc always returns the lowest free ID. */
static void test_alloc_lowest_free_random(void **state)
{
	enum { N = 3000 };
	static unsigned char used[N + 1];
	uint64_t seed = upc_test_seed();
	struct upc_rand rnd;
	struct xarray xa;
	uint32_t id, i, round;

	(void)state;
	upc_rand_seed(&rnd, seed ^ 0xa110c);
	memset(used, 0, sizeof(used));
	xa_init_flags(&xa, XA_FLAGS_ALLOC);
	for (i = 0; i < N; i++) {
		expect_alloc(&xa, xa_mk_value(i), xa_limit_32b, i);
		used[i] = 1;
	}
	assert_xa_ok(&xa);
	for (round = 0; round < 5; round++) {
		/* Free a random subset. */
		for (i = 0; i < N / 3; i++) {
			uint32_t victim = (uint32_t)upc_rand_below(&rnd, N);

			if (used[victim]) {
				xa_erase(&xa, victim);
				used[victim] = 0;
			}
		}
		if (upc_check_xarray(&xa))
			fail_msg("seed %llu: check failed after frees",
				 (unsigned long long)seed);
		/* Allocate until full again, lowest first. */
		for (;;) {
			uint32_t want = 0;

			while (want < N && used[want])
				want++;
			if (want == N)
				break;
			if (xa_alloc(&xa, &id, P(want), XA_LIMIT(0, N - 1),
				     GFP_KERNEL) != 0 || id != want)
				fail_msg("seed %llu round %u: allocated %u, want %u",
					 (unsigned long long)seed, round, id, want);
			used[want] = 1;
		}
		assert_int_equal(xa_alloc(&xa, &id, P(0), XA_LIMIT(0, N - 1),
					  GFP_KERNEL), -EBUSY);
		if (upc_check_xarray(&xa))
			fail_msg("seed %llu: check failed after allocations",
				 (unsigned long long)seed);
	}
	xat_fini(&xa);
	assert_xa_ok(&xa);
}

/* GFP_KERNEL recovers from a failed node allocation. */
static void test_alloc_nomem_retry(void **state)
{
	struct xarray xa;
	uint32_t id;
	int ret;

	(void)state;
	xa_init_flags(&xa, XA_FLAGS_ALLOC);
	expect_alloc(&xa, P(0), xa_limit_32b, 0);
	/* ID 1 needs the first node: fail its first allocation attempt. */
	upc_fault_fail_nth(1);
	ret = xa_alloc(&xa, &id, P(1), xa_limit_32b, GFP_KERNEL);
	assert_true(upc_fault_injected());
	upc_fault_fail_nth(0);
	assert_int_equal(ret, 0);
	assert_int_equal(id, 1);
	assert_ptr_equal(xa_load(&xa, 1), P(1));
	assert_ptr_equal(xa_load(&xa, 0), P(0));
	xat_fini(&xa);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		XAT_TEST(test_alloc_in_limits),
		XAT_TEST(test_alloc_reuse),
		XAT_TEST(test_alloc1),
		XAT_TEST(test_alloc1_after_destroy),
		XAT_TEST(test_alloc_null_reserves),
		XAT_TEST(test_alloc_skips_stored),
		XAT_TEST(test_alloc_cyclic),
		XAT_TEST(test_alloc_cyclic_wrap_to_min),
		XAT_TEST(test_alloc_cyclic_wrap_32b),
		XAT_TEST(test_alloc_einval),
		XAT_TEST(test_alloc_lowest_free_random),
		XAT_TEST(test_alloc_nomem_retry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
