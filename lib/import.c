/* Sharing objects between processes (ibv_import_*) and dma-buf memory
 * registration.
 *
 * Neither rxe nor siw supports them: importing needs the ioctl-only
 * UVERBS_METHOD_QUERY_CONTEXT/QUERY_MR paths and a provider that can
 * rebuild its user-space object from a kernel handle, and dma-buf needs a
 * device that can DMA from another driver's buffer. So every import fails
 * with EOPNOTSUPP after the argument checks a caller would hit on
 * rdma-core too, and every unimport has nothing to release. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>

#include <infiniband/verbs.h>

#include "core.h"

/* A pointer-returning verb's failure: errno set, NULL back. */
static void *fail(int err)
{
	errno = err;
	return NULL;
}

SV_EXPORT struct ibv_context *ibv_import_device(int cmd_fd)
{
	if (cmd_fd < 0 || fcntl(cmd_fd, F_GETFD) < 0) {
		sv_err("ibv_import_device: %d is not an open file descriptor",
		       cmd_fd);
		return fail(EBADF);
	}
	sv_err("ibv_import_device: importing a context is not supported");
	return fail(EOPNOTSUPP);
}

SV_EXPORT struct ibv_pd *ibv_import_pd(struct ibv_context *context,
				       uint32_t pd_handle)
{
	if (!context) {
		sv_err("ibv_import_pd: context is NULL");
		return fail(EINVAL);
	}
	sv_err("ibv_import_pd: importing PD handle %u is not supported",
	       pd_handle);
	return fail(EOPNOTSUPP);
}

SV_EXPORT struct ibv_mr *ibv_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	if (!pd) {
		sv_err("ibv_import_mr: pd is NULL");
		return fail(EINVAL);
	}
	sv_err("ibv_import_mr: importing MR handle %u is not supported",
	       mr_handle);
	return fail(EOPNOTSUPP);
}

SV_EXPORT struct ibv_dm *ibv_import_dm(struct ibv_context *context,
				       uint32_t dm_handle)
{
	if (!context) {
		sv_err("ibv_import_dm: context is NULL");
		return fail(EINVAL);
	}
	sv_err("ibv_import_dm: importing DM handle %u is not supported",
	       dm_handle);
	return fail(EOPNOTSUPP);
}

/* No import ever succeeds, so whatever reaches an unimport was not
 * imported: leave it alone (freeing an allocated PD here would leave its
 * kernel object orphaned) and say so. */
SV_EXPORT void ibv_unimport_pd(struct ibv_pd *pd)
{
	if (pd)
		sv_warn("ibv_unimport_pd: %p was not imported; ignored",
			(void *)pd);
}

SV_EXPORT void ibv_unimport_mr(struct ibv_mr *mr)
{
	if (mr)
		sv_warn("ibv_unimport_mr: %p was not imported; ignored",
			(void *)mr);
}

SV_EXPORT void ibv_unimport_dm(struct ibv_dm *dm)
{
	if (dm)
		sv_warn("ibv_unimport_dm: %p was not imported; ignored",
			(void *)dm);
}

SV_EXPORT struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
					   size_t length, uint64_t iova,
					   int fd, int access)
{
	(void)offset;
	(void)iova;
	if (!pd) {
		sv_err("ibv_reg_dmabuf_mr: pd is NULL");
		return fail(EINVAL);
	}
	if (!length) {
		sv_err("ibv_reg_dmabuf_mr: length is 0");
		return fail(EINVAL);
	}
	if (fd < 0) {
		sv_err("ibv_reg_dmabuf_mr: dma-buf fd %d is invalid", fd);
		return fail(EBADF);
	}
	sv_err("ibv_reg_dmabuf_mr: dma-buf registration (fd %d, access 0x%x) "
	       "is not supported by rxe or siw", fd, (unsigned int)access);
	return fail(EOPNOTSUPP);
}
