// SPDX-License-Identifier: MIT
/*
 * tests/mm/test_filemap_race_concurrency.c - the page cache under races
 * (run under ThreadSanitizer too).
 *
 * 1. Concurrent adds: 2 to 4 threads add their own folio over the same
 *    index at once (into an empty slot, over a shadow of order 0 or 9,
 *    with mixed orders): exactly one wins, the others get -EEXIST and
 *    keep their folio untouched, and nothing leaks.
 * 2. The split revalidation of filemap_lock_store(), made deterministic
 *    with filemap_split_race_hook: while the adder has dropped the lock
 *    with a split preallocated, the hook replaces the order-9 shadow by
 *    another order-9 shadow, by shadows of other orders, by nothing, or
 *    by a folio.  The add must then succeed with the right final layout
 *    and hand back the shadow that was really replaced, or fail with
 *    -EEXIST, and leave a valid tree with no node leaked.
 * 3. Lockless lookups (filemap_get_entry(), filemap_get_folios_contig(),
 *    filemap_get_read_batch(), filemap_get_folios()) racing with removal
 *    and re-adding of folios at other indices (splits and shadows
 *    included) and with truncation: a folio returned is never free and,
 *    while referenced, covers the index it was looked up at (writers
 *    only ever add fresh folios, so a referenced folio's index cannot
 *    change); under its lock, if still in the mapping, it still covers
 *    it (L3 of mm/filemap.c); folios that nobody removes are always
 *    found.  The run is bounded in time, not asserted on it.
 * 4. Two adds into one missing leaf node with the first node allocation
 *    failing: the add that failed allocates a node outside the lock
 *    for its retry, and the other add may create the leaf first, so
 *    the retry does not need it.  That node must still be freed.
 *
 * Threads other than the main one never call cmocka: they count
 * failures and keep the first message, and the main thread asserts.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "fault.h"
#include "filemap_helpers.h"
#include "rand.h"
#include "../../mm/filemap_internal.h"

#if defined(UPC_SANITIZE_THREAD) || defined(UPC_SANITIZE_ADDRESS)
#define ADD_ROUNDS	300
#define CHURN_SECONDS	1.0
#else
#define ADD_ROUNDS	2000
#define CHURN_SECONDS	3.0
#endif

/* ---- failure reporting from any thread ---------------------------------- */

static int failures;
static char first_failure[256];
static pthread_mutex_t failure_lock = PTHREAD_MUTEX_INITIALIZER;

static void __attribute__((format(printf, 1, 2))) race_fail(const char *fmt,
							    ...)
{
	va_list ap;

	if (__atomic_fetch_add(&failures, 1, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&failure_lock);
	va_start(ap, fmt);
	vsnprintf(first_failure, sizeof(first_failure), fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&failure_lock);
}

static int race_failures(void)
{
	return __atomic_load_n(&failures, __ATOMIC_RELAXED);
}

/* After the threads are joined. */
static void assert_no_race_failure(void)
{
	int n = race_failures();

	if (n) {
		pthread_mutex_lock(&failure_lock);
		fprintf(stderr, "%d failures; first: %s\n", n, first_failure);
		pthread_mutex_unlock(&failure_lock);
	}
	assert_int_equal(n, 0);
}

static void reset_race_failures(void)
{
	__atomic_store_n(&failures, 0, __ATOMIC_RELAXED);
	first_failure[0] = 0;
}

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- 1. concurrent adds -------------------------------------------------- */

#define MAX_ADDERS	4

/*
 * One round: the main thread prepares a folio per adder; the adders
 * meet at @start, add, and meet at @done; the main thread checks.
 */
struct add_race {
	struct address_space *mapping;
	pthread_barrier_t start, done;
	unsigned int nr;
	bool stop;
	struct folio *folio[MAX_ADDERS];
	pgoff_t index[MAX_ADDERS];
	void *shadow[MAX_ADDERS];
	int ret[MAX_ADDERS];
	int64_t nodes[MAX_ADDERS];
};

struct adder {
	struct add_race *race;
	unsigned int id;
};

static void *adder_thread(void *p)
{
	struct adder *me = p;
	struct add_race *race = me->race;

	for (;;) {
		pthread_barrier_wait(&race->start);
		if (__atomic_load_n(&race->stop, __ATOMIC_ACQUIRE))
			break;
		race->shadow[me->id] = NULL;
		race->ret[me->id] = __filemap_add_folio(race->mapping,
							race->folio[me->id],
							race->index[me->id],
							GFP_KERNEL,
							&race->shadow[me->id]);
		pthread_barrier_wait(&race->done);
	}
	race->nodes[me->id] = fm_nodes_live();
	return NULL;
}

/* What is under the contested index before a round. */
enum add_setup { SETUP_EMPTY, SETUP_SHADOW0, SETUP_SHADOW9, SETUP_NR };

static void add_round(struct fm_env *env, struct add_race *race,
		      struct upc_rand *rnd, unsigned int nr)
{
	enum add_setup setup = (enum add_setup)upc_rand_below(rnd, SETUP_NR);
	pgoff_t target = 512 + upc_rand_below(rnd, 512);
	bool mixed = upc_rand_chance(rnd, 1, 3);
	unsigned int i, winners = 0, win = 0;
	void *shadow = fm_shadow(target);

	if (setup == SETUP_SHADOW0)
		fm_put_shadow(env, target, 0, target);
	else if (setup == SETUP_SHADOW9)
		fm_put_shadow(env, 512, 9, target);
	for (i = 0; i < nr; i++) {
		unsigned int order = mixed ? upc_rand_below(rnd, 10) : 0;

		race->folio[i] = fm_alloc(env, order);
		race->index[i] = target & ~((1UL << order) - 1);
	}
	race->nr = nr;
	pthread_barrier_wait(&race->start);
	pthread_barrier_wait(&race->done);

	for (i = 0; i < nr; i++) {
		struct folio *folio = race->folio[i];

		if (race->ret[i] == 0) {
			winners++;
			win = i;
			continue;
		}
		assert_int_equal(race->ret[i], -EEXIST);
		assert_null(folio->mapping);
		assert_int_equal(folio_ref_count(folio), 1);
	}
	assert_int_equal(winners, 1);
	assert_ptr_equal(race->folio[win]->mapping, &env->mapping);
	assert_ptr_equal(xa_load(&env->mapping.i_pages, target),
			 race->folio[win]);
	assert_int_equal(env->mapping.nrpages,
			 1 + folio_nr_pages(race->folio[win]));
	if (setup == SETUP_EMPTY)
		assert_null(race->shadow[win]);
	else
		assert_ptr_equal(race->shadow[win], shadow);
	assert_mapping_ok(&env->mapping);

	for (i = 0; i < nr; i++)
		folio_unlock(race->folio[i]);
	fm_remove(race->folio[win]);
	for (i = 0; i < nr; i++)
		folio_put(race->folio[i]);
	/* Back to an empty range (shadows included). */
	fm_store_entry(&env->mapping, 512, 9, NULL);
	assert_int_equal(upc_arena_charged(env->arena), 1);
}

static void test_concurrent_adds(void **state)
{
	struct adder adders[MAX_ADDERS];
	pthread_t threads[MAX_ADDERS];
	struct add_race *race;
	struct upc_rand rnd;
	struct fm_env env;
	unsigned int nr, i;
	int round;

	(void)state;
	upc_rand_seed(&rnd, upc_test_seed());
	for (nr = 2; nr <= MAX_ADDERS; nr++) {
		fm_init(&env, FM_LARGE);
		/* Something outside the contested range, so the tree stays. */
		fm_add(&env, 5000, 0);
		race = calloc(1, sizeof(*race));
		assert_non_null(race);
		race->mapping = &env.mapping;
		pthread_barrier_init(&race->start, NULL, nr + 1);
		pthread_barrier_init(&race->done, NULL, nr + 1);
		for (i = 0; i < nr; i++) {
			adders[i].race = race;
			adders[i].id = i;
			assert_int_equal(pthread_create(&threads[i], NULL,
							adder_thread,
							&adders[i]), 0);
		}
		for (round = 0; round < ADD_ROUNDS / 3; round++)
			add_round(&env, race, &rnd, nr);
		__atomic_store_n(&race->stop, true, __ATOMIC_RELEASE);
		pthread_barrier_wait(&race->start);
		for (i = 0; i < nr; i++) {
			assert_int_equal(pthread_join(threads[i], NULL), 0);
			env.nodes0 -= race->nodes[i];
		}
		pthread_barrier_destroy(&race->start);
		pthread_barrier_destroy(&race->done);
		free(race);
		fm_fini(&env);
	}
}

/* ---- 2. the split revalidation, with the hook --------------------------- */

/*
 * The hook runs on the adding thread with the i_pages lock dropped; it
 * acts on its first call only (a nested add inside it may call it again).
 */
static struct fm_env *hook_env;
static void (*hook_action)(struct address_space *mapping);
static int hook_calls;

static void split_hook(struct xa_state *xas)
{
	(void)xas;
	if (hook_calls++ || !hook_action)
		return;
	hook_action(&hook_env->mapping);
}

static const pgoff_t hook_index = 515;	/* inside the shadow at 512 */
static struct folio *hook_folio;

static void hook_other_shadow9(struct address_space *mapping)
{
	fm_store_entry(mapping, 512, 9, fm_shadow(2));
}

static void hook_shadow6(struct address_space *mapping)
{
	fm_store_entry(mapping, 512, 9, NULL);
	fm_store_entry(mapping, 512, 6, fm_shadow(6));
}

static void hook_shadow3(struct address_space *mapping)
{
	fm_store_entry(mapping, 512, 9, NULL);
	fm_store_entry(mapping, 512, 3, fm_shadow(3));
}

static void hook_shadow0(struct address_space *mapping)
{
	fm_store_entry(mapping, 512, 9, NULL);
	fm_store_entry(mapping, hook_index, 0, fm_shadow(10));
}

static void hook_nothing(struct address_space *mapping)
{
	fm_store_entry(mapping, 512, 9, NULL);
}

/* hook_add_folio() - Cache a folio of @order at @index as hook_folio. */
static void hook_add_folio(struct address_space *mapping, pgoff_t index,
			   unsigned int order)
{
	struct folio *folio = fm_alloc(hook_env, order);

	assert_int_equal(filemap_add_folio(mapping, folio, index, GFP_KERNEL),
			 0);
	folio_unlock(folio);
	folio_put(folio);	/* the cache keeps it */
	hook_folio = folio;
}

static void hook_folio9(struct address_space *mapping)
{
	hook_add_folio(mapping, 512, 9);
}

static void hook_folio_same_index(struct address_space *mapping)
{
	hook_add_folio(mapping, hook_index, 0);
}

static void hook_folio_elsewhere(struct address_space *mapping)
{
	hook_add_folio(mapping, 700, 0);
}

/*
 * Set up an order-9 shadow at 512 (and a neighbour so the tree has more
 * than one level), run the add of an order-0 folio at hook_index with
 * @action in the hook, and return the add's result and shadow.
 */
static int hooked_add(struct fm_env *env,
		      void (*action)(struct address_space *mapping),
		      struct folio **folio, void **shadow)
{
	int ret;

	fm_init(env, FM_LARGE);
	fm_add(env, 3000, 0);
	fm_put_shadow(env, 512, 9, 1);
	*folio = fm_alloc(env, 0);
	*shadow = NULL;
	hook_env = env;
	hook_action = action;
	hook_calls = 0;
	hook_folio = NULL;
	filemap_split_race_hook = split_hook;
	ret = __filemap_add_folio(&env->mapping, *folio, hook_index, GFP_KERNEL,
				  shadow);
	filemap_split_race_hook = NULL;
	hook_action = NULL;
	return ret;
}

/* The add succeeded: the folio is at hook_index, accounted. */
static void assert_hooked_added(struct fm_env *env, struct folio *folio)
{
	assert_true(hook_calls >= 1);
	assert_ptr_equal(xa_load(&env->mapping.i_pages, hook_index), folio);
	assert_ptr_equal(folio->mapping, &env->mapping);
	assert_int_equal(folio_ref_count(folio), 2);
	assert_int_equal(env->mapping.nrpages, 2);
	assert_mapping_ok(&env->mapping);
}

/*
 * hooked_add_ok() - hooked_add() with @action succeeds
 * (assert_hooked_added()) and hands back @shadow.  Return: the folio.
 */
static struct folio *hooked_add_ok(struct fm_env *env,
				   void (*action)(struct address_space *),
				   void *shadow)
{
	struct folio *folio;
	void *got;

	assert_int_equal(hooked_add(env, action, &folio, &got), 0);
	assert_hooked_added(env, folio);
	assert_ptr_equal(got, shadow);
	return folio;
}

static void hooked_done(struct fm_env *env, struct folio *folio)
{
	fm_unlock_put(folio);
	fm_fini(env);
}

static void test_split_hook_other_shadow9(void **state)
{
	struct folio *folio;
	struct fm_env env;

	(void)state;
	folio = hooked_add_ok(&env, hook_other_shadow9, fm_shadow(2));
	fm_assert_cut_shadow(&env.mapping, 512, 9, hook_index, 0, fm_shadow(2));
	hooked_done(&env, folio);
}

static void test_split_hook_shadow6(void **state)
{
	struct folio *folio;
	struct fm_env env;

	(void)state;
	folio = hooked_add_ok(&env, hook_shadow6, fm_shadow(6));
	fm_assert_cut_shadow(&env.mapping, 512, 6, hook_index, 0, fm_shadow(6));
	fm_assert_entry(&env.mapping, 576, 1023, NULL, -1);
	hooked_done(&env, folio);
}

static void test_split_hook_shadow3(void **state)
{
	struct folio *folio;
	struct fm_env env;

	(void)state;
	folio = hooked_add_ok(&env, hook_shadow3, fm_shadow(3));
	fm_assert_cut_shadow(&env.mapping, 512, 3, hook_index, 0, fm_shadow(3));
	fm_assert_entry(&env.mapping, 520, 1023, NULL, -1);
	hooked_done(&env, folio);
}

static void test_split_hook_shadow0(void **state)
{
	struct folio *folio;
	struct fm_env env;

	(void)state;
	folio = hooked_add_ok(&env, hook_shadow0, fm_shadow(10));
	fm_assert_entry(&env.mapping, 512, hook_index - 1, NULL, -1);
	fm_assert_entry(&env.mapping, hook_index + 1, 1023, NULL, -1);
	hooked_done(&env, folio);
}

static void test_split_hook_nothing(void **state)
{
	struct folio *folio;
	struct fm_env env;

	(void)state;
	folio = hooked_add_ok(&env, hook_nothing, NULL);
	fm_assert_entry(&env.mapping, 512, hook_index - 1, NULL, -1);
	fm_assert_entry(&env.mapping, hook_index + 1, 1023, NULL, -1);
	hooked_done(&env, folio);
}

/* A folio now covers the index: -EEXIST, the folio is handed back. */
static void assert_hooked_eexist(struct fm_env *env, struct folio *folio,
				 int ret)
{
	assert_int_equal(ret, -EEXIST);
	assert_null(folio->mapping);
	assert_int_equal(folio_ref_count(folio), 1);
	assert_non_null(hook_folio);
	assert_ptr_equal(xa_load(&env->mapping.i_pages, hook_index),
			 hook_folio);
	assert_int_equal(env->mapping.nrpages, 1 + folio_nr_pages(hook_folio));
	assert_mapping_ok(&env->mapping);
}

static void test_split_hook_folio9(void **state)
{
	struct folio *folio;
	struct fm_env env;
	void *shadow;
	int ret;

	(void)state;
	ret = hooked_add(&env, hook_folio9, &folio, &shadow);
	assert_hooked_eexist(&env, folio, ret);
	fm_assert_entry(&env.mapping, 512, 1023, hook_folio, 9);
	hooked_done(&env, folio);
}

static void test_split_hook_folio_same_index(void **state)
{
	struct folio *folio;
	struct fm_env env;
	void *shadow;
	int ret;

	(void)state;
	ret = hooked_add(&env, hook_folio_same_index, &folio, &shadow);
	assert_hooked_eexist(&env, folio, ret);
	fm_assert_cut_shadow(&env.mapping, 512, 9, hook_index, 0, fm_shadow(1));
	hooked_done(&env, folio);
}

/*
 * A folio elsewhere in the shadow: the shadow was cut by that add, so
 * ours finds a smaller piece of the same shadow and cuts that instead.
 */
static void test_split_hook_folio_elsewhere(void **state)
{
	struct folio *folio;
	struct fm_env env;
	void *shadow;

	(void)state;
	assert_int_equal(hooked_add(&env, hook_folio_elsewhere, &folio,
				    &shadow), 0);
	assert_ptr_equal(shadow, fm_shadow(1));
	assert_ptr_equal(xa_load(&env.mapping.i_pages, hook_index), folio);
	assert_ptr_equal(xa_load(&env.mapping.i_pages, 700), hook_folio);
	assert_int_equal(env.mapping.nrpages, 3);
	/* Two cuts, around 700 and then 515: shadow pieces everywhere else. */
	fm_assert_entry(&env.mapping, 512, hook_index - 1, fm_shadow(1), -1);
	fm_assert_entry(&env.mapping, hook_index + 1, 699, fm_shadow(1), -1);
	fm_assert_entry(&env.mapping, 701, 1023, fm_shadow(1), -1);
	assert_mapping_ok(&env.mapping);
	hooked_done(&env, folio);
}

/* ---- 3. lockless lookups against writers ------------------------------- */

/*
 * Region A, [0, 1024): stable order-0 folios at every index that is a
 * multiple of 16, never touched; a churner removes (with or without a
 * shadow) and re-adds folios of orders 0..3 at the other indices.
 * Region B, [1024, 2048): a churner adds and removes large folios
 * (order-9 folios, order-9 shadows split by small adds, grabs) and a
 * truncater truncates byte ranges of it.  Readers look up everywhere.
 */
#define REGION_A	0UL
#define REGION_B	1024UL
#define REGION_END	2048UL
#define STABLE_STEP	16

struct churn {
	struct address_space *mapping;
	struct upc_arena *arena;
	struct folio *stable[REGION_B / STABLE_STEP];
	bool stop;
	uint64_t seed;
	unsigned int readers;
	unsigned long lookups;
	int64_t nodes[8];
};

static pgoff_t align_down(pgoff_t index, unsigned int order)
{
	return index & ~((1UL << order) - 1);
}

static bool churn_stopped(struct churn *c)
{
	return __atomic_load_n(&c->stop, __ATOMIC_ACQUIRE);
}

/* A new locked folio, uptodate most of the time, or NULL. */
static struct folio *churn_alloc(struct churn *c, struct upc_rand *rnd,
				 unsigned int order)
{
	struct folio *folio = filemap_alloc_folio(c->mapping, GFP_KERNEL,
						  order);

	if (!folio)
		return NULL;
	folio_trylock(folio);
	if (!upc_rand_chance(rnd, 1, 8))
		folio_set_uptodate(folio);
	return folio;
}

/* Add a new folio of @order at @index (aligned by the caller). */
static void churn_add(struct churn *c, struct upc_rand *rnd, pgoff_t index,
		      unsigned int order)
{
	struct folio *folio = churn_alloc(c, rnd, order);
	int ret;

	if (!folio)
		return;
	ret = filemap_add_folio(c->mapping, folio, index, GFP_KERNEL);
	if (ret && ret != -EEXIST && ret != -ENOMEM)
		race_fail("add of order %u at %lu: %d", order, index, ret);
	fm_unlock_put(folio);
}

/* Remove whatever folio covers @index, leaving a shadow or not. */
static void churn_remove(struct churn *c, struct upc_rand *rnd, pgoff_t index)
{
	struct folio *folio = filemap_get_entry(c->mapping, index);

	if (!folio || xa_is_value(folio))
		return;
	folio_lock(folio);
	if (folio->mapping == c->mapping) {
		if (upc_rand_chance(rnd, 1, 2)) {
			xa_lock(&c->mapping->i_pages);
			__filemap_remove_folio(folio,
					       fm_shadow(folio->index + 7));
			xa_unlock(&c->mapping->i_pages);
		} else {
			filemap_remove_folio(folio);
		}
	}
	fm_unlock_put(folio);
}

static void *churn_a_thread(void *p)
{
	struct churn *c = p;
	struct upc_rand rnd;

	upc_rand_seed(&rnd, c->seed ^ 0xa);
	while (!churn_stopped(c)) {
		pgoff_t index = REGION_A + upc_rand_below(&rnd, REGION_B);
		unsigned int order = upc_rand_below(&rnd, 4);

		if (index % STABLE_STEP == 0)
			continue;
		if (upc_rand_chance(&rnd, 1, 2)) {
			churn_remove(c, &rnd, index);
			continue;
		}
		/* The largest order <= @order whose range avoids the stable. */
		while (order && align_down(index, order) % STABLE_STEP == 0)
			order--;
		churn_add(c, &rnd, align_down(index, order), order);
	}
	c->nodes[0] = fm_nodes_live();
	return NULL;
}

static void *churn_b_thread(void *p)
{
	const fgf_t fgp = FGP_CREAT | FGP_LOCK | fgf_set_order(UPC_HUGE_SIZE);
	struct folio *folios[64];
	struct churn *c = p;
	struct upc_rand rnd;

	upc_rand_seed(&rnd, c->seed ^ 0xb);
	while (!churn_stopped(c)) {
		pgoff_t index = REGION_B + upc_rand_below(&rnd, REGION_END -
							  REGION_B);
		unsigned int order;
		struct folio *folio;
		int nr, i;

		switch (upc_rand_below(&rnd, 6)) {
		case 0:
			churn_add(c, &rnd, index & ~511UL, 9);
			break;
		case 1:
			order = upc_rand_chance(&rnd, 1, 2) ? 0 :
				(unsigned int)upc_rand_below(&rnd, 9);
			churn_add(c, &rnd, align_down(index, order), order);
			break;
		case 2:
		case 3:
			churn_remove(c, &rnd, index);
			break;
		case 4:
			nr = 1 + (int)upc_rand_below(&rnd, 64);
			if (index + nr > REGION_END)
				nr = (int)(REGION_END - index);
			nr = filemap_grab_folios(c->mapping, index,
						 (unsigned int)nr, folios);
			for (i = 0; i < nr; i++) {
				fm_unlock_put(folios[i]);
			}
			break;
		default:
			folio = __filemap_get_folio(c->mapping, index, fgp,
						    GFP_KERNEL);
			if (IS_ERR(folio))
				break;
			if (!folio_contains(folio, index))
				race_fail("FGP_CREAT at %lu gave %lu+%lu",
					  index, folio->index,
					  folio_nr_pages(folio));
			fm_unlock_put(folio);
			break;
		}
	}
	c->nodes[1] = fm_nodes_live();
	return NULL;
}

static void *truncater_thread(void *p)
{
	struct churn *c = p;
	struct upc_rand rnd;

	upc_rand_seed(&rnd, c->seed ^ 0xc);
	while (!churn_stopped(c)) {
		int64_t first = (int64_t)(REGION_B << UPC_PAGE_SHIFT) +
			(int64_t)upc_rand_below(&rnd, (REGION_END - REGION_B) <<
						UPC_PAGE_SHIFT);
		int64_t len = (int64_t)upc_rand_below(&rnd, 300 *
						      UPC_PAGE_SIZE);
		int64_t last = first + len;

		if (last >= (int64_t)(REGION_END << UPC_PAGE_SHIFT))
			last = (int64_t)(REGION_END << UPC_PAGE_SHIFT) - 1;
		if (upc_rand_chance(&rnd, 1, 8))
			invalidate_mapping_pages(c->mapping,
				(pgoff_t)first >> UPC_PAGE_SHIFT,
				(pgoff_t)last >> UPC_PAGE_SHIFT);
		else
			truncate_inode_pages_range(c->mapping, first, last);
	}
	c->nodes[2] = fm_nodes_live();
	return NULL;
}

/*
 * Check a folio a lookup at @index returned: not free, covering @index,
 * and still covering it under its lock while it is in the mapping.
 */
static void check_found(struct churn *c, struct folio *folio, pgoff_t index,
			const char *what, bool lock)
{
	if (folio_ref_count(folio) <= 0) {
		race_fail("%s at %lu: folio %p with refcount %d", what, index,
			  (void *)folio, folio_ref_count(folio));
		return;
	}
	if (!folio_contains(folio, index)) {
		race_fail("%s at %lu: folio %p covers %lu+%lu", what, index,
			  (void *)folio, folio->index, folio_nr_pages(folio));
		return;
	}
	if (index < REGION_B && index % STABLE_STEP == 0 &&
	    folio != c->stable[index / STABLE_STEP])
		race_fail("%s at stable %lu: %p, not %p", what, index,
			  (void *)folio,
			  (void *)c->stable[index / STABLE_STEP]);
	if (!lock)
		return;
	folio_lock(folio);
	if (folio->mapping == c->mapping && !folio_contains(folio, index))
		race_fail("%s at %lu: locked folio covers %lu+%lu", what, index,
			  folio->index, folio_nr_pages(folio));
	if (folio->mapping && folio->mapping != c->mapping)
		race_fail("%s at %lu: folio in mapping %p", what, index,
			  (void *)folio->mapping);
	folio_unlock(folio);
}

/* A contiguous batch from @index: no gap, each folio where it says. */
static void check_contig(struct churn *c, struct folio_batch *fbatch,
			 pgoff_t index, const char *what)
{
	pgoff_t next = index;
	unsigned int i;

	for (i = 0; i < folio_batch_count(fbatch); i++) {
		struct folio *folio = fbatch->folios[i];

		check_found(c, folio, next, what, i == 0);
		next = folio_next_index(folio);
	}
	folio_batch_release(fbatch);
}

/*
 * filemap_get_folios() is not a snapshot: a folio may be replaced by an
 * overlapping one between two steps, so each folio only has to meet the
 * range (the first one to cover @index if it starts before it), once.
 */
static void check_get_folios(struct churn *c, struct folio_batch *fbatch,
			     pgoff_t index, pgoff_t end)
{
	unsigned int i, k;

	for (i = 0; i < folio_batch_count(fbatch); i++) {
		struct folio *folio = fbatch->folios[i];
		pgoff_t at = folio->index > index ? folio->index : index;

		if (folio->index > end)
			race_fail("get_folios to %lu: %lu", end, folio->index);
		for (k = 0; k < i; k++)
			if (fbatch->folios[k] == folio)
				race_fail("get_folios: %lu+%lu twice",
					  folio->index, folio_nr_pages(folio));
		check_found(c, folio, at, "get_folios", false);
	}
}

static void *reader_thread(void *p)
{
	struct folio_batch fbatch;
	struct churn *c = p;
	struct upc_rand rnd;
	unsigned long n = 0;

	upc_rand_seed(&rnd, c->seed + 0x100 +
		      __atomic_fetch_add(&c->readers, 1, __ATOMIC_RELAXED));
	folio_batch_init(&fbatch);
	while (!churn_stopped(c)) {
		pgoff_t index = upc_rand_below(&rnd, REGION_END);
		pgoff_t start = index;
		void *entry;
		unsigned int nr;

		if (upc_rand_chance(&rnd, 1, 4))
			index = start = (index % REGION_B) &
					~(STABLE_STEP - 1UL);
		switch (upc_rand_below(&rnd, 4)) {
		case 0:
			entry = filemap_get_entry(c->mapping, index);
			if (index < REGION_B && index % STABLE_STEP == 0 &&
			    entry != c->stable[index / STABLE_STEP])
				race_fail("get_entry at stable %lu: %p", index,
					  entry);
			if (entry && !xa_is_value(entry)) {
				check_found(c, entry, index, "get_entry",
					    upc_rand_chance(&rnd, 1, 2));
				folio_put(entry);
			}
			break;
		case 1:
			nr = filemap_get_folios_contig(c->mapping, &start,
						       index + 100, &fbatch);
			if (nr && start !=
				  folio_next_index(fbatch.folios[nr - 1]))
				race_fail("contig from %lu: start %lu", index,
					  start);
			if (!nr && start != index)
				race_fail("contig from %lu: nothing, start %lu",
					  index, start);
			check_contig(c, &fbatch, index, "contig");
			break;
		case 2:
			filemap_get_read_batch(c->mapping, index, index + 100,
					       &fbatch);
			check_contig(c, &fbatch, index, "read_batch");
			break;
		default:
			filemap_get_folios(c->mapping, &start, index + 100,
					   &fbatch);
			check_get_folios(c, &fbatch, index, index + 100);
			folio_batch_release(&fbatch);
			break;
		}
		n++;
	}
	__atomic_fetch_add(&c->lookups, n, __ATOMIC_RELAXED);
	return NULL;
}

static void test_lookups_vs_writers(void **state)
{
	pthread_t threads[5];
	struct churn *c;
	struct fm_env env;
	double deadline;
	unsigned int i;
	pgoff_t index;

	(void)state;
	reset_race_failures();
	fm_init(&env, FM_LARGE);
	c = calloc(1, sizeof(*c));
	assert_non_null(c);
	c->mapping = &env.mapping;
	c->arena = env.arena;
	c->seed = upc_test_seed();
	for (index = REGION_A; index < REGION_B; index += STABLE_STEP)
		c->stable[index / STABLE_STEP] = fm_add(&env, index, 0);

	assert_int_equal(pthread_create(&threads[0], NULL, churn_a_thread, c),
			 0);
	assert_int_equal(pthread_create(&threads[1], NULL, churn_b_thread, c),
			 0);
	assert_int_equal(pthread_create(&threads[2], NULL, truncater_thread, c),
			 0);
	assert_int_equal(pthread_create(&threads[3], NULL, reader_thread, c),
			 0);
	assert_int_equal(pthread_create(&threads[4], NULL, reader_thread, c),
			 0);
	deadline = now_seconds() + CHURN_SECONDS;
	while (now_seconds() < deadline && !race_failures()) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
	__atomic_store_n(&c->stop, true, __ATOMIC_RELEASE);
	for (i = 0; i < 5; i++)
		assert_int_equal(pthread_join(threads[i], NULL), 0);
	fprintf(stderr, "# %lu lookups\n", c->lookups);
	assert_no_race_failure();
	assert_true(c->lookups > 0);

	/* The stable folios are where they were, with the cache's refs. */
	for (index = REGION_A; index < REGION_B; index += STABLE_STEP) {
		struct folio *folio = c->stable[index / STABLE_STEP];

		assert_ptr_equal(xa_load(&env.mapping.i_pages, index), folio);
		assert_int_equal(folio_ref_count(folio), 1);
	}
	assert_mapping_ok(&env.mapping);
	for (i = 0; i < 3; i++)
		env.nodes0 -= c->nodes[i];
	free(c);
	fm_fini(&env);
}

/* ---- 4. the retry's spare node ----------------------------------------- */

#define NOMEM_ROUNDS	(ADD_ROUNDS / 2)

struct nomem_race {
	struct address_space *mapping;
	struct folio *folio[2];
	int ret[2];
	int64_t nodes[2];
	pthread_barrier_t start, done;
	bool stop;
};

struct nomem_adder {
	struct nomem_race *race;
	unsigned int id;
};

static void *nomem_adder_thread(void *p)
{
	struct nomem_adder *me = p;
	struct nomem_race *race = me->race;

	for (;;) {
		pthread_barrier_wait(&race->start);
		if (__atomic_load_n(&race->stop, __ATOMIC_ACQUIRE))
			break;
		race->ret[me->id] = filemap_add_folio(race->mapping,
						      race->folio[me->id],
						      64 + me->id, GFP_KERNEL);
		pthread_barrier_wait(&race->done);
	}
	race->nodes[me->id] = fm_nodes_live();
	return NULL;
}

/*
 * Folios at 0 and 200 give the tree a root node with leaves for 0..63
 * and 192..255; the two adds at 64 and 65 both need the missing leaf,
 * and the first node allocation of the round fails.  Before the fix, a
 * node was left over in about half the rounds under TSan.
 */
static void test_add_nomem_retry_frees_spare(void **state)
{
	struct nomem_adder adders[2];
	pthread_t threads[2];
	struct nomem_race race = { 0 };
	struct fm_env env;
	unsigned int round, i;

	(void)state;
	fm_init(&env, 0);
	race.mapping = &env.mapping;
	assert_int_equal(pthread_barrier_init(&race.start, NULL, 3), 0);
	assert_int_equal(pthread_barrier_init(&race.done, NULL, 3), 0);
	for (i = 0; i < 2; i++) {
		adders[i] = (struct nomem_adder){ &race, i };
		assert_int_equal(pthread_create(&threads[i], NULL,
						nomem_adder_thread,
						&adders[i]), 0);
	}
	for (round = 0; round < NOMEM_ROUNDS; round++) {
		fm_add(&env, 0, 0);
		fm_add(&env, 200, 0);
		for (i = 0; i < 2; i++)
			race.folio[i] = fm_alloc(&env, 0);
		upc_fault_fail_nth(1);
		pthread_barrier_wait(&race.start);
		pthread_barrier_wait(&race.done);
		upc_fault_fail_nth(0);
		for (i = 0; i < 2; i++) {
			assert_int_equal(race.ret[i], 0);
			fm_unlock_put(race.folio[i]);
		}
		truncate_inode_pages(&env.mapping, 0);
		assert_true(xa_empty(&env.mapping.i_pages));
	}
	__atomic_store_n(&race.stop, true, __ATOMIC_RELEASE);
	pthread_barrier_wait(&race.start);
	for (i = 0; i < 2; i++) {
		assert_int_equal(pthread_join(threads[i], NULL), 0);
		env.nodes0 -= race.nodes[i];
	}
	pthread_barrier_destroy(&race.start);
	pthread_barrier_destroy(&race.done);
	fm_fini(&env);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_concurrent_adds),
		cmocka_unit_test(test_split_hook_other_shadow9),
		cmocka_unit_test(test_split_hook_shadow6),
		cmocka_unit_test(test_split_hook_shadow3),
		cmocka_unit_test(test_split_hook_shadow0),
		cmocka_unit_test(test_split_hook_nothing),
		cmocka_unit_test(test_split_hook_folio9),
		cmocka_unit_test(test_split_hook_folio_same_index),
		cmocka_unit_test(test_split_hook_folio_elsewhere),
		cmocka_unit_test(test_lookups_vs_writers),
		cmocka_unit_test(test_add_nomem_retry_frees_spare),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
