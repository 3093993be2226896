// SPDX-License-Identifier: MIT
/*
 * tools/bench/kernel_disk.c - block devices for the kernel baselines
 * (kernel_disk.h): attaching loop devices, and putting swap on one.
 *
 * The swap header is the kernel's version 1 format: the first page of
 * the area, whose last ten bytes are the magic "SWAPSPACE2" and whose
 * bytes from 1024 on give the format version and the last usable page;
 * the rest of the page (room for a boot block, a bad page list, a UUID
 * and a label) stays zero.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/swap.h>
#include <unistd.h>

#include <upcache/folio.h>

#include "kernel_disk.h"

/* Free loop devices to try, when another user takes the one we got. */
#define LOOP_TRIES		4
/* Where the header's fields start, past room for a boot block. */
#define SWAP_INFO_OFFSET	1024
#define SWAP_MAGIC		"SWAPSPACE2"
#define SWAP_VERSION		1
/* mkswap's least area: the header page and nine more. */
#define SWAP_MIN_PAGES		10

/* Try one free loop device.  Return: 0, or a negative errno. */
static int loop_try(struct bench_loop *l, int ctl,
		    const struct loop_config *cfg, bool read_only)
{
	int nr = ioctl(ctl, LOOP_CTL_GET_FREE), err;

	if (nr < 0)
		return -errno;
	snprintf(l->dev, sizeof(l->dev), "/dev/loop%d", nr);
	l->fd = open(l->dev, (read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC);
	if (l->fd < 0)
		return -errno;
	err = ioctl(l->fd, LOOP_CONFIGURE, cfg) ? -errno : 0;
	if (err) {
		close(l->fd);
		l->fd = -1;
	}
	return err;
}

int bench_loop_attach(struct bench_loop *l, int image, bool read_only,
		      const char *purpose, char *why, size_t len)
{
	struct loop_config cfg = {
		.fd = (unsigned int)image,
		.block_size = UPC_PAGE_SIZE,
		.info.lo_flags = LO_FLAGS_AUTOCLEAR | LO_FLAGS_DIRECT_IO |
				 (read_only ? LO_FLAGS_READ_ONLY : 0),
	};
	struct loop_info64 info;
	int ctl, tries, err = -EBUSY;

	memset(l, 0, sizeof(*l));
	l->fd = -1;
	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		err = -errno;
		snprintf(why, len, "no loop device %s: /dev/loop-control: %s",
			 purpose, strerror(-err));
		return err;
	}
	/* Busy: another user configured the free device first. */
	for (tries = 0; tries < LOOP_TRIES && err == -EBUSY; tries++)
		err = loop_try(l, ctl, &cfg, read_only);
	close(ctl);
	if (err) {
		snprintf(why, len, "cannot attach a loop device %s (%s): %s",
			 purpose, l->dev, strerror(-err));
		return err;
	}
	l->direct_io = !ioctl(l->fd, LOOP_GET_STATUS64, &info) &&
		       (info.lo_flags & LO_FLAGS_DIRECT_IO);
	return 0;
}

void bench_loop_close(struct bench_loop *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}

int bench_swap_format(int fd, uint64_t bytes)
{
	uint64_t pages = bytes >> UPC_PAGE_SHIFT;
	unsigned char *page;
	uint32_t info[2];
	ssize_t n;

	if (pages < SWAP_MIN_PAGES || pages - 1 > UINT32_MAX)
		return -EINVAL;
	page = calloc(1, UPC_PAGE_SIZE);
	if (!page)
		return -ENOMEM;
	info[0] = SWAP_VERSION;
	info[1] = (uint32_t)(pages - 1);	/* the last page, not a count */
	memcpy(page + SWAP_INFO_OFFSET, info, sizeof(info));
	memcpy(page + UPC_PAGE_SIZE - strlen(SWAP_MAGIC), SWAP_MAGIC,
	       strlen(SWAP_MAGIC));
	n = pwrite(fd, page, UPC_PAGE_SIZE, 0);
	free(page);
	if (n < 0)
		return -errno;
	return n == UPC_PAGE_SIZE ? 0 : -ENOSPC;
}

/*
 * swaps_field() - The @nr-th blank-separated field of @line (from 0),
 * its length into *@n.  Return: it, or NULL if the line has fewer.
 */
static const char *swaps_field(const char *line, unsigned int nr, size_t *n)
{
	static const char blanks[] = " \t\n";

	for (;;) {
		line += strspn(line, blanks);
		if (!*line)
			return NULL;
		*n = strcspn(line, blanks);
		if (!nr--)
			return line;
		line += *n;
	}
}

/* Parse @n decimal digits at @s.  Return: 0, or -EINVAL. */
static int swaps_number(const char *s, size_t n, uint64_t *value)
{
	uint64_t v = 0;
	size_t i;

	if (!n)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		unsigned int digit = (unsigned int)(s[i] - '0');

		if (digit > 9 || v > (UINT64_MAX - digit) / 10)
			return -EINVAL;
		v = v * 10 + digit;
	}
	*value = v;
	return 0;
}

int bench_swaps_used_kib(FILE *f, const char *dev, uint64_t *used_kib)
{
	size_t cap = 0, want = strlen(dev), n;
	char *line = NULL;
	bool title = true;
	int err = -ENOENT;

	while (err == -ENOENT && getline(&line, &cap, f) > 0) {
		const char *name = swaps_field(line, 0, &n);
		const char *used;

		if (title) {
			title = false;
			continue;
		}
		if (!name || n != want || memcmp(name, dev, want))
			continue;
		used = swaps_field(line, 3, &n);
		err = used ? swaps_number(used, n, used_kib) : -EINVAL;
	}
	free(line);
	return err;
}

int bench_swap_on(const char *dev)
{
	int flags = SWAP_FLAG_PREFER |
		    (SWAP_FLAG_PRIO_MASK << SWAP_FLAG_PRIO_SHIFT);

	return swapon(dev, flags) ? -errno : 0;
}

int bench_swap_off(const char *dev)
{
	return swapoff(dev) ? -errno : 0;
}
