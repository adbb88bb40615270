/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Protection domain commands. */
#include "config.h"

#include <errno.h>

#include "core.h"

int sv_cmd_alloc_pd(struct ibv_context *ctx, struct ibv_pd *pd,
		    struct sv_udata *udata)
{
	struct ib_uverbs_alloc_pd req = { 0 };
	struct ib_uverbs_alloc_pd_resp resp = { 0 };
	int ret;

	ret = sv_cmd_write(ctx, IB_USER_VERBS_CMD_ALLOC_PD, &req, sizeof(req),
			   &resp, sizeof(resp), udata);
	if (ret)
		return ret;
	pd->context = ctx;
	pd->handle = resp.pd_handle;
	return 0;
}

int sv_cmd_dealloc_pd(struct ibv_pd *pd)
{
	struct ib_uverbs_dealloc_pd req = { .pd_handle = pd->handle };

	return sv_cmd_write(pd->context, IB_USER_VERBS_CMD_DEALLOC_PD, &req,
			    sizeof(req), NULL, 0, NULL);
}
