// SPDX-License-Identifier: MIT
/*
 * tools/bench/shm_fixture.c - the shmem suite's sizes, files and checks.
 *
 * Owns what every shmem case shares (shm_cases.h): the mode table, the
 * pattern a normal file holds, building and freeing the files of a
 * group, and the untimed checks that both files are of their kind and
 * that every method reads what the file holds.
 *
 * Conventions: @b is the shared state, @sf the open group's upcache
 * file, @pos a byte offset.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <upcache/rcu.h>

#include "scale.h"
#include "shm_cases.h"
#include "util.h"


/* An odd constant: the pattern's word at byte offset o is (o + 1) * it. */
#define SHMB_PATTERN_MUL	0x9e3779b97f4a7c15ULL

/*
 * Rounds: fewer than the other suites' defaults, since a round here
 * reads the file 9 times and copies it 3 times, in each of 6 groups.
 */
static const struct bench_mode_pages shm_modes[] = {
	{ "full", 1UL << 18, 9 },	/* 1 GiB */
	{ "quick", 1UL << 16, 7 },	/* 256 MiB */
	{ "tiny", 1UL << 10, 3 },	/* 4 MiB */
};

static const struct bench_pages_spec shm_pages = {
	"shmem", "file", shm_modes, sizeof(shm_modes) / sizeof(shm_modes[0]),
	SHMB_MAX_FILE_PAGES, SHMB_HUGE_BYTES >> UPC_PAGE_SHIFT,
};

/**
 * shmb_scale_from_options() - Pick the sizes the options ask for.
 * @opts: The parsed options.
 * @scale: The result.
 */
void shmb_scale_from_options(const struct bench_options *opts,
			     struct shm_scale *scale)
{
	struct bench_scale common;
	unsigned long pages = bench_scale_pages(opts, &shm_pages, &common);

	scale->mode = common.mode;
	scale->file_bytes = (size_t)pages << UPC_PAGE_SHIFT;
	scale->arena_bytes = scale->file_bytes + BENCH_ARENA_SLACK;
	scale->rounds = common.rounds;
	scale->warmups = common.warmups;
}

/* shmb_fill_pattern() - Write the pattern of offsets [0, @size) to @p. */
static void shmb_fill_pattern(unsigned char *p, size_t size)
{
	uint64_t *w = (uint64_t *)(void *)p;
	size_t i;

	for (i = 0; i < size / 8; i++)
		w[i] = ((uint64_t)i * 8 + 1) * SHMB_PATTERN_MUL;
}

/*
 * shmb_xalloc() - @size bytes aligned to 2 MiB, touched; dies if none.
 * Huge pages are asked for as the arena asks for them (mm/page_alloc.c),
 * so that memcpy from the pattern streams through the same kind of
 * memory as a read of the file: with 4 KiB pages the copy is slower by
 * a fifth here (TLB misses), which would flatter memcpy_fraction.
 */
static unsigned char *shmb_xalloc(size_t size, const char *what)
{
	void *p = NULL;

	if (posix_memalign(&p, SHMB_HUGE_BYTES, size))
		bench_die("shmem: cannot allocate %zu MiB for %s", size >> 20,
			  what);
	(void)madvise(p, size, MADV_HUGEPAGE);
	memset(p, 0x5a, size);
	return p;
}

/**
 * shmb_init() - Allocate the pattern and the buffers of a run.
 * @b: The state to fill.
 * @scale: The sizes.
 * @where: Where to look for the kernel's tmpfs.
 */
void shmb_init(struct shm_bench *b, const struct shm_scale *scale,
	       const struct shmk_where *where)
{
	/* One kernel file at a time, plus room for tmpfs's own use. */
	size_t room = scale->file_bytes + (16UL << 20);
	int m;

	memset(b, 0, sizeof(*b));
	b->scale = *scale;
	b->kfd = -1;
	shmk_find(where, false, room, &b->kern[0]);
	shmk_find(where, true, room, &b->kern[1]);
	b->src = shmb_xalloc(scale->file_bytes, "the pattern");
	shmb_fill_pattern(b->src, scale->file_bytes);
	b->buf = shmb_xalloc(SHMB_MAX_BS, "the read buffer");
	for (m = 0; m < SHMB_NR_READERS; m++)
		b->scratch[m] = shmb_xalloc(SHMB_MAX_BS, "the checks");
}

/**
 * shmb_free() - Free what shmb_init() allocated.
 * @b: The state.
 */
void shmb_free(struct shm_bench *b)
{
	int m;

	if (b->arena)
		shmb_group_close(b);
	free(b->src);
	free(b->buf);
	for (m = 0; m < SHMB_NR_READERS; m++)
		free(b->scratch[m]);
	memset(b, 0, sizeof(*b));
	b->kfd = -1;
}

/* shmb_group_name() - "normal/nohuge" and so on, for messages. */
static const char *shmb_group_name(const struct shm_bench *b, char *buf,
				   size_t len)
{
	snprintf(buf, len, "%s/%s", shmk_kind_names[b->kind],
		 b->huge ? "huge" : "nohuge");
	return buf;
}

/*
 * shmb_write_file() - Write the pattern into the upcache file, 2 MiB a
 * call, so that huge=always gets one order-9 folio per call.
 */
static void shmb_write_file(struct shm_bench *b)
{
	size_t pos;

	for (pos = 0; pos < b->scale.file_bytes; pos += SHMB_HUGE_BYTES) {
		struct iovec iov = {
			.iov_base = b->src + pos, .iov_len = SHMB_HUGE_BYTES,
		};
		struct iov_iter iter;
		ssize_t n;

		iov_iter_init(&iter, &iov, 1, SHMB_HUGE_BYTES);
		n = shmem_write_iter(&b->sf, &iter, (int64_t)pos);
		if (n != (ssize_t)SHMB_HUGE_BYTES)
			bench_die("shmem: writing 2 MiB at %zu MiB of the "
				  "upcache file returned %zd", pos >> 20, n);
	}
}

/* shmb_build_file() - Create the open group's upcache file. */
static void shmb_build_file(struct shm_bench *b)
{
	int64_t size = (int64_t)b->scale.file_bytes;
	int err;

	err = upc_arena_create(b->scale.arena_bytes, &b->arena);
	if (err)
		bench_die("shmem: cannot create a %zu MiB arena: %s",
			  b->scale.arena_bytes >> 20, strerror(-err));
	err = shmem_file_init(&b->sf, b->arena,
			      b->huge ? SHMEM_HUGE_ALWAYS : SHMEM_HUGE_NEVER,
			      false);
	if (err)
		bench_die("shmem: cannot create a file: %s", strerror(-err));
	switch (b->kind) {
	case SHMK_NORMAL:
		shmb_write_file(b);
		break;
	case SHMK_FALLOC:
		err = shmem_fallocate(&b->sf, 0, size, false);
		if (err)
			bench_die("shmem: fallocate of %zu MiB failed: %s",
				  b->scale.file_bytes >> 20, strerror(-err));
		break;
	default:
		shmem_truncate(&b->sf, size);
		break;
	}
}

/*
 * shmb_check_folios() - Is the upcache file of its kind?  Every page
 * cached in folios of the policy's order, uptodate exactly when
 * written (normal, falloc), or nothing cached at all (hole).
 */
static void shmb_check_folios(struct shm_bench *b)
{
	pgoff_t pages = b->scale.file_bytes >> UPC_PAGE_SHIFT;
	unsigned int order = b->huge ? UPC_MAX_ORDER : 0;
	bool want_uptodate = b->kind == SHMK_NORMAL;
	pgoff_t index = 0, next = 0;
	struct folio_batch fbatch;
	char name[32];
	unsigned int i;

	folio_batch_init(&fbatch);
	while (filemap_get_folios(&b->sf.mapping, &index, pages - 1,
				  &fbatch)) {
		for (i = 0; i < folio_batch_count(&fbatch); i++) {
			struct folio *folio = fbatch.folios[i];

			if (folio->index != next ||
			    folio_order(folio) != order ||
			    folio_test_uptodate(folio) != want_uptodate)
				bench_die("shmem %s: page %lu holds an "
					  "order-%u folio at %lu (uptodate "
					  "%d), expected order %u at %lu "
					  "(uptodate %d)",
					  shmb_group_name(b, name,
							  sizeof(name)),
					  next, folio_order(folio),
					  folio->index,
					  folio_test_uptodate(folio), order,
					  next, want_uptodate);
			next = folio_next_index(folio);
		}
		folio_batch_release(&fbatch);
	}
	if (next != (b->kind == SHMK_HOLE ? 0 : pages) ||
	    b->sf.mapping.nrpages != next)
		bench_die("shmem %s: %lu pages cached (nrpages %lu), expected "
			  "%lu", shmb_group_name(b, name, sizeof(name)), next,
			  b->sf.mapping.nrpages,
			  b->kind == SHMK_HOLE ? 0UL : pages);
}

/*
 * shmb_check_one() - Read [@pos, @pos + @bs) with every method that
 * reads a file; each must return @want bytes, the same ones, and the
 * ones the file holds.
 */
static void shmb_check_one(struct shm_bench *b, int64_t pos, size_t bs,
			   size_t want)
{
	char name[32];
	int m;

	for (m = 0; m < SHMB_NR_READERS; m++) {
		ssize_t n;

		if (m == SHMB_KERNEL && b->kfd < 0)
			continue;
		memset(b->scratch[m], 0x5a, bs);
		n = shmb_read(b, (enum shmb_method)m, b->scratch[m], bs, pos);
		if (n != (ssize_t)want ||
		    !shmb_check_block(b, b->scratch[m], want, pos) ||
		    memcmp(b->scratch[m], b->scratch[0], want))
			bench_die("shmem %s: %s read of %zu bytes at %lld "
				  "returned %zd (expected %zu)%s",
				  shmb_group_name(b, name, sizeof(name)),
				  shmb_method_names[m], bs, (long long)pos, n,
				  want, n == (ssize_t)want ?
				  ", not the bytes the file holds" : "");
		b->reads_checked++;
	}
}

/*
 * shmb_check_reads() - For every block size: the first, a middle and
 * the last block, one that starts off a page boundary, and one that
 * runs past the end of the file (a short read).
 */
static void shmb_check_reads(struct shm_bench *b)
{
	int64_t size = (int64_t)b->scale.file_bytes;
	int i;

	for (i = 0; i < SHMB_NR_BS; i++) {
		int64_t bs = (int64_t)shmb_bs[i];

		shmb_check_one(b, 0, (size_t)bs, (size_t)bs);
		shmb_check_one(b, size / 2 / bs * bs, (size_t)bs, (size_t)bs);
		shmb_check_one(b, size - bs, (size_t)bs, (size_t)bs);
		shmb_check_one(b, size / 3 / bs * bs + 1000, (size_t)bs,
			       (size_t)bs);
		shmb_check_one(b, size - bs / 2 - 3, (size_t)bs,
			       (size_t)(bs / 2 + 3));
	}
}

/**
 * shmb_group_open() - Create the files of one group and check them.
 * @b: The state.
 * @kind: The files' kind.
 * @huge: The upcache file's huge policy is ALWAYS (else NEVER).
 */
void shmb_group_open(struct shm_bench *b, enum shmk_kind kind, bool huge)
{
	if (b->arena)
		bench_die("shmem: a group is already open");
	b->kind = kind;
	b->huge = huge;
	shmb_build_file(b);
	shmb_check_folios(b);
	if (b->kern[huge].usable)
		b->kfd = shmk_create(&b->kern[huge], kind, b->src,
				     b->scale.file_bytes);
	shmb_check_reads(b);
}

/**
 * shmb_group_close() - Free the files of the open group.
 * @b: The state.
 */
void shmb_group_close(struct shm_bench *b)
{
	char name[32];
	unsigned long charged;

	shmem_file_destroy(&b->sf);
	charged = upc_arena_charged(b->arena);
	if (charged)
		bench_die("shmem %s: %lu pages still charged to the arena "
			  "after the file was freed",
			  shmb_group_name(b, name, sizeof(name)), charged);
	/* The tree's nodes go after a grace period: before the arena. */
	upc_rcu_barrier();
	upc_arena_destroy(b->arena);
	b->arena = NULL;
	if (b->kfd >= 0)
		close(b->kfd);
	b->kfd = -1;
}
