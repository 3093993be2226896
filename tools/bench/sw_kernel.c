// SPDX-License-Identifier: MIT
/*
 * tools/bench/sw_kernel.c - the kernel's side of seed 003's experiment
 * (sw_kernel.h): the swap device, and memhog in its memory cgroup.
 *
 * memhog runs in a child process (kernel_child.h), forked before the
 * suite maps its caches, which moves into the cgroup and, per round,
 * maps, writes, checks and unmaps its region.  The swap device is
 * swapped on for the whole run; unmapping a round's region frees its
 * slots, as the suite's rounds end with empty swap devices (though the
 * kernel frees some slots lazily, with their swap cache pages: the
 * row's kernel_swap_left_mib says how many were still in use).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <upcache/folio.h>

#include "clock.h"
#include "sw_kernel.h"
#include "util.h"

/* ---- memhog (in the child) ---------------------------------------------- */

/* The device's swap in use, in KiB (0 if /proc/swaps does not say). */
static uint64_t sw_kswap_used(const struct sw_kernel *k)
{
	FILE *f = fopen("/proc/swaps", "r");
	uint64_t kib = 0;

	if (f) {
		if (bench_swaps_used_kib(f, k->loop.dev, &kib))
			kib = 0;
		fclose(f);
	}
	return kib;
}

/* This process's major faults so far. */
static uint64_t sw_kmajflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)ru.ru_majflt;
}

/*
 * sw_ktouch() - memhog's touch: every page of @region written once, in
 * order, with the suite's data; timed into @s.
 */
static void sw_ktouch(const struct sw_kernel *k, unsigned char *region,
		      struct sw_ksample *s)
{
	uint64_t *page = bench_xcalloc(1, UPC_PAGE_SIZE);
	unsigned long index;
	uint64_t start, cpu;

	sw_page_fill(page);
	start = bench_now_ns();
	cpu = bench_thread_cpu_ns();
	for (index = 0; index < k->scale.region_pages; index++) {
		sw_page_stamp(page, index);
		memcpy(region + (index << UPC_PAGE_SHIFT), page,
		       UPC_PAGE_SIZE);
	}
	s->cpu_ns = bench_thread_cpu_ns() - cpu;
	s->wall_ns = bench_now_ns() - start;
	s->pages = k->scale.region_pages;
	free(page);
}

/* Read page @index of @region back and check it is its own, or die. */
static void sw_kcheck_page(const unsigned char *region, unsigned long index,
			   uint64_t *buf)
{
	memcpy(buf, region + (index << UPC_PAGE_SHIFT), UPC_PAGE_SIZE);
	if (!sw_page_is_own(buf, index))
		bench_die("swap: the kernel's page %lu read back %#llx.., not "
			  "its own data", index, (unsigned long long)buf[0]);
}

/*
 * sw_kcheck() - Read the suite's spread of pages back, most of them
 * swapped out, and the last; the swap-ins they took into @s.
 */
static void sw_kcheck(const struct sw_kernel *k, const unsigned char *region,
		      struct sw_ksample *s)
{
	unsigned long pages = k->scale.region_pages;
	unsigned long step = sw_check_step(&k->scale), index;
	uint64_t *buf = bench_xcalloc(1, UPC_PAGE_SIZE);
	uint64_t faults = sw_kmajflt();

	for (index = 0; index < pages; index += step, s->checked++)
		sw_kcheck_page(region, index, buf);
	sw_kcheck_page(region, pages - 1, buf);
	s->checked++;
	s->swapins = sw_kmajflt() - faults;
	free(buf);
}

/*
 * sw_kmemhog() - One round in the child (bench_kchild_fn): into the
 * cgroup, then map, touch, check and unmap the region.
 */
static void sw_kmemhog(void *ctx, const void *cmd, void *reply)
{
	const struct sw_kernel *k = ctx;
	size_t bytes = k->scale.region_pages << UPC_PAGE_SHIFT;
	struct sw_ksample *s = reply;
	unsigned char *region;
	int err;

	(void)cmd;
	err = bench_memcg_enter(&k->cg);
	if (err)
		bench_die("swap: cannot enter the memory cgroup %s: %s",
			  k->cg.dir, strerror(-err));
	region = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (region == MAP_FAILED)
		bench_die("swap: cannot map memhog's region: %s",
			  strerror(errno));
	/* 4 KiB pages, as upcache's region and the swap-outs have. */
	if (madvise(region, bytes, MADV_NOHUGEPAGE))
		bench_die("swap: madvise(MADV_NOHUGEPAGE): %s",
			  strerror(errno));
	sw_ktouch(k, region, s);
	s->swap_used_kib = sw_kswap_used(k);
	sw_kcheck(k, region, s);
	munmap(region, bytes);
	s->swap_left_kib = sw_kswap_used(k);
}

/* ---- the side ----------------------------------------------------------- */

/*
 * The lock that keeps kernel swap sides one at a time on a machine.
 * Two at once would both swap on at the same priority, and the kernel
 * spreads swap-outs over devices of equal priority: one run's memhog
 * would swap to the other's device, and its swapoff() would read the
 * other's pages back in.  A second run (a second test under ctest -j)
 * waits for the first.
 */
#define SW_KERNEL_LOCK	"/dev/shm/upcache-bench-kernel-swap.lock"

/* Take the lock, waiting for another run's.  Return: 0 or -errno. */
static int sw_klock(struct sw_kernel *k)
{
	int err;

	k->lock_fd = open(SW_KERNEL_LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (k->lock_fd < 0)
		goto fail;
	while (flock(k->lock_fd, LOCK_EX))
		if (errno != EINTR)
			goto fail;
	return 0;
fail:
	err = -errno;
	snprintf(k->why, sizeof(k->why), "cannot lock %s, which keeps kernel "
		 "swap sides one at a time: %s", SW_KERNEL_LOCK,
		 strerror(-err));
	return err;
}

/*
 * sw_klock_image() - Keep the image's pages in memory (mlock() of a
 * shared mapping of it) for as long as the device is on.  A tmpfs page
 * is swap-backed: reclaim anywhere on the machine (a proactive one such
 * as DAMON's included) could swap an image page out to this very
 * device, and the loop device's worker, writing into that page, would
 * wait for its own write: a deadlock, seen here once.  Return: 0 or a
 * negative errno.
 */
static int sw_klock_image(struct sw_kernel *k, int image)
{
	size_t bytes = (size_t)k->scale.swap_bytes;
	void *map = mmap(NULL, bytes, PROT_READ, MAP_SHARED | MAP_POPULATE,
			 image, 0);

	if (map == MAP_FAILED)
		return -errno;
	if (mlock(map, bytes)) {
		int err = -errno;

		munmap(map, bytes);
		return err;
	}
	k->image_map = map;
	return 0;
}

/*
 * sw_kdevice() - The swap device: an unnamed tmpfs file of the suite's
 * swap size, allocated in full (so a swap-out never has tmpfs allocate,
 * and charge, a page) and locked in memory (sw_klock_image()), a swap
 * header, a loop device over it, swapped on.  Return: 0, or a negative
 * errno with @k->why set.
 */
static int sw_kdevice(struct sw_kernel *k)
{
	off_t bytes = (off_t)k->scale.swap_bytes;
	int image, err;

	image = open("/dev/shm", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	err = image < 0 || fallocate(image, 0, 0, bytes) ? -errno :
	      bench_swap_format(image, (uint64_t)bytes);
	if (!err)
		err = sw_klock_image(k, image);
	if (err) {
		snprintf(k->why, sizeof(k->why), "cannot make a %lld MiB swap "
			 "image locked in memory in /dev/shm: %s",
			 (long long)(bytes >> 20), strerror(-err));
		if (image >= 0)
			close(image);
		return err;
	}
	/* The loop device holds the image now: it goes when the device does. */
	err = bench_loop_attach(&k->loop, image, false,
				"for the kernel's swap device", k->why,
				sizeof(k->why));
	close(image);
	if (err)
		return err;
	err = bench_swap_on(k->loop.dev);
	if (err) {
		snprintf(k->why, sizeof(k->why), "cannot swap on %s: %s",
			 k->loop.dev, strerror(-err));
		return err;
	}
	k->swap_on = true;
	return 0;
}

/* sw_kernel_undo() - sw_kernel_free() of a side, at exit. */
static void sw_kernel_undo(void *side)
{
	sw_kernel_free(side);
}

void sw_kernel_init(struct sw_kernel *k, const struct sw_scale *scale)
{
	struct sw_ksample none;
	uint64_t limit;
	char name[64];
	int err;

	memset(k, 0, sizeof(*k));
	k->scale = *scale;
	k->loop.fd = -1;
	k->lock_fd = -1;
	if (scale->swap_file) {
		snprintf(k->why, sizeof(k->why), "--swap-file: upcache swaps to "
			 "files, and the kernel side only to memory");
		return;
	}
	if (geteuid()) {
		snprintf(k->why, sizeof(k->why), "needs root: a memory cgroup, "
			 "and a loop device to swap on");
		return;
	}
	bench_kernel_undo_at_exit(sw_kernel_undo, k);
	snprintf(name, sizeof(name), "upcache-bench-%d-memhog", (int)getpid());
	limit = (uint64_t)scale->limit_pages << UPC_PAGE_SHIFT;
	err = sw_klock(k);
	if (!err && bench_has_swap()) {
		/*
		 * memhog must swap to this side's device alone: one of equal
		 * priority (another run's, left on by a signal) would get
		 * half its swap-outs.
		 */
		snprintf(k->why, sizeof(k->why), "this machine already swaps "
			 "(/proc/swaps), and the kernel side needs its own swap "
			 "device to be the only one");
		err = -EEXIST;
	}
	if (!err)
		err = bench_memcg_create(&k->cg, name, limit, k->why,
					 sizeof(k->why));
	if (!err)
		err = sw_kdevice(k);
	if (!err) {
		err = bench_kchild_start(&k->child, sw_kmemhog, k,
					 sizeof(int), sizeof(none));
		if (err)
			snprintf(k->why, sizeof(k->why), "cannot start memhog's "
				 "process: %s", strerror(-err));
	}
	if (err) {
		sw_kernel_free(k);
		return;
	}
	k->usable = true;
}

int sw_kernel_round(struct sw_kernel *k, struct sw_ksample *s)
{
	int cmd = 0, status;

	if (bench_kchild_call(&k->child, &cmd, s))
		return 0;
	status = bench_kchild_stop(&k->child);
	if (status < 0 || !WIFSIGNALED(status))
		bench_die("swap: the kernel side's memhog failed (swapping to "
			  "%s in the memory cgroup %s)", k->loop.dev,
			  k->cg.dir);
	snprintf(k->why, sizeof(k->why), "memhog's process was killed by "
		 "signal %d%s, swapping to %s in its memory cgroup",
		 WTERMSIG(status), WTERMSIG(status) == SIGKILL ?
		 " (as the cgroup's OOM killer kills: it could not swap out "
		 "enough)" : "", k->loop.dev);
	return -ECHILD;
}

void sw_kernel_free(struct sw_kernel *k)
{
	int err;

	/* Out of the cgroup first: a cgroup with a process stays. */
	bench_kchild_stop(&k->child);
	if (k->cg.dir[0]) {
		bench_memcg_reclaim(&k->cg);
		bench_memcg_remove(&k->cg);
		memset(&k->cg, 0, sizeof(k->cg));
	}
	if (k->swap_on) {
		err = bench_swap_off(k->loop.dev);
		if (err)
			fprintf(stderr, "upcache-bench: swapoff %s: %s\n",
				k->loop.dev, strerror(-err));
		k->swap_on = false;
	}
	bench_loop_close(&k->loop);
	if (k->image_map)
		munmap(k->image_map, (size_t)k->scale.swap_bytes);
	k->image_map = NULL;
	/* Closing it unlocks it: the child that shared it is gone. */
	if (k->lock_fd >= 0)
		close(k->lock_fd);
	k->lock_fd = -1;
	k->usable = false;
	bench_kernel_undo_cancel(k);
}
