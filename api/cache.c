// SPDX-License-Identifier: MIT
/*
 * api/cache.c - caches: creation, destruction, statistics, and the list
 * of open files (include/upcache/upcache.h).
 *
 * A cache is an arena (its memory limit) with reclaim attached (its
 * lruvec: LRU lists, direct reclaim when an allocation would pass the
 * limit, shadow entries) plus the files using it.  Its statistics come
 * from the arena (memory charged), the lruvec (lists, evictions,
 * refaults) and each open file's page cache (pages cached, read under
 * the mapping's i_pages lock that guards nrpages).
 *
 * The LRU's add batches hold a reference on each folio until they are
 * applied, so the charge a closed file leaves behind only drops to zero
 * after a drain: statistics and destruction drain first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <upcache/vmscan.h>

#include "fault.h"
#include "internal.h"

static bool upc_config_valid(const struct upc_cache_config *config)
{
	size_t limit = config->memory_limit;

	return limit && !(limit % UPC_HUGE_SIZE) &&
	       (unsigned int)config->huge <= UPC_HUGE_ADVISE && !config->flags;
}

int upc_cache_create(const struct upc_cache_config *config,
		     struct upc_cache **out)
{
	struct upc_cache *cache;
	int err;

	if (!config || !out || !upc_config_valid(config))
		return -EINVAL;
	cache = upc_fault_should_fail() ? NULL : calloc(1, sizeof(*cache));
	if (!cache)
		return -ENOMEM;
	err = upc_arena_create(config->memory_limit, &cache->arena);
	if (err) {
		free(cache);
		return err;
	}
	err = upc_reclaim_init(cache->arena);
	if (err) {
		upc_arena_destroy(cache->arena);
		free(cache);
		return err;
	}
	cache->memory_limit = config->memory_limit;
	cache->huge = config->huge == UPC_HUGE_DEFAULT ? UPC_HUGE_NEVER :
							 config->huge;
	pthread_mutex_init(&cache->lock, NULL);
	LIST_INIT(&cache->files);
	cache->swap_fd = -1;
	cache->magic = UPC_CACHE_MAGIC;
	*out = cache;
	return 0;
}

int upc_cache_destroy(struct upc_cache *cache)
{
	bool busy;

	if (!upc_cache_ok(cache))
		return -EBADF;
	/* Spans still held after their file closed pin arena memory too. */
	lru_add_drain_all(cache->arena);
	pthread_mutex_lock(&cache->lock);
	busy = cache->nr_files || cache->nr_anon ||
	       upc_arena_charged(cache->arena);
	/* No region is left, so no slot should be in use. */
	if (!busy)
		busy = upc_cache_swapoff(cache) != 0;
	pthread_mutex_unlock(&cache->lock);
	if (busy)
		return -EBUSY;
	upc_reclaim_destroy(cache->arena);
	upc_arena_destroy(cache->arena);
	pthread_mutex_destroy(&cache->lock);
	upc_handle_retire(cache, &cache->magic);
	return 0;
}

/* Pages cached by @file, read under the lock that guards the count. */
static unsigned long upc_file_nrpages(struct upc_file *file)
{
	struct address_space *mapping = upc_file_mapping(file);
	unsigned long nr;

	xa_lock(&mapping->i_pages);
	nr = mapping->nrpages;
	xa_unlock(&mapping->i_pages);
	return nr;
}

/* The reclaim figures of @cache into @out. */
static void upc_cache_reclaim_stats(struct upc_cache *cache,
				    struct upc_cache_stats *out)
{
	struct upc_reclaim_stats rs;

	if (upc_reclaim_stats_read(cache->arena, &rs))
		return;
	out->pages_active = rs.nr_active_file + rs.nr_active_anon;
	out->pages_inactive = rs.nr_inactive_file + rs.nr_inactive_anon;
	out->evictions = rs.pgsteal;
	out->refaults = rs.workingset_refault;
	out->refault_activations = rs.workingset_activate;
	out->activations = rs.pgactivate;
	out->shadow_nodes = rs.nr_shadow_nodes;
	out->reclaim_scans = rs.pgscan;
	out->writebacks = rs.nr_vmscan_write;
	out->swapouts = rs.pswpout;
}

/* The swap figures of @cache into @out.  Holds @cache->lock. */
static void upc_cache_swap_stats(struct upc_cache *cache,
				 struct upc_cache_stats *out)
{
	struct swap_info_struct *si = cache->swap;

	out->swapins = cache->swapins_before;
	if (!si)
		return;
	upc_lock(&si->lock);
	out->swap_used = (uint64_t)si->inuse_pages << UPC_PAGE_SHIFT;
	upc_unlock(&si->lock);
	out->swap_total = (uint64_t)si->max << UPC_PAGE_SHIFT;
	out->swap_cached = (uint64_t)__atomic_load_n(&si->nr_kept,
						     __ATOMIC_RELAXED)
			   << UPC_PAGE_SHIFT;
	out->swapins += __atomic_load_n(&si->pswpin, __ATOMIC_RELAXED);
}

int upc_cache_stats(struct upc_cache *cache, struct upc_cache_stats *out)
{
	struct upc_file *file;
	uint64_t pages = 0;

	if (!upc_cache_ok(cache))
		return -EBADF;
	if (!out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	lru_add_drain_all(cache->arena);
	upc_cache_reclaim_stats(cache, out);
	pthread_mutex_lock(&cache->lock);
	LIST_FOREACH(file, &cache->files, link)
		pages += upc_file_nrpages(file);
	out->files = cache->nr_files;
	out->anon_regions = cache->nr_anon;
	upc_cache_swap_stats(cache, out);
	pthread_mutex_unlock(&cache->lock);
	out->pages_cached = pages;
	out->memory_limit = cache->memory_limit;
	out->memory_used = (uint64_t)upc_arena_charged(cache->arena) <<
			   UPC_PAGE_SHIFT;
	return 0;
}

void upc_cache_add_file(struct upc_cache *cache, struct upc_file *file)
{
	pthread_mutex_lock(&cache->lock);
	/* Not shared yet; under the lock, so a swapon sees it or sets it. */
	if (cache->swap && upc_file_shmem(file))
		shmem_set_evictable(upc_file_shmem(file), true);
	LIST_INSERT_HEAD(&cache->files, file, link);
	cache->nr_files++;
	pthread_mutex_unlock(&cache->lock);
}

void upc_cache_del_file(struct upc_cache *cache, struct upc_file *file)
{
	pthread_mutex_lock(&cache->lock);
	LIST_REMOVE(file, link);
	pthread_mutex_unlock(&cache->lock);
}

void upc_cache_file_closed(struct upc_cache *cache)
{
	pthread_mutex_lock(&cache->lock);
	cache->nr_files--;
	pthread_mutex_unlock(&cache->lock);
}
