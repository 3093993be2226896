// SPDX-License-Identifier: MIT
/*
 * tests/mm/test_filemap_batch.c - unit tests of the page cache's batch
 * lookups, removal, truncation, invalidation and dirty/writeback tags
 * (include/upcache/filemap.h); adding and single lookups are in
 * test_filemap.c.
 *
 * As there: a fresh arena and mapping per test, upc_check_mapping()
 * after each change, exact reference counts, and fm_fini() asserting
 * that no page or XArray node leaked.
 */
#include <pthread.h>
#include <stdlib.h>

#include "filemap_helpers.h"

/* ---- batch lookups ------------------------------------------------------- */

/*
 * The layout of the batch tests:
 *   0 A (order 0), 1 B (order 0), 2 shadow, 3 hole, 4..7 C (order 2),
 *   8..15 hole, 16..31 D (order 4), 32..39 hole, 40 E (order 0),
 *   512..1023 order-9 shadow.
 */
struct layout {
	struct fm_env env;
	struct folio *a, *b, *c, *d, *e;
};

/* layout_init() - Set up the layout.  Return: its mapping. */
static struct address_space *layout_init(struct layout *l)
{
	fm_init(&l->env, FM_LARGE);
	l->a = fm_add(&l->env, 0, 0);
	l->b = fm_add(&l->env, 1, 0);
	fm_put_shadow(&l->env, 2, 0, 2);
	l->c = fm_add(&l->env, 4, 2);
	l->d = fm_add(&l->env, 16, 4);
	l->e = fm_add(&l->env, 40, 0);
	fm_put_shadow(&l->env, 512, 9, 512);
	assert_mapping_ok(&l->env.mapping);
	return &l->env.mapping;
}

/* Every folio of the layout holds only the cache's references. */
static void layout_refs_idle(const struct layout *l)
{
	assert_int_equal(folio_ref_count(l->a), 1);
	assert_int_equal(folio_ref_count(l->b), 1);
	assert_int_equal(folio_ref_count(l->c), 4);
	assert_int_equal(folio_ref_count(l->d), 16);
	assert_int_equal(folio_ref_count(l->e), 1);
}

/* filemap_get_folios() and filemap_get_folios_contig() have this type. */
typedef unsigned int (*lookup_fn)(struct address_space *mapping,
				  pgoff_t *start, pgoff_t end,
				  struct folio_batch *fbatch);

/*
 * expect_lookup() - @lookup from @start to @end finds the @nr folios of
 * @want, in order, and moves the start to @next.  The batch is released.
 */
static void expect_lookup(lookup_fn lookup, struct address_space *m,
			  pgoff_t start, pgoff_t end, pgoff_t next,
			  struct folio *const *want, unsigned int nr)
{
	struct folio_batch fbatch;

	folio_batch_init(&fbatch);
	assert_int_equal(lookup(m, &start, end, &fbatch), nr);
	assert_batch(&fbatch, want, nr);
	assert_int_equal(start, next);
	folio_batch_release(&fbatch);
}

/* expect_none() - @lookup from @start to @end finds nothing; start @next. */
static void expect_none(lookup_fn lookup, struct address_space *m,
			pgoff_t start, pgoff_t end, pgoff_t next)
{
	struct folio_batch fbatch;

	folio_batch_init(&fbatch);
	assert_int_equal(lookup(m, &start, end, &fbatch), 0);
	assert_int_equal(start, next);
}

/*
 * expect_full_batch() - With order-0 folios cached at 3000 onwards and
 * *@start at or below 3000, @lookup to @end fills a whole batch from 3000
 * in order and moves *@start just past it.  The batch is released.
 */
static void expect_full_batch(lookup_fn lookup, struct address_space *m,
			      pgoff_t *start, pgoff_t end)
{
	struct folio_batch fbatch;
	unsigned int i;

	folio_batch_init(&fbatch);
	assert_int_equal(lookup(m, start, end, &fbatch), FOLIO_BATCH_SIZE);
	for (i = 0; i < FOLIO_BATCH_SIZE; i++)
		assert_int_equal(fbatch.folios[i]->index, 3000 + i);
	assert_int_equal(*start, 3000 + FOLIO_BATCH_SIZE);
	folio_batch_release(&fbatch);
}

/* filemap_get_folios_tag() for PAGECACHE_TAG_DIRTY, as a lookup_fn. */
static unsigned int get_dirty(struct address_space *mapping, pgoff_t *start,
			      pgoff_t end, struct folio_batch *fbatch)
{
	return filemap_get_folios_tag(mapping, start, end, PAGECACHE_TAG_DIRTY,
				      fbatch);
}

static void test_get_folios(void **state)
{
	struct address_space *m;
	struct folio_batch fbatch;
	struct layout l;
	pgoff_t start;

	(void)state;
	m = layout_init(&l);
	folio_batch_init(&fbatch);

	start = 0;
	assert_int_equal(filemap_get_folios(m, &start, 2000, &fbatch), 5);
	assert_batch(&fbatch, (struct folio *[]){ l.a, l.b, l.c, l.d, l.e }, 5);
	assert_int_equal(start, 2001);
	assert_int_equal(folio_ref_count(l.d), 17);
	folio_batch_release(&fbatch);
	layout_refs_idle(&l);

	/* Starting inside D; E exactly at the end. */
	expect_lookup(filemap_get_folios, m, 20, 40, 41,
		      (struct folio *[]){ l.d, l.e }, 2);

	/* C starts before the range, D at its end. */
	expect_lookup(filemap_get_folios, m, 5, 16, 17,
		      (struct folio *[]){ l.c, l.d }, 2);

	/* Nothing but holes and shadows. */
	expect_none(filemap_get_folios, m, 41, 1500, 1501);
	expect_none(filemap_get_folios, m, 2, 3, 4);

	/* To the end of the index space. */
	expect_lookup(filemap_get_folios, m, 1, ULONG_MAX, ULONG_MAX,
		      (struct folio *[]){ l.b, l.c, l.d, l.e }, 4);

	/* A full batch stops after its last folio. */
	fm_add_range(&l.env, 3000, 3039);
	start = 2000;
	expect_full_batch(filemap_get_folios, m, &start, 5000);
	assert_int_equal(filemap_get_folios(m, &start, 5000, &fbatch),
			 40 - FOLIO_BATCH_SIZE);
	assert_int_equal(fbatch.folios[0]->index, 3000 + FOLIO_BATCH_SIZE);
	assert_int_equal(start, 5001);
	folio_batch_release(&fbatch);
	layout_refs_idle(&l);
	fm_fini(&l.env);
}

static void test_get_folios_contig(void **state)
{
	struct folio *big, *tail[5];
	struct address_space *m;
	struct folio_batch fbatch;
	struct layout l;
	pgoff_t start;

	(void)state;
	m = layout_init(&l);
	folio_batch_init(&fbatch);

	/* Stops at the shadow at 2. */
	expect_lookup(filemap_get_folios_contig, m, 0, 100, 2,
		      (struct folio *[]){ l.a, l.b }, 2);

	/* Nothing at the start: nothing, and start unchanged. */
	expect_none(filemap_get_folios_contig, m, 2, 100, 2);
	expect_none(filemap_get_folios_contig, m, 3, 100, 3);
	expect_none(filemap_get_folios_contig, m, 600, 700, 600);

	/* Stops at the hole after C. */
	expect_lookup(filemap_get_folios_contig, m, 4, 100, 8,
		      (struct folio *[]){ l.c }, 1);

	/* Starting inside D. */
	expect_lookup(filemap_get_folios_contig, m, 20, 100, 32,
		      (struct folio *[]){ l.d }, 1);

	/* Large folios in a row; the end inside the first. */
	big = fm_add(&l.env, 2048, 9);
	tail[0] = fm_add(&l.env, 2560, 0);
	tail[1] = fm_add(&l.env, 2561, 0);
	tail[2] = fm_add(&l.env, 2562, 1);
	tail[3] = fm_add(&l.env, 2564, 2);
	tail[4] = fm_add(&l.env, 2568, 3);
	expect_lookup(filemap_get_folios_contig, m, 2048, 5000, 2576,
		      (struct folio *[]){ big, tail[0], tail[1], tail[2],
					  tail[3], tail[4] }, 6);
	expect_lookup(filemap_get_folios_contig, m, 2100, 2200, 2560,
		      (struct folio *[]){ big }, 1);
	/* The end falls on the first index of a folio: it is included. */
	start = 2560;
	assert_int_equal(filemap_get_folios_contig(m, &start, 2562,
						   &fbatch), 3);
	assert_int_equal(start, 2564);
	folio_batch_release(&fbatch);

	/* A full batch, then the rest; an end in the middle of a run. */
	fm_add_range(&l.env, 3000, 3039);
	start = 3000;
	expect_full_batch(filemap_get_folios_contig, m, &start, 5000);
	assert_int_equal(filemap_get_folios_contig(m, &start, 5000, &fbatch),
			 40 - FOLIO_BATCH_SIZE);
	assert_int_equal(start, 3040);
	folio_batch_release(&fbatch);
	start = 3000;
	assert_int_equal(filemap_get_folios_contig(m, &start, 3004,
						   &fbatch), 5);
	assert_int_equal(start, 3005);
	folio_batch_release(&fbatch);
	layout_refs_idle(&l);
	fm_fini(&l.env);
}

static void test_get_folios_tag(void **state)
{
	struct address_space *m;
	struct folio_batch fbatch;
	struct layout l;
	pgoff_t start;

	(void)state;
	m = layout_init(&l);
	folio_batch_init(&fbatch);
	assert_true(folio_mark_dirty(l.c));
	assert_true(folio_mark_dirty(l.e));
	assert_true(folio_mark_dirty(l.d));

	expect_lookup(get_dirty, m, 0, 100, 101,
		      (struct folio *[]){ l.c, l.d, l.e }, 3);
	expect_lookup(get_dirty, m, 20, 39, 40, (struct folio *[]){ l.d }, 1);

	start = 0;
	assert_int_equal(filemap_get_folios_tag(m, &start, 100,
						PAGECACHE_TAG_TOWRITE, &fbatch),
			 0);
	assert_int_equal(start, 101);
	start = 0;
	assert_int_equal(filemap_get_folios_tag(m, &start, 100, XA_PRESENT,
						&fbatch), 0);

	folio_clear_dirty_for_io(l.c);
	folio_clear_dirty_for_io(l.d);
	folio_clear_dirty_for_io(l.e);
	start = 0;
	assert_int_equal(get_dirty(m, &start, 100, &fbatch), 0);
	layout_refs_idle(&l);
	fm_fini(&l.env);
}

static void test_get_read_batch(void **state)
{
	struct folio *big, *notup;
	struct address_space *m;
	struct folio_batch fbatch;
	struct fm_env env;
	unsigned int i;

	(void)state;
	m = fm_init(&env, FM_LARGE);
	folio_batch_init(&fbatch);

	/* Stops after a folio that is not uptodate, which is included. */
	fm_add_range(&env, 1000, 1009);
	notup = xa_load(&m->i_pages, 1005);
	folio_clear_uptodate(notup);
	filemap_get_read_batch(m, 1000, 2000, &fbatch);
	assert_int_equal(folio_batch_count(&fbatch), 6);
	for (i = 0; i < 6; i++)
		assert_int_equal(fbatch.folios[i]->index, 1000 + i);
	folio_batch_release(&fbatch);
	filemap_get_read_batch(m, 1005, 2000, &fbatch);
	assert_int_equal(folio_batch_count(&fbatch), 1);
	assert_ptr_equal(fbatch.folios[0], notup);
	folio_batch_release(&fbatch);
	filemap_get_read_batch(m, 1006, 2000, &fbatch);
	assert_int_equal(folio_batch_count(&fbatch), 4);
	folio_batch_release(&fbatch);

	/* Stops at a hole, at a shadow, at max. */
	filemap_get_read_batch(m, 1010, 2000, &fbatch);
	assert_int_equal(folio_batch_count(&fbatch), 0);
	fm_put_shadow(&env, 1010, 0, 1);
	fm_add(&env, 1011, 0);
	filemap_get_read_batch(m, 1006, 2000, &fbatch);
	assert_int_equal(folio_batch_count(&fbatch), 4);
	folio_batch_release(&fbatch);
	filemap_get_read_batch(m, 1010, 2000, &fbatch);
	assert_int_equal(folio_batch_count(&fbatch), 0);
	filemap_get_read_batch(m, 1006, 1007, &fbatch);
	assert_int_equal(folio_batch_count(&fbatch), 2);
	folio_batch_release(&fbatch);

	/* A full batch. */
	fm_add_range(&env, 3000, 3039);
	filemap_get_read_batch(m, 3000, 4000, &fbatch);
	assert_int_equal(folio_batch_count(&fbatch), FOLIO_BATCH_SIZE);
	for (i = 0; i < FOLIO_BATCH_SIZE; i++)
		assert_int_equal(fbatch.folios[i]->index, 3000 + i);
	folio_batch_release(&fbatch);

	/* Starting inside a large folio, then the next one. */
	big = fm_add(&env, 4096, 9);
	fm_add(&env, 4608, 3);
	filemap_get_read_batch(m, 4200, 5000, &fbatch);
	assert_int_equal(folio_batch_count(&fbatch), 2);
	assert_ptr_equal(fbatch.folios[0], big);
	assert_int_equal(fbatch.folios[1]->index, 4608);
	folio_batch_release(&fbatch);
	assert_int_equal(folio_ref_count(big), 512);
	fm_fini(&env);
}

/* Expect @indices to start with the @nr indices of @want. */
static void assert_indices(const pgoff_t *indices, const pgoff_t *want,
			   unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		assert_int_equal(indices[i], want[i]);
}

static void test_find_get_entries(void **state)
{
	pgoff_t indices[FOLIO_BATCH_SIZE];
	struct address_space *m;
	struct folio_batch fbatch;
	struct layout l;
	unsigned int i;
	pgoff_t start;

	(void)state;
	m = layout_init(&l);
	folio_batch_init(&fbatch);

	start = 0;
	assert_int_equal(find_get_entries(m, &start, ULONG_MAX, &fbatch,
					  indices), 7);
	assert_batch(&fbatch, (struct folio *[]){ l.a, l.b, fm_shadow(2), l.c,
						  l.d, l.e, fm_shadow(512) },
		     7);
	assert_indices(indices, (pgoff_t[]){ 0, 1, 2, 4, 16, 40, 512 }, 7);
	assert_int_equal(start, 1024);
	assert_int_equal(folio_ref_count(l.d), 17);
	for (i = 0; i < 7; i++)
		if (!xa_is_value(fbatch.folios[i]))
			folio_put(fbatch.folios[i]);
	folio_batch_init(&fbatch);
	layout_refs_idle(&l);

	/* Entries starting before the range are reported whole. */
	start = 20;
	assert_int_equal(find_get_entries(m, &start, 600, &fbatch, indices), 3);
	assert_batch(&fbatch, (struct folio *[]){ l.d, l.e, fm_shadow(512) },
		     3);
	assert_indices(indices, (pgoff_t[]){ 16, 40, 512 }, 3);
	assert_int_equal(start, 1024);
	folio_put(l.d);
	folio_put(l.e);
	folio_batch_init(&fbatch);

	start = 700;
	assert_int_equal(find_get_entries(m, &start, 800, &fbatch, indices), 1);
	assert_ptr_equal(fbatch.folios[0], fm_shadow(512));
	assert_int_equal(indices[0], 512);
	assert_int_equal(start, 1024);
	folio_batch_init(&fbatch);

	start = 41;
	assert_int_equal(find_get_entries(m, &start, 500, &fbatch, indices), 0);

	/* A full batch of shadows. */
	for (i = 0; i < 40; i++)
		fm_put_shadow(&l.env, 3000 + i, 0, 3000 + i);
	start = 2000;
	assert_int_equal(find_get_entries(m, &start, 5000, &fbatch, indices),
			 FOLIO_BATCH_SIZE);
	for (i = 0; i < FOLIO_BATCH_SIZE; i++) {
		assert_ptr_equal(fbatch.folios[i], fm_shadow(3000 + i));
		assert_int_equal(indices[i], 3000 + i);
	}
	assert_int_equal(start, 3000 + FOLIO_BATCH_SIZE);
	folio_batch_init(&fbatch);
	layout_refs_idle(&l);
	fm_fini(&l.env);
}

static void test_find_lock_entries(void **state)
{
	pgoff_t indices[FOLIO_BATCH_SIZE];
	struct address_space *m;
	struct folio_batch fbatch;
	struct folio *wb;
	struct layout l;
	unsigned int i;
	pgoff_t start;

	(void)state;
	m = layout_init(&l);
	wb = fm_add(&l.env, 41, 0);
	folio_lock(wb);
	folio_start_writeback(wb);
	folio_unlock(wb);
	folio_batch_init(&fbatch);

	/* B is locked by us: skipped; the writeback folio too. */
	folio_lock(l.b);
	start = 0;
	assert_int_equal(find_lock_entries(m, &start, 1023, &fbatch, indices),
			 6);
	assert_batch(&fbatch, (struct folio *[]){ l.a, fm_shadow(2), l.c, l.d,
						  l.e, fm_shadow(512) }, 6);
	assert_indices(indices, (pgoff_t[]){ 0, 2, 4, 16, 40, 512 }, 6);
	assert_int_equal(start, 1024);
	for (i = 0; i < folio_batch_count(&fbatch); i++) {
		struct folio *folio = fbatch.folios[i];

		if (xa_is_value(folio))
			continue;
		assert_true(folio_test_locked(folio));
		fm_unlock_put(folio);
	}
	folio_batch_init(&fbatch);
	folio_unlock(l.b);
	assert_false(folio_test_locked(l.a));
	layout_refs_idle(&l);

	/* Entries reaching outside the range are skipped. */
	start = 20;
	assert_int_equal(find_lock_entries(m, &start, 600, &fbatch, indices),
			 1);
	assert_ptr_equal(fbatch.folios[0], l.e);
	assert_int_equal(indices[0], 40);
	assert_int_equal(start, 41);
	assert_true(folio_test_locked(l.e));
	fm_unlock_put(l.e);
	folio_batch_init(&fbatch);
	start = 5;
	assert_int_equal(find_lock_entries(m, &start, 30, &fbatch, indices), 0);
	assert_false(folio_test_locked(l.c));
	assert_false(folio_test_locked(l.d));
	layout_refs_idle(&l);

	folio_end_writeback(wb);
	fm_fini(&l.env);
}

/* ---- removal ------------------------------------------------------------- */

static void test_remove_folio(void **state)
{
	struct folio *small, *mid, *big, *keep;
	struct address_space *m;
	struct fm_env env;
	xa_mark_t mark;
	pgoff_t i;

	(void)state;
	m = fm_init(&env, FM_LARGE);
	small = fm_add(&env, 3, 0);
	keep = fm_add(&env, 4, 0);
	mid = fm_add(&env, 16, 4);
	big = fm_add(&env, 512, 9);
	assert_int_equal(m->nrpages, 2 + 16 + 512);

	/* Without a shadow. */
	folio_get(small);
	folio_lock(small);
	filemap_remove_folio(small);
	assert_null(small->mapping);
	assert_null(xa_load(&m->i_pages, 3));
	assert_int_equal(folio_ref_count(small), 1);
	assert_int_equal(m->nrpages, 1 + 16 + 512);
	assert_ptr_equal(xa_load(&m->i_pages, 4), keep);
	assert_mapping_ok(m);
	fm_unlock_put(small);

	/* With a shadow: one shadow entry of the folio's order, no tags. */
	folio_get(mid);
	folio_lock(mid);
	folio_mark_dirty(mid);
	xa_set_mark(&m->i_pages, 16, PAGECACHE_TAG_WRITEBACK);
	xa_set_mark(&m->i_pages, 16, PAGECACHE_TAG_TOWRITE);
	xa_lock(&m->i_pages);
	__filemap_remove_folio(mid, fm_shadow(16));
	xa_unlock(&m->i_pages);
	assert_null(mid->mapping);
	assert_int_equal(folio_ref_count(mid), 1);
	fm_assert_entry(m, 16, 31, fm_shadow(16), 4);
	for (i = 16; i < 32; i++)
		for (mark = XA_MARK_0; mark <= XA_MARK_MAX; mark++)
			assert_false(xa_get_mark(&m->i_pages, i, mark));
	for (mark = XA_MARK_0; mark <= XA_MARK_MAX; mark++)
		assert_false(xa_marked(&m->i_pages, mark));
	assert_int_equal(m->nrpages, 1 + 512);
	assert_mapping_ok(m);
	folio_clear_dirty(mid);
	fm_unlock_put(mid);

	/* An order-9 folio leaves one order-9 shadow. */
	fm_remove_shadow(big, fm_shadow(512));
	fm_assert_entry(m, 512, 1023, fm_shadow(512), 9);
	assert_int_equal(m->nrpages, 1);
	assert_mapping_ok(m);

	/* Removing the last page of a tree empties it. */
	fm_store_entry(m, 16, 4, NULL);
	fm_store_entry(m, 512, 9, NULL);
	fm_remove(keep);
	assert_int_equal(m->nrpages, 0);
	assert_true(xa_empty(&m->i_pages));
	fm_fini(&env);
}

static void test_delete_from_page_cache_batch(void **state)
{
	struct folio *folios[6];
	struct folio_batch fbatch;
	struct address_space *m;
	struct fm_env env;
	xa_mark_t mark;
	int i;

	(void)state;
	m = fm_init(&env, FM_LARGE);
	folios[0] = fm_add(&env, 0, 0);
	folios[1] = fm_add(&env, 1, 0);
	folios[2] = fm_add(&env, 8, 3);
	folios[3] = fm_add(&env, 64, 6);
	folios[4] = fm_add(&env, 512, 9);
	folios[5] = fm_add(&env, 5000, 0);
	fm_add(&env, 2, 0);		/* stays */
	fm_put_shadow(&env, 3, 0, 3);	/* stays */
	folio_mark_dirty(folios[1]);
	folio_mark_dirty(folios[4]);

	/* An empty batch does nothing. */
	folio_batch_init(&fbatch);
	delete_from_page_cache_batch(m, &fbatch);
	assert_int_equal(m->nrpages, 2 + 8 + 64 + 512 + 1 + 1);

	for (i = 0; i < 6; i++) {
		folio_get(folios[i]);
		folio_lock(folios[i]);
		folio_batch_add(&fbatch, folios[i]);
	}
	delete_from_page_cache_batch(m, &fbatch);
	for (i = 0; i < 6; i++) {
		assert_null(folios[i]->mapping);
		assert_int_equal(folio_ref_count(folios[i]), 1);
		assert_null(xa_load(&m->i_pages, folios[i]->index));
		assert_null(xa_load(&m->i_pages,
				    folio_next_index(folios[i]) - 1));
	}
	for (mark = XA_MARK_0; mark <= XA_MARK_MAX; mark++)
		assert_false(xa_marked(&m->i_pages, mark));
	assert_int_equal(m->nrpages, 1);
	assert_non_null(xa_load(&m->i_pages, 2));
	assert_ptr_equal(xa_load(&m->i_pages, 3), fm_shadow(3));
	assert_mapping_ok(m);
	for (i = 0; i < 6; i++) {
		folio_clear_dirty(folios[i]);
		fm_unlock_put(folios[i]);
	}
	assert_int_equal(upc_arena_charged(env.arena), 1);
	fm_fini(&env);
}

/* ---- truncation and invalidation --------------------------------------- */

static void test_truncate_range(void **state)
{
	struct folio *f0, *f1, *f2, *f3, *big;
	struct address_space *m;
	struct fm_env env;

	(void)state;
	m = fm_init(&env, FM_LARGE);
	f0 = fm_add(&env, 0, 2);	/* bytes 0..16383 */
	f1 = fm_add(&env, 4, 0);	/* 16384..20479 */
	f2 = fm_add(&env, 5, 0);	/* 20480..24575 */
	fm_put_shadow(&env, 6, 0, 6);
	fm_put_shadow(&env, 7, 0, 7);
	f3 = fm_add(&env, 8, 0);	/* 32768..36863 */
	memset(folio_address(f0), 0xaa, folio_size(f0));
	memset(folio_address(f1), 0xbb, folio_size(f1));
	memset(folio_address(f2), 0xcc, folio_size(f2));
	memset(folio_address(f3), 0xdd, folio_size(f3));
	folio_get(f0);
	folio_get(f1);
	folio_get(f2);

	/* Partial at both ends, one whole folio inside. */
	truncate_inode_pages_range(m, 5000, 20480 + 99);
	assert_ptr_equal(xa_load(&m->i_pages, 0), f0);
	assert_null(xa_load(&m->i_pages, 4));
	assert_null(f1->mapping);
	assert_ptr_equal(xa_load(&m->i_pages, 5), f2);
	assert_bytes(folio_address(f0), 0, 5000, 0xaa);
	assert_bytes(folio_address(f0), 5000, 16384, 0);
	assert_bytes(folio_address(f2), 0, 100, 0);
	assert_bytes(folio_address(f2), 100, 4096, 0xcc);
	assert_bytes(folio_address(f3), 0, 4096, 0xdd);
	assert_ptr_equal(xa_load(&m->i_pages, 6), fm_shadow(6));
	assert_ptr_equal(xa_load(&m->i_pages, 7), fm_shadow(7));
	assert_int_equal(m->nrpages, 4 + 1 + 1);
	assert_int_equal(folio_ref_count(f1), 1);
	folio_put(f1);
	assert_mapping_ok(m);

	/* Shadows inside the range are erased. */
	truncate_inode_pages_range(m, 6 * 4096, 8 * 4096 - 1);
	assert_null(xa_load(&m->i_pages, 6));
	assert_null(xa_load(&m->i_pages, 7));
	assert_ptr_equal(xa_load(&m->i_pages, 8), f3);
	assert_mapping_ok(m);

	/* An empty or negative range changes nothing. */
	truncate_inode_pages_range(m, 9000, 8999);
	truncate_inode_pages_range(m, -4096, 8192);
	assert_int_equal(m->nrpages, 6);
	assert_bytes(folio_address(f0), 0, 5000, 0xaa);

	/* To the end (-1). */
	truncate_inode_pages(m, 8192);
	assert_ptr_equal(xa_load(&m->i_pages, 0), f0);
	assert_bytes(folio_address(f0), 0, 5000, 0xaa);
	assert_bytes(folio_address(f0), 5000, 16384, 0);
	assert_null(xa_load(&m->i_pages, 5));
	assert_null(xa_load(&m->i_pages, 8));
	assert_null(f2->mapping);
	assert_int_equal(m->nrpages, 4);
	folio_put(f2);
	assert_mapping_ok(m);

	/* A large folio cut in the middle keeps its memory. */
	big = fm_add(&env, 512, 9);
	memset(folio_address(big), 0x5a, folio_size(big));
	truncate_inode_pages(m, 512 * 4096 + 300000);
	assert_ptr_equal(xa_load(&m->i_pages, 1023), big);
	assert_bytes(folio_address(big), 0, 300000, 0x5a);
	assert_bytes(folio_address(big), 300000, folio_size(big), 0);
	assert_int_equal(m->nrpages, 4 + 512);
	/* ... and goes when the range covers it. */
	fm_put_shadow(&env, 2048, 9, 2048);
	truncate_inode_pages(m, 512 * 4096);
	assert_null(xa_load(&m->i_pages, 512));
	assert_null(xa_load(&m->i_pages, 2048));
	assert_int_equal(m->nrpages, 4);
	assert_mapping_ok(m);
	folio_put(f0);
	fm_fini(&env);
}

/* A dirty folio truncated away must not stay dirty (nobody writes it). */
static void test_truncate_dirty_folio(void **state)
{
	struct folio *folio;
	struct fm_env env;
	bool dirty;

	(void)state;
	fm_init(&env, 0);
	folio = fm_add(&env, 1, 0);
	folio_mark_dirty(folio);
	folio_get(folio);
	truncate_inode_pages(&env.mapping, 0);
	assert_null(folio->mapping);
	assert_false(xa_marked(&env.mapping.i_pages, PAGECACHE_TAG_DIRTY));
	/* Clean up first: a dirty folio may not be freed. */
	dirty = folio_test_dirty(folio);
	folio_clear_dirty(folio);
	folio_put(folio);
	fm_fini(&env);
	assert_false(dirty);
}

static void test_truncate_waits_writeback(void **state)
{
	struct helper_arg arg = { 0 };
	struct folio *folio;
	struct fm_env env;
	pthread_t thread;

	(void)state;
	fm_init(&env, 0);
	folio = fm_add(&env, 1, 0);
	folio_get(folio);
	folio_lock(folio);
	folio_start_writeback(folio);
	folio_unlock(folio);
	arg.folio = folio;
	assert_int_equal(pthread_create(&thread, NULL, end_writeback_later,
					&arg), 0);
	truncate_inode_pages(&env.mapping, 0);
	assert_int_equal(__atomic_load_n(&arg.done, __ATOMIC_ACQUIRE), 1);
	assert_int_equal(pthread_join(thread, NULL), 0);
	assert_null(folio->mapping);
	assert_false(folio_test_writeback(folio));
	folio_put(folio);
	fm_fini(&env);
}

static void test_invalidate_mapping_pages(void **state)
{
	struct folio *clean, *dirty, *locked, *mapped, *wb, *c2, *edge;
	struct address_space *m;
	struct fm_env env;

	(void)state;
	m = fm_init(&env, FM_LARGE);
	clean = fm_add(&env, 0, 0);
	dirty = fm_add(&env, 1, 0);
	locked = fm_add(&env, 2, 0);
	mapped = fm_add(&env, 3, 0);
	wb = fm_add(&env, 4, 0);
	c2 = fm_add(&env, 8, 2);
	edge = fm_add(&env, 16, 4);	/* reaches past the range */
	folio_mark_dirty(dirty);
	folio_lock(locked);
	folio_get(mapped);
	folio_lock(wb);
	folio_start_writeback(wb);
	folio_unlock(wb);

	assert_int_equal(invalidate_mapping_pages(m, 0, 20), 1 + 4);
	assert_null(xa_load(&m->i_pages, 0));
	assert_null(xa_load(&m->i_pages, 8));
	assert_null(xa_load(&m->i_pages, 11));
	assert_ptr_equal(xa_load(&m->i_pages, 1), dirty);
	assert_ptr_equal(xa_load(&m->i_pages, 2), locked);
	assert_ptr_equal(xa_load(&m->i_pages, 3), mapped);
	assert_ptr_equal(xa_load(&m->i_pages, 4), wb);
	assert_ptr_equal(xa_load(&m->i_pages, 16), edge);
	assert_true(folio_test_dirty(dirty));
	assert_true(folio_test_locked(locked));
	assert_int_equal(folio_ref_count(mapped), 2);
	assert_int_equal(m->nrpages, 4 + 16);
	assert_mapping_ok(m);
	(void)clean;
	(void)c2;

	/* Nothing in the range: nothing dropped. */
	assert_int_equal(invalidate_mapping_pages(m, 100, 200), 0);

	/* Once they are all idle, everything goes. */
	folio_lock(dirty);
	folio_clear_dirty_for_io(dirty);
	folio_unlock(dirty);
	folio_unlock(locked);
	folio_put(mapped);
	folio_end_writeback(wb);
	assert_int_equal(invalidate_mapping_pages(m, 0, ULONG_MAX), 4 + 16);
	assert_int_equal(m->nrpages, 0);
	assert_mapping_ok(m);
	assert_int_equal(upc_arena_charged(env.arena), 0);
	fm_fini(&env);
}

/* ---- dirty, writeback and tags ------------------------------------------ */

static int dirty_calls;

/* A layer's hook: the generic marking, counting clean -> dirty. */
static bool count_dirty(struct address_space *mapping, struct folio *folio)
{
	bool was_clean = filemap_dirty_folio(mapping, folio);

	dirty_calls += was_clean;
	return was_clean;
}

static const struct address_space_operations count_ops = {
	.dirty_folio = count_dirty,
};

/*
 * expect_tagged() - filemap_get_folios_tag() of [0, 200] with @tag finds
 * @nr folios, @want[i] at position i.  The batch is released.
 */
static void expect_tagged(struct address_space *m, xa_mark_t tag,
			  struct folio *const *want, unsigned int nr)
{
	struct folio_batch fbatch;
	pgoff_t start = 0;
	unsigned int i;

	folio_batch_init(&fbatch);
	assert_int_equal(filemap_get_folios_tag(m, &start, 200, tag, &fbatch),
			 nr);
	for (i = 0; i < nr; i++)
		assert_ptr_equal(fbatch.folios[i], want[i]);
	folio_batch_release(&fbatch);
}

static void test_dirty_writeback_tags(void **state)
{
	struct folio *f1, *f5, *f20, *big, *loose;
	struct address_space *m;
	struct fm_env env;
	pgoff_t i;

	(void)state;
	m = fm_init(&env, FM_LARGE);
	m->a_ops = &count_ops;
	dirty_calls = 0;
	f1 = fm_add(&env, 1, 0);
	f5 = fm_add(&env, 5, 0);
	f20 = fm_add(&env, 20, 0);
	big = fm_add(&env, 64, 6);

	assert_true(folio_mark_dirty(f1));
	assert_true(folio_test_dirty(f1));
	assert_true(xa_get_mark(&m->i_pages, 1, PAGECACHE_TAG_DIRTY));
	assert_int_equal(dirty_calls, 1);
	assert_false(folio_mark_dirty(f1));
	assert_int_equal(dirty_calls, 1);
	assert_true(folio_mark_dirty(f5));
	assert_true(folio_mark_dirty(f20));
	assert_true(folio_mark_dirty(big));
	assert_int_equal(dirty_calls, 4);
	for (i = 64; i < 128; i++)
		assert_true(xa_get_mark(&m->i_pages, i, PAGECACHE_TAG_DIRTY));
	assert_false(xa_get_mark(&m->i_pages, 2, PAGECACHE_TAG_DIRTY));
	assert_mapping_ok(m);

	/* Clearing for I/O. */
	folio_lock(big);
	assert_true(folio_clear_dirty_for_io(big));
	assert_false(folio_test_dirty(big));
	assert_false(xa_get_mark(&m->i_pages, 64, PAGECACHE_TAG_DIRTY));
	assert_false(xa_get_mark(&m->i_pages, 127, PAGECACHE_TAG_DIRTY));
	assert_false(folio_clear_dirty_for_io(big));
	folio_unlock(big);

	/* Tag the dirty ones of a range for writeback. */
	tag_pages_for_writeback(m, 0, 10);
	assert_true(xa_get_mark(&m->i_pages, 1, PAGECACHE_TAG_TOWRITE));
	assert_true(xa_get_mark(&m->i_pages, 5, PAGECACHE_TAG_TOWRITE));
	assert_false(xa_get_mark(&m->i_pages, 20, PAGECACHE_TAG_TOWRITE));
	assert_false(xa_get_mark(&m->i_pages, 64, PAGECACHE_TAG_TOWRITE));

	/* Writeback of f1. */
	folio_lock(f1);
	assert_true(folio_clear_dirty_for_io(f1));
	folio_start_writeback(f1);
	folio_unlock(f1);
	assert_true(folio_test_writeback(f1));
	assert_true(xa_get_mark(&m->i_pages, 1, PAGECACHE_TAG_WRITEBACK));
	assert_false(xa_get_mark(&m->i_pages, 1, PAGECACHE_TAG_TOWRITE));
	assert_false(xa_get_mark(&m->i_pages, 1, PAGECACHE_TAG_DIRTY));
	assert_true(xa_get_mark(&m->i_pages, 5, PAGECACHE_TAG_TOWRITE));
	assert_mapping_ok(m);

	expect_tagged(m, PAGECACHE_TAG_WRITEBACK, (struct folio *[]){ f1 }, 1);
	expect_tagged(m, PAGECACHE_TAG_TOWRITE, (struct folio *[]){ f5 }, 1);
	expect_tagged(m, PAGECACHE_TAG_DIRTY, (struct folio *[]){ f5, f20 }, 2);

	folio_end_writeback(f1);
	assert_false(folio_test_writeback(f1));
	assert_false(xa_get_mark(&m->i_pages, 1, PAGECACHE_TAG_WRITEBACK));
	assert_false(xa_marked(&m->i_pages, PAGECACHE_TAG_WRITEBACK));
	folio_wait_writeback(f1);	/* returns at once */

	/* A folio that leaves takes its tags along. */
	folio_get(f20);
	folio_lock(f20);
	filemap_remove_folio(f20);
	assert_false(xa_get_mark(&m->i_pages, 20, PAGECACHE_TAG_DIRTY));
	folio_clear_dirty(f20);
	fm_unlock_put(f20);
	folio_lock(f5);
	folio_clear_dirty_for_io(f5);
	folio_start_writeback(f5);
	folio_end_writeback(f5);
	folio_unlock(f5);
	for (i = 0; i <= XA_MARK_MAX; i++)
		assert_false(xa_marked(&m->i_pages, (xa_mark_t)i));
	assert_mapping_ok(m);

	/* Accessed. */
	assert_false(folio_test_referenced(f5));
	folio_mark_accessed(f5);
	assert_true(folio_test_referenced(f5));
	folio_mark_accessed(f5);
	assert_true(folio_test_referenced(f5));

	/* A folio in no mapping: the flag only. */
	loose = fm_alloc(&env, 0);
	assert_true(folio_mark_dirty(loose));
	assert_int_equal(dirty_calls, 4);
	assert_true(folio_clear_dirty_for_io(loose));
	fm_unlock_put(loose);
	fm_fini(&env);
}

/* tag_pages_for_writeback() lets others in every 1024 folios. */
static void test_tag_pages_for_writeback_long(void **state)
{
	const pgoff_t nr = 2100;
	struct folio_batch fbatch;
	struct address_space *m;
	struct fm_env env;
	unsigned long seen = 0;
	pgoff_t start, i;

	(void)state;
	m = fm_init(&env, 0);
	for (i = 0; i < nr; i++)
		folio_mark_dirty(fm_add(&env, i * 3, 0));
	tag_pages_for_writeback(m, 0, ULONG_MAX);
	for (i = 0; i < nr; i++)
		assert_true(xa_get_mark(&m->i_pages, i * 3,
					PAGECACHE_TAG_TOWRITE));
	assert_mapping_ok(m);
	folio_batch_init(&fbatch);
	start = 0;
	while (filemap_get_folios_tag(m, &start, ULONG_MAX,
				      PAGECACHE_TAG_TOWRITE, &fbatch)) {
		for (i = 0; i < folio_batch_count(&fbatch); i++) {
			struct folio *folio = fbatch.folios[i];

			assert_int_equal(folio->index, seen * 3);
			seen++;
			folio_lock(folio);
			folio_clear_dirty_for_io(folio);
			folio_start_writeback(folio);
			folio_end_writeback(folio);
			folio_unlock(folio);
		}
		folio_batch_release(&fbatch);
		if (start == ULONG_MAX)
			break;
	}
	assert_int_equal(seen, nr);
	assert_false(xa_marked(&m->i_pages, PAGECACHE_TAG_TOWRITE));
	assert_false(xa_marked(&m->i_pages, PAGECACHE_TAG_DIRTY));
	fm_fini(&env);
}

/* ---- upc_check_mapping() itself ------------------------------------------ */

static void test_check_mapping_detects(void **state)
{
	static long not_a_folio[8] __attribute__((aligned(64)));
	struct folio *small, *large, fake;
	struct xa_node *leaf;
	struct address_space *m;
	struct fm_env env;

	(void)state;
	m = fm_init(&env, FM_LARGE);
	small = fm_add(&env, 3, 0);
	large = fm_add(&env, 8, 2);
	fm_put_shadow(&env, 20, 0, 20);
	fm_put_shadow(&env, 64, 6, 64);
	assert_mapping_ok(m);

	m->nrpages++;
	assert_int_equal(upc_check_mapping(m), -EUCLEAN);
	m->nrpages--;

	small->index = 4;
	assert_int_equal(upc_check_mapping(m), -EUCLEAN);
	small->index = 3;

	small->mapping = NULL;
	assert_int_equal(upc_check_mapping(m), -EUCLEAN);
	small->mapping = m;

	large->order = 1;
	assert_int_equal(upc_check_mapping(m), -EUCLEAN);
	large->order = 2;

	folio_get(large);
	folio_put_refs(large, 2);	/* 3 references for 4 pages */
	assert_int_equal(upc_check_mapping(m), -EUCLEAN);
	folio_ref_add(large, 1);
	assert_mapping_ok(m);

	/* A tag on a shadow. */
	xa_set_mark(&m->i_pages, 64, PAGECACHE_TAG_DIRTY);
	assert_int_equal(upc_check_mapping(m), -EUCLEAN);
	xa_clear_mark(&m->i_pages, 64, PAGECACHE_TAG_DIRTY);

	/* A folio where it does not start. */
	assert_null(xa_store(&m->i_pages, 30, small, GFP_KERNEL));
	assert_int_equal(upc_check_mapping(m), -EUCLEAN);
	xa_erase(&m->i_pages, 30);

	/* A reserved (zero) entry. */
	assert_int_equal(xa_reserve(&m->i_pages, 31, GFP_KERNEL), 0);
	assert_int_equal(upc_check_mapping(m), -EUCLEAN);
	xa_release(&m->i_pages, 31);

	/* Something that is not a folio of the arena. */
	assert_null(xa_store(&m->i_pages, 32, not_a_folio, GFP_KERNEL));
	assert_int_equal(upc_check_mapping(m), -EUCLEAN);
	xa_erase(&m->i_pages, 32);

	/* A copy of a folio, right in every field but outside the memmap. */
	fake = *small;
	fake.index = 33;
	assert_null(xa_store(&m->i_pages, 33, &fake, GFP_KERNEL));
	m->nrpages++;
	assert_int_equal(upc_check_mapping(m), -EUCLEAN);
	m->nrpages--;
	xa_erase(&m->i_pages, 33);

	/* An order that disagrees with the entry's, pages counted by it. */
	large->order = 1;
	m->nrpages -= 2;
	assert_int_equal(upc_check_mapping(m), -EUCLEAN);
	m->nrpages += 2;
	large->order = 2;

	/* A tree the XArray checker rejects is not walked as a cache. */
	leaf = xa_to_node(xa_head(&m->i_pages));
	assert_true(xa_is_node(xa_head(&m->i_pages)));
	leaf->nr_values++;
	assert_int_equal(upc_check_mapping(m), -EUCLEAN);
	leaf->nr_values--;

	assert_mapping_ok(m);
	fm_fini(&env);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_get_folios),
		cmocka_unit_test(test_get_folios_contig),
		cmocka_unit_test(test_get_folios_tag),
		cmocka_unit_test(test_get_read_batch),
		cmocka_unit_test(test_find_get_entries),
		cmocka_unit_test(test_find_lock_entries),
		cmocka_unit_test(test_remove_folio),
		cmocka_unit_test(test_delete_from_page_cache_batch),
		cmocka_unit_test(test_truncate_range),
		cmocka_unit_test(test_truncate_dirty_folio),
		cmocka_unit_test(test_truncate_waits_writeback),
		cmocka_unit_test(test_invalidate_mapping_pages),
		cmocka_unit_test(test_dirty_writeback_tags),
		cmocka_unit_test(test_tag_pages_for_writeback_long),
		cmocka_unit_test(test_check_mapping_detects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
