/* SPDX-License-Identifier: MIT */
/*
 * upcache/errseq.h - an error that every watcher sees once: the
 * kernel's errseq_t, which a mapping uses to report writeback errors.
 *
 * Writeback runs when nobody is there to hear of a failure (reclaim
 * evicting a dirty folio, one fsync writing another caller's data), so
 * a mapping records the error instead, and each of its watchers (an
 * open file) checks whether something failed since it last looked.  A
 * single int would let the first fsync "consume" an error the others
 * never see; a counter per watcher would need a list.  errseq_t is one
 * 32-bit word:
 *
 *	bits  0..11	the last error's errno (1..UPC_MAX_ERRNO)
 *	bit  12		SEEN: some watcher has reported that error
 *	bits 13..31	a counter, bumped when an error is recorded after
 *			the previous one was seen
 *
 * A watcher samples the word when it starts (errseq_sample()) and later
 * compares: a different word means errors it has not reported.  The
 * counter moves only when someone has seen the last error, so a burst
 * of failures nobody looked at costs one bump, and 2^19 reported errors
 * pass before it wraps.
 *
 * Context: every function is lock-free and may be called from any
 * thread.
 */
#ifndef UPCACHE_ERRSEQ_H
#define UPCACHE_ERRSEQ_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint32_t errseq_t;

/**
 * errseq_set() - Record an error.
 * @eseq: The word.
 * @err: A negative errno; 0 or anything outside -1..-UPC_MAX_ERRNO is
 *	ignored (there is nothing to record).
 *
 * Return: The word after the call (0 if nothing was recorded and none
 * was there).
 */
errseq_t errseq_set(errseq_t *eseq, int err);

/**
 * errseq_sample() - Where a new watcher starts.
 * @eseq: The word.
 *
 * An error nobody has seen yet is reported to the new watcher too: the
 * sample is then 0, so that the first check sees a change.
 *
 * Return: The value to keep and pass to errseq_check*().
 */
errseq_t errseq_sample(const errseq_t *eseq);

/**
 * errseq_check() - Has an error been recorded since @since?
 * @eseq: The word.
 * @since: The watcher's sample.
 *
 * Return: 0 if not; the last error's negative errno if so.
 */
int errseq_check(const errseq_t *eseq, errseq_t since);

/**
 * errseq_check_and_advance() - Report an error once, and move on.
 * @eseq: The word.
 * @since: The watcher's sample, advanced to the current word.
 *
 * Marks the error seen, so that the next errseq_set() starts a new one.
 *
 * Return: 0 if nothing was recorded since *@since; the last error's
 * negative errno otherwise.
 */
int errseq_check_and_advance(errseq_t *eseq, errseq_t *since);

#ifdef __cplusplus
}
#endif

#endif /* UPCACHE_ERRSEQ_H */
