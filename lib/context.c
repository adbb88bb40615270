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

struct sv_context *sv_context_alloc(struct ibv_device *device,
				    const struct sv_provider *prov, int cmd_fd,
				    bool kernel)
{
	size_t size = prov->context_size;
	struct sv_context *ctx;

	if (size < sizeof(struct sv_context))
		size = sizeof(struct sv_context);
	ctx = calloc(1, size);
	if (!ctx)
		return NULL;
	ctx->provider = prov;
	ctx->core.driver_id = (uint32_t)prov->driver_id;
	ctx->core.layout = &sv_native_layout;
	if (kernel)
		ctx->core.ops = sv_default_ops;
	else
		sv_ops_init_nosup(&ctx->core.ops);
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

void sv_context_free(struct sv_context *ctx)
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
	ctx = sv_context_alloc(device, prov, fd, true);
	if (!ctx) {
		ret = ENOMEM;
		goto err_close;
	}
	ctx->abi_version = s->sd.abi_ver;
	/* the kernel checks the ioctl header's driver id: sysfs discovery
	 * does not learn it, the matched provider knows it */
	if (s->sd.driver_id != RDMA_DRIVER_UNKNOWN)
		ctx->core.driver_id = s->sd.driver_id;
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
	sv_context_free(ctx);
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
	sv_context_free(ctx);
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
