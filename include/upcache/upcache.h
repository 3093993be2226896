/* SPDX-License-Identifier: MIT */
/*
 * upcache/upcache.h - the application API: caches, in-memory files,
 * cached files and anonymous memory.
 *
 * A program creates a cache (a memory limit, like a memory cgroup) and
 * files in it.  A shmem file behaves like a file on the kernel's tmpfs:
 * sparse, holes read as zeros, fallocate, punch hole, truncate,
 * SEEK_DATA/SEEK_HOLE, transparent huge pages by policy.  A file opened
 * with upc_file_open() caches a regular file: misses read it, writes
 * reach it through upc_fsync(), upc_close() or reclaim.  Calls follow
 * pread/pwrite conventions and return a negative errno on failure; no
 * call aborts the process on bad input.
 *
 * Threads: every function may be called from any thread, any number of
 * threads on one file.  A handle must not be used after upc_close() (a
 * debug build catches it where it can).  A call may reclaim, and so
 * write other files' pages back, on the calling thread: give threads
 * that call upcache at least 64 KiB of stack (the deepest calls
 * measured, streaming writes into an O_DIRECT file through a small
 * cache, used 24 KiB in an optimised build; a sanitizer build needs
 * more).
 *
 * fork(): the child may go on using upcache, new caches and those made
 * before the fork alike, as long as no other thread of the parent was
 * inside an upcache call at the fork (the locks it held stay held in the
 * child, as with any library), nor starting or ending (the first use of
 * upcache on a thread registers it with liburcu, and its exit undoes
 * that, under a lock of liburcu's that no fork handler can take: about
 * one fork in a thousand beside threads coming and going that fast left
 * the child's RCU stuck), and the forking thread is not inside an
 * upc_rcu_read_lock() section.  upcache's own threads are taken care of:
 * background readahead and a background writeback pass under way (4 MiB
 * at most) finish before the fork, and RCU is set up again in the
 * child.  A cache made before the fork is a copy in
 * the child: the two processes' writes to one file through it go
 * through two caches that do not see each other's.
 *
 *	struct upc_cache_config cfg = { .memory_limit = 256 << 20 };
 *	struct upc_cache *cache;
 *	struct upc_file *file;
 *
 *	upc_cache_create(&cfg, &cache);
 *	upc_shmem_create(cache, NULL, &file);
 *	upc_write(file, "hello", 5, 0);
 *	upc_read(file, buf, sizeof(buf), 0);
 *	upc_close(file);
 *	upc_cache_destroy(cache);
 */
#ifndef UPCACHE_UPCACHE_H
#define UPCACHE_UPCACHE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

struct upc_cache;
struct upc_file;

/**
 * enum upc_huge - when a shmem file uses 2 MiB folios (tmpfs huge=).
 * @UPC_HUGE_DEFAULT: Use the cache's default (in upc_shmem_options only).
 * @UPC_HUGE_NEVER: Only 4 KiB folios.
 * @UPC_HUGE_ALWAYS: A 2 MiB folio wherever a write or fallocate
 *	populates a whole aligned 2 MiB range, and folios of the largest
 *	power of two that fits for smaller aligned pieces; a folio never
 *	reaches outside the range being populated.  tmpfs huge=always
 *	differs there: on Linux 6.18 a write of even one byte allocates
 *	the whole 2 MiB folio around it (more memory; the bytes read are
 *	the same).
 * @UPC_HUGE_WITHIN_SIZE: As ALWAYS, but only for ranges that lie wholly
 *	inside the file's size as it is after the operation (so only
 *	fallocate with FALLOC_FL_KEEP_SIZE past the end differs from
 *	ALWAYS; tmpfs huge=within_size there allocates as ALWAYS does).
 * @UPC_HUGE_ADVISE: As ALWAYS in files given UPC_SHMEM_HUGE_ADVISED (the
 *	equivalent of madvise(MADV_HUGEPAGE)), else as NEVER.  An advised
 *	WITHIN_SIZE file is ALWAYS too, as tmpfs honours the advice.
 *
 * A large folio partly punched or truncated away is zeroed there, not
 * split: its memory stays allocated, and seeking reports its zeroed
 * pages as data where tmpfs with small pages would report a hole.
 */
enum upc_huge {
	UPC_HUGE_DEFAULT,
	UPC_HUGE_NEVER,
	UPC_HUGE_ALWAYS,
	UPC_HUGE_WITHIN_SIZE,
	UPC_HUGE_ADVISE,
};

/**
 * struct upc_cache_config - what upc_cache_create() needs.
 * @memory_limit: Bytes of memory for cached data: a multiple of 2 MiB, at
 *	least 2 MiB.
 * @huge: Default huge policy of shmem files (UPC_HUGE_NEVER if
 *	UPC_HUGE_DEFAULT).
 * @flags: Must be 0.
 */
struct upc_cache_config {
	size_t memory_limit;
	enum upc_huge huge;
	unsigned int flags;
};

/**
 * upc_cache_create() - Create a cache.
 * @config: Its configuration.
 * @out: Receives the cache.
 *
 * The cache reclaims: when its memory is full, the least recently used
 * clean file data is evicted; shmem files' and anonymous regions' pages
 * go to swap once upc_swapon() gave it some, and stay otherwise.  Pages
 * that other threads hold for a moment (a read copying out of them,
 * I/O under way) are waited for, reads under way until they end, other
 * holds until nothing has been evicted for a second, before a call
 * needing memory fails (-ENOMEM, or -ENOSPC for a write).  Pages that
 * spans pin (upc_get_spans()) are not waited for, so a call that finds
 * nothing held and nothing to evict fails at once.
 *
 * Context: Any thread.
 * Return: 0; -EINVAL if @config or @out is NULL, the limit is not a
 * positive multiple of 2 MiB (or above 64 TiB), @huge is out of range or
 * @flags is not 0; -ENOMEM if the memory cannot be reserved.
 */
int upc_cache_create(const struct upc_cache_config *config,
		     struct upc_cache **out);

/**
 * upc_cache_destroy() - Destroy a cache whose files and anonymous
 * regions are all gone, and its swap device if it has one.
 * @cache: The cache.
 *
 * Context: No other thread may use @cache.
 * Return: 0; -EBADF if @cache is NULL; -EBUSY if a file is still open,
 * an anonymous region still exists or spans from upc_get_spans() still
 * hold memory (nothing is freed then).
 */
int upc_cache_destroy(struct upc_cache *cache);

/**
 * struct upc_cache_stats - what a cache holds, from upc_cache_stats().
 * @memory_limit: The limit in bytes.
 * @memory_used: Bytes of folios allocated.
 * @pages_cached: Pages in files' page caches.
 * @files: Open files.
 * @pages_active: Pages on the active LRU lists (file and anon).
 * @pages_inactive: Pages on the inactive LRU lists (file and anon).
 * @evictions: Pages evicted by reclaim (the kernel's pgsteal).
 * @refaults: Pages read back over the shadow their eviction left
 *	(workingset_refault).
 * @refault_activations: Refaulted pages that were part of the working
 *	set and went straight to the active list (workingset_activate).
 * @activations: Pages moved to an active list, by a second use or a
 *	refault (pgactivate).
 * @shadow_nodes: Index nodes that hold only shadow entries.
 * @reclaim_scans: Pages reclaim looked at (pgscan; a large folio counts
 *	its pages).
 * @writebacks: Dirty pages reclaim wrote back: before evicting them,
 *	and the dirty pages that follow those in their file, written with
 *	them in one request and left cached, clean.
 * @anon_regions: Anonymous regions not yet destroyed.
 * @swap_total: Bytes of the swap device (0 without one).
 * @swap_used: Bytes of it in use: holding swapped-out pages, and the
 *	copies @swap_cached counts.
 * @swap_cached: Bytes of @swap_used that hold copies of pages also in
 *	memory: pages of anonymous regions and shmem files swapped in from a
 *	swap file and not written since keep their copy while the file is
 *	less than half in use, so that they go back without a write (the
 *	kernel's SwapCached).
 * @swapins: Pages read back from swap.
 * @swapouts: Pages reclaim swapped out: written to swap and evicted (a
 *	page written but used again before it could go is not counted).
 *
 * The reclaim figures, @swapins and @swapouts among them, count from the
 * cache's creation, across swap devices.  Shmem files'
 * and anonymous regions' pages are evicted only to swap, when the cache
 * has a device (their data lives nowhere else).
 */
struct upc_cache_stats {
	uint64_t memory_limit;
	uint64_t memory_used;
	uint64_t pages_cached;
	uint64_t files;
	uint64_t pages_active;
	uint64_t pages_inactive;
	uint64_t evictions;
	uint64_t refaults;
	uint64_t refault_activations;
	uint64_t activations;
	uint64_t shadow_nodes;
	uint64_t reclaim_scans;
	uint64_t writebacks;
	uint64_t anon_regions;
	uint64_t swap_total;
	uint64_t swap_used;
	uint64_t swapins;
	uint64_t swapouts;
	uint64_t swap_cached;
};

/**
 * upc_cache_stats() - Read a cache's statistics.
 * @cache: The cache.
 * @out: Receives them.
 *
 * Applies the LRU's pending batches first, so that memory held only by
 * them (folios of files closed a moment ago) is not counted as used.
 *
 * Context: Any thread; the figures may be stale at once.
 * Return: 0; -EBADF if @cache is NULL; -EINVAL if @out is NULL.
 */
int upc_cache_stats(struct upc_cache *cache, struct upc_cache_stats *out);

/* ---- swap and anonymous memory ----------------------------------------- */

struct upc_anon;

/**
 * struct upc_swap_config - what upc_swapon() needs.
 * @path: Swap file to use: a regular file, created if missing and grown
 *	to @size if shorter (never shrunk; its first @size bytes are
 *	overwritten as pages go out); NULL for a device in memory (outside
 *	the cache's limit, like a ramdisk).  Nothing else may write or
 *	truncate the file while it is in use: the kernel refuses that for
 *	its swap files, a process cannot, and a page read back from a
 *	range cut off comes back as zeros, not as -EIO.
 * @size: Bytes of swap: a positive multiple of 2 MiB.
 * @space_shift: log2 of the slots (4 KiB each) per swap cache tree, 6
 *	to 30; 0 for the default, 14 (64 MiB per tree).  A folio larger
 *	than a tree's slots (2 MiB ones below 9) never goes to swap
 *	whole: reclaim splits it, and its pages go one at a time.
 * @flags: Must be 0.
 */
struct upc_swap_config {
	const char *path;
	uint64_t size;
	unsigned int space_shift;
	unsigned int flags;
};

/**
 * upc_swapon() - Give a cache a swap device.
 * @cache: The cache.
 * @config: The device.
 *
 * From now on reclaim also evicts the pages of anonymous regions and
 * shmem files, writing them to swap; touching such a page reads it
 * back.  Shmem pages fallocated and never written stay in memory (they
 * hold no data).  A large folio (which a file whose huge policy is not
 * UPC_HUGE_NEVER gets for aligned ranges of 8 KiB and more, up to 2 MiB)
 * goes to swap whole, when the device has that many aligned free slots
 * (and its swap cache trees are as large: see @space_shift), and
 * touching any of its pages brings it back whole; when memory has no
 * free run that large, only the page touched comes back.  A large folio
 * that cannot go whole (no such run of slots is free, or the trees are
 * smaller) is split into 4 KiB pages, which go one at a time.
 *
 * Context: Any thread.
 * Return: 0; -EBADF if @cache is NULL; -EINVAL if @config is NULL, its
 * size is not a positive multiple of 2 MiB or is more than a swap entry
 * can name (2^48 slots of 4 KiB), its shift is out of range or its
 * flags are not 0; -EBUSY if the cache already has a device;
 * -ENOSPC if the process has 32 devices; -ENOMEM; -EINVAL if @path is
 * not a regular file; or the negative errno of opening or growing @path.
 * On an error, a file this call created at @path is removed again.
 */
int upc_swapon(struct upc_cache *cache, const struct upc_swap_config *config);

/**
 * upc_swapoff() - Remove a cache's swap device.
 * @cache: The cache.
 *
 * The swap file is closed, not deleted.  upc_cache_destroy() does this
 * too.
 *
 * Context: Any thread.
 * Return: 0; -EBADF if @cache is NULL; -EINVAL if it has no device;
 * -EBUSY while an anonymous region exists or a file is open (their
 * pages may be in swap, or on their way there).
 */
int upc_swapoff(struct upc_cache *cache);

/**
 * upc_anon_create() - Create an anonymous region: zero-filled memory
 * that swaps out under the cache's limit.
 * @cache: The cache its memory comes from.
 * @size: Its size in bytes, 1 up to UPC_MAX_FILE_SIZE.
 * @out: Receives the region.
 *
 * Pages are allocated when first written.  Without a swap device they
 * are never evicted, and a write that needs memory past the limit
 * fails with -ENOMEM.
 *
 * Context: Any thread.
 * Return: 0; -EBADF if @cache is NULL; -EINVAL if @out is NULL or @size
 * is 0 or too large; -ENOMEM.
 */
int upc_anon_create(struct upc_cache *cache, uint64_t size,
		    struct upc_anon **out);

/**
 * upc_anon_read() - Copy bytes out of an anonymous region.
 * @anon: The region.
 * @buf: Where they go.
 * @count: How many; the read stops at the region's end.
 * @offset: Offset of the first.
 *
 * Pages never written read as zeros; swapped-out pages are swapped in.
 * Each 4 KiB page is read as it was before or after any one write to
 * it, never half written; a read of several pages is atomic per page.
 *
 * Context: Any thread, any number at once.
 * Return: Bytes read (0 at or past the end); -EBADF if @anon is NULL;
 * -EINVAL if @offset is negative; -EFAULT if @buf is NULL and @count is
 * not 0;
 * -ENOMEM or -EIO if swapping in failed before any byte was read.
 */
ssize_t upc_anon_read(struct upc_anon *anon, void *buf, size_t count,
		      int64_t offset);

/**
 * upc_anon_write() - Copy bytes into an anonymous region.
 * @anon: The region.
 * @buf: The bytes.
 * @count: How many; the write stops at the region's end.
 * @offset: Offset of the first.
 *
 * A swapped-out page the write covers only in part is read back from
 * swap first; one it covers whole is not (its slot is freed).
 *
 * Context: Any thread, any number at once.
 * Return: Bytes written (0 at or past the end); -EBADF if @anon is NULL;
 * -EINVAL if @offset is negative; -EFAULT if @buf is NULL and @count is
 * not 0;
 * -ENOMEM (memory and swap are full) or -EIO if that happened before
 * any byte was written.
 */
ssize_t upc_anon_write(struct upc_anon *anon, const void *buf, size_t count,
		       int64_t offset);

/**
 * upc_anon_destroy() - Free a region, its memory and its swap slots.
 * @anon: The region.
 *
 * Context: No other thread may use @anon.
 * Return: 0; -EBADF if @anon is NULL.
 */
int upc_anon_destroy(struct upc_anon *anon);

/* ---- shmem files ------------------------------------------------------- */

#define UPC_SHMEM_HUGE_ADVISED	0x1u	/* huge folios under UPC_HUGE_ADVISE */

/**
 * struct upc_shmem_options - options of upc_shmem_create().
 * @huge: Huge policy; UPC_HUGE_DEFAULT takes the cache's.
 * @flags: UPC_SHMEM_* bits.
 */
struct upc_shmem_options {
	enum upc_huge huge;
	unsigned int flags;
};

/**
 * upc_shmem_create() - Create an empty in-memory file.
 * @cache: The cache its memory comes from.
 * @options: Options, or NULL for the defaults.
 * @out: Receives the file.
 *
 * Context: Any thread.
 * Return: 0; -EBADF if @cache is NULL; -EINVAL if @out is NULL or an
 * option is out of range; -ENOMEM.
 */
int upc_shmem_create(struct upc_cache *cache,
		     const struct upc_shmem_options *options,
		     struct upc_file **out);

/* ---- files backed by a file descriptor ---------------------------------- */

/*
 * UPC_FILE_IO_URING - upc_file_open() flag: writeback sends the dirty
 * pages it writes at once (a sync's up to 256, a reclaim batch's up to
 * 32 with the dirty pages after them; one transfer per run of
 * neighbours) in io_uring submissions of up to 32 transfers instead of
 * one pwritev() per run, where
 * the kernel lets this thread have a ring (else it falls back to
 * pwritev() by itself).  Meant for O_DIRECT files, whose writes then
 * reach the device together.  Off by default, since buffered writes
 * only gain where the file system completes them in line, and ext4 and
 * tmpfs hand them to kernel worker threads.  Measured on Linux 6.18
 * (upcache-bench compare, 4 KiB random writes with fsync=256, that is
 * 256 scattered dirty pages per sync, file_io_uring=0 against 1): with
 * direct=1 on ext4 over a virtual disk, a sync took 6.9 ms with it
 * against 21 ms without; buffered on tmpfs, 1.07 ms against 0.49 ms.
 */
#define UPC_FILE_IO_URING	(1U << 0)

/*
 * UPC_FILE_WRITEBACK_BACKGROUND - upc_file_open() flag: a flusher thread
 * writes dirty pages back while the program goes on, as the kernel's
 * flusher threads do, so that writers seldom meet reclaim that must
 * write before it can free memory.  Writing back starts once writes
 * have dirtied an eighth of the cache's memory limit (as it was at
 * open) since the last pass began, if the cache then has less than
 * that much room left, and goes on while writes keep that pace.  With
 * room to spare nothing starts (unlike the kernel, which writes back
 * past a share of memory, full or not): a file whose pages are
 * rewritten in place would only have them written again and again.  A
 * file dirtied more slowly stays dirty until upc_fsync(), upc_close()
 * or reclaim.  A pass writes at most 4 MiB, then leaves the rest of
 * the file to the next; it leaves pages other threads hold locked,
 * and holds each page only while its stretch of neighbours is written.
 * Its write errors are reported by the file's next upc_fsync() (and
 * upc_close()), as reclaim's are.  upc_close() waits for the file's
 * pass under way (one pass, not other files').  Ignored on a read-only
 * descriptor.  Measured with upcache-bench compare (ext4 over a
 * virtual disk, a 256 MiB file through a 32 MiB cache, without the
 * flag against with it, median of 5 or 7 rounds): O_DIRECT 1 MiB
 * sequential writes 1.21x (rounds 0.47x to 1.43x), 64 KiB random
 * writes 1.34x (0.97x to 1.58x); buffered 1 MiB writes 1.02x, with an
 * fsync every 4 MiB 0.99x; 4 KiB random rewrites of a 16 MiB file,
 * which fits, 1.05x (no pass starts).  The slowest writes may be
 * slower: buffered 1 MiB writes had a 6.5x longer 99.9th percentile.
 */
#define UPC_FILE_WRITEBACK_BACKGROUND	(1U << 1)

/**
 * upc_file_open() - Cache a regular file: open it as a upc_ file.
 * @cache: The cache its pages are kept in (under its memory limit).
 * @fd: The file: open for reading (O_RDONLY) or reading and writing
 *	(O_RDWR), without O_APPEND.  It stays the caller's: upc_close()
 *	does not close it, and it must stay open until then.  With
 *	O_DIRECT the cache is the file's only cache (pages are read and
 *	written whole, aligned), as a database wants; the page holding
 *	the end of the data, which direct I/O cannot write cut short, is
 *	written through @fd with O_DIRECT cleared for the while and
 *	flushed to the device at once.  No other descriptor of the file
 *	is opened or closed, so the caller's POSIX record locks hold.
 * @flags: 0, or UPC_FILE_IO_URING and UPC_FILE_WRITEBACK_BACKGROUND.
 * @out: Receives the file.
 *
 * Reads that miss read the file (pread()); writes go to the cache and
 * reach the file when upc_fsync() or upc_close() writes them back,
 * when reclaim evicts them under the memory limit, or, with
 * UPC_FILE_WRITEBACK_BACKGROUND, when a flusher thread writes them.
 * While the upc_ file is open it must be the file's only user: changes
 * made through other descriptors are not seen by pages already cached,
 * and may be overwritten by writeback; and @fd itself is the cache's
 * (to read, write or sync it beside the cache is to race with
 * writeback; with O_DIRECT, the cache clears the flag for its tail
 * writes).  Every call of the upc_ file API works on it; upc_fallocate()
 * passes the tmpfs modes on to the file's file system.
 *
 * Context: Any thread.
 * Return: 0; -EBADF if @cache is NULL, or @fd is not open or is open
 * only for writing; -EINVAL if @out is NULL, @flags has an unknown bit,
 * or @fd is not a regular file, has O_APPEND, or has O_DIRECT on a file
 * whose direct I/O needs more than page alignment (or that says it
 * takes none: statx() STATX_DIOALIGN); -ENOMEM; the error of fstat() or
 * statx().
 */
int upc_file_open(struct upc_cache *cache, int fd, unsigned int flags,
		  struct upc_file **out);

/**
 * upc_fsync() - Write a file's dirty data back and flush it (fsync()).
 * @file: The file.
 *
 * For a file from upc_file_open(): every dirty page is written to the
 * file, writebacks reclaim has running are waited for, then fsync()
 * flushes the file.  A page that cannot be written stays dirty in the
 * cache (its data is not dropped) and is tried again by the next
 * writeback; its error is reported once to this handle, whether this
 * call or reclaim met it.  Such pages keep their memory until they are
 * written or truncated away: pages the file system never takes (past
 * its largest file size) fill the cache.  Writeback past RLIMIT_FSIZE
 * fails with EFBIG and, as for any write(), raises SIGXFSZ, which kills
 * the process unless it is ignored or caught; reclaim may write back in
 * any thread that allocates.  For an in-memory file there is nothing to
 * write, as on tmpfs.
 *
 * Threads syncing one handle at once write back in turn (each error is
 * reported once per handle, as the kernel's f_lock has it), and flush
 * side by side, so that the file system can commit their flushes
 * together.
 *
 * Context: Any thread.
 * Return: 0; -EBADF if @file is NULL; the first error writing a page
 * back (pwrite()'s errno: -EIO, -ENOSPC, -EFBIG past the file system's
 * or RLIMIT_FSIZE's limit, ...); else a writeback error met since this
 * handle's last upc_fsync() (reclaim's, or another call's), reported
 * once; fsync()'s error.
 */
int upc_fsync(struct upc_file *file);

/**
 * upc_fdatasync() - upc_fsync(), flushing with fdatasync().
 * @file: The file.
 *
 * Context: Any thread.
 * Return: As upc_fsync().
 */
int upc_fdatasync(struct upc_file *file);

/* The largest file size, in bytes (the kernel's MAX_LFS_FILESIZE). */
#define UPC_MAX_FILE_SIZE	INT64_MAX

/**
 * upc_read() - Read from a file at an offset (pread()).
 * @file: The file.
 * @buf: Where the bytes go.
 * @count: How many to read.
 * @offset: File offset.
 *
 * Holes and allocated-but-unwritten ranges read as zeros.  Reading at or
 * past the end of the file returns 0.  A write, truncation or fallocate
 * running at the same time is seen whole or not at all.  For a file from
 * upc_file_open(), pages not cached are read from the file.
 *
 * Context: Any thread.
 * Return: Bytes read (short at the end of the file, or before a page in
 * swap that could not be read back); -EBADF if @file is NULL; -EFAULT if
 * @buf is NULL and @count is not 0; -EINVAL if @offset is negative or
 * @offset + @count passes INT64_MAX (as Linux's rw_verify_area());
 * -ENOMEM if the first page wanted is in swap and no memory could be
 * found for it (the cache's memory is full of pages that cannot go to
 * swap now, or the swap device is full too); -EIO if it could not be
 * read from the swap file (it stays there); for a file from
 * upc_file_open(), the error of reading the first page wanted from the
 * file (pread()'s errno), or -ENOMEM if no memory could be found for it
 * (the cache's memory is full of dirty pages that writeback could not
 * write).
 */
ssize_t upc_read(struct upc_file *file, void *buf, size_t count,
		 int64_t offset);

/**
 * upc_write() - Write to a file at an offset (pwrite()).
 * @file: The file.
 * @buf: The bytes.
 * @count: How many.
 * @offset: File offset; the file grows to cover what is written.
 *
 * Writing 0 bytes changes nothing and returns 0.
 *
 * Context: Any thread.
 * Return: Bytes written (short when memory ran out part-way); -EBADF;
 * -EFAULT if @buf is NULL and @count is not 0; -EINVAL if @offset is
 * negative or @offset + @count passes INT64_MAX (as upc_read()); -EFBIG
 * if @offset is at or past UPC_MAX_FILE_SIZE (a write reaching past it
 * is cut short; with the limit at INT64_MAX the -EINVAL rule comes
 * first); -ENOSPC if the cache's memory is full, of pages that cannot
 * go to swap (see upc_swapon()) or with the swap device full too, and
 * nothing could be written; -ENOMEM if other memory (the page cache's
 * index) ran out and nothing could be written; -EIO if a page the write
 * covers is in swap and could not be read back, and nothing was written.
 * For a file from upc_file_open(): -EBADF also if it is open read-only;
 * the error of reading a page the write covers in part from the file,
 * if nothing was written; -ENOSPC also if the cache's memory is full of
 * dirty pages that writeback could not write.  The file system's own
 * limits (space, size) are met at writeback: upc_fsync() reports them.
 */
ssize_t upc_write(struct upc_file *file, const void *buf, size_t count,
		  int64_t offset);

/**
 * upc_readv() - upc_read() into several buffers (preadv()).
 * @file: The file.
 * @iov: The buffers.
 * @iovcnt: How many, 0..IOV_MAX.
 * @offset: File offset.
 *
 * The whole call is one read: no write is seen half done.  @iov is
 * copied first, as the kernel copies it, so a thread changing the array
 * during the call cannot make it read past the lengths checked.
 *
 * Context: Any thread.
 * Return: As upc_read(), with the total length as @count; -EINVAL also
 * for @iovcnt out of range or a total length above SSIZE_MAX; -EFAULT
 * if @iov is NULL and @iovcnt is not 0, or a buffer is NULL and its
 * length is not 0; -ENOMEM also if there is no memory for the copy of
 * more than 8 iovecs.
 */
ssize_t upc_readv(struct upc_file *file, const struct iovec *iov, int iovcnt,
		  int64_t offset);

/**
 * upc_writev() - upc_write() from several buffers (pwritev()).
 * @file: The file.
 * @iov: The buffers.
 * @iovcnt: How many, 0..IOV_MAX.
 * @offset: File offset.
 *
 * The whole call is one write: no read sees it half done.  @iov is
 * copied first, as for upc_readv().
 *
 * Context: Any thread.
 * Return: As upc_write(), with the total length as @count; -EINVAL also
 * for @iovcnt out of range or a total length above SSIZE_MAX; -EFAULT
 * and -ENOMEM as upc_readv().
 */
ssize_t upc_writev(struct upc_file *file, const struct iovec *iov, int iovcnt,
		   int64_t offset);

/**
 * upc_fallocate() - Allocate or punch a range (fallocate()).
 * @file: The file.
 * @mode: 0, FALLOC_FL_KEEP_SIZE, or FALLOC_FL_PUNCH_HOLE |
 *	FALLOC_FL_KEEP_SIZE (from <linux/falloc.h>), as tmpfs supports.
 * @offset: Start of the range.
 * @len: Its length, above 0.
 *
 * Allocation leaves the range reading as zeros; mode 0 extends the size.
 * As on tmpfs, newly allocated ranges stay holes for upc_seek_data() and
 * upc_seek_hole() until written, while allocating again over a range
 * that an earlier call allocated and nothing wrote turns it into zeroed
 * data.  Punching frees the range (partial folios are zeroed).
 *
 * Context: Any thread.
 * Return: 0; -EBADF; -EINVAL if @offset is negative or @len is not
 * positive; -EOPNOTSUPP for any other mode; -EFBIG if the range ends
 * past UPC_MAX_FILE_SIZE (checked, as on tmpfs, before -EOPNOTSUPP for
 * the other single operations Linux's VFS passes on: ZERO_RANGE,
 * COLLAPSE_RANGE, INSERT_RANGE, UNSHARE_RANGE and WRITE_ZEROES, with
 * KEEP_SIZE where they take it; WRITE_ZEROES as Linux 6.17 and later
 * answer it); -ENOSPC if the range is larger than the
 * cache's memory or memory ran out; -ENOMEM if other memory (the page
 * cache's index) ran out, or a page in swap that a punch covers in part
 * could not be brought back to be zeroed in part; -EIO if a page in
 * swap that the range covers could not be read back.  On failure, what
 * the call allocated is freed again and the size is unchanged, as on
 * tmpfs; a failed punch changed nothing.  For a file from
 * upc_file_open(), the call is passed on to fallocate() on the file; a
 * punch first writes the range's dirty pages back (so that a refused
 * punch loses nothing), and drops the range from the cache once the
 * file is punched: -EBADF if it is open read-only; a writeback error
 * (as upc_fsync(); nothing was punched); fallocate()'s error.
 */
int upc_fallocate(struct upc_file *file, int mode, int64_t offset,
		  int64_t len);

/**
 * upc_truncate() - Set a file's size (ftruncate()).
 * @file: The file.
 * @size: New size; shrinking frees what lies past it and zeroes the tail
 *	of the last page, growing leaves a hole.  As on tmpfs, setting the
 *	size it already has frees what upc_fallocate() with
 *	FALLOC_FL_KEEP_SIZE allocated past the end.
 *
 * Context: Any thread.
 * Return: 0; -EBADF; -EINVAL if @size is negative; -ENOMEM or -EIO if
 * the page @size falls in is in swap and could not be brought back to
 * zero its tail (nothing changed).  No int64_t is above
 * UPC_MAX_FILE_SIZE, so an in-memory file takes any other size.  For a
 * file from upc_file_open(), the file is cut or grown too: -EINVAL if
 * it is open read-only (as ftruncate() answers); ftruncate()'s error
 * (-EFBIG past the file system's largest file size or RLIMIT_FSIZE,
 * -EPERM for a seal, ...), with nothing changed (or, if the file system
 * refuses a second cut made after writebacks past the new size, with
 * the cache truncated and the file perhaps still longer).
 */
int upc_truncate(struct upc_file *file, int64_t size);

/**
 * upc_size() - A file's size.
 * @file: The file.
 *
 * Context: Any thread.
 * Return: The size in bytes; -EBADF if @file is NULL.
 */
int64_t upc_size(struct upc_file *file);

/**
 * upc_seek_data() - The first offset at or after @offset that holds data
 * (lseek(SEEK_DATA)).
 * @file: The file.
 * @offset: Where to start.
 *
 * Ranges allocated by upc_fallocate() and never written are holes, as
 * tmpfs reports them (their folios are not uptodate).
 *
 * Context: Any thread.
 * For a file from upc_file_open(), dirty pages are written back and
 * the file's own lseek() answers (the descriptor's file offset is put
 * back where it was).
 *
 * Return: The offset; -ENXIO if @offset is negative (as on tmpfs), at or
 * past the end of the file, or no data follows it; -EBADF; for a file
 * from upc_file_open(), a writeback error (as upc_fsync()).
 */
int64_t upc_seek_data(struct upc_file *file, int64_t offset);

/**
 * upc_seek_hole() - The first offset at or after @offset in a hole
 * (lseek(SEEK_HOLE)); the end of the file counts as a hole.
 * @file: The file.
 * @offset: Where to start.
 *
 * Context: Any thread.
 * Return: The offset; -ENXIO if @offset is negative (as on tmpfs), or at
 * or past the end of the file; -EBADF; a writeback error, as
 * upc_seek_data().
 */
int64_t upc_seek_hole(struct upc_file *file, int64_t offset);

/**
 * upc_close() - Close a file and free everything it holds.
 * @file: The file.
 *
 * A file from upc_file_open() has its dirty pages written back first
 * (not flushed with fsync(): call upc_fsync() for that); the file
 * descriptor stays open.  The file is closed even if writing back
 * failed, and the data that could not be written is then lost: call
 * upc_fsync() first to keep the file open while it fails.
 *
 * Context: No other thread may use @file during or after the call.
 * Return: 0; -EBADF if @file is NULL; for a file from upc_file_open(),
 * the first error writing back, or one met earlier that this handle has
 * not reported (as upc_fsync()).
 */
int upc_close(struct upc_file *file);

/* ---- zero-copy access -------------------------------------------------- */

/**
 * struct upc_span - a piece of a file's cached data, read in place.
 * @data: Where its bytes are, or NULL for a hole (zeros).
 * @offset: File offset of its first byte.
 * @len: Its length in bytes.
 * @folio: Private: the folio @data belongs to.
 */
struct upc_span {
	const void *data;
	int64_t offset;
	size_t len;
	void *folio;
};

/**
 * upc_get_spans() - Pin the data of a range for reading in place.
 * @file: The file.
 * @offset: Start of the range.
 * @len: Its length; the range is cut at the end of the file.
 * @spans: Receives the pieces, in order.
 * @max_spans: Room in @spans.
 *
 * Each span with data holds a reference on its folio, so the bytes stay
 * valid (a concurrent write may change them; a truncate does not free
 * them) until upc_put_spans().  Ranges with no data (holes, and ranges
 * allocated but never written) come back as spans with NULL @data, one
 * span for a whole run of them.  In a file from upc_file_open() every
 * span has data: pages not cached are read from the file first (with
 * readahead), and the file's holes read as zeros.
 *
 * Context: Any thread.
 * Return: The number of spans filled (fewer than needed when @max_spans
 * ran out: call again from the end of the last one); 0 at or past the
 * end of the file; -EBADF; -EINVAL if @offset is negative or @spans is
 * NULL with @max_spans not 0; -ENOMEM or -EIO if the first page with
 * data is in swap and could not be brought back (as upc_read());
 * -EOVERFLOW if the first page with data is held by so many spans
 * (about a million) that it can take no more; for a file from
 * upc_file_open(), the error of reading its first page (as upc_read()).
 */
int upc_get_spans(struct upc_file *file, int64_t offset, size_t len,
		  struct upc_span *spans, unsigned int max_spans);

/**
 * upc_put_spans() - Release spans from upc_get_spans().
 * @spans: The spans.
 * @nr: How many.
 *
 * Each span is cleared as it is released, so calling this twice on the
 * same array is harmless.  Releasing one span twice otherwise (through
 * a copy of it, or from two threads) is the caller's bug, as free()
 * twice is: it drops a reference the file itself holds, and the memory
 * may then be reused while the file still uses it (the debug build
 * aborts when the page is freed in that state).
 *
 * Context: Any thread.
 */
void upc_put_spans(struct upc_span *spans, unsigned int nr);

#ifdef __cplusplus
}
#endif

#endif /* UPCACHE_UPCACHE_H */
