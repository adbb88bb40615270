/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Memory region commands. The fork-safety bookkeeping is lib/mr.c's. */
#include "config.h"

#include <errno.h>

#include "core.h"

void sv_cmd_mr_init(struct sv_mr *smr, struct ibv_pd *pd, uint32_t handle,
		    uint32_t lkey, uint32_t rkey, void *addr, size_t length,
		    uint32_t mr_type, int access)
{
	smr->mr.context = pd->context;
	smr->mr.pd = pd;
	smr->mr.addr = addr;
	smr->mr.length = length;
	smr->mr.handle = handle;
	smr->mr.lkey = lkey;
	smr->mr.rkey = rkey;
	smr->mr_type = mr_type;
	smr->access = access;
}

int sv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		  uint64_t hca_va, int access, struct sv_mr *smr,
		  struct sv_udata *udata)
{
	struct ib_uverbs_reg_mr_resp resp = { 0 };
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_reg_mr req;
	} cmd = {
		.hdr = { .command = IB_USER_VERBS_CMD_REG_MR,
			 .in_words = sizeof(cmd) / 4,
			 .out_words = sizeof(resp) / 4 },
		.req = { .response = (uintptr_t)&resp,
			 .start = (uintptr_t)addr,
			 .length = length,
			 .hca_va = hca_va,
			 .pd_handle = pd->handle,
			 .access_flags = (uint32_t)access },
	};
	int ret;

	/* on every registration's path: laid out here unless driver data
	 * rides along */
	if (udata)
		ret = sv_cmd_write(pd->context, IB_USER_VERBS_CMD_REG_MR,
				   &cmd.req, sizeof(cmd.req), &resp,
				   sizeof(resp), udata);
	else
		ret = sv_cmd_send(pd->context, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	sv_cmd_mr_init(smr, pd, resp.mr_handle, resp.lkey, resp.rkey, addr,
		       length, SV_MR_TYPE_MR, access);
	return 0;
}

int sv_cmd_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd,
		    void *addr, size_t length, int access,
		    struct sv_udata *udata)
{
	struct ib_uverbs_rereg_mr req = {
		.mr_handle = mr->handle,
		.flags = (uint32_t)flags,
		.start = (uintptr_t)addr,
		.length = length,
		.hca_va = (uintptr_t)addr,
		.pd_handle = (flags & IBV_REREG_MR_CHANGE_PD) ? pd->handle : 0,
		.access_flags = (uint32_t)access,
	};
	struct ib_uverbs_rereg_mr_resp resp = { 0 };
	int ret;

	ret = sv_cmd_write(mr->context, IB_USER_VERBS_CMD_REREG_MR, &req,
			   sizeof(req), &resp, sizeof(resp), udata);
	if (ret)
		return ret;
	mr->lkey = resp.lkey;
	mr->rkey = resp.rkey;
	if (flags & IBV_REREG_MR_CHANGE_PD)
		mr->pd = pd;
	if (flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
		mr->addr = addr;
		mr->length = length;
	}
	return 0;
}

int sv_cmd_dereg_mr(struct ibv_mr *mr)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_dereg_mr req;
	} cmd = {
		.hdr = { .command = IB_USER_VERBS_CMD_DEREG_MR,
			 .in_words = sizeof(cmd) / 4 },
		.req = { .mr_handle = mr->handle },
	};

	return sv_cmd_send(mr->context, &cmd, sizeof(cmd));
}

int sv_cmd_advise_mr_linked(struct ibv_pd *pd,
			    enum ibv_advise_mr_advice advice, uint32_t flags,
			    const struct ibv_sge *sg_list, uint32_t num_sge,
			    const struct sv_ioctl_link *link)
{
	SV_IOCTL_DECLARE_LINKED(cmd, UVERBS_OBJECT_MR, UVERBS_METHOD_ADVISE_MR,
				4, link);

	sv_ioctl_in_obj(cmd, UVERBS_ATTR_ADVISE_MR_PD_HANDLE, pd->handle);
	sv_ioctl_in_u64(cmd, UVERBS_ATTR_ADVISE_MR_ADVICE, (uint64_t)advice);
	sv_ioctl_in_u32(cmd, UVERBS_ATTR_ADVISE_MR_FLAGS, flags);
	/* struct ibv_sge is the kernel's struct ib_uverbs_sge */
	sv_ioctl_in_ptr(cmd, UVERBS_ATTR_ADVISE_MR_SGE_LIST, sg_list,
			sv_ioctl_array_len(sizeof(*sg_list), num_sge));
	return sv_ioctl_exec(pd->context, cmd);
}

int sv_cmd_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		     uint32_t flags, const struct ibv_sge *sg_list,
		     uint32_t num_sge)
{
	return sv_cmd_advise_mr_linked(pd, advice, flags, sg_list, num_sge,
				       NULL);
}

/* REG_DMABUF_MR (ioctl only): the dma-buf's pages, not a user range, so
 * nothing here touches the fork-safety map (mr_type says so to
 * ibv_dereg_mr). link: an rdma-core provider's attributes to send along
 * (lib/pabi/), or NULL. */
int sv_cmd_reg_dmabuf_mr_linked(struct ibv_pd *pd, uint64_t offset,
				size_t length, uint64_t iova, int fd,
				int access, struct sv_mr *smr,
				const struct sv_ioctl_link *link)
{
	SV_IOCTL_DECLARE_LINKED(cmd, UVERBS_OBJECT_MR,
				UVERBS_METHOD_REG_DMABUF_MR, 9, link);
	struct ib_uverbs_attr *handle;
	uint32_t lkey = 0, rkey = 0;
	int ret;

	handle = sv_ioctl_out_obj(cmd, UVERBS_ATTR_REG_DMABUF_MR_HANDLE);
	sv_ioctl_out(cmd, UVERBS_ATTR_REG_DMABUF_MR_RESP_LKEY, &lkey,
		     sizeof(lkey));
	sv_ioctl_out(cmd, UVERBS_ATTR_REG_DMABUF_MR_RESP_RKEY, &rkey,
		     sizeof(rkey));
	sv_ioctl_in_obj(cmd, UVERBS_ATTR_REG_DMABUF_MR_PD_HANDLE, pd->handle);
	sv_ioctl_in_u64(cmd, UVERBS_ATTR_REG_DMABUF_MR_OFFSET, offset);
	sv_ioctl_in_u64(cmd, UVERBS_ATTR_REG_DMABUF_MR_LENGTH, length);
	sv_ioctl_in_u64(cmd, UVERBS_ATTR_REG_DMABUF_MR_IOVA, iova);
	sv_ioctl_in_u32(cmd, UVERBS_ATTR_REG_DMABUF_MR_FD, (uint32_t)fd);
	sv_ioctl_in_u32(cmd, UVERBS_ATTR_REG_DMABUF_MR_ACCESS_FLAGS,
			(uint32_t)access);
	ret = sv_ioctl_exec(pd->context, cmd);
	if (ret)
		return ret;
	/* the MR's "address" is the offset into the dma-buf */
	sv_cmd_mr_init(smr, pd, (uint32_t)handle->data, lkey, rkey,
		       (void *)(uintptr_t)offset, length, SV_MR_TYPE_DMABUF_MR,
		       access);
	return 0;
}

int sv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
			 uint64_t iova, int fd, int access, struct sv_mr *smr)
{
	return sv_cmd_reg_dmabuf_mr_linked(pd, offset, length, iova, fd,
					   access, smr, NULL);
}
