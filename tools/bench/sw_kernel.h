/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/sw_kernel.h - the kernel's side of seed 003's experiment:
 * memhog in a memory cgroup with swap, at the swap suite's sizes.
 *
 * The seed ran `memhog 128G` in an 8 GiB memory cgroup with 128 GiB of
 * swap (on a ramdisk's scale of speed).  Here the swap device is a loop
 * device over an unnamed tmpfs file as large as the suite's swap device
 * (the region), allocated in full before it is swapped on, so a swap-out
 * writes into pages tmpfs already has, and locked in memory, so none of
 * them is ever swapped out to the device itself (the loop device would
 * then wait on its own write); it is swapped on at the highest
 * priority, and only where no other swap device is on.  memhog runs in a child process
 * moved into a memory cgroup whose limit is the suite's: it maps an
 * anonymous region of the suite's size (MADV_NOHUGEPAGE: 4 KiB pages,
 * as upcache's region has) and writes every page once, in order, the
 * same data as the suite writes; past the limit the kernel swaps the
 * oldest pages out through its swap cache.  Then it reads the suite's
 * spread of pages back (most through swap-in) and checks each is its
 * own, and unmaps the region, freeing its slots.
 *
 * Swap is the machine's: while the run holds it on, any process under
 * memory pressure may swap to it.  So one run at a time has a kernel
 * swap side: another run's waits for it (a lock in /dev/shm).  The run swaps it off at its end, also
 * when it dies by bench_die() (atexit()), though not when a signal kills
 * it; then `swapoff` of the device named in the row frees it.  Where
 * any of it cannot be had (not root, no loop device, no memory cgroup,
 * swapon() refused), the side is skipped and @why says what was
 * missing.
 */
#ifndef UPCACHE_TOOLS_BENCH_SW_KERNEL_H
#define UPCACHE_TOOLS_BENCH_SW_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel_child.h"
#include "kernel_disk.h"
#include "kernel_env.h"
#include "sw_cases.h"

/**
 * struct sw_ksample - one memhog through the kernel.
 * @wall_ns: The touch by the wall clock, as the seed's `time` gave it,
 *	waits for the loop device's worker included.
 * @cpu_ns: The writer's CPU time during the touch.
 * @pages: Pages written.
 * @swap_used_kib: The device's swap in use right after the touch.
 * @swap_left_kib: Its swap still in use after the region was unmapped
 *	(slots the kernel frees lazily, with its swap cache).
 * @swapins: Major faults of the read-back: pages read in from swap.
 * @checked: Pages read back and checked.
 */
struct sw_ksample {
	uint64_t wall_ns;
	uint64_t cpu_ns;
	uint64_t pages;
	uint64_t swap_used_kib;
	uint64_t swap_left_kib;
	uint64_t swapins;
	uint64_t checked;
};

/**
 * struct sw_kernel - the kernel side of one run.
 * @scale: The sizes (the suite's).
 * @usable: The side runs; if false, @why says why not.
 * @why: The reason it does not.
 * @loop: The swap device.
 * @swap_on: @loop is swapped on.
 * @image_map: The image behind @loop, mapped and mlock()ed so that its
 *	pages never swap out to @loop itself (NULL: none).
 * @cg: The memory cgroup memhog runs in (@cg.dir empty: none).
 * @child: The process memhog runs in.
 * @lock_fd: Holds the lock that keeps kernel swap sides one at a time
 *	on the machine (-1: not held).
 */
struct sw_kernel {
	struct sw_scale scale;
	bool usable;
	char why[256];
	struct bench_loop loop;
	bool swap_on;
	void *image_map;
	struct bench_memcg cg;
	struct bench_kchild child;
	int lock_fd;
};

/**
 * sw_kernel_init() - Set up the kernel side: the image, the loop device
 * swapped on, the cgroup and memhog's process.  Call it before the suite
 * maps its own memory (kernel_child.h).
 * @k: The side to fill.
 * @scale: The suite's sizes.
 *
 * Leaves @k->usable false, with @k->why, where the machine does not
 * give what the side needs, where it already swaps (memhog must swap to
 * this side's device alone), or where --swap-file sends the suite's
 * swap to files (the side's swap is in memory).
 */
void sw_kernel_init(struct sw_kernel *k, const struct sw_scale *scale);

/**
 * sw_kernel_round() - Run memhog once through the kernel.
 * @k: A usable side.
 * @s: Its figures.
 *
 * Return: 0; or -ECHILD if memhog's process was killed by a signal (as
 * by the cgroup's OOM killer, where something above the cgroup limits
 * its swap), with @k->why saying so: the side cannot go on.  Dies if
 * memhog failed otherwise, as on a page read back wrong.
 */
int sw_kernel_round(struct sw_kernel *k, struct sw_ksample *s);

/**
 * sw_kernel_free() - Undo sw_kernel_init(): end memhog's process, remove
 * the cgroup, swap the device off and close it (which detaches it and
 * frees its image).
 * @k: The side, usable or not; it is not usable after.
 */
void sw_kernel_free(struct sw_kernel *k);

#endif /* UPCACHE_TOOLS_BENCH_SW_KERNEL_H */
