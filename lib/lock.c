// SPDX-License-Identifier: MIT
/*
 * lib/lock.c - upc_lock_t: spin briefly, then sleep on a futex.
 *
 * The lock word has three states: 0 free, 1 held, 2 held and somebody may
 * be asleep on it.  Taking a free lock is one compare-and-swap 0 -> 1.  A
 * waiter first spins for a short while, because XArray critical sections
 * are a few hundred nanoseconds and a sleep/wake pair costs microseconds;
 * then it swaps in 2 and sleeps until the word changes.  Releasing swaps
 * in 0 and issues a wake only if the old state was 2, so an uncontended
 * release makes no system call.
 *
 * The holder's kernel thread id is kept beside the word so that
 * upc_lock_is_held() is exact and debug checks can assert lock context.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "upcache/lock.h"
#include "futex.h"
#include "stats_internal.h"

#define LOCK_SPINS	128

static __thread int lock_tid __attribute__((tls_model("initial-exec")));

/* The calling thread's id, cached in TLS (gettid is a system call). */
static inline int current_tid(void)
{
	if (__builtin_expect(lock_tid == 0, 0))
		lock_tid = (int)syscall(SYS_gettid);
	return lock_tid;
}

static inline bool lock_cas(upc_lock_t *lock, int old, int new)
{
	return __atomic_compare_exchange_n(&lock->state, &old, new, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static inline void lock_acquired(upc_lock_t *lock)
{
	__atomic_store_n(&lock->owner, current_tid(), __ATOMIC_RELAXED);
	upc_count(lock_acquires);
}

/*
 * lock_slow() - Contended path: spin, then sleep with the word at 2.
 */
static __attribute__((noinline)) void lock_slow(upc_lock_t *lock)
{
	int i;

#ifdef UPC_DEBUG
	/* A recursive acquisition would sleep forever: say so instead. */
	if (__atomic_load_n(&lock->owner, __ATOMIC_RELAXED) == current_tid()) {
		fprintf(stderr, "upcache: lock %p taken twice by thread %d\n",
			(void *)lock, current_tid());
		abort();
	}
#endif

	for (i = 0; i < LOCK_SPINS; i++) {
		if (__atomic_load_n(&lock->state, __ATOMIC_RELAXED) == 0 &&
		    lock_cas(lock, 0, 1))
			return;
		__builtin_ia32_pause();
	}
	/*
	 * From here on, every acquisition marks the word 2, because we cannot
	 * know whether another waiter is still asleep behind us.
	 */
	while (__atomic_exchange_n(&lock->state, 2, __ATOMIC_ACQUIRE) != 0)
		upc_futex_wait(&lock->state, 2);
}

/**
 * upc_lock() - Take a lock, sleeping if another thread holds it.
 * @lock: The lock.
 *
 * Context: May sleep.  Not recursive.
 */
void upc_lock(upc_lock_t *lock)
{
	upc_lock_nostat(lock);
	upc_count(lock_acquires);
}

/**
 * upc_lock_nostat() - upc_lock() without counting it in lock_acquires.
 * @lock: The lock.
 *
 * For locks that count themselves elsewhere (an arena's allocator).
 *
 * Context: May sleep.  Not recursive.
 */
void upc_lock_nostat(upc_lock_t *lock)
{
	if (!lock_cas(lock, 0, 1))
		lock_slow(lock);
	__atomic_store_n(&lock->owner, current_tid(), __ATOMIC_RELAXED);
}

/**
 * upc_trylock() - Take a lock if it is free.
 * @lock: The lock.
 *
 * Context: Never sleeps.
 * Return: true if the lock was taken.
 */
bool upc_trylock(upc_lock_t *lock)
{
	if (!lock_cas(lock, 0, 1))
		return false;
	lock_acquired(lock);
	return true;
}

/**
 * upc_unlock() - Release a lock.
 * @lock: The lock, held by the caller.
 *
 * Context: Never sleeps.
 */
void upc_unlock(upc_lock_t *lock)
{
	__atomic_store_n(&lock->owner, 0, __ATOMIC_RELAXED);
	if (__atomic_exchange_n(&lock->state, 0, __ATOMIC_RELEASE) == 2)
		upc_futex_wake(&lock->state, 1);
}

/**
 * upc_lock_is_held() - Does the calling thread hold @lock?
 * @lock: The lock.
 *
 * Return: true if the calling thread holds @lock.
 */
bool upc_lock_is_held(const upc_lock_t *lock)
{
	return __atomic_load_n(&lock->state, __ATOMIC_RELAXED) != 0 &&
	       __atomic_load_n(&lock->owner, __ATOMIC_RELAXED) == current_tid();
}
