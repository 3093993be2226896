/* SPDX-License-Identifier: MIT */
/*
 * tests/utils/jread.h - a strict reader of upcache-bench's JSON, for the
 * benchmark tests.
 *
 * It accepts exactly one JSON value (what RFC 8259 allows, nothing it
 * forbids) and records what the tests check in a suite's object: the
 * top-level keys, and for each object of the "rows" array its name and
 * its keys with whether each value is a number, and the number.
 */
#ifndef UPCACHE_TESTS_UTILS_JREAD_H
#define UPCACHE_TESTS_UTILS_JREAD_H

#include <stdbool.h>

#define JROW_MAX_FIELDS	64
#define JMAX_ROWS	64

/**
 * struct jrow - one object of the "rows" array, as read from the text.
 * @name: Its "name".
 * @keys: Its keys, in order.
 * @is_num: Per key: the value is a number (not null, a string ...).
 * @num: Per key: the number, if it is one.
 * @nr: Number of @keys.
 */
struct jrow {
	char name[48];
	char keys[JROW_MAX_FIELDS][40];
	bool is_num[JROW_MAX_FIELDS];
	double num[JROW_MAX_FIELDS];
	int nr;
};

/**
 * struct jread - a strict reader of a suite's JSON text.
 * @p: The next character.
 * @top: Keys of the top-level object.
 * @nr_top: Number of @top.
 * @rows: The row objects found in "rows".
 * @nr_rows: Number of @rows.
 */
struct jread {
	const char *p;
	char top[JROW_MAX_FIELDS][40];
	int nr_top;
	struct jrow rows[JMAX_ROWS];
	int nr_rows;
};

/**
 * jread_parse() - Read @text: exactly one JSON value and white space.
 * @jr: Receives what was read.
 * @text: The text.
 *
 * Return: true if @text is valid JSON within the reader's limits
 * (JMAX_ROWS rows, JROW_MAX_FIELDS keys a row).
 */
bool jread_parse(struct jread *jr, const char *text);

/**
 * jread_row_kind() - What a row holds under @key.
 * @row: The row.
 * @key: The key.
 *
 * Return: 1 if the value is a number, 0 if it is something else, -1 if
 * the row has no such key.
 */
int jread_row_kind(const struct jrow *row, const char *key);

/**
 * jread_row_num() - The number a row holds under @key.
 * @row: The row.
 * @key: The key.
 *
 * Return: The number; NaN if the key is absent or not a number.
 */
double jread_row_num(const struct jrow *row, const char *key);

/**
 * jread_find_row() - The row named @name.
 * @jr: What jread_parse() read.
 * @name: The row's "name".
 *
 * Return: The row, or NULL.
 */
const struct jrow *jread_find_row(const struct jread *jr, const char *name);

/**
 * jread_has_top() - Has the top-level object the key @key?
 * @jr: What jread_parse() read.
 * @key: The key.
 */
bool jread_has_top(const struct jread *jr, const char *key);

#endif /* UPCACHE_TESTS_UTILS_JREAD_H */
