/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rxe completion queues: the kernel writes struct ib_uverbs_wc entries
 * into a mapped ring; polling reads them without a system call. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rxe_dp.h"

/* A CQE is a struct ib_uverbs_wc, laid out as struct ibv_wc: polling
 * copies it whole and fixes the one field the two encode differently. */
_Static_assert(sizeof(struct ib_uverbs_wc) == sizeof(struct ibv_wc) &&
		       offsetof(struct ib_uverbs_wc, wc_flags) ==
			       offsetof(struct ibv_wc, wc_flags) &&
		       offsetof(struct ib_uverbs_wc, ex) ==
			       offsetof(struct ibv_wc, imm_data) &&
		       offsetof(struct ib_uverbs_wc, qp_num) ==
			       offsetof(struct ibv_wc, qp_num) &&
		       offsetof(struct ib_uverbs_wc, pkey_index) ==
			       offsetof(struct ibv_wc, pkey_index) &&
		       offsetof(struct ib_uverbs_wc, dlid_path_bits) ==
			       offsetof(struct ibv_wc, dlid_path_bits),
	       "ib_uverbs_wc and ibv_wc share their layout");
_Static_assert(IBV_WC_GRH == 1 && IBV_WC_WITH_IMM == 2 &&
		       IBV_WC_IP_CSUM_OK == 4 && IBV_WC_WITH_INV == 8,
	       "rxe_wc_flags swaps bits 2 and 3");

/* After the CREATE_CQ command: map the ring. 0 or a positive errno (the caller
 * destroys the CQ). */
static int map_cq(struct rxe_cq *cq, struct ibv_context *ctx,
		  const struct rxe_create_cq_resp *resp)
{
	int ret = rxe_queue_map(&cq->q, ctx->cmd_fd, &resp->mi);

	if (ret)
		return ret;
	if (rxe_queue_elem_size(&cq->q) < sizeof(struct ib_uverbs_wc)) {
		sv_err("CQ elements of %zu bytes cannot hold a completion",
		       rxe_queue_elem_size(&cq->q));
		rxe_queue_unmap(&cq->q);
		return EPROTO;
	}
	cq->cons = rxe_queue_read_cons(&cq->q);
	cq->probe_dev = ctx->device->name;
	sv_lock_init(&cq->lock);
	return 0;
}

struct ibv_cq *rxe_create_cq(struct ibv_context *ctx, int cqe,
			     struct ibv_comp_channel *channel, int comp_vector)
{
	struct rxe_create_cq_resp resp;
	struct sv_udata udata = { .resp = &resp, .resp_len = sizeof(resp) };
	struct rxe_cq *cq;
	int ret;

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	memset(&resp, 0, sizeof(resp));
	ret = sv_cmd_create_cq(ctx, cqe, channel, comp_vector, &cq->core,
			       &udata);
	if (ret) {
		sv_err("CREATE_CQ with %d entries failed: %s", cqe,
		       strerror(ret));
		goto err_free;
	}
	ret = map_cq(cq, ctx, &resp);
	if (ret)
		goto err_destroy;
	return &cq->core.cq;

err_destroy:
	sv_cmd_destroy_cq(&cq->core.cq);
err_free:
	free(cq);
	errno = ret;
	return NULL;
}

/* The poll_cq probe, for the CQE a poll takes: every argument is a
 * field in memory. */
#define RXE_CQE_PROBE(cq, cqe)                                                 \
	SV_PROBE(softverbs, poll_cq, (cq)->probe_dev, (cq)->core.cq.handle,    \
		 (cqe)->qp_num, (cqe)->wr_id, (cqe)->status, (cqe)->opcode,    \
		 (cqe)->byte_len)

/* One CQE into *wc: one 48-byte block (struct ib_uverbs_wc is laid out
 * as ibv_wc), then the flags when the kernel set more than GRH/WITH_IMM
 * (rdma-core copies the kernel's flags unchanged and so reports a
 * received invalidation as IBV_WC_IP_CSUM_OK). */
static inline __attribute__((always_inline)) void
copy_cqe(const struct rxe_cq *cq, struct ibv_wc *wc,
	 const struct rxe_queue_buf *buf, uint32_t cons, uint32_t log2)
{
	const struct ib_uverbs_wc *cqe =
		(const void *)(buf->data + ((size_t)cons << log2));
	const uint32_t k = cqe->wc_flags;

	memcpy(wc, cqe, sizeof(*wc));
	if (__builtin_expect(k > 3, 0))
		wc->wc_flags = rxe_wc_flags(k);
	RXE_CQE_PROBE(cq, cqe);
}

/* The end of every poll that took n > 0 CQEs: our index, then one
 * release for the whole batch (the kernel only needs to see the slots
 * free before it wraps round to them), then the lock. */
static inline __attribute__((always_inline)) int
poll_done(struct rxe_cq *cq, struct rxe_queue_buf *buf, uint32_t cons, int n)
{
	cq->cons = cons;
	atomic_store_explicit((_Atomic uint32_t *)&buf->consumer_index, cons,
			      memory_order_release);
	sv_unlock(&cq->lock);
	return n;
}

/* More than one CQE to take (n of them); cq->lock held. */
static int __attribute__((noinline))
poll_many(struct rxe_cq *cq, struct rxe_queue_buf *buf, struct ibv_wc *wc,
	  uint32_t n)
{
	const uint32_t mask = cq->q.mask, log2 = cq->q.log2_elem;
	uint32_t cons = cq->cons;

	for (uint32_t i = 0; i < n; i++) {
		copy_cqe(cq, &wc[i], buf, cons, log2);
		cons = (cons + 1) & mask;
	}
	return poll_done(cq, buf, cons, (int)n);
}

/* rxe_poll_cq for num_entries > 0; one: num_entries is 1 (a constant,
 * so that the common call tests nothing about how many to take). */
static inline __attribute__((always_inline)) int
poll_cq(struct rxe_cq *cq, int num_entries, struct ibv_wc *wc, const int one)
{
	struct rxe_queue_buf *buf;
	uint32_t cons, avail;

	sv_lock(&cq->lock);
	/* locals: the stores into wc[] could alias cq as far as the
	 * compiler knows */
	buf = cq->q.buf;
	if (__builtin_expect(!buf, 0)) {
		sv_unlock(&cq->lock);
		/* lost its ring in a failed resize */
		return -SV_PROBE_ERR("ibv_poll_cq", EIO);
	}
	cons = cq->cons;
	avail = (atomic_load_explicit((_Atomic uint32_t *)&buf->producer_index,
				      memory_order_acquire) -
		 cons) & cq->q.mask;
	if (!avail) {
		sv_unlock(&cq->lock);
		return 0;
	}
	if (!one && __builtin_expect(avail > 1 && num_entries > 1, 0))
		return poll_many(cq, buf, wc,
				 avail < (uint32_t)num_entries ?
					 avail :
					 (uint32_t)num_entries);
	copy_cqe(cq, wc, buf, cons, cq->q.log2_elem);
	return poll_done(cq, buf, (cons + 1) & cq->q.mask, 1);
}

int rxe_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct rxe_cq *cq = to_rxe_cq(ibcq);

	if (num_entries == 1)
		return poll_cq(cq, 1, wc, 1);
	if (__builtin_expect(num_entries <= 0, 0))
		return 0;
	return poll_cq(cq, num_entries, wc, 0);
}

int rxe_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	return sv_cmd_req_notify_cq(cq, solicited_only);
}

int rxe_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct rxe_cq *cq = to_rxe_cq(ibcq);
	struct rxe_resize_cq_resp resp;
	struct sv_udata udata = { .resp = &resp, .resp_len = sizeof(resp) };
	struct rxe_queue fresh;
	int ret;

	memset(&resp, 0, sizeof(resp));
	/* Held across the command: the kernel copies the unread entries
	 * into the new ring, so nobody may consume from the old one
	 * meanwhile. */
	sv_lock(&cq->lock);
	ret = sv_cmd_resize_cq(ibcq, cqe, &udata);
	if (ret) {
		sv_unlock(&cq->lock);
		sv_err("RESIZE_CQ to %d entries failed: %s", cqe,
		       strerror(ret));
		return ret;
	}
	ret = rxe_queue_map(&fresh, ibcq->context->cmd_fd, &resp.mi);
	rxe_queue_unmap(&cq->q);
	if (!ret) {
		cq->q = fresh;
		cq->cons = rxe_queue_read_cons(&cq->q);
	}
	sv_unlock(&cq->lock);
	return ret;
}

int rxe_destroy_cq(struct ibv_cq *ibcq)
{
	struct rxe_cq *cq = to_rxe_cq(ibcq);
	int ret;

	ret = sv_cmd_destroy_cq(ibcq);
	if (ret)
		return ret;
	rxe_queue_unmap(&cq->q);
	free(cq);
	return 0;
}

/* ---- the ex poll API (ibv_create_cq_ex) ------------------------------------
 * start_poll takes the lock and leaves it held until end_poll; cq->cur is
 * the entry the read_* accessors describe. A CQE is taken as soon as it
 * is loaded: cq->cons steps past it at once, so next_poll and end_poll
 * have nothing to step past, and the kernel sees the slots free only at
 * end_poll's release (the lock is held all that time, so nobody else
 * sees cq->cons either). */

static struct rxe_cq *cqx_to_rxe(struct ibv_cq_ex *cqx)
{
	return to_rxe_cq(ibv_cq_ex_to_cq(cqx));
}

static const struct ib_uverbs_wc *cur_of(struct ibv_cq_ex *cqx)
{
	return cqx_to_rxe(cqx)->cur;
}

/* Take the oldest unread CQE of buf (cq's ring) into cq->cur and the
 * cq_ex's wr_id and status: 0, or ENOENT when the ring is empty (cq->cur
 * unchanged). cq->lock held. Our index and the mask are read once,
 * before the acquire load: read after it, each would be loaded again. */
static inline __attribute__((always_inline)) int
take_cqe(struct rxe_cq *cq, struct rxe_queue_buf *buf)
{
	const uint32_t cons = cq->cons, mask = cq->q.mask;
	const struct ib_uverbs_wc *cqe;

	if (cons == (atomic_load_explicit(
			     (_Atomic uint32_t *)&buf->producer_index,
			     memory_order_acquire) & mask))
		return ENOENT;
	cqe = (const void *)(buf->data + ((size_t)cons << cq->q.log2_elem));
	cq->cons = (cons + 1) & mask;
	cq->cur = cqe;
	cq->core.cq_ex.wr_id = cqe->wr_id;
	cq->core.cq_ex.status = (enum ibv_wc_status)cqe->status;
	RXE_CQE_PROBE(cq, cqe);
	return 0;
}

static int cq_start_poll(struct ibv_cq_ex *cqx, struct ibv_poll_cq_attr *attr)
{
	struct rxe_cq *cq = cqx_to_rxe(cqx);
	struct rxe_queue_buf *buf;

	if (attr->comp_mask) {
		sv_err("ibv_start_poll: comp_mask %#x is not 0", attr->comp_mask);
		return EINVAL;
	}
	sv_lock(&cq->lock);
	buf = cq->q.buf;
	if (__builtin_expect(!buf, 0)) {
		sv_unlock(&cq->lock);
		return SV_PROBE_ERR("ibv_start_poll", EIO);
	}
	if (take_cqe(cq, buf)) {
		/* ENOENT: the caller does not call end_poll */
		sv_unlock(&cq->lock);
		return ENOENT;
	}
	return 0;
}

static int cq_next_poll(struct ibv_cq_ex *cqx)
{
	struct rxe_cq *cq = cqx_to_rxe(cqx);

	return take_cqe(cq, cq->q.buf);
}

/* Hand every CQE taken since start_poll back to the kernel, with one
 * release. */
static void cq_end_poll(struct ibv_cq_ex *cqx)
{
	struct rxe_cq *cq = cqx_to_rxe(cqx);

	rxe_queue_publish_cons(&cq->q, cq->cons);
	sv_unlock(&cq->lock);
}

static enum ibv_wc_opcode cq_read_opcode(struct ibv_cq_ex *cqx)
{
	return (enum ibv_wc_opcode)cur_of(cqx)->opcode;
}

static uint32_t cq_read_vendor_err(struct ibv_cq_ex *cqx)
{
	return cur_of(cqx)->vendor_err;
}

static uint32_t cq_read_byte_len(struct ibv_cq_ex *cqx)
{
	return cur_of(cqx)->byte_len;
}

static __be32 cq_read_imm_data(struct ibv_cq_ex *cqx)
{
	return (__be32)cur_of(cqx)->ex.imm_data;
}

static uint32_t cq_read_qp_num(struct ibv_cq_ex *cqx)
{
	return cur_of(cqx)->qp_num;
}

static uint32_t cq_read_src_qp(struct ibv_cq_ex *cqx)
{
	return cur_of(cqx)->src_qp;
}

static unsigned int cq_read_wc_flags(struct ibv_cq_ex *cqx)
{
	return rxe_wc_flags(cur_of(cqx)->wc_flags);
}

static uint32_t cq_read_slid(struct ibv_cq_ex *cqx)
{
	return cur_of(cqx)->slid;
}

static uint8_t cq_read_sl(struct ibv_cq_ex *cqx)
{
	return cur_of(cqx)->sl;
}

static uint8_t cq_read_dlid_path_bits(struct ibv_cq_ex *cqx)
{
	return cur_of(cqx)->dlid_path_bits;
}

/* What a struct ib_uverbs_wc can answer. */
#define RXE_CQ_EX_FLAGS                                                       \
	(IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM |                       \
	 IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP |                      \
	 IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL |                            \
	 IBV_WC_EX_WITH_DLID_PATH_BITS)

struct ibv_cq_ex *rxe_create_cq_ex(struct ibv_context *ctx,
				   struct ibv_cq_init_attr_ex *attr)
{
	struct rxe_create_cq_resp resp;
	struct sv_udata udata = { .resp = &resp, .resp_len = sizeof(resp) };
	struct ibv_cq_ex *cqx;
	struct rxe_cq *cq;
	int ret;

	if (attr->wc_flags & ~(uint64_t)RXE_CQ_EX_FLAGS) {
		sv_err("rxe completions carry no wc_flags %#llx (timestamps, flow tags...)",
		       (unsigned long long)(attr->wc_flags &
					    ~(uint64_t)RXE_CQ_EX_FLAGS));
		errno = EOPNOTSUPP;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	memset(&resp, 0, sizeof(resp));
	ret = sv_cmd_create_cq_ex(ctx, attr, &cq->core, &udata);
	if (ret) {
		sv_err("CREATE_CQ (ex) with %u entries failed: %s", attr->cqe,
		       strerror(ret));
		goto err_free;
	}
	ret = map_cq(cq, ctx, &resp);
	if (ret)
		goto err_destroy;

	cqx = &cq->core.cq_ex;
	cqx->start_poll = cq_start_poll;
	cqx->next_poll = cq_next_poll;
	cqx->end_poll = cq_end_poll;
	cqx->read_opcode = cq_read_opcode;
	cqx->read_vendor_err = cq_read_vendor_err;
	cqx->read_wc_flags = cq_read_wc_flags;
	if (attr->wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
		cqx->read_byte_len = cq_read_byte_len;
	if (attr->wc_flags & IBV_WC_EX_WITH_IMM)
		cqx->read_imm_data = cq_read_imm_data;
	if (attr->wc_flags & IBV_WC_EX_WITH_QP_NUM)
		cqx->read_qp_num = cq_read_qp_num;
	if (attr->wc_flags & IBV_WC_EX_WITH_SRC_QP)
		cqx->read_src_qp = cq_read_src_qp;
	if (attr->wc_flags & IBV_WC_EX_WITH_SLID)
		cqx->read_slid = cq_read_slid;
	if (attr->wc_flags & IBV_WC_EX_WITH_SL)
		cqx->read_sl = cq_read_sl;
	if (attr->wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS)
		cqx->read_dlid_path_bits = cq_read_dlid_path_bits;
	return cqx;

err_destroy:
	sv_cmd_destroy_cq(&cq->core.cq);
err_free:
	free(cq);
	errno = ret;
	return NULL;
}
