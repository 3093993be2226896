/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_input.h - reading a fuzzer's bytes as a stream.
 *
 * The fuzz targets decode their input into operations a byte at a time;
 * an exhausted input reads as zeros, so every input decodes to something.
 */
#ifndef UPCACHE_TESTS_FUZZ_INPUT_H
#define UPCACHE_TESTS_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

/* The bytes not yet consumed. */
struct input {
	const uint8_t *p;
	size_t n;
};

/* u8() - The next byte, or 0 once the input is used up. */
static inline uint8_t u8(struct input *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

/* u_le() - The next @bytes bytes (at most 4), little-endian. */
static inline uint32_t u_le(struct input *in, unsigned int bytes)
{
	uint32_t v = 0;
	unsigned int i;

	for (i = 0; i < bytes; i++)
		v |= (uint32_t)u8(in) << (8 * i);
	return v;
}

/*
 * in_offset() - A file offset: 3 bytes modulo @size + 1; with bit 7 of
 * the operation byte @op set, a bad one instead (negative, or within
 * 64 KiB of INT64_MAX), as the file targets' formats say.
 */
static inline int64_t in_offset(struct input *in, uint8_t op, int64_t size)
{
	int64_t off = (int64_t)(u_le(in, 3) % (uint64_t)(size + 1));

	if (!(op & 0x80))
		return off;
	return off & 1 ? -1 - (off & 0xff) : INT64_MAX - (off & 0xffff);
}

/* in_len() - A length: 2 bytes, below 0xf000 as they are, else up to @size. */
static inline int64_t in_len(struct input *in, int64_t size)
{
	uint32_t v = u_le(in, 2);

	return v < 0xf000 ? v : (int64_t)(v - 0xf000) * (size / 0xfff);
}

/* The smaller and the larger of two offsets or lengths. */
static inline int64_t in_min(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static inline int64_t in_max(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

#endif /* UPCACHE_TESTS_FUZZ_INPUT_H */
