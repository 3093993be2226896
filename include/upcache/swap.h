/* SPDX-License-Identifier: MIT */
/*
 * upcache/swap.h - swap: devices and their slots, the swap cache, and
 * anonymous regions that swap out under the cache's memory limit.
 *
 * A swap device (struct swap_info_struct, swap_device_create()) is a
 * file, or a buffer in memory, divided into 4 KiB slots handed out by a
 * cluster allocator (mm/swapfile.c).  A swap entry names one slot: the device's
 * type and the slot's offset; in a tree it is a value entry
 * (swp_to_radix_entry()).
 *
 * The swap cache (mm/swap_state.c) maps swap entries to the folios being
 * written to or read from them.  It is one address_space per chunk of
 * 2^space_shift slots, indexed by the offset inside the chunk, so that
 * each tree stays shallow (seed 003: with the default shift of 14, a
 * chunk is 64 MiB and its tree at most 3 levels deep).  A device made
 * with SWAP_SPACE_FULL_INDEX has the same 64 MiB spaces but keys each
 * by the slot's full offset: the layout before seed 003, kept for the
 * benchmark, where a chunk far into the device grows a tall tree with a
 * node per level above its entries.  Both use the same arithmetic, a
 * shift for the space and a mask for the key, with no path of their own.
 * Folios enter it through filemap_lock_store(), the store helper the
 * page cache uses (seed 001); leaving it, a folio leaves a shadow entry
 * that refault detection reads when the slot is swapped in.
 *
 * Anonymous regions (struct anon_region, mm/anon.c) are memory a program
 * reads and writes through upcache: an address_space whose folios are
 * swap-backed, and whose evicted folios are replaced by their swap
 * entries.  shmem files (mm/shmem.c) are swap-backed the same way.  With
 * a device installed, reclaim sends their folios to swap
 * (swap_out_folio() through struct upc_swap_ops); touching a swapped-out
 * page swaps it in through the swap cache.  Swap-out takes uptodate
 * folios only (a folio not uptodate has no data); a large one goes whole,
 * as one swap entry of its order, when an aligned run of free slots as
 * long as itself exists and a swap cache space holds that many slots;
 * otherwise reclaim splits it (split_folio(), mm/huge_memory.c) and its
 * pages go one at a time.
 *
 * Locking: a device's lock protects its slot maps; each swap cache
 * space has its own i_pages lock; the order is folio lock, then i_pages
 * lock (of a region or a space), never two i_pages locks at once, and
 * the device lock innermost.
 */
#ifndef UPCACHE_SWAP_H
#define UPCACHE_SWAP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "filemap.h"
#include "folio.h"
#include "lock.h"
#include "xarray.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Devices a process may have at once. */
#define MAX_SWAPFILES		32
/* Bits of a swap entry that hold the offset; the type is above them. */
#define SWP_OFFSET_BITS		48
/* Slots per allocation cluster (a huge folio's worth). */
#define SWAPFILE_CLUSTER	512
/* Bits of a slot's swap_map byte; a slot is in use while any is set. */
#define SWAP_MAP_USED		0x1	/* handed out: an owner holds its entry */
#define SWAP_HAS_CACHE		0x2	/* a swap-in's folio is in the swap cache */
/* Default swap cache chunk: 2^14 slots, 64 MiB. */
#define SWAP_ADDRESS_SPACE_SHIFT	14
/*
 * space_shift meaning the layout before seed 003 (the baseline): spaces
 * of 2^SWAP_ADDRESS_SPACE_SHIFT slots, each keyed by the full offset.
 */
#define SWAP_SPACE_FULL_INDEX	0
/* The chunk shifts swap_device_create() accepts, besides FULL_INDEX. */
#define SWAP_SPACE_SHIFT_MIN	6
#define SWAP_SPACE_SHIFT_MAX	30

/**
 * typedef swp_entry_t - a swap slot: device type and offset.
 * @val: (type << SWP_OFFSET_BITS) | offset.
 */
typedef struct {
	unsigned long val;
} swp_entry_t;

/* swp_entry() - The entry of slot @offset of device @type. */
static inline swp_entry_t swp_entry(unsigned int type, unsigned long offset)
{
	swp_entry_t entry = { ((unsigned long)type << SWP_OFFSET_BITS) | offset };

	return entry;
}

/* swp_type() - The device an entry names. */
static inline unsigned int swp_type(swp_entry_t entry)
{
	return (unsigned int)(entry.val >> SWP_OFFSET_BITS);
}

/* swp_offset() - The slot an entry names, on its device. */
static inline unsigned long swp_offset(swp_entry_t entry)
{
	return entry.val & ((1UL << SWP_OFFSET_BITS) - 1);
}

/* swp_to_radix_entry() - The value entry that stands for @entry in a tree. */
static inline void *swp_to_radix_entry(swp_entry_t entry)
{
	return xa_mk_value(entry.val);
}

/* radix_to_swp_entry() - The swap entry a value entry stands for. */
static inline swp_entry_t radix_to_swp_entry(const void *value)
{
	swp_entry_t entry = { xa_to_value(value) };

	return entry;
}

/* folio_swap_entry() - The slot of a folio in the swap cache. */
static inline swp_entry_t folio_swap_entry(const struct folio *folio)
{
#ifndef __cplusplus
	swp_entry_t entry = { (unsigned long)folio->private };
#else
	swp_entry_t entry = { (unsigned long)folio->private_ };
#endif

	return entry;
}

/**
 * struct swap_info_struct - one swap device.
 * @lock: Protects the slot maps, the cluster state and @inuse_pages.
 * @type: Its number in swap entries.
 * @arena: The arena whose folios it takes (fixed).
 * @max: Slots on the device (fixed; a multiple of SWAPFILE_CLUSTER).
 * @inuse_pages: Slots handed out.
 * @swap_map: One byte per slot: SWAP_MAP_USED while handed out,
 *	SWAP_HAS_CACHE while a swap-in holds it; 0 when free.
 * @cluster_used: Slots handed out in each cluster.
 * @free_clusters: Stack of wholly free clusters.
 * @nr_free_clusters: Height of the stack.
 * @cur_cluster: Cluster small allocations come from, or ULONG_MAX.
 * @cur_next: Where the next search of @cur_cluster starts (the slot
 *	after the last one handed out there).
 * @scan_cursor: Where the search for a partly used cluster resumes.
 * @fd: The swap file, or -1 for a device in memory.
 * @mem: The device in memory, or NULL.
 * @space_shift: log2 of the slots per swap cache space.
 * @index_mask: What of a slot's offset keys it in its space: the offset
 *	inside the chunk, or all of it (SWAP_SPACE_FULL_INDEX).
 * @nr_spaces: Swap cache spaces.
 * @spaces: The swap cache, one address_space per chunk.
 * @pswpin: Pages read back from the device (atomic).
 * @pswpout: Pages written to the device (atomic).
 * @nr_kept: Slots kept by folios swapped in and not written since
 *	(PG_swapslot), counted in @inuse_pages too (atomic).
 *
 * Fixed after swap_device_create(): everything but what @lock protects and the
 * counters.
 */
struct swap_info_struct {
	upc_lock_t lock;
	unsigned int type;
	struct upc_arena *arena;
	unsigned long max;
	unsigned long inuse_pages;
	unsigned char *swap_map;
	unsigned short *cluster_used;
	unsigned long *free_clusters;
	unsigned long nr_free_clusters;
	unsigned long cur_cluster;
	unsigned long cur_next;
	unsigned long scan_cursor;
	int fd;
	unsigned char *mem;
	unsigned int space_shift;
	unsigned long index_mask;
	unsigned long nr_spaces;
	struct address_space *spaces;
	uint64_t pswpin;
	uint64_t pswpout;
	unsigned long nr_kept;
};

/* ---- devices (mm/swapfile.c) --------------------------------------------- */

/**
 * swap_device_create() - Make a swap device for an arena and start
 * swapping to it (the kernel's swapon).
 * @arena: The arena; it must reclaim (upc_reclaim_init()).
 * @fd: An open file to swap to (read and written with pread/pwrite, its
 *	size left alone), or -1 for a device in memory.
 * @size: Bytes of swap; rounded down to whole clusters (2 MiB).
 * @space_shift: log2 of the slots per swap cache space, from
 *	SWAP_SPACE_SHIFT_MIN to SWAP_SPACE_SHIFT_MAX, or
 *	SWAP_SPACE_FULL_INDEX.
 * @out: Receives the device.
 *
 * Installs the device as the arena's swap hook (upc_reclaim_set_swap()),
 * so reclaim starts evicting swap-backed folios of evictable mappings.
 * An arena has at most one device.
 *
 * Context: Any thread.
 * Return: 0; -EINVAL if @arena or @out is NULL, @size is under one
 * cluster or over 2^SWP_OFFSET_BITS slots, or @space_shift is out of
 * range; -EBUSY if the arena already has a device or does not reclaim;
 * -ENOSPC if MAX_SWAPFILES devices exist; -ENOMEM.
 */
int swap_device_create(struct upc_arena *arena, int fd,
		       unsigned long long size, unsigned int space_shift,
		       struct swap_info_struct **out);

/**
 * swap_device_destroy() - Stop swapping to a device and free it (the
 * kernel's swapoff, without swapping anything back in).
 * @si: The device.
 *
 * Context: No folio of the arena may be swapped in or out meanwhile.
 * Return: 0; -EBUSY if slots are still in use (swapped-out data would
 * be lost; nothing changes).
 */
int swap_device_destroy(struct swap_info_struct *si);

/**
 * swap_info_get() - The device an entry names.
 * @entry: A swap entry.
 *
 * Return: The device, or NULL if none has that type or the offset is
 * past its end.
 */
struct swap_info_struct *swap_info_get(swp_entry_t entry);

/**
 * folio_alloc_swap() - Hand out the slots for a folio.
 * @si: The device.
 * @folio: The folio (its order picks how many: an aligned run).
 * @entry: Receives the first slot.
 *
 * Context: Takes @si->lock.
 * Return: 0; -ENOSPC if no aligned run of free slots is left.
 */
int folio_alloc_swap(struct swap_info_struct *si, struct folio *folio,
		     swp_entry_t *entry);

/**
 * swap_free_nr() - Give slots back.
 * @entry: The first.
 * @nr: How many.
 *
 * Clears the shadows the slots left in the swap cache, so a later user
 * of a slot does not take a stranger's eviction for its refault.
 *
 * Context: Takes the swap cache space's lock, then the device's lock.
 */
void swap_free_nr(swp_entry_t entry, unsigned long nr);

/**
 * swap_write_folio() - Write a folio to its slots.
 * @si: The device.
 * @folio: A locked folio.
 * @entry: Its first slot.
 *
 * Return: 0; -EIO if the swap file could not be written in full.
 */
int swap_write_folio(struct swap_info_struct *si, struct folio *folio,
		     swp_entry_t entry);

/*
 * Folios one transfer of swap_write_folios() takes at most.  A swap file
 * goes through the host kernel's page cache, which caches a file in
 * folios as large as the writes that made them, and a later 4 KiB write
 * into a large one costs more there.  On ext4 (Linux 6.18) 4 KiB random
 * rewrites of a 256 MiB file laid out in 4, 8, 16, 32 and 128 KiB writes
 * ran at 476k, 485k, 452k, 290k and 203k writes/s.  Against one
 * pwrite() per page, for anonymous memory swapping to such a file
 * (`upcache-bench run --ioengine=upcache-anon --memory_limit=32m
 * --size=256m --swap_file=...`, median of 5 interleaved rounds):
 * runs of 32 pages (a reclaim batch) made random 4 KiB writes 22%
 * slower; of 4 pages, sequential 1 MiB writes 1.28x faster and random
 * ones 0.91x; of 2 pages (8 KiB), 1.13x and 1.02x.
 */
#define SWAP_WRITE_RUN	2

/**
 * swap_write_folios() - Write folios to their slots, those whose slots
 * follow each other as one transfer.
 * @si: The device.
 * @folios: Locked folios.
 * @entries: Their first slots.
 * @errs: One per folio: a folio whose error is set already is left out;
 *	the others get 0 or -EIO.
 * @nr: How many.
 *
 * A folio joins the transfer of the one before it (the folios left out
 * aside) when its slots start where that one's end, up to SWAP_WRITE_RUN
 * folios a transfer, so folios given in the order their slots were
 * handed out go to a file device in 1/SWAP_WRITE_RUN of the pwrite()
 * calls one each would take.  A failed transfer fails its own folios
 * only.
 *
 * Context: May sleep (the system calls).
 */
void swap_write_folios(struct swap_info_struct *si, struct folio **folios,
		       const swp_entry_t *entries, int *errs, unsigned int nr);

/*
 * Pages one swap-in reads at most: the page asked for and those read
 * ahead with it (the kernel's default page-cluster, 3, reads 8).
 */
#define SWAP_RA_MAX	8

/**
 * swap_read_folios() - Read folios back from consecutive slots in one
 * transfer.
 * @si: The device.
 * @folios: Locked folios, 1 to SWAP_RA_MAX.
 * @nr: How many.
 * @entry: The first one's first slot; each next folio's slots follow
 *	the one before it.
 *
 * Return: 0; -EIO if the swap file could not be read in full; -EINVAL
 * if @nr is 0 or over SWAP_RA_MAX.
 */
int swap_read_folios(struct swap_info_struct *si, struct folio **folios,
		     unsigned int nr, swp_entry_t entry);

/**
 * swap_read_folio() - Read a folio back from its slots.
 * @si: The device.
 * @folio: A locked folio.
 * @entry: Its first slot.
 *
 * Return: 0; -EIO if the swap file could not be read in full.
 */
int swap_read_folio(struct swap_info_struct *si, struct folio *folio,
		    swp_entry_t entry);

/* ---- the swap cache (mm/swap_state.c) ------------------------------------ */

/* swap_address_space() - The swap cache space an entry of @si falls in. */
static inline struct address_space *
swap_address_space(const struct swap_info_struct *si, swp_entry_t entry)
{
	return &si->spaces[swp_offset(entry) >> si->space_shift];
}

/* swap_cache_index() - An entry's index in its swap cache space. */
static inline pgoff_t swap_cache_index(const struct swap_info_struct *si,
				       swp_entry_t entry)
{
	return swp_offset(entry) & si->index_mask;
}

/**
 * add_to_swap_cache() - Put a locked folio in the swap cache.
 * @si: The device of @entry.
 * @folio: A locked folio, not in the swap cache.
 * @entry: Its first slot (aligned to the folio's size).
 * @gfp: Allocation flags for tree nodes.
 * @shadowp: If not NULL, receives the shadow the slot held, or NULL.
 *
 * One walk through filemap_lock_store(): a large folio is one
 * multi-index entry.  Sets PG_swapcache and folio->private, and takes
 * one reference per page for the cache.
 *
 * Context: Takes the space's i_pages lock.
 * Return: 0; -EEXIST if another folio holds one of the slots; -EINVAL
 * if the folio is larger than a swap cache chunk (it would span two
 * spaces); -ENOMEM.
 */
int add_to_swap_cache(struct swap_info_struct *si, struct folio *folio,
		      swp_entry_t entry, gfp_t gfp, void **shadowp);

/**
 * delete_from_swap_cache() - Take a folio out of the swap cache.
 * @si: The device of its entry.
 * @folio: A locked folio in the swap cache.
 * @shadow: The value entry to leave (workingset_eviction()), or NULL.
 *
 * Drops the cache's references and clears PG_swapcache.
 *
 * Context: Takes the space's i_pages lock.
 */
void delete_from_swap_cache(struct swap_info_struct *si, struct folio *folio,
			    void *shadow);

/**
 * swap_cache_get_folio() - The folio the swap cache holds for an entry.
 * @si: The device of @entry.
 * @entry: The slot.
 *
 * Context: Takes the RCU read lock; no other lock.
 * Return: The folio with a reference (check PG_swapcache and its entry
 * under the folio lock before trusting it), or NULL.
 */
struct folio *swap_cache_get_folio(struct swap_info_struct *si,
				   swp_entry_t entry);

/**
 * struct swap_cache_info - the shape of a device's swap cache.
 * @nr_spaces: Spaces (trees).
 * @nr_nodes: Tree nodes in all of them.
 * @node_bytes: Their memory.
 * @max_height: Levels of the deepest tree (0: every tree is empty or a
 *	lone entry at its head).
 * @nr_entries: Entries (folios and shadows, a multi-index one once).
 */
struct swap_cache_info {
	unsigned long nr_spaces;
	unsigned long nr_nodes;
	unsigned long long node_bytes;
	unsigned int max_height;
	unsigned long nr_entries;
};

/**
 * swap_cache_info() - Measure a device's swap cache.
 * @si: The device.
 * @info: Receives the figures.
 *
 * Context: Takes each space's i_pages lock in turn.
 */
void swap_cache_info(struct swap_info_struct *si, struct swap_cache_info *info);

/**
 * struct swap_ra_state - where a mapping's swap-ins have been going, for
 * swap readahead (the kernel keeps the like per VMA).
 * @next: The page after the last one the previous swap-in brought back.
 * @window: Pages that swap-in read, the one asked for included.
 *
 * A hint: read and written with relaxed atomics, by any thread.
 */
struct swap_ra_state {
	pgoff_t next;
	unsigned int window;
};

/**
 * swapin_readahead() - swapin_folio(), reading ahead on a sequential
 * stream.
 * @mapping: A swap-backed mapping.
 * @index: The page index whose slot held @value.
 * @value: The swap entry found there, as a value entry.
 * @gfp: Allocation flags for the folio and tree nodes.
 * @ra: The mapping's readahead state.
 *
 * A swap-in of an order-0 entry from a swap file (not a device in
 * memory) at the page where the last one ended (@ra->next) reads the
 * pages after it too, twice as many as the last
 * time up to SWAP_RA_MAX in all, as far as each holds an order-0 entry
 * of the next slot: all of them in one transfer (swap_read_folios()).
 * Each page read ahead goes into @mapping as swapin_folio() would put
 * it there, if its entry is still there.  The extra folios are
 * allocated with __GFP_NORETRY, and readahead stops at the first that
 * cannot be had, or whose slot another swap-in holds.  Any other
 * swap-in starts no readahead and resets the window.
 *
 * Context: As swapin_folio().
 * Return: As swapin_folio(): the folio of page @index.
 */
struct folio *swapin_readahead(struct address_space *mapping, pgoff_t index,
			       void *value, gfp_t gfp,
			       struct swap_ra_state *ra);

/**
 * swapin_folio() - Bring a swapped-out page of a mapping back.
 * @mapping: A swap-backed mapping (an anonymous region, a shmem file).
 * @index: The page index whose slot held @value.
 * @value: The swap entry found there, as a value entry.
 * @gfp: Allocation flags for the folio and tree nodes.
 *
 * Looks the entry up in the swap cache; otherwise pins its slots
 * (SWAP_HAS_CACHE, so that they are not handed out again while the folio
 * is in the swap cache), allocates a folio of the entry's order (a large
 * folio went to swap as one entry of its order), adds it (its shadow
 * goes to refault detection), reads the slots, puts the folio in
 * @mapping where the entry still is, takes it out of the swap cache and
 * frees the slots; in a mapping with AS_SWAP_KEEP, a folio read from a
 * swap file less than half in use keeps them instead (PG_swapslot).  If no large folio can be had, the entry is split
 * instead, leaving page @index an order-0 entry of its own, and the
 * call returns -EAGAIN, so that the caller's next try brings back that
 * page alone.  Concurrent callers for one entry meet in the swap cache:
 * one reads, the others wait on its lock.
 *
 * Context: May sleep (folio lock, allocation, I/O).
 * Return: The folio, in @mapping, with a reference and unlocked;
 * ERR_PTR(-EAGAIN) if @mapping no longer holds @value at @index, or it
 * was just split (look again); ERR_PTR(-ENOMEM); ERR_PTR(-EIO) if the
 * slots could not be read (the entry stays, so the data is not lost);
 * ERR_PTR(-EINVAL) if the entry names no device.
 */
struct folio *swapin_folio(struct address_space *mapping, pgoff_t index,
			   void *value, gfp_t gfp);

/**
 * swapin_overwrite() - Bring back a swapped-out page that is about to be
 * overwritten whole, without reading it.
 * @mapping: A swap-backed mapping.
 * @index: The page index whose slot held @value.
 * @value: The order-0 swap entry found there, as a value entry.
 * @gfp: Allocation flags for the folio.
 *
 * The page's old data is not needed: a new order-0 folio, uptodate and
 * locked, takes the entry's place and the slot is freed, with no read
 * (a fault cannot know that a store will cover the page, so the kernel
 * always swaps in; a write call can).  The caller copies the whole page
 * in before unlocking it, so that a reader, who locks a folio before
 * copying from it, sees the page as it was (from swap) or as written,
 * never the new folio's old memory; and the caller must not fail
 * between this call and that copy.  A swap-in of @value under way
 * meanwhile finds the entry gone and looks again.
 *
 * Context: May sleep (allocation).  Takes the mapping's i_pages lock,
 * then the device's lock.
 * Return: The folio, in @mapping, locked, with a reference;
 * ERR_PTR(-EAGAIN) if @mapping no longer holds @value at @index as an
 * order-0 entry (look again); ERR_PTR(-ENOMEM).
 */
struct folio *swapin_overwrite(struct address_space *mapping, pgoff_t index,
			       void *value, gfp_t gfp);

/* ---- anonymous regions (mm/anon.c) --------------------------------------- */

/**
 * struct anon_region - swappable memory of a fixed size.
 * @mapping: Its pages: folios, swap entries of pages swapped out, or
 *	nothing for pages never written (they read as zeros).
 * @size: Bytes (fixed).
 * @ra: Its swap readahead (reads swap in through swapin_readahead()).
 */
struct anon_region {
	struct address_space mapping;
	uint64_t size;
	struct swap_ra_state ra;
};

/**
 * anon_region_init() - Make an empty region.
 * @region: The region.
 * @arena: Where its folios come from.
 * @size: Its size in bytes (a page may be partly inside).
 *
 * Context: Before the region is shared.
 */
void anon_region_init(struct anon_region *region, struct upc_arena *arena,
		      uint64_t size);

/**
 * anon_region_read() - Copy bytes out of a region.
 * @region: The region.
 * @buf: Destination.
 * @count: Bytes; the read stops at the region's end.
 * @pos: Offset of the first byte.
 *
 * Pages never written read as zeros and are not allocated; swapped-out
 * pages are swapped in.  Each page is copied under its folio lock, so it
 * is seen before or after any one write to it, never torn.
 *
 * Context: Any thread; may sleep.
 * Return: Bytes read (0 at or past the end); or, if nothing was read,
 * -ENOMEM or -EIO from swap-in.
 */
ssize_t anon_region_read(struct anon_region *region, void *buf, size_t count,
			 uint64_t pos);

/**
 * anon_region_write() - Copy bytes into a region.
 * @region: The region.
 * @buf: Source.
 * @count: Bytes; the write stops at the region's end.
 * @pos: Offset of the first byte.
 *
 * Allocates a zeroed folio for a page never written (memhog's touch),
 * swaps in a swapped-out one.  A page is written under its folio lock,
 * so swap-out never writes half of a write.
 *
 * Context: Any thread; may sleep.
 * Return: Bytes written (0 at or past the end); or, if nothing was
 * written, -ENOMEM (memory and swap full) or -EIO.
 */
ssize_t anon_region_write(struct anon_region *region, const void *buf,
			  size_t count, uint64_t pos);

/**
 * anon_region_destroy() - Free every page of a region and its slots.
 * @region: The region.
 *
 * Waits for a swap-out in flight on any of its folios.
 *
 * Context: No other thread uses @region (reclaim may run).
 */
void anon_region_destroy(struct anon_region *region);

#ifdef __cplusplus
}
#endif

#endif /* UPCACHE_SWAP_H */
