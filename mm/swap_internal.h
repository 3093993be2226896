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
 * swap_slots_release() - swap_free_nr() for slots known to hold no
 * shadow: only the device's maps change.
 * @si: The device.
 * @off: The first slot (in range).
 * @nr: How many (in range).
 *
 * Swap-in uses it: it has just taken its folio out of the swap cache
 * leaving nothing, and the slots are still its own, so nobody can have
 * left a shadow there since; a walk to erase one would find none.
 *
 * Context: Takes the device's lock.
 */
void swap_slots_release(struct swap_info_struct *si, unsigned long off,
			unsigned long nr);

/**
 * swap_cache_space_destroy() - Empty one swap cache space of its
 * shadows and nodes.
 * @space: The space; it holds no folio.
 *
 * Context: The device is being destroyed.
 */
void swap_cache_space_destroy(struct address_space *space);

#endif /* UPCACHE_MM_SWAP_INTERNAL_H */
