/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rdma-core 59's DMA handles: allocation and release, ioctl methods
 * only. */
#include "config.h"

#include <errno.h>

#include "pabi.h"

SV_EXPORT int ibv_cmd_alloc_dmah(struct ibv_context *ctx,
				 struct verbs_dmah *dmah,
				 struct ibv_dmah_init_attr *attr)
{
	PABI_IOCTL_DECLARE(cmd, UVERBS_OBJECT_DMAH, UVERBS_METHOD_DMAH_ALLOC, 4,
			   NULL);
	struct ib_uverbs_attr *handle;
	int ret;

	if (!ctx || !dmah || !attr)
		return EINVAL;
	handle = sv_ioctl_out_obj(cmd, UVERBS_ATTR_ALLOC_DMAH_HANDLE);
	if (attr->comp_mask & IBV_DMAH_INIT_ATTR_MASK_CPU_ID)
		sv_ioctl_in_u32(cmd, UVERBS_ATTR_ALLOC_DMAH_CPU_ID,
				attr->cpu_id);
	if (attr->comp_mask & IBV_DMAH_INIT_ATTR_MASK_TPH_MEM_TYPE)
		sv_ioctl_in_enum(cmd, UVERBS_ATTR_ALLOC_DMAH_TPH_MEM_TYPE,
				 attr->tph_mem_type, NULL, 0);
	if (attr->comp_mask & IBV_DMAH_INIT_ATTR_MASK_PH)
		sv_ioctl_in_ptr(cmd, UVERBS_ATTR_ALLOC_DMAH_PH, &attr->ph,
				sizeof(attr->ph));
	ret = sv_ioctl_exec(ctx, cmd);
	if (ret)
		return ret;
	dmah->handle = (uint32_t)handle->data;
	dmah->dmah.context = ctx;
	return 0;
}
PABI_EXPORT_59(ibv_cmd_alloc_dmah);

SV_EXPORT int ibv_cmd_free_dmah(struct verbs_dmah *dmah)
{
	PABI_IOCTL_DECLARE(cmd, UVERBS_OBJECT_DMAH, UVERBS_METHOD_DMAH_FREE, 1,
			   NULL);

	if (!dmah)
		return EINVAL;
	sv_ioctl_in_obj(cmd, UVERBS_ATTR_FREE_DMA_HANDLE, dmah->handle);
	return sv_destroy_result(sv_ioctl_exec(dmah->dmah.context, cmd));
}
PABI_EXPORT_59(ibv_cmd_free_dmah);
