// SPDX-License-Identifier: MIT
/*
 * tests/api/test_anon_fault.c - swap and anonymous regions when
 * allocations fail (lib/fault.h).
 *
 * One scenario goes through the whole life of a swapping region: swapon,
 * create a region larger than the memory left beside a fallocated shmem
 * file that pins the rest of the cache (so that few allocations are
 * needed before reclaim must swap, and a run stays short), write it in odd-sized pieces
 * (reclaim swaps pages out: slots, swap cache nodes), read it all back
 * (swap-in: folios, swap cache nodes, and reclaim again to make room),
 * destroy it and swap off.  It runs with upc_fault_fail_nth(n) for n = 1,
 * 2, 3 ... until the scenario makes fewer than n allocation attempts, so
 * every allocation point along the way fails once, in every state it is
 * reached in.  Whatever fails:
 *   - every call returns success, a short count or -ENOMEM (the only
 *     documented error an allocation can cause here); a failed swapon
 *     or create is retried, as a program would;
 *   - a model of the region records what each write reports written, and
 *     every read must match it, so no byte written is lost or damaged;
 *     a read that comes back short or failed is finished by a retry,
 *     which must succeed (the single failure has been spent);
 *   - upc_check_anon() and upc_check_swap() accept the region and the
 *     device before it is destroyed, and afterwards the cache reports no
 *     slot and no memory in use, swaps off and is destroyed.
 * The runs whose caller saw the failure (an error or a short count) are
 * counted and printed; the others absorbed it (reclaim kept a folio, the
 * XArray allocated its node again outside the lock).
 *
 * A second scenario makes the failure stick (upc_fault_fail_from(n)):
 * from the n-th attempt on every allocation fails, so the retries that
 * absorb a single failure fail too and the error paths behind them run.
 * Each call must still return success, a short count or -ENOMEM; once
 * the injector is disarmed everything reported written reads back, the
 * checkers accept the region and the device, and all is freed.
 */
#include <limits.h>

#include "api_helpers.h"
#include "fault.h"

#define LIMIT		(2 * API_MIB)
/*
 * A shmem file fallocated and never written pins most of the cache (its
 * folios hold no data, so reclaim leaves them), and a small region
 * already swaps.
 */
#define PINNED		(LIMIT - 64 * API_PAGE)
#define REGION		(160 * API_PAGE)
#define SWAP		(2 * API_MIB)
#define PIECE		(5 * API_PAGE + 123)	/* writes straddle pages */
#define MAX_NTH		100000

/* What the runs saw, over one test. */
struct af_counts {
	unsigned long runs;
	unsigned long seen;	/* a call reported the failure */
	unsigned long swapouts;	/* pages swapped out, all runs */
	unsigned long swapins;	/* and back in */
};

static unsigned char *af_model;
/* The bytes written to the region (pattern 2); the file's (zeros). */
static unsigned char *af_data, *af_pinned;

/* A failure reported by a call: only -ENOMEM may come of one. */
static void af_seen(struct af_counts *c, long ret)
{
	if (ret < 0)
		assert_int_equal(ret, -ENOMEM);
	c->seen++;
}

/* upc_swapon(), retried once if the failure hit it. */
static void af_swapon(struct api_env *env, unsigned int shift,
		      struct af_counts *c)
{
	struct upc_swap_config cfg = { .size = SWAP, .space_shift = shift };
	int err = upc_swapon(env->cache, &cfg);

	if (err) {
		af_seen(c, err);
		assert_int_equal(upc_swapoff(env->cache), -EINVAL);
		assert_int_equal(upc_swapon(env->cache, &cfg), 0);
	}
}

/* upc_anon_create(), retried once if the failure hit it. */
static struct upc_anon *af_create(struct api_env *env, struct af_counts *c)
{
	struct upc_anon *anon = NULL;
	int err = upc_anon_create(env->cache, REGION, &anon);

	if (err) {
		af_seen(c, err);
		assert_null(anon);
		assert_int_equal(upc_anon_create(env->cache, REGION, &anon), 0);
	}
	return anon;
}

/* Write the region in pieces; the model takes what each reports. */
static void af_write(struct upc_anon *anon, struct af_counts *c)
{
	int64_t pos;

	for (pos = 0; pos < REGION; pos += PIECE) {
		size_t len = REGION - pos < PIECE ? (size_t)(REGION - pos) : PIECE;
		ssize_t ret = upc_anon_write(anon, af_data + pos, len, pos);

		if (ret < 0 || (size_t)ret < len)
			af_seen(c, ret);
		if (ret > 0)
			memcpy(af_model + pos, af_data + pos, (size_t)ret);
	}
}

/* Read [@pos, @pos + @len) and compare; return how much was read. */
static size_t af_read_piece(struct upc_anon *anon, unsigned char *buf,
			    int64_t pos, size_t len, struct af_counts *c)
{
	ssize_t ret = upc_anon_read(anon, buf, len, pos);

	if (ret < 0 || (size_t)ret < len)
		af_seen(c, ret);
	if (ret <= 0)
		return 0;
	if (memcmp(buf, af_model + pos, (size_t)ret))
		fail_msg("read at %" PRId64 " differs from what was written",
			 pos);
	return (size_t)ret;
}

/* Read the region back in pieces; a piece cut short is finished. */
static void af_read(struct upc_anon *anon, struct af_counts *c)
{
	unsigned char *buf = malloc(PIECE);
	int64_t pos;

	assert_non_null(buf);
	for (pos = 0; pos < REGION; pos += PIECE) {
		size_t len = REGION - pos < PIECE ? (size_t)(REGION - pos) : PIECE;
		size_t got = af_read_piece(anon, buf, pos, len, c);

		if (got < len) {
			struct af_counts again = { 0 };

			got += af_read_piece(anon, buf, pos + (int64_t)got,
					     len - got, &again);
			assert_int_equal(again.seen, 0);
		}
		assert_int_equal(got, len);
	}
	free(buf);
}

/*
 * The file still reads as zeros; closing it frees its folios, and then
 * no slot or page is in use.
 */
static void af_close_file(struct api_env *env)
{
	struct upc_cache_stats st;

	assert_int_equal(upc_read(env->file, af_model, PINNED, 0), PINNED);
	assert_memory_equal(af_model, af_pinned, PINNED);
	assert_file_ok(env->file);
	assert_int_equal(upc_close(env->file), 0);
	env->file = NULL;
	assert_int_equal(upc_cache_stats(env->cache, &st), 0);
	assert_int_equal(st.swap_used, 0);
	assert_int_equal(st.memory_used, 0);
}

/*
 * One run with allocation @n failing (ULONG_MAX: none, only counting).
 * Return: the allocation attempts the scenario made; *@injected says
 * whether the failure happened.
 */
static unsigned long af_run(unsigned long n, unsigned int shift,
			    struct af_counts *c, bool *injected)
{
	struct upc_cache_config cfg = { .memory_limit = LIMIT };
	struct upc_cache_stats st;
	struct upc_anon *anon;
	struct api_env env = { 0 };
	unsigned long attempts;

	memset(af_model, 0, REGION);
	assert_int_equal(upc_cache_create(&cfg, &env.cache), 0);
	assert_int_equal(upc_shmem_create(env.cache, NULL, &env.file), 0);
	assert_int_equal(upc_fallocate(env.file, 0, 0, PINNED), 0);
	upc_fault_fail_nth(n);
	af_swapon(&env, shift, c);
	anon = af_create(&env, c);
	af_write(anon, c);
	af_read(anon, c);
	assert_int_equal(upc_check_anon(&anon->region), 0);
	assert_int_equal(upc_check_swap(env.cache->swap), 0);
	assert_int_equal(upc_cache_stats(env.cache, &st), 0);
	c->swapouts += st.swapouts;
	c->swapins += st.swapins;
	assert_int_equal(upc_anon_destroy(anon), 0);
	attempts = upc_fault_attempts();
	*injected = upc_fault_injected();
	upc_fault_fail_nth(0);

	af_close_file(&env);
	assert_int_equal(upc_cache_stats(env.cache, &st), 0);
	assert_int_equal(st.anon_regions, 0);
	assert_int_equal(upc_swapoff(env.cache), 0);
	api_fini(&env);
	c->runs++;
	return attempts;
}

/* One shift's runs, for api_fail_each(). */
struct af_each {
	unsigned int shift;
	struct af_counts *c;
};

static unsigned long af_run_nth(unsigned long n, void *arg, bool *injected)
{
	struct af_each *each = arg;

	return af_run(n, each->shift, each->c, injected);
}

/* Fail each allocation of the scenario in turn, then check the tally. */
static void af_fail_each(unsigned int shift)
{
	struct af_counts c = { 0 };
	struct af_each each = { shift, &c };
	unsigned long total, points;
	bool injected;

	total = af_run(ULONG_MAX, shift, &c, &injected);
	assert_false(injected);
	assert_int_equal(c.seen, 0);
	/* The scenario did swap: out under the limit, and back in. */
	assert_true(c.swapouts > 0);
	assert_true(c.swapins > 0);
	assert_true(total > 0);
	points = api_fail_each(af_run_nth, &each, MAX_NTH);
	/* Some failures were reported to the caller, not all absorbed. */
	assert_true(c.seen > 0);
	fprintf(stderr, "# shift %u: %lu allocation points (about %lu per "
		"run unarmed), %lu failures seen by a caller\n", shift, points,
		total, c.seen);
}

/* Write, read back and verify with the failure sticking from @n on. */
static bool af_run_sticky(unsigned long n, struct af_counts *c)
{
	struct upc_swap_config scfg = { .size = SWAP };
	struct upc_cache_config cfg = { .memory_limit = LIMIT };
	struct upc_anon *anon = NULL;
	struct api_env env = { 0 };
	bool injected;
	int err, swap;

	memset(af_model, 0, REGION);
	assert_int_equal(upc_cache_create(&cfg, &env.cache), 0);
	assert_int_equal(upc_shmem_create(env.cache, NULL, &env.file), 0);
	assert_int_equal(upc_fallocate(env.file, 0, 0, PINNED), 0);
	upc_fault_fail_from(n);
	swap = upc_swapon(env.cache, &scfg);
	if (swap)
		af_seen(c, swap);
	err = upc_anon_create(env.cache, REGION, &anon);
	if (!err)
		af_write(anon, c);
	else
		af_seen(c, err);
	injected = upc_fault_injected();
	upc_fault_fail_nth(0);

	if (anon) {
		unsigned char *buf = malloc(REGION);

		assert_non_null(buf);
		assert_int_equal(upc_anon_read(anon, buf, REGION, 0), REGION);
		assert_memory_equal(buf, af_model, REGION);
		free(buf);
		assert_int_equal(upc_check_anon(&anon->region), 0);
		if (!swap)
			assert_int_equal(upc_check_swap(env.cache->swap), 0);
		assert_int_equal(upc_anon_destroy(anon), 0);
	}
	af_close_file(&env);
	assert_int_equal(upc_swapoff(env.cache), swap ? -EINVAL : 0);
	api_fini(&env);
	c->runs++;
	return injected;
}

/* Fail every allocation from the n-th on, for n = 1, 2, 3 ... */
static void test_anon_fault_sticky(void **state)
{
	struct af_counts c = { 0 };
	unsigned long n;

	(void)state;
	for (n = 1; af_run_sticky(n, &c); n++)
		assert_true(n < MAX_NTH);
	/* Some runs failed early enough for a caller to see it. */
	assert_true(c.seen > 0);
	fprintf(stderr, "# sticky: %lu runs, %lu failures seen by a caller\n",
		c.runs, c.seen);
}

static void test_anon_fault_default_shift(void **state)
{
	(void)state;
	af_fail_each(0);
}

/* Small swap cache spaces: a tree per 64 slots, created as slots fill. */
static void test_anon_fault_small_spaces(void **state)
{
	(void)state;
	af_fail_each(SWAP_SPACE_SHIFT_MIN);
}

static int af_setup(void **state)
{
	(void)state;
	af_model = malloc(PINNED);	/* PINNED > REGION: also the file's */
	af_data = malloc(REGION);
	af_pinned = malloc(PINNED);
	if (!af_model || !af_data || !af_pinned)
		return -1;
	api_fill(af_data, REGION, 0, 2);
	memset(af_pinned, 0, PINNED);
	return 0;
}

static int af_teardown(void **state)
{
	(void)state;
	upc_fault_fail_nth(0);
	free(af_model);
	free(af_data);
	free(af_pinned);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_anon_fault_default_shift),
		cmocka_unit_test(test_anon_fault_small_spaces),
		cmocka_unit_test(test_anon_fault_sticky),
	};

	return cmocka_run_group_tests(tests, af_setup, af_teardown);
}
