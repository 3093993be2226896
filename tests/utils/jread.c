// SPDX-License-Identifier: MIT
/*
 * tests/utils/jread.c - a strict reader of upcache-bench's JSON (see
 * jread.h): a recursive descent over RFC 8259's grammar that keeps the
 * top-level keys and the keys of each object of "rows".
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "jread.h"

/* What the value just read was, for the caller recording it. */
enum jkind { J_BAD, J_NUM, J_STR, J_OTHER };

static enum jkind jr_value(struct jread *jr, int depth, char *str,
			   size_t len);

static void jr_skip_space(struct jread *jr)
{
	while (strchr(" \t\r\n", *jr->p) && *jr->p)
		jr->p++;
}

/*
 * jr_escape() - After a backslash: one of the escapes RFC 8259 defines
 * (\" \\ \/ \b \f \n \r \t \uXXXX)?  Leaves @jr->p on its last character.
 */
static bool jr_escape(struct jread *jr)
{
	int i;

	if (*jr->p != 'u')
		return *jr->p && strchr("\"\\/bfnrt", *jr->p);
	for (i = 0; i < 4; i++)
		if (!jr->p[1] || !strchr("0123456789abcdefABCDEF", *++jr->p))
			return false;
	return true;
}

/* jr_string() - A JSON string; its text (escapes kept) into @out. */
static bool jr_string(struct jread *jr, char *out, size_t len)
{
	size_t n = 0;

	if (*jr->p++ != '"')
		return false;
	for (; *jr->p != '"'; jr->p++) {
		if ((unsigned char)*jr->p < 0x20)
			return false;
		if (*jr->p == '\\' && (jr->p++, !jr_escape(jr)))
			return false;
		if (out && n + 1 < len)
			out[n++] = *jr->p;
	}
	jr->p++;
	if (out)
		out[n] = '\0';
	return true;
}

/* jr_digits() - Skip one or more digits; false if there is none. */
static bool jr_digits(const char **s)
{
	const char *start = *s;

	while (**s >= '0' && **s <= '9')
		(*s)++;
	return *s != start;
}

/* jr_number() - A number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool jr_number(struct jread *jr)
{
	const char *s = jr->p;

	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (!(*s >= '1' && *s <= '9') || !jr_digits(&s))
		return false;
	if (*s == '.' && (s++, !jr_digits(&s)))
		return false;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!jr_digits(&s))
			return false;
	}
	jr->p = s;
	return true;
}

/*
 * jr_members() - The members of an object, after its '{'.  At depth 1
 * (the top object) the keys go to @jr->top; at depth 3 (a row inside
 * "rows") to @row.
 */
static bool jr_members(struct jread *jr, int depth, struct jrow *row)
{
	char key[40];

	jr_skip_space(jr);
	if (*jr->p == '}') {
		jr->p++;
		return true;
	}
	for (;;) {
		char str[48] = "";
		const char *value;
		enum jkind kind;

		jr_skip_space(jr);
		if (!jr_string(jr, key, sizeof(key)))
			return false;
		jr_skip_space(jr);
		if (*jr->p++ != ':')
			return false;
		jr_skip_space(jr);
		value = jr->p;
		kind = jr_value(jr, depth, str, sizeof(str));
		if (kind == J_BAD)
			return false;
		if (depth == 1 && jr->nr_top < JROW_MAX_FIELDS)
			strcpy(jr->top[jr->nr_top++], key);
		if (row && row->nr < JROW_MAX_FIELDS) {
			strcpy(row->keys[row->nr], key);
			row->num[row->nr] = kind == J_NUM ?
				strtod(value, NULL) : NAN;
			row->is_num[row->nr++] = kind == J_NUM;
			if (!strcmp(key, "name"))
				strcpy(row->name, str);
		}
		jr_skip_space(jr);
		if (*jr->p == '}') {
			jr->p++;
			return true;
		}
		if (*jr->p++ != ',')
			return false;
	}
}

/* jr_elements() - The elements of an array, after its '['. */
static bool jr_elements(struct jread *jr, int depth)
{
	jr_skip_space(jr);
	if (*jr->p == ']') {
		jr->p++;
		return true;
	}
	for (;;) {
		if (jr_value(jr, depth, NULL, 0) == J_BAD)
			return false;
		jr_skip_space(jr);
		if (*jr->p == ']') {
			jr->p++;
			return true;
		}
		if (*jr->p++ != ',')
			return false;
	}
}

/* jr_value() - Any value, one level below @depth. */
static enum jkind jr_value(struct jread *jr, int depth, char *str,
			   size_t len)
{
	struct jrow *row = NULL;

	jr_skip_space(jr);
	switch (*jr->p) {
	case '{':
		jr->p++;
		if (depth + 1 == 3) {
			if (jr->nr_rows == JMAX_ROWS)
				return J_BAD;
			row = &jr->rows[jr->nr_rows++];
		}
		return jr_members(jr, depth + 1, row) ? J_OTHER : J_BAD;
	case '[':
		jr->p++;
		return jr_elements(jr, depth + 1) ? J_OTHER : J_BAD;
	case '"':
		return jr_string(jr, str, len) ? J_STR : J_BAD;
	}
	if (!strncmp(jr->p, "null", 4) || !strncmp(jr->p, "true", 4)) {
		jr->p += 4;
		return J_OTHER;
	}
	if (!strncmp(jr->p, "false", 5)) {
		jr->p += 5;
		return J_OTHER;
	}
	return jr_number(jr) ? J_NUM : J_BAD;
}

bool jread_parse(struct jread *jr, const char *text)
{
	memset(jr, 0, sizeof(*jr));
	jr->p = text;
	if (jr_value(jr, 0, NULL, 0) == J_BAD)
		return false;
	jr_skip_space(jr);
	return *jr->p == '\0';
}

int jread_row_kind(const struct jrow *row, const char *key)
{
	int i;

	for (i = 0; i < row->nr; i++)
		if (!strcmp(row->keys[i], key))
			return row->is_num[i];
	return -1;
}

bool jread_has_top(const struct jread *jr, const char *key)
{
	int i;

	for (i = 0; i < jr->nr_top; i++)
		if (!strcmp(jr->top[i], key))
			return true;
	return false;
}

double jread_row_num(const struct jrow *row, const char *key)
{
	int i;

	for (i = 0; i < row->nr; i++)
		if (!strcmp(row->keys[i], key))
			return row->num[i];
	return NAN;
}

const struct jrow *jread_find_row(const struct jread *jr, const char *name)
{
	int i;

	for (i = 0; i < jr->nr_rows; i++)
		if (!strcmp(jr->rows[i].name, name))
			return &jr->rows[i];
	return NULL;
}
