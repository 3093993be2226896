/* SPDX-License-Identifier: MIT */
/*
 * upcache/filemap.h - the page cache: folios of a file, indexed by page.
 *
 * An address_space is the cache of one file (or shmem object): i_pages
 * maps page indices to folios, to shadow entries (value entries left by
 * evicted folios, for refault detection) and, for shmem, to swap entries.
 * The API follows the kernel's mm/filemap.c; where the kernel relies on
 * the inode or on global state, the address_space carries it (its size,
 * its arena).
 *
 * Locking: i_pages' xa_lock protects the tree, nrpages and the folios'
 * membership (mapping and index of a cached folio change only under it
 * with the folio locked).  Lookups take no lock: they run under RCU,
 * take a reference with folio_try_get() and check that the slot still
 * holds the folio.
 *
 * Tags: PAGECACHE_TAG_DIRTY, _WRITEBACK and _TOWRITE are XArray marks 0,
 * 1 and 2 on the folios' slots.
 */
#ifndef UPCACHE_FILEMAP_H
#define UPCACHE_FILEMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "errseq.h"
#include "folio.h"
#include "xarray.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef unsigned long pgoff_t;

/* The highest page index a file can have: its bytes fit in an int64_t. */
#define MAX_PAGECACHE_INDEX	((pgoff_t)(INT64_MAX >> UPC_PAGE_SHIFT))

#define PAGECACHE_TAG_DIRTY	XA_MARK_0
#define PAGECACHE_TAG_WRITEBACK	XA_MARK_1
#define PAGECACHE_TAG_TOWRITE	XA_MARK_2

struct address_space;

/**
 * struct address_space_operations - what the layer above provides.
 * @read_folio: Fill a locked, not-uptodate folio from the backing store,
 *	mark it uptodate on success and unlock it.  Return 0 or -errno.
 * @dirty_folio: Mark a folio dirty as this mapping needs, for
 *	folio_mark_dirty(): filemap_dirty_folio() (PG_dirty and the dirty
 *	tag; what NULL means) or noop_dirty_folio() (PG_dirty only, for a
 *	mapping that is never written back by tag, as shmem), or a hook of
 *	the layer above that calls one of them.  Return true if the folio
 *	was clean.
 * @writeback_folio: Write a locked dirty folio back (reclaim, sync).
 *	Return 0 or -errno.  NULL: the mapping cannot write back.
 * @writeback_folios: Optional, with @writeback_folio.  Write @nr folios
 *	back at once (sync: filemap_fdatawrite_range() hands it the dirty
 *	folios it has locked; reclaim a batch's with the dirty folios that
 *	follow them in the file: at most WRITEBACK_MAX_RUN either way),
 *	each as @writeback_folio would be given it, in increasing index
 *	order but not always consecutive; set @errs[i] to 0 or -errno for
 *	each.  It lets a backing store merge neighbours and send the rest
 *	together (as the kernel's writepages builds bios).
 * @evict_lock: Optional.  Reclaim calls it, with the folio it is about to
 *	take out of the mapping locked, before it takes the i_pages lock,
 *	and @evict_unlock once the folio is out (or stayed).  Reclaim holds
 *	no folio lock of another mapping meanwhile, so what the hook waits
 *	for may itself wait on other mappings' folio locks; it may hold
 *	more of this mapping's folios locked, which it is taking out with
 *	the first (a batch swapped out together).  For a layer
 *	whose readers hold no folio reference (shmem): it waits for them,
 *	so none is copying from the folio when reclaim frees it.  It may
 *	sleep, but must not wait on a folio lock.  Return: true; false if
 *	the mapping's folios may not be taken out now (the folio stays,
 *	and @evict_unlock is not called).
 * @evict_unlock: Ends what a successful @evict_lock began.
 * @readahead: Optional.  Fill @nr locked, not uptodate folios of
 *	consecutive indices (1 to READAHEAD_MAX_RUN) in one request
 *	(mm/readahead.c); mark each uptodate that was filled and unlock
 *	them all.  Without it, readahead calls @read_folio for each.
 *
 * Reclaim calls @writeback_folio the way the kernel calls writepage: the
 * folio locked, its dirty bit and tag already cleared, PG_writeback and
 * its tag set, synchronously (reclaim ends the writeback when the hook
 * returns).  On an error reclaim marks the folio dirty again and keeps
 * it, so the data stays in the cache for the next attempt.
 */
struct address_space_operations {
	int (*read_folio)(struct address_space *mapping, struct folio *folio);
	bool (*dirty_folio)(struct address_space *mapping, struct folio *folio);
	int (*writeback_folio)(struct address_space *mapping,
			       struct folio *folio);
	void (*writeback_folios)(struct address_space *mapping,
				 struct folio **folios, unsigned int nr,
				 int *errs);
	bool (*evict_lock)(struct address_space *mapping);
	void (*evict_unlock)(struct address_space *mapping);
	void (*readahead)(struct address_space *mapping, struct folio **folios,
			  unsigned int nr);
};

/*
 * The most pages a readahead window holds, and so the most folios one
 * a_ops->readahead call is handed: a window with nothing of it cached
 * is one request to the backing store (one preadv() for a file), as
 * the kernel sends a window's pages in as few bios as it can.
 */
#define READAHEAD_MAX_RUN	256

/*
 * The most dirty folios a writeback pass (filemap_fdatawrite_range())
 * hands a_ops->writeback_folios at once: 1 MiB of order-0 folios, so
 * that a file's dirty stretch goes to the backing store in large
 * requests, as the kernel's writepages builds large bios.
 */
#define WRITEBACK_MAX_RUN	256

/* Bits of address_space->flags. */
enum mapping_flag_bit {
	AS_LARGE_FOLIOS,	/* may cache folios of order > 0 */
	AS_UNEVICTABLE,		/* reclaim must leave the folios alone */
	AS_SWAPBACKED,		/* shmem-like: backed by swap, not a file */
	AS_ASYNC_READAHEAD,	/* read a stream's windows ahead in the
				 * background (page_cache_sync_ra()) */
	AS_SWAP_KEEP,		/* a page swapped in from a file may keep
				 * its slots until written (PG_swapslot):
				 * every write must free them first
				 * (swap_drop_kept()) */
};

/**
 * struct address_space - the page cache of one file.
 * @i_pages: Folios, shadow and swap entries by page index.
 * @arena: Where the folios' memory comes from.
 * @a_ops: The backing store's operations (may be NULL).
 * @nrpages: Pages cached (under i_pages' lock).
 * @flags: AS_* bits.
 * @size: The file's size in bytes (the owner's to maintain).
 * @wb_err: Writeback errors, for the owner's watchers (mapping_set_error()).
 * @host: The owner (a file object).
 */
struct address_space {
	struct xarray i_pages;
	struct upc_arena *arena;
	const struct address_space_operations *a_ops;
	unsigned long nrpages;
	unsigned long flags;
	int64_t size;
	errseq_t wb_err;
	void *host;
};

/**
 * address_space_init() - Initialise an empty mapping.
 * @mapping: The mapping.
 * @arena: The arena its folios are allocated from.
 * @a_ops: Operations, or NULL.
 * @flags: AS_* bits (1UL << AS_LARGE_FOLIOS ...).
 *
 * Context: Before the mapping is shared.
 */
void address_space_init(struct address_space *mapping, struct upc_arena *arena,
			const struct address_space_operations *a_ops,
			unsigned long flags);

/**
 * mapping_set_error() - Record that writing @mapping's data back failed.
 * @mapping: The mapping.
 * @err: The negative errno (0 records nothing).
 *
 * Every watcher of the mapping (an open file's fsync) reports it once.
 *
 * Context: Any thread.
 */
static inline void mapping_set_error(struct address_space *mapping, int err)
{
	errseq_set(&mapping->wb_err, err);
}

/* mapping_large_folio_support() - May @mapping cache large folios? */
static inline bool mapping_large_folio_support(const struct address_space *mapping)
{
	return mapping->flags & (1UL << AS_LARGE_FOLIOS);
}

/*
 * mapping_async_readahead() - Does @mapping read ahead in the background?
 * Set by a mapping whose reads wait for a device that nothing below it
 * reads ahead for (an O_DIRECT file): a reader then copies one window
 * while the next comes in.
 */
static inline bool mapping_async_readahead(const struct address_space *mapping)
{
	return mapping->flags & (1UL << AS_ASYNC_READAHEAD);
}

/* ---- batches ------------------------------------------------------------- */

#define FOLIO_BATCH_SIZE	31

/**
 * struct folio_batch - a small array of folios, each with a reference.
 * @nr: Folios in the batch.
 * @i: Iteration cursor for folio_batch_next().
 * @folios: The folios.
 */
struct folio_batch {
	unsigned int nr;
	unsigned int i;
	struct folio *folios[FOLIO_BATCH_SIZE];
};

static inline void folio_batch_init(struct folio_batch *fbatch)
{
	fbatch->nr = 0;
	fbatch->i = 0;
}

static inline unsigned int folio_batch_count(const struct folio_batch *fbatch)
{
	return fbatch->nr;
}

static inline unsigned int folio_batch_space(const struct folio_batch *fbatch)
{
	return FOLIO_BATCH_SIZE - fbatch->nr;
}

/* folio_batch_add() - Append; Return: the space left afterwards. */
static inline unsigned int folio_batch_add(struct folio_batch *fbatch,
					   struct folio *folio)
{
	fbatch->folios[fbatch->nr++] = folio;
	return folio_batch_space(fbatch);
}

/* folio_batch_next() - The next folio for an iteration, or NULL. */
static inline struct folio *folio_batch_next(struct folio_batch *fbatch)
{
	if (fbatch->i == fbatch->nr)
		return NULL;
	return fbatch->folios[fbatch->i++];
}

/**
 * folio_batch_release() - Drop the batch's references and empty it.
 * @fbatch: The batch.
 */
void folio_batch_release(struct folio_batch *fbatch);

/* ---- adding ---------------------------------------------------------------- */

/**
 * filemap_alloc_folio() - Allocate a folio for @mapping.
 * @mapping: The mapping (its arena is used).
 * @gfp: Allocation flags.
 * @order: Folio order.
 *
 * Context: Any thread.
 * Return: A folio with one reference, or NULL.
 */
struct folio *filemap_alloc_folio(struct address_space *mapping, gfp_t gfp,
				  unsigned int order);

/**
 * __filemap_add_folio() - Add a locked folio to the page cache.
 * @mapping: The mapping.
 * @folio: A locked folio not in any mapping; its order decides how many
 *	indices it takes.
 * @index: First page index; aligned to the folio's size.
 * @gfp: Allocation flags for the tree's nodes.
 * @shadowp: If not NULL, receives the shadow entry the folio replaced
 *	(or NULL).
 *
 * One locked scan of the folio's range: a present folio means -EEXIST;
 * shadows are replaced and the first is handed back.  A shadow larger
 * than the folio is split first, with the nodes allocated outside the
 * lock and the shadow and its order checked again after relocking; the
 * split cuts out only the folio's piece, leaving the rest of the shadow
 * as the largest aligned shadows around it.  The cache takes one
 * reference per page.  Walks: one when no split is needed, two with a
 * split (the seed's algorithm took three: the split leaves the cursor
 * where the store continues).
 *
 * Context: May sleep if @gfp allows.  Takes and releases the i_pages lock.
 * Return: 0; -EEXIST if a folio is already cached in the range; -ENOMEM;
 * -EINVAL if @index is not aligned to the folio or the folio is already
 * in a mapping; -EFBIG if the folio would end past MAX_PAGECACHE_INDEX.
 */
int __filemap_add_folio(struct address_space *mapping, struct folio *folio,
			pgoff_t index, gfp_t gfp, void **shadowp);

/**
 * filemap_add_folio() - Add a locked folio to the page cache.
 * @mapping: The mapping.
 * @folio: A locked folio not in any mapping.
 * @index: First page index, aligned to the folio's size.
 * @gfp: Allocation flags.
 *
 * As __filemap_add_folio(), for callers that do not keep the shadow.
 *
 * Context: As __filemap_add_folio().
 * Return: As __filemap_add_folio().
 */
int filemap_add_folio(struct address_space *mapping, struct folio *folio,
		      pgoff_t index, gfp_t gfp);

/* ---- reading (mm/filemap_read.c) --------------------------------------------- */

/**
 * filemap_read_folio() - Fill a locked folio through the mapping's read_folio.
 * @mapping: The mapping; its a_ops must have a read_folio.
 * @folio: A locked folio of @mapping that is not uptodate.
 *
 * Calls read_folio, which unlocks the folio whatever happens, then waits
 * for the folio lock to be dropped (a read_folio that completes later
 * unlocks it then) and checks the result.
 *
 * Context: May sleep.  The caller holds a reference on @folio and gives
 * up the folio lock.
 * Return: 0 with the folio uptodate and unlocked; the negative errno
 * read_folio returned; -EIO if it returned 0 but left the folio not
 * uptodate.
 */
int filemap_read_folio(struct address_space *mapping, struct folio *folio);

/**
 * mapping_read_folio_gfp() - Read a page of a file through the page cache.
 * @mapping: The mapping; its a_ops must have a read_folio.
 * @index: Page index.
 * @gfp: Allocation flags for a new folio and the tree's nodes; GFP_KERNEL
 *	lets the allocation reclaim from the arena (direct reclaim).
 *
 * A hit is a lockless lookup.  A miss allocates an order-0 folio, adds it
 * with filemap_add_folio() (which replaces a shadow and accounts the
 * refault) and fills it with filemap_read_folio(); if another thread
 * added a folio first, the lookup is retried and that folio used.  A
 * cached folio that is not uptodate (its read failed earlier) is read
 * again under its lock.  Every folio returned is marked accessed, so a
 * second use promotes it to the active list.
 *
 * Context: May sleep (allocation, reclaim, the folio lock, read_folio).
 * Takes no lock the caller may hold: the caller must hold no i_pages
 * lock and no folio lock of @mapping.
 * Return: The uptodate folio covering @index with a reference for the
 * caller (unlocked; drop it with folio_put()); ERR_PTR(-EINVAL) if the
 * mapping has no read_folio; ERR_PTR(-ENOMEM) if no folio or tree node
 * could be had even after reclaim; ERR_PTR(-EFBIG) if @index is above
 * MAX_PAGECACHE_INDEX; ERR_PTR(-EIO) or the error read_folio returned
 * if the read failed (the folio stays cached, not uptodate).
 */
struct folio *mapping_read_folio_gfp(struct address_space *mapping,
				     pgoff_t index, gfp_t gfp);

/* read_mapping_folio() - mapping_read_folio_gfp() with GFP_KERNEL. */
static inline struct folio *read_mapping_folio(struct address_space *mapping,
					       pgoff_t index)
{
	return mapping_read_folio_gfp(mapping, index, GFP_KERNEL);
}

/* ---- lookup ---------------------------------------------------------------- */

typedef unsigned int fgf_t;

#define FGP_ACCESSED	0x01u	/* mark the folio accessed */
#define FGP_LOCK	0x02u	/* return it locked */
#define FGP_CREAT	0x04u	/* create it if absent */
#define FGP_WRITE	0x08u	/* the caller is going to write to it */
#define FGP_NOFS	0x10u	/* accepted, no effect in userspace */
#define FGP_NOWAIT	0x20u	/* never sleep: -EAGAIN instead */
#define FGP_FOR_MMAP	0x40u	/* accepted, no effect */
#define FGP_STABLE	0x80u	/* wait until writeback is over */
#define FGF_GET_ORDER(fgf)	(((fgf) >> 26) & 0x3f)
#define FGP_WRITEBEGIN	(FGP_LOCK | FGP_WRITE | FGP_CREAT | FGP_STABLE)

/**
 * fgf_set_order() - FGP bits asking FGP_CREAT for a folio of @size bytes.
 * @size: Preferred folio size; rounded down to a power of two.
 *
 * Return: Bits to or into the FGP flags.
 */
static inline fgf_t fgf_set_order(size_t size)
{
	unsigned int shift = size ? 63 - __builtin_clzl(size) : 0;

	if (shift <= UPC_PAGE_SHIFT)
		return 0;
	return (fgf_t)(shift - UPC_PAGE_SHIFT) << 26;
}

/**
 * filemap_get_entry() - What the page cache holds at an index.
 * @mapping: The mapping.
 * @index: Page index.
 *
 * Context: Any thread; lockless.
 * Return: A folio (with a reference for the caller), a value entry
 * (shadow or swap entry, no reference), or NULL.
 */
void *filemap_get_entry(struct address_space *mapping, pgoff_t index);

/**
 * __filemap_get_folio() - Find, and optionally create, a folio.
 * @mapping: The mapping.
 * @index: Page index.
 * @fgp_flags: FGP_* bits, with an order hint from fgf_set_order() for
 *	FGP_CREAT.
 * @gfp: Allocation flags for FGP_CREAT.
 *
 * Context: May sleep (folio lock, allocation) unless FGP_NOWAIT.
 * Return: The folio with a reference (locked with FGP_LOCK), or
 * ERR_PTR(-ENOENT) if absent and not FGP_CREAT, ERR_PTR(-EAGAIN) if
 * FGP_NOWAIT would have to sleep, ERR_PTR(-ENOMEM), or ERR_PTR(-EFBIG)
 * if a folio to create would lie past MAX_PAGECACHE_INDEX.
 */
struct folio *__filemap_get_folio(struct address_space *mapping, pgoff_t index,
				  fgf_t fgp_flags, gfp_t gfp);

/* filemap_get_folio() - The cached folio at @index, or ERR_PTR(-ENOENT). */
static inline struct folio *filemap_get_folio(struct address_space *mapping,
					      pgoff_t index)
{
	return __filemap_get_folio(mapping, index, 0, 0);
}

/* filemap_lock_folio() - The cached folio at @index, locked. */
static inline struct folio *filemap_lock_folio(struct address_space *mapping,
					       pgoff_t index)
{
	return __filemap_get_folio(mapping, index, FGP_LOCK, 0);
}

/* filemap_grab_folio() - The folio at @index, locked, created if absent. */
static inline struct folio *filemap_grab_folio(struct address_space *mapping,
					       pgoff_t index)
{
	return __filemap_get_folio(mapping, index,
				   FGP_LOCK | FGP_ACCESSED | FGP_CREAT,
				   GFP_KERNEL);
}

/**
 * filemap_grab_folios() - Find or create a run of locked folios.
 * @mapping: The mapping.
 * @index: First page index wanted.
 * @nr: Number of indices wanted, 1..FILEMAP_GRAB_MAX.
 * @folios: Room for @nr folios.
 *
 * One lockless pass finds the folios already cached (a large folio is
 * taken once, even when it starts before @index); the missing indices
 * get folios allocated outside the lock (large ones where the mapping
 * allows and an aligned run is missing), inserted in one locked pass
 * that walks the tree once.  Shadows in the way are replaced.  Each
 * returned folio is locked and holds a reference for the caller.  Stops
 * early at an index that could not be filled, so a short count is not
 * an error; no folio it created past that index stays in the cache,
 * unless another thread filled it meanwhile.
 *
 * Context: May sleep.  Takes the i_pages lock once when something is
 * missing, not at all when the whole run is cached.
 * Return: The number of folios stored in @folios (they cover @index
 * onwards without gaps); -ENOMEM if not even the first could be had;
 * -EINVAL if @nr is 0 or above FILEMAP_GRAB_MAX; -EFBIG if @index is
 * above MAX_PAGECACHE_INDEX (a run reaching past it is cut short).
 */
int filemap_grab_folios(struct address_space *mapping, pgoff_t index,
			unsigned int nr, struct folio **folios);

/**
 * filemap_grab_folios_gfp() - filemap_grab_folios() for a caller that
 * may hold folios of the mapping itself.
 * @mapping: The mapping.
 * @index: First page index wanted.
 * @nr: Number of indices wanted, 1..FILEMAP_GRAB_MAX.
 * @folios: Room for @nr folios.
 * @gfp: GFP_KERNEL, as filemap_grab_folios(); or GFP_KERNEL |
 *	__GFP_NORETRY when the caller holds references on folios that
 *	reclaim could otherwise free: then no allocation of the grab waits
 *	in reclaim (which would wait on the caller), and -ENOMEM may mean
 *	only that memory could not be had without waiting.
 *
 * Context: May sleep.  As filemap_grab_folios().
 * Return: As filemap_grab_folios().
 */
int filemap_grab_folios_gfp(struct address_space *mapping, pgoff_t index,
			    unsigned int nr, struct folio **folios, gfp_t gfp);

#define FILEMAP_GRAB_MAX	512u

/**
 * filemap_get_folios() - Folios cached in a range.
 * @mapping: The mapping.
 * @start: In: first index; out: the index after the last folio returned.
 * @end: Last index (inclusive).
 * @fbatch: Receives the folios, each with a reference.
 *
 * Context: Any thread; lockless.
 * Return: The number of folios added to @fbatch.
 */
unsigned int filemap_get_folios(struct address_space *mapping, pgoff_t *start,
				pgoff_t end, struct folio_batch *fbatch);

/**
 * filemap_get_folios_contig() - Folios cached contiguously from @start.
 * @mapping: The mapping.
 * @start: In: first index; out: the index after the last folio returned.
 * @end: Last index (inclusive).
 * @fbatch: Receives the folios, each with a reference.
 *
 * Stops at the first index with no folio.  One walk; then the cursor
 * moves sideways and jumps over each large folio.
 *
 * Context: Any thread; lockless.
 * Return: The number of folios added to @fbatch.
 */
unsigned int filemap_get_folios_contig(struct address_space *mapping,
				       pgoff_t *start, pgoff_t end,
				       struct folio_batch *fbatch);

/**
 * filemap_get_folios_tag() - Tagged folios in a range.
 * @mapping: The mapping.
 * @start: In: first index; out: the index after the last folio returned.
 * @end: Last index (inclusive).
 * @tag: PAGECACHE_TAG_*.
 * @fbatch: Receives the folios, each with a reference.
 *
 * Context: Any thread; lockless.
 * Return: The number of folios added to @fbatch.
 */
unsigned int filemap_get_folios_tag(struct address_space *mapping,
				    pgoff_t *start, pgoff_t end, xa_mark_t tag,
				    struct folio_batch *fbatch);

/**
 * filemap_get_read_batch() - Folios for a read, from @index on.
 * @mapping: The mapping.
 * @index: First index.
 * @max: Last index (inclusive).
 * @fbatch: Receives the folios, each with a reference.
 *
 * Contiguous folios from @index; stops at a hole or shadow, after a folio
 * that is not uptodate (the reader must wait for or start its read), and
 * when the batch is full.
 *
 * Context: Any thread; lockless.
 */
void filemap_get_read_batch(struct address_space *mapping, pgoff_t index,
			    pgoff_t max, struct folio_batch *fbatch);

/**
 * find_get_entries() - Folios and value entries in a range.
 * @mapping: The mapping.
 * @start: In: first index; out: the index after the last entry returned.
 * @end: Last index (inclusive).
 * @fbatch: Receives folios (with a reference) and value entries (cast).
 * @indices: Receives the first index of each entry.
 *
 * Context: Any thread; lockless.
 * Return: The number of entries.
 */
unsigned int find_get_entries(struct address_space *mapping, pgoff_t *start,
			      pgoff_t end, struct folio_batch *fbatch,
			      pgoff_t *indices);

/**
 * find_lock_entries() - Entries wholly inside a range, folios locked.
 * @mapping: The mapping.
 * @start: In: first index; out: the index after the last entry returned.
 * @end: Last index (inclusive).
 * @fbatch: Receives locked folios (with a reference) and value entries.
 * @indices: Receives the first index of each entry.
 *
 * Folios that reach outside [@start, @end], that are locked by someone
 * else or under writeback are skipped.
 *
 * Context: Any thread.
 * Return: The number of entries.
 */
unsigned int find_lock_entries(struct address_space *mapping, pgoff_t *start,
			       pgoff_t end, struct folio_batch *fbatch,
			       pgoff_t *indices);

/* ---- removal ------------------------------------------------------------- */

/**
 * __filemap_remove_folio() - Take a folio out of the page cache.
 * @folio: A locked folio in a mapping.
 * @shadow: What to leave in its place: NULL or a value entry, stored as
 *	one entry of the folio's order.
 *
 * Clears the folio's tags, mapping and the cache's references.
 *
 * Context: Holds the folio lock and the mapping's i_pages lock.
 */
void __filemap_remove_folio(struct folio *folio, void *shadow);

/**
 * filemap_remove_folio() - Take a folio out of the page cache.
 * @folio: A locked folio in a mapping.
 *
 * Context: Holds the folio lock; takes the i_pages lock.
 */
void filemap_remove_folio(struct folio *folio);

/**
 * delete_from_page_cache_batch() - Remove many locked folios at once.
 * @mapping: Their mapping.
 * @fbatch: Locked folios of @mapping, in index order.
 *
 * One lock round trip and one walk for the whole batch.
 *
 * Context: Holds the folios' locks; takes the i_pages lock.
 */
void delete_from_page_cache_batch(struct address_space *mapping,
				  struct folio_batch *fbatch);

/**
 * truncate_inode_pages_range() - Drop the cache of a byte range.
 * @mapping: The mapping.
 * @lstart: First byte.
 * @lend: Last byte (inclusive), or -1 for the end of the file.
 *
 * Folios wholly inside the range are removed (shadows too); a folio
 * partly inside keeps its memory and has the part inside zeroed.
 *
 * Context: May sleep (folio locks).
 */
void truncate_inode_pages_range(struct address_space *mapping, int64_t lstart,
				int64_t lend);

/* truncate_inode_pages() - Drop the cache from byte @lstart on. */
static inline void truncate_inode_pages(struct address_space *mapping,
					int64_t lstart)
{
	truncate_inode_pages_range(mapping, lstart, -1);
}

/**
 * invalidate_mapping_pages() - Drop clean, unused folios of a range.
 * @mapping: The mapping.
 * @start: First index.
 * @end: Last index (inclusive).
 *
 * Dirty, locked, mapped (extra references) or writeback folios stay.
 *
 * Context: Any thread.
 * Return: The number of pages dropped.
 */
unsigned long invalidate_mapping_pages(struct address_space *mapping,
				       pgoff_t start, pgoff_t end);

/* ---- state --------------------------------------------------------------- */

/**
 * folio_mark_dirty() - Mark a cached folio dirty, as its mapping's
 * ->dirty_folio says (filemap_dirty_folio() if it says nothing).
 * @folio: A folio in a mapping; the caller holds it locked or otherwise
 *	stops it leaving the mapping.
 *
 * Context: As the mapping's ->dirty_folio.
 * Return: true if the folio was clean before.
 */
bool folio_mark_dirty(struct folio *folio);

/**
 * filemap_dirty_folio() - Set PG_dirty and, if it was clean, the dirty
 * tag, so that writeback finds it by tag.
 * @mapping: The folio's mapping.
 * @folio: The folio, held as for folio_mark_dirty().
 *
 * Context: Takes the i_pages lock when the folio was clean.
 * Return: true if the folio was clean before.
 */
bool filemap_dirty_folio(struct address_space *mapping, struct folio *folio);

/**
 * filemap_dirty_folios() - filemap_dirty_folio() for @nr folios at once:
 * one i_pages lock round trip and one walk for all those that were clean
 * (none if none was); from one folio to the next the cursor climbs only
 * to the XArray node they share.
 * @mapping: The folios' mapping.
 * @folios: The folios, each held as for folio_mark_dirty(); in index
 *	order, so that the cursor moves least.
 * @nr: How many.
 *
 * A folio that was clean has PG_dirty before its tag, as with
 * filemap_dirty_folio(); both are set when this returns.
 *
 * Context: Takes the i_pages lock when a folio was clean.
 * Return: The pages of the folios that were clean.
 */
unsigned long filemap_dirty_folios(struct address_space *mapping,
				   struct folio **folios, unsigned int nr);

/**
 * noop_dirty_folio() - Set PG_dirty only: no tag, no lock.  For mappings
 * that nothing writes back by tag (shmem: its data leaves only by swap).
 * @mapping: The folio's mapping (unused).
 * @folio: The folio.
 *
 * Context: Any.
 * Return: true if the folio was clean before.
 */
bool noop_dirty_folio(struct address_space *mapping, struct folio *folio);

/**
 * folio_clear_dirty_for_io() - Clear the dirty bit and tag before a write.
 * @folio: A locked folio in a mapping.
 *
 * Context: Takes the i_pages lock.
 * Return: true if the folio was dirty.
 */
bool folio_clear_dirty_for_io(struct folio *folio);

/**
 * struct file_ra_state - readahead state of an open file.
 * @next: The page after the last window read: a miss there continues a
 *	sequential stream.
 * @size: The last sequential window, in pages (0: none yet).
 * @order: The order of the last window's folios, where the mapping
 *	caches large folios: each window of a stream grows it by two.
 * @prev_pos: Where the last read ended (0: no read yet), so that reads
 *	that stay in one large folio mark it accessed once, not once
 *	each (the kernel's prev_pos).
 * @mark: The index of the folio marked PG_readahead in the stream's last
 *	window: meeting it starts the next window.
 *
 * Zero-initialised.  Read and written with relaxed atomics by any
 * reader of the file (a hint: races skew it, nothing more).
 */
struct file_ra_state {
	pgoff_t next;
	unsigned long size;
	unsigned int order;
	int64_t prev_pos;
	pgoff_t mark;
};

/**
 * page_cache_ra_unbounded() - Read the missing pages of a range.
 * @mapping: The mapping (needs a read_folio).
 * @index: First page.
 * @nr: Pages.
 *
 * Each page not cached (a hole or a shadow) gets a new folio, added
 * locked; runs of them go to a_ops->readahead (else read_folio each).
 * Stops early where a folio cannot be allocated or added.  Errors are
 * not reported: the folios stay not uptodate and a reader's own read
 * (mapping_read_folio_gfp()) tries again and gets the error.
 *
 * Context: May sleep (allocation may reclaim; the reads).  The caller
 * holds no folio lock of @mapping.
 */
void page_cache_ra_unbounded(struct address_space *mapping, pgoff_t index,
			     unsigned long nr);

/**
 * page_cache_sync_ra() - Readahead for a reader that missed at @index.
 * @mapping: The mapping.
 * @ra: The reader's file's state.
 * @index: The page it missed.
 * @req_count: Pages it asked for from @index on.
 *
 * A miss at page 0 starts a stream with 4 * @req_count pages; one where
 * the last window ended doubles it; any other miss reads the request's
 * pages.  Every window is at most an eighth of the arena's limit, and
 * 512 KiB for a stream or READAHEAD_MAX_RUN pages (1 MiB) for a request
 * read alone, whatever @req_count (the reader's next miss, at the
 * window's end, goes on from there), and never passes the page holding the last
 * byte of @mapping->size.  Where the mapping caches large folios
 * (AS_LARGE_FOLIOS), a stream's windows are read into folios of
 * growing order (0, 2, 4 ...: never larger than the window, each
 * aligned to its size); where the arena cannot give a folio, or its
 * range is partly cached, that index gets an order-0 folio and the
 * next ones climb back as their alignment allows.
 *
 * Where the mapping reads ahead in the background (AS_ASYNC_READAHEAD),
 * a stream's window is read in two parts, as the kernel's async
 * readahead does: the request's pages before returning, the rest by the
 * readahead workers (readahead_flush()) while the caller copies, its
 * first folio marked PG_readahead (the reader calls
 * page_cache_async_ra() when it meets it).  A request that takes the
 * whole window sends the next window to the workers at once.  Where a
 * run cannot be handed to a worker (no memory, no thread), it is read
 * before returning.  Without the flag, the whole window is read before
 * returning.
 *
 * Context: As page_cache_ra_unbounded().
 */
void page_cache_sync_ra(struct address_space *mapping,
			struct file_ra_state *ra, pgoff_t index,
			unsigned long req_count);

/**
 * page_cache_async_ra() - A reader met a folio marked PG_readahead.
 * @mapping: The mapping.
 * @ra: The reader's file's state.
 * @folio: The folio (the caller holds a reference), locked or not.
 *
 * Clears the mark.  If it is the one the stream's last window set
 * (@ra->mark), the next window, twice the size with folios two orders
 * larger (as page_cache_sync_ra() caps them), is added and handed to
 * the readahead workers, its first folio marked in turn, so that the
 * stream stays a window ahead of its reader.  Any other mark is
 * dropped: the reader's next miss decides.
 *
 * Context: As page_cache_ra_unbounded(); the caller holds no folio
 * lock of @mapping.
 */
void page_cache_async_ra(struct address_space *mapping,
			 struct file_ra_state *ra, struct folio *folio);

/**
 * readahead_flush() - Wait for the readahead handed to workers so far.
 *
 * Every run queued before the call has been read (its folios uptodate
 * or, if the read failed, not) and unlocked when it returns.
 * upc_arena_destroy() calls it, so that no worker is still at a folio
 * of the arena when its memory goes.
 *
 * Context: Sleeps; not from a readahead worker.
 */
void readahead_flush(void);

/**
 * filemap_fdatawrite_range() - Write back the dirty folios of a range.
 * @mapping: The mapping.
 * @start: First byte.
 * @end: Last byte (inclusive); INT64_MAX for the rest of the file.
 *
 * Each dirty folio of the range is locked, cleaned, written through
 * a_ops->writeback_folios (those of one lookup batch together) or
 * a_ops->writeback_folio, and unlocked.  A folio whose write fails is
 * dirtied again and the error recorded with mapping_set_error(); the
 * pass goes on with the rest.  Folios dirtied while the pass runs may
 * or may not be written.  Folios reclaim is writing back are not dirty
 * and not waited for: see filemap_fdatawait_range().
 *
 * Context: May sleep (folio locks, the hook); the caller holds no folio
 * lock of @mapping.
 * Return: 0 (also when the mapping has no writeback_folio: nothing can
 * be written); -EINVAL if @start is negative or @end is below it; the
 * first error of the hook.
 */
int filemap_fdatawrite_range(struct address_space *mapping, int64_t start,
			     int64_t end);

/**
 * filemap_flush() - Write back dirty folios without waiting for others'
 * locks (background writeback, the kernel's WB_SYNC_NONE), a bounded
 * number of pages at a time.
 * @mapping: The mapping.
 * @index: The page to start from; left where the next call should
 *	start: just after the last folio written when @nr_to_write ran
 *	out, 0 when the pass reached the end of the mapping.
 * @nr_to_write: Pages to take at most (a folio is taken whole); counted
 *	down by the pages taken (written, or failed and dirty again).
 *
 * As filemap_fdatawrite_range() from *@index on, except that a folio
 * another thread holds locked is left dirty, and the folios held are
 * written each time the next dirty one does not follow them, so that
 * each is locked only while its own stretch of neighbours is written.
 * A writer rewriting scattered pages then seldom waits for a page under
 * writeback.
 *
 * Context: As filemap_fdatawrite_range().
 * Return: 0, or the first error of the hook (each also recorded with
 * mapping_set_error()).
 */
int filemap_flush(struct address_space *mapping, pgoff_t *index,
		  unsigned long *nr_to_write);

/**
 * filemap_fdatawait_range() - Wait for the writebacks running in a range.
 * @mapping: The mapping.
 * @start: First byte.
 * @end: Last byte (inclusive).
 *
 * Waits for every folio of the range under writeback (PG_writeback:
 * reclaim's and other threads' passes', filemap_flush() included,
 * since a pass's own are done when it returns).  Their
 * errors are on the mapping by the time each wait ends.
 *
 * Context: May sleep.
 * Return: 0; -EINVAL if @start is negative or @end is below it.
 */
int filemap_fdatawait_range(struct address_space *mapping, int64_t start,
			    int64_t end);

/**
 * filemap_write_and_wait_range() - Make a range clean: write it back and
 * wait for the writebacks already running in it.
 * @mapping: The mapping.
 * @start: First byte.
 * @end: Last byte (inclusive).
 *
 * For an operation that must not run with data of the range in flight
 * (a punch, a seek answered by the backing file).
 *
 * Context: As filemap_fdatawrite_range().  The caller keeps writers out
 * of the range, so that clean stays clean.
 * Return: 0 when no folio of the range is left dirty; the pass's first
 * error; else, a writeback waited for having failed (its folio is dirty
 * again), the last error recorded on the mapping (that failure's: each
 * is recorded), or -EIO if none ever was; -EINVAL for a bad range.
 * Reports to no watcher: fsync still reports the errors once to each.
 */
int filemap_write_and_wait_range(struct address_space *mapping,
				 int64_t start, int64_t end);

/**
 * file_check_and_advance_wb_err() - Report a writeback error once.
 * @mapping: The mapping.
 * @since: The watcher's sample of @mapping->wb_err (errseq_sample()),
 *	advanced past what is reported.
 *
 * Context: Any thread.
 * Return: 0; the last writeback error recorded since *@since.
 */
int file_check_and_advance_wb_err(struct address_space *mapping,
				  errseq_t *since);

/**
 * file_write_and_wait_range() - The data part of fsync: write a range
 * back and report what failed since the watcher last looked.
 * @mapping: The mapping.
 * @since: The watcher's sample, as for file_check_and_advance_wb_err().
 * @start: First byte.
 * @end: Last byte (inclusive).
 *
 * Writes the range back, waits for the writebacks reclaim had running
 * in it, then checks the mapping's errors, in that order, so that a
 * failure of a writeback waited for is reported.
 *
 * Context: As filemap_fdatawrite_range().
 * Return: 0; the pass's first error; else an error recorded earlier
 * (by reclaim, or by another watcher's pass) that this watcher has not
 * reported; -EINVAL for a bad range.
 */
int file_write_and_wait_range(struct address_space *mapping, errseq_t *since,
			      int64_t start, int64_t end);

/**
 * folio_mark_accessed() - Note a use of the folio (for reclaim).
 * @folio: The folio; the caller holds a reference.
 *
 * Sets PG_referenced; a second use of an inactive folio activates it
 * (mm/swap.c, see upcache/vmscan.h).
 *
 * Context: Any thread.  May take an LRU batch lock.
 */
void folio_mark_accessed(struct folio *folio);

/**
 * tag_pages_for_writeback() - Tag dirty folios of a range "to write".
 * @mapping: The mapping.
 * @start: First index.
 * @end: Last index (inclusive).
 *
 * Context: Takes the i_pages lock.
 */
void tag_pages_for_writeback(struct address_space *mapping, pgoff_t start,
			     pgoff_t end);

/**
 * folio_start_writeback() - Mark a locked dirty folio as being written.
 * @folio: A locked folio in a mapping, dirty bit already cleared.
 *
 * Sets PG_writeback and the writeback tag, clears the towrite tag, and
 * the dirty tag unless the folio is dirty again, all under one hold of
 * the i_pages lock.
 *
 * Context: Takes the i_pages lock.
 */
void folio_start_writeback(struct folio *folio);

/**
 * folio_clear_dirty_start_writeback() - Clean a folio for its write.
 * @folio: A locked folio in a mapping.
 *
 * If the folio is dirty: clear its dirty bit, then folio_start_writeback(),
 * which sets the writeback tag and then clears the dirty tag, under one
 * hold of the i_pages lock, as the kernel's __folio_start_writeback()
 * does.  A lookup by tag, lockless as it is (an fsync's pass for the
 * dirty tag, then its wait for the writeback tag), finds the folio by
 * one tag or the other at every moment, so it never returns before the
 * write is done.  (folio_clear_dirty_for_io() and then
 * folio_start_writeback() would leave the folio in neither tag in
 * between.)
 *
 * Context: Takes the i_pages lock.
 * Return: true if the folio was dirty and is now under writeback.
 */
bool folio_clear_dirty_start_writeback(struct folio *folio);

/**
 * folio_clear_dirty_set_writeback() - The bits of
 * folio_clear_dirty_start_writeback() only: if the folio is dirty, clear
 * its dirty bit and set PG_writeback, and leave its tags to
 * folios_tag_writeback(), which a writeback pass calls once for the
 * folios it is about to write.
 * @folio: A locked folio in a mapping.
 *
 * Until then the folio keeps its dirty tag and must stay locked: an
 * fsync's pass that finds it by that tag waits for its lock, and so for
 * its write, as it would wait for the writeback tag.
 *
 * Context: Any; takes no lock.
 * Return: true if the folio was dirty and is now under writeback.
 */
bool folio_clear_dirty_set_writeback(struct folio *folio);

/**
 * folios_tag_writeback() - The tags of folio_start_writeback() for @nr
 * folios of one mapping: set the writeback tag, then clear the towrite
 * and dirty tags (the dirty one only of a folio not dirty again), all
 * under one hold of the i_pages lock, with one walk (as
 * filemap_dirty_folios()).
 * @folios: Locked folios under writeback (folio_clear_dirty_set_writeback()),
 *	in index order, so that the cursor moves least.
 * @nr: How many.
 *
 * Context: Takes the i_pages lock.
 */
void folios_tag_writeback(struct folio **folios, unsigned int nr);

/**
 * folio_end_writeback() - Writeback finished: clear it and wake waiters.
 * @folio: A folio under writeback.
 *
 * Context: Takes the i_pages lock.
 */
void folio_end_writeback(struct folio *folio);

/**
 * folios_end_writeback() - folio_end_writeback() for @nr folios of one
 * mapping: their writeback tags cleared under one hold of the i_pages
 * lock, with one walk (as filemap_dirty_folios()), then each folio's
 * PG_writeback, waking its waiters.
 * @folios: Folios under writeback whose writes have ended (a failed
 *	one dirtied again first), in index order, so that the cursor
 *	moves least.
 * @nr: How many.
 *
 * Context: Takes the i_pages lock.
 */
void folios_end_writeback(struct folio **folios, unsigned int nr);

/**
 * folio_wait_writeback() - Wait until the folio is not under writeback.
 * @folio: A folio the caller holds a reference on.
 *
 * Context: May sleep.
 */
void folio_wait_writeback(struct folio *folio);

#ifdef __cplusplus
}
#endif

#endif /* UPCACHE_FILEMAP_H */
