// SPDX-License-Identifier: MIT
/*
 * tests/api/test_read_path.c - the batched shmem read path (seed 002)
 * against a per-page reference read, byte for byte.
 *
 * Five files are built, in memory that earlier data left non-zero, with
 * the same operations applied to a model (a byte array and a size): all
 * data in 4 KiB folios; mostly holes; all
 * fallocated with a few writes; 2 MiB and smaller large folios; and a
 * mixture of everything (large folios partly punched, unwritten large
 * folios, holes, a truncated tail, KEEP_SIZE allocation past the end).
 * Each file is then read with block sizes from 1 byte to 4 MiB (every
 * power of two and its neighbours, and random ones), starting at
 * unaligned offsets around every data/hole transition, folio and MiB
 * boundary, and sweeping whole files with the large sizes.  Each read
 * goes through upc_read() (the batched path), through a reference that
 * looks every page up with filemap_get_entry() and copies or zeroes it
 * (the per-folio path the seed replaced), and against the model; all
 * three must agree.  A few reads go through upc_readv() with the
 * destination cut in uneven pieces.
 *
 * The batching itself is checked with the XArray walk counter: one
 * walk per read, whatever the read holds (a hole of any length, one
 * page, or hundreds of folios, written or not).  And a read uses a page
 * (marks it accessed, so that a second use activates it) only where it
 * reads from the page's start, as tmpfs does, on both the one-page path
 * and the walk.
 */
#define _GNU_SOURCE
#include <linux/falloc.h>
#include <sys/uio.h>

#include <upcache/stats.h>

#include "api_helpers.h"
#include "rand.h"

#define RP_MODEL_SIZE	(10 * API_MIB)
#define RP_MEM		(64UL << 20)
#define RP_MAX_BS	(4 * API_MIB)
#define RP_SMALL_WINDOW	(64 * 1024)	/* bytes read around each offset */

struct rp_model {
	unsigned char *bytes;
	int64_t size;
};

struct rp_file {
	const char *name;
	struct api_env env;
	struct upc_file *file;
	struct rp_model m;
};

static unsigned char *rp_buf, *rp_ref;
static struct upc_rand rp_rnd;

/* ---- building a file and its model --------------------------------------- */

/*
 * Fill most of the cache's memory with non-zero bytes and free it again,
 * so that the folios a layout allocates are not fresh zero pages: a read
 * that copied an unwritten folio, or a write that did not zero the rest
 * of a new one, shows.
 */
static void rp_dirty_memory(struct upc_cache *cache)
{
	struct upc_shmem_options opts = { .huge = UPC_HUGE_ALWAYS };
	struct upc_file *scratch;

	assert_int_equal(upc_shmem_create(cache, &opts, &scratch), 0);
	api_write_pattern(scratch, 0, RP_MEM - 2 * API_MIB, 0x5a);
	assert_int_equal(upc_close(scratch), 0);
}

static void rp_open(struct rp_file *f, const char *name, enum upc_huge huge)
{
	f->name = name;
	f->file = api_init(&f->env, RP_MEM, huge, 0);
	rp_dirty_memory(f->env.cache);
	f->m.bytes = calloc(1, RP_MODEL_SIZE);
	f->m.size = 0;
	assert_non_null(f->m.bytes);
}

static void rp_close(struct rp_file *f)
{
	free(f->m.bytes);
	api_fini(&f->env);
}

static void rp_grow(struct rp_file *f, int64_t end)
{
	assert_true(end <= RP_MODEL_SIZE);
	if (end > f->m.size)
		f->m.size = end;
}

static void rp_write(struct rp_file *f, int64_t pos, int64_t len,
		     unsigned int seed)
{
	api_write_pattern(f->file, pos, (size_t)len, seed);
	api_fill(f->m.bytes + pos, (size_t)len, pos, seed);
	rp_grow(f, pos + len);
}

static void rp_falloc(struct rp_file *f, int mode, int64_t pos, int64_t len)
{
	assert_int_equal(upc_fallocate(f->file, mode, pos, len), 0);
	if (mode & FALLOC_FL_PUNCH_HOLE)
		memset(f->m.bytes + pos, 0, (size_t)len);
	else if (!(mode & FALLOC_FL_KEEP_SIZE))
		rp_grow(f, pos + len);
}

static void rp_truncate(struct rp_file *f, int64_t size)
{
	assert_int_equal(upc_truncate(f->file, size), 0);
	if (size < f->m.size)
		memset(f->m.bytes + size, 0, (size_t)(f->m.size - size));
	f->m.size = size;
}

/* ---- the layouts --------------------------------------------------------- */

static void build_data(struct rp_file *f)
{
	rp_open(f, "data", UPC_HUGE_NEVER);
	rp_write(f, 0, 6 * API_MIB + 123, 1);
}

static void build_holes(struct rp_file *f)
{
	static const int64_t pages[] = { 1, 3, 100, 101, 102, 511, 512, 1000 };
	unsigned int i;

	rp_open(f, "holes", UPC_HUGE_NEVER);
	rp_truncate(f, 8 * API_MIB);
	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
		rp_write(f, pages[i] * API_PAGE, API_PAGE, 2);
	rp_write(f, 3 * API_MIB + 5, 20000, 3);
	rp_write(f, 8 * API_MIB - 10, 10, 4);
}

static void build_falloc(struct rp_file *f)
{
	rp_open(f, "falloc", UPC_HUGE_NEVER);
	rp_falloc(f, 0, 0, 7 * API_MIB + 77);
	rp_write(f, API_MIB + 3, 100, 5);
	rp_write(f, 700 * API_PAGE, API_PAGE, 6);
	rp_write(f, 7 * API_MIB + 70, 7, 7);
}

static void build_large(struct rp_file *f)
{
	rp_open(f, "large", UPC_HUGE_ALWAYS);
	rp_write(f, 0, 6 * API_MIB, 8);
	rp_write(f, 6 * API_MIB + 3 * API_PAGE + 1, 70000, 9);
	assert_int_equal(api_folio_order(f->file, 4 * API_MIB, NULL), 9);
}

static void build_mixture(struct rp_file *f)
{
	int i;

	rp_open(f, "mixture", UPC_HUGE_ALWAYS);
	rp_write(f, 0, 2 * API_MIB, 10);
	rp_falloc(f, FALLOC_FL_KEEP_SIZE, 2 * API_MIB, 2 * API_MIB);
	rp_write(f, 4 * API_MIB + 1, 300 * 1024, 11);
	rp_falloc(f, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		  API_MIB + 100, 2 * API_PAGE);
	for (i = 0; i < 256; i += 2)
		rp_write(f, 6 * API_MIB + i * API_PAGE, API_PAGE, 12);
	rp_falloc(f, 0, 7 * API_MIB + 3, 500 * 1024);
	rp_write(f, 7 * API_MIB + 200 * 1024, 1, 13);
	rp_truncate(f, 7 * API_MIB + 300 * 1024 + 5);
	rp_falloc(f, FALLOC_FL_KEEP_SIZE, 8 * API_MIB, API_MIB);
	assert_int_equal(api_folio_order(f->file, 0, NULL), 9);
	assert_int_equal(api_folio_order(f->file, 2 * API_MIB, NULL), 9);
}

/* ---- reading three ways -------------------------------------------------- */

/*
 * The per-page reference: one filemap_get_entry() per page, copying an
 * uptodate folio's bytes and zeroing everything else.
 */
static int64_t ref_read(struct upc_file *file, unsigned char *buf, size_t len,
			int64_t pos)
{
	struct address_space *mapping = upc_file_mapping(file);
	int64_t size = upc_size(file), done = 0;

	if (pos >= size)
		return 0;
	if ((int64_t)len > size - pos)
		len = (size_t)(size - pos);
	while (done < (int64_t)len) {
		int64_t at = pos + done;
		size_t n = API_PAGE - (size_t)(at % API_PAGE);
		struct folio *folio = filemap_get_entry(mapping,
							(pgoff_t)at / API_PAGE);

		if (n > len - (size_t)done)
			n = len - (size_t)done;
		if (folio && folio_test_uptodate(folio))
			memcpy(buf + done, (char *)folio_address(folio) +
			       (at - (int64_t)folio->index * API_PAGE), n);
		else
			memset(buf + done, 0, n);
		if (folio)
			folio_put(folio);
		done += (int64_t)n;
	}
	return done;
}

/* What a read of @bs bytes at @pos returns: cut at the end of the file. */
static int64_t rp_want(const struct rp_file *f, int64_t pos, size_t bs)
{
	if (pos >= f->m.size)
		return 0;
	return (int64_t)bs < f->m.size - pos ? (int64_t)bs : f->m.size - pos;
}

/* Read [@pos, @pos + @bs) three ways; all must agree. */
static void check_read(struct rp_file *f, int64_t pos, size_t bs)
{
	int64_t want = rp_want(f, pos, bs);
	ssize_t got = upc_read(f->file, rp_buf, bs, pos);

	if (got != want)
		fail_msg("%s: read(%" PRId64 ", %zu) = %zd, expected %" PRId64,
			 f->name, pos, bs, got, want);
	assert_int_equal(ref_read(f->file, rp_ref, bs, pos), want);
	if (memcmp(rp_buf, rp_ref, (size_t)want) ||
	    memcmp(rp_buf, f->m.bytes + pos, (size_t)want))
		fail_msg("%s: read(%" PRId64 ", %zu) differs from the per-page "
			 "read or the model", f->name, pos, bs);
}

/* The same through upc_readv() with the buffer cut in random pieces. */
static void check_readv(struct rp_file *f, int64_t pos, size_t bs)
{
	struct iovec iov[8];
	size_t left = bs, at = 0;
	int n = 0;
	int64_t want = rp_want(f, pos, bs);

	while (left && n < 7) {
		size_t piece = (size_t)upc_rand_below(&rp_rnd, left + 1);

		iov[n++] = (struct iovec){ rp_buf + at, piece };
		at += piece;
		left -= piece;
	}
	iov[n++] = (struct iovec){ rp_buf + at, left };
	assert_int_equal(upc_readv(f->file, iov, n, pos), want);
	if (memcmp(rp_buf, f->m.bytes + pos, (size_t)want))
		fail_msg("%s: readv(%" PRId64 ", %zu) differs from the model",
			 f->name, pos, bs);
}

/* ---- the sweep ----------------------------------------------------------- */

#define RP_MAX_OFFSETS	128

/* Offsets worth starting near: transitions, folio and MiB boundaries. */
static unsigned int interesting_offsets(struct rp_file *f, int64_t *offs)
{
	unsigned int nr = 0;
	int64_t pos = 0, mib;

	while (pos < f->m.size && nr < RP_MAX_OFFSETS - 16) {
		int64_t data = upc_seek_data(f->file, pos), hole;

		if (data < 0)
			break;
		hole = upc_seek_hole(f->file, data);
		offs[nr++] = data;
		offs[nr++] = hole;
		pos = hole;
	}
	for (mib = 0; mib <= f->m.size && nr < RP_MAX_OFFSETS - 2; mib += API_MIB)
		offs[nr++] = mib;
	offs[nr++] = f->m.size;
	offs[nr++] = (int64_t)upc_rand_below(&rp_rnd, (uint64_t)f->m.size);
	return nr;
}

static size_t rp_sizes[128];
static unsigned int rp_nr_sizes;

/* 1 byte to 4 MiB: each power of two, its neighbours, some random sizes. */
static void make_sizes(void)
{
	unsigned int k, i;

	for (k = 0; k <= 22; k++) {
		size_t p = (size_t)1 << k;

		if (p > 2)
			rp_sizes[rp_nr_sizes++] = p - 1;
		rp_sizes[rp_nr_sizes++] = p;
		if (p < RP_MAX_BS)
			rp_sizes[rp_nr_sizes++] = p + 1;
	}
	for (i = 0; i < 8; i++)
		rp_sizes[rp_nr_sizes++] =
			1 + (size_t)upc_rand_below(&rp_rnd, RP_MAX_BS);
}

/*
 * Read around each interesting offset with every size: small sizes a
 * window of reads straddling the offset, large ones two reads from
 * unaligned starts next to it; the largest sizes also sweep the file.
 */
static void sweep(struct rp_file *f)
{
	int64_t offs[RP_MAX_OFFSETS];
	unsigned int nr = interesting_offsets(f, offs), i, s;

	for (s = 0; s < rp_nr_sizes; s++) {
		size_t bs = rp_sizes[s];
		int64_t count = bs < RP_SMALL_WINDOW ?
				(int64_t)(RP_SMALL_WINDOW / bs) : 2;

		if (count > 64)
			count = 64;
		for (i = 0; i < nr; i++) {
			int64_t start = offs[i] - (count * (int64_t)bs) / 2 - 1;
			int64_t c;

			if (start < 0)
				start = (int64_t)(i % 3);
			for (c = 0; c < count; c++)
				check_read(f, start + c * (int64_t)bs, bs);
			check_readv(f, start, bs);
		}
		if (bs >= API_MIB)
			for (int64_t pos = 1; pos < f->m.size; pos += (int64_t)bs)
				check_read(f, pos, bs);
	}
}

static void run_layout(void (*build)(struct rp_file *f))
{
	struct rp_file f;

	build(&f);
	assert_file_ok(f.file);
	sweep(&f);
	assert_file_ok(f.file);
	rp_close(&f);
}

static void test_read_path_data(void **state)
{
	(void)state;
	run_layout(build_data);
}

static void test_read_path_holes(void **state)
{
	(void)state;
	run_layout(build_holes);
}

static void test_read_path_falloc(void **state)
{
	(void)state;
	run_layout(build_falloc);
}

static void test_read_path_large(void **state)
{
	(void)state;
	run_layout(build_large);
}

static void test_read_path_mixture(void **state)
{
	(void)state;
	run_layout(build_mixture);
}

/* ---- the lookups a read costs -------------------------------------------- */

/* XArray walks one upc_read() of [@pos, @pos + @len) takes. */
static uint64_t read_walks(struct upc_file *file, int64_t pos, size_t len)
{
	struct upc_thread_stats st;

	upc_stats_thread_reset();
	assert_int_equal(upc_read(file, rp_buf, len, pos), (ssize_t)len);
	upc_stats_thread(&st);
	return st.xa_walks;
}

static void test_read_path_walks(void **state)
{
	struct api_env env;
	struct upc_file *file;

	(void)state;
	file = api_init(&env, RP_MEM, UPC_HUGE_NEVER, 0);
	api_write_pattern(file, 0, 2 * API_MIB, 1);
	assert_int_equal(upc_fallocate(file, 0, 2 * API_MIB, API_MIB), 0);
	api_write_pattern(file, 6 * API_MIB, API_PAGE, 1);
	/* A hole costs one walk, however long: never one per page. */
	assert_int_equal(read_walks(file, 3 * API_MIB, API_PAGE), 1);
	assert_int_equal(read_walks(file, 3 * API_MIB + 1, 3 * API_MIB - 1), 1);
	/* As does one page of data: no dearer than filemap_get_entry(). */
	assert_int_equal(read_walks(file, API_PAGE, API_PAGE), 1);
	assert_int_equal(read_walks(file, API_PAGE + 7, 100), 1);
	/* 256 data folios, or 256 unwritten ones: one walk, sideways. */
	assert_int_equal(read_walks(file, 0, API_MIB), 1);
	assert_int_equal(read_walks(file, 2 * API_MIB, API_MIB), 1);
	/* A folio, a 3 MiB hole, a folio: the hole adds nothing. */
	assert_int_equal(read_walks(file, 3 * API_MIB - API_PAGE,
				    3 * API_MIB + 2 * API_PAGE), 1);
	api_fini(&env);

	file = api_init(&env, RP_MEM, UPC_HUGE_ALWAYS, 0);
	api_write_pattern(file, 0, 4 * API_MIB, 1);
	assert_int_equal(read_walks(file, 0, 4 * API_MIB), 1);
	assert_int_equal(read_walks(file, 5, API_PAGE), 1);
	api_fini(&env);
}

/* A run of holes and unwritten folios is one piece of zeros per batch. */
static bool count_piece(const struct shmem_piece *piece, void *arg)
{
	unsigned int *nr = arg;

	(void)piece;
	(*nr)++;
	return true;
}

static void test_read_path_zero_runs(void **state)
{
	struct api_env env;
	struct upc_file *file;
	unsigned int nr = 0;

	(void)state;
	file = api_init(&env, RP_MEM, UPC_HUGE_NEVER, 0);
	assert_int_equal(upc_truncate(file, 8 * API_MIB), 0);
	assert_int_equal(upc_fallocate(file, FALLOC_FL_KEEP_SIZE, API_MIB,
				       10 * API_PAGE), 0);
	api_write_pattern(file, 4 * API_MIB, 1, 1);
	/* hole, 10 unwritten folios, hole: one run; the byte; the rest. */
	shmem_for_each_piece(&file->shmem, 0, SIZE_MAX, count_piece, &nr);
	assert_int_equal(nr, 3);
	api_fini(&env);
}

/* ---- what a read marks ---------------------------------------------------- */

/*
 * A read is a use of a page only if it reads from the page's start
 * (tmpfs's rule, shmem_file_read_iter()): a reader going through a file
 * in small pieces uses each page once, not once per piece, and so does
 * not make a page read once in 10-byte steps look like the working set.
 * Reads inside page 0 (the one-page path) and from inside page 1 on into
 * page 2 (a walk) use page 2 alone; reads from page 0's start then
 * activate it.
 */
static void test_read_path_marks_page_starts(void **state)
{
	struct upc_cache_stats st;
	struct api_env env;
	struct upc_file *file;
	int i;

	(void)state;
	file = api_init(&env, RP_MEM, UPC_HUGE_NEVER, 0);
	api_write_pattern(file, 0, 3 * API_PAGE, 1);
	for (i = 0; i < 4; i++) {
		assert_int_equal(upc_read(file, rp_buf, 10, 100), 10);
		assert_int_equal(upc_read(file, rp_buf, API_PAGE,
					  API_PAGE + 100), API_PAGE);
	}
	st = api_stats(&env);
	assert_int_equal(st.pages_active, 1);
	assert_int_equal(st.activations, 1);
	for (i = 0; i < 2; i++)
		assert_int_equal(upc_read(file, rp_buf, 10, 0), 10);
	st = api_stats(&env);
	assert_int_equal(st.pages_active, 2);
	assert_int_equal(st.activations, 2);
	api_fini(&env);
}

static int rp_setup(void **state)
{
	(void)state;
	rp_buf = malloc(RP_MAX_BS);
	rp_ref = malloc(RP_MAX_BS);
	if (!rp_buf || !rp_ref)
		return -1;
	upc_rand_seed(&rp_rnd, upc_test_seed());
	make_sizes();
	return 0;
}

static int rp_teardown(void **state)
{
	(void)state;
	free(rp_buf);
	free(rp_ref);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_path_data),
		cmocka_unit_test(test_read_path_holes),
		cmocka_unit_test(test_read_path_falloc),
		cmocka_unit_test(test_read_path_large),
		cmocka_unit_test(test_read_path_mixture),
		cmocka_unit_test(test_read_path_walks),
		cmocka_unit_test(test_read_path_zero_runs),
		cmocka_unit_test(test_read_path_marks_page_starts),
	};

	return cmocka_run_group_tests(tests, rp_setup, rp_teardown);
}
