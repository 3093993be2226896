/* SPDX-License-Identifier: MIT */
/*
 * lib/xarray_internal.h - what lib/xarray.c shares with the other files
 * that work on XArray nodes (lib/xarray_split.c, lib/xarray_check.c).
 *
 * Memory-ordering rules the helpers encode:
 *  - Only writers (holding xa_lock) change slots, marks, parents and the
 *    head; they read them with relaxed loads.
 *  - A writer publishes a slot or the head with a release store, after
 *    everything the new entry or node points to is initialised; lockless
 *    readers load slots with xa_entry()/xa_head() (acquire).
 *  - Mark words and xa_flags are read locklessly with relaxed loads, so
 *    writers store them atomically too (no read-modify-write is needed:
 *    writers are serialised by the lock).
 */
#ifndef UPCACHE_LIB_XARRAY_INTERNAL_H
#define UPCACHE_LIB_XARRAY_INTERNAL_H

#include <stdbool.h>

#include "upcache/xarray.h"

#include "stats_internal.h"
#include "xa_node.h"

#define UPC_INTERNAL	__attribute__((visibility("hidden")))

/* ---- slots, head and parent links ------------------------------------ */

static inline void *xa_slot_locked(const struct xa_node *node,
				   unsigned int offset)
{
	return __atomic_load_n(&node->slots[offset], __ATOMIC_RELAXED);
}

static inline void *xa_head_locked(const struct xarray *xa)
{
	return __atomic_load_n(&xa->xa_head, __ATOMIC_RELAXED);
}

static inline struct xa_node *xa_parent_locked(const struct xa_node *node)
{
	return __atomic_load_n(&node->parent, __ATOMIC_RELAXED);
}

/* Make @entry visible in @slot (a node slot or xa_head). */
static inline void xa_slot_publish(void **slot, void *entry)
{
	__atomic_store_n(slot, entry, __ATOMIC_RELEASE);
}

static inline void xa_node_set_parent(struct xa_node *node,
				      struct xa_node *parent)
{
	__atomic_store_n(&node->parent, parent, __ATOMIC_RELEASE);
}

/* ---- array flags -------------------------------------------------------- */

static inline gfp_t xa_flags_get(const struct xarray *xa)
{
	return __atomic_load_n(&xa->xa_flags, __ATOMIC_RELAXED);
}

static inline void xa_flags_put(struct xarray *xa, gfp_t flags)
{
	__atomic_store_n(&xa->xa_flags, flags, __ATOMIC_RELAXED);
}

static inline bool xa_track_free(const struct xarray *xa)
{
	return xa_flags_get(xa) & XA_FLAGS_TRACK_FREE;
}

/* Index 0 of an XA_FLAGS_ALLOC1 array is never handed out. */
static inline bool xa_zero_busy(const struct xarray *xa)
{
	return xa_flags_get(xa) & XA_FLAGS_ZERO_BUSY;
}

static inline void xa_head_mark_set(struct xarray *xa, xa_mark_t mark)
{
	xa_flags_put(xa, xa_flags_get(xa) | XA_FLAGS_MARK(mark));
}

static inline void xa_head_mark_clear(struct xarray *xa, xa_mark_t mark)
{
	xa_flags_put(xa, xa_flags_get(xa) & ~XA_FLAGS_MARK(mark));
}

/* ---- per-node mark bitmaps --------------------------------------------- */

#define XA_MARK_BIT(offset)	(1UL << ((offset) % BITS_PER_LONG))
#define XA_MARK_WORD(offset)	((offset) / BITS_PER_LONG)

static inline unsigned long node_mark_word(const struct xa_node *node,
					   xa_mark_t mark, unsigned int word)
{
	return __atomic_load_n(&node->marks[mark][word], __ATOMIC_RELAXED);
}

static inline void node_mark_word_put(struct xa_node *node, xa_mark_t mark,
				      unsigned int word, unsigned long bits)
{
	__atomic_store_n(&node->marks[mark][word], bits, __ATOMIC_RELAXED);
}

static inline bool node_get_mark(const struct xa_node *node,
				 unsigned int offset, xa_mark_t mark)
{
	return node_mark_word(node, mark, XA_MARK_WORD(offset)) &
		XA_MARK_BIT(offset);
}

/* Set a bit; Return: true if it was already set. */
static inline bool node_set_mark(struct xa_node *node, unsigned int offset,
				 xa_mark_t mark)
{
	unsigned int word = XA_MARK_WORD(offset);
	unsigned long bits = node_mark_word(node, mark, word);

	if (bits & XA_MARK_BIT(offset))
		return true;
	node_mark_word_put(node, mark, word, bits | XA_MARK_BIT(offset));
	return false;
}

/* Clear a bit; Return: true if it was set. */
static inline bool node_clear_mark(struct xa_node *node, unsigned int offset,
				   xa_mark_t mark)
{
	unsigned int word = XA_MARK_WORD(offset);
	unsigned long bits = node_mark_word(node, mark, word);

	if (!(bits & XA_MARK_BIT(offset)))
		return false;
	node_mark_word_put(node, mark, word, bits & ~XA_MARK_BIT(offset));
	return true;
}

static inline bool node_any_mark(const struct xa_node *node, xa_mark_t mark)
{
	unsigned int word;

	for (word = 0; word < XA_MARK_LONGS; word++)
		if (node_mark_word(node, mark, word))
			return true;
	return false;
}

/* First slot at or after @start with @mark set, or XA_CHUNK_SIZE. */
static inline unsigned int node_next_mark(const struct xa_node *node,
					  xa_mark_t mark, unsigned int start)
{
	unsigned int word = XA_MARK_WORD(start);
	unsigned long bits;

	if (start >= XA_CHUNK_SIZE)
		return XA_CHUNK_SIZE;
	bits = node_mark_word(node, mark, word) &
		(~0UL << (start % BITS_PER_LONG));
	for (;;) {
		if (bits) {
			unsigned int found = word * BITS_PER_LONG +
				__builtin_ctzl(bits);

			return found < XA_CHUNK_SIZE ? found : XA_CHUNK_SIZE;
		}
		if (++word >= XA_MARK_LONGS)
			return XA_CHUNK_SIZE;
		bits = node_mark_word(node, mark, word);
	}
}

/* Mark every slot of a node (XA_FREE_MARK in a fresh node). */
static inline void node_mark_all(struct xa_node *node, xa_mark_t mark)
{
	unsigned int offset;

	for (offset = 0; offset < XA_CHUNK_SIZE; offset += BITS_PER_LONG) {
		unsigned int left = XA_CHUNK_SIZE - offset;
		unsigned long bits = left >= BITS_PER_LONG ?
			~0UL : (1UL << left) - 1;

		node_mark_word_put(node, mark, XA_MARK_WORD(offset), bits);
	}
}

/* The marks of one slot as a bitmask: bit m set when mark m is. */
static inline unsigned int node_get_marks(const struct xa_node *node,
					  unsigned int offset)
{
	unsigned int marks = 0;
	xa_mark_t mark;

	for (mark = 0; mark <= XA_MARK_MAX; mark++)
		if (node_get_mark(node, offset, mark))
			marks |= 1U << mark;
	return marks;
}

/* Set the marks in bitmask @marks on one slot, without propagation. */
static inline void node_set_marks(struct xa_node *node, unsigned int offset,
				  unsigned int marks)
{
	xa_mark_t mark;

	for (mark = 0; mark <= XA_MARK_MAX; mark++)
		if (marks & (1U << mark))
			node_set_mark(node, offset, mark);
}

/* ---- index arithmetic ---------------------------------------------------- */

/*
 * All the indices a node of @shift spans, minus one.  Wraps to ULONG_MAX
 * for a top node that reaches the end of the index space.
 */
static inline unsigned long node_span_mask(unsigned int shift)
{
	return ((unsigned long)XA_CHUNK_SIZE << shift) - 1;
}

/* The slot of @node that covers the cursor's index. */
static inline unsigned int xas_slot_of(const struct xa_state *xas,
				       const struct xa_node *node)
{
	return (xas->xa_index >> node->shift) & XA_CHUNK_MASK;
}

/* The last index of the range the cursor's order covers. */
static inline unsigned long xas_last(const struct xa_state *xas)
{
	unsigned long span = ((unsigned long)xas->xa_sibs + 1) << xas->xa_shift;

	return xas->xa_index | (span - 1);
}

/* Tell the array's owner that @node changed (see xas_set_update()). */
static inline void xas_update(struct xa_state *xas, struct xa_node *node)
{
	if (xas->xa_update)
		xas->xa_update(node);
}

/* ---- shared between lib/xarray.c and lib/xarray_split.c ---------------- */

/*
 * Preallocated nodes hang off xas->xa_alloc, linked through ->parent.
 * A blank node (count 0) comes from xas_nomem(); a prebuilt subtree
 * (count > 0) from xas_split_alloc().
 */
UPC_INTERNAL void xa_chain_push(struct xa_state *xas, struct xa_node *node);
UPC_INTERNAL struct xa_node *xa_chain_take(struct xa_state *xas,
					   bool prebuilt);

/* Free a node no reader has seen, with any prebuilt children. */
UPC_INTERNAL void xa_node_release_unused(struct xa_node *node);

/* Walk to (and create) the slots of the cursor's range; see lib/xarray.c. */
UPC_INTERNAL void *xas_create(struct xa_state *xas, bool allow_root);

/* Delete @node and its ancestors while they are empty. */
UPC_INTERNAL void xas_prune_empty(struct xa_state *xas, struct xa_node *node);

/* Drop top levels holding only slot 0, after a failed creation. */
UPC_INTERNAL void xas_shrink_top(struct xa_state *xas);

#endif /* UPCACHE_LIB_XARRAY_INTERNAL_H */
