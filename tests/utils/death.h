/* SPDX-License-Identifier: MIT */
/*
 * tests/utils/death.h - run a misuse in a child process and see the
 * debug build's check stop it.
 *
 * The library's debug checks (UPC_MM_BUG_ON() in mm/internal.h) abort
 * the process; a test cannot trip one in its own process and go on.
 * test_aborts_with() forks, runs the misuse in the child with standard
 * error captured, and tells the parent whether the child died by
 * SIGABRT with the expected text on standard error, so a test sees
 * that the check meant fired, not merely that something did.
 * test_run_child() is the fork and capture alone, for tests that expect
 * another ending (the benchmark's exit status 2, bench_helpers.h).
 */
#ifndef UPCACHE_TESTS_UTILS_DEATH_H
#define UPCACHE_TESTS_UTILS_DEATH_H

#include <stdbool.h>
#include <stddef.h>

/**
 * test_run_child() - Run @fn(@arg) in a forked child, its standard error
 * captured.
 * @fn: What the child runs; if it returns, the child exits 0.
 * @arg: Its argument.
 * @err: Receives what the child wrote to standard error, NUL-terminated;
 *	past @len - 1 bytes the rest is read and dropped.
 * @len: Size of @err, at least 1.
 *
 * The child writes no core file.  Standard output and error are flushed
 * first, so the child's exit does not repeat what the parent buffered.
 *
 * Return: The child's wait status (waitpid()), or -1 if no child could
 * be run (the reason printed).
 */
int test_run_child(void (*fn)(void *arg), void *arg, char *err, size_t len);

/**
 * test_aborts_with() - Run @fn(@arg) in a child; did it abort saying @expect?
 * @fn: The misuse.  It should not return; if it does, the child exits 0.
 * @arg: Its argument.
 * @expect: Text the child's standard error must contain (for an
 *	assert(), part of what it prints: the function (its name, or with
 *	clang its whole signature), then "Assertion `expression' failed.",
 *	the expression with macros expanded).
 *
 * The child writes no core file.  The parent's memory is untouched: the
 * child works on its own copy, so the parent still owns whatever @arg
 * points to and cleans it up as usual.
 *
 * Return: true if the child was killed by SIGABRT and its standard
 * error contains @expect; false otherwise, after printing what the child
 * did instead and up to 4 KiB of its standard error.
 */
bool test_aborts_with(void (*fn)(void *arg), void *arg, const char *expect);

#endif
