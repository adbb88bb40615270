/* rdma-core 44's write-ABI command helpers for providers
 * (IBVERBS_PRIVATE_34): the ibv_cmd_* that the soft providers and
 * most HCA providers need. STUBS: being implemented. */
#include "config.h"

#include <errno.h>

#include "core.h"
#include "private34.h"

static void unsupported(const char *what)
{
	sv_warn("%s: not implemented yet", what);
}

#define CMD_UNSUPPORTED()                                                   \
	do {                                                                \
		unsupported(__func__);                                      \
		return EOPNOTSUPP;                                          \
	} while (0)

SV_EXPORT int ibv_cmd_get_context(struct verbs_context *context, void *cmd,
				  size_t cmd_size, void *resp, size_t resp_size)
{
	(void)context; (void)cmd; (void)cmd_size; (void)resp; (void)resp_size;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_query_device_any(struct ibv_context *context,
				       const struct ibv_query_device_ex_input *input,
				       struct ibv_device_attr_ex *attr,
				       size_t attr_size, void *resp,
				       size_t *resp_size)
{
	(void)context; (void)input; (void)attr; (void)attr_size; (void)resp;
	(void)resp_size;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num,
				 struct ibv_port_attr *port_attr, void *cmd,
				 size_t cmd_size)
{
	(void)context; (void)port_num; (void)port_attr; (void)cmd;
	(void)cmd_size;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
			       void *cmd, size_t cmd_size, void *resp,
			       size_t resp_size)
{
	(void)context; (void)pd; (void)cmd; (void)cmd_size; (void)resp;
	(void)resp_size;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_dealloc_pd(struct ibv_pd *pd)
{
	(void)pd;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			     uint64_t hca_va, int access, struct verbs_mr *vmr,
			     void *cmd, size_t cmd_size, void *resp,
			     size_t resp_size)
{
	(void)pd; (void)addr; (void)length; (void)hca_va; (void)access;
	(void)vmr; (void)cmd; (void)cmd_size; (void)resp; (void)resp_size;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_dereg_mr(struct verbs_mr *vmr)
{
	(void)vmr;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
			       struct ibv_mw *mw, void *cmd, size_t cmd_size,
			       void *resp, size_t resp_size)
{
	(void)pd; (void)type; (void)mw; (void)cmd; (void)cmd_size; (void)resp;
	(void)resp_size;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_dealloc_mw(struct ibv_mw *mw)
{
	(void)mw;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_create_cq(struct ibv_context *context, int cqe,
				struct ibv_comp_channel *channel,
				int comp_vector, struct ibv_cq *cq, void *cmd,
				size_t cmd_size, void *resp, size_t resp_size)
{
	(void)context; (void)cqe; (void)channel; (void)comp_vector; (void)cq;
	(void)cmd; (void)cmd_size; (void)resp; (void)resp_size;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_create_cq_ex(struct ibv_context *context,
				   const struct ibv_cq_init_attr_ex *cq_attr,
				   struct verbs_cq *cq, void *cmd,
				   size_t cmd_size, void *resp,
				   size_t resp_size, uint32_t cmd_flags)
{
	(void)context; (void)cq_attr; (void)cq; (void)cmd; (void)cmd_size;
	(void)resp; (void)resp_size; (void)cmd_flags;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	(void)cq; (void)solicited_only;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe, void *cmd,
				size_t cmd_size, void *resp, size_t resp_size)
{
	(void)cq; (void)cqe; (void)cmd; (void)cmd_size; (void)resp;
	(void)resp_size;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_destroy_cq(struct ibv_cq *cq)
{
	(void)cq;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
				 struct ibv_srq_init_attr *attr, void *cmd,
				 size_t cmd_size, void *resp, size_t resp_size)
{
	(void)pd; (void)srq; (void)attr; (void)cmd; (void)cmd_size;
	(void)resp; (void)resp_size;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_create_srq_ex(struct ibv_context *context,
				    struct verbs_srq *srq,
				    struct ibv_srq_init_attr_ex *attr_ex,
				    void *cmd, size_t cmd_size, void *resp,
				    size_t resp_size)
{
	(void)context; (void)srq; (void)attr_ex; (void)cmd; (void)cmd_size;
	(void)resp; (void)resp_size;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_modify_srq(struct ibv_srq *srq,
				 struct ibv_srq_attr *srq_attr,
				 int srq_attr_mask, void *cmd, size_t cmd_size)
{
	(void)srq; (void)srq_attr; (void)srq_attr_mask; (void)cmd;
	(void)cmd_size;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_query_srq(struct ibv_srq *srq,
				struct ibv_srq_attr *srq_attr, void *cmd,
				size_t cmd_size)
{
	(void)srq; (void)srq_attr; (void)cmd; (void)cmd_size;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_destroy_srq(struct ibv_srq *srq)
{
	(void)srq;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_create_qp(struct ibv_pd *pd, struct ibv_qp *qp,
				struct ibv_qp_init_attr *attr, void *cmd,
				size_t cmd_size, void *resp, size_t resp_size)
{
	(void)pd; (void)qp; (void)attr; (void)cmd; (void)cmd_size; (void)resp;
	(void)resp_size;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_create_qp_ex2(struct ibv_context *context,
				    struct verbs_qp *qp,
				    struct ibv_qp_init_attr_ex *qp_attr,
				    void *cmd, size_t cmd_size, void *resp,
				    size_t resp_size)
{
	(void)context; (void)qp; (void)qp_attr; (void)cmd; (void)cmd_size;
	(void)resp; (void)resp_size;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr,
			       int attr_mask,
			       struct ibv_qp_init_attr *qp_init_attr,
			       void *cmd, size_t cmd_size)
{
	(void)qp; (void)qp_attr; (void)attr_mask; (void)qp_init_attr;
	(void)cmd; (void)cmd_size;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
				int attr_mask, void *cmd, size_t cmd_size)
{
	(void)qp; (void)attr; (void)attr_mask; (void)cmd; (void)cmd_size;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_destroy_qp(struct ibv_qp *qp)
{
	(void)qp;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
				struct ibv_ah_attr *attr, void *resp,
				size_t resp_size)
{
	(void)pd; (void)ah; (void)attr; (void)resp; (void)resp_size;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_destroy_ah(struct ibv_ah *ah)
{
	(void)ah;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
				   uint16_t lid)
{
	(void)qp; (void)gid; (void)lid;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
				   uint16_t lid)
{
	(void)qp; (void)gid; (void)lid;
	CMD_UNSUPPORTED();
}
