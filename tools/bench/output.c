// SPDX-License-Identifier: MIT
/*
 * tools/bench/output.c - where a suite's table and JSON go.
 *
 * Owns opening the JSON file before a suite runs and writing the report
 * into it after (output.h).
 */
#include <errno.h>
#include <string.h>

#include "output.h"

/**
 * bench_output_open() - Open the destinations the options ask for.
 * @opts: The suite's options.
 * @out: The destinations.
 *
 * Return: 0, or -errno if the JSON file cannot be created.
 */
int bench_output_open(const struct bench_options *opts,
		      struct bench_output *out)
{
	memset(out, 0, sizeof(*out));
	out->table = stdout;
	if (!opts->json)
		return 0;
	out->json_path = opts->json_path;
	if (!opts->json_path) {
		out->json = stdout;
		out->table = stderr;
		return 0;
	}
	out->json = fopen(opts->json_path, "w");
	if (!out->json) {
		int err = errno;

		fprintf(stderr, "upcache-bench: cannot create '%s': %s\n",
			opts->json_path, strerror(err));
		return -err;
	}
	return 0;
}

/**
 * bench_output_finish() - Write the report's JSON, if asked, and close.
 * @out: The destinations.
 * @rep: The finished report.
 *
 * Return: 0, or -EIO if the JSON could not be written.
 */
int bench_output_finish(struct bench_output *out,
			const struct bench_report *rep)
{
	int err = 0;

	fflush(out->table);
	if (!out->json)
		return 0;
	err = bench_report_write_json(rep, out->json);
	if (out->json_path && fclose(out->json) != 0 && !err)
		err = -EIO;
	out->json = NULL;
	if (err)
		fprintf(stderr, "upcache-bench: writing JSON to %s failed\n",
			out->json_path ? out->json_path : "stdout");
	return err;
}
