// SPDX-License-Identifier: MIT
/*
 * api/file.c - the files of the upc_ API: creation (in memory, or in
 * front of a file descriptor), reads and writes, fallocate, truncation,
 * size, seeks, fsync and close (include/upcache/upcache.h).
 *
 * Each call checks its arguments the way the kernel's system calls and
 * VFS do, in the same order where the contract allows, so that a bad
 * call gets the errno it would get on tmpfs (or the backing file's file
 * system); then mm/shmem.c or mm/fdfile.c, as the file's kind says,
 * does the work.  Reads and writes go through an iov_iter, so upc_read()
 * is upc_readv() with one segment.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/falloc.h>
#include <stdlib.h>
#include <unistd.h>

#include "fault.h"
#include "internal.h"

/* ---- creation and close -------------------------------------------------- */

static enum shmem_huge upc_shmem_huge(enum upc_huge huge)
{
	switch (huge) {
	case UPC_HUGE_ALWAYS:
		return SHMEM_HUGE_ALWAYS;
	case UPC_HUGE_WITHIN_SIZE:
		return SHMEM_HUGE_WITHIN_SIZE;
	case UPC_HUGE_ADVISE:
		return SHMEM_HUGE_ADVISE;
	default:
		return SHMEM_HUGE_NEVER;
	}
}

int upc_shmem_create(struct upc_cache *cache,
		     const struct upc_shmem_options *options,
		     struct upc_file **out)
{
	enum upc_huge huge = options ? options->huge : UPC_HUGE_DEFAULT;
	unsigned int flags = options ? options->flags : 0;
	struct upc_file *file;
	int err;

	if (!upc_cache_ok(cache))
		return -EBADF;
	if (!out || (unsigned int)huge > UPC_HUGE_ADVISE ||
	    flags & ~UPC_SHMEM_HUGE_ADVISED)
		return -EINVAL;
	if (huge == UPC_HUGE_DEFAULT)
		huge = cache->huge;
	file = upc_fault_should_fail() ? NULL : calloc(1, sizeof(*file));
	if (!file)
		return -ENOMEM;
	err = shmem_file_init(&file->shmem, cache->arena, upc_shmem_huge(huge),
			      flags & UPC_SHMEM_HUGE_ADVISED);
	if (err) {
		free(file);
		return err;
	}
	file->kind = UPC_FILE_SHMEM;
	file->cache = cache;
	file->magic = UPC_FILE_MAGIC;
	upc_cache_add_file(cache, file);
	*out = file;
	return 0;
}

int upc_file_open(struct upc_cache *cache, int fd, unsigned int flags,
		  struct upc_file **out)
{
	struct upc_file *file;
	int err;

	if (!upc_cache_ok(cache))
		return -EBADF;
	if (!out ||
	    (flags & ~(UPC_FILE_IO_URING | UPC_FILE_WRITEBACK_BACKGROUND)))
		return -EINVAL;
	file = upc_fault_should_fail() ? NULL : calloc(1, sizeof(*file));
	if (!file)
		return -ENOMEM;
	err = fd_file_init(&file->fdf, cache->arena, fd,
			   (flags & UPC_FILE_IO_URING ? FD_FILE_IO_URING : 0) |
			   (flags & UPC_FILE_WRITEBACK_BACKGROUND ?
			    FD_FILE_WRITEBACK_BACKGROUND : 0));
	if (err) {
		free(file);
		return err;
	}
	file->kind = UPC_FILE_FD;
	pthread_mutex_init(&file->wb_lock, NULL);
	file->wb_since = errseq_sample(&file->fdf.mapping.wb_err);
	file->cache = cache;
	file->magic = UPC_FILE_MAGIC;
	upc_cache_add_file(cache, file);
	*out = file;
	return 0;
}

/* The data of an fd file, written back before its cache goes. */
static int upc_file_release(struct upc_file *file)
{
	int err;

	if (file->kind == UPC_FILE_SHMEM) {
		shmem_file_destroy(&file->shmem);
		return 0;
	}
	err = file_write_and_wait_range(&file->fdf.mapping, &file->wb_since,
					0, INT64_MAX);
	fd_file_destroy(&file->fdf);
	pthread_mutex_destroy(&file->wb_lock);
	return err;
}

int upc_close(struct upc_file *file)
{
	struct upc_cache *cache;
	int err;

	if (!upc_file_ok(file))
		return -EBADF;
	cache = file->cache;
	upc_cache_del_file(cache, file);
	err = upc_file_release(file);
	upc_handle_retire(file, &file->magic);
	upc_cache_file_closed(cache);
	return err;
}

static int upc_sync(struct upc_file *file, bool datasync)
{
	int err, ret;

	if (!upc_file_ok(file))
		return -EBADF;
	/* As tmpfs: the memory is the file, nothing to write. */
	if (file->kind == UPC_FILE_SHMEM)
		return 0;
	/*
	 * Two threads' fsyncs must not both report one error (f_lock): the
	 * data part is serialised; the flush is not, so that the kernel
	 * can commit the flushes of threads syncing at once together.
	 */
	pthread_mutex_lock(&file->wb_lock);
	err = fd_file_write_back(&file->fdf, &file->wb_since);
	pthread_mutex_unlock(&file->wb_lock);
	ret = fd_file_flush(&file->fdf, datasync);
	return err ? err : ret;
}

int upc_fsync(struct upc_file *file)
{
	return upc_sync(file, false);
}

int upc_fdatasync(struct upc_file *file)
{
	return upc_sync(file, true);
}

/* ---- reads and writes ---------------------------------------------------- */

/*
 * Check the segments of an iovec array as preadv()/pwritev() do.
 * Return: 0 with the total length in *@total; -EINVAL for a total above
 * SSIZE_MAX; -EFAULT for a NULL buffer that is not empty.
 */
static int upc_iov_check(const struct iovec *iov, int iovcnt, size_t *total)
{
	size_t sum = 0;
	int i;

	for (i = 0; i < iovcnt; i++) {
		if (!iov[i].iov_base && iov[i].iov_len)
			return -EFAULT;
		if (iov[i].iov_len > (size_t)SSIZE_MAX - sum)
			return -EINVAL;
		sum += iov[i].iov_len;
	}
	*total = sum;
	return 0;
}

/*
 * As rw_verify_area(): a transfer may not reach past INT64_MAX, even
 * where the file ends (reads) or the size limit cuts it (writes) first.
 */
static bool upc_rw_overflows(int64_t offset, size_t count)
{
	return count > (uint64_t)(INT64_MAX - offset);
}

static ssize_t upc_read_iov(struct upc_file *file, const struct iovec *iov,
			    int iovcnt, size_t count, int64_t offset)
{
	struct iov_iter iter;

	if (upc_rw_overflows(offset, count))
		return -EINVAL;
	iov_iter_init(&iter, iov, (unsigned long)iovcnt, count);
	if (file->kind == UPC_FILE_FD)
		return fd_file_read_iter(&file->fdf, &iter, offset);
	return shmem_read_iter(&file->shmem, &iter, offset);
}

/* As generic_write_checks(): nothing to write, the size limit. */
static ssize_t upc_write_iov(struct upc_file *file, const struct iovec *iov,
			     int iovcnt, size_t count, int64_t offset)
{
	struct iov_iter iter;

	if (upc_rw_overflows(offset, count))
		return -EINVAL;
	if (!count)
		return 0;
	if (offset >= UPC_MAX_FILE_SIZE)
		return -EFBIG;
	iov_iter_init(&iter, iov, (unsigned long)iovcnt, count);
	iov_iter_truncate(&iter, (size_t)(UPC_MAX_FILE_SIZE - offset));
	if (file->kind == UPC_FILE_FD)
		return fd_file_write_iter(&file->fdf, &iter, offset);
	return shmem_write_iter(&file->shmem, &iter, offset);
}

ssize_t upc_read(struct upc_file *file, void *buf, size_t count,
		 int64_t offset)
{
	struct iovec iov = { .iov_base = buf, .iov_len = count };

	if (!upc_file_ok(file))
		return -EBADF;
	if (offset < 0)
		return -EINVAL;
	if (!buf && count)
		return -EFAULT;
	return upc_read_iov(file, &iov, 1, count, offset);
}

ssize_t upc_write(struct upc_file *file, const void *buf, size_t count,
		  int64_t offset)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = count };

	if (!upc_file_ok(file))
		return -EBADF;
	if (offset < 0)
		return -EINVAL;
	if (upc_file_read_only(file))
		return -EBADF;
	if (!buf && count)
		return -EFAULT;
	return upc_write_iov(file, &iov, 1, count, offset);
}

/* iovecs upc_vec_import() copies on the stack; more are allocated. */
#define UPC_FAST_IOV	8

/*
 * The checks upc_readv() and upc_writev() share, in the order their
 * errors are documented, on a copy of the caller's array (as the
 * kernel's import_iovec() makes): the lengths summed are then the
 * lengths walked, even if another thread changes the array meanwhile.
 * The copy is @fast when it fits, else allocated (-ENOMEM without).
 * Return: 0 with the copy in *@vec (free it unless it is @fast) and the
 * total length in *@count.
 */
static int upc_vec_import(struct upc_file *file, const struct iovec *iov,
			  int iovcnt, int64_t offset, bool write,
			  struct iovec *fast, struct iovec **vec, size_t *count)
{
	int err;

	if (!upc_file_ok(file))
		return -EBADF;
	if (offset < 0)
		return -EINVAL;
	if (write && upc_file_read_only(file))
		return -EBADF;
	if (iovcnt < 0 || iovcnt > IOV_MAX)
		return -EINVAL;
	if (!iov && iovcnt)
		return -EFAULT;
	*vec = fast;
	if (iovcnt > UPC_FAST_IOV) {
		*vec = upc_fault_should_fail() ? NULL :
		       malloc((size_t)iovcnt * sizeof(*iov));
		if (!*vec)
			return -ENOMEM;
	}
	if (iovcnt)
		memcpy(*vec, iov, (size_t)iovcnt * sizeof(*iov));
	err = upc_iov_check(*vec, iovcnt, count);
	if (err && *vec != fast)
		free(*vec);
	return err;
}

/* upc_readv() and upc_writev(): the copy, then the transfer. */
static ssize_t upc_vec_rw(struct upc_file *file, const struct iovec *iov,
			  int iovcnt, int64_t offset, bool write)
{
	struct iovec fast[UPC_FAST_IOV], *vec;
	size_t count;
	ssize_t ret;

	ret = upc_vec_import(file, iov, iovcnt, offset, write, fast, &vec,
			     &count);
	if (ret)
		return ret;
	ret = write ? upc_write_iov(file, vec, iovcnt, count, offset) :
		      upc_read_iov(file, vec, iovcnt, count, offset);
	if (vec != fast)
		free(vec);
	return ret;
}

ssize_t upc_readv(struct upc_file *file, const struct iovec *iov, int iovcnt,
		  int64_t offset)
{
	return upc_vec_rw(file, iov, iovcnt, offset, false);
}

ssize_t upc_writev(struct upc_file *file, const struct iovec *iov, int iovcnt,
		   int64_t offset)
{
	return upc_vec_rw(file, iov, iovcnt, offset, true);
}

/* ---- space, size and seeks ----------------------------------------------- */

#ifndef FALLOC_FL_WRITE_ZEROES
#define FALLOC_FL_WRITE_ZEROES	0x80	/* Linux 6.17 */
#endif

/*
 * falloc_mode_vfs_ok() - Does vfs_fallocate() pass @mode on to the file
 * system?  One operation, with FALLOC_FL_KEEP_SIZE where it means
 * something (Linux 6.17 on; probed on tmpfs).  tmpfs then refuses all
 * but allocating and punching, but only after the VFS's size check.
 */
static bool falloc_mode_vfs_ok(int mode)
{
	switch (mode & ~FALLOC_FL_KEEP_SIZE) {
	case 0:
	case FALLOC_FL_ZERO_RANGE:
	case FALLOC_FL_UNSHARE_RANGE:
		return true;
	case FALLOC_FL_PUNCH_HOLE:
		return mode & FALLOC_FL_KEEP_SIZE;
	case FALLOC_FL_COLLAPSE_RANGE:
	case FALLOC_FL_INSERT_RANGE:
	case FALLOC_FL_WRITE_ZEROES:
		return !(mode & FALLOC_FL_KEEP_SIZE);
	default:
		return false;
	}
}

/*
 * As vfs_fallocate() then shmem_fallocate(): the range, the mode as the
 * VFS sees it, the size limit, then the modes tmpfs supports.
 */
int upc_fallocate(struct upc_file *file, int mode, int64_t offset,
		  int64_t len)
{
	if (!upc_file_ok(file))
		return -EBADF;
	if (offset < 0 || len <= 0)
		return -EINVAL;
	if (!falloc_mode_vfs_ok(mode))
		return -EOPNOTSUPP;
	if (upc_file_read_only(file))
		return -EBADF;
	if (len > UPC_MAX_FILE_SIZE - offset)
		return -EFBIG;
	if (mode != 0 && mode != FALLOC_FL_KEEP_SIZE &&
	    mode != (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE))
		return -EOPNOTSUPP;
	if (file->kind == UPC_FILE_FD)
		return fd_file_fallocate(&file->fdf, mode, offset, len);
	if (mode & FALLOC_FL_PUNCH_HOLE)
		return shmem_punch_hole(&file->shmem, offset, len);
	return shmem_fallocate(&file->shmem, offset, len,
			       mode & FALLOC_FL_KEEP_SIZE);
}

int upc_truncate(struct upc_file *file, int64_t size)
{
	if (!upc_file_ok(file))
		return -EBADF;
	if (size < 0)
		return -EINVAL;
	/* Nothing above UPC_MAX_FILE_SIZE fits in an int64_t: no -EFBIG. */
	if (file->kind == UPC_FILE_FD)
		return fd_file_truncate(&file->fdf, size);
	return shmem_truncate(&file->shmem, size);
}

int64_t upc_size(struct upc_file *file)
{
	if (!upc_file_ok(file))
		return -EBADF;
	if (file->kind == UPC_FILE_FD)
		return fd_file_size(&file->fdf);
	return shmem_size(&file->shmem);
}

int64_t upc_seek_data(struct upc_file *file, int64_t offset)
{
	if (!upc_file_ok(file))
		return -EBADF;
	/* As tmpfs (shmem_file_llseek()): nothing lies before 0 either. */
	if (offset < 0)
		return -ENXIO;
	if (file->kind == UPC_FILE_FD)
		return fd_file_seek(&file->fdf, offset, SEEK_DATA);
	return shmem_seek_data(&file->shmem, offset);
}

int64_t upc_seek_hole(struct upc_file *file, int64_t offset)
{
	if (!upc_file_ok(file))
		return -EBADF;
	if (offset < 0)
		return -ENXIO;
	if (file->kind == UPC_FILE_FD)
		return fd_file_seek(&file->fdf, offset, SEEK_HOLE);
	return shmem_seek_hole(&file->shmem, offset);
}
