// SPDX-License-Identifier: MIT
/*
 * mm/page_alloc.c - arenas and their buddy allocator.
 *
 * This file owns an arena's memory and metadata (the mmap()ed region
 * and the memmap), its free lists, its per-CPU-like caches of order-0
 * pages and its charge.  mm/folio.c owns references and the folio lock;
 * it hands a folio whose last reference is gone to upc_folio_free().
 *
 * Buddy lists.  Every page is either part of a folio someone holds, or
 * on a pcp list (order 0), or inside a free block: a run of 2^order pages
 * aligned to its size, whose first page carries PG_buddy and ->order and
 * is linked through ->lru on free_area[order]; or past the frontier
 * (below).  PG_buddy is set and cleared only under arena->lock, and only
 * on the first page of a block on a free list, so "PG_buddy set and
 * ->order == k" seen under the lock means "that page starts a free block
 * of order k".  Allocation takes the first block of the smallest
 * non-empty order >= the one asked for and splits it, keeping the lower
 * half and putting each upper half back on the list one order down.
 * Freeing merges the block with its buddy (the block whose page number
 * differs in bit @order only) for as long as the buddy is free with the
 * same order, then lists the result.  An arena is a whole number of
 * 2 MiB blocks and a max-order block does not merge, so every buddy lies
 * inside the same 2 MiB block.
 *
 * Frontier.  Creation writes nothing per block.  The free lists start
 * empty; arena_priv(arena)->frontier, the page number of the first 2 MiB
 * block never handed out, starts at 0.  When no list of the order asked
 * for or larger has a block, the allocation takes the block at the
 * frontier, moves the frontier past it and splits the block as usual.
 * Putting every block on free_area[UPC_MAX_ORDER] at creation instead
 * wrote one memmap page per 2 MiB of arena: 2 GiB of memory for a 1 TiB
 * limit before anything was cached, and an OOM kill well below
 * UPC_ARENA_MAX_BYTES.  Now the memmap (and under ASan the shadow of the
 * memory) is written as blocks are first used, and since the lists come
 * first, a cache that stays small keeps reusing the blocks it touched.
 * The blocks from the frontier on are free, on no list, and their memmap
 * entries are all zero, as a free block's other pages must be.  Freed
 * blocks go on the lists and never back past the frontier, which only
 * grows; as buddies never leave their 2 MiB block, a merge below the
 * frontier never reads an entry past it.  Counting free pages means
 * counting nr_pages - frontier besides the lists and caches.
 *
 * Per-CPU-like caches.  Order-0 folios, by far the most common, go
 * through UPC_PCP_LISTS small caches picked by the CPU the thread runs
 * on, each under its own lock.  An empty cache is refilled with
 * UPC_PCP_BATCH pages under one arena-lock round trip; a cache that grows
 * past UPC_PCP_HIGH gives its UPC_PCP_BATCH coldest pages back.  Pages
 * in a cache are neither PG_buddy nor charged: they do not merge until
 * drained, so an allocation the buddy lists cannot satisfy drains every
 * cache and tries again before it gives up.  The drain and the second
 * try are one step, under every cache lock and the arena lock: between
 * the two, a refill on another CPU could otherwise take the pages just
 * drained and fail a charge that had pages to back it.  Lock order: a
 * pcp lock, then the arena lock; two pcp locks only all of them, in
 * index order (that drain and the checker).
 *
 * Charging.  arena->charged counts the pages handed out as folios.  An
 * allocation charges first, with a compare-and-swap loop that refuses to
 * pass limit_pages, and uncharges if no block can be had; a free returns
 * the pages to the lists first and uncharges last, so a charge that
 * succeeds against an unfragmented arena always finds its pages.
 *
 * Reclaim.  When an attempt fails and the caller may wait, the arena's
 * reclaim hook is called with no lock held and the attempt is repeated
 * while the hook reports progress.  A charge that would pass the limit
 * is retried up to UPC_RECLAIM_RETRIES times: each round frees pages
 * under it (once only with __GFP_NORETRY: readahead, which is a hint,
 * gives up rather than wait).  A charge that succeeded with no free
 * block of the order (fragmentation) gets one round only: evicting from
 * the LRU's tail frees a whole aligned block only by chance, and more
 * rounds would empty the cache for one large folio (the kernel too
 * gives a costly order one round of reclaim under __GFP_NORETRY, and
 * has compaction besides).  A folio larger than the limit is refused at
 * once.
 *
 * Fault injection.  Each call of upc_arena_alloc_folio() (with valid
 * arguments) asks upc_fault_should_fail() once, before it charges
 * anything; an injected failure returns NULL at once, without reclaim,
 * so that callers' error paths run deterministically.  Arena creation
 * asks before each of its three allocations.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "fault.h"
#include "internal.h"
#include "stats_internal.h"
#include "upcache/filemap.h"

/* The allocator's locks count in arena_lock_acquires, not lock_acquires. */
static inline void arena_lock(upc_lock_t *lock)
{
	upc_lock_nostat(lock);
	upc_count(arena_lock_acquires);
}

static_assert(sizeof(struct folio) == 64, "struct folio is one cache line");
static_assert(UPC_PCP_BATCH <= UPC_PCP_HIGH, "pcp batch above high mark");

typedef __typeof__(((struct upc_arena *)NULL)->pcp[0]) upc_pcp_t;

/*
 * Flags that must be clear when the last reference to a folio goes (a
 * folio freed with PG_swapslot would leak its swap slots).
 */
#define FOLIO_FLAGS_CHECK_AT_FREE					\
	((1UL << PG_locked) | (1UL << PG_lru) | (1UL << PG_dirty) |	\
	 (1UL << PG_writeback) | (1UL << PG_swapcache) | (1UL << PG_buddy) | \
	 (1UL << PG_swapslot))

static size_t memmap_bytes(unsigned long nr_pages)
{
	return nr_pages * sizeof(struct folio);
}

/*
 * Under ASan the memory of free pages is poisoned, so that touching a
 * folio after its last folio_put() is reported as a use after free.  A
 * 2 MiB block is poisoned when it leaves the frontier, not at creation:
 * poisoning writes a shadow byte per 8 bytes, 8 GiB for a 64 GiB arena.
 * A stray access past the frontier goes unreported, but spoils nothing:
 * no folio lives there, and a new folio's memory is undefined anyway.
 */
#ifdef UPC_SANITIZE_ADDRESS
void __asan_poison_memory_region(void const volatile *addr, size_t size);
void __asan_unpoison_memory_region(void const volatile *addr, size_t size);

static void mem_poison(void *addr, size_t size)
{
	__asan_poison_memory_region(addr, size);
}

static void mem_unpoison(void *addr, size_t size)
{
	__asan_unpoison_memory_region(addr, size);
}
#else
static void mem_poison(void *addr, size_t size)
{
	(void)addr;
	(void)size;
}

static void mem_unpoison(void *addr, size_t size)
{
	(void)addr;
	(void)size;
}
#endif

/* ---- buddy lists (arena->lock held) -------------------------------- */

/* buddy_list_add() - Put the free block at @block on free_area[@order]. */
static void buddy_list_add(struct upc_arena *arena, struct folio *block,
			   unsigned int order)
{
	block->order = order;
	folio_set_flag(block, PG_buddy);
	mm_list_add(&block->lru, &arena->free_area[order]);
	arena->nr_free[order]++;
}

/* buddy_list_del() - Take the free block at @block off its list. */
static void buddy_list_del(struct upc_arena *arena, struct folio *block,
			   unsigned int order)
{
	mm_list_del_init(&block->lru);
	folio_clear_flag(block, PG_buddy);
	arena->nr_free[order]--;
}

/*
 * frontier_take() - The 2 MiB block at the frontier, which moves past it.
 * Its memmap entries are the zeroes of the fresh mapping: a free block's
 * other pages, and a first page to split, need nothing more.  Return:
 * the block, or NULL once every block has been handed out.
 */
static struct folio *frontier_take(struct upc_arena *arena)
{
	struct upc_arena_priv *priv = arena_priv(arena);
	unsigned long pfn = priv->frontier;

	if (pfn == arena->nr_pages)
		return NULL;
	priv->frontier = pfn + (1UL << UPC_MAX_ORDER);
	mem_poison(arena->base + (pfn << UPC_PAGE_SHIFT), UPC_HUGE_SIZE);
	return arena->memmap + pfn;
}

/*
 * buddy_alloc_locked() - Take a block of 2^@order pages, splitting one;
 * from the frontier only when the lists have none of @order or larger.
 */
static struct folio *buddy_alloc_locked(struct upc_arena *arena,
					unsigned int order)
{
	struct folio *block;
	unsigned int o = order;

	while (o <= UPC_MAX_ORDER && mm_list_empty(&arena->free_area[o]))
		o++;
	if (o > UPC_MAX_ORDER) {
		block = frontier_take(arena);
		if (!block)
			return NULL;
		o = UPC_MAX_ORDER;
	} else {
		block = lru_to_folio(arena->free_area[o].next);
		buddy_list_del(arena, block, o);
	}
	while (o > order) {
		o--;
		buddy_list_add(arena, block + (1UL << o), o);
	}
	block->order = order;
	return block;
}

/* page_is_free_block() - Does @page start a free block of @order? */
static bool page_is_free_block(const struct folio *page, unsigned int order)
{
	return folio_test_flag(page, PG_buddy) && page->order == order;
}

/*
 * buddy_free_locked() - Free a block, merging it with its free buddies.
 * Stopping below UPC_MAX_ORDER keeps every buddy looked at inside the
 * block's 2 MiB block, which was handed out: below the frontier.
 */
static void buddy_free_locked(struct upc_arena *arena, struct folio *block,
			      unsigned int order)
{
	unsigned long pfn = (unsigned long)(block - arena->memmap);
	unsigned long buddy_pfn;

	while (order < UPC_MAX_ORDER) {
		buddy_pfn = pfn ^ (1UL << order);
		if (!page_is_free_block(arena->memmap + buddy_pfn, order))
			break;
		buddy_list_del(arena, arena->memmap + buddy_pfn, order);
		pfn &= ~(1UL << order);
		order++;
	}
	buddy_list_add(arena, arena->memmap + pfn, order);
}

static struct folio *buddy_alloc(struct upc_arena *arena, unsigned int order)
{
	struct folio *block;

	arena_lock(&arena->lock);
	block = buddy_alloc_locked(arena, order);
	upc_unlock(&arena->lock);
	return block;
}

static void buddy_free(struct upc_arena *arena, struct folio *block,
		       unsigned int order)
{
	arena_lock(&arena->lock);
	buddy_free_locked(arena, block, order);
	upc_unlock(&arena->lock);
}

/* ---- per-CPU-like caches of order-0 pages ---------------------------- */

static upc_pcp_t *pcp_this_cpu(struct upc_arena *arena)
{
	int cpu = sched_getcpu();

	return &arena->pcp[cpu < 0 ? 0 : (unsigned int)cpu % UPC_PCP_LISTS];
}

/* pcp_refill() - Move up to a batch of pages from the buddy lists. */
static void pcp_refill(struct upc_arena *arena, upc_pcp_t *pcp)
{
	struct folio *page;
	unsigned int n;

	arena_lock(&arena->lock);
	for (n = 0; n < UPC_PCP_BATCH; n++) {
		page = buddy_alloc_locked(arena, 0);
		if (!page)
			break;
		mm_list_add_tail(&page->lru, &pcp->list);
	}
	upc_unlock(&arena->lock);
	pcp->count += n;
}

/*
 * pcp_drain_locked() - Give the @nr coldest pages of @pcp (at most all of
 * them) back to the buddy lists.  Caller holds pcp->lock and the arena
 * lock.
 */
static void pcp_drain_locked(struct upc_arena *arena, upc_pcp_t *pcp,
			     unsigned int nr)
{
	struct folio *page;
	unsigned int n;

	if (nr > pcp->count)
		nr = pcp->count;
	for (n = 0; n < nr; n++) {
		page = lru_to_folio(pcp->list.prev);
		mm_list_del_init(&page->lru);
		buddy_free_locked(arena, page, 0);
	}
	pcp->count -= nr;
}

/* pcp_drain() - pcp_drain_locked() for a caller holding pcp->lock only. */
static void pcp_drain(struct upc_arena *arena, upc_pcp_t *pcp,
		      unsigned int nr)
{
	arena_lock(&arena->lock);
	pcp_drain_locked(arena, pcp, nr);
	upc_unlock(&arena->lock);
}

/*
 * drain_and_take() - Empty every cache into the buddy lists and take a
 * block of @order from them, all under every cache lock (index order)
 * and the arena lock, so no refill can come between.  Return: the block,
 * or NULL if the arena has none even so.
 */
static struct folio *drain_and_take(struct upc_arena *arena,
				    unsigned int order)
{
	struct folio *block;
	unsigned int i;

	for (i = 0; i < UPC_PCP_LISTS; i++)
		arena_lock(&arena->pcp[i].lock);
	arena_lock(&arena->lock);
	for (i = 0; i < UPC_PCP_LISTS; i++)
		pcp_drain_locked(arena, &arena->pcp[i], arena->pcp[i].count);
	block = buddy_alloc_locked(arena, order);
	upc_unlock(&arena->lock);
	for (i = UPC_PCP_LISTS; i-- > 0;)
		upc_unlock(&arena->pcp[i].lock);
	return block;
}

/* pcp_alloc() - Take the hottest page of this CPU's cache. */
static struct folio *pcp_alloc(struct upc_arena *arena)
{
	upc_pcp_t *pcp = pcp_this_cpu(arena);
	struct folio *page = NULL;

	arena_lock(&pcp->lock);
	if (!pcp->count)
		pcp_refill(arena, pcp);
	if (pcp->count) {
		page = lru_to_folio(pcp->list.next);
		mm_list_del_init(&page->lru);
		pcp->count--;
	}
	upc_unlock(&pcp->lock);
	return page;
}

/* pcp_free() - Put a page at the hot end of this CPU's cache. */
static void pcp_free(struct upc_arena *arena, struct folio *page)
{
	upc_pcp_t *pcp = pcp_this_cpu(arena);

	arena_lock(&pcp->lock);
	mm_list_add(&page->lru, &pcp->list);
	if (++pcp->count > UPC_PCP_HIGH)
		pcp_drain(arena, pcp, UPC_PCP_BATCH);
	upc_unlock(&pcp->lock);
}

/* ---- charging ----------------------------------------------------------- */

static bool arena_charge(struct upc_arena *arena, unsigned long nr)
{
	unsigned long limit = upc_arena_limit(arena);
	unsigned long old = __atomic_load_n(&arena->charged, __ATOMIC_RELAXED);

	do {
		if (nr > limit || old > limit - nr)
			return false;
	} while (!__atomic_compare_exchange_n(&arena->charged, &old, old + nr,
					      true, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return true;
}

static void arena_uncharge(struct upc_arena *arena, unsigned long nr)
{
	unsigned long old = __atomic_fetch_sub(&arena->charged, nr,
					       __ATOMIC_RELAXED);

	UPC_MM_BUG_ON(old < nr);
	(void)old;
}

/* ---- allocation --------------------------------------------------------- */

static struct folio *arena_take_once(struct upc_arena *arena,
				     unsigned int order)
{
	return order ? buddy_alloc(arena, order) : pcp_alloc(arena);
}

/* arena_take() - A free block, draining the caches if that helps. */
static struct folio *arena_take(struct upc_arena *arena, unsigned int order)
{
	struct folio *block = arena_take_once(arena, order);

	return block ? block : drain_and_take(arena, order);
}

/*
 * arena_try_alloc() - One attempt: charge, take a block or uncharge.
 * *@fragmented tells a failure with the charge made (no free block of
 * @order) from one at the limit.
 */
static struct folio *arena_try_alloc(struct upc_arena *arena,
				     unsigned int order, bool *fragmented)
{
	unsigned long nr = 1UL << order;
	struct folio *block;

	*fragmented = false;
	if (!arena_charge(arena, nr))
		return NULL;
	block = arena_take(arena, order);
	if (!block) {
		arena_uncharge(arena, nr);
		*fragmented = true;
	}
	return block;
}

/*
 * folio_prep_new() - Give a block the state of a new folio.  The
 * reference is published last (release), after every other field.
 */
static void folio_prep_new(struct upc_arena *arena, struct folio *folio,
			   unsigned int order)
{
	__atomic_store_n(&folio->flags, 0, __ATOMIC_RELAXED);
	folio->order = order;
	folio->mapping = NULL;
	folio->index = 0;
	folio->private = NULL;
	mm_list_init(&folio->lru);
	folio->arena = arena;
	mem_unpoison(folio_address(folio), folio_size(folio));
	__atomic_store_n(&folio->refcount, 1, __ATOMIC_RELEASE);
}

/*
 * arena_alloc_folio() - upc_arena_alloc_folio() past its argument checks
 * and the fault injector: attempts, and reclaim between them as the
 * opening comment says.
 */
static struct folio *arena_alloc_folio(struct upc_arena *arena, gfp_t gfp,
				       unsigned int order)
{
	unsigned int tries = 0, fragmented_rounds = 0;
	struct folio *folio;
	bool fragmented;

	if (1UL << order > upc_arena_limit(arena))
		return NULL;
	while (!(folio = arena_try_alloc(arena, order, &fragmented))) {
		if ((gfp & __GFP_NOWAIT_BIT) || !arena->reclaim ||
		    tries++ >= UPC_RECLAIM_RETRIES ||
		    (fragmented && fragmented_rounds++) ||
		    (gfp & __GFP_NORETRY && tries > 1))
			return NULL;
		if (!arena->reclaim(arena, 1UL << order, gfp,
				    arena->reclaim_priv))
			return NULL;
	}
	folio_prep_new(arena, folio, order);
	if (gfp & __GFP_ZERO)
		memset(folio_address(folio), 0, folio_size(folio));
	return folio;
}

/**
 * upc_arena_alloc_folio() - Allocate a folio.
 * @arena: The arena to allocate from.
 * @gfp: GFP_KERNEL may call the reclaim hook; GFP_NOWAIT (any gfp with
 *	__GFP_NOWAIT_BIT) never does; __GFP_NORETRY calls it once at
 *	most; __GFP_ZERO clears the memory.
 * @order: 0..UPC_MAX_ORDER.
 *
 * Order-0 folios come from this CPU's cache without the arena lock.
 * When the buddy lists cannot satisfy a request the caches are drained
 * and it is tried again.  When the charge would pass the limit, a
 * caller that may wait calls the reclaim hook and retries while the
 * hook reports progress (UPC_RECLAIM_RETRIES times at most, once with
 * __GFP_NORETRY); when the charge fits but no free block of @order is
 * left (fragmentation), it calls the hook once.
 *
 * Context: Any thread.  Takes short-hold locks; GFP_KERNEL may run the
 * reclaim hook.
 * Return: The folio, with one reference, no flags, no mapping and its
 * pages charged; NULL if @arena is NULL, @order is too large, the fault
 * injector failed the call, the folio is larger than the limit, the
 * charge would pass the limit, or no free block is left (after reclaim,
 * if allowed).
 */
struct folio *upc_arena_alloc_folio(struct upc_arena *arena, gfp_t gfp,
				    unsigned int order)
{
	if (!arena || order > UPC_MAX_ORDER || upc_fault_should_fail())
		return NULL;
	return arena_alloc_folio(arena, gfp, order);
}

/*
 * pcp_alloc_many() - Up to @nr order-0 blocks from this CPU's cache (and
 * refills of it) under one hold of its lock.  Return: how many.
 */
static unsigned int pcp_alloc_many(struct upc_arena *arena,
				   struct folio **blocks, unsigned int nr)
{
	upc_pcp_t *pcp = pcp_this_cpu(arena);
	unsigned int got = 0;

	arena_lock(&pcp->lock);
	while (got < nr) {
		struct folio *page;

		if (!pcp->count)
			pcp_refill(arena, pcp);
		if (!pcp->count)
			break;
		page = lru_to_folio(pcp->list.next);
		mm_list_del_init(&page->lru);
		pcp->count--;
		blocks[got++] = page;
	}
	upc_unlock(&pcp->lock);
	return got;
}

/**
 * upc_arena_alloc_bulk() - Allocate many order-0 folios at once.
 * @arena: The arena to allocate from.
 * @gfp: As for upc_arena_alloc_folio().
 * @nr: How many folios are wanted.
 * @folios: Receives them.
 *
 * The batched form of upc_arena_alloc_folio(..., 0): one charge and one
 * hold of this CPU's cache lock for as many pages as it can give; what
 * it cannot give comes through upc_arena_alloc_folio() one at a time
 * (with reclaim if @gfp allows).  Each page still asks the fault
 * injector, so every allocation can be failed in turn.
 *
 * Context: Any thread.  Takes short-hold locks; GFP_KERNEL may run the
 * reclaim hook.
 * Return: The number of folios stored in @folios, from the start,
 * possibly fewer than @nr (0 if @arena is NULL).
 */
unsigned int upc_arena_alloc_bulk(struct upc_arena *arena, gfp_t gfp,
				  unsigned int nr, struct folio **folios)
{
	unsigned int want = 0, got, i;

	if (!arena)
		return 0;
	while (want < nr && !upc_fault_should_fail())
		want++;
	if (want && arena_charge(arena, want)) {
		got = pcp_alloc_many(arena, folios, want);
		if (got < want)
			arena_uncharge(arena, want - got);
	} else {
		got = 0;
	}
	for (i = 0; i < got; i++) {
		folio_prep_new(arena, folios[i], 0);
		if (gfp & __GFP_ZERO)
			memset(folio_address(folios[i]), 0, UPC_PAGE_SIZE);
	}
	/*
	 * The rest one by one, with draining and reclaim; each page has
	 * asked the fault injector already.
	 */
	while (got < want) {
		struct folio *folio = arena_alloc_folio(arena, gfp, 0);

		if (!folio)
			break;
		folios[got++] = folio;
	}
	return got;
}

/* ---- freeing ------------------------------------------------------------ */

/* folio_check_free() - Debug checks on a folio about to be freed. */
static void folio_check_free(const struct folio *folio)
{
	UPC_MM_BUG_ON(folio_ref_count(folio) != 0);
	UPC_MM_BUG_ON(__atomic_load_n(&folio->flags, __ATOMIC_RELAXED) &
		      FOLIO_FLAGS_CHECK_AT_FREE);
	UPC_MM_BUG_ON(folio->mapping != NULL);
	UPC_MM_BUG_ON(folio->order > UPC_MAX_ORDER);
	(void)folio;
}

/**
 * upc_folio_free() - Give a folio whose last reference is gone back.
 * @folio: The folio; its refcount has just dropped to zero.
 *
 * ->arena is left as it is: it never changes for a page, and a lockless
 * reader holding a stale pointer may still compute the folio's address.
 *
 * Context: Any thread; takes a pcp lock and/or the arena lock.
 */
void upc_folio_free(struct folio *folio)
{
	struct upc_arena *arena = folio->arena;
	unsigned int order = folio->order;

	folio_check_free(folio);
	__atomic_store_n(&folio->flags, 0, __ATOMIC_RELAXED);
	folio->mapping = NULL;
	folio->index = 0;
	folio->private = NULL;
	mem_poison(folio_address(folio), folio_size(folio));
	if (order)
		buddy_free(arena, folio, order);
	else
		pcp_free(arena, folio);
	arena_uncharge(arena, 1UL << order);
}

/* ---- arenas ------------------------------------------------------------- */

static bool arena_size_valid(size_t bytes)
{
	return bytes && !(bytes % UPC_HUGE_SIZE) &&
	       (unsigned long long)bytes <= UPC_ARENA_MAX_BYTES;
}

/*
 * arena_map_memory() - Map @bytes, 2 MiB aligned, huge pages requested.
 * Nothing is touched, under ASan either (frontier_take() poisons).
 */
static int arena_map_memory(struct upc_arena *arena, size_t bytes)
{
	uintptr_t base;

	if (upc_fault_should_fail())
		return -ENOMEM;
	arena->map_bytes = bytes + UPC_HUGE_SIZE;
	arena->map_base = mmap(NULL, arena->map_bytes, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			       -1, 0);
	if (arena->map_base == MAP_FAILED)
		return -ENOMEM;
	base = ((uintptr_t)arena->map_base + UPC_HUGE_SIZE - 1) &
	       ~(uintptr_t)(UPC_HUGE_SIZE - 1);
	arena->base = (char *)base;
	arena->nr_pages = bytes >> UPC_PAGE_SHIFT;
	/* Only a hint: without THP the arena works with 4 KiB pages. */
	(void)madvise(arena->base, bytes, MADV_HUGEPAGE);
	return 0;
}

/*
 * arena_unmap_memory() - Unmap the memory; under ASan unpoison it first,
 * or a later mapping at the same address would inherit the poison.  Only
 * the blocks below the frontier were poisoned, and unpoisoning writes
 * the shadow as poisoning does, so only they are unpoisoned.
 */
static void arena_unmap_memory(struct upc_arena *arena)
{
	mem_unpoison(arena->base,
		     arena_priv(arena)->frontier << UPC_PAGE_SHIFT);
	munmap(arena->map_base, arena->map_bytes);
}

/* arena_map_memmap() - Map the zeroed metadata: refcount 0 everywhere. */
static int arena_map_memmap(struct upc_arena *arena)
{
	void *memmap;

	if (upc_fault_should_fail())
		return -ENOMEM;
	memmap = mmap(NULL, memmap_bytes(arena->nr_pages),
		      PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (memmap == MAP_FAILED)
		return -ENOMEM;
	arena->memmap = memmap;
	return 0;
}

/*
 * arena_init_lists() - Empty lists and caches; every 2 MiB block free
 * past the frontier, at the arena's start, and nothing written for it.
 */
static void arena_init_lists(struct upc_arena *arena)
{
	unsigned int i;

	upc_lock_init(&arena->lock);
	for (i = 0; i <= UPC_MAX_ORDER; i++)
		mm_list_init(&arena->free_area[i]);
	for (i = 0; i < UPC_PCP_LISTS; i++) {
		upc_lock_init(&arena->pcp[i].lock);
		mm_list_init(&arena->pcp[i].list);
	}
	arena_priv(arena)->frontier = 0;
}

/**
 * upc_arena_create() - Create an arena.
 * @bytes: Size, a multiple of 2 MiB (UPC_HUGE_SIZE), at least 2 MiB and
 *	at most UPC_ARENA_MAX_BYTES.
 * @out: Where the arena is returned; left untouched on error.
 *
 * The memory and the memmap are mapped with MAP_NORESERVE and nothing is
 * written per block: each 2 MiB block's memory and metadata are touched
 * from the first time the allocator hands it out (the frontier), so
 * creation costs the same few pages whatever @bytes is.  The charge
 * limit starts at the arena's size and no reclaim hook is set.
 *
 * Context: Any thread.  May sleep.
 * Return: 0; -EINVAL if @out is NULL or @bytes is 0, not a multiple of
 * 2 MiB or larger than UPC_ARENA_MAX_BYTES; -ENOMEM if the arena, its
 * memory or its memmap cannot be allocated or mapped.
 */
int upc_arena_create(size_t bytes, struct upc_arena **out)
{
	struct upc_arena_priv *priv;
	struct upc_arena *arena;
	void *mem;
	int err;

	if (!out || !arena_size_valid(bytes))
		return -EINVAL;
	if (upc_fault_should_fail() ||
	    posix_memalign(&mem, 64, sizeof(*priv)))
		return -ENOMEM;
	priv = memset(mem, 0, sizeof(*priv));
	arena = &priv->arena;
	err = arena_map_memory(arena, bytes);
	if (err)
		goto free_arena;
	err = arena_map_memmap(arena);
	if (err)
		goto unmap_memory;
	arena->limit_pages = arena->nr_pages;
	arena_init_lists(arena);
	*out = arena;
	return 0;

unmap_memory:
	arena_unmap_memory(arena);
free_arena:
	free(priv);
	return err;
}

/**
 * upc_arena_destroy() - Unmap an arena.
 * @arena: The arena, or NULL.
 *
 * Unmaps the memory and the memmap and frees the arena.  Folios still
 * referenced are the caller's leak.  Waits first for the readahead
 * workers (readahead_flush()), which may still be unlocking a folio of
 * the arena.
 *
 * Context: No other thread may use the arena.
 */
void upc_arena_destroy(struct upc_arena *arena)
{
	if (!arena)
		return;
	readahead_flush();
	munmap(arena->memmap, memmap_bytes(arena->nr_pages));
	arena_unmap_memory(arena);
	free(arena_priv(arena));
}

/**
 * upc_arena_set_reclaim() - Install the hook allocation calls when short.
 * @arena: The arena.
 * @fn: The hook, or NULL for none.
 * @priv: Passed to @fn.
 *
 * Context: Before the arena is shared between threads.
 */
void upc_arena_set_reclaim(struct upc_arena *arena, upc_reclaim_fn fn,
			   void *priv)
{
	arena->reclaim = fn;
	arena->reclaim_priv = priv;
}

/**
 * upc_arena_set_limit() - Charge limit, in pages.
 * @arena: The arena.
 * @nr_pages: At most the arena's size; 0 means the arena's size.
 *
 * A limit below what is charged already makes allocations fail until
 * enough is freed; nothing is taken back.
 *
 * Context: Any thread.
 * Return: 0, or -EINVAL if @arena is NULL or @nr_pages is larger than
 * the arena.
 */
int upc_arena_set_limit(struct upc_arena *arena, unsigned long nr_pages)
{
	if (!arena || nr_pages > arena->nr_pages)
		return -EINVAL;
	if (!nr_pages)
		nr_pages = arena->nr_pages;
	__atomic_store_n(&arena->limit_pages, nr_pages, __ATOMIC_RELAXED);
	return 0;
}

/**
 * upc_arena_charged() - Pages currently handed out as folios.
 * @arena: The arena.
 *
 * Context: Any thread; the value may be stale at once.
 * Return: The number of charged pages.
 */
unsigned long upc_arena_charged(const struct upc_arena *arena)
{
	return __atomic_load_n(&arena->charged, __ATOMIC_RELAXED);
}
