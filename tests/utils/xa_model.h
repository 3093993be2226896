/* SPDX-License-Identifier: MIT */
/*
 * tests/utils/xa_model.h - a plain reference model of the XArray.
 *
 * This file owns the model: what the XArray promises
 * (include/upcache/xarray.h and the implementation contract), written the
 * slow and obvious way.  The model is a sorted array of disjoint entries,
 * each covering 2^order aligned indices, with its value and its three
 * marks.  No tree, no slots, no siblings: a test that agrees with the
 * model agrees with the documented semantics, not with the
 * implementation's structure.  tests/utils/xa_harness.h drives a model and
 * a real XArray with the same operations and compares them.
 *
 * Semantics modelled:
 *  - A store of order N covers the aligned range [first, first + 2^N).  If
 *    one entry already covers first and is at least as large, the store
 *    replaces that entry's value and keeps its order and marks.
 *    Otherwise every entry inside the range is removed and the new entry
 *    carries the union of their marks (a store over nothing is unmarked).
 *  - Erasing (storing NULL) removes every entry the range touches, whole:
 *    erasing one index of a multi-index entry erases all of it.
 *  - Reserved indices hold XA_ZERO_ENTRY: present for insert, alloc,
 *    marks and the advanced API, NULL for load and the normal find API.
 *  - In an array that tracks free slots (XA_FLAGS_TRACK_FREE)
 *    xa_store(NULL) reserves, xa_alloc() finds the lowest index covered by
 *    no entry, and XA_MARK_0 is the free mark, which the model does not
 *    track (tests leave it alone).
 *
 * Conventions: @m is the model, @index an index, @order log2 of the
 * number of indices an entry covers (0..BITS_PER_LONG), @e a model entry.
 */
#ifndef UPCACHE_TESTS_UTILS_XA_MODEL_H
#define UPCACHE_TESTS_UTILS_XA_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <upcache/xarray.h>

/**
 * struct xa_model_entry - one present entry of the model.
 * @first: First index covered; aligned to 2^@order.
 * @order: The entry covers 2^@order indices (BITS_PER_LONG: all).
 * @marks: Bit m set if XA_MARK_m is set.
 * @entry: The stored entry; XA_ZERO_ENTRY for a reserved range.
 */
struct xa_model_entry {
	unsigned long first;
	unsigned int order;
	unsigned int marks;
	void *entry;
};

/**
 * struct xa_model - the whole model of one array.
 * @v: Entries sorted by @first, disjoint.
 * @nr: Number of entries in @v.
 * @cap: Allocated length of @v.
 * @track_free: XA_FLAGS_TRACK_FREE: xa_store(NULL) reserves.
 * @zero_busy: XA_FLAGS_ZERO_BUSY: xa_alloc() never returns index 0.
 * @wrapped: xa_alloc_cyclic() wrapped its next id past UINT32_MAX and
 *	has not reported it yet (the kernel's XA_FLAGS_ALLOC_WRAPPED).
 */
struct xa_model {
	struct xa_model_entry *v;
	size_t nr;
	size_t cap;
	bool track_free;
	bool zero_busy;
	bool wrapped;
};

/**
 * struct xa_model_store_info - what a store found in its range.
 * @replaced: Entries removed or updated.
 * @defined: The store's return value is defined by the API: the range
 *	was empty, or one entry at least as large as the store covered it.
 *	Otherwise (several entries, or a part of the range empty) the
 *	advanced API's xas_store() return value is not specified.
 */
struct xa_model_store_info {
	unsigned int replaced;
	bool defined;
};

/* xa_model_last() - Last index an entry covers. */
static inline unsigned long xa_model_last(const struct xa_model_entry *e)
{
	if (e->order >= BITS_PER_LONG)
		return ULONG_MAX;
	return e->first + ((1UL << e->order) - 1);
}

/* xa_model_align() - @index rounded down to a multiple of 2^@order. */
static inline unsigned long xa_model_align(unsigned long index,
					   unsigned int order)
{
	if (order >= BITS_PER_LONG)
		return 0;
	return (index >> order) << order;
}

/* xa_model_range_last() - Last index of the order-@order range at @first. */
static inline unsigned long xa_model_range_last(unsigned long first,
						unsigned int order)
{
	if (order >= BITS_PER_LONG)
		return ULONG_MAX;
	return first + ((1UL << order) - 1);
}

/* xa_model_zero_to_null() - What the normal API shows for @entry. */
static inline void *xa_model_zero_to_null(void *entry)
{
	return xa_is_zero(entry) ? NULL : entry;
}

/**
 * xa_model_init() - Start an empty model.
 * @m: Model.
 * @flags: The XA_FLAGS_* of the array it models.
 */
void xa_model_init(struct xa_model *m, gfp_t flags);

/* xa_model_fini() - Free the model's memory. */
void xa_model_fini(struct xa_model *m);

/* xa_model_clear() - Model xa_destroy(): remove every entry. */
void xa_model_clear(struct xa_model *m);

/* xa_model_copy() - Make @dst (uninitialised) a copy of @src. */
void xa_model_copy(struct xa_model *dst, const struct xa_model *src);

/**
 * xa_model_lookup() - The entry covering an index.
 * @m: Model.
 * @index: Index.
 *
 * Return: The entry (reserved ones included), or NULL.  Valid until the
 * next change to @m.
 */
struct xa_model_entry *xa_model_lookup(const struct xa_model *m,
				       unsigned long index);

/**
 * xa_model_next() - The first entry starting above an index.
 * @m: Model.
 * @index: Index.
 *
 * Return: The entry with the lowest first index above @index, or NULL.
 */
struct xa_model_entry *xa_model_next(const struct xa_model *m,
				     unsigned long index);

/**
 * xa_model_at() - The @i-th entry in index order.
 * @m: Model.
 * @i: Position, below @m->nr.
 *
 * Return: The entry.
 */
static inline struct xa_model_entry *xa_model_at(const struct xa_model *m,
						 size_t i)
{
	return &m->v[i];
}

/* xa_model_load_raw() - The entry at @index, XA_ZERO_ENTRY included. */
void *xa_model_load_raw(const struct xa_model *m, unsigned long index);

/* xa_model_load() - Model xa_load(): reserved entries read as NULL. */
void *xa_model_load(const struct xa_model *m, unsigned long index);

/* xa_model_get_order() - Model xa_get_order(): 0 when nothing is there. */
int xa_model_get_order(const struct xa_model *m, unsigned long index);

/**
 * xa_model_store_order() - Model xas_store() of an order-@order range.
 * @m: Model.
 * @index: Any index in the range to store.
 * @order: Order of the store, 0..BITS_PER_LONG.
 * @entry: New entry (NULL erases; XA_ZERO_ENTRY reserves).
 * @info: Out (may be NULL): what the store found.
 *
 * Return: The entry covering the range's first index before the store,
 * raw (XA_ZERO_ENTRY is not turned into NULL), else the first entry in
 * the range, else NULL.
 */
void *xa_model_store_order(struct xa_model *m, unsigned long index,
			   unsigned int order, void *entry,
			   struct xa_model_store_info *info);

/**
 * xa_model_store() - Model xa_store().
 * @m: Model.
 * @index: Index.
 * @entry: Entry, not an internal entry other than XA_ZERO_ENTRY.
 *
 * Return: The old entry, XA_ZERO_ENTRY shown as NULL.
 */
void *xa_model_store(struct xa_model *m, unsigned long index, void *entry);

/* xa_model_erase() - Model xa_erase(); returns what xa_erase() returns. */
void *xa_model_erase(struct xa_model *m, unsigned long index);

/* xa_model_insert() - Model xa_insert(): 0 or -EBUSY. */
int xa_model_insert(struct xa_model *m, unsigned long index, void *entry);

/**
 * xa_model_cmpxchg() - Model xa_cmpxchg().
 * @m: Model.
 * @index: Index.
 * @old: Compared with the raw entry (a reserved index holds
 *	XA_ZERO_ENTRY, not NULL).
 * @entry: Stored if the comparison succeeds (NULL erases).
 *
 * Return: The entry that was there, XA_ZERO_ENTRY shown as NULL.
 */
void *xa_model_cmpxchg(struct xa_model *m, unsigned long index, void *old,
		       void *entry);

/**
 * xa_model_store_range() - Model xa_store_range() for first <= last.
 * @m: Model.
 * @first: First index.
 * @last: Last index.
 * @entry: Entry (NULL erases).
 *
 * The range is cut into the largest aligned power-of-two pieces, lowest
 * first, each stored as by xa_model_store_order().
 */
void xa_model_store_range(struct xa_model *m, unsigned long first,
			  unsigned long last, void *entry);

/**
 * xa_model_range_piece() - The next piece of a store_range.
 * @first: First index still to store.
 * @last: Last index of the range, at least @first.
 *
 * Return: The order of the largest aligned piece starting at @first that
 * ends at or before @last.
 */
unsigned int xa_model_range_piece(unsigned long first, unsigned long last);

/**
 * xa_model_split() - Model xas_split(): uniform split.
 * @m: Model.
 * @index: Any index of the entry to split.
 * @new_order: Order of every piece, below the entry's order.
 * @entry: Value every piece gets.
 *
 * Every piece keeps the old entry's marks.
 * Return: 0, or -EINVAL (model unchanged) if no entry covers @index or
 * its order is not above @new_order.
 */
int xa_model_split(struct xa_model *m, unsigned long index,
		   unsigned int new_order, void *entry);

/**
 * xa_model_try_split() - Model xas_try_split(): non-uniform split.
 * @m: Model.
 * @index: The index whose piece gets @new_order.
 * @new_order: Order of the piece containing @index.
 * @order: The order the caller says the entry has.
 * @entry: Value every piece gets.
 *
 * The rest of the old range becomes the largest aligned buddies: for each
 * order k from the old order - 1 down to @new_order, the half not holding
 * @index becomes one entry of order k.  All pieces keep the marks.
 *
 * Return: 0, or -EINVAL (model unchanged) if no entry covers @index, its
 * order is not @order, or @new_order is not below it.
 */
int xa_model_try_split(struct xa_model *m, unsigned long index,
		       unsigned int new_order, unsigned int order,
		       void *entry);

bool xa_model_get_mark(const struct xa_model *m, unsigned long index,
		       xa_mark_t mark);
void xa_model_set_mark(struct xa_model *m, unsigned long index,
		       xa_mark_t mark);
void xa_model_clear_mark(struct xa_model *m, unsigned long index,
			 xa_mark_t mark);

/* xa_model_marked() - Model xa_marked(): does any entry carry @mark? */
bool xa_model_marked(const struct xa_model *m, xa_mark_t mark);

/*
 * xa_model_matches() - Does @e pass @filter (a mark, or anything else
 * for "present")?  @skip_zero: reserved entries never match (normal API).
 */
static inline bool xa_model_matches(const struct xa_model_entry *e,
				    xa_mark_t filter, bool skip_zero)
{
	if (skip_zero && xa_is_zero(e->entry))
		return false;
	if (filter <= XA_MARK_MAX)
		return e->marks & (1U << filter);
	return true;
}

/**
 * xa_model_find() - Model xa_find().
 * @m: Model.
 * @indexp: In: first index; out: max(first index of the entry, *@indexp).
 * @max: Last index to consider.
 * @filter: XA_MARK_0..2, or anything else for "present".
 * @skip_zero: Skip reserved entries (the normal API does).
 *
 * Return: The entry found, or NULL (*@indexp unchanged).
 */
const struct xa_model_entry *xa_model_find(const struct xa_model *m,
					   unsigned long *indexp,
					   unsigned long max, xa_mark_t filter,
					   bool skip_zero);

/**
 * xa_model_find_after() - Model xa_find_after().
 * @m: Model.
 * @indexp: In: index to search after; out: first index of the entry.
 * @max: Last index to consider.
 * @filter: As xa_model_find().
 *
 * Return: The first matching entry starting above *@indexp (so never
 * the one containing it), or NULL.
 */
const struct xa_model_entry *xa_model_find_after(const struct xa_model *m,
						 unsigned long *indexp,
						 unsigned long max,
						 xa_mark_t filter);

/**
 * xa_model_extract() - Model xa_extract().
 * @m: Model.
 * @dst: Out: up to @n entries.
 * @start: First index.
 * @max: Last index.
 * @n: Room in @dst.
 * @filter: As xa_model_find().
 *
 * Return: Number of entries copied.
 */
unsigned int xa_model_extract(const struct xa_model *m, void **dst,
			      unsigned long start, unsigned long max,
			      unsigned int n, xa_mark_t filter);

/**
 * xa_model_alloc() - Model xa_alloc() on an allocating array.
 * @m: Model.
 * @id: Out: the index allocated.
 * @entry: Entry to store (NULL reserves).
 * @limit: Range of IDs.
 *
 * Return: 0, or -EBUSY if every index in @limit is taken.
 */
int xa_model_alloc(struct xa_model *m, uint32_t *id, void *entry,
		   struct xa_limit limit);

/**
 * xa_model_alloc_cyclic() - Model xa_alloc_cyclic().
 * @m: Model.
 * @id: Out: the index allocated.
 * @entry: Entry to store (NULL reserves).
 * @limit: Range of IDs.
 * @next: In/out: where the search starts; one past @id on success.
 *
 * Return: 0, 1 if the allocation wrapped, or -EBUSY.
 */
int xa_model_alloc_cyclic(struct xa_model *m, uint32_t *id, void *entry,
			  struct xa_limit limit, uint32_t *next);

#endif /* UPCACHE_TESTS_UTILS_XA_MODEL_H */
