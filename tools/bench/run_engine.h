/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/run_engine.h - the I/O engines of `upcache-bench run`.
 *
 * An engine is the thing a job's operations go through: upcache's own
 * caches (upcache-shmem, upcache-file, upcache-anon) or the kernel's
 * page cache through a real file
 * (kernel-sync, kernel-psync, kernel-mmap), all driven by the same
 * runner in the same process, so their figures differ only by the
 * engine.  Engines are synchronous: one operation at a time per thread
 * (fio's iodepth=1).
 *
 * Lifetime, per job:
 *
 *	setup(job)		create and lay out the job's files (one per
 *				clone, or one shared with filename=); untimed
 *	open(ctx, clone)	a clone's handle, in the clone's thread
 *	io(handle, ...)		one operation, timed
 *	sync(handle, datasync)	fsync=, fdatasync=, end_fsync=: flush the
 *				clone's file; timed (optional)
 *	close(handle)
 *	teardown(ctx)		remove what setup made
 */
#ifndef UPCACHE_TOOLS_BENCH_RUN_ENGINE_H
#define UPCACHE_TOOLS_BENCH_RUN_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "run_options.h"

/**
 * struct run_engine - one engine.
 * @name: Its ioengine= name.
 * @needs: The layer it waits for, or NULL once it runs.
 * @upcache: It runs on upcache, so upcache's counters mean something.
 * @skip_reason: Says why this machine cannot run @job fairly (a stated
 *	skip, not an error), or NULL; may be NULL itself.  @buf (@len
 *	bytes) holds the text if it is built.
 * @setup: Create and lay out the files of @job; on error writes a
 *	message to @err.  Returns 0 or -errno.
 * @open: Open clone @clone's handle.  Returns 0 or -errno.
 * @io: Read (@write false) or write @len bytes at @off.  Returns the
 *	bytes moved or -errno.
 * @sync: Make what the handle's clone wrote durable in its file, as
 *	fsync() does, or as fdatasync() does when @datasync is true.
 *	Returns 0 or -errno (a failed writeback's error included).  NULL
 *	for an engine with no file (upcache-anon): run_engine_syncs()
 *	names the engines that have it, and run_job_resolve() refuses sync
 *	options on the others.
 * @close: Close a handle.
 * @teardown: Undo @setup.
 */
struct run_engine {
	const char *name;
	const char *needs;
	bool upcache;
	const char *(*skip_reason)(const struct run_job *job, char *buf,
				   size_t len);
	int (*setup)(const struct run_job *job, void **ctx, char *err,
		     size_t errlen);
	int (*open)(void *ctx, unsigned int clone, void **handle);
	ssize_t (*io)(void *handle, bool write, void *buf, size_t len,
		      uint64_t off);
	int (*sync)(void *handle, bool datasync);
	void (*close)(void *handle);
	void (*teardown)(void *ctx);
};

/**
 * run_engine_find() - Look an engine up by its ioengine= name.
 * @name: The name (fio's sync/psync/mmap are already mapped by
 *	run_job_resolve()).
 *
 * Return: The engine, or NULL.
 */
const struct run_engine *run_engine_find(const char *name);

/* The engines (run_engine_shmem.c, run_engine_file.c, run_engine_anon.c,
 * run_engine_kernel.c). */
extern const struct run_engine run_engine_shmem;
extern const struct run_engine run_engine_file;
extern const struct run_engine run_engine_anon;
extern const struct run_engine run_engine_kernel_sync;
extern const struct run_engine run_engine_kernel_psync;
extern const struct run_engine run_engine_kernel_mmap;

/**
 * run_fill_pattern() - Fill a buffer with the bytes writes and layout use.
 * @buf: The buffer.
 * @len: Its length.
 *
 * Byte i depends on i alone, and no two 4 KiB blocks of the first
 * RUN_LAYOUT_CHUNK bytes are alike, so a read of the right bytes at the
 * wrong offset shows; no 4 KiB block is all zeros, so a written page is
 * never mistaken for a hole.
 */
void run_fill_pattern(void *buf, size_t len);

/* The piece the layout writes at a time: the pattern's period too. */
#define RUN_LAYOUT_CHUNK	(1UL << 20)

/**
 * run_layout_pattern() - Write the pattern over [0, @size) of something,
 * in RUN_LAYOUT_CHUNK pieces (fio's "laying out IO file").
 * @write: Writes @len bytes at @off of @h; returns the bytes written or
 *	-errno, like pwrite().
 * @h: What is written.
 * @size: Bytes to write.
 *
 * Byte @off of the result is byte @off % RUN_LAYOUT_CHUNK of
 * run_fill_pattern(RUN_LAYOUT_CHUNK): every engine lays out the same
 * bytes, which a reader can check.
 *
 * Return: 0; the first error @write returned; -ENOSPC if it wrote
 * nothing.
 */
int run_layout_pattern(ssize_t (*write)(void *h, const void *buf, size_t len,
					uint64_t off),
		       void *h, uint64_t size);

/**
 * run_file_check_directory() - Check that @job's files have a directory:
 * directory= must be one unless filename= is an absolute path.
 * @job: The job.
 * @err: Where a message goes on error.
 * @errlen: Its size.
 *
 * Return: 0; -ENOENT, with a message naming directory=, if it is missing
 * or not a directory.
 */
int run_file_check_directory(const struct run_job *job, char *err,
			     size_t errlen);

/**
 * run_file_path() - The path of file @i of @job (run_file.c).
 * @job: The job.
 * @i: The clone, for jobs without filename=.
 *
 * Return: directory=/NAME.@i.0, or filename= (under directory= unless
 * absolute); malloc()ed.
 */
char *run_file_path(const struct run_job *job, unsigned int i);

/**
 * run_file_open() - Open a job's file, creating and laying it out as
 * file_kind= asks if it is missing; an existing regular file that holds
 * filesize= bytes is used as it is, whatever file_kind= says, and is
 * never truncated.
 * @job: The job.
 * @path: The file, from run_file_path().
 * @created: Set to whether this call created the file (even if laying
 *	it out then failed: the caller removes it); only such a file is
 *	removed afterwards unless unlink=1.
 * @err: Where a message goes on error.
 * @errlen: Its size.
 *
 * Return: A descriptor open for reading and writing; -EINVAL if the file
 * exists but is not a regular file or is shorter than filesize= (it is
 * left as it is); -errno if the file cannot be opened, created or laid
 * out (-ENOSPC for a short write).
 */
int run_file_open(const struct run_job *job, const char *path, bool *created,
		  char *err, size_t errlen);

/**
 * run_file_reopen() - Open a job's file (laid out by run_file_open())
 * again, as the engine runs on it: with O_DIRECT when direct=1.
 * @job: The job.
 * @path: The file.
 * @flags: O_RDONLY or O_RDWR (O_CLOEXEC is added, and O_DIRECT for a
 *	direct job).
 * @who: The engine, for the message.
 * @err: Where a message goes on error.
 * @errlen: Its size.
 *
 * A file system that takes no direct I/O refuses O_DIRECT at open()
 * with EINVAL (tmpfs before Linux 6.6, some overlayfs setups): the
 * message then names the path and O_DIRECT, and says where to put the
 * files instead.
 *
 * Return: The descriptor; -errno (-EINVAL for a refused O_DIRECT) with
 * a message.
 */
int run_file_reopen(const struct run_job *job, const char *path, int flags,
		    const char *who, char *err, size_t errlen);

#endif /* UPCACHE_TOOLS_BENCH_RUN_ENGINE_H */
