// SPDX-License-Identifier: MIT
/*
 * lib/xarray_split.c - cutting multi-index entries into smaller ones, and
 * creating the slots of a range ahead of time.
 *
 * The page cache needs this when a large folio, or the shadow entry a
 * large folio left behind, must become smaller entries.  Two ways:
 *
 *  Uniform split (xas_split_alloc() + xas_split()): every index range of
 *  the cursor's order gets its own copy of the entry.  When the new order
 *  is on a lower level of the tree, whole subtrees are needed; they are
 *  built outside the lock by xas_split_alloc(), complete with their
 *  entries, and xas_split() only links them in, so it cannot fail under
 *  the lock.  Any number of levels is supported, up to XA_SPLIT_MAX_NODES.
 *
 *  Non-uniform split (xas_try_split()): only the entry that contains the
 *  cursor's index gets the cursor's order; the rest of the old entry is
 *  cut into the largest aligned pieces possible (the buddies along the
 *  path), so an order-9 entry split to order 0 becomes ten entries, not
 *  512.  That needs one new node per level at most, allocated under the
 *  lock without waiting (or taken from xas_nomem()).
 *
 * Both write the slots of a published node from the highest one down, so
 * the old canonical slot, which lockless readers reach through the old
 * sibling entries, changes last; new nodes are filled before they are
 * linked.  Every new entry gets the marks of the old one.
 */
#include <errno.h>

#include "xarray_internal.h"

/* A uniform split that needs more nodes than this is refused (-E2BIG). */
#define XA_SPLIT_MAX_NODES	65536UL

/* Level of the node that holds an entry of @order. */
static unsigned int xa_order_shift(unsigned int order)
{
	return order - order % XA_CHUNK_SHIFT;
}

/*
 * Check that the cursor sits on an entry of @order that can be split to
 * the cursor's order.  Return: the entry, or NULL (the cursor may now
 * hold -EINVAL).
 */
static void *xas_split_target(struct xa_state *xas, unsigned int order)
{
	unsigned int new_order = xas->xa_shift + __builtin_ctz(xas->xa_sibs + 1);
	void *curr;

	if (order > BITS_PER_LONG) {
		xas_set_err(xas, -EINVAL);
		return NULL;
	}
	curr = xas_load(xas);
	if (xas_error(xas))
		return NULL;
	if (!curr || !xas_is_node(xas) || xa_is_node(curr) || new_order >= order ||
	    xas->xa_node->shift != xa_order_shift(order) ||
	    xas_get_order(xas) != (int)order) {
		xas_set_err(xas, -EINVAL);
		return NULL;
	}
	return curr;
}

/* ---- uniform split ------------------------------------------------------ */

/* Nodes in a full subtree of @levels levels; capped past the limit. */
static unsigned long xa_subtree_nodes(unsigned int levels)
{
	unsigned long nodes = 0, level_nodes = 1;

	while (levels--) {
		nodes += level_nodes;
		if (nodes > XA_SPLIT_MAX_NODES)
			return XA_SPLIT_MAX_NODES + 1;
		level_nodes *= XA_CHUNK_SIZE;
	}
	return nodes;
}

/*
 * Build, unlinked, a full subtree of @shift whose lowest level (the
 * cursor's) holds @entry in entries of the cursor's order.
 */
static struct xa_node *xa_split_build(struct xa_state *xas,
				      unsigned int shift, void *entry,
				      gfp_t gfp)
{
	struct xa_node *node = xa_chain_take(xas, false);
	unsigned int offset;

	if (!node)
		node = xa_node_alloc(gfp);

	if (!node)
		return NULL;
	node->shift = shift;
	node->array = xas->xa;
	node->count = XA_CHUNK_SIZE;
	if (shift == xas->xa_shift) {
		for (offset = 0; offset < XA_CHUNK_SIZE; offset++) {
			unsigned int canonical = offset & ~xas->xa_sibs;

			node->slots[offset] = offset == canonical ?
				entry : xa_mk_sibling(canonical);
		}
		node->nr_values = xa_is_value(entry) ? XA_CHUNK_SIZE : 0;
		return node;
	}
	for (offset = 0; offset < XA_CHUNK_SIZE; offset++) {
		struct xa_node *child;

		child = xa_split_build(xas, shift - XA_CHUNK_SHIFT, entry, gfp);
		if (!child) {
			xa_node_release_unused(node);
			return NULL;
		}
		child->offset = offset;
		child->parent = node;
		node->slots[offset] = xa_mk_node(child);
	}
	return node;
}

/**
 * xas_split_alloc() - Allocate what splitting an entry will need.
 * @xas: XArray operation state, with the new (smaller) order.
 * @entry: The entry the split will store (the same one xas_split() is
 *	given).
 * @order: The current order of the entry.
 * @gfp: Allocation flags.
 *
 * When the new order is on the same tree level as @order nothing is
 * needed.  Otherwise the subtrees that will replace the entry's slots
 * are built here, so that xas_split() cannot fail.
 *
 * Context: May wait if @gfp allows; must not hold the xa_lock then.
 * Errors (in the cursor): -ENOMEM if memory ran out; -E2BIG if the split
 * would need more than 65536 nodes; -EINVAL if @order is above
 * BITS_PER_LONG.
 */
void xas_split_alloc(struct xa_state *xas, void *entry, unsigned int order,
		     gfp_t gfp)
{
	unsigned int top, subtrees, i;
	unsigned long nodes;

	if (xas_error(xas))
		return;
	if (order > BITS_PER_LONG) {
		xas_set_err(xas, -EINVAL);
		return;
	}
	top = xa_order_shift(order);
	if (xas->xa_shift >= top)
		return;
	subtrees = 1U << (order % XA_CHUNK_SHIFT);
	nodes = xa_subtree_nodes((top - xas->xa_shift) / XA_CHUNK_SHIFT);
	if (nodes > XA_SPLIT_MAX_NODES / subtrees) {
		/* Not for want of memory: no retry would make it fit. */
		xas_destroy(xas);
		xas_set_err(xas, -E2BIG);
		return;
	}
	for (i = 0; i < subtrees; i++) {
		struct xa_node *root;

		root = xa_split_build(xas, top - XA_CHUNK_SHIFT, entry, gfp);
		if (!root)
			goto nomem;
		xa_chain_push(xas, root);
	}
	return;
nomem:
	xas_destroy(xas);
	xas_set_err(xas, -ENOMEM);
}

/* Give a prebuilt subtree the marks its entries inherit. */
static void xa_split_mark(const struct xa_state *xas, struct xa_node *node,
			  unsigned int marks)
{
	unsigned int offset;

	for (offset = 0; offset < XA_CHUNK_SIZE; offset++) {
		if (node->shift == xas->xa_shift) {
			if (!(offset & xas->xa_sibs))
				node_set_marks(node, offset, marks);
			continue;
		}
		node_set_marks(node, offset, marks);
		xa_split_mark(xas, xa_to_node(xa_slot_locked(node, offset)),
			      marks);
	}
}

/* Tell the owner about every node of a subtree that joined the tree. */
static void xa_split_update(struct xa_state *xas, struct xa_node *node)
{
	unsigned int offset;

	if (!xas->xa_update)
		return;
	if (node->shift != xas->xa_shift)
		for (offset = 0; offset < XA_CHUNK_SIZE; offset++)
			xa_split_update(xas,
				xa_to_node(xa_slot_locked(node, offset)));
	xas_update(xas, node);
}

/* How many prebuilt subtrees with a root of @shift the cursor holds. */
static unsigned int xa_chain_prebuilt(const struct xa_state *xas,
				      unsigned int shift)
{
	const struct xa_node *node;
	unsigned int nr = 0;

	for (node = xas->xa_alloc; node; node = node->parent)
		if (node->count && node->shift == shift)
			nr++;
	return nr;
}

/*
 * Make sure the cursor holds the @slots subtrees a split needs.  Missing
 * ones (no xas_split_alloc(), or a smaller one) are built here from
 * nodes left by xas_nomem() and allocations that do not wait.
 * Return: true if all are there; false with -ENOMEM, or -E2BIG over the
 * node cap, in the cursor (the tree unchanged) otherwise.
 */
static bool xas_split_complete(struct xa_state *xas, void *entry,
			       unsigned int order, unsigned int child_shift,
			       unsigned int slots)
{
	unsigned int have = xa_chain_prebuilt(xas, child_shift);

	if (have < slots &&
	    xa_subtree_nodes((xa_order_shift(order) - xas->xa_shift) /
			     XA_CHUNK_SHIFT) > XA_SPLIT_MAX_NODES / slots) {
		xas_set_err(xas, -E2BIG);
		return false;
	}
	for (; have < slots; have++) {
		struct xa_node *root = xa_split_build(xas, child_shift, entry,
						      GFP_NOWAIT | __GFP_NOWARN);

		if (!root) {
			xas_set_err(xas, -ENOMEM);
			return false;
		}
		xa_chain_push(xas, root);
	}
	return true;
}

/* The new order is on the entry's own level: rewrite its slots. */
static void xas_split_in_place(struct xa_state *xas, struct xa_node *node,
			       void *entry, void *curr, unsigned int slots,
			       unsigned int marks)
{
	unsigned int first = xas->xa_offset;
	unsigned int step = xas->xa_sibs + 1;
	unsigned int start = first + slots;

	do {
		unsigned int offset;

		start -= step;
		node_set_marks(node, start, marks);
		xa_slot_publish(&node->slots[start], entry);
		for (offset = start + 1; offset < start + step; offset++)
			xa_slot_publish(&node->slots[offset],
					xa_mk_sibling(start));
	} while (start != first);
	node->nr_values += (xa_is_value(entry) - xa_is_value(curr)) * (int)slots;
}

/**
 * xas_split() - Split a multi-index entry into entries of the cursor's order.
 * @xas: XArray operation state, with the new (smaller) order.
 * @entry: The entry to store in every new slot.
 * @order: The current order of the entry.
 *
 * Every index keeps loading @entry, now from an entry of the cursor's
 * order with the old entry's marks.  When the new order is on a lower
 * level, xas_split_alloc() must have been called with the same arguments;
 * its subtrees are linked in as built.  Afterwards the cursor points at
 * its own index, ready for xas_store().
 *
 * Context: Holds the xa_lock.
 * Errors (in the cursor, nothing changed): -ENOMEM if the preallocated
 * subtrees are missing; -EINVAL if the cursor is not on an entry of
 * @order or its order is not smaller.
 */
void xas_split(struct xa_state *xas, void *entry, unsigned int order)
{
	unsigned int slots = 1U << (order % XA_CHUNK_SHIFT);
	struct xa_node *node;
	unsigned int marks, offset;
	void *curr;

	curr = xas_split_target(xas, order);
	if (!curr)
		return;
	node = xas->xa_node;
	marks = node_get_marks(node, xas->xa_offset);

	if (xas->xa_shift == node->shift) {
		xas_split_in_place(xas, node, entry, curr, slots, marks);
	} else {
		unsigned int child_shift = node->shift - XA_CHUNK_SHIFT;

		if (!xas_split_complete(xas, entry, order, child_shift, slots))
			return;
		offset = xas->xa_offset + slots;
		do {
			struct xa_node *child;

			offset--;
			do {
				child = xa_chain_take(xas, true);
				/* A leftover of another shape: not ours. */
				if (child->shift != child_shift)
					xa_node_release_unused(child);
			} while (child->shift != child_shift);
			child->offset = offset;
			child->parent = node;
			xa_split_mark(xas, child, marks);
			node_set_marks(node, offset, marks);
			xa_slot_publish(&node->slots[offset], xa_mk_node(child));
			xa_split_update(xas, child);
		} while (offset != xas->xa_offset);
		node->nr_values -= xa_is_value(curr) * (int)slots;
	}
	xas_update(xas, node);
	xas->xa_offset = xas_slot_of(xas, node) & ~(xas->xa_shift == node->shift ?
						    xas->xa_sibs : 0);
}

/* ---- non-uniform split -------------------------------------------------- */

/* One piece of an entry being split: 2^order slots from start. */
struct xa_piece {
	unsigned int start;
	unsigned int order;
};

/*
 * Lay out, inside @node, an entry that took 2^@span slots (aligned, and
 * containing the cursor's slot) as the buddy pieces along the cursor's
 * path.  If the cursor's order is below this level, the cursor's slot
 * becomes a node from @fresh, filled the same way before it is linked.
 * Return: the number of value slots the layout has.
 */
static unsigned int xas_try_split_node(struct xa_state *xas,
				       struct xa_node *node, unsigned int span,
				       void *entry, unsigned int marks,
				       struct xa_node **fresh)
{
	unsigned int target = xas->xa_shift + __builtin_ctz(xas->xa_sibs + 1);
	unsigned int pos = xas_slot_of(xas, node);
	bool below = target < node->shift;
	unsigned int low = below ? 0 : target - node->shift;
	struct xa_piece pieces[XA_CHUNK_SHIFT + 1];
	unsigned int nr = 0, i, k, values = 0;

	/* Each halving leaves the half without the cursor as one piece. */
	for (k = span; k-- > low; )
		pieces[nr++] = (struct xa_piece){ ((pos >> k) ^ 1) << k, k };
	pieces[nr++] = (struct xa_piece){ (pos >> low) << low, low };

	/* Highest slots first: the old canonical slot changes last. */
	for (i = 1; i < nr; i++) {
		struct xa_piece piece = pieces[i];
		unsigned int j = i;

		while (j && pieces[j - 1].start < piece.start) {
			pieces[j] = pieces[j - 1];
			j--;
		}
		pieces[j] = piece;
	}

	for (i = 0; i < nr; i++) {
		unsigned int start = pieces[i].start;
		unsigned int offset, end = start + (1U << pieces[i].order);

		if (below && start == pos) {
			struct xa_node *child = *fresh;

			child->shift = node->shift - XA_CHUNK_SHIFT;
			child->array = xas->xa;
			child->nr_values = xas_try_split_node(xas, child,
					XA_CHUNK_SHIFT, entry, marks, fresh + 1);
			child->count = XA_CHUNK_SIZE;
			child->offset = start;
			child->parent = node;
			node_set_marks(node, start, marks);
			xa_slot_publish(&node->slots[start], xa_mk_node(child));
			xas_update(xas, child);
			continue;
		}
		node_set_marks(node, start, marks);
		xa_slot_publish(&node->slots[start], entry);
		for (offset = start + 1; offset < end; offset++)
			xa_slot_publish(&node->slots[offset],
					xa_mk_sibling(start));
		if (xa_is_value(entry))
			values += end - start;
	}
	return values;
}

/**
 * xas_try_split_alloc() - Allocate what xas_try_split() will need.
 * @xas: XArray operation state, with the new (smaller) order.
 * @order: The current order of the entry to be split.
 * @gfp: Allocation flags.
 *
 * Leaves in the cursor the blank nodes (one per tree level between the
 * two orders) that a following xas_try_split() takes instead of
 * allocating under the lock, so that split cannot fail.  An upcache
 * addition: the kernel's callers allocate with GFP_NOWAIT under the lock.
 *
 * Context: May wait if @gfp allows; must not hold the xa_lock then.
 * Errors (in the cursor): -ENOMEM, with the preallocation freed;
 * -EINVAL if @order is above BITS_PER_LONG.
 */
void xas_try_split_alloc(struct xa_state *xas, unsigned int order, gfp_t gfp)
{
	const struct xa_node *node;
	unsigned int levels, have = 0;

	if (xas_error(xas))
		return;
	if (order > BITS_PER_LONG) {
		xas_set_err(xas, -EINVAL);
		return;
	}
	if (xas->xa_shift >= xa_order_shift(order))
		return;
	levels = (xa_order_shift(order) - xas->xa_shift) / XA_CHUNK_SHIFT;
	for (node = xas->xa_alloc; node; node = node->parent)
		have += !node->count;
	for (; have < levels; have++) {
		struct xa_node *blank = xa_node_alloc(gfp);

		if (!blank) {
			xas_destroy(xas);
			xas_set_err(xas, -ENOMEM);
			return;
		}
		xa_chain_push(xas, blank);
	}
}

/**
 * xas_try_split() - Cut a multi-index entry down to the cursor's order
 * along one path.
 * @xas: XArray operation state, with the new (smaller) order and the
 *	index whose entry gets that order.
 * @entry: The entry to store in every new piece.
 * @order: The current order of the entry.
 *
 * The entry containing the cursor's index gets the cursor's order; the
 * rest of the old entry becomes the largest aligned pieces that avoid
 * it, each a copy of @entry with the old marks.  Needs at most one new
 * node per tree level between the two orders: nodes left by xas_nomem()
 * are used first, then nodes are allocated without waiting.  Afterwards
 * the cursor points at its index, ready for xas_store().
 *
 * Context: Holds the xa_lock.
 * Errors (in the cursor, nothing changed): -ENOMEM if a node could not be
 * had (drop the lock, xas_nomem(), retry); -EINVAL if the cursor is not
 * on an entry of @order or its order is not smaller.
 */
void xas_try_split(struct xa_state *xas, void *entry, unsigned int order)
{
	struct xa_node *fresh[BITS_PER_LONG / XA_CHUNK_SHIFT + 1];
	unsigned int levels, nr, marks, values;
	struct xa_node *node;
	void *curr;

	curr = xas_split_target(xas, order);
	if (!curr)
		return;
	node = xas->xa_node;
	levels = (node->shift - xas->xa_shift) / XA_CHUNK_SHIFT;
	for (nr = 0; nr < levels; nr++) {
		fresh[nr] = xa_chain_take(xas, false);
		if (!fresh[nr])
			fresh[nr] = xa_node_alloc(GFP_NOWAIT | __GFP_NOWARN);
		if (!fresh[nr]) {
			while (nr--)
				xa_chain_push(xas, fresh[nr]);
			xas_set_err(xas, -ENOMEM);
			return;
		}
	}

	marks = node_get_marks(node, xas->xa_offset);
	values = xas_try_split_node(xas, node, order % XA_CHUNK_SHIFT, entry,
				    marks, fresh);
	node->nr_values += (int)values -
		xa_is_value(curr) * (1 << (order % XA_CHUNK_SHIFT));
	xas_update(xas, node);
	xas->xa_offset = xas_slot_of(xas, node);
}

/* ---- creating a range ---------------------------------------------------- */

/*
 * Undo a failed xas_create_range(): remove the leaves it created in
 * [first, last] that are still empty, then the levels it added on top.
 */
static void xas_prune_range(struct xa_state *xas, unsigned long first,
			    unsigned long last)
{
	unsigned long chunk = first;

	for (;;) {
		xas->xa_index = chunk;
		xas->xa_node = XAS_RESTART;
		xas_load(xas);
		if (xas_is_node(xas))
			xas_prune_empty(xas, xas->xa_node);
		if ((chunk | XA_CHUNK_MASK) >= last)
			break;
		chunk = (chunk | XA_CHUNK_MASK) + 1;
	}
	xas_shrink_top(xas);
}

/**
 * xas_create_range() - Create every leaf slot of the cursor's range.
 * @xas: XArray operation state, with the order of the range.
 *
 * Afterwards every index of the range has an order-0 slot (which the
 * caller is expected to fill: until then the tree may hold empty nodes),
 * and the cursor is an order-0 cursor on the first index.
 *
 * Context: Holds the xa_lock.
 * Errors (in the cursor): -ENOMEM; nodes created so far are removed
 * again and the cursor keeps its order.
 */
void xas_create_range(struct xa_state *xas)
{
	unsigned long first = xas->xa_index;
	unsigned long last = xas_last(xas);
	unsigned char shift = xas->xa_shift;
	unsigned char sibs = xas->xa_sibs;
	struct xa_node *first_node = NULL;
	unsigned long chunk = first;
	int err;

	if (xas_error(xas))
		return;
	xas->xa_shift = 0;
	xas->xa_sibs = 0;
	for (;;) {
		unsigned long chunk_last = chunk | XA_CHUNK_MASK;

		if (chunk_last > last)
			chunk_last = last;
		/* Creating the chunk's last slot first grows the tree once. */
		xas->xa_index = chunk_last;
		xas->xa_node = XAS_RESTART;
		xas_create(xas, true);
		err = xas_error(xas);
		if (err)
			break;
		if (chunk == first)
			first_node = xas->xa_node;
		if (chunk_last == last)
			break;
		chunk = chunk_last + 1;
	}
	if (err) {
		xas->xa_node = XAS_RESTART;
		xas_prune_range(xas, first, last);
		xas->xa_shift = shift;
		xas->xa_sibs = sibs;
		xas->xa_index = first;
		xas_set_err(xas, err);
		return;
	}
	xas->xa_index = first;
	xas->xa_node = first_node;
	xas->xa_offset = first_node ? xas_slot_of(xas, first_node) : 0;
}
