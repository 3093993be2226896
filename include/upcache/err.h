/* SPDX-License-Identifier: MIT */
/*
 * upcache/err.h - errors carried in pointers, as the kernel's ERR_PTR().
 *
 * Functions that return an object or an error (__filemap_get_folio())
 * return a pointer in the last page of the address space, which no
 * object can occupy, to mean -errno.
 */
#ifndef UPCACHE_ERR_H
#define UPCACHE_ERR_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#define UPC_MAX_ERRNO	4095

/* ERR_PTR() - Encode the negative errno @error as a pointer. */
static inline void *ERR_PTR(long error)
{
	return (void *)error;
}

/* PTR_ERR() - The negative errno a pointer made by ERR_PTR() carries. */
static inline long PTR_ERR(const void *ptr)
{
	return (long)ptr;
}

/* IS_ERR() - Is @ptr an encoded errno? */
static inline bool IS_ERR(const void *ptr)
{
	return (unsigned long)ptr >= (unsigned long)-UPC_MAX_ERRNO;
}

/* IS_ERR_OR_NULL() - Is @ptr NULL or an encoded errno? */
static inline bool IS_ERR_OR_NULL(const void *ptr)
{
	return !ptr || IS_ERR(ptr);
}

#ifdef __cplusplus
}
#endif

#endif /* UPCACHE_ERR_H */
