// SPDX-License-Identifier: MIT
/*
 * tools/bench/run_swap.c - the swap of an upcache engine's job.
 *
 * Owns what the engines that swap (upcache-anon, upcache-shmem) share
 * about the job options swap_size=, swap_file= and swap_space_shift=:
 * sizing the cache and its swap from memory_limit= (swap by default
 * when the limit is below the job's data, as large as that data, with
 * RUN_SWAP_HEADROOM to spare or an error), the swap file (its path under
 * directory=, an exclusive flock() on it while the job runs, removing
 * it afterwards if the job created it, unless unlink=0) and
 * upc_swapon().  What cannot go to swap (shmem's large and fallocated
 * folios) is the engine's to check: only it knows its data.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <upcache/upcache.h>

#include "run_swap.h"
#include "util.h"

/**
 * run_swap_round_up() - @bytes rounded up to RUN_SWAP_ALIGN.
 * @bytes: A size.
 *
 * Return: The rounded size.
 */
uint64_t run_swap_round_up(uint64_t bytes)
{
	return (bytes + RUN_SWAP_ALIGN - 1) & ~(RUN_SWAP_ALIGN - 1);
}

/**
 * run_swap_sizes() - A job's cache limit and swap size (see run_swap.h).
 * @job: The job.
 * @engine: The engine's name, for messages.
 * @what: What @need is made of, for messages.
 * @need: Bytes of the job's data in all.
 * @limit: Receives the cache's memory limit.
 * @swap: Receives the swap's size, 0 for none.
 * @err: Message buffer.
 * @errlen: Its size.
 *
 * Return: 0, or -EINVAL with a message when the job cannot fit.
 */
int run_swap_sizes(const struct run_job *job, const char *engine,
		   const char *what, uint64_t need, uint64_t *limit,
		   uint64_t *swap, char *err, size_t errlen)
{
	bool tight = job->memory_limit && job->memory_limit < need;

	*limit = run_swap_round_up(job->memory_limit ? job->memory_limit :
				   need + BENCH_ARENA_SLACK);
	*swap = 0;
	if (job->swap_size)
		*swap = run_swap_round_up(job->swap_size);
	else if (tight || job->swap_file || job->swap_space_shift)
		*swap = run_swap_round_up(need);
	if (tight && *limit + *swap < need + RUN_SWAP_HEADROOM) {
		snprintf(err, errlen, "%s: memory_limit= (%llu MiB) and "
			 "swap_size= (%llu MiB) cannot hold the %s' %llu MiB "
			 "with %llu MiB of swap to spare", engine,
			 (unsigned long long)(*limit >> 20),
			 (unsigned long long)(*swap >> 20), what,
			 (unsigned long long)(need >> 20),
			 (unsigned long long)(RUN_SWAP_HEADROOM >> 20));
		return -EINVAL;
	}
	return 0;
}

/**
 * run_swap_init() - An empty run_swap.
 * @s: The swap.
 * @engine: The engine's name, for messages.
 */
void run_swap_init(struct run_swap *s, const char *engine)
{
	memset(s, 0, sizeof(*s));
	s->engine = engine;
	s->lock_fd = -1;
}

/**
 * run_swap_on() - Give @cache its swap: in memory, or in swap_file=.
 * @s: The swap.
 * @job: The job.
 * @cache: The job's cache.
 * @bytes: The swap's size.
 * @err: Message buffer.
 * @errlen: Its size.
 *
 * Return: 0; -EBUSY or upc_swapon()'s error, with a message.
 */
int run_swap_on(struct run_swap *s, const struct run_job *job,
		struct upc_cache *cache, uint64_t bytes, char *err,
		size_t errlen)
{
	struct upc_swap_config sc = {
		.size = bytes, .space_shift = job->swap_space_shift,
	};
	struct stat st;
	char path[4096];
	int ret;

	if (job->swap_file) {
		if (job->swap_file[0] == '/')
			snprintf(path, sizeof(path), "%s", job->swap_file);
		else
			snprintf(path, sizeof(path), "%s/%s", job->directory,
				 job->swap_file);
		s->path = bench_xstrdup(path);
		s->created = stat(path, &st) != 0;
		sc.path = s->path;
		s->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		if (s->lock_fd < 0 || flock(s->lock_fd, LOCK_EX | LOCK_NB)) {
			snprintf(err, errlen, "%s: swap_file %s: %s",
				 s->engine, path, errno == EWOULDBLOCK ?
				 "in use by another job" : strerror(errno));
			return -EBUSY;
		}
	}
	ret = upc_swapon(cache, &sc);
	if (ret)
		snprintf(err, errlen, "%s: %llu MiB of swap%s%s: %s",
			 s->engine, (unsigned long long)(bytes >> 20),
			 sc.path ? " in " : " in memory",
			 sc.path ? sc.path : "",
			 strerror(-ret));
	return ret;
}

/**
 * run_swap_release() - Remove the swap file if the job should, unlock
 * it, free @s's memory.
 * @s: The swap.
 * @job: The job.
 */
void run_swap_release(struct run_swap *s, const struct run_job *job)
{
	bool rm = job->unlink < 0 ? s->created : job->unlink;

	if (s->path && rm)
		unlink(s->path);
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	free(s->path);
	s->path = NULL;
	s->lock_fd = -1;
}
