// SPDX-License-Identifier: MIT
/*
 * tools/bench/run_exec.c - running the jobs of `upcache-bench run`.
 *
 * Owns the threads: splitting jobs into stonewall groups, one thread
 * per clone, the start barrier, the ramp and measured phases, the
 * offset sequence of each pattern, stopping (runtime, Ctrl-C), the live
 * progress line, and merging what the clones measured into results.
 * The workload's steps are numbered in run_exec.h; the "Step N" labels
 * below match them.
 *
 * Offsets: sequential patterns walk the region block by block (a mixed
 * one with a position per direction, as fio keeps); random ones visit
 * every block of the region once per pass in a shuffled order (fio's
 * default random map), shuffled anew for every pass, from a seed fixed
 * per clone of the run, so two runs issue the same sequence.  A region
 * of more than 2^26 blocks uses independent random blocks instead
 * (fio's norandommap), to keep the map's memory bounded.  The
 * directions of mixed patterns come from a stream of their own.
 *
 * Syncs (fsync=, fdatasync=, end_fsync=; when, and how they are counted
 * and timed: run_exec.h) are owed after a write and issued at the top of
 * the next turn of the loop, where fio's get_rw_ddir() would pick its
 * next io_u, so a phase that ends on a write owes nothing.
 *
 * Think time (thinktime=: when, and how it is timed: run_exec.h) comes
 * right after a read or write, before a sync it made due, as fio thinks
 * at the end of the turn of do_io()'s loop that completed the I/O.
 *
 * Conventions: @c is one clone's state, @g its offset generator.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <upcache/stats.h>

#include "clock.h"
#include "rng.h"
#include "run_engine.h"
#include "run_exec.h"
#include "util.h"

#define RUN_MAX_RANDOM_MAP	(1ULL << 26)
#define RUN_PROGRESS_NS		(1000ULL * 1000 * 1000)
#define RUN_PROGRESS_POLL_NS	(50ULL * 1000 * 1000)
/*
 * Longest sleep of a thinking clone between two looks at the clock and
 * at a stop request: a long thinktime= ends within this of runtime= or
 * of Ctrl-C.
 */
#define RUN_THINK_SLICE_NS	(10ULL * 1000 * 1000)
#define RUN_SEED_CLONE		(BENCH_RNG_SEED + 0x5255)
/* A base of its own: a clone's direction draws are not its offset draws. */
#define RUN_SEED_DIR		(BENCH_RNG_SEED ^ 0x6d6978656452574eULL)

static atomic_bool run_stop;

/**
 * run_request_stop() - Ask running jobs to stop.
 *
 * Context: Any thread and signal handlers.
 */
void run_request_stop(void)
{
	atomic_store_explicit(&run_stop, true, memory_order_relaxed);
}

/**
 * run_stop_requested() - Whether a stop was requested.
 */
bool run_stop_requested(void)
{
	return atomic_load_explicit(&run_stop, memory_order_relaxed);
}

/**
 * run_stop_reset() - Forget a stop request.
 */
void run_stop_reset(void)
{
	atomic_store_explicit(&run_stop, false, memory_order_relaxed);
}

/**
 * struct run_clone - one clone's thread.
 * @job: Its job.
 * @eng: Its job's engine.
 * @ctx: The engine's context for the job.
 * @clone: Its number within the job.
 * @thread: Its number within the run (run_gen_init()).
 * @group: Its stonewall group.
 * @barrier: The group's start barrier.
 * @tid: Its thread.
 * @done: Bytes moved so far, per direction, for the progress line.
 * @measuring: The measured phase has begun.
 * @st: What it measured.
 * @err: 0, or the -errno that ended it.
 * @why: What failed, when @err is set by an operation.
 */
struct run_clone {
	const struct run_job *job;
	const struct run_engine *eng;
	void *ctx;
	unsigned int clone;
	unsigned int thread;
	unsigned int group;
	pthread_barrier_t *barrier;
	pthread_t tid;
	_Atomic uint64_t done[RUN_NR_DIRS];
	atomic_bool measuring;
	struct run_stats st;
	int err;
	char why[320];
};

/**
 * run_gen_init() - Start the offsets of one clone.
 * @g: The generator.
 * @job: The clone's job.
 * @thread: The clone's number within the run.
 */
void run_gen_init(struct run_gen *g, const struct run_job *job,
		  unsigned int thread)
{
	uint64_t i;

	memset(g, 0, sizeof(*g));
	g->job = job;
	g->nr_blocks = job->size / job->bs;
	g->random = run_rw_random(job->rw);
	g->read_pct = !run_rw_writes(job->rw) ? 100 :
		      !run_rw_reads(job->rw) ? 0 : job->rwmixread;
	g->rng.state = RUN_SEED_CLONE + thread;
	g->dir_rng.state = RUN_SEED_DIR + thread;
	if (!g->random || g->nr_blocks > RUN_MAX_RANDOM_MAP)
		return;
	/* Not bench_permutation(): later passes go on with @g->rng. */
	g->map = bench_xcalloc((size_t)g->nr_blocks, sizeof(*g->map));
	for (i = 0; i < g->nr_blocks; i++)
		g->map[i] = (unsigned long)i;
	bench_shuffle(&g->rng, g->map, (size_t)g->nr_blocks);
}

/**
 * run_gen_free() - Free what run_gen_init() allocated.
 * @g: The generator.
 */
void run_gen_free(struct run_gen *g)
{
	free(g->map);
	g->map = NULL;
}

/* gen_dir() - The direction of the next operation. */
static inline enum run_dir gen_dir(struct run_gen *g)
{
	if (g->read_pct == 100)
		return RUN_DIR_READ;
	if (!g->read_pct)
		return RUN_DIR_WRITE;
	return bench_rng_below(&g->dir_rng, 100) < g->read_pct ?
		RUN_DIR_READ : RUN_DIR_WRITE;
}

/* gen_seq() - The next block of direction @dir of a sequential pattern. */
static inline uint64_t gen_seq(struct run_gen *g, enum run_dir dir)
{
	uint64_t block = g->seq[dir];

	g->seq[dir] = block + 1 == g->nr_blocks ? 0 : block + 1;
	return block;
}

/**
 * run_gen_next() - The next operation.
 * @g: The generator.
 * @dir: Its direction.
 * @off: Its offset.
 *
 * Return: true, or false at the end of a pass.
 */
bool run_gen_next(struct run_gen *g, enum run_dir *dir, uint64_t *off)
{
	uint64_t block;

	if (g->next == g->nr_blocks) {
		g->next = 0;
		if (g->map)
			bench_shuffle(&g->rng, g->map, (size_t)g->nr_blocks);
		return false;
	}
	*dir = gen_dir(g);
	if (g->map)
		block = g->map[g->next];
	else if (g->random)
		block = bench_rng_next(&g->rng) % g->nr_blocks;
	else
		block = gen_seq(g, *dir);
	g->next++;
	*off = g->job->offset + block * g->job->bs;
	return true;
}

/* stats_init() - Empty figures. */
static void stats_init(struct run_stats *st)
{
	int d;

	memset(st, 0, sizeof(*st));
	for (d = 0; d < RUN_NR_DIRS; d++) {
		run_hist_init(&st->hist[d]);
		st->min_elapsed_ns[d] = UINT64_MAX;
	}
	run_hist_init(&st->sync);
}

/*
 * stats_set_elapsed() - A clone measured for @ns: that is its run time
 * in each direction it moved data in, and it has none in the others.
 */
static void stats_set_elapsed(struct run_stats *st, uint64_t ns)
{
	int d;

	for (d = 0; d < RUN_NR_DIRS; d++)
		if (st->ops[d])
			st->elapsed_ns[d] = st->min_elapsed_ns[d] = ns;
}

/* stats_merge() - Add @more's figures to @acc (clones run side by side). */
static void stats_merge(struct run_stats *acc, const struct run_stats *more)
{
	int d;

	for (d = 0; d < RUN_NR_DIRS; d++) {
		acc->bytes[d] += more->bytes[d];
		acc->ops[d] += more->ops[d];
		run_hist_merge(&acc->hist[d], &more->hist[d]);
		if (more->elapsed_ns[d] > acc->elapsed_ns[d])
			acc->elapsed_ns[d] = more->elapsed_ns[d];
		if (more->min_elapsed_ns[d] < acc->min_elapsed_ns[d])
			acc->min_elapsed_ns[d] = more->min_elapsed_ns[d];
	}
	run_hist_merge(&acc->sync, &more->sync);
	bench_counts_merge(&acc->counts, &more->counts);
}

/*
 * clone_io_failed() - Say in @c->why what went wrong with an operation
 * that returned @n.  Return: the -errno that ends the clone: -EIO for
 * fewer bytes than asked, which the figures would count as done.
 */
static int clone_io_failed(struct run_clone *c, enum run_dir dir,
			   uint64_t off, ssize_t n)
{
	const char *op = dir == RUN_DIR_WRITE ? "write" : "read";
	int len;

	len = snprintf(c->why, sizeof(c->why), "job '%s': %s of %llu bytes "
		       "at offset %llu: ", c->job->name, op,
		       (unsigned long long)c->job->bs,
		       (unsigned long long)off);
	if (len < 0 || (size_t)len >= sizeof(c->why))
		len = 0;
	/*
	 * bs= and offset= passed run_job_resolve()'s alignment check, so
	 * a direct operation the kernel finds invalid is one whose file
	 * system wants direct I/O aligned to more than they give.
	 */
	if (n == -EINVAL && c->job->direct)
		snprintf(c->why + len, sizeof(c->why) - (size_t)len, "%s "
			 "(direct=1: the file system wants O_DIRECT I/O "
			 "aligned to more than %llu bytes; try a larger bs= "
			 "and offset=)", strerror(EINVAL), RUN_DIRECT_ALIGN);
	else if (n < 0)
		snprintf(c->why + len, sizeof(c->why) - (size_t)len, "%s",
			 strerror((int)-n));
	else if (!n && dir == RUN_DIR_READ)
		snprintf(c->why + len, sizeof(c->why) - (size_t)len,
			 "read past the end of the file (0 bytes)");
	else
		snprintf(c->why + len, sizeof(c->why) - (size_t)len,
			 "short %s: %lld bytes", op, (long long)n);
	return n < 0 ? (int)n : -EIO;
}

/*
 * clone_io() - One operation of bs bytes.  Return: 0, or -errno (-EIO
 * for a short one) with @c->why set.
 */
static inline int clone_io(struct run_clone *c, void *h, void *buf,
			   enum run_dir dir, uint64_t off)
{
	size_t len = (size_t)c->job->bs;
	ssize_t n = c->eng->io(h, dir == RUN_DIR_WRITE, buf, len, off);

	if (n == (ssize_t)len)
		return 0;
	return clone_io_failed(c, dir, off, n);
}

/*
 * enum clone_sync - a sync a clone owes its file, named as a failed one
 * is reported.
 */
enum clone_sync {
	SYNC_NONE,
	SYNC_FSYNC,		/* fsync= */
	SYNC_FDATASYNC,		/* fdatasync= */
	SYNC_END,		/* end_fsync=: an fsync */
};

static const char *const sync_name[] = {
	[SYNC_FSYNC] = "fsync", [SYNC_FDATASYNC] = "fdatasync",
	[SYNC_END] = "end_fsync (fsync)",
};

/*
 * sync_after_write() - The sync a clone owes after the @writes-th write
 * of its phase: fio checks fsync= before fdatasync=, so when both fall
 * due only the fsync is issued.
 */
static inline enum clone_sync sync_after_write(const struct run_job *job,
					       uint64_t writes)
{
	if (job->fsync_blocks && !(writes % job->fsync_blocks))
		return SYNC_FSYNC;
	if (job->fdatasync_blocks && !(writes % job->fdatasync_blocks))
		return SYNC_FDATASYNC;
	return SYNC_NONE;
}

/*
 * clone_sync() - Sync the clone's file as @kind says.  Return: 0, or
 * the engine's -errno with @c->why set: a failed sync fails the job as
 * a failed operation does, since data the job wrote may not be there.
 */
static int clone_sync(struct run_clone *c, void *h, enum clone_sync kind)
{
	int ret = c->eng->sync(h, kind == SYNC_FDATASYNC);

	if (ret)
		snprintf(c->why, sizeof(c->why), "job '%s': %s: %s",
			 c->job->name, sync_name[kind], strerror(-ret));
	return ret;
}

/*
 * clone_timed_sync() - A sync of the measured phase, timed from *@prev
 * (the end of what came before) into the sync histogram; *@prev moves
 * to its end.  Return: 0 or -errno, as clone_sync().
 */
static int clone_timed_sync(struct run_clone *c, void *h,
			    enum clone_sync kind, uint64_t *prev)
{
	uint64_t now;
	int ret = clone_sync(c, h, kind);

	if (ret)
		return ret;
	now = bench_now_ns();
	run_hist_add(&c->st.sync, now - *prev);
	*prev = now;
	return 0;
}

/*
 * think_due() - Does a clone stall after the @ios-th read or write of
 * its phase?  Every thinktime_blocks= of them, when thinktime= is set.
 */
static inline bool think_due(const struct run_job *job, uint64_t ios)
{
	return job->thinktime_ns && !(ios % job->thinktime_blocks);
}

/*
 * clone_think() - One stall of thinktime=: first thinktime_spin= of it
 * spinning on the clock, the CPU time a program working on the data it
 * just moved would spend, then the rest asleep.  It ends at @end (the
 * end of the phase; UINT64_MAX for none) if that comes first, and on a
 * stop request, looked for between clock reads and between sleeps of
 * at most RUN_THINK_SLICE_NS, so a long thinktime= holds up neither.
 * Return: the clock when it is over.
 */
static uint64_t clone_think(const struct run_job *job, uint64_t end)
{
	uint64_t now = bench_now_ns(), stop, spin_stop;

	if (now >= end)
		return now;
	stop = end - now > job->thinktime_ns ? now + job->thinktime_ns : end;
	spin_stop = stop - now > job->thinktime_spin_ns ?
		    now + job->thinktime_spin_ns : stop;
	while (now < spin_stop && !run_stop_requested())
		now = bench_now_ns();
	while (now < stop && !run_stop_requested()) {
		bench_sleep_ns(stop - now < RUN_THINK_SLICE_NS ? stop - now :
			       RUN_THINK_SLICE_NS);
		now = bench_now_ns();
	}
	return now;
}

/*
 * Step 3: run the workload unmeasured until @end, its syncs and its
 * think time included (fio issues the syncs in the ramp too, and counts
 * them nowhere).
 */
static int clone_ramp(struct run_clone *c, struct run_gen *g, void *h,
		      void *buf, uint64_t end)
{
	enum clone_sync due = SYNC_NONE;
	uint64_t off, writes = 0, ios = 0;
	enum run_dir dir;
	int ret;

	while (!run_stop_requested() && bench_now_ns() < end) {
		if (due) {
			ret = clone_sync(c, h, due);
			if (ret)
				return ret;
			due = SYNC_NONE;
			continue;
		}
		if (!run_gen_next(g, &dir, &off))
			continue;
		ret = clone_io(c, h, buf, dir, off);
		if (ret)
			return ret;
		if (dir == RUN_DIR_WRITE)
			due = sync_after_write(c->job, ++writes);
		if (think_due(c->job, ++ios))
			clone_think(c->job, end);
	}
	return 0;
}

/*
 * clone_end_fsync() - end_fsync=1: one fsync after the measured phase,
 * timed from its last operation and part of its run time (fio syncs
 * inside do_io(), whose time is the job's).  Only a job that writes, and
 * not right after a sync, which left nothing to flush (fio's
 * should_fsync()); after a stop request too, as fio does.
 */
static int clone_end_fsync(struct run_clone *c, void *h, bool last_sync,
			   uint64_t *prev)
{
	if (!c->job->end_fsync || !run_rw_writes(c->job->rw) || last_sync)
		return 0;
	return clone_timed_sync(c, h, SYNC_END, prev);
}

/*
 * Step 4: the measured phase, from where the ramp left @g: without
 * time_based=, size= bytes (a pass's worth of operations, into the next
 * pass where the ramp's ends), as fio counts the bytes done since the
 * ramp against size=.  The counts of writes that fsync= and fdatasync=
 * follow, and of reads and writes that thinktime_blocks= follows, start
 * again here, as fio's do after the ramp.  A stall of thinktime= moves
 * @prev past it: it is in the run time, in no operation's latency.
 */
static int clone_measure(struct run_clone *c, struct run_gen *g, void *h,
			 void *buf)
{
	const struct run_job *job = c->job;
	struct upc_thread_stats snap;
	uint64_t t0, prev, now, off, nr_ops = 0, writes = 0;
	struct run_stats *st = &c->st;
	enum clone_sync due = SYNC_NONE;
	bool last_sync = false;
	enum run_dir dir;
	int ret = 0;

	upc_stats_thread(&snap);
	atomic_store_explicit(&c->measuring, true, memory_order_relaxed);
	t0 = prev = bench_now_ns();
	while (!run_stop_requested()) {
		if (due) {
			ret = clone_timed_sync(c, h, due, &prev);
			if (ret)
				break;
			due = SYNC_NONE;
			last_sync = true;
			if (job->runtime_ns && prev - t0 >= job->runtime_ns)
				break;
			continue;
		}
		if (!run_gen_next(g, &dir, &off)) {
			/* A new pass: shuffling its map is not I/O. */
			now = bench_now_ns();
			t0 += now - prev;
			prev = now;
			continue;
		}
		ret = clone_io(c, h, buf, dir, off);
		if (ret)
			break;
		now = bench_now_ns();
		run_hist_add(&st->hist[dir], now - prev);
		prev = now;
		st->bytes[dir] += job->bs;
		st->ops[dir]++;
		nr_ops++;
		last_sync = false;
		if (dir == RUN_DIR_WRITE)
			due = sync_after_write(job, ++writes);
		atomic_store_explicit(&c->done[dir], st->bytes[dir],
				      memory_order_relaxed);
		if (think_due(job, nr_ops))
			prev = clone_think(job, job->runtime_ns ?
					   t0 + job->runtime_ns : UINT64_MAX);
		if (job->runtime_ns && prev - t0 >= job->runtime_ns)
			break;
		if (!job->time_based && nr_ops == g->nr_blocks)
			break;
	}
	if (!ret)
		ret = clone_end_fsync(c, h, last_sync, &prev);
	stats_set_elapsed(st, prev - t0);
	bench_counts_add_since(&st->counts, &snap, nr_ops);
	return ret;
}

/*
 * clone_buffer() - The clone's I/O buffer, filled with the pattern:
 * page-aligned and a whole number of pages, for every job, as fio
 * aligns its buffers to the page size (iomem_align): a direct=1 kernel
 * engine moves data straight between it and the file, which O_DIRECT
 * wants aligned.  Return: the buffer, or NULL.
 */
static void *clone_buffer(const struct run_job *job)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t align = page > 0 ? (size_t)page : 4096;
	size_t len = (size_t)((job->bs + align - 1) & ~(uint64_t)(align - 1));
	void *buf;

	if (posix_memalign(&buf, align, len))
		return NULL;
	run_fill_pattern(buf, len);
	return buf;
}

/* clone_main() - One clone's thread: steps 1 to 5. */
static void *clone_main(void *arg)
{
	struct run_clone *c = arg;
	void *buf, *h = NULL;
	struct run_gen g;

	/* Step 1: open. */
	buf = clone_buffer(c->job);
	if (!buf)
		c->err = -ENOMEM;
	if (!c->err)
		c->err = c->eng->open(c->ctx, c->clone, &h);
	if (c->err)
		snprintf(c->why, sizeof(c->why), "job '%s': clone %u: %s: %s",
			 c->job->name, c->clone, buf ? "opening its file" :
			 "its I/O buffer", strerror(-c->err));
	/* Once: the measured phase goes on from where the ramp stopped. */
	run_gen_init(&g, c->job, c->thread);
	/* Step 2: every clone waits, even one that failed, or none starts. */
	pthread_barrier_wait(c->barrier);
	if (!c->err && c->job->ramp_ns)
		c->err = clone_ramp(c, &g, h, buf,
				    bench_now_ns() + c->job->ramp_ns);
	if (!c->err)
		c->err = clone_measure(c, &g, h, buf);
	run_gen_free(&g);
	if (c->err)
		run_request_stop();
	if (h)
		c->eng->close(h);
	free(buf);
	return NULL;
}

/**
 * struct run_progress - the live progress line's thread.
 * @out: Its stream.
 * @clones: The clones running.
 * @nr: Number of @clones.
 * @planned: Bytes the group will move (0 when runtime bounds it).
 * @deadline_ns: Run time of the group (ramp + runtime), or 0.
 * @start_ns: When the group started.
 * @done: Set by the main thread to end the line.
 * @tid: The thread.
 */
struct run_progress {
	FILE *out;
	struct run_clone *clones;
	unsigned int nr;
	uint64_t planned;
	uint64_t deadline_ns;
	uint64_t start_ns;
	atomic_bool done;
	pthread_t tid;
};

/* fmt_rate() - Bytes per second with a binary unit, e.g. "4.10GiB/s". */
static void fmt_rate(char *buf, size_t len, double bps)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned int u = 0;

	while (bps >= 1024 && u < 4) {
		bps /= 1024;
		u++;
	}
	snprintf(buf, len, "%.*f%s/s", u ? 2 : 0, bps, units[u]);
}

/* progress_sum() - Bytes moved by all clones so far, per direction. */
static void progress_sum(struct run_progress *p, uint64_t *sum)
{
	unsigned int i;

	sum[0] = sum[1] = 0;
	for (i = 0; i < p->nr; i++) {
		sum[0] += atomic_load_explicit(&p->clones[i].done[0],
					       memory_order_relaxed);
		sum[1] += atomic_load_explicit(&p->clones[i].done[1],
					       memory_order_relaxed);
	}
}

/* progress_line() - Print one line: elapsed, ETA, bandwidth since last. */
static void progress_line(struct run_progress *p, uint64_t now,
			  uint64_t *last, uint64_t last_ns)
{
	uint64_t sum[2], el = (now - p->start_ns) / RUN_NSEC_PER_SEC;
	double dt = (double)(now - last_ns) / 1e9, eta = -1, total;
	char r[32], w[32];

	progress_sum(p, sum);
	fmt_rate(r, sizeof(r), (double)(sum[0] - last[0]) / dt);
	fmt_rate(w, sizeof(w), (double)(sum[1] - last[1]) / dt);
	total = (double)(sum[0] + sum[1]);
	if (p->deadline_ns)
		eta = (double)(p->start_ns + p->deadline_ns - now) / 1e9;
	else if (p->planned && total > 0)
		eta = (double)(now - p->start_ns) / 1e9 *
		      ((double)p->planned - total) / total;
	if (eta < 0)
		eta = 0;
	fprintf(p->out, "\rJobs: %u: [elapsed %02llum:%02llus][eta "
		"%02um:%02us][r=%s,w=%s]   ", p->nr,
		(unsigned long long)(el / 60), (unsigned long long)(el % 60),
		(unsigned int)(eta / 60), (unsigned int)eta % 60, r, w);
	fflush(p->out);
	last[0] = sum[0];
	last[1] = sum[1];
}

/* progress_main() - Print the line once a second until done. */
static void *progress_main(void *arg)
{
	struct run_progress *p = arg;
	uint64_t last[2] = { 0, 0 }, last_ns = p->start_ns;
	bool printed = false;

	while (!atomic_load(&p->done)) {
		uint64_t now;

		bench_sleep_ns(RUN_PROGRESS_POLL_NS);
		now = bench_now_ns();
		if (now - last_ns < RUN_PROGRESS_NS)
			continue;
		progress_line(p, now, last, last_ns);
		last_ns = now;
		printed = true;
	}
	if (printed)
		fprintf(p->out, "\r%79s\r", "");
	return NULL;
}

/* progress_start() - Start the line's thread for a group, if wanted. */
static void progress_start(struct run_progress *p, FILE *out,
			   struct run_clone *clones, unsigned int nr)
{
	unsigned int i;

	memset(p, 0, sizeof(*p));
	p->out = out;
	if (!out)
		return;
	p->clones = clones;
	p->nr = nr;
	p->start_ns = bench_now_ns();
	for (i = 0; i < nr; i++) {
		const struct run_job *job = clones[i].job;
		uint64_t t = job->runtime_ns ? job->ramp_ns + job->runtime_ns :
			     0;

		if (t > p->deadline_ns)
			p->deadline_ns = t;
		p->planned += job->size / job->bs * job->bs;
	}
	if (pthread_create(&p->tid, NULL, progress_main, p))
		p->out = NULL;
}

/* progress_stop() - End the line. */
static void progress_stop(struct run_progress *p)
{
	if (!p->out)
		return;
	atomic_store(&p->done, true);
	pthread_join(p->tid, NULL);
}

/*
 * check_engines() - Every job's engine exists, is implemented, and can
 * sync if the job asks it to.
 */
static int check_engines(const struct run_spec *spec, char *err,
			 size_t errlen)
{
	size_t i;

	for (i = 0; i < spec->nr_jobs; i++) {
		const struct run_engine *e =
			run_engine_find(spec->jobs[i].engine);

		if (!e) {
			snprintf(err, errlen, "job '%s': unknown engine '%s'",
				 spec->jobs[i].name, spec->jobs[i].engine);
			return -EINVAL;
		}
		if (e->needs) {
			snprintf(err, errlen, "engine %s: not yet implemented: "
				 "needs %s", e->name, e->needs);
			return -ENOSYS;
		}
		/* run_job_resolve() refused these; a new engine might not. */
		if (run_job_syncs(&spec->jobs[i]) && !e->sync) {
			snprintf(err, errlen, "job '%s': ioengine=%s cannot "
				 "sync a file (fsync=, fdatasync=, end_fsync=)",
				 spec->jobs[i].name, e->name);
			return -EINVAL;
		}
	}
	return 0;
}

/* out_add() - Append an empty result. */
static struct run_result *out_add(struct run_outcome *out,
				  const struct run_job *job,
				  unsigned int group)
{
	struct run_result *r;

	out->results = realloc(out->results,
			       (out->nr_results + 1) * sizeof(*out->results));
	if (!out->results)
		bench_die("out of memory (results)");
	r = &out->results[out->nr_results++];
	memset(r, 0, sizeof(*r));
	r->job = job;
	r->group = group;
	stats_init(&r->st);
	return r;
}

/**
 * struct run_group - the jobs of one stonewall group being run.
 * @jobs: Its first job.
 * @nr_jobs: How many jobs.
 * @ctx: Per job, the engine's context (NULL for a skipped job).
 * @skip: Per job, why it is skipped (malloc()ed), or NULL.
 * @clones: Every clone of every job that runs.
 * @nr_clones: Number of @clones.
 * @first_thread: The run's number of its first job's first clone.
 */
struct run_group {
	const struct run_job *jobs;
	size_t nr_jobs;
	void **ctx;
	char **skip;
	struct run_clone *clones;
	unsigned int nr_clones;
	unsigned int first_thread;
};

/* group_setup() - Lay out the files of every job of @grp. */
static int group_setup(struct run_group *grp, char *err, size_t errlen)
{
	size_t j;
	int ret;

	for (j = 0; j < grp->nr_jobs; j++) {
		const struct run_job *job = &grp->jobs[j];
		const struct run_engine *e = run_engine_find(job->engine);
		char why[300];

		if (e->skip_reason && e->skip_reason(job, why, sizeof(why))) {
			grp->skip[j] = bench_xstrdup(why);
			continue;
		}
		ret = e->setup(job, &grp->ctx[j], err, errlen);
		if (ret)
			return ret;
		grp->nr_clones += job->numjobs;
	}
	return 0;
}

/*
 * group_run() - Steps 1-5 for every clone of @grp, side by side.
 * Return: 0, or the first failed clone's -errno, with its message in
 * @err if it has one.
 */
static int group_run(struct run_group *grp, unsigned int gid, FILE *progress,
		     char *err, size_t errlen)
{
	unsigned int i, k = 0, thread = grp->first_thread;
	pthread_barrier_t barrier;
	struct run_progress prog;
	size_t j;
	int ret = 0;

	if (!grp->nr_clones)
		return 0;
	grp->clones = bench_xcalloc(grp->nr_clones, sizeof(*grp->clones));
	pthread_barrier_init(&barrier, NULL, grp->nr_clones);
	/* A skipped job's clones keep their numbers: seeds do not shift. */
	for (j = 0; j < grp->nr_jobs; thread += grp->jobs[j++].numjobs) {
		if (grp->skip[j])
			continue;
		for (i = 0; i < grp->jobs[j].numjobs; i++, k++) {
			struct run_clone *c = &grp->clones[k];

			c->job = &grp->jobs[j];
			c->eng = run_engine_find(c->job->engine);
			c->ctx = grp->ctx[j];
			c->clone = i;
			c->thread = thread + i;
			c->group = gid;
			c->barrier = &barrier;
			stats_init(&c->st);
		}
	}
	progress_start(&prog, progress, grp->clones, grp->nr_clones);
	for (k = 0; k < grp->nr_clones; k++)
		if (pthread_create(&grp->clones[k].tid, NULL, clone_main,
				   &grp->clones[k]))
			bench_die("cannot start a thread for job '%s'",
				  grp->clones[k].job->name);
	for (k = 0; k < grp->nr_clones; k++) {
		struct run_clone *c = &grp->clones[k];

		pthread_join(c->tid, NULL);
		if (!c->err || ret)
			continue;
		ret = c->err;
		if (c->why[0])
			snprintf(err, errlen, "%s", c->why);
	}
	progress_stop(&prog);
	pthread_barrier_destroy(&barrier);
	return ret;
}

/*
 * group_results() - Turn @grp's clones into results and a group line.
 * As fio's report counts them: a clone of a job with group_reporting
 * joins the entry before it in the group, any other clone starts one.
 */
static void group_results(struct run_group *grp, unsigned int gid,
			  struct run_outcome *out)
{
	struct run_stats *sum = &out->groups[gid];
	size_t j, merged = SIZE_MAX;
	unsigned int k = 0, i;

	stats_init(sum);
	for (j = 0; j < grp->nr_jobs; j++) {
		const struct run_job *job = &grp->jobs[j];
		const struct run_engine *e = run_engine_find(job->engine);

		if (grp->skip[j]) {
			out_add(out, job, gid)->skipped = grp->skip[j];
			grp->skip[j] = NULL;
			merged = SIZE_MAX;
			continue;
		}
		for (i = 0; i < job->numjobs; i++, k++) {
			struct run_result *r;

			/* out_add() moves the array: keep an index. */
			if (job->group_reporting && merged != SIZE_MAX) {
				r = &out->results[merged];
			} else {
				r = out_add(out, job, gid);
				r->upcache = true;
				merged = out->nr_results - 1;
			}
			/* Counters mean something only if every engine is
			 * upcache's. */
			r->upcache &= e->upcache;
			r->clones++;
			stats_merge(&r->st, &grp->clones[k].st);
			stats_merge(sum, &grp->clones[k].st);
		}
	}
}

/* group_free() - Tear down @grp's engines and free its state. */
static void group_free(struct run_group *grp)
{
	size_t j;

	for (j = 0; j < grp->nr_jobs; j++) {
		if (grp->ctx[j])
			run_engine_find(grp->jobs[j].engine)->teardown(
				grp->ctx[j]);
		free(grp->skip[j]);
	}
	free(grp->ctx);
	free(grp->skip);
	free(grp->clones);
}

/* nr_groups() - How many stonewall groups @spec's jobs make. */
static unsigned int nr_groups(const struct run_spec *spec)
{
	unsigned int n = spec->nr_jobs ? 1 : 0;
	size_t i;

	for (i = 1; i < spec->nr_jobs; i++)
		n += spec->jobs[i].stonewall;
	return n;
}

/**
 * run_execute() - Run every job of @spec.
 * @spec: The jobs.
 * @out: The results.
 * @progress: Stream for the progress line, or NULL.
 * @err: Message buffer.
 * @errlen: Its size.
 *
 * Return: 0, or -errno with a message.
 */
int run_execute(const struct run_spec *spec, struct run_outcome *out,
		FILE *progress, char *err, size_t errlen)
{
	unsigned int gid = 0, thread = 0;
	size_t first = 0, end, j;
	int ret;

	memset(out, 0, sizeof(*out));
	if (errlen)
		err[0] = '\0';
	ret = check_engines(spec, err, errlen);
	if (ret)
		return ret;
	out->nr_groups = nr_groups(spec);
	out->groups = bench_xcalloc(out->nr_groups ? out->nr_groups : 1,
				    sizeof(*out->groups));
	for (; first < spec->nr_jobs && !ret; first = end, gid++) {
		struct run_group grp = {
			.jobs = &spec->jobs[first],
			.first_thread = thread,
		};

		for (end = first + 1; end < spec->nr_jobs &&
		     !spec->jobs[end].stonewall; end++)
			;
		if (run_stop_requested()) {
			out->interrupted = true;
			break;
		}
		grp.nr_jobs = end - first;
		for (j = first; j < end; j++)
			thread += spec->jobs[j].numjobs;
		grp.ctx = bench_xcalloc(grp.nr_jobs, sizeof(*grp.ctx));
		grp.skip = bench_xcalloc(grp.nr_jobs, sizeof(*grp.skip));
		ret = group_setup(&grp, err, errlen);
		if (!ret)
			ret = group_run(&grp, gid, progress, err, errlen);
		if (ret && !err[0])
			snprintf(err, errlen, "group %u: an operation failed: "
				 "%s", gid, strerror(-ret));
		if (!ret) {
			group_results(&grp, gid, out);
			out->interrupted |= run_stop_requested();
		}
		group_free(&grp);
	}
	out->nr_groups = gid;
	return ret;
}

/**
 * run_outcome_free() - Free the results.
 * @out: The results.
 */
void run_outcome_free(struct run_outcome *out)
{
	size_t i;

	for (i = 0; i < out->nr_results; i++)
		free(out->results[i].skipped);
	free(out->results);
	free(out->groups);
	memset(out, 0, sizeof(*out));
}
