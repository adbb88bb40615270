/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rxe send queues: ibv_post_send writes each WR as a struct rxe_send_wqe
 * straight into the kernel's ring (only the fields the kernel reads for
 * the opcode), publishes the producer index and rings the doorbell (an
 * empty legacy POST_SEND) after dropping the queue's lock. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "rxe_dp.h"

_Static_assert(sizeof(struct rxe_sge) == sizeof(struct ibv_sge) &&
		       offsetof(struct rxe_sge, length) ==
			       offsetof(struct ibv_sge, length) &&
		       offsetof(struct rxe_sge, lkey) ==
			       offsetof(struct ibv_sge, lkey),
	       "rxe_sge and ibv_sge describe the same 16 bytes");
/* The kernel numbers send opcodes as verbs.h does: no translation. */
_Static_assert((int)IB_UVERBS_WR_RDMA_WRITE == (int)IBV_WR_RDMA_WRITE &&
		       (int)IB_UVERBS_WR_RDMA_WRITE_WITH_IMM == (int)IBV_WR_RDMA_WRITE_WITH_IMM &&
		       (int)IB_UVERBS_WR_SEND == (int)IBV_WR_SEND &&
		       (int)IB_UVERBS_WR_SEND_WITH_IMM == (int)IBV_WR_SEND_WITH_IMM &&
		       (int)IB_UVERBS_WR_RDMA_READ == (int)IBV_WR_RDMA_READ &&
		       (int)IB_UVERBS_WR_ATOMIC_CMP_AND_SWP == (int)IBV_WR_ATOMIC_CMP_AND_SWP &&
		       (int)IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD == (int)IBV_WR_ATOMIC_FETCH_AND_ADD &&
		       (int)IB_UVERBS_WR_LOCAL_INV == (int)IBV_WR_LOCAL_INV &&
		       (int)IB_UVERBS_WR_BIND_MW == (int)IBV_WR_BIND_MW &&
		       (int)IB_UVERBS_WR_SEND_WITH_INV == (int)IBV_WR_SEND_WITH_INV,
	       "kernel and verbs send opcodes agree");

#define OP(x) (1u << IBV_WR_##x)

/* Which opcodes each QP type may post (IBTA ch. 10 and what rdma_rxe
 * executes: ATOMIC WRITE on RC from 6.2, rxe_opcode.c). */
uint32_t rxe_sq_ops(enum ibv_qp_type type, uint64_t caps)
{
	const uint32_t ud = OP(SEND) | OP(SEND_WITH_IMM);
	const uint32_t uc = ud | OP(RDMA_WRITE) | OP(RDMA_WRITE_WITH_IMM) |
			    OP(BIND_MW) | OP(SEND_WITH_INV);

	switch (type) {
	case IBV_QPT_RC:
		return uc | OP(RDMA_READ) | OP(ATOMIC_CMP_AND_SWP) |
		       OP(ATOMIC_FETCH_AND_ADD) | OP(LOCAL_INV) |
		       (caps & RXE_CAP_ATOMIC_WRITE ? OP(ATOMIC_WRITE) : 0);
	case IBV_QPT_UC:
		return uc;
	case IBV_QPT_UD:
		return ud;
	default:
		return 0;
	}
}

/* The opcode's part of the WQE: everything but the data. 0 or EINVAL. */
static inline __attribute__((always_inline)) int fill_op(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
		   const struct ibv_send_wr *wr)
{
	struct rxe_send_wr *kwr = &wqe->wr;

	switch ((uint32_t)wr->opcode) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
		kwr->wr.rdma.remote_addr = wr->wr.rdma.remote_addr;
		kwr->wr.rdma.rkey = wr->wr.rdma.rkey;
		wqe->iova = wr->wr.rdma.remote_addr;
		return 0;
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		if (qp->core.qp.qp_type != IBV_QPT_UD)
			return 0;
		if (!wr->wr.ud.ah) {
			sv_err("QP %#x: a UD send needs an address handle",
			       qp->core.qp.qp_num);
			return EINVAL;
		}
		kwr->wr.ud.remote_qpn = wr->wr.ud.remote_qpn;
		kwr->wr.ud.remote_qkey = wr->wr.ud.remote_qkey;
		kwr->wr.ud.pkey_index = 0;
		kwr->wr.ud.ah_num = to_rxe_ah(wr->wr.ud.ah)->ah_num;
		return 0;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		/* the target is one aligned 64-bit word (the 8 local bytes
		 * are checked with the SGEs) */
		if (wr->wr.atomic.remote_addr & 7) {
			sv_err("QP %#x: atomics need an 8-byte aligned remote address",
			       qp->core.qp.qp_num);
			return EINVAL;
		}
		kwr->wr.atomic.remote_addr = wr->wr.atomic.remote_addr;
		kwr->wr.atomic.compare_add = wr->wr.atomic.compare_add;
		kwr->wr.atomic.swap = wr->wr.atomic.swap;
		kwr->wr.atomic.rkey = wr->wr.atomic.rkey;
		wqe->iova = wr->wr.atomic.remote_addr;
		return 0;
	case IBV_WR_ATOMIC_WRITE:
		if (wr->wr.rdma.remote_addr & 7) {
			sv_err("QP %#x: ATOMIC WRITE needs an 8-byte aligned remote address",
			       qp->core.qp.qp_num);
			return EINVAL;
		}
		kwr->wr.rdma.remote_addr = wr->wr.rdma.remote_addr;
		kwr->wr.rdma.rkey = wr->wr.rdma.rkey;
		wqe->iova = wr->wr.rdma.remote_addr;
		return 0;
	case IBV_WR_BIND_MW: {
		const struct ibv_mw_bind_info *bi = &wr->bind_mw.bind_info;

		if (!wr->bind_mw.mw || (bi->length && !bi->mr)) {
			sv_err("QP %#x: BIND_MW needs a MW, and an MR for a non-empty range",
			       qp->core.qp.qp_num);
			return EINVAL;
		}
		if (wr->bind_mw.mw->type != IBV_MW_TYPE_2) {
			sv_err("QP %#x: IBV_WR_BIND_MW binds type 2 windows; type 1 uses ibv_bind_mw",
			       qp->core.qp.qp_num);
			return EINVAL;
		}
		kwr->wr.mw.addr = bi->addr;
		kwr->wr.mw.length = bi->length;
		kwr->wr.mw.mr_lkey = bi->mr ? bi->mr->lkey : 0;
		kwr->wr.mw.mw_rkey = wr->bind_mw.mw->rkey;
		kwr->wr.mw.rkey = wr->bind_mw.rkey;
		kwr->wr.mw.access = bi->mw_access_flags;
		return 0;
	}
	case SV_WR_FLUSH:
		sv_err("QP %#x: FLUSH is posted with ibv_wr_flush (an ibv_send_wr has no fields for it)",
		       qp->core.qp.qp_num);
		return EINVAL;
	default: /* LOCAL_INV, SEND_WITH_INV: the key is in ex */
		return 0;
	}
}

/* ATOMIC WRITE's data: the 8 bytes the SGEs (or inline SGEs) describe,
 * read now and carried in the WQE, where the kernel's requester takes
 * them (rxe_req.c: dma.atomic_wr). rdma-core's librxe copies the SGEs
 * themselves there instead (init_send_wqe), so its post_send writes the
 * first SGE's address; ibv_wr_atomic_write takes the bytes in both. */
static int __attribute__((noinline))
fill_atomic_write(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
		  const struct ibv_send_wr *wr)
{
	uint8_t *dst = wqe->dma.inline_data;
	uint64_t len = 0;

	for (int i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	if (len != 8) {
		sv_err("QP %#x: ATOMIC WRITE carries exactly 8 bytes (SGEs give %llu)",
		       qp->core.qp.qp_num, (unsigned long long)len);
		return EINVAL;
	}
	for (int i = 0; i < wr->num_sge; i++) {
		memcpy(dst, (const void *)(uintptr_t)wr->sg_list[i].addr,
		       wr->sg_list[i].length);
		dst += wr->sg_list[i].length;
	}
	wqe->dma.length = 8;
	wqe->dma.resid = 8;
	wqe->dma.num_sge = 0;
	return 0;
}

/* The data: SGEs, or their bytes when inline. 0 or EINVAL. */
static inline __attribute__((always_inline)) int fill_data(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
		     const struct ibv_send_wr *wr)
{
	const int nsge = wr->num_sge;
	uint64_t len = 0;

	if (wr->opcode == IBV_WR_ATOMIC_WRITE)
		return fill_atomic_write(qp, wqe, wr);
	if (wr->send_flags & IBV_SEND_INLINE) {
		uint8_t *dst = wqe->dma.inline_data;

		if (!(RXE_INLINE_OPS & (1u << wr->opcode))) {
			sv_err("QP %#x: IBV_SEND_INLINE with opcode %d",
			       qp->core.qp.qp_num, (int)wr->opcode);
			return EINVAL;
		}
		for (int i = 0; i < nsge; i++)
			len += wr->sg_list[i].length;
		if (len > qp->sq.max_inline) {
			sv_err("QP %#x: %llu inline bytes, max_inline_data is %u",
			       qp->core.qp.qp_num, (unsigned long long)len,
			       qp->sq.max_inline);
			return EINVAL;
		}
		for (int i = 0; i < nsge; i++) {
			memcpy(dst, (const void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			dst += wr->sg_list[i].length;
		}
	} else {
		for (int i = 0; i < nsge; i++) {
			memcpy(&wqe->dma.sge[i], &wr->sg_list[i],
			       sizeof(struct rxe_sge));
			len += wr->sg_list[i].length;
		}
		if (len > UINT32_MAX) {
			sv_err("QP %#x: a WR of %llu bytes is longer than 2^32-1",
			       qp->core.qp.qp_num, (unsigned long long)len);
			return EINVAL;
		}
	}
	if (len < 8 && (wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
			wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD)) {
		sv_err("QP %#x: atomics need 8 local bytes", qp->core.qp.qp_num);
		return EINVAL;
	}
	wqe->dma.length = (uint32_t)len;
	wqe->dma.resid = (uint32_t)len;
	wqe->dma.num_sge = (uint32_t)nsge;
	return 0;
}

static int __attribute__((noinline, cold))
ring_failed(struct rxe_qp *qp, ssize_t n)
{
	int ret = sv_cmd_doorbell_error(n);

	sv_err("QP %#x: doorbell failed: %s", qp->core.qp.qp_num,
	       strerror(ret));
	return SV_PROBE_ERR("ibv_post_send", ret);
}

int rxe_sq_ring(struct rxe_qp *qp)
{
	ssize_t n = sv_doorbell_write(qp->db.fd, &qp->db, SV_DOORBELL_LEN);

	if (__builtin_expect(n == (ssize_t)SV_DOORBELL_LEN, 1))
		return 0;
	return ring_failed(qp, n);
}

static inline __attribute__((always_inline)) int
post_one(struct rxe_qp *qp, const struct ibv_send_wr *wr)
{
	/* everything read from the WR before anything is written: the
	 * compiler cannot know the WQE does not alias it */
	const uint32_t opcode = (uint32_t)wr->opcode;
	const uint32_t flags = wr->send_flags;
	const int nsge = wr->num_sge;
	const struct ibv_sge *sg = wr->sg_list;
	struct rxe_send_wqe *wqe;
	uint32_t bit;
	int ret;

	if (opcode >= 32 || !(qp->ops_ok & (bit = 1u << opcode))) {
		sv_err("QP %#x: opcode %d is not valid on this QP type (%d)%s",
		       qp->core.qp.qp_num, (int)opcode,
		       (int)qp->core.qp.qp_type,
		       opcode == IBV_WR_ATOMIC_WRITE &&
				       qp->core.qp.qp_type == IBV_QPT_RC ?
			       " on this kernel's rxe (RDMA ATOMIC WRITE needs 6.2)" :
			       "");
		return EINVAL;
	}
	if ((uint32_t)nsge > qp->sq.max_sge || (nsge && !sg)) {
		sv_err("QP %#x: %d SGEs (sg_list %p), the send queue takes %u",
		       qp->core.qp.qp_num, nsge, (const void *)sg,
		       qp->sq.max_sge);
		return EINVAL;
	}
	wqe = rxe_sq_reserve(qp);
	if (!wqe) {
		sv_explain_send_full(&qp->core.qp, qp->sq.q.mask);
		return ENOMEM;
	}
	wqe->wr.wr_id = wr->wr_id;
	wqe->wr.opcode = opcode;
	wqe->wr.send_flags = flags;
	/* one word: immediate data (network order) or the rkey to
	 * invalidate, as in ibv_send_wr */
	wqe->wr.ex.imm_data = wr->imm_data;
	if (__builtin_expect(!!(bit & qp->rdma_ops), 1)) {
		/* connected QPs, every opcode but atomics and BIND_MW: the
		 * rdma part is all the kernel may read (only for the RDMA
		 * opcodes; rdma-core writes it for all of them too) */
		wqe->wr.wr.rdma.remote_addr = wr->wr.rdma.remote_addr;
		wqe->wr.wr.rdma.rkey = wr->wr.rdma.rkey;
		wqe->iova = wr->wr.rdma.remote_addr;
	} else {
		ret = fill_op(qp, wqe, wr);
		if (ret)
			return ret;
	}
	if (__builtin_expect(nsge == 1 && !(flags & IBV_SEND_INLINE), 1) &&
	    !(bit & (RXE_ATOMIC_OPS | RXE_ATOMIC_WRITE_OP))) {
		const uint32_t len = sg->length;

		memcpy(&wqe->dma.sge[0], sg, sizeof(struct rxe_sge));
		wqe->dma.length = len;
		wqe->dma.resid = len;
		wqe->dma.num_sge = 1;
	} else {
		ret = fill_data(qp, wqe, wr);
		if (ret)
			return ret;
	}
	rxe_sq_commit(qp, wqe);
	SV_PROBE(rdma_core_rxe, post_send, qp->probe.dev, qp->core.qp.qp_num,
		 qp->probe.opname[opcode], wqe->dma.length);
	return 0;
}

int rxe_sq_post_wr(struct rxe_qp *qp, const struct ibv_send_wr *wr)
{
	return post_one(qp, wr);
}

/* Any list of WRs, every case. */
static int __attribute__((noinline))
post_list(struct rxe_qp *qp, struct ibv_send_wr *wr,
	  struct ibv_send_wr **bad_wr)
{
	struct ibv_qp *ibqp = &qp->core.qp;
	uint32_t start;
	int ret = 0;

	if (!rxe_sq_accepts(ibqp->state)) {
		sv_explain_post_state("post_send", ibqp, "needs RTS");
		if (bad_wr)
			*bad_wr = wr;
		return SV_PROBE_ERR("ibv_post_send", EINVAL);
	}

	sv_lock(&qp->sq.lock);
	start = qp->sq.prod;
	for (; wr; wr = wr->next) {
		ret = post_one(qp, wr);
		if (ret)
			break;
	}
	if (bad_wr)
		*bad_wr = wr; /* NULL when all were posted */
	if (qp->sq.prod == start) {
		sv_unlock(&qp->sq.lock);
		return ret ? SV_PROBE_ERR("ibv_post_send", ret) : 0;
	}
	rxe_sq_publish(qp);
	sv_unlock(&qp->sq.lock);
	/* the WQEs are in the ring already and will run; report the
	 * doorbell only when nothing else went wrong */
	if (!ret)
		return rxe_sq_ring(qp);
	rxe_sq_ring(qp);
	return SV_PROBE_ERR("ibv_post_send", ret);
}

/* The common case, one WR with one SGE (or inline bytes) of an opcode in
 * qp->fast_ops (or, with an AH, qp->ud_ops), in as few instructions as it
 * takes: rxe_post_send sends anything else, and a full queue, to
 * post_list before a byte is written. Only calls in tail position (or
 * memcpy), so it needs no frame to speak of. */
static inline __attribute__((always_inline)) int
post_fast(struct rxe_qp *qp, struct ibv_send_wr *wr,
	  struct ibv_send_wr **bad_wr, uint32_t opcode, const int ud)
{
	const struct ibv_sge *sg = wr->sg_list;
	const uint32_t flags = wr->send_flags;
	const uint32_t len = sg->length;
	struct rxe_send_wqe *wqe;
	uint32_t next;

	if (flags & IBV_SEND_INLINE) {
		if (__builtin_expect(!(RXE_INLINE_OPS & (1u << opcode)) ||
					     len > qp->sq.max_inline,
				     0))
			return post_list(qp, wr, bad_wr);
	}

	sv_lock(&qp->sq.lock);
	next = rxe_queue_next(&qp->sq.q, qp->sq.prod);
	/* the slot before the kernel's index is read: from the queue
	 * fields already loaded, not loaded again after the acquire */
	wqe = rxe_queue_elem(&qp->sq.q, qp->sq.prod);
	if (__builtin_expect(next == rxe_queue_kernel_cons(&qp->sq.q), 0)) {
		sv_unlock(&qp->sq.lock);
		return post_list(qp, wr, bad_wr); /* says so: ENOMEM */
	}
	memset(&wqe->status, 0,
	       offsetof(struct rxe_send_wqe, dma.sge) -
		       offsetof(struct rxe_send_wqe, status));
	/* here, where opcode and len are in registers anyway: from this
	 * point on the WR is posted */
	SV_PROBE(rdma_core_rxe, post_send, qp->probe.dev, qp->core.qp.qp_num,
		 qp->probe.opname[opcode], len);
	wqe->wr.wr_id = wr->wr_id;
	wqe->wr.opcode = opcode;
	wqe->wr.send_flags = flags;
	wqe->wr.ex.imm_data = wr->imm_data;
	if (ud) {
		wqe->wr.wr.ud.remote_qpn = wr->wr.ud.remote_qpn;
		wqe->wr.wr.ud.remote_qkey = wr->wr.ud.remote_qkey;
		wqe->wr.wr.ud.pkey_index = 0;
		wqe->wr.wr.ud.ah_num = to_rxe_ah(wr->wr.ud.ah)->ah_num;
	} else {
		wqe->wr.wr.rdma.remote_addr = wr->wr.rdma.remote_addr;
		wqe->wr.wr.rdma.rkey = wr->wr.rdma.rkey;
		wqe->iova = wr->wr.rdma.remote_addr;
	}
	wqe->dma.length = len;
	wqe->dma.resid = len;
	if (flags & IBV_SEND_INLINE) {
		wqe->dma.num_sge = 0;
		memcpy(wqe->dma.inline_data,
		       (const void *)(uintptr_t)sg->addr, len);
	} else {
		wqe->dma.num_sge = 1;
		memcpy(&wqe->dma.sge[0], sg, sizeof(struct rxe_sge));
	}
	wqe->ssn = qp->ssn++;
	qp->sq.prod = next;
	rxe_sq_publish(qp);
	sv_unlock(&qp->sq.lock);
	if (bad_wr)
		*bad_wr = NULL;
	return rxe_sq_ring(qp);
}

int rxe_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr)
{
	struct rxe_qp *qp = to_rxe_qp(ibqp);
	uint32_t opcode;

	if (__builtin_expect(!wr || wr->next || !rxe_sq_accepts(ibqp->state),
			     0))
		return post_list(qp, wr, bad_wr);
	opcode = (uint32_t)wr->opcode;
	if (__builtin_expect(opcode >= 32 || wr->num_sge != 1 || !wr->sg_list,
			     0))
		return post_list(qp, wr, bad_wr);
	if (__builtin_expect(!!(qp->fast_ops & (1u << opcode)), 1))
		return post_fast(qp, wr, bad_wr, opcode, 0);
	if ((qp->ud_ops & (1u << opcode)) && wr->wr.ud.ah)
		return post_fast(qp, wr, bad_wr, opcode, 1);
	return post_list(qp, wr, bad_wr);
}
