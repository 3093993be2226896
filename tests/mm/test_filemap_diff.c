// SPDX-License-Identifier: MIT
/*
 * tests/mm/test_filemap_diff.c - a seeded differential test of the page
 * cache's lookups and batches against a model.
 *
 * The model is an array with one record per page index of a small file
 * (DIFF_PAGES pages): empty, a folio (pointer, order, first index, dirty)
 * or a shadow (value, order, first index).  Random operations change the
 * real mapping and the model in step: adds of folios of orders 0..9 (over
 * holes, shadows and larger shadows, which are split), removals with and
 * without a shadow, byte-range truncations, grabs of runs, batch
 * deletions, invalidations and dirty marking.  After each operation one
 * random lookup or batch (filemap_get_entry(), filemap_get_folios(),
 * _contig(), _tag(), filemap_get_read_batch(), find_get_entries(),
 * find_lock_entries(), xa_get_order()) is compared with what the model
 * says it must return, including how *start moves; every so often the
 * whole tree is compared and upc_check_mapping() runs.
 *
 * What the model does not decide, it accepts in any allowed form and then
 * learns from the tree: which of several replaced shadows an add hands
 * back, and the orders of the pieces left when filemap_grab_folios()
 * splits a larger shadow (the values of those pieces are still checked).
 *
 * UPC_DIFF_OPS sets the number of operations (default 200000); UPC_SEED
 * replays a run.  A failure prints the seed, the operation number and
 * the operation.
 */
#include <stdlib.h>

#include "filemap_helpers.h"
#include "rand.h"

#define DIFF_PAGES	4096UL
#define DIFF_VERIFY	512	/* full comparison every this many ops */
#define DIFF_CHECK	64	/* upc_check_mapping() every this many ops */

#define DIFF_OPS_DEFAULT	200000UL

enum { M_NONE, M_FOLIO, M_SHADOW };

/* The entry covering one index. */
struct ment {
	uint8_t kind;
	uint8_t order;
	bool dirty;
	pgoff_t first;
	void *entry;	/* the folio, or the shadow value */
};

struct diff {
	struct fm_env env;
	struct address_space *m;
	struct upc_rand rnd;
	uint64_t seed;
	unsigned long op;
	char what[160];
	unsigned long next_shadow;
	unsigned long added, refused, split, grabbed, pages;
	struct ment model[DIFF_PAGES];
	struct folio *grab[FILEMAP_GRAB_MAX];
};

static struct diff *d;

static char diff_msg[512];

#define diff_fail(...)							\
	do {								\
		int at_ = snprintf(diff_msg, sizeof(diff_msg),		\
				   "UPC_SEED=%llu op %lu (%s): ",	\
				   (unsigned long long)d->seed, d->op,	\
				   d->what);				\
		snprintf(diff_msg + at_, sizeof(diff_msg) - at_,	\
			 __VA_ARGS__);					\
		fail_msg("%s", diff_msg);				\
	} while (0)

#define diff_expect(cond, ...)						\
	do {								\
		if (!(cond))						\
			diff_fail(__VA_ARGS__);				\
	} while (0)

/* ---- the model ---------------------------------------------------------- */

static const struct ment none_entry;

static const struct ment *mget(pgoff_t index)
{
	return index < DIFF_PAGES ? &d->model[index] : &none_entry;
}

static void mset(pgoff_t first, unsigned int order, int kind, void *entry,
		 bool dirty)
{
	pgoff_t i;

	for (i = first; i < first + (1UL << order); i++) {
		d->model[i].kind = (uint8_t)kind;
		d->model[i].order = (uint8_t)order;
		d->model[i].first = first;
		d->model[i].entry = entry;
		d->model[i].dirty = dirty;
	}
}

static void mclear(pgoff_t first, unsigned int order)
{
	mset(first, order, M_NONE, NULL, false);
}

static unsigned long mpages(void)
{
	unsigned long nr = 0;
	pgoff_t i;

	for (i = 0; i < DIFF_PAGES; i++)
		nr += d->model[i].kind == M_FOLIO;
	return nr;
}

/*
 * mnext() - The first entry of the model from *@i to @end, holes skipped;
 * it may start before *@i.  *@i moves past it.  Return: NULL if none.
 */
static const struct ment *mnext(pgoff_t *i, pgoff_t end)
{
	while (*i < DIFF_PAGES && *i <= end) {
		const struct ment *e = mget(*i);

		if (e->kind != M_NONE) {
			*i = e->first + (1UL << e->order);
			return e;
		}
		(*i)++;
	}
	return NULL;
}

/* A random order: mostly small, sometimes up to 9. */
static unsigned int rand_order(void)
{
	switch (upc_rand_below(&d->rnd, 8)) {
	case 0:
		return 9;
	case 1:
	case 2:
		return (unsigned int)upc_rand_below(&d->rnd, 9) + 1;
	default:
		return 0;
	}
}

static pgoff_t rand_index(void)
{
	return upc_rand_below(&d->rnd, DIFF_PAGES);
}

/* A random cached folio, or NULL. */
static const struct ment *rand_folio(void)
{
	pgoff_t i, start = rand_index();

	for (i = 0; i < DIFF_PAGES; i += 7) {
		const struct ment *e = mget((start + i) % DIFF_PAGES);

		if (e->kind == M_FOLIO)
			return e;
	}
	return NULL;
}

/* ---- comparing ---------------------------------------------------------- */

/* One index: entry and order as the model says. */
static void verify_index(pgoff_t index)
{
	const struct ment *e = mget(index);
	void *entry = xa_load(&d->m->i_pages, index);

	diff_expect(entry == e->entry, "index %lu holds %p, model %p (kind %d)",
		    index, entry, e->entry, e->kind);
	if (e->kind != M_NONE) {
		int order = xa_get_order(&d->m->i_pages, index);

		diff_expect(order == e->order, "index %lu: order %d, model %u",
			    index, order, e->order);
	}
	if (e->kind == M_FOLIO) {
		struct folio *folio = e->entry;

		diff_expect(folio->index == e->first &&
			    folio_order(folio) == e->order,
			    "index %lu: folio %lu+%u, model %lu+%u", index,
			    folio->index, folio_order(folio), e->first,
			    e->order);
		diff_expect(xa_get_mark(&d->m->i_pages, index,
					PAGECACHE_TAG_DIRTY) == e->dirty,
			    "index %lu: dirty tag %d, model %d", index,
			    !e->dirty, e->dirty);
	}
}

static void verify_all(void)
{
	pgoff_t i;

	for (i = 0; i < DIFF_PAGES; i++)
		verify_index(i);
	diff_expect(xa_load(&d->m->i_pages, DIFF_PAGES) == NULL,
		    "something past the end");
	diff_expect(d->m->nrpages == mpages(), "nrpages %lu, model %lu",
		    d->m->nrpages, mpages());
	assert_mapping_ok(d->m);
}

/* Compare a folio batch with @want[0..nr). */
static void expect_batch(const struct folio_batch *fbatch,
			 void *const *want, unsigned int nr, const char *what)
{
	unsigned int i;

	diff_expect(folio_batch_count(fbatch) == nr, "%s: %u entries, model %u",
		    what, folio_batch_count(fbatch), nr);
	for (i = 0; i < nr; i++)
		diff_expect(fbatch->folios[i] == want[i],
			    "%s: entry %u is %p, model %p", what, i,
			    (void *)fbatch->folios[i], want[i]);
}

static void release_entries(struct folio_batch *fbatch, bool unlock)
{
	unsigned int i;

	for (i = 0; i < folio_batch_count(fbatch); i++) {
		struct folio *folio = fbatch->folios[i];

		if (xa_is_value(folio))
			continue;
		if (unlock)
			folio_unlock(folio);
		folio_put(folio);
	}
	folio_batch_init(fbatch);
}

/* A random range [*start, *end] (the end sometimes ULONG_MAX). */
static void rand_range(pgoff_t *start, pgoff_t *end)
{
	*start = rand_index();
	if (upc_rand_chance(&d->rnd, 1, 10))
		*end = ULONG_MAX;
	else
		*end = *start + upc_rand_below(&d->rnd, 700);
}

static void check_get_folios(bool tagged)
{
	void *want[FOLIO_BATCH_SIZE];
	struct folio_batch fbatch;
	pgoff_t start, end, i, got_start;
	unsigned int nr = 0;
	bool full = false;

	rand_range(&start, &end);
	for (i = start; i < DIFF_PAGES && i <= end; i++) {
		const struct ment *e = mget(i);

		if (e->kind != M_FOLIO || (i != start && e->first != i))
			continue;
		if (tagged && !e->dirty)
			continue;
		want[nr++] = e->entry;
		if (nr == FOLIO_BATCH_SIZE) {
			full = true;
			break;
		}
	}
	folio_batch_init(&fbatch);
	got_start = start;
	if (tagged)
		filemap_get_folios_tag(d->m, &got_start, end,
				       PAGECACHE_TAG_DIRTY, &fbatch);
	else
		filemap_get_folios(d->m, &got_start, end, &fbatch);
	expect_batch(&fbatch, want, nr, tagged ? "get_folios_tag" :
		     "get_folios");
	if (full)
		i = folio_next_index(want[nr - 1]);
	else
		i = end == ULONG_MAX ? end : end + 1;
	diff_expect(got_start == i,
		    "get_folios(%lu, %lu): start %lu, model %lu", start, end,
		    got_start, i);
	folio_batch_release(&fbatch);
}

/* filemap_get_folios_contig() or filemap_get_read_batch(). */
static void check_contig(bool read)
{
	void *want[FOLIO_BATCH_SIZE];
	struct folio_batch fbatch;
	pgoff_t start, end, i, got_start;
	unsigned int nr = 0;

	rand_range(&start, &end);
	if (upc_rand_chance(&d->rnd, 1, 3))
		end = start + upc_rand_below(&d->rnd, 8);
	for (i = start; i <= end; ) {
		const struct ment *e = mget(i);
		struct folio *folio = e->entry;

		if (e->kind != M_FOLIO)
			break;
		want[nr++] = folio;
		if (nr == FOLIO_BATCH_SIZE)
			break;
		if (read && !folio_test_uptodate(folio))
			break;
		i = e->first + (1UL << e->order);
		if (i - 1 >= end)
			break;
	}
	folio_batch_init(&fbatch);
	got_start = start;
	if (read)
		filemap_get_read_batch(d->m, start, end, &fbatch);
	else
		filemap_get_folios_contig(d->m, &got_start, end, &fbatch);
	expect_batch(&fbatch, want, nr, read ? "read_batch" : "contig");
	if (!read) {
		i = nr ? folio_next_index(want[nr - 1]) : start;
		diff_expect(got_start == i,
			    "contig(%lu, %lu): start %lu, model %lu", start,
			    end, got_start, i);
	}
	folio_batch_release(&fbatch);
}

/* find_get_entries() or find_lock_entries(). */
static void check_entries(bool lock)
{
	pgoff_t want_index[FOLIO_BATCH_SIZE], indices[FOLIO_BATCH_SIZE];
	void *want[FOLIO_BATCH_SIZE];
	struct folio_batch fbatch;
	pgoff_t start, end, i, got_start, next = 0;
	const struct ment *e;
	unsigned int nr = 0, k;

	rand_range(&start, &end);
	for (i = start; (e = mnext(&i, end)); ) {
		pgoff_t last = e->first + (1UL << e->order) - 1;

		if (lock && (e->first < start || last > end))
			continue;
		want[nr] = e->entry;
		want_index[nr++] = e->first;
		next = last + 1;
		if (nr == FOLIO_BATCH_SIZE)
			break;
	}
	folio_batch_init(&fbatch);
	got_start = start;
	if (lock)
		find_lock_entries(d->m, &got_start, end, &fbatch, indices);
	else
		find_get_entries(d->m, &got_start, end, &fbatch, indices);
	expect_batch(&fbatch, want, nr, lock ? "find_lock_entries" :
		     "find_get_entries");
	for (k = 0; k < nr; k++) {
		diff_expect(indices[k] == want_index[k],
			    "entries(%lu, %lu): index %u is %lu, model %lu",
			    start, end, k, indices[k], want_index[k]);
		if (lock && !xa_is_value(want[k]))
			diff_expect(folio_test_locked(want[k]),
				    "find_lock_entries: folio %u unlocked", k);
	}
	i = nr ? next : start;
	diff_expect(got_start == i, "entries(%lu, %lu): start %lu, model %lu",
		    start, end, got_start, i);
	release_entries(&fbatch, lock);
}

static void check_lookup(void)
{
	pgoff_t index = rand_index();
	void *entry;

	switch (upc_rand_below(&d->rnd, 10)) {
	case 0:
	case 1:
		entry = filemap_get_entry(d->m, index);
		diff_expect(entry == mget(index)->entry,
			    "get_entry(%lu): %p, model %p", index, entry,
			    mget(index)->entry);
		if (entry && !xa_is_value(entry))
			folio_put(entry);
		break;
	case 2:
		check_get_folios(false);
		break;
	case 3:
		check_get_folios(true);
		break;
	case 4:
		check_contig(false);
		break;
	case 5:
		check_contig(true);
		break;
	case 6:
		check_entries(false);
		break;
	case 7:
		check_entries(true);
		break;
	default:
		verify_index(index);
		break;
	}
}

/* ---- operations --------------------------------------------------------- */

static void op_add(void)
{
	unsigned int order = rand_order();
	pgoff_t first = rand_index() & ~((1UL << order) - 1);
	pgoff_t last = first + (1UL << order) - 1;
	const struct ment *cover = mget(first);
	struct folio *folio;
	void *shadow = (void *)1;
	bool exists = false, any_shadow = false;
	pgoff_t i;
	int ret;

	snprintf(d->what, sizeof(d->what), "add order %u at %lu", order, first);
	for (i = first; i <= last; i++) {
		exists |= mget(i)->kind == M_FOLIO;
		any_shadow |= mget(i)->kind == M_SHADOW;
	}
	folio = fm_alloc(&d->env, order);
	if (upc_rand_chance(&d->rnd, 7, 8))
		folio_set_uptodate(folio);
	ret = __filemap_add_folio(d->m, folio, first, GFP_KERNEL, &shadow);
	if (exists) {
		diff_expect(ret == -EEXIST, "returned %d, model -EEXIST", ret);
		diff_expect(!folio->mapping && folio_ref_count(folio) == 1,
			    "refused folio kept mapping %p refs %d",
			    (void *)folio->mapping, folio_ref_count(folio));
		d->refused++;
		fm_unlock_put(folio);
		return;
	}
	diff_expect(ret == 0, "returned %d, model 0", ret);
	if (!any_shadow) {
		diff_expect(shadow == NULL, "shadow %p, model none", shadow);
	} else {
		bool found = false;

		for (i = first; i <= last; i++)
			found |= mget(i)->kind == M_SHADOW &&
				 mget(i)->entry == shadow;
		diff_expect(found, "shadow %p is none of those replaced",
			    shadow);
	}
	/*
	 * A larger shadow is cut: the folio's piece comes out and the rest
	 * stays as the buddies along the way down, one of each order from
	 * the shadow's minus one to the folio's.
	 */
	if (cover->kind == M_SHADOW && cover->order > order) {
		unsigned int k, sorder = cover->order;
		void *value = cover->entry;

		d->split++;
		for (k = sorder; k-- > order; )
			mset(((first >> k) ^ 1) << k, k, M_SHADOW, value, false);
	}
	mset(first, order, M_FOLIO, folio, false);
	d->added++;
	fm_unlock_put(folio);
}

static void op_remove(void)
{
	const struct ment *e = rand_folio();
	struct folio *folio;
	pgoff_t first;
	unsigned int order;

	/* Large folios are met more often by index: even that out a bit. */
	if (!e || (e->order > 2 && upc_rand_chance(&d->rnd, 2, 3)))
		return;
	folio = e->entry;
	first = e->first;
	order = e->order;
	folio_get(folio);
	folio_lock(folio);
	if (upc_rand_chance(&d->rnd, 1, 2)) {
		void *shadow = fm_shadow(d->next_shadow++);

		snprintf(d->what, sizeof(d->what),
			 "remove %lu+%u leaving a shadow", first, order);
		xa_lock(&d->m->i_pages);
		__filemap_remove_folio(folio, shadow);
		xa_unlock(&d->m->i_pages);
		mset(first, order, M_SHADOW, shadow, false);
	} else {
		snprintf(d->what, sizeof(d->what), "remove %lu+%u", first,
			 order);
		filemap_remove_folio(folio);
		mclear(first, order);
	}
	diff_expect(folio->mapping == NULL, "removed folio keeps its mapping");
	folio_clear_dirty(folio);
	fm_unlock_put(folio);
}

/*
 * Truncation removes folios wholly inside the bytes and erases every
 * shadow entry that meets the pages.  (Truncating a dirty folio leaves
 * PG_dirty set, a bug that test_filemap.c reports: the model cleans the
 * folios first, so that this test keeps testing lookups.)
 */
static void op_truncate(void)
{
	int64_t lstart = (int64_t)upc_rand_below(&d->rnd, DIFF_PAGES *
						 UPC_PAGE_SIZE);
	int64_t len = upc_rand_chance(&d->rnd, 1, 8) ?
		(int64_t)upc_rand_below(&d->rnd, 600 * UPC_PAGE_SIZE) :
		(int64_t)upc_rand_below(&d->rnd, 24 * UPC_PAGE_SIZE);
	int64_t lend = upc_rand_chance(&d->rnd, 1, 64) ? -1 : lstart + len;
	pgoff_t first = (pgoff_t)lstart >> UPC_PAGE_SHIFT;
	pgoff_t last = lend < 0 ? DIFF_PAGES - 1 :
		       (pgoff_t)lend >> UPC_PAGE_SHIFT;
	const struct ment *e;
	pgoff_t i;

	snprintf(d->what, sizeof(d->what), "truncate bytes %lld..%lld",
		 (long long)lstart, (long long)lend);
	if (last >= DIFF_PAGES)
		last = DIFF_PAGES - 1;
	for (i = first; (e = mnext(&i, last)); ) {
		int64_t fbyte = (int64_t)e->first << UPC_PAGE_SHIFT;
		int64_t lbyte = fbyte - 1 +
				((int64_t)UPC_PAGE_SIZE << e->order);

		if (e->kind == M_FOLIO &&
		    (lstart > fbyte || (lend >= 0 && lbyte > lend)))
			continue;
		if (e->kind == M_FOLIO && e->dirty) {
			struct folio *folio = e->entry;

			folio_lock(folio);
			folio_clear_dirty_for_io(folio);
			folio_unlock(folio);
		}
		mclear(e->first, e->order);
	}
	truncate_inode_pages_range(d->m, lstart, lend);
}

static void op_invalidate(void)
{
	pgoff_t start = rand_index();
	pgoff_t end = start + upc_rand_below(&d->rnd, 300);
	unsigned long want = 0, got;
	const struct ment *e;
	pgoff_t i;

	snprintf(d->what, sizeof(d->what), "invalidate %lu..%lu", start, end);
	for (i = start; (e = mnext(&i, end)); ) {
		pgoff_t last = e->first + (1UL << e->order) - 1;

		if (e->first < start || last > end)
			continue;
		if (e->kind == M_FOLIO) {
			if (e->dirty)
				continue;
			want += 1UL << e->order;
		}
		mclear(e->first, e->order);
	}
	got = invalidate_mapping_pages(d->m, start, end);
	diff_expect(got == want, "invalidated %lu pages, model %lu", got, want);
}

/*
 * A grab: check the run against the model, then learn it.  Shadows only
 * partly covered by new folios have been cut up; their pieces keep the
 * value, and their orders are read back.
 */
static void op_grab(void)
{
	pgoff_t index = rand_index();
	unsigned int nr = upc_rand_chance(&d->rnd, 1, 8) ?
		(unsigned int)upc_rand_below(&d->rnd, FILEMAP_GRAB_MAX) + 1 :
		(unsigned int)upc_rand_below(&d->rnd, 64) + 1;
	pgoff_t next, lo, hi, i;
	int got, k;

	if (index + nr > DIFF_PAGES)
		nr = (unsigned int)(DIFF_PAGES - index);
	snprintf(d->what, sizeof(d->what), "grab %lu+%u", index, nr);
	got = filemap_grab_folios(d->m, index, nr, d->grab);
	diff_expect(got > 0, "grab returned %d", got);
	/* The shadows met may stretch beyond the run: learn their span. */
	lo = mget(index)->kind == M_NONE ? index : mget(index)->first;
	hi = index + nr - 1;
	if (mget(hi)->kind != M_NONE)
		hi = mget(hi)->first + (1UL << mget(hi)->order) - 1;

	next = index;
	for (k = 0; k < got; k++) {
		struct folio *folio = d->grab[k];
		const struct ment *e = mget(folio->index);

		diff_expect(k == 0 ? folio_contains(folio, index) :
			    folio->index == next,
			    "folio %d at %lu+%lu, expected at %lu", k,
			    folio->index, folio_nr_pages(folio), next);
		diff_expect(folio_test_locked(folio), "folio %d unlocked", k);
		if (e->kind == M_FOLIO) {
			diff_expect(e->entry == folio,
				    "folio %d at %lu is not the cached one", k,
				    folio->index);
		} else {
			for (i = folio->index; i < folio_next_index(folio); i++)
				diff_expect(mget(i)->kind != M_FOLIO,
					    "new folio %lu+%lu over cached %lu",
					    folio->index,
					    folio_nr_pages(folio), i);
		}
		next = folio_next_index(folio);
	}
	diff_expect(next >= index + nr, "grab covered %lu..%lu only", index,
		    next - 1);
	for (k = 0; k < got; k++) {
		struct folio *folio = d->grab[k];

		if (mget(folio->index)->kind != M_FOLIO)
			mset(folio->index, folio_order(folio), M_FOLIO, folio,
			     false);
	}
	/* Whatever else of [lo, hi] is a shadow still holds its value. */
	for (i = lo; i <= hi && i < DIFF_PAGES; i++) {
		struct ment *e = &d->model[i];
		void *entry;
		int order;

		if (e->kind != M_SHADOW)
			continue;
		entry = xa_load(&d->m->i_pages, i);
		diff_expect(entry == e->entry, "shadow at %lu now %p, was %p",
			    i, entry, e->entry);
		order = xa_get_order(&d->m->i_pages, i);
		diff_expect(order >= 0 && order <= (int)UPC_MAX_ORDER,
			    "shadow at %lu of order %d", i, order);
		e->order = (uint8_t)order;
		e->first = i & ~((1UL << order) - 1);
	}
	d->grabbed += (unsigned long)got;
	fm_unlock_put_all(d->grab, got);
}

static void op_delete_batch(void)
{
	struct folio_batch fbatch;
	pgoff_t i = rand_index();
	unsigned int want = (unsigned int)upc_rand_below(&d->rnd,
							 FOLIO_BATCH_SIZE) + 1;
	struct folio *folio;

	snprintf(d->what, sizeof(d->what), "delete batch of %u from %lu", want,
		 i);
	folio_batch_init(&fbatch);
	while (i < DIFF_PAGES && folio_batch_count(&fbatch) < want) {
		const struct ment *e = mget(i);

		if (e->kind != M_FOLIO || e->first != i) {
			i++;
			continue;
		}
		folio = e->entry;
		folio_get(folio);
		folio_lock(folio);
		folio_batch_add(&fbatch, folio);
		mclear(e->first, e->order);
		i = folio_next_index(folio);
	}
	delete_from_page_cache_batch(d->m, &fbatch);
	while ((folio = folio_batch_next(&fbatch))) {
		diff_expect(!folio->mapping, "deleted folio keeps its mapping");
		folio_clear_dirty(folio);
		fm_unlock_put(folio);
	}
}

static void op_dirty(void)
{
	const struct ment *e = rand_folio();
	struct folio *folio;
	bool was;

	if (!e)
		return;
	folio = e->entry;
	was = e->dirty;
	folio_lock(folio);
	if (upc_rand_chance(&d->rnd, 1, 2)) {
		snprintf(d->what, sizeof(d->what), "mark dirty %lu", e->first);
		diff_expect(folio_mark_dirty(folio) == !was,
			    "folio_mark_dirty() on a %s folio",
			    was ? "dirty" : "clean");
		mset(e->first, e->order, M_FOLIO, folio, true);
	} else {
		snprintf(d->what, sizeof(d->what), "clear dirty %lu", e->first);
		diff_expect(folio_clear_dirty_for_io(folio) == was,
			    "folio_clear_dirty_for_io() on a %s folio",
			    was ? "dirty" : "clean");
		mset(e->first, e->order, M_FOLIO, folio, false);
	}
	folio_unlock(folio);
}

static void diff_run(unsigned long ops)
{
	for (d->op = 0; d->op < ops; d->op++) {
		unsigned int kind = (unsigned int)upc_rand_below(&d->rnd, 100);

		if (kind < 45)
			op_add();
		else if (kind < 60)
			op_remove();
		else if (kind < 65)
			op_truncate();
		else if (kind < 72)
			op_grab();
		else if (kind < 75)
			op_delete_batch();
		else if (kind < 78)
			op_invalidate();
		else
			op_dirty();
		check_lookup();
		d->pages += d->m->nrpages;
		if (d->op % DIFF_CHECK == 0)
			assert_mapping_ok(d->m);
		if (d->op % DIFF_VERIFY == 0)
			verify_all();
	}
	snprintf(d->what, sizeof(d->what), "final check");
	verify_all();
	fprintf(stderr, "# %lu ops: %lu adds (%lu splitting a shadow), ",
		ops, d->added, d->split);
	fprintf(stderr, "%lu refused, %lu folios grabbed, ", d->refused,
		d->grabbed);
	fprintf(stderr, "%lu pages cached on average\n",
		ops ? d->pages / ops : 0);
}

static void test_filemap_diff(void **state)
{
	unsigned long ops = upc_test_diff_ops(DIFF_OPS_DEFAULT);
	pgoff_t i;

	(void)state;
	d = calloc(1, sizeof(*d));
	assert_non_null(d);
	d->seed = upc_test_seed();
	upc_rand_seed(&d->rnd, d->seed);
	fm_init(&d->env, FM_LARGE);
	d->m = &d->env.mapping;
	d->next_shadow = 1;
	strcpy(d->what, "start");
	diff_run(ops);

	/* Clean what is dirty, then the fixture checks for leaks. */
	for (i = 0; i < DIFF_PAGES; i++) {
		struct ment *e = &d->model[i];

		if (e->kind == M_FOLIO && e->dirty && e->first == i) {
			struct folio *folio = e->entry;

			folio_lock(folio);
			folio_clear_dirty_for_io(folio);
			folio_unlock(folio);
		}
	}
	fm_fini(&d->env);
	free(d);
	d = NULL;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filemap_diff),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
