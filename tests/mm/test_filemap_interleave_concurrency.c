// SPDX-License-Identifier: MIT
/*
 * tests/mm/test_filemap_interleave_concurrency.c - page cache races
 * replayed in one exact interleaving (run under ThreadSanitizer too).
 *
 * Each test holds a lock the other thread will need (the mapping's
 * i_pages lock, or a folio's lock), starts that thread, waits until it
 * sleeps on the lock (the lock says so: a upc_lock_t's state 2, a
 * folio's PG_waiters), changes what the thread decided on before it
 * blocked, and lets it go:
 *
 * 1. invalidate_mapping_pages() checked that only the cache holds a
 *    folio; before it takes the folio out, another thread takes a
 *    reference (as a lockless lookup may).  The folio must stay: a
 *    holder may dirty it, and a folio no longer cached is never written.
 * 2. folio_clear_dirty_for_io() cleared the dirty bit; before it clears
 *    the DIRTY tag, a dirtier sets the bit and the tag again.  The tag
 *    must stay with the bit, or a tag-driven flush misses the folio.
 * 3. filemap_grab_folios() found the folio at its first index cached and
 *    waits for its lock; meanwhile the folio is truncated.  The grab
 *    must start again and create a new one, not fail with -ENOMEM while
 *    memory is free; also when, with memory short meanwhile, the run's
 *    later indices could not be filled.
 * 4. mapping_read_folio_gfp() found a folio another read is filling and
 *    waits for its lock; meanwhile that read fills it (the waiter must
 *    take it as it is, not read the page again), or the folio is
 *    truncated (the waiter must look up again, not read into it).
 */
#include <pthread.h>
#include <sched.h>

#include "fault.h"
#include "filemap_helpers.h"

/* Wait until some thread sleeps on @lock. */
static void wait_for_lock_sleeper(upc_lock_t *lock)
{
	while (__atomic_load_n(&lock->state, __ATOMIC_ACQUIRE) != 2)
		sched_yield();
}

/* Wait until some thread sleeps on @folio's lock. */
static void wait_for_folio_waiter(struct folio *folio)
{
	while (!(__atomic_load_n(&folio->flags, __ATOMIC_ACQUIRE) &
		 (1UL << PG_waiters)))
		sched_yield();
}

/* ---- 1. invalidation against a new reference ------------------------------ */

struct invalidate_arg {
	struct address_space *mapping;
	unsigned long dropped;
};

static void *invalidate_thread(void *p)
{
	struct invalidate_arg *arg = p;

	arg->dropped = invalidate_mapping_pages(arg->mapping, 0, 0);
	return NULL;
}

static void test_invalidate_keeps_referenced(void **state)
{
	struct invalidate_arg arg = { 0 };
	struct address_space *mapping;
	struct fm_env env;
	struct folio *folio;
	pthread_t thread;

	(void)state;
	mapping = fm_init(&env, 0);
	folio = fm_add(&env, 0, 0);
	arg.mapping = mapping;

	xa_lock(&mapping->i_pages);
	assert_int_equal(pthread_create(&thread, NULL, invalidate_thread,
					&arg), 0);
	wait_for_lock_sleeper(&mapping->i_pages.xa_lock);
	folio_get(folio);
	xa_unlock(&mapping->i_pages);
	assert_int_equal(pthread_join(thread, NULL), 0);

	assert_int_equal(arg.dropped, 0);
	assert_ptr_equal(folio->mapping, mapping);
	assert_ptr_equal(fm_lookup(mapping, 0), folio);
	/* Unreferenced again, it goes. */
	folio_put(folio);
	assert_int_equal(invalidate_mapping_pages(mapping, 0, 0), 1);
	assert_null(fm_lookup(mapping, 0));
	fm_fini(&env);
}

/* ---- 2. the DIRTY tag against a new dirtier ------------------------------ */

struct clean_arg {
	struct folio *folio;
	bool cleared;
};

static void *clean_thread(void *p)
{
	struct clean_arg *arg = p;

	folio_lock(arg->folio);
	arg->cleared = folio_clear_dirty_for_io(arg->folio);
	folio_unlock(arg->folio);
	return NULL;
}

static void test_dirty_tag_stays_with_bit(void **state)
{
	struct clean_arg arg = { 0 };
	struct address_space *mapping;
	struct folio_batch fbatch;
	struct fm_env env;
	struct folio *folio;
	pthread_t thread;
	pgoff_t index = 0;

	(void)state;
	mapping = fm_init(&env, 0);
	folio = fm_add(&env, 0, 0);
	assert_true(folio_mark_dirty(folio));
	assert_true(xa_get_mark(&mapping->i_pages, 0, PAGECACHE_TAG_DIRTY));
	arg.folio = folio;

	xa_lock(&mapping->i_pages);
	assert_int_equal(pthread_create(&thread, NULL, clean_thread, &arg), 0);
	wait_for_lock_sleeper(&mapping->i_pages.xa_lock);
	/* The bit is clear and the tag not yet: dirty it again, as a
	 * dirtier would (the bit, then the tag under the lock). */
	assert_false(folio_test_dirty(folio));
	assert_false(folio_test_set_dirty(folio));
	{
		XA_STATE(xas, &mapping->i_pages, 0);

		assert_ptr_equal(xas_load(&xas), folio);
		xas_set_mark(&xas, PAGECACHE_TAG_DIRTY);
	}
	xa_unlock(&mapping->i_pages);
	assert_int_equal(pthread_join(thread, NULL), 0);

	assert_true(arg.cleared);
	assert_true(folio_test_dirty(folio));
	assert_true(xa_get_mark(&mapping->i_pages, 0, PAGECACHE_TAG_DIRTY));
	folio_batch_init(&fbatch);
	assert_int_equal(filemap_get_folios_tag(mapping, &index, (pgoff_t)-1,
						PAGECACHE_TAG_DIRTY, &fbatch),
			 1);
	folio_batch_release(&fbatch);
	folio_lock(folio);
	assert_true(folio_clear_dirty_for_io(folio));
	folio_unlock(folio);
	assert_false(xa_get_mark(&mapping->i_pages, 0, PAGECACHE_TAG_DIRTY));
	fm_fini(&env);
}

/* ---- 3. a grab against truncation of its first folio --------------------- */

struct grab_arg {
	struct address_space *mapping;
	struct folio *folios[4];
	int ret;
};

static void *grab_thread(void *p)
{
	struct grab_arg *arg = p;

	arg->ret = filemap_grab_folios(arg->mapping, 0, 4, arg->folios);
	return NULL;
}

/*
 * grab_against_truncation() - Hold the cached folio at index 0 locked,
 * start a grab of indices 0..3 (with every folio allocation failing if
 * @fail_gaps, so the indices after 0 stay gaps), and once the grab
 * sleeps on the lock, truncate the folio (with memory back).  The grab
 * must come back with the run from index 0, made anew.
 */
static void grab_against_truncation(bool fail_gaps)
{
	struct grab_arg arg = { 0 };
	struct address_space *mapping;
	struct fm_env env;
	struct folio *folio;
	pthread_t thread;
	int i;

	mapping = fm_init(&env, 0);
	/* Index 10 makes the tree node here, counted on this thread. */
	fm_add(&env, 10, 0);
	folio = fm_add(&env, 0, 0);
	arg.mapping = mapping;

	folio_get(folio);
	folio_lock(folio);
	/* Attempt 1 is the new thread's grab run: let that through. */
	if (fail_gaps)
		upc_fault_fail_from(2);
	assert_int_equal(pthread_create(&thread, NULL, grab_thread, &arg), 0);
	wait_for_folio_waiter(folio);
	/* The gaps' allocations failed before the grab slept. */
	if (fail_gaps)
		assert_true(upc_fault_injected());
	upc_fault_fail_nth(0);
	/* What truncation does to a locked folio. */
	filemap_remove_folio(folio);
	fm_unlock_put(folio);
	assert_int_equal(pthread_join(thread, NULL), 0);

	assert_int_equal(arg.ret, 4);
	for (i = 0; i < 4; i++) {
		assert_ptr_equal(arg.folios[i]->mapping, mapping);
		assert_int_equal(arg.folios[i]->index, i);
		assert_true(folio_test_locked(arg.folios[i]));
	}
	fm_unlock_put_all(arg.folios, 4);
	fm_fini(&env);
}

static void test_grab_restarts_after_truncation(void **state)
{
	(void)state;
	grab_against_truncation(false);
}

/*
 * The same, with no memory for the run's other indices while the grab
 * first runs: the gaps after the first index fail, then the first folio
 * is truncated.  The grab must still start again (memory is back by
 * then) rather than report -ENOMEM for an index whose allocation never
 * failed.
 */
static void test_grab_restarts_despite_later_gaps(void **state)
{
	(void)state;
	grab_against_truncation(true);
}

/* ---- 4. a read waiting for another read's folio -------------------------- */

static unsigned int fill_reads;

/* read_folio: the page's first word names its index. */
static int fill_read_folio(struct address_space *mapping, struct folio *folio)
{
	(void)mapping;
	__atomic_fetch_add(&fill_reads, 1, __ATOMIC_RELAXED);
	*(unsigned long *)folio_address(folio) = 0x1000 + folio->index;
	folio_set_uptodate(folio);
	folio_unlock(folio);
	return 0;
}

static const struct address_space_operations fill_aops = {
	.read_folio = fill_read_folio,
};

struct read_arg {
	struct address_space *mapping;
	struct folio *folio;
};

static void *read_thread(void *p)
{
	struct read_arg *arg = p;

	arg->folio = mapping_read_folio_gfp(arg->mapping, 0, GFP_KERNEL);
	return NULL;
}

/*
 * read_against_reader() - Cache a locked folio at index 0 that is not
 * uptodate (another reader's, its read under way), start a read of
 * index 0, and once it sleeps on the folio's lock, let the other read
 * end: with the folio filled if @filled, else truncated, as a failed
 * read's folio may be.  Return: the folio, with the test's reference.
 */
static struct folio *read_against_reader(struct read_arg *arg,
					 struct fm_env *env, bool filled)
{
	struct folio *folio;
	pthread_t thread;

	env->mapping.a_ops = &fill_aops;
	fill_reads = 0;
	folio = fm_alloc(env, 0);
	assert_int_equal(filemap_add_folio(&env->mapping, folio, 0,
					   GFP_KERNEL), 0);
	arg->mapping = &env->mapping;
	assert_int_equal(pthread_create(&thread, NULL, read_thread, arg), 0);
	wait_for_folio_waiter(folio);
	if (filled) {
		*(unsigned long *)folio_address(folio) = 0x1000;
		folio_set_uptodate(folio);
	} else {
		filemap_remove_folio(folio);
	}
	folio_unlock(folio);
	assert_int_equal(pthread_join(thread, NULL), 0);
	assert_false(IS_ERR(arg->folio));
	assert_true(folio_test_uptodate(arg->folio));
	assert_int_equal(*(unsigned long *)folio_address(arg->folio), 0x1000);
	return folio;
}

/*
 * The read found the folio not uptodate; by the time it holds the lock
 * the other read has filled it: it returns that folio without reading
 * the page again.
 */
static void test_read_uses_folio_filled_meanwhile(void **state)
{
	struct read_arg arg = { 0 };
	struct fm_env env;
	struct folio *folio;

	(void)state;
	fm_init(&env, 0);
	folio = read_against_reader(&arg, &env, true);
	assert_ptr_equal(arg.folio, folio);
	assert_int_equal(fill_reads, 0);
	folio_put(arg.folio);
	folio_put(folio);
	fm_fini(&env);
}

/*
 * The folio the read waited for was truncated meanwhile: the read looks
 * the page up again and reads it into a new folio of the mapping, never
 * into the truncated one, which no lookup would find again.
 */
static void test_read_retries_after_truncation(void **state)
{
	struct read_arg arg = { 0 };
	struct fm_env env;
	struct folio *folio;

	(void)state;
	fm_init(&env, 0);
	folio = read_against_reader(&arg, &env, false);
	assert_ptr_not_equal(arg.folio, folio);
	assert_ptr_equal(arg.folio->mapping, &env.mapping);
	assert_int_equal(arg.folio->index, 0);
	assert_int_equal(fill_reads, 1);
	folio_put(arg.folio);
	folio_put(folio);
	fm_fini(&env);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_invalidate_keeps_referenced),
		cmocka_unit_test(test_dirty_tag_stays_with_bit),
		cmocka_unit_test(test_grab_restarts_after_truncation),
		cmocka_unit_test(test_grab_restarts_despite_later_gaps),
		cmocka_unit_test(test_read_uses_folio_filled_meanwhile),
		cmocka_unit_test(test_read_retries_after_truncation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
