/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/json.h - a streaming JSON writer.
 *
 * upcache-bench prints one JSON object per suite,
 *
 *	{"benchmark": NAME, "rows": [{"name": ..., figures ...}, ...]}
 *
 * and its consumers (tools/plot/plot_bench.py, CI scripts, python3 -m
 * json.tool) must be able to parse it without knowing C's printf quirks.
 * So the writer, not its callers, owns every detail of the syntax:
 * commas, escaping (control characters as \uXXXX, bytes that are not
 * UTF-8 as U+FFFD), and numbers (NaN and infinities, which JSON cannot spell,
 * become null).  A misuse, such as a value inside an object without a key,
 * is recorded once and reported by bench_json_finish() instead of writing
 * invalid text silently.
 *
 * Pure code (no upcache calls), compiled into tests/bench/ directly.
 */
#ifndef UPCACHE_TOOLS_BENCH_JSON_H
#define UPCACHE_TOOLS_BENCH_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define BENCH_JSON_MAX_DEPTH	16

/**
 * struct bench_json - state of one JSON document being written.
 * @out: Where the text goes.
 * @depth: Number of open containers.
 * @is_object: Per open container: true for an object, false for an array.
 * @has_items: Per open container: whether a member was written (comma).
 * @want_value: A key was written and its value is due.
 * @done: A complete top-level value was written.
 * @error: 0, or the first misuse (-EINVAL) or write error (-EIO).
 */
struct bench_json {
	FILE *out;
	unsigned int depth;
	bool is_object[BENCH_JSON_MAX_DEPTH];
	bool has_items[BENCH_JSON_MAX_DEPTH];
	bool want_value;
	bool done;
	int error;
};

/**
 * bench_json_init() - Start a JSON document.
 * @js: The writer state.
 * @out: The stream to write to.
 */
void bench_json_init(struct bench_json *js, FILE *out);

/**
 * bench_json_begin_object() - Open an object ("{").
 * @js: The writer state.
 */
void bench_json_begin_object(struct bench_json *js);

/**
 * bench_json_end_object() - Close the innermost container, an object.
 * @js: The writer state.
 */
void bench_json_end_object(struct bench_json *js);

/**
 * bench_json_begin_array() - Open an array ("[").
 * @js: The writer state.
 */
void bench_json_begin_array(struct bench_json *js);

/**
 * bench_json_end_array() - Close the innermost container, an array.
 * @js: The writer state.
 */
void bench_json_end_array(struct bench_json *js);

/**
 * bench_json_key() - Write the key of the next object member.
 * @js: The writer state.
 * @key: The key, escaped as any string.
 */
void bench_json_key(struct bench_json *js, const char *key);

/**
 * bench_json_string() - Write a string value.
 * @js: The writer state.
 * @s: The string; NULL writes null.
 */
void bench_json_string(struct bench_json *js, const char *s);

/**
 * bench_json_number() - Write a number.
 * @js: The writer state.
 * @v: The value.  An integral value below 2^53 in magnitude is written
 *	without a fraction; others with 6 significant digits; NaN and
 *	infinities as null.
 */
void bench_json_number(struct bench_json *js, double v);

/**
 * bench_json_uint() - Write an unsigned integer exactly.
 * @js: The writer state.
 * @v: The value.
 */
void bench_json_uint(struct bench_json *js, uint64_t v);

/**
 * bench_json_bool() - Write true or false.
 * @js: The writer state.
 * @v: The value.
 */
void bench_json_bool(struct bench_json *js, bool v);

/**
 * bench_json_null() - Write null.
 * @js: The writer state.
 */
void bench_json_null(struct bench_json *js);

/**
 * bench_json_finish() - End the document with a newline and check it.
 * @js: The writer state.
 *
 * Return: 0 if exactly one complete value was written; -EINVAL after a
 * misuse or with containers still open; -EIO if the stream failed.
 */
int bench_json_finish(struct bench_json *js);

#endif /* UPCACHE_TOOLS_BENCH_JSON_H */
