// SPDX-License-Identifier: MIT
/*
 * lib/fault.c - allocation fault injection (see fault.h).
 *
 * Global rather than per-thread so that a test can fail an allocation
 * made on any thread; the tests that use it drive one thread at a time.
 */
#include "fault.h"

int upc_fault_armed;
static unsigned long fault_nth;
static unsigned long fault_attempts;
static int fault_done;
static int fault_sticky;

/* Set the injector up, then arm it (release: after every setting). */
static void fault_arm(unsigned long n, bool sticky)
{
	__atomic_store_n(&fault_sticky, sticky, __ATOMIC_RELAXED);
	__atomic_store_n(&fault_nth, n, __ATOMIC_RELAXED);
	__atomic_store_n(&fault_attempts, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&fault_done, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&upc_fault_armed, n != 0, __ATOMIC_RELEASE);
}

/**
 * upc_fault_fail_nth() - Arm the injector (see fault.h).
 * @n: Which attempt fails, from 1; 0 disarms.
 */
void upc_fault_fail_nth(unsigned long n)
{
	fault_arm(n, false);
}

/**
 * upc_fault_fail_from() - Arm the injector, failing from @n on (fault.h).
 * @n: The first attempt that fails, from 1; 0 disarms.
 */
void upc_fault_fail_from(unsigned long n)
{
	fault_arm(n, n != 0);
}

/**
 * upc_fault_attempts() - Allocation attempts since upc_fault_fail_nth().
 * Return: The number of attempts counted while armed.
 */
unsigned long upc_fault_attempts(void)
{
	return __atomic_load_n(&fault_attempts, __ATOMIC_RELAXED);
}

/**
 * upc_fault_injected() - Has the armed failure happened yet?
 * Return: true once the chosen attempt has failed.
 */
bool upc_fault_injected(void)
{
	return __atomic_load_n(&fault_done, __ATOMIC_RELAXED);
}

/*
 * upc_fault_should_fail_slow() - Count an attempt; fail the chosen one.
 */
bool upc_fault_should_fail_slow(void)
{
	unsigned long n = __atomic_add_fetch(&fault_attempts, 1, __ATOMIC_RELAXED);
	unsigned long nth = __atomic_load_n(&fault_nth, __ATOMIC_RELAXED);

	if (n != nth &&
	    !(n > nth && __atomic_load_n(&fault_sticky, __ATOMIC_RELAXED)))
		return false;
	__atomic_store_n(&fault_done, 1, __ATOMIC_RELAXED);
	return true;
}
