/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The ibv_wr_* send API on uroce QPs created with send_ops_flags
 * (ibv_create_qp_ex, IBV_QP_INIT_ATTR_SEND_OPS_FLAGS).
 *
 * Between ibv_wr_start and ibv_wr_complete / ibv_wr_abort the calls build
 * a batch of struct ibv_send_wr in the QP's batch: each wr_<opcode> opens
 * the next WR (with the ibv_qp_ex's wr_id and wr_flags as they are at that
 * call), the wr_set_* calls give the open WR its data and address. Inline
 * data is copied at the setter (the caller may reuse its buffers at once,
 * as with rxe); SGEs are read when the batch is posted. wr_complete hands
 * the batch to the requester (uroce_post_send_all), which checks every WR
 * as ibv_post_send does and posts them all or none: wr_complete returns
 * the first error (a setter's, or the requester's) and nothing of the
 * batch was posted; wr_abort forgets the batch.
 *
 * The batch's lock is held from wr_start to wr_complete / wr_abort, so
 * that two threads' batches do not mix (rxe holds its send queue's lock
 * as long); not the QP's lock, which the progress thread takes to
 * complete, and which a program polling or posting receives between the
 * calls would otherwise wait for.
 *
 * The send ops a QP takes are those uroce_post_send supports on its type
 * (uroce_qp_ex_ops: rxe's lists; others are refused with their
 * send_ops_flags, EOPNOTSUPP at create).
 *
 * ibv_wr_atomic_write copies its 8 bytes at the call (the WR's inline
 * data, as rxe's WQE carries them); ibv_wr_flush's length, type and level
 * go in the WR as uroce_flush_wr_set lays them. Neither takes a setter:
 * ibv_wr_set_* on them fails the batch (EINVAL), as softverbs' rxe. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "uroce.h"

/* One WR of the batch. Its sg_list and next point into the batch's
 * arrays, which grow: wr_complete sets them. */
struct uroce_wr_item {
	struct ibv_send_wr wr;
	uint32_t sge_first;    /* its num_sge SGEs in the batch's sges */
	bool inline_data;      /* one SGE: offset and length in inl */
};

struct uroce_wr_batch {
	pthread_mutex_t lock;  /* wr_start to wr_complete / wr_abort */
	/* the rest: lock */
	struct uroce_wr_item *items;
	uint32_t n, items_cap;
	struct ibv_sge *sges;
	uint32_t nsge, sges_cap;
	uint8_t *inl;          /* inline data, copied at the setters */
	size_t inl_len, inl_cap;
	int err;               /* the batch's first error */
};

static inline struct uroce_qp *qpx_to_uroce(struct ibv_qp_ex *qpx)
{
	return to_uroce_qp(&qpx->qp_base);
}

static void fail(struct uroce_wr_batch *b, int err)
{
	if (!b->err)
		b->err = err;
}

/* Room for one more of an array of *cap elements of size bytes, n in
 * use: false (and the batch failed) without memory. */
static bool grow(struct uroce_wr_batch *b, void **arr, uint32_t n,
		 uint32_t *cap, size_t size)
{
	uint32_t ncap;
	void *p;

	if (n < *cap)
		return true;
	ncap = *cap ? *cap * 2 : 8;
	p = realloc(*arr, (size_t)ncap * size);
	if (!p) {
		sv_err("uroce: ibv_wr_*: no memory for a batch of %u", n + 1);
		fail(b, ENOMEM);
		return false;
	}
	*arr = p;
	*cap = ncap;
	return true;
}

/* Open the batch's next WR for opcode: NULL when the batch failed. */
static struct ibv_send_wr *open_wr(struct ibv_qp_ex *qpx,
				   enum ibv_wr_opcode opcode)
{
	struct uroce_qp *qp = qpx_to_uroce(qpx);
	struct uroce_wr_batch *b = qp->batch;
	struct uroce_wr_item *it;

	if (b->err)
		return NULL;
	/* a batch the send queue cannot hold will never post */
	if (b->n == qp->sq_slots) {
		sv_err("uroce: QP %#x: a batch of more than %u WRs, the send queue's size",
		       qp->core.qp.qp_num, qp->sq_slots);
		fail(b, ENOMEM);
		return NULL;
	}
	if (!grow(b, (void **)&b->items, b->n, &b->items_cap, sizeof(*b->items)))
		return NULL;
	it = &b->items[b->n++];
	memset(it, 0, sizeof(*it));
	it->wr.wr_id = qpx->wr_id;
	it->wr.opcode = opcode;
	/* inline or not is the setter's to say */
	it->wr.send_flags = qpx->wr_flags & ~(unsigned int)IBV_SEND_INLINE;
	return &it->wr;
}

/* An ATOMIC WRITE or a FLUSH: complete when opened */
static bool no_data_wr(const struct ibv_send_wr *wr)
{
	return wr->opcode == IBV_WR_ATOMIC_WRITE || (int)wr->opcode == SV_WR_FLUSH;
}

/* The open WR a setter completes: NULL (and the batch failed) when
 * there is none, or when it takes no setter. */
static struct uroce_wr_item *open_item(struct ibv_qp_ex *qpx)
{
	struct uroce_wr_batch *b = qpx_to_uroce(qpx)->batch;

	if (b->err)
		return NULL;
	if (!b->n) {
		sv_err("uroce: QP %#x: ibv_wr_set_* with no work request open",
		       qpx->qp_base.qp_num);
		fail(b, EINVAL);
		return NULL;
	}
	if (no_data_wr(&b->items[b->n - 1].wr)) {
		sv_err("uroce: QP %#x: an ATOMIC WRITE carries its 8 bytes itself, a FLUSH none: no ibv_wr_set_*",
		       qpx->qp_base.qp_num);
		fail(b, EINVAL);
		return NULL;
	}
	return &b->items[b->n - 1];
}

/* Copy len bytes from the buffers into the batch as its inline data
 * (the caller checked the length) */
static void store_inline(struct uroce_wr_batch *b, struct uroce_wr_item *it,
			 size_t num_buf, const struct ibv_data_buf *buf_list,
			 size_t len)
{
	it->inline_data = true;
	it->wr.send_flags |= IBV_SEND_INLINE;
	it->wr.num_sge = 0;
	if (!len)
		return;
	if (b->inl_cap - b->inl_len < len) {
		size_t ncap = b->inl_cap ? b->inl_cap * 2 : 4096;
		uint8_t *p;

		while (ncap - b->inl_len < len)
			ncap *= 2;
		p = realloc(b->inl, ncap);
		if (!p) {
			sv_err("uroce: ibv_wr_set_inline_data: no memory");
			fail(b, ENOMEM);
			return;
		}
		b->inl = p;
		b->inl_cap = ncap;
	}
	if (!grow(b, (void **)&b->sges, b->nsge, &b->sges_cap, sizeof(*b->sges)))
		return;
	/* one SGE, its address the bytes' offset until wr_complete */
	it->sge_first = b->nsge;
	b->sges[b->nsge++] = (struct ibv_sge){ .addr = b->inl_len,
					       .length = (uint32_t)len };
	for (size_t i = 0; i < num_buf; i++) {
		memcpy(b->inl + b->inl_len, buf_list[i].addr, buf_list[i].length);
		b->inl_len += buf_list[i].length;
	}
	it->wr.num_sge = 1;
}

/* ---- the batch ------------------------------------------------------------ */

static void reset(struct uroce_wr_batch *b)
{
	b->n = 0;
	b->nsge = 0;
	b->inl_len = 0;
	b->err = 0;
}

static void wr_start(struct ibv_qp_ex *qpx)
{
	struct uroce_wr_batch *b = qpx_to_uroce(qpx)->batch;

	pthread_mutex_lock(&b->lock);
	reset(b);
}

static int wr_complete(struct ibv_qp_ex *qpx)
{
	struct uroce_qp *qp = qpx_to_uroce(qpx);
	struct uroce_wr_batch *b = qp->batch;
	int ret = b->err;

	if (!ret && b->n) {
		for (uint32_t i = 0; i < b->n; i++) {
			struct uroce_wr_item *it = &b->items[i];
			struct ibv_send_wr *wr = &it->wr;

			wr->sg_list = wr->num_sge ? &b->sges[it->sge_first] : NULL;
			if (it->inline_data && wr->num_sge)
				wr->sg_list[0].addr = (uintptr_t)(b->inl +
								  wr->sg_list[0].addr);
			wr->next = i + 1 < b->n ? &b->items[i + 1].wr : NULL;
		}
		ret = uroce_post_send_all(qp, &b->items[0].wr);
	}
	reset(b);
	pthread_mutex_unlock(&b->lock);
	return ret;
}

static void wr_abort(struct ibv_qp_ex *qpx)
{
	struct uroce_wr_batch *b = qpx_to_uroce(qpx)->batch;

	reset(b);
	pthread_mutex_unlock(&b->lock);
}

/* ---- opcodes ---------------------------------------------------------------- */

static void wr_send(struct ibv_qp_ex *qpx)
{
	open_wr(qpx, IBV_WR_SEND);
}

static void wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm_data)
{
	struct ibv_send_wr *wr = open_wr(qpx, IBV_WR_SEND_WITH_IMM);

	if (wr)
		wr->imm_data = imm_data;
}

static void wr_send_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct ibv_send_wr *wr = open_wr(qpx, IBV_WR_SEND_WITH_INV);

	if (wr)
		wr->invalidate_rkey = invalidate_rkey;
}

static void set_rdma(struct ibv_qp_ex *qpx, enum ibv_wr_opcode opcode,
		     uint32_t rkey, uint64_t remote_addr, __be32 imm_data)
{
	struct ibv_send_wr *wr = open_wr(qpx, opcode);

	if (!wr)
		return;
	wr->wr.rdma.remote_addr = remote_addr;
	wr->wr.rdma.rkey = rkey;
	wr->imm_data = imm_data;
}

static void wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey,
			  uint64_t remote_addr)
{
	set_rdma(qpx, IBV_WR_RDMA_WRITE, rkey, remote_addr, 0);
}

static void wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
			      uint64_t remote_addr, __be32 imm_data)
{
	set_rdma(qpx, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, remote_addr, imm_data);
}

static void wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey,
			 uint64_t remote_addr)
{
	set_rdma(qpx, IBV_WR_RDMA_READ, rkey, remote_addr, 0);
}

static void set_atomic(struct ibv_qp_ex *qpx, enum ibv_wr_opcode opcode,
		       uint32_t rkey, uint64_t remote_addr, uint64_t compare_add,
		       uint64_t swap)
{
	struct ibv_send_wr *wr = open_wr(qpx, opcode);

	if (!wr)
		return;
	wr->wr.atomic.remote_addr = remote_addr;
	wr->wr.atomic.compare_add = compare_add;
	wr->wr.atomic.swap = swap;
	wr->wr.atomic.rkey = rkey;
}

static void wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey,
			      uint64_t remote_addr, uint64_t compare,
			      uint64_t swap)
{
	set_atomic(qpx, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, remote_addr, compare, swap);
}

static void wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey,
				uint64_t remote_addr, uint64_t add)
{
	set_atomic(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, remote_addr, add, 0);
}

/* RDMA ATOMIC WRITE (rxe from 6.2): the 8 bytes at atomic_wr, copied
 * now, to an 8-byte aligned remote address (EINVAL otherwise, as
 * softverbs' rxe) */
static void wr_atomic_write(struct ibv_qp_ex *qpx, uint32_t rkey,
			    uint64_t remote_addr, const void *atomic_wr)
{
	struct uroce_wr_batch *b = qpx_to_uroce(qpx)->batch;
	struct ibv_send_wr *wr = open_wr(qpx, IBV_WR_ATOMIC_WRITE);
	struct ibv_data_buf data = { .addr = (void *)(uintptr_t)atomic_wr,
				     .length = 8 };

	if (!wr)
		return;
	if ((remote_addr & 7) || !atomic_wr) {
		sv_err("uroce: QP %#x: ATOMIC WRITE needs an 8-byte aligned remote address (not %#llx) and 8 bytes to write (%p)",
		       qpx->qp_base.qp_num, (unsigned long long)remote_addr,
		       atomic_wr);
		fail(b, EINVAL);
		return;
	}
	wr->wr.rdma.remote_addr = remote_addr;
	wr->wr.rdma.rkey = rkey;
	store_inline(b, &b->items[b->n - 1], 1, &data, 8);
}

/* FLUSH (rxe from 6.2): the peer's earlier writes to [remote_addr,
 * +len) (IBV_FLUSH_RANGE) or to the whole MR (IBV_FLUSH_MR) made
 * globally visible (IBV_FLUSH_GLOBAL) or persistent
 * (IBV_FLUSH_PERSISTENT); completes with IBV_WC_FLUSH. A type of
 * neither bit or other bits, a level past IBV_FLUSH_MR, a length past
 * the RETH's 32 bits: EINVAL, as softverbs' rxe. */
static void wr_flush(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr,
		     size_t len, uint8_t type, uint8_t level)
{
	struct ibv_send_wr *wr = open_wr(qpx, (enum ibv_wr_opcode)SV_WR_FLUSH);

	if (!wr)
		return;
	if (!type || (type & ~(SV_FLUSH_GLOBAL | SV_FLUSH_PERSISTENT)) ||
	    level > SV_FLUSH_MR || len > UINT32_MAX) {
		sv_err("uroce: QP %#x: FLUSH with placement type %#x (IBV_FLUSH_GLOBAL 1, IBV_FLUSH_PERSISTENT 2), level %u (IBV_FLUSH_RANGE 0, IBV_FLUSH_MR 1), length %zu",
		       qpx->qp_base.qp_num, type, level, len);
		fail(qpx_to_uroce(qpx)->batch, EINVAL);
		return;
	}
	uroce_flush_wr_set(wr, rkey, remote_addr, (uint32_t)len, type, level);
}

static void wr_local_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct ibv_send_wr *wr = open_wr(qpx, IBV_WR_LOCAL_INV);

	if (wr)
		wr->invalidate_rkey = invalidate_rkey;
}

static void wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw, uint32_t rkey,
		       const struct ibv_mw_bind_info *bind_info)
{
	struct ibv_send_wr *wr = open_wr(qpx, IBV_WR_BIND_MW);

	if (!wr)
		return;
	wr->bind_mw.mw = mw;
	wr->bind_mw.rkey = rkey;
	wr->bind_mw.bind_info = *bind_info;
}

/* ---- setters ------------------------------------------------------------------ */

static void wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge,
			    const struct ibv_sge *sg_list)
{
	struct uroce_qp *qp = qpx_to_uroce(qpx);
	struct uroce_wr_batch *b = qp->batch;
	struct uroce_wr_item *it = open_item(qpx);

	if (!it)
		return;
	/* (post_send's checks say more: this one keeps the count in range) */
	if (num_sge > qp->cap.max_send_sge) {
		sv_err("uroce: QP %#x: %zu SGEs, above max_send_sge %u",
		       qp->core.qp.qp_num, num_sge, qp->cap.max_send_sge);
		fail(b, EINVAL);
		return;
	}
	it->sge_first = b->nsge;
	for (size_t i = 0; i < num_sge; i++) {
		if (!grow(b, (void **)&b->sges, b->nsge, &b->sges_cap,
			  sizeof(*b->sges)))
			return;
		b->sges[b->nsge++] = sg_list[i];
	}
	it->wr.num_sge = (int)num_sge;
	it->inline_data = false;
	it->wr.send_flags &= ~(unsigned int)IBV_SEND_INLINE;
}

static void wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey, uint64_t addr,
		       uint32_t length)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	wr_set_sge_list(qpx, 1, &sge);
}

static void wr_set_inline_data_list(struct ibv_qp_ex *qpx, size_t num_buf,
				    const struct ibv_data_buf *buf_list)
{
	struct uroce_qp *qp = qpx_to_uroce(qpx);
	struct uroce_wr_batch *b = qp->batch;
	struct uroce_wr_item *it = open_item(qpx);
	size_t len = 0;

	if (!it)
		return;
	for (size_t i = 0; i < num_buf; i++)
		len += buf_list[i].length;
	if (len > qp->cap.max_inline_data) {
		sv_err("uroce: QP %#x: %zu bytes inline, above max_inline_data %u",
		       qp->core.qp.qp_num, len, qp->cap.max_inline_data);
		fail(b, EINVAL);
		return;
	}
	store_inline(b, it, num_buf, buf_list, len);
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
	struct uroce_wr_item *it = open_item(qpx);

	if (!it)
		return;
	if (!ah) {
		sv_err("uroce: QP %#x: ibv_wr_set_ud_addr with no address handle",
		       qpx->qp_base.qp_num);
		fail(qpx_to_uroce(qpx)->batch, EINVAL);
		return;
	}
	it->wr.wr.ud.ah = ah;
	it->wr.wr.ud.remote_qpn = remote_qpn;
	it->wr.wr.ud.remote_qkey = remote_qkey;
}

/* ---- setup -------------------------------------------------------------------- */

uint64_t uroce_qp_ex_ops(enum ibv_qp_type type)
{
	const uint64_t sends = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM;
	const uint64_t uc = sends | IBV_QP_EX_WITH_RDMA_WRITE |
			    IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM;

	/* rxe's lists (ATOMIC WRITE and FLUSH as rxe from 6.2 has them),
	 * and on UC less SEND_WITH_INV and LOCAL_INV, which uroce's
	 * post_send refuses there (rxe takes them and fails them at run
	 * time) */
	switch (type) {
	case IBV_QPT_RC:
		return uc | IBV_QP_EX_WITH_RDMA_READ |
		       IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
		       IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
		       IBV_QP_EX_WITH_SEND_WITH_INV | IBV_QP_EX_WITH_LOCAL_INV |
		       IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_ATOMIC_WRITE |
		       SV_QP_EX_WITH_FLUSH;
	case IBV_QPT_UC:
		return uc | IBV_QP_EX_WITH_BIND_MW;
	case IBV_QPT_UD:
		return sends;
	default:
		return 0;
	}
}

int uroce_qp_ex_init(struct uroce_qp *qp)
{
	struct ibv_qp_ex *qpx = &qp->core.qp_ex;

	qp->batch = calloc(1, sizeof(*qp->batch));
	if (!qp->batch)
		return ENOMEM;
	pthread_mutex_init(&qp->batch->lock, NULL);
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
	/* (the slot rdma-core 45 appended: sv_qp_wr_flush) */
	*sv_qp_wr_flush(&qp->core) = wr_flush;
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

void uroce_qp_ex_fini(struct uroce_qp *qp)
{
	struct uroce_wr_batch *b = qp->batch;

	if (!b)
		return;
	pthread_mutex_destroy(&b->lock);
	free(b->items);
	free(b->sges);
	free(b->inl);
	free(b);
	qp->batch = NULL;
}
