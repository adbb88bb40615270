/* rdma-core 44's ioctl command buffers (execute_ioctl) and the ibv_cmd_*
 * helpers of the newer objects (IBVERBS_PRIVATE_34). STUBS: being
 * implemented. */
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

SV_EXPORT unsigned int __ioctl_final_num_attrs(unsigned int num_attrs,
					       struct ibv_command_buffer *link)
{
	/* Attributes filled so far in each linked buffer count too. */
	for (; link; link = link->next)
		num_attrs += (unsigned int)(link->next_attr - link->hdr.attrs);
	return num_attrs;
}

SV_EXPORT int execute_ioctl(struct ibv_context *context,
			    struct ibv_command_buffer *cmd)
{
	(void)context; (void)cmd;
	unsupported(__func__);
	return EOPNOTSUPP;
}

SV_EXPORT int ibv_cmd_query_context(struct ibv_context *ctx,
				    struct ibv_command_buffer *driver)
{
	(void)ctx; (void)driver;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_open_xrcd(struct ibv_context *context,
				struct verbs_xrcd *xrcd, int vxrcd_size,
				struct ibv_xrcd_init_attr *attr, void *cmd,
				size_t cmd_size, void *resp, size_t resp_size)
{
	(void)context; (void)xrcd; (void)vxrcd_size; (void)attr; (void)cmd;
	(void)cmd_size; (void)resp; (void)resp_size;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_close_xrcd(struct verbs_xrcd *xrcd)
{
	(void)xrcd;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags,
			       void *addr, size_t length, uint64_t hca_va,
			       int access, struct ibv_pd *pd, void *cmd,
			       size_t cmd_sz, void *resp, size_t resp_sz)
{
	(void)vmr; (void)flags; (void)addr; (void)length; (void)hca_va;
	(void)access; (void)pd; (void)cmd; (void)cmd_sz; (void)resp;
	(void)resp_sz;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_query_mr(struct ibv_pd *pd, struct verbs_mr *vmr,
			       uint32_t mr_handle)
{
	(void)pd; (void)vmr; (void)mr_handle;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_advise_mr(struct ibv_pd *pd,
				enum ibv_advise_mr_advice advice,
				uint32_t flags, struct ibv_sge *sg_list,
				uint32_t num_sge)
{
	(void)pd; (void)advice; (void)flags; (void)sg_list; (void)num_sge;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
				    size_t length, uint64_t iova, int fd,
				    int access, struct verbs_mr *vmr)
{
	(void)pd; (void)offset; (void)length; (void)iova; (void)fd;
	(void)access; (void)vmr;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_poll_cq(struct ibv_cq *cq, int ne, struct ibv_wc *wc)
{
	(void)cq; (void)ne; (void)wc;
	unsupported(__func__);
	errno = EOPNOTSUPP;
	return -1;
}

SV_EXPORT int ibv_cmd_modify_cq(struct ibv_cq *cq,
				struct ibv_modify_cq_attr *attr, void *cmd,
				size_t cmd_size)
{
	(void)cq; (void)attr; (void)cmd; (void)cmd_size;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_create_qp_ex(struct ibv_context *context,
				   struct verbs_qp *qp,
				   struct ibv_qp_init_attr_ex *attr_ex,
				   void *cmd, size_t cmd_size, void *resp,
				   size_t resp_size)
{
	(void)context; (void)qp; (void)attr_ex; (void)cmd; (void)cmd_size;
	(void)resp; (void)resp_size;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_open_qp(struct ibv_context *context, struct verbs_qp *qp,
			      int vqp_sz, struct ibv_qp_open_attr *attr,
			      void *cmd, size_t cmd_size, void *resp,
			      size_t resp_size)
{
	(void)context; (void)qp; (void)vqp_sz; (void)attr; (void)cmd;
	(void)cmd_size; (void)resp; (void)resp_size;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_modify_qp_ex(struct ibv_qp *qp, struct ibv_qp_attr *attr,
				   int attr_mask, void *cmd, size_t cmd_size,
				   void *resp, size_t resp_size)
{
	(void)qp; (void)attr; (void)attr_mask; (void)cmd; (void)cmd_size;
	(void)resp; (void)resp_size;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
				struct ibv_send_wr **bad_wr)
{
	(void)ibqp;
	if (bad_wr)
		*bad_wr = wr;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
				struct ibv_recv_wr **bad_wr)
{
	(void)ibqp;
	if (bad_wr)
		*bad_wr = wr;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
				    struct ibv_recv_wr **bad_wr)
{
	(void)srq;
	if (bad_wr)
		*bad_wr = wr;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_create_flow(struct ibv_qp *qp, struct ibv_flow *flow_id,
				  struct ibv_flow_attr *flow_attr, void *ucmd,
				  size_t ucmd_size)
{
	(void)qp; (void)flow_id; (void)flow_attr; (void)ucmd; (void)ucmd_size;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_destroy_flow(struct ibv_flow *flow_id)
{
	(void)flow_id;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_create_flow_action_esp(struct ibv_context *ctx,
					     struct ibv_flow_action_esp_attr *attr,
					     struct verbs_flow_action *flow_action,
					     struct ibv_command_buffer *driver)
{
	(void)ctx; (void)attr; (void)flow_action; (void)driver;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_modify_flow_action_esp(struct verbs_flow_action *flow_action,
					     struct ibv_flow_action_esp_attr *attr,
					     struct ibv_command_buffer *driver)
{
	(void)flow_action; (void)attr; (void)driver;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_destroy_flow_action(struct verbs_flow_action *action)
{
	(void)action;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_create_wq(struct ibv_context *context,
				struct ibv_wq_init_attr *wq_init_attr,
				struct ibv_wq *wq, void *cmd, size_t cmd_size,
				void *resp, size_t resp_size)
{
	(void)context; (void)wq_init_attr; (void)wq; (void)cmd; (void)cmd_size;
	(void)resp; (void)resp_size;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *attr,
				void *cmd, size_t cmd_size)
{
	(void)wq; (void)attr; (void)cmd; (void)cmd_size;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_destroy_wq(struct ibv_wq *wq)
{
	(void)wq;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_create_rwq_ind_table(struct ibv_context *context,
					   struct ibv_rwq_ind_table_init_attr *init_attr,
					   struct ibv_rwq_ind_table *rwq_ind_table,
					   void *resp, size_t resp_size)
{
	(void)context; (void)init_attr; (void)rwq_ind_table; (void)resp;
	(void)resp_size;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_destroy_rwq_ind_table(struct ibv_rwq_ind_table *rwq_ind_table)
{
	(void)rwq_ind_table;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_create_counters(struct ibv_context *context,
				      struct ibv_counters_init_attr *init_attr,
				      struct verbs_counters *vcounters,
				      struct ibv_command_buffer *link)
{
	(void)context; (void)init_attr; (void)vcounters; (void)link;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_destroy_counters(struct verbs_counters *vcounters)
{
	(void)vcounters;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_read_counters(struct verbs_counters *vcounters,
				    uint64_t *counters_value,
				    uint32_t ncounters, uint32_t flags,
				    struct ibv_command_buffer *link)
{
	(void)vcounters; (void)counters_value; (void)ncounters; (void)flags;
	(void)link;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_alloc_dm(struct ibv_context *ctx,
			       const struct ibv_alloc_dm_attr *dm_attr,
			       struct verbs_dm *dm,
			       struct ibv_command_buffer *link)
{
	(void)ctx; (void)dm_attr; (void)dm; (void)link;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_free_dm(struct verbs_dm *dm)
{
	(void)dm;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_reg_dm_mr(struct ibv_pd *pd, struct verbs_dm *dm,
				uint64_t offset, size_t length,
				unsigned int access, struct verbs_mr *vmr,
				struct ibv_command_buffer *link)
{
	(void)pd; (void)dm; (void)offset; (void)length; (void)access;
	(void)vmr; (void)link;
	CMD_UNSUPPORTED();
}
