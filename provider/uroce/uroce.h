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
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "provider.h"
#include "wire.h"

/* The device names: uroce<N>, N the interface's place in SOFTVERBS_UROCE,
 * or as softverbs link configured them (uroce_dev_name_valid) */
#define UROCE_NAME_PREFIX "uroce"
/* rxe's limits that the MR table, the CQs and the SRQs enforce
 * (uroce_verbs.c reports them with the rest) */
#define UROCE_MAX_CQE 32767            /* (1 << 15) - 1 */
#define UROCE_MAX_MR 524287
#define UROCE_MAX_MW 524287             /* RXE_MAX_MW */
#define UROCE_MAX_SRQ_WR 1048576
#define UROCE_MAX_SRQ_SGE 27
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

/* An address of the interface or of a peer, IPv4 or IPv6, with its
 * port (UDP 4791) */
union uroce_sockaddr {
	struct sockaddr sa;
	struct sockaddr_in sin;
	struct sockaddr_in6 sin6;
};
/* Where a connected QP or an address handle sends: from one of the
 * interface's addresses (the AV's sgid) to the peer's (its dgid), one
 * family */
struct uroce_route {
	union uroce_sockaddr src, dst;
};
/* The interface's addresses in its GID table's order (every IPv4
 * address, then every IPv6 one, none twice; the default GID is one of
 * them only when the interface has that link-local address): port
 * 4791, link-local IPv6 ones with the interface's index as their scope.
 * Their count (at most max), or a negative errno. */
ssize_t uroce_netdev_addrs(const struct uroce_netdev *nd,
			   union uroce_sockaddr *addrs, size_t max);
/* The address a RoCE v2 GID names (IPv4-mapped: IPv4, else IPv6, scope
 * ifindex when link-local), port 4791 */
void uroce_sa_of_gid(const union ibv_gid *gid, unsigned int ifindex,
		     union uroce_sockaddr *sa);
/* Its length for bind/sendto */
socklen_t uroce_sa_len(const union uroce_sockaddr *sa);
/* Same family and address (ports and scopes not compared) */
bool uroce_sa_same_ip(const union uroce_sockaddr *a,
		      const union uroce_sockaddr *b);
/* The address as text, into buf (UROCE_SA_STRLEN bytes): buf */
#define UROCE_SA_STRLEN (INET6_ADDRSTRLEN + 16)
const char *uroce_sa_str(const union uroce_sockaddr *sa, char *buf);

/* ---- uroce_counters.c: the counters, visible while the process runs ---- */

/* rxe's hw_counters (rxe_hw_counters.c), by their names, then uroce's
 * own: the datagrams its socket took for its QPNs, those it forwarded,
 * and why it dropped those it dropped (uroce_counters.c names the
 * reasons of enum uroce_drop: drop_icrc, drop_short, ...). */
#define UROCE_COUNTERS(X) \
	X(SENT_PKTS, "sent_pkts") \
	X(RCVD_PKTS, "rcvd_pkts") \
	X(DUP_REQ, "duplicate_request") \
	X(OUT_OF_SEQ_REQ, "out_of_seq_request") \
	X(RCV_RNR, "rcvd_rnr_err") \
	X(SND_RNR, "send_rnr_err") \
	X(RCV_SEQ_ERR, "rcvd_seq_err") \
	X(ACK_DEFERRED, "ack_deferred") \
	X(RETRY_EXCEEDED, "retry_exceeded_err") \
	X(RNR_RETRY_EXCEEDED, "retry_rnr_exceeded_err") \
	X(COMP_RETRY, "completer_retry_err") \
	X(SEND_ERR, "send_err") \
	X(LINK_DOWNED, "link_downed") \
	X(RDMA_SEND, "rdma_sends") \
	X(RDMA_RECV, "rdma_recvs") \
	X(RCVD_DATAGRAMS, "rcvd_datagrams") \
	X(FORWARDED, "forwarded_pkts") \
	X(UNKNOWN_QPN, "drop_unknown_qpn")

enum uroce_ctr {
#define UROCE_CTR_ENUM(name, text) UROCE_CTR_##name,
	UROCE_COUNTERS(UROCE_CTR_ENUM)
#undef UROCE_CTR_ENUM
	/* then one per drop reason (uroce_ctr_of_drop) */
	UROCE_CTR_DROP,
	UROCE_CTR_COUNT = UROCE_CTR_DROP + UROCE_DROP_COUNT - 1
};

/* The counter of a drop reason (not UROCE_DROP_OK) */
static inline enum uroce_ctr uroce_ctr_of_drop(enum uroce_drop why)
{
	return (enum uroce_ctr)(UROCE_CTR_DROP + why - 1);
}

/* The values: in a file of the user's runtime folder, mapped shared,
 * that softverbs link show -s reads (uroce_counters.c says how), or in
 * the process's memory when there is no such file. */
struct uroce_counters {
	_Atomic uint64_t v[UROCE_CTR_COUNT];
};

/* The name of counter c ("sent_pkts", "drop_icrc", ...) */
const char *uroce_ctr_name(enum uroce_ctr c);

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
	struct uroce_srq *srqs;        /* live SRQs (freed at close); pd_lock */
	/* the engine: its QPs (uroce_qp.c), its socket and progress thread
	 * (uroce_net.c), all set up with the first QP */
	pthread_mutex_t qp_lock;       /* the progress thread handles each
					* packet under it */
	struct uroce_qp **qps;         /* by QPN's low 16 bits; qp_lock */
	uint32_t next_qpn;             /* low 16 bits to try next; qp_lock */
	struct uroce_net *net;         /* NULL until the first QP; qp_lock */
	struct uroce_qp *rc_qps;       /* RC QPs (their timers); qp_lock */
	/* the counters (uroce_counters.c): set with the engine, NULL
	 * before; the values are atomics, counted from any thread */
	struct uroce_counters *ctr;
	struct uroce_ctr_file *ctr_file;
};

static inline struct uroce_context *to_uroce_context(struct ibv_context *ibctx)
{
	return container_of(sv_to_context(ibctx), struct uroce_context, sv);
}

/* Count one of c (relaxed: the counts order nothing) */
static inline void uroce_count(struct uroce_context *ctx, enum uroce_ctr c)
{
	if (ctx->ctr)
		atomic_fetch_add_explicit(&ctx->ctr->v[c], 1,
					  memory_order_relaxed);
}

static inline uint64_t uroce_ctr_get(const struct uroce_context *ctx,
				     enum uroce_ctr c)
{
	return ctx->ctr ? atomic_load_explicit(&ctx->ctr->v[c],
					       memory_order_relaxed) : 0;
}

/* The context's counters, with its engine (uroce_net.c, qp_lock held):
 * a new file in dir, the user's private folder of the forwarding
 * sockets, that names the device, its interface, the network namespace
 * (ns_ino) and the counters, mapped shared; the process's memory when
 * the file cannot be made (logged). 0 or ENOMEM. */
int uroce_counters_open(struct uroce_context *ctx, const char *dir,
			unsigned long long ns_ino);
/* Remove the file (not from a forked child: its parent's), unmap. */
void uroce_counters_close(struct uroce_context *ctx);

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
	unsigned int nmw;        /* memory windows bound to it; the table's lock */
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
/* The same for the windows' 24-bit tags (uroce_mw.c) */
uint32_t uroce_mw_tag_permute(uint32_t x);
uint32_t uroce_mw_tag_unpermute(uint32_t tag);
/* 0 once the keys' secret is drawn, else getrandom's errno */
int uroce_key_secret_ready(void);
/* The table's lock (the windows' table lives under it too), and the
 * live MR of a key with that lock held (NULL: none) */
void uroce_mr_lock(void);
void uroce_mr_unlock(void);
struct uroce_mr *uroce_mr_find_locked(uint32_t key);

/* ---- uroce_mw.c: memory windows ------------------------------------------ */

struct uroce_qp;

enum uroce_mw_state {
	UROCE_MW_VALID,          /* type 1 always; type 2 once bound */
	UROCE_MW_FREE,           /* type 2: unbound (new, or invalidated) */
};

/* A memory window: in a table of the process under the MR table's
 * lock; its rkey is its 24-bit tag and the bind's 8-bit key
 * (uroce_mw.c says how) */
struct uroce_mw {
	struct ibv_mw ibmw;      /* first */
	struct ibv_pd *pd;       /* immutable */
	enum ibv_mw_type type;   /* immutable */
	uint32_t slot;           /* immutable */
	/* the MR table's lock: */
	uint32_t rkey;           /* the key a peer must use now */
	enum uroce_mw_state state;
	struct uroce_mr *mr;     /* bound to (its nmw counts it), or NULL */
	struct uroce_qp *qp;     /* type 2: the QP it was bound through */
	uint64_t addr, length;   /* the window (zero based: addr is the
				  * offset in the MR's iova space) */
	int access;              /* IBV_ACCESS_* the bind granted */
};

static inline struct uroce_mw *to_uroce_mw(struct ibv_mw *ibmw)
{
	return container_of(ibmw, struct uroce_mw, ibmw);
}

/* What a BIND_MW WQE carries (rxe's struct rxe_send_wr's mw part) */
struct uroce_bind {
	uint32_t mw_rkey;        /* the window's current rkey */
	uint32_t new_rkey;       /* its low 8 bits: the new key portion */
	uint32_t mr_lkey;        /* with length: the MR to bind to */
	uint64_t addr, length;
	int access;              /* IBV_ACCESS_* */
};

struct ibv_mw *uroce_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int uroce_dealloc_mw(struct ibv_mw *ibmw);
/* ibv_bind_mw (type 1): checks, then a BIND_MW WQE (uroce_post_bind) */
int uroce_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *ibmw,
		  struct ibv_mw_bind *mw_bind);
/* Execute a bind for qp (the QP's lock held): 0, or EINVAL/EOPNOTSUPP
 * (logged; the WQE completes with IBV_WC_MW_BIND_ERR). */
int uroce_mw_bind(struct uroce_qp *qp, const struct uroce_bind *b);
/* Invalidate the type 2 window of rkey (LOCAL_INV, SEND with
 * invalidate): 0, or EINVAL when rkey names no bound type 2 window
 * (an MR's key included, as rxe). */
int uroce_mw_invalidate(uint32_t rkey);
/* The responder's check of a remote access (READ, WRITE, atomics) to
 * [va, va + len) with rkey: through a window (its rkey, PD, QP for type
 * 2, rights and range) or an MR (uroce_mr_check with the QP's PD). The
 * MR with a reference (uroce_mr_put) and in *mr_va where va is in the
 * MR's iova space, or NULL and *fault says why. */
struct uroce_mr *uroce_rkey_check(struct uroce_qp *qp, uint32_t rkey,
				  uint64_t va, size_t len, int access,
				  uint64_t *mr_va, enum uroce_mr_fault *fault);
/* Is tag the top 24 bits of a live window's rkey? (MR table lock held) */
bool uroce_mw_tag_live(uint32_t tag);
/* A destroyed QP: type 2 windows bound through it match no QP again */
void uroce_mw_forget_qp(struct uroce_qp *qp);
/* Free what a closing context's windows hold (before its MRs) */
void uroce_mw_release_context(struct ibv_context *ibctx);

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
	_Atomic unsigned int qp_refs; /* QPs that complete into it */
	/* ibv_create_cq_ex's polling (uroce_cq.c): poll_lock held from
	 * start_poll to end_poll; cur the completion taken last */
	pthread_mutex_t poll_lock;
	struct ibv_wc cur;            /* poll_lock */
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

/* ---- uroce_qp.c: queue pairs -------------------------------------------- */

/* QPNs: the context's slot (uroce_net.c: its socket's index in the
 * SO_REUSEPORT group when it joined) in the top 8 bits, so that the
 * kernel's demultiplexer finds the socket from the BTH; a number of the
 * context in the low 16 bits, from 16 (rxe's QPNs
 * start at 17; 0 and 1 are the SMI and GSI QPs). */
#define UROCE_QPN_SLOT_SHIFT 16
#define UROCE_QPN_LOW_MASK 0xffffu
#define UROCE_QPN_LOW_MIN 16
/* rxe's inline limit: the room of RXE_MAX_SGE SGEs in a send WQE */
#define UROCE_MAX_INLINE 512

struct uroce_rwqe {
	uint64_t wr_id;
	uint32_t num_sge;
	struct ibv_sge *sge;           /* cap.max_recv_sge entries */
};

/* ---- uroce_srq.c: shared receive queues --------------------------------- */

struct uroce_srq {
	struct sv_srq core;            /* first */
	struct uroce_context *ctx;     /* immutable */
	uint32_t max_sge;              /* immutable */
	pthread_mutex_t lock;
	/* a ring of slots, [head, tail) posted; lock */
	struct uroce_rwqe *rq;
	struct ibv_sge *rq_sge;
	uint32_t slots, head, tail;
	uint32_t limit;                /* srq_limit, 0: disarmed; lock */
	unsigned int async_written;    /* LIMIT_REACHED events; lock */
	_Atomic unsigned int qp_refs;  /* QPs created with it */
	struct uroce_srq *next;        /* the context's list; its pd_lock */
};

static inline struct uroce_srq *to_uroce_srq(struct ibv_srq *ibsrq)
{
	return container_of(ibsrq, struct uroce_srq, core.srq);
}

struct ibv_srq *uroce_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr);
struct ibv_srq *uroce_create_srq_ex(struct ibv_context *ibctx,
				    struct ibv_srq_init_attr_ex *attr);
int uroce_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		     int attr_mask);
int uroce_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr);
int uroce_destroy_srq(struct ibv_srq *ibsrq);
int uroce_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr);
/* Free what a closing context's SRQs hold (after its QPs). */
void uroce_srq_release_context(struct uroce_context *ctx);
/* Move the SRQ's head WQE into *into (its sge array room for the SRQ's
 * max_sge): false when the SRQ is empty. Fires the limit event. */
bool uroce_srq_take(struct uroce_srq *srq, struct uroce_rwqe *into);

/* A send WR, its message gathered into data at post time (kept until the
 * peer acknowledges it: a retransmission sends it again). */
struct uroce_swqe {
	uint64_t wr_id;
	enum ibv_wr_opcode opcode;
	bool signaled;
	bool solicited;
	__be32 imm;
	uint64_t remote_va;
	uint32_t rkey;
	uint8_t *data;                 /* READ, atomics: the num_sge SGEs */
	uint32_t num_sge;              /* READ, atomics */
	uint32_t len;                  /* bytes (FLUSH: the range's; it
					* carries none) */
	uint32_t first_psn, last_psn;  /* RC: the PSNs it took */
	uint32_t read_psn;             /* READ, atomics: the response PSN
					* expected (last_psn + 1: all came) */
	uint64_t compare_add, swap;    /* atomics: the AtomicETH's operands */
	uint32_t inv_rkey;             /* SEND_WITH_INV: the IETH's rkey */
	uint8_t flush_type;            /* FLUSH: the FETH's placement type */
	uint8_t flush_level;           /* FLUSH: its selectivity level */
	bool local;                    /* LOCAL_INV, BIND_MW: no packet; it
					* completes with the WQE before it */
	/* RC requester's windows (uroce_req.c) */
	bool fence;                    /* IBV_SEND_FENCE: sent once every
					* WQE before it completed (rxe) */
	bool rd_slot;                  /* READ, atomics, ATOMIC WRITE: holds
					* one of the max_rd_atomic slots */
};

/* The responder's READ and atomic resources (rxe's resp.resources): a
 * ring of max_dest_rd_atomic of them (rounded up to a power of two, as
 * rxe), each READ or atomic executed taking the oldest one's place. A
 * duplicate request is answered only while its resource is there (rxe's
 * class D otherwise: dropped): a READ again from its own RETH, if that
 * lies inside the first one's range; an atomic with the value it first
 * returned, never executed twice (IBTA 9.7.5.1.3, C9-110). A requester
 * that keeps at most max_rd_atomic outstanding, no more than the
 * responder's max_dest_rd_atomic, finds every retried one there. */
#define UROCE_RD_RES 128               /* rxe's max_qp_rd_atom */
struct uroce_rd_res {
	bool valid;
	bool read;                     /* a READ, else an atomic... */
	bool empty;                    /* ...or an ATOMIC WRITE or a FLUSH
					* (answered with an empty READ
					* RESPONSE) */
	uint32_t first_psn, last_psn;  /* the PSNs its answer takes */
	uint64_t va;                   /* READ: the RETH's range */
	uint32_t len;
	uint64_t orig;                 /* atomic: what it returned */
};

/* The message the responder is receiving (RC, UC). */
struct uroce_resp_msg {
	bool active;                   /* between FIRST and LAST */
	bool dropping;                 /* UC: the rest of a broken message */
	bool write;                    /* RDMA WRITE, else SEND */
	bool have_wqe;                 /* the head receive WQE is in use */
	uint32_t offset;               /* SEND: bytes placed so far */
	uint32_t length;               /* WRITE: the RETH's length */
	uint64_t va;                   /* WRITE: where the next byte goes */
	uint32_t rkey;
	uint32_t resid;                /* WRITE: bytes the RETH still allows */
};

struct uroce_qp {
	struct sv_qp core;             /* first */
	struct uroce_context *ctx;     /* immutable */
	struct ibv_qp_cap cap;         /* immutable: what create granted */
	bool sq_sig_all;               /* immutable */
	uint32_t ud_mtu;               /* bytes: the port's active MTU at
					* create (UD messages); immutable */
	pthread_mutex_t lock;
	/* the rest: lock */
	struct ibv_qp_attr attr;       /* what modify_qp set (query_qp) */
	struct uroce_route peer;       /* RC, UC: the AV's addresses */
	/* send queue: a ring of sq_slots, [sq_head, sq_tail) posted */
	struct uroce_swqe *sq;
	uint32_t sq_slots, sq_head, sq_tail;
	uint32_t sq_psn;               /* the next PSN to send */
	/* receive queue */
	struct uroce_rwqe *rq;
	struct ibv_sge *rq_sge;
	uint32_t rq_slots, rq_head, rq_tail;
	/* responder */
	uint32_t rq_psn;               /* the PSN expected next */
	uint32_t msn;                  /* messages completed (AETH) */
	bool nak_sent;                 /* one PSN-sequence NAK per gap */
	struct uroce_resp_msg resp;
	/* with an SRQ (srq immutable): the WQE taken from it while
	 * resp.have_wqe; its sge array is srq->max_sge long */
	struct uroce_srq *srq;
	struct uroce_rwqe srq_wqe;
	struct uroce_rd_res rd_res[UROCE_RD_RES];
	uint32_t rd_res_next;          /* the one the next READ or atomic
					* takes (mod max_dest_rd_atomic) */
	/* RC requester's timer: a CLOCK_MONOTONIC deadline (0: none) for a
	 * retransmission, or after an RNR NAK (rnr_wait) for sending again
	 * from rnr_psn; the retries left (retry_cnt, rnr_retry; 7:
	 * unlimited, as rxe) */
	uint64_t timer_ns;
	bool rnr_wait;
	uint32_t rnr_psn;
	uint8_t retry_left, rnr_left;
	/* a retry began (a PSN-sequence NAK or the timer) and no ACK came
	 * since: later NAKs start none (rxe's comp.started_retry) */
	bool retry_started;
	struct uroce_qp *rc_next;      /* the context's RC QPs; qp_lock */
	/* ibv_wr_*'s batch (uroce_qp_ex.c): NULL without send_ops_flags;
	 * immutable pointer, the batch has its own lock */
	struct uroce_wr_batch *batch;
	/* RC requester's windows (uroce_req.c): the next packet to send is
	 * packet cur_pkt of WQE sq_cur (sq_head <= sq_cur <= sq_tail; a
	 * READ or an atomic is one unit, its request); acked_psn the oldest
	 * PSN not yet acknowledged; rd_out the WQEs holding a rd_slot;
	 * noack_pkts the packets sent since the last AckReq */
	uint32_t sq_cur, cur_pkt;
	uint32_t acked_psn;
	uint32_t rd_out;
	uint32_t noack_pkts;
};

static inline struct uroce_qp *to_uroce_qp(struct ibv_qp *ibqp)
{
	return container_of(ibqp, struct uroce_qp, core.qp);
}

static inline uint32_t uroce_psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & UROCE_PSN_MASK;
}

/* a - b in the 24-bit PSN space, as a signed distance */
static inline int32_t uroce_psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

struct ibv_qp *uroce_create_qp_ex(struct ibv_context *ibctx,
				  struct ibv_qp_init_attr_ex *attr);
struct ibv_qp *uroce_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
int uroce_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		    int attr_mask);
int uroce_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask, struct ibv_qp_init_attr *init_attr);
int uroce_destroy_qp(struct ibv_qp *ibqp);
/* The QP of a QPN in the context (qp_lock held), or NULL. */
struct uroce_qp *uroce_qp_find(struct uroce_context *ctx, uint32_t qpn);
/* Move a QP to the error state and flush its queues with
 * IBV_WC_WR_FLUSH_ERR (the QP's lock held). */
void uroce_qp_to_error(struct uroce_qp *qp);
/* Complete a send WQE with status into the send CQ (the QP's lock
 * held); successful ones only when signaled. */
void uroce_complete_send(struct uroce_qp *qp, const struct uroce_swqe *wqe,
			 enum ibv_wc_status status);
/* Free what a closing context's QPs hold (after the engine stopped). */
void uroce_qp_release_context(struct uroce_context *ctx);

/* ---- uroce_ah.c: address handles ---------------------------------------- */

struct uroce_ah {
	struct ibv_ah ibah;            /* first */
	struct uroce_route route;      /* immutable */
	union ibv_gid dgid;
};

static inline struct uroce_ah *to_uroce_ah(struct ibv_ah *ibah)
{
	return container_of(ibah, struct uroce_ah, ibah);
}

/* The addresses of an AV (the sgid's and the dgid's): 0, or EINVAL
 * (logged) when the AV has no GRH, names another port, an sgid_index
 * with no GID, or GIDs of two families; once the context's sockets are
 * open, also when no socket of the context is bound to the sgid's
 * address, and the error of its socket when it could not be opened
 * (EADDRINUSE: another user holds the port there). */
int uroce_av_resolve(struct uroce_context *ctx, const struct ibv_ah_attr *av,
		     struct uroce_route *route);
struct ibv_ah *uroce_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr);
int uroce_destroy_ah(struct ibv_ah *ibah);

/* ---- uroce_net.c: the socket on UDP 4791 and the progress thread ----------- */

struct uroce_net;
/* The context's sockets (one per address of the interface) and progress
 * thread, once (ctx->qp_lock held): 0 or a positive errno (logged:
 * EADDRINUSE names who holds the port on the first address). */
int uroce_net_start(struct uroce_context *ctx);
/* Stop and join the thread, close the socket (a forked child only closes
 * its copies). */
void uroce_net_stop(struct uroce_context *ctx);
/* The context's slot (the QPNs' top bits). */
uint32_t uroce_net_slot(const struct uroce_context *ctx);
/* Can the context send from src (ctx->qp_lock held)? 0, EINVAL when
 * none of its sockets is bound to that address, or the error that kept
 * the socket for it from opening (each logged). */
int uroce_net_check_src(struct uroce_context *ctx,
			const union uroce_sockaddr *src);
/* Fill the ICRC of a built packet of len bytes for route->dst and send
 * it from route->src: 0 or a positive errno (logged). */
int uroce_net_send(struct uroce_context *ctx, const struct uroce_route *route,
		   uint8_t *pkt, size_t len);
/* A datagram for one of the context's QPs, from src to dst (qp_lock
 * held): parsed, its ICRC checked, handed to its QP's requester (an
 * ACK) or responder (a request). UROCE_DROP_OK when a QP took it,
 * UROCE_DROP_COUNT when no QP has its number, else why it was dropped.
 * What the progress thread does after the socket read; it touches no
 * socket itself (tests/fuzz/fuzz_uroce_resp enters here). */
enum uroce_drop uroce_net_deliver(struct uroce_context *ctx, const uint8_t *buf,
				  size_t len, const union uroce_sockaddr *src,
				  const union uroce_sockaddr *dst);
/* Handle the datagrams waiting on the socket, a few at most, in the
 * caller's thread (an ibv_poll_cq that found nothing; no lock held). */
void uroce_net_progress(struct uroce_context *ctx);
/* Packets dropped, by reason (tests, counters) */
uint64_t uroce_net_drops(struct uroce_context *ctx, enum uroce_drop why);

/* ---- uroce_fault.c: faults on demand (SOFTVERBS_UROCE_FAULTS) ------------ */

/* What SOFTVERBS_UROCE_FAULTS asks for: probabilities as thresholds of a
 * 32-bit draw (p * 2^32: 0 never, 2^32 always), the delay of every
 * packet, the seed. */
struct uroce_fault_conf {
	uint64_t loss, dup, reorder, corrupt;
	uint32_t delay_us;
	uint64_t seed;
};
/* Parse the variable's value (loss=P,dup=P,reorder=P,delay=US,
 * corrupt=P,seed=N in any order, each at most once): 0, or EINVAL with
 * a complaint naming the item. */
int uroce_fault_parse(const char *value, struct uroce_fault_conf *conf);

/* What happens to one packet (a mask) */
#define UROCE_FAULT_LOSS 1u
#define UROCE_FAULT_DUP 2u
#define UROCE_FAULT_REORDER 4u
#define UROCE_FAULT_CORRUPT 8u
/* The generator: splitmix64, one state per context. */
struct uroce_fault_rng {
	uint64_t s;
};
void uroce_fault_rng_seed(struct uroce_fault_rng *rng, uint64_t seed,
			  uint32_t ctx_no);
/* The faults of the next packet (five draws, whatever comes of them,
 * so that the n-th packet's fate depends on seed and n alone); *bit:
 * a draw for the bit a corruption flips. */
unsigned int uroce_fault_decide(const struct uroce_fault_conf *conf,
				struct uroce_fault_rng *rng, uint32_t *bit);

/* A context's faults: its generator, the delayed and held-back
 * packets, the timer that releases them. wire sends one packet as it
 * is (the socket, the capture). */
typedef int (*uroce_wire_fn)(struct uroce_context *ctx,
			     const struct uroce_route *route,
			     const uint8_t *pkt, size_t len);
struct uroce_fault;
/* SOFTVERBS_UROCE_FAULTS for a starting context: NULL when unset, empty,
 * invalid (complained of) or in a privileged process. */
struct uroce_fault *uroce_fault_open(struct uroce_context *ctx,
				     uroce_wire_fn wire);
/* Send everything still delayed or held back when send_held, else
 * drop it (the progress thread stopped); then free the faults (after
 * their summary). */
void uroce_fault_drain(struct uroce_fault *f, bool send_held);
void uroce_fault_free(struct uroce_fault *f);
/* A packet with its ICRC, through the faults (any thread; the caller's
 * locks may be held: the fault's own lock is the innermost): 0, or the
 * error of a send made now. */
int uroce_fault_send(struct uroce_fault *f, const struct uroce_route *route,
		     const uint8_t *pkt, size_t len);
/* The timer the progress thread polls (-1 for none) and what it does
 * when the timer fires: send what is due. */
int uroce_fault_timer_fd(const struct uroce_fault *f);
void uroce_fault_flush(struct uroce_fault *f);
/* One line of what the faults did (the context's close logs it, the
 * progress thread stopped) */
void uroce_fault_summary(const struct uroce_fault *f, char *buf, size_t cap);

/* ---- uroce_pcap.c: captures on demand (SOFTVERBS_UROCE_PCAP) -------------- */

struct uroce_pcap;
/* SOFTVERBS_UROCE_PCAP for a starting context: a new pcap file (%p the
 * pid, %h the host name, %% a %; the process's second capture and later
 * ones take a suffix .1, .2, ...), or NULL when unset, in a privileged
 * process, or when it cannot be created (logged). */
struct uroce_pcap *uroce_pcap_open(const char *netdev);
/* One packet (BTH to ICRC, as sent or received) from src to dst, with
 * an IPv4 or IPv6 header and a UDP header in front (any thread). */
void uroce_pcap_write(struct uroce_pcap *pc, const union uroce_sockaddr *src,
		      const union uroce_sockaddr *dst, const uint8_t *pkt,
		      size_t len);
void uroce_pcap_close(struct uroce_pcap *pc);

/* ---- uroce_req.c: the requester ------------------------------------------- */

int uroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr);
/* Post a BIND_MW WQE (ibv_bind_mw's type 1 bind): 0 or a positive
 * errno, as post_send's. */
int uroce_post_bind(struct uroce_qp *qp, uint64_t wr_id, int send_flags,
		    const struct uroce_bind *b);
/* An ACK or NAK for the QP (the progress thread; qp_lock and the QP's
 * lock held). */
void uroce_req_ack(struct uroce_qp *qp, const struct uroce_pkt *pkt);
/* The QP's timer at now (CLOCK_MONOTONIC ns; the QP's lock held): when
 * due, send again, or complete with RETRY_EXC_ERR / RNR_RETRY_EXC_ERR
 * once the retries are spent. */
void uroce_req_timer(struct uroce_qp *qp, uint64_t now);
/* How often the progress thread looks at the timers while the context
 * has RC QPs (the shortest retransmit timeout it honours) */
#define UROCE_TIMER_TICK_NS 10000000ull
/* Every RC QP's timer (the progress thread, qp_lock held). */
void uroce_req_timers(struct uroce_context *ctx);

/* The RC requester's windows, as rxe's (rxe_param.h, rxe_req.c): a
 * packet is sent only while its PSN is at most UROCE_MAX_UNACKED_PSNS
 * past the oldest unacknowledged one; at most max_rd_atomic (rounded up
 * to a power of two, as rxe rounds it) READ/atomic WQEs outstanding, the
 * WQEs behind a waiting one waiting too; a fenced WQE waits until every
 * WQE before it completed; AckReq on a message's last packet and on the
 * packet after UROCE_MAX_PKT_PER_ACK + 1 without one. */
#define UROCE_MAX_UNACKED_PSNS 128
#define UROCE_MAX_PKT_PER_ACK 64
/* Forget what the windows hold (the QP's lock held): a QP moved to
 * RESET or to the error state (its send queue emptied), or given a new
 * sq_psn. */
void uroce_req_reset(struct uroce_qp *qp);

/* ---- uroce_resp.c: the responder ------------------------------------------- */

int uroce_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr);
/* Copy len bytes to offset off of the buffers num_sge SGEs describe:
 * IBV_WC_SUCCESS, LOC_LEN_ERR past their end, LOC_PROT_ERR when an SGE
 * is not inside a locally writable MR of the QP's PD. */
enum ibv_wc_status uroce_scatter(struct uroce_qp *qp, const struct ibv_sge *sge,
				 uint32_t num_sge, uint32_t off,
				 const uint8_t *data, uint32_t len);
/* A request for the QP (the progress thread; qp_lock and the QP's lock
 * held); src the sender's address, dst the one it reached. */
void uroce_resp_request(struct uroce_qp *qp, const struct uroce_pkt *pkt,
			const union uroce_sockaddr *src,
			const union uroce_sockaddr *dst);

/* ---- the extended verbs: ibv_create_cq_ex, the ibv_wr_* API ------------- */

/* uroce_cq.c: a CQ polled with start_poll/next_poll/end_poll as well as
 * ibv_poll_cq; rxe's wc_flags (byte_len, imm, qp_num, src_qp, slid, sl,
 * dlid_path_bits), others EOPNOTSUPP as rdma-core's rxe. */
struct ibv_cq_ex *uroce_create_cq_ex(struct ibv_context *ibctx,
				     struct ibv_cq_init_attr_ex *attr);

/* uroce_qp_ex.c: the send_ops_flags (IBV_QP_EX_WITH_*) a QP of type
 * takes: the opcodes uroce_post_send supports on it. */
uint64_t uroce_qp_ex_ops(enum ibv_qp_type type);
/* Give a QP created with send_ops_flags its ibv_wr_* functions and its
 * batch: 0 or ENOMEM. */
int uroce_qp_ex_init(struct uroce_qp *qp);
/* Free the QP's batch (none: nothing). */
void uroce_qp_ex_fini(struct uroce_qp *qp);

/* uroce_req.c: post a list of WRs all or nothing (ibv_wr_complete):
 * each checked as ibv_post_send checks it, and room in the send queue
 * for all of them, before the first is posted. 0, or the first error
 * and nothing posted. */
int uroce_post_send_all(struct uroce_qp *qp, struct ibv_send_wr *wr);

/* A FLUSH in such a list (ibv_wr_flush; an ibv_send_wr has no fields
 * for it, and uroce_post_send refuses opcode SV_WR_FLUSH): wr.atomic's
 * remote_addr and rkey name the range's start and key, compare_add is
 * its length (at most UINT32_MAX: the RETH's), swap the FETH's
 * placement type (low byte) and selectivity level (next byte). */
static inline void uroce_flush_wr_set(struct ibv_send_wr *wr, uint32_t rkey,
				      uint64_t remote_addr, uint32_t len,
				      uint8_t type, uint8_t level)
{
	wr->opcode = (enum ibv_wr_opcode)SV_WR_FLUSH;
	wr->wr.atomic.remote_addr = remote_addr;
	wr->wr.atomic.rkey = rkey;
	wr->wr.atomic.compare_add = len;
	wr->wr.atomic.swap = (uint64_t)type | (uint64_t)level << 8;
}

static inline uint32_t uroce_flush_wr_len(const struct ibv_send_wr *wr)
{
	return (uint32_t)wr->wr.atomic.compare_add;
}

static inline uint8_t uroce_flush_wr_type(const struct ibv_send_wr *wr)
{
	return (uint8_t)wr->wr.atomic.swap;
}

static inline uint8_t uroce_flush_wr_level(const struct ibv_send_wr *wr)
{
	return (uint8_t)(wr->wr.atomic.swap >> 8);
}

/* ---- uroce_driver.c: the driver (lib/registry.h) ------------------------- */

/* SOFTVERBS_UROCE's value as interface names, in order: each name's
 * place in the list is N of its uroce<N>; an empty or invalid item, a
 * name listed before and items past UROCE_MAX_DEVICES are complained of
 * and leave their place empty (""). Returns the number of places. */
size_t uroce_parse_list(const char *value,
			char names[][IF_NAMESIZE], size_t max);

/* The folder of the user's uroce sockets (uroce_net.c's forwarding):
 * $XDG_RUNTIME_DIR/softverbs-uroce, or with fallback (or without the
 * variable, or under AT_SECURE) /tmp/softverbs-uroce-<euid>, the euid as
 * the parent user namespace knows it (in `unshare -Ur` the user's own,
 * not 0). False when the name does not fit. */
bool uroce_runtime_dir(char *buf, size_t cap, bool fallback);

/* A name softverbs link takes, the configured devices' rule: uroce
 * and a decimal number without a leading zero (uroce0, uroce12), fewer
 * than IBV_SYSFS_NAME_MAX bytes. */
bool uroce_dev_name_valid(const char *name);

/* ---- uroce_mem.c: the registration's memory check ------------------------ */

/* [addr, addr + len) is mapped and readable, and writable when write
 * (the MR's access lets anyone write it: local or remote write, remote
 * atomic, MW bind), as the kernel's pinning judges it: 0, or EFAULT. */
int uroce_mem_check(const void *addr, size_t len, bool write);
#define UROCE_ACCESS_WRITABLE \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
	 IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND)

#endif
