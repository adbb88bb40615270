/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The interface under a uroce device, and the attributes the kernel's
 * rxe derives from its interface, derived the same way (the facts, from
 * drivers/infiniband/sw/rxe and drivers/infiniband/core/roce_gid_mgmt.c,
 * are in doc/providers.md). Everything is read when asked: an interface
 * that goes down, changes its MTU or its addresses is seen at the next
 * query, as the kernel's device follows its netdev. No privilege needed:
 * SIOCGIF* ioctls and getifaddrs(3). */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "uroce.h"

bool uroce_netdev_name_valid(const char *name)
{
	size_t len = strlen(name);

	if (!len || len >= IF_NAMESIZE || !strcmp(name, ".") ||
	    !strcmp(name, ".."))
		return false;
	for (const char *c = name; *c; c++)
		if (*c == '/' || *c == ':' || isspace((unsigned char)*c))
			return false;
	return true;
}

/* One SIOCGIF* ioctl on the interface: 0 or a positive errno. */
static int ifreq_get(int fd, unsigned long request, const char *name,
		     struct ifreq *ifr)
{
	memset(ifr, 0, sizeof(*ifr));
	memcpy(ifr->ifr_name, name, strlen(name) + 1);
	return ioctl(fd, request, ifr) ? errno : 0;
}

int uroce_netdev_query(const char *name, struct uroce_netdev *nd)
{
	struct ifreq ifr;
	int fd, ret;

	if (!uroce_netdev_name_valid(name))
		return ENODEV;
	memset(nd, 0, sizeof(*nd));
	memcpy(nd->name, name, strlen(name) + 1);
	/* any socket reaches the interface ioctls; a namespace always has
	 * AF_UNIX, not always IPv4 */
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno;
	ret = ifreq_get(fd, SIOCGIFINDEX, name, &ifr);
	if (ret)
		goto out;
	nd->ifindex = (unsigned int)ifr.ifr_ifindex;
	ret = ifreq_get(fd, SIOCGIFFLAGS, name, &ifr);
	if (ret)
		goto out;
	nd->flags = (unsigned short)ifr.ifr_flags;
	ret = ifreq_get(fd, SIOCGIFMTU, name, &ifr);
	if (ret)
		goto out;
	nd->mtu = ifr.ifr_mtu > 0 ? (unsigned int)ifr.ifr_mtu : 0;
	ret = ifreq_get(fd, SIOCGIFHWADDR, name, &ifr);
	if (ret)
		goto out;
	/* an Ethernet-like address; an interface without one (a tunnel)
	 * is taken as lo is, all zero */
	if (ifr.ifr_hwaddr.sa_family == ARPHRD_ETHER ||
	    ifr.ifr_hwaddr.sa_family == ARPHRD_LOOPBACK)
		memcpy(nd->mac, ifr.ifr_hwaddr.sa_data, sizeof(nd->mac));
out:
	close(fd);
	/* the kernel's answer for a name it does not have */
	return ret == ENXIO || ret == ENOENT ? ENODEV : ret;
}

/* ---- what rxe derives -------------------------------------------------- */

uint64_t uroce_guid_of_mac(const uint8_t mac[6])
{
	uint8_t eui[8] = { mac[0] ^ 0x02, mac[1], mac[2], 0xff, 0xfe,
			   mac[3], mac[4], mac[5] };
	uint64_t guid = 0;

	for (int i = 0; i < 8; i++)
		guid = guid << 8 | eui[i];
	return guid;
}

/* rxe's RXE_MAX_HDR_LENGTH: what its packets add to a payload (Ethernet,
 * IPv6 and UDP headers, BTH and the largest extended header, ICRC) */
#define UROCE_RXE_HDR_BYTES 80

enum ibv_mtu uroce_active_mtu(unsigned int netdev_mtu)
{
	unsigned int room = netdev_mtu > UROCE_RXE_HDR_BYTES ?
		netdev_mtu - UROCE_RXE_HDR_BYTES : 0;

	if (room >= 4096)
		return IBV_MTU_4096;
	if (room >= 2048)
		return IBV_MTU_2048;
	if (room >= 1024)
		return IBV_MTU_1024;
	if (room >= 512)
		return IBV_MTU_512;
	/* rxe's smallest, also where the interface leaves less than 256 */
	return IBV_MTU_256;
}

static bool running(unsigned int flags)
{
	return (flags & (IFF_UP | IFF_RUNNING)) == (IFF_UP | IFF_RUNNING);
}

enum ibv_port_state uroce_port_state(unsigned int flags)
{
	return running(flags) ? IBV_PORT_ACTIVE : IBV_PORT_DOWN;
}

/* the IB physical port states ibv_devinfo names */
#define PHYS_STATE_POLLING 2
#define PHYS_STATE_DISABLED 3
#define PHYS_STATE_LINK_UP 5

uint8_t uroce_phys_state(unsigned int flags)
{
	if (running(flags))
		return PHYS_STATE_LINK_UP;
	return flags & IFF_UP ? PHYS_STATE_POLLING : PHYS_STATE_DISABLED;
}

/* ---- the GID table ------------------------------------------------------ */

/* An address of the interface: getifaddrs names an IPv4 address by its
 * label, which is the interface name or "name:alias". */
static bool of_netdev(const struct ifaddrs *ifa, const char *name)
{
	size_t len = strlen(name);

	return ifa->ifa_name && !strncmp(ifa->ifa_name, name, len) &&
	       (ifa->ifa_name[len] == '\0' || ifa->ifa_name[len] == ':');
}

/* Append a unless the list has it. 0, or -ENOSPC when full. */
static int addr_add(union uroce_sockaddr *addrs, size_t *n, size_t max,
		    const union uroce_sockaddr *a)
{
	for (size_t i = 0; i < *n; i++)
		if (uroce_sa_same_ip(&addrs[i], a))
			return 0;
	if (*n == max)
		return -ENOSPC;
	addrs[(*n)++] = *a;
	return 0;
}

ssize_t uroce_netdev_addrs(const struct uroce_netdev *nd,
			   union uroce_sockaddr *addrs, size_t max)
{
	static const int families[] = { AF_INET, AF_INET6 };
	struct ifaddrs *all;
	size_t n = 0;
	int ret = 0;

	if (getifaddrs(&all))
		return -errno;
	/* all IPv4 addresses first, then IPv6 (the kernel's
	 * enum_netdev_ipv4_ips, then enum_netdev_ipv6_ips) */
	for (size_t f = 0; !ret && f < sizeof(families) / sizeof(families[0]);
	     f++) {
		for (struct ifaddrs *ifa = all; !ret && ifa; ifa = ifa->ifa_next) {
			union uroce_sockaddr a;

			if (!ifa->ifa_addr || ifa->ifa_addr->sa_family != families[f] ||
			    !of_netdev(ifa, nd->name))
				continue;
			memset(&a, 0, sizeof(a));
			if (families[f] == AF_INET) {
				memcpy(&a.sin, ifa->ifa_addr, sizeof(a.sin));
				a.sin.sin_port = htons(UROCE_UDP_PORT);
			} else {
				union ibv_gid gid;

				memcpy(gid.raw, &((const struct sockaddr_in6 *)
						  ifa->ifa_addr)->sin6_addr, 16);
				uroce_sa_of_gid(&gid, nd->ifindex, &a);
			}
			ret = addr_add(addrs, &n, max, &a);
		}
	}
	freeifaddrs(all);
	/* a full list keeps what fits, as the kernel's GID table does */
	return (ssize_t)n;
}

/* Append gid unless the table has it. */
static void gid_add(union ibv_gid *gids, size_t *n, size_t max,
		    const union ibv_gid *gid)
{
	for (size_t i = 0; i < *n; i++)
		if (!memcmp(&gids[i], gid, sizeof(*gid)))
			return;
	if (*n < max)
		gids[(*n)++] = *gid;
}

/* the GID table holds at most this many entries (and the interface
 * as many addresses) */
#define MAX_ADDRS 64

ssize_t uroce_gid_table(const struct uroce_netdev *nd, union ibv_gid *gids,
			size_t max)
{
	union uroce_sockaddr addrs[MAX_ADDRS];
	union ibv_gid gid;
	size_t n = 0;
	ssize_t na;

	/* the default GID: the link-local prefix and the MAC's EUI-64 */
	memset(&gid, 0, sizeof(gid));
	gid.global.subnet_prefix = htobe64(0xfe80000000000000ULL);
	gid.global.interface_id = htobe64(uroce_guid_of_mac(nd->mac));
	if (max == 0)
		return 0;
	gids[n++] = gid;

	na = uroce_netdev_addrs(nd, addrs, MAX_ADDRS);
	if (na < 0)
		return na;
	for (ssize_t i = 0; i < na; i++) {
		memset(&gid, 0, sizeof(gid));
		if (addrs[i].sa.sa_family == AF_INET) {
			gid.raw[10] = 0xff;
			gid.raw[11] = 0xff;
			memcpy(&gid.raw[12], &addrs[i].sin.sin_addr, 4);
		} else {
			memcpy(gid.raw, &addrs[i].sin6.sin6_addr, 16);
		}
		/* a full table keeps what fits, as the kernel's does */
		gid_add(gids, &n, max, &gid);
	}
	return (ssize_t)n;
}

/* ---- addresses ------------------------------------------------------------ */

void uroce_sa_of_gid(const union ibv_gid *gid, unsigned int ifindex,
		     union uroce_sockaddr *sa)
{
	static const uint8_t v4[12] = { [10] = 0xff, [11] = 0xff };

	memset(sa, 0, sizeof(*sa));
	if (!memcmp(gid->raw, v4, sizeof(v4))) {
		sa->sin.sin_family = AF_INET;
		sa->sin.sin_port = htons(UROCE_UDP_PORT);
		memcpy(&sa->sin.sin_addr, gid->raw + 12, 4);
		return;
	}
	sa->sin6.sin6_family = AF_INET6;
	sa->sin6.sin6_port = htons(UROCE_UDP_PORT);
	memcpy(&sa->sin6.sin6_addr, gid->raw, 16);
	/* fe80::/10 means nothing without the link it is on */
	if (IN6_IS_ADDR_LINKLOCAL(&sa->sin6.sin6_addr))
		sa->sin6.sin6_scope_id = ifindex;
}

socklen_t uroce_sa_len(const union uroce_sockaddr *sa)
{
	return sa->sa.sa_family == AF_INET6 ? sizeof(sa->sin6) : sizeof(sa->sin);
}

bool uroce_sa_same_ip(const union uroce_sockaddr *a,
		      const union uroce_sockaddr *b)
{
	if (a->sa.sa_family != b->sa.sa_family)
		return false;
	if (a->sa.sa_family == AF_INET6)
		return !memcmp(&a->sin6.sin6_addr, &b->sin6.sin6_addr, 16);
	return a->sin.sin_addr.s_addr == b->sin.sin_addr.s_addr;
}

const char *uroce_sa_str(const union uroce_sockaddr *sa, char *buf)
{
	char ifname[IF_NAMESIZE];
	size_t n;

	if (sa->sa.sa_family != AF_INET6) {
		inet_ntop(AF_INET, &sa->sin.sin_addr, buf, UROCE_SA_STRLEN);
		return buf;
	}
	inet_ntop(AF_INET6, &sa->sin6.sin6_addr, buf, UROCE_SA_STRLEN);
	n = strlen(buf);
	if (sa->sin6.sin6_scope_id) {
		if (if_indextoname(sa->sin6.sin6_scope_id, ifname))
			snprintf(buf + n, UROCE_SA_STRLEN - n, "%%%s", ifname);
		else
			snprintf(buf + n, UROCE_SA_STRLEN - n, "%%%u",
				 sa->sin6.sin6_scope_id);
	}
	return buf;
}
