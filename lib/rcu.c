// SPDX-License-Identifier: MIT
/*
 * lib/rcu.c - lazy RCU registration, fork() handling and the read-side
 * API of upcache/rcu.h.
 *
 * upcache promises applications they never call RCU themselves.  So the
 * first read-side section (or deferred free) on a thread registers it,
 * and a pthread key destructor hands the thread's pending node frees to
 * RCU when the thread exits.
 *
 * Why liburcu's bulletproof flavour: it is the one that survives fork().
 * A child has only the thread that forked, but the reader registry the
 * parent's other threads left in it stays: with the membarrier flavour a
 * thread that was inside a read-side section at the fork would hold off
 * every grace period in the child for ever, the call_rcu worker that
 * frees XArray nodes would be gone, and liburcu's locks could be held by
 * threads that no longer exist.  The bulletproof flavour prunes the
 * registry in the child (urcu_bp_after_fork_child()), and its call_rcu
 * fork hooks pause the worker across fork() and start a new one in the
 * child.  Its read side is the membarrier flavour's (a thread-local
 * counter store, no fence, where the kernel has membarrier(2)) behind
 * one more thread-local load.
 *
 * fork() order (rcu_atfork_*()): the call_rcu worker pauses first (it
 * takes the node pool's lock and runs grace periods), then the pool's
 * lock is taken, then liburcu's own; after the fork they go in the
 * reverse order.  These handlers are registered before lib/workqueue.c's
 * (upc_rcu_atfork()), so that its prepare handler, which waits for the
 * readahead workers' work (RCU readers, allocating nodes), runs first.
 *
 * What no handler here can cover: liburcu-bp takes a lock of its own
 * (not exported) when a thread registers and when it exits.  A fork at
 * that moment leaves it held in the child, where the new call_rcu worker
 * then waits for it for ever (about one fork in a thousand beside
 * threads that start and end their use of upcache as fast as they can);
 * upcache.h's fork contract rules that case out.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "rcu_internal.h"
#include "xa_node.h"

__thread int upc_rcu_registered __attribute__((tls_model("initial-exec")));

#ifdef UPC_TSAN
char upc_rcu_tsan_sync;
#endif

static pthread_key_t rcu_exit_key;
static pthread_once_t rcu_key_once = PTHREAD_ONCE_INIT;

/*
 * rcu_thread_exit() - Key destructor: flush this thread's deferred frees
 * and give back its node cache (liburcu-bp unregisters the thread by
 * itself).  Runs outside any read-side section (a thread cannot exit
 * inside one without a bug of its own).
 */
static void rcu_thread_exit(void *unused)
{
	(void)unused;
	xa_node_thread_exit();
	upc_rcu_registered = 0;
}

static void rcu_atfork_prepare(void)
{
	urcu_bp_call_rcu_before_fork();
	xa_node_atfork_prepare();
	urcu_bp_before_fork();
}

static void rcu_atfork_parent(void)
{
	urcu_bp_after_fork_parent();
	xa_node_atfork_release();
	urcu_bp_call_rcu_after_fork_parent();
}

static void rcu_atfork_child(void)
{
	urcu_bp_after_fork_child();
	xa_node_atfork_release();
	urcu_bp_call_rcu_after_fork_child();
}

static void rcu_make_key(void)
{
	if (pthread_key_create(&rcu_exit_key, rcu_thread_exit) ||
	    pthread_atfork(rcu_atfork_prepare, rcu_atfork_parent,
			   rcu_atfork_child)) {
		fprintf(stderr, "upcache: cannot set up RCU's thread and fork "
			"hooks\n");
		abort();
	}
}

/**
 * upc_rcu_atfork() - Make sure RCU's fork() handlers are registered.
 *
 * For pthread_atfork() users that need RCU in their own prepare handler
 * (lib/workqueue.c): registered after RCU's, theirs run first before a
 * fork and last after it.
 *
 * Context: Any thread.
 */
void upc_rcu_atfork(void)
{
	pthread_once(&rcu_key_once, rcu_make_key);
}

/*
 * upc_rcu_register_slow() - First RCU use on this thread: register it and
 * arm the exit hook.
 */
void upc_rcu_register_slow(void)
{
	upc_rcu_atfork();
	urcu_bp_register_thread();
	/* Any non-NULL value makes the destructor run at thread exit. */
	pthread_setspecific(rcu_exit_key, &rcu_exit_key);
	upc_rcu_registered = 1;
}

/**
 * upc_rcu_read_lock() - Enter an RCU read-side critical section.
 *
 * Context: Any thread; registers it on first use.
 */
void upc_rcu_read_lock(void)
{
	upc_rcu_ensure_registered();
	urcu_bp_read_lock();
}

/**
 * upc_rcu_read_unlock() - Leave an RCU read-side critical section.
 *
 * Context: Pairs with upc_rcu_read_lock() on the same thread.
 */
void upc_rcu_read_unlock(void)
{
	upc_rcu_tsan_release();
	urcu_bp_read_unlock();
}

/**
 * upc_rcu_synchronize() - Wait for a grace period.
 *
 * Context: Not inside a read-side section.  Sleeps.
 */
void upc_rcu_synchronize(void)
{
	upc_rcu_ensure_registered();
	urcu_bp_synchronize_rcu();
}

/**
 * upc_rcu_barrier() - Wait for every deferred free to have completed.
 *
 * Context: Not inside a read-side section, no XArray lock held.  Sleeps.
 */
void upc_rcu_barrier(void)
{
	upc_rcu_ensure_registered();
	xa_node_flush();
	urcu_bp_barrier();
}
