/* IBVERBS_PRIVATE_34: rdma-core 44's provider ABI (see private34.h).
 *
 * Why export it at all when softverbs has its own providers: Debian's
 * binaries are linked with immediate binding, and some of them (perftest,
 * pyverbs) pull rdma-core providers such as libmlx5 into the process.
 * Those libraries import this node and register themselves from their
 * constructors, so the node must exist and registering must be harmless.
 * A registered provider is recorded and logged, never used; the entry
 * points it would call afterwards report EOPNOTSUPP. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <rdma/rdma_user_ioctl_cmds.h>

#include "core.h"
#include "private34.h"

/* ---- provider registration ---------------------------------------------- */

/* Enough for every provider rdma-core 44 ships (about 20); more are counted
 * but their names dropped. Names are copied because the provider library
 * may be unloaded (dlclose) while we live on. */
#define MAX_RECORDED_DRIVERS 32
#define DRIVER_NAME_LEN 32

static pthread_mutex_t drivers_lock = PTHREAD_MUTEX_INITIALIZER;
static char driver_names[MAX_RECORDED_DRIVERS][DRIVER_NAME_LEN]; /* drivers_lock */
static size_t driver_count; /* drivers_lock; may exceed MAX_RECORDED_DRIVERS */

SV_EXPORT void verbs_register_driver_34(const struct verbs_device_ops *ops)
{
	const char *name = ops && ops->name ? ops->name : "(unnamed)";
	size_t slot;

	pthread_mutex_lock(&drivers_lock);
	slot = driver_count++;
	if (slot < MAX_RECORDED_DRIVERS)
		snprintf(driver_names[slot], DRIVER_NAME_LEN, "%s", name);
	pthread_mutex_unlock(&drivers_lock);

	sv_info("rdma-core provider '%s' registered itself; softverbs records "
		"it but drives devices with its own providers", name);
}

size_t sv_private34_driver_count(void)
{
	size_t count;

	pthread_mutex_lock(&drivers_lock);
	count = driver_count;
	pthread_mutex_unlock(&drivers_lock);
	return count;
}

const char *sv_private34_driver_name(size_t i, char *buf, size_t len)
{
	const char *ret = NULL;

	pthread_mutex_lock(&drivers_lock);
	if (i < driver_count && i < MAX_RECORDED_DRIVERS && len > 0) {
		snprintf(buf, len, "%s", driver_names[i]);
		ret = buf;
	}
	pthread_mutex_unlock(&drivers_lock);
	return ret;
}

/* ---- logging and flags -------------------------------------------------- */

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
	sv_log_write((enum sv_log_level)level, "provider", "%s", msg);
	errno = saved_errno;
}

/* rdma-core lets providers destroy objects of a disassociated device when
 * this is set; a one-byte object in the ABI (objdump -T shows it in .bss). */
SV_EXPORT bool verbs_allow_disassociate_destroy;

/* ---- context setup: never reached, since no rdma-core provider opens a
 * device here; fail loudly enough to be found in a log. ---------------- */

static void unsupported(const char *what)
{
	sv_warn("%s: the rdma-core provider ABI is not supported by softverbs",
		what);
}

SV_EXPORT void *_verbs_init_and_alloc_context(struct ibv_device *device,
					      int cmd_fd, size_t alloc_size,
					      struct verbs_context *context_offset,
					      uint32_t driver_id)
{
	(void)device; (void)cmd_fd; (void)alloc_size; (void)context_offset;
	(void)driver_id;
	unsupported(__func__);
	errno = EOPNOTSUPP;
	return NULL;
}

SV_EXPORT struct ibv_context *verbs_open_device(struct ibv_device *device,
						void *private_data)
{
	(void)device; (void)private_data;
	unsupported(__func__);
	errno = EOPNOTSUPP;
	return NULL;
}

/* The void ones have no way to report; they do nothing, since the
 * context or CQ they were given cannot have come from a working setup. */
SV_EXPORT void verbs_uninit_context(struct verbs_context *context)
{
	(void)context;
	unsupported(__func__);
}

SV_EXPORT void verbs_set_ops(struct verbs_context *vctx,
			     const struct verbs_context_ops *ops)
{
	(void)vctx; (void)ops;
	unsupported(__func__);
}

SV_EXPORT void verbs_init_cq(struct ibv_cq *cq, struct ibv_context *context,
			     struct ibv_comp_channel *channel, void *cq_context)
{
	(void)cq; (void)context; (void)channel; (void)cq_context;
	unsupported(__func__);
}

SV_EXPORT int ibv_read_ibdev_sysfs_file(char *buf, size_t size,
					struct verbs_sysfs_dev *sysfs_dev,
					const char *fnfmt, ...)
{
	(void)buf; (void)size; (void)sysfs_dev; (void)fnfmt;
	unsupported(__func__);
	errno = EOPNOTSUPP;
	return -1;
}

/* ---- ioctl command buffers ------------------------------------------------ */

/* rdma-core 44's command buffer header (infiniband/cmd_ioctl.h). Providers
 * size on-stack buffers with __ioctl_final_num_attrs, so it must give the
 * real answer even though execute_ioctl never runs one. */
struct ibv_command_buffer {
	struct ibv_command_buffer *next;
	struct ib_uverbs_attr *next_attr;
	struct ib_uverbs_attr *last_attr;
	uint8_t uhw_in_idx;
	uint8_t uhw_out_idx;
	uint8_t uhw_in_headroom_dwords;
	uint8_t uhw_out_headroom_dwords;
	uint8_t flags; /* buffer_error, fallback_require_ex, fallback_ioctl_only */
	struct ib_uverbs_ioctl_hdr hdr;
};

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

/* ---- the command helpers: 0 or a positive errno, like rdma-core's ------ */

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

SV_EXPORT int ibv_cmd_query_context(struct ibv_context *ctx,
				    struct ibv_command_buffer *driver)
{
	(void)ctx; (void)driver;
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

SV_EXPORT int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			     uint64_t hca_va, int access, struct verbs_mr *vmr,
			     void *cmd, size_t cmd_size, void *resp,
			     size_t resp_size)
{
	(void)pd; (void)addr; (void)length; (void)hca_va; (void)access;
	(void)vmr; (void)cmd; (void)cmd_size; (void)resp; (void)resp_size;
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

SV_EXPORT int ibv_cmd_dereg_mr(struct verbs_mr *vmr)
{
	(void)vmr;
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

/* Polling reports errors as a negative count, as ibv_poll_cq does. */
SV_EXPORT int ibv_cmd_poll_cq(struct ibv_cq *cq, int ne, struct ibv_wc *wc)
{
	(void)cq; (void)ne; (void)wc;
	unsupported(__func__);
	errno = EOPNOTSUPP;
	return -1;
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

SV_EXPORT int ibv_cmd_modify_cq(struct ibv_cq *cq,
				struct ibv_modify_cq_attr *attr, void *cmd,
				size_t cmd_size)
{
	(void)cq; (void)attr; (void)cmd; (void)cmd_size;
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

SV_EXPORT int ibv_cmd_open_qp(struct ibv_context *context, struct verbs_qp *qp,
			      int vqp_sz, struct ibv_qp_open_attr *attr,
			      void *cmd, size_t cmd_size, void *resp,
			      size_t resp_size)
{
	(void)context; (void)qp; (void)vqp_sz; (void)attr; (void)cmd;
	(void)cmd_size; (void)resp; (void)resp_size;
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

SV_EXPORT int ibv_cmd_modify_qp_ex(struct ibv_qp *qp, struct ibv_qp_attr *attr,
				   int attr_mask, void *cmd, size_t cmd_size,
				   void *resp, size_t resp_size)
{
	(void)qp; (void)attr; (void)attr_mask; (void)cmd; (void)cmd_size;
	(void)resp; (void)resp_size;
	CMD_UNSUPPORTED();
}

SV_EXPORT int ibv_cmd_destroy_qp(struct ibv_qp *qp)
{
	(void)qp;
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
