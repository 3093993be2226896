// SPDX-License-Identifier: MIT
/*
 * api/anon.c - swap devices and anonymous regions behind the upc_ API
 * (include/upcache/upcache.h): argument checks, the swap file's life,
 * and the count of regions that keeps a device from going while pages
 * may be on it.  mm/swapfile.c, mm/swap_state.c and mm/anon.c do the
 * work.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fault.h"
#include "internal.h"

/* ---- swap ---------------------------------------------------------------- */

static bool upc_swap_config_valid(const struct upc_swap_config *config)
{
	unsigned int shift = config->space_shift;

	return config->size && !(config->size % UPC_HUGE_SIZE) &&
	       config->size <= (UPC_PAGE_SIZE << SWP_OFFSET_BITS) &&
	       !config->flags &&
	       (!shift || (shift >= SWAP_SPACE_SHIFT_MIN &&
			   shift <= SWAP_SPACE_SHIFT_MAX));
}

/*
 * Open the swap file, creating it if there is none (*@created says so),
 * and grow it to @size if it is shorter.  It is never shrunk: a wrong
 * path must not cost a file its tail.  Only a regular file will do.  A
 * file made here is removed again if it cannot be used.  Return: the
 * descriptor, or -errno.
 */
static int upc_swap_open(const char *path, uint64_t size, bool *created)
{
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	struct stat st;
	int err = 0;

	*created = fd >= 0;
	if (fd < 0 && errno == EEXIST)
		fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st))
		err = -errno;
	else if (!S_ISREG(st.st_mode))
		err = -EINVAL;
	else if ((uint64_t)st.st_size < size && ftruncate(fd, (off_t)size))
		err = -errno;
	if (err) {
		close(fd);
		if (*created)
			unlink(path);
		return err;
	}
	return fd;
}

int upc_swapon(struct upc_cache *cache, const struct upc_swap_config *config)
{
	struct upc_file *file;
	bool created = false;
	unsigned int shift;
	int fd = -1, err;

	if (!upc_cache_ok(cache))
		return -EBADF;
	if (!config || !upc_swap_config_valid(config))
		return -EINVAL;
	shift = config->space_shift ? config->space_shift :
				      SWAP_ADDRESS_SPACE_SHIFT;
	pthread_mutex_lock(&cache->lock);
	err = -EBUSY;
	if (cache->swap)
		goto unlock;
	/* Before reclaim can swap: readers must take the evict lock. */
	LIST_FOREACH(file, &cache->files, link)
		if (upc_file_shmem(file))
			shmem_set_evictable(upc_file_shmem(file), true);
	if (config->path) {
		fd = upc_swap_open(config->path, config->size, &created);
		err = fd;
		if (fd < 0)
			goto unlock;
	}
	err = swap_device_create(cache->arena, fd, config->size, shift,
				 &cache->swap);
	if (err) {
		if (fd >= 0)
			close(fd);
		if (created)
			unlink(config->path);
		goto unlock;
	}
	cache->swap_fd = fd;
unlock:
	/* No device: nothing can go to swap, readers can skip the lock. */
	if (!cache->swap)
		LIST_FOREACH(file, &cache->files, link)
			if (upc_file_shmem(file))
				shmem_set_evictable(upc_file_shmem(file),
						    false);
	pthread_mutex_unlock(&cache->lock);
	return err;
}

int upc_cache_swapoff(struct upc_cache *cache)
{
	uint64_t swapins;
	int err;

	if (!cache->swap)
		return 0;
	swapins = __atomic_load_n(&cache->swap->pswpin, __ATOMIC_RELAXED);
	err = swap_device_destroy(cache->swap);
	if (err)
		return err;
	cache->swapins_before += swapins;
	cache->swap = NULL;
	if (cache->swap_fd >= 0)
		close(cache->swap_fd);
	cache->swap_fd = -1;
	return 0;
}

int upc_swapoff(struct upc_cache *cache)
{
	int err;

	if (!upc_cache_ok(cache))
		return -EBADF;
	pthread_mutex_lock(&cache->lock);
	if (!cache->swap)
		err = -EINVAL;
	else if (cache->nr_anon || cache->nr_files)
		err = -EBUSY;	/* their pages may be in swap, or on their way */
	else
		err = upc_cache_swapoff(cache);
	pthread_mutex_unlock(&cache->lock);
	return err;
}

/* ---- regions ------------------------------------------------------------- */

int upc_anon_create(struct upc_cache *cache, uint64_t size,
		    struct upc_anon **out)
{
	struct upc_anon *anon;

	if (!upc_cache_ok(cache))
		return -EBADF;
	if (!out || !size || size > (uint64_t)UPC_MAX_FILE_SIZE)
		return -EINVAL;
	anon = upc_fault_should_fail() ? NULL : calloc(1, sizeof(*anon));
	if (!anon)
		return -ENOMEM;
	anon_region_init(&anon->region, cache->arena, size);
	anon->cache = cache;
	anon->magic = UPC_ANON_MAGIC;
	pthread_mutex_lock(&cache->lock);
	cache->nr_anon++;
	pthread_mutex_unlock(&cache->lock);
	*out = anon;
	return 0;
}

/*
 * The checks upc_anon_read() and upc_anon_write() share, in upc_read()'s
 * order: the handle, the offset, then the buffer (-EFAULT, as pread()
 * answers a bad buffer).
 */
static int upc_anon_rw_check(struct upc_anon *anon, const void *buf,
			     size_t count, int64_t offset)
{
	if (!upc_anon_ok(anon))
		return -EBADF;
	if (offset < 0)
		return -EINVAL;
	if (!buf && count)
		return -EFAULT;
	return 0;
}

ssize_t upc_anon_read(struct upc_anon *anon, void *buf, size_t count,
		      int64_t offset)
{
	int err = upc_anon_rw_check(anon, buf, count, offset);

	if (err)
		return err;
	return anon_region_read(&anon->region, buf, count, (uint64_t)offset);
}

ssize_t upc_anon_write(struct upc_anon *anon, const void *buf, size_t count,
		       int64_t offset)
{
	int err = upc_anon_rw_check(anon, buf, count, offset);

	if (err)
		return err;
	return anon_region_write(&anon->region, buf, count, (uint64_t)offset);
}

int upc_anon_destroy(struct upc_anon *anon)
{
	struct upc_cache *cache;

	if (!upc_anon_ok(anon))
		return -EBADF;
	cache = anon->cache;
	anon_region_destroy(&anon->region);
	pthread_mutex_lock(&cache->lock);
	cache->nr_anon--;
	pthread_mutex_unlock(&cache->lock);
	upc_handle_retire(anon, &anon->magic);
	return 0;
}
