/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The provider command interface (lib/provider.h's sv_cmd_*) over
 * rdma-core 44's exported command helpers (IBVERBS_PRIVATE_34 ibv_cmd_*):
 * the back end the plug-ins link instead of softverbs' own command layer
 * (lib/cmd*.c), so provider/rxe and provider/siw are the same code in
 * both builds.
 *
 * rdma-core's helpers take the provider's request as one buffer: room for
 * the uverbs header (plus the extended header for _ex commands), the core
 * request (which the helper fills from its arguments), then the driver's
 * data; and the reply as the core response followed by the driver's.
 * Each sv_cmd_* below lays out its sv_udata that way on the stack, calls
 * the helper, and hands the driver's part of the reply back. 0 or a
 * positive errno, as both sides promise. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/ib_user_verbs.h>

#include "provider.h"
#include "pabi/abi.h"

/* Room for any request or reply the soft providers send: the largest
 * core struct (ib_uverbs_ex_create_qp_resp, 64 bytes) plus headers and
 * the largest rxe/siw trailer (struct mminfo pairs, under 64 bytes). */
#define PLUG_BUF 512

struct plug_cmd {
	_Alignas(8) unsigned char req[PLUG_BUF];
	_Alignas(8) unsigned char resp[PLUG_BUF];
	size_t req_len, resp_len, resp_core;
};

#define HDR_LEGACY sizeof(struct ib_uverbs_cmd_hdr)
#define HDR_EX (sizeof(struct ib_uverbs_cmd_hdr) + sizeof(struct ib_uverbs_ex_cmd_hdr))

/* Lays out the request (header room hdr, core request core_req bytes,
 * then udata->req) and the reply (core_resp bytes, then udata->resp). */
static int plug_layout(struct plug_cmd *c, size_t hdr, size_t core_req,
		       size_t core_resp, const struct sv_udata *u)
{
	size_t ureq = u && u->req ? u->req_len : 0;
	size_t uresp = u && u->resp ? u->resp_len : 0;

	if (hdr + core_req + ureq > PLUG_BUF || core_resp + uresp > PLUG_BUF) {
		sv_err("driver data too large (%zu request, %zu reply bytes)",
		       ureq, uresp);
		return EINVAL;
	}
	memset(c->req, 0, hdr + core_req);
	if (ureq)
		memcpy(c->req + hdr + core_req, u->req, ureq);
	c->req_len = hdr + core_req + ureq;
	memset(c->resp, 0, core_resp + uresp);
	c->resp_len = core_resp + uresp;
	c->resp_core = core_resp;
	return 0;
}

/* After a successful command: the driver's reply (and the core reply,
 * when asked) back to the provider. */
static void plug_answer(const struct plug_cmd *c, struct sv_udata *u)
{
	if (!u)
		return;
	if (u->resp && u->resp_len)
		memcpy(u->resp, c->resp + c->resp_core, u->resp_len);
	if (u->core_resp && c->resp_core)
		memcpy(u->core_resp, c->resp, c->resp_core);
}

/* ---- context and queries ------------------------------------------------ */

int sv_cmd_get_context(struct ibv_context *ctx, struct sv_udata *udata)
{
	struct verbs_context *vctx =
		container_of(ctx, struct verbs_context, context);
	struct plug_cmd c;
	int ret;

	ret = plug_layout(&c, HDR_LEGACY, sizeof(struct ib_uverbs_get_context),
			  sizeof(struct ib_uverbs_get_context_resp), udata);
	if (ret)
		return ret;
#if SV_PABI_NODE >= 57
	ret = ibv_cmd_get_context(vctx, c.req, c.req_len, NULL, c.resp,
				  c.resp_len);
#else
	ret = ibv_cmd_get_context(vctx, c.req, c.req_len, c.resp, c.resp_len);
#endif
	if (ret)
		return ret;
	plug_answer(&c, udata);
	return 0;
}

/* rdma-core 62's helper when the system's rdma-core has it (its verbs.h
 * then declares ibv_query_port_speed); EOPNOTSUPP before, as there. */
int sv_cmd_query_port_speed(struct ibv_context *ctx, uint32_t port_num,
			    uint64_t *speed)
{
#if SV_PABI_NODE >= 59 && HAVE_DECL_IBV_QUERY_PORT_SPEED
	return ibv_cmd_query_port_speed(ctx, port_num, speed);
#else
	(void)ctx;
	(void)port_num;
	(void)speed;
	return EOPNOTSUPP;
#endif
}

int sv_cmd_query_context(struct ibv_context *ctx)
{
	/* rdma-core's GET_CONTEXT asks for the core support itself */
	(void)ctx;
	return 0;
}

int sv_cmd_query_device_ex(struct ibv_context *ctx,
			   const struct ibv_query_device_ex_input *input,
			   struct ibv_device_attr_ex *attr, size_t attr_size,
			   struct ib_uverbs_ex_query_device_resp *reply)
{
	struct ib_uverbs_ex_query_device_resp r;
	size_t rlen = sizeof(r);
	int ret;

	memset(&r, 0, sizeof(r));
	ret = ibv_cmd_query_device_any(ctx, input, attr, attr_size, &r, &rlen);
	if (ret)
		return ret;
	if (reply)
		*reply = r;
	return 0;
}

/* attr is rdma-core's: its helper fills what its struct has (attr_size
 * is ours, the newest) */
int sv_cmd_query_port(struct ibv_context *ctx, uint8_t port_num,
		      struct ibv_port_attr *attr, size_t attr_size)
{
	struct plug_cmd c;
	int ret;

	(void)attr_size;
	ret = plug_layout(&c, HDR_LEGACY, sizeof(struct ib_uverbs_query_port),
			  0, NULL);
	if (ret)
		return ret;
	return ibv_cmd_query_port(ctx, port_num, attr, c.req, c.req_len);
}

/* ---- PD, MR, MW ------------------------------------------------------------ */

int sv_cmd_alloc_pd(struct ibv_context *ctx, struct ibv_pd *pd,
		    struct sv_udata *udata)
{
	struct plug_cmd c;
	int ret;

	ret = plug_layout(&c, HDR_LEGACY, sizeof(struct ib_uverbs_alloc_pd),
			  sizeof(struct ib_uverbs_alloc_pd_resp), udata);
	if (ret)
		return ret;
	ret = ibv_cmd_alloc_pd(ctx, pd, c.req, c.req_len, c.resp, c.resp_len);
	if (ret)
		return ret;
	plug_answer(&c, udata);
	return 0;
}

int sv_cmd_dealloc_pd(struct ibv_pd *pd)
{
	return ibv_cmd_dealloc_pd(pd);
}

int sv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		  uint64_t hca_va, int access, struct sv_mr *mr,
		  struct sv_udata *udata)
{
	struct plug_cmd c;
	int ret;

	ret = plug_layout(&c, HDR_LEGACY, sizeof(struct ib_uverbs_reg_mr),
			  sizeof(struct ib_uverbs_reg_mr_resp), udata);
	if (ret)
		return ret;
	ret = ibv_cmd_reg_mr(pd, addr, length, hca_va, access,
			     (struct verbs_mr *)mr, c.req, c.req_len, c.resp,
			     c.resp_len);
	if (ret)
		return ret;
	/* rdma-core's ibv_reg_mr sets these after the op; the provider
	 * contract has the helper do it */
	mr->mr.context = pd->context;
	mr->mr.pd = pd;
	mr->mr.addr = addr;
	mr->mr.length = length;
	plug_answer(&c, udata);
	return 0;
}

int sv_cmd_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd,
		    void *addr, size_t length, int access,
		    struct sv_udata *udata)
{
	struct plug_cmd c;
	int ret;

	ret = plug_layout(&c, HDR_LEGACY, sizeof(struct ib_uverbs_rereg_mr),
			  sizeof(struct ib_uverbs_rereg_mr_resp), udata);
	if (ret)
		return ret;
	ret = ibv_cmd_rereg_mr((struct verbs_mr *)mr, (uint32_t)flags, addr,
			       length, (uintptr_t)addr, access, pd, c.req,
			       c.req_len, c.resp, c.resp_len);
	if (ret)
		return ret;
	plug_answer(&c, udata);
	return 0;
}

int sv_cmd_dereg_mr(struct ibv_mr *mr)
{
	return ibv_cmd_dereg_mr((struct verbs_mr *)mr);
}

int sv_cmd_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		     uint32_t flags, const struct ibv_sge *sg_list,
		     uint32_t num_sge)
{
	return ibv_cmd_advise_mr(pd, advice, flags, (struct ibv_sge *)sg_list,
				 num_sge);
}

/* rdma-core 54 and later take an eighth argument (the provider's ioctl
 * attributes); an older one ignores it: passing NULL suits both. */
int sv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
			 uint64_t iova, int fd, int access, struct sv_mr *mr)
{
	return ibv_cmd_reg_dmabuf_mr(pd, offset, length, iova, fd, access,
				     (struct verbs_mr *)mr, NULL);
}

int sv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		    struct ibv_mw *mw, struct sv_udata *udata)
{
	struct plug_cmd c;
	int ret;

	ret = plug_layout(&c, HDR_LEGACY, sizeof(struct ib_uverbs_alloc_mw),
			  sizeof(struct ib_uverbs_alloc_mw_resp), udata);
	if (ret)
		return ret;
	ret = ibv_cmd_alloc_mw(pd, type, mw, c.req, c.req_len, c.resp,
			       c.resp_len);
	if (ret)
		return ret;
	plug_answer(&c, udata);
	return 0;
}

int sv_cmd_dealloc_mw(struct ibv_mw *mw)
{
	return ibv_cmd_dealloc_mw(mw);
}

/* ---- CQ --------------------------------------------------------------------- */

int sv_cmd_create_cq(struct ibv_context *ctx, int cqe,
		     struct ibv_comp_channel *channel, int comp_vector,
		     struct sv_cq *cq, struct sv_udata *udata)
{
	struct plug_cmd c;
	int ret;

	ret = plug_layout(&c, HDR_LEGACY, sizeof(struct ib_uverbs_create_cq),
			  sizeof(struct ib_uverbs_create_cq_resp), udata);
	if (ret)
		return ret;
	ret = ibv_cmd_create_cq(ctx, cqe, channel, comp_vector, &cq->cq,
				c.req, c.req_len, c.resp, c.resp_len);
	if (ret)
		return ret;
	/* rdma-core's ibv_create_cq does the rest (verbs_init_cq) */
	cq->cq.channel = channel;
	plug_answer(&c, udata);
	return 0;
}

int sv_cmd_create_cq_ex(struct ibv_context *ctx,
			const struct ibv_cq_init_attr_ex *attr,
			struct sv_cq *cq, struct sv_udata *udata)
{
	struct plug_cmd c;
	int ret;

	ret = plug_layout(&c, HDR_EX, sizeof(struct ib_uverbs_ex_create_cq),
			  sizeof(struct ib_uverbs_ex_create_cq_resp), udata);
	if (ret)
		return ret;
#if SV_PABI_NODE >= 59
	ret = ibv_cmd_create_cq_ex(ctx, attr, NULL, (struct verbs_cq *)cq,
				   c.req, c.req_len, c.resp, c.resp_len, 0);
#else
	ret = ibv_cmd_create_cq_ex(ctx, attr, (struct verbs_cq *)cq, c.req,
				   c.req_len, c.resp, c.resp_len, 0);
#endif
	if (ret)
		return ret;
	cq->cq.channel = attr->channel;
	plug_answer(&c, udata);
	return 0;
}

int sv_cmd_resize_cq(struct ibv_cq *cq, int cqe, struct sv_udata *udata)
{
	struct plug_cmd c;
	int ret;

	ret = plug_layout(&c, HDR_LEGACY, sizeof(struct ib_uverbs_resize_cq),
			  sizeof(struct ib_uverbs_resize_cq_resp), udata);
	if (ret)
		return ret;
	ret = ibv_cmd_resize_cq(cq, cqe, c.req, c.req_len, c.resp, c.resp_len);
	if (ret)
		return ret;
	plug_answer(&c, udata);
	return 0;
}

int sv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	return ibv_cmd_req_notify_cq(cq, solicited_only);
}

int sv_cmd_destroy_cq(struct ibv_cq *cq)
{
	return ibv_cmd_destroy_cq(cq);
}

/* ---- SRQ ---------------------------------------------------------------------- */

int sv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
		      struct ibv_srq_init_attr *attr, struct sv_udata *udata)
{
	struct plug_cmd c;
	int ret;

	ret = plug_layout(&c, HDR_LEGACY, sizeof(struct ib_uverbs_create_srq),
			  sizeof(struct ib_uverbs_create_srq_resp), udata);
	if (ret)
		return ret;
	ret = ibv_cmd_create_srq(pd, srq, attr, c.req, c.req_len, c.resp,
				 c.resp_len);
	if (ret)
		return ret;
	srq->pd = pd;
	srq->srq_context = attr->srq_context;
	plug_answer(&c, udata);
	return 0;
}

int sv_cmd_create_srq_ex(struct ibv_context *ctx, struct sv_srq *srq,
			 struct ibv_srq_init_attr_ex *attr,
			 struct sv_udata *udata)
{
	struct plug_cmd c;
	int ret;

	ret = plug_layout(&c, HDR_LEGACY, sizeof(struct ib_uverbs_create_xsrq),
			  sizeof(struct ib_uverbs_create_srq_resp), udata);
	if (ret)
		return ret;
	ret = ibv_cmd_create_srq_ex(ctx, (struct verbs_srq *)srq, attr, c.req,
				    c.req_len, c.resp, c.resp_len);
	if (ret)
		return ret;
	plug_answer(&c, udata);
	return 0;
}

int sv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
		      int attr_mask, struct sv_udata *udata)
{
	struct plug_cmd c;
	int ret;

	ret = plug_layout(&c, HDR_LEGACY, sizeof(struct ib_uverbs_modify_srq),
			  0, udata);
	if (ret)
		return ret;
	return ibv_cmd_modify_srq(srq, attr, attr_mask, c.req, c.req_len);
}

int sv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct plug_cmd c;
	int ret;

	ret = plug_layout(&c, HDR_LEGACY, sizeof(struct ib_uverbs_query_srq),
			  0, NULL);
	if (ret)
		return ret;
	return ibv_cmd_query_srq(srq, attr, c.req, c.req_len);
}

int sv_cmd_destroy_srq(struct ibv_srq *srq)
{
	return ibv_cmd_destroy_srq(srq);
}

/* ---- QP ------------------------------------------------------------------------ */

int sv_cmd_create_qp(struct ibv_context *ctx, struct sv_qp *qp,
		     struct ibv_qp_init_attr_ex *attr, struct sv_udata *udata)
{
	struct plug_cmd c;
	int ret;

	ret = plug_layout(&c, HDR_LEGACY, sizeof(struct ib_uverbs_create_qp),
			  sizeof(struct ib_uverbs_create_qp_resp), udata);
	if (ret)
		return ret;
	ret = ibv_cmd_create_qp_ex(ctx, (struct verbs_qp *)qp, attr, c.req,
				   c.req_len, c.resp, c.resp_len);
	if (ret)
		return ret;
	plug_answer(&c, udata);
	return 0;
}

int sv_cmd_create_qp_ex(struct ibv_context *ctx, struct sv_qp *qp,
			struct ibv_qp_init_attr_ex *attr, struct sv_udata *udata)
{
	struct plug_cmd c;
	int ret;

	ret = plug_layout(&c, HDR_EX, sizeof(struct ib_uverbs_ex_create_qp),
			  sizeof(struct ib_uverbs_ex_create_qp_resp), udata);
	if (ret)
		return ret;
#if SV_PABI_NODE >= 64
	ret = ibv_cmd_create_qp_ex2(ctx, (struct verbs_qp *)qp, attr, c.req,
				    c.req_len, c.resp, c.resp_len, NULL);
#else
	ret = ibv_cmd_create_qp_ex2(ctx, (struct verbs_qp *)qp, attr, c.req,
				    c.req_len, c.resp, c.resp_len);
#endif
	if (ret)
		return ret;
	plug_answer(&c, udata);
	return 0;
}

int sv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		    int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct plug_cmd c;
	int ret;

	ret = plug_layout(&c, HDR_LEGACY, sizeof(struct ib_uverbs_query_qp),
			  0, NULL);
	if (ret)
		return ret;
	return ibv_cmd_query_qp(qp, attr, attr_mask, init_attr, c.req,
				c.req_len);
}

int sv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		     int attr_mask, struct sv_udata *udata)
{
	struct plug_cmd c;
	int ret;

	ret = plug_layout(&c, HDR_LEGACY, sizeof(struct ib_uverbs_modify_qp),
			  0, udata);
	if (ret)
		return ret;
	/* rdma-core's helper moves qp->state on success */
	return ibv_cmd_modify_qp(qp, attr, attr_mask, c.req, c.req_len);
}

int sv_cmd_destroy_qp(struct ibv_qp *qp)
{
	return ibv_cmd_destroy_qp(qp);
}

/* ---- AH, multicast ------------------------------------------------------------------ */

int sv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		     struct ibv_ah_attr *attr, struct sv_udata *udata)
{
	struct plug_cmd c;
	int ret;

	/* rdma-core's helper takes no driver request */
	if (udata && udata->req && udata->req_len) {
		sv_err("create_ah: rdma-core sends no driver request");
		return EINVAL;
	}
	ret = plug_layout(&c, 0, 0, sizeof(struct ib_uverbs_create_ah_resp),
			  udata);
	if (ret)
		return ret;
	ret = ibv_cmd_create_ah(pd, ah, attr, c.resp, c.resp_len);
	if (ret)
		return ret;
	ah->context = pd->context;
	ah->pd = pd;
	plug_answer(&c, udata);
	return 0;
}

int sv_cmd_destroy_ah(struct ibv_ah *ah)
{
	return ibv_cmd_destroy_ah(ah);
}

int sv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			uint16_t lid)
{
	return ibv_cmd_attach_mcast(qp, gid, lid);
}

int sv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			uint16_t lid)
{
	return ibv_cmd_detach_mcast(qp, gid, lid);
}
