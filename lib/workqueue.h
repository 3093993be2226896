/* SPDX-License-Identifier: MIT */
/*
 * lib/workqueue.h - work run by a small pool of background threads
 * (internal): the kernel's workqueues, for what upcache does
 * asynchronously (readahead's I/O, mm/readahead.c).
 *
 * A caller embeds a struct work_struct in its own request, sets ->func
 * and queues it; a worker thread of the queue calls ->func(work) once,
 * after which the work belongs to ->func (it may free it).  The queue
 * keeps up to max_active threads, started as work arrives and kept
 * waiting for more.  Workers block every signal: the program's signals
 * go to its own threads.
 *
 * fork() waits until every queue is idle (nothing queued, nothing
 * running: the work under way, a read on a slow device included), so a
 * child starts with no work half done; meanwhile queue_work() refuses
 * work.  The child's queues start new workers as work arrives.  A work
 * that forks is not waited for (it is the one forking); in the child it
 * should exec() or _exit(): returning, its thread would go on as a
 * worker the child's queue does not count.  Work must not create or
 * destroy queues.
 */
#ifndef UPCACHE_LIB_WORKQUEUE_H
#define UPCACHE_LIB_WORKQUEUE_H

#include <stdbool.h>

/**
 * struct work_struct - one piece of work.
 * @func: Called once, on a worker thread, with the work itself.
 * @next: The queue's link (the queue's own while queued).
 * @seq: Its place in the queue's order (the queue's own).
 */
struct work_struct {
	void (*func)(struct work_struct *work);
	struct work_struct *next;
	unsigned long seq;
};

struct workqueue_struct;

/**
 * alloc_workqueue() - Make a queue.
 * @max_active: The most worker threads it runs at once (1 .. 64).
 *
 * No thread starts until work is queued.
 * Return: The queue, or NULL (-ENOMEM, or @max_active out of range).
 */
struct workqueue_struct *alloc_workqueue(unsigned int max_active);

/**
 * alloc_workqueue_once() - The queue at *@wqp, made now if need be.
 * @wqp: Where a queue made on first use lives (NULL until then); it is
 *	never destroyed.
 * @max_active: As for alloc_workqueue().
 *
 * Context: Any thread; racing callers all get the same queue.
 * Return: The queue, or NULL if none could be made (a later call tries
 * again).
 */
struct workqueue_struct *alloc_workqueue_once(struct workqueue_struct **wqp,
					      unsigned int max_active);

/**
 * destroy_workqueue() - Run what is queued, stop the workers, free.
 * @wq: The queue, or NULL.
 *
 * Context: No thread may queue on @wq any more.  Sleeps.
 */
void destroy_workqueue(struct workqueue_struct *wq);

/**
 * queue_work() - Have a worker call @work->func(@work).
 * @wq: The queue.
 * @work: The work, @func set; the caller's until then, untouched by the
 *	queue after @func is called.
 *
 * Starts a worker where the work queued outnumbers the idle ones and
 * fewer than max_active run.
 * Context: Any thread, a worker too.  Does not sleep on other work.
 * Return: 0; or -EAGAIN when no worker runs and none could be started,
 * or a fork() waits for the queue to be idle (the work was not queued:
 * the caller runs it itself).
 */
int queue_work(struct workqueue_struct *wq, struct work_struct *work);

/**
 * flush_workqueue() - Wait for the work queued before the call.
 * @wq: The queue, or NULL (nothing to wait for).
 *
 * Returns once every work queued before the call has returned from its
 * @func, whatever other threads queue meanwhile.
 *
 * Context: Sleeps.  Not from a worker of @wq (it would wait for itself).
 */
void flush_workqueue(struct workqueue_struct *wq);

/**
 * flush_work() - Wait until @work is neither queued nor running.
 * @wq: The queue it is queued on, or NULL (nothing to wait for).
 * @work: The work; the caller's to keep alive until this returns.
 *
 * Returns once no worker runs @work and it is not queued, whatever
 * else the queue has; work that queues itself again from its @func is
 * waited for again.  Waiting for one work, not the queue: a long work
 * of another user does not hold the caller up.
 *
 * Context: Sleeps.  Not from @work's own @func.
 */
void flush_work(struct workqueue_struct *wq, struct work_struct *work);

/**
 * workqueue_nr_workers() - How many worker threads @wq has started.
 * @wq: The queue.
 *
 * For tests: the pool grows as documented at queue_work().
 * Return: Threads running or waiting for work.
 */
unsigned int workqueue_nr_workers(struct workqueue_struct *wq);

#endif /* UPCACHE_LIB_WORKQUEUE_H */
