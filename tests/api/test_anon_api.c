// SPDX-License-Identifier: MIT
/*
 * tests/api/test_anon_api.c - swap devices and anonymous regions behind
 * the upc_ API (upc_swapon(), upc_swapoff(), upc_anon_*() and the swap
 * figures of upc_cache_stats()): what each function does and every error
 * its contract documents.
 *
 * Each test builds a cache (no file: struct api_env with file NULL, so
 * api_fini() checks only that no memory stayed charged and that the
 * cache can be destroyed), gives it a swap device in memory or in a
 * temporary file, and writes the pattern of api_helpers.h into regions,
 * reading it back through upc_anon_read().  Regions are checked with
 * upc_check_anon() (api/internal.h exposes the region behind the handle)
 * and destroyed before api_fini(), after which the cache must report no
 * swap in use.  The smallest cache (2 MiB, 512 pages) makes a region of
 * a few MiB swap.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/internal.h"

#include "api_helpers.h"
#include "fault.h"

#define LIMIT		(2 * API_MIB)

/* A temporary file's name, for swap files; removed by aa_unlink(). */
struct aa_path {
	char name[64];
};

static void aa_tmpname(struct aa_path *p)
{
	int fd;

	snprintf(p->name, sizeof(p->name), "/tmp/upc_test_anon_api_XXXXXX");
	fd = mkstemp(p->name);
	assert_true(fd >= 0);
	close(fd);
}

static void aa_unlink(struct aa_path *p)
{
	assert_int_equal(unlink(p->name), 0);
}

/* aa_init() - A cache of @limit bytes and no file. */
static void aa_init(struct api_env *env, size_t limit)
{
	struct upc_cache_config cfg = { .memory_limit = limit };

	memset(env, 0, sizeof(*env));
	assert_int_equal(upc_cache_create(&cfg, &env->cache), 0);
}

/* aa_swapon() - Give @env's cache @size bytes of swap at @path. */
static void aa_swapon(struct api_env *env, const char *path, uint64_t size,
		      unsigned int shift)
{
	struct upc_swap_config cfg = {
		.path = path, .size = size, .space_shift = shift,
	};

	assert_int_equal(upc_swapon(env->cache, &cfg), 0);
}

static struct upc_anon *aa_create(struct api_env *env, uint64_t size)
{
	struct upc_anon *anon = NULL;

	assert_int_equal(upc_anon_create(env->cache, size, &anon), 0);
	assert_non_null(anon);
	return anon;
}

#define assert_anon_ok(anon) \
	assert_int_equal(upc_check_anon(&(anon)->region), 0)

/* aa_destroy() - Check and destroy a region. */
static void aa_destroy(struct upc_anon *anon)
{
	assert_anon_ok(anon);
	assert_int_equal(upc_anon_destroy(anon), 0);
}

/* aa_fini() - No region, no slot in use; destroy the cache. */
static void aa_fini(struct api_env *env)
{
	struct upc_cache_stats st = api_stats(env);

	assert_int_equal(st.anon_regions, 0);
	assert_int_equal(st.swap_used, 0);
	assert_int_equal(st.pages_active + st.pages_inactive, 0);
	/* Freed slots took their shadows, and the nodes that held them. */
	assert_int_equal(st.shadow_nodes, 0);
	api_fini(env);
}

/* Write pattern @seed over [@pos, @pos + @len); all of it must go in. */
static void aa_write(struct upc_anon *anon, int64_t pos, size_t len,
		     unsigned int seed)
{
	char *buf = malloc(len ? len : 1);

	assert_non_null(buf);
	api_fill(buf, len, pos, seed);
	assert_int_equal(upc_anon_write(anon, buf, len, pos), (ssize_t)len);
	free(buf);
}

/* [@pos, @pos + @len) reads as pattern @seed (zeros with @seed 0). */
static void aa_expect(struct upc_anon *anon, int64_t pos, size_t len,
		      unsigned int seed)
{
	unsigned char *buf = malloc(len ? len : 1);

	assert_non_null(buf);
	memset(buf, 0xee, len);
	assert_int_equal(upc_anon_read(anon, buf, len, pos), (ssize_t)len);
	api_check_pattern(buf, pos, len, seed);
	free(buf);
}

/* ---- upc_swapon() ---------------------------------------------------------- */

static void test_swapon_errors(void **state)
{
	static const unsigned int bad_shifts[] = { 1, 5, 31, UINT_MAX };
	struct upc_swap_config cfg = { .size = 2 * API_MIB };
	struct upc_cache_stats st;
	struct api_env env;
	unsigned int i;

	(void)state;
	aa_init(&env, LIMIT);
	assert_int_equal(upc_swapon(NULL, &cfg), -EBADF);
	assert_int_equal(upc_swapon(env.cache, NULL), -EINVAL);
	cfg.size = 0;
	assert_int_equal(upc_swapon(env.cache, &cfg), -EINVAL);
	cfg.size = 3 * API_MIB;
	assert_int_equal(upc_swapon(env.cache, &cfg), -EINVAL);
	cfg.size = 2 * API_MIB + API_PAGE;
	assert_int_equal(upc_swapon(env.cache, &cfg), -EINVAL);
	cfg.size = API_PAGE;
	assert_int_equal(upc_swapon(env.cache, &cfg), -EINVAL);
	/* A multiple of 2 MiB, but more slots than an entry can name. */
	cfg.size = ((uint64_t)API_PAGE << SWP_OFFSET_BITS) + 2 * API_MIB;
	assert_int_equal(upc_swapon(env.cache, &cfg), -EINVAL);
	cfg.size = 2 * API_MIB;
	cfg.flags = 1;
	assert_int_equal(upc_swapon(env.cache, &cfg), -EINVAL);
	cfg.flags = 0;
	for (i = 0; i < sizeof(bad_shifts) / sizeof(bad_shifts[0]); i++) {
		cfg.space_shift = bad_shifts[i];
		assert_int_equal(upc_swapon(env.cache, &cfg), -EINVAL);
	}
	/* Opening the path fails: its errno, and no device. */
	cfg.space_shift = 0;
	cfg.path = "/nonexistent-upcache-dir/swap";
	assert_int_equal(upc_swapon(env.cache, &cfg), -ENOENT);
	cfg.path = "/";
	assert_int_equal(upc_swapon(env.cache, &cfg), -EISDIR);
	/* Not a regular file: refused, not truncated or written. */
	cfg.path = "/dev/null";
	assert_int_equal(upc_swapon(env.cache, &cfg), -EINVAL);
	assert_int_equal(upc_swapoff(env.cache), -EINVAL);
	/*
	 * Out of memory making the device.  A file open meanwhile is left
	 * as it was: no device, so its readers need not take the evict
	 * lock (a failed swapon left it evictable before).
	 */
	assert_int_equal(upc_shmem_create(env.cache, NULL, &env.file), 0);
	cfg.path = NULL;
	upc_fault_fail_nth(1);
	assert_int_equal(upc_swapon(env.cache, &cfg), -ENOMEM);
	assert_true(upc_fault_injected());
	upc_fault_fail_nth(0);
	assert_false(env.file->shmem.evictable);
	assert_int_equal(upc_swapoff(env.cache), -EINVAL);
	st = api_stats(&env);
	assert_int_equal(st.swap_total, 0);

	/* Both ends of the shift range work; a second device is -EBUSY. */
	cfg.space_shift = 6;
	assert_int_equal(upc_swapon(env.cache, &cfg), 0);
	assert_true(env.file->shmem.evictable);
	assert_int_equal(upc_swapon(env.cache, &cfg), -EBUSY);
	assert_true(env.file->shmem.evictable);
	assert_int_equal(upc_close(env.file), 0);
	env.file = NULL;
	assert_int_equal(upc_swapoff(env.cache), 0);
	cfg.space_shift = 30;
	cfg.size = 4 * API_MIB;
	assert_int_equal(upc_swapon(env.cache, &cfg), 0);
	st = api_stats(&env);
	assert_int_equal(st.swap_total, 4 * API_MIB);
	assert_int_equal(st.swap_used, 0);
	assert_int_equal(upc_swapon(env.cache, &cfg), -EBUSY);
	/* The failed second call changed nothing. */
	assert_int_equal(api_stats(&env).swap_total, 4 * API_MIB);
	aa_fini(&env);	/* destroying the cache swaps off too */
}

/*
 * A swap file is created at its size and kept after swapoff; an existing
 * one is grown when too short and never shrunk.
 */
static void test_swapon_file(void **state)
{
	struct aa_path path;
	struct upc_anon *anon;
	struct api_env env;
	struct stat st;

	(void)state;
	aa_tmpname(&path);
	assert_int_equal(unlink(path.name), 0);
	aa_init(&env, LIMIT);
	aa_swapon(&env, path.name, 6 * API_MIB, 0);
	assert_int_equal(stat(path.name, &st), 0);
	assert_int_equal(st.st_size, 6 * API_MIB);
	anon = aa_create(&env, 3 * LIMIT);
	aa_write(anon, 0, 3 * LIMIT, 1);
	assert_true(api_stats(&env).swap_used > 0);
	aa_expect(anon, 0, 3 * LIMIT, 1);
	aa_destroy(anon);
	assert_int_equal(upc_swapoff(env.cache), 0);
	assert_int_equal(stat(path.name, &st), 0);
	assert_int_equal(st.st_size, 6 * API_MIB);
	/* An existing longer file is reused as it is... */
	aa_swapon(&env, path.name, 4 * API_MIB, 0);
	assert_int_equal(stat(path.name, &st), 0);
	assert_int_equal(st.st_size, 6 * API_MIB);
	assert_int_equal(upc_swapoff(env.cache), 0);
	/* ...and a shorter one grown. */
	aa_swapon(&env, path.name, 8 * API_MIB, 0);
	assert_int_equal(stat(path.name, &st), 0);
	assert_int_equal(st.st_size, 8 * API_MIB);
	aa_fini(&env);
	aa_unlink(&path);
}

/*
 * upc_swapon() with files limited to @bytes (RLIMIT_FSIZE, SIGXFSZ
 * ignored, both restored after): it must return @expect.
 */
static void fsize_limit_swapon(struct api_env *env,
			       const struct upc_swap_config *cfg, rlim_t bytes,
			       int expect)
{
	void (*old)(int) = signal(SIGXFSZ, SIG_IGN);
	struct rlimit rl, saved;

	assert_true(old != SIG_ERR);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &saved), 0);
	rl = saved;
	rl.rlim_cur = bytes;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &rl), 0);
	assert_int_equal(upc_swapon(env->cache, cfg), expect);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &saved), 0);
	signal(SIGXFSZ, old);
}

/*
 * A failed upc_swapon() removes the swap file it created, and leaves
 * one that was there alone.
 */
static void test_swapon_failure_removes_new_file(void **state)
{
	struct upc_swap_config cfg = { .size = 2 * API_MIB };
	struct aa_path path;
	struct api_env env;
	struct stat st;

	(void)state;
	aa_tmpname(&path);
	assert_int_equal(unlink(path.name), 0);
	cfg.path = path.name;
	aa_init(&env, LIMIT);
	upc_fault_fail_nth(1);
	assert_int_equal(upc_swapon(env.cache, &cfg), -ENOMEM);
	upc_fault_fail_nth(0);
	assert_int_not_equal(stat(path.name, &st), 0);
	/* Growing the new file fails (RLIMIT_FSIZE): removed too. */
	fsize_limit_swapon(&env, &cfg, API_MIB, -EFBIG);
	assert_int_not_equal(stat(path.name, &st), 0);
	/* An existing file stays, even when the call fails. */
	aa_tmpname(&path);
	cfg.path = path.name;
	upc_fault_fail_nth(1);
	assert_int_equal(upc_swapon(env.cache, &cfg), -ENOMEM);
	upc_fault_fail_nth(0);
	assert_int_equal(stat(path.name, &st), 0);
	assert_int_equal(upc_swapon(env.cache, &cfg), 0);
	aa_fini(&env);
	aa_unlink(&path);
}

/* The process holds 32 devices at most. */
static void test_swapon_enospc(void **state)
{
	struct upc_swap_config cfg = { .size = 2 * API_MIB };
	struct api_env envs[MAX_SWAPFILES + 1];
	unsigned int i;

	(void)state;
	for (i = 0; i <= MAX_SWAPFILES; i++)
		aa_init(&envs[i], LIMIT);
	for (i = 0; i < MAX_SWAPFILES; i++)
		assert_int_equal(upc_swapon(envs[i].cache, &cfg), 0);
	assert_int_equal(upc_swapon(envs[MAX_SWAPFILES].cache, &cfg), -ENOSPC);
	assert_int_equal(upc_swapoff(envs[MAX_SWAPFILES].cache), -EINVAL);
	assert_int_equal(upc_swapoff(envs[0].cache), 0);
	assert_int_equal(upc_swapon(envs[MAX_SWAPFILES].cache, &cfg), 0);
	for (i = 0; i <= MAX_SWAPFILES; i++)
		aa_fini(&envs[i]);
}

/* ---- upc_swapoff() --------------------------------------------------------- */

static void test_swapoff(void **state)
{
	struct upc_cache_stats st, st2;
	struct upc_anon *anon;
	struct api_env env;

	(void)state;
	aa_init(&env, LIMIT);
	assert_int_equal(upc_swapoff(NULL), -EBADF);
	assert_int_equal(upc_swapoff(env.cache), -EINVAL);
	aa_swapon(&env, NULL, 8 * API_MIB, 0);
	/* Any region blocks it, even one with nothing swapped out. */
	anon = aa_create(&env, API_PAGE);
	assert_int_equal(upc_swapoff(env.cache), -EBUSY);
	aa_destroy(anon);
	anon = aa_create(&env, 3 * LIMIT);
	aa_write(anon, 0, 3 * LIMIT, 2);
	assert_int_equal(upc_swapoff(env.cache), -EBUSY);
	/* Nothing changed: the device and the data are there. */
	assert_true(api_stats(&env).swap_used > 0);
	aa_expect(anon, 0, 3 * LIMIT, 2);
	aa_destroy(anon);
	st = api_stats(&env);
	assert_int_equal(st.swap_used, 0);
	assert_true(st.swapins > 0 && st.swapouts > 0);
	assert_int_equal(upc_swapoff(env.cache), 0);
	assert_int_equal(api_stats(&env).swap_total, 0);
	assert_int_equal(upc_swapoff(env.cache), -EINVAL);
	/* The swap figures count from the cache's creation, across devices. */
	assert_int_equal(api_stats(&env).swapins, st.swapins);
	assert_int_equal(api_stats(&env).swapouts, st.swapouts);
	/* A later device works as the first did, and its swap-ins add up. */
	aa_swapon(&env, NULL, 4 * API_MIB, 0);
	assert_int_equal(api_stats(&env).swap_total, 4 * API_MIB);
	assert_int_equal(api_stats(&env).swapins, st.swapins);
	anon = aa_create(&env, 2 * LIMIT);
	aa_write(anon, 0, 2 * LIMIT, 3);
	aa_expect(anon, 0, 2 * LIMIT, 3);
	aa_destroy(anon);
	st2 = api_stats(&env);
	assert_true(st2.swapins > st.swapins);
	assert_int_equal(upc_swapoff(env.cache), 0);
	assert_int_equal(api_stats(&env).swapins, st2.swapins);
	aa_fini(&env);
}

/* ---- upc_anon_create() and upc_anon_destroy() ------------------------------ */

static void test_anon_create_errors(void **state)
{
	struct upc_anon *anon = NULL;
	struct api_env env;

	(void)state;
	aa_init(&env, LIMIT);
	assert_int_equal(upc_anon_create(NULL, API_PAGE, &anon), -EBADF);
	assert_int_equal(upc_anon_create(env.cache, API_PAGE, NULL), -EINVAL);
	assert_int_equal(upc_anon_create(env.cache, 0, &anon), -EINVAL);
	assert_int_equal(upc_anon_create(env.cache,
					 (uint64_t)UPC_MAX_FILE_SIZE + 1, &anon),
			 -EINVAL);
	assert_int_equal(upc_anon_create(env.cache, UINT64_MAX, &anon), -EINVAL);
	upc_fault_fail_nth(1);
	assert_int_equal(upc_anon_create(env.cache, API_PAGE, &anon), -ENOMEM);
	upc_fault_fail_nth(0);
	assert_null(anon);
	assert_int_equal(api_stats(&env).anon_regions, 0);
	assert_int_equal(upc_anon_destroy(NULL), -EBADF);
	aa_fini(&env);
}

/* The largest region: its last byte is as good as its first. */
static void test_anon_create_largest(void **state)
{
	struct upc_anon *anon;
	struct api_env env;
	char c = 0;

	(void)state;
	aa_init(&env, LIMIT);
	anon = aa_create(&env, UPC_MAX_FILE_SIZE);
	assert_int_equal(upc_anon_write(anon, "z", 1, INT64_MAX - 1), 1);
	assert_int_equal(upc_anon_write(anon, "zz", 2, INT64_MAX - 1), 1);
	assert_int_equal(upc_anon_write(anon, "z", 1, INT64_MAX), 0);
	assert_int_equal(upc_anon_read(anon, &c, 1, INT64_MAX - 1), 1);
	assert_int_equal(c, 'z');
	assert_int_equal(upc_anon_read(anon, &c, 1, INT64_MAX), 0);
	aa_write(anon, 0, 100, 3);
	aa_expect(anon, 0, 100, 3);
	assert_int_equal(api_stats(&env).memory_used, 2 * API_PAGE);
	aa_destroy(anon);
	aa_fini(&env);
}

/* Regions are counted; the cache cannot go while one exists. */
static void test_anon_counted_and_cache_busy(void **state)
{
	struct upc_anon *a, *b;
	struct api_env env;

	(void)state;
	aa_init(&env, LIMIT);
	aa_swapon(&env, NULL, 4 * API_MIB, 0);
	a = aa_create(&env, API_MIB);
	/* Busy even while the region holds no memory at all. */
	assert_int_equal(upc_cache_destroy(env.cache), -EBUSY);
	b = aa_create(&env, 2 * LIMIT);
	assert_int_equal(api_stats(&env).anon_regions, 2);
	aa_write(a, 0, API_MIB, 1);
	aa_write(b, 0, 2 * LIMIT, 2);
	assert_int_equal(upc_cache_destroy(env.cache), -EBUSY);
	/* Nothing was freed: both regions still read back. */
	aa_expect(a, 0, API_MIB, 1);
	aa_expect(b, 0, 2 * LIMIT, 2);
	aa_destroy(a);
	assert_int_equal(api_stats(&env).anon_regions, 1);
	assert_int_equal(upc_cache_destroy(env.cache), -EBUSY);
	aa_destroy(b);
	assert_int_equal(api_stats(&env).anon_regions, 0);
	aa_fini(&env);
}

#ifdef UPC_DEBUG
/* Debug builds catch a destroyed handle (best-effort, see internal.h). */
static void test_anon_destroyed_handle(void **state)
{
	struct upc_anon *anon;
	struct api_env env;
	char c = 0;

	(void)state;
	aa_init(&env, LIMIT);
	anon = aa_create(&env, API_PAGE);
	aa_destroy(anon);
	assert_int_equal(upc_anon_destroy(anon), -EBADF);
	assert_int_equal(upc_anon_read(anon, &c, 1, 0), -EBADF);
	assert_int_equal(upc_anon_write(anon, &c, 1, 0), -EBADF);
	aa_fini(&env);
}
#endif

/* ---- upc_anon_read() and upc_anon_write() ---------------------------------- */

static void test_anon_rw_errors(void **state)
{
	struct upc_anon *anon;
	struct api_env env;
	char buf[8] = { 0 };

	(void)state;
	aa_init(&env, LIMIT);
	anon = aa_create(&env, 3 * API_PAGE);
	assert_int_equal(upc_anon_read(NULL, buf, 1, 0), -EBADF);
	assert_int_equal(upc_anon_write(NULL, buf, 1, 0), -EBADF);
	assert_int_equal(upc_anon_read(anon, buf, 1, -1), -EINVAL);
	assert_int_equal(upc_anon_write(anon, buf, 1, -1), -EINVAL);
	assert_int_equal(upc_anon_read(anon, buf, 1, INT64_MIN), -EINVAL);
	assert_int_equal(upc_anon_write(anon, buf, 1, INT64_MIN), -EINVAL);
	assert_int_equal(upc_anon_read(anon, NULL, 1, 0), -EFAULT);
	assert_int_equal(upc_anon_write(anon, NULL, 1, 0), -EFAULT);
	/* The offset is checked first, as upc_read() does. */
	assert_int_equal(upc_anon_read(anon, NULL, 1, -1), -EINVAL);
	assert_int_equal(upc_anon_write(anon, NULL, 1, -1), -EINVAL);
	/* NULL with nothing to copy is fine, anywhere. */
	assert_int_equal(upc_anon_read(anon, NULL, 0, 0), 0);
	assert_int_equal(upc_anon_write(anon, NULL, 0, 5), 0);
	assert_int_equal(upc_anon_write(anon, NULL, 0, INT64_MAX), 0);
	/* At or past the end: 0. */
	assert_int_equal(upc_anon_read(anon, buf, 1, 3 * API_PAGE), 0);
	assert_int_equal(upc_anon_write(anon, buf, 1, 3 * API_PAGE), 0);
	assert_int_equal(upc_anon_write(anon, buf, 1, INT64_MAX), 0);
	/* Nothing was allocated by any of that. */
	assert_int_equal(api_stats(&env).memory_used, 0);
	aa_destroy(anon);
	aa_fini(&env);
}

/* Never-written pages read as zeros without memory; writes land exactly. */
static void test_anon_zero_and_round_trip(void **state)
{
	const int64_t size = 6 * API_PAGE + 3;
	struct upc_cache_stats st;
	struct upc_anon *anon;
	struct api_env env;
	char buf[16];

	(void)state;
	aa_init(&env, LIMIT);
	anon = aa_create(&env, (uint64_t)size);
	aa_expect(anon, 0, (size_t)size, 0);
	assert_int_equal(api_stats(&env).memory_used, 0);

	aa_write(anon, API_PAGE - 5, 10, 4);		/* pages 0 and 1 */
	aa_write(anon, 4 * API_PAGE + 1, 2 * API_PAGE + 2, 5);	/* 4 to 6 */
	aa_expect(anon, 0, API_PAGE - 5, 0);
	aa_expect(anon, API_PAGE - 5, 10, 4);
	aa_expect(anon, API_PAGE + 5, 3 * API_PAGE - 4, 0);
	aa_expect(anon, 4 * API_PAGE + 1, 2 * API_PAGE + 2, 5);
	st = api_stats(&env);
	assert_int_equal(st.memory_used, 5 * API_PAGE);
	assert_int_equal(st.pages_active + st.pages_inactive, 5);
	assert_int_equal(st.pages_cached, 0);	/* files only */
	assert_int_equal(st.swap_total, 0);

	/* Clipped at the end, which is inside page 6. */
	memset(buf, 'q', sizeof(buf));
	assert_int_equal(upc_anon_write(anon, buf, sizeof(buf), size - 2), 2);
	assert_int_equal(upc_anon_read(anon, buf, sizeof(buf), size - 4), 4);
	assert_memory_equal(buf + 2, "qq", 2);
	assert_anon_ok(anon);
	aa_destroy(anon);
	assert_int_equal(api_stats(&env).memory_used, 0);
	aa_fini(&env);
}

/* Without swap, memory runs out: -ENOMEM, short writes, no damage. */
static void test_anon_no_swap_enomem(void **state)
{
	struct upc_anon *anon;
	struct api_env env;
	char *buf;

	(void)state;
	aa_init(&env, LIMIT);
	anon = aa_create(&env, 2 * LIMIT);
	aa_write(anon, 0, LIMIT - 2 * API_PAGE, 1);
	buf = malloc(4 * API_PAGE);
	assert_non_null(buf);
	api_fill(buf, 4 * API_PAGE, LIMIT - 3 * API_PAGE, 2);
	/* Over one written page, into the two left, then no more. */
	assert_int_equal(upc_anon_write(anon, buf, 4 * API_PAGE,
					LIMIT - 3 * API_PAGE), 3 * API_PAGE);
	assert_int_equal(upc_anon_write(anon, buf, 1, LIMIT), -ENOMEM);
	assert_int_equal(upc_anon_write(anon, buf, 1, 2 * LIMIT - 1), -ENOMEM);
	free(buf);
	assert_int_equal(api_stats(&env).memory_used, LIMIT);
	aa_expect(anon, 0, LIMIT - 3 * API_PAGE, 1);
	aa_expect(anon, LIMIT - 3 * API_PAGE, 3 * API_PAGE, 2);
	aa_expect(anon, LIMIT, LIMIT, 0);
	assert_anon_ok(anon);
	/* Freeing it frees the memory for the next one. */
	aa_destroy(anon);
	anon = aa_create(&env, LIMIT);
	aa_write(anon, 0, LIMIT, 3);
	aa_expect(anon, 0, LIMIT, 3);
	aa_destroy(anon);
	aa_fini(&env);
}

/*
 * A region three times the cache: it swaps out and back in, the figures
 * say so, and destroying it gives back every slot and page.
 */
static void aa_swap_round_trip(const char *path, unsigned int shift)
{
	const int64_t size = 3 * LIMIT;
	struct upc_cache_stats st, st2;
	struct upc_anon *anon;
	struct api_env env;
	int64_t pos;

	aa_init(&env, LIMIT);
	aa_swapon(&env, path, 8 * API_MIB, shift);
	anon = aa_create(&env, (uint64_t)size);
	/* Odd-sized writes: pages written in pieces across calls. */
	for (pos = 0; pos < size; pos += 3 * API_PAGE + 1000)
		aa_write(anon, pos, (size_t)(pos + 3 * API_PAGE + 1000 <= size ?
					     3 * API_PAGE + 1000 : size - pos), 6);
	st = api_stats(&env);
	assert_true(st.swapouts >= (uint64_t)(size - LIMIT) / API_PAGE);
	assert_true(st.swap_used >= (uint64_t)(size - LIMIT));
	assert_true(st.swap_used <= st.swapouts * API_PAGE);
	assert_int_equal(st.swap_total, 8 * API_MIB);
	assert_int_equal(st.swapins, 0);
	assert_int_equal(st.pages_cached, 0);
	assert_anon_ok(anon);

	aa_expect(anon, 0, (size_t)size, 6);
	st2 = api_stats(&env);
	assert_true(st2.swapins >= st.swap_used / API_PAGE);
	assert_true(st2.refaults > 0);
	assert_true(st2.refaults <= st2.swapins);
	assert_anon_ok(anon);
	aa_destroy(anon);
	st = api_stats(&env);
	assert_int_equal(st.swap_used, 0);
	assert_int_equal(st.memory_used, 0);
	aa_fini(&env);
}

static void test_anon_swap_round_trip(void **state)
{
	struct aa_path path;

	(void)state;
	aa_swap_round_trip(NULL, 0);
	aa_swap_round_trip(NULL, 6);
	aa_tmpname(&path);
	aa_swap_round_trip(path.name, 0);
	aa_swap_round_trip(path.name, 30);
	aa_unlink(&path);
}

/* Regions keep their own data, however their pages interleave in swap. */
static void test_anon_two_regions(void **state)
{
	struct upc_anon *a, *b;
	struct api_env env;
	int64_t pos;

	(void)state;
	aa_init(&env, LIMIT);
	aa_swapon(&env, NULL, 8 * API_MIB, 0);
	a = aa_create(&env, 2 * LIMIT);
	b = aa_create(&env, 2 * LIMIT);
	for (pos = 0; pos < 2 * LIMIT; pos += API_PAGE) {
		aa_write(a, pos, API_PAGE, 7);
		aa_write(b, pos, API_PAGE, 8);
	}
	aa_expect(b, 0, 2 * LIMIT, 8);
	aa_expect(a, 0, 2 * LIMIT, 7);
	aa_destroy(a);
	aa_expect(b, 0, 2 * LIMIT, 8);
	aa_destroy(b);
	aa_fini(&env);
}

/* Pages written before swapon go to swap once there is a device. */
static void test_anon_swapon_later(void **state)
{
	struct upc_anon *anon;
	struct api_env env;

	(void)state;
	aa_init(&env, LIMIT);
	anon = aa_create(&env, 3 * LIMIT);
	aa_write(anon, 0, LIMIT, 1);
	assert_int_equal(upc_anon_write(anon, "x", 1, LIMIT), -ENOMEM);
	aa_swapon(&env, NULL, 8 * API_MIB, 0);
	aa_write(anon, LIMIT, 2 * LIMIT, 2);
	assert_true(api_stats(&env).swapouts >= LIMIT / API_PAGE);
	aa_expect(anon, 0, LIMIT, 1);
	aa_expect(anon, LIMIT, 2 * LIMIT, 2);
	aa_destroy(anon);
	aa_fini(&env);
}

/* Shmem files stay in memory: anonymous pages make room for them. */
static void test_anon_makes_room_for_shmem(void **state)
{
	struct upc_anon *anon;
	struct api_env env;

	(void)state;
	aa_init(&env, LIMIT);
	aa_swapon(&env, NULL, 4 * API_MIB, 0);
	assert_int_equal(upc_shmem_create(env.cache, NULL, &env.file), 0);
	anon = aa_create(&env, LIMIT);
	aa_write(anon, 0, LIMIT - 8 * API_PAGE, 1);
	api_write_pattern(env.file, 0, LIMIT - 64 * API_PAGE, 2);
	assert_true(api_stats(&env).swapouts > 0);
	api_expect(env.file, 0, LIMIT - 64 * API_PAGE, 2);
	aa_expect(anon, 0, LIMIT - 8 * API_PAGE, 1);
	aa_destroy(anon);
	assert_int_equal(upc_close(env.file), 0);
	env.file = NULL;
	aa_fini(&env);
}

/* Memory and swap both full: -ENOMEM; freeing another region heals it. */
static void test_anon_swap_full(void **state)
{
	struct upc_anon *small, *big;
	struct api_env env;
	int64_t pos;
	ssize_t ret = 0;
	char *buf;

	(void)state;
	aa_init(&env, LIMIT);
	aa_swapon(&env, NULL, 2 * API_MIB, 0);
	small = aa_create(&env, 64 * API_PAGE);
	big = aa_create(&env, 4 * LIMIT);
	aa_write(small, 0, 64 * API_PAGE, 1);
	buf = malloc(API_PAGE);
	assert_non_null(buf);
	for (pos = 0; pos < 4 * LIMIT; pos += API_PAGE) {
		api_fill(buf, API_PAGE, pos, 2);
		ret = upc_anon_write(big, buf, API_PAGE, pos);
		if (ret < 0)
			break;
		assert_int_equal(ret, API_PAGE);
	}
	free(buf);
	assert_int_equal(ret, -ENOMEM);
	/* Every byte of memory and swap holds a page. */
	assert_int_equal(pos + 64 * API_PAGE, LIMIT + 2 * API_MIB);
	assert_int_equal(api_stats(&env).swap_used, 2 * API_MIB);
	assert_anon_ok(big);
	aa_destroy(small);
	aa_expect(big, 0, (size_t)pos, 2);
	aa_expect(big, pos, (size_t)(4 * LIMIT - pos), 0);
	aa_destroy(big);
	aa_fini(&env);
}

/*
 * The swap file loses a page: -EIO, the page stays swapped out, and its
 * data comes back once the file is whole again.
 */
static void test_anon_swap_read_eio(void **state)
{
	struct upc_anon *anon, *room;
	struct aa_path path;
	struct api_env env;
	struct stat st;
	char *saved, c;
	int fd;

	(void)state;
	aa_tmpname(&path);
	aa_init(&env, LIMIT);
	aa_swapon(&env, path.name, 8 * API_MIB, 0);
	anon = aa_create(&env, 2 * LIMIT);
	aa_write(anon, 0, 2 * LIMIT, 3);
	/*
	 * Free memory, so that the swap-ins below swap nothing out: a write
	 * to the cut file would refill it with holes, read as zeros.
	 */
	room = aa_create(&env, 64 * API_PAGE);
	aa_write(room, 0, 64 * API_PAGE, 4);
	aa_destroy(room);
	assert_true(api_stats(&env).memory_used <= LIMIT - 64 * API_PAGE);

	fd = open(path.name, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	saved = malloc((size_t)st.st_size);
	assert_non_null(saved);
	assert_int_equal(pread(fd, saved, (size_t)st.st_size, 0), st.st_size);
	assert_int_equal(ftruncate(fd, 0), 0);
	assert_int_equal(upc_anon_read(anon, &c, 1, 0), -EIO);
	assert_int_equal(upc_anon_write(anon, "x", 1, 0), -EIO);
	assert_anon_ok(anon);
	assert_true(api_stats(&env).swap_used > 0);
	assert_int_equal(pwrite(fd, saved, (size_t)st.st_size, 0), st.st_size);
	free(saved);
	close(fd);
	aa_expect(anon, 0, 2 * LIMIT, 3);
	aa_destroy(anon);
	aa_fini(&env);
	aa_unlink(&path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_swapon_errors),
		cmocka_unit_test(test_swapon_file),
		cmocka_unit_test(test_swapon_failure_removes_new_file),
		cmocka_unit_test(test_swapon_enospc),
		cmocka_unit_test(test_swapoff),
		cmocka_unit_test(test_anon_create_errors),
		cmocka_unit_test(test_anon_create_largest),
		cmocka_unit_test(test_anon_counted_and_cache_busy),
#ifdef UPC_DEBUG
		cmocka_unit_test(test_anon_destroyed_handle),
#endif
		cmocka_unit_test(test_anon_rw_errors),
		cmocka_unit_test(test_anon_zero_and_round_trip),
		cmocka_unit_test(test_anon_no_swap_enomem),
		cmocka_unit_test(test_anon_swap_round_trip),
		cmocka_unit_test(test_anon_two_regions),
		cmocka_unit_test(test_anon_swapon_later),
		cmocka_unit_test(test_anon_makes_room_for_shmem),
		cmocka_unit_test(test_anon_swap_full),
		cmocka_unit_test(test_anon_swap_read_eio),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
