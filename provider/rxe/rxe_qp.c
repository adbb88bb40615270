/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rxe queue pairs: the send and receive queues are kernel rings mapped
 * into the process. A send is a struct rxe_send_wqe written into the ring
 * and a doorbell (an empty legacy POST_SEND) that wakes the kernel's
 * requester; a receive is a struct rxe_recv_wqe and needs no system call. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
	pthread_spin_init(&wq->lock, PTHREAD_PROCESS_PRIVATE);
	return 0;
}

void rxe_wq_fini(struct rxe_wq *wq)
{
	if (!wq->q.buf)
		return;
	rxe_queue_unmap(&wq->q);
	pthread_spin_destroy(&wq->lock);
}

static int wq_full(struct rxe_wq *wq)
{
	return rxe_queue_next(&wq->q, wq->prod) ==
	       rxe_queue_kernel_cons(&wq->q);
}

/* ---- create, query, modify, destroy ---------------------------------------- */

static const char *qpt_name(enum ibv_qp_type type);

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
	uint64_t ops = 0;
	struct ibv_qp *ibqp;
	int ret;

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
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		ops = attr->send_ops_flags;
		if (ops & ~rxe_qp_ex_ops(attr->qp_type)) {
			sv_err("send_ops_flags %#llx: a %s QP on rxe supports %#llx",
			       (unsigned long long)ops,
			       qpt_name(attr->qp_type),
			       (unsigned long long)rxe_qp_ex_ops(attr->qp_type));
			errno = EOPNOTSUPP;
			return NULL;
		}
	}
	ibqp = create_qp(ctx, attr);
	if (!ibqp || !(attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		return ibqp;
	ret = rxe_qp_ex_init(to_rxe_qp(ibqp));
	if (ret) {
		rxe_destroy_qp(ibqp);
		errno = ret;
		return NULL;
	}
	return ibqp;
}

int rxe_destroy_qp(struct ibv_qp *ibqp)
{
	struct rxe_qp *qp = to_rxe_qp(ibqp);
	int ret;

	ret = sv_cmd_destroy_qp(ibqp);
	if (ret)
		return ret;
	rxe_qp_ex_fini(qp);
	rxe_wq_fini(&qp->rq);
	rxe_wq_fini(&qp->sq);
	free(qp);
	return 0;
}

/* ---- posting sends ----------------------------------------------------- */

enum {
	QPT_RC = 1 << 0,
	QPT_UC = 1 << 1,
	QPT_UD = 1 << 2,
};

/* Which QP types may post each opcode (IBTA ch. 10 and what rdma_rxe
 * executes), and the kernel's number for it (enum ib_uverbs_wr_opcode). */
static const struct {
	uint8_t qp_types;
	uint8_t inline_ok;
	uint32_t kernel_opcode;
} send_opcodes[] = {
	[IBV_WR_RDMA_WRITE] = { QPT_RC | QPT_UC, 1, IB_UVERBS_WR_RDMA_WRITE },
	[IBV_WR_RDMA_WRITE_WITH_IMM] = { QPT_RC | QPT_UC, 1,
					 IB_UVERBS_WR_RDMA_WRITE_WITH_IMM },
	[IBV_WR_SEND] = { QPT_RC | QPT_UC | QPT_UD, 1, IB_UVERBS_WR_SEND },
	[IBV_WR_SEND_WITH_IMM] = { QPT_RC | QPT_UC | QPT_UD, 1,
				   IB_UVERBS_WR_SEND_WITH_IMM },
	[IBV_WR_RDMA_READ] = { QPT_RC, 0, IB_UVERBS_WR_RDMA_READ },
	[IBV_WR_ATOMIC_CMP_AND_SWP] = { QPT_RC, 0,
					IB_UVERBS_WR_ATOMIC_CMP_AND_SWP },
	[IBV_WR_ATOMIC_FETCH_AND_ADD] = { QPT_RC, 0,
					  IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD },
	[IBV_WR_LOCAL_INV] = { QPT_RC, 0, IB_UVERBS_WR_LOCAL_INV },
	[IBV_WR_BIND_MW] = { QPT_RC | QPT_UC, 0, IB_UVERBS_WR_BIND_MW },
	[IBV_WR_SEND_WITH_INV] = { QPT_RC | QPT_UC, 1,
				   IB_UVERBS_WR_SEND_WITH_INV },
};

static unsigned int qpt_bit(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_RC:
		return QPT_RC;
	case IBV_QPT_UC:
		return QPT_UC;
	case IBV_QPT_UD:
		return QPT_UD;
	default:
		return 0;
	}
}

static const char *qpt_name(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_RC:
		return "RC";
	case IBV_QPT_UC:
		return "UC";
	case IBV_QPT_UD:
		return "UD";
	default:
		return "?";
	}
}

static int check_send_wr(const struct rxe_qp *qp, const struct ibv_send_wr *wr,
			 uint64_t *total)
{
	const struct ibv_qp *ibqp = &qp->core.qp;
	uint64_t len = 0;

	if ((unsigned int)wr->opcode >= sizeof(send_opcodes) /
					sizeof(send_opcodes[0]) ||
	    !(send_opcodes[wr->opcode].qp_types & qpt_bit(ibqp->qp_type))) {
		sv_err("QP %#x: opcode %d is not valid on a %s QP",
		       ibqp->qp_num, (int)wr->opcode, qpt_name(ibqp->qp_type));
		return EINVAL;
	}
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->sq.max_sge) {
		sv_err("QP %#x: %d SGEs, the send queue takes %u",
		       ibqp->qp_num, wr->num_sge, qp->sq.max_sge);
		return EINVAL;
	}
	if (wr->num_sge && !wr->sg_list) {
		sv_err("QP %#x: num_sge %d with no sg_list", ibqp->qp_num,
		       wr->num_sge);
		return EINVAL;
	}
	for (int i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	if (len > UINT32_MAX) {
		sv_err("QP %#x: a WR of %llu bytes is longer than 2^32-1",
		       ibqp->qp_num, (unsigned long long)len);
		return EINVAL;
	}

	if (wr->send_flags & IBV_SEND_INLINE) {
		if (!send_opcodes[wr->opcode].inline_ok) {
			sv_err("QP %#x: IBV_SEND_INLINE with opcode %d",
			       ibqp->qp_num, (int)wr->opcode);
			return EINVAL;
		}
		if (len > qp->sq.max_inline) {
			sv_err("QP %#x: %llu inline bytes, max_inline_data is %u",
			       ibqp->qp_num, (unsigned long long)len,
			       qp->sq.max_inline);
			return EINVAL;
		}
	}

	switch (wr->opcode) {
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		/* the result lands in 8 local bytes; the target is one
		 * aligned 64-bit word */
		if (len < 8 || wr->wr.atomic.remote_addr & 7) {
			sv_err("QP %#x: atomics need 8 local bytes and an 8-byte aligned remote address",
			       ibqp->qp_num);
			return EINVAL;
		}
		break;
	case IBV_WR_BIND_MW:
		if (!wr->bind_mw.mw ||
		    (wr->bind_mw.bind_info.length && !wr->bind_mw.bind_info.mr)) {
			sv_err("QP %#x: BIND_MW needs a MW, and an MR for a non-empty range",
			       ibqp->qp_num);
			return EINVAL;
		}
		if (wr->bind_mw.mw->type != IBV_MW_TYPE_2) {
			sv_err("QP %#x: IBV_WR_BIND_MW binds type 2 windows; type 1 uses ibv_bind_mw",
			       ibqp->qp_num);
			return EINVAL;
		}
		break;
	default:
		break;
	}
	if (ibqp->qp_type == IBV_QPT_UD && !wr->wr.ud.ah) {
		sv_err("QP %#x: a UD send needs an address handle",
		       ibqp->qp_num);
		return EINVAL;
	}
	*total = len;
	return 0;
}

struct rxe_send_wqe *rxe_sq_reserve(struct rxe_qp *qp)
{
	struct rxe_send_wqe *wqe;

	if (wq_full(&qp->sq))
		return NULL;
	wqe = rxe_queue_elem(&qp->sq.q, qp->sq.prod);
	memset(wqe, 0, sizeof(*wqe));
	return wqe;
}

void rxe_sq_commit(struct rxe_qp *qp)
{
	struct rxe_send_wqe *wqe = rxe_queue_elem(&qp->sq.q, qp->sq.prod);

	wqe->ssn = qp->ssn++;
	qp->sq.prod = rxe_queue_next(&qp->sq.q, qp->sq.prod);
}

int rxe_sq_ring(struct rxe_qp *qp)
{
	int ret;

	rxe_queue_publish_prod(&qp->sq.q, qp->sq.prod);
	ret = sv_cmd_post_send_doorbell(&qp->core.qp);
	if (ret)
		sv_err("QP %#x: doorbell failed: %s", qp->core.qp.qp_num,
		       strerror(ret));
	return ret;
}

static void fill_send_wqe(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
			  const struct ibv_send_wr *wr, uint32_t len)
{
	struct rxe_send_wr *kwr = &wqe->wr;

	kwr->wr_id = wr->wr_id;
	kwr->opcode = send_opcodes[wr->opcode].kernel_opcode;
	kwr->send_flags = wr->send_flags;
	/* one word: immediate data (network order) or the rkey to
	 * invalidate, as in ibv_send_wr */
	kwr->ex.imm_data = wr->imm_data;

	switch (wr->opcode) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
		kwr->wr.rdma.remote_addr = wr->wr.rdma.remote_addr;
		kwr->wr.rdma.rkey = wr->wr.rdma.rkey;
		wqe->iova = wr->wr.rdma.remote_addr;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		kwr->wr.atomic.remote_addr = wr->wr.atomic.remote_addr;
		kwr->wr.atomic.compare_add = wr->wr.atomic.compare_add;
		kwr->wr.atomic.swap = wr->wr.atomic.swap;
		kwr->wr.atomic.rkey = wr->wr.atomic.rkey;
		wqe->iova = wr->wr.atomic.remote_addr;
		break;
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		if (qp->core.qp.qp_type == IBV_QPT_UD) {
			kwr->wr.ud.remote_qpn = wr->wr.ud.remote_qpn;
			kwr->wr.ud.remote_qkey = wr->wr.ud.remote_qkey;
			kwr->wr.ud.ah_num = to_rxe_ah(wr->wr.ud.ah)->ah_num;
		}
		break;
	case IBV_WR_BIND_MW: {
		const struct ibv_mw_bind_info *bi = &wr->bind_mw.bind_info;

		kwr->wr.mw.addr = bi->addr;
		kwr->wr.mw.length = bi->length;
		kwr->wr.mw.mr_lkey = bi->mr ? bi->mr->lkey : 0;
		kwr->wr.mw.mw_rkey = wr->bind_mw.mw->rkey;
		kwr->wr.mw.rkey = wr->bind_mw.rkey;
		kwr->wr.mw.access = bi->mw_access_flags;
		break;
	}
	default:
		break;
	}

	wqe->dma.length = len;
	wqe->dma.resid = len;
	wqe->dma.num_sge = (uint32_t)wr->num_sge;
	if (wr->send_flags & IBV_SEND_INLINE) {
		uint8_t *dst = wqe->dma.inline_data;

		for (int i = 0; i < wr->num_sge; i++) {
			memcpy(dst, (const void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			dst += wr->sg_list[i].length;
		}
	} else {
		for (int i = 0; i < wr->num_sge; i++) {
			wqe->dma.sge[i].addr = wr->sg_list[i].addr;
			wqe->dma.sge[i].length = wr->sg_list[i].length;
			wqe->dma.sge[i].lkey = wr->sg_list[i].lkey;
		}
	}
}

int rxe_sq_post_wr(struct rxe_qp *qp, const struct ibv_send_wr *wr)
{
	struct rxe_send_wqe *wqe;
	uint64_t len;
	int ret;

	ret = check_send_wr(qp, wr, &len);
	if (ret)
		return ret;
	wqe = rxe_sq_reserve(qp);
	if (!wqe) {
		sv_dbg("QP %#x: send queue full", qp->core.qp.qp_num);
		return ENOMEM;
	}
	fill_send_wqe(qp, wqe, wr, (uint32_t)len);
	rxe_sq_commit(qp);
	return 0;
}

int rxe_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr)
{
	struct rxe_qp *qp = to_rxe_qp(ibqp);
	struct ibv_send_wr *unused;
	int posted = 0, ret = 0;

	if (!bad_wr)
		bad_wr = &unused;
	*bad_wr = NULL;
	if (!rxe_sq_accepts(ibqp->state)) {
		sv_err("QP %#x: cannot post sends in state %d (needs RTS)",
		       ibqp->qp_num, (int)ibqp->state);
		*bad_wr = wr;
		return EINVAL;
	}

	pthread_spin_lock(&qp->sq.lock);
	for (; wr; wr = wr->next) {
		ret = rxe_sq_post_wr(qp, wr);
		if (ret)
			break;
		posted++;
	}
	if (ret)
		*bad_wr = wr;
	if (posted) {
		int db = rxe_sq_ring(qp);

		/* the WQEs are in the ring already and will run; report
		 * the doorbell only when nothing else went wrong */
		if (db && !ret)
			ret = db;
	}
	pthread_spin_unlock(&qp->sq.lock);
	return ret;
}

/* ---- posting receives --------------------------------------------------- */

int rxe_wq_post_recv(struct rxe_wq *wq, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr)
{
	int posted = 0, ret = 0;

	pthread_spin_lock(&wq->lock);
	if (!wq->q.buf) {
		/* an SRQ whose ring was lost in a failed resize */
		pthread_spin_unlock(&wq->lock);
		*bad_wr = wr;
		return EIO;
	}
	for (; wr; wr = wr->next) {
		struct rxe_recv_wqe *wqe;
		uint64_t len = 0;

		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > wq->max_sge ||
		    (wr->num_sge && !wr->sg_list)) {
			sv_err("receive WR with %d SGEs, the queue takes %u",
			       wr->num_sge, wq->max_sge);
			ret = EINVAL;
			break;
		}
		for (int i = 0; i < wr->num_sge; i++)
			len += wr->sg_list[i].length;
		if (len > UINT32_MAX) {
			sv_err("receive WR of %llu bytes is longer than 2^32-1",
			       (unsigned long long)len);
			ret = EINVAL;
			break;
		}
		if (wq_full(wq)) {
			sv_dbg("receive queue full");
			ret = ENOMEM;
			break;
		}
		wqe = rxe_queue_elem(&wq->q, wq->prod);
		memset(wqe, 0, sizeof(*wqe));
		wqe->wr_id = wr->wr_id;
		wqe->dma.length = (uint32_t)len;
		wqe->dma.resid = (uint32_t)len;
		wqe->dma.num_sge = (uint32_t)wr->num_sge;
		for (int i = 0; i < wr->num_sge; i++) {
			wqe->dma.sge[i].addr = wr->sg_list[i].addr;
			wqe->dma.sge[i].length = wr->sg_list[i].length;
			wqe->dma.sge[i].lkey = wr->sg_list[i].lkey;
		}
		wq->prod = rxe_queue_next(&wq->q, wq->prod);
		posted++;
	}
	if (posted)
		rxe_queue_publish_prod(&wq->q, wq->prod);
	pthread_spin_unlock(&wq->lock);
	if (ret)
		*bad_wr = wr;
	return ret;
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
		return EINVAL;
	}
	if (ibqp->srq) {
		sv_err("QP %#x receives from an SRQ: post to the SRQ",
		       ibqp->qp_num);
		*bad_wr = wr;
		return EINVAL;
	}
	return rxe_wq_post_recv(&qp->rq, wr, bad_wr);
}
