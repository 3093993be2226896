/* SPDX-License-Identifier: MIT */
/*
 * lib/xa_node.h - the XArray node allocator (internal).
 */
#ifndef UPCACHE_LIB_XA_NODE_H
#define UPCACHE_LIB_XA_NODE_H

#include "upcache/xarray.h"

/*
 * xa_node_alloc() - A zeroed node, or NULL.
 * @gfp: GFP_NOWAIT never waits for the shared pool's mutex.
 * Context: Any; never sleeps with GFP_NOWAIT.
 */
struct xa_node *xa_node_alloc(gfp_t gfp);

/*
 * xa_node_free_rcu() - Free a node that readers may still be looking at.
 * It is reused only after an RCU grace period; its slots stay readable
 * until then.
 * Context: Any; never sleeps.
 */
void xa_node_free_rcu(struct xa_node *node);

/*
 * xa_node_free_unused() - Free a node no reader ever saw (preallocated
 * and never published).  Reused at once.
 */
void xa_node_free_unused(struct xa_node *node);

/* xa_node_flush() - Hand this thread's pending frees to RCU now. */
void xa_node_flush(void);

/* xa_node_thread_exit() - Flush and give back this thread's nodes. */
void xa_node_thread_exit(void);

/* Hold the node pool's lock across fork(), and let it go in either process. */
void xa_node_atfork_prepare(void);
void xa_node_atfork_release(void);

#endif /* UPCACHE_LIB_XA_NODE_H */
