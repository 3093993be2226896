// SPDX-License-Identifier: MIT
/*
 * tests/api/test_shmem_swap_stress.c - threads that each own a part of
 * one shmem file swapping to a file, checked byte for byte (also built
 * and run under ThreadSanitizer).
 *
 * test_shmem_concurrency.c checks what readers of shared pages can: that
 * each page holds one whole write.  A page read back from a stale copy
 * in swap holds an older whole write, and passes there.  Here the file
 * is cut into stretches of SS_STRETCH pages dealt out to the threads in
 * turn, so that reclaim's batches mix every thread's pages; each thread
 * touches only its own stretches and keeps an exact copy of them, so a
 * byte stale, lost or misplaced anywhere fails.
 *
 * Each thread, in random order: writes (whole pages, parts of pages, and
 * writev across both), reads checked against its copy, punches (whole
 * and partial pages), fallocate over what it has just written (which
 * swaps it in and leaves it as it is), spans checked byte for byte, and
 * reads of its stretches in order (swap readahead).  The cache is 2 MiB,
 * the file four times that and the swap file eight times the file, so
 * that swap is never half full: pages read back keep their slots
 * (PG_swapslot) until written, punched or truncated, and reclaim sends
 * them back without a write.  Nothing a thread does can fail for lack
 * of memory (it holds at most a stretch at a time, and fallocate makes
 * no page that cannot go to swap), so every call must succeed in full.
 * Afterwards the whole file is checked, then truncated down and up again
 * a few times (the pages cut in part keep nothing in swap), the checkers
 * run, and closing the file must give every slot back.  The run must
 * have kept slots at some point (swap_cached), or it tested nothing new.
 *
 * UPC_STRESS_OPS sets the operations per thread (default 50000, 3000
 * under ThreadSanitizer); UPC_SEED replays a run.
 */
#define _GNU_SOURCE
#include <linux/falloc.h>
#include <pthread.h>
#include <sys/uio.h>
#include <unistd.h>

#include "api_helpers.h"
#include "rand.h"

#define SS_LIMIT	(2 * API_MIB)
#define SS_FILE		(4 * (int64_t)SS_LIMIT)
#define SS_SWAP		(8 * (uint64_t)SS_FILE)
#define SS_THREADS	3
#define SS_STRETCH	16		/* pages */
#define SS_STRETCH_B	(SS_STRETCH * API_PAGE)
#define SS_STRETCHES	(SS_FILE / SS_STRETCH_B)
#define SS_SPANS	(SS_STRETCH + 1)

#ifdef UPC_SANITIZE_THREAD
#define SS_DEFAULT_OPS	3000
#else
#define SS_DEFAULT_OPS	50000
#endif

struct ss_shared {
	struct upc_file *file;
	struct upc_cache *cache;
	unsigned char *model;	/* the file's bytes; a thread's own parts */
	unsigned long ops;
	uint64_t seed;
	uint64_t most_kept;	/* atomic: the largest swap_cached seen */
	unsigned long failures;	/* atomic */
};

struct ss_thread {
	pthread_t tid;
	struct ss_shared *sh;
	unsigned int id;
	struct upc_rand rnd;
	unsigned char *buf;
};

/* Report a failure once per thread and stop it (the main thread asserts). */
static bool ss_fail(struct ss_thread *t, const char *what, int64_t pos,
		    int64_t got, int64_t want)
{
	fprintf(stderr, "# thread %u: %s at %" PRId64 ": got %" PRId64
		", expected %" PRId64 "\n", t->id, what, pos, got, want);
	__atomic_fetch_add(&t->sh->failures, 1, __ATOMIC_RELAXED);
	return false;
}

/* A random stretch of thread @t's: its first byte. */
static int64_t ss_own_stretch(struct ss_thread *t)
{
	uint64_t n = SS_STRETCHES / SS_THREADS;

	return (int64_t)(upc_rand_below(&t->rnd, n) * SS_THREADS + t->id) *
	       SS_STRETCH_B;
}

/* A range inside one of @t's stretches; whole pages if @pages. */
static void ss_range(struct ss_thread *t, bool pages, int64_t *pos,
		     size_t *len)
{
	int64_t base = ss_own_stretch(t);

	if (pages) {
		uint64_t first = upc_rand_below(&t->rnd, SS_STRETCH);
		uint64_t n = 1 + upc_rand_below(&t->rnd, SS_STRETCH - first);

		*pos = base + (int64_t)first * API_PAGE;
		*len = (size_t)n * API_PAGE;
		return;
	}
	*pos = base + (int64_t)upc_rand_below(&t->rnd, SS_STRETCH_B - 1);
	*len = 1 + (size_t)upc_rand_below(&t->rnd,
					  (uint64_t)(base + SS_STRETCH_B - *pos));
}

/* The file over [@pos, +@len) reads as the model. */
static bool ss_check_read(struct ss_thread *t, int64_t pos, size_t len)
{
	const unsigned char *want = t->sh->model + pos;
	ssize_t got = upc_read(t->sh->file, t->buf, len, pos);
	size_t i;

	if (got != (ssize_t)len)
		return ss_fail(t, "read", pos, got, (int64_t)len);
	if (!memcmp(t->buf, want, len))
		return true;
	for (i = 0; t->buf[i] == want[i]; i++)
		;
	return ss_fail(t, "byte", pos + (int64_t)i, t->buf[i], want[i]);
}

/* Write random bytes over [@pos, +@len), in two iovecs if @vec. */
static bool ss_write(struct ss_thread *t, int64_t pos, size_t len, bool vec)
{
	unsigned char *src = t->sh->model + pos;
	ssize_t got;
	size_t i;

	for (i = 0; i < len; i++)
		t->buf[i] = (unsigned char)upc_rand_next(&t->rnd);
	if (vec) {
		size_t cut = (size_t)upc_rand_below(&t->rnd, len + 1);
		struct iovec iov[2] = {
			{ t->buf, cut }, { t->buf + cut, len - cut },
		};

		got = upc_writev(t->sh->file, iov, 2, pos);
	} else {
		got = upc_write(t->sh->file, t->buf, len, pos);
	}
	if (got != (ssize_t)len)
		return ss_fail(t, "write", pos, got, (int64_t)len);
	memcpy(src, t->buf, len);
	return true;
}

static bool ss_punch(struct ss_thread *t, int64_t pos, size_t len)
{
	int ret = upc_fallocate(t->sh->file, FALLOC_FL_PUNCH_HOLE |
				FALLOC_FL_KEEP_SIZE, pos, (int64_t)len);

	if (ret)
		return ss_fail(t, "punch", pos, ret, 0);
	memset(t->sh->model + pos, 0, len);
	return true;
}

/* Spans over [@pos, +@len): each piece reads as the model. */
static bool ss_check_spans(struct ss_thread *t, int64_t pos, size_t len)
{
	struct upc_span spans[SS_SPANS];
	int64_t at = pos;
	bool ok = true;
	int nr, i;

	nr = upc_get_spans(t->sh->file, pos, len, spans, SS_SPANS);
	if (nr <= 0)
		return ss_fail(t, "spans", pos, nr, 1);
	for (i = 0; i < nr && ok; i++) {
		const unsigned char *want = t->sh->model + spans[i].offset;
		size_t k;

		if (spans[i].offset != at)
			ok = ss_fail(t, "span offset", pos, spans[i].offset, at);
		for (k = 0; ok && k < spans[i].len; k++) {
			unsigned char b = spans[i].data ?
				((const unsigned char *)spans[i].data)[k] : 0;

			if (b != want[k])
				ok = ss_fail(t, "span byte",
					     spans[i].offset + (int64_t)k, b,
					     want[k]);
		}
		at += (int64_t)spans[i].len;
	}
	upc_put_spans(spans, (unsigned int)nr);
	if (ok && at != pos + (int64_t)len)
		ok = ss_fail(t, "spans end", pos, at, pos + (int64_t)len);
	return ok;
}

/* Read every stretch of @t's in order, a page at a time. */
static bool ss_read_in_order(struct ss_thread *t)
{
	int64_t s, p;

	for (s = t->id; s < SS_STRETCHES; s += SS_THREADS)
		for (p = 0; p < SS_STRETCH; p++)
			if (!ss_check_read(t, s * SS_STRETCH_B + p * API_PAGE,
					   API_PAGE))
				return false;
	return true;
}

/* Note the largest swap_cached seen: the run must have kept slots. */
static void ss_sample_kept(struct ss_shared *sh)
{
	struct upc_cache_stats st;
	uint64_t seen;

	if (upc_cache_stats(sh->cache, &st))
		return;
	seen = __atomic_load_n(&sh->most_kept, __ATOMIC_RELAXED);
	while (st.swap_cached > seen &&
	       !__atomic_compare_exchange_n(&sh->most_kept, &seen,
					    st.swap_cached, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

static bool ss_step(struct ss_thread *t)
{
	unsigned int op = (unsigned int)upc_rand_below(&t->rnd, 16);
	int64_t pos;
	size_t len;

	ss_range(t, op & 1, &pos, &len);
	switch (op >> 1) {
	case 0:
	case 1:
		return ss_write(t, pos, len, false);
	case 2:
		return ss_write(t, pos, len, true);
	case 3:
	case 4:
		return ss_check_read(t, pos, len);
	case 5:
		return ss_punch(t, pos, len);
	case 6:
		if (!ss_write(t, pos, len, false))
			return false;
		if (upc_fallocate(t->sh->file, 0, pos, (int64_t)len))
			return ss_fail(t, "fallocate", pos, -1, 0);
		return ss_check_read(t, pos, len);
	default:
		if (upc_rand_chance(&t->rnd, 1, 64))
			return ss_read_in_order(t);
		return ss_check_spans(t, pos, len);
	}
}

static void *ss_worker(void *arg)
{
	struct ss_thread *t = arg;
	unsigned long i;

	for (i = 0; i < t->sh->ops; i++) {
		if (!ss_step(t))
			break;
		if (!t->id && !(i & 63))
			ss_sample_kept(t->sh);
	}
	return NULL;
}

/* The whole file reads as the model, and the checkers pass. */
static void ss_check_all(struct ss_shared *sh, int64_t size)
{
	unsigned char *buf = malloc((size_t)size + 1);
	int64_t i;

	assert_non_null(buf);
	assert_int_equal(upc_size(sh->file), size);
	assert_int_equal(upc_read(sh->file, buf, (size_t)size + 1, 0), size);
	for (i = 0; i < size; i++)
		if (buf[i] != sh->model[i])
			fail_msg("byte %" PRId64 ": %#x, expected %#x", i,
				 buf[i], sh->model[i]);
	free(buf);
	assert_file_ok(sh->file);
	assert_int_equal(upc_check_swap(sh->cache->swap), 0);
}

static void test_shmem_swap_stress_owners(void **state)
{
	char swap_path[] = "/tmp/upc_test_shmem_swap_stress_XXXXXX";
	struct upc_swap_config scfg = { .size = SS_SWAP };
	struct ss_thread threads[SS_THREADS];
	struct ss_shared sh = { 0 };
	struct upc_cache_stats st;
	struct api_env env;
	int64_t size = SS_FILE;
	unsigned int i;
	int fd;

	(void)state;
	sh.file = api_init(&env, SS_LIMIT, UPC_HUGE_NEVER, 0);
	sh.cache = env.cache;
	sh.model = calloc(1, (size_t)SS_FILE);
	assert_non_null(sh.model);
	sh.ops = upc_test_env_ulong("UPC_STRESS_OPS", SS_DEFAULT_OPS);
	sh.seed = upc_test_seed();
	fd = mkstemp(swap_path);
	assert_true(fd >= 0);
	close(fd);
	scfg.path = swap_path;
	assert_int_equal(upc_swapon(env.cache, &scfg), 0);
	assert_int_equal(unlink(swap_path), 0);
	assert_int_equal(upc_truncate(sh.file, SS_FILE), 0);

	for (i = 0; i < SS_THREADS; i++) {
		threads[i] = (struct ss_thread){ .sh = &sh, .id = i };
		upc_rand_seed(&threads[i].rnd, sh.seed + i);
		threads[i].buf = malloc(SS_STRETCH_B);
		assert_non_null(threads[i].buf);
		assert_int_equal(pthread_create(&threads[i].tid, NULL,
						ss_worker, &threads[i]), 0);
	}
	for (i = 0; i < SS_THREADS; i++) {
		assert_int_equal(pthread_join(threads[i].tid, NULL), 0);
		free(threads[i].buf);
	}
	assert_int_equal(sh.failures, 0);
	ss_check_all(&sh, size);
	assert_int_equal(upc_cache_stats(env.cache, &st), 0);
	fprintf(stderr, "# %lu operations a thread: %" PRIu64 " pages out, %"
		PRIu64 " in, at most %" PRIu64 " KiB kept\n", sh.ops,
		st.swapouts, st.swapins, sh.most_kept >> 10);
	assert_true(st.swapouts > 0 && st.swapins > 0);
	assert_true(sh.most_kept > 0);

	/* Down to inside a page and up again: what was cut reads as zeros. */
	for (i = 0; i < 4; i++) {
		int64_t cut = SS_FILE / 2 + (int64_t)i * 12345;

		assert_int_equal(upc_truncate(sh.file, cut), 0);
		memset(sh.model + cut, 0, (size_t)(SS_FILE - cut));
		ss_check_all(&sh, cut);
		assert_int_equal(upc_truncate(sh.file, SS_FILE), 0);
		ss_check_all(&sh, SS_FILE);
	}
	assert_int_equal(upc_close(env.file), 0);
	env.file = NULL;
	assert_int_equal(upc_cache_stats(env.cache, &st), 0);
	assert_int_equal(st.swap_used, 0);
	assert_int_equal(st.swap_cached, 0);
	api_fini(&env);
	free(sh.model);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shmem_swap_stress_owners),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
