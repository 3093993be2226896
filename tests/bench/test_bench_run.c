// SPDX-License-Identifier: MIT
/*
 * tests/bench/test_bench_run.c - `upcache-bench run` and `compare`,
 * end to end but tiny.
 *
 * Runs small jobs in-process: upcache-shmem, upcache-file, upcache-anon
 * and the kernel baselines move exactly size= bytes in size/bs
 * operations per clone and record a latency per operation; every engine
 * reads the layout's pattern and reads back what it wrote (driven
 * directly, blocks straddling pages, upcache-anon through swap in memory
 * and in a file); random patterns visit every block once per pass;
 * files a kernel job created are removed; what an upcache-file write job
 * wrote is in the real file afterwards, also when the file is larger
 * than memory_limit= (dirty folios written back by reclaim) and when
 * clones share it; upcache-anon runs memhog (a region four times its
 * limit) and a mixed job over swap, and removes the swap file it made;
 * upcache-shmem runs files four times its limit over swap (written,
 * read, shared by clones, in memory and in a swap file), and refuses,
 * saying why, a limit below files that cannot go to swap (huge pages,
 * fallocated pages) or with too little swap;
 * the JSON has fio's figures, a group's per direction over the clones
 * that moved data that way; the measured phase carries on from the
 * ramp's offsets; rw=readwrite walks the region once per direction;
 * every clone of a run has its own seed, random passes their own order
 * and directions their own stream; a read past the end of a file fails
 * the run on every engine; direct=1 opens upcache-file's and the kernel
 * engines' files with O_DIRECT (as /proc/self/fdinfo shows; without it,
 * none is), and they read and write the right bytes, which the kept file
 * holds, through the runner too (a file system that refuses O_DIRECT
 * must fail such a job, naming the file: there, the direct tests check
 * that and are skipped, saying so); file_io_uring=1 sends upcache-file's
 * writeback through io_uring, and a job with fsync= leaves its data in
 * the file; the example job file runs unchanged; bad
 * input (unknown option, bad size, negative runtime, missing job file
 * or directory, swap options that are wrong or on the wrong engine) is
 * exit status 2; a baseline this
 * machine cannot run fairly is skipped with a reason; Ctrl-C stops a
 * time-based job with status 130; compare pairs rounds and reports
 * medians and ratios.
 *
 * Linked with the benchmark's sources (see cmake/UpcacheTests.cmake).
 */
#define _GNU_SOURCE	/* O_DIRECT */
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "bench_helpers.h"
#include "../../tools/bench/clock.h"
#include "../../tools/bench/kernel_env.h"
#include "../../tools/bench/run_engine.h"
#include "../../tools/bench/run_exec.h"
#include "../../tools/bench/run_hist.h"
#include "../../tools/bench/run_report.h"
#include "../../tools/bench/run_spec.h"
#include "../../tools/bench/run_suite.h"
#include "../../tools/bench/suite.h"
#include "../../tools/bench/util.h"
#include "../../io/fd.h"
#include "../../io/uring.h"

#define MiB	(1024ULL * 1024)

/*
 * The spec of the last execute(): results point at its jobs, so it lives
 * until the next execute() or the end.
 */
static struct run_spec *cur_spec;

/* spec_drop() - Free the spec of the last execute(). */
static void spec_drop(void)
{
	if (cur_spec)
		run_spec_free(cur_spec);
	free(cur_spec);
	cur_spec = NULL;
}

/* execute() - Parse @argv and run it; the results in @res. */
static void execute(int argc, char **argv, struct run_outcome *res)
{
	char err[300];

	spec_drop();
	cur_spec = bench_xcalloc(1, sizeof(*cur_spec));
	if (run_parse_args(argc, argv, cur_spec, err, sizeof(err)))
		fail_msg("parse: %s", err);
	run_stop_reset();
	if (run_execute(cur_spec, res, NULL, err, sizeof(err)))
		fail_msg("run: %s", err);
}

#define run_status(...) bt_call_argv(bench_suite_run_argv, __VA_ARGS__)
#define slurp(path) bt_slurp(path)

/*
 * swapped_to() - Is there a file at @path with a byte that is not zero?
 * A kept swap file has some once pages went to it (a new one starts as
 * a hole); one that was never used reads as zeros.
 */
static bool swapped_to(const char *path)
{
	unsigned char buf[64 * 1024];
	bool data = false;
	ssize_t n, i;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return false;
	while (!data && (n = read(fd, buf, sizeof(buf))) > 0)
		for (i = 0; i < n && !data; i++)
			data = buf[i] != 0;
	close(fd);
	return data;
}

/*
 * expect_mixed_kept() - A mixed job of two clones on one file: each
 * moved @bytes, reading and writing, and the swap file @name (under the
 * test's directory), kept by unlink=0, holds swapped data; it is then
 * removed.  Frees @res.
 */
static void expect_mixed_kept(struct run_outcome *res, uint64_t bytes,
			      const char *name)
{
	const struct run_stats *st;
	char path[128];
	size_t i;

	assert_int_equal(res->nr_results, 2);
	for (i = 0; i < 2; i++) {
		st = &res->results[i].st;
		assert_int_equal(st->bytes[RUN_DIR_READ] +
				 st->bytes[RUN_DIR_WRITE], bytes);
		assert_true(st->ops[RUN_DIR_READ] && st->ops[RUN_DIR_WRITE]);
	}
	run_outcome_free(res);
	snprintf(path, sizeof(path), "%s/%s", bt_tmpdir, name);
	assert_true(swapped_to(path));
	assert_int_equal(unlink(path), 0);
}

/* count() - How many times @needle occurs in @hay. */
static int count(const char *hay, const char *needle)
{
	int n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay++;
	}
	return n;
}

static void test_run_shmem_moves_size(void **state)
{
	char *argv[] = { "--name=s", "--ioengine=upcache-shmem", "--size=1m",
			 "--bs=4k", "--numjobs=2" };
	struct run_outcome res;
	size_t i;

	(void)state;
	execute(5, argv, &res);
	assert_int_equal(res.nr_results, 2);
	for (i = 0; i < 2; i++) {
		const struct run_stats *st = &res.results[i].st;

		assert_int_equal(st->bytes[RUN_DIR_READ], MiB);
		assert_int_equal(st->ops[RUN_DIR_READ], MiB / 4096);
		assert_int_equal(st->bytes[RUN_DIR_WRITE], 0);
		assert_int_equal(st->hist[RUN_DIR_READ].count, MiB / 4096);
		assert_true(res.results[i].upcache);
		assert_int_equal(st->counts.ops, MiB / 4096);
		assert_true(st->counts.walks >= st->counts.ops);
	}
	assert_int_equal(res.nr_groups, 1);
	assert_int_equal(res.groups[0].bytes[RUN_DIR_READ], 2 * MiB);
	assert_false(res.interrupted);
	run_outcome_free(&res);
}

static void test_run_kernel_psync_and_cleanup(void **state)
{
	char dir[64], path[128];
	char *argv[] = { "--name=k", "--ioengine=kernel-psync", "--size=1m",
			 "--bs=64k", "--rw=randrw", "--numjobs=2",
			 "--group_reporting", dir };
	struct run_outcome res;
	struct stat st;

	(void)state;
	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	execute(8, argv, &res);
	assert_int_equal(res.nr_results, 1);
	assert_int_equal(res.results[0].clones, 2);
	assert_int_equal(res.results[0].st.bytes[RUN_DIR_READ] +
			 res.results[0].st.bytes[RUN_DIR_WRITE], 2 * MiB);
	assert_false(res.results[0].upcache);
	run_outcome_free(&res);
	snprintf(path, sizeof(path), "%s/k.0.0", bt_tmpdir);
	assert_int_not_equal(stat(path, &st), 0);	/* removed */
}

/*
 * group_reporting is a job's, as fio counts entries: a clone of a job
 * with it joins the entry before it in its group, any other clone
 * starts its own.  So a job without it after one with it stands alone
 * (its figures are not put under the other's engine), and one with it
 * after one without joins that one, as in fio.
 */
static void test_run_group_reporting_per_job(void **state)
{
	char dir[64];
	char *alone[] = { "--size=256k", dir,
			  "--name=a", "--ioengine=upcache-shmem", "--numjobs=2",
			  "--group_reporting",
			  "--name=b", "--ioengine=kernel-psync" };
	char *joins[] = { "--size=256k", dir,
			  "--name=c", "--ioengine=kernel-psync",
			  "--name=d", "--ioengine=upcache-shmem",
			  "--group_reporting" };
	struct run_outcome res;

	(void)state;
	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	execute(8, alone, &res);
	assert_int_equal(res.nr_results, 2);
	assert_string_equal(res.results[0].job->name, "a");
	assert_int_equal(res.results[0].clones, 2);
	assert_true(res.results[0].upcache);
	assert_string_equal(res.results[1].job->name, "b");
	assert_int_equal(res.results[1].clones, 1);
	assert_false(res.results[1].upcache);
	run_outcome_free(&res);
	execute(7, joins, &res);
	assert_int_equal(res.nr_results, 1);
	assert_string_equal(res.results[0].job->name, "c");
	assert_int_equal(res.results[0].clones, 2);
	run_outcome_free(&res);
}

static void test_run_engines_same_bytes(void **state)
{
	static const char *const engines[] = {
		"--ioengine=kernel-sync", "--ioengine=kernel-mmap",
		"--ioengine=upcache-shmem", "--ioengine=upcache-file",
		"--ioengine=upcache-anon",
	};
	static const char *const kinds[] = {
		"--file_kind=normal", "--file_kind=fallocated",
		"--file_kind=hole",
	};
	char dir[64];
	size_t e, k;

	(void)state;
	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	for (e = 0; e < sizeof(engines) / sizeof(engines[0]); e++) {
		for (k = 0; k < 3; k++) {
			char *argv[] = { "--name=e", (char *)engines[e],
					 (char *)kinds[k], "--size=512k",
					 "--rw=randread", "--offset=64k",
					 dir };
			struct run_outcome res;

			execute(7, argv, &res);
			assert_int_equal(res.results[0].st.bytes[0], 512 * 1024);
			assert_int_equal(res.results[0].st.ops[0], 128);
			run_outcome_free(&res);
		}
	}
}

/*
 * The layout's pattern tells its blocks apart: no two 4 KiB blocks of a
 * chunk are alike (a read at the wrong offset shows), none is all zeros.
 */
static void test_run_pattern_blocks_differ(void **state)
{
	const size_t block = 4096, nr = RUN_LAYOUT_CHUNK / block;
	unsigned char *p = bench_xcalloc(1, RUN_LAYOUT_CHUNK);
	unsigned char zero[4096] = { 0 };
	size_t a, b;

	(void)state;
	run_fill_pattern(p, RUN_LAYOUT_CHUNK);
	for (a = 0; a < nr; a++) {
		assert_true(memcmp(p + a * block, zero, block) != 0);
		for (b = a + 1; b < nr; b++)
			if (!memcmp(p + a * block, p + b * block, block))
				fail_msg("blocks %zu and %zu are alike", a, b);
	}
	free(p);
}

/*
 * The text output puts the job's units first, as fio does: binary ones
 * (KiB, MiB) by default, decimal ones (kB, MB) under kb_base=1000, with
 * the other kind in parentheses; the group line follows its first job.
 */
static void test_run_text_units_follow_kb_base(void **state)
{
	static const char *const bases[] = { "--kb_base=1024",
					     "--kb_base=1000" };
	static const char *const want[][2] = {
		{ "(1.00MiB/", "io=1.00MiB (1.05MB)" },
		{ "(1.00MB/", "io=1.00MB (977KiB)" },
	};
	size_t b;

	(void)state;
	for (b = 0; b < 2; b++) {
		char *argv[] = { "--name=u", "--ioengine=upcache-shmem",
				 "--size=1m", "--bs=1k", (char *)bases[b] };
		struct run_outcome res;
		char *text = NULL;
		size_t len = 0;
		FILE *out;

		execute(5, argv, &res);
		out = open_memstream(&text, &len);
		assert_non_null(out);
		run_report_text(out, &res);
		fclose(out);
		if (!strstr(text, want[b][0]) || !strstr(text, want[b][1]))
			fail_msg("%s: not in the units expected:\n%s",
				 bases[b], text);
		free(text);
		run_outcome_free(&res);
	}
}

/* want_byte() - Byte @off after a write of generation @gen (0: layout). */
static unsigned char want_byte(const unsigned char *pattern, uint64_t off,
			       int gen)
{
	if (!gen)
		return pattern[off % RUN_LAYOUT_CHUNK];
	return (unsigned char)((off * 7 + 1) ^ 0xa5);
}

/*
 * fds_on() - How many of this process's descriptors are open on @path,
 * and (in *@direct) how many of them with O_DIRECT, as
 * /proc/self/fdinfo says: what an engine really opened, not what it was
 * asked to.
 */
static int fds_on(const char *path, int *direct)
{
	char real[PATH_MAX], link[PATH_MAX], name[300], line[128];
	struct dirent *de;
	int nr = 0;
	DIR *d;

	*direct = 0;
	assert_non_null(realpath(path, real));
	d = opendir("/proc/self/fd");
	assert_non_null(d);
	while ((de = readdir(d))) {
		ssize_t n;
		FILE *f;

		snprintf(name, sizeof(name), "/proc/self/fd/%s", de->d_name);
		n = readlink(name, link, sizeof(link) - 1);
		if (n < 0)
			continue;
		link[n] = '\0';
		if (strcmp(link, real))
			continue;
		nr++;
		snprintf(name, sizeof(name), "/proc/self/fdinfo/%s",
			 de->d_name);
		f = fopen(name, "r");
		assert_non_null(f);
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "flags:", 6) &&
			    (strtoul(line + 6, NULL, 8) & O_DIRECT))
				(*direct)++;
		fclose(f);
	}
	closedir(d);
	return nr;
}

/*
 * expect_open_as_asked() - The engine of @job, set up and open, has its
 * file open, with O_DIRECT if and only if the job says direct=1.
 */
static void expect_open_as_asked(const struct run_job *job)
{
	char *path;
	int nr, direct;

	if (!strncmp(job->engine, "upcache-", 8) &&
	    strcmp(job->engine, "upcache-file"))
		return;		/* no file: upcache-shmem, upcache-anon */
	path = run_file_path(job, 0);
	nr = fds_on(path, &direct);
	assert_true(nr >= 1);
	if (job->direct ? !direct : direct)
		fail_msg("%s: %d of %d descriptors on %s have O_DIRECT, with "
			 "direct=%d", job->engine, direct, nr, path,
			 job->direct);
	free(path);
}

/*
 * verify_file() - After the job's teardown, its kept file (unlink=0)
 * holds the bytes verify_engine() expects, is filesize= long, and is
 * then removed.
 */
static void verify_file(const struct run_job *job,
			const unsigned char *pattern, bool wrote)
{
	char *path = run_file_path(job, 0);
	unsigned char *got = bench_xcalloc(1, job->filesize);
	uint64_t i;
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal((uint64_t)st.st_size, job->filesize);
	assert_int_equal(pread(fd, got, job->filesize, 0),
			 (ssize_t)job->filesize);
	close(fd);
	for (i = 0; i < job->filesize; i++) {
		int gen = wrote && ((i / job->bs) & 1);

		if (got[i] != want_byte(pattern, i, gen))
			fail_msg("%s: %s: byte %llu is %#x in the file, "
				 "expected %#x", job->engine, path,
				 (unsigned long long)i, got[i],
				 want_byte(pattern, i, gen));
	}
	assert_int_equal(unlink(path), 0);
	free(got);
	free(path);
}

/*
 * verify_engine() - Drive the engine of the job @argv describes
 * directly: read every block and compare it with the layout's pattern,
 * write every other block with bytes of its own (a job that writes),
 * then read everything back: written blocks hold the new bytes, the
 * others the pattern.  The buffer is page-aligned, as the runner's is
 * (direct=1 kernel engines need it).  The engine's file must be open
 * with O_DIRECT exactly when the job says direct=1, and a file the job
 * keeps (unlink=0) must hold the same bytes afterwards.
 */
static void verify_engine(int argc, char **argv)
{
	unsigned char *pattern = bench_xcalloc(1, RUN_LAYOUT_CHUNK);
	const struct run_engine *eng;
	const struct run_job *job;
	unsigned char *buf = NULL;
	char err[300];
	void *ctx, *h;
	uint64_t off;
	bool writes;
	int pass;

	run_fill_pattern(pattern, RUN_LAYOUT_CHUNK);
	spec_drop();
	cur_spec = bench_xcalloc(1, sizeof(*cur_spec));
	if (run_parse_args(argc, argv, cur_spec, err, sizeof(err)))
		fail_msg("parse: %s", err);
	job = &cur_spec->jobs[0];
	writes = run_rw_writes(job->rw);
	eng = run_engine_find(job->engine);
	assert_non_null(eng);
	assert_null(eng->needs);
	if (eng->setup(job, &ctx, err, sizeof(err)))
		fail_msg("%s: setup: %s", job->engine, err);
	assert_int_equal(eng->open(ctx, 0, &h), 0);
	expect_open_as_asked(job);
	assert_int_equal(posix_memalign((void **)&buf, 4096,
					(job->bs + 4095) & ~4095ULL), 0);
	for (pass = 0; pass < 3; pass++) {
		for (off = 0; off < job->filesize; off += job->bs) {
			uint64_t len = job->filesize - off < job->bs ?
				       job->filesize - off : job->bs;
			bool odd = writes && ((off / job->bs) & 1);
			uint64_t i;

			if (pass == 1) {
				if (!odd)
					continue;
				for (i = 0; i < len; i++)
					buf[i] = want_byte(pattern, off + i, 1);
				assert_int_equal(eng->io(h, true, buf, len,
							 off), len);
				continue;
			}
			memset(buf, 0, len);
			assert_int_equal(eng->io(h, false, buf, len, off), len);
			for (i = 0; i < len; i++)
				if (buf[i] != want_byte(pattern, off + i,
							pass == 2 && odd))
					fail_msg("%s: byte %llu is %#x, expected "
						 "%#x (pass %d)", job->engine,
						 (unsigned long long)(off + i),
						 buf[i], want_byte(pattern,
						 off + i, pass == 2 && odd),
						 pass);
		}
	}
	eng->close(h);
	eng->teardown(ctx);
	if (!job->unlink)
		verify_file(job, pattern, writes);
	free(buf);
	free(pattern);
}

/*
 * Every engine reads the layout's bytes and reads back what it wrote,
 * in blocks of 6000 bytes (straddling pages); upcache-anon and
 * upcache-shmem also over swap: a region or file four times the memory
 * limit, so most of the reads and the read-back come from swap, in
 * memory and in a swap file.
 */
static void test_run_engines_verify_data(void **state)
{
	static const char *const engines[] = {
		"--ioengine=kernel-psync", "--ioengine=kernel-mmap",
		"--ioengine=upcache-shmem", "--ioengine=upcache-file",
		"--ioengine=upcache-anon",
	};
	char dir[64], path[128];
	char *tight[] = { "--name=va", "--ioengine=upcache-anon",
			  "--size=8m", "--bs=6000", "--memory_limit=2m", dir };
	char *file[] = { "--name=va", "--ioengine=upcache-anon",
			 "--size=8m", "--bs=6000", "--memory_limit=2m",
			 "--swap_file=va.swap", dir };
	char *shm_tight[] = { "--name=vs", "--ioengine=upcache-shmem",
			      "--size=8m", "--bs=6000", "--memory_limit=2m",
			      dir };
	char *shm_file[] = { "--name=vs", "--ioengine=upcache-shmem",
			     "--size=8m", "--bs=6000", "--memory_limit=2m",
			     "--swap_file=vs.swap", "--swap_space_shift=8",
			     dir };
	struct stat st;
	size_t e;

	(void)state;
	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	for (e = 0; e < sizeof(engines) / sizeof(engines[0]); e++) {
		/* rw=rw: the job writes (a read job's file is read-only). */
		char *argv[] = { "--name=v", (char *)engines[e], "--rw=rw",
				 "--size=600000", "--bs=6000", dir };

		verify_engine(6, argv);
	}
	verify_engine(6, tight);
	verify_engine(7, file);
	/* The job made the swap file, so the job removed it. */
	snprintf(path, sizeof(path), "%s/va.swap", bt_tmpdir);
	assert_int_not_equal(stat(path, &st), 0);
	verify_engine(6, shm_tight);
	verify_engine(8, shm_file);
	snprintf(path, sizeof(path), "%s/vs.swap", bt_tmpdir);
	assert_int_not_equal(stat(path, &st), 0);
}

/*
 * takes_direct() - Does the file system of @dir take O_DIRECT?  A file
 * opened with it there answers; one that does not refuses with EINVAL
 * (tmpfs before Linux 6.6, some overlayfs setups), having perhaps made
 * the file first.
 */
static bool takes_direct(const char *dir)
{
	char path[160];
	int fd;

	snprintf(path, sizeof(path), "%s/direct.probe", dir);
	fd = open(path, O_RDWR | O_CREAT | O_DIRECT, 0644);
	if (fd >= 0)
		close(fd);
	else
		assert_int_equal(errno, EINVAL);
	unlink(path);
	return fd >= 0;
}

/*
 * expect_direct_refused() - Where the file system refuses O_DIRECT, a
 * direct job fails before it runs, naming the file and O_DIRECT, and
 * leaves no file behind.
 */
static void expect_direct_refused(void)
{
	static const char *const engines[] = {
		"--ioengine=upcache-file", "--ioengine=kernel-psync",
	};
	char dir[64], path[128], err[400];
	struct run_outcome res;
	size_t e;

	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	snprintf(path, sizeof(path), "%s/dr.0.0", bt_tmpdir);
	for (e = 0; e < 2; e++) {
		char *argv[] = { "--name=dr", (char *)engines[e],
				 "--direct=1", "--size=1m", dir };

		spec_drop();
		cur_spec = bench_xcalloc(1, sizeof(*cur_spec));
		assert_int_equal(run_parse_args(5, argv, cur_spec, err,
						sizeof(err)), 0);
		run_stop_reset();
		assert_int_equal(run_execute(cur_spec, &res, NULL, err,
					     sizeof(err)), -EINVAL);
		if (!strstr(err, path) || !strstr(err, "refuses O_DIRECT"))
			fail_msg("%s: %s", engines[e], err);
		run_outcome_free(&res);
		assert_int_equal(access(path, F_OK), -1);
	}
}

/*
 * skip_unless_direct() - Where direct I/O cannot run, check that a
 * direct job says so, then say so and skip.
 */
#define skip_unless_direct()						\
	do {								\
		if (!takes_direct(bt_tmpdir)) {				\
			expect_direct_refused();			\
			print_message("%s's file system refuses O_DIRECT: "\
				      "direct=1 is not tested here\n",	\
				      bt_tmpdir);			\
			skip();						\
		}							\
	} while (0)

/*
 * direct=1: upcache-file (the file behind the cache open with O_DIRECT,
 * blocks of 6000 bytes: the cache copies, and writes back whole pages,
 * the last one cut at the size) and the kernel engines (aligned blocks
 * straight between the buffer and the file) read the layout's bytes and
 * read back what they wrote, and the kept file holds them afterwards;
 * read-only jobs too (upcache-file's O_RDONLY | O_DIRECT file).
 */
static void test_run_engines_verify_direct(void **state)
{
	static const char *const jobs[][5] = {
		{ "--ioengine=upcache-file", "--rw=rw", "--size=600000",
		  "--bs=6000", "--unlink=0" },
		{ "--ioengine=upcache-file", "--rw=read", "--size=600000",
		  "--bs=6000", "--unlink=0" },
		{ "--ioengine=kernel-psync", "--rw=rw", "--size=512k",
		  "--bs=8k", "--unlink=0" },
		{ "--ioengine=kernel-psync", "--rw=randread", "--size=256k",
		  "--bs=4k", "--unlink=0" },
		{ "--ioengine=kernel-sync", "--rw=randrw", "--size=256k",
		  "--bs=4k", "--unlink=0" },
	};
	char dir[64];
	size_t j;

	(void)state;
	skip_unless_direct();
	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	for (j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++) {
		char *argv[] = { "--name=vd", (char *)jobs[j][0],
				 (char *)jobs[j][1], (char *)jobs[j][2],
				 (char *)jobs[j][3], (char *)jobs[j][4],
				 "--direct=1", dir };

		verify_engine(8, argv);
	}
}

/*
 * A swap_file= that exists already (docs/bench.md): the job swaps into
 * it, overwriting its first bytes, and keeps it afterwards (unlink= left
 * at its default), since the job did not create it.
 */
static void test_run_swap_file_existing_kept(void **state)
{
	char dir[64], path[128], file[160];
	char *job[] = { "--name=pre", "--ioengine=upcache-anon",
			"--rw=write", "--bs=64k", "--size=8m",
			"--memory_limit=2m", file, dir };
	static unsigned char fill[8 << 20], back[8 << 20];
	struct run_outcome res;
	int fd;

	(void)state;
	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	snprintf(path, sizeof(path), "%s/pre.swap", bt_tmpdir);
	snprintf(file, sizeof(file), "--swap_file=%s", path);
	memset(fill, 0xa5, sizeof(fill));
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, fill, sizeof(fill)), (ssize_t)sizeof(fill));
	close(fd);

	execute(8, job, &res);
	assert_int_equal(res.results[0].st.bytes[RUN_DIR_WRITE], 8 << 20);
	run_outcome_free(&res);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, back, sizeof(back)), (ssize_t)sizeof(back));
	close(fd);
	assert_memory_not_equal(back, fill, sizeof(fill));
	assert_int_equal(unlink(path), 0);
}

/*
 * upcache-anon over swap through the runner: memhog (a region written
 * once, four times the limit) and then a mixed random job on a laid-out
 * region, both moving exactly size= bytes; the swap file they ask for is
 * kept with unlink=0.
 */
static void test_run_anon_over_memory_limit(void **state)
{
	char dir[64];
	char *memhog[] = { "--name=memhog", "--ioengine=upcache-anon",
			   "--rw=write", "--bs=4k", "--size=16m",
			   "--memory_limit=4m", dir };
	char *mixed[] = { "--name=mix", "--ioengine=upcache-anon",
			  "--rw=randrw", "--bs=16k", "--size=8m",
			  "--memory_limit=2m", "--numjobs=2",
			  "--swap_file=mix.swap", "--swap_space_shift=8",
			  "--unlink=0", dir };
	const struct run_stats *st;
	struct run_outcome res;

	(void)state;
	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	execute(7, memhog, &res);
	st = &res.results[0].st;
	assert_int_equal(st->bytes[RUN_DIR_WRITE], 16 * MiB);
	assert_int_equal(st->ops[RUN_DIR_WRITE], 4096);
	assert_true(res.results[0].upcache);
	/*
	 * The region's lookup and add per page, and for each of the 3072
	 * pages past the limit reclaim's three: the swap cache's add and
	 * delete and the region's store of the swap entry.
	 */
	assert_true(st->counts.walks >= 2 * 4096 + 3 * (4096 - 1024));
	run_outcome_free(&res);

	execute(11, mixed, &res);
	expect_mixed_kept(&res, 8 * MiB, "mix.swap");
}

/*
 * upcache-shmem over swap through the runner: a write job filling a
 * file four times the limit (file_kind=empty: nothing fallocated), a
 * random read of a laid-out file by two clones, the same read of a file
 * in large folios (huge=always: the layout's 1 MiB writes make 1 MiB
 * folios, which go to swap whole), and a mixed job of two clones sharing
 * one file with a swap file kept by unlink=0; each moves exactly size=
 * bytes per clone.
 */
static void test_run_shmem_over_memory_limit(void **state)
{
	char dir[64];
	char *wr[] = { "--name=sw", "--ioengine=upcache-shmem", "--rw=write",
		       "--bs=4k", "--size=16m", "--memory_limit=4m",
		       "--fallocate=none", dir };
	char *rd[] = { "--name=sr", "--ioengine=upcache-shmem",
		       "--rw=randread", "--bs=4k", "--size=16m",
		       "--memory_limit=4m", "--numjobs=2", "--group_reporting",
		       dir };
	char *huge[] = { "--name=sh", "--ioengine=upcache-shmem",
			 "--rw=randread", "--bs=64k", "--size=16m",
			 "--memory_limit=4m", "--huge=always", dir };
	/*
	 * Not file_kind=hole: a read of a hole zeroes the clone's buffer,
	 * which the writes after it store, and zeros in swap look like no
	 * swap at all, so whether the check held hung on which direction
	 * the first operations drew.
	 */
	char *mixed[] = { "--name=sm", "--ioengine=upcache-shmem",
			  "--rw=randrw", "--bs=16k", "--size=8m",
			  "--memory_limit=2m", "--numjobs=2",
			  "--filename=shared", "--file_kind=normal",
			  "--swap_file=sm.swap", "--swap_space_shift=8",
			  "--unlink=0", dir };
	const struct run_stats *st;
	struct run_outcome res;

	(void)state;
	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	execute(8, wr, &res);
	st = &res.results[0].st;
	assert_int_equal(st->bytes[RUN_DIR_WRITE], 16 * MiB);
	assert_int_equal(st->ops[RUN_DIR_WRITE], 4096);
	assert_true(res.results[0].upcache);
	/*
	 * At least a walk per write, and for each of the 3072 pages past
	 * the limit reclaim's three: the swap cache's add and delete and
	 * the file's store of the swap entry.
	 */
	assert_true(st->counts.walks >= 4096 + 3 * (4096 - 1024));
	run_outcome_free(&res);

	execute(9, rd, &res);
	assert_int_equal(res.results[0].clones, 2);
	assert_int_equal(res.results[0].st.bytes[RUN_DIR_READ], 32 * MiB);
	assert_int_equal(res.results[0].st.ops[RUN_DIR_READ], 2 * 4096);
	run_outcome_free(&res);

	execute(8, huge, &res);
	st = &res.results[0].st;
	assert_int_equal(st->bytes[RUN_DIR_READ], 16 * MiB);
	assert_int_equal(st->ops[RUN_DIR_READ], 256);
	run_outcome_free(&res);

	execute(13, mixed, &res);
	expect_mixed_kept(&res, 8 * MiB, "sm.swap");
}

/*
 * setup_error() - Parse a one-job command line and set its engine up,
 * which must fail with a message holding @want; the message is left in
 * @err.
 */
static void setup_error(const char *want, char *err, size_t errlen,
			const char *first, ...)
{
	const struct run_engine *eng;
	char *argv[32];
	const char *a;
	va_list ap;
	void *ctx = NULL;
	int argc = 0;

	va_start(ap, first);
	for (a = first; a && argc < 31; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	spec_drop();
	cur_spec = bench_xcalloc(1, sizeof(*cur_spec));
	if (run_parse_args(argc, argv, cur_spec, err, errlen))
		fail_msg("parse: %s", err);
	eng = run_engine_find(cur_spec->jobs[0].engine);
	assert_non_null(eng);
	err[0] = '\0';
	assert_int_not_equal(eng->setup(&cur_spec->jobs[0], &ctx, err, errlen),
			     0);
	assert_null(ctx);
	if (!strstr(err, want))
		fail_msg("setup said \"%s\", not \"%s\"", err, want);
}

/*
 * Every engine on real files refuses a directory= that is missing or
 * is not a directory, naming it, before it creates anything; an
 * absolute filename= needs no directory.
 */
static void test_run_file_directory_refused(void **state)
{
	static const char *const engines[] = {
		"--ioengine=kernel-sync", "--ioengine=kernel-psync",
		"--ioengine=kernel-mmap", "--ioengine=upcache-file",
	};
	char notdir[128], dirarg[160], file[160], err[400];
	unsigned int i;
	int fd;

	(void)state;
	snprintf(notdir, sizeof(notdir), "%s/plain", bt_tmpdir);
	fd = open(notdir, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	assert_true(fd >= 0);
	close(fd);
	snprintf(dirarg, sizeof(dirarg), "--directory=%s", notdir);
	snprintf(file, sizeof(file), "--filename=%s/abs.img", bt_tmpdir);
	for (i = 0; i < sizeof(engines) / sizeof(engines[0]); i++) {
		setup_error("directory '/nonexistent/dir': No such file",
			    err, sizeof(err), "--name=d", engines[i],
			    "--size=1m", "--directory=/nonexistent/dir", NULL);
		setup_error("': not a directory", err, sizeof(err),
			    "--name=d", engines[i], "--size=1m", dirarg, NULL);
		assert_non_null(strstr(err, notdir));
		assert_int_equal(run_status("--name=d", engines[i],
					    "--size=1m", "--unlink=1",
					    "--directory=/nonexistent/dir",
					    file, NULL), 0);
	}
	unlink(notdir);
}

/*
 * upcache-shmem refuses a limit below its files that they cannot live
 * with, before creating anything, saying why: fallocated pages never go
 * to swap, and swap must hold what memory cannot with 2 MiB to spare.
 * The same jobs are exit status 2 through the runner.
 */
static void test_run_shmem_swap_refused(void **state)
{
	char dir[64], path[128], err[400];

	(void)state;
	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	/* A write-only job fallocates its file by default. */
	setup_error("file_kind=fallocated", err, sizeof(err), "--name=f",
		    "--ioengine=upcache-shmem", "--rw=write", "--size=8m",
		    "--memory_limit=2m", NULL);
	assert_non_null(strstr(err, "fallocated and never written never go "
			       "to swap"));
	setup_error("file_kind=fallocated", err, sizeof(err), "--name=f",
		    "--ioengine=upcache-shmem", "--file_kind=fallocated",
		    "--size=8m", "--memory_limit=2m", NULL);
	/* Too little swap, and exactly the overflow (no slot to spare). */
	setup_error("memory_limit= (2 MiB) and swap_size= (2 MiB) cannot hold "
		    "the files' 8 MiB with 2 MiB of swap to spare", err,
		    sizeof(err), "--name=s", "--ioengine=upcache-shmem",
		    "--size=8m", "--memory_limit=2m", "--swap_size=2m", NULL);
	setup_error("cannot hold the files' 16 MiB", err, sizeof(err),
		    "--name=s", "--ioengine=upcache-shmem", "--size=8m",
		    "--numjobs=2", "--memory_limit=2m", "--swap_size=14m",
		    NULL);
	/* A swap file this test cannot create. */
	setup_error("upcache-shmem: swap_file /nonexistent/x.swap", err,
		    sizeof(err), "--name=s", "--ioengine=upcache-shmem",
		    "--size=8m", "--memory_limit=2m",
		    "--swap_file=/nonexistent/x.swap", NULL);
	/* Within the limit, huge pages and fallocated files are fine. */
	assert_int_equal(run_status("--name=ok", "--ioengine=upcache-shmem",
				    "--size=4m", "--huge=always",
				    "--memory_limit=8m", NULL), 0);
	assert_int_equal(run_status("--name=ok", "--ioengine=upcache-shmem",
				    "--size=4m", "--rw=write",
				    "--memory_limit=8m", "--swap_size=4m",
				    NULL), 0);

	assert_int_equal(run_status("--name=f", "--ioengine=upcache-shmem",
				    "--rw=write", "--size=8m",
				    "--memory_limit=2m", NULL),
			 BENCH_EXIT_ERROR);
	assert_int_equal(run_status("--name=s", "--ioengine=upcache-shmem",
				    "--size=8m", "--memory_limit=2m",
				    "--swap_size=6m", NULL), BENCH_EXIT_ERROR);
	/*
	 * Two jobs at once (one group) on one swap file: the second is
	 * refused, whichever engine each is, and the file the first made
	 * is removed.
	 */
	spec_drop();
	cur_spec = bench_xcalloc(1, sizeof(*cur_spec));
	{
		char *two[] = { "--name=a", "--size=8m",
				"--ioengine=upcache-shmem", "--memory_limit=2m",
				"--swap_file=shared.swap", dir, "--name=b",
				"--size=8m", "--ioengine=upcache-anon",
				"--memory_limit=2m", "--swap_file=shared.swap",
				dir };
		struct run_outcome res;

		if (run_parse_args(12, two, cur_spec, err, sizeof(err)))
			fail_msg("parse: %s", err);
		run_stop_reset();
		err[0] = '\0';
		assert_int_not_equal(run_execute(cur_spec, &res, NULL, err,
						 sizeof(err)), 0);
		assert_non_null(strstr(err, "upcache-anon: swap_file "));
		assert_non_null(strstr(err, "shared.swap: in use by another "
				       "job"));
		run_outcome_free(&res);
	}
	snprintf(path, sizeof(path), "%s/shared.swap", bt_tmpdir);
	assert_int_equal(access(path, F_OK), -1);
}

static void test_run_write_job(void **state)
{
	char *argv[] = { "--name=w", "--ioengine=upcache-shmem", "--size=2m",
			 "--rw=write", "--bs=128k", "--fallocate=none" };
	struct run_outcome res;

	(void)state;
	execute(6, argv, &res);
	assert_int_equal(res.results[0].st.bytes[RUN_DIR_WRITE], 2 * MiB);
	assert_int_equal(res.results[0].st.ops[RUN_DIR_WRITE], 16);
	run_outcome_free(&res);
}

/*
 * check_written() - @path holds what a write job of @bs-byte blocks over
 * [0, @size) leaves: every block is the pattern the runner writes (each
 * clone's buffer is run_fill_pattern() of bs bytes), and the file is
 * exactly @size bytes long.  Only for write-only jobs: a read overwrites
 * the clone's buffer, whatever the engine.
 */
static void check_written(const char *path, uint64_t size, uint64_t bs)
{
	unsigned char *want = bench_xcalloc(1, bs);
	unsigned char *got = bench_xcalloc(1, bs);
	struct stat st;
	uint64_t off;
	FILE *f;

	run_fill_pattern(want, bs);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fstat(fileno(f), &st), 0);
	assert_int_equal((uint64_t)st.st_size, size);
	for (off = 0; off < size; off += bs) {
		assert_int_equal(fread(got, 1, bs, f), bs);
		if (memcmp(got, want, bs))
			fail_msg("%s: block at %llu is not what was written",
				 path, (unsigned long long)off);
	}
	fclose(f);
	free(want);
	free(got);
}

static void test_run_file_moves_size(void **state)
{
	static const char *const kinds[] = {
		"--file_kind=normal", "--file_kind=fallocated",
		"--file_kind=hole",
	};
	static const char *const rws[] = { "--rw=read", "--rw=randwrite" };
	char dir[64], path[128];
	struct stat sb;
	size_t k, r, i;

	(void)state;
	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	for (r = 0; r < 2; r++) {
		for (k = 0; k < 3; k++) {
			char *argv[] = { "--name=f", "--ioengine=upcache-file",
					 (char *)kinds[k], (char *)rws[r],
					 "--size=1m", "--bs=16k",
					 "--numjobs=2", dir };
			struct run_outcome res;
			int d = r ? RUN_DIR_WRITE : RUN_DIR_READ;

			execute(8, argv, &res);
			assert_int_equal(res.nr_results, 2);
			for (i = 0; i < 2; i++) {
				const struct run_stats *st =
					&res.results[i].st;

				assert_int_equal(st->bytes[d], MiB);
				assert_int_equal(st->bytes[!d], 0);
				assert_int_equal(st->ops[d], 64);
				assert_true(res.results[i].upcache);
				assert_int_equal(st->counts.ops, 64);
				/*
				 * At least one walk per operation: a read's
				 * lookup (a read-only file reads ahead into
				 * large folios), a write's grab (its pages'
				 * dirty tags are one walk more, and steps
				 * sideways).
				 */
				assert_true(st->counts.walks >= 64);
			}
			run_outcome_free(&res);
			snprintf(path, sizeof(path), "%s/f.1.0", bt_tmpdir);
			assert_int_not_equal(stat(path, &sb), 0); /* removed */
		}
	}
}

/*
 * Blocks of 6000 bytes straddle pages: a write covers most folios in
 * part, which are read from the file first, and the file's last page
 * is written back only up to the file's size.
 */
static void test_run_file_write_reaches_file(void **state)
{
	char dir[64], path[128];
	char *argv[] = { "--name=wf", "--ioengine=upcache-file",
			 "--rw=randwrite", "--bs=6000", "--size=96000",
			 "--file_kind=hole", "--unlink=0", dir };
	char *rd[] = { "--name=wf", "--ioengine=upcache-file", "--rw=read",
		       "--bs=6000", "--size=96000", dir };
	struct run_outcome res;

	(void)state;
	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	snprintf(path, sizeof(path), "%s/wf.0.0", bt_tmpdir);
	execute(8, argv, &res);
	assert_int_equal(res.results[0].st.bytes[RUN_DIR_WRITE], 96000);
	run_outcome_free(&res);
	check_written(path, 96000, 6000);
	/* The file is kept, used as it is, and read back in full. */
	execute(6, rd, &res);
	assert_int_equal(res.results[0].st.bytes[RUN_DIR_READ], 96000);
	run_outcome_free(&res);
	check_written(path, 96000, 6000);
	assert_int_equal(unlink(path), 0);
}

/*
 * A file four times memory_limit=: the cache's charge is capped at the
 * limit, so the job completes only if reads evict and refault and dirty
 * folios are written back by reclaim (an allocation that cannot reclaim
 * fails the job).  Then clones sharing a file under a tight limit: all
 * writing the same bytes (whatever order their writes and reclaim's
 * writebacks land in, the file ends up holding them everywhere), and a
 * mixed job.
 */
static void test_run_file_over_memory_limit(void **state)
{
	char dir[64], path[128], fname[160], rw[32];
	char *wr[] = { "--name=big", "--ioengine=upcache-file",
		       "--rw=randwrite", "--bs=4k", "--size=16m",
		       "--memory_limit=4m", "--file_kind=hole", "--unlink=0",
		       dir };
	char *rd[] = { "--name=big", "--ioengine=upcache-file",
		       "--rw=randread", "--bs=4k", "--size=16m",
		       "--memory_limit=4m", "--numjobs=2",
		       "--group_reporting", fname, dir };
	char *shared[] = { "--name=sh", "--ioengine=upcache-file", rw,
			   "--bs=6000", "--size=12000000",
			   "--memory_limit=2m", "--numjobs=4",
			   "--group_reporting", "--file_kind=hole",
			   "--unlink=0", fname, dir };
	const struct run_stats *st;
	struct run_outcome res;

	(void)state;
	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	snprintf(path, sizeof(path), "%s/big.0.0", bt_tmpdir);
	execute(9, wr, &res);
	assert_int_equal(res.results[0].st.bytes[RUN_DIR_WRITE], 16 * MiB);
	run_outcome_free(&res);
	check_written(path, 16 * MiB, 4096);

	snprintf(fname, sizeof(fname), "--filename=big.0.0");
	execute(10, rd, &res);
	assert_int_equal(res.results[0].clones, 2);
	assert_int_equal(res.results[0].st.bytes[RUN_DIR_READ], 32 * MiB);
	assert_int_equal(res.results[0].st.ops[RUN_DIR_READ], 2 * 4096);
	run_outcome_free(&res);
	assert_int_equal(unlink(path), 0);

	snprintf(fname, sizeof(fname), "--filename=sh");
	snprintf(path, sizeof(path), "%s/sh", bt_tmpdir);
	snprintf(rw, sizeof(rw), "--rw=randwrite");
	execute(12, shared, &res);
	assert_int_equal(res.results[0].clones, 4);
	assert_int_equal(res.results[0].st.bytes[RUN_DIR_WRITE],
			 4 * 12000000ULL);
	run_outcome_free(&res);
	check_written(path, 12000000, 6000);
	assert_int_equal(unlink(path), 0);

	snprintf(rw, sizeof(rw), "--rw=randrw");
	execute(12, shared, &res);
	st = &res.results[0].st;
	assert_int_equal(st->bytes[RUN_DIR_READ] + st->bytes[RUN_DIR_WRITE],
			 4 * 12000000ULL);
	assert_true(st->ops[RUN_DIR_READ] && st->ops[RUN_DIR_WRITE]);
	run_outcome_free(&res);
	assert_int_equal(stat(path, &(struct stat){ 0 }), 0);
	assert_int_equal(unlink(path), 0);
}

/*
 * direct=1 jobs through the runner, on upcache-file and kernel-psync: a
 * random write job with fsync= moves size= bytes and the kept file holds
 * them; a random read job over it moves size= bytes.  A direct kernel
 * job whose memory_limit= is below its files needs no page cache held
 * outside tmpfs, so it runs there; in tmpfs it is still skipped.  The
 * JSON rows say direct=1.
 */
static void test_run_direct_jobs(void **state)
{
	static const char *const engines[] = {
		"--ioengine=upcache-file", "--ioengine=kernel-psync",
	};
	char dir[64], path[128], json[128], arg[160];
	struct run_outcome res;
	char *text;
	size_t e;

	(void)state;
	skip_unless_direct();
	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	snprintf(path, sizeof(path), "%s/dj.0.0", bt_tmpdir);
	for (e = 0; e < 2; e++) {
		char *wr[] = { "--name=dj", (char *)engines[e], "--direct=1",
			       "--rw=randwrite", "--bs=8k", "--size=1m",
			       "--fsync=16", "--file_kind=hole", "--unlink=0",
			       dir };
		char *rd[] = { "--name=dj", (char *)engines[e], "--direct=1",
			       "--rw=randread", "--bs=8k", "--size=1m", dir };

		execute(10, wr, &res);
		assert_int_equal(res.results[0].st.bytes[RUN_DIR_WRITE], MiB);
		/* 128 writes: a sync after the 16th, ... 112th. */
		assert_int_equal(res.results[0].st.sync.count, 7);
		run_outcome_free(&res);
		check_written(path, MiB, 8192);
		execute(7, rd, &res);
		assert_int_equal(res.results[0].st.bytes[RUN_DIR_READ], MiB);
		run_outcome_free(&res);
		check_written(path, MiB, 8192);
		assert_int_equal(unlink(path), 0);
	}
	{
		char *lim[] = { "--name=dl", "--ioengine=kernel-psync",
				"--direct=1", "--size=4m", "--memory_limit=2m",
				dir };

		execute(6, lim, &res);
		if (bench_is_tmpfs(bt_tmpdir)) {
			assert_non_null(res.results[0].skipped);
		} else {
			assert_null(res.results[0].skipped);
			assert_int_equal(res.results[0].st.bytes[RUN_DIR_READ],
					 4 * MiB);
		}
		run_outcome_free(&res);
	}
	snprintf(json, sizeof(json), "%s/direct.json", bt_tmpdir);
	snprintf(arg, sizeof(arg), "--json=%s", json);
	assert_int_equal(run_status("--output-format=json", arg, "--name=d1",
				    "--ioengine=kernel-psync", "--direct=1",
				    "--size=256k", dir, "--name=d0",
				    "--ioengine=kernel-psync", "--size=256k",
				    dir, NULL), 0);
	text = slurp(json);
	assert_non_null(text);
	assert_int_equal(count(text, "\"direct\":1"), 1);
	assert_int_equal(count(text, "\"direct\":0"), 1);
	free(text);
	assert_int_equal(unlink(json), 0);
}

/*
 * sync_uring_batches() - Drive upcache-file directly in this thread:
 * write every other page of a 64-page file (32 runs of one page), then
 * sync: how many io_uring batches did the sync send?  The file holds the
 * writes afterwards.
 */
static uint64_t sync_uring_batches(bool uring)
{
	char dir[64], *argv[] = { "--name=ub", "--ioengine=upcache-file",
				  "--rw=randwrite", "--size=256k",
				  "--file_kind=hole", "--unlink=0", dir,
				  uring ? "--file_io_uring=1" : "--thread" };
	const struct run_engine *eng = &run_engine_file;
	unsigned char buf[4096], got[4096];
	const struct run_job *job;
	uint64_t off, batches;
	char err[300], *path;
	void *ctx, *h;
	int fd;

	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	spec_drop();
	cur_spec = bench_xcalloc(1, sizeof(*cur_spec));
	if (run_parse_args(8, argv, cur_spec, err, sizeof(err)))
		fail_msg("parse: %s", err);
	job = &cur_spec->jobs[0];
	assert_int_equal(job->file_io_uring, uring);
	if (eng->setup(job, &ctx, err, sizeof(err)))
		fail_msg("setup: %s", err);
	assert_int_equal(eng->open(ctx, 0, &h), 0);
	for (off = 0; off < 256 * 1024; off += 8192) {
		memset(buf, (int)(off >> 13) + 1, sizeof(buf));
		assert_int_equal(eng->io(h, true, buf, sizeof(buf), off),
				 sizeof(buf));
	}
	io_thread_counters()->uring_batches = 0;
	assert_int_equal(eng->sync(h, false), 0);
	batches = io_thread_counters()->uring_batches;
	eng->close(h);
	eng->teardown(ctx);
	path = run_file_path(job, 0);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	for (off = 0; off < 256 * 1024; off += 8192) {
		memset(buf, (int)(off >> 13) + 1, sizeof(buf));
		assert_int_equal(pread(fd, got, sizeof(got), (off_t)off),
				 sizeof(got));
		assert_memory_equal(got, buf, sizeof(buf));
	}
	close(fd);
	assert_int_equal(unlink(path), 0);
	free(path);
	return batches;
}

/*
 * file_io_uring=1: the fd file's writeback sends its batches through
 * io_uring (without it, none), and a job with fsync= runs through the
 * runner, buffered and (where the file system takes it) direct, with
 * every write in the file afterwards.
 */
static void test_run_file_io_uring(void **state)
{
	static const char *const modes[] = { "--direct=0", "--direct=1" };
	char dir[64], path[128];
	struct run_outcome res;
	size_t m;

	(void)state;
	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	snprintf(path, sizeof(path), "%s/fu.0.0", bt_tmpdir);
	assert_int_equal(sync_uring_batches(false), 0);
	if (io_uring_usable())
		assert_true(sync_uring_batches(true) >= 1);
	else
		print_message("io_uring is not available here: the batches "
			      "fall back to pwritev(), not counted\n");
	for (m = 0; m < 2; m++) {
		char *argv[] = { "--name=fu", "--ioengine=upcache-file",
				 "--file_io_uring=1", (char *)modes[m],
				 "--rw=randwrite", "--bs=4k", "--size=1m",
				 "--fsync=8", "--file_kind=hole", "--unlink=0",
				 dir };

		if (m && !takes_direct(bt_tmpdir)) {
			print_message("%s's file system refuses O_DIRECT: "
				      "file_io_uring=1 with direct=1 is not "
				      "tested here\n", bt_tmpdir);
			continue;
		}
		execute(11, argv, &res);
		assert_int_equal(res.results[0].st.bytes[RUN_DIR_WRITE], MiB);
		/* 256 writes: a sync after the 8th, ... 248th. */
		assert_int_equal(res.results[0].st.sync.count, 31);
		run_outcome_free(&res);
		check_written(path, MiB, 4096);
		assert_int_equal(unlink(path), 0);
	}
}

/*
 * check_row_figures() - Direction @dir of job @name in `run`'s JSON @text
 * moved @bytes, and its figures agree: bandwidth in bytes and in MiB
 * (2^20 bytes) per second over the runtime, IOPS at most bandwidth per
 * byte, and the latencies ordered min <= each percentile <= max, with
 * the mean between min and max.
 */
static void check_row_figures(const char *text, const char *name,
			      const char *dir, double bytes)
{
	static const char *const pcts[] = {
		"clat_ns_p50", "clat_ns_p90", "clat_ns_p99", "clat_ns_p99.9",
	};
	double bw = bt_run_row_num(text, name, dir, "bw_bytes");
	double ms = bt_run_row_num(text, name, dir, "runtime_ms");
	double lo = bt_run_row_num(text, name, dir, "lat_ns_min");
	double hi = bt_run_row_num(text, name, dir, "lat_ns_max");
	double mean = bt_run_row_num(text, name, dir, "lat_ns_mean");
	double prev = lo, p;
	size_t i;

	assert_near(bt_run_row_num(text, name, dir, "io_bytes"), bytes, 0);
	/* Six significant digits in the JSON. */
	assert_near(bw / (bytes * 1e3 / ms), 1, 1e-5);
	assert_near(bt_run_row_num(text, name, dir, "bw_MiBps") * 1048576 /
		    bw, 1, 1e-5);
	assert_true(bt_run_row_num(text, name, dir, "iops") <= bw);
	assert_true(lo > 0 && lo <= mean && mean <= hi);
	for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		p = bt_run_row_num(text, name, dir, pcts[i]);
		assert_true(prev <= p && p <= hi);
		prev = p;
	}
}

static void test_run_json_fields(void **state)
{
	char json[128], arg[160];
	char *text;

	(void)state;
	snprintf(json, sizeof(json), "%s/out.json", bt_tmpdir);
	snprintf(arg, sizeof(arg), "--json=%s", json);
	assert_int_equal(run_status("--output-format=json", arg, "--name=j",
				    "--ioengine=upcache-shmem", "--size=256k",
				    NULL), 0);
	text = slurp(json);
	assert_non_null(text);
	assert_non_null(strstr(text, "\"benchmark\":\"run\""));
	assert_non_null(strstr(text, "\"rows\":["));
	assert_non_null(strstr(text, "\"io_bytes\":262144"));
	assert_non_null(strstr(text, "\"dir\":\"read\""));
	assert_non_null(strstr(text, "\"ioengine\":\"upcache-shmem\""));
	assert_non_null(strstr(text, "\"bw_bytes\":"));
	assert_non_null(strstr(text, "\"iops\":"));
	assert_non_null(strstr(text, "\"clat_ns_p50\":"));
	assert_non_null(strstr(text, "\"clat_ns_p90\":"));
	assert_non_null(strstr(text, "\"clat_ns_p99\":"));
	assert_non_null(strstr(text, "\"clat_ns_p99.9\":"));
	assert_non_null(strstr(text, "\"walks_per_op\":"));
	assert_non_null(strstr(text, "\"locks_per_op\":"));
	assert_non_null(strstr(text, "\"kind\":\"group\""));
	check_row_figures(text, "j", "read", 262144);
	free(text);
}

static void test_run_example_jobfile(void **state)
{
	char src[512], jobfile[600], json[128], arg[160];
	char *text;

	(void)state;
	snprintf(src, sizeof(src), "%s", __FILE__);
	snprintf(jobfile, sizeof(jobfile),
		 "%s/../../tools/bench/jobs/seq-read.fio", dirname(src));
	snprintf(json, sizeof(json), "%s/seq.json", bt_tmpdir);
	snprintf(arg, sizeof(arg), "--json=%s", json);
	assert_int_equal(run_status("--output-format=json", arg, jobfile,
				    NULL), 0);
	text = slurp(json);
	assert_non_null(text);
	assert_int_equal(count(text, "\"kind\":\"job\""), 2);
	assert_int_equal(count(text, "\"io_bytes\":67108864"), 4);
	assert_non_null(strstr(text, "\"ioengine\":\"upcache-shmem\""));
	assert_non_null(strstr(text, "\"ioengine\":\"kernel-psync\""));
	free(text);
}

static void test_run_bad_input_exit_2(void **state)
{
	char swap[128], swaparg[160];

	(void)state;
	assert_int_equal(run_status("--name=a", "--size=1m", "--bogus", NULL),
			 BENCH_EXIT_ERROR);
	assert_int_equal(run_status("--name=a", "--size=12q", NULL),
			 BENCH_EXIT_ERROR);
	assert_int_equal(run_status("--name=a", "--size=1m", "--runtime=-1",
				    NULL), BENCH_EXIT_ERROR);
	assert_int_equal(run_status("/nonexistent/jobs.fio", NULL),
			 BENCH_EXIT_ERROR);
	assert_int_equal(run_status("--name=a", "--size=1m",
				    "--directory=/nonexistent/dir", NULL),
			 BENCH_EXIT_ERROR);
	/* Swap options: wrong values, too little swap, the wrong engine. */
	assert_int_equal(run_status("--name=a", "--size=1m",
				    "--ioengine=upcache-anon", "--swap_size=0",
				    NULL), BENCH_EXIT_ERROR);
	assert_int_equal(run_status("--name=a", "--size=1m",
				    "--ioengine=upcache-anon",
				    "--swap_space_shift=5", NULL),
			 BENCH_EXIT_ERROR);
	assert_int_equal(run_status("--name=a", "--size=8m",
				    "--ioengine=upcache-anon",
				    "--memory_limit=2m", "--swap_size=2m",
				    NULL), BENCH_EXIT_ERROR);
	/* Exactly the overflow: no slot to spare for a swap-in's room. */
	assert_int_equal(run_status("--name=a", "--size=8m",
				    "--ioengine=upcache-anon",
				    "--memory_limit=2m", "--swap_size=6m",
				    NULL), BENCH_EXIT_ERROR);
	/* Two jobs at once on one swap file would share its slots. */
	snprintf(swap, sizeof(swap), "%s/shared.swap", bt_tmpdir);
	snprintf(swaparg, sizeof(swaparg), "--swap_file=%s", swap);
	assert_int_equal(run_status("--name=a", "--size=8m",
				    "--ioengine=upcache-anon",
				    "--memory_limit=2m", swaparg, "--name=b",
				    "--size=8m", "--ioengine=upcache-anon",
				    "--memory_limit=2m", swaparg, NULL),
			 BENCH_EXIT_ERROR);
	assert_int_equal(access(swap, F_OK), -1);
	assert_int_equal(run_status("--name=a", "--size=1m",
				    "--ioengine=upcache-file",
				    "--swap_size=4m", NULL), BENCH_EXIT_ERROR);
	assert_int_equal(run_status("--name=a", "--size=1m",
				    "--swap_file=x", NULL), BENCH_EXIT_ERROR);
	assert_int_equal(run_status("--name=a", "--size=1m", "--buffered=0",
				    NULL), BENCH_EXIT_ERROR);
	/* direct=1 where it cannot be honoured, or with unaligned blocks. */
	assert_int_equal(run_status("--name=a", "--size=1m", "--direct=1",
				    "--ioengine=kernel-mmap", NULL),
			 BENCH_EXIT_ERROR);
	assert_int_equal(run_status("--name=a", "--size=1m", "--direct=1",
				    "--bs=6000", NULL), BENCH_EXIT_ERROR);
	assert_int_equal(run_status("--name=a", "--size=1m",
				    "--file_io_uring=1", NULL),
			 BENCH_EXIT_ERROR);
	assert_int_equal(run_status("--name=a", "--size=1m", "--iodepth=8",
				    NULL), BENCH_EXIT_ERROR);
	assert_int_equal(run_status("--help", NULL), 0);
}

/*
 * A kernel baseline held below its files is skipped, saying why: in
 * tmpfs (/dev/shm, the default) its pages could only go to swap;
 * elsewhere it would take a memory cgroup for the whole process.
 */
static void test_run_baseline_skipped(void **state)
{
	char *argv[] = { "--name=big", "--ioengine=kernel-psync",
			 "--size=4m", "--memory_limit=2m", NULL };
	struct run_outcome res;
	char dir[] = "/tmp/upc-skip-XXXXXX";

	(void)state;
	execute(4, argv, &res);
	assert_int_equal(res.nr_results, 1);
	assert_non_null(res.results[0].skipped);
	assert_non_null(strstr(res.results[0].skipped,
			       "held to memory_limit= (2 MiB) below the "
			       "files' 4 MiB"));
	if (bench_is_tmpfs("/dev/shm"))
		assert_non_null(strstr(res.results[0].skipped, "tmpfs"));
	run_outcome_free(&res);
	/* The same, named by an absolute filename=. */
	argv[4] = "--filename=/dev/shm/upc-skip-test";
	execute(5, argv, &res);
	assert_non_null(res.results[0].skipped);
	if (bench_is_tmpfs("/dev/shm"))
		assert_non_null(strstr(res.results[0].skipped, "tmpfs"));
	run_outcome_free(&res);

	/* A directory that is not tmpfs (when /tmp is not). */
	assert_non_null(mkdtemp(dir));
	if (!bench_is_tmpfs(dir)) {
		char opt[64];

		snprintf(opt, sizeof(opt), "--directory=%s", dir);
		argv[4] = opt;
		execute(5, argv, &res);
		assert_non_null(res.results[0].skipped);
		assert_non_null(strstr(res.results[0].skipped,
				       "memory cgroup"));
		run_outcome_free(&res);
	}
	assert_int_equal(rmdir(dir), 0);
}

/* interrupter() - Ctrl-C after a short while, from another thread. */
static void *interrupter(void *arg)
{
	(void)arg;
	bench_sleep_ns(200ULL * 1000 * 1000);
	kill(getpid(), SIGINT);
	return NULL;
}

static void test_run_sigint_stops(void **state)
{
	char json[128], arg[160];
	uint64_t t0 = bench_now_ns();
	pthread_t tid;
	char *text;
	int status;

	(void)state;
	snprintf(json, sizeof(json), "%s/int.json", bt_tmpdir);
	snprintf(arg, sizeof(arg), "--json=%s", json);
	assert_int_equal(pthread_create(&tid, NULL, interrupter, NULL), 0);
	status = run_status("--output-format=json", arg, "--name=long",
			    "--ioengine=upcache-shmem", "--size=1m",
			    "--runtime=60s", "--time_based", NULL);
	pthread_join(tid, NULL);
	assert_int_equal(status, RUN_EXIT_INTERRUPTED);
	assert_true(bench_now_ns() - t0 < 30ULL * 1000 * 1000 * 1000);
	text = slurp(json);
	assert_non_null(text);
	assert_non_null(strstr(text, "\"interrupted\":1"));
	assert_non_null(strstr(text, "\"bw_bytes\":"));
	free(text);
}

static void test_compare_pairs_rounds(void **state)
{
	char json[128], arg[160];
	char *argv[] = {
		"--rounds", "3", "--output-format=json", arg, "--",
		"--name=c", "--ioengine=upcache-shmem", "--size=256k", "--",
		"--name=c", "--ioengine=kernel-psync", "--size=256k", NULL,
	};
	char *bad[] = { "--", "--name=c", "--size=1m" };
	char *text;

	(void)state;
	snprintf(json, sizeof(json), "%s/cmp.json", bt_tmpdir);
	snprintf(arg, sizeof(arg), "--json=%s", json);
	assert_int_equal(bench_suite_compare_argv(12, argv), 0);
	text = slurp(json);
	assert_non_null(text);
	assert_non_null(strstr(text, "\"benchmark\":\"compare\""));
	assert_non_null(strstr(text, "\"rounds\":3"));
	assert_non_null(strstr(text, "\"figure\":\"bw_MiBps\""));
	assert_non_null(strstr(text, "\"ratio_median\":"));
	assert_non_null(strstr(text, "\"ratio_min\":"));
	assert_non_null(strstr(text, "\"ratio_max\":"));
	/* Counters exist on one side only: not compared. */
	assert_null(strstr(text, "\"figure\":\"walks_per_op\""));
	free(text);
	assert_int_equal(bench_suite_compare_argv(3, bad), BENCH_EXIT_ERROR);
}

/*
 * A group's figures per direction cover only the clones that moved data
 * in that direction (fio's run time per direction): a short read job
 * beside a long write-only one keeps its own read bandwidth and run
 * time in the group's line, not the write job's run time.
 */
static void test_run_group_time_per_dir(void **state)
{
	static const char *const dirs[] = { "read", "write" };
	static const char *const jobs[] = { "r", "w" };
	static const char *const keys[] = { "runtime_ms", "bw_bytes", "iops" };
	char json[128], arg[160], dir[64];
	size_t d, k;
	char *text;

	(void)state;
	snprintf(json, sizeof(json), "%s/dirs.json", bt_tmpdir);
	snprintf(arg, sizeof(arg), "--json=%s", json);
	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	assert_int_equal(run_status("--output-format=json", arg, dir,
				    "--name=r", "--ioengine=upcache-shmem",
				    "--rw=read", "--size=1m", "--name=w",
				    "--ioengine=kernel-psync", "--rw=write",
				    "--size=64m", NULL), 0);
	text = slurp(json);
	assert_non_null(text);
	for (d = 0; d < 2; d++)
		for (k = 0; k < 3; k++)
			assert_true(bt_run_row_num(text, "group0", dirs[d],
						   keys[k]) ==
				    bt_run_row_num(text, jobs[d], dirs[d],
						   keys[k]));
	/* The case is a real one: the writes took longer than the reads. */
	assert_true(bt_run_row_num(text, "group0", "read", "runtime_ms") <
		    bt_run_row_num(text, "group0", "write", "runtime_ms"));
	free(text);
}

/* gen_job() - The first job of @argv, parsed into cur_spec. */
static const struct run_job *gen_job(int argc, char **argv)
{
	char err[300];

	spec_drop();
	cur_spec = bench_xcalloc(1, sizeof(*cur_spec));
	if (run_parse_args(argc, argv, cur_spec, err, sizeof(err)))
		fail_msg("parse: %s", err);
	return &cur_spec->jobs[0];
}

/*
 * The measured phase goes on from where ramp_time= left the offsets (fio
 * resets only the figures) and, without time_based=, still moves size=
 * bytes, as fio counts the bytes since the ramp: a pass's worth of
 * operations, going on into the next pass.  The generator itself, one
 * per clone for both phases, carries on from where it was: after k
 * sequential blocks the next is block k, and a pass ends after n.
 */
static void test_run_ramp_carries_on(void **state)
{
	static const char *const rws[] = { "--rw=read", "--rw=randread" };
	size_t r;

	(void)state;
	for (r = 0; r < 2; r++) {
		char *argv[] = { "--name=rp", "--ioengine=upcache-shmem",
				 (char *)rws[r], "--size=16m", "--bs=4k",
				 "--ramp_time=20ms" };
		struct run_outcome res;
		uint64_t ops;

		execute(6, argv, &res);
		ops = res.results[0].st.ops[RUN_DIR_READ];
		assert_int_equal(ops, 16 * MiB / 4096);
		assert_int_equal(res.results[0].st.bytes[RUN_DIR_READ],
				 ops * 4096);
		run_outcome_free(&res);
	}
	{
		char *argv[] = { "--name=g", "--rw=read", "--bs=4k",
				 "--size=64k" };
		const struct run_job *job = gen_job(4, argv);
		struct run_gen g;
		enum run_dir dir;
		uint64_t off, k;

		run_gen_init(&g, job, 0);
		for (k = 0; k < 5; k++)
			assert_true(run_gen_next(&g, &dir, &off));
		assert_true(run_gen_next(&g, &dir, &off));
		assert_int_equal(off, 5 * 4096);
		for (k = 6; k < 16; k++)
			assert_true(run_gen_next(&g, &dir, &off));
		assert_false(run_gen_next(&g, &dir, &off));
		assert_true(run_gen_next(&g, &dir, &off));
		assert_int_equal(off, 0);
		run_gen_free(&g);
	}
}

/* block_is_layout() - Does block @i (@bs bytes) of @f hold the layout? */
static bool block_is_layout(FILE *f, const unsigned char *pattern,
			    uint64_t i, uint64_t bs)
{
	unsigned char buf[8192];
	uint64_t k;

	assert_true(bs <= sizeof(buf));
	assert_int_equal(fseek(f, (long)(i * bs), SEEK_SET), 0);
	assert_int_equal(fread(buf, 1, bs, f), bs);
	for (k = 0; k < bs; k++)
		if (buf[k] != want_byte(pattern, i * bs + k, 0))
			return false;
	return true;
}

/*
 * rw=readwrite walks the region once for reads and once for writes, each
 * from the start (fio's position per direction), until the two together
 * made a pass: the writes land on blocks 0..W-1 and nowhere else.  (A
 * write stores the block read last, which is not the layout of the block
 * it lands on: the pattern repeats every 2 KiB, so blocks of 6000 bytes
 * differ.)
 */
static void test_run_readwrite_cursor_per_dir(void **state)
{
	unsigned char *pattern = bench_xcalloc(1, RUN_LAYOUT_CHUNK);
	char dir[64], path[128];
	char *argv[] = { "--name=rwc", "--ioengine=kernel-psync",
			 "--rw=readwrite", "--bs=6000", "--size=1536000",
			 "--unlink=0", dir };
	const struct run_stats *st;
	struct run_outcome res;
	bool front = false;
	uint64_t i, w;
	FILE *f;

	(void)state;
	run_fill_pattern(pattern, RUN_LAYOUT_CHUNK);
	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	execute(7, argv, &res);
	st = &res.results[0].st;
	w = st->ops[RUN_DIR_WRITE];
	assert_int_equal(st->ops[RUN_DIR_READ] + w, 256);
	assert_true(w > 64 && w < 192);
	run_outcome_free(&res);
	snprintf(path, sizeof(path), "%s/rwc.0.0", bt_tmpdir);
	f = fopen(path, "r");
	assert_non_null(f);
	for (i = 0; i < w; i++)
		front |= !block_is_layout(f, pattern, i, 6000);
	assert_true(front);
	for (i = w; i < 256; i++)
		if (!block_is_layout(f, pattern, i, 6000))
			fail_msg("block %llu, past the %llu written, changed",
				 (unsigned long long)i, (unsigned long long)w);
	fclose(f);
	assert_int_equal(unlink(path), 0);
	free(pattern);
}

/*
 * Clone 0 of one job and clone 0 of the next have seeds of their own
 * (the clone's number in the run, as fio's thread number): two identical
 * mixed jobs do not issue the same blocks and directions, which would
 * leave their files identical (blocks of 6000 bytes: the pattern repeats
 * every 2 KiB).
 */
static void test_run_seed_per_job(void **state)
{
	char dir[64], a[128], b[128];
	char *argv[] = { dir, "--ioengine=kernel-psync", "--rw=randrw",
			 "--bs=6000", "--size=1536000", "--unlink=0",
			 "--name=sa", "--name=sb" };
	struct run_outcome res;
	char *ta, *tb;

	(void)state;
	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	execute(8, argv, &res);
	assert_int_equal(res.nr_results, 2);
	run_outcome_free(&res);
	snprintf(a, sizeof(a), "%s/sa.0.0", bt_tmpdir);
	snprintf(b, sizeof(b), "%s/sb.0.0", bt_tmpdir);
	ta = slurp(a);
	tb = slurp(b);
	assert_non_null(ta);
	assert_non_null(tb);
	assert_true(memcmp(ta, tb, MiB - 1) != 0);
	free(ta);
	free(tb);
	assert_int_equal(unlink(a), 0);
	assert_int_equal(unlink(b), 0);
}

/*
 * gen_pass() - One pass of @g: the blocks in @blocks, the directions in
 * @reads (true for a read); each block exactly once.
 */
static void gen_pass(struct run_gen *g, unsigned long *blocks, bool *reads)
{
	bool *seen = bench_xcalloc(g->nr_blocks, sizeof(*seen));
	enum run_dir dir;
	uint64_t off, m;

	for (m = 0; m < g->nr_blocks; m++) {
		assert_true(run_gen_next(g, &dir, &off));
		blocks[m] = (unsigned long)(off / g->job->bs);
		reads[m] = dir == RUN_DIR_READ;
		assert_false(seen[blocks[m]]);
		seen[blocks[m]] = true;
	}
	assert_false(run_gen_next(g, &dir, &off));
	free(seen);
}

/*
 * A random pattern visits every block once per pass, in a new order each
 * pass (fio re-randomises at the end of a time-based pass), the same for
 * two runs.  The directions of a mixed job do not follow the block
 * order: the shuffle's draw m places the block visited last but m, and
 * directions drawn from the same stream made op m a read when that draw
 * was in the lower half (94% of ops agreed); now about half do.
 */
static void test_run_gen_passes(void **state)
{
	char *argv[] = { "--name=g", "--rw=randrw", "--bs=4k", "--size=16m" };
	const uint64_t n = 4096;
	unsigned long *p1 = bench_xcalloc(n, sizeof(*p1));
	unsigned long *p2 = bench_xcalloc(n, sizeof(*p2));
	unsigned long *p3 = bench_xcalloc(n, sizeof(*p3));
	bool *r1 = bench_xcalloc(n, sizeof(*r1));
	bool *r2 = bench_xcalloc(n, sizeof(*r2));
	const struct run_job *job = gen_job(4, argv);
	struct run_gen g;
	uint64_t m, agree = 0, reads = 0;

	(void)state;
	run_gen_init(&g, job, 0);
	assert_int_equal(g.nr_blocks, n);
	gen_pass(&g, p1, r1);
	gen_pass(&g, p2, r2);
	assert_true(memcmp(p1, p2, n * sizeof(*p1)) != 0);
	run_gen_free(&g);
	run_gen_init(&g, job, 0);
	gen_pass(&g, p3, r2);
	assert_memory_equal(p1, p3, n * sizeof(*p1));
	run_gen_free(&g);
	for (m = 0; m < n / 2; m++) {
		bool low = p1[n - 1 - m] < (n - m) / 2;

		agree += r1[m] == low;
		reads += r1[m];
	}
	assert_true(agree > n / 2 * 40 / 100 && agree < n / 2 * 60 / 100);
	assert_true(reads > n / 2 * 40 / 100 && reads < n / 2 * 60 / 100);
	free(p1);
	free(p2);
	free(p3);
	free(r1);
	free(r2);
}

/*
 * A read that moves 0 bytes (past the end of a file) is an error, not a
 * completed operation, on every engine with a file's end (upcache-anon's
 * regions have none: they read as zeros).  A write job over an empty
 * file is fine: writes extend it.
 */
static void test_run_read_past_eof_fails(void **state)
{
	static const char *const engines[] = {
		"--ioengine=kernel-sync", "--ioengine=kernel-psync",
		"--ioengine=kernel-mmap", "--ioengine=upcache-shmem",
		"--ioengine=upcache-file",
	};
	char dir[64], err[300];
	size_t e;

	(void)state;
	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	for (e = 0; e < sizeof(engines) / sizeof(engines[0]); e++) {
		char *argv[] = { "--name=eof", (char *)engines[e],
				 "--rw=randread", "--size=1m",
				 "--file_kind=empty", dir };
		struct run_outcome res;

		spec_drop();
		cur_spec = bench_xcalloc(1, sizeof(*cur_spec));
		assert_int_equal(run_parse_args(6, argv, cur_spec, err,
						sizeof(err)), 0);
		run_stop_reset();
		assert_int_equal(run_execute(cur_spec, &res, NULL, err,
					     sizeof(err)), -EIO);
		if (!strstr(err, "job 'eof': read of 4096 bytes at offset ") ||
		    !strstr(err, "past the end of the file"))
			fail_msg("%s: %s", engines[e], err);
		run_outcome_free(&res);
		assert_int_equal(run_status("--name=eof", engines[e],
					    "--rw=randread", "--size=1m",
					    "--file_kind=empty", dir, NULL),
				 BENCH_EXIT_ERROR);
		assert_int_equal(run_status("--name=eof", engines[e],
					    "--rw=write", "--size=1m",
					    "--file_kind=empty", dir, NULL), 0);
	}
	run_stop_reset();
}

static void test_hist_percentiles(void **state)
{
	struct run_hist *h = bench_xcalloc(1, sizeof(*h));
	uint64_t v;
	double p;

	(void)state;
	run_hist_init(h);
	for (v = 1; v <= 1000; v++)
		run_hist_add(h, v * 100);
	assert_int_equal(h->count, 1000);
	assert_int_equal(h->min, 100);
	assert_int_equal(h->max, 100000);
	/* Within a bucket's width (1/64) of the exact nearest rank. */
	p = run_hist_percentile(h, 50);
	assert_true(p > 50000 * 0.98 && p < 50000 * 1.02);
	p = run_hist_percentile(h, 99);
	assert_true(p > 99000 * 0.98 && p < 99000 * 1.02);
	assert_true(run_hist_percentile(h, 100) <= 100000);
	/*
	 * The nearest rank exactly: p99.9 of 1000 values is the 999th (in
	 * floating point 99.9 / 100 * 1000 is a hair above 999).
	 */
	run_hist_init(h);
	for (v = 0; v < 999; v++)
		run_hist_add(h, 10);
	run_hist_add(h, 50000);
	assert_true(run_hist_percentile(h, 99.9) < 11);
	assert_true(run_hist_percentile(h, 99.95) > 49000);
	assert_true(run_hist_percentile(h, 0.0001) < 11);
	/* A p so small it names no rank still gives the first value. */
	run_hist_init(h);
	run_hist_add(h, 10);
	run_hist_add(h, 50000);
	assert_true(run_hist_percentile(h, 1e-7) < 11);
	for (v = 0; v < RUN_HIST_BUCKETS; v++)
		assert_int_equal(run_hist_bucket(run_hist_bucket_low(
			(unsigned int)v)), v);
	free(h);
}

/*
 * A percentile falling in a bucket is the bucket's middle value, unless
 * that lies outside the recorded min and max; merging adds counts and
 * sums and keeps the extremes of both.
 */
static void test_hist_bucket_middle_and_merge(void **state)
{
	struct run_hist *a = bench_xcalloc(2, sizeof(*a)), *b = a + 1;
	unsigned int bucket = run_hist_bucket(100000);
	uint64_t low = run_hist_bucket_low(bucket);
	uint64_t next = run_hist_bucket_low(bucket + 1);

	(void)state;
	/* A bucket of many values: its two ends, then far above it. */
	assert_true(next - low > 2);
	run_hist_init(a);
	run_hist_add(a, low);
	run_hist_add(a, next - 1);
	run_hist_add(a, 10 * next);
	assert_near(run_hist_percentile(a, 50), low + (next - 1 - low) / 2.0,
		    0);
	/* One value alone: its bucket's middle is clamped to it. */
	run_hist_init(b);
	run_hist_add(b, low);
	assert_near(run_hist_percentile(b, 50), low, 0);
	run_hist_add(b, 7);
	run_hist_merge(a, b);
	assert_int_equal(a->count, 5);
	assert_int_equal(a->min, 7);
	assert_int_equal(a->max, 10 * next);
	assert_near(run_hist_mean(a),
		    (2.0 * low + (next - 1) + 10.0 * next + 7) / 5, 1e-9);
	/* A smaller maximum merged keeps the larger; a larger one by 1 wins. */
	run_hist_init(b);
	run_hist_add(b, low);
	run_hist_merge(a, b);
	assert_int_equal(a->max, 10 * next);
	run_hist_init(b);
	run_hist_add(b, 10 * next + 1);
	run_hist_merge(a, b);
	assert_int_equal(a->max, 10 * next + 1);
	free(a);
}

static int teardown(void **state)
{
	spec_drop();
	return bt_tmpdir_teardown(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist_percentiles),
		cmocka_unit_test(test_hist_bucket_middle_and_merge),
		cmocka_unit_test(test_run_pattern_blocks_differ),
		cmocka_unit_test(test_run_text_units_follow_kb_base),
		cmocka_unit_test(test_run_shmem_moves_size),
		cmocka_unit_test(test_run_kernel_psync_and_cleanup),
		cmocka_unit_test(test_run_group_reporting_per_job),
		cmocka_unit_test(test_run_engines_same_bytes),
		cmocka_unit_test(test_run_engines_verify_data),
		cmocka_unit_test(test_run_engines_verify_direct),
		cmocka_unit_test(test_run_direct_jobs),
		cmocka_unit_test(test_run_file_io_uring),
		cmocka_unit_test(test_run_anon_over_memory_limit),
		cmocka_unit_test(test_run_swap_file_existing_kept),
		cmocka_unit_test(test_run_shmem_over_memory_limit),
		cmocka_unit_test(test_run_file_directory_refused),
		cmocka_unit_test(test_run_shmem_swap_refused),
		cmocka_unit_test(test_run_write_job),
		cmocka_unit_test(test_run_file_moves_size),
		cmocka_unit_test(test_run_file_write_reaches_file),
		cmocka_unit_test(test_run_file_over_memory_limit),
		cmocka_unit_test(test_run_json_fields),
		cmocka_unit_test(test_run_example_jobfile),
		cmocka_unit_test(test_run_bad_input_exit_2),
		cmocka_unit_test(test_run_baseline_skipped),
		cmocka_unit_test(test_run_sigint_stops),
		cmocka_unit_test(test_compare_pairs_rounds),
		cmocka_unit_test(test_run_group_time_per_dir),
		cmocka_unit_test(test_run_ramp_carries_on),
		cmocka_unit_test(test_run_readwrite_cursor_per_dir),
		cmocka_unit_test(test_run_seed_per_job),
		cmocka_unit_test(test_run_gen_passes),
		cmocka_unit_test(test_run_read_past_eof_fails),
	};

	return cmocka_run_group_tests(tests, bt_tmpdir_setup, teardown);
}
