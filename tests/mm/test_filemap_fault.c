// SPDX-License-Identifier: MIT
/*
 * tests/mm/test_filemap_fault.c - the page cache when allocations fail.
 *
 * Each scenario is run with upc_fault_fail_nth(n) for n = 1, 2, ...:
 * the n-th allocation attempt (an XArray node, a split's preallocation,
 * a folio) fails, until the scenario makes fewer than n attempts, so
 * every allocation point of the path fails once.  Whatever fails, the
 * operation must either succeed or report -ENOMEM (filemap_grab_folios()
 * may also come back short, with a gap-free run), leave a tree that
 * upc_check_mapping() accepts and that still holds what it held where
 * nothing was added, and leak nothing: after truncating the mapping no
 * page stays charged and every node allocated was freed (fm_fini()).
 */
#include "filemap_helpers.h"
#include "fault.h"

/* Give up on a scenario that never stops allocating. */
#define MAX_NTH		20000

/* One armed run: the attempts it made and whether the failure hit. */
struct armed {
	unsigned long attempts;
	bool injected;
};

static void arm(unsigned long n)
{
	upc_fault_fail_nth(n);
}

static struct armed disarm(void)
{
	struct armed a = { upc_fault_attempts(), upc_fault_injected() };

	upc_fault_fail_nth(0);
	return a;
}

/*
 * End of one run with the n-th attempt failing.  Return: true when the
 * scenario made fewer than @n attempts, so every point has been failed.
 */
static bool run_done(const struct armed *a, unsigned long n, int *failed)
{
	assert_true(n < MAX_NTH);
	if (a->attempts >= n)
		assert_true(a->injected);
	if (a->injected)
		(*failed)++;
	return a->attempts < n;
}

/* fault_env() - fm_init() @env with @flags, then @setup it (if any). */
static void fault_env(struct fm_env *env, unsigned long flags,
		      void (*setup)(struct fm_env *))
{
	fm_init(env, flags);
	if (setup)
		setup(env);
}

/*
 * assert_add_failed() - An add of @folio returned @ret in run @a: it
 * failed with -ENOMEM because of the injected failure, and left the
 * folio out of the cache with only the caller's reference.
 */
static void assert_add_failed(int ret, const struct armed *a,
			      struct folio *folio)
{
	assert_int_equal(ret, -ENOMEM);
	assert_true(a->injected);
	assert_null(folio->mapping);
	assert_int_equal(folio_ref_count(folio), 1);
}

/* ---- filemap_add_folio() ------------------------------------------------- */

/* An add needing @order at @index in a mapping set up by @setup. */
static void add_faults(unsigned long flags, void (*setup)(struct fm_env *),
		       pgoff_t index, unsigned int order)
{
	unsigned long n;
	int failed = 0, ok = 0;

	for (n = 1; ; n++) {
		unsigned long nrpages;
		struct folio *folio;
		struct fm_env env;
		struct armed a;
		int ret;

		fault_env(&env, flags, setup);
		nrpages = env.mapping.nrpages;
		folio = fm_alloc(&env, order);
		arm(n);
		ret = filemap_add_folio(&env.mapping, folio, index, GFP_KERNEL);
		a = disarm();
		if (ret == 0) {
			ok++;
			assert_ptr_equal(xa_load(&env.mapping.i_pages, index),
					 folio);
			assert_int_equal(env.mapping.nrpages,
					 nrpages + folio_nr_pages(folio));
			assert_int_equal(folio_ref_count(folio),
					 1 + (int)folio_nr_pages(folio));
		} else {
			assert_add_failed(ret, &a, folio);
			assert_null(xa_load(&env.mapping.i_pages, index));
			assert_int_equal(env.mapping.nrpages, nrpages);
		}
		assert_mapping_ok(&env.mapping);
		fm_unlock_put(folio);
		fm_fini(&env);
		if (run_done(&a, n, &failed))
			break;
	}
	/* The path allocates, and some failure was seen through. */
	assert_true(n > 1);
	assert_true(failed > 0);
	assert_true(ok > 0);
	fprintf(stderr, "# add order %u at %lu: %lu points, %d added\n", order,
		index, n - 1, ok);
}

static void setup_small(struct fm_env *env)
{
	fm_add_range(env, 0, 3);
}

static void test_add_faults(void **state)
{
	(void)state;
	/* Empty mapping, a two-level tree. */
	add_faults(0, NULL, 1000, 0);
	/* A new leaf and a new level in a populated mapping. */
	add_faults(0, setup_small, 100000, 0);
	add_faults(0, setup_small, 1UL << 30, 0);
	/* Large folios: an entry in an upper node, siblings in a leaf. */
	add_faults(FM_LARGE, setup_small, 512, 9);
	add_faults(FM_LARGE, setup_small, 4096 + 64, 6);
	add_faults(FM_LARGE, setup_small, 4096 + 16, 4);
}

/* ---- adds that split an order-9 shadow ---------------------------------- */

static void setup_shadow9(struct fm_env *env)
{
	fm_add(env, 0, 0);
	fm_put_shadow(env, 512, 9, 9);
}

/* An add of @order at @index splits the order-9 shadow at 512. */
static void split_faults(pgoff_t index, unsigned int order)
{
	unsigned long n;
	int failed = 0, ok = 0;

	for (n = 1; ; n++) {
		struct folio *folio;
		struct fm_env env;
		struct armed a;
		void *shadow = NULL;
		int ret;

		fm_init(&env, FM_LARGE);
		setup_shadow9(&env);
		folio = fm_alloc(&env, order);
		arm(n);
		ret = __filemap_add_folio(&env.mapping, folio, index,
					  GFP_KERNEL, &shadow);
		a = disarm();
		if (ret == 0) {
			pgoff_t end = index + folio_nr_pages(folio);

			ok++;
			assert_ptr_equal(shadow, fm_shadow(9));
			fm_assert_entry(&env.mapping, index, end - 1, folio,
					(int)order);
			fm_assert_cut_shadow(&env.mapping, 512, 9, index,
					     order, fm_shadow(9));
			assert_int_equal(env.mapping.nrpages,
					 1 + folio_nr_pages(folio));
		} else {
			assert_add_failed(ret, &a, folio);
			/* The shadow is untouched. */
			fm_assert_entry(&env.mapping, 512, 1023, fm_shadow(9),
					9);
			assert_int_equal(env.mapping.nrpages, 1);
		}
		assert_mapping_ok(&env.mapping);
		fm_unlock_put(folio);
		fm_fini(&env);
		if (run_done(&a, n, &failed))
			break;
	}
	/* A split within one node level needs no allocation at all. */
	assert_int_equal(failed, n - 1);
	assert_true(ok > 0);
	fprintf(stderr, "# split add order %u at %lu: %lu points, %d added\n",
		order, index, n - 1, ok);
}

static void test_add_split_faults(void **state)
{
	(void)state;
	split_faults(515, 0);
	split_faults(512, 0);
	split_faults(1023, 0);
	split_faults(528, 4);
	split_faults(576, 6);
	split_faults(768, 8);
	/* ... and an order-0 folio needs the leaf below. */
	split_faults(600, 0);
}

/* ---- filemap_grab_folios() ----------------------------------------------- */

/*
 * The folios of a grab: a gap-free run from @index, locked, each cached
 * at its index with a reference for us.
 */
static void check_run(struct address_space *mapping, pgoff_t index,
		      struct folio **folios, int nr, unsigned int want)
{
	pgoff_t next = index;
	int i;

	assert_true(nr >= 1);
	assert_true(folio_contains(folios[0], index));
	for (i = 0; i < nr; i++) {
		if (i)
			assert_int_equal(folios[i]->index, next);
		assert_true(folio_test_locked(folios[i]));
		assert_ptr_equal(folios[i]->mapping, mapping);
		assert_ptr_equal(xa_load(&mapping->i_pages, folios[i]->index),
				 folios[i]);
		next = folio_next_index(folios[i]);
	}
	/* No more than asked for, but what started before @index. */
	assert_true(next - index <= want + folio_nr_pages(folios[nr - 1]));
}

static void grab_setup_mixed(struct fm_env *env)
{
	fm_add(env, 96, 4);		/* starts before the run */
	fm_add(env, 120, 0);
	fm_put_shadow(env, 121, 0, 121);
	fm_put_shadow(env, 512, 9, 9);	/* the run ends inside */
}

static void grab_faults(unsigned long flags, void (*setup)(struct fm_env *),
			pgoff_t index, unsigned int nr)
{
	struct folio *folios[FILEMAP_GRAB_MAX];
	unsigned long n;
	int failed = 0, full = 0, partial = 0;

	for (n = 1; ; n++) {
		struct fm_env env;
		struct armed a;
		int ret;

		fault_env(&env, flags, setup);
		arm(n);
		ret = filemap_grab_folios(&env.mapping, index, nr, folios);
		a = disarm();
		if (ret < 0) {
			assert_int_equal(ret, -ENOMEM);
			assert_true(a.injected);
		} else {
			check_run(&env.mapping, index, folios, ret, nr);
			if (folio_next_index(folios[ret - 1]) >= index + nr)
				full++;
			else
				partial++;
			assert_mapping_ok(&env.mapping);
			fm_unlock_put_all(folios, ret);
		}
		assert_mapping_ok(&env.mapping);
		fm_fini(&env);
		if (run_done(&a, n, &failed))
			break;
	}
	assert_true(failed > 0);
	assert_true(full > 0);
	fprintf(stderr, "# grab %lu+%u: %lu points, %d full, %d short\n",
		index, nr, n, full, partial);
}

static void test_grab_folios_faults(void **state)
{
	(void)state;
	grab_faults(0, NULL, 100, 40);
	grab_faults(0, grab_setup_mixed, 100, 440);
	grab_faults(FM_LARGE, NULL, 64, 200);
	grab_faults(FM_LARGE, grab_setup_mixed, 100, 440);
}

/* ---- __filemap_get_folio(FGP_CREAT) ------------------------------------- */

static void create_faults(unsigned long flags, void (*setup)(struct fm_env *),
			  pgoff_t index, size_t hint)
{
	const fgf_t fgp = FGP_CREAT | FGP_LOCK | FGP_ACCESSED |
			  fgf_set_order(hint);
	unsigned long n;
	int failed = 0, ok = 0;

	for (n = 1; ; n++) {
		struct folio *folio;
		struct fm_env env;
		struct armed a;

		fault_env(&env, flags, setup);
		arm(n);
		folio = __filemap_get_folio(&env.mapping, index, fgp,
					    GFP_KERNEL);
		a = disarm();
		if (IS_ERR(folio)) {
			assert_ptr_equal(folio, ERR_PTR(-ENOMEM));
			assert_true(a.injected);
			assert_true(xa_load(&env.mapping.i_pages, index) ==
				    NULL ||
				    xa_is_value(xa_load(&env.mapping.i_pages,
							index)));
		} else {
			ok++;
			assert_true(folio_contains(folio, index));
			assert_true(folio_test_locked(folio));
			assert_ptr_equal(folio->mapping, &env.mapping);
			assert_ptr_equal(xa_load(&env.mapping.i_pages, index),
					 folio);
			fm_unlock_put(folio);
		}
		assert_mapping_ok(&env.mapping);
		fm_fini(&env);
		if (run_done(&a, n, &failed))
			break;
	}
	assert_true(failed > 0);
	assert_true(ok > 0);
}

static void test_get_folio_create_faults(void **state)
{
	(void)state;
	create_faults(0, NULL, 1000, 0);
	create_faults(FM_LARGE, setup_small, 1024, UPC_HUGE_SIZE);
	create_faults(FM_LARGE, setup_small, 64, 64 * 1024);
	/* Over a shadow to split. */
	create_faults(0, setup_shadow9, 700, 0);
	create_faults(FM_LARGE, setup_shadow9, 576, 256 * 1024);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_faults),
		cmocka_unit_test(test_add_split_faults),
		cmocka_unit_test(test_grab_folios_faults),
		cmocka_unit_test(test_get_folio_create_faults),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
