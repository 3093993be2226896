/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/fm_cases.h - the measured operations of the filemap suite.
 *
 * Every row of `upcache-bench filemap` is one of these hooks run by
 * measure.c, in pairs: the library's path ("new") and the path it
 * replaced ("before", fm_baseline.h), fed the same input in the same
 * interleaved round.  fm_suite.c gives them names, units and targets.
 *
 * They share one struct fm_bench: an arena, one mapping that every row
 * fills inside its round and empties after it (truncate_inode_pages(),
 * xa_destroy(), an RCU barrier; the arena's charge must then be 0), and
 * the index sequences that drive the rows.  The swap cache rows work on
 * a swap device of their own instead (an in-memory device over a small
 * arena that reclaims, as swap_device_create() needs; its slots are never
 * written), one slot per page of the file.  Sizes (struct fm_scale) come
 * from the mode:
 *
 *	mode	file	adds	splits	arena	rounds
 *	full	1 GiB	256K	8192	1040M	15
 *	quick	128 MiB	32K	1024	144M	9
 *	tiny	4 MiB	1024	32	20M	3
 *
 * The "file" is what the grab and contig rows fill, and the number of
 * order-0 shadows the add rows turn back into folios; --size N sets its
 * pages (rounded up to 2 MiB, at most 4 GiB).
 *
 * Results are checked, untimed, after every round: each index holds the
 * folio meant for it with the right index, order and references,
 * upc_check_mapping() passes, and a digest of the whole tree (struct
 * fmb_digest) taken after the "before" row must equal the one taken
 * after its "new" row.  A wrong answer ends the run with a message naming
 * the row (exit status 2).
 */
#ifndef UPCACHE_TOOLS_BENCH_FM_CASES_H
#define UPCACHE_TOOLS_BENCH_FM_CASES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <upcache/filemap.h>
#include <upcache/folio.h>
#include <upcache/swap.h>

#include "measure.h"
#include "options.h"

/* The order of the large folios and shadows: 2 MiB of 4 KiB pages. */
#define FMB_ORDER	UPC_MAX_ORDER
#define FMB_ORDER_PAGES	(1UL << FMB_ORDER)

/* The largest file --size may ask for: 4 GiB. */
#define FMB_MAX_FILE_PAGES	(1UL << 20)

/**
 * enum fmb_pair - the speedup pairs, each a "new" and a "before" row.
 * @FMB_ADD_SHADOW0: order-0 add over an order-0 shadow.
 * @FMB_ADD_SPLIT9: order-0 add inside an order-9 shadow.
 * @FMB_GRAB_ORDER0: populate a file with order-0 folios.
 * @FMB_GRAB_ORDER9: populate a file with order-9 folios.
 * @FMB_CONTIG_ORDER9: look up a file of order-9 folios in batches.
 * @FMB_SWAPCACHE_ADD: add an order-0 folio to the swap cache over its
 *	slot's shadow and delete it again, leaving the shadow.
 * @FMB_NR_PAIRS: how many.
 */
enum fmb_pair {
	FMB_ADD_SHADOW0,
	FMB_ADD_SPLIT9,
	FMB_GRAB_ORDER0,
	FMB_GRAB_ORDER9,
	FMB_CONTIG_ORDER9,
	FMB_SWAPCACHE_ADD,
	FMB_NR_PAIRS
};

/**
 * struct fm_scale - the sizes of one run.
 * @mode: "full", "quick" or "tiny".
 * @file_pages: Pages of the file: a multiple of FMB_ORDER_PAGES.
 * @nr_splits: Order-9 shadows split per round by the split rows.
 * @contig_passes: Passes over the file per round of the contig rows.
 * @arena_bytes: Size of the arena: the file and headroom for the
 *	allocator's per-CPU caches.
 * @rounds: Timed rounds per figure.
 * @warmups: Untimed rounds before them.
 */
struct fm_scale {
	const char *mode;
	unsigned long file_pages;
	unsigned long nr_splits;
	unsigned int contig_passes;
	size_t arena_bytes;
	unsigned int rounds;
	unsigned int warmups;
};

/**
 * struct fmb_digest - what a mapping holds, for comparing two of them.
 * @entries: Entries in i_pages (a multi-index entry once).
 * @folios: Of them, folios.
 * @shadows: Of them, value entries.
 * @pages: Indices covered by the folios.
 * @nrpages: The mapping's nrpages.
 * @hash: A hash of every entry's first index and order and, for a
 *	shadow, its value; for a folio, its index, order, references and
 *	referenced bit (not its address, which differs between runs).
 */
struct fmb_digest {
	unsigned long entries;
	unsigned long folios;
	unsigned long shadows;
	unsigned long pages;
	unsigned long nrpages;
	uint64_t hash;
};

/**
 * struct fm_bench - the state every filemap case shares.
 * @scale: The sizes of this run.
 * @arena: The memory of every folio.
 * @mapping: The mapping every row fills and empties inside its round.
 * @perm: A random permutation of 0..file_pages-1: the order of the
 *	order-0 adds.
 * @split_at: For each split range k, a random index inside
 *	[k * 512, k * 512 + 511]: where the order-0 folio goes.
 * @folios: The folios a round of an add row adds, by index (add_shadow0)
 *	or by range (add_split9).
 * @grabbed: The folios of one grab call.
 * @nr_grabbed: How many @grabbed holds.
 * @want: Per pair, the digest its "new" row left last.
 * @have_want: Per pair, whether @want is set.
 * @compared: Per pair, rounds whose trees were compared.
 * @swap_arena: The swap cache rows' arena (it reclaims).
 * @si: Their swap device: one slot per page of the file.
 * @swap_folio: The locked order-0 folio they add and delete.
 */
struct fm_bench {
	struct fm_scale scale;
	struct upc_arena *arena;
	struct address_space mapping;
	unsigned long *perm;
	unsigned long *split_at;
	struct folio **folios;
	struct folio *grabbed[FILEMAP_GRAB_MAX];
	int nr_grabbed;
	struct fmb_digest want[FMB_NR_PAIRS];
	bool have_want[FMB_NR_PAIRS];
	unsigned long compared[FMB_NR_PAIRS];
	struct upc_arena *swap_arena;
	struct swap_info_struct *si;
	struct folio *swap_folio;
};

/**
 * struct fmb_case - the argument of every hook: which row runs.
 * @b: The shared state.
 * @row: The row's name, for messages.
 * @pair: Its pair.
 * @before: true for the "before" path (fm_baseline.h).
 * @next: Grab rows: the first index the next call grabs.
 */
struct fmb_case {
	struct fm_bench *b;
	const char *row;
	enum fmb_pair pair;
	bool before;
	unsigned long next;
};

/**
 * fmb_scale_from_options() - Pick the sizes the options ask for.
 * @opts: The parsed options (--tiny, --quick, --size, --rounds).
 * @scale: The result.
 *
 * Dies (exit status 2) if --size asks for more than FMB_MAX_FILE_PAGES.
 */
void fmb_scale_from_options(const struct bench_options *opts,
			    struct fm_scale *scale);

/**
 * fmb_init() - Create the arena and the index sequences of a run.
 * @b: The state to fill.
 * @scale: The sizes; copied.
 *
 * Context: Dies (exit status 2) if the arena cannot be created.
 */
void fmb_init(struct fm_bench *b, const struct fm_scale *scale);

/**
 * fmb_free() - Destroy the arena and free the index sequences.
 * @b: The state; its mapping must be empty.
 */
void fmb_free(struct fm_bench *b);

/**
 * fmb_reset() - Empty the mapping and check that nothing leaked.
 * @b: The state.
 * @row: The row, for messages.
 *
 * truncate_inode_pages(), the checks, xa_destroy(), then an RCU barrier
 * so that the freeing of the nodes never runs inside a later timed body.
 * Dies if the mapping still counts pages or the arena still has pages
 * charged; these checks come before the barrier, which needs liburcu's
 * worker thread (a forked child has none).
 */
void fmb_reset(struct fm_bench *b, const char *row);

/**
 * fmb_digest() - Describe what a mapping holds.
 * @mapping: The mapping; nobody may change it meanwhile.
 * @d: The result.
 */
void fmb_digest(struct address_space *mapping, struct fmb_digest *d);

/**
 * fmb_digest_equal() - Do two digests describe the same tree?
 * @a: One.
 * @b: The other.
 *
 * Return: true if every field is equal.
 */
bool fmb_digest_equal(const struct fmb_digest *a, const struct fmb_digest *b);

/**
 * fmb_check_round() - The checks after every round of a row.
 * @fc: The row.
 *
 * upc_check_mapping(), then the digest (of the swap cache's trees for
 * the swap cache rows): a "new" row records it for its pair, a "before"
 * row compares it with that record.  Dies on a difference, printing
 * both digests.
 */
void fmb_check_round(struct fmb_case *fc);

/**
 * fmb_store_value() - Store a value entry over a range, whatever is there.
 * @mapping: The mapping.
 * @index: First index of the range.
 * @order: Its order.
 * @entry: The value entry (a shadow).
 * @row: The row, for messages.
 *
 * How the suite leaves shadows: under the i_pages lock, as eviction does.
 *
 * Context: Takes the i_pages lock; dies if the tree cannot grow.
 */
void fmb_store_value(struct address_space *mapping, pgoff_t index,
		     unsigned int order, void *entry, const char *row);

/*
 * The hooks of struct bench_case; @arg is a struct fmb_case.  Bodies
 * return the operations they ran: folios added (add rows; the swap cache
 * rows count an add and its delete as one) or pages looked up (contig
 * rows).  The grab rows are @run hooks that time each
 * grab call and leave the unlocking and putting of its folios untimed;
 * their operations are folios.
 */
void fmb_add0_setup(void *arg);
uint64_t fmb_add0_body(void *arg);
void fmb_add0_teardown(void *arg);
void fmb_split_setup(void *arg);
uint64_t fmb_split_body(void *arg);
void fmb_split_teardown(void *arg);
void fmb_grab_run(void *arg, struct bench_sample *s);
void fmb_contig_setup(void *arg);
uint64_t fmb_contig_body(void *arg);
void fmb_contig_teardown(void *arg);
void fmb_swap_setup(void *arg);
uint64_t fmb_swap_body(void *arg);
void fmb_swap_teardown(void *arg);

/**
 * fmb_grab_calls() - Grab calls per round of a grab row.
 * @b: The state.
 *
 * Return: The file's pages / FILEMAP_GRAB_MAX.
 */
unsigned long fmb_grab_calls(const struct fm_bench *b);

#endif /* UPCACHE_TOOLS_BENCH_FM_CASES_H */
