/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* uroce's queue pairs: RC, UC and UD, their state machine and their
 * attributes.
 *
 * The checks are those a verbs program meets on the kernel's rxe: the
 * core's ib_modify_qp_is_ok (the IBTA's table of transitions with the
 * attributes each requires and allows, vol. 1 11.2.5.2) and rxe's own
 * rxe_qp_chk_init / rxe_qp_chk_cap / rxe_qp_chk_attr. Every refusal is
 * EINVAL (EOPNOTSUPP for a QP type or feature uroce lacks), logged with
 * its cause, and checked before anything changes: a refused modify_qp
 * leaves the QP as it was.
 *
 * A QP's number says which context of the host's SO_REUSEPORT group on
 * UDP 4791 receives its packets (uroce_net.c): the context's slot (its
 * socket's index in the group when it joined) in bits 23-16, a number of
 * the context in bits 15-0. The context's table of QPs is indexed by
 * those low bits.
 *
 * A QP created with send_ops_flags also takes the ibv_wr_* API
 * (uroce_qp_ex.c). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "uroce.h"

/* rxe's limits (rxe_param.h) that a QP's attributes meet */
#define UROCE_MAX_QP_WR 1048576
#define UROCE_MAX_SGE 32
#define UROCE_MAX_RD_ATOM 128
_Static_assert(UROCE_RD_RES >= UROCE_MAX_RD_ATOM,
	       "a responder resource for every max_dest_rd_atomic");
/* the remote accesses a QP may grant; FLUSH's two as rxe from 6.2 takes
 * them (its responder checks them per placement type) */
#define UROCE_QP_ACCESS                                                       \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |                   \
	 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |                  \
	 SV_ACCESS_FLUSH_GLOBAL | SV_ACCESS_FLUSH_PERSISTENT)

/* ---- the transitions ------------------------------------------------------ */

/* The kernel's ib_modify_qp_is_ok: 0 or EINVAL (logged). */
static int check_transition(const struct uroce_qp *qp, int cur, int next,
			    int mask)
{
	int req, opt;

	if (next == IBV_QPS_RESET || next == IBV_QPS_ERR) {
		if (mask & ~IBV_QP_STATE) {
			sv_err("uroce: QP %#x: a move to RESET or ERR takes IBV_QP_STATE alone (attr_mask %#x)",
			       qp->core.qp.qp_num, (unsigned int)mask);
			return EINVAL;
		}
		return 0;
	}
	if (sv_qp_transition_masks(qp->core.qp.qp_type, cur, next, &req, &opt)) {
		sv_err("uroce: QP %#x cannot go from state %d to %d",
		       qp->core.qp.qp_num, cur, next);
		return EINVAL;
	}
	if ((mask & req) != req) {
		sv_err("uroce: QP %#x: attr_mask %#x lacks %#x, required from state %d to %d",
		       qp->core.qp.qp_num, (unsigned int)mask,
		       (unsigned int)(req & ~mask), cur, next);
		return EINVAL;
	}
	if (mask & ~(req | opt | IBV_QP_STATE)) {
		sv_err("uroce: QP %#x: attr_mask %#x has %#x, not allowed from state %d to %d",
		       qp->core.qp.qp_num, (unsigned int)mask,
		       (unsigned int)(mask & ~(req | opt | IBV_QP_STATE)),
		       cur, next);
		return EINVAL;
	}
	return 0;
}

/* ---- attribute values (rxe_qp_chk_attr) --------------------------------- */

static int bad(const struct uroce_qp *qp, const char *what, unsigned long v)
{
	sv_err("uroce: QP %#x: %s %lu out of range", qp->core.qp.qp_num, what, v);
	return EINVAL;
}

static int check_path_mtu(struct uroce_qp *qp, enum ibv_mtu mtu)
{
	struct ibv_port_attr port;
	int ret;

	if (mtu < IBV_MTU_256 || mtu > IBV_MTU_4096)
		return bad(qp, "path_mtu", (unsigned long)mtu);
	ret = ibv_query_port(qp->core.qp.context, 1, &port);
	if (ret)
		return ret;
	if (mtu > port.active_mtu) {
		sv_err("uroce: QP %#x: path_mtu %d above the port's active_mtu %d",
		       qp->core.qp.qp_num, 128 << mtu, 128 << port.active_mtu);
		return EINVAL;
	}
	return 0;
}

static int check_values(struct uroce_qp *qp, const struct ibv_qp_attr *a,
			int mask, struct uroce_route *peer)
{
	if ((mask & IBV_QP_PORT) && a->port_num != 1)
		return bad(qp, "port_num", a->port_num);
	if ((mask & IBV_QP_PKEY_INDEX) && a->pkey_index != 0)
		return bad(qp, "pkey_index", a->pkey_index);
	if ((mask & IBV_QP_ACCESS_FLAGS) &&
	    (a->qp_access_flags & ~(unsigned int)UROCE_QP_ACCESS))
		return bad(qp, "qp_access_flags", a->qp_access_flags);
	if ((mask & IBV_QP_TIMEOUT) && a->timeout > 31)
		return bad(qp, "timeout", a->timeout);
	if ((mask & IBV_QP_RETRY_CNT) && a->retry_cnt > 7)
		return bad(qp, "retry_cnt", a->retry_cnt);
	if ((mask & IBV_QP_RNR_RETRY) && a->rnr_retry > 7)
		return bad(qp, "rnr_retry", a->rnr_retry);
	if ((mask & IBV_QP_MIN_RNR_TIMER) && a->min_rnr_timer > 31)
		return bad(qp, "min_rnr_timer", a->min_rnr_timer);
	if ((mask & IBV_QP_MAX_QP_RD_ATOMIC) &&
	    a->max_rd_atomic > UROCE_MAX_RD_ATOM)
		return bad(qp, "max_rd_atomic", a->max_rd_atomic);
	if ((mask & IBV_QP_MAX_DEST_RD_ATOMIC) &&
	    a->max_dest_rd_atomic > UROCE_MAX_RD_ATOM)
		return bad(qp, "max_dest_rd_atomic", a->max_dest_rd_atomic);
	if ((mask & IBV_QP_DEST_QPN) && a->dest_qp_num > UROCE_QPN_MASK)
		return bad(qp, "dest_qp_num", a->dest_qp_num);
	if (mask & IBV_QP_PATH_MTU) {
		int ret = check_path_mtu(qp, a->path_mtu);

		if (ret)
			return ret;
	}
	if (mask & IBV_QP_AV)
		return uroce_av_resolve(qp->ctx, &a->ah_attr, peer);
	return 0;
}

/* ---- completions and the error state ------------------------------------- */

void uroce_complete_send(struct uroce_qp *qp, const struct uroce_swqe *wqe,
			 enum ibv_wc_status status)
{
	static const enum ibv_wc_opcode opcodes[] = {
		[IBV_WR_RDMA_WRITE] = IBV_WC_RDMA_WRITE,
		[IBV_WR_RDMA_WRITE_WITH_IMM] = IBV_WC_RDMA_WRITE,
		[IBV_WR_SEND] = IBV_WC_SEND,
		[IBV_WR_SEND_WITH_IMM] = IBV_WC_SEND,
		[IBV_WR_RDMA_READ] = IBV_WC_RDMA_READ,
		[IBV_WR_ATOMIC_CMP_AND_SWP] = IBV_WC_COMP_SWAP,
		[IBV_WR_ATOMIC_FETCH_AND_ADD] = IBV_WC_FETCH_ADD,
		[IBV_WR_LOCAL_INV] = IBV_WC_LOCAL_INV,
		[IBV_WR_BIND_MW] = IBV_WC_BIND_MW,
		[IBV_WR_SEND_WITH_INV] = IBV_WC_SEND,
		[SV_WR_FLUSH] = SV_WC_FLUSH,
		[IBV_WR_ATOMIC_WRITE] = IBV_WC_ATOMIC_WRITE,
	};
	struct ibv_wc wc = {
		.wr_id = wqe->wr_id,
		.status = status,
		.qp_num = qp->core.qp.qp_num,
	};

	/* rxe's do_complete counts every SEND WQE it completes */
	if (wqe->opcode == IBV_WR_SEND || wqe->opcode == IBV_WR_SEND_WITH_IMM ||
	    wqe->opcode == IBV_WR_SEND_WITH_INV)
		uroce_count(qp->ctx, UROCE_CTR_RDMA_SEND);
	if (status == IBV_WC_SUCCESS && !wqe->signaled && !qp->sq_sig_all)
		return;
	if ((size_t)wqe->opcode < sizeof(opcodes) / sizeof(opcodes[0]))
		wc.opcode = opcodes[wqe->opcode];
	wc.byte_len = wqe->len;
	if (uroce_cq_push(to_uroce_cq(qp->core.qp.send_cq), &wc, false))
		qp->attr.qp_state = IBV_QPS_ERR;
}

static void flush_queues(struct uroce_qp *qp)
{
	while (qp->sq_head != qp->sq_tail) {
		struct uroce_swqe *w = &qp->sq[qp->sq_head++ % qp->sq_slots];

		uroce_complete_send(qp, w, IBV_WC_WR_FLUSH_ERR);
		free(w->data);
		w->data = NULL;
	}
	/* a WQE taken from the SRQ goes with the QP; the SRQ's others
	 * stay for its other QPs */
	if (qp->srq && qp->resp.have_wqe) {
		struct ibv_wc wc = { .wr_id = qp->srq_wqe.wr_id,
				     .status = IBV_WC_WR_FLUSH_ERR,
				     .opcode = IBV_WC_RECV,
				     .qp_num = qp->core.qp.qp_num };

		uroce_cq_push(to_uroce_cq(qp->core.qp.recv_cq), &wc, false);
	}
	while (qp->rq_head != qp->rq_tail) {
		struct uroce_rwqe *w = &qp->rq[qp->rq_head++ % qp->rq_slots];
		struct ibv_wc wc = { .wr_id = w->wr_id,
				     .status = IBV_WC_WR_FLUSH_ERR,
				     .opcode = IBV_WC_RECV,
				     .qp_num = qp->core.qp.qp_num };

		uroce_cq_push(to_uroce_cq(qp->core.qp.recv_cq), &wc, false);
	}
	memset(&qp->resp, 0, sizeof(qp->resp));
}

void uroce_qp_to_error(struct uroce_qp *qp)
{
	qp->attr.qp_state = IBV_QPS_ERR;
	qp->timer_ns = 0;
	flush_queues(qp);
	uroce_req_reset(qp);
}

/* RESET: the queues empty without completions, as rxe_qp_reset. */
static void qp_reset(struct uroce_qp *qp)
{
	for (uint32_t i = qp->sq_head; i != qp->sq_tail; i++) {
		free(qp->sq[i % qp->sq_slots].data);
		qp->sq[i % qp->sq_slots].data = NULL;
	}
	qp->sq_head = qp->sq_tail = 0;
	qp->rq_head = qp->rq_tail = 0;
	qp->sq_psn = qp->rq_psn = qp->msn = 0;
	qp->nak_sent = false;
	qp->timer_ns = 0;
	qp->rnr_wait = false;
	memset(&qp->resp, 0, sizeof(qp->resp));
	memset(qp->rd_res, 0, sizeof(qp->rd_res));
	qp->rd_res_next = 0;
	uroce_req_reset(qp);
}

/* ---- modify, query ------------------------------------------------------ */

static void apply(struct uroce_qp *qp, const struct ibv_qp_attr *a, int mask,
		  const struct uroce_route *peer)
{
	struct ibv_qp_attr *q = &qp->attr;

#define TAKE(bit, field) if (mask & IBV_QP_##bit) q->field = a->field
	TAKE(PKEY_INDEX, pkey_index);
	TAKE(PORT, port_num);
	TAKE(QKEY, qkey);
	TAKE(ACCESS_FLAGS, qp_access_flags);
	TAKE(AV, ah_attr);
	TAKE(PATH_MTU, path_mtu);
	TAKE(TIMEOUT, timeout);
	TAKE(RETRY_CNT, retry_cnt);
	TAKE(RNR_RETRY, rnr_retry);
	TAKE(MIN_RNR_TIMER, min_rnr_timer);
	TAKE(MAX_QP_RD_ATOMIC, max_rd_atomic);
	TAKE(MAX_DEST_RD_ATOMIC, max_dest_rd_atomic);
	TAKE(DEST_QPN, dest_qp_num);
	TAKE(PATH_MIG_STATE, path_mig_state);
	TAKE(EN_SQD_ASYNC_NOTIFY, en_sqd_async_notify);
#undef TAKE
	/* rxe keeps (and reports) the next power of two: its requester's
	 * READ/atomic window (rxe_qp_from_attr) */
	if ((mask & IBV_QP_MAX_QP_RD_ATOMIC) && q->max_rd_atomic)
		while (q->max_rd_atomic & (q->max_rd_atomic - 1))
			q->max_rd_atomic += q->max_rd_atomic & -q->max_rd_atomic;
	/* and its responder's ring of resources, made anew */
	if (mask & IBV_QP_MAX_DEST_RD_ATOMIC) {
		while (q->max_dest_rd_atomic & (q->max_dest_rd_atomic - 1))
			q->max_dest_rd_atomic += q->max_dest_rd_atomic &
						 -q->max_dest_rd_atomic;
		memset(qp->rd_res, 0, sizeof(qp->rd_res));
		qp->rd_res_next = 0;
	}
	if (mask & IBV_QP_AV)
		qp->peer = *peer;
	if (mask & IBV_QP_RQ_PSN) {
		q->rq_psn = a->rq_psn & UROCE_PSN_MASK;
		qp->rq_psn = q->rq_psn;
	}
	if (mask & IBV_QP_SQ_PSN) {
		q->sq_psn = a->sq_psn & UROCE_PSN_MASK;
		qp->sq_psn = q->sq_psn;
		uroce_req_reset(qp);
	}
	if (!(mask & IBV_QP_STATE))
		return;
	if (a->qp_state == IBV_QPS_RESET)
		qp_reset(qp);
	else if (a->qp_state == IBV_QPS_ERR && q->qp_state != IBV_QPS_ERR)
		uroce_qp_to_error(qp);
	if (a->qp_state == IBV_QPS_RTS) {
		qp->retry_left = q->retry_cnt;
		qp->rnr_left = q->rnr_retry;
	}
	q->qp_state = a->qp_state;
	q->cur_qp_state = a->qp_state;
}

int uroce_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		    int attr_mask)
{
	struct uroce_qp *qp = to_uroce_qp(ibqp);
	struct uroce_route peer = { 0 };
	int cur, next, ret;

	/* the values first, without the QP's lock: resolving an AV takes
	 * the context's qp_lock, which comes before the QP's lock */
	ret = check_values(qp, attr, attr_mask, &peer);
	if (ret)
		return ret;
	pthread_mutex_lock(&qp->lock);
	cur = qp->attr.qp_state;
	next = (attr_mask & IBV_QP_STATE) ? (int)attr->qp_state : cur;
	if ((attr_mask & IBV_QP_CUR_STATE) && (int)attr->cur_qp_state != cur) {
		sv_err("uroce: QP %#x: cur_qp_state %d, but the QP is in state %d",
		       ibqp->qp_num, attr->cur_qp_state, cur);
		ret = EINVAL;
	} else if (next < IBV_QPS_RESET || next > IBV_QPS_ERR) {
		ret = bad(qp, "qp_state", (unsigned long)next);
	} else {
		ret = check_transition(qp, cur, next, attr_mask);
	}
	if (!ret)
		apply(qp, attr, attr_mask, &peer);
	pthread_mutex_unlock(&qp->lock);
	return ret;
}

int uroce_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct uroce_qp *qp = to_uroce_qp(ibqp);

	(void)attr_mask; /* rxe answers every attribute whatever the mask */
	pthread_mutex_lock(&qp->lock);
	*attr = qp->attr;
	attr->sq_psn = qp->sq_psn;
	attr->rq_psn = qp->rq_psn;
	pthread_mutex_unlock(&qp->lock);
	attr->cur_qp_state = attr->qp_state;
	attr->cap = qp->cap;
	attr->sq_draining = 0;
	memset(init_attr, 0, sizeof(*init_attr));
	init_attr->qp_context = ibqp->qp_context;
	init_attr->send_cq = ibqp->send_cq;
	init_attr->recv_cq = ibqp->recv_cq;
	init_attr->srq = ibqp->srq;
	init_attr->cap = qp->cap;
	init_attr->qp_type = ibqp->qp_type;
	init_attr->sq_sig_all = qp->sq_sig_all;
	return 0;
}

/* ---- create, destroy ------------------------------------------------------ */

static int check_init(struct ibv_context *ibctx,
		      const struct ibv_qp_init_attr_ex *a)
{
	const struct ibv_qp_cap *c = &a->cap;

	if (a->qp_type != IBV_QPT_RC && a->qp_type != IBV_QPT_UC &&
	    a->qp_type != IBV_QPT_UD) {
		sv_err("uroce: QP type %d: uroce has RC, UC and UD QPs",
		       a->qp_type);
		return EOPNOTSUPP;
	}
	if (a->comp_mask & ~(uint32_t)(IBV_QP_INIT_ATTR_PD |
				       IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)) {
		sv_err("uroce: create_qp comp_mask %#x: only IBV_QP_INIT_ATTR_PD and _SEND_OPS_FLAGS are supported yet",
		       a->comp_mask);
		return EOPNOTSUPP;
	}
	/* rdma-core's rxe: a send op the QP type cannot post is EOPNOTSUPP */
	if ((a->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	    (a->send_ops_flags & ~uroce_qp_ex_ops(a->qp_type))) {
		sv_err("uroce: send_ops_flags %#llx: a %s QP takes %#llx",
		       (unsigned long long)a->send_ops_flags,
		       sv_qp_type_name(a->qp_type),
		       (unsigned long long)uroce_qp_ex_ops(a->qp_type));
		return EOPNOTSUPP;
	}
	if (a->srq && a->srq->context != ibctx) {
		sv_err("uroce: create_qp: the SRQ is another context's");
		return EINVAL;
	}
	if (!a->pd || a->pd->context != ibctx || !a->send_cq || !a->recv_cq ||
	    a->send_cq->context != ibctx || a->recv_cq->context != ibctx) {
		sv_err("uroce: create_qp needs a PD, a send CQ and a receive CQ of this context");
		return EINVAL;
	}
	if (c->max_send_wr > UROCE_MAX_QP_WR ||
	    (!a->srq && c->max_recv_wr > UROCE_MAX_QP_WR) ||
	    c->max_send_sge > UROCE_MAX_SGE ||
	    (!a->srq && c->max_recv_sge > UROCE_MAX_SGE) ||
	    c->max_inline_data > UROCE_MAX_INLINE) {
		sv_err("uroce: QP caps above rxe's limits (wr %d, sge %d, inline %d)",
		       UROCE_MAX_QP_WR, UROCE_MAX_SGE, UROCE_MAX_INLINE);
		return EINVAL;
	}
	return 0;
}

/* What the send queue grants, as rxe_init_sq: a WQE has room for the
 * larger of max_send_sge SGEs and max_inline_data bytes, and the QP
 * gets all the SGEs and inline bytes that room holds (a QP made for
 * inline data alone, max_send_sge 0, posts its inline WRs with SGEs;
 * rdma-core's rxe checks num_sge against what the kernel granted). */
static void grant_send_caps(struct ibv_qp_cap *cap)
{
	uint32_t room = cap->max_send_sge * (uint32_t)sizeof(struct ibv_sge);

	if (cap->max_inline_data > room)
		room = cap->max_inline_data;
	cap->max_send_sge = room / (uint32_t)sizeof(struct ibv_sge);
	cap->max_inline_data = room;
}

static int alloc_queues(struct uroce_qp *qp)
{
	qp->sq_slots = qp->cap.max_send_wr ? qp->cap.max_send_wr : 1;
	qp->rq_slots = qp->cap.max_recv_wr ? qp->cap.max_recv_wr : 1;
	qp->sq = calloc(qp->sq_slots, sizeof(*qp->sq));
	qp->rq = calloc(qp->rq_slots, sizeof(*qp->rq));
	qp->rq_sge = calloc((size_t)qp->rq_slots * (qp->cap.max_recv_sge + 1),
			    sizeof(*qp->rq_sge));
	if (qp->srq)
		qp->srq_wqe.sge = calloc(qp->srq->max_sge + 1,
					 sizeof(*qp->srq_wqe.sge));
	if (!qp->sq || !qp->rq || !qp->rq_sge || (qp->srq && !qp->srq_wqe.sge))
		return ENOMEM;
	for (uint32_t i = 0; i < qp->rq_slots; i++)
		qp->rq[i].sge = qp->rq_sge + (size_t)i * (qp->cap.max_recv_sge + 1);
	return 0;
}

static void cq_refs(struct uroce_qp *qp, int delta)
{
	atomic_fetch_add(&to_uroce_cq(qp->core.qp.send_cq)->qp_refs, delta);
	atomic_fetch_add(&to_uroce_cq(qp->core.qp.recv_cq)->qp_refs, delta);
}

static void qp_free(struct uroce_qp *qp)
{
	if (qp->sq)
		for (uint32_t i = 0; i < qp->sq_slots; i++)
			free(qp->sq[i].data);
	free(qp->sq);
	free(qp->rq);
	free(qp->rq_sge);
	free(qp->srq_wqe.sge);
	uroce_qp_ex_fini(qp);
	pthread_mutex_destroy(&qp->lock);
	pthread_cond_destroy(&qp->core.qp.cond);
	pthread_mutex_destroy(&qp->core.qp.mutex);
	free(qp);
}

/* A free QPN for qp in the context's table (qp_lock held): 0 or ENOMEM
 * when its 65,520 numbers are all taken. */
static int qpn_insert(struct uroce_context *ctx, struct uroce_qp *qp)
{
	uint32_t span = UROCE_QPN_LOW_MASK + 1 - UROCE_QPN_LOW_MIN;

	if (!ctx->qps) {
		ctx->qps = calloc(UROCE_QPN_LOW_MASK + 1, sizeof(*ctx->qps));
		if (!ctx->qps)
			return ENOMEM;
		ctx->next_qpn = UROCE_QPN_LOW_MIN + 1;
	}
	for (uint32_t i = 0; i < span; i++) {
		uint32_t low = UROCE_QPN_LOW_MIN +
			       (ctx->next_qpn - UROCE_QPN_LOW_MIN + i) % span;

		if (ctx->qps[low])
			continue;
		ctx->qps[low] = qp;
		ctx->next_qpn = low + 1;
		qp->core.qp.qp_num = uroce_net_slot(ctx) << UROCE_QPN_SLOT_SHIFT |
				     low;
		return 0;
	}
	sv_err("uroce: the context's %u QP numbers are all taken", span);
	return ENOMEM;
}

struct uroce_qp *uroce_qp_find(struct uroce_context *ctx, uint32_t qpn)
{
	uint32_t low = qpn & UROCE_QPN_LOW_MASK;
	struct uroce_qp *qp;

	if (!ctx->qps || !ctx->net || qpn >> UROCE_QPN_SLOT_SHIFT !=
					      uroce_net_slot(ctx))
		return NULL;
	qp = ctx->qps[low];
	return qp && qp->core.qp.qp_num == qpn ? qp : NULL;
}

static void init_core(struct uroce_qp *qp, struct ibv_context *ibctx,
		      const struct ibv_qp_init_attr_ex *a)
{
	struct ibv_qp *ibqp = &qp->core.qp;

	ibqp->context = ibctx;
	ibqp->qp_context = a->qp_context;
	ibqp->pd = a->pd;
	ibqp->send_cq = a->send_cq;
	ibqp->recv_cq = a->recv_cq;
	ibqp->srq = a->srq;
	ibqp->handle = (uint32_t)(uintptr_t)qp;
	ibqp->state = IBV_QPS_RESET;
	ibqp->qp_type = a->qp_type;
	ibqp->events_completed = 0;
	pthread_mutex_init(&ibqp->mutex, NULL);
	pthread_cond_init(&ibqp->cond, NULL);
	qp->attr.qp_state = IBV_QPS_RESET;
	qp->attr.port_num = 1;
	qp->attr.path_mtu = IBV_MTU_256;
	qp->attr.path_mig_state = IBV_MIG_MIGRATED;
}

static int port_mtu(struct uroce_context *ctx, uint32_t *bytes)
{
	struct uroce_netdev nd;
	int ret = uroce_netdev_query(ctx->netdev, &nd);

	if (ret)
		return ret;
	*bytes = 128u << uroce_active_mtu(nd.mtu);
	return 0;
}

struct ibv_qp *uroce_create_qp_ex(struct ibv_context *ibctx,
				  struct ibv_qp_init_attr_ex *attr)
{
	struct uroce_context *ctx = to_uroce_context(ibctx);
	struct uroce_qp *qp;
	int ret = check_init(ibctx, attr);

	if (ret)
		goto err;
	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		ret = ENOMEM;
		goto err;
	}
	pthread_mutex_init(&qp->lock, NULL);
	qp->ctx = ctx;
	grant_send_caps(&attr->cap);
	qp->cap = attr->cap;
	if (attr->srq) {
		/* the SRQ's WQEs, not the QP's: rxe reports no receive queue */
		qp->srq = to_uroce_srq(attr->srq);
		qp->cap.max_recv_wr = qp->cap.max_recv_sge = 0;
		attr->cap.max_recv_wr = attr->cap.max_recv_sge = 0;
	}
	qp->sq_sig_all = attr->sq_sig_all;
	init_core(qp, ibctx, attr);
	ret = port_mtu(ctx, &qp->ud_mtu);
	if (!ret)
		ret = alloc_queues(qp);
	if (!ret && (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		ret = uroce_qp_ex_init(qp);
	if (ret)
		goto err_free;
	pthread_mutex_lock(&ctx->qp_lock);
	ret = uroce_net_start(ctx);
	if (!ret)
		ret = qpn_insert(ctx, qp);
	if (!ret && attr->qp_type == IBV_QPT_RC) {
		qp->rc_next = ctx->rc_qps;
		ctx->rc_qps = qp;
	}
	pthread_mutex_unlock(&ctx->qp_lock);
	if (ret)
		goto err_free;
	cq_refs(qp, 1);
	if (qp->srq)
		atomic_fetch_add(&qp->srq->qp_refs, 1);
	return &qp->core.qp;

err_free:
	qp_free(qp);
err:
	errno = ret;
	return NULL;
}

/* ibv_create_qp (a kernelless context has no generic one) */
struct ibv_qp *uroce_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ex = sv_qp_init_attr_ex(pd, attr);
	struct ibv_qp *qp = uroce_create_qp_ex(pd->context, &ex);

	if (qp)
		attr->cap = ex.cap;
	return qp;
}

int uroce_destroy_qp(struct ibv_qp *ibqp)
{
	struct uroce_qp *qp = to_uroce_qp(ibqp);
	struct uroce_context *ctx = qp->ctx;

	/* the progress thread handles each packet under qp_lock: once the
	 * QP is out of the table, no packet reaches it */
	pthread_mutex_lock(&ctx->qp_lock);
	ctx->qps[ibqp->qp_num & UROCE_QPN_LOW_MASK] = NULL;
	for (struct uroce_qp **p = &ctx->rc_qps; *p; p = &(*p)->rc_next) {
		if (*p == qp) {
			*p = qp->rc_next;
			break;
		}
	}
	pthread_mutex_unlock(&ctx->qp_lock);
	cq_refs(qp, -1);
	if (qp->srq)
		atomic_fetch_sub(&qp->srq->qp_refs, 1);
	uroce_mw_forget_qp(qp);
	qp_free(qp);
	return 0;
}

void uroce_qp_release_context(struct uroce_context *ctx)
{
	if (!ctx->qps)
		return;
	for (uint32_t i = 0; i <= UROCE_QPN_LOW_MASK; i++)
		if (ctx->qps[i])
			qp_free(ctx->qps[i]);
	free(ctx->qps);
	ctx->qps = NULL;
	ctx->rc_qps = NULL;
}
