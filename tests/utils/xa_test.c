// SPDX-License-Identifier: MIT
/*
 * tests/utils/xa_test.c - helpers shared by the XArray unit tests.
 *
 * See xa_test.h.  Linked into every test program, like every file here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <upcache/stats.h>

#include "fault.h"
#include "xa_test.h"

long xat_objs[XAT_NR_OBJS];

void xat_neighbours(struct xarray *xa, unsigned long first,
		    unsigned long last, enum xat_nb_op op)
{
	unsigned long index[2];
	void *entry[2];
	unsigned int i, n = 0;

	if (first > 0) {
		index[n] = first - 1;
		entry[n++] = P(1);
	}
	if (last < ULONG_MAX) {
		index[n] = last + 1;
		entry[n++] = P(2);
	}
	for (i = 0; i < n; i++) {
		switch (op) {
		case XAT_NB_PUT:
			assert_null(xa_store(xa, index[i], entry[i],
					     GFP_KERNEL));
			break;
		case XAT_NB_CHECK:
			assert_ptr_equal(xa_load(xa, index[i]), entry[i]);
			break;
		case XAT_NB_ERASE:
			assert_ptr_equal(xa_erase(xa, index[i]), entry[i]);
			break;
		}
	}
}

void *xat_store_xas(struct xa_state *xas, void *entry)
{
	void *old;

	do {
		xas_lock(xas);
		old = xas_store(xas, entry);
		xas_unlock(xas);
	} while (xas_nomem(xas, GFP_KERNEL));
	assert_int_equal(xas_error(xas), 0);
	return old;
}

void *xat_store_order(struct xarray *xa, unsigned long index,
		      unsigned int order, void *entry)
{
	XA_STATE_ORDER(xas, xa, index, order);

	return xat_store_xas(&xas, entry);
}

void xat_split(struct xa_state *xas, void *entry, unsigned int order)
{
	xas_lock(xas);
	xas_split(xas, entry, order);
	xas_unlock(xas);
}

void xat_try_split(struct xa_state *xas, void *entry, unsigned int order)
{
	xas_lock(xas);
	xas_try_split(xas, entry, order);
	xas_unlock(xas);
}

int64_t xat_nodes_live(void)
{
	struct upc_thread_stats s;

	upc_stats_thread(&s);
	return (int64_t)s.xa_node_allocs - (int64_t)s.xa_node_frees;
}

/* Nodes in the subtree of @node, @node included. */
static unsigned long count_nodes_below(const struct xa_node *node)
{
	unsigned long n = 1;
	unsigned int i;

	if (node->shift == 0)
		return 1;
	for (i = 0; i < XA_CHUNK_SIZE; i++) {
		void *e = node->slots[i];

		if (xa_is_node(e))
			n += count_nodes_below(xa_to_node(e));
	}
	return n;
}

unsigned long xat_count_nodes(const struct xarray *xa)
{
	void *head = xa->xa_head;

	return xa_is_node(head) ? count_nodes_below(xa_to_node(head)) : 0;
}

int xat_cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

int xat_disarm_faults(void **state)
{
	(void)state;
	upc_fault_fail_nth(0);
	return 0;
}
