/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Shared receive queue commands. */
#include "config.h"

#include <errno.h>
#include <pthread.h>

#include "core.h"

static void init_srq(struct ibv_srq *srq, struct ibv_context *ctx,
		     struct ibv_pd *pd, void *srq_context, uint32_t handle)
{
	srq->context = ctx;
	srq->srq_context = srq_context;
	srq->pd = pd;
	srq->handle = handle;
	srq->events_completed = 0;
	pthread_mutex_init(&srq->mutex, NULL);
	pthread_cond_init(&srq->cond, NULL);
}

int sv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
		      struct ibv_srq_init_attr *attr, struct sv_udata *udata)
{
	struct ib_uverbs_create_srq req = {
		.user_handle = (uintptr_t)srq,
		.pd_handle = pd->handle,
		.max_wr = attr->attr.max_wr,
		.max_sge = attr->attr.max_sge,
		.srq_limit = attr->attr.srq_limit,
	};
	struct ib_uverbs_create_srq_resp resp = { 0 };
	int ret;

	ret = sv_cmd_write(pd->context, IB_USER_VERBS_CMD_CREATE_SRQ, &req,
			   sizeof(req), &resp, sizeof(resp), udata);
	if (ret)
		return ret;
	init_srq(srq, pd->context, pd, attr->srq_context, resp.srq_handle);
	attr->attr.max_wr = resp.max_wr;
	attr->attr.max_sge = resp.max_sge;
	return 0;
}

int sv_cmd_create_srq_ex(struct ibv_context *ctx, struct sv_srq *srq,
			 struct ibv_srq_init_attr_ex *attr,
			 struct sv_udata *udata)
{
	struct ib_uverbs_create_xsrq req = {
		.user_handle = (uintptr_t)&srq->srq,
		.max_wr = attr->attr.max_wr,
		.max_sge = attr->attr.max_sge,
		.srq_limit = attr->attr.srq_limit,
	};
	struct ib_uverbs_create_srq_resp resp = { 0 };
	enum ibv_srq_type type = IBV_SRQT_BASIC;
	int ret;

	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd)
		return EINVAL;
	if (attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE)
		type = attr->srq_type;
	if (type != IBV_SRQT_BASIC)
		return EOPNOTSUPP; /* XRC and tag matching: no soft driver */
	req.srq_type = (uint32_t)type;
	req.pd_handle = attr->pd->handle;
	ret = sv_cmd_write(ctx, IB_USER_VERBS_CMD_CREATE_XSRQ, &req,
			   sizeof(req), &resp, sizeof(resp), udata);
	if (ret)
		return ret;
	init_srq(&srq->srq, ctx, attr->pd, attr->srq_context, resp.srq_handle);
	srq->srq_type = type;
	srq->srq_num = resp.srqn;
	attr->attr.max_wr = resp.max_wr;
	attr->attr.max_sge = resp.max_sge;
	return 0;
}

int sv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
		      int attr_mask, struct sv_udata *udata)
{
	struct ib_uverbs_modify_srq req = {
		.srq_handle = srq->handle,
		.attr_mask = (uint32_t)attr_mask,
		.max_wr = attr->max_wr,
		.srq_limit = attr->srq_limit,
	};

	return sv_cmd_write(srq->context, IB_USER_VERBS_CMD_MODIFY_SRQ, &req,
			    sizeof(req), NULL, 0, udata);
}

int sv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct ib_uverbs_query_srq req = { .srq_handle = srq->handle };
	struct ib_uverbs_query_srq_resp resp = { 0 };
	int ret;

	ret = sv_cmd_write(srq->context, IB_USER_VERBS_CMD_QUERY_SRQ, &req,
			   sizeof(req), &resp, sizeof(resp), NULL);
	if (ret)
		return ret;
	attr->max_wr = resp.max_wr;
	attr->max_sge = resp.max_sge;
	attr->srq_limit = resp.srq_limit;
	return 0;
}

int sv_cmd_destroy_srq(struct ibv_srq *srq)
{
	struct ib_uverbs_destroy_srq req = { .srq_handle = srq->handle };
	struct ib_uverbs_destroy_srq_resp resp = { 0 };
	int ret;

	ret = sv_cmd_write(srq->context, IB_USER_VERBS_CMD_DESTROY_SRQ, &req,
			   sizeof(req), &resp, sizeof(resp), NULL);
	if (ret)
		return ret;
	pthread_mutex_lock(&srq->mutex);
	while (srq->events_completed != resp.events_reported)
		pthread_cond_wait(&srq->cond, &srq->mutex);
	pthread_mutex_unlock(&srq->mutex);
	pthread_cond_destroy(&srq->cond);
	pthread_mutex_destroy(&srq->mutex);
	return 0;
}
