// SPDX-License-Identifier: MIT
/*
 * The README's example, built against an installed copy of upcache by
 * scripts/check-install.sh (pkg-config) and by CMakeLists.txt beside it
 * (find_package).
 */
#include <stdio.h>
#include <upcache/xarray.h>

static DEFINE_XARRAY(array);

int main(void)
{
	static int objects[3] = { 10, 20, 30 };
	unsigned long index;
	void *entry;
	int sum = 0, n = 0;

	/* Sparse indices: the tree only grows where something is stored. */
	if (xa_is_err(xa_store(&array, 0, &objects[0], GFP_KERNEL)) ||
	    xa_is_err(xa_store(&array, 4096, &objects[1], GFP_KERNEL)) ||
	    xa_is_err(xa_store(&array, 1UL << 40, &objects[2], GFP_KERNEL)))
		return 1;
	if (xa_load(&array, 4096) != &objects[1] || xa_load(&array, 4095) != NULL)
		return 1;

	xa_for_each(&array, index, entry) {
		printf("%lu -> %d\n", index, *(int *)entry);
		sum += *(int *)entry;
		n++;
	}

	xa_erase(&array, 4096);
	if (xa_load(&array, 4096) != NULL)
		return 1;
	xa_destroy(&array);
	if (!xa_empty(&array) || n != 3 || sum != 60)
		return 1;
	printf("ok\n");
	return 0;
}
