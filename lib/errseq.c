// SPDX-License-Identifier: MIT
/*
 * lib/errseq.c - errseq_t: an error each watcher reports once (see
 * include/upcache/errseq.h for the layout of the word and why).
 *
 * Every update is a compare-and-swap loop on the one word, so a writer
 * recording an error and a watcher marking it seen never lose each
 * other's change.
 */
#include <upcache/err.h>
#include <upcache/errseq.h>

#define ERRSEQ_ERR_MASK	((errseq_t)UPC_MAX_ERRNO)
#define ERRSEQ_SEEN	((errseq_t)UPC_MAX_ERRNO + 1)
#define ERRSEQ_CTR_INC	(ERRSEQ_SEEN << 1)

static errseq_t errseq_load(const errseq_t *eseq)
{
	return __atomic_load_n(eseq, __ATOMIC_ACQUIRE);
}

errseq_t errseq_set(errseq_t *eseq, int err)
{
	errseq_t old = errseq_load(eseq), new;

	if (err >= 0 || err < -UPC_MAX_ERRNO)
		return old;
	do {
		new = (old & ~(ERRSEQ_ERR_MASK | ERRSEQ_SEEN)) | (errseq_t)-err;
		/* A new error once the last was seen: watchers must notice. */
		if (old & ERRSEQ_SEEN)
			new += ERRSEQ_CTR_INC;
		if (new == old)
			return old;
	} while (!__atomic_compare_exchange_n(eseq, &old, new, false,
					      __ATOMIC_ACQ_REL,
					      __ATOMIC_ACQUIRE));
	return new;
}

errseq_t errseq_sample(const errseq_t *eseq)
{
	errseq_t old = errseq_load(eseq);

	/* An error nobody reported yet is this watcher's to report too. */
	return (old & ERRSEQ_SEEN) ? old : 0;
}

int errseq_check(const errseq_t *eseq, errseq_t since)
{
	errseq_t cur = errseq_load(eseq);

	return cur == since ? 0 : -(int)(cur & ERRSEQ_ERR_MASK);
}

int errseq_check_and_advance(errseq_t *eseq, errseq_t *since)
{
	errseq_t old = errseq_load(eseq), new;

	if (old == *since)
		return 0;
	do {
		new = old | ERRSEQ_SEEN;
		if (new == old)
			break;
	} while (!__atomic_compare_exchange_n(eseq, &old, new, false,
					      __ATOMIC_ACQ_REL,
					      __ATOMIC_ACQUIRE));
	*since = new;
	return -(int)(new & ERRSEQ_ERR_MASK);
}
