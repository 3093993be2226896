/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/clock.h - the benchmark's clocks.
 *
 * Figures are timed with CLOCK_MONOTONIC in nanoseconds, except where a
 * suite times its reader threads by their own CPU time (the reclaim
 * suite: on a shared machine, a reader preempted by another job would
 * otherwise count the other job's time as its own).  Reading either
 * costs tens of nanoseconds, so timed regions always cover a whole loop
 * of operations, never one.
 */
#ifndef UPCACHE_TOOLS_BENCH_CLOCK_H
#define UPCACHE_TOOLS_BENCH_CLOCK_H

#include <stdint.h>

/**
 * bench_now_ns() - Read the monotonic clock.
 *
 * Context: Any thread.
 * Return: Nanoseconds since an arbitrary fixed point.
 */
uint64_t bench_now_ns(void);

/**
 * bench_thread_cpu_ns() - Read the calling thread's CPU clock.
 *
 * Context: Any thread.
 * Return: Nanoseconds of CPU time the thread has used, user and system.
 */
uint64_t bench_thread_cpu_ns(void);

/**
 * bench_sleep_ns() - Sleep for at least a while.
 * @ns: Nanoseconds to sleep.
 *
 * Resumes the sleep after a signal, so it never returns early.
 *
 * Context: Sleeps.
 */
void bench_sleep_ns(uint64_t ns);

#endif /* UPCACHE_TOOLS_BENCH_CLOCK_H */
