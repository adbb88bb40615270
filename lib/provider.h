/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What providers see: the provider and context-ops tables, the core objects
 * a provider embeds, and the sv_ helpers that send uverbs commands.
 *
 * How a provider is written (provider/rxe is the model):
 *
 *  1. One `const struct sv_provider` (name, match by driver id / name, ABI
 *     range, context size, context ops), declared and listed in
 *     lib/providers.c; its folder's Makefile.inc is included from
 *     Makefile.am.
 *  2. A context struct that embeds `struct sv_context` FIRST; the core
 *     allocates `context_size` bytes zeroed, sets up the sv_context and
 *     calls alloc_context (or sends a plain GET_CONTEXT when it is NULL).
 *  3. A `static const struct sv_context_ops` filling only the verbs the
 *     provider implements. The core starts every context from a table of
 *     defaults (EOPNOTSUPP, or the generic command implementation where
 *     the command alone does the whole job: PD, MR, mcast, port and device
 *     queries) and copies in the provider's non-NULL slots.
 *  4. Provider objects embed the core object first (struct rxe_cq embeds
 *     struct sv_cq) and convert back with one small inline each.
 *
 * Conventions. Context ops follow the public verbs conventions exactly,
 * because several are called straight from the application through
 * ibv_context.ops (post_send, post_recv, poll_cq, req_notify_cq,
 * post_srq_recv, alloc_mw, bind_mw, dealloc_mw): int ops return 0 or a
 * positive errno (poll_cq: count or negative), pointer ops return NULL and
 * set errno. The sv_ command helpers below follow the same rule as
 * rdma-core's ibv_cmd_*: 0 or a positive errno, so an op can return
 * what a helper returned.
 * Arguments have been validated by the core before a create/modify op is
 * called (NULL pointers, unknown mask bits); the provider checks what only
 * it knows (queue limits).
 */
#ifndef SV_PROVIDER_H
#define SV_PROVIDER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>

#include "explain.h"
#include "log.h"
#include "ops_list.h"
#include "verbs_ext.h"

#ifndef container_of
#define container_of(ptr, type, member)                                       \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

struct sv_context;

/* ---- core objects a provider embeds first ------------------------------ */

/* A CQ: the ex layout starts with the plain one, so both views share it. */
struct sv_cq {
	union {
		struct ibv_cq cq;
		struct ibv_cq_ex cq_ex;
	};
};

/* The core objects below are laid out as rdma-core 44's verbs_qp,
 * verbs_srq and verbs_mr (lib/pabi/same_layout.h checks it), so that the core
 * treats objects of its own providers and of rdma-core's alike. */

/* ibv_wr_flush's slot: rdma-core 45 appended wr_flush to ibv_qp_ex, at
 * offset 352 (after 44's wr_atomic_write; ibv_qp_ex 352 -> 360 bytes);
 * Debian 12's verbs.h (44) ends the struct before it. Programs built
 * against 45 and later headers call the slot inline (ibv_wr_flush). */
#define SV_QP_EX_WR_FLUSH_OFF 352
typedef void (*sv_wr_flush_fn)(struct ibv_qp_ex *qp, uint32_t rkey,
			       uint64_t remote_addr, size_t len, uint8_t type,
			       uint8_t level);
/* FLUSH's names from rdma-core 45's verbs.h, which Debian 12's lacks:
 * IBV_QP_EX_WITH_FLUSH, IBV_WR_FLUSH, IBV_WC_FLUSH, the MR access flags
 * IBV_ACCESS_FLUSH_GLOBAL/_PERSISTENT, the placement types
 * IBV_FLUSH_GLOBAL/_PERSISTENT and the selectivity levels
 * IBV_FLUSH_RANGE/_MR (the kernel's IB_UVERBS_* values) */
#define SV_QP_EX_WITH_FLUSH (1ULL << 11)
#define SV_WR_FLUSH 14
#define SV_WC_FLUSH 8
#define SV_ACCESS_FLUSH_GLOBAL (1u << 8)
#define SV_ACCESS_FLUSH_PERSISTENT (1u << 9)
#define SV_FLUSH_GLOBAL 1u
#define SV_FLUSH_PERSISTENT 2u
#define SV_FLUSH_RANGE 0u
#define SV_FLUSH_MR 1u

/* A QP: ibv_qp_ex starts with the ibv_qp. The built-in providers' QPs
 * are laid out as rdma-core 45 and later's verbs_qp whichever verbs.h
 * this is built with (the wr_flush slot, then comp_mask at 360); a
 * plug-in's as the verbs_qp of the rdma-core it is built against
 * (lib/pabi/same_layout.h checks it; against 44: no slot, no FLUSH). */
struct sv_qp {
	union {
		struct ibv_qp qp;
		struct ibv_qp_ex qp_ex;
#ifndef SV_PLUGIN_PROVIDER
		struct {
			char before[SV_QP_EX_WR_FLUSH_OFF];
			sv_wr_flush_fn wr_flush;
		} ex45;
#endif
	};
	uint32_t comp_mask; /* SV_QP_EX: created with the ex layout */
	void *xrcd;         /* unused by the soft providers */
};
#define SV_QP_EX (1u << 1)
#ifndef SV_PLUGIN_PROVIDER
_Static_assert(sizeof(struct ibv_qp_ex) <= SV_QP_EX_WR_FLUSH_OFF + sizeof(sv_wr_flush_fn),
	       "ibv_qp_ex ends at or after wr_flush (rdma-core 44 or 45-56 headers)");
/* the wr_flush slot of a built-in provider's QP */
static inline sv_wr_flush_fn *sv_qp_wr_flush(struct sv_qp *qp)
{
	return &qp->ex45.wr_flush;
}
#endif

struct sv_srq {
	struct ibv_srq srq;
	enum ibv_srq_type srq_type;
	void *xrcd;         /* unused by the soft providers */
	struct ibv_cq *cq;  /* unused by the soft providers */
	uint32_t srq_num;   /* XRC only */
};

/* An MR. mr_type and access tell ibv_dereg_mr whether the registration
 * pinned user memory (and so went into the fork-safety map): the command
 * helpers set them. */
struct sv_mr {
	struct ibv_mr mr;
	uint32_t mr_type;   /* SV_MR_TYPE_* */
	int access;         /* the access flags it was registered with */
};
enum {
	SV_MR_TYPE_MR = 0,        /* user memory, pinned */
	SV_MR_TYPE_NULL_MR = 1,
	SV_MR_TYPE_IMPORTED_MR = 2,
	SV_MR_TYPE_DMABUF_MR = 3, /* no user address range */
};

static inline struct sv_cq *sv_to_cq(struct ibv_cq *cq)
{
	return container_of(cq, struct sv_cq, cq);
}

static inline struct sv_qp *sv_to_qp(struct ibv_qp *qp)
{
	return container_of(qp, struct sv_qp, qp);
}

static inline struct sv_srq *sv_to_srq(struct ibv_srq *srq)
{
	return container_of(srq, struct sv_srq, srq);
}

/* ---- the context-ops table --------------------------------------------- */

/* Every verb a context can do: one slot per op of lib/ops_list.h, in its
 * order. Only function pointers, all the same size: the core merges and
 * checks tables slot by slot (see sv_ops_merge). */
struct sv_context_ops {
#define SV_OPS_SLOT(name, since, dflt, kind, ret, params) ret(*name) params;
	SV_CONTEXT_OPS(SV_OPS_SLOT)
#undef SV_OPS_SLOT
};

/* ---- the provider (device-ops) table ----------------------------------- */

struct sv_provider {
	const char *name;
	/* A device matches when its kernel driver id equals driver_id
	 * (RDMA_DRIVER_UNKNOWN: do not match by id) or, when the kernel did
	 * not report an id (sysfs discovery), its IB device name starts with
	 * one of names[] (NULL-terminated, may be NULL) — and its uverbs ABI
	 * version is within [abi_min, abi_max]. */
	enum rdma_driver_id driver_id;
	const char *const *names;
	unsigned int abi_min;
	unsigned int abi_max;

	/* bytes to allocate per context; the struct embeds sv_context first */
	size_t context_size;
	/* Optional. Set up the provider's part of a new context; must call
	 * sv_cmd_get_context() (with the provider's trailers). NULL: the core
	 * sends a plain GET_CONTEXT. 0 or a positive errno. */
	int (*alloc_context)(struct sv_context *ctx);
	/* Optional. Undo alloc_context (unmap pages...); the core then closes
	 * the file descriptors and frees the memory. */
	void (*free_context)(struct sv_context *ctx);

	const struct sv_context_ops *ops;
};

/* ---- the context ------------------------------------------------------- */

/* The core's state of one open context, found from any verbs_context
 * through its `priv` pointer: for the built-in providers it lives inside
 * struct sv_context, for rdma-core's providers (whose context structs are
 * their own) the core allocates it. */
struct sv_obj_layout;
struct verbs_ex_private {
	struct sv_context_ops ops;  /* defaults + the provider's slots */
	/* where the core's members are in this provider's objects (a QP's
	 * comp_mask, the size of its struct ibv_port_attr): lib/core.h */
	const struct sv_obj_layout *layout;
	uint32_t driver_id;         /* enum rdma_driver_id, or UNKNOWN */
	uint64_t core_support;      /* IB_UVERBS_CORE_SUPPORT_* (0: unknown) */
	/* rdma-core providers only: their free_context, NULL for ours */
	void (*free_context)(struct ibv_context *ctx);
	/* lib/inherit.c: the process generation it was opened in (another
	 * one: inherited through fork), and the list of open contexts
	 * (guarded by inherit.c's lock) */
	unsigned int generation;
	struct verbs_context *vctx;
	struct verbs_ex_private *live_prev, *live_next;
	/* lib/explain.c: the device's attributes, queried at the first
	 * error that needs them (never on a success path), freed at close */
	struct ibv_device_attr_ex *explain_attr;
	/* the largest max_inline_data a QP may ask for, which no verb
	 * reports: set by a provider without a kernel driver id (uroce) at
	 * open; 0: the kernel driver's (lib/explain.c) */
	uint32_t max_inline_data;
};

struct sv_context {
	/* immutable after open */
	const struct sv_provider *provider;
	unsigned int abi_version;   /* the device's uverbs ABI */
	struct verbs_ex_private core;
	/* room for the slots rdma-core 59-64 put in front of verbs_context
	 * (lib/core.h, SV_VCTX_GROWN_SLOTS), whatever the system's verbs.h
	 * has of them */
	void *vctx_grown[6];
	/* what applications see; must be last (verbs.h's layout) */
	struct verbs_context vctx;
};

static inline struct sv_context *sv_to_context(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct sv_context, vctx.context);
}

/* The core state of any context (the built-in providers' or rdma-core's). */
static inline struct verbs_ex_private *sv_priv(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct verbs_context, context)->priv;
}

/* ---- commands: what a provider sends ------------------------------------ */

/* Driver-specific trailers of one command: req_len bytes appended to the
 * core request, and resp_len bytes the kernel writes after the core
 * response (both as the provider's uAPI header lays them out, e.g.
 * struct rxe_create_cq_resp). Pass NULL for none. */
struct sv_udata {
	const void *req;
	size_t req_len;
	void *resp;
	size_t resp_len;
	/* Optional: also receives a copy of the core response (rdma-core's
	 * ibv_cmd_* callers keep one in front of their driver part). */
	void *core_resp;
};

/* GET_CONTEXT: fills cmd_fd-derived fields of ctx (async_fd,
 * num_comp_vectors). */
int sv_cmd_get_context(struct ibv_context *ctx, struct sv_udata *udata);

/* QUERY_CONTEXT (ioctl): fills the core state's core_support; 0 when the
 * kernel lacks the method. sv_cmd_get_context calls it. */
int sv_cmd_query_context(struct ibv_context *ctx);

/* QUERY_DEVICE (extended when the caller's attr_size asks for more than
 * the base attributes): fills *attr up to attr_size (attr_size >=
 * sizeof(struct ibv_device_attr)). reply (may be NULL) receives the
 * kernel's answer (response_length: how much of it the kernel sent; its
 * base.fw_ver is the raw 64-bit firmware version); attr->orig_attr.fw_ver
 * is left empty for the provider to format. */
struct ib_uverbs_ex_query_device_resp;
int sv_cmd_query_device_ex(struct ibv_context *ctx,
			   const struct ibv_query_device_ex_input *input,
			   struct ibv_device_attr_ex *attr, size_t attr_size,
			   struct ib_uverbs_ex_query_device_resp *reply);
/* QUERY_PORT: fills attr up to attr_size bytes (52: rdma-core 44's
 * struct ibv_port_attr; SV_PORT_ATTR_SIZE: also active_speed_ex). */
#define SV_PORT_ATTR_SIZE 56
/* QUERY_PORT_SPEED (ioctl; rdma-core 62): 0, or a positive errno
 * (EOPNOTSUPP when the kernel or its driver has no such answer). */
int sv_cmd_query_port_speed(struct ibv_context *ctx, uint32_t port_num,
			    uint64_t *speed);
int sv_cmd_query_port(struct ibv_context *ctx, uint8_t port_num,
		      struct ibv_port_attr *attr, size_t attr_size);

/* PD and MR: the generic implementations are the defaults of those slots;
 * a provider that needs trailers calls these with its own. */
int sv_cmd_alloc_pd(struct ibv_context *ctx, struct ibv_pd *pd,
		    struct sv_udata *udata);
int sv_cmd_dealloc_pd(struct ibv_pd *pd);
/* fills mr (the ibv_mr's context, pd, addr, length, handle, keys;
 * mr_type SV_MR_TYPE_MR and access) */
int sv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		  uint64_t hca_va, int access, struct sv_mr *mr,
		  struct sv_udata *udata);
int sv_cmd_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd,
		    void *addr, size_t length, int access,
		    struct sv_udata *udata);
int sv_cmd_dereg_mr(struct ibv_mr *mr);
/* ADVISE_MR (ioctl): prefetch the pages of ODP MRs; 0 or a positive
 * errno (EOPNOTSUPP where the device has no advise_mr: rxe before 7.x). */
int sv_cmd_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		     uint32_t flags, const struct ibv_sge *sg_list,
		     uint32_t num_sge);
/* A dma-buf registration (fills mr; mr_type SV_MR_TYPE_DMABUF_MR). */
int sv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
			 uint64_t iova, int fd, int access, struct sv_mr *mr);

/* MW: fills mw (context, pd, type, handle, rkey). */
int sv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		    struct ibv_mw *mw, struct sv_udata *udata);
int sv_cmd_dealloc_mw(struct ibv_mw *mw);

/* CQ: fills the core part of *cq (context, channel, handle, cqe = what
 * the kernel granted, mutex, cond, event counters). cq_context is set by
 * the core after the op returns. */
int sv_cmd_create_cq(struct ibv_context *ctx, int cqe,
		     struct ibv_comp_channel *channel, int comp_vector,
		     struct sv_cq *cq, struct sv_udata *udata);
int sv_cmd_create_cq_ex(struct ibv_context *ctx,
			const struct ibv_cq_init_attr_ex *attr,
			struct sv_cq *cq, struct sv_udata *udata);
int sv_cmd_resize_cq(struct ibv_cq *cq, int cqe, struct sv_udata *udata);
int sv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only);
/* Waits until every reported event of the CQ was acknowledged (the
 * application's ibv_ack_cq_events), as the verbs contract requires. */
int sv_cmd_destroy_cq(struct ibv_cq *cq);

/* SRQ: fills the core part of *srq; attr->attr gets what the kernel
 * granted. */
/* A basic SRQ (a bare struct ibv_srq is enough: nothing is written
 * behind it) */
int sv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
		      struct ibv_srq_init_attr *attr, struct sv_udata *udata);
int sv_cmd_create_srq_ex(struct ibv_context *ctx, struct sv_srq *srq,
			 struct ibv_srq_init_attr_ex *attr,
			 struct sv_udata *udata);
int sv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
		      int attr_mask, struct sv_udata *udata);
int sv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr);
int sv_cmd_destroy_srq(struct ibv_srq *srq);

/* QP: fills the core part of *qp (context, pd, cqs, srq, handle, qp_num,
 * state RESET, qp_type, mutex, cond); attr->cap gets what the kernel
 * granted. attr->comp_mask must include IBV_QP_INIT_ATTR_PD. */
int sv_cmd_create_qp(struct ibv_context *ctx, struct sv_qp *qp,
		     struct ibv_qp_init_attr_ex *attr, struct sv_udata *udata);
/* The same, always as the extended command (whose reply is a struct
 * ib_uverbs_ex_create_qp_resp). */
int sv_cmd_create_qp_ex(struct ibv_context *ctx, struct sv_qp *qp,
			struct ibv_qp_init_attr_ex *attr, struct sv_udata *udata);
int sv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		    int attr_mask, struct ibv_qp_init_attr *init_attr);
/* on success qp->state follows attr->qp_state when IBV_QP_STATE is set */
int sv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		     int attr_mask, struct sv_udata *udata);
int sv_cmd_destroy_qp(struct ibv_qp *qp);

/* ---- the data path's lock (rxe and siw queues) ----------------------------
 * Uncontended, one atomic exchange and one store, inline
 * (pthread_spin_lock/unlock are calls through the PLT, a sixth of a
 * post_send). Contended, it spins on a plain load. */
typedef struct {
	atomic_int held;
} sv_lock_t;

static inline void sv_lock_init(sv_lock_t *l)
{
	atomic_init(&l->held, 0);
}

static inline void sv_lock(sv_lock_t *l)
{
	while (atomic_exchange_explicit(&l->held, 1, memory_order_acquire))
		while (atomic_load_explicit(&l->held, memory_order_relaxed))
			;
}

static inline void sv_unlock(sv_lock_t *l)
{
	atomic_store_explicit(&l->held, 0, memory_order_release);
}

/* Legacy POST_SEND with no work requests: the doorbell of rxe and siw,
 * which makes the kernel look at the send queue. */
int sv_cmd_post_send_doorbell(struct ibv_qp *qp);
/* The same command built once per QP, for the send hot path:
 * sv_cmd_doorbell_init after CREATE_QP, then sv_cmd_doorbell_ring (0 or
 * a positive errno) from any thread, no lock needed (the kernel writes
 * the same empty reply into resp each time). */
struct sv_doorbell {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_post_send req;
	struct ib_uverbs_post_send_resp resp;
	int fd;
};
void sv_cmd_doorbell_init(struct sv_doorbell *db, struct ibv_qp *qp);
/* What a doorbell write() that did not write it all means: errno, or EIO
 * for a short write. */
int sv_cmd_doorbell_error(ssize_t n);
#define SV_DOORBELL_LEN                                                        \
	(sizeof(struct ib_uverbs_cmd_hdr) + sizeof(struct ib_uverbs_post_send))
/* The write(): the command layer's seam (tests replace it) in the
 * library, plain write() in the plug-ins. */
#ifdef SV_PLUGIN_PROVIDER
#define sv_doorbell_write write
#else
/* hidden: one load from the library's own data, no GOT entry */
extern ssize_t (*sv_cmd_write_fn)(int fd, const void *buf, size_t len)
	__attribute__((visibility("hidden")));
#define sv_doorbell_write sv_cmd_write_fn
#endif
/* Inline: the hot path of every rxe send is this one write(). */
static inline int sv_cmd_doorbell_ring(struct sv_doorbell *db)
{
	ssize_t n = sv_doorbell_write(db->fd, db, SV_DOORBELL_LEN);

	if (__builtin_expect(n == (ssize_t)SV_DOORBELL_LEN, 1))
		return 0;
	return sv_cmd_doorbell_error(n);
}

/* AH: fills ah (context, pd, handle). */
int sv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		     struct ibv_ah_attr *attr, struct sv_udata *udata);
int sv_cmd_destroy_ah(struct ibv_ah *ah);

int sv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			uint16_t lid);
int sv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			uint16_t lid);

/* GID entry (ioctl QUERY_GID_ENTRY, legacy sysfs fallback). */
int sv_query_gid_entry(struct ibv_context *ctx, uint32_t port_num,
		       uint32_t index, struct ibv_gid_entry *entry);

/* ibv_create_qp's attributes as the ex ones with just a PD (the
 * conversion every create_qp built on create_qp_ex makes). */
static inline struct ibv_qp_init_attr_ex
sv_qp_init_attr_ex(struct ibv_pd *pd, const struct ibv_qp_init_attr *attr)
{
	return (struct ibv_qp_init_attr_ex){
		.qp_context = attr->qp_context,
		.send_cq = attr->send_cq,
		.recv_cq = attr->recv_cq,
		.srq = attr->srq,
		.cap = attr->cap,
		.qp_type = attr->qp_type,
		.sq_sig_all = attr->sq_sig_all,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};
}

#endif
