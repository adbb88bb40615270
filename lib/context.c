/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Opening and closing a device: the verbs_context every application sees,
 * built from the provider's tables. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"

const struct sv_obj_layout sv_native_layout = {
	.qp_comp_mask = offsetof(struct sv_qp, comp_mask),
	.qp_xrcd = offsetof(struct sv_qp, xrcd),
	.port_attr_size = SV_PORT_ATTR_SIZE,
	.vctx_size = SV_VCTX_SIZE_NEWEST, /* struct sv_context has the room */
};
_Static_assert(offsetof(struct sv_context, vctx) -
			       offsetof(struct sv_context, vctx_grown) ==
		       SV_VCTX_GROWN_SLOTS * sizeof(void *),
	       "the grown slots lie right in front of the verbs_context");

/* The slots rdma-core 59-64 added in front of query_port, nearest first,
 * as many as the context's verbs_context has (rdma-core's core points them
 * at the ops; nothing in verbs.h reads them). */
static void install_grown(struct verbs_context *v,
			  const struct sv_context_ops *ops, size_t vctx_size)
{
	void (*const grown[SV_VCTX_GROWN_SLOTS])(void) = {
		(void (*)(void))ops->alloc_dmah,
		(void (*)(void))ops->dealloc_dmah,
		(void (*)(void))ops->reg_mr_ex,
		(void (*)(void))ops->dm_export_dmabuf_fd,
		(void (*)(void))ops->alloc_buf,
		(void (*)(void))ops->free_buf,
	};
	char *query_port = (char *)&v->query_port;
	size_t n = vctx_size > SV_VCTX_SIZE_44 ?
			   (vctx_size - SV_VCTX_SIZE_44) / sizeof(void *) : 0;

	for (size_t i = 0; i < n && i < SV_VCTX_GROWN_SLOTS; i++)
		memcpy(query_port - (ptrdiff_t)((i + 1) * sizeof(void *)),
		       &grown[i], sizeof(grown[i]));
}

void sv_context_install_ops(struct verbs_context *v)
{
	struct ibv_context_ops *o = &v->context.ops;
	const struct sv_context_ops *ops = &v->priv->ops;

	/* The hot-path verbs are inline in applications and jump through
	 * ibv_context.ops: straight to the provider. */
	o->alloc_mw = ops->alloc_mw;
	o->bind_mw = ops->bind_mw;
	o->dealloc_mw = ops->dealloc_mw;
	o->poll_cq = ops->poll_cq;
	o->req_notify_cq = ops->req_notify_cq;
	o->post_srq_recv = ops->post_srq_recv;
	o->post_send = ops->post_send;
	o->post_recv = ops->post_recv;

	/* The extended verbs go through the verbs_context slots. Creation
	 * verbs pass through the core, which keeps its bookkeeping. */
	v->query_port = sv_query_port;
	v->advise_mr = ops->advise_mr;
	v->alloc_null_mr = ops->alloc_null_mr;
	v->read_counters = ops->read_counters;
	v->attach_counters_point_flow = ops->attach_counters_point_flow;
	v->create_counters = ops->create_counters;
	v->destroy_counters = ops->destroy_counters;
	v->reg_dm_mr = ops->reg_dm_mr;
	v->alloc_dm = ops->alloc_dm;
	v->free_dm = ops->free_dm;
	v->modify_flow_action_esp = ops->modify_flow_action_esp;
	v->destroy_flow_action = ops->destroy_flow_action;
	v->create_flow_action_esp = ops->create_flow_action_esp;
	v->modify_qp_rate_limit = ops->modify_qp_rate_limit;
	v->alloc_parent_domain = ops->alloc_parent_domain;
	v->dealloc_td = ops->dealloc_td;
	v->alloc_td = ops->alloc_td;
	v->modify_cq = ops->modify_cq;
	v->post_srq_ops = ops->post_srq_ops;
	v->destroy_rwq_ind_table = ops->destroy_rwq_ind_table;
	v->create_rwq_ind_table = ops->create_rwq_ind_table;
	v->destroy_wq = ops->destroy_wq;
	v->modify_wq = ops->modify_wq;
	v->create_wq = ops->create_wq;
	v->query_rt_values = ops->query_rt_values;
	v->create_cq_ex = sv_vctx_create_cq_ex;
	v->query_device_ex = ops->query_device_ex;
	v->ibv_destroy_flow = ops->destroy_flow;
	v->ibv_create_flow = ops->create_flow;
	/* programs built against libibverbs 1.1.8 look for the flow verbs
	 * in these two places */
	v->ABI_placeholder1 = (void (*)(void))ops->create_flow;
	v->ABI_placeholder2 = (void (*)(void))ops->destroy_flow;
	v->open_qp = sv_vctx_open_qp;
	v->create_qp_ex = sv_vctx_create_qp_ex;
	v->get_srq_num = ops->get_srq_num;
	v->create_srq_ex = sv_vctx_create_srq_ex;
	v->open_xrcd = ops->open_xrcd;
	v->close_xrcd = ops->close_xrcd;
	install_grown(v, ops, v->priv->layout->vctx_size);
}

int sv_context_finish_open(struct verbs_context *vctx)
{
	struct ibv_context *ctx = &vctx->context;

	sv_context_install_ops(vctx);
	sv_inherit_context_add(vctx);
	if (ctx->async_fd < 0)
		sv_warn("%s: the provider's context has no async event fd; ibv_get_async_event will fail",
			ctx->device->name);
	return 0;
}

/* ---- the built-in providers' device hooks ---------------------------------- */

static struct sv_context *context_alloc(struct ibv_device *device,
					struct sv_sysfs_dev *s, int cmd_fd)
{
	const struct sv_provider *prov = s->native;
	size_t size = prov->context_size;
	struct sv_context *ctx;

	if (size < sizeof(struct sv_context))
		size = sizeof(struct sv_context);
	ctx = calloc(1, size);
	if (!ctx)
		return NULL;
	ctx->provider = prov;
	ctx->abi_version = s->sd.abi_ver;
	/* the kernel checks the ioctl header's driver id: sysfs discovery
	 * does not learn it, the matched provider knows it */
	ctx->core.driver_id = s->sd.driver_id != RDMA_DRIVER_UNKNOWN ?
		s->sd.driver_id : (uint32_t)prov->driver_id;
	ctx->core.layout = &sv_native_layout;
	ctx->core.ops = sv_default_ops;
	sv_ops_merge(&ctx->core.ops, prov->ops);

	/* verbs.h's contract for extended contexts: sz is how much of the
	 * struct there is (with every slot of rdma-core 65's) */
	ctx->vctx.sz = SV_VCTX_SIZE_NEWEST;
	ctx->vctx.priv = &ctx->core;
	ctx->vctx.context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	ctx->vctx.context.device = device;
	ctx->vctx.context.cmd_fd = cmd_fd;
	ctx->vctx.context.async_fd = -1;
	pthread_mutex_init(&ctx->vctx.context.mutex, NULL);
	sv_context_install_ops(&ctx->vctx);
	return ctx;
}

static void context_free(struct sv_context *ctx)
{
	pthread_mutex_destroy(&ctx->vctx.context.mutex);
	free(ctx);
}

static struct ibv_context *builtin_open(struct ibv_device *device,
					void *private_data)
{
	struct sv_sysfs_dev *s = sv_device_sysfs(device);
	const struct sv_provider *prov = s->native;
	struct sv_context *ctx;
	int fd, ret;

	(void)private_data; /* a vendor's (mlx5dv_open_device): none of ours */
	fd = sv_device_open_cdev(s, device->name);
	if (fd < 0)
		return NULL;
	ctx = context_alloc(device, s, fd);
	if (!ctx) {
		ret = ENOMEM;
		goto err_close;
	}
	if (prov->alloc_context)
		ret = prov->alloc_context(ctx);
	else
		ret = sv_cmd_get_context(&ctx->vctx.context, NULL);
	if (ret) {
		sv_err("%s: provider %s could not set up a context: %s",
		       device->name, prov->name, strerror(ret));
		goto err_free;
	}
	ret = sv_context_finish_open(&ctx->vctx);
	if (ret)
		goto err_free;
	sv_device_hold(device);
	return &ctx->vctx.context;

err_free:
	if (ctx->vctx.context.async_fd >= 0)
		close(ctx->vctx.context.async_fd);
	context_free(ctx);
err_close:
	close(fd);
	errno = ret;
	return NULL;
}

static void builtin_close(struct ibv_context *context)
{
	struct sv_context *ctx = sv_to_context(context);
	struct ibv_device *device = context->device;

	if (ctx->provider->free_context)
		ctx->provider->free_context(ctx);
	if (context->async_fd >= 0)
		close(context->async_fd);
	close(context->cmd_fd);
	context_free(ctx);
	sv_device_put(device);
}

/* The device object is the bare verbs_device builtin_claim allocated. */
static void builtin_free_device(struct verbs_device *vdev)
{
	free(vdev);
}

/* No import: rxe and siw cannot rebuild their queues from another
 * process's context. */
const struct sv_device_hooks sv_builtin_hooks = {
	.open = builtin_open,
	.close = builtin_close,
	.free = builtin_free_device,
};

/* ---- opening and closing ---------------------------------------------------- */

SV_EXPORT struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	return sv_device_open(device, NULL);
}

SV_EXPORT int ibv_close_device(struct ibv_context *context)
{
	if (!context || context->abi_compat != __VERBS_ABI_IS_EXTENDED)
		return EINVAL;
	/* In a forked child, closing an inherited context frees the child's
	 * copies and closes the child's descriptors only: no command reaches
	 * the kernel, the parent's objects stay. */
	if (sv_inherited(context))
		sv_dbg("%s: closing context %p inherited from the parent process",
		       context->device->name, (void *)context);
	sv_inherit_context_del(container_of(context, struct verbs_context, context));
	sv_explain_forget(context);
	sv_device_sysfs(context->device)->hooks->close(context);
	return 0;
}
