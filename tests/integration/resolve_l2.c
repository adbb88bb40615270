/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* resolve_l2 DEV SGID_INDEX DGID...: prints, for each destination GID,
 * what ibv_resolve_eth_l2_from_gid answers on DEV ("<mac> vid <n>" or
 * "error <errno>"). Built against the system libibverbs like any
 * application; tests/integration/test_resolve_l2.sh runs it on rdma-core
 * and on softverbs and compares. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;

	if (argc < 4) {
		fprintf(stderr, "usage: resolve_l2 DEV SGID_INDEX DGID...\n");
		return 2;
	}
	list = ibv_get_device_list(NULL);
	for (int i = 0; list && list[i]; i++)
		if (!strcmp(list[i]->name, argv[1]))
			ctx = ibv_open_device(list[i]);
	if (!ctx) {
		fprintf(stderr, "cannot open %s\n", argv[1]);
		return 1;
	}
	for (int i = 3; i < argc; i++) {
		struct ibv_ah_attr attr = {
			.is_global = 1,
			.port_num = 1,
			.grh = { .sgid_index = (uint8_t)atoi(argv[2]) },
		};
		uint8_t mac[6];
		uint16_t vid = 0;
		int ret;

		if (inet_pton(AF_INET6, argv[i], attr.grh.dgid.raw) != 1) {
			fprintf(stderr, "bad GID %s\n", argv[i]);
			return 2;
		}
		ret = ibv_resolve_eth_l2_from_gid(ctx, &attr, mac, &vid);
		if (ret)
			printf("%s: error %d\n", argv[i], ret);
		else
			printf("%s: %02x:%02x:%02x:%02x:%02x:%02x vid %#x\n",
			       argv[i], mac[0], mac[1], mac[2], mac[3], mac[4],
			       mac[5], vid);
	}
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return 0;
}
