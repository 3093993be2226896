/* SPDX-License-Identifier: MIT */
/*
 * tests/api/api_helpers.h - fixtures shared by the upc_ API tests
 * (tests/api/test_*.c).
 *
 * A struct api_env is one cache and one shmem file in it.  api_init()
 * creates them; api_fini() checks the file's page cache with
 * upc_check_mapping(), closes it, and asserts that nothing leaked: no
 * memory still charged, no file counted, the cache destroyed.  Helpers
 * here assert with cmocka, so only a test's main thread may call them.
 *
 * Static functions in a header: each test program includes this once.
 */
#ifndef UPCACHE_TESTS_API_HELPERS_H
#define UPCACHE_TESTS_API_HELPERS_H

#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <upcache/check.h>
#include <upcache/filemap.h>
#include <upcache/rcu.h>
#include <upcache/upcache.h>

#include "api/internal.h"

#define API_UNUSED	__attribute__((unused))
#define API_MIB		(1L << 20)
#define API_PAGE	4096L
#define API_HUGE	(2 * API_MIB)

/**
 * struct api_env - a cache and a file for one test.
 * @cache: The cache.
 * @file: A shmem file in it.
 */
struct api_env {
	struct upc_cache *cache;
	struct upc_file *file;
};

/* assert_file_ok() - upc_check_mapping() finds nothing wrong. */
#define assert_file_ok(file) \
	assert_int_equal(upc_check_mapping(upc_file_mapping(file)), 0)

/*
 * api_init() - A cache of @limit bytes and a file with policy @huge and
 * @flags in it.  Return: the file.
 */
static API_UNUSED struct upc_file *api_init(struct api_env *env, size_t limit,
					    enum upc_huge huge,
					    unsigned int flags)
{
	struct upc_cache_config cfg = { .memory_limit = limit };
	struct upc_shmem_options opts = { .huge = huge, .flags = flags };

	memset(env, 0, sizeof(*env));
	assert_int_equal(upc_cache_create(&cfg, &env->cache), 0);
	assert_int_equal(upc_shmem_create(env->cache, &opts, &env->file), 0);
	return env->file;
}

/* api_stats() - The cache's statistics now (upc_cache_stats()). */
static API_UNUSED struct upc_cache_stats api_stats(struct api_env *env)
{
	struct upc_cache_stats st;

	assert_int_equal(upc_cache_stats(env->cache, &st), 0);
	return st;
}

/* api_memory_used() - Bytes the cache has handed out as folios. */
static API_UNUSED uint64_t api_memory_used(struct api_env *env)
{
	return api_stats(env).memory_used;
}

/* api_pages_cached() - Pages in the cache's files. */
static API_UNUSED uint64_t api_pages_cached(struct api_env *env)
{
	return api_stats(env).pages_cached;
}

/*
 * api_fail_each() - Run a fault scenario with allocation n failing, for
 * n = 1, 2, 3 ... until a run makes fewer than n attempts, so that every
 * allocation point along the way fails once.
 * @run: Runs the scenario once with upc_fault_fail_nth(@n) armed;
 *	returns the attempts it made and says in *@injected whether the
 *	n-th one came (and failed).
 * @arg: Passed to @run.
 * @max: More allocation points than this fail the test.
 *
 * Return: The allocation points.
 */
static API_UNUSED unsigned long
api_fail_each(unsigned long (*run)(unsigned long n, void *arg, bool *injected),
	      void *arg, unsigned long max)
{
	unsigned long n;

	for (n = 1;; n++) {
		unsigned long attempts;
		bool injected;

		assert_true(n < max);
		attempts = run(n, arg, &injected);
		/* The n-th attempt, when there was one, failed. */
		assert_true(injected == (attempts >= n));
		if (!injected)
			return n - 1;
	}
}

/* api_fini() - Check, close, and check that nothing leaked. */
static API_UNUSED void api_fini(struct api_env *env)
{
	struct upc_cache_stats st;

	if (env->file) {
		assert_file_ok(env->file);
		assert_int_equal(upc_close(env->file), 0);
	}
	assert_int_equal(upc_cache_stats(env->cache, &st), 0);
	assert_int_equal(st.memory_used, 0);
	assert_int_equal(st.pages_cached, 0);
	assert_int_equal(st.files, 0);
	assert_int_equal(upc_cache_destroy(env->cache), 0);
	memset(env, 0, sizeof(*env));
}

/* The byte a pattern with @seed has at file offset @pos. */
static API_UNUSED unsigned char api_byte(int64_t pos, unsigned int seed)
{
	uint64_t x = (uint64_t)pos * 0x9e3779b97f4a7c15ull + seed;

	x ^= x >> 29;
	return (unsigned char)(x ^ (x >> 13) ^ seed) | 1;	/* never 0 */
}

/* api_fill() - @len bytes of pattern @seed as if placed at @pos. */
static API_UNUSED void api_fill(void *buf, size_t len, int64_t pos,
				unsigned int seed)
{
	unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = api_byte(pos + (int64_t)i, seed);
}

/* api_write_pattern() - Write @len bytes of pattern @seed at @pos. */
static API_UNUSED void api_write_pattern(struct upc_file *file, int64_t pos,
					 size_t len, unsigned int seed)
{
	char *buf = malloc(len ? len : 1);

	assert_non_null(buf);
	api_fill(buf, len, pos, seed);
	assert_int_equal(upc_write(file, buf, len, pos), (ssize_t)len);
	free(buf);
}

/*
 * api_check_pattern() - @buf, read from [@pos, @pos + @len), holds
 * pattern @seed, or zeros with @seed 0.
 */
static API_UNUSED void api_check_pattern(const unsigned char *buf,
					 int64_t pos, size_t len,
					 unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char want = seed ? api_byte(pos + (int64_t)i, seed) : 0;

		if (buf[i] != want)
			fail_msg("byte %" PRId64 ": %#x, expected %#x",
				 pos + (int64_t)i, buf[i], want);
	}
}

/*
 * api_expect() - Reading [@pos, @pos + @len) gives pattern @seed, or
 * zeros with @seed 0.
 */
static API_UNUSED void api_expect(struct upc_file *file, int64_t pos,
				  size_t len, unsigned int seed)
{
	unsigned char *buf = malloc(len ? len : 1);

	assert_non_null(buf);
	memset(buf, 0xee, len);
	assert_int_equal(upc_read(file, buf, len, pos), (ssize_t)len);
	api_check_pattern(buf, pos, len, seed);
	free(buf);
}

/*
 * api_folio_order() - The order of the folio caching @pos, or -1 if
 * none; *@uptodate (if not NULL) says whether it is uptodate.
 */
static API_UNUSED int api_folio_order(struct upc_file *file, int64_t pos,
				      bool *uptodate)
{
	void *entry = filemap_get_entry(upc_file_mapping(file),
					(pgoff_t)pos >> UPC_PAGE_SHIFT);
	struct folio *folio = entry;
	int order;

	if (!entry || xa_is_value(entry))
		return -1;
	order = (int)folio_order(folio);
	if (uptodate)
		*uptodate = folio_test_uptodate(folio);
	folio_put(folio);
	return order;
}

/*
 * api_swap_orders() - The swap entries of @mapping in [@first, @last],
 * read under RCU while everything moves.  Return: a mask with bit k set
 * for each order k met.  The first entry of order > 0 gives its first
 * page in *@index and its order in *@order; *@order is 0 if none.
 */
static API_UNUSED unsigned long api_swap_orders(struct address_space *mapping,
						pgoff_t first, pgoff_t last,
						pgoff_t *index,
						unsigned int *order)
{
	XA_STATE(xas, &mapping->i_pages, first);
	unsigned long seen = 0;
	void *entry;

	*order = 0;
	rcu_read_lock();
	xas_for_each(&xas, entry, last) {
		unsigned int k;

		if (xas_retry(&xas, entry) || !xa_is_value(entry))
			continue;
		k = (unsigned int)xas_get_order(&xas);
		seen |= 1UL << k;
		if (k && !*order) {
			*order = k;
			*index = xas.xa_index & ~((1UL << k) - 1);
		}
	}
	rcu_read_unlock();
	return seen;
}

/* For api_assert_swap_unshared(): a value entry's slots, from @first. */
struct api_swap_run {
	unsigned long first, nr, index;
};

static API_UNUSED int api_swap_run_cmp(const void *a, const void *b)
{
	const struct api_swap_run *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

/*
 * api_assert_swap_unshared() - No two swap entries of @file name the same
 * slot: an entry of order k owns the 2^k slots from its own.
 * upc_check_mapping() checks only that each names slots in use, which
 * two entries naming one slot (a large entry split without giving each
 * piece its own slots) pass.  Writers must be quiet.
 */
static API_UNUSED void api_assert_swap_unshared(struct upc_file *file)
{
	XA_STATE(xas, &upc_file_mapping(file)->i_pages, 0);
	struct api_swap_run *runs = NULL;
	size_t n = 0, cap = 0;
	void *entry;

	xas_lock(&xas);
	xas_for_each(&xas, entry, ULONG_MAX) {
		unsigned long nr;

		if (!xa_is_value(entry))
			continue;
		nr = 1UL << xas_get_order(&xas);
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			runs = realloc(runs, cap * sizeof(*runs));
			assert_non_null(runs);
		}
		runs[n++] = (struct api_swap_run){ xa_to_value(entry), nr,
						   xas.xa_index & ~(nr - 1) };
	}
	xas_unlock(&xas);
	if (n)
		qsort(runs, n, sizeof(*runs), api_swap_run_cmp);
	for (size_t i = 1; i < n; i++)
		if (runs[i - 1].first + runs[i - 1].nr > runs[i].first)
			fail_msg("pages %lu (%lu of them) and %lu (%lu) name "
				 "swap entries %#lx and %#lx, which overlap",
				 runs[i - 1].index, runs[i - 1].nr,
				 runs[i].index, runs[i].nr, runs[i - 1].first,
				 runs[i].first);
	free(runs);
}

#endif /* UPCACHE_TESTS_API_HELPERS_H */
