/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* soft-iWARP (siw) provider: shared declarations.
 *
 * siw's queues are kernel buffers (vmalloc_user) the process maps from the
 * uverbs fd at the key a create response names. Unlike rxe there are no
 * shared indices: every element carries a flags word whose SIW_WQE_VALID
 * bit says who owns it. The producer fills an element and then sets VALID
 * (store-release); the consumer reads VALID (load-acquire), copies the
 * element out and clears the flags (store-release). Each side keeps its
 * own free-running counter, private to it; queue sizes are powers of two.
 *
 * Locks: every queue we produce into has a spinlock guarding its counter
 * and the elements past it; a CQ has one for its consumer side.
 */
#ifndef SIW_H
#define SIW_H

#include <stddef.h>
#include <stdint.h>

#include <rdma/siw-abi.h>

#include "probe.h"
#include "provider.h"

/* One open siw device. */
struct siw_context {
	struct sv_context sv; /* first: the core allocates and converts */
	uint32_t dev_id;      /* the kernel's vendor part id */
};

/* A ring we produce into: a send, receive or shared receive queue. */
struct siw_wq {
	sv_lock_t lock;          /* guards put and the elements it reaches */
	void *ring;              /* NULL: not mapped (a QP on an SRQ) */
	size_t map_len;
	uint32_t num;            /* elements, a power of two */
	uint32_t put;            /* our producer counter, free running */
	uint32_t max_sge;        /* what the QP/SRQ was created with */
	/* for the post_recv probe: the device's name and the QP number
	 * (0 on an SRQ); set at create */
	const char *probe_dev;
	uint32_t probe_qpn;
};

struct siw_cq {
	struct sv_cq core;          /* first */
	sv_lock_t lock;             /* guards get */
	struct siw_cqe *queue;      /* num_cqe entries, then the control word */
	struct siw_cq_ctrl *ctrl;   /* arming: written by us, cleared by siw */
	size_t map_len;
	uint32_t num_cqe;
	uint32_t get;               /* our consumer counter, free running */
	const char *probe_dev;      /* for the poll_cq probe, set at create */
};

struct siw_qp {
	struct sv_qp core;          /* first */
	struct siw_wq sq;
	struct siw_wq rq;           /* ring NULL when the QP uses an SRQ */
	int sq_sig_all;
	uint16_t sig_flags;         /* SIW_WQE_SIGNALLED when sq_sig_all */
	struct sv_doorbell db;      /* built once, rung under sq.lock */
	struct sv_probe_qp probe;   /* the names the post_send probe passes */
};

struct siw_srq {
	struct sv_srq core;         /* first */
	struct siw_wq rq;
};

static inline struct siw_context *to_siw_context(struct ibv_context *ibctx)
{
	return container_of(sv_to_context(ibctx), struct siw_context, sv);
}

static inline struct siw_cq *to_siw_cq(struct ibv_cq *cq)
{
	return container_of(sv_to_cq(cq), struct siw_cq, core);
}

static inline struct siw_qp *to_siw_qp(struct ibv_qp *qp)
{
	return container_of(sv_to_qp(qp), struct siw_qp, core);
}

static inline struct siw_srq *to_siw_srq(struct ibv_srq *srq)
{
	return container_of(sv_to_srq(srq), struct siw_srq, core);
}

/* ---- rings (siw_qp.c) ----------------------------------------------------- */

/* Map num elements of elem_size bytes at the kernel's key; 0 or a positive errno. */
int siw_wq_map(struct siw_wq *wq, int cmd_fd, uint64_t key, uint32_t num,
	       size_t elem_size, uint32_t max_sge);
void siw_wq_unmap(struct siw_wq *wq);
/* Post receives into a QP's receive queue or an SRQ: 0 or a positive
 * errno with *bad_wr at the first WR not posted. Takes wq->lock. */
int siw_wq_post_recv(struct siw_wq *wq, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr);

/* ---- completion queues (siw_cq.c) ------------------------------------------ */

struct ibv_cq *siw_create_cq(struct ibv_context *ctx, int cqe,
			     struct ibv_comp_channel *channel, int comp_vector);
int siw_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
int siw_req_notify_cq(struct ibv_cq *cq, int solicited_only);
int siw_destroy_cq(struct ibv_cq *cq);

/* ---- queue pairs (siw_qp.c) ------------------------------------------------ */

struct ibv_qp *siw_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
int siw_destroy_qp(struct ibv_qp *qp);
int siw_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr);
int siw_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr);

/* ---- shared receive queues (siw_srq.c) ------------------------------------- */

struct ibv_srq *siw_create_srq(struct ibv_pd *pd,
			       struct ibv_srq_init_attr *attr);
int siw_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
		   int attr_mask);
int siw_destroy_srq(struct ibv_srq *srq);
int siw_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr);

#endif
