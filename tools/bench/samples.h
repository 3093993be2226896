/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/samples.h - order statistics of benchmark samples.
 *
 * upcache-bench never reports a mean: a 2-core machine shared with other
 * work produces outliers in one direction only (slower), and one of them
 * moves a mean but not a median.  A figure is the median of its rounds,
 * printed with the min and max so the spread is visible; an A/B figure is
 * the median of the per-round ratios of interleaved A and B rounds, so a
 * slow phase of the machine hits both sides of one ratio.
 *
 * Pure code (no upcache calls), compiled into tests/bench/ directly.
 */
#ifndef UPCACHE_TOOLS_BENCH_SAMPLES_H
#define UPCACHE_TOOLS_BENCH_SAMPLES_H

#include <stddef.h>

/**
 * struct bench_summary - the median of some samples and their range.
 * @median: The median (the mean of the two middle samples for even @n).
 * @min: The smallest sample.
 * @max: The largest sample.
 * @n: How many samples were summarised.
 */
struct bench_summary {
	double median;
	double min;
	double max;
	size_t n;
};

/**
 * bench_sort_doubles() - Sort samples in ascending order, in place.
 * @v: The samples; none may be NaN.
 * @n: How many.
 */
void bench_sort_doubles(double *v, size_t n);

/**
 * bench_percentile_sorted() - A percentile of sorted samples.
 * @sorted: Samples in ascending order.
 * @n: How many; at least 1.
 * @p: The percentile, 0 to 100.
 *
 * Interpolates linearly between the two closest ranks (the "type 7"
 * definition, numpy's default): rank p/100 * (n - 1), counted from 0.
 * So p = 0 is the minimum, p = 100 the maximum and p = 50 the median.
 *
 * Return: The percentile, or NaN if @n is 0 or @p is outside 0..100.
 */
double bench_percentile_sorted(const double *sorted, size_t n, double p);

/**
 * bench_percentile() - A percentile of unsorted samples.
 * @v: The samples, left unchanged.
 * @n: How many.
 * @p: The percentile, 0 to 100.
 *
 * As bench_percentile_sorted(), on a sorted copy of @v.
 *
 * Return: The percentile, or NaN if @n is 0, @p is outside 0..100 or the
 * copy could not be allocated.
 */
double bench_percentile(const double *v, size_t n, double p);

/**
 * bench_median() - The median of unsorted samples.
 * @v: The samples, left unchanged.
 * @n: How many.
 *
 * Return: bench_percentile(@v, @n, 50).
 */
double bench_median(const double *v, size_t n);

/**
 * bench_summarize() - Median, min and max of samples.
 * @v: The samples, left unchanged.
 * @n: How many.
 * @out: The summary.
 *
 * Return: 0; -EINVAL if @n is 0; -ENOMEM if no scratch copy could be made.
 */
int bench_summarize(const double *v, size_t n, struct bench_summary *out);

/**
 * bench_summary_none() - The summary of a figure that was not measured.
 * @out: The summary: NaN median, min and max, no samples.
 */
void bench_summary_none(struct bench_summary *out);

/**
 * bench_ratio_summary() - Median, min and max of paired ratios.
 * @num: Numerators, one per round.
 * @den: Denominators, paired with @num by position.
 * @n: Number of pairs.
 * @out: Summary of num[i] / den[i].
 *
 * With @num the "before" times and @den the "after" times of interleaved
 * rounds, the median is the speedup (above 1: "after" is faster).
 *
 * Return: 0; -EINVAL if @n is 0; -EDOM if a denominator is 0; -ENOMEM if
 * no scratch array could be allocated.
 */
int bench_ratio_summary(const double *num, const double *den, size_t n,
			struct bench_summary *out);

/**
 * struct bench_sign - The sign test of paired rounds.
 * @above: Rounds whose ratio num/den is above 1 ("after" faster, with
 *	times as for bench_ratio_summary()).
 * @below: Rounds whose ratio is below 1.
 * @p: Two-sided p-value: the chance that two sides with no real
 *	difference, each first in a round with probability 1/2, split
 *	the rounds that differ at least this unevenly.  1 when no round
 *	differs; NaN when there were no rounds.
 *
 * A ratio's median says how large a difference is; the sign test says
 * whether there is one at all.  A median of 0.99 with @below 5 of 9
 * (p = 1) is two sides at parity; with @below 9 of 9 (p = 0.004) it is
 * a real, small slowdown.
 */
struct bench_sign {
	unsigned int above;
	unsigned int below;
	double p;
};

/**
 * bench_sign_test() - Sign test of paired rounds.
 * @num: Numerators, one per round (the "before" times).
 * @den: Denominators, paired with @num by position (the "after" times).
 * @n: Number of pairs.
 * @out: The counts and p-value; rounds with equal figures count on
 *	neither side.
 */
void bench_sign_test(const double *num, const double *den, size_t n,
		     struct bench_sign *out);

/**
 * bench_ratio() - One figure relative to a reference.
 * @value: The figure (upcache's).
 * @ref: The reference (the kernel's), in the same unit.
 *
 * Return: @value / @ref, or NaN when there is no usable reference (NaN,
 * zero, negative or infinite) or @value is NaN: a missing reference must
 * print as "-", never as a ratio of 0 or infinity.
 */
double bench_ratio(double value, double ref);

#endif /* UPCACHE_TOOLS_BENCH_SAMPLES_H */
