// SPDX-License-Identifier: MIT
/*
 * tests/lib/test_xarray_diff.c - the XArray against its model, at random.
 *
 * This file owns the differential test: seeded random sequences of every
 * XArray operation (normal and advanced API, multi-index entries of
 * orders 0..64, splits, marks, searches, allocating arrays), applied to a
 * real array and to the model (tests/utils/xa_model.h) through the
 * harness (tests/utils/xa_harness.h), which compares every result, loads
 * every touched index and regularly compares the whole array and runs
 * upc_check_xarray().  It also shows that the checker and the harness
 * can fail: each corruption of a tree, and each disagreement with the
 * model, is reported.
 *
 * Index distributions, one test each: dense small indices, sparse 64-bit
 * indices, indices near ULONG_MAX, a mix of boundary values (where the
 * tree grows and shrinks), and two allocating arrays.
 *
 * Environment: UPC_DIFF_OPS (default 2000000 operations in all, 1000000
 * under ASan) and UPC_SEED (default: from the clock; always printed).  A
 * failure prints the seed, the operations since the array was last
 * empty, and a minimized reproducer as C.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <upcache/check.h>
#include <upcache/xarray.h>

#include "rand.h"
#include "xa_harness.h"
#include "xa_model.h"
#include "xa_test.h"

#if defined(UPC_SANITIZE_ADDRESS) || defined(__SANITIZE_ADDRESS__)
#define DIFF_DEFAULT_OPS	1000000UL
#else
#define DIFF_DEFAULT_OPS	2000000UL
#endif

#define LOG_CAP		20000	/* operations per epoch (then xa_destroy) */
#define MAX_ENTRIES	16384	/* model size that forces an xa_destroy */
#define MINIMIZE_SECONDS 20.0

enum dist {
	DIST_DENSE,
	DIST_SPARSE,
	DIST_HIGH,
	DIST_MIXED,
	DIST_ALLOC,
	DIST_ALLOC1,
};

/* struct gen - the random operation generator of one test. */
struct gen {
	struct upc_rand r;
	enum dist dist;
	struct xa_harness *h;
	bool alloc;
};

static unsigned long below(struct gen *g, unsigned long n)
{
	return upc_rand_below(&g->r, n);
}

static bool chance(struct gen *g, unsigned long num, unsigned long den)
{
	return upc_rand_chance(&g->r, num, den);
}

static unsigned long sat_add(unsigned long a, unsigned long b)
{
	return a + b < a ? ULONG_MAX : a + b;
}

/* Boundary values where the tree changes height. */
static const unsigned long mixed_pool[] = {
	0, 1, 63, 64, 4095, 4096, 262143, 262144, 1UL << 24, (1UL << 30) - 1,
	1UL << 30, 0xffffffffUL, 1UL << 32, 1UL << 36, 1UL << 42, 1UL << 48,
	1UL << 54, 1UL << 60, 1UL << 63, ULONG_MAX - 4096, ULONG_MAX - 63,
	ULONG_MAX,
};

static unsigned long fresh_index(struct gen *g)
{
	unsigned long x;

	switch (g->dist) {
	case DIST_DENSE:
		return chance(g, 9, 10) ? below(g, 1024) : below(g, 65536);
	case DIST_SPARSE:
		if (chance(g, 1, 8))
			return below(g, 256);
		x = upc_rand_next(&g->r) >> below(g, 64);
		if (chance(g, 1, 2))
			x &= ~((1UL << below(g, 20)) - 1);
		return x;
	case DIST_HIGH:
		return ULONG_MAX - (chance(g, 7, 8) ? below(g, 8192) :
				    below(g, 1UL << 24));
	case DIST_MIXED:
		x = mixed_pool[below(g, sizeof(mixed_pool) / sizeof(mixed_pool[0]))];
		return x + below(g, 5) - 2;
	case DIST_ALLOC:
		return below(g, 2048);
	case DIST_ALLOC1:
	default:
		return 1 + below(g, 2047);
	}
}

/* gen_index() - Half the time an index of, or next to, an entry. */
static unsigned long gen_index(struct gen *g)
{
	const struct xa_model *m = &g->h->m;
	const struct xa_model_entry *e;
	unsigned long index;

	if (!m->nr || chance(g, 1, 2))
		index = fresh_index(g);
	else {
		e = xa_model_at(m, below(g, m->nr));
		switch (below(g, 8)) {
		case 0:
			index = sat_add(xa_model_last(e), 1);
			break;
		case 1:
		case 2:
		case 3:
			index = e->first;
			break;
		default:
			index = e->order >= BITS_PER_LONG ? upc_rand_next(&g->r) :
				e->first + below(g, 1UL << e->order);
			break;
		}
	}
	if (g->dist == DIST_ALLOC1 && index == 0)
		index = 1;
	return index;
}

static unsigned int gen_order(struct gen *g)
{
	unsigned long u = below(g, 1000);

	if (u < 650)
		return 0;
	if (u < 950)
		return 1 + (unsigned int)below(g, 12);
	if (u < 990)
		return 13 + (unsigned int)below(g, 8);
	return 21 + (unsigned int)below(g, BITS_PER_LONG - 20);
}

/* gen_entry() - A value, a pointer, or now and then a reservation. */
static void *gen_entry(struct gen *g, bool allow_zero)
{
	unsigned long u = below(g, 100);

	if (u < 70)
		return xa_mk_value(below(g, 1UL << 20));
	if (u < 95 || !allow_zero)
		return (void *)((below(g, 1UL << 20) + 1) << 2);
	return XA_ZERO_ENTRY;
}

/* Entries no array may hold. */
static void *gen_invalid(struct gen *g)
{
	switch (below(g, 5)) {
	case 0:
		return xa_mk_sibling((unsigned int)below(g, XA_CHUNK_SIZE - 1));
	case 1:
		return XA_RETRY_ENTRY;
	case 2:
		return xa_mk_internal(1000);
	case 3:
		return XA_ERROR(-ENOMEM);
	default:
		return xa_mk_internal(0x10000 + below(g, 1000) * 64);
	}
}

static unsigned int gen_filter(struct gen *g)
{
	if (chance(g, 3, 5))
		return XA_PRESENT;
	return g->alloc ? 1 + (unsigned int)below(g, 2) :
		(unsigned int)below(g, 3);
}

static unsigned int gen_mark(struct gen *g)
{
	if (chance(g, 1, 100))
		return 3 + (unsigned int)below(g, 6);	/* invalid: ignored */
	return g->alloc ? 1 + (unsigned int)below(g, 2) :
		(unsigned int)below(g, 3);
}

static unsigned long gen_max(struct gen *g, unsigned long index)
{
	if (chance(g, 1, 2))
		return ULONG_MAX;
	if (chance(g, 1, 10) && index)
		return index - 1;	/* empty range */
	return sat_add(index, below(g, 1UL << below(g, 24)));
}

/* gen_split_target() - A multi-index entry to split, or NULL. */
static const struct xa_model_entry *gen_split_target(struct gen *g)
{
	const struct xa_model *m = &g->h->m;
	int tries;

	for (tries = 0; m->nr && tries < 8; tries++) {
		const struct xa_model_entry *e = xa_model_at(m, below(g, m->nr));

		if (e->order > 0 && !xa_is_zero(e->entry))
			return e;
	}
	return NULL;
}

static unsigned long index_inside(struct gen *g, const struct xa_model_entry *e)
{
	if (e->order >= BITS_PER_LONG)
		return upc_rand_next(&g->r);
	return e->first + below(g, 1UL << e->order);
}

static bool gen_split(struct gen *g, struct xah_op *op, bool uniform)
{
	const struct xa_model_entry *e = gen_split_target(g);
	unsigned int diff;

	if (!e)
		return false;
	op->index = index_inside(g, e);
	op->entry = chance(g, 1, 2) ? e->entry : gen_entry(g, false);
	if (uniform) {
		op->kind = XAH_SPLIT;
		diff = 1 + (unsigned int)below(g, e->order < 8 ? e->order : 8);
		op->order = (uint8_t)(e->order - diff);
		return true;
	}
	op->kind = XAH_TRY_SPLIT;
	op->order = (uint8_t)below(g, e->order);
	op->order2 = (uint8_t)e->order;
	if (chance(g, 1, 20)) {
		/* A wrong order: must fail with -EINVAL. */
		int wrong = (int)e->order + (chance(g, 1, 2) ? 1 : -1) *
			(int)(1 + below(g, 3));

		if (wrong < 0)
			wrong = (int)e->order + 1;
		if (wrong > (int)BITS_PER_LONG)
			wrong = (int)e->order - 1;
		op->order2 = (uint8_t)wrong;
	}
	if (chance(g, 1, 30))
		op->order = (uint8_t)(e->order + below(g, 2));	/* not below */
	return true;
}

static void gen_alloc(struct gen *g, struct xah_op *op)
{
	unsigned long min, max;

	op->kind = chance(g, 2, 3) ? XAH_ALLOC : XAH_ALLOC_CYCLIC;
	if (chance(g, 1, 50)) {
		/* Near the top of the id space: cyclic allocation wraps. */
		min = UINT32_MAX - below(g, 64);
		max = UINT32_MAX;
		if (chance(g, 1, 2))
			min = below(g, 8);
	} else {
		min = chance(g, 1, 2) ? below(g, 64) : 1000 + below(g, 100);
		max = min + below(g, 2048);
		if (chance(g, 1, 20))
			max = min + below(g, 4);
	}
	op->index = min;
	op->last = max;
	op->entry = chance(g, 1, 5) ? NULL : gen_entry(g, false);
	if (chance(g, 1, 100))
		op->entry = gen_invalid(g);
}

/* Operation weights; each kind's share of the random stream. */
struct weight {
	enum xah_kind kind;
	unsigned int normal;	/* in plain arrays */
	unsigned int alloc;	/* in allocating arrays */
};

static const struct weight weights[] = {
	{ XAH_STORE,		140, 100 },
	{ XAH_STORE_ORDER,	130, 0 },
	{ XAH_ERASE,		80, 150 },
	{ XAH_INSERT,		40, 50 },
	{ XAH_CMPXCHG,		40, 50 },
	{ XAH_RESERVE,		20, 40 },
	{ XAH_RELEASE,		20, 40 },
	{ XAH_STORE_RANGE,	30, 15 },
	{ XAH_SET_MARK,		80, 60 },
	{ XAH_CLEAR_MARK,	50, 30 },
	{ XAH_FIND,		50, 40 },
	{ XAH_FIND_AFTER,	40, 40 },
	{ XAH_FOR_EACH,		10, 10 },
	{ XAH_XAS_FOR_EACH,	10, 10 },
	{ XAH_EXTRACT,		8, 8 },
	{ XAH_FIND_CONFLICT,	30, 0 },
	{ XAH_GET_ORDER,	20, 20 },
	{ XAH_XAS_NEXT,		10, 10 },
	{ XAH_XAS_PREV,		10, 10 },
	{ XAH_SPLIT,		30, 0 },
	{ XAH_TRY_SPLIT,	30, 0 },
	{ XAH_ALLOC,		2, 200 },
};

static enum xah_kind pick_kind(struct gen *g)
{
	unsigned int total = 0, i, w;
	unsigned long u;

	for (i = 0; i < sizeof(weights) / sizeof(weights[0]); i++)
		total += g->alloc ? weights[i].alloc : weights[i].normal;
	u = below(g, total);
	for (i = 0; i < sizeof(weights) / sizeof(weights[0]); i++) {
		w = g->alloc ? weights[i].alloc : weights[i].normal;
		if (u < w)
			return weights[i].kind;
		u -= w;
	}
	return XAH_STORE;
}

static void gen_op(struct gen *g, struct xah_op *op)
{
	const struct xa_model *m = &g->h->m;
	unsigned long len;

	memset(op, 0, sizeof(*op));
	op->kind = pick_kind(g);
	op->index = gen_index(g);
	switch (op->kind) {
	case XAH_STORE:
		op->entry = chance(g, 1, 10) ? NULL : gen_entry(g, true);
		if (chance(g, 1, 200))
			op->entry = gen_invalid(g);
		break;
	case XAH_STORE_ORDER:
		op->order = (uint8_t)gen_order(g);
		op->entry = chance(g, 1, 10) ? NULL : gen_entry(g, true);
		if (chance(g, 1, 4))
			op->arg = XAH_F_CONFLICT;
		break;
	case XAH_INSERT:
		op->entry = chance(g, 1, 10) ? NULL : gen_entry(g, true);
		if (chance(g, 1, 100))
			op->entry = gen_invalid(g);
		break;
	case XAH_CMPXCHG:
		switch (below(g, 20)) {
		case 0: case 1: case 2:
			op->old = NULL;
			break;
		case 3: case 4:
			op->old = XA_ZERO_ENTRY;
			break;
		case 5: case 6: case 7: case 8: case 9:
			op->old = gen_entry(g, false);
			break;
		default:
			op->old = xa_model_load_raw(m, op->index);
			break;
		}
		op->entry = chance(g, 1, 8) ? NULL : gen_entry(g, true);
		if (chance(g, 1, 100))
			op->entry = gen_invalid(g);
		break;
	case XAH_STORE_RANGE:
		switch (below(g, 20)) {
		case 0:
			len = upc_rand_next(&g->r) >> below(g, 64);
			break;
		case 1: case 2: case 3: case 4:
			len = below(g, 1UL << 16);
			break;
		default:
			len = below(g, 300);
			break;
		}
		op->last = sat_add(op->index, len);
		if (chance(g, 1, 50) && op->index)
			op->last = op->index - 1 - below(g, op->index);
		op->entry = chance(g, 1, 5) ? NULL : gen_entry(g, false);
		break;
	case XAH_SET_MARK:
	case XAH_CLEAR_MARK:
		op->arg = (uint8_t)gen_mark(g);
		break;
	case XAH_FIND:
	case XAH_FIND_AFTER:
	case XAH_FOR_EACH:
		op->last = gen_max(g, op->index);
		op->arg = (uint8_t)gen_filter(g);
		break;
	case XAH_XAS_FOR_EACH:
		op->last = gen_max(g, op->index);
		op->arg = (uint8_t)gen_filter(g);
		op->order = (uint8_t)below(g, 4);
		break;
	case XAH_EXTRACT:
		op->last = gen_max(g, op->index);
		op->arg = (uint8_t)gen_filter(g);
		op->order = (uint8_t)(1 + below(g, 32));
		break;
	case XAH_FIND_CONFLICT:
		op->order = (uint8_t)gen_order(g);
		break;
	case XAH_XAS_NEXT:
	case XAH_XAS_PREV:
		op->last = 1 + below(g, 200);
		break;
	case XAH_SPLIT:
	case XAH_TRY_SPLIT:
		if (chance(g, 1, 20)) {
			/* Wherever: often nothing there (-EINVAL). */
			op->order = (uint8_t)gen_order(g);
			op->order2 = (uint8_t)(op->order + 1);
			op->entry = gen_entry(g, false);
			break;
		}
		if (!gen_split(g, op, op->kind == XAH_SPLIT)) {
			op->kind = XAH_STORE_ORDER;
			op->order = (uint8_t)(1 + below(g, 12));
			op->entry = gen_entry(g, false);
		}
		break;
	case XAH_ALLOC:
		if (g->alloc) {
			gen_alloc(g, op);
		} else {
			op->last = op->index + below(g, 100);
			op->entry = gen_entry(g, false);
		}
		break;
	default:
		break;
	}
}

/*
 * run_diff() - @nr_ops random operations of one distribution.
 * @name: Test name, for messages.
 * @dist: Index distribution.
 * @flags: XA_FLAGS_* of the array.
 * @nr_ops: Operations to run.
 * @salt: Makes this test's stream differ from the others'.
 */
static void run_diff(const char *name, enum dist dist, gfp_t flags,
		     unsigned long nr_ops, uint64_t salt)
{
	uint64_t base = upc_test_seed(), x = base ^ salt;
	struct xa_harness *h = malloc(sizeof(*h));
	struct gen g = { .dist = dist, .h = h };
	unsigned long i, destroys = 0;
	struct xah_op op;

	assert_non_null(h);
	xah_init(h, flags, LOG_CAP);
	upc_rand_seed(&g.r, upc_splitmix64(&x));
	g.alloc = flags & XA_FLAGS_TRACK_FREE;
	fprintf(stderr, "# %s: %lu operations, UPC_SEED=%llu\n", name, nr_ops,
		(unsigned long long)base);
	for (i = 0; i < nr_ops; i++) {
		if (xah_log_full(h) || h->m.nr > MAX_ENTRIES ||
		    chance(&g, 1, 20000)) {
			memset(&op, 0, sizeof(op));
			op.kind = XAH_DESTROY;
			destroys++;
		} else {
			gen_op(&g, &op);
		}
		if (xah_apply(h, &op)) {
			fprintf(stderr, "# %s: FAILED at operation %lu of %lu; rerun with UPC_SEED=%llu\n",
				name, i, nr_ops, (unsigned long long)base);
			xah_report(h, MINIMIZE_SECONDS);
			fail_msg("%s: the XArray differs from the model (UPC_SEED=%llu, operation %lu)",
				 name, (unsigned long long)base, i);
		}
	}
	if (xah_fini(h))
		fail_msg("%s: final check failed (UPC_SEED=%llu)", name,
			 (unsigned long long)base);
	fprintf(stderr, "# %s: ok (%lu destroys)\n", name, destroys);
	free(h);
}

/* Share of the operations each test runs, in percent. */
static unsigned long share(unsigned int percent)
{
	unsigned long total = upc_test_diff_ops(DIFF_DEFAULT_OPS);
	unsigned long n = total / 100 * percent + total % 100 * percent / 100;

	return n ? n : 1;
}

static void test_xarray_diff_dense(void **state)
{
	(void)state;
	run_diff("dense", DIST_DENSE, 0, share(35), 1);
}

static void test_xarray_diff_sparse(void **state)
{
	(void)state;
	run_diff("sparse", DIST_SPARSE, 0, share(20), 2);
}

static void test_xarray_diff_high(void **state)
{
	(void)state;
	run_diff("near ULONG_MAX", DIST_HIGH, 0, share(15), 3);
}

static void test_xarray_diff_mixed(void **state)
{
	(void)state;
	run_diff("boundaries", DIST_MIXED, 0, share(15), 4);
}

static void test_xarray_diff_alloc(void **state)
{
	(void)state;
	run_diff("alloc", DIST_ALLOC, XA_FLAGS_ALLOC, share(10), 5);
}

static void test_xarray_diff_alloc1(void **state)
{
	(void)state;
	run_diff("alloc1", DIST_ALLOC1, XA_FLAGS_ALLOC1, share(5), 6);
}

/* ---- the checker and the harness can fail ------------------------------ */

/* leaf_of() - The shift-0 node holding @index (the tree must have one). */
static struct xa_node *leaf_of(struct xarray *xa, unsigned long index)
{
	void *entry = xa_head(xa);

	while (xa_is_node(entry)) {
		struct xa_node *node = xa_to_node(entry);

		if (node->shift == 0)
			return node;
		entry = xa_entry(node, (index >> node->shift) & XA_CHUNK_MASK);
	}
	return NULL;
}

/* An empty slot inside a leaf of build_tree()'s tree. */
#define HOLE	150

/* A tree with a few levels, values, pointers, marks and a sibling run. */
static void build_tree(struct xarray *xa)
{
	unsigned long i;

	xa_init(xa);
	for (i = 0; i < 200; i++)
		if (i != HOLE)
			assert_null(xa_store(xa, i, i % 3 ? xa_mk_value(i) :
					     (void *)((i + 1) * 4), GFP_KERNEL));
	assert_null(xa_store(xa, 1UL << 20, xa_mk_value(7), GFP_KERNEL));
	xa_set_mark(xa, 5, XA_MARK_1);
	xa_set_mark(xa, 1UL << 20, XA_MARK_2);
	xat_store_order(xa, 0x1000, 2, xa_mk_value(0x1000));
	assert_xa_ok(xa);
}

/* Each corruption, made and undone in turn, must be reported. */
static void test_xarray_check_detects(void **state)
{
	struct xarray xa;
	struct xa_node *leaf, *top, *leaf2;
	void *saved;
	unsigned long bit;

	(void)state;
	build_tree(&xa);
	leaf = leaf_of(&xa, 5);
	leaf2 = leaf_of(&xa, 0x1000);
	top = xa_to_node(xa_head(&xa));
	assert_non_null(leaf);
	assert_non_null(leaf2);
	assert_int_equal(leaf->shift, 0);
	fprintf(stderr, "# the checker must now report 12 corruptions:\n");

	leaf->count++;
	assert_int_equal(upc_check_xarray(&xa), -EUCLEAN);
	leaf->count--;

	leaf->nr_values--;
	assert_int_equal(upc_check_xarray(&xa), -EUCLEAN);
	leaf->nr_values++;

	/* A mark on an empty slot. */
	bit = 1UL << ((HOLE & XA_CHUNK_MASK) % BITS_PER_LONG);
	assert_null(xa_entry(leaf_of(&xa, HOLE), HOLE & XA_CHUNK_MASK));
	leaf_of(&xa, HOLE)->marks[2][(HOLE & XA_CHUNK_MASK) / BITS_PER_LONG] |= bit;
	assert_int_equal(upc_check_xarray(&xa), -EUCLEAN);
	leaf_of(&xa, HOLE)->marks[2][(HOLE & XA_CHUNK_MASK) / BITS_PER_LONG] &= ~bit;

	/* A mark below whose parent bit is missing. */
	leaf->marks[0][0] |= 1UL << 7;
	assert_int_equal(upc_check_xarray(&xa), -EUCLEAN);
	leaf->marks[0][0] &= ~(1UL << 7);

	/* A parent bit with nothing marked below. */
	top->marks[0][0] |= 1UL;
	assert_int_equal(upc_check_xarray(&xa), -EUCLEAN);
	top->marks[0][0] &= ~1UL;

	/* A sibling naming the wrong slot. */
	saved = leaf2->slots[0x1000 % XA_CHUNK_SIZE + 2];
	assert_true(xa_is_sibling(saved));
	leaf2->slots[0x1000 % XA_CHUNK_SIZE + 2] =
		xa_mk_sibling(0x1000 % XA_CHUNK_SIZE + 1);
	assert_int_equal(upc_check_xarray(&xa), -EUCLEAN);
	leaf2->slots[0x1000 % XA_CHUNK_SIZE + 2] = saved;

	/* A run of three slots (not a power of two). */
	saved = leaf2->slots[0x1000 % XA_CHUNK_SIZE + 3];
	leaf2->slots[0x1000 % XA_CHUNK_SIZE + 3] = NULL;
	leaf2->count--;
	leaf2->nr_values--;
	assert_int_equal(upc_check_xarray(&xa), -EUCLEAN);
	leaf2->nr_values++;
	leaf2->count++;
	leaf2->slots[0x1000 % XA_CHUNK_SIZE + 3] = saved;

	/* A retry entry in the live tree. */
	leaf_of(&xa, HOLE)->slots[HOLE & XA_CHUNK_MASK] = XA_RETRY_ENTRY;
	leaf_of(&xa, HOLE)->count++;
	assert_int_equal(upc_check_xarray(&xa), -EUCLEAN);
	leaf_of(&xa, HOLE)->count--;
	leaf_of(&xa, HOLE)->slots[HOLE & XA_CHUNK_MASK] = NULL;

	/* Broken links. */
	leaf->offset ^= 1;
	assert_int_equal(upc_check_xarray(&xa), -EUCLEAN);
	leaf->offset ^= 1;
	saved = leaf->parent;
	leaf->parent = NULL;
	assert_int_equal(upc_check_xarray(&xa), -EUCLEAN);
	leaf->parent = saved;
	leaf->shift += XA_CHUNK_SHIFT;
	assert_int_equal(upc_check_xarray(&xa), -EUCLEAN);
	leaf->shift -= XA_CHUNK_SHIFT;

	/* A head mark flag nothing carries. */
	xa_clear_mark(&xa, 5, XA_MARK_1);
	xa.xa_flags |= XA_FLAGS_MARK(XA_MARK_1);
	assert_int_equal(upc_check_xarray(&xa), -EUCLEAN);
	xa.xa_flags &= ~XA_FLAGS_MARK(XA_MARK_1);

	assert_int_equal(upc_check_xarray(&xa), 0);
	xa_destroy(&xa);
	assert_int_equal(upc_check_xarray(&xa), 0);
}

/* The harness reports a difference it did not cause. */
static void test_xarray_diff_harness_detects(void **state)
{
	struct xa_harness h;
	struct xah_op op = { .kind = XAH_STORE, .index = 77,
			     .entry = xa_mk_value(1) };

	(void)state;
	xah_init(&h, 0, 16);
	h.quiet = true;
	assert_int_equal(xah_apply(&h, &op), 0);
	assert_int_equal(xah_verify(&h), 0);

	/* Behind the model's back: a value, then a mark. */
	xa_store(&h.xa, 77, xa_mk_value(2), GFP_KERNEL);
	assert_int_equal(xah_verify(&h), -1);
	xa_store(&h.xa, 77, xa_mk_value(1), GFP_KERNEL);
	assert_int_equal(xah_verify(&h), 0);
	xa_set_mark(&h.xa, 77, XA_MARK_2);
	assert_int_equal(xah_verify(&h), -1);
	op.kind = XAH_GET_ORDER;
	xa_model_set_mark(&h.m, 77, XA_MARK_2);
	assert_int_equal(xah_apply(&h, &op), 0);
	h.m.v[0].order = 1;
	h.m.v[0].first = 76;
	assert_int_equal(xah_apply(&h, &op), -1);
	h.m.v[0].order = 0;
	h.m.v[0].first = 77;

	/* And a clean sequence replays cleanly. */
	{
		struct xah_op ops[3] = {
			{ .kind = XAH_STORE, .index = 1, .entry = xa_mk_value(1) },
			{ .kind = XAH_STORE, .index = 2, .entry = xa_mk_value(2) },
			{ .kind = XAH_ERASE, .index = 1 },
		};

		assert_int_equal(xah_replay(0, ops, 3, true, NULL), 0);
	}
	assert_int_equal(xah_fini(&h), 0);
}

/* Set (or clear) @mark's bit for @node on every node above it. */
static void mark_path(struct xa_node *node, xa_mark_t mark, bool set)
{
	for (; xa_parent(node); node = xa_parent(node)) {
		unsigned long *word = &xa_parent(node)->marks[mark]
					[node->offset / BITS_PER_LONG];
		unsigned long bit = 1UL << (node->offset % BITS_PER_LONG);

		if (set)
			*word |= bit;
		else
			*word &= ~bit;
	}
}

/* expect_corrupt() - The checker reports @xa; a line for the log. */
#define expect_corrupt(xa, what) do {					\
	fprintf(stderr, "# %s:\n", what);				\
	assert_int_equal(upc_check_xarray(xa), -EUCLEAN);		\
} while (0)

/*
 * More corruptions, each of a kind only one of the checker's tests
 * catches (the others pass it), so that every test is shown to work:
 * made, reported, undone, and the tree passes again.
 */
static void test_xarray_check_detects_each(void **state)
{
	struct xarray xa, other, small, top_xa, alloc;
	struct xa_node *leaf, *leaf2, *lone, *node;
	void *saved;
	unsigned int off = 0x1000 % XA_CHUNK_SIZE;
	uint32_t id;

	(void)state;
	build_tree(&xa);
	assert_null(xa_store(&xa, 1UL << 21, xa_mk_value(9), GFP_KERNEL));
	leaf = leaf_of(&xa, 5);
	leaf2 = leaf_of(&xa, 0x1000);
	lone = leaf_of(&xa, 1UL << 21);
	assert_int_equal(leaf->count, XA_CHUNK_SIZE);
	assert_int_equal(lone->count, 1);

	xa_init(&other);
	leaf->array = &other;
	expect_corrupt(&xa, "a node of another array");
	leaf->array = &xa;

	leaf->count--;
	expect_corrupt(&xa, "a count one short");
	leaf->count++;

	/* Slot 7 names slot 5, with slot 6 between them. */
	saved = leaf->slots[7];
	assert_true(xa_is_value(saved) && xa_is_value(leaf->slots[5]));
	leaf->slots[7] = xa_mk_sibling(5);
	expect_corrupt(&xa, "a sibling apart from its run");
	leaf->slots[7] = saved;

	/* Slot 6 joins slot 5: a run of two at an odd slot. */
	saved = leaf->slots[6];
	assert_false(xa_is_value(saved));
	leaf->slots[6] = xa_mk_sibling(5);
	leaf->nr_values++;
	expect_corrupt(&xa, "a run not aligned to its length");
	leaf->nr_values--;
	leaf->slots[6] = saved;

	/* The run's first slot emptied: its siblings name nothing. */
	saved = leaf2->slots[off];
	leaf2->slots[off] = NULL;
	leaf2->count--;
	leaf2->nr_values -= 4;
	expect_corrupt(&xa, "siblings of an empty slot");
	leaf2->nr_values += 4;
	leaf2->count++;
	leaf2->slots[off] = saved;

	/* A mark on a sibling slot, carried up to the head. */
	leaf2->marks[XA_MARK_2][0] |= 1UL << (off + 1);
	mark_path(leaf2, XA_MARK_2, true);
	expect_corrupt(&xa, "a mark on a sibling");
	mark_path(leaf2, XA_MARK_2, false);
	leaf2->marks[XA_MARK_2][0] &= ~(1UL << (off + 1));

	leaf_of(&xa, HOLE)->slots[HOLE & XA_CHUNK_MASK] = xa_mk_internal(300);
	leaf_of(&xa, HOLE)->count++;
	expect_corrupt(&xa, "an internal entry of no kind");
	leaf_of(&xa, HOLE)->count--;
	leaf_of(&xa, HOLE)->slots[HOLE & XA_CHUNK_MASK] = NULL;

	saved = lone->slots[(1UL << 21) & XA_CHUNK_MASK];
	lone->slots[(1UL << 21) & XA_CHUNK_MASK] = NULL;
	lone->count = 0;
	lone->nr_values = 0;
	expect_corrupt(&xa, "an empty node");
	lone->nr_values = 1;
	lone->count = 1;
	lone->slots[(1UL << 21) & XA_CHUNK_MASK] = saved;
	assert_int_equal(upc_check_xarray(&xa), 0);
	xa_destroy(&xa);

	/* A one-node tree whose node has a shift no level can have. */
	xa_init(&small);
	assert_null(xa_store(&small, 3, xa_mk_value(3), GFP_KERNEL));
	assert_null(xa_store(&small, 9, xa_mk_value(9), GFP_KERNEL));
	node = xa_to_node(xa_head(&small));
	node->shift = 3;
	expect_corrupt(&small, "a shift not a multiple of a level");
	node->shift = 0;
	assert_int_equal(upc_check_xarray(&small), 0);
	xa_destroy(&small);

	/* The top node of ULONG_MAX has 16 slots in range, not 64. */
	xa_init(&top_xa);
	assert_null(xa_store(&top_xa, ULONG_MAX, xa_mk_value(1), GFP_KERNEL));
	node = xa_to_node(xa_head(&top_xa));
	assert_int_equal(node->shift, 60);
	node->slots[20] = xa_mk_value(2);
	node->count++;
	node->nr_values++;
	expect_corrupt(&top_xa, "an entry past ULONG_MAX");
	node->nr_values--;
	node->count--;
	node->slots[20] = NULL;
	assert_int_equal(upc_check_xarray(&top_xa), 0);
	xa_destroy(&top_xa);

	/* Free-slot tracking. */
	xa_init_flags(&alloc, XA_FLAGS_ALLOC);
	alloc.xa_flags &= ~XA_FLAGS_MARK(XA_FREE_MARK);
	expect_corrupt(&alloc, "an empty allocating array with no free slot");
	alloc.xa_flags |= XA_FLAGS_MARK(XA_FREE_MARK);
	assert_int_equal(xa_alloc(&alloc, &id, xa_mk_value(0), xa_limit_32b,
				  GFP_KERNEL), 0);
	assert_int_equal(id, 0);
	alloc.xa_flags |= XA_FLAGS_MARK(XA_FREE_MARK);
	expect_corrupt(&alloc, "index 0 used, the free flag set");
	alloc.xa_flags &= ~XA_FLAGS_MARK(XA_FREE_MARK);
	assert_int_equal(upc_check_xarray(&alloc), 0);
	assert_int_equal(xa_alloc(&alloc, &id, xa_mk_value(1), xa_limit_32b,
				  GFP_KERNEL), 0);
	node = xa_to_node(xa_head(&alloc));
	node->marks[XA_FREE_MARK][0] |= 1UL << 1;
	expect_corrupt(&alloc, "a used slot marked free");
	node->marks[XA_FREE_MARK][0] &= ~(1UL << 1);
	assert_int_equal(upc_check_xarray(&alloc), 0);
	xa_destroy(&alloc);

	/* The head of an empty array. */
	xa_init(&small);
	small.xa_flags |= XA_FLAGS_MARK(XA_MARK_0);
	expect_corrupt(&small, "a mark flag on an empty array");
	small.xa_flags &= ~XA_FLAGS_MARK(XA_MARK_0);
	small.xa_head = XA_RETRY_ENTRY;
	expect_corrupt(&small, "a retry entry at the head");
	small.xa_head = NULL;
	assert_int_equal(upc_check_xarray(&small), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xarray_check_detects),
		cmocka_unit_test(test_xarray_check_detects_each),
		cmocka_unit_test(test_xarray_diff_harness_detects),
		cmocka_unit_test(test_xarray_diff_dense),
		cmocka_unit_test(test_xarray_diff_sparse),
		cmocka_unit_test(test_xarray_diff_high),
		cmocka_unit_test(test_xarray_diff_mixed),
		cmocka_unit_test(test_xarray_diff_alloc),
		cmocka_unit_test(test_xarray_diff_alloc1),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
