// SPDX-License-Identifier: MIT
/*
 * lib/xarray.c - the XArray: a sparse array of pointers indexed by
 * unsigned long, with the kernel's API and entry encoding.
 *
 * The tree.  The array is a radix tree of 64-slot nodes; a node of shift
 * s decides bits s..s+5 of the index, so a leaf has shift 0 and the top
 * node's shift is the smallest one that reaches the highest index stored.
 * The head (xa->xa_head) holds NULL, a lone entry for index 0, or the top
 * node.  A multi-index entry of order k sits in a node of shift k - k % 6
 * and takes 2^(k % 6) aligned slots: the first (canonical) slot holds the
 * entry and the others hold sibling entries that name the canonical slot.
 * Orders that are multiples of 6 take one slot one level up; order 64 is
 * 16 slots of a shift-60 node.
 *
 * Marks.  Three bits per slot, set on canonical slots only.  A node's bit
 * for a slot that holds a child node means "something below is marked",
 * so a marked search skips whole unmarked subtrees; the head's bits live
 * in xa_flags.  Arrays that track free slots (XA_FLAGS_ALLOC*) keep
 * XA_MARK_0 set on every free slot instead.
 *
 * Concurrency.  Writers hold xa_lock.  Readers hold only the RCU read
 * lock (liburcu; see lib/rcu.c for the automatic registration) and may
 * run beside a writer, so a writer changes the tree in an order that a
 * reader can always follow: a new node is filled in before it is linked,
 * a multi-index entry is written canonical slot first, a node that leaves
 * the tree keeps its contents (or gets retry entries, which send readers
 * back to the root) and is freed only after a grace period.
 *
 * Cursors and walks.  struct xa_state remembers the node and slot of the
 * last operation, so a following operation on the same cursor continues
 * where it is instead of descending from the head again.  Each descent
 * from the head counts as one walk (upc_stats_thread()), the figure the
 * page cache's algorithms are measured by.
 *
 * Memory.  Under the lock the XArray only allocates with GFP_NOWAIT.  When
 * that fails the cursor records -ENOMEM and the caller drops the lock and
 * calls xas_nomem(), which allocates one node to retry with.  A failed
 * operation removes any empty node it created, so the tree never keeps
 * a node with nothing in it.
 *
 * Splitting multi-index entries lives in lib/xarray_split.c, node memory
 * in lib/xa_node.c, the invariant checker in lib/xarray_check.c.
 */
#include <errno.h>
#include <limits.h>

#include "rcu_internal.h"
#include "xarray_internal.h"

static void *xas_bounds(struct xa_state *xas)
{
	xas->xa_node = XAS_BOUNDS;
	return NULL;
}

/* The operation's result: @curr, or the error noted in the cursor. */
static void *xas_result(const struct xa_state *xas, void *curr)
{
	if (xas_error(xas))
		return (void *)xas->xa_node;
	return curr;
}

static void *xa_zero_to_null(void *entry)
{
	return xa_is_zero(entry) ? NULL : entry;
}

/* May the normal API store @entry?  Only the zero entry is internal. */
static bool xa_storable(const void *entry)
{
	return !xa_is_internal(entry) || xa_is_zero(entry);
}

/* Shift of the smallest top node with a slot for index @last. */
static unsigned int xa_shift_reaching(unsigned long last)
{
	unsigned int shift = 0;

	while ((last >> shift) > XA_CHUNK_MASK)
		shift += XA_CHUNK_SHIFT;
	return shift;
}

/* First index of the slot @offset of @node, for a cursor inside @node. */
static unsigned long xas_slot_start(const struct xa_state *xas,
				    const struct xa_node *node,
				    unsigned int offset)
{
	return (xas->xa_index & ~node_span_mask(node->shift)) |
		((unsigned long)offset << node->shift);
}

/* ---- the preallocation chain ------------------------------------------ */

void xa_chain_push(struct xa_state *xas, struct xa_node *node)
{
	node->parent = xas->xa_alloc;
	xas->xa_alloc = node;
}

struct xa_node *xa_chain_take(struct xa_state *xas, bool prebuilt)
{
	struct xa_node **link = &xas->xa_alloc;
	struct xa_node *node;

	for (node = *link; node; link = &node->parent, node = *link) {
		if ((node->count != 0) != prebuilt)
			continue;
		*link = node->parent;
		node->parent = NULL;
		return node;
	}
	return NULL;
}

void xa_node_release_unused(struct xa_node *node)
{
	unsigned int offset;

	if (node->shift) {
		for (offset = 0; offset < XA_CHUNK_SIZE; offset++) {
			void *entry = xa_slot_locked(node, offset);

			if (xa_is_node(entry))
				xa_node_release_unused(xa_to_node(entry));
		}
	}
	xa_node_free_unused(node);
}

/**
 * xas_destroy() - Free the nodes a cursor preallocated.
 * @xas: XArray operation state.
 *
 * xas_nomem() and xas_split_alloc() leave nodes in the cursor for the
 * next attempt; an operation that ends without using them calls this
 * (xas_nomem() does when there is no error to retry).
 *
 * Context: Any context.
 */
void xas_destroy(struct xa_state *xas)
{
	struct xa_node *node = xas->xa_alloc;

	xas->xa_alloc = NULL;
	while (node) {
		struct xa_node *next = node->parent;

		node->parent = NULL;
		xa_node_release_unused(node);
		node = next;
	}
}

/**
 * xas_nomem() - Allocate memory if the last operation ran out.
 * @xas: XArray operation state.
 * @gfp: Allocation flags; GFP_NOWAIT may fail.
 *
 * Call with the xa_lock dropped after an operation under the lock.  If
 * the cursor holds -ENOMEM, allocate one node for it and reset the cursor
 * so the operation can be retried.  Otherwise free whatever it had
 * preallocated.
 *
 * Context: Any context; must not hold the xa_lock if @gfp may wait.
 * Return: true if the operation should be retried.
 */
bool xas_nomem(struct xa_state *xas, gfp_t gfp)
{
	struct xa_node *node;

	if (xas->xa_node != XA_ERROR(-ENOMEM)) {
		xas_destroy(xas);
		return false;
	}
	node = xa_node_alloc(gfp);
	if (!node) {
		/* Giving up: what was preallocated for the retry goes too. */
		xas_destroy(xas);
		return false;
	}
	xa_chain_push(xas, node);
	xas->xa_node = XAS_RESTART;
	return true;
}

/*
 * __xas_nomem() - xas_nomem() for a caller that holds the xa_lock: the
 * lock is dropped around an allocation that may wait.
 */
static bool __xas_nomem(struct xa_state *xas, gfp_t gfp)
{
	bool retry;

	if (xas->xa_node != XA_ERROR(-ENOMEM)) {
		xas_destroy(xas);
		return false;
	}
	if (gfp & __GFP_NOWAIT_BIT)
		return xas_nomem(xas, gfp);
	xas_unlock(xas);
	retry = xas_nomem(xas, gfp);
	xas_lock(xas);
	return retry;
}

/* ---- walking ------------------------------------------------------------- */

/*
 * xas_start() - Where every lookup begins.  A valid cursor reloads its own
 * slot; otherwise this is a new walk from the head, which ends at once
 * (XAS_BOUNDS) when the tree cannot hold the cursor's index.
 */
static void *xas_start(struct xa_state *xas)
{
	void *head;

	if (xas_valid(xas))
		return xas_reload(xas);
	if (xas_error(xas))
		return NULL;
	upc_count(xa_walks);
	head = xa_head(xas->xa);
	if (xa_is_node(head)) {
		if ((xas->xa_index >> xa_to_node(head)->shift) > XA_CHUNK_MASK)
			return xas_bounds(xas);
	} else if (xas->xa_index) {
		return xas_bounds(xas);
	}
	xas->xa_node = NULL;
	return head;
}

/* Step into @node: the entry for the cursor's index, siblings resolved. */
static void *xas_descend(struct xa_state *xas, struct xa_node *node)
{
	unsigned int offset = xas_slot_of(xas, node);
	void *entry = xa_entry(node, offset);

	while (xa_is_sibling(entry)) {
		offset = xa_to_sibling(entry);
		entry = xa_entry(node, offset);
		/*
		 * Only a lockless reader racing with a writer that reshaped
		 * the entries can follow a sibling onto a node: the node
		 * covers other indices, so start again from the head.
		 */
		if (xa_is_node(entry))
			entry = XA_RETRY_ENTRY;
	}
	xas->xa_node = node;
	xas->xa_offset = offset;
	return entry;
}

/**
 * xas_load() - Load the entry at the cursor's index.
 * @xas: XArray operation state.
 *
 * Descends until it reaches an entry, or a node whose slots are smaller
 * than the cursor's order (then that node is returned as an internal
 * entry, for xas_store() to replace).  A valid cursor is reused without a
 * new walk.
 *
 * Context: Any context.  The caller holds the RCU read lock or the
 * xa_lock.
 * Return: The entry, which may be NULL, a zero, retry or node entry.
 */
void *xas_load(struct xa_state *xas)
{
	void *entry = xas_start(xas);

	while (xa_is_node(entry)) {
		struct xa_node *node = xa_to_node(entry);

		if (node->shift < xas->xa_shift)
			break;
		entry = xas_descend(xas, node);
	}
	return entry;
}

/* ---- marks --------------------------------------------------------------- */

/**
 * xas_get_mark() - Is the entry at the cursor marked?
 * @xas: XArray operation state, positioned by a load or find.
 * @mark: XA_MARK_0..XA_MARK_2.
 *
 * Context: Any context.
 * Return: true if the slot under the cursor has @mark; false for an
 * invalid cursor or mark.
 */
bool xas_get_mark(const struct xa_state *xas, xa_mark_t mark)
{
	if (mark > XA_MARK_MAX || xas_invalid(xas))
		return false;
	if (!xas->xa_node)
		return xa_marked(xas->xa, mark);
	return node_get_mark(xas->xa_node, xas->xa_offset, mark);
}

/**
 * xas_set_mark() - Mark the entry at the cursor.
 * @xas: XArray operation state, positioned by a load or find.
 * @mark: XA_MARK_0..XA_MARK_2.
 *
 * The bit is set in every ancestor too, up to the head.  Nothing happens
 * for an invalid cursor or mark.
 *
 * Context: Holds the xa_lock.
 */
void xas_set_mark(const struct xa_state *xas, xa_mark_t mark)
{
	struct xa_node *node = xas->xa_node;
	unsigned int offset = xas->xa_offset;

	if (mark > XA_MARK_MAX || xas_invalid(xas))
		return;
	while (node) {
		/* Already set here means already set above. */
		if (node_set_mark(node, offset, mark))
			return;
		offset = node->offset;
		node = xa_parent_locked(node);
	}
	if (!xa_marked(xas->xa, mark))
		xa_head_mark_set(xas->xa, mark);
}

/**
 * xas_clear_mark() - Clear a mark on the entry at the cursor.
 * @xas: XArray operation state, positioned by a load or find.
 * @mark: XA_MARK_0..XA_MARK_2.
 *
 * Ancestors lose the bit while nothing else below them has it.
 *
 * Context: Holds the xa_lock.
 */
void xas_clear_mark(const struct xa_state *xas, xa_mark_t mark)
{
	struct xa_node *node = xas->xa_node;
	unsigned int offset = xas->xa_offset;

	if (mark > XA_MARK_MAX || xas_invalid(xas))
		return;
	while (node) {
		/* Not set here: nothing above depends on this slot. */
		if (!node_clear_mark(node, offset, mark))
			return;
		if (node_any_mark(node, mark))
			return;
		offset = node->offset;
		node = xa_parent_locked(node);
	}
	if (xa_marked(xas->xa, mark))
		xa_head_mark_clear(xas->xa, mark);
}

/**
 * xas_init_marks() - Reset the marks of the entry at the cursor.
 * @xas: XArray operation state.
 *
 * Clears every mark, except that in an array tracking free slots the
 * slot is marked free.  xas_store() of NULL does this itself.
 *
 * Context: Holds the xa_lock.
 */
void xas_init_marks(const struct xa_state *xas)
{
	bool track_free = xa_track_free(xas->xa);
	xa_mark_t mark;

	for (mark = 0; mark <= XA_MARK_MAX; mark++) {
		if (track_free && mark == XA_FREE_MARK)
			xas_set_mark(xas, mark);
		else
			xas_clear_mark(xas, mark);
	}
}

/*
 * Before a multi-index store: the marks of all the slots it takes move to
 * its canonical slot.  The node's own bits do not change, so ancestors
 * need no update.
 */
static void xas_squash_marks(const struct xa_state *xas)
{
	struct xa_node *node = xas->xa_node;
	unsigned int first = xas->xa_offset;
	unsigned int last = first + xas->xa_sibs;
	xa_mark_t mark;

	for (mark = 0; mark <= XA_MARK_MAX; mark++) {
		bool moved = false;
		unsigned int offset;

		for (offset = first + 1; offset <= last; offset++) {
			if (!node_get_mark(node, offset, mark))
				continue;
			node_clear_mark(node, offset, mark);
			moved = true;
		}
		if (moved)
			node_set_mark(node, first, mark);
	}
}

/* ---- growing and shrinking --------------------------------------------- */

/*
 * xas_alloc() - A node of @shift for the slot under the cursor (or for
 * the head when the cursor is there), counted in its parent but not yet
 * linked.  Takes a preallocated node first; otherwise allocates without
 * waiting and notes -ENOMEM on failure.
 */
static struct xa_node *xas_alloc(struct xa_state *xas, unsigned int shift)
{
	struct xa_node *parent = xas->xa_node;
	struct xa_node *node;

	node = xa_chain_take(xas, false);
	if (!node)
		node = xa_node_alloc(GFP_NOWAIT | __GFP_NOWARN);
	if (!node) {
		xas_set_err(xas, -ENOMEM);
		return NULL;
	}
	node->shift = shift;
	node->array = xas->xa;
	if (parent) {
		node->offset = xas->xa_offset;
		node->parent = parent;
		parent->count++;
		xas_update(xas, parent);
	}
	if (xa_track_free(xas->xa))
		node_mark_all(node, XA_FREE_MARK);
	return node;
}

/*
 * xas_expand() - Add levels on top of the tree until its top node has a
 * slot for the last index of the cursor's range, and is at least as high
 * as the level the range is stored at.  @head is the current head (a zero
 * entry stands for an empty head in an array whose index 0 is busy).
 *
 * Return: the shift xas_create() descends from (one level above the top
 * node), 0 when the range is index 0 alone and belongs in the head, or
 * -ENOMEM.
 */
static int xas_expand(struct xa_state *xas, void *head)
{
	struct xarray *xa = xas->xa;
	unsigned long last = xas_last(xas);
	unsigned int want = xa_shift_reaching(last);
	unsigned int shift;

	if (want < xas->xa_shift)
		want = xas->xa_shift;
	if (xa_is_node(head)) {
		shift = xa_to_node(head)->shift;
		if (shift >= want)
			return shift + XA_CHUNK_SHIFT;
		shift += XA_CHUNK_SHIFT;
	} else if (!last) {
		return 0;
	} else if (!head) {
		return want + XA_CHUNK_SHIFT;
	} else {
		shift = 0;
	}

	xas->xa_node = NULL;
	for (;;) {
		struct xa_node *node = xas_alloc(xas, shift);
		xa_mark_t mark;

		if (!node)
			return -ENOMEM;
		node->slots[0] = head;
		node->count = 1;
		node->nr_values = xa_is_value(head);
		for (mark = 0; mark <= XA_MARK_MAX; mark++) {
			if (xa_track_free(xa) && mark == XA_FREE_MARK) {
				/* Slot 0 is as free as the old head was. */
				if (!xa_marked(xa, mark)) {
					node_clear_mark(node, 0, mark);
					xa_head_mark_set(xa, mark);
				}
			} else if (xa_marked(xa, mark)) {
				node_set_mark(node, 0, mark);
			}
		}
		if (xa_is_node(head))
			xa_node_set_parent(xa_to_node(head), node);
		head = xa_mk_node(node);
		xa_slot_publish(&xa->xa_head, head);
		xas_update(xas, node);
		if (shift >= want)
			return shift + XA_CHUNK_SHIFT;
		shift += XA_CHUNK_SHIFT;
	}
}

/**
 * xas_prune_empty() - Remove @node and its ancestors while they are empty.
 * @xas: XArray operation state.
 * @node: A node that may have lost its last entry, or NULL.
 *
 * Used when an operation fails after creating nodes it could not fill.
 *
 * Context: Holds the xa_lock.
 */
void xas_prune_empty(struct xa_state *xas, struct xa_node *node)
{
	while (node && !node->count) {
		struct xa_node *parent = xa_parent_locked(node);

		xas_update(xas, node);
		if (parent) {
			xa_slot_publish(&parent->slots[node->offset], NULL);
			parent->count--;
			xas_update(xas, parent);
		} else {
			xa_slot_publish(&xas->xa->xa_head, NULL);
		}
		xa_node_free_rcu(node);
		node = parent;
	}
}

static void xas_shrink(struct xa_state *xas);

/**
 * xas_shrink_top() - Drop the levels a failed creation added on top, now
 * that nothing below them is new: a top node holding only slot 0.
 * @xas: XArray operation state; its node (an error, say) is kept.
 *
 * Context: Holds the xa_lock.
 */
void xas_shrink_top(struct xa_state *xas)
{
	struct xa_node *keep = xas->xa_node;
	void *head = xa_head_locked(xas->xa);

	if (xa_is_node(head) && xa_to_node(head)->count == 1) {
		xas->xa_node = xa_to_node(head);
		xas_shrink(xas);
	}
	xas->xa_node = keep;
}

/*
 * xas_undo_create() - A creation failed for lack of memory: remove the
 * empty nodes it linked (from @last, the deepest one, upward), and the
 * levels it added on top if they are now useless, so the failed
 * operation leaves the tree as it found it.  The cursor keeps its error.
 */
static void xas_undo_create(struct xa_state *xas, struct xa_node *last)
{
	xas_prune_empty(xas, last);
	xas_shrink_top(xas);
}

/**
 * xas_create() - Make the slots for the cursor's range exist.
 * @xas: XArray operation state.
 * @allow_root: May the entry for index 0 live in the head?  (Not for a
 *	node or zero entry, which would be taken for a tree.)
 *
 * Grows the tree if needed, then descends to the level of the cursor's
 * order, creating missing nodes.  Stops early at an existing entry larger
 * than the range: a store then replaces that whole entry.  A valid cursor
 * continues from its own slot.
 *
 * Context: Holds the xa_lock.
 * Return: The entry now in the cursor's slot (NULL, an entry or a node
 * for a store to replace).  On failure the cursor holds the error.
 */
void *xas_create(struct xa_state *xas, bool allow_root)
{
	struct xarray *xa = xas->xa;
	struct xa_node *node = xas->xa_node;
	unsigned int order = xas->xa_shift;
	void **slot;
	void *entry;
	int shift;

	if (xas_top(node)) {
		if (node)
			upc_count(xa_walks);
		entry = xa_head_locked(xa);
		xas->xa_node = NULL;
		if (!entry && xa_zero_busy(xa))
			entry = XA_ZERO_ENTRY;
		shift = xas_expand(xas, entry);
		if (shift < 0) {
			xas_undo_create(xas, NULL);
			return NULL;
		}
		if (!shift && !allow_root)
			shift = XA_CHUNK_SHIFT;
		entry = xa_head_locked(xa);
		slot = &xa->xa_head;
	} else if (xas_error(xas)) {
		return NULL;
	} else {
		shift = node->shift;
		entry = xa_slot_locked(node, xas->xa_offset);
		slot = &node->slots[xas->xa_offset];
	}

	while (shift > (int)order) {
		struct xa_node *child;

		shift -= XA_CHUNK_SHIFT;
		if (!entry) {
			struct xa_node *parent = xas->xa_node;

			child = xas_alloc(xas, shift);
			if (!child) {
				xas_undo_create(xas, parent);
				return NULL;
			}
			xa_slot_publish(slot, xa_mk_node(child));
		} else if (xa_is_node(entry)) {
			child = xa_to_node(entry);
		} else {
			break;
		}
		entry = xas_descend(xas, child);
		slot = &child->slots[xas->xa_offset];
	}
	return entry;
}

/*
 * xas_shrink() - Drop top levels that hold nothing but slot 0: a node
 * there becomes the new top, and at the leaf level a lone entry for index
 * 0 moves into the head.  Readers still in a dropped leaf find a retry
 * entry.
 */
static void xas_shrink(struct xa_state *xas)
{
	struct xarray *xa = xas->xa;
	struct xa_node *node = xas->xa_node;

	while (node->count == 1) {
		void *entry = xa_slot_locked(node, 0);

		if (!entry || (!xa_is_node(entry) && node->shift))
			break;
		if (xa_is_zero(entry) && xa_zero_busy(xa))
			entry = NULL;
		if (xa_track_free(xa) && !node_get_mark(node, 0, XA_FREE_MARK))
			xa_head_mark_clear(xa, XA_FREE_MARK);
		if (xa_is_node(entry))
			xa_node_set_parent(xa_to_node(entry), NULL);
		xa_slot_publish(&xa->xa_head, entry);
		xas->xa_node = XAS_BOUNDS;
		node->count = 0;
		node->nr_values = 0;
		if (!xa_is_node(entry))
			xa_slot_publish(&node->slots[0], XA_RETRY_ENTRY);
		xas_update(xas, node);
		xa_node_free_rcu(node);
		if (!xa_is_node(entry))
			break;
		node = xa_to_node(entry);
	}
}

/*
 * xas_delete_node() - The cursor's node may have become empty: free it
 * and every ancestor that empties with it, then shrink the tree.
 */
static void xas_delete_node(struct xa_state *xas)
{
	struct xa_node *node = xas->xa_node;

	while (!node->count) {
		struct xa_node *parent = xa_parent_locked(node);
		unsigned int offset = node->offset;

		xa_node_free_rcu(node);
		if (!parent) {
			xa_slot_publish(&xas->xa->xa_head, NULL);
			xas->xa_node = XAS_BOUNDS;
			return;
		}
		xa_slot_publish(&parent->slots[offset], NULL);
		parent->count--;
		xas->xa_node = parent;
		xas->xa_offset = offset;
		node = parent;
		xas_update(xas, node);
	}
	if (!xa_parent_locked(node))
		xas_shrink(xas);
}

/*
 * xas_free_nodes() - @top and everything below it left the tree.  Every
 * slot that held something gets a retry entry, so a reader that is still
 * inside starts again from the head, and the nodes are freed after a
 * grace period.
 */
static void xas_free_nodes(struct xa_state *xas, struct xa_node *top)
{
	struct xa_node *node = top;
	unsigned int offset = 0;

	for (;;) {
		void *entry;

		if (offset == XA_CHUNK_SIZE) {
			struct xa_node *parent = xa_parent_locked(node);
			unsigned int up = node->offset;

			node->count = 0;
			node->nr_values = 0;
			xas_update(xas, node);
			xa_node_free_rcu(node);
			if (node == top)
				return;
			node = parent;
			xa_slot_publish(&node->slots[up], XA_RETRY_ENTRY);
			offset = up + 1;
			continue;
		}
		entry = xa_slot_locked(node, offset);
		if (xa_is_node(entry)) {
			node = xa_to_node(entry);
			offset = 0;
			continue;
		}
		if (entry)
			xa_slot_publish(&node->slots[offset], XA_RETRY_ENTRY);
		offset++;
	}
}

/* ---- storing --------------------------------------------------------------- */

/*
 * Store into the head: only ever the entry for index 0 alone, or NULL
 * over a whole tree when the range covers everything the tree holds.
 */
static void *xas_store_head(struct xa_state *xas, void *entry, void *old)
{
	xa_slot_publish(&xas->xa->xa_head, entry);
	if (xa_is_node(old))
		xas_free_nodes(xas, xa_to_node(old));
	if (!entry)
		xas_init_marks(xas);
	return old;
}

/*
 * Write @entry over the cursor's slots in @node: the canonical slot, its
 * siblings, and any trailing siblings of the entry being replaced (so a
 * smaller store into a larger entry takes over the whole entry, and an
 * erase removes all of it).  Keeps count and nr_values exact.
 */
static void xas_store_slots(struct xa_state *xas, struct xa_node *node,
			    void *entry, void *first)
{
	unsigned int offset = xas->xa_offset;
	unsigned int last = offset + xas->xa_sibs;
	bool value = xa_is_value(entry);
	void *old_canonical = first;
	unsigned int i;
	int count = 0;
	int values = 0;

	if (xas->xa_sibs)
		xas_squash_marks(xas);
	if (!entry)
		xas_init_marks(xas);

	for (i = offset; ; i++) {
		void *old = xa_slot_locked(node, i);
		void *new = entry;
		void *next;

		if (i != offset && entry)
			new = xa_mk_sibling(offset);
		if (!xa_is_sibling(old))
			old_canonical = old;
		xa_slot_publish(&node->slots[i], new);
		if (xa_is_node(old))
			xas_free_nodes(xas, xa_to_node(old));
		if (!entry && i != offset && xa_track_free(xas->xa))
			node_set_mark(node, i, XA_FREE_MARK);
		count += !old - !new;
		values += (int)(value && new) - (int)xa_is_value(old_canonical);

		if (i == XA_CHUNK_MASK)
			break;
		next = xa_slot_locked(node, i + 1);
		if (i >= last && !(xa_is_sibling(next) &&
				   xa_to_sibling(next) == offset))
			break;
	}

	if (!count && !values)
		return;
	node->count += count;
	node->nr_values += values;
	xas_update(xas, node);
	if (count < 0)
		xas_delete_node(xas);
}

/**
 * xas_store() - Store an entry over the cursor's range.
 * @xas: XArray operation state; its order (XA_STATE_ORDER()) says how
 *	many indices the entry covers.
 * @entry: New entry, or NULL to erase.
 *
 * A valid cursor (after xas_load(), xas_find_conflict()...) stores without
 * a new walk.  Storing over part of a larger entry replaces all of it;
 * storing a larger entry replaces everything in its range.  Storing NULL
 * also clears the marks (in an array tracking free slots: marks the slots
 * free).  Errors (-ENOMEM) are noted in the cursor; see xas_nomem().
 *
 * Context: Holds the xa_lock.
 * Return: The entry that was at the cursor's index (the first slot of the
 * range), which may be NULL or an internal entry.
 */
void *xas_store(struct xa_state *xas, void *entry)
{
	struct xa_node *node;
	void *first;

	if (entry)
		first = xas_create(xas, !xa_is_node(entry) && !xa_is_zero(entry));
	else
		first = xas_load(xas);
	if (xas_invalid(xas))
		return first;
	node = xas->xa_node;
	/* Landed in a larger entry: it goes as a whole, from its canonical slot. */
	if (node && xas->xa_shift < node->shift)
		xas->xa_sibs = 0;
	if (first == entry && !xas->xa_sibs)
		return first;
	if (!node)
		return xas_store_head(xas, entry, first);
	xas_store_slots(xas, node, entry, first);
	return first;
}

/* ---- finding --------------------------------------------------------------- */

/**
 * xas_find() - Find the next present entry.
 * @xas: XArray operation state.
 * @max: Highest index to look at.
 *
 * From a fresh (or reset) cursor, returns the entry covering xa_index if
 * there is one, leaving xa_index as it is; otherwise, and from a cursor
 * that already points at an entry, moves to the first entry after it and
 * sets xa_index to that entry's first index.  Sibling slots are skipped;
 * zero and retry entries are returned (see xas_retry()).
 *
 * Context: Any context.  The caller holds the RCU read lock or the
 * xa_lock.
 * Return: The entry, or NULL (cursor XAS_BOUNDS) when nothing is left up
 * to @max.
 */
void *xas_find(struct xa_state *xas, unsigned long max)
{
	struct xa_node *node;
	unsigned long index;
	unsigned int offset;
	void *entry;

	if (xas_error(xas) || xas->xa_node == XAS_BOUNDS)
		return NULL;
	if (xas->xa_index > max)
		return xas_bounds(xas);
	if (!xas->xa_node) {
		/* The head held index 0; nothing follows it. */
		xas->xa_index = 1;
		return xas_bounds(xas);
	}
	if (xas->xa_node == XAS_RESTART) {
		entry = xas_load(xas);
		if (entry)
			return entry;
		/* No tree below the head: nothing at or after the index. */
		if (xas_not_node(xas->xa_node))
			return xas_bounds(xas);
	}

	/* Move to the slot after the cursor's, in the same node. */
	node = xas->xa_node;
	offset = xas_slot_of(xas, node) + 1;
	index = (xas->xa_index | ((1UL << node->shift) - 1)) + 1;
	while (index) {
		if (offset == XA_CHUNK_SIZE) {
			struct xa_node *parent = xa_parent(node);

			/* @index is already the start of the parent's next slot. */
			if (!parent)
				break;
			offset = node->offset + 1;
			node = parent;
			continue;
		}
		if (index > max)
			break;
		entry = xa_entry(node, offset);
		if (xa_is_node(entry)) {
			node = xa_to_node(entry);
			offset = 0;
			continue;
		}
		if (entry && !xa_is_sibling(entry)) {
			xas->xa_node = node;
			xas->xa_offset = offset;
			xas->xa_index = index;
			return entry;
		}
		offset++;
		index += 1UL << node->shift;
	}
	xas->xa_index = index;
	return xas_bounds(xas);
}

/**
 * xas_find_marked() - Find the next marked entry.
 * @xas: XArray operation state.
 * @max: Highest index to look at.
 * @mark: XA_MARK_0..XA_MARK_2.
 *
 * Like xas_find(), but only entries with @mark, skipping unmarked
 * subtrees.  In an array tracking free slots, searching XA_FREE_MARK
 * stops at the first free slot and returns NULL with a valid cursor there.
 *
 * Context: Any context.  The caller holds the RCU read lock or the
 * xa_lock.
 * Return: The entry, or NULL.  When the next candidate is past @max the
 * cursor is XAS_RESTART with xa_index past @max; when the tree ends first
 * it is XAS_BOUNDS with xa_index the first index past the tree.
 */
void *xas_find_marked(struct xa_state *xas, unsigned long max, xa_mark_t mark)
{
	bool free_search = mark == XA_FREE_MARK && xa_track_free(xas->xa);
	unsigned long index = xas->xa_index;
	struct xa_node *node;
	unsigned int offset;
	bool here;		/* the slot under the cursor is a candidate */
	void *entry;

	/* XAS_BOUNDS: the previous step ran off the end of the tree. */
	if (xas_error(xas) || mark > XA_MARK_MAX || xas->xa_node == XAS_BOUNDS)
		return NULL;
	if (index > max)
		goto past_max;
	if (!xas->xa_node) {
		xas->xa_index = 1;
		goto tree_end;
	}
	if (xas->xa_node == XAS_RESTART) {
		upc_count(xa_walks);
		entry = xa_head(xas->xa);
		xas->xa_node = NULL;
		if (!xa_is_node(entry)) {
			if (!index && xa_marked(xas->xa, mark))
				return entry;
			xas->xa_index = index ? index : 1;
			goto tree_end;
		}
		node = xa_to_node(entry);
		if ((index >> node->shift) > XA_CHUNK_MASK)
			goto tree_end;
		here = true;
	} else {
		node = xas->xa_node;
		here = false;
	}
	offset = xas_slot_of(xas, node);

	for (;;) {
		unsigned int next;

		if (here) {
			entry = xa_entry(node, offset);
			if (xa_is_sibling(entry)) {
				offset = xa_to_sibling(entry);
				entry = xa_entry(node, offset);
				/* Reshaped under a lockless reader: retry. */
				if (xa_is_node(entry) || xa_is_sibling(entry)) {
					xas->xa_node = node;
					xas->xa_offset = offset;
					return XA_RETRY_ENTRY;
				}
			}
			next = node_next_mark(node, mark, offset);
		} else {
			next = node_next_mark(node, mark, offset + 1);
		}
		if (next == XA_CHUNK_SIZE) {
			struct xa_node *parent = xa_parent(node);

			if (!parent) {
				index = (index | node_span_mask(node->shift)) + 1;
				if (!index)
					goto past_max;
				xas->xa_index = index;
				goto tree_end;
			}
			/* Keep @index inside the node we search: its first index. */
			index &= ~node_span_mask(node->shift);
			offset = node->offset;
			node = parent;
			here = false;
			continue;
		}
		if (!here || next != offset) {
			unsigned long start;

			/* A slot beyond the end of the index space. */
			if (((unsigned long)next << node->shift) >> node->shift != next)
				goto past_max;
			start = (index & ~node_span_mask(node->shift)) |
				((unsigned long)next << node->shift);
			if (start > max) {
				xas->xa_index = start;
				goto past_max;
			}
			index = start;
		}
		offset = next;
		entry = xa_entry(node, offset);
		if (xa_is_node(entry)) {
			node = xa_to_node(entry);
			offset = (index >> node->shift) & XA_CHUNK_MASK;
			here = true;
			continue;
		}
		/* A stale bit seen by a lockless reader: keep looking. */
		if (xa_is_sibling(entry) || (!entry && !free_search)) {
			here = false;
			continue;
		}
		xas->xa_node = node;
		xas->xa_offset = offset;
		xas->xa_index = index;
		return entry;
	}

tree_end:
	if (xas->xa_index > max)
		goto past_max;
	return xas_bounds(xas);
past_max:
	xas->xa_node = XAS_RESTART;
	return NULL;
}

/**
 * xas_find_conflict() - Find the next present entry in the cursor's range.
 * @xas: XArray operation state with the order of a planned store.
 *
 * The first call walks to the start of the range and returns the entry
 * covering it, if any (possibly one larger than the range).  Each later
 * call returns the next present entry inside the range.  After the last
 * one, NULL is returned and the cursor is left where xas_store() of the
 * range can continue without a new walk.
 *
 * Context: Holds the xa_lock.
 * Return: The next entry in the range, or NULL.
 */
void *xas_find_conflict(struct xa_state *xas)
{
	struct xa_node *node;
	void *curr;

	if (xas_error(xas) || !xas->xa_node)
		return NULL;

	if (xas_top(xas->xa_node)) {
		curr = xas_start(xas);
		if (!curr)
			return NULL;
		/* Down to the first index, below the range's level if need be. */
		while (xa_is_node(curr))
			curr = xas_descend(xas, xa_to_node(curr));
		if (curr)
			return curr;
	}
	if (xas->xa_node->shift > xas->xa_shift)
		return NULL;

	for (;;) {
		node = xas->xa_node;
		if (node->shift == xas->xa_shift) {
			/* The last slot of the range was the previous one. */
			if ((xas->xa_offset & xas->xa_sibs) == xas->xa_sibs)
				break;
		} else if (xas->xa_offset == XA_CHUNK_MASK) {
			/* Finished a node below the range's level: go up. */
			xas->xa_offset = node->offset;
			xas->xa_node = xa_parent_locked(node);
			if (!xas->xa_node)
				break;
			continue;
		}
		curr = xa_slot_locked(node, ++xas->xa_offset);
		if (xa_is_sibling(curr))
			continue;
		while (xa_is_node(curr)) {
			xas->xa_node = xa_to_node(curr);
			xas->xa_offset = 0;
			curr = xa_slot_locked(xas->xa_node, 0);
		}
		if (curr)
			return curr;
	}
	/* Back to the canonical slot of the range, ready for a store. */
	xas->xa_offset -= xas->xa_sibs;
	return NULL;
}

/* ---- moving one index at a time ---------------------------------------- */

/*
 * xas_move() - The cursor's index changed from @from by one: climb until
 * a node spans the new index, then descend to it.
 */
static void *xas_move(struct xa_state *xas, unsigned long from)
{
	struct xa_node *node = xas->xa_node;
	void *entry;

	while ((xas->xa_index ^ from) & ~node_span_mask(node->shift)) {
		node = xa_parent(node);
		if (!node)
			return xas_bounds(xas);
	}
	for (;;) {
		xas->xa_node = node;
		xas->xa_offset = xas_slot_of(xas, node);
		entry = xa_entry(node, xas->xa_offset);
		if (!xa_is_node(entry))
			return entry;
		node = xa_to_node(entry);
	}
}

/**
 * __xas_next() - The slow path of xas_next().
 * @xas: XArray operation state.
 *
 * Context: Any context; RCU read lock or xa_lock held.
 * Return: The raw entry at the next index.
 */
void *__xas_next(struct xa_state *xas)
{
	unsigned long from = xas->xa_index;

	if (xas_frozen(xas->xa_node))
		return xas_load(xas);
	xas->xa_index++;
	if (!xas->xa_node)
		return xas_bounds(xas);
	if (xas->xa_node == XAS_BOUNDS)
		return xas_load(xas);
	return xas_move(xas, from);
}

/**
 * __xas_prev() - The slow path of xas_prev().
 * @xas: XArray operation state.
 *
 * Context: Any context; RCU read lock or xa_lock held.
 * Return: The raw entry at the previous index.
 */
void *__xas_prev(struct xa_state *xas)
{
	unsigned long from = xas->xa_index;

	if (xas_frozen(xas->xa_node))
		return xas_load(xas);
	xas->xa_index--;
	if (!xas->xa_node)
		return xas_bounds(xas);
	if (xas->xa_node == XAS_BOUNDS)
		return xas_load(xas);
	return xas_move(xas, from);
}

/**
 * xas_pause() - Prepare to drop the lock during an iteration.
 * @xas: XArray operation state.
 *
 * Moves the cursor to the first index after the entry it is on and resets
 * it, so the next xas_find() or xas_for_each() step walks from the head
 * and does not return the same entry twice.
 *
 * Context: Any context.
 */
void xas_pause(struct xa_state *xas)
{
	struct xa_node *node = xas->xa_node;
	unsigned int offset;

	if (xas_invalid(xas))
		return;
	xas->xa_node = XAS_RESTART;
	if (!node) {
		xas->xa_index++;
		return;
	}
	offset = xas->xa_offset;
	while (offset + 1 < XA_CHUNK_SIZE &&
	       xa_is_sibling(xa_entry(node, offset + 1)))
		offset++;
	xas->xa_index = xas_slot_start(xas, node, offset) + (1UL << node->shift);
	if (!xas->xa_index)
		xas->xa_node = XAS_BOUNDS;
}

/**
 * xas_get_order() - The order of the entry at the cursor.
 * @xas: XArray operation state, positioned by a load or find.
 *
 * Reads the sibling slots of the node the cursor is in: no walk.
 *
 * Context: Any context; RCU read lock or xa_lock held.
 * Return: The order, 0 for the head or an invalid cursor.
 */
int xas_get_order(struct xa_state *xas)
{
	struct xa_node *node = xas->xa_node;
	unsigned int span = 1;

	if (!xas_is_node(xas))
		return 0;
	/* An entry of 2^k slots has a sibling 2^(k-1) slots past its start. */
	while (xas->xa_offset + span < XA_CHUNK_SIZE &&
	       xa_is_sibling(xa_entry(node, xas->xa_offset + span)))
		span <<= 1;
	return node->shift + __builtin_ctz(span);
}

/* ---- the normal API ---------------------------------------------------- */

/* One step of a find for the normal API: present or marked entries. */
static void *xas_find_filtered(struct xa_state *xas, unsigned long max,
			       xa_mark_t filter)
{
	if (filter <= XA_MARK_MAX)
		return xas_find_marked(xas, max, filter);
	return xas_find(xas, max);
}

void *xa_load(struct xarray *xa, unsigned long index)
{
	XA_STATE(xas, xa, index);
	void *entry;

	upc_rcu_enter();
	do {
		entry = xa_zero_to_null(xas_load(&xas));
	} while (xas_retry(&xas, entry));
	upc_rcu_exit();
	return entry;
}

void *__xa_erase(struct xarray *xa, unsigned long index)
{
	XA_STATE(xas, xa, index);

	return xas_result(&xas, xa_zero_to_null(xas_store(&xas, NULL)));
}

void *xa_erase(struct xarray *xa, unsigned long index)
{
	void *entry;

	xa_lock(xa);
	entry = __xa_erase(xa, index);
	xa_unlock(xa);
	return entry;
}

void *__xa_store(struct xarray *xa, unsigned long index, void *entry,
		 gfp_t gfp)
{
	XA_STATE(xas, xa, index);
	void *curr;

	if (!xa_storable(entry))
		return XA_ERROR(-EINVAL);
	if (!entry && xa_track_free(xa))
		entry = XA_ZERO_ENTRY;
	do {
		curr = xas_store(&xas, entry);
		if (xa_track_free(xa))
			xas_clear_mark(&xas, XA_FREE_MARK);
	} while (__xas_nomem(&xas, gfp));
	return xas_result(&xas, xa_zero_to_null(curr));
}

void *xa_store(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp)
{
	void *curr;

	xa_lock(xa);
	curr = __xa_store(xa, index, entry, gfp);
	xa_unlock(xa);
	return curr;
}

/* Compare-and-exchange on the raw slot contents (a reserved slot is zero). */
static void *xa_cmpxchg_raw(struct xarray *xa, unsigned long index,
			    void *old, void *entry, gfp_t gfp)
{
	XA_STATE(xas, xa, index);
	void *curr;

	if (!xa_storable(entry))
		return XA_ERROR(-EINVAL);
	do {
		curr = xas_load(&xas);
		if (curr == old) {
			xas_store(&xas, entry);
			if (xa_track_free(xa) && entry && !curr)
				xas_clear_mark(&xas, XA_FREE_MARK);
		}
	} while (__xas_nomem(&xas, gfp));
	return xas_result(&xas, curr);
}

void *__xa_cmpxchg(struct xarray *xa, unsigned long index, void *old,
		   void *entry, gfp_t gfp)
{
	return xa_zero_to_null(xa_cmpxchg_raw(xa, index, old, entry, gfp));
}

int __xa_insert(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp)
{
	void *curr;

	if (!entry)
		entry = XA_ZERO_ENTRY;
	curr = xa_cmpxchg_raw(xa, index, NULL, entry, gfp);
	if (xa_is_err(curr))
		return xa_err(curr);
	return curr ? -EBUSY : 0;
}

/* The largest aligned order that starts at @first and ends by @last. */
static unsigned int xa_range_order(unsigned long first, unsigned long last)
{
	unsigned int order = first ? (unsigned int)__builtin_ctzl(first) :
				     (unsigned int)BITS_PER_LONG;

	for (;;) {
		unsigned long span_minus_one = order < BITS_PER_LONG ?
			(1UL << order) - 1 : ULONG_MAX;

		if (span_minus_one <= last - first)
			return order;
		order--;
	}
}

void *xa_store_range(struct xarray *xa, unsigned long first,
		     unsigned long last, void *entry, gfp_t gfp)
{
	XA_STATE(xas, xa, 0);

	if (xa_is_internal(entry) || last < first)
		return XA_ERROR(-EINVAL);
	do {
		xas_lock(&xas);
		for (;;) {
			unsigned int order = xa_range_order(first, last);
			unsigned long next;

			xas_set_order(&xas, first, order);
			xas_store(&xas, entry);
			if (xas_error(&xas))
				break;
			if (entry && xa_track_free(xa))
				xas_clear_mark(&xas, XA_FREE_MARK);
			if (order == BITS_PER_LONG)
				break;
			next = first + (1UL << order);
			if (!next || next > last)
				break;
			first = next;
		}
		xas_unlock(&xas);
	} while (xas_nomem(&xas, gfp));
	return xas_result(&xas, NULL);
}

int xa_get_order(struct xarray *xa, unsigned long index)
{
	XA_STATE(xas, xa, index);
	int order = 0;
	void *entry;

	upc_rcu_enter();
	for (;;) {
		entry = xas_load(&xas);
		if (!xa_is_retry(entry))
			break;
		xas_reset(&xas);
	}
	if (entry)
		order = xas_get_order(&xas);
	upc_rcu_exit();
	return order;
}

bool xa_get_mark(struct xarray *xa, unsigned long index, xa_mark_t mark)
{
	XA_STATE(xas, xa, index);
	bool marked = false;
	void *entry;

	if (mark > XA_MARK_MAX)
		return false;
	upc_rcu_enter();
	entry = xas_start(&xas);
	/* Follow the mark down; it stops wherever it is not set. */
	while (xas_get_mark(&xas, mark)) {
		if (!xa_is_node(entry)) {
			marked = true;
			break;
		}
		entry = xas_descend(&xas, xa_to_node(entry));
	}
	upc_rcu_exit();
	return marked;
}

void __xa_set_mark(struct xarray *xa, unsigned long index, xa_mark_t mark)
{
	XA_STATE(xas, xa, index);

	if (xas_load(&xas))
		xas_set_mark(&xas, mark);
}

void __xa_clear_mark(struct xarray *xa, unsigned long index, xa_mark_t mark)
{
	XA_STATE(xas, xa, index);

	if (xas_load(&xas))
		xas_clear_mark(&xas, mark);
}

void xa_set_mark(struct xarray *xa, unsigned long index, xa_mark_t mark)
{
	xa_lock(xa);
	__xa_set_mark(xa, index, mark);
	xa_unlock(xa);
}

void xa_clear_mark(struct xarray *xa, unsigned long index, xa_mark_t mark)
{
	xa_lock(xa);
	__xa_clear_mark(xa, index, mark);
	xa_unlock(xa);
}

void *xa_find(struct xarray *xa, unsigned long *indexp, unsigned long max,
	      xa_mark_t filter)
{
	XA_STATE(xas, xa, *indexp);
	void *entry;

	upc_rcu_enter();
	do {
		entry = xas_find_filtered(&xas, max, filter);
	} while (xas_retry(&xas, entry));
	upc_rcu_exit();
	if (entry)
		*indexp = xas.xa_index;
	return entry;
}

/* First index of the entry under a valid cursor. */
static unsigned long xas_entry_first(const struct xa_state *xas)
{
	if (!xas->xa_node)
		return 0;
	return xas_slot_start(xas, xas->xa_node, xas->xa_offset);
}

void *xa_find_after(struct xarray *xa, unsigned long *indexp,
		    unsigned long max, xa_mark_t filter)
{
	unsigned long prev = *indexp;
	XA_STATE(xas, xa, prev + 1);
	void *entry;

	if (prev == ULONG_MAX)
		return NULL;
	upc_rcu_enter();
	for (;;) {
		entry = xas_find_filtered(&xas, max, filter);
		if (!entry)
			break;
		if (xas_retry(&xas, entry))
			continue;
		/* Still the entry that holds *indexp: skip it. */
		if (xas_entry_first(&xas) <= prev)
			continue;
		break;
	}
	upc_rcu_exit();
	if (entry)
		*indexp = xas.xa_index;
	return entry;
}

unsigned int xa_extract(struct xarray *xa, void **dst, unsigned long start,
			unsigned long max, unsigned int n, xa_mark_t filter)
{
	XA_STATE(xas, xa, start);
	unsigned int found = 0;
	void *entry;

	if (!n)
		return 0;
	upc_rcu_enter();
	for (entry = xas_find_filtered(&xas, max, filter); entry;
	     entry = xas_find_filtered(&xas, max, filter)) {
		if (xas_retry(&xas, entry))
			continue;
		dst[found++] = entry;
		if (found == n)
			break;
	}
	upc_rcu_exit();
	return found;
}

void xa_destroy(struct xarray *xa)
{
	XA_STATE(xas, xa, 0);
	void *head;

	xa_lock(xa);
	head = xa_head_locked(xa);
	xas.xa_node = NULL;
	xa_slot_publish(&xa->xa_head, NULL);
	xas_init_marks(&xas);
	if (xa_zero_busy(xa))
		xa_head_mark_clear(xa, XA_FREE_MARK);
	if (xa_is_node(head))
		xas_free_nodes(&xas, xa_to_node(head));
	xa_unlock(xa);
}

/*
 * xas_alloc_id() - Store @entry at the lowest free id in @limit and
 * report it in *@id.  An empty range leaves -EBUSY in the cursor.
 */
static void xas_alloc_id(struct xa_state *xas, void *entry,
			 struct xa_limit limit, uint32_t *id)
{
	xas->xa_index = limit.min;
	xas_find_marked(xas, limit.max, XA_FREE_MARK);
	/* The search ran past limit.max without finding a free slot. */
	if (xas->xa_node == XAS_RESTART) {
		xas_set_err(xas, -EBUSY);
		return;
	}
	*id = (uint32_t)xas->xa_index;
	xas_store(xas, entry);
	xas_clear_mark(xas, XA_FREE_MARK);
}

int __xa_alloc(struct xarray *xa, uint32_t *id, void *entry,
	       struct xa_limit limit, gfp_t gfp)
{
	XA_STATE(xas, xa, 0);

	if (!xa_storable(entry) || !xa_track_free(xa))
		return -EINVAL;
	/* An id handed out for NULL stays taken: it holds a zero entry. */
	if (!entry)
		entry = XA_ZERO_ENTRY;
	for (;;) {
		xas_alloc_id(&xas, entry, limit, id);
		if (!__xas_nomem(&xas, gfp))
			return xas_error(&xas);
	}
}

int __xa_alloc_cyclic(struct xarray *xa, uint32_t *id, void *entry,
		      struct xa_limit limit, uint32_t *next, gfp_t gfp)
{
	uint32_t min = limit.min;
	int ret;

	if (*next > limit.min)
		limit.min = *next;
	ret = __xa_alloc(xa, id, entry, limit, gfp);
	if (ret == 0 && (xa_flags_get(xa) & XA_FLAGS_ALLOC_WRAPPED)) {
		xa_flags_put(xa, xa_flags_get(xa) & ~XA_FLAGS_ALLOC_WRAPPED);
		ret = 1;
	}
	/* Only a full upper part sends the search back to the bottom. */
	if (ret == -EBUSY && limit.min > min) {
		limit.min = min;
		ret = __xa_alloc(xa, id, entry, limit, gfp);
		if (ret == 0)
			ret = 1;
	}
	if (ret >= 0) {
		*next = *id + 1;
		if (*next == 0)
			xa_flags_put(xa, xa_flags_get(xa) | XA_FLAGS_ALLOC_WRAPPED);
	}
	return ret;
}
