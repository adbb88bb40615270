/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rdma-core 44's helpers for receive work queues and their indirection
 * tables (RSS), IBVERBS_PRIVATE_34. These objects came with the extended
 * write commands, which every kernel that has them also takes; rdma-core
 * falls back to exactly these writes when the ioctl methods are missing. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "pabi.h"

/* ---- work queues ------------------------------------------------------------- */

SV_EXPORT int ibv_cmd_create_wq(struct ibv_context *context,
				struct ibv_wq_init_attr *wq_init_attr,
				struct ibv_wq *wq, void *cmd, size_t cmd_size,
				void *resp, size_t resp_size)
{
	struct ib_uverbs_ex_create_wq req;
	struct ib_uverbs_ex_create_wq_resp kresp = { 0 };
	uint32_t create_flags = 0;
	int ret;

	if (wq_init_attr->comp_mask >= IBV_WQ_INIT_ATTR_RESERVED) {
		sv_dbg("create_wq: unknown comp_mask 0x%x",
		       wq_init_attr->comp_mask);
		errno = EINVAL;
		return EINVAL;
	}
	if (!wq_init_attr->pd || !wq_init_attr->cq) {
		sv_dbg("create_wq: a PD and a CQ are required");
		errno = EINVAL;
		return EINVAL;
	}
	wq->context = context;
	wq->cq = wq_init_attr->cq;
	wq->pd = wq_init_attr->pd;
	wq->wq_type = wq_init_attr->wq_type;
	if (wq_init_attr->comp_mask & IBV_WQ_INIT_ATTR_FLAGS) {
		if (wq_init_attr->create_flags &
		    ~(uint32_t)(IBV_WQ_FLAGS_RESERVED - 1)) {
			sv_dbg("create_wq: unknown create flags 0x%x",
			       wq_init_attr->create_flags);
			errno = EOPNOTSUPP;
			return EOPNOTSUPP;
		}
		create_flags = wq_init_attr->create_flags;
	}

	memset(&req, 0, sizeof(req));
	req.wq_type = (uint32_t)wq_init_attr->wq_type;
	req.user_handle = (uintptr_t)wq;
	req.pd_handle = wq_init_attr->pd->handle;
	req.cq_handle = wq_init_attr->cq->handle;
	req.max_wr = wq_init_attr->max_wr;
	req.max_sge = wq_init_attr->max_sge;
	req.create_flags = create_flags;
	ret = sv_cmd_write_drv(context, IB_USER_VERBS_EX_CMD_CREATE_WQ, 1, &req,
			       sizeof(req), &kresp, sizeof(kresp), cmd,
			       cmd_size, resp, resp_size);
	if (ret)
		return ret;
	wq->handle = kresp.wq_handle;
	wq->wq_num = kresp.wqn;
	/* what the kernel granted */
	wq_init_attr->max_wr = kresp.max_wr;
	wq_init_attr->max_sge = kresp.max_sge;
	return 0;
}
PABI_EXPORT_34(ibv_cmd_create_wq);

SV_EXPORT int ibv_cmd_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *attr,
				void *cmd, size_t cmd_size)
{
	struct ib_uverbs_ex_modify_wq req;
	int ret;

	if (attr->attr_mask >= IBV_WQ_ATTR_RESERVED) {
		sv_dbg("modify_wq: unknown attr_mask 0x%x", attr->attr_mask);
		return EINVAL;
	}
	memset(&req, 0, sizeof(req));
	req.curr_wq_state = (uint32_t)attr->curr_wq_state;
	req.wq_state = (uint32_t)attr->wq_state;
	if (attr->attr_mask & IBV_WQ_ATTR_FLAGS) {
		if (attr->flags_mask & ~(uint32_t)(IBV_WQ_FLAGS_RESERVED - 1)) {
			sv_dbg("modify_wq: unknown flags 0x%x",
			       attr->flags_mask);
			return EOPNOTSUPP;
		}
		req.flags = attr->flags;
		req.flags_mask = attr->flags_mask;
	}
	req.wq_handle = wq->handle;
	req.attr_mask = attr->attr_mask;
	ret = sv_cmd_write_drv(wq->context, IB_USER_VERBS_EX_CMD_MODIFY_WQ, 1,
			       &req, sizeof(req), NULL, 0, cmd, cmd_size, NULL,
			       0);
	if (ret)
		return ret;
	if (attr->attr_mask & IBV_WQ_ATTR_STATE)
		wq->state = attr->wq_state;
	return 0;
}
PABI_EXPORT_34(ibv_cmd_modify_wq);

SV_EXPORT int ibv_cmd_destroy_wq(struct ibv_wq *wq)
{
	struct ib_uverbs_ex_destroy_wq req = { .wq_handle = wq->handle };
	struct ib_uverbs_ex_destroy_wq_resp resp = { 0 };
	int ret;

	ret = sv_cmd_write_ex(wq->context, IB_USER_VERBS_EX_CMD_DESTROY_WQ,
			      &req, sizeof(req), &resp, sizeof(resp), NULL);
	/* a disassociated device reports nothing: no events to wait for */
	if (ret)
		return sv_destroy_result(ret);
	/* the verbs contract: every event the kernel reported for the WQ
	 * was acknowledged (ibv_ack_async_event) before it goes away */
	pthread_mutex_lock(&wq->mutex);
	while (wq->events_completed != resp.events_reported)
		pthread_cond_wait(&wq->cond, &wq->mutex);
	pthread_mutex_unlock(&wq->mutex);
	return 0;
}
PABI_EXPORT_34(ibv_cmd_destroy_wq);

/* ---- receive WQ indirection tables --------------------------------------------- */

/* The largest table one extended write can carry (in_words counts 8-byte
 * words in 16 bits); the kernel's own limit is lower and its to enforce. */
#define MAX_LOG_IND_TBL 16

SV_EXPORT int ibv_cmd_create_rwq_ind_table(struct ibv_context *context,
					   struct ibv_rwq_ind_table_init_attr *init_attr,
					   struct ibv_rwq_ind_table *rwq_ind_table,
					   void *resp, size_t resp_size)
{
	struct ib_uverbs_ex_create_rwq_ind_table *req;
	struct ib_uverbs_ex_create_rwq_ind_table_resp kresp = { 0 };
	size_t i, n, req_len;
	int ret;

	if (init_attr->comp_mask >= IBV_CREATE_IND_TABLE_RESERVED) {
		sv_dbg("create_rwq_ind_table: unknown comp_mask 0x%x",
		       init_attr->comp_mask);
		return EINVAL;
	}
	if (init_attr->log_ind_tbl_size > MAX_LOG_IND_TBL ||
	    !init_attr->ind_tbl) {
		sv_dbg("create_rwq_ind_table: no table, or 2^%u entries",
		       init_attr->log_ind_tbl_size);
		return EINVAL;
	}
	n = (size_t)1 << init_attr->log_ind_tbl_size;
	for (i = 0; i < n; i++)
		if (!init_attr->ind_tbl[i])
			return EINVAL;

	/* the whole request is a multiple of 8 bytes */
	req_len = sizeof(*req) + n * sizeof(req->wq_handles[0]);
	req_len = (req_len + 7) / 8 * 8;
	req = calloc(1, req_len);
	if (!req)
		return ENOMEM;
	req->log_ind_tbl_size = init_attr->log_ind_tbl_size;
	for (i = 0; i < n; i++)
		req->wq_handles[i] = init_attr->ind_tbl[i]->handle;
	ret = sv_cmd_write_drv(context, IB_USER_VERBS_EX_CMD_CREATE_RWQ_IND_TBL,
			       1, req, req_len, &kresp, sizeof(kresp), NULL, 0,
			       resp, resp_size);
	free(req);
	if (ret)
		return ret;
	if (kresp.response_length < sizeof(kresp)) {
		sv_err("CREATE_RWQ_IND_TBL: short response (%u bytes)",
		       kresp.response_length);
		return EINVAL;
	}
	rwq_ind_table->ind_tbl_handle = kresp.ind_tbl_handle;
	rwq_ind_table->ind_tbl_num = kresp.ind_tbl_num;
	rwq_ind_table->context = context;
	return 0;
}
PABI_EXPORT_34(ibv_cmd_create_rwq_ind_table);

SV_EXPORT int ibv_cmd_destroy_rwq_ind_table(struct ibv_rwq_ind_table *rwq_ind_table)
{
	struct ib_uverbs_ex_destroy_rwq_ind_table req = {
		.ind_tbl_handle = rwq_ind_table->ind_tbl_handle,
	};

	return sv_destroy_result(sv_cmd_write_ex(
		rwq_ind_table->context, IB_USER_VERBS_EX_CMD_DESTROY_RWQ_IND_TBL,
		&req, sizeof(req), NULL, 0, NULL));
}
PABI_EXPORT_34(ibv_cmd_destroy_rwq_ind_table);
