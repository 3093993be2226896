// SPDX-License-Identifier: MIT
/*
 * lib/xa_node.c - allocating and freeing XArray nodes.
 *
 * The kernel allocates each node from a slab, clears it, and frees it
 * with one RCU callback per node.  Node churn is the cost of a sparse
 * store, so upcache does three things differently:
 *
 *   thread cache      shared pool              RCU
 *   +---------+  64  +------------+  batch   +----------------+
 *   | free    | <--- | free nodes | <------- | freed nodes,   |
 *   | nodes   |      | (mutex)    |  after a | 64 per call_rcu|
 *   +---------+      +------------+  grace   +----------------+
 *        |                 ^         period        ^
 *        v alloc           | slab of 64            | xa_node_free_rcu
 *
 *  1. Allocation pops a node from a per-thread list: no lock, no atomic.
 *     The list refills 64 nodes at a time from a mutex-protected pool,
 *     which grows by slabs of 64 cache-line-aligned nodes.
 *  2. Frees are batched per thread and handed to RCU with one call_rcu()
 *     per 64 nodes instead of one per node.
 *  3. Clearing a node happens in the RCU callback, on liburcu's worker
 *     thread, so an allocation returns a node that is already zero.
 *
 * Memory is never returned to the system: the pool keeps what the peak
 * needed.  Nodes are 576 bytes, so a million-entry dense array peaks at
 * about 9 MB of nodes.
 *
 * In AddressSanitizer builds a node in the pool or a thread cache is
 * poisoned except for its free-list link, so a use after free is reported
 * instead of reading a recycled node.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "rcu_internal.h"
#include "stats_internal.h"
#include "xa_node.h"

#define NODE_BATCH	64

#if defined(__SANITIZE_ADDRESS__)
#define UPC_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UPC_ASAN 1
#endif
#endif

#ifdef UPC_ASAN
void __asan_poison_memory_region(void const volatile *addr, size_t size);
void __asan_unpoison_memory_region(void const volatile *addr, size_t size);

/* Poison everything but the free-list link. */
static void node_poison(struct xa_node *node)
{
	char *base = (char *)node;
	size_t link = offsetof(struct xa_node, free_next);
	size_t after = link + sizeof(node->free_next);

	__asan_poison_memory_region(base, link);
	__asan_poison_memory_region(base + after, sizeof(*node) - after);
}

static void node_unpoison(struct xa_node *node)
{
	__asan_unpoison_memory_region(node, sizeof(*node));
}
#else
static inline void node_poison(struct xa_node *node) { (void)node; }
static inline void node_unpoison(struct xa_node *node) { (void)node; }
#endif

/* A chain of free nodes linked through free_next. */
struct node_chain {
	struct xa_node *first;
	struct xa_node *last;
	unsigned long nr;
};

/* A chain of freed nodes waiting for a grace period. */
struct free_batch {
	struct rcu_head rcu;
	struct node_chain chain;
};

/* The shared pool; lock guards everything in it. */
static struct {
	pthread_mutex_t lock;
	struct node_chain free;
} pool = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Clean nodes ready for this thread's allocations. */
static __thread struct node_chain tls_cache;
/* Nodes this thread freed that readers may still see. */
static __thread struct node_chain tls_pending;

static void chain_push(struct node_chain *chain, struct xa_node *node)
{
	node->free_next = chain->first;
	if (!chain->first)
		chain->last = node;
	chain->first = node;
	chain->nr++;
}

static void chain_splice(struct node_chain *dst, struct node_chain *src)
{
	if (!src->first)
		return;
	src->last->free_next = dst->first;
	if (!dst->first)
		dst->last = src->last;
	dst->first = src->first;
	dst->nr += src->nr;
	src->first = src->last = NULL;
	src->nr = 0;
}

/* Take up to @nr nodes from the front of @src into @dst. */
static void chain_take(struct node_chain *dst, struct node_chain *src,
		       unsigned long nr)
{
	struct node_chain part = { src->first, NULL, 0 };
	struct xa_node *node = src->first;

	while (node && part.nr < nr) {
		part.last = node;
		part.nr++;
		node = node->free_next;
	}
	if (!part.nr)
		return;
	src->first = node;
	src->nr -= part.nr;
	if (!node)
		src->last = NULL;
	part.last->free_next = NULL;
	chain_splice(dst, &part);
}

/*
 * slab_alloc() - Grow: a slab of NODE_BATCH zeroed, poisoned nodes.
 * Return: false if the system is out of memory.
 */
static bool slab_alloc(struct node_chain *dst)
{
	struct xa_node *slab;
	unsigned int i;

	slab = aligned_alloc(64, NODE_BATCH * sizeof(*slab));
	if (!slab)
		return false;
	memset(slab, 0, NODE_BATCH * sizeof(*slab));
	for (i = 0; i < NODE_BATCH; i++) {
		chain_push(dst, &slab[i]);
		node_poison(&slab[i]);
	}
	return true;
}

/*
 * cache_refill() - Refill the thread cache from the pool, growing it if
 * empty.  With GFP_NOWAIT a busy pool is skipped rather than waited for.
 */
static bool cache_refill(gfp_t gfp)
{
	/* Registration arms the thread-exit hook that returns the cache. */
	upc_rcu_ensure_registered();
	if (gfp & __GFP_NOWAIT_BIT) {
		if (pthread_mutex_trylock(&pool.lock) != 0)
			return slab_alloc(&tls_cache);
	} else {
		pthread_mutex_lock(&pool.lock);
	}
	chain_take(&tls_cache, &pool.free, NODE_BATCH);
	pthread_mutex_unlock(&pool.lock);
	return tls_cache.nr || slab_alloc(&tls_cache);
}

/*
 * xa_node_alloc() - A zeroed node, or NULL if memory (or the fault
 * injector) says no.
 */
struct xa_node *xa_node_alloc(gfp_t gfp)
{
	struct xa_node *node;

	if (upc_fault_should_fail())
		return NULL;
	if (__builtin_expect(!tls_cache.first, 0) && !cache_refill(gfp))
		return NULL;
	node = tls_cache.first;
	tls_cache.first = node->free_next;
	tls_cache.nr--;
	node_unpoison(node);
	node->free_next = NULL;
	upc_count(xa_node_allocs);
	return node;
}

/*
 * free_batch_rcu() - After the grace period: clear the nodes and give them
 * to the pool.  Runs on liburcu's call_rcu worker.
 */
static void free_batch_rcu(struct rcu_head *head)
{
	struct free_batch *batch = (struct free_batch *)head;
	struct xa_node *node, *next;

	upc_rcu_tsan_acquire();
	for (node = batch->chain.first; node; node = next) {
		next = node->free_next;
		memset(node, 0, sizeof(*node));
		node->free_next = next;
		node_poison(node);
	}
	pthread_mutex_lock(&pool.lock);
	chain_splice(&pool.free, &batch->chain);
	pthread_mutex_unlock(&pool.lock);
	free(batch);
}

/*
 * fork(): the pool's lock must not be inherited held by a thread the
 * child does not have.  Taken by the RCU layer's fork handlers
 * (lib/rcu.c), once liburcu's call_rcu worker, which takes it in
 * free_batch_rcu(), has paused.
 */
void xa_node_atfork_prepare(void)
{
	pthread_mutex_lock(&pool.lock);
}

void xa_node_atfork_release(void)
{
	pthread_mutex_unlock(&pool.lock);
}

/*
 * xa_node_flush() - Hand the pending frees to RCU.  If the batch header
 * cannot be allocated the nodes stay pending and go with the next flush:
 * memory is held a little longer, never reused early.
 */
void xa_node_flush(void)
{
	struct free_batch *batch;

	if (!tls_pending.nr)
		return;
	batch = upc_fault_should_fail() ? NULL : malloc(sizeof(*batch));
	if (!batch)
		return;
	batch->chain = tls_pending;
	tls_pending.first = tls_pending.last = NULL;
	tls_pending.nr = 0;
	upc_rcu_ensure_registered();
	/* What this thread did to the nodes happens before the callback. */
	upc_rcu_tsan_release();
	urcu_bp_call_rcu(&batch->rcu, free_batch_rcu);
}

/*
 * xa_node_free_rcu() - Free a published node after a grace period.
 */
void xa_node_free_rcu(struct xa_node *node)
{
	upc_count(xa_node_frees);
	if (!tls_pending.nr)
		upc_rcu_ensure_registered();
	chain_push(&tls_pending, node);
	if (tls_pending.nr >= NODE_BATCH)
		xa_node_flush();
}

/*
 * xa_node_free_unused() - Free a node no reader ever saw.
 */
void xa_node_free_unused(struct xa_node *node)
{
	upc_count(xa_node_frees);
	memset(node, 0, sizeof(*node));
	chain_push(&tls_cache, node);
	node_poison(node);
}

/*
 * xa_node_thread_exit() - Flush pending frees, return the cache to the
 * pool.
 */
void xa_node_thread_exit(void)
{
	xa_node_flush();
	pthread_mutex_lock(&pool.lock);
	chain_splice(&pool.free, &tls_cache);
	pthread_mutex_unlock(&pool.lock);
}
