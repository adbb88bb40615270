/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The context-ops defaults: every slot answers, so a provider fills only
 * what it implements. Most defaults say EOPNOTSUPP; where the uverbs
 * command alone does the whole job (PD, MR, MW dealloc, mcast, device and
 * port queries, QP/SRQ query, QP modify, and ibv_create_qp through a
 * provider's create_qp_ex) the default is the generic
 * command implementation. The functions and the tables are generated
 * from lib/ops_list.h. */
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

/* nosup_<name> for every op whose default is not generic for every
 * provider (lib/ops_list.h's dflt NOSUP or GENERIC), by what it answers. */
#define NOSUP_FN(name, since, dflt, kind, ret, params)                        \
	NOSUP_FN_##dflt(name, kind, ret, params)
#define NOSUP_FN_NOSUP(name, kind, ret, params) NOSUP_##kind(name, ret, params)
#define NOSUP_FN_GENERIC NOSUP_FN_NOSUP
#define NOSUP_FN_GENERIC_ALL(name, kind, ret, params)

#define NOSUP_INT(name, ret, params)                                          \
	static ret nosup_##name params                                        \
	{                                                                     \
		return EOPNOTSUPP;                                            \
	}
#define NOSUP_PTR(name, ret, params)                                          \
	static ret nosup_##name params                                        \
	{                                                                     \
		errno = EOPNOTSUPP;                                           \
		return NULL;                                                  \
	}
/* nothing can have been imported through the defaults, and the core's
 * notices need no answer */
#define NOSUP_VOID(name, ret, params)                                         \
	static ret nosup_##name params                                        \
	{                                                                     \
	}
#define NOSUP_QUIET NOSUP_VOID
#define NOSUP_NEG(name, ret, params)                                          \
	static ret nosup_##name params                                        \
	{                                                                     \
		return -EOPNOTSUPP;                                           \
	}
#define NOSUP_FD(name, ret, params)                                           \
	static ret nosup_##name params                                        \
	{                                                                     \
		errno = EOPNOTSUPP;                                           \
		return -1;                                                    \
	}
/* 0: no in-order guarantee is promised (rdma-core's answer too) */
#define NOSUP_FLAGS(name, ret, params)                                        \
	static ret nosup_##name params                                        \
	{                                                                     \
		return 0;                                                     \
	}
/* written out below */
#define NOSUP_POST(name, ret, params)

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
SV_CONTEXT_OPS(NOSUP_FN)

/* The post verbs by hand, because they differ: post_send and post_recv
 * hand back the first work request in *bad_wr, the SRQ ones leave it as
 * it was (rdma-core's defaults leave it in all four). */
static int nosup_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			   struct ibv_send_wr **bad_wr)
{
	if (bad_wr)
		*bad_wr = wr;
	return EOPNOTSUPP;
}
static int nosup_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			   struct ibv_recv_wr **bad_wr)
{
	if (bad_wr)
		*bad_wr = wr;
	return EOPNOTSUPP;
}
static int nosup_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			       struct ibv_recv_wr **bad_wr)
{
	return EOPNOTSUPP;
}
static int nosup_post_srq_ops(struct ibv_srq *srq, struct ibv_ops_wr *wr,
			      struct ibv_ops_wr **bad_wr)
{
	return EOPNOTSUPP;
}
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
	/* malloc, not calloc: sv_cmd_reg_mr sets every field, and glibc's
	 * calloc (2.36) bypasses the thread cache, so the MR came from the
	 * arena and went back there: 100 instructions more in ibv_reg_mr
	 * and 19 in ibv_dereg_mr (bench/verbs-instr on rxe0) */
	struct sv_mr *mr = malloc(sizeof(*mr));
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

/* ---- the default tables --------------------------------------------------- */

/* Where the built-in providers start: the generic command where there is
 * one, EOPNOTSUPP elsewhere. */
#define DEFAULT_SLOT(name, since, dflt, kind, ret, params)                    \
	.name = DEFAULT_##dflt(name),
#define DEFAULT_NOSUP(name) nosup_##name
#define DEFAULT_GENERIC(name) generic_##name
#define DEFAULT_GENERIC_ALL(name) generic_##name
const struct sv_context_ops sv_default_ops = {
	SV_CONTEXT_OPS(DEFAULT_SLOT)
};

/* Where rdma-core's providers start (verbs_init_context): EOPNOTSUPP but
 * for the defaults rdma-core gives every provider too (reg_mr_ex and
 * alloc_buf go through the provider's own ops). */
#define NOSUP_SLOT(name, since, dflt, kind, ret, params)                      \
	.name = NOSUP_SLOT_##dflt(name),
#define NOSUP_SLOT_NOSUP(name) nosup_##name
#define NOSUP_SLOT_GENERIC(name) nosup_##name
#define NOSUP_SLOT_GENERIC_ALL(name) generic_##name
static const struct sv_context_ops nosup_ops = {
	SV_CONTEXT_OPS(NOSUP_SLOT)
};

void sv_ops_init_nosup(struct sv_context_ops *ops)
{
	*ops = nosup_ops;
}

/* The table is only function pointers of one size, so it can be walked
 * as an array; these asserts keep that true. */
typedef void (*sv_slot_fn)(void);
_Static_assert(sizeof(struct sv_context_ops) % sizeof(sv_slot_fn) == 0,
	       "sv_context_ops must hold only function pointers");
#define SV_OPS_SLOTS (sizeof(struct sv_context_ops) / sizeof(sv_slot_fn))
#define COUNT_OP(...) +1
_Static_assert(SV_OPS_SLOTS == 0 SV_CONTEXT_OPS(COUNT_OP),
	       "sv_context_ops has one slot per op of lib/ops_list.h");
#undef COUNT_OP

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

/* ---- the application-visible tables ----------------------------------------- */

#ifndef SV_PLUGIN_PROVIDER
/* (The plug-ins' contexts are rdma-core's: its core fills these.) */

/* The slots rdma-core 59-64 added in front of query_port, nearest first,
 * as many as the context's verbs_context has (rdma-core's core points them
 * at the ops; nothing in verbs.h reads them). */
static void install_grown(struct verbs_context *v,
			  const struct sv_context_ops *ops, size_t vctx_size)
{
	void (*const grown[SV_VCTX_GROWN_SLOTS])(void) = {
		(void (*)(void))ops->alloc_dmah,
		(void (*)(void))ops->dealloc_dmah,
		(void (*)(void))ops->reg_mr_ex,
		(void (*)(void))ops->dm_export_dmabuf_fd,
		(void (*)(void))ops->alloc_buf,
		(void (*)(void))ops->free_buf,
	};
	char *query_port = (char *)&v->query_port;
	size_t n = vctx_size > SV_VCTX_SIZE_44 ?
			   (vctx_size - SV_VCTX_SIZE_44) / sizeof(void *) : 0;

	for (size_t i = 0; i < n && i < SV_VCTX_GROWN_SLOTS; i++)
		memcpy(query_port - (ptrdiff_t)((i + 1) * sizeof(void *)),
		       &grown[i], sizeof(grown[i]));
}

void sv_context_install_ops(struct verbs_context *v)
{
	struct ibv_context_ops *o = &v->context.ops;
	const struct sv_context_ops *ops = &v->priv->ops;

	/* The hot-path verbs are inline in applications and jump through
	 * ibv_context.ops: straight to the provider. */
	o->alloc_mw = ops->alloc_mw;
	o->bind_mw = ops->bind_mw;
	o->dealloc_mw = ops->dealloc_mw;
	o->poll_cq = ops->poll_cq;
	o->req_notify_cq = ops->req_notify_cq;
	o->post_srq_recv = ops->post_srq_recv;
	o->post_send = ops->post_send;
	o->post_recv = ops->post_recv;

	/* The extended verbs go through the verbs_context slots. Creation
	 * verbs pass through the core, which keeps its bookkeeping. */
	v->query_port = sv_query_port;
	v->advise_mr = ops->advise_mr;
	v->alloc_null_mr = ops->alloc_null_mr;
	v->read_counters = ops->read_counters;
	v->attach_counters_point_flow = ops->attach_counters_point_flow;
	v->create_counters = ops->create_counters;
	v->destroy_counters = ops->destroy_counters;
	v->reg_dm_mr = ops->reg_dm_mr;
	v->alloc_dm = ops->alloc_dm;
	v->free_dm = ops->free_dm;
	v->modify_flow_action_esp = ops->modify_flow_action_esp;
	v->destroy_flow_action = ops->destroy_flow_action;
	v->create_flow_action_esp = ops->create_flow_action_esp;
	v->modify_qp_rate_limit = ops->modify_qp_rate_limit;
	v->alloc_parent_domain = ops->alloc_parent_domain;
	v->dealloc_td = ops->dealloc_td;
	v->alloc_td = ops->alloc_td;
	v->modify_cq = ops->modify_cq;
	v->post_srq_ops = ops->post_srq_ops;
	v->destroy_rwq_ind_table = ops->destroy_rwq_ind_table;
	v->create_rwq_ind_table = ops->create_rwq_ind_table;
	v->destroy_wq = ops->destroy_wq;
	v->modify_wq = ops->modify_wq;
	v->create_wq = ops->create_wq;
	v->query_rt_values = ops->query_rt_values;
	v->create_cq_ex = sv_vctx_create_cq_ex;
	v->query_device_ex = ops->query_device_ex;
	v->ibv_destroy_flow = ops->destroy_flow;
	v->ibv_create_flow = ops->create_flow;
	/* programs built against libibverbs 1.1.8 look for the flow verbs
	 * in these two places */
	v->ABI_placeholder1 = (void (*)(void))ops->create_flow;
	v->ABI_placeholder2 = (void (*)(void))ops->destroy_flow;
	v->open_qp = sv_vctx_open_qp;
	v->create_qp_ex = sv_vctx_create_qp_ex;
	v->get_srq_num = ops->get_srq_num;
	v->create_srq_ex = sv_vctx_create_srq_ex;
	v->open_xrcd = ops->open_xrcd;
	v->close_xrcd = ops->close_xrcd;
	install_grown(v, ops, v->priv->layout->vctx_size);
}
#endif
