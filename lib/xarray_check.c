// SPDX-License-Identifier: MIT
/*
 * lib/xarray_check.c - the XArray invariant checker, upc_check_xarray().
 *
 * This file owns the structural invariants of the tree that lib/xarray.c
 * builds (the contract in docs and include/upcache/xarray.h), checked
 * from scratch by one recursive walk.  It reads the tree only through
 * the public layout of struct xa_node and the entry helpers of
 * include/upcache/xarray.h; it shares no code with lib/xarray.c, so a
 * mistake there is not repeated here.  It is for tests and debug builds:
 * O(nodes * XA_CHUNK_SIZE), never on a fast path.
 *
 * What is checked, per node (top first):
 *   1. links: ->array is the array, ->parent the node above (NULL for
 *      the top), ->offset the slot the parent keeps it in (0 for the
 *      top), ->shift a multiple of XA_CHUNK_SHIFT below BITS_PER_LONG and
 *      exactly XA_CHUNK_SHIFT below the parent's, so every child covers
 *      a subrange of its parent slot;
 *   2. slots: no retry entry, no internal entry other than nodes,
 *      siblings and the zero entry, no node below shift 0, nothing in the
 *      slots of a top node that lie beyond index ULONG_MAX;
 *   3. siblings: each names a canonical slot before it, directly
 *      preceded by that canonical slot or another sibling naming it, the
 *      canonical slot holds a real entry (not NULL, a node or a sibling),
 *      and each run (canonical + siblings) is a power of two long and
 *      aligned to its length;
 *   4. counters: ->count is the number of non-NULL slots and is not 0,
 *      ->nr_values the number of slots whose entry, or whose canonical
 *      entry for a sibling, is a value;
 *   5. marks: only on canonical non-NULL slots, except that in an
 *      XA_FLAGS_TRACK_FREE array XA_MARK_0 (the free mark) is set on
 *      exactly the NULL slots; for a slot holding a node, the bit is set
 *      if and only if the child has that mark on some slot; no bit set
 *      past XA_CHUNK_SIZE;
 * and for the head:
 *   6. a non-node head is never a sibling, retry or other internal entry
 *      (the zero entry is allowed) and stands for index 0 alone;
 *   7. the mark flags in xa_flags (XA_FLAGS_MARK(m)) agree with the top:
 *      for a top node, set iff the node has a slot with the mark; for an
 *      empty array, clear (the free mark: set, unless index 0 is
 *      reserved by XA_FLAGS_ZERO_BUSY, where either is allowed); for a
 *      lone entry, anything, except that the free mark is clear.
 *
 * Not checked: whether the top could be shrunk.  The contract shrinks the
 * tree after deletions only, so a top node holding nothing but a node in
 * slot 0 is legal after a split or a reservation at index 0.
 *
 * Conventions: @xa is the array, @node a node, @offset a slot in it,
 * @index the first index a slot covers.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "upcache/check.h"

/* Marks are read with relaxed loads: writers store them atomically. */
static bool check_mark(const struct xa_node *node, unsigned int offset,
		       xa_mark_t mark)
{
	unsigned long word = __atomic_load_n(
		&node->marks[mark][offset / BITS_PER_LONG], __ATOMIC_RELAXED);

	return word & (1UL << (offset % BITS_PER_LONG));
}

/* First index covered by slot @offset of a node of @shift at @base. */
static unsigned long slot_index(unsigned long base, unsigned int shift,
				unsigned int offset)
{
	return base + ((unsigned long)offset << shift);
}

/*
 * report() - Print one violation and return -EUCLEAN.  @node may be NULL
 * for the head; @offset is then ignored.
 */
static int __attribute__((format(printf, 6, 7)))
report(const struct xarray *xa, const struct xa_node *node,
       unsigned int offset, unsigned long index, bool have_slot,
       const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "upc_check_xarray: xa %p: ", (const void *)xa);
	if (node)
		fprintf(stderr, "node %p shift %u offset %u count %u: ",
			(const void *)node, node->shift, node->offset,
			node->count);
	else
		fprintf(stderr, "head: ");
	if (node && have_slot)
		fprintf(stderr, "slot %u (index %#lx): ", offset, index);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	return -EUCLEAN;
}

#define node_fail(xa, node, base, fmt, ...)				\
	report(xa, node, 0, base, false, fmt, ##__VA_ARGS__)
#define slot_fail(xa, node, base, offset, fmt, ...)			\
	report(xa, node, offset, slot_index(base, (node)->shift, offset), \
	       true, fmt, ##__VA_ARGS__)

/* Number of slots of a node of @shift that cover real indices. */
static unsigned int slots_in_range(unsigned int shift)
{
	if (shift + XA_CHUNK_SHIFT <= BITS_PER_LONG)
		return XA_CHUNK_SIZE;
	return 1U << (BITS_PER_LONG - shift);
}

static int check_node(struct xarray *xa, struct xa_node *node,
		      struct xa_node *parent, unsigned int offset,
		      unsigned long base, unsigned int *marks_out);

/*
 * check_links() - Step 1 for @node, found in slot @offset of @parent (or
 * at the head when @parent is NULL).
 */
static int check_links(struct xarray *xa, const struct xa_node *node,
		       const struct xa_node *parent, unsigned int offset,
		       unsigned long base)
{
	if (node->array != xa)
		return node_fail(xa, node, base, "->array is %p, not the array",
				 (void *)node->array);
	if (xa_parent(node) != parent)
		return node_fail(xa, node, base, "->parent is %p, expected %p",
				 (void *)xa_parent(node), (const void *)parent);
	if (node->offset != offset)
		return node_fail(xa, node, base, "->offset is %u, expected %u",
				 node->offset, offset);
	if (node->shift % XA_CHUNK_SHIFT || node->shift >= BITS_PER_LONG)
		return node_fail(xa, node, base, "bad shift %u", node->shift);
	if (parent && node->shift + XA_CHUNK_SHIFT != parent->shift)
		return node_fail(xa, node, base,
				 "shift %u under a parent of shift %u",
				 node->shift, parent->shift);
	if (node->count > XA_CHUNK_SIZE || node->nr_values > node->count)
		return node_fail(xa, node, base, "count %u nr_values %u",
				 node->count, node->nr_values);
	return 0;
}

/*
 * check_sibling() - Step 3 for the sibling entry @entry in slot @offset.
 * Return: 0, and *@is_value says whether the canonical entry is a value.
 */
static int check_sibling(struct xarray *xa, struct xa_node *node,
			 unsigned long base, unsigned int offset, void *entry,
			 bool *is_value)
{
	unsigned long canon = xa_to_sibling(entry);
	void *prev, *head;

	if (offset == 0 || canon >= offset)
		return slot_fail(xa, node, base, offset,
				 "sibling names slot %lu, not a slot before it",
				 canon);
	prev = xa_entry(node, offset - 1);
	if (offset - 1 != canon && prev != entry)
		return slot_fail(xa, node, base, offset,
				 "sibling of slot %lu not directly after its run (slot %u holds %p)",
				 canon, offset - 1, prev);
	head = xa_entry(node, (unsigned int)canon);
	if (!head || xa_is_sibling(head) || xa_is_node(head))
		return slot_fail(xa, node, base, offset,
				 "sibling names slot %lu, which holds %p",
				 canon, head);
	*is_value = xa_is_value(head);
	return 0;
}

/*
 * check_run() - Step 3 for the run that starts at canonical slot @offset:
 * its length is a power of two and the canonical slot is aligned to it.
 */
static int check_run(struct xarray *xa, struct xa_node *node,
		     unsigned long base, unsigned int offset)
{
	void *sib = xa_mk_sibling(offset);
	unsigned int len = 1;

	while (offset + len < XA_CHUNK_SIZE &&
	       xa_entry(node, offset + len) == sib)
		len++;
	if (len & (len - 1))
		return slot_fail(xa, node, base, offset,
				 "multi-index entry of %u slots, not a power of two",
				 len);
	if (offset % len)
		return slot_fail(xa, node, base, offset,
				 "multi-index entry of %u slots not aligned",
				 len);
	return 0;
}

/*
 * check_slot_marks() - Step 5 for a slot that does not hold a node.
 * @used: the slot holds something (a sibling or a canonical entry);
 * @canonical: it holds an entry that may carry marks.
 */
static int check_slot_marks(struct xarray *xa, struct xa_node *node,
			    unsigned long base, unsigned int offset,
			    bool used, bool canonical, bool in_range)
{
	bool track_free = xa->xa_flags & XA_FLAGS_TRACK_FREE;
	xa_mark_t mark;

	for (mark = 0; mark <= XA_MARK_MAX; mark++) {
		bool set = check_mark(node, offset, mark);

		if (track_free && mark == XA_FREE_MARK) {
			if (!in_range)
				continue;
			if (set == !used)
				continue;
			return slot_fail(xa, node, base, offset,
					 "free mark %s on a %s slot",
					 set ? "set" : "clear",
					 used ? "used" : "free");
		}
		if (set && !canonical)
			return slot_fail(xa, node, base, offset,
					 "mark %u set on a %s slot", mark,
					 used ? "sibling" : "NULL");
	}
	return 0;
}

/*
 * check_child() - A node in slot @offset: check it, then step 5 for the
 * slot: each mark bit is set iff the child has the mark somewhere.
 */
static int check_child(struct xarray *xa, struct xa_node *node,
		       unsigned long base, unsigned int offset, void *entry)
{
	unsigned int child_marks = 0;
	xa_mark_t mark;
	int ret;

	if (node->shift == 0)
		return slot_fail(xa, node, base, offset,
				 "node %p in a shift-0 node",
				 (void *)xa_to_node(entry));
	ret = check_node(xa, xa_to_node(entry), node, offset,
			 slot_index(base, node->shift, offset), &child_marks);
	if (ret)
		return ret;
	for (mark = 0; mark <= XA_MARK_MAX; mark++) {
		bool set = check_mark(node, offset, mark);
		bool below = child_marks & (1U << mark);

		if (set != below)
			return slot_fail(xa, node, base, offset,
					 "mark %u %s, but the child node %p %s it",
					 mark, set ? "set" : "clear",
					 (void *)xa_to_node(entry),
					 below ? "has" : "does not have");
	}
	return 0;
}

/* check_mark_padding() - No mark bit past XA_CHUNK_SIZE. */
static int check_mark_padding(struct xarray *xa, struct xa_node *node,
			      unsigned long base)
{
	unsigned int used = XA_CHUNK_SIZE % BITS_PER_LONG;
	xa_mark_t mark;

	if (!used)
		return 0;
	for (mark = 0; mark <= XA_MARK_MAX; mark++) {
		unsigned long word = __atomic_load_n(
			&node->marks[mark][XA_MARK_LONGS - 1],
			__ATOMIC_RELAXED);

		if (word >> used)
			return node_fail(xa, node, base,
					 "mark %u bits set past slot %lu",
					 mark, XA_CHUNK_SIZE - 1);
	}
	return 0;
}

/* node_marks() - Bit m set if some slot of @node has mark m. */
static unsigned int node_marks(const struct xa_node *node)
{
	unsigned int marks = 0, word;
	xa_mark_t mark;

	for (mark = 0; mark <= XA_MARK_MAX; mark++)
		for (word = 0; word < XA_MARK_LONGS; word++)
			if (__atomic_load_n(&node->marks[mark][word],
					    __ATOMIC_RELAXED))
				marks |= 1U << mark;
	return marks;
}

/*
 * check_node() - Steps 1-5 for @node and everything below it.
 * @parent: The node above, NULL for the top.
 * @offset: @node's slot in @parent.
 * @base: First index @node covers.
 * @marks_out: Out: bit m set if @node has mark m on some slot.
 */
static int check_node(struct xarray *xa, struct xa_node *node,
		      struct xa_node *parent, unsigned int offset,
		      unsigned long base, unsigned int *marks_out)
{
	unsigned int in_range = slots_in_range(node->shift);
	unsigned int count = 0, nr_values = 0, i;
	int ret = check_links(xa, node, parent, offset, base);

	if (ret)
		return ret;
	for (i = 0; i < XA_CHUNK_SIZE; i++) {
		void *entry = xa_entry(node, i);
		bool is_value = false;

		if (!entry) {
			ret = check_slot_marks(xa, node, base, i, false, false,
					       i < in_range);
			if (ret)
				return ret;
			continue;
		}
		count++;
		if (i >= in_range)
			return slot_fail(xa, node, base, i,
					 "entry %p past index ULONG_MAX", entry);
		if (xa_is_retry(entry))
			return slot_fail(xa, node, base, i,
					 "retry entry in a live tree");
		if (xa_is_node(entry)) {
			ret = check_child(xa, node, base, i, entry);
		} else if (xa_is_sibling(entry)) {
			ret = check_sibling(xa, node, base, i, entry,
					    &is_value);
			if (!ret)
				ret = check_slot_marks(xa, node, base, i, true,
						       false, true);
		} else if (xa_is_internal(entry) && !xa_is_zero(entry)) {
			ret = slot_fail(xa, node, base, i,
					"unexpected internal entry %p", entry);
		} else {
			is_value = xa_is_value(entry);
			ret = check_run(xa, node, base, i);
			if (!ret)
				ret = check_slot_marks(xa, node, base, i, true,
						       true, true);
		}
		if (ret)
			return ret;
		nr_values += is_value;
	}
	if (count == 0)
		return node_fail(xa, node, base, "empty node left in the tree");
	if (count != node->count)
		return node_fail(xa, node, base, "->count %u but %u slots used",
				 node->count, count);
	if (nr_values != node->nr_values)
		return node_fail(xa, node, base,
				 "->nr_values %u but %u value slots",
				 node->nr_values, nr_values);
	ret = check_mark_padding(xa, node, base);
	if (ret)
		return ret;
	*marks_out = node_marks(node);
	return 0;
}

/* check_head_marks() - Step 7, given the marks the top node carries. */
static int check_head_marks(struct xarray *xa, void *head,
			    unsigned int top_marks)
{
	gfp_t flags = __atomic_load_n(&xa->xa_flags, __ATOMIC_RELAXED);
	bool track_free = flags & XA_FLAGS_TRACK_FREE;
	xa_mark_t mark;

	for (mark = 0; mark <= XA_MARK_MAX; mark++) {
		bool set = flags & XA_FLAGS_MARK(mark);
		bool free_mark = track_free && mark == XA_FREE_MARK;

		if (xa_is_node(head)) {
			if (set != !!(top_marks & (1U << mark)))
				return report(xa, NULL, 0, 0, false,
					      "mark %u flag %s but the top node %p %s it",
					      mark, set ? "set" : "clear",
					      (void *)xa_to_node(head),
					      set ? "does not have" : "has");
		} else if (!head) {
			if (free_mark && !set && !(flags & XA_FLAGS_ZERO_BUSY))
				return report(xa, NULL, 0, 0, false,
					      "free mark flag clear in an empty array");
			if (!free_mark && set)
				return report(xa, NULL, 0, 0, false,
					      "mark %u flag set in an empty array",
					      mark);
		} else if (free_mark && set) {
			return report(xa, NULL, 0, 0, false,
				      "free mark flag set but index 0 holds %p",
				      head);
		}
	}
	return 0;
}

/*
 * check_locked() - Every step, with the xa_lock held.
 */
static int check_locked(struct xarray *xa)
{
	void *head = xa_head(xa);
	unsigned int top_marks = 0;
	int ret;

	if (xa_is_node(head)) {
		ret = check_node(xa, xa_to_node(head), NULL, 0, 0, &top_marks);
		if (ret)
			return ret;
	} else if (xa_is_internal(head) && !xa_is_zero(head)) {
		return report(xa, NULL, 0, 0, false,
			      "head holds internal entry %p (%s)", head,
			      xa_is_sibling(head) ? "a sibling" :
			      xa_is_retry(head) ? "the retry entry" :
			      "not storable");
	}
	return check_head_marks(xa, head, top_marks);
}

/**
 * upc_check_xarray() - Verify every structural invariant of an XArray.
 * @xa: The array.
 *
 * Walks the whole tree once and checks the invariants listed at the top
 * of this file: node links and shifts, counters, sibling runs, marks and
 * their propagation, free-slot tracking and the head's mark flags.  The
 * first violation is printed to stderr as one line naming the node (its
 * address, shift and offset), the slot and the first index it covers.
 *
 * Context: Takes and releases the xa_lock itself, so writers are
 * excluded while it runs; the caller must not hold it (upc_lock() is not
 * recursive).  Lockless readers may run meanwhile.  Never sleeps except
 * to wait for the lock.  O(nodes * XA_CHUNK_SIZE).
 * Return: 0 if every invariant holds, -EUCLEAN after printing the first
 * violation otherwise.
 */
int upc_check_xarray(struct xarray *xa)
{
	int ret;

	xa_lock(xa);
	ret = check_locked(xa);
	xa_unlock(xa);
	return ret;
}
