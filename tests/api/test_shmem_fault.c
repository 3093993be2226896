// SPDX-License-Identifier: MIT
/*
 * tests/api/test_shmem_fault.c - writes and fallocate with allocations
 * failing (lib/fault.h) and with the cache's memory running out.
 *
 * Each scenario builds the same file (data, unwritten folios, holes,
 * large folios with huge=always), arms the fault injector to fail the
 * n-th allocation (folio or index node) of one operation, for n = 1, 2,
 * ... until the operation makes no n-th allocation, and then checks that
 * the file is exactly what the reported result says:
 *   - a write that reports k bytes wrote exactly the first k, grew the
 *     size to cover them and changed nothing else; -ENOSPC or -ENOMEM
 *     means nothing changed;
 *   - a fallocate that fails leaves the size, the bytes and the memory
 *     held as they were (what it allocated is freed again).
 * After every run the mapping passes upc_check_mapping() and closing
 * the file gives all memory back (upc_cache_stats() memory_used 0) with
 * no XArray node left allocated.
 *
 * A single injected failure is usually absorbed by a retry (the grab's
 * slow path); the runs where the caller saw it (a short count or an
 * error) are counted and printed.  The memory-limit scenarios make
 * writes short and fallocate fail for real.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <linux/falloc.h>
#include <sys/uio.h>

#include <upcache/stats.h>

#include "api_helpers.h"
#include "fault.h"

#define FT_MODEL	(12 * API_MIB)

struct ft_state {
	unsigned char *model;
	int64_t size;
	uint64_t pages;
	unsigned long seen;	/* runs whose caller saw the failure */
	unsigned long injected;	/* runs with a failure injected */
};

static struct ft_state ft;

/* This thread's XArray nodes allocated and not (yet) freed. */
static int64_t ft_nodes_live(void)
{
	struct upc_thread_stats s;

	upc_stats_thread(&s);
	return (int64_t)s.xa_node_allocs - (int64_t)s.xa_node_frees;
}

/*
 * The file every run starts from: data with a hole in it, unwritten
 * folios, a large folio; mirrored in ft.model.
 */
static struct upc_file *ft_build(struct api_env *env, size_t limit,
				 enum upc_huge huge)
{
	struct upc_file *file = api_init(env, limit, huge, 0);

	memset(ft.model, 0, FT_MODEL);
	api_write_pattern(file, 0, 2 * API_MIB, 1);
	api_fill(ft.model, 2 * API_MIB, 0, 1);
	assert_int_equal(upc_fallocate(file, FALLOC_FL_PUNCH_HOLE |
				       FALLOC_FL_KEEP_SIZE, 300 * API_PAGE,
				       20 * API_PAGE), 0);
	memset(ft.model + 300 * API_PAGE, 0, 20 * API_PAGE);
	assert_int_equal(upc_fallocate(file, 0, 3 * API_MIB, 100 * API_PAGE), 0);
	api_write_pattern(file, 3 * API_MIB + 50 * API_PAGE + 7, 9, 2);
	api_fill(ft.model + 3 * API_MIB + 50 * API_PAGE + 7, 9,
		 3 * API_MIB + 50 * API_PAGE + 7, 2);
	ft.size = 3 * API_MIB + 100 * API_PAGE;
	assert_int_equal(upc_size(file), ft.size);
	ft.pages = api_pages_cached(env);
	return file;
}

/* The whole file matches the model, and its size. */
static void ft_check(struct upc_file *file)
{
	unsigned char *buf = malloc(FT_MODEL);

	assert_non_null(buf);
	assert_int_equal(upc_size(file), ft.size);
	assert_int_equal(upc_read(file, buf, FT_MODEL, 0), ft.size);
	if (memcmp(buf, ft.model, (size_t)ft.size)) {
		int64_t i;

		for (i = 0; buf[i] == ft.model[i]; i++)
			;
		fail_msg("byte %" PRId64 ": %#x, expected %#x", i, buf[i],
			 ft.model[i]);
	}
	free(buf);
	assert_file_ok(file);
}

/* Close, and check that nothing leaked. */
static void ft_finish(struct api_env *env, int64_t nodes0)
{
	api_fini(env);
	assert_int_equal(ft_nodes_live() - nodes0, 0);
}

static void ft_report(void)
{
	fprintf(stderr, "# %lu runs with a failure injected, %lu of them seen "
		"by the caller (the others absorbed by a retry)\n",
		ft.injected, ft.seen);
	ft.injected = 0;
	ft.seen = 0;
}

/* ---- writes -------------------------------------------------------------- */

/* Apply a write's reported result @ret (of @len at @pos) to the model. */
static void ft_apply_write(ssize_t ret, int64_t pos, size_t len,
			   unsigned int seed)
{
	if (ret < 0) {
		assert_true(ret == -ENOSPC || ret == -ENOMEM);
		ft.seen++;
		return;
	}
	assert_true((size_t)ret <= len);
	if ((size_t)ret < len)
		ft.seen++;
	api_fill(ft.model + pos, (size_t)ret, pos, seed);
	if (ret && pos + ret > ft.size)
		ft.size = pos + ret;
}

/* One operation on a fresh copy of the file; @arg says which. */
struct ft_op {
	void (*run)(struct api_env *env, struct upc_file *file,
		    const struct ft_op *op);
	enum upc_huge huge;
	size_t limit;
	int mode;		/* fallocate */
	int64_t pos;
	size_t len;
	bool vector;		/* writes: through upc_writev() */
	unsigned char *src;	/* writes: the bytes */
};

/*
 * Run @op on a fresh file with allocation @n failing (0: none).
 * Return: the number of allocations the operation attempted, and
 * whether the injector fired in *@injected.
 */
static unsigned long ft_run(const struct ft_op *op, unsigned long n,
			    bool *injected)
{
	int64_t nodes0 = ft_nodes_live();
	unsigned long attempts;
	struct upc_file *file;
	struct api_env env;

	file = ft_build(&env, op->limit, op->huge);
	/* Armed with a huge n, the injector only counts the attempts. */
	upc_fault_fail_nth(n ? n : ULONG_MAX);
	op->run(&env, file, op);
	attempts = upc_fault_attempts();
	*injected = upc_fault_injected();
	upc_fault_fail_nth(0);
	ft_finish(&env, nodes0);
	return attempts;
}

/*
 * Fail each allocation of @op in turn: every one of the first 16, then
 * about 48 spread over the rest (a 3 MiB write makes hundreds).
 */
static void ft_fail_each(const struct ft_op *op)
{
	bool injected;
	unsigned long total = ft_run(op, 0, &injected), n, step;

	assert_true(total > 0);
	step = total / 48 ? total / 48 : 1;
	for (n = 1; n <= total; n += n < 16 ? 1 : step) {
		ft_run(op, n, &injected);
		assert_true(injected);
		ft.injected++;
	}
}

static void ft_do_write(struct api_env *env, struct upc_file *file,
			const struct ft_op *op)
{
	size_t len = op->len;
	ssize_t ret;

	(void)env;
	if (op->vector) {
		struct iovec iov[3] = {
			{ op->src, len / 3 }, { op->src + len / 3, 1 },
			{ op->src + len / 3 + 1, len - len / 3 - 1 },
		};

		ret = upc_writev(file, iov, 3, op->pos);
	} else {
		ret = upc_write(file, op->src, len, op->pos);
	}
	ft_apply_write(ret, op->pos, len, 9);
	ft_check(file);
}

static void ft_write_runs(enum upc_huge huge, size_t limit, int64_t pos,
			  size_t len, bool vector)
{
	struct ft_op op = {
		.run = ft_do_write, .huge = huge, .limit = limit,
		.pos = pos, .len = len, .vector = vector,
	};

	op.src = malloc(len);
	assert_non_null(op.src);
	api_fill(op.src, len, pos, 9);
	ft_fail_each(&op);
	free(op.src);
}

static void test_fault_write_small(void **state)
{
	(void)state;
	/* Over data, the punched hole, past it: order-0 folios. */
	ft_write_runs(UPC_HUGE_NEVER, 64UL << 20, 290 * API_PAGE + 5,
		      40 * API_PAGE, false);
	/* A fresh region: many index nodes, two grab runs. */
	ft_write_runs(UPC_HUGE_NEVER, 64UL << 20, 5 * API_MIB - 3,
		      3 * API_MIB, false);
	/* Into unwritten folios and past the end of the file. */
	ft_write_runs(UPC_HUGE_NEVER, 64UL << 20, 3 * API_MIB + 90 * API_PAGE,
		      30 * API_PAGE + 3, true);
	ft_report();
}

static void test_fault_write_huge(void **state)
{
	(void)state;
	/* An aligned 2 MiB range (order 9) and smaller ones around it. */
	ft_write_runs(UPC_HUGE_ALWAYS, 64UL << 20, 4 * API_MIB - 3 * API_PAGE,
		      2 * API_MIB + 7 * API_PAGE, false);
	ft_report();
}

/* The cache fills up part-way: a short write, then -ENOSPC. */
static void test_fault_write_limit(void **state)
{
	size_t len = 4 * API_MIB;
	unsigned char *src = malloc(len);
	int64_t nodes0 = ft_nodes_live();
	struct upc_file *file;
	struct api_env env;
	ssize_t ret;

	(void)state;
	assert_non_null(src);
	file = ft_build(&env, 4 * API_MIB, UPC_HUGE_ALWAYS);
	api_fill(src, len, 5 * API_MIB + 1, 4);
	ret = upc_write(file, src, len, 5 * API_MIB + 1);
	assert_true(ret > 0 && (size_t)ret < len);
	ft_apply_write(ret, 5 * API_MIB + 1, len, 4);
	assert_int_equal(upc_write(file, src, 1, 10 * API_MIB), -ENOSPC);
	ft_check(file);
	assert_int_equal(api_memory_used(&env), 4 * API_MIB);
	ft_finish(&env, nodes0);
	free(src);
}

/* ---- fallocate ----------------------------------------------------------- */

/* A failed fallocate changed nothing the caller can see but seeks. */
static void ft_falloc_check(struct api_env *env, struct upc_file *file,
			    int ret, int mode, int64_t pos, int64_t len)
{
	if (ret) {
		assert_true(ret == -ENOSPC || ret == -ENOMEM);
		assert_int_equal(api_pages_cached(env), ft.pages);
		ft.seen++;
	} else if (!(mode & FALLOC_FL_KEEP_SIZE) && pos + len > ft.size) {
		ft.size = pos + len;
	}
	ft_check(file);
}

static void ft_do_falloc(struct api_env *env, struct upc_file *file,
			 const struct ft_op *op)
{
	ft_falloc_check(env, file,
			upc_fallocate(file, op->mode, op->pos, (int64_t)op->len),
			op->mode, op->pos, (int64_t)op->len);
}

static void ft_falloc_runs(enum upc_huge huge, int mode, int64_t pos,
			   int64_t len)
{
	struct ft_op op = {
		.run = ft_do_falloc, .huge = huge, .limit = 64UL << 20,
		.mode = mode, .pos = pos, .len = (size_t)len,
	};

	ft_fail_each(&op);
}

static void test_fault_fallocate(void **state)
{
	(void)state;
	ft_falloc_runs(UPC_HUGE_NEVER, 0, 3 * API_MIB - 5 * API_PAGE,
		      200 * API_PAGE);
	ft_falloc_runs(UPC_HUGE_NEVER, FALLOC_FL_KEEP_SIZE, 4 * API_MIB + 1,
		      30 * API_PAGE);
	ft_falloc_runs(UPC_HUGE_NEVER, FALLOC_FL_KEEP_SIZE, 5 * API_MIB,
		      3 * API_MIB);
	ft_falloc_runs(UPC_HUGE_ALWAYS, 0, 2 * API_MIB - API_PAGE,
		      4 * API_MIB + 2 * API_PAGE);
	ft_report();
}

/* The cache fills up part-way: -ENOSPC, and everything is undone. */
static void test_fault_fallocate_limit(void **state)
{
	int64_t nodes0 = ft_nodes_live();
	struct upc_file *file;
	struct api_env env;
	uint64_t used;

	(void)state;
	file = ft_build(&env, 4 * API_MIB, UPC_HUGE_ALWAYS);
	used = api_memory_used(&env);
	ft_falloc_check(&env, file,
			upc_fallocate(file, 0, 4 * API_MIB, 3 * API_MIB),
			0, 4 * API_MIB, 3 * API_MIB);
	assert_int_equal(api_memory_used(&env), used);
	/* Over the unwritten folios too: they become data, the rest goes. */
	ft_falloc_check(&env, file,
			upc_fallocate(file, FALLOC_FL_KEEP_SIZE, 3 * API_MIB,
				      3 * API_MIB),
			FALLOC_FL_KEEP_SIZE, 3 * API_MIB, 3 * API_MIB);
	assert_int_equal(api_memory_used(&env), used);
	assert_int_equal(upc_seek_data(file, 2 * API_MIB + 1), 3 * API_MIB);
	ft_finish(&env, nodes0);
}

static int ft_setup(void **state)
{
	(void)state;
	ft.model = malloc(FT_MODEL);
	return ft.model ? 0 : -1;
}

static int ft_teardown(void **state)
{
	(void)state;
	upc_fault_fail_nth(0);
	free(ft.model);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fault_write_small),
		cmocka_unit_test(test_fault_write_huge),
		cmocka_unit_test(test_fault_write_limit),
		cmocka_unit_test(test_fault_fallocate),
		cmocka_unit_test(test_fault_fallocate_limit),
	};

	return cmocka_run_group_tests(tests, ft_setup, ft_teardown);
}
