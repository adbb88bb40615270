/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rdma-core's create_cq_ex2 (v53): the CQ_CREATE ioctl, for a provider's
 * own attributes or its own CQ buffer (v59's prov_attr), which no write
 * command can carry. The write helpers are cmd.c's. */
#include "config.h"

#include <errno.h>
#include <stdint.h>

#include "pabi.h"

int pabi_create_cq_ioctl(struct ibv_context *context,
			 const struct ibv_cq_init_attr_ex *cq_attr,
			 const struct verbs_create_cq_prov_attr *prov_attr,
			 struct verbs_cq *cq, void *cmd, size_t cmd_size,
			 void *resp, size_t resp_size, uint32_t cmd_flags,
			 struct ibv_command_buffer *driver)
{
	struct ib_uverbs_attr *handle, *event_fd;
	uint32_t flags = 0, resp_cqe = 0;
	struct sv_udata u;
	int ret;

	if (!context || !cq_attr || !cq)
		return EINVAL;
	if ((cmd_flags & PABI_CQ_WITH_MEM) && !prov_attr) {
		sv_err("create_cq_ex: a buffer of the provider's asked for without prov_attr");
		return EINVAL;
	}
	if (cq_attr->comp_mask &
	    ~(uint32_t)(IBV_CQ_INIT_ATTR_MASK_FLAGS | IBV_CQ_INIT_ATTR_MASK_PD))
		return EOPNOTSUPP;
	/* the provider's data rides in UHW_IN/UHW_OUT */
	ret = sv_udata_of_provider(&u, 1, sizeof(struct ib_uverbs_ex_create_cq),
				   sizeof(struct ib_uverbs_ex_create_cq_resp),
				   cmd, cmd_size, resp, resp_size);
	if (ret)
		return ret;
	if (cq_attr->wc_flags & (IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
				 IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK))
		flags |= IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION;
	if ((cq_attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	    (cq_attr->flags & IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN))
		flags |= IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN;
	{
		/* the provider's attributes and buffer need the ioctl: no
		 * write command can carry them */
		PABI_IOCTL_DECLARE(c, UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE,
				   13, driver);

		handle = sv_ioctl_out_obj(c, UVERBS_ATTR_CREATE_CQ_HANDLE);
		sv_ioctl_out(c, UVERBS_ATTR_CREATE_CQ_RESP_CQE, &resp_cqe,
			     sizeof(resp_cqe));
		sv_ioctl_in_u32(c, UVERBS_ATTR_CREATE_CQ_CQE, cq_attr->cqe);
		sv_ioctl_in_u64(c, UVERBS_ATTR_CREATE_CQ_USER_HANDLE,
				(uintptr_t)&cq->cq);
		if (cq_attr->channel)
			sv_ioctl_in_fd(c, UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL,
				       cq_attr->channel->fd);
		sv_ioctl_in_u32(c, UVERBS_ATTR_CREATE_CQ_COMP_VECTOR,
				cq_attr->comp_vector);
		/* async events on the context's fd; a kernel that does not
		 * know the attribute uses that fd anyway */
		event_fd = sv_ioctl_in_fd(c, UVERBS_ATTR_CREATE_CQ_EVENT_FD,
					  context->async_fd);
		event_fd->flags = 0;
		if (flags)
			sv_ioctl_in_u32(c, UVERBS_ATTR_CREATE_CQ_FLAGS, flags);
		/* v59: the CQ's memory is the provider's */
		if (cmd_flags & CREATE_CQ_CMD_FLAGS_WITH_MEM_VA) {
			sv_ioctl_in_u64(c, UVERBS_ATTR_CREATE_CQ_BUFFER_VA,
					(uintptr_t)prov_attr->buffer.ptr);
			sv_ioctl_in_u64(c, UVERBS_ATTR_CREATE_CQ_BUFFER_LENGTH,
					prov_attr->buffer.length);
		} else if (cmd_flags & CREATE_CQ_CMD_FLAGS_WITH_MEM_DMABUF) {
			sv_ioctl_in_fd(c, UVERBS_ATTR_CREATE_CQ_BUFFER_FD,
				       prov_attr->buffer.dmabuf.fd);
			sv_ioctl_in_u64(c, UVERBS_ATTR_CREATE_CQ_BUFFER_OFFSET,
					prov_attr->buffer.dmabuf.offset);
			sv_ioctl_in_u64(c, UVERBS_ATTR_CREATE_CQ_BUFFER_LENGTH,
					prov_attr->buffer.length);
		}
		if (u.req_len)
			sv_ioctl_in_ptr(c, UVERBS_ATTR_UHW_IN, u.req,
					u.req_len);
		if (u.resp_len)
			sv_ioctl_out(c, UVERBS_ATTR_UHW_OUT, u.resp,
				     u.resp_len);
		ret = sv_ioctl_exec(context, c);
	}
	if (ret)
		return ret;
	sv_cmd_cq_init((struct sv_cq *)cq, context, cq_attr->channel,
		       (uint32_t)handle->data, resp_cqe);
	return 0;
}

/* v59 and later */
SV_EXPORT int ibv_cmd_create_cq_ex2(struct ibv_context *context,
				    const struct ibv_cq_init_attr_ex *cq_attr,
				    struct verbs_create_cq_prov_attr *prov_attr,
				    struct verbs_cq *cq, void *cmd,
				    size_t cmd_size, void *resp,
				    size_t resp_size, uint32_t cmd_flags,
				    struct ibv_command_buffer *driver)
{
	/* no attributes or buffer of its own: the same command as
	 * create_cq_ex */
	if (!__ioctl_final_num_attrs(0, driver) &&
	    !(cmd_flags & PABI_CQ_WITH_MEM))
		return pabi_create_cq_ex_write(context, cq_attr, cq, cmd,
					       cmd_size, resp, resp_size);
	return pabi_create_cq_ioctl(context, cq_attr, prov_attr, cq, cmd,
				    cmd_size, resp, resp_size, cmd_flags,
				    driver);
}
PABI_EXPORT_59(ibv_cmd_create_cq_ex2);

/* rdma-core 53-58: no prov_attr */
SV_EXPORT int pabi_cmd_create_cq_ex2_34(struct ibv_context *context,
					const struct ibv_cq_init_attr_ex *cq_attr,
					struct verbs_cq *cq, void *cmd,
					size_t cmd_size, void *resp,
					size_t resp_size, uint32_t cmd_flags,
					struct ibv_command_buffer *driver)
{
	return ibv_cmd_create_cq_ex2(context, cq_attr, NULL, cq, cmd, cmd_size,
				     resp, resp_size,
				     cmd_flags & ~(uint32_t)PABI_CQ_WITH_MEM,
				     driver);
}
PABI_OLD_FORM_57(pabi_cmd_create_cq_ex2_34, ibv_cmd_create_cq_ex2);
