/* SPDX-License-Identifier: MIT */
/*
 * upcache/lock.h - the short-hold lock that guards every XArray writer.
 *
 * The kernel guards an XArray with a spinlock.  In userspace a thread
 * holding a pure spinlock can be preempted, and on a small machine the
 * waiters then burn whole time slices, so upc_lock_t spins briefly and
 * then sleeps on a futex.  The uncontended path is one compare-and-swap to
 * take and one exchange to release, both inline.
 *
 * Every acquisition adds one to the calling thread's lock counter (see
 * upcache/stats.h): lock round trips are one of the deterministic figures
 * upcache's tests assert.
 */
#ifndef UPCACHE_LOCK_H
#define UPCACHE_LOCK_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * typedef upc_lock_t - a lock that spins briefly, then sleeps.
 *
 * Zero-initialised memory is an unlocked lock; UPC_LOCK_INIT says so in
 * static initialisers.
 */
typedef struct upc_lock {
	/* private: 0 unlocked, 1 locked, 2 locked with sleepers. */
	int state;
	/* private: thread id of the holder, for upc_lock_assert_held(). */
	int owner;
} upc_lock_t;

#define UPC_LOCK_INIT { 0, 0 }

/**
 * upc_lock_init() - Initialise a lock to unlocked.
 * @lock: The lock.
 */
static inline void upc_lock_init(upc_lock_t *lock)
{
	lock->state = 0;
	lock->owner = 0;
}

/**
 * upc_lock() - Take a lock, sleeping if another thread holds it.
 * @lock: The lock.
 *
 * Not recursive: taking a lock the caller already holds deadlocks (the
 * debug build aborts with a message instead).
 *
 * Context: May sleep.
 */
void upc_lock(upc_lock_t *lock);

/**
 * upc_trylock() - Take a lock if it is free.
 * @lock: The lock.
 *
 * Context: Never sleeps.
 * Return: true if the lock was taken.
 */
bool upc_trylock(upc_lock_t *lock);

/**
 * upc_unlock() - Release a lock taken by upc_lock() or upc_trylock().
 * @lock: The lock, held by the caller.
 *
 * Context: Never sleeps; wakes one sleeper if there is one.
 */
void upc_unlock(upc_lock_t *lock);

/**
 * upc_lock_is_held() - Does the calling thread hold @lock?
 * @lock: The lock.
 *
 * Exact in every build: the holder's thread id is recorded on each
 * acquisition.
 *
 * Return: true if the calling thread holds @lock.
 */
bool upc_lock_is_held(const upc_lock_t *lock);

#ifdef __cplusplus
}
#endif

#endif /* UPCACHE_LOCK_H */
