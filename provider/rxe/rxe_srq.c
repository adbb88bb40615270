/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rxe shared receive queues: a receive ring like a QP's, shared by the
 * QPs created on it. Resizing (IBV_SRQ_MAX_WR) re-creates the ring, so
 * the mapping moves. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rxe_dp.h"

static int map_srq(struct rxe_srq *srq, struct ibv_context *ctx,
		   const struct rxe_create_srq_resp *resp, uint32_t max_sge)
{
	int ret = rxe_wq_init(&srq->rq, ctx->cmd_fd, &resp->mi,
			      sizeof(struct rxe_recv_wqe), max_sge, 0);

	srq->rq.probe_dev = ctx->device->name; /* qpn 0: an SRQ's */
	return ret;
}

struct ibv_srq *rxe_create_srq(struct ibv_pd *pd,
			       struct ibv_srq_init_attr *attr)
{
	struct rxe_create_srq_resp resp;
	struct sv_udata udata = { .resp = &resp, .resp_len = sizeof(resp) };
	struct rxe_srq *srq;
	int ret;

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	memset(&resp, 0, sizeof(resp));
	ret = sv_cmd_create_srq(pd, &srq->core.srq, attr, &udata);
	if (ret) {
		sv_err("CREATE_SRQ (%u WRs, %u SGEs) failed: %s",
		       attr->attr.max_wr, attr->attr.max_sge, strerror(ret));
		goto err_free;
	}
	ret = map_srq(srq, pd->context, &resp, attr->attr.max_sge);
	if (ret)
		goto err_destroy;
	return &srq->core.srq;

err_destroy:
	sv_cmd_destroy_srq(&srq->core.srq);
err_free:
	free(srq);
	errno = ret;
	return NULL;
}

struct ibv_srq *rxe_create_srq_ex(struct ibv_context *ctx,
				  struct ibv_srq_init_attr_ex *attr)
{
	struct rxe_create_srq_resp resp;
	struct sv_udata udata = { .resp = &resp, .resp_len = sizeof(resp) };
	struct rxe_srq *srq;
	int ret;

	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd) {
		sv_err("ibv_create_srq_ex needs a PD (IBV_SRQ_INIT_ATTR_PD)");
		errno = EINVAL;
		return NULL;
	}
	if ((attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) &&
	    attr->srq_type != IBV_SRQT_BASIC) {
		sv_err("rxe has only basic SRQs, not type %d",
		       (int)attr->srq_type);
		errno = EOPNOTSUPP;
		return NULL;
	}
	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	memset(&resp, 0, sizeof(resp));
	ret = sv_cmd_create_srq_ex(ctx, &srq->core, attr, &udata);
	if (ret) {
		sv_err("CREATE_SRQ (%u WRs, %u SGEs) failed: %s",
		       attr->attr.max_wr, attr->attr.max_sge, strerror(ret));
		goto err_free;
	}
	ret = map_srq(srq, ctx, &resp, attr->attr.max_sge);
	if (ret)
		goto err_destroy;
	return &srq->core.srq;

err_destroy:
	sv_cmd_destroy_srq(&srq->core.srq);
err_free:
	free(srq);
	errno = ret;
	return NULL;
}

int rxe_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		   int attr_mask)
{
	struct rxe_srq *srq = to_rxe_srq(ibsrq);
	struct mminfo mi = { 0 };
	/* rxe always reads this trailer: where to write the new ring's
	 * mmap info when IBV_SRQ_MAX_WR resizes it */
	struct rxe_modify_srq_cmd cmd = {
		.mmap_info_addr = (uintptr_t)&mi,
	};
	struct sv_udata udata = { .req = &cmd, .req_len = sizeof(cmd) };
	struct rxe_queue fresh;
	int ret;

	/* A resize copies the posted WQEs into a new ring: no producer may
	 * touch the old one meanwhile. */
	if (attr_mask & IBV_SRQ_MAX_WR)
		sv_lock(&srq->rq.lock);
	ret = sv_cmd_modify_srq(ibsrq, attr, attr_mask, &udata);
	if (ret) {
		sv_err("MODIFY_SRQ (mask %#x, max_wr %u, limit %u) failed: %s",
		       attr_mask, attr->max_wr, attr->srq_limit,
		       strerror(ret));
		goto out;
	}
	if (attr_mask & IBV_SRQ_MAX_WR) {
		ret = rxe_queue_map(&fresh, ibsrq->context->cmd_fd, &mi);
		rxe_queue_unmap(&srq->rq.q);
		if (!ret) {
			srq->rq.q = fresh;
			srq->rq.prod = rxe_queue_read_prod(&srq->rq.q);
		}
	}
out:
	if (attr_mask & IBV_SRQ_MAX_WR)
		sv_unlock(&srq->rq.lock);
	return ret;
}

int rxe_destroy_srq(struct ibv_srq *ibsrq)
{
	struct rxe_srq *srq = to_rxe_srq(ibsrq);
	int ret;

	ret = sv_cmd_destroy_srq(ibsrq);
	if (ret)
		return ret;
	rxe_wq_fini(&srq->rq);
	free(srq);
	return 0;
}

int rxe_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr)
{
	struct rxe_srq *srq = to_rxe_srq(ibsrq);
	struct ibv_recv_wr *unused;

	if (!bad_wr)
		bad_wr = &unused;
	*bad_wr = NULL;
	return rxe_wq_post_recv(&srq->rq, wr, bad_wr);
}
