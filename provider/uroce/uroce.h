/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* uroce: a RoCE v2 device that no kernel knows, over one network
 * interface of the process's network namespace (issue 38). softverbs
 * lists it itself (uroce_driver.c, the driver the core asks); the
 * device's answers are this provider's (uroce_verbs.c); what it says of
 * the interface under it, and the attributes it derives from it as the
 * kernel's rxe derives them, are uroce_netdev.c's.
 *
 * One file per stage, one index: each file's functions are listed here
 * under its name. */
#ifndef UROCE_H
#define UROCE_H

#include <net/if.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "provider.h"

/* The device names: uroce<N>, N the interface's place in SOFTVERBS_UROCE,
 * or as softverbs link configured them (uroce_dev_name_valid) */
#define UROCE_NAME_PREFIX "uroce"
/* How many interfaces SOFTVERBS_UROCE may name */
#define UROCE_MAX_DEVICES 64

/* ---- uroce_netdev.c: the interface and what rxe derives from it -------- */

struct uroce_netdev {
	char name[IF_NAMESIZE];
	unsigned int ifindex;
	unsigned int flags;   /* IFF_*, as SIOCGIFFLAGS gives them */
	unsigned int mtu;     /* bytes */
	uint8_t mac[6];       /* zero for an interface without one (lo) */
};

/* The kernel's rule for an interface name (dev_valid_name): 1 to
 * IF_NAMESIZE - 1 bytes, not "." or "..", no '/', ':' or white space. */
bool uroce_netdev_name_valid(const char *name);
/* The interface's facts now: 0, ENODEV when the namespace has no such
 * interface, or a positive errno. */
int uroce_netdev_query(const char *name, struct uroce_netdev *nd);
/* The node GUID (host order): the MAC as a modified EUI-64 (ff:fe in the
 * middle, the universal/local bit flipped), as rxe derives it. */
uint64_t uroce_guid_of_mac(const uint8_t mac[6]);
/* The port's active MTU for an interface MTU, as rxe derives it: the
 * largest IB MTU not above the interface MTU less rxe's 80 bytes of
 * headers, at most 4096, and 256 below 256. */
enum ibv_mtu uroce_active_mtu(unsigned int netdev_mtu);
/* ACTIVE when the interface is up and running (IFF_UP|IFF_RUNNING), else
 * DOWN; the physical state to go with it (LINK_UP, POLLING when up
 * without a link, DISABLED when down). */
enum ibv_port_state uroce_port_state(unsigned int flags);
uint8_t uroce_phys_state(unsigned int flags);
/* The GID table in rxe's order: index 0 the default GID (fe80::/64 with
 * the MAC's EUI-64), then every IPv4 address (v4-mapped, ::ffff:a.b.c.d),
 * then every IPv6 address, each in the order the kernel lists them, an
 * address already in the table not twice. Writes at most max entries:
 * their count, or a negative errno. */
ssize_t uroce_gid_table(const struct uroce_netdev *nd, union ibv_gid *gids,
			size_t max);

/* ---- uroce_verbs.c: the provider --------------------------------------- */

/* A PD: local, listed in its context so that closing frees it. */
struct uroce_pd {
	struct ibv_pd ibpd;
	struct uroce_pd *prev, *next; /* context's pd_lock */
};

struct uroce_context {
	struct sv_context sv;          /* first */
	char netdev[IF_NAMESIZE];      /* immutable after open */
	int async_wr_fd;               /* where async events will be written */
	pthread_mutex_t pd_lock;
	struct uroce_pd pds;           /* the list's head; pd_lock */
	uint32_t next_pd_handle;       /* pd_lock */
};

static inline struct uroce_context *to_uroce_context(struct ibv_context *ibctx)
{
	return container_of(sv_to_context(ibctx), struct uroce_context, sv);
}

extern const struct sv_provider uroce_provider;
/* The driver's open, after the core allocated ctx: the provider's part
 * (interface name, async event pipe, lists). 0 or a positive errno. */
int uroce_context_init(struct uroce_context *ctx, const char *netdev);
/* Free what the context still holds (its PDs, the pipe's write end). */
void uroce_context_release(struct uroce_context *ctx);
/* The GID entry of the device's interface now (the device hook). */
int uroce_query_gid(struct ibv_context *ibctx, uint32_t port_num,
		    uint32_t index, struct ibv_gid_entry *entry);

/* P_Key index of port 1 (the device hook): 0xffff at 0, ENOENT past it. */
int uroce_query_pkey(struct ibv_context *ibctx, uint8_t port_num, int index,
		     __be16 *pkey);

/* The attributes the device reports (also for tests, without a
 * context): device attributes of a device over nd; port 1's. */
void uroce_fill_device_attr(const struct uroce_netdev *nd,
			    struct ibv_device_attr_ex *attr);
void uroce_fill_port_attr(const struct uroce_netdev *nd,
			  struct ibv_port_attr *attr);

/* ---- uroce_driver.c: the driver (lib/registry.h) ------------------------- */

/* SOFTVERBS_UROCE's value as interface names, in order: each name's
 * place in the list is N of its uroce<N>; an empty or invalid item, a
 * name listed before and items past UROCE_MAX_DEVICES are complained of
 * and leave their place empty (""). Returns the number of places. */
size_t uroce_parse_list(const char *value,
			char names[][IF_NAMESIZE], size_t max);

/* A name softverbs link takes, the configured devices' rule: uroce
 * and a decimal number without a leading zero (uroce0, uroce12), fewer
 * than IBV_SYSFS_NAME_MAX bytes. */
bool uroce_dev_name_valid(const char *name);

#endif
