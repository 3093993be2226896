// SPDX-License-Identifier: MIT
/*
 * lib/rcu.c - lazy RCU registration and the read-side API of upcache/rcu.h.
 *
 * liburcu's membarrier flavour needs every reader thread registered, but
 * upcache promises applications they never call RCU themselves.  So the
 * first read-side section (or deferred free) on a thread registers it, and
 * a pthread key destructor unregisters it when the thread exits, after
 * handing the thread's pending node frees to RCU.
 *
 * Why membarrier: its read side is a thread-local counter increment with
 * no fence; the cost moves to synchronize_rcu(), which only the call_rcu
 * worker runs, off every application thread's path.
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
 * and unregister it.  Runs outside any read-side section (a thread cannot
 * exit inside one without a bug of its own).
 */
static void rcu_thread_exit(void *unused)
{
	(void)unused;
	xa_node_thread_exit();
	urcu_memb_unregister_thread();
	upc_rcu_registered = 0;
}

static void rcu_make_key(void)
{
	if (pthread_key_create(&rcu_exit_key, rcu_thread_exit)) {
		fprintf(stderr, "upcache: pthread_key_create failed\n");
		abort();
	}
}

/*
 * upc_rcu_register_slow() - First RCU use on this thread: register it and
 * arrange for unregistration at exit.
 */
void upc_rcu_register_slow(void)
{
	pthread_once(&rcu_key_once, rcu_make_key);
	urcu_memb_register_thread();
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
	urcu_memb_read_lock();
}

/**
 * upc_rcu_read_unlock() - Leave an RCU read-side critical section.
 *
 * Context: Pairs with upc_rcu_read_lock() on the same thread.
 */
void upc_rcu_read_unlock(void)
{
	upc_rcu_tsan_release();
	urcu_memb_read_unlock();
}

/**
 * upc_rcu_synchronize() - Wait for a grace period.
 *
 * Context: Not inside a read-side section.  Sleeps.
 */
void upc_rcu_synchronize(void)
{
	upc_rcu_ensure_registered();
	urcu_memb_synchronize_rcu();
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
	urcu_memb_barrier();
}
