/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/table.h - fixed-width text tables, printed row by row.
 *
 * A suite prints each row as soon as it is measured, so a long run shows
 * progress; that rules out sizing columns from their contents.  Each
 * column has a fixed width instead, and a cell wider than its column
 * pushes the rest of the line right rather than being cut.
 */
#ifndef UPCACHE_TOOLS_BENCH_TABLE_H
#define UPCACHE_TOOLS_BENCH_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct bench_row;

/* The size of a cell's buffer: wide enough for any figure or range. */
#define BENCH_CELL_LEN	40

/**
 * struct bench_table_col - one column.
 * @header: Its title.
 * @width: Its width in characters.
 * @left: Left-align (names); numbers are right-aligned.
 */
struct bench_table_col {
	const char *header;
	int width;
	bool left;
};

/**
 * struct bench_table - a table being printed.
 * @out: The stream.
 * @cols: The columns.
 * @nr_cols: Number of columns.
 */
struct bench_table {
	FILE *out;
	const struct bench_table_col *cols;
	unsigned int nr_cols;
};

/**
 * bench_table_header() - Print the titles and a rule under them.
 * @t: The table.
 */
void bench_table_header(const struct bench_table *t);

/**
 * bench_table_row() - Print one row.
 * @t: The table.
 * @cells: One string per column; NULL prints "-".
 */
void bench_table_row(const struct bench_table *t, const char *const *cells);

/**
 * bench_table_line() - Print a row that is one free-form text.
 * @t: The table.
 * @first: The first cell (a row name).
 * @text: Text that spans the remaining columns.
 */
void bench_table_line(const struct bench_table *t, const char *first,
		      const char *text);

/**
 * bench_fmt_num() - Format a figure for a table cell.
 * @buf: The buffer.
 * @len: Its size.
 * @v: The figure.
 *
 * Three significant digits and never an exponent: 1834, 27.3, 2.31,
 * 0.016; NaN (no figure) prints as "-".
 *
 * Return: @buf.
 */
char *bench_fmt_num(char *buf, size_t len, double v);

/**
 * bench_fmt_range() - Format a min..max range for a table cell.
 * @buf: The buffer.
 * @len: Its size.
 * @min: The smallest sample.
 * @max: The largest sample.
 *
 * Return: @buf, holding "min..max" with both as bench_fmt_num() writes
 * them, or "-" if either is NaN.
 */
char *bench_fmt_range(char *buf, size_t len, double min, double max);

/**
 * bench_fmt_row_nums() - Spell a report row's figures into a line's cells.
 * @row: The report row (report.h).
 * @keys: Per column, the key of the figure it shows (bench_fmt_num());
 *	NULL for a column the caller fills in itself.
 * @nr: Number of columns.
 * @bufs: One buffer per column.
 * @cells: Receives, per column, its buffer: the line for
 *	bench_table_row() once the caller has filled in the rest.
 */
void bench_fmt_row_nums(const struct bench_row *row, const char *const *keys,
			unsigned int nr, char (*bufs)[BENCH_CELL_LEN],
			const char **cells);

/**
 * bench_fmt_row_range() - Format a report row's @key_min..@key_max.
 * @buf: The buffer.
 * @len: Its size.
 * @row: The report row (report.h).
 * @key: The figure's key: the range is that of "<@key>_min" and
 *	"<@key>_max", as bench_row_set_summary() names them.
 *
 * Return: @buf; "-" if either is missing or not a number.
 */
char *bench_fmt_row_range(char *buf, size_t len, const struct bench_row *row,
			  const char *key);

#endif /* UPCACHE_TOOLS_BENCH_TABLE_H */
