/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Queue pair commands. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "core.h"

void sv_cmd_qp_init(struct ibv_qp *q, struct ibv_context *ctx,
		    struct ibv_qp_init_attr_ex *attr,
		    const struct ib_uverbs_create_qp_resp *resp)
{
	q->context = ctx;
	q->qp_context = attr->qp_context;
	q->pd = attr->pd;
	q->send_cq = attr->send_cq;
	q->recv_cq = attr->recv_cq;
	q->srq = attr->srq;
	q->handle = resp->qp_handle;
	q->qp_num = resp->qpn;
	q->state = IBV_QPS_RESET;
	q->qp_type = attr->qp_type;
	q->events_completed = 0;
	pthread_mutex_init(&q->mutex, NULL);
	pthread_cond_init(&q->cond, NULL);
	/* what the kernel granted */
	attr->cap.max_send_wr = resp->max_send_wr;
	attr->cap.max_recv_wr = resp->max_recv_wr;
	attr->cap.max_send_sge = resp->max_send_sge;
	attr->cap.max_recv_sge = resp->max_recv_sge;
	attr->cap.max_inline_data = resp->max_inline_data;
}

int sv_cmd_create_qp_base(struct ibv_context *ctx, struct ibv_qp *qp,
			  struct ibv_qp_init_attr_ex *attr,
			  struct sv_udata *udata, int ex)
{
	struct ib_uverbs_create_qp_resp *base;
	struct ib_uverbs_ex_create_qp_resp resp = { 0 };
	int ret;

	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd)
		return EINVAL;
	if (attr->comp_mask & ~(uint32_t)(IBV_QP_INIT_ATTR_PD |
					  IBV_QP_INIT_ATTR_CREATE_FLAGS |
					  IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		return EOPNOTSUPP;
	base = &resp.base;

	/* the legacy command unless create flags need the extended one */
	if (!ex) {
		struct ib_uverbs_create_qp req = {
			.user_handle = (uintptr_t)qp,
			.pd_handle = attr->pd->handle,
			.send_cq_handle = attr->send_cq ? attr->send_cq->handle : 0,
			.recv_cq_handle = attr->recv_cq ? attr->recv_cq->handle : 0,
			.srq_handle = attr->srq ? attr->srq->handle : 0,
			.max_send_wr = attr->cap.max_send_wr,
			.max_recv_wr = attr->cap.max_recv_wr,
			.max_send_sge = attr->cap.max_send_sge,
			.max_recv_sge = attr->cap.max_recv_sge,
			.max_inline_data = attr->cap.max_inline_data,
			.sq_sig_all = (uint8_t)(attr->sq_sig_all ? 1 : 0),
			.qp_type = (uint8_t)attr->qp_type,
			.is_srq = (uint8_t)(attr->srq ? 1 : 0),
		};

		ret = sv_cmd_write(ctx, IB_USER_VERBS_CMD_CREATE_QP, &req,
				   sizeof(req), base, sizeof(*base), udata);
	} else {
		struct ib_uverbs_ex_create_qp req = {
			.user_handle = (uintptr_t)qp,
			.pd_handle = attr->pd->handle,
			.send_cq_handle = attr->send_cq ? attr->send_cq->handle : 0,
			.recv_cq_handle = attr->recv_cq ? attr->recv_cq->handle : 0,
			.srq_handle = attr->srq ? attr->srq->handle : 0,
			.max_send_wr = attr->cap.max_send_wr,
			.max_recv_wr = attr->cap.max_recv_wr,
			.max_send_sge = attr->cap.max_send_sge,
			.max_recv_sge = attr->cap.max_recv_sge,
			.max_inline_data = attr->cap.max_inline_data,
			.sq_sig_all = (uint8_t)(attr->sq_sig_all ? 1 : 0),
			.qp_type = (uint8_t)attr->qp_type,
			.is_srq = (uint8_t)(attr->srq ? 1 : 0),
			.create_flags = (attr->comp_mask &
					 IBV_QP_INIT_ATTR_CREATE_FLAGS) ?
						attr->create_flags : 0,
		};

		ret = sv_cmd_write_ex(ctx, IB_USER_VERBS_EX_CMD_CREATE_QP, &req,
				      sizeof(req), &resp, sizeof(resp), udata);
		if (!ret && resp.response_length < sizeof(resp.base)) {
			sv_err("CREATE_QP_EX: short response (%u bytes)",
			       resp.response_length);
			ret = EPROTO;
		}
	}
	if (ret)
		return ret;
	sv_cmd_qp_init(qp, ctx, attr, base);
	return 0;
}

/* ---- address vectors ---------------------------------------------------- */

/* The fields struct ibv_ah_attr shares with the kernel's forms of it,
 * named alike: G(f) those of its GRH (flat in ib_uverbs_qp_dest, in .grh
 * in ib_uverbs_ah_attr), A(f) the others. The dgid is copied apart
 * (bytes on one side, a union on the other). Field by field: the kernel's
 * structs order and size them differently. */
#define AH_ATTR_FIELDS(G, A)                                                  \
	G(flow_label) G(sgid_index) G(hop_limit) G(traffic_class)             \
	A(dlid) A(sl) A(src_path_bits) A(static_rate) A(is_global)            \
	A(port_num)

void sv_ah_attr_from_dest(struct ibv_ah_attr *dst,
			  const struct ib_uverbs_qp_dest *src)
{
#define G(f) dst->grh.f = src->f;
#define A(f) dst->f = src->f;
	memcpy(dst->grh.dgid.raw, src->dgid, sizeof(dst->grh.dgid.raw));
	AH_ATTR_FIELDS(G, A)
#undef A
#undef G
}

void sv_ah_attr_to_dest(struct ib_uverbs_qp_dest *dst,
			const struct ibv_ah_attr *src)
{
#define G(f) dst->f = src->grh.f;
#define A(f) dst->f = src->f;
	memcpy(dst->dgid, src->grh.dgid.raw, sizeof(dst->dgid));
	AH_ATTR_FIELDS(G, A)
#undef A
#undef G
}

void sv_ah_attr_from_kern(struct ibv_ah_attr *dst,
			  const struct ib_uverbs_ah_attr *src)
{
#define G(f) dst->grh.f = src->grh.f;
#define A(f) dst->f = src->f;
	memcpy(dst->grh.dgid.raw, src->grh.dgid, sizeof(dst->grh.dgid.raw));
	AH_ATTR_FIELDS(G, A)
#undef A
#undef G
}

static int create_qp(struct ibv_context *ctx, struct sv_qp *qp,
		     struct ibv_qp_init_attr_ex *attr, struct sv_udata *udata,
		     int ex)
{
	int ret = sv_cmd_create_qp_base(ctx, &qp->qp, attr, udata, ex);

	if (!ret) {
		/* the provider sets SV_QP_EX when it gives the QP the ex
		 * API */
		qp->comp_mask = 0;
		qp->xrcd = NULL;
	}
	return ret;
}

int sv_cmd_create_qp(struct ibv_context *ctx, struct sv_qp *qp,
		     struct ibv_qp_init_attr_ex *attr, struct sv_udata *udata)
{
	return create_qp(ctx, qp, attr, udata,
			 (attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
				 attr->create_flags);
}

int sv_cmd_create_qp_ex(struct ibv_context *ctx, struct sv_qp *qp,
			struct ibv_qp_init_attr_ex *attr, struct sv_udata *udata)
{
	return create_qp(ctx, qp, attr, udata, 1);
}

int sv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		    int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct ib_uverbs_query_qp req = {
		.qp_handle = qp->handle,
		.attr_mask = (uint32_t)attr_mask,
	};
	struct ib_uverbs_query_qp_resp resp;
	int ret;

	memset(&resp, 0, sizeof(resp));
	ret = sv_cmd_write(qp->context, IB_USER_VERBS_CMD_QUERY_QP, &req,
			   sizeof(req), &resp, sizeof(resp), NULL);
	if (ret)
		return ret;

	attr->qkey = resp.qkey;
	attr->rq_psn = resp.rq_psn;
	attr->sq_psn = resp.sq_psn;
	attr->dest_qp_num = resp.dest_qp_num;
	attr->qp_access_flags = (unsigned int)resp.qp_access_flags;
	attr->pkey_index = resp.pkey_index;
	attr->alt_pkey_index = resp.alt_pkey_index;
	attr->qp_state = (enum ibv_qp_state)resp.qp_state;
	attr->cur_qp_state = (enum ibv_qp_state)resp.cur_qp_state;
	attr->path_mtu = (enum ibv_mtu)resp.path_mtu;
	attr->path_mig_state = (enum ibv_mig_state)resp.path_mig_state;
	attr->sq_draining = resp.sq_draining;
	attr->max_rd_atomic = resp.max_rd_atomic;
	attr->max_dest_rd_atomic = resp.max_dest_rd_atomic;
	attr->min_rnr_timer = resp.min_rnr_timer;
	attr->port_num = resp.port_num;
	attr->timeout = resp.timeout;
	attr->retry_cnt = resp.retry_cnt;
	attr->rnr_retry = resp.rnr_retry;
	attr->alt_port_num = resp.alt_port_num;
	attr->alt_timeout = resp.alt_timeout;
	attr->cap.max_send_wr = resp.max_send_wr;
	attr->cap.max_recv_wr = resp.max_recv_wr;
	attr->cap.max_send_sge = resp.max_send_sge;
	attr->cap.max_recv_sge = resp.max_recv_sge;
	attr->cap.max_inline_data = resp.max_inline_data;
	sv_ah_attr_from_dest(&attr->ah_attr, &resp.dest);
	sv_ah_attr_from_dest(&attr->alt_ah_attr, &resp.alt_dest);

	if (init_attr) {
		init_attr->qp_context = qp->qp_context;
		init_attr->send_cq = qp->send_cq;
		init_attr->recv_cq = qp->recv_cq;
		init_attr->srq = qp->srq;
		init_attr->qp_type = qp->qp_type;
		init_attr->cap = attr->cap;
		init_attr->sq_sig_all = resp.sq_sig_all;
	}
	return 0;
}

int sv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		     int attr_mask, struct sv_udata *udata)
{
	struct ib_uverbs_modify_qp req;
	int ret;

	memset(&req, 0, sizeof(req));
	req.qp_handle = qp->handle;
	req.attr_mask = (uint32_t)attr_mask;
	req.qkey = attr->qkey;
	req.rq_psn = attr->rq_psn;
	req.sq_psn = attr->sq_psn;
	req.dest_qp_num = attr->dest_qp_num;
	req.qp_access_flags = attr->qp_access_flags;
	req.pkey_index = attr->pkey_index;
	req.alt_pkey_index = attr->alt_pkey_index;
	req.qp_state = (uint8_t)attr->qp_state;
	req.cur_qp_state = (uint8_t)attr->cur_qp_state;
	req.path_mtu = (uint8_t)attr->path_mtu;
	req.path_mig_state = (uint8_t)attr->path_mig_state;
	req.en_sqd_async_notify = attr->en_sqd_async_notify;
	req.max_rd_atomic = attr->max_rd_atomic;
	req.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	req.min_rnr_timer = attr->min_rnr_timer;
	req.port_num = attr->port_num;
	req.timeout = attr->timeout;
	req.retry_cnt = attr->retry_cnt;
	req.rnr_retry = attr->rnr_retry;
	req.alt_port_num = attr->alt_port_num;
	req.alt_timeout = attr->alt_timeout;
	sv_ah_attr_to_dest(&req.dest, &attr->ah_attr);
	sv_ah_attr_to_dest(&req.alt_dest, &attr->alt_ah_attr);

	ret = sv_cmd_write(qp->context, IB_USER_VERBS_CMD_MODIFY_QP, &req,
			   sizeof(req), NULL, 0, udata);
	if (ret)
		return ret;
	if (attr_mask & IBV_QP_STATE)
		qp->state = attr->qp_state;
	return 0;
}

int sv_cmd_destroy_qp(struct ibv_qp *qp)
{
	struct ib_uverbs_destroy_qp req = { .qp_handle = qp->handle };
	struct ib_uverbs_destroy_qp_resp resp = { 0 };
	int ret;

	ret = sv_cmd_write(qp->context, IB_USER_VERBS_CMD_DESTROY_QP, &req,
			   sizeof(req), &resp, sizeof(resp), NULL);
	if (ret)
		return ret;
	pthread_mutex_lock(&qp->mutex);
	while (qp->events_completed != resp.events_reported)
		pthread_cond_wait(&qp->cond, &qp->mutex);
	pthread_mutex_unlock(&qp->mutex);
	pthread_cond_destroy(&qp->cond);
	pthread_mutex_destroy(&qp->mutex);
	return 0;
}

