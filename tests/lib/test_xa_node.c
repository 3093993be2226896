// SPDX-License-Identifier: MIT
/*
 * tests/lib/test_xa_node.c - XArray node memory (lib/xa_node.c).
 *
 * An allocation that may not wait must not fail just because another
 * thread holds the shared node pool: a thread whose node cache is empty
 * then grows a slab of its own, so a GFP_NOWAIT store succeeds beside a
 * busy pool.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <upcache/check.h>
#include <upcache/xarray.h>

#include "xa_node.h"
#include "xa_test.h"

struct nowait_store {
	struct xarray *xa;
	sem_t done;
	void *ret;
};

/* A new thread (empty node cache) stores with GFP_NOWAIT. */
static void *nowait_store_thread(void *arg)
{
	struct nowait_store *s = arg;

	s->ret = xa_store(s->xa, 1UL << 30, P(1), GFP_NOWAIT);
	sem_post(&s->done);
	return NULL;
}

static void test_nowait_beside_busy_pool(void **state)
{
	DEFINE_XARRAY(xa);
	struct nowait_store s = { .xa = &xa };
	pthread_t thread;

	(void)state;
	assert_int_equal(sem_init(&s.done, 0, 0), 0);
	/* Hold the pool's lock while the thread allocates its nodes. */
	xa_node_atfork_prepare();
	assert_int_equal(pthread_create(&thread, NULL, nowait_store_thread,
					&s), 0);
	while (sem_wait(&s.done) != 0)
		assert_int_equal(errno, EINTR);
	xa_node_atfork_release();
	/* Its exit returns the cache to the pool: after the release. */
	assert_int_equal(pthread_join(thread, NULL), 0);
	sem_destroy(&s.done);
	assert_null(s.ret);
	assert_ptr_equal(xa_load(&xa, 1UL << 30), P(1));
	xat_fini(&xa);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nowait_beside_busy_pool),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
