/* SPDX-License-Identifier: MIT */
/*
 * mm/swap_internal.h - what the swap files of mm/ share: the device
 * file (mm/swapfile.c) and the swap cache (mm/swap_state.c).
 */
#ifndef UPCACHE_MM_SWAP_INTERNAL_H
#define UPCACHE_MM_SWAP_INTERNAL_H

#include <upcache/swap.h>
#include <upcache/vmscan.h>

/* The hooks swap_device_create() installs for reclaim (mm/swap_state.c). */
extern const struct upc_swap_ops swap_reclaim_ops;

/**
 * swap_slot_in_use() - Is @entry's slot handed out (SWAP_MAP_USED) on a
 * live device?  For the checkers.
 * @entry: A swap entry.
 *
 * Context: Takes the device's lock.
 */
bool swap_slot_in_use(swp_entry_t entry);

/**
 * swap_cache_clear_shadows() - Erase the shadows of freed slots.
 * @si: The device.
 * @entry: The first slot.
 * @nr: How many.
 *
 * Context: Takes the space's i_pages lock.
 */
void swap_cache_clear_shadows(struct swap_info_struct *si, swp_entry_t entry,
			      unsigned long nr);

/**
 * swap_slots_put() - Clear @bits of slots; a slot left with none is free.
 * @si: The device.
 * @off: The first slot (in range).
 * @nr: How many (in range).
 * @bits: SWAP_MAP_USED (the owner lets go: swap_free_nr(), after the
 *	shadows are erased), SWAP_HAS_CACHE (a swap-in's folio left the
 *	swap cache), or both (a swap-in installed its page and let the
 *	slot go: it has just taken the folio out of the swap cache leaving
 *	nothing, so there is no shadow to erase).
 *
 * Context: Takes the device's lock.
 */
void swap_slots_put(struct swap_info_struct *si, unsigned long off,
		    unsigned long nr, unsigned char bits);

/**
 * swap_slots_keep() - A swap-in put its folio in the mapping: let the
 * slots go, or keep them for the folio (SWAP_MAP_USED stays) while the
 * device is a file less than half in use (the kernel keeps a swapped-in
 * page in its swap cache while swap is not more than half full).
 * @si: The device.
 * @off: The first slot.
 * @nr: How many.
 *
 * Clears SWAP_HAS_CACHE either way.
 *
 * Context: Takes the device's lock.
 * Return: true if the slots were kept.
 */
bool swap_slots_keep(struct swap_info_struct *si, unsigned long off,
		     unsigned long nr);

/**
 * swap_unkeep() - Take back the slots @folio kept (PG_swapslot), for
 * reclaim to reuse or a writer to free.
 * @folio: A locked folio with PG_swapslot.
 *
 * Context: Folio lock held.
 * Return: The swap entry of the first slot; they stay in use.
 */
swp_entry_t swap_unkeep(struct folio *folio);

/**
 * swap_drop_kept() - @folio is about to change or to leave its mapping:
 * free the slots it kept (PG_swapslot), if any, since the copy they hold
 * is no longer the page.
 * @folio: A locked folio.
 *
 * Every path that writes into a folio of a mapping with AS_SWAP_KEEP
 * calls it first, under the folio lock that reclaim's swap_out_kept()
 * holds too; truncation calls it for every folio it zeroes or removes.
 *
 * Context: Folio lock held.  Takes the device's lock if it frees.
 */
static inline void swap_drop_kept(struct folio *folio)
{
	if (folio_test_swapslot(folio))
		swap_free_nr(swap_unkeep(folio), folio_nr_pages(folio));
}

/**
 * swapcache_prepare() - Pin slots for a swap-in: set SWAP_HAS_CACHE.
 * @si: The device.
 * @off: The first slot.
 * @nr: Slots from @off (in range): all of a large entry's, or one.
 *
 * All or none: either every slot is pinned, or nothing changes.
 *
 * Context: Takes the device's lock.
 * Return: 0; -ENOENT if a slot is not handed out (the entry the caller
 * read is stale: look at the mapping again); -EEXIST if another swap-in
 * holds one (its folio is, or is about to be, in the swap cache).
 */
int swapcache_prepare(struct swap_info_struct *si, unsigned long off,
		      unsigned long nr);

/**
 * swap_cache_space_destroy() - Empty one swap cache space of its
 * shadows and nodes.
 * @space: The space; it holds no folio.
 *
 * Context: The device is being destroyed.
 */
void swap_cache_space_destroy(struct address_space *space);

/**
 * swap_free_range() - Erase the swap entries of pages [@first, @last] of
 * a swap-backed mapping and free their slots.
 * @mapping: An anonymous region or a shmem file.
 * @first: The first page.
 * @last: The last page.
 *
 * Passes of up to 64 entries, each one locked walk that moves sideways
 * and steps over folios; the slots of a pass are freed after its lock
 * is dropped, a run of consecutive ones at a time.  The caller has taken
 * the range's folios out first: a folio that reclaim swapped out before
 * that reached it left an entry, which this finds.
 *
 * Context: Takes the mapping's i_pages lock, then devices' locks and
 * swap cache locks, in turn.
 */
void swap_free_range(struct address_space *mapping, pgoff_t first,
		     pgoff_t last);

/**
 * swap_entry_split() - Give page @index of a swap-backed mapping a swap
 * entry of its own, cutting it out of the large one that covers it.
 * @mapping: An anonymous region or a shmem file (its value entries are
 *	swap entries, never shadows).
 * @index: The page.
 * @gfp: Allocation flags for the tree nodes the split needs.
 *
 * A large folio swapped out leaves one entry of its order, naming its
 * first slot.  The split is non-uniform (xas_try_split()): page @index
 * gets an order-0 entry and the rest of the old one the largest aligned
 * pieces around it, each renamed to its own first slot, so that the
 * other pages can still come back as large folios.  Nothing to do
 * (0) if @index holds no swap entry of order > 0.
 *
 * Context: Takes the mapping's i_pages lock; may allocate without it.
 * Return: 0; -ENOMEM, with nothing changed.
 */
int swap_entry_split(struct address_space *mapping, pgoff_t index, gfp_t gfp);

#endif /* UPCACHE_MM_SWAP_INTERNAL_H */
