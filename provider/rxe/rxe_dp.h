/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Soft-RoCE data path: the provider's CQ, QP, SRQ, AH and MW objects and
 * the ops that fill their slots of rxe_ctx_ops (rxe.c).
 *
 * Objects embed the core object first and convert back with to_rxe_*().
 * Locks: every queue we fill has its own spinlock (its producer side);
 * a CQ has one for its consumer side. The kernel is ordered against us by
 * the queue indices alone (rxe_queue.h).
 */
#ifndef RXE_DP_H
#define RXE_DP_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "probe.h"
#include "provider.h"
#include "rxe.h"
#include "rxe_queue.h"

/* ---- objects ------------------------------------------------------------ */

/* A queue we produce into: a send, receive or shared receive queue. */
struct rxe_wq {
	sv_lock_t lock;          /* guards prod and the elements past it */
	struct rxe_queue q;      /* unmapped: the QP receives from an SRQ */
	uint32_t prod;           /* our producer index, private copy */
	uint32_t max_sge;        /* what the kernel granted */
	uint32_t max_inline;     /* send queues: inline bytes granted */
	/* for the post_recv probe: the device's name and the QP number
	 * (0 on an SRQ); set at create */
	const char *probe_dev;
	uint32_t probe_qpn;
};

struct rxe_cq {
	struct sv_cq core;       /* first */
	sv_lock_t lock;          /* guards q, cons and cur */
	struct rxe_queue q;      /* unmapped after a failed resize */
	uint32_t cons;           /* our consumer index, private copy */
	/* ex polling: the entry the read_* accessors describe, the last
	 * one start_poll or next_poll took (the lock is held from
	 * start_poll to end_poll); stale outside that */
	const struct ib_uverbs_wc *cur;
	const char *probe_dev;   /* for the poll_cq probe, set at create */
};

/* ibv_wr_* state between wr_start and wr_complete/wr_abort. */
struct rxe_wr_batch {
	struct rxe_send_wqe *wqe; /* the WQE being written (at sq.prod) */
	int err;                  /* first error of the batch, positive */
	/* the open WQE needs checks at close: UD QPs (the address) and
	 * atomics (8 local bytes) */
	int check;
	uint32_t start_prod;      /* where the batch began, to rewind */
	/* the QP is UD: what check is at every batch's start (set by
	 * rxe_qp_ex_init, so that wr_start does not compute it) */
	int ud;
};

struct rxe_qp {
	struct sv_qp core;       /* first */
	struct rxe_wq sq;        /* sq.lock also guards ssn and batch */
	struct rxe_wq rq;
	uint32_t ssn;            /* send sequence number of the next WQE */
	uint32_t ops_ok;         /* bit n: opcode n may be posted here */
	/* the opcodes of ops_ok whose WQE takes wr.rdma (connected QPs:
	 * all but atomics and BIND_MW; none on UD) */
	uint32_t rdma_ops;
	/* rdma_ops when the send queue takes an SGE, else 0: what
	 * rxe_post_send's fast path takes */
	uint32_t fast_ops;
	/* UD QPs: the opcodes of ops_ok when the send queue takes an SGE,
	 * else 0 (rxe_post_send's fast path with an AH) */
	uint32_t ud_ops;
	struct rxe_wr_batch batch;
	struct sv_doorbell db;   /* rung without sq.lock */
	struct sv_probe_qp probe; /* the names the post_send probe passes */
};

struct rxe_srq {
	struct sv_srq core;      /* first */
	struct rxe_wq rq;
};

struct rxe_ah {
	struct ibv_ah ah;        /* first */
	uint32_t ah_num;         /* the kernel's AH index, named in UD WQEs */
};

static inline struct rxe_cq *to_rxe_cq(struct ibv_cq *cq)
{
	return container_of(sv_to_cq(cq), struct rxe_cq, core);
}

static inline struct rxe_qp *to_rxe_qp(struct ibv_qp *qp)
{
	return container_of(sv_to_qp(qp), struct rxe_qp, core);
}

static inline struct rxe_srq *to_rxe_srq(struct ibv_srq *srq)
{
	return container_of(sv_to_srq(srq), struct rxe_srq, core);
}

static inline struct rxe_ah *to_rxe_ah(struct ibv_ah *ah)
{
	return container_of(ah, struct rxe_ah, ah);
}

/* ---- completion queues (rxe_cq.c) ---------------------------------------- */

struct ibv_cq *rxe_create_cq(struct ibv_context *ctx, int cqe,
			     struct ibv_comp_channel *channel, int comp_vector);
int rxe_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
int rxe_req_notify_cq(struct ibv_cq *cq, int solicited_only);
int rxe_resize_cq(struct ibv_cq *cq, int cqe);
int rxe_destroy_cq(struct ibv_cq *cq);
struct ibv_cq_ex *rxe_create_cq_ex(struct ibv_context *ctx,
				   struct ibv_cq_init_attr_ex *attr);

/* The kernel's completion flags (enum ib_wc_flags, which rxe writes into
 * user CQEs unchanged) in the public encoding: the two agree on GRH (bit
 * 0) and WITH_IMM (bit 1), but the kernel's bit 2 is "with invalidate"
 * and its bit 3 "IP checksum ok", the other way round from verbs.h. */
static inline unsigned int rxe_wc_flags(uint32_t k)
{
	return (k & 3) | ((k & 4) << 1) | ((k & 8) >> 1);
}

/* ---- queue pairs (rxe_qp.c) ---------------------------------------------- */

struct ibv_qp *rxe_create_qp_ex(struct ibv_context *ctx,
				struct ibv_qp_init_attr_ex *attr);
int rxe_destroy_qp(struct ibv_qp *qp);
int rxe_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr);
int rxe_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr);

/* Posting to a send queue is allowed from RTS on (SQD and ERROR accept
 * WRs too: the first holds them, the second flushes them). */
static inline int rxe_sq_accepts(enum ibv_qp_state state)
{
	return state != IBV_QPS_RESET && state != IBV_QPS_INIT &&
	       state != IBV_QPS_RTR;
}

/* The opcodes that may carry inline data. */
#define RXE_INLINE_OPS                                                         \
	((1u << IBV_WR_RDMA_WRITE) | (1u << IBV_WR_RDMA_WRITE_WITH_IMM) |      \
	 (1u << IBV_WR_SEND) | (1u << IBV_WR_SEND_WITH_IMM) |                  \
	 (1u << IBV_WR_SEND_WITH_INV))

/* The atomics: 8 local bytes, an aligned remote word. */
#define RXE_ATOMIC_OPS                                                         \
	((1u << IBV_WR_ATOMIC_CMP_AND_SWP) | (1u << IBV_WR_ATOMIC_FETCH_AND_ADD))

/* RDMA ATOMIC WRITE (IBTA 1.5, kernel rxe from 6.2): 8 bytes to an
 * aligned remote word, carried in the WQE itself (dma.atomic_wr in the
 * kernel's newer rdma_user_rxe.h; the same bytes as dma.inline_data,
 * which Debian 12's header has). */
#define RXE_ATOMIC_WRITE_OP (1u << IBV_WR_ATOMIC_WRITE)

/* FLUSH (IBTA 1.5, kernel rxe from 6.2): ibv_wr_flush only. Its WQE
 * part, wr.wr.flush in the kernel's newer rdma_user_rxe.h (Debian 12's
 * header lacks it): the remote address, the length, the rkey, the
 * placement type and the selectivity level, in the wr union where
 * wr.rdma has address and rkey. The kernel sends wqe->iova and
 * dma.resid as the RETH's address and length. */
#define RXE_FLUSH_OP (1u << SV_WR_FLUSH)
struct rxe_flush_wr {
	uint64_t remote_addr;
	uint32_t length;
	uint32_t rkey;
	uint8_t type;
	uint8_t level;
};

/* The send-queue primitives (rxe_sq.c and the ex send API); sq.lock
 * held.
 * rxe_sq_reserve: the next free WQE slot, or NULL when the queue is
 * full. Only the words the kernel keeps its own state in are zeroed
 * (status, state, iova, the PSNs, has_rd_atomic, the dma header): the
 * caller writes wr_id, opcode, send_flags, ex and the opcode's part of
 * the wr union, which is all the kernel reads for that opcode
 * (rxe_req.c), then dma.length/resid/num_sge and the SGEs or inline
 * bytes.
 * rxe_sq_commit: the WQE is complete (private, not yet seen by the
 * kernel). rxe_sq_publish: let the kernel see every committed WQE; the
 * caller rings the doorbell (rxe_sq_ring) after dropping the lock. */
static inline struct rxe_send_wqe *rxe_sq_reserve(struct rxe_qp *qp)
{
	struct rxe_send_wqe *wqe;

	if (rxe_queue_next(&qp->sq.q, qp->sq.prod) ==
	    rxe_queue_kernel_cons(&qp->sq.q))
		return NULL;
	wqe = rxe_queue_elem(&qp->sq.q, qp->sq.prod);
	memset(&wqe->status, 0,
	       offsetof(struct rxe_send_wqe, dma.sge) -
		       offsetof(struct rxe_send_wqe, status));
	return wqe;
}

static inline void rxe_sq_commit(struct rxe_qp *qp, struct rxe_send_wqe *wqe)
{
	wqe->ssn = qp->ssn++;
	qp->sq.prod = rxe_queue_next(&qp->sq.q, qp->sq.prod);
}

static inline void rxe_sq_publish(struct rxe_qp *qp)
{
	rxe_queue_publish_prod(&qp->sq.q, qp->sq.prod);
}

/* The doorbell: the kernel's requester runs over every published WQE.
 * Rung without sq.lock: a later ring covers earlier publishes, and each
 * publisher rings after its own. 0 or a positive errno (logged). Out of
 * line, so that the posting verbs end in a tail call to it. */
int rxe_sq_ring(struct rxe_qp *qp);
/* Check one WR and write it as the next WQE (reserve + fill + commit);
 * sq.lock held. 0 or a positive errno (EINVAL, ENOMEM when full). A WR
 * found bad is left uncommitted in its slot: the kernel never sees it. */
int rxe_sq_post_wr(struct rxe_qp *qp, const struct ibv_send_wr *wr);
/* The opcodes a QP of this type may post on a kernel with these RXE_CAP_*
 * features (bit n: enum ibv_wr_opcode n). */
uint32_t rxe_sq_ops(enum ibv_qp_type type, uint64_t caps);

/* The ibv_wr_* send API (rxe_qp_ex.c). rxe_qp_ex_ops: the send_ops_flags
 * a QP type supports. rxe_qp_ex_init: set up the batch state and the
 * qp_ex entry points; 0 or a positive errno. */
uint64_t rxe_qp_ex_ops(enum ibv_qp_type type, uint64_t caps);
void rxe_qp_ex_init(struct rxe_qp *qp);

/* Post a list of receives to a receive queue (QP or SRQ): 0 or a
 * positive errno with *bad_wr at the first WR not posted. Takes wq->lock. */
int rxe_wq_post_recv(struct rxe_wq *wq, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr);
/* Set up / tear down a producer queue's lock and mapping; wqe_hdr_len is
 * the WQE's size before its SGE (or inline) area. */
int rxe_wq_init(struct rxe_wq *wq, int cmd_fd, const struct mminfo *mi,
		size_t wqe_hdr_len, uint32_t max_sge, uint32_t max_inline);
void rxe_wq_fini(struct rxe_wq *wq);

/* ---- shared receive queues (rxe_srq.c) ----------------------------------- */

struct ibv_srq *rxe_create_srq(struct ibv_pd *pd,
			       struct ibv_srq_init_attr *attr);
struct ibv_srq *rxe_create_srq_ex(struct ibv_context *ctx,
				  struct ibv_srq_init_attr_ex *attr);
int rxe_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
		   int attr_mask);
int rxe_destroy_srq(struct ibv_srq *srq);
int rxe_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr);

/* ---- address handles (rxe_ah.c) ------------------------------------------ */

struct ibv_ah *rxe_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr);
int rxe_destroy_ah(struct ibv_ah *ah);

/* ---- memory windows (rxe_mw.c) ------------------------------------------- */

struct ibv_mw *rxe_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int rxe_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		struct ibv_mw_bind *mw_bind);
int rxe_dealloc_mw(struct ibv_mw *mw);

#endif
