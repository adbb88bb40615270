/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* ibv_resolve_eth_l2_from_gid: the Ethernet address (and VLAN) of a RoCE
 * destination, for providers whose hardware needs it in every address
 * handle (libvmw_pvrdma, libmlx4 ...; softverbs' own rxe lets the kernel
 * resolve). As rdma-core does: a link-local destination GID carries its
 * MAC (modified EUI-64), a multicast GID maps to a multicast MAC, any
 * other is looked up in the kernel's neighbour table on the netdev of the
 * source GID — through the gateway when the destination is not on-link —
 * after provoking resolution with one UDP datagram when the entry is
 * missing. rtnetlink, no libnl. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_link.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core.h"
#include "netlink.h"

/* No VLAN: what callers compare against 0xfff */
#define NO_VLAN 0xffff

struct ip_addr {
	int family;        /* AF_INET or AF_INET6 */
	uint8_t addr[16];  /* 4 or 16 bytes used */
	size_t len;
};

static void ip_of_gid(const union ibv_gid *gid, struct ip_addr *ip)
{
	static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };

	memset(ip, 0, sizeof(*ip));
	if (!memcmp(gid->raw, v4mapped, sizeof(v4mapped))) {
		ip->family = AF_INET;
		ip->len = 4;
		memcpy(ip->addr, gid->raw + 12, 4);
	} else {
		ip->family = AF_INET6;
		ip->len = 16;
		memcpy(ip->addr, gid->raw, 16);
	}
}

/* fe80::/64 with a modified EUI-64 interface id: the MAC is inside. */
static int link_local_mac(const union ibv_gid *gid, uint8_t mac[6])
{
	const uint8_t *g = gid->raw;

	if (g[0] != 0xfe || (g[1] & 0xc0) != 0x80)
		return 0;
	for (int i = 2; i < 8; i++)
		if (g[i])
			return 0;
	mac[0] = g[8] ^ 0x02;
	mac[1] = g[9];
	mac[2] = g[10];
	mac[3] = g[13];
	mac[4] = g[14];
	mac[5] = g[15];
	return 1;
}

static int multicast_mac(const struct ip_addr *ip, uint8_t mac[6])
{
	if (ip->family == AF_INET && (ip->addr[0] & 0xf0) == 0xe0) {
		mac[0] = 0x01;
		mac[1] = 0x00;
		mac[2] = 0x5e;
		mac[3] = ip->addr[1] & 0x7f;
		mac[4] = ip->addr[2];
		mac[5] = ip->addr[3];
		return 1;
	}
	if (ip->family == AF_INET6 && ip->addr[0] == 0xff) {
		mac[0] = 0x33;
		mac[1] = 0x33;
		memcpy(mac + 2, ip->addr + 12, 4);
		return 1;
	}
	return 0;
}

/* ---- rtnetlink ---------------------------------------------------------- */

struct neigh_query {
	const struct ip_addr *dst;
	int ifindex;
	uint8_t mac[6];
	int found;    /* a usable entry */
};

static int neigh_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct neigh_query *q = arg;
	const struct nlattr *tb[NDA_MAX + 1];
	const struct ndmsg *nd = NLMSG_DATA(nlh);
	const struct nlattr *dst, *ll;

	if (nlh->nlmsg_type != RTM_NEWNEIGH ||
	    nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*nd)))
		return 0;
	if (nd->ndm_family != q->dst->family || nd->ndm_ifindex != q->ifindex)
		return 0;
	if (!(nd->ndm_state & (NUD_REACHABLE | NUD_PERMANENT | NUD_STALE |
			       NUD_DELAY | NUD_PROBE | NUD_NOARP)))
		return 0;
	sv_nl_parse_at(nlh, sizeof(*nd), tb, NDA_MAX);
	dst = tb[NDA_DST];
	ll = tb[NDA_LLADDR];
	if (!dst || dst->nla_len != NLA_HDRLEN + q->dst->len ||
	    memcmp((const char *)dst + NLA_HDRLEN, q->dst->addr, q->dst->len))
		return 0;
	if (!ll || ll->nla_len != NLA_HDRLEN + 6)
		return 0;
	memcpy(q->mac, (const char *)ll + NLA_HDRLEN, 6);
	q->found = 1;
	return 0;
}

static int neigh_lookup(const struct ip_addr *dst, int ifindex, uint8_t mac[6])
{
	struct {
		struct nlmsghdr nlh;
		struct ndmsg nd;
	} req;
	struct neigh_query q = { .dst = dst, .ifindex = ifindex };
	int ret;

	memset(&req, 0, sizeof(req));
	req.nlh.nlmsg_len = sizeof(req);
	req.nlh.nlmsg_type = RTM_GETNEIGH;
	req.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.nd.ndm_family = (uint8_t)dst->family;
	ret = sv_nl_route(&req, sizeof(req), neigh_cb, &q);
	if (ret)
		return ret;
	if (!q.found)
		return -ENOENT;
	memcpy(mac, q.mac, 6);
	return 0;
}

struct route_query {
	struct ip_addr gw;
	int oif;
	int have_gw;
};

static int route_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct route_query *q = arg;
	const struct nlattr *tb[RTA_MAX + 1];
	const struct rtmsg *rt = NLMSG_DATA(nlh);
	const struct nlattr *gw;

	if (nlh->nlmsg_type != RTM_NEWROUTE ||
	    nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*rt)))
		return 0;
	sv_nl_parse_at(nlh, sizeof(*rt), tb, RTA_MAX);
	q->oif = (int)sv_nla_u32(tb[RTA_OIF]);
	gw = tb[RTA_GATEWAY];
	if (gw && (gw->nla_len == NLA_HDRLEN + 4 || gw->nla_len == NLA_HDRLEN + 16)) {
		q->gw.family = rt->rtm_family;
		q->gw.len = gw->nla_len - NLA_HDRLEN;
		memcpy(q->gw.addr, (const char *)gw + NLA_HDRLEN, q->gw.len);
		q->have_gw = 1;
	}
	return 0;
}

/* The next hop towards dst: dst itself when it is on-link, else the
 * route's gateway. */
static int next_hop(const struct ip_addr *dst, struct ip_addr *hop)
{
	struct {
		struct nlmsghdr nlh;
		struct rtmsg rt;
		char attrs[NLA_HDRLEN + 16];
	} req;
	struct nlattr *a = (struct nlattr *)req.attrs;
	struct route_query q = { .oif = 0 };
	int ret;

	memset(&req, 0, sizeof(req));
	req.rt.rtm_family = (uint8_t)dst->family;
	req.rt.rtm_dst_len = (uint8_t)(dst->len * 8);
	a->nla_type = RTA_DST;
	a->nla_len = (uint16_t)(NLA_HDRLEN + dst->len);
	memcpy(req.attrs + NLA_HDRLEN, dst->addr, dst->len);
	req.nlh.nlmsg_len = (uint32_t)(NLMSG_LENGTH(sizeof(req.rt)) +
				       NLA_ALIGN(a->nla_len));
	req.nlh.nlmsg_type = RTM_GETROUTE;
	/* one answer, then the ACK that ends the exchange */
	req.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	ret = sv_nl_route(&req, req.nlh.nlmsg_len, route_cb, &q);
	if (ret)
		return ret;
	*hop = q.have_gw ? q.gw : *dst;
	return 0;
}

struct link_query {
	int is_vlan;
	uint16_t vid;
};

static int link_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct link_query *q = arg;
	const struct nlattr *tb[IFLA_MAX + 1], *info[IFLA_INFO_MAX + 1];
	const struct nlattr *vlan[IFLA_VLAN_MAX + 1];
	const struct ifinfomsg *ifi = NLMSG_DATA(nlh);
	const char *kind;

	if (nlh->nlmsg_type != RTM_NEWLINK ||
	    nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
		return 0;
	sv_nl_parse_at(nlh, sizeof(*ifi), tb, IFLA_MAX);
	if (!tb[IFLA_LINKINFO])
		return 0;
	/* nested attributes: parse them as a message of their own */
	{
		const struct nlattr *li = tb[IFLA_LINKINFO];
		struct nlmsghdr fake = {
			.nlmsg_len = (uint32_t)(NLMSG_HDRLEN + li->nla_len - NLA_HDRLEN),
		};
		char buf[1024] __attribute__((aligned(8)));

		if ((size_t)li->nla_len > sizeof(buf) - NLMSG_HDRLEN)
			return 0;
		memcpy(buf, &fake, NLMSG_HDRLEN);
		memcpy(buf + NLMSG_HDRLEN, (const char *)li + NLA_HDRLEN,
		       li->nla_len - NLA_HDRLEN);
		sv_nl_parse((const struct nlmsghdr *)buf, info, IFLA_INFO_MAX);
		kind = sv_nla_str(info[IFLA_INFO_KIND]);
		if (!kind || strcmp(kind, "vlan") || !info[IFLA_INFO_DATA])
			return 0;
		li = info[IFLA_INFO_DATA];
		fake.nlmsg_len = (uint32_t)(NLMSG_HDRLEN + li->nla_len - NLA_HDRLEN);
		memmove(buf + NLMSG_HDRLEN, (const char *)li + NLA_HDRLEN,
			li->nla_len - NLA_HDRLEN);
		memcpy(buf, &fake, NLMSG_HDRLEN);
		sv_nl_parse((const struct nlmsghdr *)buf, vlan, IFLA_VLAN_MAX);
		if (vlan[IFLA_VLAN_ID]) {
			const uint8_t *p = (const uint8_t *)vlan[IFLA_VLAN_ID] +
					   NLA_HDRLEN;

			q->is_vlan = 1;
			q->vid = (uint16_t)(p[0] | p[1] << 8) & 0xfff;
		}
	}
	return 0;
}

static uint16_t vlan_of(int ifindex)
{
	struct {
		struct nlmsghdr nlh;
		struct ifinfomsg ifi;
	} req;
	struct link_query q = { 0 };

	memset(&req, 0, sizeof(req));
	req.nlh.nlmsg_len = sizeof(req);
	req.nlh.nlmsg_type = RTM_GETLINK;
	req.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req.ifi.ifi_family = AF_UNSPEC;
	req.ifi.ifi_index = ifindex;
	if (sv_nl_route(&req, sizeof(req), link_cb, &q))
		return NO_VLAN;
	return q.is_vlan ? q.vid : NO_VLAN;
}

/* One UDP datagram to dst out of ifindex makes the kernel resolve it. */
static void provoke_resolution(const struct ip_addr *dst, int ifindex)
{
	char ifname[IF_NAMESIZE];
	int fd = socket(dst->family, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return;
	if (if_indextoname((unsigned int)ifindex, ifname))
		setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, ifname,
			   (socklen_t)strlen(ifname) + 1);
	if (dst->family == AF_INET) {
		struct sockaddr_in sin = { .sin_family = AF_INET,
					   .sin_port = htons(9) };

		memcpy(&sin.sin_addr, dst->addr, 4);
		sendto(fd, "", 0, MSG_DONTWAIT, (struct sockaddr *)&sin,
		       sizeof(sin));
	} else {
		struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6,
					     .sin6_port = htons(9),
					     .sin6_scope_id = (uint32_t)ifindex };

		memcpy(&sin6.sin6_addr, dst->addr, 16);
		sendto(fd, "", 0, MSG_DONTWAIT, (struct sockaddr *)&sin6,
		       sizeof(sin6));
	}
	close(fd);
}

SV_EXPORT int ibv_resolve_eth_l2_from_gid(struct ibv_context *context,
					  struct ibv_ah_attr *attr,
					  uint8_t eth_mac[6], uint16_t *vid)
{
	struct ip_addr dst, hop;
	struct ibv_gid_entry sgid;
	int ret;

	if (!context || context->abi_compat != __VERBS_ABI_IS_EXTENDED ||
	    !attr || !eth_mac)
		return EINVAL;
	if (!attr->is_global) {
		sv_err("resolving a RoCE address needs a GRH (is_global)");
		return EINVAL;
	}
	ret = sv_query_gid_entry(context, attr->port_num,
				 attr->grh.sgid_index, &sgid);
	if (ret) {
		sv_err("source GID %u of port %u: %s", attr->grh.sgid_index,
		       attr->port_num, strerror(ret));
		return ret;
	}
	ip_of_gid(&attr->grh.dgid, &dst);
	if (link_local_mac(&attr->grh.dgid, eth_mac) ||
	    multicast_mac(&dst, eth_mac))
		goto out;
	if (!sgid.ndev_ifindex) {
		sv_err("source GID %u of port %u has no netdev", attr->grh.sgid_index,
		       attr->port_num);
		return ENODEV;
	}
	ret = next_hop(&dst, &hop);
	if (ret) {
		sv_dbg("no route to the destination (%d); asking its neighbour entry", ret);
		hop = dst;
	}
	ret = neigh_lookup(&hop, (int)sgid.ndev_ifindex, eth_mac);
	/* not resolved yet: ask the kernel to, and wait up to a second */
	for (int i = 0; ret == -ENOENT && i < 100; i++) {
		if (i % 25 == 0)
			provoke_resolution(&dst, (int)sgid.ndev_ifindex);
		poll(NULL, 0, 10);
		ret = neigh_lookup(&hop, (int)sgid.ndev_ifindex, eth_mac);
	}
	if (ret) {
		sv_err("no Ethernet address for the destination GID on ifindex %u: %s",
		       sgid.ndev_ifindex, strerror(-ret));
		return ret == -ENOENT ? EHOSTUNREACH : -ret;
	}
out:
	/* the VLAN is the source netdev's */
	if (vid)
		*vid = sgid.ndev_ifindex ? vlan_of((int)sgid.ndev_ifindex) : NO_VLAN;
	return 0;
}
