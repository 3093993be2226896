/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/util.h - dying with a message, for the benchmark tool.
 *
 * The library returns -ENOMEM and carries on; the benchmark does not: a
 * figure measured after an allocation failed, or after the XArray gave a
 * wrong answer, is meaningless, so the tool says what failed and exits
 * with status BENCH_EXIT_ERROR (2), the status of every upcache-bench
 * error.
 *
 * Pure code, compiled into tests/bench/ directly.
 */
#ifndef UPCACHE_TOOLS_BENCH_UTIL_H
#define UPCACHE_TOOLS_BENCH_UTIL_H

#include <stdbool.h>
#include <stddef.h>

/* The exit status of every upcache-bench error, usage errors included. */
#define BENCH_EXIT_ERROR	2

/*
 * Headroom a benchmark's arena gets past the memory its data needs (or
 * its limit): the allocator's per-CPU caches hold pages.
 */
#define BENCH_ARENA_SLACK	(16ULL << 20)

/**
 * bench_die() - Print "upcache-bench: <message>" and exit with status 2.
 * @fmt: printf format of the message.
 */
__attribute__((noreturn, format(printf, 1, 2)))
void bench_die(const char *fmt, ...);

/**
 * bench_xcalloc() - calloc() that dies on failure.
 * @n: Number of elements.
 * @size: Size of one element.
 *
 * Return: Zeroed memory; never NULL.
 */
void *bench_xcalloc(size_t n, size_t size);

/**
 * bench_xstrdup() - strdup() that dies on failure.
 * @s: The string.
 *
 * Return: A malloc()ed copy; never NULL.
 */
char *bench_xstrdup(const char *s);

/**
 * bench_json_word_is_file() - Is the word after a bare --json its FILE?
 * @word: The next word ("-" is stdout).
 *
 * run and compare also take job files as bare words, so a word naming
 * a file that exists and holds something other than a JSON object (its
 * first byte not '{': a job file) is not taken: `--json a.fio b.fio`
 * writes to stdout and runs both, never over a.fio.  --json=FILE is
 * always taken as given.
 *
 * Return: true if @word is "-", names no file yet, or an empty file or
 * one that starts with '{'.
 */
bool bench_json_word_is_file(const char *word);

#endif /* UPCACHE_TOOLS_BENCH_UTIL_H */
