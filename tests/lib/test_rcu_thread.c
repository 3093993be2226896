// SPDX-License-Identifier: MIT
/*
 * tests/lib/test_rcu_thread.c - threads that use XArrays and never call
 * RCU themselves.
 *
 * upcache promises that an application thread can read and write XArrays
 * without registering with RCU or calling any RCU function: registration
 * happens on first use and is undone when the thread exits, and the nodes
 * a thread freed or still held in its caches are reclaimed.  This file
 * checks that: writer-only and reader-only threads come and go, grace
 * periods still complete afterwards (upc_rcu_synchronize(),
 * upc_rcu_barrier()), node memory does not grow round after round,
 * readers running beside a writer only ever see whole entries, a
 * thread's frees after its exit hook ran (from a destructor of its own)
 * and its frees short of a batch are reclaimed by upc_rcu_barrier(), the
 * counters of upcache/stats.h are per thread, and a child of fork() can
 * go on using XArrays whatever the parent's threads were doing.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <upcache/check.h>
#include <upcache/rcu.h>
#include <upcache/stats.h>
#include <upcache/xarray.h>

#include "rand.h"
#include "xa_test.h"

#if defined(UPC_SANITIZE_ADDRESS) || defined(UPC_SANITIZE_THREAD)
#define UPC_TEST_SANITIZED 1
size_t __sanitizer_get_current_allocated_bytes(void);
#ifdef UPC_SANITIZE_ADDRESS
int __asan_address_is_poisoned(void const volatile *addr);
#endif
#else
#include <malloc.h>
#endif

/* Bytes of heap in use, from the allocator actually in use. */
static size_t heap_in_use(void)
{
#ifdef UPC_TEST_SANITIZED
	return __sanitizer_get_current_allocated_bytes();
#else
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
#endif
}

static void run_thread(void *(*fn)(void *), void *arg)
{
	pthread_t t;

	assert_int_equal(pthread_create(&t, NULL, fn, arg), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
}

/* Fail instead of hanging if a grace period never ends. */
static void arm_watchdog(void)
{
	alarm(120);
}

static void disarm_watchdog(void)
{
	alarm(0);
}

/* ------------------------------------------------------------------ */
/* Per-thread counters                                                */
/* ------------------------------------------------------------------ */

struct stats_job {
	unsigned long base;
	unsigned int nr;
	struct upc_thread_stats start;	/* at thread start */
	struct upc_thread_stats mid;	/* after the stores */
	struct upc_thread_stats end;	/* after xa_destroy */
	int bad_loads;
};

/* Build a private array, read it back, destroy it; record the counters. */
static void *stats_thread(void *arg)
{
	struct stats_job *job = arg;
	struct xarray xa;
	unsigned int i;

	upc_stats_thread(&job->start);
	xa_init(&xa);
	for (i = 0; i < job->nr; i++)
		xa_store(&xa, job->base + (unsigned long)i * 97, xa_mk_value(i),
			 GFP_KERNEL);
	for (i = 0; i < job->nr; i++)
		if (xa_load(&xa, job->base + (unsigned long)i * 97) != xa_mk_value(i))
			job->bad_loads++;
	upc_stats_thread(&job->mid);
	xa_destroy(&xa);
	upc_stats_thread(&job->end);
	return NULL;
}

static void test_stats_per_thread(void **state)
{
	struct stats_job a = { .base = 0, .nr = 3000 };
	struct stats_job b = { .base = 0, .nr = 3000 };
	struct upc_thread_stats before, after;
	pthread_t ta, tb;

	(void)state;
	upc_stats_thread(&before);
	/* Two threads doing the same work at the same time. */
	assert_int_equal(pthread_create(&ta, NULL, stats_thread, &a), 0);
	assert_int_equal(pthread_create(&tb, NULL, stats_thread, &b), 0);
	assert_int_equal(pthread_join(ta, NULL), 0);
	assert_int_equal(pthread_join(tb, NULL), 0);
	upc_stats_thread(&after);

	/* Nothing they did shows up here. */
	assert_int_equal(after.xa_walks, before.xa_walks);
	assert_int_equal(after.xa_node_allocs, before.xa_node_allocs);
	assert_int_equal(after.xa_node_frees, before.xa_node_frees);
	assert_int_equal(after.lock_acquires, before.lock_acquires);

	/* A new thread starts from zero. */
	assert_int_equal(a.start.xa_walks, 0);
	assert_int_equal(a.start.xa_node_allocs, 0);
	assert_int_equal(a.start.xa_node_frees, 0);
	assert_int_equal(a.start.lock_acquires, 0);
	assert_int_equal(a.bad_loads, 0);
	assert_int_equal(b.bad_loads, 0);

	/* Each saw exactly its own work: the same as the other. */
	assert_int_equal(a.mid.lock_acquires, a.nr);
	assert_int_equal(a.mid.xa_walks, 2 * a.nr);	/* one per store, one per load */
	assert_true(a.mid.xa_node_allocs > 0);
	assert_int_equal(a.mid.xa_node_allocs, b.mid.xa_node_allocs);
	assert_int_equal(a.mid.xa_walks, b.mid.xa_walks);
	assert_int_equal(a.mid.lock_acquires, b.mid.lock_acquires);
	assert_int_equal(a.end.xa_node_frees, a.mid.xa_node_allocs);
	assert_int_equal(b.end.xa_node_frees, b.mid.xa_node_allocs);
	assert_int_equal(a.end.lock_acquires, a.nr + 1);
	arm_watchdog();
	upc_rcu_barrier();
	disarm_watchdog();
}

/* ------------------------------------------------------------------ */
/* Memory comes back                                                  */
/* ------------------------------------------------------------------ */

struct writer_job {
	struct xarray *xa;	/* shared array, or NULL for a private one */
	unsigned long nr;
	unsigned long allocs, frees;
};

/*
 * A writer that never reads: stores spread out enough to need many nodes
 * (a count that is not a multiple of 64, so some frees are still pending
 * and some cached nodes unused when it exits), then destroys the array.
 */
static void *writer_only_thread(void *arg)
{
	struct writer_job *job = arg;
	struct upc_thread_stats s;
	struct xarray local;
	struct xarray *xa = job->xa;
	unsigned long i;

	if (!xa) {
		xa_init(&local);
		xa = &local;
	}
	for (i = 0; i < job->nr; i++)
		xa_store(xa, i * XA_CHUNK_SIZE, xa_mk_value(i), GFP_KERNEL);
	xa_destroy(xa);
	upc_stats_thread(&s);
	job->allocs = s.xa_node_allocs;
	job->frees = s.xa_node_frees;
	return NULL;
}

static size_t writer_round(struct writer_job *job)
{
	run_thread(writer_only_thread, job);
	assert_true(job->allocs > 0);
	assert_int_equal(job->allocs, job->frees);
	arm_watchdog();
	upc_rcu_barrier();
	disarm_watchdog();
	return heap_in_use();
}

/*
 * writer_rounds() - Two rounds of @job to warm up (the pool grows to
 * what one round needs), then 12 more: *@warm is the heap in use after
 * the warm-up, *@now after the last round.
 */
static void writer_rounds(struct writer_job *job, size_t *warm, size_t *now)
{
	unsigned int round;

	writer_round(job);
	*warm = writer_round(job);
	for (round = 0; round < 12; round++)
		*now = writer_round(job);
}

static void test_writer_threads_reclaimed(void **state)
{
	struct writer_job job = { .xa = NULL, .nr = 100 };
	size_t warm, now = 0;
	/* One slab of nodes, the unit the node pool grows by. */
	const size_t slab = 64 * sizeof(struct xa_node);

	(void)state;
	writer_rounds(&job, &warm, &now);
	/*
	 * Nodes a dead thread held (pending frees, its cache) must come back
	 * to the pool; otherwise every round would take at least one slab.
	 */
	if (now > warm + 2 * slab)
		fail_msg("heap grew from %zu to %zu bytes over 12 thread rounds",
			 warm, now);

	/* The same with a shared array destroyed by each thread. */
	{
		DEFINE_XARRAY(shared);

		job.xa = &shared;
		job.nr = 300;
		writer_rounds(&job, &warm, &now);
		if (now > warm + 2 * slab)
			fail_msg("shared array: heap grew from %zu to %zu bytes",
				 warm, now);
		assert_true(xa_empty(&shared));
		assert_xa_ok(&shared);
	}
}

/*
 * node_reclaimed() - Has the RCU callback run on @node: cleared it and
 * given it back to the pool?  Pool memory stays the process's, so the
 * node can be looked at; with ASan the callback poisons it instead.
 */
static bool node_reclaimed(struct xa_node *node)
{
#ifdef UPC_SANITIZE_ADDRESS
	return __asan_address_is_poisoned(&node->slots[0]);
#else
	return !node->array && !node->parent && !node->shift;
#endif
}

/*
 * node_churn() - Build a one-node array, destroy it, return the node:
 * freed but, one node being far from a full batch, still pending on
 * the calling thread.
 */
static struct xa_node *node_churn(void)
{
	DEFINE_XARRAY(xa);
	struct xa_node *node;

	/* Two entries: the head is a node of their own. */
	xa_store(&xa, 0, xa_mk_value(0), GFP_KERNEL);
	xa_store(&xa, 1, xa_mk_value(1), GFP_KERNEL);
	assert_true(xa_is_node(xa.xa_head));
	node = xa_to_node(xa.xa_head);
	assert_ptr_equal(node->array, &xa);
	xa_destroy(&xa);
	assert_false(node_reclaimed(node));
	return node;
}

/*
 * A thread whose own thread-specific data destructor uses an XArray after
 * upcache's destructor already ran (destructors run in rounds, in no set
 * order, while any of them sets a value again).  That use registers the
 * thread anew and so arms upcache's destructor for the next round, which
 * hands the thread's pending frees to RCU.  If the thread still counted
 * as registered, nothing would: the freed node would never be reclaimed.
 */
static pthread_key_t late_key;

struct late_job {
	unsigned int calls;
	struct xa_node *node;
};

static void late_destructor(void *arg)
{
	struct late_job *job = arg;

	/* The first round may run before upcache's: come back next round. */
	if (job->calls++ == 0) {
		pthread_setspecific(late_key, job);
		return;
	}
	job->node = node_churn();
}

static void *late_user_thread(void *arg)
{
	/* An ordinary use first: upcache's destructor is armed. */
	(void)node_churn();
	pthread_setspecific(late_key, arg);
	return NULL;
}

static void test_exit_destructor_uses_xarray(void **state)
{
	struct late_job job = { 0 };

	(void)state;
	assert_int_equal(pthread_key_create(&late_key, late_destructor), 0);
	run_thread(late_user_thread, &job);
	assert_int_equal(pthread_key_delete(late_key), 0);
	assert_int_equal(job.calls, 2);
	assert_non_null(job.node);
	arm_watchdog();
	upc_rcu_barrier();
	disarm_watchdog();
	assert_true(node_reclaimed(job.node));
}

/*
 * upc_rcu_barrier() waits for every deferred free, including the calling
 * thread's own frees still waiting for a full batch: a caller that
 * destroys its arrays and then the memory they pointed into relies on
 * that.
 */
static void test_barrier_completes_own_frees(void **state)
{
	struct xa_node *node = node_churn();

	(void)state;
	arm_watchdog();
	upc_rcu_barrier();
	disarm_watchdog();
	assert_true(node_reclaimed(node));
}

/* ------------------------------------------------------------------ */
/* Readers come and go                                                */
/* ------------------------------------------------------------------ */

struct reader_job {
	struct xarray *xa;
	unsigned long nr;
	unsigned long found;
	int bad;
};

/* Reads through the normal API only; never calls RCU itself. */
static void *reader_only_thread(void *arg)
{
	struct reader_job *job = arg;
	unsigned long i, index;
	void *e;

	for (i = 0; i < job->nr; i++) {
		e = xa_load(job->xa, i * 13);
		if (e && e != xa_mk_value(i * 13))
			job->bad++;
		if (e)
			job->found++;
	}
	xa_for_each(job->xa, index, e)
		if (e != xa_mk_value(index))
			job->bad++;
	return NULL;
}

static void test_reader_threads_exit(void **state)
{
	DEFINE_XARRAY(xa);
	unsigned long i;
	unsigned int t;

	(void)state;
	for (i = 0; i < 20000; i += 2)
		xa_store(&xa, i, xa_mk_value(i), GFP_KERNEL);
	for (t = 0; t < 16; t++) {
		struct reader_job job = { .xa = &xa, .nr = 1000 };

		run_thread(reader_only_thread, &job);
		assert_int_equal(job.bad, 0);
		assert_true(job.found > 0);
	}
	/* Grace periods still end once the readers are gone. */
	arm_watchdog();
	upc_rcu_synchronize();
	for (i = 0; i < 20000; i += 2)
		xa_erase(&xa, i);
	upc_rcu_barrier();
	upc_rcu_synchronize();
	disarm_watchdog();
	assert_true(xa_empty(&xa));
	assert_xa_ok(&xa);
}

/* ------------------------------------------------------------------ */
/* Readers beside a writer                                            */
/* ------------------------------------------------------------------ */

struct race {
	struct xarray xa;
	unsigned long ops;
	uint64_t seed;
	int stop;
	unsigned long reads;
	unsigned long hits;
	int bad;
	unsigned long bad_index;
};

/* Stores xa_mk_value(index) or erases, at low and very high indices. */
static void *race_writer(void *arg)
{
	struct race *r = arg;
	struct upc_rand rnd;
	unsigned long i;

	upc_rand_seed(&rnd, r->seed);
	for (i = 0; i < r->ops; i++) {
		unsigned long idx = upc_rand_chance(&rnd, 1, 8) ?
			(upc_rand_below(&rnd, 64) << 40) : upc_rand_below(&rnd, 8192);

		if (upc_rand_chance(&rnd, 1, 2))
			xa_store(&r->xa, idx, xa_mk_value(idx >> 1), GFP_KERNEL);
		else
			xa_erase(&r->xa, idx);
	}
	/* Empty it in the end, so the tree shrinks under the reader. */
	for (i = 0; i < 8192; i++)
		xa_erase(&r->xa, i);
	for (i = 0; i < 64; i++)
		xa_erase(&r->xa, i << 40);
	__atomic_store_n(&r->stop, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Every entry a reader sees must be the whole value for its index. */
static void *race_reader(void *arg)
{
	struct race *r = arg;
	struct upc_rand rnd;
	unsigned long index, prev;
	bool first;
	void *e;

	upc_rand_seed(&rnd, r->seed ^ 0x5eed);
	do {
		unsigned long idx = upc_rand_chance(&rnd, 1, 8) ?
			(upc_rand_below(&rnd, 64) << 40) : upc_rand_below(&rnd, 8192);

		e = xa_load(&r->xa, idx);
		r->reads++;
		if (e) {
			r->hits++;
			if (e != xa_mk_value(idx >> 1)) {
				r->bad++;
				r->bad_index = idx;
			}
		}
		if (r->reads % 512 && !__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE))
			continue;
		first = true;
		prev = 0;
		xa_for_each(&r->xa, index, e) {
			if (e != xa_mk_value(index >> 1) || (!first && index <= prev)) {
				r->bad++;
				r->bad_index = index;
			}
			first = false;
			prev = index;
		}
	} while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE));
	return NULL;
}

static void test_readers_beside_writer(void **state)
{
	struct race *r = calloc(1, sizeof(*r));
	pthread_t w, rd;

	(void)state;
	assert_non_null(r);
	xa_init(&r->xa);
	r->seed = upc_test_seed();
#ifdef UPC_TEST_SANITIZED
	r->ops = upc_test_env_ulong("UPC_RACE_OPS", 30000);
#else
	r->ops = upc_test_env_ulong("UPC_RACE_OPS", 200000);
#endif
	arm_watchdog();
	assert_int_equal(pthread_create(&rd, NULL, race_reader, r), 0);
	assert_int_equal(pthread_create(&w, NULL, race_writer, r), 0);
	assert_int_equal(pthread_join(w, NULL), 0);
	assert_int_equal(pthread_join(rd, NULL), 0);
	upc_rcu_barrier();
	disarm_watchdog();
	if (r->bad)
		fail_msg("seed %llu: reader saw %d torn entries (last at %#lx)",
			 (unsigned long long)r->seed, r->bad, r->bad_index);
	assert_true(r->reads > 0);
	assert_true(xa_empty(&r->xa));
	assert_xa_ok(&r->xa);
	free(r);
}

/* ------------------------------------------------------------------ */
/* fork()                                                             */
/* ------------------------------------------------------------------ */

static int held_in_section, release_section;

/* A reader that sits inside a read-side section until told to leave. */
static void *section_holder(void *arg)
{
	(void)arg;
	upc_rcu_read_lock();
	__atomic_store_n(&held_in_section, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&release_section, __ATOMIC_ACQUIRE))
		usleep(1000);
	upc_rcu_read_unlock();
	return NULL;
}

/* Store and erase @n entries far apart: nodes made, then freed by RCU. */
static void churn(unsigned long n)
{
	DEFINE_XARRAY(xa);
	unsigned long i;

	for (i = 0; i < n; i++)
		assert_null(xa_store(&xa, i << 12, xa_mk_value(i), GFP_KERNEL));
	for (i = 0; i < n; i++)
		xa_erase(&xa, i << 12);
	xa_destroy(&xa);
}

/*
 * A child of fork() goes on using XArrays: grace periods end although a
 * parent thread was inside a read-side section at the fork (the child
 * does not have that thread), and the nodes it frees come back through
 * a call_rcu worker of its own.  The child reports with its exit status;
 * a hang is ended by its alarm.
 */
static void test_fork_child_uses_rcu(void **state)
{
	pthread_t holder;
	int status, i;
	pid_t pid;

	(void)state;
	arm_watchdog();
	churn(4096);
	upc_rcu_barrier();
	__atomic_store_n(&release_section, 0, __ATOMIC_RELAXED);
	assert_int_equal(pthread_create(&holder, NULL, section_holder, NULL),
			 0);
	while (!__atomic_load_n(&held_in_section, __ATOMIC_ACQUIRE))
		usleep(1000);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		alarm(30);
		upc_rcu_synchronize();
		churn(4096);
		upc_rcu_barrier();
		_exit(0);
	}
	/*
	 * The parent keeps the deadline: a child whose fork handler broke
	 * may have every signal blocked, its alarm too.
	 */
	for (i = 0; i < 60000 && waitpid(pid, &status, WNOHANG) == 0; i++)
		usleep(1000);
	if (i == 60000) {
		kill(pid, SIGKILL);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		fail_msg("the child did not finish in 60 s");
	}
	__atomic_store_n(&release_section, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(holder, NULL), 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* And the parent's RCU still works. */
	churn(4096);
	upc_rcu_barrier();
	disarm_watchdog();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		/* First: the node pool must not be full of other tests' nodes. */
		cmocka_unit_test(test_writer_threads_reclaimed),
		cmocka_unit_test(test_stats_per_thread),
		cmocka_unit_test(test_exit_destructor_uses_xarray),
		cmocka_unit_test(test_barrier_completes_own_frees),
		cmocka_unit_test(test_reader_threads_exit),
		cmocka_unit_test(test_readers_beside_writer),
		cmocka_unit_test(test_fork_child_uses_rcu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
