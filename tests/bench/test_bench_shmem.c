// SPDX-License-Identifier: MIT
/*
 * tests/bench/test_bench_shmem.c - upcache-bench's shmem suite (seed
 * 002) and its per-folio baseline.
 *
 * Runs the suite in-process at its tiny size and checks its JSON (one
 * valid object of the shape every suite writes, the 18 rows in order,
 * each with its three read figures, memcpy, the ratios and the issue's
 * targets), the counted costs the seed is about (one XArray walk per
 * read for the batched path, one per page for the per-folio one), that
 * the per-folio baseline returns exactly the bytes shmem_read_iter()
 * returns (and the model holds) on files mixing data, holes, unwritten
 * folios, large folios and a punched range, at every kind of offset
 * and length, that the kernel's files are of their kind, that a
 * directory that is no tmpfs leaves the kernel figures null instead of
 * failing, and that a wrong read ends the run with exit status 2.
 *
 * Linked with the benchmark's sources (all of tools/bench/ but main.c;
 * see cmake/UpcacheTests.cmake).
 */
#include <sys/stat.h>

#include <upcache/stats.h>

#include "../../tools/bench/shm_baseline.h"
#include "../../tools/bench/shm_cases.h"
#include "../../tools/bench/shm_kernel.h"
#include "../../tools/bench/shm_suite.h"
#include "bench_helpers.h"

#define MIB	(1L << 20)

/* ------------------------------------------------------------------ */
/* The suite, run once at its tiny size                                */
/* ------------------------------------------------------------------ */

#define NR_ROWS	18

static struct bt_suite suite;
static bool have_kernel;

static int suite_setup(void **state)
{
	const struct bench_field *side;

	*state = &suite;
	/* bench_suite_shmem() measures the kernel in SHM_KERNEL_DIR. */
	if (bt_suite_run(&suite, bench_suite_shmem, "shmem"))
		return -1;
	side = bench_row_get(&suite.rep.meta, "kernel_side");
	have_kernel = side && side->kind == BENCH_FIELD_STR &&
		      !strcmp(side->str, "measured");
	return 0;
}

/* row_name() - The name row @r must have, in the suite's order. */
static void row_name(size_t r, char *buf, size_t len)
{
	static const char *const kinds[] = { "normal", "falloc", "hole" };
	static const char *const sizes[] = { "4k", "64k", "1m" };

	snprintf(buf, len, "read_%s_%s_%s", kinds[r / 3 % 3], sizes[r % 3],
		 r < 9 ? "nohuge" : "huge");
}

/* num() - A numeric field of the suite's row @name (bt_num()). */
static double num(const char *name, const char *key)
{
	return bt_num(&suite.rep, name, key);
}

static void test_suite_json(void **state)
{
	char names[NR_ROWS][48];
	const char *namep[NR_ROWS];
	struct jread *jr;
	size_t r;

	(void)state;
	for (r = 0; r < NR_ROWS; r++) {
		row_name(r, names[r], sizeof(names[r]));
		namep[r] = names[r];
	}
	jr = bt_parse_suite(suite.json, "shmem", NULL, 0);
	bt_check_rows(jr, namep, NR_ROWS);
	free(jr);
	assert_int_equal(suite.rep.nr_rows, NR_ROWS);
	for (r = 0; r < NR_ROWS; r++)
		assert_string_equal(suite.rep.rows[r].name, names[r]);
}

static void test_suite_figures(void **state)
{
	static const char *const always[] = {
		"gib_per_s_batched", "gib_per_s_per_folio", "gib_per_s_memcpy",
		"vs_per_folio", "memcpy_fraction", "issue_kernel_gib_per_s",
		"vs_issue_kernel",
	};
	char name[48];
	size_t r, k;

	(void)state;
	for (r = 0; r < NR_ROWS; r++) {
		row_name(r, name, sizeof(name));
		for (k = 0; k < sizeof(always) / sizeof(always[0]); k++)
			assert_true(num(name, always[k]) > 0);
		assert_true(num(name, "gib_per_s_batched_min") <=
			    num(name, "gib_per_s_batched"));
		assert_true(num(name, "vs_per_folio_min") <=
			    num(name, "vs_per_folio"));
		assert_true(num(name, "vs_per_folio") <=
			    num(name, "vs_per_folio_max"));
		assert_int_equal(num(name, "rounds"), 3);
		assert_int_equal(num(name, "reads_per_round") *
				 num(name, "bs"), 4 * MIB);
		assert_string_equal(bt_str(&suite.rep, name, "unit"), "GiB/s");
		if (!have_kernel)
			continue;
		assert_true(num(name, "gib_per_s_kernel") > 0);
		assert_true(num(name, "vs_kernel") > 0);
		assert_non_null(bt_str(&suite.rep, name,
				       "target_vs_kernel_met"));
	}
}

/* The targets, row by row. */
static void test_suite_targets(void **state)
{
	(void)state;
	assert_true(num("read_normal_4k_nohuge", "target_vs_kernel") == 3.0);
	assert_true(num("read_normal_64k_huge", "target_vs_kernel") == 1.8);
	assert_true(num("read_normal_1m_huge", "target_vs_kernel") == 3.0);
	assert_true(num("read_falloc_4k_huge", "target_vs_kernel") == 2.0);
	assert_true(num("read_hole_1m_nohuge", "target_vs_kernel") == 2.0);
	assert_true(num("read_normal_64k_nohuge", "target_memcpy_fraction") ==
		    0.85);
	assert_true(num("read_normal_1m_huge", "target_memcpy_fraction") ==
		    0.85);
	assert_true(isnan(bench_row_num(bt_row(&suite.rep,
					       "read_normal_4k_huge"),
					"target_memcpy_fraction")));
	assert_null(bt_str(&suite.rep, "read_hole_64k_huge",
			"target_memcpy_fraction_met"));
	assert_true(num("read_normal_1m_nohuge", "target_vs_per_folio") ==
		    1.0);
	assert_true(num("read_hole_4k_huge", "target_vs_per_folio") == 1.0);
	assert_true(num("read_falloc_64k_nohuge", "target_vs_per_folio") ==
		    1.2);
	assert_true(num("read_hole_1m_huge", "target_vs_per_folio") == 1.2);
	assert_true(num("read_normal_4k_nohuge", "issue_kernel_gib_per_s") ==
		    4.31);
	assert_true(num("read_hole_1m_huge", "issue_kernel_gib_per_s") ==
		    19.65);
	assert_true(bench_row_num(&suite.rep.meta, "targets") >=
		    bench_row_num(&suite.rep.meta, "targets_met"));
}

/* The counted costs: exact, whatever the machine. */
static void test_suite_walks(void **state)
{
	static const char *const kinds[] = { "normal", "falloc", "hole" };
	char name[48];
	size_t k;

	(void)state;
	for (k = 0; k < 3; k++) {
		snprintf(name, sizeof(name), "read_%s_1m_nohuge", kinds[k]);
		/* One walk per read however many folios or holes... */
		assert_true(num(name, "walks_per_read_batched") == 1);
		/* ...where the per-folio path walks for every page. */
		assert_true(num(name, "walks_per_read_per_folio") == 256);
		snprintf(name, sizeof(name), "read_%s_4k_huge", kinds[k]);
		assert_true(num(name, "walks_per_read_batched") == 1);
		assert_true(num(name, "walks_per_read_per_folio") == 1);
	}
	assert_true(bench_row_num(&suite.rep.meta, "reads_checked") > 100);
}

/* shm_suite_proc() - The suite, measuring the kernel in /proc. */
static int shm_suite_proc(const struct bench_options *opts,
			  struct bench_output *out, struct bench_report *rep)
{
	return shm_suite_run(opts, out, rep, "/proc");
}

/* A directory that is no tmpfs: the run goes on without the kernel. */
static void test_suite_without_kernel(void **state)
{
	struct bench_report rep;
	const struct bench_field *side;

	(void)state;
	assert_int_equal(bt_run_tiny(shm_suite_proc, "shmem", &rep), 0);
	side = bench_row_get(&rep.meta, "kernel_side");
	assert_non_null(side);
	assert_non_null(strstr(side->str, "not a tmpfs"));
	assert_int_equal(rep.nr_rows, NR_ROWS);
	assert_true(isnan(bench_row_num(&rep.rows[0], "gib_per_s_kernel")));
	assert_true(isnan(bench_row_num(&rep.rows[0], "vs_kernel")));
	assert_null(bt_str(&rep, "read_normal_4k_nohuge",
			"target_vs_kernel_met"));
	assert_true(bench_row_num(&rep.rows[0], "gib_per_s_batched") > 0);
	bench_report_free(&rep);
}

/* ------------------------------------------------------------------ */
/* The per-folio baseline reads what the library reads                 */
/* ------------------------------------------------------------------ */

#define MIX_SIZE	(16 * MIB)

/**
 * struct mix - a shmem file and a model of its bytes.
 * @arena: The file's memory.
 * @sf: The file.
 * @model: What it holds, MIX_SIZE bytes.
 * @data: Bytes to write from.
 */
struct mix {
	struct upc_arena *arena;
	struct shmem_file sf;
	unsigned char *model;
	unsigned char *data;
};

static void mix_write(struct mix *m, int64_t pos, size_t len)
{
	struct iovec iov = { .iov_base = m->data + pos, .iov_len = len };
	struct iov_iter iter;

	iov_iter_init(&iter, &iov, 1, len);
	assert_int_equal(shmem_write_iter(&m->sf, &iter, pos), (ssize_t)len);
	memcpy(m->model + pos, m->data + pos, len);
}

/*
 * mix_build() - Data, unwritten folios, holes, small folios in a hole, a
 * range punched out of data (inside a large folio for huge files) and a
 * truncated tail; memory that earlier data left non-zero underneath.
 */
static void mix_build(struct mix *m, bool huge)
{
	size_t i;

	assert_int_equal(upc_arena_create(64 * MIB, &m->arena), 0);
	assert_int_equal(shmem_file_init(&m->sf, m->arena, huge ?
					 SHMEM_HUGE_ALWAYS : SHMEM_HUGE_NEVER,
					 false), 0);
	m->model = calloc(1, MIX_SIZE);
	m->data = malloc(MIX_SIZE);
	assert_non_null(m->model);
	assert_non_null(m->data);
	for (i = 0; i < MIX_SIZE; i++)
		m->data[i] = (unsigned char)(i * 131 + (i >> 12) + 1) | 1;
	/* Dirty the arena, then free it: new folios are not zero pages. */
	mix_write(m, 0, MIX_SIZE);
	shmem_truncate(&m->sf, 0);
	memset(m->model, 0, MIX_SIZE);

	mix_write(m, 0, 6 * MIB);
	assert_int_equal(shmem_fallocate(&m->sf, 8 * MIB, 2 * MIB, false), 0);
	shmem_truncate(&m->sf, 15 * MIB + 777);
	mix_write(m, 12 * MIB + 100, 10000);
	mix_write(m, 9 * MIB + 4096, 8192);	/* into unwritten folios */
	shmem_punch_hole(&m->sf, MIB + 300, 70000);
	memset(m->model + MIB + 300, 0, 70000);
}

static void mix_free(struct mix *m)
{
	shmem_file_destroy(&m->sf);
	assert_int_equal(upc_arena_charged(m->arena), 0);
	upc_arena_destroy(m->arena);
	free(m->model);
	free(m->data);
}

/* mix_check() - Read [@pos, @pos + @bs) both ways; both match the model. */
static void mix_check(struct mix *m, unsigned char *a, unsigned char *b,
		      int64_t pos, size_t bs)
{
	int64_t size = shmem_size(&m->sf);
	int64_t want = pos >= size ? 0 :
		       (int64_t)bs < size - pos ? (int64_t)bs : size - pos;
	struct iovec iov = { .iov_base = a, .iov_len = bs };
	struct iov_iter iter;
	ssize_t got;

	iov_iter_init(&iter, &iov, 1, bs);
	memset(a, 0xee, bs);
	memset(b, 0xdd, bs);
	got = shmem_read_iter(&m->sf, &iter, pos);
	assert_int_equal(got, want);
	assert_int_equal(shmb_per_folio_read(&m->sf, b, bs, pos), want);
	if (memcmp(a, b, (size_t)want) ||
	    memcmp(a, m->model + pos, (size_t)want))
		fail_msg("read(%lld, %zu): the per-folio read, the batched "
			 "read and the model differ", (long long)pos, bs);
}

static void test_per_folio_same_bytes(void **state)
{
	static const size_t sizes[] = {
		1, 100, 4095, 4096, 4097, 65536, 100000, 1 << 20, 3 << 20,
	};
	static const int64_t starts[] = {
		0, 4096, MIB, MIB + 300, 6 * MIB - 5, 8 * MIB, 9 * MIB + 4000,
		10 * MIB - 1, 12 * MIB + 99, 15 * MIB, 15 * MIB + 700,
		16 * MIB,
	};
	unsigned char *a = malloc(4 * MIB), *b = malloc(4 * MIB);
	int huge;
	size_t i, j;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	for (huge = 0; huge < 2; huge++) {
		struct mix m;
		int64_t pos;

		mix_build(&m, huge);
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			for (j = 0; j < sizeof(starts) / sizeof(starts[0]);
			     j++)
				mix_check(&m, a, b, starts[j], sizes[i]);
		/* Whole sweeps, as the suite reads. */
		for (pos = 0; pos < 16 * MIB; pos += 65536)
			mix_check(&m, a, b, pos, 65536);
		for (pos = 0; pos < 16 * MIB; pos += MIB)
			mix_check(&m, a, b, pos + 12345, MIB);
		mix_free(&m);
	}
	free(a);
	free(b);
}

/* The baseline walks once per page; the library once per read. */
static void test_per_folio_walks(void **state)
{
	struct upc_thread_stats st;
	unsigned char *buf = malloc(MIB);
	struct mix m;
	struct iovec iov = { .iov_base = buf, .iov_len = MIB };
	struct iov_iter iter;

	(void)state;
	assert_non_null(buf);
	mix_build(&m, false);
	upc_stats_thread_reset();
	assert_int_equal(shmb_per_folio_read(&m.sf, buf, MIB, 2 * MIB), MIB);
	upc_stats_thread(&st);
	assert_int_equal(st.xa_walks, 256);
	upc_stats_thread_reset();
	iov_iter_init(&iter, &iov, 1, MIB);
	assert_int_equal(shmem_read_iter(&m.sf, &iter, 2 * MIB), MIB);
	upc_stats_thread(&st);
	assert_int_equal(st.xa_walks, 1);
	mix_free(&m);
	free(buf);
}

/* ------------------------------------------------------------------ */
/* The kernel's files                                                  */
/* ------------------------------------------------------------------ */

static void test_kernel_files(void **state)
{
	unsigned char *data = malloc(2 * MIB), *back = malloc(2 * MIB);
	struct shmk_info info;
	int kind;

	(void)state;
	assert_non_null(data);
	assert_non_null(back);
	shmk_probe(SHM_KERNEL_DIR, &info);
	if (!info.usable) {
		free(data);
		free(back);
		skip();
	}
	assert_true(info.effective[0] != '\0');
	memset(data, 7, 2 * MIB);
	for (kind = 0; kind < SHMK_NR_KINDS; kind++) {
		int fd = shmk_create(&info, kind, data, 2 * MIB);
		struct stat st;

		assert_true(fd >= 0);
		assert_int_equal(fstat(fd, &st), 0);
		assert_int_equal(st.st_size, 2 * MIB);
		/* Unlinked at once: nothing is left behind. */
		assert_int_equal(st.st_nlink, 0);
		assert_int_equal(pread(fd, back, 2 * MIB, 0), 2 * MIB);
		if (kind == SHMK_NORMAL)
			assert_memory_equal(back, data, 2 * MIB);
		else
			assert_true(!back[0] && !memcmp(back, back + 1,
							2 * MIB - 1));
		close(fd);
	}
	free(data);
	free(back);
}

/* ------------------------------------------------------------------ */
/* A wrong read ends the run                                           */
/* ------------------------------------------------------------------ */

/* read_changed() - In the child: read a file changed behind its back. */
static void read_changed(void *arg)
{
	static struct shm_bench b;
	struct bench_options opts = { .tiny = true };
	struct shmb_case c = { .b = &b, .row = "bad_row",
			       .method = SHMB_BATCHED, .bs = 4096 };
	struct shm_scale scale;
	struct folio *folio;

	(void)arg;
	shmb_scale_from_options(&opts, &scale);
	shmb_init(&b, &scale, "/proc");
	shmb_group_open(&b, SHMK_NORMAL, false);
	/* Behind the file's back: its last page changes. */
	folio = filemap_get_entry(&b.sf.mapping, scale.file_bytes / 4096 - 1);
	((unsigned char *)folio_address(folio))[17] ^= 0xff;
	folio_put(folio);
	shmb_setup(&c);
	shmb_body(&c);
	shmb_teardown(&c);
}

static void test_wrong_read_dies(void **state)
{
	(void)state;
	bt_expect_exit2(read_changed, NULL, "upcache-bench: shmem bad_row: "
			"the last block the batched loop read");
}

int main(void)
{
	const struct CMUnitTest suite_tests[] = {
		cmocka_unit_test(test_suite_json),
		cmocka_unit_test(test_suite_figures),
		cmocka_unit_test(test_suite_targets),
		cmocka_unit_test(test_suite_walks),
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_suite_without_kernel),
		cmocka_unit_test(test_per_folio_same_bytes),
		cmocka_unit_test(test_per_folio_walks),
		cmocka_unit_test(test_kernel_files),
		cmocka_unit_test(test_wrong_read_dies),
	};

	return cmocka_run_group_tests(suite_tests, suite_setup,
				      bt_suite_teardown) |
		cmocka_run_group_tests(tests, NULL, NULL);
}
