// SPDX-License-Identifier: MIT
/*
 * mm/filemap_grab.c - filemap_grab_folios(): get or create a run of
 * folios with one lock round trip and two walks (one of them lockless),
 * however long the run.
 *
 * Seed 004 (the guest_memfd population RFC) did this for order-0 folios
 * with a bitmap of the indices already present.  Here the run may hold
 * large folios (one starting before the first index included), shadow
 * entries (replaced, cut without waiting when larger than the new
 * folio), and the allocation may fail part-way.
 *
 *   Step 1  no lock, one RCU walk: reference the folios already cached
 *           in the run (folio_try_get() and a recheck, as every lockless
 *           lookup), skipping holes in one move each.
 *   Step 2  no lock: allocate folios for the missing stretches (large
 *           ones where the mapping allows and an aligned stretch is
 *           missing).  They are created locked.  Once the grab holds a
 *           folio that reclaim can meet, allocations wait for no one
 *           (grab_gfp()): reclaim would otherwise wait on this grab.
 *   Step 3  under the lock, one walk: insert them in index order, moving
 *           the cursor sideways; an index where a folio appeared
 *           meanwhile, or whose insertion needs memory the lock cannot
 *           wait for, is left as a gap.  After the lock, each inserted
 *           folio has its refault accounted (if it replaced a shadow)
 *           and goes on the LRU.
 *   Step 4  no lock: try to lock the folios found in step 1.  If all
 *           locks are had and there is no gap, done.
 *   Step 5  otherwise (rare): let go of every folio lock, fill the gaps
 *           one index at a time through __filemap_get_folio(), and lock
 *           every folio in index order, dropping those that left the
 *           mapping meanwhile.  A grab never sleeps on a folio lock while
 *           holding one at a higher index, so two grabs (or a grab and
 *           any index-ordered locker) cannot wait for each other.
 *
 * Bookkeeping is per segment: the run's positions are tiled by segments,
 * each a folio or a gap, recorded at its first position with its length.
 * Every pass moves from one segment to the next, so an order-9 folio
 * costs one step and so does a missing stretch of 512 indices; nothing
 * in a grab costs a step per index it does not create a folio for.
 *
 * The result is the run of folios that covers the first index onwards
 * without a gap; whatever was grabbed beyond a gap is given back, and
 * the folios this grab created there are taken out of the cache again.
 * A run left with a gap at its first index only because its folio left
 * the mapping meanwhile (a truncation) is grabbed again from the start,
 * as __filemap_get_folio() repeats its lookup: -ENOMEM means memory
 * could not be had.  A run whose first index could not be had without
 * waiting, while it held folios further on, is grabbed again for that
 * index alone.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "filemap_internal.h"
#include "internal.h"
#include "lru_internal.h"
#include "rcu_internal.h"

/* Why a grab handed nothing out, and what filemap_grab_folios() does. */
enum grab_end {
	GRAB_AGAIN,	/* the first index's folio left meanwhile: repeat */
	GRAB_ALONE,	/* no memory without waiting: repeat for one index */
	GRAB_NOMEM,	/* no memory for the first index, holding nothing */
};

/*
 * What the grab holds.  Run positions 0..nr-1 are tiled by segments; a
 * segment starting at i covers span[i] positions and is the folio
 * head[i], or a gap if head[i] is NULL.  The arrays mean something only
 * at segment starts, so they need no clearing: a new run is one gap.
 */
struct grab_run {
	struct address_space *mapping;
	pgoff_t index;
	unsigned int nr;
	unsigned int nr_created;	/* folios step 2 made */
	gfp_t gfp;		/* the caller's: GFP_KERNEL or with NORETRY */
	bool holds_cached;	/* references a folio reclaim can meet */
	enum grab_end end;	/* what a run with nothing to hand out means */
	struct folio **head;
	void **shadow;		/* what an insert replaced */
	unsigned short *span;	/* run positions it covers, from there on */
	bool *created;		/* inserted by this grab */
	bool *locked;		/* its lock held by this grab */
};

_Static_assert(FILEMAP_GRAB_MAX <= USHRT_MAX, "a span fits run->span");

/* One allocation: the run and its arrays for FILEMAP_GRAB_MAX positions. */
#define GRAB_RUN_BYTES	(sizeof(struct grab_run) + FILEMAP_GRAB_MAX * \
			 (2 * sizeof(void *) + sizeof(unsigned short) + \
			  2 * sizeof(bool)))

/*
 * Each thread keeps the run of its last grab for the next one, so a grab
 * does not pay a malloc() and free() of ~10 KiB per call (about 6 ns of
 * the ~140 a grab that creates one order-9 folio costs).  The key's
 * destructor frees it when the thread exits.
 */
static pthread_key_t grab_run_key;
static pthread_once_t grab_run_once = PTHREAD_ONCE_INIT;
static bool grab_run_cached;

static void grab_run_key_create(void)
{
	grab_run_cached = !pthread_key_create(&grab_run_key, free);
}

/*
 * grab_run_get() - A run for @nr positions with no folio recorded yet:
 * the thread's cached one, or a new one.  Its arrays are never cleared:
 * only segment starts are ever read (see above).
 * Return: the run, or NULL if memory ran out.
 */
static struct grab_run *grab_run_get(unsigned int nr)
{
	struct grab_run *run = NULL;
	char *arrays;

	pthread_once(&grab_run_once, grab_run_key_create);
	if (grab_run_cached) {
		run = pthread_getspecific(grab_run_key);
		if (run)
			pthread_setspecific(grab_run_key, NULL);
	}
	if (!run) {
		run = upc_fault_should_fail() ? NULL : malloc(GRAB_RUN_BYTES);
		if (!run)
			return NULL;
	}
	arrays = (char *)(run + 1);
	run->head = (struct folio **)arrays;
	run->shadow = (void **)(arrays + FILEMAP_GRAB_MAX * sizeof(void *));
	run->span = (unsigned short *)(arrays +
				       2 * FILEMAP_GRAB_MAX * sizeof(void *));
	run->created = (bool *)(run->span + FILEMAP_GRAB_MAX);
	run->locked = run->created + FILEMAP_GRAB_MAX;
	run->nr = nr;
	run->nr_created = 0;
	run->holds_cached = false;
	run->end = GRAB_AGAIN;
	run->head[0] = NULL;
	run->span[0] = (unsigned short)nr;
	return run;
}

/* grab_run_put() - Keep @run for the thread's next grab, or free it. */
static void grab_run_put(struct grab_run *run)
{
	if (grab_run_cached && !pthread_getspecific(grab_run_key) &&
	    !pthread_setspecific(grab_run_key, run))
		return;
	free(run);
}

/*
 * The start of the segment after the one at @i.  It reads only the run,
 * never the folio: the passes stay in the run's arrays, and a pass may
 * step on from a folio it has just given back.
 */
static unsigned int grab_next(const struct grab_run *run, unsigned int i)
{
	return i + run->span[i];
}

/*
 * Record @folio (referenced by the caller) at run position @i, inside
 * the gap that starts at @gap: the gap keeps what lies before @i, and
 * what lies after the folio becomes a gap of its own.  The folio must
 * start at @i (or before the run, when @i is 0) and end inside the gap.
 * Return: the position after the folio.
 */
static unsigned int grab_record(struct grab_run *run, unsigned int gap,
				unsigned int i, struct folio *folio,
				bool created, bool locked)
{
	unsigned int gap_end = gap + run->span[gap];
	pgoff_t end = folio_next_index(folio) - run->index;
	unsigned int next = end < gap_end ? (unsigned int)end : gap_end;

	if (i > gap)
		run->span[gap] = (unsigned short)(i - gap);
	run->head[i] = folio;
	run->span[i] = (unsigned short)(next - i);
	run->created[i] = created;
	run->locked[i] = locked;
	if (next < gap_end) {
		run->head[next] = NULL;
		run->span[next] = (unsigned short)(gap_end - next);
	}
	return next;
}

/* Run position of @folio's first index (0 if it starts before the run). */
static unsigned int grab_position(const struct grab_run *run,
				  const struct folio *folio)
{
	return folio->index > run->index ?
		(unsigned int)(folio->index - run->index) : 0;
}

/*
 * Step 1: reference what is cached; one lockless walk, holes skipped.
 * Folios come in index order, so each lies in the run's last gap; after
 * a retry, one that now overlaps what was recorded (a large folio that
 * replaced small ones meanwhile) is let go: the steps after the lock
 * find what is really there.
 */
static void grab_find_cached(struct grab_run *run)
{
	XA_STATE(xas, &run->mapping->i_pages, run->index);
	unsigned int gap = 0, i;
	void *entry;

	upc_rcu_enter();
	xas_for_each(&xas, entry, run->index + run->nr - 1) {
		if (xas_retry(&xas, entry) || xa_is_value(entry))
			continue;	/* a shadow: step 3 replaces it */
		if (!filemap_pin(&xas, entry))
			continue;	/* reset: found again, or not */
		i = grab_position(run, entry);
		if (i < gap) {
			folio_put(entry);
			continue;
		}
		gap = grab_record(run, gap, i, entry, false, false);
		run->holds_cached = true;
	}
	upc_rcu_exit();
}

/* Largest order for a new folio at run index @i, @left indices missing. */
static unsigned int grab_order(const struct grab_run *run, unsigned int i,
			       unsigned int left)
{
	pgoff_t index = run->index + i;
	unsigned int order = UPC_MAX_ORDER;

	if (!mapping_large_folio_support(run->mapping))
		return 0;
	while (order && ((index & ((1UL << order) - 1)) || (1U << order) > left))
		order--;
	return order;
}

/* Undo grab_new_folio() for a folio that was not inserted. */
static void grab_drop_new(struct folio *folio)
{
	folio->mapping = NULL;
	folio_put_refs(folio, (int)folio_nr_pages(folio));
	folio_unlock(folio);
	folio_put(folio);
}

/*
 * Set up a new folio as __filemap_add_folio() would, and record it at
 * the start @i of a gap.  Return: the position after it.
 */
static unsigned int grab_prep_new(struct grab_run *run, unsigned int i,
				  struct folio *folio)
{
	unsigned long old;

	/*
	 * Locked and referenced in one atomic operation.  Nobody else can
	 * hold the lock of a folio not yet in the cache: a lookup that
	 * reached this memory in an earlier life takes a reference, then
	 * finds it gone from the slot and lets go before it would lock.
	 */
	old = __atomic_fetch_or(&folio->flags, (1UL << PG_locked) |
				(1UL << PG_referenced), __ATOMIC_ACQUIRE);
	UPC_MM_BUG_ON(old & (1UL << PG_locked));
	(void)old;
	folio->mapping = run->mapping;
	folio->index = run->index + i;
	folio_ref_add(folio, (int)folio_nr_pages(folio));
	run->nr_created++;
	return grab_record(run, i, i, folio, true, true);
}

/*
 * The gfp for an allocation the grab makes.  Reclaim that frees nothing
 * but meets folios somebody holds sleeps and tries again, until nobody
 * has evicted anything for a second (reclaim_hook() in vmscan.c), and
 * that somebody may be this grab: it holds the folios it found cached,
 * and those it inserted while it fills a gap.  A cache that can free
 * nothing but them (full of dirty pages the file refuses) would then
 * make every write wait on itself.  So once the grab holds a folio
 * reclaim can meet, it allocates with one pass of reclaim at most
 * (__GFP_NORETRY), as it does throughout for a caller that holds folios
 * itself (run->gfp): failing only makes the run shorter, and a first
 * index that cannot be had that way is grabbed again alone (GRAB_ALONE),
 * holding nothing.
 */
static gfp_t grab_gfp(const struct grab_run *run)
{
	return run->holds_cached ? run->gfp | __GFP_NORETRY : run->gfp;
}

/*
 * A new locked folio set up as __filemap_add_folio() would, or NULL.
 * Its references are added atomically even though it is not in the
 * cache yet: a lockless lookup that found this memory in an earlier life
 * may still take a reference on it (and drop it when the recheck fails).
 */
static struct folio *grab_new_folio(struct grab_run *run, unsigned int i,
				    unsigned int order)
{
	struct folio *folio;

	folio = filemap_alloc_folio(run->mapping, grab_gfp(run), order);
	if (folio)
		grab_prep_new(run, i, folio);
	return folio;
}

/*
 * Fill the missing stretch [@i, @end) with order-0 folios from one bulk
 * allocation.  Return: false if memory ran out.
 */
static bool grab_allocate_small(struct grab_run *run, unsigned int i,
				unsigned int end)
{
	struct folio *folios[FILEMAP_GRAB_MAX];
	unsigned int got, k;

	got = upc_arena_alloc_bulk(run->mapping->arena, grab_gfp(run),
				   end - i, folios);
	for (k = 0; k < got; k++)
		grab_prep_new(run, i + k, folios[k]);
	return got == end - i;
}

/* Step 2: allocate folios for the missing stretches.  No lock. */
static void grab_allocate(struct grab_run *run)
{
	bool large = mapping_large_folio_support(run->mapping);
	unsigned int i = 0;

	while (i < run->nr) {
		unsigned int end = grab_next(run, i);

		if (run->head[i]) {
			i = end;
			continue;
		}
		/* A missing stretch [i, end): fill it from the left. */
		if (!large) {
			if (!grab_allocate_small(run, i, end))
				return;	/* step 5 gets its own chance */
			i = end;
			continue;
		}
		while (i < end) {
			struct folio *folio;

			folio = grab_new_folio(run, i, grab_order(run, i, end - i));
			if (!folio)
				return;
			i += folio_nr_pages(folio);
		}
	}
}

/*
 * Insert one new order-0 folio at the cursor, without waiting.
 * Return: 0, or -EEXIST / -ENOMEM / -EAGAIN (leave it to step 5).
 */
static int grab_insert_small(struct xa_state *xas, struct folio *folio,
			     void **shadowp)
{
	void *entry = xas_load(xas);
	int order;

	if (entry && !xa_is_value(entry))
		return -EEXIST;
	if (entry) {
		order = xas_get_order(xas);
		if (order > 0) {
			xas_try_split(xas, entry, order);
			if (xas_error(xas))
				return -EAGAIN;
		}
	}
	xas_store(xas, folio);
	if (xas_error(xas))
		return -ENOMEM;
	*shadowp = entry;
	return 0;
}

/* Insert one new large folio: a conflict scan of its own range. */
static int grab_insert_large(struct xa_state *xas, struct folio *folio,
			     void **shadowp)
{
	struct filemap_split split = { NULL, 0 };
	int ret;

	xas_set_order(xas, folio->index, folio_order(folio));
	ret = filemap_store_scan(xas, folio, shadowp, &split);
	xas_destroy(xas);
	return ret > 0 ? -EAGAIN : ret;
}

/* After step 3: refaults and LRU for each folio it inserted. */
static void grab_inserted_to_lru(struct grab_run *run)
{
	unsigned int i;

	for (i = 0; i < run->nr; i = grab_next(run, i))
		if (run->head[i] && run->created[i])
			filemap_folio_added(run->head[i], run->shadow[i]);
}

/* Step 3: insert the new folios, one walk, sideways moves. */
static void grab_insert(struct grab_run *run)
{
	XA_STATE(xas, &run->mapping->i_pages, run->index);
	unsigned int i, next;

	if (!run->nr_created)
		return;		/* all cached: no lock at all */
	mapping_set_update(&xas, run->mapping);
	xas_lock(&xas);
	for (i = 0; i < run->nr; i = next) {
		struct folio *folio = run->head[i];
		int err;

		next = grab_next(run, i);
		if (!folio || !run->created[i])
			continue;
		if (folio_order(folio)) {
			err = grab_insert_large(&xas, folio, &run->shadow[i]);
		} else {
			filemap_cursor_move(&xas, folio->index);
			err = grab_insert_small(&xas, folio, &run->shadow[i]);
		}
		if (err) {
			/* The cursor may be in error: the next one walks. */
			xas_set(&xas, folio->index);
			run->head[i] = NULL;
			grab_drop_new(folio);
			continue;
		}
		run->mapping->nrpages += folio_nr_pages(folio);
		run->holds_cached = true;
	}
	xas_unlock(&xas);
	grab_inserted_to_lru(run);
}

/*
 * Step 4: lock the folios found cached without waiting.  Return: true if
 * every one was locked and is still in place, and no position is a gap.
 */
static bool grab_trylock_cached(struct grab_run *run)
{
	bool complete = true;
	unsigned int i;

	for (i = 0; i < run->nr; i = grab_next(run, i)) {
		struct folio *folio = run->head[i];

		if (!folio) {
			complete = false;
			continue;
		}
		if (run->locked[i])
			continue;
		if (!folio_trylock(folio)) {
			complete = false;
			continue;
		}
		run->locked[i] = true;
		if (folio->mapping != run->mapping ||
		    !folio_contains(folio, run->index + i))
			complete = false;
	}
	return complete;
}

/* Step 5a: let go of every folio lock the grab holds. */
static void grab_unlock_all(struct grab_run *run)
{
	unsigned int i;

	for (i = 0; i < run->nr; i = grab_next(run, i)) {
		if (run->head[i] && run->locked[i]) {
			folio_unlock(run->head[i]);
			run->locked[i] = false;
		}
	}
}

/*
 * Fill the gap at @gap from the left, one lookup-or-create per folio.
 * A folio that does not start where the gap's filled part ends (or end
 * inside the gap) was inserted by someone else meanwhile and overlaps
 * what the run holds: it is let go and the rest stays a gap.
 * Return: true if the whole gap was filled.
 */
static bool grab_fill_gap(struct grab_run *run, unsigned int gap)
{
	unsigned int i = gap, end = grab_next(run, gap);

	while (i < end) {
		gfp_t gfp = grab_gfp(run);
		struct folio *folio;

		folio = __filemap_get_folio(run->mapping, run->index + i,
					    FGP_CREAT, gfp);
		if (IS_ERR(folio)) {
			/* Only the first index's failure ends the grab. */
			if (!i)
				run->end = (gfp & ~run->gfp & __GFP_NORETRY) &&
					   run->nr > 1 ? GRAB_ALONE : GRAB_NOMEM;
			return false;
		}
		if (grab_position(run, folio) != i ||
		    (end < run->nr &&
		     folio_next_index(folio) - run->index > end)) {
			folio_put(folio);
			return false;
		}
		i = grab_record(run, i, i, folio, false, false);
		run->holds_cached = true;
	}
	return true;
}

/* Step 5b: fill the gaps, one folio at a time, taking no folio lock. */
static void grab_fill_gaps(struct grab_run *run)
{
	unsigned int i;

	for (i = 0; i < run->nr; i = grab_next(run, i)) {
		if (run->head[i])
			continue;
		if (!grab_fill_gap(run, i))
			return;
	}
}

/* Step 5c: lock every folio in index order; drop those that left. */
static void grab_lock_all(struct grab_run *run)
{
	unsigned int i;

	for (i = 0; i < run->nr; i = grab_next(run, i)) {
		struct folio *folio = run->head[i];

		if (!folio)
			continue;
		folio_lock(folio);
		run->locked[i] = true;
		if (folio->mapping == run->mapping &&
		    folio_contains(folio, run->index + i))
			continue;
		folio_unlock(folio);
		folio_put(folio);
		run->head[i] = NULL;
	}
}

/*
 * Give back the locked folio at @i, past the run's first gap.  One this
 * grab created leaves the cache again if it still holds no data (not
 * uptodate, not dirty; it may have been unlocked in step 5, so someone
 * else may have filled it since): nobody asked for it, and left behind
 * it would keep memory that a failed write or fallocate promises to
 * give back, with nothing to find it by.
 */
static void grab_give_back(struct grab_run *run, unsigned int i)
{
	struct folio *folio = run->head[i];

	if (run->created[i] && !folio_test_uptodate(folio) &&
	    !folio_test_dirty(folio))
		filemap_remove_folio(folio);
	folio_unlock(folio);
	folio_put(folio);
}

/*
 * Hand out the folios covering the run from its first index up to the
 * first gap, marking found ones accessed; give back the rest.
 * Return: the number handed out.
 */
static int grab_collect(struct grab_run *run, struct folio **folios)
{
	bool gap = false;
	unsigned int i, next;
	int count = 0;

	for (i = 0; i < run->nr; i = next) {
		struct folio *folio = run->head[i];

		next = grab_next(run, i);
		if (!folio) {
			gap = true;
			continue;
		}
		if (gap) {
			grab_give_back(run, i);
			continue;
		}
		if (!run->created[i])
			folio_mark_accessed(folio);
		folios[count++] = folio;
	}
	return count;
}

/*
 * grab_once() - Steps 1 to 5 and the collection, for one run.  Return:
 * the number of folios handed out.  When that is 0, *@end says why:
 * GRAB_AGAIN, the first index's folio left the mapping (or another
 * overlapping one came in) meanwhile, and the grab is worth repeating:
 * it then has the first index's slot to fill again, whatever failed at
 * later ones; GRAB_ALONE, step 5 could not allocate for the first index
 * without waiting (grab_gfp()), so it is worth repeating for that index
 * alone; GRAB_NOMEM, no memory for it even so.
 */
static int grab_once(struct address_space *mapping, pgoff_t index,
		     unsigned int nr, struct folio **folios, gfp_t gfp,
		     enum grab_end *end)
{
	struct grab_run *run;
	int count;

	*end = GRAB_NOMEM;
	run = grab_run_get(nr);
	if (!run)
		return 0;
	run->mapping = mapping;
	run->index = index;
	run->gfp = gfp;

	grab_find_cached(run);
	grab_allocate(run);
	grab_insert(run);
	if (!grab_trylock_cached(run)) {
		grab_unlock_all(run);
		grab_fill_gaps(run);
		grab_lock_all(run);
	}
	count = grab_collect(run, folios);
	*end = run->end;
	grab_run_put(run);
	return count;
}

int filemap_grab_folios_gfp(struct address_space *mapping, pgoff_t index,
			    unsigned int nr, struct folio **folios, gfp_t gfp)
{
	enum grab_end end;
	int count;

	if (!nr || nr > FILEMAP_GRAB_MAX)
		return -EINVAL;
	if (index > MAX_PAGECACHE_INDEX)
		return -EFBIG;
	if (nr - 1 > MAX_PAGECACHE_INDEX - index)
		nr = (unsigned int)(MAX_PAGECACHE_INDEX - index + 1);
	do {
		count = grab_once(mapping, index, nr, folios, gfp, &end);
		if (end == GRAB_ALONE)
			nr = 1;
	} while (!count && end != GRAB_NOMEM);
	return count ? count : -ENOMEM;
}

int filemap_grab_folios(struct address_space *mapping, pgoff_t index,
			unsigned int nr, struct folio **folios)
{
	return filemap_grab_folios_gfp(mapping, index, nr, folios, GFP_KERNEL);
}
