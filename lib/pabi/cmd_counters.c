/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rdma-core's counters objects (struct ibv_counters, IBVERBS_PRIVATE_34):
 * create, destroy and read, ioctl methods only. */
#include "config.h"

#include <errno.h>

#include "pabi.h"

SV_EXPORT int ibv_cmd_create_counters(struct ibv_context *context,
				      struct ibv_counters_init_attr *init_attr,
				      struct verbs_counters *vcounters,
				      struct ibv_command_buffer *link)
{
	PABI_IOCTL_DECLARE(cmd, UVERBS_OBJECT_COUNTERS,
			   UVERBS_METHOD_COUNTERS_CREATE, 1, link);
	struct ib_uverbs_attr *handle;
	int ret;

	if (init_attr->comp_mask) {
		sv_dbg("counters: unknown comp_mask 0x%x", init_attr->comp_mask);
		return EOPNOTSUPP;
	}
	handle = sv_ioctl_out_obj(cmd, UVERBS_ATTR_CREATE_COUNTERS_HANDLE);
	ret = sv_ioctl_exec(context, cmd);
	if (ret)
		return ret;
	vcounters->counters.context = context;
	vcounters->handle = (uint32_t)handle->data;
	return 0;
}
PABI_EXPORT_34(ibv_cmd_create_counters);

SV_EXPORT int ibv_cmd_destroy_counters(struct verbs_counters *vcounters)
{
	PABI_IOCTL_DECLARE(cmd, UVERBS_OBJECT_COUNTERS,
			   UVERBS_METHOD_COUNTERS_DESTROY, 1, NULL);

	sv_ioctl_in_obj(cmd, UVERBS_ATTR_DESTROY_COUNTERS_HANDLE,
			vcounters->handle);
	return sv_destroy_result(sv_ioctl_exec(vcounters->counters.context,
					       cmd));
}
PABI_EXPORT_34(ibv_cmd_destroy_counters);

SV_EXPORT int ibv_cmd_read_counters(struct verbs_counters *vcounters,
				    uint64_t *counters_value,
				    uint32_t ncounters, uint32_t flags,
				    struct ibv_command_buffer *link)
{
	PABI_IOCTL_DECLARE(cmd, UVERBS_OBJECT_COUNTERS,
			   UVERBS_METHOD_COUNTERS_READ, 3, link);

	sv_ioctl_in_obj(cmd, UVERBS_ATTR_READ_COUNTERS_HANDLE,
			vcounters->handle);
	sv_ioctl_out(cmd, UVERBS_ATTR_READ_COUNTERS_BUFF, counters_value,
		     sv_ioctl_array_len(sizeof(*counters_value), ncounters));
	sv_ioctl_in_u32(cmd, UVERBS_ATTR_READ_COUNTERS_FLAGS, flags);
	return sv_ioctl_exec(vcounters->counters.context, cmd);
}
PABI_EXPORT_34(ibv_cmd_read_counters);
