// SPDX-License-Identifier: MIT
/*
 * mm/swapfile.c - swap devices: their life, their slots and their I/O.
 *
 * A device is a file (or a buffer in memory) cut into 4 KiB slots.
 * Slots are handed out from clusters of SWAPFILE_CLUSTER slots, as the
 * kernel's cluster allocator does, so that what reclaim writes in one
 * pass lands close together and a huge folio can find an aligned run:
 *
 *  - small allocations come from the current cluster, scanning forward
 *    for an aligned free run from just after the last one handed out
 *    there (wrapping to the cluster's start), so that filling a cluster
 *    costs one step per slot, not a scan from its start each time;
 *  - when it is used up, partly used clusters are searched, round robin
 *    from where the last search stopped, and the one found becomes
 *    current: pages swapped back in leave holes there, and filling them
 *    first keeps wholly free clusters for large folios, which need an
 *    aligned run as long as themselves (a 2 MiB folio needs a whole
 *    cluster);
 *  - then the next wholly free cluster (a stack) becomes current; every
 *    wholly free cluster but the current one is on the stack
 *    (upc_check_swap() checks it), so none is left, -ENOSPC.
 *
 * swap_map holds one byte per slot: SWAP_MAP_USED while an owner holds
 * the entry, SWAP_HAS_CACHE while a swap-in has a folio in the swap cache
 * for it.  A slot is in use, and not handed out again, while either bit
 * is set: so a swap-in whose entry was freed under it (it read the entry
 * before another thread swapped the page in) cannot leave its folio at a
 * slot that a swap-out then gets, and fails to add to the swap cache
 * until that folio goes (as the kernel's SWAP_HAS_CACHE).  An anonymous
 * page has one owner here, so the kernel's share counts are not needed.
 *
 * Devices are registered in a process-wide table so that a swap entry
 * (type, offset) finds its device without a pointer; the table has
 * MAX_SWAPFILES places.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fault.h"
#include "io/fd.h"
#include "lru_internal.h"
#include "swap_internal.h"

static pthread_mutex_t swap_table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct swap_info_struct *swap_table[MAX_SWAPFILES];

struct swap_info_struct *swap_info_get(swp_entry_t entry)
{
	unsigned int type = swp_type(entry);
	struct swap_info_struct *si;

	if (type >= MAX_SWAPFILES)
		return NULL;
	si = __atomic_load_n(&swap_table[type], __ATOMIC_ACQUIRE);
	if (!si || swp_offset(entry) >= si->max)
		return NULL;
	return si;
}

bool swap_slot_in_use(swp_entry_t entry)
{
	struct swap_info_struct *si = swap_info_get(entry);
	bool used;

	if (!si)
		return false;
	upc_lock(&si->lock);
	used = si->swap_map[swp_offset(entry)] & SWAP_MAP_USED;
	upc_unlock(&si->lock);
	return used;
}

/* ---- life ---------------------------------------------------------------- */

static bool space_shift_valid(unsigned int shift)
{
	return shift == SWAP_SPACE_FULL_INDEX ||
	       (shift >= SWAP_SPACE_SHIFT_MIN && shift <= SWAP_SPACE_SHIFT_MAX);
}

static void swap_device_free(struct swap_info_struct *si)
{
	unsigned long i;

	if (si->spaces)
		for (i = 0; i < si->nr_spaces; i++)
			swap_cache_space_destroy(&si->spaces[i]);
	if (si->mem)
		munmap(si->mem, si->max << UPC_PAGE_SHIFT);
	free(si->spaces);
	free(si->free_clusters);
	free(si->cluster_used);
	free(si->swap_map);
	free(si);
}

/* Allocate the maps, the spaces and an in-memory device's buffer. */
static int swap_device_alloc(struct swap_info_struct *si, int fd)
{
	unsigned long nr_clusters = si->max / SWAPFILE_CLUSTER;
	unsigned long i;

	if (upc_fault_should_fail())
		return -ENOMEM;
	si->swap_map = calloc(si->max, 1);
	si->cluster_used = calloc(nr_clusters, sizeof(*si->cluster_used));
	si->free_clusters = malloc(nr_clusters * sizeof(*si->free_clusters));
	si->spaces = calloc(si->nr_spaces, sizeof(*si->spaces));
	if (!si->swap_map || !si->cluster_used || !si->free_clusters ||
	    !si->spaces)
		return -ENOMEM;
	if (fd < 0) {
		void *mem = mmap(NULL, si->max << UPC_PAGE_SHIFT,
				 PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				 -1, 0);

		if (mem == MAP_FAILED)
			return -ENOMEM;
		/*
		 * Only a hint, as for the arena: with 4 KiB pages each slot's
		 * first write takes a page fault of its own, and each
		 * swap-out a TLB entry.
		 */
		(void)madvise(mem, si->max << UPC_PAGE_SHIFT, MADV_HUGEPAGE);
		si->mem = mem;
	}
	/* Popped from the top: cluster 0 first. */
	for (i = 0; i < nr_clusters; i++)
		si->free_clusters[i] = nr_clusters - 1 - i;
	si->nr_free_clusters = nr_clusters;
	for (i = 0; i < si->nr_spaces; i++)
		address_space_init(&si->spaces[i], si->arena, NULL, 0);
	return 0;
}

/* Take a free place in the device table.  Return: its type, or -ENOSPC. */
static int swap_table_add(struct swap_info_struct *si)
{
	unsigned int type;

	for (type = 0; type < MAX_SWAPFILES; type++) {
		if (!swap_table[type]) {
			si->type = type;
			__atomic_store_n(&swap_table[type], si, __ATOMIC_RELEASE);
			return 0;
		}
	}
	return -ENOSPC;
}

int swap_device_create(struct upc_arena *arena, int fd,
		       unsigned long long size, unsigned int space_shift,
		       struct swap_info_struct **out)
{
	unsigned long long slots = size >> UPC_PAGE_SHIFT;
	struct lruvec *lruvec;
	struct swap_info_struct *si;
	int err;

	if (!arena || !out || !space_shift_valid(space_shift) ||
	    slots < SWAPFILE_CLUSTER || slots > (1ULL << SWP_OFFSET_BITS))
		return -EINVAL;
	lruvec = arena_lruvec(arena);
	if (!lruvec)
		return -EBUSY;
	si = upc_fault_should_fail() ? NULL : calloc(1, sizeof(*si));
	if (!si)
		return -ENOMEM;
	upc_lock_init(&si->lock);
	si->arena = arena;
	si->fd = fd;
	si->max = (unsigned long)(slots - slots % SWAPFILE_CLUSTER);
	si->cur_cluster = ULONG_MAX;
	/* The baseline's full-offset keys: a mask, no branch on lookups. */
	if (space_shift == SWAP_SPACE_FULL_INDEX) {
		si->space_shift = SWAP_ADDRESS_SPACE_SHIFT;
		si->index_mask = ULONG_MAX;
	} else {
		si->space_shift = space_shift;
		si->index_mask = (1UL << space_shift) - 1;
	}
	si->nr_spaces = (si->max + (1UL << si->space_shift) - 1) >>
			si->space_shift;
	err = swap_device_alloc(si, fd);
	if (err)
		goto fail;

	pthread_mutex_lock(&swap_table_lock);
	err = -EBUSY;
	if (!__atomic_load_n(&lruvec->swap_ops, __ATOMIC_ACQUIRE))
		err = swap_table_add(si);
	if (!err) {
		err = upc_reclaim_set_swap(arena, &swap_reclaim_ops, si);
		/* Nobody can have looked the device up: no slot exists yet. */
		if (err)
			__atomic_store_n(&swap_table[si->type], NULL,
					 __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&swap_table_lock);
	if (err)
		goto fail;
	*out = si;
	return 0;
fail:
	swap_device_free(si);
	return err;
}

int swap_device_destroy(struct swap_info_struct *si)
{
	pthread_mutex_lock(&swap_table_lock);
	upc_lock(&si->lock);
	if (si->inuse_pages) {
		upc_unlock(&si->lock);
		pthread_mutex_unlock(&swap_table_lock);
		return -EBUSY;
	}
	upc_unlock(&si->lock);
	upc_reclaim_set_swap(si->arena, NULL, NULL);
	__atomic_store_n(&swap_table[si->type], NULL, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&swap_table_lock);
	swap_device_free(si);
	return 0;
}

/* ---- slots --------------------------------------------------------------- */

/* Is [@offset, @offset + @nr) free?  Device lock held. */
static bool slots_free(const struct swap_info_struct *si, unsigned long offset,
		       unsigned long nr)
{
	unsigned long i;

	for (i = 0; i < nr; i++)
		if (si->swap_map[offset + i])
			return false;
	return true;
}

/*
 * Find an aligned run of @nr free slots in @cluster, looking from @hint
 * (a slot of the cluster) to its end, then from its start.  Device lock
 * held.  Return: its first offset, or ULONG_MAX.
 */
static unsigned long cluster_find(const struct swap_info_struct *si,
				  unsigned long cluster, unsigned long nr,
				  unsigned long hint)
{
	unsigned long base = cluster * SWAPFILE_CLUSTER;
	unsigned long end = base + SWAPFILE_CLUSTER;
	unsigned long start, off;

	if (si->cluster_used[cluster] + nr > SWAPFILE_CLUSTER)
		return ULONG_MAX;
	start = hint >= base && hint < end ? base + ((hint - base) & ~(nr - 1)) :
					     base;
	for (off = start; off < end; off += nr)
		if (slots_free(si, off, nr))
			return off;
	for (off = base; off < start; off += nr)
		if (slots_free(si, off, nr))
			return off;
	return ULONG_MAX;
}

/*
 * Search partly used clusters round robin (a wholly free one is on the
 * free stack, which is never allocated from before it is popped, or is
 * the current one).  The cluster found becomes the current one, so that
 * the next small allocations go on from there without a search.  Device
 * lock held.
 */
static unsigned long swap_scan_clusters(struct swap_info_struct *si,
					unsigned long nr)
{
	unsigned long nr_clusters = si->max / SWAPFILE_CLUSTER;
	unsigned long i;

	for (i = 0; i < nr_clusters; i++) {
		unsigned long cluster = (si->scan_cursor + i) % nr_clusters;
		unsigned long off;

		if (!si->cluster_used[cluster] || cluster == si->cur_cluster)
			continue;
		off = cluster_find(si, cluster, nr, cluster * SWAPFILE_CLUSTER);

		if (off != ULONG_MAX) {
			si->scan_cursor = cluster;
			si->cur_cluster = cluster;
			return off;
		}
	}
	return ULONG_MAX;
}

/* Find @nr aligned free slots (see the top of the file).  Lock held. */
static unsigned long swap_find_slots(struct swap_info_struct *si,
				     unsigned long nr)
{
	unsigned long off = ULONG_MAX;

	if (si->cur_cluster != ULONG_MAX)
		off = cluster_find(si, si->cur_cluster, nr, si->cur_next);
	if (off == ULONG_MAX && nr < SWAPFILE_CLUSTER)
		off = swap_scan_clusters(si, nr);
	if (off == ULONG_MAX && si->nr_free_clusters) {
		si->cur_cluster = si->free_clusters[--si->nr_free_clusters];
		off = si->cur_cluster * SWAPFILE_CLUSTER;
	}
	return off;
}

int folio_alloc_swap(struct swap_info_struct *si, struct folio *folio,
		     swp_entry_t *entry)
{
	unsigned long nr = folio_nr_pages(folio);
	unsigned long off;

	upc_lock(&si->lock);
	off = swap_find_slots(si, nr);
	if (off == ULONG_MAX) {
		upc_unlock(&si->lock);
		return -ENOSPC;
	}
	memset(si->swap_map + off, SWAP_MAP_USED, nr);
	if (off / SWAPFILE_CLUSTER == si->cur_cluster)
		si->cur_next = off + nr;
	si->cluster_used[off / SWAPFILE_CLUSTER] += (unsigned short)nr;
	si->inuse_pages += nr;
	upc_unlock(&si->lock);
	*entry = swp_entry(si->type, off);
	return 0;
}

/*
 * A cluster left wholly free goes back on the free stack, unless it is
 * the current one (which keeps serving small allocations).  A stacked
 * cluster is never allocated from until popped, so it cannot become
 * free a second time and be stacked twice.  Lock held.
 */
static void swap_cluster_put(struct swap_info_struct *si, unsigned long cluster)
{
	if (!si->cluster_used[cluster] && cluster != si->cur_cluster)
		si->free_clusters[si->nr_free_clusters++] = cluster;
}

void swap_free_nr(swp_entry_t entry, unsigned long nr)
{
	struct swap_info_struct *si = swap_info_get(entry);
	unsigned long off = swp_offset(entry);

	if (!si || nr > si->max - off)
		return;
	swap_cache_clear_shadows(si, entry, nr);
	swap_slots_put(si, off, nr, SWAP_MAP_USED);
}

/* swap_slots_put() under the device lock, held by the caller. */
static void swap_slots_clear(struct swap_info_struct *si, unsigned long off,
			     unsigned long nr, unsigned char bits)
{
	unsigned long i;

	for (i = 0; i < nr; i++) {
		unsigned long cluster = (off + i) / SWAPFILE_CLUSTER;
		unsigned char *map = &si->swap_map[off + i];

		if (!*map)
			continue;
		*map &= (unsigned char)~bits;
		if (*map)
			continue;
		si->cluster_used[cluster]--;
		si->inuse_pages--;
		swap_cluster_put(si, cluster);
	}
}

void swap_slots_put(struct swap_info_struct *si, unsigned long off,
		    unsigned long nr, unsigned char bits)
{
	upc_lock(&si->lock);
	swap_slots_clear(si, off, nr, bits);
	upc_unlock(&si->lock);
}

bool swap_slots_keep(struct swap_info_struct *si, unsigned long off,
		     unsigned long nr)
{
	bool keep;

	upc_lock(&si->lock);
	keep = !si->mem && 2 * si->inuse_pages < si->max;
	swap_slots_clear(si, off, nr,
			 SWAP_HAS_CACHE | (keep ? 0 : SWAP_MAP_USED));
	upc_unlock(&si->lock);
	return keep;
}

int swapcache_prepare(struct swap_info_struct *si, unsigned long off,
		      unsigned long nr)
{
	unsigned char *map = &si->swap_map[off];
	unsigned long i;
	int ret = 0;

	upc_lock(&si->lock);
	for (i = 0; i < nr && !ret; i++) {
		if (!(map[i] & SWAP_MAP_USED))
			ret = -ENOENT;
		else if (map[i] & SWAP_HAS_CACHE)
			ret = -EEXIST;
	}
	for (i = 0; i < nr && !ret; i++)
		map[i] |= SWAP_HAS_CACHE;
	upc_unlock(&si->lock);
	return ret;
}

/* ---- I/O ----------------------------------------------------------------- */

/*
 * swap_io() - Move @nr buffers, laid end to end, between memory and the
 * device from byte @pos.  A file device takes them in one transfer
 * (fd_rw_continue(): one preadv()/pwritev() unless cut short).
 * Return: 0 or -EIO.
 */
static int swap_io(struct swap_info_struct *si, const struct iovec *iov,
		   int nr, off_t pos, bool write)
{
	size_t done = 0, len = 0;
	ssize_t ret;
	int i;

	for (i = 0; i < nr; i++) {
		unsigned char *slot = si->mem ? si->mem + pos + len : NULL;

		if (slot && write)
			memcpy(slot, iov[i].iov_base, iov[i].iov_len);
		else if (slot)
			memcpy(iov[i].iov_base, slot, iov[i].iov_len);
		len += iov[i].iov_len;
	}
	if (si->mem)
		return 0;
	ret = fd_rw_continue(si->fd, write, iov, nr, pos, &done);
	/* A short read past the file's end is a missing slot. */
	return ret == (ssize_t)len ? 0 : -EIO;
}

_Static_assert(SWAP_WRITE_RUN <= SWAP_RA_MAX,
	       "a write run fits swap_io_folios()");

/*
 * swap_io_folios() - Move @nr folios (at most SWAP_RA_MAX) whose slots
 * follow each other from @entry's as one transfer, counted in pswpin or
 * pswpout.  Return: 0 or -EIO.
 */
static int swap_io_folios(struct swap_info_struct *si, struct folio **folios,
			  unsigned int nr, swp_entry_t entry, bool write)
{
	struct iovec iov[SWAP_RA_MAX];
	unsigned long pages = 0;
	unsigned int i;
	int err;

	for (i = 0; i < nr; i++) {
		iov[i].iov_base = folio_address(folios[i]);
		iov[i].iov_len = folio_size(folios[i]);
		pages += folio_nr_pages(folios[i]);
	}
	err = swap_io(si, iov, (int)nr,
		      (off_t)(swp_offset(entry) << UPC_PAGE_SHIFT), write);
	if (!err)
		__atomic_fetch_add(write ? &si->pswpout : &si->pswpin, pages,
				   __ATOMIC_RELAXED);
	return err;
}

int swap_write_folio(struct swap_info_struct *si, struct folio *folio,
		     swp_entry_t entry)
{
	int err = 0;

	swap_write_folios(si, &folio, &entry, &err, 1);
	return err;
}

/*
 * swap_write_run() - Write folios [@first, @last] of a run whose slots
 * follow each other (the skipped ones, with an error, are not part of
 * it) as one transfer, and set the error of each.
 */
static void swap_write_run(struct swap_info_struct *si, struct folio **folios,
			   const swp_entry_t *entries, int *errs,
			   unsigned int first, unsigned int last)
{
	struct folio *run[SWAP_WRITE_RUN];
	unsigned int i, nr = 0;
	int err;

	for (i = first; i <= last; i++)
		if (!errs[i])
			run[nr++] = folios[i];
	if (!nr)
		return;
	err = swap_io_folios(si, run, nr, entries[first], true);
	for (i = first; i <= last; i++)
		if (!errs[i])
			errs[i] = err;
}

void swap_write_folios(struct swap_info_struct *si, struct folio **folios,
		       const swp_entry_t *entries, int *errs, unsigned int nr)
{
	unsigned int i, first = nr, last = 0;
	unsigned long next = 0;
	int in_run = 0;

	for (i = 0; i < nr; i++) {
		if (errs[i])
			continue;
		if (in_run && (swp_offset(entries[i]) != next ||
			       in_run == SWAP_WRITE_RUN)) {
			swap_write_run(si, folios, entries, errs, first, last);
			in_run = 0;
		}
		if (!in_run)
			first = i;
		last = i;
		in_run++;
		next = swp_offset(entries[i]) + folio_nr_pages(folios[i]);
	}
	if (in_run)
		swap_write_run(si, folios, entries, errs, first, last);
}

int swap_read_folios(struct swap_info_struct *si, struct folio **folios,
		     unsigned int nr, swp_entry_t entry)
{
	if (!nr || nr > SWAP_RA_MAX)
		return -EINVAL;
	return swap_io_folios(si, folios, nr, entry, false);
}

int swap_read_folio(struct swap_info_struct *si, struct folio *folio,
		    swp_entry_t entry)
{
	return swap_read_folios(si, &folio, 1, entry);
}
