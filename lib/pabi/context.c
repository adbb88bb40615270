/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* IBVERBS_PRIVATE_34, the context side: what an rdma-core provider calls
 * to build its context on softverbs' core (_verbs_init_and_alloc_context,
 * verbs_set_ops, verbs_uninit_context), plus logging and sysfs helpers.
 * Registration and matching are lib/pabi/loader.c's; the command helpers
 * lib/pabi/cmd*.c's.
 *
 * An rdma-core provider allocates its own context struct with the
 * verbs_context inside; the core's state for it (the ops table the
 * public verbs dispatch through, the driver id) is allocated here and
 * hangs off verbs_context.priv, as rdma-core does. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pabi.h"

_Static_assert(sizeof(struct sv_srq) == sizeof(struct verbs_srq) &&
		       offsetof(struct sv_srq, srq_num) ==
			       offsetof(struct verbs_srq, srq_num),
	       "sv_srq is laid out as verbs_srq");
_Static_assert(sizeof(struct sv_mr) == sizeof(struct verbs_mr) &&
		       offsetof(struct sv_mr, mr_type) ==
			       offsetof(struct verbs_mr, mr_type) &&
		       offsetof(struct sv_mr, access) ==
			       offsetof(struct verbs_mr, access) &&
		       (int)SV_MR_TYPE_DMABUF_MR == (int)IBV_MR_TYPE_DMABUF_MR,
	       "sv_mr is laid out as verbs_mr");
_Static_assert(sizeof(struct sv_cq) == sizeof(struct verbs_cq),
	       "sv_cq is laid out as verbs_cq");
_Static_assert(SV_QP_EX == VERBS_QP_EX, "one bit says a QP has ibv_qp_ex");

/* ---- logging and flags ---------------------------------------------------- */

SV_EXPORT void __verbs_log(struct verbs_context *ctx, uint32_t level,
			   const char *fmt, ...)
{
	int saved_errno = errno;
	char msg[512];
	va_list ap;

	(void)ctx;
	if (level == 0)
		return;
	if (level > SV_LOG_DEBUG)
		level = SV_LOG_DEBUG;
	if ((int)level > sv_log_level)
		return;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* rdma-core's messages end in a newline; ours add one */
	msg[strcspn(msg, "\n")] = 0;
	sv_log_write((enum sv_log_level)level, "provider", "%s", msg);
	errno = saved_errno;
}
PABI_EXPORT_34(__verbs_log);

/* rdma-core lets providers destroy objects of a disassociated device when
 * this is set (RDMAV_ALLOW_DISASSOC_DESTROY, or mlx4's old
 * MLX4_DEVICE_FATAL_CLEANUP); a one-byte object in the ABI. */
SV_EXPORT bool verbs_allow_disassociate_destroy;
PABI_EXPORT_34(verbs_allow_disassociate_destroy);

static int env_set(const char *name)
{
	const char *v = sv_env(name);

	return v && strcmp(v, "0") != 0;
}

__attribute__((constructor)) static void read_disassoc_env(void)
{
	verbs_allow_disassociate_destroy =
		env_set("RDMAV_ALLOW_DISASSOC_DESTROY") ||
		env_set("MLX4_DEVICE_FATAL_CLEANUP");
}

SV_EXPORT int ibv_read_ibdev_sysfs_file(char *buf, size_t size,
					struct verbs_sysfs_dev *sysfs_dev,
					const char *fnfmt, ...)
{
	char file[IBV_SYSFS_PATH_MAX];
	va_list ap;
	int n;

	if (!sysfs_dev || !buf || !fnfmt) {
		errno = EINVAL;
		return -1;
	}
	va_start(ap, fnfmt);
	n = vsnprintf(file, sizeof(file), fnfmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(file)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return ibv_read_sysfs_file(sysfs_dev->ibdev_path, file, buf, size);
}
PABI_EXPORT_34(ibv_read_ibdev_sysfs_file);

/* v49: exported in the provider ABI node, declared in verbs.h */
SV_EXPORT const char *ibv_wr_opcode_str(enum ibv_wr_opcode opcode)
{
	return sv_wr_opcode_str(opcode);
}
PABI_EXPORT_34(ibv_wr_opcode_str);

/* IBVERBS_PRIVATE_34, imported by Debian's ibv_devinfo: 0, or -1 with
 * errno. */
SV_EXPORT int ibv_query_gid_type(struct ibv_context *context,
				 uint8_t port_num, unsigned int index,
				 enum ibv_gid_type_sysfs *type)
{
	struct ibv_gid_entry e;
	int ret;

	if (!context || context->abi_compat != __VERBS_ABI_IS_EXTENDED || !type) {
		errno = EINVAL;
		return -1;
	}
	ret = sv_inherit_check(context, "ibv_query_gid_type");
	if (!ret)
		ret = sv_query_gid_entry(context, port_num, index, &e);
	if (ret == ENODATA) {
		*type = IBV_GID_TYPE_SYSFS_IB_ROCE_V1;
		return 0;
	}
	if (ret) {
		errno = ret;
		return -1;
	}
	*type = e.gid_type == IBV_GID_TYPE_ROCE_V2 ?
		IBV_GID_TYPE_SYSFS_ROCE_V2 : IBV_GID_TYPE_SYSFS_IB_ROCE_V1;
	return 0;
}
PABI_EXPORT_34(ibv_query_gid_type);

/* ---- contexts -------------------------------------------------------------- */

/* The core half of a provider's new context (rdma-core's
 * verbs_init_context). Takes cmd_fd: closes it on failure. */
static int init_context(struct verbs_context *vctx, struct ibv_device *device,
			int cmd_fd, uint32_t driver_id)
{
	struct ibv_context *ctx = &vctx->context;
	struct verbs_ex_private *priv;

	priv = calloc(1, sizeof(*priv));
	if (!priv) {
		close(cmd_fd);
		errno = ENOMEM;
		return -1;
	}
	sv_ops_init_nosup(&priv->ops);
	/* the provider's generation (the device was attached with it) */
	priv->layout = sv_device_sysfs(device)->layout;
	priv->driver_id = driver_id;

	sv_device_hold(device);
	ctx->device = device;
	ctx->cmd_fd = cmd_fd;
	ctx->async_fd = -1;
	pthread_mutex_init(&ctx->mutex, NULL);
	ctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
	/* as much verbs_context as the provider's release has */
	vctx->sz = priv->layout->vctx_size;
	vctx->priv = priv;
	sv_context_install_ops(vctx);
	return 0;
}

SV_EXPORT void *_verbs_init_and_alloc_context(struct ibv_device *device,
					      int cmd_fd, size_t alloc_size,
					      struct verbs_context *context_offset,
					      uint32_t driver_id)
{
	struct sv_sysfs_dev *s = sv_device_sysfs(device);
	size_t offset = (uintptr_t)context_offset;
	size_t vctx_size;
	void *drv;

	/* the provider's verbs_context is its release's: rdma-core 59, 62
	 * and 64 grew it in front */
	vctx_size = s && s->layout ? s->layout->vctx_size : 0;
	if (!vctx_size || offset > alloc_size ||
	    alloc_size - offset < vctx_size) {
		sv_err("a provider asked for a context of %zu bytes with a %zu-byte verbs_context at %zu",
		       alloc_size, vctx_size, offset);
		if (cmd_fd >= 0)
			close(cmd_fd);
		errno = EINVAL;
		return NULL;
	}
	drv = calloc(1, alloc_size);
	if (!drv) {
		close(cmd_fd);
		errno = ENOMEM;
		return NULL;
	}
	if (init_context(sv_vctx_at((char *)drv + offset, vctx_size), device,
			 cmd_fd, driver_id)) {
		free(drv);
		return NULL;
	}
	return drv;
}
PABI_EXPORT_34(_verbs_init_and_alloc_context);

SV_EXPORT void verbs_uninit_context(struct verbs_context *vctx)
{
	struct ibv_context *ctx;

	if (!vctx)
		return;
	ctx = &vctx->context;
	free(vctx->priv);
	vctx->priv = NULL;
	if (ctx->cmd_fd >= 0)
		close(ctx->cmd_fd);
	if (ctx->async_fd >= 0)
		close(ctx->async_fd);
	pthread_mutex_destroy(&ctx->mutex);
	sv_device_put(ctx->device);
}
PABI_EXPORT_34(verbs_uninit_context);

SV_EXPORT void verbs_set_ops(struct verbs_context *vctx,
			     const struct verbs_context_ops *ops)
{
	const struct pabi_gen *gen;
	struct verbs_ex_private *priv;

	if (!vctx || !ops || !vctx->priv)
		return;
	priv = vctx->priv;
	/* the table is laid out as the provider's release lays it out */
	gen = pabi_gen_of(&vctx->context);
	if (!gen) {
		sv_err("verbs_set_ops on a context no rdma-core provider made");
		return;
	}
	pabi_ops_take(&priv->ops, &priv->free_context, ops, gen->first);
	sv_context_install_ops(vctx);
}
PABI_EXPORT_34(verbs_set_ops);

/* What rdma-core's core does to every new CQ (and providers that make
 * CQs behind the core's back, like mlx5dv_create_cq, call). */
SV_EXPORT void verbs_init_cq(struct ibv_cq *cq, struct ibv_context *context,
			     struct ibv_comp_channel *channel, void *cq_context)
{
	cq->context = context;
	cq->channel = channel;
	if (channel) {
		pthread_mutex_lock(&context->mutex);
		channel->refcnt++;
		pthread_mutex_unlock(&context->mutex);
	}
	cq->cq_context = cq_context;
	cq->comp_events_completed = 0;
	cq->async_events_completed = 0;
	pthread_mutex_init(&cq->mutex, NULL);
	pthread_cond_init(&cq->cond, NULL);
}
PABI_EXPORT_34(verbs_init_cq);

/* ---- the device hooks ------------------------------------------------------ */

/* The provider owns fd once alloc_context has it: it closes it if it
 * fails. */
static struct ibv_context *pabi_open(struct ibv_device *device,
				     void *private_data)
{
	struct verbs_device *vdev = verbs_get_device(device);
	struct verbs_context *vctx;
	int fd, ret;

	fd = sv_device_open_cdev(sv_device_sysfs(device), device->name);
	if (fd < 0)
		return NULL;
	vctx = vdev->ops->alloc_context(device, fd, private_data);
	if (!vctx) {
		ret = errno ? errno : EIO;
		sv_err("%s: rdma-core's %s provider could not set up a context: %s",
		       device->name, vdev->ops->name, strerror(ret));
		errno = ret;
		return NULL;
	}
	ret = sv_context_finish_open(vctx);
	if (ret) {
		ibv_close_device(&vctx->context);
		errno = ret;
		return NULL;
	}
	sv_dbg("%s: context %p opened through rdma-core's %s provider",
	       device->name, (void *)&vctx->context, vdev->ops->name);
	return &vctx->context;
}

static struct verbs_context *pabi_import(struct ibv_device *device,
					 int cmd_fd)
{
	const struct verbs_device_ops *ops = verbs_get_device(device)->ops;

	if (!ops->import_context) {
		sv_err("ibv_import_device: %s's provider cannot import a context",
		       device->name);
		errno = EOPNOTSUPP;
		return NULL;
	}
	return ops->import_context(device, cmd_fd);
}

/* The provider frees its context and calls verbs_uninit_context, which
 * closes the fds and drops the device. */
static void pabi_close(struct ibv_context *context)
{
	struct verbs_ex_private *priv = sv_priv(context);

	if (priv->free_context)
		priv->free_context(context);
	else
		sv_warn("%s: the provider has no free_context; context %p leaks",
			context->device->name, (void *)context);
}

static void pabi_free_device(struct verbs_device *vdev)
{
	if (vdev->ops->uninit_device)
		vdev->ops->uninit_device(vdev);
}

const struct sv_device_hooks pabi_device_hooks = {
	.open = pabi_open,
	.import = pabi_import,
	.close = pabi_close,
	.free = pabi_free_device,
};

/* Open a device with the provider's private data (mlx5dv_open_device
 * passes some); ibv_open_device is this with NULL. */
SV_EXPORT struct ibv_context *verbs_open_device(struct ibv_device *device,
						void *private_data)
{
	return sv_device_open(device, private_data);
}
PABI_EXPORT_34(verbs_open_device);
