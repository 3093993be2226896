// SPDX-License-Identifier: MIT
/*
 * tests/mm/test_anon.c - anonymous regions (mm/anon.c) and their trips
 * through swap (mm/swap_state.c): swap-out by reclaim under the arena's
 * limit, swap-in when a page is touched again, single threaded.
 *
 * Each test builds an arena that reclaims with a limit of 512 pages
 * (vmscan_helpers.h), optionally a swap device, and a region, and keeps
 * a model of the region's bytes: every write goes to both, and
 * an_verify() reads the whole region back and compares.  an_fini()
 * checks the region and the device with upc_check_anon() and
 * upc_check_swap(), destroys the region and asserts that every slot and
 * every page came back and that no shadow stayed in the swap cache.
 * The I/O error cases use a swap file whose descriptor the test
 * controls (read-only, or truncated under a swapped-out page).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vmscan_helpers.h"

#include <upcache/err.h>
#include <upcache/swap.h>

#include "fault.h"
#include "mm/swap_internal.h"
#include "io/fd.h"
#include "rand.h"

#define PAGE		UPC_PAGE_SIZE
#define LIMIT		512UL		/* the smallest limit reclaim takes */
#define CLUSTER_BYTES	((unsigned long long)SWAPFILE_CLUSTER * PAGE)

/**
 * struct an_env - a region, the arena it lives in, maybe a device.
 * @f: The arena (and an unused file mapping).
 * @si: The swap device, or NULL.
 * @region: The region.
 * @model: What the region must read as.
 */
struct an_env {
	struct vm_fixture f;
	struct swap_info_struct *si;
	struct anon_region region;
	unsigned char *model;
};

/* The byte @seed puts at @pos: never 0, so a lost write shows. */
static unsigned char an_byte(uint64_t pos, unsigned int seed)
{
	uint64_t x = (pos + 1) * 0x9e3779b97f4a7c15ull ^ seed;

	return (unsigned char)((x >> 32) ^ (x >> 17)) | 1;
}

/*
 * an_init() - A region of @size bytes in an arena of LIMIT pages, with a
 * swap device of @swap bytes on @fd (@swap 0: none).
 */
static void an_init_fd(struct an_env *env, uint64_t size,
		       unsigned long long swap, int fd)
{
	memset(env, 0, sizeof(*env));
	vm_setup(&env->f, 16, LIMIT, 0);
	if (swap)
		assert_int_equal(swap_device_create(env->f.arena, fd, swap,
						    SWAP_ADDRESS_SPACE_SHIFT,
						    &env->si), 0);
	anon_region_init(&env->region, env->f.arena, size);
	env->model = calloc(1, size);
	assert_non_null(env->model);
}

static void an_init(struct an_env *env, uint64_t size, unsigned long long swap)
{
	an_init_fd(env, size, swap, -1);
}

static void an_check(struct an_env *env)
{
	assert_int_equal(upc_check_anon(&env->region), 0);
	if (env->si)
		assert_int_equal(upc_check_swap(env->si), 0);
}

/* an_destroy() - Destroy the region; every page and slot comes back. */
static void an_destroy(struct an_env *env)
{
	struct swap_cache_info info;

	an_check(env);
	anon_region_destroy(&env->region);
	assert_true(xa_empty(&env->region.mapping.i_pages));
	assert_int_equal(env->region.mapping.nrpages, 0);
	lru_add_drain_all(env->f.arena);
	assert_int_equal(upc_arena_charged(env->f.arena), 0);
	if (env->si) {
		assert_int_equal(env->si->inuse_pages, 0);
		swap_cache_info(env->si, &info);
		assert_int_equal(info.nr_entries, 0);
		assert_int_equal(upc_check_swap(env->si), 0);
	}
	free(env->model);
	env->model = NULL;
}

static void an_fini(struct an_env *env)
{
	if (env->model)
		an_destroy(env);
	if (env->si)
		assert_int_equal(swap_device_destroy(env->si), 0);
	vm_teardown(&env->f);
}

/* Bytes of [@pos, @pos + @len) that lie inside the region. */
static size_t an_clip(struct an_env *env, uint64_t pos, size_t len)
{
	if (pos >= env->region.size)
		return 0;
	return len < env->region.size - pos ? len :
					      (size_t)(env->region.size - pos);
}

/*
 * an_write_ret() - Write @len bytes of pattern @seed at @pos; apply what
 * was written to the model.  Return: what the write returned.
 */
static ssize_t an_write_ret(struct an_env *env, uint64_t pos, size_t len,
			    unsigned int seed)
{
	unsigned char *buf = malloc(len ? len : 1);
	ssize_t ret;
	size_t i;

	assert_non_null(buf);
	for (i = 0; i < len; i++)
		buf[i] = an_byte(pos + i, seed);
	ret = anon_region_write(&env->region, buf, len, pos);
	if (ret > 0) {
		assert_true((size_t)ret <= an_clip(env, pos, len));
		memcpy(env->model + pos, buf, (size_t)ret);
	}
	free(buf);
	return ret;
}

/* an_write() - an_write_ret() that must write everything in the region. */
static void an_write(struct an_env *env, uint64_t pos, size_t len,
		     unsigned int seed)
{
	assert_int_equal(an_write_ret(env, pos, len, seed),
			 (ssize_t)an_clip(env, pos, len));
}

/* an_verify_range() - [@pos, @pos + @len) reads as the model says. */
static void an_verify_range(struct an_env *env, uint64_t pos, size_t len)
{
	unsigned char *buf = malloc(len ? len : 1);
	size_t i, want = an_clip(env, pos, len);

	assert_non_null(buf);
	memset(buf, 0xee, len);
	assert_int_equal(anon_region_read(&env->region, buf, len, pos),
			 (ssize_t)want);
	for (i = 0; i < want; i++)
		if (buf[i] != env->model[pos + i])
			fail_msg("byte %lu: %#x, expected %#x",
				 (unsigned long)(pos + i), buf[i],
				 env->model[pos + i]);
	free(buf);
}

/* an_verify() - The whole region, a chunk at a time. */
static void an_verify(struct an_env *env)
{
	const size_t chunk = 61 * PAGE + 123;	/* not page-aligned */
	uint64_t pos;

	for (pos = 0; pos < env->region.size; pos += chunk)
		an_verify_range(env, pos, chunk);
}

/* Count the region's pages by kind: in memory and swapped out. */
static void an_count(struct an_env *env, unsigned long *resident,
		     unsigned long *swapped)
{
	XA_STATE(xas, &env->region.mapping.i_pages, 0);
	void *entry;

	*resident = *swapped = 0;
	xa_lock(&env->region.mapping.i_pages);
	xas_for_each(&xas, entry, ULONG_MAX) {
		if (xa_is_value(entry))
			(*swapped)++;
		else
			*resident += folio_nr_pages(entry);
	}
	xa_unlock(&env->region.mapping.i_pages);
}

/* Does page @index's folio keep its swap slots (PG_swapslot)? */
static bool folio_kept(struct an_env *env, unsigned long index)
{
	void *entry = xa_load(&env->region.mapping.i_pages, index);

	return entry && !xa_is_value(entry) &&
	       folio_test_swapslot((struct folio *)entry);
}

/* Write every page of the region with pattern @seed, a page at a time. */
static void an_write_all(struct an_env *env, unsigned int seed)
{
	uint64_t pos;

	for (pos = 0; pos < env->region.size; pos += PAGE)
		an_write(env, pos, PAGE, seed);
}

/* ---- without swap ---------------------------------------------------------- */

/* Pages never written read as zeros, and reading does not allocate. */
static void test_anon_zero_reads(void **state)
{
	unsigned char buf[3 * PAGE];
	struct an_env env;
	size_t i;

	(void)state;
	an_init(&env, 10 * PAGE + 100, 0);
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(anon_region_read(&env.region, buf, sizeof(buf), 5),
			 (ssize_t)sizeof(buf));
	for (i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0);
	an_verify(&env);
	assert_int_equal(env.region.mapping.nrpages, 0);
	assert_true(xa_empty(&env.region.mapping.i_pages));
	assert_int_equal(upc_arena_charged(env.f.arena), 0);
	/* Clipped at the end; nothing at or past it; nothing for 0 bytes. */
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(anon_region_read(&env.region, buf, sizeof(buf),
					  10 * PAGE), 100);
	assert_int_equal(buf[99], 0);
	assert_int_equal(buf[100], 0xee);
	assert_int_equal(anon_region_read(&env.region, buf, 1, 10 * PAGE + 100),
			 0);
	assert_int_equal(anon_region_read(&env.region, buf, 1, UINT64_MAX), 0);
	assert_int_equal(anon_region_read(&env.region, buf, 0, 0), 0);
	assert_int_equal(upc_arena_charged(env.f.arena), 0);
	an_fini(&env);
}

/* Writes land where they were aimed, across pages, and nowhere else. */
static void test_anon_write_read(void **state)
{
	unsigned long resident, swapped;
	struct an_env env;

	(void)state;
	an_init(&env, 20 * PAGE + 100, 0);
	an_write(&env, PAGE - 6, 10, 1);		/* straddles pages 0, 1 */
	an_write(&env, 5 * PAGE + 100, 3 * PAGE, 2);	/* pages 5 to 8 */
	an_write(&env, 6 * PAGE + 7, 9, 3);		/* over it */
	an_write(&env, 12 * PAGE, PAGE, 4);		/* one whole page */
	an_verify(&env);
	an_count(&env, &resident, &swapped);
	assert_int_equal(resident, 7);
	assert_int_equal(swapped, 0);
	assert_null(xa_load(&env.region.mapping.i_pages, 2));
	assert_null(xa_load(&env.region.mapping.i_pages, 9));
	assert_int_equal(upc_arena_charged(env.f.arena), 7);
	/* Clipped at the end: the last, partial page is the region's. */
	assert_int_equal(an_write_ret(&env, 20 * PAGE + 95, 20, 5), 5);
	assert_int_equal(an_write_ret(&env, 20 * PAGE + 100, 20, 6), 0);
	assert_int_equal(an_write_ret(&env, UINT64_MAX - 3, 2, 6), 0);
	assert_int_equal(an_write_ret(&env, 0, 0, 6), 0);
	an_count(&env, &resident, &swapped);
	assert_int_equal(resident, 8);
	an_verify(&env);
	an_check(&env);
	/* The checker: page 12 must lie inside the region. */
	env.region.size = 12 * PAGE;
	assert_int_equal(upc_check_anon(&env.region), -EUCLEAN);
	env.region.size = 20 * PAGE + 100;
	an_fini(&env);
}

/* Without swap, memory runs out: -ENOMEM, and nothing is corrupted. */
static void test_anon_no_swap_enomem(void **state)
{
	unsigned long resident, swapped, pages = 0;
	struct an_env env;
	ssize_t ret;
	uint64_t pos;

	(void)state;
	an_init(&env, 2 * LIMIT * PAGE, 0);
	for (pos = 0; pos < env.region.size; pos += PAGE) {
		ret = an_write_ret(&env, pos, PAGE, 1);
		if (ret < 0) {
			assert_int_equal(ret, -ENOMEM);
			break;
		}
		assert_int_equal(ret, PAGE);
		pages++;
	}
	/* Every page of the limit went to the region, and no more. */
	assert_int_equal(pages, LIMIT);
	assert_int_equal(upc_arena_charged(env.f.arena), LIMIT);
	/* A write over written pages and into new ones is cut short. */
	assert_int_equal(an_write_ret(&env, (LIMIT - 2) * PAGE + 1, 3 * PAGE, 2),
			 2 * PAGE - 1);
	assert_int_equal(an_write_ret(&env, LIMIT * PAGE, 1, 2), -ENOMEM);
	/* Reads need no memory: all of it, holes included, is intact. */
	an_verify(&env);
	an_count(&env, &resident, &swapped);
	assert_int_equal(resident, LIMIT);
	assert_int_equal(swapped, 0);
	an_fini(&env);
}

/* ---- swap-out and swap-in ---------------------------------------------------- */

/*
 * A region three times the limit: reclaim swaps out what does not fit,
 * every page reads back, each swapped-out page exactly once as a slot.
 */
static void test_anon_swap_round_trip(void **state)
{
	unsigned long resident, swapped, pages = 3 * LIMIT;
	struct upc_reclaim_stats st0, st1;
	struct an_env env;

	(void)state;
	an_init(&env, pages * PAGE, 8 * CLUSTER_BYTES);
	an_write_all(&env, 7);
	st0 = vm_stats(env.f.arena);
	an_count(&env, &resident, &swapped);
	assert_int_equal(resident + swapped, pages);
	assert_true(swapped >= pages - LIMIT);
	/* One slot per swapped-out page; every write counted. */
	assert_int_equal(env.si->inuse_pages, swapped);
	assert_int_equal(env.si->pswpout, st0.pswpout);
	assert_int_equal(st0.pswpout, swapped);
	assert_int_equal(st0.pgsteal, st0.pswpout);
	an_check(&env);

	/* Reading swaps in; data intact; the slot goes back. */
	an_verify(&env);
	st1 = vm_stats(env.f.arena);
	assert_true(env.si->pswpin >= swapped);
	an_count(&env, &resident, &swapped);
	assert_int_equal(env.si->inuse_pages, swapped);
	/*
	 * Every swap-in met its shadow, unless reclaim freed the node that
	 * held it (more likely with a small XA_CHUNK_SHIFT: more nodes).
	 */
	if (st1.workingset_nodereclaim == st0.workingset_nodereclaim)
		assert_int_equal(st1.workingset_refault - st0.workingset_refault,
				 env.si->pswpin);
	assert_true(st1.workingset_refault - st0.workingset_refault <=
		    env.si->pswpin);
	an_check(&env);

	/* Overwrite part of every third page: swapped in, then changed. */
	{
		uint64_t pos;

		for (pos = 0; pos < env.region.size; pos += 3 * PAGE)
			an_write(&env, pos + 1000, 100, 8);
	}
	an_verify(&env);
	an_fini(&env);
}

/* The shadow the swap cache holds for a swapped-out page, or NULL. */
static void *an_shadow(struct an_env *env, pgoff_t index)
{
	void *value = xa_load(&env->region.mapping.i_pages, index);
	swp_entry_t entry;

	if (!xa_is_value(value))
		return NULL;
	entry = radix_to_swp_entry(value);
	return xa_load(&swap_address_space(env->si, entry)->i_pages,
		       swap_cache_index(env->si, entry));
}

/* Swapping in puts the folio in the region and frees the slot. */
static void test_anon_swap_in_one(void **state)
{
	struct upc_reclaim_stats st0, st1;
	unsigned long inuse;
	swp_entry_t entry;
	struct an_env env;
	pgoff_t index;
	void *value;

	(void)state;
	an_init(&env, 2 * LIMIT * PAGE, 4 * CLUSTER_BYTES);
	an_write_all(&env, 2);
	/* Room, so that the swap-in reclaims nothing (no shadow goes). */
	assert_true(upc_reclaim_pages(env.f.arena, UPC_RECLAIM_BATCH) > 0);
	st0 = vm_stats(env.f.arena);
	/*
	 * The last page swapped out: its shadow is the newest, the last
	 * one reclaim would free to bound the shadow nodes.
	 */
	for (index = 2 * LIMIT - 1; index > 0; index--)
		if (xa_is_value(xa_load(&env.region.mapping.i_pages, index)))
			break;
	value = xa_load(&env.region.mapping.i_pages, index);
	assert_true(xa_is_value(value));
	entry = radix_to_swp_entry(value);
	assert_ptr_equal(swap_info_get(entry), env.si);
	assert_int_equal(env.si->swap_map[swp_offset(entry)], 1);
	/* Its shadow waits in the swap cache. */
	assert_true(xa_is_value(an_shadow(&env, index)));
	inuse = env.si->inuse_pages;

	an_verify_range(&env, index * PAGE + 10, 20);
	/* It met its shadow: one refault, one page read, nothing evicted. */
	st1 = vm_stats(env.f.arena);
	assert_int_equal(st1.workingset_refault - st0.workingset_refault, 1);
	assert_int_equal(env.si->pswpin, 1);
	assert_int_equal(st1.pgsteal, st0.pgsteal);
	assert_false(xa_is_value(xa_load(&env.region.mapping.i_pages, index)));
	assert_int_equal(env.si->swap_map[swp_offset(entry)], 0);
	assert_null(xa_load(&swap_address_space(env.si, entry)->i_pages,
			    swap_cache_index(env.si, entry)));
	assert_int_equal(env.si->inuse_pages, inuse - 1);
	an_check(&env);
	an_verify(&env);
	an_fini(&env);
}

/* swapin_folio() on its own: an entry of no device, a stale entry. */
static void test_anon_swapin_folio_errors(void **state)
{
	unsigned long inuse;
	swp_entry_t entry;
	struct folio *folio;
	struct an_env env;
	void *value, *shadow;

	(void)state;
	an_init(&env, 2 * LIMIT * PAGE, 4 * CLUSTER_BYTES);
	an_write_all(&env, 3);
	folio = swapin_folio(&env.region.mapping, 0,
			     swp_to_radix_entry(swp_entry(MAX_SWAPFILES - 1, 0)),
			     GFP_KERNEL);
	assert_ptr_equal(folio, ERR_PTR(-EINVAL));
	folio = swapin_folio(&env.region.mapping, 0,
			     swp_to_radix_entry(swp_entry(env.si->type,
							  env.si->max)),
			     GFP_KERNEL);
	assert_ptr_equal(folio, ERR_PTR(-EINVAL));

	/* Room, so that no reclaim takes the shadow looked at below. */
	assert_true(upc_reclaim_pages(env.f.arena, UPC_RECLAIM_BATCH) > 0);
	/* The entry of page 0, offered for page 1: not there, look again. */
	value = xa_load(&env.region.mapping.i_pages, 0);
	assert_true(xa_is_value(value));
	entry = radix_to_swp_entry(value);
	shadow = an_shadow(&env, 0);
	inuse = env.si->inuse_pages;
	folio = swapin_folio(&env.region.mapping, 1, value, GFP_KERNEL);
	assert_ptr_equal(folio, ERR_PTR(-EAGAIN));
	/*
	 * Nothing changed: the stale entry is seen before the slot is
	 * pinned, so its shadow, the slot and both pages are as they were.
	 */
	assert_non_null(shadow);
	assert_int_equal(env.si->swap_map[swp_offset(entry)], 1);
	assert_ptr_equal(an_shadow(&env, 0), shadow);
	assert_ptr_equal(xa_load(&env.region.mapping.i_pages, 0), value);
	assert_true(xa_is_value(xa_load(&env.region.mapping.i_pages, 1)));
	assert_int_equal(env.si->inuse_pages, inuse);
	an_check(&env);

	/* The right index: the folio, in the region, referenced. */
	folio = swapin_folio(&env.region.mapping, 0, value, GFP_KERNEL);
	assert_false(IS_ERR(folio));
	assert_ptr_equal(xa_load(&env.region.mapping.i_pages, 0), folio);
	assert_ptr_equal(folio->mapping, &env.region.mapping);
	assert_int_equal(folio->index, 0);
	assert_false(folio_test_swapcache(folio));
	assert_true(folio_test_swapbacked(folio));
	assert_true(folio_test_uptodate(folio));
	assert_int_equal(*(unsigned char *)folio_address(folio), env.model[0]);
	folio_put(folio);
	/* Again with the old value: the page is in memory now. */
	assert_ptr_equal(swapin_folio(&env.region.mapping, 0, value, GFP_KERNEL),
			 ERR_PTR(-EAGAIN));
	an_verify(&env);
	an_fini(&env);
}

/*
 * Folios someone holds a reference on are written to swap by reclaim
 * but cannot be evicted: they stay, and their slots go back (through
 * struct upc_swap_ops.swap_free) with their shadows.
 */
static void test_anon_swap_out_held(void **state)
{
	struct upc_reclaim_stats st;
	unsigned long resident, swapped;
	struct folio *held[8];
	struct an_env env;
	unsigned int i;

	(void)state;
	an_init(&env, 64 * PAGE, 4 * CLUSTER_BYTES);
	an_write_all(&env, 11);
	for (i = 0; i < 8; i++) {
		held[i] = filemap_get_entry(&env.region.mapping, i * 5);
		assert_non_null(held[i]);
		assert_false(xa_is_value(held[i]));
	}
	lru_add_drain_all(env.f.arena);
	upc_reclaim_pages(env.f.arena, 64);
	st = vm_stats(env.f.arena);
	an_count(&env, &resident, &swapped);
	assert_int_equal(resident, 8);
	assert_int_equal(swapped, 56);
	for (i = 0; i < 8; i++)
		assert_ptr_equal(xa_load(&env.region.mapping.i_pages, i * 5),
				 held[i]);
	/* Written, but not evicted: only the evicted keep slots. */
	assert_int_equal(st.pswpout, 56);
	assert_true(env.si->pswpout >= 64);
	assert_int_equal(env.si->inuse_pages, 56);
	an_check(&env);
	for (i = 0; i < 8; i++)
		folio_put(held[i]);
	/* Unheld, they go at the next reclaim like the others. */
	upc_reclaim_pages(env.f.arena, 64);
	an_count(&env, &resident, &swapped);
	assert_int_equal(resident, 0);
	assert_int_equal(env.si->inuse_pages, 64);
	an_verify(&env);
	an_fini(&env);
}

/* Memory and swap both full: writes fail; freeing space heals it. */
static void test_anon_swap_full(void **state)
{
	struct anon_region other;
	unsigned long pages = 0;
	struct an_env env;
	char byte = 'x';
	uint64_t pos;
	ssize_t ret;

	(void)state;
	an_init(&env, 4 * LIMIT * PAGE, CLUSTER_BYTES);
	/* A small region written first: the oldest, so swapped out first. */
	anon_region_init(&other, env.f.arena, 64 * PAGE);
	for (pos = 0; pos < other.size; pos += PAGE)
		assert_int_equal(anon_region_write(&other, &byte, 1, pos), 1);
	for (pos = 0; pos < env.region.size; pos += PAGE) {
		ret = an_write_ret(&env, pos, PAGE, 4);
		if (ret < 0) {
			assert_int_equal(ret, -ENOMEM);
			break;
		}
		pages++;
	}
	/* Every page of memory and every slot is used, and no more. */
	assert_true(pos < env.region.size);
	assert_int_equal(env.si->inuse_pages, SWAPFILE_CLUSTER);
	assert_int_equal(pages + 64, LIMIT + SWAPFILE_CLUSTER);
	assert_int_equal(upc_arena_charged(env.f.arena), LIMIT);
	an_check(&env);
	assert_int_equal(upc_check_anon(&other), 0);
	/* The other region's memory and slots make room to swap in. */
	anon_region_destroy(&other);
	an_verify(&env);
	an_fini(&env);
}

/* ---- I/O errors (a swap file) ---------------------------------------------- */

static int an_tmpfile(void)
{
	char path[] = "/tmp/upc_test_anon_XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(unlink(path), 0);
	return fd;
}

/* Swap-out cannot write: the folios stay, and no slot leaks. */
static void test_anon_swap_out_write_error(void **state)
{
	unsigned long resident, swapped;
	struct an_env env;
	char path[64];
	int fd = an_tmpfile(), ro;
	uint64_t pos;
	ssize_t ret = 0;

	(void)state;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ro = open(path, O_RDONLY);
	assert_true(ro >= 0);
	an_init_fd(&env, 2 * LIMIT * PAGE, 4 * CLUSTER_BYTES, ro);
	for (pos = 0; pos < env.region.size && ret >= 0; pos += PAGE)
		ret = an_write_ret(&env, pos, PAGE, 5);
	assert_int_equal(ret, -ENOMEM);
	assert_int_equal(env.si->inuse_pages, 0);
	assert_int_equal(env.si->pswpout, 0);
	assert_int_equal(vm_stats(env.f.arena).pswpout, 0);
	an_count(&env, &resident, &swapped);
	assert_int_equal(resident, LIMIT);
	assert_int_equal(swapped, 0);
	an_verify(&env);
	an_fini(&env);
	close(ro);
	close(fd);
}

/*
 * Reclaim hands a batch of a region's pages to the swap layer at once
 * (struct upc_swap_ops.swap_out_folios), which gives them consecutive
 * slots and writes neighbours together: 64 pages written in order go to
 * a swap file in 64 / SWAP_WRITE_RUN system calls (64, one per page,
 * before), and read back as written.
 */
static void test_anon_swap_out_batched_writes(void **state)
{
	struct io_counters *io = io_thread_counters();
	unsigned long resident, swapped;
	int fd = an_tmpfile();
	struct an_env env;
	uint64_t syscalls;

	(void)state;
	an_init_fd(&env, LIMIT / 2 * PAGE, 4 * CLUSTER_BYTES, fd);
	an_write_all(&env, 12);
	lru_add_drain_all(env.f.arena);
	syscalls = io->syscalls;
	assert_int_equal(upc_reclaim_pages(env.f.arena, 64), 64);
	assert_int_equal(io->syscalls - syscalls, 64 / SWAP_WRITE_RUN);
	an_count(&env, &resident, &swapped);
	assert_int_equal(swapped, 64);
	assert_int_equal(env.si->pswpout, 64);
	assert_int_equal(vm_stats(env.f.arena).pswpout, 64);
	an_check(&env);
	an_verify(&env);
	an_fini(&env);
	close(fd);
}

/*
 * an_read_pass() - Read every page of the region once, a page at a time,
 * forwards or backwards, checking it; with room for all of it, so that
 * nothing is swapped out meanwhile.  *@reads gets the system calls made
 * (all reads of the swap file), *@pages the pages swapped in.
 */
static void an_read_pass(struct an_env *env, bool forwards, uint64_t *reads,
			 uint64_t *pages)
{
	struct io_counters *io = io_thread_counters();
	unsigned long i, n = env->region.size / PAGE;
	uint64_t syscalls = io->syscalls, pswpin = env->si->pswpin;

	for (i = 0; i < n; i++)
		an_verify_range(env, (forwards ? i : n - 1 - i) * PAGE, PAGE);
	*reads = io->syscalls - syscalls;
	*pages = env->si->pswpin - pswpin;
}

/*
 * Swap readahead: reading a region in order reads the pages after each
 * one swapped in with it, in windows that double to SWAP_RA_MAX, one
 * system call each; pages read ahead are each read once.  The region
 * swapped out again keeps its pages in slot order, so the next pass
 * reads ahead as well.  Reading backwards reads nothing ahead.
 */
static void test_anon_swap_readahead(void **state)
{
	unsigned long resident, swapped, round;
	uint64_t reads, pages;
	int fd = an_tmpfile();
	struct an_env env;

	(void)state;
	an_init_fd(&env, 2 * LIMIT * PAGE, 8 * CLUSTER_BYTES, fd);
	an_write_all(&env, 13);
	for (round = 0; round < 2; round++) {
		an_count(&env, &resident, &swapped);
		assert_true(swapped >= LIMIT / 2);
		assert_int_equal(upc_reclaim_set_limit(env.f.arena, 4 * LIMIT),
				 0);
		an_read_pass(&env, true, &reads, &pages);
		assert_int_equal(pages, swapped);
		/* Windows of 1, 2, 4, then 8 pages. */
		if (reads > swapped / SWAP_RA_MAX + 4)
			fail_msg("round %lu: %lu pages in %lu reads", round,
				 swapped, (unsigned long)reads);
		an_check(&env);
		/* Out again, oldest first: in the order they were read. */
		assert_int_equal(upc_reclaim_set_limit(env.f.arena, LIMIT), 0);
		lru_add_drain_all(env.f.arena);
		assert_true(upc_reclaim_pages(env.f.arena, LIMIT) > 0);
	}
	an_count(&env, &resident, &swapped);
	assert_int_equal(upc_reclaim_set_limit(env.f.arena, 4 * LIMIT), 0);
	an_read_pass(&env, false, &reads, &pages);
	assert_int_equal(pages, swapped);
	assert_int_equal(reads, swapped);
	an_check(&env);
	an_fini(&env);
	close(fd);
}

/*
 * Pages swapped in from a swap file less than half in use keep their
 * slots (PG_swapslot, counted in nr_kept): swapped out again unwritten
 * they go back with no write at all; a write frees a page's kept slot
 * first; destroying the region frees the rest.  A swap-in while the
 * device is half in use keeps nothing.
 */
static void test_anon_swap_keeps_clean_copy(void **state)
{
	struct io_counters *io = io_thread_counters();
	unsigned long resident, swapped, kept;
	uint64_t syscalls, pswpout, reads, pages;
	int fd = an_tmpfile();
	struct an_env env;

	(void)state;
	an_init_fd(&env, 2 * LIMIT * PAGE, 8 * CLUSTER_BYTES, fd);
	an_write_all(&env, 14);
	an_count(&env, &resident, &swapped);
	assert_true(swapped >= LIMIT / 2);
	assert_int_equal(upc_reclaim_set_limit(env.f.arena, 4 * LIMIT), 0);
	an_read_pass(&env, true, &reads, &pages);
	assert_int_equal(pages, swapped);
	kept = swapped;
	assert_int_equal(env.si->nr_kept, kept);
	assert_int_equal(env.si->inuse_pages, kept);
	an_check(&env);

	/* Out again: no write, the same slots. */
	assert_int_equal(upc_reclaim_set_limit(env.f.arena, LIMIT), 0);
	lru_add_drain_all(env.f.arena);
	syscalls = io->syscalls;
	pswpout = env.si->pswpout;
	assert_true(upc_reclaim_pages(env.f.arena, LIMIT) > 0);
	an_count(&env, &resident, &swapped);
	assert_true(swapped >= kept);
	assert_int_equal(env.si->pswpout - pswpout, swapped - kept +
			 env.si->nr_kept);
	assert_int_equal(io->syscalls - syscalls == 0, swapped == kept);
	assert_int_equal(env.si->inuse_pages, swapped + env.si->nr_kept);
	an_check(&env);
	an_verify(&env);
	an_check(&env);

	/* A write, even of one byte, frees a kept slot first. */
	an_count(&env, &resident, &swapped);
	kept = env.si->nr_kept;
	assert_true(kept > 0);
	{
		unsigned long i;

		for (i = 0; !folio_kept(&env, i); i++)
			;
		an_write(&env, i * PAGE + 5, 1, 15);
	}
	assert_int_equal(env.si->nr_kept, kept - 1);
	assert_int_equal(env.si->inuse_pages, swapped + kept - 1);
	an_verify(&env);
	an_fini(&env);		/* every slot back: the kept ones too */
	close(fd);

	/* Half in use: nothing kept. */
	fd = an_tmpfile();
	an_init_fd(&env, 2 * LIMIT * PAGE, 2 * LIMIT * PAGE, fd);
	an_write_all(&env, 16);
	an_count(&env, &resident, &swapped);
	assert_true(2 * swapped >= 2 * LIMIT);
	assert_int_equal(upc_reclaim_set_limit(env.f.arena, 4 * LIMIT), 0);
	an_read_pass(&env, true, &reads, &pages);
	/* The first came back while it was; later ones once it was not. */
	assert_false(folio_kept(&env, 0));
	assert_true(env.si->nr_kept < swapped);
	assert_true(2 * env.si->nr_kept <= env.si->max);
	assert_int_equal(env.si->inuse_pages, env.si->nr_kept);
	an_fini(&env);
	close(fd);
}

/*
 * Swap-in cannot read (the file was cut short): -EIO, and the page stays
 * swapped out, so once the file is whole again its data reads back.
 */
static void test_anon_swap_in_read_error(void **state)
{
	unsigned long resident, swapped;
	unsigned char *saved, buf[2 * PAGE];
	struct an_env env;
	struct stat st;
	int fd = an_tmpfile();
	void *value;

	(void)state;
	an_init_fd(&env, 2 * LIMIT * PAGE, 4 * CLUSTER_BYTES, fd);
	an_write_all(&env, 6);
	/*
	 * Room for the swap-ins below, so that they swap nothing out: a
	 * write to the cut file would refill it with holes, read as zeros.
	 */
	assert_true(upc_reclaim_pages(env.f.arena, 4 * UPC_RECLAIM_BATCH) > 0);
	value = xa_load(&env.region.mapping.i_pages, 0);
	assert_true(xa_is_value(value));
	assert_int_equal(fstat(fd, &st), 0);
	assert_true(st.st_size > 0);
	saved = malloc((size_t)st.st_size);
	assert_non_null(saved);
	assert_int_equal(pread(fd, saved, (size_t)st.st_size, 0), st.st_size);
	assert_int_equal(ftruncate(fd, 0), 0);

	assert_int_equal(anon_region_read(&env.region, buf, 10, 0), -EIO);
	assert_int_equal(anon_region_write(&env.region, buf, 10, 0), -EIO);
	assert_ptr_equal(xa_load(&env.region.mapping.i_pages, 0), value);
	an_count(&env, &resident, &swapped);
	assert_int_equal(env.si->inuse_pages, swapped);
	an_check(&env);

	assert_int_equal(pwrite(fd, saved, (size_t)st.st_size, 0), st.st_size);
	free(saved);
	an_verify(&env);
	an_fini(&env);
	close(fd);
}

/* A read that reaches a page it cannot swap in stops there. */
static void test_anon_short_read_on_error(void **state)
{
	unsigned char buf[2 * PAGE];
	struct an_env env;
	int fd = an_tmpfile();

	(void)state;
	an_init_fd(&env, 2 * LIMIT * PAGE, 4 * CLUSTER_BYTES, fd);
	an_write_all(&env, 9);
	/* Room for the swap-in, as in test_anon_swap_in_read_error. */
	assert_true(upc_reclaim_pages(env.f.arena, 4 * UPC_RECLAIM_BATCH) > 0);
	/* The oldest pages went first; bring page 0 back, leave page 1 out. */
	an_verify_range(&env, 0, 1);
	assert_false(xa_is_value(xa_load(&env.region.mapping.i_pages, 0)));
	assert_true(xa_is_value(xa_load(&env.region.mapping.i_pages, 1)));
	assert_int_equal(ftruncate(fd, 0), 0);
	assert_int_equal(anon_region_read(&env.region, buf, sizeof(buf), 8),
			 PAGE - 8);
	assert_memory_equal(buf, env.model + 8, PAGE - 8);
	assert_true(xa_is_value(xa_load(&env.region.mapping.i_pages, 1)));
	/* Likewise a write: the bytes up to the page it could not get. */
	assert_int_equal(an_write_ret(&env, PAGE - 3, 10, 10), 3);
	/* The swapped-out data is gone from the file: forget it. */
	an_check(&env);
	anon_region_destroy(&env.region);
	free(env.model);
	env.model = NULL;
	assert_int_equal(env.si->inuse_pages, 0);
	an_fini(&env);
	close(fd);
}

/* ---- destroying ---------------------------------------------------------- */

/* Holes, resident and swapped-out pages: all freed, shadows too. */
static void test_anon_destroy_frees_all(void **state)
{
	unsigned long resident, swapped;
	struct an_env env;
	uint64_t pos;

	(void)state;
	an_init(&env, 4 * LIMIT * PAGE, 4 * CLUSTER_BYTES);
	for (pos = 0; pos < env.region.size; pos += 3 * PAGE)
		an_write(&env, pos, PAGE, 1);
	an_verify_range(&env, 0, 10 * PAGE);	/* some swapped back in */
	an_count(&env, &resident, &swapped);
	assert_true(resident > 0);
	assert_true(swapped > 0);
	assert_true(env.si->inuse_pages > 0);
	an_destroy(&env);	/* asserts slots, pages and shadows are gone */
	/* The device serves a new region from scratch. */
	anon_region_init(&env.region, env.f.arena, 2 * LIMIT * PAGE);
	env.model = calloc(1, env.region.size);
	assert_non_null(env.model);
	an_write_all(&env, 2);
	an_verify(&env);
	an_fini(&env);
}

/* ---- allocation failures --------------------------------------------------- */

/* Swap-in that cannot allocate: -ENOMEM, and the page stays swapped. */
static void test_anon_swap_in_enomem(void **state)
{
	unsigned long n, failed = 0;
	struct an_env env;
	unsigned char buf[16];

	(void)state;
	an_init(&env, 2 * LIMIT * PAGE, 4 * CLUSTER_BYTES);
	an_write_all(&env, 4);
	for (n = 1;; n++) {
		void *value = xa_load(&env.region.mapping.i_pages, n);
		ssize_t ret;
		bool injected;

		assert_true(xa_is_value(value));
		upc_fault_fail_nth(n);
		ret = anon_region_read(&env.region, buf, sizeof(buf), n * PAGE);
		injected = upc_fault_injected();
		upc_fault_fail_nth(0);
		if (ret < 0) {
			assert_int_equal(ret, -ENOMEM);
			assert_true(injected);
			assert_ptr_equal(xa_load(&env.region.mapping.i_pages, n),
					 value);
			failed++;
		} else {
			assert_int_equal(ret, sizeof(buf));
			assert_memory_equal(buf, env.model + n * PAGE,
					    sizeof(buf));
		}
		an_check(&env);
		if (!injected)
			break;
	}
	/* The folio allocation at least was failed and reported. */
	assert_true(failed > 0);
	an_verify(&env);
	an_fini(&env);
}

/*
 * A page that kept its slots goes back to them with no write, through
 * the swap cache; when it cannot even enter the swap cache (no node for
 * its slot: every allocation fails), it stays in memory and the slots it
 * kept are freed, not left in use with no page to name them.
 */
static void test_anon_swap_out_kept_enomem(void **state)
{
	unsigned long resident, swapped, kept;
	uint64_t reads, pages;
	int fd = an_tmpfile();
	struct an_env env;

	(void)state;
	an_init_fd(&env, 2 * LIMIT * PAGE, 8 * CLUSTER_BYTES, fd);
	an_write_all(&env, 18);
	assert_int_equal(upc_reclaim_set_limit(env.f.arena, 4 * LIMIT), 0);
	an_read_pass(&env, true, &reads, &pages);
	an_count(&env, &resident, &swapped);
	assert_int_equal(swapped, 0);
	kept = env.si->nr_kept;
	assert_int_equal(kept, pages);
	assert_true(kept >= LIMIT / 2);
	assert_int_equal(env.si->inuse_pages, kept);

	/* Every swap-in took its slot's shadow: the swap cache is empty. */
	assert_int_equal(upc_reclaim_set_limit(env.f.arena, LIMIT), 0);
	lru_add_drain_all(env.f.arena);
	upc_fault_fail_from(1);
	upc_reclaim_pages(env.f.arena, LIMIT);
	upc_fault_fail_from(0);
	an_count(&env, &resident, &swapped);
	/* At most the one at slot 0, the tree's head, needed no node. */
	assert_true(swapped <= 1);
	assert_true(env.si->nr_kept < kept - 1);
	assert_int_equal(env.si->inuse_pages, swapped + env.si->nr_kept);
	an_check(&env);
	assert_int_equal(upc_reclaim_set_limit(env.f.arena, 4 * LIMIT), 0);
	an_verify(&env);
	an_fini(&env);
	close(fd);
}

/*
 * A page in an order-0 swap entry whose slot is the last of a swap cache
 * node, the next page in the next slot (the first of the next node).
 * Return: its index, its slot in *@off; ULONG_MAX if there is none.
 */
static unsigned long an_page_ending_node(struct an_env *env,
					 unsigned long *off)
{
	struct xarray *xa = &env->region.mapping.i_pages;
	unsigned long i;

	for (i = 0; i + 1 < env->region.size / PAGE; i++) {
		void *a = xa_load(xa, i), *b = xa_load(xa, i + 1);

		if (!xa_is_value(a) || !xa_is_value(b) ||
		    xa_get_order(xa, i) || xa_get_order(xa, i + 1))
			continue;
		*off = swp_offset(radix_to_swp_entry(a));
		if ((*off & (XA_CHUNK_SIZE - 1)) == XA_CHUNK_SIZE - 1 &&
		    swp_offset(radix_to_swp_entry(b)) == *off + 1)
			return i;
	}
	return ULONG_MAX;
}

/*
 * Readahead that cannot put a page in the swap cache (no node for its
 * slot, the first of a node the tree does not have) stops there and lets
 * the slot go: the page stays in swap, its slot no longer pinned
 * (SWAP_HAS_CACHE), and it reads back later.  The allocations of a
 * swap-in that reads ahead across a node's edge fail from each in turn.
 */
static void test_anon_swap_readahead_enomem(void **state)
{
	unsigned long n, p, off = 0, stopped = 0;
	struct an_env env;
	unsigned char buf[16];

	(void)state;
	for (n = 1;; n++) {
		int fd = an_tmpfile();
		bool injected;
		ssize_t ret;

		an_init_fd(&env, 2 * LIMIT * PAGE, 8 * CLUSTER_BYTES, fd);
		an_write_all(&env, 19);
		assert_int_equal(upc_reclaim_set_limit(env.f.arena, 4 * LIMIT),
				 0);
		p = an_page_ending_node(&env, &off);
		assert_true(p != ULONG_MAX);
		/* No shadows, so no nodes: each add allocates its own. */
		swap_cache_clear_shadows(env.si, swp_entry(env.si->type, 0),
					 env.si->max);
		/* The swap-in of page p follows one: a window of pages. */
		env.region.ra.next = p;
		env.region.ra.window = SWAP_RA_MAX;
		/* From the n-th on: a lone failure, retried, is absorbed. */
		upc_fault_fail_from(n);
		ret = anon_region_read(&env.region, buf, sizeof(buf), p * PAGE);
		injected = upc_fault_injected();
		upc_fault_fail_from(0);
		assert_int_equal(env.si->swap_map[off] & SWAP_HAS_CACHE, 0);
		assert_int_equal(env.si->swap_map[off + 1] & SWAP_HAS_CACHE, 0);
		if (ret < 0) {
			assert_int_equal(ret, -ENOMEM);
			assert_true(injected);
		} else {
			assert_int_equal(ret, sizeof(buf));
			assert_memory_equal(buf, env.model + p * PAGE,
					    sizeof(buf));
			if (injected && xa_is_value(xa_load(
				    &env.region.mapping.i_pages, p + 1)))
				stopped++;
		}
		an_check(&env);
		an_verify(&env);
		an_fini(&env);
		close(fd);
		if (!injected)
			break;
	}
	/* The window was cut at least once after the page asked for. */
	assert_true(stopped > 0);
}

/*
 * A large folio in a region (only the kernel-layer API can put one
 * there; its index must be aligned) at page @index, filled with pattern
 * @seed and recorded in the model.  Return: the folio (no reference).
 */
static struct folio *an_add_huge(struct an_env *env, pgoff_t index,
				 unsigned int seed)
{
	struct folio *folio;
	unsigned long i;

	folio = filemap_alloc_folio(&env->region.mapping, GFP_KERNEL,
				    UPC_MAX_ORDER);
	assert_non_null(folio);
	for (i = 0; i < folio_size(folio); i++)
		((unsigned char *)folio_address(folio))[i] =
			an_byte(index * PAGE + i, seed);
	memcpy(env->model + index * PAGE, folio_address(folio),
	       folio_size(folio));
	folio_set_uptodate(folio);
	assert_int_equal(filemap_add_folio(&env->region.mapping, folio, index,
					   GFP_KERNEL), 0);
	folio_put(folio);
	return folio;
}

/*
 * A region whose first 2 MiB are one large folio of pattern @seed, then
 * small pages past the limit behind it, so that the large folio, the
 * oldest, has gone to swap: one order-9 swap entry.  Return: the
 * region's tree.
 */
static struct xarray *an_huge_swapped(struct an_env *env, unsigned int seed)
{
	const unsigned long nr = 1UL << UPC_MAX_ORDER;
	struct xarray *xa = &env->region.mapping.i_pages;

	an_init(env, 4 * LIMIT * PAGE, 4 * CLUSTER_BYTES);
	assert_int_equal(upc_reclaim_set_limit(env->f.arena, 2 * LIMIT), 0);
	an_add_huge(env, 0, seed);
	an_write(env, nr * PAGE, 4 * LIMIT * PAGE - nr * PAGE, seed + 1);
	assert_true(upc_reclaim_pages(env->f.arena, LIMIT) > 0);
	assert_true(xa_is_value(xa_load(xa, 0)));
	assert_int_equal(xa_get_order(xa, 0), UPC_MAX_ORDER);
	return xa;
}

/*
 * A write that covers a whole swapped-out page puts a new folio in its
 * place without reading the old data back, and frees the slot; a write
 * to part of a page still swaps it in first.
 */
static void test_anon_whole_page_write_skips_swapin(void **state)
{
	unsigned long i, pages = 3 * LIMIT, overwritten = 0;
	unsigned long resident, swapped;
	struct xarray *xa;
	struct an_env env;
	uint64_t pswpin;

	(void)state;
	an_init(&env, pages * PAGE, 8 * CLUSTER_BYTES);
	xa = &env.region.mapping.i_pages;
	an_write_all(&env, 7);
	pswpin = env.si->pswpin;
	for (i = 0; i < pages; i += 2) {
		if (!xa_is_value(xa_load(xa, i)))
			continue;
		an_write(&env, i * PAGE, PAGE, 8);
		assert_false(xa_is_value(xa_load(xa, i)));
		overwritten++;
	}
	assert_true(overwritten >= LIMIT);
	assert_int_equal(env.si->pswpin, pswpin);
	an_check(&env);
	an_verify(&env);
	an_check(&env);

	/* One byte short of the page: read back first. */
	for (i = 1; !xa_is_value(xa_load(xa, i)); i += 2)
		;
	pswpin = env.si->pswpin;
	an_write(&env, i * PAGE + 1, PAGE - 1, 9);
	assert_int_equal(env.si->pswpin, pswpin + 1);
	an_count(&env, &resident, &swapped);
	assert_int_equal(resident + swapped, pages);
	assert_int_equal(env.si->inuse_pages, swapped);
	an_verify(&env);
	an_fini(&env);
}

/*
 * A whole-page write into a large swapped-out entry swaps the whole folio
 * in, as any access does: cutting the page's entry out instead would
 * leave the region's large folios to come back in pieces.
 */
static void test_anon_whole_page_write_keeps_large(void **state)
{
	const unsigned long nr = 1UL << UPC_MAX_ORDER;
	struct xarray *xa;
	struct an_env env;
	uint64_t pswpin;

	(void)state;
	xa = an_huge_swapped(&env, 7);
	pswpin = env.si->pswpin;
	an_write(&env, 5 * PAGE, PAGE, 12);
	assert_int_equal(env.si->pswpin, pswpin + nr);
	assert_false(xa_is_value(xa_load(xa, 5)));
	assert_int_equal(folio_order(xa_load(xa, 5)), UPC_MAX_ORDER);
	an_check(&env);
	an_verify(&env);
	an_check(&env);
	an_fini(&env);
}

/*
 * A large folio goes to swap whole: one entry of its order naming
 * aligned consecutive slots.  Reading one of its pages brings back the
 * whole folio.
 */
static void test_anon_large_folio_swaps_whole(void **state)
{
	const unsigned long nr = 1UL << UPC_MAX_ORDER;
	struct xarray *xa;
	struct an_env env;
	struct folio *folio;
	void *value;

	(void)state;
	xa = an_huge_swapped(&env, 7);
	value = xa_load(xa, 5);
	assert_ptr_equal(xa_load(xa, nr - 1), value);
	assert_int_equal(swp_offset(radix_to_swp_entry(value)) & (nr - 1), 0);
	an_check(&env);

	an_verify_range(&env, 5 * PAGE, PAGE);
	folio = xa_load(xa, 5);
	assert_false(xa_is_value(folio));
	assert_int_equal(folio_order(folio), UPC_MAX_ORDER);
	assert_int_equal(folio->index, 0);
	assert_ptr_equal(xa_load(xa, nr - 1), folio);
	an_verify(&env);
	an_check(&env);
	an_fini(&env);
}

/*
 * With no cluster of swap wholly free, a large folio finds no aligned run
 * of slots as long as it is: reclaim splits it, and its pages go to swap
 * one at a time into the free slots left (before splits it stayed in
 * memory, and writes could fail with -ENOSPC with swap mostly free).
 * Every page reads back as written.
 */
static void test_anon_large_splits_when_swap_fragmented(void **state)
{
	enum { clusters = 4 };
	const unsigned long nr = 1UL << UPC_MAX_ORDER;
	struct folio small = { .order = 0 };
	swp_entry_t held[clusters], entry;
	unsigned long i, n = 0, resident, swapped;
	struct xarray *xa;
	struct an_env env;

	(void)state;
	an_init(&env, 4 * LIMIT * PAGE, clusters * CLUSTER_BYTES);
	xa = &env.region.mapping.i_pages;
	assert_int_equal(upc_reclaim_set_limit(env.f.arena, 2 * LIMIT), 0);
	/* Take every slot, then give back all but one in each cluster. */
	for (i = 0; i < clusters * SWAPFILE_CLUSTER; i++)
		assert_int_equal(folio_alloc_swap(env.si, &small, &entry), 0);
	assert_int_equal(folio_alloc_swap(env.si, &small, &entry), -ENOSPC);
	for (i = 0; i < clusters * SWAPFILE_CLUSTER; i++) {
		entry = swp_entry(env.si->type, i);
		if (i % SWAPFILE_CLUSTER == 7)
			held[n++] = entry;
		else
			swap_free_nr(entry, 1);
	}
	assert_int_equal(n, clusters);
	assert_int_equal(env.si->nr_free_clusters, 0);

	an_add_huge(&env, 0, 9);
	an_write(&env, nr * PAGE, 4 * LIMIT * PAGE - nr * PAGE, 10);
	assert_true(upc_reclaim_pages(env.f.arena, LIMIT) > 0);
	/* The large folio is gone: its pages are in swap or order 0. */
	for (i = 0; i < nr; i++)
		assert_int_equal(xa_get_order(xa, i), 0);
	assert_true(xa_is_value(xa_load(xa, 0)));
	an_count(&env, &resident, &swapped);
	assert_true(swapped >= nr);
	assert_int_equal(vm_stats(env.f.arena).thp_split, 1);
	an_check(&env);
	an_verify(&env);
	an_check(&env);
	for (i = 0; i < n; i++)
		swap_free_nr(held[i], 1);
	an_fini(&env);
}

/*
 * With every slot taken, a large folio is not split for nothing: the
 * hook says -ENOSPC, not -EFBIG, whether it met no run of slots or swap
 * cache trees smaller than the folio (space_shift 6), and the folio
 * stays whole.
 */
static void test_anon_large_stays_when_swap_full(void **state)
{
	struct folio small = { .order = 0 };
	struct xarray *xa;
	struct an_env env;
	swp_entry_t entry;
	unsigned int shift;
	unsigned long i;

	(void)state;
	for (shift = 6; shift <= SWAP_ADDRESS_SPACE_SHIFT;
	     shift += SWAP_ADDRESS_SPACE_SHIFT - 6) {
		an_init(&env, 2 * LIMIT * PAGE, 0);
		assert_int_equal(swap_device_create(env.f.arena, -1,
						    CLUSTER_BYTES, shift,
						    &env.si), 0);
		xa = &env.region.mapping.i_pages;
		for (i = 0; i < SWAPFILE_CLUSTER; i++)
			assert_int_equal(folio_alloc_swap(env.si, &small,
							  &entry), 0);
		an_add_huge(&env, 0, 3);
		lru_add_drain_all(env.f.arena);
		assert_int_equal(upc_reclaim_pages(env.f.arena, LIMIT), 0);
		assert_int_equal(xa_get_order(xa, 0), UPC_MAX_ORDER);
		assert_false(xa_is_value(xa_load(xa, 0)));
		assert_int_equal(vm_stats(env.f.arena).thp_split, 0);
		an_verify(&env);
		for (i = 0; i < SWAPFILE_CLUSTER; i++)
			swap_free_nr(swp_entry(env.si->type, i), 1);
		an_fini(&env);
	}
}

/*
 * When no folio of a large entry's order can be had, the page read is
 * cut out of the entry and comes back alone; the rest stays in swap in
 * the largest aligned pieces around it, each naming its own slots, and
 * reads back as it was.
 */
static void test_anon_large_swapin_splits(void **state)
{
	const unsigned long nr = 1UL << UPC_MAX_ORDER;
	unsigned char buf[16];
	unsigned long off, piece, i;
	struct xarray *xa;
	struct an_env env;
	struct folio *folio;
	void *value;

	(void)state;
	xa = an_huge_swapped(&env, 5);
	value = xa_load(xa, 0);
	off = swp_offset(radix_to_swp_entry(value));

	/* Not even the split's nodes: -ENOMEM, the entry as it was. */
	upc_fault_fail_from(1);
	assert_int_equal(anon_region_read(&env.region, buf, sizeof(buf),
					  5 * PAGE), -ENOMEM);
	assert_int_equal(swap_entry_split(&env.region.mapping, 5, GFP_KERNEL),
			 -ENOMEM);
	upc_fault_fail_from(0);
	assert_ptr_equal(xa_load(xa, 5), value);
	assert_int_equal(xa_get_order(xa, 5), UPC_MAX_ORDER);
	an_check(&env);
	/* Nothing to split at a page in memory. */
	assert_int_equal(swap_entry_split(&env.region.mapping, nr, GFP_KERNEL),
			 0);

	/* The first allocation, the order-9 folio's, fails. */
	upc_fault_fail_nth(1);
	an_verify_range(&env, 5 * PAGE, PAGE);
	assert_true(upc_fault_injected());
	upc_fault_fail_nth(0);
	folio = xa_load(xa, 5);
	assert_false(xa_is_value(folio));
	assert_int_equal(folio_order(folio), 0);
	/* Pieces 4 (order 0), 6-7 (1), 0-3 (2), 8-15 (3) ... 256-511 (8). */
	assert_int_equal(xa_get_order(xa, 4), 0);
	assert_int_equal(xa_get_order(xa, 6), 1);
	assert_int_equal(xa_get_order(xa, 0), 2);
	assert_int_equal(xa_get_order(xa, 8), 3);
	assert_int_equal(xa_get_order(xa, 256), 8);
	for (i = 0; i < nr; i++) {
		void *entry = xa_load(xa, i);

		if (i == 5)
			continue;
		assert_true(xa_is_value(entry));
		/* Each piece names the slots of its own pages. */
		piece = 1UL << xa_get_order(xa, i);
		assert_int_equal(swp_offset(radix_to_swp_entry(entry)),
				 off + (i & ~(piece - 1)));
	}
	an_check(&env);
	/* The pieces come back whole: page 300 brings 256-511. */
	an_verify_range(&env, 300 * PAGE, PAGE);
	folio = xa_load(xa, 300);
	assert_false(xa_is_value(folio));
	assert_int_equal(folio_order(folio), 8);
	an_verify(&env);
	an_check(&env);
	an_fini(&env);
}

/*
 * The swap cache's shadows are bounded like the page cache's: nodes
 * holding only shadows are trimmed once there are more than an eighth of
 * the limit's pages.  A region of 16 times the limit in random order
 * spreads shadows over far more nodes than that (slots are handed out in
 * order, so sequential writes would fill few).  Trimming drops shadows
 * only: the region's swap entries (its data) are untouched, every page
 * reads back and every slot stays accounted for.
 */
static void test_anon_swap_shadows_bounded(void **state)
{
	unsigned long max_nodes = LIMIT / 8, peak = 0, i, n;
	struct upc_reclaim_stats st;
	struct swap_cache_info info;
	struct an_env env;
	struct upc_rand rng;

	(void)state;
	upc_rand_seed(&rng, 7);
	an_init(&env, 16 * LIMIT * PAGE, 16 * LIMIT * PAGE);
	n = 16 * LIMIT;
	for (i = 0; i < 4 * n; i++) {
		an_write(&env, upc_rand_below(&rng, n) * PAGE, PAGE,
			 (unsigned int)(i + 1));
		assert_int_equal(upc_reclaim_stats_read(env.f.arena, &st), 0);
		if (st.nr_shadow_nodes > peak)
			peak = st.nr_shadow_nodes;
	}
	assert_true(st.workingset_nodereclaim > 0);
	/* Between two reclaims at most a high watermark of evictions. */
	assert_true(peak <= max_nodes + 2 * UPC_RECLAIM_BATCH);
	swap_cache_info(env.si, &info);
	assert_true(info.nr_entries < env.si->inuse_pages);
	an_verify(&env);
	an_check(&env);
	an_fini(&env);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_anon_zero_reads),
		cmocka_unit_test(test_anon_write_read),
		cmocka_unit_test(test_anon_no_swap_enomem),
		cmocka_unit_test(test_anon_swap_round_trip),
		cmocka_unit_test(test_anon_swap_in_one),
		cmocka_unit_test(test_anon_swapin_folio_errors),
		cmocka_unit_test(test_anon_swap_out_held),
		cmocka_unit_test(test_anon_swap_full),
		cmocka_unit_test(test_anon_swap_out_write_error),
		cmocka_unit_test(test_anon_swap_out_batched_writes),
		cmocka_unit_test(test_anon_swap_readahead),
		cmocka_unit_test(test_anon_swap_keeps_clean_copy),
		cmocka_unit_test(test_anon_swap_in_read_error),
		cmocka_unit_test(test_anon_short_read_on_error),
		cmocka_unit_test(test_anon_destroy_frees_all),
		cmocka_unit_test(test_anon_swap_in_enomem),
		cmocka_unit_test(test_anon_swap_out_kept_enomem),
		cmocka_unit_test(test_anon_swap_readahead_enomem),
		cmocka_unit_test(test_anon_large_folio_swaps_whole),
		cmocka_unit_test(test_anon_large_swapin_splits),
		cmocka_unit_test(test_anon_whole_page_write_skips_swapin),
		cmocka_unit_test(test_anon_whole_page_write_keeps_large),
		cmocka_unit_test(test_anon_large_splits_when_swap_fragmented),
		cmocka_unit_test(test_anon_large_stays_when_swap_full),
		cmocka_unit_test(test_anon_swap_shadows_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
