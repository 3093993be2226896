/* SPDX-License-Identifier: MIT */
/*
 * mm/iov_iter.h - a cursor over the caller's buffers (struct iovec), for
 * the read and write paths (internal).
 *
 * The kernel's lib/iov_iter.c, cut down to what userspace needs: one
 * kind of iterator (plain memory described by iovecs), copying to and
 * from it and zero-filling it.  Copies cannot fault half-way here, so
 * every helper moves exactly the bytes asked for, or what is left.
 *
 * Conventions: @i is the iterator, @bytes a number of bytes to move.
 */
#ifndef UPCACHE_MM_IOV_ITER_H
#define UPCACHE_MM_IOV_ITER_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/uio.h>

/**
 * struct iov_iter - where the next byte goes to or comes from.
 * @iov: The current segment.
 * @nr_segs: Segments left, the current one included.
 * @iov_offset: Bytes of the current segment already used.
 * @count: Bytes left in all segments together.
 */
struct iov_iter {
	const struct iovec *iov;
	unsigned long nr_segs;
	size_t iov_offset;
	size_t count;
};

/**
 * iov_iter_init() - Start an iterator over @nr_segs segments.
 * @i: The iterator.
 * @iov: The segments; their total length must be @count.
 * @nr_segs: How many.
 * @count: Their total length.
 *
 * Context: Any thread.
 */
static inline void iov_iter_init(struct iov_iter *i, const struct iovec *iov,
				 unsigned long nr_segs, size_t count)
{
	i->iov = iov;
	i->nr_segs = nr_segs;
	i->iov_offset = 0;
	i->count = count;
}

/* iov_iter_count() - Bytes left. */
static inline size_t iov_iter_count(const struct iov_iter *i)
{
	return i->count;
}

/* iov_iter_truncate() - Forget all but the first @count bytes left. */
static inline void iov_iter_truncate(struct iov_iter *i, size_t count)
{
	if (i->count > count)
		i->count = count;
}

/**
 * iov_iter_step() - Bytes that can be moved in one piece, up to @bytes.
 * @i: The iterator; it is moved to the next non-empty segment first.
 * @bytes: The most the caller wants to move.
 *
 * Context: Any thread.
 * Return: The length of the next contiguous piece (0 when nothing is
 * left); its start is iov_iter_base().
 */
size_t iov_iter_step(struct iov_iter *i, size_t bytes);

/* iov_iter_base() - Where the piece iov_iter_step() measured starts. */
static inline char *iov_iter_base(const struct iov_iter *i)
{
	return (char *)i->iov->iov_base + i->iov_offset;
}

/* iov_iter_advance_step() - Consume @bytes of the current piece. */
static inline void iov_iter_advance_step(struct iov_iter *i, size_t bytes)
{
	i->iov_offset += bytes;
	i->count -= bytes;
}

/*
 * The longest copy copy_to_iter() makes inline with one memcpy(): a page.
 * Longer ones go out of line (copy_to_iter_segs(), through struct
 * copy_ahead): a source page at a time with the pages ahead prefetched,
 * on CPUs where that was measured to help (copy_prefetch_set()).
 */
#define COPY_TO_ITER_INLINE_MAX	4096

/**
 * copy_to_iter_segs() - copy_to_iter() across segments, and for copies
 * longer than COPY_TO_ITER_INLINE_MAX (out of line).
 * @from: The source.
 * @bytes: How many bytes.
 * @i: The iterator, advanced past what was copied.
 *
 * Context: Any thread.
 * Return: The bytes copied: @bytes, or fewer if the buffers ran out.
 */
size_t copy_to_iter_segs(const void *from, size_t bytes, struct iov_iter *i);

/**
 * copy_prefetch_set() - Choose how long copies to an iterator go: a page
 * at a time with the pages ahead prefetched (@on), or a run at a time.
 * @on: The choice.
 *
 * The library picks by CPU on first use (mm/iov_iter.c); tests call this
 * to run both ways.
 *
 * Context: Before the copies it should affect; any thread.
 */
void copy_prefetch_set(bool on);

/* How many runs of source memory struct copy_ahead keeps queued. */
#define COPY_AHEAD_RUNS		4

/**
 * struct copy_ahead - copies to an iterator, queued so that the source
 * pages that follow can be prefetched before each page is copied.
 * @iter: Where the copies go, in the order they were added.
 * @copied: Bytes copied to @iter since the last copy_ahead_flush().
 * @nr: Runs queued.
 * @run: The queued runs, oldest first: @len bytes of memory at @src.
 *
 * A read adds the parts of the folios it meets in file order; a part
 * that begins where the last run ends in memory joins it.  The source
 * must stay valid and unchanged until it is copied: at the latest by
 * copy_ahead_flush().
 */
struct copy_ahead {
	struct iov_iter *iter;
	size_t copied;
	unsigned int nr;
	struct {
		const char *src;
		size_t len;
	} run[COPY_AHEAD_RUNS];
};

/* copy_ahead_init() - Start an empty queue of copies to @iter. */
static inline void copy_ahead_init(struct copy_ahead *ca, struct iov_iter *iter)
{
	ca->iter = iter;
	ca->copied = 0;
	ca->nr = 0;
}

/**
 * copy_ahead_add() - Queue a copy of @len bytes from @src.
 * @ca: The queue.
 * @src: The source.
 * @len: How many bytes; 0 queues nothing.
 *
 * With the queue full, the oldest run is copied first.  A run that does
 * not join the last one has its first cache line prefetched at once.
 *
 * Context: Any thread; the caller keeps every queued source valid.
 */
void copy_ahead_add(struct copy_ahead *ca, const void *src, size_t len);

/**
 * copy_ahead_flush() - Make every queued copy, in order.
 * @ca: The queue; empty afterwards.
 *
 * Context: Any thread.
 * Return: The bytes copied since the last flush: all those added, or
 * fewer if the iterator's buffers ran out.
 */
size_t copy_ahead_flush(struct copy_ahead *ca);

/**
 * copy_from_iter_segs() - copy_from_iter() across segments (out of line).
 * @to: The destination.
 * @bytes: How many bytes.
 * @i: The iterator, advanced past what was copied.
 *
 * Context: Any thread.
 * Return: The bytes copied: @bytes, or fewer if the buffers ran out.
 */
size_t copy_from_iter_segs(void *to, size_t bytes, struct iov_iter *i);

/**
 * iov_iter_zero_segs() - iov_iter_zero() across segments (out of line).
 * @bytes: How many bytes.
 * @i: The iterator, advanced past what was filled.
 *
 * Context: Any thread.
 * Return: The bytes zeroed: @bytes, or fewer if the buffers ran out.
 */
size_t iov_iter_zero_segs(size_t bytes, struct iov_iter *i);

/*
 * Do the next @bytes fit in what is left of the current segment?  (An
 * empty iterator may have no segment at all: nothing is looked at then.)
 */
static inline bool iov_iter_fits(const struct iov_iter *i, size_t bytes)
{
	return bytes <= i->count &&
	       (!bytes || bytes <= i->iov->iov_len - i->iov_offset);
}

/**
 * copy_to_iter() - Copy @bytes from @from into the iterator's buffers.
 * @from: The source.
 * @bytes: How many bytes.
 * @i: The iterator, advanced past what was copied.
 *
 * Context: Any thread.
 * Return: The bytes copied: @bytes, or fewer if the buffers ran out.
 */
static inline size_t copy_to_iter(const void *from, size_t bytes,
				  struct iov_iter *i)
{
	if (bytes > COPY_TO_ITER_INLINE_MAX || !iov_iter_fits(i, bytes))
		return copy_to_iter_segs(from, bytes, i);
	memcpy(iov_iter_base(i), from, bytes);
	iov_iter_advance_step(i, bytes);
	return bytes;
}

/**
 * copy_from_iter() - Copy @bytes from the iterator's buffers to @to.
 * @to: The destination.
 * @bytes: How many bytes.
 * @i: The iterator, advanced past what was copied.
 *
 * Context: Any thread.
 * Return: The bytes copied: @bytes, or fewer if the buffers ran out.
 */
static inline size_t copy_from_iter(void *to, size_t bytes,
				    struct iov_iter *i)
{
	if (!iov_iter_fits(i, bytes))
		return copy_from_iter_segs(to, bytes, i);
	memcpy(to, iov_iter_base(i), bytes);
	iov_iter_advance_step(i, bytes);
	return bytes;
}

/**
 * iov_iter_zero() - Fill @bytes of the iterator's buffers with zeros.
 * @bytes: How many bytes.
 * @i: The iterator, advanced past what was filled.
 *
 * One memset() per segment touched, however long the run.
 *
 * Context: Any thread.
 * Return: The bytes zeroed: @bytes, or fewer if the buffers ran out.
 */
static inline size_t iov_iter_zero(size_t bytes, struct iov_iter *i)
{
	if (!iov_iter_fits(i, bytes))
		return iov_iter_zero_segs(bytes, i);
	memset(iov_iter_base(i), 0, bytes);
	iov_iter_advance_step(i, bytes);
	return bytes;
}

#endif /* UPCACHE_MM_IOV_ITER_H */
