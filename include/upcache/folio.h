/* SPDX-License-Identifier: MIT */
/*
 * upcache/folio.h - the cache's memory: arenas, pages and folios.
 *
 * An arena is the memory of one cache: one mmap()ed region, 2 MiB
 * aligned, with transparent huge pages requested, whose size is the
 * cache's memory limit.  It is cut into 4 KiB pages and handed out by a
 * buddy allocator in runs of 2^order pages, order 0 (4 KiB) to
 * UPC_MAX_ORDER (9: 2 MiB).  Such a run is a folio.
 *
 * Every page has a permanent metadata entry, a struct folio, in the
 * arena's memmap; a folio's metadata is the entry of its first page.
 * Metadata is never returned to the system while the arena lives, which
 * is what makes lockless lookups safe: a reader that found a folio
 * pointer may always read it, takes a reference only with
 * folio_try_get() (which fails once the refcount reached zero), and then
 * checks that what it looked up still points to that folio.
 *
 * The names follow the kernel's (folio_get(), folio_lock(),
 * folio_test_dirty() ...); the allocation entry point takes the arena
 * explicitly because userspace has no global page allocator.
 */
#ifndef UPCACHE_FOLIO_H
#define UPCACHE_FOLIO_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lock.h"
#include "xarray.h"

#ifdef __cplusplus
extern "C" {
#endif

#define UPC_PAGE_SHIFT		12
#define UPC_PAGE_SIZE		(1UL << UPC_PAGE_SHIFT)
#define UPC_MAX_ORDER		9
#define UPC_HUGE_SIZE		(UPC_PAGE_SIZE << UPC_MAX_ORDER)

struct address_space;
struct upc_arena;

/**
 * enum folio_flag_bit - bits of folio->flags.
 * @PG_locked: Locked for I/O or for a change of identity (folio_lock()).
 * @PG_waiters: Someone sleeps in folio_lock()/folio_wait_locked().
 * @PG_uptodate: The contents are valid.
 * @PG_dirty: Modified since it was last written back.
 * @PG_writeback: Being written back.
 * @PG_referenced: Accessed since reclaim last looked.
 * @PG_active: On the active LRU list.
 * @PG_lru: On an LRU list.
 * @PG_workingset: Was part of the working set when it was evicted
 *	(set on refault).
 * @PG_swapbacked: Anonymous or shmem memory: backed by swap, not a file.
 * @PG_error: An I/O error happened.
 * @PG_dropbehind: Drop from the cache as soon as I/O completes.
 * @PG_swapcache: In the swap cache; folio->private holds its swap entry
 *	(upcache/swap.h).
 * @PG_buddy: Private to the allocator: the first page of a free block.
 * @PG_readahead: The first folio of an async readahead window: a reader
 *	that meets it starts the next window (page_cache_async_ra()).
 * @PG_swapslot: Swapped in from a swap file and still the same as the
 *	copy there: it kept its slots, folio->private holds their swap
 *	entry, and reclaim sends it back there without writing it
 *	(mm/swap_state.c); a write frees them first.
 *
 * PG_locked and PG_waiters are in the low 32 bits: folio_lock() sleeps
 * on that half of the word.
 */
enum folio_flag_bit {
	PG_locked,
	PG_waiters,
	PG_uptodate,
	PG_dirty,
	PG_writeback,
	PG_referenced,
	PG_active,
	PG_lru,
	PG_workingset,
	PG_swapbacked,
	PG_error,
	PG_dropbehind,
	PG_swapcache,
	PG_buddy,
	PG_readahead,
	PG_swapslot,
	NR_PAGEFLAGS
};

/**
 * struct folio - metadata of a folio, and of every page of the arena.
 * @flags: PG_* bits; change them with the folio_set/clear helpers.
 * @refcount: References; 0 when the folio is free.  Use folio_get(),
 *	folio_try_get(), folio_put().
 * @order: The folio covers 2^@order pages.
 * @mapping: The address_space the folio is cached in, or NULL.
 * @index: Page index of the folio's first page in @mapping.
 * @private: For the owner (the mapping's filesystem-like layer).
 * @lru: Link on an LRU list (or, while free, on an allocator list).
 * @arena: The arena the folio's memory belongs to.
 *
 * One cache line.  Entries of pages other than a folio's first are not
 * folios and keep a zero refcount.
 */
struct folio {
	unsigned long flags;
	int refcount;
	unsigned char order;
	unsigned char pad[3];
	struct address_space *mapping;
	unsigned long index;
#ifndef __cplusplus
	void *private;
#else
	void *private_;		/* the same field: "private" is a C++ keyword */
#endif
	struct upc_list_head lru;
	struct upc_arena *arena;
};

/* Per-CPU-like caches of order-0 pages in an arena. */
#define UPC_PCP_LISTS		16
#define UPC_PCP_BATCH		32
#define UPC_PCP_HIGH		128

/**
 * typedef upc_reclaim_fn - reclaim hook of an arena.
 * @arena: The arena short of memory.
 * @nr_pages: How many pages the failed allocation needed.
 * @gfp: Its flags: with __GFP_NORETRY the hook makes one pass and does
 *	not wait for other threads (their isolated folios, I/O under way).
 * @priv: The pointer given to upc_arena_set_reclaim().
 *
 * Called without arena locks held when an allocation cannot be
 * satisfied.  Frees what it can (folio_put() of evicted folios).
 * Return: The number of pages it freed; 0 makes the allocation fail.
 */
typedef unsigned long (*upc_reclaim_fn)(struct upc_arena *arena,
					unsigned long nr_pages, gfp_t gfp,
					void *priv);

/**
 * struct upc_arena - the memory of one cache.
 *
 * Create with upc_arena_create().  Only the allocator changes the fields;
 * they are visible so that folio_address() can be inline.
 */
struct upc_arena {
	/* private: */
	char *base;
	struct folio *memmap;
	unsigned long nr_pages;
	unsigned long limit_pages;
	unsigned long charged;		/* pages handed out as folios (atomic) */
	upc_reclaim_fn reclaim;
	void *reclaim_priv;
	void *lruvec;			/* struct lruvec of upcache/vmscan.h */
	upc_lock_t lock;		/* the buddy lists */
	struct upc_list_head free_area[UPC_MAX_ORDER + 1];
	unsigned long nr_free[UPC_MAX_ORDER + 1];
	struct {
		upc_lock_t lock;
		unsigned int count;
		struct upc_list_head list;
	} __attribute__((aligned(64))) pcp[UPC_PCP_LISTS];
	size_t map_bytes;		/* the whole mmap()ed region */
	void *map_base;
};

/**
 * upc_arena_create() - Create an arena.
 * @bytes: Size, a multiple of 2 MiB (UPC_HUGE_SIZE), at least 2 MiB.
 * @out: Where the arena is returned.
 *
 * Only address space is reserved: the memory and its metadata are
 * touched a 2 MiB block at a time, as the allocator first hands each
 * out, so an arena far larger than the machine's memory costs a few
 * pages until it is used.
 *
 * Context: Any thread.  May sleep.
 * Return: 0; -EINVAL if @bytes is 0, not a multiple of 2 MiB or too big
 * for the address space; -ENOMEM if the memory or the memmap cannot be
 * mapped.
 */
int upc_arena_create(size_t bytes, struct upc_arena **out);

/**
 * upc_arena_destroy() - Unmap an arena.
 * @arena: The arena, or NULL.
 *
 * Every folio must have been freed; folios still referenced are the
 * caller's leak and their memory is gone afterwards.
 *
 * Context: No other thread may use the arena.
 */
void upc_arena_destroy(struct upc_arena *arena);

/**
 * upc_arena_set_reclaim() - Install the hook allocation calls when short.
 * @arena: The arena.
 * @fn: The hook, or NULL for none (allocation then fails at the limit).
 * @priv: Passed to @fn.
 *
 * Context: Before the arena is shared between threads.
 */
void upc_arena_set_reclaim(struct upc_arena *arena, upc_reclaim_fn fn,
			   void *priv);

/**
 * upc_arena_set_limit() - Charge limit, in pages.
 * @arena: The arena.
 * @nr_pages: At most the arena's size; 0 means the arena's size.
 *
 * Context: Any thread.
 * Return: 0, or -EINVAL if @nr_pages is larger than the arena.
 */
int upc_arena_set_limit(struct upc_arena *arena, unsigned long nr_pages);

/**
 * upc_arena_limit() - The charge limit, in pages.
 * @arena: The arena.
 *
 * Context: Any thread; the value may be stale at once.
 * Return: The limit (upc_arena_set_limit()).
 */
static inline unsigned long upc_arena_limit(const struct upc_arena *arena)
{
	return __atomic_load_n(&arena->limit_pages, __ATOMIC_RELAXED);
}

/**
 * upc_arena_charged() - Pages currently handed out as folios.
 * @arena: The arena.
 *
 * Context: Any thread; the value may be stale at once.
 * Return: The number of charged pages.
 */
unsigned long upc_arena_charged(const struct upc_arena *arena);

/**
 * upc_arena_alloc_folio() - Allocate a folio.
 * @arena: The arena to allocate from.
 * @gfp: GFP_KERNEL may call the reclaim hook; GFP_NOWAIT never does and
 *	takes no lock it would wait for long; __GFP_ZERO clears the memory.
 * @order: 0..UPC_MAX_ORDER.
 *
 * The folio comes with one reference, no flags, no mapping, and its
 * pages charged to the arena.  Its memory is not cleared unless asked.
 *
 * Context: Any thread.
 * Return: The folio, or NULL if @order is too large, the charge would
 * pass the limit, or no free block is left (after reclaim, if allowed).
 */
struct folio *upc_arena_alloc_folio(struct upc_arena *arena, gfp_t gfp,
				    unsigned int order);

/**
 * upc_arena_alloc_bulk() - Allocate many order-0 folios at once.
 * @arena: The arena to allocate from.
 * @gfp: As for upc_arena_alloc_folio().
 * @nr: How many folios are wanted.
 * @folios: Receives them, each as upc_arena_alloc_folio() returns one.
 *
 * One charge and one hold of a per-CPU cache lock for the whole batch
 * where the cache can give it.
 *
 * Context: Any thread.
 * Return: The number of folios stored, from the start of @folios; fewer
 * than @nr when memory (or the fault injector) ran out; 0 if @arena is
 * NULL.
 */
unsigned int upc_arena_alloc_bulk(struct upc_arena *arena, gfp_t gfp,
				  unsigned int nr, struct folio **folios);

/* ---- references ---------------------------------------------------------- */

/**
 * folio_ref_count() - The folio's reference count.
 * @folio: The folio.
 *
 * Return: The count (0 for a free folio).
 */
static inline int folio_ref_count(const struct folio *folio)
{
	return __atomic_load_n(&folio->refcount, __ATOMIC_RELAXED);
}

/**
 * folio_get() - Take a reference on a folio the caller already holds one on.
 * @folio: The folio.
 *
 * Context: Any context.
 */
static inline void folio_get(struct folio *folio)
{
	__atomic_fetch_add(&folio->refcount, 1, __ATOMIC_RELAXED);
}

/**
 * folio_try_get() - Take a reference unless the folio is free.
 * @folio: A folio found without holding a reference (lockless lookup).
 *
 * On success the reference orders everything after it (acquire): the
 * caller then re-checks that the folio is still what it looked up.
 *
 * Context: Any context.
 * Return: true if a reference was taken; false if the count was zero.
 */
static inline bool folio_try_get(struct folio *folio)
{
	int count = __atomic_load_n(&folio->refcount, __ATOMIC_RELAXED);

	do {
		if (!count)
			return false;
	} while (!__atomic_compare_exchange_n(&folio->refcount, &count,
					      count + 1, true,
					      __ATOMIC_ACQUIRE,
					      __ATOMIC_RELAXED));
	return true;
}

/**
 * folio_ref_add() - Take @nr references on a folio already referenced.
 * @folio: The folio.
 * @nr: How many.
 *
 * Context: Any context.
 */
static inline void folio_ref_add(struct folio *folio, int nr)
{
	__atomic_fetch_add(&folio->refcount, nr, __ATOMIC_RELAXED);
}

/**
 * folio_put() - Drop a reference; the last one frees the folio.
 * @folio: The folio.
 *
 * Context: Any context.
 */
void folio_put(struct folio *folio);

/**
 * folio_put_refs() - Drop @nr references at once.
 * @folio: The folio.
 * @nr: How many.
 *
 * Context: Any context.
 */
void folio_put_refs(struct folio *folio, int nr);

/*
 * Pins.  A holder that may keep a folio for as long as it likes (a span
 * of the zero-copy API, api/spans.c) pins it: it takes
 * UPC_FOLIO_PIN_BIAS references instead of one, as the kernel's FOLL_PIN
 * takes GUP_PIN_COUNTING_BIAS.  Reclaim, finding a folio held, can then
 * tell a pin, which may never go, from a reader's reference for the
 * length of a copy, which it is worth waiting for: folio_maybe_pinned().
 * Fewer than UPC_FOLIO_PIN_BIAS plain references are assumed at once.
 */
#define UPC_FOLIO_PIN_BIAS	1024

/* Pins stop below this count: the sum must not overflow an int. */
#define UPC_FOLIO_PIN_MAX	(INT_MAX / 2)

/**
 * folio_try_pin() - Pin a folio the caller holds a reference on.
 * @folio: The folio.
 *
 * Context: Any context.
 * Return: true; false if the folio holds so many pins already (about a
 * million) that one more could overflow its count.
 */
static inline bool folio_try_pin(struct folio *folio)
{
	if (__atomic_load_n(&folio->refcount, __ATOMIC_RELAXED) >
	    UPC_FOLIO_PIN_MAX)
		return false;
	__atomic_fetch_add(&folio->refcount, UPC_FOLIO_PIN_BIAS,
			   __ATOMIC_RELAXED);
	return true;
}

/**
 * folio_unpin() - Drop a pin taken by folio_try_pin().
 * @folio: The folio; the pin may hold its last references.
 *
 * Context: Any context; may free the folio (folio_put_refs()).
 */
static inline void folio_unpin(struct folio *folio)
{
	folio_put_refs(folio, UPC_FOLIO_PIN_BIAS);
}

/**
 * folio_maybe_pinned() - Whether a folio's references beyond @expected
 * include a pin.
 * @folio: The folio.
 * @expected: The references known to be there (the cache's, the
 *	caller's).
 *
 * Return: true if the count reaches @expected + UPC_FOLIO_PIN_BIAS:
 * surely pinned, unless that many plain references are held at once.
 */
static inline bool folio_maybe_pinned(const struct folio *folio, int expected)
{
	return folio_ref_count(folio) - expected >= UPC_FOLIO_PIN_BIAS;
}

/* ---- geometry ------------------------------------------------------------ */

/* folio_order() - log2 of the number of pages. */
static inline unsigned int folio_order(const struct folio *folio)
{
	return folio->order;
}

/* folio_nr_pages() - Number of pages in the folio. */
static inline unsigned long folio_nr_pages(const struct folio *folio)
{
	return 1UL << folio->order;
}

/* folio_size() - Bytes in the folio. */
static inline size_t folio_size(const struct folio *folio)
{
	return UPC_PAGE_SIZE << folio->order;
}

/* folio_pfn() - Page number of the folio's first page inside its arena. */
static inline unsigned long folio_pfn(const struct folio *folio)
{
	return (unsigned long)(folio - folio->arena->memmap);
}

/* folio_address() - Where the folio's memory is. */
static inline void *folio_address(const struct folio *folio)
{
	return folio->arena->base + (folio_pfn(folio) << UPC_PAGE_SHIFT);
}

/* folio_next_index() - The page index just after the folio. */
static inline unsigned long folio_next_index(const struct folio *folio)
{
	return folio->index + folio_nr_pages(folio);
}

/* folio_contains() - Does the folio cache page @index of its mapping? */
static inline bool folio_contains(const struct folio *folio,
				  unsigned long index)
{
	return index - folio->index < folio_nr_pages(folio);
}

/* ---- flags --------------------------------------------------------------- */

static inline bool folio_test_flag(const struct folio *folio, int bit)
{
	return __atomic_load_n(&folio->flags, __ATOMIC_ACQUIRE) & (1UL << bit);
}

static inline void folio_set_flag(struct folio *folio, int bit)
{
	__atomic_fetch_or(&folio->flags, 1UL << bit, __ATOMIC_RELEASE);
}

static inline void folio_clear_flag(struct folio *folio, int bit)
{
	__atomic_fetch_and(&folio->flags, ~(1UL << bit), __ATOMIC_RELEASE);
}

/* Set a bit; Return: whether it was set already. */
static inline bool folio_test_set_flag(struct folio *folio, int bit)
{
	return __atomic_fetch_or(&folio->flags, 1UL << bit, __ATOMIC_ACQ_REL) &
		(1UL << bit);
}

/* Clear a bit; Return: whether it was set. */
static inline bool folio_test_clear_flag(struct folio *folio, int bit)
{
	return __atomic_fetch_and(&folio->flags, ~(1UL << bit),
				  __ATOMIC_ACQ_REL) & (1UL << bit);
}

/*
 * UPC_FOLIO_FLAG() - folio_test_NAME(), folio_set_NAME(),
 * folio_clear_NAME(), folio_test_set_NAME() and folio_test_clear_NAME()
 * for PG_NAME, all atomic.
 */
#define UPC_FOLIO_FLAG(name)						\
static inline bool folio_test_##name(const struct folio *folio)		\
{ return folio_test_flag(folio, PG_##name); }				\
static inline void folio_set_##name(struct folio *folio)		\
{ folio_set_flag(folio, PG_##name); }					\
static inline void folio_clear_##name(struct folio *folio)		\
{ folio_clear_flag(folio, PG_##name); }					\
static inline bool folio_test_set_##name(struct folio *folio)		\
{ return folio_test_set_flag(folio, PG_##name); }			\
static inline bool folio_test_clear_##name(struct folio *folio)	\
{ return folio_test_clear_flag(folio, PG_##name); }

UPC_FOLIO_FLAG(uptodate)
UPC_FOLIO_FLAG(dirty)
UPC_FOLIO_FLAG(writeback)
UPC_FOLIO_FLAG(referenced)
UPC_FOLIO_FLAG(active)
UPC_FOLIO_FLAG(lru)
UPC_FOLIO_FLAG(workingset)
UPC_FOLIO_FLAG(swapbacked)
UPC_FOLIO_FLAG(error)
UPC_FOLIO_FLAG(dropbehind)
UPC_FOLIO_FLAG(swapcache)
UPC_FOLIO_FLAG(readahead)
UPC_FOLIO_FLAG(swapslot)

/* folio_test_locked() - Is the folio locked? */
static inline bool folio_test_locked(const struct folio *folio)
{
	return folio_test_flag(folio, PG_locked);
}

/* ---- the folio lock ---------------------------------------------------- */

/**
 * folio_trylock() - Lock a folio if nobody holds it.
 * @folio: The folio.
 *
 * Context: Any context; never sleeps.
 * Return: true if the caller now holds the lock.
 */
static inline bool folio_trylock(struct folio *folio)
{
	return !folio_test_set_flag(folio, PG_locked);
}

/**
 * folio_lock() - Lock a folio, sleeping while someone else holds it.
 * @folio: The folio; the caller holds a reference.
 *
 * Context: May sleep (futex).
 */
void folio_lock(struct folio *folio);

/**
 * folio_unlock() - Unlock a folio and wake whoever waits for it.
 * @folio: A folio the caller locked.
 *
 * Context: Any context.
 */
void folio_unlock(struct folio *folio);

/**
 * folio_wait_locked() - Wait until the folio is unlocked.
 * @folio: The folio; the caller holds a reference.
 *
 * Context: May sleep.
 */
void folio_wait_locked(struct folio *folio);

#ifdef __cplusplus
}
#endif

#endif /* UPCACHE_FOLIO_H */
