/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/seed_populate.h - seed 004's experiment: populating a shmem
 * file through writes, per-folio grab and copy vs batched grab and a copy
 * per adjacent stretch vs the kernel's tmpfs (seed_populate.c).
 */
#ifndef UPCACHE_TOOLS_BENCH_SEED_POPULATE_H
#define UPCACHE_TOOLS_BENCH_SEED_POPULATE_H

#include "options.h"
#include "output.h"
#include "report.h"

/**
 * seed_populate_run() - Run the experiment and add its rows.
 * @opts: The options: --quick, --tiny and --rounds (the file is 1 GiB,
 *	256 MiB with --quick).
 * @out: Where the table goes.
 * @rep: The report that receives rows "populate_small" and
 *	"populate_large".
 *
 * A wrong result (a file whose contents differ from what was written)
 * ends the run through bench_die().
 *
 * Return: 0.
 */
int seed_populate_run(const struct bench_options *opts,
		      struct bench_output *out, struct bench_report *rep);

#endif /* UPCACHE_TOOLS_BENCH_SEED_POPULATE_H */
