/* SPDX-License-Identifier: MIT */
/*
 * lib/rcu_internal.h - liburcu for the library's own sources.
 *
 * Only lib/ includes liburcu.  _LGPL_SOURCE inlines liburcu's read-side
 * fast paths (a thread-local nesting counter and a compiler barrier).
 */
#ifndef UPCACHE_LIB_RCU_INTERNAL_H
#define UPCACHE_LIB_RCU_INTERNAL_H

#define UPCACHE_NO_RCU_COMPAT
#define _LGPL_SOURCE
#include <urcu/urcu-bp.h>

#include "upcache/rcu.h"

extern __thread int upc_rcu_registered
	__attribute__((tls_model("initial-exec")));

void upc_rcu_register_slow(void);
void upc_rcu_atfork(void);

/*
 * upc_rcu_ensure_registered() - Register the calling thread with RCU if
 * it is not yet.  call_rcu() and read-side sections need it.
 */
static inline void upc_rcu_ensure_registered(void)
{
	if (__builtin_expect(!upc_rcu_registered, 0))
		upc_rcu_register_slow();
}

/*
 * ThreadSanitizer does not see the ordering liburcu's grace periods
 * provide (membarrier and futexes in an uninstrumented library), so in a
 * TSan build every read-side unlock releases, and every deferred free
 * acquires, one synchronisation object.  That is exactly the guarantee a
 * grace period gives: all readers that could see the memory are done.
 */
#if defined(__SANITIZE_THREAD__)
#define UPC_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UPC_TSAN 1
#endif
#endif

#ifdef UPC_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
extern char upc_rcu_tsan_sync;
#define upc_rcu_tsan_release()	__tsan_release(&upc_rcu_tsan_sync)
#define upc_rcu_tsan_acquire()	__tsan_acquire(&upc_rcu_tsan_sync)
#else
#define upc_rcu_tsan_release()	do { } while (0)
#define upc_rcu_tsan_acquire()	do { } while (0)
#endif

/*
 * upc_rcu_enter() / upc_rcu_exit() - the library's own read-side critical
 * section: the same as upc_rcu_read_lock()/upc_rcu_read_unlock(), inlined
 * for the lookup fast paths.
 */
static inline void upc_rcu_enter(void)
{
	upc_rcu_ensure_registered();
	urcu_bp_read_lock();
}

static inline void upc_rcu_exit(void)
{
	upc_rcu_tsan_release();
	urcu_bp_read_unlock();
}

#endif /* UPCACHE_LIB_RCU_INTERNAL_H */
