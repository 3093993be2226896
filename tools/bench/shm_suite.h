/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/shm_suite.h - the shmem suite with where it looks for the
 * kernel's tmpfs as a parameter.
 *
 * bench_suite_shmem() (suite.h) compares with the kernel's tmpfs as
 * shm_kernel_where finds it: for each huge policy, SHM_KERNEL_DIR if its
 * files get the pages upcache's get, else the first tmpfs mounted that
 * does, else SHM_KERNEL_DIR all the same, the mismatch in the report.
 * The tests also run it against a directory that is no tmpfs, to check
 * that the run then goes on without the kernel side and says so, and
 * against mount tables of their own.
 */
#ifndef UPCACHE_TOOLS_BENCH_SHM_SUITE_H
#define UPCACHE_TOOLS_BENCH_SHM_SUITE_H

#include "shm_kernel.h"
#include "suite.h"

/* The kernel's files go here first: the tmpfs every Linux system mounts. */
#define SHM_KERNEL_DIR	"/dev/shm"

/* Where bench_suite_shmem() looks: SHM_KERNEL_DIR, then the mount table. */
extern const struct shmk_where shm_kernel_where;

/**
 * shm_suite_run() - Run the shmem suite.
 * @opts: The suite's options.
 * @out: Where the table goes.
 * @rep: The report to fill.
 * @where: Where to look for the kernel's tmpfs (shmk_find()); a group
 *	for which nothing usable is found has its kernel figures null.
 *
 * Return: 0.  A wrong read, a file not of its kind or a leak ends the
 * run (exit status 2) with a message naming the row or group.
 */
int shm_suite_run(const struct bench_options *opts, struct bench_output *out,
		  struct bench_report *rep, const struct shmk_where *where);

#endif /* UPCACHE_TOOLS_BENCH_SHM_SUITE_H */
