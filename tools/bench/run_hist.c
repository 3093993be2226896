// SPDX-License-Identifier: MIT
/*
 * tools/bench/run_hist.c - latency histograms for `upcache-bench run`.
 *
 * Owns the bucket layout's inverse (bucket to value) and reading
 * percentiles back; adding is inline in run_hist.h.
 */
#include <math.h>
#include <string.h>

#include "run_hist.h"

/* 100%, in the millionths of a percent run_hist_percentile() counts. */
#define HIST_MICRO_ALL	100000000ULL

/**
 * run_hist_init() - Empty a histogram.
 * @h: The histogram.
 */
void run_hist_init(struct run_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

/**
 * run_hist_merge() - Add one histogram's values to another's.
 * @acc: The total.
 * @more: The values to add.
 */
void run_hist_merge(struct run_hist *acc, const struct run_hist *more)
{
	unsigned int i;

	for (i = 0; i < RUN_HIST_BUCKETS; i++)
		acc->buckets[i] += more->buckets[i];
	acc->count += more->count;
	acc->sum += more->sum;
	if (more->min < acc->min)
		acc->min = more->min;
	if (more->max > acc->max)
		acc->max = more->max;
}

/**
 * run_hist_bucket_low() - The smallest value of a bucket.
 * @b: The bucket index.
 *
 * Return: Its lower bound.
 */
uint64_t run_hist_bucket_low(unsigned int b)
{
	unsigned int group = b / RUN_HIST_SUB, sub = b % RUN_HIST_SUB;

	if (!group)
		return b;
	return (uint64_t)(RUN_HIST_SUB + sub) << (group - 1);
}

/* hist_bucket_width() - How many values bucket @b holds. */
static uint64_t hist_bucket_width(unsigned int b)
{
	unsigned int group = b / RUN_HIST_SUB;

	return group ? 1ULL << (group - 1) : 1;
}

/**
 * run_hist_percentile() - A percentile of the recorded values.
 * @h: The histogram.
 * @p: The percentile.
 *
 * Return: Nanoseconds, or NaN.
 */
double run_hist_percentile(const struct run_hist *h, double p)
{
	uint64_t micro, rank, seen = 0;
	unsigned int b;
	double v;

	if (!h->count || !(p > 0 && p <= 100))
		return NAN;
	/*
	 * The nearest rank, ceil(p / 100 * count), in integers: in floating
	 * point 99.9 / 100 * 1000 is a hair above 999, and the rank would be
	 * the maximum's.  @p is taken to the millionth of a percent.
	 */
	micro = (uint64_t)llround(p * 1e6);
	rank = (uint64_t)(((unsigned __int128)micro * h->count +
			   HIST_MICRO_ALL - 1) / HIST_MICRO_ALL);
	if (rank < 1)
		rank = 1;
	for (b = 0; b < RUN_HIST_BUCKETS; b++) {
		seen += h->buckets[b];
		if (seen >= rank)
			break;
	}
	if (b == RUN_HIST_BUCKETS)
		return (double)h->max;
	v = (double)run_hist_bucket_low(b) +
	    (double)(hist_bucket_width(b) - 1) / 2.0;
	if (v < (double)h->min)
		v = (double)h->min;
	if (v > (double)h->max)
		v = (double)h->max;
	return v;
}

/**
 * run_hist_mean() - The mean of the recorded values.
 * @h: The histogram.
 *
 * Return: Nanoseconds, or NaN.
 */
double run_hist_mean(const struct run_hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : NAN;
}
