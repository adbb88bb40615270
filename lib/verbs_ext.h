/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The public verbs of rdma-core 57-65 (IBVERBS_1.15 to 1.18) that an older
 * system <infiniband/verbs.h> does not declare. softverbs builds against
 * whatever verbs.h the machine has (Debian 12: rdma-core 44's, 13: 56's,
 * unstable: 65's) and never carries a copy: what is missing is declared
 * here, release by release, each block only when configure found the
 * system's header without it (HAVE_DECL_*), so that a newer verbs.h always
 * wins. The layouts are those of rdma-core's verbs.h at the release named
 * in each block (tests/unit/test_private_abi pins them).
 *
 * One exception cannot be declared away: an rdma-core 59-63 verbs.h has
 * struct ibv_mr_init_attr without the `buf` member rdma-core 64 appended;
 * sv_mr_init_attr_buf() reads it wherever the header stands. */
#ifndef SV_VERBS_EXT_H
#define SV_VERBS_EXT_H

#ifndef HAVE_DECL_IBV_REG_MR_EX
#error "config.h (configure's HAVE_DECL_*) must come first"
#endif

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/verbs.h>

struct ibv_buf;

/* ---- rdma-core 57 -------------------------------------------------------- */
#if !HAVE_STRUCT_IBV_FD_ARR
/* file descriptors handed to GET_CONTEXT (ibv_cmd_get_context, v57) */
struct ibv_fd_arr {
	int *arr;
	uint32_t count;
};
#endif

/* ---- rdma-core 59: IBVERBS_1.15 ------------------------------------------- */
#if !HAVE_DECL_IBV_REG_MR_EX
struct ibv_dmah {
	struct ibv_context *context;
};

enum ibv_mr_init_attr_mask {
	IBV_REG_MR_MASK_IOVA = 1 << 0,
	IBV_REG_MR_MASK_ADDR = 1 << 1,
	IBV_REG_MR_MASK_FD = 1 << 2,
	IBV_REG_MR_MASK_FD_OFFSET = 1 << 3,
	IBV_REG_MR_MASK_DMAH = 1 << 4,
	IBV_REG_MR_MASK_BUF = 1 << 5, /* rdma-core 64 */
};

/* rdma-core 64's form (59 lacks `buf`, appended at the end) */
struct ibv_mr_init_attr {
	size_t length;
	int access;
	uint64_t comp_mask; /* enum ibv_mr_init_attr_mask */
	uint64_t iova;
	void *addr;
	int fd;
	uint64_t fd_offset;
	struct ibv_dmah *dmah;
	struct ibv_buf *buf;
};
#define SV_MR_INIT_ATTR_HAS_BUF 1

enum ibv_tph_mem_type {
	IBV_TPH_MEM_TYPE_VM,
	IBV_TPH_MEM_TYPE_PM,
};

enum ibv_dmah_init_attr_mask {
	IBV_DMAH_INIT_ATTR_MASK_CPU_ID = 1 << 0,
	IBV_DMAH_INIT_ATTR_MASK_PH = 1 << 1,
	IBV_DMAH_INIT_ATTR_MASK_TPH_MEM_TYPE = 1 << 2,
};

struct ibv_dmah_init_attr {
	uint32_t comp_mask;
	uint32_t cpu_id;
	uint8_t ph;
	uint8_t tph_mem_type; /* enum ibv_tph_mem_type */
};

struct ibv_mr *ibv_reg_mr_ex(struct ibv_pd *pd,
			     struct ibv_mr_init_attr *mr_init_attr);
struct ibv_dmah *ibv_alloc_dmah(struct ibv_context *context,
				struct ibv_dmah_init_attr *attr);
int ibv_dealloc_dmah(struct ibv_dmah *dmah);
#else
#define SV_MR_INIT_ATTR_HAS_BUF HAVE_DECL_IBV_REG_MR_MASK_BUF
#endif

/* ---- rdma-core 60 ----------------------------------------------------------- */
#if !HAVE_DECL_IBV_QUERY_QP_DATA_IN_ORDER_DEVICE_ONLY
/* an enum ibv_query_qp_data_in_order_flags member */
#define IBV_QUERY_QP_DATA_IN_ORDER_DEVICE_ONLY (1 << 1)
#endif

/* ---- rdma-core 62: IBVERBS_1.16 --------------------------------------------- */
#if !HAVE_DECL_IBV_EVENT_DEVICE_SPEED_CHANGE
/* the enum ibv_event_type member after IBV_EVENT_WQ_FATAL */
#define IBV_EVENT_DEVICE_SPEED_CHANGE ((enum ibv_event_type)(IBV_EVENT_WQ_FATAL + 1))
#endif
#if !HAVE_DECL_IBV_QUERY_PORT_SPEED
/* the port's effective bandwidth in units of 100 Mb/s */
int ibv_query_port_speed(struct ibv_context *context, uint32_t port_num,
			 uint64_t *port_speed);
int ibv_dm_export_dmabuf_fd(struct ibv_dm *dm);
#endif

/* ---- rdma-core 64: IBVERBS_1.17 --------------------------------------------- */
#if HAVE_DECL_IBV_REG_MR_EX && !HAVE_DECL_IBV_REG_MR_MASK_BUF
/* an rdma-core 59-63 verbs.h: the enum member 64 added */
#define IBV_REG_MR_MASK_BUF (1 << 5)
#endif
#if !HAVE_DECL_IBV_ALLOC_BUF
void *ibv_alloc_buf(struct ibv_pd *pd, size_t size, struct ibv_buf **buf);
void ibv_free_buf(struct ibv_buf *buf);
struct ibv_mr *ibv_reg_buf_mr(struct ibv_pd *pd, struct ibv_buf *buf,
			      void *addr, size_t length, int access);
#endif

/* ---- rdma-core 65: IBVERBS_1.18 --------------------------------------------- */
#if !HAVE_DECL_IBV_CREATE_COMP_CNTR
enum ibv_qp_attach_comp_cntr_op {
	IBV_QP_ATTACH_COMP_CNTR_OP_SEND = 1 << 0,
	IBV_QP_ATTACH_COMP_CNTR_OP_RECV = 1 << 1,
	IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_READ = 1 << 2,
	IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ = 1 << 3,
	IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE = 1 << 4,
	IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE = 1 << 5,
};

struct ibv_comp_cntr_caps {
	uint64_t max_value;
	uint32_t max_counters;
	uint32_t supported_qp_attach_ops; /* enum ibv_qp_attach_comp_cntr_op */
};

struct ibv_comp_cntr {
	struct ibv_context *context;
	uint32_t handle;
};

enum ibv_comp_cntr_type {
	IBV_COMP_CNTR_TYPE_WRS,
	IBV_COMP_CNTR_TYPE_BYTES,
};

struct ibv_comp_cntr_init_attr {
	uint32_t comp_mask;
	enum ibv_comp_cntr_type type;
	uint32_t flags;
};

struct ibv_qp_attach_comp_cntr_attr {
	uint32_t comp_mask;
	uint32_t op_mask; /* enum ibv_qp_attach_comp_cntr_op */
};

int _ibv_query_comp_cntr_caps(struct ibv_context *context,
			      struct ibv_comp_cntr_caps *caps, size_t caps_size);
struct ibv_comp_cntr *ibv_create_comp_cntr(struct ibv_context *context,
					   struct ibv_comp_cntr_init_attr *cc_attr);
int ibv_destroy_comp_cntr(struct ibv_comp_cntr *comp_cntr);
int ibv_set_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t value);
int ibv_set_err_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t value);
int ibv_inc_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t amount);
int ibv_inc_err_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t amount);
int ibv_read_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t *value);
int ibv_read_err_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t *value);
int ibv_qp_attach_comp_cntr(struct ibv_qp *qp, struct ibv_comp_cntr *comp_cntr,
			    struct ibv_qp_attach_comp_cntr_attr *attr);
int ibv_export_buf_dmabuf_fd(struct ibv_buf *buf);
#endif

/* ---- what every build reads the same way ------------------------------------ */

/* attr->buf (rdma-core 64): after dmah, 8-byte aligned, whatever the
 * header's struct says. */
static inline struct ibv_buf *sv_mr_init_attr_buf(const struct ibv_mr_init_attr *a)
{
#if SV_MR_INIT_ATTR_HAS_BUF
	return a->buf;
#else
	struct ibv_buf *buf;

	memcpy(&buf, (const char *)a + offsetof(struct ibv_mr_init_attr, dmah) +
			     sizeof(a->dmah), sizeof(buf));
	return buf;
#endif
}

#endif
