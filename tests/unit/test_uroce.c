/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* uroce's device without a kernel, on the host (no VM, no RDMA in the
 * kernel, no root needed): the interface facts and what rxe derives from
 * them (node GUID, active MTU, port state, the GID table on lo), the
 * SOFTVERBS_UROCE list, and the device as a program sees it through the
 * verbs (listed, named, opened, queried, a PD, closed). */
#include "config.h"

#include <arpa/inet.h>
#include <check.h>
#include <endian.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "../check_main.h"
#include "uroce_isolate.h"
#include "core.h"
#include "uroce.h"

/* ---- derivations ------------------------------------------------------------ */

START_TEST(guid_is_the_mac_eui64)
{
	const uint8_t zero[6] = { 0 };
	const uint8_t mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
	const uint8_t local[6] = { 0x02, 0xfc, 0x00, 0x00, 0x00, 0x01 };

	/* what rxe0 on lo reports: node_guid 0200:00ff:fe00:0000 */
	ck_assert_uint_eq(uroce_guid_of_mac(zero), 0x020000fffe000000ULL);
	ck_assert_uint_eq(uroce_guid_of_mac(mac), 0x505400fffe123456ULL);
	ck_assert_uint_eq(uroce_guid_of_mac(local), 0x00fc00fffe000001ULL);
}
END_TEST

START_TEST(active_mtu_as_rxe)
{
	/* the interface MTU less rxe's 80 bytes of headers */
	ck_assert_int_eq(uroce_active_mtu(65536), IBV_MTU_4096); /* lo */
	ck_assert_int_eq(uroce_active_mtu(9000), IBV_MTU_4096);
	ck_assert_int_eq(uroce_active_mtu(4176), IBV_MTU_4096);
	ck_assert_int_eq(uroce_active_mtu(4175), IBV_MTU_2048);
	ck_assert_int_eq(uroce_active_mtu(1500), IBV_MTU_1024);
	ck_assert_int_eq(uroce_active_mtu(1400), IBV_MTU_1024);
	ck_assert_int_eq(uroce_active_mtu(1103), IBV_MTU_512);
	ck_assert_int_eq(uroce_active_mtu(592), IBV_MTU_512);
	ck_assert_int_eq(uroce_active_mtu(591), IBV_MTU_256);
	ck_assert_int_eq(uroce_active_mtu(68), IBV_MTU_256);
	ck_assert_int_eq(uroce_active_mtu(0), IBV_MTU_256);
}
END_TEST

START_TEST(port_state_from_flags)
{
	ck_assert_int_eq(uroce_port_state(IFF_UP | IFF_RUNNING), IBV_PORT_ACTIVE);
	ck_assert_int_eq(uroce_port_state(IFF_UP), IBV_PORT_DOWN);
	ck_assert_int_eq(uroce_port_state(IFF_RUNNING), IBV_PORT_DOWN);
	ck_assert_int_eq(uroce_port_state(0), IBV_PORT_DOWN);
	ck_assert_uint_eq(uroce_phys_state(IFF_UP | IFF_RUNNING), 5); /* LINK_UP */
	ck_assert_uint_eq(uroce_phys_state(IFF_UP), 2);               /* POLLING */
	ck_assert_uint_eq(uroce_phys_state(0), 3);                    /* DISABLED */
}
END_TEST

START_TEST(interface_names)
{
	ck_assert(uroce_netdev_name_valid("lo"));
	ck_assert(uroce_netdev_name_valid("veth-a.10"));
	ck_assert(uroce_netdev_name_valid("abcdefghijklmno")); /* 15 */
	ck_assert(!uroce_netdev_name_valid("abcdefghijklmnop"));
	ck_assert(!uroce_netdev_name_valid(""));
	ck_assert(!uroce_netdev_name_valid("."));
	ck_assert(!uroce_netdev_name_valid(".."));
	ck_assert(!uroce_netdev_name_valid("a/b"));
	ck_assert(!uroce_netdev_name_valid("eth0:1"));
	ck_assert(!uroce_netdev_name_valid("a b"));
	ck_assert(!uroce_netdev_name_valid("a\nb"));
}
END_TEST

START_TEST(the_list)
{
	char names[8][IF_NAMESIZE];
	size_t n;

	/* each item keeps its place: uroce<N> is the Nth item */
	n = uroce_parse_list("lo,,a/b,lo,eth0", names, 8);
	ck_assert_uint_eq(n, 5);
	ck_assert_str_eq(names[0], "lo");
	ck_assert_str_eq(names[1], "");
	ck_assert_str_eq(names[2], "");
	ck_assert_str_eq(names[3], ""); /* lo twice */
	ck_assert_str_eq(names[4], "eth0");
	n = uroce_parse_list("lo", names, 8);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(names[0], "lo");
	n = uroce_parse_list("a,b,c", names, 2);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(names[1], "b");
}
END_TEST

/* ---- the interface lo --------------------------------------------------------- */

static unsigned int lo_mtu(void)
{
	FILE *f = fopen("/sys/class/net/lo/mtu", "r");
	unsigned int mtu = 0;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%u", &mtu), 1);
	fclose(f);
	return mtu;
}

/* lo has ::1 (IPv6 not disabled in this namespace) */
static int lo_has_ipv6(void)
{
	FILE *f = fopen("/proc/net/if_inet6", "r");
	char line[256];
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, "00000000000000000000000000000001 ", 33);
	fclose(f);
	return found;
}

static void assert_gid(const union ibv_gid *gid, const char *text)
{
	union ibv_gid want;
	char got[INET6_ADDRSTRLEN];

	ck_assert_int_eq(inet_pton(AF_INET6, text, want.raw), 1);
	inet_ntop(AF_INET6, gid->raw, got, sizeof(got));
	ck_assert_msg(!memcmp(gid->raw, want.raw, 16), "GID %s, want %s", got,
		      text);
}

START_TEST(lo_facts)
{
	struct uroce_netdev nd;
	const uint8_t zero[6] = { 0 };

	ck_assert_int_eq(uroce_netdev_query("lo", &nd), 0);
	ck_assert_str_eq(nd.name, "lo");
	ck_assert_uint_eq(nd.ifindex, if_nametoindex("lo"));
	ck_assert_uint_eq(nd.flags & (IFF_UP | IFF_RUNNING | IFF_LOOPBACK),
			  IFF_UP | IFF_RUNNING | IFF_LOOPBACK);
	ck_assert_uint_eq(nd.mtu, lo_mtu());
	ck_assert_mem_eq(nd.mac, zero, 6);
	ck_assert_int_eq(uroce_netdev_query("nosuchif0", &nd), ENODEV);
	ck_assert_int_eq(uroce_netdev_query("a/b", &nd), ENODEV);
}
END_TEST

START_TEST(lo_gid_table)
{
	struct uroce_netdev nd;
	union ibv_gid gids[16];
	ssize_t n;

	ck_assert_int_eq(uroce_netdev_query("lo", &nd), 0);
	n = uroce_gid_table(&nd, gids, 16);
	/* rxe0 on lo: fe80::200:ff:fe00:0, ::ffff:127.0.0.1, ::1 */
	ck_assert_int_eq(n, lo_has_ipv6() ? 3 : 2);
	assert_gid(&gids[0], "fe80::200:ff:fe00:0");
	assert_gid(&gids[1], "::ffff:127.0.0.1");
	if (n == 3)
		assert_gid(&gids[2], "::1");
	/* a short table keeps the first entries */
	ck_assert_int_eq(uroce_gid_table(&nd, gids, 1), 1);
	assert_gid(&gids[0], "fe80::200:ff:fe00:0");
	ck_assert_int_eq(uroce_gid_table(&nd, gids, 0), 0);
}
END_TEST

START_TEST(lo_attributes)
{
	struct ibv_device_attr_ex d;
	struct ibv_port_attr p;
	struct uroce_netdev nd;

	ck_assert_int_eq(uroce_netdev_query("lo", &nd), 0);
	uroce_fill_device_attr(&nd, &d);
	ck_assert_uint_eq(be64toh(d.orig_attr.node_guid), 0x020000fffe000000ULL);
	ck_assert_uint_eq(d.orig_attr.sys_image_guid, d.orig_attr.node_guid);
	ck_assert_uint_eq(d.orig_attr.phys_port_cnt, 1);
	ck_assert_uint_eq(d.orig_attr.vendor_id, 0xffffff);
	ck_assert_int_eq(d.orig_attr.max_qp_wr, 1048576);
	ck_assert_int_eq(d.orig_attr.max_cqe, 32767);
	ck_assert_int_eq(d.orig_attr.max_sge, 32);
	ck_assert_str_eq(d.orig_attr.fw_ver, PACKAGE_VERSION);
	uroce_fill_port_attr(&nd, &p);
	ck_assert_int_eq(p.state, IBV_PORT_ACTIVE);
	ck_assert_int_eq(p.active_mtu, uroce_active_mtu(lo_mtu()));
	ck_assert_int_eq(p.max_mtu, IBV_MTU_4096);
	ck_assert_int_eq(p.link_layer, IBV_LINK_LAYER_ETHERNET);
	ck_assert_int_eq(p.gid_tbl_len, 1024);
	ck_assert_uint_eq(p.max_msg_sz, 0x800000);
	ck_assert_uint_eq(p.port_cap_flags, IBV_PORT_CM_SUP);
}
END_TEST

/* ---- through the verbs (SOFTVERBS_UROCE=lo,nosuchif0) --------------------------- */
/* The library reads SOFTVERBS_UROCE once per process: each test sets it
 * in its own forked child (Check's fork mode, the runner's default). */

static struct ibv_device *find(struct ibv_device **list, const char *name)
{
	for (; list && *list; list++)
		if (!strcmp(ibv_get_device_name(*list), name))
			return *list;
	return NULL;
}

START_TEST(listed_and_opened)
{
	struct ibv_device **list, **again;
	struct ibv_device *dev;
	struct ibv_context *ctx;
	struct ibv_port_attr pattr;
	struct ibv_device_attr dattr;
	struct ibv_gid_entry e, table[8];
	union ibv_gid gid;
	struct ibv_pd *pd, *kept;
	__be16 pkey;
	ssize_t n;

	setenv("SOFTVERBS_UROCE", "lo,nosuchif0", 1);
	list = ibv_get_device_list(NULL);
	ck_assert_ptr_nonnull(list);
	dev = find(list, "uroce0");
	ck_assert_ptr_nonnull(dev);
	/* the unknown interface's place stays empty */
	ck_assert_ptr_null(find(list, "uroce1"));
	ck_assert_int_eq(dev->node_type, IBV_NODE_CA);
	ck_assert_int_eq(dev->transport_type, IBV_TRANSPORT_IB);
	ck_assert_uint_eq(be64toh(ibv_get_device_guid(dev)), 0x020000fffe000000ULL);
	ck_assert_int_eq(ibv_get_device_index(dev), -1);
	ck_assert_str_eq(dev->dev_name, "uroce0");
	ck_assert_str_eq(dev->dev_path, "");
	ck_assert_str_eq(dev->ibdev_path, "");
	/* the same device object at the next listing */
	again = ibv_get_device_list(NULL);
	ck_assert_ptr_eq(find(again, "uroce0"), dev);
	ibv_free_device_list(again);

	ctx = ibv_open_device(dev);
	ck_assert_ptr_nonnull(ctx);
	ck_assert_int_ge(ctx->async_fd, 0);
	ck_assert_int_eq(ctx->num_comp_vectors, 1);
	ck_assert_int_eq(ibv_query_device(ctx, &dattr), 0);
	ck_assert_uint_eq(dattr.node_guid, ibv_get_device_guid(dev));
	ck_assert_int_eq(ibv_query_port(ctx, 1, &pattr), 0);
	ck_assert_int_eq(pattr.state, IBV_PORT_ACTIVE);
	ck_assert_int_eq(pattr.link_layer, IBV_LINK_LAYER_ETHERNET);
	ck_assert_int_eq(ibv_query_port(ctx, 2, &pattr), EINVAL);

	ck_assert_int_eq(ibv_query_gid(ctx, 1, 1, &gid), 0);
	assert_gid(&gid, "::ffff:127.0.0.1");
	ck_assert_int_eq(ibv_query_gid_ex(ctx, 1, 0, &e, 0), 0);
	assert_gid(&e.gid, "fe80::200:ff:fe00:0");
	ck_assert_int_eq(e.gid_type, IBV_GID_TYPE_ROCE_V2);
	ck_assert_uint_eq(e.ndev_ifindex, if_nametoindex("lo"));
	ck_assert_uint_eq(e.port_num, 1);
	/* an empty entry: ENODATA, and the zero GID for ibv_query_gid */
	ck_assert_int_eq(ibv_query_gid_ex(ctx, 1, 100, &e, 0), ENODATA);
	ck_assert_int_eq(ibv_query_gid(ctx, 1, 100, &gid), 0);
	assert_gid(&gid, "::");
	n = ibv_query_gid_table(ctx, table, 8, 0);
	ck_assert_int_eq(n, lo_has_ipv6() ? 3 : 2);
	ck_assert_uint_eq(table[1].gid_index, 1);
	assert_gid(&table[1].gid, "::ffff:127.0.0.1");
	ck_assert_int_eq(ibv_query_gid_table(ctx, table, 1, 0), -EINVAL);

	/* rxe's one P_Key, and the end of the table as sysfs says it */
	ck_assert_int_eq(ibv_query_pkey(ctx, 1, 0, &pkey), 0);
	ck_assert_uint_eq(be16toh(pkey), 0xffff);
	ck_assert_int_eq(ibv_query_pkey(ctx, 1, 1, &pkey), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_int_eq(ibv_get_pkey_index(ctx, 1, htobe16(0xffff)), 0);

	pd = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(pd);
	ck_assert_ptr_eq(pd->context, ctx);
	kept = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(kept);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	/* a window, left for the close too */
	ck_assert_ptr_nonnull(ibv_alloc_mw(kept, IBV_MW_TYPE_1));
	/* closing frees what is left (kept, its window) */
	ck_assert_int_eq(ibv_close_device(ctx), 0);
	ibv_free_device_list(list);
}
END_TEST

START_TEST(nothing_without_the_variable)
{
	struct ibv_device **list;

	unsetenv("SOFTVERBS_UROCE");
	/* nor from the kept devices: not the developer's own uroce.conf */
	setenv("XDG_CONFIG_HOME", "/nonexistent/softverbs-test", 1);
	setenv("SOFTVERBS_SYSCONFDIR", "/nonexistent/softverbs-test", 1);
	list = ibv_get_device_list(NULL);
	/* a host without RDMA: ENOSYS as before; else no uroce device */
	if (!list)
		ck_assert_int_eq(errno, ENOSYS);
	ck_assert_ptr_null(find(list, "uroce0"));
	ibv_free_device_list(list);
}
END_TEST

START_TEST(privileged_ignores_it)
{
	struct ibv_device **list;

	setenv("SOFTVERBS_UROCE", "lo", 1);
	sv_env_force_secure(1);
	list = ibv_get_device_list(NULL);
	ck_assert_ptr_null(find(list, "uroce0"));
	ibv_free_device_list(list);
	sv_env_force_secure(-1);
}
END_TEST

static Suite *make_uroce_suite(void)
{
	Suite *s = suite_create("uroce");
	TCase *tc;

	tc = tcase_create("derivations");
	tcase_add_test(tc, guid_is_the_mac_eui64);
	tcase_add_test(tc, active_mtu_as_rxe);
	tcase_add_test(tc, port_state_from_flags);
	tcase_add_test(tc, interface_names);
	tcase_add_test(tc, the_list);
	suite_add_tcase(s, tc);

	tc = tcase_create("lo");
	tcase_add_test(tc, lo_facts);
	tcase_add_test(tc, lo_gid_table);
	tcase_add_test(tc, lo_attributes);
	suite_add_tcase(s, tc);

	tc = tcase_create("verbs");
	tcase_add_test(tc, listed_and_opened);
	tcase_add_test(tc, nothing_without_the_variable);
	tcase_add_test(tc, privileged_ignores_it);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	uroce_isolate();
	return check_run(make_uroce_suite());
}
