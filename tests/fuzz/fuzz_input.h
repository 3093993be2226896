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

#endif /* UPCACHE_TESTS_FUZZ_INPUT_H */
