// SPDX-License-Identifier: MIT
/*
 * mm/folio.c - folio references and the folio lock.
 *
 * This file owns the out-of-line half of the folio API in
 * upcache/folio.h: dropping references (the last one hands the folio to
 * the allocator, upc_folio_free() in mm/page_alloc.c) and the sleeping
 * side of the folio lock.  Taking references and trylock are inline in
 * the header.
 *
 * References.  folio_put_refs() subtracts with acquire-release ordering:
 * release so that everything the dropper did to the folio happens before
 * whoever frees it; acquire so that the freeing thread sees all of it.
 * Once the count is zero, folio_try_get() fails, so a lockless reader
 * cannot take a reference on a folio that is being freed; the next
 * allocation publishes refcount 1 with a release store after it has
 * initialised every field.
 *
 * The lock.  PG_locked is the lock and PG_waiters says that someone may
 * sleep on it; both live in the low 32 bits of ->flags, which, on a
 * little-endian machine, are the 32-bit word at the flags' address: the
 * futex word.  The other flags share that word, so a sleeper may be
 * woken early (its FUTEX_WAIT fails with EAGAIN when any bit changed):
 * every wait is in a loop that looks at PG_locked again.
 *
 *   folio_lock():   test-and-set PG_locked; if it was set, loop:
 *                   read flags; unlocked -> try again; else set
 *                   PG_waiters with a compare-and-swap from the value
 *                   just read (on failure re-read) and FUTEX_WAIT for
 *                   that value with PG_waiters set.
 *   folio_unlock(): clear PG_locked and PG_waiters in one fetch-and
 *                   (release); if PG_waiters was set, FUTEX_WAKE all.
 *
 * PG_waiters is shared with everything else that sleeps on the word
 * (folio_wait_writeback() in mm/filemap.c), and the rule for all of
 * them is: whoever clears PG_waiters wakes every sleeper afterwards, and
 * every sleeper sets PG_waiters before it sleeps and re-checks its own
 * condition when woken.
 *
 * Why no wakeup is lost.  A waiter W sleeps only if the futex word
 * equals v = (the flags it read) | PG_locked | PG_waiters when the
 * kernel checks it, and the kernel checks and queues W atomically with
 * respect to a FUTEX_WAKE on the same word.  Every update of ->flags is
 * an atomic read-modify-write, so they are totally ordered and each
 * reads the latest value.  Two cases:
 *   - the word differs from v at the check (an unlock cleared PG_locked,
 *     or any other bit of the word changed): W is not queued, FUTEX_WAIT
 *     returns EAGAIN and W loops, reading the flags again;
 *   - the word equals v at the check: PG_locked and PG_waiters are both
 *     set while W is queued.  The next update that clears PG_locked is
 *     an unlock's fetch-and.  If PG_waiters is still set then, the
 *     unlock reads it and its FUTEX_WAKE, issued after the fetch-and,
 *     finds W queued.  If someone cleared PG_waiters in between (only an
 *     unlock or a writeback end does), that one's wake-all came after
 *     its clear, so after W was queued, and woke W.
 * It makes no difference whether W set PG_waiters itself or found it
 * set.  Clearing PG_waiters in an unlock loses nobody: every sleeper is
 * woken, and one that finds the lock taken again (or its writeback
 * still running) sets PG_waiters again before it sleeps again.  A stale
 * PG_waiters (its setter did not sleep after all) costs one needless
 * FUTEX_WAKE.  folio_wait_locked() sleeps the same way but does not
 * take the lock.
 *
 * The caller of folio_lock() and folio_wait_locked() holds a reference,
 * so the folio cannot be freed and reused under a sleeper.
 */
#include <stdint.h>

#include "futex.h"
#include "lru_internal.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	      "the futex word is the low half of folio->flags");
static_assert(PG_locked < 32 && PG_waiters < 32,
	      "PG_locked and PG_waiters must be in the futex word");
static_assert(offsetof(struct folio, flags) % sizeof(uint32_t) == 0,
	      "the futex word must be 4-byte aligned");

#define FOLIO_LOCKED		(1UL << PG_locked)
#define FOLIO_WAITERS		(1UL << PG_waiters)

/*
 * folio_sleep_locked() - Sleep once while the folio is locked.
 * @folio: The folio.
 * @old: Its flags as last read, with PG_locked set.
 *
 * Sets PG_waiters (unless @old has it) and sleeps until the futex word
 * changes or a wakeup comes.  Returns at once if the flags are no
 * longer @old.  The caller re-reads the flags and decides again.
 */
static void folio_sleep_locked(struct folio *folio, unsigned long old)
{
	if (!(old & FOLIO_WAITERS) &&
	    !__atomic_compare_exchange_n(&folio->flags, &old,
					 old | FOLIO_WAITERS, false,
					 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return;
	upc_futex_wait(&folio->flags, (uint32_t)(old | FOLIO_WAITERS));
}

/**
 * folio_lock() - Lock a folio, sleeping while someone else holds it.
 * @folio: The folio; the caller holds a reference.
 *
 * Context: May sleep (futex).  Not recursive.
 */
void folio_lock(struct folio *folio)
{
	unsigned long old;

	while (!folio_trylock(folio)) {
		old = __atomic_load_n(&folio->flags, __ATOMIC_RELAXED);
		if (old & FOLIO_LOCKED)
			folio_sleep_locked(folio, old);
	}
}

/**
 * folio_unlock() - Unlock a folio and wake whoever waits for it.
 * @folio: A folio the caller locked.
 *
 * Clears PG_locked and PG_waiters together, with release ordering, and
 * wakes every sleeper if PG_waiters was set.
 *
 * Context: Any context.
 */
void folio_unlock(struct folio *folio)
{
	unsigned long old;

	old = __atomic_fetch_and(&folio->flags,
				 ~(FOLIO_LOCKED | FOLIO_WAITERS),
				 __ATOMIC_RELEASE);
	UPC_MM_BUG_ON(!(old & FOLIO_LOCKED));
	if (old & FOLIO_WAITERS)
		upc_futex_wake(&folio->flags, INT32_MAX);
}

/**
 * folio_wait_locked() - Wait until the folio is unlocked.
 * @folio: The folio; the caller holds a reference.
 *
 * Returns once PG_locked was seen clear (acquire: what the last holder
 * did before unlocking is visible); the folio may be locked again by
 * then.
 *
 * Context: May sleep.
 */
void folio_wait_locked(struct folio *folio)
{
	unsigned long old;

	while ((old = __atomic_load_n(&folio->flags, __ATOMIC_ACQUIRE)) &
	       FOLIO_LOCKED)
		folio_sleep_locked(folio, old);
}

/**
 * folio_put_refs() - Drop @nr references at once.
 * @folio: The folio.
 * @nr: How many, at least 1 and at most the references the caller holds.
 *
 * The last reference frees the folio (upc_folio_free()), after taking
 * it off its LRU list if it is still on one (lru_folio_freed()).
 *
 * Context: Any context; freeing takes short-hold allocator locks.
 */
void folio_put_refs(struct folio *folio, int nr)
{
	int left;

	UPC_MM_BUG_ON(nr <= 0);
	left = __atomic_sub_fetch(&folio->refcount, nr, __ATOMIC_ACQ_REL);
	UPC_MM_BUG_ON(left < 0);
	if (left)
		return;
	if (folio_test_lru(folio))
		lru_folio_freed(folio);
	upc_folio_free(folio);
}

/**
 * folio_put() - Drop a reference; the last one frees the folio.
 * @folio: The folio.
 *
 * Context: Any context; freeing takes short-hold allocator locks.
 */
void folio_put(struct folio *folio)
{
	folio_put_refs(folio, 1);
}
