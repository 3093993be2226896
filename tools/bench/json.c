// SPDX-License-Identifier: MIT
/*
 * tools/bench/json.c - a streaming JSON writer (RFC 8259 output).
 *
 * Conventions: @js is the writer state.  Every value goes through
 * json_value_prefix(), which checks that a value may appear here and
 * writes the separating comma; the public functions only write tokens.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "json.h"

#define JSON_EXACT_LIMIT	9007199254740992.0	/* 2^53 */

/* json_fail() - Record the first error; later output is suppressed. */
static void json_fail(struct bench_json *js, int err)
{
	if (!js->error)
		js->error = err;
}

/*
 * json_value_prefix() - Get ready to write a value.
 *
 * A value is allowed at the top level (once), in an array, or in an
 * object right after its key.
 * Return: true if the value may be written.
 */
static bool json_value_prefix(struct bench_json *js)
{
	unsigned int top = js->depth - 1;

	if (js->error)
		return false;
	if (js->depth == 0) {
		if (js->done)
			json_fail(js, -EINVAL);
		return !js->error;
	}
	if (js->is_object[top]) {
		if (!js->want_value)
			json_fail(js, -EINVAL);
		js->want_value = false;
		return !js->error;
	}
	if (js->has_items[top])
		fputc(',', js->out);
	js->has_items[top] = true;
	return true;
}

/* json_value_done() - A top-level value is complete. */
static void json_value_done(struct bench_json *js)
{
	if (js->depth == 0)
		js->done = true;
}

/**
 * bench_json_init() - Start a JSON document.
 * @js: The writer state.
 * @out: The stream to write to.
 */
void bench_json_init(struct bench_json *js, FILE *out)
{
	memset(js, 0, sizeof(*js));
	js->out = out;
}

/* json_begin() - Open a container of either kind. */
static void json_begin(struct bench_json *js, bool is_object)
{
	if (!json_value_prefix(js))
		return;
	if (js->depth == BENCH_JSON_MAX_DEPTH) {
		json_fail(js, -EINVAL);
		return;
	}
	fputc(is_object ? '{' : '[', js->out);
	js->is_object[js->depth] = is_object;
	js->has_items[js->depth] = false;
	js->depth++;
}

/* json_end() - Close the innermost container if it is of this kind. */
static void json_end(struct bench_json *js, bool is_object)
{
	if (js->error)
		return;
	if (js->depth == 0 || js->is_object[js->depth - 1] != is_object ||
	    js->want_value) {
		json_fail(js, -EINVAL);
		return;
	}
	fputc(is_object ? '}' : ']', js->out);
	js->depth--;
	json_value_done(js);
}

/**
 * bench_json_begin_object() - Open an object.
 * @js: The writer state.
 */
void bench_json_begin_object(struct bench_json *js)
{
	json_begin(js, true);
}

/**
 * bench_json_end_object() - Close the innermost container, an object.
 * @js: The writer state.
 */
void bench_json_end_object(struct bench_json *js)
{
	json_end(js, true);
}

/**
 * bench_json_begin_array() - Open an array.
 * @js: The writer state.
 */
void bench_json_begin_array(struct bench_json *js)
{
	json_begin(js, false);
}

/**
 * bench_json_end_array() - Close the innermost container, an array.
 * @js: The writer state.
 */
void bench_json_end_array(struct bench_json *js)
{
	json_end(js, false);
}

/*
 * json_utf8_len() - Length of the valid UTF-8 sequence starting at @s.
 *
 * Rejects overlong forms, surrogates and code points above U+10FFFF.
 * Return: 2, 3 or 4 for a valid multi-byte sequence, 0 otherwise.
 */
static size_t json_utf8_len(const unsigned char *s)
{
	size_t len, i;
	uint32_t cp;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

/* json_escape_ascii() - Write one byte below 0x80, escaped as needed. */
static void json_escape_ascii(FILE *out, unsigned char c)
{
	static const char short_escape[] = "\"\"\\\\\bb\ff\nn\rr\tt";
	const char *p;

	for (p = short_escape; *p; p += 2) {
		if (*p == (char)c) {
			fputc('\\', out);
			fputc(p[1], out);
			return;
		}
	}
	if (c < 0x20)
		fprintf(out, "\\u%04x", c);
	else
		fputc(c, out);
}

/* json_write_string() - Write @s as a quoted, escaped JSON string. */
static void json_write_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len;

	fputc('"', out);
	while (*p) {
		if (*p < 0x80) {
			json_escape_ascii(out, *p++);
			continue;
		}
		len = json_utf8_len(p);
		if (len) {
			fwrite(p, 1, len, out);
			p += len;
		} else {
			fputs("\\ufffd", out);
			p++;
		}
	}
	fputc('"', out);
}

/**
 * bench_json_key() - Write the key of the next object member.
 * @js: The writer state.
 * @key: The key.
 */
void bench_json_key(struct bench_json *js, const char *key)
{
	unsigned int top = js->depth - 1;

	if (js->error)
		return;
	if (js->depth == 0 || !js->is_object[top] || js->want_value || !key) {
		json_fail(js, -EINVAL);
		return;
	}
	if (js->has_items[top])
		fputc(',', js->out);
	js->has_items[top] = true;
	json_write_string(js->out, key);
	fputc(':', js->out);
	js->want_value = true;
}

/**
 * bench_json_string() - Write a string value.
 * @js: The writer state.
 * @s: The string; NULL writes null.
 */
void bench_json_string(struct bench_json *js, const char *s)
{
	if (!json_value_prefix(js))
		return;
	if (s)
		json_write_string(js->out, s);
	else
		fputs("null", js->out);
	json_value_done(js);
}

/**
 * bench_json_number() - Write a number.
 * @js: The writer state.
 * @v: The value; NaN and infinities are written as null.
 */
void bench_json_number(struct bench_json *js, double v)
{
	if (!json_value_prefix(js))
		return;
	if (!isfinite(v))
		fputs("null", js->out);
	else if (v == floor(v) && fabs(v) < JSON_EXACT_LIMIT)
		fprintf(js->out, "%.0f", v);
	else
		fprintf(js->out, "%.6g", v);
	json_value_done(js);
}

/**
 * bench_json_uint() - Write an unsigned integer exactly.
 * @js: The writer state.
 * @v: The value.
 */
void bench_json_uint(struct bench_json *js, uint64_t v)
{
	if (!json_value_prefix(js))
		return;
	fprintf(js->out, "%" PRIu64, v);
	json_value_done(js);
}

/**
 * bench_json_bool() - Write true or false.
 * @js: The writer state.
 * @v: The value.
 */
void bench_json_bool(struct bench_json *js, bool v)
{
	if (!json_value_prefix(js))
		return;
	fputs(v ? "true" : "false", js->out);
	json_value_done(js);
}

/**
 * bench_json_null() - Write null.
 * @js: The writer state.
 */
void bench_json_null(struct bench_json *js)
{
	bench_json_string(js, NULL);
}

/**
 * bench_json_finish() - End the document with a newline and check it.
 * @js: The writer state.
 *
 * Return: 0, -EINVAL for an incomplete or misused document, -EIO if the
 * stream failed.
 */
int bench_json_finish(struct bench_json *js)
{
	if (!js->error && (js->depth != 0 || !js->done))
		json_fail(js, -EINVAL);
	if (!js->error) {
		fputc('\n', js->out);
		if (fflush(js->out) != 0 || ferror(js->out))
			json_fail(js, -EIO);
	}
	return js->error;
}
