/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/shm_suite.h - the shmem suite with its kernel directory
 * as a parameter.
 *
 * bench_suite_shmem() (suite.h) compares with the kernel's tmpfs in
 * SHM_KERNEL_DIR.  The tests also run it against a directory that is no
 * tmpfs, to check that the run then goes on without the kernel side and
 * says so, instead of failing.
 */
#ifndef UPCACHE_TOOLS_BENCH_SHM_SUITE_H
#define UPCACHE_TOOLS_BENCH_SHM_SUITE_H

#include "suite.h"

/* Where the kernel's files go: the tmpfs every Linux system mounts. */
#define SHM_KERNEL_DIR	"/dev/shm"

/**
 * shm_suite_run() - Run the shmem suite.
 * @opts: The suite's options.
 * @out: Where the table goes.
 * @rep: The report to fill.
 * @kernel_dir: The tmpfs directory for the kernel's files; one that is
 *	not usable leaves the kernel figures null.
 *
 * Return: 0.  A wrong read, a file not of its kind or a leak ends the
 * run (exit status 2) with a message naming the row or group.
 */
int shm_suite_run(const struct bench_options *opts, struct bench_output *out,
		  struct bench_report *rep, const char *kernel_dir);

#endif /* UPCACHE_TOOLS_BENCH_SHM_SUITE_H */
