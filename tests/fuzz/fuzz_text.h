/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_text.h - how a fuzz target that reads its input as
 * text reports a broken contract.
 *
 * The target defines FZ_TARGET (its name, a string) before including
 * this, points fz_text at the input's text while it runs it, and checks
 * with FZ_CHECK(cond, fmt, ...): a failed check prints the whole input,
 * so that it can be replayed as it is, then what went wrong, and aborts
 * (which libFuzzer and the replay test both take as a failure).
 */
#ifndef UPCACHE_TESTS_FUZZ_TEXT_H
#define UPCACHE_TESTS_FUZZ_TEXT_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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

#endif /* UPCACHE_TESTS_FUZZ_TEXT_H */
