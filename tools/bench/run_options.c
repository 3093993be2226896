// SPDX-License-Identifier: MIT
/*
 * tools/bench/run_options.c - the fio options of `upcache-bench run`.
 *
 * Owns the option table (names, aliases, value kinds, which values an
 * enumerated option takes), fio's unit grammar for sizes and times, and
 * resolving a job's texts into numbers with fio's defaults.  Reading
 * them from argv or a job file is run_cmdline.c's and run_jobfile.c's.
 *
 * Why texts first and numbers later: see run_options.h.
 *
 * Conventions: @o is a job's option texts, @err/@errlen the message
 * buffer of the caller.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "options.h"
#include "run_options.h"
#include "util.h"

/*
 * enum opt_kind - what an option's value is.
 * @OPT_STR: Any non-empty text.
 * @OPT_SIZE: A fio size (run_parse_size()).
 * @OPT_TIME: A fio time (run_parse_time()): seconds without a unit.
 * @OPT_TIME_US: A fio time in microseconds without a unit (fio's
 *	thinktime options).
 * @OPT_BOOL: 0 or 1; a bare name is 1.
 * @OPT_UINT: A decimal number in @min..@max.
 * @OPT_ENUM: One of @values.
 */
enum opt_kind {
	OPT_STR,
	OPT_SIZE,
	OPT_TIME,
	OPT_TIME_US,
	OPT_BOOL,
	OPT_UINT,
	OPT_ENUM,
};

/**
 * struct opt_spec - one supported option.
 * @id: Where its text is stored.
 * @name: fio's name.
 * @alias: Another fio name for it, or NULL.
 * @kind: Its value's kind.
 * @min: Smallest value of an OPT_UINT.
 * @max: Largest value of an OPT_UINT.
 * @values: The values of an OPT_ENUM, NULL-terminated.
 * @help: One line for the usage text.
 */
struct opt_spec {
	enum run_opt_id id;
	const char *name;
	const char *alias;
	enum opt_kind kind;
	unsigned long min, max;
	const char *const *values;
	const char *help;
};

/*
 * The engines ioengine= accepts.  fio's own names for the three kernel
 * paths map onto the kernel baselines, so a fio job file that relies on
 * fio's default (psync) or names sync or mmap runs unchanged.
 */
static const char *const engine_values[] = {
	"upcache-shmem", "upcache-file", "upcache-anon",
	"kernel-sync", "kernel-psync", "kernel-mmap",
	"sync", "psync", "mmap", NULL,
};
static const char *const rw_values[] = {
	"read", "randread", "write", "randwrite", "rw", "randrw",
	"readwrite", NULL,
};
static const char *const fallocate_values[] = {
	"none", "native", "posix", "keep", "truncate", "0", "1", NULL,
};
static const char *const file_kind_values[] = {
	"normal", "fallocated", "hole", "empty", NULL,
};
static const char *const huge_values[] = {
	"never", "always", "within_size", "advise", NULL,
};
static const char *const kb_base_values[] = { "1024", "1000", NULL };

#define S(id, name, alias, kind, help) \
	{ RUN_OPT_##id, name, alias, OPT_##kind, 0, 0, NULL, help }
#define U(id, name, min, max, help) \
	{ RUN_OPT_##id, name, NULL, OPT_UINT, min, max, NULL, help }
#define E(id, name, alias, values, help) \
	{ RUN_OPT_##id, name, alias, OPT_ENUM, 0, 0, values, help }

static const struct opt_spec opt_specs[] = {
	S(NAME, "name", NULL, STR, "job name (starts a job on the command line)"),
	S(DESCRIPTION, "description", NULL, STR, "free text, printed nowhere"),
	E(IOENGINE, "ioengine", NULL, engine_values,
	  "upcache-shmem|upcache-file|upcache-anon|kernel-sync|kernel-psync|kernel-mmap"),
	E(RW, "rw", "readwrite", rw_values,
	  "read|randread|write|randwrite|rw|randrw (default read)"),
	U(RWMIXREAD, "rwmixread", 0, 100, "percent reads of rw/randrw (50)"),
	U(RWMIXWRITE, "rwmixwrite", 0, 100, "percent writes of rw/randrw (50)"),
	S(BS, "bs", "blocksize", SIZE, "block size (4k)"),
	S(SIZE, "size", NULL, SIZE, "bytes of I/O per clone and pass"),
	S(FILESIZE, "filesize", NULL, SIZE, "size of each file (offset+size)"),
	S(OFFSET, "offset", NULL, SIZE, "start of the I/O region (0)"),
	U(NUMJOBS, "numjobs", 1, RUN_MAX_NUMJOBS, "clones of the job, as threads (1)"),
	S(RUNTIME, "runtime", "timeout", TIME, "time limit after ramp_time (none)"),
	S(TIME_BASED, "time_based", NULL, BOOL, "repeat the workload for runtime"),
	S(RAMP_TIME, "ramp_time", NULL, TIME, "run unmeasured this long first"),
	U(IODEPTH, "iodepth", 1, 65536, "must be 1: engines are synchronous"),
	S(THREAD, "thread", NULL, BOOL, "accepted: jobs always run as threads"),
	S(DIRECT, "direct", NULL, BOOL,
	  "O_DIRECT: upcache-file, kernel-sync/psync (0)"),
	E(FALLOCATE, "fallocate", NULL, fallocate_values,
	  "none|native|posix|keep|truncate|0|1 (native)"),
	E(FILE_KIND, "file_kind", NULL, file_kind_values,
	  "normal|fallocated|hole|empty: the file before the job"),
	U(FSYNC, "fsync", 0, UINT_MAX,
	  "fsync the file every N writes (0: never)"),
	U(FDATASYNC, "fdatasync", 0, UINT_MAX,
	  "fdatasync the file every N writes (0: never)"),
	S(END_FSYNC, "end_fsync", NULL, BOOL,
	  "fsync the file when a writing job ends"),
	S(THINKTIME, "thinktime", NULL, TIME_US,
	  "stall after an I/O (us without a unit; 0: never)"),
	S(THINKTIME_SPIN, "thinktime_spin", NULL, TIME_US,
	  "of each stall, spin on the CPU this long (us; 0)"),
	U(THINKTIME_BLOCKS, "thinktime_blocks", 1, UINT_MAX,
	  "stall after every N I/Os (1)"),
	S(GROUP_REPORTING, "group_reporting", NULL, BOOL,
	  "report the job's clones with the entry before"),
	S(STONEWALL, "stonewall", "wait_for_previous", BOOL,
	  "start after the jobs before this one"),
	S(FILENAME, "filename", NULL, STR, "one file shared by all clones"),
	S(DIRECTORY, "directory", NULL, STR, "where files go (/dev/shm)"),
	S(UNLINK, "unlink", NULL, BOOL, "remove files after the job"),
	E(KB_BASE, "kb_base", NULL, kb_base_values, "1024|1000 (1024)"),
	E(HUGE, "huge", NULL, huge_values,
	  "upcache-shmem: never|always|within_size|advise (never)"),
	S(MEMORY_LIMIT, "memory_limit", NULL, SIZE,
	  "upcache engines' memory limit (sized to the files)"),
	S(FILE_IO_URING, "file_io_uring", NULL, BOOL,
	  "upcache-file: writeback batches through io_uring (0)"),
	S(FILE_BACKGROUND_WRITEBACK, "file_background_writeback", NULL, BOOL,
	  "upcache-file: a flusher thread writes dirty pages back (0)"),
	S(SWAP_SIZE, "swap_size", NULL, SIZE,
	  "upcache-anon/shmem: bytes of swap (the data's size if wanted)"),
	S(SWAP_FILE, "swap_file", NULL, STR,
	  "upcache-anon/shmem: swap to this file (under directory)"),
	U(SWAP_SPACE_SHIFT, "swap_space_shift", 6, 30,
	  "upcache-anon/shmem: log2 slots per swap cache tree (14: 64 MiB)"),
};

#define NR_OPT_SPECS	(sizeof(opt_specs) / sizeof(opt_specs[0]))

/*
 * Options fio has that this runner knows it does not implement: naming
 * them as fio's makes the error say "not supported" rather than
 * "unknown", which is the truth a fio user needs.
 */
static const char *const fio_unsupported[] = {
	"buffered", "nrfiles", "openfiles", "file_service_type",
	"bsrange", "bssplit", "blocksize_range", "blockalign", "ba",
	"norandommap", "randrepeat", "randseed", "random_distribution",
	"random_generator", "percentage_random", "io_size", "io_limit",
	"number_ios", "loops", "sync", "fsync_on_close", "sync_file_range",
	"write_barrier", "end_syncfs", "rate", "rate_iops", "rate_min",
	"ratemin",
	"verify", "do_verify", "verify_pattern", "buffer_pattern",
	"zero_buffers", "refill_buffers", "scramble_buffers",
	"buffer_compress_percentage", "iodepth_batch", "iodepth_low",
	"iodepth_batch_complete", "cpus_allowed", "cpumask", "nice", "prio",
	"startdelay", "create_on_open", "create_only", "pre_read",
	"invalidate", "overwrite", "allow_file_create", "lockfile",
	"write_bw_log", "write_lat_log", "write_iops_log", "log_avg_msec",
	"percentile_list", "clat_percentiles", "lat_percentiles",
	"disable_lat", "disable_clat", "disable_slat", "gtod_reduce",
	"new_group", "exitall", "wait_for", "include", "mem", "iomem",
	"hugepage-size", "offset_increment", "size_increment", "zonemode",
	"zonesize", "trim_percentage", "ioscheduler", "unit_base",
	"steadystate", "ss", "ss_dur", "continue_on_error", "fill_device",
	"kb_base_output", "exec_prerun", "exec_postrun", "uid", "gid",
	"flow", "rwmixcycle", NULL,
};

/* opt_find() - The spec of @name (or of an alias), or NULL. */
static const struct opt_spec *opt_find(const char *name)
{
	size_t i;

	for (i = 0; i < NR_OPT_SPECS; i++)
		if (!strcmp(opt_specs[i].name, name) ||
		    (opt_specs[i].alias && !strcmp(opt_specs[i].alias, name)))
			return &opt_specs[i];
	return NULL;
}

/* opt_spec_of() - The spec of option @id. */
static const struct opt_spec *opt_spec_of(enum run_opt_id id)
{
	size_t i;

	for (i = 0; i < NR_OPT_SPECS; i++)
		if (opt_specs[i].id == id)
			return &opt_specs[i];
	return NULL;
}

/* is_fio_option() - Is @name an option fio has and we do not? */
static bool is_fio_option(const char *name)
{
	size_t i;

	for (i = 0; fio_unsupported[i]; i++)
		if (!strcmp(fio_unsupported[i], name))
			return true;
	return false;
}

/* enum_index() - Position of @s in @values, or -1. */
static int enum_index(const char *const *values, const char *s)
{
	int i;

	for (i = 0; values[i]; i++)
		if (!strcmp(values[i], s))
			return i;
	return -1;
}

/*
 * digits() - Parse the decimal digits at the start of @s into @out;
 * *@end is set past them, on overflow too, so that the caller checks
 * the suffix first: "99999999999999999999x" is not a size (-EINVAL)
 * rather than one too large.  Return: 0, -EINVAL for none, -ERANGE on
 * overflow.
 */
static int digits(const char *s, const char **end, uint64_t *out)
{
	uint64_t v = 0, d;
	int ret = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		d = (uint64_t)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			ret = -ERANGE;
		v = v * 10 + d;
	}
	*end = s;
	*out = v;
	return ret;
}

/* mul_ok() - *@v *= @m unless it overflows; returns -ERANGE if so. */
static int mul_ok(uint64_t *v, uint64_t m)
{
	if (m && *v > UINT64_MAX / m)
		return -ERANGE;
	*v *= m;
	return 0;
}

/**
 * run_parse_size() - Parse a fio size.
 * @s: The text.
 * @kb_base: 1024 or 1000.
 * @out: The size in bytes.
 *
 * fio's compatibility mode (kb_base=1024) gives SI-looking suffixes (k,
 * kb) the binary meaning and IEC ones (kib) the decimal one, so old job
 * files keep their meaning; kb_base=1000 follows the standards.  As in
 * fio, only the whole IEC spelling counts as one: "ki" is read as "k".
 *
 * Return: 0, -EINVAL or -ERANGE.
 */
int run_parse_size(const char *s, unsigned int kb_base, uint64_t *out)
{
	static const char prefixes[] = "kmgtp";
	uint64_t v, unit = 1, base;
	const char *p, *pre;
	bool iec = false;
	int ret, i;

	if (!s)
		return -EINVAL;
	ret = digits(s, &p, &v);
	if (ret == -EINVAL)
		return ret;
	pre = *p ? strchr(prefixes, (char)(*p | 0x20)) : NULL;
	if (pre) {
		p++;
		if (*p == 'i' || *p == 'I') {
			iec = p[1] == 'b' || p[1] == 'B';
			p++;
		}
		if (kb_base == 1000)
			base = iec ? 1024 : 1000;
		else
			base = iec ? 1000 : 1024;
		for (i = 0; i <= pre - prefixes; i++)
			unit *= base;
	}
	if (*p == 'b' || *p == 'B')
		p++;
	if (*p)
		return -EINVAL;
	if (!ret)
		ret = mul_ok(&v, unit);
	if (ret)
		return ret;
	*out = v;
	return 0;
}

/**
 * run_parse_time_in() - Parse a fio time, a bare number in @bare_ns.
 * @s: The text.
 * @bare_ns: The unit of a number without one.
 * @out: Nanoseconds.
 *
 * Return: 0, -EINVAL or -ERANGE.
 */
int run_parse_time_in(const char *s, uint64_t bare_ns, uint64_t *out)
{
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = {
		{ "us", 1000 }, { "usec", 1000 },
		{ "ms", 1000000 }, { "msec", 1000000 },
		{ "s", RUN_NSEC_PER_SEC }, { "sec", RUN_NSEC_PER_SEC },
		{ "m", 60 * RUN_NSEC_PER_SEC }, { "min", 60 * RUN_NSEC_PER_SEC },
		{ "h", 3600 * RUN_NSEC_PER_SEC },
		{ "d", 86400 * RUN_NSEC_PER_SEC },
	};
	const char *p;
	uint64_t v, unit;
	size_t i;
	int ret;

	if (!s)
		return -EINVAL;
	ret = digits(s, &p, &v);
	if (ret == -EINVAL)
		return ret;
	unit = *p ? 0 : bare_ns;
	for (i = 0; !unit && i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcasecmp(p, units[i].unit))
			unit = units[i].ns;
	if (!unit)
		return -EINVAL;
	if (!ret)
		ret = mul_ok(&v, unit);
	if (!ret)
		*out = v;
	return ret;
}

/**
 * run_parse_time() - Parse a fio time, seconds without a unit.
 * @s: The text.
 * @out: Nanoseconds.
 *
 * Return: 0, -EINVAL or -ERANGE.
 */
int run_parse_time(const char *s, uint64_t *out)
{
	return run_parse_time_in(s, RUN_NSEC_PER_SEC, out);
}

/* time_bare_ns() - The unit of a bare number of time option @spec. */
static uint64_t time_bare_ns(const struct opt_spec *spec)
{
	return spec->kind == OPT_TIME_US ? 1000 : RUN_NSEC_PER_SEC;
}

/* check_value() - Check @value's syntax for @spec; message in @err. */
static int check_value(const struct opt_spec *spec, const char *value,
		       char *err, size_t errlen)
{
	unsigned long ul;
	uint64_t v;
	char *end;
	int ret;

	switch (spec->kind) {
	case OPT_STR:
		/*
		 * A job's name is its files' name too (JOB.CLONE.0): cut
		 * to fit struct run_job, two jobs could share files.
		 */
		if (spec->id == RUN_OPT_NAME && strlen(value) >= RUN_NAME_MAX)
			return bench_opt_error(err, errlen, "name=%.20s...: "
					 "longer than %d characters", value,
					 RUN_NAME_MAX - 1);
		return 0;
	case OPT_SIZE:
		if (value[0] == '-')
			return bench_opt_error(err, errlen, "%s=%s: negative size",
					 spec->name, value);
		if (strchr(value, '%'))
			return bench_opt_error(err, errlen, "%s=%s: percentages are "
					 "not supported", spec->name, value);
		if (strchr(value, ',') || strchr(value, ':') ||
		    strchr(value, '-'))
			return bench_opt_error(err, errlen, "%s=%s: only one value "
					 "is supported, not a list or range",
					 spec->name, value);
		/*
		 * kb_base is not known yet (it may come later in the job):
		 * a size too large only in one base is left for
		 * resolve_sizes_fit() to judge.
		 */
		ret = run_parse_size(value, 1024, &v);
		if (ret == -ERANGE)
			ret = run_parse_size(value, 1000, &v);
		if (ret == -ERANGE)
			return bench_opt_error(err, errlen, "%s=%s: too large",
					 spec->name, value);
		if (ret)
			return bench_opt_error(err, errlen, "%s=%s: not a size "
					 "(N with k/m/g/t/p, optionally i and b)",
					 spec->name, value);
		return 0;
	case OPT_TIME:
	case OPT_TIME_US:
		if (value[0] == '-')
			return bench_opt_error(err, errlen, "%s=%s: negative time",
					 spec->name, value);
		ret = run_parse_time_in(value, time_bare_ns(spec), &v);
		if (ret == -ERANGE)
			return bench_opt_error(err, errlen, "%s=%s: too long",
					 spec->name, value);
		if (ret)
			return bench_opt_error(err, errlen, "%s=%s: not a time "
					 "(N with us/ms/s/m/h/d; %s by "
					 "default)", spec->name, value,
					 spec->kind == OPT_TIME_US ?
					 "microseconds" : "seconds");
		return 0;
	case OPT_BOOL:
		if (strcmp(value, "0") && strcmp(value, "1"))
			return bench_opt_error(err, errlen, "%s=%s: must be 0 or 1",
					 spec->name, value);
		return 0;
	case OPT_UINT:
		errno = 0;
		ul = strtoul(value, &end, 10);
		if (value[0] < '0' || value[0] > '9' || *end || errno ||
		    ul < spec->min || ul > spec->max)
			return bench_opt_error(err, errlen, "%s=%s: must be a number "
					 "in %lu..%lu", spec->name, value,
					 spec->min, spec->max);
		return 0;
	case OPT_ENUM:
		if (enum_index(spec->values, value) >= 0)
			return 0;
		if (spec->id == RUN_OPT_RW && strchr(value, ':'))
			return bench_opt_error(err, errlen, "rw=%s: offset modifiers "
					 "(':N') are not supported", value);
		return bench_opt_error(err, errlen, "%s=%s: not supported (one of "
				 "%s)", spec->name, value, spec->help);
	}
	return 0;
}

/**
 * run_opts_set() - Store one option's text, checking its syntax.
 * @o: The options.
 * @name: The option's name.
 * @value: Its value, or NULL for a bare name.
 * @err: Message buffer.
 * @errlen: Its size.
 *
 * Return: 0, or -EINVAL with a message.
 */
int run_opts_set(struct run_opts *o, const char *name, const char *value,
		 char *err, size_t errlen)
{
	const struct opt_spec *spec = opt_find(name);
	int ret;

	if (!spec && is_fio_option(name))
		return bench_opt_error(err, errlen, "fio option '%s' is not "
				 "supported by upcache-bench run", name);
	if (!spec)
		return bench_opt_error(err, errlen, "unknown option '%s'", name);
	if (!value && spec->kind == OPT_BOOL)
		value = "1";
	if (!value)
		return bench_opt_error(err, errlen, "%s needs a value", spec->name);
	if (!*value)
		return bench_opt_error(err, errlen, "%s: empty value", spec->name);
	ret = check_value(spec, value, err, errlen);
	if (ret)
		return ret;
	free(o->val[spec->id]);
	o->val[spec->id] = bench_xstrdup(value);
	/* rwmixread and rwmixwrite are one figure seen from two sides. */
	if (spec->id == RUN_OPT_RWMIXWRITE) {
		free(o->val[RUN_OPT_RWMIXREAD]);
		o->val[RUN_OPT_RWMIXREAD] = NULL;
	} else if (spec->id == RUN_OPT_RWMIXREAD) {
		free(o->val[RUN_OPT_RWMIXWRITE]);
		o->val[RUN_OPT_RWMIXWRITE] = NULL;
	}
	return 0;
}

/**
 * run_opts_copy() - Make @dst a copy of @src.
 * @dst: Options to overwrite.
 * @src: Options to copy.
 */
void run_opts_copy(struct run_opts *dst, const struct run_opts *src)
{
	int i;

	for (i = 0; i < RUN_NR_OPTS; i++) {
		free(dst->val[i]);
		dst->val[i] = src->val[i] ? bench_xstrdup(src->val[i]) : NULL;
	}
}

/**
 * run_opts_free() - Free the texts.
 * @o: The options.
 */
void run_opts_free(struct run_opts *o)
{
	int i;

	for (i = 0; i < RUN_NR_OPTS; i++) {
		free(o->val[i]);
		o->val[i] = NULL;
	}
}

/*
 * The resolve_*() helpers read one already syntax-checked text; a NULL
 * text leaves the default in place.
 */
static uint64_t resolve_size(const struct run_opts *o, enum run_opt_id id,
			     unsigned int kb_base, uint64_t dflt)
{
	uint64_t v;

	if (!o->val[id] || run_parse_size(o->val[id], kb_base, &v))
		return dflt;
	return v;
}

static uint64_t resolve_time(const struct run_opts *o, enum run_opt_id id)
{
	uint64_t v;

	if (!o->val[id] ||
	    run_parse_time_in(o->val[id], time_bare_ns(opt_spec_of(id)), &v))
		return 0;
	return v;
}

static bool resolve_bool(const struct run_opts *o, enum run_opt_id id)
{
	return o->val[id] && !strcmp(o->val[id], "1");
}

static unsigned int resolve_uint(const struct run_opts *o, enum run_opt_id id,
				 unsigned int dflt)
{
	return o->val[id] ? (unsigned int)strtoul(o->val[id], NULL, 10) : dflt;
}

static int resolve_enum(const struct run_opts *o, enum run_opt_id id,
			int dflt)
{
	const struct opt_spec *spec = opt_spec_of(id);

	return o->val[id] ? enum_index(spec->values, o->val[id]) : dflt;
}

/* resolve_engine() - Store ioengine=, mapping fio's names. */
static void resolve_engine(const struct run_opts *o, struct run_job *job)
{
	const char *e = o->val[RUN_OPT_IOENGINE];

	if (!e || !strcmp(e, "psync"))
		e = "kernel-psync";
	else if (!strcmp(e, "sync"))
		e = "kernel-sync";
	else if (!strcmp(e, "mmap"))
		e = "kernel-mmap";
	snprintf(job->engine, sizeof(job->engine), "%s", e);
}

/* resolve_rw() - Store rw= and the read share of a mixed job. */
static void resolve_rw(const struct run_opts *o, struct run_job *job)
{
	static const enum run_rw map[] = {
		RUN_RW_READ, RUN_RW_RANDREAD, RUN_RW_WRITE, RUN_RW_RANDWRITE,
		RUN_RW_RW, RUN_RW_RANDRW, RUN_RW_RW,
	};

	job->rw = map[resolve_enum(o, RUN_OPT_RW, 0)];
	job->rwmixread = 50;
	if (o->val[RUN_OPT_RWMIXREAD])
		job->rwmixread = resolve_uint(o, RUN_OPT_RWMIXREAD, 50);
	else if (o->val[RUN_OPT_RWMIXWRITE])
		job->rwmixread = 100 - resolve_uint(o, RUN_OPT_RWMIXWRITE, 50);
}

/*
 * resolve_file_kind() - What the file holds first.  A job that reads
 * needs data, so it gets fio's laid-out file; a write-only job gets what
 * fio gives it, a file preallocated as fallocate= says.
 */
static void resolve_file_kind(const struct run_opts *o, struct run_job *job)
{
	static const enum run_fallocate falloc_map[] = {
		RUN_FALLOC_NONE, RUN_FALLOC_NATIVE, RUN_FALLOC_POSIX,
		RUN_FALLOC_KEEP, RUN_FALLOC_TRUNCATE, RUN_FALLOC_NONE,
		RUN_FALLOC_POSIX,
	};

	job->fallocate = falloc_map[resolve_enum(o, RUN_OPT_FALLOCATE, 1)];
	if (o->val[RUN_OPT_FILE_KIND])
		job->file_kind = (enum run_file_kind)
			resolve_enum(o, RUN_OPT_FILE_KIND, 0);
	else if (run_rw_reads(job->rw))
		job->file_kind = RUN_FILE_NORMAL;
	else if (job->fallocate == RUN_FALLOC_NONE)
		job->file_kind = RUN_FILE_EMPTY;
	else if (job->fallocate == RUN_FALLOC_TRUNCATE)
		job->file_kind = RUN_FILE_HOLE;
	else
		job->file_kind = RUN_FILE_FALLOCATED;
}

/*
 * resolve_sizes_fit() - Do the size texts fit 64 bits under the job's
 * kb_base?  run_opts_set() only checked that they fit in one of the two
 * bases, before kb_base was known: "18000pi" fits with 1024 and not with
 * 1000, "16384p" the other way round, and resolve_size() would quietly
 * take the default for one that does not fit.
 */
static int resolve_sizes_fit(const struct run_opts *o,
			     const struct run_job *job, char *err,
			     size_t errlen)
{
	static const enum run_opt_id ids[] = {
		RUN_OPT_BS, RUN_OPT_OFFSET, RUN_OPT_SIZE, RUN_OPT_FILESIZE,
		RUN_OPT_MEMORY_LIMIT, RUN_OPT_SWAP_SIZE,
	};
	uint64_t v;
	size_t i;

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		if (o->val[ids[i]] &&
		    run_parse_size(o->val[ids[i]], job->kb_base, &v))
			return bench_opt_error(err, errlen, "job '%s': %s=%s: "
					 "too large with kb_base=%u", job->name,
					 opt_spec_of(ids[i])->name,
					 o->val[ids[i]], job->kb_base);
	return 0;
}

/* resolve_sizes() - bs, size, filesize and offset, and how they fit. */
static int resolve_sizes(const struct run_opts *o, struct run_job *job,
			 char *err, size_t errlen)
{
	unsigned int kb = job->kb_base;

	if (resolve_sizes_fit(o, job, err, errlen))
		return -EINVAL;
	job->bs = resolve_size(o, RUN_OPT_BS, kb, 4096);
	job->offset = resolve_size(o, RUN_OPT_OFFSET, kb, 0);
	job->size = resolve_size(o, RUN_OPT_SIZE, kb, 0);
	job->filesize = resolve_size(o, RUN_OPT_FILESIZE, kb, 0);
	job->memory_limit = resolve_size(o, RUN_OPT_MEMORY_LIMIT, kb, 0);
	job->swap_size = resolve_size(o, RUN_OPT_SWAP_SIZE, kb, 0);
	if (!job->size && !job->filesize)
		return bench_opt_error(err, errlen, "job '%s': size= or filesize= "
				 "is needed", job->name);
	if (!job->size) {
		if (job->offset >= job->filesize)
			return bench_opt_error(err, errlen, "job '%s': offset= is "
					 "past filesize=", job->name);
		job->size = job->filesize - job->offset;
	}
	if (!job->filesize) {
		if (job->offset > UINT64_MAX - job->size)
			return bench_opt_error(err, errlen, "job '%s': offset+size "
					 "too large", job->name);
		job->filesize = job->offset + job->size;
	}
	if (job->offset > job->filesize ||
	    job->size > job->filesize - job->offset)
		return bench_opt_error(err, errlen, "job '%s': offset (%llu) + "
				 "size (%llu) is past filesize= (%llu)",
				 job->name, (unsigned long long)job->offset,
				 (unsigned long long)job->size,
				 (unsigned long long)job->filesize);
	if (job->filesize > (uint64_t)INT64_MAX)
		return bench_opt_error(err, errlen, "job '%s': filesize too large",
				 job->name);
	if (!job->bs || job->bs > RUN_MAX_BS)
		return bench_opt_error(err, errlen, "job '%s': bs= must be 1..1g",
				 job->name);
	if (job->bs > job->size)
		return bench_opt_error(err, errlen, "job '%s': bs= (%llu) is larger "
				 "than size= (%llu)", job->name,
				 (unsigned long long)job->bs,
				 (unsigned long long)job->size);
	return 0;
}

/*
 * resolve_swap() - The swap options: only for the engines that swap
 * (upcache-anon, upcache-shmem), so that a job on another engine never
 * silently runs without the swap it asked for.
 */
static int resolve_swap(const struct run_opts *o, struct run_job *job,
			char *err, size_t errlen)
{
	static const enum run_opt_id ids[] = {
		RUN_OPT_SWAP_SIZE, RUN_OPT_SWAP_FILE, RUN_OPT_SWAP_SPACE_SHIFT,
	};
	size_t i;

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		if (o->val[ids[i]] && strcmp(job->engine, "upcache-anon") &&
		    strcmp(job->engine, "upcache-shmem"))
			return bench_opt_error(err, errlen, "job '%s': %s= is an "
					 "option of ioengine=upcache-anon and "
					 "upcache-shmem, not %s", job->name,
					 opt_spec_of(ids[i])->name,
					 job->engine);
	if (o->val[RUN_OPT_SWAP_SIZE] && !job->swap_size)
		return bench_opt_error(err, errlen, "job '%s': swap_size=0: "
				 "leave it out for no swap", job->name);
	job->swap_space_shift = resolve_uint(o, RUN_OPT_SWAP_SPACE_SHIFT, 0);
	if (o->val[RUN_OPT_SWAP_FILE])
		job->swap_file = bench_xstrdup(o->val[RUN_OPT_SWAP_FILE]);
	return 0;
}

/*
 * The engines with a file to sync (a struct run_engine @sync): an
 * upcache-shmem file syncs as a tmpfs one does (there is nothing to
 * write), upcache-anon's regions are no file at all.
 */
static const char *const sync_engines[] = {
	"upcache-shmem", "upcache-file", "kernel-sync", "kernel-psync",
	"kernel-mmap", NULL,
};

/**
 * run_engine_syncs() - Can engine @engine sync a clone's file?
 * @engine: The resolved ioengine= name.
 *
 * Return: true or false.
 */
bool run_engine_syncs(const char *engine)
{
	return enum_index(sync_engines, engine) >= 0;
}

/**
 * run_job_syncs() - Does @job ask for syncs?
 * @job: The job.
 */
bool run_job_syncs(const struct run_job *job)
{
	return job->fsync_blocks || job->fdatasync_blocks || job->end_fsync;
}

/*
 * resolve_sync() - fsync=, fdatasync= and end_fsync=.  On an engine with
 * nothing to sync they are an error, not ignored: the job would report
 * figures without the syncs it asked for.  0 asks for nothing and is
 * accepted anywhere (a [global] fsync=0 included).
 */
static int resolve_sync(const struct run_opts *o, struct run_job *job,
			char *err, size_t errlen)
{
	enum run_opt_id id;

	job->fsync_blocks = resolve_uint(o, RUN_OPT_FSYNC, 0);
	job->fdatasync_blocks = resolve_uint(o, RUN_OPT_FDATASYNC, 0);
	job->end_fsync = resolve_bool(o, RUN_OPT_END_FSYNC);
	if (!run_job_syncs(job) || run_engine_syncs(job->engine))
		return 0;
	id = job->fsync_blocks ? RUN_OPT_FSYNC :
	     job->fdatasync_blocks ? RUN_OPT_FDATASYNC : RUN_OPT_END_FSYNC;
	return bench_opt_error(err, errlen, "job '%s': %s=%s: ioengine=%s has "
			       "no file to sync (fsync=, fdatasync= and "
			       "end_fsync= need upcache-file, upcache-shmem or "
			       "a kernel engine)", job->name,
			       opt_spec_of(id)->name, o->val[id], job->engine);
}

/*
 * direct_refusal() - Why ioengine=@engine cannot honour direct=1, or
 * NULL if it can.  kernel-mmap could run and ignore it, as fio's mmap
 * engine does, but its figures would then look direct and be the page
 * cache's: refused, as the engines without a descriptor are.
 */
static const char *direct_refusal(const char *engine)
{
	if (!strcmp(engine, "kernel-mmap"))
		return "would ignore it, as fio's does (a mapping is the page "
		       "cache): figures that look direct and are not; use "
		       "kernel-psync";
	if (!strcmp(engine, "upcache-shmem") ||
	    !strcmp(engine, "upcache-anon"))
		return "has no file descriptor to open with O_DIRECT (its "
		       "data is upcache's memory); use upcache-file";
	return NULL;
}

/*
 * resolve_direct_align() - A kernel engine's direct I/O goes straight
 * from the job's buffer to the file, so every offset (offset= plus a
 * multiple of bs=) must be aligned as O_DIRECT wants.  fio would fail
 * with EINVAL on the first operation; saying which option is off, before
 * anything runs, is clearer.  upcache-file needs no alignment: the cache
 * copies, and reads and writes the file in whole aligned pages.
 */
static int resolve_direct_align(const struct run_job *job, char *err,
				size_t errlen)
{
	enum run_opt_id id;

	if (!strncmp(job->engine, "upcache-", 8))
		return 0;
	if (job->bs % RUN_DIRECT_ALIGN)
		id = RUN_OPT_BS;
	else if (job->offset % RUN_DIRECT_ALIGN)
		id = RUN_OPT_OFFSET;
	else
		return 0;
	return bench_opt_error(err, errlen, "job '%s': direct=1: %s=%llu is "
			       "not a multiple of %llu, as O_DIRECT needs "
			       "(the file system's block size)", job->name,
			       opt_spec_of(id)->name,
			       (unsigned long long)(id == RUN_OPT_BS ?
						    job->bs : job->offset),
			       RUN_DIRECT_ALIGN);
}

/*
 * resolve_direct() - direct=, file_io_uring= and
 * file_background_writeback=, and the engines that
 * take them.  As with the sync options, 0 asks for nothing and is
 * accepted anywhere (a [global] direct=0 included); 1 on an engine that
 * cannot honour it is an error, never ignored.
 */
static int resolve_direct(const struct run_opts *o, struct run_job *job,
			  char *err, size_t errlen)
{
	const char *why;

	job->direct = resolve_bool(o, RUN_OPT_DIRECT);
	job->file_io_uring = resolve_bool(o, RUN_OPT_FILE_IO_URING);
	job->file_background_writeback =
		resolve_bool(o, RUN_OPT_FILE_BACKGROUND_WRITEBACK);
	if ((job->file_io_uring || job->file_background_writeback) &&
	    strcmp(job->engine, "upcache-file"))
		return bench_opt_error(err, errlen, "job '%s': %s=1 "
				       "is an option of ioengine=upcache-file "
				       "(its writeback), not %s", job->name,
				       job->file_io_uring ? "file_io_uring" :
				       "file_background_writeback",
				       job->engine);
	if (!job->direct)
		return 0;
	why = direct_refusal(job->engine);
	if (why)
		return bench_opt_error(err, errlen, "job '%s': direct=1: "
				       "ioengine=%s %s", job->name,
				       job->engine, why);
	return resolve_direct_align(job, err, errlen);
}

/*
 * resolve_think() - thinktime=, thinktime_spin= and thinktime_blocks=.
 * The last two only shape thinktime='s stalls: given without it they
 * would do nothing, which a job file's author would not have meant, so
 * they are an error, as is a spin longer than the stall it is part of
 * (fio would quietly cut it to thinktime=).
 */
static int resolve_think(const struct run_opts *o, struct run_job *job,
			 char *err, size_t errlen)
{
	static const enum run_opt_id needs_think[] = {
		RUN_OPT_THINKTIME_SPIN, RUN_OPT_THINKTIME_BLOCKS,
	};
	size_t i;

	for (i = 0; i < sizeof(needs_think) / sizeof(needs_think[0]); i++)
		if (o->val[needs_think[i]] && !o->val[RUN_OPT_THINKTIME])
			return bench_opt_error(err, errlen, "job '%s': %s=%s "
					       "needs thinktime=", job->name,
					       opt_spec_of(needs_think[i])->name,
					       o->val[needs_think[i]]);
	job->thinktime_ns = resolve_time(o, RUN_OPT_THINKTIME);
	job->thinktime_spin_ns = resolve_time(o, RUN_OPT_THINKTIME_SPIN);
	job->thinktime_blocks = resolve_uint(o, RUN_OPT_THINKTIME_BLOCKS, 1);
	if (job->thinktime_spin_ns > job->thinktime_ns)
		return bench_opt_error(err, errlen, "job '%s': thinktime_spin=%s "
				       "is longer than thinktime=%s (the spin "
				       "is part of the think time)", job->name,
				       o->val[RUN_OPT_THINKTIME_SPIN],
				       o->val[RUN_OPT_THINKTIME]);
	return 0;
}

/**
 * run_job_resolve() - Turn a job's option texts into a job.
 * @o: The options.
 * @section: The section name.
 * @job: The result.
 * @err: Message buffer.
 * @errlen: Its size.
 *
 * Return: 0, or -EINVAL with a message.
 */
int run_job_resolve(const struct run_opts *o, const char *section,
		    struct run_job *job, char *err, size_t errlen)
{
	const char *name = o->val[RUN_OPT_NAME] ? o->val[RUN_OPT_NAME] :
			   section;
	int ret;

	memset(job, 0, sizeof(*job));
	snprintf(job->name, sizeof(job->name), "%s", name ? name : "job");
	job->kb_base = o->val[RUN_OPT_KB_BASE] &&
		       !strcmp(o->val[RUN_OPT_KB_BASE], "1000") ? 1000 : 1024;
	resolve_engine(o, job);
	resolve_rw(o, job);
	ret = resolve_sizes(o, job, err, errlen);
	if (ret)
		return ret;
	job->numjobs = resolve_uint(o, RUN_OPT_NUMJOBS, 1);
	job->runtime_ns = resolve_time(o, RUN_OPT_RUNTIME);
	job->ramp_ns = resolve_time(o, RUN_OPT_RAMP_TIME);
	job->time_based = resolve_bool(o, RUN_OPT_TIME_BASED);
	if (job->time_based && !job->runtime_ns)
		return bench_opt_error(err, errlen, "job '%s': time_based needs "
				 "runtime=", job->name);
	if (resolve_uint(o, RUN_OPT_IODEPTH, 1) != 1)
		return bench_opt_error(err, errlen, "job '%s': iodepth=%s: only 1 is "
				 "supported (every engine is synchronous)",
				 job->name, o->val[RUN_OPT_IODEPTH]);
	resolve_file_kind(o, job);
	ret = resolve_sync(o, job, err, errlen);
	if (!ret)
		ret = resolve_direct(o, job, err, errlen);
	if (!ret)
		ret = resolve_think(o, job, err, errlen);
	if (ret)
		return ret;
	job->group_reporting = resolve_bool(o, RUN_OPT_GROUP_REPORTING);
	job->stonewall = resolve_bool(o, RUN_OPT_STONEWALL);
	job->unlink = o->val[RUN_OPT_UNLINK] ?
		      resolve_bool(o, RUN_OPT_UNLINK) : -1;
	job->huge = (enum run_huge)resolve_enum(o, RUN_OPT_HUGE, 0);
	if (o->val[RUN_OPT_FILENAME]) {
		if (strchr(o->val[RUN_OPT_FILENAME], ':'))
			return bench_opt_error(err, errlen, "job '%s': filename= "
					 "lists of files (':') are not "
					 "supported", job->name);
		job->filename = bench_xstrdup(o->val[RUN_OPT_FILENAME]);
	}
	job->directory = bench_xstrdup(o->val[RUN_OPT_DIRECTORY] ?
				       o->val[RUN_OPT_DIRECTORY] : "/dev/shm");
	return resolve_swap(o, job, err, errlen);
}

/**
 * run_job_free() - Free what run_job_resolve() allocated.
 * @job: The job.
 */
void run_job_free(struct run_job *job)
{
	free(job->filename);
	free(job->directory);
	free(job->swap_file);
	job->filename = NULL;
	job->directory = NULL;
	job->swap_file = NULL;
}

/**
 * run_rw_name() - The rw= spelling of @rw.
 * @rw: The pattern.
 *
 * Return: A string literal.
 */
const char *run_rw_name(enum run_rw rw)
{
	return rw_values[rw];
}

/**
 * run_rw_reads() - Does a job with pattern @rw read?
 * @rw: The pattern.
 */
bool run_rw_reads(enum run_rw rw)
{
	return rw != RUN_RW_WRITE && rw != RUN_RW_RANDWRITE;
}

/**
 * run_rw_writes() - Does a job with pattern @rw write?
 * @rw: The pattern.
 */
bool run_rw_writes(enum run_rw rw)
{
	return rw != RUN_RW_READ && rw != RUN_RW_RANDREAD;
}

/**
 * run_rw_random() - Are @rw's offsets random?
 * @rw: The pattern.
 */
bool run_rw_random(enum run_rw rw)
{
	return rw == RUN_RW_RANDREAD || rw == RUN_RW_RANDWRITE ||
		rw == RUN_RW_RANDRW;
}

/**
 * run_options_usage() - Print the supported options, one a line.
 * @out: The stream.
 */
void run_options_usage(FILE *out)
{
	size_t i;

	for (i = 0; i < NR_OPT_SPECS; i++) {
		const struct opt_spec *s = &opt_specs[i];
		char name[40];

		snprintf(name, sizeof(name), "%s%s%s", s->name,
			 s->alias ? "|" : "", s->alias ? s->alias : "");
		fprintf(out, "  %-28s %s\n", name, s->help);
	}
}
