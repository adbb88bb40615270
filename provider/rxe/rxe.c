/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Soft-RoCE (rdma_rxe): the provider table. The control path (context,
 * device and port queries, PD, MR, mcast, QP modify and queries) is the
 * core's generic commands, since rxe needs no trailers for them; the data
 * path lives in rxe_cq.c, rxe_qp.c and friends. */
#include "config.h"

#include "rxe.h"
#include "rxe_dp.h"

static const struct sv_context_ops rxe_ctx_ops = {
	/* the data path (rxe_dp.h) */
	.create_cq = rxe_create_cq,
	.create_cq_ex = rxe_create_cq_ex,
	.poll_cq = rxe_poll_cq,
	.req_notify_cq = rxe_req_notify_cq,
	.resize_cq = rxe_resize_cq,
	.destroy_cq = rxe_destroy_cq,
	.create_qp_ex = rxe_create_qp_ex,
	.destroy_qp = rxe_destroy_qp,
	.post_send = rxe_post_send,
	.post_recv = rxe_post_recv,
	.create_srq = rxe_create_srq,
	.create_srq_ex = rxe_create_srq_ex,
	.modify_srq = rxe_modify_srq,
	.destroy_srq = rxe_destroy_srq,
	.post_srq_recv = rxe_post_srq_recv,
	.create_ah = rxe_create_ah,
	.destroy_ah = rxe_destroy_ah,
	.alloc_mw = rxe_alloc_mw,
	.bind_mw = rxe_bind_mw,
	.dealloc_mw = rxe_dealloc_mw,
};

static const char *const rxe_names[] = { "rxe", NULL };

const struct sv_provider rxe_provider = {
	.name = "rxe",
	.driver_id = RDMA_DRIVER_RXE,
	.names = rxe_names,
	/* RXE_UVERBS_ABI_VERSION: 1 before the mmap layout settled, 2 since */
	.abi_min = 1,
	.abi_max = 2,
	.context_size = sizeof(struct rxe_context),
	/* GET_CONTEXT carries no rxe trailers: the core's plain one */
	.alloc_context = NULL,
	.free_context = NULL,
	.ops = &rxe_ctx_ops,
};
