/* SPDX-License-Identifier: MIT */
/*
 * api/internal.h - what the files of api/ share, and what tests may look
 * at behind the public handles (the file's page cache, for
 * upc_check_mapping()).  Not installed.
 *
 * Handles.  struct upc_cache and struct upc_file start with a magic
 * number.  Debug builds (UPC_DEBUG) check it on every call and poison
 * it when the handle is destroyed, so that a call on a closed handle
 * returns -EBADF instead of touching freed memory.  This is best-effort
 * (a debugging aid, not a guarantee): the freed handle is kept in a
 * small quarantine (api/handle.c) so that reading its magic stays
 * valid, and once UPC_HANDLE_QUARANTINE later handles have been retired
 * it really is freed and a stale pointer is undefined behaviour again,
 * as it always is in release builds, which check only for NULL.
 */
#ifndef UPCACHE_API_INTERNAL_H
#define UPCACHE_API_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/queue.h>

#include <upcache/upcache.h>

#include <upcache/swap.h>

#include "mm/fdfile.h"
#include "mm/shmem.h"

#define UPC_CACHE_MAGIC		0x75704361u	/* "upCa" */
#define UPC_FILE_MAGIC		0x75704669u	/* "upFi" */
#define UPC_ANON_MAGIC		0x75704161u	/* "upAa" */
#define UPC_HANDLE_POISON	0xdeadbeefu
#define UPC_HANDLE_QUARANTINE	256

/**
 * struct upc_cache - a cache: its memory and its open files.
 * @magic: UPC_CACHE_MAGIC while it lives.
 * @arena: The memory its files' folios come from (fixed).
 * @memory_limit: Its size in bytes (fixed).
 * @huge: Default huge policy of its shmem files (fixed).
 * @lock: Guards @files, @nr_files, @nr_anon, @swap, @swap_fd and
 *	@swapins_before.
 * @files: Open files.
 * @nr_files: How many.
 * @nr_anon: Anonymous regions not yet destroyed.
 * @swap: The swap device (upc_swapon()), or NULL.
 * @swap_fd: Its file, or -1 (no device, or one in memory).
 * @swapins_before: Pages swapped in from devices switched off since,
 *	so that the swap-in figure counts from the cache's creation.
 */
struct upc_cache {
	unsigned int magic;
	struct upc_arena *arena;
	size_t memory_limit;
	enum upc_huge huge;
	pthread_mutex_t lock;
	LIST_HEAD(upc_file_list, upc_file) files;
	unsigned long nr_files;
	unsigned long nr_anon;
	struct swap_info_struct *swap;
	int swap_fd;
	uint64_t swapins_before;
};

/* What is behind a struct upc_file. */
enum upc_file_kind {
	UPC_FILE_SHMEM,		/* upc_shmem_create(): in memory */
	UPC_FILE_FD,		/* upc_file_open(): a file descriptor */
};

/**
 * struct upc_file - an open file.
 * @magic: UPC_FILE_MAGIC while it is open.
 * @kind: Which member of the union it is (fixed).
 * @cache: Its cache (fixed).
 * @link: On @cache->files, under @cache->lock.
 * @wb_since: Writeback errors this handle has reported (UPC_FILE_FD;
 *	the mapping's errseq_t as of the last upc_fsync()), under @wb_lock.
 * @wb_lock: Serialises the data part of this handle's fsyncs
 *	(UPC_FILE_FD): fd_file_write_back(), which reports each writeback
 *	error once; their flushes run side by side.
 * @shmem: The in-memory file.
 * @fdf: The cache in front of a file descriptor.
 */
struct upc_file {
	unsigned int magic;
	enum upc_file_kind kind;
	struct upc_cache *cache;
	LIST_ENTRY(upc_file) link;
	errseq_t wb_since;
	pthread_mutex_t wb_lock;
	union {
		struct shmem_file shmem;
		struct fd_file fdf;
	};
};

/**
 * struct upc_anon - an anonymous region.
 * @magic: UPC_ANON_MAGIC until it is destroyed.
 * @cache: Its cache (fixed).
 * @region: The memory.
 */
struct upc_anon {
	unsigned int magic;
	struct upc_cache *cache;
	struct anon_region region;
};

/* upc_handle_ok() - Is @magic, read from a non-NULL handle, @want? */
static inline bool upc_handle_ok(const unsigned int *magic, unsigned int want)
{
#ifdef UPC_DEBUG
	return *magic == want;
#else
	(void)magic;
	(void)want;
	return true;
#endif
}

/* upc_file_ok() - May @file be used?  (NULL, or closed in debug builds.) */
static inline bool upc_file_ok(const struct upc_file *file)
{
	return file && upc_handle_ok(&file->magic, UPC_FILE_MAGIC);
}

/* upc_anon_ok() - May @anon be used?  (NULL, or destroyed in debug builds.) */
static inline bool upc_anon_ok(const struct upc_anon *anon)
{
	return anon && upc_handle_ok(&anon->magic, UPC_ANON_MAGIC);
}

/* upc_cache_ok() - May @cache be used? */
static inline bool upc_cache_ok(const struct upc_cache *cache)
{
	return cache && upc_handle_ok(&cache->magic, UPC_CACHE_MAGIC);
}

/* upc_file_mapping() - The page cache of an open file (for tests). */
static inline struct address_space *upc_file_mapping(struct upc_file *file)
{
	return file->kind == UPC_FILE_FD ? &file->fdf.mapping :
					   &file->shmem.mapping;
}

/* upc_file_read_only() - Is @file an fd file open only for reading? */
static inline bool upc_file_read_only(const struct upc_file *file)
{
	return file->kind == UPC_FILE_FD && !file->fdf.writable;
}

/* upc_file_shmem() - The in-memory file behind @file, or NULL. */
static inline struct shmem_file *upc_file_shmem(struct upc_file *file)
{
	return file->kind == UPC_FILE_SHMEM ? &file->shmem : NULL;
}

/**
 * upc_handle_retire() - Free a handle, poisoning it first.
 * @handle: The handle (allocated with malloc()).
 * @magic: Its magic number, set to UPC_HANDLE_POISON.
 *
 * Debug builds keep it in the quarantine instead of freeing it at once.
 *
 * Context: Any thread; the handle is no longer used by anyone.
 */
void upc_handle_retire(void *handle, unsigned int *magic);

/**
 * upc_cache_add_file() - Count @file among @cache's open files.
 * @cache: The cache.
 * @file: A file being opened.
 *
 * A cache with swap makes a shmem file evictable (shmem_set_evictable());
 * upc_swapon() does it for the files already open.
 *
 * Context: Takes @cache->lock.
 */
void upc_cache_add_file(struct upc_cache *cache, struct upc_file *file);

/**
 * upc_cache_del_file() - Take a file that is being closed off its
 * cache's list, so that upc_swapon() no longer looks at it.
 * @cache: The cache.
 * @file: The file.
 *
 * It still counts as open until upc_cache_file_closed().
 *
 * Context: Takes @cache->lock.
 */
void upc_cache_del_file(struct upc_cache *cache, struct upc_file *file);

/**
 * upc_cache_file_closed() - A file taken off the list is gone: its
 * memory and its swap slots are free.
 * @cache: The cache.
 *
 * Until then upc_swapoff() answers -EBUSY: reclaim may still be sending
 * the file's pages to the swap device.
 *
 * Context: Takes @cache->lock.
 */
void upc_cache_file_closed(struct upc_cache *cache);

/**
 * upc_cache_swapoff() - Destroy a cache's swap device, if it has one.
 * @cache: The cache.
 *
 * Context: Holds @cache->lock.
 * Return: 0; -EBUSY if slots are in use.
 */
int upc_cache_swapoff(struct upc_cache *cache);

#endif /* UPCACHE_API_INTERNAL_H */
