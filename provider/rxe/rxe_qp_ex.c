/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The ibv_wr_* send API on rxe QPs created with send_ops_flags.
 *
 * Between wr_start and wr_complete/wr_abort the send queue's lock is held.
 * Each wr_<opcode> call opens the next WQE in the ring in place and writes
 * its opcode part; the wr_set_* calls write its data and address; the
 * next opcode call (or wr_complete) checks what only the whole WR can
 * tell and commits it. The producer index is only published by
 * wr_complete, so wr_abort, or any error in the batch, simply rewinds the
 * private index: the kernel never saw those WQEs.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "rxe_dp.h"

static inline struct rxe_qp *qpx_to_rxe(struct ibv_qp_ex *qpx)
{
	return to_rxe_qp(&qpx->qp_base);
}

static void __attribute__((noinline, cold)) fail(struct rxe_wr_batch *b,
						 int err)
{
	if (!b->err)
		b->err = err;
	b->wqe = NULL;
}

/* The checks that need the whole WR, for the WQEs that have any (UD:
 * the address; atomics: 8 local bytes). 0, or the batch failed. */
static int __attribute__((noinline)) close_checks(struct rxe_qp *qp,
						  struct rxe_send_wqe *wqe)
{
	struct rxe_wr_batch *b = &qp->batch;

	b->check = b->ud;
	if (b->ud && !wqe->wr.wr.ud.ah_num) {
		sv_err("QP %#x: a UD work request without ibv_wr_set_ud_addr",
		       qp->core.qp.qp_num);
		fail(b, EINVAL);
		return EINVAL;
	}
	if ((RXE_ATOMIC_OPS & (1u << wqe->wr.opcode)) &&
	    wqe->dma.length < 8) {
		sv_err("QP %#x: atomics need 8 local bytes", qp->core.qp.qp_num);
		fail(b, EINVAL);
		return EINVAL;
	}
	return 0;
}

/* Commit the open WQE, if any (b->wqe), after the checks that need the
 * whole WR when it has any (b->check). */
static inline __attribute__((always_inline)) void
close_wqe(struct rxe_qp *qp, struct rxe_send_wqe *wqe)
{
	struct rxe_wr_batch *b = &qp->batch;

	if (__builtin_expect(b->check, 0) && close_checks(qp, wqe))
		return;
	wqe->ssn = qp->ssn++;
	qp->sq.prod = rxe_queue_next(&qp->sq.q, qp->sq.prod);
	b->wqe = NULL;
	SV_PROBE(rdma_core_rxe, post_send, qp->probe.dev, qp->core.qp.qp_num,
		 qp->probe.opname[wqe->wr.opcode], wqe->dma.length);
}

/* Opening a WQE when it is not the batch's plain case: a WQE still
 * open, a failed batch, an opcode the QP cannot post, a full queue. */
static struct rxe_send_wqe * __attribute__((noinline))
open_wqe_slow(struct rxe_qp *qp, uint32_t opcode)
{
	struct rxe_wr_batch *b = &qp->batch;
	struct rxe_send_wqe *wqe;

	if (b->wqe)
		close_wqe(qp, b->wqe);
	if (b->err)
		return NULL;
	if (!(qp->ops_ok & (1u << opcode))) {
		sv_err("QP %#x: opcode %u is not valid on this QP type (%d)",
		       qp->core.qp.qp_num, opcode, (int)qp->core.qp.qp_type);
		fail(b, EINVAL);
		return NULL;
	}
	wqe = rxe_sq_reserve(qp);
	if (!wqe) {
		sv_dbg("QP %#x: send queue full", qp->core.qp.qp_num);
		fail(b, ENOMEM);
		return NULL;
	}
	return wqe;
}

/* The WQE header from the WR fields of qpx. */
static inline __attribute__((always_inline)) void
wqe_header(struct ibv_qp_ex *qpx, struct rxe_send_wqe *wqe, uint32_t opcode)
{
	struct rxe_wr_batch *b = &qpx_to_rxe(qpx)->batch;

	wqe->wr.wr_id = qpx->wr_id;
	wqe->wr.opcode = opcode;
	wqe->wr.send_flags = qpx->wr_flags & ~(uint32_t)IBV_SEND_INLINE;
	wqe->wr.ex.imm_data = 0;
	if (__builtin_expect(b->check, 0))
		wqe->wr.wr.ud.ah_num = 0; /* until wr_set_ud_addr */
	b->wqe = wqe;
}

/* The plain case of opening the next WQE for opcode (nothing open, the
 * batch fine, the opcode allowed, room in the ring), header written;
 * NULL for anything else, which open_wqe handles. */
static inline __attribute__((always_inline)) struct rxe_send_wqe *
open_wqe_fast(struct ibv_qp_ex *qpx, uint32_t opcode)
{
	struct rxe_qp *qp = qpx_to_rxe(qpx);
	struct rxe_wr_batch *b = &qp->batch;
	struct rxe_send_wqe *wqe;

	if (__builtin_expect((uintptr_t)b->wqe | (uint32_t)b->err, 0) ||
	    __builtin_expect(!(qp->ops_ok & (1u << opcode)), 0) ||
	    __builtin_expect(rxe_queue_next(&qp->sq.q, qp->sq.prod) ==
				     rxe_queue_kernel_cons(&qp->sq.q),
			     0))
		return NULL;
	wqe = rxe_queue_elem(&qp->sq.q, qp->sq.prod);
	memset(&wqe->status, 0,
	       offsetof(struct rxe_send_wqe, dma.sge) -
		       offsetof(struct rxe_send_wqe, status));
	wqe_header(qpx, wqe, opcode);
	return wqe;
}

/* Open the next WQE for opcode and write its header; NULL (and the
 * batch failed) when the QP cannot post it or the queue is full. */
static struct rxe_send_wqe *open_wqe(struct ibv_qp_ex *qpx, uint32_t opcode)
{
	struct rxe_send_wqe *wqe = open_wqe_fast(qpx, opcode);

	if (__builtin_expect(!!wqe, 1))
		return wqe;
	wqe = open_wqe_slow(qpx_to_rxe(qpx), opcode);
	if (wqe)
		wqe_header(qpx, wqe, opcode);
	return wqe;
}

/* The WQE a setter completes; NULL (and the batch failed) when none. */
static struct rxe_send_wqe * __attribute__((noinline, cold))
no_wqe_for_set(struct ibv_qp_ex *qpx)
{
	struct rxe_wr_batch *b = &qpx_to_rxe(qpx)->batch;

	if (!b->err) {
		sv_err("QP %#x: ibv_wr_set_* with no work request open",
		       qpx->qp_base.qp_num);
		fail(b, EINVAL);
	}
	return NULL;
}

/* An ATOMIC WRITE or a FLUSH, the WQEs no ibv_wr_set_sge* or
 * ibv_wr_set_inline_data* may complete: the two highest opcodes a WQE is
 * opened with (the rest are at most IBV_WR_SEND_WITH_INV), so that one
 * comparison tells them. */
_Static_assert(SV_WR_FLUSH + 1 == IBV_WR_ATOMIC_WRITE &&
		       IBV_WR_SEND_WITH_INV < SV_WR_FLUSH &&
		       IBV_WR_BIND_MW < SV_WR_FLUSH &&
		       IBV_WR_LOCAL_INV < SV_WR_FLUSH,
	       "no_data_wqe: ATOMIC WRITE and FLUSH are the highest opcodes");
static inline int no_data_wqe(const struct rxe_send_wqe *wqe)
{
	return wqe->wr.opcode >= SV_WR_FLUSH;
}

static inline struct rxe_send_wqe *open_for_set(struct ibv_qp_ex *qpx)
{
	struct rxe_send_wqe *wqe = qpx_to_rxe(qpx)->batch.wqe;

	if (__builtin_expect(!wqe, 0))
		return no_wqe_for_set(qpx);
	return wqe;
}

/* ---- batch ------------------------------------------------------------- */

static void __attribute__((noinline, cold)) start_refused(struct rxe_qp *qp)
{
	sv_err("QP %#x: cannot post sends in state %d (needs RTS)",
	       qp->core.qp.qp_num, (int)qp->core.qp.state);
	fail(&qp->batch, EINVAL);
}

static void wr_start(struct ibv_qp_ex *qpx)
{
	struct rxe_qp *qp = qpx_to_rxe(qpx);
	struct rxe_wr_batch *b = &qp->batch;

	sv_lock(&qp->sq.lock);
	b->wqe = NULL;
	b->start_prod = qp->sq.prod;
	b->check = b->ud;
	b->err = 0;
	if (__builtin_expect(!rxe_sq_accepts(qpx->qp_base.state), 0))
		start_refused(qp);
}

/* Forget the batch: the kernel never saw its WQEs. */
static void rewind_batch(struct rxe_qp *qp)
{
	qp->ssn -= (qp->sq.prod - qp->batch.start_prod) & qp->sq.q.mask;
	qp->sq.prod = qp->batch.start_prod;
	qp->batch.wqe = NULL;
}

static int __attribute__((noinline)) complete_slow(struct rxe_qp *qp)
{
	struct rxe_wr_batch *b = &qp->batch;
	int ret;

	if (b->wqe)
		close_wqe(qp, b->wqe);
	ret = b->err;
	if (ret) {
		rewind_batch(qp);
		sv_unlock(&qp->sq.lock);
		return SV_PROBE_ERR("ibv_wr_complete", ret);
	}
	if (qp->sq.prod == b->start_prod) {
		sv_unlock(&qp->sq.lock);
		return 0;
	}
	rxe_sq_publish(qp);
	sv_unlock(&qp->sq.lock);
	return rxe_sq_ring(qp);
}

static int wr_complete(struct ibv_qp_ex *qpx)
{
	struct rxe_qp *qp = qpx_to_rxe(qpx);
	struct rxe_wr_batch *b = &qp->batch;
	struct rxe_send_wqe *wqe = b->wqe;
	uint32_t prod;

	/* the plain case: one WQE open, nothing to check, no error */
	if (__builtin_expect(!wqe || b->check, 0))
		return complete_slow(qp);
	wqe->ssn = qp->ssn++;
	prod = rxe_queue_next(&qp->sq.q, qp->sq.prod);
	qp->sq.prod = prod;
	b->wqe = NULL;
	SV_PROBE(rdma_core_rxe, post_send, qp->probe.dev, qp->core.qp.qp_num,
		 qp->probe.opname[wqe->wr.opcode], wqe->dma.length);
	rxe_queue_publish_prod(&qp->sq.q, prod);
	sv_unlock(&qp->sq.lock);
	return rxe_sq_ring(qp);
}

static void wr_abort(struct ibv_qp_ex *qpx)
{
	struct rxe_qp *qp = qpx_to_rxe(qpx);

	rewind_batch(qp);
	sv_unlock(&qp->sq.lock);
}

/* ---- opcodes ------------------------------------------------------------ */

static void __attribute__((noinline)) send_slow(struct ibv_qp_ex *qpx)
{
	open_wqe(qpx, IBV_WR_SEND);
}

static void wr_send(struct ibv_qp_ex *qpx)
{
	if (__builtin_expect(!open_wqe_fast(qpx, IBV_WR_SEND), 0))
		send_slow(qpx);
}

static void wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm_data)
{
	struct rxe_send_wqe *wqe = open_wqe(qpx, IBV_WR_SEND_WITH_IMM);

	if (wqe)
		wqe->wr.ex.imm_data = imm_data;
}

static void wr_send_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct rxe_send_wqe *wqe = open_wqe(qpx, IBV_WR_SEND_WITH_INV);

	if (wqe)
		wqe->wr.ex.invalidate_rkey = invalidate_rkey;
}

static inline void set_rdma(struct rxe_send_wqe *wqe, uint32_t rkey,
			    uint64_t remote_addr)
{
	wqe->wr.wr.rdma.remote_addr = remote_addr;
	wqe->wr.wr.rdma.rkey = rkey;
	wqe->iova = remote_addr;
}

/* The RDMA opcodes past their plain case. */
static void __attribute__((noinline))
rdma_slow(struct ibv_qp_ex *qpx, uint32_t opcode, uint32_t rkey,
	  uint64_t remote_addr)
{
	struct rxe_send_wqe *wqe = open_wqe(qpx, opcode);

	if (wqe)
		set_rdma(wqe, rkey, remote_addr);
}

static void wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey,
			  uint64_t remote_addr)
{
	struct rxe_send_wqe *wqe = open_wqe_fast(qpx, IBV_WR_RDMA_WRITE);

	if (__builtin_expect(!wqe, 0))
		return rdma_slow(qpx, IBV_WR_RDMA_WRITE, rkey, remote_addr);
	set_rdma(wqe, rkey, remote_addr);
}

static void wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
			      uint64_t remote_addr, __be32 imm_data)
{
	struct rxe_send_wqe *wqe = open_wqe(qpx, IBV_WR_RDMA_WRITE_WITH_IMM);

	if (wqe) {
		set_rdma(wqe, rkey, remote_addr);
		wqe->wr.ex.imm_data = imm_data;
	}
}

static void wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey,
			 uint64_t remote_addr)
{
	struct rxe_send_wqe *wqe = open_wqe_fast(qpx, IBV_WR_RDMA_READ);

	if (__builtin_expect(!wqe, 0))
		return rdma_slow(qpx, IBV_WR_RDMA_READ, rkey, remote_addr);
	set_rdma(wqe, rkey, remote_addr);
}

static void set_atomic(struct ibv_qp_ex *qpx, uint32_t opcode, uint32_t rkey,
		       uint64_t remote_addr, uint64_t compare_add,
		       uint64_t swap)
{
	struct rxe_send_wqe *wqe = open_wqe(qpx, opcode);

	if (!wqe)
		return;
	if (remote_addr & 7) {
		sv_err("QP %#x: atomics need an 8-byte aligned remote address",
		       qpx->qp_base.qp_num);
		fail(&qpx_to_rxe(qpx)->batch, EINVAL);
		return;
	}
	wqe->wr.wr.atomic.remote_addr = remote_addr;
	wqe->wr.wr.atomic.compare_add = compare_add;
	wqe->wr.wr.atomic.swap = swap;
	wqe->wr.wr.atomic.rkey = rkey;
	wqe->iova = remote_addr;
	qpx_to_rxe(qpx)->batch.check = 1; /* 8 local bytes, at close */
}

static void wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey,
			      uint64_t remote_addr, uint64_t compare,
			      uint64_t swap)
{
	set_atomic(qpx, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, remote_addr, compare,
		   swap);
}

static void wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey,
				uint64_t remote_addr, uint64_t add)
{
	set_atomic(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, remote_addr, add, 0);
}

/* RDMA ATOMIC WRITE: the 8 bytes at atomic_wr go in the WQE (the
 * kernel's dma.atomic_wr, Debian 12's header calls the same bytes
 * dma.inline_data); no SGE follows. */
static void wr_atomic_write(struct ibv_qp_ex *qpx, uint32_t rkey,
			    uint64_t remote_addr, const void *atomic_wr)
{
	struct rxe_send_wqe *wqe = open_wqe(qpx, IBV_WR_ATOMIC_WRITE);

	if (!wqe)
		return;
	if ((remote_addr & 7) || !atomic_wr) {
		sv_err("QP %#x: ATOMIC WRITE needs an 8-byte aligned remote address and 8 bytes to write (%p)",
		       qpx->qp_base.qp_num, atomic_wr);
		fail(&qpx_to_rxe(qpx)->batch, EINVAL);
		return;
	}
	wqe->wr.wr.rdma.remote_addr = remote_addr;
	wqe->wr.wr.rdma.rkey = rkey;
	wqe->iova = remote_addr;
	memcpy(wqe->dma.inline_data, atomic_wr, 8);
	wqe->dma.length = 8;
	wqe->dma.resid = 8;
	wqe->dma.num_sge = 0;
}

#ifndef SV_PLUGIN_PROVIDER
/* FLUSH (kernel 6.2's rxe): makes the target's earlier writes globally
 * visible (IBV_FLUSH_GLOBAL) or persistent (IBV_FLUSH_PERSISTENT: the MR
 * must be on persistent memory), for the range [remote_addr, +len)
 * (IBV_FLUSH_RANGE) or the whole MR (IBV_FLUSH_MR); no data, its
 * completion IBV_WC_FLUSH. The responder wants the MR registered with
 * IBV_ACCESS_FLUSH_GLOBAL / _PERSISTENT for the type. */
static void wr_flush(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr,
		     size_t len, uint8_t type, uint8_t level)
{
	struct rxe_send_wqe *wqe = open_wqe(qpx, SV_WR_FLUSH);
	struct rxe_flush_wr *f;

	if (!wqe)
		return;
	if (!type || (type & ~(SV_FLUSH_GLOBAL | SV_FLUSH_PERSISTENT)) ||
	    level > SV_FLUSH_MR || len > UINT32_MAX) {
		sv_err("QP %#x: FLUSH with placement type %#x (IBV_FLUSH_GLOBAL 1, IBV_FLUSH_PERSISTENT 2), level %u (IBV_FLUSH_RANGE 0, IBV_FLUSH_MR 1), length %zu",
		       qpx->qp_base.qp_num, type, level, len);
		fail(&qpx_to_rxe(qpx)->batch, EINVAL);
		return;
	}
	f = (struct rxe_flush_wr *)&wqe->wr.wr;
	f->remote_addr = remote_addr;
	f->length = (uint32_t)len;
	f->rkey = rkey;
	f->type = type;
	f->level = level;
	wqe->iova = remote_addr;
	wqe->dma.length = (uint32_t)len;
	wqe->dma.resid = (uint32_t)len;
	wqe->dma.num_sge = 0;
}
#endif

static void __attribute__((noinline, cold))
no_data_setter(struct ibv_qp_ex *qpx)
{
	sv_err("QP %#x: an ATOMIC WRITE carries its 8 bytes itself, a FLUSH none: no ibv_wr_set_sge*",
	       qpx->qp_base.qp_num);
	fail(&qpx_to_rxe(qpx)->batch, EINVAL);
}

static void wr_local_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct rxe_send_wqe *wqe = open_wqe(qpx, IBV_WR_LOCAL_INV);

	if (wqe)
		wqe->wr.ex.invalidate_rkey = invalidate_rkey;
}

static void wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw, uint32_t rkey,
		       const struct ibv_mw_bind_info *bi)
{
	struct rxe_send_wqe *wqe = open_wqe(qpx, IBV_WR_BIND_MW);

	if (!wqe)
		return;
	if (!mw || (bi->length && !bi->mr) || mw->type != IBV_MW_TYPE_2) {
		sv_err("QP %#x: BIND_MW binds a type 2 MW, with an MR for a non-empty range",
		       qpx->qp_base.qp_num);
		fail(&qpx_to_rxe(qpx)->batch, EINVAL);
		return;
	}
	wqe->wr.wr.mw.addr = bi->addr;
	wqe->wr.wr.mw.length = bi->length;
	wqe->wr.wr.mw.mr_lkey = bi->mr ? bi->mr->lkey : 0;
	wqe->wr.wr.mw.mw_rkey = mw->rkey;
	wqe->wr.wr.mw.rkey = rkey;
	wqe->wr.wr.mw.access = bi->mw_access_flags;
}

/* ---- setters ------------------------------------------------------------ */

static void set_len(struct rxe_send_wqe *wqe, uint32_t len, uint32_t nsge)
{
	wqe->dma.length = len;
	wqe->dma.resid = len;
	wqe->dma.num_sge = nsge;
}

static void __attribute__((noinline, cold)) no_sges(struct ibv_qp_ex *qpx)
{
	sv_err("QP %#x: the send queue takes no SGEs", qpx->qp_base.qp_num);
	fail(&qpx_to_rxe(qpx)->batch, EINVAL);
}

static void wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey, uint64_t addr,
		       uint32_t length)
{
	/* open_for_set's test, with every way out a tail call (no frame) */
	struct rxe_send_wqe *wqe = qpx_to_rxe(qpx)->batch.wqe;

	if (__builtin_expect(!wqe, 0)) {
		no_wqe_for_set(qpx);
		return;
	}
	if (__builtin_expect(!qpx_to_rxe(qpx)->sq.max_sge, 0))
		return no_sges(qpx);
	if (__builtin_expect(no_data_wqe(wqe), 0))
		return no_data_setter(qpx);
	wqe->dma.sge[0] = (struct rxe_sge){ .addr = addr, .length = length,
					    .lkey = lkey };
	set_len(wqe, length, 1);
	wqe->wr.send_flags &= ~(uint32_t)IBV_SEND_INLINE;
}

static void wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge,
			    const struct ibv_sge *sg_list)
{
	struct rxe_qp *qp = qpx_to_rxe(qpx);
	struct rxe_send_wqe *wqe = open_for_set(qpx);
	uint64_t len = 0;

	if (!wqe)
		return;
	if (no_data_wqe(wqe))
		return no_data_setter(qpx);
	if (num_sge > qp->sq.max_sge) {
		sv_err("QP %#x: %zu SGEs, the send queue takes %u",
		       qpx->qp_base.qp_num, num_sge, qp->sq.max_sge);
		fail(&qp->batch, EINVAL);
		return;
	}
	for (size_t i = 0; i < num_sge; i++) {
		memcpy(&wqe->dma.sge[i], &sg_list[i], sizeof(struct rxe_sge));
		len += sg_list[i].length;
	}
	if (len > UINT32_MAX) {
		sv_err("QP %#x: a WR of %llu bytes is longer than 2^32-1",
		       qpx->qp_base.qp_num, (unsigned long long)len);
		fail(&qp->batch, EINVAL);
		return;
	}
	set_len(wqe, (uint32_t)len, (uint32_t)num_sge);
	wqe->wr.send_flags &= ~(uint32_t)IBV_SEND_INLINE;
}

static void wr_set_inline_data_list(struct ibv_qp_ex *qpx, size_t num_buf,
				    const struct ibv_data_buf *buf_list)
{
	struct rxe_qp *qp = qpx_to_rxe(qpx);
	struct rxe_send_wqe *wqe = open_for_set(qpx);
	uint8_t *dst;
	size_t len = 0;

	if (!wqe)
		return;
	if (!(RXE_INLINE_OPS & (1u << wqe->wr.opcode))) {
		sv_err("QP %#x: inline data with opcode %u",
		       qpx->qp_base.qp_num, wqe->wr.opcode);
		fail(&qp->batch, EINVAL);
		return;
	}
	for (size_t i = 0; i < num_buf; i++)
		len += buf_list[i].length;
	if (len > qp->sq.max_inline) {
		sv_err("QP %#x: %zu inline bytes, max_inline_data is %u",
		       qpx->qp_base.qp_num, len, qp->sq.max_inline);
		fail(&qp->batch, EINVAL);
		return;
	}
	/* copied now: callers may reuse their buffers at once */
	dst = wqe->dma.inline_data;
	for (size_t i = 0; i < num_buf; i++) {
		memcpy(dst, buf_list[i].addr, buf_list[i].length);
		dst += buf_list[i].length;
	}
	set_len(wqe, (uint32_t)len, 0);
	wqe->wr.send_flags |= IBV_SEND_INLINE;
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
	struct rxe_send_wqe *wqe = open_for_set(qpx);

	if (!wqe)
		return;
	if (!ah) {
		sv_err("QP %#x: ibv_wr_set_ud_addr with no address handle",
		       qpx->qp_base.qp_num);
		fail(&qpx_to_rxe(qpx)->batch, EINVAL);
		return;
	}
	wqe->wr.wr.ud.remote_qpn = remote_qpn;
	wqe->wr.wr.ud.remote_qkey = remote_qkey;
	wqe->wr.wr.ud.pkey_index = 0;
	wqe->wr.wr.ud.ah_num = to_rxe_ah(ah)->ah_num;
}

/* ---- setup -------------------------------------------------------------- */

uint64_t rxe_qp_ex_ops(enum ibv_qp_type type, uint64_t caps)
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
		       IBV_QP_EX_WITH_LOCAL_INV |
		       (caps & RXE_CAP_ATOMIC_WRITE ? IBV_QP_EX_WITH_ATOMIC_WRITE : 0) |
#ifndef SV_PLUGIN_PROVIDER
		       /* (a plug-in's QP has no wr_flush slot on rdma-core 44) */
		       (caps & (RXE_CAP_FLUSH_GLOBAL | RXE_CAP_FLUSH_PERSISTENT) ?
				SV_QP_EX_WITH_FLUSH : 0) |
#endif
		       0;
	case IBV_QPT_UC:
		return uc;
	case IBV_QPT_UD:
		return sends;
	default:
		return 0;
	}
}

void rxe_qp_ex_init(struct rxe_qp *qp)
{
	struct ibv_qp_ex *qpx = &qp->core.qp_ex;

	qp->batch.ud = qp->core.qp.qp_type == IBV_QPT_UD;
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
	qpx->wr_atomic_write = wr_atomic_write;
#ifndef SV_PLUGIN_PROVIDER
	if (qp->ops_ok & RXE_FLUSH_OP)
		*sv_qp_wr_flush(&qp->core) = wr_flush;
#endif
	qpx->wr_local_inv = wr_local_inv;
	qpx->wr_bind_mw = wr_bind_mw;
	qpx->wr_set_sge = wr_set_sge;
	qpx->wr_set_sge_list = wr_set_sge_list;
	qpx->wr_set_inline_data = wr_set_inline_data;
	qpx->wr_set_inline_data_list = wr_set_inline_data_list;
	qpx->wr_set_ud_addr = wr_set_ud_addr;
	qp->core.comp_mask |= SV_QP_EX;
}
