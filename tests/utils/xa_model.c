// SPDX-License-Identifier: MIT
/*
 * tests/utils/xa_model.c - the reference model of the XArray.
 *
 * This file owns the model's operations (see xa_model.h for the semantics
 * they follow).  Everything is a binary search plus a memmove over one
 * sorted array; nothing here knows about nodes, slots or siblings, so the
 * model cannot share a structural mistake with lib/xarray.c.
 *
 * Conventions: @m is the model, @index an index, @order an entry's order,
 * @pos a position in m->v.
 */
#include "xa_model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void xa_model_init(struct xa_model *m, gfp_t flags)
{
	memset(m, 0, sizeof(*m));
	m->track_free = flags & XA_FLAGS_TRACK_FREE;
	m->zero_busy = flags & XA_FLAGS_ZERO_BUSY;
}

void xa_model_fini(struct xa_model *m)
{
	free(m->v);
	m->v = NULL;
	m->nr = m->cap = 0;
}

void xa_model_clear(struct xa_model *m)
{
	m->nr = 0;
}

void xa_model_copy(struct xa_model *dst, const struct xa_model *src)
{
	*dst = *src;
	dst->cap = src->nr ? src->nr : 1;
	dst->v = malloc(dst->cap * sizeof(*dst->v));
	if (!dst->v) {
		fprintf(stderr, "xa_model: out of memory\n");
		abort();
	}
	if (src->nr)
		memcpy(dst->v, src->v, src->nr * sizeof(*dst->v));
}

/* upper_bound() - Position of the first entry whose first index > @index. */
static size_t upper_bound(const struct xa_model *m, unsigned long index)
{
	size_t lo = 0, hi = m->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].first <= index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* covering_pos() - Position of the entry covering @index, or -1. */
static long covering_pos(const struct xa_model *m, unsigned long index)
{
	size_t pos = upper_bound(m, index);

	if (pos == 0)
		return -1;
	if (xa_model_last(&m->v[pos - 1]) < index)
		return -1;
	return (long)pos - 1;
}

struct xa_model_entry *xa_model_lookup(const struct xa_model *m,
				       unsigned long index)
{
	long pos = covering_pos(m, index);

	return pos < 0 ? NULL : &m->v[pos];
}

struct xa_model_entry *xa_model_next(const struct xa_model *m,
				     unsigned long index)
{
	size_t pos = upper_bound(m, index);

	return pos < m->nr ? &m->v[pos] : NULL;
}

void *xa_model_load_raw(const struct xa_model *m, unsigned long index)
{
	struct xa_model_entry *e = xa_model_lookup(m, index);

	return e ? e->entry : NULL;
}

void *xa_model_load(const struct xa_model *m, unsigned long index)
{
	return xa_model_zero_to_null(xa_model_load_raw(m, index));
}

int xa_model_get_order(const struct xa_model *m, unsigned long index)
{
	struct xa_model_entry *e = xa_model_lookup(m, index);

	return e ? (int)e->order : 0;
}

/* reserve_room() - Make room for @more entries. */
static void reserve_room(struct xa_model *m, size_t more)
{
	size_t cap = m->cap ? m->cap : 64;

	if (m->nr + more <= m->cap)
		return;
	while (cap < m->nr + more)
		cap *= 2;
	m->v = realloc(m->v, cap * sizeof(*m->v));
	if (!m->v) {
		fprintf(stderr, "xa_model: out of memory (%zu entries)\n", cap);
		abort();
	}
	m->cap = cap;
}

/* insert_at() - Insert @e at @pos (the caller keeps the order sorted). */
static void insert_at(struct xa_model *m, size_t pos,
		      const struct xa_model_entry *e)
{
	reserve_room(m, 1);
	memmove(&m->v[pos + 1], &m->v[pos], (m->nr - pos) * sizeof(*m->v));
	m->v[pos] = *e;
	m->nr++;
}

/* remove_span() - Remove @nr entries from @pos. */
static void remove_span(struct xa_model *m, size_t pos, size_t nr)
{
	if (!nr)
		return;
	memmove(&m->v[pos], &m->v[pos + nr],
		(m->nr - pos - nr) * sizeof(*m->v));
	m->nr -= nr;
}

/*
 * touching_span() - The entries that share an index with [first, last]:
 * *@pos is the first of them and the return value how many.
 */
static size_t touching_span(const struct xa_model *m, unsigned long first,
			    unsigned long last, size_t *pos)
{
	long c = covering_pos(m, first);
	size_t start = c >= 0 ? (size_t)c : upper_bound(m, first);
	size_t end = start;

	while (end < m->nr && m->v[end].first <= last)
		end++;
	*pos = start;
	return end - start;
}

void *xa_model_store_order(struct xa_model *m, unsigned long index,
			   unsigned int order, void *entry,
			   struct xa_model_store_info *info)
{
	unsigned long first = xa_model_align(index, order);
	unsigned long last = xa_model_range_last(first, order);
	struct xa_model_entry *c = xa_model_lookup(m, first);
	struct xa_model_entry e;
	size_t pos, nr, i;
	void *old;

	if (c && c->order >= order) {
		/* One entry covers the whole range: update or erase it. */
		old = c->entry;
		if (info) {
			info->replaced = 1;
			info->defined = true;
		}
		if (entry) {
			c->entry = entry;
		} else {
			remove_span(m, (size_t)(c - m->v), 1);
		}
		return old;
	}

	nr = touching_span(m, first, last, &pos);
	old = nr ? m->v[pos].entry : NULL;
	if (info) {
		info->replaced = nr;
		info->defined = nr == 0;
	}
	e.first = first;
	e.order = order;
	e.marks = 0;
	e.entry = entry;
	for (i = 0; i < nr; i++)
		e.marks |= m->v[pos + i].marks;
	remove_span(m, pos, nr);
	if (entry)
		insert_at(m, pos, &e);
	return old;
}

void *xa_model_store(struct xa_model *m, unsigned long index, void *entry)
{
	if (!entry && m->track_free)
		entry = XA_ZERO_ENTRY;
	return xa_model_zero_to_null(xa_model_store_order(m, index, 0, entry,
							  NULL));
}

void *xa_model_erase(struct xa_model *m, unsigned long index)
{
	return xa_model_zero_to_null(xa_model_store_order(m, index, 0, NULL,
							  NULL));
}

int xa_model_insert(struct xa_model *m, unsigned long index, void *entry)
{
	if (xa_model_lookup(m, index))
		return -EBUSY;
	xa_model_store_order(m, index, 0, entry ? entry : XA_ZERO_ENTRY, NULL);
	return 0;
}

void *xa_model_cmpxchg(struct xa_model *m, unsigned long index, void *old,
		       void *entry)
{
	void *curr = xa_model_load_raw(m, index);

	if (curr == old)
		xa_model_store_order(m, index, 0, entry, NULL);
	return xa_model_zero_to_null(curr);
}

unsigned int xa_model_range_piece(unsigned long first, unsigned long last)
{
	unsigned int order = first ? (unsigned int)__builtin_ctzl(first) :
		BITS_PER_LONG;

	/* Shrink until the piece ends at or before @last. */
	while (order > 0 && xa_model_range_last(first, order) > last)
		order--;
	return order;
}

void xa_model_store_range(struct xa_model *m, unsigned long first,
			  unsigned long last, void *entry)
{
	for (;;) {
		unsigned int order = xa_model_range_piece(first, last);
		unsigned long end = xa_model_range_last(first, order);

		xa_model_store_order(m, first, order, entry, NULL);
		if (end >= last)
			break;
		first = end + 1;
	}
}

/* split_check() - The entry to split at @index, or NULL if invalid. */
static struct xa_model_entry *split_check(struct xa_model *m,
					  unsigned long index,
					  unsigned int new_order)
{
	struct xa_model_entry *e = xa_model_lookup(m, index);

	if (!e || e->order <= new_order)
		return NULL;
	return e;
}

int xa_model_split(struct xa_model *m, unsigned long index,
		   unsigned int new_order, void *entry)
{
	struct xa_model_entry *e = split_check(m, index, new_order);
	struct xa_model_entry old, piece;
	unsigned long nr, i;
	size_t pos;

	if (!e)
		return -EINVAL;
	old = *e;
	pos = (size_t)(e - m->v);
	nr = 1UL << (old.order - new_order);
	remove_span(m, pos, 1);
	reserve_room(m, nr);
	for (i = 0; i < nr; i++) {
		piece.first = old.first + (i << new_order);
		piece.order = new_order;
		piece.marks = old.marks;
		piece.entry = entry;
		insert_at(m, pos + i, &piece);
	}
	return 0;
}

int xa_model_try_split(struct xa_model *m, unsigned long index,
		       unsigned int new_order, unsigned int order,
		       void *entry)
{
	struct xa_model_entry *e = split_check(m, index, new_order);
	struct xa_model_entry old, piece;
	unsigned long lo;
	unsigned int k;

	if (!e || e->order != order)
		return -EINVAL;
	old = *e;
	xa_model_store_order(m, old.first, old.order, NULL, NULL);
	piece.marks = old.marks;
	piece.entry = entry;
	/* Halve the block holding @index; the other half is one piece. */
	lo = old.first;
	for (k = old.order; k > new_order; k--) {
		unsigned long half = 1UL << (k - 1);

		piece.order = k - 1;
		if (index - lo >= half) {
			piece.first = lo;
			lo += half;
		} else {
			piece.first = lo + half;
		}
		xa_model_store_order(m, piece.first, piece.order, entry, NULL);
		xa_model_lookup(m, piece.first)->marks = old.marks;
	}
	xa_model_store_order(m, lo, new_order, entry, NULL);
	xa_model_lookup(m, lo)->marks = old.marks;
	return 0;
}

bool xa_model_get_mark(const struct xa_model *m, unsigned long index,
		       xa_mark_t mark)
{
	struct xa_model_entry *e = xa_model_lookup(m, index);

	return e && mark <= XA_MARK_MAX && (e->marks & (1U << mark));
}

void xa_model_set_mark(struct xa_model *m, unsigned long index,
		       xa_mark_t mark)
{
	struct xa_model_entry *e = xa_model_lookup(m, index);

	if (e && mark <= XA_MARK_MAX)
		e->marks |= 1U << mark;
}

void xa_model_clear_mark(struct xa_model *m, unsigned long index,
			 xa_mark_t mark)
{
	struct xa_model_entry *e = xa_model_lookup(m, index);

	if (e && mark <= XA_MARK_MAX)
		e->marks &= ~(1U << mark);
}

bool xa_model_marked(const struct xa_model *m, xa_mark_t mark)
{
	size_t i;

	if (mark > XA_MARK_MAX)
		return false;
	for (i = 0; i < m->nr; i++)
		if (m->v[i].marks & (1U << mark))
			return true;
	return false;
}

const struct xa_model_entry *xa_model_find(const struct xa_model *m,
					   unsigned long *indexp,
					   unsigned long max, xa_mark_t filter,
					   bool skip_zero)
{
	unsigned long start = *indexp;
	struct xa_model_entry *e;
	size_t pos;

	if (start > max)
		return NULL;
	e = xa_model_lookup(m, start);
	if (e && xa_model_matches(e, filter, skip_zero))
		return e;
	for (pos = upper_bound(m, start); pos < m->nr; pos++) {
		e = &m->v[pos];
		if (e->first > max)
			return NULL;
		if (xa_model_matches(e, filter, skip_zero)) {
			*indexp = e->first;
			return e;
		}
	}
	return NULL;
}

const struct xa_model_entry *xa_model_find_after(const struct xa_model *m,
						 unsigned long *indexp,
						 unsigned long max,
						 xa_mark_t filter)
{
	size_t pos;

	if (*indexp == ULONG_MAX)
		return NULL;
	for (pos = upper_bound(m, *indexp); pos < m->nr; pos++) {
		struct xa_model_entry *e = &m->v[pos];

		if (e->first > max)
			return NULL;
		if (xa_model_matches(e, filter, true)) {
			*indexp = e->first;
			return e;
		}
	}
	return NULL;
}

unsigned int xa_model_extract(const struct xa_model *m, void **dst,
			      unsigned long start, unsigned long max,
			      unsigned int n, xa_mark_t filter)
{
	const struct xa_model_entry *e;
	unsigned long index = start;
	unsigned int nr = 0;

	if (!n)
		return 0;
	e = xa_model_find(m, &index, max, filter, true);
	while (e) {
		dst[nr++] = e->entry;
		if (nr == n)
			break;
		e = xa_model_find_after(m, &index, max, filter);
	}
	return nr;
}

/* lowest_free() - Lowest index in [min, max] no entry covers, or -1. */
static bool lowest_free(const struct xa_model *m, unsigned long min,
			unsigned long max, unsigned long *out)
{
	unsigned long index = min;

	if (m->zero_busy && index == 0)
		index = 1;
	while (index <= max) {
		struct xa_model_entry *e = xa_model_lookup(m, index);

		if (!e) {
			*out = index;
			return true;
		}
		if (xa_model_last(e) >= max)
			return false;
		index = xa_model_last(e) + 1;
	}
	return false;
}

int xa_model_alloc(struct xa_model *m, uint32_t *id, void *entry,
		   struct xa_limit limit)
{
	unsigned long index;

	if (limit.min > limit.max ||
	    !lowest_free(m, limit.min, limit.max, &index))
		return -EBUSY;
	xa_model_store_order(m, index, 0, entry ? entry : XA_ZERO_ENTRY, NULL);
	*id = (uint32_t)index;
	return 0;
}

int xa_model_alloc_cyclic(struct xa_model *m, uint32_t *id, void *entry,
			  struct xa_limit limit, uint32_t *next)
{
	uint32_t min = limit.min;
	int ret;

	if (*next > limit.min)
		limit.min = *next;
	ret = xa_model_alloc(m, id, entry, limit);
	if (m->wrapped && ret == 0) {
		m->wrapped = false;
		ret = 1;
	}
	if (ret == -EBUSY && limit.min > min) {
		limit.min = min;
		ret = xa_model_alloc(m, id, entry, limit);
		if (ret == 0)
			ret = 1;
	}
	if (ret >= 0) {
		*next = *id + 1;
		if (*next == 0)
			m->wrapped = true;
	}
	return ret;
}
