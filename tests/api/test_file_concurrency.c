// SPDX-License-Identifier: MIT
/*
 * tests/api/test_file_concurrency.c - threads on one file opened with
 * upc_file_open() (a regular file in a temporary directory), while
 * reclaim, fsync and truncation write back and drop its pages (also
 * built and run under ThreadSanitizer).
 *
 * This test owns the concurrency contract of fd-backed files: what a
 * reader may see while writers, reclaim's writeback, upc_fsync() and
 * upc_truncate() run beside it, and what the backing file holds once
 * they are done.  Single-threaded semantics belong elsewhere.
 *
 * The file is made of 4 KiB blocks.  Each writer owns a contiguous range
 * of them and only ever writes whole blocks, in runs of 1..FC_MAX_RUN,
 * each block stamped with (block, generation) in every 8-byte word (the
 * word's index mixed in, so that a word copied to the wrong place does
 * not decode either).  Once upc_write() has returned, the writer
 * publishes each block's generation with a release store to gen[].
 * From the bytes alone a reader can then tell which write it saw, and
 * whether it saw all of it:
 *
 *  - reclaim: a 4 MiB cache over a 16 MiB file, two writers, two
 *    readers.  Nearly every write and read miss allocates past the limit,
 *    so reclaim writes dirty blocks back (pwrite) and evicts them, on
 *    whichever thread allocates, and reads miss and pread them back.  A
 *    block read must be one whole write of its own block (never torn,
 *    never another block's), of a generation at least what gen[] said
 *    before the read (a write evicted before it reached the file would
 *    come back older, or as zeros) and at most one past what it said
 *    after (a generation nobody wrote is garbage).  Zeros only while
 *    gen[] is 0.  At the end upc_fsync() returns 0 and the backing file,
 *    read with pread(), holds exactly each block's last generation.
 *  - fsync: a 4 MiB cache over an 8 MiB file, one thread calling
 *    upc_fsync() in a loop while two writers write, and reclaim writes
 *    back beside it.  Each upc_fsync() must return 0, and the file read
 *    with pread() right after it must hold, in every word of every
 *    block, a generation at least the one gen[] published before the
 *    call: what was written before fsync began is in the file when it
 *    returns.  (Words, not blocks: the kernel does not make pread()
 *    atomic against a pwrite() of the same block that reclaim may be
 *    doing meanwhile, but every such write carries a newer generation.)
 *    At the end the file holds each block's last generation, as above.
 *    Again with two such threads on the one handle, whose flushes run
 *    side by side.
 *  - truncate: a 2 MiB cache over an 8 MiB file, two writers and a
 *    reader while a truncator shrinks the file to a random 8-byte
 *    multiple (half the time a block multiple) and grows it again, and
 *    reclaim writes back beside them.  A block read is then zeros, one
 *    whole write, or a prefix of one followed by zeros (cut mid-block);
 *    never another block's bytes or a generation nobody wrote (freed
 *    memory, or a page written back after the cut), and for one reader
 *    never older than the generation it saw before in the same block
 *    (truncation only makes zeros; older data coming back was lost and
 *    resurrected).  At the end, after upc_fsync(), fstat() gives the
 *    size upc_size() gives, the cache passes upc_check_mapping(), and
 *    reading the whole file through the cache and with pread() gives
 *    the same bytes.
 *  - seeks: two threads calling upc_seek_data() on one handle, which
 *    moves the descriptor's offset and puts it back: the offset the
 *    test set is still there after every round.
 *
 * Threads count failures in atomic counters and print the first few;
 * only the main thread asserts, once every thread is joined.  Every loop
 * is bounded by its operation count, never by time.
 *
 * UPC_STRESS_OPS scales the writes per writer (default 20000, 5000 under
 * ThreadSanitizer: half that in the reclaim scenario, twice that
 * in the others); UPC_SEED replays a run.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api_helpers.h"
#include "file_helpers.h"
#include "io/fd.h"
#include "rand.h"

#define FC_BLOCK	API_PAGE
#define FC_WORDS	(FC_BLOCK / 8)
#define FC_MAX_RUN	8		/* blocks per write or read */
#define FC_MIX		0x9e3779b97f4a7c15ull
#define FC_MAX_THREADS	5
/* The readers, fsyncer and truncator go on at least this long. */
#define FC_MIN_LOOPS	8
/*
 * Reads per reader, at most, per write of one writer: readers that read
 * for as long as writers run would, under a lock that let them hold
 * writers off, make the run as long as they pleased.
 */
#define FC_READS_PER_WRITE 4
/* Bytes per read of the final check. */
#define FC_FINAL_CHUNK	(256 * 1024L)
/* Failures printed per counter: enough to see a pattern. */
#define FC_REPORTS	4

#ifdef UPC_SANITIZE_THREAD
#define FC_DEFAULT_OPS	5000
#else
#define FC_DEFAULT_OPS	20000
#endif

/*
 * struct fc_config - one scenario.
 * @limit: The cache's memory limit.
 * @blocks: The file's size in blocks (each writer owns 1/@writers).
 * @writers: Writer threads.
 * @readers: Reader threads.
 * @fsyncers: Threads calling upc_fsync() in a loop, on the one handle.
 * @truncator: A thread shrinks and grows the file in a loop.
 * @reclaims: The writers alone write more than the cache holds, so
 *	reclaim must evict and, unless a flusher did it first, write back
 *	(truncation frees too much to be sure of it).
 * @ops_mul: Writes per writer, in units of UPC_STRESS_OPS / 4: the
 *	reclaim scenario's readers miss nearly every time, and take
 *	several times as long per write as the others.
 * @direct: The cache is on an O_DIRECT descriptor.
 * @background: The file has background writeback
 *	(UPC_FILE_WRITEBACK_BACKGROUND): flusher passes write back beside
 *	everything else, and must have run by the end if @reclaims (the
 *	writers keep the cache tight; truncation frees it, and a pass
 *	starts only in a cache with little room).
 */
struct fc_config {
	size_t limit;
	int64_t blocks;
	unsigned int writers;
	unsigned int readers;
	unsigned int fsyncers;
	bool truncator;
	bool reclaims;
	unsigned int ops_mul;
	bool direct;
	bool background;
};

struct fc_shared {
	const struct fc_config *cfg;
	struct upc_file *file;
	int fd;
	unsigned long ops;
	uint64_t seed;
	uint32_t *gen;			/* atomic: per block, last written */
	int writers_done;		/* atomic */
	/* All atomic: failures, by kind. */
	unsigned long errors;		/* calls that failed */
	unsigned long torn;		/* blocks neither zeros nor one write */
	unsigned long stale;		/* older than a write that returned */
	unsigned long future;		/* a generation nobody wrote */
	unsigned long synced;		/* file older than gen[] before fsync */
	/* Atomic, for the log: what the side threads did. */
	unsigned long syncs;
	unsigned long truncs;
	unsigned long reads;
};

struct fc_thread {
	pthread_t tid;
	struct fc_shared *sh;
	unsigned int id;
};

/* A temporary directory holding the backing file, and the cache on it. */
struct fc_env {
	char dir[PATH_MAX - 8];		/* room for "/data" in @path */
	char path[PATH_MAX];
	int fd;
	int cfd;	/* the cache's: @fd, or the file with O_DIRECT */
	struct upc_cache *cache;
	struct upc_file *file;
};

/* ---- the stamp ----------------------------------------------------------- */

/* Word @i of block @block holding generation @gen (never 0 for word 0). */
static uint64_t fc_word(int64_t block, uint32_t gen, size_t i)
{
	return ((uint64_t)gen << 32 | (uint32_t)block) ^ ((uint64_t)i * FC_MIX);
}

static void fc_fill(uint64_t *w, int64_t block, uint32_t gen)
{
	for (size_t i = 0; i < FC_WORDS; i++)
		w[i] = fc_word(block, gen, i);
}

enum fc_verdict {
	FC_ZERO,	/* all zeros */
	FC_DATA,	/* one write, whole */
	FC_PARTIAL,	/* a prefix of one write, then zeros */
	FC_BAD,		/* anything else */
};

/*
 * What @nwords words read as block @block are; the generation of the
 * write they show goes to *@gen (0 for zeros).  @nwords is less than a
 * block only where the read stopped at the end of the file.
 */
static enum fc_verdict fc_classify(const uint64_t *w, size_t nwords,
				   int64_t block, uint32_t *gen)
{
	uint32_t g = (uint32_t)(w[0] >> 32);
	size_t n = 0, i;

	/* Generation 0 is never written: block 0's zeros would match it. */
	if (g)
		while (n < nwords && w[n] == fc_word(block, g, n))
			n++;
	for (i = n; i < nwords; i++)
		if (w[i])
			return FC_BAD;
	*gen = n ? g : 0;
	if (!n)
		return FC_ZERO;
	return n == nwords ? FC_DATA : FC_PARTIAL;
}

/* Count a failure of kind @counter; print the first few. */
static void fc_fail(unsigned long *counter, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fc_fail(unsigned long *counter, const char *fmt, ...)
{
	va_list ap;

	if (__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED) >= FC_REPORTS)
		return;
	va_start(ap, fmt);
	fputs("# ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* Say how block @block's @nwords words differ from generation @g's. */
static void fc_describe(struct fc_shared *sh, const char *who,
			const uint64_t *w, size_t nwords, int64_t block)
{
	uint32_t g = (uint32_t)(w[0] >> 32);
	size_t i;

	for (i = 0; i < nwords && w[i] == fc_word(block, g, i); i++)
		;
	fc_fail(&sh->torn, "%s: block %" PRId64 " torn: word 0 %#" PRIx64
		" (generation %u), word %zu of %zu is %#" PRIx64
		" instead of %#" PRIx64, who, block, w[0], g, i, nwords,
		i < nwords ? w[i] : 0, fc_word(block, g, i));
}

static uint32_t fc_gen(struct fc_shared *sh, int64_t block)
{
	return __atomic_load_n(&sh->gen[block], __ATOMIC_ACQUIRE);
}

static bool fc_writers_running(struct fc_shared *sh)
{
	return __atomic_load_n(&sh->writers_done, __ATOMIC_ACQUIRE) <
	       (int)sh->cfg->writers;
}

/* ---- the threads --------------------------------------------------------- */

/*
 * Write runs of whole blocks of this writer's range, each block one
 * generation newer, and publish each generation once the write returned.
 */
static void *fc_writer(void *arg)
{
	struct fc_thread *t = arg;
	struct fc_shared *sh = t->sh;
	int64_t per = sh->cfg->blocks / sh->cfg->writers;
	int64_t own = (int64_t)t->id * per;
	uint64_t *buf = malloc(FC_MAX_RUN * FC_BLOCK);
	uint32_t gens[FC_MAX_RUN];
	struct upc_rand rnd;

	upc_rand_seed(&rnd, sh->seed + t->id);
	for (unsigned long i = 0; buf && i < sh->ops; i++) {
		int64_t n = 1 + (int64_t)upc_rand_below(&rnd, FC_MAX_RUN);
		int64_t b = own + (int64_t)upc_rand_below(&rnd, (uint64_t)
							  (per - n + 1));
		ssize_t ret;

		for (int64_t k = 0; k < n; k++) {
			gens[k] = fc_gen(sh, b + k) + 1;
			fc_fill(buf + k * FC_WORDS, b + k, gens[k]);
		}
		ret = upc_write(sh->file, buf, (size_t)(n * FC_BLOCK),
				b * FC_BLOCK);
		if (ret != n * FC_BLOCK) {
			fc_fail(&sh->errors, "write of %" PRId64 " blocks at %"
				PRId64 " returned %zd", n, b, ret);
			continue;
		}
		for (int64_t k = 0; k < n; k++)
			__atomic_store_n(&sh->gen[b + k], gens[k],
					 __ATOMIC_RELEASE);
		/*
		 * The file's lock prefers writers: with the other writer
		 * queued behind this one, a reader gets in only while
		 * neither waits.  Step aside now and then for them.
		 */
		if (i % 4 == 3)
			sched_yield();
	}
	if (!buf)
		fc_fail(&sh->errors, "writer %u: no memory", t->id);
	free(buf);
	__atomic_fetch_add(&sh->writers_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Check block @b, read as @nwords words at @w, against the bounds: @lo,
 * gen[] before the read, and gen[] now.  @seen: this reader's newest
 * generation of the block so far (truncate scenario).
 */
static void fc_check_read(struct fc_shared *sh, const uint64_t *w,
			  size_t nwords, int64_t b, uint32_t lo,
			  uint32_t *seen)
{
	bool cut = sh->cfg->truncator;
	enum fc_verdict v;
	uint32_t g, hi;

	v = fc_classify(w, nwords, b, &g);
	hi = fc_gen(sh, b);
	if (v == FC_BAD || (v == FC_PARTIAL && !cut)) {
		fc_describe(sh, "read", w, nwords, b);
		return;
	}
	/* gen[] lags a write by at most its own, which may be the one seen. */
	if (g > hi + 1) {
		fc_fail(&sh->future, "read: block %" PRId64 " has generation "
			"%u, only %u written", b, g, hi);
		return;
	}
	if (!cut && g < lo)
		fc_fail(&sh->stale, "read: block %" PRId64 " has generation "
			"%u (0: zeros) after %u was written", b, g, lo);
	/* Truncation only makes zeros: data never goes back in time. */
	if (cut && v != FC_ZERO && g < *seen)
		fc_fail(&sh->stale, "read: block %" PRId64 " has generation "
			"%u after this reader saw %u", b, g, *seen);
	if (g > *seen)
		*seen = g;
}

/* Read random aligned runs of blocks and check each block. */
static void *fc_reader(void *arg)
{
	struct fc_thread *t = arg;
	struct fc_shared *sh = t->sh;
	int64_t blocks = sh->cfg->blocks;
	uint64_t *buf = malloc(FC_MAX_RUN * FC_BLOCK);
	uint32_t *seen = calloc((size_t)blocks, sizeof(*seen));
	uint32_t lo[FC_MAX_RUN];
	struct upc_rand rnd;
	unsigned long i;

	upc_rand_seed(&rnd, sh->seed + 50 + t->id);
	for (i = 0; buf && seen && ((fc_writers_running(sh) &&
				     i < FC_READS_PER_WRITE * sh->ops) ||
				    i < FC_MIN_LOOPS); i++) {
		int64_t n = 1 + (int64_t)upc_rand_below(&rnd, FC_MAX_RUN);
		int64_t b = (int64_t)upc_rand_below(&rnd, (uint64_t)
						    (blocks - n + 1));
		ssize_t got;

		for (int64_t k = 0; k < n; k++)
			lo[k] = fc_gen(sh, b + k);
		got = upc_read(sh->file, buf, (size_t)(n * FC_BLOCK),
			       b * FC_BLOCK);
		/* Short only at the end, which only truncation moves. */
		if (got < 0 || got % 8 ||
		    (!sh->cfg->truncator && got != n * FC_BLOCK)) {
			fc_fail(&sh->errors, "read of %" PRId64 " blocks at %"
				PRId64 " returned %zd", n, b, got);
			continue;
		}
		for (int64_t k = 0; k * FC_BLOCK < got; k++) {
			int64_t left = got - k * FC_BLOCK;
			size_t nwords = left < FC_BLOCK ? (size_t)left / 8 :
				       FC_WORDS;

			fc_check_read(sh, buf + k * FC_WORDS, nwords, b + k,
				      lo[k], &seen[b + k]);
		}
	}
	if (!buf || !seen)
		fc_fail(&sh->errors, "reader %u: no memory", t->id);
	__atomic_fetch_add(&sh->reads, i, __ATOMIC_RELAXED);
	free(seen);
	free(buf);
	return NULL;
}

/*
 * Check the backing file, read right after an upc_fsync() that began
 * after gen[] said @snap: every word of every block is its block's, of
 * a generation at least @snap's (zeros only where that is 0).  Word by
 * word: reclaim may be pwrite()ing a block while we pread() it, which
 * the kernel does not make atomic, but what it writes is newer still.
 */
static void fc_check_synced(struct fc_shared *sh, const uint64_t *w,
			    const uint32_t *snap)
{
	for (int64_t b = 0; b < sh->cfg->blocks; b++) {
		const uint64_t *bw = w + b * FC_WORDS;

		for (size_t i = 0; i < FC_WORDS; i++) {
			uint64_t s = bw[i] ^ ((uint64_t)i * FC_MIX);
			uint32_t g = (uint32_t)(s >> 32);

			if (!bw[i] && !snap[b])
				continue;
			if ((uint32_t)s == (uint32_t)b && g && g >= snap[b])
				continue;
			fc_fail(&sh->synced, "after fsync: block %" PRId64
				" word %zu is %#" PRIx64 " (generation %u), "
				"but %u was written before fsync began", b, i,
				bw[i], (uint32_t)s == (uint32_t)b ? g : 0,
				snap[b]);
			break;
		}
	}
}

/* upc_fsync() in a loop; after each, the file has what came before it. */
static void *fc_fsyncer(void *arg)
{
	struct fc_thread *t = arg;
	struct fc_shared *sh = t->sh;
	int64_t blocks = sh->cfg->blocks;
	size_t len = (size_t)(blocks * FC_BLOCK);
	uint32_t *snap = malloc((size_t)blocks * sizeof(*snap));
	uint64_t *buf = malloc(len);
	unsigned long i;

	for (i = 0; snap && buf && (fc_writers_running(sh) ||
				    i < FC_MIN_LOOPS); i++) {
		ssize_t got;
		int err;

		for (int64_t b = 0; b < blocks; b++)
			snap[b] = fc_gen(sh, b);
		err = upc_fsync(sh->file);
		if (err) {
			fc_fail(&sh->errors, "fsync returned %d", err);
			continue;
		}
		got = fd_read_full(sh->fd, buf, len, 0);
		if (got != (ssize_t)len) {
			fc_fail(&sh->errors, "pread returned %zd", got);
			continue;
		}
		fc_check_synced(sh, buf, snap);
	}
	if (!snap || !buf)
		fc_fail(&sh->errors, "fsyncer: no memory");
	__atomic_fetch_add(&sh->syncs, i, __ATOMIC_RELAXED);
	free(buf);
	free(snap);
	return NULL;
}

/*
 * Shrink the file to a random 8-byte multiple (half the time a whole
 * number of blocks, half the time mid-block, so the cut page's tail is
 * zeroed), let the others run, and grow it again, to its full size
 * half the time, else to somewhere between.
 */
static void *fc_truncator(void *arg)
{
	struct fc_thread *t = arg;
	struct fc_shared *sh = t->sh;
	int64_t full = sh->cfg->blocks * FC_BLOCK;
	struct upc_rand rnd;
	unsigned long i;

	upc_rand_seed(&rnd, sh->seed + 100);
	for (i = 0; fc_writers_running(sh) || i < FC_MIN_LOOPS; i++) {
		int64_t size = (int64_t)upc_rand_below(&rnd, (uint64_t)full / 8)
			       * 8;
		int64_t grow = full;
		int err;

		if (upc_rand_chance(&rnd, 1, 2))
			size &= ~(int64_t)(FC_BLOCK - 1);
		err = upc_truncate(sh->file, size);
		if (err)
			fc_fail(&sh->errors, "truncate to %" PRId64
				" returned %d", size, err);
		sched_yield();
		if (upc_rand_chance(&rnd, 1, 2))
			grow = size + (int64_t)upc_rand_below(&rnd, (uint64_t)
						(full - size) / 8 + 1) * 8;
		err = upc_truncate(sh->file, grow);
		if (err)
			fc_fail(&sh->errors, "truncate to %" PRId64
				" returned %d", grow, err);
	}
	__atomic_fetch_add(&sh->truncs, i, __ATOMIC_RELAXED);
	return NULL;
}

/* ---- set-up and checks (main thread) ------------------------------------- */

/*
 * The backing file, sized @size, and a cache of @limit bytes on it; with
 * @direct, on a descriptor of its own with O_DIRECT, writing back
 * through io_uring (the test reads the file through @fd either way);
 * with @flags too (upc_file_open()'s).
 * Return: false if the file system refuses O_DIRECT.
 */
static bool fc_open(struct fc_env *env, size_t limit, int64_t size,
		    bool direct, unsigned int flags)
{
	struct upc_cache_config cfg = { .memory_limit = limit };
	const char *tmp = getenv("TMPDIR");

	if (!tmp || !*tmp)
		tmp = "/tmp";
	assert_true(snprintf(env->dir, sizeof(env->dir),
			     "%s/upc-file-cc-XXXXXX", tmp) <
		    (int)sizeof(env->dir));
	assert_non_null(mkdtemp(env->dir));
	snprintf(env->path, sizeof(env->path), "%s/data", env->dir);
	env->fd = open(env->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(env->fd >= 0);
	assert_int_equal(ftruncate(env->fd, (off_t)size), 0);
	env->cfd = direct ? open(env->path, O_RDWR | O_DIRECT | O_CLOEXEC) :
			    env->fd;
	if (env->cfd < 0)
		return false;
	assert_int_equal(upc_cache_create(&cfg, &env->cache), 0);
	assert_int_equal(upc_file_open(env->cache, env->cfd,
				       (direct ? UPC_FILE_IO_URING : 0) | flags,
				       &env->file), 0);
	return true;
}

/*
 * fc_make_direct() - An empty backing file in a new temporary directory
 * (@env->fd), and a second descriptor on it opened @mode with O_DIRECT
 * (@env->cfd); the test is skipped where the file system refuses
 * O_DIRECT.
 */
static void fc_make_direct(struct fc_env *env, int mode)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(env->dir, sizeof(env->dir), "%s/upc-file-cc-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(env->dir));
	snprintf(env->path, sizeof(env->path), "%s/data", env->dir);
	env->fd = open(env->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(env->fd >= 0);
	env->cfd = open(env->path, mode | O_DIRECT | O_CLOEXEC);
	if (env->cfd < 0) {
		print_message("O_DIRECT refused by $TMPDIR's file system: "
			      "skipped\n");
		skip();
	}
}

/*
 * cmocka teardown: remove the temporary directory even when the test
 * failed (the cache is then left as it was: threads may have been
 * stopped anywhere).
 */
static int fc_teardown(void **state)
{
	struct fc_env *env = *state;

	if (env->cfd >= 0 && env->cfd != env->fd)
		close(env->cfd);
	if (env->fd >= 0)
		close(env->fd);
	if (env->path[0])
		unlink(env->path);
	if (env->dir[0])
		rmdir(env->dir);
	memset(env, 0, sizeof(*env));
	env->fd = -1;
	env->cfd = -1;
	return 0;
}

static int fc_setup(void **state)
{
	static struct fc_env env;

	memset(&env, 0, sizeof(env));
	env.fd = -1;
	env.cfd = -1;
	*state = &env;
	return 0;
}

/* Close the file and the cache: nothing left in memory. */
static void fc_close(struct fc_env *env)
{
	struct upc_cache_stats st;

	assert_file_ok(env->file);
	assert_int_equal(upc_close(env->file), 0);
	env->file = NULL;
	assert_int_equal(upc_cache_stats(env->cache, &st), 0);
	assert_int_equal(st.memory_used, 0);
	assert_int_equal(st.pages_cached, 0);
	assert_int_equal(st.files, 0);
	assert_int_equal(upc_cache_destroy(env->cache), 0);
	env->cache = NULL;
}

/*
 * After the threads and an upc_fsync(): the file's size is the cache's,
 * the file and the cache hold the same bytes, and every block is what
 * the writers left: exactly its last generation (zeros if never
 * written) with @exact, else zeros, a write, or a write cut short, of
 * no generation newer than the last.
 */
static void fc_check_final(struct fc_shared *sh, bool exact)
{
	int64_t size = upc_size(sh->file);
	uint64_t *fbuf, *cbuf;
	struct stat st;

	assert_int_equal(fstat(sh->fd, &st), 0);
	assert_int_equal(st.st_size, size);
	assert_true(size >= 0 && size <= sh->cfg->blocks * FC_BLOCK);
	assert_true(size % 8 == 0);
	fbuf = calloc(1, (size_t)size + 1);
	cbuf = calloc(1, (size_t)size + 1);
	assert_non_null(fbuf);
	assert_non_null(cbuf);
	assert_int_equal(fd_read_full(sh->fd, fbuf, (size_t)size, 0), size);
	/*
	 * In pieces well under the cache, as the readers read: one read
	 * larger than the whole cache would test readahead, not this.
	 */
	for (int64_t pos = 0; pos < size; pos += FC_FINAL_CHUNK) {
		int64_t len = size - pos < FC_FINAL_CHUNK ? size - pos :
			      FC_FINAL_CHUNK;

		assert_int_equal(upc_read(sh->file, (char *)cbuf + pos,
					  (size_t)len, pos), len);
	}
	if (memcmp(fbuf, cbuf, (size_t)size)) {
		int64_t w = 0;

		while (fbuf[w] == cbuf[w])
			w++;
		fail_msg("byte %" PRId64 ": the file has %#" PRIx64
			 ", the cache %#" PRIx64, w * 8, fbuf[w], cbuf[w]);
	}
	for (int64_t b = 0; b * FC_BLOCK < size; b++) {
		int64_t left = size - b * FC_BLOCK;
		size_t nwords = left < FC_BLOCK ? (size_t)left / 8 : FC_WORDS;
		const uint64_t *w = fbuf + b * FC_WORDS;
		uint32_t g, last = sh->gen[b];
		enum fc_verdict v = fc_classify(w, nwords, b, &g);

		if (v == FC_BAD || (exact && (v == FC_PARTIAL || g != last)) ||
		    g > last)
			fail_msg("block %" PRId64 " of the file: %s, "
				 "generation %u (word 0 %#" PRIx64 "), last "
				 "written %u",
				 b, v == FC_BAD ? "torn" : v == FC_PARTIAL ?
				 "cut" : v == FC_ZERO ? "zeros" : "one write",
				 g, w[0], last);
	}
	free(cbuf);
	free(fbuf);
}

static void fc_run(struct fc_env *env, const struct fc_config *cfg)
{
	struct fc_thread threads[FC_MAX_THREADS];
	struct fc_shared sh = { 0 };
	struct upc_cache_stats st;
	unsigned int n = 0, i;

	assert_true(cfg->writers + cfg->readers + cfg->fsyncers +
		    cfg->truncator <= FC_MAX_THREADS);
	if (!fc_open(env, cfg->limit, cfg->blocks * FC_BLOCK, cfg->direct,
		     cfg->background ? UPC_FILE_WRITEBACK_BACKGROUND : 0)) {
		print_message("O_DIRECT refused by $TMPDIR's file system: "
			      "skipped\n");
		skip();
	}
	sh.cfg = cfg;
	sh.file = env->file;
	sh.fd = env->fd;
	sh.ops = upc_test_env_ulong("UPC_STRESS_OPS", FC_DEFAULT_OPS) / 4 *
		 cfg->ops_mul;
	sh.seed = upc_test_seed();
	sh.gen = calloc((size_t)cfg->blocks, sizeof(*sh.gen));
	assert_non_null(sh.gen);

	for (i = 0; i < cfg->writers; i++, n++) {
		threads[n] = (struct fc_thread){ .sh = &sh, .id = i };
		assert_int_equal(pthread_create(&threads[n].tid, NULL,
						fc_writer, &threads[n]), 0);
	}
	for (i = 0; i < cfg->readers; i++, n++) {
		threads[n] = (struct fc_thread){ .sh = &sh, .id = i };
		assert_int_equal(pthread_create(&threads[n].tid, NULL,
						fc_reader, &threads[n]), 0);
	}
	for (i = 0; i < cfg->fsyncers; i++, n++) {
		threads[n] = (struct fc_thread){ .sh = &sh, .id = i };
		assert_int_equal(pthread_create(&threads[n].tid, NULL,
						fc_fsyncer, &threads[n]), 0);
	}
	if (cfg->truncator) {
		threads[n] = (struct fc_thread){ .sh = &sh };
		assert_int_equal(pthread_create(&threads[n].tid, NULL,
						fc_truncator, &threads[n]), 0);
		n++;
	}
	for (i = 0; i < n; i++)
		assert_int_equal(pthread_join(threads[i].tid, NULL), 0);

	assert_int_equal(upc_cache_stats(env->cache, &st), 0);
	fprintf(stderr, "# %lu reads, %lu fsyncs, %lu truncations; reclaim: "
		"%" PRIu64 " evictions, %" PRIu64 " pages written back\n",
		sh.reads, sh.syncs, sh.truncs, st.evictions, st.writebacks);
	assert_int_equal(sh.errors, 0);
	assert_int_equal(sh.torn, 0);
	assert_int_equal(sh.stale, 0);
	assert_int_equal(sh.future, 0);
	assert_int_equal(sh.synced, 0);
	if (cfg->reclaims) {
		assert_true(st.evictions > 0);
		/* A flusher may have written every page reclaim met. */
		if (!cfg->background)
			assert_true(st.writebacks > 0);
	}
	/* Counted when it ends: the last pass may still be writing. */
	if (cfg->background && cfg->reclaims)
		assert_true(file_wait_for_passes(env->file, 1));

	assert_int_equal(upc_fsync(env->file), 0);
	assert_file_ok(env->file);
	fc_check_final(&sh, !cfg->truncator);
	fc_close(env);
	free(sh.gen);
}

/* ---- the scenarios ------------------------------------------------------- */

static void test_file_concurrency_reclaim(void **state)
{
	static const struct fc_config cfg = {
		.limit = 4 * API_MIB, .blocks = 16 * API_MIB / FC_BLOCK,
		.writers = 2, .readers = 2, .reclaims = true, .ops_mul = 2,
	};

	fc_run(*state, &cfg);
}

static void test_file_concurrency_fsync(void **state)
{
	static const struct fc_config cfg = {
		.limit = 4 * API_MIB, .blocks = 8 * API_MIB / FC_BLOCK,
		.writers = 2, .fsyncers = 1, .reclaims = true, .ops_mul = 8,
	};

	fc_run(*state, &cfg);
}

/*
 * Two threads fsyncing the one handle at once (their flushes run side by
 * side, their write-backs in turn): each fsync still returns 0 and
 * leaves in the file what was written before it began.
 */
static void test_file_concurrency_fsyncs(void **state)
{
	static const struct fc_config cfg = {
		.limit = 4 * API_MIB, .blocks = 8 * API_MIB / FC_BLOCK,
		.writers = 2, .fsyncers = 2, .reclaims = true, .ops_mul = 8,
	};

	fc_run(*state, &cfg);
}

/* The smallest cache, so that reclaim still runs between truncations. */
static void test_file_concurrency_truncate(void **state)
{
	static const struct fc_config cfg = {
		.limit = 2 * API_MIB, .blocks = 8 * API_MIB / FC_BLOCK,
		.writers = 2, .readers = 1, .truncator = true, .ops_mul = 8,
	};

	fc_run(*state, &cfg);
}

/* fsync and truncation again, the cache on an O_DIRECT descriptor. */
static void test_file_concurrency_fsync_direct(void **state)
{
	static const struct fc_config cfg = {
		.limit = 4 * API_MIB, .blocks = 8 * API_MIB / FC_BLOCK,
		.writers = 2, .fsyncers = 1, .reclaims = true, .ops_mul = 4,
		.direct = true,
	};

	fc_run(*state, &cfg);
}

/*
 * Two fsync threads again, the cache on an O_DIRECT descriptor: its
 * writes bypass the kernel's cache, so the test's buffered pread() after
 * each fsync sees only what was written to the file by then.
 */
static void test_file_concurrency_fsyncs_direct(void **state)
{
	static const struct fc_config cfg = {
		.limit = 4 * API_MIB, .blocks = 8 * API_MIB / FC_BLOCK,
		.writers = 2, .fsyncers = 2, .reclaims = true, .ops_mul = 4,
		.direct = true,
	};

	fc_run(*state, &cfg);
}

static void test_file_concurrency_truncate_direct(void **state)
{
	static const struct fc_config cfg = {
		.limit = 2 * API_MIB, .blocks = 8 * API_MIB / FC_BLOCK,
		.writers = 2, .readers = 1, .truncator = true, .ops_mul = 4,
		.direct = true,
	};

	fc_run(*state, &cfg);
}

/*
 * Background writeback beside everything else: flusher passes write
 * back while writers write, readers miss, reclaim evicts and writes
 * back, and fsync or truncation run; buffered and O_DIRECT.
 */
static void test_file_concurrency_background(void **state)
{
	static const struct fc_config cfg = {
		.limit = 4 * API_MIB, .blocks = 16 * API_MIB / FC_BLOCK,
		.writers = 2, .readers = 2, .fsyncers = 1, .reclaims = true,
		.ops_mul = 2, .background = true,
	};

	fc_run(*state, &cfg);
}

static void test_file_concurrency_background_direct(void **state)
{
	static const struct fc_config cfg = {
		.limit = 4 * API_MIB, .blocks = 16 * API_MIB / FC_BLOCK,
		.writers = 2, .readers = 1, .fsyncers = 1, .reclaims = true,
		.ops_mul = 2, .direct = true, .background = true,
	};

	fc_run(*state, &cfg);
}

static void test_file_concurrency_truncate_background(void **state)
{
	static const struct fc_config cfg = {
		.limit = 2 * API_MIB, .blocks = 8 * API_MIB / FC_BLOCK,
		.writers = 2, .readers = 1, .truncator = true, .ops_mul = 8,
		.background = true,
	};

	fc_run(*state, &cfg);
}

/* ---- seeks ------------------------------------------------------------- */

#define FC_SEEK_ROUNDS	20
#define FC_SEEKS	2000

struct fc_seeker {
	struct upc_file *file;
	unsigned long bad;
};

/* Seek for data from each of the file's four blocks in turn. */
static void *fc_seeker(void *arg)
{
	struct fc_seeker *sk = arg;
	int i;

	for (i = 0; i < FC_SEEKS; i++) {
		int64_t from = (int64_t)(i % 4) * 4096;
		int64_t ret = upc_seek_data(sk->file, from);

		/* Data in blocks 0 and 2 (3 is a hole where the file system
		 * keeps holes: none follows it then). */
		if (ret != -ENXIO && (ret < from || ret >= 4 * 4096))
			sk->bad++;
		if (!from && ret)
			sk->bad++;
	}
	return NULL;
}

/*
 * upc_seek_data() asks the file with lseek(), which moves the open
 * file's offset, and puts the offset back.  Two threads seeking on one
 * handle must not put back what the other moved: the caller's offset
 * is where it left it after every round.
 */
static void test_file_concurrency_seeks(void **state)
{
	struct fc_seeker sk[2] = { { 0 } };
	struct fc_env *env = *state;
	pthread_t tid[2];
	char block[4096];
	int round, t;

	/* The race needs the two seekers running at once. */
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		print_message("one CPU online: the seekers cannot overlap; "
			      "skipped\n");
		skip();
	}
	assert_true(fc_open(env, 4 * API_MIB, 4 * 4096, false, 0));
	memset(block, 0x33, sizeof(block));
	assert_int_equal(upc_write(env->file, block, 4096, 0), 4096);
	assert_int_equal(upc_write(env->file, block, 4096, 8192), 4096);
	for (round = 0; round < FC_SEEK_ROUNDS; round++) {
		assert_int_equal(lseek(env->fd, 777, SEEK_SET), 777);
		for (t = 0; t < 2; t++) {
			sk[t].file = env->file;
			assert_int_equal(pthread_create(&tid[t], NULL,
							fc_seeker, &sk[t]), 0);
		}
		for (t = 0; t < 2; t++)
			assert_int_equal(pthread_join(tid[t], NULL), 0);
		assert_int_equal(lseek(env->fd, 0, SEEK_CUR), 777);
	}
	assert_int_equal(sk[0].bad + sk[1].bad, 0);
	fc_close(env);
}

struct tail_write {
	struct upc_file *file;
	int ret;
	int done;
};

static void *tail_writer(void *arg)
{
	struct tail_write *tw = arg;

	tw->ret = filemap_fdatawrite_range(upc_file_mapping(tw->file), 0,
					   INT64_MAX);
	__atomic_store_n(&tw->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * O_DIRECT is the open file's flag, not the thread's: the write of the
 * page ending a direct file's data, which clears it for the while, must
 * wait for every transfer under way on the descriptor (each holds the
 * file's direct_lock shared), or that transfer would go buffered.  The
 * test holds the lock as a transfer does and starts writeback of such a
 * page: it must not finish, nor the flag change, until the test lets go.
 */
static void test_file_concurrency_direct_flag(void **state)
{
	struct upc_cache_config cfg = { .memory_limit = 4 * API_MIB };
	struct fc_env *env = *state;
	struct tail_write tw = { 0 };
	char data[100], back[100];
	pthread_t tid;
	int i;

	fc_make_direct(env, O_RDWR);
	assert_int_equal(upc_cache_create(&cfg, &env->cache), 0);
	assert_int_equal(upc_file_open(env->cache, env->cfd, 0, &env->file),
			 0);
	memset(data, 0x5a, sizeof(data));
	assert_int_equal(upc_write(env->file, data, sizeof(data), 0),
			 sizeof(data));
	tw.file = env->file;
	pthread_rwlock_rdlock(&env->file->fdf.direct_lock);
	assert_int_equal(pthread_create(&tid, NULL, tail_writer, &tw), 0);
	for (i = 0; i < 50; i++) {
		assert_true(fcntl(env->cfd, F_GETFL) & O_DIRECT);
		assert_false(__atomic_load_n(&tw.done, __ATOMIC_ACQUIRE));
		usleep(1000);
	}
	pthread_rwlock_unlock(&env->file->fdf.direct_lock);
	assert_int_equal(pthread_join(tid, NULL), 0);
	assert_int_equal(tw.ret, 0);
	assert_true(fcntl(env->cfd, F_GETFL) & O_DIRECT);
	assert_int_equal(pread(env->fd, back, sizeof(back), 0), sizeof(back));
	assert_memory_equal(back, data, sizeof(data));
	fc_close(env);
}

/* ---- readahead streams ------------------------------------------------- */

#define FC_MAX_STREAMS	32
#define FC_STREAM_SIZE	(8 * API_MIB)
#define FC_STREAM_PASSES 2

struct fc_stream {
	pthread_t tid;
	struct upc_cache *cache;
	const char *path;
	size_t chunk;
	ssize_t ret;	/* the first call that failed, or read short */
	int64_t at;	/* where (the size: the close); -1 if none did */
	int64_t bad;	/* the first wrong byte's offset, or -1 */
};

/* The file's word at byte @pos (a multiple of 8). */
static uint64_t fc_stream_word(int64_t pos)
{
	return (uint64_t)pos * FC_MIX;
}

/*
 * Read the whole file in order on a descriptor of its own with
 * O_DIRECT (so a handle of its own, with background readahead), the
 * first failure noted.
 */
static void *fc_streamer(void *arg)
{
	struct fc_stream *st = arg;
	struct upc_file *file;
	uint64_t *buf = aligned_alloc(4096, st->chunk);
	int fd = open(st->path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	int pass;

	if (fd < 0 || !buf || upc_file_open(st->cache, fd, 0, &file)) {
		st->ret = -EBADF;
		st->at = 0;
		goto out;
	}
	for (pass = 0; pass < FC_STREAM_PASSES && st->at < 0; pass++)
		for (int64_t pos = 0; pos < FC_STREAM_SIZE;
		     pos += (int64_t)st->chunk) {
			ssize_t n = upc_read(file, buf, st->chunk, pos);

			if (n != (ssize_t)st->chunk) {
				st->ret = n;
				st->at = pos;
				break;
			}
			for (size_t i = 0; i < st->chunk / 8; i++)
				if (buf[i] != fc_stream_word(pos + 8 * i)) {
					st->bad = pos + 8 * (int64_t)i;
					break;
				}
		}
	if (upc_close(file) && st->at < 0) {
		st->ret = -EIO;
		st->at = FC_STREAM_SIZE;
	}
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

/*
 * @nr readers streaming their own O_DIRECT handles of one file in
 * @chunk reads through a 2 MiB cache: the readahead of so many streams
 * would hold more than the cache in locked folios.  Nothing is dirty,
 * so no read may fail or come back short: a reader's miss that finds
 * memory held by reads under way waits for them, as the kernel's
 * reclaim waits for I/O, and readahead, which holds its folios locked
 * while it allocates more, gives up early (__GFP_NORETRY) instead of
 * taking the last of memory.
 */
static void fc_ra_streams(struct fc_env *env, int nr, size_t chunk)
{
	struct upc_cache_config cfg = { .memory_limit = 2 * API_MIB };
	struct fc_stream streams[FC_MAX_STREAMS];
	struct upc_cache_stats stats;
	uint64_t *data;
	int i;

	fc_make_direct(env, O_RDONLY);
	data = malloc(FC_STREAM_SIZE);
	assert_non_null(data);
	for (size_t w = 0; w < FC_STREAM_SIZE / 8; w++)
		data[w] = fc_stream_word(8 * (int64_t)w);
	assert_int_equal(pwrite(env->fd, data, FC_STREAM_SIZE, 0),
			 FC_STREAM_SIZE);
	free(data);
	assert_int_equal(upc_cache_create(&cfg, &env->cache), 0);
	assert_true(nr <= FC_MAX_STREAMS);
	for (i = 0; i < nr; i++) {
		streams[i] = (struct fc_stream){
			.cache = env->cache, .path = env->path, .chunk = chunk,
			.at = -1, .bad = -1,
		};
		assert_int_equal(pthread_create(&streams[i].tid, NULL,
						fc_streamer, &streams[i]), 0);
	}
	for (i = 0; i < nr; i++)
		assert_int_equal(pthread_join(streams[i].tid, NULL), 0);
	for (i = 0; i < nr; i++) {
		if (streams[i].at >= 0 || streams[i].bad >= 0)
			fail_msg("reader %d: read at %lld returned %zd, "
				 "first wrong byte at %lld", i,
				 (long long)streams[i].at, streams[i].ret,
				 (long long)streams[i].bad);
	}
	assert_int_equal(upc_cache_stats(env->cache, &stats), 0);
	assert_int_equal(stats.memory_used, 0);
	assert_int_equal(stats.files, 0);
	assert_int_equal(upc_cache_destroy(env->cache), 0);
	env->cache = NULL;
}

/* Sixteen 64 KiB streams: their queued windows outgrow the cache. */
static void test_file_concurrency_ra_streams(void **state)
{
	fc_ra_streams(*state, 16, 64 * 1024);
}

/* Thirty-two 1 MiB streams: their own windows alone outgrow it. */
static void test_file_concurrency_ra_streams_wide(void **state)
{
	fc_ra_streams(*state, 32, API_MIB);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_file_concurrency_reclaim,
						fc_setup, fc_teardown),
		cmocka_unit_test_setup_teardown(test_file_concurrency_fsyncs,
						fc_setup, fc_teardown),
		cmocka_unit_test_setup_teardown(
			test_file_concurrency_fsyncs_direct, fc_setup,
			fc_teardown),
		cmocka_unit_test_setup_teardown(test_file_concurrency_fsync,
						fc_setup, fc_teardown),
		cmocka_unit_test_setup_teardown(test_file_concurrency_truncate,
						fc_setup, fc_teardown),
		cmocka_unit_test_setup_teardown(
			test_file_concurrency_fsync_direct, fc_setup,
			fc_teardown),
		cmocka_unit_test_setup_teardown(
			test_file_concurrency_truncate_direct, fc_setup,
			fc_teardown),
		cmocka_unit_test_setup_teardown(
			test_file_concurrency_direct_flag, fc_setup,
			fc_teardown),
		cmocka_unit_test_setup_teardown(
			test_file_concurrency_background, fc_setup,
			fc_teardown),
		cmocka_unit_test_setup_teardown(
			test_file_concurrency_background_direct, fc_setup,
			fc_teardown),
		cmocka_unit_test_setup_teardown(
			test_file_concurrency_truncate_background, fc_setup,
			fc_teardown),
		cmocka_unit_test_setup_teardown(test_file_concurrency_ra_streams,
						fc_setup, fc_teardown),
		cmocka_unit_test_setup_teardown(
			test_file_concurrency_ra_streams_wide, fc_setup,
			fc_teardown),
		cmocka_unit_test_setup_teardown(test_file_concurrency_seeks,
						fc_setup, fc_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
