// SPDX-License-Identifier: MIT
/*
 * tools/bench/shm_baseline.c - shmem's per-folio read path from before
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
 * The page the old loop copied for a page with no data: the kernel's
 * read copied ZERO_PAGE(0) to the user (copy_page_to_iter()), a 4 KiB
 * zero page at a time, because its clear_user() was slower; seed 002's
 * series replaced that page copy by bulk zeroing.  Never written, so
 * all zeros; the copies below go through zero_page_ptr() so that the
 * compiler cannot turn them into memset().
 */
static unsigned char zero_page[UPC_PAGE_SIZE] __attribute__((aligned(64)));

static const unsigned char *zero_page_ptr(void)
{
	const unsigned char *page = zero_page;

	__asm__("" : "+r"(page));
	return page;
}

/*
 * before_read_step() - One step of the old loop at @pos: look page
 * @pos's index up, and copy from its folio up to the folio's end, or
 * from the zero page up to the page's end if there is no folio or it
 * holds no data (not uptodate), never past @len bytes.  Return: the
 * bytes done.
 */
static size_t before_read_step(struct shmem_file *sf, unsigned char *dst,
			       int64_t pos, size_t len)
{
	pgoff_t index = (pgoff_t)pos >> UPC_PAGE_SHIFT;
	struct folio *folio = filemap_get_entry(&sf->mapping, index);
	size_t done;

	/* A value entry is a page in swap: the suite runs without swap. */
	if (folio && xa_is_value(folio))
		folio = NULL;
	/* shmem_get_folio() handed the folio back locked; the read let go. */
	if (folio) {
		folio_lock(folio);
		folio_unlock(folio);
	}
	if (folio && folio_test_uptodate(folio)) {
		size_t offset = (size_t)(pos - ((int64_t)folio->index <<
						 UPC_PAGE_SHIFT));

		done = folio_size(folio) - offset;
		if (done > len)
			done = len;
		/* As the kernel's read: a use, where it reads a page's start. */
		if (!(pos & (UPC_PAGE_SIZE - 1)))
			folio_mark_accessed(folio);
		memcpy(dst, (char *)folio_address(folio) + offset, done);
	} else {
		size_t offset = (size_t)pos & (UPC_PAGE_SIZE - 1);

		done = UPC_PAGE_SIZE - offset;
		if (done > len)
			done = len;
		memcpy(dst, zero_page_ptr() + offset, done);
	}
	if (folio)
		folio_put(folio);
	return done;
}

/**
 * shmb_per_folio_read() - Read from a shmem file a folio at a time.
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
	while (done < count)
		done += before_read_step(sf, dst + done, pos + (int64_t)done,
					 count - done);
	pthread_rwlock_unlock(&sf->rwsem);
	return (ssize_t)count;
}
