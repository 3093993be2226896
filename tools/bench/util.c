// SPDX-License-Identifier: MIT
/*
 * tools/bench/util.c - dying with a message, for the benchmark tool.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/**
 * bench_die() - Print "upcache-bench: <message>" and exit with status 2.
 * @fmt: printf format of the message.
 */
void bench_die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("upcache-bench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(BENCH_EXIT_ERROR);
}

/**
 * bench_xcalloc() - calloc() that dies on failure.
 * @n: Number of elements.
 * @size: Size of one element.
 *
 * Return: Zeroed memory.
 */
void *bench_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		bench_die("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

/**
 * bench_xstrdup() - strdup() that dies on failure.
 * @s: The string.
 *
 * Return: A malloc()ed copy.
 */
char *bench_xstrdup(const char *s)
{
	char *copy = strdup(s);

	if (!copy)
		bench_die("out of memory (string of %zu bytes)", strlen(s));
	return copy;
}

bool bench_json_word_is_file(const char *word)
{
	FILE *f;
	int c;

	if (!strcmp(word, "-"))
		return true;
	f = fopen(word, "r");
	if (!f)
		return true;
	c = fgetc(f);
	fclose(f);
	return c == EOF || c == '{';
}
