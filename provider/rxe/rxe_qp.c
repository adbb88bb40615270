/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rxe queue pairs: the send and receive queues are kernel rings mapped
 * into the process. A send is a struct rxe_send_wqe written into the ring
 * and a doorbell (an empty legacy POST_SEND) that wakes the kernel's
 * requester; a receive is a struct rxe_recv_wqe and needs no system call. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rxe.h"
#include "rxe_dp.h"

_Static_assert(sizeof(struct rxe_sge) == sizeof(struct ibv_sge),
	       "rxe_sge and ibv_sge describe the same 16 bytes");

/* ---- queues we produce into ----------------------------------------------- */

/* The element size bounds what one WQE can carry, whatever the kernel
 * said it granted: never write past a slot. */
static uint32_t clamp_u32(uint32_t v, size_t max)
{
	return v < max ? v : (uint32_t)max;
}

int rxe_wq_init(struct rxe_wq *wq, int cmd_fd, const struct mminfo *mi,
		size_t wqe_hdr_len, uint32_t max_sge, uint32_t max_inline)
{
	size_t room;
	int ret;

	ret = rxe_queue_map(&wq->q, cmd_fd, mi);
	if (ret)
		return ret;
	room = rxe_queue_elem_size(&wq->q);
	if (room < wqe_hdr_len) {
		sv_err("queue elements of %zu bytes cannot hold a WQE", room);
		rxe_queue_unmap(&wq->q);
		return EPROTO;
	}
	room -= wqe_hdr_len;
	wq->max_sge = clamp_u32(max_sge, room / sizeof(struct rxe_sge));
	wq->max_inline = clamp_u32(max_inline, room);
	wq->prod = rxe_queue_read_prod(&wq->q);
	sv_lock_init(&wq->lock);
	return 0;
}

void rxe_wq_fini(struct rxe_wq *wq)
{
	if (!wq->q.buf)
		return;
	rxe_queue_unmap(&wq->q);
}

/* ---- create, query, modify, destroy ---------------------------------------- */

static struct ibv_qp *create_qp(struct ibv_context *ctx,
				struct ibv_qp_init_attr_ex *attr)
{
	struct rxe_create_qp_resp resp;
	struct sv_udata udata = { .resp = &resp, .resp_len = sizeof(resp) };
	struct rxe_qp *qp;
	int ret;

	switch (attr->qp_type) {
	case IBV_QPT_RC:
	case IBV_QPT_UC:
	case IBV_QPT_UD:
		break;
	default:
		sv_err("rxe has no QP type %d (RC, UC and UD only)",
		       (int)attr->qp_type);
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!attr->send_cq || !attr->recv_cq) {
		sv_err("a QP needs both a send CQ and a receive CQ");
		errno = EINVAL;
		return NULL;
	}

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	memset(&resp, 0, sizeof(resp));
	ret = sv_cmd_create_qp(ctx, &qp->core, attr, &udata);
	if (ret) {
		sv_err("CREATE_QP (type %d, %u/%u WRs, %u/%u SGEs, %u inline) failed: %s",
		       (int)attr->qp_type, attr->cap.max_send_wr,
		       attr->cap.max_recv_wr, attr->cap.max_send_sge,
		       attr->cap.max_recv_sge, attr->cap.max_inline_data,
		       strerror(ret));
		goto err_free;
	}
	sv_cmd_doorbell_init(&qp->db, &qp->core.qp);
	ret = rxe_wq_init(&qp->sq, ctx->cmd_fd, &resp.sq_mi,
			  sizeof(struct rxe_send_wqe), attr->cap.max_send_sge,
			  attr->cap.max_inline_data);
	if (ret)
		goto err_destroy;
	if (!attr->srq) {
		ret = rxe_wq_init(&qp->rq, ctx->cmd_fd, &resp.rq_mi,
				  sizeof(struct rxe_recv_wqe),
				  attr->cap.max_recv_sge, 0);
		if (ret)
			goto err_unmap_sq;
	}
	sv_probe_qp_init(&qp->probe, ctx);
	qp->rq.probe_dev = qp->probe.dev;
	qp->rq.probe_qpn = qp->core.qp.qp_num;
	SV_PROBE(softverbs, create_qp, qp->probe.dev, qp->core.qp.qp_num,
		 (int)attr->qp_type);
	return &qp->core.qp;

err_unmap_sq:
	rxe_wq_fini(&qp->sq);
err_destroy:
	sv_cmd_destroy_qp(&qp->core.qp);
err_free:
	free(qp);
	errno = ret;
	return NULL;
}

struct ibv_qp *rxe_create_qp_ex(struct ibv_context *ctx,
				struct ibv_qp_init_attr_ex *attr)
{
	const uint32_t known = IBV_QP_INIT_ATTR_PD |
			       IBV_QP_INIT_ATTR_CREATE_FLAGS |
			       IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	uint64_t ops = 0, caps;
	struct ibv_qp *ibqp;

	if (attr->comp_mask & ~known) {
		sv_err("rxe QPs take no attributes beyond PD, create flags and send ops (comp_mask %#x)",
		       attr->comp_mask);
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd) {
		sv_err("ibv_create_qp_ex needs a PD (IBV_QP_INIT_ATTR_PD)");
		errno = EINVAL;
		return NULL;
	}
	/* what the kernel's rxe can do matters to RC QPs (ATOMIC WRITE) and
	 * to the send ops asked for: asked before the QP exists, so that a
	 * failed query leaves nothing behind */
	caps = 0;
	if (attr->qp_type == IBV_QPT_RC || (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)) {
		int ret = rxe_caps(ctx, &caps);

		if (ret) {
			errno = ret;
			return NULL;
		}
	}
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		uint64_t sup;

		ops = attr->send_ops_flags;
		sup = rxe_qp_ex_ops(attr->qp_type, caps);
		if (ops & ~sup) {
			/* (ATOMIC WRITE needs kernel 6.2's rxe: without it
			 * the QP would take the WR and fail it at run time) */
			sv_err("send_ops_flags %#llx: a %s QP on this kernel's rxe supports %#llx%s",
			       (unsigned long long)ops,
			       sv_qp_type_name(attr->qp_type), (unsigned long long)sup,
			       attr->qp_type == IBV_QPT_RC &&
					       (ops & (IBV_QP_EX_WITH_ATOMIC_WRITE | SV_QP_EX_WITH_FLUSH)) &&
					       !(caps & RXE_CAP_ATOMIC_WRITE) ?
				       " (no RDMA ATOMIC WRITE or FLUSH before kernel 6.2)" :
				       "");
			errno = EOPNOTSUPP;
			return NULL;
		}
	}
	ibqp = create_qp(ctx, attr);
	if (!ibqp)
		return NULL;
	to_rxe_qp(ibqp)->ops_ok = rxe_sq_ops(attr->qp_type,
					     attr->qp_type == IBV_QPT_RC ? caps : 0);
	/* FLUSH only through ibv_wr_flush, on a QP created for it (an
	 * ibv_send_wr has no fields for it: rxe_post_send refuses it) */
	if (ops & SV_QP_EX_WITH_FLUSH)
		to_rxe_qp(ibqp)->ops_ok |= RXE_FLUSH_OP;
	to_rxe_qp(ibqp)->rdma_ops =
		attr->qp_type == IBV_QPT_UD ?
			0 :
			to_rxe_qp(ibqp)->ops_ok &
				~(RXE_ATOMIC_OPS | RXE_ATOMIC_WRITE_OP | RXE_FLUSH_OP |
				  (1u << IBV_WR_BIND_MW));
	to_rxe_qp(ibqp)->fast_ops = to_rxe_qp(ibqp)->sq.max_sge ?
					    to_rxe_qp(ibqp)->rdma_ops :
					    0;
	to_rxe_qp(ibqp)->ud_ops = attr->qp_type == IBV_QPT_UD &&
						  to_rxe_qp(ibqp)->sq.max_sge ?
					  to_rxe_qp(ibqp)->ops_ok :
					  0;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		rxe_qp_ex_init(to_rxe_qp(ibqp));
	return ibqp;
}

int rxe_destroy_qp(struct ibv_qp *ibqp)
{
	struct rxe_qp *qp = to_rxe_qp(ibqp);
	int ret;

	ret = sv_cmd_destroy_qp(ibqp);
	if (ret)
		return ret;
	SV_PROBE(softverbs, destroy_qp, qp->probe.dev, ibqp->qp_num);
	rxe_wq_fini(&qp->rq);
	rxe_wq_fini(&qp->sq);
	free(qp);
	return 0;
}

/* ---- posting receives --------------------------------------------------- */

int rxe_wq_post_recv(struct rxe_wq *wq, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr)
{
	struct rxe_queue_buf *buf;
	uint32_t prod, mask, log2, max_sge;
	int ret = 0;

	sv_lock(&wq->lock);
	/* locals, read before the acquire loads and the stores into the
	 * ring, either of which would make the compiler read them again */
	buf = wq->q.buf;
	if (!buf) {
		/* an SRQ whose ring was lost in a failed resize */
		sv_unlock(&wq->lock);
		*bad_wr = wr;
		return SV_PROBE_ERR("ibv_post_recv", EIO);
	}
	prod = wq->prod;
	mask = wq->q.mask;
	log2 = wq->q.log2_elem;
	max_sge = wq->max_sge;
	for (; wr; wr = wr->next) {
		const int nsge = wr->num_sge;
		struct rxe_recv_wqe *wqe;
		uint64_t len = 0;

		if ((uint32_t)nsge > max_sge || (nsge && !wr->sg_list)) {
			sv_err("receive WR with %d SGEs, the queue takes %u",
			       nsge, max_sge);
			ret = EINVAL;
			break;
		}
		if (((prod + 1) & mask) ==
		    (atomic_load_explicit((_Atomic uint32_t *)&buf->consumer_index,
					  memory_order_acquire) & mask)) {
			sv_dbg("receive queue full");
			ret = ENOMEM;
			break;
		}
		/* The kernel reads wr_id, the dma header and the SGEs
		 * (rxe_resp.c); the slot is ours until prod is published,
		 * so a WR found bad half-way just is not committed. */
		wqe = (void *)(buf->data + ((size_t)prod << log2));
		for (int i = 0; i < nsge; i++) {
			memcpy(&wqe->dma.sge[i], &wr->sg_list[i],
			       sizeof(struct rxe_sge));
			len += wr->sg_list[i].length;
		}
		if (len > UINT32_MAX) {
			sv_err("receive WR of %llu bytes is longer than 2^32-1",
			       (unsigned long long)len);
			ret = EINVAL;
			break;
		}
		wqe->wr_id = wr->wr_id;
		wqe->dma = (struct rxe_dma_info){
			.length = (uint32_t)len,
			.resid = (uint32_t)len,
			.num_sge = (uint32_t)nsge,
		};
		prod = (prod + 1) & mask;
		SV_PROBE(softverbs, post_recv, wq->probe_dev, wq->probe_qpn,
			 wr->wr_id, len);
	}
	if (prod != wq->prod) {
		wq->prod = prod;
		atomic_store_explicit((_Atomic uint32_t *)&buf->producer_index,
				      prod, memory_order_release);
	}
	sv_unlock(&wq->lock);
	if (ret) {
		*bad_wr = wr;
		return SV_PROBE_ERR("ibv_post_recv", ret);
	}
	return 0;
}

int rxe_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr)
{
	struct rxe_qp *qp = to_rxe_qp(ibqp);
	struct ibv_recv_wr *unused;

	if (!bad_wr)
		bad_wr = &unused;
	*bad_wr = NULL;
	if (ibqp->state == IBV_QPS_RESET) {
		sv_err("QP %#x: cannot post receives in RESET", ibqp->qp_num);
		*bad_wr = wr;
		return SV_PROBE_ERR("ibv_post_recv", EINVAL);
	}
	if (ibqp->srq) {
		sv_err("QP %#x receives from an SRQ: post to the SRQ",
		       ibqp->qp_num);
		*bad_wr = wr;
		return SV_PROBE_ERR("ibv_post_recv", EINVAL);
	}
	return rxe_wq_post_recv(&qp->rq, wr, bad_wr);
}
