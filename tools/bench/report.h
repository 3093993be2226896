/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/report.h - the rows of one suite, written out as JSON.
 *
 * A suite records each measured row as a name plus ordered key/value
 * fields (numbers, strings or null), and facts about the whole run (its
 * mode, sizes) as the same kind of fields in @meta, then writes the whole
 * report as exactly one JSON object:
 *
 *	{"benchmark": "xarray", "mode": "full", ..., "rows": [
 *	    {"name": "store_seq", "unit": "ns/op", "ns_per_op": 27.3, ...},
 *	    ...]}
 *
 * Field keys are string literals owned by the caller; string values are
 * copied.  The text table is printed separately, row by row, as rows are
 * measured (table.h).
 *
 * Pure code (no upcache calls), compiled into tests/bench/ directly.
 */
#ifndef UPCACHE_TOOLS_BENCH_REPORT_H
#define UPCACHE_TOOLS_BENCH_REPORT_H

#include <stddef.h>
#include <stdio.h>

#define BENCH_ROW_MAX_FIELDS	64

struct bench_summary;

/**
 * enum bench_field_kind - what a field holds.
 * @BENCH_FIELD_NUM: A number (NaN is written as null).
 * @BENCH_FIELD_STR: A string.
 * @BENCH_FIELD_NULL: null.
 */
enum bench_field_kind {
	BENCH_FIELD_NUM,
	BENCH_FIELD_STR,
	BENCH_FIELD_NULL,
};

/**
 * struct bench_field - one key/value pair of a row.
 * @key: The key (a string literal; not copied).
 * @kind: Which of @num and @str is meaningful.
 * @num: The number.
 * @str: The string, malloc()ed.
 */
struct bench_field {
	const char *key;
	enum bench_field_kind kind;
	double num;
	char *str;
};

/**
 * struct bench_row - one row: a name and its fields, in insertion order.
 * @name: The row's name, malloc()ed.
 * @nr_fields: Number of fields used.
 * @fields: The fields.
 */
struct bench_row {
	char *name;
	unsigned int nr_fields;
	struct bench_field fields[BENCH_ROW_MAX_FIELDS];
};

/**
 * struct bench_report - the rows of one suite.
 * @benchmark: The suite's name (a string literal).
 * @meta: Top-level fields, written after "benchmark" and before "rows"
 *	(its @name is unused).
 * @rows: The rows.
 * @nr_rows: Number of rows used.
 * @cap: Number of rows allocated.
 */
struct bench_report {
	const char *benchmark;
	struct bench_row meta;
	struct bench_row *rows;
	size_t nr_rows;
	size_t cap;
};

/**
 * bench_report_init() - Start an empty report.
 * @rep: The report.
 * @benchmark: The suite's name.
 */
void bench_report_init(struct bench_report *rep, const char *benchmark);

/**
 * bench_report_add_row() - Append a row.
 * @rep: The report.
 * @name: The row's name.
 *
 * Return: The new row, valid until the next bench_report_add_row().
 * Dies if memory runs out.
 */
struct bench_row *bench_report_add_row(struct bench_report *rep,
				       const char *name);

/**
 * bench_row_set_num() - Set a numeric field, replacing one of that key.
 * @row: The row.
 * @key: The key.
 * @v: The value.
 */
void bench_row_set_num(struct bench_row *row, const char *key, double v);

/**
 * bench_row_set_str() - Set a string field, replacing one of that key.
 * @row: The row.
 * @key: The key.
 * @s: The value, copied; NULL sets null.
 */
void bench_row_set_str(struct bench_row *row, const char *key, const char *s);

/**
 * bench_row_get() - Find a field.
 * @row: The row.
 * @key: The key.
 *
 * Return: The field, or NULL if the row has none of that key.
 */
const struct bench_field *bench_row_get(const struct bench_row *row,
					const char *key);

/**
 * bench_row_num() - The value of a numeric field.
 * @row: The row.
 * @key: The key.
 *
 * Return: The value; NaN if the field is missing or not a number.
 */
double bench_row_num(const struct bench_row *row, const char *key);

/**
 * bench_row_str() - The value of a string field.
 * @row: The row.
 * @key: The key.
 *
 * Return: The string (the row's own); NULL if the field is missing, null
 * or not a string.
 */
const char *bench_row_str(const struct bench_row *row, const char *key);

/**
 * bench_row_set_summary() - Set a figure and its extremes from a summary.
 * @row: The row.
 * @key: The key of the figure: @s's median.
 * @key_min: The key of @s's min; NULL leaves it out.
 * @key_max: The key of @s's max; NULL leaves it out.
 * @s: The summary (samples.h); NULL sets each key to NaN (null).
 *
 * The keys are set in this order: @key, @key_min, @key_max.
 */
void bench_row_set_summary(struct bench_row *row, const char *key,
			   const char *key_min, const char *key_max,
			   const struct bench_summary *s);

/**
 * bench_row_set_gain() - Set a pair's speedup and the gain it means.
 * @row: The row.
 * @speedup: The new row's speedups over its baseline (baseline time /
 *	new time, or new rate / baseline rate, per round), summarised;
 *	NULL for the baseline row, whose fields are then null.
 * @target_pct: The gain the seed measured, in percent; NaN for none.
 *
 * Sets, in this order: speedup, speedup_min, speedup_max, gain_pct,
 * gain_pct_min, gain_pct_max (the speedup's, minus one, in percent),
 * target_gain_pct and target_met ("yes" when the median gain reaches the
 * target, "no", or null without a speedup or a target).
 *
 * Return: The median gain in percent; NaN for a baseline row.
 */
double bench_row_set_gain(struct bench_row *row,
			  const struct bench_summary *speedup,
			  double target_pct);

/**
 * bench_meta_set_rounds() - Record how a run was timed in its facts.
 * @meta: The report's @meta row.
 * @rounds: Timed rounds.
 * @warmups: Warm-up rounds before them.
 *
 * Sets "rounds", "warmup_rounds" and "cpus" (the CPUs online), in that
 * order.
 */
void bench_meta_set_rounds(struct bench_row *meta, unsigned int rounds,
			   unsigned int warmups);

/**
 * bench_report_write_json() - Write the report as one JSON object.
 * @rep: The report.
 * @out: The stream.
 *
 * Return: 0, or -EIO if the stream failed.
 */
int bench_report_write_json(const struct bench_report *rep, FILE *out);

/**
 * bench_report_free() - Free the rows and their strings.
 * @rep: The report, left empty and reusable.
 */
void bench_report_free(struct bench_report *rep);

#endif /* UPCACHE_TOOLS_BENCH_REPORT_H */
