// SPDX-License-Identifier: MIT
/*
 * tools/bench/samples.c - medians, percentiles, ratios, ratio medians
 * and the sign test of paired rounds.
 *
 * Sample counts are small (rounds, at most a few thousand latencies), so
 * every function sorts a copy with qsort(); nothing here is on a timed
 * path.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "samples.h"

/* samples_cmp() - qsort() order for doubles that are not NaN. */
static int samples_cmp(const void *a, const void *b)
{
	double x = *(const double *)a;
	double y = *(const double *)b;

	return (x > y) - (x < y);
}

/**
 * bench_sort_doubles() - Sort samples in ascending order, in place.
 * @v: The samples; none may be NaN.
 * @n: How many.
 */
void bench_sort_doubles(double *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), samples_cmp);
}

/**
 * bench_percentile_sorted() - A percentile of sorted samples.
 * @sorted: Samples in ascending order.
 * @n: How many; at least 1.
 * @p: The percentile, 0 to 100.
 *
 * Return: The interpolated percentile, or NaN for bad input.
 */
double bench_percentile_sorted(const double *sorted, size_t n, double p)
{
	double rank, frac;
	size_t lo;

	if (n == 0 || !(p >= 0.0 && p <= 100.0))
		return NAN;
	rank = p / 100.0 * (double)(n - 1);
	lo = (size_t)rank;
	if (lo >= n - 1)
		return sorted[n - 1];
	frac = rank - (double)lo;
	return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

/* samples_sorted_copy() - malloc()ed ascending copy of @v, or NULL. */
static double *samples_sorted_copy(const double *v, size_t n)
{
	double *copy = malloc(n * sizeof(*copy));

	if (!copy)
		return NULL;
	memcpy(copy, v, n * sizeof(*copy));
	bench_sort_doubles(copy, n);
	return copy;
}

/**
 * bench_percentile() - A percentile of unsorted samples.
 * @v: The samples, left unchanged.
 * @n: How many.
 * @p: The percentile, 0 to 100.
 *
 * Return: The percentile, or NaN for bad input or no memory.
 */
double bench_percentile(const double *v, size_t n, double p)
{
	double *sorted, result;

	if (n == 0)
		return NAN;
	sorted = samples_sorted_copy(v, n);
	if (!sorted)
		return NAN;
	result = bench_percentile_sorted(sorted, n, p);
	free(sorted);
	return result;
}

/**
 * bench_median() - The median of unsorted samples.
 * @v: The samples, left unchanged.
 * @n: How many.
 *
 * Return: The median, or NaN if @n is 0.
 */
double bench_median(const double *v, size_t n)
{
	return bench_percentile(v, n, 50.0);
}

/**
 * bench_summarize() - Median, min and max of samples.
 * @v: The samples, left unchanged.
 * @n: How many.
 * @out: The summary.
 *
 * Return: 0, -EINVAL if @n is 0, -ENOMEM without scratch memory.
 */
int bench_summarize(const double *v, size_t n, struct bench_summary *out)
{
	double *sorted;

	if (n == 0)
		return -EINVAL;
	sorted = samples_sorted_copy(v, n);
	if (!sorted)
		return -ENOMEM;
	out->median = bench_percentile_sorted(sorted, n, 50.0);
	out->min = sorted[0];
	out->max = sorted[n - 1];
	out->n = n;
	free(sorted);
	return 0;
}

/**
 * bench_summary_none() - The summary of a figure that was not measured.
 * @out: The summary: NaN median, min and max, no samples.
 */
void bench_summary_none(struct bench_summary *out)
{
	out->median = out->min = out->max = NAN;
	out->n = 0;
}

/**
 * bench_ratio_summary() - Median, min and max of paired ratios.
 * @num: Numerators, one per round.
 * @den: Denominators, paired with @num by position.
 * @n: Number of pairs.
 * @out: Summary of num[i] / den[i].
 *
 * Return: 0, -EINVAL if @n is 0, -EDOM for a zero denominator, -ENOMEM
 * without scratch memory.
 */
int bench_ratio_summary(const double *num, const double *den, size_t n,
			struct bench_summary *out)
{
	double *ratio;
	size_t i;
	int err;

	if (n == 0)
		return -EINVAL;
	ratio = malloc(n * sizeof(*ratio));
	if (!ratio)
		return -ENOMEM;
	for (i = 0; i < n && den[i] != 0.0; i++)
		ratio[i] = num[i] / den[i];
	err = i < n ? -EDOM : bench_summarize(ratio, n, out);
	free(ratio);
	return err;
}

/*
 * sign_tail() - P(X <= @k) for X binomial with @m trials of probability
 * 1/2.  The terms are built as ratios of doubles, so no binomial
 * coefficient overflows for any round count the suites allow.
 */
static double sign_tail(unsigned int k, unsigned int m)
{
	double term = ldexp(1.0, -(int)m), sum = 0.0;
	unsigned int i;

	for (i = 0; i <= k; i++) {
		sum += term;
		term = term * (double)(m - i) / (double)(i + 1);
	}
	return sum;
}

/**
 * bench_sign_test() - Sign test of paired rounds.
 * @num: Numerators, one per round.
 * @den: Denominators, paired with @num by position.
 * @n: Number of pairs.
 * @out: The counts and the two-sided p-value.
 */
void bench_sign_test(const double *num, const double *den, size_t n,
		     struct bench_sign *out)
{
	unsigned int m;
	size_t i;
	double p;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++) {
		out->above += num[i] > den[i];
		out->below += num[i] < den[i];
	}
	if (!n) {
		out->p = NAN;
		return;
	}
	m = out->above + out->below;
	p = 2.0 * sign_tail(out->above < out->below ? out->above :
			    out->below, m);
	out->p = p > 1.0 ? 1.0 : p;
}

/**
 * bench_ratio() - One figure relative to a reference.
 * @value: The figure.
 * @ref: The reference, in the same unit.
 *
 * Return: @value / @ref, or NaN without a usable reference or value.
 */
double bench_ratio(double value, double ref)
{
	if (!isfinite(value) || !isfinite(ref) || ref <= 0.0)
		return NAN;
	return value / ref;
}
