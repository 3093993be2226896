// SPDX-License-Identifier: MIT
/*
 * tests/fuzz/fuzz_xarray.c - libFuzzer target: the XArray against its model.
 *
 * This file owns the fuzzer's input format.  Each input is decoded into
 * a short sequence of XArray operations (tests/utils/xa_harness.h),
 * applied to a real array and to the model; any difference, broken
 * invariant (upc_check_xarray()) or leaked node aborts, after printing
 * the sequence as C.  Missing bytes read as zero, so every input is
 * valid.
 *
 * Format:
 *	byte 0		array kind: % 8 == 6 XA_FLAGS_ALLOC, == 7
 *			XA_FLAGS_ALLOC1, else a plain array
 *	then, per operation (at most MAX_OPS):
 *	  op byte	enum xah_kind (% XAH_NR_KINDS; XAH_DESTROY only
 *			from 0xff)
 *	  index		selector s, then: s>>6 == 0: ((s & 63) << 8) | byte;
 *			1: u16 << (s & 63); 2: ULONG_MAX - (((s & 63) << 16)
 *			| u16); 3: u64 (little-endian)
 *	  order		byte b: b < 128: 0; b < 224: (b - 128) % 13;
 *			else one of 13..64
 *	  arg		byte (mark, filter, flags, count)
 *	  last		an index as above (or a count)
 *	  entry, old	byte b: < 8 NULL, < 12 XA_ZERO_ENTRY, < 14 an
 *			internal entry no array may hold, < 80 a pointer,
 *			else a value; then one more byte of payload
 *
 * Run without libFuzzer by tests/fuzz/replay_main.c over the seed corpus
 * tests/fuzz/corpus/fuzz_xarray/.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <upcache/xarray.h>

#include "xa_harness.h"

#include "fuzz_input.h"

#define MAX_OPS		256


static uint16_t u16(struct input *in)
{
	uint16_t lo = u8(in);

	return (uint16_t)(lo | (u8(in) << 8));
}

static uint64_t u64(struct input *in)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < 8; i++)
		v |= (uint64_t)u8(in) << (8 * i);
	return v;
}

static unsigned long rd_index(struct input *in)
{
	uint8_t s = u8(in);
	unsigned long lo = s & 63;

	switch (s >> 6) {
	case 0:
		return (lo << 8) | u8(in);
	case 1:
		return (unsigned long)u16(in) << lo;
	case 2:
		return ULONG_MAX - ((lo << 16) | u16(in));
	default:
		return (unsigned long)u64(in);
	}
}

static unsigned int rd_order(struct input *in)
{
	static const uint8_t big[32] = {
		13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28,
		30, 32, 34, 36, 40, 42, 47, 48, 52, 54, 58, 60, 61, 62, 63, 64,
	};
	uint8_t b = u8(in);

	if (b < 128)
		return 0;
	if (b < 224)
		return (b - 128) % 13;
	return big[b - 224];
}

static void *rd_entry(struct input *in)
{
	uint8_t b = u8(in), x = u8(in);

	if (b < 8)
		return NULL;
	if (b < 12)
		return XA_ZERO_ENTRY;
	if (b < 14)
		return x & 1 ? XA_RETRY_ENTRY : xa_mk_sibling(x % 63);
	if (b < 80)
		return (void *)(((unsigned long)x + 1) << 3);
	return xa_mk_value(((unsigned long)b << 8) | x);
}

/* decode() - The next operation; false when the input is used up. */
static bool decode(struct input *in, struct xah_op *op, bool alloc,
		   bool zero_busy)
{
	uint8_t kind;

	if (!in->n)
		return false;
	memset(op, 0, sizeof(*op));
	kind = u8(in);
	op->kind = kind == 0xff ? XAH_DESTROY : kind % XAH_DESTROY;
	op->index = rd_index(in);
	op->order = (uint8_t)rd_order(in);
	op->order2 = (uint8_t)rd_order(in);
	op->arg = u8(in);
	op->last = rd_index(in);
	op->entry = rd_entry(in);
	op->old = rd_entry(in);

	switch (op->kind) {
	case XAH_SET_MARK:
	case XAH_CLEAR_MARK:
		op->arg %= 4;		/* 3: an invalid mark */
		break;
	case XAH_FIND:
	case XAH_FIND_AFTER:
	case XAH_FOR_EACH:
	case XAH_XAS_FOR_EACH:
	case XAH_EXTRACT:
		op->arg = op->arg % 4 == 3 ? XA_PRESENT : op->arg % 4;
		op->order %= 8;
		if (op->kind == XAH_EXTRACT)
			op->order++;
		break;
	case XAH_STORE_ORDER:
		op->arg &= XAH_F_CONFLICT;
		break;
	case XAH_XAS_NEXT:
	case XAH_XAS_PREV:
		op->last %= 128;
		break;
	case XAH_ALLOC:
	case XAH_ALLOC_CYCLIC:
		op->index &= 0xffffffffUL;
		op->last &= 0xffffffffUL;
		break;
	default:
		break;
	}
	/* Plain-array operations that would break free-slot tracking. */
	if (alloc && (op->kind == XAH_STORE_ORDER || op->kind == XAH_SPLIT ||
		      op->kind == XAH_TRY_SPLIT))
		op->kind = XAH_STORE;
	/* Index 0 of an ALLOC1 array is the allocator's. */
	if (zero_busy && op->index == 0)
		op->index = 1;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	struct xa_harness h;
	struct xah_op op;
	gfp_t flags = 0;
	unsigned int nr;

	switch (u8(&in) % 8) {
	case 6:
		flags = XA_FLAGS_ALLOC;
		break;
	case 7:
		flags = XA_FLAGS_ALLOC1;
		break;
	default:
		break;
	}
	xah_init(&h, flags, MAX_OPS + 1);
	h.verify_every = 8;
	h.max_split_pieces = 8;
	for (nr = 0; nr < MAX_OPS; nr++) {
		if (!decode(&in, &op, flags & XA_FLAGS_TRACK_FREE,
			    flags & XA_FLAGS_ZERO_BUSY))
			break;
		if (xah_apply(&h, &op))
			goto failed;
	}
	if (xah_verify(&h))
		goto failed;
	if (xah_fini(&h)) {
		fprintf(stderr, "fuzz_xarray: final check failed\n");
		abort();
	}
	return 0;

failed:
	fprintf(stderr, "fuzz_xarray: the XArray differs from the model; the sequence:\n");
	xah_print_ops(stderr, flags, h.log, h.log_nr);
	abort();
}
