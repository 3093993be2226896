/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/rc_kernel.h - the kernel's side of seed 000's experiment:
 * the same file, the same limit, the same reads, through the kernel's
 * page cache.
 *
 * The seed ran fio's mmap engine over a file on brd, a ramdisk, in a
 * memory cgroup holding the page cache at half the file.  Here the
 * ramdisk is a loop device over a file in /dev/shm (direct I/O where
 * the kernel offers it, so a miss costs one copy out of tmpfs, as a brd
 * miss costs one out of its pages), stamped as upcache's backing store
 * is; the readers map the device itself (the block device's page cache,
 * no filesystem between) and run in a child process moved into a memory
 * cgroup whose limit is the suite's (kernel_env.h).  Each read is a
 * memcpy() of one 4 KiB page out of the mapping, its stamps checked:
 * a page not in the cache is a major fault, which adds a folio over the
 * shadow its eviction left (filemap_add_folio(), the seed's change).
 *
 *	randread	as the suite's: a part reads random pages by every
 *			thread, the cache in steady state
 *	thp		a part is one cycle: reclaim the cgroup, read the
 *			file through a MADV_HUGEPAGE mapping (the kernel
 *			fills its cache with 2 MiB folios, evicting as
 *			it goes), reclaim again (order-9 shadows), then
 *			(timed) read the thp workload's pages through a
 *			MADV_RANDOM mapping: each add splits a shadow
 *
 * Nothing outlives the run: the image is an unnamed tmpfs file, the loop
 * device detaches itself when its last user closes it, and the cgroup is
 * removed.  Where any of it cannot be had (not root, no loop device, no
 * memory cgroup), the side is skipped and @why says what was missing.
 */
#ifndef UPCACHE_TOOLS_BENCH_RC_KERNEL_H
#define UPCACHE_TOOLS_BENCH_RC_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel_child.h"
#include "kernel_disk.h"
#include "kernel_env.h"
#include "rc_cases.h"

/**
 * struct rc_kdisk - one workload's file in the kernel: as the suite
 * gives each workload its own cache, each has its own device (its own
 * page cache) and its own cgroup (its own limit), so the thp cycles'
 * reclaim leaves randread's steady state alone.
 * @loop: The loop device, open read-only (@loop.fd -1: none): the
 *	readers map it.
 * @cg: The memory cgroup the readers run in (@cg.dir empty: none).
 */
struct rc_kdisk {
	struct bench_loop loop;
	struct bench_memcg cg;
};

/**
 * struct rc_kernel - the kernel side of one run.
 * @scale: The sizes (the suite's).
 * @usable: The side runs; if false, @why says why not.
 * @why: The reason it does not.
 * @disk: Each workload's device and cgroup.
 * @child: The reader process, which runs each part in the part's
 *	cgroup.
 */
struct rc_kernel {
	struct rc_scale scale;
	bool usable;
	char why[256];
	struct rc_kdisk disk[RC_NR_WORKLOADS];
	struct bench_kchild child;
};

/**
 * rc_kernel_init() - Set up the kernel side: an image, a loop device and
 * a cgroup per workload, and the reader process; then read randread's
 * whole file once in its cgroup, as the suite warms its randread cache.
 * Call it before the suite maps its own memory: the reader process is
 * forked here, and the fork makes the parent's memory copy-on-write.
 * @k: The side to fill.
 * @scale: The suite's sizes.
 *
 * Leaves @k->usable false, with @k->why, where the machine does not
 * give what the side needs.  Dies if a reader reads a wrong page.
 */
void rc_kernel_init(struct rc_kernel *k, const struct rc_scale *scale);

/**
 * rc_kernel_part() - Run one part of a workload through the kernel, as
 * rc_round_part() runs one through upcache.
 * @k: A usable side.
 * @w: The workload.
 * @seed: Seeds the pages read.
 * @s: The part's figures: @ns, @wall_ns and @reads as the suite's;
 *	@adds counts the readers' major faults (each adds a folio).  The
 *	other counts are the kernel's and not read: zero.
 *
 * Dies if the readers cannot run or read a wrong page.
 */
void rc_kernel_part(struct rc_kernel *k, enum rc_workload w, uint64_t seed,
		    struct rc_sample *s);

/**
 * rc_kernel_free() - Undo rc_kernel_init(): remove the cgroups, close
 * the loop devices (which detaches them and frees their images).
 * @k: The side, usable or not; it is not usable after.
 */
void rc_kernel_free(struct rc_kernel *k);

#endif /* UPCACHE_TOOLS_BENCH_RC_KERNEL_H */
