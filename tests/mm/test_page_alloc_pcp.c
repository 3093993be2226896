// SPDX-License-Identifier: MIT
/*
 * tests/mm/test_page_alloc_pcp.c - the per-CPU-like caches' drain, with
 * the CPU chosen by the test.
 *
 * This program defines sched_getcpu(), which the allocator asks for the
 * cache to use, so a test decides which cache each allocation takes and
 * can run a second allocation, "on another CPU", at the moment the first
 * asks again.  That replays, on one thread and every time, an
 * interleaving two threads hit only by chance: an allocation that found
 * its cache and the buddy lists empty drains every cache, and another
 * CPU's refill must not take the drained pages before the first
 * allocation gets one.  Also that the frontier (blocks never handed out)
 * is used before any drain, and the drain once the frontier is spent.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include <upcache/folio.h>

#include "../../mm/internal.h"

#define MiB	(1UL << 20)

/*
 * The CPU sched_getcpu() reports: the real one while @fake_cpu is
 * negative.  With @interleave set, each call after the first runs
 * other_cpu_alloc() before answering.
 */
static int fake_cpu = -1;
static bool interleave;
static unsigned int getcpu_calls;
static struct upc_arena *race_arena;
static struct folio *other_folio;

/* "Another CPU" (cache 1) allocates a page, as a refill would race. */
static void other_cpu_alloc(void)
{
	int saved = fake_cpu;

	interleave = false;
	fake_cpu = 1;
	other_folio = upc_arena_alloc_folio(race_arena, GFP_NOWAIT, 0);
	fake_cpu = saved;
}

int sched_getcpu(void)
{
	unsigned int cpu;

	if (fake_cpu < 0)
		return syscall(SYS_getcpu, &cpu, NULL, NULL) ? -1 : (int)cpu;
	if (interleave && ++getcpu_calls > 1)
		other_cpu_alloc();
	return fake_cpu;
}

/*
 * The arena full but for 20 pages in cache 1, and its charge 20 below
 * the limit: an allocation on CPU 0 finds cache 0 and the buddy lists
 * empty, so it drains.  The allocator used to drain, then ask for its
 * CPU again and retry with no lock held: there, this test lets another
 * CPU allocate (its refill took every drained page), and the first
 * allocation failed with 19 pages free.  Now the drain and the take are
 * one step under the locks and the CPU is not asked again, so no other
 * allocation can come between; either way the allocation must succeed.
 */
static void test_drain_then_take_is_one_step(void **state)
{
	struct folio *pool[512], *folio;
	unsigned int i;

	(void)state;
	assert_int_equal(upc_arena_create(2 * MiB, &race_arena), 0);
	fake_cpu = 1;
	for (i = 0; i < 512; i++) {
		pool[i] = upc_arena_alloc_folio(race_arena, GFP_NOWAIT, 0);
		assert_non_null(pool[i]);
	}
	for (i = 0; i < 20; i++)
		folio_put(pool[i]);
	assert_int_equal(race_arena->pcp[1].count, 20);

	fake_cpu = 0;
	getcpu_calls = 0;
	interleave = true;
	folio = upc_arena_alloc_folio(race_arena, GFP_NOWAIT, 0);
	interleave = false;
	assert_non_null(folio);
	assert_int_equal(upc_arena_check(race_arena), 0);

	folio_put(folio);
	if (other_folio)
		folio_put(other_folio);
	for (i = 20; i < 512; i++)
		folio_put(pool[i]);
	fake_cpu = -1;
	assert_int_equal(upc_arena_charged(race_arena), 0);
	assert_int_equal(upc_arena_check(race_arena), 0);
	upc_arena_destroy(race_arena);
}

/*
 * With the buddy lists empty but blocks left past the frontier, an
 * allocation on CPU 0 takes a new block and leaves the pages in cache 1
 * where they are: the frontier is free memory as good as the lists, and
 * cheaper than draining every cache.  Once the frontier reached the end,
 * a 2 MiB allocation the lists cannot satisfy drains every cache, and
 * the pages merge back into the block.
 */
static void test_frontier_before_drain(void **state)
{
	struct folio *pool[512], *folio, *huge;
	struct upc_arena *arena;
	unsigned int i;

	(void)state;
	assert_int_equal(upc_arena_create(4 * MiB, &arena), 0);
	fake_cpu = 1;
	for (i = 0; i < 512; i++) {
		pool[i] = upc_arena_alloc_folio(arena, GFP_NOWAIT, 0);
		assert_non_null(pool[i]);
		assert_true(folio_pfn(pool[i]) < 512);
	}
	assert_int_equal(arena_priv(arena)->frontier, 512);
	for (i = 0; i < 20; i++)
		folio_put(pool[i]);
	assert_int_equal(arena->pcp[1].count, 20);

	fake_cpu = 0;
	folio = upc_arena_alloc_folio(arena, GFP_NOWAIT, 0);
	assert_non_null(folio);
	assert_true(folio_pfn(folio) >= 512);
	assert_int_equal(arena_priv(arena)->frontier, arena->nr_pages);
	assert_int_equal(arena->pcp[1].count, 20);
	assert_int_equal(upc_arena_check(arena), 0);

	folio_put(folio);
	huge = upc_arena_alloc_folio(arena, GFP_NOWAIT, UPC_MAX_ORDER);
	assert_non_null(huge);
	assert_int_equal(folio_pfn(huge), 512);
	assert_int_equal(arena->pcp[0].count, 0);
	assert_int_equal(arena->pcp[1].count, 0);
	assert_int_equal(upc_arena_check(arena), 0);

	folio_put(huge);
	for (i = 20; i < 512; i++)
		folio_put(pool[i]);
	fake_cpu = -1;
	assert_int_equal(upc_arena_charged(arena), 0);
	assert_int_equal(upc_arena_check(arena), 0);
	upc_arena_destroy(arena);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drain_then_take_is_one_step),
		cmocka_unit_test(test_frontier_before_drain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
