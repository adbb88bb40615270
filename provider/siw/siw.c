/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* soft-iWARP (siw): the provider table and the control path (context,
 * device and port queries, memory registration). The data path lives in
 * siw_cq.c, siw_qp.c and siw_srq.c.
 *
 * iWARP has no address handles, no UD, no atomics and no immediate data;
 * those slots keep the core's EOPNOTSUPP defaults. Connections are made
 * through rdma_cm: the kernel's iw_cm moves the QP to RTS itself. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "siw.h"

static int siw_alloc_context(struct sv_context *sv)
{
	struct siw_context *ctx = container_of(sv, struct siw_context, sv);
	struct siw_uresp_alloc_ctx resp;
	/* siw refuses GET_CONTEXT unless there is room for its response */
	struct sv_udata udata = { .resp = &resp, .resp_len = sizeof(resp) };
	int ret;

	memset(&resp, 0, sizeof(resp));
	ret = sv_cmd_get_context(&sv->vctx.context, &udata);
	if (ret)
		return ret;
	ctx->dev_id = resp.dev_id;
	return 0;
}

/* siw insists on its REG_MR trailers (an 8-bit key it ORs into the STag,
 * and the STag back); without them the command fails with EINVAL. */
static struct ibv_mr *siw_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t hca_va, int access)
{
	struct siw_ureq_reg_mr req;
	struct siw_uresp_reg_mr resp;
	struct sv_udata udata = { .req = &req, .req_len = sizeof(req),
				  .resp = &resp, .resp_len = sizeof(resp) };
	struct sv_mr *mr;
	int ret;

	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return NULL;
	memset(&req, 0, sizeof(req));
	memset(&resp, 0, sizeof(resp));
	ret = sv_cmd_reg_mr(pd, addr, length, hca_va, access, mr, &udata);
	if (ret) {
		sv_err("REG_MR of %zu bytes at %p failed: %s", length, addr,
		       strerror(ret));
		free(mr);
		errno = ret;
		return NULL;
	}
	return &mr->mr;
}

static const struct sv_context_ops siw_ctx_ops = {
	/* PD, dereg: the core's generic commands; rereg: siw has none (the
	 * kernel answers EOPNOTSUPP) */
	.reg_mr = siw_reg_mr,

	.create_cq = siw_create_cq,
	.poll_cq = siw_poll_cq,
	.req_notify_cq = siw_req_notify_cq,
	.destroy_cq = siw_destroy_cq,
	.create_qp = siw_create_qp,
	.destroy_qp = siw_destroy_qp,
	.post_send = siw_post_send,
	.post_recv = siw_post_recv,
	.create_srq = siw_create_srq,
	.modify_srq = siw_modify_srq,
	.destroy_srq = siw_destroy_srq,
	.post_srq_recv = siw_post_srq_recv,
};

static const char *const siw_names[] = { "siw", NULL };

const struct sv_provider siw_provider = {
	.name = "siw",
	.driver_id = RDMA_DRIVER_SIW,
	.names = siw_names,
	.abi_min = SIW_ABI_VERSION,
	.abi_max = SIW_ABI_VERSION,
	.context_size = sizeof(struct siw_context),
	.alloc_context = siw_alloc_context,
	.free_context = NULL,
	.ops = &siw_ctx_ops,
};
