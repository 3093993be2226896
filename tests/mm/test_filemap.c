// SPDX-License-Identifier: MIT
/*
 * tests/mm/test_filemap.c - unit tests of the page cache API
 * (include/upcache/filemap.h), one function or flag at a time: setting
 * up, adding, single lookups with every FGP flag, and grabbing.  Batch
 * lookups, removal, truncation and tags are in test_filemap_batch.c.
 *
 * Every test builds a mapping on a fresh arena (filemap_helpers.h),
 * checks the mapping with upc_check_mapping() after each operation that
 * changes it, and ends with fm_fini(), which truncates everything and
 * asserts that no page is still charged to the arena and no XArray node
 * was leaked.  References are counted exactly: the cache holds one per
 * page of a folio, a lookup adds one.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "filemap_helpers.h"

/* ---- address_space_init, filemap_alloc_folio, batches ----------------- */

static void test_address_space_init(void **state)
{
	static const struct address_space_operations ops;
	struct address_space other;
	struct fm_env env;

	(void)state;
	fm_init(&env, FM_LARGE | (1UL << AS_UNEVICTABLE));
	assert_ptr_equal(env.mapping.arena, env.arena);
	assert_null(env.mapping.a_ops);
	assert_int_equal(env.mapping.nrpages, 0);
	assert_int_equal(env.mapping.flags, FM_LARGE | (1UL << AS_UNEVICTABLE));
	assert_int_equal(env.mapping.size, 0);
	assert_null(env.mapping.host);
	assert_true(xa_empty(&env.mapping.i_pages));
	assert_true(mapping_large_folio_support(&env.mapping));
	assert_mapping_ok(&env.mapping);

	/* Whatever was in the memory before is gone. */
	memset(&other, 0xa5, sizeof(other));
	address_space_init(&other, env.arena, &ops, 0);
	assert_ptr_equal(other.a_ops, &ops);
	assert_int_equal(other.nrpages, 0);
	assert_int_equal(other.size, 0);
	assert_null(other.host);
	assert_true(xa_empty(&other.i_pages));
	assert_false(mapping_large_folio_support(&other));
	assert_mapping_ok(&other);
	fm_fini(&env);
}

static void test_alloc_folio_and_batch(void **state)
{
	struct folio *folios[FOLIO_BATCH_SIZE + 1];
	struct folio_batch fbatch;
	struct fm_env env;
	unsigned int i;

	(void)state;
	fm_init(&env, 0);
	assert_null(filemap_alloc_folio(&env.mapping, GFP_KERNEL,
					UPC_MAX_ORDER + 1));
	folios[0] = filemap_alloc_folio(&env.mapping, GFP_KERNEL, 3);
	assert_non_null(folios[0]);
	assert_int_equal(folio_order(folios[0]), 3);
	assert_ptr_equal(folios[0]->arena, env.arena);
	assert_null(folios[0]->mapping);
	assert_int_equal(folio_ref_count(folios[0]), 1);
	assert_int_equal(upc_arena_charged(env.arena), 8);
	folio_put(folios[0]);
	assert_int_equal(upc_arena_charged(env.arena), 0);

	folio_batch_init(&fbatch);
	assert_int_equal(folio_batch_count(&fbatch), 0);
	assert_int_equal(folio_batch_space(&fbatch), FOLIO_BATCH_SIZE);
	assert_null(folio_batch_next(&fbatch));
	for (i = 0; i < FOLIO_BATCH_SIZE; i++) {
		folios[i] = filemap_alloc_folio(&env.mapping, GFP_KERNEL, 0);
		assert_non_null(folios[i]);
		assert_int_equal(folio_batch_add(&fbatch, folios[i]),
				 FOLIO_BATCH_SIZE - i - 1);
	}
	for (i = 0; i < FOLIO_BATCH_SIZE; i++)
		assert_ptr_equal(folio_batch_next(&fbatch), folios[i]);
	assert_null(folio_batch_next(&fbatch));
	folio_batch_release(&fbatch);
	assert_int_equal(folio_batch_count(&fbatch), 0);
	assert_int_equal(upc_arena_charged(env.arena), 0);
	fm_fini(&env);
}

/* ---- adding -------------------------------------------------------------- */

static void test_add_folio(void **state)
{
	struct folio *folio, *other, *large, *big;
	struct address_space *m;
	struct fm_env env;
	void *shadow;
	pgoff_t i;

	(void)state;
	m = fm_init(&env, FM_LARGE);

	folio = fm_alloc(&env, 0);
	assert_int_equal(filemap_add_folio(m, folio, 5, GFP_KERNEL), 0);
	assert_int_equal(m->nrpages, 1);
	assert_ptr_equal(folio->mapping, m);
	assert_int_equal(folio->index, 5);
	assert_int_equal(folio_ref_count(folio), 2);
	assert_true(folio_test_locked(folio));
	assert_ptr_equal(xa_load(&m->i_pages, 5), folio);
	assert_null(xa_load(&m->i_pages, 4));
	assert_null(xa_load(&m->i_pages, 6));
	assert_mapping_ok(m);

	/* Another folio at the same index. */
	other = fm_alloc(&env, 0);
	assert_int_equal(filemap_add_folio(m, other, 5, GFP_KERNEL), -EEXIST);
	assert_null(other->mapping);
	assert_int_equal(folio_ref_count(other), 1);
	assert_int_equal(m->nrpages, 1);
	assert_ptr_equal(xa_load(&m->i_pages, 5), folio);
	assert_mapping_ok(m);

	/* Into an empty slot: no shadow handed back. */
	shadow = (void *)0x1234;
	assert_int_equal(__filemap_add_folio(m, other, 6, GFP_KERNEL, &shadow),
			 0);
	assert_null(shadow);
	assert_int_equal(m->nrpages, 2);
	assert_int_equal(folio_ref_count(other), 2);

	/* A folio already in a mapping. */
	assert_int_equal(filemap_add_folio(m, folio, 100, GFP_KERNEL), -EINVAL);
	assert_ptr_equal(folio->mapping, m);
	assert_int_equal(folio->index, 5);
	assert_int_equal(folio_ref_count(folio), 2);
	assert_null(xa_load(&m->i_pages, 100));

	/* Unaligned large folios. */
	large = fm_alloc(&env, 2);
	assert_int_equal(filemap_add_folio(m, large, 6, GFP_KERNEL), -EINVAL);
	assert_int_equal(filemap_add_folio(m, large, 18, GFP_KERNEL), -EINVAL);
	assert_null(large->mapping);
	assert_int_equal(folio_ref_count(large), 1);
	assert_int_equal(m->nrpages, 2);
	assert_mapping_ok(m);

	/* Aligned: one reference per page, every index finds it. */
	assert_int_equal(filemap_add_folio(m, large, 16, GFP_KERNEL), 0);
	assert_int_equal(m->nrpages, 6);
	assert_int_equal(folio_ref_count(large), 5);
	fm_assert_entry(m, 16, 19, large, 2);
	assert_null(xa_load(&m->i_pages, 15));
	assert_null(xa_load(&m->i_pages, 20));
	assert_mapping_ok(m);

	/* Anything overlapping a cached folio is refused. */
	big = fm_alloc(&env, 0);
	assert_int_equal(filemap_add_folio(m, big, 18, GFP_KERNEL), -EEXIST);
	fm_unlock_put(big);
	big = fm_alloc(&env, 3);
	assert_int_equal(filemap_add_folio(m, big, 16, GFP_KERNEL), -EEXIST);
	fm_unlock_put(big);
	big = fm_alloc(&env, 5);
	assert_int_equal(filemap_add_folio(m, big, 0, GFP_KERNEL), -EEXIST);
	assert_null(big->mapping);
	assert_int_equal(folio_ref_count(big), 1);
	fm_unlock_put(big);
	big = fm_alloc(&env, 9);
	assert_int_equal(filemap_add_folio(m, big, 0, GFP_KERNEL), -EEXIST);
	assert_int_equal(m->nrpages, 6);
	for (i = 0; i < 32; i++)
		if (i != 5 && i != 6 && (i < 16 || i > 19))
			assert_null(xa_load(&m->i_pages, i));
	assert_mapping_ok(m);

	/* An order-9 folio where there is room. */
	assert_int_equal(filemap_add_folio(m, big, 512, GFP_KERNEL), 0);
	assert_int_equal(m->nrpages, 6 + 512);
	assert_int_equal(folio_ref_count(big), 513);
	fm_assert_entry(m, 512, 1023, big, 9);
	assert_mapping_ok(m);

	fm_unlock_put_all((struct folio *[]){ folio, other, large, big }, 4);
	assert_int_equal(folio_ref_count(big), 512);
	fm_fini(&env);
}

/*
 * add_in_shadow() - Store shadow @id of order @sorder at @sindex, then
 * __filemap_add_folio() a new folio of @order at @index inside it: the add
 * succeeds and hands the shadow back, every index of the folio finds it,
 * and the rest of the shadow's range is left as the buddy pieces around
 * it (fm_assert_cut_shadow()).
 * Return: the folio, locked, with the caller's reference.
 */
static struct folio *add_in_shadow(struct fm_env *env, pgoff_t sindex,
				   unsigned int sorder, unsigned long id,
				   pgoff_t index, unsigned int order)
{
	struct address_space *m = &env->mapping;
	pgoff_t last = index + (1UL << order) - 1;
	struct folio *folio;
	void *shadow;

	fm_put_shadow(env, sindex, sorder, id);
	folio = fm_alloc(env, order);
	assert_int_equal(__filemap_add_folio(m, folio, index, GFP_KERNEL,
					     &shadow), 0);
	assert_ptr_equal(shadow, fm_shadow(id));
	fm_assert_entry(m, index, last, folio, order);
	fm_assert_cut_shadow(m, sindex, sorder, index, order, fm_shadow(id));
	return folio;
}

/*
 * A folio may end exactly at MAX_PAGECACHE_INDEX; one page further is
 * -EFBIG, and a refused folio is left as it was.
 */
static void test_add_folio_index_limit(void **state)
{
	struct folio *small, *large, *over;
	struct address_space *m;
	struct fm_env env;

	(void)state;
	m = fm_init(&env, FM_LARGE);

	small = fm_alloc(&env, 0);
	assert_int_equal(filemap_add_folio(m, small, MAX_PAGECACHE_INDEX - 4,
					   GFP_KERNEL), 0);
	large = fm_alloc(&env, 2);
	assert_int_equal(filemap_add_folio(m, large, MAX_PAGECACHE_INDEX - 3,
					   GFP_KERNEL), 0);
	over = fm_alloc(&env, 2);
	assert_int_equal(filemap_add_folio(m, over, MAX_PAGECACHE_INDEX + 1,
					   GFP_KERNEL), -EFBIG);
	assert_null(over->mapping);
	assert_int_equal(folio_ref_count(over), 1);
	assert_int_equal(m->nrpages, 5);
	assert_ptr_equal(xa_load(&m->i_pages, MAX_PAGECACHE_INDEX - 4), small);
	assert_ptr_equal(xa_load(&m->i_pages, MAX_PAGECACHE_INDEX), large);
	assert_mapping_ok(m);
	fm_unlock_put(small);
	fm_unlock_put(large);
	fm_unlock_put(over);
	fm_fini(&env);
}

static void test_add_over_shadows(void **state)
{
	struct folio *folio;
	struct address_space *m;
	struct fm_env env;
	void *shadow;

	(void)state;
	m = fm_init(&env, FM_LARGE);

	/* An order-0 shadow is replaced and handed back. */
	fm_put_shadow(&env, 7, 0, 70);
	folio = fm_alloc(&env, 0);
	assert_int_equal(__filemap_add_folio(m, folio, 7, GFP_KERNEL, &shadow),
			 0);
	assert_ptr_equal(shadow, fm_shadow(70));
	assert_ptr_equal(xa_load(&m->i_pages, 7), folio);
	assert_int_equal(m->nrpages, 1);
	assert_mapping_ok(m);
	fm_unlock_put(folio);

	/* filemap_add_folio() replaces a shadow too. */
	fm_put_shadow(&env, 8, 0, 80);
	fm_add(&env, 8, 0);
	assert_mapping_ok(m);

	/* An order-0 folio in an order-9 shadow: split to order 0. */
	folio = add_in_shadow(&env, 512, 9, 99, 515, 0);
	assert_null(xa_load(&m->i_pages, 511));
	assert_null(xa_load(&m->i_pages, 1024));
	assert_int_equal(m->nrpages, 3);
	assert_mapping_ok(m);
	fm_unlock_put(folio);

	/* An order-4 folio in an order-9 shadow: the rest is order 4. */
	folio = add_in_shadow(&env, 1024, 9, 100, 1040, 4);
	assert_int_equal(m->nrpages, 3 + 16);
	assert_mapping_ok(m);
	fm_unlock_put(folio);

	/* An order-6 folio (one level up) in an order-9 shadow. */
	folio = add_in_shadow(&env, 2048, 9, 101, 2112, 6);
	assert_mapping_ok(m);
	fm_unlock_put(folio);

	/* Same order: the shadow is replaced whole, nothing to split. */
	folio = add_in_shadow(&env, 2560, 9, 102, 2560, 9);
	assert_mapping_ok(m);
	fm_unlock_put(folio);

	/* A large folio over smaller shadows replaces them all. */
	fm_put_shadow(&env, 3073, 0, 103);
	fm_put_shadow(&env, 3076, 2, 104);
	folio = fm_alloc(&env, 3);
	assert_int_equal(__filemap_add_folio(m, folio, 3072, GFP_KERNEL,
					     &shadow), 0);
	assert_true(shadow == fm_shadow(103) || shadow == fm_shadow(104));
	fm_assert_entry(m, 3072, 3079, folio, 3);
	assert_mapping_ok(m);
	fm_unlock_put(folio);

	/* A folio and a shadow in the range: -EEXIST, the shadow stays. */
	fm_put_shadow(&env, 4096, 0, 105);
	fm_add(&env, 4097, 0);
	folio = fm_alloc(&env, 1);
	shadow = NULL;
	assert_int_equal(__filemap_add_folio(m, folio, 4096, GFP_KERNEL,
					     &shadow), -EEXIST);
	assert_ptr_equal(xa_load(&m->i_pages, 4096), fm_shadow(105));
	assert_null(folio->mapping);
	assert_int_equal(folio_ref_count(folio), 1);
	assert_mapping_ok(m);
	fm_unlock_put(folio);

	fm_fini(&env);
}

/*
 * DESIGN.md ("The page cache"): the scan remembers the first shadow it
 * meets, and that is what the caller gets back.
 */
static void test_add_over_shadows_returns_first(void **state)
{
	struct folio *folio;
	struct fm_env env;
	void *shadow;

	(void)state;
	fm_init(&env, FM_LARGE);
	fm_put_shadow(&env, 3073, 0, 103);
	fm_put_shadow(&env, 3076, 2, 104);
	folio = fm_alloc(&env, 3);
	assert_int_equal(__filemap_add_folio(&env.mapping, folio, 3072,
					     GFP_KERNEL, &shadow), 0);
	fm_unlock_put(folio);
	fm_fini(&env);
	assert_ptr_equal(shadow, fm_shadow(103));
}

/* ---- lookup -------------------------------------------------------------- */

static void test_get_entry(void **state)
{
	struct folio *small, *large;
	struct address_space *m;
	struct fm_env env;
	void *entry;
	pgoff_t i;

	(void)state;
	m = fm_init(&env, FM_LARGE);
	assert_null(filemap_get_entry(m, 0));
	assert_null(filemap_get_entry(m, ULONG_MAX));

	small = fm_add(&env, 3, 0);
	large = fm_add(&env, 64, 6);
	fm_put_shadow(&env, 4, 0, 44);
	fm_put_shadow(&env, 512, 9, 55);

	entry = filemap_get_entry(m, 3);
	assert_ptr_equal(entry, small);
	assert_int_equal(folio_ref_count(small), 2);
	folio_put(small);

	for (i = 64; i < 128; i += 7) {
		entry = filemap_get_entry(m, i);
		assert_ptr_equal(entry, large);
		assert_int_equal(folio_ref_count(large), 65);
		folio_put(large);
	}
	/* Value entries come back as they are, without a reference. */
	assert_ptr_equal(filemap_get_entry(m, 4), fm_shadow(44));
	assert_ptr_equal(filemap_get_entry(m, 512), fm_shadow(55));
	assert_ptr_equal(filemap_get_entry(m, 1023), fm_shadow(55));
	assert_null(filemap_get_entry(m, 2));
	assert_null(filemap_get_entry(m, 63));
	assert_null(filemap_get_entry(m, 128));
	assert_null(filemap_get_entry(m, 1024));
	assert_int_equal(folio_ref_count(small), 1);
	assert_int_equal(folio_ref_count(large), 64);
	fm_fini(&env);
}

static void test_get_folio_flags(void **state)
{
	struct address_space *m;
	struct folio *folio, *got;
	struct fm_env env;

	(void)state;
	m = fm_init(&env, 0);

	/* Absent, or only a shadow: -ENOENT without FGP_CREAT. */
	assert_ptr_equal(filemap_get_folio(m, 3), ERR_PTR(-ENOENT));
	assert_ptr_equal(filemap_lock_folio(m, 3), ERR_PTR(-ENOENT));
	fm_put_shadow(&env, 3, 0, 33);
	assert_ptr_equal(filemap_get_folio(m, 3), ERR_PTR(-ENOENT));
	assert_ptr_equal(__filemap_get_folio(m, 3, FGP_LOCK | FGP_ACCESSED |
					     FGP_NOWAIT | FGP_STABLE, 0),
			 ERR_PTR(-ENOENT));
	assert_ptr_equal(xa_load(&m->i_pages, 3), fm_shadow(33));
	assert_int_equal(m->nrpages, 0);

	/* FGP_CREAT over the shadow, without FGP_LOCK: unlocked. */
	folio = __filemap_get_folio(m, 3, FGP_CREAT, GFP_KERNEL);
	assert_false(IS_ERR(folio));
	assert_false(folio_test_locked(folio));
	assert_false(folio_test_referenced(folio));
	assert_ptr_equal(folio->mapping, m);
	assert_int_equal(folio->index, 3);
	assert_int_equal(folio_order(folio), 0);
	assert_int_equal(folio_ref_count(folio), 2);
	assert_ptr_equal(xa_load(&m->i_pages, 3), folio);
	assert_int_equal(m->nrpages, 1);
	assert_mapping_ok(m);

	/* Found: a reference, nothing else. */
	got = filemap_get_folio(m, 3);
	assert_ptr_equal(got, folio);
	assert_int_equal(folio_ref_count(folio), 3);
	assert_false(folio_test_locked(folio));
	assert_false(folio_test_referenced(folio));
	folio_put(got);

	/* Accepted flags with no effect of their own. */
	got = __filemap_get_folio(m, 3, FGP_WRITE | FGP_NOFS | FGP_FOR_MMAP, 0);
	assert_ptr_equal(got, folio);
	assert_false(folio_test_locked(folio));
	folio_put(got);

	/* FGP_ACCESSED. */
	got = __filemap_get_folio(m, 3, FGP_ACCESSED, 0);
	assert_ptr_equal(got, folio);
	assert_true(folio_test_referenced(folio));
	assert_false(folio_test_locked(folio));
	folio_put(got);

	/* FGP_LOCK, and filemap_lock_folio(). */
	got = __filemap_get_folio(m, 3, FGP_LOCK, 0);
	assert_ptr_equal(got, folio);
	assert_true(folio_test_locked(folio));
	/* FGP_NOWAIT on a locked folio: -EAGAIN, no reference kept. */
	assert_ptr_equal(__filemap_get_folio(m, 3, FGP_LOCK | FGP_NOWAIT, 0),
			 ERR_PTR(-EAGAIN));
	assert_int_equal(folio_ref_count(folio), 3);
	/* Without FGP_LOCK, FGP_NOWAIT does not care about the lock. */
	got = __filemap_get_folio(m, 3, FGP_NOWAIT, 0);
	assert_ptr_equal(got, folio);
	folio_put(got);
	folio_unlock(folio);
	folio_put(folio);	/* the FGP_LOCK lookup's reference */
	got = filemap_lock_folio(m, 3);
	assert_ptr_equal(got, folio);
	assert_true(folio_test_locked(folio));
	fm_unlock_put(got);
	got = __filemap_get_folio(m, 3, FGP_LOCK | FGP_NOWAIT, 0);
	assert_ptr_equal(got, folio);
	assert_true(folio_test_locked(folio));
	fm_unlock_put(got);

	/* FGP_CREAT on a cached folio returns it and creates nothing. */
	got = __filemap_get_folio(m, 3, FGP_CREAT | FGP_LOCK, GFP_KERNEL);
	assert_ptr_equal(got, folio);
	assert_true(folio_test_locked(folio));
	assert_int_equal(m->nrpages, 1);
	fm_unlock_put(got);
	folio_put(folio);	/* the FGP_CREAT reference */
	assert_int_equal(folio_ref_count(folio), 1);

	/* No large folios here: an order hint is ignored. */
	got = __filemap_get_folio(m, 64, FGP_CREAT | FGP_LOCK |
				  fgf_set_order(64 * 1024), GFP_KERNEL);
	assert_false(IS_ERR(got));
	assert_int_equal(folio_order(got), 0);
	assert_int_equal(got->index, 64);
	assert_true(folio_test_locked(got));
	assert_int_equal(folio_ref_count(got), 2);
	assert_int_equal(m->nrpages, 2);
	assert_mapping_ok(m);
	fm_unlock_put(got);

	/* FGP_WRITEBEGIN creates a locked folio. */
	got = __filemap_get_folio(m, 65, FGP_WRITEBEGIN, GFP_KERNEL);
	assert_false(IS_ERR(got));
	assert_true(folio_test_locked(got));
	assert_int_equal(got->index, 65);
	fm_unlock_put(got);
	assert_mapping_ok(m);
	fm_fini(&env);
}

static void test_fgf_set_order(void **state)
{
	(void)state;
	assert_int_equal(fgf_set_order(0), 0);
	assert_int_equal(fgf_set_order(1), 0);
	assert_int_equal(fgf_set_order(UPC_PAGE_SIZE), 0);
	assert_int_equal(FGF_GET_ORDER(fgf_set_order(2 * UPC_PAGE_SIZE)), 1);
	assert_int_equal(FGF_GET_ORDER(fgf_set_order(64 * 1024)), 4);
	assert_int_equal(FGF_GET_ORDER(fgf_set_order(64 * 1024 - 1)), 3);
	assert_int_equal(FGF_GET_ORDER(fgf_set_order(UPC_HUGE_SIZE)), 9);
	assert_int_equal(FGF_GET_ORDER(fgf_set_order(2 * UPC_HUGE_SIZE)), 10);
	/* The order bits stay out of the flags'. */
	assert_int_equal(fgf_set_order(UPC_HUGE_SIZE) & 0xff, 0);
}

static void test_get_folio_create_order(void **state)
{
	const fgf_t creat = FGP_CREAT | FGP_LOCK | FGP_ACCESSED;
	struct address_space *m;
	struct folio *folio, *small;
	struct fm_env env;

	(void)state;
	m = fm_init(&env, FM_LARGE);

	/* The hint at an aligned index. */
	folio = __filemap_get_folio(m, 32, creat | fgf_set_order(64 * 1024),
				    GFP_KERNEL);
	assert_false(IS_ERR(folio));
	assert_int_equal(folio_order(folio), 4);
	assert_int_equal(folio->index, 32);
	assert_true(folio_test_locked(folio));
	assert_true(folio_test_referenced(folio));
	assert_int_equal(folio_ref_count(folio), 17);
	assert_int_equal(m->nrpages, 16);
	fm_assert_entry(m, 32, 47, folio, 4);
	assert_mapping_ok(m);
	fm_unlock_put(folio);

	/* Any index of it now finds it. */
	folio = __filemap_get_folio(m, 45, creat | fgf_set_order(64 * 1024),
				    GFP_KERNEL);
	assert_int_equal(folio->index, 32);
	assert_int_equal(m->nrpages, 16);
	fm_unlock_put(folio);

	/* An index aligned to less than the hint: the alignment decides. */
	folio = __filemap_get_folio(m, 72, creat | fgf_set_order(64 * 1024),
				    GFP_KERNEL);
	assert_int_equal(folio_order(folio), 3);
	assert_int_equal(folio->index, 72);
	fm_unlock_put(folio);
	folio = __filemap_get_folio(m, 81, creat | fgf_set_order(64 * 1024),
				    GFP_KERNEL);
	assert_int_equal(folio_order(folio), 0);
	assert_int_equal(folio->index, 81);
	fm_unlock_put(folio);
	assert_mapping_ok(m);

	/* Something cached in the way: smaller orders until one fits. */
	small = fm_add(&env, 130, 0);
	folio = __filemap_get_folio(m, 128, creat | fgf_set_order(64 * 1024),
				    GFP_KERNEL);
	assert_int_equal(folio_order(folio), 1);
	assert_int_equal(folio->index, 128);
	assert_ptr_equal(xa_load(&m->i_pages, 130), small);
	fm_unlock_put(folio);
	assert_mapping_ok(m);

	/* A shadow in the way is replaced. */
	fm_put_shadow(&env, 258, 0, 7);
	folio = __filemap_get_folio(m, 256, creat | fgf_set_order(64 * 1024),
				    GFP_KERNEL);
	assert_int_equal(folio_order(folio), 4);
	assert_int_equal(folio->index, 256);
	fm_assert_entry(m, 256, 271, folio, 4);
	fm_unlock_put(folio);

	/* Index 0, and a hint above the largest order. */
	folio = __filemap_get_folio(m, 0, creat |
				    fgf_set_order(4 * UPC_HUGE_SIZE),
				    GFP_KERNEL);
	assert_int_equal(folio_order(folio), 5);	/* 32 is cached */
	assert_int_equal(folio->index, 0);
	fm_unlock_put(folio);
	folio = __filemap_get_folio(m, 1024, creat |
				    fgf_set_order(4 * UPC_HUGE_SIZE),
				    GFP_KERNEL);
	assert_int_equal(folio_order(folio), UPC_MAX_ORDER);
	assert_int_equal(folio->index, 1024);
	fm_unlock_put(folio);

	/* No hint: order 0 even where large folios are allowed. */
	folio = __filemap_get_folio(m, 2048, creat, GFP_KERNEL);
	assert_int_equal(folio_order(folio), 0);
	fm_unlock_put(folio);
	assert_mapping_ok(m);
	fm_fini(&env);
}

static void test_get_folio_stable(void **state)
{
	struct helper_arg arg = { 0 };
	struct folio *folio, *got;
	struct fm_env env;
	pthread_t thread;

	(void)state;
	fm_init(&env, 0);
	folio = fm_add(&env, 9, 0);
	folio_lock(folio);
	folio_start_writeback(folio);
	folio_unlock(folio);
	assert_true(folio_test_writeback(folio));

	/* Without FGP_STABLE nobody waits. */
	got = filemap_get_folio(&env.mapping, 9);
	assert_ptr_equal(got, folio);
	assert_true(folio_test_writeback(folio));
	folio_put(got);

	arg.folio = folio;
	assert_int_equal(pthread_create(&thread, NULL, end_writeback_later,
					&arg), 0);
	got = __filemap_get_folio(&env.mapping, 9, FGP_STABLE, 0);
	assert_ptr_equal(got, folio);
	assert_false(folio_test_writeback(folio));
	assert_int_equal(__atomic_load_n(&arg.done, __ATOMIC_ACQUIRE), 1);
	assert_int_equal(pthread_join(thread, NULL), 0);
	assert_false(xa_get_mark(&env.mapping.i_pages, 9,
				 PAGECACHE_TAG_WRITEBACK));
	folio_put(got);
	fm_fini(&env);
}

/*
 * Replace the locked folio by another while the main thread waits for
 * its lock: the waiter must notice (L3) and find the new one.
 */
static void *replace_locked_later(void *p)
{
	struct helper_arg *arg = p;
	struct folio *old = arg->folio, *new = arg->replacement;

	sleep_ms(50);
	filemap_remove_folio(old);
	if (new)
		filemap_add_folio(arg->mapping, new, old->index, GFP_KERNEL);
	__atomic_store_n(&arg->done, 1, __ATOMIC_RELEASE);
	folio_unlock(old);
	if (new)
		folio_unlock(new);
	arg->nodes = fm_nodes_live();
	return NULL;
}

/*
 * lock_while_replaced() - Cache a new folio at @index as arg->folio, lock
 * it with an extra reference for us, and with @replace a new folio as
 * arg->replacement; then filemap_lock_folio(@index) while
 * replace_locked_later() takes arg->folio out.  Return: what
 * filemap_lock_folio() returned.
 */
static struct folio *lock_while_replaced(struct fm_env *env,
					 struct helper_arg *arg, pgoff_t index,
					 bool replace)
{
	struct folio *got;
	pthread_t thread;

	arg->mapping = &env->mapping;
	arg->folio = fm_add(env, index, 0);
	folio_get(arg->folio);
	folio_lock(arg->folio);
	if (replace)
		arg->replacement = fm_alloc(env, 0);
	arg->done = 0;
	assert_int_equal(pthread_create(&thread, NULL, replace_locked_later,
					arg), 0);
	got = filemap_lock_folio(&env->mapping, index);
	assert_int_equal(pthread_join(thread, NULL), 0);
	env->nodes0 -= arg->nodes;	/* the thread freed the node */
	return got;
}

static void test_lock_folio_truncated_meanwhile(void **state)
{
	struct helper_arg arg = { 0 };
	struct folio *folio, *got;
	struct fm_env env;

	(void)state;
	fm_init(&env, 0);

	/* Removed while we wait: -ENOENT. */
	got = lock_while_replaced(&env, &arg, 11, false);
	folio = arg.folio;
	assert_ptr_equal(got, ERR_PTR(-ENOENT));
	assert_null(folio->mapping);
	folio_put(folio);
	assert_mapping_ok(&env.mapping);

	/* Replaced while we wait: the new folio, locked. */
	got = lock_while_replaced(&env, &arg, 11, true);
	folio = arg.folio;
	assert_ptr_equal(got, arg.replacement);
	assert_true(folio_test_locked(got));
	assert_ptr_equal(got->mapping, &env.mapping);
	fm_unlock_put(got);
	folio_put(arg.replacement);
	folio_put(folio);
	assert_mapping_ok(&env.mapping);
	fm_fini(&env);
}

static void test_grab_folio(void **state)
{
	struct folio *folio, *got;
	struct fm_env env;

	(void)state;
	fm_init(&env, 0);
	folio = filemap_grab_folio(&env.mapping, 17);
	assert_false(IS_ERR(folio));
	assert_true(folio_test_locked(folio));
	assert_true(folio_test_referenced(folio));
	assert_int_equal(folio->index, 17);
	assert_ptr_equal(folio->mapping, &env.mapping);
	assert_int_equal(folio_ref_count(folio), 2);
	assert_int_equal(env.mapping.nrpages, 1);
	assert_mapping_ok(&env.mapping);
	fm_unlock_put(folio);

	/* Cached: the same folio, locked, marked accessed. */
	folio_clear_referenced(folio);
	got = filemap_grab_folio(&env.mapping, 17);
	assert_ptr_equal(got, folio);
	assert_true(folio_test_locked(got));
	assert_true(folio_test_referenced(got));
	assert_int_equal(env.mapping.nrpages, 1);
	fm_unlock_put(got);

	/* Over a shadow. */
	fm_put_shadow(&env, 18, 0, 1);
	got = filemap_grab_folio(&env.mapping, 18);
	assert_false(IS_ERR(got));
	assert_ptr_equal(xa_load(&env.mapping.i_pages, 18), got);
	fm_unlock_put(got);
	assert_mapping_ok(&env.mapping);
	fm_fini(&env);
}

/* ---- filemap_grab_folios ------------------------------------------------- */

/*
 * The folios of a grab cover @index onwards without gaps, each locked,
 * cached in @mapping with a reference for us.  Return: pages covered
 * from @index.
 */
static unsigned long check_grabbed(struct address_space *mapping,
				   pgoff_t index, struct folio **folios,
				   int nr)
{
	pgoff_t next = index;
	int i;

	assert_true(nr > 0);
	assert_true(folio_contains(folios[0], index));
	for (i = 0; i < nr; i++) {
		struct folio *folio = folios[i];

		if (i)
			assert_int_equal(folio->index, next);
		assert_true(folio_test_locked(folio));
		assert_ptr_equal(folio->mapping, mapping);
		assert_ptr_equal(xa_load(&mapping->i_pages, folio->index),
				 folio);
		assert_true(folio_ref_count(folio) >=
			    (int)folio_nr_pages(folio) + 1);
		next = folio_next_index(folio);
	}
	return next - index;
}

/*
 * grab_all() - filemap_grab_folios() of @n pages at @index returns @n
 * folios, as check_grabbed() wants them.  Return: @n.
 */
static int grab_all(struct address_space *mapping, pgoff_t index, int n,
		    struct folio **folios)
{
	int nr = filemap_grab_folios(mapping, index, n, folios);

	assert_int_equal(nr, n);
	check_grabbed(mapping, index, folios, nr);
	return nr;
}

/*
 * grab_run() - filemap_grab_folios() of @n pages at @index returns folios
 * (large ones allowed), as check_grabbed() wants them, that cover exactly
 * @n pages from @index.  Return: how many folios.
 */
static int grab_run(struct address_space *mapping, pgoff_t index,
		    unsigned long n, struct folio **folios)
{
	int nr = filemap_grab_folios(mapping, index, n, folios);

	assert_true(nr >= 1);
	assert_int_equal(check_grabbed(mapping, index, folios, nr), n);
	return nr;
}

static void test_grab_folios_invalid(void **state)
{
	struct folio *folios[FILEMAP_GRAB_MAX + 1];
	struct fm_env env;

	(void)state;
	fm_init(&env, 0);
	assert_int_equal(filemap_grab_folios(&env.mapping, 0, 0, folios),
			 -EINVAL);
	assert_int_equal(filemap_grab_folios(&env.mapping, 0,
					     FILEMAP_GRAB_MAX + 1, folios),
			 -EINVAL);
	assert_true(xa_empty(&env.mapping.i_pages));
	assert_int_equal(upc_arena_charged(env.arena), 0);
	fm_fini(&env);
}

static void test_grab_folios_missing(void **state)
{
	struct folio *folios[FILEMAP_GRAB_MAX];
	struct fm_env env;
	int nr, i;

	(void)state;
	fm_init(&env, 0);
	nr = filemap_grab_folios(&env.mapping, 100, 10, folios);
	assert_int_equal(nr, 10);
	assert_int_equal(check_grabbed(&env.mapping, 100, folios, nr), 10);
	for (i = 0; i < nr; i++) {
		assert_int_equal(folio_order(folios[i]), 0);
		assert_int_equal(folio_ref_count(folios[i]), 2);
		assert_true(folio_test_referenced(folios[i]));
	}
	assert_int_equal(env.mapping.nrpages, 10);
	assert_null(xa_load(&env.mapping.i_pages, 99));
	assert_null(xa_load(&env.mapping.i_pages, 110));
	assert_mapping_ok(&env.mapping);
	fm_unlock_put_all(folios, nr);

	/* The whole maximum, all missing. */
	nr = grab_all(&env.mapping, 4096, FILEMAP_GRAB_MAX, folios);
	assert_int_equal(env.mapping.nrpages, 10 + FILEMAP_GRAB_MAX);
	assert_mapping_ok(&env.mapping);
	fm_unlock_put_all(folios, nr);
	fm_fini(&env);
}

static void test_grab_folios_large_mapping(void **state)
{
	struct folio *folios[FILEMAP_GRAB_MAX];
	struct fm_env env;
	int nr;

	(void)state;
	fm_init(&env, FM_LARGE);

	/* An aligned run of 64 missing pages can be one folio. */
	nr = grab_run(&env.mapping, 0, 64, folios);
	assert_int_equal(env.mapping.nrpages, 64);
	assert_mapping_ok(&env.mapping);
	fm_unlock_put_all(folios, nr);

	/* Unaligned start: no folio reaches past the run. */
	nr = grab_run(&env.mapping, 1027, 13, folios);
	assert_null(xa_load(&env.mapping.i_pages, 1026));
	assert_null(xa_load(&env.mapping.i_pages, 1040));
	assert_int_equal(env.mapping.nrpages, 64 + 13);
	assert_mapping_ok(&env.mapping);
	fm_unlock_put_all(folios, nr);
	fm_fini(&env);
}

static void test_grab_folios_partly_cached(void **state)
{
	struct folio *folios[FILEMAP_GRAB_MAX];
	struct folio *c2, *c5;
	struct fm_env env;
	int nr, i;

	(void)state;
	fm_init(&env, 0);
	c2 = fm_add(&env, 2, 0);
	c5 = fm_add(&env, 5, 0);
	assert_false(folio_test_referenced(c2));
	assert_false(folio_test_referenced(c5));
	nr = grab_all(&env.mapping, 0, 8, folios);
	assert_ptr_equal(folios[2], c2);
	assert_ptr_equal(folios[5], c5);
	/* A folio found cached is used: marked accessed, as a lookup does. */
	assert_true(folio_test_referenced(c2));
	assert_true(folio_test_referenced(c5));
	for (i = 0; i < 8; i++)
		assert_int_equal(folio_ref_count(folios[i]), 2);
	assert_int_equal(env.mapping.nrpages, 8);
	assert_mapping_ok(&env.mapping);
	fm_unlock_put_all(folios, nr);

	/* Everything cached: the same folios, nothing added. */
	nr = grab_all(&env.mapping, 0, 8, folios);
	assert_ptr_equal(folios[2], c2);
	assert_int_equal(env.mapping.nrpages, 8);
	fm_unlock_put_all(folios, nr);
	fm_fini(&env);
}

static void test_grab_folios_large_cached(void **state)
{
	struct folio *folios[FILEMAP_GRAB_MAX];
	struct folio *before, *middle;
	struct fm_env env;
	int nr;

	(void)state;
	fm_init(&env, FM_LARGE);
	before = fm_add(&env, 16, 4);	/* 16..31 */
	middle = fm_add(&env, 40, 3);	/* 40..47 */

	/* Starting inside a large folio: it comes first, once. */
	nr = filemap_grab_folios(&env.mapping, 20, 30, folios);
	assert_true(nr >= 3);
	assert_int_equal(check_grabbed(&env.mapping, 20, folios, nr), 30);
	assert_ptr_equal(folios[0], before);
	assert_int_equal(folio_ref_count(before), 17);
	assert_int_equal(folio_ref_count(middle), 9);
	assert_true(folios[1] != before);
	assert_int_equal(folios[1]->index, 32);
	assert_int_equal(env.mapping.nrpages, 16 + 8 + 8 + 2);
	assert_mapping_ok(&env.mapping);
	fm_unlock_put_all(folios, nr);
	assert_int_equal(folio_ref_count(before), 16);

	/* A run entirely inside one large folio. */
	nr = filemap_grab_folios(&env.mapping, 41, 3, folios);
	assert_int_equal(nr, 1);
	assert_ptr_equal(folios[0], middle);
	assert_true(folio_test_locked(middle));
	fm_unlock_put_all(folios, nr);
	fm_fini(&env);
}

static void test_grab_folios_shadows(void **state)
{
	struct folio *folios[FILEMAP_GRAB_MAX];
	struct fm_env env;
	int nr;

	(void)state;
	fm_init(&env, 0);
	fm_put_shadow(&env, 1, 0, 11);
	fm_put_shadow(&env, 3, 0, 13);
	fm_put_shadow(&env, 512, 9, 99);

	/* Order-0 shadows are replaced. */
	nr = grab_all(&env.mapping, 0, 4, folios);
	assert_int_equal(env.mapping.nrpages, 4);
	assert_mapping_ok(&env.mapping);
	fm_unlock_put_all(folios, nr);

	/* An order-9 shadow across the run: the rest keeps the shadow. */
	nr = grab_all(&env.mapping, 510, 8, folios);
	assert_int_equal(env.mapping.nrpages, 12);
	fm_assert_entry(&env.mapping, 518, 1023, fm_shadow(99), -1);
	assert_null(xa_load(&env.mapping.i_pages, 1024));
	assert_mapping_ok(&env.mapping);
	fm_unlock_put_all(folios, nr);

	/* Deep inside what is left of it. */
	nr = grab_all(&env.mapping, 700, 100, folios);
	fm_assert_entry(&env.mapping, 518, 699, fm_shadow(99), -1);
	fm_assert_entry(&env.mapping, 800, 1023, fm_shadow(99), -1);
	assert_mapping_ok(&env.mapping);
	fm_unlock_put_all(folios, nr);
	fm_fini(&env);
}

static void test_grab_folios_large_shadows(void **state)
{
	struct folio *folios[FILEMAP_GRAB_MAX];
	struct fm_env env;
	int nr;

	(void)state;
	fm_init(&env, FM_LARGE);
	fm_put_shadow(&env, 0, 9, 9);
	fm_put_shadow(&env, 1024, 0, 10);

	/* Large new folios where a larger shadow is split. */
	nr = grab_run(&env.mapping, 64, 128, folios);
	fm_assert_entry(&env.mapping, 0, 63, fm_shadow(9), -1);
	fm_assert_entry(&env.mapping, 192, 511, fm_shadow(9), -1);
	assert_mapping_ok(&env.mapping);
	fm_unlock_put_all(folios, nr);

	/* A whole order-9 shadow replaced by the run. */
	fm_put_shadow(&env, 2048, 9, 11);
	nr = grab_run(&env.mapping, 2048, 512, folios);
	assert_mapping_ok(&env.mapping);
	fm_unlock_put_all(folios, nr);
	assert_int_equal(env.mapping.nrpages, 128 + 512);
	fm_fini(&env);
}

/* The run is cut at the largest index a file can have. */
static void test_grab_folios_index_limit(void **state)
{
	struct folio *folios[FILEMAP_GRAB_MAX];
	struct fm_env env;
	int nr;

	(void)state;
	fm_init(&env, 0);
	assert_int_equal(filemap_grab_folios(&env.mapping,
					     MAX_PAGECACHE_INDEX + 1, 1, folios),
			 -EFBIG);
	assert_int_equal(filemap_grab_folios(&env.mapping, ULONG_MAX, 1,
					     folios), -EFBIG);
	assert_ptr_equal(__filemap_get_folio(&env.mapping,
					     MAX_PAGECACHE_INDEX + 1,
					     FGP_LOCK | FGP_CREAT, GFP_KERNEL),
			 ERR_PTR(-EFBIG));
	nr = filemap_grab_folios(&env.mapping, MAX_PAGECACHE_INDEX - 1, 4,
				 folios);
	assert_int_equal(nr, 2);
	assert_int_equal(folios[0]->index, MAX_PAGECACHE_INDEX - 1);
	assert_int_equal(folios[1]->index, MAX_PAGECACHE_INDEX);
	assert_int_equal(env.mapping.nrpages, 2);
	assert_mapping_ok(&env.mapping);
	fm_unlock_put_all(folios, nr);
	/* The last bytes of the largest file: truncation reaches them. */
	truncate_inode_pages(&env.mapping,
			     (int64_t)(MAX_PAGECACHE_INDEX - 1) << UPC_PAGE_SHIFT);
	assert_int_equal(env.mapping.nrpages, 0);
	assert_mapping_ok(&env.mapping);
	fm_fini(&env);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_address_space_init),
		cmocka_unit_test(test_alloc_folio_and_batch),
		cmocka_unit_test(test_add_folio),
		cmocka_unit_test(test_add_folio_index_limit),
		cmocka_unit_test(test_add_over_shadows),
		cmocka_unit_test(test_add_over_shadows_returns_first),
		cmocka_unit_test(test_get_entry),
		cmocka_unit_test(test_get_folio_flags),
		cmocka_unit_test(test_fgf_set_order),
		cmocka_unit_test(test_get_folio_create_order),
		cmocka_unit_test(test_get_folio_stable),
		cmocka_unit_test(test_lock_folio_truncated_meanwhile),
		cmocka_unit_test(test_grab_folio),
		cmocka_unit_test(test_grab_folios_invalid),
		cmocka_unit_test(test_grab_folios_missing),
		cmocka_unit_test(test_grab_folios_large_mapping),
		cmocka_unit_test(test_grab_folios_partly_cached),
		cmocka_unit_test(test_grab_folios_large_cached),
		cmocka_unit_test(test_grab_folios_shadows),
		cmocka_unit_test(test_grab_folios_large_shadows),
		cmocka_unit_test(test_grab_folios_index_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
