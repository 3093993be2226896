/* SPDX-License-Identifier: MIT */
/*
 * upcache/xarray.h - the XArray: a sparse array of pointers, in userspace.
 *
 * What lives here: the encoding of entries and its helpers, the gfp_t
 * allocation flags, struct xarray with its initialisers and lock macros,
 * the normal API (xa_*), and the advanced API (struct xa_state, the xas_*
 * operations and iterators, struct xa_node), followed by a few private
 * helpers the inline functions need.  The lock comes from upcache/lock.h
 * and the RCU read side from upcache/rcu.h; both are included.  The code
 * is in lib/xarray.c, lib/xarray_split.c (splits, xas_create_range())
 * and lib/xa_node.c (node memory); docs/xarray.md is the user's guide.
 *
 * Relation to the kernel.  Names, macros, argument order, return values
 * and the entry encoding are those of the Linux XArray as documented in
 * Documentation/core-api/xarray.rst, so code written against that API
 * builds here unchanged, apart from the few kernel names upcache lacks.
 * What is different (docs/xarray.md has the full list):
 *  - xa_lock is a upc_lock_t, which spins briefly and then sleeps, and is
 *    not recursive.  Userspace has no interrupts or bottom halves, so the
 *    _bh, _irq, _irqsave and _nested lock macros and the _bh/_irq forms
 *    of xa_store() and xa_erase() are plain aliases (xa_lock_irqsave()
 *    sets its flags to 0), and XA_FLAGS_LOCK_IRQ/XA_FLAGS_LOCK_BH change
 *    nothing.
 *  - A gfp_t only says whether an allocation may wait.  GFP_KERNEL (and
 *    GFP_NOFS, GFP_NOIO, GFP_USER, GFP_HIGHUSER, which are the same
 *    value) may: the XArray then drops xa_lock while it allocates.
 *    GFP_NOWAIT and GFP_ATOMIC never wait and never drop the lock, and an
 *    allocation with them may fail (-ENOMEM).  __GFP_NORETRY, as in the
 *    kernel, asks a folio allocation for one round of reclaim and no
 *    more (no retry, no wait for I/O); the other __GFP_ modifiers are
 *    accepted and ignored (__GFP_NOFAIL does not make anything
 *    infallible).  The numeric values are not the kernel's.
 *  - Readers are lockless under RCU from liburcu, and nothing has to be
 *    registered: a thread is registered on its first read-side section
 *    and unregistered when it exits.  The xa_ functions enter the read
 *    side themselves; lockless users of the advanced API bracket their
 *    calls with rcu_read_lock()/rcu_read_unlock() from upcache/rcu.h, as
 *    in the kernel.
 *  - Input the kernel answers with BUG(), a warning or undefined
 *    behaviour gets an error here, and nothing is printed: an internal
 *    entry given to a store is -EINVAL, an order above BITS_PER_LONG puts
 *    the cursor in -EINVAL, xas_split() is -ENOMEM when the nodes it
 *    needs cannot be had without waiting and on the wrong entry -EINVAL.
 *  - Multi-index entries are always available, up to order BITS_PER_LONG
 *    (one entry for the whole index space), and splits may cross any
 *    number of tree levels.
 *
 * How to read the "Context:" lines.  "Takes the RCU read lock itself":
 * callable from any thread, with or without xa_lock held.  "Takes
 * xa_lock itself": the caller must not already hold it.  "Caller holds
 * xa_lock": as said; "may drop it to allocate" means that with a @gfp
 * that may wait the lock is released around the allocation and retaken,
 * so the array can change in between.  "RCU read lock or xa_lock": the
 * caller holds one of the two for as long as it uses the cursor.
 *
 * Entry encoding.  A slot is one machine word; its two low bits tell what
 * it holds:
 *
 *	...00	NULL, or a pointer to a user object (4-byte aligned)
 *	...x1	a value entry: the integer v is kept as (v << 1) | 1
 *	...10	an internal entry, (v << 2) | 2, which the normal API never
 *		returns: v in 0..62 (with 64-slot nodes) is a sibling, naming
 *		the canonical slot of a multi-index entry; 256 the retry
 *		entry, 257 the zero
 *		entry of a reserved slot, -4095..-1 an errno returned by a
 *		call (never stored), and a word above 4096 is a pointer to a
 *		child node.
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
 * typedef gfp_t - Allocation flags: may the allocation wait?
 *
 * In userspace the only question a gfp_t answers is whether an allocation
 * may wait.  With GFP_KERNEL and its aliases it may: the node allocator
 * may block on its pool mutex, and the XArray allocates with xa_lock
 * dropped.  With GFP_NOWAIT or GFP_ATOMIC it may not: a busy pool is
 * bypassed, the lock stays held, and the allocation may fail.  Under its
 * lock the XArray itself only ever allocates without waiting, and falls
 * back to xas_nomem() with the caller's flags.  The __GFP_ modifier bits
 * exist so that kernel code compiles; they have no effect.
 */
typedef unsigned int gfp_t;

#define __GFP_NOWAIT_BIT	0x01u	/* private: never block */
#define __GFP_NOWARN		0x02u
#define __GFP_ZERO		0x04u
#define __GFP_ACCOUNT		0x08u
#define __GFP_NOFAIL		0x10u
#define __GFP_NORETRY		0x20u
#define __GFP_BITS		6	/* private: flag bits used above */

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
 * xa_mk_value() - Wrap an integer as a value entry.
 * @v: The integer, from 0 to LONG_MAX.
 *
 * Value entries let an array hold integers without allocating anything
 * (the page cache keeps its shadow entries this way).  The top bit of @v
 * is shifted out, so a value above LONG_MAX does not come back intact;
 * nothing checks for it.
 *
 * Context: Any; pure computation.
 * Return: A non-NULL entry for which xa_is_value() is true.
 */
static inline void *xa_mk_value(unsigned long v)
{
	return (void *)((v << 1) | 1);
}

/**
 * xa_to_value() - Unwrap the integer held by a value entry.
 * @entry: An entry for which xa_is_value() is true.
 *
 * Context: Any; pure computation.
 * Return: The integer that was given to xa_mk_value().  For any other
 * kind of entry the result means nothing.
 */
static inline unsigned long xa_to_value(const void *entry)
{
	return (unsigned long)entry >> 1;
}

/**
 * xa_is_value() - Does @entry hold an integer?
 * @entry: Any entry.
 *
 * Only the lowest bit is tested, so a pointer tagged with tag 1 or 3 by
 * xa_tag_pointer() tests true as well; an array should hold either value
 * entries or tagged pointers, not both.
 *
 * Context: Any; pure computation.
 * Return: true for a value entry; false for NULL, an untagged pointer or
 * an internal entry.
 */
static inline bool xa_is_value(const void *entry)
{
	return (unsigned long)entry & 1;
}

/**
 * xa_tag_pointer() - Put a small tag in the low bits of a pointer.
 * @p: A pointer whose two low bits are clear (4-byte aligned).
 * @tag: 0, 1 or 3.  Tag 2 would turn the result into an internal entry,
 *	which no store accepts.
 *
 * Tags 1 and 3 make xa_is_value() true for the result (see there).
 *
 * Context: Any; pure computation.
 * Return: @p with @tag ORed into its low bits.
 */
static inline void *xa_tag_pointer(void *p, unsigned long tag)
{
	return (void *)((unsigned long)p | tag);
}

/**
 * xa_untag_pointer() - Recover the pointer from a tagged entry.
 * @entry: An entry made by xa_tag_pointer().
 *
 * Context: Any; pure computation.
 * Return: @entry with its two low bits cleared.
 */
static inline void *xa_untag_pointer(void *entry)
{
	return (void *)((unsigned long)entry & ~3UL);
}

/**
 * xa_pointer_tag() - Read the tag of a tagged entry.
 * @entry: An entry made by xa_tag_pointer().
 *
 * Context: Any; pure computation.
 * Return: The two low bits of @entry (0 to 3).
 */
static inline unsigned int xa_pointer_tag(void *entry)
{
	return (unsigned long)entry & 3UL;
}

/*
 * xa_mk_internal() - Encode @v as an internal entry.  Internal entries
 * belong to the XArray and the advanced API; the stores of the normal API
 * accept only one of them, XA_ZERO_ENTRY.
 */
static inline void *xa_mk_internal(unsigned long v)
{
	return (void *)((v << 2) | 2);
}

/* xa_to_internal() - Decode the number held by an internal entry. */
static inline unsigned long xa_to_internal(const void *entry)
{
	return (unsigned long)entry >> 2;
}

/* xa_is_internal() - true if the low bits of @entry are 10. */
static inline bool xa_is_internal(const void *entry)
{
	return ((unsigned long)entry & 3) == 2;
}

/*
 * XA_ZERO_ENTRY fills a reserved slot; the normal API reads it as NULL.
 * XA_RETRY_ENTRY is left in the slots of a node taken out of the tree; a
 * lockless reader that meets it walks again from the root.
 */
#define XA_ZERO_ENTRY		xa_mk_internal(257)
#define XA_RETRY_ENTRY		xa_mk_internal(256)

/**
 * xa_is_zero() - Is @entry the placeholder of a reserved slot?
 * @entry: An entry, typically one returned by the advanced API.
 *
 * A slot is reserved by xa_reserve(), by xa_insert() or xa_alloc() of
 * NULL, by xa_store() of NULL in an allocating array, and by any store of
 * XA_ZERO_ENTRY; the slot then holds XA_ZERO_ENTRY.  The normal API reports it as NULL; xas_load(),
 * xas_find() and the xas_ iterators return it as it is.
 *
 * Context: Any; pure computation.
 * Return: true if @entry is XA_ZERO_ENTRY.
 */
static inline bool xa_is_zero(const void *entry)
{
	return entry == XA_ZERO_ENTRY;
}

/**
 * xa_is_err() - Did an XArray call return an error?
 * @entry: What a function returning an entry gave back (xa_store(),
 *	xa_cmpxchg(), xa_store_range(), __xa_store() ...).
 *
 * Errors travel as internal entries encoding an errno from -4095 to -1.
 * They are never stored in an array.
 *
 * Context: Any; pure computation.
 * Return: true if @entry encodes an errno.
 */
static inline bool xa_is_err(const void *entry)
{
	return xa_is_internal(entry) &&
		(unsigned long)entry >= (unsigned long)xa_mk_internal(-4095L);
}

/**
 * xa_err() - Extract the errno from an XArray call's result.
 * @entry: What a function returning an entry gave back, or a cursor's
 *	xa_node field (xas_error() uses it that way).
 *
 * Context: Any; pure computation.
 * Return: 0 if @entry is not an error (NULL and every storable entry give
 * 0); otherwise the negative errno it encodes, such as -ENOMEM or
 * -EINVAL.
 */
static inline int xa_err(void *entry)
{
	if (xa_is_err(entry))
		return (int)((long)entry >> 2);
	return 0;
}

/*
 * xa_is_advanced() - Is @entry an internal entry that only the advanced
 * API may handle: a sibling or the retry entry (the encodings up to 256)?
 * XA_ZERO_ENTRY is not one, since xa_reserve() stores it through the
 * normal API.
 */
static inline bool xa_is_advanced(const void *entry)
{
	return xa_is_internal(entry) &&
		(unsigned long)entry <= (unsigned long)xa_mk_internal(256);
}

/**
 * struct xa_limit - An inclusive range of IDs for xa_alloc().
 * @max: The highest ID that may be handed out.
 * @min: The lowest ID that may be handed out.
 *
 * Make one with XA_LIMIT(min, max) or use xa_limit_32b (0 to UINT32_MAX),
 * xa_limit_31b (0 to INT32_MAX) or xa_limit_16b (0 to UINT16_MAX).  A
 * limit whose @min is above its @max has no free ID (-EBUSY).
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
 * typedef xa_mark_t - Names one of the three mark bits of an entry.
 *
 * XA_MARK_0, XA_MARK_1 and XA_MARK_2 are marks.  XA_PRESENT is not a mark
 * but a search filter meaning "any entry"; xa_find(), xa_find_after(),
 * xa_extract() and xa_for_each_marked() treat every value above
 * XA_MARK_MAX that way.  Elsewhere a value above XA_MARK_MAX is ignored:
 * setting or clearing it does nothing, testing it gives false and
 * searching for it finds nothing.  In an
 * allocating array XA_MARK_0 is XA_FREE_MARK, which the array keeps on
 * its free slots itself; only XA_MARK_1 and XA_MARK_2 are then the
 * user's.
 */
typedef unsigned int xa_mark_t;
#define XA_MARK_0		0U
#define XA_MARK_1		1U
#define XA_MARK_2		2U
#define XA_PRESENT		8U
#define XA_MARK_MAX		XA_MARK_2
#define XA_FREE_MARK		XA_MARK_0

/*
 * Flags of struct xarray, for xa_init_flags() and DEFINE_XARRAY_FLAGS().
 * Users pass XA_FLAGS_ALLOC (an allocating array whose IDs start at 0) or
 * XA_FLAGS_ALLOC1 (one that never hands out ID 0).  XA_FLAGS_LOCK_IRQ,
 * XA_FLAGS_LOCK_BH and XA_FLAGS_ACCOUNT are accepted and change nothing.
 * XA_FLAGS_TRACK_FREE, XA_FLAGS_ZERO_BUSY, XA_FLAGS_ALLOC_WRAPPED and the
 * XA_FLAGS_MARK() bits (which marks some entry carries) are the array's
 * own bookkeeping.
 */
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
 * struct xarray - One XArray: its lock, its flags and the top of its tree.
 * @xa_lock: Serialises writers (xa_lock(), xa_unlock() and friends).
 *	Readers never need it.
 *
 * Set one up with DEFINE_XARRAY(), DEFINE_XARRAY_ALLOC(),
 * DEFINE_XARRAY_ALLOC1(), DEFINE_XARRAY_FLAGS(), xa_init() or
 * xa_init_flags(); zero-filled memory is also a valid empty array without
 * flags.  Users touch only @xa_lock, and only through the lock macros;
 * the other fields belong to lib/xarray.c.
 */
struct xarray {
	upc_lock_t xa_lock;
	/* private: everything below is managed by lib/xarray.c. */
	gfp_t xa_flags;
	void *xa_head;
};

/*
 * Static definitions: DEFINE_XARRAY(name) defines an empty array,
 * DEFINE_XARRAY_ALLOC(name) an allocating one whose IDs start at 0,
 * DEFINE_XARRAY_ALLOC1(name) one whose IDs start at 1, and
 * DEFINE_XARRAY_FLAGS(name, flags) one with any flags.  XARRAY_INIT() is
 * the initialiser they use; its @name argument is not used.
 */
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
 * xa_load() - Look up the entry at an index.
 * @xa: The array.
 * @index: The index; for a multi-index entry any index it covers.
 *
 * Lockless: the lookup runs under the RCU read lock, so it may overlap a
 * writer and then returns the entry from before or from after that
 * writer's change.  The result is not pinned: if another thread may erase
 * the entry and free the object, the caller needs its own protection:
 * xa_lock held over the lookup and the use; or an RCU read-side section
 * over both, with objects freed only after a grace period
 * (upc_rcu_synchronize()); or a reference taken and confirmed with
 * xas_reload().
 *
 * Context: Any thread.  Takes the RCU read lock itself.
 * Return: The entry covering @index; NULL if there is none or the index
 * is only reserved.
 */
void *xa_load(struct xarray *xa, unsigned long index);

/**
 * xa_store() - Put an entry at an index, replacing whatever is there.
 * @xa: The array.
 * @index: The index.
 * @entry: A pointer (4-byte aligned), a value entry, XA_ZERO_ENTRY or
 *	NULL.
 * @gfp: Whether a node allocation may wait (GFP_KERNEL) or not
 *	(GFP_NOWAIT).
 *
 * If @index lies inside a multi-index entry, that whole entry is replaced:
 * every index it covers now loads @entry, and the entry keeps its order
 * and its marks.  Otherwise the store is order 0, and storing over an
 * existing entry keeps that slot's marks.  NULL erases the entry and its
 * marks, except in an allocating array (XA_FLAGS_ALLOC, XA_FLAGS_ALLOC1),
 * where NULL reserves the index instead; use xa_erase() to free an index
 * there.  XA_ZERO_ENTRY reserves the index in any array.  Every other
 * internal entry is refused and the array is left alone.
 *
 * Context: Any thread.  Takes xa_lock itself; with a @gfp that may wait,
 * it drops the lock while allocating a node and retakes it.
 * Return: The entry that was at @index (NULL if the slot was empty or
 * reserved); xa_err() -EINVAL if @entry is an internal entry other than
 * XA_ZERO_ENTRY; xa_err() -ENOMEM if a node could not be allocated, in
 * which case nothing was stored.
 */
void *xa_store(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp);

/**
 * xa_erase() - Remove the entry at an index.
 * @xa: The array.
 * @index: Any index of the entry to remove.
 *
 * The whole entry goes, however many indices it covers, together with
 * its marks; a reserved slot becomes empty.  In an allocating array the
 * indices become free for xa_alloc() again.  Nodes left empty are freed
 * after an RCU grace period, so concurrent readers stay safe.  Never
 * allocates.
 *
 * Context: Any thread.  Takes xa_lock itself.
 * Return: The entry that was there; NULL if there was none or the index
 * was only reserved.
 */
void *xa_erase(struct xarray *xa, unsigned long index);

/**
 * xa_store_range() - Put one entry at every index of a range.
 * @xa: The array.
 * @first: First index of the range.
 * @last: Last index of the range (inclusive).
 * @entry: A pointer or a value entry, or NULL to erase the range.
 * @gfp: Whether a node allocation may wait.
 *
 * The range is cut into aligned blocks, each as large as possible,
 * starting at @first, and every block gets one multi-index entry: [0, 15]
 * is a single order-4 entry, [1, 6] is entries of orders 0, 1, 1 and 0.
 * [0, ULONG_MAX] is one entry of order BITS_PER_LONG.  Beware that an
 * existing entry which reaches beyond the range is replaced, or with NULL
 * erased, as a whole, including its indices outside [@first, @last].
 * Entries that a new block swallows pass their marks on to it.  In an
 * allocating array NULL erases too (no reservation is made), and stored
 * indices lose XA_FREE_MARK, so xa_alloc() does not hand them out (the
 * kernel's leaves them marked free).  The
 * blocks are stored one after the other, so lockless readers, and other
 * writers while the lock is dropped for an allocation, may see the range
 * half done.
 *
 * Context: Any thread.  Takes xa_lock itself and allocates with it
 * dropped.
 * Return: NULL once the whole range is stored; xa_err() -EINVAL if
 * @last < @first or @entry is an internal entry (XA_ZERO_ENTRY included),
 * with nothing changed; xa_err() -ENOMEM if a node could not be allocated,
 * in which case the blocks stored before the failure stay stored.
 */
void *xa_store_range(struct xarray *xa, unsigned long first,
		     unsigned long last, void *entry, gfp_t gfp);

/**
 * xa_get_order() - How many indices does the entry at an index cover?
 * @xa: The array.
 * @index: Any index of the entry.
 *
 * A reserved slot reports the order of its reservation.
 *
 * Context: Any thread.  Takes the RCU read lock itself.
 * Return: The order k of the entry covering @index, which covers 2^k
 * aligned indices: 0 for an ordinary entry, up to BITS_PER_LONG for an
 * entry covering the whole index space.  0 as well when @index holds
 * nothing.
 */
int xa_get_order(struct xarray *xa, unsigned long index);

/**
 * xa_get_mark() - Does the entry at an index carry a mark?
 * @xa: The array.
 * @index: Any index of the entry.
 * @mark: XA_MARK_0, XA_MARK_1 or XA_MARK_2.
 *
 * The marks of a multi-index entry belong to the whole entry, so any of
 * its indices gives the same answer.
 *
 * Context: Any thread.  Takes the RCU read lock itself.
 * Return: true if the entry covering @index has @mark; false if it has
 * not, if there is no entry there, or if @mark is not a mark.
 */
bool xa_get_mark(struct xarray *xa, unsigned long index, xa_mark_t mark);

/**
 * xa_set_mark() - Set a mark on the entry at an index.
 * @xa: The array.
 * @index: Any index of the entry.
 * @mark: XA_MARK_0, XA_MARK_1 or XA_MARK_2.
 *
 * The mark goes on the whole entry covering @index.  An empty index or
 * a @mark that is not a mark leaves the array unchanged; a reserved slot
 * can be marked.
 *
 * Context: Any thread.  Takes xa_lock itself.
 */
void xa_set_mark(struct xarray *xa, unsigned long index, xa_mark_t mark);

/**
 * xa_clear_mark() - Remove a mark from the entry at an index.
 * @xa: The array.
 * @index: Any index of the entry.
 * @mark: XA_MARK_0, XA_MARK_1 or XA_MARK_2.
 *
 * Clearing a mark that is not set, at an empty index, or with a @mark
 * that is not a mark, changes nothing.
 *
 * Context: Any thread.  Takes xa_lock itself.
 */
void xa_clear_mark(struct xarray *xa, unsigned long index, xa_mark_t mark);

/**
 * xa_find() - Find the first matching entry at or after an index.
 * @xa: The array.
 * @indexp: In: where the search starts.  Out: where the entry was found.
 * @max: The last index the search may report (inclusive).
 * @filter: XA_MARK_0..XA_MARK_2 for entries with that mark, or XA_PRESENT
 *	(or any value above XA_MARK_MAX) for every entry.
 *
 * If the entry covering *@indexp matches, it is returned and *@indexp is
 * left as it was, even in the middle of a multi-index entry.  Otherwise
 * the first matching entry that starts after *@indexp and no later than
 * @max is returned, and *@indexp is set to its first index.  Reserved
 * slots are never reported.
 *
 * Context: Any thread.  Takes the RCU read lock itself.
 * Return: The entry found, or NULL (with *@indexp unchanged) if no entry
 * matches up to @max.
 */
void *xa_find(struct xarray *xa, unsigned long *indexp,
	      unsigned long max, xa_mark_t filter);

/**
 * xa_find_after() - Find the first matching entry after the one at an index.
 * @xa: The array.
 * @indexp: In: an index, usually one that xa_find() or xa_find_after()
 *	just reported.  Out: the first index of the entry found.
 * @max: The last index the search may report (inclusive).
 * @filter: A mark, or XA_PRESENT (any value above XA_MARK_MAX) for every
 *	entry.
 *
 * The search starts after *@indexp and skips whatever is left of an entry
 * that covers *@indexp, so a multi-index entry is reported only once.
 * Reserved slots are never reported.
 *
 * Context: Any thread.  Takes the RCU read lock itself.
 * Return: The entry found, or NULL (with *@indexp unchanged) if no entry
 * matches up to @max, or *@indexp is ULONG_MAX.
 */
void *xa_find_after(struct xarray *xa, unsigned long *indexp,
		    unsigned long max, xa_mark_t filter);

/**
 * xa_extract() - Copy the matching entries of a range into a C array.
 * @xa: The array to copy from.
 * @dst: Room for at least @n pointers.
 * @start: First index to look at.
 * @max: Last index to look at (inclusive).
 * @n: The most entries to copy.
 * @filter: A mark, or XA_PRESENT (any value above XA_MARK_MAX) for every
 *	entry.
 *
 * Entries are copied in index order, a multi-index entry once, reserved
 * slots never.  The copy is not a snapshot, since writers may run while
 * it is taken, and the entries are not pinned.
 *
 * Context: Any thread.  Takes the RCU read lock itself.
 * Return: How many entries were written to @dst: at most @n, and 0 if @n
 * is 0.
 */
unsigned int xa_extract(struct xarray *xa, void **dst, unsigned long start,
			unsigned long max, unsigned int n, xa_mark_t filter);

/**
 * xa_destroy() - Remove every entry and release the tree.
 * @xa: The array.
 *
 * Afterwards the array is empty, without reservations or marks, and keeps
 * its flags, so it can be used again.  Its nodes are freed after an RCU
 * grace period, so concurrent readers stay safe.  The objects the entries
 * pointed to are not touched: release them first (xa_for_each() while
 * they are still there).  No node update callback runs, so a tree whose
 * cursors report node changes (xas_set_update(), as the page cache's
 * shadow node tracking does) must first be emptied through such cursors
 * (truncation does), or a node still on its user's list is freed.
 *
 * Context: Any thread.  Takes xa_lock itself.
 */
void xa_destroy(struct xarray *xa);

/**
 * xa_init_flags() - Make @xa an empty array with the given flags.
 * @xa: The array.
 * @flags: 0, XA_FLAGS_ALLOC or XA_FLAGS_ALLOC1, optionally ORed with the
 *	ignored XA_FLAGS_LOCK_IRQ, XA_FLAGS_LOCK_BH or XA_FLAGS_ACCOUNT.
 *
 * Only for an array that holds nothing and that no other thread uses
 * yet; the entries of an array initialised again would be lost.
 *
 * Context: Any thread.  Takes no lock.
 */
static inline void xa_init_flags(struct xarray *xa, gfp_t flags)
{
	upc_lock_init(&xa->xa_lock);
	xa->xa_flags = flags;
	xa->xa_head = NULL;
}

/**
 * xa_init() - Make @xa an empty array without flags.
 * @xa: The array.
 *
 * The same as xa_init_flags(@xa, 0).
 *
 * Context: Any thread.  Takes no lock.
 */
static inline void xa_init(struct xarray *xa)
{
	xa_init_flags(xa, 0);
}

/**
 * xa_empty() - Does the array hold nothing at all?
 * @xa: The array.
 *
 * A reservation counts as content: an array whose only slots are
 * reserved is not empty.
 *
 * Context: Any thread.  One lockless read, so unless the caller holds
 * xa_lock the answer may be out of date by the time it is used.
 * Return: true if no index holds an entry or a reservation.
 */
static inline bool xa_empty(const struct xarray *xa)
{
	return __atomic_load_n(&xa->xa_head, __ATOMIC_RELAXED) == NULL;
}

/**
 * xa_marked() - Does any entry in the array carry a mark?
 * @xa: The array.
 * @mark: XA_MARK_0, XA_MARK_1 or XA_MARK_2.
 *
 * Reads a summary bit kept in the array's flags: no walk.
 *
 * Context: Any thread.  One lockless read, so unless the caller holds
 * xa_lock the answer may be out of date by the time it is used.
 * Return: true if some entry has @mark; false if none has, or if @mark is
 * not a mark.
 */
static inline bool xa_marked(const struct xarray *xa, xa_mark_t mark)
{
	return mark <= XA_MARK_MAX &&
		(__atomic_load_n(&xa->xa_flags, __ATOMIC_RELAXED) &
		 XA_FLAGS_MARK(mark));
}

/**
 * xa_for_each_range() - Loop over the entries in a range of indices.
 * @xa: The array.
 * @index: An unsigned long lvalue: the index of @entry in each pass.
 * @entry: A void * lvalue: the entry of each pass.
 * @start: First index to look at.
 * @last: Last index to look at (inclusive).
 *
 * Entries come in index order, a multi-index entry once (@index is then
 * its first index, or @start if it covers @start), reserved slots never.
 * Each step is a separate xa_find() or xa_find_after() call: a new walk
 * from the root inside its own RCU read-side section, so the body runs
 * with no lock held and may sleep, take xa_lock, change the array (erase
 * @entry, for one) or break out.  The loop carries on from @index, so
 * changing @index in the body moves it.  It is not a snapshot: entries
 * stored or erased meanwhile may or may not be seen.  Cost: one walk per
 * entry visited, plus one; xas_for_each() walks once for the whole loop.
 */
#define xa_for_each_range(xa, index, entry, start, last)		\
	for (index = start,						\
	     entry = xa_find(xa, &index, last, XA_PRESENT);		\
	     entry;							\
	     entry = xa_find_after(xa, &index, last, XA_PRESENT))

/**
 * xa_for_each_start() - Loop over the entries from an index to the end.
 * @xa: The array.
 * @index: An unsigned long lvalue: the index of @entry in each pass.
 * @entry: A void * lvalue: the entry of each pass.
 * @start: First index to look at.
 *
 * xa_for_each_range() up to ULONG_MAX; the same rules apply.
 */
#define xa_for_each_start(xa, index, entry, start) \
	xa_for_each_range(xa, index, entry, start, ULONG_MAX)

/**
 * xa_for_each() - Loop over every entry of an array.
 * @xa: The array.
 * @index: An unsigned long lvalue: the index of @entry in each pass.
 * @entry: A void * lvalue: the entry of each pass.
 *
 * xa_for_each_range() over the whole index space; the same rules apply.
 */
#define xa_for_each(xa, index, entry) \
	xa_for_each_start(xa, index, entry, 0)

/**
 * xa_for_each_marked() - Loop over the entries that carry a mark.
 * @xa: The array.
 * @index: An unsigned long lvalue: the index of @entry in each pass.
 * @entry: A void * lvalue: the entry of each pass.
 * @filter: XA_MARK_0..XA_MARK_2; XA_PRESENT, or any value above
 *	XA_MARK_MAX, visits every entry.
 *
 * Covers the whole index space with the rules of xa_for_each_range().
 */
#define xa_for_each_marked(xa, index, entry, filter)			\
	for (index = 0, entry = xa_find(xa, &index, ULONG_MAX, filter);	\
	     entry; entry = xa_find_after(xa, &index, ULONG_MAX, filter))

/*
 * Locking writers.  xa_lock() and xa_unlock() take and release the
 * array's upc_lock_t; xa_trylock() takes it only if it is free and says
 * whether it did.  The lock spins briefly, then sleeps, and is not
 * recursive.  The _bh, _irq, _irqsave and _nested forms are the kernel's
 * spellings and do the same (xa_lock_irqsave() sets @flags to 0; the
 * @subclass of the _nested forms is ignored).  Readers never take it.
 */
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
 * The __xa_ functions are the xa_ functions for a caller that already
 * holds xa_lock, typically to make several changes appear as one.  Those
 * that take a @gfp release the lock while they allocate when @gfp may
 * wait, and hold it again when they return, so the array may have changed
 * in between; with GFP_NOWAIT the lock stays held throughout.
 */

/**
 * __xa_erase() - xa_erase() for a caller that holds xa_lock.
 * @xa: The array.
 * @index: Any index of the entry to remove.
 *
 * Context: Caller holds xa_lock.  Never allocates, so never drops it.
 * Return: As xa_erase(): the entry that was there, or NULL.
 */
void *__xa_erase(struct xarray *xa, unsigned long index);

/**
 * __xa_store() - xa_store() for a caller that holds xa_lock.
 * @xa: The array.
 * @index: The index.
 * @entry: A pointer, a value entry, XA_ZERO_ENTRY or NULL.
 * @gfp: Whether a node allocation may wait.
 *
 * Behaves as xa_store(), NULL reserving in an allocating array included.
 *
 * Context: Caller holds xa_lock; may drop it to allocate.
 * Return: The entry that was at @index (NULL if empty or reserved);
 * xa_err() -EINVAL for an internal @entry other than XA_ZERO_ENTRY;
 * xa_err() -ENOMEM if a node could not be allocated (nothing stored).
 */
void *__xa_store(struct xarray *xa, unsigned long index, void *entry,
		 gfp_t gfp);

/**
 * __xa_cmpxchg() - xa_cmpxchg() for a caller that holds xa_lock.
 * @xa: The array.
 * @index: The index.
 * @old: The entry expected at @index.
 * @entry: The entry to put there if @old is found.
 * @gfp: Whether a node allocation may wait.
 *
 * Behaves as xa_cmpxchg(); read the caveat about reserved slots there.
 *
 * Context: Caller holds xa_lock; may drop it to allocate.
 * Return: The entry that was at @index, a reservation shown as NULL;
 * xa_err() -EINVAL or -ENOMEM as xa_cmpxchg().
 */
void *__xa_cmpxchg(struct xarray *xa, unsigned long index, void *old,
		   void *entry, gfp_t gfp);

/**
 * __xa_insert() - xa_insert() for a caller that holds xa_lock.
 * @xa: The array.
 * @index: The index.
 * @entry: The new entry; NULL reserves the index.
 * @gfp: Whether a node allocation may wait.
 *
 * Context: Caller holds xa_lock; may drop it to allocate.
 * Return: 0 if @entry was stored; -EBUSY if @index holds an entry or a
 * reservation; -EINVAL for an internal @entry other than XA_ZERO_ENTRY;
 * -ENOMEM if a node could not be allocated.
 */
int __xa_insert(struct xarray *xa, unsigned long index, void *entry,
		gfp_t gfp);

/**
 * __xa_alloc() - xa_alloc() for a caller that holds xa_lock.
 * @xa: An allocating array.
 * @id: Where the chosen ID is written.
 * @entry: The entry to store; NULL reserves the ID.
 * @limit: The IDs that may be chosen.
 * @gfp: Whether a node allocation may wait.
 *
 * Behaves as xa_alloc().
 *
 * Context: Caller holds xa_lock; may drop it to allocate.
 * Return: 0 with *@id set; -EBUSY if no ID in @limit is free; -EINVAL if
 * @xa is not an allocating array or @entry is an internal entry other
 * than XA_ZERO_ENTRY; -ENOMEM if a node could not be allocated.
 */
int __xa_alloc(struct xarray *xa, uint32_t *id, void *entry,
	       struct xa_limit limit, gfp_t gfp);

/**
 * __xa_alloc_cyclic() - xa_alloc_cyclic() for a caller that holds xa_lock.
 * @xa: An allocating array.
 * @id: Where the chosen ID is written.
 * @entry: The entry to store; NULL reserves the ID.
 * @limit: The IDs that may be chosen.
 * @next: In: where the search starts.  Out: the ID after the one chosen.
 * @gfp: Whether a node allocation may wait.
 *
 * Behaves as xa_alloc_cyclic().
 *
 * Context: Caller holds xa_lock; may drop it to allocate.
 * Return: 0 on success; 1 on success after wrapping; -EBUSY, -EINVAL or
 * -ENOMEM as xa_alloc().
 */
int __xa_alloc_cyclic(struct xarray *xa, uint32_t *id, void *entry,
		      struct xa_limit limit, uint32_t *next, gfp_t gfp);

/**
 * __xa_set_mark() - xa_set_mark() for a caller that holds xa_lock.
 * @xa: The array.
 * @index: Any index of the entry.
 * @mark: XA_MARK_0, XA_MARK_1 or XA_MARK_2.
 *
 * Context: Caller holds xa_lock.
 */
void __xa_set_mark(struct xarray *xa, unsigned long index, xa_mark_t mark);

/**
 * __xa_clear_mark() - xa_clear_mark() for a caller that holds xa_lock.
 * @xa: The array.
 * @index: Any index of the entry.
 * @mark: XA_MARK_0, XA_MARK_1 or XA_MARK_2.
 *
 * Context: Caller holds xa_lock.
 */
void __xa_clear_mark(struct xarray *xa, unsigned long index, xa_mark_t mark);

/**
 * xa_store_bh() - The kernel's softirq-safe spelling of xa_store().
 * @xa: The array.
 * @index: The index.
 * @entry: The new entry.
 * @gfp: Whether a node allocation may wait.
 *
 * There are no bottom halves in userspace; this is xa_store().
 *
 * Context: As xa_store().
 * Return: As xa_store().
 */
static inline void *xa_store_bh(struct xarray *xa, unsigned long index,
				void *entry, gfp_t gfp)
{
	return xa_store(xa, index, entry, gfp);
}

/**
 * xa_store_irq() - The kernel's interrupt-safe spelling of xa_store().
 * @xa: The array.
 * @index: The index.
 * @entry: The new entry.
 * @gfp: Whether a node allocation may wait.
 *
 * There are no interrupts in userspace; this is xa_store().
 *
 * Context: As xa_store().
 * Return: As xa_store().
 */
static inline void *xa_store_irq(struct xarray *xa, unsigned long index,
				 void *entry, gfp_t gfp)
{
	return xa_store(xa, index, entry, gfp);
}

/**
 * xa_erase_bh() - The kernel's softirq-safe spelling of xa_erase().
 * @xa: The array.
 * @index: Any index of the entry.
 *
 * There are no bottom halves in userspace; this is xa_erase().
 *
 * Context: As xa_erase().
 * Return: As xa_erase().
 */
static inline void *xa_erase_bh(struct xarray *xa, unsigned long index)
{
	return xa_erase(xa, index);
}

/**
 * xa_erase_irq() - The kernel's interrupt-safe spelling of xa_erase().
 * @xa: The array.
 * @index: Any index of the entry.
 *
 * There are no interrupts in userspace; this is xa_erase().
 *
 * Context: As xa_erase().
 * Return: As xa_erase().
 */
static inline void *xa_erase_irq(struct xarray *xa, unsigned long index)
{
	return xa_erase(xa, index);
}

/**
 * xa_cmpxchg() - Replace the entry at an index if it is the expected one.
 * @xa: The array.
 * @index: The index.
 * @old: The entry expected at @index; NULL for an empty slot.
 * @entry: The entry to put there if @old is found: a pointer, a value
 *	entry, XA_ZERO_ENTRY, or NULL to erase.
 * @gfp: Whether a node allocation may wait.
 *
 * The comparison is made under xa_lock against what the slot really
 * holds, and for a multi-index entry it and the replacement concern the
 * whole entry.  A reserved slot holds XA_ZERO_ENTRY, so it matches an
 * @old of XA_ZERO_ENTRY, not an @old of NULL.  Replacing with NULL erases,
 * also in an allocating array (no reservation is made).
 *
 * The exchange happened if the return value equals @old, with one
 * exception: at a reserved slot with @old NULL nothing is exchanged, yet
 * NULL comes back.  Use xa_insert() where the slot may be reserved.
 *
 * Context: Any thread.  Takes xa_lock itself; with a @gfp that may wait,
 * it drops the lock while allocating a node and retakes it.
 * Return: The entry that was at @index, a reservation shown as NULL;
 * xa_err() -EINVAL if @entry is an internal entry other than
 * XA_ZERO_ENTRY; xa_err() -ENOMEM if a node could not be allocated.  On
 * an error nothing changes.
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
 * xa_insert() - Store an entry at an index only if the index is unused.
 * @xa: The array.
 * @index: The index.
 * @entry: The new entry; NULL reserves the index.
 * @gfp: Whether a node allocation may wait.
 *
 * Unused means that no entry covers @index and it is not reserved.
 *
 * Context: Any thread.  Takes xa_lock itself; with a @gfp that may wait,
 * it drops the lock while allocating a node and retakes it.
 * Return: 0 if @entry was stored; -EBUSY if @index holds an entry or a
 * reservation; -EINVAL if @entry is an internal entry other than
 * XA_ZERO_ENTRY; -ENOMEM if a node could not be allocated.  On an error
 * nothing changes.
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
 * xa_alloc() - Store an entry at the lowest free ID of a range.
 * @xa: An allocating array (XA_FLAGS_ALLOC or XA_FLAGS_ALLOC1).
 * @id: Where the chosen ID is written.
 * @entry: The entry to store; NULL reserves the ID.
 * @limit: The IDs that may be chosen, e.g. xa_limit_32b or
 *	XA_LIMIT(1, 1000).
 * @gfp: Whether a node allocation may wait.
 *
 * Chooses the lowest index in @limit that holds neither an entry nor a
 * reservation (never 0 in an XA_FLAGS_ALLOC1 array), writes it to *@id
 * and stores @entry there.  *@id is written under the lock before the
 * entry is published, so an ID kept inside the object is already set
 * when other threads find the object.  *@id is meaningful only when 0
 * is returned.
 *
 * Context: Any thread.  Takes xa_lock itself; with a @gfp that may wait,
 * it drops the lock while allocating a node and retakes it.
 * Return: 0 on success; -EBUSY if every ID in @limit is taken; -EINVAL if
 * @xa is not an allocating array or @entry is an internal entry other
 * than XA_ZERO_ENTRY; -ENOMEM if a node could not be allocated.
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
 * xa_alloc_cyclic() - Store an entry at the next free ID, round-robin.
 * @xa: An allocating array (XA_FLAGS_ALLOC or XA_FLAGS_ALLOC1).
 * @id: Where the chosen ID is written.
 * @entry: The entry to store; NULL reserves the ID.
 * @limit: The IDs that may be chosen.
 * @next: In: where the search starts; below @limit.min it starts at
 *	@limit.min.  Out: the ID after the one chosen (0 after UINT32_MAX).
 * @gfp: Whether a node allocation may wait.
 *
 * Searches from *@next up to @limit.max, and if that part is full, once
 * more from @limit.min.  IDs are thus handed out in rising order and a
 * freed ID is reused only after the search has wrapped.
 *
 * Context: Any thread.  Takes xa_lock itself; with a @gfp that may wait,
 * it drops the lock while allocating a node and retakes it.
 * Return: 0 on success; 1 on success after a wrap, meaning the search had
 * to start again from @limit.min or *@next had wrapped past UINT32_MAX
 * in an earlier call; -EBUSY if every ID in @limit is taken; -EINVAL or
 * -ENOMEM as xa_alloc().
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
 * xa_reserve() - Claim an index now, store its entry later.
 * @xa: The array.
 * @index: The index.
 * @gfp: Whether a node allocation may wait.
 *
 * Puts XA_ZERO_ENTRY at @index if the index is empty, allocating the
 * slot now, so that storing an entry there later needs no memory.  The
 * normal API reads a reserved index as NULL, while xa_insert(), xa_alloc()
 * and xa_empty() count it as used.  xa_release(), xa_erase() or storing
 * an entry there ends the reservation.  If @index already holds an entry or a
 * reservation, nothing changes.
 *
 * Context: Any thread.  Takes xa_lock itself; with a @gfp that may wait,
 * it drops the lock while allocating a node and retakes it.
 * Return: 0 if @index is now reserved or was already in use; -ENOMEM if
 * a node could not be allocated.
 */
static inline int xa_reserve(struct xarray *xa, unsigned long index,
			     gfp_t gfp)
{
	return xa_err(xa_cmpxchg(xa, index, NULL, XA_ZERO_ENTRY, gfp));
}

/**
 * xa_release() - Give up a reservation made by xa_reserve().
 * @xa: The array.
 * @index: The reserved index.
 *
 * If @index is still reserved it becomes empty (and free, in an
 * allocating array).  If an entry has been stored there meanwhile,
 * nothing happens.
 *
 * Context: Any thread.  Takes xa_lock itself.  Never allocates.
 */
static inline void xa_release(struct xarray *xa, unsigned long index)
{
	xa_cmpxchg(xa, index, XA_ZERO_ENTRY, NULL, 0);
}

/* ------------------------------------------------------------------ */
/* The advanced API                                                    */
/* ------------------------------------------------------------------ */

/*
 * Tree geometry: a node has XA_CHUNK_SIZE (64) slots, so each level
 * decides XA_CHUNK_SHIFT (6) bits of the index.  A build may define
 * XA_CHUNK_SHIFT itself (3 gives deep trees for tests), which changes the
 * ABI.  XA_MARK_LONGS is the length of one mark bitmap in longs.
 */
#ifndef XA_CHUNK_SHIFT
#define XA_CHUNK_SHIFT		6
#endif
#define XA_CHUNK_SIZE		(1UL << XA_CHUNK_SHIFT)
#define XA_CHUNK_MASK		(XA_CHUNK_SIZE - 1)
#define XA_MAX_MARKS		3
#define XA_MARK_LONGS		((XA_CHUNK_SIZE + BITS_PER_LONG - 1) / BITS_PER_LONG)

/**
 * struct upc_list_head - A link in a circular doubly linked list.
 * @next: The following link.
 * @prev: The preceding link.
 *
 * The type of xa_node.private_list.
 */
struct upc_list_head {
	struct upc_list_head *next, *prev;
};

/**
 * struct xa_node - A node of the tree.
 * @shift: The node's level: each slot covers 2^@shift indices (0 in a
 *	leaf).
 * @offset: The slot of the parent that holds this node.
 * @count: How many slots are not NULL, sibling and retry entries
 *	included.
 * @nr_values: How many slots hold a value entry, counting the sibling
 *	slots of a multi-index value entry.
 * @parent: The node one level up; NULL for the top node.
 * @array: The array the node belongs to.
 * @private_list: For the array's owner while the node is in the tree (the
 *	page cache keeps nodes holding only shadow entries on an LRU with
 *	it).  The same memory links the node into a free list once it is
 *	freed, so the owner must unlink it no later than the update callback
 *	that reports a count of 0 (see xas_set_update()).
 * @slots: The entries.
 * @marks: One bitmap per mark.  For a slot holding a child node the bit
 *	means that some entry below carries the mark.
 *
 * Nodes are visible because the advanced API shows them (update
 * callbacks, the invariant checker), as the kernel's does; the layout may
 * change between releases.
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

/* xa_is_node() - Does @entry point to a child node (internal, above 4096)? */
static inline bool xa_is_node(const void *entry)
{
	return xa_is_internal(entry) && (unsigned long)entry > 4096;
}

/* xa_to_node() - The node a node entry points to. */
static inline struct xa_node *xa_to_node(const void *entry)
{
	return (struct xa_node *)((unsigned long)entry - 2);
}

/* xa_mk_node() - The entry through which a parent slot points to @node. */
static inline void *xa_mk_node(const struct xa_node *node)
{
	return (void *)((unsigned long)node | 2);
}

/* xa_mk_sibling() - A sibling entry naming the canonical slot @offset. */
static inline void *xa_mk_sibling(unsigned int offset)
{
	return xa_mk_internal(offset);
}

/* xa_to_sibling() - The canonical slot a sibling entry names. */
static inline unsigned long xa_to_sibling(const void *entry)
{
	return xa_to_internal(entry);
}

/* xa_is_sibling() - Is @entry a sibling (encoded below XA_CHUNK_SIZE - 1)? */
static inline bool xa_is_sibling(const void *entry)
{
	return xa_is_internal(entry) &&
		(unsigned long)entry < (unsigned long)xa_mk_sibling(XA_CHUNK_SIZE - 1);
}

/**
 * xa_is_retry() - Is @entry the retry entry?
 * @entry: An entry returned by the advanced API.
 *
 * A lockless reader can find XA_RETRY_ENTRY in a node that a writer has
 * just taken out of the tree; it means "walk again from the root", which
 * xas_retry() arranges.
 *
 * Context: Any; pure computation.
 * Return: true if @entry is XA_RETRY_ENTRY.
 */
static inline bool xa_is_retry(const void *entry)
{
	return entry == XA_RETRY_ENTRY;
}

/**
 * typedef xa_update_node_t - Callback told about the nodes a cursor changes.
 *
 * Registered with xas_set_update().  It runs with xa_lock held: after a
 * node's entries changed (its count or nr_values), for every node a split
 * links into the tree, and for a node about to be freed, whose count is
 * then 0.  It must not change the array.
 */
typedef void (*xa_update_node_t)(struct xa_node *node);

struct list_lru;

/**
 * struct xa_state - A cursor of the advanced API.
 * @xa: The array.
 * @xa_index: The index the cursor is at.  Users may read it; move the
 *	cursor with xas_set(), xas_next() and the like.
 * @xa_shift: With @xa_sibs, the order of the range the cursor stands for:
 *	@xa_shift + log2(@xa_sibs + 1).
 * @xa_sibs: How many slots after the first the range takes in its node.
 * @xa_offset: The slot under the cursor in @xa_node.
 * @xa_pad: Unused.
 * @xa_node: Where the cursor is: a node; NULL for the head of the array;
 *	XAS_RESTART (not walked yet: the next operation starts at the
 *	root); XAS_BOUNDS (the index is outside the tree, or a search ended);
 *	or an error made by XA_ERROR().
 * @xa_alloc: Nodes kept for the next attempt: blank ones from
 *	xas_nomem(), prebuilt subtrees from xas_split_alloc().
 *	xas_destroy() frees them.
 * @xa_update: The callback set by xas_set_update(), or NULL.
 * @xa_lru: The list set by xas_set_lru(); kept for source compatibility,
 *	upcache does not use it.
 *
 * Declare one on the stack with XA_STATE() or XA_STATE_ORDER().  A cursor
 * belongs to one thread; it holds no lock and pins nothing.
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

/*
 * Special values of xa_state.xa_node: XA_ERROR(errno) holds an error,
 * XAS_BOUNDS means the index is outside the tree or a search ended, and
 * XAS_RESTART means the cursor has not been walked yet.
 */
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
 * XA_STATE() - Declare a cursor at an index.
 * @name: The variable to declare (xas, by convention).
 * @array: The array (struct xarray *).
 * @index: The starting index.
 *
 * The cursor has order 0 and starts in XAS_RESTART: its first operation
 * walks from the root.
 */
#define XA_STATE(name, array, index)				\
	struct xa_state name = __XA_STATE(array, index, 0, 0, XAS_RESTART)

/**
 * XA_STATE_ORDER() - Declare a cursor for an aligned range of indices.
 * @name: The variable to declare (xas, by convention).
 * @array: The array (struct xarray *).
 * @index: Any index of the range; it is rounded down to a multiple of
 *	2^@order (to 0 for order BITS_PER_LONG).
 * @order: The range covers 2^@order indices, 0 <= @order <= BITS_PER_LONG;
 *	a larger order leaves the cursor in error -EINVAL.
 *
 * xas_store() through such a cursor stores one multi-index entry for the
 * whole range, and xas_find_conflict() looks inside it.  For xas_split()
 * and xas_try_split() the order is the one the pieces get.
 */
#define XA_STATE_ORDER(name, array, index, order)		\
	struct xa_state name = __XA_STATE(array,		\
		(order) < BITS_PER_LONG ?			\
			((index) >> (order)) << (order) : 0,	\
		(order) - ((order) % XA_CHUNK_SHIFT),		\
		(1U << ((order) % XA_CHUNK_SHIFT)) - 1,		\
		(order) > BITS_PER_LONG ? XA_ERROR(-EINVAL) : XAS_RESTART)

/*
 * xas_lock() and friends lock the cursor's array and mean the same as the
 * xa_lock() forms; xas_marked() is xa_marked() of that array.
 */
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
 * xas_error() - The error recorded in a cursor.
 * @xas: The cursor.
 *
 * Context: Any; reads only the cursor.
 * Return: 0 if the cursor holds no error; otherwise the negative errno,
 * such as -ENOMEM after a failed allocation or -EINVAL after bad
 * arguments.
 */
static inline int xas_error(const struct xa_state *xas)
{
	return xa_err(xas->xa_node);
}

/**
 * xas_set_err() - Record an error in a cursor.
 * @xas: The cursor.
 * @err: A negative errno.  0 or a positive number does not give a usable
 *	state.
 *
 * Operations on a cursor in an error state do nothing and return NULL or
 * false, so a sequence of them can be checked once at the end.  The error
 * stays until xas_reset(), xas_set() or xas_set_order() clears it, or
 * xas_nomem() consumes a -ENOMEM.
 *
 * Context: Any; touches only the cursor.
 */
static inline void xas_set_err(struct xa_state *xas, long err)
{
	xas->xa_node = XA_ERROR(err);
}

/**
 * xas_invalid() - Is the cursor off any slot?
 * @xas: The cursor.
 *
 * Context: Any; reads only the cursor.
 * Return: true in XAS_RESTART, XAS_BOUNDS or an error state, where the
 * cursor has no slot that xas_reload(), xas_set_mark() and the like could
 * use; false when it is on a slot of a node or on the head.
 */
static inline bool xas_invalid(const struct xa_state *xas)
{
	return (unsigned long)xas->xa_node & 3;
}

/**
 * xas_valid() - Is the cursor on a slot?
 * @xas: The cursor.
 *
 * Context: Any; reads only the cursor.
 * Return: true if the cursor is on a slot of a node or on the head of the
 * array (the opposite of xas_invalid()).
 */
static inline bool xas_valid(const struct xa_state *xas)
{
	return !xas_invalid(xas);
}

/**
 * xas_is_node() - Is the cursor on a slot of a node?
 * @xas: The cursor.
 *
 * Context: Any; reads only the cursor.
 * Return: true if the cursor is on a slot of a node; false on the head
 * or off any slot.
 */
static inline bool xas_is_node(const struct xa_state *xas)
{
	return xas_valid(xas) && xas->xa_node;
}

/* xas_not_node() - Is @node NULL (the head) or a special state? */
static inline bool xas_not_node(struct xa_node *node)
{
	return ((unsigned long)node & 3) || !node;
}

/* xas_frozen() - Is @node XAS_RESTART or an error? */
static inline bool xas_frozen(struct xa_node *node)
{
	return (unsigned long)node & 2;
}

/* xas_top() - Is @node NULL (the head), XAS_BOUNDS or XAS_RESTART? */
static inline bool xas_top(struct xa_node *node)
{
	return node <= XAS_RESTART;
}

/**
 * xas_reset() - Forget where the cursor is, keeping its index and order.
 * @xas: The cursor.
 *
 * Sets XAS_RESTART, clearing any error, so that the next operation walks
 * from the root.  Needed whenever the cursor's slot may be stale: after
 * xa_lock was dropped or the RCU read-side section left, or after a retry
 * entry.
 *
 * Context: Any; touches only the cursor.
 */
static inline void xas_reset(struct xa_state *xas)
{
	xas->xa_node = XAS_RESTART;
}

/**
 * xas_retry() - Is @entry something a lookup loop must not use?
 * @xas: The cursor that returned @entry.
 * @entry: What xas_load(), xas_find(), xas_next() or an xas_ iterator
 *	returned.
 *
 * Two internal entries are not results: XA_ZERO_ENTRY, a reservation,
 * which lookups skip, and XA_RETRY_ENTRY, which a lockless reader meets
 * when a writer has moved the part of the tree it was in.  For a retry
 * entry the cursor is reset so that the next step walks again from the
 * root; for a zero entry it is left alone, so that an iteration goes on
 * with the next entry.  The usual use is "if (xas_retry(&xas, entry))
 * continue;" at the top of an xas_for_each() body.  A loop that rereads
 * the same index with xas_load() must test xa_is_zero() itself: it would
 * meet the same zero entry forever.
 *
 * Context: Any; touches only the cursor.
 * Return: true if @entry is a zero or a retry entry, false otherwise.
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

/*
 * The advanced operations.  They work through a cursor and record any
 * failure in it (read it with xas_error()).  lib/xarray.c and
 * lib/xarray_split.c describe how they work inside.
 */

/**
 * xas_load() - Read the entry at the cursor's index.
 * @xas: The cursor.
 *
 * A cursor that is off any slot (XAS_RESTART, XAS_BOUNDS) walks from the
 * root: one walk.  A cursor on a slot reads that slot again, without a
 * walk.  If the cursor's order is larger than the entries below some
 * node, the walk stops above them and returns that node: the thing a
 * store of the cursor's range would replace.  An index beyond the tree
 * gives NULL with the cursor in XAS_BOUNDS.  A cursor in an error state
 * reads NULL.
 *
 * Context: RCU read lock or xa_lock.
 * Return: The entry (a sibling slot resolves to its canonical entry),
 * NULL, XA_ZERO_ENTRY, XA_RETRY_ENTRY (only without the lock), or a node
 * entry.
 */
void *xas_load(struct xa_state *xas);

/**
 * xas_store() - Store an entry over the cursor's range.
 * @xas: The cursor; its order (XA_STATE_ORDER(), xas_set_order()) sets
 *	how many indices, 2^order, the new entry covers.
 * @entry: A pointer, a value entry, XA_ZERO_ENTRY, or NULL to erase.
 *	Nothing is checked.
 *
 * A cursor already on the slot (after xas_load(), a find or
 * xas_find_conflict()) stores without a new walk; otherwise the store
 * walks from the root and creates the nodes it needs.  Storing into part
 * of a larger entry replaces all of it; a multi-index store replaces
 * everything in its range and takes over the marks of what it replaces.
 * A non-NULL store keeps the slot's marks, NULL clears them (in an
 * allocating array it marks the slots free).  Unlike xa_store(), NULL
 * erases in an allocating array too, and a non-NULL store there does not
 * clear XA_FREE_MARK: call xas_clear_mark(@xas, XA_FREE_MARK) after it.
 * Nodes that become empty are freed after an RCU grace period.
 *
 * Context: Caller holds xa_lock.
 * Errors: -ENOMEM in the cursor if a node could not be allocated without
 * waiting; nothing is stored then (see xas_nomem()).  A cursor already in
 * an error state stores nothing.
 * Return: What was in the cursor's first slot before (an entry, NULL,
 * XA_ZERO_ENTRY or a node entry); NULL if nothing was stored.
 */
void *xas_store(struct xa_state *xas, void *entry);

/**
 * xas_find() - Move the cursor to the next present entry.
 * @xas: The cursor.
 * @max: The last index to consider (inclusive).
 *
 * From XAS_RESTART, returns the entry covering xa_index if there is one,
 * leaving xa_index as it is.  Otherwise, and from a cursor on an entry,
 * moves on to the next entry that starts no later than @max and sets
 * xa_index to its first index.  Sibling slots are passed over;
 * XA_ZERO_ENTRY and XA_RETRY_ENTRY are returned (see xas_retry()).  The
 * first call from XAS_RESTART walks from the root, the following ones do
 * not.
 *
 * Context: RCU read lock or xa_lock.
 * Return: The entry, or NULL when nothing is left up to @max; the cursor
 * is then in XAS_BOUNDS, and further calls return NULL.  A cursor in an
 * error state returns NULL.
 */
void *xas_find(struct xa_state *xas, unsigned long max);

/**
 * xas_find_conflict() - Return, one per call, the entries a store of the
 * cursor's range would replace.
 * @xas: A cursor aimed at a range (XA_STATE_ORDER(), xas_set_order()).
 *
 * The first call walks to the start of the range and returns the entry
 * covering it, if any, which may be larger than the range.  Each later
 * call returns the next present entry inside the range, reservations
 * included.  After the last one NULL comes back and, when the range lies
 * inside the tree, the cursor is left where xas_store() can store the
 * range without another walk.  Usually driven by xas_for_each_conflict().
 *
 * Context: Caller holds xa_lock.
 * Return: The next entry in the range, or NULL.
 */
void *xas_find_conflict(struct xa_state *xas);

/**
 * xas_get_mark() - Does the slot under the cursor carry a mark?
 * @xas: A cursor on a slot (after a load or a find).
 * @mark: XA_MARK_0, XA_MARK_1 or XA_MARK_2.
 *
 * For a slot that holds a child node the bit means that something below
 * carries the mark; on the head it is the array-wide bit of xa_marked().
 *
 * Context: RCU read lock or xa_lock.
 * Return: true if the mark is set; false if not, if the cursor is off any
 * slot, or if @mark is not a mark.
 */
bool xas_get_mark(const struct xa_state *xas, xa_mark_t mark);

/**
 * xas_set_mark() - Set a mark on the entry under the cursor.
 * @xas: A cursor on an entry (after a load or a find).
 * @mark: XA_MARK_0, XA_MARK_1 or XA_MARK_2.
 *
 * The mark is recorded in every node above as well, up to the array-wide
 * bit.  The slot must hold an entry; that is not checked.  Nothing
 * happens if the cursor is off any slot or @mark is not a mark.
 *
 * Context: Caller holds xa_lock.
 */
void xas_set_mark(const struct xa_state *xas, xa_mark_t mark);

/**
 * xas_clear_mark() - Clear a mark on the entry under the cursor.
 * @xas: A cursor on an entry (after a load or a find).
 * @mark: XA_MARK_0, XA_MARK_1 or XA_MARK_2.
 *
 * The nodes above lose the mark as long as nothing else below them
 * carries it.  Nothing happens if the cursor is off any slot or @mark is
 * not a mark.
 *
 * Context: Caller holds xa_lock.
 */
void xas_clear_mark(const struct xa_state *xas, xa_mark_t mark);

/**
 * xas_find_marked() - Move the cursor to the next entry carrying a mark.
 * @xas: The cursor.
 * @max: The last index to consider (inclusive).
 * @mark: XA_MARK_0, XA_MARK_1 or XA_MARK_2; any other value finds
 *	nothing.
 *
 * As xas_find(), restricted to entries with @mark; subtrees without it
 * are skipped whole.  A cursor in XAS_RESTART or XAS_BOUNDS walks from
 * the root starting at xa_index.  In an allocating array a search for
 * XA_FREE_MARK stops at the first free slot and returns NULL with the
 * cursor on that slot (xa_index is its index); xa_alloc() works that way.
 *
 * Context: RCU read lock or xa_lock.
 * Return: The entry, or NULL.  After NULL the cursor says why: XAS_RESTART
 * with xa_index beyond @max when the next candidate lies past @max;
 * XAS_BOUNDS with xa_index just past the tree when the tree ended first.
 * A cursor in an error state returns NULL and is left alone.
 */
void *xas_find_marked(struct xa_state *xas, unsigned long max, xa_mark_t mark);

/**
 * xas_init_marks() - Reset the marks of the slot under the cursor.
 * @xas: A cursor on a slot.
 *
 * Clears every mark, except that in an allocating array XA_FREE_MARK is
 * set instead.  xas_store() of NULL does this by itself.
 *
 * Context: Caller holds xa_lock.
 */
void xas_init_marks(const struct xa_state *xas);

/**
 * xas_nomem() - After an operation ran out of memory, allocate and say
 * whether to try again.
 * @xas: The cursor of the operation.
 * @gfp: GFP_KERNEL waits for memory; GFP_NOWAIT does not and may fail.
 *
 * Meant as the condition of a retry loop around a locked operation:
 * "do { xas_lock(); ...; xas_unlock(); } while (xas_nomem(&xas, gfp));".
 * If the cursor holds -ENOMEM, one node is allocated and kept in the
 * cursor, the cursor is reset to XAS_RESTART (error cleared) and true is
 * returned.  Otherwise the nodes the cursor holds are freed (xas_destroy())
 * and false is returned; the loop ends with the result in xas_error().
 * If the allocation fails, false is returned, -ENOMEM stays in the cursor
 * and nodes it already held are not freed (xas_try_split() can leave
 * some there): call xas_destroy() when giving up.
 *
 * Context: Must not hold xa_lock if @gfp may wait.
 * Return: true if the operation should be retried.
 */
bool xas_nomem(struct xa_state *xas, gfp_t gfp);

/**
 * xas_destroy() - Free the nodes a cursor keeps in reserve.
 * @xas: The cursor.
 *
 * Frees the nodes xas_nomem() or xas_split_alloc() put in @xas->xa_alloc
 * that no operation used.  xas_nomem() calls it when there is nothing to
 * retry; call it yourself when abandoning a cursor that may still hold
 * some, e.g. after xas_split_alloc() when the split is not made.
 *
 * Context: Any thread; no lock needed (readers never saw these nodes).
 */
void xas_destroy(struct xa_state *xas);

/**
 * xas_pause() - Let an iteration drop its lock.
 * @xas: The cursor of the iteration.
 *
 * Moves the cursor to the first index after the entry it is on and puts
 * it in XAS_RESTART (XAS_BOUNDS if that would pass ULONG_MAX).  After the
 * lock or the RCU read-side section has been dropped and taken again, the
 * next step of xas_for_each() or xas_find() walks from the root from
 * there, without returning the same entry twice.  A cursor off any slot
 * is left alone.
 *
 * Context: RCU read lock or xa_lock, still held when this is called.
 */
void xas_pause(struct xa_state *xas);

/**
 * xas_create_range() - Create a leaf slot for every index of the cursor's
 * range.
 * @xas: A cursor aimed at a range (XA_STATE_ORDER()).
 *
 * Afterwards each index of the range has its own order-0 slot, so the
 * caller can fill them one by one (xas_next() and xas_store()) without
 * allocating; until they are filled the new leaf nodes are empty.  The
 * cursor becomes an order-0 cursor on the first index of the range.
 *
 * Context: Caller holds xa_lock.
 * Errors: -ENOMEM in the cursor; the nodes created so far are removed
 * again and the cursor keeps its order.
 */
void xas_create_range(struct xa_state *xas);

/**
 * xas_get_order() - The order of the entry under the cursor.
 * @xas: A cursor on an entry (after a load or a find).
 *
 * Counts the sibling slots after the entry in its node: no walk.
 *
 * Context: RCU read lock or xa_lock.
 * Return: The order, from 0 to BITS_PER_LONG; 0 on the head or for a
 * cursor off any slot.
 */
int xas_get_order(struct xa_state *xas);

/**
 * xas_split_alloc() - Prepare, without the lock, what a split will need.
 * @xas: A cursor with the new, smaller order (XA_STATE_ORDER()) at an
 *	index of the entry to split.
 * @entry: The entry xas_split() will store; give it the same one.
 * @order: The current order of the entry.
 * @gfp: Whether the allocations may wait.
 *
 * If the new order lies on a lower tree level than @order, the complete
 * subtrees that will replace the entry's slots are built here, entries
 * included, and kept in the cursor; on the same level nothing is needed.
 * Any number of levels is supported, up to 65536 nodes in all.  If the
 * split is then not made, free the subtrees with xas_destroy().
 *
 * Context: Takes no lock; must not hold xa_lock if @gfp may wait.
 * Errors: in the cursor: -ENOMEM if memory ran out; -E2BIG if more than
 * 65536 nodes would be needed (no xas_nomem() retry can help); either
 * way the cursor then holds nothing; -EINVAL if @order is above
 * BITS_PER_LONG.  A cursor already in an error state is left alone.
 */
void xas_split_alloc(struct xa_state *xas, void *entry, unsigned int order,
		     gfp_t gfp);

/**
 * xas_split() - Split a multi-index entry into entries of the cursor's
 * order.
 * @xas: A cursor with the new, smaller order at an index of the entry.
 * @entry: The entry every new piece gets (usually the old one).
 * @order: The current order of the entry.
 *
 * Afterwards every index of the old entry holds @entry, in entries of the
 * cursor's order that carry the old entry's marks, and lockless readers
 * see the old entry or a new one at every index throughout.  On a lower
 * tree level the subtrees prepared by xas_split_alloc() with the same
 * arguments are linked in (missing ones are built here from nodes left by
 * xas_nomem() and allocations that do not wait); on the same level no
 * memory is needed.  The cursor is left on its own index, ready for
 * xas_store().
 *
 * Context: Caller holds xa_lock.
 * Errors: in the cursor, with the array unchanged: -ENOMEM if the nodes
 * could not be had (drop the lock, xas_nomem() or xas_split_alloc(), try
 * again); -E2BIG if more than 65536 would be needed (as xas_split_alloc());
 * -EINVAL if the cursor's index holds nothing, or not an entry of order
 * @order, or the cursor's order is not smaller.
 */
void xas_split(struct xa_state *xas, void *entry, unsigned int order);

/**
 * xas_try_split() - Cut the cursor's piece out of a multi-index entry.
 * @xas: A cursor with the new, smaller order, at the index whose piece
 *	gets that order.
 * @entry: The entry every new piece gets.
 * @order: The current order of the entry.
 *
 * A non-uniform split: the piece of the cursor's order that contains
 * xa_index is cut out, and the rest of the old entry becomes the largest
 * aligned pieces around it, each holding @entry with the old marks.  An
 * order-9 entry split to order 0 at index 5 becomes pieces of orders 0
 * (index 5), 0 (4), 1 (6-7), 2 (0-3), 3 (8-15), 4, 5, 6, 7 and 8: ten
 * entries instead of 512.  It needs at most one new node per tree level
 * between the two orders: nodes the cursor got from xas_nomem() first,
 * then nodes allocated without waiting.  The cursor is left on its index,
 * ready for xas_store().
 *
 * Context: Caller holds xa_lock.
 * Errors: in the cursor, with the array unchanged: -ENOMEM if a node
 * could not be had (drop the lock, xas_nomem() or xas_try_split_alloc(),
 * try again); -EINVAL as for xas_split().
 */
void xas_try_split(struct xa_state *xas, void *entry, unsigned int order);

/**
 * xas_try_split_alloc() - Preallocate the nodes xas_try_split() needs.
 * @xas: A cursor with the new, smaller order.
 * @order: The current order of the entry to be split.
 * @gfp: Allocation flags.
 *
 * An upcache addition: leaves one blank node per tree level between the
 * two orders in the cursor, so that a following xas_try_split() under
 * the lock takes them and cannot fail for lack of memory.
 *
 * Context: Must not hold xa_lock if @gfp may wait.
 * Errors: in the cursor: -ENOMEM (the preallocation is freed); -EINVAL if
 * @order is above BITS_PER_LONG.
 */
void xas_try_split_alloc(struct xa_state *xas, unsigned int order, gfp_t gfp);

/* __xas_next(), __xas_prev() - Out-of-line steps of xas_next()/xas_prev(). */
void *__xas_next(struct xa_state *xas);
void *__xas_prev(struct xa_state *xas);

/*
 * Private: slot @offset of @node.  The acquire load pairs with the release
 * store by which a writer publishes a slot, so a node or object reached
 * through the slot is seen fully initialised.
 */
static inline void *xa_entry(const struct xa_node *node, unsigned int offset)
{
	return __atomic_load_n(&node->slots[offset], __ATOMIC_ACQUIRE);
}

/* Private: the head of @xa (acquire load; RCU read lock or xa_lock). */
static inline void *xa_head(const struct xarray *xa)
{
	return __atomic_load_n(&xa->xa_head, __ATOMIC_ACQUIRE);
}

/* Private: the parent of @node (acquire load; RCU read lock or xa_lock). */
static inline struct xa_node *xa_parent(const struct xa_node *node)
{
	return __atomic_load_n(&node->parent, __ATOMIC_ACQUIRE);
}

/**
 * xas_reload() - Read the cursor's slot again.
 * @xas: A cursor on a slot (xas_valid()): positioned by a load or a find
 *	and not reset since.
 *
 * For lockless lookups that must confirm what they found: look the entry
 * up under the RCU read lock, take a reference on the object, then reload
 * the slot; if it no longer holds the object, drop the reference and look
 * again.  A sibling slot is resolved to its canonical entry.  No walk is
 * made.  On a cursor off any slot (XAS_RESTART, XAS_BOUNDS, an error) it
 * dereferences a bad pointer; use xas_load() there.
 *
 * Context: RCU read lock or xa_lock, held without a break since the cursor
 * was positioned (otherwise its node may have been freed).
 * Return: What the slot holds now: an entry, NULL, XA_ZERO_ENTRY,
 * XA_RETRY_ENTRY if the node has left the tree, or a node entry (on the
 * head if the tree has grown since, or on a slot a split has turned into
 * a subtree since): never the object looked up, so a caller comparing
 * with it looks again.
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
	while (xa_is_sibling(entry)) {
		entry = xa_entry(node, xa_to_sibling(entry));
		/* Reshaped under a lockless reader: make it walk again. */
		if (xa_is_node(entry))
			return XA_RETRY_ENTRY;
	}
	return entry;
}

/**
 * xas_set() - Point the cursor at another index.
 * @xas: The cursor.
 * @index: The new index, aligned to the cursor's order (it is not
 *	rounded; xas_set_order() rounds).
 *
 * Keeps the order and resets the cursor (XAS_RESTART, any error cleared),
 * so the next operation walks from the root.  To step to a neighbouring
 * index without a walk, use xas_next() or xas_prev().
 *
 * Context: Any; touches only the cursor.
 */
static inline void xas_set(struct xa_state *xas, unsigned long index)
{
	xas->xa_index = index;
	xas->xa_node = XAS_RESTART;
}

/**
 * xas_advance() - Move the cursor within the entry it is on.
 * @xas: A cursor on an entry.
 * @index: An index covered by that entry, normally its last one.
 *
 * Sets xa_index and the slot without a walk.  Loops built on xas_next(),
 * which return every slot including siblings, use it to jump over the rest
 * of a multi-index entry.  For an index outside the entry use xas_set().
 *
 * Context: Any; touches only the cursor.
 */
static inline void xas_advance(struct xa_state *xas, unsigned long index)
{
	unsigned char shift = xas_is_node(xas) ? xas->xa_node->shift : 0;

	xas->xa_index = index;
	xas->xa_offset = (index >> shift) & XA_CHUNK_MASK;
}

/**
 * xas_set_order() - Aim the cursor at an aligned range of indices.
 * @xas: The cursor.
 * @index: Any index of the range; it is rounded down to a multiple of
 *	2^@order (to 0 for order BITS_PER_LONG).
 * @order: The range covers 2^@order indices, 0 <= @order <= BITS_PER_LONG.
 *	A larger order puts the cursor in error -EINVAL and changes nothing
 *	else.
 *
 * XA_STATE_ORDER() for an existing cursor.  Resets the cursor, clearing
 * any error, so the next operation walks from the root.
 *
 * Context: Any; touches only the cursor.
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
 * xas_set_update() - Be told about the nodes this cursor changes.
 * @xas: The cursor.
 * @update: The callback (see xa_update_node_t), or NULL for none.
 *
 * The page cache uses it to keep nodes that hold only shadow entries on a
 * list (xa_node.private_list).  Only operations through this cursor call
 * it; the xa_ functions never do.
 *
 * Context: Any; touches only the cursor.
 */
static inline void xas_set_update(struct xa_state *xas, xa_update_node_t update)
{
	xas->xa_update = update;
}

/**
 * xas_set_lru() - Name the list that nodes allocated through @xas join.
 * @xas: The cursor.
 * @lru: The list.
 *
 * In the kernel the node allocator accounts new nodes to this list.
 * upcache has no such allocator: the pointer is stored and never used.
 *
 * Context: Any; touches only the cursor.
 */
static inline void xas_set_lru(struct xa_state *xas, struct list_lru *lru)
{
	xas->xa_lru = lru;
}

/**
 * xas_next_entry() - Move the cursor to the next present entry (the step
 * of xas_for_each()).
 * @xas: The cursor.
 * @max: The last index to consider (inclusive).
 *
 * Gives the same result as xas_find(@xas, @max).  When the next entry is
 * a plain entry in the same leaf node it is found here by scanning the
 * following slots; every other case is left to xas_find().
 *
 * Context: RCU read lock or xa_lock.
 * Return: The next entry after the cursor's (XA_ZERO_ENTRY and
 * XA_RETRY_ENTRY included), or NULL when nothing is left up to @max.
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
 * xas_next_marked() - Move the cursor to the next entry carrying a mark
 * (the step of xas_for_each_marked()).
 * @xas: The cursor.
 * @max: The last index to consider (inclusive).
 * @mark: XA_MARK_0, XA_MARK_1 or XA_MARK_2.
 *
 * The same as xas_find_marked().
 *
 * Context: RCU read lock or xa_lock.
 * Return: The next marked entry after the cursor's, or NULL.
 */
static inline void *xas_next_marked(struct xa_state *xas, unsigned long max,
				    xa_mark_t mark)
{
	return xas_find_marked(xas, max, mark);
}

/**
 * xas_for_each() - Loop over the present entries from the cursor to @max.
 * @xas: The cursor.  A cursor in XAS_RESTART starts with the entry that
 *	covers its index, if any.
 * @entry: A void * lvalue: the entry of each pass.
 * @max: The last index (inclusive).
 *
 * Walks from the root once, then moves through the tree.  Reservations
 * and retry entries reach the body: begin it with "if (xas_retry(xas,
 * entry)) continue;".  Hold the RCU read lock or xa_lock for the whole
 * loop.  Under xa_lock the body may store through the cursor, erasing the
 * current entry for instance.  To drop the lock or the RCU read-side
 * section inside the loop, call xas_pause() first and take it again
 * before the next pass.  When the loop ends by itself, @entry is NULL.
 */
#define xas_for_each(xas, entry, max) \
	for (entry = xas_find(xas, max); entry; \
	     entry = xas_next_entry(xas, max))

/**
 * xas_for_each_marked() - Loop over the entries carrying a mark, from the
 * cursor to @max.
 * @xas: The cursor.
 * @entry: A void * lvalue: the entry of each pass.
 * @max: The last index (inclusive).
 * @mark: XA_MARK_0, XA_MARK_1 or XA_MARK_2; any other value visits
 *	nothing, and so does XA_FREE_MARK in an allocating array.
 *
 * The rules of xas_for_each() apply; unmarked subtrees are skipped whole.
 */
#define xas_for_each_marked(xas, entry, max, mark) \
	for (entry = xas_find_marked(xas, max, mark); entry; \
	     entry = xas_next_marked(xas, max, mark))

/**
 * xas_for_each_conflict() - Loop over the entries a store of the cursor's
 * range would replace.
 * @xas: A cursor aimed at a range (XA_STATE_ORDER(), xas_set_order()).
 * @entry: A void * lvalue: the entry of each pass.
 *
 * Each pass gets one entry from xas_find_conflict(): first the entry
 * covering the start of the range (possibly a larger one), then every
 * present entry inside the range, reservations included.  If the loop
 * runs to its end, @entry is NULL and the cursor is ready for xas_store()
 * of the range.  A body that breaks out leaves @entry on the entry in the
 * way; one that calls xas_set_err() ends the loop too, and the error then
 * makes the following xas_store() do nothing.
 *
 * Context: Caller holds xa_lock.
 */
#define xas_for_each_conflict(xas, entry) \
	while ((entry = xas_find_conflict(xas)))

/**
 * xas_prev() - Step the cursor to the index below and read it.
 * @xas: The cursor.
 *
 * A cursor in XAS_RESTART does not move: it reads its own index, as
 * xas_load() does.  A cursor in an error state stays so and reads NULL.
 * Otherwise xa_index goes down by one (from 0 it wraps to ULONG_MAX) and
 * the cursor follows: within its node at no cost, else through parent and
 * child pointers, which is not a walk from the root.  A cursor in
 * XAS_BOUNDS walks from the root.  If the new index lies outside the
 * tree, the cursor ends in XAS_BOUNDS.
 *
 * Context: RCU read lock or xa_lock.
 * Return: The raw contents of the new slot: an entry, NULL, a sibling
 * entry (inside a multi-index entry; see xas_advance()), XA_ZERO_ENTRY or
 * XA_RETRY_ENTRY.  NULL outside the tree.
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
 * xas_next() - Step the cursor to the index above and read it.
 * @xas: The cursor.
 *
 * A cursor in XAS_RESTART does not move: it reads its own index, as
 * xas_load() does.  A cursor in an error state stays so and reads NULL.
 * Otherwise xa_index goes up by one (from ULONG_MAX it wraps to 0) and
 * the cursor follows: within its node at no cost, else through parent and
 * child pointers, which is not a walk from the root.  A cursor in
 * XAS_BOUNDS walks from the root.  If the new index lies outside the
 * tree, the cursor ends in XAS_BOUNDS.
 *
 * Context: RCU read lock or xa_lock.
 * Return: The raw contents of the new slot: an entry, NULL, a sibling
 * entry (inside a multi-index entry; see xas_advance()), XA_ZERO_ENTRY or
 * XA_RETRY_ENTRY.  NULL outside the tree.
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
