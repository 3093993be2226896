// SPDX-License-Identifier: MIT
/*
 * tools/bench/fm_fixture.c - the filemap suite's sizes, arena and checks.
 *
 * Owns what every filemap row shares (fm_cases.h): the mode table, the
 * arena and the index sequences, emptying the mapping between rounds
 * with the leak checks, and the tree digest that proves a "before" row
 * built the same page cache as its "new" row.
 *
 * Conventions: @b is the shared state, @row a row's name for messages.
 */
#include <stdlib.h>
#include <string.h>

#include <upcache/check.h>
#include <upcache/rcu.h>
#include <upcache/vmscan.h>

#include "fm_cases.h"
#include "rng.h"
#include "scale.h"
#include "util.h"

#define SEED_FM_PERM	(BENCH_RNG_SEED + 16)
#define SEED_FM_SPLIT	(BENCH_RNG_SEED + 17)

/* The swap cache rows' arena: it only holds their one folio. */
#define FMB_SWAP_ARENA	(4UL << 20)

static const struct bench_mode_pages fm_modes[] = {
	{ "full", 1UL << 18, 0 },	/* 1 GiB */
	{ "quick", 1UL << 15, 0 },	/* 128 MiB */
	{ "tiny", 1UL << 10, 0 },	/* 4 MiB */
};

static const struct bench_pages_spec fm_pages = {
	"filemap", "file", fm_modes, sizeof(fm_modes) / sizeof(fm_modes[0]),
	FMB_MAX_FILE_PAGES, FMB_ORDER_PAGES,
};

/**
 * fmb_scale_from_options() - Pick the sizes the options ask for.
 * @opts: The parsed options.
 * @scale: The result.
 */
void fmb_scale_from_options(const struct bench_options *opts,
			    struct fm_scale *scale)
{
	struct bench_scale common;
	unsigned long pages = bench_scale_pages(opts, &fm_pages, &common);

	scale->mode = common.mode;
	scale->file_pages = pages;
	scale->nr_splits = pages / 32;
	scale->contig_passes = 4;
	scale->arena_bytes = (pages << UPC_PAGE_SHIFT) + BENCH_ARENA_SLACK;
	scale->rounds = common.rounds;
	scale->warmups = common.warmups;
}

/*
 * fmb_swap_init() - The swap cache rows' device: one slot per page of
 * the file, in memory (never written: the rows only move folios in and
 * out of the swap cache), over an arena that reclaims, and their folio.
 */
static void fmb_swap_init(struct fm_bench *b)
{
	unsigned long long bytes =
		(unsigned long long)b->scale.file_pages << UPC_PAGE_SHIFT;
	int err;

	err = upc_arena_create(FMB_SWAP_ARENA, &b->swap_arena);
	if (!err)
		err = upc_reclaim_init(b->swap_arena);
	if (!err)
		err = swap_device_create(b->swap_arena, -1, bytes,
					 SWAP_ADDRESS_SPACE_SHIFT, &b->si);
	if (err)
		bench_die("filemap: cannot create a %llu MiB swap device: %s",
			  bytes >> 20, strerror(-err));
	b->swap_folio = upc_arena_alloc_folio(b->swap_arena, GFP_KERNEL, 0);
	if (!b->swap_folio)
		bench_die("filemap: no folio for the swap cache rows");
	folio_trylock(b->swap_folio);
}

/* fmb_swap_free() - Destroy the device (and its shadows), the folio, the arena. */
static void fmb_swap_free(struct fm_bench *b)
{
	if (swap_device_destroy(b->si))
		bench_die("filemap: the swap cache rows' device has slots in "
			  "use");
	folio_unlock(b->swap_folio);
	folio_put(b->swap_folio);
	lru_add_drain_all(b->swap_arena);
	if (upc_arena_charged(b->swap_arena))
		bench_die("filemap: %lu pages still charged to the swap cache "
			  "rows' arena", upc_arena_charged(b->swap_arena));
	upc_reclaim_destroy(b->swap_arena);
	upc_arena_destroy(b->swap_arena);
}

/**
 * fmb_init() - Create the arena and the index sequences of a run.
 * @b: The state to fill.
 * @scale: The sizes.
 */
void fmb_init(struct fm_bench *b, const struct fm_scale *scale)
{
	struct bench_rng rng = { .state = SEED_FM_SPLIT };
	unsigned long k;
	int err;

	memset(b, 0, sizeof(*b));
	b->scale = *scale;
	err = upc_arena_create(scale->arena_bytes, &b->arena);
	if (err)
		bench_die("filemap: cannot create a %zu MiB arena: %s",
			  scale->arena_bytes >> 20, strerror(-err));
	address_space_init(&b->mapping, b->arena, NULL, 0);
	b->perm = bench_permutation(SEED_FM_PERM, scale->file_pages);
	b->split_at = bench_xcalloc(scale->nr_splits, sizeof(*b->split_at));
	for (k = 0; k < scale->nr_splits; k++)
		b->split_at[k] = (k << FMB_ORDER) +
			bench_rng_below(&rng, FMB_ORDER_PAGES);
	b->folios = bench_xcalloc(scale->file_pages, sizeof(*b->folios));
	fmb_swap_init(b);
}

/**
 * fmb_free() - Destroy the arena and free the index sequences.
 * @b: The state.
 */
void fmb_free(struct fm_bench *b)
{
	fmb_reset(b, "cleanup");
	fmb_swap_free(b);
	upc_arena_destroy(b->arena);
	free(b->perm);
	free(b->split_at);
	free(b->folios);
	memset(b, 0, sizeof(*b));
}

/**
 * fmb_reset() - Empty the mapping and check that nothing leaked.
 * @b: The state.
 * @row: The row, for messages.
 */
void fmb_reset(struct fm_bench *b, const char *row)
{
	struct address_space *mapping = &b->mapping;
	unsigned long charged;

	truncate_inode_pages(mapping, 0);
	if (mapping->nrpages || !xa_empty(&mapping->i_pages))
		bench_die("filemap %s: truncation left %lu pages%s", row,
			  mapping->nrpages, xa_empty(&mapping->i_pages) ?
			  "" : " and a non-empty tree");
	/* Folios are freed at once, not after a grace period. */
	charged = upc_arena_charged(b->arena);
	if (charged)
		bench_die("filemap %s: %lu pages still charged to the arena "
			  "after truncation (a folio reference leaked)", row,
			  charged);
	xa_destroy(&mapping->i_pages);
	upc_rcu_barrier();
}

/* digest_mix() - Fold one word into a hash (FNV-1a over words). */
static inline uint64_t digest_mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ull;
}

/**
 * fmb_digest() - Describe what a mapping holds: each folio with its
 * index, order and state, and each index a shadow covers with its value
 * (so the digest does not depend on how a shadow was split).
 * @mapping: The mapping.
 * @d: The result.
 */
void fmb_digest(struct address_space *mapping, struct fmb_digest *d)
{
	XA_STATE(xas, &mapping->i_pages, 0);
	struct folio *folio;
	void *entry;

	memset(d, 0, sizeof(*d));
	d->hash = 0xcbf29ce484222325ull;
	d->nrpages = mapping->nrpages;
	upc_rcu_read_lock();
	xas_for_each(&xas, entry, ULONG_MAX) {
		if (xas_retry(&xas, entry))
			continue;
		if (xa_is_value(entry)) {
			/*
			 * Per index, not per entry: a shadow cut into pieces
			 * holds what the same shadow split into 512 does.
			 */
			unsigned long size = 1UL << xas_get_order(&xas);
			unsigned long first = xas.xa_index & ~(size - 1);
			unsigned long i;

			for (i = first; i < first + size; i++) {
				d->entries++;
				d->shadows++;
				d->hash = digest_mix(d->hash, i);
				d->hash = digest_mix(d->hash,
						     xa_to_value(entry));
			}
			continue;
		}
		d->entries++;
		d->hash = digest_mix(d->hash, xas.xa_index);
		d->hash = digest_mix(d->hash, (uint64_t)xas_get_order(&xas));
		folio = entry;
		d->folios++;
		d->pages += folio_nr_pages(folio);
		d->hash = digest_mix(d->hash, folio->index);
		d->hash = digest_mix(d->hash, folio_order(folio));
		d->hash = digest_mix(d->hash, (uint64_t)folio_ref_count(folio));
		d->hash = digest_mix(d->hash, folio_test_referenced(folio));
		d->hash = digest_mix(d->hash, folio->mapping == mapping);
	}
	upc_rcu_read_unlock();
}

/**
 * fmb_digest_equal() - Do two digests describe the same tree?
 * @a: One.
 * @b: The other.
 *
 * Return: true if every field is equal.
 */
bool fmb_digest_equal(const struct fmb_digest *a, const struct fmb_digest *b)
{
	return a->entries == b->entries && a->folios == b->folios &&
		a->shadows == b->shadows && a->pages == b->pages &&
		a->nrpages == b->nrpages && a->hash == b->hash;
}

/*
 * fmb_check_swap() - upc_check_mapping() on every swap cache tree of the
 * swap cache rows' device, and one digest of them all.
 */
static void fmb_check_swap(struct fmb_case *fc, struct fmb_digest *d)
{
	struct swap_info_struct *si = fc->b->si;
	unsigned long i;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < si->nr_spaces; i++) {
		struct fmb_digest one;

		if (upc_check_mapping(&si->spaces[i]))
			bench_die("filemap %s: upc_check_mapping() failed on "
				  "swap cache tree %lu (above)", fc->row, i);
		fmb_digest(&si->spaces[i], &one);
		d->entries += one.entries;
		d->folios += one.folios;
		d->shadows += one.shadows;
		d->pages += one.pages;
		d->nrpages += one.nrpages;
		d->hash = digest_mix(d->hash, one.hash);
	}
}

/**
 * fmb_check_round() - The checks after every round of a row.
 * @fc: The row.
 */
void fmb_check_round(struct fmb_case *fc)
{
	struct fm_bench *b = fc->b;
	const struct fmb_digest *want = &b->want[fc->pair];
	struct fmb_digest d;

	if (fc->pair == FMB_SWAPCACHE_ADD) {
		fmb_check_swap(fc, &d);
	} else {
		if (upc_check_mapping(&b->mapping))
			bench_die("filemap %s: upc_check_mapping() failed "
				  "(above)", fc->row);
		fmb_digest(&b->mapping, &d);
	}
	if (!fc->before) {
		b->want[fc->pair] = d;
		b->have_want[fc->pair] = true;
		return;
	}
	if (!b->have_want[fc->pair])
		return;
	if (!fmb_digest_equal(&d, want))
		bench_die("filemap %s: the tree differs from the new path's: "
			  "%lu entries (%lu folios, %lu shadows), %lu pages, "
			  "nrpages %lu, hash %#llx; expected %lu (%lu, %lu), "
			  "%lu, %lu, %#llx", fc->row, d.entries, d.folios,
			  d.shadows, d.pages, d.nrpages,
			  (unsigned long long)d.hash, want->entries,
			  want->folios, want->shadows, want->pages,
			  want->nrpages, (unsigned long long)want->hash);
	b->compared[fc->pair]++;
}
