// SPDX-License-Identifier: MIT
/*
 * tests/api/test_upcache.c - the upc_ API (include/upcache/upcache.h),
 * one function at a time: what each does, and each error its contract
 * documents, in the order the checks are made.
 *
 * Every test builds a cache and a file (api_helpers.h), checks the
 * file's page cache with upc_check_mapping() after the operations that
 * change it, and ends with api_fini(), which asserts that closing the
 * file gave every byte of memory back.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <linux/falloc.h>
#include <sys/uio.h>

#include "api_helpers.h"
#include "fault.h"

#define MEM		(64UL << 20)

/* ---- caches -------------------------------------------------------------- */

static void test_cache_create_errors(void **state)
{
	struct upc_cache_config cfg = { .memory_limit = 2 * API_MIB };
	struct upc_cache *cache = NULL;

	(void)state;
	assert_int_equal(upc_cache_create(NULL, &cache), -EINVAL);
	assert_int_equal(upc_cache_create(&cfg, NULL), -EINVAL);
	cfg.memory_limit = 0;
	assert_int_equal(upc_cache_create(&cfg, &cache), -EINVAL);
	cfg.memory_limit = 3 * API_MIB;
	assert_int_equal(upc_cache_create(&cfg, &cache), -EINVAL);
	cfg.memory_limit = API_PAGE;
	assert_int_equal(upc_cache_create(&cfg, &cache), -EINVAL);
	cfg.memory_limit = (size_t)128 << 40;	/* above the 64 TiB arena limit */
	assert_int_equal(upc_cache_create(&cfg, &cache), -EINVAL);
	cfg.memory_limit = 2 * API_MIB;
	cfg.huge = (enum upc_huge)(UPC_HUGE_ADVISE + 1);
	assert_int_equal(upc_cache_create(&cfg, &cache), -EINVAL);
	cfg.huge = (enum upc_huge)-1;
	assert_int_equal(upc_cache_create(&cfg, &cache), -EINVAL);
	cfg.huge = UPC_HUGE_NEVER;
	cfg.flags = 1;
	assert_int_equal(upc_cache_create(&cfg, &cache), -EINVAL);
	assert_null(cache);
}

/*
 * The cache's huge policy is the default of its shmem files: a cache
 * created with UPC_HUGE_DEFAULT gives them 4 KiB folios (NEVER), one
 * created with ALWAYS a 2 MiB folio for an aligned 2 MiB write.  Each
 * folio is one span.
 */
static void test_cache_default_huge(void **state)
{
	struct upc_cache_config cfg = { .memory_limit = MEM,
					.huge = UPC_HUGE_ALWAYS };
	struct upc_span spans[2];
	struct api_env env;

	(void)state;
	api_init(&env, MEM, UPC_HUGE_DEFAULT, 0);
	api_write_pattern(env.file, 0, 2 * API_MIB, 1);
	assert_int_equal(upc_get_spans(env.file, 0, 2 * API_MIB, spans, 2), 2);
	assert_int_equal(spans[0].len, API_PAGE);
	assert_int_equal(spans[1].len, API_PAGE);
	upc_put_spans(spans, 2);
	api_fini(&env);

	memset(&env, 0, sizeof(env));
	assert_int_equal(upc_cache_create(&cfg, &env.cache), 0);
	assert_int_equal(upc_shmem_create(env.cache, NULL, &env.file), 0);
	api_write_pattern(env.file, 0, 2 * API_MIB, 1);
	assert_int_equal(upc_get_spans(env.file, 0, 2 * API_MIB, spans, 2), 1);
	assert_int_equal(spans[0].len, 2 * API_MIB);
	upc_put_spans(spans, 1);
	api_fini(&env);
}

/* Every allocation creation makes can fail, and leaves nothing behind. */
static void test_cache_create_enomem(void **state)
{
	struct upc_cache_config cfg = { .memory_limit = 2 * API_MIB };
	struct upc_cache *cache = NULL;
	unsigned long n;
	int err;

	(void)state;
	for (n = 1;; n++) {
		upc_fault_fail_nth(n);
		err = upc_cache_create(&cfg, &cache);
		if (!upc_fault_injected())
			break;
		assert_int_equal(err, -ENOMEM);
		assert_null(cache);
	}
	upc_fault_fail_nth(0);
	assert_true(n > 1);
	assert_int_equal(err, 0);
	assert_int_equal(upc_cache_destroy(cache), 0);
}

static void test_cache_destroy(void **state)
{
	struct upc_cache_config cfg = { .memory_limit = 4 * API_MIB };
	struct upc_cache *cache;
	struct upc_file *a, *b;

	(void)state;
	assert_int_equal(upc_cache_destroy(NULL), -EBADF);
	assert_int_equal(upc_cache_create(&cfg, &cache), 0);
	assert_int_equal(upc_shmem_create(cache, NULL, &a), 0);
	assert_int_equal(upc_shmem_create(cache, NULL, &b), 0);
	assert_int_equal(upc_write(a, "x", 1, 0), 1);
	/* Busy while any file is open; nothing is freed meanwhile. */
	assert_int_equal(upc_cache_destroy(cache), -EBUSY);
	assert_int_equal(upc_close(a), 0);
	assert_int_equal(upc_cache_destroy(cache), -EBUSY);
	assert_int_equal(upc_write(b, "y", 1, 0), 1);
	assert_int_equal(upc_close(b), 0);
	assert_int_equal(upc_cache_destroy(cache), 0);
}

static void test_cache_stats(void **state)
{
	struct upc_cache_config cfg = { .memory_limit = 8 * API_MIB };
	struct upc_cache_stats st;
	struct upc_cache *cache;
	struct upc_file *a, *b;

	(void)state;
	assert_int_equal(upc_cache_create(&cfg, &cache), 0);
	assert_int_equal(upc_cache_stats(NULL, &st), -EBADF);
	assert_int_equal(upc_cache_stats(cache, NULL), -EINVAL);
	assert_int_equal(upc_cache_stats(cache, &st), 0);
	assert_int_equal(st.memory_limit, 8 * API_MIB);
	assert_int_equal(st.memory_used, 0);
	assert_int_equal(st.pages_cached, 0);
	assert_int_equal(st.files, 0);

	assert_int_equal(upc_shmem_create(cache, NULL, &a), 0);
	assert_int_equal(upc_shmem_create(cache, NULL, &b), 0);
	api_write_pattern(a, 0, 3 * API_PAGE, 1);
	api_write_pattern(b, 10 * API_PAGE, 1, 2);
	assert_int_equal(upc_fallocate(b, 0, 0, 2 * API_PAGE), 0);
	assert_int_equal(upc_cache_stats(cache, &st), 0);
	assert_int_equal(st.files, 2);
	assert_int_equal(st.pages_cached, 6);
	assert_int_equal(st.memory_used, 6 * API_PAGE);

	assert_int_equal(upc_close(a), 0);
	assert_int_equal(upc_cache_stats(cache, &st), 0);
	assert_int_equal(st.files, 1);
	assert_int_equal(st.pages_cached, 3);
	assert_int_equal(st.memory_used, 3 * API_PAGE);
	assert_int_equal(upc_close(b), 0);
	assert_int_equal(upc_cache_stats(cache, &st), 0);
	assert_int_equal(st.memory_used, 0);
	assert_int_equal(st.files, 0);
	assert_int_equal(upc_cache_destroy(cache), 0);
}

/* ---- creating and closing files ------------------------------------------ */

static void test_shmem_create_errors(void **state)
{
	struct upc_shmem_options opts = { 0 };
	struct upc_file *file = NULL;
	struct api_env env;
	unsigned long n;
	int err;

	(void)state;
	api_init(&env, MEM, UPC_HUGE_NEVER, 0);
	assert_int_equal(upc_shmem_create(NULL, NULL, &file), -EBADF);
	assert_int_equal(upc_shmem_create(env.cache, NULL, NULL), -EINVAL);
	opts.huge = (enum upc_huge)(UPC_HUGE_ADVISE + 1);
	assert_int_equal(upc_shmem_create(env.cache, &opts, &file), -EINVAL);
	opts.huge = UPC_HUGE_NEVER;
	opts.flags = UPC_SHMEM_HUGE_ADVISED << 1;
	assert_int_equal(upc_shmem_create(env.cache, &opts, &file), -EINVAL);
	assert_null(file);

	for (n = 1;; n++) {
		upc_fault_fail_nth(n);
		err = upc_shmem_create(env.cache, NULL, &file);
		if (!upc_fault_injected())
			break;
		assert_int_equal(err, -ENOMEM);
	}
	upc_fault_fail_nth(0);
	assert_int_equal(err, 0);
	assert_int_equal(upc_close(file), 0);
	api_fini(&env);
}

static void test_close(void **state)
{
	struct api_env env;
	struct upc_file *file;
	char c;

	(void)state;
	file = api_init(&env, MEM, UPC_HUGE_NEVER, 0);
	assert_int_equal(upc_close(NULL), -EBADF);
	api_write_pattern(file, 0, 5 * API_PAGE, 3);
	assert_int_equal(upc_close(file), 0);
	env.file = NULL;
#ifdef UPC_DEBUG
	/* Debug builds catch a closed handle (best-effort, see internal.h). */
	assert_int_equal(upc_close(file), -EBADF);
	assert_int_equal(upc_read(file, &c, 1, 0), -EBADF);
	assert_int_equal(upc_write(file, &c, 1, 0), -EBADF);
	assert_int_equal(upc_size(file), -EBADF);
	assert_int_equal(upc_truncate(file, 0), -EBADF);
	assert_int_equal(upc_fallocate(file, 0, 0, 1), -EBADF);
	assert_int_equal(upc_seek_data(file, 0), -EBADF);
	assert_int_equal(upc_seek_hole(file, 0), -EBADF);
	assert_int_equal(upc_get_spans(file, 0, 1, NULL, 0), -EBADF);
#else
	(void)c;
#endif
	api_fini(&env);
}

#ifdef UPC_DEBUG
static void test_destroyed_cache_is_caught(void **state)
{
	struct upc_cache_config cfg = { .memory_limit = 2 * API_MIB };
	struct upc_cache_stats st;
	struct upc_cache *cache;
	struct upc_file *file;

	(void)state;
	assert_int_equal(upc_cache_create(&cfg, &cache), 0);
	assert_int_equal(upc_cache_destroy(cache), 0);
	assert_int_equal(upc_cache_destroy(cache), -EBADF);
	assert_int_equal(upc_cache_stats(cache, &st), -EBADF);
	assert_int_equal(upc_shmem_create(cache, NULL, &file), -EBADF);
}
#endif

/* ---- reads and writes ---------------------------------------------------- */

static void test_read_write_errors(void **state)
{
	struct api_env env;
	struct upc_file *file;
	char buf[16];

	(void)state;
	file = api_init(&env, MEM, UPC_HUGE_NEVER, 0);
	assert_int_equal(upc_read(NULL, buf, 1, 0), -EBADF);
	assert_int_equal(upc_write(NULL, buf, 1, 0), -EBADF);
	assert_int_equal(upc_read(file, buf, 1, -1), -EINVAL);
	assert_int_equal(upc_write(file, buf, 1, -1), -EINVAL);
	assert_int_equal(upc_read(file, NULL, 1, 0), -EFAULT);
	assert_int_equal(upc_write(file, NULL, 1, 0), -EFAULT);
	/* A negative offset is checked first, as pread()/pwrite() do. */
	assert_int_equal(upc_read(file, NULL, 1, -1), -EINVAL);
	/* Nothing to move: fine, even with no buffer. */
	assert_int_equal(upc_read(file, NULL, 0, 0), 0);
	assert_int_equal(upc_write(file, NULL, 0, 0), 0);
	assert_int_equal(upc_size(file), 0);
	/* A transfer may not reach past INT64_MAX (rw_verify_area()). */
	assert_int_equal(upc_read(file, buf, 2, INT64_MAX - 1), -EINVAL);
	assert_int_equal(upc_write(file, buf, 2, INT64_MAX - 1), -EINVAL);
	assert_int_equal(upc_write(file, buf, 1, INT64_MAX), -EINVAL);
	assert_int_equal(upc_write(file, buf, 0, INT64_MAX), 0);
	assert_int_equal(upc_read(file, buf, SIZE_MAX, 0), -EINVAL);
	assert_int_equal(upc_size(file), 0);
	api_fini(&env);
}

static void test_read_write(void **state)
{
	struct api_env env;
	struct upc_file *file;
	char buf[64];

	(void)state;
	file = api_init(&env, MEM, UPC_HUGE_NEVER, 0);
	/* Empty file: nothing to read anywhere. */
	assert_int_equal(upc_read(file, buf, sizeof(buf), 0), 0);
	assert_int_equal(upc_read(file, buf, sizeof(buf), 1 << 30), 0);

	/* A write past the end leaves a hole before it. */
	api_write_pattern(file, 3 * API_PAGE + 5, 2 * API_PAGE, 7);
	assert_int_equal(upc_size(file), 5 * API_PAGE + 5);
	assert_file_ok(file);
	api_expect(file, 0, 3 * API_PAGE + 5, 0);
	api_expect(file, 3 * API_PAGE + 5, 2 * API_PAGE, 7);
	assert_int_equal(api_pages_cached(&env), 3);

	/* Short only at the end; nothing at or past it. */
	assert_int_equal(upc_read(file, buf, sizeof(buf), 5 * API_PAGE - 10), 15);
	assert_int_equal(upc_read(file, buf, sizeof(buf), 5 * API_PAGE + 5), 0);
	assert_int_equal(upc_read(file, buf, sizeof(buf), INT64_MAX - 64), 0);

	/* Overwriting in the middle keeps the rest. */
	api_write_pattern(file, 4 * API_PAGE - 1, 3, 9);
	api_expect(file, 3 * API_PAGE + 5, API_PAGE - 6, 7);
	api_expect(file, 4 * API_PAGE - 1, 3, 9);
	api_expect(file, 4 * API_PAGE + 2, API_PAGE + 3, 7);
	assert_int_equal(upc_size(file), 5 * API_PAGE + 5);

	/* A write may end exactly at the largest size. */
	assert_int_equal(upc_write(file, "tail", 4, INT64_MAX - 4), 4);
	assert_int_equal(upc_size(file), INT64_MAX);
	assert_int_equal(upc_read(file, buf, 4, INT64_MAX - 4), 4);
	assert_memory_equal(buf, "tail", 4);
	assert_file_ok(file);
	api_fini(&env);
}

/* Pages [@first, @last] that follow the page before them in the arena. */
static unsigned int pages_adjacent(struct upc_file *file, pgoff_t first,
				   pgoff_t last)
{
	struct address_space *mapping = upc_file_mapping(file);
	char *prev = NULL;
	unsigned int n = 0;
	pgoff_t index;

	for (index = first; index <= last; index++) {
		struct folio *folio = filemap_get_entry(mapping, index);
		char *addr;

		assert_non_null(folio);
		assert_false(xa_is_value(folio));
		addr = folio_address(folio);
		if (prev && prev + API_PAGE == addr)
			n++;
		prev = addr;
		folio_put(folio);
	}
	return n;
}

/*
 * A write over folios of which some follow each other in the arena and
 * some do not (the write copies each stretch of adjacent ones at once):
 * the bytes land in order, and the rest of the first and last folios is
 * zeroed where they are new and kept where they held data.  The arena's
 * pages are dirtied and freed first, so new folios hold old bytes.
 */
static void test_write_adjacent_folios(void **state)
{
	struct api_env env;
	struct upc_file *file;
	int64_t page;

	(void)state;
	file = api_init(&env, MEM, UPC_HUGE_NEVER, 0);
	api_write_pattern(file, 0, 64 * API_PAGE, 9);
	/* Freed last page first, so that they come back in address order. */
	for (page = 63; page >= 0; page--)
		assert_int_equal(upc_fallocate(file, FALLOC_FL_PUNCH_HOLE |
					       FALLOC_FL_KEEP_SIZE,
					       page * API_PAGE, API_PAGE), 0);
	assert_int_equal(upc_truncate(file, 0), 0);

	/*
	 * Pages 1 and 5 hold data before three writes: over pages 0 to 3,
	 * 4 to 5 and 6 to 7.  New pages 2 and 3, and 6 and 7, come from the
	 * allocator in address order: each pair is copied at once.
	 */
	api_write_pattern(file, API_PAGE + 100, 100, 3);
	api_write_pattern(file, 5 * API_PAGE + 4000, 50, 4);
	api_write_pattern(file, 50, 3 * API_PAGE - 40, 6);
	api_write_pattern(file, 4 * API_PAGE + 7, 2 * API_PAGE - 200, 7);
	api_write_pattern(file, 6 * API_PAGE + 30, API_PAGE - 10, 8);
	assert_int_equal(pages_adjacent(file, 0, 2), 0);
	assert_int_equal(pages_adjacent(file, 2, 3), 1);
	assert_int_equal(pages_adjacent(file, 4, 5), 0);
	assert_int_equal(pages_adjacent(file, 6, 7), 1);
	assert_int_equal(upc_size(file), 7 * API_PAGE + 20);
	assert_file_ok(file);

	/* New first folios: zeros before a write; new last: zeros after. */
	api_expect(file, 0, 50, 0);
	api_expect(file, 50, 3 * API_PAGE - 40, 6);
	api_expect(file, 3 * API_PAGE + 10, API_PAGE - 10 + 7, 0);
	api_expect(file, 4 * API_PAGE + 7, 2 * API_PAGE - 200, 7);
	/* Old last folio: its bytes after the write are kept. */
	api_expect(file, 6 * API_PAGE - 193, 97, 0);
	api_expect(file, 5 * API_PAGE + 4000, 50, 4);
	api_expect(file, 5 * API_PAGE + 4050, 46 + 30, 0);
	api_expect(file, 6 * API_PAGE + 30, API_PAGE - 10, 8);
	api_fini(&env);
}

/*
 * A write is a use of each page it writes, as a read from a page's start
 * is: a page written twice is active, the second write activating it.
 * A one-page write to a file with large folios takes its own way to the
 * folio (one lookup, not the batched grab), and must count as a use
 * just the same, on the write that creates the folio and on the next.
 */
static void test_write_marks_use(void **state)
{
	static const enum upc_huge policies[] = {
		UPC_HUGE_NEVER, UPC_HUGE_ALWAYS,
	};
	struct upc_cache_stats st;
	struct api_env env;
	struct upc_file *file;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(policies) / sizeof(policies[0]); i++) {
		file = api_init(&env, MEM, policies[i], 0);
		api_write_pattern(file, 3 * API_PAGE, API_PAGE, 1);
		st = api_stats(&env);
		assert_int_equal(st.pages_active, 0);
		assert_int_equal(st.activations, 0);
		api_write_pattern(file, 3 * API_PAGE + 10, 20, 2);
		assert_int_equal(api_folio_order(file, 3 * API_PAGE, NULL), 0);
		st = api_stats(&env);
		assert_int_equal(st.pages_active, 1);
		assert_int_equal(st.activations, 1);
		api_fini(&env);
	}
}

/* A full cache: short write, then -ENOSPC; what was written is there. */
static void test_write_enospc(void **state)
{
	size_t len = 3 * API_MIB;
	struct api_env env;
	struct upc_file *file;
	char *buf = malloc(len);

	(void)state;
	assert_non_null(buf);
	file = api_init(&env, 2 * API_MIB, UPC_HUGE_NEVER, 0);
	api_fill(buf, len, 100, 5);
	assert_int_equal(upc_write(file, buf, len, 100), 2 * API_MIB - 100);
	assert_int_equal(upc_size(file), 2 * API_MIB);
	api_expect(file, 100, 2 * API_MIB - 100, 5);
	api_expect(file, 0, 100, 0);
	assert_int_equal(upc_write(file, buf, 1, 2 * API_MIB), -ENOSPC);
	assert_int_equal(upc_write(file, buf, 1, 3 * API_MIB), -ENOSPC);
	assert_int_equal(upc_size(file), 2 * API_MIB);
	assert_int_equal(upc_write(file, buf, 1, 0), 1);	/* cached: fine */
	assert_int_equal(upc_size(file), 2 * API_MIB);
	assert_int_equal(api_memory_used(&env), 2 * API_MIB);
	assert_file_ok(file);
	free(buf);
	api_fini(&env);
}

static void test_readv_writev_errors(void **state)
{
	struct iovec iov[2], big[2];
	struct api_env env;
	struct upc_file *file;
	char buf[8];

	(void)state;
	file = api_init(&env, MEM, UPC_HUGE_NEVER, 0);
	iov[0] = (struct iovec){ buf, 4 };
	iov[1] = (struct iovec){ NULL, 0 };
	assert_int_equal(upc_readv(NULL, iov, 1, 0), -EBADF);
	assert_int_equal(upc_writev(NULL, iov, 1, 0), -EBADF);
	assert_int_equal(upc_readv(file, iov, 1, -1), -EINVAL);
	assert_int_equal(upc_writev(file, iov, 1, -1), -EINVAL);
	assert_int_equal(upc_readv(file, iov, -1, 0), -EINVAL);
	assert_int_equal(upc_writev(file, iov, IOV_MAX + 1, 0), -EINVAL);
	assert_int_equal(upc_readv(file, NULL, 1, 0), -EFAULT);
	assert_int_equal(upc_writev(file, NULL, 1, 0), -EFAULT);
	iov[1] = (struct iovec){ NULL, 1 };
	assert_int_equal(upc_readv(file, iov, 2, 0), -EFAULT);
	assert_int_equal(upc_writev(file, iov, 2, 0), -EFAULT);
	/* A total above SSIZE_MAX (never touched: refused first). */
	big[0] = (struct iovec){ buf, (size_t)SSIZE_MAX / 2 + 1 };
	big[1] = (struct iovec){ buf, (size_t)SSIZE_MAX / 2 + 1 };
	assert_int_equal(upc_readv(file, big, 2, 0), -EINVAL);
	assert_int_equal(upc_writev(file, big, 2, 0), -EINVAL);
	/* A total of SSIZE_MAX exactly is allowed: the empty file gives 0. */
	big[0] = (struct iovec){ buf, 4 };
	big[1] = (struct iovec){ buf, (size_t)SSIZE_MAX - 4 };
	assert_int_equal(upc_readv(file, big, 2, 0), 0);
	/* The total may not reach past INT64_MAX either. */
	iov[1] = (struct iovec){ buf, 4 };
	assert_int_equal(upc_writev(file, iov, 2, INT64_MAX - 7), -EINVAL);
	assert_int_equal(upc_readv(file, iov, 2, INT64_MAX - 7), -EINVAL);
	/* Nothing at all, or only empty buffers. */
	assert_int_equal(upc_readv(file, NULL, 0, 0), 0);
	assert_int_equal(upc_writev(file, NULL, 0, 0), 0);
	iov[0] = (struct iovec){ NULL, 0 };
	assert_int_equal(upc_writev(file, iov, 1, 5), 0);
	assert_int_equal(upc_size(file), 0);
	api_fini(&env);
}

/*
 * IOV_MAX vectors are the most a call takes, as for preadv()/pwritev():
 * exactly IOV_MAX work, byte for byte, and one more is -EINVAL with
 * nothing written or read.
 */
static void test_readv_writev_iov_max(void **state)
{
	static struct iovec wv[IOV_MAX + 1], rv[IOV_MAX + 1];
	static char buf[IOV_MAX + 1], out[IOV_MAX + 1];
	struct api_env env;
	struct upc_file *file;
	int i;

	(void)state;
	file = api_init(&env, MEM, UPC_HUGE_NEVER, 0);
	api_fill(buf, sizeof(buf), 0, 8);
	for (i = 0; i <= IOV_MAX; i++) {
		wv[i] = (struct iovec){ &buf[i], 1 };
		rv[i] = (struct iovec){ &out[i], 1 };
	}
	assert_int_equal(upc_writev(file, wv, IOV_MAX + 1, 0), -EINVAL);
	assert_int_equal(upc_size(file), 0);
	assert_int_equal(upc_writev(file, wv, IOV_MAX, 0), IOV_MAX);
	assert_int_equal(upc_size(file), IOV_MAX);
	api_expect(file, 0, IOV_MAX, 8);

	memset(out, 0xee, sizeof(out));
	assert_int_equal(upc_readv(file, rv, IOV_MAX + 1, 0), -EINVAL);
	assert_int_equal((unsigned char)out[0], 0xee);
	assert_int_equal(upc_readv(file, rv, IOV_MAX, 0), IOV_MAX);
	assert_memory_equal(out, buf, IOV_MAX);
	assert_file_ok(file);
	api_fini(&env);
}

static void test_readv_writev(void **state)
{
	static char a[5000], b[1], c[9000], out[14001];
	struct iovec wv[5], rv[4];
	struct api_env env;
	struct upc_file *file;
	int64_t off = API_PAGE - 3;

	(void)state;
	file = api_init(&env, MEM, UPC_HUGE_NEVER, 0);
	api_fill(a, sizeof(a), off, 4);
	api_fill(b, sizeof(b), off + 5000, 4);
	api_fill(c, sizeof(c), off + 5001, 4);
	wv[0] = (struct iovec){ a, sizeof(a) };
	wv[1] = (struct iovec){ NULL, 0 };
	wv[2] = (struct iovec){ b, sizeof(b) };
	wv[3] = (struct iovec){ c, sizeof(c) };
	wv[4] = (struct iovec){ a, 0 };
	assert_int_equal(upc_writev(file, wv, 5, off), 14001);
	assert_int_equal(upc_size(file), off + 14001);
	api_expect(file, off, 14001, 4);
	api_expect(file, 0, (size_t)off, 0);
	assert_file_ok(file);

	/* Read back across a hole too, in uneven pieces. */
	assert_int_equal(upc_truncate(file, off + 20000), 0);
	memset(out, 0xee, sizeof(out));
	rv[0] = (struct iovec){ out, 3 };
	rv[1] = (struct iovec){ NULL, 0 };
	rv[2] = (struct iovec){ out + 3, 13000 };
	rv[3] = (struct iovec){ out + 13003, 998 };
	assert_int_equal(upc_readv(file, rv, 4, off + 6000), 14001 - 6000 + 5999);
	for (int i = 0; i < 8001; i++)
		assert_int_equal((unsigned char)out[i],
				 api_byte(off + 6000 + i, 4));
	for (int i = 8001; i < 14000; i++)
		assert_int_equal(out[i], 0);
	assert_int_equal((unsigned char)out[14000], 0xee);
	api_fini(&env);
}

/*
 * More iovecs than the copy on the stack holds: the copy is allocated,
 * and without memory the call is -ENOMEM with nothing written or read.
 */
static void test_readv_writev_many(void **state)
{
	static char buf[20][100], out[20][100];
	struct iovec wv[20], rv[20];
	struct api_env env;
	struct upc_file *file;
	int i;

	(void)state;
	file = api_init(&env, MEM, UPC_HUGE_NEVER, 0);
	api_fill(buf[0], sizeof(buf), 0, 6);
	for (i = 0; i < 20; i++) {
		wv[i] = (struct iovec){ buf[i], sizeof(buf[i]) };
		rv[i] = (struct iovec){ out[i], sizeof(out[i]) };
	}
	upc_fault_fail_nth(1);
	assert_int_equal(upc_writev(file, wv, 20, 0), -ENOMEM);
	upc_fault_fail_nth(0);
	assert_int_equal(upc_size(file), 0);
	assert_int_equal(upc_writev(file, wv, 20, 0), (ssize_t)sizeof(buf));
	api_expect(file, 0, sizeof(buf), 6);

	memset(out, 0xee, sizeof(out));
	upc_fault_fail_nth(1);
	assert_int_equal(upc_readv(file, rv, 20, 0), -ENOMEM);
	upc_fault_fail_nth(0);
	assert_int_equal((unsigned char)out[0][0], 0xee);
	/* Eight fit on the stack: no allocation to fail. */
	upc_fault_fail_nth(1);
	assert_int_equal(upc_readv(file, rv, 8, 0), 800);
	upc_fault_fail_nth(0);
	assert_int_equal(upc_readv(file, rv, 20, 0), (ssize_t)sizeof(out));
	assert_memory_equal(out, buf, sizeof(buf));
	assert_file_ok(file);
	api_fini(&env);
}

/* ---- fallocate ----------------------------------------------------------- */

static void test_fallocate_errors(void **state)
{
	/* Refused before the size check (Linux's VFS refuses them)... */
	static const int bad_modes[] = {
		FALLOC_FL_PUNCH_HOLE, FALLOC_FL_COLLAPSE_RANGE |
		FALLOC_FL_KEEP_SIZE, FALLOC_FL_ZERO_RANGE |
		FALLOC_FL_PUNCH_HOLE, FALLOC_FL_KEEP_SIZE | 0x100, 0x80 |
		FALLOC_FL_KEEP_SIZE, -1,
	};
	/* ... and after it (tmpfs refuses them, -EFBIG comes first). */
	static const int late_modes[] = {
		FALLOC_FL_ZERO_RANGE, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
		FALLOC_FL_COLLAPSE_RANGE, FALLOC_FL_INSERT_RANGE,
		FALLOC_FL_UNSHARE_RANGE, 0x80,
	};
	struct api_env env;
	struct upc_file *file;
	unsigned int i;

	(void)state;
	file = api_init(&env, 4 * API_MIB, UPC_HUGE_NEVER, 0);
	assert_int_equal(upc_fallocate(NULL, 0, 0, 1), -EBADF);
	assert_int_equal(upc_fallocate(file, 0, -1, 1), -EINVAL);
	assert_int_equal(upc_fallocate(file, 0, 0, 0), -EINVAL);
	assert_int_equal(upc_fallocate(file, 0, 0, -5), -EINVAL);
	/* The range is checked before the mode, the mode before the limit. */
	assert_int_equal(upc_fallocate(file, -1, -1, 1), -EINVAL);
	for (i = 0; i < sizeof(bad_modes) / sizeof(bad_modes[0]); i++) {
		assert_int_equal(upc_fallocate(file, bad_modes[i], 0, 1),
				 -EOPNOTSUPP);
		assert_int_equal(upc_fallocate(file, bad_modes[i], INT64_MAX, 10),
				 -EOPNOTSUPP);
	}
	for (i = 0; i < sizeof(late_modes) / sizeof(late_modes[0]); i++) {
		assert_int_equal(upc_fallocate(file, late_modes[i], 0, 1),
				 -EOPNOTSUPP);
		assert_int_equal(upc_fallocate(file, late_modes[i], INT64_MAX,
					       10), -EFBIG);
	}
	assert_int_equal(upc_fallocate(file, 0, INT64_MAX - 10, 11), -EFBIG);
	assert_int_equal(upc_fallocate(file, FALLOC_FL_PUNCH_HOLE |
					     FALLOC_FL_KEEP_SIZE, INT64_MAX, 1),
			 -EFBIG);
	/* Larger than all of the cache's memory: refused before allocating. */
	assert_int_equal(upc_fallocate(file, 0, 0, 4 * API_MIB + 1), -ENOSPC);
	assert_int_equal(upc_size(file), 0);
	assert_int_equal(api_memory_used(&env), 0);
	/* The last page a file can have. */
	assert_int_equal(upc_fallocate(file, FALLOC_FL_KEEP_SIZE,
				       INT64_MAX - 10, 10), 0);
	assert_int_equal(api_pages_cached(&env), 1);
	assert_file_ok(file);
	api_fini(&env);
}

static void test_fallocate(void **state)
{
	struct api_env env;
	struct upc_file *file;
	bool uptodate = true;

	(void)state;
	file = api_init(&env, MEM, UPC_HUGE_NEVER, 0);
	/* Mode 0 grows the size; the range reads as zeros. */
	assert_int_equal(upc_fallocate(file, 0, API_PAGE + 1, 3 * API_PAGE), 0);
	assert_int_equal(upc_size(file), 4 * API_PAGE + 1);
	assert_int_equal(api_pages_cached(&env), 4);
	assert_int_equal(api_folio_order(file, API_PAGE, &uptodate), 0);
	assert_false(uptodate);
	assert_file_ok(file);
	api_expect(file, 0, 4 * API_PAGE + 1, 0);
	/* ... and is a hole for seeking, as tmpfs reports it. */
	assert_int_equal(upc_seek_data(file, 0), -ENXIO);
	assert_int_equal(upc_seek_hole(file, API_PAGE), API_PAGE);

	/* KEEP_SIZE: allocated past the end, the size stays. */
	assert_int_equal(upc_fallocate(file, FALLOC_FL_KEEP_SIZE, 8 * API_PAGE,
				       2 * API_PAGE), 0);
	assert_int_equal(upc_size(file), 4 * API_PAGE + 1);
	assert_int_equal(api_pages_cached(&env), 6);
	/* Growing the file shows them as zeros. */
	assert_int_equal(upc_truncate(file, 12 * API_PAGE), 0);
	api_expect(file, 0, 12 * API_PAGE, 0);

	/* Writing into an unwritten folio zeroes the rest of it first. */
	api_write_pattern(file, 2 * API_PAGE + 100, 10, 6);
	assert_int_equal(api_folio_order(file, 2 * API_PAGE, &uptodate), 0);
	assert_true(uptodate);
	api_expect(file, 2 * API_PAGE, 100, 0);
	api_expect(file, 2 * API_PAGE + 100, 10, 6);
	api_expect(file, 2 * API_PAGE + 110, API_PAGE - 110, 0);
	assert_int_equal(upc_seek_data(file, 0), 2 * API_PAGE);
	assert_int_equal(upc_seek_hole(file, 2 * API_PAGE), 3 * API_PAGE);

	/* Allocating again over unwritten folios makes them zeroed data. */
	assert_int_equal(upc_fallocate(file, FALLOC_FL_KEEP_SIZE, API_PAGE,
				       API_PAGE), 0);
	assert_int_equal(upc_seek_data(file, 0), API_PAGE);
	assert_int_equal(upc_seek_hole(file, API_PAGE), 3 * API_PAGE);
	api_expect(file, API_PAGE, API_PAGE, 0);
	/* ... but new folios of the same call stay holes (page 5 here). */
	assert_int_equal(upc_fallocate(file, 0, 3 * API_PAGE, 3 * API_PAGE), 0);
	assert_int_equal(upc_seek_hole(file, API_PAGE), 5 * API_PAGE);
	assert_int_equal(upc_seek_data(file, 5 * API_PAGE), -ENXIO);
	api_expect(file, 3 * API_PAGE, 9 * API_PAGE, 0);
	assert_file_ok(file);
	api_fini(&env);
}

/* A fallocate that runs out of memory frees what it allocated. */
static void test_fallocate_enospc_undoes(void **state)
{
	struct api_env env;
	struct upc_file *file;

	(void)state;
	file = api_init(&env, 2 * API_MIB, UPC_HUGE_NEVER, 0);
	api_write_pattern(file, 0, 100 * API_PAGE, 8);
	assert_int_equal(upc_fallocate(file, FALLOC_FL_KEEP_SIZE, API_MIB,
				       API_PAGE), 0);
	assert_int_equal(upc_fallocate(file, 0, 50 * API_PAGE, 2 * API_MIB),
			 -ENOSPC);
	/* The size, the data and the older allocation are as they were. */
	assert_int_equal(upc_size(file), 100 * API_PAGE);
	assert_int_equal(api_pages_cached(&env), 101);
	api_expect(file, 0, 100 * API_PAGE, 8);
	/* The earlier unwritten page was made data before the failure. */
	assert_int_equal(upc_truncate(file, 2 * API_MIB), 0);
	assert_int_equal(upc_seek_data(file, 100 * API_PAGE), API_MIB);
	assert_file_ok(file);
	api_fini(&env);
}

static void test_punch_hole(void **state)
{
	int mode = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;
	struct api_env env;
	struct upc_file *file;

	(void)state;
	file = api_init(&env, MEM, UPC_HUGE_NEVER, 0);
	api_write_pattern(file, 0, 10 * API_PAGE, 2);
	/* Whole pages are freed, partial ones zeroed; the size stays. */
	assert_int_equal(upc_fallocate(file, mode, API_PAGE + 10,
				       3 * API_PAGE), 0);
	assert_int_equal(upc_size(file), 10 * API_PAGE);
	assert_int_equal(api_pages_cached(&env), 8);
	api_expect(file, 0, API_PAGE + 10, 2);
	api_expect(file, API_PAGE + 10, 3 * API_PAGE, 0);
	api_expect(file, 4 * API_PAGE + 10, 6 * API_PAGE - 10, 2);
	assert_int_equal(upc_seek_hole(file, 0), 2 * API_PAGE);
	assert_int_equal(upc_seek_data(file, 2 * API_PAGE), 4 * API_PAGE);
	/* Past the end: nothing happens, the size stays. */
	assert_int_equal(upc_fallocate(file, mode, 20 * API_PAGE, API_MIB), 0);
	assert_int_equal(upc_size(file), 10 * API_PAGE);
	assert_file_ok(file);
	api_fini(&env);
}

/* ---- truncate, size ------------------------------------------------------ */

static void test_truncate(void **state)
{
	struct api_env env;
	struct upc_file *file;

	(void)state;
	file = api_init(&env, MEM, UPC_HUGE_NEVER, 0);
	assert_int_equal(upc_truncate(NULL, 0), -EBADF);
	assert_int_equal(upc_size(NULL), -EBADF);
	assert_int_equal(upc_truncate(file, -1), -EINVAL);

	api_write_pattern(file, 0, 5 * API_PAGE, 3);
	/* Shrinking frees the pages past the size, zeroes the last one's tail. */
	assert_int_equal(upc_truncate(file, 2 * API_PAGE + 7), 0);
	assert_int_equal(upc_size(file), 2 * API_PAGE + 7);
	assert_int_equal(api_pages_cached(&env), 3);
	/* Growing leaves a hole, and the old tail reads as zeros. */
	assert_int_equal(upc_truncate(file, 6 * API_PAGE), 0);
	assert_int_equal(api_pages_cached(&env), 3);
	api_expect(file, 0, 2 * API_PAGE + 7, 3);
	api_expect(file, 2 * API_PAGE + 7, 4 * API_PAGE - 7, 0);
	assert_int_equal(upc_seek_hole(file, 0), 3 * API_PAGE);

	/* The same size again frees what KEEP_SIZE allocated past the end. */
	assert_int_equal(upc_fallocate(file, FALLOC_FL_KEEP_SIZE, 8 * API_PAGE,
				       API_PAGE), 0);
	assert_int_equal(api_pages_cached(&env), 4);
	assert_int_equal(upc_truncate(file, 6 * API_PAGE), 0);
	assert_int_equal(api_pages_cached(&env), 3);
	assert_int_equal(upc_truncate(file, INT64_MAX), 0);
	assert_int_equal(upc_size(file), INT64_MAX);
	assert_int_equal(upc_truncate(file, 0), 0);
	assert_int_equal(api_pages_cached(&env), 0);
	assert_file_ok(file);
	api_fini(&env);
}

/* ---- seeking ------------------------------------------------------------- */

static void test_seek(void **state)
{
	struct api_env env;
	struct upc_file *file;

	(void)state;
	file = api_init(&env, MEM, UPC_HUGE_NEVER, 0);
	assert_int_equal(upc_seek_data(NULL, 0), -EBADF);
	assert_int_equal(upc_seek_hole(NULL, 0), -EBADF);
	assert_int_equal(upc_seek_data(file, -1), -ENXIO);
	assert_int_equal(upc_seek_hole(file, -1), -ENXIO);
	/* Empty: everything is past the end. */
	assert_int_equal(upc_seek_data(file, 0), -ENXIO);
	assert_int_equal(upc_seek_hole(file, 0), -ENXIO);

	api_write_pattern(file, 3 * API_PAGE, 2 * API_PAGE, 1);
	api_write_pattern(file, 64 * API_PAGE + 1, 1, 1);
	assert_int_equal(upc_truncate(file, 100 * API_PAGE), 0);
	assert_int_equal(upc_seek_data(file, 0), 3 * API_PAGE);
	assert_int_equal(upc_seek_data(file, 4 * API_PAGE + 9), 4 * API_PAGE + 9);
	assert_int_equal(upc_seek_data(file, 5 * API_PAGE), 64 * API_PAGE);
	assert_int_equal(upc_seek_data(file, 65 * API_PAGE), -ENXIO);
	assert_int_equal(upc_seek_hole(file, 0), 0);
	assert_int_equal(upc_seek_hole(file, 3 * API_PAGE), 5 * API_PAGE);
	assert_int_equal(upc_seek_hole(file, 64 * API_PAGE), 65 * API_PAGE);
	assert_int_equal(upc_seek_hole(file, 99 * API_PAGE), 99 * API_PAGE);
	assert_int_equal(upc_seek_data(file, 100 * API_PAGE), -ENXIO);
	assert_int_equal(upc_seek_hole(file, 100 * API_PAGE), -ENXIO);
	/* Data up to the end: the end is the hole. */
	assert_int_equal(upc_truncate(file, 4 * API_PAGE + 1), 0);
	assert_int_equal(upc_seek_hole(file, 3 * API_PAGE), 4 * API_PAGE + 1);
	/* A run of more than one batch of folios. */
	api_write_pattern(file, 0, 100 * API_PAGE, 2);
	assert_int_equal(upc_seek_hole(file, 1), 100 * API_PAGE);
	assert_int_equal(upc_fallocate(file, FALLOC_FL_PUNCH_HOLE |
				       FALLOC_FL_KEEP_SIZE, 77 * API_PAGE, 1), 0);
	assert_int_equal(upc_seek_hole(file, 1), 100 * API_PAGE);
	assert_int_equal(upc_fallocate(file, FALLOC_FL_PUNCH_HOLE |
				       FALLOC_FL_KEEP_SIZE, 77 * API_PAGE,
				       API_PAGE), 0);
	assert_int_equal(upc_seek_hole(file, 1), 77 * API_PAGE);
	assert_int_equal(upc_seek_data(file, 77 * API_PAGE), 78 * API_PAGE);
	assert_file_ok(file);
	api_fini(&env);
}

/* ---- huge policies ------------------------------------------------------- */

/* Populate the first 4 MiB + a bit, return the order at @pos afterwards. */
static int order_after_write(struct upc_file *file, int64_t pos)
{
	api_write_pattern(file, 0, 4 * API_MIB + 3 * API_PAGE, 1);
	assert_file_ok(file);
	return api_folio_order(file, pos, NULL);
}

static void test_huge_policies(void **state)
{
	static const struct {
		enum upc_huge huge;
		unsigned int flags;
		int order;
	} cases[] = {
		{ UPC_HUGE_NEVER, 0, 0 },
		{ UPC_HUGE_NEVER, UPC_SHMEM_HUGE_ADVISED, 0 },
		{ UPC_HUGE_ALWAYS, 0, UPC_MAX_ORDER },
		{ UPC_HUGE_WITHIN_SIZE, 0, UPC_MAX_ORDER },
		{ UPC_HUGE_ADVISE, 0, 0 },
		{ UPC_HUGE_ADVISE, UPC_SHMEM_HUGE_ADVISED, UPC_MAX_ORDER },
	};
	struct api_env env;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct upc_file *file = api_init(&env, MEM, cases[i].huge,
						 cases[i].flags);

		assert_int_equal(order_after_write(file, 2 * API_MIB),
				 cases[i].order);
		/* The 3 pages after the last aligned 2 MiB: smaller folios. */
		assert_true(api_folio_order(file, 4 * API_MIB, NULL) <= 1);
		api_expect(file, 0, 4 * API_MIB + 3 * API_PAGE, 1);
		api_fini(&env);
	}
}

/* ALWAYS sizes folios from the range; WITHIN_SIZE keeps inside i_size. */
static void test_huge_fallocate(void **state)
{
	struct api_env env;
	struct upc_file *file;

	(void)state;
	file = api_init(&env, MEM, UPC_HUGE_ALWAYS, 0);
	assert_int_equal(upc_fallocate(file, FALLOC_FL_KEEP_SIZE, 2 * API_MIB,
				       2 * API_MIB + 64 * API_PAGE), 0);
	assert_int_equal(api_folio_order(file, 2 * API_MIB, NULL), 9);
	assert_int_equal(api_folio_order(file, 4 * API_MIB, NULL), 6);
	assert_int_equal(upc_size(file), 0);
	assert_int_equal(api_pages_cached(&env), 512 + 64);
	api_fini(&env);

	file = api_init(&env, MEM, UPC_HUGE_WITHIN_SIZE, 0);
	assert_int_equal(upc_fallocate(file, FALLOC_FL_KEEP_SIZE, 0,
				       2 * API_MIB), 0);
	assert_int_equal(api_folio_order(file, 0, NULL), 0);
	assert_int_equal(api_folio_order(file, 2 * API_MIB - 1, NULL), 0);
	assert_int_equal(upc_fallocate(file, 0, 2 * API_MIB, 2 * API_MIB), 0);
	assert_int_equal(api_folio_order(file, 2 * API_MIB, NULL), 9);
	assert_int_equal(api_pages_cached(&env), 1024);
	assert_file_ok(file);
	api_fini(&env);

	file = api_init(&env, MEM, UPC_HUGE_WITHIN_SIZE, UPC_SHMEM_HUGE_ADVISED);
	assert_int_equal(upc_fallocate(file, FALLOC_FL_KEEP_SIZE, 0,
				       2 * API_MIB), 0);
	assert_int_equal(api_folio_order(file, 0, NULL), 9);
	api_fini(&env);
}

/*
 * A write or fallocate that starts before a 2 MiB boundary is cut there,
 * so that the aligned 2 MiB range after it still gets one order-9 folio:
 * pieces are measured from the boundaries, not from where the range
 * starts.
 */
static void test_huge_unaligned_start(void **state)
{
	struct api_env env;
	struct upc_file *file;

	(void)state;
	file = api_init(&env, MEM, UPC_HUGE_ALWAYS, 0);
	api_write_pattern(file, API_HUGE - API_PAGE, API_HUGE + 2 * API_PAGE,
			  3);
	assert_int_equal(api_folio_order(file, API_HUGE - API_PAGE, NULL), 0);
	assert_int_equal(api_folio_order(file, API_HUGE, NULL), UPC_MAX_ORDER);
	assert_int_equal(api_folio_order(file, 2 * API_HUGE, NULL), 0);
	assert_int_equal(api_pages_cached(&env),
			 API_HUGE / API_PAGE + 2);
	api_expect(file, API_HUGE - API_PAGE, API_HUGE + 2 * API_PAGE, 3);
	assert_file_ok(file);

	/* fallocate, from the middle of a 2 MiB range into the next one. */
	assert_int_equal(upc_fallocate(file, FALLOC_FL_KEEP_SIZE,
				       3 * API_HUGE + API_HUGE / 2, API_HUGE),
			 0);
	assert_int_equal(api_folio_order(file, 3 * API_HUGE + API_HUGE / 2,
					 NULL), UPC_MAX_ORDER - 1);
	assert_int_equal(api_folio_order(file, 4 * API_HUGE, NULL),
			 UPC_MAX_ORDER - 1);
	assert_file_ok(file);
	api_fini(&env);
}

/*
 * WITHIN_SIZE compares a folio's end with the size rounded up to a page
 * (tmpfs rounds i_size up before comparing): a size one byte short of
 * 2 MiB still allows the order-9 folio whose last page holds the last
 * byte, and a size one page short of 2 MiB does not: the run that
 * populates the pages before the size stops there.
 */
static void test_huge_within_size_rounds_up(void **state)
{
	const int64_t huge_pages = API_HUGE / API_PAGE;
	struct api_env env;
	struct upc_file *file;

	(void)state;
	file = api_init(&env, MEM, UPC_HUGE_WITHIN_SIZE, 0);
	api_write_pattern(file, 0, API_HUGE - 1, 7);
	assert_int_equal(api_folio_order(file, 0, NULL), UPC_MAX_ORDER);
	assert_int_equal(api_pages_cached(&env), huge_pages);
	api_expect(file, 0, API_HUGE - 1, 7);
	assert_file_ok(file);
	api_fini(&env);

	/* The same through KEEP_SIZE: the size alone decides. */
	file = api_init(&env, MEM, UPC_HUGE_WITHIN_SIZE, 0);
	assert_int_equal(upc_truncate(file, API_HUGE - 1), 0);
	assert_int_equal(upc_fallocate(file, FALLOC_FL_KEEP_SIZE, 0, API_HUGE),
			 0);
	assert_int_equal(api_folio_order(file, 0, NULL), UPC_MAX_ORDER);
	assert_int_equal(upc_size(file), API_HUGE - 1);
	api_fini(&env);

	/*
	 * One page short: the folios stop at the size, the largest that
	 * fit in the 511 pages before it (order 8 first, order 0 last), and
	 * the page past it is order 0 too.
	 */
	file = api_init(&env, MEM, UPC_HUGE_WITHIN_SIZE, 0);
	assert_int_equal(upc_truncate(file, API_HUGE - API_PAGE), 0);
	assert_int_equal(upc_fallocate(file, FALLOC_FL_KEEP_SIZE, 0, API_HUGE),
			 0);
	assert_int_equal(api_folio_order(file, 0, NULL), UPC_MAX_ORDER - 1);
	assert_int_equal(api_folio_order(file, API_HUGE - 2 * API_PAGE, NULL),
			 0);
	assert_int_equal(api_folio_order(file, API_HUGE - API_PAGE, NULL), 0);
	assert_int_equal(api_pages_cached(&env), huge_pages);
	api_fini(&env);
}

/* Partial punches and truncation zero a large folio, they do not split it. */
static void test_huge_partial_free(void **state)
{
	struct api_env env;
	struct upc_file *file;

	(void)state;
	file = api_init(&env, MEM, UPC_HUGE_ALWAYS, 0);
	api_write_pattern(file, 0, 2 * API_MIB, 4);
	assert_int_equal(upc_fallocate(file, FALLOC_FL_PUNCH_HOLE |
				       FALLOC_FL_KEEP_SIZE, API_PAGE,
				       API_PAGE), 0);
	assert_int_equal(api_pages_cached(&env), 512);
	api_expect(file, 0, API_PAGE, 4);
	api_expect(file, API_PAGE, API_PAGE, 0);
	api_expect(file, 2 * API_PAGE, 2 * API_MIB - 2 * API_PAGE, 4);
	assert_int_equal(upc_truncate(file, 3 * API_PAGE + 1), 0);
	assert_int_equal(upc_truncate(file, 2 * API_MIB), 0);
	api_expect(file, 2 * API_PAGE, API_PAGE + 1, 4);
	api_expect(file, 3 * API_PAGE + 1, 2 * API_MIB - 3 * API_PAGE - 1, 0);
	/* The whole folio is data, zeroed parts included. */
	assert_int_equal(upc_seek_hole(file, 0), 2 * API_MIB);
	/* Punching all of it frees it. */
	assert_int_equal(upc_fallocate(file, FALLOC_FL_PUNCH_HOLE |
				       FALLOC_FL_KEEP_SIZE, 0, 2 * API_MIB), 0);
	assert_int_equal(api_pages_cached(&env), 0);
	assert_file_ok(file);
	api_fini(&env);
}

/* ---- spans --------------------------------------------------------------- */

static void test_spans_errors(void **state)
{
	struct upc_span spans[4];
	struct api_env env;
	struct upc_file *file;

	(void)state;
	file = api_init(&env, MEM, UPC_HUGE_NEVER, 0);
	api_write_pattern(file, 0, API_PAGE, 1);
	assert_int_equal(upc_get_spans(NULL, 0, 1, spans, 4), -EBADF);
	assert_int_equal(upc_get_spans(file, -1, 1, spans, 4), -EINVAL);
	assert_int_equal(upc_get_spans(file, 0, 1, NULL, 4), -EINVAL);
	assert_int_equal(upc_get_spans(file, 0, 1, NULL, 0), 0);
	assert_int_equal(upc_get_spans(file, 0, 1, spans, 0), 0);
	assert_int_equal(upc_get_spans(file, 0, 0, spans, 4), 0);
	assert_int_equal(upc_get_spans(file, API_PAGE, 10, spans, 4), 0);
	assert_int_equal(upc_get_spans(file, INT64_MAX, 10, spans, 4), 0);
	upc_put_spans(NULL, 3);
	upc_put_spans(spans, 0);
	api_fini(&env);
}

static void test_spans(void **state)
{
	struct upc_span spans[8];
	struct api_env env;
	struct upc_file *file;
	int nr, i;

	(void)state;
	file = api_init(&env, MEM, UPC_HUGE_NEVER, 0);
	api_write_pattern(file, API_PAGE, 2 * API_PAGE, 5);
	assert_int_equal(upc_fallocate(file, 0, 3 * API_PAGE, 2 * API_PAGE), 0);
	api_write_pattern(file, 6 * API_PAGE + 1, 10, 5);
	/* hole | data | data | unwritten, unwritten, hole | data */
	nr = upc_get_spans(file, 100, SIZE_MAX, spans, 8);
	assert_int_equal(nr, 5);
	assert_null(spans[0].data);
	assert_int_equal(spans[0].offset, 100);
	assert_int_equal(spans[0].len, API_PAGE - 100);
	for (i = 1; i <= 2; i++) {
		const unsigned char *data = spans[i].data;

		assert_non_null(data);
		assert_int_equal(spans[i].offset, i * API_PAGE);
		assert_int_equal(spans[i].len, API_PAGE);
		for (int j = 0; j < API_PAGE; j++)
			assert_int_equal(data[j], api_byte(i * API_PAGE + j, 5));
	}
	assert_null(spans[3].data);
	assert_int_equal(spans[3].offset, 3 * API_PAGE);
	assert_int_equal(spans[3].len, 3 * API_PAGE);
	assert_non_null(spans[4].data);
	assert_int_equal(spans[4].offset, 6 * API_PAGE);
	assert_int_equal(spans[4].len, 11);	/* cut at the end of the file */
	assert_int_equal(((const unsigned char *)spans[4].data)[0], 0);
	assert_int_equal(((const unsigned char *)spans[4].data)[1],
			 api_byte(6 * API_PAGE + 1, 5));

	/* Pinned: punching and truncating free nothing until the put. */
	assert_int_equal(upc_truncate(file, 0), 0);
	assert_int_equal(api_pages_cached(&env), 0);
	assert_int_equal(api_memory_used(&env), 3 * API_PAGE);
	assert_int_equal(((const unsigned char *)spans[2].data)[7],
			 api_byte(2 * API_PAGE + 7, 5));
	upc_put_spans(spans, (unsigned int)nr);
	assert_null(spans[1].folio);
	assert_int_equal(api_memory_used(&env), 0);
	api_fini(&env);
}

/*
 * A page pinned by about a million spans takes no more: -EOVERFLOW when
 * it is the first page with data, the spans before it otherwise.  All
 * put, the pages free as usual.
 */
static void test_spans_pin_overflow(void **state)
{
	const size_t max = 2UL << 20;
	struct upc_span *many = malloc(max * sizeof(*many)), two[2];
	struct api_env env;
	struct upc_file *file;
	size_t nr = 0;
	int ret;

	(void)state;
	assert_non_null(many);
	file = api_init(&env, MEM, UPC_HUGE_NEVER, 0);
	api_write_pattern(file, 0, 3 * API_PAGE, 7);
	while (nr < max &&
	       (ret = upc_get_spans(file, API_PAGE, 1, many + nr, 1)) == 1)
		nr++;
	assert_int_equal(ret, -EOVERFLOW);
	assert_true(nr >= 1UL << 20);
	/* The walk stops at the full page: no span past it either. */
	assert_int_equal(upc_get_spans(file, 0, 3 * API_PAGE, two, 2), 1);
	assert_int_equal(two[0].offset, 0);
	assert_int_equal(two[0].len, API_PAGE);
	upc_put_spans(two, 1);
	upc_put_spans(many, (unsigned int)nr);
	assert_int_equal(upc_get_spans(file, API_PAGE, 1, two, 1), 1);
	assert_int_equal(((const unsigned char *)two[0].data)[0],
			 api_byte(API_PAGE, 7));
	upc_put_spans(two, 1);
	assert_int_equal(upc_truncate(file, 0), 0);
	assert_int_equal(api_memory_used(&env), 0);
	free(many);
	api_fini(&env);
}

/* Few spans at a time: continuing from the end of the last one. */
static void test_spans_continue(void **state)
{
	struct upc_span spans[2];
	struct api_env env;
	struct upc_file *file;
	int64_t pos = 0;
	int nr, calls = 0;

	(void)state;
	file = api_init(&env, MEM, UPC_HUGE_NEVER, 0);
	for (int i = 0; i < 8; i += 2)
		api_write_pattern(file, i * API_PAGE, API_PAGE, 3);
	assert_int_equal(upc_truncate(file, 8 * API_PAGE), 0);
	while ((nr = upc_get_spans(file, pos, SIZE_MAX, spans, 2)) > 0) {
		for (int i = 0; i < nr; i++) {
			bool hole = (pos / API_PAGE) % 2;

			assert_int_equal(spans[i].offset, pos);
			assert_int_equal(spans[i].len, API_PAGE);
			assert_int_equal(spans[i].data == NULL, hole);
			pos += (int64_t)spans[i].len;
		}
		upc_put_spans(spans, (unsigned int)nr);
		calls++;
	}
	assert_int_equal(nr, 0);
	assert_int_equal(pos, 8 * API_PAGE);
	assert_int_equal(calls, 4);
	api_fini(&env);
}

/* Spans still held keep the cache from being destroyed. */
static void test_spans_outlive_close(void **state)
{
	struct upc_span span;
	struct api_env env;
	struct upc_file *file;

	(void)state;
	file = api_init(&env, MEM, UPC_HUGE_ALWAYS, 0);
	api_write_pattern(file, 0, 2 * API_MIB, 9);
	assert_int_equal(upc_get_spans(file, API_PAGE, 1, &span, 1), 1);
	assert_int_equal(span.len, 1);
	assert_int_equal(*(const unsigned char *)span.data,
			 api_byte(API_PAGE, 9));
	assert_int_equal(upc_close(file), 0);
	env.file = NULL;
	assert_int_equal(upc_cache_destroy(env.cache), -EBUSY);
	assert_int_equal(*(const unsigned char *)span.data,
			 api_byte(API_PAGE, 9));
	upc_put_spans(&span, 1);
	api_fini(&env);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cache_create_errors),
		cmocka_unit_test(test_cache_create_enomem),
		cmocka_unit_test(test_cache_destroy),
		cmocka_unit_test(test_cache_default_huge),
		cmocka_unit_test(test_cache_stats),
		cmocka_unit_test(test_shmem_create_errors),
		cmocka_unit_test(test_close),
#ifdef UPC_DEBUG
		cmocka_unit_test(test_destroyed_cache_is_caught),
#endif
		cmocka_unit_test(test_read_write_errors),
		cmocka_unit_test(test_read_write),
		cmocka_unit_test(test_write_adjacent_folios),
		cmocka_unit_test(test_write_marks_use),
		cmocka_unit_test(test_write_enospc),
		cmocka_unit_test(test_readv_writev_errors),
		cmocka_unit_test(test_readv_writev_iov_max),
		cmocka_unit_test(test_readv_writev),
		cmocka_unit_test(test_readv_writev_many),
		cmocka_unit_test(test_fallocate_errors),
		cmocka_unit_test(test_fallocate),
		cmocka_unit_test(test_fallocate_enospc_undoes),
		cmocka_unit_test(test_punch_hole),
		cmocka_unit_test(test_truncate),
		cmocka_unit_test(test_seek),
		cmocka_unit_test(test_huge_policies),
		cmocka_unit_test(test_huge_fallocate),
		cmocka_unit_test(test_huge_unaligned_start),
		cmocka_unit_test(test_huge_within_size_rounds_up),
		cmocka_unit_test(test_huge_partial_free),
		cmocka_unit_test(test_spans_errors),
		cmocka_unit_test(test_spans),
		cmocka_unit_test(test_spans_pin_overflow),
		cmocka_unit_test(test_spans_continue),
		cmocka_unit_test(test_spans_outlive_close),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
