// SPDX-License-Identifier: MIT
/*
 * api/handle.c - the end of a handle's life: poisoning and, in debug
 * builds, the quarantine that lets a later call on a closed handle see
 * the poison (best-effort use-after-close detection, see
 * api/internal.h).
 *
 * The quarantine is a ring of the last UPC_HANDLE_QUARANTINE retired
 * handles: retiring one more frees the oldest.  Handles still in it at
 * exit are reachable from the ring, so leak checkers stay quiet.
 */
#include <stdlib.h>

#include "internal.h"

#ifdef UPC_DEBUG
static struct {
	pthread_mutex_t lock;
	unsigned int next;
	void *ring[UPC_HANDLE_QUARANTINE];
} quarantine = { .lock = PTHREAD_MUTEX_INITIALIZER };

void upc_handle_retire(void *handle, unsigned int *magic)
{
	void *oldest;

	*magic = UPC_HANDLE_POISON;
	pthread_mutex_lock(&quarantine.lock);
	oldest = quarantine.ring[quarantine.next];
	quarantine.ring[quarantine.next] = handle;
	quarantine.next = (quarantine.next + 1) % UPC_HANDLE_QUARANTINE;
	pthread_mutex_unlock(&quarantine.lock);
	free(oldest);
}
#else
void upc_handle_retire(void *handle, unsigned int *magic)
{
	*magic = UPC_HANDLE_POISON;
	free(handle);
}
#endif
