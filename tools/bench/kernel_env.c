// SPDX-License-Identifier: MIT
/*
 * tools/bench/kernel_env.c - probing the machine for what the kernel
 * baselines would need (kernel_env.h), and the memory cgroup that holds
 * a kernel baseline's page cache to a limit.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "kernel_env.h"

bool bench_controllers_list(FILE *f, const char *controller)
{
	char line[512];
	bool found = false;

	if (fgets(line, sizeof(line), f)) {
		char *save = NULL;
		char *word;

		for (word = strtok_r(line, " \n", &save); word && !found;
		     word = strtok_r(NULL, " \n", &save))
			found = !strcmp(word, controller);
	}
	return found;
}

/* Does the cgroup v2 root list @controller in cgroup.controllers? */
static bool cgroup2_has(const char *controller)
{
	FILE *f = fopen("/sys/fs/cgroup/cgroup.controllers", "r");
	bool found;

	if (!f)
		return false;
	found = bench_controllers_list(f, controller);
	fclose(f);
	return found;
}

bool bench_memcg_writable(void)
{
	if (cgroup2_has("memory") &&
	    !access("/sys/fs/cgroup/cgroup.subtree_control", W_OK))
		return true;
	/* v1: the memory hierarchy's root, where a child group is made. */
	return !access("/sys/fs/cgroup/memory/memory.limit_in_bytes", F_OK) &&
	       !access("/sys/fs/cgroup/memory", W_OK);
}

bool bench_swaps_list_device(FILE *f)
{
	int c, last = '\n';
	size_t lines = 0;

	/*
	 * A title line, then one per device.  Newlines are counted, not
	 * reads of a line buffer, which a long line needs several of.
	 */
	while ((c = fgetc(f)) != EOF) {
		lines += c == '\n';
		last = c;
	}
	return lines + (last != '\n') > 1;
}

bool bench_has_swap(void)
{
	FILE *f = fopen("/proc/swaps", "r");
	bool found;

	if (!f)
		return false;
	found = bench_swaps_list_device(f);
	fclose(f);
	return found;
}

bool bench_is_tmpfs(const char *dir)
{
	struct statfs st;

	return !statfs(dir, &st) && st.f_type == TMPFS_MAGIC;
}

/* Is @controller one of the comma-separated names in @list? */
static bool list_has(const char *list, size_t n, const char *controller)
{
	size_t want = strlen(controller);

	while (n) {
		const char *comma = memchr(list, ',', n);
		size_t word = comma ? (size_t)(comma - list) : n;

		if (word == want && !memcmp(list, controller, want))
			return true;
		if (!comma)
			break;
		n -= word + 1;
		list = comma + 1;
	}
	return false;
}

/*
 * The path field of @line (no newline) if it is @controller's line ("":
 * the v2 line), else NULL.
 */
static const char *cgroup_line_path(const char *line, const char *controller)
{
	const char *first = strchr(line, ':');
	const char *second = first ? strchr(first + 1, ':') : NULL;

	if (!second)
		return NULL;
	if (!*controller ?
	    second == first + 1 && !strncmp(line, "0:", 2) :
	    list_has(first + 1, (size_t)(second - first - 1), controller))
		return second + 1;
	return NULL;
}

int bench_cgroup_path(FILE *f, const char *controller, char *path,
		      size_t len)
{
	size_t size = 0, n;
	char *line = NULL;
	const char *at = NULL;
	int err = -ENOENT;

	/* Whole lines, however long: a line's tail is never one of its own. */
	while (!at && getline(&line, &size, f) >= 0) {
		line[strcspn(line, "\n")] = '\0';
		at = cgroup_line_path(line, controller);
	}
	if (at && *at == '/') {
		n = strlen(at);
		err = n < len ? 0 : -ENAMETOOLONG;
		if (!err)
			memcpy(path, at, n + 1);
	}
	free(line);
	return err;
}

/* Write @text to @dir/@file.  Return: 0 or a negative errno. */
static int cg_write(const char *dir, const char *file, const char *text)
{
	char path[PATH_MAX + 64];
	ssize_t n;
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	if (n < 0)
		err = -errno;
	close(fd);
	return err;
}

/* This process's cgroup directory in a hierarchy mounted at @mount. */
static int cg_own_dir(const char *mount, const char *controller, char *dir,
		      size_t len)
{
	char path[PATH_MAX];
	FILE *f = fopen("/proc/self/cgroup", "r");
	int err;

	if (!f)
		return -errno;
	err = bench_cgroup_path(f, controller, path, sizeof(path));
	fclose(f);
	if (err)
		return err;
	/* The root's path is "/": no slash doubled before the child. */
	if ((size_t)snprintf(dir, len, "%s%s", mount,
			     strcmp(path, "/") ? path : "") >= len)
		return -ENAMETOOLONG;
	return 0;
}

/*
 * Make @name under @parent, @limit bytes written to its @limit_file; its
 * @reclaim_file must be there too (v2's memory.reclaim came in Linux
 * 5.19), or bench_memcg_reclaim() could not empty it.
 */
static int cg_make(struct bench_memcg *cg, const char *parent,
		   const char *name, const char *limit_file,
		   const char *reclaim_file, uint64_t limit, char *why,
		   size_t len)
{
	char text[32], path[PATH_MAX + 64];
	int err;

	if ((size_t)snprintf(cg->dir, sizeof(cg->dir), "%s/%s", parent,
			     name) >= sizeof(cg->dir)) {
		snprintf(why, len, "the cgroup path under %s is too long",
			 parent);
		return -ENAMETOOLONG;
	}
	if (mkdir(cg->dir, 0755) && errno != EEXIST) {
		err = -errno;
		snprintf(why, len, "cannot make the memory cgroup %s: %s",
			 cg->dir, strerror(-err));
		return err;
	}
	snprintf(text, sizeof(text), "%" PRIu64, limit);
	err = cg_write(cg->dir, limit_file, text);
	if (err) {
		snprintf(why, len, "cannot set %s/%s: %s", cg->dir,
			 limit_file, strerror(-err));
		rmdir(cg->dir);
		return err;
	}
	snprintf(path, sizeof(path), "%s/%s", cg->dir, reclaim_file);
	if (access(path, W_OK)) {
		err = -errno;
		snprintf(why, len, "the memory cgroup has no writable %s: %s",
			 reclaim_file, strerror(-err));
		rmdir(cg->dir);
	}
	return err;
}

/* As bench_memcg_create(), which leaves @cg->dir empty on failure. */
static int memcg_create(struct bench_memcg *cg, const char *name,
			uint64_t limit, char *why, size_t len)
{
	char parent[PATH_MAX];
	int err;

	if (cgroup2_has("memory")) {
		cg->v2 = true;
		err = cg_own_dir("/sys/fs/cgroup", "", parent, sizeof(parent));
		if (!err)
			err = cg_write(parent, "cgroup.subtree_control",
				       "+memory");
		if (err) {
			snprintf(why, len, "cgroup v2 gives this process's "
				 "cgroup no memory controller to delegate: "
				 "%s", strerror(-err));
			return err;
		}
		return cg_make(cg, parent, name, "memory.max",
			       "memory.reclaim", limit, why, len);
	}
	if (access("/sys/fs/cgroup/memory/memory.limit_in_bytes", F_OK)) {
		snprintf(why, len, "no memory cgroup: neither cgroup v2 with "
			 "the memory controller nor a v1 memory hierarchy at "
			 "/sys/fs/cgroup/memory");
		return -ENOENT;
	}
	err = cg_own_dir("/sys/fs/cgroup/memory", "memory", parent,
			 sizeof(parent));
	if (err) {
		snprintf(why, len, "cannot find this process's memory cgroup "
			 "(/proc/self/cgroup): %s", strerror(-err));
		return err;
	}
	return cg_make(cg, parent, name, "memory.limit_in_bytes",
		       "memory.force_empty", limit, why, len);
}

int bench_memcg_enter(const struct bench_memcg *cg)
{
	char pid[24];

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	return cg_write(cg->dir, "cgroup.procs", pid);
}

int bench_memcg_reclaim(const struct bench_memcg *cg)
{
	int err;

	if (!cg->v2)
		return cg_write(cg->dir, "memory.force_empty", "0");
	/* More than it holds: -EAGAIN once nothing more can go. */
	err = cg_write(cg->dir, "memory.reclaim", "1T");
	return err == -EAGAIN ? 0 : err;
}

int bench_memcg_remove(const struct bench_memcg *cg)
{
	return rmdir(cg->dir) ? -errno : 0;
}

int bench_memcg_create(struct bench_memcg *cg, const char *name,
		       uint64_t limit, char *why, size_t len)
{
	int err;

	memset(cg, 0, sizeof(*cg));
	err = memcg_create(cg, name, limit, why, len);
	if (err)
		cg->dir[0] = '\0';
	return err;
}
