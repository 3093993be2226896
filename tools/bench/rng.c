// SPDX-License-Identifier: MIT
/*
 * tools/bench/rng.c - shuffles and permutations for random workloads.
 */
#include "rng.h"
#include "util.h"

/**
 * bench_shuffle() - Shuffle an array of indices (Fisher-Yates).
 * @rng: The generator.
 * @v: The indices.
 * @n: How many.
 */
void bench_shuffle(struct bench_rng *rng, unsigned long *v, size_t n)
{
	size_t i, j;
	unsigned long tmp;

	for (i = n; i > 1; i--) {
		j = (size_t)bench_rng_below(rng, i);
		tmp = v[i - 1];
		v[i - 1] = v[j];
		v[j] = tmp;
	}
}

/**
 * bench_permutation() - A random permutation of 0..n-1.
 * @seed: Seed for the generator.
 * @n: Length.
 *
 * Return: A malloc()ed array of @n indices.
 */
unsigned long *bench_permutation(uint64_t seed, size_t n)
{
	struct bench_rng rng = { .state = seed };
	unsigned long *v = bench_xcalloc(n, sizeof(*v));
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = i;
	bench_shuffle(&rng, v, n);
	return v;
}
