// SPDX-License-Identifier: MIT
/*
 * mm/workingset.c - shadow entries, refault distance and the bound on
 * shadow memory.
 *
 * This file owns the shadow entry format, the lruvec's eviction clock
 * (nonresident_age) and the list of tree nodes that hold only shadows.
 *
 * The clock.  nonresident_age advances by a folio's pages whenever a
 * folio is evicted or activated: it counts how far the inactive list
 * has moved.  A shadow remembers the clock from before its folio's
 * eviction.  When the folio comes back, the refault distance (clock now
 * - clock in the shadow) is how many evictions and activations happened
 * since it began to go, its own included: the extra inactive list space
 * it would have needed to stay.
 * That space could only come from the other lists, so a distance no
 * larger than them means the folio belongs to the working set: it is
 * activated at once (the kernel's algorithm, see the comment at the top
 * of its mm/workingset.c for the full argument; which lists count is in
 * workingset_size()).
 *
 * Shadow entry layout (an XArray value entry, 63 bits):
 *
 *   bit 0        PG_workingset of the evicted folio
 *   bits 1..16   the lruvec's id (a shadow from another cache is ignored;
 *                ids repeat only after 65536 caches in one process)
 *   bits 17..62  the clock, truncated to 46 bits (distances are taken
 *                modulo 2^46, far more than any arena's pages)
 *
 * Shadow nodes.  Shadows of a file that is never read again would fill
 * memory with tree nodes.  The page cache's cursors report node changes
 * to workingset_update_node() (mapping_set_update()), which keeps every
 * node holding only shadows (count == nr_values) on the lruvec's
 * shadow_nodes list, newest at the head.  After reclaim, if there are
 * more such nodes than an eighth of the limit's pages (the kernel's
 * bound: a node per eight pages), the oldest are freed together with
 * their shadows.  Lock order: i_pages lock, then shadow_lock; the
 * shrinker holds shadow_lock and only trylocks an i_pages lock.
 */
#include <stddef.h>

#include "lru_internal.h"

#define WORKINGSET_SHIFT	1
#define LRUVEC_ID_BITS		16
#define EVICTION_SHIFT		(WORKINGSET_SHIFT + LRUVEC_ID_BITS)
#define EVICTION_BITS		(BITS_PER_LONG - 1 - EVICTION_SHIFT)
#define EVICTION_MASK		((1UL << EVICTION_BITS) - 1)
#define LRUVEC_ID_MASK		((1UL << LRUVEC_ID_BITS) - 1)

/* Ids handed to lruvecs, modulo 2^LRUVEC_ID_BITS. */
static unsigned int lruvec_next_id;

void workingset_init(struct lruvec *lruvec)
{
	lruvec->id = __atomic_fetch_add(&lruvec_next_id, 1, __ATOMIC_RELAXED) &
		     LRUVEC_ID_MASK;
	upc_lock_init(&lruvec->shadow_lock);
	mm_list_init(&lruvec->shadow_nodes);
}

void workingset_age_nonresident(struct lruvec *lruvec, unsigned long nr)
{
	__atomic_fetch_add(&lruvec->nonresident_age, nr, __ATOMIC_RELAXED);
}

static void *pack_shadow(unsigned int id, unsigned long age, bool workingset)
{
	unsigned long v = (age & EVICTION_MASK) << EVICTION_SHIFT;

	v |= (unsigned long)(id & LRUVEC_ID_MASK) << WORKINGSET_SHIFT;
	return xa_mk_value(v | workingset);
}

/**
 * workingset_shadow_info() - Decode a shadow entry (for tests and tools).
 * @shadow: A value entry.
 * @id: If not NULL, receives the lruvec id.
 * @age: If not NULL, receives the nonresident age at eviction.
 * @workingset: If not NULL, receives the workingset bit.
 *
 * Context: Any.
 */
void workingset_shadow_info(void *shadow, unsigned int *id,
			    unsigned long *age, bool *workingset)
{
	unsigned long v = xa_to_value(shadow);

	if (workingset)
		*workingset = v & 1;
	if (id)
		*id = (v >> WORKINGSET_SHIFT) & LRUVEC_ID_MASK;
	if (age)
		*age = v >> EVICTION_SHIFT;
}

/**
 * workingset_eviction() - The shadow entry for a folio being evicted.
 * @folio: A locked folio about to leave its mapping.
 *
 * Context: Holds the folio lock (and, in reclaim, the i_pages lock).
 * Return: The shadow entry; NULL if the arena has no lruvec.
 */
void *workingset_eviction(struct folio *folio)
{
	struct lruvec *lruvec = folio_lruvec(folio);
	unsigned long nr = folio_nr_pages(folio);
	unsigned long age;

	if (!lruvec)
		return NULL;
	/*
	 * The clock before this eviction: a folio that refaults at once
	 * is then its own size away, as in the kernel.
	 */
	age = __atomic_fetch_add(&lruvec->nonresident_age, nr,
				 __ATOMIC_RELAXED);
	return pack_shadow(lruvec->id, age, folio_test_workingset(folio));
}

/*
 * The pages the refault distance is compared with, as the kernel's
 * workingset_test_recent() sums them: the active file list, plus the
 * inactive file list for an anon refault; and, when anon folios can go
 * to swap, the active anon list, plus the inactive anon list for a file
 * refault.  The folio's own inactive list never counts: the distance
 * is how much longer that list would have had to be.
 */
static unsigned long workingset_size(const struct lruvec *lruvec, bool file)
{
	unsigned long size = lru_pages(lruvec, LRU_ACTIVE_FILE);

	if (!file)
		size += lru_pages(lruvec, LRU_INACTIVE_FILE);
	if (lruvec_can_swap(lruvec)) {
		size += lru_pages(lruvec, LRU_ACTIVE_ANON);
		if (file)
			size += lru_pages(lruvec, LRU_INACTIVE_ANON);
	}
	return size;
}

/**
 * workingset_refault() - Account a folio added over a shadow entry.
 * @folio: The folio just added, not yet on the LRU.
 * @shadow: The value entry it replaced.
 *
 * Context: Any thread, before folio_add_lru().
 */
void workingset_refault(struct folio *folio, void *shadow)
{
	struct lruvec *lruvec = folio_lruvec(folio);
	unsigned long nr = folio_nr_pages(folio);
	unsigned long eviction, now, distance;
	unsigned int id;
	bool workingset;

	if (!lruvec || !xa_is_value(shadow))
		return;
	workingset_shadow_info(shadow, &id, &eviction, &workingset);
	if (id != lruvec->id)
		return;
	lru_stat_add(&lruvec->workingset_refault, nr);
	now = __atomic_load_n(&lruvec->nonresident_age, __ATOMIC_RELAXED);
	distance = (now - eviction) & EVICTION_MASK;
	if (distance > workingset_size(lruvec,
				       !folio_test_swapbacked(folio)))
		return;
	folio_set_active(folio);
	workingset_age_nonresident(lruvec, nr);
	lru_stat_add(&lruvec->workingset_activate, nr);
	/* It was in the working set before it went: a restore. */
	if (workingset) {
		folio_set_workingset(folio);
		lru_stat_add(&lruvec->workingset_restore, nr);
	}
}

/* ---- shadow nodes ------------------------------------------------------------- */

/*
 * The shadow node list.  A node's private_list is all zero until it is
 * first listed, and zero again once unlinked: whether its ->next is NULL
 * is read under the node's own tree lock (shadow_node_listed()), and
 * changes only under that lock too.  But the list is changed under
 * shadow_lock alone, and linking or unlinking one node writes its
 * neighbours' ->next, which may belong to another tree whose lock
 * another thread holds while it reads it.  The value it reads is never
 * NULL either way; the stores and that load are atomic so that reading
 * it is not a data race.
 */
static void shadow_set_next(struct upc_list_head *entry,
			    struct upc_list_head *next)
{
	__atomic_store_n(&entry->next, next, __ATOMIC_RELAXED);
}

static bool shadow_node_listed(const struct xa_node *node)
{
	return __atomic_load_n(&node->private_list.next, __ATOMIC_RELAXED) !=
	       NULL;
}

/* Link @entry at the front of @head's list.  shadow_lock held. */
static void shadow_list_add(struct upc_list_head *entry,
			    struct upc_list_head *head)
{
	struct upc_list_head *first = head->next;

	entry->prev = head;
	shadow_set_next(entry, first);
	first->prev = entry;
	shadow_set_next(head, entry);
}

/* Take @entry out of its list, leaving its own links.  shadow_lock held. */
static void shadow_list_del(struct upc_list_head *entry)
{
	shadow_set_next(entry->prev, entry->next);
	entry->next->prev = entry->prev;
}

/* Unlink a listed node.  shadow_lock held. */
static void shadow_node_unlink(struct lruvec *lruvec, struct xa_node *node)
{
	shadow_list_del(&node->private_list);
	shadow_set_next(&node->private_list, NULL);
	node->private_list.prev = NULL;
	__atomic_store_n(&lruvec->nr_shadow_nodes, lruvec->nr_shadow_nodes - 1,
			 __ATOMIC_RELAXED);
}

static struct address_space *node_mapping(const struct xa_node *node)
{
	return (struct address_space *)((char *)node->array -
		offsetof(struct address_space, i_pages));
}

void workingset_update_node(struct xa_node *node)
{
	struct lruvec *lruvec = arena_lruvec(node_mapping(node)->arena);
	bool shadows_only = node->count && node->count == node->nr_values;

	if (!lruvec || shadows_only == shadow_node_listed(node))
		return;
	lru_lock(&lruvec->shadow_lock);
	if (shadows_only && !shadow_node_listed(node)) {
		shadow_list_add(&node->private_list, &lruvec->shadow_nodes);
		__atomic_store_n(&lruvec->nr_shadow_nodes,
				 lruvec->nr_shadow_nodes + 1, __ATOMIC_RELAXED);
	} else if (!shadows_only && shadow_node_listed(node)) {
		shadow_node_unlink(lruvec, node);
	}
	upc_unlock(&lruvec->shadow_lock);
}

/* The first index @node covers. */
static unsigned long shadow_node_base(const struct xa_node *node)
{
	unsigned long base = 0;

	for (; node->parent; node = node->parent)
		base |= (unsigned long)node->offset <<
			(node->shift + XA_CHUNK_SHIFT);
	return base;
}

/*
 * Free @node and its shadows, if it still holds only shadows.  Its
 * tree's lock is held and it is off the list.  Return: true if freed.
 */
static bool shadow_node_erase(struct address_space *mapping,
			      struct xa_node *node)
{
	unsigned int order = node->shift + XA_CHUNK_SHIFT;
	XA_STATE_ORDER(xas, &mapping->i_pages, shadow_node_base(node), order);

	if (!node->count || node->count != node->nr_values)
		return false;
	mapping_set_update(&xas, mapping);
	if (xas_load(&xas) != xa_mk_node(node))
		return false;
	xas_store(&xas, NULL);
	return true;
}

/*
 * Take the oldest listed node whose tree lock is free, unlinked, with
 * that lock held.  Return: the node, or NULL if none could be had.
 */
static struct xa_node *shadow_node_take(struct lruvec *lruvec,
					struct address_space **mappingp)
{
	struct xa_node *node = NULL;
	unsigned long tries;

	lru_lock(&lruvec->shadow_lock);
	/* Read under the lock its writers hold. */
	tries = lruvec->nr_shadow_nodes;
	while (tries-- && !mm_list_empty(&lruvec->shadow_nodes)) {
		struct upc_list_head *entry = lruvec->shadow_nodes.prev;
		struct xa_node *n = (struct xa_node *)((char *)entry -
				    offsetof(struct xa_node, private_list));

		if (xa_trylock(&node_mapping(n)->i_pages)) {
			shadow_node_unlink(lruvec, n);
			*mappingp = node_mapping(n);
			node = n;
			break;
		}
		/* Busy tree: try the next one, this one later. */
		shadow_list_del(entry);
		shadow_list_add(entry, &lruvec->shadow_nodes);
	}
	upc_unlock(&lruvec->shadow_lock);
	return node;
}

static unsigned long shadow_nodes_max(const struct lruvec *lruvec)
{
	return upc_arena_limit(lruvec->arena) / 8;
}

unsigned long workingset_shrink_shadows(struct lruvec *lruvec)
{
	unsigned long freed = 0;

	while (__atomic_load_n(&lruvec->nr_shadow_nodes, __ATOMIC_RELAXED) >
	       shadow_nodes_max(lruvec)) {
		struct address_space *mapping;
		struct xa_node *node = shadow_node_take(lruvec, &mapping);

		if (!node)
			break;
		if (shadow_node_erase(mapping, node))
			freed++;
		xa_unlock(&mapping->i_pages);
	}
	lru_stat_add(&lruvec->workingset_nodereclaim, freed);
	return freed;
}
