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
 * is given up: the transfers still queued in it are never submitted,
 * since it is closed before anything enters it again, and are done with
 * fd_rw_continue() instead; the taken ones are waited for first,
 * because the kernel is using their buffers (if even waiting fails, its
 * descriptor closed under it, their completions are still polled from
 * the ring's memory).  The thread's next batch makes a new ring.
 *
 * Where a ring cannot be had at all (a kernel without io_uring, a
 * seccomp filter that refuses it: -ENOSYS, -EPERM), no thread tries
 * again; everything goes through fd_rw_continue().  Built without
 * liburing, that is the only path.  A child of fork() drops the ring it
 * inherited (ring_atfork_child()).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "fault.h"
#include "uring.h"

#ifdef UPC_HAVE_LIBURING
#include <liburing.h>
#endif

#ifdef UPC_HAVE_LIBURING

/*
 * Slots per thread's ring: the transfers fd_file_writeback_folios()
 * sends at once (FD_WB_TRANSFERS) fit in one step.
 */
#define RING_ENTRIES	32u

/*
 * A thread's ring, and whether it failed (closed once it is idle); and
 * the merged buffers of each slot's transfer (fd_iov_merge()), which
 * must live until the transfer completes.
 */
struct thread_ring {
	struct io_uring ring;
	bool broken;
	struct iovec merged[RING_ENTRIES][FD_IOV_CHUNK];
};

/* Set where no thread can have a ring: no io_uring, or no key for one. */
static int uring_unsupported;
static pthread_key_t ring_key;
static bool ring_key_made;
static pthread_once_t ring_key_once = PTHREAD_ONCE_INIT;
static __thread struct thread_ring *this_ring;
static __thread bool this_thread_exiting;

static void ring_free(struct thread_ring *tr)
{
	io_uring_queue_exit(&tr->ring);
	free(tr);
}

/* Drop this thread's ring (idle: nothing of it is in flight). */
static void ring_drop(void)
{
	struct thread_ring *tr = this_ring;

	if (!tr)
		return;
	this_ring = NULL;
	pthread_setspecific(ring_key, NULL);
	ring_free(tr);
}

/* The thread exits: it takes no new ring, should a later destructor
 * of its own still send a batch. */
static void ring_destroy(void *arg)
{
	this_ring = NULL;
	this_thread_exiting = true;
	ring_free(arg);
}

/*
 * fork(): the child has the forking thread's ring too, and the ring's
 * memory is shared with the parent through its mapping: both would
 * queue into the same slots.  The child closes its copies (its mapping
 * and its descriptor; the parent's ring is untouched) and makes its own
 * when it needs one.  Other threads' rings are never used in the child:
 * only their descriptors are left, as any other descriptor is.
 */
static void ring_atfork_child(void)
{
	ring_drop();
}

static void ring_key_create(void)
{
	if (pthread_key_create(&ring_key, ring_destroy) ||
	    pthread_atfork(NULL, NULL, ring_atfork_child)) {
		__atomic_store_n(&uring_unsupported, 1, __ATOMIC_RELAXED);
		return;
	}
	ring_key_made = true;
}

/*
 * Unloaded (dlclose()): threads that exit later must not call a
 * destructor that is no longer mapped.  Their rings stay open.
 */
__attribute__((destructor)) static void ring_key_delete(void)
{
	if (ring_key_made)
		pthread_key_delete(ring_key);
}

/* This thread's ring, made if it has none; NULL where none can be had. */
static struct thread_ring *thread_ring_get(void)
{
	struct thread_ring *tr = this_ring;
	int err;

	if (tr)
		return tr;
	if (this_thread_exiting)
		return NULL;
	pthread_once(&ring_key_once, ring_key_create);
	if (__atomic_load_n(&uring_unsupported, __ATOMIC_RELAXED))
		return NULL;
	tr = upc_fault_should_fail() ? NULL : calloc(1, sizeof(*tr));
	err = tr ? io_uring_queue_init(RING_ENTRIES, &tr->ring, 0) : -ENOMEM;
	if (!err && pthread_setspecific(ring_key, tr)) {
		io_uring_queue_exit(&tr->ring);
		err = -ENOMEM;
	}
	if (err) {
		free(tr);
		/*
		 * No thread tries again where io_uring is absent or
		 * forbidden; a lack of memory or descriptors may pass, and
		 * the next batch tries again.
		 */
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
 * Queue @nr transfers (at most RING_ENTRIES) in @tr's ring, submit them
 * and wait for those the kernel took, setting their results.  Those it
 * did not take keep -EINPROGRESS: io_batch_rw() does them without the
 * ring.  Never returns with a transfer the kernel took still running:
 * its buffers are the caller's (folios it unlocks and may reuse) the
 * moment this returns.
 */
static void ring_step(struct thread_ring *tr, int fd, bool write,
		      struct io_rw *rws, unsigned int nr)
{
	struct io_counters *cnt = io_thread_counters();
	struct io_uring *ring = &tr->ring;
	struct io_uring_cqe *cqe;
	unsigned int i, queued, taken = 0, reaped = 0;
	bool can_wait = true;
	int ret;

	for (queued = 0; queued < nr; queued++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
		const struct iovec *iov = rws[queued].iov;
		int iovcnt = rws[queued].iovcnt, m, all;

		/* Full with slots of our own: never, unless it failed. */
		if (!sqe) {
			tr->broken = true;
			break;
		}
		/* Neighbours as one buffer, where the copy holds them all. */
		m = fd_iov_merge(iov, iovcnt, 0, tr->merged[queued], &all);
		if (all == iovcnt) {
			iov = tr->merged[queued];
			iovcnt = m;
		}
		cnt->iovecs += (uint64_t)iovcnt;
		if (write)
			io_uring_prep_writev(sqe, fd, iov, (unsigned int)iovcnt,
					     (uint64_t)rws[queued].off);
		else
			io_uring_prep_readv(sqe, fd, iov, (unsigned int)iovcnt,
					    (uint64_t)rws[queued].off);
		io_uring_sqe_set_data64(sqe, queued);
	}
	if (!queued)
		return;
	cnt->syscalls++;
	cnt->uring_batches++;
	ret = io_uring_submit_and_wait(ring, queued);
	while (ret > 0 || ret == -EINTR) {
		if (ret > 0)
			taken += (unsigned int)ret;
		if (taken == queued)
			break;
		cnt->syscalls++;
		ret = io_uring_submit(ring);
	}
	if (taken < queued)
		tr->broken = true;	/* see the top of the file */
	while (reaped < taken) {
		if (io_uring_peek_cqe(ring, &cqe)) {
			if (!can_wait) {
				/* The completions still land in the mapping. */
				sched_yield();
				continue;
			}
			cnt->syscalls++;
			ret = io_uring_wait_cqe(ring, &cqe);
			if (wait_again(ret))
				continue;
			if (ret) {
				/* Its descriptor is gone, not its transfers. */
				tr->broken = true;
				can_wait = false;
				continue;
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
	/* Idle now: a failed ring goes, the next batch makes a new one. */
	if (tr->broken)
		ring_drop();
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
