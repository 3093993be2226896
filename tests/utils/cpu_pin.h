/* SPDX-License-Identifier: MIT */
/*
 * tests/utils/cpu_pin.h - keep the test's thread on the CPU it runs on.
 *
 * Per-CPU structures (the arena's page caches, the LRU batches) are
 * picked by sched_getcpu(); a test that counts what one of them does
 * must not move between CPUs meanwhile.  cpu_set_t needs _GNU_SOURCE,
 * defined before the first include by every test that uses this.
 */
#ifndef UPCACHE_TESTS_UTILS_CPU_PIN_H
#define UPCACHE_TESTS_UTILS_CPU_PIN_H

#include <sched.h>
#include <stdbool.h>

/**
 * test_pin_this_cpu() - Pin the calling thread to the CPU it is on.
 * @saved: Where the old mask is kept, for test_unpin().
 *
 * Return: true, or false if the CPU or the mask cannot be read or set.
 */
bool test_pin_this_cpu(cpu_set_t *saved);

/**
 * test_unpin() - Give the thread back the mask @saved holds.
 * @saved: What test_pin_this_cpu() kept.
 *
 * Return: true, or false if it cannot be set.
 */
bool test_unpin(const cpu_set_t *saved);

#endif
