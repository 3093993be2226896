// SPDX-License-Identifier: MIT
/*
 * tests/utils/xa_harness.c - drive an XArray and its model in lockstep.
 *
 * This file owns xah_apply() and the comparisons behind it (see
 * xa_harness.h).  Each operation is done on the real array through the
 * public API, exactly as an application would (the advanced ones under
 * xa_lock with an xas_nomem() loop), and on the model; then:
 *
 *   1. the operation's own results are compared (old entry, error, id,
 *      found index, conflicts, raw slots seen by xas_next()...);
 *   2. every index the operation touched - the first, middle and last
 *      index of the range and of the entries covering it before and
 *      after, and their neighbours - is loaded, with its order and marks;
 *   3. every so often (xa_harness.verify_every) the whole array is
 *      compared and upc_check_xarray() checks the tree.
 *
 * The expected results come from the model alone: nothing here looks at
 * nodes except xas_next()/xas_prev(), whose raw results (sibling entries)
 * follow the documented layout (an order-k entry lives in a node of shift
 * k - k % XA_CHUNK_SHIFT).
 *
 * Conventions: @h is the harness, @op an operation, @m a model, @e a
 * model entry, @lo/@hi a span of indices.
 */
#include "xa_harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <upcache/check.h>
#include <upcache/rcu.h>
#include <upcache/stats.h>

#define XAH_WALK_MAX	256	/* entries an iteration op looks at */
#define XAH_STEP_MAX	256	/* xas_next()/xas_prev() steps */
#define XAH_REPLAY_FULL	2000	/* longer replays check adaptively */

/* ---- printing ------------------------------------------------------------ */

/* entry_str() - @entry as a C expression. */
static const char *entry_str(char *buf, size_t len, const void *entry)
{
	if (!entry)
		snprintf(buf, len, "NULL");
	else if (xa_is_value(entry))
		snprintf(buf, len, "xa_mk_value(%lu)", xa_to_value(entry));
	else if (xa_is_zero(entry))
		snprintf(buf, len, "XA_ZERO_ENTRY");
	else if (xa_is_retry(entry))
		snprintf(buf, len, "XA_RETRY_ENTRY");
	else if (xa_is_err(entry))
		snprintf(buf, len, "XA_ERROR(%d)", xa_err((void *)entry));
	else if (xa_is_sibling(entry))
		snprintf(buf, len, "xa_mk_sibling(%lu)", xa_to_sibling(entry));
	else if (xa_is_node(entry))
		snprintf(buf, len, "xa_mk_node(%p)", (void *)xa_to_node(entry));
	else if (xa_is_internal(entry))
		snprintf(buf, len, "xa_mk_internal(%lu)", xa_to_internal(entry));
	else
		snprintf(buf, len, "(void *)%#lx", (unsigned long)entry);
	return buf;
}

#define E(entry)	entry_str((char[64]){ 0 }, 64, (entry))

static const char *filter_str(char *buf, size_t len, unsigned int filter)
{
	if (filter == XA_PRESENT)
		snprintf(buf, len, "XA_PRESENT");
	else
		snprintf(buf, len, "%u", filter);
	return buf;
}

#define F(filter)	filter_str((char[16]){ 0 }, 16, (filter))

void xah_print_op(FILE *f, const struct xah_op *op)
{
	unsigned long i = op->index, l = op->last;

	switch (op->kind) {
	case XAH_STORE:
		fprintf(f, "xa_store(&xa, %#lx, %s, GFP_KERNEL);\n", i, E(op->entry));
		break;
	case XAH_STORE_ORDER:
		fprintf(f, "%s(&xa, %#lx, %u, %s);\n",
			op->arg & XAH_F_CONFLICT ? "store_order_conflict" :
			"store_order", i, op->order, E(op->entry));
		break;
	case XAH_ERASE:
		fprintf(f, "xa_erase(&xa, %#lx);\n", i);
		break;
	case XAH_INSERT:
		fprintf(f, "xa_insert(&xa, %#lx, %s, GFP_KERNEL);\n", i,
			E(op->entry));
		break;
	case XAH_CMPXCHG:
		fprintf(f, "xa_cmpxchg(&xa, %#lx, %s, %s, GFP_KERNEL);\n", i,
			E(op->old), E(op->entry));
		break;
	case XAH_RESERVE:
		fprintf(f, "xa_reserve(&xa, %#lx, GFP_KERNEL);\n", i);
		break;
	case XAH_RELEASE:
		fprintf(f, "xa_release(&xa, %#lx);\n", i);
		break;
	case XAH_STORE_RANGE:
		fprintf(f, "xa_store_range(&xa, %#lx, %#lx, %s, GFP_KERNEL);\n",
			i, l, E(op->entry));
		break;
	case XAH_SET_MARK:
	case XAH_CLEAR_MARK:
		fprintf(f, "xa_%s_mark(&xa, %#lx, %u);\n",
			op->kind == XAH_SET_MARK ? "set" : "clear", i, op->arg);
		break;
	case XAH_FIND:
	case XAH_FIND_AFTER:
		fprintf(f, "index = %#lx; xa_find%s(&xa, &index, %#lx, %s);\n",
			i, op->kind == XAH_FIND ? "" : "_after", l, F(op->arg));
		break;
	case XAH_FOR_EACH:
		fprintf(f, "for_each_filtered(&xa, %#lx, %#lx, %s);\n", i, l,
			F(op->arg));
		break;
	case XAH_XAS_FOR_EACH:
		fprintf(f, "xas_walk(&xa, %#lx, %#lx, %s, %u /* pause every */);\n",
			i, l, F(op->arg), op->order);
		break;
	case XAH_EXTRACT:
		fprintf(f, "xa_extract(&xa, dst, %#lx, %#lx, %u, %s);\n", i, l,
			op->order, F(op->arg));
		break;
	case XAH_FIND_CONFLICT:
		fprintf(f, "conflicts(&xa, %#lx, %u);\n", i, op->order);
		break;
	case XAH_GET_ORDER:
		fprintf(f, "xa_get_order(&xa, %#lx);\n", i);
		break;
	case XAH_XAS_NEXT:
	case XAH_XAS_PREV:
		fprintf(f, "xas_step_%s(&xa, %#lx, %lu);\n",
			op->kind == XAH_XAS_NEXT ? "next" : "prev", i, l);
		break;
	case XAH_SPLIT:
		fprintf(f, "split(&xa, %#lx, %u, %s, %u /* old order */);\n", i,
			op->order, E(op->entry), op->order2);
		break;
	case XAH_TRY_SPLIT:
		fprintf(f, "try_split(&xa, %#lx, %u, %s, %u);\n", i, op->order,
			E(op->entry), op->order2);
		break;
	case XAH_ALLOC:
		fprintf(f, "xa_alloc(&xa, &id, %s, XA_LIMIT(%#lx, %#lx), GFP_KERNEL);\n",
			E(op->entry), i, l);
		break;
	case XAH_ALLOC_CYCLIC:
		fprintf(f, "xa_alloc_cyclic(&xa, &id, %s, XA_LIMIT(%#lx, %#lx), &next, GFP_KERNEL);\n",
			E(op->entry), i, l);
		break;
	case XAH_DESTROY:
		fprintf(f, "xa_destroy(&xa);\n");
		break;
	default:
		fprintf(f, "/* unknown op %u */\n", op->kind);
		break;
	}
}

static const char xah_helpers[] =
"/*\n"
" * Helpers (tests/utils/xa_harness.c):\n"
" * store_order(xa, i, o, e): XA_STATE_ORDER(xas, xa, i, o); do { xas_lock(&xas);\n"
" *	xas_store(&xas, e); xas_unlock(&xas); } while (xas_nomem(&xas, GFP_KERNEL));\n"
" * store_order_conflict(): the same with xas_for_each_conflict() before xas_store().\n"
" * split(xa, i, new, e, old): XA_STATE_ORDER(xas, xa, i, new);\n"
" *	xas_split_alloc(&xas, e, old, GFP_KERNEL); xas_lock(&xas);\n"
" *	xas_split(&xas, e, old); xas_unlock(&xas); xas_destroy(&xas);\n"
" * try_split(xa, i, new, e, old): XA_STATE_ORDER(xas, xa, i, new); do {\n"
" *	xas_lock(&xas); xas_try_split(&xas, e, old); xas_unlock(&xas);\n"
" *	} while (xas_nomem(&xas, GFP_KERNEL));\n"
" * the others read only and compare with the model.\n"
" */\n";

void xah_print_ops(FILE *f, gfp_t flags, const struct xah_op *ops,
		   size_t nr)
{
	size_t i;

	fputs(xah_helpers, f);
	fprintf(f, "DEFINE_XARRAY_FLAGS(xa, %#x);\n", flags);
	for (i = 0; i < nr; i++)
		xah_print_op(f, &ops[i]);
}

/*
 * say() - Print a mismatch: the operation (if any) and what differed.
 * Return: -1.
 */
static int __attribute__((format(printf, 4, 5)))
say(bool quiet, const struct xah_op *op, unsigned long nr,
    const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return -1;
	fprintf(stderr, "xa_harness: MISMATCH");
	if (op) {
		fprintf(stderr, " at op #%lu: ", nr);
		xah_print_op(stderr, op);
		fprintf(stderr, "xa_harness:   ");
	} else {
		fprintf(stderr, ": ");
	}
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	return -1;
}

#define fail(h, fmt, ...) \
	say((h)->quiet, (h)->cur, (h)->nr_ops, fmt, ##__VA_ARGS__)

/* ---- setup --------------------------------------------------------------- */

static int64_t node_balance(void)
{
	struct upc_thread_stats s;

	upc_stats_thread(&s);
	return (int64_t)(s.xa_node_allocs - s.xa_node_frees);
}

void xah_init(struct xa_harness *h, gfp_t flags, size_t log_cap)
{
	memset(h, 0, sizeof(*h));
	xa_init_flags(&h->xa, flags);
	xa_model_init(&h->m, flags);
	h->flags = flags;
	h->max_split_pieces = 10;
	h->node_base = node_balance();
	if (log_cap) {
		h->log = calloc(log_cap, sizeof(*h->log));
		if (!h->log) {
			fprintf(stderr, "xa_harness: out of memory\n");
			abort();
		}
		h->log_cap = log_cap;
	}
}

/* leak_check() - After xa_destroy(): every node allocated was freed. */
static int leak_check(struct xa_harness *h)
{
	int64_t now = node_balance();

	if (!xa_empty(&h->xa))
		return fail(h, "array not empty after xa_destroy()");
	if (now != h->node_base)
		return fail(h, "%lld node(s) leaked (allocations - frees)",
			    (long long)(now - h->node_base));
	return 0;
}

int xah_fini(struct xa_harness *h)
{
	int ret = xah_verify(h);

	h->cur = NULL;
	xa_destroy(&h->xa);
	if (!ret)
		ret = leak_check(h);
	xa_model_fini(&h->m);
	free(h->log);
	h->log = NULL;
	h->log_cap = h->log_nr = 0;
	return ret;
}

/* ---- small helpers ----------------------------------------------------- */

/* May the normal API store @entry? */
static bool storable(const void *entry)
{
	return !xa_is_internal(entry) || xa_is_zero(entry);
}

/* The first mark the model tracks (XA_MARK_0 is the free mark). */
static xa_mark_t first_mark(const struct xa_model *m)
{
	return m->track_free ? XA_MARK_1 : XA_MARK_0;
}

/* Is @filter a mark the model does not track? */
static bool untracked_filter(const struct xa_model *m, unsigned int filter)
{
	return m->track_free && filter == XA_FREE_MARK;
}

/* A span of indices an operation touched. */
struct span {
	unsigned long lo, hi;
	bool set;
};

static void span_add(struct span *s, unsigned long lo, unsigned long hi)
{
	if (!s->set) {
		s->lo = lo;
		s->hi = hi;
		s->set = true;
		return;
	}
	if (lo < s->lo)
		s->lo = lo;
	if (hi > s->hi)
		s->hi = hi;
}

/* span_entry() - Add the entry covering @index (or @index alone). */
static void span_entry(struct span *s, const struct xa_model *m,
		       unsigned long index)
{
	const struct xa_model_entry *e = xa_model_lookup(m, index);

	if (e)
		span_add(s, e->first, xa_model_last(e));
	else
		span_add(s, index, index);
}

/*
 * expect_returned() - @call returned @real where the model returned @exp;
 * if they agree, the entry now covering @op's index joins @s.
 * Return: 0, or -1 after reporting the difference.
 */
static int expect_returned(struct xa_harness *h, const struct xah_op *op,
			   struct span *s, const char *call, void *real,
			   void *exp)
{
	if (real != exp)
		return fail(h, "%s returned %s, expected %s", call, E(real),
			    E(exp));
	span_entry(s, &h->m, op->index);
	return 0;
}

/* ---- step 2: the touched indices --------------------------------------- */

static int check_point(struct xa_harness *h, unsigned long index)
{
	const struct xa_model *m = &h->m;
	void *real = xa_load(&h->xa, index);
	void *exp = xa_model_load(m, index);
	int order, eorder;
	xa_mark_t mark;

	if (real != exp)
		return fail(h, "xa_load(%#lx) = %s, expected %s", index,
			    E(real), E(exp));
	order = xa_get_order(&h->xa, index);
	eorder = xa_model_get_order(m, index);
	if (order != eorder)
		return fail(h, "xa_get_order(%#lx) = %d, expected %d", index,
			    order, eorder);
	for (mark = first_mark(m); mark <= XA_MARK_MAX; mark++) {
		bool set = xa_get_mark(&h->xa, index, mark);

		if (set != xa_model_get_mark(m, index, mark))
			return fail(h, "xa_get_mark(%#lx, %u) = %d, expected %d",
				    index, mark, set, !set);
	}
	return 0;
}

static int check_span(struct xa_harness *h, const struct span *s)
{
	unsigned long pts[8], lo = s->lo, hi = s->hi, ri, mi, max;
	const struct xa_model_entry *e;
	unsigned int n = 0, i;
	void *r;

	if (!s->set)
		return 0;
	pts[n++] = lo;
	pts[n++] = hi;
	pts[n++] = lo + (hi - lo) / 2;
	if (lo > 0)
		pts[n++] = lo - 1;
	if (hi < ULONG_MAX)
		pts[n++] = hi + 1;
	if (hi - lo >= 2) {
		pts[n++] = lo + 1;
		pts[n++] = hi - 1;
	}
	for (i = 0; i < n; i++)
		if (check_point(h, pts[i]))
			return -1;

	/* One lookup through the find path too. */
	ri = mi = lo;
	max = hi < ULONG_MAX ? hi + 1 : hi;
	r = xa_find(&h->xa, &ri, max, XA_PRESENT);
	e = xa_model_find(&h->m, &mi, max, XA_PRESENT, true);
	if (r != (e ? e->entry : NULL) || ri != mi)
		return fail(h, "xa_find(%#lx, %#lx) = %s at %#lx, expected %s at %#lx",
			    lo, max, E(r), ri, E(e ? e->entry : NULL), mi);
	return 0;
}

/* ---- step 3: the whole array ------------------------------------------- */

/* Is @e the reserved index 0 of a zero-busy array, which the model lacks? */
static bool zero_busy_extra(const struct xa_model *m, unsigned long index,
			    const void *entry)
{
	return m->zero_busy && index == 0 && xa_is_zero(entry) &&
		!xa_model_lookup(m, 0);
}

/* compare_xas_walk() - xas_for_each() against the model, raw. */
static int compare_xas_walk(struct xarray *xa, const struct xa_model *m,
			    bool quiet)
{
	XA_STATE(xas, xa, 0);
	size_t pos = 0, seen = 0;
	void *entry;
	int ret = 0;

	upc_rcu_read_lock();
	xas_for_each(&xas, entry, ULONG_MAX) {
		const struct xa_model_entry *e;
		xa_mark_t mark;
		int order;

		if (++seen > m->nr + 2) {
			ret = say(quiet, NULL, 0, "xas_for_each() does not end (index %#lx)",
				  xas.xa_index);
			break;
		}
		if (zero_busy_extra(m, xas.xa_index, entry))
			continue;
		if (pos >= m->nr) {
			ret = say(quiet, NULL, 0, "xas_for_each(): extra entry %s at %#lx",
				  E(entry), xas.xa_index);
			break;
		}
		e = &m->v[pos++];
		if (xas.xa_index != e->first || entry != e->entry) {
			ret = say(quiet, NULL, 0,
				  "xas_for_each(): %s at %#lx, expected %s at %#lx (order %u)",
				  E(entry), xas.xa_index, E(e->entry), e->first,
				  e->order);
			break;
		}
		order = xas_get_order(&xas);
		if (order != (int)e->order) {
			ret = say(quiet, NULL, 0,
				  "xas_get_order() at %#lx = %d, expected %u",
				  e->first, order, e->order);
			break;
		}
		for (mark = first_mark(m); mark <= XA_MARK_MAX; mark++) {
			bool set = xas_get_mark(&xas, mark);

			if (set != !!(e->marks & (1U << mark))) {
				ret = say(quiet, NULL, 0,
					  "xas_get_mark(%u) at %#lx = %d, expected %d",
					  mark, e->first, set, !set);
				break;
			}
		}
		if (ret)
			break;
	}
	upc_rcu_read_unlock();
	if (!ret && pos < m->nr)
		ret = say(quiet, NULL, 0, "xas_for_each(): missing %s at %#lx (order %u)",
			  E(m->v[pos].entry), m->v[pos].first, m->v[pos].order);
	return ret;
}

/* compare_marked_walk() - xas_for_each_marked() for one mark, raw. */
static int compare_marked_walk(struct xarray *xa, const struct xa_model *m,
			       xa_mark_t mark, bool quiet)
{
	XA_STATE(xas, xa, 0);
	size_t pos = 0, seen = 0;
	void *entry;
	int ret = 0;

	upc_rcu_read_lock();
	xas_for_each_marked(&xas, entry, ULONG_MAX, mark) {
		const struct xa_model_entry *e = NULL;

		if (++seen > m->nr + 2) {
			ret = say(quiet, NULL, 0,
				  "xas_for_each_marked(%u) does not end", mark);
			break;
		}
		while (pos < m->nr && !(m->v[pos].marks & (1U << mark)))
			pos++;
		if (pos < m->nr)
			e = &m->v[pos++];
		if (!e || xas.xa_index != e->first || entry != e->entry) {
			ret = say(quiet, NULL, 0,
				  "xas_for_each_marked(%u): %s at %#lx, expected %s at %#lx",
				  mark, E(entry), xas.xa_index,
				  E(e ? e->entry : NULL), e ? e->first : 0);
			break;
		}
	}
	upc_rcu_read_unlock();
	while (!ret && pos < m->nr && !(m->v[pos].marks & (1U << mark)))
		pos++;
	if (!ret && pos < m->nr)
		ret = say(quiet, NULL, 0, "xas_for_each_marked(%u): missing %s at %#lx",
			  mark, E(m->v[pos].entry), m->v[pos].first);
	return ret;
}

/* compare_normal_walk() - xa_for_each() against the model. */
static int compare_normal_walk(struct xarray *xa, const struct xa_model *m,
			       bool quiet)
{
	size_t pos = 0, seen = 0;
	unsigned long index;
	void *entry;

	xa_for_each(xa, index, entry) {
		const struct xa_model_entry *e = NULL;

		if (++seen > m->nr + 2)
			return say(quiet, NULL, 0, "xa_for_each() does not end (index %#lx)",
				   index);
		while (pos < m->nr && xa_is_zero(m->v[pos].entry))
			pos++;
		if (pos < m->nr)
			e = &m->v[pos++];
		if (!e || index != e->first || entry != e->entry)
			return say(quiet, NULL, 0,
				   "xa_for_each(): %s at %#lx, expected %s at %#lx",
				   E(entry), index, E(e ? e->entry : NULL),
				   e ? e->first : 0);
	}
	while (pos < m->nr && xa_is_zero(m->v[pos].entry))
		pos++;
	if (pos < m->nr)
		return say(quiet, NULL, 0, "xa_for_each(): missing %s at %#lx",
			   E(m->v[pos].entry), m->v[pos].first);
	return 0;
}

/* compare_ends() - xa_load() and xa_get_order() at both ends of entries. */
static int compare_ends(struct xarray *xa, const struct xa_model *m,
			bool quiet)
{
	size_t pos;

	for (pos = 0; pos < m->nr; pos++) {
		const struct xa_model_entry *e = &m->v[pos];
		unsigned long ends[3] = { e->first, xa_model_last(e), 0 };
		void *exp = xa_model_zero_to_null(e->entry);
		unsigned int i, n = 2;

		/* The index after the entry, if nothing starts there. */
		if (ends[1] < ULONG_MAX &&
		    (pos + 1 == m->nr || m->v[pos + 1].first != ends[1] + 1))
			ends[n++] = ends[1] + 1;
		for (i = 0; i < n; i++) {
			void *real = xa_load(xa, ends[i]);
			int order = xa_get_order(xa, ends[i]);
			bool past = i == 2;

			if (real != (past ? NULL : exp))
				return say(quiet, NULL, 0, "xa_load(%#lx) = %s, expected %s",
					   ends[i], E(real), E(past ? NULL : exp));
			if (order != (past ? 0 : (int)e->order))
				return say(quiet, NULL, 0,
					   "xa_get_order(%#lx) = %d, expected %u",
					   ends[i], order, past ? 0 : e->order);
		}
	}
	return 0;
}

int xah_compare(struct xarray *xa, const struct xa_model *m, bool quiet)
{
	xa_mark_t mark;

	if (compare_xas_walk(xa, m, quiet) || compare_normal_walk(xa, m, quiet) ||
	    compare_ends(xa, m, quiet))
		return -1;
	for (mark = first_mark(m); mark <= XA_MARK_MAX; mark++) {
		bool set = xa_marked(xa, mark);

		if (set != xa_model_marked(m, mark))
			return say(quiet, NULL, 0, "xa_marked(%u) = %d, expected %d",
				   mark, set, !set);
		if (compare_marked_walk(xa, m, mark, quiet))
			return -1;
	}
	return 0;
}

int xah_verify(struct xa_harness *h)
{
	h->since_verify = 0;
	if (upc_check_xarray(&h->xa))
		return fail(h, "upc_check_xarray() found a broken invariant (above)");
	if (xah_compare(&h->xa, &h->m, h->quiet))
		return fail(h, "the array differs from the model (above)");
	return 0;
}

/* ---- step 1: the operations --------------------------------------------- */

/*
 * model_conflicts() - The entries xas_for_each_conflict() must return for
 * [first, last], raw, in index order.  Return: their number (all of
 * them; at most @max are stored).
 */
static size_t model_conflicts(const struct xa_model *m, unsigned long first,
			      unsigned long last, void **out, size_t max)
{
	const struct xa_model_entry *e = xa_model_lookup(m, first);
	size_t n = 0;

	if (!e)
		e = xa_model_next(m, first);
	while (e && e->first <= last) {
		if (n < max)
			out[n] = e->entry;
		n++;
		e = xa_model_next(m, e->first);
	}
	return n;
}

/* model_count_range() - Entries touching [first, last], to size buffers. */
static size_t model_count_range(const struct xa_model *m, unsigned long first,
				unsigned long last)
{
	return model_conflicts(m, first, last, NULL, 0);
}

/*
 * real_conflicts() - Run xas_for_each_conflict() on @xas (locked by the
 * caller), storing at most @max entries.  Return: entries seen, capped at
 * @max + 1.
 */
static size_t real_conflicts(struct xa_state *xas, void **out, size_t max)
{
	size_t n = 0;
	void *entry;

	xas_for_each_conflict(xas, entry) {
		if (n < max)
			out[n] = entry;
		if (++n > max)
			break;
	}
	return n;
}

static int compare_conflicts(struct xa_harness *h, unsigned long first,
			     void **real, size_t nreal, void **exp, size_t nexp)
{
	size_t i;

	/* The placeholder at index 0 of an XA_FLAGS_ZERO_BUSY array. */
	if (nreal && first == 0 && zero_busy_extra(&h->m, 0, real[0])) {
		real++;
		nreal--;
	}

	for (i = 0; i < nreal && i < nexp; i++)
		if (real[i] != exp[i])
			return fail(h, "conflict #%zu is %s, expected %s", i,
				    E(real[i]), E(exp[i]));
	if (nreal != nexp)
		return fail(h, "%zu conflicts, expected %zu", nreal, nexp);
	return 0;
}

static void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p) {
		fprintf(stderr, "xa_harness: out of memory\n");
		abort();
	}
	return p;
}

static int op_store(struct xa_harness *h, const struct xah_op *op,
		    struct span *s)
{
	void *real, *exp;

	if (!storable(op->entry)) {
		real = xa_store(&h->xa, op->index, op->entry, GFP_KERNEL);
		if (xa_err(real) != -EINVAL)
			return fail(h, "storing %s returned %s, expected -EINVAL",
				    E(op->entry), E(real));
		span_entry(s, &h->m, op->index);
		return 0;
	}
	span_entry(s, &h->m, op->index);
	real = xa_store(&h->xa, op->index, op->entry, GFP_KERNEL);
	exp = xa_model_store(&h->m, op->index, op->entry);
	return expect_returned(h, op, s, "xa_store()", real, exp);
}

static int op_store_order(struct xa_harness *h, const struct xah_op *op,
			  struct span *s)
{
	unsigned int order = op->order;
	unsigned long first = xa_model_align(op->index, order);
	unsigned long last = xa_model_range_last(first, order);
	const struct xa_model_entry *c = xa_model_lookup(&h->m, first);
	bool scan = op->arg & XAH_F_CONFLICT;
	bool bigger = c && c->order > order;
	XA_STATE_ORDER(xas, &h->xa, op->index, order);
	struct xa_model_store_info info;
	size_t nexp = 0, nreal = 0;
	void **exp = NULL, **real = NULL, *old = NULL, *mold;
	int err, ret = 0;

	if (order > BITS_PER_LONG || (op->entry && !storable(op->entry)))
		return 0;
	span_entry(s, &h->m, first);
	span_add(s, first, last);
	if (scan) {
		nexp = model_count_range(&h->m, first, last);
		exp = xmalloc((nexp + 3) * sizeof(*exp));
		real = xmalloc((nexp + 3) * sizeof(*real));
		model_conflicts(&h->m, first, last, exp, nexp);
	}
	do {
		xas_lock(&xas);
		if (scan)
			nreal = real_conflicts(&xas, real, nexp + 2);
		if (!(scan && bigger))
			old = xas_store(&xas, op->entry);
		xas_unlock(&xas);
	} while (xas_nomem(&xas, GFP_KERNEL));
	err = xas_error(&xas);
	if (err) {
		ret = fail(h, "xas_store() failed with %d", err);
		goto out;
	}
	if (scan) {
		ret = compare_conflicts(h, first, real, nreal, exp, nexp);
		if (ret)
			goto out;
	}
	if (scan && bigger)
		goto out;
	mold = xa_model_store_order(&h->m, op->index, order, op->entry, &info);
	if (info.defined && old != mold)
		ret = fail(h, "xas_store() returned %s, expected %s", E(old),
			   E(mold));
	span_entry(s, &h->m, first);
out:
	free(exp);
	free(real);
	return ret;
}

static int op_erase(struct xa_harness *h, const struct xah_op *op,
		    struct span *s)
{
	void *real, *exp;

	span_entry(s, &h->m, op->index);
	real = xa_erase(&h->xa, op->index);
	exp = xa_model_erase(&h->m, op->index);
	if (real != exp)
		return fail(h, "xa_erase() returned %s, expected %s", E(real),
			    E(exp));
	return 0;
}

static int op_insert(struct xa_harness *h, const struct xah_op *op,
		     struct span *s)
{
	int real, exp;

	span_entry(s, &h->m, op->index);
	real = xa_insert(&h->xa, op->index, op->entry, GFP_KERNEL);
	exp = storable(op->entry) ?
		xa_model_insert(&h->m, op->index, op->entry) : -EINVAL;
	if (real != exp)
		return fail(h, "xa_insert() returned %d, expected %d", real, exp);
	span_entry(s, &h->m, op->index);
	return 0;
}

static int op_cmpxchg(struct xa_harness *h, const struct xah_op *op,
		      struct span *s)
{
	void *real, *exp;

	span_entry(s, &h->m, op->index);
	real = xa_cmpxchg(&h->xa, op->index, op->old, op->entry, GFP_KERNEL);
	if (storable(op->entry))
		exp = xa_model_cmpxchg(&h->m, op->index, op->old, op->entry);
	else
		exp = XA_ERROR(-EINVAL);
	return expect_returned(h, op, s, "xa_cmpxchg()", real, exp);
}

static int op_reserve(struct xa_harness *h, const struct xah_op *op,
		      struct span *s)
{
	int ret;

	span_entry(s, &h->m, op->index);
	if (op->kind == XAH_RESERVE) {
		ret = xa_reserve(&h->xa, op->index, GFP_KERNEL);
		if (ret)
			return fail(h, "xa_reserve() returned %d", ret);
		xa_model_cmpxchg(&h->m, op->index, NULL, XA_ZERO_ENTRY);
	} else {
		xa_release(&h->xa, op->index);
		xa_model_cmpxchg(&h->m, op->index, XA_ZERO_ENTRY, NULL);
	}
	span_entry(s, &h->m, op->index);
	return 0;
}

static int op_store_range(struct xa_harness *h, const struct xah_op *op,
			  struct span *s)
{
	void *real;

	if (xa_is_zero(op->entry))
		return 0;	/* the contract leaves this one open */
	if (op->index > op->last || !storable(op->entry)) {
		real = xa_store_range(&h->xa, op->index, op->last, op->entry,
				      GFP_KERNEL);
		if (xa_err(real) != -EINVAL)
			return fail(h, "xa_store_range() returned %s, expected -EINVAL",
				    E(real));
		span_entry(s, &h->m, op->index);
		return 0;
	}
	span_entry(s, &h->m, op->index);
	span_entry(s, &h->m, op->last);
	real = xa_store_range(&h->xa, op->index, op->last, op->entry,
			      GFP_KERNEL);
	if (real)
		return fail(h, "xa_store_range() returned %s, expected NULL",
			    E(real));
	xa_model_store_range(&h->m, op->index, op->last, op->entry);
	span_entry(s, &h->m, op->index);
	span_entry(s, &h->m, op->last);
	return 0;
}

static int op_mark(struct xa_harness *h, const struct xah_op *op,
		   struct span *s)
{
	if (untracked_filter(&h->m, op->arg))
		return 0;
	span_entry(s, &h->m, op->index);
	if (op->kind == XAH_SET_MARK) {
		xa_set_mark(&h->xa, op->index, op->arg);
		xa_model_set_mark(&h->m, op->index, op->arg);
	} else {
		xa_clear_mark(&h->xa, op->index, op->arg);
		xa_model_clear_mark(&h->m, op->index, op->arg);
	}
	return 0;
}

static int op_find(struct xa_harness *h, const struct xah_op *op)
{
	unsigned long ri = op->index, mi = op->index;
	const struct xa_model_entry *e;
	void *r, *exp;

	if (untracked_filter(&h->m, op->arg))
		return 0;
	if (op->kind == XAH_FIND) {
		r = xa_find(&h->xa, &ri, op->last, op->arg);
		e = xa_model_find(&h->m, &mi, op->last, op->arg, true);
	} else {
		r = xa_find_after(&h->xa, &ri, op->last, op->arg);
		e = xa_model_find_after(&h->m, &mi, op->last, op->arg);
	}
	exp = e ? e->entry : NULL;
	if (r != exp || ri != mi)
		return fail(h, "found %s, index now %#lx; expected %s, index %#lx",
			    E(r), ri, E(exp), mi);
	return 0;
}

static int op_for_each(struct xa_harness *h, const struct xah_op *op)
{
	unsigned long ri = op->index, mi = op->index, max = op->last;
	const struct xa_model_entry *e;
	unsigned int n;
	void *r;

	if (untracked_filter(&h->m, op->arg))
		return 0;
	r = xa_find(&h->xa, &ri, max, op->arg);
	e = xa_model_find(&h->m, &mi, max, op->arg, true);
	for (n = 0; n < 64; n++) {
		void *exp = e ? e->entry : NULL;

		if (r != exp || (r && ri != mi))
			return fail(h, "iteration step %u: %s at %#lx, expected %s at %#lx",
				    n, E(r), ri, E(exp), mi);
		if (!r)
			break;
		r = xa_find_after(&h->xa, &ri, max, op->arg);
		e = xa_model_find_after(&h->m, &mi, max, op->arg);
	}
	return 0;
}

/* next_raw() - The model entry after @e matching @filter, up to @max. */
static const struct xa_model_entry *next_raw(const struct xa_model *m,
					     const struct xa_model_entry *e,
					     unsigned long max,
					     unsigned int filter)
{
	size_t pos;

	for (pos = (size_t)(e - m->v) + 1; pos < m->nr; pos++) {
		if (m->v[pos].first > max)
			return NULL;
		if (xa_model_matches(&m->v[pos], filter, false))
			return &m->v[pos];
	}
	return NULL;
}

static int op_xas_for_each(struct xa_harness *h, const struct xah_op *op)
{
	bool marked = op->arg <= XA_MARK_MAX;
	unsigned long mi = op->index, max = op->last;
	const struct xa_model_entry *e;
	XA_STATE(xas, &h->xa, op->index);
	unsigned int n = 0;
	void *entry;
	int ret = 0;

	if (untracked_filter(&h->m, op->arg))
		return 0;
	e = xa_model_find(&h->m, &mi, max, op->arg, false);
	upc_rcu_read_lock();
	entry = marked ? xas_find_marked(&xas, max, op->arg) :
		xas_find(&xas, max);
	while (entry && n < XAH_WALK_MAX) {
		bool index_ok;

		if (!e) {
			ret = fail(h, "step %u: extra %s at %#lx", n, E(entry),
				   xas.xa_index);
			break;
		}
		index_ok = xas.xa_index == mi;
		/* Starting inside a marked entry: its first index will do. */
		if (n == 0 && marked && e->first < op->index)
			index_ok |= xas.xa_index == e->first;
		if (entry != e->entry || !index_ok) {
			ret = fail(h, "step %u: %s at %#lx, expected %s at %#lx",
				   n, E(entry), xas.xa_index, E(e->entry), mi);
			break;
		}
		e = next_raw(&h->m, e, max, op->arg);
		if (e)
			mi = e->first;
		if (++n == XAH_WALK_MAX)
			break;
		if (op->order && n % op->order == 0) {
			xas_pause(&xas);
			upc_rcu_read_unlock();
			upc_rcu_read_lock();
		}
		entry = marked ? xas_next_marked(&xas, max, op->arg) :
			xas_next_entry(&xas, max);
	}
	upc_rcu_read_unlock();
	if (!ret && n < XAH_WALK_MAX && e)
		ret = fail(h, "step %u: walk ended, expected %s at %#lx", n,
			   E(e->entry), e->first);
	return ret;
}

static int op_extract(struct xa_harness *h, const struct xah_op *op)
{
	void *real[256], *exp[256];
	unsigned int n = op->order, nr, nexp, i;

	if (untracked_filter(&h->m, op->arg))
		return 0;
	nr = xa_extract(&h->xa, real, op->index, op->last, n, op->arg);
	nexp = xa_model_extract(&h->m, exp, op->index, op->last, n, op->arg);
	if (nr != nexp)
		return fail(h, "xa_extract() copied %u, expected %u", nr, nexp);
	for (i = 0; i < nr; i++)
		if (real[i] != exp[i])
			return fail(h, "xa_extract() #%u is %s, expected %s", i,
				    E(real[i]), E(exp[i]));
	return 0;
}

static int op_find_conflict(struct xa_harness *h, const struct xah_op *op)
{
	unsigned int order = op->order;
	unsigned long first = xa_model_align(op->index, order);
	unsigned long last = xa_model_range_last(first, order);
	XA_STATE_ORDER(xas, &h->xa, op->index, order);
	size_t nexp, nreal;
	void **exp, **real;
	int ret;

	if (order > BITS_PER_LONG)
		return 0;
	nexp = model_count_range(&h->m, first, last);
	exp = xmalloc((nexp + 3) * sizeof(*exp));
	real = xmalloc((nexp + 3) * sizeof(*real));
	model_conflicts(&h->m, first, last, exp, nexp);
	xas_lock(&xas);
	nreal = real_conflicts(&xas, real, nexp + 2);
	xas_unlock(&xas);
	ret = compare_conflicts(h, first, real, nreal, exp, nexp);
	free(exp);
	free(real);
	return ret;
}

static int op_get_order(struct xa_harness *h, const struct xah_op *op)
{
	int real = xa_get_order(&h->xa, op->index);
	int exp = xa_model_get_order(&h->m, op->index);
	void *eentry = xa_model_load_raw(&h->m, op->index), *entry;
	XA_STATE(xas, &h->xa, op->index);

	if (real != exp)
		return fail(h, "xa_get_order() = %d, expected %d", real, exp);
	upc_rcu_read_lock();
	entry = xas_load(&xas);
	real = entry ? xas_get_order(&xas) : exp;
	upc_rcu_read_unlock();
	if (zero_busy_extra(&h->m, op->index, entry))
		return 0;
	if (entry != eentry)
		return fail(h, "xas_load() = %s, expected %s", E(entry),
			    E(eentry));
	if (real != exp)
		return fail(h, "xas_get_order() = %d, expected %d", real, exp);
	return 0;
}

/*
 * check_raw() - What xas_next()/xas_prev() must return at @index: NULL,
 * the entry in its canonical slot, or in the other slots of a
 * multi-index entry a sibling naming the canonical slot.  An order-k
 * entry lives in a node of shift k - k % XA_CHUNK_SHIFT, so the slot an
 * index falls in is (index - first) >> that shift.
 */
static int check_raw(struct xa_harness *h, unsigned long index, void *entry,
		     unsigned int step)
{
	const struct xa_model_entry *e = xa_model_lookup(&h->m, index);
	unsigned int shift;

	if (!e) {
		if (entry && !zero_busy_extra(&h->m, index, entry))
			return fail(h, "step %u: %s at %#lx, expected NULL",
				    step, E(entry), index);
		return 0;
	}
	shift = e->order - e->order % XA_CHUNK_SHIFT;
	if (((index - e->first) >> shift) == 0) {
		if (entry != e->entry)
			return fail(h, "step %u: %s at %#lx, expected %s",
				    step, E(entry), index, E(e->entry));
		return 0;
	}
	if (entry != xa_mk_sibling((e->first >> shift) & XA_CHUNK_MASK))
		return fail(h, "step %u: %s at %#lx, expected %s (inside %s at %#lx, order %u)",
			    step, E(entry), index,
			    E(xa_mk_sibling((e->first >> shift) & XA_CHUNK_MASK)),
			    E(e->entry), e->first, e->order);
	return 0;
}

static int op_xas_step(struct xa_harness *h, const struct xah_op *op)
{
	bool next = op->kind == XAH_XAS_NEXT;
	unsigned long steps = op->last, index = op->index, k;
	XA_STATE(xas, &h->xa, op->index);
	void *entry, *exp;
	int ret = 0;

	if (steps > XAH_STEP_MAX)
		steps = XAH_STEP_MAX;
	upc_rcu_read_lock();
	entry = xas_load(&xas);
	exp = xa_model_load_raw(&h->m, index);
	if (entry != exp && !zero_busy_extra(&h->m, index, entry))
		ret = fail(h, "xas_load(%#lx) = %s, expected %s", index,
			   E(entry), E(exp));
	for (k = 1; !ret && k <= steps; k++) {
		/* From XAS_BOUNDS (or the head) a step is an xas_load(). */
		bool reload = xas_not_node(xas.xa_node);

		index = next ? index + 1 : index - 1;
		entry = next ? xas_next(&xas) : xas_prev(&xas);
		if (xas.xa_index != index) {
			ret = fail(h, "step %lu: cursor at %#lx, expected %#lx",
				   k, xas.xa_index, index);
			break;
		}
		exp = xa_model_load_raw(&h->m, index);
		if (reload && entry != exp &&
		    !zero_busy_extra(&h->m, index, entry))
			ret = fail(h, "step %lu: %s at %#lx, expected %s", k,
				   E(entry), index, E(exp));
		else if (!reload)
			ret = check_raw(h, index, entry, (unsigned int)k);
	}
	upc_rcu_read_unlock();
	return ret;
}

/*
 * split_target() - The model entry a split would split: the one covering
 * the cursor's index, which XA_STATE_ORDER() aligns to the new order.
 * Return: false if the split is not one the harness checks (an internal
 * entry to store, or a reserved entry to split); else true, with *@ep
 * the entry or NULL when the index holds nothing.
 */
static bool split_target(struct xa_harness *h, const struct xah_op *op,
			 const struct xa_model_entry **ep)
{
	const struct xa_model_entry *e;

	if (op->order >= BITS_PER_LONG || !op->entry ||
	    xa_is_internal(op->entry))
		return false;
	e = xa_model_lookup(&h->m, xa_model_align(op->index, op->order));
	if (e && xa_is_zero(e->entry))
		return false;
	*ep = e;
	return true;
}

/* A split of an index holding nothing: -EINVAL, nothing changes. */
static int op_split_nothing(struct xa_harness *h, const struct xah_op *op,
			    struct span *s)
{
	unsigned int order = op->order + 1;
	XA_STATE_ORDER(xas, &h->xa, op->index, op->order);
	int err;

	span_entry(s, &h->m, xa_model_align(op->index, op->order));
	if (op->kind == XAH_TRY_SPLIT) {
		xas_lock(&xas);
		xas_try_split(&xas, op->entry, op->order2);
		xas_unlock(&xas);
	} else {
		xas_split_alloc(&xas, op->entry, order, GFP_KERNEL);
		err = xas_error(&xas);
		if (err && err != -EINVAL) {
			xas_destroy(&xas);
			return fail(h, "xas_split_alloc() failed with %d", err);
		}
		if (!err) {
			xas_lock(&xas);
			xas_split(&xas, op->entry, order);
			xas_unlock(&xas);
		}
	}
	err = xas_error(&xas);
	xas_destroy(&xas);
	if (err != -EINVAL)
		return fail(h, "splitting nothing: error %d, expected -EINVAL",
			    err);
	return 0;
}

static int op_split(struct xa_harness *h, const struct xah_op *op,
		    struct span *s)
{
	const struct xa_model_entry *e = NULL;
	XA_STATE_ORDER(xas, &h->xa, op->index, op->order);
	unsigned int old_order;
	int err;

	if (!split_target(h, op, &e))
		return 0;
	if (!e)
		return op_split_nothing(h, op, s);
	if (e->order <= op->order ||
	    e->order - op->order > h->max_split_pieces)
		return 0;
	old_order = e->order;
	if (h->log_nr && h->log[h->log_nr - 1].kind == XAH_SPLIT)
		h->log[h->log_nr - 1].order2 = (uint8_t)old_order;
	span_add(s, e->first, xa_model_last(e));
	xas_split_alloc(&xas, op->entry, old_order, GFP_KERNEL);
	err = xas_error(&xas);
	if (err) {
		xas_destroy(&xas);
		return fail(h, "xas_split_alloc() failed with %d", err);
	}
	xas_lock(&xas);
	xas_split(&xas, op->entry, old_order);
	xas_unlock(&xas);
	err = xas_error(&xas);
	xas_destroy(&xas);
	if (err)
		return fail(h, "xas_split() failed with %d", err);
	xa_model_split(&h->m, xa_model_align(op->index, op->order), op->order,
		       op->entry);
	return 0;
}

static int op_try_split(struct xa_harness *h, const struct xah_op *op,
			struct span *s)
{
	const struct xa_model_entry *e = NULL;
	XA_STATE_ORDER(xas, &h->xa, op->index, op->order);
	int err, exp;

	if (!split_target(h, op, &e))
		return 0;
	if (!e)
		return op_split_nothing(h, op, s);
	span_add(s, e->first, xa_model_last(e));
	do {
		xas_lock(&xas);
		xas_try_split(&xas, op->entry, op->order2);
		xas_unlock(&xas);
	} while (xas_nomem(&xas, GFP_KERNEL));
	err = xas_error(&xas);
	exp = xa_model_try_split(&h->m, xa_model_align(op->index, op->order),
				 op->order, op->order2, op->entry);
	if (err != exp)
		return fail(h, "xas_try_split() error %d, expected %d", err, exp);
	return 0;
}

static int op_alloc(struct xa_harness *h, const struct xah_op *op,
		    struct span *s)
{
	struct xa_limit limit = XA_LIMIT((uint32_t)op->index,
					 (uint32_t)op->last);
	bool cyclic = op->kind == XAH_ALLOC_CYCLIC;
	uint32_t id = 0, mid = 0;
	int real, exp;

	if (xa_is_internal(op->entry) && !xa_is_advanced(op->entry))
		return 0;	/* the contract leaves this one open */
	if (cyclic)
		real = xa_alloc_cyclic(&h->xa, &id, op->entry, limit,
				       &h->next_real, GFP_KERNEL);
	else
		real = xa_alloc(&h->xa, &id, op->entry, limit, GFP_KERNEL);
	if (!h->m.track_free || xa_is_advanced(op->entry))
		exp = -EINVAL;
	else if (cyclic)
		exp = xa_model_alloc_cyclic(&h->m, &mid, op->entry, limit,
					    &h->next_model);
	else
		exp = xa_model_alloc(&h->m, &mid, op->entry, limit);
	if (real != exp)
		return fail(h, "returned %d, expected %d", real, exp);
	if (real >= 0 && id != mid)
		return fail(h, "allocated id %#x, expected %#x", id, mid);
	if (h->next_real != h->next_model)
		return fail(h, "next id %#x, expected %#x", h->next_real,
			    h->next_model);
	if (real >= 0)
		span_add(s, id, id);
	return 0;
}

/*
 * op_destroy() - xa_destroy(), then start afresh (flags included, so the
 * cyclic allocator's state does not depend on what came before and a
 * logged sequence replays exactly).
 */
static int op_destroy(struct xa_harness *h)
{
	xa_destroy(&h->xa);
	xa_model_clear(&h->m);
	if (leak_check(h) || xah_verify(h))
		return -1;
	xa_init_flags(&h->xa, h->flags);
	h->m.wrapped = false;
	h->next_real = h->next_model = 0;
	return 0;
}

/* apply_one() - Steps 1 and 2 for @op. */
static int apply_one(struct xa_harness *h, const struct xah_op *op)
{
	struct span s = { 0 };
	int ret;

	switch (op->kind) {
	case XAH_STORE:
		ret = op_store(h, op, &s);
		break;
	case XAH_STORE_ORDER:
		ret = op_store_order(h, op, &s);
		break;
	case XAH_ERASE:
		ret = op_erase(h, op, &s);
		break;
	case XAH_INSERT:
		ret = op_insert(h, op, &s);
		break;
	case XAH_CMPXCHG:
		ret = op_cmpxchg(h, op, &s);
		break;
	case XAH_RESERVE:
	case XAH_RELEASE:
		ret = op_reserve(h, op, &s);
		break;
	case XAH_STORE_RANGE:
		ret = op_store_range(h, op, &s);
		break;
	case XAH_SET_MARK:
	case XAH_CLEAR_MARK:
		ret = op_mark(h, op, &s);
		break;
	case XAH_FIND:
	case XAH_FIND_AFTER:
		ret = op_find(h, op);
		break;
	case XAH_FOR_EACH:
		ret = op_for_each(h, op);
		break;
	case XAH_XAS_FOR_EACH:
		ret = op_xas_for_each(h, op);
		break;
	case XAH_EXTRACT:
		ret = op_extract(h, op);
		break;
	case XAH_FIND_CONFLICT:
		ret = op_find_conflict(h, op);
		break;
	case XAH_GET_ORDER:
		ret = op_get_order(h, op);
		break;
	case XAH_XAS_NEXT:
	case XAH_XAS_PREV:
		ret = op_xas_step(h, op);
		break;
	case XAH_SPLIT:
		ret = op_split(h, op, &s);
		break;
	case XAH_TRY_SPLIT:
		ret = op_try_split(h, op, &s);
		break;
	case XAH_ALLOC:
	case XAH_ALLOC_CYCLIC:
		ret = op_alloc(h, op, &s);
		break;
	case XAH_DESTROY:
		return op_destroy(h);
	default:
		return 0;
	}
	if (ret)
		return ret;
	return check_span(h, &s);
}

int xah_apply(struct xa_harness *h, const struct xah_op *op)
{
	unsigned long every;
	int ret;

	h->nr_ops++;
	if (h->log_cap && h->log_nr < h->log_cap)
		h->log[h->log_nr++] = *op;
	h->cur = op;
	ret = apply_one(h, op);
	if (!ret && op->kind == XAH_DESTROY)
		h->log_nr = 0;
	if (!ret) {
		every = h->verify_every ? h->verify_every : 32 + h->m.nr / 4;
		if (++h->since_verify >= every)
			ret = xah_verify(h);
	}
	h->cur = NULL;
	return ret;
}

/* ---- reproducers -------------------------------------------------------- */

int xah_replay(gfp_t flags, const struct xah_op *ops, size_t nr, bool quiet,
	       size_t *fail_at)
{
	struct xa_harness h;
	size_t i;
	int ret = 0;

	xah_init(&h, flags, 0);
	h.quiet = quiet;
	/* Every operation checked fully, unless that would take too long. */
	h.verify_every = nr <= XAH_REPLAY_FULL ? 1 : 0;
	for (i = 0; i < nr; i++) {
		ret = xah_apply(&h, &ops[i]);
		if (ret)
			break;
	}
	if (fail_at)
		*fail_at = i;
	if (xah_fini(&h))
		ret = -1;
	return ret;
}

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Silence stderr (the checker's messages) while minimizing. */
static int stderr_off(void)
{
	int saved, null;

	fflush(stderr);
	saved = dup(2);
	null = open("/dev/null", O_WRONLY);
	if (saved < 0 || null < 0) {
		if (saved >= 0)
			close(saved);
		if (null >= 0)
			close(null);
		return -1;
	}
	dup2(null, 2);
	close(null);
	return saved;
}

static void stderr_on(int saved)
{
	if (saved < 0)
		return;
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
}

size_t xah_minimize(gfp_t flags, struct xah_op *ops, size_t nr,
		    double seconds)
{
	double deadline = now_seconds() + seconds;
	struct xah_op *cand = xmalloc(nr * sizeof(*ops));
	int saved = stderr_off();
	size_t chunk, start, fail_at;

	/* Everything after the first failing operation is noise. */
	if (xah_replay(flags, ops, nr, true, &fail_at) && fail_at < nr)
		nr = fail_at + 1;
	for (chunk = nr / 2; chunk >= 1 && now_seconds() < deadline;) {
		bool removed = false;

		for (start = 0; start < nr && now_seconds() < deadline;) {
			size_t end = start + chunk < nr ? start + chunk : nr;
			size_t n = 0, i;

			for (i = 0; i < nr; i++)
				if (i < start || i >= end)
					cand[n++] = ops[i];
			if (n && xah_replay(flags, cand, n, true, &fail_at)) {
				if (fail_at < n)
					n = fail_at + 1;
				memcpy(ops, cand, n * sizeof(*ops));
				nr = n;
				removed = true;
			} else {
				start = end;
			}
		}
		if (!removed)
			chunk /= 2;
		else if (chunk > nr / 2)
			chunk = nr / 2;
	}
	stderr_on(saved);
	free(cand);
	return nr;
}

void xah_report(struct xa_harness *h, double seconds)
{
	size_t nr = h->log_nr, from = nr > 64 ? nr - 64 : 0;
	struct xah_op *ops;

	if (!h->log_cap) {
		fprintf(stderr, "xa_harness: no operation log kept\n");
		return;
	}
	fprintf(stderr, "xa_harness: %zu operations since the array was last empty; the last %zu:\n",
		nr, nr - from);
	xah_print_ops(stderr, h->flags, h->log + from, nr - from);
	if (h->log_nr >= h->log_cap) {
		fprintf(stderr, "xa_harness: log full, cannot minimize\n");
		return;
	}
	ops = xmalloc(nr * sizeof(*ops));
	memcpy(ops, h->log, nr * sizeof(*ops));
	if (xah_replay(h->flags, ops, nr, true, NULL) == 0) {
		fprintf(stderr, "xa_harness: the log replays without failing (state from earlier?)\n");
		free(ops);
		return;
	}
	nr = xah_minimize(h->flags, ops, nr, seconds);
	fprintf(stderr, "xa_harness: minimized reproducer (%zu operations):\n", nr);
	xah_print_ops(stderr, h->flags, ops, nr);
	fprintf(stderr, "xa_harness: replaying it:\n");
	xah_replay(h->flags, ops, nr, false, NULL);
	free(ops);
}
