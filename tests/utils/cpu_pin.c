// SPDX-License-Identifier: MIT
/*
 * tests/utils/cpu_pin.c - keep the test's thread on one CPU (cpu_pin.h).
 */
#define _GNU_SOURCE
#include "cpu_pin.h"

bool test_pin_this_cpu(cpu_set_t *saved)
{
	int cpu = sched_getcpu();
	cpu_set_t one;

	if (cpu < 0 || sched_getaffinity(0, sizeof(*saved), saved))
		return false;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return !sched_setaffinity(0, sizeof(one), &one);
}

bool test_unpin(const cpu_set_t *saved)
{
	return !sched_setaffinity(0, sizeof(*saved), saved);
}
