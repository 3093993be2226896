// SPDX-License-Identifier: MIT
/*
 * tools/bench/clock.c - CLOCK_MONOTONIC in nanoseconds.
 */
#include <errno.h>
#include <time.h>

#include "clock.h"

#define NSEC_PER_SEC	1000000000ull

/**
 * bench_now_ns() - Read the monotonic clock.
 *
 * Context: Any thread.
 * Return: Nanoseconds since an arbitrary fixed point.
 */
uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/**
 * bench_thread_cpu_ns() - Read the calling thread's CPU clock.
 *
 * Context: Any thread.
 * Return: Nanoseconds of CPU time the thread has used.
 */
uint64_t bench_thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/**
 * bench_sleep_ns() - Sleep for at least a while.
 * @ns: Nanoseconds to sleep.
 *
 * Context: Sleeps.
 */
void bench_sleep_ns(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / NSEC_PER_SEC),
		.tv_nsec = (long)(ns % NSEC_PER_SEC),
	};

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}
