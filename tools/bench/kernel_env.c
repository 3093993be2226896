// SPDX-License-Identifier: MIT
/*
 * tools/bench/kernel_env.c - probing the machine for what the kernel
 * baselines would need (kernel_env.h).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kernel_env.h"

/* Does the cgroup v2 root list @controller in cgroup.controllers? */
static bool cgroup2_has(const char *controller)
{
	char line[512];
	FILE *f = fopen("/sys/fs/cgroup/cgroup.controllers", "r");
	bool found = false;

	if (!f)
		return false;
	if (fgets(line, sizeof(line), f)) {
		char *save = NULL;
		char *word;

		for (word = strtok_r(line, " \n", &save); word && !found;
		     word = strtok_r(NULL, " \n", &save))
			found = !strcmp(word, controller);
	}
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

const char *bench_memcg_state(void)
{
	return bench_memcg_writable() ?
		"running it in one is not implemented yet" :
		"this machine gives no writable memory cgroup";
}
