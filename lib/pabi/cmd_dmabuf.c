/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rdma-core 62's dma-buf export of a device's memory, an ioctl method
 * only. */
#include "config.h"

#include <errno.h>
#include <sys/types.h>

#include "pabi.h"

/* v62: the fd, or -1 with errno */
SV_EXPORT int ibv_cmd_export_dmabuf_fd(struct ibv_context *ctx, off_t pg_off)
{
	PABI_IOCTL_DECLARE(cmd, UVERBS_OBJECT_DMABUF,
			   UVERBS_METHOD_DMABUF_ALLOC, 2, NULL);
	struct ib_uverbs_attr *fd;

	if (!ctx) {
		errno = EINVAL;
		return -1;
	}
	fd = sv_ioctl_out_fd(cmd, UVERBS_ATTR_ALLOC_DMABUF_HANDLE);
	sv_ioctl_in_u64(cmd, UVERBS_ATTR_ALLOC_DMABUF_PGOFF, (uint64_t)pg_off);
	if (sv_ioctl_exec(ctx, cmd))
		return -1; /* errno set */
	return (int)fd->data;
}
PABI_EXPORT_59(ibv_cmd_export_dmabuf_fd);
