// SPDX-License-Identifier: MIT
/*
 * lib/workqueue.c - a queue of work and the pool of threads that runs it
 * (lib/workqueue.h), after the kernel's kernel/workqueue.c in its ideas:
 * callers queue work items they own, workers call them.
 *
 * One mutex per queue guards a singly linked FIFO and the pool's
 * counts.  A worker takes the oldest work, runs it unlocked, and is
 * done with it.  Each work gets a sequence number as it is queued, and
 * each worker shows the number of the work it runs in its slot: works
 * leave the queue in order but finish out of order (a slow one on one
 * worker, later ones on another), so flush_workqueue() waits, not for a
 * count of finished works, but until the oldest work still queued or
 * running is newer than the last one queued before the flush.
 *
 * The pool grows lazily: queue_work() starts a thread only when the
 * work waiting outnumbers the workers waiting for it, up to max_active.
 * Threads stay until the queue is destroyed; an idle one costs a stack
 * and nothing else.
 *
 * fork(): the child has no worker threads, whatever the parent had, and
 * work a parent worker was running would stay half done in the child
 * (for readahead: folios locked for ever).  A pthread_atfork() handler
 * therefore first freezes every queue: queue_work() refuses new work
 * (-EAGAIN: the caller does it itself), so a stream of work cannot hold
 * the fork off.  Then it waits for each queue to be idle, holding no
 * other queue's mutex meanwhile, so that running work may still call
 * queue_work() on another queue (and be refused); then it holds every
 * queue's mutex across the fork.  A worker that forks does not wait for
 * itself: the work it runs goes on in both processes, and work queued
 * behind it that no other worker can take stays queued.  The child
 * starts with empty pools that grow again as work arrives.  Work must
 * not create or destroy queues (the registry's lock is held throughout).
 * RCU's fork handlers are registered first, so that this one runs
 * before them and the work it waits for can still use RCU.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "rcu_internal.h"
#include "workqueue.h"

#define WQ_MAX_ACTIVE	64u

struct workqueue_struct;

/**
 * struct wq_slot - one worker.
 * @wq: Its queue.
 * @seq: The sequence number of the work it runs; 0 when it runs none.
 * @work: The work it runs (only compared, by flush_work(): it may be
 *	gone once its @func runs); NULL when it runs none.
 * @thread: The thread, for destroy_workqueue() to join.
 */
struct wq_slot {
	struct workqueue_struct *wq;
	unsigned long seq;
	const struct work_struct *work;
	pthread_t thread;
};

/**
 * struct workqueue_struct - a queue and its pool.
 * @lock: Guards everything below.
 * @more: Idle workers wait here for work (or for the queue to stop).
 * @idle: flush_workqueue(), flush_work() and fork wait here for work
 *	to finish.
 * @head: The oldest queued work, or NULL.
 * @tail: Where the next work is linked.
 * @pending: Works queued and not yet taken by a worker.
 * @last_seq: The sequence number of the last work queued (the first
 *	is 1).
 * @nr_workers: Threads started (in @slots).
 * @nr_idle: Threads waiting on @more.
 * @nr_waiting: Threads waiting on @idle.
 * @max_active: The most threads.
 * @stopping: destroy_workqueue() has begun: workers exit once the
 *	queue is empty.
 * @frozen: A fork() waits for the queue to be idle: no new work.
 * @slots: The workers.
 * @list: The registry of queues (fork handling).
 */
struct workqueue_struct {
	pthread_mutex_t lock;
	pthread_cond_t more;
	pthread_cond_t idle;
	struct work_struct *head;
	struct work_struct **tail;
	unsigned long pending;
	unsigned long last_seq;
	unsigned int nr_workers;
	unsigned int nr_idle;
	unsigned int nr_waiting;
	unsigned int max_active;
	bool stopping;
	bool frozen;
	struct wq_slot slots[WQ_MAX_ACTIVE];
	struct workqueue_struct *list;
};

/* Every queue, for the fork handlers. */
static pthread_mutex_t wq_registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct workqueue_struct *wq_registry;
static pthread_once_t wq_atfork_once = PTHREAD_ONCE_INIT;

/* The slot of the worker this thread is, if it is one. */
static __thread struct wq_slot *wq_self;

/* Take the oldest work; @wq->lock held, the queue not empty. */
static struct work_struct *wq_dequeue(struct workqueue_struct *wq)
{
	struct work_struct *work = wq->head;

	wq->head = work->next;
	if (!wq->head)
		wq->tail = &wq->head;
	wq->pending--;
	return work;
}

static void *wq_worker(void *arg)
{
	struct wq_slot *slot = arg;
	struct workqueue_struct *wq = slot->wq;

	wq_self = slot;
	pthread_mutex_lock(&wq->lock);
	for (;;) {
		struct work_struct *work;

		while (!wq->head && !wq->stopping) {
			wq->nr_idle++;
			pthread_cond_wait(&wq->more, &wq->lock);
			wq->nr_idle--;
		}
		if (!wq->head)
			break;		/* stopping, and nothing left */
		work = wq_dequeue(wq);
		slot->seq = work->seq;
		slot->work = work;
		pthread_mutex_unlock(&wq->lock);
		work->func(work);	/* @work may be gone from here on */
		pthread_mutex_lock(&wq->lock);
		slot->seq = 0;
		slot->work = NULL;
		if (wq->nr_waiting)
			pthread_cond_broadcast(&wq->idle);
	}
	pthread_mutex_unlock(&wq->lock);
	return NULL;
}

/*
 * The sequence number of the oldest work queued or running, or
 * ULONG_MAX if there is none; @wq->lock held.
 */
static unsigned long wq_oldest(const struct workqueue_struct *wq)
{
	unsigned long oldest = wq->head ? wq->head->seq : ULONG_MAX;
	unsigned int i;

	for (i = 0; i < wq->nr_workers; i++)
		if (wq->slots[i].seq && wq->slots[i].seq < oldest)
			oldest = wq->slots[i].seq;
	return oldest;
}

/*
 * Start one more worker, signals blocked in it; @wq->lock held.
 * Return: 0 or -EAGAIN.
 */
static int wq_start_worker(struct workqueue_struct *wq)
{
	struct wq_slot *slot;
	sigset_t all, old;
	int err;

	if (upc_fault_should_fail())
		return -EAGAIN;
	slot = &wq->slots[wq->nr_workers];
	slot->wq = wq;
	slot->seq = 0;
	slot->work = NULL;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&slot->thread, NULL, wq_worker, slot);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return -EAGAIN;
	wq->nr_workers++;
	return 0;
}

/*
 * Does @wq still have work a fork must wait for?  Queued work, or work
 * running on a worker other than the forking thread; a forking worker's
 * own queue may keep work queued that only it would take.  @wq->lock
 * held.
 */
static bool wq_busy_for_fork(const struct workqueue_struct *wq)
{
	unsigned int i, others = 0;

	for (i = 0; i < wq->nr_workers; i++) {
		if (&wq->slots[i] == wq_self)
			continue;
		if (wq->slots[i].seq)
			return true;
		others++;
	}
	return wq->head && others;
}

/* Before fork(): every queue frozen and idle, then every one locked. */
static void wq_atfork_prepare(void)
{
	struct workqueue_struct *wq;

	pthread_mutex_lock(&wq_registry_lock);
	for (wq = wq_registry; wq; wq = wq->list) {
		pthread_mutex_lock(&wq->lock);
		wq->frozen = true;
		pthread_mutex_unlock(&wq->lock);
	}
	for (wq = wq_registry; wq; wq = wq->list) {
		pthread_mutex_lock(&wq->lock);
		wq->nr_waiting++;
		while (wq_busy_for_fork(wq))
			pthread_cond_wait(&wq->idle, &wq->lock);
		wq->nr_waiting--;
		pthread_mutex_unlock(&wq->lock);
	}
	for (wq = wq_registry; wq; wq = wq->list)
		pthread_mutex_lock(&wq->lock);
}

static void wq_atfork_parent(void)
{
	struct workqueue_struct *wq;

	for (wq = wq_registry; wq; wq = wq->list) {
		wq->frozen = false;
		pthread_mutex_unlock(&wq->lock);
	}
	pthread_mutex_unlock(&wq_registry_lock);
}

/* The child: no threads; each pool starts again from none. */
static void wq_atfork_child(void)
{
	struct workqueue_struct *wq;

	for (wq = wq_registry; wq; wq = wq->list) {
		wq->nr_workers = 0;
		wq->nr_idle = 0;
		wq->nr_waiting = 0;
		wq->frozen = false;
		pthread_cond_init(&wq->more, NULL);
		pthread_cond_init(&wq->idle, NULL);
		pthread_mutex_unlock(&wq->lock);
	}
	pthread_mutex_unlock(&wq_registry_lock);
}

static void wq_register_atfork(void)
{
	upc_rcu_atfork();
	pthread_atfork(wq_atfork_prepare, wq_atfork_parent, wq_atfork_child);
}

struct workqueue_struct *alloc_workqueue(unsigned int max_active)
{
	struct workqueue_struct *wq;

	if (!max_active || max_active > WQ_MAX_ACTIVE)
		return NULL;
	if (upc_fault_should_fail())
		return NULL;
	wq = calloc(1, sizeof(*wq));
	if (!wq)
		return NULL;
	if (pthread_mutex_init(&wq->lock, NULL))
		goto free;
	if (pthread_cond_init(&wq->more, NULL))
		goto mutex;
	if (pthread_cond_init(&wq->idle, NULL))
		goto more;
	wq->tail = &wq->head;
	wq->max_active = max_active;
	pthread_once(&wq_atfork_once, wq_register_atfork);
	pthread_mutex_lock(&wq_registry_lock);
	wq->list = wq_registry;
	wq_registry = wq;
	pthread_mutex_unlock(&wq_registry_lock);
	return wq;
more:
	pthread_cond_destroy(&wq->more);
mutex:
	pthread_mutex_destroy(&wq->lock);
free:
	free(wq);
	return NULL;
}

/*
 * Racing first users each make a queue and the loser destroys its own
 * (it has no thread yet): no lock, so a fork() meanwhile leaves none
 * held in the child.
 */
struct workqueue_struct *alloc_workqueue_once(struct workqueue_struct **wqp,
					      unsigned int max_active)
{
	struct workqueue_struct *wq = __atomic_load_n(wqp, __ATOMIC_ACQUIRE);
	struct workqueue_struct *none = NULL;

	if (wq)
		return wq;
	wq = alloc_workqueue(max_active);
	if (!wq)
		return NULL;
	if (__atomic_compare_exchange_n(wqp, &none, wq, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return wq;
	destroy_workqueue(wq);
	return none;
}

void destroy_workqueue(struct workqueue_struct *wq)
{
	struct workqueue_struct **p;
	unsigned int i;

	if (!wq)
		return;
	pthread_mutex_lock(&wq_registry_lock);
	for (p = &wq_registry; *p != wq; p = &(*p)->list)
		;
	*p = wq->list;
	pthread_mutex_unlock(&wq_registry_lock);

	pthread_mutex_lock(&wq->lock);
	wq->stopping = true;
	pthread_cond_broadcast(&wq->more);
	pthread_mutex_unlock(&wq->lock);
	for (i = 0; i < wq->nr_workers; i++)
		pthread_join(wq->slots[i].thread, NULL);
	pthread_cond_destroy(&wq->idle);
	pthread_cond_destroy(&wq->more);
	pthread_mutex_destroy(&wq->lock);
	free(wq);
}

int queue_work(struct workqueue_struct *wq, struct work_struct *work)
{
	pthread_mutex_lock(&wq->lock);
	if (wq->frozen ||
	    (wq->pending + 1 > wq->nr_idle && wq->nr_workers < wq->max_active &&
	     wq_start_worker(wq) && !wq->nr_workers)) {
		pthread_mutex_unlock(&wq->lock);
		return -EAGAIN;
	}
	work->next = NULL;
	work->seq = ++wq->last_seq;
	*wq->tail = work;
	wq->tail = &work->next;
	wq->pending++;
	pthread_cond_signal(&wq->more);
	pthread_mutex_unlock(&wq->lock);
	return 0;
}

void flush_workqueue(struct workqueue_struct *wq)
{
	unsigned long target;

	if (!wq)
		return;
	pthread_mutex_lock(&wq->lock);
	target = wq->last_seq;
	wq->nr_waiting++;
	while (wq_oldest(wq) <= target)
		pthread_cond_wait(&wq->idle, &wq->lock);
	wq->nr_waiting--;
	pthread_mutex_unlock(&wq->lock);
}

/* Is @work queued on @wq, or running on one of its workers?  Lock held. */
static bool wq_has_work(const struct workqueue_struct *wq,
			const struct work_struct *work)
{
	const struct work_struct *w;
	unsigned int i;

	for (w = wq->head; w; w = w->next)
		if (w == work)
			return true;
	for (i = 0; i < wq->nr_workers; i++)
		if (wq->slots[i].work == work)
			return true;
	return false;
}

void flush_work(struct workqueue_struct *wq, struct work_struct *work)
{
	if (!wq)
		return;
	pthread_mutex_lock(&wq->lock);
	wq->nr_waiting++;
	while (wq_has_work(wq, work))
		pthread_cond_wait(&wq->idle, &wq->lock);
	wq->nr_waiting--;
	pthread_mutex_unlock(&wq->lock);
}

unsigned int workqueue_nr_workers(struct workqueue_struct *wq)
{
	unsigned int n;

	pthread_mutex_lock(&wq->lock);
	n = wq->nr_workers;
	pthread_mutex_unlock(&wq->lock);
	return n;
}
