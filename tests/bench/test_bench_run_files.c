// SPDX-License-Identifier: MIT
/*
 * tests/bench/test_bench_run_files.c - what `upcache-bench run` does to
 * files that exist before it starts: it never truncates, lays out again
 * or removes them (unless unlink=1).
 *
 * For each engine on a real file (kernel-psync, upcache-file): a file
 * at least filesize= long is used as it is, whatever file_kind= says,
 * and is still there afterwards with the bytes the job did not write; a
 * shorter file, or a directory, is an error (exit status 2) and is left
 * as it was; a file the run created is removed, unless unlink=0.
 */
#include <fcntl.h>
#include <setjmp.h>
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

#define FILE_BYTES	(2UL << 20)

static const char *const engines[] = { "kernel-psync", "upcache-file" };
#define NR_ENGINES	(sizeof(engines) / sizeof(engines[0]))

#define run_status(...) bt_call_argv(bench_suite_run_argv, __VA_ARGS__)

/* The byte a test file holds at @off: anything but the run's pattern. */
static unsigned char mark(uint64_t off)
{
	return (unsigned char)(off * 7 + 3);
}

/* make_file() - @path with @bytes of mark(). */
static void make_file(const char *path, size_t bytes)
{
	unsigned char *buf = malloc(bytes ? bytes : 1);
	size_t i;
	int fd;

	assert_non_null(buf);
	for (i = 0; i < bytes; i++)
		buf[i] = mark(i);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, bytes), (ssize_t)bytes);
	close(fd);
	free(buf);
}

/*
 * expect_file() - @path exists, @bytes long, and holds mark() from byte
 * @from on (the job wrote at most [0, @from)).
 */
static void expect_file(const char *path, size_t bytes, size_t from)
{
	unsigned char *buf = malloc(bytes ? bytes : 1);
	struct stat st;
	size_t i;
	int fd;

	assert_non_null(buf);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, bytes);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, bytes), (ssize_t)bytes);
	close(fd);
	for (i = from; i < bytes; i++)
		if (buf[i] != mark(i))
			fail_msg("%s: byte %zu changed", path, i);
	free(buf);
}

/* A write job over the first half of an existing file keeps the file. */
static void test_existing_file_written_kept(void **state)
{
	char path[128], dir[96], engine[64];
	size_t e;

	(void)state;
	snprintf(path, sizeof(path), "%s/data.img", bt_tmpdir);
	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	for (e = 0; e < NR_ENGINES; e++) {
		snprintf(engine, sizeof(engine), "--ioengine=%s", engines[e]);
		make_file(path, FILE_BYTES);
		/* A write job's file_kind defaults to fallocated. */
		assert_int_equal(run_status("--name=w", engine, "--rw=write",
					    "--bs=4k", "--size=1m", dir,
					    "--filename=data.img", NULL), 0);
		expect_file(path, FILE_BYTES, 1UL << 20);
	}
}

/* Read jobs asking for a hole or fallocated file use it as it is. */
static void test_existing_file_any_kind_used_as_is(void **state)
{
	static const char *const kinds[] = {
		"--file_kind=hole", "--file_kind=fallocated",
		"--file_kind=normal",
	};
	char path[128], dir[96], engine[64];
	size_t e, k;

	(void)state;
	snprintf(path, sizeof(path), "%s/data.img", bt_tmpdir);
	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	make_file(path, FILE_BYTES);
	for (e = 0; e < NR_ENGINES; e++) {
		snprintf(engine, sizeof(engine), "--ioengine=%s", engines[e]);
		for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
			assert_int_equal(run_status("--name=r", engine,
						    "--rw=randread", "--bs=4k",
						    "--size=2m", kinds[k], dir,
						    "--filename=data.img",
						    NULL), 0);
			expect_file(path, FILE_BYTES, 0);
		}
	}
}

/* A file shorter than filesize=, or a directory: exit 2, left as is. */
static void test_existing_unusable_refused(void **state)
{
	char path[128], sub[128], dir[96], engine[64];
	struct stat st;
	size_t e;

	(void)state;
	snprintf(path, sizeof(path), "%s/short.img", bt_tmpdir);
	snprintf(sub, sizeof(sub), "%s/sub", bt_tmpdir);
	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	assert_int_equal(mkdir(sub, 0755), 0);
	for (e = 0; e < NR_ENGINES; e++) {
		snprintf(engine, sizeof(engine), "--ioengine=%s", engines[e]);
		make_file(path, 9);
		assert_int_equal(run_status("--name=r", engine, "--rw=read",
					    "--size=1m", dir,
					    "--filename=short.img", NULL), 2);
		expect_file(path, 9, 0);
		assert_int_equal(run_status("--name=w", engine, "--rw=write",
					    "--size=1m", dir,
					    "--filename=short.img", NULL), 2);
		expect_file(path, 9, 0);
		assert_int_equal(run_status("--name=d", engine, "--rw=read",
					    "--size=1m", dir,
					    "--filename=sub", NULL), 2);
		assert_int_equal(stat(sub, &st), 0);
		assert_true(S_ISDIR(st.st_mode));
	}
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(sub), 0);
}

/* What the run created goes, unless unlink=0; unlink=1 removes any. */
static void test_created_removed_unless_kept(void **state)
{
	char path[128], dir[96], engine[64];
	struct stat st;
	size_t e;

	(void)state;
	snprintf(path, sizeof(path), "%s/new.img", bt_tmpdir);
	snprintf(dir, sizeof(dir), "--directory=%s", bt_tmpdir);
	for (e = 0; e < NR_ENGINES; e++) {
		snprintf(engine, sizeof(engine), "--ioengine=%s", engines[e]);
		assert_int_equal(run_status("--name=n", engine, "--rw=read",
					    "--size=1m", dir,
					    "--filename=new.img", NULL), 0);
		assert_int_not_equal(stat(path, &st), 0);
		assert_int_equal(run_status("--name=n", engine, "--rw=read",
					    "--size=1m", dir, "--unlink=0",
					    "--filename=new.img", NULL), 0);
		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(st.st_size, 1UL << 20);
		/* Now existing: kept by default, removed by unlink=1. */
		assert_int_equal(run_status("--name=n", engine, "--rw=read",
					    "--size=1m", dir,
					    "--filename=new.img", NULL), 0);
		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(run_status("--name=n", engine, "--rw=read",
					    "--size=1m", dir, "--unlink=1",
					    "--filename=new.img", NULL), 0);
		assert_int_not_equal(stat(path, &st), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_existing_file_written_kept),
		cmocka_unit_test(test_existing_file_any_kind_used_as_is),
		cmocka_unit_test(test_existing_unusable_refused),
		cmocka_unit_test(test_created_removed_unless_kept),
	};

	return cmocka_run_group_tests(tests, bt_tmpdir_setup,
				      bt_tmpdir_teardown);
}
