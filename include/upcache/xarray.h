/* SPDX-License-Identifier: MIT */
/*
 * upcache/xarray.h - the XArray: a sparse array of pointers, in userspace.
 *
 * Source-compatible with the Linux kernel's documented XArray API
 * (Documentation/core-api/xarray.rst): the same names, macros, argument
 * order, return conventions and entry encoding, so code written against
 * the kernel's XArray compiles here unchanged.  docs/xarray.md describes
 * where upcache differs (bad input returns errors instead of BUG()).
 *
 * The header is ordered by audience: the normal API, then the advanced
 * API (struct xa_state and the xas_ functions), then private helpers.
 *
 * Entry encoding.  A slot is one machine word whose two low bits say what
 * it holds:
 *
 *	...00	a pointer to a user object (4-byte aligned), or NULL
 *	...x1	a value entry: an integer v stored as (v << 1) | 1
 *	...10	an internal entry: (v << 2) | 2, never seen through the
 *		normal API.  0..62 are sibling entries (the canonical slot
 *		of a multi-index entry), 256 is the retry entry, 257 the
 *		zero entry of a reserved slot, -4094..-1 are errors, and
 *		anything above 4096 is a pointer to a child node.
 */
#ifndef UPCACHE_XARRAY_H
#define UPCACHE_XARRAY_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lock.h"
#include "rcu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Allocation flags                                                    */
/* ------------------------------------------------------------------ */

/**
 * typedef gfp_t - how an allocation may behave.
 *
 * GFP_KERNEL may block (and, in the page cache, reclaim).  GFP_NOWAIT
 * never blocks and may fail; the XArray uses it under its lock and falls
 * back to xas_nomem() outside it.  The other flags are accepted for
 * source compatibility.
 */
typedef unsigned int gfp_t;

#define __GFP_NOWAIT_BIT	0x01u	/* private: never block */
#define __GFP_NOWARN		0x02u
#define __GFP_ZERO		0x04u
#define __GFP_ACCOUNT		0x08u
#define __GFP_NOFAIL		0x10u
#define __GFP_BITS		5	/* private: flag bits used above */

#define GFP_KERNEL		0x00u
#define GFP_NOFS		GFP_KERNEL
#define GFP_NOIO		GFP_KERNEL
#define GFP_USER		GFP_KERNEL
#define GFP_HIGHUSER		GFP_KERNEL
#define GFP_NOWAIT		__GFP_NOWAIT_BIT
#define GFP_ATOMIC		(__GFP_NOWAIT_BIT | __GFP_NOWARN)

/* ------------------------------------------------------------------ */
/* Entries                                                             */
/* ------------------------------------------------------------------ */

#define BITS_PER_LONG		(sizeof(long) * CHAR_BIT)

/**
 * xa_mk_value() - Create an XArray entry from an integer.
 * @v: Value to store, at most LONG_MAX.
 *
 * Return: An entry suitable for storing in the XArray.
 */
static inline void *xa_mk_value(unsigned long v)
{
	return (void *)((v << 1) | 1);
}

/**
 * xa_to_value() - Get the value stored in an XArray entry.
 * @entry: A value entry.
 *
 * Return: The value stored in @entry.
 */
static inline unsigned long xa_to_value(const void *entry)
{
	return (unsigned long)entry >> 1;
}

/**
 * xa_is_value() - Is @entry a value entry?
 * @entry: XArray entry.
 *
 * Return: true if @entry was made by xa_mk_value().
 */
static inline bool xa_is_value(const void *entry)
{
	return (unsigned long)entry & 1;
}

/**
 * xa_tag_pointer() - Create an XArray entry for a tagged pointer.
 * @p: Plain pointer, 4-byte aligned.
 * @tag: Tag value (0, 1 or 3).
 *
 * Return: An entry carrying @tag in its low bits.
 */
static inline void *xa_tag_pointer(void *p, unsigned long tag)
{
	return (void *)((unsigned long)p | tag);
}

/**
 * xa_untag_pointer() - Turn an XArray entry into a plain pointer.
 * @entry: XArray entry made by xa_tag_pointer().
 *
 * Return: The pointer without its tag.
 */
static inline void *xa_untag_pointer(void *entry)
{
	return (void *)((unsigned long)entry & ~3UL);
}

/**
 * xa_pointer_tag() - Get the tag stored in an XArray entry.
 * @entry: XArray entry made by xa_tag_pointer().
 *
 * Return: The tag.
 */
static inline unsigned int xa_pointer_tag(void *entry)
{
	return (unsigned long)entry & 3UL;
}

/*
 * xa_mk_internal() - Make an internal entry (private to the XArray and
 * the advanced API).
 */
static inline void *xa_mk_internal(unsigned long v)
{
	return (void *)((v << 2) | 2);
}

/* xa_to_internal() - The number packed in an internal entry. */
static inline unsigned long xa_to_internal(const void *entry)
{
	return (unsigned long)entry >> 2;
}

/* xa_is_internal() - Is @entry an internal entry? */
static inline bool xa_is_internal(const void *entry)
{
	return ((unsigned long)entry & 3) == 2;
}

#define XA_ZERO_ENTRY		xa_mk_internal(257)
#define XA_RETRY_ENTRY		xa_mk_internal(256)

/**
 * xa_is_zero() - Is @entry the zero entry of a reserved slot?
 * @entry: Entry retrieved through the advanced API.
 *
 * Return: true if @entry is XA_ZERO_ENTRY.
 */
static inline bool xa_is_zero(const void *entry)
{
	return entry == XA_ZERO_ENTRY;
}

/**
 * xa_is_err() - Report whether an XArray operation returned an error.
 * @entry: Result from calling an XArray function.
 *
 * Return: true if @entry encodes an errno.
 */
static inline bool xa_is_err(const void *entry)
{
	return xa_is_internal(entry) &&
		(unsigned long)entry >= (unsigned long)xa_mk_internal(-4095L);
}

/**
 * xa_err() - Turn an XArray result into an errno.
 * @entry: Result from calling an XArray function.
 *
 * Return: 0 if @entry is not an error, else the negative errno it encodes.
 */
static inline int xa_err(void *entry)
{
	if (xa_is_err(entry))
		return (int)((long)entry >> 2);
	return 0;
}

/*
 * xa_is_advanced() - Is @entry one of the internal entries only the
 * advanced API may see (siblings, the retry entry)?  The zero entry of a
 * reserved slot is not: xa_reserve() stores it through the normal API.
 */
static inline bool xa_is_advanced(const void *entry)
{
	return xa_is_internal(entry) &&
		(unsigned long)entry <= (unsigned long)xa_mk_internal(256);
}

/**
 * struct xa_limit - Represents a range of IDs.
 * @max: The maximum ID to allocate (inclusive).
 * @min: The lowest ID to allocate (inclusive).
 */
struct xa_limit {
	uint32_t max;
	uint32_t min;
};

#define XA_LIMIT(_min, _max) ((struct xa_limit) { .max = (_max), .min = (_min) })
#define xa_limit_32b	XA_LIMIT(0, UINT32_MAX)
#define xa_limit_31b	XA_LIMIT(0, INT32_MAX)
#define xa_limit_16b	XA_LIMIT(0, UINT16_MAX)

/**
 * typedef xa_mark_t - one of the three per-entry mark bits, or XA_PRESENT.
 */
typedef unsigned int xa_mark_t;
#define XA_MARK_0		0U
#define XA_MARK_1		1U
#define XA_MARK_2		2U
#define XA_PRESENT		8U
#define XA_MARK_MAX		XA_MARK_2
#define XA_FREE_MARK		XA_MARK_0

/* Flags of struct xarray (xa_flags). */
#define XA_FLAGS_LOCK_IRQ	(1U << (__GFP_BITS + 0))
#define XA_FLAGS_LOCK_BH	(1U << (__GFP_BITS + 1))
#define XA_FLAGS_TRACK_FREE	(1U << (__GFP_BITS + 2))
#define XA_FLAGS_ZERO_BUSY	(1U << (__GFP_BITS + 3))
#define XA_FLAGS_ALLOC_WRAPPED	(1U << (__GFP_BITS + 4))
#define XA_FLAGS_ACCOUNT	(1U << (__GFP_BITS + 5))
#define XA_FLAGS_MARK(mark)	(1U << (__GFP_BITS + 6 + (mark)))
#define XA_FLAGS_ALLOC	(XA_FLAGS_TRACK_FREE | XA_FLAGS_MARK(XA_FREE_MARK))
#define XA_FLAGS_ALLOC1	(XA_FLAGS_TRACK_FREE | XA_FLAGS_ZERO_BUSY)

/**
 * struct xarray - The anchor of the XArray.
 * @xa_lock: Lock that protects the contents of the XArray.
 *
 * Initialise with xa_init(), xa_init_flags() or one of the DEFINE_XARRAY
 * macros.  Only @xa_lock may be used directly; the other fields belong
 * to the XArray.
 */
struct xarray {
	upc_lock_t xa_lock;
	/* private: the rest of the struct is for use by the XArray. */
	gfp_t xa_flags;
	void *xa_head;
};

#define XARRAY_INIT(name, flags) {				\
	.xa_lock = UPC_LOCK_INIT,				\
	.xa_flags = (flags),					\
	.xa_head = NULL,					\
}

#define DEFINE_XARRAY_FLAGS(name, flags)			\
	struct xarray name = XARRAY_INIT(name, flags)
#define DEFINE_XARRAY(name)	DEFINE_XARRAY_FLAGS(name, 0)
#define DEFINE_XARRAY_ALLOC(name) DEFINE_XARRAY_FLAGS(name, XA_FLAGS_ALLOC)
#define DEFINE_XARRAY_ALLOC1(name) DEFINE_XARRAY_FLAGS(name, XA_FLAGS_ALLOC1)

/* ------------------------------------------------------------------ */
/* The normal API                                                      */
/* ------------------------------------------------------------------ */

/**
 * xa_load() - Load an entry from an XArray.
 * @xa: XArray.
 * @index: index into array.
 *
 * Context: Any context.  Takes and releases the RCU read lock.
 * Return: The entry at @index in @xa, or NULL.
 */
void *xa_load(struct xarray *xa, unsigned long index);

/**
 * xa_store() - Store this entry in the XArray.
 * @xa: XArray.
 * @index: Index into array.
 * @entry: New entry.
 * @gfp: Memory allocation flags.
 *
 * After this function returns, loads from this index will return @entry.
 * Storing into an existing multi-index entry updates the entry of every
 * index.  Storing NULL erases the entry (but see xa_reserve()).
 *
 * Context: Any context.  Takes and releases the xa_lock.  May drop it to
 * allocate memory if @gfp allows.
 * Return: The old entry at this index, or xa_err(-EINVAL) if @entry
 * cannot be stored in an XArray (an internal entry), or xa_err(-ENOMEM)
 * if memory allocation failed.
 */
void *xa_store(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp);

/**
 * xa_erase() - Erase this entry from the XArray.
 * @xa: XArray.
 * @index: Index of entry.
 *
 * After this function returns, loading from @index will return NULL.  If
 * the index is part of a multi-index entry, all indices are erased.
 *
 * Context: Any context.  Takes and releases the xa_lock.
 * Return: The entry which used to be at this index.
 */
void *xa_erase(struct xarray *xa, unsigned long index);

/**
 * xa_store_range() - Store this entry at a range of indices.
 * @xa: XArray.
 * @first: First index to affect.
 * @last: Last index to affect.
 * @entry: New entry.
 * @gfp: Memory allocation flags.
 *
 * After this function returns, loads from any index between @first and
 * @last, inclusive, return @entry; the range is covered by the fewest
 * aligned multi-index entries.  Storing NULL erases the range.
 *
 * Context: Process context.  Takes and releases the xa_lock.  May sleep
 * if @gfp allows.
 * Return: NULL on success, xa_err(-EINVAL) if @first > @last or @entry
 * is internal, xa_err(-ENOMEM) if memory allocation failed (the range is
 * then left partly stored).
 */
void *xa_store_range(struct xarray *xa, unsigned long first,
		     unsigned long last, void *entry, gfp_t gfp);

/**
 * xa_get_order() - Get the order of an entry.
 * @xa: XArray.
 * @index: An index of the entry.
 *
 * Return: A number between 0 and 63 (or BITS_PER_LONG for an entry that
 * covers every index) giving the order of the entry; 0 if there is none.
 */
int xa_get_order(struct xarray *xa, unsigned long index);

/**
 * xa_get_mark() - Inquire whether this mark is set on this entry.
 * @xa: XArray.
 * @index: Index of entry.
 * @mark: Mark number.
 *
 * Context: Any context.  Takes and releases the RCU lock.
 * Return: true if the entry at @index has this mark set, false if not
 * (including for an invalid @mark).
 */
bool xa_get_mark(struct xarray *xa, unsigned long index, xa_mark_t mark);

/**
 * xa_set_mark() - Set this mark on this entry.
 * @xa: XArray.
 * @index: Index of entry.
 * @mark: Mark number.
 *
 * Attempting to set a mark on a NULL entry, or an invalid mark, does not
 * succeed.
 *
 * Context: Process context.  Takes and releases the xa_lock.
 */
void xa_set_mark(struct xarray *xa, unsigned long index, xa_mark_t mark);

/**
 * xa_clear_mark() - Clear this mark on this entry.
 * @xa: XArray.
 * @index: Index of entry.
 * @mark: Mark number.
 *
 * Clearing a mark always succeeds.
 *
 * Context: Process context.  Takes and releases the xa_lock.
 */
void xa_clear_mark(struct xarray *xa, unsigned long index, xa_mark_t mark);

/**
 * xa_find() - Search the XArray for an entry.
 * @xa: XArray.
 * @indexp: Pointer to an index.
 * @max: Maximum index to search to.
 * @filter: Selection criterion: a mark, or XA_PRESENT.
 *
 * Finds the entry in @xa which matches the @filter, and has the lowest
 * index that is at least @indexp and no more than @max.  If an entry is
 * found, @indexp is updated to the index of the entry (for a multi-index
 * entry, to its first index if that is at least the start).
 *
 * Context: Any context.  Takes and releases the RCU lock.
 * Return: The entry, if found, otherwise NULL.
 */
void *xa_find(struct xarray *xa, unsigned long *indexp,
	      unsigned long max, xa_mark_t filter);

/**
 * xa_find_after() - Search the XArray for a present entry.
 * @xa: XArray.
 * @indexp: Pointer to an index.
 * @max: Maximum index to search to.
 * @filter: Selection criterion.
 *
 * Finds the entry in @xa which matches the @filter and has the lowest
 * index that is above @indexp and no more than @max; a multi-index entry
 * that contains @indexp is skipped whole.
 *
 * Context: Any context.  Takes and releases the RCU lock.
 * Return: The pointer, if found, otherwise NULL.
 */
void *xa_find_after(struct xarray *xa, unsigned long *indexp,
		    unsigned long max, xa_mark_t filter);

/**
 * xa_extract() - Copy selected entries from the XArray into a normal array.
 * @xa: The source XArray to copy from.
 * @dst: The buffer to copy entries into.
 * @start: The first index in the XArray eligible to be selected.
 * @max: The last index in the XArray eligible to be selected.
 * @n: The maximum number of entries to copy.
 * @filter: Selection criterion.
 *
 * Context: Any context.  Takes and releases the RCU lock.
 * Return: The number of entries copied.
 */
unsigned int xa_extract(struct xarray *xa, void **dst, unsigned long start,
			unsigned long max, unsigned int n, xa_mark_t filter);

/**
 * xa_destroy() - Free all internal data structures.
 * @xa: XArray.
 *
 * After calling this function, the XArray is empty and has freed all
 * memory allocated for its internal data structures.  The caller frees
 * the objects the entries point to.
 *
 * Context: Any context.  Takes and releases the xa_lock.
 */
void xa_destroy(struct xarray *xa);

/**
 * xa_init_flags() - Initialise an empty XArray with flags.
 * @xa: XArray.
 * @flags: XA_FLAGS values.
 */
static inline void xa_init_flags(struct xarray *xa, gfp_t flags)
{
	upc_lock_init(&xa->xa_lock);
	xa->xa_flags = flags;
	xa->xa_head = NULL;
}

/**
 * xa_init() - Initialise an empty XArray.
 * @xa: XArray.
 */
static inline void xa_init(struct xarray *xa)
{
	xa_init_flags(xa, 0);
}

/**
 * xa_empty() - Determine if an array has any present entries.
 * @xa: XArray.
 *
 * Context: Any context.
 * Return: true if the array contains only NULL pointers.
 */
static inline bool xa_empty(const struct xarray *xa)
{
	return __atomic_load_n(&xa->xa_head, __ATOMIC_RELAXED) == NULL;
}

/**
 * xa_marked() - Inquire whether any entry in this array has a mark set.
 * @xa: Array.
 * @mark: Mark value.
 *
 * Context: Any context.
 * Return: true if any entry has this mark set.
 */
static inline bool xa_marked(const struct xarray *xa, xa_mark_t mark)
{
	return mark <= XA_MARK_MAX &&
		(__atomic_load_n(&xa->xa_flags, __ATOMIC_RELAXED) &
		 XA_FLAGS_MARK(mark));
}

/**
 * xa_for_each_range() - Iterate over a portion of an XArray.
 * @xa: XArray.
 * @index: Index of @entry.
 * @entry: Entry retrieved from array.
 * @start: First index to retrieve from array.
 * @last: Last index to retrieve from array.
 *
 * Each iteration resumes from the cursor position instead of walking
 * from the root when it can (see docs/xarray.md).  The loop may be
 * exited with break; the RCU lock is not held by the caller inside it.
 */
#define xa_for_each_range(xa, index, entry, start, last)		\
	for (index = start,						\
	     entry = xa_find(xa, &index, last, XA_PRESENT);		\
	     entry;							\
	     entry = xa_find_after(xa, &index, last, XA_PRESENT))

/**
 * xa_for_each_start() - Iterate over a portion of an XArray.
 * @xa: XArray.
 * @index: Index of @entry.
 * @entry: Entry retrieved from array.
 * @start: First index to retrieve from array.
 */
#define xa_for_each_start(xa, index, entry, start) \
	xa_for_each_range(xa, index, entry, start, ULONG_MAX)

/**
 * xa_for_each() - Iterate over present entries in an XArray.
 * @xa: XArray.
 * @index: Index of @entry.
 * @entry: Entry retrieved from array.
 */
#define xa_for_each(xa, index, entry) \
	xa_for_each_start(xa, index, entry, 0)

/**
 * xa_for_each_marked() - Iterate over marked entries in an XArray.
 * @xa: XArray.
 * @index: Index of @entry.
 * @entry: Entry retrieved from array.
 * @filter: Selection criterion.
 */
#define xa_for_each_marked(xa, index, entry, filter)			\
	for (index = 0, entry = xa_find(xa, &index, ULONG_MAX, filter);	\
	     entry; entry = xa_find_after(xa, &index, ULONG_MAX, filter))

#define xa_trylock(xa)		upc_trylock(&(xa)->xa_lock)
#define xa_lock(xa)		upc_lock(&(xa)->xa_lock)
#define xa_unlock(xa)		upc_unlock(&(xa)->xa_lock)
#define xa_lock_bh(xa)		xa_lock(xa)
#define xa_unlock_bh(xa)	xa_unlock(xa)
#define xa_lock_irq(xa)		xa_lock(xa)
#define xa_unlock_irq(xa)	xa_unlock(xa)
#define xa_lock_irqsave(xa, flags) \
	do { (flags) = 0; xa_lock(xa); } while (0)
#define xa_unlock_irqrestore(xa, flags) \
	do { (void)(flags); xa_unlock(xa); } while (0)
#define xa_lock_nested(xa, subclass)	xa_lock(xa)
#define xa_lock_bh_nested(xa, subclass)	xa_lock(xa)
#define xa_lock_irq_nested(xa, subclass) xa_lock(xa)

/*
 * The __xa_ variants expect the xa_lock to be held by the caller.  They
 * may drop it (and retake it) to allocate memory when @gfp allows
 * blocking, exactly as in the kernel.
 */

/**
 * __xa_erase() - Erase this entry from the XArray while locked.
 * @xa: XArray.
 * @index: Index into array.
 *
 * Context: Any context.  Expects xa_lock to be held on entry.
 * Return: The entry which used to be at this index.
 */
void *__xa_erase(struct xarray *xa, unsigned long index);

/**
 * __xa_store() - Store this entry in the XArray.
 * @xa: XArray.
 * @index: Index into array.
 * @entry: New entry.
 * @gfp: Memory allocation flags.
 *
 * Context: Any context.  Expects xa_lock to be held on entry.  May
 * release and reacquire xa_lock if @gfp flags permit.
 * Return: The old entry at this index or xa_err(-EINVAL) for an internal
 * @entry, xa_err(-ENOMEM) if memory allocation failed.
 */
void *__xa_store(struct xarray *xa, unsigned long index, void *entry,
		 gfp_t gfp);

/**
 * __xa_cmpxchg() - Conditionally replace an entry while locked.
 * @xa: XArray.
 * @index: Index into array.
 * @old: Old value to test against.
 * @entry: New entry.
 * @gfp: Memory allocation flags.
 *
 * Context: Any context.  Expects xa_lock to be held on entry.  May
 * release and reacquire xa_lock if @gfp flags permit.
 * Return: The old entry at this index or xa_err() if an error happened.
 */
void *__xa_cmpxchg(struct xarray *xa, unsigned long index, void *old,
		   void *entry, gfp_t gfp);

/**
 * __xa_insert() - Store this entry in the XArray if no entry is present.
 * @xa: XArray.
 * @index: Index into array.
 * @entry: New entry.
 * @gfp: Memory allocation flags.
 *
 * Inserting a NULL entry reserves the index.
 *
 * Context: Any context.  Expects xa_lock to be held on entry.  May
 * release and reacquire xa_lock if @gfp flags permit.
 * Return: 0 if the store succeeded.  -EBUSY if another entry was present
 * (a reserved slot counts as present), -EINVAL for an internal @entry,
 * -ENOMEM if memory could not be allocated.
 */
int __xa_insert(struct xarray *xa, unsigned long index, void *entry,
		gfp_t gfp);

/**
 * __xa_alloc() - Find somewhere to store this entry in the XArray.
 * @xa: XArray.
 * @id: Pointer to ID.
 * @entry: New entry.
 * @limit: Range for allocated ID.
 * @gfp: Memory allocation flags.
 *
 * Finds an empty entry in @xa between @limit.min and @limit.max, stores
 * the index into the @id pointer, then stores the entry at that index.
 * A concurrent lookup will not see an uninitialised @id.
 *
 * Context: Any context.  Expects xa_lock to be held on entry.  May
 * release and reacquire xa_lock if @gfp flags permit.
 * Return: 0 on success, -ENOMEM if memory could not be allocated, -EBUSY
 * if there are no free entries in @limit, -EINVAL if @xa was not created
 * with XA_FLAGS_ALLOC or @entry is internal.
 */
int __xa_alloc(struct xarray *xa, uint32_t *id, void *entry,
	       struct xa_limit limit, gfp_t gfp);

/**
 * __xa_alloc_cyclic() - Find somewhere to store this entry in the XArray.
 * @xa: XArray.
 * @id: Pointer to ID.
 * @entry: New entry.
 * @limit: Range of allocated ID.
 * @next: Pointer to next ID to allocate.
 * @gfp: Memory allocation flags.
 *
 * Searches from *@next; if that finds nothing, wraps to @limit.min.
 *
 * Context: Any context.  Expects xa_lock to be held on entry.  May
 * release and reacquire xa_lock if @gfp flags permit.
 * Return: 0 if the allocation succeeded without wrapping, 1 if it
 * succeeded after wrapping, -ENOMEM if memory could not be allocated,
 * -EBUSY if there are no free entries in @limit, -EINVAL as __xa_alloc().
 */
int __xa_alloc_cyclic(struct xarray *xa, uint32_t *id, void *entry,
		      struct xa_limit limit, uint32_t *next, gfp_t gfp);

/**
 * __xa_set_mark() - Set this mark on this entry while locked.
 * @xa: XArray.
 * @index: Index of entry.
 * @mark: Mark number.
 *
 * Context: Any context.  Expects xa_lock to be held on entry.
 */
void __xa_set_mark(struct xarray *xa, unsigned long index, xa_mark_t mark);

/**
 * __xa_clear_mark() - Clear this mark on this entry while locked.
 * @xa: XArray.
 * @index: Index of entry.
 * @mark: Mark number.
 *
 * Context: Any context.  Expects xa_lock to be held on entry.
 */
void __xa_clear_mark(struct xarray *xa, unsigned long index, xa_mark_t mark);

/**
 * xa_store_bh() - Store this entry in the XArray (bh spelling).
 * @xa: XArray.
 * @index: Index into array.
 * @entry: New entry.
 * @gfp: Memory allocation flags.
 *
 * Return: As xa_store().
 */
static inline void *xa_store_bh(struct xarray *xa, unsigned long index,
				void *entry, gfp_t gfp)
{
	return xa_store(xa, index, entry, gfp);
}

/**
 * xa_store_irq() - Store this entry in the XArray (irq spelling).
 * @xa: XArray.
 * @index: Index into array.
 * @entry: New entry.
 * @gfp: Memory allocation flags.
 *
 * Return: As xa_store().
 */
static inline void *xa_store_irq(struct xarray *xa, unsigned long index,
				 void *entry, gfp_t gfp)
{
	return xa_store(xa, index, entry, gfp);
}

/**
 * xa_erase_bh() - Erase this entry from the XArray (bh spelling).
 * @xa: XArray.
 * @index: Index of entry.
 *
 * Return: As xa_erase().
 */
static inline void *xa_erase_bh(struct xarray *xa, unsigned long index)
{
	return xa_erase(xa, index);
}

/**
 * xa_erase_irq() - Erase this entry from the XArray (irq spelling).
 * @xa: XArray.
 * @index: Index of entry.
 *
 * Return: As xa_erase().
 */
static inline void *xa_erase_irq(struct xarray *xa, unsigned long index)
{
	return xa_erase(xa, index);
}

/**
 * xa_cmpxchg() - Conditionally replace an entry in the XArray.
 * @xa: XArray.
 * @index: Index into array.
 * @old: Old value to test against.
 * @entry: New value to place in array.
 * @gfp: Memory allocation flags.
 *
 * If the entry at @index is the same as @old, replace it with @entry.
 * If the return value is equal to @old, then the exchange was successful.
 *
 * Context: Any context.  Takes and releases the xa_lock.  May sleep if
 * the @gfp flags permit.
 * Return: The old value at this index or xa_err() if an error happened.
 */
static inline void *xa_cmpxchg(struct xarray *xa, unsigned long index,
			       void *old, void *entry, gfp_t gfp)
{
	void *curr;

	xa_lock(xa);
	curr = __xa_cmpxchg(xa, index, old, entry, gfp);
	xa_unlock(xa);
	return curr;
}

/**
 * xa_insert() - Store this entry in the XArray unless another entry is
 * already present.
 * @xa: XArray.
 * @index: Index into array.
 * @entry: New entry.
 * @gfp: Memory allocation flags.
 *
 * Inserting a NULL entry reserves the index.
 *
 * Context: Any context.  Takes and releases the xa_lock.  May sleep if
 * the @gfp flags permit.
 * Return: 0 if the store succeeded.  -EBUSY if another entry was present,
 * -EINVAL for an internal @entry, -ENOMEM if memory could not be
 * allocated.
 */
static inline int xa_insert(struct xarray *xa, unsigned long index,
			    void *entry, gfp_t gfp)
{
	int err;

	xa_lock(xa);
	err = __xa_insert(xa, index, entry, gfp);
	xa_unlock(xa);
	return err;
}

/**
 * xa_alloc() - Find somewhere to store this entry in the XArray.
 * @xa: XArray.
 * @id: Pointer to ID.
 * @entry: New entry.
 * @limit: Range of ID to allocate.
 * @gfp: Memory allocation flags.
 *
 * Context: Any context.  Takes and releases the xa_lock.  May sleep if
 * the @gfp flags permit.
 * Return: 0 on success, -ENOMEM if memory could not be allocated, -EBUSY
 * if there are no free entries in @limit, -EINVAL if @xa was not created
 * with XA_FLAGS_ALLOC or XA_FLAGS_ALLOC1.
 */
static inline int xa_alloc(struct xarray *xa, uint32_t *id, void *entry,
			   struct xa_limit limit, gfp_t gfp)
{
	int err;

	xa_lock(xa);
	err = __xa_alloc(xa, id, entry, limit, gfp);
	xa_unlock(xa);
	return err;
}

/**
 * xa_alloc_cyclic() - Find somewhere to store this entry in the XArray.
 * @xa: XArray.
 * @id: Pointer to ID.
 * @entry: New entry.
 * @limit: Range of allocated ID.
 * @next: Pointer to next ID to allocate.
 * @gfp: Memory allocation flags.
 *
 * Context: Any context.  Takes and releases the xa_lock.  May sleep if
 * the @gfp flags permit.
 * Return: 0 if the allocation succeeded without wrapping, 1 if it wrapped,
 * -ENOMEM, -EBUSY or -EINVAL as xa_alloc().
 */
static inline int xa_alloc_cyclic(struct xarray *xa, uint32_t *id,
				  void *entry, struct xa_limit limit,
				  uint32_t *next, gfp_t gfp)
{
	int err;

	xa_lock(xa);
	err = __xa_alloc_cyclic(xa, id, entry, limit, next, gfp);
	xa_unlock(xa);
	return err;
}

/**
 * xa_reserve() - Reserve this index in the XArray.
 * @xa: XArray.
 * @index: Index into array.
 * @gfp: Memory allocation flags.
 *
 * Ensures there is somewhere to store an entry at @index.  A reserved
 * slot loads as NULL through the normal API but counts as present for
 * xa_insert() and xa_alloc().
 *
 * Context: Any context.  Takes and releases the xa_lock.
 * Return: 0 if the reservation succeeded or -ENOMEM if it failed.
 */
static inline int xa_reserve(struct xarray *xa, unsigned long index,
			     gfp_t gfp)
{
	return xa_err(xa_cmpxchg(xa, index, NULL, XA_ZERO_ENTRY, gfp));
}

/**
 * xa_release() - Release a reserved entry.
 * @xa: XArray.
 * @index: Index of entry.
 *
 * After calling xa_reserve(), you can call this function to release the
 * reservation.  If the entry at @index has been stored to, this function
 * does nothing.
 */
static inline void xa_release(struct xarray *xa, unsigned long index)
{
	xa_cmpxchg(xa, index, XA_ZERO_ENTRY, NULL, 0);
}

/* ------------------------------------------------------------------ */
/* The advanced API                                                    */
/* ------------------------------------------------------------------ */

#ifndef XA_CHUNK_SHIFT
#define XA_CHUNK_SHIFT		6
#endif
#define XA_CHUNK_SIZE		(1UL << XA_CHUNK_SHIFT)
#define XA_CHUNK_MASK		(XA_CHUNK_SIZE - 1)
#define XA_MAX_MARKS		3
#define XA_MARK_LONGS		((XA_CHUNK_SIZE + BITS_PER_LONG - 1) / BITS_PER_LONG)

/**
 * struct upc_list_head - a doubly linked list link.
 * @next: Next link.
 * @prev: Previous link.
 */
struct upc_list_head {
	struct upc_list_head *next, *prev;
};

/**
 * struct xa_node - one 64-slot level of the tree.
 * @shift: Bits of the index this node's slots are indexed by, above which
 *	the parent decides: a slot covers 1 << @shift indices.
 * @offset: Slot of this node in its parent.
 * @count: Number of non-NULL slots (siblings and retry entries included).
 * @nr_values: Number of value entries in the slots.
 * @parent: Parent node, NULL for the top node.
 * @array: The XArray this node belongs to.
 * @private_list: For the owner of the array (the shadow-node LRU): a node
 *	the update callback puts on a list must be taken off before the
 *	node's count changes from "only values".
 * @slots: The entries.
 * @marks: Per-mark bitmaps; bit n set means slot n (or something below
 *	it) carries the mark.
 *
 * Nodes are visible to the advanced API (the kernel's are); their layout
 * may change between releases.
 */
struct xa_node {
	unsigned char shift;
	unsigned char offset;
	unsigned char count;
	unsigned char nr_values;
	struct xa_node *parent;
	struct xarray *array;
	union {
		struct upc_list_head private_list;
		/* private: link on a deferred-free batch */
		struct xa_node *free_next;
	};
	void *slots[XA_CHUNK_SIZE];
	unsigned long marks[XA_MAX_MARKS][XA_MARK_LONGS];
};

/* xa_is_node() - Is @entry a pointer to a node? */
static inline bool xa_is_node(const void *entry)
{
	return xa_is_internal(entry) && (unsigned long)entry > 4096;
}

/* xa_to_node() - The node an internal node entry points to. */
static inline struct xa_node *xa_to_node(const void *entry)
{
	return (struct xa_node *)((unsigned long)entry - 2);
}

/* xa_mk_node() - The internal entry that points to @node. */
static inline void *xa_mk_node(const struct xa_node *node)
{
	return (void *)((unsigned long)node | 2);
}

/* xa_mk_sibling() - The entry that points to the canonical slot @offset. */
static inline void *xa_mk_sibling(unsigned int offset)
{
	return xa_mk_internal(offset);
}

/* xa_to_sibling() - The canonical slot a sibling entry points to. */
static inline unsigned long xa_to_sibling(const void *entry)
{
	return xa_to_internal(entry);
}

/* xa_is_sibling() - Is @entry a sibling entry? */
static inline bool xa_is_sibling(const void *entry)
{
	return xa_is_internal(entry) &&
		(unsigned long)entry < (unsigned long)xa_mk_sibling(XA_CHUNK_SIZE - 1);
}

/**
 * xa_is_retry() - Is the entry a retry entry?
 * @entry: Entry retrieved from the XArray.
 *
 * Return: true if the entry is a retry entry.
 */
static inline bool xa_is_retry(const void *entry)
{
	return entry == XA_RETRY_ENTRY;
}

/**
 * typedef xa_update_node_t - callback run when a node's count changes.
 *
 * Set with xas_set_update().  Called with the xa_lock held, after a
 * node's slots changed and before it is freed (with count 0).
 */
typedef void (*xa_update_node_t)(struct xa_node *node);

struct list_lru;

/**
 * struct xa_state - XArray operation state.
 * @xa: The array operated on.
 * @xa_index: The index the cursor points at (public).
 * @xa_shift: Shift of the range the operation covers (multi-index).
 * @xa_sibs: Number of sibling slots the range covers beyond the first.
 * @xa_offset: Slot of the cursor in @xa_node.
 * @xa_pad: Padding.
 * @xa_node: Node holding the cursor's slot, NULL for the head, or one
 *	of the special states XAS_BOUNDS, XAS_RESTART or an XAS_ERROR.
 * @xa_alloc: Node preallocated by xas_nomem(), or a chain of nodes
 *	preallocated by xas_split_alloc().
 * @xa_update: Callback run for each node whose count changes.
 * @xa_lru: The list nodes allocated through this state belong to.
 *
 * Declare with XA_STATE() or XA_STATE_ORDER(); it lives on the stack and
 * is used by one thread.
 */
struct xa_state {
	struct xarray *xa;
	unsigned long xa_index;
	unsigned char xa_shift;
	unsigned char xa_sibs;
	unsigned char xa_offset;
	unsigned char xa_pad;
	struct xa_node *xa_node;
	struct xa_node *xa_alloc;
	xa_update_node_t xa_update;
	struct list_lru *xa_lru;
};

#define XA_ERROR(errno) ((struct xa_node *)(((unsigned long)(long)(errno) << 2) | 2UL))
#define XAS_BOUNDS	((struct xa_node *)1UL)
#define XAS_RESTART	((struct xa_node *)3UL)

#define __XA_STATE(array, index, shift, sibs, node)  {	\
	.xa = array,					\
	.xa_index = index,				\
	.xa_shift = shift,				\
	.xa_sibs = sibs,				\
	.xa_offset = 0,					\
	.xa_pad = 0,					\
	.xa_node = node,				\
	.xa_alloc = NULL,				\
	.xa_update = NULL,				\
	.xa_lru = NULL,					\
}

/**
 * XA_STATE() - Declare an XArray operation state.
 * @name: Name of this operation state (usually xas).
 * @array: Array to operate on.
 * @index: Initial index of interest.
 */
#define XA_STATE(name, array, index)				\
	struct xa_state name = __XA_STATE(array, index, 0, 0, XAS_RESTART)

/**
 * XA_STATE_ORDER() - Declare an XArray operation state for a range.
 * @name: Name of this operation state (usually xas).
 * @array: Array to operate on.
 * @index: Initial index of interest.
 * @order: Order of entry; above BITS_PER_LONG the state starts in
 *	error -EINVAL.
 */
#define XA_STATE_ORDER(name, array, index, order)		\
	struct xa_state name = __XA_STATE(array,		\
		(order) < BITS_PER_LONG ?			\
			((index) >> (order)) << (order) : 0,	\
		(order) - ((order) % XA_CHUNK_SHIFT),		\
		(1U << ((order) % XA_CHUNK_SHIFT)) - 1,		\
		(order) > BITS_PER_LONG ? XA_ERROR(-EINVAL) : XAS_RESTART)

#define xas_marked(xas, mark)	xa_marked((xas)->xa, (mark))
#define xas_trylock(xas)	xa_trylock((xas)->xa)
#define xas_lock(xas)		xa_lock((xas)->xa)
#define xas_unlock(xas)		xa_unlock((xas)->xa)
#define xas_lock_bh(xas)	xa_lock_bh((xas)->xa)
#define xas_unlock_bh(xas)	xa_unlock_bh((xas)->xa)
#define xas_lock_irq(xas)	xa_lock_irq((xas)->xa)
#define xas_unlock_irq(xas)	xa_unlock_irq((xas)->xa)
#define xas_lock_irqsave(xas, flags) xa_lock_irqsave((xas)->xa, flags)
#define xas_unlock_irqrestore(xas, flags) xa_unlock_irqrestore((xas)->xa, flags)

/**
 * xas_error() - Return an errno stored in the xa_state.
 * @xas: XArray operation state.
 *
 * Return: 0 if no error has been noted.  A negative errno if one has.
 */
static inline int xas_error(const struct xa_state *xas)
{
	return xa_err(xas->xa_node);
}

/**
 * xas_set_err() - Note an error in the xa_state.
 * @xas: XArray operation state.
 * @err: Negative error number.
 *
 * Only call this function with a negative @err; zero or positive errors
 * will probably not behave the way you think they should.  If you want
 * to clear the error from an xa_state, use xas_reset().
 */
static inline void xas_set_err(struct xa_state *xas, long err)
{
	xas->xa_node = XA_ERROR(err);
}

/**
 * xas_invalid() - Is the xas in a retry or error state?
 * @xas: XArray operation state.
 *
 * Return: true if the xas cannot be used for operations.
 */
static inline bool xas_invalid(const struct xa_state *xas)
{
	return (unsigned long)xas->xa_node & 3;
}

/**
 * xas_valid() - Is the xas a valid cursor into the array?
 * @xas: XArray operation state.
 *
 * Return: true if the xas can be used for operations.
 */
static inline bool xas_valid(const struct xa_state *xas)
{
	return !xas_invalid(xas);
}

/**
 * xas_is_node() - Does the xas point to a node?
 * @xas: XArray operation state.
 *
 * Return: true if the xas currently references a node.
 */
static inline bool xas_is_node(const struct xa_state *xas)
{
	return xas_valid(xas) && xas->xa_node;
}

/* True if the pointer is something other than a node */
static inline bool xas_not_node(struct xa_node *node)
{
	return ((unsigned long)node & 3) || !node;
}

/* True if the node represents RESTART or an error */
static inline bool xas_frozen(struct xa_node *node)
{
	return (unsigned long)node & 2;
}

/* True if the node represents head-of-tree, RESTART or BOUNDS */
static inline bool xas_top(struct xa_node *node)
{
	return node <= XAS_RESTART;
}

/**
 * xas_reset() - Reset an XArray operation state.
 * @xas: XArray operation state.
 *
 * Resets the error or walk state of the @xas so future walks of the
 * array will start from the root.  Use this if you have dropped the
 * xarray lock and want to reuse the xa_state.
 *
 * Context: Any context.
 */
static inline void xas_reset(struct xa_state *xas)
{
	xas->xa_node = XAS_RESTART;
}

/**
 * xas_retry() - Retry the operation if appropriate.
 * @xas: XArray operation state.
 * @entry: Entry from xarray.
 *
 * The advanced functions may sometimes return an internal entry, such as
 * a retry entry or a zero entry.  This function sets up the @xas to
 * restart the walk from the head of the array if needed.
 *
 * Context: Any context.
 * Return: true if the operation needs to be retried.
 */
static inline bool xas_retry(struct xa_state *xas, const void *entry)
{
	if (xa_is_zero(entry))
		return true;
	if (!xa_is_retry(entry))
		return false;
	xas_reset(xas);
	return true;
}

/* The advanced functions implemented in lib/xarray.c. */
void *xas_load(struct xa_state *xas);
void *xas_store(struct xa_state *xas, void *entry);
void *xas_find(struct xa_state *xas, unsigned long max);
void *xas_find_conflict(struct xa_state *xas);
bool xas_get_mark(const struct xa_state *xas, xa_mark_t mark);
void xas_set_mark(const struct xa_state *xas, xa_mark_t mark);
void xas_clear_mark(const struct xa_state *xas, xa_mark_t mark);
void *xas_find_marked(struct xa_state *xas, unsigned long max, xa_mark_t mark);
void xas_init_marks(const struct xa_state *xas);
bool xas_nomem(struct xa_state *xas, gfp_t gfp);
void xas_destroy(struct xa_state *xas);
void xas_pause(struct xa_state *xas);
void xas_create_range(struct xa_state *xas);
int xas_get_order(struct xa_state *xas);
void xas_split_alloc(struct xa_state *xas, void *entry, unsigned int order,
		     gfp_t gfp);
void xas_split(struct xa_state *xas, void *entry, unsigned int order);
void xas_try_split(struct xa_state *xas, void *entry, unsigned int order);
void *__xas_next(struct xa_state *xas);
void *__xas_prev(struct xa_state *xas);

/*
 * Private: read a slot of @node.  Readers use an acquire load that pairs
 * with the release store of a writer publishing a slot, so the contents of
 * a new node or object are visible before the pointer to it.
 */
static inline void *xa_entry(const struct xa_node *node, unsigned int offset)
{
	return __atomic_load_n(&node->slots[offset], __ATOMIC_ACQUIRE);
}

/* Private: read the head of @xa (under RCU or the lock). */
static inline void *xa_head(const struct xarray *xa)
{
	return __atomic_load_n(&xa->xa_head, __ATOMIC_ACQUIRE);
}

/* Private: the parent of @node (under RCU or the lock). */
static inline struct xa_node *xa_parent(const struct xa_node *node)
{
	return __atomic_load_n(&node->parent, __ATOMIC_ACQUIRE);
}

/**
 * xas_reload() - Refetch an entry from the xarray.
 * @xas: XArray operation state.
 *
 * Use this function to check that a previously loaded entry still has
 * the same value.  This is useful for the lockless pagecache lookup where
 * we walk the array with only the RCU lock to protect us, lock the page,
 * then check that the page hasn't moved since we looked it up.
 *
 * The caller guarantees that @xas is still valid.  If it may be in an
 * error or restart state, call xas_load() instead.  Not a walk.
 *
 * Return: The entry at this location in the xarray.
 */
static inline void *xas_reload(struct xa_state *xas)
{
	struct xa_node *node = xas->xa_node;
	void *entry;
	unsigned int offset;

	if (!node)
		return xa_head(xas->xa);
	offset = (xas->xa_index >> node->shift) & XA_CHUNK_MASK;
	entry = xa_entry(node, offset);
	if (!xa_is_sibling(entry))
		return entry;
	offset = xa_to_sibling(entry);
	return xa_entry(node, offset);
}

/**
 * xas_set() - Set up XArray operation state for a different index.
 * @xas: XArray operation state.
 * @index: New index into the XArray.
 *
 * Move the operation state to refer to a different index.  This will
 * have the effect of starting a walk from the top; see xas_next() to
 * move to an adjacent index.
 */
static inline void xas_set(struct xa_state *xas, unsigned long index)
{
	xas->xa_index = index;
	xas->xa_node = XAS_RESTART;
}

/**
 * xas_advance() - Skip over sibling entries.
 * @xas: XArray operation state.
 * @index: Index of last sibling entry.
 *
 * Move the operation state to refer to the last sibling entry.  This is
 * useful for loops that normally want to see sibling entries but
 * sometimes want to skip them.  Use xas_set() if you want to move to an
 * index which is not referenced by this entry.
 */
static inline void xas_advance(struct xa_state *xas, unsigned long index)
{
	unsigned char shift = xas_is_node(xas) ? xas->xa_node->shift : 0;

	xas->xa_index = index;
	xas->xa_offset = (index >> shift) & XA_CHUNK_MASK;
}

/**
 * xas_set_order() - Set up XArray operation state for a multislot entry.
 * @xas: XArray operation state.
 * @index: Target of the operation.
 * @order: Entry occupies 2^@order indices; above BITS_PER_LONG puts
 *	the state in error -EINVAL.
 */
static inline void xas_set_order(struct xa_state *xas, unsigned long index,
				 unsigned int order)
{
	if (order > BITS_PER_LONG) {
		xas_set_err(xas, -EINVAL);
		return;
	}
	xas->xa_index = order < BITS_PER_LONG ? (index >> order) << order : 0;
	xas->xa_shift = order - (order % XA_CHUNK_SHIFT);
	xas->xa_sibs = (1 << (order % XA_CHUNK_SHIFT)) - 1;
	xas->xa_node = XAS_RESTART;
}

/**
 * xas_set_update() - Set up XArray operation state for a callback.
 * @xas: XArray operation state.
 * @update: Function to call when updating a node.
 *
 * The XArray can notify a caller after it has updated an xa_node.  This
 * is advanced functionality and is only needed by the page cache and
 * swap cache.
 */
static inline void xas_set_update(struct xa_state *xas, xa_update_node_t update)
{
	xas->xa_update = update;
}

/**
 * xas_set_lru() - Set the list nodes allocated through @xas belong to.
 * @xas: XArray operation state.
 * @lru: The list (the owner's shadow-node LRU).
 */
static inline void xas_set_lru(struct xa_state *xas, struct list_lru *lru)
{
	xas->xa_lru = lru;
}

/**
 * xas_next_entry() - Advance iterator to next present entry.
 * @xas: XArray operation state.
 * @max: Highest index to return.
 *
 * xas_next_entry() is an inline function to optimise xarray traversal
 * for speed.  It is equivalent to calling xas_find(), and will call
 * xas_find() for all the hard cases.
 *
 * Return: The next present entry after the one currently referred to
 * by @xas.
 */
static inline void *xas_next_entry(struct xa_state *xas, unsigned long max)
{
	struct xa_node *node = xas->xa_node;
	unsigned int offset = xas->xa_offset;
	void *entry;

	/* Only a cursor sitting exactly on a leaf slot takes the fast path. */
	if (xas_not_node(node) || node->shift ||
	    offset != (xas->xa_index & XA_CHUNK_MASK))
		return xas_find(xas, max);

	for (;;) {
		if (xas->xa_index >= max || offset == XA_CHUNK_MASK)
			return xas_find(xas, max);
		entry = xa_entry(node, offset + 1);
		/* Siblings, retry entries and the like: xas_find() decides. */
		if (xa_is_internal(entry))
			return xas_find(xas, max);
		offset++;
		xas->xa_offset = offset;
		xas->xa_index++;
		if (entry)
			return entry;
	}
}

/**
 * xas_next_marked() - Advance iterator to next marked entry.
 * @xas: XArray operation state.
 * @max: Highest index to return.
 * @mark: Mark to search for.
 *
 * Return: The next marked entry after the one currently referred to by
 * @xas.
 */
static inline void *xas_next_marked(struct xa_state *xas, unsigned long max,
				    xa_mark_t mark)
{
	return xas_find_marked(xas, max, mark);
}

/**
 * xas_for_each() - Iterate over a range of an XArray.
 * @xas: XArray operation state.
 * @entry: Entry retrieved from the array.
 * @max: Maximum index to retrieve from array.
 *
 * The loop body will be executed for each entry present in the xarray
 * between the current xas position and @max.  @entry will be set to
 * the entry retrieved from the xarray.  It is safe to delete entries
 * from the array in the loop body.  You should hold either the RCU lock
 * or the xa_lock while iterating.  If you need to drop the lock, call
 * xas_pause() first.
 */
#define xas_for_each(xas, entry, max) \
	for (entry = xas_find(xas, max); entry; \
	     entry = xas_next_entry(xas, max))

/**
 * xas_for_each_marked() - Iterate over a range of an XArray.
 * @xas: XArray operation state.
 * @entry: Entry retrieved from the array.
 * @max: Maximum index to retrieve from array.
 * @mark: Mark to search for.
 */
#define xas_for_each_marked(xas, entry, max, mark) \
	for (entry = xas_find_marked(xas, max, mark); entry; \
	     entry = xas_next_marked(xas, max, mark))

/**
 * xas_for_each_conflict() - Iterate over a range of an XArray.
 * @xas: XArray operation state.
 * @entry: Entry retrieved from the array.
 *
 * The loop body will be executed for each entry in the XArray that
 * lies within the range specified by @xas.  If the loop terminates
 * normally, @entry will be %NULL.  The user may break out of the loop,
 * which will leave @entry set to the conflicting entry.  The caller
 * may also call xa_set_err() to exit the loop while setting an error
 * to record the reason.
 */
#define xas_for_each_conflict(xas, entry) \
	while ((entry = xas_find_conflict(xas)))

/**
 * xas_prev() - Move iterator to previous index.
 * @xas: XArray operation state.
 *
 * If the @xas was in an error state, it will remain in an error state
 * and this function will return %NULL.  If the @xas has never been
 * walked, it will have the effect of calling xas_load().  Otherwise one
 * will be subtracted from the index and the state will be walked to the
 * correct location in the array for the next operation.
 *
 * If the iterator was referencing index 0, this function wraps
 * around to %ULONG_MAX.
 *
 * Return: The entry at the new index.  This may be %NULL or an internal
 * entry.
 */
static inline void *xas_prev(struct xa_state *xas)
{
	struct xa_node *node = xas->xa_node;

	/* Fast path: a leaf cursor whose offset matches its index. */
	if (xas_not_node(node) || node->shift || xas->xa_offset == 0 ||
	    xas->xa_offset != (xas->xa_index & XA_CHUNK_MASK))
		return __xas_prev(xas);
	xas->xa_offset--;
	xas->xa_index--;
	return xa_entry(node, xas->xa_offset);
}

/**
 * xas_next() - Move state to next index.
 * @xas: XArray operation state.
 *
 * If the @xas was in an error state, it will remain in an error state
 * and this function will return %NULL.  If the @xas has never been
 * walked, it will have the effect of calling xas_load().  Otherwise one
 * will be added to the index and the state will be walked to the correct
 * location in the array for the next operation.
 *
 * If the iterator was referencing index %ULONG_MAX, this function wraps
 * around to 0.
 *
 * Return: The entry at the new index.  This may be %NULL or an internal
 * entry.
 */
static inline void *xas_next(struct xa_state *xas)
{
	struct xa_node *node = xas->xa_node;

	/* Fast path: a leaf cursor whose offset matches its index. */
	if (xas_not_node(node) || node->shift ||
	    xas->xa_offset == XA_CHUNK_MASK ||
	    xas->xa_offset != (xas->xa_index & XA_CHUNK_MASK))
		return __xas_next(xas);
	xas->xa_offset++;
	xas->xa_index++;
	return xa_entry(node, xas->xa_offset);
}

#ifdef __cplusplus
}
#endif

#endif /* UPCACHE_XARRAY_H */
