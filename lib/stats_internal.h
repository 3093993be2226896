/* SPDX-License-Identifier: MIT */
/*
 * lib/stats_internal.h - incrementing the per-thread counters.
 *
 * The counters are one thread-local struct (see upcache/stats.h).  The
 * initial-exec TLS model makes an increment a single add to an
 * %fs-relative address, with no call to __tls_get_addr, even inside the
 * shared library.
 */
#ifndef UPCACHE_LIB_STATS_INTERNAL_H
#define UPCACHE_LIB_STATS_INTERNAL_H

#include "upcache/lock.h"
#include "upcache/stats.h"

extern __thread struct upc_thread_stats upc_tls_stats
	__attribute__((tls_model("initial-exec")));

/* upc_count() - add one to a field of the calling thread's counters. */
#define upc_count(field)	(upc_tls_stats.field++)

/* upc_lock_nostat() - see lib/lock.c. */
void upc_lock_nostat(upc_lock_t *lock) __attribute__((visibility("hidden")));

#endif /* UPCACHE_LIB_STATS_INTERNAL_H */
