/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Address handle commands. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "core.h"

int sv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		     struct ibv_ah_attr *attr, struct sv_udata *udata)
{
	struct ib_uverbs_create_ah req = {
		.user_handle = (uintptr_t)ah,
		.pd_handle = pd->handle,
		.attr = {
			.dlid = attr->dlid,
			.sl = attr->sl,
			.src_path_bits = attr->src_path_bits,
			.static_rate = attr->static_rate,
			.is_global = attr->is_global,
			.port_num = attr->port_num,
		},
	};
	struct ib_uverbs_create_ah_resp resp = { 0 };
	int ret;

	if (attr->is_global) {
		memcpy(req.attr.grh.dgid, attr->grh.dgid.raw, 16);
		req.attr.grh.flow_label = attr->grh.flow_label;
		req.attr.grh.sgid_index = attr->grh.sgid_index;
		req.attr.grh.hop_limit = attr->grh.hop_limit;
		req.attr.grh.traffic_class = attr->grh.traffic_class;
	}
	ret = sv_cmd_write(pd->context, IB_USER_VERBS_CMD_CREATE_AH, &req,
			   sizeof(req), &resp, sizeof(resp), udata);
	if (ret)
		return ret;
	ah->context = pd->context;
	ah->pd = pd;
	ah->handle = resp.ah_handle;
	return 0;
}

int sv_cmd_destroy_ah(struct ibv_ah *ah)
{
	struct ib_uverbs_destroy_ah req = { .ah_handle = ah->handle };

	return sv_cmd_write(ah->context, IB_USER_VERBS_CMD_DESTROY_AH, &req,
			    sizeof(req), NULL, 0, NULL);
}
