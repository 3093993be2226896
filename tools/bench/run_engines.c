// SPDX-License-Identifier: MIT
/*
 * tools/bench/run_engines.c - the table of `upcache-bench run`'s engines.
 *
 * Owns which engines exist and which can run yet, and what every engine
 * writes: the pattern and the layout that spreads it over a file.  An
 * engine whose layer has not landed is listed with what it needs (its
 * @needs), so a job that names it fails with "engine X: not yet
 * implemented: needs <layer>" instead of being skipped silently; it
 * plugs in by getting its functions.
 */
#include <errno.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "util.h"

#include "run_engine.h"

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

	/* The top byte of a multiplicative hash of the position. */
	for (i = 0; i < len; i++)
		p[i] = (unsigned char)((uint32_t)i * 0x9e3779b1u >> 24);
}

/**
 * run_layout_pattern() - Write the pattern over [0, @size) in pieces.
 * @write: The write function.
 * @h: Its target.
 * @size: Bytes to write.
 *
 * Return: 0, the first error, or -ENOSPC if a write wrote nothing.
 */
int run_layout_pattern(ssize_t (*write)(void *h, const void *buf, size_t len,
					uint64_t off),
		       void *h, uint64_t size)
{
	char *buf = bench_xcalloc(1, RUN_LAYOUT_CHUNK);
	uint64_t off = 0;
	ssize_t n = 0;

	run_fill_pattern(buf, RUN_LAYOUT_CHUNK);
	while (off < size) {
		size_t len = size - off < RUN_LAYOUT_CHUNK ?
			     (size_t)(size - off) : RUN_LAYOUT_CHUNK;

		n = write(h, buf, len, off);
		if (n <= 0)
			break;
		off += (uint64_t)n;
	}
	free(buf);
	if (n < 0)
		return (int)n;
	return off < size ? -ENOSPC : 0;
}
