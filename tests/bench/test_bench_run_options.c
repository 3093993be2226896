// SPDX-License-Identifier: MIT
/*
 * tests/bench/test_bench_run_options.c - `upcache-bench run`'s options
 * against fio's documented meanings.
 *
 * Sizes (k/m/g/t/p in kb_base=1024, the IEC spellings' decimal meaning
 * in fio's compatibility mode and the swap under kb_base=1000), times
 * (seconds by default, us/ms/s/m/h/d), enumerations, fio's defaults and
 * how size, filesize and offset derive from one another, job files
 * ([global] inheritance, comments, bare flags, errors with file:line),
 * the command line's --name grammar, the swap options of upcache-anon
 * and upcache-shmem (their values, and that another engine refuses
 * them), the sync options fsync=, fdatasync= and end_fsync= (their
 * values, inherited from [global], and refused, unless 0, on
 * upcache-anon, which has no file to sync), direct= (O_DIRECT: on
 * upcache-file with any bs, on kernel-sync and kernel-psync with bs= and
 * offset= multiples of 4096, refused with a reason on kernel-mmap,
 * upcache-shmem and upcache-anon), file_io_uring= and
 * file_background_writeback= (upcache-file only), the think time
 * options (thinktime= and thinktime_spin= in
 * microseconds without a unit, thinktime_blocks= from 1; the last two
 * refused without thinktime=, a spin longer than the stall refused,
 * inherited from [global]), and that every option that is not supported
 * is an error naming it.
 *
 * Linked with the benchmark's sources (see cmake/UpcacheTests.cmake).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../tools/bench/run_options.h"
#include "../../tools/bench/run_spec.h"

#define KiB	1024ULL
#define MiB	(1024ULL * KiB)
#define GiB	(1024ULL * MiB)
#define SEC	1000000000ULL

/* size_of() - run_parse_size() or a sentinel for an error. */
static uint64_t size_of(const char *s, unsigned int kb_base)
{
	uint64_t v = 0;

	return run_parse_size(s, kb_base, &v) ? UINT64_MAX : v;
}

static void test_run_parse_size_units(void **state)
{
	(void)state;
	assert_int_equal(size_of("4096", 1024), 4096);
	assert_int_equal(size_of("4k", 1024), 4 * KiB);
	assert_int_equal(size_of("4K", 1024), 4 * KiB);
	assert_int_equal(size_of("4kb", 1024), 4 * KiB);
	assert_int_equal(size_of("4KB", 1024), 4 * KiB);
	assert_int_equal(size_of("64m", 1024), 64 * MiB);
	assert_int_equal(size_of("1g", 1024), GiB);
	assert_int_equal(size_of("2t", 1024), 2048 * GiB);
	assert_int_equal(size_of("1p", 1024), 1024ULL * 1024 * GiB);
	assert_int_equal(size_of("512b", 1024), 512);
	/* fio's compatibility mode: IEC spellings are powers of 10. */
	assert_int_equal(size_of("4KiB", 1024), 4000);
	assert_int_equal(size_of("1MiB", 1024), 1000000);
	/* As fio reads them, "ki" without the b is "k". */
	assert_int_equal(size_of("4Ki", 1024), 4 * KiB);
	assert_int_equal(size_of("1mi", 1024), MiB);
	assert_int_equal(size_of("4Ki", 1000), 4000);
	/* kb_base=1000 follows the standards. */
	assert_int_equal(size_of("4k", 1000), 4000);
	assert_int_equal(size_of("4KiB", 1000), 4 * KiB);
	assert_int_equal(size_of("1m", 1000), 1000000);
}

static void test_run_parse_size_rejects(void **state)
{
	uint64_t v = 7;

	(void)state;
	assert_int_equal(run_parse_size("", 1024, &v), -EINVAL);
	assert_int_equal(run_parse_size("-1", 1024, &v), -EINVAL);
	assert_int_equal(run_parse_size("k", 1024, &v), -EINVAL);
	assert_int_equal(run_parse_size("1.5k", 1024, &v), -EINVAL);
	assert_int_equal(run_parse_size("4x", 1024, &v), -EINVAL);
	assert_int_equal(run_parse_size("4kk", 1024, &v), -EINVAL);
	assert_int_equal(run_parse_size("50%", 1024, &v), -EINVAL);
	assert_int_equal(run_parse_size("99999999999p", 1024, &v), -ERANGE);
	/* Not a size at all, however many digits come first. */
	assert_int_equal(run_parse_size("99999999999999999999x", 1024, &v),
			 -EINVAL);
	assert_int_equal(run_parse_size("99999999999999999999", 1024, &v),
			 -ERANGE);
	assert_int_equal(v, 7);
}

static void test_run_parse_time_units(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(run_parse_time("10", &v), 0);
	assert_int_equal(v, 10 * SEC);
	assert_int_equal(run_parse_time("10s", &v), 0);
	assert_int_equal(v, 10 * SEC);
	assert_int_equal(run_parse_time("10sec", &v), 0);
	assert_int_equal(v, 10 * SEC);
	assert_int_equal(run_parse_time("500ms", &v), 0);
	assert_int_equal(v, SEC / 2);
	assert_int_equal(run_parse_time("500msec", &v), 0);
	assert_int_equal(v, SEC / 2);
	assert_int_equal(run_parse_time("20us", &v), 0);
	assert_int_equal(v, 20000);
	assert_int_equal(run_parse_time("2m", &v), 0);
	assert_int_equal(v, 120 * SEC);
	assert_int_equal(run_parse_time("1h", &v), 0);
	assert_int_equal(v, 3600 * SEC);
	assert_int_equal(run_parse_time("1d", &v), 0);
	assert_int_equal(v, 86400 * SEC);
	assert_int_equal(run_parse_time("3S", &v), 0);
	assert_int_equal(v, 3 * SEC);
	assert_int_equal(run_parse_time("-1", &v), -EINVAL);
	assert_int_equal(run_parse_time("5y", &v), -EINVAL);
	assert_int_equal(run_parse_time("s", &v), -EINVAL);
	assert_int_equal(run_parse_time("1.5s", &v), -EINVAL);
	assert_int_equal(run_parse_time("99999999999999d", &v), -ERANGE);
	assert_int_equal(run_parse_time("99999999999999999999ms.5", &v),
			 -EINVAL);
}

/* thinktime='s unit: microseconds without one, fio's others with one. */
static void test_run_parse_time_in_bare_unit(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(run_parse_time_in("50", 1000, &v), 0);
	assert_int_equal(v, 50000);
	assert_int_equal(run_parse_time_in("0", 1000, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(run_parse_time_in("2ms", 1000, &v), 0);
	assert_int_equal(v, 2000000);
	assert_int_equal(run_parse_time_in("2MSEC", 1000, &v), 0);
	assert_int_equal(v, 2000000);
	assert_int_equal(run_parse_time_in("7usec", 1000, &v), 0);
	assert_int_equal(v, 7000);
	assert_int_equal(run_parse_time_in("1s", 1000, &v), 0);
	assert_int_equal(v, SEC);
	/* The bare unit is the caller's: run_parse_time()'s is seconds. */
	assert_int_equal(run_parse_time_in("3", SEC, &v), 0);
	assert_int_equal(v, 3 * SEC);
	v = 7;
	assert_int_equal(run_parse_time_in("5y", 1000, &v), -EINVAL);
	assert_int_equal(run_parse_time_in("ms", 1000, &v), -EINVAL);
	assert_int_equal(run_parse_time_in("-5", 1000, &v), -EINVAL);
	assert_int_equal(run_parse_time_in("99999999999999999999", 1000, &v),
			 -ERANGE);
	assert_int_equal(v, 7);
}

/* set_err() - run_opts_set() on scratch options; the message in @err. */
static int set_err(const char *name, const char *value, char *err,
		   size_t len)
{
	struct run_opts o = { { NULL } };
	int ret = run_opts_set(&o, name, value, err, len);

	run_opts_free(&o);
	return ret;
}

static void test_run_opts_unsupported_named(void **state)
{
	char err[200];

	(void)state;
	assert_int_equal(set_err("buffered", "0", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'buffered'"));
	assert_non_null(strstr(err, "not supported"));
	assert_int_equal(set_err("frobnicate", "1", err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "unknown option 'frobnicate'"));
	assert_int_equal(set_err("ioengine", "libaio", err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "ioengine=libaio"));
	assert_int_equal(set_err("rw", "trim", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "rw=trim"));
	assert_int_equal(set_err("rw", "randread:8", err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "offset modifiers"));
	assert_int_equal(set_err("bs", "4k,8k", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "bs=4k,8k"));
	assert_int_equal(set_err("size", "50%", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "percentages"));
}

static void test_run_opts_bad_values(void **state)
{
	char err[200];

	(void)state;
	assert_int_equal(set_err("size", "-1", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "size=-1"));
	assert_int_equal(set_err("bs", "abc", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a size"));
	assert_int_equal(set_err("runtime", "-5", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "negative time"));
	assert_int_equal(set_err("ramp_time", "3y", err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(set_err("numjobs", "0", err, sizeof(err)), -EINVAL);
	assert_int_equal(set_err("numjobs", "65", err, sizeof(err)), -EINVAL);
	assert_int_equal(set_err("rwmixread", "101", err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(set_err("time_based", "yes", err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(set_err("size", NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "needs a value"));
	/* The name is the files' name too: never cut to fit. */
	assert_int_equal(set_err("name", "n23456789012345678901234567890123"
				 "4567890123456789012345678901234", err,
				 sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "longer than 63"));
	assert_int_equal(set_err("name", "n2345678901234567890123456789012"
				 "3456789012345678901234567890123", err,
				 sizeof(err)), 0);
	assert_int_equal(set_err("time_based", NULL, err, sizeof(err)), 0);
	assert_int_equal(set_err("readwrite", "randrw", err, sizeof(err)), 0);
	assert_int_equal(set_err("blocksize", "64k", err, sizeof(err)), 0);
	assert_int_equal(set_err("ioengine", "psync", err, sizeof(err)), 0);
}

/* resolve() - Resolve "name=value" pairs as one job. */
static int resolve(struct run_job *job, char *err, size_t len, ...)
{
	struct run_opts o = { { NULL } };
	const char *name;
	va_list ap;
	int ret = 0;

	va_start(ap, len);
	while (!ret && (name = va_arg(ap, const char *)))
		ret = run_opts_set(&o, name, va_arg(ap, const char *), err,
				   len);
	va_end(ap);
	if (!ret)
		ret = run_job_resolve(&o, "sect", job, err, len);
	run_opts_free(&o);
	return ret;
}

static void test_run_job_defaults(void **state)
{
	struct run_job job;
	char err[200];

	(void)state;
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "1m", NULL),
			 0);
	assert_string_equal(job.name, "sect");
	assert_string_equal(job.engine, "kernel-psync");	/* fio: psync */
	assert_int_equal(job.rw, RUN_RW_READ);
	assert_int_equal(job.bs, 4096);
	assert_int_equal(job.size, MiB);
	assert_int_equal(job.filesize, MiB);
	assert_int_equal(job.numjobs, 1);
	assert_int_equal(job.rwmixread, 50);
	assert_int_equal(job.fallocate, RUN_FALLOC_NATIVE);
	assert_int_equal(job.file_kind, RUN_FILE_NORMAL);
	assert_int_equal(job.unlink, -1);
	assert_string_equal(job.directory, "/dev/shm");
	assert_null(job.filename);
	run_job_free(&job);

	/* A write-only job's file is preallocated as fallocate= says. */
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "1m",
				 "rw", "write", NULL), 0);
	assert_int_equal(job.file_kind, RUN_FILE_FALLOCATED);
	run_job_free(&job);
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "1m",
				 "rw", "randwrite", "fallocate", "none",
				 NULL), 0);
	assert_int_equal(job.file_kind, RUN_FILE_EMPTY);
	run_job_free(&job);
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "1m",
				 "rwmixwrite", "30", "rw", "randrw",
				 "ioengine", "mmap", "name", "n", NULL), 0);
	assert_int_equal(job.rwmixread, 70);
	assert_string_equal(job.engine, "kernel-mmap");
	assert_string_equal(job.name, "n");
	run_job_free(&job);
}

static void test_run_job_sizes_derive(void **state)
{
	struct run_job job;
	char err[200];

	(void)state;
	assert_int_equal(resolve(&job, err, sizeof(err), "filesize", "8m",
				 "offset", "2m", NULL), 0);
	assert_int_equal(job.size, 6 * MiB);
	run_job_free(&job);
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "8m",
				 "offset", "2m", NULL), 0);
	assert_int_equal(job.filesize, 10 * MiB);
	run_job_free(&job);
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "4KiB",
				 "kb_base", "1000", "bs", "1k", NULL), 0);
	assert_int_equal(job.size, 4096);
	assert_int_equal(job.bs, 1000);
	run_job_free(&job);
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "1m",
				 "runtime", "250ms", "ramp_time", "1",
				 "time_based", "1", NULL), 0);
	assert_int_equal(job.runtime_ns, SEC / 4);
	assert_int_equal(job.ramp_ns, SEC);
	assert_true(job.time_based);
	run_job_free(&job);
}

static void test_run_job_bad_combinations(void **state)
{
	struct run_job job;
	char err[200];

	(void)state;
	assert_int_equal(resolve(&job, err, sizeof(err), "bs", "4k", NULL),
			 -EINVAL);
	assert_non_null(strstr(err, "size= or filesize="));
	run_job_free(&job);
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "4k",
				 "bs", "8k", NULL), -EINVAL);
	assert_non_null(strstr(err, "larger than size="));
	run_job_free(&job);
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "1m",
				 "time_based", NULL, NULL), -EINVAL);
	assert_non_null(strstr(err, "time_based needs runtime="));
	run_job_free(&job);
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "1m",
				 "iodepth", "32", NULL), -EINVAL);
	assert_non_null(strstr(err, "iodepth=32"));
	run_job_free(&job);
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "4m",
				 "filesize", "2m", NULL), -EINVAL);
	assert_non_null(strstr(err, "past filesize="));
	run_job_free(&job);
	/* Fits 64 bits with kb_base=1024 (as stored), not with 1000. */
	assert_int_equal(resolve(&job, err, sizeof(err), "kb_base", "1000",
				 "bs", "18000pib", "size", "1m", NULL),
			 -EINVAL);
	assert_non_null(strstr(err, "too large with kb_base=1000"));
	run_job_free(&job);
	/*
	 * Fits with 1000, not with 1024: taken as a size before kb_base is
	 * known, then judged in the job's base (here past INT64_MAX).
	 */
	assert_int_equal(resolve(&job, err, sizeof(err), "filesize", "16384p",
				 "kb_base", "1000", NULL), -EINVAL);
	assert_non_null(strstr(err, "job 'sect': filesize too large"));
	run_job_free(&job);
	assert_int_equal(resolve(&job, err, sizeof(err), "filesize", "16384p",
				 NULL), -EINVAL);
	assert_non_null(strstr(err, "too large with kb_base=1024"));
	run_job_free(&job);
}

/* The swap options: read, defaulted, and only for the engines that swap. */
static void test_run_job_swap_options(void **state)
{
	struct run_job job;
	char err[200];

	(void)state;
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "8m",
				 "ioengine", "upcache-anon", NULL), 0);
	assert_int_equal(job.swap_size, 0);
	assert_null(job.swap_file);
	assert_int_equal(job.swap_space_shift, 0);
	run_job_free(&job);
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "8m",
				 "ioengine", "upcache-anon", "memory_limit",
				 "2m", "swap_size", "6m", "swap_file", "sw",
				 "swap_space_shift", "8", NULL), 0);
	assert_int_equal(job.swap_size, 6 * MiB);
	assert_string_equal(job.swap_file, "sw");
	assert_int_equal(job.swap_space_shift, 8);
	run_job_free(&job);
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "8m",
				 "ioengine", "upcache-shmem", "memory_limit",
				 "2m", "swap_size", "8m", NULL), 0);
	assert_int_equal(job.swap_size, 8 * MiB);
	run_job_free(&job);
	/* A swap option on another engine would run without swap: error. */
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "8m",
				 "swap_size", "6m", NULL), -EINVAL);
	assert_non_null(strstr(err, "swap_size= is an option of "
			       "ioengine=upcache-anon"));
	run_job_free(&job);
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "8m",
				 "ioengine", "upcache-file", "swap_file", "x",
				 NULL), -EINVAL);
	assert_non_null(strstr(err, "swap_file="));
	run_job_free(&job);
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "8m",
				 "ioengine", "upcache-anon", "swap_size", "0",
				 NULL), -EINVAL);
	assert_non_null(strstr(err, "swap_size=0"));
	run_job_free(&job);
	/* The shift is upc_swapon()'s range, 6..30. */
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "8m",
				 "ioengine", "upcache-anon", "swap_space_shift",
				 "31", NULL), -EINVAL);
	assert_non_null(strstr(err, "6..30"));
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "8m",
				 "ioengine", "upcache-anon", "swap_size",
				 "-1m", NULL), -EINVAL);
}

/* fsync=, fdatasync=, end_fsync=: numbers, defaults, and which engines. */
static void test_run_job_sync_options(void **state)
{
	static const char *const syncing[] = {
		"upcache-file", "upcache-shmem", "kernel-sync", "kernel-psync",
		"kernel-mmap", "sync", "psync", "mmap",
	};
	struct run_job job;
	char err[200];
	size_t i;

	(void)state;
	/* fio's defaults: no syncs. */
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "1m", NULL),
			 0);
	assert_int_equal(job.fsync_blocks, 0);
	assert_int_equal(job.fdatasync_blocks, 0);
	assert_false(job.end_fsync);
	assert_false(run_job_syncs(&job));
	run_job_free(&job);
	for (i = 0; i < sizeof(syncing) / sizeof(syncing[0]); i++) {
		assert_int_equal(resolve(&job, err, sizeof(err), "size", "1m",
					 "rw", "write", "ioengine", syncing[i],
					 "fsync", "4", "fdatasync", "7",
					 "end_fsync", NULL, NULL), 0);
		assert_int_equal(job.fsync_blocks, 4);
		assert_int_equal(job.fdatasync_blocks, 7);
		assert_true(job.end_fsync);
		assert_true(run_job_syncs(&job));
		assert_true(run_engine_syncs(job.engine));
		run_job_free(&job);
	}
	/* The largest count fio's unsigned int takes. */
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "1m",
				 "fdatasync", "4294967295", NULL), 0);
	assert_int_equal(job.fdatasync_blocks, 4294967295U);
	run_job_free(&job);
	/* A read-only job may ask: fio accepts it and never syncs. */
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "1m",
				 "end_fsync", "1", NULL), 0);
	assert_true(job.end_fsync);
	run_job_free(&job);
}

/* upcache-anon has no file: a sync option other than 0 is refused. */
static void test_run_job_sync_refused_without_file(void **state)
{
	static const char *const opts[][3] = {
		{ "fsync", "1", "fsync=1: ioengine=upcache-anon" },
		{ "fdatasync", "16", "fdatasync=16: ioengine=upcache-anon" },
		{ "end_fsync", "1", "end_fsync=1: ioengine=upcache-anon" },
	};
	struct run_job job;
	char err[200];
	size_t i;

	(void)state;
	assert_false(run_engine_syncs("upcache-anon"));
	for (i = 0; i < 3; i++) {
		err[0] = '\0';
		assert_int_equal(resolve(&job, err, sizeof(err), "size", "1m",
					 "rw", "write", "ioengine",
					 "upcache-anon", opts[i][0], opts[i][1],
					 NULL), -EINVAL);
		if (!strstr(err, opts[i][2]) || !strstr(err, "no file to sync"))
			fail_msg("%s=%s: %s", opts[i][0], opts[i][1], err);
		run_job_free(&job);
	}
	/* 0 asks for nothing: accepted, as a [global] fsync=0 must be. */
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "1m",
				 "ioengine", "upcache-anon", "fsync", "0",
				 "fdatasync", "0", "end_fsync", "0", NULL), 0);
	assert_false(run_job_syncs(&job));
	run_job_free(&job);
}

/* Bad sync values, and fio's other sync options, stay errors. */
static void test_run_opts_sync_bad_values(void **state)
{
	static const char *const bad[][2] = {
		{ "fsync", "-1" }, { "fsync", "abc" }, { "fsync", "4k" },
		{ "fsync", "1.5" }, { "fsync", "4294967296" },
		{ "fdatasync", "-4" }, { "fdatasync", "x" },
		{ "end_fsync", "2" }, { "end_fsync", "yes" },
	};
	static const char *const other[] = {
		"sync", "fsync_on_close", "sync_file_range", "end_syncfs",
	};
	char err[200];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(set_err(bad[i][0], bad[i][1], err,
					 sizeof(err)), -EINVAL);
		if (!strstr(err, bad[i][0]))
			fail_msg("%s=%s: %s", bad[i][0], bad[i][1], err);
	}
	assert_int_equal(set_err("fsync", NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "needs a value"));
	assert_int_equal(set_err("end_fsync", NULL, err, sizeof(err)), 0);
	for (i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
		assert_int_equal(set_err(other[i], "1", err, sizeof(err)),
				 -EINVAL);
		assert_non_null(strstr(err, "not supported"));
	}
}

/* thinktime=, thinktime_spin=, thinktime_blocks=: values and defaults. */
static void test_run_job_think_options(void **state)
{
	struct run_job job;
	char err[200];

	(void)state;
	/* fio's defaults: no think time, every block once there is. */
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "1m", NULL),
			 0);
	assert_int_equal(job.thinktime_ns, 0);
	assert_int_equal(job.thinktime_spin_ns, 0);
	assert_int_equal(job.thinktime_blocks, 1);
	run_job_free(&job);
	/* A bare number is microseconds, not runtime='s seconds. */
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "1m",
				 "thinktime", "50", "runtime", "50", NULL), 0);
	assert_int_equal(job.thinktime_ns, 50000);
	assert_int_equal(job.runtime_ns, 50 * SEC);
	assert_int_equal(job.thinktime_blocks, 1);
	run_job_free(&job);
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "1m",
				 "thinktime", "2ms", "thinktime_spin", "500",
				 "thinktime_blocks", "4", NULL), 0);
	assert_int_equal(job.thinktime_ns, 2000000);
	assert_int_equal(job.thinktime_spin_ns, 500000);
	assert_int_equal(job.thinktime_blocks, 4);
	run_job_free(&job);
	/* All of it may spin; the largest count fio's unsigned int takes. */
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "1m",
				 "thinktime", "1s", "thinktime_spin", "1000ms",
				 "thinktime_blocks", "4294967295", NULL), 0);
	assert_int_equal(job.thinktime_ns, SEC);
	assert_int_equal(job.thinktime_spin_ns, SEC);
	assert_int_equal(job.thinktime_blocks, 4294967295U);
	run_job_free(&job);
	/* thinktime=0 asks for nothing: its companions shape nothing. */
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "1m",
				 "thinktime", "0", "thinktime_blocks", "8",
				 NULL), 0);
	assert_int_equal(job.thinktime_ns, 0);
	run_job_free(&job);
}

/* Bad think time values and combinations are errors naming the option. */
static void test_run_job_think_errors(void **state)
{
	static const char *const bad[][3] = {
		{ "thinktime_blocks", "0", "thinktime_blocks=0: must be a "
		  "number in 1..4294967295" },
		{ "thinktime_blocks", "4294967296", "thinktime_blocks=" },
		{ "thinktime_blocks", "4k", "thinktime_blocks=4k" },
		{ "thinktime", "5y", "thinktime=5y: not a time (N with "
		  "us/ms/s/m/h/d; microseconds by default)" },
		{ "thinktime", "1.5ms", "thinktime=1.5ms: not a time" },
		{ "thinktime", "-5", "thinktime=-5: negative time" },
		{ "thinktime_spin", "3parsecs", "thinktime_spin=3parsecs: not "
		  "a time" },
	};
	static const char *const alone[][2] = {
		{ "thinktime_spin", "100" }, { "thinktime_blocks", "4" },
	};
	struct run_job job;
	char err[200], want[64];
	size_t i;

	(void)state;
	/* fio has them and so does this runner now: not "not supported". */
	assert_int_equal(set_err("thinktime", "10", err, sizeof(err)), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(set_err(bad[i][0], bad[i][1], err,
					 sizeof(err)), -EINVAL);
		if (!strstr(err, bad[i][2]))
			fail_msg("%s=%s: %s", bad[i][0], bad[i][1], err);
	}
	/* A spin is part of the stall: longer than it is an error. */
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "1m",
				 "thinktime", "1ms", "thinktime_spin", "1001",
				 NULL), -EINVAL);
	if (!strstr(err, "job 'sect': thinktime_spin=1001 is longer than "
		    "thinktime=1ms"))
		fail_msg("%s", err);
	run_job_free(&job);
	/* Without thinktime= they would do nothing: an error, named. */
	for (i = 0; i < sizeof(alone) / sizeof(alone[0]); i++) {
		err[0] = '\0';
		assert_int_equal(resolve(&job, err, sizeof(err), "size", "1m",
					 alone[i][0], alone[i][1], NULL),
				 -EINVAL);
		snprintf(want, sizeof(want), "job 'sect': %s=%s needs "
			 "thinktime=", alone[i][0], alone[i][1]);
		if (!strstr(err, want))
			fail_msg("%s=%s: %s", alone[i][0], alone[i][1], err);
		run_job_free(&job);
	}
}

/* Inherited from [global] like any option, and checked per job. */
static void test_run_jobfile_think_inherited(void **state)
{
	static const char text[] =
		"[global]\n"
		"size=1m\n"
		"thinktime=250\n"
		"[a]\n"
		"thinktime_spin=100\n"
		"[b]\n"
		"thinktime=2ms\n"
		"thinktime_blocks=16\n";
	struct run_opts base = { { NULL } };
	struct run_spec spec;
	char err[400];

	(void)state;
	memset(&spec, 0, sizeof(spec));
	assert_int_equal(run_jobfile_parse(text, "t.fio", &base, &spec, err,
					   sizeof(err)), 0);
	assert_int_equal(spec.nr_jobs, 2);
	assert_int_equal(spec.jobs[0].thinktime_ns, 250000);
	assert_int_equal(spec.jobs[0].thinktime_spin_ns, 100000);
	assert_int_equal(spec.jobs[0].thinktime_blocks, 1);
	assert_int_equal(spec.jobs[1].thinktime_ns, 2000000);
	assert_int_equal(spec.jobs[1].thinktime_spin_ns, 0);
	assert_int_equal(spec.jobs[1].thinktime_blocks, 16);
	run_spec_free(&spec);
	/* A spin longer than the inherited stall: an error, with the file. */
	assert_int_equal(run_jobfile_parse("[global]\nsize=1m\nthinktime=250\n"
					   "[s]\nthinktime_spin=1ms\n", "t.fio",
					   &base, &spec, err, sizeof(err)),
			 -EINVAL);
	if (!strstr(err, "t.fio") ||
	    !strstr(err, "job 's': thinktime_spin=1ms is longer than "
		    "thinktime=250"))
		fail_msg("%s", err);
	run_spec_free(&spec);
}

/* direct=: a flag, off by default, and the engines that take it. */
static void test_run_job_direct_options(void **state)
{
	static const char *const takes[][2] = {
		{ "upcache-file", "upcache-file" },
		{ "kernel-psync", "kernel-psync" }, { "psync", "kernel-psync" },
		{ "kernel-sync", "kernel-sync" }, { "sync", "kernel-sync" },
	};
	static const char *const refuses[] = {
		"kernel-mmap", "mmap", "upcache-shmem", "upcache-anon",
	};
	struct run_job job;
	char err[400];
	size_t i;

	(void)state;
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "1m", NULL),
			 0);
	assert_false(job.direct);
	run_job_free(&job);
	for (i = 0; i < sizeof(takes) / sizeof(takes[0]); i++) {
		/* A bare name is 1, as for every flag. */
		assert_int_equal(resolve(&job, err, sizeof(err), "size", "1m",
					 "ioengine", takes[i][0], "bs", "8k",
					 "offset", "4k", "direct", NULL, NULL),
				 0);
		assert_true(job.direct);
		assert_string_equal(job.engine, takes[i][1]);
		run_job_free(&job);
	}
	/* upcache-file's cache copies: any bs and offset will do. */
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "1m",
				 "ioengine", "upcache-file", "bs", "6000",
				 "offset", "100", "direct", "1", NULL), 0);
	assert_true(job.direct);
	assert_int_equal(job.bs, 6000);
	run_job_free(&job);
	for (i = 0; i < sizeof(refuses) / sizeof(refuses[0]); i++) {
		err[0] = '\0';
		assert_int_equal(resolve(&job, err, sizeof(err), "size", "1m",
					 "ioengine", refuses[i], "direct", "1",
					 NULL), -EINVAL);
		if (!strstr(err, "job 'sect': direct=1: ioengine=") ||
		    !strstr(err, "; use "))
			fail_msg("%s: %s", refuses[i], err);
		run_job_free(&job);
		/* 0 asks for nothing: accepted anywhere. */
		assert_int_equal(resolve(&job, err, sizeof(err), "size", "1m",
					 "ioengine", refuses[i], "direct", "0",
					 NULL), 0);
		assert_false(job.direct);
		run_job_free(&job);
	}
	/* Why each is refused: mmap would look direct and not be. */
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "1m",
				 "ioengine", "kernel-mmap", "direct", "1",
				 NULL), -EINVAL);
	assert_non_null(strstr(err, "look direct and are not; use "
			       "kernel-psync"));
	run_job_free(&job);
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "1m",
				 "ioengine", "upcache-anon", "direct", "1",
				 NULL), -EINVAL);
	assert_non_null(strstr(err, "no file descriptor to open with "
			       "O_DIRECT"));
	run_job_free(&job);
	assert_int_equal(set_err("direct", "2", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "direct=2: must be 0 or 1"));
	assert_int_equal(set_err("direct", "yes", err, sizeof(err)), -EINVAL);
}

/* A direct kernel job's blocks must be aligned for O_DIRECT. */
static void test_run_job_direct_alignment(void **state)
{
	static const char *const bad[][5] = {
		/* ioengine, bs, offset, kb_base, what the message says */
		{ "kernel-psync", "6000", "0", "1024", "bs=6000 is not a "
		  "multiple of 4096" },
		{ "kernel-sync", "512", "0", "1024", "bs=512 is not" },
		{ "kernel-psync", "4k", "4k", "1000", "bs=4000 is not" },
		{ "kernel-psync", "8k", "512", "1024", "offset=512 is not a "
		  "multiple of 4096" },
		{ "psync", "1m", "1000", "1024", "offset=1000 is not" },
	};
	struct run_job job;
	char err[400];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(resolve(&job, err, sizeof(err), "size", "4m",
					 "ioengine", bad[i][0], "bs", bad[i][1],
					 "offset", bad[i][2], "kb_base",
					 bad[i][3], "direct", "1", NULL),
				 -EINVAL);
		if (!strstr(err, "job 'sect': direct=1: ") ||
		    !strstr(err, bad[i][4]) || !strstr(err, "O_DIRECT"))
			fail_msg("%s bs=%s offset=%s: %s", bad[i][0],
				 bad[i][1], bad[i][2], err);
		run_job_free(&job);
		/* The same job without direct=1 is fine. */
		assert_int_equal(resolve(&job, err, sizeof(err), "size", "4m",
					 "ioengine", bad[i][0], "bs", bad[i][1],
					 "offset", bad[i][2], "kb_base",
					 bad[i][3], NULL), 0);
		run_job_free(&job);
	}
	/* Multiples of 4096, and size= need not be one. */
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "1000000",
				 "bs", "64k", "offset", "12k", "direct", "1",
				 NULL), 0);
	assert_true(job.direct);
	run_job_free(&job);
}

/* The job's bool at @field (offsetof(struct run_job, ...)). */
static bool job_flag(const struct run_job *job, size_t field)
{
	return *(const bool *)((const char *)job + field);
}

/*
 * An upcache-file option @name, a bool the job has at @field: off by
 * default, upcache-file's only.
 */
static void file_bool_option(const char *name, size_t field)
{
	static const char *const others[] = {
		"upcache-shmem", "upcache-anon", "kernel-sync", "kernel-psync",
		"kernel-mmap", "psync",
	};
	struct run_job job;
	char err[400], want[200];
	size_t i;

	assert_int_equal(resolve(&job, err, sizeof(err), "size", "1m",
				 "ioengine", "upcache-file", NULL), 0);
	assert_false(job_flag(&job, field));
	run_job_free(&job);
	assert_int_equal(resolve(&job, err, sizeof(err), "size", "1m",
				 "ioengine", "upcache-file", name,
				 NULL, "direct", "1", "fsync", "8", NULL), 0);
	assert_true(job_flag(&job, field));
	assert_true(job.direct);
	assert_int_equal(job.fsync_blocks, 8);
	run_job_free(&job);
	snprintf(want, sizeof(want), "%s=1 is an option of "
		 "ioengine=upcache-file", name);
	for (i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		err[0] = '\0';
		assert_int_equal(resolve(&job, err, sizeof(err), "size", "1m",
					 "ioengine", others[i], name, "1",
					 NULL), -EINVAL);
		if (!strstr(err, want))
			fail_msg("%s: %s", others[i], err);
		run_job_free(&job);
		assert_int_equal(resolve(&job, err, sizeof(err), "size", "1m",
					 "ioengine", others[i], name, "0",
					 NULL), 0);
		assert_false(job_flag(&job, field));
		run_job_free(&job);
	}
	assert_int_equal(set_err(name, "on", err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s=on: must be 0 or 1", name);
	assert_non_null(strstr(err, want));
}

static void test_run_job_file_io_uring(void **state)
{
	(void)state;
	file_bool_option("file_io_uring",
			 offsetof(struct run_job, file_io_uring));
}

static void test_run_job_file_background_writeback(void **state)
{
	(void)state;
	file_bool_option("file_background_writeback",
			 offsetof(struct run_job, file_background_writeback));
}

/* Both are inherited from [global], and a job may turn them off. */
static void test_run_jobfile_direct_inherited(void **state)
{
	static const char text[] =
		"[global]\n"
		"ioengine=upcache-file\n"
		"direct=1\n"
		"file_io_uring\n"
		"size=1m\n"
		"[a]\n"
		"[b]\n"
		"direct=0\n"
		"file_io_uring=0\n"
		"[c]\n"
		"ioengine=kernel-psync\n"
		"file_io_uring=0\n";
	struct run_opts base = { { NULL } };
	struct run_spec spec;
	char err[400];

	(void)state;
	memset(&spec, 0, sizeof(spec));
	assert_int_equal(run_jobfile_parse(text, "d.fio", &base, &spec, err,
					   sizeof(err)), 0);
	assert_int_equal(spec.nr_jobs, 3);
	assert_true(spec.jobs[0].direct);
	assert_true(spec.jobs[0].file_io_uring);
	assert_false(spec.jobs[1].direct);
	assert_false(spec.jobs[1].file_io_uring);
	assert_true(spec.jobs[2].direct);
	assert_false(spec.jobs[2].file_io_uring);
	run_spec_free(&spec);
	/* Inherited onto an engine that refuses it: an error, with the file. */
	assert_int_equal(run_jobfile_parse("[global]\ndirect=1\nsize=1m\n"
					   "[m]\nioengine=mmap\n", "d.fio",
					   &base, &spec, err, sizeof(err)),
			 -EINVAL);
	if (!strstr(err, "d.fio:") ||
	    !strstr(err, ": job 'm': direct=1: ioengine=kernel-mmap"))
		fail_msg("%s", err);
	/* Whole, past the line's prefix: it ends with the way out. */
	assert_non_null(strstr(err, "; use kernel-psync"));
	run_spec_free(&spec);
}

static const char jobfile[] =
	"; a comment\n"
	"# another\n"
	"[global]\n"
	"  bs = 64k   ; the block size\n"
	"size=4m#\n"
	"thread\n"
	"ioengine=upcache-shmem\n"
	"fsync=8\n"
	"\n"
	"[first] # a job\n"
	"rw=randread\n"
	"\n"
	"[second]\n"
	"bs=8k\n"
	"numjobs=2\n"
	"end_fsync\n"
	"fdatasync=0\n"
	"[global]\n"
	"size=2m\n"
	"[third]\n"
	"name=renamed\n"
	"time_based\n"
	"runtime=1s\n";

static void test_run_jobfile_inherits_global(void **state)
{
	struct run_opts base = { { NULL } };
	struct run_spec spec;
	char err[200];

	(void)state;
	memset(&spec, 0, sizeof(spec));
	assert_int_equal(run_opts_set(&base, "ramp_time", "2s", err,
				      sizeof(err)), 0);
	assert_int_equal(run_jobfile_parse(jobfile, "t.fio", &base, &spec,
					   err, sizeof(err)), 0);
	assert_int_equal(spec.nr_jobs, 3);
	assert_string_equal(spec.jobs[0].name, "first");
	assert_int_equal(spec.jobs[0].rw, RUN_RW_RANDREAD);
	assert_int_equal(spec.jobs[0].bs, 64 * KiB);
	assert_int_equal(spec.jobs[0].size, 4 * MiB);
	assert_string_equal(spec.jobs[0].engine, "upcache-shmem");
	assert_int_equal(spec.jobs[0].ramp_ns, 2 * SEC);	/* command line */
	assert_string_equal(spec.jobs[1].name, "second");
	assert_int_equal(spec.jobs[1].rw, RUN_RW_READ);	/* not inherited */
	assert_int_equal(spec.jobs[1].bs, 8 * KiB);
	assert_int_equal(spec.jobs[1].numjobs, 2);
	/* fsync= from [global], a bare end_fsync, fdatasync=0 as given. */
	assert_int_equal(spec.jobs[0].fsync_blocks, 8);
	assert_false(spec.jobs[0].end_fsync);
	assert_int_equal(spec.jobs[1].fsync_blocks, 8);
	assert_true(spec.jobs[1].end_fsync);
	assert_int_equal(spec.jobs[1].fdatasync_blocks, 0);
	assert_int_equal(spec.jobs[2].fsync_blocks, 8);
	/* A later [global] changes only the sections after it. */
	assert_string_equal(spec.jobs[2].name, "renamed");
	assert_int_equal(spec.jobs[2].size, 2 * MiB);
	assert_int_equal(spec.jobs[2].bs, 64 * KiB);
	assert_true(spec.jobs[2].time_based);
	run_spec_free(&spec);
	run_opts_free(&base);
}

static void test_run_jobfile_errors_name_line(void **state)
{
	struct run_opts base = { { NULL } };
	struct run_spec spec;
	char err[200];

	(void)state;
	memset(&spec, 0, sizeof(spec));
	assert_int_equal(run_jobfile_parse("[a]\nsize=1m\nnrfiles=2\n", "x.fio",
					   &base, &spec, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "x.fio:3:"));
	assert_non_null(strstr(err, "'nrfiles'"));
	run_spec_free(&spec);
	assert_int_equal(run_jobfile_parse("size=1m\n[a]\n", "x.fio", &base,
					   &spec, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "x.fio:1:"));
	assert_non_null(strstr(err, "outside any section"));
	run_spec_free(&spec);
	assert_int_equal(run_jobfile_parse("[a\nsize=1m\n", "x.fio", &base,
					   &spec, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "bad section"));
	run_spec_free(&spec);
	assert_int_equal(run_jobfile_parse("[a]\nbs=4k\n", "x.fio", &base,
					   &spec, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "size= or filesize="));
	run_spec_free(&spec);
	assert_int_equal(run_jobfile_load("/nonexistent/job.fio", &base,
					  &spec, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/job.fio"));
	run_spec_free(&spec);
}

static void test_run_cmdline_jobs(void **state)
{
	char *argv[] = {
		"--bs=16k", "--ioengine", "upcache-shmem", "--size=1m",
		"--output-format=json",
		"--name=a", "--rw", "randwrite", "--thread",
		"--name=b", "--numjobs=3", "--group_reporting", "--bs", "4k",
	};
	struct run_spec spec;
	char err[200];

	(void)state;
	assert_int_equal(run_parse_args(sizeof(argv) / sizeof(argv[0]), argv,
					&spec, err, sizeof(err)), 0);
	assert_true(spec.json);
	assert_false(spec.normal);
	assert_null(spec.json_path);
	assert_int_equal(spec.nr_jobs, 2);
	assert_string_equal(spec.jobs[0].name, "a");
	assert_int_equal(spec.jobs[0].rw, RUN_RW_RANDWRITE);
	assert_int_equal(spec.jobs[0].bs, 16 * KiB);
	assert_string_equal(spec.jobs[0].engine, "upcache-shmem");
	assert_string_equal(spec.jobs[1].name, "b");
	assert_int_equal(spec.jobs[1].rw, RUN_RW_READ);
	assert_int_equal(spec.jobs[1].numjobs, 3);
	assert_true(spec.jobs[1].group_reporting);
	assert_int_equal(spec.jobs[1].bs, 4 * KiB);
	run_spec_free(&spec);
}

/*
 * Global options after a job file apply to it too, as in fio, which
 * reads every option before its job files; job files' jobs still come
 * before the --name ones.  A bare --json does not take a job file after
 * it for the file to write; "--json=" names no file at all.
 */
static void test_run_cmdline_globals_after_jobfile(void **state)
{
	static const char text[] = "[j]\nsize=1m\nioengine=upcache-shmem\n";
	char path[] = "/tmp/upc-bench-job-XXXXXX";
	char *argv[] = { path, "--bs=64k", "--numjobs=2", "--name=c",
			 "--size=1m" };
	char *json_first[] = { "--json", path, "--name=c", "--size=1m" };
	char *json_empty[] = { "--json=", "--name=c", "--size=1m", path };
	struct run_spec spec;
	char err[200];
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1), sizeof(text) - 1);
	close(fd);
	assert_int_equal(run_parse_args(5, argv, &spec, err, sizeof(err)), 0);
	assert_int_equal(spec.nr_jobs, 2);
	assert_string_equal(spec.jobs[0].name, "j");
	assert_int_equal(spec.jobs[0].bs, 64 * KiB);
	assert_int_equal(spec.jobs[0].numjobs, 2);
	assert_string_equal(spec.jobs[1].name, "c");
	assert_int_equal(spec.jobs[1].bs, 64 * KiB);
	run_spec_free(&spec);
	/* An empty FILE is an error, as in the suites. */
	assert_int_equal(run_parse_args(4, json_empty, &spec, err,
					sizeof(err)), -EINVAL);
	assert_string_equal(err, "--json: missing file name");
	/* A bare --json before a job file does not take it as its FILE. */
	assert_int_equal(run_parse_args(4, json_first, &spec, err,
					sizeof(err)), 0);
	assert_true(spec.json);
	assert_null(spec.json_path);
	assert_int_equal(spec.nr_jobs, 2);
	run_spec_free(&spec);
	unlink(path);
	/* A FILE that is not there yet is. */
	assert_int_equal(run_parse_args(4, json_first, &spec, err,
					sizeof(err)), 0);
	assert_string_equal(spec.json_path, path);
	assert_int_equal(spec.nr_jobs, 1);
	run_spec_free(&spec);
}

static void test_run_cmdline_errors(void **state)
{
	char *no_job[] = { "--size=1m" };
	char *unknown[] = { "--name=a", "--size=1m", "--bogus=3" };
	char *bad_fmt[] = { "--output-format=terse", "--name=a", "--size=1m" };
	char *stray[] = { "--name=a", "--size=1m", "job.fio" };
	struct run_spec spec;
	char err[200];

	(void)state;
	assert_int_equal(run_parse_args(1, no_job, &spec, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "no jobs"));
	run_spec_free(&spec);
	assert_int_equal(run_parse_args(3, unknown, &spec, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "'bogus'"));
	run_spec_free(&spec);
	assert_int_equal(run_parse_args(3, bad_fmt, &spec, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "terse"));
	run_spec_free(&spec);
	assert_int_equal(run_parse_args(3, stray, &spec, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "job.fio"));
	run_spec_free(&spec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_parse_size_units),
		cmocka_unit_test(test_run_parse_size_rejects),
		cmocka_unit_test(test_run_parse_time_units),
		cmocka_unit_test(test_run_parse_time_in_bare_unit),
		cmocka_unit_test(test_run_opts_unsupported_named),
		cmocka_unit_test(test_run_opts_bad_values),
		cmocka_unit_test(test_run_job_defaults),
		cmocka_unit_test(test_run_job_sizes_derive),
		cmocka_unit_test(test_run_job_bad_combinations),
		cmocka_unit_test(test_run_job_swap_options),
		cmocka_unit_test(test_run_job_sync_options),
		cmocka_unit_test(test_run_job_sync_refused_without_file),
		cmocka_unit_test(test_run_opts_sync_bad_values),
		cmocka_unit_test(test_run_job_think_options),
		cmocka_unit_test(test_run_job_think_errors),
		cmocka_unit_test(test_run_jobfile_think_inherited),
		cmocka_unit_test(test_run_job_direct_options),
		cmocka_unit_test(test_run_job_direct_alignment),
		cmocka_unit_test(test_run_job_file_io_uring),
		cmocka_unit_test(test_run_job_file_background_writeback),
		cmocka_unit_test(test_run_jobfile_direct_inherited),
		cmocka_unit_test(test_run_jobfile_inherits_global),
		cmocka_unit_test(test_run_jobfile_errors_name_line),
		cmocka_unit_test(test_run_cmdline_jobs),
		cmocka_unit_test(test_run_cmdline_globals_after_jobfile),
		cmocka_unit_test(test_run_cmdline_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
