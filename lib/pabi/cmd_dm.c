/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rdma-core's device memory (IBVERBS_PRIVATE_34): allocation and MRs on
 * it, ioctl methods only. */
#include "config.h"

#include <errno.h>

#include "pabi.h"

SV_EXPORT int ibv_cmd_alloc_dm(struct ibv_context *ctx,
			       const struct ibv_alloc_dm_attr *dm_attr,
			       struct verbs_dm *dm,
			       struct ibv_command_buffer *link)
{
	PABI_IOCTL_DECLARE(cmd, UVERBS_OBJECT_DM, UVERBS_METHOD_DM_ALLOC, 3,
			   link);
	struct ib_uverbs_attr *handle;
	int ret;

	handle = sv_ioctl_out_obj(cmd, UVERBS_ATTR_ALLOC_DM_HANDLE);
	sv_ioctl_in_u64(cmd, UVERBS_ATTR_ALLOC_DM_LENGTH, dm_attr->length);
	sv_ioctl_in_u32(cmd, UVERBS_ATTR_ALLOC_DM_ALIGNMENT,
			dm_attr->log_align_req);
	ret = sv_ioctl_exec(ctx, cmd);
	if (ret)
		return ret;
	dm->handle = (uint32_t)handle->data;
	dm->dm.handle = dm->handle;
	dm->dm.comp_mask = IBV_DM_MASK_HANDLE;
	dm->dm.context = ctx;
	return 0;
}
PABI_EXPORT_34(ibv_cmd_alloc_dm);

SV_EXPORT int ibv_cmd_free_dm(struct verbs_dm *dm)
{
	PABI_IOCTL_DECLARE(cmd, UVERBS_OBJECT_DM, UVERBS_METHOD_DM_FREE, 1,
			   NULL);

	sv_ioctl_in_obj(cmd, UVERBS_ATTR_FREE_DM_HANDLE, dm->handle);
	return sv_destroy_result(sv_ioctl_exec(dm->dm.context, cmd));
}
PABI_EXPORT_34(ibv_cmd_free_dm);

SV_EXPORT int ibv_cmd_reg_dm_mr(struct ibv_pd *pd, struct verbs_dm *dm,
				uint64_t offset, size_t length,
				unsigned int access, struct verbs_mr *vmr,
				struct ibv_command_buffer *link)
{
	PABI_IOCTL_DECLARE(cmd, UVERBS_OBJECT_MR, UVERBS_METHOD_DM_MR_REG, 8,
			   link);
	struct ib_uverbs_attr *handle;
	uint32_t lkey = 0, rkey = 0;
	int ret;

	/* device memory has no address of ours to offset from: a DM MR is
	 * always zero-based */
	if (!(access & IBV_ACCESS_ZERO_BASED)) {
		sv_dbg("DM MR without IBV_ACCESS_ZERO_BASED");
		errno = EINVAL;
		return EINVAL;
	}
	handle = sv_ioctl_out_obj(cmd, UVERBS_ATTR_REG_DM_MR_HANDLE);
	sv_ioctl_out(cmd, UVERBS_ATTR_REG_DM_MR_RESP_LKEY, &lkey, sizeof(lkey));
	sv_ioctl_out(cmd, UVERBS_ATTR_REG_DM_MR_RESP_RKEY, &rkey, sizeof(rkey));
	sv_ioctl_in_obj(cmd, UVERBS_ATTR_REG_DM_MR_PD_HANDLE, pd->handle);
	sv_ioctl_in_obj(cmd, UVERBS_ATTR_REG_DM_MR_DM_HANDLE, dm->handle);
	sv_ioctl_in_u64(cmd, UVERBS_ATTR_REG_DM_MR_OFFSET, offset);
	sv_ioctl_in_u64(cmd, UVERBS_ATTR_REG_DM_MR_LENGTH, length);
	sv_ioctl_in_u32(cmd, UVERBS_ATTR_REG_DM_MR_ACCESS_FLAGS, access);
	ret = sv_ioctl_exec(pd->context, cmd);
	if (ret)
		return ret;
	sv_cmd_mr_init((struct sv_mr *)vmr, pd, (uint32_t)handle->data, lkey,
		       rkey, NULL, length, IBV_MR_TYPE_MR, (int)access);
	return 0;
}
PABI_EXPORT_34(ibv_cmd_reg_dm_mr);
