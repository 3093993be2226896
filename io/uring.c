// SPDX-License-Identifier: MIT
/*
 * io/uring.c - batches of transfers on one file through io_uring
 * (io/uring.h), so that writing back thirty scattered dirty pages costs
 * one system call instead of thirty.
 *
 * Whether that is faster depends on the file system: the batch is
 * waited for, so it gains only where the kernel does the writes in
 * line.  Where it hands them to its io-wq worker threads (buffered
 * writes to ext4 and tmpfs on Linux 6.18 do), the hand-off costs more
 * than the system calls saved.  Callers choose (UPC_FILE_IO_URING).
 *
 * Each thread that sends a batch of two or more gets its own ring, made
 * on first use and closed by a thread-specific destructor when the
 * thread exits: rings are not safe to share without a lock, and a lock
 * held across a submission would make every thread writing back wait
 * for the slowest.  A ring has RING_ENTRIES slots; a larger batch goes
 * in several submissions.
 *
 * One submission, io_uring_submit_and_wait(), hands the kernel every
 * transfer of the step and waits for all of them.  A completion the
 * kernel cut short (a signal, a file system's limit) is finished with
 * fd_rw_continue(), exactly as a short preadv() would be, so callers see
 * the same results either way.  When the kernel takes fewer transfers
 * than were queued and will not take the rest (it failed to), the ring
 * is given up for this thread: the transfers still queued in it are
 * never submitted, since nothing enters that ring again, and are done
 * with fd_rw_continue() instead; the taken ones are waited for first,
 * because the kernel is writing into their buffers.
 *
 * Where a ring cannot be had at all (a kernel without io_uring, a
 * seccomp filter that refuses it: -ENOSYS, -EPERM), no thread tries
 * again; everything goes through fd_rw_continue().  Built without
 * liburing, that is the only path.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "uring.h"

#ifdef UPC_HAVE_LIBURING
#include <liburing.h>
#endif

#ifdef UPC_HAVE_LIBURING

/* Slots per thread's ring: a folio batch of writeback fits in one step. */
#define RING_ENTRIES	32u

/* A thread's ring: whether it is up, and whether it failed. */
struct thread_ring {
	struct io_uring ring;
	bool broken;
};

/* Set once a ring could not be made for a reason no thread can change. */
static int uring_unsupported;
static pthread_key_t ring_key;
static pthread_once_t ring_key_once = PTHREAD_ONCE_INIT;
static __thread struct thread_ring *this_ring;
static __thread bool this_ring_failed;

/* The thread exits: it takes no new ring, should a later destructor
 * of its own still send a batch. */
static void ring_destroy(void *arg)
{
	struct thread_ring *tr = arg;

	this_ring = NULL;
	this_ring_failed = true;
	io_uring_queue_exit(&tr->ring);
	free(tr);
}

static void ring_key_create(void)
{
	if (pthread_key_create(&ring_key, ring_destroy))
		__atomic_store_n(&uring_unsupported, 1, __ATOMIC_RELAXED);
}

/* This thread's ring, made if it has none; NULL where none can be had. */
static struct thread_ring *thread_ring_get(void)
{
	struct thread_ring *tr = this_ring;
	int err;

	if (tr)
		return tr->broken ? NULL : tr;
	if (this_ring_failed ||
	    __atomic_load_n(&uring_unsupported, __ATOMIC_RELAXED))
		return NULL;
	pthread_once(&ring_key_once, ring_key_create);
	tr = calloc(1, sizeof(*tr));
	err = tr ? io_uring_queue_init(RING_ENTRIES, &tr->ring, 0) : -ENOMEM;
	if (!err && pthread_setspecific(ring_key, tr)) {
		io_uring_queue_exit(&tr->ring);
		err = -ENOMEM;
	}
	if (err) {
		free(tr);
		/* This thread tries no more; no thread does where it is absent. */
		this_ring_failed = true;
		if (err == -ENOSYS || err == -EPERM)
			__atomic_store_n(&uring_unsupported, 1,
					 __ATOMIC_RELAXED);
		return NULL;
	}
	this_ring = tr;
	return tr;
}

/* Record one completion: finish it if the kernel cut it short. */
static void ring_complete(int fd, bool write, struct io_rw *rw, int res)
{
	if (res < 0 && res != -EINTR && res != -EAGAIN) {
		rw->res = res;
		return;
	}
	if (res > 0) {
		rw->done = (size_t)res;
		io_thread_counters()->bytes += (uint64_t)res;
	}
	/* A read of nothing is the end of the file: it ends there. */
	if (!write && res == 0) {
		rw->res = 0;
		return;
	}
	rw->res = fd_rw_continue(fd, write, rw->iov, rw->iovcnt, rw->off,
				 &rw->done);
}

/* Errors of a wait that only mean "again". */
static bool wait_again(int err)
{
	return err == -EINTR || err == -EAGAIN || err == -EBUSY;
}

/*
 * Queue @nr transfers (at most RING_ENTRIES) in @ring, submit them and
 * wait for those the kernel took, setting their results.  Those it did
 * not take, and any whose completion could not be waited for, keep
 * -EINPROGRESS: io_batch_rw() does them without the ring.
 */
static void ring_step(struct thread_ring *tr, int fd, bool write,
		      struct io_rw *rws, unsigned int nr)
{
	struct io_counters *cnt = io_thread_counters();
	struct io_uring *ring = &tr->ring;
	struct io_uring_cqe *cqe;
	unsigned int i, taken = 0, reaped = 0;
	int ret;

	for (i = 0; i < nr; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

		if (write)
			io_uring_prep_writev(sqe, fd, rws[i].iov,
					     (unsigned int)rws[i].iovcnt,
					     (uint64_t)rws[i].off);
		else
			io_uring_prep_readv(sqe, fd, rws[i].iov,
					    (unsigned int)rws[i].iovcnt,
					    (uint64_t)rws[i].off);
		io_uring_sqe_set_data64(sqe, i);
	}
	cnt->syscalls++;
	cnt->uring_batches++;
	ret = io_uring_submit_and_wait(ring, nr);
	while (ret > 0 || ret == -EINTR) {
		if (ret > 0)
			taken += (unsigned int)ret;
		if (taken == nr)
			break;
		cnt->syscalls++;
		ret = io_uring_submit(ring);
	}
	if (taken < nr)
		tr->broken = true;	/* see the top of the file */
	while (reaped < taken) {
		if (io_uring_peek_cqe(ring, &cqe)) {
			cnt->syscalls++;
			ret = io_uring_wait_cqe(ring, &cqe);
			if (wait_again(ret))
				continue;
			if (ret) {
				/*
				 * The ring itself is gone (its descriptor
				 * closed under us): so are its transfers.
				 */
				tr->broken = true;
				return;
			}
		}
		i = (unsigned int)io_uring_cqe_get_data64(cqe);
		ring_complete(fd, write, &rws[i], cqe->res);
		io_uring_cqe_seen(ring, cqe);
		reaped++;
	}
}

static void batch_uring(struct thread_ring *tr, int fd, bool write,
			struct io_rw *rws, unsigned int nr)
{
	while (nr && !tr->broken) {
		unsigned int step = nr < RING_ENTRIES ? nr : RING_ENTRIES;

		ring_step(tr, fd, write, rws, step);
		rws += step;
		nr -= step;
	}
}

bool io_uring_usable(void)
{
	return thread_ring_get() != NULL;
}

#else /* !UPC_HAVE_LIBURING */

bool io_uring_usable(void)
{
	return false;
}

#endif /* UPC_HAVE_LIBURING */

void io_batch_rw(int fd, bool write, struct io_rw *rws, unsigned int nr,
		 bool uring)
{
	unsigned int i;

	io_thread_counters()->transfers += nr;
	for (i = 0; i < nr; i++) {
		rws[i].res = -EINPROGRESS;
		rws[i].done = 0;
	}
#ifdef UPC_HAVE_LIBURING
	if (uring && nr >= 2) {
		struct thread_ring *tr = thread_ring_get();

		if (tr)
			batch_uring(tr, fd, write, rws, nr);
	}
#endif
	for (i = 0; i < nr; i++)
		if (rws[i].res == -EINPROGRESS)
			rws[i].res = fd_rw_continue(fd, write, rws[i].iov,
						    rws[i].iovcnt, rws[i].off,
						    &rws[i].done);
}
