// SPDX-License-Identifier: MIT
/*
 * tools/bench/xa_layout.c - node memory of the kernel's XArray layout.
 *
 * Owns the prefix count behind the kernel_layout figures (xa_layout.h).
 * The indices are sorted once; shifting a sorted sequence keeps it
 * sorted, so the distinct prefixes of each level are counted by
 * comparing neighbours.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <upcache/xarray.h>

#include "util.h"
#include "xa_layout.h"

/* layout_cmp() - qsort() order for unsigned long. */
static int layout_cmp(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	return (x > y) - (x < y);
}

/* layout_distinct() - Distinct values of sorted[i] >> @shift. */
static uint64_t layout_distinct(const unsigned long *sorted, size_t n,
				unsigned int shift)
{
	uint64_t count = 1;
	size_t i;

	for (i = 1; i < n; i++)
		count += (sorted[i] >> shift) != (sorted[i - 1] >> shift);
	return count;
}

/**
 * bench_xa_layout_nodes() - Nodes a kernel-layout XArray needs.
 * @idx: The indices, all distinct.
 * @n: How many.
 *
 * Return: The number of nodes.
 */
uint64_t bench_xa_layout_nodes(const unsigned long *idx, size_t n)
{
	unsigned long *sorted;
	unsigned int shift;
	uint64_t nodes = 0;

	if (n == 0 || (n == 1 && idx[0] == 0))
		return 0;
	sorted = bench_xcalloc(n, sizeof(*sorted));
	memcpy(sorted, idx, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), layout_cmp);
	/* A node of shift s holds the indices sharing idx >> (s + CHUNK). */
	for (shift = 0;; shift += XA_CHUNK_SHIFT) {
		unsigned int above = shift + XA_CHUNK_SHIFT;

		if (above >= BITS_PER_LONG) {
			nodes++;
			break;
		}
		nodes += layout_distinct(sorted, n, above);
		if (!(sorted[n - 1] >> above))
			break;
	}
	free(sorted);
	return nodes;
}

/**
 * bench_xa_layout_bytes_per_entry() - Node memory per entry, same layout.
 * @idx: The indices, all distinct.
 * @n: How many; at least 1.
 *
 * Return: Bytes of nodes per entry.
 */
double bench_xa_layout_bytes_per_entry(const unsigned long *idx, size_t n)
{
	return (double)bench_xa_layout_nodes(idx, n) *
		(double)sizeof(struct xa_node) / (double)n;
}
