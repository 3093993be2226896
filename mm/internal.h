/* SPDX-License-Identifier: MIT */
/*
 * mm/internal.h - what the files of mm/ share with each other (and with
 * their tests), and nobody else: the hand-off from the last folio_put()
 * to the allocator, the allocator's private state of an arena, the arena
 * invariant checker, debug assertions, the doubly linked list helpers
 * that the allocator's free lists (and later the LRU lists) are made of,
 * and refcount freezing.
 */
#ifndef UPCACHE_MM_INTERNAL_H
#define UPCACHE_MM_INTERNAL_H

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include <upcache/folio.h>

/*
 * UPC_MM_BUG_ON() - Abort if @cond holds, in debug builds (UPC_DEBUG).
 * Release builds compile @cond away without evaluating it, so it must
 * have no side effect.
 */
#ifdef UPC_DEBUG
#define UPC_MM_BUG_ON(cond)	assert(!(cond))
#else
#define UPC_MM_BUG_ON(cond)	((void)sizeof(!(cond)))
#endif

/*
 * How many times one allocation calls the reclaim hook (each time it
 * reported progress but the retry still failed) before it gives up.
 */
#define UPC_RECLAIM_RETRIES	16

/*
 * The largest arena upc_arena_create() accepts: 64 TiB, half of the
 * 47-bit user address space of x86-64, which must also hold the memmap
 * (1/64 of the arena), the 2 MiB of alignment slack and everything else.
 */
#define UPC_ARENA_MAX_BYTES	(1ULL << 46)

/*
 * struct upc_arena_priv - an arena with the allocator state that only
 * mm/ sees.  upc_arena_create() allocates the whole of it and hands out
 * &->arena; arena_priv() finds the rest from that pointer.  The public
 * struct upc_arena (upcache/folio.h) shows its fields only so that
 * folio_address() can be inline; this state has no such reader.
 * @arena: The arena everyone else sees.
 * @frontier: Page number of the first 2 MiB block the allocator has never
 *	handed out, a multiple of 2^UPC_MAX_ORDER; arena->nr_pages once
 *	every block has been.  The blocks from here on are free, on no
 *	list, and their memmap entries were never written (all zero).  It
 *	only grows, under arena->lock (mm/page_alloc.c's opening comment).
 */
struct upc_arena_priv {
	struct upc_arena arena;
	unsigned long frontier;
};

/* arena_priv() - The private part of an arena upc_arena_create() made. */
static inline struct upc_arena_priv *arena_priv(struct upc_arena *arena)
{
	return (struct upc_arena_priv *)((char *)arena -
					 offsetof(struct upc_arena_priv, arena));
}

/*
 * upc_arena_alloc_error() - Why an allocation of folios from @arena
 * failed, as a file's write reports it: -ENOSPC when the arena holds its
 * limit of pages that reclaim could not free (a full tmpfs; pages in
 * swap's or a file system's way), -ENOMEM when something else ran out
 * (index nodes, an injected fault).
 */
static inline int upc_arena_alloc_error(const struct upc_arena *arena)
{
	return upc_arena_charged(arena) >= upc_arena_limit(arena) ?
	       -ENOSPC : -ENOMEM;
}

/**
 * upc_folio_free() - Give a folio whose last reference is gone back.
 * @folio: The folio; its refcount has just dropped to zero.
 *
 * Checks (debug builds) that nobody left it locked, dirty, under
 * writeback, on an LRU list or in a mapping; clears its fields; returns
 * its pages to the arena's per-CPU-like cache (order 0) or buddy lists;
 * then uncharges them.
 *
 * Context: Any thread; takes a pcp lock and/or the arena lock, never
 * sleeps for long.  Called by folio_put_refs() only.
 */
void upc_folio_free(struct folio *folio);

/**
 * upc_arena_check() - Verify every invariant of an arena's allocator.
 * @arena: The arena.
 *
 * Checks that every free list is well linked and holds, for its order,
 * aligned in-range blocks marked PG_buddy with that order and nothing
 * else set, zero refcount, and no free buddy of the same order left
 * unmerged; that nr_free[] counts them; that the pcp lists hold order-0
 * pages with no flag and zero refcount, no more than UPC_PCP_HIGH and
 * as many as their count says; that no page is free twice; that no other
 * page carries PG_buddy; that every block and page on a list lies below
 * the frontier (struct upc_arena_priv), which is block aligned and inside
 * the arena, and every memmap entry from it on is still all zero; and
 * that the free pages (the frontier's untouched blocks among them) plus
 * the charged ones are the whole arena.
 *
 * Context: No allocation or free may be in flight.  Takes every lock of
 * the arena; O(arena pages).  For tests and debugging.
 * Return: 0 if everything holds; -EUCLEAN after printing the first
 * violation to stderr; -ENOMEM if the checker's bitmap cannot be
 * allocated.
 */
int upc_arena_check(struct upc_arena *arena);

/* ---- lists ----------------------------------------------------------- */

/* mm_list_init() - Make @head an empty list (a self-linked entry). */
static inline void mm_list_init(struct upc_list_head *head)
{
	head->next = head;
	head->prev = head;
}

/* mm_list_empty() - Is the list at @head empty? */
static inline bool mm_list_empty(const struct upc_list_head *head)
{
	return head->next == head;
}

/* mm_list_link() - Link @entry between two adjacent entries. */
static inline void mm_list_link(struct upc_list_head *entry,
				struct upc_list_head *prev,
				struct upc_list_head *next)
{
	entry->prev = prev;
	entry->next = next;
	prev->next = entry;
	next->prev = entry;
}

/* mm_list_add() - Add @entry at the front of the list at @head. */
static inline void mm_list_add(struct upc_list_head *entry,
			       struct upc_list_head *head)
{
	mm_list_link(entry, head, head->next);
}

/* mm_list_add_tail() - Add @entry at the back of the list at @head. */
static inline void mm_list_add_tail(struct upc_list_head *entry,
				    struct upc_list_head *head)
{
	mm_list_link(entry, head->prev, head);
}

/* mm_list_del_init() - Unlink @entry and leave it self-linked. */
static inline void mm_list_del_init(struct upc_list_head *entry)
{
	entry->prev->next = entry->next;
	entry->next->prev = entry->prev;
	mm_list_init(entry);
}

/* lru_to_folio() - The folio whose ->lru is @entry. */
static inline struct folio *lru_to_folio(struct upc_list_head *entry)
{
	return (struct folio *)((char *)entry - offsetof(struct folio, lru));
}

/*
 * folio_ref_freeze() - Set @folio's refcount to 0 if it is exactly
 * @count: lockless lookups then fail folio_try_get() until it is given
 * back.  Return: success.
 */
static inline bool folio_ref_freeze(struct folio *folio, int count)
{
	return __atomic_compare_exchange_n(&folio->refcount, &count, 0, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/* Give a frozen folio a count (release: after every change to it). */
static inline void folio_ref_unfreeze(struct folio *folio, int count)
{
	__atomic_store_n(&folio->refcount, count, __ATOMIC_RELEASE);
}

/* ---- a folio's place in its file and in the arena ------------------- */

/* folio_pos() - The file offset of @folio's first byte. */
static inline int64_t folio_pos(const struct folio *folio)
{
	return (int64_t)folio->index << UPC_PAGE_SHIFT;
}

/*
 * extent_end_before() - Where the @size bytes from @pos end, cut at
 * @end, which lies past @pos (the end of the last possible page, 2^63,
 * is not an int64_t).
 */
static inline int64_t extent_end_before(int64_t pos, size_t size,
					int64_t end)
{
	if ((uint64_t)(end - pos) <= size)
		return end;
	return pos + (int64_t)size;
}

/* folio_end_before() - Where @folio's bytes end, cut at @end, past its start. */
static inline int64_t folio_end_before(const struct folio *folio, int64_t end)
{
	return extent_end_before(folio_pos(folio), folio_size(folio), end);
}

/*
 * folios_adjacent() - How many of @folios, from the first, follow each
 * other in the arena: the folios a write can fill with one copy, which
 * beats a copy per page when they are not in the CPU's caches.
 */
static inline unsigned int folios_adjacent(struct folio **folios,
					   unsigned int nr)
{
	unsigned int n = 1;

	while (n < nr && (char *)folio_address(folios[n - 1]) +
			 folio_size(folios[n - 1]) ==
			 (char *)folio_address(folios[n]))
		n++;
	return n;
}

#endif /* UPCACHE_MM_INTERNAL_H */
