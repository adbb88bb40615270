/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The ibv_wr_* send API on rxe QPs created with send_ops_flags.
 *
 * Between wr_start and wr_complete/wr_abort the send queue's lock is held.
 * Each wr_<opcode> call opens a new work request in the batch's scratch
 * struct ibv_send_wr; the wr_set_* calls complete it; the next opcode
 * call (or wr_complete) writes it into the ring through rxe_sq_post_wr,
 * the same checks and the same WQE layout as ibv_post_send. The ring's
 * producer index is only published by wr_complete, so wr_abort, or any
 * error in the batch, simply rewinds the private index: the kernel never
 * saw those WQEs.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rxe_dp.h"

struct rxe_wr_batch {
	struct ibv_send_wr wr;   /* the WR being built */
	int open;                /* wr holds an opcode not yet written */
	int err;                 /* first error of the batch, positive */
	uint32_t start_prod;     /* where the batch began, to rewind */
	uint32_t start_ssn;
	uint32_t max_sge;
	struct ibv_sge *sge;     /* max_sge entries */
	uint8_t *inline_buf;     /* max_inline bytes: inline data is copied
				  * when set, so callers may reuse theirs */
};

static struct rxe_qp *qpx_to_rxe(struct ibv_qp_ex *qpx)
{
	return to_rxe_qp(&qpx->qp_base);
}

static void fail(struct rxe_wr_batch *b, int err)
{
	if (!b->err)
		b->err = err;
}

/* Write the open WR, if any, into the ring. */
static void flush_open(struct rxe_qp *qp)
{
	struct rxe_wr_batch *b = qp->batch;

	if (b->open && !b->err)
		fail(b, rxe_sq_post_wr(qp, &b->wr));
	b->open = 0;
}

static struct ibv_send_wr *open_wr(struct ibv_qp_ex *qpx,
				   enum ibv_wr_opcode opcode)
{
	struct rxe_qp *qp = qpx_to_rxe(qpx);
	struct rxe_wr_batch *b = qp->batch;

	flush_open(qp);
	memset(&b->wr, 0, sizeof(b->wr));
	b->wr.wr_id = qpx->wr_id;
	b->wr.send_flags = qpx->wr_flags;
	b->wr.opcode = opcode;
	b->wr.sg_list = b->sge;
	b->open = 1;
	return &b->wr;
}

/* The WR a setter completes; NULL (and the batch failed) when none. */
static struct ibv_send_wr *open_for_set(struct ibv_qp_ex *qpx)
{
	struct rxe_wr_batch *b = qpx_to_rxe(qpx)->batch;

	if (!b->open) {
		sv_err("QP %#x: ibv_wr_set_* with no work request open",
		       qpx->qp_base.qp_num);
		fail(b, EINVAL);
		return NULL;
	}
	return &b->wr;
}

/* ---- batch ------------------------------------------------------------- */

static void wr_start(struct ibv_qp_ex *qpx)
{
	struct rxe_qp *qp = qpx_to_rxe(qpx);
	struct rxe_wr_batch *b = qp->batch;

	pthread_spin_lock(&qp->sq.lock);
	b->open = 0;
	b->err = 0;
	b->start_prod = qp->sq.prod;
	b->start_ssn = qp->ssn;
	if (!rxe_sq_accepts(qpx->qp_base.state)) {
		sv_err("QP %#x: cannot post sends in state %d (needs RTS)",
		       qpx->qp_base.qp_num, (int)qpx->qp_base.state);
		fail(b, EINVAL);
	}
}

static void rewind_batch(struct rxe_qp *qp)
{
	qp->sq.prod = qp->batch->start_prod;
	qp->ssn = qp->batch->start_ssn;
	qp->batch->open = 0;
}

static int wr_complete(struct ibv_qp_ex *qpx)
{
	struct rxe_qp *qp = qpx_to_rxe(qpx);
	struct rxe_wr_batch *b = qp->batch;
	int ret;

	flush_open(qp);
	ret = b->err;
	if (ret)
		rewind_batch(qp);
	else if (qp->sq.prod != b->start_prod)
		ret = rxe_sq_ring(qp);
	pthread_spin_unlock(&qp->sq.lock);
	return ret;
}

static void wr_abort(struct ibv_qp_ex *qpx)
{
	struct rxe_qp *qp = qpx_to_rxe(qpx);

	rewind_batch(qp);
	pthread_spin_unlock(&qp->sq.lock);
}

/* ---- opcodes ------------------------------------------------------------ */

static void wr_send(struct ibv_qp_ex *qpx)
{
	open_wr(qpx, IBV_WR_SEND);
}

static void wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm_data)
{
	open_wr(qpx, IBV_WR_SEND_WITH_IMM)->imm_data = imm_data;
}

static void wr_send_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	open_wr(qpx, IBV_WR_SEND_WITH_INV)->invalidate_rkey = invalidate_rkey;
}

static void wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey,
			  uint64_t remote_addr)
{
	struct ibv_send_wr *wr = open_wr(qpx, IBV_WR_RDMA_WRITE);

	wr->wr.rdma.rkey = rkey;
	wr->wr.rdma.remote_addr = remote_addr;
}

static void wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
			      uint64_t remote_addr, __be32 imm_data)
{
	struct ibv_send_wr *wr = open_wr(qpx, IBV_WR_RDMA_WRITE_WITH_IMM);

	wr->wr.rdma.rkey = rkey;
	wr->wr.rdma.remote_addr = remote_addr;
	wr->imm_data = imm_data;
}

static void wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey,
			 uint64_t remote_addr)
{
	struct ibv_send_wr *wr = open_wr(qpx, IBV_WR_RDMA_READ);

	wr->wr.rdma.rkey = rkey;
	wr->wr.rdma.remote_addr = remote_addr;
}

static void wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey,
			      uint64_t remote_addr, uint64_t compare,
			      uint64_t swap)
{
	struct ibv_send_wr *wr = open_wr(qpx, IBV_WR_ATOMIC_CMP_AND_SWP);

	wr->wr.atomic.rkey = rkey;
	wr->wr.atomic.remote_addr = remote_addr;
	wr->wr.atomic.compare_add = compare;
	wr->wr.atomic.swap = swap;
}

static void wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey,
				uint64_t remote_addr, uint64_t add)
{
	struct ibv_send_wr *wr = open_wr(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD);

	wr->wr.atomic.rkey = rkey;
	wr->wr.atomic.remote_addr = remote_addr;
	wr->wr.atomic.compare_add = add;
}

static void wr_local_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	open_wr(qpx, IBV_WR_LOCAL_INV)->invalidate_rkey = invalidate_rkey;
}

static void wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw, uint32_t rkey,
		       const struct ibv_mw_bind_info *bind_info)
{
	struct ibv_send_wr *wr = open_wr(qpx, IBV_WR_BIND_MW);

	wr->bind_mw.mw = mw;
	wr->bind_mw.rkey = rkey;
	wr->bind_mw.bind_info = *bind_info;
}

/* ---- setters ------------------------------------------------------------ */

static void wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey, uint64_t addr,
		       uint32_t length)
{
	struct ibv_send_wr *wr = open_for_set(qpx);

	if (!wr)
		return;
	wr->sg_list[0] = (struct ibv_sge){ addr, length, lkey };
	wr->num_sge = 1;
	wr->send_flags &= ~(unsigned int)IBV_SEND_INLINE;
}

static void wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge,
			    const struct ibv_sge *sg_list)
{
	struct rxe_wr_batch *b = qpx_to_rxe(qpx)->batch;
	struct ibv_send_wr *wr = open_for_set(qpx);

	if (!wr)
		return;
	if (num_sge > b->max_sge) {
		sv_err("QP %#x: %zu SGEs, the send queue takes %u",
		       qpx->qp_base.qp_num, num_sge, b->max_sge);
		fail(b, EINVAL);
		return;
	}
	if (num_sge)
		memcpy(wr->sg_list, sg_list, num_sge * sizeof(*sg_list));
	wr->num_sge = (int)num_sge;
	wr->send_flags &= ~(unsigned int)IBV_SEND_INLINE;
}

static void wr_set_inline_data_list(struct ibv_qp_ex *qpx, size_t num_buf,
				    const struct ibv_data_buf *buf_list)
{
	struct rxe_qp *qp = qpx_to_rxe(qpx);
	struct rxe_wr_batch *b = qp->batch;
	struct ibv_send_wr *wr = open_for_set(qpx);
	size_t len = 0;

	if (!wr)
		return;
	for (size_t i = 0; i < num_buf; i++)
		len += buf_list[i].length;
	if (len > qp->sq.max_inline) {
		sv_err("QP %#x: %zu inline bytes, max_inline_data is %u",
		       qpx->qp_base.qp_num, len, qp->sq.max_inline);
		fail(b, EINVAL);
		return;
	}
	len = 0;
	for (size_t i = 0; i < num_buf; i++) {
		memcpy(b->inline_buf + len, buf_list[i].addr,
		       buf_list[i].length);
		len += buf_list[i].length;
	}
	wr->sg_list[0] = (struct ibv_sge){ (uintptr_t)b->inline_buf,
					   (uint32_t)len, 0 };
	wr->num_sge = len ? 1 : 0;
	wr->send_flags |= IBV_SEND_INLINE;
}

static void wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr,
			       size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	wr_set_inline_data_list(qpx, 1, &buf);
}

static void wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah,
			   uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct ibv_send_wr *wr = open_for_set(qpx);

	if (!wr)
		return;
	wr->wr.ud.ah = ah;
	wr->wr.ud.remote_qpn = remote_qpn;
	wr->wr.ud.remote_qkey = remote_qkey;
}

/* ---- setup -------------------------------------------------------------- */

uint64_t rxe_qp_ex_ops(enum ibv_qp_type type)
{
	const uint64_t sends = IBV_QP_EX_WITH_SEND |
			       IBV_QP_EX_WITH_SEND_WITH_IMM;
	const uint64_t uc = sends | IBV_QP_EX_WITH_RDMA_WRITE |
			    IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
			    IBV_QP_EX_WITH_BIND_MW |
			    IBV_QP_EX_WITH_SEND_WITH_INV;

	switch (type) {
	case IBV_QPT_RC:
		return uc | IBV_QP_EX_WITH_RDMA_READ |
		       IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
		       IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
		       IBV_QP_EX_WITH_LOCAL_INV;
	case IBV_QPT_UC:
		return uc;
	case IBV_QPT_UD:
		return sends;
	default:
		return 0;
	}
}

int rxe_qp_ex_init(struct rxe_qp *qp)
{
	struct ibv_qp_ex *qpx = &qp->core.qp_ex;
	struct rxe_wr_batch *b;

	b = calloc(1, sizeof(*b));
	if (!b)
		return ENOMEM;
	b->max_sge = qp->sq.max_sge ? qp->sq.max_sge : 1;
	b->sge = calloc(b->max_sge, sizeof(*b->sge));
	b->inline_buf = malloc(qp->sq.max_inline ? qp->sq.max_inline : 1);
	if (!b->sge || !b->inline_buf) {
		free(b->sge);
		free(b->inline_buf);
		free(b);
		return ENOMEM;
	}
	qp->batch = b;

	qpx->wr_start = wr_start;
	qpx->wr_complete = wr_complete;
	qpx->wr_abort = wr_abort;
	qpx->wr_send = wr_send;
	qpx->wr_send_imm = wr_send_imm;
	qpx->wr_send_inv = wr_send_inv;
	qpx->wr_rdma_write = wr_rdma_write;
	qpx->wr_rdma_write_imm = wr_rdma_write_imm;
	qpx->wr_rdma_read = wr_rdma_read;
	qpx->wr_atomic_cmp_swp = wr_atomic_cmp_swp;
	qpx->wr_atomic_fetch_add = wr_atomic_fetch_add;
	qpx->wr_local_inv = wr_local_inv;
	qpx->wr_bind_mw = wr_bind_mw;
	qpx->wr_set_sge = wr_set_sge;
	qpx->wr_set_sge_list = wr_set_sge_list;
	qpx->wr_set_inline_data = wr_set_inline_data;
	qpx->wr_set_inline_data_list = wr_set_inline_data_list;
	qpx->wr_set_ud_addr = wr_set_ud_addr;
	qp->core.comp_mask |= SV_QP_EX;
	return 0;
}

void rxe_qp_ex_fini(struct rxe_qp *qp)
{
	if (!qp->batch)
		return;
	free(qp->batch->sge);
	free(qp->batch->inline_buf);
	free(qp->batch);
	qp->batch = NULL;
}
