/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/output.h - where a suite's table and JSON go.
 *
 *	(no --json)	table on stdout, no JSON
 *	--json, --json -
 *			JSON on stdout, table on stderr (stdout stays pure
 *			JSON for pipes such as "| python3 -m json.tool")
 *	--json FILE	table on stdout, JSON in FILE (also --json=FILE)
 */
#ifndef UPCACHE_TOOLS_BENCH_OUTPUT_H
#define UPCACHE_TOOLS_BENCH_OUTPUT_H

#include <stdio.h>

#include "options.h"
#include "report.h"

/**
 * struct bench_output - the open destinations of one suite.
 * @table: Stream for the human-readable table and notes.
 * @json: Stream for the JSON object, or NULL without --json.
 * @json_path: The file behind @json, NULL for stdout.
 */
struct bench_output {
	FILE *table;
	FILE *json;
	const char *json_path;
};

/**
 * bench_output_open() - Open the destinations the options ask for.
 * @opts: The suite's options.
 * @out: The destinations.
 *
 * Opening --json FILE early means a bad path fails before minutes of
 * measuring, not after.
 *
 * Return: 0, or -errno if FILE cannot be created (a message is printed).
 */
int bench_output_open(const struct bench_options *opts,
		      struct bench_output *out);

/**
 * bench_output_finish() - Write the report's JSON, if asked, and close.
 * @out: The destinations.
 * @rep: The finished report.
 *
 * Return: 0, or -EIO if the JSON could not be written (a message is
 * printed).
 */
int bench_output_finish(struct bench_output *out,
			const struct bench_report *rep);

#endif /* UPCACHE_TOOLS_BENCH_OUTPUT_H */
