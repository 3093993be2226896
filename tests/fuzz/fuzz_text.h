/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_text.h - how a fuzz target that reads its input as
 * text reports a broken contract.
 *
 * The target defines FZ_TARGET (its name, a string) before including
 * this, takes the input as a string with fz_text_begin() and gives it
 * back with fz_text_end(), allocates the parsers' buffers at their
 * exact size with fz_buf_alloc(), and checks with FZ_CHECK(cond, fmt,
 * ...) in between: a failed check prints the whole input,
 * so that it can be replayed as it is, then what went wrong, and aborts
 * (which libFuzzer and the replay test both take as a failure).
 */
#ifndef UPCACHE_TESTS_FUZZ_TEXT_H
#define UPCACHE_TESTS_FUZZ_TEXT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FZ_TARGET
#error "define FZ_TARGET, the target's name, before including fuzz_text.h"
#endif

/* The input being run, printed when a check fails. */
static const char *fz_text;

/* fz_fail() - Print the input and what went wrong, and abort. */
__attribute__((noreturn, format(printf, 1, 2), unused))
static void fz_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, FZ_TARGET ": input:\n%s\n-- end of input\n"
		FZ_TARGET ": ", fz_text);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

#define FZ_CHECK(cond, ...)				\
	do {						\
		if (!(cond))				\
			fz_fail(__VA_ARGS__);		\
	} while (0)

/*
 * fz_text_begin() - The input's @size bytes at @data as a string (cut at
 * its first NUL, if any), which failed checks print.
 * Return: the string, to hand to fz_text_end().
 */
__attribute__((unused))
static char *fz_text_begin(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	fz_text = "(the input could not be copied)";
	FZ_CHECK(text, "out of memory");
	if (size)
		memcpy(text, data, size);
	text[size] = '\0';
	fz_text = text;
	return text;
}

/*
 * fz_buf_alloc() - A buffer of exactly @len bytes (0 allowed: then
 * perhaps NULL) for a parser's message or result, filled with a byte no
 * parser writes rather than zeroed, so that a result it forgot to
 * terminate shows; and ASan sees a write past its end.
 */
__attribute__((unused))
static char *fz_buf_alloc(size_t len)
{
	char *buf = malloc(len);

	FZ_CHECK(buf || !len, "out of memory");
	if (len)
		memset(buf, 0xa5, len);
	return buf;
}

/* fz_text_end() - Done with the input fz_text_begin() gave as @text. */
__attribute__((unused))
static void fz_text_end(char *text)
{
	fz_text = NULL;
	free(text);
}

#endif /* UPCACHE_TESTS_FUZZ_TEXT_H */
