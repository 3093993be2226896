// SPDX-License-Identifier: MIT
/*
 * tools/bench/kernel_env.c - probing the machine for what the kernel
 * baselines would need (kernel_env.h).
 */
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
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
