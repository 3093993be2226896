/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/kernel_child.h - the process a kernel baseline runs its
 * work in.
 *
 * A kernel baseline held to a memory limit runs in a memory cgroup, and
 * only a child process can be moved into one without moving upcache's
 * side of the run with it.  The child is forked once, before the suite
 * maps its own memory: a fork makes every page the parent has mapped
 * copy-on-write, and the next write to each then faults, which halved a
 * suite's figures in the rounds after a fork when one was forked per
 * part.  It then does one piece of work per command, over a socket
 * pair, until the parent hangs up.
 *
 * What a kernel side sets up (cgroups, loop devices, swap) is the
 * machine's, so a run that dies on an error still undoes it, from the
 * process that set it up (bench_kernel_undo_at_exit()).
 */
#ifndef UPCACHE_TOOLS_BENCH_KERNEL_CHILD_H
#define UPCACHE_TOOLS_BENCH_KERNEL_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/**
 * bench_kchild_fn - one command's work, in the child.
 * @ctx: What bench_kchild_start() was given (the child's copy of it).
 * @cmd: The command: the size bench_kchild_start() was given.
 * @reply: Where its figures go: that size too, zeroed before the call.
 *
 * Dies (bench_die()) on a failure, which the parent sees as no reply.
 */
typedef void (*bench_kchild_fn)(void *ctx, const void *cmd, void *reply);

/**
 * struct bench_kchild - the parent's handle on its child.
 * @pid: The child (0: none).
 * @fd: The parent's end of the socket pair: commands go out, replies
 *	come back.
 * @cmd_size: Bytes of a command.
 * @reply_size: Bytes of a reply.
 */
struct bench_kchild {
	pid_t pid;
	int fd;
	size_t cmd_size;
	size_t reply_size;
};

/**
 * bench_kchild_start() - Fork the child.
 * @c: The handle to fill.
 * @fn: What the child does per command.
 * @ctx: Its context, as it is now (the child has its own copy).
 * @cmd_size: Bytes of a command.
 * @reply_size: Bytes of a reply.
 *
 * Return: 0, or a negative errno from socketpair() or fork() with
 * @c->pid 0.
 */
int bench_kchild_start(struct bench_kchild *c, bench_kchild_fn fn, void *ctx,
		       size_t cmd_size, size_t reply_size);

/**
 * bench_kchild_call() - Have the child do one command, and wait for it.
 * @c: A started child.
 * @cmd: The command.
 * @reply: Where the reply goes.
 *
 * Return: true if the reply came; false if the child died or is gone.
 */
bool bench_kchild_call(struct bench_kchild *c, const void *cmd, void *reply);

/**
 * bench_kchild_stop() - Hang up, and wait for the child to exit.
 * @c: The handle, started or not (then nothing is done).
 *
 * Return: the child's wait status (waitpid()), as for telling why a
 * call failed; -1 if there was no child.
 */
int bench_kchild_stop(struct bench_kchild *c);

/**
 * bench_kernel_undo_at_exit() - Have a kernel side undone when the run
 * exits before it is freed (bench_die() exits), by the process calling
 * this only: a child that dies undoes nothing.
 * @undo: What undoes it (its free function).
 * @side: Its argument.
 *
 * Dies if more than four sides are registered at once.
 */
void bench_kernel_undo_at_exit(void (*undo)(void *side), void *side);

/**
 * bench_kernel_undo_cancel() - The side is freed: forget it.
 * @side: A side given to bench_kernel_undo_at_exit(), or one never
 *	given (then nothing is done).
 */
void bench_kernel_undo_cancel(void *side);

#endif /* UPCACHE_TOOLS_BENCH_KERNEL_CHILD_H */
