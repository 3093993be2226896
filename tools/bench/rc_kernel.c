// SPDX-License-Identifier: MIT
/*
 * tools/bench/rc_kernel.c - the kernel's side of seed 000's experiment
 * (rc_kernel.h): the loop device standing in for the seed's brd, and
 * the child process whose readers fault its pages in inside a memory
 * cgroup.
 *
 * The parts run in a child process (kernel_child.h), forked once before
 * the suite maps its memory, which moves into each part's cgroup before
 * the part.  The page cache its readers fault in stays charged to that
 * cgroup (the devices stay open), so each part starts from the state
 * the last one left, as the suite's upcache cache does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/kernel-page-flags.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "clock.h"
#include "kernel_child.h"
#include "kernel_disk.h"
#include "rc_kernel.h"
#include "rng.h"
#include "util.h"

/* The image is written this many pages at a time. */
#define RC_IMAGE_CHUNK	256UL

/* ---- the loop device ---------------------------------------------------- */

/*
 * rc_image() - An unnamed file in /dev/shm holding the file's pages,
 * each stamped as the suite's backing store.  Return: its fd, or a
 * negative errno.
 */
static int rc_image(const struct rc_scale *scale)
{
	uint64_t *chunk = bench_xcalloc(RC_IMAGE_CHUNK, UPC_PAGE_SIZE);
	unsigned long first, i;
	int fd, err = 0;

	fd = open("/dev/shm", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	for (first = 0; first < scale->file_pages; first += RC_IMAGE_CHUNK) {
		size_t bytes = RC_IMAGE_CHUNK << UPC_PAGE_SHIFT;
		ssize_t n;

		for (i = 0; i < RC_IMAGE_CHUNK; i++) {
			uint64_t *word = chunk + i * RC_WORDS;

			word[0] = rc_stamp(first + i);
			word[RC_WORDS - 1] = ~rc_stamp(first + i);
		}
		n = pwrite(fd, chunk, bytes, (off_t)(first << UPC_PAGE_SHIFT));
		if (n != (ssize_t)bytes) {
			/* A short write is a full tmpfs. */
			err = n < 0 ? -errno : -ENOSPC;
			close(fd);
			goto out;
		}
	}
out:
	free(chunk);
	return err ? err : fd;
}

/* ---- the readers (in the child) ----------------------------------------- */

/**
 * struct rc_kreader - one reader thread of the child.
 * @thread: The thread.
 * @map: The device's mapping.
 * @pages: Pages of the file.
 * @indices: The pages to read, in order; NULL for random pages.
 * @nr: Reads to do.
 * @seed: Seed of its random pages.
 * @go: The start barrier.
 * @start: When it started (after the barrier).
 * @end: When it finished.
 * @cpu: CPU time it spent reading.
 */
struct rc_kreader {
	pthread_t thread;
	const unsigned char *map;
	unsigned long pages;
	const unsigned long *indices;
	unsigned long nr;
	uint64_t seed;
	pthread_barrier_t *go;
	uint64_t start;
	uint64_t end;
	uint64_t cpu;
};

/* One 4 KiB read out of the mapping, as fio's mmap engine makes it. */
static void rc_kread(const unsigned char *map, unsigned long index,
		     uint64_t *buf)
{
	memcpy(buf, map + (index << UPC_PAGE_SHIFT), UPC_PAGE_SIZE);
	if (buf[0] != rc_stamp(index) || buf[RC_WORDS - 1] != ~rc_stamp(index))
		bench_die("reclaim: the kernel's page %lu read back "
			  "%#llx..%#llx, not its own data", index,
			  (unsigned long long)buf[0],
			  (unsigned long long)buf[RC_WORDS - 1]);
}

static void *rc_kreader_main(void *arg)
{
	struct rc_kreader *r = arg;
	struct bench_rng rng = { .state = r->seed };
	uint64_t buf[RC_WORDS];
	unsigned long i;

	/* The stack faulted in before the clock, as upcache's readers do. */
	rc_kread(r->map, r->indices ? 0 : bench_rng_below(&rng, r->pages),
		 buf);
	/* Once to say "ready", once more after the child's fault count. */
	pthread_barrier_wait(r->go);
	pthread_barrier_wait(r->go);
	r->start = bench_now_ns();
	r->cpu = bench_thread_cpu_ns();
	for (i = 0; i < r->nr; i++)
		rc_kread(r->map, r->indices ? r->indices[i] :
			 bench_rng_below(&rng, r->pages), buf);
	r->cpu = bench_thread_cpu_ns() - r->cpu;
	r->end = bench_now_ns();
	return NULL;
}

/* Map @d's device; @advice as madvise() takes it.  Dies on failure. */
static unsigned char *rc_kmap(const struct rc_kernel *k,
			      const struct rc_kdisk *d, int advice)
{
	size_t bytes = k->scale.file_pages << UPC_PAGE_SHIFT;
	void *map = mmap(NULL, bytes, PROT_READ, MAP_SHARED, d->loop.fd, 0);

	if (map == MAP_FAILED)
		bench_die("reclaim: cannot map %s: %s", d->loop.dev,
			  strerror(errno));
	if (madvise(map, bytes, advice))
		bench_die("reclaim: madvise(%d) of %s: %s", advice, d->loop.dev,
			  strerror(errno));
	return map;
}

/* The child's major faults so far: the pages its readers added. */
static uint64_t rc_kmajflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)ru.ru_majflt;
}

/*
 * rc_kreaders_run() - Every reader thread reads @nr pages, listed (each
 * thread its own slice of @indices) or random; the figures into @s.
 */
static void rc_kreaders_run(const struct rc_kernel *k,
			    const unsigned char *map, uint64_t seed,
			    const unsigned long *indices, unsigned long nr,
			    struct rc_sample *s)
{
	unsigned int threads = k->scale.threads, t;
	struct rc_kreader *r = bench_xcalloc(threads, sizeof(*r));
	uint64_t first = UINT64_MAX, last = 0, faults;
	pthread_barrier_t go;

	pthread_barrier_init(&go, NULL, threads + 1);
	for (t = 0; t < threads; t++) {
		r[t] = (struct rc_kreader){
			.map = map,
			.pages = k->scale.file_pages,
			.indices = indices ? indices + t * nr : NULL,
			.nr = nr,
			.seed = seed + t,
			.go = &go,
		};
		if (pthread_create(&r[t].thread, NULL, rc_kreader_main, &r[t]))
			bench_die("reclaim: cannot start a kernel reader");
	}
	/* Their first reads made (and left out), the count starts. */
	pthread_barrier_wait(&go);
	faults = rc_kmajflt();
	pthread_barrier_wait(&go);
	memset(s, 0, sizeof(*s));
	for (t = 0; t < threads; t++) {
		pthread_join(r[t].thread, NULL);
		s->ns += r[t].cpu;
		s->reads += r[t].nr;
		first = r[t].start < first ? r[t].start : first;
		last = r[t].end > last ? r[t].end : last;
	}
	s->wall_ns = last - first;
	s->adds = rc_kmajflt() - faults;
	pthread_barrier_destroy(&go);
	free(r);
}

/* The frame of @addr in this process (0: not mapped, or not to be had). */
static uint64_t rc_kpfn(int pagemap, const void *addr)
{
	uint64_t entry;
	off_t at = (off_t)((uintptr_t)addr >> UPC_PAGE_SHIFT) * 8;

	if (pread(pagemap, &entry, 8, at) != 8 || !(entry >> 63))
		return 0;
	return entry & ((1ULL << 55) - 1);
}

/* The kpageflags of frame @pfn (0 if not to be had). */
static uint64_t rc_kpflags(int kflags, uint64_t pfn)
{
	uint64_t flags;

	if (pread(kflags, &flags, 8, (off_t)(pfn * 8)) != 8)
		return 0;
	return flags;
}

/*
 * rc_khuge_ranges() - Of the 2 MiB ranges of @map still mapped, how many
 * are held by one order-9 folio: a compound head on the first page and a
 * tail 511 frames on at the last (/proc/self/pagemap, /proc/kpageflags:
 * root only).  *@mapped gets how many ranges are mapped.  Return: the
 * count, or -1 if the files cannot be read.
 */
static long rc_khuge_ranges(const struct rc_kernel *k,
			    const unsigned char *map, long *mapped)
{
	unsigned long ranges = k->scale.file_pages >> RC_THP_ORDER, i;
	int pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	int kflags = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	long huge = -1;

	*mapped = 0;
	if (pagemap < 0 || kflags < 0)
		goto out;
	huge = 0;
	for (i = 0; i < ranges; i++) {
		const unsigned char *first = map + (i << (RC_THP_ORDER +
							  UPC_PAGE_SHIFT));
		const unsigned char *last = first + (((1UL << RC_THP_ORDER) -
						      1) << UPC_PAGE_SHIFT);
		uint64_t head = rc_kpfn(pagemap, first);
		uint64_t tail = rc_kpfn(pagemap, last);

		if (!head || !tail)
			continue;
		(*mapped)++;
		huge += tail == head + (1UL << RC_THP_ORDER) - 1 &&
			(rc_kpflags(kflags, head) >> KPF_COMPOUND_HEAD & 1) &&
			(rc_kpflags(kflags, tail) >> KPF_COMPOUND_TAIL & 1);
	}
out:
	if (pagemap >= 0)
		close(pagemap);
	if (kflags >= 0)
		close(kflags);
	return huge;
}

/*
 * rc_ktouch_all() - Touch every page in order: the warm-up, and the thp
 * cycle's fill, which counts into @s the ranges mapped after it and of
 * those the ones held by one order-9 folio (rc_khuge_ranges()).
 */
static void rc_ktouch_all(const struct rc_kernel *k, const struct rc_kdisk *d,
			  int advice, struct rc_sample *s)
{
	size_t bytes = k->scale.file_pages << UPC_PAGE_SHIFT;
	unsigned char *map = rc_kmap(k, d, advice);
	uint64_t buf[RC_WORDS];
	unsigned long i;

	for (i = 0; i < k->scale.file_pages; i++)
		rc_kread(map, i, buf);
	if (s) {
		long mapped, huge = rc_khuge_ranges(k, map, &mapped);

		s->fill_ranges = (uint64_t)mapped;
		s->fill_huge_ranges = huge < 0 ? 0 : (uint64_t)huge;
	}
	munmap(map, bytes);
}

/* Reclaim @d's cgroup, or die: the cycle needs its cache empty. */
static void rc_kreclaim(const struct rc_kdisk *d)
{
	int err = bench_memcg_reclaim(&d->cg);

	if (err)
		bench_die("reclaim: cannot reclaim the memory cgroup %s: %s",
			  d->cg.dir, strerror(-err));
}

/*
 * rc_kchild() - What the child does for one part (@w), or for the
 * warm-up (@warm): its figures into @s (none for the warm-up).
 */
static void rc_kchild(const struct rc_kernel *k, enum rc_workload w,
		      bool warm, uint64_t seed, struct rc_sample *s)
{
	const struct rc_kdisk *d = &k->disk[w];
	size_t bytes = k->scale.file_pages << UPC_PAGE_SHIFT;
	struct rc_sample fill = { 0 };
	unsigned long *indices = NULL, nr;
	unsigned char *map;

	memset(s, 0, sizeof(*s));
	if (warm) {
		rc_ktouch_all(k, d, MADV_SEQUENTIAL, NULL);
		return;
	}
	if (w == RC_THP_SPLIT) {
		rc_kreclaim(d);
		rc_ktouch_all(k, d, MADV_HUGEPAGE, &fill);
		rc_kreclaim(d);
		indices = bench_xcalloc(k->scale.file_pages >> RC_THP_ORDER,
					sizeof(*indices));
		nr = rc_thp_indices(&k->scale, seed, indices) /
		     k->scale.threads;
	} else {
		nr = k->scale.reads / RC_RANDREAD_PARTS;
	}
	map = rc_kmap(k, d, MADV_RANDOM);
	rc_kreaders_run(k, map, seed, indices, nr, s);
	s->fill_ranges = fill.fill_ranges;
	s->fill_huge_ranges = fill.fill_huge_ranges;
	munmap(map, bytes);
	free(indices);
}

/**
 * struct rc_kcmd - what the parent asks the child for.
 * @w: The workload.
 * @warm: The warm-up read of the whole file instead of a part.
 * @seed: Seeds the pages read.
 */
struct rc_kcmd {
	enum rc_workload w;
	bool warm;
	uint64_t seed;
};

/*
 * rc_kchild_serve() - One command, in the child (bench_kchild_fn): move
 * into its workload's cgroup, run it, its figures into @reply.
 */
static void rc_kchild_serve(void *ctx, const void *cmd, void *reply)
{
	const struct rc_kernel *k = ctx;
	const struct rc_kcmd *c = cmd;
	const struct rc_kdisk *d = &k->disk[c->w];
	int err = bench_memcg_enter(&d->cg);

	if (err)
		bench_die("reclaim: cannot enter the memory cgroup %s: %s",
			  d->cg.dir, strerror(-err));
	rc_kchild(k, c->w, c->warm, c->seed, reply);
}

/*
 * rc_kernel_run() - Have the child run a part of workload @w (or the
 * warm-up) in its cgroup, and bring back its figures.  Dies if it fails.
 */
static void rc_kernel_run(struct rc_kernel *k, enum rc_workload w, bool warm,
			  uint64_t seed, struct rc_sample *s)
{
	struct rc_kcmd cmd = { .w = w, .warm = warm, .seed = seed };

	if (!bench_kchild_call(&k->child, &cmd, s))
		bench_die("reclaim: the kernel side's readers failed (%s, "
			  "cgroup %s)", k->disk[w].loop.dev, k->disk[w].cg.dir);
}

/* ---- the side ----------------------------------------------------------- */

/* rc_kernel_undo() - rc_kernel_free() of a side, at exit. */
static void rc_kernel_undo(void *side)
{
	rc_kernel_free(side);
}

/*
 * rc_kdisk_init() - Workload @w's cgroup, image and loop device.
 * Return: 0, or a negative errno with @k->why set (what was made is
 * undone by rc_kdisk_free()).
 */
static int rc_kdisk_init(struct rc_kernel *k, enum rc_workload w)
{
	struct rc_kdisk *d = &k->disk[w];
	char name[64];
	int image, err;

	snprintf(name, sizeof(name), "upcache-bench-%d-%s", (int)getpid(),
		 rc_workload_name(w));
	err = bench_memcg_create(&d->cg, name,
				 (uint64_t)k->scale.limit_pages << UPC_PAGE_SHIFT,
				 k->why, sizeof(k->why));
	if (err)
		return err;
	image = rc_image(&k->scale);
	if (image < 0) {
		snprintf(k->why, sizeof(k->why), "cannot write the loop "
			 "device's image in /dev/shm: %s", strerror(-image));
		return image;
	}
	/* The loop device holds the image now: it goes when the device does. */
	err = bench_loop_attach(&d->loop, image, true,
				"to stand in for the seed's ramdisk", k->why,
				sizeof(k->why));
	close(image);
	return err;
}

/* Undo rc_kdisk_init(), as far as it went. */
static void rc_kdisk_free(struct rc_kdisk *d)
{
	if (d->cg.dir[0]) {
		/* Emptied first: its rmdir then leaves no charges behind. */
		bench_memcg_reclaim(&d->cg);
		bench_memcg_remove(&d->cg);
	}
	bench_loop_close(&d->loop);
	memset(&d->cg, 0, sizeof(d->cg));
}

void rc_kernel_init(struct rc_kernel *k, const struct rc_scale *scale)
{
	struct rc_sample warm;
	int w, err;

	memset(k, 0, sizeof(*k));
	k->scale = *scale;
	for (w = 0; w < RC_NR_WORKLOADS; w++)
		k->disk[w].loop.fd = -1;
	if (geteuid()) {
		snprintf(k->why, sizeof(k->why), "needs root: a loop device "
			 "to stand in for the seed's ramdisk, and a memory "
			 "cgroup");
		return;
	}
	bench_kernel_undo_at_exit(rc_kernel_undo, k);
	for (w = 0; w < RC_NR_WORKLOADS; w++) {
		if (rc_kdisk_init(k, w)) {
			rc_kernel_free(k);
			return;
		}
	}
	err = bench_kchild_start(&k->child, rc_kchild_serve, k,
				 sizeof(struct rc_kcmd), sizeof(warm));
	if (err) {
		snprintf(k->why, sizeof(k->why), "cannot start the kernel "
			 "side's reader process: %s", strerror(-err));
		rc_kernel_free(k);
		return;
	}
	k->usable = true;
	rc_kernel_run(k, RC_RANDREAD, true, 0, &warm);
}

void rc_kernel_part(struct rc_kernel *k, enum rc_workload w, uint64_t seed,
		    struct rc_sample *s)
{
	rc_kernel_run(k, w, false, seed, s);
}

void rc_kernel_free(struct rc_kernel *k)
{
	int w;

	/* Out of the cgroups first: a cgroup with a process stays. */
	bench_kchild_stop(&k->child);
	for (w = 0; w < RC_NR_WORKLOADS; w++)
		rc_kdisk_free(&k->disk[w]);
	k->usable = false;
	bench_kernel_undo_cancel(k);
}
