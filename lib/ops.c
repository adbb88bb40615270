/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The context-ops defaults: every slot answers, so a provider fills only
 * what it implements. Most defaults say EOPNOTSUPP; where the uverbs
 * command alone does the whole job (PD, MR, MW dealloc, mcast, device and
 * port queries, QP/SRQ query, QP modify, and ibv_create_qp through a
 * provider's create_qp_ex) the default is the generic
 * command implementation. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core.h"

/* ---- EOPNOTSUPP defaults ------------------------------------------------ */

#define NOSUP_PTR(name, ret_type, ...)                                        \
	static ret_type *nosup_##name(__VA_ARGS__)                            \
	{                                                                     \
		errno = EOPNOTSUPP;                                           \
		return NULL;                                                  \
	}
#define NOSUP_INT(name, ...)                                                  \
	static int nosup_##name(__VA_ARGS__)                                  \
	{                                                                     \
		return EOPNOTSUPP;                                            \
	}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
NOSUP_INT(query_rt_values, struct ibv_context *c, struct ibv_values_ex *v)
static void nop_async_event(struct ibv_context *c, struct ibv_async_event *e) {}
NOSUP_PTR(alloc_td, struct ibv_td, struct ibv_context *c, struct ibv_td_init_attr *a)
NOSUP_INT(dealloc_td, struct ibv_td *td)
NOSUP_PTR(alloc_parent_domain, struct ibv_pd, struct ibv_context *c,
	  struct ibv_parent_domain_init_attr *a)
NOSUP_PTR(alloc_null_mr, struct ibv_mr, struct ibv_pd *pd)
NOSUP_INT(advise_mr, struct ibv_pd *pd, enum ibv_advise_mr_advice a,
	  uint32_t f, struct ibv_sge *s, uint32_t n)
NOSUP_PTR(alloc_mw, struct ibv_mw, struct ibv_pd *pd, enum ibv_mw_type t)
NOSUP_INT(bind_mw, struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *b)
NOSUP_PTR(create_cq, struct ibv_cq, struct ibv_context *c, int cqe,
	  struct ibv_comp_channel *ch, int v)
NOSUP_PTR(create_cq_ex, struct ibv_cq_ex, struct ibv_context *c,
	  struct ibv_cq_init_attr_ex *a)
static int nosup_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	return -EOPNOTSUPP;
}
NOSUP_INT(req_notify_cq, struct ibv_cq *cq, int s)
static void nop_cq_event(struct ibv_cq *cq) {}
NOSUP_INT(resize_cq, struct ibv_cq *cq, int cqe)
NOSUP_INT(modify_cq, struct ibv_cq *cq, struct ibv_modify_cq_attr *a)
NOSUP_INT(destroy_cq, struct ibv_cq *cq)
NOSUP_PTR(create_srq, struct ibv_srq, struct ibv_pd *pd, struct ibv_srq_init_attr *a)
NOSUP_PTR(create_srq_ex, struct ibv_srq, struct ibv_context *c,
	  struct ibv_srq_init_attr_ex *a)
NOSUP_INT(modify_srq, struct ibv_srq *s, struct ibv_srq_attr *a, int m)
NOSUP_INT(destroy_srq, struct ibv_srq *s)
NOSUP_INT(post_srq_recv, struct ibv_srq *s, struct ibv_recv_wr *wr,
	  struct ibv_recv_wr **bad)
NOSUP_INT(post_srq_ops, struct ibv_srq *s, struct ibv_ops_wr *op,
	  struct ibv_ops_wr **bad)
NOSUP_INT(get_srq_num, struct ibv_srq *s, uint32_t *n)
NOSUP_PTR(create_qp_ex, struct ibv_qp, struct ibv_context *c,
	  struct ibv_qp_init_attr_ex *a)
NOSUP_PTR(open_qp, struct ibv_qp, struct ibv_context *c, struct ibv_qp_open_attr *a)
NOSUP_INT(modify_qp_rate_limit, struct ibv_qp *qp, struct ibv_qp_rate_limit_attr *a)
NOSUP_INT(destroy_qp, struct ibv_qp *qp)
static int nosup_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			   struct ibv_send_wr **bad)
{
	if (bad)
		*bad = wr;
	return EOPNOTSUPP;
}
static int nosup_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			   struct ibv_recv_wr **bad)
{
	if (bad)
		*bad = wr;
	return EOPNOTSUPP;
}
NOSUP_PTR(create_ah, struct ibv_ah, struct ibv_pd *pd, struct ibv_ah_attr *a)
NOSUP_INT(destroy_ah, struct ibv_ah *ah)
NOSUP_PTR(open_xrcd, struct ibv_xrcd, struct ibv_context *c,
	  struct ibv_xrcd_init_attr *a)
NOSUP_INT(close_xrcd, struct ibv_xrcd *x)
NOSUP_PTR(create_wq, struct ibv_wq, struct ibv_context *c, struct ibv_wq_init_attr *a)
NOSUP_INT(modify_wq, struct ibv_wq *wq, struct ibv_wq_attr *a)
NOSUP_INT(destroy_wq, struct ibv_wq *wq)
NOSUP_PTR(create_rwq_ind_table, struct ibv_rwq_ind_table, struct ibv_context *c,
	  struct ibv_rwq_ind_table_init_attr *a)
NOSUP_INT(destroy_rwq_ind_table, struct ibv_rwq_ind_table *t)
NOSUP_PTR(create_flow, struct ibv_flow, struct ibv_qp *qp, struct ibv_flow_attr *a)
NOSUP_INT(destroy_flow, struct ibv_flow *f)
NOSUP_PTR(create_counters, struct ibv_counters, struct ibv_context *c,
	  struct ibv_counters_init_attr *a)
NOSUP_INT(destroy_counters, struct ibv_counters *c)
NOSUP_INT(attach_counters_point_flow, struct ibv_counters *c,
	  struct ibv_counter_attach_attr *a, struct ibv_flow *f)
NOSUP_INT(read_counters, struct ibv_counters *c, uint64_t *v, uint32_t n,
	  uint32_t f)
NOSUP_PTR(alloc_dm, struct ibv_dm, struct ibv_context *c, struct ibv_alloc_dm_attr *a)
NOSUP_INT(free_dm, struct ibv_dm *dm)
NOSUP_PTR(reg_dm_mr, struct ibv_mr, struct ibv_pd *pd, struct ibv_dm *dm,
	  uint64_t off, size_t len, unsigned int access)
NOSUP_PTR(create_flow_action_esp, struct ibv_flow_action, struct ibv_context *c,
	  struct ibv_flow_action_esp_attr *a)
NOSUP_INT(modify_flow_action_esp, struct ibv_flow_action *fa,
	  struct ibv_flow_action_esp_attr *a)
NOSUP_INT(destroy_flow_action, struct ibv_flow_action *fa)
NOSUP_INT(query_ece, struct ibv_qp *qp, struct ibv_ece *ece)
NOSUP_INT(set_ece, struct ibv_qp *qp, struct ibv_ece *ece)
/* 0: no in-order guarantee is promised (rdma-core's answer too) */
static int none_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op,
				       uint32_t flags)
{
	return 0;
}
NOSUP_PTR(import_pd, struct ibv_pd, struct ibv_context *c, uint32_t h)
NOSUP_PTR(import_mr, struct ibv_mr, struct ibv_pd *pd, uint32_t h)
NOSUP_PTR(import_dm, struct ibv_dm, struct ibv_context *c, uint32_t h)
/* nothing can have been imported through the defaults */
static void nop_unimport_pd(struct ibv_pd *pd) {}
static void nop_unimport_mr(struct ibv_mr *mr) {}
static void nop_unimport_dm(struct ibv_dm *dm) {}
/* rdma-core 59-65's verbs: DMA handles, device-memory dma-bufs and
 * completion counters are the hardware's */
NOSUP_PTR(alloc_dmah, struct ibv_dmah, struct ibv_context *c,
	  struct ibv_dmah_init_attr *a)
NOSUP_INT(dealloc_dmah, struct ibv_dmah *d)
static int nosup_dm_export_dmabuf_fd(struct ibv_dm *dm)
{
	errno = EOPNOTSUPP;
	return -1;
}
NOSUP_INT(query_comp_cntr_caps, struct ibv_context *c,
	  struct ibv_comp_cntr_caps *caps, size_t n)
NOSUP_PTR(create_comp_cntr, struct ibv_comp_cntr, struct ibv_context *c,
	  struct ibv_comp_cntr_init_attr *a)
NOSUP_INT(destroy_comp_cntr, struct ibv_comp_cntr *cc)
NOSUP_INT(set_comp_cntr, struct ibv_comp_cntr *cc, uint64_t v)
NOSUP_INT(set_err_comp_cntr, struct ibv_comp_cntr *cc, uint64_t v)
NOSUP_INT(inc_comp_cntr, struct ibv_comp_cntr *cc, uint64_t v)
NOSUP_INT(inc_err_comp_cntr, struct ibv_comp_cntr *cc, uint64_t v)
NOSUP_INT(read_comp_cntr, struct ibv_comp_cntr *cc, uint64_t *v)
NOSUP_INT(read_err_comp_cntr, struct ibv_comp_cntr *cc, uint64_t *v)
NOSUP_INT(qp_attach_comp_cntr, struct ibv_qp *qp, struct ibv_comp_cntr *cc,
	  struct ibv_qp_attach_comp_cntr_attr *a)
NOSUP_INT(query_port_speed, struct ibv_context *c, uint32_t p, uint64_t *s)

/* The slots that have a generic default for the built-in providers need
 * a plain EOPNOTSUPP one too: rdma-core's providers start from nothing
 * but EOPNOTSUPP, as they do on rdma-core. */
static int nosup_query_device_ex(struct ibv_context *c,
				 const struct ibv_query_device_ex_input *i,
				 struct ibv_device_attr_ex *a, size_t s)
{
	return EOPNOTSUPP;
}
NOSUP_INT(query_port, struct ibv_context *c, uint8_t p, struct ibv_port_attr *a)
NOSUP_PTR(alloc_pd, struct ibv_pd, struct ibv_context *c)
NOSUP_INT(dealloc_pd, struct ibv_pd *pd)
NOSUP_PTR(reg_mr, struct ibv_mr, struct ibv_pd *pd, void *addr, size_t len,
	  uint64_t va, int access)
NOSUP_INT(rereg_mr, struct ibv_mr *mr, int f, struct ibv_pd *pd, void *addr,
	  size_t len, int access)
NOSUP_INT(dereg_mr, struct ibv_mr *mr)
NOSUP_INT(dealloc_mw, struct ibv_mw *mw)
NOSUP_PTR(reg_dmabuf_mr, struct ibv_mr, struct ibv_pd *pd, uint64_t off,
	  size_t len, uint64_t iova, int fd, int access)
NOSUP_INT(query_srq, struct ibv_srq *s, struct ibv_srq_attr *a)
NOSUP_PTR(create_qp, struct ibv_qp, struct ibv_pd *pd, struct ibv_qp_init_attr *a)
NOSUP_INT(query_qp, struct ibv_qp *qp, struct ibv_qp_attr *a, int m,
	  struct ibv_qp_init_attr *i)
NOSUP_INT(modify_qp, struct ibv_qp *qp, struct ibv_qp_attr *a, int m)
NOSUP_INT(attach_mcast, struct ibv_qp *qp, const union ibv_gid *g, uint16_t l)
NOSUP_INT(detach_mcast, struct ibv_qp *qp, const union ibv_gid *g, uint16_t l)
#pragma GCC diagnostic pop

/* ---- generic command implementations ------------------------------------ */

static int generic_query_device_ex(struct ibv_context *ctx,
				   const struct ibv_query_device_ex_input *input,
				   struct ibv_device_attr_ex *attr,
				   size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp reply;
	uint64_t raw_fw_ver;
	int ret;

	ret = sv_cmd_query_device_ex(ctx, input, attr, attr_size, &reply);
	if (ret)
		return ret;
	raw_fw_ver = reply.base.fw_ver;
	/* The soft drivers report major.minor.sub in 16-bit fields (0.0.0
	 * for rxe), which rdma-core's providers print this way. */
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%u.%u.%u", (unsigned int)(raw_fw_ver >> 32) & 0xffff,
		 (unsigned int)(raw_fw_ver >> 16) & 0xffff,
		 (unsigned int)raw_fw_ver & 0xffff);
	return 0;
}

static int generic_query_port(struct ibv_context *ctx, uint8_t port_num,
			      struct ibv_port_attr *attr)
{
	return sv_cmd_query_port(ctx, port_num, attr, SV_PORT_ATTR_SIZE);
}

static struct ibv_pd *generic_alloc_pd(struct ibv_context *ctx)
{
	struct ibv_pd *pd = calloc(1, sizeof(*pd));
	int ret;

	if (!pd)
		return NULL;
	ret = sv_cmd_alloc_pd(ctx, pd, NULL);
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}
	return pd;
}

static int generic_dealloc_pd(struct ibv_pd *pd)
{
	int ret = sv_cmd_dealloc_pd(pd);

	if (ret)
		return ret;
	free(pd);
	return 0;
}

static struct ibv_mr *generic_reg_mr(struct ibv_pd *pd, void *addr,
				     size_t length, uint64_t hca_va, int access)
{
	struct sv_mr *mr = calloc(1, sizeof(*mr));
	int ret;

	if (!mr)
		return NULL;
	ret = sv_cmd_reg_mr(pd, addr, length, hca_va, access, mr, NULL);
	if (ret) {
		free(mr);
		errno = ret;
		return NULL;
	}
	return &mr->mr;
}

static int generic_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd,
			    void *addr, size_t length, int access)
{
	return sv_cmd_rereg_mr(mr, flags, pd, addr, length, access,
					    NULL);
}

static int generic_dereg_mr(struct ibv_mr *mr)
{
	int ret = sv_cmd_dereg_mr(mr);

	if (ret)
		return ret;
	free(container_of(mr, struct sv_mr, mr));
	return 0;
}

/* A dma-buf registration is the kernel's to accept (REG_DMABUF_MR; the
 * soft drivers of 6.1 answer EOPNOTSUPP): the same command rdma-core's
 * providers send. */
static struct ibv_mr *generic_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
					    size_t length, uint64_t iova, int fd,
					    int access)
{
	struct sv_mr *mr = calloc(1, sizeof(*mr));
	int ret;

	if (!mr)
		return NULL;
	ret = sv_cmd_reg_dmabuf_mr(pd, offset, length, iova, fd, access, mr);
	if (ret) {
		free(mr);
		errno = ret;
		return NULL;
	}
	return &mr->mr;
}

/* ibv_reg_mr_ex on a provider without its own (rdma-core's rule): what
 * the older registration ops can say, memory by address (reg_mr) or a
 * dma-buf (reg_dmabuf_mr); a DMA handle they cannot. The core has checked
 * the mask and done the fork-safety part. */
static struct ibv_mr *generic_reg_mr_ex(struct ibv_pd *pd,
					struct ibv_mr_init_attr *attr)
{
	const struct sv_context_ops *ops = &sv_priv(pd->context)->ops;
	uint64_t mask = attr->comp_mask;

	if (mask & ~(uint64_t)(IBV_REG_MR_MASK_IOVA | IBV_REG_MR_MASK_ADDR |
			       IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET)) {
		sv_dbg("reg_mr_ex: comp_mask %#llx (a DMA handle) needs the provider's own reg_mr_ex",
		       (unsigned long long)mask);
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (mask & IBV_REG_MR_MASK_FD)
		return ops->reg_dmabuf_mr(pd, attr->fd_offset, attr->length,
					  attr->iova, attr->fd, attr->access);
	return ops->reg_mr(pd, attr->addr, attr->length,
			   (mask & IBV_REG_MR_MASK_IOVA) ? attr->iova :
							   (uintptr_t)attr->addr,
			   attr->access);
}

/* ibv_alloc_buf's default: anonymous memory of whole pages, so that no
 * other data shares a page with it (fork safety protects whole pages).
 * The buffer is the caller's until ibv_free_buf. */
static void *generic_alloc_buf(struct ibv_pd *pd, size_t size,
			       struct ibv_buf **buf)
{
	long page = sysconf(_SC_PAGESIZE);
	struct ibv_buf *b;
	size_t len;
	void *p;

	if (!size || size > SIZE_MAX - (size_t)page) {
		errno = EINVAL;
		return NULL;
	}
	len = (size + (size_t)page - 1) & ~((size_t)page - 1);
	b = calloc(1, sizeof(*b));
	if (!b) {
		errno = ENOMEM;
		return NULL;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED) {
		int err = errno;

		free(b);
		errno = err;
		return NULL;
	}
	b->addr = p;
	b->size = size;
	b->pd = pd;
	b->dmabuf_fd = -1;
	*buf = b;
	return p;
}

static void generic_free_buf(struct ibv_buf *buf)
{
	long page = sysconf(_SC_PAGESIZE);

	munmap(buf->addr, (buf->size + (size_t)page - 1) & ~((size_t)page - 1));
	free(buf);
}

/* What the kernel reports (QUERY_PORT_SPEED); EOPNOTSUPP where it reports
 * nothing (no such method, or a driver without it: rxe and siw as of
 * 7.2), as rdma-core's librxe and libsiw answer. */
static int generic_query_port_speed(struct ibv_context *ctx, uint32_t port_num,
				    uint64_t *speed)
{
	return sv_cmd_query_port_speed(ctx, port_num, speed);
}

static int generic_dealloc_mw(struct ibv_mw *mw)
{
	int ret = sv_cmd_dealloc_mw(mw);

	if (ret)
		return ret;
	free(mw);
	return 0;
}

static int generic_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
				uint16_t lid)
{
	return sv_cmd_attach_mcast(qp, gid, lid);
}

static int generic_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
				uint16_t lid)
{
	return sv_cmd_detach_mcast(qp, gid, lid);
}

/* ibv_create_qp on a provider that only has create_qp_ex: the plain
 * attributes are the ex ones with just a PD; the granted caps go back. */
static struct ibv_qp *generic_create_qp(struct ibv_pd *pd,
					struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ex = sv_qp_init_attr_ex(pd, attr);
	struct ibv_qp *qp = sv_priv(pd->context)->ops.create_qp_ex(pd->context, &ex);

	if (qp)
		attr->cap = ex.cap;
	return qp;
}

static int generic_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	return sv_cmd_query_srq(srq, attr);
}

static int generic_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			    int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	return sv_cmd_query_qp(qp, attr, attr_mask, init_attr);
}

/* A MODIFY_QP without driver trailers (rxe and siw need none). */
static int generic_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			     int attr_mask)
{
	int ret = sv_cmd_modify_qp(qp, attr, attr_mask, NULL);

	if (ret)
		sv_err("MODIFY_QP %#x (mask %#x, to state %d) failed: %s",
		       qp->qp_num, attr_mask,
		       attr_mask & IBV_QP_STATE ? (int)attr->qp_state : -1,
		       strerror(ret));
	return ret;
}

const struct sv_context_ops sv_default_ops = {
	.query_device_ex = generic_query_device_ex,
	.query_port = generic_query_port,
	.query_rt_values = nosup_query_rt_values,
	.async_event = nop_async_event,
	.alloc_pd = generic_alloc_pd,
	.dealloc_pd = generic_dealloc_pd,
	.alloc_td = nosup_alloc_td,
	.dealloc_td = nosup_dealloc_td,
	.alloc_parent_domain = nosup_alloc_parent_domain,
	.reg_mr = generic_reg_mr,
	.rereg_mr = generic_rereg_mr,
	.dereg_mr = generic_dereg_mr,
	.reg_dmabuf_mr = generic_reg_dmabuf_mr,
	.alloc_null_mr = nosup_alloc_null_mr,
	.advise_mr = nosup_advise_mr,
	.alloc_mw = nosup_alloc_mw,
	.bind_mw = nosup_bind_mw,
	.dealloc_mw = generic_dealloc_mw,
	.create_cq = nosup_create_cq,
	.create_cq_ex = nosup_create_cq_ex,
	.poll_cq = nosup_poll_cq,
	.req_notify_cq = nosup_req_notify_cq,
	.cq_event = nop_cq_event,
	.resize_cq = nosup_resize_cq,
	.modify_cq = nosup_modify_cq,
	.destroy_cq = nosup_destroy_cq,
	.create_srq = nosup_create_srq,
	.create_srq_ex = nosup_create_srq_ex,
	.modify_srq = nosup_modify_srq,
	.query_srq = generic_query_srq,
	.destroy_srq = nosup_destroy_srq,
	.post_srq_recv = nosup_post_srq_recv,
	.post_srq_ops = nosup_post_srq_ops,
	.get_srq_num = nosup_get_srq_num,
	.create_qp = generic_create_qp,
	.create_qp_ex = nosup_create_qp_ex,
	.open_qp = nosup_open_qp,
	.query_qp = generic_query_qp,
	.modify_qp = generic_modify_qp,
	.modify_qp_rate_limit = nosup_modify_qp_rate_limit,
	.destroy_qp = nosup_destroy_qp,
	.post_send = nosup_post_send,
	.post_recv = nosup_post_recv,
	.create_ah = nosup_create_ah,
	.destroy_ah = nosup_destroy_ah,
	.attach_mcast = generic_attach_mcast,
	.detach_mcast = generic_detach_mcast,
	.open_xrcd = nosup_open_xrcd,
	.close_xrcd = nosup_close_xrcd,
	.create_wq = nosup_create_wq,
	.modify_wq = nosup_modify_wq,
	.destroy_wq = nosup_destroy_wq,
	.create_rwq_ind_table = nosup_create_rwq_ind_table,
	.destroy_rwq_ind_table = nosup_destroy_rwq_ind_table,
	.create_flow = nosup_create_flow,
	.destroy_flow = nosup_destroy_flow,
	.create_counters = nosup_create_counters,
	.destroy_counters = nosup_destroy_counters,
	.attach_counters_point_flow = nosup_attach_counters_point_flow,
	.read_counters = nosup_read_counters,
	.alloc_dm = nosup_alloc_dm,
	.free_dm = nosup_free_dm,
	.reg_dm_mr = nosup_reg_dm_mr,
	.create_flow_action_esp = nosup_create_flow_action_esp,
	.modify_flow_action_esp = nosup_modify_flow_action_esp,
	.destroy_flow_action = nosup_destroy_flow_action,
	.query_ece = nosup_query_ece,
	.set_ece = nosup_set_ece,
	.query_qp_data_in_order = none_query_qp_data_in_order,
	.import_pd = nosup_import_pd,
	.unimport_pd = nop_unimport_pd,
	.import_mr = nosup_import_mr,
	.unimport_mr = nop_unimport_mr,
	.import_dm = nosup_import_dm,
	.unimport_dm = nop_unimport_dm,
	.query_port_speed = generic_query_port_speed,
	.reg_mr_ex = generic_reg_mr_ex,
	.alloc_dmah = nosup_alloc_dmah,
	.dealloc_dmah = nosup_dealloc_dmah,
	.alloc_buf = generic_alloc_buf,
	.free_buf = generic_free_buf,
	.dm_export_dmabuf_fd = nosup_dm_export_dmabuf_fd,
	.query_comp_cntr_caps = nosup_query_comp_cntr_caps,
	.create_comp_cntr = nosup_create_comp_cntr,
	.destroy_comp_cntr = nosup_destroy_comp_cntr,
	.set_comp_cntr = nosup_set_comp_cntr,
	.set_err_comp_cntr = nosup_set_err_comp_cntr,
	.inc_comp_cntr = nosup_inc_comp_cntr,
	.inc_err_comp_cntr = nosup_inc_err_comp_cntr,
	.read_comp_cntr = nosup_read_comp_cntr,
	.read_err_comp_cntr = nosup_read_err_comp_cntr,
	.qp_attach_comp_cntr = nosup_qp_attach_comp_cntr,
};

/* Where rdma-core's providers start (verbs_init_context): the same
 * table with every generic command replaced by EOPNOTSUPP. */
static struct sv_context_ops nosup_table(void)
{
	struct sv_context_ops t = sv_default_ops;

	t.query_device_ex = nosup_query_device_ex;
	t.query_port = nosup_query_port;
	t.alloc_pd = nosup_alloc_pd;
	t.dealloc_pd = nosup_dealloc_pd;
	t.reg_mr = nosup_reg_mr;
	t.rereg_mr = nosup_rereg_mr;
	t.dereg_mr = nosup_dereg_mr;
	t.dealloc_mw = nosup_dealloc_mw;
	t.reg_dmabuf_mr = nosup_reg_dmabuf_mr;
	t.query_srq = nosup_query_srq;
	t.create_qp = nosup_create_qp;
	t.query_qp = nosup_query_qp;
	t.modify_qp = nosup_modify_qp;
	t.attach_mcast = nosup_attach_mcast;
	t.detach_mcast = nosup_detach_mcast;
	/* rdma-core answers EOPNOTSUPP for a provider without the op; its
	 * reg_mr_ex and alloc_buf defaults are the ones above */
	t.query_port_speed = nosup_query_port_speed;
	return t;
}

void sv_ops_init_nosup(struct sv_context_ops *ops)
{
	*ops = nosup_table();
}

/* The table is only function pointers of one size, so it can be walked
 * as an array; these asserts keep that true. */
typedef void (*sv_slot_fn)(void);
_Static_assert(sizeof(struct sv_context_ops) % sizeof(sv_slot_fn) == 0,
	       "sv_context_ops must hold only function pointers");
#define SV_OPS_SLOTS (sizeof(struct sv_context_ops) / sizeof(sv_slot_fn))

void sv_ops_merge(struct sv_context_ops *dst, const struct sv_context_ops *src)
{
	sv_slot_fn d[SV_OPS_SLOTS], s[SV_OPS_SLOTS];

	if (!src)
		return;
	memcpy(d, dst, sizeof(d));
	memcpy(s, src, sizeof(s));
	for (size_t i = 0; i < SV_OPS_SLOTS; i++)
		if (s[i])
			d[i] = s[i];
	memcpy(dst, d, sizeof(d));
}

size_t sv_ops_null_slots(const struct sv_context_ops *ops)
{
	sv_slot_fn s[SV_OPS_SLOTS];
	size_t n = 0;

	memcpy(s, ops, sizeof(s));
	for (size_t i = 0; i < SV_OPS_SLOTS; i++)
		if (!s[i])
			n++;
	return n;
}
