/* SPDX-License-Identifier: MIT */
/*
 * upcache/rcu.h - read-side critical sections for lockless XArray readers.
 *
 * upcache's readers are lockless under RCU, provided by liburcu's
 * bulletproof flavour.  Applications never register threads or call
 * liburcu themselves: the first upc_rcu_read_lock() on a thread registers
 * it, and the thread is unregistered when it exits.  The normal XArray API
 * (xa_load(), xa_find(), ...) enters and leaves the read side on its own;
 * only the advanced API (xas_load(), xas_find(), ... without the array's
 * lock) needs the caller to bracket it, as in the kernel.
 *
 * Unless UPCACHE_NO_RCU_COMPAT is defined or liburcu's own rcu_read_lock
 * is already visible, this header also spells the calls the kernel way,
 * rcu_read_lock() and rcu_read_unlock(), so code ported from the kernel
 * compiles unchanged.
 */
#ifndef UPCACHE_RCU_H
#define UPCACHE_RCU_H

#ifdef __cplusplus
extern "C" {
#endif

/**
 * upc_rcu_read_lock() - Enter an RCU read-side critical section.
 *
 * Registers the calling thread with RCU on its first call.  Sections nest.
 * Inside one, memory reached through an RCU-protected pointer (an XArray
 * node, a folio's metadata) is not freed.
 *
 * Context: Any thread.  Never sleeps, except that the first call on a
 * thread takes liburcu's registry mutex.
 */
void upc_rcu_read_lock(void);

/**
 * upc_rcu_read_unlock() - Leave an RCU read-side critical section.
 *
 * Context: Must pair with upc_rcu_read_lock() on the same thread.
 */
void upc_rcu_read_unlock(void);

/**
 * upc_rcu_barrier() - Wait for every deferred free to have completed.
 *
 * Hands the calling thread's pending batch of freed XArray nodes to RCU,
 * then waits until every callback queued so far has run.  Tests call this
 * before counting live objects; nothing on a fast path needs it.
 *
 * Context: Must not be called inside a read-side critical section or with
 * an XArray lock held.  Sleeps.
 */
void upc_rcu_barrier(void);

/**
 * upc_rcu_synchronize() - Wait for a grace period.
 *
 * Returns once every read-side critical section that was running when it
 * was called has ended.
 *
 * Context: Must not be called inside a read-side critical section.  Sleeps.
 */
void upc_rcu_synchronize(void);

#if !defined(UPCACHE_NO_RCU_COMPAT) && !defined(rcu_read_lock)
#define rcu_read_lock()		upc_rcu_read_lock()
#define rcu_read_unlock()	upc_rcu_read_unlock()
#endif

#ifdef __cplusplus
}
#endif

#endif /* UPCACHE_RCU_H */
