// SPDX-License-Identifier: MIT
/*
 * tests/api/test_shmem_concurrency.c - readers and writers on one shmem
 * file (also built and run under ThreadSanitizer).
 *
 * Writers write aligned runs of whole 4 KiB pages, each page filled with
 * one repeated byte; a mutator punches whole pages, fallocates and
 * truncates to page multiples; readers read (and readv) aligned and
 * unaligned ranges, seek and take statistics.  Since every change is
 * made of whole pages of one byte value (zeros for a punch), a reader
 * that saw any page of the file mixing two values saw a write half
 * done: the per-file lock must make every write atomic for readers.
 * Readers also check that a multi-page write of one value is seen whole
 * when they read exactly its range and no other write can overlap it.
 *
 * A second test pins pages with upc_get_spans() while the mutator
 * punches and truncates them: the pinned bytes must stay readable and
 * unchanged (nobody writes in that test), and everything is freed once
 * the spans are put.
 *
 * UPC_STRESS_OPS scales the operations per thread (default 60000,
 * 8000 under ThreadSanitizer).
 */
#define _GNU_SOURCE
#include <linux/falloc.h>
#include <pthread.h>
#include <sys/uio.h>

#include "api_helpers.h"
#include "rand.h"

#define CC_PAGES	256		/* the file's first MiB */
#define CC_WRITERS	2
#define CC_READERS	2
#define CC_MAX_RUN	16		/* pages per write */
#define CC_ATOMIC_PAGE	(CC_PAGES)	/* owned by writer 0: its whole runs */
#define CC_ATOMIC_RUN	8

#ifdef UPC_SANITIZE_THREAD
#define CC_DEFAULT_OPS	8000
#else
#define CC_DEFAULT_OPS	60000
#endif

struct cc_shared {
	struct upc_file *file;
	struct upc_cache *cache;
	unsigned long ops;
	uint64_t seed;
	int writers_done;		/* atomic */
	unsigned long torn;		/* atomic: pages seen mixed */
	unsigned long bad_atomic;	/* atomic: a run seen half written */
	unsigned long errors;		/* atomic: calls that failed */
};

struct cc_thread {
	pthread_t tid;
	struct cc_shared *sh;
	unsigned int id;
};

static void cc_count(unsigned long *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

/* Does every page of @buf, read at @pos, hold a single byte value? */
static bool cc_pages_uniform(const unsigned char *buf, size_t len, int64_t pos)
{
	size_t i = 0;

	while (i < len) {
		int64_t at = pos + (int64_t)i;
		size_t end = i + API_PAGE - (size_t)(at % API_PAGE);

		if (end > len)
			end = len;
		for (size_t j = i + 1; j < end; j++)
			if (buf[j] != buf[i])
				return false;
		i = end;
	}
	return true;
}

static void *cc_writer(void *arg)
{
	struct cc_thread *t = arg;
	struct cc_shared *sh = t->sh;
	unsigned char *buf = malloc(CC_MAX_RUN * API_PAGE);
	struct upc_rand rnd;
	unsigned long i;

	upc_rand_seed(&rnd, sh->seed + t->id);
	for (i = 0; buf && i < sh->ops; i++) {
		unsigned char value = (unsigned char)((t->id << 6) |
						      (i % 63) | 1);
		int64_t pages = 1 + (int64_t)upc_rand_below(&rnd, CC_MAX_RUN);
		int64_t first = (int64_t)upc_rand_below(&rnd,
							CC_PAGES - pages + 1);
		ssize_t want = pages * API_PAGE;

		/* Writer 0 also owns a run of its own, written whole. */
		if (t->id == 0 && i % 4 == 0) {
			first = CC_ATOMIC_PAGE;
			pages = CC_ATOMIC_RUN;
			want = pages * API_PAGE;
		}
		memset(buf, value, (size_t)want);
		if (upc_write(sh->file, buf, (size_t)want,
			      first * API_PAGE) != want)
			cc_count(&sh->errors);
	}
	free(buf);
	__atomic_fetch_add(&sh->writers_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static bool cc_writers_running(struct cc_shared *sh)
{
	return __atomic_load_n(&sh->writers_done, __ATOMIC_ACQUIRE) < CC_WRITERS;
}

/* Punch, fallocate and truncate whole pages until the writers are done. */
static void *cc_mutator(void *arg)
{
	struct cc_thread *t = arg;
	struct cc_shared *sh = t->sh;
	struct upc_rand rnd;

	upc_rand_seed(&rnd, sh->seed + 100);
	while (cc_writers_running(sh)) {
		int64_t first = (int64_t)upc_rand_below(&rnd, CC_PAGES);
		int64_t pages = 1 + (int64_t)upc_rand_below(&rnd, 8);
		int err = 0;

		/* Never into writer 0's run: it must stay whole. */
		if (pages > CC_PAGES - first)
			pages = CC_PAGES - first;
		switch (upc_rand_below(&rnd, 4)) {
		case 0:
			err = upc_fallocate(sh->file, FALLOC_FL_PUNCH_HOLE |
					    FALLOC_FL_KEEP_SIZE,
					    first * API_PAGE, pages * API_PAGE);
			break;
		case 1:
			err = upc_fallocate(sh->file, FALLOC_FL_KEEP_SIZE,
					    first * API_PAGE, pages * API_PAGE);
			break;
		case 2:
			/* Below writer 0's run: it goes, or stays whole. */
			err = upc_truncate(sh->file, (CC_PAGES / 2 + first / 2) *
					   API_PAGE);
			break;
		default:
			sched_yield();
		}
		if (err)
			cc_count(&sh->errors);
	}
	return NULL;
}

/* Read writer 0's run exactly: all of it holds one value. */
static void cc_check_atomic_run(struct cc_shared *sh, unsigned char *buf)
{
	size_t len = CC_ATOMIC_RUN * API_PAGE;
	ssize_t got = upc_read(sh->file, buf, len, CC_ATOMIC_PAGE * API_PAGE);

	if (got < 0)
		cc_count(&sh->errors);
	else if (got == (ssize_t)len) {
		for (size_t i = 1; i < len; i++) {
			if (buf[i] != buf[0]) {
				cc_count(&sh->bad_atomic);
				break;
			}
		}
	}
}

static void cc_read_once(struct cc_shared *sh, struct upc_rand *rnd,
			 unsigned char *buf)
{
	int64_t pos = (int64_t)upc_rand_below(rnd, (CC_PAGES + CC_ATOMIC_RUN) *
					      API_PAGE);
	size_t len = 1 + (size_t)upc_rand_below(rnd, 4 * CC_MAX_RUN * API_PAGE);
	struct iovec iov[3];
	ssize_t got;

	if (upc_rand_chance(rnd, 1, 2))
		pos &= ~(int64_t)(API_PAGE - 1);
	if (upc_rand_chance(rnd, 1, 4)) {
		size_t a = len / 3, b = len / 2;

		iov[0] = (struct iovec){ buf, a };
		iov[1] = (struct iovec){ buf + a, b - a };
		iov[2] = (struct iovec){ buf + b, len - b };
		got = upc_readv(sh->file, iov, 3, pos);
	} else {
		got = upc_read(sh->file, buf, len, pos);
	}
	if (got < 0)
		cc_count(&sh->errors);
	else if (!cc_pages_uniform(buf, (size_t)got, pos))
		cc_count(&sh->torn);
}

static void *cc_reader(void *arg)
{
	struct cc_thread *t = arg;
	struct cc_shared *sh = t->sh;
	unsigned char *buf = malloc(4 * CC_MAX_RUN * API_PAGE);
	struct upc_cache_stats st;
	struct upc_rand rnd;
	unsigned long i = 0;

	upc_rand_seed(&rnd, sh->seed + 50 + t->id);
	while (buf && (cc_writers_running(sh) || i < sh->ops / 4)) {
		switch (i++ % 8) {
		case 0:
			cc_check_atomic_run(sh, buf);
			break;
		case 1:
			if (upc_seek_data(sh->file, 0) < -ENXIO ||
			    upc_seek_hole(sh->file, 0) < -ENXIO ||
			    upc_size(sh->file) < 0 ||
			    upc_cache_stats(sh->cache, &st))
				cc_count(&sh->errors);
			break;
		default:
			cc_read_once(sh, &rnd, buf);
		}
	}
	free(buf);
	return NULL;
}

static void cc_run(enum upc_huge huge)
{
	struct cc_thread writers[CC_WRITERS], readers[CC_READERS], mutator;
	struct cc_shared sh = { 0 };
	struct api_env env;
	unsigned int i;

	sh.file = api_init(&env, 64UL << 20, huge, 0);
	sh.cache = env.cache;
	sh.ops = upc_test_env_ulong("UPC_STRESS_OPS", CC_DEFAULT_OPS);
	sh.seed = upc_test_seed();
	mutator = (struct cc_thread){ .sh = &sh, .id = 0 };
	assert_int_equal(pthread_create(&mutator.tid, NULL, cc_mutator,
					&mutator), 0);
	for (i = 0; i < CC_READERS; i++) {
		readers[i] = (struct cc_thread){ .sh = &sh, .id = i };
		assert_int_equal(pthread_create(&readers[i].tid, NULL, cc_reader,
						&readers[i]), 0);
	}
	for (i = 0; i < CC_WRITERS; i++) {
		writers[i] = (struct cc_thread){ .sh = &sh, .id = i };
		assert_int_equal(pthread_create(&writers[i].tid, NULL, cc_writer,
						&writers[i]), 0);
	}
	for (i = 0; i < CC_WRITERS; i++)
		assert_int_equal(pthread_join(writers[i].tid, NULL), 0);
	for (i = 0; i < CC_READERS; i++)
		assert_int_equal(pthread_join(readers[i].tid, NULL), 0);
	assert_int_equal(pthread_join(mutator.tid, NULL), 0);

	assert_int_equal(sh.errors, 0);
	assert_int_equal(sh.torn, 0);
	assert_int_equal(sh.bad_atomic, 0);
	assert_file_ok(sh.file);
	api_fini(&env);
}

static void test_shmem_concurrency_small(void **state)
{
	(void)state;
	cc_run(UPC_HUGE_NEVER);
}

static void test_shmem_concurrency_huge(void **state)
{
	(void)state;
	cc_run(UPC_HUGE_ALWAYS);
}

/* ---- spans against punch and truncate ------------------------------------ */

struct span_shared {
	struct upc_file *file;
	int done;		/* atomic */
	unsigned long bad;	/* atomic */
};

/* Pin a range, check each page still holds its own value, put it. */
static void *span_reader(void *arg)
{
	struct span_shared *sh = arg;
	struct upc_span spans[8];
	unsigned long i;

	for (i = 0; !__atomic_load_n(&sh->done, __ATOMIC_ACQUIRE); i++) {
		int64_t pos = (int64_t)(i * 7 % CC_PAGES) * API_PAGE;
		int nr = upc_get_spans(sh->file, pos, 8 * API_PAGE, spans, 8);

		for (int s = 0; s < nr; s++) {
			const unsigned char *p = spans[s].data;
			unsigned char want = (unsigned char)(spans[s].offset /
							     API_PAGE + 1);

			if (p && (p[0] != want || p[spans[s].len - 1] != want))
				cc_count(&sh->bad);
		}
		if (nr < 0)
			cc_count(&sh->bad);
		else
			upc_put_spans(spans, (unsigned int)nr);
	}
	return NULL;
}

static void test_shmem_concurrency_spans(void **state)
{
	unsigned long rounds = upc_test_env_ulong("UPC_STRESS_OPS",
						  CC_DEFAULT_OPS) / 20;
	unsigned char *pages = malloc(CC_PAGES * API_PAGE);
	struct span_shared sh = { 0 };
	struct api_env env;
	pthread_t tid;

	(void)state;
	assert_non_null(pages);
	for (int64_t p = 0; p < CC_PAGES; p++)
		memset(pages + p * API_PAGE, (int)(p + 1), API_PAGE);
	sh.file = api_init(&env, 64UL << 20, UPC_HUGE_NEVER, 0);
	assert_int_equal(pthread_create(&tid, NULL, span_reader, &sh), 0);
	for (unsigned long r = 0; r < rounds; r++) {
		/* Refill: new folios, which no span can be reading yet. */
		assert_int_equal(upc_truncate(sh.file, 0), 0);
		assert_int_equal(upc_write(sh.file, pages, CC_PAGES * API_PAGE,
					   0), CC_PAGES * API_PAGE);
		assert_int_equal(upc_fallocate(sh.file, FALLOC_FL_PUNCH_HOLE |
					       FALLOC_FL_KEEP_SIZE,
					       (int64_t)(r % CC_PAGES) * API_PAGE,
					       16 * API_PAGE), 0);
	}
	__atomic_store_n(&sh.done, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(tid, NULL), 0);
	assert_int_equal(sh.bad, 0);
	free(pages);
	api_fini(&env);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shmem_concurrency_small),
		cmocka_unit_test(test_shmem_concurrency_huge),
		cmocka_unit_test(test_shmem_concurrency_spans),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
