/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* devinfo: list the RDMA devices and describe each one, like a condensed
 * `ibv_devinfo -v`. A tour of the verbs calls every program makes before
 * it moves data:
 *
 *   ibv_get_device_list   which devices exist
 *   ibv_open_device       a context: the handle all other verbs take
 *   ibv_query_device      what the device can do (limits, GUIDs)
 *   ibv_query_port        the state of each port (ports count from 1)
 *   ibv_query_gid_ex      the port's addresses and their types
 *
 * Usage: devinfo [device-name]
 * Build: part of softverbs' `make`; run it with softverbs' library first
 * on the search path (LD_LIBRARY_PATH=lib/.libs) or installed. */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/verbs.h>

/* GUIDs are big-endian 64-bit values; print them the usual way, as four
 * groups of four hex digits. */
static void print_guid(const char *label, __be64 guid)
{
	uint64_t g = be64toh(guid);

	printf("\t%-16s%04x:%04x:%04x:%04x\n", label,
	       (unsigned int)(g >> 48) & 0xffff, (unsigned int)(g >> 32) & 0xffff,
	       (unsigned int)(g >> 16) & 0xffff, (unsigned int)g & 0xffff);
}

static const char *transport_str(enum ibv_transport_type t)
{
	switch (t) {
	case IBV_TRANSPORT_IB:
		return "InfiniBand";
	case IBV_TRANSPORT_IWARP:
		return "iWARP";
	case IBV_TRANSPORT_USNIC:
		return "usNIC";
	case IBV_TRANSPORT_USNIC_UDP:
		return "usNIC UDP";
	case IBV_TRANSPORT_UNSPECIFIED:
		return "unspecified";
	default:
		return "unknown";
	}
}

static const char *link_layer_str(uint8_t link_layer)
{
	switch (link_layer) {
	case IBV_LINK_LAYER_INFINIBAND:
		return "InfiniBand";
	case IBV_LINK_LAYER_ETHERNET:
		return "Ethernet";
	default:
		/* Old kernels report nothing; that means InfiniBand. */
		return "InfiniBand (unspecified)";
	}
}

static const char *gid_type_str(uint32_t type)
{
	switch (type) {
	case IBV_GID_TYPE_IB:
		return "IB";
	case IBV_GID_TYPE_ROCE_V1:
		return "RoCE v1";
	case IBV_GID_TYPE_ROCE_V2:
		return "RoCE v2";
	default:
		return "unknown";
	}
}

/* enum ibv_mtu counts 256, 512, 1024, 2048, 4096 bytes as 1..5. */
static int mtu_bytes(enum ibv_mtu mtu)
{
	return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128 << mtu : 0;
}

/* Every GID table entry in use. A RoCE device fills its table from the
 * IP addresses of its network interface; the index a program passes in
 * ibv_ah_attr.grh.sgid_index picks one of these. */
static void print_gids(struct ibv_context *ctx, uint8_t port, int table_len)
{
	for (int i = 0; i < table_len; i++) {
		struct ibv_gid_entry entry;
		char addr[INET6_ADDRSTRLEN];
		int ret;

		ret = ibv_query_gid_ex(ctx, port, (uint32_t)i, &entry, 0);
		if (ret == ENODATA)
			continue; /* an empty slot */
		if (ret) {
			printf("\t\t\tGID[%3d]: cannot query: %s\n", i,
			       strerror(ret));
			continue;
		}
		/* A GID has the layout of an IPv6 address (and for RoCE v2
		 * it is one, or an IPv4-mapped one). */
		inet_ntop(AF_INET6, entry.gid.raw, addr, sizeof(addr));
		printf("\t\t\tGID[%3d]:\t%s, %s\n", i, addr,
		       gid_type_str(entry.gid_type));
	}
}

static int print_port(struct ibv_context *ctx, uint8_t port)
{
	struct ibv_port_attr attr;
	int ret;

	ret = ibv_query_port(ctx, port, &attr);
	if (ret) {
		fprintf(stderr, "ibv_query_port(%u): %s\n", port, strerror(ret));
		return ret;
	}

	printf("\t\tport:\t%u\n", port);
	printf("\t\t\tstate:\t\t%s (%d)\n", ibv_port_state_str(attr.state),
	       attr.state);
	printf("\t\t\tmax_mtu:\t%d (%d)\n", mtu_bytes(attr.max_mtu),
	       attr.max_mtu);
	printf("\t\t\tactive_mtu:\t%d (%d)\n", mtu_bytes(attr.active_mtu),
	       attr.active_mtu);
	printf("\t\t\tsm_lid:\t\t%u\n", attr.sm_lid);
	printf("\t\t\tport_lid:\t%u\n", attr.lid);
	printf("\t\t\tport_lmc:\t0x%02x\n", attr.lmc);
	printf("\t\t\tlink_layer:\t%s\n", link_layer_str(attr.link_layer));
	printf("\t\t\tgid_tbl_len:\t%d\n", attr.gid_tbl_len);
	print_gids(ctx, port, attr.gid_tbl_len);
	return 0;
}

static int print_device(struct ibv_device *dev)
{
	struct ibv_device_attr attr;
	struct ibv_context *ctx;
	int ret;

	/* Opening a device creates a kernel context for this process; every
	 * resource (PD, CQ, QP, MR) is created under one. */
	ctx = ibv_open_device(dev);
	if (!ctx) {
		fprintf(stderr, "ibv_open_device(%s): %s\n",
			ibv_get_device_name(dev), strerror(errno));
		return 1;
	}

	ret = ibv_query_device(ctx, &attr);
	if (ret) {
		fprintf(stderr, "ibv_query_device(%s): %s\n",
			ibv_get_device_name(dev), strerror(ret));
		goto out_close;
	}

	printf("hca_id:\t%s\n", ibv_get_device_name(dev));
	printf("\t%-16s%s (%d)\n", "transport:",
	       transport_str(dev->transport_type), dev->transport_type);
	printf("\t%-16s%s\n", "node_type:", ibv_node_type_str(dev->node_type));
	printf("\t%-16s%s\n", "fw_ver:", attr.fw_ver[0] ? attr.fw_ver : "-");
	print_guid("node_guid:", attr.node_guid);
	print_guid("sys_image_guid:", attr.sys_image_guid);
	printf("\t%-16s0x%04x\n", "vendor_id:", attr.vendor_id);
	printf("\t%-16s%u\n", "vendor_part_id:", attr.vendor_part_id);
	printf("\t%-16s0x%X\n", "hw_ver:", attr.hw_ver);
	printf("\t%-16s%d\n", "max_qp:", attr.max_qp);
	printf("\t%-16s%d\n", "max_qp_wr:", attr.max_qp_wr);
	printf("\t%-16s%d\n", "max_cq:", attr.max_cq);
	printf("\t%-16s%d\n", "max_mr:", attr.max_mr);
	printf("\t%-16s0x%" PRIx64 "\n", "max_mr_size:", attr.max_mr_size);
	printf("\t%-16s%u\n", "phys_port_cnt:", attr.phys_port_cnt);

	for (uint8_t port = 1; port <= attr.phys_port_cnt; port++) {
		ret = print_port(ctx, port);
		if (ret)
			break;
	}
	printf("\n");

out_close:
	ibv_close_device(ctx);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *wanted = argc > 1 ? argv[1] : NULL;
	struct ibv_device **list;
	int num, found = 0, failed = 0;

	if (argc > 2 || (wanted && wanted[0] == '-')) {
		fprintf(stderr, "usage: %s [device-name]\n", argv[0]);
		return 2;
	}

	/* The list is a snapshot: devices added later need a new call. */
	list = ibv_get_device_list(&num);
	if (!list) {
		fprintf(stderr, "ibv_get_device_list: %s\n", strerror(errno));
		return 1;
	}
	if (num == 0)
		printf("No RDMA devices found\n");

	for (int i = 0; i < num; i++) {
		if (wanted && strcmp(ibv_get_device_name(list[i]), wanted))
			continue;
		found = 1;
		failed |= print_device(list[i]);
	}
	if (wanted && !found) {
		fprintf(stderr, "device '%s' not found\n", wanted);
		failed = 1;
	}

	/* Every context is closed; the list and its devices can go. */
	ibv_free_device_list(list);
	return failed;
}
