// SPDX-License-Identifier: MIT
/*
 * tools/bench/seed_populate.c - seed 004's experiment, scaled: populate
 * a shmem file through writes, as guest_memfd restores a VM's memory.
 *
 * The seed populated a 3 GiB guest_memfd with writes and timed it before
 * and after filemap_grab_folios() (708 ms -> 635 ms, -10.3%).  Here a
 * shmem file of 1 GiB (256 MiB with --quick) is given its size, then
 * written from start to end in aligned 2 MiB writes, three ways, in the
 * same rounds, each round rotating which goes first:
 *
 *	after	the library's write path (shmem_write_iter()), which gets
 *		or creates each write's folios with one filemap_grab_folios()
 *		and copies into each stretch of them that follow each other
 *		in the arena at once
 *	before	the same write with a filemap_grab_folio() per folio and a
 *		copy per folio, the path seed 004 replaced (below; it lives
 *		only here)
 *	kernel	pwrite() into a file of the same size on the kernel's
 *		tmpfs (/dev/shm), in the same process
 *
 * Two rows: populate_small (huge=never: 512 order-0 folios per write) and
 * populate_large (huge=always: one order-9 folio per write; the kernel
 * side keeps /dev/shm's own huge= setting, named in the notes).  Every
 * file is read back and compared after its round, untimed; a write's
 * bytes depend on its position, so a misplaced folio is caught.
 *
 * Figures per row: each side's median milliseconds per population over
 * rounds (min..max); the time change (after - before) / before, whose
 * negative is the JSON's improvement_pct, and the kernel-over-upcache
 * ratio, both from medians of per-round ratios; and the tree walks and
 * i_pages lock round trips per write of each upcache side (upcache's
 * per-thread counters).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <upcache/filemap.h>
#include <upcache/stats.h>

#include "../../mm/iov_iter.h"
#include "../../mm/shmem.h"
#include "clock.h"
#include "counters.h"
#include "rng.h"
#include "samples.h"
#include "seed_populate.h"
#include "shm_kernel.h"
#include "table.h"
#include "util.h"

#define SP_WRITE	(2UL << 20)	/* one write: one aligned 2 MiB range */
#define SP_SOURCE	(2 * SP_WRITE)	/* writes take a slice of this */
#define SP_KERNEL_DIR	"/dev/shm"

enum sp_side { SP_AFTER, SP_BEFORE, SP_KERNEL, SP_NR_SIDES };

static const char *const sp_side_names[SP_NR_SIDES] = {
	"after", "before", "kernel",
};

/**
 * struct sp_env - one run of the experiment.
 * @size: Bytes of each file.
 * @rounds: Timed rounds.
 * @warmups: Untimed rounds first.
 * @mode: "full", "quick" or "tiny".
 * @arena: The upcache files' memory.
 * @src: SP_SOURCE random bytes.
 * @check: SP_WRITE bytes to read a file back into.
 * @kern: Where the kernel's files go and what huge policy they get.
 * @kernel_skip: Why the kernel side cannot run (@kern.why), or NULL.
 */
struct sp_env {
	size_t size;
	unsigned int rounds;
	unsigned int warmups;
	const char *mode;
	struct upc_arena *arena;
	unsigned char *src;
	unsigned char *check;
	struct shmk_info kern;
	const char *kernel_skip;
};

/**
 * struct sp_row - what one row measured.
 * @ms: Milliseconds per population, per side and round.
 * @counts: Counters per upcache side, over all timed rounds.
 */
struct sp_row {
	double ms[SP_NR_SIDES][BENCH_MAX_ROUNDS];
	struct bench_counts counts[SP_NR_SIDES];
};

/* What the write at @pos writes: a slice of the source that @pos picks. */
static const unsigned char *sp_data(const struct sp_env *env, size_t pos)
{
	size_t k = pos / SP_WRITE;

	return env->src + (k * 4096 * 7) % SP_WRITE;
}

/* ---- before: a folio at a time -------------------------------------------- */

/*
 * sp_before_write() - shmem's write of [@pos, @pos + @len) with the
 * get-or-create of every folio done one filemap_grab_folio() at a time:
 * a lookup walk, and on a miss an allocation and an add (a second walk
 * and a lock round trip) per folio.  The rest is what shmem_write_iter()
 * does to each folio.  The file's size already covers the range.
 * Return: 0, or -ENOMEM.
 */
static int sp_before_write(struct shmem_file *sf, const unsigned char *data,
			   size_t len, size_t pos)
{
	fgf_t fgp = FGP_LOCK | FGP_ACCESSED | FGP_CREAT |
		    fgf_set_order(SP_WRITE);
	pgoff_t index = pos >> UPC_PAGE_SHIFT;
	pgoff_t end = (pos + len) >> UPC_PAGE_SHIFT;
	int err = 0;

	pthread_rwlock_wrlock(&sf->rwsem);
	while (index < end) {
		struct folio *folio;
		size_t from, to;
		char *addr;

		folio = __filemap_get_folio(&sf->mapping, index, fgp,
					    GFP_KERNEL);
		if (IS_ERR(folio)) {
			err = (int)PTR_ERR(folio);
			break;
		}
		addr = folio_address(folio);
		from = index > folio->index ?
			(index - folio->index) << UPC_PAGE_SHIFT : 0;
		to = folio_next_index(folio) < end ? folio_size(folio) :
			(end - folio->index) << UPC_PAGE_SHIFT;
		if (!folio_test_uptodate(folio)) {
			memset(addr, 0, from);
			memset(addr + to, 0, folio_size(folio) - to);
		}
		memcpy(addr + from, data, to - from);
		data += to - from;
		folio_set_uptodate(folio);
		folio_mark_dirty(folio);
		index = folio_next_index(folio);
		folio_unlock(folio);
		folio_put(folio);
	}
	pthread_rwlock_unlock(&sf->rwsem);
	return err;
}

/* ---- the upcache sides ------------------------------------------------------ */

/* A file of env->size bytes, empty, with @huge's policy. */
static struct shmem_file *sp_shmem_open(const struct sp_env *env,
					enum shmem_huge huge)
{
	struct shmem_file *sf = bench_xcalloc(1, sizeof(*sf));
	int err;

	err = shmem_file_init(sf, env->arena, huge, false);
	if (err)
		bench_die("seed 004: shmem_file_init: %s", strerror(-err));
	shmem_truncate(sf, (int64_t)env->size);
	return sf;
}

/* The library's write of one slice at @pos. */
static int sp_after_write(struct shmem_file *sf, const unsigned char *data,
			  size_t len, size_t pos)
{
	struct iovec iov = { .iov_base = (void *)data, .iov_len = len };
	struct iov_iter iter;
	ssize_t done;

	iov_iter_init(&iter, &iov, 1, len);
	done = shmem_write_iter(sf, &iter, (int64_t)pos);
	if (done < 0)
		return (int)done;
	return (size_t)done == len ? 0 : -EIO;
}

/* Read @sf back and compare it with what the writes wrote. */
static void sp_shmem_verify(const struct sp_env *env, struct shmem_file *sf,
			    const char *row, enum sp_side side)
{
	size_t pos;

	for (pos = 0; pos < env->size; pos += SP_WRITE) {
		struct iovec iov = { .iov_base = env->check,
				     .iov_len = SP_WRITE };
		struct iov_iter iter;
		ssize_t got;

		iov_iter_init(&iter, &iov, 1, SP_WRITE);
		got = shmem_read_iter(sf, &iter, (int64_t)pos);
		if (got != (ssize_t)SP_WRITE ||
		    memcmp(env->check, sp_data(env, pos), SP_WRITE))
			bench_die("seed 004 %s (%s): the file differs from "
				  "what was written at offset %zu", row,
				  sp_side_names[side], pos);
	}
}

/* One population of a new upcache file; Return: its nanoseconds. */
static uint64_t sp_run_upcache(const struct sp_env *env, enum sp_side side,
			       enum shmem_huge huge, const char *row,
			       struct bench_counts *counts)
{
	struct shmem_file *sf = sp_shmem_open(env, huge);
	struct upc_thread_stats snap;
	uint64_t t0, ns;
	size_t pos;
	int err = 0;

	upc_stats_thread(&snap);
	t0 = bench_now_ns();
	for (pos = 0; pos < env->size && !err; pos += SP_WRITE) {
		if (side == SP_AFTER)
			err = sp_after_write(sf, sp_data(env, pos), SP_WRITE,
					     pos);
		else
			err = sp_before_write(sf, sp_data(env, pos), SP_WRITE,
					      pos);
	}
	ns = bench_now_ns() - t0;
	if (counts)
		bench_counts_add_since(counts, &snap, env->size / SP_WRITE);
	if (err)
		bench_die("seed 004 %s (%s): a write failed: %s", row,
			  sp_side_names[side], strerror(-err));
	sp_shmem_verify(env, sf, row, side);
	shmem_file_destroy(sf);
	free(sf);
	if (upc_arena_charged(env->arena))
		bench_die("seed 004 %s (%s): %lu pages still charged after "
			  "the file was destroyed", row, sp_side_names[side],
			  upc_arena_charged(env->arena));
	return ns;
}

/* ---- the kernel side --------------------------------------------------------- */

/* Read the kernel's file back and compare. */
static void sp_kernel_verify(const struct sp_env *env, int fd, const char *row)
{
	size_t pos;

	for (pos = 0; pos < env->size; pos += SP_WRITE)
		if (pread(fd, env->check, SP_WRITE, (off_t)pos) !=
		    (ssize_t)SP_WRITE ||
		    memcmp(env->check, sp_data(env, pos), SP_WRITE))
			bench_die("seed 004 %s (kernel): the file differs "
				  "from what was written at offset %zu", row,
				  pos);
}

/* One population of a new tmpfs file; Return: its nanoseconds. */
static uint64_t sp_run_kernel(const struct sp_env *env, const char *row)
{
	int fd = shmk_create(&env->kern, SHMK_HOLE, NULL, env->size);
	uint64_t t0, ns;
	size_t pos;

	t0 = bench_now_ns();
	for (pos = 0; pos < env->size; pos += SP_WRITE)
		if (pwrite(fd, sp_data(env, pos), SP_WRITE, (off_t)pos) !=
		    (ssize_t)SP_WRITE)
			bench_die("seed 004 %s (kernel): pwrite: %s", row,
				  strerror(errno));
	ns = bench_now_ns() - t0;
	sp_kernel_verify(env, fd, row);
	close(fd);
	return ns;
}

/* ---- rounds, rows, table -------------------------------------------------- */

/* Run one round of @row: every side once, starting with side @first. */
static void sp_round(const struct sp_env *env, enum shmem_huge huge,
		     const char *row, unsigned int first, int round,
		     struct sp_row *r)
{
	unsigned int k;

	for (k = 0; k < SP_NR_SIDES; k++) {
		enum sp_side side = (first + k) % SP_NR_SIDES;
		struct bench_counts *counts = NULL;
		uint64_t ns;

		if (side == SP_KERNEL && env->kernel_skip)
			continue;
		if (round >= 0 && side != SP_KERNEL)
			counts = &r->counts[side];
		ns = side == SP_KERNEL ? sp_run_kernel(env, row) :
			sp_run_upcache(env, side, huge, row, counts);
		if (round >= 0)
			r->ms[side][round] = (double)ns / 1e6;
	}
}

/* Median [min..max] of one side's milliseconds. */
static void sp_summary(const struct sp_env *env, const struct sp_row *r,
		       enum sp_side side, struct bench_summary *s)
{
	if (side == SP_KERNEL && env->kernel_skip)
		bench_summary_none(s);
	else
		bench_summarize(r->ms[side], env->rounds, s);
}

/* Median [min..max] over rounds of @num / @den, or NaN if @den is absent. */
static void sp_ratio(const struct sp_env *env, const struct sp_row *r,
		     enum sp_side num, enum sp_side den, struct bench_summary *s)
{
	if ((num == SP_KERNEL || den == SP_KERNEL) && env->kernel_skip)
		bench_summary_none(s);
	else
		bench_ratio_summary(r->ms[num], r->ms[den], env->rounds, s);
}

static const struct bench_table_col sp_cols[] = {
	{ "row", 16, true },
	{ "before ms", 10, false },
	{ "after ms", 9, false },
	{ "time change", 12, false },
	{ "kernel ms", 10, false },
	{ "kernel/upcache", 15, false },
	{ "walks/write", 12, false },
	{ "before", 7, false },
	{ "locks/write", 12, false },
	{ "before", 7, false },
};

#define SP_NR_COLS	(sizeof(sp_cols) / sizeof(sp_cols[0]))

/* Add @row's figures to the report and print its line. */
static void sp_report_row(const struct sp_env *env, struct bench_output *out,
			  struct bench_report *rep, const char *name,
			  const struct sp_row *r)
{
	struct bench_table t = { out->table, sp_cols, SP_NR_COLS };
	struct bench_summary s[SP_NR_SIDES], speed, vs_kernel;
	static const char *const num_keys[SP_NR_COLS] = {
		NULL, NULL, NULL, NULL, NULL, NULL, "walks_per_write",
		"walks_per_write_before", "locks_per_write",
		"locks_per_write_before",
	};
	char cells[SP_NR_COLS][BENCH_CELL_LEN];
	const char *cellp[SP_NR_COLS];
	struct bench_row *row;
	double improvement;
	unsigned int k;

	for (k = 0; k < SP_NR_SIDES; k++)
		sp_summary(env, r, k, &s[k]);
	sp_ratio(env, r, SP_BEFORE, SP_AFTER, &speed);
	sp_ratio(env, r, SP_KERNEL, SP_AFTER, &vs_kernel);
	/* before/after = 1 / (1 - improvement) */
	improvement = 100.0 * (1.0 - 1.0 / speed.median);

	row = bench_report_add_row(rep, name);
	bench_row_set_str(row, "unit", "ms");
	bench_row_set_summary(row, "ms_before", "ms_before_min",
			      "ms_before_max", &s[SP_BEFORE]);
	bench_row_set_summary(row, "ms_after", "ms_after_min", "ms_after_max",
			      &s[SP_AFTER]);
	bench_row_set_summary(row, "ms_kernel", "ms_kernel_min",
			      "ms_kernel_max", &s[SP_KERNEL]);
	bench_row_set_summary(row, "speedup", "speedup_min", "speedup_max",
			      &speed);
	bench_row_set_num(row, "improvement_pct", improvement);
	bench_row_set_summary(row, "vs_kernel", "vs_kernel_min",
			      "vs_kernel_max", &vs_kernel);
	bench_row_set_str(row, "kernel_skipped", env->kernel_skip);
	bench_row_set_num(row, "walks_per_write",
			  bench_per_op(r->counts[SP_AFTER].walks,
				       r->counts[SP_AFTER].ops));
	bench_row_set_num(row, "walks_per_write_before",
			  bench_per_op(r->counts[SP_BEFORE].walks,
				       r->counts[SP_BEFORE].ops));
	bench_row_set_num(row, "locks_per_write",
			  bench_per_op(r->counts[SP_AFTER].locks,
				       r->counts[SP_AFTER].ops));
	bench_row_set_num(row, "locks_per_write_before",
			  bench_per_op(r->counts[SP_BEFORE].locks,
				       r->counts[SP_BEFORE].ops));

	bench_fmt_row_nums(row, num_keys, SP_NR_COLS, cells, cellp);
	snprintf(cells[0], sizeof(cells[0]), "%s", name);
	bench_fmt_num(cells[1], sizeof(cells[1]), s[SP_BEFORE].median);
	bench_fmt_num(cells[2], sizeof(cells[2]), s[SP_AFTER].median);
	snprintf(cells[3], sizeof(cells[3]), "%+.1f%%", -improvement);
	bench_fmt_num(cells[4], sizeof(cells[4]), s[SP_KERNEL].median);
	snprintf(cells[5], sizeof(cells[5]), "%.2fx", vs_kernel.median);
	if (env->kernel_skip)
		cellp[4] = cellp[5] = NULL;
	bench_table_row(&t, cellp);
}

/* Measure one row: warm-ups, then the timed rounds. */
static void sp_measure(const struct sp_env *env, struct bench_output *out,
		       struct bench_report *rep, const char *name,
		       enum shmem_huge huge)
{
	struct sp_row *r = bench_xcalloc(1, sizeof(*r));
	unsigned int i;

	for (i = 0; i < env->warmups; i++)
		sp_round(env, huge, name, i % SP_NR_SIDES, -1, r);
	for (i = 0; i < env->rounds; i++)
		sp_round(env, huge, name, i % SP_NR_SIDES, (int)i, r);
	sp_report_row(env, out, rep, name, r);
	free(r);
}

/* Sizes and rounds for the options' mode. */
static void sp_env_init(struct sp_env *env, const struct bench_options *opts)
{
	struct bench_rng rng = { .state = 0x5eed004 };
	size_t i;
	int err;

	memset(env, 0, sizeof(*env));
	if (opts->tiny) {
		env->mode = "tiny";
		env->size = 16UL << 20;
		env->rounds = 3;
	} else if (opts->quick) {
		env->mode = "quick";
		env->size = 256UL << 20;
		env->rounds = 7;
		env->warmups = 1;
	} else {
		env->mode = "full";
		env->size = 1UL << 30;
		env->rounds = 11;
		env->warmups = 1;
	}
	if (opts->rounds)
		env->rounds = opts->rounds;
	err = upc_arena_create(env->size + (16UL << 20), &env->arena);
	if (err)
		bench_die("seed 004: cannot create a %zu MiB arena: %s",
			  (env->size >> 20) + 16, strerror(-err));
	env->src = bench_xcalloc(1, SP_SOURCE);
	env->check = bench_xcalloc(1, SP_WRITE);
	for (i = 0; i < SP_SOURCE; i++)
		env->src[i] = (unsigned char)bench_rng_next(&rng);
	shmk_probe(SP_KERNEL_DIR, &env->kern);
	/* One kernel file at a time, plus room for tmpfs's own use. */
	shmk_require_space(&env->kern, env->size + (16UL << 20));
	env->kernel_skip = env->kern.usable ? NULL : env->kern.why;
}

int seed_populate_run(const struct bench_options *opts,
		      struct bench_output *out, struct bench_report *rep)
{
	struct bench_table t = { out->table, sp_cols, SP_NR_COLS };
	struct sp_env env;

	sp_env_init(&env, opts);
	bench_row_set_str(&rep->meta, "mode", env.mode);
	bench_row_set_num(&rep->meta, "file_mib", (double)(env.size >> 20));
	bench_row_set_num(&rep->meta, "write_kib", (double)(SP_WRITE >> 10));
	bench_row_set_num(&rep->meta, "rounds", env.rounds);
	bench_row_set_str(&rep->meta, "kernel_shmem_enabled",
			  env.kern.shmem_enabled);
	bench_row_set_str(&rep->meta, "kernel_huge", env.kern.effective);
	fprintf(out->table,
		"seed 004 (%s): populate a %zu MiB shmem file with %lu KiB "
		"writes, %u rounds (after, before, kernel, rotating)\n",
		env.mode, env.size >> 20, SP_WRITE >> 10, env.rounds);
	bench_table_header(&t);
	sp_measure(&env, out, rep, "populate_small", SHMEM_HUGE_NEVER);
	sp_measure(&env, out, rep, "populate_large", SHMEM_HUGE_ALWAYS);
	fprintf(out->table,
		"notes:\n"
		"  before: a filemap_grab_folio() and a copy per folio (the "
		"path seed 004 replaced); after: shmem_write_iter(),\n"
		"    one filemap_grab_folios() per write, and one copy per "
		"stretch of folios adjacent in the arena;\n"
		"    time change: (after - before) / before, from the median "
		"of per-round ratios (negative: after is faster)\n"
		"  kernel: pwrite() into a file on " SP_KERNEL_DIR
		" (its files get huge=%s)%s%s\n",
		env.kern.effective, env.kernel_skip ? "; skipped: " : "",
		env.kernel_skip ? env.kernel_skip : "");
	upc_arena_destroy(env.arena);
	free(env.src);
	free(env.check);
	return 0;
}
