/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rdma-core 65's completion counters: create, destroy, set, increment,
 * read and attach to a QP, ioctl methods only. Their capabilities are
 * cmd_device.c's. */
#include "config.h"

#include <errno.h>

#include "pabi.h"

SV_EXPORT int ibv_cmd_create_comp_cntr(struct ibv_context *context,
				       struct ibv_comp_cntr *comp_cntr,
				       struct ibv_command_buffer *link)
{
	PABI_IOCTL_DECLARE(cmd, UVERBS_OBJECT_COMP_CNTR,
			   UVERBS_METHOD_COMP_CNTR_CREATE, 1, link);
	struct ib_uverbs_attr *handle;
	int ret;

	if (!context || !comp_cntr)
		return EINVAL;
	comp_cntr->context = context;
	handle = sv_ioctl_out_obj(cmd, UVERBS_ATTR_CREATE_COMP_CNTR_HANDLE);
	ret = sv_ioctl_exec(context, cmd);
	if (ret)
		return ret;
	comp_cntr->handle = (uint32_t)handle->data;
	return 0;
}
PABI_EXPORT_65(ibv_cmd_create_comp_cntr);

SV_EXPORT int ibv_cmd_destroy_comp_cntr(struct ibv_comp_cntr *comp_cntr)
{
	PABI_IOCTL_DECLARE(cmd, UVERBS_OBJECT_COMP_CNTR,
			   UVERBS_METHOD_COMP_CNTR_DESTROY, 1, NULL);

	if (!comp_cntr)
		return EINVAL;
	sv_ioctl_in_obj(cmd, UVERBS_ATTR_DESTROY_COMP_CNTR_HANDLE,
			comp_cntr->handle);
	return sv_destroy_result(sv_ioctl_exec(comp_cntr->context, cmd));
}
PABI_EXPORT_65(ibv_cmd_destroy_comp_cntr);

static int modify_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint8_t entry,
			    uint8_t op, uint64_t value)
{
	PABI_IOCTL_DECLARE(cmd, UVERBS_OBJECT_COMP_CNTR,
			   UVERBS_METHOD_COMP_CNTR_MODIFY, 4, NULL);

	if (!comp_cntr)
		return EINVAL;
	sv_ioctl_in_obj(cmd, UVERBS_ATTR_MODIFY_COMP_CNTR_HANDLE,
			comp_cntr->handle);
	sv_ioctl_in_u64(cmd, UVERBS_ATTR_MODIFY_COMP_CNTR_ENTRY, entry);
	sv_ioctl_in_u64(cmd, UVERBS_ATTR_MODIFY_COMP_CNTR_OP, op);
	sv_ioctl_in_u64(cmd, UVERBS_ATTR_MODIFY_COMP_CNTR_VALUE, value);
	return sv_ioctl_exec(comp_cntr->context, cmd);
}

static int read_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint8_t entry,
			  uint64_t *value)
{
	PABI_IOCTL_DECLARE(cmd, UVERBS_OBJECT_COMP_CNTR,
			   UVERBS_METHOD_COMP_CNTR_READ, 3, NULL);

	if (!comp_cntr || !value)
		return EINVAL;
	sv_ioctl_in_obj(cmd, UVERBS_ATTR_READ_COMP_CNTR_HANDLE,
			comp_cntr->handle);
	sv_ioctl_in_u64(cmd, UVERBS_ATTR_READ_COMP_CNTR_ENTRY, entry);
	sv_ioctl_out(cmd, UVERBS_ATTR_READ_COMP_CNTR_RESP_VALUE, value,
		     sizeof(*value));
	return sv_ioctl_exec(comp_cntr->context, cmd);
}

SV_EXPORT int ibv_cmd_set_comp_cntr(struct ibv_comp_cntr *comp_cntr,
				    uint64_t value)
{
	return modify_comp_cntr(comp_cntr, IB_UVERBS_COMP_CNTR_ENTRY_COMP,
				IB_UVERBS_COMP_CNTR_MODIFY_OP_SET, value);
}
PABI_EXPORT_65(ibv_cmd_set_comp_cntr);

SV_EXPORT int ibv_cmd_set_err_comp_cntr(struct ibv_comp_cntr *comp_cntr,
					uint64_t value)
{
	return modify_comp_cntr(comp_cntr, IB_UVERBS_COMP_CNTR_ENTRY_ERR,
				IB_UVERBS_COMP_CNTR_MODIFY_OP_SET, value);
}
PABI_EXPORT_65(ibv_cmd_set_err_comp_cntr);

SV_EXPORT int ibv_cmd_inc_comp_cntr(struct ibv_comp_cntr *comp_cntr,
				    uint64_t amount)
{
	return modify_comp_cntr(comp_cntr, IB_UVERBS_COMP_CNTR_ENTRY_COMP,
				IB_UVERBS_COMP_CNTR_MODIFY_OP_INC, amount);
}
PABI_EXPORT_65(ibv_cmd_inc_comp_cntr);

SV_EXPORT int ibv_cmd_inc_err_comp_cntr(struct ibv_comp_cntr *comp_cntr,
					uint64_t amount)
{
	return modify_comp_cntr(comp_cntr, IB_UVERBS_COMP_CNTR_ENTRY_ERR,
				IB_UVERBS_COMP_CNTR_MODIFY_OP_INC, amount);
}
PABI_EXPORT_65(ibv_cmd_inc_err_comp_cntr);

SV_EXPORT int ibv_cmd_read_comp_cntr(struct ibv_comp_cntr *comp_cntr,
				     uint64_t *value)
{
	return read_comp_cntr(comp_cntr, IB_UVERBS_COMP_CNTR_ENTRY_COMP, value);
}
PABI_EXPORT_65(ibv_cmd_read_comp_cntr);

SV_EXPORT int ibv_cmd_read_err_comp_cntr(struct ibv_comp_cntr *comp_cntr,
					 uint64_t *value)
{
	return read_comp_cntr(comp_cntr, IB_UVERBS_COMP_CNTR_ENTRY_ERR, value);
}
PABI_EXPORT_65(ibv_cmd_read_err_comp_cntr);

SV_EXPORT int ibv_cmd_qp_attach_comp_cntr(struct ibv_qp *qp,
					  struct ibv_comp_cntr *comp_cntr,
					  struct ibv_qp_attach_comp_cntr_attr *attr)
{
	PABI_IOCTL_DECLARE(cmd, UVERBS_OBJECT_QP,
			   UVERBS_METHOD_QP_ATTACH_COMP_CNTR, 3, NULL);

	if (!qp || !comp_cntr || !attr)
		return EINVAL;
	sv_ioctl_in_obj(cmd, UVERBS_ATTR_QP_ATTACH_COMP_CNTR_HANDLE,
			qp->handle);
	sv_ioctl_in_obj(cmd, UVERBS_ATTR_QP_ATTACH_COMP_CNTR_CNTR_HANDLE,
			comp_cntr->handle);
	sv_ioctl_in_u32(cmd, UVERBS_ATTR_QP_ATTACH_COMP_CNTR_OP_MASK,
			attr->op_mask);
	return sv_ioctl_exec(qp->context, cmd);
}
PABI_EXPORT_65(ibv_cmd_qp_attach_comp_cntr);
