// SPDX-License-Identifier: MIT
/*
 * tests/lib/test_workqueue_concurrency.c - lib/workqueue.c: every work
 * runs once, flush waits for what came before it, the pool grows to
 * max_active and no further, one worker keeps queue order, destroy runs
 * what is left, a thread that cannot start leaves the work to the
 * caller, workers block signals, and fork() waits for the pool to be
 * idle and leaves the child a pool that starts again.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "fault.h"
#include "workqueue.h"

#ifdef UPC_SANITIZE_THREAD
/*
 * test_fork's child starts a worker thread, as a program's child would;
 * ThreadSanitizer refuses that by default after a fork with threads.
 */
const char *__tsan_default_options(void);
const char *__tsan_default_options(void)
{
	return "die_after_fork=0";
}
#endif

/* A work that counts its runs and records its place in the run order. */
struct count_work {
	struct work_struct work;
	unsigned int runs;
	unsigned long order;
};

static unsigned long run_seq;

static void count_fn(struct work_struct *work)
{
	struct count_work *cw = (struct count_work *)work;

	__atomic_fetch_add(&cw->runs, 1, __ATOMIC_RELAXED);
	cw->order = __atomic_fetch_add(&run_seq, 1, __ATOMIC_RELAXED);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void test_bad_args(void **state)
{
	struct workqueue_struct *wq;

	(void)state;
	assert_null(alloc_workqueue(0));
	assert_null(alloc_workqueue(65));
	destroy_workqueue(NULL);
	/* The bounds themselves are allowed. */
	wq = alloc_workqueue(1);
	assert_non_null(wq);
	destroy_workqueue(wq);
	wq = alloc_workqueue(64);
	assert_non_null(wq);
	destroy_workqueue(wq);
	flush_workqueue(NULL);
}

/*
 * alloc_workqueue_once(): threads racing to make the queue all get the
 * one that is kept; a failure to make it keeps none and a later call
 * makes it.
 */
static struct workqueue_struct *once_wq;

static void *once_fn(void *arg)
{
	(void)arg;
	return alloc_workqueue_once(&once_wq, 2);
}

static void test_alloc_once(void **state)
{
	struct workqueue_struct *wq;
	pthread_t t[4];
	void *got[4];
	unsigned int k;

	(void)state;
	upc_fault_fail_nth(1);
	assert_null(alloc_workqueue_once(&once_wq, 2));
	upc_fault_fail_nth(0);
	assert_null(once_wq);
	for (k = 0; k < 4; k++)
		assert_int_equal(pthread_create(&t[k], NULL, once_fn, NULL), 0);
	for (k = 0; k < 4; k++)
		assert_int_equal(pthread_join(t[k], &got[k]), 0);
	wq = once_wq;
	assert_non_null(wq);
	for (k = 0; k < 4; k++)
		assert_ptr_equal(got[k], wq);
	assert_ptr_equal(alloc_workqueue_once(&once_wq, 2), wq);
	destroy_workqueue(wq);
}

/* Two threads queue 4000 works each: each runs once, at most 4 workers. */
#define PRODUCER_WORKS	4000

struct producer {
	struct workqueue_struct *wq;
	struct count_work *works;
};

static void *producer_fn(void *arg)
{
	struct producer *p = arg;
	unsigned int i;

	for (i = 0; i < PRODUCER_WORKS; i++) {
		p->works[i].work.func = count_fn;
		if (queue_work(p->wq, &p->works[i].work))
			return (void *)1;
	}
	return NULL;
}

static void test_each_work_runs_once(void **state)
{
	struct workqueue_struct *wq = alloc_workqueue(4);
	struct producer p[2];
	pthread_t t[2];
	unsigned int i, k;
	void *ret;

	(void)state;
	assert_non_null(wq);
	for (k = 0; k < 2; k++) {
		p[k].wq = wq;
		p[k].works = calloc(PRODUCER_WORKS, sizeof(*p[k].works));
		assert_non_null(p[k].works);
		assert_int_equal(pthread_create(&t[k], NULL, producer_fn,
						&p[k]), 0);
	}
	for (k = 0; k < 2; k++) {
		assert_int_equal(pthread_join(t[k], &ret), 0);
		assert_null(ret);
	}
	flush_workqueue(wq);
	for (k = 0; k < 2; k++)
		for (i = 0; i < PRODUCER_WORKS; i++)
			if (__atomic_load_n(&p[k].works[i].runs,
					    __ATOMIC_RELAXED) != 1)
				fail_msg("work %u of %u ran %u times", i, k,
					 p[k].works[i].runs);
	assert_in_range(workqueue_nr_workers(wq), 1, 4);
	destroy_workqueue(wq);
	free(p[0].works);
	free(p[1].works);
}

/* A work that blocks until released, counting how many block at once. */
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static unsigned int gate_inside, gate_most, gate_ran;
static bool gate_open;

static void gate_fn(struct work_struct *work)
{
	(void)work;
	pthread_mutex_lock(&gate_lock);
	gate_inside++;
	if (gate_inside > gate_most)
		gate_most = gate_inside;
	pthread_cond_broadcast(&gate_cond);
	while (!gate_open)
		pthread_cond_wait(&gate_cond, &gate_lock);
	gate_inside--;
	gate_ran++;
	pthread_mutex_unlock(&gate_lock);
}

static void gate_reset(void)
{
	gate_inside = gate_most = gate_ran = 0;
	gate_open = false;
}

/* Wait until @n gate works are inside it. */
static void gate_wait_inside(unsigned int n)
{
	pthread_mutex_lock(&gate_lock);
	while (gate_inside < n)
		pthread_cond_wait(&gate_cond, &gate_lock);
	pthread_mutex_unlock(&gate_lock);
}

/* Let every gate work through. */
static void gate_release(void)
{
	pthread_mutex_lock(&gate_lock);
	gate_open = true;
	pthread_cond_broadcast(&gate_cond);
	pthread_mutex_unlock(&gate_lock);
}

/* Queue @nr counting works, each with its counts reset. */
static void queue_counting(struct workqueue_struct *wq, struct count_work *works,
			   unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		works[i].work.func = count_fn;
		works[i].runs = 0;
		assert_int_equal(queue_work(wq, &works[i].work), 0);
	}
}

/* Five blocking works on a pool of three: three run at once, no more. */
static void test_pool_grows_to_max(void **state)
{
	struct workqueue_struct *wq = alloc_workqueue(3);
	struct work_struct works[5];
	unsigned int i;

	(void)state;
	assert_non_null(wq);
	gate_reset();
	assert_int_equal(workqueue_nr_workers(wq), 0);
	for (i = 0; i < 5; i++) {
		works[i].func = gate_fn;
		assert_int_equal(queue_work(wq, &works[i]), 0);
	}
	gate_wait_inside(3);
	sleep_ms(20);	/* a fourth would have started by now */
	pthread_mutex_lock(&gate_lock);
	assert_int_equal(gate_inside, 3);
	gate_open = true;
	pthread_cond_broadcast(&gate_cond);
	pthread_mutex_unlock(&gate_lock);
	flush_workqueue(wq);
	assert_int_equal(gate_ran, 5);
	assert_int_equal(gate_most, 3);
	assert_int_equal(workqueue_nr_workers(wq), 3);
	destroy_workqueue(wq);
}

/* A flush returns only once the work queued before it has finished. */
static bool slow_done;

static void slow_fn(struct work_struct *work)
{
	(void)work;
	sleep_ms(30);
	__atomic_store_n(&slow_done, true, __ATOMIC_RELEASE);
}

static void test_flush_waits(void **state)
{
	struct workqueue_struct *wq = alloc_workqueue(2);
	struct work_struct work = { .func = slow_fn };

	(void)state;
	assert_non_null(wq);
	slow_done = false;
	assert_int_equal(queue_work(wq, &work), 0);
	flush_workqueue(wq);
	assert_true(__atomic_load_n(&slow_done, __ATOMIC_ACQUIRE));
	destroy_workqueue(wq);
}

/*
 * flush_work() waits for its work only: with A blocked on the gate on
 * one worker, flushing B (slow, on the other) returns once B is done,
 * A still blocked; flushing A returns once the gate opens; flushing a
 * work never queued returns at once; and a work queued behind a busy
 * pool is waited for until it has run.
 */
static void test_flush_work(void **state)
{
	struct workqueue_struct *wq = alloc_workqueue(2);
	struct work_struct a = { .func = gate_fn }, b = { .func = slow_fn };
	struct work_struct c = { .func = slow_fn }, never = { .func = slow_fn };
	struct work_struct d = { .func = gate_fn };

	(void)state;
	assert_non_null(wq);
	gate_reset();
	slow_done = false;
	assert_int_equal(queue_work(wq, &a), 0);
	gate_wait_inside(1);
	assert_int_equal(queue_work(wq, &b), 0);
	flush_work(wq, &b);
	assert_true(__atomic_load_n(&slow_done, __ATOMIC_ACQUIRE));
	pthread_mutex_lock(&gate_lock);
	assert_int_equal(gate_inside, 1);
	pthread_mutex_unlock(&gate_lock);
	flush_work(wq, &never);
	flush_work(NULL, &a);
	/* Both workers blocked: c waits in the queue behind them. */
	assert_int_equal(queue_work(wq, &d), 0);
	gate_wait_inside(2);
	slow_done = false;
	assert_int_equal(queue_work(wq, &c), 0);
	pthread_mutex_lock(&gate_lock);
	assert_int_equal(gate_ran, 0);
	pthread_mutex_unlock(&gate_lock);
	gate_release();
	flush_work(wq, &c);
	assert_true(__atomic_load_n(&slow_done, __ATOMIC_ACQUIRE));
	flush_work(wq, &a);
	flush_work(wq, &d);
	pthread_mutex_lock(&gate_lock);
	assert_int_equal(gate_ran, 2);
	pthread_mutex_unlock(&gate_lock);
	destroy_workqueue(wq);
}

/*
 * A flush waits for the work queued before it even while other threads
 * queue more that finishes first: A blocks on the gate on one worker,
 * B and then C (queued after the flush began) finish on the other, and
 * the flush must still wait for A.  Counting finished works, it
 * returned once B and C made the count of works queued before it.
 */
struct flusher {
	struct workqueue_struct *wq;
	bool returned;
};

static void *flusher_fn(void *arg)
{
	struct flusher *fl = arg;

	flush_workqueue(fl->wq);
	__atomic_store_n(&fl->returned, true, __ATOMIC_RELEASE);
	return NULL;
}

static void test_flush_with_other_queuers(void **state)
{
	struct workqueue_struct *wq = alloc_workqueue(2);
	struct work_struct a = { .func = gate_fn };
	struct count_work b = { .work.func = count_fn };
	struct count_work c = { .work.func = count_fn };
	struct flusher fl = { .wq = wq };
	pthread_t t;

	(void)state;
	assert_non_null(wq);
	gate_reset();
	assert_int_equal(queue_work(wq, &a), 0);
	gate_wait_inside(1);
	assert_int_equal(queue_work(wq, &b.work), 0);
	while (!__atomic_load_n(&b.runs, __ATOMIC_RELAXED))
		sleep_ms(1);
	assert_int_equal(pthread_create(&t, NULL, flusher_fn, &fl), 0);
	sleep_ms(10);		/* the flush is waiting */
	assert_int_equal(queue_work(wq, &c.work), 0);
	while (!__atomic_load_n(&c.runs, __ATOMIC_RELAXED))
		sleep_ms(1);
	sleep_ms(20);
	assert_false(__atomic_load_n(&fl.returned, __ATOMIC_ACQUIRE));
	gate_release();
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_true(fl.returned);
	assert_int_equal(gate_ran, 1);
	destroy_workqueue(wq);
}

/* One worker runs works in the order they were queued. */
static void test_single_worker_keeps_order(void **state)
{
	struct workqueue_struct *wq = alloc_workqueue(1);
	struct count_work works[200];
	unsigned int i;

	(void)state;
	assert_non_null(wq);
	run_seq = 0;
	queue_counting(wq, works, 200);
	flush_workqueue(wq);
	for (i = 0; i < 200; i++) {
		assert_int_equal(works[i].runs, 1);
		assert_int_equal(works[i].order, i);
	}
	assert_int_equal(workqueue_nr_workers(wq), 1);
	destroy_workqueue(wq);
}

/*
 * Work queued one at a time, each flushed before the next, finds the
 * one worker idle every time: no second thread starts, however many
 * works have come and gone.  (A flush returns only after the worker has
 * gone back to waiting: it drops the lock only in that wait.)
 */
static void test_idle_worker_takes_next_work(void **state)
{
	struct workqueue_struct *wq = alloc_workqueue(4);
	struct count_work works[8];
	unsigned int i;

	(void)state;
	assert_non_null(wq);
	for (i = 0; i < 8; i++) {
		queue_counting(wq, &works[i], 1);
		flush_workqueue(wq);
		assert_int_equal(works[i].runs, 1);
		assert_int_equal(workqueue_nr_workers(wq), 1);
	}
	destroy_workqueue(wq);
}

/* destroy_workqueue() runs what is still queued before it returns. */
static void test_destroy_runs_queued(void **state)
{
	struct workqueue_struct *wq = alloc_workqueue(1);
	struct count_work works[100];
	unsigned int i;

	(void)state;
	assert_non_null(wq);
	queue_counting(wq, works, 100);
	destroy_workqueue(wq);
	for (i = 0; i < 100; i++)
		assert_int_equal(works[i].runs, 1);
}

/*
 * The first worker cannot start (the injector fails it): -EAGAIN, the
 * work not taken; the next try starts one.  With a worker running, a
 * second that cannot start leaves the work queued for the first.
 */
static void test_no_thread(void **state)
{
	struct workqueue_struct *wq = alloc_workqueue(2);
	struct count_work a = { .work.func = count_fn };
	struct count_work b = { .work.func = count_fn };
	struct work_struct g = { .func = gate_fn };

	(void)state;
	assert_non_null(wq);
	upc_fault_fail_nth(1);
	assert_int_equal(queue_work(wq, &a.work), -EAGAIN);
	assert_true(upc_fault_injected());
	upc_fault_fail_nth(0);
	assert_int_equal(workqueue_nr_workers(wq), 0);
	assert_int_equal(a.runs, 0);
	/* One worker, held by a gate work; the second cannot start. */
	gate_reset();
	assert_int_equal(queue_work(wq, &g), 0);
	gate_wait_inside(1);
	upc_fault_fail_nth(1);
	assert_int_equal(queue_work(wq, &b.work), 0);
	assert_true(upc_fault_injected());
	upc_fault_fail_nth(0);
	assert_int_equal(workqueue_nr_workers(wq), 1);
	gate_release();
	flush_workqueue(wq);
	assert_int_equal(b.runs, 1);
	/* The allocation itself fails too. */
	upc_fault_fail_nth(1);
	assert_null(alloc_workqueue(1));
	upc_fault_fail_nth(0);
	destroy_workqueue(wq);
}

/* Workers block every signal: the program's handlers run elsewhere. */
static int sigusr1_blocked = -1;

static void sigmask_fn(struct work_struct *work)
{
	sigset_t set;

	(void)work;
	pthread_sigmask(SIG_SETMASK, NULL, &set);
	sigusr1_blocked = sigismember(&set, SIGUSR1) &&
			  sigismember(&set, SIGINT);
}

static void test_workers_block_signals(void **state)
{
	struct workqueue_struct *wq = alloc_workqueue(1);
	struct work_struct work = { .func = sigmask_fn };

	(void)state;
	assert_non_null(wq);
	assert_int_equal(queue_work(wq, &work), 0);
	flush_workqueue(wq);
	assert_int_equal(sigusr1_blocked, 1);
	destroy_workqueue(wq);
}

/*
 * fork() waits for the work under way (the child sees it done), and the
 * child's pool, with no threads, starts one for its own work.
 */
static void test_fork(void **state)
{
	struct workqueue_struct *wq = alloc_workqueue(2);
	struct work_struct slow = { .func = slow_fn };
	int status;
	pid_t pid;

	(void)state;
	assert_non_null(wq);
	slow_done = false;
	assert_int_equal(queue_work(wq, &slow), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct count_work cw = { .work.func = count_fn };

		if (!__atomic_load_n(&slow_done, __ATOMIC_ACQUIRE))
			_exit(2);
		if (workqueue_nr_workers(wq) != 0)
			_exit(3);
		if (queue_work(wq, &cw.work))
			_exit(4);
		flush_workqueue(wq);
		_exit(cw.runs == 1 ? 0 : 5);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_true(__atomic_load_n(&slow_done, __ATOMIC_ACQUIRE));
	destroy_workqueue(wq);
}

/*
 * While a fork() waits for the pool to go idle, queue_work() refuses
 * work (-EAGAIN), so a thread queueing all the time cannot hold the
 * fork off; once the fork is done, work is taken again.
 */
static struct workqueue_struct *fork_wq;

static void *forker_fn(void *arg)
{
	int status;
	pid_t pid = fork();

	(void)arg;
	if (pid == 0)
		_exit(0);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return (void *)1;
	return NULL;
}

static void test_fork_refuses_new_work(void **state)
{
	static struct count_work works[4096];
	struct work_struct g = { .func = gate_fn };
	struct count_work after = { .work.func = count_fn };
	unsigned int i;
	pthread_t t;
	void *ret;
	int err = 0;

	(void)state;
	fork_wq = alloc_workqueue(1);
	assert_non_null(fork_wq);
	gate_reset();
	assert_int_equal(queue_work(fork_wq, &g), 0);
	gate_wait_inside(1);
	assert_int_equal(pthread_create(&t, NULL, forker_fn, NULL), 0);
	/* Queued until the fork waits, then refused. */
	for (i = 0; i < 4096 && !err; i++) {
		works[i].work.func = count_fn;
		err = queue_work(fork_wq, &works[i].work);
		sleep_ms(1);
	}
	assert_int_equal(err, -EAGAIN);
	gate_release();
	assert_int_equal(pthread_join(t, &ret), 0);
	assert_null(ret);
	assert_int_equal(queue_work(fork_wq, &after.work), 0);
	flush_workqueue(fork_wq);
	assert_int_equal(after.runs, 1);
	destroy_workqueue(fork_wq);
}

/*
 * Work running while a fork() waits may queue work on another queue:
 * that queue is frozen too, so queue_work() refuses (-EAGAIN) and the
 * work goes on.  The fork's wait must not hold that queue's mutex, or
 * the two wait for each other for ever (the alarm ends the test then).
 */
static struct workqueue_struct *other_wq;
static int other_ret;

static void queue_elsewhere_fn(struct work_struct *work)
{
	static struct count_work cw = { .work.func = count_fn };

	gate_fn(work);
	__atomic_store_n(&other_ret, queue_work(other_wq, &cw.work),
			 __ATOMIC_RELEASE);
}

static void test_fork_while_work_queues_elsewhere(void **state)
{
	struct work_struct w = { .func = queue_elsewhere_fn };
	struct count_work probe = { .work.func = count_fn };
	pthread_t t;
	void *ret;

	(void)state;
	alarm(60);
	fork_wq = alloc_workqueue(1);
	other_wq = alloc_workqueue(1);
	assert_non_null(fork_wq);
	assert_non_null(other_wq);
	gate_reset();
	other_ret = 1;
	assert_int_equal(queue_work(fork_wq, &w), 0);
	gate_wait_inside(1);
	assert_int_equal(pthread_create(&t, NULL, forker_fn, NULL), 0);
	/* Until the fork has frozen the queues. */
	while (!queue_work(other_wq, &probe.work)) {
		flush_workqueue(other_wq);
		sleep_ms(1);
	}
	gate_release();
	assert_int_equal(pthread_join(t, &ret), 0);
	assert_null(ret);
	assert_int_equal(__atomic_load_n(&other_ret, __ATOMIC_ACQUIRE),
			 -EAGAIN);
	destroy_workqueue(other_wq);
	destroy_workqueue(fork_wq);
	alarm(0);
}

/*
 * A work that forks (a read callback starting a helper program): the
 * fork waits for the other workers' work (the child sees it done), not
 * for the worker it runs on.
 */
static int fork_status = -1;

static void fork_in_work_fn(struct work_struct *work)
{
	int status;
	pid_t pid;

	(void)work;
	pid = fork();
	/* The other worker's work was done before the fork. */
	if (pid == 0)
		_exit(__atomic_load_n(&slow_done, __ATOMIC_ACQUIRE) ? 7 : 8);
	if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status))
		fork_status = WEXITSTATUS(status);
}

static void test_fork_from_work(void **state)
{
	struct workqueue_struct *wq = alloc_workqueue(2);
	struct work_struct w = { .func = fork_in_work_fn };
	struct work_struct slow = { .func = slow_fn };

	(void)state;
	alarm(60);
	assert_non_null(wq);
	fork_status = -1;
	slow_done = false;
	assert_int_equal(queue_work(wq, &slow), 0);
	assert_int_equal(queue_work(wq, &w), 0);
	flush_workqueue(wq);
	assert_int_equal(fork_status, 7);
	assert_true(__atomic_load_n(&slow_done, __ATOMIC_ACQUIRE));
	destroy_workqueue(wq);
	alarm(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_alloc_once),
		cmocka_unit_test(test_each_work_runs_once),
		cmocka_unit_test(test_pool_grows_to_max),
		cmocka_unit_test(test_flush_waits),
		cmocka_unit_test(test_flush_work),
		cmocka_unit_test(test_flush_with_other_queuers),
		cmocka_unit_test(test_single_worker_keeps_order),
		cmocka_unit_test(test_idle_worker_takes_next_work),
		cmocka_unit_test(test_destroy_runs_queued),
		cmocka_unit_test(test_no_thread),
		cmocka_unit_test(test_workers_block_signals),
		cmocka_unit_test(test_fork),
		cmocka_unit_test(test_fork_refuses_new_work),
		cmocka_unit_test(test_fork_while_work_queues_elsewhere),
		cmocka_unit_test(test_fork_from_work),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
