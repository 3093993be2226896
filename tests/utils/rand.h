/* SPDX-License-Identifier: MIT */
/*
 * tests/utils/rand.h - seeded pseudo-random numbers for randomised tests.
 *
 * xoshiro256** seeded through splitmix64: fast, 2^256 - 1 period, and the
 * same sequence on every machine for a given seed, so a failure found in
 * CI replays anywhere with UPC_SEED=<seed>.
 *
 * Environment knobs read here (every randomised test uses the same ones):
 *	UPC_SEED	decimal or 0x-hex seed; default: time-based.  The seed
 *			in use is always printed to stderr.
 *	UPC_DIFF_OPS	number of operations a differential test runs;
 *			`make stress` raises it.
 */
#ifndef UPCACHE_TESTS_UTILS_RAND_H
#define UPCACHE_TESTS_UTILS_RAND_H

#include <stdbool.h>
#include <stdint.h>

/**
 * struct upc_rand - state of one pseudo-random stream.
 * @s: xoshiro256** state; never all zero.
 */
struct upc_rand {
	uint64_t s[4];
};

/**
 * upc_rand_seed() - Start a stream.
 * @r: The stream.
 * @seed: Any 64-bit value (0 included).
 */
void upc_rand_seed(struct upc_rand *r, uint64_t seed);

/**
 * upc_rand_next() - Next 64 random bits.
 * @r: The stream.
 *
 * Return: A uniformly distributed 64-bit value.
 */
uint64_t upc_rand_next(struct upc_rand *r);

/**
 * upc_rand_below() - A uniform integer below a bound.
 * @r: The stream.
 * @n: Exclusive upper bound; 0 means the full 64-bit range.
 *
 * Return: A value in [0, @n), without modulo bias.
 */
uint64_t upc_rand_below(struct upc_rand *r, uint64_t n);

/**
 * upc_rand_chance() - A biased coin.
 * @r: The stream.
 * @num: Numerator.
 * @den: Denominator, not 0.
 *
 * Return: true with probability @num / @den.
 */
bool upc_rand_chance(struct upc_rand *r, uint64_t num, uint64_t den);

/**
 * upc_splitmix64() - One step of splitmix64.
 * @x: In: the state; out: the advanced state.
 *
 * Also useful to derive independent seeds from one base seed.
 * Return: The next output.
 */
uint64_t upc_splitmix64(uint64_t *x);

/**
 * upc_test_seed() - The seed of this test run.
 *
 * Reads UPC_SEED on the first call (decimal or 0x-prefixed hex); if unset
 * or unparsable, derives a seed from the clock and the pid.  Prints the
 * seed to stderr once, as "# UPC_SEED=<n>", so every run can be replayed.
 *
 * Return: The same seed on every call within one process.
 */
uint64_t upc_test_seed(void);

/**
 * upc_test_env_ulong() - Read an unsigned number from the environment.
 * @name: Variable name, e.g. "UPC_DIFF_OPS".
 * @dflt: Value when the variable is unset, empty or unparsable.
 *
 * Return: The parsed value (decimal, 0x-hex, or with a k/m/g suffix
 * meaning 10^3, 10^6, 10^9), or @dflt.
 */
unsigned long upc_test_env_ulong(const char *name, unsigned long dflt);

/**
 * upc_test_diff_ops() - How many operations a differential test runs.
 * @dflt: Default for this build (smaller under sanitizers).
 *
 * Return: UPC_DIFF_OPS if set, else @dflt.
 */
unsigned long upc_test_diff_ops(unsigned long dflt);

#endif /* UPCACHE_TESTS_UTILS_RAND_H */
