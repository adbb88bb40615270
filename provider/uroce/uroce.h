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
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "provider.h"

/* The device names: uroce<N>, N the interface's place in SOFTVERBS_UROCE,
 * or as softverbs link configured them (uroce_dev_name_valid) */
#define UROCE_NAME_PREFIX "uroce"
/* rxe's limits that the MR table and the CQs enforce (uroce_verbs.c
 * reports them with the rest) */
#define UROCE_MAX_CQE 32767            /* (1 << 15) - 1 */
#define UROCE_MAX_MR 524287
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
	/* destroyed CQs whose CQ_ERR event is still unread: freed at
	 * close, so that reading it touches no freed memory; pd_lock */
	struct uroce_cq *zombies;
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

/* ---- uroce_mr.c: memory regions, in a table of the process ------------- */

/* An MR. Its keys are its place in the table (uroce_mr.c says how):
 * lkey always, rkey the same value when it grants a remote access, else
 * 0 (rxe's rule). */
struct uroce_mr {
	struct sv_mr core;       /* first */
	/* the table's lock: they change under it (rereg) */
	struct ibv_pd *pd;
	uint8_t *addr;           /* where the MR's first byte is here */
	uint64_t iova;           /* its address for the peers */
	size_t length;           /* bytes */
	int access;              /* IBV_ACCESS_* */
	uint32_t slot;           /* immutable */
	unsigned int refs;       /* lookups in progress; the table's lock */
};

static inline struct uroce_mr *to_uroce_mr(struct ibv_mr *ibmr)
{
	return container_of(ibmr, struct uroce_mr, core.mr);
}

/* Why an access was refused (the responder NAKs with what rxe would) */
enum uroce_mr_fault {
	UROCE_MR_OK = 0,
	UROCE_MR_BAD_KEY,        /* no live MR has this key */
	UROCE_MR_BAD_PD,         /* the MR is another PD's */
	UROCE_MR_BAD_ACCESS,     /* the MR does not grant the access */
	UROCE_MR_BAD_RANGE,      /* [va, va + len) is not inside the MR */
};

/* The MR the key names, if it is pd's, grants every flag of access
 * (IBV_ACCESS_*; 0 for a local read) and holds [va, va + len): the MR
 * with a reference (uroce_mr_put), or NULL and *fault says why. A
 * zero-length access checks the key, PD and access flags and va <=
 * the MR's end; rxe's responder does not look up a zero-length RDMA
 * (C9-88), its caller decides. */
struct uroce_mr *uroce_mr_check(struct ibv_pd *pd, uint32_t key, uint64_t va,
				size_t len, int access,
				enum uroce_mr_fault *fault);
void uroce_mr_put(struct uroce_mr *mr);
/* Where byte va of a checked MR is (va inside the MR). */
static inline void *uroce_mr_ptr(const struct uroce_mr *mr, uint64_t va)
{
	return mr->addr + (va - mr->iova);
}
struct ibv_mr *uroce_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			    uint64_t hca_va, int access);
int uroce_rereg_mr(struct ibv_mr *ibmr, int flags, struct ibv_pd *pd,
		   void *addr, size_t length, int access);
int uroce_dereg_mr(struct ibv_mr *ibmr);
/* Deregister what a closing context left (its PDs' MRs). */
void uroce_mr_release_context(struct ibv_context *ibctx);
/* The key permutation (tests): a bijection of 32-bit values, secret
 * (keyed from getrandom at the first registration), and its inverse. */
uint32_t uroce_key_permute(uint32_t x);
uint32_t uroce_key_unpermute(uint32_t key);

/* ---- uroce_cq.c: completion queues and channels ------------------------ */

struct uroce_channel;

/* A CQ: a ring of work completions the engine fills (uroce_cq_push) and
 * the application polls. */
struct uroce_cq {
	struct sv_cq core;            /* first */
	pthread_mutex_t lock;
	struct ibv_wc *ring;          /* nslots entries; lock */
	uint32_t nslots;              /* a power of two, cqe + 1; lock */
	uint32_t head, tail;          /* consumer, producer counts; lock */
	int notify;                   /* 0, or UROCE_CQ_NOTIFY_*; lock */
	struct uroce_channel *channel;       /* immutable */
	/* the channel's event queue: the channel's lock */
	struct uroce_cq *ev_next;
	bool ev_queued;
	unsigned int comp_reported;   /* events read by the application */
	/* CQ_ERR events written and read (uroce_async_event) */
	unsigned int async_written;   /* lock */
	bool dead;                    /* destroyed; lock */
	_Atomic unsigned int async_reported;
	struct uroce_cq *zombie_next; /* the context's zombie list */
};
#define UROCE_CQ_NOTIFY_SOLICITED 1
#define UROCE_CQ_NOTIFY_NEXT 2

static inline struct uroce_cq *to_uroce_cq(struct ibv_cq *ibcq)
{
	return container_of(ibcq, struct uroce_cq, core.cq);
}

/* The engine's completion: 0, or EBUSY when the CQ is full: the
 * completion is dropped and the context gets an IBV_EVENT_CQ_ERR for
 * the CQ, as rxe does (rxe_cq_post); the caller moves its QP to the
 * error state. solicited: the
 * completion of a solicited message (a notify_cq(solicited_only) fires
 * for it). A notified CQ with a channel gets one event. */
int uroce_cq_push(struct uroce_cq *cq, const struct ibv_wc *wc,
		  bool solicited);
struct ibv_cq *uroce_create_cq(struct ibv_context *ibctx, int cqe,
			       struct ibv_comp_channel *channel,
			       int comp_vector);
int uroce_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc);
int uroce_req_notify_cq(struct ibv_cq *ibcq, int solicited_only);
int uroce_resize_cq(struct ibv_cq *ibcq, int cqe);
int uroce_destroy_cq(struct ibv_cq *ibcq);
/* ibv_get_async_event's notice: counts a CQ_ERR event as read. */
void uroce_async_event(struct ibv_context *ibctx, struct ibv_async_event *ev);
/* Free the CQs destroyed with an unread CQ_ERR event (a closing
 * context). */
void uroce_cq_release_context(struct ibv_context *ibctx);
/* The channel hooks (lib/registry.h) */
struct ibv_comp_channel *uroce_create_comp_channel(struct ibv_context *ibctx);
void uroce_destroy_comp_channel(struct ibv_comp_channel *ch);
int uroce_get_cq_event(struct ibv_comp_channel *ch, struct ibv_cq **cq);

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
