// SPDX-License-Identifier: MIT
/*
 * tests/bench/test_bench_run_sync.c - `upcache-bench run`'s fsync=,
 * fdatasync= and end_fsync=, and its think time (thinktime=,
 * thinktime_spin=, thinktime_blocks=): what a clone does between its
 * operations, against fio's behaviour.
 *
 * Counts are exact, from jobs whose operations size= and bs= fix: with
 * fsync=N (fdatasync=N) a clone syncs as its next operation after every
 * N-th write, so W writes and nothing after them make floor((W - 1) / N)
 * syncs (fio issues none after the last write: the job ends first;
 * end_fsync= is for that), and 18 writes with N = 4 make 4; when fsync=
 * and fdatasync= fall due together one sync is issued; end_fsync=1 adds
 * exactly one, in a job that writes, and none in one that only reads;
 * the ramp's syncs are not counted and its writes do not shift the
 * measured phase's; a mixed job syncs after every write but its last
 * operation.  Syncs are part of the run time: a one-pass write job's is
 * exactly its writes' and syncs' latencies added up, the end_fsync
 * included.  Every engine with a file syncs (upcache-file, upcache-shmem,
 * kernel-sync, kernel-psync, kernel-mmap), the table of which engines
 * sync agrees with the option check, and upcache-anon is refused; an
 * upcache-file sync writes the cache's dirty data to the file (fsync
 * and fdatasync); a failed sync fails the run (exit status 2, naming
 * it); the text and the JSON report the syncs as fio does, and compare
 * pairs a job with syncs with one without.
 *
 * Think time, with bounds that hold however slow the machine is (a
 * stall lasts at least as long as asked, an operation on memory far
 * less than one): a job of 16 operations with thinktime=5ms (or 5000,
 * microseconds) runs at least 80 ms, its bandwidth over that, while no
 * operation's latency, nor a sync's after a stall, is near 5 ms; with
 * thinktime_blocks=N it stalls after every N-th operation only (within
 * a runtime= that 16 stalls would pass, all 16 operations are done);
 * thinktime_spin= spends the stall's CPU time, a sleeping one does not;
 * the ramp stalls too, and a stall ends at the end of the ramp, at
 * runtime= and soon after a stop request; the text's job line shows
 * the options.
 *
 * Linked with the benchmark's sources (see cmake/UpcacheTests.cmake).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmocka.h>

#include "bench_helpers.h"
#include "../../tools/bench/clock.h"
#include "../../tools/bench/run_engine.h"
#include "../../tools/bench/run_exec.h"
#include "../../tools/bench/run_report.h"
#include "../../tools/bench/run_spec.h"

#define KiB	1024ULL
#define MSEC	1000000ULL

#define run_status(...) bt_call_argv(bench_suite_run_argv, __VA_ARGS__)
#define compare_status(...) \
	bt_call_argv(bench_suite_compare_argv, __VA_ARGS__)

/* Every engine with a file, as --ioengine= options. */
static const char *const file_engines[] = {
	"--ioengine=upcache-file", "--ioengine=upcache-shmem",
	"--ioengine=kernel-sync", "--ioengine=kernel-psync",
	"--ioengine=kernel-mmap",
};

/* The spec of the last execute(): results point at its jobs. */
static struct run_spec *cur_spec;

/* spec_drop() - Free the spec of the last execute(). */
static void spec_drop(void)
{
	if (cur_spec)
		run_spec_free(cur_spec);
	free(cur_spec);
	cur_spec = NULL;
}

/* parse() - Parse @argv into cur_spec. */
static void parse(int argc, char **argv)
{
	char err[300];

	spec_drop();
	cur_spec = bench_xcalloc(1, sizeof(*cur_spec));
	if (run_parse_args(argc, argv, cur_spec, err, sizeof(err)))
		fail_msg("parse: %s", err);
}

/* execute() - Parse @argv and run it; the results in @res. */
static void execute(int argc, char **argv, struct run_outcome *res)
{
	char err[300];

	parse(argc, argv);
	run_stop_reset();
	if (run_execute(cur_spec, res, NULL, err, sizeof(err)))
		fail_msg("run: %s", err);
}

/*
 * run_write_job() - Run one clone of a rw=write job of @size bytes in
 * 4 KiB blocks on @engine with the options @o1 and @o2 (NULL for none)
 * and check what every write job must show: @size / 4 KiB writes, and
 * a run time that is exactly its writes' and syncs' latencies (one pass:
 * nothing else is timed), so the syncs, the end_fsync too, are in it.
 * Return: its number of syncs.
 */
static uint64_t run_write_job(const char *engine, uint64_t size,
			      const char *o1, const char *o2)
{
	char dir[64], sz[32];
	char *argv[] = { "--name=s", (char *)engine, "--rw=write", "--bs=4k",
			 sz, dir, (char *)o1, (char *)o2 };
	const struct run_stats *st;
	struct run_outcome res;
	uint64_t syncs;

	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	snprintf(sz, sizeof(sz), "--size=%llu", (unsigned long long)size);
	execute(6 + !!o1 + !!o2, argv, &res);
	assert_int_equal(res.nr_results, 1);
	st = &res.results[0].st;
	assert_int_equal(st->ops[RUN_DIR_WRITE], size / (4 * KiB));
	assert_int_equal(st->hist[RUN_DIR_WRITE].count, size / (4 * KiB));
	assert_int_equal(st->elapsed_ns[RUN_DIR_WRITE],
			 st->hist[RUN_DIR_WRITE].sum + st->sync.sum);
	syncs = st->sync.count;
	run_outcome_free(&res);
	return syncs;
}

/* The engines' table and the option check agree on which engines sync. */
static void test_run_sync_engines_agree(void **state)
{
	static const char *const names[] = {
		"upcache-shmem", "upcache-file", "upcache-anon",
		"kernel-sync", "kernel-psync", "kernel-mmap",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct run_engine *e = run_engine_find(names[i]);

		assert_non_null(e);
		if (!e->sync != !run_engine_syncs(names[i]))
			fail_msg("%s: sync %s, run_engine_syncs() %d", names[i],
				 e->sync ? "set" : "NULL",
				 run_engine_syncs(names[i]));
	}
	assert_null(run_engine_find("upcache-anon")->sync);
}

/*
 * fsync=4 and fdatasync=4 on every engine with a file: 18 writes make
 * 4 syncs, and 16 writes make 3, since fio issues a sync as the next
 * operation and there is none after the 16th.  end_fsync=1 adds one.
 */
static void test_run_sync_every_n_writes(void **state)
{
	size_t e;

	(void)state;
	for (e = 0; e < BT_ARRAY_SIZE(file_engines); e++) {
		const char *eng = file_engines[e];

		assert_int_equal(run_write_job(eng, 72 * KiB, NULL, NULL), 0);
		assert_int_equal(run_write_job(eng, 72 * KiB, "--fsync=4",
					       NULL), 4);
		assert_int_equal(run_write_job(eng, 64 * KiB, "--fsync=4",
					       NULL), 3);
		assert_int_equal(run_write_job(eng, 72 * KiB, "--fdatasync=4",
					       NULL), 4);
		assert_int_equal(run_write_job(eng, 64 * KiB, "--fdatasync=4",
					       NULL), 3);
		assert_int_equal(run_write_job(eng, 64 * KiB, "--fsync=1",
					       NULL), 15);
		assert_int_equal(run_write_job(eng, 64 * KiB, "--fsync=16",
					       NULL), 0);
		assert_int_equal(run_write_job(eng, 64 * KiB, "--end_fsync=1",
					       NULL), 1);
		assert_int_equal(run_write_job(eng, 64 * KiB, "--fsync=4",
					       "--end_fsync"), 4);
		assert_int_equal(run_write_job(eng, 72 * KiB, "--fdatasync=4",
					       "--end_fsync=1"), 5);
	}
}

/*
 * fsync=4 and fdatasync=2 over 16 writes: a sync after writes 2, 4, ...
 * 14, the fsync alone where both fall due (fio checks fsync= first): 7,
 * not 10.  Clones count their own writes: two clones sync 7 times each.
 */
static void test_run_sync_both_due_one_sync(void **state)
{
	char dir[64];
	char *argv[] = { "--name=b", "--ioengine=upcache-shmem", "--rw=write",
			 "--bs=4k", "--size=64k", "--fsync=4", "--fdatasync=2",
			 "--numjobs=2", dir };
	struct run_outcome res;
	size_t i;

	(void)state;
	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	assert_int_equal(run_write_job("--ioengine=kernel-psync", 64 * KiB,
				       "--fsync=4", "--fdatasync=2"), 7);
	execute(9, argv, &res);
	assert_int_equal(res.nr_results, 2);
	for (i = 0; i < 2; i++)
		assert_int_equal(res.results[i].st.sync.count, 7);
	/* The group's line merges them. */
	assert_int_equal(res.groups[0].sync.count, 14);
	run_outcome_free(&res);
}

/*
 * The ramp syncs unmeasured, and the measured phase counts its writes
 * from 0 again (fio resets them when the ramp ends): 16 measured writes
 * make 3 syncs whatever the ramp left, none owed from it counted.
 */
static void test_run_sync_ramp_not_counted(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++)
		assert_int_equal(run_write_job("--ioengine=upcache-shmem",
					       64 * KiB, "--fsync=4",
					       i == 1 ? "--ramp_time=20ms" :
					       i == 2 ? "--ramp_time=7ms" :
					       "--ramp_time=1ms"), 3);
}

/*
 * A mixed job with fsync=1 syncs after every write but the job's last
 * operation: the clone's own direction sequence (run_gen, seeded by its
 * number) says whether that was a write.
 */
static void test_run_sync_mixed_job(void **state)
{
	char dir[64];
	char *argv[] = { "--name=m", "--ioengine=kernel-psync", "--rw=randrw",
			 "--bs=4k", "--size=256k", "--fsync=1", dir };
	const struct run_stats *st;
	struct run_outcome res;
	enum run_dir d, last = RUN_DIR_READ;
	struct run_gen g;
	uint64_t off, writes = 0;

	(void)state;
	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	execute(7, argv, &res);
	st = &res.results[0].st;
	run_gen_init(&g, &cur_spec->jobs[0], 0);
	while (run_gen_next(&g, &d, &off)) {
		writes += d == RUN_DIR_WRITE;
		last = d;
	}
	run_gen_free(&g);
	assert_int_equal(st->ops[RUN_DIR_WRITE], writes);
	assert_true(writes > 1 && st->ops[RUN_DIR_READ] > 0);
	assert_int_equal(st->sync.count,
			 writes - (last == RUN_DIR_WRITE));
	run_outcome_free(&res);
}

/*
 * end_fsync= syncs only a job that writes, time-based ones included
 * (once, at the end); a read-only job accepts it and never syncs, and
 * reports no syncs in the text or the JSON.
 */
static void test_run_end_fsync_writers_only(void **state)
{
	char dir[64], json[128], arg[160];
	char *tb[] = { "--name=t", "--ioengine=upcache-file", "--rw=randwrite",
		       "--bs=4k", "--size=256k", "--runtime=30ms",
		       "--time_based", "--end_fsync=1", dir };
	char *rd[] = { "--name=r", "--ioengine=upcache-file", "--rw=read",
		       "--bs=4k", "--size=64k", "--end_fsync=1", "--fsync=1",
		       dir };
	struct run_outcome res;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	(void)state;
	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	execute(9, tb, &res);
	assert_true(res.results[0].st.ops[RUN_DIR_WRITE] > 0);
	assert_int_equal(res.results[0].st.sync.count, 1);
	run_outcome_free(&res);

	execute(8, rd, &res);
	assert_int_equal(res.results[0].st.ops[RUN_DIR_READ], 16);
	assert_int_equal(res.results[0].st.sync.count, 0);
	out = open_memstream(&text, &len);
	assert_non_null(out);
	run_report_text(out, &res);
	fclose(out);
	assert_null(strstr(text, "fsync/fdatasync"));
	free(text);
	run_outcome_free(&res);

	snprintf(json, sizeof(json), "%s/rd.json", bt_tmpdir);
	snprintf(arg, sizeof(arg), "--json=%s", json);
	assert_int_equal(run_status("--output-format=json", arg, "--name=r",
				    "--ioengine=upcache-file", "--rw=read",
				    "--size=64k", "--end_fsync=1", dir, NULL),
			 0);
	text = bt_slurp(json);
	assert_non_null(text);
	assert_non_null(strstr(text, "\"dir\":\"read\""));
	assert_null(strstr(text, "\"dir\":\"sync\""));
	free(text);
}

/*
 * The text has fio's sync block with the number of syncs and their
 * percentiles; the JSON a "sync" row per job that writes, with fio's
 * total_ios and lat_ns figures (null with no syncs); compare pairs a
 * job with syncs with the same job without.
 */
static void test_run_sync_output(void **state)
{
	static const char *const keys[] = {
		"lat_ns_min", "lat_ns_mean", "lat_ns_max", "lat_ns_p50",
		"lat_ns_p90", "lat_ns_p99", "lat_ns_p99.9",
	};
	char dir[64], json[128], arg[160];
	char *argv[] = { "--name=o", "--ioengine=kernel-psync", "--rw=write",
			 "--bs=4k", "--size=72k", "--fsync=4", dir };
	struct run_outcome res;
	char *text = NULL;
	size_t len = 0, k;
	FILE *out;

	(void)state;
	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	execute(7, argv, &res);
	out = open_memstream(&text, &len);
	assert_non_null(out);
	run_report_text(out, &res);
	fclose(out);
	if (!strstr(text, "  fsync/fdatasync/sync_file_range: syncs=4\n") ||
	    !strstr(text, "    sync (nsec): min=") ||
	    !strstr(text, "     sync percentiles (nsec): p50="))
		fail_msg("no sync block:\n%s", text);
	free(text);
	run_outcome_free(&res);

	snprintf(json, sizeof(json), "%s/sync.json", bt_tmpdir);
	snprintf(arg, sizeof(arg), "--json=%s", json);
	assert_int_equal(run_status("--output-format=json", arg, dir,
				    "--name=o", "--ioengine=kernel-psync",
				    "--rw=write", "--size=72k", "--fsync=4",
				    "--name=n", "--ioengine=upcache-shmem",
				    "--rw=write", "--size=72k", NULL), 0);
	text = bt_slurp(json);
	assert_non_null(text);
	assert_int_equal(bt_run_row_num(text, "o", "sync", "total_ios"), 4);
	assert_int_equal(bt_run_row_num(text, "o", "write", "io_bytes"),
			 72 * KiB);
	for (k = 0; k < BT_ARRAY_SIZE(keys); k++)
		assert_true(bt_run_row_num(text, "o", "sync", keys[k]) > 0);
	assert_true(bt_run_row_num(text, "o", "sync", "lat_ns_min") <=
		    bt_run_row_num(text, "o", "sync", "lat_ns_max"));
	/* A writer without sync options: fio's "sync" with none. */
	assert_int_equal(bt_run_row_num(text, "n", "sync", "total_ios"), 0);
	assert_int_equal(strncmp(bt_run_row_field(text, "n", "sync",
						  "lat_ns_p50"),
				 "null", 4), 0);
	free(text);

	assert_int_equal(compare_status("--rounds", "1",
		"--output-format=json", "--json=/dev/null",
		"--", "--name=c", "--ioengine=upcache-shmem", "--rw=write",
		"--size=64k", "--fsync=4",
		"--", "--name=c", "--ioengine=upcache-shmem", "--rw=write",
		"--size=64k", NULL), 0);
}

/*
 * An upcache-file sync writes the cache's dirty data to the file: a
 * block written through the engine is not in the file until the clone
 * syncs (fsync, then fdatasync for another block).
 */
static void test_run_file_sync_writes_back(void **state)
{
	char dir[64], err[300];
	char *argv[] = { "--name=wb", "--ioengine=upcache-file",
			 "--rw=write", "--size=64k", "--file_kind=hole", dir };
	unsigned char buf[4096], got[4096];
	const struct run_engine *eng;
	const struct run_job *job;
	void *ctx, *h;
	char *path;
	int fd, i;

	(void)state;
	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	parse(6, argv);
	job = &cur_spec->jobs[0];
	eng = run_engine_find(job->engine);
	if (eng->setup(job, &ctx, err, sizeof(err)))
		fail_msg("setup: %s", err);
	assert_int_equal(eng->open(ctx, 0, &h), 0);
	path = run_file_path(job, 0);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	for (i = 0; i < 2; i++) {
		off_t off = (off_t)i * 8192;

		memset(buf, 0x5a + i, sizeof(buf));
		assert_int_equal(eng->io(h, true, buf, sizeof(buf),
					 (uint64_t)off), sizeof(buf));
		assert_int_equal(pread(fd, got, sizeof(got), off),
				 sizeof(got));
		assert_int_equal(got[0], 0);	/* still a hole */
		assert_int_equal(eng->sync(h, i == 1), 0);
		assert_int_equal(pread(fd, got, sizeof(got), off),
				 sizeof(got));
		assert_memory_equal(got, buf, sizeof(buf));
	}
	close(fd);
	free(path);
	eng->close(h);
	eng->teardown(ctx);
}

/*
 * sync_fails() - The child of test_run_sync_failure_fails_job(): files
 * may not grow past 8 KiB (and SIGXFSZ is ignored, so a write past that
 * fails with EFBIG), so upcache-file's first fsync, writing back 16 KiB,
 * fails.  Exits with the run's status.
 */
static void sync_fails(void *arg)
{
	struct rlimit lim = { 8192, 8192 };
	const char *dir = arg;

	signal(SIGXFSZ, SIG_IGN);
	if (setrlimit(RLIMIT_FSIZE, &lim))
		_exit(99);
	_exit(run_status("--name=bad", "--ioengine=upcache-file",
			 "--rw=write", "--bs=4k", "--size=64k",
			 "--file_kind=empty", "--fsync=4", dir, NULL));
}

/* A failed sync fails the run, as a failed operation does, naming it. */
static void test_run_sync_failure_fails_job(void **state)
{
	char dir[64];

	(void)state;
	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	bt_expect_exit2(sync_fails, dir, "job 'bad': fsync: File too large");
	/* And on upcache-anon, with no file to sync, the job is refused. */
	assert_int_equal(run_status("--name=a", "--ioengine=upcache-anon",
				    "--rw=write", "--size=64k", "--fsync=4",
				    NULL), BENCH_EXIT_ERROR);
	assert_int_equal(run_status("--name=a", "--ioengine=upcache-anon",
				    "--rw=write", "--size=64k", "--end_fsync",
				    NULL), BENCH_EXIT_ERROR);
}

/*
 * think_json() - Run one clone of a rw=write job of 16 blocks of 4 KiB
 * on upcache-shmem with the options @o1 to @o3 (NULL for none, the NULLs
 * last), check that it moved its 64 KiB, and return its JSON text
 * (malloc()ed).
 */
static char *think_json(const char *o1, const char *o2, const char *o3)
{
	char json[128], arg[160];
	char *argv[] = { "--output-format=json", arg, "--name=t",
			 "--ioengine=upcache-shmem", "--rw=write", "--bs=4k",
			 "--size=64k", (char *)o1, (char *)o2, (char *)o3,
			 NULL };
	char *text;

	snprintf(json, sizeof(json), "%s/think.json", bt_tmpdir);
	snprintf(arg, sizeof(arg), "--json=%s", json);
	assert_int_equal(bench_suite_run_argv(7 + !!o1 + !!o2 + !!o3, argv),
			 0);
	text = bt_slurp(json);
	assert_non_null(text);
	assert_int_equal(bt_run_row_num(text, "t", "write", "io_bytes"),
			 64 * KiB);
	return text;
}

/*
 * expect_stalled() - The write row of @text ran at least @min_ms, its
 * bandwidth is over that run time, and its write latency at percentile
 * @pct (a JSON field) is below @stall_ms.  A stall counted in a latency
 * would be in that of every write after it: a percentile below the
 * share of stalled writes would show it, while one write preempted on
 * a busy machine does not move it.
 */
static void expect_stalled(const char *text, double min_ms, double stall_ms,
			   const char *pct)
{
	double ms = bt_run_row_num(text, "t", "write", "runtime_ms");
	double bw = bt_run_row_num(text, "t", "write", "bw_bytes");
	double lat = bt_run_row_num(text, "t", "write", pct);

	if (ms < min_ms)
		fail_msg("ran %.3f ms, not the %.0f ms of its stalls", ms,
			 min_ms);
	assert_near(bw * ms / 1000, 64 * KiB, 64 * KiB / 100);
	if (lat >= stall_ms * 1e6)
		fail_msg("a stall is in the latencies: %s %.0f ns", pct, lat);
}

/*
 * thinktime=5ms after each of 16 writes: at least 80 ms of run time
 * (fio thinks after the last one too), the bandwidth over it, and the
 * median latency far below 5 ms; a bare 5000 is the same, in
 * microseconds.  With thinktime=20ms thinktime_blocks=4, 4 stalls: at
 * least 80 ms, and a quarter of the writes would carry one, so the 90th
 * percentile stays below 20 ms.  With fsync=4 the stall comes between
 * the write and the sync it made due, and is in neither's latency: the
 * quickest of the 3 syncs would carry it too.
 */
static void test_run_think_in_runtime_not_latency(void **state)
{
	static const char *const think[] = {
		"--thinktime=5ms", "--thinktime=5000",
	};
	char *text;
	size_t i;

	(void)state;
	for (i = 0; i < BT_ARRAY_SIZE(think); i++) {
		text = think_json(think[i], NULL, NULL);
		expect_stalled(text, 80, 5, "clat_ns_p50");
		free(text);
	}
	text = think_json("--thinktime=20ms", "--thinktime_blocks=4", NULL);
	expect_stalled(text, 80, 20, "clat_ns_p90");
	free(text);
	text = think_json("--fsync=4", "--thinktime=5ms", NULL);
	expect_stalled(text, 80, 5, "clat_ns_p50");
	assert_int_equal(bt_run_row_num(text, "t", "sync", "total_ios"), 3);
	assert_true(bt_run_row_num(text, "t", "sync", "lat_ns_min") < 5e6);
	free(text);
}

/*
 * thinktime_blocks=8 stalls twice in 16 writes: they are all done, in
 * at least 60 ms, well within a runtime=200ms that a stall after every
 * write (16 times 30 ms) would have cut short at 7.  The job's line in
 * the text names the think options, as its bandwidth counts them.
 */
static void test_run_think_blocks_pace(void **state)
{
	char *argv[] = { "--name=p", "--ioengine=upcache-shmem", "--rw=write",
			 "--bs=4k", "--size=64k", "--runtime=200ms",
			 "--thinktime=30ms", "--thinktime_blocks=8" };
	const struct run_stats *st;
	struct run_outcome res;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	(void)state;
	execute(8, argv, &res);
	st = &res.results[0].st;
	assert_int_equal(st->ops[RUN_DIR_WRITE], 16);
	assert_true(st->elapsed_ns[RUN_DIR_WRITE] >= 60 * MSEC);
	assert_true(st->hist[RUN_DIR_WRITE].max < 30 * MSEC);
	out = open_memstream(&text, &len);
	assert_non_null(out);
	run_report_text(out, &res);
	fclose(out);
	if (!strstr(text, "size=64.0KiB thinktime=30000us "
		    "thinktime_blocks=8\n"))
		fail_msg("the job line lacks the think options:\n%s", text);
	free(text);
	run_outcome_free(&res);
}

/* cpu_ns() - CPU time of the process so far, its clones' threads too. */
static uint64_t cpu_ns(void)
{
	struct rusage ru;

	assert_int_equal(getrusage(RUSAGE_SELF, &ru), 0);
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) *
	       1000000000ULL + ((uint64_t)ru.ru_utime.tv_usec +
				(uint64_t)ru.ru_stime.tv_usec) * 1000;
}

/* think_cpu_ns() - CPU time a 16-write job with @spin= spends. */
static uint64_t think_cpu_ns(const char *spin)
{
	char *argv[] = { "--name=c", "--ioengine=upcache-shmem", "--rw=write",
			 "--bs=4k", "--size=64k", "--thinktime=2ms",
			 (char *)spin };
	struct run_outcome res;
	uint64_t t0 = cpu_ns();

	execute(7, argv, &res);
	t0 = cpu_ns() - t0;
	assert_true(res.results[0].st.elapsed_ns[RUN_DIR_WRITE] >=
		    16 * 2 * MSEC);
	run_outcome_free(&res);
	return t0;
}

/*
 * thinktime_spin= equal to thinktime= spins through the whole stall, 16
 * stalls of 2 ms; thinktime_spin=0 sleeps through them.  A spin lasts
 * until the clock says, so a clone preempted while spinning spends less
 * CPU than asked: the bound leaves room for a machine busy with other
 * tests (a share of 30% of one CPU), and the sleeping job must spend
 * less than half of what the spinning one did.
 */
static void test_run_think_spin_burns_cpu(void **state)
{
	uint64_t spun, slept;

	(void)state;
	spun = think_cpu_ns("--thinktime_spin=2ms");
	slept = think_cpu_ns("--thinktime_spin=0");
	if (spun < 16 * 2 * MSEC * 3 / 10 || slept >= spun / 2)
		fail_msg("CPU time: %llu ns spinning, %llu ns sleeping",
			 (unsigned long long)spun, (unsigned long long)slept);
}

/*
 * The ramp stalls too, and a stall ends where the ramp does: with
 * ramp_time=50ms and thinktime=20ms it writes at most 3 blocks (at 0,
 * 20 and 40 ms), not the thousands it would write without, and the
 * measured phase, cut to one write by its runtime=1ms, writes the next:
 * 2 to 4 of the file's 16 blocks are written, the rest still holes.
 */
static void test_run_think_in_ramp(void **state)
{
	char dir[64], path[128];
	char *argv[] = { "--name=rt", "--ioengine=kernel-psync", "--rw=write",
			 "--bs=4k", "--size=64k", "--file_kind=hole",
			 "--filename=ramp-think", "--unlink=0",
			 "--ramp_time=50ms", "--runtime=1ms",
			 "--thinktime=20ms", dir };
	unsigned char block[4096];
	struct run_outcome res;
	unsigned int written = 0, i;
	size_t b;
	FILE *f;

	(void)state;
	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	snprintf(path, sizeof(path), "%s/ramp-think", bt_tmpdir);
	execute(12, argv, &res);
	assert_int_equal(res.results[0].st.ops[RUN_DIR_WRITE], 1);
	run_outcome_free(&res);
	f = fopen(path, "r");
	assert_non_null(f);
	for (i = 0; i < 16; i++) {
		assert_int_equal(fread(block, 1, sizeof(block), f),
				 sizeof(block));
		for (b = 0; b < sizeof(block) && !block[b]; b++)
			;
		written += b < sizeof(block);
	}
	fclose(f);
	assert_int_equal(unlink(path), 0);
	if (written < 2 || written > 4)
		fail_msg("%u blocks written, not 2 to 4", written);
}

/*
 * stopper() - Ask the run to stop after 200 ms, from another thread:
 * long after the clone's first write even on a busy machine, long
 * before its 3 s stall ends.
 */
static void *stopper(void *arg)
{
	(void)arg;
	bench_sleep_ns(200 * MSEC);
	run_request_stop();
	return NULL;
}

/*
 * A stall of 3 s ends at runtime=50ms, and within a sleep's slice of
 * a stop request (Ctrl-C): either job is over in far less than the 3 s,
 * after its one write.
 */
static void test_run_think_ends_promptly(void **state)
{
	char *timed[] = { "--name=e", "--ioengine=upcache-shmem",
			  "--rw=write", "--size=64k", "--thinktime=3s",
			  "--runtime=50ms" };
	struct run_outcome res;
	char err[300];
	pthread_t tid;
	uint64_t t0;

	(void)state;
	t0 = bench_now_ns();
	execute(6, timed, &res);
	t0 = bench_now_ns() - t0;
	assert_int_equal(res.results[0].st.ops[RUN_DIR_WRITE], 1);
	assert_true(res.results[0].st.elapsed_ns[RUN_DIR_WRITE] >= 50 * MSEC);
	assert_false(res.interrupted);
	run_outcome_free(&res);
	if (t0 >= 1500 * MSEC)
		fail_msg("runtime=50ms took %llu ns", (unsigned long long)t0);

	/* The same job without its runtime=. */
	parse(5, timed);
	run_stop_reset();
	t0 = bench_now_ns();
	assert_int_equal(pthread_create(&tid, NULL, stopper, NULL), 0);
	if (run_execute(cur_spec, &res, NULL, err, sizeof(err)))
		fail_msg("run: %s", err);
	t0 = bench_now_ns() - t0;
	pthread_join(tid, NULL);
	run_stop_reset();
	assert_true(res.interrupted);
	assert_int_equal(res.results[0].st.ops[RUN_DIR_WRITE], 1);
	run_outcome_free(&res);
	if (t0 >= 1500 * MSEC)
		fail_msg("a stop took %llu ns", (unsigned long long)t0);
}

static int teardown(void **state)
{
	spec_drop();
	return bt_tmpdir_teardown(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_sync_engines_agree),
		cmocka_unit_test(test_run_sync_every_n_writes),
		cmocka_unit_test(test_run_sync_both_due_one_sync),
		cmocka_unit_test(test_run_sync_ramp_not_counted),
		cmocka_unit_test(test_run_sync_mixed_job),
		cmocka_unit_test(test_run_end_fsync_writers_only),
		cmocka_unit_test(test_run_sync_output),
		cmocka_unit_test(test_run_file_sync_writes_back),
		cmocka_unit_test(test_run_sync_failure_fails_job),
		cmocka_unit_test(test_run_think_in_runtime_not_latency),
		cmocka_unit_test(test_run_think_blocks_pace),
		cmocka_unit_test(test_run_think_spin_burns_cpu),
		cmocka_unit_test(test_run_think_in_ramp),
		cmocka_unit_test(test_run_think_ends_promptly),
	};

	return cmocka_run_group_tests(tests, bt_tmpdir_setup, teardown);
}
