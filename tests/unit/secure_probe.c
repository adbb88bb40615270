/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* tests/unit/secure_probe.c -- the program tests/unit/test_secure.sh makes
 * setuid root, setgid and file-capable: it lists the devices, like any
 * RDMA tool's first step, and says what it is and what it loaded.
 *
 * Output: "at_secure N", one "device NAME" per device, one "loaded PATH"
 * per provider library in its /proc/self/maps (*-rdmav*.so), exit 0. */
#include <infiniband/verbs.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>

/* In the ASan build: a setgid process is not dumpable, so it cannot read
 * its own /proc/self/environ (where the sanitizer runtime reads
 * ASAN_OPTIONS) and LeakSanitizer cannot stop it at exit. Leaks are
 * checked elsewhere; here the runtime's defaults say so. Unused in other
 * builds. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}

int main(void)
{
	struct ibv_device **list;
	char line[4096];
	FILE *maps;
	int n = 0;

	printf("at_secure %lu\n", getauxval(AT_SECURE));
	list = ibv_get_device_list(&n);
	for (int i = 0; list && i < n; i++)
		printf("device %s\n", ibv_get_device_name(list[i]));
	if (list)
		ibv_free_device_list(list);
	maps = fopen("/proc/self/maps", "re");
	if (!maps)
		return 1;
	while (fgets(line, sizeof(line), maps)) {
		char *path = strchr(line, '/');

		if (path && strstr(path, "-rdmav") && strstr(line, " r-xp ")) {
			path[strcspn(path, "\n")] = '\0';
			printf("loaded %s\n", path);
		}
	}
	fclose(maps);
	return 0;
}
