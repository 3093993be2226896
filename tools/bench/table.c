// SPDX-License-Identifier: MIT
/*
 * tools/bench/table.c - fixed-width text tables, printed row by row.
 *
 * Owns the table layout and how figures are spelled in a cell.
 */
#include <math.h>

#include "report.h"
#include "table.h"

/* table_cell() - Print one cell, two spaces after the previous one. */
static void table_cell(const struct bench_table *t, unsigned int col,
		       const char *text)
{
	const struct bench_table_col *c = &t->cols[col];

	if (!text)
		text = "-";
	if (col)
		fputs("  ", t->out);
	if (c->left && col + 1 == t->nr_cols)
		fputs(text, t->out);
	else
		fprintf(t->out, c->left ? "%-*s" : "%*s", c->width, text);
}

/**
 * bench_table_header() - Print the titles and a rule under them.
 * @t: The table.
 */
void bench_table_header(const struct bench_table *t)
{
	unsigned int i;
	int j;

	for (i = 0; i < t->nr_cols; i++)
		table_cell(t, i, t->cols[i].header);
	fputc('\n', t->out);
	for (i = 0; i < t->nr_cols; i++) {
		if (i)
			fputs("  ", t->out);
		for (j = 0; j < t->cols[i].width; j++)
			fputc('-', t->out);
	}
	fputc('\n', t->out);
}

/**
 * bench_table_row() - Print one row.
 * @t: The table.
 * @cells: One string per column; NULL prints "-".
 */
void bench_table_row(const struct bench_table *t, const char *const *cells)
{
	unsigned int i;

	for (i = 0; i < t->nr_cols; i++)
		table_cell(t, i, cells[i]);
	fputc('\n', t->out);
	fflush(t->out);
}

/**
 * bench_table_line() - Print a row that is one free-form text.
 * @t: The table.
 * @first: The first cell.
 * @text: Text that spans the remaining columns.
 */
void bench_table_line(const struct bench_table *t, const char *first,
		      const char *text)
{
	table_cell(t, 0, first);
	fprintf(t->out, "  %s\n", text);
	fflush(t->out);
}

/**
 * bench_fmt_num() - Format a figure for a table cell.
 * @buf: The buffer.
 * @len: Its size.
 * @v: The figure.
 *
 * Return: @buf.
 */
char *bench_fmt_num(char *buf, size_t len, double v)
{
	double mag = fabs(v);

	if (isnan(v))
		snprintf(buf, len, "-");
	else if (v == 0.0 || mag >= 100.0)
		snprintf(buf, len, "%.0f", v);
	else if (mag >= 10.0)
		snprintf(buf, len, "%.1f", v);
	else if (mag >= 1.0)
		snprintf(buf, len, "%.2f", v);
	else
		snprintf(buf, len, "%.3f", v);
	return buf;
}

/**
 * bench_fmt_range() - Format a min..max range for a table cell.
 * @buf: The buffer.
 * @len: Its size.
 * @min: The smallest sample.
 * @max: The largest sample.
 *
 * Return: @buf.
 */
char *bench_fmt_range(char *buf, size_t len, double min, double max)
{
	char lo[32], hi[32];

	if (isnan(min) || isnan(max))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%s..%s", bench_fmt_num(lo, sizeof(lo), min),
			 bench_fmt_num(hi, sizeof(hi), max));
	return buf;
}

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
			const char **cells)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		cells[i] = bufs[i];
		if (keys[i])
			bench_fmt_num(bufs[i], BENCH_CELL_LEN,
				      bench_row_num(row, keys[i]));
	}
}

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
			  const char *key)
{
	char key_min[64], key_max[64];

	snprintf(key_min, sizeof(key_min), "%s_min", key);
	snprintf(key_max, sizeof(key_max), "%s_max", key);
	return bench_fmt_range(buf, len, bench_row_num(row, key_min),
			       bench_row_num(row, key_max));
}
