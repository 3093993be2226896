// SPDX-License-Identifier: MIT
/*
 * tools/bench/kernel_disk.c - block devices for the kernel baselines
 * (kernel_disk.h): attaching loop devices.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <upcache/folio.h>

#include "kernel_disk.h"

/* Free loop devices to try, when another user takes the one we got. */
#define LOOP_TRIES		4

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
