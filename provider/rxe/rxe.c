/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Soft-RoCE (rdma_rxe): the provider table. The control path (context,
 * device and port queries, PD, MR, mcast, QP modify and queries) is the
 * core's generic commands, since rxe needs no trailers for them; the data
 * path lives in rxe_cq.c, rxe_qp.c and friends. */
#include "config.h"

#include <string.h>

#include "rxe.h"
#include "rxe_dp.h"

/* Bit 62: the answer is in (so that a kernel with none of the features
 * is asked only once too). */
#define CAPS_KNOWN (1ULL << 62)

int rxe_caps(struct ibv_context *ctx, uint64_t *out)
{
	struct rxe_context *rctx = to_rxe_context(ctx);
	uint64_t caps = atomic_load_explicit(&rctx->caps, memory_order_acquire);
	struct ibv_device_attr_ex attr;
	int ret;

	if (caps & CAPS_KNOWN) {
		*out = caps & ~CAPS_KNOWN;
		return 0;
	}
	memset(&attr, 0, sizeof(attr));
	ret = sv_cmd_query_device_ex(ctx, NULL, &attr, sizeof(attr), NULL);
	if (ret) {
		/* not cached: the next call asks again */
		sv_err("QUERY_DEVICE_EX (what this kernel's rxe can do) failed: %s",
		       strerror(ret));
		return ret;
	}
	caps = CAPS_KNOWN | (attr.device_cap_flags_ex &
			     (RXE_CAP_FLUSH_GLOBAL | RXE_CAP_FLUSH_PERSISTENT |
			      RXE_CAP_ATOMIC_WRITE));
	if (attr.odp_caps.general_caps & IBV_ODP_SUPPORT)
		caps |= RXE_CAP_ODP;
	/* (two threads asking at once store the same answer) */
	atomic_store_explicit(&rctx->caps, caps, memory_order_release);
	*out = caps & ~CAPS_KNOWN;
	return 0;
}

/* ibv_advise_mr: prefetch (for reading, for writing, without faults) the
 * pages of ODP MRs; IB_UVERBS_ADVISE_MR_FLAG_FLUSH waits until they are
 * in. Only a kernel whose rxe has ODP (7.x) implements it: elsewhere the
 * kernel answers EOPNOTSUPP, as it does to rdma-core's librxe (which
 * before 59 has no advise_mr at all: EOPNOTSUPP too). */
static int rxe_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			 uint32_t flags, struct ibv_sge *sg_list,
			 uint32_t num_sge)
{
	uint64_t caps;
	int ret;

	if (!pd || !pd->context) {
		sv_err("ibv_advise_mr needs a PD");
		return EINVAL;
	}
	switch ((int)advice) {
	case IBV_ADVISE_MR_ADVICE_PREFETCH:
	case IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE:
	case IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT:
		break;
	default:
		sv_err("ibv_advise_mr: unknown advice %d", (int)advice);
		return EINVAL;
	}
	if (flags & ~(uint32_t)IBV_ADVISE_MR_FLAG_FLUSH) {
		sv_err("ibv_advise_mr: unknown flags %#x",
		       flags & ~(uint32_t)IBV_ADVISE_MR_FLAG_FLUSH);
		return EINVAL;
	}
	if (!num_sge || !sg_list) {
		sv_err("ibv_advise_mr needs at least one SGE (%u, %p)", num_sge,
		       (void *)sg_list);
		return EINVAL;
	}
	ret = rxe_caps(pd->context, &caps);
	if (ret)
		return ret;
	if (!(caps & RXE_CAP_ODP)) {
		sv_err("ibv_advise_mr: this kernel's rxe has no on-demand paging (7.x has)");
		return EOPNOTSUPP;
	}
	ret = sv_cmd_advise_mr(pd, advice, flags, sg_list, num_sge);
	if (ret)
		sv_err("ADVISE_MR (advice %d, flags %#x, %u SGEs) failed: %s",
		       (int)advice, flags, num_sge, strerror(ret));
	return ret;
}

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
	.advise_mr = rxe_advise_mr,
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
