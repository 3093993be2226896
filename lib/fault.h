/* SPDX-License-Identifier: MIT */
/*
 * lib/fault.h - allocation fault injection (internal, for tests).
 *
 * Every allocation site in upcache (XArray nodes and their free
 * batches, pages and folios, handles, swap devices, work items, a grab's
 * arrays, a thread's io_uring ring) asks upc_fault_should_fail() first.
 * A test arms the injector with upc_fault_fail_nth(n): the n-th
 * allocation attempt from then on fails, and later ones succeed again.
 * Running a scenario with n = 1, 2, 3 ... until upc_fault_attempts()
 * stays below n fails every allocation point in turn.
 *
 * upc_fault_fail_from(n) makes the failure stick: the n-th attempt and
 * every later one fail, until the injector is disarmed.  That reaches the
 * paths a single failure cannot, where a caller retries an allocation
 * (xas_nomem(), reclaim) and a lone failure is absorbed by the retry.
 *
 * Disarmed (the default), the check is one relaxed load of a global flag.
 */
#ifndef UPCACHE_LIB_FAULT_H
#define UPCACHE_LIB_FAULT_H

#include <stdbool.h>

/**
 * upc_fault_fail_nth() - Arm the injector.
 * @n: Which allocation attempt from now fails, counting from 1; 0
 *	disarms the injector.
 *
 * Also resets the attempt counter read by upc_fault_attempts().
 * Context: Any thread; the count is global across threads.
 */
void upc_fault_fail_nth(unsigned long n);

/**
 * upc_fault_fail_from() - Arm the injector to fail from an attempt on.
 * @n: The first attempt that fails, counting from 1; every later one
 *	fails too.  0 disarms the injector.
 *
 * Resets the attempt counter, as upc_fault_fail_nth() does.
 * Context: Any thread; the count is global across threads.
 */
void upc_fault_fail_from(unsigned long n);

/**
 * upc_fault_attempts() - Allocation attempts since upc_fault_fail_nth().
 *
 * Counts only while the injector is armed.
 * Return: The number of attempts, the failed one included.
 */
unsigned long upc_fault_attempts(void);

/**
 * upc_fault_injected() - Has the armed failure happened yet?
 *
 * Return: true once the n-th attempt has been failed.
 */
bool upc_fault_injected(void);

/*
 * upc_fault_should_fail() - Called by allocators before allocating.
 * Return: true if this attempt must fail.
 */
extern int upc_fault_armed;
bool upc_fault_should_fail_slow(void);

static inline bool upc_fault_should_fail(void)
{
	if (__builtin_expect(__atomic_load_n(&upc_fault_armed, __ATOMIC_RELAXED), 0))
		return upc_fault_should_fail_slow();
	return false;
}

#endif /* UPCACHE_LIB_FAULT_H */
