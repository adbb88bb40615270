/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Memory window commands. */
#include "config.h"

#include <errno.h>

#include "core.h"

int sv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		    struct ibv_mw *mw, struct sv_udata *udata)
{
	struct ib_uverbs_alloc_mw req = {
		.pd_handle = pd->handle,
		.mw_type = (uint8_t)type,
	};
	struct ib_uverbs_alloc_mw_resp resp = { 0 };
	int ret;

	ret = sv_cmd_write(pd->context, IB_USER_VERBS_CMD_ALLOC_MW, &req,
			   sizeof(req), &resp, sizeof(resp), udata);
	if (ret)
		return ret;
	mw->context = pd->context;
	mw->pd = pd;
	mw->type = type;
	mw->handle = resp.mw_handle;
	mw->rkey = resp.rkey;
	return 0;
}

int sv_cmd_dealloc_mw(struct ibv_mw *mw)
{
	struct ib_uverbs_dealloc_mw req = { .mw_handle = mw->handle };

	return sv_cmd_write(mw->context, IB_USER_VERBS_CMD_DEALLOC_MW, &req,
			    sizeof(req), NULL, 0, NULL);
}
