// SPDX-License-Identifier: MIT
/*
 * tests/fuzz/fuzz_bench_sysfiles.c - libFuzzer target: the system files
 * upcache-bench reads to choose and explain its kernel baselines: the
 * mount table and shmem_enabled (tools/bench/shm_kernel.c), /proc/swaps
 * (tools/bench/kernel_env.c, kernel_disk.c), cgroup.controllers and
 * /proc/self/cgroup (tools/bench/kernel_env.c).
 *
 * This file owns the fuzzer's input format.  An input is text, cut at
 * its first NUL byte.  Its first line is the key: the directory whose
 * tmpfs is looked up, and a controller name; the rest (after the first
 * newline, empty without one) is the file, given to each parser as a
 * memory stream of exactly its size, so ASan sees a read past its end.
 * Every input is valid; the file is read as each of the five tables,
 * and any broken contract (shm_kernel.h, kernel_env.h, kernel_disk.h)
 * prints the input
 * and aborts.  Each contract is evaluated here independently, from the
 * file's lines:
 *
 *  1. as a mount table: shmk_next_mount() must return, in order, the
 *     fields 2 to 4 of every line of four fields or more that fits
 *     struct shmk_mount and the parser's line buffer, and skip the rest
 *     (model_mounts());
 *     shmk_parse_mount_huge() for the key and for each of the table's
 *     first FZ_MAX_LOOKUPS mount points must give the huge= option (a
 *     whole option's name) of the last tmpfs mounted there, "never"
 *     without one, "unknown" with no such tmpfs (expect_huge()).
 *  2. as shmem_enabled: shmk_parse_enabled() must give the word in the
 *     first brackets of the first line, or "unknown".
 *  3. as cgroup.controllers: bench_controllers_list() must say whether
 *     the key, and "memory", is one of the first line's names.
 *  4. as /proc/swaps: bench_swaps_list_device() must say whether the
 *     file has more than one line.
 *  5. as /proc/self/cgroup: bench_cgroup_path() for the key, "memory"
 *     and "" (cgroup v2) must give the third field of the first line
 *     whose second (comma-separated) lists the controller, or for ""
 *     of the first line starting "0::"; -ENOENT without such a line or
 *     if that field does not start with '/', -ENAMETOOLONG if it does
 *     not fit (expect_cgroup()).
 *  6. as /proc/swaps again: bench_swaps_used_kib() for the key must
 *     give the fourth blank-separated field of the first line after the
 *     first whose first field is the key, as a decimal number; -EINVAL
 *     if that field is missing, not all digits or past 64 bits; -ENOENT
 *     without such a line (expect_swaps_used()).
 *
 * Each result string (the cgroup path too) goes to a buffer of one of
 * four sizes, chosen by
 * the input's length and allocated to exactly that size: it must be the
 * expected string cut to fit, and terminated.
 *
 * Not covered: opening the real files, and what the probes do with the
 * results (statfs(), access(): the file system, not text).
 *
 * Run without libFuzzer by tests/fuzz/replay_main.c over the seed corpus
 * tests/fuzz/corpus/fuzz_bench_sysfiles/.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_disk.h"
#include "kernel_env.h"
#include "shm_kernel.h"

#define FZ_TARGET	"fuzz_bench_sysfiles"
#include "fuzz_text.h"

/* The parsers' line buffers, less the NUL: what they look at of a line. */
#define FZ_MOUNT_LINE		1022	/* and the newline */
#define FZ_ENABLED_LINE		255
#define FZ_CONTROLLERS_LINE	511

#define FZ_MAX_MOUNTS		256
/* How many of the table's mount points are looked up as well. */
#define FZ_MAX_LOOKUPS		8

/*
 * struct sysfile - the file under test: @len bytes at @buf, malloc()ed
 * to exactly that size.
 */
struct sysfile {
	char *buf;
	size_t len;
};

/* sysfile_open() - A fresh stream over the file, as fopen() gives one. */
static FILE *sysfile_open(const struct sysfile *file)
{
	FILE *f = fmemopen(file->buf, file->len, "r");

	FZ_CHECK(f, "fmemopen() failed");
	return f;
}

/*
 * check_cut() - @got, from a buffer of @len bytes, is @want (@n bytes,
 * not terminated) cut to fit.
 */
static void check_cut(const char *what, const char *got, size_t len,
		      const char *want, size_t n)
{
	size_t fit = n < len - 1 ? n : len - 1;

	FZ_CHECK(memchr(got, '\0', len), "%s: not terminated", what);
	FZ_CHECK(strlen(got) == fit && !memcmp(got, want, fit),
		 "%s: '%s', want '%.*s' cut to %zu bytes", what, got, (int)n,
		 want, len);
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' ||
	       c == '\f' || c == '\r';
}

/* line_end() - The end of the line at @s (its newline, or the end). */
static const char *line_end(const char *s, const char *end)
{
	const char *nl = memchr(s, '\n', (size_t)(end - s));

	return nl ? nl : end;
}

/* ------------------------------------------------------------------ */
/* 1. The mount table */

/*
 * model_fields() - The fields 2 to 4 of line @s..@end into @m, if it
 * has four fields or more and they fit.
 */
static bool model_fields(const char *s, const char *end, struct shmk_mount *m)
{
	char *field[3] = { m->point, m->type, m->opts };
	const size_t size[3] = {
		sizeof(m->point), sizeof(m->type), sizeof(m->opts),
	};
	const char *start;
	size_t n;
	int i;

	for (i = -1; i < 3; i++) {
		while (s < end && is_space(*s))
			s++;
		if (s == end)
			return false;
		for (start = s; s < end && !is_space(*s); s++)
			;
		if (i < 0)
			continue;	/* the source: any length */
		n = (size_t)(s - start);
		if (n >= size[i])
			return false;
		memcpy(field[i], start, n);
		field[i][n] = '\0';
	}
	return true;
}

/* model_mounts() - The mounts of the file's lines. Return: how many. */
static size_t model_mounts(const struct sysfile *file, struct shmk_mount *m)
{
	const char *s = file->buf, *end = file->buf + file->len, *eol;
	size_t nr = 0;

	for (; s < end && nr < FZ_MAX_MOUNTS; s = eol + 1) {
		eol = line_end(s, end);
		if ((size_t)(eol - s) <= FZ_MOUNT_LINE &&
		    model_fields(s, eol, &m[nr]))
			nr++;
		if (eol == end)
			break;
	}
	return nr;
}

static void check_next_mount(const struct sysfile *file,
			     const struct shmk_mount *want, size_t nr)
{
	FILE *f = sysfile_open(file);
	struct shmk_mount got;
	size_t i;

	for (i = 0; i < nr; i++) {
		memset(&got, 0xa5, sizeof(got));
		FZ_CHECK(shmk_next_mount(f, &got), "mount %zu of %zu missed",
			 i, nr);
		FZ_CHECK(!strcmp(got.point, want[i].point) &&
			 !strcmp(got.type, want[i].type) &&
			 !strcmp(got.opts, want[i].opts),
			 "mount %zu: '%s' '%s' '%s', want '%s' '%s' '%s'", i,
			 got.point, got.type, got.opts, want[i].point,
			 want[i].type, want[i].opts);
	}
	/* FZ_MAX_MOUNTS caps the model, not the table. */
	FZ_CHECK(nr == FZ_MAX_MOUNTS || !shmk_next_mount(f, &got),
		 "a mount past the %zu of the table: '%s' '%s' '%s'", nr,
		 got.point, got.type, got.opts);
	fclose(f);
}

/*
 * option_value() - The value of option @name= in the comma-separated
 * @opts, @n bytes of it in *@n; NULL if no option has that name.
 */
static const char *option_value(const char *opts, const char *name,
				size_t *n)
{
	size_t len = strlen(name);
	const char *o;

	for (o = opts; o; o = strchr(o, ',') ? strchr(o, ',') + 1 : NULL) {
		if (!strncmp(o, name, len) && o[len] == '=') {
			*n = strcspn(o + len + 1, ",");
			return o + len + 1;
		}
	}
	return NULL;
}

/* expect_huge() - What shmk_parse_mount_huge() must say of @dir. */
static const char *expect_huge(const struct shmk_mount *m, size_t nr,
			       const char *dir, size_t *n)
{
	const char *value;
	size_t i;

	for (i = nr; i-- > 0;) {
		if (strcmp(m[i].point, dir) || strcmp(m[i].type, "tmpfs"))
			continue;
		value = option_value(m[i].opts, "huge", n);
		if (value)
			return value;
		*n = strlen("never");
		return "never";
	}
	*n = strlen("unknown");
	return "unknown";
}

static void check_mount_huge(const struct sysfile *file,
			     const struct shmk_mount *m, size_t nr,
			     const char *dir, size_t len)
{
	char *out = fz_buf_alloc(len);
	const char *want;
	FILE *f = sysfile_open(file);
	size_t n;

	shmk_parse_mount_huge(f, dir, out, len);
	fclose(f);
	want = expect_huge(m, nr, dir, &n);
	check_cut("shmk_parse_mount_huge()", out, len, want, n);
	free(out);
}

static void fuzz_mounts(const struct sysfile *file, const char *key,
			size_t len)
{
	struct shmk_mount *m = calloc(FZ_MAX_MOUNTS, sizeof(*m));
	size_t nr, i;

	FZ_CHECK(m, "out of memory");
	nr = model_mounts(file, m);
	check_next_mount(file, m, nr);
	check_mount_huge(file, m, nr, key, len);
	for (i = 0; i < nr && i < FZ_MAX_LOOKUPS; i++)
		check_mount_huge(file, m, nr, m[i].point, len);
	free(m);
}

/* ------------------------------------------------------------------ */
/* 2. shmem_enabled */

/*
 * first_line() - What a parser reading @max bytes of the first line
 * sees: the line with its newline, cut to @max.  Return: the length.
 */
static size_t first_line(const struct sysfile *file, size_t max)
{
	const char *end = file->buf + file->len;
	const char *eol = line_end(file->buf, end);
	size_t n = (size_t)(eol - file->buf) + (eol < end);

	return n < max ? n : max;
}

static void fuzz_enabled(const struct sysfile *file, size_t len)
{
	size_t n = first_line(file, FZ_ENABLED_LINE);
	const char *open = memchr(file->buf, '[', n);
	const char *close = NULL, *want = "unknown";
	char *out = fz_buf_alloc(len);
	size_t wn = strlen(want);
	FILE *f;

	if (open)
		close = memchr(open, ']', n - (size_t)(open - file->buf));
	if (close) {
		want = open + 1;
		wn = (size_t)(close - want);
	}
	f = sysfile_open(file);
	shmk_parse_enabled(f, out, len);
	fclose(f);
	check_cut("shmk_parse_enabled()", out, len, want, wn);
	free(out);
}

/* ------------------------------------------------------------------ */
/* 3. cgroup.controllers and 4. /proc/swaps */

/* expect_listed() - Is @name one of the first line's names? */
static bool expect_listed(const struct sysfile *file, const char *name)
{
	size_t n = first_line(file, FZ_CONTROLLERS_LINE);
	size_t len = strlen(name), i = 0, start;

	while (i < n) {
		while (i < n && (file->buf[i] == ' ' || file->buf[i] == '\n'))
			i++;
		for (start = i; i < n && file->buf[i] != ' ' &&
		     file->buf[i] != '\n'; i++)
			;
		if (i > start && i - start == len &&
		    !memcmp(file->buf + start, name, len))
			return true;
	}
	return false;
}

static void check_listed(const struct sysfile *file, const char *name)
{
	bool want = expect_listed(file, name);
	FILE *f = sysfile_open(file);
	bool got = bench_controllers_list(f, name);

	fclose(f);
	FZ_CHECK(got == want, "bench_controllers_list('%s') = %d, want %d",
		 name, got, want);
}

/* expect_lines() - The file's lines, a last one without its newline too. */
static size_t expect_lines(const struct sysfile *file)
{
	size_t lines = 0, i;

	for (i = 0; i < file->len; i++)
		lines += file->buf[i] == '\n';
	return lines + (file->len && file->buf[file->len - 1] != '\n');
}

static void fuzz_swaps(const struct sysfile *file)
{
	bool want = expect_lines(file) > 1;
	FILE *f = sysfile_open(file);
	bool got = bench_swaps_list_device(f);

	fclose(f);
	FZ_CHECK(got == want, "bench_swaps_list_device() = %d, want %d "
		 "(%zu lines)", got, want, expect_lines(file));
}

/* ------------------------------------------------------------------ */
/* 5. /proc/self/cgroup */

/* Is [@word, @word + @n) @name, or one of its comma-separated names? */
static bool names_listed(const char *word, size_t n, const char *name)
{
	size_t len = strlen(name), start = 0, i;

	for (i = 0; i <= n; i++) {
		if (i < n && word[i] != ',')
			continue;
		if (i - start == len && !memcmp(word + start, name, len))
			return true;
		start = i + 1;
	}
	return false;
}

/*
 * expect_cgroup() - The result bench_cgroup_path() must give for
 * @controller: the return value, and in *@at / *@n the path's place in
 * the file when it is 0.
 */
static int expect_cgroup(const struct sysfile *file, const char *controller,
			 size_t len, const char **at, size_t *n)
{
	const char *p = file->buf, *end = file->buf + file->len;

	while (p < end) {
		const char *eol = line_end(p, end);
		const char *c1 = memchr(p, ':', (size_t)(eol - p));
		const char *c2 = c1 ? memchr(c1 + 1, ':',
					     (size_t)(eol - c1 - 1)) : NULL;
		bool match;

		if (c2 && *controller)
			match = names_listed(c1 + 1, (size_t)(c2 - c1 - 1),
					     controller);
		else
			match = c2 && c1 == p + 1 && *p == '0' && c2 == c1 + 1;
		if (match) {
			*at = c2 + 1;
			*n = (size_t)(eol - *at);
			if (!*n || **at != '/')
				return -ENOENT;
			return *n >= len ? -ENAMETOOLONG : 0;
		}
		p = eol + 1;
	}
	return -ENOENT;
}

static void check_cgroup(const struct sysfile *file, const char *controller,
			 size_t len)
{
	const char *at = NULL;
	size_t n = 0;
	int want = expect_cgroup(file, controller, len, &at, &n);
	char *out = fz_buf_alloc(len);
	FILE *f = sysfile_open(file);
	int got = bench_cgroup_path(f, controller, out, len);

	fclose(f);
	FZ_CHECK(got == want, "bench_cgroup_path('%s') = %d, want %d",
		 controller, got, want);
	FZ_CHECK(got || (!memcmp(out, at, n) && !out[n]),
		 "bench_cgroup_path('%s') gave '%.*s', want '%.*s'",
		 controller, (int)strnlen(out, len), out, (int)n, at);
	free(out);
}

/* ------------------------------------------------------------------ */
/* 6. /proc/swaps: a device's swap in use */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * line_field() - The @nr-th blank-separated field (from 0) of the line
 * @s..@eol, its length into *@n; NULL if the line has fewer.
 */
static const char *line_field(const char *s, const char *eol, unsigned int nr,
			      size_t *n)
{
	for (;;) {
		while (s < eol && is_blank(*s))
			s++;
		if (s == eol)
			return NULL;
		for (*n = 0; s + *n < eol && !is_blank(s[*n]); (*n)++)
			;
		if (!nr--)
			return s;
		s += *n;
	}
}

/* The result bench_swaps_used_kib() must give for @dev, *@kib on 0. */
static int expect_swaps_used(const struct sysfile *file, const char *dev,
			     uint64_t *kib)
{
	const char *p = file->buf, *end = file->buf + file->len;
	size_t want = strlen(dev), n, i;
	bool title = true;

	for (; p < end; p = line_end(p, end) + 1) {
		const char *eol = line_end(p, end), *f;

		if (title) {
			title = false;
			continue;
		}
		f = line_field(p, eol, 0, &n);
		if (!f || n != want || memcmp(f, dev, want))
			continue;
		f = line_field(p, eol, 3, &n);
		if (!f)
			return -EINVAL;
		*kib = 0;
		for (i = 0; i < n; i++) {
			unsigned int d = (unsigned int)(f[i] - '0');

			if (d > 9 || __builtin_mul_overflow(*kib, 10, kib) ||
			    __builtin_add_overflow(*kib, d, kib))
				return -EINVAL;
		}
		return 0;
	}
	return -ENOENT;
}

static void check_swaps_used(const struct sysfile *file, const char *dev)
{
	uint64_t want_kib = 0, got_kib = UINT64_MAX;
	int want = expect_swaps_used(file, dev, &want_kib);
	FILE *f = sysfile_open(file);
	int got = bench_swaps_used_kib(f, dev, &got_kib);

	fclose(f);
	FZ_CHECK(got == want, "bench_swaps_used_kib('%s') = %d, want %d", dev,
		 got, want);
	FZ_CHECK(got || got_kib == want_kib, "bench_swaps_used_kib('%s') "
		 "gave %llu KiB, want %llu", dev, (unsigned long long)got_kib,
		 (unsigned long long)want_kib);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The real size of shmk_info's strings, and less. */
	static const size_t lens[] = { 32, 1, 2, 7 };
	size_t len = lens[size % 4], text_len, key_len;
	char *text = fz_text_begin(data, size), *nl, *key;
	struct sysfile file;

	text_len = strlen(text);
	nl = strchr(text, '\n');
	key_len = nl ? (size_t)(nl - text) : text_len;
	file.len = nl ? text_len - key_len - 1 : 0;
	file.buf = malloc(file.len ? file.len : 1);
	FZ_CHECK(file.buf, "out of memory");
	if (file.len)
		memcpy(file.buf, nl + 1, file.len);
	key = strndup(text, key_len);
	FZ_CHECK(key, "out of memory");

	fuzz_mounts(&file, key, len);
	fuzz_enabled(&file, len);
	check_listed(&file, key);
	check_listed(&file, "memory");
	fuzz_swaps(&file);
	check_cgroup(&file, key, len);
	check_cgroup(&file, "memory", len);
	check_cgroup(&file, "", len);
	check_swaps_used(&file, key);

	free(key);
	free(file.buf);
	fz_text_end(text);
	return 0;
}
