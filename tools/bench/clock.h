/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/clock.h - the benchmark's one clock.
 *
 * Every figure upcache-bench prints is timed with CLOCK_MONOTONIC in
 * nanoseconds.  Reading it costs about 20 ns through the vDSO, so timed
 * regions always cover a whole loop of operations, never one.
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
 * bench_sleep_ns() - Sleep for at least a while.
 * @ns: Nanoseconds to sleep.
 *
 * Resumes the sleep after a signal, so it never returns early.
 *
 * Context: Sleeps.
 */
void bench_sleep_ns(uint64_t ns);

#endif /* UPCACHE_TOOLS_BENCH_CLOCK_H */
