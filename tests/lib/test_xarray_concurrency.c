// SPDX-License-Identifier: MIT
/*
 * tests/lib/test_xarray_concurrency.c - lockless XArray readers against
 * writers, and threads that come and go.
 *
 * This file owns the concurrency test.  Every entry stored is a value
 * that says which aligned range it was stored for: (first << 7) | order.
 * A reader can therefore check every result on its own: whatever it
 * finds at index i must be NULL or a value whose range contains i, no
 * matter what the writers are doing (RCU lookups never see a half-made
 * node, a freed node, or another index's entry).
 *
 * Writers own disjoint regions of the index space (one at 0, one far up
 * at 2^36, so the tree keeps growing and shrinking a level), which keeps
 * the encoding true: before storing a value for a range a writer removes
 * any larger entry covering it, and splits keep the old value, whose
 * range contains every piece.  Writers store, erase, store multi-index
 * entries, store and erase ranges, split (xas_split_alloc() +
 * xas_split(), xas_try_split()), set and clear marks, and now and then
 * empty their region.  Readers use xa_load(), xa_find() (also by mark),
 * xa_find_after(), and xas_for_each() under RCU.  A churn thread keeps
 * creating short-lived readers and short-lived writers (of a third
 * region), so threads register with RCU, allocate and free nodes from
 * their caches, and exit while the others run.
 *
 * Bounded in time: UPC_CONCURRENCY_MS (default 4000 ms, 1500 under
 * ThreadSanitizer, 2500 under ASan).  Clean under TSan and ASan.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include <upcache/check.h>
#include <upcache/rcu.h>
#include <upcache/xarray.h>

#include "rand.h"

#if defined(UPC_SANITIZE_THREAD) || defined(__SANITIZE_THREAD__)
#define DEFAULT_MS	1500UL
#elif defined(UPC_SANITIZE_ADDRESS) || defined(__SANITIZE_ADDRESS__)
#define DEFAULT_MS	2500UL
#else
#define DEFAULT_MS	4000UL
#endif

#define NR_WRITERS	2
#define NR_READERS	2
#define REGION_BITS	16
#define REGION_SIZE	(1UL << REGION_BITS)
#define CHURN_REGION	2

static const unsigned long region_base[3] = { 0, 1UL << 36, 1UL << 44 };

static struct xarray xa;
static int stop;
static unsigned long nr_failures;
static char first_failure[256];
static pthread_mutex_t failure_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t base_seed;
static unsigned long nr_reads, nr_writes;

/* ---- the encoding ---------------------------------------------------------- */

static void *enc(unsigned long first, unsigned int order)
{
	return xa_mk_value((first << 7) | order);
}

static unsigned long range_last(unsigned long first, unsigned int order)
{
	return first + ((1UL << order) - 1);
}

static unsigned long align(unsigned long index, unsigned int order)
{
	return index & ~((1UL << order) - 1);
}

static void __attribute__((format(printf, 1, 2))) failure(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&failure_lock);
	if (!nr_failures++) {
		va_start(ap, fmt);
		vsnprintf(first_failure, sizeof(first_failure), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&failure_lock);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
}

/* check() - May @entry be seen at @index? */
static bool check(const char *who, unsigned long index, const void *entry)
{
	unsigned long v, first;
	unsigned int order;

	if (!entry)
		return true;
	if (!xa_is_value(entry)) {
		failure("%s: index %#lx holds %p, not a value", who, index, entry);
		return false;
	}
	v = xa_to_value(entry);
	first = v >> 7;
	order = v & 127;
	if (order >= REGION_BITS || first != align(first, order) ||
	    index < first || index > range_last(first, order)) {
		failure("%s: index %#lx holds the value of [%#lx, order %u]",
			who, index, first, order);
		return false;
	}
	return true;
}

static bool stopped(void)
{
	return __atomic_load_n(&stop, __ATOMIC_RELAXED);
}

/* ---- readers ------------------------------------------------------------- */

static unsigned long pick_index(struct upc_rand *r)
{
	unsigned int region = (unsigned int)upc_rand_below(r, 3);

	return region_base[region] + upc_rand_below(r, REGION_SIZE);
}

static void read_once(struct upc_rand *r)
{
	unsigned long index = pick_index(r), found, max, prev;
	void *entry;
	unsigned int n;

	switch (upc_rand_below(r, 6)) {
	case 0:
	case 1:
		check("xa_load", index, xa_load(&xa, index));
		break;
	case 2:
		found = index;
		max = index + upc_rand_below(r, 4096);
		entry = xa_find(&xa, &found, max,
				upc_rand_below(r, 3) ? XA_PRESENT : XA_MARK_1);
		if (entry && (found < index || found > max))
			failure("xa_find(%#lx, %#lx) returned index %#lx",
				index, max, found);
		check("xa_find", found, entry);
		break;
	case 3:
		found = index;
		entry = xa_find_after(&xa, &found, ULONG_MAX, XA_PRESENT);
		if (entry && found <= index)
			failure("xa_find_after(%#lx) returned index %#lx",
				index, found);
		check("xa_find_after", found, entry);
		break;
	default: {
		XA_STATE(xas, &xa, index);

		max = index + upc_rand_below(r, 8192);
		prev = index;
		n = 0;
		upc_rcu_read_lock();
		xas_for_each(&xas, entry, max) {
			if (xas_retry(&xas, entry))
				continue;
			if (xas.xa_index < prev || xas.xa_index > max) {
				failure("xas_for_each from %#lx: index %#lx after %#lx",
					index, xas.xa_index, prev);
				break;
			}
			prev = xas.xa_index;
			if (!check("xas_for_each", xas.xa_index, entry) ||
			    ++n > 256)
				break;
		}
		upc_rcu_read_unlock();
		break;
	}
	}
}

static void *reader(void *arg)
{
	struct upc_rand r;
	unsigned long n = 0;

	upc_rand_seed(&r, base_seed + (uintptr_t)arg);
	for (; !stopped(); n++)
		read_once(&r);
	__atomic_add_fetch(&nr_reads, n, __ATOMIC_RELAXED);
	return NULL;
}

/* A short-lived reader: a few hundred lookups, then exit. */
static void *short_reader(void *arg)
{
	struct upc_rand r;
	unsigned int i;

	upc_rand_seed(&r, base_seed ^ (uintptr_t)arg);
	for (i = 0; i < 300 && !stopped(); i++)
		read_once(&r);
	return NULL;
}

/* ---- writers --------------------------------------------------------------- */

/* Remove a larger entry covering [first, first + 2^order) first. */
static void make_room(unsigned long first, unsigned int order)
{
	if (xa_load(&xa, first) && xa_get_order(&xa, first) > (int)order)
		xa_erase(&xa, first);
}

static void store_order(unsigned long first, unsigned int order)
{
	XA_STATE_ORDER(xas, &xa, first, order);

	make_room(first, order);
	do {
		xas_lock(&xas);
		xas_store(&xas, enc(first, order));
		xas_unlock(&xas);
	} while (xas_nomem(&xas, GFP_KERNEL));
	if (xas_error(&xas))
		failure("store of order %u at %#lx: error %d", order, first,
			xas_error(&xas));
}

/* The entry covering @index and its order, read locklessly. */
static void *lookup(unsigned long index, unsigned int *order)
{
	XA_STATE(xas, &xa, index);
	void *entry;

	upc_rcu_read_lock();
	do {
		entry = xas_load(&xas);
	} while (xas_retry(&xas, entry));
	*order = entry ? (unsigned int)xas_get_order(&xas) : 0;
	upc_rcu_read_unlock();
	return entry;
}

static void split(struct upc_rand *r, unsigned long index, bool uniform)
{
	unsigned int order, new;
	void *entry = lookup(index, &order);
	int err;

	if (!entry || !order)
		return;
	new = order - 1 - (unsigned int)upc_rand_below(r, order < 6 ? order : 6);
	if (uniform) {
		XA_STATE_ORDER(xas, &xa, index, new);

		xas_split_alloc(&xas, entry, order, GFP_KERNEL);
		if (!xas_error(&xas)) {
			xas_lock(&xas);
			xas_split(&xas, entry, order);
			xas_unlock(&xas);
		}
		err = xas_error(&xas);
		xas_destroy(&xas);
	} else {
		XA_STATE_ORDER(xas, &xa, index, new);

		do {
			xas_lock(&xas);
			xas_try_split(&xas, entry, order);
			xas_unlock(&xas);
		} while (xas_nomem(&xas, GFP_KERNEL));
		err = xas_error(&xas);
	}
	if (err)
		failure("%s split of order %u at %#lx to %u: error %d",
			uniform ? "uniform" : "non-uniform", order, index, new,
			err);
}

static void store_range(struct upc_rand *r, unsigned long index)
{
	unsigned int order = 1 + (unsigned int)upc_rand_below(r, 10);
	unsigned long first = align(index, order);
	unsigned long a = first + upc_rand_below(r, 1UL << order);
	unsigned long b = a + upc_rand_below(r, range_last(first, order) - a + 1);

	xa_store_range(&xa, a, b, NULL, GFP_KERNEL);
	if (xa_err(xa_store_range(&xa, a, b, enc(first, order), GFP_KERNEL)))
		failure("xa_store_range(%#lx, %#lx) failed", a, b);
}

static void write_once(struct upc_rand *r, unsigned int region)
{
	unsigned long base = region_base[region];
	unsigned long index = base + upc_rand_below(r, REGION_SIZE);
	unsigned long u = upc_rand_below(r, 1000);
	unsigned int order;

	if (u < 330) {
		if (xa_get_order(&xa, index))
			xa_erase(&xa, index);
		if (xa_err(xa_store(&xa, index, enc(index, 0), GFP_KERNEL)))
			failure("xa_store(%#lx) failed", index);
	} else if (u < 550) {
		xa_erase(&xa, index);
	} else if (u < 700) {
		order = 1 + (unsigned int)upc_rand_below(r, 8);
		if (upc_rand_below(r, 20) == 0)
			order = 9 + (unsigned int)upc_rand_below(r, 4);
		store_order(align(index, order), order);
	} else if (u < 770) {
		split(r, index, true);
	} else if (u < 840) {
		split(r, index, false);
	} else if (u < 900) {
		store_range(r, index);
	} else if (u < 950) {
		xa_set_mark(&xa, index, XA_MARK_1);
	} else if (u < 990) {
		xa_clear_mark(&xa, index, XA_MARK_1);
	} else if (u < 992) {
		/* Empty the whole region: the tree may shrink a level. */
		xa_store_range(&xa, base, base + REGION_SIZE - 1, NULL,
			       GFP_KERNEL);
	} else {
		check("writer xa_load", index, xa_load(&xa, index));
	}
}

static void *writer(void *arg)
{
	unsigned int region = (unsigned int)(uintptr_t)arg;
	struct upc_rand r;

	unsigned long n = 0;

	upc_rand_seed(&r, base_seed * 31 + region);
	for (; !stopped(); n++)
		write_once(&r, region);
	__atomic_add_fetch(&nr_writes, n, __ATOMIC_RELAXED);
	return NULL;
}

/* A short-lived writer of the churn region (one at a time). */
static void *short_writer(void *arg)
{
	struct upc_rand r;
	unsigned int i;

	upc_rand_seed(&r, base_seed * 77 + (uintptr_t)arg);
	for (i = 0; i < 200 && !stopped(); i++)
		write_once(&r, CHURN_REGION);
	return NULL;
}

/* ---- churn ----------------------------------------------------------------- */

static unsigned long nr_churned;

static void *churn(void *arg)
{
	unsigned long i;

	(void)arg;
	for (i = 0; !stopped(); i++) {
		pthread_t t[3];
		unsigned int n = 0, j;

		if (pthread_create(&t[n], NULL, short_reader, (void *)(1000 + i)) == 0)
			n++;
		if (i % 2 == 0 &&
		    pthread_create(&t[n], NULL, short_writer, (void *)i) == 0)
			n++;
		if (i % 3 == 0 &&
		    pthread_create(&t[n], NULL, short_reader, (void *)(5000 + i)) == 0)
			n++;
		for (j = 0; j < n; j++)
			pthread_join(t[j], NULL);
		__atomic_add_fetch(&nr_churned, n, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* ---- the test -------------------------------------------------------------- */

static void sleep_ms(unsigned long ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

/* Every entry left must be a value whose range contains its index. */
static void check_final(void)
{
	unsigned long index;
	void *entry;

	xa_for_each(&xa, index, entry)
		check("final", index, entry);
}

static void test_xarray_concurrency_readers_writers(void **state)
{
	unsigned long ms = upc_test_env_ulong("UPC_CONCURRENCY_MS", DEFAULT_MS);
	pthread_t readers[NR_READERS], writers[NR_WRITERS], churner;
	uintptr_t i;

	(void)state;
	base_seed = upc_test_seed();
	xa_init(&xa);
	fprintf(stderr, "# %d readers, %d writers, churn, for %lu ms\n",
		NR_READERS, NR_WRITERS, ms);
	for (i = 0; i < NR_WRITERS; i++)
		assert_int_equal(pthread_create(&writers[i], NULL, writer,
						(void *)i), 0);
	for (i = 0; i < NR_READERS; i++)
		assert_int_equal(pthread_create(&readers[i], NULL, reader,
						(void *)i), 0);
	assert_int_equal(pthread_create(&churner, NULL, churn, NULL), 0);

	sleep_ms(ms);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < NR_WRITERS; i++)
		pthread_join(writers[i], NULL);
	for (i = 0; i < NR_READERS; i++)
		pthread_join(readers[i], NULL);
	pthread_join(churner, NULL);

	fprintf(stderr, "# %lu reads, %lu writes, %lu short-lived threads came and went\n",
		nr_reads, nr_writes, nr_churned);
	check_final();
	if (nr_failures)
		fail_msg("%lu failure(s); first: %s (UPC_SEED=%llu)", nr_failures,
			 first_failure, (unsigned long long)base_seed);
	assert_int_equal(upc_check_xarray(&xa), 0);
	assert_true(__atomic_load_n(&nr_churned, __ATOMIC_RELAXED) > 0);
	xa_destroy(&xa);
	assert_true(xa_empty(&xa));
}

/* The readers' check rejects what it must (so the main test can fail). */
static void test_xarray_concurrency_check_rejects(void **state)
{
	(void)state;
	assert_true(check("self-test", 5, NULL));
	assert_true(check("self-test", 5, enc(5, 0)));
	assert_true(check("self-test", 7, enc(4, 2)));
	assert_int_equal(nr_failures, 0);
	assert_false(check("self-test", 8, enc(4, 2)));
	assert_false(check("self-test", 5, enc(6, 0)));
	assert_false(check("self-test", 5, enc(5, 1)));	/* unaligned */
	assert_false(check("self-test", 5, (void *)0x1000));
	assert_int_equal(nr_failures, 4);
	nr_failures = 0;
	stop = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xarray_concurrency_check_rejects),
		cmocka_unit_test(test_xarray_concurrency_readers_writers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
