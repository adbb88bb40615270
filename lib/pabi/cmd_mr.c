/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rdma-core's MR methods that exist only as ioctls (IBVERBS_PRIVATE_34
 * ... 65): query (an imported MR), advise, dma-buf registration and REG_MR
 * as the ioctl (v59). The write helpers (reg, rereg, dereg) are cmd.c's;
 * device-memory MRs are cmd_dm.c's. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "pabi.h"

SV_EXPORT int ibv_cmd_query_mr(struct ibv_pd *pd, struct verbs_mr *vmr,
			       uint32_t mr_handle)
{
	PABI_IOCTL_DECLARE(cmd, UVERBS_OBJECT_MR, UVERBS_METHOD_QUERY_MR, 4,
			   NULL);
	struct ibv_mr *mr = &vmr->ibv_mr;
	int ret;

	sv_ioctl_in_obj(cmd, UVERBS_ATTR_QUERY_MR_HANDLE, mr_handle);
	sv_ioctl_out(cmd, UVERBS_ATTR_QUERY_MR_RESP_LKEY, &mr->lkey,
		     sizeof(mr->lkey));
	sv_ioctl_out(cmd, UVERBS_ATTR_QUERY_MR_RESP_RKEY, &mr->rkey,
		     sizeof(mr->rkey));
	sv_ioctl_out(cmd, UVERBS_ATTR_QUERY_MR_RESP_LENGTH, &mr->length,
		     sizeof(mr->length));
	ret = sv_ioctl_exec(pd->context, cmd);
	if (ret)
		return ret;
	/* an MR of another process (ibv_import_mr): its address is not ours */
	mr->handle = mr_handle;
	mr->context = pd->context;
	mr->pd = pd;
	mr->addr = NULL;
	vmr->mr_type = IBV_MR_TYPE_IMPORTED_MR;
	return 0;
}
PABI_EXPORT_34(ibv_cmd_query_mr);

SV_EXPORT int ibv_cmd_advise_mr(struct ibv_pd *pd,
				enum ibv_advise_mr_advice advice,
				uint32_t flags, struct ibv_sge *sg_list,
				uint32_t num_sge)
{
	/* no provider attributes, but sent as execute_ioctl sends: a
	 * failure's errno is left in errno too */
	const struct pabi_link link = pabi_link_of(NULL);

	return sv_cmd_advise_mr_linked(pd, advice, flags, sg_list, num_sge,
				       &link.link);
}
PABI_EXPORT_34(ibv_cmd_advise_mr);

SV_EXPORT int ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
				    size_t length, uint64_t iova, int fd,
				    int access, struct verbs_mr *vmr,
				    struct ibv_command_buffer *driver)
{
	const struct pabi_gen *gen;
	struct pabi_link link;

	if (!pd || !vmr || !pd->context ||
	    pd->context->abi_compat != __VERBS_ABI_IS_EXTENDED)
		return EINVAL;
	/* A provider of rdma-core 44-53 passes seven arguments: what is
	 * where the eighth would be belongs to its caller's frame. */
	gen = pabi_gen_of(pd->context);
	if (!gen || !gen->reg_dmabuf_mr_driver)
		driver = NULL;
	/* the core's command, with the provider's attributes behind it when
	 * it has any */
	link = pabi_link_of(driver);
	return sv_cmd_reg_dmabuf_mr_linked(
		pd, offset, length, iova, fd, access, (struct sv_mr *)vmr,
		link.link.nattrs ? &link.link : NULL);
}
PABI_EXPORT_34(ibv_cmd_reg_dmabuf_mr);
/* v59: REG_MR as the ioctl (an address or a dma-buf fd, a DMA handle);
 * an address alone falls back to the write command on a kernel without
 * the method. Fills the MR's handle, keys, type and access; the core sets
 * the rest (ibv_reg_mr_ex). */
SV_EXPORT int ibv_cmd_reg_mr_ex(struct ibv_pd *pd, struct verbs_mr *vmr,
				struct ibv_mr_init_attr *attr)
{
	struct ib_uverbs_attr *handle;
	uint64_t length, mask;
	uint32_t lkey = 0, rkey = 0;
	int fd_based, ret;

	if (!pd || !vmr || !attr)
		return EINVAL;
	mask = attr->comp_mask;
	fd_based = !!(mask & IBV_REG_MR_MASK_FD);
	length = attr->length;
	/* a dma-buf: an offset into it and an iova, no address; memory: an
	 * address, no offset */
	if (fd_based ? !(mask & IBV_REG_MR_MASK_FD_OFFSET) ||
			       (mask & IBV_REG_MR_MASK_ADDR) ||
			       !(mask & IBV_REG_MR_MASK_IOVA) :
		       (mask & IBV_REG_MR_MASK_FD_OFFSET) ||
			       !(mask & IBV_REG_MR_MASK_ADDR)) {
		sv_err("reg_mr_ex: comp_mask %#llx is neither a dma-buf (FD, FD_OFFSET, IOVA) nor memory (ADDR)",
		       (unsigned long long)mask);
		errno = EINVAL;
		return EINVAL;
	}
	if (!fd_based && (attr->access & IBV_ACCESS_ON_DEMAND) &&
	    attr->length == SIZE_MAX) {
		/* implicit ODP: the whole address space, no address */
		if (attr->addr) {
			errno = EINVAL;
			return EINVAL;
		}
		length = UINT64_MAX;
	}
	if ((mask & IBV_REG_MR_MASK_DMAH) && !attr->dmah) {
		errno = EINVAL;
		return EINVAL;
	}
	{
		PABI_IOCTL_DECLARE(cmd, UVERBS_OBJECT_MR, UVERBS_METHOD_REG_MR,
				   11, NULL);

		handle = sv_ioctl_out_obj(cmd, UVERBS_ATTR_REG_MR_HANDLE);
		sv_ioctl_out(cmd, UVERBS_ATTR_REG_MR_RESP_LKEY, &lkey,
			     sizeof(lkey));
		sv_ioctl_out(cmd, UVERBS_ATTR_REG_MR_RESP_RKEY, &rkey,
			     sizeof(rkey));
		sv_ioctl_in_obj(cmd, UVERBS_ATTR_REG_MR_PD_HANDLE, pd->handle);
		sv_ioctl_in_u64(cmd, UVERBS_ATTR_REG_MR_LENGTH, length);
		sv_ioctl_in_u32(cmd, UVERBS_ATTR_REG_MR_ACCESS_FLAGS,
				(uint32_t)attr->access);
		if (fd_based) {
			sv_ioctl_in_u64(cmd, UVERBS_ATTR_REG_MR_FD_OFFSET,
					attr->fd_offset);
			sv_ioctl_in_fd(cmd, UVERBS_ATTR_REG_MR_FD, attr->fd);
		} else {
			sv_ioctl_in_u64(cmd, UVERBS_ATTR_REG_MR_ADDR,
					(uintptr_t)attr->addr);
		}
		/* the kernel wants an iova: the address when none is given */
		sv_ioctl_in_u64(cmd, UVERBS_ATTR_REG_MR_IOVA,
				(mask & IBV_REG_MR_MASK_IOVA) ?
					attr->iova :
					(uintptr_t)attr->addr);
		if (mask & IBV_REG_MR_MASK_DMAH)
			sv_ioctl_in_obj(cmd, UVERBS_ATTR_REG_MR_DMA_HANDLE,
					container_of(attr->dmah,
						     struct verbs_dmah,
						     dmah)->handle);
		ret = sv_ioctl_exec(pd->context, cmd);
	}
	if (sv_ioctl_unsupported(ret) && !fd_based &&
	    !(mask & IBV_REG_MR_MASK_DMAH) && ret != EOPNOTSUPP) {
		/* a kernel without the method: memory can still be registered
		 * with the write command (a dma-buf or DMA handle cannot) */
		sv_dbg("reg_mr_ex: no REG_MR ioctl (%s), the write command instead",
		       strerror(ret));
		return sv_cmd_reg_mr(pd, attr->addr, (size_t)length,
				     (mask & IBV_REG_MR_MASK_IOVA) ?
					     attr->iova :
					     (uintptr_t)attr->addr,
				     attr->access, (struct sv_mr *)vmr, NULL);
	}
	if (ret)
		return ret;
	vmr->ibv_mr.handle = (uint32_t)handle->data;
	vmr->ibv_mr.context = pd->context;
	vmr->ibv_mr.lkey = lkey;
	vmr->ibv_mr.rkey = rkey;
	/* a dma-buf has no user address range: its type keeps it out of the
	 * fork-safety map */
	vmr->mr_type = fd_based ? IBV_MR_TYPE_DMABUF_MR : IBV_MR_TYPE_MR;
	vmr->access = attr->access;
	return 0;
}
PABI_EXPORT_59(ibv_cmd_reg_mr_ex);
