// SPDX-License-Identifier: MIT
/*
 * mm/arena_check.c - the arena invariant checker, upc_arena_check().
 *
 * This file owns the invariants of the allocator state that
 * mm/page_alloc.c maintains, checked from scratch: it shares no code
 * with the allocator (list walking, buddy arithmetic and flag tests are
 * written again here), so a mistake there is not repeated here.  It is
 * for tests and debug builds: O(arena pages), never on a fast path.
 *
 * What is checked (see upc_arena_check() in mm/internal.h):
 *   1. free lists: well linked (next->prev), entries inside the memmap,
 *      each the first page of a block of the list's order that is
 *      aligned to its size and below the frontier, PG_buddy the only flag,
 *      ->order the list's order, refcount 0, its other pages with no
 *      flag and refcount 0; the head linked both ways (an empty list's
 *      too); no block whose buddy is a
 *      free block of the same order (it should have merged); the number
 *      of blocks equals nr_free[order];
 *   2. pcp lists: well linked (the head too), order-0 pages below the
 *      frontier with no flag and refcount 0, as many as ->count, and
 *      ->count <= UPC_PCP_HIGH;
 *   3. no page is in two free places (a bitmap of the pages seen; this
 *      also stops the walk of a list that loops);
 *   4. every page carrying PG_buddy was found on a free list;
 *   5. the frontier: a multiple of 2^UPC_MAX_ORDER, at most the arena's
 *      pages; every memmap entry from it on is all zero (never written:
 *      the allocator takes a block from there as it is);
 *   6. free pages (listed, cached, and past the frontier) + charged
 *      pages == the arena's pages.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

#define LONG_BITS	(8 * sizeof(unsigned long))

/* State of one check run. */
struct arena_check {
	struct upc_arena *arena;
	unsigned long frontier;		/* the arena's, read under its lock */
	unsigned long *seen;		/* one bit per free page found */
	unsigned long free_pages;	/* pages found free */
	unsigned long buddy_heads;	/* blocks found on the free lists */
};

static int check_fail(const struct arena_check *c, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "upc_arena_check: arena %p: ", (void *)c->arena);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -EUCLEAN;
}

/* entry_pfn() - Page number of the folio whose ->lru is @entry, or -1. */
static long entry_pfn(const struct upc_arena *arena,
		      const struct upc_list_head *entry)
{
	uintptr_t off = (uintptr_t)entry - offsetof(struct folio, lru) -
			(uintptr_t)arena->memmap;

	if (off % sizeof(struct folio) ||
	    off / sizeof(struct folio) >= arena->nr_pages)
		return -1;
	return (long)(off / sizeof(struct folio));
}

static unsigned long page_flags(const struct folio *page)
{
	return __atomic_load_n(&page->flags, __ATOMIC_RELAXED);
}

/* mark_free() - Record pages [@pfn, @pfn + @nr) as free, once each. */
static int mark_free(struct arena_check *c, unsigned long pfn,
		     unsigned long nr)
{
	unsigned long p, bit;

	for (p = pfn; p < pfn + nr; p++) {
		bit = 1UL << (p % LONG_BITS);
		if (c->seen[p / LONG_BITS] & bit)
			return check_fail(c, "page %lu is free twice", p);
		c->seen[p / LONG_BITS] |= bit;
	}
	c->free_pages += nr;
	return 0;
}

/* check_links() - Is @entry linked both ways to its successor? */
static int check_links(const struct arena_check *c,
		       const struct upc_list_head *entry, const char *what)
{
	if (entry->next->prev != entry)
		return check_fail(c, "%s: broken link after %p", what,
				  (const void *)entry);
	return 0;
}

/*
 * check_head() - Is the list at @head linked both ways at its ends?  The
 * walk checks each entry's link to its successor, which leaves the
 * head's first back link and its ->prev (of an empty list too) unseen.
 */
static int check_head(const struct arena_check *c,
		      const struct upc_list_head *head, const char *what)
{
	if (head->next->prev != head || head->prev->next != head)
		return check_fail(c, "%s: broken link at the head %p", what,
				  (const void *)head);
	return 0;
}

/*
 * check_free_pages() - The pages of a free block after its first: no
 * flag and refcount 0, so that a stale lockless folio_try_get() on one
 * fails, and none looks like a folio when the block is handed out.
 */
static int check_free_pages(const struct arena_check *c, unsigned long pfn,
			    unsigned long nr)
{
	const struct folio *page;
	unsigned long p;

	for (p = pfn + 1; p < pfn + nr; p++) {
		page = c->arena->memmap + p;
		if (page_flags(page) || folio_ref_count(page))
			return check_fail(c, "free block at %lu: page %lu has "
					  "flags %#lx refcount %d", pfn, p,
					  page_flags(page),
					  folio_ref_count(page));
	}
	return 0;
}

/* check_block() - One entry of free_area[@order], at page @pfn. */
static int check_block(struct arena_check *c, unsigned long pfn,
		       unsigned int order)
{
	const struct folio *page = c->arena->memmap + pfn;
	unsigned long nr = 1UL << order, buddy = pfn ^ nr;
	const struct folio *bpage = c->arena->memmap + buddy;

	if (pfn % nr || pfn + nr > c->frontier)
		return check_fail(c, "order %u: block at %lu misaligned or "
				  "not below the frontier %lu", order, pfn,
				  c->frontier);
	if (page_flags(page) != 1UL << PG_buddy || page->order != order)
		return check_fail(c, "order %u: block at %lu has flags %#lx "
				  "order %u", order, pfn, page_flags(page),
				  page->order);
	if (folio_ref_count(page))
		return check_fail(c, "order %u: block at %lu has refcount %d",
				  order, pfn, folio_ref_count(page));
	if (order < UPC_MAX_ORDER &&
	    (page_flags(bpage) & (1UL << PG_buddy)) && bpage->order == order)
		return check_fail(c, "order %u: blocks at %lu and %lu not "
				  "merged", order, pfn, buddy);
	if (check_free_pages(c, pfn, nr))
		return -EUCLEAN;
	return mark_free(c, pfn, nr);
}

static int check_free_area(struct arena_check *c, unsigned int order)
{
	struct upc_list_head *head = &c->arena->free_area[order], *pos;
	unsigned long n = 0;
	long pfn;
	int err;

	err = check_head(c, head, "free list");
	if (err)
		return err;
	for (pos = head->next; pos != head; pos = pos->next) {
		err = check_links(c, pos, "free list");
		if (err)
			return err;
		pfn = entry_pfn(c->arena, pos);
		if (pfn < 0)
			return check_fail(c, "order %u: entry %p outside the "
					  "memmap", order, (void *)pos);
		err = check_block(c, (unsigned long)pfn, order);
		if (err)
			return err;
		n++;
	}
	if (n != c->arena->nr_free[order])
		return check_fail(c, "order %u: %lu blocks listed, nr_free %lu",
				  order, n, c->arena->nr_free[order]);
	c->buddy_heads += n;
	return 0;
}

static int check_pcp_page(struct arena_check *c, long pfn, unsigned int i)
{
	const struct folio *page;

	if (pfn < 0)
		return check_fail(c, "pcp %u: entry outside the memmap", i);
	if ((unsigned long)pfn >= c->frontier)
		return check_fail(c, "pcp %u: page %ld not below the frontier "
				  "%lu", i, pfn, c->frontier);
	page = c->arena->memmap + pfn;
	if (page_flags(page) || page->order || folio_ref_count(page))
		return check_fail(c, "pcp %u: page %ld has flags %#lx order %u "
				  "refcount %d", i, pfn, page_flags(page),
				  page->order, folio_ref_count(page));
	return mark_free(c, (unsigned long)pfn, 1);
}

static int check_pcp(struct arena_check *c, unsigned int i)
{
	struct upc_list_head *head = &c->arena->pcp[i].list, *pos;
	unsigned long n = 0;
	int err;

	err = check_head(c, head, "pcp list");
	if (err)
		return err;
	for (pos = head->next; pos != head; pos = pos->next) {
		err = check_links(c, pos, "pcp list");
		if (!err)
			err = check_pcp_page(c, entry_pfn(c->arena, pos), i);
		if (err)
			return err;
		n++;
	}
	if (n != c->arena->pcp[i].count || n > UPC_PCP_HIGH)
		return check_fail(c, "pcp %u: %lu pages listed, count %u", i, n,
				  c->arena->pcp[i].count);
	return 0;
}

/* check_no_stray_buddy() - PG_buddy only on the listed blocks. */
static int check_no_stray_buddy(struct arena_check *c)
{
	unsigned long pfn, n = 0;

	for (pfn = 0; pfn < c->frontier; pfn++)
		if (page_flags(c->arena->memmap + pfn) & (1UL << PG_buddy))
			n++;
	if (n != c->buddy_heads)
		return check_fail(c, "%lu pages carry PG_buddy, %lu blocks "
				  "listed", n, c->buddy_heads);
	return 0;
}

/*
 * check_frontier() - The frontier block aligned and inside the arena;
 * the memmap from it on never written (all zero, so no PG_buddy and no
 * reference either); its pages counted free.  Reading entries never
 * written maps the shared zero page: no memory but page tables.
 */
static int check_frontier(struct arena_check *c)
{
	const size_t per_page = sizeof(struct folio) / sizeof(unsigned long);
	unsigned long nr = c->arena->nr_pages;
	const unsigned long *words;
	size_t i, n;

	if (c->frontier % (1UL << UPC_MAX_ORDER) || c->frontier > nr)
		return check_fail(c, "frontier %lu misaligned or past the end "
				  "%lu", c->frontier, nr);
	words = (const unsigned long *)(c->arena->memmap + c->frontier);
	n = (nr - c->frontier) * per_page;
	for (i = 0; i < n; i++)
		if (words[i])
			return check_fail(c, "page %lu past the frontier %lu "
					  "was written",
					  c->frontier + i / per_page,
					  c->frontier);
	c->free_pages += nr - c->frontier;
	return 0;
}

static int check_all(struct arena_check *c)
{
	unsigned long charged = upc_arena_charged(c->arena);
	unsigned int i;
	int err = 0;

	err = check_frontier(c);
	for (i = 0; !err && i <= UPC_MAX_ORDER; i++)
		err = check_free_area(c, i);
	for (i = 0; !err && i < UPC_PCP_LISTS; i++)
		err = check_pcp(c, i);
	if (!err)
		err = check_no_stray_buddy(c);
	if (!err && c->free_pages + charged != c->arena->nr_pages)
		err = check_fail(c, "%lu pages free + %lu charged != %lu",
				 c->free_pages, charged, c->arena->nr_pages);
	return err;
}

/**
 * upc_arena_check() - Verify every invariant of an arena's allocator.
 * @arena: The arena.
 *
 * Context: No allocation or free may be in flight.  Takes every pcp lock
 * in index order, then the arena lock.
 * Return: 0 if everything holds; -EUCLEAN after printing the first
 * violation to stderr; -ENOMEM if the bitmap cannot be allocated.
 */
int upc_arena_check(struct upc_arena *arena)
{
	struct arena_check c = { .arena = arena };
	unsigned int i;
	int err;

	c.seen = calloc((arena->nr_pages + LONG_BITS - 1) / LONG_BITS,
			sizeof(unsigned long));
	if (!c.seen)
		return -ENOMEM;
	for (i = 0; i < UPC_PCP_LISTS; i++)
		upc_lock(&arena->pcp[i].lock);
	upc_lock(&arena->lock);
	c.frontier = arena_priv(arena)->frontier;
	err = check_all(&c);
	upc_unlock(&arena->lock);
	for (i = UPC_PCP_LISTS; i-- > 0;)
		upc_unlock(&arena->pcp[i].lock);
	free(c.seen);
	return err;
}
