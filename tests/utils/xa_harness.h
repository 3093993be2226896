/* SPDX-License-Identifier: MIT */
/*
 * tests/utils/xa_harness.h - drive an XArray and its model in lockstep.
 *
 * This file owns the operation vocabulary shared by the differential
 * test (tests/lib/test_xarray_diff.c), the fuzzer
 * (tests/fuzz/fuzz_xarray.c) and the fault-injection test: struct xah_op
 * describes one operation; xah_apply() performs it on a real XArray and
 * on the reference model (tests/utils/xa_model.h) and compares every
 * result, then loads every index the operation touched (and its
 * neighbours), their orders and marks, and from time to time the whole
 * array, with upc_check_xarray() on the structure.
 *
 * Every applied operation is logged since the array was last empty, so a
 * failure can be printed as a C sequence (xah_print_ops()) and cut down
 * to a few operations (xah_minimize()).
 *
 * One harness belongs to one thread; a thread runs one harness at a time
 * (the node-leak check compares the thread's allocation counters).
 *
 * Conventions: @h is the harness, @op an operation.
 */
#ifndef UPCACHE_TESTS_UTILS_XA_HARNESS_H
#define UPCACHE_TESTS_UTILS_XA_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <upcache/xarray.h>

#include "xa_model.h"

/**
 * enum xah_kind - the operations.
 *
 * Fields of struct xah_op each kind uses (others are ignored):
 * @XAH_STORE: xa_store(index, entry).
 * @XAH_STORE_ORDER: xas_store() of an order-@order entry at index,
 *	under the lock with an xas_nomem() loop; with XAH_F_CONFLICT in
 *	@arg, xas_for_each_conflict() over the range first (compared with
 *	the model), and the store only if no conflict is larger than it.
 * @XAH_ERASE: xa_erase(index).
 * @XAH_INSERT: xa_insert(index, entry).
 * @XAH_CMPXCHG: xa_cmpxchg(index, old, entry).
 * @XAH_RESERVE: xa_reserve(index).
 * @XAH_RELEASE: xa_release(index).
 * @XAH_STORE_RANGE: xa_store_range(index, last, entry).
 * @XAH_SET_MARK: xa_set_mark(index, arg).
 * @XAH_CLEAR_MARK: xa_clear_mark(index, arg).
 * @XAH_FIND: xa_find(&index, last, arg).
 * @XAH_FIND_AFTER: xa_find_after(&index, last, arg).
 * @XAH_FOR_EACH: xa_find() then xa_find_after() from index to last with
 *	filter arg, at most 64 entries.
 * @XAH_XAS_FOR_EACH: xas_for_each() (arg XA_PRESENT) or
 *	xas_for_each_marked() under RCU from index to last, with xas_pause()
 *	and a new RCU section every @order entries (0: never), at most 256.
 * @XAH_EXTRACT: xa_extract() of up to @order entries from index to last.
 * @XAH_FIND_CONFLICT: xas_for_each_conflict() over the order-@order
 *	range at index, under the lock.
 * @XAH_GET_ORDER: xa_get_order(index), and xas_get_order() after
 *	xas_load().
 * @XAH_XAS_NEXT: xas_next() @last times from index (at most 256).
 * @XAH_XAS_PREV: xas_prev() @last times from index.
 * @XAH_SPLIT: xas_split_alloc() + xas_split() of the entry at index into
 *	entries of order @order, each set to entry.
 * @XAH_TRY_SPLIT: xas_try_split(entry, @order2) at index with the
 *	cursor's order @order, in an xas_nomem() loop.  For both splits an
 *	index holding nothing must give -EINVAL; reserved entries are not
 *	split.
 * @XAH_ALLOC: xa_alloc(entry, XA_LIMIT(index, last)).
 * @XAH_ALLOC_CYCLIC: xa_alloc_cyclic() with the harness's next id.
 * @XAH_DESTROY: xa_destroy(), then no node may be left allocated.
 */
enum xah_kind {
	XAH_STORE,
	XAH_STORE_ORDER,
	XAH_ERASE,
	XAH_INSERT,
	XAH_CMPXCHG,
	XAH_RESERVE,
	XAH_RELEASE,
	XAH_STORE_RANGE,
	XAH_SET_MARK,
	XAH_CLEAR_MARK,
	XAH_FIND,
	XAH_FIND_AFTER,
	XAH_FOR_EACH,
	XAH_XAS_FOR_EACH,
	XAH_EXTRACT,
	XAH_FIND_CONFLICT,
	XAH_GET_ORDER,
	XAH_XAS_NEXT,
	XAH_XAS_PREV,
	XAH_SPLIT,
	XAH_TRY_SPLIT,
	XAH_ALLOC,
	XAH_ALLOC_CYCLIC,
	XAH_DESTROY,
	XAH_NR_KINDS
};

/* Bits of xah_op.arg for XAH_STORE_ORDER. */
#define XAH_F_CONFLICT	0x01

/**
 * struct xah_op - one operation.
 * @kind: enum xah_kind.
 * @order: An order (see enum xah_kind).
 * @order2: A second order (XAH_TRY_SPLIT).
 * @arg: A mark, filter or flags.
 * @index: Index, first index, or minimum id.
 * @last: Last index, maximum, or a count.
 * @entry: Entry stored.
 * @old: Entry compared (XAH_CMPXCHG).
 */
struct xah_op {
	uint8_t kind;
	uint8_t order;
	uint8_t order2;
	uint8_t arg;
	unsigned long index;
	unsigned long last;
	void *entry;
	void *old;
};

/**
 * struct xa_harness - a real XArray, its model, and the bookkeeping.
 * @xa: The array under test.
 * @m: Its model.
 * @flags: The XA_FLAGS_* @xa was created with.
 * @next_real: Next id for xa_alloc_cyclic() on @xa.
 * @next_model: Next id for the model's xa_alloc_cyclic().
 * @nr_ops: Operations applied since xah_init().
 * @since_verify: Operations since the last full comparison.
 * @verify_every: Full comparison every this many operations; 0: adaptive
 *	(more often for small arrays).
 * @max_split_pieces: Skip an XAH_SPLIT that would make more entries
 *	(log2).
 * @node_base: Node allocations minus frees of this thread while @xa was
 *	empty, for the leak check.
 * @log: Operations since @xa was last empty, for reproducers.
 * @log_nr: Entries in @log.
 * @log_cap: Room in @log; 0 disables logging.
 * @cur: The operation being applied (for messages).
 * @quiet: Do not print mismatches.
 */
struct xa_harness {
	struct xarray xa;
	struct xa_model m;
	gfp_t flags;
	uint32_t next_real;
	uint32_t next_model;
	unsigned long nr_ops;
	unsigned long since_verify;
	unsigned long verify_every;
	unsigned int max_split_pieces;
	int64_t node_base;
	struct xah_op *log;
	size_t log_nr;
	size_t log_cap;
	const struct xah_op *cur;
	bool quiet;
};

/**
 * xah_init() - Start a harness on an empty array.
 * @h: Harness.
 * @flags: XA_FLAGS_* for the array (0, XA_FLAGS_ALLOC, XA_FLAGS_ALLOC1).
 * @log_cap: Operations to keep for reproducers (0: none).  When the log
 *	is full the caller should apply XAH_DESTROY (xah_log_full()).
 */
void xah_init(struct xa_harness *h, gfp_t flags, size_t log_cap);

/**
 * xah_fini() - Destroy the array and free the harness's memory.
 * @h: Harness.
 *
 * Return: 0, or -1 if the final comparison or the leak check failed.
 */
int xah_fini(struct xa_harness *h);

/**
 * xah_apply() - Apply one operation to the array and the model.
 * @h: Harness.
 * @op: Operation.  Operations that make no sense in the current state
 *	(splitting nothing) are skipped, and count as agreeing.
 *
 * Return: 0 if the array and the model agree, -1 after printing the
 * first difference otherwise.
 */
int xah_apply(struct xa_harness *h, const struct xah_op *op);

/**
 * xah_verify() - Compare the whole array with the model, and check it.
 * @h: Harness.
 *
 * Return: 0, or -1 after printing the first difference.
 */
int xah_verify(struct xa_harness *h);

/**
 * xah_compare() - Compare any array with a model.
 * @xa: The array; the caller excludes writers and holds no lock.
 * @m: Its model.
 * @quiet: Do not print the difference.
 *
 * Walks both with the advanced API (reserved entries included) and with
 * the normal API, and compares every entry's first index, value, order
 * and marks, the first and last index of each through xa_load() and
 * xa_get_order(), every mark's xas_for_each_marked() walk and the
 * xa_marked() flags.  In XA_FLAGS_TRACK_FREE arrays XA_MARK_0 (the free
 * mark) is not compared, and in XA_FLAGS_ZERO_BUSY arrays a reserved
 * entry at index 0 the model lacks is accepted.
 *
 * Return: 0 if they agree, -1 otherwise.
 */
int xah_compare(struct xarray *xa, const struct xa_model *m, bool quiet);

/* xah_log_full() - The log has no room left: apply XAH_DESTROY. */
static inline bool xah_log_full(const struct xa_harness *h)
{
	return h->log_cap && h->log_nr >= h->log_cap;
}

/**
 * xah_print_op() - Print an operation as a line of C.
 * @f: Where.
 * @op: Operation.
 */
void xah_print_op(FILE *f, const struct xah_op *op);

/**
 * xah_print_ops() - Print a sequence of operations as C.
 * @f: Where.
 * @flags: XA_FLAGS_* of the array.
 * @ops: Operations.
 * @nr: How many.
 */
void xah_print_ops(FILE *f, gfp_t flags, const struct xah_op *ops,
		   size_t nr);

/**
 * xah_replay() - Apply a sequence to a fresh harness, checking fully
 * after every operation (sequences of up to 2000 operations; longer ones
 * as often as xah_apply() does by default).
 * @flags: XA_FLAGS_* of the array.
 * @ops: Operations.
 * @nr: How many.
 * @quiet: Do not print the difference.
 * @fail_at: Out (may be NULL): position of the operation that failed, or
 *	@nr when only the final checks did.
 *
 * Return: 0 if every operation agreed and the final checks passed, else
 * -1.
 */
int xah_replay(gfp_t flags, const struct xah_op *ops, size_t nr, bool quiet,
	       size_t *fail_at);

/**
 * xah_minimize() - Cut a failing sequence down.
 * @flags: XA_FLAGS_* of the array.
 * @ops: In: a sequence xah_replay() fails on; out: a shorter one that
 *	still fails.
 * @nr: Length of @ops.
 * @seconds: Time budget.
 *
 * Delta debugging: drops chunks of operations, halving the chunk size,
 * while the replay still fails.  stderr is silenced while it runs.
 *
 * Return: The new length.
 */
size_t xah_minimize(gfp_t flags, struct xah_op *ops, size_t nr,
		    double seconds);

/**
 * xah_report() - Print the log and a minimized reproducer to stderr.
 * @h: Harness whose last xah_apply() failed.
 * @seconds: Time budget for minimizing.
 */
void xah_report(struct xa_harness *h, double seconds);

#endif /* UPCACHE_TESTS_UTILS_XA_HARNESS_H */
