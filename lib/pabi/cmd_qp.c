/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rdma-core 44's QP helpers beyond the soft providers' set
 * (IBVERBS_PRIVATE_34): create_qp_ex (the CREATE_QP write command for the
 * XRC-aware verbs_qp), open_qp (a shareable XRC target QP) and
 * modify_qp_ex (the extended MODIFY_QP, with rate limit and a driver
 * response). All go through the write ABI with the driver's data as
 * trailers, which every kernel with uverbs ABI 6 takes. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "pabi.h"

SV_EXPORT int ibv_cmd_create_qp_ex(struct ibv_context *context,
				   struct verbs_qp *vqp,
				   struct ibv_qp_init_attr_ex *attr_ex,
				   void *cmd, size_t cmd_size, void *resp,
				   size_t resp_size)
{
	struct ib_uverbs_create_qp req;
	struct ib_uverbs_create_qp_resp kresp = { 0 };
	struct ibv_qp *qp = (struct ibv_qp *)vqp;
	struct verbs_xrcd *vxrcd = NULL;
	int ret;

	/* the extended fields (create flags, RSS, TSO) need create_qp_ex2 */
	if (attr_ex->comp_mask & ~(uint32_t)(IBV_QP_INIT_ATTR_PD |
					     IBV_QP_INIT_ATTR_XRCD |
					     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)) {
		sv_dbg("create_qp_ex: comp_mask 0x%x needs create_qp_ex2",
		       attr_ex->comp_mask);
		errno = EINVAL;
		return EINVAL;
	}
	qp->context = context;
	memset(&req, 0, sizeof(req));

	switch (attr_ex->qp_type) {
	case IBV_QPT_XRC_RECV:
		/* a receive-side XRC QP belongs to a domain, not a PD */
		if (!(attr_ex->comp_mask & IBV_QP_INIT_ATTR_XRCD) ||
		    !attr_ex->xrcd)
			goto err_input;
		vxrcd = container_of(attr_ex->xrcd, struct verbs_xrcd, xrcd);
		req.pd_handle = vxrcd->handle;
		break;
	case IBV_QPT_RC:
	case IBV_QPT_UD:
	case IBV_QPT_UC:
	case IBV_QPT_RAW_PACKET:
	case IBV_QPT_XRC_SEND:
	case IBV_QPT_DRIVER:
		if (!(attr_ex->comp_mask & IBV_QP_INIT_ATTR_PD) ||
		    !attr_ex->pd || !attr_ex->send_cq)
			goto err_input;
		req.pd_handle = attr_ex->pd->handle;
		req.send_cq_handle = attr_ex->send_cq->handle;
		if (attr_ex->qp_type != IBV_QPT_XRC_SEND) {
			if (!attr_ex->recv_cq)
				goto err_input;
			req.recv_cq_handle = attr_ex->recv_cq->handle;
		} else {
			/* an XRC send QP has no receive queue of its own */
			attr_ex->cap.max_recv_wr = 0;
			attr_ex->cap.max_recv_sge = 0;
		}
		break;
	default:
		goto err_input;
	}

	req.user_handle = (uintptr_t)qp;
	req.max_send_wr = attr_ex->cap.max_send_wr;
	req.max_recv_wr = attr_ex->cap.max_recv_wr;
	req.max_send_sge = attr_ex->cap.max_send_sge;
	req.max_recv_sge = attr_ex->cap.max_recv_sge;
	req.max_inline_data = attr_ex->cap.max_inline_data;
	req.sq_sig_all = (uint8_t)attr_ex->sq_sig_all;
	req.qp_type = (uint8_t)attr_ex->qp_type;
	req.srq_handle = attr_ex->srq ? attr_ex->srq->handle : 0;
	req.is_srq = attr_ex->srq ? 1 : 0;
	ret = sv_cmd_write_drv(context, IB_USER_VERBS_CMD_CREATE_QP, 0, &req,
			       sizeof(req), &kresp, sizeof(kresp), cmd,
			       cmd_size, resp, resp_size);
	if (ret)
		return ret;
	sv_cmd_qp_init(qp, context, attr_ex, &kresp);
	pabi_qp_set_core(sv_priv(context)->layout, qp,
			 (attr_ex->comp_mask & IBV_QP_INIT_ATTR_XRCD) ?
				 VERBS_QP_XRCD : 0,
			 vxrcd);
	return 0;

err_input:
	sv_dbg("create_qp_ex: QP type %d lacks its PD, XRCD or CQs",
	       (int)attr_ex->qp_type);
	errno = EINVAL;
	return EINVAL;
}
PABI_EXPORT_34(ibv_cmd_create_qp_ex);

SV_EXPORT int ibv_cmd_open_qp(struct ibv_context *context, struct verbs_qp *vqp,
			      int vqp_sz, struct ibv_qp_open_attr *attr,
			      void *cmd, size_t cmd_size, void *resp,
			      size_t resp_size)
{
	struct ib_uverbs_open_qp req;
	struct ib_uverbs_create_qp_resp kresp = { 0 };
	const struct sv_obj_layout *layout = sv_priv(context)->layout;
	struct ibv_qp *qp = (struct ibv_qp *)vqp;
	struct verbs_xrcd *xrcd;
	int ret;

	if (attr->comp_mask >= IBV_QP_OPEN_ATTR_RESERVED) {
		sv_dbg("open_qp: unknown comp_mask 0x%x", attr->comp_mask);
		return EOPNOTSUPP;
	}
	if (!(attr->comp_mask & IBV_QP_OPEN_ATTR_XRCD) ||
	    !(attr->comp_mask & IBV_QP_OPEN_ATTR_NUM) ||
	    !(attr->comp_mask & IBV_QP_OPEN_ATTR_TYPE) || !attr->xrcd) {
		sv_dbg("open_qp: the XRC domain, QP number and type are required");
		return EINVAL;
	}
	xrcd = container_of(attr->xrcd, struct verbs_xrcd, xrcd);
	memset(&req, 0, sizeof(req));
	req.user_handle = (uintptr_t)qp;
	req.pd_handle = xrcd->handle;
	req.qpn = attr->qp_num;
	req.qp_type = (uint8_t)attr->qp_type;
	ret = sv_cmd_write_drv(context, IB_USER_VERBS_CMD_OPEN_QP, 0, &req,
			       sizeof(req), &kresp, sizeof(kresp), cmd,
			       cmd_size, resp, resp_size);
	if (ret)
		return ret;

	qp->handle = kresp.qp_handle;
	qp->context = context;
	qp->qp_context = attr->qp_context;
	qp->pd = NULL;
	qp->send_cq = NULL;
	qp->recv_cq = NULL;
	qp->srq = NULL;
	qp->qp_num = attr->qp_num;
	qp->qp_type = attr->qp_type;
	/* another process owns it and moves it through its states */
	qp->state = IBV_QPS_UNKNOWN;
	qp->events_completed = 0;
	pthread_mutex_init(&qp->mutex, NULL);
	pthread_cond_init(&qp->cond, NULL);
	/* as rdma-core: comp_mask always, the xrcd when the provider's
	 * verbs_qp (vqp_sz bytes) reaches it; where its generation has them */
	if (vqp_sz >= 0 && (size_t)vqp_sz != layout->qp_xrcd + sizeof(void *))
		sv_dbg("open_qp: the provider's verbs_qp is %d bytes, its generation's %zu",
		       vqp_sz, layout->qp_xrcd + sizeof(void *));
	pabi_qp_set_core(layout, qp,
			 vqp_sz >= 0 && layout->qp_xrcd + sizeof(void *) <=
					(size_t)vqp_sz ? VERBS_QP_XRCD : 0,
			 xrcd);
	return 0;
}
PABI_EXPORT_34(ibv_cmd_open_qp);

/* The MODIFY_QP core fields as rdma-core sends them: only those attr_mask
 * names, every other byte zero. */
static void modify_qp_fields(struct ib_uverbs_modify_qp *c,
			     const struct ibv_qp *qp,
			     const struct ibv_qp_attr *attr, int attr_mask)
{
	memset(c, 0, sizeof(*c));
	c->qp_handle = qp->handle;
	c->attr_mask = (uint32_t)attr_mask;
	if (attr_mask & IBV_QP_STATE)
		c->qp_state = (uint8_t)attr->qp_state;
	if (attr_mask & IBV_QP_CUR_STATE)
		c->cur_qp_state = (uint8_t)attr->cur_qp_state;
	if (attr_mask & IBV_QP_EN_SQD_ASYNC_NOTIFY)
		c->en_sqd_async_notify = attr->en_sqd_async_notify;
	if (attr_mask & IBV_QP_ACCESS_FLAGS)
		c->qp_access_flags = attr->qp_access_flags;
	if (attr_mask & IBV_QP_PKEY_INDEX)
		c->pkey_index = attr->pkey_index;
	if (attr_mask & IBV_QP_PORT)
		c->port_num = attr->port_num;
	if (attr_mask & IBV_QP_QKEY)
		c->qkey = attr->qkey;
	if (attr_mask & IBV_QP_AV)
		sv_ah_attr_to_dest(&c->dest, &attr->ah_attr);
	if (attr_mask & IBV_QP_PATH_MTU)
		c->path_mtu = (uint8_t)attr->path_mtu;
	if (attr_mask & IBV_QP_TIMEOUT)
		c->timeout = attr->timeout;
	if (attr_mask & IBV_QP_RETRY_CNT)
		c->retry_cnt = attr->retry_cnt;
	if (attr_mask & IBV_QP_RNR_RETRY)
		c->rnr_retry = attr->rnr_retry;
	if (attr_mask & IBV_QP_RQ_PSN)
		c->rq_psn = attr->rq_psn;
	if (attr_mask & IBV_QP_MAX_QP_RD_ATOMIC)
		c->max_rd_atomic = attr->max_rd_atomic;
	if (attr_mask & IBV_QP_ALT_PATH) {
		c->alt_pkey_index = attr->alt_pkey_index;
		c->alt_port_num = attr->alt_port_num;
		c->alt_timeout = attr->alt_timeout;
		sv_ah_attr_to_dest(&c->alt_dest, &attr->alt_ah_attr);
	}
	if (attr_mask & IBV_QP_MIN_RNR_TIMER)
		c->min_rnr_timer = attr->min_rnr_timer;
	if (attr_mask & IBV_QP_SQ_PSN)
		c->sq_psn = attr->sq_psn;
	if (attr_mask & IBV_QP_MAX_DEST_RD_ATOMIC)
		c->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (attr_mask & IBV_QP_PATH_MIG_STATE)
		c->path_mig_state = (uint8_t)attr->path_mig_state;
	if (attr_mask & IBV_QP_DEST_QPN)
		c->dest_qp_num = attr->dest_qp_num;
}

/* the provider's request: headers, then struct ib_uverbs_ex_modify_qp */
#define MODIFY_QP_EX_RATE_END                                               \
	(sizeof(struct ib_uverbs_cmd_hdr) +                                 \
	 sizeof(struct ib_uverbs_ex_cmd_hdr) +                              \
	 offsetof(struct ib_uverbs_ex_modify_qp, rate_limit) + sizeof(uint32_t))

SV_EXPORT int ibv_cmd_modify_qp_ex(struct ibv_qp *qp, struct ibv_qp_attr *attr,
				   int attr_mask, void *cmd, size_t cmd_size,
				   void *resp, size_t resp_size)
{
	struct ib_uverbs_ex_modify_qp req;
	struct ib_uverbs_ex_modify_qp_resp kresp = { 0 };

	modify_qp_fields(&req.base, qp, attr, attr_mask);
	req.rate_limit = 0;
	req.reserved = 0;
	if (attr_mask & IBV_QP_RATE_LIMIT) {
		/* rdma-core only sends a rate limit that fits the caller's
		 * (the provider's) idea of the command */
		if (cmd_size < MODIFY_QP_EX_RATE_END) {
			sv_dbg("modify_qp_ex: rate limit in a %zu-byte command",
			       cmd_size);
			return EINVAL;
		}
		req.rate_limit = attr->rate_limit;
	}
	return sv_cmd_write_drv(qp->context, IB_USER_VERBS_EX_CMD_MODIFY_QP, 1,
				&req, sizeof(req), &kresp, sizeof(kresp), cmd,
				cmd_size, resp, resp_size);
}
PABI_EXPORT_34(ibv_cmd_modify_qp_ex);
