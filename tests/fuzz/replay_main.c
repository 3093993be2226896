// SPDX-License-Identifier: MIT
/*
 * tests/fuzz/replay_main.c - run a libFuzzer target without libFuzzer.
 *
 * The gcc build links each tests/fuzz/fuzz_*.c with this file instead of
 * libFuzzer, so every fuzz target is exercised by plain `ctest`, with any
 * compiler and under ASan/UBSan builds too.
 *
 *	fuzz_NAME [PATH...]
 *
 * Each PATH that is a file is one input; each directory contributes every
 * regular file in it, in name order (a libFuzzer corpus, or a crash-*
 * artifact kept as a regression).  A PATH that does not exist is skipped.
 * If no input was found, the target gets UPC_FUZZ_REPLAY_RUNS (default
 * 500) deterministic pseudo-random inputs of up to UPC_FUZZ_REPLAY_MAX_LEN
 * (default 4096) bytes, generated from UPC_SEED (default 1).  The seed is
 * printed so a failure can be rerun.
 *
 * Every input is copied into a buffer of exactly its size, so the
 * sanitizers see an over-read as they would under libFuzzer.  A target
 * that finds a bug aborts (assert, sanitizer report); the return value of
 * LLVMFuzzerTestOneInput() is ignored, as libFuzzer ignores it for all
 * values but -1 (do not add to the corpus).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static unsigned long nr_from_files;

static void run_one(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);

	if (!copy) {
		fprintf(stderr, "replay: out of memory for a %zu-byte input\n", size);
		exit(2);
	}
	if (size)
		memcpy(copy, data, size);
	(void)LLVMFuzzerTestOneInput(copy, size);
	free(copy);
}

static void run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	for (;;) {
		if (len == cap) {
			cap = cap ? 2 * cap : 4096;
			buf = realloc(buf, cap);
			if (!buf) {
				fprintf(stderr, "replay: %s: out of memory\n", path);
				exit(2);
			}
		}
		size_t got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "replay: %s: read error\n", path);
		exit(2);
	}
	fclose(f);
	run_one(buf, len);
	free(buf);
	nr_from_files++;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run_dir(const char *path)
{
	DIR *dir = opendir(path);
	char **names = NULL;
	size_t nr = 0, cap = 0;
	struct dirent *de;

	if (!dir) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		if (nr == cap) {
			cap = cap ? 2 * cap : 64;
			names = realloc(names, cap * sizeof(*names));
			if (!names)
				exit(2);
		}
		names[nr] = malloc(strlen(path) + strlen(de->d_name) + 2);
		if (!names[nr])
			exit(2);
		sprintf(names[nr], "%s/%s", path, de->d_name);
		nr++;
	}
	closedir(dir);
	if (nr)
		qsort(names, nr, sizeof(*names), name_cmp);
	for (size_t i = 0; i < nr; i++) {
		struct stat st;

		if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
			run_file(names[i]);
		free(names[i]);
	}
	free(names);
}

static unsigned long env_ulong(const char *name, unsigned long def)
{
	const char *s = getenv(name);
	char *end;
	unsigned long v;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end) {
		fprintf(stderr, "replay: ignoring %s=%s (not a number)\n", name, s);
		return def;
	}
	return v;
}

/* splitmix64: small, fast, and the same sequence on every platform. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * Mostly short inputs, where a structured target decodes a few
 * operations; some long ones; some with few distinct byte values, which
 * hit small indices and repeated operations more often than uniform bytes.
 */
static void run_random(unsigned long runs, size_t max_len, uint64_t seed)
{
	uint64_t state = seed;
	uint8_t *buf = malloc(max_len ? max_len : 1);

	if (!buf)
		exit(2);
	for (unsigned long i = 0; i < runs; i++) {
		uint64_t r = next_random(&state);
		size_t len;

		if (!max_len)
			len = 0;
		else if (r % 4 == 0)
			len = next_random(&state) % (max_len + 1);
		else
			len = next_random(&state) % (max_len < 64 ? max_len + 1 : 65);
		uint64_t mask = (r >> 8) % 3 == 0 ? 0x0f : 0xff;
		for (size_t j = 0; j < len; j++)
			buf[j] = (uint8_t)(next_random(&state) & mask);
		run_one(buf, len);
	}
	free(buf);
}

int main(int argc, char **argv)
{
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);

	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode))
			run_dir(argv[i]);
		else
			run_file(argv[i]);
	}

	if (nr_from_files) {
		printf("replay: %lu inputs from files: ok\n", nr_from_files);
		return 0;
	}

	unsigned long runs = env_ulong("UPC_FUZZ_REPLAY_RUNS", 500);
	size_t max_len = env_ulong("UPC_FUZZ_REPLAY_MAX_LEN", 4096);
	uint64_t seed = env_ulong("UPC_SEED", 1);

	printf("replay: no corpus; %lu pseudo-random inputs of up to %zu bytes, UPC_SEED=%" PRIu64 "\n",
	       runs, max_len, seed);
	fflush(stdout);
	run_random(runs, max_len, seed);
	printf("replay: %lu inputs: ok\n", runs);
	return 0;
}
