/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* tests/fuzz/fuzz_sysfs.c -- the sysfs files discovery reads, fuzzed:
 * the uverbs class's abi_version, each uverbsN's ibdev, abi_version and
 * dev, the device's node_type and node_guid (lib/sysfs.c, lib/device.c),
 * through a fake tree (SYSFS_PATH) that the input rewrites: up to ten
 * NUL-separated contents, in the order of `files` below (two devices).
 * Then a listing, and what an application reads of each device. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core.h"
#include "fuzz.h"

/* in memory where there is a /dev/shm: a file per input costs less */
static char root[64];
/* what each file holds now: unchanged files are not written again */
static char *held[10];
static size_t held_len[10];

static const char *const files[] = {
	"sys/class/infiniband_verbs/abi_version",
	"sys/class/infiniband_verbs/uverbs0/ibdev",
	"sys/class/infiniband_verbs/uverbs0/abi_version",
	"sys/class/infiniband_verbs/uverbs0/dev",
	"sys/class/infiniband/rxe0/node_type",
	"sys/class/infiniband/rxe0/node_guid",
	"sys/class/infiniband_verbs/uverbs1/ibdev",
	"sys/class/infiniband_verbs/uverbs1/abi_version",
	"sys/class/infiniband_verbs/uverbs1/dev",
	"sys/class/infiniband/siw0/node_guid",
};

static void put(size_t i, const char *rel, const char *data, size_t len)
{
	char path[512], *slash;
	FILE *f;

	if (held[i] && held_len[i] == len && !memcmp(held[i], data, len))
		return;
	free(held[i]);
	held[i] = malloc(len + 1);
	if (!held[i])
		abort();
	memcpy(held[i], data, len);
	held_len[i] = len;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (slash = path + strlen(root) + 1; (slash = strchr(slash, '/')); slash++) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	if (!f)
		abort();
	if (len)
		fwrite(data, 1, len, f);
	fclose(f);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[512];

	(void)argc;
	(void)argv;
	snprintf(root, sizeof(root), "%s/sv-fuzz-sysfs-XXXXXX",
		 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm");
	if (!mkdtemp(root))
		abort();
	snprintf(path, sizeof(path), "%s/dev", root);
	mkdir(path, 0755);
	/* the numbers a well-formed "dev" file names (1:3, /dev/null's) */
	snprintf(path, sizeof(path), "%s/dev/uverbs0", root);
	(void)mknod(path, S_IFCHR | 0600, makedev(1, 3));
	snprintf(path, sizeof(path), "%s/dev/uverbs1", root);
	(void)mknod(path, S_IFCHR | 0600, makedev(1, 3));
	snprintf(path, sizeof(path), "%s/sys", root);
	setenv("SYSFS_PATH", path, 1);
	sv_sysfs_reset();
	snprintf(path, sizeof(path), "%s/dev", root);
	sv_set_dev_dir(strdup(path));
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	struct ibv_device **list;
	int n;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		const char *nul = p < end ? memchr(p, '\0', (size_t)(end - p)) : NULL;
		size_t len = p < end ? (size_t)((nul ? nul : end) - p) : 0;

		put(i, files[i], p, len);
		p += len + 1;
	}
	list = ibv_get_device_list(&n);
	for (int i = 0; list && i < n; i++) {
		volatile size_t sink = strlen(ibv_get_device_name(list[i])) +
				       strlen(list[i]->dev_path) + strlen(list[i]->ibdev_path) +
				       strlen(ibv_node_type_str(list[i]->node_type));

		(void)sink;
		(void)ibv_get_device_guid(list[i]);
		(void)ibv_get_device_index(list[i]);
	}
	ibv_free_device_list(list);
	/* the small parsers directly */
	{
		char buf[64];

		n = (int)(size < sizeof(buf) - 1 ? size : sizeof(buf) - 1);
		memcpy(buf, data, (size_t)n);
		buf[n] = '\0';
		(void)sv_parse_node_type(buf);
	}
	return 0;
}
