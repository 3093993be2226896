/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/run_hist.h - latency histograms for `upcache-bench run`.
 *
 * Every operation's latency is recorded, so percentiles cover all of
 * them, not a sample; storing each latency would cost memory in
 * proportion to the run, so they go into a log-linear histogram, as
 * fio's do: values below 64 ns have a bucket each, and every power of
 * two above is cut into 64 equal buckets, so a reported percentile is
 * within 1/64 (1.6%) of the true one whatever the scale.  Adding is a
 * count-leading-zeros, a shift and an increment.
 *
 * Pure code, compiled into tests/bench/ directly.
 */
#ifndef UPCACHE_TOOLS_BENCH_RUN_HIST_H
#define UPCACHE_TOOLS_BENCH_RUN_HIST_H

#include <stdint.h>

#define RUN_HIST_SUB_BITS	6
#define RUN_HIST_SUB		(1u << RUN_HIST_SUB_BITS)
/* One group of RUN_HIST_SUB buckets per bit position 6..63, plus 0..63. */
#define RUN_HIST_BUCKETS	((64 - RUN_HIST_SUB_BITS + 1) * RUN_HIST_SUB)

/**
 * struct run_hist - a latency histogram.
 * @count: Values recorded.
 * @sum: Their sum, for the mean.
 * @min: The smallest (UINT64_MAX while empty).
 * @max: The largest.
 * @buckets: Counts per bucket.
 */
struct run_hist {
	uint64_t count;
	uint64_t sum;
	uint64_t min;
	uint64_t max;
	uint64_t buckets[RUN_HIST_BUCKETS];
};

/**
 * run_hist_bucket() - The bucket of a value.
 * @v: The value in nanoseconds.
 *
 * Return: The bucket index, below RUN_HIST_BUCKETS.
 */
static inline unsigned int run_hist_bucket(uint64_t v)
{
	unsigned int msb;

	if (v < RUN_HIST_SUB)
		return (unsigned int)v;
	msb = 63u - (unsigned int)__builtin_clzll(v);
	return (msb - RUN_HIST_SUB_BITS + 1) * RUN_HIST_SUB +
		(unsigned int)((v >> (msb - RUN_HIST_SUB_BITS)) &
			       (RUN_HIST_SUB - 1));
}

/**
 * run_hist_add() - Record one value.
 * @h: The histogram.
 * @v: The value in nanoseconds.
 *
 * Context: The histogram's owner thread.
 */
static inline void run_hist_add(struct run_hist *h, uint64_t v)
{
	h->buckets[run_hist_bucket(v)]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

/**
 * run_hist_init() - Empty a histogram.
 * @h: The histogram.
 */
void run_hist_init(struct run_hist *h);

/**
 * run_hist_merge() - Add one histogram's values to another's.
 * @acc: The total.
 * @more: The values to add.
 */
void run_hist_merge(struct run_hist *acc, const struct run_hist *more);

/**
 * run_hist_bucket_low() - The smallest value of a bucket.
 * @b: The bucket index.
 *
 * Return: The bucket's lower bound in nanoseconds.
 */
uint64_t run_hist_bucket_low(unsigned int b);

/**
 * run_hist_percentile() - A percentile of the recorded values.
 * @h: The histogram.
 * @p: The percentile, 0 < @p <= 100.
 *
 * Finds the bucket of the value of rank ceil(@p/100 * count) (the
 * nearest-rank definition fio uses) and reports the middle of that
 * bucket, clamped to the recorded min and max.
 *
 * Return: Nanoseconds; NaN if @h is empty or @p is out of range.
 */
double run_hist_percentile(const struct run_hist *h, double p);

/**
 * run_hist_mean() - The mean of the recorded values.
 * @h: The histogram.
 *
 * Return: Nanoseconds; NaN if @h is empty.
 */
double run_hist_mean(const struct run_hist *h);

#endif /* UPCACHE_TOOLS_BENCH_RUN_HIST_H */
