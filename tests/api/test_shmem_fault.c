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
 *
 * The swap scenarios (the shmem analogue of tests/api/test_anon_fault.c)
 * go through a file's whole life with swap on: a second file, fallocated
 * and never written, pins most of a 2 MiB cache (its folios hold no
 * data, so reclaim leaves them), and the file is two and a half times
 * the memory left.  Swap on, create the file, write it in odd-sized
 * pieces (reclaim swaps the older pages out), read it back (swap-in,
 * and reclaim to make room), also through spans, fallocate over part of
 * it, punch a hole and truncate, both ending inside pages found in swap
 * (they are swapped in to be zeroed in part; the unarmed run must find
 * such pages), and read it all again.  One test fails the n-th
 * allocation for n = 1, 2, 3 ... until the scenario makes fewer than n,
 * so every allocation point along the way fails once; the other makes
 * the failure stick from the n-th on (upc_fault_fail_from()), so the
 * retries that absorb a single failure fail too.  Whatever fails:
 *   - every call returns success, a short count, or the error its
 *     documentation gives for memory running out: -ENOSPC or -ENOMEM
 *     for writes and fallocate, -ENOMEM for the rest (swap is in
 *     memory: never -EIO); a failed swapon, create, punch or truncate
 *     is retried while one failure is injected, as a program would;
 *   - a model records what each call reports done, and every read must
 *     match it; once the injector is disarmed the whole file reads back
 *     as the model says, and upc_check_mapping() and upc_check_swap()
 *     accept the file and the device;
 *   - after both files are closed no swap slot and no memory is in use,
 *     and once the cache is gone no XArray node is left allocated.
 *
 * The large swap scenarios run the same two loops over a file with
 * huge=always in a 4 MiB cache: write an order-9 folio, order-4 and
 * order-3 ones and small ones, and another order-9 one; a second file
 * then writes as much as the cache holds (two order-9 folios) and is
 * truncated again, which pushes them all to swap whole.  Read inside
 * the order-9 and order-4 entries (swapped in whole; with their
 * allocation failing, the entry is split and the page comes back
 * alone), take spans there, push, write into the order-9 entry, push,
 * fallocate over the order-4 and order-3 entries, punch with both ends
 * inside pages of the order-9 entry (split, the edge pages swapped in
 * to be zeroed in part), punch with page-aligned ends inside the other
 * order-9 entry (split only), truncate to a page boundary inside a
 * piece of it, and to inside a page of a piece of the first, and read
 * it all again.  The unarmed run must find each of those places in a
 * large swap entry, and the order-9 and order-4 folios back whole after
 * the reads.  The rules are those above, and in the
 * single-failure loop the whole file is also read back and compared
 * with the model, and the checkers run, right after every call that
 * reported a failure.  Every check of the file also requires that no
 * two of its swap entries name the same slot (api_assert_swap_unshared()).
 *
 * A last test needs no injector: with the cache's memory cut into single
 * pages by a fallocated file, no folio above order 0 can be had, so
 * every large entry a read, a write, a punch or a truncation meets is
 * split and its pages come back one by one; the file must still read
 * back as the model.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <linux/falloc.h>
#include <sys/uio.h>

#include <upcache/rcu.h>
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

/*
 * A failure that sticks in the middle of a grab run: the grab inserts
 * what it can, and a slot whose tree node it cannot allocate is a gap
 * that the retry cannot fill either.  The run [60, 71) starts in pages
 * with no leaf node yet (0..63) and goes on into a leaf that exists
 * (for page 100), so the folios past the gap went in without needing
 * memory.  Whatever the grab created past the gap must leave the file
 * again: a failed fallocate gives back all it allocated, and a short
 * write holds only the pages it wrote.  Before the fix those folios
 * stayed in the cache, unwritten, for 14 of the failure points.
 */
static void ft_grab_gap_run(enum upc_huge huge, bool write)
{
	const int64_t pos = 60 * API_PAGE, len = 11 * API_PAGE;
	static unsigned char buf[11 * API_PAGE];
	unsigned long n, seen = 0;

	memset(buf, 'a', sizeof(buf));
	for (n = 1; n < 40; n++) {
		struct upc_file *file;
		struct api_env env;
		uint64_t used, want;
		int64_t ret;

		file = api_init(&env, 16 * API_MIB, huge, 0);
		assert_int_equal(upc_write(file, "x", 1, 100 * API_PAGE), 1);
		used = api_memory_used(&env);
		upc_fault_fail_from(n);
		ret = write ? upc_write(file, buf, sizeof(buf), pos) :
			      upc_fallocate(file, FALLOC_FL_KEEP_SIZE, pos, len);
		upc_fault_fail_nth(0);
		if (write)
			want = used + (ret > 0 ? ((uint64_t)ret + API_PAGE - 1) /
					 API_PAGE * API_PAGE : 0);
		else
			want = used + (ret ? 0 : (uint64_t)len);
		seen += write ? ret < len : ret != 0;
		assert_int_equal(api_memory_used(&env), want);
		api_fini(&env);
	}
	/* Some failure points must have reached the caller. */
	assert_true(seen > 0);
}

static void test_fault_grab_gap_gives_back(void **state)
{
	(void)state;
	ft_grab_gap_run(UPC_HUGE_NEVER, false);
	ft_grab_gap_run(UPC_HUGE_NEVER, true);
	ft_grab_gap_run(UPC_HUGE_ALWAYS, false);
	ft_grab_gap_run(UPC_HUGE_ALWAYS, true);
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

/* ---- with swap --------------------------------------------------------- */

#define SW_LIMIT	(2 * API_MIB)
/* Fallocated, never written: pinned in memory, 64 pages are left. */
#define SW_PINNED	(SW_LIMIT - 64 * API_PAGE)
#define SW_FILE		(160 * API_PAGE)
#define SW_SWAP		(2 * API_MIB)
#define SW_PIECE	(5 * API_PAGE + 123)	/* pieces straddle pages */
#define SW_FALLOC_POS	(100 * API_PAGE)
#define SW_FALLOC_LEN	(16 * API_PAGE)
#define SW_MAX_NTH	100000

/*
 * The model, the bytes written, and a buffer for reading (the pinning
 * file is the largest thing read), allocated once: a failed assertion
 * leaves no allocation behind.
 */
static unsigned char *sw_model, *sw_data, *sw_buf;
_Static_assert(SW_PINNED >= SW_FILE, "sw_buf holds the file too");

struct sw_kind;

/* What the runs saw, over one test. */
struct sw_counts {
	const struct sw_kind *kind;	/* the scenario */
	unsigned long runs;
	unsigned long seen;	/* a call reported the failure */
	unsigned long swapouts;	/* pages swapped out, all runs */
	unsigned long swapins;	/* and back in */
};

/* One run: the files, the model, and whether a failure may be retried. */
struct sw_run {
	struct api_env env;	/* the cache, and the pinning file */
	struct upc_file *file;	/* the file under test */
	unsigned char *model;
	unsigned char *data;	/* what is written: pattern 5 */
	int64_t size;
	unsigned long n;	/* the allocation the injector fails */
	bool retry;		/* one failure injected: a retry succeeds */
	bool swap;		/* upc_swapon() succeeded */
	unsigned int missed;	/* sw_pick() found no page in swap */
	struct sw_counts *c;
	const struct upc_shmem_options *opts;	/* of the file under test */
	uint64_t swap_size;
};

/* A call reported a failure: @ret must be one of @ok1 and @ok2. */
static void sw_seen(struct sw_run *r, const char *what, long ret, int ok1,
		    int ok2)
{
	if (ret < 0 && ret != ok1 && ret != ok2)
		fail_msg("%s returned %ld", what, ret);
	r->c->seen++;
}

/* Write the file in pieces; the model takes what each reports. */
static void sw_write(struct sw_run *r)
{
	for (int64_t pos = 0; pos < SW_FILE; pos += SW_PIECE) {
		size_t len = SW_FILE - pos < SW_PIECE ? (size_t)(SW_FILE - pos) :
							SW_PIECE;
		ssize_t ret = upc_write(r->file, r->data + pos, len, pos);

		if (ret < 0 || (size_t)ret < len)
			sw_seen(r, "write", ret, -ENOSPC, -ENOMEM);
		if (ret > 0) {
			memcpy(r->model + pos, r->data + pos, (size_t)ret);
			if (pos + ret > r->size)
				r->size = pos + ret;
		}
	}
}

/* Read [@pos, @pos + @len) and compare; return how much was read. */
static size_t sw_read_piece(struct sw_run *r, unsigned char *buf, int64_t pos,
			    size_t len)
{
	ssize_t ret = upc_read(r->file, buf, len, pos);

	if (ret < 0 || (size_t)ret < len)
		sw_seen(r, "read", ret, -ENOMEM, -ENOMEM);
	if (ret <= 0)
		return 0;
	if (memcmp(buf, r->model + pos, (size_t)ret))
		fail_msg("read at %" PRId64 " differs from the model", pos);
	return (size_t)ret;
}

/*
 * Read the file back in pieces up to its size; a piece cut short is
 * finished by a retry when only one failure is injected.
 */
static void sw_read(struct sw_run *r)
{
	unsigned char *buf = sw_buf;

	assert_int_equal(upc_size(r->file), r->size);
	for (int64_t pos = 0; pos < r->size; pos += SW_PIECE) {
		size_t len = r->size - pos < SW_PIECE ? (size_t)(r->size - pos) :
							SW_PIECE;
		size_t got = sw_read_piece(r, buf, pos, len);

		if (got < len && r->retry) {
			unsigned long seen = r->c->seen;

			got += sw_read_piece(r, buf, pos + (int64_t)got,
					     len - got);
			assert_int_equal(r->c->seen, seen);
			assert_int_equal(got, len);
		}
	}
}

/* Pin the middle of the file with spans and compare what they hold. */
static void sw_spans(struct sw_run *r)
{
	struct upc_span spans[16];
	int64_t pos = 30 * API_PAGE + 5;
	int nr = upc_get_spans(r->file, pos, 12 * API_PAGE, spans, 16);

	if (nr < 0) {
		sw_seen(r, "get_spans", nr, -ENOMEM, -ENOMEM);
		return;
	}
	for (int s = 0; s < nr; s++) {
		assert_int_equal(spans[s].offset, pos);
		if (spans[s].data)
			assert_memory_equal(spans[s].data, r->model + pos,
					    spans[s].len);
		else
			api_check_pattern(r->model + pos, pos, spans[s].len, 0);
		pos += (int64_t)spans[s].len;
	}
	upc_put_spans(spans, (unsigned int)nr);
}

/*
 * Fallocate over data, some of it in swap, and over any hole a failed
 * write left: the bytes do not change whatever happens, nor the size
 * (FALLOC_FL_KEEP_SIZE).
 */
static void sw_fallocate(struct sw_run *r)
{
	int err = upc_fallocate(r->file, FALLOC_FL_KEEP_SIZE, SW_FALLOC_POS,
				SW_FALLOC_LEN);

	if (err)
		sw_seen(r, "fallocate", err, -ENOSPC, -ENOMEM);
}

/* Is page @pos of @file in swap (a value entry where its folio was)? */
static bool sw_in_swap(struct upc_file *file, int64_t pos)
{
	void *entry = filemap_get_entry(upc_file_mapping(file),
					(pgoff_t)pos >> UPC_PAGE_SHIFT);

	if (entry && !xa_is_value(entry))
		folio_put(entry);
	return entry && xa_is_value(entry);
}

/*
 * The first page in [@lo, @hi) that is in swap, so that an operation
 * ending inside it must swap it in; @lo if none is (noted in @r: the
 * unarmed run requires one).
 */
static int64_t sw_pick(struct sw_run *r, int64_t lo, int64_t hi)
{
	for (int64_t p = lo; p < hi; p++)
		if (sw_in_swap(r->file, p * API_PAGE))
			return p;
	r->missed++;
	return lo;
}

/*
 * Punch a hole that starts and ends inside pages in swap; one that
 * failed changed nothing, and is retried.
 */
static void sw_punch(struct sw_run *r)
{
	int mode = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;
	int64_t pos = sw_pick(r, 20, 60) * API_PAGE + 100;
	int64_t end = sw_pick(r, 64, 110) * API_PAGE + 1900;
	int err = upc_fallocate(r->file, mode, pos, end - pos);

	if (err) {
		sw_seen(r, "punch", err, -ENOMEM, -ENOMEM);
		if (!r->retry)
			return;
		assert_int_equal(upc_fallocate(r->file, mode, pos, end - pos),
				 0);
	}
	if (end > r->size)
		end = r->size;
	if (pos < end)
		memset(r->model + pos, 0, (size_t)(end - pos));
}

/*
 * Truncate to inside a page in swap; one that failed changed nothing,
 * and is retried.
 */
static void sw_truncate(struct sw_run *r)
{
	int64_t size = sw_pick(r, 112, SW_FILE / API_PAGE) * API_PAGE + 777;
	int err = upc_truncate(r->file, size);

	if (err) {
		sw_seen(r, "truncate", err, -ENOMEM, -ENOMEM);
		if (!r->retry)
			return;
		assert_int_equal(upc_truncate(r->file, size), 0);
	}
	if (r->size > size)
		memset(r->model + size, 0, (size_t)(r->size - size));
	r->size = size;
}

/* upc_swapon(); a failure is retried when a retry must succeed. */
static void sw_swapon(struct sw_run *r)
{
	struct upc_swap_config cfg = { .size = r->swap_size };
	int err = upc_swapon(r->env.cache, &cfg);

	r->swap = !err;
	if (!err)
		return;
	sw_seen(r, "swapon", err, -ENOMEM, -ENOMEM);
	assert_int_equal(upc_swapoff(r->env.cache), -EINVAL);
	if (r->retry) {
		assert_int_equal(upc_swapon(r->env.cache, &cfg), 0);
		r->swap = true;
	}
}

/* upc_shmem_create(); the same. */
static void sw_create(struct sw_run *r)
{
	int err = upc_shmem_create(r->env.cache, r->opts, &r->file);

	if (!err)
		return;
	sw_seen(r, "create", err, -ENOMEM, -ENOMEM);
	assert_null(r->file);
	if (r->retry)
		assert_int_equal(upc_shmem_create(r->env.cache, r->opts,
						  &r->file), 0);
}

/* The whole life of the file, armed; every step takes what it can. */
static void sw_scenario(struct sw_run *r)
{
	sw_swapon(r);
	sw_create(r);
	if (!r->file)
		return;
	sw_write(r);
	sw_read(r);
	sw_spans(r);
	sw_fallocate(r);
	sw_punch(r);
	sw_truncate(r);
	sw_read(r);
}

/*
 * The file under test reads back whole as the model, through @buf of
 * @max bytes (the model's size), and upc_check_mapping() accepts it.
 * Only once no failure can come: disarmed, or the one failure injected.
 */
static void sw_verify_file(struct sw_run *r, unsigned char *buf, size_t max)
{
	struct upc_cache_stats st;
	ssize_t got;

	assert_int_equal(upc_size(r->file), r->size);
	got = upc_read(r->file, buf, max, 0);
	if (got != r->size) {
		assert_int_equal(upc_cache_stats(r->env.cache, &st), 0);
		fail_msg("failing allocation %lu%s: once no failure could "
			 "come, the read stopped at %zd of %" PRId64 " (then "
			 "%zd); memory %" PRIu64 " of %" PRIu64 " pages, swap "
			 "%" PRIu64 " of %" PRIu64, r->n,
			 r->retry ? "" : " and on", got, r->size,
			 got >= 0 ? upc_read(r->file, buf, 1, got) : 0,
			 st.memory_used / API_PAGE, st.memory_limit / API_PAGE,
			 st.swap_used / API_PAGE, st.swap_total / API_PAGE);
	}
	if (memcmp(buf, r->model, (size_t)r->size)) {
		int64_t i;

		for (i = 0; buf[i] == r->model[i]; i++)
			;
		fail_msg("failing allocation %lu%s: byte %" PRId64 ": %#x, "
			 "expected %#x", r->n, r->retry ? "" : " and on", i,
			 buf[i], r->model[i]);
	}
	assert_file_ok(r->file);
	api_assert_swap_unshared(r->file);
}

/*
 * struct sw_kind - one swap scenario for the loops below.
 * @name: For the tally.
 * @limit: The cache's memory.
 * @swap: Bytes of swap in memory.
 * @opts: Options of the file under test (NULL: the defaults).
 * @file_max: Bytes of its model (and of the buffers).
 * @model: The model; @data: what is written; @buf: a buffer to read into.
 * @setup: Before arming: the second file (r->env.file) and whatever the
 *	scenario starts from.
 * @scenario: Armed.
 * @check_second: Disarmed: the second file is as it should be.
 */
struct sw_kind {
	const char *name;
	size_t limit;
	uint64_t swap;
	const struct upc_shmem_options *opts;
	size_t file_max;
	unsigned char **model, **data, **buf;
	void (*setup)(struct sw_run *r);
	void (*scenario)(struct sw_run *r);
	void (*check_second)(struct sw_run *r);
};

/*
 * Disarmed: the file reads back as the model, the checkers accept it
 * and the device, and closing everything frees every slot and page.
 */
static void sw_verify_and_close(struct sw_run *r)
{
	const struct sw_kind *k = r->c->kind;
	struct upc_cache_stats st;

	if (r->file)
		sw_verify_file(r, *k->buf, k->file_max);
	if (r->swap)
		assert_int_equal(upc_check_swap(r->env.cache->swap), 0);
	assert_int_equal(upc_cache_stats(r->env.cache, &st), 0);
	r->c->swapouts += st.swapouts;
	r->c->swapins += st.swapins;
	if (r->file)
		assert_int_equal(upc_close(r->file), 0);
	r->file = NULL;
	k->check_second(r);
	assert_file_ok(r->env.file);
	assert_int_equal(upc_close(r->env.file), 0);
	r->env.file = NULL;
	assert_int_equal(upc_cache_stats(r->env.cache, &st), 0);
	assert_int_equal(st.swap_used, 0);
	assert_int_equal(st.memory_used, 0);
	assert_int_equal(upc_swapoff(r->env.cache), r->swap ? 0 : -EINVAL);
	api_fini(&r->env);
}

/* The small scenario's second file: fallocated, pins most of the cache. */
static void sw_setup(struct sw_run *r)
{
	assert_int_equal(upc_shmem_create(r->env.cache, NULL, &r->env.file), 0);
	assert_int_equal(upc_fallocate(r->env.file, 0, 0, SW_PINNED), 0);
}

/* The pinning file still reads as zeros. */
static void sw_check_pinning(struct sw_run *r)
{
	assert_int_equal(upc_read(r->env.file, sw_buf, SW_PINNED, 0),
			 SW_PINNED);
	api_check_pattern(sw_buf, 0, SW_PINNED, 0);
}

static const struct sw_kind sw_small = {
	.name = "swap", .limit = SW_LIMIT, .swap = SW_SWAP,
	.file_max = SW_FILE, .model = &sw_model, .data = &sw_data,
	.buf = &sw_buf, .setup = sw_setup, .scenario = sw_scenario,
	.check_second = sw_check_pinning,
};

/* ---- large folios through swap ------------------------------------------ */

#define HS_LIMIT	(4 * API_MIB)
#define HS_SWAP		(32 * API_MIB)
#define HS_FILE		(6 * API_MIB)
#define HS_A		0			/* order 9 */
#define HS_B		(2 * API_MIB)		/* order 4 */
#define HS_C		(HS_B + 64 * 1024)	/* order 3 */
#define HS_D		(HS_C + 32 * 1024 + 5)	/* small ones */
#define HS_E		(4 * API_MIB)		/* order 9 */

static unsigned char *hs_model, *hs_data, *hs_buf, *hs_push_buf;

static const struct upc_shmem_options hs_opts = { .huge = UPC_HUGE_ALWAYS };

/*
 * A call reported a failure (sw_seen()).  With one failure injected, and
 * so none to come, the file must read back as the model right away, and
 * the checkers must accept the file and the device.
 */
static void hs_seen(struct sw_run *r, const char *what, long ret, int ok1,
		    int ok2)
{
	sw_seen(r, what, ret, ok1, ok2);
	if (!r->retry)
		return;
	sw_verify_file(r, hs_buf, HS_FILE);
	if (r->swap)
		assert_int_equal(upc_check_swap(r->env.cache->swap), 0);
}

/* Write [@pos, @pos + @len) of the data; the model takes what is reported. */
static void hs_write(struct sw_run *r, int64_t pos, size_t len)
{
	ssize_t ret = upc_write(r->file, r->data + pos, len, pos);

	if (ret > 0) {
		memcpy(r->model + pos, r->data + pos, (size_t)ret);
		if (pos + ret > r->size)
			r->size = pos + ret;
	}
	if (ret < 0 || (size_t)ret < len)
		hs_seen(r, "write", ret, -ENOSPC, -ENOMEM);
}

/* Read [@pos, @pos + @len) and compare; a short one is finished by a retry. */
static void hs_read(struct sw_run *r, int64_t pos, size_t len)
{
	size_t got = sw_read_piece(r, hs_buf, pos, len);

	if (got < len && r->retry) {
		sw_verify_file(r, hs_buf, HS_FILE);
		assert_int_equal(sw_read_piece(r, hs_buf, pos + (int64_t)got,
					       len - got), len - got);
	}
}

/*
 * Push everything to swap: the second file writes as much as the cache
 * holds, then gives it back.  Its bytes are not looked at.
 */
static void hs_push(struct sw_run *r)
{
	ssize_t ret = upc_write(r->env.file, hs_push_buf, HS_LIMIT, 0);
	int err;

	if (ret != HS_LIMIT)
		hs_seen(r, "write", ret, -ENOSPC, -ENOMEM);
	err = upc_truncate(r->env.file, 0);
	if (err)
		hs_seen(r, "truncate", err, -ENOMEM, -ENOMEM);
}

/*
 * Is page @pos of the file covered by a swap entry of order > 0?  Noted
 * in @r if not: the unarmed run requires it.
 */
static void hs_expect_large(struct sw_run *r, int64_t pos)
{
	XA_STATE(xas, &upc_file_mapping(r->file)->i_pages,
		 (pgoff_t)pos >> UPC_PAGE_SHIFT);
	void *entry;
	int order = 0;

	rcu_read_lock();
	do {
		entry = xas_load(&xas);
	} while (xas_retry(&xas, entry));
	if (xa_is_value(entry))
		order = xas_get_order(&xas);
	rcu_read_unlock();
	if (!order)
		r->missed++;
}

/*
 * Is page @pos of the file in a folio of @order (swapped in whole)?
 * Noted in @r if not: the unarmed run requires it.
 */
static void hs_expect_whole(struct sw_run *r, int64_t pos, int order)
{
	if (api_folio_order(r->file, pos, NULL) != order)
		r->missed++;
}

/* Punch [@pos, @end); one that failed changed nothing, and is retried. */
static void hs_punch(struct sw_run *r, int64_t pos, int64_t end)
{
	int mode = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;
	int err;

	hs_expect_large(r, pos);
	hs_expect_large(r, end - 1);
	err = upc_fallocate(r->file, mode, pos, end - pos);
	if (err) {
		hs_seen(r, "punch", err, -ENOMEM, -ENOMEM);
		if (!r->retry)
			return;
		assert_int_equal(upc_fallocate(r->file, mode, pos, end - pos),
				 0);
	}
	if (end > r->size)
		end = r->size;
	if (pos < end)
		memset(r->model + pos, 0, (size_t)(end - pos));
}

/* Truncate to @size; one that failed changed nothing, and is retried. */
static void hs_truncate(struct sw_run *r, int64_t size)
{
	int err;

	hs_expect_large(r, size);
	err = upc_truncate(r->file, size);
	if (err) {
		hs_seen(r, "truncate", err, -ENOMEM, -ENOMEM);
		if (!r->retry)
			return;
		assert_int_equal(upc_truncate(r->file, size), 0);
	}
	if (r->size > size)
		memset(r->model + size, 0, (size_t)(r->size - size));
	r->size = size;
}

/* The whole life of the file, armed (see the top of the file). */
static void hs_scenario(struct sw_run *r)
{
	int err;

	sw_swapon(r);
	sw_create(r);
	if (!r->file)
		return;
	hs_write(r, HS_A, 2 * API_MIB);
	hs_write(r, HS_B, 64 * 1024);
	hs_write(r, HS_C, 32 * 1024);
	hs_write(r, HS_D, 20 * 1024);
	hs_write(r, HS_E, 2 * API_MIB);
	hs_push(r);
	/* Order 9 and 4 come back whole, or split with a page alone. */
	hs_expect_large(r, HS_A + API_MIB);
	hs_read(r, HS_A + API_MIB + 3 * API_PAGE + 5, 3000);
	hs_expect_whole(r, HS_A, 9);
	hs_expect_large(r, HS_B + 5 * API_PAGE);
	hs_read(r, HS_B + 5 * API_PAGE, 2 * API_PAGE);
	hs_expect_whole(r, HS_B, 4);
	sw_spans(r);
	hs_push(r);
	/* A write swaps in what its run covers before grabbing it. */
	hs_expect_large(r, HS_A + 266 * API_PAGE);
	hs_write(r, HS_A + 266 * API_PAGE + 7, 3 * API_PAGE);
	hs_push(r);
	hs_expect_large(r, HS_B + 2 * API_PAGE);
	hs_expect_large(r, HS_C);
	err = upc_fallocate(r->file, FALLOC_FL_KEEP_SIZE, HS_B + 2 * API_PAGE,
			    20 * API_PAGE);
	if (err)
		hs_seen(r, "fallocate", err, -ENOSPC, -ENOMEM);
	/* Ends inside pages of large entries: split, edges swapped in. */
	hs_punch(r, HS_A + 37 * API_PAGE + 100, HS_A + 300 * API_PAGE + 1900);
	/* Page-aligned ends: split only. */
	hs_punch(r, HS_E + 64 * API_PAGE, HS_E + 128 * API_PAGE);
	hs_truncate(r, HS_E + 400 * API_PAGE);
	hs_truncate(r, HS_A + 450 * API_PAGE + 777);
	sw_read(r);
}

/*
 * The second file pushes, with two order-9 folios (two allocations, where
 * small ones would make every push a thousand allocation points); its
 * bytes are not modelled.
 */
static void hs_setup(struct sw_run *r)
{
	assert_int_equal(upc_shmem_create(r->env.cache, &hs_opts,
					  &r->env.file), 0);
}

static void hs_check_second(struct sw_run *r)
{
	(void)r;
}

static const struct sw_kind sw_large = {
	.name = "large swap", .limit = HS_LIMIT, .swap = HS_SWAP,
	.opts = &hs_opts, .file_max = HS_FILE, .model = &hs_model,
	.data = &hs_data, .buf = &hs_buf, .setup = hs_setup,
	.scenario = hs_scenario, .check_second = hs_check_second,
};

/* The order of the swap entry over page @pos of @file; -1 if none. */
static int hs_swap_order(struct upc_file *file, int64_t pos)
{
	struct xarray *xa = &upc_file_mapping(file)->i_pages;
	pgoff_t index = (pgoff_t)pos >> UPC_PAGE_SHIFT;

	if (!xa_is_value(xa_load(xa, index)))
		return -1;
	return xa_get_order(xa, index);
}

/* The file reads back as the model, and the checkers accept it. */
static void hs_fragmented_check(struct upc_file *file, int64_t size)
{
	assert_int_equal(upc_size(file), size);
	api_assert_swap_unshared(file);
	assert_file_ok(file);
	assert_int_equal(upc_read(file, hs_buf, HS_FILE, 0), size);
	if (memcmp(hs_buf, hs_model, (size_t)size)) {
		int64_t i;

		for (i = 0; hs_buf[i] == hs_model[i]; i++)
			;
		fail_msg("byte %" PRId64 " (page %" PRId64 "): %#x, expected "
			 "%#x", i, i / API_PAGE, hs_buf[i], hs_model[i]);
	}
}

/*
 * Memory with no free block above order 0 and nothing to reclaim: every
 * large swap entry that is swapped in is split, and the page wanted comes
 * back alone (swapin_folio()), for reads, for the pages a write's run
 * covers (shmem_pin_run()) and for the edges of a punch and a truncation.
 * The file must read back as the model after each step, and no two of
 * its swap entries may name the same slot.
 */
static void test_fault_swap_large_fragmented(void **state)
{
	struct upc_swap_config scfg = { .size = HS_SWAP };
	struct address_space *pinning;
	struct upc_cache_stats st;
	struct upc_file *file;
	struct api_env env;
	int64_t pages = 0, size = HS_B + 64 * 1024;
	int64_t w = HS_A + 400 * API_PAGE + 9, wlen = 3 * API_PAGE;

	(void)state;
	api_init(&env, HS_LIMIT, UPC_HUGE_NEVER, 0);
	pinning = upc_file_mapping(env.file);
	assert_int_equal(upc_swapon(env.cache, &scfg), 0);
	assert_int_equal(upc_shmem_create(env.cache, &hs_opts, &file), 0);
	memset(hs_model, 0, HS_FILE);
	memcpy(hs_model, hs_data, (size_t)size);
	assert_int_equal(upc_write(file, hs_data, 2 * API_MIB, HS_A),
			 2 * API_MIB);
	assert_int_equal(upc_write(file, hs_data + HS_B, 64 * 1024, HS_B),
			 64 * 1024);
	assert_int_equal(api_folio_order(file, HS_A, NULL), 9);
	assert_int_equal(api_folio_order(file, HS_B, NULL), 4);

	/* Fallocated, never written: pinned; reclaim sends the file out. */
	while (!upc_fallocate(env.file, 0, pages * API_PAGE, API_PAGE))
		pages++;
	assert_int_equal(pages, HS_LIMIT / API_PAGE);
	assert_int_equal(hs_swap_order(file, HS_A), 9);
	assert_int_equal(hs_swap_order(file, HS_B), 4);
	/* Free the pages at even page frames: no free pair anywhere. */
	for (int64_t p = 0; p < pages; p++) {
		struct folio *folio = filemap_get_entry(pinning, (pgoff_t)p);
		uintptr_t pfn = (uintptr_t)((char *)folio_address(folio) -
					    pinning->arena->base) / API_PAGE;

		folio_put(folio);
		if (!(pfn & 1))
			assert_int_equal(upc_fallocate(env.file,
						       FALLOC_FL_PUNCH_HOLE |
						       FALLOC_FL_KEEP_SIZE,
						       p * API_PAGE, API_PAGE),
					 0);
	}
	api_assert_swap_unshared(file);

	/* A read inside the order-9 entry: the page comes back alone. */
	assert_int_equal(upc_read(file, hs_buf, 100, HS_A + 5 * API_PAGE + 7),
			 100);
	assert_memory_equal(hs_buf, hs_model + HS_A + 5 * API_PAGE + 7, 100);
	assert_int_equal(api_folio_order(file, HS_A + 5 * API_PAGE, NULL), 0);
	api_assert_swap_unshared(file);

	/*
	 * A write far inside it: its pages come back alone (the two it
	 * covers in part swapped in, those it covers whole replaced), and
	 * may have gone to swap again since, alone too.
	 */
	assert_true(hs_swap_order(file, w) > 0);
	assert_int_equal(upc_write(file, hs_data + HS_E, (size_t)wlen, w),
			 wlen);
	memcpy(hs_model + w, hs_data + HS_E, (size_t)wlen);
	for (int64_t p = w; p < w + wlen; p += API_PAGE)
		assert_true(api_folio_order(file, p, NULL) == 0 ||
			    hs_swap_order(file, p) == 0);
	api_assert_swap_unshared(file);

	/* A punch with both ends inside pages of the order-4 entry. */
	assert_int_equal(hs_swap_order(file, HS_B + 3 * API_PAGE), 4);
	assert_int_equal(upc_fallocate(file, FALLOC_FL_PUNCH_HOLE |
				       FALLOC_FL_KEEP_SIZE,
				       HS_B + 3 * API_PAGE + 11,
				       7 * API_PAGE), 0);
	memset(hs_model + HS_B + 3 * API_PAGE + 11, 0, 7 * API_PAGE);
	api_assert_swap_unshared(file);

	/* Truncate into a page of what is left of the order-9 entry. */
	assert_true(hs_swap_order(file, HS_A + 300 * API_PAGE) > 0);
	assert_int_equal(upc_truncate(file, HS_A + 300 * API_PAGE + 5), 0);
	memset(hs_model + HS_A + 300 * API_PAGE + 5, 0,
	       (size_t)(size - (HS_A + 300 * API_PAGE + 5)));
	size = HS_A + 300 * API_PAGE + 5;
	hs_fragmented_check(file, size);
	assert_int_equal(upc_check_swap(env.cache->swap), 0);

	assert_int_equal(upc_close(file), 0);
	assert_int_equal(upc_cache_stats(env.cache, &st), 0);
	assert_int_equal(st.swap_used, 0);
	api_fini(&env);
}

/* ---- the loops ----------------------------------------------------------- */

/*
 * One run of @c->kind with the injector armed by @arm(@n)
 * (upc_fault_fail_nth() or upc_fault_fail_from()).  Return: the
 * allocation attempts the scenario made; *@injected says whether a
 * failure happened.
 */
static unsigned long sw_run_once(void (*arm)(unsigned long), unsigned long n,
				 struct sw_counts *c, bool *injected)
{
	const struct sw_kind *k = c->kind;
	int64_t nodes0 = ft_nodes_live();
	struct sw_run r = {
		.model = *k->model, .data = *k->data, .c = c, .n = n,
		.retry = arm == upc_fault_fail_nth, .opts = k->opts,
		.swap_size = k->swap,
	};
	struct upc_cache_config cfg = { .memory_limit = k->limit };
	unsigned long attempts;

	memset(r.model, 0, k->file_max);
	assert_int_equal(upc_cache_create(&cfg, &r.env.cache), 0);
	k->setup(&r);
	arm(n);
	k->scenario(&r);
	attempts = upc_fault_attempts();
	*injected = upc_fault_injected();
	upc_fault_fail_nth(0);

	/* Unarmed, the scenario found what it works on in swap. */
	if (!*injected)
		assert_int_equal(r.missed, 0);
	sw_verify_and_close(&r);
	assert_int_equal(ft_nodes_live() - nodes0, 0);
	c->runs++;
	return attempts;
}

/* sw_run_once() with upc_fault_fail_nth(), for api_fail_each(). */
static unsigned long sw_run_nth(unsigned long n, void *arg, bool *injected)
{
	return sw_run_once(upc_fault_fail_nth, n, arg, injected);
}

/* Fail each allocation of scenario @kind in turn, then check the tally. */
static void sw_fail_each(const struct sw_kind *kind)
{
	struct sw_counts c = { .kind = kind };
	unsigned long total, points;
	bool injected;

	total = sw_run_once(upc_fault_fail_nth, ULONG_MAX, &c, &injected);
	assert_false(injected);
	assert_int_equal(c.seen, 0);
	/* The scenario did swap: out under the limit, and back in. */
	assert_true(c.swapouts > 0);
	assert_true(c.swapins > 0);
	assert_true(total > 0);
	points = api_fail_each(sw_run_nth, &c, SW_MAX_NTH);
	/* Some failures were reported to the caller, not all absorbed. */
	assert_true(c.seen > 0);
	fprintf(stderr, "# %s: %lu allocation points (about %lu per run "
		"unarmed), %lu failures seen by a caller\n", kind->name,
		points, total, c.seen);
}

/* Fail every allocation of @kind from the n-th on, for n = 1, 2, 3 ... */
static void sw_fail_sticky(const struct sw_kind *kind)
{
	struct sw_counts c = { .kind = kind };
	unsigned long n;
	bool injected;

	for (n = 1;; n++) {
		assert_true(n < SW_MAX_NTH);
		sw_run_once(upc_fault_fail_from, n, &c, &injected);
		if (!injected)
			break;
	}
	/* Some runs failed early enough for a caller to see it. */
	assert_true(c.seen > 0);
	fprintf(stderr, "# %s, sticky: %lu runs, %lu failures seen by a "
		"caller\n", kind->name, c.runs, c.seen);
}

static void test_fault_swap_each(void **state)
{
	(void)state;
	sw_fail_each(&sw_small);
}

static void test_fault_swap_sticky(void **state)
{
	(void)state;
	sw_fail_sticky(&sw_small);
}

static void test_fault_swap_large_each(void **state)
{
	(void)state;
	sw_fail_each(&sw_large);
}

static void test_fault_swap_large_sticky(void **state)
{
	(void)state;
	sw_fail_sticky(&sw_large);
}

static int ft_setup(void **state)
{
	(void)state;
	ft.model = malloc(FT_MODEL);
	sw_model = malloc(SW_FILE);
	sw_data = malloc(SW_FILE);
	sw_buf = malloc(SW_PINNED);
	hs_model = malloc(HS_FILE);
	hs_data = malloc(HS_FILE);
	hs_buf = malloc(HS_FILE);
	hs_push_buf = malloc(HS_LIMIT);
	if (!ft.model || !sw_model || !sw_data || !sw_buf || !hs_model ||
	    !hs_data || !hs_buf || !hs_push_buf)
		return -1;
	api_fill(sw_data, SW_FILE, 0, 5);
	api_fill(hs_data, HS_FILE, 0, 6);
	memset(hs_push_buf, 0x5a, HS_LIMIT);
	return 0;
}

static int ft_teardown(void **state)
{
	(void)state;
	upc_fault_fail_nth(0);
	free(ft.model);
	free(sw_model);
	free(sw_data);
	free(sw_buf);
	free(hs_model);
	free(hs_data);
	free(hs_buf);
	free(hs_push_buf);
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
		cmocka_unit_test(test_fault_grab_gap_gives_back),
		cmocka_unit_test(test_fault_swap_each),
		cmocka_unit_test(test_fault_swap_sticky),
		cmocka_unit_test(test_fault_swap_large_each),
		cmocka_unit_test(test_fault_swap_large_sticky),
		cmocka_unit_test(test_fault_swap_large_fragmented),
	};

	return cmocka_run_group_tests(tests, ft_setup, ft_teardown);
}
