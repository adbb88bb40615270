/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Multicast attach and detach. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "core.h"

static int mcast_cmd(uint32_t command, struct ibv_qp *qp,
		     const union ibv_gid *gid, uint16_t lid)
{
	struct ib_uverbs_attach_mcast req = {
		.qp_handle = qp->handle,
		.mlid = lid,
	};

	/* attach and detach share one layout */
	_Static_assert(sizeof(struct ib_uverbs_attach_mcast) ==
			       sizeof(struct ib_uverbs_detach_mcast),
		       "mcast layouts");
	memcpy(req.gid, gid->raw, sizeof(req.gid));
	return sv_cmd_write(qp->context, command, &req, sizeof(req), NULL, 0,
			    NULL);
}

int sv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			uint16_t lid)
{
	return mcast_cmd(IB_USER_VERBS_CMD_ATTACH_MCAST, qp, gid, lid);
}

int sv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			uint16_t lid)
{
	return mcast_cmd(IB_USER_VERBS_CMD_DETACH_MCAST, qp, gid, lid);
}
