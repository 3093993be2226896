/* SPDX-License-Identifier: MIT */
/*
 * lib/futex.h - sleeping on a 32-bit word until it changes.
 *
 * The two primitives every sleeping lock in upcache is made of
 * (upc_lock_t, the folio lock, folio writeback waits).  Process-private
 * futexes: upcache's memory is never shared between processes.
 */
#ifndef UPCACHE_LIB_FUTEX_H
#define UPCACHE_LIB_FUTEX_H

#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/*
 * upc_futex_wait() - Sleep while *@word == @val.  Returns at once if it
 * differs; may also return spuriously, so callers loop on their condition.
 */
static inline void upc_futex_wait(void *word, uint32_t val)
{
	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

/*
 * upc_futex_wait_us() - upc_futex_wait(), for @us microseconds at most
 * (less than a second).
 */
static inline void upc_futex_wait_us(void *word, uint32_t val, long us)
{
	struct timespec timeout = { .tv_sec = 0, .tv_nsec = us * 1000 };

	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, &timeout, NULL, 0);
}

/* upc_futex_wake() - Wake up to @nr sleepers on @word (INT32_MAX: all). */
static inline void upc_futex_wake(void *word, int nr)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, nr, NULL, NULL, 0);
}

#endif /* UPCACHE_LIB_FUTEX_H */
