/* SPDX-License-Identifier: MIT */
/*
 * tests/mm/vmscan_helpers.h - what the reclaim and working set tests
 * share: an arena with a lruvec and one file-like mapping, a read that
 * fills a missing page with a pattern naming its index and checks it on
 * every hit, the lruvec's counters, and an in-memory backing store whose
 * a_ops the read path (mapping_read_folio_gfp()) and reclaim's writeback
 * use.
 */
#ifndef UPCACHE_TESTS_MM_VMSCAN_HELPERS_H
#define UPCACHE_TESTS_MM_VMSCAN_HELPERS_H

#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
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

/*
 * vm_add_folio() - Add an uptodate order-@order folio at @index of
 * @mapping, as a read of it would.  Return: it, with a reference.
 */
static inline struct folio *vm_add_folio(struct address_space *mapping,
					 pgoff_t index, unsigned int order)
{
	struct folio *folio = filemap_alloc_folio(mapping, GFP_KERNEL, order);

	assert_non_null(folio);
	assert_true(folio_trylock(folio));
	assert_int_equal(filemap_add_folio(mapping, folio, index, GFP_KERNEL),
			 0);
	folio_set_uptodate(folio);
	folio_unlock(folio);
	return folio;
}

/* Swap hooks that take nothing: only their being there matters. */
static inline int vm_refuse_swap_out(struct folio *folio, void **entryp,
				     void *priv)
{
	(void)folio;
	(void)entryp;
	(void)priv;
	return -ENOSPC;
}

static inline void vm_refuse_swap_free(struct folio *folio, void *entry,
				       void *priv)
{
	(void)folio;
	(void)entry;
	(void)priv;
}

/* vm_refusing_swap() - Those hooks, for upc_reclaim_set_swap(). */
static inline const struct upc_swap_ops *vm_refusing_swap(void)
{
	static const struct upc_swap_ops ops = {
		.swap_out = vm_refuse_swap_out,
		.swap_free = vm_refuse_swap_free,
	};

	return &ops;
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

/* ---- a file's backing store in memory (the tests' ramdisk) ----------- */

/*
 * struct vm_store - what a file-backed mapping's a_ops read and write.
 * @data: @nr_pages pages; page i starts with vm_pattern(i) until written.
 * @nr_pages: Its size; pages past it read as zeros.
 * @fail_read: Index whose reads fail with -EIO, or -1.
 * @fail_write: Non-zero: writebacks fail with -EIO.
 * @fail_write_index: Index whose folio's writebacks fail with -EIO, or -1.
 * @reads: read_folio calls (atomic).
 * @writes: Successful writeback_folio calls (atomic).
 */
struct vm_store {
	unsigned char *data;
	unsigned long nr_pages;
	long fail_read;
	int fail_write;
	long fail_write_index;
	unsigned long reads;
	unsigned long writes;
};

static inline unsigned char *vm_store_page(struct vm_store *st, pgoff_t index)
{
	return st->data + (index << UPC_PAGE_SHIFT);
}

static inline int vm_store_read_folio(struct address_space *mapping,
			       struct folio *folio)
{
	struct vm_store *st = mapping->host;
	pgoff_t i;

	__atomic_fetch_add(&st->reads, 1, __ATOMIC_RELAXED);
	if ((long)folio->index == __atomic_load_n(&st->fail_read,
						  __ATOMIC_RELAXED)) {
		folio_unlock(folio);
		return -EIO;
	}
	for (i = 0; i < folio_nr_pages(folio); i++) {
		char *to = (char *)folio_address(folio) + (i << UPC_PAGE_SHIFT);

		if (folio->index + i < st->nr_pages)
			memcpy(to, vm_store_page(st, folio->index + i),
			       UPC_PAGE_SIZE);
		else
			memset(to, 0, UPC_PAGE_SIZE);
	}
	folio_set_uptodate(folio);
	folio_unlock(folio);
	return 0;
}

static inline int vm_store_writeback_folio(struct address_space *mapping,
				    struct folio *folio)
{
	struct vm_store *st = mapping->host;
	pgoff_t i;

	if (__atomic_load_n(&st->fail_write, __ATOMIC_RELAXED) ||
	    (long)folio->index == __atomic_load_n(&st->fail_write_index,
						  __ATOMIC_RELAXED))
		return -EIO;
	for (i = 0; i < folio_nr_pages(folio); i++)
		if (folio->index + i < st->nr_pages)
			memcpy(vm_store_page(st, folio->index + i),
			       (char *)folio_address(folio) +
			       (i << UPC_PAGE_SHIFT), UPC_PAGE_SIZE);
	__atomic_fetch_add(&st->writes, 1, __ATOMIC_RELAXED);
	return 0;
}

/*
 * vm_store_setup() - vm_setup() whose mapping reads from (and, with
 * @writable, writes back to) a new @nr_pages store.
 */
static inline void vm_store_setup(struct vm_fixture *f, struct vm_store *st,
				  unsigned long arena_mib, unsigned long limit,
				  unsigned long nr_pages, bool writable)
{
	static const struct address_space_operations rw = {
		.read_folio = vm_store_read_folio,
		.writeback_folio = vm_store_writeback_folio,
	};
	/* Read-only: dirty folios of its mappings cannot be written back. */
	static const struct address_space_operations ro = {
		.read_folio = vm_store_read_folio,
	};
	pgoff_t i;

	memset(st, 0, sizeof(*st));
	st->data = calloc(nr_pages, UPC_PAGE_SIZE);
	assert_non_null(st->data);
	st->nr_pages = nr_pages;
	st->fail_read = -1;
	st->fail_write_index = -1;
	for (i = 0; i < nr_pages; i++)
		*(uint64_t *)vm_store_page(st, i) = vm_pattern(i);
	vm_setup(f, arena_mib, limit, 0);
	f->mapping.a_ops = writable ? &rw : &ro;
	f->mapping.host = st;
}

/* vm_store_teardown() - vm_teardown() and free the store. */
static inline void vm_store_teardown(struct vm_fixture *f, struct vm_store *st)
{
	vm_teardown(f);
	free(st->data);
}

/* vm_write_stamp() - Overwrite page @index's first word, dirtying it. */
static inline void vm_write_stamp(struct address_space *mapping, pgoff_t index,
				  uint64_t stamp)
{
	struct folio *folio = read_mapping_folio(mapping, index);

	assert_false(IS_ERR(folio));
	folio_lock(folio);
	*(uint64_t *)folio_address(folio) = stamp;
	folio_mark_dirty(folio);
	folio_unlock(folio);
	folio_put(folio);
}

/* The first word of page @index as mapping_read_folio_gfp() returns it. */
static inline uint64_t vm_read_word(struct address_space *mapping,
				    pgoff_t index)
{
	struct folio *folio = read_mapping_folio(mapping, index);
	uint64_t word;

	assert_false(IS_ERR(folio));
	assert_true(folio_test_uptodate(folio));
	word = *(uint64_t *)((char *)folio_address(folio) +
			     ((index - folio->index) << UPC_PAGE_SHIFT));
	folio_put(folio);
	return word;
}

#endif /* UPCACHE_TESTS_MM_VMSCAN_HELPERS_H */
