// SPDX-License-Identifier: MIT
/*
 * tests/utils/rand.c - seeded pseudo-random numbers for randomised tests.
 *
 * xoshiro256** (Blackman and Vigna, 2018), seeded through splitmix64 as
 * its authors recommend.  Written for upcache's tests; see rand.h.
 */
#include "rand.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static inline uint64_t rotl64(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t upc_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void upc_rand_seed(struct upc_rand *r, uint64_t seed)
{
	uint64_t x = seed;
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = upc_splitmix64(&x);
	/* splitmix64 is a bijection of a counter: four zeros cannot happen. */
}

uint64_t upc_rand_next(struct upc_rand *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl64(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl64(s[3], 45);
	return result;
}

uint64_t upc_rand_below(struct upc_rand *r, uint64_t n)
{
	uint64_t x, limit;

	if (n == 0)
		return upc_rand_next(r);
	/* Reject the top partial bucket so every value is equally likely. */
	limit = UINT64_MAX - (UINT64_MAX % n);
	do {
		x = upc_rand_next(r);
	} while (x >= limit);
	return x % n;
}

bool upc_rand_chance(struct upc_rand *r, uint64_t num, uint64_t den)
{
	return upc_rand_below(r, den) < num;
}

/* parse_ulong() - Parse decimal, 0x-hex, or a k/m/g-suffixed number. */
static bool parse_ulong(const char *s, unsigned long *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s)
		return false;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return false;
	switch (*end) {
	case 'k': case 'K': v *= 1000ULL; end++; break;
	case 'm': case 'M': v *= 1000000ULL; end++; break;
	case 'g': case 'G': v *= 1000000000ULL; end++; break;
	default: break;
	}
	if (*end)
		return false;
	*out = (unsigned long)v;
	return true;
}

unsigned long upc_test_env_ulong(const char *name, unsigned long dflt)
{
	unsigned long v;

	return parse_ulong(getenv(name), &v) ? v : dflt;
}

static uint64_t test_seed;
static pthread_once_t test_seed_once = PTHREAD_ONCE_INIT;

/* test_seed_init() - Pick the run's seed once and print it. */
static void test_seed_init(void)
{
	const char *env = getenv("UPC_SEED");
	unsigned long v;
	struct timespec ts;
	uint64_t x;

	if (parse_ulong(env, &v)) {
		test_seed = v;
	} else {
		clock_gettime(CLOCK_REALTIME, &ts);
		x = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
		x ^= (uint64_t)getpid() << 32;
		test_seed = upc_splitmix64(&x) >> 1; /* fits a signed shell int */
	}
	fprintf(stderr, "# UPC_SEED=%llu (rerun with UPC_SEED=%llu to replay)\n",
		(unsigned long long)test_seed, (unsigned long long)test_seed);
	fflush(stderr);
}

uint64_t upc_test_seed(void)
{
	pthread_once(&test_seed_once, test_seed_init);
	return test_seed;
}

unsigned long upc_test_diff_ops(unsigned long dflt)
{
	return upc_test_env_ulong("UPC_DIFF_OPS", dflt);
}
