// SPDX-License-Identifier: MIT
/*
 * tools/bench/scale.c - how big a run is: full, --quick or --tiny.
 *
 * Owns the mode table and the sizes derived from the entry count (see
 * scale.h for why each is what it is), and how a suite with a size of
 * its own in pages (a file, a region) picks it from the mode or --size.
 */
#include <string.h>

#include "scale.h"
#include "util.h"

/**
 * struct scale_mode - the defaults of one mode.
 * @name: The mode's name.
 * @nr_entries: Entries of the dense array.
 * @rounds: Timed rounds.
 */
struct scale_mode {
	const char *name;
	size_t nr_entries;
	unsigned int rounds;
};

static const struct scale_mode scale_full = { "full", 1u << 20, 15 };
static const struct scale_mode scale_quick = { "quick", 1u << 18, 9 };
static const struct scale_mode scale_tiny = { "tiny", 1u << 12, 3 };

/* scale_at_least() - @n / @div, but at least @min. */
static size_t scale_at_least(size_t n, size_t div, size_t min)
{
	return n / div > min ? n / div : min;
}

/**
 * bench_scale_from_options() - Pick the scale the options ask for.
 * @opts: The parsed options.
 * @scale: The result.
 */
void bench_scale_from_options(const struct bench_options *opts,
			      struct bench_scale *scale)
{
	const struct scale_mode *mode = &scale_full;
	size_t n;

	if (opts->tiny)
		mode = &scale_tiny;
	else if (opts->quick)
		mode = &scale_quick;
	n = opts->size ? opts->size : mode->nr_entries;
	scale->mode = mode->name;
	scale->nr_entries = n;
	scale->nr_sparse = scale_at_least(n, 16, 64);
	if (scale->nr_sparse > SCALE_MAX_SPARSE)
		scale->nr_sparse = SCALE_MAX_SPARSE;
	scale->nr_order9 = scale_at_least(n, 16, 64);
	scale->nr_splits = scale_at_least(n, 128, 8);
	scale->nr_conflicts = scale_at_least(n, 512, 8);
	scale->rounds = opts->rounds ? opts->rounds : mode->rounds;
	scale->warmups = 1;
}

/**
 * bench_scale_pages() - The common scale, and a suite's main size.
 * @opts: The parsed options.
 * @spec: The suite's sizes.
 * @scale: The common scale.
 *
 * Return: The pages.
 */
unsigned long bench_scale_pages(const struct bench_options *opts,
				const struct bench_pages_spec *spec,
				struct bench_scale *scale)
{
	const struct bench_mode_pages *mode = NULL;
	size_t i;

	bench_scale_from_options(opts, scale);
	for (i = 0; i < spec->nr_modes; i++)
		if (!strcmp(spec->modes[i].name, scale->mode))
			mode = &spec->modes[i];
	if (!mode)
		bench_die("%s: no %s size for mode '%s'", spec->suite,
			  spec->what, scale->mode);
	if (mode->rounds && !opts->rounds)
		scale->rounds = mode->rounds;
	if (!opts->size)
		return mode->pages;
	if (opts->size > spec->max_pages)
		bench_die("%s: --size %lu pages is a %lu MiB %s; at most %lu "
			  "pages (%lu MiB)", spec->suite, opts->size,
			  opts->size >> 8, spec->what, spec->max_pages,
			  spec->max_pages >> 8);
	return (opts->size + spec->align - 1) & ~(spec->align - 1);
}
