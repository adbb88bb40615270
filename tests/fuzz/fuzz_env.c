/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* tests/fuzz/fuzz_env.c -- the environment variables the library reads,
 * fuzzed: SOFTVERBS_LOG (log level), RDMAV_FORK_SAFE, IBV_FORK_SAFE,
 * RDMAV_HUGEPAGES_SAFE and SYSFS_PATH (the sysfs root, then a discovery
 * over it). The input is up to five NUL-separated values, in that order;
 * a value starting with 0x01 unsets the variable. */
#include "config.h"

#include <stdlib.h>

#include "core.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const vars[] = { "SOFTVERBS_LOG", "RDMAV_FORK_SAFE", "IBV_FORK_SAFE",
					    "RDMAV_HUGEPAGES_SAFE", "SYSFS_PATH" };
	char *copy = malloc(size + 1), *p = copy;
	struct ibv_device **list;
	const char *root;
	size_t len;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		if (p > copy + size || (p[0] == 1)) {
			unsetenv(vars[i]);
		} else {
			setenv(vars[i], p, 1);
		}
		if (p <= copy + size)
			p += strlen(p) + 1;
	}
	sv_log_init();
	if (sv_log_level < SV_LOG_OFF || sv_log_level > SV_LOG_DEBUG)
		abort();
	sv_log_level = SV_LOG_OFF; /* parsed; keep the run quiet */

	sv_sysfs_reset();
	root = sv_sysfs_root();
	len = strlen(root);
	/* an absolute-or-given path, never empty, no trailing slash */
	if (!len || (len > 1 && root[len - 1] == '/'))
		abort();
	list = ibv_get_device_list(NULL);
	ibv_free_device_list(list);
	(void)ibv_fork_init();
	(void)ibv_is_fork_initialized();
	free(copy);
	return 0;
}
