/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/shm_cases.h - the measured reads of the shmem suite (seed
 * 002): one file of each kind, read three ways and copied a fourth.
 *
 * `upcache-bench shmem` reads a whole file sequentially in blocks of
 * 4 KiB, 64 KiB and 1 MiB, the file being one of
 *
 *	normal	written: every page holds data (a pattern in which each
 *		8 bytes encode their offset)
 *	falloc	fallocate()d and never written: folios that are not
 *		uptodate, read as zeros
 *	hole	ftruncate()d: no folio at all, read as zeros
 *
 * with the huge policy NEVER (4 KiB folios) or ALWAYS (2 MiB folios).
 * Each read is made by
 *
 *	batched		shmem_read_iter(), the library's read path (what
 *			upc_read() calls after checking its arguments)
 *	per_folio	the path before seed 002 (shm_baseline.h): one
 *			lookup per folio, per page in holes
 *	kernel		pread() on a file of the same kind on the
 *			kernel's tmpfs: for each huge policy, the first
 *			tmpfs mounted (/dev/shm first) whose files get the
 *			same pages as upcache's, else /dev/shm, the
 *			mismatch recorded (shm_kernel.h)
 *
 * into the same destination buffer; "memcpy" copies the same number of
 * bytes in the same blocks from a plain buffer of the file's size into
 * it, the bandwidth a read could reach at best.
 *
 * A "group" is one kind and one huge policy: its upcache file (in an
 * arena of its own) and its kernel file exist while the group's twelve
 * cases (four methods, three block sizes) are measured in interleaved
 * rounds, and are freed before the next group, so at most one file of
 * each side is in memory at a time.  Sizes (struct shm_scale):
 *
 *	mode	file	rounds	warm-ups
 *	full	1 GiB	9	1
 *	quick	256 MiB	7	1
 *	tiny	4 MiB	3	1
 *
 * --size N sets the file's pages (rounded up to 2 MiB, at most 4 GiB),
 * --rounds N the rounds.
 *
 * Results are checked, untimed: when a group opens, both files must be
 * of their kind (folios, their order and uptodate state; the kernel
 * file's allocated blocks, since a "hole" that was written is no hole:
 * seed 002's first figures made that mistake), and every method must
 * read the expected bytes at a few offsets per block size; after every
 * round, the last block each case read must be the expected one.  A
 * difference ends the run (exit status 2) naming the row and method.
 */
#ifndef UPCACHE_TOOLS_BENCH_SHM_CASES_H
#define UPCACHE_TOOLS_BENCH_SHM_CASES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <upcache/folio.h>

#include "../../mm/shmem.h"
#include "measure.h"
#include "options.h"
#include "shm_kernel.h"

/* The block sizes, smallest first, and the largest. */
#define SHMB_NR_BS	3
#define SHMB_MAX_BS	(1UL << 20)

/* The largest file --size may ask for: 4 GiB. */
#define SHMB_MAX_FILE_PAGES	(1UL << 20)

/* Files are whole 2 MiB ranges, so that huge=always gets order-9 folios. */
#define SHMB_HUGE_BYTES	(UPC_PAGE_SIZE << UPC_MAX_ORDER)

/**
 * enum shmb_method - how a case reads.
 * @SHMB_BATCHED: shmem_read_iter().
 * @SHMB_PER_FOLIO: shmb_per_folio_read() (shm_baseline.h).
 * @SHMB_KERNEL: pread() on the kernel's tmpfs file.
 * @SHMB_MEMCPY: memcpy() from a plain buffer (no file).
 * @SHMB_NR_METHODS: how many.
 */
enum shmb_method {
	SHMB_BATCHED,
	SHMB_PER_FOLIO,
	SHMB_KERNEL,
	SHMB_MEMCPY,
	SHMB_NR_METHODS
};

/* The methods that read a file (not memcpy). */
#define SHMB_NR_READERS	SHMB_MEMCPY

/**
 * struct shm_scale - the sizes of one run.
 * @mode: "full", "quick" or "tiny".
 * @file_bytes: Size of every file: a multiple of SHMB_HUGE_BYTES.
 * @arena_bytes: Size of each group's arena: the file and headroom for
 *	the allocator's per-CPU caches.
 * @rounds: Timed rounds per figure.
 * @warmups: Untimed rounds before them.
 */
struct shm_scale {
	const char *mode;
	size_t file_bytes;
	size_t arena_bytes;
	unsigned int rounds;
	unsigned int warmups;
};

/**
 * struct shm_bench - the state every shmem case shares.
 * @scale: The sizes of this run.
 * @kern: Where the kernel's files go and what pages they get, for each
 *	huge policy of upcache's file (index: @huge): the tmpfs that
 *	shmk_find() chose for it.
 * @src: @scale.file_bytes of the pattern: what a normal file holds and
 *	what the memcpy cases copy from.
 * @buf: The destination of every read (SHMB_MAX_BS bytes).
 * @scratch: Room for one block per reading method, for the checks.
 * @kind: The open group's kind.
 * @huge: The open group's huge policy is ALWAYS (else NEVER).
 * @arena: The open group's arena, NULL between groups.
 * @sf: The open group's upcache file.
 * @kfd: The open group's kernel file, -1 without one.
 * @reads_checked: Reads compared with what they should return, so far.
 */
struct shm_bench {
	struct shm_scale scale;
	struct shmk_info kern[2];
	unsigned char *src;
	unsigned char *buf;
	unsigned char *scratch[SHMB_NR_READERS];
	enum shmk_kind kind;
	bool huge;
	struct upc_arena *arena;
	struct shmem_file sf;
	int kfd;
	unsigned long reads_checked;
};

/**
 * struct shmb_case - the argument of every hook: which read runs.
 * @b: The shared state.
 * @row: The row's name, for messages.
 * @method: How it reads.
 * @bs: Its block size.
 */
struct shmb_case {
	struct shm_bench *b;
	const char *row;
	enum shmb_method method;
	size_t bs;
};

/* The block sizes, by position, and their names in row names. */
extern const size_t shmb_bs[SHMB_NR_BS];
extern const char *const shmb_bs_names[SHMB_NR_BS];

/* The methods' names, in messages and report keys. */
extern const char *const shmb_method_names[SHMB_NR_METHODS];

/**
 * shmb_scale_from_options() - Pick the sizes the options ask for.
 * @opts: The parsed options (--tiny, --quick, --size, --rounds).
 * @scale: The result.
 *
 * Dies (exit status 2) if --size asks for more than SHMB_MAX_FILE_PAGES.
 */
void shmb_scale_from_options(const struct bench_options *opts,
			     struct shm_scale *scale);

/**
 * shmb_init() - Allocate the pattern and the buffers of a run.
 * @b: The state to fill.
 * @scale: The sizes; copied.
 * @where: Where to look for the kernel's tmpfs (shmk_find()): for each
 *	huge policy, one whose files get the pages upcache's file gets.
 *
 * A group whose directory is not usable leaves the kernel side out of
 * its rows (@b->kern says why) rather than failing the run.
 *
 * Context: Dies (exit status 2) if memory runs out.
 */
void shmb_init(struct shm_bench *b, const struct shm_scale *scale,
	       const struct shmk_where *where);

/**
 * shmb_free() - Free what shmb_init() allocated.
 * @b: The state; no group may be open.
 */
void shmb_free(struct shm_bench *b);

/**
 * shmb_group_open() - Create the files of one group and check them.
 * @b: The state; no group may be open.
 * @kind: The files' kind.
 * @huge: The upcache file's huge policy is ALWAYS (else NEVER).
 *
 * Builds the upcache file in a new arena and the kernel file (when the
 * group has a kernel side, in the directory chosen for @huge), checks
 * that each is of its kind, and reads both with every method at a few
 * offsets per block size (see the opening comment).
 *
 * Context: Dies (exit status 2) on any failure or wrong result.
 */
void shmb_group_open(struct shm_bench *b, enum shmk_kind kind, bool huge);

/**
 * shmb_group_close() - Free the files of the open group.
 * @b: The state.
 *
 * Context: Dies if the arena still has pages charged afterwards.
 */
void shmb_group_close(struct shm_bench *b);

/**
 * shmb_read() - One read of the open group's file by one method.
 * @b: The state.
 * @method: How to read; SHMB_MEMCPY copies from @b->src.
 * @buf: Where the bytes go.
 * @count: How many.
 * @pos: File offset, not negative.
 *
 * Return: The bytes read (short only at the end of the file), or a
 * negative errno from pread().
 */
ssize_t shmb_read(struct shm_bench *b, enum shmb_method method, void *buf,
		  size_t count, int64_t pos);

/**
 * shmb_check_block() - Does a block hold what the group's file holds?
 * @b: The state.
 * @block: The bytes read.
 * @count: How many.
 * @pos: The file offset they were read from.
 *
 * Return: true if they equal the pattern (normal files) or are all zero.
 */
bool shmb_check_block(const struct shm_bench *b, const unsigned char *block,
		      size_t count, int64_t pos);

/*
 * The hooks of struct bench_case; @arg is a struct shmb_case.  The body
 * reads (or copies) the whole file once in blocks of the case's size and
 * returns the number of blocks; setup poisons the destination and
 * teardown checks the last block.
 */
void shmb_setup(void *arg);
uint64_t shmb_body(void *arg);
void shmb_teardown(void *arg);

#endif /* UPCACHE_TOOLS_BENCH_SHM_CASES_H */
