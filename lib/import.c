/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Sharing objects between processes (ibv_import_*): a context opened
 * from another process's command fd, and PDs, MRs and device memory
 * from their kernel handles. The provider rebuilds its user-space objects
 * (rdma-core's mlx5 can); the built-in rxe and siw providers cannot, and
 * answer EOPNOTSUPP through the core's defaults. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <infiniband/verbs.h>

#include "core.h"

/* A pointer-returning verb's failure: errno set, NULL back. */
static void *fail(int err)
{
	errno = err;
	return NULL;
}

static int valid_ctx(struct ibv_context *ctx)
{
	return ctx && ctx->abi_compat == __VERBS_ABI_IS_EXTENDED;
}

SV_EXPORT struct ibv_context *ibv_import_device(int cmd_fd)
{
	struct ibv_device **list, *dev = NULL;
	struct verbs_context *vctx = NULL;
	struct sv_sysfs_dev *s;
	struct stat st;
	int ret;

	if (cmd_fd < 0 || fcntl(cmd_fd, F_GETFD) < 0) {
		sv_err("ibv_import_device: %d is not an open file descriptor",
		       cmd_fd);
		return fail(EBADF);
	}
	if (fstat(cmd_fd, &st) || !S_ISCHR(st.st_mode)) {
		sv_err("ibv_import_device: fd %d is not a uverbs character device",
		       cmd_fd);
		return fail(EINVAL);
	}
	list = ibv_get_device_list(NULL);
	if (!list)
		return fail(ENODEV);
	for (struct ibv_device **p = list; *p && !dev; p++) {
		s = sv_device_sysfs(*p);
		if (s && s->sd.sysfs_cdev == st.st_rdev)
			dev = *p;
	}
	if (!dev) {
		ibv_free_device_list(list);
		sv_err("ibv_import_device: fd %d is no listed device", cmd_fd);
		return fail(ENODEV);
	}
	s = sv_device_sysfs(dev);
	if (!s->hooks->import) {
		ibv_free_device_list(list);
		sv_err("ibv_import_device: %s's provider cannot import a context",
		       dev->name);
		return fail(EOPNOTSUPP);
	}
	vctx = s->hooks->import(dev, cmd_fd);
	ibv_free_device_list(list);
	if (!vctx)
		return NULL;
	ret = sv_context_finish_open(vctx);
	if (ret) {
		ibv_close_device(&vctx->context);
		return fail(ret);
	}
	return &vctx->context;
}

SV_EXPORT struct ibv_pd *ibv_import_pd(struct ibv_context *context,
				       uint32_t pd_handle)
{
	if (!valid_ctx(context)) {
		sv_err("ibv_import_pd: context is NULL or not ours");
		return fail(EINVAL);
	}
	return sv_priv(context)->ops.import_pd(context, pd_handle);
}

SV_EXPORT struct ibv_mr *ibv_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	if (!pd || !valid_ctx(pd->context)) {
		sv_err("ibv_import_mr: pd is NULL or not ours");
		return fail(EINVAL);
	}
	return sv_priv(pd->context)->ops.import_mr(pd, mr_handle);
}

SV_EXPORT struct ibv_dm *ibv_import_dm(struct ibv_context *context,
				       uint32_t dm_handle)
{
	if (!valid_ctx(context)) {
		sv_err("ibv_import_dm: context is NULL or not ours");
		return fail(EINVAL);
	}
	return sv_priv(context)->ops.import_dm(context, dm_handle);
}

SV_EXPORT void ibv_unimport_pd(struct ibv_pd *pd)
{
	if (pd && valid_ctx(pd->context))
		sv_priv(pd->context)->ops.unimport_pd(pd);
}

SV_EXPORT void ibv_unimport_mr(struct ibv_mr *mr)
{
	if (mr && valid_ctx(mr->context))
		sv_priv(mr->context)->ops.unimport_mr(mr);
}

SV_EXPORT void ibv_unimport_dm(struct ibv_dm *dm)
{
	if (dm && valid_ctx(dm->context))
		sv_priv(dm->context)->ops.unimport_dm(dm);
}
