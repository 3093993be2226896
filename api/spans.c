// SPDX-License-Identifier: MIT
/*
 * api/spans.c - zero-copy access: pinning a range's folios so that the
 * caller reads them in place (include/upcache/upcache.h).
 *
 * A span is one piece of shmem_for_each_piece()'s walk (an fd file's:
 * fd_file_for_each_folio()): an uptodate folio's part of the range,
 * pinned (folio_try_pin(): references reclaim knows not to wait for),
 * or, in a shmem file, a run of zeros (holes and unwritten folios) with
 * no data pointer.  The pin keeps the memory from being freed, not from
 * changing: a later write may change the bytes, a truncation or punch
 * removes the folio from the file and the last upc_put_spans() frees it.
 */
#include <errno.h>
#include <limits.h>

#include "internal.h"

struct span_fill {
	struct upc_span *spans;
	unsigned int max;
	unsigned int nr;
	int err;	/* -EOVERFLOW: a folio could take no more pins */
};

static bool span_piece(const struct shmem_piece *piece, void *arg)
{
	struct span_fill *fill = arg;
	struct upc_span *span;

	if (piece->folio && !folio_try_pin(piece->folio)) {
		fill->err = -EOVERFLOW;
		return false;
	}
	span = &fill->spans[fill->nr++];
	span->offset = piece->pos;
	span->len = piece->len;
	span->data = NULL;
	span->folio = piece->folio;
	if (piece->folio)
		span->data = (const char *)folio_address(piece->folio) +
			     piece->offset;
	/* Full: stop here, before the walk swaps in a page for nothing. */
	return fill->nr < fill->max;
}

/* An fd file's folio: the same as a shmem piece with data. */
static bool span_folio(struct folio *folio, size_t offset, int64_t pos,
		       size_t len, void *arg)
{
	struct shmem_piece piece = {
		.folio = folio, .offset = offset, .pos = pos, .len = len,
	};

	return span_piece(&piece, arg);
}

int upc_get_spans(struct upc_file *file, int64_t offset, size_t len,
		  struct upc_span *spans, unsigned int max_spans)
{
	struct span_fill fill = { .spans = spans, .max = max_spans };
	int err = 0;

	/* The count is returned as an int. */
	if (fill.max > INT_MAX)
		fill.max = INT_MAX;

	if (!upc_file_ok(file))
		return -EBADF;
	if (offset < 0 || (!spans && max_spans))
		return -EINVAL;
	if (max_spans && file->kind == UPC_FILE_FD)
		err = fd_file_for_each_folio(&file->fdf, offset, len,
					     span_folio, &fill);
	else if (max_spans)
		err = shmem_for_each_piece(&file->shmem, offset, len,
					   span_piece, &fill);
	/* A swap-in or a pin failed: the spans before it, or its error. */
	if (!err)
		err = fill.err;
	return fill.nr || !err ? (int)fill.nr : err;
}

void upc_put_spans(struct upc_span *spans, unsigned int nr)
{
	unsigned int i;

	if (!spans)
		return;
	for (i = 0; i < nr; i++) {
		if (spans[i].folio)
			folio_unpin(spans[i].folio);
		spans[i].folio = NULL;
		spans[i].data = NULL;
	}
}
