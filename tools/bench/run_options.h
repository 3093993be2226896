/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/run_options.h - the fio job options `upcache-bench run`
 * understands, and what they mean.
 *
 * A job is described twice.  While the command line and job files are
 * read, it is a set of option texts (struct run_opts), one per option,
 * because fio's inheritance is textual: a job section starts from a copy
 * of the [global] options before it, and a size's meaning depends on
 * kb_base, which may come later in the same section.  Each text is
 * checked for syntax as it is stored, so an error names the option and
 * its file line; run_job_resolve() then turns the texts into numbers
 * (struct run_job) and checks how they combine.
 *
 * Option names, value spellings and units are fio's (fio's HOWTO, "Job
 * file parameters"):
 *
 *	size-like (bs, size, filesize, offset, memory_limit, swap_size): an integer
 *	with an optional suffix k, m, g, t or p, any case, optionally
 *	followed by 'b': powers of 1024 with the default kb_base=1024.
 *	fio's compatibility mode gives IEC suffixes (KiB, MiB ...) the
 *	power-of-10 meaning there; kb_base=1000 swaps the two.  Only the
 *	whole spelling is IEC: "Ki" without the b is "k", as fio reads it.
 *	time-like (runtime, ramp_time): an integer with an optional unit
 *	us/usec, ms/msec, s/sec, m/min, h or d; seconds without one.
 *	thinktime and thinktime_spin take the same units but, as in fio,
 *	mean microseconds without one.
 *	bool (time_based, thread, group_reporting, stonewall, unlink,
 *	end_fsync, direct, file_io_uring, file_background_writeback):
 *	0 or 1; the bare name (a
 *	job-file line "thread", "--thread") means 1.
 *	int (numjobs, rwmixread, rwmixwrite, iodepth, swap_space_shift,
 *	fsync, fdatasync, thinktime_blocks): decimal digits, within the
 *	option's range.
 *
 * An option fio has but this runner does not is an error that names it;
 * nothing is silently ignored.  Pure code (no upcache calls), compiled
 * into tests/bench/ directly.
 */
#ifndef UPCACHE_TOOLS_BENCH_RUN_OPTIONS_H
#define UPCACHE_TOOLS_BENCH_RUN_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define RUN_NAME_MAX		64
#define RUN_MAX_NUMJOBS		64
#define RUN_MAX_BS		(1ULL << 30)
#define RUN_NSEC_PER_SEC	1000000000ULL
/*
 * What direct=1 asks of a kernel engine's bs= and offset=: O_DIRECT
 * needs the file system's logical block size, 4096 on the file systems
 * and devices this runs on (512 on some, which 4096 also satisfies).
 */
#define RUN_DIRECT_ALIGN	4096ULL

/**
 * enum run_opt_id - the options, in the order of the usage text.
 */
enum run_opt_id {
	RUN_OPT_NAME,
	RUN_OPT_DESCRIPTION,
	RUN_OPT_IOENGINE,
	RUN_OPT_RW,
	RUN_OPT_RWMIXREAD,
	RUN_OPT_RWMIXWRITE,
	RUN_OPT_BS,
	RUN_OPT_SIZE,
	RUN_OPT_FILESIZE,
	RUN_OPT_OFFSET,
	RUN_OPT_NUMJOBS,
	RUN_OPT_RUNTIME,
	RUN_OPT_TIME_BASED,
	RUN_OPT_RAMP_TIME,
	RUN_OPT_IODEPTH,
	RUN_OPT_THREAD,
	RUN_OPT_DIRECT,
	RUN_OPT_FALLOCATE,
	RUN_OPT_FILE_KIND,
	RUN_OPT_FSYNC,
	RUN_OPT_FDATASYNC,
	RUN_OPT_END_FSYNC,
	RUN_OPT_THINKTIME,
	RUN_OPT_THINKTIME_SPIN,
	RUN_OPT_THINKTIME_BLOCKS,
	RUN_OPT_GROUP_REPORTING,
	RUN_OPT_STONEWALL,
	RUN_OPT_FILENAME,
	RUN_OPT_DIRECTORY,
	RUN_OPT_UNLINK,
	RUN_OPT_KB_BASE,
	RUN_OPT_HUGE,
	RUN_OPT_MEMORY_LIMIT,
	RUN_OPT_FILE_IO_URING,
	RUN_OPT_FILE_BACKGROUND_WRITEBACK,
	RUN_OPT_SWAP_SIZE,
	RUN_OPT_SWAP_FILE,
	RUN_OPT_SWAP_SPACE_SHIFT,
	RUN_NR_OPTS,
};

/**
 * struct run_opts - the option texts of one job (or of a [global]).
 * @val: Per option, its text (malloc()ed), or NULL when not given.
 */
struct run_opts {
	char *val[RUN_NR_OPTS];
};

/**
 * enum run_rw - fio's rw= (readwrite=).
 */
enum run_rw {
	RUN_RW_READ,
	RUN_RW_RANDREAD,
	RUN_RW_WRITE,
	RUN_RW_RANDWRITE,
	RUN_RW_RW,
	RUN_RW_RANDRW,
};

/**
 * enum run_fallocate - fio's fallocate=: how a file is preallocated.
 */
enum run_fallocate {
	RUN_FALLOC_NONE,
	RUN_FALLOC_NATIVE,
	RUN_FALLOC_POSIX,
	RUN_FALLOC_KEEP,
	RUN_FALLOC_TRUNCATE,
};

/**
 * enum run_file_kind - what the file holds when the job starts
 * (file_kind=, an upcache extension: seed 002's three cases).
 * @RUN_FILE_NORMAL: Written in full (fio's "laying out IO file").
 * @RUN_FILE_FALLOCATED: Allocated and never written (reads see zeros).
 * @RUN_FILE_HOLE: Truncated up to its size: one hole.
 * @RUN_FILE_EMPTY: Size 0 (writes extend it).
 */
enum run_file_kind {
	RUN_FILE_NORMAL,
	RUN_FILE_FALLOCATED,
	RUN_FILE_HOLE,
	RUN_FILE_EMPTY,
};

/**
 * enum run_huge - huge= for upcache-shmem (tmpfs's huge= mount option).
 */
enum run_huge {
	RUN_HUGE_NEVER,
	RUN_HUGE_ALWAYS,
	RUN_HUGE_WITHIN_SIZE,
	RUN_HUGE_ADVISE,
};

/**
 * struct run_job - one job, resolved.
 * @name: name=, or the section's name.
 * @engine: ioengine=, with fio's sync/psync/mmap mapped to the kernel-*
 *	engines; default kernel-psync, as fio's default is psync.
 * @rw: rw= (default read).
 * @rwmixread: Percentage of reads in rw and randrw jobs (default 50).
 * @bs: Block size in bytes (default 4096).
 * @size: Bytes of I/O per pass of each clone (the I/O region's length).
 * @filesize: Size of each file.
 * @offset: Start of the I/O region in the file.
 * @numjobs: Clones (threads) of the job.
 * @runtime_ns: runtime=, 0 for no limit.
 * @ramp_ns: ramp_time=.
 * @time_based: Repeat the workload until @runtime_ns has passed.
 * @direct: direct=1: the engine's file is opened with O_DIRECT
 *	(upcache-file: the file behind the cache; kernel-sync and
 *	kernel-psync: the clones' descriptors).
 * @fallocate: fallocate= (default native).
 * @file_kind: What the file holds before the job starts.
 * @fsync_blocks: fsync=: a clone syncs its file (fsync) after every
 *	this many of its writes, as its next operation: none follows the
 *	last write of the measured phase (end_fsync= is for that); 0 never.
 * @fdatasync_blocks: fdatasync=: the same with fdatasync; when both
 *	fall due after one write, the fsync is the one issued (fio's order).
 * @end_fsync: end_fsync=: a clone that writes syncs its file once after
 *	its measured phase, unless its last operation was a sync.
 * @thinktime_ns: thinktime=: after every @thinktime_blocks of its reads
 *	and writes (not its syncs), a clone stalls this long before its
 *	next operation; in its run time, in no operation's latency; 0 never.
 * @thinktime_spin_ns: thinktime_spin=: how much of each stall is spent
 *	spinning on the clock (busy, as a program processing the data);
 *	the rest of it sleeps.  At most @thinktime_ns.
 * @thinktime_blocks: thinktime_blocks=: operations between stalls
 *	(default 1).
 * @group_reporting: Report this job's clones in the entry before them in
 *	their stonewall group (fio's rule), not each on its own.
 * @stonewall: Wait for the jobs before this one.
 * @filename: filename=, shared by all clones; NULL for per-clone names.
 * @directory: directory= (default /dev/shm).
 * @unlink: 1 remove, 0 keep, -1 remove only files the run created.
 * @kb_base: 1024 or 1000.
 * @huge: upcache-shmem's huge policy.
 * @memory_limit: The cache's memory limit for upcache engines, and the
 *	page-cache limit a kernel baseline would need; 0 sizes the cache to
 *	hold the files.
 * @file_io_uring: upcache-file: writeback sends each batch of dirty
 *	pages in one io_uring submission (fd_file_init()'s @io_uring,
 *	UPC_FILE_IO_URING).
 * @file_background_writeback: upcache-file: a flusher thread writes
 *	dirty pages back while the job writes (FD_FILE_WRITEBACK_BACKGROUND,
 *	UPC_FILE_WRITEBACK_BACKGROUND).
 * @swap_size: upcache-anon and upcache-shmem: bytes of swap; 0 for the
 *	default (the regions' or files' size when swap is wanted: a
 *	@memory_limit below them, a @swap_file or a @swap_space_shift;
 *	otherwise no swap).
 * @swap_file: upcache-anon and upcache-shmem: swap to this file (under
 *	@directory unless absolute); NULL for a device in memory.
 * @swap_space_shift: upcache-anon and upcache-shmem: log2 of the slots
 *	per swap cache tree; 0 for the library's default.
 */
struct run_job {
	char name[RUN_NAME_MAX];
	char engine[RUN_NAME_MAX];
	enum run_rw rw;
	unsigned int rwmixread;
	uint64_t bs;
	uint64_t size;
	uint64_t filesize;
	uint64_t offset;
	unsigned int numjobs;
	uint64_t runtime_ns;
	uint64_t ramp_ns;
	bool time_based;
	bool direct;
	enum run_fallocate fallocate;
	enum run_file_kind file_kind;
	unsigned int fsync_blocks;
	unsigned int fdatasync_blocks;
	bool end_fsync;
	uint64_t thinktime_ns;
	uint64_t thinktime_spin_ns;
	unsigned int thinktime_blocks;
	bool group_reporting;
	bool stonewall;
	char *filename;
	char *directory;
	int unlink;
	unsigned int kb_base;
	enum run_huge huge;
	uint64_t memory_limit;
	bool file_io_uring;
	bool file_background_writeback;
	uint64_t swap_size;
	char *swap_file;
	unsigned int swap_space_shift;
};

/**
 * run_parse_size() - Parse a fio size ("int" with a unit suffix).
 * @s: The text: decimal digits, then optionally k/m/g/t/p (any case),
 *	optionally 'i', optionally 'b'.  A bare 'b' means bytes.
 * @kb_base: 1024 (fio's default compatibility mode: k is 1024 and ki is
 *	1000) or 1000 (k is 1000 and ki is 1024).
 * @out: The size in bytes, set only on success.
 *
 * Return: 0; -EINVAL if @s is not such a size (a sign, a fraction, a
 * percentage, an unknown suffix); -ERANGE if it does not fit 64 bits.
 */
int run_parse_size(const char *s, unsigned int kb_base, uint64_t *out);

/**
 * run_parse_time() - Parse a fio time.
 * @s: Decimal digits, then optionally us, usec, ms, msec, s, sec, m,
 *	min, h or d (any case); no unit means seconds.
 * @out: The time in nanoseconds, set only on success.
 *
 * Return: 0; -EINVAL if @s is not a time (a negative one included);
 * -ERANGE if it does not fit 64 bits of nanoseconds.
 */
int run_parse_time(const char *s, uint64_t *out);

/**
 * run_parse_time_in() - Parse a fio time whose bare number is in a
 * unit of its own (thinktime= and thinktime_spin=: microseconds).
 * @s: As run_parse_time()'s, but a number without a unit is in units
 *	of @bare_ns nanoseconds.
 * @bare_ns: The unit of a bare number, in nanoseconds (not 0).
 * @out: The time in nanoseconds, set only on success.
 *
 * Return: As run_parse_time().
 */
int run_parse_time_in(const char *s, uint64_t bare_ns, uint64_t *out);

/**
 * run_opts_set() - Store one option's text, checking its syntax.
 * @o: The job's (or [global]'s) options.
 * @name: The option's fio name (an alias such as "readwrite" or
 *	"blocksize" is stored under its main name).
 * @value: Its value; NULL for a bare name, which only bools accept.
 * @err: Buffer for a one-line message on error.
 * @errlen: Size of @err.
 *
 * Return: 0; -EINVAL for an option this runner does not support (the
 * message names it and says whether fio has it), a missing value or a
 * bad one.  Dies if memory runs out.
 */
int run_opts_set(struct run_opts *o, const char *name, const char *value,
		 char *err, size_t errlen);

/**
 * run_opts_copy() - Make @dst a copy of @src (textual inheritance).
 * @dst: Options to overwrite; what it held is freed.
 * @src: Options to copy.
 */
void run_opts_copy(struct run_opts *dst, const struct run_opts *src);

/**
 * run_opts_free() - Free the texts; @o is left empty and reusable.
 * @o: The options.
 */
void run_opts_free(struct run_opts *o);

/**
 * run_job_resolve() - Turn a job's option texts into a job.
 * @o: The job's options (inherited ones included).
 * @section: The job's section name (a job file's [name] or --name=),
 *	the default for name=.
 * @job: The result; its strings are malloc()ed (run_job_free()).
 * @err: Buffer for a one-line message on error.
 * @errlen: Size of @err.
 *
 * Fills in fio's defaults and checks the combination: size or filesize
 * is needed; size defaults to filesize - offset and filesize to offset
 * + size; bs must fit in size; time_based needs runtime; iodepth must be
 * 1 (every engine is synchronous); an unknown ioengine is an error; the
 * swap options belong to ioengine=upcache-anon and upcache-shmem and are
 * an error on any other engine; fsync=, fdatasync= and end_fsync= other
 * than 0 need an engine with a file to sync (run_engine_syncs());
 * direct=1 needs upcache-file, kernel-sync or kernel-psync, and on the
 * kernel engines a bs= and offset= that are multiples of
 * RUN_DIRECT_ALIGN; file_io_uring=1 and file_background_writeback=1
 * need upcache-file;
 * thinktime_spin= and thinktime_blocks= need thinktime=, and
 * thinktime_spin= may not be longer than thinktime=.
 *
 * Return: 0; -EINVAL with a message in @err.
 */
int run_job_resolve(const struct run_opts *o, const char *section,
		    struct run_job *job, char *err, size_t errlen);

/**
 * run_job_free() - Free what run_job_resolve() allocated.
 * @job: The job.
 */
void run_job_free(struct run_job *job);

/**
 * run_engine_syncs() - Can engine @engine sync a clone's file?
 * @engine: An ioengine= name, as resolved (kernel-* for fio's names).
 *
 * Answers without the engines themselves (this file is pure code), so
 * it must agree with which engines have a struct run_engine @sync;
 * tests/bench checks that it does.
 *
 * Return: true for upcache-shmem, upcache-file and the kernel engines.
 */
bool run_engine_syncs(const char *engine);

/**
 * run_job_syncs() - Does @job ask for syncs (fsync=, fdatasync= or
 * end_fsync= other than 0)?
 * @job: The job.
 */
bool run_job_syncs(const struct run_job *job);

/**
 * run_rw_name() - The rw= spelling of @rw.
 * @rw: The pattern.
 *
 * Return: A string literal.
 */
const char *run_rw_name(enum run_rw rw);

/**
 * run_rw_reads() - Does a job with pattern @rw read?
 * @rw: The pattern.
 */
bool run_rw_reads(enum run_rw rw);

/**
 * run_rw_writes() - Does a job with pattern @rw write?
 * @rw: The pattern.
 */
bool run_rw_writes(enum run_rw rw);

/**
 * run_rw_random() - Are @rw's offsets random?
 * @rw: The pattern.
 */
bool run_rw_random(enum run_rw rw);

/**
 * run_options_usage() - Print the supported options, one a line.
 * @out: The stream.
 */
void run_options_usage(FILE *out);

#endif /* UPCACHE_TOOLS_BENCH_RUN_OPTIONS_H */
