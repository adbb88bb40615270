/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rdma-core's provider ABI, releases 44 to 65 (version nodes
 * IBVERBS_PRIVATE_34, _57, _59, _64 and _65): the structures rdma-core's
 * provider libraries (libmlx5, libefa, librxe, ...) were compiled against,
 * and the entry points they import. The device objects are the core's
 * (lib/verbs_device.h).
 *
 * rdma-core's <infiniband/driver.h> is not installed by Debian, so the
 * layouts are written out here from rdma-core's headers (driver.h,
 * cmd_ioctl.h at v44.0 ... v64.0 and 65.0); every field is where the
 * providers' machine code expects it (test_private_abi checks sizes and
 * offsets). Member names follow rdma-core's, so that a reader can
 * compare. What changes between releases (verbs_qp's members at v45, the
 * ops table at v59, v62, v64, 65, struct verbs_context at v59, v62, v64)
 * the library reaches only through the provider's generation (lib/pabi/
 * generations.c); only the plug-ins, which run in the rdma-core they
 * were built against, see one release's layout.
 *
 * The prototypes are of one node, SV_PABI_NODE: in the library the
 * newest (65), each function's older forms being lib/pabi/nodes.h's; in
 * a plug-in the node of the system's libibverbs (configure's
 * SV_PLUGIN_PABI), whose functions it calls. */
#ifndef SV_PABI_ABI_H
#define SV_PABI_ABI_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "ops_list.h"
#include "uverbs_ext.h"
#include "verbs_device.h"
#include "verbs_ext.h"

#ifdef SV_PLUGIN_PROVIDER
#define SV_PABI_NODE SV_PLUGIN_PABI
#else
#define SV_PABI_NODE 65
#endif

/* ---- objects the command helpers fill ------------------------------------- */

struct verbs_xrcd {
	struct ibv_xrcd xrcd;
	uint32_t comp_mask; /* VERBS_XRCD_* */
	uint32_t handle;
};
enum { VERBS_XRCD_HANDLE = 1 << 0 };

struct verbs_srq {
	struct ibv_srq srq;
	enum ibv_srq_type srq_type;
	struct verbs_xrcd *xrcd;
	struct ibv_cq *cq;
	uint32_t srq_num;
};

enum { VERBS_QP_XRCD = 1 << 0, VERBS_QP_EX = 1 << 1 };

#ifdef SV_PLUGIN_PROVIDER
/* The plug-ins (plugin/) run inside the rdma-core whose <infiniband/
 * verbs.h> they were built with: its ibv_qp_ex, its verbs_qp. */
struct verbs_qp {
	union {
		struct ibv_qp qp;
		struct ibv_qp_ex qp_ex;
	};
	uint32_t comp_mask; /* VERBS_QP_* */
	struct verbs_xrcd *xrcd;
};
#else
/* In the library, a provider's verbs_qp is laid out as its generation
 * says (the ibv_qp is first in every one): see pabi_qp_set_core(). */
struct verbs_qp;
#endif

struct verbs_cq {
	union {
		struct ibv_cq cq;
		struct ibv_cq_ex cq_ex;
	};
};

enum ibv_mr_type {
	IBV_MR_TYPE_MR,
	IBV_MR_TYPE_NULL_MR,
	IBV_MR_TYPE_IMPORTED_MR,
	IBV_MR_TYPE_DMABUF_MR,
};

struct verbs_mr {
	struct ibv_mr ibv_mr;
	enum ibv_mr_type mr_type;
	int access;
};

enum ibv_flow_action_type {
	IBV_FLOW_ACTION_UNSPECIFIED,
	IBV_FLOW_ACTION_ESP = 1,
};

struct verbs_flow_action {
	struct ibv_flow_action action;
	uint32_t handle;
	enum ibv_flow_action_type type;
};

struct verbs_dm {
	struct ibv_dm dm;
	uint32_t handle;
};

struct verbs_counters {
	struct ibv_counters counters;
	uint32_t handle;
};

/* v59: a DMA handle (ibv_alloc_dmah) */
struct verbs_dmah {
	struct ibv_dmah dmah;
	uint32_t handle;
};

/* v59: the provider's own CQ buffer, for ibv_cmd_create_cq_ex(2) with
 * CREATE_CQ_CMD_FLAGS_WITH_MEM_VA or _WITH_MEM_DMABUF */
struct verbs_create_cq_prov_attr {
	struct {
		uint64_t length;
		union {
			uint8_t *ptr;
			struct {
				uint64_t offset;
				int fd;
			} dmabuf;
		};
	} buffer;
};

/* v64: the CoCo shared dma-buf heap (ibv_dmabuf_heap_*; opaque) */
struct ibv_dmabuf_heap;

/* ibv_query_gid_type()'s answer (sysfs naming) */
enum ibv_gid_type_sysfs {
	IBV_GID_TYPE_SYSFS_IB_ROCE_V1,
	IBV_GID_TYPE_SYSFS_ROCE_V2,
};

/* create_cq_ex command flags (WITH_MEM_*: v59) */
enum {
	CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX = 1 << 0,
	CREATE_CQ_CMD_FLAGS_WITH_MEM_VA = 1 << 1,
	CREATE_CQ_CMD_FLAGS_WITH_MEM_DMABUF = 1 << 2,
};

/* ---- the provider's context ops ------------------------------------------
 * struct verbs_context_ops, what a provider hands to verbs_set_ops: one
 * function pointer per op, sorted by name. rdma-core inserts new ops in
 * their alphabetical place, so the table's layout is its release's: the
 * table of release r holds the ops of this list with since <= r, in this
 * order (44-58: 76 slots, 59-61: 79, 62-63: 81, 64: 83, 65: 93; from
 * libibverbs/driver.h at v44.0, v57.0, v58.0, v59.0, v61.0, v62.0,
 * v63.0, v64.0 and 65.0). Tables are read and built slot by slot through
 * this list (lib/pabi/ops.c, plugin/plugin.c), never through one
 * release's struct. The list is the core's (lib/ops_list.h: the same
 * order, since it is rdma-core's): X(name, since, ...) for the verbs,
 * F(free_context, 44, ...) for the one slot that is not a verb. */
struct verbs_context_ops;

#define PABI_CONTEXT_OPS(X, F) SV_CONTEXT_OPS_SLOTS(X, F)

/* The slots of the newest table (65's). */
#define PABI_OPS_SLOTS_MAX 93

/* ---- ioctl command buffers (rdma-core's cmd_ioctl.h) ----------------------- */

/* A block of ioctl attributes on the caller's stack. Providers fill
 * attributes with inline functions compiled into them (next_attr++ up to
 * last_attr) and may chain blocks through `next`; execute_ioctl copies
 * the chained attributes behind this block's own (the first block is
 * sized for all of them by __ioctl_final_num_attrs) and back afterwards,
 * so that outputs read through a chained block's attribute pointers see
 * the kernel's answer. hdr.attrs[] follows the struct in memory. */
struct ibv_command_buffer {
	struct ibv_command_buffer *next;
	struct ib_uverbs_attr *next_attr;
	struct ib_uverbs_attr *last_attr;
	/* write-fallback bookkeeping: where the UHW attributes are and how
	 * much room the core needs before them, in 32-bit words */
	uint8_t uhw_in_idx;
	uint8_t uhw_out_idx;
	uint8_t uhw_in_headroom_dwords;
	uint8_t uhw_out_headroom_dwords;
	uint8_t buffer_error : 1;        /* a fill_* could not marshal */
	uint8_t fallback_require_ex : 1;
	uint8_t fallback_ioctl_only : 1;
	struct ib_uverbs_ioctl_hdr hdr;
};
enum { SV_UHW_NO_INDEX = 0xff };

/* ---- entry points (IBVERBS_PRIVATE_34 ... 65, SV_PABI_NODE's forms) ----------- */

/* rdma-core's log levels 1..4 are softverbs' SV_LOG_ERROR..SV_LOG_DEBUG. */
void __verbs_log(struct verbs_context *ctx, uint32_t level, const char *fmt,
		 ...) __attribute__((format(printf, 3, 4)));

extern bool verbs_allow_disassociate_destroy;

/* one per node; a provider calls its own release's */
void verbs_register_driver_34(const struct verbs_device_ops *ops);
void verbs_register_driver_57(const struct verbs_device_ops *ops);
void verbs_register_driver_59(const struct verbs_device_ops *ops);
void verbs_register_driver_64(const struct verbs_device_ops *ops);
void verbs_register_driver_65(const struct verbs_device_ops *ops);
void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
				    size_t alloc_size,
				    struct verbs_context *context_offset,
				    uint32_t driver_id);
void verbs_uninit_context(struct verbs_context *context);
void verbs_set_ops(struct verbs_context *vctx,
		   const struct verbs_context_ops *ops);
void verbs_init_cq(struct ibv_cq *cq, struct ibv_context *context,
		   struct ibv_comp_channel *channel, void *cq_context);
struct ibv_context *verbs_open_device(struct ibv_device *device,
				      void *private_data);
int ibv_read_ibdev_sysfs_file(char *buf, size_t size,
			      struct verbs_sysfs_dev *sysfs_dev,
			      const char *fnfmt, ...)
	__attribute__((format(printf, 4, 5)));
/* v49: the name of a work request opcode ("rdma-write" ...) */
const char *ibv_wr_opcode_str(enum ibv_wr_opcode opcode);
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, enum ibv_gid_type_sysfs *type);

unsigned int __ioctl_final_num_attrs(unsigned int num_attrs,
				     struct ibv_command_buffer *link);
int execute_ioctl(struct ibv_context *context, struct ibv_command_buffer *cmd);

/* The command helpers. `cmd` points at rdma-core's request struct: the
 * uverbs command header (plus the extended header for _ex commands), the
 * core request, then the driver's data up to cmd_size; `resp` at the
 * core response followed by the driver's, resp_size in all. The core
 * request is built from the arguments; only the driver's parts are taken
 * from and given back to these buffers (and the core response copied
 * into resp). 0 or a positive errno, like every softverbs command. */
#if SV_PABI_NODE >= 57
/* fd_arr: v57 (fds handed to the kernel with GET_CONTEXT; may be NULL) */
int ibv_cmd_get_context(struct verbs_context *context, void *cmd,
			size_t cmd_size, struct ibv_fd_arr *fd_arr, void *resp,
			size_t resp_size);
#else
int ibv_cmd_get_context(struct verbs_context *context, void *cmd,
			size_t cmd_size, void *resp, size_t resp_size);
#endif
int ibv_cmd_query_context(struct ibv_context *ctx,
			  struct ibv_command_buffer *driver);
int ibv_cmd_query_device_any(struct ibv_context *context,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size,
			     void *resp, size_t *resp_size);
int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num,
		       struct ibv_port_attr *port_attr, void *cmd,
		       size_t cmd_size);
/* v62 (IBVERBS_PRIVATE_59) */
int ibv_cmd_query_port_speed(struct ibv_context *context, uint32_t port_num,
			     uint64_t *speed);
int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     void *cmd, size_t cmd_size, void *resp, size_t resp_size);
int ibv_cmd_dealloc_pd(struct ibv_pd *pd);
int ibv_cmd_open_xrcd(struct ibv_context *context, struct verbs_xrcd *xrcd,
		      int vxrcd_size, struct ibv_xrcd_init_attr *attr,
		      void *cmd, size_t cmd_size, void *resp, size_t resp_size);
int ibv_cmd_close_xrcd(struct verbs_xrcd *xrcd);
int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		   uint64_t hca_va, int access, struct verbs_mr *vmr, void *cmd,
		   size_t cmd_size, void *resp, size_t resp_size);
int ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags, void *addr,
		     size_t length, uint64_t hca_va, int access,
		     struct ibv_pd *pd, void *cmd, size_t cmd_sz, void *resp,
		     size_t resp_sz);
int ibv_cmd_dereg_mr(struct verbs_mr *vmr);
int ibv_cmd_query_mr(struct ibv_pd *pd, struct verbs_mr *vmr,
		     uint32_t mr_handle);
int ibv_cmd_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		      uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge);
/* driver: from v54 (providers of 44-53 pass seven arguments) */
int ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
			  uint64_t iova, int fd, int access,
			  struct verbs_mr *vmr, struct ibv_command_buffer *driver);
/* v59 */
int ibv_cmd_reg_mr_ex(struct ibv_pd *pd, struct verbs_mr *vmr,
		      struct ibv_mr_init_attr *mr_init_attr);
int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		     struct ibv_mw *mw, void *cmd, size_t cmd_size, void *resp,
		     size_t resp_size);
int ibv_cmd_dealloc_mw(struct ibv_mw *mw);
int ibv_cmd_create_cq(struct ibv_context *context, int cqe,
		      struct ibv_comp_channel *channel, int comp_vector,
		      struct ibv_cq *cq, void *cmd, size_t cmd_size, void *resp,
		      size_t resp_size);
#if SV_PABI_NODE >= 59
/* prov_attr: v59 (the provider's own CQ buffer; may be NULL) */
int ibv_cmd_create_cq_ex(struct ibv_context *context,
			 const struct ibv_cq_init_attr_ex *cq_attr,
			 struct verbs_create_cq_prov_attr *prov_attr,
			 struct verbs_cq *cq, void *cmd, size_t cmd_size,
			 void *resp, size_t resp_size, uint32_t cmd_flags);
/* v53: create_cq_ex with the provider's own ioctl attributes */
int ibv_cmd_create_cq_ex2(struct ibv_context *context,
			  const struct ibv_cq_init_attr_ex *cq_attr,
			  struct verbs_create_cq_prov_attr *prov_attr,
			  struct verbs_cq *cq, void *cmd, size_t cmd_size,
			  void *resp, size_t resp_size, uint32_t cmd_flags,
			  struct ibv_command_buffer *driver);
#else
int ibv_cmd_create_cq_ex(struct ibv_context *context,
			 const struct ibv_cq_init_attr_ex *cq_attr,
			 struct verbs_cq *cq, void *cmd, size_t cmd_size,
			 void *resp, size_t resp_size, uint32_t cmd_flags);
int ibv_cmd_create_cq_ex2(struct ibv_context *context,
			  const struct ibv_cq_init_attr_ex *cq_attr,
			  struct verbs_cq *cq, void *cmd, size_t cmd_size,
			  void *resp, size_t resp_size, uint32_t cmd_flags,
			  struct ibv_command_buffer *driver);
#endif
int ibv_cmd_poll_cq(struct ibv_cq *cq, int ne, struct ibv_wc *wc);
int ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only);
int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe, void *cmd, size_t cmd_size,
		      void *resp, size_t resp_size);
int ibv_cmd_destroy_cq(struct ibv_cq *cq);
int ibv_cmd_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr,
		      void *cmd, size_t cmd_size);
int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
		       struct ibv_srq_init_attr *attr, void *cmd,
		       size_t cmd_size, void *resp, size_t resp_size);
int ibv_cmd_create_srq_ex(struct ibv_context *context, struct verbs_srq *srq,
			  struct ibv_srq_init_attr_ex *attr_ex, void *cmd,
			  size_t cmd_size, void *resp, size_t resp_size);
int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		       int srq_attr_mask, void *cmd, size_t cmd_size);
int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		      void *cmd, size_t cmd_size);
int ibv_cmd_destroy_srq(struct ibv_srq *srq);
int ibv_cmd_create_qp(struct ibv_pd *pd, struct ibv_qp *qp,
		      struct ibv_qp_init_attr *attr, void *cmd,
		      size_t cmd_size, void *resp, size_t resp_size);
int ibv_cmd_create_qp_ex(struct ibv_context *context, struct verbs_qp *qp,
			 struct ibv_qp_init_attr_ex *attr_ex, void *cmd,
			 size_t cmd_size, void *resp, size_t resp_size);
#if SV_PABI_NODE >= 64
/* driver: v64 (the provider's ioctl attributes; may be NULL) */
int ibv_cmd_create_qp_ex2(struct ibv_context *context, struct verbs_qp *qp,
			  struct ibv_qp_init_attr_ex *qp_attr, void *cmd,
			  size_t cmd_size, void *resp, size_t resp_size,
			  struct ibv_command_buffer *driver);
#else
int ibv_cmd_create_qp_ex2(struct ibv_context *context, struct verbs_qp *qp,
			  struct ibv_qp_init_attr_ex *qp_attr, void *cmd,
			  size_t cmd_size, void *resp, size_t resp_size);
#endif
int ibv_cmd_open_qp(struct ibv_context *context, struct verbs_qp *qp,
		    int vqp_sz, struct ibv_qp_open_attr *attr, void *cmd,
		    size_t cmd_size, void *resp, size_t resp_size);
int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr,
		     int attr_mask, struct ibv_qp_init_attr *qp_init_attr,
		     void *cmd, size_t cmd_size);
int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask, void *cmd, size_t cmd_size);
int ibv_cmd_modify_qp_ex(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask, void *cmd, size_t cmd_size, void *resp,
			 size_t resp_size);
int ibv_cmd_destroy_qp(struct ibv_qp *qp);
int ibv_cmd_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		      struct ibv_send_wr **bad_wr);
int ibv_cmd_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr);
int ibv_cmd_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad_wr);
int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		      struct ibv_ah_attr *attr, void *resp, size_t resp_size);
int ibv_cmd_destroy_ah(struct ibv_ah *ah);
int ibv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);
int ibv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);
int ibv_cmd_create_flow(struct ibv_qp *qp, struct ibv_flow *flow_id,
			struct ibv_flow_attr *flow_attr, void *ucmd,
			size_t ucmd_size);
int ibv_cmd_destroy_flow(struct ibv_flow *flow_id);
int ibv_cmd_create_flow_action_esp(struct ibv_context *ctx,
				   struct ibv_flow_action_esp_attr *attr,
				   struct verbs_flow_action *flow_action,
				   struct ibv_command_buffer *driver);
int ibv_cmd_modify_flow_action_esp(struct verbs_flow_action *flow_action,
				   struct ibv_flow_action_esp_attr *attr,
				   struct ibv_command_buffer *driver);
int ibv_cmd_destroy_flow_action(struct verbs_flow_action *action);
int ibv_cmd_create_wq(struct ibv_context *context,
		      struct ibv_wq_init_attr *wq_init_attr, struct ibv_wq *wq,
		      void *cmd, size_t cmd_size, void *resp, size_t resp_size);
int ibv_cmd_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *attr, void *cmd,
		      size_t cmd_size);
int ibv_cmd_destroy_wq(struct ibv_wq *wq);
int ibv_cmd_create_rwq_ind_table(struct ibv_context *context,
				 struct ibv_rwq_ind_table_init_attr *init_attr,
				 struct ibv_rwq_ind_table *rwq_ind_table,
				 void *resp, size_t resp_size);
int ibv_cmd_destroy_rwq_ind_table(struct ibv_rwq_ind_table *rwq_ind_table);
int ibv_cmd_create_counters(struct ibv_context *context,
			    struct ibv_counters_init_attr *init_attr,
			    struct verbs_counters *vcounters,
			    struct ibv_command_buffer *link);
int ibv_cmd_destroy_counters(struct verbs_counters *vcounters);
int ibv_cmd_read_counters(struct verbs_counters *vcounters,
			  uint64_t *counters_value, uint32_t ncounters,
			  uint32_t flags, struct ibv_command_buffer *link);
int ibv_cmd_alloc_dm(struct ibv_context *ctx,
		     const struct ibv_alloc_dm_attr *dm_attr,
		     struct verbs_dm *dm, struct ibv_command_buffer *link);
int ibv_cmd_free_dm(struct verbs_dm *dm);
int ibv_cmd_reg_dm_mr(struct ibv_pd *pd, struct verbs_dm *dm,
		      uint64_t offset, size_t length, unsigned int access,
		      struct verbs_mr *vmr, struct ibv_command_buffer *link);
/* v62 (IBVERBS_PRIVATE_59): a dma-buf fd for the mmap page at pg_off of
 * the context's file (device memory); the fd, or -1 with errno */
int ibv_cmd_export_dmabuf_fd(struct ibv_context *ctx, off_t pg_off);
/* v59 */
int ibv_cmd_alloc_dmah(struct ibv_context *ctx, struct verbs_dmah *dmah,
		       struct ibv_dmah_init_attr *attr);
int ibv_cmd_free_dmah(struct verbs_dmah *dmah);
/* v64: the CoCo shared dma-buf heap (/dev/dma_heap/system_cc_shared) */
struct ibv_dmabuf_heap *ibv_dmabuf_heap_cc_shared_init(void);
void ibv_dmabuf_heap_destroy(struct ibv_dmabuf_heap *heap);
void *ibv_dmabuf_heap_alloc(struct ibv_dmabuf_heap *heap, size_t size,
			    int *dmabuf_fd);
void ibv_dmabuf_heap_free(void *buf, size_t size, int dmabuf_fd);
/* 65: completion counters */
int ibv_cmd_query_comp_cntr_caps(struct ibv_context *context,
				 struct ibv_comp_cntr_caps *caps,
				 size_t caps_size);
int ibv_cmd_create_comp_cntr(struct ibv_context *context,
			     struct ibv_comp_cntr *comp_cntr,
			     struct ibv_command_buffer *link);
int ibv_cmd_destroy_comp_cntr(struct ibv_comp_cntr *comp_cntr);
int ibv_cmd_inc_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t amount);
int ibv_cmd_inc_err_comp_cntr(struct ibv_comp_cntr *comp_cntr,
			      uint64_t amount);
int ibv_cmd_read_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t *value);
int ibv_cmd_read_err_comp_cntr(struct ibv_comp_cntr *comp_cntr,
			       uint64_t *value);
int ibv_cmd_set_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t value);
int ibv_cmd_set_err_comp_cntr(struct ibv_comp_cntr *comp_cntr,
			      uint64_t value);
int ibv_cmd_qp_attach_comp_cntr(struct ibv_qp *qp,
				struct ibv_comp_cntr *comp_cntr,
				struct ibv_qp_attach_comp_cntr_attr *attr);

#endif
