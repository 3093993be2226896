/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/run_swap.h - the swap of an upcache engine's job
 * (swap_size=, swap_file=, swap_space_shift=): see run_swap.c.
 */
#ifndef UPCACHE_TOOLS_BENCH_RUN_SWAP_H
#define UPCACHE_TOOLS_BENCH_RUN_SWAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "run_options.h"

struct upc_cache;

#define RUN_SWAP_ALIGN		(2ULL << 20)	/* upc_cache_create()'s and
						 * upc_swapon()'s granule */
/*
 * Swap a job needs beyond what memory cannot hold: a swap-in needs a
 * free page, and making one needs a free slot for the page it swaps
 * out, so a device exactly as large as the overflow runs dry mid-job.
 */
#define RUN_SWAP_HEADROOM	RUN_SWAP_ALIGN

/**
 * struct run_swap - one job's swap device, as far as the job owns it.
 * @engine: The engine's name, for messages.
 * @path: The swap file's path (malloc()ed), or NULL for none or a
 *	device in memory.
 * @created: The job created the swap file.
 * @lock_fd: The swap file, opened to hold an exclusive flock() on it
 *	while the job runs (two devices on one file would write over each
 *	other's slots), or -1.
 */
struct run_swap {
	const char *engine;
	char *path;
	bool created;
	int lock_fd;
};

/**
 * run_swap_round_up() - @bytes rounded up to RUN_SWAP_ALIGN.
 * @bytes: A size.
 *
 * Return: The rounded size.
 */
uint64_t run_swap_round_up(uint64_t bytes);

/**
 * run_swap_sizes() - A job's cache limit and swap size.
 * @job: The job.
 * @engine: The engine's name, for messages.
 * @what: What @need is made of, for messages ("regions", "files").
 * @need: Bytes of the job's data in all.
 * @limit: Receives the cache's memory limit: memory_limit= rounded up
 *	to 2 MiB, or @need plus BENCH_ARENA_SLACK without one.
 * @swap: Receives the swap's size: swap_size= rounded up to 2 MiB; by
 *	default @need rounded up whenever swap is wanted (memory_limit=
 *	below @need, swap_file= or swap_space_shift= given), otherwise 0.
 * @err: Buffer for a one-line message on error.
 * @errlen: Size of @err.
 *
 * Return: 0; -EINVAL with a message when memory_limit= is below @need
 * and the limit plus the swap cannot hold @need with RUN_SWAP_HEADROOM
 * of swap to spare.
 */
int run_swap_sizes(const struct run_job *job, const char *engine,
		   const char *what, uint64_t need, uint64_t *limit,
		   uint64_t *swap, char *err, size_t errlen);

/**
 * run_swap_init() - An empty run_swap, safe to run_swap_release().
 * @s: The swap.
 * @engine: The engine's name, for messages (a string that outlives @s).
 */
void run_swap_init(struct run_swap *s, const char *engine);

/**
 * run_swap_on() - Give @cache its swap: in memory, or in swap_file=.
 * @s: The swap, from run_swap_init().
 * @job: The job: swap_file= (under directory= unless absolute) and
 *	swap_space_shift=.
 * @cache: The job's cache, without swap yet.
 * @bytes: The swap's size, a multiple of 2 MiB (run_swap_sizes()).
 * @err: Buffer for a one-line message on error.
 * @errlen: Size of @err.
 *
 * A swap file is created if missing (and then removed by
 * run_swap_release() unless unlink=0) and locked with an exclusive
 * flock() until run_swap_release().
 *
 * Return: 0; -EBUSY with a message if the swap file cannot be opened or
 * another job holds it; upc_swapon()'s error with a message.
 */
int run_swap_on(struct run_swap *s, const struct run_job *job,
		struct upc_cache *cache, uint64_t bytes, char *err,
		size_t errlen);

/**
 * run_swap_release() - Remove the swap file if the job should, unlock
 * it and free @s's memory.
 * @s: The swap.
 * @job: The job (unlink=).
 *
 * Call after upc_cache_destroy(), which closes the device.
 */
void run_swap_release(struct run_swap *s, const struct run_job *job);

#endif /* UPCACHE_TOOLS_BENCH_RUN_SWAP_H */
