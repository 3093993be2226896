/* SPDX-License-Identifier: MIT */
/*
 * tests/utils/xa_test.h - helpers shared by the XArray unit tests
 * (tests/lib/test_xarray_*.c, tests/lib/test_rcu_thread.c).
 *
 * The object table behind P(); the structural check after a step and at
 * the end (assert_xa_ok(), xat_fini()); the index arithmetic of
 * multi-index entries; sentinels around a range; stores and splits
 * through the advanced API under the lock; node counts (walked, and this
 * thread's allocations less frees); a qsort() comparison; and the cmocka
 * fixture that disarms the fault injector.
 *
 * The helpers assert with cmocka, so they may only be called from a
 * test's main thread.  Include <cmocka.h> (after <setjmp.h>, <stdarg.h>,
 * <stddef.h> and <stdint.h>) before this header.
 */
#ifndef UPCACHE_TESTS_UTILS_XA_TEST_H
#define UPCACHE_TESTS_UTILS_XA_TEST_H

#include <limits.h>
#include <stdint.h>

#include <upcache/check.h>
#include <upcache/xarray.h>

/* Objects whose addresses serve as entries: see P(). */
#define XAT_NR_OBJS	256
extern long xat_objs[XAT_NR_OBJS];

/*
 * P() - A pointer entry (8-byte aligned, so never a value or an internal
 * entry), distinct for each @i in [0, 255]; @i is taken modulo 256.
 */
#define P(i)	((void *)&xat_objs[(i) & (XAT_NR_OBJS - 1)])

/* assert_xa_ok() - upc_check_xarray() finds nothing wrong with @xa. */
#define assert_xa_ok(xa)	assert_int_equal(upc_check_xarray(xa), 0)

/*
 * xat_fini() - The end of a test's use of @xa: assert_xa_ok(), then
 * xa_destroy().  A macro, so that a failure names the caller's line.
 */
#define xat_fini(xa)	do {	\
	assert_xa_ok(xa);	\
	xa_destroy(xa);		\
} while (0)

/* align_down() - @index rounded down to a multiple of 2^@order. */
static inline unsigned long align_down(unsigned long index, unsigned int order)
{
	if (order >= BITS_PER_LONG)
		return 0;
	return index & ~((1UL << order) - 1);
}

/* range_last() - Last index of the aligned 2^@order indices at @first. */
static inline unsigned long range_last(unsigned long first, unsigned int order)
{
	if (order >= BITS_PER_LONG)
		return ULONG_MAX;
	return first + ((1UL << order) - 1);
}

/* What xat_neighbours() does with each neighbour. */
enum xat_nb_op {
	XAT_NB_PUT,	/* xa_store() it; the store must return NULL */
	XAT_NB_CHECK,	/* xa_load() must return it */
	XAT_NB_ERASE,	/* xa_erase() must return it */
};

/**
 * xat_neighbours() - Sentinels just outside a range.
 * @xa: The array.
 * @first: First index of the range.
 * @last: Last index of the range.
 * @op: What to do with each sentinel.
 *
 * The sentinels are P(1) at @first - 1 unless @first is 0, and P(2) at
 * @last + 1 unless @last is ULONG_MAX: XAT_NB_PUT them before a test
 * stores over the range, XAT_NB_CHECK that it left them alone, and
 * XAT_NB_ERASE them at the end.
 */
void xat_neighbours(struct xarray *xa, unsigned long first,
		    unsigned long last, enum xat_nb_op op);

/**
 * xat_store_xas() - Store through a cursor, allocating as needed.
 * @xas: The cursor, set up for the store (index, order, callbacks).
 * @entry: What to store (NULL erases).
 *
 * Runs xas_store() under the lock in an xas_nomem() loop with GFP_KERNEL
 * and asserts that the store succeeded.
 *
 * Return: What xas_store() returned: the entry that was there.
 */
void *xat_store_xas(struct xa_state *xas, void *entry);

/**
 * xat_store_order() - Store an entry of any order through the advanced API.
 * @xa: The array.
 * @index: Any index of the range.
 * @order: The entry's order: it covers the aligned 2^@order indices.
 * @entry: What to store (NULL erases the range).
 *
 * xat_store_xas() through an XA_STATE_ORDER() cursor.
 *
 * Return: What xas_store() returned: the entry that was there.
 */
void *xat_store_order(struct xarray *xa, unsigned long index,
		      unsigned int order, void *entry);

/**
 * xat_split() - xas_split() under the array's lock.
 * @xas: The cursor: index and order of the new entries.
 * @entry: The entry being split.
 * @order: Its order.
 *
 * No preallocation and no retry: the caller checks xas_error() and owns
 * whatever the cursor holds.
 */
void xat_split(struct xa_state *xas, void *entry, unsigned int order);

/* xat_try_split() - xas_try_split() under the lock, as xat_split(). */
void xat_try_split(struct xa_state *xas, void *entry, unsigned int order);

/**
 * xat_nodes_live() - This thread's XArray nodes allocated and not freed.
 *
 * From upc_stats_thread(): xa_node_allocs - xa_node_frees.  Equal values
 * before and after a step mean it freed every node it allocated.
 *
 * Return: The difference.
 */
int64_t xat_nodes_live(void);

/**
 * xat_count_nodes() - Nodes of @xa's tree, counted by walking it.
 * @xa: The array; the caller keeps it from changing.
 *
 * Return: The number of nodes reachable from the head; 0 if the head is
 * not a node.
 */
unsigned long xat_count_nodes(const struct xarray *xa);

/**
 * xat_cmp_ulong() - qsort() and bsearch() comparison of unsigned longs.
 * @a: Pointer to the first.
 * @b: Pointer to the second.
 *
 * Return: Negative, zero or positive as *@a is below, equal to or
 * above *@b.
 */
int xat_cmp_ulong(const void *a, const void *b);

/**
 * xat_disarm_faults() - Disarm the fault injector (lib/fault.h).
 * @state: cmocka's state, unused.
 *
 * A cmocka setup and teardown, so that a test that failed while the
 * injector was armed leaves nothing armed for the next one.
 *
 * Return: 0.
 */
int xat_disarm_faults(void **state);

/*
 * XAT_TEST() - cmocka_unit_test() of @f for a table, run between two
 * xat_disarm_faults().
 */
#define XAT_TEST(f)	cmocka_unit_test_setup_teardown(f, xat_disarm_faults, \
							xat_disarm_faults)

#endif /* UPCACHE_TESTS_UTILS_XA_TEST_H */
