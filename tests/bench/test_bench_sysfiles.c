// SPDX-License-Identifier: MIT
/*
 * tests/bench/test_bench_sysfiles.c - upcache-bench's parsers of the
 * system's files (tools/bench/shm_kernel.h, kernel_env.h, kernel_disk.h)
 * on lines the suites' own tests never write: the cases
 * fuzz_bench_sysfiles found misread, kept here as plain regression
 * tests; and the swap header upcache-bench writes for the kernel's
 * swap.
 *
 * Linked with the benchmark's sources (see cmake/UpcacheTests.cmake).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <unistd.h>

#include <upcache/folio.h>

#include "../../tools/bench/kernel_disk.h"
#include "../../tools/bench/kernel_env.h"
#include "../../tools/bench/shm_kernel.h"

/* text_file() - @text as a file to read, as fopen() would give it. */
static FILE *text_file(const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	assert_non_null(f);
	return f;
}

/* mount_huge() - shmk_parse_mount_huge() of @dir in table @text. */
static void mount_huge(const char *text, const char *dir, char *out,
		       size_t len)
{
	FILE *f = text_file(text);

	shmk_parse_mount_huge(f, dir, out, len);
	fclose(f);
}

/*
 * A mount point longer than struct shmk_mount's place: sscanf() read
 * its first 255 bytes as the point and the rest as the type, so an ext4
 * mount at ".../tmpfs" was a tmpfs mount at its first 255 bytes.
 */
static void test_mount_long_point(void **state)
{
	char point[300], text[512], prefix[256], huge[32];
	struct shmk_mount m;
	FILE *f;

	(void)state;
	memset(point, 'a', sizeof(point));
	point[0] = '/';
	memcpy(point + 255, "tmpfs", 6);
	snprintf(text, sizeof(text), "x %s ext4 rw,huge=always 0 0\n"
		 "tmpfs /dev/shm tmpfs rw 0 0\n", point);
	f = text_file(text);
	assert_true(shmk_next_mount(f, &m));
	assert_string_equal(m.point, "/dev/shm");
	assert_false(shmk_next_mount(f, &m));
	fclose(f);

	snprintf(prefix, sizeof(prefix), "%.255s", point);
	mount_huge(text, prefix, huge, sizeof(huge));
	assert_string_equal(huge, "unknown");
}

/*
 * huge= is an option of its own: found by strstr(), it was found inside
 * another option's name or value too.
 */
static void test_mount_huge_whole_name(void **state)
{
	char huge[32];

	(void)state;
	mount_huge("t /m tmpfs rw,xhuge=always 0 0\n", "/m", huge,
		   sizeof(huge));
	assert_string_equal(huge, "never");
	mount_huge("t /m tmpfs rw,a=huge=always 0 0\n", "/m", huge,
		   sizeof(huge));
	assert_string_equal(huge, "never");
	mount_huge("t /m tmpfs rw,size=1m,huge=within_size,mode=1777 0 0\n",
		   "/m", huge, sizeof(huge));
	assert_string_equal(huge, "within_size");
	mount_huge("t /m tmpfs huge=advise 0 0\n", "/m", huge, sizeof(huge));
	assert_string_equal(huge, "advise");
}

/* swaps_list() - bench_swaps_list_device() of @text. */
static bool swaps_list(const char *text)
{
	FILE *f = text_file(text);
	bool listed = bench_swaps_list_device(f);

	fclose(f);
	return listed;
}

/*
 * Lines, not reads of a 256-byte buffer: a title line of 300 bytes was
 * two "lines", so a machine without swap had a device.
 */
static void test_swaps_lines(void **state)
{
	char title[320];

	(void)state;
	memset(title, 'T', 300);
	strcpy(title + 300, "\n");
	assert_false(swaps_list(title));
	assert_false(swaps_list(""));
	assert_false(swaps_list("Filename Type Size Used Priority\n"));
	assert_true(swaps_list("Filename Type Size Used Priority\n"
			       "/dev/zram0 partition 8388604 0 100"));
	assert_true(swaps_list("Filename\n/swap file 1024 0 -2\n"));
}

/* swaps_used() - bench_swaps_used_kib() of @dev in @text. */
static int swaps_used(const char *text, const char *dev, uint64_t *kib)
{
	FILE *f = text_file(text);
	int err = bench_swaps_used_kib(f, dev, kib);

	fclose(f);
	return err;
}

static const char swaps_two[] =
	"Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
	"/dev/zram0                              partition\t8388604\t\t0\t\t100\n"
	"/dev/loop0                              partition\t2097148\t\t78016\t\t-2";

/* The USED field of the device's own line, not of a name it begins. */
static void test_swaps_used(void **state)
{
	uint64_t kib = 7;

	(void)state;
	assert_int_equal(swaps_used(swaps_two, "/dev/loop0", &kib), 0);
	assert_int_equal(kib, 78016);
	assert_int_equal(swaps_used(swaps_two, "/dev/zram0", &kib), 0);
	assert_int_equal(kib, 0);
	kib = 7;
	assert_int_equal(swaps_used(swaps_two, "/dev/loop", &kib), -ENOENT);
	assert_int_equal(swaps_used(swaps_two, "/dev/loop01", &kib), -ENOENT);
	/* The title names no device, whatever its words. */
	assert_int_equal(swaps_used(swaps_two, "Filename", &kib), -ENOENT);
	assert_int_equal(swaps_used("", "/dev/loop0", &kib), -ENOENT);
	assert_int_equal(swaps_used("", "", &kib), -ENOENT);
	assert_int_equal(kib, 7);
	assert_int_equal(swaps_used("T\n/s p 1 12x 0\n", "/s", &kib), -EINVAL);
	assert_int_equal(swaps_used("T\n/s p 1\n", "/s", &kib), -EINVAL);
	assert_int_equal(swaps_used("T\n/s p 1 99999999999999999999 0\n",
				    "/s", &kib), -EINVAL);
	assert_int_equal(kib, 7);
	/* The first line naming it counts. */
	assert_int_equal(swaps_used("T\n/s p 1 5 0\n/s p 1 6 0\n", "/s",
				    &kib), 0);
	assert_int_equal(kib, 5);
}

/*
 * The header the kernel's swapon() reads: version 1 and the last page
 * at byte 1024, the magic in the page's last ten bytes, zeros
 * elsewhere; and areas it would refuse, refused.
 */
static void test_swap_format(void **state)
{
	const uint64_t bytes = 64 * UPC_PAGE_SIZE;
	unsigned char page[UPC_PAGE_SIZE];
	uint32_t info[2];
	FILE *f = tmpfile();
	size_t i;

	(void)state;
	assert_non_null(f);
	memset(page, 0xa5, sizeof(page));
	assert_int_equal(pwrite(fileno(f), page, sizeof(page), 0),
			 (ssize_t)sizeof(page));
	assert_int_equal(bench_swap_format(fileno(f), bytes), 0);
	assert_int_equal(pread(fileno(f), page, sizeof(page), 0),
			 (ssize_t)sizeof(page));
	memcpy(info, page + 1024, sizeof(info));
	assert_int_equal(info[0], 1);
	assert_int_equal(info[1], 63);
	assert_memory_equal(page + UPC_PAGE_SIZE - 10, "SWAPSPACE2", 10);
	for (i = 0; i < UPC_PAGE_SIZE - 10; i++)
		if (i < 1024 || i >= 1024 + sizeof(info))
			assert_int_equal(page[i], 0);
	assert_int_equal(bench_swap_format(fileno(f), 9 * UPC_PAGE_SIZE),
			 -EINVAL);
	assert_int_equal(bench_swap_format(fileno(f),
					   (UINT32_MAX + 2ULL) << UPC_PAGE_SHIFT),
			 -EINVAL);
	assert_int_equal(bench_swap_format(-1, bytes), -EBADF);
	fclose(f);
}

/* cgroup_path() - bench_cgroup_path() of @controller in @text. */
static int cgroup_path(const char *text, const char *controller, char *out,
		       size_t len)
{
	FILE *f = text_file(text);
	int err = bench_cgroup_path(f, controller, out, len);

	fclose(f);
	return err;
}

/* This machine's kind of file: v1 hierarchies, then the v2 line. */
static const char cgroup_v1[] =
	"9:name=systemd:/\n"
	"7:blkio:/\n"
	"4:cpu,memory:/jobs/42\n"
	"3:memoryx:/wrong\n"
	"0::/\n";

/*
 * A v1 controller is found in a comma-separated list, whole names only
 * ("memoryx" is not "memory"), and its own line's path is taken.
 */
static void test_cgroup_path_v1(void **state)
{
	char path[64];

	(void)state;
	assert_int_equal(cgroup_path(cgroup_v1, "memory", path,
				     sizeof(path)), 0);
	assert_string_equal(path, "/jobs/42");
	assert_int_equal(cgroup_path(cgroup_v1, "cpu", path, sizeof(path)),
			 0);
	assert_string_equal(path, "/jobs/42");
	assert_int_equal(cgroup_path(cgroup_v1, "blkio", path, sizeof(path)),
			 0);
	assert_string_equal(path, "/");
	assert_int_equal(cgroup_path("3:memoryx:/wrong\n", "memory", path,
				     sizeof(path)), -ENOENT);
}

/*
 * The v2 line is "0::PATH": a v1 line whose controller list is empty but
 * whose id is not 0 is not it, nor is a v1 line with id 0.
 */
static void test_cgroup_path_v2(void **state)
{
	char path[64];

	(void)state;
	assert_int_equal(cgroup_path(cgroup_v1, "", path, sizeof(path)), 0);
	assert_string_equal(path, "/");
	assert_int_equal(cgroup_path("1::/not\n0:cpu:/no\n0::/user/s1\n",
				     "", path, sizeof(path)), 0);
	assert_string_equal(path, "/user/s1");
	/* The last line without its newline. */
	assert_int_equal(cgroup_path("0::/a/b", "", path, sizeof(path)), 0);
	assert_string_equal(path, "/a/b");
}

/* No line, a path that is not absolute, a path with no room. */
static void test_cgroup_path_errors(void **state)
{
	char path[8];

	(void)state;
	assert_int_equal(cgroup_path("", "memory", path, sizeof(path)),
			 -ENOENT);
	assert_int_equal(cgroup_path("garbage\n4:memory\n", "memory", path,
				     sizeof(path)), -ENOENT);
	assert_int_equal(cgroup_path("4:memory:relative\n", "memory", path,
				     sizeof(path)), -ENOENT);
	assert_int_equal(cgroup_path("0::/1234567\n", "", path,
				     sizeof(path)), -ENAMETOOLONG);
	assert_int_equal(cgroup_path("0::/123456\n", "", path, sizeof(path)),
			 0);
	assert_string_equal(path, "/123456");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mount_long_point),
		cmocka_unit_test(test_mount_huge_whole_name),
		cmocka_unit_test(test_swaps_lines),
		cmocka_unit_test(test_swaps_used),
		cmocka_unit_test(test_swap_format),
		cmocka_unit_test(test_cgroup_path_v1),
		cmocka_unit_test(test_cgroup_path_v2),
		cmocka_unit_test(test_cgroup_path_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
