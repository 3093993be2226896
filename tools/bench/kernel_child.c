// SPDX-License-Identifier: MIT
/*
 * tools/bench/kernel_child.c - the process a kernel baseline runs its
 * work in (kernel_child.h): its fork, its command loop, and the calls
 * the parent makes to it; and the undoing of kernel sides at exit.
 *
 * Commands and replies are fixed-size structures over a socket pair: a
 * child that dies closes its end, so the parent's read comes back short
 * instead of waiting forever, and its send fails with EPIPE (never
 * SIGPIPE, which would end the run before its atexit() cleanups).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernel_child.h"
#include "util.h"

/*
 * kchild_transfer() - Send (@out) or receive all of @len bytes at @buf
 * (which is only read when sending).  Return: true if all went or came;
 * false on an error, or when the other end hung up.
 */
static bool kchild_transfer(int fd, void *buf, size_t len, bool out)
{
	char *at = buf;

	while (len) {
		ssize_t n = out ? send(fd, at, len, MSG_NOSIGNAL) :
				  recv(fd, at, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		at += n;
		len -= (size_t)n;
	}
	return true;
}

/*
 * kchild_serve() - The child's life: each command run and its reply
 * sent, until the parent hangs up (exit status 0); exit status 2 if a
 * reply cannot be sent.
 */
static void kchild_serve(const struct bench_kchild *c, bench_kchild_fn fn,
			 void *ctx, int fd)
{
	void *cmd = bench_xcalloc(1, c->cmd_size);
	void *reply = bench_xcalloc(1, c->reply_size);

	while (kchild_transfer(fd, cmd, c->cmd_size, false)) {
		memset(reply, 0, c->reply_size);
		fn(ctx, cmd, reply);
		if (!kchild_transfer(fd, reply, c->reply_size, true))
			_exit(2);
	}
	_exit(0);
}

/* Kernel sides to undo at exit, and the processes that set them up. */
#define KERNEL_UNDO_SLOTS	4

static struct {
	void (*undo)(void *side);
	void *side;
	pid_t owner;
} kernel_undo[KERNEL_UNDO_SLOTS];

static void kernel_undo_all(void)
{
	int i;

	for (i = 0; i < KERNEL_UNDO_SLOTS; i++)
		if (kernel_undo[i].side && kernel_undo[i].owner == getpid())
			kernel_undo[i].undo(kernel_undo[i].side);
}

void bench_kernel_undo_at_exit(void (*undo)(void *side), void *side)
{
	static bool registered;
	int i;

	if (!registered)
		registered = !atexit(kernel_undo_all);
	for (i = 0; i < KERNEL_UNDO_SLOTS; i++) {
		if (!kernel_undo[i].side) {
			kernel_undo[i].undo = undo;
			kernel_undo[i].side = side;
			kernel_undo[i].owner = getpid();
			return;
		}
	}
	bench_die("more than %d kernel sides to undo at exit",
		  KERNEL_UNDO_SLOTS);
}

void bench_kernel_undo_cancel(void *side)
{
	int i;

	for (i = 0; i < KERNEL_UNDO_SLOTS; i++)
		if (kernel_undo[i].side == side)
			kernel_undo[i].side = NULL;
}

int bench_kchild_start(struct bench_kchild *c, bench_kchild_fn fn, void *ctx,
		       size_t cmd_size, size_t reply_size)
{
	int sv[2], err;

	memset(c, 0, sizeof(*c));
	c->cmd_size = cmd_size;
	c->reply_size = reply_size;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	/* What stdio holds would otherwise be written by both. */
	fflush(NULL);
	c->pid = fork();
	if (!c->pid) {
		close(sv[0]);
		kchild_serve(c, fn, ctx, sv[1]);
	}
	err = c->pid < 0 ? -errno : 0;
	close(sv[1]);
	if (err) {
		close(sv[0]);
		c->pid = 0;
		return err;
	}
	c->fd = sv[0];
	return 0;
}

bool bench_kchild_call(struct bench_kchild *c, const void *cmd, void *reply)
{
	/* Sending only reads the command. */
	return c->pid > 0 &&
	       kchild_transfer(c->fd, (void *)cmd, c->cmd_size, true) &&
	       kchild_transfer(c->fd, reply, c->reply_size, false);
}

int bench_kchild_stop(struct bench_kchild *c)
{
	int status = -1;

	if (c->pid <= 0)
		return -1;
	close(c->fd);
	while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
		;
	c->pid = 0;
	return status;
}
