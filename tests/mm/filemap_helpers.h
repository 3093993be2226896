/* SPDX-License-Identifier: MIT */
/*
 * tests/mm/filemap_helpers.h - fixtures shared by the page cache tests
 * (tests/mm/test_filemap*.c).
 *
 * A struct fm_env is one arena and one mapping on it.  fm_init() creates
 * them and notes the calling thread's XArray node counters; fm_fini()
 * truncates the whole mapping, checks it with upc_check_mapping(), and
 * asserts that nothing leaked: no page still charged to the arena, the
 * tree empty, and (for the thread that built the tree) as many nodes
 * freed as allocated.  Helpers here assert with cmocka, so they may only
 * be called from a test's main thread.
 *
 * Static functions in a header: each test program includes this once.
 */
#ifndef UPCACHE_TESTS_MM_FILEMAP_HELPERS_H
#define UPCACHE_TESTS_MM_FILEMAP_HELPERS_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <upcache/check.h>
#include <upcache/filemap.h>
#include <upcache/folio.h>
#include <upcache/rcu.h>
#include <upcache/stats.h>
#include <upcache/xarray.h>

#define FM_UNUSED	__attribute__((unused))

/* Big enough for a few dozen order-9 folios; small enough for ASan. */
#define FM_ARENA_BYTES	(64UL << 20)

#define FM_LARGE	(1UL << AS_LARGE_FOLIOS)

/**
 * struct fm_env - an arena and a mapping for one test.
 * @arena: The arena.
 * @mapping: The mapping, on @arena.
 * @nodes0: allocs - frees of this thread's XArray nodes at fm_init().
 */
struct fm_env {
	struct upc_arena *arena;
	struct address_space mapping;
	int64_t nodes0;
};

/* This thread's XArray nodes allocated and not (yet) freed. */
static FM_UNUSED int64_t fm_nodes_live(void)
{
	struct upc_thread_stats s;

	upc_stats_thread(&s);
	return (int64_t)s.xa_node_allocs - (int64_t)s.xa_node_frees;
}

/*
 * fm_init_bytes() - Set up @env with an arena of @bytes and a mapping
 * with @flags on it.  Return: &env->mapping.
 */
static FM_UNUSED struct address_space *fm_init_bytes(struct fm_env *env,
						      unsigned long flags,
						      size_t bytes)
{
	memset(env, 0, sizeof(*env));
	assert_int_equal(upc_arena_create(bytes, &env->arena), 0);
	address_space_init(&env->mapping, env->arena, NULL, flags);
	env->nodes0 = fm_nodes_live();
	return &env->mapping;
}

/* fm_init() - fm_init_bytes() with FM_ARENA_BYTES.  Return: the mapping. */
static FM_UNUSED struct address_space *fm_init(struct fm_env *env,
						unsigned long flags)
{
	return fm_init_bytes(env, flags, FM_ARENA_BYTES);
}

/* assert_mapping_ok() - upc_check_mapping() finds nothing wrong. */
#define assert_mapping_ok(mapping) \
	assert_int_equal(upc_check_mapping(mapping), 0)

/*
 * fm_fini() - Truncate everything and check that nothing leaked.  The
 * caller must have dropped every reference it holds and unlocked every
 * folio.
 */
static FM_UNUSED void fm_fini(struct fm_env *env)
{
	struct address_space *mapping = &env->mapping;

	assert_mapping_ok(mapping);
	truncate_inode_pages(mapping, 0);
	assert_mapping_ok(mapping);
	assert_int_equal(mapping->nrpages, 0);
	assert_true(xa_empty(&mapping->i_pages));
	assert_int_equal(upc_arena_charged(env->arena), 0);
	assert_int_equal(fm_nodes_live() - env->nodes0, 0);
	upc_arena_destroy(env->arena);
	env->arena = NULL;
}

/* fm_alloc() - A new locked folio of @order with one reference. */
static FM_UNUSED struct folio *fm_alloc(struct fm_env *env,
					unsigned int order)
{
	struct folio *folio = filemap_alloc_folio(&env->mapping, GFP_KERNEL,
						  order);

	assert_non_null(folio);
	assert_int_equal(folio_order(folio), order);
	assert_true(folio_trylock(folio));
	return folio;
}

/* fm_unlock_put() - Unlock @folio and drop a reference to it. */
static FM_UNUSED void fm_unlock_put(struct folio *folio)
{
	folio_unlock(folio);
	folio_put(folio);
}

/*
 * fm_add() - Cache a new uptodate folio of @order at @index and drop the
 * caller's reference: the cache holds the only ones.
 */
static FM_UNUSED struct folio *fm_add(struct fm_env *env, pgoff_t index,
				      unsigned int order)
{
	struct folio *folio = fm_alloc(env, order);

	folio_set_uptodate(folio);
	assert_int_equal(filemap_add_folio(&env->mapping, folio, index,
					   GFP_KERNEL), 0);
	fm_unlock_put(folio);
	assert_int_equal(folio_ref_count(folio), (int)folio_nr_pages(folio));
	return folio;
}

/* fm_add_range() - Order-0 folios at every index of [first, last]. */
static FM_UNUSED void fm_add_range(struct fm_env *env, pgoff_t first,
				   pgoff_t last)
{
	pgoff_t i;

	for (i = first; i <= last; i++)
		fm_add(env, i, 0);
}

/*
 * fm_store_entry() - Store @entry (a value, or NULL) as one entry of
 * @order at @index, whatever is there.  For setting up shadows.
 */
static FM_UNUSED void fm_store_entry(struct address_space *mapping,
				     pgoff_t index, unsigned int order,
				     void *entry)
{
	XA_STATE_ORDER(xas, &mapping->i_pages, index, order);

	do {
		xas_lock(&xas);
		xas_store(&xas, entry);
		xas_unlock(&xas);
	} while (xas_nomem(&xas, GFP_KERNEL));
	assert_int_equal(xas_error(&xas), 0);
}

/* fm_shadow() - A shadow entry with an id. */
static FM_UNUSED void *fm_shadow(unsigned long id)
{
	return xa_mk_value(id);
}

/* fm_put_shadow() - Store a shadow of @order at @index. */
static FM_UNUSED void fm_put_shadow(struct fm_env *env, pgoff_t index,
				    unsigned int order, unsigned long id)
{
	fm_store_entry(&env->mapping, index, order, fm_shadow(id));
}

/*
 * fm_assert_entry() - Every index of [first, last] loads @entry from an
 * entry of @order (order < 0: any order).
 */
static FM_UNUSED void fm_assert_entry(struct address_space *mapping,
				      pgoff_t first, pgoff_t last,
				      void *entry, int order)
{
	pgoff_t i;

	for (i = first; ; i++) {
		assert_ptr_equal(xa_load(&mapping->i_pages, i), entry);
		if (order >= 0 && entry)
			assert_int_equal(xa_get_order(&mapping->i_pages, i),
					 order);
		if (i == last)
			break;
	}
}

/*
 * fm_assert_cut_shadow() - After a folio of @order was added at @index
 * inside a shadow @entry of @sorder at @sindex: the add cuts out only the
 * folio's piece, so every other index of the old range loads @entry from
 * the buddy piece it falls in, whose order is the highest bit in which
 * the index differs from @index.
 */
static FM_UNUSED void fm_assert_cut_shadow(struct address_space *mapping,
					   pgoff_t sindex, unsigned int sorder,
					   pgoff_t index, unsigned int order,
					   void *entry)
{
	pgoff_t i, last = sindex + (1UL << sorder) - 1;

	for (i = sindex; ; i++) {
		if ((i ^ index) >> order) {
			assert_ptr_equal(xa_load(&mapping->i_pages, i), entry);
			assert_int_equal(xa_get_order(&mapping->i_pages, i),
					 63 - __builtin_clzl(i ^ index));
		}
		if (i == last)
			break;
	}
}

/* fm_lookup() - filemap_get_entry() that drops the reference it got. */
static FM_UNUSED void *fm_lookup(struct address_space *mapping,
				 pgoff_t index)
{
	void *entry = filemap_get_entry(mapping, index);

	if (entry && !xa_is_value(entry))
		folio_put(entry);
	return entry;
}

/* fm_remove() - Take a cached folio out (no shadow); the folio may go. */
static FM_UNUSED void fm_remove(struct folio *folio)
{
	folio_get(folio);
	folio_lock(folio);
	filemap_remove_folio(folio);
	fm_unlock_put(folio);
}

/* fm_remove_shadow() - Take a cached folio out, leaving @shadow. */
static FM_UNUSED void fm_remove_shadow(struct folio *folio, void *shadow)
{
	struct address_space *mapping = folio->mapping;

	folio_get(folio);
	folio_lock(folio);
	xa_lock(&mapping->i_pages);
	__filemap_remove_folio(folio, shadow);
	xa_unlock(&mapping->i_pages);
	fm_unlock_put(folio);
}

/* fm_unlock_put_all() - fm_unlock_put() each of @nr folios. */
static FM_UNUSED void fm_unlock_put_all(struct folio **folios, int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		fm_unlock_put(folios[i]);
}

/* sleep_ms() - Sleep for @ms milliseconds. */
static FM_UNUSED void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

/* Expect @fbatch to hold exactly @nr folios, @want[i] at position i. */
static FM_UNUSED void assert_batch(const struct folio_batch *fbatch,
				   struct folio *const *want, unsigned int nr)
{
	unsigned int i;

	assert_int_equal(folio_batch_count(fbatch), nr);
	for (i = 0; i < nr; i++)
		assert_ptr_equal(fbatch->folios[i], want[i]);
}

/* Every byte of [p + from, p + to) equals @c. */
static FM_UNUSED void assert_bytes(const void *p, size_t from, size_t to,
				   int c)
{
	const unsigned char *b = p;
	size_t i;

	for (i = from; i < to; i++)
		if (b[i] != (unsigned char)c) {
			fprintf(stderr, "byte %zu is %#x, expected %#x\n", i,
				b[i], (unsigned char)c);
			fail();
		}
}

/* For helper threads of the tests. */
struct helper_arg {
	struct address_space *mapping;
	struct folio *folio;
	struct folio *replacement;
	int done;
	int64_t nodes;	/* the thread's XArray nodes allocs - frees */
};

/* Wait a little, note it, and end the writeback of arg->folio. */
static FM_UNUSED void *end_writeback_later(void *p)
{
	struct helper_arg *arg = p;

	sleep_ms(50);
	__atomic_store_n(&arg->done, 1, __ATOMIC_RELEASE);
	folio_end_writeback(arg->folio);
	return NULL;
}

#endif /* UPCACHE_TESTS_MM_FILEMAP_HELPERS_H */
