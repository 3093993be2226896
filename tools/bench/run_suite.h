/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/run_suite.h - what `upcache-bench run` shares with
 * `upcache-bench compare`: Ctrl-C handling and its exit status.
 */
#ifndef UPCACHE_TOOLS_BENCH_RUN_SUITE_H
#define UPCACHE_TOOLS_BENCH_RUN_SUITE_H

#include <signal.h>

/* Exit status after Ctrl-C stopped a run early (128 + SIGINT). */
#define RUN_EXIT_INTERRUPTED	130

/**
 * bench_run_sigint_install() - Catch the first SIGINT as a stop request
 * (run_request_stop()); a second one gets the default action.
 * @old: Receives the previous action.
 */
void bench_run_sigint_install(struct sigaction *old);

/**
 * bench_run_sigint_restore() - Put back the SIGINT action from before.
 * @old: What bench_run_sigint_install() saved.
 */
void bench_run_sigint_restore(const struct sigaction *old);

#endif /* UPCACHE_TOOLS_BENCH_RUN_SUITE_H */
