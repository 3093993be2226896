// SPDX-License-Identifier: MIT
/*
 * tests/utils/death.c - fork, run, and read how the child ended and
 * what it said (death.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "death.h"

/* Standard error kept from the child: an assertion's line fits many times. */
#define DEATH_STDERR_MAX	4096

static void death_child(int out, void (*fn)(void *arg), void *arg)
{
	struct rlimit no_core = { 0, 0 };

	(void)setrlimit(RLIMIT_CORE, &no_core);
	if (dup2(out, STDERR_FILENO) < 0)
		_exit(125);
	close(out);
	fn(arg);
	_exit(0);
}

/* Read the pipe to its end; keep what fits in @buf (NUL-terminated). */
static void death_read_all(int in, char *buf, size_t size)
{
	char discard[512];
	size_t len = 0;
	ssize_t n;

	for (;;) {
		if (len + 1 < size)
			n = read(in, buf + len, size - 1 - len);
		else
			n = read(in, discard, sizeof(discard));
		if (n > 0 && len + 1 < size)
			len += (size_t)n;
		else if (n == 0 || (n < 0 && errno != EINTR))
			break;
	}
	buf[len] = '\0';
}

int test_run_child(void (*fn)(void *arg), void *arg, char *err, size_t len)
{
	int fds[2], status;
	pid_t pid;

	if (pipe(fds) < 0) {
		perror("test_run_child: pipe");
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("test_run_child: fork");
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		close(fds[0]);
		death_child(fds[1], fn, arg);
	}
	close(fds[1]);
	death_read_all(fds[0], err, len);
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			perror("test_run_child: waitpid");
			return -1;
		}
	return status;
}

bool test_aborts_with(void (*fn)(void *arg), void *arg, const char *expect)
{
	char err[DEATH_STDERR_MAX];
	int status = test_run_child(fn, arg, err, sizeof(err));

	if (status < 0)
		return false;
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT &&
	    strstr(err, expect))
		return true;
	if (WIFSIGNALED(status))
		fprintf(stderr, "test_aborts_with: child killed by signal %d",
			WTERMSIG(status));
	else
		fprintf(stderr, "test_aborts_with: child exited %d",
			WEXITSTATUS(status));
	fprintf(stderr, ", expected SIGABRT saying \"%s\"; its stderr:\n%s\n",
		expect, err);
	return false;
}
