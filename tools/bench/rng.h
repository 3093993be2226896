/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/rng.h - deterministic pseudo-random numbers (splitmix64).
 *
 * Every random workload is generated from a fixed seed, so two runs (and
 * the A and B sides of one run) see the same index sequence and a change
 * in the figures is a change in the code, not in the input.
 */
#ifndef UPCACHE_TOOLS_BENCH_RNG_H
#define UPCACHE_TOOLS_BENCH_RNG_H

#include <stddef.h>
#include <stdint.h>

#define BENCH_RNG_SEED	0x75706361636865ull	/* "upcache" */

/**
 * struct bench_rng - generator state.
 * @state: The splitmix64 counter.
 */
struct bench_rng {
	uint64_t state;
};

/**
 * bench_rng_next() - The next 64 random bits.
 * @rng: The generator.
 *
 * Return: A uniformly distributed 64-bit number.
 */
static inline uint64_t bench_rng_next(struct bench_rng *rng)
{
	uint64_t z = (rng->state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/**
 * bench_rng_below() - A random number below a bound.
 * @rng: The generator.
 * @bound: The bound, 1..2^32.
 *
 * Multiplies instead of dividing (Lemire); the bias is below 2^-32.
 *
 * Return: A number in 0..@bound-1.
 */
static inline uint64_t bench_rng_below(struct bench_rng *rng, uint64_t bound)
{
	return ((bench_rng_next(rng) >> 32) * bound) >> 32;
}

/**
 * bench_shuffle() - Shuffle an array of indices (Fisher-Yates).
 * @rng: The generator.
 * @v: The indices.
 * @n: How many; at most 2^32.
 */
void bench_shuffle(struct bench_rng *rng, unsigned long *v, size_t n);

/**
 * bench_permutation() - A random permutation of 0..n-1.
 * @seed: Seed for the generator.
 * @n: Length; at most 2^32.
 *
 * Return: A malloc()ed array of @n indices; dies if memory runs out.
 */
unsigned long *bench_permutation(uint64_t seed, size_t n);

#endif /* UPCACHE_TOOLS_BENCH_RNG_H */
