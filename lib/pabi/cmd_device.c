/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rdma-core's device methods that exist only as ioctls
 * (IBVERBS_PRIVATE_34 ... 65): QUERY_CONTEXT, GET_CONTEXT with fds for the
 * kernel (v57), the port's effective speed (v62) and the completion
 * counter capabilities (v65). The write helpers are cmd.c's. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "pabi.h"

SV_EXPORT int ibv_cmd_query_context(struct ibv_context *ctx,
				    struct ibv_command_buffer *driver)
{
	const struct pabi_link link = pabi_link_of(driver);
	int ret;

	/* the kernel writes the vector count (a u32) straight into the
	 * context, as rdma-core lets it */
	ret = sv_cmd_query_context_linked(
		ctx, (uint32_t *)&ctx->num_comp_vectors, &link.link);
	if (ret)
		return ret;
	/* the device's copy is rdma-core's; the core reads its own */
	if (ctx->device)
		verbs_get_device(ctx->device)->core_support =
			sv_priv(ctx)->core_support;
	return 0;
}
PABI_EXPORT_34(ibv_cmd_query_context);

int pabi_get_context_ioctl(struct ibv_context *ctx, struct sv_udata *u,
			   const struct ibv_fd_arr *fd_arr)
{
	struct ib_uverbs_get_context_resp *core = u->core_resp;
	struct ib_uverbs_attr *async;
	uint64_t core_support = 0;
	uint32_t vectors = 0;
	int ret;

	{
		PABI_IOCTL_DECLARE(cmd, UVERBS_OBJECT_DEVICE,
				   UVERBS_METHOD_GET_CONTEXT, 5, NULL);

		sv_ioctl_out(cmd, UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS,
			     &vectors, sizeof(vectors));
		sv_ioctl_out(cmd, UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT,
			     &core_support, sizeof(core_support));
		sv_ioctl_in_ptr(cmd, UVERBS_ATTR_GET_CONTEXT_FD_ARR,
				fd_arr->arr,
				sv_ioctl_array_len(sizeof(*fd_arr->arr),
						   fd_arr->count));
		if (u->req_len)
			sv_ioctl_in_ptr(cmd, UVERBS_ATTR_UHW_IN, u->req,
					u->req_len);
		if (u->resp_len)
			sv_ioctl_out(cmd, UVERBS_ATTR_UHW_OUT, u->resp,
				     u->resp_len);
		ret = sv_ioctl_exec(ctx, cmd);
		if (ret) {
			sv_err("GET_CONTEXT with %u fds: %s", fd_arr->count,
			       strerror(ret));
			return ret;
		}
	}
	/* the ioctl makes no async event fd: a method of its own does */
	{
		PABI_IOCTL_DECLARE(cmd, UVERBS_OBJECT_ASYNC_EVENT,
				   UVERBS_METHOD_ASYNC_EVENT_ALLOC, 1, NULL);

		async = sv_ioctl_out_fd(
			cmd, UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE);
		ret = sv_ioctl_exec(ctx, cmd);
		if (ret) {
			sv_err("ASYNC_EVENT_ALLOC after GET_CONTEXT: %s",
			       strerror(ret));
			return ret;
		}
	}
	ctx->async_fd = (int)async->data;
	ctx->num_comp_vectors = (int)vectors;
	sv_priv(ctx)->core_support = core_support;
	if (core) {
		core->async_fd = (uint32_t)ctx->async_fd;
		core->num_comp_vectors = vectors;
	}
	return 0;
}

/* v62: 0, or a positive errno (EOPNOTSUPP from a kernel or driver that
 * reports no effective speed: rxe and siw as of 7.2) */
SV_EXPORT int ibv_cmd_query_port_speed(struct ibv_context *context,
				       uint32_t port_num, uint64_t *speed)
{
	const struct pabi_link link = pabi_link_of(NULL);

	if (!context || !speed)
		return EINVAL;
	return sv_cmd_query_port_speed_linked(context, port_num, speed,
					      &link.link);
}
PABI_EXPORT_59(ibv_cmd_query_port_speed);

SV_EXPORT int ibv_cmd_query_comp_cntr_caps(struct ibv_context *context,
					   struct ibv_comp_cntr_caps *caps,
					   size_t caps_size)
{
	PABI_IOCTL_DECLARE(cmd, UVERBS_OBJECT_DEVICE,
			   UVERBS_METHOD_QUERY_COMP_CNTR_CAPS, 3, NULL);
	uint32_t ops = 0;
	int ret;

	if (!context || !caps || caps_size < sizeof(*caps))
		return EINVAL;
	sv_ioctl_out(cmd, UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_COUNTERS,
		     &caps->max_counters, sizeof(caps->max_counters));
	sv_ioctl_out(cmd, UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_VALUE,
		     &caps->max_value, sizeof(caps->max_value));
	sv_ioctl_out(cmd,
		     UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_SUPPORTED_QP_ATTACH_OPS,
		     &ops, sizeof(ops));
	ret = sv_ioctl_exec(context, cmd);
	if (ret)
		return ret;
	/* the kernel's bits are the verbs' (both enums are 1 << 0 ... 5) */
	caps->supported_qp_attach_ops =
		ops & (IBV_QP_ATTACH_COMP_CNTR_OP_SEND |
		       IBV_QP_ATTACH_COMP_CNTR_OP_RECV |
		       IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_READ |
		       IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ |
		       IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE |
		       IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE);
	return 0;
}
PABI_EXPORT_65(ibv_cmd_query_comp_cntr_caps);
_Static_assert(IBV_QP_ATTACH_COMP_CNTR_OP_SEND == IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_SEND &&
		       IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE ==
			       IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE,
	       "completion counter op bits are the kernel's");
