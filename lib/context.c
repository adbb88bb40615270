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

void sv_context_install_ops(struct sv_context *ctx)
{
	struct verbs_context *v = &ctx->vctx;
	struct ibv_context_ops *o = &v->context.ops;
	const struct sv_context_ops *ops = &ctx->ops;

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
	v->priv = NULL;
	v->query_device_ex = ops->query_device_ex;
	v->ibv_destroy_flow = ops->destroy_flow;
	v->ibv_create_flow = ops->create_flow;
	v->open_qp = sv_vctx_open_qp;
	v->create_qp_ex = sv_vctx_create_qp_ex;
	v->get_srq_num = ops->get_srq_num;
	v->create_srq_ex = sv_vctx_create_srq_ex;
	v->open_xrcd = ops->open_xrcd;
	v->close_xrcd = ops->close_xrcd;
}

static struct sv_context *context_alloc(struct sv_device *dev, int cmd_fd)
{
	const struct sv_provider *prov = dev->provider;
	size_t size = prov->context_size;
	struct sv_context *ctx;

	if (size < sizeof(struct sv_context))
		size = sizeof(struct sv_context);
	ctx = calloc(1, size);
	if (!ctx)
		return NULL;
	ctx->provider = prov;
	ctx->abi_version = dev->abi_version;
	/* the kernel checks the ioctl header's driver id: sysfs discovery
	 * does not learn it, the matched provider knows it */
	ctx->driver_id = dev->driver_id != RDMA_DRIVER_UNKNOWN ?
		dev->driver_id : prov->driver_id;
	ctx->ops = sv_default_ops;
	sv_ops_merge(&ctx->ops, prov->ops);

	/* verbs.h's contract for extended contexts */
	ctx->vctx.sz = sizeof(struct verbs_context);
	ctx->vctx.context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	ctx->vctx.context.device = &dev->ibdev;
	ctx->vctx.context.cmd_fd = cmd_fd;
	ctx->vctx.context.async_fd = -1;
	pthread_mutex_init(&ctx->vctx.context.mutex, NULL);
	sv_context_install_ops(ctx);
	return ctx;
}

static void context_free(struct sv_context *ctx)
{
	pthread_mutex_destroy(&ctx->vctx.context.mutex);
	free(ctx);
}

SV_EXPORT struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	struct sv_device *dev;
	struct sv_context *ctx;
	int fd, ret;

	sv_init_once();
	if (!device) {
		errno = EINVAL;
		return NULL;
	}
	dev = sv_to_device(device);
	if (dev->magic != SV_DEVICE_MAGIC) {
		sv_err("not a device of this library's device list");
		errno = EINVAL;
		return NULL;
	}

	fd = open(dev->devnode, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		ret = errno;
		sv_err("%s: open %s: %s", device->name, dev->devnode,
		       strerror(ret));
		errno = ret;
		return NULL;
	}
	ctx = context_alloc(dev, fd);
	if (!ctx) {
		ret = ENOMEM;
		goto err_close;
	}
	if (dev->provider->alloc_context)
		ret = dev->provider->alloc_context(ctx);
	else
		ret = sv_cmd_get_context(ctx, NULL);
	if (ret) {
		sv_err("%s: provider %s could not set up a context: %s",
		       device->name, dev->provider->name, strerror(ret));
		goto err_free;
	}
	sv_device_get(dev);
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

SV_EXPORT int ibv_close_device(struct ibv_context *context)
{
	struct sv_context *ctx;
	struct sv_device *dev;

	if (!context || context->abi_compat != __VERBS_ABI_IS_EXTENDED)
		return EINVAL;
	ctx = sv_to_context(context);
	dev = sv_to_device(context->device);
	if (ctx->provider->free_context)
		ctx->provider->free_context(ctx);
	if (context->async_fd >= 0)
		close(context->async_fd);
	close(context->cmd_fd);
	context_free(ctx);
	sv_device_put(dev);
	return 0;
}
