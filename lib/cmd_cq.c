/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Completion queue commands. */
#include "config.h"

#include <errno.h>
#include <pthread.h>

#include "core.h"

void sv_cmd_cq_init(struct sv_cq *cq, struct ibv_context *ctx,
		    struct ibv_comp_channel *channel, uint32_t handle,
		    uint32_t cqe)
{
	cq->cq.context = ctx;
	cq->cq.channel = channel;
	cq->cq.handle = handle;
	cq->cq.cqe = (int)cqe;
	cq->cq.comp_events_completed = 0;
	cq->cq.async_events_completed = 0;
	pthread_mutex_init(&cq->cq.mutex, NULL);
	pthread_cond_init(&cq->cq.cond, NULL);
}

int sv_cmd_create_cq(struct ibv_context *ctx, int cqe,
		     struct ibv_comp_channel *channel, int comp_vector,
		     struct sv_cq *cq, struct sv_udata *udata)
{
	struct ib_uverbs_create_cq req = {
		/* completion events name the CQ by this value */
		.user_handle = (uintptr_t)&cq->cq,
		.cqe = (uint32_t)cqe,
		.comp_vector = (uint32_t)comp_vector,
		.comp_channel = channel ? channel->fd : -1,
	};
	struct ib_uverbs_create_cq_resp resp = { 0 };
	int ret;

	ret = sv_cmd_write(ctx, IB_USER_VERBS_CMD_CREATE_CQ, &req, sizeof(req),
			   &resp, sizeof(resp), udata);
	if (ret)
		return ret;
	sv_cmd_cq_init(cq, ctx, channel, resp.cq_handle, resp.cqe);
	return 0;
}

int sv_cmd_create_cq_ex(struct ibv_context *ctx,
			const struct ibv_cq_init_attr_ex *attr,
			struct sv_cq *cq, struct sv_udata *udata)
{
	struct ib_uverbs_ex_create_cq req = {
		.user_handle = (uintptr_t)&cq->cq,
		.cqe = attr->cqe,
		.comp_vector = attr->comp_vector,
		.comp_channel = attr->channel ? attr->channel->fd : -1,
	};
	struct ib_uverbs_ex_create_cq_resp resp = { 0 };
	int ret;

	if (attr->comp_mask & ~(uint32_t)IBV_CQ_INIT_ATTR_MASK_FLAGS)
		return EOPNOTSUPP;
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) {
		if (attr->flags & ~(uint32_t)IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN &
		    ~(uint32_t)IBV_CREATE_CQ_ATTR_SINGLE_THREADED)
			return EOPNOTSUPP;
		if (attr->flags & IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN)
			req.flags |= IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN;
	}
	if (attr->wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP)
		req.flags |= IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION;

	ret = sv_cmd_write_ex(ctx, IB_USER_VERBS_EX_CMD_CREATE_CQ, &req,
			      sizeof(req), &resp, sizeof(resp), udata);
	if (ret)
		return ret;
	if (resp.response_length < sizeof(resp.base)) {
		sv_err("CREATE_CQ_EX: short response (%u bytes)",
		       resp.response_length);
		return EPROTO;
	}
	sv_cmd_cq_init(cq, ctx, attr->channel, resp.base.cq_handle,
		       resp.base.cqe);
	return 0;
}

int sv_cmd_resize_cq(struct ibv_cq *cq, int cqe, struct sv_udata *udata)
{
	struct ib_uverbs_resize_cq req = {
		.cq_handle = cq->handle,
		.cqe = (uint32_t)cqe,
	};
	struct ib_uverbs_resize_cq_resp resp = { 0 };
	int ret;

	ret = sv_cmd_write(cq->context, IB_USER_VERBS_CMD_RESIZE_CQ, &req,
			   sizeof(req), &resp, sizeof(resp), udata);
	if (ret)
		return ret;
	cq->cqe = (int)resp.cqe;
	return 0;
}

int sv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	struct ib_uverbs_req_notify_cq req = {
		.cq_handle = cq->handle,
		.solicited_only = solicited_only ? 1 : 0,
	};

	return sv_cmd_write(cq->context, IB_USER_VERBS_CMD_REQ_NOTIFY_CQ, &req,
			    sizeof(req), NULL, 0, NULL);
}

int sv_cmd_destroy_cq(struct ibv_cq *cq)
{
	struct ib_uverbs_destroy_cq req = { .cq_handle = cq->handle };
	struct ib_uverbs_destroy_cq_resp resp = { 0 };
	int ret;

	ret = sv_cmd_write(cq->context, IB_USER_VERBS_CMD_DESTROY_CQ, &req,
			   sizeof(req), &resp, sizeof(resp), NULL);
	if (ret)
		return ret;
	/* Every event the kernel delivered must have been acknowledged
	 * before the memory goes: ibv_destroy_cq(3). */
	pthread_mutex_lock(&cq->mutex);
	while (cq->comp_events_completed != resp.comp_events_reported ||
	       cq->async_events_completed != resp.async_events_reported)
		pthread_cond_wait(&cq->cond, &cq->mutex);
	pthread_mutex_unlock(&cq->mutex);
	pthread_cond_destroy(&cq->cond);
	pthread_mutex_destroy(&cq->mutex);
	return 0;
}
