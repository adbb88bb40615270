/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* hca_list: a small program for tests/unit/test_hca_fake.sh, linked
 * against the built libibverbs.so.1 like an application.
 *
 *   hca_list loop N      list and free the devices N times
 *   hca_list open NAME   list, remove NAME's character device, open it:
 *                        prints "errno N" and exits 0 when the open
 *                        failed as it must (NULL, errno set) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

static int loop(int n)
{
	for (int i = 0; i < n; i++) {
		int num = -1;
		struct ibv_device **l = ibv_get_device_list(&num);

		if (!l || num < 1) {
			fprintf(stderr, "listing %d: %d devices (%s)\n", i, num,
				strerror(errno));
			return 1;
		}
		ibv_free_device_list(l);
	}
	return 0;
}

static int open_missing(const char *name)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	struct ibv_device *dev = NULL;
	struct ibv_context *ctx;
	char node[256];

	for (int i = 0; l && l[i]; i++)
		if (!strcmp(l[i]->name, name))
			dev = l[i];
	if (!dev) {
		fprintf(stderr, "%s is not listed\n", name);
		return 1;
	}
	snprintf(node, sizeof(node), "/dev/infiniband/%s", dev->dev_name);
	if (unlink(node)) {
		perror(node);
		return 1;
	}
	errno = 0;
	ctx = ibv_open_device(dev);
	if (ctx) {
		fprintf(stderr, "%s opened without its character device\n", name);
		return 1;
	}
	printf("errno %d\n", errno);
	ibv_free_device_list(l);
	return errno ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "loop"))
		return loop(atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "open"))
		return open_missing(argv[2]);
	fprintf(stderr, "usage: hca_list loop N | open NAME\n");
	return 2;
}
