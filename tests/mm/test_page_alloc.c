// SPDX-License-Identifier: MIT
/*
 * tests/mm/test_page_alloc.c - arenas and their buddy allocator.
 *
 * Covers upc_arena_create() (every -EINVAL case, -ENOMEM through fault
 * injection at each of its allocations), the state of a new folio at
 * every order, filling an arena completely with 2 MiB folios and then
 * with 4 KiB ones, merging back to 2 MiB blocks, the charge limit, the
 * reclaim hook (arguments, progress, no progress, never for GFP_NOWAIT,
 * fragmentation), __GFP_ZERO, the per-CPU-like cache's hot path (one
 * lock round trip per order-0 allocation or free), fault injection
 * without a leaked charge, and a seeded random differential test against
 * a model that predicts exactly which allocations succeed.  The frontier
 * (blocks handed out only as needed): a 64 GiB arena costs no memory in
 * proportion to its size, freed blocks are reused before the frontier
 * moves, and random fills reach the end of the arena exactly.
 * Distinctness is checked with a bitmap of the pages of live folios, and
 * every test ends with the allocator's invariant checker
 * (mm/arena_check.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <upcache/folio.h>
#include <upcache/stats.h>

#include "../../mm/internal.h"
#include "cpu_pin.h"
#include "fault.h"
#include "rand.h"

#define MiB			(1UL << 20)
#define GiB			(1UL << 30)
#define HUGE_PAGES		(1UL << UPC_MAX_ORDER)
#define LONG_BITS		(8 * sizeof(unsigned long))

#if defined(UPC_SANITIZE_ADDRESS) || defined(UPC_SANITIZE_THREAD)
#define DIFF_OPS_DEFAULT	20000
#else
#define DIFF_OPS_DEFAULT	100000
#endif

#define assert_arena_ok(arena)	assert_int_equal(upc_arena_check(arena), 0)

static struct upc_arena *arena_new(size_t bytes)
{
	struct upc_arena *arena = NULL;

	assert_int_equal(upc_arena_create(bytes, &arena), 0);
	assert_non_null(arena);
	return arena;
}

/* The end of a test's arena: the invariant checker, then destroy it. */
static void arena_fini(struct upc_arena *arena)
{
	assert_arena_ok(arena);
	upc_arena_destroy(arena);
}

/* ---- a bitmap of the pages of live folios --------------------------- */

struct pagemap {
	unsigned long nr_pages;
	unsigned long *bits;
};

static void pagemap_init(struct pagemap *map, const struct upc_arena *arena)
{
	map->nr_pages = arena->nr_pages;
	map->bits = calloc((map->nr_pages + LONG_BITS - 1) / LONG_BITS,
			   sizeof(unsigned long));
	assert_non_null(map->bits);
}

static bool pagemap_test(const struct pagemap *map, unsigned long pfn)
{
	return map->bits[pfn / LONG_BITS] & (1UL << (pfn % LONG_BITS));
}

static void pagemap_flip(struct pagemap *map, unsigned long pfn)
{
	map->bits[pfn / LONG_BITS] ^= 1UL << (pfn % LONG_BITS);
}

/* pagemap_claim() - Mark a new folio's pages; none may be live already. */
static void pagemap_claim(struct pagemap *map, const struct folio *folio)
{
	unsigned long pfn = folio_pfn(folio), i;

	for (i = 0; i < folio_nr_pages(folio); i++) {
		if (pagemap_test(map, pfn + i))
			fail_msg("page %lu handed out twice (folio at %lu "
				 "order %u)", pfn + i, pfn, folio_order(folio));
		pagemap_flip(map, pfn + i);
	}
}

static void pagemap_release(struct pagemap *map, const struct folio *folio)
{
	unsigned long pfn = folio_pfn(folio), i;

	for (i = 0; i < folio_nr_pages(folio); i++) {
		assert_true(pagemap_test(map, pfn + i));
		pagemap_flip(map, pfn + i);
	}
}

/* pagemap_fits() - Is some aligned run of 2^@order pages all free? */
static bool pagemap_fits(const struct pagemap *map, unsigned int order)
{
	unsigned long nr = 1UL << order, pfn, i;

	for (pfn = 0; pfn < map->nr_pages; pfn += nr) {
		for (i = 0; i < nr && !pagemap_test(map, pfn + i); i++)
			;
		if (i == nr)
			return true;
	}
	return false;
}

/* ---- new folios and their memory ------------------------------------ */

/* assert_new_folio() - The documented state and geometry of a new folio. */
static void assert_new_folio(const struct upc_arena *arena,
			     const struct folio *folio, unsigned int order)
{
	unsigned long nr = 1UL << order, pfn;
	uintptr_t addr;

	assert_non_null(folio);
	assert_ptr_equal(folio->arena, arena);
	pfn = folio_pfn(folio);
	assert_true(pfn < arena->nr_pages);
	assert_ptr_equal(folio, arena->memmap + pfn);
	assert_int_equal(folio_ref_count(folio), 1);
	assert_int_equal(folio->flags, 0);
	assert_int_equal(folio_order(folio), order);
	assert_int_equal(folio_nr_pages(folio), nr);
	assert_int_equal(folio_size(folio), nr * UPC_PAGE_SIZE);
	assert_null(folio->mapping);
	assert_int_equal(folio->index, 0);
	assert_null(folio->private);
	assert_ptr_equal(folio->lru.next, &folio->lru);
	assert_ptr_equal(folio->lru.prev, &folio->lru);
	/* Aligned to its size, in pages and in bytes, and inside. */
	assert_int_equal(pfn % nr, 0);
	assert_true(pfn + nr <= arena->nr_pages);
	addr = (uintptr_t)folio_address(folio);
	assert_int_equal(addr, (uintptr_t)arena->base + pfn * UPC_PAGE_SIZE);
	assert_int_equal(addr % (nr * UPC_PAGE_SIZE), 0);
}

static uint64_t pattern_word(uint64_t tag, size_t i)
{
	return tag ^ (i * 0x9e3779b97f4a7c15ULL);
}

static void pattern_fill(struct folio *folio, uint64_t tag)
{
	uint64_t *w = folio_address(folio);
	size_t i, n = folio_size(folio) / sizeof(*w);

	for (i = 0; i < n; i++)
		w[i] = pattern_word(tag, i);
}

/* pattern_check() - Return: the index of the first wrong word, or -1. */
static long pattern_check(const struct folio *folio, uint64_t tag)
{
	const uint64_t *w = folio_address(folio);
	size_t i, n = folio_size(folio) / sizeof(*w);

	for (i = 0; i < n; i++)
		if (w[i] != pattern_word(tag, i))
			return (long)i;
	return -1;
}

static bool all_zero(const struct folio *folio)
{
	const unsigned char *p = folio_address(folio);
	size_t i;

	for (i = 0; i < folio_size(folio); i++)
		if (p[i])
			return false;
	return true;
}

/*
 * fill_arena() - Allocate folios of @order until one fails.
 * Return: how many were allocated, stored in @out (room for all pages).
 */
static unsigned long fill_arena(struct upc_arena *arena, unsigned int order,
				struct folio **out, struct pagemap *map)
{
	unsigned long n = 0;
	struct folio *folio;

	while ((folio = upc_arena_alloc_folio(arena, GFP_KERNEL, order))) {
		assert_new_folio(arena, folio, order);
		pagemap_claim(map, folio);
		out[n++] = folio;
		assert_true(n <= arena->nr_pages);
	}
	return n;
}

static void put_all(struct folio **folios, unsigned long n,
		    struct pagemap *map)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		if (map)
			pagemap_release(map, folios[i]);
		folio_put(folios[i]);
	}
}

/* shuffle() - Put @folios in a random order (seeded). */
static void shuffle(struct folio **folios, unsigned long n,
		    struct upc_rand *rnd)
{
	struct folio *tmp;
	unsigned long i, j;

	for (i = n; i > 1; i--) {
		j = upc_rand_below(rnd, i);
		tmp = folios[i - 1];
		folios[i - 1] = folios[j];
		folios[j] = tmp;
	}
}

/* ---- creation ---------------------------------------------------------- */

static void test_create_destroy(void **state)
{
	static const size_t sizes[] = { 2 * MiB, 4 * MiB, 32 * MiB };
	struct upc_arena *arena;
	unsigned int i, order;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		arena = arena_new(sizes[i]);
		assert_int_equal(arena->nr_pages, sizes[i] / UPC_PAGE_SIZE);
		assert_int_equal(arena->limit_pages, arena->nr_pages);
		assert_int_equal((uintptr_t)arena->base % UPC_HUGE_SIZE, 0);
		assert_true(arena->base >= (char *)arena->map_base);
		assert_true(arena->base + sizes[i] <=
			    (char *)arena->map_base + arena->map_bytes);
		assert_int_equal(upc_arena_charged(arena), 0);
		assert_null(arena->reclaim);
		/* Every block free past the frontier, none listed. */
		assert_int_equal(arena_priv(arena)->frontier, 0);
		for (order = 0; order <= UPC_MAX_ORDER; order++)
			assert_int_equal(arena->nr_free[order], 0);
		arena_fini(arena);
	}
	upc_arena_destroy(NULL);
}

static void test_create_einval(void **state)
{
	static const size_t bad[] = {
		0, 1, UPC_PAGE_SIZE, MiB, 3 * MiB, 2 * MiB + UPC_PAGE_SIZE,
		2 * MiB - 1, SIZE_MAX, SIZE_MAX & ~(UPC_HUGE_SIZE - 1),
		UPC_ARENA_MAX_BYTES + UPC_HUGE_SIZE, 1ULL << 47,
	};
	struct upc_arena *arena, *const sentinel = (struct upc_arena *)&arena;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		arena = sentinel;
		if (upc_arena_create(bad[i], &arena) != -EINVAL)
			fail_msg("size %#zx: not -EINVAL", bad[i]);
		assert_ptr_equal(arena, sentinel);
	}
	assert_int_equal(upc_arena_create(2 * MiB, NULL), -EINVAL);
}

/*
 * The largest size is accepted: creation may still fail with -ENOMEM
 * where the address space cannot hold 64 TiB of memory and its memmap
 * (a sanitizer's shadow, an overcommit policy), but never -EINVAL.
 * When it succeeds, the arena works from its first block; the checker
 * is not run, as it would visit 2^34 pages.
 */
static void test_create_max_size(void **state)
{
	struct upc_arena *arena = NULL;
	struct folio *folio;
	int err;

	(void)state;
	err = upc_arena_create(UPC_ARENA_MAX_BYTES, &arena);
	if (err == -ENOMEM) {
		assert_null(arena);
		return;
	}
	assert_int_equal(err, 0);
	assert_int_equal(arena->nr_pages, UPC_ARENA_MAX_BYTES / UPC_PAGE_SIZE);
	assert_int_equal(arena->limit_pages, arena->nr_pages);
	folio = upc_arena_alloc_folio(arena, GFP_KERNEL, UPC_MAX_ORDER);
	assert_non_null(folio);
	assert_ptr_equal(folio_address(folio), arena->base);
	assert_int_equal(upc_arena_charged(arena), 1UL << UPC_MAX_ORDER);
	folio_put(folio);
	assert_int_equal(upc_arena_charged(arena), 0);
	upc_arena_destroy(arena);
}

/* Each allocation of upc_arena_create() fails in turn, then none does. */
static void test_create_enomem(void **state)
{
	struct upc_arena *arena, *const sentinel = (struct upc_arena *)&arena;
	unsigned long n;
	int err;

	(void)state;
	for (n = 1; ; n++) {
		arena = sentinel;
		upc_fault_fail_nth(n);
		err = upc_arena_create(4 * MiB, &arena);
		if (!upc_fault_injected())
			break;
		assert_int_equal(err, -ENOMEM);
		assert_ptr_equal(arena, sentinel);
		assert_true(n < 10);
	}
	upc_fault_fail_nth(0);
	assert_int_equal(err, 0);
	assert_int_equal(n, 4);		/* struct, memory, memmap */
	arena_fini(arena);
}

static void test_set_limit_einval(void **state)
{
	struct upc_arena *arena = arena_new(4 * MiB);

	(void)state;
	assert_int_equal(upc_arena_set_limit(arena, arena->nr_pages + 1),
			 -EINVAL);
	assert_int_equal(upc_arena_set_limit(arena, ~0UL), -EINVAL);
	assert_int_equal(arena->limit_pages, arena->nr_pages);
	assert_int_equal(upc_arena_set_limit(NULL, 1), -EINVAL);
	assert_int_equal(upc_arena_set_limit(arena, 1), 0);
	assert_int_equal(arena->limit_pages, 1);
	assert_int_equal(upc_arena_set_limit(arena, arena->nr_pages), 0);
	assert_int_equal(arena->limit_pages, arena->nr_pages);
	assert_int_equal(upc_arena_set_limit(arena, 7), 0);
	assert_int_equal(upc_arena_set_limit(arena, 0), 0);
	assert_int_equal(arena->limit_pages, arena->nr_pages);
	upc_arena_destroy(arena);
}

/* ---- allocation -------------------------------------------------------- */

static void test_alloc_every_order(void **state)
{
	struct upc_arena *arena = arena_new(4 * MiB);
	struct folio *folio;
	unsigned int order;

	(void)state;
	for (order = 0; order <= UPC_MAX_ORDER; order++) {
		folio = upc_arena_alloc_folio(arena, GFP_KERNEL, order);
		assert_new_folio(arena, folio, order);
		assert_int_equal(upc_arena_charged(arena), 1UL << order);
		pattern_fill(folio, order);
		assert_int_equal(pattern_check(folio, order), -1);
		folio_put(folio);
		assert_int_equal(folio_ref_count(folio), 0);
		assert_int_equal(upc_arena_charged(arena), 0);
		assert_arena_ok(arena);
	}
	upc_arena_destroy(arena);
}

static void test_alloc_bad_args(void **state)
{
	struct upc_arena *arena = arena_new(2 * MiB);

	(void)state;
	assert_null(upc_arena_alloc_folio(arena, GFP_KERNEL, UPC_MAX_ORDER + 1));
	assert_null(upc_arena_alloc_folio(arena, GFP_KERNEL, ~0U));
	assert_null(upc_arena_alloc_folio(NULL, GFP_KERNEL, 0));
	assert_int_equal(upc_arena_charged(arena), 0);
	arena_fini(arena);
}

/*
 * struct fill_env - a 16 MiB arena to fill and empty again, with room for
 * a folio pointer per page, the map of pages handed out, and a seeded
 * random stream (@seed for messages).
 */
struct fill_env {
	struct upc_arena *arena;
	unsigned long nr;
	struct folio **folios;
	struct pagemap map;
	struct upc_rand rnd;
	uint64_t seed;
};

static void fill_env_init(struct fill_env *e, uint64_t salt)
{
	e->arena = arena_new(16 * MiB);
	e->nr = e->arena->nr_pages;
	e->seed = upc_test_seed();
	upc_rand_seed(&e->rnd, e->seed ^ salt);
	e->folios = calloc(e->nr, sizeof(*e->folios));
	assert_non_null(e->folios);
	pagemap_init(&e->map, e->arena);
}

/* Everything back as 2 MiB folios, then freed; the arena destroyed. */
static void fill_env_fini(struct fill_env *e)
{
	unsigned long n = fill_arena(e->arena, UPC_MAX_ORDER, e->folios,
				     &e->map);

	if (n != e->nr / HUGE_PAGES)
		fail_msg("seed %llu: %lu 2 MiB folios after merging, want %lu",
			 (unsigned long long)e->seed, n, e->nr / HUGE_PAGES);
	put_all(e->folios, n, &e->map);
	assert_arena_ok(e->arena);
	free(e->map.bits);
	free(e->folios);
	arena_fini(e->arena);
}

/*
 * The whole arena as 2 MiB folios; then, freed, as 4 KiB folios; then,
 * those freed in a random order, as 2 MiB folios again: the pages merge
 * back (through the per-CPU-like caches, which are drained on demand).
 */
static void test_fill_huge_small_huge(void **state)
{
	struct fill_env e;
	struct upc_arena *arena;
	struct folio **folios;
	unsigned long nr, n;

	(void)state;
	fill_env_init(&e, 0xf111);
	arena = e.arena;
	folios = e.folios;
	nr = e.nr;

	n = fill_arena(arena, UPC_MAX_ORDER, folios, &e.map);
	assert_int_equal(n, nr / HUGE_PAGES);
	assert_int_equal(upc_arena_charged(arena), nr);
	assert_null(upc_arena_alloc_folio(arena, GFP_KERNEL, 0));
	assert_arena_ok(arena);
	put_all(folios, n, &e.map);
	assert_arena_ok(arena);

	n = fill_arena(arena, 0, folios, &e.map);
	assert_int_equal(n, nr);
	assert_int_equal(upc_arena_charged(arena), nr);
	assert_arena_ok(arena);
	shuffle(folios, n, &e.rnd);
	put_all(folios, n, &e.map);
	assert_int_equal(upc_arena_charged(arena), 0);
	assert_arena_ok(arena);

	fill_env_fini(&e);
}

static void test_limit(void **state)
{
	struct upc_arena *arena = arena_new(8 * MiB);
	struct folio *folios[600], *folio;
	unsigned int i;

	(void)state;
	assert_int_equal(upc_arena_set_limit(arena, 100), 0);
	for (i = 0; i < 100; i++) {
		folios[i] = upc_arena_alloc_folio(arena, GFP_KERNEL, 0);
		assert_non_null(folios[i]);
	}
	assert_int_equal(upc_arena_charged(arena), 100);
	assert_null(upc_arena_alloc_folio(arena, GFP_KERNEL, 0));
	assert_null(upc_arena_alloc_folio(arena, GFP_NOWAIT, 0));
	assert_null(upc_arena_alloc_folio(arena, GFP_KERNEL, 1));
	assert_int_equal(upc_arena_charged(arena), 100);
	assert_arena_ok(arena);

	/* Freeing makes room again. */
	folio_put(folios[99]);
	folios[99] = upc_arena_alloc_folio(arena, GFP_KERNEL, 0);
	assert_non_null(folios[99]);
	assert_null(upc_arena_alloc_folio(arena, GFP_KERNEL, 0));

	/* A limit below the charge: nothing until enough is freed. */
	assert_int_equal(upc_arena_set_limit(arena, 50), 0);
	for (i = 99; i >= 50; i--) {
		assert_null(upc_arena_alloc_folio(arena, GFP_KERNEL, 0));
		folio_put(folios[i]);
	}
	assert_int_equal(upc_arena_charged(arena), 50);
	assert_null(upc_arena_alloc_folio(arena, GFP_KERNEL, 0));
	folio_put(folios[49]);
	folios[49] = upc_arena_alloc_folio(arena, GFP_KERNEL, 0);
	assert_non_null(folios[49]);

	/* An order-9 folio needs 512 pages of room, not 511. */
	assert_int_equal(upc_arena_set_limit(arena, 50 + 511), 0);
	assert_null(upc_arena_alloc_folio(arena, GFP_KERNEL, UPC_MAX_ORDER));
	assert_int_equal(upc_arena_set_limit(arena, 50 + 512), 0);
	folio = upc_arena_alloc_folio(arena, GFP_KERNEL, UPC_MAX_ORDER);
	assert_new_folio(arena, folio, UPC_MAX_ORDER);
	assert_null(upc_arena_alloc_folio(arena, GFP_KERNEL, 0));
	folio_put(folio);

	/* Back to the whole arena. */
	assert_int_equal(upc_arena_set_limit(arena, 0), 0);
	for (i = 50; i < 600; i++) {
		folios[i] = upc_arena_alloc_folio(arena, GFP_KERNEL, 0);
		assert_non_null(folios[i]);
	}
	assert_int_equal(upc_arena_charged(arena), 600);
	assert_arena_ok(arena);
	put_all(folios, 600, NULL);
	assert_int_equal(upc_arena_charged(arena), 0);
	arena_fini(arena);
}

/* ---- reclaim ------------------------------------------------------------ */

/*
 * struct reclaim_ctx - what the test reclaim hook can free and what it saw.
 * @arena: The arena it must be called for.
 * @want: The nr_pages it must be called with.
 * @pool: Folios it may free (last first), @nr_pool of them.
 * @free_all: Free the whole pool, not just @want pages of it.
 * @lie: What to return when it freed nothing.
 * @calls: How many times it was called.
 * @bad: Called with wrong arguments or with an arena lock held.
 */
struct reclaim_ctx {
	struct upc_arena *arena;
	unsigned long want;
	struct folio **pool;
	unsigned long nr_pool;
	bool free_all;
	unsigned long lie;
	unsigned int calls;
	gfp_t gfp;
	bool bad;
};

static bool arena_lock_held(struct upc_arena *arena)
{
	unsigned int i;

	for (i = 0; i < UPC_PCP_LISTS; i++)
		if (upc_lock_is_held(&arena->pcp[i].lock))
			return true;
	return upc_lock_is_held(&arena->lock);
}

static unsigned long reclaim_hook(struct upc_arena *arena,
				  unsigned long nr_pages, gfp_t gfp, void *priv)
{
	struct reclaim_ctx *ctx = priv;
	unsigned long freed = 0;
	struct folio *folio;

	ctx->calls++;
	ctx->gfp = gfp;
	if (arena != ctx->arena || nr_pages != ctx->want ||
	    arena_lock_held(arena))
		ctx->bad = true;
	while (ctx->nr_pool && (ctx->free_all || freed < nr_pages)) {
		folio = ctx->pool[--ctx->nr_pool];
		freed += folio_nr_pages(folio);
		folio_put(folio);
	}
	return freed ? freed : ctx->lie;
}

/* reclaim_setup() - Fill @pool with @nr order-0 folios; install the hook. */
static void reclaim_setup(struct reclaim_ctx *ctx, struct upc_arena *arena,
			  struct folio **pool, unsigned long nr)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->arena = arena;
	ctx->pool = pool;
	for (ctx->nr_pool = 0; ctx->nr_pool < nr; ctx->nr_pool++) {
		pool[ctx->nr_pool] = upc_arena_alloc_folio(arena, GFP_KERNEL, 0);
		assert_non_null(pool[ctx->nr_pool]);
	}
	upc_arena_set_reclaim(arena, reclaim_hook, ctx);
}

/* At the limit, the hook frees enough and the allocation succeeds. */
static void test_reclaim_progress(void **state)
{
	struct upc_arena *arena = arena_new(4 * MiB);
	struct folio *pool[64], *folio;
	struct reclaim_ctx ctx;

	(void)state;
	assert_int_equal(upc_arena_set_limit(arena, 64), 0);
	reclaim_setup(&ctx, arena, pool, 64);
	ctx.want = 4;
	folio = upc_arena_alloc_folio(arena, GFP_KERNEL, 2);
	assert_new_folio(arena, folio, 2);
	assert_int_equal(ctx.calls, 1);
	assert_false(ctx.bad);
	assert_int_equal(ctx.nr_pool, 60);
	assert_int_equal(upc_arena_charged(arena), 64);
	folio_put(folio);

	/* Below the limit the hook is not needed. */
	ctx.want = 1;
	folio = upc_arena_alloc_folio(arena, GFP_KERNEL, 0);
	assert_non_null(folio);
	assert_int_equal(ctx.calls, 1);
	folio_put(folio);

	put_all(pool, ctx.nr_pool, NULL);
	assert_int_equal(upc_arena_charged(arena), 0);
	arena_fini(arena);
}

/* A hook that frees nothing: once if it says so, bounded if it lies. */
static void test_reclaim_no_progress(void **state)
{
	struct upc_arena *arena = arena_new(2 * MiB);
	struct folio *pool[8];
	struct reclaim_ctx ctx;

	(void)state;
	assert_int_equal(upc_arena_set_limit(arena, 8), 0);
	reclaim_setup(&ctx, arena, pool, 8);
	ctx.nr_pool = 0;	/* the hook may not touch them */
	ctx.want = 2;
	assert_null(upc_arena_alloc_folio(arena, GFP_KERNEL, 1));
	assert_int_equal(ctx.calls, 1);

	ctx.calls = 0;
	ctx.lie = 1;
	assert_null(upc_arena_alloc_folio(arena, GFP_KERNEL, 1));
	assert_int_equal(ctx.calls, UPC_RECLAIM_RETRIES);
	assert_int_equal(ctx.gfp, GFP_KERNEL);

	/* __GFP_NORETRY: one round, the hook told so, whatever it says. */
	ctx.calls = 0;
	assert_null(upc_arena_alloc_folio(arena, GFP_KERNEL | __GFP_NORETRY,
					  1));
	assert_int_equal(ctx.calls, 1);
	assert_int_equal(ctx.gfp, GFP_KERNEL | __GFP_NORETRY);
	assert_false(ctx.bad);
	assert_int_equal(upc_arena_charged(arena), 8);
	put_all(pool, 8, NULL);
	arena_fini(arena);
}

/* __GFP_NORETRY still gets the round it asks for, and what it freed. */
static void test_reclaim_noretry_progress(void **state)
{
	struct upc_arena *arena = arena_new(2 * MiB);
	struct folio *pool[8], *folio;
	struct reclaim_ctx ctx;

	(void)state;
	assert_int_equal(upc_arena_set_limit(arena, 8), 0);
	reclaim_setup(&ctx, arena, pool, 8);
	ctx.want = 2;
	folio = upc_arena_alloc_folio(arena, GFP_KERNEL | __GFP_NORETRY, 1);
	assert_new_folio(arena, folio, 1);
	assert_int_equal(ctx.calls, 1);
	assert_false(ctx.bad);
	folio_put(folio);
	put_all(pool, ctx.nr_pool, NULL);
	arena_fini(arena);
}

/* GFP_NOWAIT and GFP_ATOMIC never call the hook; GFP_KERNEL would. */
static void test_reclaim_nowait(void **state)
{
	struct upc_arena *arena = arena_new(2 * MiB);
	struct folio *pool[16], *folio;
	struct reclaim_ctx ctx;

	(void)state;
	assert_int_equal(upc_arena_set_limit(arena, 16), 0);
	reclaim_setup(&ctx, arena, pool, 16);
	ctx.want = 1;
	assert_null(upc_arena_alloc_folio(arena, GFP_NOWAIT, 0));
	assert_null(upc_arena_alloc_folio(arena, GFP_ATOMIC, 0));
	assert_null(upc_arena_alloc_folio(arena, GFP_NOWAIT | __GFP_ZERO, 0));
	assert_int_equal(ctx.calls, 0);
	assert_int_equal(ctx.nr_pool, 16);
	folio = upc_arena_alloc_folio(arena, GFP_KERNEL, 0);
	assert_non_null(folio);
	assert_int_equal(ctx.calls, 1);
	assert_false(ctx.bad);
	folio_put(folio);
	put_all(pool, ctx.nr_pool, NULL);
	arena_fini(arena);
}

/*
 * alloc_huge_reclaiming() - With a hook set to free everything it has, a
 * 2 MiB allocation succeeds after one call of the hook, charging just
 * the new folio, which is then put.
 */
static void alloc_huge_reclaiming(struct upc_arena *arena,
				  struct reclaim_ctx *ctx)
{
	struct folio *folio;

	ctx->want = HUGE_PAGES;
	ctx->free_all = true;
	folio = upc_arena_alloc_folio(arena, GFP_KERNEL, UPC_MAX_ORDER);
	assert_new_folio(arena, folio, UPC_MAX_ORDER);
	assert_int_equal(ctx->calls, 1);
	assert_false(ctx->bad);
	assert_int_equal(upc_arena_charged(arena), HUGE_PAGES);
	folio_put(folio);
}

/*
 * keep_every() - Of @nr order-0 folios in @pool, put those whose page
 * number is not a multiple of @step and keep the others, moved to the
 * front.  Return: how many were kept.
 */
static unsigned long keep_every(struct folio **pool, unsigned long nr,
				unsigned long step)
{
	unsigned long i, kept = 0;

	for (i = 0; i < nr; i++) {
		if (folio_pfn(pool[i]) % step)
			folio_put(pool[i]);
		else
			pool[kept++] = pool[i];
	}
	return kept;
}

/*
 * A full arena of 4 KiB folios: a 2 MiB allocation calls the hook with
 * 512 pages; once the hook freed them, the pages (spread over the
 * per-CPU-like caches) merge into a 2 MiB block.  Then the same with a
 * charge that fits but memory too fragmented for the block.
 */
static void test_reclaim_merges(void **state)
{
	struct upc_arena *arena = arena_new(4 * MiB);
	unsigned long nr = arena->nr_pages;
	struct folio **pool;
	struct reclaim_ctx ctx;

	(void)state;
	pool = calloc(nr, sizeof(*pool));
	assert_non_null(pool);
	reclaim_setup(&ctx, arena, pool, nr);
	assert_null(upc_arena_alloc_folio(arena, GFP_NOWAIT, 0));

	alloc_huge_reclaiming(arena, &ctx);
	assert_arena_ok(arena);

	/* Every other page free: half the arena, and not one order-1 block. */
	reclaim_setup(&ctx, arena, pool, nr);
	ctx.nr_pool = keep_every(pool, nr, 2);
	assert_int_equal(upc_arena_charged(arena), nr / 2);
	assert_null(upc_arena_alloc_folio(arena, GFP_NOWAIT, 1));
	alloc_huge_reclaiming(arena, &ctx);
	assert_int_equal(upc_arena_charged(arena), 0);
	assert_arena_ok(arena);
	free(pool);
	upc_arena_destroy(arena);
}

/*
 * Fragmentation: the charge fits, but one page pinned in each 2 MiB block
 * leaves no block of order 9.  A hook that says it made progress without
 * freeing anything is called once, not UPC_RECLAIM_RETRIES times: each
 * call would evict pages that could not make the block.
 */
static void test_reclaim_fragmented_once(void **state)
{
	struct upc_arena *arena = arena_new(4 * MiB);
	unsigned long nr = arena->nr_pages, kept;
	struct folio **pool;
	struct reclaim_ctx ctx;

	(void)state;
	pool = calloc(nr, sizeof(*pool));
	assert_non_null(pool);
	reclaim_setup(&ctx, arena, pool, nr);
	kept = keep_every(pool, nr, HUGE_PAGES);
	assert_int_equal(kept, nr / HUGE_PAGES);
	ctx.nr_pool = 0;	/* the hook may not touch them */
	ctx.want = HUGE_PAGES;
	ctx.lie = 1;
	assert_null(upc_arena_alloc_folio(arena, GFP_KERNEL, UPC_MAX_ORDER));
	assert_int_equal(ctx.calls, 1);
	assert_false(ctx.bad);
	assert_int_equal(upc_arena_charged(arena), kept);
	/* Order 0 still comes at once, without the hook. */
	ctx.want = 1;
	pool[kept] = upc_arena_alloc_folio(arena, GFP_KERNEL, 0);
	assert_non_null(pool[kept]);
	assert_int_equal(ctx.calls, 1);
	put_all(pool, kept + 1, NULL);
	free(pool);
	arena_fini(arena);
}

/* A folio larger than the limit is refused without calling the hook. */
static void test_reclaim_larger_than_limit(void **state)
{
	struct upc_arena *arena = arena_new(2 * MiB);
	struct folio *pool[1];
	struct reclaim_ctx ctx;

	(void)state;
	assert_int_equal(upc_arena_set_limit(arena, HUGE_PAGES / 2), 0);
	reclaim_setup(&ctx, arena, pool, 0);
	ctx.want = HUGE_PAGES;
	ctx.lie = 1;
	assert_null(upc_arena_alloc_folio(arena, GFP_KERNEL, UPC_MAX_ORDER));
	assert_int_equal(ctx.calls, 0);
	assert_int_equal(upc_arena_charged(arena), 0);
	/* The largest order that fits still comes. */
	pool[0] = upc_arena_alloc_folio(arena, GFP_KERNEL, UPC_MAX_ORDER - 1);
	assert_new_folio(arena, pool[0], UPC_MAX_ORDER - 1);
	assert_int_equal(ctx.calls, 0);
	folio_put(pool[0]);
	arena_fini(arena);
}

/* ---- the invariant checker ---------------------------------------------- */

/*
 * expect_corrupt() - upc_arena_check() reports the corruption @what made
 * (and the arena is whole again once it is undone by the caller).
 */
static void expect_corrupt(struct upc_arena *arena, const char *what)
{
	if (upc_arena_check(arena) != -EUCLEAN)
		fail_msg("the checker missed: %s", what);
}

/*
 * Each corruption the checker exists for, made and undone in turn on a
 * live arena: a free block's other page with a reference, a page past
 * the frontier written, the frontier misaligned, behind listed blocks or
 * past the end, the first back link of a free list, an empty free list's
 * and an empty pcp list's ->prev, a pcp page with a flag.
 */
static void test_check_catches_corruption(void **state)
{
	struct upc_arena *arena = arena_new(4 * MiB);
	unsigned long *frontier = &arena_priv(arena)->frontier;
	struct upc_list_head *head, *saved;
	struct folio *page, *folio;
	unsigned int order;

	(void)state;
	folio = upc_arena_alloc_folio(arena, GFP_NOWAIT, 0);
	assert_non_null(folio);
	folio_put(folio);	/* now on a pcp list */
	assert_arena_ok(arena);
	/* Block 0 taken from the frontier and split; block 1 untouched. */
	assert_int_equal(*frontier, HUGE_PAGES);

	/* A page inside the free order-8 block split off block 0. */
	head = &arena->free_area[UPC_MAX_ORDER - 1];
	assert_false(mm_list_empty(head));
	page = lru_to_folio(head->next) + 3;
	page->refcount = 1;
	expect_corrupt(arena, "a free block's page with a reference");
	page->refcount = 0;
	assert_arena_ok(arena);

	/* A page of the 2 MiB block at the arena's end, past the frontier. */
	page = arena->memmap + arena->nr_pages - 3;
	page->refcount = 1;
	expect_corrupt(arena, "a page past the frontier with a reference");
	page->refcount = 0;
	page->index = 1;
	expect_corrupt(arena, "a page past the frontier with an index");
	page->index = 0;
	assert_arena_ok(arena);

	*frontier += 1;
	expect_corrupt(arena, "a misaligned frontier");
	*frontier = 0;
	expect_corrupt(arena, "a frontier behind listed blocks");
	*frontier = arena->nr_pages + HUGE_PAGES;
	expect_corrupt(arena, "a frontier past the arena's end");
	*frontier = HUGE_PAGES;
	assert_arena_ok(arena);

	head = &arena->free_area[UPC_MAX_ORDER - 1];
	assert_false(mm_list_empty(head));
	saved = head->next->prev;
	head->next->prev = head->next;
	expect_corrupt(arena, "a free list's first back link");
	head->next->prev = saved;
	assert_arena_ok(arena);

	for (order = 0; order < UPC_MAX_ORDER; order++)
		if (mm_list_empty(&arena->free_area[order]))
			break;
	assert_true(order < UPC_MAX_ORDER);
	head = &arena->free_area[order];
	head->prev = &arena->free_area[UPC_MAX_ORDER];
	expect_corrupt(arena, "an empty free list's ->prev");
	head->prev = head;
	assert_arena_ok(arena);

	head = &arena->pcp[UPC_PCP_LISTS - 1].list;
	if (!mm_list_empty(head))
		head = &arena->pcp[0].list;
	assert_true(mm_list_empty(head));
	head->prev = &arena->free_area[UPC_MAX_ORDER];
	expect_corrupt(arena, "an empty pcp list's ->prev");
	head->prev = head;
	assert_arena_ok(arena);

	folio_set_flag(folio, PG_dirty);
	expect_corrupt(arena, "a pcp page with a flag");
	folio_clear_flag(folio, PG_dirty);
	arena_fini(arena);
}

/*
 * More corruptions, each caught by one test of the checker alone: the
 * counts (charged, a free list's nr_free, a pcp list's count), a free
 * block's first page with a reference or an extra flag, PG_buddy on a
 * folio in use, a broken link inside a pcp list, and a free list entry
 * outside the memmap.  The thread is pinned to its CPU so that the
 * pages it frees share one pcp list.
 */
static void test_check_catches_each(void **state)
{
	struct upc_arena *arena = arena_new(4 * MiB);
	struct upc_list_head *head, *saved, outside;
	struct folio *folios[3], *block, *used;
	unsigned int i, cpu_list;
	cpu_set_t old;

	(void)state;
	assert_true(test_pin_this_cpu(&old));
	for (i = 0; i < 3; i++) {
		folios[i] = upc_arena_alloc_folio(arena, GFP_NOWAIT, 0);
		assert_non_null(folios[i]);
	}
	used = folios[2];
	folio_put(folios[0]);
	folio_put(folios[1]);
	assert_arena_ok(arena);
	for (cpu_list = 0; cpu_list < UPC_PCP_LISTS; cpu_list++)
		if (arena->pcp[cpu_list].count >= 2)
			break;
	assert_true(cpu_list < UPC_PCP_LISTS);

	arena->charged++;
	expect_corrupt(arena, "one page more charged");
	arena->charged--;

	arena->nr_free[UPC_MAX_ORDER - 1]++;
	expect_corrupt(arena, "nr_free one more than listed");
	arena->nr_free[UPC_MAX_ORDER - 1]--;

	arena->pcp[cpu_list].count++;
	expect_corrupt(arena, "a pcp count one more than listed");
	arena->pcp[cpu_list].count--;

	head = &arena->free_area[UPC_MAX_ORDER - 1];
	assert_false(mm_list_empty(head));
	block = lru_to_folio(head->next);
	block->refcount = 1;
	expect_corrupt(arena, "a free block's first page with a reference");
	block->refcount = 0;
	folio_set_flag(block, PG_dirty);
	expect_corrupt(arena, "a free block's first page with a flag");
	folio_clear_flag(block, PG_dirty);
	assert_arena_ok(arena);

	folio_set_flag(used, PG_buddy);
	expect_corrupt(arena, "PG_buddy on a folio in use");
	folio_clear_flag(used, PG_buddy);

	/* The second entry's back link, inside the list. */
	head = &arena->pcp[cpu_list].list;
	assert_true(head->next->next != head);
	saved = head->next->next->prev;
	head->next->next->prev = head->next->next;
	expect_corrupt(arena, "a pcp list's inner back link");
	head->next->next->prev = saved;
	assert_arena_ok(arena);

	/* The top order's list is empty: block 1 is past the frontier. */
	head = &arena->free_area[UPC_MAX_ORDER];
	assert_true(mm_list_empty(head));
	outside.next = head;
	outside.prev = head;
	head->next = &outside;
	head->prev = &outside;
	arena->nr_free[UPC_MAX_ORDER]++;
	expect_corrupt(arena, "a free list entry outside the memmap");
	arena->nr_free[UPC_MAX_ORDER]--;
	head->next = head;
	head->prev = head;

	assert_true(test_unpin(&old));
	folio_put(used);
	arena_fini(arena);
}

/* Put an allocated order-8 @folio on its free list by hand. */
static void fake_free(struct upc_arena *arena, struct folio *folio)
{
	folio->flags = 1UL << PG_buddy;
	folio->refcount = 0;
	mm_list_add_tail(&folio->lru, &arena->free_area[UPC_MAX_ORDER - 1]);
	arena->nr_free[UPC_MAX_ORDER - 1]++;
	arena->charged -= HUGE_PAGES / 2;
}

/* Undo fake_free(): @folio allocated again, with @flags. */
static void fake_alloc(struct upc_arena *arena, struct folio *folio,
		       unsigned long flags)
{
	mm_list_del_init(&folio->lru);
	arena->nr_free[UPC_MAX_ORDER - 1]--;
	arena->charged += HUGE_PAGES / 2;
	folio->refcount = 1;
	folio->flags = flags;
}

/*
 * The four order-8 quarters of the arena allocated, then the first and
 * the last put on the free list by hand: a valid arena (their buddies
 * are in use), with two entries on one free list, whose inner back
 * link is then broken.  Then the first one's buddy joins them, as a
 * free that forgot to merge would leave it: everything else adds up,
 * so only the merge test can catch it.
 */
static void test_check_catches_free_list_faults(void **state)
{
	struct upc_arena *arena = arena_new(4 * MiB);
	struct upc_list_head *head, *saved;
	struct folio *quarter[4];
	unsigned long flags;
	unsigned int i;

	(void)state;
	for (i = 0; i < 4; i++) {
		quarter[i] = upc_arena_alloc_folio(arena, GFP_KERNEL,
						   UPC_MAX_ORDER - 1);
		assert_non_null(quarter[i]);
		assert_ptr_equal(quarter[i],
				 arena->memmap + i * (HUGE_PAGES / 2));
	}
	flags = quarter[0]->flags;
	assert_int_equal(quarter[3]->flags, flags);
	fake_free(arena, quarter[0]);
	fake_free(arena, quarter[3]);
	assert_arena_ok(arena);

	head = &arena->free_area[UPC_MAX_ORDER - 1];
	saved = head->next->next->prev;
	head->next->next->prev = head->next->next;
	expect_corrupt(arena, "a free list's inner back link");
	head->next->next->prev = saved;
	assert_arena_ok(arena);

	fake_free(arena, quarter[1]);
	expect_corrupt(arena, "free buddies not merged");
	fake_alloc(arena, quarter[1], flags);
	fake_alloc(arena, quarter[3], flags);
	fake_alloc(arena, quarter[0], flags);
	assert_arena_ok(arena);
	for (i = 0; i < 4; i++)
		folio_put(quarter[i]);
	arena_fini(arena);
}

/* ---- __GFP_ZERO, the pcp hot path, fault injection ---------------------- */

static void test_gfp_zero(void **state)
{
	struct upc_arena *arena = arena_new(2 * MiB);
	struct folio *folio, *held[UPC_MAX_ORDER + 1];
	unsigned int order;

	(void)state;
	/* Dirty the whole arena. */
	folio = upc_arena_alloc_folio(arena, GFP_KERNEL, UPC_MAX_ORDER);
	assert_non_null(folio);
	memset(folio_address(folio), 0xa5, folio_size(folio));
	folio_put(folio);

	/*
	 * Orders 8..0 fit beside each other in 2 MiB, largest first (an
	 * order-0 allocation moves a batch of pages to the pcp cache).
	 */
	for (order = UPC_MAX_ORDER; order-- > 0;) {
		held[order] = upc_arena_alloc_folio(arena,
						    GFP_KERNEL | __GFP_ZERO,
						    order);
		assert_new_folio(arena, held[order], order);
		assert_true(all_zero(held[order]));
	}
	put_all(held, UPC_MAX_ORDER, NULL);
	folio = upc_arena_alloc_folio(arena, GFP_NOWAIT | __GFP_ZERO,
				      UPC_MAX_ORDER);
	assert_non_null(folio);
	assert_true(all_zero(folio));
	/* Without __GFP_ZERO the memory is what it was. */
	memset(folio_address(folio), 0x5a, folio_size(folio));
	folio_put(folio);
	folio = upc_arena_alloc_folio(arena, GFP_KERNEL, 0);
	assert_non_null(folio);
	assert_int_equal(*(unsigned char *)folio_address(folio), 0x5a);
	folio_put(folio);
	arena_fini(arena);
}

/*
 * On one CPU, an order-0 allocation or free with the cache neither empty
 * nor full takes one lock (the cache's) and no other; a cache never holds
 * more than UPC_PCP_HIGH pages.
 */
static void test_pcp_hot_path(void **state)
{
	struct upc_arena *arena = arena_new(4 * MiB);
	struct upc_thread_stats stats;
	struct folio *folios[3 * UPC_PCP_HIGH];
	cpu_set_t saved;
	unsigned int i;

	(void)state;
	if (!test_pin_this_cpu(&saved)) {
		upc_arena_destroy(arena);
		skip();
	}
	folio_put(upc_arena_alloc_folio(arena, GFP_KERNEL, 0));
	upc_stats_thread_reset();
	for (i = 0; i < 100; i++)
		folio_put(upc_arena_alloc_folio(arena, GFP_KERNEL, 0));
	upc_stats_thread(&stats);
	assert_int_equal(stats.arena_lock_acquires, 200);
	assert_int_equal(stats.lock_acquires, 0);

	for (i = 0; i < 3 * UPC_PCP_HIGH; i++) {
		folios[i] = upc_arena_alloc_folio(arena, GFP_KERNEL, 0);
		assert_non_null(folios[i]);
	}
	put_all(folios, 3 * UPC_PCP_HIGH, NULL);
	assert_arena_ok(arena);		/* includes count <= UPC_PCP_HIGH */
	assert_true(test_unpin(&saved));
	upc_arena_destroy(arena);
}

/*
 * upc_arena_alloc_bulk(): all requested pages when they are there, each
 * a distinct, charged order-0 folio; a short count at the limit and when
 * the fault injector fails the k-th page (k - 1 then), nothing leaked.
 */
static void test_alloc_bulk(void **state)
{
	struct upc_arena *arena = arena_new(4 << 20);
	struct folio *folios[300];
	unsigned int got, i, k;

	(void)state;
	assert_int_equal(upc_arena_alloc_bulk(NULL, GFP_KERNEL, 4, folios), 0);
	got = upc_arena_alloc_bulk(arena, GFP_KERNEL, 300, folios);
	assert_int_equal(got, 300);
	assert_int_equal(upc_arena_charged(arena), 300);
	for (i = 0; i < got; i++) {
		assert_int_equal(folio_order(folios[i]), 0);
		assert_int_equal(folio_ref_count(folios[i]), 1);
		if (i)
			assert_ptr_not_equal(folios[i], folios[i - 1]);
		memset(folio_address(folios[i]), (int)i, UPC_PAGE_SIZE);
	}
	for (i = 0; i < got; i++)
		folio_put(folios[i]);
	assert_int_equal(upc_arena_charged(arena), 0);

	/* At the limit: only what fits. */
	assert_int_equal(upc_arena_set_limit(arena, 100), 0);
	got = upc_arena_alloc_bulk(arena, GFP_KERNEL, 300, folios);
	assert_int_equal(got, 100);
	for (i = 0; i < got; i++)
		folio_put(folios[i]);
	assert_int_equal(upc_arena_set_limit(arena, 0), 0);

	for (k = 1; k <= 5; k++) {
		upc_fault_fail_nth(k);
		got = upc_arena_alloc_bulk(arena, GFP_KERNEL, 8, folios);
		upc_fault_fail_nth(0);
		assert_int_equal(got, k - 1);
		for (i = 0; i < got; i++)
			folio_put(folios[i]);
		assert_int_equal(upc_arena_charged(arena), 0);
	}
	arena_fini(arena);
}

/*
 * upc_arena_alloc_bulk() with __GFP_ZERO: every byte of every page is
 * zero, the last ones too, as for upc_arena_alloc_folio().  The arena
 * is dirtied whole first, so that no page can be zero by chance; the
 * pages come from the batch it takes under one lock, the path that
 * zeroes them itself.
 */
static void test_alloc_bulk_zero(void **state)
{
	struct upc_arena *arena = arena_new(2 * MiB);
	struct folio *folio, *folios[64];
	unsigned int got, i;

	(void)state;
	folio = upc_arena_alloc_folio(arena, GFP_KERNEL, UPC_MAX_ORDER);
	assert_non_null(folio);
	memset(folio_address(folio), 0xa5, folio_size(folio));
	folio_put(folio);

	got = upc_arena_alloc_bulk(arena, GFP_KERNEL | __GFP_ZERO, 64, folios);
	assert_int_equal(got, 64);
	for (i = 0; i < got; i++) {
		assert_new_folio(arena, folios[i], 0);
		assert_true(all_zero(folios[i]));
	}
	put_all(folios, got, NULL);
	arena_fini(arena);
}

/* An injected failure returns NULL and leaves the charge as it was. */
static void test_fault_injection(void **state)
{
	static const unsigned int orders[] = { 0, 1, 4, UPC_MAX_ORDER };
	struct upc_arena *arena = arena_new(4 * MiB);
	struct folio *held, *folio, *other;
	unsigned int i;

	(void)state;
	held = upc_arena_alloc_folio(arena, GFP_KERNEL, 3);
	assert_non_null(held);
	for (i = 0; i < sizeof(orders) / sizeof(orders[0]); i++) {
		upc_fault_fail_nth(1);
		assert_null(upc_arena_alloc_folio(arena, GFP_KERNEL, orders[i]));
		assert_true(upc_fault_injected());
		assert_int_equal(upc_arena_charged(arena), 8);
		upc_fault_fail_nth(0);
		folio = upc_arena_alloc_folio(arena, GFP_KERNEL, orders[i]);
		assert_new_folio(arena, folio, orders[i]);
		folio_put(folio);
		assert_int_equal(upc_arena_charged(arena), 8);
		assert_arena_ok(arena);
	}

	/* Only the n-th attempt fails. */
	upc_fault_fail_nth(2);
	folio = upc_arena_alloc_folio(arena, GFP_NOWAIT, 0);
	assert_non_null(folio);
	assert_null(upc_arena_alloc_folio(arena, GFP_NOWAIT, 0));
	other = upc_arena_alloc_folio(arena, GFP_NOWAIT, 0);
	assert_non_null(other);
	assert_int_equal(upc_fault_attempts(), 3);
	upc_fault_fail_nth(0);
	assert_int_equal(upc_arena_charged(arena), 10);
	folio_put(other);
	folio_put(folio);
	folio_put(held);
	assert_int_equal(upc_arena_charged(arena), 0);
	arena_fini(arena);
}

/* ---- the differential test ---------------------------------------------- */

struct live_folio {
	struct folio *folio;
	uint64_t tag;
};

/*
 * struct diff_model - what the allocator must do, predicted.
 * @map: Pages of live folios.
 * @live: The live folios, @nr_live of them.
 * @charged: Pages of live folios.
 * @limit: The charge limit set.
 */
struct diff_model {
	struct pagemap map;
	struct live_folio *live;
	unsigned long nr_live;
	unsigned long charged;
	unsigned long limit;
};

/* diff_order() - Mostly small orders, sometimes any. */
static unsigned int diff_order(struct upc_rand *rnd)
{
	unsigned int order = 0;

	if (upc_rand_chance(rnd, 1, 10))
		return (unsigned int)upc_rand_below(rnd, UPC_MAX_ORDER + 1);
	while (order < UPC_MAX_ORDER && upc_rand_chance(rnd, 1, 2))
		order++;
	return order;
}

static void diff_alloc(struct upc_arena *arena, struct diff_model *m,
		       struct upc_rand *rnd, uint64_t seed, unsigned long op)
{
	static const gfp_t gfps[] = { GFP_KERNEL, GFP_NOWAIT, GFP_ATOMIC,
				      GFP_KERNEL | __GFP_ZERO };
	gfp_t gfp = gfps[upc_rand_below(rnd, 4)];
	unsigned int order = diff_order(rnd);
	unsigned long nr = 1UL << order;
	bool expect = m->charged + nr <= m->limit &&
		      pagemap_fits(&m->map, order);
	struct folio *folio = upc_arena_alloc_folio(arena, gfp, order);

	if (!folio != !expect)
		fail_msg("seed %llu op %lu: order %u with %lu charged, limit "
			 "%lu: got %p, expected %s", (unsigned long long)seed,
			 op, order, m->charged, m->limit, (void *)folio,
			 expect ? "a folio" : "NULL");
	if (!folio)
		return;
	assert_new_folio(arena, folio, order);
	pagemap_claim(&m->map, folio);
	if ((gfp & __GFP_ZERO) && !all_zero(folio))
		fail_msg("seed %llu op %lu: __GFP_ZERO folio not zeroed",
			 (unsigned long long)seed, op);
	m->live[m->nr_live].folio = folio;
	m->live[m->nr_live].tag = upc_rand_next(rnd);
	pattern_fill(folio, m->live[m->nr_live].tag);
	m->nr_live++;
	m->charged += nr;
}

static void diff_free(struct diff_model *m, struct upc_rand *rnd,
		      uint64_t seed, unsigned long op)
{
	unsigned long i = upc_rand_below(rnd, m->nr_live);
	struct live_folio lf = m->live[i];
	long bad = pattern_check(lf.folio, lf.tag);

	if (bad >= 0)
		fail_msg("seed %llu op %lu: folio at page %lu order %u "
			 "corrupted at word %ld", (unsigned long long)seed, op,
			 folio_pfn(lf.folio), folio_order(lf.folio), bad);
	m->live[i] = m->live[--m->nr_live];
	pagemap_release(&m->map, lf.folio);
	m->charged -= folio_nr_pages(lf.folio);
	folio_put(lf.folio);
}

static void diff_set_limit(struct upc_arena *arena, struct diff_model *m,
			   struct upc_rand *rnd)
{
	unsigned long limit = upc_rand_chance(rnd, 1, 2) ? 0 :
			      1 + upc_rand_below(rnd, arena->nr_pages);

	assert_int_equal(upc_arena_set_limit(arena, limit), 0);
	m->limit = limit ? limit : arena->nr_pages;
}

/*
 * Random allocations and frees against a model that knows which pages
 * are live: an allocation must succeed exactly when the charge fits
 * under the limit and some aligned run of free pages is large enough
 * (the buddy system merges every free aligned block, once the caches are
 * drained); every live folio keeps its own pattern until it is freed.
 */
static void test_random_differential(void **state)
{
	struct upc_arena *arena = arena_new(8 * MiB);
	unsigned long ops = upc_test_diff_ops(DIFF_OPS_DEFAULT), op;
	uint64_t seed = upc_test_seed();
	struct diff_model m = { .limit = arena->nr_pages };
	struct folio **folios;
	struct upc_rand rnd;

	(void)state;
	upc_rand_seed(&rnd, seed ^ 0xd1ff);
	pagemap_init(&m.map, arena);
	m.live = calloc(arena->nr_pages, sizeof(*m.live));
	assert_non_null(m.live);
	for (op = 0; op < ops; op++) {
		if (upc_rand_chance(&rnd, 1, 200))
			diff_set_limit(arena, &m, &rnd);
		else if (m.nr_live && upc_rand_chance(&rnd, 9, 20))
			diff_free(&m, &rnd, seed, op);
		else
			diff_alloc(arena, &m, &rnd, seed, op);
		if (upc_arena_charged(arena) != m.charged)
			fail_msg("seed %llu op %lu: charged %lu, model %lu",
				 (unsigned long long)seed, op,
				 upc_arena_charged(arena), m.charged);
		if (op % 1024 == 0 && upc_arena_check(arena))
			fail_msg("seed %llu op %lu: arena check failed",
				 (unsigned long long)seed, op);
	}
	while (m.nr_live)
		diff_free(&m, &rnd, seed, op);
	assert_int_equal(upc_arena_charged(arena), 0);
	assert_arena_ok(arena);

	/* All of it merges back. */
	assert_int_equal(upc_arena_set_limit(arena, 0), 0);
	folios = calloc(arena->nr_pages, sizeof(*folios));
	assert_non_null(folios);
	assert_int_equal(fill_arena(arena, UPC_MAX_ORDER, folios, &m.map),
			 arena->nr_pages / HUGE_PAGES);
	put_all(folios, arena->nr_pages / HUGE_PAGES, &m.map);
	assert_arena_ok(arena);
	free(folios);
	free(m.live);
	free(m.map.bits);
	upc_arena_destroy(arena);
}

/* ---- the frontier ------------------------------------------------------- */

/* rss_bytes() - This process's resident memory.  Return: -1 if unknown. */
static long long rss_bytes(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long long size, resident;
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "%lld %lld", &size, &resident);
	fclose(f);
	return n == 2 ? resident * sysconf(_SC_PAGESIZE) : -1;
}

/*
 * A 64 GiB arena, likely more than the machine's memory (MAP_NORESERVE
 * asks for address space only), costs a few pages to create, not the
 * 128 MiB that listing every 2 MiB block at creation wrote into its
 * memmap (a 4 KiB page per block; 2 GiB for 1 TiB); folios of several orders from it cost their
 * own blocks only, taken from the frontier in order.  Skipped where the
 * address space cannot be had (-ENOMEM: strict overcommit, ulimit -v)
 * or the resident size cannot be read.
 */
static void test_large_arena_untouched(void **state)
{
	static const unsigned int orders[] = { 0, 3, UPC_MAX_ORDER, 1, 0, 5 };
	const unsigned int n = sizeof(orders) / sizeof(orders[0]);
	struct folio *folios[sizeof(orders) / sizeof(orders[0])];
	struct upc_arena *arena = NULL;
	long long before, grown;
	unsigned int i;
	int err;

	(void)state;
	before = rss_bytes();
	if (before < 0)
		skip();
	err = upc_arena_create(64 * GiB, &arena);
	if (err == -ENOMEM)
		skip();
	assert_int_equal(err, 0);
	grown = rss_bytes() - before;
	if (grown >= (long long)(8 * MiB))
		fail_msg("creating a 64 GiB arena made %lld KiB resident",
			 grown >> 10);
	assert_int_equal(arena_priv(arena)->frontier, 0);

	for (i = 0; i < n; i++) {
		folios[i] = upc_arena_alloc_folio(arena, GFP_KERNEL, orders[i]);
		assert_new_folio(arena, folios[i], orders[i]);
		pattern_fill(folios[i], i);
	}
	/* The small folios share block 0; the order-9 one is block 1. */
	assert_int_equal(folio_pfn(folios[2]), HUGE_PAGES);
	assert_int_equal(arena_priv(arena)->frontier, 2 * HUGE_PAGES);
	grown = rss_bytes() - before;
	if (grown >= (long long)(16 * MiB))
		fail_msg("two blocks of a 64 GiB arena made %lld KiB resident",
			 grown >> 10);
	assert_arena_ok(arena);
	for (i = 0; i < n; i++) {
		assert_int_equal(pattern_check(folios[i], i), -1);
		folio_put(folios[i]);
	}
	assert_int_equal(upc_arena_charged(arena), 0);
	assert_int_equal(arena_priv(arena)->frontier, 2 * HUGE_PAGES);
	arena_fini(arena);
}

/*
 * The frontier moves only when the lists have no block large enough: a
 * freed block is handed out again first, whatever its order, and the
 * frontier reaches the arena's end exactly when every block has been.
 */
static void test_frontier_lists_first(void **state)
{
	struct upc_arena *arena = arena_new(8 * MiB);
	unsigned long *frontier = &arena_priv(arena)->frontier;
	struct folio *folio, *huge[4];
	unsigned int i;

	(void)state;
	folio = upc_arena_alloc_folio(arena, GFP_KERNEL, 3);
	assert_new_folio(arena, folio, 3);
	assert_int_equal(folio_pfn(folio), 0);
	assert_int_equal(*frontier, HUGE_PAGES);
	folio_put(folio);
	/* Merged back into block 0, which is listed now. */
	assert_int_equal(arena->nr_free[UPC_MAX_ORDER], 1);
	assert_arena_ok(arena);

	for (i = 0; i < 4; i++) {
		huge[i] = upc_arena_alloc_folio(arena, GFP_KERNEL,
						UPC_MAX_ORDER);
		assert_new_folio(arena, huge[i], UPC_MAX_ORDER);
		assert_int_equal(folio_pfn(huge[i]), i * HUGE_PAGES);
		assert_int_equal(*frontier, (i + 1) * HUGE_PAGES);
	}
	assert_int_equal(*frontier, arena->nr_pages);
	assert_null(upc_arena_alloc_folio(arena, GFP_KERNEL, 0));
	assert_arena_ok(arena);

	/* Blocks freed below the frontier are listed, and reused first. */
	folio_put(huge[2]);
	folio_put(huge[0]);
	assert_int_equal(arena->nr_free[UPC_MAX_ORDER], 2);
	folio = upc_arena_alloc_folio(arena, GFP_KERNEL, 0);
	assert_non_null(folio);
	assert_true(folio_pfn(folio) < HUGE_PAGES);
	assert_int_equal(*frontier, arena->nr_pages);
	folio_put(folio);
	folio_put(huge[1]);
	folio_put(huge[3]);
	arena_fini(arena);
}

/*
 * fill_random() - Allocate folios of random orders until not even one
 * page is left.  An order that failed is not tried again (nothing is
 * freed meanwhile); a smaller one may still fit.  Return: how many were
 * allocated, stored in @out (room for all pages).
 */
static unsigned long fill_random(struct upc_arena *arena, struct folio **out,
				 struct pagemap *map, struct upc_rand *rnd)
{
	unsigned int top = UPC_MAX_ORDER, order;
	unsigned long n = 0;
	struct folio *folio;

	for (;;) {
		order = (unsigned int)upc_rand_below(rnd, top + 1);
		folio = upc_arena_alloc_folio(arena, GFP_NOWAIT, order);
		if (!folio) {
			if (!order)
				return n;
			top = order - 1;
			continue;
		}
		assert_new_folio(arena, folio, order);
		pagemap_claim(map, folio);
		out[n++] = folio;
		assert_true(n <= arena->nr_pages);
	}
}

/*
 * Filled with folios of random orders until full, then freed in a random
 * order, again and again: each fill hands out exactly the arena's pages
 * (the first one taking every block from the frontier to its end), and
 * at the end all of it merges back into 2 MiB blocks.
 */
static void test_fill_random_orders(void **state)
{
	struct fill_env e;
	unsigned int round;
	unsigned long n;

	(void)state;
	fill_env_init(&e, 0xf10e);
	for (round = 0; round < 8; round++) {
		n = fill_random(e.arena, e.folios, &e.map, &e.rnd);
		if (upc_arena_charged(e.arena) != e.nr)
			fail_msg("seed %llu round %u: full at %lu pages of %lu",
				 (unsigned long long)e.seed, round,
				 upc_arena_charged(e.arena), e.nr);
		assert_int_equal(arena_priv(e.arena)->frontier, e.nr);
		assert_arena_ok(e.arena);
		shuffle(e.folios, n, &e.rnd);
		put_all(e.folios, n, &e.map);
		assert_int_equal(upc_arena_charged(e.arena), 0);
		assert_arena_ok(e.arena);
	}
	fill_env_fini(&e);
}

/*
 * A cache holds up to UPC_PCP_HIGH pages and gives back UPC_PCP_BATCH
 * only once a free takes it past that mark; what it gives back are its
 * coldest pages (the first freed), so the page freed last is the next
 * one handed out, by upc_arena_alloc_bulk() as by a single allocation.
 */
static void test_pcp_high_mark_drains_coldest(void **state)
{
	struct upc_arena *arena = arena_new(4 * MiB);
	struct folio *folios[UPC_PCP_HIGH + 1];
	cpu_set_t saved;
	unsigned int i, pcp;
	struct folio *folio;

	(void)state;
	if (!test_pin_this_cpu(&saved)) {
		upc_arena_destroy(arena);
		skip();
	}
	pcp = (unsigned int)sched_getcpu() % UPC_PCP_LISTS;
	for (i = 0; i <= UPC_PCP_HIGH; i++) {
		folios[i] = upc_arena_alloc_folio(arena, GFP_KERNEL, 0);
		assert_non_null(folios[i]);
	}
	/* Refills came in whole batches: the cache is short of a batch. */
	assert_int_equal(arena->pcp[pcp].count, UPC_PCP_BATCH - 1);
	for (i = 0; i <= UPC_PCP_HIGH - UPC_PCP_BATCH; i++)
		folio_put(folios[i]);
	assert_int_equal(arena->pcp[pcp].count, UPC_PCP_HIGH);
	folio_put(folios[i]);
	assert_int_equal(arena->pcp[pcp].count,
			 UPC_PCP_HIGH + 1 - UPC_PCP_BATCH);
	assert_int_equal(upc_arena_alloc_bulk(arena, GFP_KERNEL, 1, &folio), 1);
	assert_ptr_equal(folio, folios[i]);
	folio_put(folio);
	folio = upc_arena_alloc_folio(arena, GFP_KERNEL, 0);
	assert_ptr_equal(folio, folios[i]);
	folio_put(folio);
	put_all(folios + i + 1, UPC_PCP_HIGH - i, NULL);
	assert_arena_ok(arena);
	assert_true(test_unpin(&saved));
	arena_fini(arena);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_destroy),
		cmocka_unit_test(test_create_einval),
		cmocka_unit_test(test_create_max_size),
		cmocka_unit_test(test_create_enomem),
		cmocka_unit_test(test_set_limit_einval),
		cmocka_unit_test(test_alloc_every_order),
		cmocka_unit_test(test_alloc_bad_args),
		cmocka_unit_test(test_fill_huge_small_huge),
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_reclaim_progress),
		cmocka_unit_test(test_reclaim_no_progress),
		cmocka_unit_test(test_reclaim_noretry_progress),
		cmocka_unit_test(test_reclaim_nowait),
		cmocka_unit_test(test_reclaim_merges),
		cmocka_unit_test(test_reclaim_fragmented_once),
		cmocka_unit_test(test_reclaim_larger_than_limit),
		cmocka_unit_test(test_check_catches_corruption),
		cmocka_unit_test(test_check_catches_each),
		cmocka_unit_test(test_check_catches_free_list_faults),
		cmocka_unit_test(test_gfp_zero),
		cmocka_unit_test(test_alloc_bulk),
		cmocka_unit_test(test_alloc_bulk_zero),
		cmocka_unit_test(test_pcp_hot_path),
		cmocka_unit_test(test_fault_injection),
		cmocka_unit_test(test_random_differential),
		cmocka_unit_test(test_large_arena_untouched),
		cmocka_unit_test(test_frontier_lists_first),
		cmocka_unit_test(test_fill_random_orders),
		cmocka_unit_test(test_pcp_high_mark_drains_coldest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
