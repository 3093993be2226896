// SPDX-License-Identifier: MIT
/*
 * mm/iov_iter.c - moving bytes between the page cache and the caller's
 * iovecs (see mm/iov_iter.h).
 *
 * The kernel keeps its iov_iter in lib/; this one lives in mm/ because
 * only the page cache's read and write paths use it.  Each helper walks
 * the segments with iov_iter_step(); the common case, a piece that fits
 * in the current segment, is inline in mm/iov_iter.h, so a read into one
 * buffer costs one memcpy() or memset() per piece of file, as a plain
 * copy would.
 */
#include "iov_iter.h"

size_t iov_iter_step(struct iov_iter *i, size_t bytes)
{
	size_t len;

	if (bytes > i->count)
		bytes = i->count;
	if (!bytes)
		return 0;
	/* Skip finished and empty segments; count > 0 means one is left. */
	while (i->iov_offset == i->iov->iov_len) {
		i->iov++;
		i->nr_segs--;
		i->iov_offset = 0;
	}
	len = i->iov->iov_len - i->iov_offset;
	return len < bytes ? len : bytes;
}

size_t copy_to_iter_segs(const void *from, size_t bytes, struct iov_iter *i)
{
	const char *src = from;
	size_t done = 0, len;

	while ((len = iov_iter_step(i, bytes - done))) {
		memcpy(iov_iter_base(i), src + done, len);
		iov_iter_advance_step(i, len);
		done += len;
	}
	return done;
}

size_t copy_from_iter_segs(void *to, size_t bytes, struct iov_iter *i)
{
	char *dst = to;
	size_t done = 0, len;

	while ((len = iov_iter_step(i, bytes - done))) {
		memcpy(dst + done, iov_iter_base(i), len);
		iov_iter_advance_step(i, len);
		done += len;
	}
	return done;
}

size_t iov_iter_zero_segs(size_t bytes, struct iov_iter *i)
{
	size_t done = 0, len;

	while ((len = iov_iter_step(i, bytes - done))) {
		memset(iov_iter_base(i), 0, len);
		iov_iter_advance_step(i, len);
		done += len;
	}
	return done;
}
