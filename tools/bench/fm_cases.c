// SPDX-License-Identifier: MIT
/*
 * tools/bench/fm_cases.c - the measured operations of the filemap suite.
 *
 * Owns every timed body of `upcache-bench filemap`, the untimed setup
 * that builds its input and the checks after it (fm_cases.h).  Each
 * hook serves both rows of its pair: the row's struct fmb_case says
 * which path (struct fmb_path) it calls, so the two rows differ in
 * nothing but the function under test.
 *
 * Conventions: @fc is the row, @b the shared state, @mapping its mapping.
 */
#include <string.h>

#include "fm_baseline.h"
#include "fm_cases.h"
#include "util.h"

/**
 * struct fmb_path - the functions a pair compares, with one signature.
 * @add: Add a locked folio (__filemap_add_folio()).
 * @grab: Get or create a run of locked folios (filemap_grab_folios()),
 *	with the preferred folio size of the "before" loop.
 * @contig: Contiguous folios from an index (filemap_get_folios_contig()).
 * @swap_add: Put a locked folio in the swap cache (add_to_swap_cache()).
 */
struct fmb_path {
	int (*add)(struct address_space *mapping, struct folio *folio,
		   pgoff_t index, gfp_t gfp, void **shadowp);
	int (*grab)(struct address_space *mapping, pgoff_t index,
		    unsigned int nr, struct folio **folios, size_t size);
	unsigned int (*contig)(struct address_space *mapping, pgoff_t *start,
			       pgoff_t end, struct folio_batch *fbatch);
	int (*swap_add)(struct swap_info_struct *si, struct folio *folio,
			swp_entry_t entry, gfp_t gfp, void **shadowp);
};

/* new_grab_folios() - filemap_grab_folios(), which needs no size hint. */
static int new_grab_folios(struct address_space *mapping, pgoff_t index,
			   unsigned int nr, struct folio **folios, size_t size)
{
	(void)size;
	return filemap_grab_folios(mapping, index, nr, folios);
}

/* By fmb_case.before: the library's paths, then the ones they replaced. */
static const struct fmb_path fmb_paths[2] = {
	{ __filemap_add_folio, new_grab_folios, filemap_get_folios_contig,
	  add_to_swap_cache },
	{ fmb_before_add_folio, fmb_before_grab_folios,
	  fmb_before_get_folios_contig, fmb_before_add_to_swap_cache },
};

/* fmb_path_of() - The functions row @fc calls. */
static inline const struct fmb_path *fmb_path_of(const struct fmb_case *fc)
{
	return &fmb_paths[fc->before];
}

/* fmb_shadow() - The shadow the suite leaves at first index @index. */
static inline void *fmb_shadow(pgoff_t index)
{
	return xa_mk_value(index + 1);
}

/* fmb_mapping_init() - Start the round's mapping: empty, with @flags. */
static void fmb_mapping_init(struct fm_bench *b, unsigned long flags)
{
	address_space_init(&b->mapping, b->arena, NULL, flags);
}

/* fmb_new_folio() - A locked folio of @order from the arena; dies if none. */
static struct folio *fmb_new_folio(struct fm_bench *b, unsigned int order,
				   const char *row)
{
	struct folio *folio = filemap_alloc_folio(&b->mapping, GFP_KERNEL,
						  order);

	if (!folio)
		bench_die("filemap %s: the %zu MiB arena has no order-%u folio "
			  "left (%lu pages charged)", row,
			  b->scale.arena_bytes >> 20, order,
			  upc_arena_charged(b->arena));
	folio_trylock(folio);
	return folio;
}

/**
 * fmb_store_value() - Store a value entry over a range, whatever is there.
 * @mapping: The mapping.
 * @index: First index of the range.
 * @order: Its order.
 * @entry: The value entry (a shadow).
 * @row: The row, for messages.
 *
 * Context: Takes the i_pages lock; dies if the tree cannot grow.
 */
void fmb_store_value(struct address_space *mapping, pgoff_t index,
		     unsigned int order, void *entry, const char *row)
{
	XA_STATE_ORDER(xas, &mapping->i_pages, index, order);

	do {
		xas_lock(&xas);
		xas_store(&xas, entry);
		xas_unlock(&xas);
	} while (xas_nomem(&xas, GFP_KERNEL));
	if (xas_error(&xas))
		bench_die("filemap %s: storing a value at %#lx failed: %s",
			  row, index, strerror(-xas_error(&xas)));
}

/* fmb_store_shadow() - Store the shadow of @index as one entry of @order. */
static void fmb_store_shadow(struct fm_bench *b, pgoff_t index,
			     unsigned int order, const char *row)
{
	fmb_store_value(&b->mapping, index, order, fmb_shadow(index), row);
}

/*
 * fmb_added() - Check an add: no error, and the shadow handed back is
 * the one the suite stored there.
 */
static inline void fmb_added(const struct fmb_case *fc, pgoff_t index,
			     int err, void *shadow, void *want)
{
	if (__builtin_expect(err != 0, 0))
		bench_die("filemap %s: adding at %#lx failed: %s", fc->row,
			  index, strerror(-err));
	if (__builtin_expect(shadow != want, 0))
		bench_die("filemap %s: adding at %#lx replaced %p, expected "
			  "shadow %p", fc->row, index, shadow, want);
}

/* fmb_expect_folio() - @index must load @folio, which starts at @first. */
static void fmb_expect_folio(const struct fmb_case *fc, pgoff_t index,
			     struct folio *folio, pgoff_t first)
{
	void *entry = xa_load(&fc->b->mapping.i_pages, index);

	if (entry != folio || folio->index != first ||
	    folio->mapping != &fc->b->mapping)
		bench_die("filemap %s: index %#lx holds %p, expected folio %p "
			  "(its index %#lx, expected %#lx)", fc->row, index,
			  entry, (void *)folio, folio->index, first);
}

/* fmb_expect_nrpages() - The mapping must count @nr pages. */
static void fmb_expect_nrpages(const struct fmb_case *fc, unsigned long nr)
{
	if (fc->b->mapping.nrpages != nr)
		bench_die("filemap %s: nrpages is %lu, expected %lu", fc->row,
			  fc->b->mapping.nrpages, nr);
}

/*
 * fmb_add_finish() - The end of an add row's round: the checks, then
 * the caller's lock and reference on each of the @nr folios go and the
 * mapping is emptied.
 */
static void fmb_add_finish(struct fmb_case *fc, unsigned long nr)
{
	struct fm_bench *b = fc->b;
	unsigned long i;

	fmb_expect_nrpages(fc, nr);
	fmb_check_round(fc);
	for (i = 0; i < nr; i++) {
		folio_unlock(b->folios[i]);
		folio_put(b->folios[i]);
		b->folios[i] = NULL;
	}
	fmb_reset(b, fc->row);
}

/* ---- add_shadow0 --------------------------------------------------------- */

/**
 * fmb_add0_setup() - Shadows at every index of the file, and a locked
 * order-0 folio for each.
 * @arg: The struct fmb_case.
 */
void fmb_add0_setup(void *arg)
{
	struct fmb_case *fc = arg;
	struct fm_bench *b = fc->b;
	unsigned long i, n = b->scale.file_pages;

	fmb_mapping_init(b, 0);
	for (i = 0; i < n; i++)
		fmb_store_shadow(b, i, 0, fc->row);
	for (i = 0; i < n; i++)
		b->folios[i] = fmb_new_folio(b, 0, fc->row);
}

/**
 * fmb_add0_body() - add_shadow0: add every folio over its shadow, in
 * random index order.
 * @arg: The struct fmb_case.
 *
 * Return: The folios added.
 */
uint64_t fmb_add0_body(void *arg)
{
	struct fmb_case *fc = arg;
	struct fm_bench *b = fc->b;
	const struct fmb_path *path = fmb_path_of(fc);
	unsigned long j, n = b->scale.file_pages;

	for (j = 0; j < n; j++) {
		pgoff_t index = b->perm[j];
		void *shadow;
		int err;

		err = path->add(&b->mapping, b->folios[index], index,
				GFP_KERNEL, &shadow);
		fmb_added(fc, index, err, shadow, fmb_shadow(index));
	}
	return n;
}

/**
 * fmb_add0_teardown() - Check every index holds its folio, then empty.
 * @arg: The struct fmb_case.
 */
void fmb_add0_teardown(void *arg)
{
	struct fmb_case *fc = arg;
	struct fm_bench *b = fc->b;
	unsigned long i;

	for (i = 0; i < b->scale.file_pages; i++)
		fmb_expect_folio(fc, i, b->folios[i], i);
	fmb_add_finish(fc, b->scale.file_pages);
}

/* ---- add_split9 ---------------------------------------------------------- */

/* fmb_split_fill() - The split rows' input: shadows and their folios. */
static void fmb_split_fill(struct fmb_case *fc)
{
	struct fm_bench *b = fc->b;
	unsigned long k;

	fmb_mapping_init(b, 0);
	for (k = 0; k < b->scale.nr_splits; k++) {
		fmb_store_shadow(b, k << FMB_ORDER, FMB_ORDER, fc->row);
		b->folios[k] = fmb_new_folio(b, 0, fc->row);
	}
}

/**
 * fmb_split_setup() - nr_splits order-9 shadows side by side, and a
 * locked order-0 folio for each, after an untimed pass of the row.
 * @arg: The struct fmb_case.
 *
 * Each split takes new tree nodes (eight when the baseline made the
 * kernel's uniform split), so the timed body depends on the state of
 * the node pool the row before it left.  Measured on the
 * quick size, whichever row of this pair ran first in a round was about
 * 15% slower than the other, swapping the order swapped the winner.  An
 * untimed pass of the row itself first gives both rows the same start.
 */
void fmb_split_setup(void *arg)
{
	struct fmb_case *fc = arg;

	fmb_split_fill(fc);
	fmb_split_body(fc);
	fmb_split_teardown(fc);
	fmb_split_fill(fc);
}

/**
 * fmb_split_body() - add_split9: add one order-0 folio at a random index
 * inside each order-9 shadow, which splits it.
 * @arg: The struct fmb_case.
 *
 * Return: The folios added.
 */
uint64_t fmb_split_body(void *arg)
{
	struct fmb_case *fc = arg;
	struct fm_bench *b = fc->b;
	const struct fmb_path *path = fmb_path_of(fc);
	unsigned long k, n = b->scale.nr_splits;

	for (k = 0; k < n; k++) {
		pgoff_t index = b->split_at[k];
		void *shadow;
		int err;

		err = path->add(&b->mapping, b->folios[k], index, GFP_KERNEL,
				&shadow);
		fmb_added(fc, index, err, shadow, fmb_shadow(k << FMB_ORDER));
	}
	return n;
}

/**
 * fmb_split_teardown() - Check each folio and the order-0 shadow next to
 * it (the rest of its split shadow), then empty.
 * @arg: The struct fmb_case.
 */
void fmb_split_teardown(void *arg)
{
	struct fmb_case *fc = arg;
	struct fm_bench *b = fc->b;
	unsigned long k;

	for (k = 0; k < b->scale.nr_splits; k++) {
		pgoff_t index = b->split_at[k], buddy = index ^ 1;
		void *entry = xa_load(&b->mapping.i_pages, buddy);

		fmb_expect_folio(fc, index, b->folios[k], index);
		if (entry != fmb_shadow(k << FMB_ORDER) ||
		    xa_get_order(&b->mapping.i_pages, buddy) != 0)
			bench_die("filemap %s: index %#lx holds %p of order %d "
				  "after the split, expected shadow %p of "
				  "order 0", fc->row, buddy, entry,
				  xa_get_order(&b->mapping.i_pages, buddy),
				  fmb_shadow(k << FMB_ORDER));
	}
	fmb_add_finish(fc, b->scale.nr_splits);
}

/* ---- grab_order0, grab_order9 ------------------------------------------ */

/* fmb_grab_order() - The order of the folios row @fc creates. */
static unsigned int fmb_grab_order(const struct fmb_case *fc)
{
	return fc->pair == FMB_GRAB_ORDER9 ? FMB_ORDER : 0;
}

/**
 * fmb_grab_calls() - Grab calls per round of a grab row.
 * @b: The state.
 *
 * Return: The number of calls.
 */
unsigned long fmb_grab_calls(const struct fm_bench *b)
{
	return b->scale.file_pages / FILEMAP_GRAB_MAX;
}

/* fmb_grab_step() - The timed part: one grab of FILEMAP_GRAB_MAX indices. */
static uint64_t fmb_grab_step(void *arg)
{
	struct fmb_case *fc = arg;
	struct fm_bench *b = fc->b;
	size_t size = UPC_PAGE_SIZE << fmb_grab_order(fc);

	b->nr_grabbed = fmb_path_of(fc)->grab(&b->mapping, fc->next,
					      FILEMAP_GRAB_MAX, b->grabbed,
					      size);
	return b->nr_grabbed > 0 ? (uint64_t)b->nr_grabbed : 0;
}

/*
 * fmb_grab_release() - Untimed, after each grab: check the folios cover
 * the run without a gap, locked, of the row's order; unlock and put
 * them; move on to the next run.
 */
static void fmb_grab_release(struct fmb_case *fc)
{
	struct fm_bench *b = fc->b;
	pgoff_t expect = fc->next;
	int i;

	if (b->nr_grabbed <= 0)
		bench_die("filemap %s: grabbing at %#lx failed: %s", fc->row,
			  fc->next, strerror(-b->nr_grabbed));
	for (i = 0; i < b->nr_grabbed; i++) {
		struct folio *folio = b->grabbed[i];

		if (folio->index != expect || folio->mapping != &b->mapping ||
		    folio_order(folio) != fmb_grab_order(fc) ||
		    !folio_test_locked(folio))
			bench_die("filemap %s: folio %d of the grab at %#lx "
				  "has index %#lx, order %u, %slocked; "
				  "expected index %#lx, order %u, locked",
				  fc->row, i,
				  fc->next, folio->index, folio_order(folio),
				  folio_test_locked(folio) ? "" : "not ",
				  expect, fmb_grab_order(fc));
		expect = folio_next_index(folio);
		folio_unlock(folio);
		folio_put(folio);
	}
	if (expect != fc->next + FILEMAP_GRAB_MAX)
		bench_die("filemap %s: the grab at %#lx covered %lu pages of "
			  "%u", fc->row, fc->next, expect - fc->next,
			  FILEMAP_GRAB_MAX);
	fc->next = expect;
}

/**
 * fmb_grab_run() - grab_order0/grab_order9 (and _loop): fill the empty
 * file with FILEMAP_GRAB_MAX indices per call.
 * @arg: The struct fmb_case.
 * @s: The round's sample: the grab calls' time, folios and counters.
 *
 * Only the calls are timed; checking, unlocking and putting what each
 * returned is not, in either row.  Then the whole file is checked and
 * the mapping emptied.
 */
void fmb_grab_run(void *arg, struct bench_sample *s)
{
	struct fmb_case *fc = arg;
	struct fm_bench *b = fc->b;
	struct bench_sample one;

	memset(s, 0, sizeof(*s));
	fmb_mapping_init(b, fmb_grab_order(fc) ? 1UL << AS_LARGE_FOLIOS : 0);
	for (fc->next = 0; fc->next < b->scale.file_pages;) {
		bench_time_body(fmb_grab_step, fc, &one);
		s->ns += one.ns;
		s->ops += one.ops;
		bench_counts_merge(&s->counts, &one.counts);
		fmb_grab_release(fc);
	}
	fmb_expect_nrpages(fc, b->scale.file_pages);
	fmb_check_round(fc);
	fmb_reset(b, fc->row);
}

/* ---- contig_order9 ------------------------------------------------------- */

/**
 * fmb_contig_setup() - Fill the file with uptodate order-9 folios.
 * @arg: The struct fmb_case.
 *
 * Both rows' files are built by the library's add: only the lookups
 * differ.
 */
void fmb_contig_setup(void *arg)
{
	struct fmb_case *fc = arg;
	struct fm_bench *b = fc->b;
	pgoff_t index;
	int err;

	fmb_mapping_init(b, 1UL << AS_LARGE_FOLIOS);
	for (index = 0; index < b->scale.file_pages; index += FMB_ORDER_PAGES) {
		struct folio *folio = fmb_new_folio(b, FMB_ORDER, fc->row);

		folio_set_uptodate(folio);
		err = filemap_add_folio(&b->mapping, folio, index, GFP_KERNEL);
		if (err)
			bench_die("filemap %s: adding an order-9 folio at %#lx "
				  "failed: %s", fc->row, index, strerror(-err));
		folio_unlock(folio);
		folio_put(folio);
	}
}

/*
 * fmb_contig_batch() - Check a batch continues the file at @expect with
 * order-9 folios and drop its references.  Return: the index after it.
 */
static pgoff_t fmb_contig_batch(const struct fmb_case *fc,
				struct folio_batch *fbatch, pgoff_t expect)
{
	unsigned int i;

	for (i = 0; i < folio_batch_count(fbatch); i++) {
		struct folio *folio = fbatch->folios[i];

		if (__builtin_expect(folio->index != expect ||
				     folio_order(folio) != FMB_ORDER, 0))
			bench_die("filemap %s: batch folio %u has index %#lx "
				  "and order %u, expected %#lx and %d", fc->row,
				  i, folio->index, folio_order(folio), expect,
				  FMB_ORDER);
		expect = folio_next_index(folio);
	}
	folio_batch_release(fbatch);
	return expect;
}

/**
 * fmb_contig_body() - contig_order9: read the whole file's folios in
 * batches, contig_passes times.
 * @arg: The struct fmb_case.
 *
 * Return: The pages covered (file pages times passes).
 */
uint64_t fmb_contig_body(void *arg)
{
	struct fmb_case *fc = arg;
	struct fm_bench *b = fc->b;
	const struct fmb_path *path = fmb_path_of(fc);
	pgoff_t last = b->scale.file_pages - 1;
	struct folio_batch fbatch;
	unsigned int pass;

	for (pass = 0; pass < b->scale.contig_passes; pass++) {
		pgoff_t start = 0, expect = 0;

		while (start <= last) {
			folio_batch_init(&fbatch);
			if (!path->contig(&b->mapping, &start, last, &fbatch))
				bench_die("filemap %s: no folio at %#lx",
					  fc->row, start);
			expect = fmb_contig_batch(fc, &fbatch, expect);
		}
		if (expect != last + 1)
			bench_die("filemap %s: the batches ended at %#lx, "
				  "expected %#lx", fc->row, expect, last + 1);
	}
	return (uint64_t)b->scale.contig_passes * b->scale.file_pages;
}

/**
 * fmb_contig_teardown() - Check the file was left as built, then empty.
 * @arg: The struct fmb_case.
 *
 * The digest includes the folios' references, so a lookup path that
 * leaked one differs from the other.
 */
void fmb_contig_teardown(void *arg)
{
	struct fmb_case *fc = arg;

	fmb_expect_nrpages(fc, fc->b->scale.file_pages);
	fmb_check_round(fc);
	fmb_reset(fc->b, fc->row);
}

/* ---- swapcache_add ------------------------------------------------------ */

/* fmb_swap_entry() - The swap entry of slot @offset of the rows' device. */
static inline swp_entry_t fmb_swap_entry(const struct fm_bench *b,
					 unsigned long offset)
{
	return swp_entry(b->si->type, offset);
}

/* fmb_swap_space() - The swap cache tree slot @offset falls in. */
static inline struct address_space *fmb_swap_space(const struct fm_bench *b,
						   unsigned long offset)
{
	return swap_address_space(b->si, fmb_swap_entry(b, offset));
}

/**
 * fmb_swap_setup() - A shadow in every slot's swap cache entry, as
 * swap-out leaves them: a round adds over each.
 * @arg: The struct fmb_case.
 *
 * The body puts every shadow back, so after the first round this only
 * rewrites what is there.
 */
void fmb_swap_setup(void *arg)
{
	struct fmb_case *fc = arg;
	struct fm_bench *b = fc->b;
	unsigned long i;

	for (i = 0; i < b->scale.file_pages; i++)
		fmb_store_value(fmb_swap_space(b, i),
				swap_cache_index(b->si, fmb_swap_entry(b, i)),
				0, fmb_shadow(i), fc->row);
}

/**
 * fmb_swap_body() - swapcache_add: for every slot, in random order, add
 * the folio to the swap cache over the slot's shadow (a swap-in's add)
 * and delete it again leaving the shadow (a swap-out's delete).
 * @arg: The struct fmb_case.
 *
 * Return: The adds (each with its delete).
 */
uint64_t fmb_swap_body(void *arg)
{
	struct fmb_case *fc = arg;
	struct fm_bench *b = fc->b;
	const struct fmb_path *path = fmb_path_of(fc);
	struct folio *folio = b->swap_folio;
	unsigned long j, n = b->scale.file_pages;

	for (j = 0; j < n; j++) {
		unsigned long offset = b->perm[j];
		void *shadow;
		int err;

		err = path->swap_add(b->si, folio, fmb_swap_entry(b, offset),
				     GFP_KERNEL, &shadow);
		fmb_added(fc, offset, err, shadow, fmb_shadow(offset));
		delete_from_swap_cache(b->si, folio, shadow);
	}
	return n;
}

/**
 * fmb_swap_teardown() - Check the folio left the swap cache with only
 * the caller's reference, every slot holds its shadow and the trees are
 * the new path's.
 * @arg: The struct fmb_case.
 */
void fmb_swap_teardown(void *arg)
{
	struct fmb_case *fc = arg;
	struct fm_bench *b = fc->b;
	struct folio *folio = b->swap_folio;
	unsigned long i;

	if (folio_test_swapcache(folio) || folio_ref_count(folio) != 1)
		bench_die("filemap %s: the folio is %sin the swap cache with "
			  "%d references after the round, expected out of it "
			  "with 1", fc->row,
			  folio_test_swapcache(folio) ? "" : "not ",
			  folio_ref_count(folio));
	for (i = 0; i < b->scale.file_pages; i++) {
		struct address_space *space = fmb_swap_space(b, i);
		pgoff_t index = swap_cache_index(b->si, fmb_swap_entry(b, i));

		if (xa_load(&space->i_pages, index) != fmb_shadow(i) ||
		    space->nrpages)
			bench_die("filemap %s: slot %lu holds %p (its tree %lu "
				  "pages), expected shadow %p and none",
				  fc->row, i, xa_load(&space->i_pages, index),
				  space->nrpages, fmb_shadow(i));
	}
	fmb_check_round(fc);
}
