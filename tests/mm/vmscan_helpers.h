/* SPDX-License-Identifier: MIT */
/*
 * tests/mm/vmscan_helpers.h - what the reclaim and working set tests
 * share: an arena with a lruvec and one file-like mapping, a read that
 * fills a missing page with a pattern naming its index and checks it on
 * every hit, and the lruvec's counters.
 */
#ifndef UPCACHE_TESTS_MM_VMSCAN_HELPERS_H
#define UPCACHE_TESTS_MM_VMSCAN_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <upcache/check.h>
#include <upcache/filemap.h>
#include <upcache/vmscan.h>

#include "../../mm/internal.h"

#define MiB		(1UL << 20)
#define PATTERN		0x5eedf00dcafe0000UL

/* One cache: an arena that reclaims and a mapping in it. */
struct vm_fixture {
	struct upc_arena *arena;
	struct address_space mapping;
};

/* vm_setup() - @arena_mib of arena, @limit pages, @as_flags mapping. */
static inline void vm_setup(struct vm_fixture *f, unsigned long arena_mib,
			    unsigned long limit, unsigned long as_flags)
{
	assert_int_equal(upc_arena_create(arena_mib * MiB, &f->arena), 0);
	assert_int_equal(upc_reclaim_init(f->arena), 0);
	assert_int_equal(upc_reclaim_set_limit(f->arena, limit), 0);
	address_space_init(&f->mapping, f->arena, NULL, as_flags);
}

/* vm_teardown() - Check, truncate, and verify nothing leaked. */
static inline void vm_teardown(struct vm_fixture *f)
{
	assert_int_equal(upc_check_mapping(&f->mapping), 0);
	truncate_inode_pages(&f->mapping, 0);
	lru_add_drain_all(f->arena);
	assert_int_equal(f->mapping.nrpages, 0);
	assert_int_equal(upc_arena_charged(f->arena), 0);
	xa_destroy(&f->mapping.i_pages);
	upc_reclaim_destroy(f->arena);
	assert_int_equal(upc_arena_check(f->arena), 0);
	upc_arena_destroy(f->arena);
}

static inline uint64_t vm_pattern(pgoff_t index)
{
	return PATTERN ^ index;
}

/*
 * vm_read() - Read page @index like a read(2) would: find or create the
 * folio (marked accessed), fill it with the pattern on a miss, check the
 * pattern.  Return: the folio (referenced, unlocked) or NULL on -ENOMEM;
 * *@miss says whether it had to be filled.
 */
static inline struct folio *vm_read(struct address_space *mapping,
				    pgoff_t index, bool *miss)
{
	struct folio *folio;
	uint64_t *word;

	*miss = false;
	folio = __filemap_get_folio(mapping, index,
				    FGP_LOCK | FGP_ACCESSED | FGP_CREAT,
				    GFP_KERNEL);
	if (IS_ERR(folio))
		return NULL;
	word = (uint64_t *)((char *)folio_address(folio) +
			    ((index - folio->index) << UPC_PAGE_SHIFT));
	*miss = !folio_test_uptodate(folio);
	if (*miss) {
		pgoff_t i;

		for (i = 0; i < folio_nr_pages(folio); i++)
			*(uint64_t *)((char *)folio_address(folio) +
				      (i << UPC_PAGE_SHIFT)) =
				vm_pattern(folio->index + i);
		folio_set_uptodate(folio);
	}
	folio_unlock(folio);
	assert_true(*word == vm_pattern(index));
	return folio;
}

/* vm_read_range() - vm_read() of [@first, @first + @nr).  Return: misses. */
static inline unsigned long vm_read_range(struct address_space *mapping,
					  pgoff_t first, unsigned long nr)
{
	unsigned long misses = 0;
	pgoff_t i;

	for (i = first; i < first + nr; i++) {
		bool miss;
		struct folio *folio = vm_read(mapping, i, &miss);

		assert_non_null(folio);
		misses += miss;
		folio_put(folio);
	}
	return misses;
}

static inline struct upc_reclaim_stats vm_stats(struct upc_arena *arena)
{
	struct upc_reclaim_stats st;

	assert_int_equal(upc_reclaim_stats_read(arena, &st), 0);
	return st;
}

/*
 * vm_assert_lru_consistent() - After a drain, every cached page is on a
 * file list exactly once (no folio leaked off the LRU or listed twice).
 */
static inline void vm_assert_lru_consistent(struct vm_fixture *f)
{
	struct upc_reclaim_stats st;

	lru_add_drain_all(f->arena);
	st = vm_stats(f->arena);
	assert_int_equal(st.nr_inactive_file + st.nr_active_file,
			 f->mapping.nrpages);
	assert_int_equal(upc_check_mapping(&f->mapping), 0);
}

#endif /* UPCACHE_TESTS_MM_VMSCAN_HELPERS_H */
