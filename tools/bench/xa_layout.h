/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/xa_layout.h - node memory of the kernel's XArray layout.
 *
 * The kernel's XArray has no path compression: an index set needs one
 * node per distinct index prefix at every level from the leaves up to
 * the level that covers the largest index.  Counting those prefixes
 * gives, exactly, the node memory the kernel's XArray would use for the
 * same indices, a same-machine reference for the bytes_per_entry rows
 * that no published figure can be: a published figure depends on the
 * index distribution it was measured with.
 *
 * Pure code (headers only from upcache), compiled into tests/bench/
 * directly.
 */
#ifndef UPCACHE_TOOLS_BENCH_XA_LAYOUT_H
#define UPCACHE_TOOLS_BENCH_XA_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

/**
 * bench_xa_layout_nodes() - Nodes a kernel-layout XArray needs.
 * @idx: The indices, in any order, all distinct.
 * @n: How many.
 *
 * One entry at index 0 lives in the array's head and needs no node.
 * Otherwise the tree is as tall as the largest index needs, with
 * XA_CHUNK_SHIFT index bits per level.
 *
 * Return: The number of nodes.  Dies (exit status 2) if no scratch copy
 * of @idx can be allocated.
 */
uint64_t bench_xa_layout_nodes(const unsigned long *idx, size_t n);

/**
 * bench_xa_layout_bytes_per_entry() - Node memory per entry, same layout.
 * @idx: The indices, all distinct.
 * @n: How many; at least 1.
 *
 * Return: bench_xa_layout_nodes() * sizeof(struct xa_node) / @n.
 */
double bench_xa_layout_bytes_per_entry(const unsigned long *idx, size_t n);

#endif /* UPCACHE_TOOLS_BENCH_XA_LAYOUT_H */
