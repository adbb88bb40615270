/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rdma-core's write-ABI command helpers for providers
 * (IBVERBS_PRIVATE_34): the ibv_cmd_* every provider needs for its
 * context, PD, MR, MW, CQ, SRQ, QP and AH (librxe, libsiw, libmlx5 ...).
 *
 * Each one is softverbs' own sv_cmd_* with the provider's driver data
 * passed through: rdma-core's request structs are the uverbs command
 * header (plus the extended header for _ex commands), the core request,
 * then the driver's part up to cmd_size; responses are the core reply,
 * then the driver's. The core request is built here from the arguments;
 * the driver's part goes to the kernel as it is, and the kernel's reply
 * lands in the provider's buffer, core part included. 0 or a positive
 * errno. The ioctl-only helpers are lib/pabi/cmd_<object>.c's. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "pabi.h"

/* The driver's parts of a provider's buffers, for a command whose core
 * request is `core` (legacy or extended) and core reply resp_len bytes. */
#define LEGACY_PARTS(u, core, cmd, cmd_size, resp, resp_size, resp_len)       \
	sv_udata_of_provider(u, 0, sizeof(core), resp_len, cmd, cmd_size,     \
			     resp, resp_size)
#define EX_PARTS(u, core, cmd, cmd_size, resp, resp_size, resp_len)           \
	sv_udata_of_provider(u, 1, sizeof(core), resp_len, cmd, cmd_size,     \
			     resp, resp_size)

/* ---- context and queries --------------------------------------------------- */

/* GET_CONTEXT with the provider's driver data; fds for the kernel (v57)
 * only the ioctl can carry. */
static int get_context(struct verbs_context *context, void *cmd,
		       size_t cmd_size, struct ibv_fd_arr *fd_arr, void *resp,
		       size_t resp_size)
{
	struct sv_udata u;
	int ret;

	if (!context || (fd_arr && fd_arr->count && !fd_arr->arr))
		return EINVAL;
	ret = LEGACY_PARTS(&u, struct ib_uverbs_get_context, cmd, cmd_size,
			   resp, resp_size, sizeof(struct ib_uverbs_get_context_resp));
	if (ret)
		return ret;
	if (fd_arr && fd_arr->count)
		ret = pabi_get_context_ioctl(&context->context, &u, fd_arr);
	else
		ret = sv_cmd_get_context(&context->context, &u);
	if (ret)
		return ret;
	/* rdma-core keeps the kernel's optional-feature mask on the device */
	verbs_get_device(context->context.device)->core_support =
		context->priv->core_support;
	return 0;
}

/* v57 and later */
SV_EXPORT int ibv_cmd_get_context(struct verbs_context *context, void *cmd,
				  size_t cmd_size, struct ibv_fd_arr *fd_arr,
				  void *resp, size_t resp_size)
{
	return get_context(context, cmd, cmd_size, fd_arr, resp, resp_size);
}
PABI_EXPORT_57(ibv_cmd_get_context);

/* rdma-core 34-56: no fd_arr */
SV_EXPORT int pabi_cmd_get_context_34(struct verbs_context *context, void *cmd,
				      size_t cmd_size, void *resp,
				      size_t resp_size)
{
	return get_context(context, cmd, cmd_size, NULL, resp, resp_size);
}
PABI_OLD_FORM_34(pabi_cmd_get_context_34, ibv_cmd_get_context);

SV_EXPORT int ibv_cmd_query_device_any(struct ibv_context *context,
				       const struct ibv_query_device_ex_input *input,
				       struct ibv_device_attr_ex *attr,
				       size_t attr_size, void *resp,
				       size_t *resp_size)
{
	struct ib_uverbs_ex_query_device_resp reply;
	int ret;

	if (!context || !attr)
		return EINVAL;
	ret = sv_cmd_query_device_ex(context, input, attr, attr_size, &reply);
	if (ret)
		return ret;
	/* the provider reads the raw reply (fw_ver, its own fields) */
	if (resp && resp_size) {
		size_t n = *resp_size < reply.response_length ?
				   *resp_size : reply.response_length;

		memcpy(resp, &reply, n);
		*resp_size = n;
	}
	return 0;
}
PABI_EXPORT_34(ibv_cmd_query_device_any);

SV_EXPORT int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num,
				 struct ibv_port_attr *port_attr, void *cmd,
				 size_t cmd_size)
{
	(void)cmd;
	(void)cmd_size; /* no driver data in QUERY_PORT */
	if (!context || !port_attr)
		return EINVAL;
	/* the provider's struct: active_speed_ex only from rdma-core 49 */
	return sv_cmd_query_port(context, port_num, port_attr,
				 sv_priv(context)->layout->port_attr_size);
}
PABI_EXPORT_34(ibv_cmd_query_port);

/* ---- protection domains, memory regions, memory windows -------------------- */

SV_EXPORT int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
			       void *cmd, size_t cmd_size, void *resp,
			       size_t resp_size)
{
	struct sv_udata u;
	int ret;

	if (!context || !pd)
		return EINVAL;
	ret = LEGACY_PARTS(&u, struct ib_uverbs_alloc_pd, cmd, cmd_size,
			   resp, resp_size, sizeof(struct ib_uverbs_alloc_pd_resp));
	return ret ? ret : sv_cmd_alloc_pd(context, pd, &u);
}
PABI_EXPORT_34(ibv_cmd_alloc_pd);

SV_EXPORT int ibv_cmd_dealloc_pd(struct ibv_pd *pd)
{
	if (!pd)
		return EINVAL;
	return sv_destroy_result(sv_cmd_dealloc_pd(pd));
}
PABI_EXPORT_34(ibv_cmd_dealloc_pd);

SV_EXPORT int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			     uint64_t hca_va, int access, struct verbs_mr *vmr,
			     void *cmd, size_t cmd_size, void *resp,
			     size_t resp_size)
{
	struct sv_udata u;
	int ret;

	if (!pd || !vmr)
		return EINVAL;
	/* An implicit ODP MR (the whole address space) is asked for with
	 * length SIZE_MAX and no address. */
	if ((access & IBV_ACCESS_ON_DEMAND) && length == SIZE_MAX && addr)
		return EINVAL;
	ret = LEGACY_PARTS(&u, struct ib_uverbs_reg_mr, cmd, cmd_size, resp,
			   resp_size, sizeof(struct ib_uverbs_reg_mr_resp));
	if (ret)
		return ret;
	return sv_cmd_reg_mr(pd, addr, length, hca_va, access,
			     (struct sv_mr *)vmr, &u);
}
PABI_EXPORT_34(ibv_cmd_reg_mr);

SV_EXPORT int ibv_cmd_dereg_mr(struct verbs_mr *vmr)
{
	if (!vmr)
		return EINVAL;
	return sv_destroy_result(sv_cmd_dereg_mr(&vmr->ibv_mr));
}
PABI_EXPORT_34(ibv_cmd_dereg_mr);

SV_EXPORT int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
			       struct ibv_mw *mw, void *cmd, size_t cmd_size,
			       void *resp, size_t resp_size)
{
	struct sv_udata u;
	int ret;

	if (!pd || !mw)
		return EINVAL;
	ret = LEGACY_PARTS(&u, struct ib_uverbs_alloc_mw, cmd, cmd_size,
			   resp, resp_size, sizeof(struct ib_uverbs_alloc_mw_resp));
	return ret ? ret : sv_cmd_alloc_mw(pd, type, mw, &u);
}
PABI_EXPORT_34(ibv_cmd_alloc_mw);

SV_EXPORT int ibv_cmd_dealloc_mw(struct ibv_mw *mw)
{
	if (!mw)
		return EINVAL;
	return sv_destroy_result(sv_cmd_dealloc_mw(mw));
}
PABI_EXPORT_34(ibv_cmd_dealloc_mw);

/* ---- completion queues ------------------------------------------------------ */

SV_EXPORT int ibv_cmd_create_cq(struct ibv_context *context, int cqe,
				struct ibv_comp_channel *channel,
				int comp_vector, struct ibv_cq *cq, void *cmd,
				size_t cmd_size, void *resp, size_t resp_size)
{
	struct sv_udata u;
	int ret;

	if (!context || !cq)
		return EINVAL;
	ret = LEGACY_PARTS(&u, struct ib_uverbs_create_cq, cmd, cmd_size,
			   resp, resp_size, sizeof(struct ib_uverbs_create_cq_resp));
	return ret ? ret :
		     sv_cmd_create_cq(context, cqe, channel, comp_vector,
				      (struct sv_cq *)cq, &u);
}
PABI_EXPORT_34(ibv_cmd_create_cq);

int pabi_create_cq_ex_write(struct ibv_context *context,
			    const struct ibv_cq_init_attr_ex *cq_attr,
			    struct verbs_cq *cq, void *cmd, size_t cmd_size,
			    void *resp, size_t resp_size)
{
	struct ibv_cq_init_attr_ex attr;
	struct sv_udata u;
	int ret;

	if (!context || !cq_attr || !cq)
		return EINVAL;
	if (cq_attr->comp_mask &
	    ~(uint32_t)(IBV_CQ_INIT_ATTR_MASK_FLAGS | IBV_CQ_INIT_ATTR_MASK_PD))
		return EOPNOTSUPP;
	ret = EX_PARTS(&u, struct ib_uverbs_ex_create_cq, cmd, cmd_size,
		       resp, resp_size, sizeof(struct ib_uverbs_ex_create_cq_resp));
	if (ret)
		return ret;
	/* the PD (parent domain) is the provider's business, not the
	 * kernel's */
	attr = *cq_attr;
	attr.comp_mask &= IBV_CQ_INIT_ATTR_MASK_FLAGS;
	if (attr.wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)
		attr.wc_flags |= IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	return sv_cmd_create_cq_ex(context, &attr, (struct sv_cq *)cq, &u);
}

/* v59 and later: prov_attr gives the kernel the provider's own buffer
 * (cmd_flags WITH_MEM_VA / WITH_MEM_DMABUF), which only the ioctl can */
SV_EXPORT int ibv_cmd_create_cq_ex(struct ibv_context *context,
				   const struct ibv_cq_init_attr_ex *cq_attr,
				   struct verbs_create_cq_prov_attr *prov_attr,
				   struct verbs_cq *cq, void *cmd,
				   size_t cmd_size, void *resp,
				   size_t resp_size, uint32_t cmd_flags)
{
	if (cmd_flags & PABI_CQ_WITH_MEM)
		return pabi_create_cq_ioctl(context, cq_attr, prov_attr, cq,
					    cmd, cmd_size, resp, resp_size,
					    cmd_flags, NULL);
	/* timestamps are asked for by wc_flags either way */
	return pabi_create_cq_ex_write(context, cq_attr, cq, cmd, cmd_size,
				       resp, resp_size);
}
PABI_EXPORT_59(ibv_cmd_create_cq_ex);

/* rdma-core 34-58: no prov_attr (and no buffer flags) */
SV_EXPORT int pabi_cmd_create_cq_ex_34(struct ibv_context *context,
				       const struct ibv_cq_init_attr_ex *cq_attr,
				       struct verbs_cq *cq, void *cmd,
				       size_t cmd_size, void *resp,
				       size_t resp_size, uint32_t cmd_flags)
{
	return ibv_cmd_create_cq_ex(context, cq_attr, NULL, cq, cmd, cmd_size,
				    resp, resp_size,
				    cmd_flags & ~(uint32_t)PABI_CQ_WITH_MEM);
}
PABI_OLD_FORM_57(pabi_cmd_create_cq_ex_34, ibv_cmd_create_cq_ex);

SV_EXPORT int ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	if (!cq)
		return EINVAL;
	return sv_cmd_req_notify_cq(cq, solicited_only);
}
PABI_EXPORT_34(ibv_cmd_req_notify_cq);

SV_EXPORT int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe, void *cmd,
				size_t cmd_size, void *resp, size_t resp_size)
{
	struct sv_udata u;
	int ret;

	if (!cq)
		return EINVAL;
	ret = LEGACY_PARTS(&u, struct ib_uverbs_resize_cq, cmd, cmd_size,
			   resp, resp_size, sizeof(struct ib_uverbs_resize_cq_resp));
	return ret ? ret : sv_cmd_resize_cq(cq, cqe, &u);
}
PABI_EXPORT_34(ibv_cmd_resize_cq);

SV_EXPORT int ibv_cmd_destroy_cq(struct ibv_cq *cq)
{
	if (!cq)
		return EINVAL;
	return sv_destroy_result(sv_cmd_destroy_cq(cq));
}
PABI_EXPORT_34(ibv_cmd_destroy_cq);

/* ---- shared receive queues -------------------------------------------------- */

SV_EXPORT int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
				 struct ibv_srq_init_attr *attr, void *cmd,
				 size_t cmd_size, void *resp, size_t resp_size)
{
	struct sv_udata u;
	int ret;

	if (!pd || !srq || !attr)
		return EINVAL;
	ret = LEGACY_PARTS(&u, struct ib_uverbs_create_srq, cmd, cmd_size,
			   resp, resp_size, sizeof(struct ib_uverbs_create_srq_resp));
	return ret ? ret :
		     sv_cmd_create_srq(pd, srq, attr, &u);
}
PABI_EXPORT_34(ibv_cmd_create_srq);

SV_EXPORT int ibv_cmd_create_srq_ex(struct ibv_context *context,
				    struct verbs_srq *srq,
				    struct ibv_srq_init_attr_ex *attr_ex,
				    void *cmd, size_t cmd_size, void *resp,
				    size_t resp_size)
{
	struct sv_udata u;
	int ret;

	if (!context || !srq || !attr_ex)
		return EINVAL;
	ret = LEGACY_PARTS(&u, struct ib_uverbs_create_xsrq, cmd, cmd_size,
			   resp, resp_size, sizeof(struct ib_uverbs_create_srq_resp));
	if (ret)
		return ret;
	ret = sv_cmd_create_srq_ex(context, (struct sv_srq *)srq, attr_ex, &u);
	if (!ret && (attr_ex->comp_mask & IBV_SRQ_INIT_ATTR_CQ))
		srq->cq = attr_ex->cq;
	return ret;
}
PABI_EXPORT_34(ibv_cmd_create_srq_ex);

SV_EXPORT int ibv_cmd_modify_srq(struct ibv_srq *srq,
				 struct ibv_srq_attr *srq_attr,
				 int srq_attr_mask, void *cmd, size_t cmd_size)
{
	struct sv_udata u;
	int ret;

	if (!srq || !srq_attr)
		return EINVAL;
	ret = LEGACY_PARTS(&u, struct ib_uverbs_modify_srq, cmd, cmd_size,
			   NULL, 0, 0);
	return ret ? ret : sv_cmd_modify_srq(srq, srq_attr, srq_attr_mask, &u);
}
PABI_EXPORT_34(ibv_cmd_modify_srq);

SV_EXPORT int ibv_cmd_query_srq(struct ibv_srq *srq,
				struct ibv_srq_attr *srq_attr, void *cmd,
				size_t cmd_size)
{
	(void)cmd;
	(void)cmd_size; /* no driver data in QUERY_SRQ */
	if (!srq || !srq_attr)
		return EINVAL;
	return sv_cmd_query_srq(srq, srq_attr);
}
PABI_EXPORT_34(ibv_cmd_query_srq);

SV_EXPORT int ibv_cmd_destroy_srq(struct ibv_srq *srq)
{
	if (!srq)
		return EINVAL;
	return sv_destroy_result(sv_cmd_destroy_srq(srq));
}
PABI_EXPORT_34(ibv_cmd_destroy_srq);

/* ---- queue pairs ------------------------------------------------------------- */

SV_EXPORT int ibv_cmd_create_qp(struct ibv_pd *pd, struct ibv_qp *qp,
				struct ibv_qp_init_attr *attr, void *cmd,
				size_t cmd_size, void *resp, size_t resp_size)
{
	struct ibv_qp_init_attr_ex ex;
	struct sv_udata u;
	int ret;

	if (!pd || !qp || !attr)
		return EINVAL;
	ret = LEGACY_PARTS(&u, struct ib_uverbs_create_qp, cmd, cmd_size,
			   resp, resp_size, sizeof(struct ib_uverbs_create_qp_resp));
	if (ret)
		return ret;
	ex = sv_qp_init_attr_ex(pd, attr);
	/* a bare ibv_qp: nothing may be written behind it */
	ret = sv_cmd_create_qp_base(pd->context, qp, &ex, &u, 0);
	if (ret)
		return ret;
	attr->cap = ex.cap;
	return 0;
}
PABI_EXPORT_34(ibv_cmd_create_qp);

SV_EXPORT int ibv_cmd_create_qp_ex2(struct ibv_context *context,
				    struct verbs_qp *qp,
				    struct ibv_qp_init_attr_ex *qp_attr,
				    void *cmd, size_t cmd_size, void *resp,
				    size_t resp_size,
				    struct ibv_command_buffer *driver)
{
	struct sv_udata u;
	int ret;

	if (!context || !qp || !qp_attr)
		return EINVAL;
	/* v64: the provider's own attributes (its buffers as dma-buf
	 * descriptors, rdma-core's fill_attr_in_buf_umem) need the QP_CREATE
	 * ioctl, which this library does not send */
	if (__ioctl_final_num_attrs(0, driver)) {
		sv_err("create_qp_ex2 with %u provider attributes: the QP_CREATE ioctl is not implemented",
		       __ioctl_final_num_attrs(0, driver));
		return EOPNOTSUPP;
	}
	ret = EX_PARTS(&u, struct ib_uverbs_ex_create_qp, cmd, cmd_size,
		       resp, resp_size, sizeof(struct ib_uverbs_ex_create_qp_resp));
	if (ret)
		return ret;
	ret = sv_cmd_create_qp_base(context, (struct ibv_qp *)qp, qp_attr, &u, 1);
	if (ret)
		return ret;
	/* the provider sets VERBS_QP_EX itself when it gives the QP the ex
	 * API; comp_mask is where its generation has it */
	pabi_qp_set_core(sv_priv(context)->layout, (struct ibv_qp *)qp, 0, NULL);
	return 0;
}
PABI_EXPORT_64(ibv_cmd_create_qp_ex2);

/* rdma-core 34-63: no driver attributes */
SV_EXPORT int pabi_cmd_create_qp_ex2_34(struct ibv_context *context,
					struct verbs_qp *qp,
					struct ibv_qp_init_attr_ex *qp_attr,
					void *cmd, size_t cmd_size, void *resp,
					size_t resp_size)
{
	return ibv_cmd_create_qp_ex2(context, qp, qp_attr, cmd, cmd_size, resp,
				     resp_size, NULL);
}
PABI_OLD_FORM_59(pabi_cmd_create_qp_ex2_34, ibv_cmd_create_qp_ex2);

SV_EXPORT int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr,
			       int attr_mask,
			       struct ibv_qp_init_attr *qp_init_attr,
			       void *cmd, size_t cmd_size)
{
	(void)cmd;
	(void)cmd_size; /* no driver data in QUERY_QP */
	if (!qp || !qp_attr || !qp_init_attr)
		return EINVAL;
	return sv_cmd_query_qp(qp, qp_attr, attr_mask, qp_init_attr);
}
PABI_EXPORT_34(ibv_cmd_query_qp);

SV_EXPORT int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
				int attr_mask, void *cmd, size_t cmd_size)
{
	struct sv_udata u;
	int ret;

	if (!qp || !attr)
		return EINVAL;
	ret = LEGACY_PARTS(&u, struct ib_uverbs_modify_qp, cmd, cmd_size,
			   NULL, 0, 0);
	return ret ? ret : sv_cmd_modify_qp(qp, attr, attr_mask, &u);
}
PABI_EXPORT_34(ibv_cmd_modify_qp);

SV_EXPORT int ibv_cmd_destroy_qp(struct ibv_qp *qp)
{
	if (!qp)
		return EINVAL;
	return sv_destroy_result(sv_cmd_destroy_qp(qp));
}
PABI_EXPORT_34(ibv_cmd_destroy_qp);

/* ---- address handles and multicast -------------------------------------------- */

SV_EXPORT int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
				struct ibv_ah_attr *attr, void *resp,
				size_t resp_size)
{
	struct sv_udata u;
	int ret;

	if (!pd || !ah || !attr)
		return EINVAL;
	ret = sv_udata_of_provider(&u, 0, 0,
				   sizeof(struct ib_uverbs_create_ah_resp), NULL,
				   0, resp, resp_size);
	return ret ? ret : sv_cmd_create_ah(pd, ah, attr, &u);
}
PABI_EXPORT_34(ibv_cmd_create_ah);

SV_EXPORT int ibv_cmd_destroy_ah(struct ibv_ah *ah)
{
	if (!ah)
		return EINVAL;
	return sv_destroy_result(sv_cmd_destroy_ah(ah));
}
PABI_EXPORT_34(ibv_cmd_destroy_ah);

SV_EXPORT int ibv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
				   uint16_t lid)
{
	if (!qp || !gid)
		return EINVAL;
	return sv_cmd_attach_mcast(qp, gid, lid);
}
PABI_EXPORT_34(ibv_cmd_attach_mcast);

SV_EXPORT int ibv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
				   uint16_t lid)
{
	if (!qp || !gid)
		return EINVAL;
	return sv_cmd_detach_mcast(qp, gid, lid);
}
PABI_EXPORT_34(ibv_cmd_detach_mcast);
