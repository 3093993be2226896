// SPDX-License-Identifier: MIT
/*
 * lib/stats.c - the per-thread counters behind upcache/stats.h.
 */
#include <string.h>

#include "stats_internal.h"

__thread struct upc_thread_stats upc_tls_stats
	__attribute__((tls_model("initial-exec")));

/**
 * upc_stats_thread() - Read the calling thread's counters.
 * @out: Where to copy them.
 */
void upc_stats_thread(struct upc_thread_stats *out)
{
	*out = upc_tls_stats;
}

/**
 * upc_stats_thread_reset() - Zero the calling thread's counters.
 */
void upc_stats_thread_reset(void)
{
	memset(&upc_tls_stats, 0, sizeof(upc_tls_stats));
}
