// SPDX-License-Identifier: MIT
/*
 * tests/bench/test_bench_shmem.c - upcache-bench's shmem suite (seed
 * 002) and its per-folio baseline.
 *
 * Runs the suite in-process at its tiny size and checks its JSON (one
 * valid object of the shape every suite writes, the 18 rows in order,
 * each with its three read figures, memcpy, the ratios and the issue's
 * targets), that every figure follows from the times by its definition
 * and every target is judged against its figure, the counted costs the seed is about (one XArray walk per
 * read for the batched path, one per page for the per-folio one), that
 * the per-folio baseline returns exactly the bytes shmem_read_iter()
 * returns (and the model holds) on files mixing data, holes, unwritten
 * folios, large folios and a punched range, at every kind of offset
 * and length, that the kernel's files are of their kind, that a
 * directory that is no tmpfs leaves the kernel figures null instead of
 * failing, that each half of the rows gets a tmpfs whose files have its
 * pages where one is mounted (shmk_find() on mount tables of the tests'
 * own) and says so in every row where none is, and that a wrong read
 * ends the run with exit status 2.
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

/* A table with no tmpfs and a first directory that is none either. */
static const struct shmk_where proc_where = {
	.first = "/proc", .shmem_enabled = SHMK_SHMEM_ENABLED,
};

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

/*
 * check_kernel_pages() - Row @row says which pages the kernel's file had
 * (null without a kernel figure), and why when they are not the row's:
 * exactly when its half's directory did not match (the report's meta).
 */
static void check_kernel_pages(const struct bench_report *rep,
			       const struct bench_row *row)
{
	const struct bench_field *pages = bench_row_get(row, "kernel_pages");
	const struct bench_field *why = bench_row_get(row, "kernel_mismatch");
	const struct bench_field *huge = bench_row_get(row, "huge");
	bool is_huge = !strcmp(huge->str, "always");
	const struct bench_field *matched = bench_row_get(&rep->meta,
		is_huge ? "kernel_matched_huge_rows" : "kernel_matched");

	assert_non_null(pages);
	assert_non_null(matched);
	if (isnan(bench_row_num(row, "gib_per_s_kernel"))) {
		assert_int_equal(pages->kind, BENCH_FIELD_NULL);
		assert_int_equal(matched->kind, BENCH_FIELD_NULL);
		assert_null(why);
		return;
	}
	assert_int_equal(pages->kind, BENCH_FIELD_STR);
	assert_string_equal(matched->str, !strcmp(pages->str,
			    is_huge ? "2m" : "4k") ? "yes" : "no");
	if (!strcmp(matched->str, "yes")) {
		assert_null(why);
		return;
	}
	assert_non_null(why);
	assert_int_equal(why->kind, BENCH_FIELD_STR);
	assert_non_null(strstr(why->str, is_huge ? "upcache's used 2 MiB" :
			       "upcache's used 4 KiB"));
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
		check_kernel_pages(&suite.rep, bt_row(&suite.rep, name));
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

/*
 * check_vs() - Batched against another method in row @name: the median
 * of per-round ratios @key (with its min and max) brackets the ratio of
 * the two methods' median GiB/s, as medians keep an order that holds
 * round by round.  Skipped where the other method has no figure.
 */
static void check_vs(const char *name, const char *key, const char *gib_key)
{
	const struct bench_row *row = bt_row(&suite.rep, name);
	double other = bench_row_num(row, gib_key), ratio;
	char min_key[48], max_key[48];

	if (isnan(other))
		return;
	snprintf(min_key, sizeof(min_key), "%s_min", key);
	snprintf(max_key, sizeof(max_key), "%s_max", key);
	ratio = num(name, "gib_per_s_batched") / other;
	assert_true(num(name, min_key) <= num(name, key));
	assert_true(num(name, key) <= num(name, max_key));
	if (ratio < num(name, min_key) * (1 - 1e-9) ||
	    ratio > num(name, max_key) * (1 + 1e-9))
		fail_msg("%s: batched/%s GiB/s %g outside %s [%g, %g]", name,
			 gib_key, ratio, key, num(name, min_key),
			 num(name, max_key));
}

/*
 * check_judged() - Target @key of row @name judged as shm_judge() must:
 * met when the figure reaches it, null without a target or a figure.
 * Return: 1 if judged, 0 if not; *@met gets 1 for a met target.
 */
static unsigned int check_judged(const char *name, const char *key,
				 const char *figure, unsigned int *met)
{
	const struct bench_row *row = bt_row(&suite.rep, name);
	double target = bench_row_num(row, key);
	double value = bench_row_num(row, figure);
	char met_key[64];
	const struct bench_field *f;

	snprintf(met_key, sizeof(met_key), "%s_met", key);
	f = bench_row_get(row, met_key);
	assert_non_null(f);
	*met = 0;
	if (isnan(target) || isnan(value)) {
		assert_int_equal(f->kind, BENCH_FIELD_NULL);
		return 0;
	}
	assert_int_equal(f->kind, BENCH_FIELD_STR);
	assert_string_equal(f->str, value >= target ? "yes" : "no");
	*met = value >= target;
	return 1;
}

/*
 * The figures follow from the times by their definitions: GiB/s are
 * bytes per block over the median time per block, in units of 2^30
 * bytes; each ratio brackets the GiB/s it compares; the per-folio sign
 * test counts the rounds each side won (with three rounds, batched's
 * median is ahead exactly when two rounds were); every target is judged
 * against its own figure, and the report's totals count them.
 */
static void test_suite_consistent(void **state)
{
	static const char *const targets[][2] = {
		{ "target_vs_kernel", "vs_kernel" },
		{ "target_vs_per_folio", "vs_per_folio" },
		{ "target_memcpy_fraction", "memcpy_fraction" },
	};
	unsigned int judged = 0, met = 0;
	char name[48];
	size_t r, t;

	(void)state;
	for (r = 0; r < NR_ROWS; r++) {
		unsigned int faster, slower, row_judged = 0, row_met = 0;
		double gib;

		row_name(r, name, sizeof(name));
		/* An odd count of rounds: each median is one round's. */
		assert_int_equal((int)num(name, "rounds") % 2, 1);
		gib = num(name, "bs") / num(name, "ns_per_read_batched") * 1e9 /
		      (1UL << 30);
		assert_near(num(name, "gib_per_s_batched") / gib, 1, 1e-9);
		check_vs(name, "vs_per_folio", "gib_per_s_per_folio");
		check_vs(name, "vs_kernel", "gib_per_s_kernel");
		check_vs(name, "memcpy_fraction", "gib_per_s_memcpy");
		assert_near(num(name, "vs_issue_kernel"),
			    num(name, "gib_per_s_batched") /
			    num(name, "issue_kernel_gib_per_s"), 1e-9);

		faster = (unsigned int)num(name, "vs_per_folio_rounds_faster");
		slower = (unsigned int)num(name, "vs_per_folio_rounds_slower");
		/*
		 * A round in neither count is a tie, its ratio exactly 1:
		 * a read inside one page runs the same code on both paths,
		 * and at this size their best times can agree to the
		 * nanosecond.
		 */
		assert_true(faster + slower <= num(name, "rounds"));
		if (faster + slower < num(name, "rounds")) {
			assert_true(num(name, "vs_per_folio_min") <= 1);
			assert_true(num(name, "vs_per_folio_max") >= 1);
		}
		assert_true((num(name, "vs_per_folio") > 1) ==
			    (faster > num(name, "rounds") / 2));
		assert_near(num(name, "vs_per_folio_sign_p"),
			    bt_sign_p(faster, slower), 1e-12);

		for (t = 0; t < sizeof(targets) / sizeof(targets[0]); t++) {
			unsigned int one;

			row_judged += check_judged(name, targets[t][0],
						   targets[t][1], &one);
			row_met += one;
		}
		if (!row_judged)
			assert_null(bt_str(&suite.rep, name, "targets_met"));
		else
			assert_string_equal(bt_str(&suite.rep, name,
						   "targets_met"),
					    row_met == row_judged ? "yes" : "no");
		judged += row_judged;
		met += row_met;
	}
	assert_near(bench_row_num(&suite.rep.meta, "targets"), judged, 0);
	assert_near(bench_row_num(&suite.rep.meta, "targets_met"), met, 0);
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
	return shm_suite_run(opts, out, rep, &proc_where);
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
	/* Neither half has one: no pages, no mismatch, and why. */
	side = bench_row_get(&rep.meta, "kernel_side_huge_rows");
	assert_non_null(side);
	assert_non_null(strstr(side->str, "not a tmpfs"));
	assert_null(bt_str(&rep, "read_hole_1m_huge", "kernel_pages"));
	assert_null(bench_row_get(bt_row(&rep, "read_hole_1m_huge"),
				  "kernel_mismatch"));
	assert_true(isnan(bench_row_num(bt_row(&rep, "read_normal_1m_huge"),
					"gib_per_s_kernel")));
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
/* Choosing the kernel's tmpfs                                         */
/* ------------------------------------------------------------------ */

/*
 * Fake mount tables list directories in a scratch directory on /dev/shm
 * as tmpfs mounts of each policy: the probes read the policy from the
 * table, and the directory itself is a real, writable tmpfs.
 */
static char scratch[] = "/dev/shm/upc-test-shmk-XXXXXX";

/**
 * struct fake - a scratch directory's paths.
 * @first: Tried first, like /dev/shm.
 * @never: A later "mount" with no huge= option.
 * @advise: One with huge=advise (4 KiB pages: nothing is madvise()d).
 * @within: One with huge=within_size.
 * @always: One with huge=always, after @within.
 * @mounts: The table.
 * @enabled: The fake shmem_enabled.
 * @where: Where shmk_find() looks: the above.
 */
struct fake {
	char first[64], never[64], advise[64], within[64], always[64];
	char mounts[64], enabled[64];
	struct shmk_where where;
};

static int fake_setup(void **state)
{
	static struct fake f;
	struct shmk_info shm;

	*state = NULL;
	shmk_probe(SHM_KERNEL_DIR, &shm);
	if (!shm.usable || !mkdtemp(scratch))
		return 0;	/* the tests skip */
	snprintf(f.first, sizeof(f.first), "%s/first", scratch);
	snprintf(f.never, sizeof(f.never), "%s/never", scratch);
	snprintf(f.advise, sizeof(f.advise), "%s/advise", scratch);
	snprintf(f.within, sizeof(f.within), "%s/within", scratch);
	snprintf(f.always, sizeof(f.always), "%s/always", scratch);
	snprintf(f.mounts, sizeof(f.mounts), "%s/mounts", scratch);
	snprintf(f.enabled, sizeof(f.enabled), "%s/enabled", scratch);
	if (mkdir(f.first, 0700) || mkdir(f.never, 0700) ||
	    mkdir(f.advise, 0700) || mkdir(f.within, 0700) ||
	    mkdir(f.always, 0700)) {
		bt_rm_rf(scratch);
		return -1;
	}
	f.where = (struct shmk_where) {
		.first = f.first, .mounts = f.mounts,
		.shmem_enabled = f.enabled,
	};
	*state = &f;
	return 0;
}

static int fake_teardown(void **state)
{
	return *state ? bt_rm_rf(scratch) : 0;
}

/* fake_get() - The scratch paths, or skip without a writable /dev/shm. */
static struct fake *fake_get(void **state)
{
	if (!*state)
		skip();
	return *state;
}

/* fake_write() - Write @text to @path. */
static void fake_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

/* fake_enabled() - Select @word in the fake shmem_enabled. */
static void fake_enabled(struct fake *f, const char *word)
{
	static const char *const words[] = {
		"always", "within_size", "advise", "never", "deny", "force",
	};
	char line[128] = "";
	size_t i;

	for (i = 0; i < BT_ARRAY_SIZE(words); i++)
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 !strcmp(words[i], word) ? "%s[%s]" : "%s%s",
			 i ? " " : "", words[i]);
	strcat(line, "\n");
	fake_write(f->enabled, line);
}

/*
 * fake_table() - A mount table: @first_huge for the first directory (NULL:
 * no huge= option), then /proc claimed as a huge tmpfs (skipped: the
 * system's own, and no tmpfs), a line too long to read (skipped whole),
 * an ext4 "mount" (skipped), then never, advise, within_size and always.
 */
static void fake_table(struct fake *f, const char *first_huge)
{
	char text[4096], junk[1500];
	int n;

	memset(junk, 'x', sizeof(junk) - 1);
	junk[sizeof(junk) - 1] = '\0';
	n = snprintf(text, sizeof(text),
		     "tmpfs %s tmpfs rw,relatime%s%s 0 0\n"
		     "proc /proc tmpfs rw,huge=always 0 0\n"
		     "tmpfs /%s tmpfs rw,huge=always 0 0\n"
		     "/dev/sda1 %s ext4 rw,huge=always 0 0\n"
		     "tmpfs %s tmpfs rw,size=1g 0 0\n"
		     "tmpfs %s tmpfs rw,size=1g,huge=advise 0 0\n"
		     "tmpfs %s tmpfs rw,huge=within_size,size=1g 0 0\n"
		     "tmpfs %s tmpfs rw,huge=always 0 0\n",
		     f->first, first_huge ? ",huge=" : "",
		     first_huge ? first_huge : "", junk, f->always, f->never,
		     f->advise, f->within, f->always);
	assert_true(n > 0 && n < (int)sizeof(text));
	fake_write(f->mounts, text);
}

/* find() - shmk_find() in the fake tables, wanting @huge pages. */
static void find(struct fake *f, bool huge, struct shmk_info *info)
{
	shmk_find(&f->where, huge, 4 * MIB, info);
	assert_true(info->usable);
}

/*
 * expect_find() - find(), and the directory it picked is @dir, matching
 * the pages wanted or not as @matched says.
 */
static void expect_find(struct fake *f, bool huge, const char *dir,
			bool matched, struct shmk_info *info)
{
	find(f, huge, info);
	assert_string_equal(info->dir, dir);
	assert_int_equal(info->matched, matched);
}

/* A tmpfs of the pages wanted is picked over the first directory. */
static void test_find_picks_match(void **state)
{
	struct fake *f = fake_get(state);
	struct shmk_info info;

	fake_enabled(f, "never");
	fake_table(f, NULL);
	find(f, true, &info);
	/* Not /proc, not the ext4 one, not advise: within_size, first. */
	assert_string_equal(info.dir, f->within);
	assert_true(info.matched);
	assert_string_equal(info.pages, "2m");
	assert_string_equal(info.effective, "within_size");
	assert_string_equal(info.mismatch, "");
	expect_find(f, false, f->first, true, &info);
	assert_string_equal(info.pages, "4k");

	/* A huge first directory: the 4 KiB rows go to the next one. */
	fake_table(f, "always");
	expect_find(f, false, f->never, true, &info);
	expect_find(f, true, f->first, true, &info);

	/* advise gives 4 KiB pages to a file nobody madvise()s. */
	fake_table(f, "advise");
	find(f, false, &info);
	assert_string_equal(info.dir, f->first);
	assert_string_equal(info.pages, "4k");
}

/* None matches: the first directory, and why, and what would help. */
static void test_find_falls_back(void **state)
{
	struct fake *f = fake_get(state);
	struct shmk_info info;
	char text[256];

	/* Only the first directory, without huge pages. */
	fake_enabled(f, "never");
	fake_write(f->mounts, "");
	expect_find(f, true, f->first, false, &info);
	assert_string_equal(info.mount_huge, "unknown");
	assert_string_equal(info.pages, "unknown");
	assert_non_null(strstr(info.mismatch, "no tmpfs mount point"));
	/* No table at all: the same. */
	f->where.mounts = NULL;
	find(f, false, &info);
	f->where.mounts = f->mounts;
	assert_string_equal(info.dir, f->first);
	assert_false(info.matched);

	/* deny: no tmpfs gives huge pages, and no mount can. */
	fake_enabled(f, "deny");
	fake_table(f, NULL);
	expect_find(f, true, f->first, false, &info);
	assert_string_equal(info.pages, "4k");
	assert_non_null(strstr(info.mismatch, "shmem_enabled [deny]"));
	assert_non_null(strstr(info.mismatch, "used 4 KiB pages where "
			       "upcache's used 2 MiB folios"));
	expect_find(f, false, f->first, true, &info);

	/* force: every tmpfs gives huge pages. */
	fake_enabled(f, "force");
	expect_find(f, false, f->first, false, &info);
	assert_string_equal(info.pages, "2m");
	assert_non_null(strstr(info.mismatch, "shmem_enabled [force]"));
	find(f, true, &info);
	assert_true(info.matched);

	/* The first directory gives the other pages, nothing else does. */
	fake_enabled(f, "never");
	snprintf(text, sizeof(text), "tmpfs %s tmpfs rw 0 0\n"
		 "tmpfs /proc tmpfs rw,huge=always 0 0\n", f->first);
	fake_write(f->mounts, text);
	find(f, true, &info);
	assert_false(info.matched);
	assert_string_equal(info.mount_huge, "never");
	assert_non_null(strstr(info.mismatch, "gives huge=never: its file "
			       "used 4 KiB pages"));
	assert_non_null(strstr(info.mismatch, "mount a huge=always tmpfs"));

	/* No room anywhere: the first directory, unusable, and why. */
	fake_table(f, NULL);
	shmk_find(&f->where, true, (size_t)1 << 62, &info);
	assert_false(info.usable);
	assert_false(info.matched);
	assert_string_equal(info.dir, f->first);
	assert_non_null(strstr(info.why, "MiB free"));
	assert_string_equal(info.mismatch, "");
}

static const struct shmk_where *suite_where;

static int shm_suite_where(const struct bench_options *opts,
			   struct bench_output *out, struct bench_report *rep)
{
	return shm_suite_run(opts, out, rep, suite_where);
}

/*
 * The suite takes each half's directory: the huge rows' kernel file in
 * the only huge "mount", the nohuge rows without one (the first
 * directory is no tmpfs, and no other gives 4 KiB pages).
 */
static void test_suite_kernel_per_half(void **state)
{
	struct fake *f = fake_get(state);
	struct shmk_where where = {
		.first = "/proc", .mounts = f->mounts,
		.shmem_enabled = f->enabled,
	};
	struct bench_report rep;
	char text[256];
	size_t r;

	fake_enabled(f, "never");
	snprintf(text, sizeof(text), "tmpfs %s tmpfs rw,huge=always 0 0\n",
		 f->always);
	fake_write(f->mounts, text);
	suite_where = &where;
	assert_int_equal(bt_run_tiny(shm_suite_where, "shmem", &rep), 0);
	assert_string_equal(bt_str(&rep, "read_normal_4k_nohuge", "huge"),
			    "never");
	assert_non_null(strstr(bench_row_get(&rep.meta, "kernel_side")->str,
			       "not a tmpfs"));
	assert_string_equal(bench_row_get(&rep.meta,
					  "kernel_dir_huge_rows")->str,
			    f->always);
	assert_string_equal(bench_row_get(&rep.meta,
					  "kernel_side_huge_rows")->str,
			    "measured");
	assert_string_equal(bench_row_get(&rep.meta,
					  "kernel_matched_huge_rows")->str,
			    "yes");
	for (r = 0; r < NR_ROWS; r++) {
		const struct bench_row *row = &rep.rows[r];
		bool huge = r >= NR_ROWS / 2;

		check_kernel_pages(&rep, row);
		assert_true(isnan(bench_row_num(row, "gib_per_s_kernel")) ==
			    !huge);
		if (huge)
			assert_string_equal(bench_row_get(row,
					    "kernel_pages")->str, "2m");
	}
	bench_report_free(&rep);
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
	shmb_init(&b, &scale, &proc_where);
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
		cmocka_unit_test(test_suite_consistent),
		cmocka_unit_test(test_suite_walks),
	};
	const struct CMUnitTest find_tests[] = {
		cmocka_unit_test(test_find_picks_match),
		cmocka_unit_test(test_find_falls_back),
		cmocka_unit_test(test_suite_kernel_per_half),
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
		cmocka_run_group_tests(find_tests, fake_setup, fake_teardown) |
		cmocka_run_group_tests(tests, NULL, NULL);
}
