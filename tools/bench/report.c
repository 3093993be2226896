// SPDX-License-Identifier: MIT
/*
 * tools/bench/report.c - the rows of one suite, written out as JSON.
 *
 * Owns the report's memory and its JSON shape; json.c owns the syntax.
 *
 * Conventions: @rep is the report, @row one of its rows, @key a field key.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "report.h"
#include "samples.h"
#include "util.h"

/**
 * bench_report_init() - Start an empty report.
 * @rep: The report.
 * @benchmark: The suite's name.
 */
void bench_report_init(struct bench_report *rep, const char *benchmark)
{
	memset(rep, 0, sizeof(*rep));
	rep->benchmark = benchmark;
}

/**
 * bench_report_add_row() - Append a row.
 * @rep: The report.
 * @name: The row's name.
 *
 * Return: The new row.
 */
struct bench_row *bench_report_add_row(struct bench_report *rep,
				       const char *name)
{
	struct bench_row *row;

	if (rep->nr_rows == rep->cap) {
		size_t cap = rep->cap ? 2 * rep->cap : 16;
		struct bench_row *rows;

		rows = realloc(rep->rows, cap * sizeof(*rows));
		if (!rows)
			bench_die("out of memory (%zu report rows)", cap);
		rep->rows = rows;
		rep->cap = cap;
	}
	row = &rep->rows[rep->nr_rows++];
	memset(row, 0, sizeof(*row));
	row->name = bench_xstrdup(name);
	return row;
}

/* report_slot() - The field of @key, cleared for reuse or newly added. */
static struct bench_field *report_slot(struct bench_row *row, const char *key)
{
	struct bench_field *f = (struct bench_field *)bench_row_get(row, key);

	if (!f) {
		if (row->nr_fields == BENCH_ROW_MAX_FIELDS)
			bench_die("row '%s': more than %d fields",
				  row->name ? row->name : "(report)",
				  BENCH_ROW_MAX_FIELDS);
		f = &row->fields[row->nr_fields++];
	}
	free(f->str);
	memset(f, 0, sizeof(*f));
	f->key = key;
	return f;
}

/**
 * bench_row_set_num() - Set a numeric field.
 * @row: The row.
 * @key: The key.
 * @v: The value.
 */
void bench_row_set_num(struct bench_row *row, const char *key, double v)
{
	struct bench_field *f = report_slot(row, key);

	f->kind = BENCH_FIELD_NUM;
	f->num = v;
}

/**
 * bench_row_set_str() - Set a string field.
 * @row: The row.
 * @key: The key.
 * @s: The value, copied; NULL sets null.
 */
void bench_row_set_str(struct bench_row *row, const char *key, const char *s)
{
	struct bench_field *f = report_slot(row, key);

	f->kind = s ? BENCH_FIELD_STR : BENCH_FIELD_NULL;
	f->str = s ? bench_xstrdup(s) : NULL;
}

/**
 * bench_row_get() - Find a field.
 * @row: The row.
 * @key: The key.
 *
 * Return: The field, or NULL.
 */
const struct bench_field *bench_row_get(const struct bench_row *row,
					const char *key)
{
	unsigned int i;

	for (i = 0; i < row->nr_fields; i++)
		if (!strcmp(row->fields[i].key, key))
			return &row->fields[i];
	return NULL;
}

/**
 * bench_row_num() - The value of a numeric field.
 * @row: The row.
 * @key: The key.
 *
 * Return: The value, or NaN.
 */
double bench_row_num(const struct bench_row *row, const char *key)
{
	const struct bench_field *f = bench_row_get(row, key);

	return f && f->kind == BENCH_FIELD_NUM ? f->num : NAN;
}

/**
 * bench_row_str() - The value of a string field.
 * @row: The row.
 * @key: The key.
 *
 * Return: The string, or NULL.
 */
const char *bench_row_str(const struct bench_row *row, const char *key)
{
	const struct bench_field *f = bench_row_get(row, key);

	return f && f->kind == BENCH_FIELD_STR ? f->str : NULL;
}

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
			   const struct bench_summary *s)
{
	bench_row_set_num(row, key, s ? s->median : NAN);
	if (key_min)
		bench_row_set_num(row, key_min, s ? s->min : NAN);
	if (key_max)
		bench_row_set_num(row, key_max, s ? s->max : NAN);
}

/**
 * bench_row_set_gain() - Set a pair's speedup and the gain it means.
 * @row: The row.
 * @speedup: The new row's per-round speedups over its baseline,
 *	summarised; NULL for the baseline row (its fields are null).
 * @target_pct: The gain the seed measured, in percent; NaN for none.
 *
 * Return: The median gain in percent, NaN for a baseline row.
 */
double bench_row_set_gain(struct bench_row *row,
			  const struct bench_summary *speedup,
			  double target_pct)
{
	struct bench_summary gain;

	if (speedup) {
		gain.median = (speedup->median - 1) * 100;
		gain.min = (speedup->min - 1) * 100;
		gain.max = (speedup->max - 1) * 100;
		gain.n = speedup->n;
	}
	bench_row_set_summary(row, "speedup", "speedup_min", "speedup_max",
			      speedup);
	bench_row_set_summary(row, "gain_pct", "gain_pct_min", "gain_pct_max",
			      speedup ? &gain : NULL);
	bench_row_set_num(row, "target_gain_pct", speedup ? target_pct : NAN);
	bench_row_set_str(row, "target_met", !speedup || isnan(target_pct) ?
			  NULL : gain.median >= target_pct ? "yes" : "no");
	return speedup ? gain.median : NAN;
}

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
			   unsigned int warmups)
{
	bench_row_set_num(meta, "rounds", rounds);
	bench_row_set_num(meta, "warmup_rounds", warmups);
	bench_row_set_num(meta, "cpus", (double)sysconf(_SC_NPROCESSORS_ONLN));
}

/* report_write_fields() - Write the fields of @row as object members. */
static void report_write_fields(struct bench_json *js,
				const struct bench_row *row)
{
	unsigned int i;

	for (i = 0; i < row->nr_fields; i++) {
		const struct bench_field *f = &row->fields[i];

		bench_json_key(js, f->key);
		if (f->kind == BENCH_FIELD_NUM)
			bench_json_number(js, f->num);
		else
			bench_json_string(js, f->str);
	}
}

/* report_write_row() - Write one row as a JSON object. */
static void report_write_row(struct bench_json *js, const struct bench_row *row)
{
	bench_json_begin_object(js);
	bench_json_key(js, "name");
	bench_json_string(js, row->name);
	report_write_fields(js, row);
	bench_json_end_object(js);
}

/**
 * bench_report_write_json() - Write the report as one JSON object.
 * @rep: The report.
 * @out: The stream.
 *
 * Return: 0, or -EIO if the stream failed.
 */
int bench_report_write_json(const struct bench_report *rep, FILE *out)
{
	struct bench_json js;
	size_t i;

	bench_json_init(&js, out);
	bench_json_begin_object(&js);
	bench_json_key(&js, "benchmark");
	bench_json_string(&js, rep->benchmark);
	report_write_fields(&js, &rep->meta);
	bench_json_key(&js, "rows");
	bench_json_begin_array(&js);
	for (i = 0; i < rep->nr_rows; i++)
		report_write_row(&js, &rep->rows[i]);
	bench_json_end_array(&js);
	bench_json_end_object(&js);
	return bench_json_finish(&js);
}

/* report_row_free() - Free the strings of @row. */
static void report_row_free(struct bench_row *row)
{
	unsigned int i;

	for (i = 0; i < row->nr_fields; i++)
		free(row->fields[i].str);
	free(row->name);
}

/**
 * bench_report_free() - Free the rows and their strings.
 * @rep: The report.
 */
void bench_report_free(struct bench_report *rep)
{
	size_t i;

	report_row_free(&rep->meta);
	for (i = 0; i < rep->nr_rows; i++)
		report_row_free(&rep->rows[i]);
	free(rep->rows);
	bench_report_init(rep, rep->benchmark);
}
