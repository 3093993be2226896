// SPDX-License-Identifier: MIT
/*
 * tests/api/test_file_api.c - files backed by a file descriptor
 * (upc_file_open(), mm/fdfile.c), one call at a time: what each does to
 * the cache and to the file behind it, each error its contract
 * documents, and writeback errors: a page that cannot be written stays
 * dirty with its data, and upc_fsync() says so, once per failure.
 *
 * Writeback failures are real ones: RLIMIT_FSIZE makes pwrite() past
 * the limit fail with EFBIG (SIGXFSZ ignored), as a full disk would
 * with ENOSPC.  Files live in a directory made under $TMPDIR (or /tmp).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/falloc.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api/internal.h"
#include "api_helpers.h"
#include "file_helpers.h"
#include "cpu_pin.h"
#include "fault.h"
#include "io/uring.h"
#include <upcache/vmscan.h>

#define MEM		(8UL << 20)

/* ---- opening ------------------------------------------------------------ */

static void test_open_errors(void **state)
{
	struct upc_cache_config cfg = { .memory_limit = MEM };
	struct upc_file *file = NULL;
	unsigned int bit;
	struct fenv e;
	int fds[2], fd;

	(void)state;
	memset(&e, 0, sizeof(e));
	fenv_make_file(&e, 4096);
	assert_int_equal(upc_cache_create(&cfg, &e.cache), 0);
	assert_int_equal(upc_file_open(NULL, e.fd, 0, &file), -EBADF);
	assert_int_equal(upc_file_open(e.cache, e.fd, 0, NULL), -EINVAL);
	/* Every flag bit the API does not define. */
	for (bit = 0; bit < 32; bit++)
		if (!((1U << bit) & (UPC_FILE_IO_URING |
				     UPC_FILE_WRITEBACK_BACKGROUND)))
			assert_int_equal(upc_file_open(e.cache, e.fd, 1U << bit,
						       &file), -EINVAL);
	assert_int_equal(upc_file_open(e.cache, -1, 0, &file), -EBADF);
	fd = open(e.path, O_RDONLY);
	close(fd);
	assert_int_equal(upc_file_open(e.cache, fd, 0, &file), -EBADF);

	fd = open(e.path, O_WRONLY);
	assert_int_equal(upc_file_open(e.cache, fd, 0, &file), -EBADF);
	close(fd);
	fd = open(e.path, O_RDWR | O_APPEND);
	assert_int_equal(upc_file_open(e.cache, fd, 0, &file), -EINVAL);
	close(fd);
	/* Not every file system takes O_DIRECT; where it does, so do we. */
	fd = open(e.path, O_RDWR | O_DIRECT);
	if (fd >= 0) {
		assert_int_equal(upc_file_open(e.cache, fd, 0, &file), 0);
		assert_int_equal(upc_close(file), 0);
		file = NULL;
		close(fd);
	}
	fd = open(e.dir, O_RDONLY | O_DIRECTORY);
	assert_int_equal(upc_file_open(e.cache, fd, 0, &file), -EINVAL);
	close(fd);
	fd = open(e.path, O_PATH);
	assert_int_equal(upc_file_open(e.cache, fd, 0, &file), -EBADF);
	close(fd);
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(upc_file_open(e.cache, fds[0], 0, &file), -EINVAL);
	close(fds[0]);
	close(fds[1]);
	assert_null(file);
	fenv_fini(&e);
}

/* Every allocation of opening can fail, leaving nothing behind. */
static void test_open_enomem(void **state)
{
	struct upc_cache_config cfg = { .memory_limit = MEM };
	struct upc_file *file = NULL;
	unsigned long n;
	struct fenv e;
	int err;

	(void)state;
	memset(&e, 0, sizeof(e));
	fenv_make_file(&e, 4096);
	assert_int_equal(upc_cache_create(&cfg, &e.cache), 0);
	for (n = 1;; n++) {
		upc_fault_fail_nth(n);
		err = upc_file_open(e.cache, e.fd, 0, &file);
		if (!upc_fault_injected())
			break;
		assert_int_equal(err, -ENOMEM);
		assert_null(file);
	}
	upc_fault_fail_nth(0);
	assert_true(n > 1);
	assert_int_equal(err, 0);
	e.file = file;
	assert_true(file_has_pattern(file, 0, 4096, 1));
	fenv_fini(&e);
}

/* ---- reads and writes --------------------------------------------------- */

static void test_read_existing(void **state)
{
	unsigned char buf[8192];
	struct fenv e;

	(void)state;
	fenv_init(&e, MEM, 3 * 4096 + 100);
	assert_int_equal(upc_size(e.file), 3 * 4096 + 100);
	assert_true(file_has_pattern(e.file, 0, 3 * 4096 + 100, 1));
	assert_true(file_has_pattern(e.file, 4000, 300, 1));
	/* Short at the end, nothing past it. */
	assert_int_equal(upc_read(e.file, buf, sizeof(buf), 2 * 4096),
			 4096 + 100);
	assert_int_equal(upc_read(e.file, buf, sizeof(buf), 3 * 4096 + 100), 0);
	assert_int_equal(upc_read(e.file, buf, sizeof(buf), 1L << 40), 0);
	assert_int_equal(upc_read(e.file, buf, 0, 0), 0);
	assert_int_equal(upc_read(e.file, NULL, 1, 0), -EFAULT);
	assert_int_equal(upc_read(e.file, buf, 1, -1), -EINVAL);
	assert_int_equal(upc_read(NULL, buf, 1, 0), -EBADF);
	fenv_fini(&e);
}

/* Writes stay in the cache until fsync; a partial page keeps its bytes. */
static void test_write_then_fsync(void **state)
{
	struct fenv e;

	(void)state;
	fenv_init(&e, MEM, 64 * 1024);
	file_write_pattern(e.file, 5000, 3000, 2);
	assert_true(file_has_pattern(e.file, 0, 5000, 1));
	assert_true(file_has_pattern(e.file, 5000, 3000, 2));
	assert_true(file_has_pattern(e.file, 8000, 64 * 1024 - 8000, 1));
	/* Not on disk yet. */
	assert_true(fd_has_pattern(e.fd, 5000, 3000, 1));
	assert_int_equal(upc_fsync(e.file), 0);
	assert_true(fd_has_pattern(e.fd, 0, 5000, 1));
	assert_true(fd_has_pattern(e.fd, 5000, 3000, 2));
	assert_true(fd_has_pattern(e.fd, 8000, 64 * 1024 - 8000, 1));
	assert_int_equal(upc_fdatasync(e.file), 0);
	assert_int_equal(upc_fsync(NULL), -EBADF);
	assert_int_equal(upc_fdatasync(NULL), -EBADF);
	fenv_fini(&e);
}

/*
 * Writes over many folios, the first and the last of them covered in
 * part: the file's bytes around the write are read into them first,
 * whether neither is cached, only the first is, or the last lies past
 * the end of the file (zeros after the write there).
 */
static void test_write_many_folios_keeps_edges(void **state)
{
	const int64_t size = 64 * 1024;
	unsigned char tail[4096];
	struct fenv e;

	(void)state;
	fenv_init(&e, MEM, size);
	file_write_pattern(e.file, 5000, 40000, 2);
	/* Page 10 is cached now, page 14 is not (nothing was read). */
	file_write_pattern(e.file, 44000, 15000, 3);
	/* From inside the last page of the file to past its end. */
	file_write_pattern(e.file, size - 1000, 6000, 4);
	assert_int_equal(upc_size(e.file), size + 5000);
	assert_true(file_has_pattern(e.file, 0, 5000, 1));
	assert_true(file_has_pattern(e.file, 5000, 39000, 2));
	assert_true(file_has_pattern(e.file, 44000, 15000, 3));
	assert_true(file_has_pattern(e.file, 59000, size - 60000, 1));
	assert_true(file_has_pattern(e.file, size - 1000, 6000, 4));
	assert_int_equal(upc_read(e.file, tail, sizeof(tail), size + 4096),
			 5000 - 4096);
	assert_int_equal(upc_fsync(e.file), 0);
	assert_true(fd_has_pattern(e.fd, 0, 5000, 1));
	assert_true(fd_has_pattern(e.fd, 5000, 39000, 2));
	assert_true(fd_has_pattern(e.fd, 44000, 15000, 3));
	assert_true(fd_has_pattern(e.fd, 59000, size - 60000, 1));
	assert_true(fd_has_pattern(e.fd, size - 1000, 6000, 4));
	assert_int_equal(fd_size(e.fd), size + 5000);
	fenv_fini(&e);
}

/* A write past the end grows the file; the gap reads as zeros. */
static void test_write_past_end(void **state)
{
	unsigned char buf[4096];
	struct fenv e;

	(void)state;
	fenv_init(&e, MEM, 1000);
	file_write_pattern(e.file, 3 * 4096 + 10, 50, 3);
	assert_int_equal(upc_size(e.file), 3 * 4096 + 60);
	assert_int_equal(fd_size(e.fd), 1000);
	assert_int_equal(upc_read(e.file, buf, sizeof(buf), 1000), 4096);
	assert_true(all_zero(buf, sizeof(buf)));
	assert_int_equal(upc_fsync(e.file), 0);
	/* Written up to the size, not a whole last page. */
	assert_int_equal(fd_size(e.fd), 3 * 4096 + 60);
	assert_true(fd_has_pattern(e.fd, 0, 1000, 1));
	assert_true(fd_has_pattern(e.fd, 3 * 4096 + 10, 50, 3));
	assert_int_equal(pread(e.fd, buf, sizeof(buf), 1000), 4096);
	assert_true(all_zero(buf, sizeof(buf)));
	fenv_fini(&e);
}

/* upc_close() writes back and leaves the descriptor open. */
static void test_close_writes_back(void **state)
{
	struct fenv e;

	(void)state;
	fenv_init(&e, MEM, 0);
	file_write_pattern(e.file, 0, 100000, 4);
	assert_int_equal(fd_size(e.fd), 0);
	assert_int_equal(upc_close(e.file), 0);
	e.file = NULL;
	assert_true(fcntl(e.fd, F_GETFD) >= 0);
	assert_int_equal(fd_size(e.fd), 100000);
	assert_true(fd_has_pattern(e.fd, 0, 100000, 4));
	assert_int_equal(upc_close(NULL), -EBADF);
	fenv_fini(&e);
}

/* A file four times the cache, written and read back through eviction. */
static void test_larger_than_cache(void **state)
{
	const size_t chunk = 1UL << 20;
	struct upc_cache_stats st;
	struct fenv e;
	int64_t pos;

	(void)state;
	fenv_init(&e, 4UL << 20, 0);
	for (pos = 0; pos < 16 * (int64_t)chunk; pos += (int64_t)chunk)
		file_write_pattern(e.file, pos, chunk, 5);
	for (pos = 0; pos < 16 * (int64_t)chunk; pos += (int64_t)chunk)
		assert_true(file_has_pattern(e.file, pos, chunk, 5));
	assert_int_equal(upc_cache_stats(e.cache, &st), 0);
	assert_true(st.evictions > 0);
	assert_true(st.writebacks > 0);
	assert_true(st.memory_used <= 4UL << 20);
	assert_int_equal(upc_fsync(e.file), 0);
	assert_true(fd_has_pattern(e.fd, 0, 16 * chunk, 5));
	fenv_fini(&e);
}

/* ---- size and space ----------------------------------------------------- */

static void test_truncate(void **state)
{
	unsigned char buf[4096];
	struct fenv e;

	(void)state;
	fenv_init(&e, MEM, 4 * 4096);
	file_write_pattern(e.file, 0, 4 * 4096, 6);
	/* Down into a page: the cache and the file are cut. */
	assert_int_equal(upc_truncate(e.file, 4096 + 100), 0);
	assert_int_equal(upc_size(e.file), 4096 + 100);
	assert_int_equal(fd_size(e.fd), 4096 + 100);
	/* Up again: what was cut reads as zeros, in the cache and the file. */
	assert_int_equal(upc_truncate(e.file, 3 * 4096), 0);
	assert_int_equal(fd_size(e.fd), 3 * 4096);
	assert_true(file_has_pattern(e.file, 0, 4096 + 100, 6));
	assert_int_equal(upc_read(e.file, buf, sizeof(buf), 4096 + 100), 4096);
	assert_true(all_zero(buf, sizeof(buf)));
	assert_int_equal(upc_fsync(e.file), 0);
	assert_true(fd_has_pattern(e.fd, 0, 4096 + 100, 6));
	assert_int_equal(pread(e.fd, buf, sizeof(buf), 4096 + 100), 4096);
	assert_true(all_zero(buf, sizeof(buf)));
	assert_int_equal(upc_truncate(e.file, -1), -EINVAL);
	assert_int_equal(upc_truncate(NULL, 0), -EBADF);
	fenv_fini(&e);
}

static void test_punch_hole(void **state)
{
	unsigned char buf[2 * 4096];
	struct fenv e;
	int ret;

	(void)state;
	fenv_init(&e, MEM, 3 * 4096);
	file_write_pattern(e.file, 0, 3 * 4096, 7);
	ret = upc_fallocate(e.file, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			    4096 - 10, 4096 + 20);
	if (ret == -EOPNOTSUPP) {
		/* The file system cannot punch holes: nothing to test here. */
		skip();
	}
	assert_int_equal(ret, 0);
	assert_int_equal(upc_size(e.file), 3 * 4096);
	assert_true(file_has_pattern(e.file, 0, 4096 - 10, 7));
	assert_int_equal(upc_read(e.file, buf, 4096 + 20, 4096 - 10), 4096 + 20);
	assert_true(all_zero(buf, 4096 + 20));
	assert_true(file_has_pattern(e.file, 2 * 4096 + 10, 4096 - 10, 7));
	assert_int_equal(upc_fsync(e.file), 0);
	assert_int_equal(pread(e.fd, buf, 4096 + 20, 4096 - 10), 4096 + 20);
	assert_true(all_zero(buf, 4096 + 20));
	assert_true(fd_has_pattern(e.fd, 2 * 4096 + 10, 4096 - 10, 7));
	/* Mode 0 grows the size; KEEP_SIZE does not. */
	assert_int_equal(upc_fallocate(e.file, FALLOC_FL_KEEP_SIZE, 0,
				       8 * 4096), 0);
	assert_int_equal(upc_size(e.file), 3 * 4096);
	assert_int_equal(upc_fallocate(e.file, 0, 0, 5 * 4096), 0);
	assert_int_equal(upc_size(e.file), 5 * 4096);
	assert_int_equal(fd_size(e.fd), 5 * 4096);
	assert_int_equal(upc_fallocate(e.file, FALLOC_FL_ZERO_RANGE, 0, 4096),
			 -EOPNOTSUPP);
	fenv_fini(&e);
}

/* A read-only descriptor: reads work, changes get the kernel's answers. */
static void test_read_only(void **state)
{
	struct upc_cache_config cfg = { .memory_limit = MEM };
	int kernel_truncate, kernel_fallocate, ro;
	/* NULL the compiler cannot see, to ask the kernel what it says. */
	void *volatile no_buf = NULL;
	struct fenv e;

	(void)state;
	memset(&e, 0, sizeof(e));
	fenv_make_file(&e, 10000);
	ro = open(e.path, O_RDONLY);
	assert_true(ro >= 0);
	kernel_truncate = ftruncate(ro, 0) ? -errno : 0;
	kernel_fallocate = fallocate(ro, 0, 0, 4096) ? -errno : 0;
	assert_true(kernel_truncate < 0 && kernel_fallocate < 0);
	assert_int_equal(upc_cache_create(&cfg, &e.cache), 0);
	assert_int_equal(upc_file_open(e.cache, ro, 0, &e.file), 0);
	assert_true(file_has_pattern(e.file, 0, 10000, 1));
	assert_int_equal(upc_write(e.file, "x", 1, 0), -EBADF);
	/* Read-only is said before the buffer or the length is looked at. */
	assert_int_equal(upc_write(e.file, NULL, 5, 0),
			 pwrite(ro, no_buf, 5, 0) < 0 ? -errno : 0);
	assert_int_equal(upc_write(e.file, "x", 0, 0),
			 pwrite(ro, "x", 0, 0) < 0 ? -errno : 0);
	assert_int_equal(upc_writev(e.file, NULL, 1, 0),
			 pwritev(ro, no_buf, 1, 0) < 0 ? -errno : 0);
	assert_int_equal(upc_truncate(e.file, 0), kernel_truncate);
	assert_int_equal(upc_fallocate(e.file, 0, 0, 4096), kernel_fallocate);
	assert_int_equal(upc_fallocate(e.file, 0, INT64_MAX - 10, 4096),
			 fallocate(ro, 0, INT64_MAX - 10, 4096) ? -errno : 0);
	assert_int_equal(upc_fsync(e.file), 0);
	assert_int_equal(upc_size(e.file), 10000);
	assert_true(fd_has_pattern(e.fd, 0, 10000, 1));
	fenv_fini(&e);
	close(ro);
}

/* The largest order among the folios caching @file's first @pages. */
static unsigned int largest_order(struct upc_file *file, pgoff_t pages)
{
	struct address_space *mapping = upc_file_mapping(file);
	unsigned int order = 0;
	pgoff_t i;

	for (i = 0; i < pages; i++) {
		struct folio *folio = filemap_get_folio(mapping, i);

		if (IS_ERR(folio))
			continue;
		if (folio_order(folio) > order)
			order = folio_order(folio);
		folio_put(folio);
	}
	return order;
}

/*
 * A sequential read of a file opened read-only is read ahead into large
 * folios; opened for writing, the same file is cached a page at a time
 * (dirt is tracked per folio).  Both read the file's bytes.
 */
static void test_large_folios_read_only(void **state)
{
	const int64_t size = 2L << 20;
	struct upc_file *ro_file;
	struct fenv e;
	int ro;

	(void)state;
	fenv_init(&e, MEM, size);
	ro = open(e.path, O_RDONLY);
	assert_true(ro >= 0);
	assert_int_equal(upc_file_open(e.cache, ro, 0, &ro_file), 0);
	assert_true(file_has_pattern(ro_file, 0, (size_t)size, 1));
	assert_true(largest_order(ro_file, (pgoff_t)size >> 12) >= 5);
	assert_true(file_has_pattern(e.file, 0, (size_t)size, 1));
	assert_int_equal(largest_order(e.file, (pgoff_t)size >> 12), 0);
	assert_int_equal(upc_close(ro_file), 0);
	close(ro);
	fenv_fini(&e);
}

/*
 * A read-only file streamed once in 4 KiB reads (read ahead into large
 * folios, each read many times in a row) is one use of each folio, not
 * a working set: it must not activate, and a hot file read twice
 * before it stays cached through it.
 */
static void test_stream_keeps_working_set(void **state)
{
	const int64_t hot_size = 1L << 20, stream_size = 16L << 20;
	struct upc_file *hot, *stream;
	struct upc_cache_stats before, after;
	unsigned char buf[4096];
	struct fenv e, s;
	int64_t pos;
	int pass, ro, sro;

	(void)state;
	/* A 4 MiB cache; the hot file is e's, the stream s's, read-only. */
	fenv_init(&e, 4UL << 20, hot_size);
	memset(&s, 0, sizeof(s));
	fenv_make_file(&s, stream_size);
	ro = open(e.path, O_RDONLY);
	assert_true(ro >= 0);
	assert_int_equal(upc_file_open(e.cache, ro, 0, &hot), 0);
	sro = open(s.path, O_RDONLY);
	assert_true(sro >= 0);
	assert_int_equal(upc_file_open(e.cache, sro, 0, &stream), 0);
	for (pass = 0; pass < 2; pass++)
		for (pos = 0; pos < hot_size; pos += 4096)
			assert_int_equal(upc_read(hot, buf, 4096, pos), 4096);
	assert_int_equal(upc_cache_stats(e.cache, &before), 0);
	for (pos = 0; pos < stream_size; pos += 4096)
		assert_int_equal(upc_read(stream, buf, 4096, pos), 4096);
	assert_int_equal(upc_cache_stats(e.cache, &after), 0);
	/* The stream activated nothing of its own. */
	assert_true(after.activations - before.activations < 16);
	for (pos = 0; pos < hot_size; pos += 4096)
		assert_int_equal(upc_read(hot, buf, 4096, pos), 4096);
	assert_int_equal(upc_cache_stats(e.cache, &before), 0);
	assert_int_equal(before.refaults, after.refaults);
	assert_int_equal(upc_close(stream), 0);
	assert_int_equal(upc_close(hot), 0);
	close(ro);
	close(sro);
	close(s.fd);
	unlink(s.path);
	rmdir(s.dir);
	fenv_fini(&e);
}

/* Pages of the file at @fd the kernel's page cache holds (mincore()). */
static size_t kernel_cached_pages(int fd)
{
	int64_t size = fd_size(fd);
	size_t pages = (size_t)((size + 4095) / 4096), i, n = 0;
	unsigned char *vec;
	void *map;

	if (!size)
		return 0;
	map = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, fd, 0);
	assert_true(map != MAP_FAILED);
	vec = malloc(pages);
	assert_non_null(vec);
	assert_int_equal(mincore(map, (size_t)size, vec), 0);
	for (i = 0; i < pages; i++)
		n += vec[i] & 1;
	free(vec);
	munmap(map, (size_t)size);
	return n;
}

/*
 * A file opened with O_DIRECT: the cache is its only cache.  Reads,
 * writes at any offset, the end of the data off a page's edge, reclaim
 * writing back under a small limit, fsync and truncation all give the
 * file's bytes, with io_uring and without; and, where the file system
 * is not in memory anyway, the kernel caches at most the page holding
 * the end of the data (written through the buffered twin).
 */
static void direct_case(unsigned int flags)
{
	const int64_t size = (8L << 20) + 1000;
	unsigned char *buf;
	struct upc_file *file;
	struct statfs sfs;
	struct fenv e;
	int64_t pos;
	int dfd, i;

	fenv_init(&e, 2UL << 20, size);
	dfd = open_or_skip(&e, O_RDWR | O_DIRECT);
	buf = malloc(64 * 1024);
	/* Nothing of it in the kernel's cache to begin with. */
	assert_int_equal(fdatasync(e.fd), 0);
	assert_int_equal(posix_fadvise(e.fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	assert_int_equal(upc_file_open(e.cache, dfd, flags, &file), 0);
	assert_true(file_has_pattern(file, 0, (size_t)size, 1));
	/* Scattered writes in a file four times the cache: reclaim writes. */
	for (i = 0; i < 64; i++) {
		pos = (int64_t)(i * 131071L) % (size - 5000);
		file_write_pattern(file, pos, 3000, 30 + i % 3);
	}
	/* The end of the data grows, off a page's edge. */
	file_write_pattern(file, size, 777, 40);
	assert_int_equal(upc_fsync(file), 0);
	/* Before this test reads the file through the kernel's cache. */
	if (!fstatfs(e.fd, &sfs) && sfs.f_type != 0x01021994 /* tmpfs */)
		assert_true(kernel_cached_pages(e.fd) <= 1);
	assert_int_equal(fd_size(e.fd), size + 777);
	for (i = 0; i < 64; i++) {
		pos = (int64_t)(i * 131071L) % (size - 5000);
		if (i >= 61)	/* the last writes over each offset won */
			assert_true(fd_has_pattern(e.fd, pos, 3000, 30 + i % 3));
	}
	assert_true(fd_has_pattern(e.fd, size, 777, 40));
	/* Cut inside a page; the cache and the file agree. */
	assert_int_equal(upc_truncate(file, size - 2345), 0);
	assert_int_equal(upc_fsync(file), 0);
	assert_int_equal(fd_size(e.fd), size - 2345);
	assert_int_equal(upc_read(file, buf, 64 * 1024, size - 4000),
			 4000 - 2345);
	assert_int_equal(upc_close(file), 0);
	close(dfd);
	free(buf);
	fenv_fini(&e);
}

static void test_direct_io(void **state)
{
	(void)state;
	direct_case(0);
}

static void test_direct_io_uring(void **state)
{
	(void)state;
	skip_without_io_uring();
	direct_case(UPC_FILE_IO_URING);
}

/*
 * A sequential reader of an O_DIRECT file reads only its first request
 * itself: every window after it is read by readahead workers (the
 * reader meets each window's mark and sends the next), so the reader
 * thread makes one transfer for the whole file, where a buffered
 * descriptor's reader reads every window itself.  Both read the file's
 * bytes.
 */
static void stream_transfers(bool direct, uint64_t *transfers)
{
	const int64_t size = 4L << 20;
	struct io_counters *c = io_thread_counters();
	unsigned char buf[4096];
	struct upc_file *file;
	struct fenv e;
	int64_t pos;
	int fd;

	fenv_init(&e, 4 * size, size);
	fd = open_or_skip(&e, O_RDONLY | (direct ? O_DIRECT : 0));
	assert_int_equal(upc_file_open(e.cache, fd, 0, &file), 0);
	*c = (struct io_counters){ 0 };
	for (pos = 0; pos < size; pos += 4096) {
		assert_int_equal(upc_read(file, buf, 4096, pos), 4096);
		if (!buf_has_pattern(buf, pos, 4096, 1))
			fail_msg("bytes at %lld", (long long)pos);
	}
	*transfers = c->transfers;
	assert_int_equal(upc_close(file), 0);
	close(fd);
	fenv_fini(&e);
}

static void test_direct_reads_ahead_in_background(void **state)
{
	uint64_t transfers;

	(void)state;
	stream_transfers(false, &transfers);
	/* 4 MiB in windows of at most 512 KiB: at least 8 of its own. */
	assert_true(transfers >= 8);
	stream_transfers(true, &transfers);
	assert_int_equal(transfers, 1);
}

/*
 * A random 1 MiB read of a file with none of it cached reads its 256
 * pages in one request: one transfer, one preadv() (the kernel's own
 * direct read of it is one request too).  Before, the window stopped at
 * 512 KiB and its runs at 31 folios: ten transfers.
 */
static void request_transfers(bool direct)
{
	const int64_t size = 4L << 20, pos = 1L << 20;
	const size_t len = 1UL << 20;
	struct io_counters *c = io_thread_counters();
	unsigned char *buf = malloc(len);
	struct upc_file *file;
	struct fenv e;
	int fd;

	assert_non_null(buf);
	fenv_init(&e, 4 * size, size);
	fd = open_or_skip(&e, O_RDONLY | (direct ? O_DIRECT : 0));
	assert_int_equal(upc_file_open(e.cache, fd, 0, &file), 0);
	*c = (struct io_counters){ 0 };
	assert_int_equal(upc_read(file, buf, len, pos), (ssize_t)len);
	if (!buf_has_pattern(buf, pos, len, 1))
		fail_msg("the bytes read are not the file's");
	assert_int_equal(c->transfers, 1);
	assert_int_equal(c->syscalls, 1);
	assert_int_equal(c->bytes, len);
	free(buf);
	assert_int_equal(upc_close(file), 0);
	close(fd);
	fenv_fini(&e);
}

static void test_request_read_is_one_transfer(void **state)
{
	(void)state;
	request_transfers(false);
	request_transfers(true);
}

/*
 * Closing an O_DIRECT file, and destroying its cache, while readahead
 * workers still read its folios: close waits for them (truncation
 * takes each folio's lock), destroy waits for their last references
 * (ASan checks that nothing is touched after it is freed).
 */
static void test_direct_close_during_readahead(void **state)
{
	unsigned char buf[4096];
	struct upc_file *file;
	struct fenv e;
	int i, fd;

	(void)state;
	for (i = 0; i < 20; i++) {
		fenv_init(&e, MEM, 1L << 20);
		fd = open_or_skip(&e, O_RDONLY | O_DIRECT);
		assert_int_equal(upc_file_open(e.cache, fd, 0, &file), 0);
		/* A stream starts: [4 KiB, 16 KiB) goes to a worker. */
		assert_int_equal(upc_read(file, buf, 4096, 0), 4096);
		assert_true(buf_has_pattern(buf, 0, 4096, 1));
		/* Meets the mark: the next window too. */
		assert_int_equal(upc_read(file, buf, 4096, 4096), 4096);
		assert_true(buf_has_pattern(buf, 4096, 4096, 1));
		assert_int_equal(upc_close(file), 0);
		close(fd);
		fenv_fini(&e);
	}
}

/* A child's view of the lock on @fd's file's first byte: its type. */
static int lock_seen_by_child(int fd)
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (!pid) {
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
				    .l_start = 0, .l_len = 1 };

		if (fcntl(fd, F_GETLK, &fl))
			_exit(100);
		_exit(fl.l_type);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/*
 * A database's POSIX record lock on its O_DIRECT file outlives the
 * cache: writing the page that ends the data, fsync and upc_close()
 * close no descriptor of the file (any close would drop the lock).
 */
static void test_direct_keeps_record_locks(void **state)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			    .l_start = 0, .l_len = 0 };
	struct upc_file *file;
	struct fenv e;
	int dfd;

	(void)state;
	fenv_init(&e, MEM, 10000);
	assert_int_equal(fcntl(e.fd, F_SETLK, &fl), 0);
	dfd = direct_open(&e, &file);
	file_write_pattern(file, 9000, 3333, 50);	/* ends off a page */
	assert_int_equal(upc_fsync(file), 0);
	assert_int_equal(upc_close(file), 0);
	assert_true(fd_has_pattern(e.fd, 9000, 3333, 50));
	assert_int_equal(lock_seen_by_child(e.fd), F_WRLCK);
	close(dfd);
	fenv_fini(&e);
}

/*
 * Dirty pages of the kernel's cache for @fd's file (cachestat(), Linux
 * 6.5), or -1 where the kernel has no cachestat.  Its number is the same
 * on every architecture (from 424 on they share one table); C library
 * headers older than the call do not name it.
 */
#define UPC_NR_CACHESTAT	451

static long kernel_dirty_pages(int fd)
{
	struct { uint64_t off, len; } range = { 0, 0 };
	struct { uint64_t cache, dirty, writeback, evicted, recent; } cs;

	if (syscall(UPC_NR_CACHESTAT, fd, &range, &cs, 0))
		return -1;
	return (long)(cs.dirty + cs.writeback);
}

/*
 * The page that ends a direct file's data goes through the kernel's
 * cache, and is flushed to the device before the cache calls its folio
 * clean: a failure of the kernel's later writeback would otherwise lose
 * it with nobody to write it again.  Written back alone (no fsync, which
 * would flush it anyway), the kernel holds nothing dirty.
 */
static void test_direct_tail_reaches_device(void **state)
{
	struct upc_file *file;
	struct fenv e;
	int dfd;

	(void)state;
	fenv_init(&e, MEM, 0);
	dfd = direct_open(&e, &file);
	if (kernel_dirty_pages(e.fd) < 0) {
		print_message("cachestat() missing: skipped\n");
		assert_int_equal(upc_close(file), 0);
		close(dfd);
		fenv_fini(&e);
		skip();
	}
	file_write_pattern(file, 0, 5000, 51);
	assert_int_equal(filemap_fdatawrite_range(upc_file_mapping(file), 0,
						  INT64_MAX), 0);
	assert_int_equal(fd_size(e.fd), 5000);
	assert_int_equal(kernel_dirty_pages(e.fd), 0);
	assert_true(fd_has_pattern(e.fd, 0, 5000, 51));
	assert_int_equal(upc_close(file), 0);
	close(dfd);
	fenv_fini(&e);
}

/* A file system refusing to shrink the file leaves everything as it was. */
static void test_truncate_refused(void **state)
{
	struct upc_cache_config cfg = { .memory_limit = MEM };
	unsigned char buf[4096];
	struct fenv e;
	int memfd, i;

	(void)state;
	memset(&e, 0, sizeof(e));
	fenv_make_file(&e, 0);
	memfd = memfd_create("upc-test", MFD_ALLOW_SEALING);
	assert_true(memfd >= 0);
	memset(buf, 'O', sizeof(buf));
	for (i = 0; i < 3; i++)
		assert_int_equal(pwrite(memfd, buf, sizeof(buf), i * 4096),
				 4096);
	assert_int_equal(fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	assert_int_equal(upc_cache_create(&cfg, &e.cache), 0);
	assert_int_equal(upc_file_open(e.cache, memfd, 0, &e.file), 0);
	file_write_pattern(e.file, 0, 4096, 13);
	assert_int_equal(upc_truncate(e.file, 100),
			 ftruncate(memfd, 100) ? -errno : 0);
	assert_int_equal(upc_size(e.file), 3 * 4096);
	assert_true(file_has_pattern(e.file, 0, 4096, 13));
	assert_int_equal(upc_read(e.file, buf, sizeof(buf), 2 * 4096), 4096);
	assert_int_equal(buf[0], 'O');
	/* Growing is allowed, and works. */
	assert_int_equal(upc_truncate(e.file, 4 * 4096), 0);
	assert_int_equal(upc_fsync(e.file), 0);
	assert_true(fd_has_pattern(memfd, 0, 4096, 13));
	assert_int_equal(fd_size(memfd), 4 * 4096);
	assert_file_ok(e.file);
	assert_int_equal(upc_close(e.file), 0);
	e.file = NULL;
	close(memfd);
	fenv_fini(&e);
}

/* Seeks answer as lseek() on the file does, once the data is written. */
static void test_seek(void **state)
{
	int64_t want;
	struct fenv e;

	(void)state;
	fenv_init(&e, MEM, 0);
	assert_int_equal(upc_truncate(e.file, 4L << 20), 0);
	file_write_pattern(e.file, 1L << 20, 4096, 8);
	assert_int_equal(upc_seek_data(e.file, 4L << 20), -ENXIO);
	assert_int_equal(upc_seek_hole(e.file, -1), -ENXIO);
	want = upc_seek_data(e.file, 0);
	/* The data went to the file: its lseek() agrees, and finds it. */
	assert_int_equal(want, lseek(e.fd, 0, SEEK_DATA));
	assert_true(want <= 1L << 20);
	assert_true(fd_has_pattern(e.fd, 1L << 20, 4096, 8));
	assert_int_equal(upc_seek_hole(e.file, 1L << 20),
			 lseek(e.fd, 1L << 20, SEEK_HOLE));
	fenv_fini(&e);
}

/*
 * A seek from the end of the file, or past it, is -ENXIO at once: the
 * answer needs nothing from the file, so the dirty pages are not written
 * back for it (the file on disk keeps its old size until they are).  The
 * end itself is past the data, as lseek() has it: SEEK_DATA finds none
 * there, and SEEK_HOLE finds no hole either.
 */
static void test_seek_at_end_writes_nothing(void **state)
{
	struct fenv e;

	(void)state;
	fenv_init(&e, MEM, 0);
	file_write_pattern(e.file, 0, 4096, 10);
	assert_int_equal(upc_size(e.file), 4096);
	assert_int_equal(upc_seek_data(e.file, 4096), -ENXIO);
	assert_int_equal(upc_seek_hole(e.file, 4096), -ENXIO);
	assert_int_equal(upc_seek_data(e.file, 4097), -ENXIO);
	assert_int_equal(fd_size(e.fd), 0);
	/* A seek inside the file gives the file all its data first. */
	assert_int_equal(upc_seek_data(e.file, 0), 0);
	assert_int_equal(fd_size(e.fd), 4096);
	assert_true(fd_has_pattern(e.fd, 0, 4096, 10));
	fenv_fini(&e);
}

/*
 * Spans of an fd file: the file's data (read in first), dirty data in
 * the cache, cut at the end of the file and at @max_spans, and still
 * readable after a truncation until they are put.
 */
static void test_spans(void **state)
{
	struct upc_span spans[8];
	int64_t pos = 100;
	struct fenv e;
	int nr, i;

	(void)state;
	fenv_init(&e, MEM, 6 * 4096 + 10);
	file_write_pattern(e.file, 4096, 4096, 14);
	nr = upc_get_spans(e.file, pos, 1L << 20, spans, 8);
	assert_int_equal(nr, 7);
	for (i = 0; i < nr; i++) {
		assert_non_null(spans[i].data);
		assert_int_equal(spans[i].offset, pos);
		assert_true(buf_has_pattern(spans[i].data, pos, spans[i].len,
					    i == 1 ? 14 : 1));
		pos += (int64_t)spans[i].len;
	}
	assert_int_equal(pos, 6 * 4096 + 10);
	/* The file shrinks; the pinned bytes stay until the put. */
	assert_int_equal(upc_truncate(e.file, 0), 0);
	assert_true(buf_has_pattern(spans[5].data, spans[5].offset,
				    spans[5].len, 1));
	upc_put_spans(spans, (unsigned int)nr);
	assert_int_equal(upc_get_spans(e.file, 0, 4096, spans, 8), 0);
	/* Room for two: two, and the rest from where they end. */
	file_write_pattern(e.file, 0, 3 * 4096, 15);
	assert_int_equal(upc_get_spans(e.file, 0, 3 * 4096, spans, 2), 2);
	assert_int_equal(spans[1].offset + (int64_t)spans[1].len, 2 * 4096);
	upc_put_spans(spans, 2);
	fenv_fini(&e);
}

/* ---- writeback errors --------------------------------------------------- */

/* Files may not grow past @bytes until fsize_unlimit(). */
static void fsize_limit(rlim_t bytes)
{
	struct rlimit rl;

	assert_int_equal(getrlimit(RLIMIT_FSIZE, &rl), 0);
	rl.rlim_cur = bytes;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &rl), 0);
}

static void fsize_unlimit(void)
{
	struct rlimit rl;

	assert_int_equal(getrlimit(RLIMIT_FSIZE, &rl), 0);
	rl.rlim_cur = rl.rlim_max;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &rl), 0);
}

/*
 * RLIMIT_FSIZE inside a direct run of dirty pages: the kernel cuts the
 * run off a block's edge and direct I/O refuses it (EINVAL).  The cache
 * writes it as a buffered write would: up to the limit, then -EFBIG
 * (SIGXFSZ ignored); the pages past it stay dirty and go once allowed.
 */
static void test_direct_fsize_limit(void **state)
{
	struct upc_file *file;
	struct fenv e;
	int dfd;

	(void)state;
	fenv_init(&e, MEM, 0);
	dfd = direct_open(&e, &file);
	file_write_pattern(file, 0, 20000, 52);
	fsize_limit(10000);
	assert_int_equal(upc_fsync(file), -EFBIG);
	fsize_unlimit();
	assert_int_equal(fd_size(e.fd), 10000);
	assert_true(fd_has_pattern(e.fd, 0, 10000, 52));
	assert_int_equal(upc_fsync(file), 0);
	assert_int_equal(fd_size(e.fd), 20000);
	assert_true(fd_has_pattern(e.fd, 0, 20000, 52));
	assert_int_equal(upc_close(file), 0);
	close(dfd);
	fenv_fini(&e);
}

/* A failed fsync keeps the data dirty, fails again, then succeeds. */
static void test_fsync_error_keeps_data(void **state)
{
	struct fenv e;

	(void)state;
	fenv_init(&e, MEM, 16 * 4096);
	file_write_pattern(e.file, 8 * 4096, 16 * 4096, 9);
	fsize_limit(16 * 4096);
	assert_int_equal(upc_fsync(e.file), -EFBIG);
	/* The pages that could not be written still hold the data. */
	assert_true(file_has_pattern(e.file, 8 * 4096, 16 * 4096, 9));
	assert_true(fd_has_pattern(e.fd, 8 * 4096, 8 * 4096, 9));
	assert_int_equal(fd_size(e.fd), 16 * 4096);
	assert_int_equal(upc_fsync(e.file), -EFBIG);
	fsize_unlimit();
	assert_int_equal(upc_fsync(e.file), 0);
	assert_int_equal(fd_size(e.fd), 24 * 4096);
	assert_true(fd_has_pattern(e.fd, 8 * 4096, 16 * 4096, 9));
	assert_true(fd_has_pattern(e.fd, 0, 8 * 4096, 1));
	fenv_fini(&e);
}

/*
 * Growing a file past what it may reach (RLIMIT_FSIZE here, a file
 * system's largest file size elsewhere) is ftruncate()'s -EFBIG, far
 * below UPC_MAX_FILE_SIZE, with nothing changed; an in-memory file
 * takes any size an int64_t holds.
 */
static void test_truncate_efbig(void **state)
{
	struct fenv e;

	(void)state;
	fenv_init(&e, MEM, 4096);
	fsize_limit(8 * 4096);
	assert_int_equal(upc_truncate(e.file, 16 * 4096), -EFBIG);
	fsize_unlimit();
	assert_int_equal(upc_size(e.file), 4096);
	assert_int_equal(fd_size(e.fd), 4096);
	assert_true(file_has_pattern(e.file, 0, 4096, 1));
	assert_int_equal(upc_truncate(e.file, 16 * 4096), 0);
	assert_int_equal(fd_size(e.fd), 16 * 4096);
	fenv_fini(&e);
}

/*
 * A cache full of dirty pages that writeback cannot write (past
 * RLIMIT_FSIZE) is a full file system to a write, -ENOSPC as on a full
 * tmpfs, and leaves a read of a page not cached no memory, -ENOMEM.
 * Once the pages can go, both work again.
 */
static void test_full_of_unwritable_pages(void **state)
{
	const int64_t size = 16L << 20;
	unsigned char buf[4096];
	ssize_t ret = 0;
	struct fenv e;
	int64_t pos;

	(void)state;
	fenv_init(&e, 2UL << 20, size);
	fsize_limit(4096);
	memset(buf, 0x5a, sizeof(buf));
	for (pos = 0; pos < size / 2; pos += (int64_t)sizeof(buf)) {
		ret = upc_write(e.file, buf, sizeof(buf), pos);
		if (ret != (ssize_t)sizeof(buf))
			break;
	}
	assert_int_equal(ret, -ENOSPC);
	/* It stopped at the cache's size (its first page could go). */
	assert_true(pos > (1L << 20) && pos <= (2L << 20) + 4096);
	assert_int_equal(upc_read(e.file, buf, sizeof(buf), size - 4096),
			 -ENOMEM);
	fsize_unlimit();
	assert_int_equal(upc_fsync(e.file), -EFBIG);
	assert_int_equal(upc_read(e.file, buf, sizeof(buf), size - 4096),
			 4096);
	assert_true(fd_has_pattern(e.fd, size - 4096, 4096, 1));
	memset(buf, 0x5a, sizeof(buf));
	assert_int_equal(upc_write(e.file, buf, sizeof(buf), pos), 4096);
	fenv_fini(&e);
}

/*
 * Writes of many pages into a cache full of dirty pages the file
 * refuses fail as soon as the cache is full, not after reclaim has
 * waited and rescanned round after round for folios the writer itself
 * holds (those it inserted while it fills the rest of its run).  Each
 * write's reclaim scans (a deterministic count) stay within eight
 * passes of upc_reclaim_pages(), each at most twice the cache and a
 * batch; waiting on its own folios took over sixty.
 */
static void test_full_of_unwritable_pages_fails_fast(void **state)
{
	const unsigned long pages = (2UL << 20) / 4096;
	const size_t bs = 64 * 1024;
	struct upc_cache_stats before, after;
	uint64_t most = 0;
	unsigned char *buf = malloc(bs);
	ssize_t ret = 0;
	struct fenv e;
	int64_t pos;

	(void)state;
	assert_non_null(buf);
	fenv_init(&e, pages * 4096, 16L << 20);
	fsize_limit(4096);
	memset(buf, 0x3c, bs);
	for (pos = 0; pos < 8L << 20; pos += ret) {
		assert_int_equal(upc_cache_stats(e.cache, &before), 0);
		ret = upc_write(e.file, buf, bs, pos);
		assert_int_equal(upc_cache_stats(e.cache, &after), 0);
		if (after.reclaim_scans - before.reclaim_scans > most)
			most = after.reclaim_scans - before.reclaim_scans;
		if (ret <= 0)
			break;
	}
	assert_int_equal(ret, -ENOSPC);
	assert_true(pos > (1L << 20) && pos <= (2L << 20) + 4096);
	assert_true(most <= 8 * (2 * pages + UPC_RECLAIM_BATCH));
	fsize_unlimit();
	assert_int_equal(upc_fsync(e.file), -EFBIG);
	assert_int_equal(upc_write(e.file, buf, bs, pos), (ssize_t)bs);
	free(buf);
	fenv_fini(&e);
}

/*
 * A write whose own run holds the only pages reclaim could free still
 * gets its memory: the cache is full of dirty pages the file refuses,
 * but for the clean pages 1-15 of the file, which the write covers
 * (with page 0, not cached).  Its grab holds them while it allocates
 * page 0, so that allocation cannot free them; it is made again with
 * the run let go, and then it can.
 */
static void test_write_frees_the_pages_it_holds(void **state)
{
	const size_t bs = 64 * 1024;
	struct upc_span spans[15];
	unsigned char *buf = malloc(bs);
	ssize_t ret = 0;
	struct fenv e;
	int64_t pos;
	size_t i;
	int n;

	(void)state;
	assert_non_null(buf);
	fenv_init(&e, 2UL << 20, 16L << 20);
	/* Pages 1-15 cached clean, pinned while the rest fills up. */
	assert_int_equal(upc_read(e.file, buf, 15 * 4096, 4096), 15 * 4096);
	n = upc_get_spans(e.file, 4096, 15 * 4096, spans, 15);
	assert_int_equal(n, 15);
	fsize_limit(4096);
	memset(buf, 0x3c, bs);
	for (pos = 1L << 20; pos < 8L << 20; pos += ret) {
		ret = upc_write(e.file, buf, bs, pos);
		if (ret <= 0)
			break;
	}
	assert_int_equal(ret, -ENOSPC);
	upc_put_spans(spans, (unsigned int)n);
	for (i = 0; i < bs; i++)
		buf[i] = api_byte((int64_t)i, 2);
	assert_int_equal(upc_write(e.file, buf, bs, 0), (ssize_t)bs);
	fsize_unlimit();
	assert_int_equal(upc_fsync(e.file), -EFBIG);
	assert_true(fd_has_pattern(e.fd, 0, bs, 2));
	free(buf);
	fenv_fini(&e);
}

/*
 * A cache whose every page a span pins has nothing to give a read of a
 * page not cached: -ENOMEM, after reclaim has looked at the cache a few
 * times, not after it has waited and rescanned round after round for
 * pins that will not go (the span's owner is the one reading).  The
 * read's reclaim scans (a deterministic count) stay within two passes
 * of upc_reclaim_pages() (readahead's one round and the miss's), each
 * at most twice the cache and a batch.
 */
static void test_pinned_cache_fails_fast(void **state)
{
	const unsigned long pages = (4UL << 20) / 4096;
	struct upc_span *spans = calloc(pages, sizeof(*spans));
	struct upc_cache_stats before, after;
	unsigned char buf[4096];
	struct fenv e;
	int n;

	(void)state;
	assert_non_null(spans);
	fenv_init(&e, 4UL << 20, 16L << 20);
	n = upc_get_spans(e.file, 0, pages * 4096, spans, (unsigned int)pages);
	assert_int_equal(n, (int)pages);
	assert_int_equal(upc_cache_stats(e.cache, &before), 0);
	assert_int_equal(upc_read(e.file, buf, sizeof(buf), 8L << 20),
			 -ENOMEM);
	assert_int_equal(upc_cache_stats(e.cache, &after), 0);
	assert_true(after.reclaim_scans - before.reclaim_scans <=
		    2 * (2 * pages + UPC_RECLAIM_BATCH));
	upc_put_spans(spans, (unsigned int)n);
	assert_int_equal(upc_read(e.file, buf, sizeof(buf), 8L << 20), 4096);
	free(spans);
	fenv_fini(&e);
}

/* Reclaim's failure to write a page is the next fsync's error, once. */
static void test_reclaim_error_reaches_fsync(void **state)
{
	const int64_t base = 8L << 20;
	unsigned char *buf = malloc(1UL << 20);
	struct fenv e;
	int64_t pos;

	(void)state;
	assert_non_null(buf);
	/* 8 MiB of clean data to read, a 4 MiB cache. */
	fenv_init(&e, 4UL << 20, base);
	file_write_pattern(e.file, base, 256 * 1024, 10);
	fsize_limit((rlim_t)base);
	/* Reading evicts; the dirty pages past the limit fail to go. */
	for (pos = 0; pos < base; pos += 1L << 20)
		assert_int_equal(upc_read(e.file, buf, 1UL << 20, pos),
				 1L << 20);
	fsize_unlimit();
	assert_true(file_has_pattern(e.file, base, 256 * 1024, 10));
	/* This pass writes them; the error reclaim met is still told. */
	assert_int_equal(upc_fsync(e.file), -EFBIG);
	assert_true(fd_has_pattern(e.fd, base, 256 * 1024, 10));
	assert_int_equal(upc_fsync(e.file), 0);
	free(buf);
	fenv_fini(&e);
}

/* A punch whose range cannot be written back is refused, data kept. */
static void test_punch_writeback_error(void **state)
{
	char probe[320];
	struct fenv e;
	int fd, ret;

	(void)state;
	fenv_init(&e, MEM, 4 * 4096);
	/* A file system that cannot punch holes (ramfs): nothing to test. */
	snprintf(probe, sizeof(probe), "%s/probe", e.dir);
	fd = open(probe, O_RDWR | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	ret = fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
			4096) ? -errno : 0;
	close(fd);
	unlink(probe);
	if (ret == -EOPNOTSUPP) {
		fenv_fini(&e);
		skip();
	}
	file_write_pattern(e.file, 2 * 4096, 2 * 4096, 12);
	fsize_limit(2 * 4096);
	assert_int_equal(upc_fallocate(e.file, FALLOC_FL_PUNCH_HOLE |
				       FALLOC_FL_KEEP_SIZE, 2 * 4096, 4096),
			 -EFBIG);
	fsize_unlimit();
	assert_true(file_has_pattern(e.file, 2 * 4096, 2 * 4096, 12));
	/* Now the punch writes the range and goes. */
	assert_int_equal(upc_fallocate(e.file, FALLOC_FL_PUNCH_HOLE |
				       FALLOC_FL_KEEP_SIZE, 2 * 4096, 4096), 0);
	/*
	 * The failure is the mapping's too, and fsync has not told this
	 * handle yet (as on Linux, where fallocate() does not advance the
	 * file's error cursor): once.
	 */
	assert_int_equal(upc_fsync(e.file), -EFBIG);
	assert_int_equal(upc_fsync(e.file), 0);
	assert_true(fd_has_pattern(e.fd, 3 * 4096, 4096, 12));
	assert_true(fd_has_pattern(e.fd, 0, 2 * 4096, 1));
	fenv_fini(&e);
}

/*
 * A seek inside the file asks the file, so it writes back first; when
 * that fails, the seek fails with the writeback's error rather than
 * answering for a file without the data, the pages stay dirty, and
 * fsync still reports the failure once.
 */
static void test_seek_writeback_error(void **state)
{
	struct fenv e;

	(void)state;
	fenv_init(&e, MEM, 2 * 4096);
	file_write_pattern(e.file, 2 * 4096, 2 * 4096, 14);
	fsize_limit(2 * 4096);
	assert_int_equal(upc_seek_data(e.file, 0), -EFBIG);
	assert_int_equal(upc_seek_hole(e.file, 0), -EFBIG);
	fsize_unlimit();
	assert_true(file_has_pattern(e.file, 2 * 4096, 2 * 4096, 14));
	assert_int_equal(upc_seek_hole(e.file, 0), 4 * 4096);
	assert_int_equal(upc_fsync(e.file), -EFBIG);
	assert_int_equal(upc_fsync(e.file), 0);
	assert_true(fd_has_pattern(e.fd, 2 * 4096, 2 * 4096, 14));
	fenv_fini(&e);
}

/* upc_close() reports what it could not write; the file is closed. */
static void test_close_error(void **state)
{
	struct upc_cache_stats st;
	struct fenv e;

	(void)state;
	fenv_init(&e, MEM, 4096);
	file_write_pattern(e.file, 4096, 4096, 11);
	fsize_limit(4096);
	assert_int_equal(upc_close(e.file), -EFBIG);
	fsize_unlimit();
	e.file = NULL;
	assert_int_equal(upc_cache_stats(e.cache, &st), 0);
	assert_int_equal(st.files, 0);
	fenv_fini(&e);
}

/* ---- how writeback goes to the file ------------------------------------- */

/*
 * fsync's requests, counted (io/fd.h): dirty neighbours go as one
 * transfer, across lookup batches, of up to FD_BUFFERED_RUN_FOLIOS for
 * a buffered descriptor; with UPC_FILE_IO_URING the transfers of the
 * folios held at once (up to WRITEBACK_MAX_RUN) go together, 32 to an
 * io_uring submission.
 */
static void fsync_counts(bool uring)
{
	const int64_t run = WRITEBACK_MAX_RUN + 44;
	struct io_counters *c = io_thread_counters();
	struct fenv e;
	int64_t p;

	fenv_init_flags(&e, MEM, (128 + run) * 4096,
			uring ? UPC_FILE_IO_URING : 0);
	/* 31 scattered pages: 31 transfers. */
	for (p = 0; p < 31; p++)
		file_write_pattern(e.file, 2 * p * 4096, 4096, 20);
	*c = (struct io_counters){ 0 };
	assert_int_equal(upc_fsync(e.file), 0);
	assert_int_equal(c->transfers, 31);
	if (uring) {
		assert_int_equal(c->uring_batches, 1);
		assert_true(c->syscalls < 31);
	} else {
		assert_int_equal(c->uring_batches, 0);
		assert_int_equal(c->syscalls, 31);
	}
	for (p = 0; p < 31; p++)
		assert_true(fd_has_pattern(e.fd, 2 * p * 4096, 4096, 20));
	/*
	 * 100 scattered pages, one call of the hook: 100 transfers, sent
	 * 32 at a time (four io_uring submissions).
	 */
	for (p = 0; p < 100; p++)
		file_write_pattern(e.file, 2 * p * 4096, 4096, 24);
	*c = (struct io_counters){ 0 };
	assert_int_equal(upc_fsync(e.file), 0);
	assert_int_equal(c->transfers, 100);
	if (uring)
		assert_int_equal(c->uring_batches, 4);
	else
		assert_int_equal(c->syscalls, 100);
	for (p = 0; p < 100; p++)
		assert_true(fd_has_pattern(e.fd, 2 * p * 4096, 4096, 24));
	/*
	 * 64 pages in a row, three lookup batches: two full transfers (it
	 * was one per batch, 31 + 31 + 2).
	 */
	assert_int_equal(64 % FD_BUFFERED_RUN_FOLIOS, 0);
	file_write_pattern(e.file, 64 * 4096, 64 * 4096, 21);
	*c = (struct io_counters){ 0 };
	assert_int_equal(upc_fsync(e.file), 0);
	assert_int_equal(c->transfers, 64 / FD_BUFFERED_RUN_FOLIOS);
	assert_true(fd_has_pattern(e.fd, 64 * 4096, 64 * 4096, 21));
	assert_true(fd_has_pattern(e.fd, 4096, 4096, 1));
	/* Past WRITEBACK_MAX_RUN pages: a full pass's worth, then the rest. */
	file_write_pattern(e.file, 128 * 4096, run * 4096, 22);
	*c = (struct io_counters){ 0 };
	assert_int_equal(upc_fsync(e.file), 0);
	assert_int_equal(c->transfers,
			 WRITEBACK_MAX_RUN / FD_BUFFERED_RUN_FOLIOS +
			 (44 + FD_BUFFERED_RUN_FOLIOS - 1) /
			 FD_BUFFERED_RUN_FOLIOS);
	assert_int_equal(c->bytes, (uint64_t)run * 4096);
	assert_true(fd_has_pattern(e.fd, 128 * 4096, run * 4096, 22));
	fenv_fini(&e);
}

static void test_fsync_batches_sync(void **state)
{
	(void)state;
	fsync_counts(false);
}

static void test_fsync_batches_uring(void **state)
{
	(void)state;
	skip_without_io_uring();
	fsync_counts(true);
}

/*
 * With O_DIRECT a dirty stretch goes to the device in transfers of
 * WRITEBACK_MAX_RUN pages: 300 pages written in a row, two (they were
 * one per lookup batch of 31: ten).
 */
static void test_fsync_direct_large_transfers(void **state)
{
	const int64_t run = WRITEBACK_MAX_RUN + 44;
	struct io_counters *c = io_thread_counters();
	struct upc_file *file;
	struct fenv e;
	int dfd;

	(void)state;
	fenv_init(&e, MEM, run * 4096);
	dfd = direct_open(&e, &file);
	file_write_pattern(file, 0, run * 4096, 23);
	*c = (struct io_counters){ 0 };
	assert_int_equal(upc_fsync(file), 0);
	assert_int_equal(c->transfers, 2);
	assert_int_equal(c->syscalls, 2);
	assert_int_equal(c->bytes, (uint64_t)run * 4096);
	assert_int_equal(upc_close(file), 0);
	close(dfd);
	assert_true(fd_has_pattern(e.fd, 0, run * 4096, 23));
	fenv_fini(&e);
}

/*
 * Reclaim writes the dirty folios of a batch it isolated together too:
 * with UPC_FILE_IO_URING, scattered dirty pages of a file four times
 * the cache leave in io_uring submissions, fewer system calls than
 * pages written (one write each before).  Every byte reaches the file.
 */
static void test_reclaim_batches_writeback(void **state)
{
	struct io_counters *c = io_thread_counters();
	struct upc_cache_stats st;
	struct fenv e;
	int64_t p;

	(void)state;
	skip_without_io_uring();
	fenv_init_flags(&e, 2UL << 20, 8L << 20, UPC_FILE_IO_URING);
	*c = (struct io_counters){ 0 };
	for (p = 0; p < 1024; p++)
		file_write_pattern(e.file, 2 * p * 4096, 4096, 53);
	assert_int_equal(upc_cache_stats(e.cache, &st), 0);
	assert_true(st.writebacks > 256);
	assert_true(c->uring_batches > 0);
	assert_true(c->syscalls < st.writebacks);
	assert_int_equal(upc_fsync(e.file), 0);
	for (p = 0; p < 1024; p++)
		assert_true(fd_has_pattern(e.fd, 2 * p * 4096, 4096, 53));
	assert_true(fd_has_pattern(e.fd, 4096, 4096, 1));
	fenv_fini(&e);
}

/*
 * Reclaim writes a dirty folio with those that follow it in the file:
 * 8 MiB streamed into an O_DIRECT file through a 2 MiB cache leaves in
 * transfers of well over a lookup batch (31 pages: at most that
 * before), and every byte reaches the file.
 */
static void test_reclaim_writes_stretches(void **state)
{
	const int64_t size = 8L << 20;
	struct io_counters *c = io_thread_counters();
	struct upc_cache_stats st;
	struct upc_file *file;
	struct fenv e;
	int64_t pos;
	int dfd;

	(void)state;
	fenv_init(&e, 2UL << 20, 4096);
	dfd = direct_open(&e, &file);
	*c = (struct io_counters){ 0 };
	for (pos = 0; pos < size; pos += 64 << 10)
		file_write_pattern(file, pos, 64 << 10, 54);
	assert_int_equal(upc_cache_stats(e.cache, &st), 0);
	assert_true(st.writebacks >= 1024);
	assert_true(c->transfers > 0);
	print_message("reclaim wrote %llu bytes in %llu transfers\n",
		      (unsigned long long)c->bytes,
		      (unsigned long long)c->transfers);
	assert_true(c->bytes / c->transfers >= 64 * 4096);
	assert_int_equal(upc_close(file), 0);
	close(dfd);
	assert_true(fd_has_pattern(e.fd, 0, size, 54));
	fenv_fini(&e);
}

/*
 * Reclaim's batch of 32 folios holds two stretches of 16 dirty pages
 * written 64 KiB at a time, 64 KiB apart: each leaves whole, in one
 * transfer of its own (a queue written when it reached 31 cut the
 * second into 15 pages and 1).  The thread stays on one CPU: pages
 * join the LRU through per-CPU batches, so a writer that moves can
 * have a stretch's first pages on the list after its last, and reclaim
 * then writes the stretch in two (1 run in 24 beside a CPU hog).
 */
static void test_reclaim_keeps_stretches_whole(void **state)
{
	const int64_t stretch = 64 << 10;
	struct io_counters *c = io_thread_counters();
	struct upc_file *file;
	cpu_set_t was;
	struct fenv e;
	int64_t k;
	int dfd;

	(void)state;
	assert_true(test_pin_this_cpu(&was));
	fenv_init(&e, 2UL << 20, 4096);
	dfd = direct_open(&e, &file);
	*c = (struct io_counters){ 0 };
	for (k = 0; k < 96; k++)
		file_write_pattern(file, 2 * k * stretch, stretch, 55);
	print_message("reclaim wrote %llu bytes in %llu transfers\n",
		      (unsigned long long)c->bytes,
		      (unsigned long long)c->transfers);
	assert_true(c->transfers >= 16);
	assert_int_equal(c->bytes, c->transfers * (uint64_t)stretch);
	assert_int_equal(upc_close(file), 0);
	close(dfd);
	for (k = 0; k < 96; k++)
		assert_true(fd_has_pattern(e.fd, 2 * k * stretch, stretch, 55));
	fenv_fini(&e);
	assert_true(test_unpin(&was));
}

/*
 * A run of dirty pages that crosses RLIMIT_FSIZE: the pages below it
 * are written and clean, those above stay dirty, through both paths.
 */
static void fsync_partial_run(bool uring)
{
	struct io_counters *c = io_thread_counters();
	struct fenv e;

	fenv_init_flags(&e, MEM, 4096, uring ? UPC_FILE_IO_URING : 0);
	/* Pages 1..12 in a row, and 20 alone; the limit inside page 8. */
	file_write_pattern(e.file, 4096, 12 * 4096, 22);
	file_write_pattern(e.file, 20 * 4096, 4096, 23);
	fsize_limit(8 * 4096 + 100);
	assert_int_equal(upc_fsync(e.file), -EFBIG);
	fsize_unlimit();
	assert_true(fd_has_pattern(e.fd, 4096, 7 * 4096, 22));
	assert_int_equal(fd_size(e.fd), 8 * 4096 + 100);
	assert_true(file_has_pattern(e.file, 4096, 12 * 4096, 22));
	/* Pages 8..12 and 20 are still dirty: the next fsync writes them. */
	*c = (struct io_counters){ 0 };
	assert_int_equal(upc_fsync(e.file), 0);
	assert_int_equal(c->transfers, 2);
	assert_int_equal(c->bytes, 6 * 4096);
	assert_true(fd_has_pattern(e.fd, 4096, 12 * 4096, 22));
	assert_true(fd_has_pattern(e.fd, 20 * 4096, 4096, 23));
	assert_int_equal(fd_size(e.fd), 21 * 4096);
	fenv_fini(&e);
}

static void test_fsync_partial_run_sync(void **state)
{
	(void)state;
	fsync_partial_run(false);
}

static void test_fsync_partial_run_uring(void **state)
{
	(void)state;
	skip_without_io_uring();
	fsync_partial_run(true);
}

/* ---- allocation failures ------------------------------------------------ */

#define FAULT_FILE	(64 * 1024)
#define FAULT_POS	10000
#define FAULT_LEN	(40 * 1024)

/* Do @len bytes read at 0 hold the scenario's file, @written bytes in? */
static bool fault_matches(const unsigned char *buf, size_t len,
			  ssize_t written)
{
	size_t i;

	for (i = 0; i < len; i++) {
		int64_t pos = (int64_t)i;
		bool in = pos >= FAULT_POS && pos < FAULT_POS + written;

		if (buf[i] != api_byte(pos, in ? 2 : 1))
			return false;
	}
	return true;
}

/*
 * One run with allocation @n and every later one failing (a single
 * failure is mostly absorbed by retries): the write and the read may
 * each come up short or fail with -ENOMEM, but what the write says it wrote
 * is what the cache and, after fsync, the file hold, and nothing else
 * changed.
 */
static unsigned long fault_run(unsigned long n, void *arg, bool *injected)
{
	unsigned char *buf = malloc(FAULT_FILE);
	unsigned long attempts;
	ssize_t written, got;
	struct fenv e;
	size_t i;

	(void)arg;
	assert_non_null(buf);
	fenv_init(&e, MEM, FAULT_FILE);
	for (i = 0; i < FAULT_LEN; i++)
		buf[i] = api_byte(FAULT_POS + (int64_t)i, 2);
	upc_fault_fail_from(n);
	written = upc_write(e.file, buf, FAULT_LEN, FAULT_POS);
	got = upc_read(e.file, buf, FAULT_FILE, 0);
	attempts = upc_fault_attempts();
	*injected = upc_fault_injected();
	upc_fault_fail_nth(0);
	assert_true(written == -ENOMEM || (written > 0 && written <= FAULT_LEN));
	if (written < 0)
		written = 0;
	assert_true(got == -ENOMEM || (got > 0 && got <= FAULT_FILE));
	if (got > 0)
		assert_true(fault_matches(buf, (size_t)got, written));
	assert_file_ok(e.file);
	assert_int_equal(upc_read(e.file, buf, FAULT_FILE, 0), FAULT_FILE);
	assert_true(fault_matches(buf, FAULT_FILE, written));
	assert_int_equal(upc_fsync(e.file), 0);
	assert_int_equal(pread(e.fd, buf, FAULT_FILE, 0), FAULT_FILE);
	assert_true(fault_matches(buf, FAULT_FILE, written));
	free(buf);
	fenv_fini(&e);
	return attempts;
}

/*
 * 17 allocation points when this was written (the write's and the read's
 * folios and index nodes): fewer would mean a path no longer reached.
 */
static void test_fault_each_allocation(void **state)
{
	(void)state;
	assert_true(api_fail_each(fault_run, NULL, 1000) >= 10);
}

/*
 * The reclaim figures of upc_cache_stats() are the arena's own, each in
 * its field.  The workload makes each one non-zero and tells apart the
 * pairs a mix-up could confuse: pages read twice are active; a loop a
 * little larger than the rest of the cache refaults and activates (no
 * active page is evicted, so none is restored); dirty pages are written
 * by reclaim; pinned pages are scanned but not evicted.  Once the
 * readahead workers are done nothing moves: the arena's figures read
 * before and after upc_cache_stats() agree.
 */
static void test_stats_reclaim_figures(void **state)
{
	struct upc_reclaim_stats rs, rs2;
	struct upc_span spans[16];
	struct upc_cache_stats st;
	char buf[4096];
	int64_t pos;
	struct fenv e;
	int pass;

	(void)state;
	fenv_init(&e, 4UL << 20, 16L << 20);
	memset(buf, 0x5a, sizeof(buf));
	for (pass = 0; pass < 2; pass++)
		for (pos = 0; pos < (2L << 20); pos += sizeof(buf))
			assert_int_equal(upc_read(e.file, buf, sizeof(buf),
						  pos), sizeof(buf));
	for (pos = 8L << 20; pos < (10L << 20); pos += sizeof(buf))
		assert_int_equal(upc_write(e.file, buf, sizeof(buf), pos),
				 sizeof(buf));
	for (pass = 0; pass < 3; pass++)
		for (pos = 2L << 20; pos < (5L << 20); pos += sizeof(buf))
			assert_int_equal(upc_read(e.file, buf, sizeof(buf),
						  pos), sizeof(buf));
	/* Pinned pages stay, scanned but not evicted, while a stream... */
	assert_int_equal(upc_get_spans(e.file, 6L << 20, 16 * 4096, spans,
				       16), 16);
	for (pos = 10L << 20; pos < (16L << 20); pos += sizeof(buf))
		assert_int_equal(upc_read(e.file, buf, sizeof(buf), pos),
				 sizeof(buf));
	upc_put_spans(spans, 16);
	readahead_flush();
	/* The first drains the per-thread LRU batches. */
	assert_int_equal(upc_cache_stats(e.cache, &st), 0);
	assert_int_equal(upc_reclaim_stats_read(
				upc_file_mapping(e.file)->arena, &rs), 0);
	assert_int_equal(upc_cache_stats(e.cache, &st), 0);
	assert_int_equal(upc_reclaim_stats_read(
				upc_file_mapping(e.file)->arena, &rs2), 0);
	assert_memory_equal(&rs, &rs2, sizeof(rs));
	assert_true(rs.pgsteal > 0 && rs.pgscan != rs.pgsteal);
	assert_true(rs.workingset_activate > 0 &&
		    rs.workingset_activate != rs.workingset_restore);
	assert_true(rs.nr_shadow_nodes > 0 && rs.pgactivate > 0);
	assert_true(rs.nr_vmscan_write > 0);
	assert_int_equal(st.pages_active, rs.nr_active_file);
	assert_int_equal(st.pages_inactive, rs.nr_inactive_file);
	assert_int_equal(st.evictions, rs.pgsteal);
	assert_int_equal(st.reclaim_scans, rs.pgscan);
	assert_int_equal(st.refaults, rs.workingset_refault);
	assert_int_equal(st.refault_activations, rs.workingset_activate);
	assert_int_equal(st.activations, rs.pgactivate);
	assert_int_equal(st.shadow_nodes, rs.nr_shadow_nodes);
	assert_int_equal(st.writebacks, rs.nr_vmscan_write);
	fenv_fini(&e);
}

/* ---- in-memory files ---------------------------------------------------- */

static void test_shmem_fsync(void **state)
{
	struct api_env env;
	struct upc_file *file = api_init(&env, MEM, UPC_HUGE_NEVER, 0);

	(void)state;
	assert_int_equal(upc_write(file, "abc", 3, 0), 3);
	assert_int_equal(upc_fsync(file), 0);
	assert_int_equal(upc_fdatasync(file), 0);
	api_fini(&env);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_open_enomem),
		cmocka_unit_test(test_stats_reclaim_figures),
		cmocka_unit_test(test_read_existing),
		cmocka_unit_test(test_write_then_fsync),
		cmocka_unit_test(test_write_many_folios_keeps_edges),
		cmocka_unit_test(test_write_past_end),
		cmocka_unit_test(test_close_writes_back),
		cmocka_unit_test(test_larger_than_cache),
		cmocka_unit_test(test_truncate),
		cmocka_unit_test(test_punch_hole),
		cmocka_unit_test(test_read_only),
		cmocka_unit_test(test_large_folios_read_only),
		cmocka_unit_test(test_stream_keeps_working_set),
		cmocka_unit_test(test_direct_io),
		cmocka_unit_test(test_direct_io_uring),
		cmocka_unit_test(test_direct_keeps_record_locks),
		cmocka_unit_test(test_direct_reads_ahead_in_background),
		cmocka_unit_test(test_request_read_is_one_transfer),
		cmocka_unit_test(test_direct_close_during_readahead),
		cmocka_unit_test(test_direct_tail_reaches_device),
		cmocka_unit_test(test_truncate_refused),
		cmocka_unit_test(test_seek),
		cmocka_unit_test(test_seek_at_end_writes_nothing),
		cmocka_unit_test(test_spans),
		cmocka_unit_test(test_fsync_error_keeps_data),
		cmocka_unit_test(test_truncate_efbig),
		cmocka_unit_test(test_full_of_unwritable_pages),
		cmocka_unit_test(test_full_of_unwritable_pages_fails_fast),
		cmocka_unit_test(test_write_frees_the_pages_it_holds),
		cmocka_unit_test(test_pinned_cache_fails_fast),
		cmocka_unit_test(test_reclaim_error_reaches_fsync),
		cmocka_unit_test(test_punch_writeback_error),
		cmocka_unit_test(test_seek_writeback_error),
		cmocka_unit_test(test_close_error),
		cmocka_unit_test(test_direct_fsize_limit),
		cmocka_unit_test(test_fsync_batches_sync),
		cmocka_unit_test(test_fsync_batches_uring),
		cmocka_unit_test(test_fsync_direct_large_transfers),
		cmocka_unit_test(test_reclaim_batches_writeback),
		cmocka_unit_test(test_reclaim_writes_stretches),
		cmocka_unit_test(test_reclaim_keeps_stretches_whole),
		cmocka_unit_test(test_fsync_partial_run_sync),
		cmocka_unit_test(test_fsync_partial_run_uring),
		cmocka_unit_test(test_fault_each_allocation),
		cmocka_unit_test(test_shmem_fsync),
	};

	/* pwrite() past RLIMIT_FSIZE: EFBIG, not death by SIGXFSZ. */
	signal(SIGXFSZ, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
