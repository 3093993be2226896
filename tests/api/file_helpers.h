/* SPDX-License-Identifier: MIT */
/*
 * tests/api/file_helpers.h - fixtures shared by the tests of files
 * backed by a file descriptor (upc_file_open()): a cache, a file on
 * disk in a directory of its own under $TMPDIR (or /tmp) and the upc_
 * file over it; patterned writes and checks of what the cache and the
 * file hold.
 *
 * Static functions in a header: each test program includes this once,
 * after api_helpers.h.  They assert with cmocka: main thread only.
 */
#ifndef UPCACHE_TESTS_FILE_HELPERS_H
#define UPCACHE_TESTS_FILE_HELPERS_H

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api_helpers.h"
#include "io/uring.h"

/**
 * struct fenv - a cache, a file on disk and the upc_ file over it.
 * @cache: The cache.
 * @file: The upc_ file, or NULL.
 * @fd: The file's descriptor.
 * @dir: The directory the test made.
 * @path: The file's path.
 */
struct fenv {
	struct upc_cache *cache;
	struct upc_file *file;
	int fd;
	char dir[256];
	char path[300];
};

/* A new directory, a file in it of @size bytes of api_byte(., 1). */
static API_UNUSED void fenv_make_file(struct fenv *e, int64_t size)
{
	const char *tmp = getenv("TMPDIR");
	unsigned char buf[4096];
	int64_t pos;

	snprintf(e->dir, sizeof(e->dir), "%s/upc-file-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(e->dir));
	snprintf(e->path, sizeof(e->path), "%s/data", e->dir);
	e->fd = open(e->path, O_RDWR | O_CREAT | O_EXCL, 0600);
	assert_true(e->fd >= 0);
	for (pos = 0; pos < size; pos += (int64_t)sizeof(buf)) {
		size_t n = size - pos < (int64_t)sizeof(buf) ?
			   (size_t)(size - pos) : sizeof(buf);
		size_t i;

		for (i = 0; i < n; i++)
			buf[i] = api_byte(pos + (int64_t)i, 1);
		assert_int_equal(pwrite(e->fd, buf, n, pos), (ssize_t)n);
	}
}

/* Skip a test of io_uring where this thread cannot have a ring. */
static API_UNUSED void skip_without_io_uring(void)
{
	if (io_uring_usable())
		return;
	print_message("io_uring is not available here: skipped\n");
	skip();
}

/* A cache of @limit bytes and a file of @size bytes opened with @flags. */
static API_UNUSED void fenv_init_flags(struct fenv *e, size_t limit, int64_t size,
			    unsigned int flags)
{
	struct upc_cache_config cfg = { .memory_limit = limit };

	memset(e, 0, sizeof(*e));
	fenv_make_file(e, size);
	assert_int_equal(upc_cache_create(&cfg, &e->cache), 0);
	assert_int_equal(upc_file_open(e->cache, e->fd, flags, &e->file), 0);
}

static API_UNUSED void fenv_init(struct fenv *e, size_t limit, int64_t size)
{
	fenv_init_flags(e, limit, size, 0);
}

/* Close (writing back), check nothing leaked, remove the file. */
static API_UNUSED void fenv_fini(struct fenv *e)
{
	struct upc_cache_stats st;

	if (e->file) {
		assert_file_ok(e->file);
		assert_int_equal(upc_close(e->file), 0);
	}
	assert_int_equal(upc_cache_stats(e->cache, &st), 0);
	assert_int_equal(st.memory_used, 0);
	assert_int_equal(st.files, 0);
	assert_int_equal(upc_cache_destroy(e->cache), 0);
	close(e->fd);
	unlink(e->path);
	rmdir(e->dir);
}

static API_UNUSED int64_t fd_size(int fd)
{
	struct stat st;

	assert_int_equal(fstat(fd, &st), 0);
	return (int64_t)st.st_size;
}

/* Do the @len bytes @buf read from @pos hold api_byte(., @seed)? */
static API_UNUSED bool buf_has_pattern(const unsigned char *buf, int64_t pos, size_t len,
			    unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (buf[i] != api_byte(pos + (int64_t)i, seed))
			return false;
	return true;
}

/* Does @fd (@file if @fd is -1) read as api_byte(., @seed) there? */
static API_UNUSED bool has_pattern(int fd, struct upc_file *file, int64_t pos,
			size_t len, unsigned int seed)
{
	unsigned char *buf = malloc(len);
	bool ok;

	assert_non_null(buf);
	assert_int_equal(fd >= 0 ? pread(fd, buf, len, pos) :
				   upc_read(file, buf, len, pos), (ssize_t)len);
	ok = buf_has_pattern(buf, pos, len, seed);
	free(buf);
	return ok;
}

#define fd_has_pattern(fd, pos, len, seed) \
	has_pattern(fd, NULL, pos, len, seed)
#define file_has_pattern(file, pos, len, seed) \
	has_pattern(-1, file, pos, len, seed)

/* Write api_byte(., @seed) over [@pos, +@len) through the cache. */
static API_UNUSED void file_write_pattern(struct upc_file *file, int64_t pos, size_t len,
			       unsigned int seed)
{
	unsigned char *buf = malloc(len);
	size_t i;

	assert_non_null(buf);
	for (i = 0; i < len; i++)
		buf[i] = api_byte(pos + (int64_t)i, seed);
	assert_int_equal(upc_write(file, buf, len, pos), (ssize_t)len);
	free(buf);
}

/* How long a background pass may take to show: far longer than one does. */
#define FILE_WAIT_MS	20000

static API_UNUSED void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

/*
 * Wait until @file's flusher has counted @passes passes, for
 * FILE_WAIT_MS at most.  A pass is counted when it ends, after its
 * writes: what it wrote can be in the file before it counts.
 * Return: whether it did.
 */
static API_UNUSED bool file_wait_for_passes(struct upc_file *file,
					    unsigned long passes)
{
	long waited;

	for (waited = 0; waited < FILE_WAIT_MS; waited += 5) {
		if (background_writeback_passes(&file->fdf.wb) >= passes)
			return true;
		sleep_ms(5);
	}
	return false;
}

static API_UNUSED bool all_zero(const unsigned char *p, size_t len)
{
	return !len || (!p[0] && !memcmp(p, p + 1, len - 1));
}

/*
 * A descriptor on @e's file opened with @flags; where the file system
 * refuses O_DIRECT, the test is skipped, @e torn down first.
 */
static API_UNUSED int open_or_skip(struct fenv *e, int flags)
{
	int fd = open(e->path, flags);

	if (fd < 0) {
		print_message("O_DIRECT refused here: skipped\n");
		fenv_fini(e);
		skip();
	}
	return fd;
}

/*
 * A direct descriptor on @e's file, and the cache on it (in *@file).
 * Return: the descriptor (the test is skipped where the file system
 * refuses O_DIRECT).
 */
static API_UNUSED int direct_open(struct fenv *e, struct upc_file **file)
{
	int dfd = open_or_skip(e, O_RDWR | O_DIRECT);

	assert_int_equal(upc_file_open(e->cache, dfd, 0, file), 0);
	return dfd;
}

#endif /* UPCACHE_TESTS_FILE_HELPERS_H */
