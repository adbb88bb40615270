/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rdma-core 44's write-ABI helpers for XRC domains, MR re-registration
 * and CQ moderation (IBVERBS_PRIVATE_34). The provider's cmd/resp buffers
 * carry its driver data behind the core structs; sv_cmd_write_drv sends
 * our core request with that data as the trailer and hands the kernel's
 * answer back in the provider's layout. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "core.h"
#include "pabi.h"

/* ---- XRC domains ------------------------------------------------------------ */

SV_EXPORT int ibv_cmd_open_xrcd(struct ibv_context *context,
				struct verbs_xrcd *xrcd, int vxrcd_size,
				struct ibv_xrcd_init_attr *attr, void *cmd,
				size_t cmd_size, void *resp, size_t resp_size)
{
	struct ib_uverbs_open_xrcd req;
	struct ib_uverbs_open_xrcd_resp kresp = { 0 };
	int ret;

	if (attr->comp_mask >= IBV_XRCD_INIT_ATTR_RESERVED) {
		sv_dbg("open_xrcd: unknown comp_mask 0x%x", attr->comp_mask);
		return EOPNOTSUPP;
	}
	/* the inode of fd names the domain; oflags say whether to create it */
	if (!(attr->comp_mask & IBV_XRCD_INIT_ATTR_FD) ||
	    !(attr->comp_mask & IBV_XRCD_INIT_ATTR_OFLAGS)) {
		sv_dbg("open_xrcd: fd and oflags are both required");
		return EINVAL;
	}
	memset(&req, 0, sizeof(req));
	req.fd = (uint32_t)attr->fd;
	req.oflags = (uint32_t)attr->oflags;
	ret = sv_cmd_write_drv(context, IB_USER_VERBS_CMD_OPEN_XRCD, 0, &req,
			       sizeof(req), &kresp, sizeof(kresp), cmd,
			       cmd_size, resp, resp_size);
	if (ret)
		return ret;
	xrcd->xrcd.context = context;
	xrcd->comp_mask = 0;
	/* an old provider's verbs_xrcd may end before the handle */
	if (vxrcd_size >= 0 &&
	    offsetof(struct verbs_xrcd, handle) + sizeof(xrcd->handle) <=
		    (size_t)vxrcd_size) {
		xrcd->comp_mask = VERBS_XRCD_HANDLE;
		xrcd->handle = kresp.xrcd_handle;
	}
	return 0;
}
PABI_EXPORT_34(ibv_cmd_open_xrcd);

SV_EXPORT int ibv_cmd_close_xrcd(struct verbs_xrcd *xrcd)
{
	struct ib_uverbs_close_xrcd req = { .xrcd_handle = xrcd->handle };

	return sv_destroy_result(sv_cmd_write(xrcd->xrcd.context,
					      IB_USER_VERBS_CMD_CLOSE_XRCD,
					      &req, sizeof(req), NULL, 0,
					      NULL));
}
PABI_EXPORT_34(ibv_cmd_close_xrcd);

/* ---- memory regions ----------------------------------------------------------- */

SV_EXPORT int ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags,
			       void *addr, size_t length, uint64_t hca_va,
			       int access, struct ibv_pd *pd, void *cmd,
			       size_t cmd_sz, void *resp, size_t resp_sz)
{
	struct ib_uverbs_rereg_mr req;
	struct ib_uverbs_rereg_mr_resp kresp = { 0 };
	int ret;

	if ((flags & IBV_REREG_MR_CHANGE_PD) && !pd) {
		sv_dbg("rereg_mr: IBV_REREG_MR_CHANGE_PD without a PD");
		return EINVAL;
	}
	memset(&req, 0, sizeof(req));
	req.mr_handle = vmr->ibv_mr.handle;
	req.flags = flags;
	req.start = (uintptr_t)addr;
	req.length = length;
	req.hca_va = hca_va;
	req.pd_handle = (flags & IBV_REREG_MR_CHANGE_PD) ? pd->handle : 0;
	req.access_flags = (uint32_t)access;
	ret = sv_cmd_write_drv(vmr->ibv_mr.context, IB_USER_VERBS_CMD_REREG_MR,
			       0, &req, sizeof(req), &kresp, sizeof(kresp), cmd,
			       cmd_sz, resp, resp_sz);
	if (ret)
		return ret;
	/* the new keys; the core's ibv_rereg_mr updates pd, addr, length */
	vmr->ibv_mr.lkey = kresp.lkey;
	vmr->ibv_mr.rkey = kresp.rkey;
	if (flags & IBV_REREG_MR_CHANGE_PD)
		vmr->ibv_mr.context = pd->context;
	return 0;
}
PABI_EXPORT_34(ibv_cmd_rereg_mr);

/* ---- completion queues ----------------------------------------------------------- */

SV_EXPORT int ibv_cmd_modify_cq(struct ibv_cq *cq,
				struct ibv_modify_cq_attr *attr, void *cmd,
				size_t cmd_size)
{
	struct ib_uverbs_ex_modify_cq req;

	if (attr->attr_mask >= IBV_CQ_ATTR_RESERVED) {
		sv_dbg("modify_cq: unknown attr_mask 0x%x", attr->attr_mask);
		return EINVAL;
	}
	memset(&req, 0, sizeof(req));
	req.cq_handle = cq->handle;
	req.attr_mask = attr->attr_mask;
	req.attr.cq_count = attr->moderate.cq_count;
	req.attr.cq_period = attr->moderate.cq_period;
	return sv_cmd_write_drv(cq->context, IB_USER_VERBS_EX_CMD_MODIFY_CQ, 1,
				&req, sizeof(req), NULL, 0, cmd, cmd_size, NULL,
				0);
}
PABI_EXPORT_34(ibv_cmd_modify_cq);
