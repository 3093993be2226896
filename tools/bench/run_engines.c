// SPDX-License-Identifier: MIT
/*
 * tools/bench/run_engines.c - the table of `upcache-bench run`'s engines.
 *
 * Owns which engines exist and which can run yet.  An engine whose layer
 * has not landed is listed with what it needs, so a job that names it
 * fails with "engine X: not yet implemented: needs <layer>" instead of
 * being skipped silently; it plugs in by getting its functions.
 */
#include <string.h>

#include "run_engine.h"

static const struct run_engine run_engine_anon = {
	.name = "upcache-anon",
	.needs = "anonymous regions and the swap layer "
		 "(upc_anon_create, mm/swap_state.c, mm/swapfile.c)",
};

static const struct run_engine *const run_engines[] = {
	&run_engine_shmem,
	&run_engine_file,
	&run_engine_anon,
	&run_engine_kernel_sync,
	&run_engine_kernel_psync,
	&run_engine_kernel_mmap,
};

/**
 * run_engine_find() - Look an engine up by its ioengine= name.
 * @name: The name.
 *
 * Return: The engine, or NULL.
 */
const struct run_engine *run_engine_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(run_engines) / sizeof(run_engines[0]); i++)
		if (!strcmp(run_engines[i]->name, name))
			return run_engines[i];
	return NULL;
}

/**
 * run_fill_pattern() - Fill a buffer with the bytes writes and layout use.
 * @buf: The buffer.
 * @len: Its length.
 */
void run_fill_pattern(void *buf, size_t len)
{
	unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(0x5a ^ (i * 131 >> 3));
}
