/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The verbs of IBVERBS_1.15-1.18 (rdma-core 59-65) but the registrations
 * (ibv_reg_mr_ex, ibv_reg_buf_mr: lib/mr.c): DMA handles, the port's
 * effective speed, device-memory dma-bufs, buffers for ibv_reg_buf_mr and
 * completion counters. Each validates its arguments and dispatches
 * through the context's ops: the built-in providers answer what the
 * kernel can do for rxe and siw (a port speed when the kernel reports
 * one, page-aligned buffers) and EOPNOTSUPP for the hardware features
 * (DMA handles, counters); an rdma-core provider that has the op answers
 * itself. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "core.h"

static inline struct sv_context_ops *ops_of(struct ibv_context *ctx)
{
	return &sv_priv(ctx)->ops;
}

static int valid_ctx(struct ibv_context *ctx)
{
	return ctx && ctx->abi_compat == __VERBS_ABI_IS_EXTENDED;
}

static void *fail_ptr(int err)
{
	errno = err;
	return NULL;
}

/* ---- IBVERBS_1.15: DMA handles ------------------------------------------------ */

#define SV_DMAH_MASK_KNOWN                                                     \
	(IBV_DMAH_INIT_ATTR_MASK_CPU_ID | IBV_DMAH_INIT_ATTR_MASK_PH |         \
	 IBV_DMAH_INIT_ATTR_MASK_TPH_MEM_TYPE)

SV_EXPORT struct ibv_dmah *ibv_alloc_dmah(struct ibv_context *context,
					  struct ibv_dmah_init_attr *attr)
{
	struct ibv_dmah *dmah;

	if (!valid_ctx(context) || !attr) {
		sv_err("ibv_alloc_dmah: NULL or foreign context, or no attributes");
		return fail_ptr(EINVAL);
	}
	if (attr->comp_mask & ~(uint32_t)SV_DMAH_MASK_KNOWN) {
		sv_err("ibv_alloc_dmah: unknown comp_mask bits %#x",
		       attr->comp_mask & ~(uint32_t)SV_DMAH_MASK_KNOWN);
		return fail_ptr(EOPNOTSUPP);
	}
	dmah = ops_of(context)->alloc_dmah(context, attr);
	if (!dmah) {
		sv_dbg("%s: ibv_alloc_dmah: %s", context->device->name,
		       strerror(errno));
		return NULL;
	}
	dmah->context = context;
	return dmah;
}

SV_EXPORT int ibv_dealloc_dmah(struct ibv_dmah *dmah)
{
	if (!dmah || !valid_ctx(dmah->context))
		return EINVAL;
	return ops_of(dmah->context)->dealloc_dmah(dmah);
}

/* ---- IBVERBS_1.16: port speed, device-memory dma-bufs ----------------------- */

SV_EXPORT int ibv_query_port_speed(struct ibv_context *context,
				   uint32_t port_num, uint64_t *port_speed)
{
	uint64_t speed = 0;
	int ret;

	if (!valid_ctx(context) || !port_speed) {
		sv_err("ibv_query_port_speed: NULL or foreign context, or no result");
		return EINVAL;
	}
	if (!port_num || port_num > 255) {
		sv_err("ibv_query_port_speed: no port %u", port_num);
		return EINVAL;
	}
	ret = ops_of(context)->query_port_speed(context, port_num, &speed);
	if (ret)
		return ret;
	*port_speed = speed;
	return 0;
}

/* the fd, or -1 with errno */
SV_EXPORT int ibv_dm_export_dmabuf_fd(struct ibv_dm *dm)
{
	if (!dm || !valid_ctx(dm->context)) {
		errno = EINVAL;
		return -1;
	}
	return ops_of(dm->context)->dm_export_dmabuf_fd(dm);
}

/* ---- IBVERBS_1.17/1.18: buffers ------------------------------------------------ */

static int valid_pd(struct ibv_pd *pd)
{
	return pd && valid_ctx(pd->context);
}

SV_EXPORT void *ibv_alloc_buf(struct ibv_pd *pd, size_t size,
			      struct ibv_buf **buf)
{
	struct ibv_buf *b = NULL;
	void *addr;

	if (!valid_pd(pd) || !buf) {
		sv_err("ibv_alloc_buf: NULL or foreign protection domain, or nowhere to put the handle");
		return fail_ptr(EINVAL);
	}
	if (!size) {
		sv_err("ibv_alloc_buf: size 0");
		return fail_ptr(EINVAL);
	}
	addr = ops_of(pd->context)->alloc_buf(pd, size, &b);
	if (!addr) {
		sv_dbg("ibv_alloc_buf of %zu bytes: %s", size, strerror(errno));
		return NULL;
	}
	*buf = b;
	sv_dbg("ibv_alloc_buf: %zu bytes at %p%s", size, addr,
	       b->dmabuf_fd >= 0 ? " (a dma-buf)" : "");
	return addr;
}

SV_EXPORT void ibv_free_buf(struct ibv_buf *buf)
{
	if (!buf || !valid_pd(buf->pd)) {
		sv_err("ibv_free_buf: not a buffer of ibv_alloc_buf");
		return;
	}
	ops_of(buf->pd->context)->free_buf(buf);
}

/* A new fd of the buffer's dma-buf (the caller closes it), or -1 with
 * errno: ENODATA for a buffer of plain memory. */
SV_EXPORT int ibv_export_buf_dmabuf_fd(struct ibv_buf *buf)
{
	if (!buf) {
		errno = EINVAL;
		return -1;
	}
	if (buf->dmabuf_fd < 0) {
		sv_dbg("ibv_export_buf_dmabuf_fd: the buffer is plain memory, no dma-buf");
		errno = ENODATA;
		return -1;
	}
	return fcntl(buf->dmabuf_fd, F_DUPFD_CLOEXEC, 0);
}

/* ---- IBVERBS_1.18: completion counters --------------------------------------- */

SV_EXPORT int _ibv_query_comp_cntr_caps(struct ibv_context *context,
					struct ibv_comp_cntr_caps *caps,
					size_t caps_size)
{
	if (!valid_ctx(context) || !caps)
		return EINVAL;
	/* a caller's older, shorter struct is filled as far as it goes */
	memset(caps, 0, caps_size);
	return ops_of(context)->query_comp_cntr_caps(context, caps, caps_size);
}

SV_EXPORT struct ibv_comp_cntr *
ibv_create_comp_cntr(struct ibv_context *context,
		     struct ibv_comp_cntr_init_attr *cc_attr)
{
	struct ibv_comp_cntr *cc;

	if (!valid_ctx(context) || !cc_attr) {
		sv_err("ibv_create_comp_cntr: NULL or foreign context, or no attributes");
		return fail_ptr(EINVAL);
	}
	cc = ops_of(context)->create_comp_cntr(context, cc_attr);
	if (!cc) {
		sv_dbg("%s: ibv_create_comp_cntr: %s", context->device->name,
		       strerror(errno));
		return NULL;
	}
	cc->context = context;
	return cc;
}

static int valid_cc(struct ibv_comp_cntr *cc)
{
	return cc && valid_ctx(cc->context);
}

SV_EXPORT int ibv_destroy_comp_cntr(struct ibv_comp_cntr *comp_cntr)
{
	if (!valid_cc(comp_cntr))
		return EINVAL;
	return ops_of(comp_cntr->context)->destroy_comp_cntr(comp_cntr);
}

SV_EXPORT int ibv_set_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t value)
{
	if (!valid_cc(comp_cntr))
		return EINVAL;
	return ops_of(comp_cntr->context)->set_comp_cntr(comp_cntr, value);
}

SV_EXPORT int ibv_set_err_comp_cntr(struct ibv_comp_cntr *comp_cntr,
				    uint64_t value)
{
	if (!valid_cc(comp_cntr))
		return EINVAL;
	return ops_of(comp_cntr->context)->set_err_comp_cntr(comp_cntr, value);
}

SV_EXPORT int ibv_inc_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t amount)
{
	if (!valid_cc(comp_cntr))
		return EINVAL;
	return ops_of(comp_cntr->context)->inc_comp_cntr(comp_cntr, amount);
}

SV_EXPORT int ibv_inc_err_comp_cntr(struct ibv_comp_cntr *comp_cntr,
				    uint64_t amount)
{
	if (!valid_cc(comp_cntr))
		return EINVAL;
	return ops_of(comp_cntr->context)->inc_err_comp_cntr(comp_cntr, amount);
}

SV_EXPORT int ibv_read_comp_cntr(struct ibv_comp_cntr *comp_cntr,
				 uint64_t *value)
{
	if (!valid_cc(comp_cntr) || !value)
		return EINVAL;
	return ops_of(comp_cntr->context)->read_comp_cntr(comp_cntr, value);
}

SV_EXPORT int ibv_read_err_comp_cntr(struct ibv_comp_cntr *comp_cntr,
				     uint64_t *value)
{
	if (!valid_cc(comp_cntr) || !value)
		return EINVAL;
	return ops_of(comp_cntr->context)->read_err_comp_cntr(comp_cntr, value);
}

#define SV_COMP_CNTR_OPS                                                       \
	(IBV_QP_ATTACH_COMP_CNTR_OP_SEND | IBV_QP_ATTACH_COMP_CNTR_OP_RECV |   \
	 IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_READ |                                \
	 IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ |                         \
	 IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE |                               \
	 IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE)

SV_EXPORT int ibv_qp_attach_comp_cntr(struct ibv_qp *qp,
				      struct ibv_comp_cntr *comp_cntr,
				      struct ibv_qp_attach_comp_cntr_attr *attr)
{
	if (!qp || !valid_ctx(qp->context) || !valid_cc(comp_cntr) || !attr ||
	    comp_cntr->context != qp->context)
		return EINVAL;
	if (attr->op_mask & ~(uint32_t)SV_COMP_CNTR_OPS) {
		sv_err("ibv_qp_attach_comp_cntr: unknown op bits %#x",
		       attr->op_mask & ~(uint32_t)SV_COMP_CNTR_OPS);
		return EINVAL;
	}
	return ops_of(qp->context)->qp_attach_comp_cntr(qp, comp_cntr, attr);
}
