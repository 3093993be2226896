// SPDX-License-Identifier: MIT
/*
 * tests/mm/test_swap.c - swap devices, their slot allocator and the swap
 * cache (include/upcache/swap.h; mm/swapfile.c, mm/swap_state.c), one
 * kernel-layer function at a time, single threaded.
 *
 * Every test builds an arena that reclaims (vmscan_helpers.h) and a
 * device on it, drives the functions directly with folios taken from
 * the arena, and ends with sw_fini(): upc_check_swap() recounts the
 * slot maps and walks every swap cache space, the device is destroyed
 * (which needs every slot back) and vm_teardown() checks that no page
 * stayed charged.  Expected offsets follow the allocator's documented
 * policy (mm/swapfile.c's opening comment), computed from
 * SWAPFILE_CLUSTER; tree heights are computed from XA_CHUNK_SHIFT, so
 * the tests hold in a build with a small chunk shift too.
 *
 * Two tests are regressions for chunks smaller than a huge folio
 * (space_shift 6 to 8): test_swap_free_clears_shadows_across_chunks
 * (swap_free_nr() cleared only the first chunk's shadows) and
 * test_swap_cache_folio_vs_chunk (a huge folio was stored in its first
 * chunk alone, invisible from the others; it is now refused).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vmscan_helpers.h"

#include <upcache/stats.h>
#include <upcache/swap.h>

#include "../../mm/lru_internal.h"
#include "../../mm/swap_internal.h"
#include "fault.h"
#include "io/fd.h"

#ifdef UPC_SANITIZE_ADDRESS
/*
 * test_swap_create_largest asks for a slot map of 2^SWP_OFFSET_BITS
 * bytes; AddressSanitizer's allocator aborts on a request that size
 * unless told to fail it with NULL, as the C library does.
 */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}
#endif

#define CLUSTER		SWAPFILE_CLUSTER
#define CLUSTER_BYTES	((unsigned long long)CLUSTER << UPC_PAGE_SHIFT)

/* An arena that reclaims, and a swap device on it. */
struct sw_env {
	struct vm_fixture f;
	struct swap_info_struct *si;
	struct folio *small;	/* order 0, for slot allocations */
	struct folio *huge;	/* order 9, likewise */
};

/* sw_init_fd() - A device of @bytes with @shift on @fd (-1: in memory). */
static void sw_init_fd(struct sw_env *env, int fd, unsigned long long bytes,
		       unsigned int shift)
{
	memset(env, 0, sizeof(*env));
	vm_setup(&env->f, 16, 2048, 0);
	assert_int_equal(swap_device_create(env->f.arena, fd, bytes, shift,
					    &env->si), 0);
	assert_non_null(env->si);
	env->small = upc_arena_alloc_folio(env->f.arena, GFP_KERNEL, 0);
	env->huge = upc_arena_alloc_folio(env->f.arena, GFP_KERNEL,
					  UPC_MAX_ORDER);
	assert_non_null(env->small);
	assert_non_null(env->huge);
}

static void sw_init(struct sw_env *env, unsigned long long bytes,
		    unsigned int shift)
{
	sw_init_fd(env, -1, bytes, shift);
}

/* sw_fini() - Check the device, destroy it, check that nothing leaked. */
static void sw_fini(struct sw_env *env)
{
	assert_int_equal(upc_check_swap(env->si), 0);
	folio_put(env->small);
	folio_put(env->huge);
	assert_int_equal(swap_device_destroy(env->si), 0);
	vm_teardown(&env->f);
}

/* sw_alloc() - Hand out slots for @folio.  Return: the first offset. */
static unsigned long sw_alloc(struct sw_env *env, struct folio *folio)
{
	swp_entry_t entry;

	assert_int_equal(folio_alloc_swap(env->si, folio, &entry), 0);
	assert_int_equal(swp_type(entry), env->si->type);
	/* Aligned to the folio's size, as add_to_swap_cache() needs. */
	assert_int_equal(swp_offset(entry) & (folio_nr_pages(folio) - 1), 0);
	return swp_offset(entry);
}

static void sw_free(struct sw_env *env, unsigned long offset, unsigned long nr)
{
	swap_free_nr(swp_entry(env->si->type, offset), nr);
}

/* sw_entry() - The entry of slot @offset of @env's device. */
static swp_entry_t sw_entry(struct sw_env *env, unsigned long offset)
{
	return swp_entry(env->si->type, offset);
}

/* sw_folio() - A new locked folio of @order, as swap-in makes one. */
static struct folio *sw_folio(struct sw_env *env, unsigned int order)
{
	struct folio *folio = upc_arena_alloc_folio(env->f.arena, GFP_KERNEL,
						    order);

	assert_non_null(folio);
	assert_true(folio_trylock(folio));
	return folio;
}

static void sw_unlock_put(struct folio *folio)
{
	folio_unlock(folio);
	folio_put(folio);
}

/* What the swap cache holds for slot @offset (no reference taken). */
static void *sw_cache_load(struct sw_env *env, unsigned long offset)
{
	swp_entry_t entry = sw_entry(env, offset);

	return xa_load(&swap_address_space(env->si, entry)->i_pages,
		       swap_cache_index(env->si, entry));
}

/* Levels a tree needs to hold index @index (0: the head holds it). */
static unsigned int tree_height(unsigned long index)
{
	unsigned int height = 0;

	while (index) {
		height++;
		index >>= XA_CHUNK_SHIFT;
	}
	return height;
}

/* A temporary file, already unlinked. */
static int sw_tmpfile(void)
{
	char path[] = "/tmp/upc_test_swap_XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(unlink(path), 0);
	return fd;
}

/* ---- entries ------------------------------------------------------------- */

static void test_swap_entry_encoding(void **state)
{
	static const unsigned int types[] = { 0, 1, 7, MAX_SWAPFILES - 1 };
	static const unsigned long offsets[] = {
		0, 1, 511, 512, 123456789, (1UL << SWP_OFFSET_BITS) - 1,
	};
	unsigned int t, o;

	(void)state;
	for (t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		for (o = 0; o < sizeof(offsets) / sizeof(offsets[0]); o++) {
			swp_entry_t e = swp_entry(types[t], offsets[o]);
			void *value = swp_to_radix_entry(e);

			assert_int_equal(swp_type(e), types[t]);
			assert_int_equal(swp_offset(e), offsets[o]);
			assert_int_equal(e.val, ((unsigned long)types[t] <<
						 SWP_OFFSET_BITS) | offsets[o]);
			/* A value entry, never a pointer or internal entry. */
			assert_true(xa_is_value(value));
			assert_int_equal(radix_to_swp_entry(value).val, e.val);
		}
	}
	/* The type lies wholly above the offset: neighbours differ in one. */
	assert_int_not_equal(swp_entry(1, 0).val,
			     swp_entry(0, (1UL << SWP_OFFSET_BITS) - 1).val);
}

/* ---- device life --------------------------------------------------------- */

/*
 * A device of exactly 2^SWP_OFFSET_BITS slots: every offset fits an
 * entry, so the size is valid, and creating it can only fail for memory
 * (its slot map alone is 256 TiB, past any user address space here).
 */
static void test_swap_create_largest(void **state)
{
	struct swap_info_struct *si = NULL;
	struct vm_fixture f;
	int err;

	(void)state;
	vm_setup(&f, 8, 1024, 0);
	err = swap_device_create(f.arena, -1,
				 (1ULL << SWP_OFFSET_BITS) << UPC_PAGE_SHIFT,
				 0, &si);
	if (err == 0) {
		assert_int_equal(si->max, 1UL << SWP_OFFSET_BITS);
		assert_int_equal(swap_device_destroy(si), 0);
	} else {
		assert_int_equal(err, -ENOMEM);
		assert_null(si);
	}
	/* Nothing of the failed device stays installed. */
	assert_int_equal(swap_device_create(f.arena, -1, CLUSTER_BYTES, 0,
					    &si), 0);
	assert_int_equal(swap_device_destroy(si), 0);
	vm_teardown(&f);
}

static void test_swap_create_errors(void **state)
{
	static const unsigned int bad_shifts[] = {
		1, SWAP_SPACE_SHIFT_MIN - 1, SWAP_SPACE_SHIFT_MAX + 1, UINT_MAX,
	};
	struct swap_info_struct *si = NULL, *other;
	struct upc_arena *bare;
	struct vm_fixture f;
	unsigned int i;

	(void)state;
	vm_setup(&f, 8, 1024, 0);
	assert_int_equal(swap_device_create(NULL, -1, CLUSTER_BYTES, 0, &si),
			 -EINVAL);
	assert_int_equal(swap_device_create(f.arena, -1, CLUSTER_BYTES, 0,
					    NULL), -EINVAL);
	assert_int_equal(swap_device_create(f.arena, -1, 0, 0, &si), -EINVAL);
	assert_int_equal(swap_device_create(f.arena, -1, CLUSTER_BYTES - 1, 0,
					    &si), -EINVAL);
	/* One slot over 2^SWP_OFFSET_BITS: refused before allocating. */
	assert_int_equal(swap_device_create(f.arena, -1,
					    ((1ULL << SWP_OFFSET_BITS) + 1) <<
					    UPC_PAGE_SHIFT, 0, &si), -EINVAL);
	for (i = 0; i < sizeof(bad_shifts) / sizeof(bad_shifts[0]); i++)
		assert_int_equal(swap_device_create(f.arena, -1, CLUSTER_BYTES,
						    bad_shifts[i], &si),
				 -EINVAL);
	assert_null(si);

	/* An arena that does not reclaim has nothing to swap from. */
	assert_int_equal(upc_arena_create(4 * MiB, &bare), 0);
	assert_int_equal(swap_device_create(bare, -1, CLUSTER_BYTES, 0, &si),
			 -EBUSY);
	upc_arena_destroy(bare);

	/* The shifts at the ends of the range are good. */
	assert_int_equal(swap_device_create(f.arena, -1, CLUSTER_BYTES,
					    SWAP_SPACE_SHIFT_MAX, &si), 0);
	assert_int_equal(si->nr_spaces, 1);
	/* One device per arena; the first one stays installed. */
	other = NULL;
	assert_int_equal(swap_device_create(f.arena, -1, CLUSTER_BYTES,
					    SWAP_SPACE_SHIFT_MIN, &other),
			 -EBUSY);
	assert_null(other);
	assert_ptr_equal(arena_lruvec(f.arena)->swap_priv, si);
	assert_int_equal(swap_device_destroy(si), 0);
	assert_int_equal(swap_device_create(f.arena, -1, CLUSTER_BYTES,
					    SWAP_SPACE_SHIFT_MIN, &si), 0);
	assert_int_equal(si->nr_spaces, CLUSTER >> SWAP_SPACE_SHIFT_MIN);
	assert_int_equal(swap_device_destroy(si), 0);

	/* The one allocation point of creation fails cleanly. */
	upc_fault_fail_nth(1);
	assert_int_equal(swap_device_create(f.arena, -1, CLUSTER_BYTES, 0, &si),
			 -ENOMEM);
	assert_true(upc_fault_injected());
	upc_fault_fail_nth(0);
	assert_null(arena_lruvec(f.arena)->swap_ops);
	vm_teardown(&f);
}

/* Sizes round down to clusters; the device is registered and hooked. */
static void test_swap_create_registers(void **state)
{
	struct swap_info_struct *si;
	struct sw_env env;
	unsigned int type;

	(void)state;
	sw_init(&env, 3 * CLUSTER_BYTES - 1, SWAP_SPACE_FULL_INDEX);
	si = env.si;
	type = si->type;
	assert_int_equal(si->max, 2 * CLUSTER);
	assert_int_equal(si->nr_spaces, 1);
	assert_int_equal(si->inuse_pages, 0);
	assert_int_equal(si->fd, -1);
	assert_non_null(si->mem);
	assert_ptr_equal(arena_lruvec(env.f.arena)->swap_ops, &swap_reclaim_ops);
	assert_ptr_equal(arena_lruvec(env.f.arena)->swap_priv, si);
	assert_ptr_equal(swap_info_get(swp_entry(type, 0)), si);
	assert_ptr_equal(swap_info_get(swp_entry(type, si->max - 1)), si);
	assert_null(swap_info_get(swp_entry(type, si->max)));
	assert_null(swap_info_get(swp_entry(MAX_SWAPFILES, 0)));
	assert_null(swap_info_get(swp_entry(type + 1, 0)));
	sw_fini(&env);
	/* Gone from the table and from reclaim. */
	assert_null(swap_info_get(swp_entry(type, 0)));

	/* Chunks of the default shift: a partial last chunk is a space. */
	sw_init(&env, (1ULL << (SWAP_ADDRESS_SPACE_SHIFT + 1)) *
		UPC_PAGE_SIZE + CLUSTER_BYTES, SWAP_ADDRESS_SPACE_SHIFT);
	assert_int_equal(env.si->nr_spaces, 3);
	sw_fini(&env);
}

/* MAX_SWAPFILES devices at once, then -ENOSPC. */
static void test_swap_create_table_full(void **state)
{
	struct upc_arena *arenas[MAX_SWAPFILES + 1];
	struct swap_info_struct *sis[MAX_SWAPFILES + 1];
	unsigned int i;

	(void)state;
	for (i = 0; i <= MAX_SWAPFILES; i++) {
		assert_int_equal(upc_arena_create(2 * MiB, &arenas[i]), 0);
		assert_int_equal(upc_reclaim_init(arenas[i]), 0);
	}
	for (i = 0; i < MAX_SWAPFILES; i++) {
		assert_int_equal(swap_device_create(arenas[i], -1,
						    CLUSTER_BYTES, 0, &sis[i]),
				 0);
		assert_ptr_equal(swap_info_get(swp_entry(sis[i]->type, 0)),
				 sis[i]);
	}
	assert_int_equal(swap_device_create(arenas[MAX_SWAPFILES], -1,
					    CLUSTER_BYTES, 0,
					    &sis[MAX_SWAPFILES]), -ENOSPC);
	/* The failure left no hook behind: after a swapoff it fits. */
	assert_null(arena_lruvec(arenas[MAX_SWAPFILES])->swap_ops);
	assert_int_equal(swap_device_destroy(sis[3]), 0);
	assert_int_equal(swap_device_create(arenas[MAX_SWAPFILES], -1,
					    CLUSTER_BYTES, 0,
					    &sis[MAX_SWAPFILES]), 0);
	/* The freed place in the table is reused. */
	assert_ptr_equal(swap_info_get(swp_entry(sis[MAX_SWAPFILES]->type, 0)),
			 sis[MAX_SWAPFILES]);
	for (i = 0; i <= MAX_SWAPFILES; i++) {
		if (i != 3)
			assert_int_equal(swap_device_destroy(sis[i]), 0);
		upc_reclaim_destroy(arenas[i]);
		upc_arena_destroy(arenas[i]);
	}
}

static void test_swap_destroy_busy(void **state)
{
	struct sw_env env;
	unsigned long off;

	(void)state;
	sw_init(&env, 2 * CLUSTER_BYTES, 0);
	off = sw_alloc(&env, env.small);
	assert_int_equal(swap_device_destroy(env.si), -EBUSY);
	/* Nothing changed: still registered, still reclaim's hook. */
	assert_ptr_equal(swap_info_get(sw_entry(&env, off)), env.si);
	assert_ptr_equal(arena_lruvec(env.f.arena)->swap_priv, env.si);
	assert_int_equal(env.si->inuse_pages, 1);
	off = sw_alloc(&env, env.huge);
	assert_int_equal(swap_device_destroy(env.si), -EBUSY);
	sw_free(&env, off, CLUSTER);
	assert_int_equal(swap_device_destroy(env.si), -EBUSY);
	sw_free(&env, 0, 1);
	assert_int_equal(env.si->inuse_pages, 0);
	sw_fini(&env);
}

/* ---- I/O ------------------------------------------------------------------- */

/* Fill @folio with bytes naming @seed and their position. */
static void sw_fill(struct folio *folio, unsigned int seed)
{
	unsigned char *p = folio_address(folio);
	size_t i;

	for (i = 0; i < folio_size(folio); i++)
		p[i] = (unsigned char)(i * 7 + seed + (i >> 12));
}

static bool sw_matches(struct folio *folio, unsigned int seed)
{
	unsigned char *p = folio_address(folio);
	size_t i;

	for (i = 0; i < folio_size(folio); i++)
		if (p[i] != (unsigned char)(i * 7 + seed + (i >> 12)))
			return false;
	return true;
}

/* Write a small and a huge folio to their slots and read them back. */
static void sw_round_trip(struct sw_env *env)
{
	struct folio *back_small = sw_folio(env, 0);
	struct folio *back_huge = sw_folio(env, UPC_MAX_ORDER);
	unsigned long off_small = sw_alloc(env, env->small);
	unsigned long off_huge = sw_alloc(env, env->huge);

	sw_fill(env->small, 3);
	sw_fill(env->huge, 11);
	assert_int_equal(swap_write_folio(env->si, env->small,
					  sw_entry(env, off_small)), 0);
	assert_int_equal(swap_write_folio(env->si, env->huge,
					  sw_entry(env, off_huge)), 0);
	assert_int_equal(env->si->pswpout, 1 + CLUSTER);
	assert_int_equal(swap_read_folio(env->si, back_huge,
					 sw_entry(env, off_huge)), 0);
	assert_int_equal(swap_read_folio(env->si, back_small,
					 sw_entry(env, off_small)), 0);
	assert_int_equal(env->si->pswpin, 1 + CLUSTER);
	assert_true(sw_matches(back_small, 3));
	assert_true(sw_matches(back_huge, 11));
	/* Page 1 of the huge run is slot off_huge + 1. */
	assert_int_equal(swap_read_folio(env->si, back_small,
					 sw_entry(env, off_huge + 1)), 0);
	assert_memory_equal(folio_address(back_small),
			    (char *)folio_address(env->huge) + UPC_PAGE_SIZE,
			    UPC_PAGE_SIZE);
	sw_unlock_put(back_small);
	sw_unlock_put(back_huge);
	sw_free(env, off_small, 1);
	sw_free(env, off_huge, CLUSTER);
}

static void test_swap_memory_device_io(void **state)
{
	struct sw_env env;

	(void)state;
	sw_init(&env, 4 * CLUSTER_BYTES, 0);
	sw_round_trip(&env);
	sw_fini(&env);
}

static void test_swap_file_device_io(void **state)
{
	struct folio *folio;
	struct sw_env env;
	struct stat st;
	int fd = sw_tmpfile(), ro;
	char path[64];

	(void)state;
	sw_init_fd(&env, fd, 4 * CLUSTER_BYTES, 0);
	assert_null(env.si->mem);
	assert_int_equal(env.si->fd, fd);
	sw_round_trip(&env);
	/* Written with pwrite: the file grew to cover the huge run. */
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 2 * CLUSTER_BYTES);
	/* A slot past the file's end reads short: -EIO, not counted. */
	folio = sw_folio(&env, 0);
	assert_int_equal(swap_read_folio(env.si, folio,
					 sw_entry(&env, 3 * CLUSTER)), -EIO);
	assert_int_equal(env.si->pswpin, 2 + CLUSTER);
	sw_unlock_put(folio);
	sw_fini(&env);

	/* A descriptor that cannot be written: -EIO, not counted. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ro = open(path, O_RDONLY);
	assert_true(ro >= 0);
	sw_init_fd(&env, ro, 4 * CLUSTER_BYTES, 0);
	assert_int_equal(swap_write_folio(env.si, env.small,
					  sw_entry(&env, 0)), -EIO);
	assert_int_equal(env.si->pswpout, 0);
	/* What is in the file still reads. */
	folio = sw_folio(&env, 0);
	assert_int_equal(swap_read_folio(env.si, folio, sw_entry(&env, 0)), 0);
	assert_true(sw_matches(folio, 3));
	sw_unlock_put(folio);
	sw_fini(&env);
	close(ro);
	close(fd);
}

/*
 * swap_write_folios(): folios whose slots follow each other go in one
 * system call, at most SWAP_WRITE_RUN of them; a folio left out (its
 * error set) neither breaks a run nor is written; a run that fails
 * fails its own folios only.
 */
static void test_swap_file_device_write_runs(void **state)
{
	/* Slots of the folios, in the order given: runs 0-5 and 8-9. */
	static const unsigned long slot[9] = { 0, 1, 2, 3, 4, 5, 8, 6, 9 };
	struct io_counters *io = io_thread_counters();
	struct folio *folios[9], *back;
	swp_entry_t entries[9];
	int errs[9], fd = sw_tmpfile(), ro;
	uint64_t syscalls;
	struct sw_env env;
	char path[64];
	unsigned int i;

	(void)state;
	sw_init_fd(&env, fd, 4 * CLUSTER_BYTES, 0);
	for (i = 0; i < 9; i++) {
		folios[i] = sw_folio(&env, 0);
		sw_fill(folios[i], 20 + i);
		entries[i] = sw_entry(&env, slot[i]);
		errs[i] = 0;
	}
	errs[7] = -EINVAL;	/* left out: slot 6 stays unwritten */
	syscalls = io->syscalls;
	swap_write_folios(env.si, folios, entries, errs, 9);
	assert_int_equal(io->syscalls - syscalls,
			 (6 + SWAP_WRITE_RUN - 1) / SWAP_WRITE_RUN +
			 (2 + SWAP_WRITE_RUN - 1) / SWAP_WRITE_RUN);
	assert_int_equal(env.si->pswpout, 8);
	for (i = 0; i < 9; i++)
		assert_int_equal(errs[i], i == 7 ? -EINVAL : 0);
	back = sw_folio(&env, 0);
	for (i = 0; i < 9; i++) {
		if (i == 7)
			continue;
		assert_int_equal(swap_read_folio(env.si, back, entries[i]), 0);
		assert_true(sw_matches(back, 20 + i));
	}
	/* Slots 0-2 back in one system call (swap readahead's read). */
	{
		struct folio *three[3] = { sw_folio(&env, 0), sw_folio(&env, 0),
					   sw_folio(&env, 0) };

		syscalls = io->syscalls;
		assert_int_equal(swap_read_folios(env.si, three, 3,
						  sw_entry(&env, 0)), 0);
		assert_int_equal(io->syscalls - syscalls, 1);
		for (i = 0; i < 3; i++) {
			assert_true(sw_matches(three[i], 20 + i));
			sw_unlock_put(three[i]);
		}
		assert_int_equal(swap_read_folios(env.si, three, 0,
						  sw_entry(&env, 0)), -EINVAL);
		assert_int_equal(swap_read_folios(env.si, folios,
						  SWAP_RA_MAX + 1,
						  sw_entry(&env, 0)), -EINVAL);
		assert_int_equal(io->syscalls - syscalls, 1);
	}
	/* Slot 6 was skipped, not filled with a folio beside it. */
	assert_int_equal(swap_read_folio(env.si, back, sw_entry(&env, 6)), 0);
	assert_false(sw_matches(back, 26));
	assert_false(sw_matches(back, 27));
	sw_unlock_put(back);
	for (i = 0; i < 9; i++)
		sw_unlock_put(folios[i]);
	sw_fini(&env);

	/* A device that cannot be written: each run's folios get -EIO. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ro = open(path, O_RDONLY);
	assert_true(ro >= 0);
	sw_init_fd(&env, ro, 4 * CLUSTER_BYTES, 0);
	for (i = 0; i < 9; i++) {
		folios[i] = sw_folio(&env, 0);
		errs[i] = i == 2 ? -ENOSPC : 0;
	}
	swap_write_folios(env.si, folios, entries, errs, 9);
	for (i = 0; i < 9; i++)
		assert_int_equal(errs[i], i == 2 ? -ENOSPC : -EIO);
	assert_int_equal(env.si->pswpout, 0);
	for (i = 0; i < 9; i++)
		sw_unlock_put(folios[i]);
	sw_fini(&env);
	close(ro);
	close(fd);
}

/*
 * A large folio's slots end 2^order slots after its first: a folio
 * whose slot comes just after the last of them follows it and joins its
 * transfer, read back in place.
 */
static void test_swap_file_device_write_run_large(void **state)
{
	struct io_counters *io = io_thread_counters();
	struct folio *folios[2], *back;
	swp_entry_t entries[2];
	int errs[2] = { 0, 0 }, fd = sw_tmpfile();
	uint64_t syscalls;
	struct sw_env env;

	(void)state;
	sw_init_fd(&env, fd, 4 * CLUSTER_BYTES, 0);
	folios[0] = sw_folio(&env, UPC_MAX_ORDER);
	folios[1] = sw_folio(&env, 0);
	sw_fill(folios[0], 30);
	sw_fill(folios[1], 31);
	entries[0] = sw_entry(&env, CLUSTER);
	entries[1] = sw_entry(&env, 2 * CLUSTER);
	syscalls = io->syscalls;
	swap_write_folios(env.si, folios, entries, errs, 2);
	assert_int_equal(io->syscalls - syscalls, 1);
	assert_int_equal(errs[0], 0);
	assert_int_equal(errs[1], 0);
	assert_int_equal(env.si->pswpout, CLUSTER + 1);
	back = sw_folio(&env, 0);
	assert_int_equal(swap_read_folio(env.si, back, entries[1]), 0);
	assert_true(sw_matches(back, 31));
	sw_unlock_put(back);
	back = sw_folio(&env, UPC_MAX_ORDER);
	assert_int_equal(swap_read_folio(env.si, back, entries[0]), 0);
	assert_true(sw_matches(back, 30));
	sw_unlock_put(back);
	sw_unlock_put(folios[0]);
	sw_unlock_put(folios[1]);
	sw_fini(&env);
	close(fd);
}

/* ---- slots ----------------------------------------------------------------- */

/* Order-0 slots come from the first cluster, in order. */
static void test_swap_alloc_in_order(void **state)
{
	struct sw_env env;
	unsigned long i;

	(void)state;
	sw_init(&env, 4 * CLUSTER_BYTES, 0);
	for (i = 0; i < 100; i++) {
		assert_int_equal(sw_alloc(&env, env.small), i);
		assert_int_equal(env.si->inuse_pages, i + 1);
	}
	assert_int_equal(env.si->cluster_used[0], 100);
	assert_int_equal(upc_check_swap(env.si), 0);
	sw_free(&env, 0, 100);
	assert_int_equal(env.si->inuse_pages, 0);
	sw_fini(&env);
}

/*
 * A huge folio takes a wholly free, aligned cluster.  Small ones keep to
 * the current cluster, then fill partly used clusters before a wholly
 * free one is taken, which stays free for a huge folio; when no cluster
 * is wholly free, huge ones fail.
 */
static void test_swap_alloc_huge_and_partial(void **state)
{
	struct sw_env env;
	swp_entry_t entry;
	unsigned long i;

	(void)state;
	sw_init(&env, 4 * CLUSTER_BYTES, 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(sw_alloc(&env, env.small), i);
	/* Cluster 0 is partly used: the huge run goes to cluster 1. */
	assert_int_equal(sw_alloc(&env, env.huge), CLUSTER);
	assert_int_equal(env.si->inuse_pages, 3 + CLUSTER);
	/*
	 * The current cluster (1) is full: cluster 0 is filled first, and
	 * becomes current, so that the rest follow without a search.
	 */
	assert_int_equal(env.si->cur_cluster, 1);
	for (i = 3; i < CLUSTER; i++) {
		assert_int_equal(sw_alloc(&env, env.small), i);
		assert_int_equal(env.si->cur_cluster, 0);
	}
	assert_int_equal(env.si->nr_free_clusters, 2);
	/* Nothing partly used is left: the next free one becomes current. */
	assert_int_equal(sw_alloc(&env, env.small), 2 * CLUSTER);
	assert_int_equal(sw_alloc(&env, env.huge), 3 * CLUSTER);
	assert_int_equal(env.si->nr_free_clusters, 0);
	/* No wholly free cluster is left for another huge run. */
	assert_int_equal(folio_alloc_swap(env.si, env.huge, &entry), -ENOSPC);
	assert_int_equal(env.si->inuse_pages, 1 + 3 * CLUSTER);
	assert_int_equal(sw_alloc(&env, env.small), 2 * CLUSTER + 1);
	assert_int_equal(upc_check_swap(env.si), 0);

	/* Freeing a whole cluster makes it free for a huge run again. */
	sw_free(&env, CLUSTER, CLUSTER);
	assert_int_equal(env.si->nr_free_clusters, 1);
	assert_int_equal(sw_alloc(&env, env.huge), CLUSTER);
	sw_free(&env, 0, 4 * CLUSTER);
	assert_int_equal(env.si->inuse_pages, 0);
	sw_fini(&env);
}

/*
 * Freed slots are handed out again: the current cluster's cursor goes on
 * after the last slot it handed out and, at the cluster's end, wraps to
 * the freed slots, lowest first, before a new cluster is taken.
 */
static void test_swap_free_reuse(void **state)
{
	struct sw_env env;
	unsigned long i;

	(void)state;
	sw_init(&env, 2 * CLUSTER_BYTES, 0);
	for (i = 0; i < 10; i++)
		sw_alloc(&env, env.small);
	sw_free(&env, 4, 1);
	sw_free(&env, 7, 2);
	assert_int_equal(env.si->inuse_pages, 7);
	/* Freeing a free slot again changes nothing. */
	sw_free(&env, 4, 1);
	assert_int_equal(env.si->inuse_pages, 7);
	assert_int_equal(env.si->cluster_used[0], 7);
	/* The cursor does not go back to a hole behind it... */
	assert_int_equal(sw_alloc(&env, env.small), 10);
	for (i = 11; i < CLUSTER; i++)
		assert_int_equal(sw_alloc(&env, env.small), i);
	/* ...until it wraps. */
	assert_int_equal(sw_alloc(&env, env.small), 4);
	assert_int_equal(sw_alloc(&env, env.small), 7);
	assert_int_equal(sw_alloc(&env, env.small), 8);
	/* Cluster 0 is full: the next slot opens cluster 1. */
	assert_int_equal(sw_alloc(&env, env.small), CLUSTER);
	/* Entries past the end or of no device are ignored. */
	swap_free_nr(sw_entry(&env, env.si->max), 1);
	swap_free_nr(sw_entry(&env, env.si->max - 1), 2);
	swap_free_nr(swp_entry(MAX_SWAPFILES - 1, 0), 1);
	assert_int_equal(env.si->inuse_pages, CLUSTER + 1);
	sw_free(&env, 0, CLUSTER + 1);
	sw_fini(&env);
}

/* A full device says -ENOSPC, until a slot comes back. */
static void test_swap_full(void **state)
{
	struct sw_env env;
	swp_entry_t entry;
	unsigned long i;

	(void)state;
	sw_init(&env, 2 * CLUSTER_BYTES, 0);
	for (i = 0; i < 2 * CLUSTER; i++)
		assert_int_equal(sw_alloc(&env, env.small), i);
	assert_int_equal(env.si->inuse_pages, 2 * CLUSTER);
	assert_int_equal(folio_alloc_swap(env.si, env.small, &entry), -ENOSPC);
	assert_int_equal(folio_alloc_swap(env.si, env.huge, &entry), -ENOSPC);
	assert_int_equal(env.si->inuse_pages, 2 * CLUSTER);

	/* The free-cluster stack is empty: partly used clusters are searched. */
	sw_free(&env, 600, 1);
	sw_free(&env, 7, 1);
	assert_int_equal(sw_alloc(&env, env.small), 600);
	assert_int_equal(sw_alloc(&env, env.small), 7);
	assert_int_equal(folio_alloc_swap(env.si, env.small, &entry), -ENOSPC);
	/* One free slot is not a huge run; a free cluster is. */
	sw_free(&env, 5, 1);
	assert_int_equal(folio_alloc_swap(env.si, env.huge, &entry), -ENOSPC);
	sw_free(&env, 0, CLUSTER);
	assert_int_equal(sw_alloc(&env, env.huge), 0);
	assert_int_equal(upc_check_swap(env.si), 0);
	sw_free(&env, 0, 2 * CLUSTER);
	assert_int_equal(env.si->inuse_pages, 0);
	assert_int_equal(env.si->nr_free_clusters + (env.si->cur_cluster !=
						     ULONG_MAX), 2);
	sw_fini(&env);
}

/*
 * A huge folio asks the current cluster first.  Left wholly free (its
 * slots all freed while it stayed current, so it is not on the stack),
 * the current cluster is an aligned run, and the huge folio gets it from
 * its first slot, wherever the cluster's cursor had got to: a search
 * from the cursor not rounded down to the folio's size would find a
 * run of free slots from there reaching into the next, free, cluster.
 */
static void test_swap_alloc_huge_in_current_cluster(void **state)
{
	struct sw_env env;
	unsigned long i;

	(void)state;
	sw_init(&env, 4 * CLUSTER_BYTES, 0);
	for (i = 0; i < 5; i++)
		assert_int_equal(sw_alloc(&env, env.small), i);
	sw_free(&env, 0, 5);
	assert_int_equal(env.si->cur_cluster, 0);
	assert_int_equal(env.si->nr_free_clusters, 3);
	assert_int_equal(sw_alloc(&env, env.huge), 0);
	/* No free cluster was taken for it. */
	assert_int_equal(env.si->nr_free_clusters, 3);
	assert_int_equal(env.si->inuse_pages, CLUSTER);
	sw_free(&env, 0, CLUSTER);
	sw_fini(&env);
}

/*
 * Partly used clusters are searched round robin, each search starting
 * where the last one stopped (mm/swapfile.c's policy): a hole that
 * opens behind the search's position waits until the search comes round
 * to it, after the holes ahead.
 */
static void test_swap_alloc_partial_round_robin(void **state)
{
	struct sw_env env;
	swp_entry_t entry;
	unsigned long i;

	(void)state;
	sw_init(&env, 4 * CLUSTER_BYTES, 0);
	for (i = 0; i < 4 * CLUSTER; i++)
		assert_int_equal(sw_alloc(&env, env.small), i);
	assert_int_equal(env.si->nr_free_clusters, 0);
	/* A hole in each of clusters 0, 1 and 2. */
	sw_free(&env, 10, 1);
	sw_free(&env, CLUSTER + 10, 1);
	sw_free(&env, 2 * CLUSTER + 10, 1);
	/* The first search starts at cluster 0 and stops there... */
	assert_int_equal(sw_alloc(&env, env.small), 10);
	assert_int_equal(env.si->cur_cluster, 0);
	/* ...the next goes on from it, to cluster 1. */
	assert_int_equal(sw_alloc(&env, env.small), CLUSTER + 10);
	assert_int_equal(env.si->cur_cluster, 1);
	/* A hole in cluster 0, behind the search: cluster 2's comes first. */
	sw_free(&env, 20, 1);
	assert_int_equal(sw_alloc(&env, env.small), 2 * CLUSTER + 10);
	assert_int_equal(env.si->cur_cluster, 2);
	assert_int_equal(sw_alloc(&env, env.small), 20);
	assert_int_equal(env.si->cur_cluster, 0);
	assert_int_equal(folio_alloc_swap(env.si, env.small, &entry), -ENOSPC);
	assert_int_equal(upc_check_swap(env.si), 0);
	sw_free(&env, 0, 4 * CLUSTER);
	sw_fini(&env);
}

/*
 * Any folio smaller than a cluster is a small allocation: with the
 * current cluster full, a folio of half a cluster takes an aligned free
 * half of a partly used cluster before a wholly free cluster is taken,
 * which stays whole for a huge folio.
 */
static void test_swap_alloc_half_cluster_from_partial(void **state)
{
	const unsigned int order = UPC_MAX_ORDER - 1;
	const unsigned long half = 1UL << order;
	struct folio *folio;
	struct sw_env env;

	(void)state;
	sw_init(&env, 4 * CLUSTER_BYTES, 0);
	folio = sw_folio(&env, order);
	assert_int_equal(sw_alloc(&env, env.huge), 0);
	assert_int_equal(sw_alloc(&env, env.huge), CLUSTER);
	assert_int_equal(env.si->cur_cluster, 1);
	/* Cluster 0's second half comes back. */
	sw_free(&env, half, half);
	assert_int_equal(env.si->nr_free_clusters, 2);
	assert_int_equal(sw_alloc(&env, folio), half);
	assert_int_equal(env.si->cur_cluster, 0);
	assert_int_equal(env.si->nr_free_clusters, 2);
	/* Cluster 0 full again: the next one opens a free cluster. */
	assert_int_equal(sw_alloc(&env, folio), 2 * CLUSTER);
	assert_int_equal(env.si->nr_free_clusters, 1);
	assert_int_equal(upc_check_swap(env.si), 0);
	sw_free(&env, 0, 2 * CLUSTER + half);
	sw_unlock_put(folio);
	sw_fini(&env);
}

/*
 * The current cluster's search wraps from its cursor to the cluster's
 * start: with every slot after the cursor in use, a hole before it is
 * handed out rather than another cluster opened.  (test_swap_free_reuse
 * wraps from the cluster's end, where the search starts at its first
 * slot anyway; here the cursor stops in the middle.)
 */
static void test_swap_alloc_wraps_in_cluster(void **state)
{
	struct sw_env env;
	unsigned long i;

	(void)state;
	sw_init(&env, 4 * CLUSTER_BYTES, 0);
	for (i = 0; i < CLUSTER; i++)
		assert_int_equal(sw_alloc(&env, env.small), i);
	sw_free(&env, 10, 1);
	sw_free(&env, 20, 1);
	assert_int_equal(sw_alloc(&env, env.small), 10);
	/* A hole behind the cursor, now at 11. */
	sw_free(&env, 5, 1);
	assert_int_equal(sw_alloc(&env, env.small), 20);
	assert_int_equal(sw_alloc(&env, env.small), 5);
	assert_int_equal(env.si->cur_cluster, 0);
	assert_int_equal(env.si->nr_free_clusters, 3);
	assert_int_equal(sw_alloc(&env, env.small), CLUSTER);
	sw_free(&env, 0, CLUSTER + 1);
	sw_fini(&env);
}

/* ---- the swap cache -------------------------------------------------------- */

static void test_swap_cache_add_get_delete(void **state)
{
	void *shadow = xa_mk_value(0x5ad0), *found = NULL;
	struct folio *folio, *got, *again;
	struct address_space *space;
	swp_entry_t entry;
	struct sw_env env;

	(void)state;
	sw_init(&env, 2 * CLUSTER_BYTES, 0);
	sw_alloc(&env, env.small);
	entry = sw_entry(&env, sw_alloc(&env, env.small));
	space = swap_address_space(env.si, entry);
	folio = sw_folio(&env, 0);

	assert_int_equal(add_to_swap_cache(env.si, folio, entry, GFP_KERNEL,
					   &found), 0);
	assert_null(found);
	assert_true(folio_test_swapcache(folio));
	assert_int_equal(folio_swap_entry(folio).val, entry.val);
	assert_int_equal(folio_ref_count(folio), 2);
	assert_int_equal(space->nrpages, 1);
	assert_ptr_equal(sw_cache_load(&env, 1), folio);
	got = swap_cache_get_folio(env.si, entry);
	assert_ptr_equal(got, folio);
	assert_int_equal(folio_ref_count(folio), 3);
	folio_put(got);
	assert_null(swap_cache_get_folio(env.si, sw_entry(&env, 0)));
	assert_int_equal(upc_check_swap(env.si), 0);

	/* Leaving, it leaves the shadow; the lookup sees no folio. */
	delete_from_swap_cache(env.si, folio, shadow);
	assert_false(folio_test_swapcache(folio));
	assert_null(folio->private);
	assert_int_equal(folio_ref_count(folio), 1);
	assert_int_equal(space->nrpages, 0);
	assert_ptr_equal(sw_cache_load(&env, 1), shadow);
	assert_null(swap_cache_get_folio(env.si, entry));
	assert_int_equal(upc_check_swap(env.si), 0);

	/* The next folio at the slot gets the shadow handed back. */
	again = sw_folio(&env, 0);
	assert_int_equal(add_to_swap_cache(env.si, again, entry, GFP_KERNEL,
					   &found), 0);
	assert_ptr_equal(found, shadow);
	delete_from_swap_cache(env.si, again, NULL);
	assert_null(sw_cache_load(&env, 1));
	sw_unlock_put(again);
	sw_unlock_put(folio);
	sw_free(&env, 0, 2);
	sw_fini(&env);
}

static void test_swap_cache_eexist(void **state)
{
	struct folio *first, *second;
	swp_entry_t entry;
	struct sw_env env;

	(void)state;
	sw_init(&env, 2 * CLUSTER_BYTES, 0);
	entry = sw_entry(&env, sw_alloc(&env, env.small));
	first = sw_folio(&env, 0);
	second = sw_folio(&env, 0);
	assert_int_equal(add_to_swap_cache(env.si, first, entry, GFP_KERNEL,
					   NULL), 0);
	assert_int_equal(add_to_swap_cache(env.si, second, entry, GFP_KERNEL,
					   NULL), -EEXIST);
	/* The loser is untouched; the winner stays. */
	assert_false(folio_test_swapcache(second));
	assert_null(second->private);
	assert_int_equal(folio_ref_count(second), 1);
	assert_ptr_equal(sw_cache_load(&env, swp_offset(entry)), first);
	assert_int_equal(swap_address_space(env.si, entry)->nrpages, 1);
	delete_from_swap_cache(env.si, first, NULL);
	sw_unlock_put(first);
	sw_unlock_put(second);
	sw_free(&env, swp_offset(entry), 1);
	sw_fini(&env);
}

/* A huge folio is one multi-index entry, and so is the shadow it leaves. */
static void test_swap_cache_large_folio(void **state)
{
	void *shadow = xa_mk_value(0x1a29e), *found = (void *)1;
	struct swap_cache_info info;
	struct folio *huge, *small;
	unsigned long base, i;
	struct sw_env env;

	(void)state;
	sw_init(&env, 4 * CLUSTER_BYTES, 0);
	sw_alloc(&env, env.small);
	base = sw_alloc(&env, env.huge);
	assert_int_equal(base, CLUSTER);
	huge = sw_folio(&env, UPC_MAX_ORDER);
	assert_int_equal(add_to_swap_cache(env.si, huge, sw_entry(&env, base),
					   GFP_KERNEL, &found), 0);
	assert_null(found);
	assert_int_equal(folio_ref_count(huge), 1 + CLUSTER);
	assert_int_equal(swap_address_space(env.si, sw_entry(&env, base))->nrpages,
			 CLUSTER);
	swap_cache_info(env.si, &info);
	assert_int_equal(info.nr_entries, 1);
	for (i = 0; i < CLUSTER; i += 37) {
		struct folio *got = swap_cache_get_folio(env.si,
							 sw_entry(&env, base + i));

		assert_ptr_equal(got, huge);
		folio_put(got);
	}
	assert_null(swap_cache_get_folio(env.si, sw_entry(&env, base - 1)));
	assert_null(swap_cache_get_folio(env.si, sw_entry(&env, base + CLUSTER)));
	/* A small folio in the middle of it conflicts. */
	small = sw_folio(&env, 0);
	assert_int_equal(add_to_swap_cache(env.si, small,
					   sw_entry(&env, base + 100),
					   GFP_KERNEL, NULL), -EEXIST);
	assert_int_equal(upc_check_swap(env.si), 0);

	delete_from_swap_cache(env.si, huge, shadow);
	assert_int_equal(folio_ref_count(huge), 1);
	swap_cache_info(env.si, &info);
	assert_int_equal(info.nr_entries, 1);
	assert_ptr_equal(sw_cache_load(&env, base), shadow);
	assert_ptr_equal(sw_cache_load(&env, base + CLUSTER - 1), shadow);

	/* A small folio inside the shadow splits it and gets it back. */
	assert_int_equal(add_to_swap_cache(env.si, small,
					   sw_entry(&env, base + 100),
					   GFP_KERNEL, &found), 0);
	assert_ptr_equal(found, shadow);
	assert_ptr_equal(sw_cache_load(&env, base + 100), small);
	assert_ptr_equal(sw_cache_load(&env, base + 101), shadow);
	assert_ptr_equal(sw_cache_load(&env, base), shadow);
	assert_int_equal(upc_check_swap(env.si), 0);
	delete_from_swap_cache(env.si, small, NULL);

	/* Freeing the run erases every shadow piece. */
	sw_free(&env, base, CLUSTER);
	swap_cache_info(env.si, &info);
	assert_int_equal(info.nr_entries, 0);
	assert_int_equal(info.nr_nodes, 0);
	sw_unlock_put(small);
	sw_unlock_put(huge);
	sw_free(&env, 0, 1);
	sw_fini(&env);
}

/*
 * One add is one walk, small or large (the shared store helper), when
 * the space's tree already reaches the slot.  An add that must grow the
 * tree (a first add at a non-zero index, or past what the top node
 * covers) restarts from the root to add the levels: the XArray counts
 * that as a second descent.  Heights come from XA_CHUNK_SHIFT.
 */
static void test_swap_cache_add_one_walk(void **state)
{
	static const struct { unsigned int order; unsigned long off; } cases[] = {
		{ 0, 0 },			/* empty: the head */
		{ 0, 77 },			/* grows */
		{ 0, 76 },
		{ 0, 3 * CLUSTER + 5 },
		{ UPC_MAX_ORDER, CLUSTER },	/* one multi-index entry */
		{ 4, 2 * CLUSTER + 64 },
	};
	enum { NR = sizeof(cases) / sizeof(cases[0]) };
	struct upc_thread_stats st;
	struct folio *folios[NR];
	unsigned int i, height = 0;
	struct sw_env env;

	(void)state;
	sw_init(&env, 4 * CLUSTER_BYTES, 0);
	/* Allocate every slot, so the check accepts the entries. */
	for (i = 0; i < 4; i++)
		sw_alloc(&env, env.huge);
	for (i = 0; i < NR; i++) {
		unsigned long last = cases[i].off + (1UL << cases[i].order) - 1;
		unsigned int walks = 1;

		if (tree_height(last) > height) {
			walks = 2;
			height = tree_height(last);
		}
		folios[i] = sw_folio(&env, cases[i].order);
		upc_stats_thread_reset();
		assert_int_equal(add_to_swap_cache(env.si, folios[i],
						   sw_entry(&env, cases[i].off),
						   GFP_KERNEL, NULL), 0);
		upc_stats_thread(&st);
		if (st.xa_walks != walks)
			fail_msg("add %u (order %u at %lu): %lu walks, not %u", i,
				 cases[i].order, cases[i].off,
				 (unsigned long)st.xa_walks, walks);
	}
	assert_int_equal(upc_check_swap(env.si), 0);
	/* Leaving over a shadow is one walk too. */
	for (i = 0; i < NR; i++) {
		upc_stats_thread_reset();
		delete_from_swap_cache(env.si, folios[i], xa_mk_value(i));
		upc_stats_thread(&st);
		assert_int_equal(st.xa_walks, 1);
		sw_unlock_put(folios[i]);
	}
	/* A lookup is one walk. */
	upc_stats_thread_reset();
	assert_null(swap_cache_get_folio(env.si, sw_entry(&env, 77)));
	upc_stats_thread(&st);
	assert_int_equal(st.xa_walks, 1);
	assert_int_equal(upc_check_swap(env.si), 0);
	sw_free(&env, 0, 4 * CLUSTER);
	sw_fini(&env);
}

/*
 * Slot @target lands in the space of its chunk, at its offset in it (at
 * its full offset with SWAP_SPACE_FULL_INDEX, in chunks of the default
 * size).
 */
static void sw_space_case(unsigned int space_shift, unsigned long slots,
			  unsigned long target)
{
	bool full = space_shift == SWAP_SPACE_FULL_INDEX;
	unsigned int shift = full ? SWAP_ADDRESS_SPACE_SHIFT : space_shift;
	unsigned long index = full ? target : target & ((1UL << shift) - 1);
	unsigned long space = target >> shift;
	swp_entry_t entry;
	struct folio *folio;
	struct sw_env env;
	unsigned long off, i;

	sw_init(&env, (unsigned long long)slots << UPC_PAGE_SHIFT, space_shift);
	assert_int_equal(env.si->nr_spaces,
			 (slots + (1UL << shift) - 1) >> shift);
	/* Huge runs from slot 0 up, until one covers @target. */
	do
		off = sw_alloc(&env, env.huge);
	while (off + CLUSTER <= target);
	entry = sw_entry(&env, target);
	assert_ptr_equal(swap_address_space(env.si, entry),
			 &env.si->spaces[space]);
	assert_int_equal(swap_cache_index(env.si, entry), index);

	folio = sw_folio(&env, 0);
	assert_int_equal(add_to_swap_cache(env.si, folio, entry, GFP_KERNEL,
					   NULL), 0);
	assert_ptr_equal(xa_load(&env.si->spaces[space].i_pages, index), folio);
	for (i = 0; i < env.si->nr_spaces; i++)
		if (i != space)
			assert_true(xa_empty(&env.si->spaces[i].i_pages));
	assert_int_equal(env.si->spaces[space].nrpages, 1);
	assert_int_equal(upc_check_swap(env.si), 0);
	delete_from_swap_cache(env.si, folio, NULL);
	assert_true(xa_empty(&env.si->spaces[space].i_pages));
	sw_unlock_put(folio);
	sw_free(&env, 0, env.si->max);
	sw_fini(&env);
}

static void test_swap_cache_spaces(void **state)
{
	(void)state;
	/* 2^15 slots: two chunks of the default shift. */
	sw_space_case(SWAP_ADDRESS_SPACE_SHIFT, 1UL << 15, 20000);
	sw_space_case(SWAP_SPACE_FULL_INDEX, 1UL << 15, 20000);
	/* Chunks smaller than a cluster: 8 per cluster. */
	sw_space_case(SWAP_SPACE_SHIFT_MIN, 2 * CLUSTER, 100);
	sw_space_case(SWAP_SPACE_SHIFT_MIN, 2 * CLUSTER, 2 * CLUSTER - 1);
}

/* Measure a 2^20-slot device holding one folio at slot @off. */
static void sw_info_case(unsigned int shift, unsigned long off,
			 struct swap_cache_info *info)
{
	int fd = sw_tmpfile();	/* no 4 GiB buffer: nothing is written */
	struct folio *folio;
	struct sw_env env;
	unsigned long got;

	sw_init_fd(&env, fd, (1ULL << 20) << UPC_PAGE_SHIFT, shift);
	swap_cache_info(env.si, info);
	assert_int_equal(info->nr_nodes, 0);
	assert_int_equal(info->max_height, 0);
	assert_int_equal(info->nr_entries, 0);
	do
		got = sw_alloc(&env, env.huge);
	while (got + CLUSTER <= off);
	folio = sw_folio(&env, 0);
	assert_int_equal(add_to_swap_cache(env.si, folio, sw_entry(&env, off),
					   GFP_KERNEL, NULL), 0);
	swap_cache_info(env.si, info);
	assert_int_equal(upc_check_swap(env.si), 0);
	delete_from_swap_cache(env.si, folio, NULL);
	sw_unlock_put(folio);
	sw_free(&env, 0, got + CLUSTER);
	sw_fini(&env);
	close(fd);
}

static void test_swap_cache_info_heights(void **state)
{
	const unsigned long high = (1UL << 20) - 1;
	const unsigned long in_chunk = high & ((1UL << SWAP_ADDRESS_SPACE_SHIFT) - 1);
	struct swap_cache_info whole, chunked, low;

	(void)state;
	/* The same 64 MiB spaces, keyed by the full offset or inside it. */
	sw_info_case(SWAP_SPACE_FULL_INDEX, high, &whole);
	sw_info_case(SWAP_ADDRESS_SPACE_SHIFT, high, &chunked);
	assert_int_equal(whole.nr_spaces,
			 1UL << (20 - SWAP_ADDRESS_SPACE_SHIFT));
	assert_int_equal(chunked.nr_spaces,
			 1UL << (20 - SWAP_ADDRESS_SPACE_SHIFT));
	/* One entry: one node per level on its path. */
	assert_int_equal(whole.max_height, tree_height(high));
	assert_int_equal(chunked.max_height, tree_height(in_chunk));
	assert_true(whole.max_height > chunked.max_height);
	assert_int_equal(whole.nr_nodes, whole.max_height);
	assert_int_equal(chunked.nr_nodes, chunked.max_height);
	assert_int_equal(whole.node_bytes, whole.nr_nodes * sizeof(struct xa_node));
	assert_int_equal(chunked.node_bytes,
			 chunked.nr_nodes * sizeof(struct xa_node));
	assert_int_equal(whole.nr_entries, 1);
	assert_int_equal(chunked.nr_entries, 1);
	/* Slot 0 of a chunk is the head: no node at all. */
	sw_info_case(SWAP_ADDRESS_SPACE_SHIFT, 1UL << SWAP_ADDRESS_SPACE_SHIFT,
		     &low);
	assert_int_equal(low.max_height, 0);
	assert_int_equal(low.nr_nodes, 0);
	assert_int_equal(low.nr_entries, 1);
}

/* Freeing slots erases their shadows, and only theirs. */
static void test_swap_free_clears_shadows(void **state)
{
	struct swap_cache_info info;
	struct folio *folios[4];
	struct sw_env env;
	unsigned int i;

	(void)state;
	sw_init(&env, 2 * CLUSTER_BYTES, 0);
	for (i = 0; i < 4; i++) {
		unsigned long off = sw_alloc(&env, env.small);

		folios[i] = sw_folio(&env, 0);
		assert_int_equal(add_to_swap_cache(env.si, folios[i],
						   sw_entry(&env, off),
						   GFP_KERNEL, NULL), 0);
		/* Folio 3 stays in the cache; the others leave shadows. */
		if (i != 3)
			delete_from_swap_cache(env.si, folios[i],
					       xa_mk_value(100 + i));
	}
	swap_cache_info(env.si, &info);
	assert_int_equal(info.nr_entries, 4);
	sw_free(&env, 1, 2);
	assert_ptr_equal(sw_cache_load(&env, 0), xa_mk_value(100));
	assert_null(sw_cache_load(&env, 1));
	assert_null(sw_cache_load(&env, 2));
	swap_cache_info(env.si, &info);
	assert_int_equal(info.nr_entries, 2);
	assert_int_equal(upc_check_swap(env.si), 0);
	/*
	 * A reused slot hands no stranger's shadow to its next folio.  The
	 * cluster's cursor hands out the rest of the cluster first, then
	 * wraps to the freed slot 1.
	 */
	for (i = 4; i < CLUSTER; i++)
		assert_int_equal(sw_alloc(&env, env.small), i);
	assert_int_equal(sw_alloc(&env, env.small), 1);
	{
		void *found = (void *)1;
		struct folio *f = sw_folio(&env, 0);

		assert_int_equal(add_to_swap_cache(env.si, f, sw_entry(&env, 1),
						   GFP_KERNEL, &found), 0);
		assert_null(found);
		delete_from_swap_cache(env.si, f, NULL);
		sw_unlock_put(f);
	}
	delete_from_swap_cache(env.si, folios[3], NULL);
	sw_free(&env, 0, CLUSTER);
	assert_int_equal(env.si->inuse_pages, 0);
	swap_cache_info(env.si, &info);
	assert_int_equal(info.nr_entries, 0);
	for (i = 0; i < 4; i++)
		sw_unlock_put(folios[i]);
	sw_fini(&env);
}

/* A shadow (value i + 1) at each slot @offs[i], left by a swap cache add. */
static void sw_put_shadows(struct sw_env *env, const unsigned long *offs,
			   unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		struct folio *folio = sw_folio(env, 0);

		assert_int_equal(add_to_swap_cache(env->si, folio,
						   sw_entry(env, offs[i]),
						   GFP_KERNEL, NULL), 0);
		delete_from_swap_cache(env->si, folio, xa_mk_value(i + 1));
		sw_unlock_put(folio);
	}
}

/*
 * sw_put_large_shadow() - Swap an order-9 folio's slots in and out of
 * the swap cache, leaving @shadow over all of them.  Return: the first.
 */
static unsigned long sw_put_large_shadow(struct sw_env *env, void *shadow)
{
	struct folio *huge = sw_folio(env, UPC_MAX_ORDER);
	unsigned long base = sw_alloc(env, huge);

	assert_int_equal(add_to_swap_cache(env->si, huge, sw_entry(env, base),
					   GFP_KERNEL, NULL), 0);
	delete_from_swap_cache(env->si, huge, shadow);
	sw_unlock_put(huge);
	return base;
}

/*
 * Freeing some slots of a large folio's shadow erases their part only:
 * the slots around them are still in use and keep the shadow
 * (regression: the whole order-9 shadow went with its first slot freed).
 */
static void test_swap_free_cuts_large_shadow(void **state)
{
	void *shadow = xa_mk_value(0x5ad0);
	unsigned long base, i;
	struct sw_env env;

	(void)state;
	sw_init(&env, 2 * CLUSTER_BYTES, 0);
	base = sw_put_large_shadow(&env, shadow);

	/* One slot inside, then a range across several pieces. */
	sw_free(&env, base + 5, 1);
	sw_free(&env, base + 100, 201);
	for (i = 0; i < CLUSTER; i++) {
		bool freed = i == 5 || (i >= 100 && i <= 300);

		if (sw_cache_load(&env, base + i) != (freed ? NULL : shadow))
			fail_msg("slot %lu: %p", i, sw_cache_load(&env,
							base + i));
	}
	assert_int_equal(upc_check_swap(env.si), 0);
	/* The last slot, then the rest: nothing is left. */
	sw_free(&env, base + CLUSTER - 1, 1);
	assert_null(sw_cache_load(&env, base + CLUSTER - 1));
	assert_ptr_equal(sw_cache_load(&env, base + CLUSTER - 2), shadow);
	sw_free(&env, base, 5);
	sw_free(&env, base + 6, 94);
	sw_free(&env, base + 301, CLUSTER - 302);
	{
		struct swap_cache_info info;

		swap_cache_info(env.si, &info);
		assert_int_equal(info.nr_entries, 0);
		assert_int_equal(info.nr_nodes, 0);
	}
	assert_int_equal(env.si->inuse_pages, 0);

	/*
	 * With no node to cut it, the whole shadow goes, and only it: the
	 * walk goes on over the range's other entries one slot at a time,
	 * past the shadow (regression: it went on with the shadow's order
	 * and erased 8 slots at each, a swap cache folio past the range
	 * included).
	 */
	base = sw_put_large_shadow(&env, shadow);
	{
		const unsigned long offs[] = { base + CLUSTER,
					       base + CLUSTER + 1,
					       base + CLUSTER + 7 };
		swp_entry_t at = sw_entry(&env, base + CLUSTER + 6);
		struct folio *folio = sw_folio(&env, 0);

		assert_int_equal(sw_alloc(&env, env.huge), base + CLUSTER);
		sw_put_shadows(&env, offs, 3);
		assert_int_equal(add_to_swap_cache(env.si, folio, at,
						   GFP_KERNEL, NULL), 0);
		upc_fault_fail_from(1);
		swap_cache_clear_shadows(env.si, sw_entry(&env, base + 5),
					 CLUSTER);
		upc_fault_fail_nth(0);
		assert_null(sw_cache_load(&env, base));
		assert_null(sw_cache_load(&env, base + CLUSTER - 1));
		assert_null(sw_cache_load(&env, base + CLUSTER));
		assert_null(sw_cache_load(&env, base + CLUSTER + 1));
		assert_ptr_equal(sw_cache_load(&env, base + CLUSTER + 6),
				 folio);
		assert_ptr_equal(sw_cache_load(&env, base + CLUSTER + 7),
				 xa_mk_value(3));
		assert_int_equal(upc_check_swap(env.si), 0);
		delete_from_swap_cache(env.si, folio, NULL);
		sw_unlock_put(folio);
	}
	sw_free(&env, base, 2 * CLUSTER);
	sw_fini(&env);
}

/*
 * Chunks smaller than a run: freeing the run clears the shadows in every
 * chunk it covers (regression: only the first chunk's were cleared, the
 * others outlived their slots and upc_check_swap() failed).
 */
static void test_swap_free_clears_shadows_across_chunks(void **state)
{
	static const unsigned long offs[] = { 10, 100, 700, 2 * CLUSTER - 1 };
	enum { NR = sizeof(offs) / sizeof(offs[0]) };
	struct swap_cache_info info;
	struct sw_env env;
	unsigned int i;

	(void)state;
	sw_init(&env, 2 * CLUSTER_BYTES, SWAP_SPACE_SHIFT_MIN);
	sw_alloc(&env, env.huge);
	sw_alloc(&env, env.huge);
	sw_put_shadows(&env, offs, NR);
	swap_cache_info(env.si, &info);
	assert_int_equal(info.nr_entries, NR);
	/* One call over both clusters: sixteen chunks. */
	sw_free(&env, 0, 2 * CLUSTER);
	for (i = 0; i < NR; i++)
		assert_null(sw_cache_load(&env, offs[i]));
	swap_cache_info(env.si, &info);
	assert_int_equal(info.nr_entries, 0);
	assert_int_equal(upc_check_swap(env.si), 0);
	sw_fini(&env);
}

/*
 * The same across the 64 MiB chunk boundary when keys are full offsets
 * (SWAP_SPACE_FULL_INDEX, the layout before seed 003): each chunk's part
 * is cleared in its own space, and a shadow just past the run stays.
 */
static void test_swap_free_clears_shadows_full_index(void **state)
{
	const unsigned long chunk = 1UL << SWAP_ADDRESS_SPACE_SHIFT;
	const unsigned long offs[] = { chunk - 4, chunk - 1, chunk,
				       chunk + 5, chunk + 6 };
	enum { NR = sizeof(offs) / sizeof(offs[0]) };
	struct sw_env env;
	unsigned long got;
	unsigned int i;

	(void)state;
	sw_init(&env, (2 * chunk) << UPC_PAGE_SHIFT, SWAP_SPACE_FULL_INDEX);
	do
		got = sw_alloc(&env, env.huge);
	while (got + CLUSTER <= chunk + 6);
	sw_put_shadows(&env, offs, NR);
	assert_non_null(xa_load(&env.si->spaces[1].i_pages, chunk));
	/* [chunk - 4, chunk + 5]: both chunks' parts, not chunk + 6. */
	sw_free(&env, chunk - 4, 10);
	for (i = 0; i < NR - 1; i++)
		assert_null(sw_cache_load(&env, offs[i]));
	assert_non_null(sw_cache_load(&env, chunk + 6));
	assert_int_equal(upc_check_swap(env.si), 0);
	sw_free(&env, 0, chunk - 4);
	sw_free(&env, chunk + 6, got + CLUSTER - (chunk + 6));
	sw_fini(&env);
}

/*
 * A folio fits the swap cache only within one chunk: up to the chunk's
 * size it is one multi-index entry every page finds; a larger one is
 * refused (regression: it was stored in its first chunk alone, where
 * lookups of its other pages missed it).
 */
static void test_swap_cache_folio_vs_chunk(void **state)
{
	struct folio *folio, *got;
	struct sw_env env;
	unsigned long i;

	(void)state;
	sw_init(&env, 2 * CLUSTER_BYTES, SWAP_SPACE_SHIFT_MIN);
	sw_alloc(&env, env.huge);
	folio = sw_folio(&env, UPC_MAX_ORDER);
	assert_int_equal(add_to_swap_cache(env.si, folio, sw_entry(&env, 0),
					   GFP_KERNEL, NULL), -EINVAL);
	assert_false(folio_test_swapcache(folio));
	assert_null(folio->private);
	assert_int_equal(folio_ref_count(folio), 1);
	sw_unlock_put(folio);
	/* A chunk's worth (order 6) at chunk 2: one entry, all pages. */
	folio = sw_folio(&env, SWAP_SPACE_SHIFT_MIN);
	assert_int_equal(add_to_swap_cache(env.si, folio, sw_entry(&env, 128),
					   GFP_KERNEL, NULL), 0);
	assert_int_equal(env.si->spaces[2].nrpages, 64);
	for (i = 128; i < 192; i += 9) {
		got = swap_cache_get_folio(env.si, sw_entry(&env, i));
		assert_ptr_equal(got, folio);
		folio_put(got);
	}
	assert_null(swap_cache_get_folio(env.si, sw_entry(&env, 192)));
	assert_int_equal(upc_check_swap(env.si), 0);
	delete_from_swap_cache(env.si, folio, NULL);
	sw_unlock_put(folio);
	sw_free(&env, 0, CLUSTER);
	sw_fini(&env);

	/* Chunks of a cluster: a huge folio is exactly one. */
	sw_init(&env, 2 * CLUSTER_BYTES, UPC_MAX_ORDER);
	assert_int_equal(sw_alloc(&env, env.huge), 0);
	assert_int_equal(sw_alloc(&env, env.huge), CLUSTER);
	folio = sw_folio(&env, UPC_MAX_ORDER);
	assert_int_equal(add_to_swap_cache(env.si, folio,
					   sw_entry(&env, CLUSTER),
					   GFP_KERNEL, NULL), 0);
	got = swap_cache_get_folio(env.si, sw_entry(&env, 2 * CLUSTER - 1));
	assert_ptr_equal(got, folio);
	folio_put(got);
	assert_int_equal(upc_check_swap(env.si), 0);
	delete_from_swap_cache(env.si, folio, NULL);
	sw_unlock_put(folio);
	sw_free(&env, 0, 2 * CLUSTER);
	sw_fini(&env);
}

/*
 * Each allocation of an add fails in turn: the add either absorbs it
 * (the node is allocated again outside the lock) or fails with -ENOMEM
 * and leaves the folio out and unchanged.
 */
static void test_swap_cache_add_enomem(void **state)
{
	struct folio *folio;
	struct sw_env env;
	unsigned long n;
	bool injected;
	int err;

	(void)state;
	sw_init(&env, 2 * CLUSTER_BYTES, 0);
	sw_alloc(&env, env.huge);
	folio = sw_folio(&env, 0);
	for (n = 1;; n++) {
		assert_true(n < 100);
		upc_fault_fail_nth(n);
		err = add_to_swap_cache(env.si, folio, sw_entry(&env, 300),
					GFP_KERNEL, NULL);
		injected = upc_fault_injected();
		upc_fault_fail_nth(0);
		if (err) {
			assert_int_equal(err, -ENOMEM);
			assert_true(injected);
			assert_false(folio_test_swapcache(folio));
			assert_null(folio->private);
			assert_int_equal(folio_ref_count(folio), 1);
			assert_null(sw_cache_load(&env, 300));
		} else {
			assert_ptr_equal(sw_cache_load(&env, 300), folio);
			delete_from_swap_cache(env.si, folio, NULL);
		}
		assert_int_equal(upc_check_swap(env.si), 0);
		if (!injected)
			break;
	}
	/* The add into an empty tree allocates (two levels of nodes). */
	assert_true(n > 1);
	sw_unlock_put(folio);
	sw_free(&env, 0, CLUSTER);
	sw_fini(&env);
}

/*
 * A swap-in pins its slot (SWAP_HAS_CACHE) while its folio is in the
 * swap cache.  A slot freed by its owner meanwhile stays in use until the
 * pin goes, so no swap-out is handed a slot whose swap cache entry is
 * taken: a stale swap-in used to leave its folio at a free slot, and
 * every swap-out handed that slot failed with -EEXIST, reclaim freed
 * nothing and reads failed with -ENOMEM (seen in
 * test_anon_concurrency).  A free slot cannot be pinned at all.
 */
static void test_swap_slot_pin(void **state)
{
	struct sw_env env;
	unsigned long s, off, n = 0;
	swp_entry_t e;

	(void)state;
	sw_init(&env, CLUSTER_BYTES, 0);
	s = sw_alloc(&env, env.small);
	assert_int_equal(swapcache_prepare(env.si, s, 1), 0);
	assert_int_equal(env.si->swap_map[s], SWAP_MAP_USED | SWAP_HAS_CACHE);
	assert_int_equal(swapcache_prepare(env.si, s, 1), -EEXIST);
	/* The owner lets go: the slot stays in use for the swap-in. */
	sw_free(&env, s, 1);
	assert_int_equal(env.si->swap_map[s], SWAP_HAS_CACHE);
	assert_int_equal(env.si->inuse_pages, 1);
	assert_int_equal(upc_check_swap(env.si), 0);
	/* Every other slot can be had, that one not. */
	while (!folio_alloc_swap(env.si, env.small, &e)) {
		assert_int_not_equal(swp_offset(e), s);
		n++;
	}
	assert_int_equal(n, CLUSTER - 1);
	/* The pin goes: the slot is free, and handed out again. */
	swap_slots_put(env.si, s, 1, SWAP_HAS_CACHE);
	assert_int_equal(env.si->swap_map[s], 0);
	assert_int_equal(sw_alloc(&env, env.small), s);
	/* A free slot cannot be pinned: its entry was stale. */
	sw_free(&env, 0, CLUSTER);
	for (off = 0; off < CLUSTER; off++)
		assert_int_equal(swapcache_prepare(env.si, off, 1), -ENOENT);
	assert_int_equal(env.si->inuse_pages, 0);
	sw_fini(&env);
}

/*
 * upc_check_swap() catches a wholly free cluster that is neither on the
 * free stack nor current (the allocator would never hand it out again),
 * and a stacked cluster with slots in use.
 */
static void test_swap_check_clusters(void **state)
{
	struct sw_env env;
	unsigned long top, off;

	(void)state;
	sw_init(&env, 4 * CLUSTER_BYTES, 0);
	off = sw_alloc(&env, env.small);
	assert_int_equal(upc_check_swap(env.si), 0);
	/* Forget the top of the stack: an idle cluster nobody has. */
	top = env.si->free_clusters[--env.si->nr_free_clusters];
	assert_int_equal(upc_check_swap(env.si), -EUCLEAN);
	env.si->free_clusters[env.si->nr_free_clusters++] = top;
	assert_int_equal(upc_check_swap(env.si), 0);
	/* Stack the current cluster, whose slot is in use. */
	env.si->free_clusters[env.si->nr_free_clusters++] =
		off / CLUSTER;
	assert_int_equal(upc_check_swap(env.si), -EUCLEAN);
	env.si->nr_free_clusters--;
	sw_free(&env, off, 1);
	sw_fini(&env);
}

/*
 * A large swap-in pins all of its entry's slots or none: one slot
 * already pinned, or one freed, and the others are left as they were.
 */
static void test_swap_slot_pin_range(void **state)
{
	const unsigned long nr = 1UL << UPC_MAX_ORDER;
	struct sw_env env;
	unsigned long off, i;

	(void)state;
	sw_init(&env, 2 * CLUSTER_BYTES, 0);
	off = sw_alloc(&env, env.huge);
	/* Another swap-in holds the last slot: -EEXIST, nothing pinned. */
	assert_int_equal(swapcache_prepare(env.si, off + nr - 1, 1), 0);
	assert_int_equal(swapcache_prepare(env.si, off, nr), -EEXIST);
	for (i = 0; i < nr - 1; i++)
		assert_int_equal(env.si->swap_map[off + i], SWAP_MAP_USED);
	swap_slots_put(env.si, off + nr - 1, 1, SWAP_HAS_CACHE);
	/* One slot freed (a stale entry): -ENOENT, nothing pinned. */
	sw_free(&env, off + 7, 1);
	assert_int_equal(swapcache_prepare(env.si, off, nr), -ENOENT);
	for (i = 0; i < nr; i++)
		assert_int_equal(env.si->swap_map[off + i],
				 i == 7 ? 0 : SWAP_MAP_USED);
	sw_free(&env, off, 7);
	sw_free(&env, off + 8, nr - 8);
	/* All there: all pinned, and all let go together. */
	off = sw_alloc(&env, env.huge);
	assert_int_equal(swapcache_prepare(env.si, off, nr), 0);
	for (i = 0; i < nr; i++)
		assert_int_equal(env.si->swap_map[off + i],
				 SWAP_MAP_USED | SWAP_HAS_CACHE);
	swap_slots_put(env.si, off, nr, SWAP_HAS_CACHE | SWAP_MAP_USED);
	assert_int_equal(env.si->inuse_pages, 0);
	assert_int_equal(upc_check_swap(env.si), 0);
	sw_fini(&env);
}

/* ---- the reclaim hook ------------------------------------------------------ */

/*
 * upc_check_swap()'s tests, each tripped alone: a cluster's count, the
 * device's in-use count, a free cluster stacked twice, the current
 * cluster stacked in place of an idle one, and in the swap cache: a
 * key outside its chunk, a shadow of a free slot, a folio not in the
 * swap cache, a swap cache folio of a free slot, a page count one off,
 * and a space's tree the XArray checker rejects.
 */
static void test_swap_check_each(void **state)
{
	struct address_space *space;
	struct folio *folio;
	unsigned long off, c, saved;
	struct sw_env env;

	(void)state;
	sw_init(&env, 4 * CLUSTER_BYTES, 0);
	off = sw_alloc(&env, env.small);
	c = off / CLUSTER;
	space = &env.si->spaces[0];
	assert_int_equal(env.si->nr_free_clusters, 3);
	assert_int_equal(upc_check_swap(env.si), 0);

	env.si->cluster_used[c]++;
	assert_int_equal(upc_check_swap(env.si), -EUCLEAN);
	env.si->cluster_used[c]--;

	env.si->inuse_pages++;
	assert_int_equal(upc_check_swap(env.si), -EUCLEAN);
	env.si->inuse_pages--;

	saved = env.si->free_clusters[1];
	env.si->free_clusters[1] = env.si->free_clusters[0];
	assert_int_equal(upc_check_swap(env.si), -EUCLEAN);
	env.si->free_clusters[1] = c;
	assert_int_equal(upc_check_swap(env.si), -EUCLEAN);
	env.si->free_clusters[1] = saved;
	assert_int_equal(upc_check_swap(env.si), 0);

	assert_null(xa_store(&space->i_pages,
			     (1UL << env.si->space_shift) + off,
			     xa_mk_value(1), GFP_KERNEL));
	assert_int_equal(upc_check_swap(env.si), -EUCLEAN);
	xa_erase(&space->i_pages, (1UL << env.si->space_shift) + off);

	assert_null(xa_store(&space->i_pages, off + 1, xa_mk_value(1),
			     GFP_KERNEL));
	assert_int_equal(upc_check_swap(env.si), -EUCLEAN);
	xa_erase(&space->i_pages, off + 1);

	folio = sw_folio(&env, 0);
	assert_null(xa_store(&space->i_pages, off, folio, GFP_KERNEL));
	space->nrpages++;
	assert_int_equal(upc_check_swap(env.si), -EUCLEAN);
	xa_erase(&space->i_pages, off);
	folio_set_swapcache(folio);
	folio->private = (void *)sw_entry(&env, off + 1).val;
	assert_null(xa_store(&space->i_pages, off + 1, folio, GFP_KERNEL));
	assert_int_equal(upc_check_swap(env.si), -EUCLEAN);
	xa_erase(&space->i_pages, off + 1);
	space->nrpages--;
	folio_clear_swapcache(folio);
	folio->private = NULL;
	assert_int_equal(upc_check_swap(env.si), 0);

	space->nrpages++;
	assert_int_equal(upc_check_swap(env.si), -EUCLEAN);
	space->nrpages--;

	space->i_pages.xa_flags |= XA_FLAGS_MARK(XA_MARK_1);
	assert_int_equal(upc_check_swap(env.si), -EUCLEAN);
	space->i_pages.xa_flags &= ~XA_FLAGS_MARK(XA_MARK_1);

	sw_unlock_put(folio);
	sw_free(&env, off, 1);
	sw_fini(&env);
}

/*
 * upc_check_mapping() on a swap-backed mapping: a swap entry must name
 * slots in use, a large one slots aligned to its size; a folio keeping
 * its slots (PG_swapslot) needs a mapping that keeps them
 * (AS_SWAP_KEEP) and slots still in use.  Each corruption made, caught
 * and undone.
 */
static void test_check_mapping_swap_entries(void **state)
{
	XA_STATE_ORDER(xas, NULL, 8, 1);
	struct address_space m;
	unsigned long off, i;
	struct folio *folio;
	struct sw_env env;
	swp_entry_t kept;

	(void)state;
	sw_init(&env, 4 * CLUSTER_BYTES, 0);
	address_space_init(&m, env.f.arena, NULL, 1UL << AS_SWAPBACKED);
	/* Slots off .. off + 3 in use, off aligned to 4. */
	off = sw_alloc(&env, env.small);
	for (i = 1; i < 4; i++)
		assert_int_equal(sw_alloc(&env, env.small), off + i);
	assert_int_equal(off % 4, 0);
	assert_null(xa_store(&m.i_pages, 5, swp_to_radix_entry(
				sw_entry(&env, off)), GFP_KERNEL));
	assert_int_equal(upc_check_mapping(&m), 0);

	/* A swap entry naming a free slot. */
	assert_null(xa_store(&m.i_pages, 6, swp_to_radix_entry(
				sw_entry(&env, off + 4)), GFP_KERNEL));
	assert_int_equal(upc_check_mapping(&m), -EUCLEAN);
	xa_erase(&m.i_pages, 6);

	/* Two pages' entry naming slots off + 1 and off + 2: unaligned. */
	xas.xa = &m.i_pages;
	xas_lock(&xas);
	xas_store(&xas, swp_to_radix_entry(sw_entry(&env, off + 1)));
	xas_unlock(&xas);
	assert_int_equal(xas_error(&xas), 0);
	assert_int_equal(upc_check_mapping(&m), -EUCLEAN);
	xas_lock(&xas);
	xas_store(&xas, NULL);
	xas_unlock(&xas);
	assert_int_equal(upc_check_mapping(&m), 0);

	/* A folio keeping slot off + 3. */
	folio = sw_folio(&env, 0);
	folio_set_uptodate(folio);
	assert_int_equal(filemap_add_folio(&m, folio, 10, GFP_KERNEL), 0);
	kept = sw_entry(&env, off + 3);
	folio->private = (void *)kept.val;
	folio_set_swapslot(folio);
	assert_int_equal(upc_check_mapping(&m), -EUCLEAN);
	m.flags |= 1UL << AS_SWAP_KEEP;
	assert_int_equal(upc_check_mapping(&m), 0);
	sw_free(&env, off + 3, 1);
	assert_int_equal(upc_check_mapping(&m), -EUCLEAN);
	folio_clear_swapslot(folio);
	folio->private = NULL;
	assert_int_equal(upc_check_mapping(&m), 0);

	sw_unlock_put(folio);
	xa_erase(&m.i_pages, 5);
	truncate_inode_pages(&m, 0);
	lru_add_drain_all(env.f.arena);
	xa_destroy(&m.i_pages);
	sw_free(&env, off, 3);
	sw_fini(&env);
}

/*
 * struct upc_swap_ops.swap_out, the hook for one folio (reclaim's path
 * for a hook without a batch call, which swap_reclaim_ops also serves):
 * a locked uptodate folio is written to the slot handed out for it and
 * leaves the swap cache with its shadow, and its entry comes back; one
 * that kept its slots (PG_swapslot) goes back to them with no write;
 * one not uptodate, which holds no data, is refused and holds nothing.
 */
static void test_swap_reclaim_out_one(void **state)
{
	struct folio *folio, *back;
	void *value = NULL;
	swp_entry_t entry;
	struct sw_env env;
	int fd = sw_tmpfile();

	(void)state;
	sw_init_fd(&env, fd, 2 * CLUSTER_BYTES, 0);
	folio = sw_folio(&env, 0);
	sw_fill(folio, 9);
	assert_int_equal(swap_reclaim_ops.swap_out(folio, &value, env.si),
			 -EINVAL);
	assert_null(value);
	assert_int_equal(env.si->inuse_pages, 0);

	folio_set_uptodate(folio);
	assert_int_equal(swap_reclaim_ops.swap_out(folio, &value, env.si), 0);
	assert_true(xa_is_value(value));
	entry = radix_to_swp_entry(value);
	assert_int_equal(swp_type(entry), env.si->type);
	assert_int_equal(env.si->pswpout, 1);
	assert_int_equal(env.si->inuse_pages, 1);
	assert_false(folio_test_swapcache(folio));
	assert_null(folio->private);
	assert_int_equal(folio_ref_count(folio), 1);
	assert_true(xa_is_value(sw_cache_load(&env, swp_offset(entry))));
	assert_int_equal(upc_check_swap(env.si), 0);
	/* The slot holds the folio's bytes. */
	back = sw_folio(&env, 0);
	assert_int_equal(swap_read_folio(env.si, back, entry), 0);
	assert_true(sw_matches(back, 9));

	/* Kept (as swapin_release_slots() leaves it): the same slot, no write. */
	folio->private = (void *)entry.val;
	folio_set_swapslot(folio);
	env.si->nr_kept = 1;
	value = NULL;
	assert_int_equal(swap_reclaim_ops.swap_out(folio, &value, env.si), 0);
	assert_ptr_equal(value, swp_to_radix_entry(entry));
	assert_false(folio_test_swapslot(folio));
	assert_int_equal(env.si->nr_kept, 0);
	assert_int_equal(env.si->pswpout, 1);
	assert_int_equal(env.si->inuse_pages, 1);
	assert_int_equal(upc_check_swap(env.si), 0);

	sw_unlock_put(back);
	sw_unlock_put(folio);
	swap_free_nr(entry, 1);
	sw_fini(&env);
	close(fd);
}

/* ---- swap-in on a mapping made by hand --------------------------------------- */

/*
 * A swap-backed mapping standing for an anonymous region's page table,
 * whose swap entries the tests below lay out slot by slot; @keep sets
 * AS_SWAP_KEEP (pages swapped in from a file may keep their slots).
 */
static void sw_map_init(struct sw_env *env, struct address_space *m, bool keep)
{
	address_space_init(m, env->f.arena, NULL,
			   (1UL << AS_SWAPBACKED) |
			   (keep ? 1UL << AS_SWAP_KEEP : 0));
}

/*
 * sw_map_swap() - Pages [@index, @index + 2^@order) of @m as if swapped
 * out to slots from @off (handed out, aligned): the slots hold pattern
 * @seed (sw_fill() of a folio of that order), and @m one entry of that
 * order naming @off.
 */
static void sw_map_swap(struct sw_env *env, struct address_space *m,
			pgoff_t index, unsigned int order, unsigned long off,
			unsigned int seed)
{
	XA_STATE_ORDER(xas, &m->i_pages, index, order);
	struct folio *folio = sw_folio(env, order);

	sw_fill(folio, seed);
	assert_int_equal(swap_write_folio(env->si, folio, sw_entry(env, off)),
			 0);
	sw_unlock_put(folio);
	do {
		xas_lock(&xas);
		xas_store(&xas, swp_to_radix_entry(sw_entry(env, off)));
		xas_unlock(&xas);
	} while (xas_nomem(&xas, GFP_KERNEL));
	assert_int_equal(xas_error(&xas), 0);
}

/* The folio of page @index of @m, or NULL if it is not in memory. */
static struct folio *sw_map_folio(struct address_space *m, pgoff_t index)
{
	void *entry = xa_load(&m->i_pages, index);

	return entry && !xa_is_value(entry) ? entry : NULL;
}

/* sw_map_fini() - Check @m, free its slots and folios, and drop it. */
static void sw_map_fini(struct sw_env *env, struct address_space *m)
{
	assert_int_equal(upc_check_mapping(m), 0);
	assert_int_equal(upc_check_swap(env->si), 0);
	swap_free_range(m, 0, ULONG_MAX);
	truncate_inode_pages(m, 0);
	lru_add_drain_all(env->f.arena);
	assert_int_equal(m->nrpages, 0);
	assert_true(xa_empty(&m->i_pages));
	xa_destroy(&m->i_pages);
}

/*
 * swapin_readahead()'s window on a swap file, pages 0.. in slots 0.. in
 * order: a swap-in that does not follow the last one reads its page
 * alone; each one that does reads twice as many pages as the last one,
 * the page asked for included, up to SWAP_RA_MAX, as far as pages with
 * entries of the following slots go; all in one system call, each page
 * with its own data; and @ra is left after the last page read, with the
 * pages read as its window.
 */
static void test_swap_readahead_window(void **state)
{
	enum { NR = 4 * SWAP_RA_MAX };
	struct io_counters *io = io_thread_counters();
	struct swap_ra_state ra = { .next = (pgoff_t)-1 };
	unsigned long window = 1, want, index = 0, i;
	struct address_space m;
	struct folio *folio;
	struct sw_env env;
	int fd = sw_tmpfile();

	(void)state;
	sw_init_fd(&env, fd, 2 * CLUSTER_BYTES, 0);
	sw_map_init(&env, &m, false);
	for (i = 0; i < NR; i++) {
		assert_int_equal(sw_alloc(&env, env.small), i);
		sw_map_swap(&env, &m, i, 0, i, 100 + (unsigned int)i);
	}
	while (index < NR) {
		uint64_t syscalls = io->syscalls, pswpin = env.si->pswpin;

		want = window < NR - index ? window : NR - index;
		folio = swapin_readahead(&m, index, xa_load(&m.i_pages, index),
					 GFP_KERNEL, &ra);
		assert_false(IS_ERR(folio));
		assert_int_equal(folio->index, index);
		folio_put(folio);
		if (env.si->pswpin - pswpin != want)
			fail_msg("swap-in at page %lu read %lu pages, not %lu",
				 index, (unsigned long)(env.si->pswpin - pswpin),
				 want);
		assert_int_equal(io->syscalls - syscalls, 1);
		for (i = index; i < index + want; i++) {
			folio = sw_map_folio(&m, i);
			assert_non_null(folio);
			assert_true(sw_matches(folio, 100 + (unsigned int)i));
		}
		if (index + want < NR)
			assert_true(xa_is_value(xa_load(&m.i_pages,
							 index + want)));
		assert_int_equal(ra.next, index + want);
		assert_int_equal(ra.window, want);
		index += want;
		window = 2 * want < SWAP_RA_MAX ? 2 * want : SWAP_RA_MAX;
	}
	/* Without AS_SWAP_KEEP every slot was let go. */
	assert_int_equal(env.si->inuse_pages, 0);
	assert_int_equal(env.si->nr_kept, 0);
	sw_map_fini(&env, &m);

	/*
	 * A state left zeroed (the last swap-in ended at page 0, having
	 * read nothing): a swap-in at page 0 follows it, so it reads ahead,
	 * the smallest window that does: 2 pages.
	 */
	sw_map_init(&env, &m, false);
	for (i = 0; i < 4; i++) {
		assert_int_equal(sw_alloc(&env, env.small), NR + i);
		sw_map_swap(&env, &m, i, 0, NR + i, 200 + (unsigned int)i);
	}
	ra = (struct swap_ra_state){ 0 };
	folio = swapin_readahead(&m, 0, xa_load(&m.i_pages, 0), GFP_KERNEL,
				 &ra);
	assert_false(IS_ERR(folio));
	folio_put(folio);
	assert_non_null(sw_map_folio(&m, 1));
	assert_true(sw_matches(sw_map_folio(&m, 1), 201));
	assert_true(xa_is_value(xa_load(&m.i_pages, 2)));
	assert_int_equal(ra.next, 2);
	assert_int_equal(ra.window, 2);
	sw_map_fini(&env, &m);
	sw_fini(&env);
	close(fd);
}

/*
 * Readahead stops at the first page after the one asked for that is not
 * an order-0 entry of the next slot (a large entry; an entry of another
 * slot, the page having been swapped out again elsewhere), or whose
 * slot another swap-in holds (SWAP_HAS_CACHE): that page and the ones
 * after it stay in swap, a pin met is left as it was, and no page is
 * read from a slot not its own (they are read in one transfer, so a page
 * skipped over would shift the others' data).
 */
static void test_swap_readahead_stops(void **state)
{
	enum { NR = 16 };
	struct swap_ra_state ra;
	struct address_space m;
	struct folio *folio;
	struct sw_env env;
	unsigned int seed;
	uint64_t pswpin;
	unsigned long i;
	int fd = sw_tmpfile();

	(void)state;
	sw_init_fd(&env, fd, 2 * CLUSTER_BYTES, 0);
	sw_map_init(&env, &m, false);
	for (i = 0; i <= NR; i++)
		assert_int_equal(sw_alloc(&env, env.small), i);
	/* Page i in slot i, but pages 2-3 are one order-1 entry (slots 2-3). */
	for (i = 0; i < NR; i++)
		if (i != 2 && i != 3)
			sw_map_swap(&env, &m, i, 0, i, 100 + (unsigned int)i);
	sw_map_swap(&env, &m, 2, 1, 2, 102);
	/* Page 9 came back and went out again, to slot NR. */
	sw_free(&env, 9, 1);
	sw_map_swap(&env, &m, 9, 0, NR, 209);

	/* The large entry at page 2 ends the window after page 1. */
	ra = (struct swap_ra_state){ .next = 0, .window = SWAP_RA_MAX };
	pswpin = env.si->pswpin;
	folio = swapin_readahead(&m, 0, xa_load(&m.i_pages, 0), GFP_KERNEL,
				 &ra);
	assert_false(IS_ERR(folio));
	folio_put(folio);
	assert_int_equal(env.si->pswpin - pswpin, 2);
	assert_non_null(sw_map_folio(&m, 1));
	assert_true(xa_is_value(xa_load(&m.i_pages, 2)));
	assert_int_equal(xa_get_order(&m.i_pages, 3), 1);
	assert_int_equal(ra.next, 2);

	/* Another swap-in holds slot 6: pages 4 and 5 only. */
	assert_int_equal(swapcache_prepare(env.si, 6, 1), 0);
	ra = (struct swap_ra_state){ .next = 4, .window = SWAP_RA_MAX };
	pswpin = env.si->pswpin;
	folio = swapin_readahead(&m, 4, xa_load(&m.i_pages, 4), GFP_KERNEL,
				 &ra);
	assert_false(IS_ERR(folio));
	folio_put(folio);
	assert_int_equal(env.si->pswpin - pswpin, 2);
	assert_non_null(sw_map_folio(&m, 5));
	assert_true(xa_is_value(xa_load(&m.i_pages, 6)));
	assert_true(xa_is_value(xa_load(&m.i_pages, 7)));
	assert_int_equal(env.si->swap_map[6], SWAP_MAP_USED | SWAP_HAS_CACHE);
	swap_slots_put(env.si, 6, 1, SWAP_HAS_CACHE);

	/* Page 9's entry names slot NR, not 9: page 8 comes back alone. */
	ra = (struct swap_ra_state){ .next = 8, .window = SWAP_RA_MAX };
	pswpin = env.si->pswpin;
	folio = swapin_readahead(&m, 8, xa_load(&m.i_pages, 8), GFP_KERNEL,
				 &ra);
	assert_false(IS_ERR(folio));
	folio_put(folio);
	assert_int_equal(env.si->pswpin - pswpin, 1);
	assert_true(xa_is_value(xa_load(&m.i_pages, 9)));
	assert_int_equal(upc_check_mapping(&m), 0);
	assert_int_equal(upc_check_swap(env.si), 0);

	/* Every page, brought back alone where still in swap, is its own. */
	for (i = 0; i < NR; i++) {
		void *value = xa_load(&m.i_pages, i);

		if (xa_is_value(value)) {
			folio = swapin_folio(&m, i, value, GFP_KERNEL);
			assert_false(IS_ERR(folio));
			folio_put(folio);
		}
		folio = sw_map_folio(&m, i);
		assert_non_null(folio);
		seed = i == 2 || i == 3 ? 102 : i == 9 ? 209 :
					       100 + (unsigned int)i;
		if (!sw_matches(folio, seed))
			fail_msg("page %lu: not its own data", i);
	}
	assert_int_equal(env.si->inuse_pages, 0);
	sw_map_fini(&env, &m);
	sw_fini(&env);
	close(fd);
}

/*
 * A device in memory reads no ahead: each swap-in of a sequential stream
 * reads its own page only.
 */
static void test_swap_readahead_none_in_memory(void **state)
{
	enum { NR = 2 * SWAP_RA_MAX };
	struct swap_ra_state ra = { .next = (pgoff_t)-1 };
	struct address_space m;
	struct folio *folio;
	struct sw_env env;
	unsigned long i;

	(void)state;
	sw_init(&env, 2 * CLUSTER_BYTES, 0);
	sw_map_init(&env, &m, true);
	for (i = 0; i < NR; i++) {
		assert_int_equal(sw_alloc(&env, env.small), i);
		sw_map_swap(&env, &m, i, 0, i, 50 + (unsigned int)i);
	}
	for (i = 0; i < NR; i++) {
		folio = swapin_readahead(&m, i, xa_load(&m.i_pages, i),
					 GFP_KERNEL, &ra);
		assert_false(IS_ERR(folio));
		assert_true(sw_matches(folio, 50 + (unsigned int)i));
		/* A device in memory keeps no slot either. */
		assert_false(folio_test_swapslot(folio));
		folio_put(folio);
		assert_int_equal(env.si->pswpin, i + 1);
		if (i + 1 < NR)
			assert_true(xa_is_value(xa_load(&m.i_pages, i + 1)));
	}
	assert_int_equal(env.si->inuse_pages, 0);
	sw_map_fini(&env, &m);
	sw_fini(&env);
}

/*
 * A page swapped in from a swap file into a mapping with AS_SWAP_KEEP
 * keeps its slot while the file is less than half in use, its own slot
 * counted (still in use when the swap-in lets it go): with exactly half
 * of the slots in use it is freed; with one fewer it is kept
 * (PG_swapslot, the entry in folio->private, counted in nr_kept).
 */
static void test_swap_keep_half_in_use(void **state)
{
	struct address_space m;
	struct folio *folio;
	struct sw_env env;
	unsigned long half, i;
	int fd = sw_tmpfile();

	(void)state;
	sw_init_fd(&env, fd, 2 * CLUSTER_BYTES, 0);
	half = env.si->max / 2;
	sw_map_init(&env, &m, true);
	for (i = 0; i < half; i++)
		assert_int_equal(sw_alloc(&env, env.small), i);
	sw_map_swap(&env, &m, 0, 0, 0, 1);
	sw_map_swap(&env, &m, 1, 0, 1, 2);
	assert_int_equal(env.si->inuse_pages, half);

	/* Half in use: the slot goes. */
	folio = swapin_folio(&m, 0, xa_load(&m.i_pages, 0), GFP_KERNEL);
	assert_false(IS_ERR(folio));
	assert_true(sw_matches(folio, 1));
	assert_false(folio_test_swapslot(folio));
	assert_null(folio->private);
	folio_put(folio);
	assert_int_equal(env.si->swap_map[0], 0);
	assert_int_equal(env.si->inuse_pages, half - 1);
	assert_int_equal(env.si->nr_kept, 0);

	/* One slot under half: kept. */
	folio = swapin_folio(&m, 1, xa_load(&m.i_pages, 1), GFP_KERNEL);
	assert_false(IS_ERR(folio));
	assert_true(sw_matches(folio, 2));
	assert_true(folio_test_swapslot(folio));
	assert_int_equal((unsigned long)folio->private, sw_entry(&env, 1).val);
	folio_put(folio);
	assert_int_equal(env.si->swap_map[1], SWAP_MAP_USED);
	assert_int_equal(env.si->inuse_pages, half - 1);
	assert_int_equal(env.si->nr_kept, 1);
	assert_int_equal(upc_check_mapping(&m), 0);

	sw_free(&env, 2, half - 2);
	/* Truncation frees the kept slot. */
	sw_map_fini(&env, &m);
	assert_int_equal(env.si->inuse_pages, 0);
	assert_int_equal(env.si->nr_kept, 0);
	sw_fini(&env);
	close(fd);
}

/*
 * swap_free_range() frees the entries lying wholly inside its range,
 * large or small, and leaves alone a large one reaching out of it at
 * either edge (its callers split those first): its pages stay in swap,
 * its slots in use.
 */
static void test_swap_free_range_edges(void **state)
{
	struct address_space m;
	struct sw_env env;
	unsigned long i;

	(void)state;
	sw_init(&env, 4 * CLUSTER_BYTES, 0);
	sw_map_init(&env, &m, false);
	/* Pages 0-511: slots 0-511; 512-515: 512-515; 1024-1535: 1024-. */
	assert_int_equal(sw_alloc(&env, env.huge), 0);
	sw_map_swap(&env, &m, 0, UPC_MAX_ORDER, 0, 1);
	for (i = 0; i < 4; i++) {
		assert_int_equal(sw_alloc(&env, env.small), CLUSTER + i);
		sw_map_swap(&env, &m, CLUSTER + i, 0, CLUSTER + i, 2);
	}
	assert_int_equal(sw_alloc(&env, env.huge), 2 * CLUSTER);
	sw_map_swap(&env, &m, 2 * CLUSTER, UPC_MAX_ORDER, 2 * CLUSTER, 3);
	/* Pages 2 * CLUSTER to 3 * CLUSTER - 1 inside: freed whole. */
	swap_free_range(&m, 2 * CLUSTER, 3 * CLUSTER - 1);
	assert_null(xa_load(&m.i_pages, 2 * CLUSTER));
	assert_int_equal(env.si->inuse_pages, CLUSTER + 4);
	assert_int_equal(sw_alloc(&env, env.huge), 2 * CLUSTER);
	sw_map_swap(&env, &m, 2 * CLUSTER, UPC_MAX_ORDER, 2 * CLUSTER, 3);

	/* From inside the first large entry to inside the second. */
	swap_free_range(&m, 5, 2 * CLUSTER + 100);
	assert_true(xa_is_value(xa_load(&m.i_pages, 0)));
	assert_int_equal(xa_get_order(&m.i_pages, 5), UPC_MAX_ORDER);
	assert_true(xa_is_value(xa_load(&m.i_pages, 2 * CLUSTER + 100)));
	assert_int_equal(xa_get_order(&m.i_pages, 2 * CLUSTER), UPC_MAX_ORDER);
	for (i = 0; i < 4; i++) {
		assert_null(xa_load(&m.i_pages, CLUSTER + i));
		assert_int_equal(env.si->swap_map[CLUSTER + i], 0);
	}
	assert_int_equal(env.si->inuse_pages, 2 * CLUSTER);
	assert_int_equal(upc_check_mapping(&m), 0);
	sw_map_fini(&env, &m);
	assert_int_equal(env.si->inuse_pages, 0);
	sw_fini(&env);
}

/*
 * Freeing a slot erases its shadow, never a folio: a swap-in whose
 * entry the owner freed meanwhile keeps its folio in the swap cache at
 * the slot, pinned by SWAP_HAS_CACHE, where another swap-in of the entry
 * must still meet it, until the swap-in takes it out.
 */
static void test_swap_free_keeps_swapin_folio(void **state)
{
	struct folio *folio, *got;
	struct sw_env env;
	unsigned long off;

	(void)state;
	sw_init(&env, 2 * CLUSTER_BYTES, 0);
	off = sw_alloc(&env, env.small);
	assert_int_equal(swapcache_prepare(env.si, off, 1), 0);
	folio = sw_folio(&env, 0);
	assert_int_equal(add_to_swap_cache(env.si, folio, sw_entry(&env, off),
					   GFP_KERNEL, NULL), 0);
	sw_free(&env, off, 1);
	assert_ptr_equal(sw_cache_load(&env, off), folio);
	got = swap_cache_get_folio(env.si, sw_entry(&env, off));
	assert_ptr_equal(got, folio);
	folio_put(got);
	assert_int_equal(swap_address_space(env.si, sw_entry(&env, off))->nrpages,
			 1);
	assert_int_equal(env.si->swap_map[off], SWAP_HAS_CACHE);
	assert_int_equal(upc_check_swap(env.si), 0);
	delete_from_swap_cache(env.si, folio, NULL);
	swap_slots_put(env.si, off, 1, SWAP_HAS_CACHE);
	assert_int_equal(env.si->inuse_pages, 0);
	sw_unlock_put(folio);
	sw_fini(&env);
}

/*
 * A swap-in whose folio cannot enter the swap cache because another
 * folio holds one of the entry's slots there (the slot's new owner
 * swapping out through it) says -EAGAIN, as documented for a stale
 * entry, not the swap cache's -EEXIST; it lets its pins go and leaves
 * the entry, the slots and the other folio as they were.
 */
static void test_swap_swapin_meets_other_folio(void **state)
{
	struct folio *other, *folio;
	struct address_space m;
	struct sw_env env;
	void *value;

	(void)state;
	sw_init(&env, 2 * CLUSTER_BYTES, 0);
	sw_map_init(&env, &m, false);
	assert_int_equal(sw_alloc(&env, env.small), 0);
	assert_int_equal(sw_alloc(&env, env.small), 1);
	/* Pages 0-1: one order-1 entry, slots 0-1. */
	sw_map_swap(&env, &m, 0, 1, 0, 7);
	value = xa_load(&m.i_pages, 0);
	other = sw_folio(&env, 0);
	assert_int_equal(add_to_swap_cache(env.si, other, sw_entry(&env, 1),
					   GFP_KERNEL, NULL), 0);
	folio = swapin_folio(&m, 0, value, GFP_KERNEL);
	assert_ptr_equal(folio, ERR_PTR(-EAGAIN));
	assert_ptr_equal(xa_load(&m.i_pages, 1), value);
	assert_int_equal(env.si->swap_map[0], SWAP_MAP_USED);
	assert_int_equal(env.si->swap_map[1], SWAP_MAP_USED);
	assert_ptr_equal(sw_cache_load(&env, 1), other);
	assert_null(sw_cache_load(&env, 0));
	assert_int_equal(upc_check_swap(env.si), 0);
	/* Once it has gone, the entry comes back whole. */
	delete_from_swap_cache(env.si, other, NULL);
	sw_unlock_put(other);
	folio = swapin_folio(&m, 0, value, GFP_KERNEL);
	assert_false(IS_ERR(folio));
	assert_int_equal(folio_order(folio), 1);
	assert_true(sw_matches(folio, 7));
	folio_put(folio);
	assert_int_equal(env.si->inuse_pages, 0);
	sw_map_fini(&env, &m);
	sw_fini(&env);
}

/*
 * struct upc_swap_ops.swap_free (reclaim could not evict a folio it had
 * swapped out): every slot of a large folio comes back, with the shadow
 * its swap-out left.
 */
static void test_swap_reclaim_free_large(void **state)
{
	struct sw_env env;
	unsigned long off;

	(void)state;
	sw_init(&env, 2 * CLUSTER_BYTES, 0);
	off = sw_put_large_shadow(&env, xa_mk_value(0x77));
	assert_int_equal(env.si->inuse_pages, CLUSTER);
	swap_reclaim_ops.swap_free(env.huge, swp_to_radix_entry(sw_entry(&env,
					off)), env.si);
	assert_int_equal(env.si->inuse_pages, 0);
	assert_null(sw_cache_load(&env, off + CLUSTER - 1));
	assert_int_equal(upc_check_swap(env.si), 0);
	sw_fini(&env);
}

/*
 * Swap cache spaces of exactly a huge folio's size (space_shift
 * UPC_MAX_ORDER): the folio fits one space, so the hook swaps it out
 * whole, one aligned run of slots, rather than refusing it as too large
 * (-EFBIG, which would have reclaim split it).
 */
static void test_swap_reclaim_out_huge_fits_chunk(void **state)
{
	struct folio *folio, *back;
	void *value = NULL;
	swp_entry_t entry;
	struct sw_env env;

	(void)state;
	sw_init(&env, 2 * CLUSTER_BYTES, UPC_MAX_ORDER);
	folio = sw_folio(&env, UPC_MAX_ORDER);
	sw_fill(folio, 21);
	folio_set_uptodate(folio);
	assert_int_equal(swap_reclaim_ops.swap_out(folio, &value, env.si), 0);
	assert_true(xa_is_value(value));
	entry = radix_to_swp_entry(value);
	assert_int_equal(swp_offset(entry) % CLUSTER, 0);
	assert_int_equal(env.si->inuse_pages, CLUSTER);
	assert_int_equal(env.si->pswpout, CLUSTER);
	assert_false(folio_test_swapcache(folio));
	/* Its shadow: one entry over the whole space. */
	assert_true(xa_is_value(sw_cache_load(&env, swp_offset(entry) +
					      CLUSTER - 1)));
	assert_int_equal(upc_check_swap(env.si), 0);
	back = sw_folio(&env, UPC_MAX_ORDER);
	assert_int_equal(swap_read_folio(env.si, back, entry), 0);
	assert_true(sw_matches(back, 21));
	sw_unlock_put(back);
	sw_unlock_put(folio);
	swap_free_nr(entry, CLUSTER);
	sw_fini(&env);
}

/*
 * A swap-in that cannot have its folio, or a swap cache node for it,
 * fails with -ENOMEM and lets go of the pin it took (SWAP_HAS_CACHE):
 * the entry stays and its slot is left as the owner's alone, so that
 * the next try can pin it.  A pin left behind would have every later
 * swap-in of the entry take it for another swap-in at work and try
 * again for ever.  Each allocation fails in turn, until none is made.
 */
static void test_swap_swapin_enomem_unpins(void **state)
{
	const unsigned long off = 77;	/* not a tree's head: needs nodes */
	unsigned long n, failed = 0;
	struct address_space m;
	struct folio *folio;
	struct sw_env env;
	bool injected;
	void *value;

	(void)state;
	sw_init(&env, 2 * CLUSTER_BYTES, 0);
	sw_map_init(&env, &m, false);
	for (n = 0; n <= off; n++)
		assert_int_equal(sw_alloc(&env, env.small), n);
	sw_map_swap(&env, &m, 0, 0, off, 3);
	swap_cache_clear_shadows(env.si, sw_entry(&env, 0), env.si->max);
	value = xa_load(&m.i_pages, 0);
	for (n = 1;; n++) {
		assert_true(n < 100);
		upc_fault_fail_nth(n);
		folio = swapin_folio(&m, 0, value, GFP_KERNEL);
		injected = upc_fault_injected();
		upc_fault_fail_nth(0);
		if (!IS_ERR(folio))
			break;
		assert_ptr_equal(folio, ERR_PTR(-ENOMEM));
		assert_true(injected);
		failed++;
		assert_ptr_equal(xa_load(&m.i_pages, 0), value);
		assert_int_equal(env.si->swap_map[off], SWAP_MAP_USED);
		assert_null(sw_cache_load(&env, off));
		assert_int_equal(upc_check_swap(env.si), 0);
	}
	/* The folio's allocation at least failed and was reported. */
	assert_true(failed > 0);
	assert_true(sw_matches(folio, 3));
	folio_put(folio);
	assert_int_equal(env.si->swap_map[off], 0);
	sw_free(&env, 0, off);
	sw_map_fini(&env, &m);
	sw_fini(&env);
}

/*
 * A folio that kept slots of another device (swap_out_kept()'s -ENOENT
 * case) does not go back to them: every one of those slots is freed,
 * its nr_kept count dropped, and the folio is written to slots of the
 * device reclaim swaps to, as any folio would be.
 */
static void test_swap_reclaim_out_kept_other_device(void **state)
{
	struct swap_info_struct *other;
	struct upc_arena *arena;
	struct folio *folio;
	unsigned long off;
	void *value = NULL;
	swp_entry_t entry;
	struct sw_env env;

	(void)state;
	sw_init(&env, 2 * CLUSTER_BYTES, 0);
	assert_int_equal(upc_arena_create(4 * MiB, &arena), 0);
	assert_int_equal(upc_reclaim_init(arena), 0);
	assert_int_equal(swap_device_create(arena, -1, 2 * CLUSTER_BYTES, 0,
					    &other), 0);
	assert_int_not_equal(other->type, env.si->type);
	assert_int_equal(folio_alloc_swap(other, env.huge, &entry), 0);
	off = swp_offset(entry);

	/* A huge folio of env's arena keeping the other device's run. */
	folio = sw_folio(&env, UPC_MAX_ORDER);
	sw_fill(folio, 41);
	folio_set_uptodate(folio);
	folio->private = (void *)entry.val;
	folio_set_swapslot(folio);
	other->nr_kept = CLUSTER;
	assert_int_equal(swap_reclaim_ops.swap_out(folio, &value, env.si), 0);
	assert_false(folio_test_swapslot(folio));
	assert_int_equal(other->inuse_pages, 0);
	assert_int_equal(other->swap_map[off + CLUSTER - 1], 0);
	assert_int_equal(other->nr_kept, 0);
	assert_int_equal(upc_check_swap(other), 0);
	/* Written to env's device, as one run. */
	assert_true(xa_is_value(value));
	entry = radix_to_swp_entry(value);
	assert_int_equal(swp_type(entry), env.si->type);
	assert_int_equal(env.si->inuse_pages, CLUSTER);
	assert_int_equal(env.si->pswpout, CLUSTER);
	assert_int_equal(upc_check_swap(env.si), 0);
	swap_free_nr(entry, CLUSTER);
	sw_unlock_put(folio);
	assert_int_equal(swap_device_destroy(other), 0);
	upc_reclaim_destroy(arena);
	upc_arena_destroy(arena);
	sw_fini(&env);
}

/*
 * A swap-in whose read fails (the swap file cut short) says -EIO and
 * leaves everything as it was, for a later try: the entries of the page
 * asked for and of the pages it read ahead stay in the mapping, and
 * their slots stay the owner's (SWAP_MAP_USED, the pins gone), not
 * freed: freed, the entries would name free slots and every later
 * swap-in of them would be refused as stale, for ever.
 */
static void test_swap_swapin_read_error(void **state)
{
	enum { NR = 4 };
	struct swap_ra_state ra = { .next = 0, .window = SWAP_RA_MAX };
	struct address_space m;
	struct folio *folio;
	struct sw_env env;
	unsigned long i;
	int fd = sw_tmpfile();

	(void)state;
	sw_init_fd(&env, fd, 2 * CLUSTER_BYTES, 0);
	sw_map_init(&env, &m, true);
	for (i = 0; i < NR; i++) {
		assert_int_equal(sw_alloc(&env, env.small), i);
		sw_map_swap(&env, &m, i, 0, i, 60 + (unsigned int)i);
	}
	assert_int_equal(ftruncate(fd, 0), 0);
	folio = swapin_readahead(&m, 0, xa_load(&m.i_pages, 0), GFP_KERNEL,
				 &ra);
	assert_ptr_equal(folio, ERR_PTR(-EIO));
	assert_int_equal(env.si->pswpin, 0);
	for (i = 0; i < NR; i++) {
		assert_ptr_equal(xa_load(&m.i_pages, i),
				 swp_to_radix_entry(sw_entry(&env, i)));
		assert_int_equal(env.si->swap_map[i], SWAP_MAP_USED);
		assert_null(sw_cache_load(&env, i));
	}
	assert_int_equal(env.si->inuse_pages, NR);
	assert_int_equal(upc_check_mapping(&m), 0);
	assert_int_equal(upc_check_swap(env.si), 0);

	/* The file whole again: all of it comes back, in one read. */
	for (i = 0; i < NR; i++)
		sw_map_swap(&env, &m, i, 0, i, 60 + (unsigned int)i);
	ra = (struct swap_ra_state){ .next = 0, .window = SWAP_RA_MAX };
	folio = swapin_readahead(&m, 0, xa_load(&m.i_pages, 0), GFP_KERNEL,
				 &ra);
	assert_false(IS_ERR(folio));
	folio_put(folio);
	assert_int_equal(env.si->pswpin, NR);
	for (i = 0; i < NR; i++) {
		folio = sw_map_folio(&m, i);
		assert_non_null(folio);
		assert_true(sw_matches(folio, 60 + (unsigned int)i));
	}
	sw_map_fini(&env, &m);
	assert_int_equal(env.si->inuse_pages, 0);
	sw_fini(&env);
	close(fd);
}

/*
 * A large folio whose write fails (a swap file that cannot be written)
 * stays, and gives back every one of its slots, not its first alone.
 */
static void test_swap_reclaim_out_huge_write_error(void **state)
{
	struct folio *folio;
	void *value = NULL;
	struct sw_env env;
	char path[64];
	int fd = sw_tmpfile(), ro;

	(void)state;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ro = open(path, O_RDONLY);
	assert_true(ro >= 0);
	sw_init_fd(&env, ro, 2 * CLUSTER_BYTES, 0);
	folio = sw_folio(&env, UPC_MAX_ORDER);
	folio_set_uptodate(folio);
	assert_int_equal(swap_reclaim_ops.swap_out(folio, &value, env.si),
			 -EIO);
	assert_null(value);
	assert_int_equal(env.si->inuse_pages, 0);
	assert_int_equal(env.si->pswpout, 0);
	assert_false(folio_test_swapcache(folio));
	assert_int_equal(folio_ref_count(folio), 1);
	assert_int_equal(upc_check_swap(env.si), 0);
	sw_unlock_put(folio);
	sw_fini(&env);
	close(ro);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_swap_entry_encoding),
		cmocka_unit_test(test_swap_create_errors),
		cmocka_unit_test(test_swap_create_largest),
		cmocka_unit_test(test_swap_create_registers),
		cmocka_unit_test(test_swap_create_table_full),
		cmocka_unit_test(test_swap_destroy_busy),
		cmocka_unit_test(test_swap_memory_device_io),
		cmocka_unit_test(test_swap_file_device_io),
		cmocka_unit_test(test_swap_file_device_write_runs),
		cmocka_unit_test(test_swap_file_device_write_run_large),
		cmocka_unit_test(test_swap_alloc_in_order),
		cmocka_unit_test(test_swap_alloc_huge_and_partial),
		cmocka_unit_test(test_swap_free_reuse),
		cmocka_unit_test(test_swap_full),
		cmocka_unit_test(test_swap_alloc_huge_in_current_cluster),
		cmocka_unit_test(test_swap_alloc_partial_round_robin),
		cmocka_unit_test(test_swap_alloc_half_cluster_from_partial),
		cmocka_unit_test(test_swap_alloc_wraps_in_cluster),
		cmocka_unit_test(test_swap_slot_pin),
		cmocka_unit_test(test_swap_slot_pin_range),
		cmocka_unit_test(test_swap_check_clusters),
		cmocka_unit_test(test_check_mapping_swap_entries),
		cmocka_unit_test(test_swap_check_each),
		cmocka_unit_test(test_swap_cache_add_get_delete),
		cmocka_unit_test(test_swap_cache_eexist),
		cmocka_unit_test(test_swap_cache_large_folio),
		cmocka_unit_test(test_swap_cache_add_one_walk),
		cmocka_unit_test(test_swap_cache_spaces),
		cmocka_unit_test(test_swap_cache_info_heights),
		cmocka_unit_test(test_swap_free_clears_shadows),
		cmocka_unit_test(test_swap_free_cuts_large_shadow),
		cmocka_unit_test(test_swap_free_clears_shadows_across_chunks),
		cmocka_unit_test(test_swap_free_clears_shadows_full_index),
		cmocka_unit_test(test_swap_cache_folio_vs_chunk),
		cmocka_unit_test(test_swap_cache_add_enomem),
		cmocka_unit_test(test_swap_reclaim_out_one),
		cmocka_unit_test(test_swap_readahead_window),
		cmocka_unit_test(test_swap_readahead_stops),
		cmocka_unit_test(test_swap_readahead_none_in_memory),
		cmocka_unit_test(test_swap_keep_half_in_use),
		cmocka_unit_test(test_swap_free_range_edges),
		cmocka_unit_test(test_swap_free_keeps_swapin_folio),
		cmocka_unit_test(test_swap_swapin_meets_other_folio),
		cmocka_unit_test(test_swap_swapin_enomem_unpins),
		cmocka_unit_test(test_swap_swapin_read_error),
		cmocka_unit_test(test_swap_reclaim_free_large),
		cmocka_unit_test(test_swap_reclaim_out_huge_fits_chunk),
		cmocka_unit_test(test_swap_reclaim_out_kept_other_device),
		cmocka_unit_test(test_swap_reclaim_out_huge_write_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
