/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rdma-core's ioctl command buffers (struct ibv_command_buffer,
 * execute_ioctl) and the ibv_cmd_* of IBVERBS_PRIVATE_34 that exist only as
 * ioctl methods: QUERY_CONTEXT, the MR methods (query, advise, dma-buf),
 * device memory, counters and ESP flow actions.
 *
 * A provider builds attributes in a buffer on its stack with inline
 * functions compiled into it (rdma-core's cmd_ioctl.h) and may hand it to
 * us as a "link": our command's own buffer is declared with room for its
 * attributes plus every attribute already in the chain
 * (__ioctl_final_num_attrs), execute_ioctl appends the chain behind them,
 * sends one RDMA_VERBS_IOCTL and copies the chained attributes back, so
 * that the provider reads output handles and lengths through its own
 * attribute pointers. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pabi.h"

SV_EXPORT unsigned int __ioctl_final_num_attrs(unsigned int num_attrs,
					       struct ibv_command_buffer *link)
{
	/* Attributes filled so far in each linked buffer count too. */
	for (; link; link = link->next)
		num_attrs += (unsigned int)(link->next_attr - link->hdr.attrs);
	return num_attrs;
}
PABI_EXPORT_34(__ioctl_final_num_attrs);

/* ---- execute_ioctl ------------------------------------------------------- */

static int ioctl_fail(int err)
{
	errno = err;
	return err;
}

/* The UHW_IN attribute of the linearized command, or NULL; EINVAL when a
 * buffer's bookkeeping points at something else. */
static int find_uhw_in(struct ib_uverbs_attr *at, struct ib_uverbs_attr *end,
		       struct ib_uverbs_attr **uhw)
{
	if (at >= end || at->attr_id != UVERBS_ATTR_UHW_IN) {
		sv_err("uhw_in_idx does not name a UHW_IN attribute");
		return EINVAL;
	}
	if (*uhw) {
		sv_err("two UHW_IN attributes in one command");
		return EINVAL;
	}
	*uhw = at;
	return 0;
}

SV_EXPORT int execute_ioctl(struct ibv_context *context,
			    struct ibv_command_buffer *cmd)
{
	struct ib_uverbs_attr *end = cmd->next_attr, *uhw = NULL;
	struct ibv_command_buffer *link;
	struct verbs_ex_private *priv;
	uint64_t uhw_ptr = 0;
	size_t num, n;
	int ret;

	/* a fill_* was given what cannot be marshalled (len > 64 KiB) */
	if (cmd->buffer_error) {
		sv_dbg("object %u method %u: attribute too long",
		       cmd->hdr.object_id, cmd->hdr.method_id);
		return ioctl_fail(EINVAL);
	}

	/* Linearize: the chained attributes go behind this buffer's own, in
	 * the room the caller reserved for them. */
	for (link = cmd->next; link; link = link->next) {
		n = (size_t)(link->next_attr - link->hdr.attrs);
		if (link->buffer_error) {
			sv_dbg("object %u method %u: linked attribute too long",
			       cmd->hdr.object_id, cmd->hdr.method_id);
			return ioctl_fail(EINVAL);
		}
		if (n > (size_t)(cmd->last_attr - end)) {
			sv_err("object %u method %u: no room for %zu linked attributes",
			       cmd->hdr.object_id, cmd->hdr.method_id, n);
			return ioctl_fail(EINVAL);
		}
		memcpy(end, link->hdr.attrs, n * sizeof(*end));
		if (link->uhw_in_idx != SV_UHW_NO_INDEX) {
			ret = find_uhw_in(end + link->uhw_in_idx, end + n, &uhw);
			if (ret)
				return ioctl_fail(ret);
		}
		end += n;
	}
	if (cmd->uhw_in_idx != SV_UHW_NO_INDEX) {
		ret = find_uhw_in(cmd->hdr.attrs + cmd->uhw_in_idx,
				  cmd->next_attr, &uhw);
		if (ret)
			return ioctl_fail(ret);
	}

	num = (size_t)(end - cmd->hdr.attrs);
	if (sizeof(cmd->hdr) + num * sizeof(*end) > UINT16_MAX)
		return ioctl_fail(E2BIG);
	cmd->hdr.num_attrs = (uint16_t)num;
	cmd->hdr.length = (uint16_t)(sizeof(cmd->hdr) + num * sizeof(*end));
	cmd->hdr.reserved1 = 0;
	cmd->hdr.reserved2 = 0;
	/* the provider's driver id picks its namespace of attributes */
	priv = sv_priv(context);
	cmd->hdr.driver_id = priv ? priv->driver_id : RDMA_DRIVER_UNKNOWN;

	/* The driver's UHW_IN stays a pointer until now (a write fallback
	 * needs the pointer); the kernel wants up to 8 bytes inline. */
	if (uhw && uhw->len <= sizeof(uhw->data)) {
		uint64_t inline_data = 0;

		uhw_ptr = uhw->data;
		if (uhw->len)
			memcpy(&inline_data, (const void *)(uintptr_t)uhw_ptr,
			       uhw->len);
		uhw->data = inline_data;
	} else {
		uhw = NULL;
	}

	ret = 0;
	if (sv_cmd_ioctl_fn(context->cmd_fd, RDMA_VERBS_IOCTL, &cmd->hdr))
		ret = errno ? errno : EIO;
	/* the attribute describes the provider's buffer again */
	if (uhw)
		uhw->data = uhw_ptr;
	if (ret) {
		sv_dbg("object %u method %u: %s", cmd->hdr.object_id,
		       cmd->hdr.method_id, strerror(ret));
		return ioctl_fail(ret);
	}

	/* the kernel's answers (handles, fds, VALID_OUTPUT flags) back to
	 * where each provider put its attributes */
	end = cmd->next_attr;
	for (link = cmd->next; link; link = link->next) {
		n = (size_t)(link->next_attr - link->hdr.attrs);
		memcpy(link->hdr.attrs, end, n * sizeof(*end));
		end += n;
	}
	return 0;
}
PABI_EXPORT_34(execute_ioctl);

/* ---- our own command buffers ------------------------------------------------ */

/* Array elements that hold a buffer with n attributes (the attributes
 * follow hdr in memory, as in rdma-core's DECLARE_COMMAND_BUFFER). */
#define CMDB_ELEMS(n)                                                       \
	((sizeof(struct ibv_command_buffer) +                               \
	  (n) * sizeof(struct ib_uverbs_attr) +                             \
	  sizeof(struct ibv_command_buffer) - 1) /                          \
	 sizeof(struct ibv_command_buffer))

/* A buffer on the stack for nattrs of ours plus every attribute of link
 * (a declaration: the initialization is an initializer). */
#define DECLARE_CMDB(name, object, method, nattrs, link)                    \
	const unsigned int name##_total =                                   \
		__ioctl_final_num_attrs((nattrs), (link));                  \
	struct ibv_command_buffer name[CMDB_ELEMS(name##_total)];           \
	const int name##_init __attribute__((unused)) =                     \
		cmdb_init(name, (object), (method), name##_total, (link))

static int cmdb_init(struct ibv_command_buffer *cmd, uint16_t object_id,
		      uint16_t method_id, unsigned int nattrs,
		      struct ibv_command_buffer *link)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->next = link;
	cmd->next_attr = cmd->hdr.attrs;
	cmd->last_attr = cmd->hdr.attrs + nattrs;
	cmd->uhw_in_idx = SV_UHW_NO_INDEX;
	cmd->uhw_out_idx = SV_UHW_NO_INDEX;
	cmd->hdr.object_id = object_id;
	cmd->hdr.method_id = method_id;
	return 0;
}

static struct ib_uverbs_attr *attr_next(struct ibv_command_buffer *cmd,
					uint16_t attr_id)
{
	struct ib_uverbs_attr *a;

	/* our buffers are sized for what we put in: a programming error */
	if (cmd->next_attr >= cmd->last_attr)
		abort();
	a = cmd->next_attr++;
	memset(a, 0, sizeof(*a));
	a->attr_id = attr_id;
	/* a kernel that does not know the attribute must fail the command
	 * rather than ignore it */
	a->flags = UVERBS_ATTR_F_MANDATORY;
	return a;
}

/* An object handle (IDR) going in, or the slot for one coming out. */
static struct ib_uverbs_attr *fill_in_obj(struct ibv_command_buffer *cmd,
					  uint16_t attr_id, uint32_t handle)
{
	struct ib_uverbs_attr *a = attr_next(cmd, attr_id);

	a->data = handle;
	return a;
}

static struct ib_uverbs_attr *fill_out_obj(struct ibv_command_buffer *cmd,
					   uint16_t attr_id)
{
	return fill_in_obj(cmd, attr_id, 0);
}

static uint16_t attr_len(struct ibv_command_buffer *cmd, size_t len)
{
	if (len > UINT16_MAX) {
		cmd->buffer_error = 1;
		return 0;
	}
	return (uint16_t)len;
}

/* Input bytes: up to 8 inline, more by address. */
static struct ib_uverbs_attr *fill_in(struct ibv_command_buffer *cmd,
				      uint16_t attr_id, const void *data,
				      size_t len)
{
	struct ib_uverbs_attr *a = attr_next(cmd, attr_id);

	a->len = attr_len(cmd, len);
	if (len <= sizeof(a->data)) {
		if (len)
			memcpy(&a->data, data, len);
	} else {
		a->data = (uintptr_t)data;
	}
	return a;
}

static void fill_in_u64(struct ibv_command_buffer *cmd, uint16_t attr_id,
			uint64_t val)
{
	fill_in(cmd, attr_id, &val, sizeof(val));
}

static void fill_in_u32(struct ibv_command_buffer *cmd, uint16_t attr_id,
			uint32_t val)
{
	fill_in(cmd, attr_id, &val, sizeof(val));
}

static void fill_in_enum(struct ibv_command_buffer *cmd, uint16_t attr_id,
			 uint8_t elem_id, const void *data, size_t len)
{
	fill_in(cmd, attr_id, data, len)->attr_data.enum_data.elem_id = elem_id;
}

/* Room the kernel writes up to len bytes into. */
static void fill_out(struct ibv_command_buffer *cmd, uint16_t attr_id,
		     void *buf, size_t len)
{
	struct ib_uverbs_attr *a = attr_next(cmd, attr_id);

	a->len = attr_len(cmd, len);
	a->data = (uintptr_t)buf;
}

/* n elements of size bytes, or more than an attribute can say */
static size_t array_len(size_t size, size_t n)
{
	return n && size > SIZE_MAX / n ? SIZE_MAX : size * n;
}

/* ---- device ---------------------------------------------------------------- */

SV_EXPORT int ibv_cmd_query_context(struct ibv_context *ctx,
				    struct ibv_command_buffer *driver)
{
	DECLARE_CMDB(cmd, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT, 2,
		     driver);
	uint64_t core_support = 0;
	int ret;

	/* the kernel writes the vector count (a u32) straight into the
	 * context, as rdma-core lets it */
	fill_out(cmd, UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS,
		 &ctx->num_comp_vectors, sizeof(uint32_t));
	fill_out(cmd, UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT, &core_support,
		 sizeof(core_support));
	ret = execute_ioctl(ctx, cmd);
	if (ret)
		return ret;
	/* the device's copy is rdma-core's; the core reads its own */
	if (ctx->device)
		verbs_get_device(ctx->device)->core_support = core_support;
	sv_priv(ctx)->core_support = core_support;
	return 0;
}
PABI_EXPORT_34(ibv_cmd_query_context);

/* ---- memory regions ---------------------------------------------------------- */

SV_EXPORT int ibv_cmd_query_mr(struct ibv_pd *pd, struct verbs_mr *vmr,
			       uint32_t mr_handle)
{
	DECLARE_CMDB(cmd, UVERBS_OBJECT_MR, UVERBS_METHOD_QUERY_MR, 4, NULL);
	struct ibv_mr *mr = &vmr->ibv_mr;
	int ret;

	fill_in_obj(cmd, UVERBS_ATTR_QUERY_MR_HANDLE, mr_handle);
	fill_out(cmd, UVERBS_ATTR_QUERY_MR_RESP_LKEY, &mr->lkey,
		 sizeof(mr->lkey));
	fill_out(cmd, UVERBS_ATTR_QUERY_MR_RESP_RKEY, &mr->rkey,
		 sizeof(mr->rkey));
	fill_out(cmd, UVERBS_ATTR_QUERY_MR_RESP_LENGTH, &mr->length,
		 sizeof(mr->length));
	ret = execute_ioctl(pd->context, cmd);
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
	DECLARE_CMDB(cmd, UVERBS_OBJECT_MR, UVERBS_METHOD_ADVISE_MR, 4, NULL);

	fill_in_obj(cmd, UVERBS_ATTR_ADVISE_MR_PD_HANDLE, pd->handle);
	fill_in_u64(cmd, UVERBS_ATTR_ADVISE_MR_ADVICE, (uint64_t)advice);
	fill_in_u32(cmd, UVERBS_ATTR_ADVISE_MR_FLAGS, flags);
	/* struct ibv_sge is the kernel's struct ib_uverbs_sge */
	fill_in(cmd, UVERBS_ATTR_ADVISE_MR_SGE_LIST, sg_list,
		array_len(sizeof(*sg_list), num_sge));
	return execute_ioctl(pd->context, cmd);
}
PABI_EXPORT_34(ibv_cmd_advise_mr);

SV_EXPORT int ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
				    size_t length, uint64_t iova, int fd,
				    int access, struct verbs_mr *vmr,
				    struct ibv_command_buffer *driver)
{
	const struct pabi_gen *gen;
	struct ib_uverbs_attr *handle;
	uint32_t lkey = 0, rkey = 0;
	int ret;

	if (!pd || !vmr || !pd->context ||
	    pd->context->abi_compat != __VERBS_ABI_IS_EXTENDED)
		return EINVAL;
	/* A provider of rdma-core 44-53 passes seven arguments: what is
	 * where the eighth would be belongs to its caller's frame. */
	gen = pabi_gen_of(pd->context);
	if (!gen || !gen->reg_dmabuf_mr_driver)
		driver = NULL;
	if (!__ioctl_final_num_attrs(0, driver))
		return sv_cmd_reg_dmabuf_mr(pd, offset, length, iova, fd, access,
					    (struct sv_mr *)vmr);
	{
		DECLARE_CMDB(cmd, UVERBS_OBJECT_MR, UVERBS_METHOD_REG_DMABUF_MR,
			     9, driver);

		handle = fill_out_obj(cmd, UVERBS_ATTR_REG_DMABUF_MR_HANDLE);
		fill_out(cmd, UVERBS_ATTR_REG_DMABUF_MR_RESP_LKEY, &lkey,
			 sizeof(lkey));
		fill_out(cmd, UVERBS_ATTR_REG_DMABUF_MR_RESP_RKEY, &rkey,
			 sizeof(rkey));
		fill_in_obj(cmd, UVERBS_ATTR_REG_DMABUF_MR_PD_HANDLE, pd->handle);
		fill_in_u64(cmd, UVERBS_ATTR_REG_DMABUF_MR_OFFSET, offset);
		fill_in_u64(cmd, UVERBS_ATTR_REG_DMABUF_MR_LENGTH, length);
		fill_in_u64(cmd, UVERBS_ATTR_REG_DMABUF_MR_IOVA, iova);
		fill_in_u32(cmd, UVERBS_ATTR_REG_DMABUF_MR_FD, (uint32_t)fd);
		fill_in_u32(cmd, UVERBS_ATTR_REG_DMABUF_MR_ACCESS_FLAGS,
			    (uint32_t)access);
		ret = execute_ioctl(pd->context, cmd);
	}
	if (ret)
		return ret;
	vmr->ibv_mr.handle = (uint32_t)handle->data;
	vmr->ibv_mr.context = pd->context;
	vmr->ibv_mr.lkey = lkey;
	vmr->ibv_mr.rkey = rkey;
	vmr->ibv_mr.pd = pd;
	/* no user address range: the MR's "address" is the dma-buf offset,
	 * and the type keeps it out of the fork-safety map */
	vmr->ibv_mr.addr = (void *)(uintptr_t)offset;
	vmr->ibv_mr.length = length;
	vmr->mr_type = IBV_MR_TYPE_DMABUF_MR;
	vmr->access = access;
	return 0;
}
PABI_EXPORT_34(ibv_cmd_reg_dmabuf_mr);

/* ---- completion queues --------------------------------------------------------- */

/* An fd going in (a completion channel, the async event fd). */
static struct ib_uverbs_attr *fill_in_fd(struct ibv_command_buffer *cmd,
					 uint16_t attr_id, int fd)
{
	struct ib_uverbs_attr *a = attr_next(cmd, attr_id);

	a->data = (uint64_t)(int64_t)fd;
	return a;
}

int pabi_create_cq_ioctl(struct ibv_context *context,
			 const struct ibv_cq_init_attr_ex *cq_attr,
			 const struct verbs_create_cq_prov_attr *prov_attr,
			 struct verbs_cq *cq, void *cmd, size_t cmd_size,
			 void *resp, size_t resp_size, uint32_t cmd_flags,
			 struct ibv_command_buffer *driver)
{
	struct ib_uverbs_attr *handle, *event_fd;
	uint32_t flags = 0, resp_cqe = 0;
	struct sv_udata u;
	int ret;

	if (!context || !cq_attr || !cq)
		return EINVAL;
	if ((cmd_flags & PABI_CQ_WITH_MEM) && !prov_attr) {
		sv_err("create_cq_ex: a buffer of the provider's asked for without prov_attr");
		return EINVAL;
	}
	if (cq_attr->comp_mask &
	    ~(uint32_t)(IBV_CQ_INIT_ATTR_MASK_FLAGS | IBV_CQ_INIT_ATTR_MASK_PD))
		return EOPNOTSUPP;
	/* the provider's data rides in UHW_IN/UHW_OUT */
	ret = sv_udata_of_provider(&u, 1, sizeof(struct ib_uverbs_ex_create_cq),
				   sizeof(struct ib_uverbs_ex_create_cq_resp),
				   cmd, cmd_size, resp, resp_size);
	if (ret)
		return ret;
	if (cq_attr->wc_flags & (IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
				 IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK))
		flags |= IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION;
	if ((cq_attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	    (cq_attr->flags & IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN))
		flags |= IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN;
	{
		/* the provider's attributes and buffer need the ioctl: no
		 * write command can carry them */
		DECLARE_CMDB(c, UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE, 13,
			     driver);

		handle = fill_out_obj(c, UVERBS_ATTR_CREATE_CQ_HANDLE);
		fill_out(c, UVERBS_ATTR_CREATE_CQ_RESP_CQE, &resp_cqe,
			 sizeof(resp_cqe));
		fill_in_u32(c, UVERBS_ATTR_CREATE_CQ_CQE, cq_attr->cqe);
		fill_in_u64(c, UVERBS_ATTR_CREATE_CQ_USER_HANDLE,
			    (uintptr_t)&cq->cq);
		if (cq_attr->channel)
			fill_in_fd(c, UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL,
				   cq_attr->channel->fd);
		fill_in_u32(c, UVERBS_ATTR_CREATE_CQ_COMP_VECTOR,
			    cq_attr->comp_vector);
		/* async events on the context's fd; a kernel that does not
		 * know the attribute uses that fd anyway */
		event_fd = fill_in_fd(c, UVERBS_ATTR_CREATE_CQ_EVENT_FD,
				      context->async_fd);
		event_fd->flags = 0;
		if (flags)
			fill_in_u32(c, UVERBS_ATTR_CREATE_CQ_FLAGS, flags);
		/* v59: the CQ's memory is the provider's */
		if (cmd_flags & CREATE_CQ_CMD_FLAGS_WITH_MEM_VA) {
			fill_in_u64(c, UVERBS_ATTR_CREATE_CQ_BUFFER_VA,
				    (uintptr_t)prov_attr->buffer.ptr);
			fill_in_u64(c, UVERBS_ATTR_CREATE_CQ_BUFFER_LENGTH,
				    prov_attr->buffer.length);
		} else if (cmd_flags & CREATE_CQ_CMD_FLAGS_WITH_MEM_DMABUF) {
			fill_in_fd(c, UVERBS_ATTR_CREATE_CQ_BUFFER_FD,
				   prov_attr->buffer.dmabuf.fd);
			fill_in_u64(c, UVERBS_ATTR_CREATE_CQ_BUFFER_OFFSET,
				    prov_attr->buffer.dmabuf.offset);
			fill_in_u64(c, UVERBS_ATTR_CREATE_CQ_BUFFER_LENGTH,
				    prov_attr->buffer.length);
		}
		if (u.req_len)
			fill_in(c, UVERBS_ATTR_UHW_IN, u.req, u.req_len);
		if (u.resp_len)
			fill_out(c, UVERBS_ATTR_UHW_OUT, u.resp, u.resp_len);
		ret = execute_ioctl(context, c);
	}
	if (ret)
		return ret;
	sv_cmd_cq_init((struct sv_cq *)cq, context, cq_attr->channel,
		       (uint32_t)handle->data, resp_cqe);
	return 0;
}

/* v59 and later */
SV_EXPORT int ibv_cmd_create_cq_ex2(struct ibv_context *context,
				    const struct ibv_cq_init_attr_ex *cq_attr,
				    struct verbs_create_cq_prov_attr *prov_attr,
				    struct verbs_cq *cq, void *cmd,
				    size_t cmd_size, void *resp,
				    size_t resp_size, uint32_t cmd_flags,
				    struct ibv_command_buffer *driver)
{
	/* no attributes or buffer of its own: the same command as
	 * create_cq_ex */
	if (!__ioctl_final_num_attrs(0, driver) &&
	    !(cmd_flags & PABI_CQ_WITH_MEM))
		return pabi_create_cq_ex_write(context, cq_attr, cq, cmd,
					       cmd_size, resp, resp_size);
	return pabi_create_cq_ioctl(context, cq_attr, prov_attr, cq, cmd,
				    cmd_size, resp, resp_size, cmd_flags,
				    driver);
}
PABI_EXPORT_59(ibv_cmd_create_cq_ex2);

/* rdma-core 53-58: no prov_attr */
SV_EXPORT int pabi_cmd_create_cq_ex2_34(struct ibv_context *context,
					const struct ibv_cq_init_attr_ex *cq_attr,
					struct verbs_cq *cq, void *cmd,
					size_t cmd_size, void *resp,
					size_t resp_size, uint32_t cmd_flags,
					struct ibv_command_buffer *driver)
{
	return ibv_cmd_create_cq_ex2(context, cq_attr, NULL, cq, cmd, cmd_size,
				     resp, resp_size,
				     cmd_flags & ~(uint32_t)PABI_CQ_WITH_MEM,
				     driver);
}
PABI_OLD_FORM_57(pabi_cmd_create_cq_ex2_34, ibv_cmd_create_cq_ex2);

/* ---- device memory --------------------------------------------------------------- */

SV_EXPORT int ibv_cmd_alloc_dm(struct ibv_context *ctx,
			       const struct ibv_alloc_dm_attr *dm_attr,
			       struct verbs_dm *dm,
			       struct ibv_command_buffer *link)
{
	DECLARE_CMDB(cmd, UVERBS_OBJECT_DM, UVERBS_METHOD_DM_ALLOC, 3, link);
	struct ib_uverbs_attr *handle;
	int ret;

	handle = fill_out_obj(cmd, UVERBS_ATTR_ALLOC_DM_HANDLE);
	fill_in_u64(cmd, UVERBS_ATTR_ALLOC_DM_LENGTH, dm_attr->length);
	fill_in_u32(cmd, UVERBS_ATTR_ALLOC_DM_ALIGNMENT, dm_attr->log_align_req);
	ret = execute_ioctl(ctx, cmd);
	if (ret)
		return ret;
	dm->handle = (uint32_t)handle->data;
	dm->dm.handle = dm->handle;
	dm->dm.comp_mask = IBV_DM_MASK_HANDLE;
	dm->dm.context = ctx;
	return 0;
}
PABI_EXPORT_34(ibv_cmd_alloc_dm);

SV_EXPORT int ibv_cmd_free_dm(struct verbs_dm *dm)
{
	DECLARE_CMDB(cmd, UVERBS_OBJECT_DM, UVERBS_METHOD_DM_FREE, 1, NULL);

	fill_in_obj(cmd, UVERBS_ATTR_FREE_DM_HANDLE, dm->handle);
	return sv_destroy_result(execute_ioctl(dm->dm.context, cmd));
}
PABI_EXPORT_34(ibv_cmd_free_dm);

SV_EXPORT int ibv_cmd_reg_dm_mr(struct ibv_pd *pd, struct verbs_dm *dm,
				uint64_t offset, size_t length,
				unsigned int access, struct verbs_mr *vmr,
				struct ibv_command_buffer *link)
{
	DECLARE_CMDB(cmd, UVERBS_OBJECT_MR, UVERBS_METHOD_DM_MR_REG, 8, link);
	struct ib_uverbs_attr *handle;
	uint32_t lkey = 0, rkey = 0;
	int ret;

	/* device memory has no address of ours to offset from: a DM MR is
	 * always zero-based */
	if (!(access & IBV_ACCESS_ZERO_BASED)) {
		sv_dbg("DM MR without IBV_ACCESS_ZERO_BASED");
		errno = EINVAL;
		return EINVAL;
	}
	handle = fill_out_obj(cmd, UVERBS_ATTR_REG_DM_MR_HANDLE);
	fill_out(cmd, UVERBS_ATTR_REG_DM_MR_RESP_LKEY, &lkey, sizeof(lkey));
	fill_out(cmd, UVERBS_ATTR_REG_DM_MR_RESP_RKEY, &rkey, sizeof(rkey));
	fill_in_obj(cmd, UVERBS_ATTR_REG_DM_MR_PD_HANDLE, pd->handle);
	fill_in_obj(cmd, UVERBS_ATTR_REG_DM_MR_DM_HANDLE, dm->handle);
	fill_in_u64(cmd, UVERBS_ATTR_REG_DM_MR_OFFSET, offset);
	fill_in_u64(cmd, UVERBS_ATTR_REG_DM_MR_LENGTH, length);
	fill_in_u32(cmd, UVERBS_ATTR_REG_DM_MR_ACCESS_FLAGS, access);
	ret = execute_ioctl(pd->context, cmd);
	if (ret)
		return ret;
	vmr->ibv_mr.handle = (uint32_t)handle->data;
	vmr->ibv_mr.context = pd->context;
	vmr->ibv_mr.lkey = lkey;
	vmr->ibv_mr.rkey = rkey;
	vmr->ibv_mr.length = length;
	vmr->ibv_mr.pd = pd;
	vmr->ibv_mr.addr = NULL;
	vmr->mr_type = IBV_MR_TYPE_MR;
	vmr->access = (int)access;
	return 0;
}
PABI_EXPORT_34(ibv_cmd_reg_dm_mr);

/* ---- counters ----------------------------------------------------------------------- */

SV_EXPORT int ibv_cmd_create_counters(struct ibv_context *context,
				      struct ibv_counters_init_attr *init_attr,
				      struct verbs_counters *vcounters,
				      struct ibv_command_buffer *link)
{
	DECLARE_CMDB(cmd, UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_CREATE,
		     1, link);
	struct ib_uverbs_attr *handle;
	int ret;

	if (init_attr->comp_mask) {
		sv_dbg("counters: unknown comp_mask 0x%x", init_attr->comp_mask);
		return EOPNOTSUPP;
	}
	handle = fill_out_obj(cmd, UVERBS_ATTR_CREATE_COUNTERS_HANDLE);
	ret = execute_ioctl(context, cmd);
	if (ret)
		return ret;
	vcounters->counters.context = context;
	vcounters->handle = (uint32_t)handle->data;
	return 0;
}
PABI_EXPORT_34(ibv_cmd_create_counters);

SV_EXPORT int ibv_cmd_destroy_counters(struct verbs_counters *vcounters)
{
	DECLARE_CMDB(cmd, UVERBS_OBJECT_COUNTERS,
		     UVERBS_METHOD_COUNTERS_DESTROY, 1, NULL);

	fill_in_obj(cmd, UVERBS_ATTR_DESTROY_COUNTERS_HANDLE, vcounters->handle);
	return sv_destroy_result(execute_ioctl(vcounters->counters.context,
					       cmd));
}
PABI_EXPORT_34(ibv_cmd_destroy_counters);

SV_EXPORT int ibv_cmd_read_counters(struct verbs_counters *vcounters,
				    uint64_t *counters_value,
				    uint32_t ncounters, uint32_t flags,
				    struct ibv_command_buffer *link)
{
	DECLARE_CMDB(cmd, UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_READ,
		     3, link);

	fill_in_obj(cmd, UVERBS_ATTR_READ_COUNTERS_HANDLE, vcounters->handle);
	fill_out(cmd, UVERBS_ATTR_READ_COUNTERS_BUFF, counters_value,
		 array_len(sizeof(*counters_value), ncounters));
	fill_in_u32(cmd, UVERBS_ATTR_READ_COUNTERS_FLAGS, flags);
	return execute_ioctl(vcounters->counters.context, cmd);
}
PABI_EXPORT_34(ibv_cmd_read_counters);

/* ---- ESP flow actions ------------------------------------------------------------------ */

/* The ESP attributes both create and modify send: only what is set. */
static void fill_esp(struct ibv_command_buffer *cmd,
		     const struct ibv_flow_action_esp_attr *esp)
{
	if (esp->comp_mask & IBV_FLOW_ACTION_ESP_MASK_ESN)
		fill_in(cmd, UVERBS_ATTR_FLOW_ACTION_ESP_ESN, &esp->esn,
			sizeof(esp->esn));
	if (esp->keymat_ptr)
		fill_in_enum(cmd, UVERBS_ATTR_FLOW_ACTION_ESP_KEYMAT,
			     (uint8_t)esp->keymat_proto, esp->keymat_ptr,
			     esp->keymat_len);
	if (esp->replay_ptr)
		fill_in_enum(cmd, UVERBS_ATTR_FLOW_ACTION_ESP_REPLAY,
			     (uint8_t)esp->replay_proto, esp->replay_ptr,
			     esp->replay_len);
	/* The encap list's pointers are 64-bit unions in the uAPI: on a
	 * 64-bit build they need no widening. */
	if (esp->esp_encap)
		fill_in(cmd, UVERBS_ATTR_FLOW_ACTION_ESP_ENCAP, esp->esp_encap,
			sizeof(*esp->esp_encap));
	if (esp->esp_attr)
		fill_in(cmd, UVERBS_ATTR_FLOW_ACTION_ESP_ATTRS, esp->esp_attr,
			sizeof(*esp->esp_attr));
}
_Static_assert(sizeof(void *) == sizeof(uint64_t),
	       "ESP encap pointers are passed as they are");

/* a handle plus the five ESP attributes */
#define ESP_ATTRS 6

SV_EXPORT int ibv_cmd_create_flow_action_esp(struct ibv_context *ctx,
					     struct ibv_flow_action_esp_attr *attr,
					     struct verbs_flow_action *flow_action,
					     struct ibv_command_buffer *driver)
{
	DECLARE_CMDB(cmd, UVERBS_OBJECT_FLOW_ACTION,
		     UVERBS_METHOD_FLOW_ACTION_ESP_CREATE, ESP_ATTRS, driver);
	struct ib_uverbs_attr *handle;
	int ret;

	handle = fill_out_obj(cmd, UVERBS_ATTR_CREATE_FLOW_ACTION_ESP_HANDLE);
	fill_esp(cmd, attr);
	ret = execute_ioctl(ctx, cmd);
	if (ret)
		return ret;
	flow_action->action.context = ctx;
	flow_action->type = IBV_FLOW_ACTION_ESP;
	flow_action->handle = (uint32_t)handle->data;
	return 0;
}
PABI_EXPORT_34(ibv_cmd_create_flow_action_esp);

SV_EXPORT int ibv_cmd_modify_flow_action_esp(struct verbs_flow_action *flow_action,
					     struct ibv_flow_action_esp_attr *attr,
					     struct ibv_command_buffer *driver)
{
	DECLARE_CMDB(cmd, UVERBS_OBJECT_FLOW_ACTION,
		     UVERBS_METHOD_FLOW_ACTION_ESP_MODIFY, ESP_ATTRS, driver);

	fill_in_obj(cmd, UVERBS_ATTR_MODIFY_FLOW_ACTION_ESP_HANDLE,
		    flow_action->handle);
	fill_esp(cmd, attr);
	return execute_ioctl(flow_action->action.context, cmd);
}
PABI_EXPORT_34(ibv_cmd_modify_flow_action_esp);

SV_EXPORT int ibv_cmd_destroy_flow_action(struct verbs_flow_action *action)
{
	DECLARE_CMDB(cmd, UVERBS_OBJECT_FLOW_ACTION,
		     UVERBS_METHOD_FLOW_ACTION_DESTROY, 1, NULL);

	fill_in_obj(cmd, UVERBS_ATTR_DESTROY_FLOW_ACTION_HANDLE, action->handle);
	return sv_destroy_result(execute_ioctl(action->action.context, cmd));
}
PABI_EXPORT_34(ibv_cmd_destroy_flow_action);

/* ---- rdma-core 57-65: contexts, ports, MRs, DMA handles, dma-bufs -------------- */

/* A new fd the kernel makes (its number comes back in data). */
static struct ib_uverbs_attr *fill_out_fd(struct ibv_command_buffer *cmd,
					  uint16_t attr_id)
{
	return attr_next(cmd, attr_id);
}

int pabi_get_context_ioctl(struct ibv_context *ctx, struct sv_udata *u,
			   const struct ibv_fd_arr *fd_arr)
{
	struct ib_uverbs_get_context_resp *core = u->core_resp;
	struct ib_uverbs_attr *async;
	uint64_t core_support = 0;
	uint32_t vectors = 0;
	int ret;

	{
		DECLARE_CMDB(cmd, UVERBS_OBJECT_DEVICE,
			     UVERBS_METHOD_GET_CONTEXT, 5, NULL);

		fill_out(cmd, UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS,
			 &vectors, sizeof(vectors));
		fill_out(cmd, UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT,
			 &core_support, sizeof(core_support));
		fill_in(cmd, UVERBS_ATTR_GET_CONTEXT_FD_ARR, fd_arr->arr,
			array_len(sizeof(*fd_arr->arr), fd_arr->count));
		if (u->req_len)
			fill_in(cmd, UVERBS_ATTR_UHW_IN, u->req, u->req_len);
		if (u->resp_len)
			fill_out(cmd, UVERBS_ATTR_UHW_OUT, u->resp, u->resp_len);
		ret = execute_ioctl(ctx, cmd);
		if (ret) {
			sv_err("GET_CONTEXT with %u fds: %s", fd_arr->count,
			       strerror(ret));
			return ret;
		}
	}
	/* the ioctl makes no async event fd: a method of its own does */
	{
		DECLARE_CMDB(cmd, UVERBS_OBJECT_ASYNC_EVENT,
			     UVERBS_METHOD_ASYNC_EVENT_ALLOC, 1, NULL);

		async = fill_out_fd(cmd, UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE);
		ret = execute_ioctl(ctx, cmd);
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
	DECLARE_CMDB(cmd, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT_SPEED,
		     2, NULL);

	if (!context || !speed)
		return EINVAL;
	fill_in_u64(cmd, UVERBS_ATTR_QUERY_PORT_SPEED_PORT_NUM, port_num);
	fill_out(cmd, UVERBS_ATTR_QUERY_PORT_SPEED_RESP, speed, sizeof(*speed));
	return execute_ioctl(context, cmd);
}
PABI_EXPORT_59(ibv_cmd_query_port_speed);

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
		DECLARE_CMDB(cmd, UVERBS_OBJECT_MR, UVERBS_METHOD_REG_MR, 11,
			     NULL);

		handle = fill_out_obj(cmd, UVERBS_ATTR_REG_MR_HANDLE);
		fill_out(cmd, UVERBS_ATTR_REG_MR_RESP_LKEY, &lkey, sizeof(lkey));
		fill_out(cmd, UVERBS_ATTR_REG_MR_RESP_RKEY, &rkey, sizeof(rkey));
		fill_in_obj(cmd, UVERBS_ATTR_REG_MR_PD_HANDLE, pd->handle);
		fill_in_u64(cmd, UVERBS_ATTR_REG_MR_LENGTH, length);
		fill_in_u32(cmd, UVERBS_ATTR_REG_MR_ACCESS_FLAGS,
			    (uint32_t)attr->access);
		if (fd_based) {
			fill_in_u64(cmd, UVERBS_ATTR_REG_MR_FD_OFFSET,
				    attr->fd_offset);
			fill_in_fd(cmd, UVERBS_ATTR_REG_MR_FD, attr->fd);
		} else {
			fill_in_u64(cmd, UVERBS_ATTR_REG_MR_ADDR,
				    (uintptr_t)attr->addr);
		}
		/* the kernel wants an iova: the address when none is given */
		fill_in_u64(cmd, UVERBS_ATTR_REG_MR_IOVA,
			    (mask & IBV_REG_MR_MASK_IOVA) ? attr->iova :
							    (uintptr_t)attr->addr);
		if (mask & IBV_REG_MR_MASK_DMAH)
			fill_in_obj(cmd, UVERBS_ATTR_REG_MR_DMA_HANDLE,
				    container_of(attr->dmah, struct verbs_dmah,
						 dmah)->handle);
		ret = execute_ioctl(pd->context, cmd);
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

SV_EXPORT int ibv_cmd_alloc_dmah(struct ibv_context *ctx,
				 struct verbs_dmah *dmah,
				 struct ibv_dmah_init_attr *attr)
{
	DECLARE_CMDB(cmd, UVERBS_OBJECT_DMAH, UVERBS_METHOD_DMAH_ALLOC, 4, NULL);
	struct ib_uverbs_attr *handle;
	int ret;

	if (!ctx || !dmah || !attr)
		return EINVAL;
	handle = fill_out_obj(cmd, UVERBS_ATTR_ALLOC_DMAH_HANDLE);
	if (attr->comp_mask & IBV_DMAH_INIT_ATTR_MASK_CPU_ID)
		fill_in_u32(cmd, UVERBS_ATTR_ALLOC_DMAH_CPU_ID, attr->cpu_id);
	if (attr->comp_mask & IBV_DMAH_INIT_ATTR_MASK_TPH_MEM_TYPE)
		fill_in_enum(cmd, UVERBS_ATTR_ALLOC_DMAH_TPH_MEM_TYPE,
			     attr->tph_mem_type, NULL, 0);
	if (attr->comp_mask & IBV_DMAH_INIT_ATTR_MASK_PH)
		fill_in(cmd, UVERBS_ATTR_ALLOC_DMAH_PH, &attr->ph,
			sizeof(attr->ph));
	ret = execute_ioctl(ctx, cmd);
	if (ret)
		return ret;
	dmah->handle = (uint32_t)handle->data;
	dmah->dmah.context = ctx;
	return 0;
}
PABI_EXPORT_59(ibv_cmd_alloc_dmah);

SV_EXPORT int ibv_cmd_free_dmah(struct verbs_dmah *dmah)
{
	DECLARE_CMDB(cmd, UVERBS_OBJECT_DMAH, UVERBS_METHOD_DMAH_FREE, 1, NULL);

	if (!dmah)
		return EINVAL;
	fill_in_obj(cmd, UVERBS_ATTR_FREE_DMA_HANDLE, dmah->handle);
	return sv_destroy_result(execute_ioctl(dmah->dmah.context, cmd));
}
PABI_EXPORT_59(ibv_cmd_free_dmah);

/* v62: the fd, or -1 with errno */
SV_EXPORT int ibv_cmd_export_dmabuf_fd(struct ibv_context *ctx, off_t pg_off)
{
	DECLARE_CMDB(cmd, UVERBS_OBJECT_DMABUF, UVERBS_METHOD_DMABUF_ALLOC, 2,
		     NULL);
	struct ib_uverbs_attr *fd;

	if (!ctx) {
		errno = EINVAL;
		return -1;
	}
	fd = fill_out_fd(cmd, UVERBS_ATTR_ALLOC_DMABUF_HANDLE);
	fill_in_u64(cmd, UVERBS_ATTR_ALLOC_DMABUF_PGOFF, (uint64_t)pg_off);
	if (execute_ioctl(ctx, cmd))
		return -1; /* errno set */
	return (int)fd->data;
}
PABI_EXPORT_59(ibv_cmd_export_dmabuf_fd);

/* ---- rdma-core 65: completion counters -------------------------------------- */

SV_EXPORT int ibv_cmd_query_comp_cntr_caps(struct ibv_context *context,
					   struct ibv_comp_cntr_caps *caps,
					   size_t caps_size)
{
	DECLARE_CMDB(cmd, UVERBS_OBJECT_DEVICE,
		     UVERBS_METHOD_QUERY_COMP_CNTR_CAPS, 3, NULL);
	uint32_t ops = 0;
	int ret;

	if (!context || !caps || caps_size < sizeof(*caps))
		return EINVAL;
	fill_out(cmd, UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_COUNTERS,
		 &caps->max_counters, sizeof(caps->max_counters));
	fill_out(cmd, UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_VALUE,
		 &caps->max_value, sizeof(caps->max_value));
	fill_out(cmd, UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_SUPPORTED_QP_ATTACH_OPS,
		 &ops, sizeof(ops));
	ret = execute_ioctl(context, cmd);
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

SV_EXPORT int ibv_cmd_create_comp_cntr(struct ibv_context *context,
				       struct ibv_comp_cntr *comp_cntr,
				       struct ibv_command_buffer *link)
{
	DECLARE_CMDB(cmd, UVERBS_OBJECT_COMP_CNTR,
		     UVERBS_METHOD_COMP_CNTR_CREATE, 1, link);
	struct ib_uverbs_attr *handle;
	int ret;

	if (!context || !comp_cntr)
		return EINVAL;
	comp_cntr->context = context;
	handle = fill_out_obj(cmd, UVERBS_ATTR_CREATE_COMP_CNTR_HANDLE);
	ret = execute_ioctl(context, cmd);
	if (ret)
		return ret;
	comp_cntr->handle = (uint32_t)handle->data;
	return 0;
}
PABI_EXPORT_65(ibv_cmd_create_comp_cntr);

SV_EXPORT int ibv_cmd_destroy_comp_cntr(struct ibv_comp_cntr *comp_cntr)
{
	DECLARE_CMDB(cmd, UVERBS_OBJECT_COMP_CNTR,
		     UVERBS_METHOD_COMP_CNTR_DESTROY, 1, NULL);

	if (!comp_cntr)
		return EINVAL;
	fill_in_obj(cmd, UVERBS_ATTR_DESTROY_COMP_CNTR_HANDLE, comp_cntr->handle);
	return sv_destroy_result(execute_ioctl(comp_cntr->context, cmd));
}
PABI_EXPORT_65(ibv_cmd_destroy_comp_cntr);

static int modify_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint8_t entry,
			    uint8_t op, uint64_t value)
{
	DECLARE_CMDB(cmd, UVERBS_OBJECT_COMP_CNTR,
		     UVERBS_METHOD_COMP_CNTR_MODIFY, 4, NULL);

	if (!comp_cntr)
		return EINVAL;
	fill_in_obj(cmd, UVERBS_ATTR_MODIFY_COMP_CNTR_HANDLE, comp_cntr->handle);
	fill_in_u64(cmd, UVERBS_ATTR_MODIFY_COMP_CNTR_ENTRY, entry);
	fill_in_u64(cmd, UVERBS_ATTR_MODIFY_COMP_CNTR_OP, op);
	fill_in_u64(cmd, UVERBS_ATTR_MODIFY_COMP_CNTR_VALUE, value);
	return execute_ioctl(comp_cntr->context, cmd);
}

static int read_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint8_t entry,
			  uint64_t *value)
{
	DECLARE_CMDB(cmd, UVERBS_OBJECT_COMP_CNTR, UVERBS_METHOD_COMP_CNTR_READ,
		     3, NULL);

	if (!comp_cntr || !value)
		return EINVAL;
	fill_in_obj(cmd, UVERBS_ATTR_READ_COMP_CNTR_HANDLE, comp_cntr->handle);
	fill_in_u64(cmd, UVERBS_ATTR_READ_COMP_CNTR_ENTRY, entry);
	fill_out(cmd, UVERBS_ATTR_READ_COMP_CNTR_RESP_VALUE, value,
		 sizeof(*value));
	return execute_ioctl(comp_cntr->context, cmd);
}

SV_EXPORT int ibv_cmd_set_comp_cntr(struct ibv_comp_cntr *comp_cntr,
				    uint64_t value)
{
	return modify_comp_cntr(comp_cntr, IB_UVERBS_COMP_CNTR_ENTRY_COMP,
				IB_UVERBS_COMP_CNTR_MODIFY_OP_SET, value);
}
PABI_EXPORT_65(ibv_cmd_set_comp_cntr);

SV_EXPORT int ibv_cmd_set_err_comp_cntr(struct ibv_comp_cntr *comp_cntr,
					uint64_t value)
{
	return modify_comp_cntr(comp_cntr, IB_UVERBS_COMP_CNTR_ENTRY_ERR,
				IB_UVERBS_COMP_CNTR_MODIFY_OP_SET, value);
}
PABI_EXPORT_65(ibv_cmd_set_err_comp_cntr);

SV_EXPORT int ibv_cmd_inc_comp_cntr(struct ibv_comp_cntr *comp_cntr,
				    uint64_t amount)
{
	return modify_comp_cntr(comp_cntr, IB_UVERBS_COMP_CNTR_ENTRY_COMP,
				IB_UVERBS_COMP_CNTR_MODIFY_OP_INC, amount);
}
PABI_EXPORT_65(ibv_cmd_inc_comp_cntr);

SV_EXPORT int ibv_cmd_inc_err_comp_cntr(struct ibv_comp_cntr *comp_cntr,
					uint64_t amount)
{
	return modify_comp_cntr(comp_cntr, IB_UVERBS_COMP_CNTR_ENTRY_ERR,
				IB_UVERBS_COMP_CNTR_MODIFY_OP_INC, amount);
}
PABI_EXPORT_65(ibv_cmd_inc_err_comp_cntr);

SV_EXPORT int ibv_cmd_read_comp_cntr(struct ibv_comp_cntr *comp_cntr,
				     uint64_t *value)
{
	return read_comp_cntr(comp_cntr, IB_UVERBS_COMP_CNTR_ENTRY_COMP, value);
}
PABI_EXPORT_65(ibv_cmd_read_comp_cntr);

SV_EXPORT int ibv_cmd_read_err_comp_cntr(struct ibv_comp_cntr *comp_cntr,
					 uint64_t *value)
{
	return read_comp_cntr(comp_cntr, IB_UVERBS_COMP_CNTR_ENTRY_ERR, value);
}
PABI_EXPORT_65(ibv_cmd_read_err_comp_cntr);

SV_EXPORT int ibv_cmd_qp_attach_comp_cntr(struct ibv_qp *qp,
					  struct ibv_comp_cntr *comp_cntr,
					  struct ibv_qp_attach_comp_cntr_attr *attr)
{
	DECLARE_CMDB(cmd, UVERBS_OBJECT_QP, UVERBS_METHOD_QP_ATTACH_COMP_CNTR,
		     3, NULL);

	if (!qp || !comp_cntr || !attr)
		return EINVAL;
	fill_in_obj(cmd, UVERBS_ATTR_QP_ATTACH_COMP_CNTR_HANDLE, qp->handle);
	fill_in_obj(cmd, UVERBS_ATTR_QP_ATTACH_COMP_CNTR_CNTR_HANDLE,
		    comp_cntr->handle);
	fill_in_u32(cmd, UVERBS_ATTR_QP_ATTACH_COMP_CNTR_OP_MASK, attr->op_mask);
	return execute_ioctl(qp->context, cmd);
}
PABI_EXPORT_65(ibv_cmd_qp_attach_comp_cntr);
