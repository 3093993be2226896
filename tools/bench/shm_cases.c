// SPDX-License-Identifier: MIT
/*
 * tools/bench/shm_cases.c - the measured reads of the shmem suite.
 *
 * Owns every timed body of `upcache-bench shmem` and the checks around
 * it (shm_cases.h): one read by each method, the loop that reads a
 * whole file in blocks, the poisoning of the destination before a round
 * and the check of its last block after.  Each method has a loop of its
 * own, so a round times the method and a loop increment, nothing else.
 *
 * Conventions: @c is the case, @b the shared state, @bs a block size.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "shm_baseline.h"
#include "shm_cases.h"
#include "util.h"

const size_t shmb_bs[SHMB_NR_BS] = { 4UL << 10, 64UL << 10, 1UL << 20 };
const char *const shmb_bs_names[SHMB_NR_BS] = { "4k", "64k", "1m" };
const char *const shmb_method_names[SHMB_NR_METHODS] = {
	"batched", "per_folio", "kernel", "memcpy",
};

/* shmb_batched_read() - shmem_read_iter() into one buffer, as upc_read(). */
static inline ssize_t shmb_batched_read(struct shmem_file *sf, void *buf,
					size_t count, int64_t pos)
{
	struct iovec iov = { .iov_base = buf, .iov_len = count };
	struct iov_iter iter;

	iov_iter_init(&iter, &iov, 1, count);
	return shmem_read_iter(sf, &iter, pos);
}

/**
 * shmb_read() - One read of the open group's file by one method.
 * @b: The state.
 * @method: How to read.
 * @buf: Where the bytes go.
 * @count: How many.
 * @pos: File offset.
 *
 * Return: The bytes read, or a negative errno.
 */
ssize_t shmb_read(struct shm_bench *b, enum shmb_method method, void *buf,
		  size_t count, int64_t pos)
{
	ssize_t n;

	switch (method) {
	case SHMB_BATCHED:
		return shmb_batched_read(&b->sf, buf, count, pos);
	case SHMB_PER_FOLIO:
		return shmb_per_folio_read(&b->sf, buf, count, pos);
	case SHMB_KERNEL:
		n = pread(b->kfd, buf, count, (off_t)pos);
		return n < 0 ? -errno : n;
	default:
		if ((uint64_t)pos >= b->scale.file_bytes)
			return 0;
		if (count > b->scale.file_bytes - (size_t)pos)
			count = b->scale.file_bytes - (size_t)pos;
		memcpy(buf, b->src + pos, count);
		return (ssize_t)count;
	}
}

/* shmb_all_zero() - Are the @count bytes at @p all zero? */
static bool shmb_all_zero(const unsigned char *p, size_t count)
{
	return !count || (!p[0] && !memcmp(p, p + 1, count - 1));
}

/**
 * shmb_check_block() - Does a block hold what the group's file holds?
 * @b: The state.
 * @block: The bytes read.
 * @count: How many.
 * @pos: The file offset they were read from.
 *
 * Return: true if they are right.
 */
bool shmb_check_block(const struct shm_bench *b, const unsigned char *block,
		      size_t count, int64_t pos)
{
	if (b->kind != SHMK_NORMAL)
		return shmb_all_zero(block, count);
	return !memcmp(block, b->src + pos, count);
}

/* shmb_short() - A read in a timed loop went wrong: say where, and die. */
__attribute__((noreturn, cold))
static void shmb_short(const struct shmb_case *c, int64_t pos, ssize_t n)
{
	bench_die("shmem %s: %s read of %zu bytes at %lld returned %zd",
		  c->row, shmb_method_names[c->method], c->bs, (long long)pos,
		  n);
}

/*
 * The loops.  Each reads the file from start to end in blocks of @c->bs
 * into @b->buf; the file's size is a multiple of every block size.
 */
static void shmb_loop_batched(const struct shmb_case *c)
{
	struct shm_bench *b = c->b;
	int64_t pos, size = (int64_t)b->scale.file_bytes;
	ssize_t n;

	for (pos = 0; pos < size; pos += (int64_t)c->bs) {
		n = shmb_batched_read(&b->sf, b->buf, c->bs, pos);
		if (__builtin_expect(n != (ssize_t)c->bs, 0))
			shmb_short(c, pos, n);
	}
}

static void shmb_loop_per_folio(const struct shmb_case *c)
{
	struct shm_bench *b = c->b;
	int64_t pos, size = (int64_t)b->scale.file_bytes;
	ssize_t n;

	for (pos = 0; pos < size; pos += (int64_t)c->bs) {
		n = shmb_per_folio_read(&b->sf, b->buf, c->bs, pos);
		if (__builtin_expect(n != (ssize_t)c->bs, 0))
			shmb_short(c, pos, n);
	}
}

static void shmb_loop_kernel(const struct shmb_case *c)
{
	struct shm_bench *b = c->b;
	int64_t pos, size = (int64_t)b->scale.file_bytes;
	ssize_t n;

	for (pos = 0; pos < size; pos += (int64_t)c->bs) {
		n = pread(b->kfd, b->buf, c->bs, (off_t)pos);
		if (__builtin_expect(n != (ssize_t)c->bs, 0))
			shmb_short(c, pos, n < 0 ? -errno : n);
	}
}

static void shmb_loop_memcpy(const struct shmb_case *c)
{
	struct shm_bench *b = c->b;
	size_t pos, size = b->scale.file_bytes;

	for (pos = 0; pos < size; pos += c->bs) {
		memcpy(b->buf, b->src + pos, c->bs);
		/* Every copy is kept: the compiler may not merge them. */
		__asm__ __volatile__("" : : "r"(b->buf) : "memory");
	}
}

/**
 * shmb_setup() - Poison the destination, so a read that wrote nothing
 * fails the check after the round.
 * @arg: The case.
 */
void shmb_setup(void *arg)
{
	struct shmb_case *c = arg;

	memset(c->b->buf, 0x5a, c->bs);
}

/**
 * shmb_body() - Read the whole file once in blocks of the case's size.
 * @arg: The case.
 *
 * Return: The number of blocks read.
 */
uint64_t shmb_body(void *arg)
{
	const struct shmb_case *c = arg;

	switch (c->method) {
	case SHMB_BATCHED:
		shmb_loop_batched(c);
		break;
	case SHMB_PER_FOLIO:
		shmb_loop_per_folio(c);
		break;
	case SHMB_KERNEL:
		shmb_loop_kernel(c);
		break;
	default:
		shmb_loop_memcpy(c);
		break;
	}
	return c->b->scale.file_bytes / c->bs;
}

/**
 * shmb_teardown() - Check the last block the round read.
 * @arg: The case.
 */
void shmb_teardown(void *arg)
{
	struct shmb_case *c = arg;
	struct shm_bench *b = c->b;
	int64_t last = (int64_t)(b->scale.file_bytes - c->bs);

	/* memcpy copies the pattern whatever the group's kind. */
	if (c->method == SHMB_MEMCPY ?
	    memcmp(b->buf, b->src + last, c->bs) :
	    !shmb_check_block(b, b->buf, c->bs, last))
		bench_die("shmem %s: the last block the %s loop read (%zu "
			  "bytes at %lld) is not what the file holds", c->row,
			  shmb_method_names[c->method], c->bs,
			  (long long)last);
	b->reads_checked++;
}
