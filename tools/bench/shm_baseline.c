// SPDX-License-Identifier: MIT
/*
 * tools/bench/shm_baseline.c - shmem's per-page read path from before
 * seed 002, timed against the library's by the shmem suite
 * (shm_baseline.h).
 *
 * Written from the seed's description of the loop it replaced, against
 * upcache's page cache API; nothing here is used by the library.
 * Conventions as in mm/shmem.c: @sf the file, @pos a byte offset.
 */
#include <pthread.h>
#include <string.h>

#include <upcache/filemap.h>

#include "shm_baseline.h"

/*
 * before_read_page() - Copy or zero the part of page @index that
 * [@pos, @pos + @len) covers; the range lies inside that page.
 */
static void before_read_page(struct shmem_file *sf, unsigned char *dst,
			     int64_t pos, size_t len)
{
	pgoff_t index = (pgoff_t)pos >> UPC_PAGE_SHIFT;
	struct folio *folio = filemap_get_entry(&sf->mapping, index);

	/* A value entry is a page in swap: the suite runs without swap. */
	if (folio && !xa_is_value(folio) && folio_test_uptodate(folio)) {
		size_t offset = (size_t)(pos - ((int64_t)folio->index <<
						 UPC_PAGE_SHIFT));

		memcpy(dst, (char *)folio_address(folio) + offset, len);
	} else {
		memset(dst, 0, len);
	}
	if (folio && !xa_is_value(folio))
		folio_put(folio);
}

/**
 * shmb_per_folio_read() - Read from a shmem file a page at a time.
 * @sf: The file.
 * @buf: Where the bytes go.
 * @count: How many are wanted.
 * @pos: File offset, not negative.
 *
 * Context: Takes @sf's lock shared.
 * Return: The bytes read: fewer than asked only at the end of the file.
 */
ssize_t shmb_per_folio_read(struct shmem_file *sf, void *buf, size_t count,
			    int64_t pos)
{
	unsigned char *dst = buf;
	int64_t size;
	size_t done = 0;

	pthread_rwlock_rdlock(&sf->rwsem);
	size = shmem_size(sf);
	if (pos >= size) {
		pthread_rwlock_unlock(&sf->rwsem);
		return 0;
	}
	if (count > (uint64_t)(size - pos))
		count = (size_t)(size - pos);
	while (done < count) {
		int64_t at = pos + (int64_t)done;
		size_t len = UPC_PAGE_SIZE - ((size_t)at & (UPC_PAGE_SIZE - 1));

		if (len > count - done)
			len = count - done;
		before_read_page(sf, dst + done, at, len);
		done += len;
	}
	pthread_rwlock_unlock(&sf->rwsem);
	return (ssize_t)count;
}
