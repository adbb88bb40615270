/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rxe memory windows. Type 1 windows are bound with ibv_bind_mw, which
 * posts a BIND_MW WQE on the caller's QP; type 2 windows are bound by the
 * application's own IBV_WR_BIND_MW work requests (rxe_qp.c). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rxe_dp.h"

struct ibv_mw *rxe_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ibv_mw *mw;
	int ret;

	if (type != IBV_MW_TYPE_1 && type != IBV_MW_TYPE_2) {
		sv_err("no memory window type %d", (int)type);
		errno = EINVAL;
		return NULL;
	}
	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return NULL;
	ret = sv_cmd_alloc_mw(pd, type, mw, NULL);
	if (ret) {
		sv_err("ALLOC_MW (type %d) failed: %s", (int)type,
		       strerror(ret));
		free(mw);
		errno = ret;
		return NULL;
	}
	return mw;
}

int rxe_dealloc_mw(struct ibv_mw *mw)
{
	int ret = sv_cmd_dealloc_mw(mw);

	if (ret)
		return ret;
	free(mw);
	return 0;
}

int rxe_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		struct ibv_mw_bind *mw_bind)
{
	struct rxe_qp *qp = to_rxe_qp(ibqp);
	const struct ibv_mw_bind_info *bi = &mw_bind->bind_info;
	struct rxe_send_wqe *wqe;
	uint32_t rkey;
	int ret;

	if (mw->type != IBV_MW_TYPE_1) {
		sv_err("ibv_bind_mw binds type 1 windows; type 2 uses IBV_WR_BIND_MW");
		return EINVAL;
	}
	if (ibqp->qp_type != IBV_QPT_RC && ibqp->qp_type != IBV_QPT_UC) {
		sv_err("QP %#x: windows are bound through RC or UC QPs",
		       ibqp->qp_num);
		return EINVAL;
	}
	if (!rxe_sq_accepts(ibqp->state)) {
		sv_err("QP %#x: cannot bind a window in state %d (needs RTS)",
		       ibqp->qp_num, (int)ibqp->state);
		return EINVAL;
	}
	if (bi->length && !bi->mr) {
		sv_err("binding %llu bytes needs an MR",
		       (unsigned long long)bi->length);
		return EINVAL;
	}
	if (bi->mw_access_flags & IBV_ACCESS_ZERO_BASED) {
		sv_err("rxe binds no zero-based type 1 windows");
		return EINVAL;
	}

	/* a bind gives the window a new key: same index, next tag */
	rkey = ibv_inc_rkey(mw->rkey);
	sv_lock(&qp->sq.lock);
	wqe = rxe_sq_reserve(qp);
	if (!wqe) {
		sv_unlock(&qp->sq.lock);
		return ENOMEM;
	}
	wqe->wr.wr_id = mw_bind->wr_id;
	wqe->wr.opcode = IB_UVERBS_WR_BIND_MW;
	wqe->wr.send_flags = mw_bind->send_flags;
	wqe->wr.ex.imm_data = 0;
	wqe->wr.wr.mw.addr = bi->addr;
	wqe->wr.wr.mw.length = bi->length;
	wqe->wr.wr.mw.mr_lkey = bi->mr ? bi->mr->lkey : 0;
	wqe->wr.wr.mw.mw_rkey = mw->rkey;
	wqe->wr.wr.mw.rkey = rkey;
	wqe->wr.wr.mw.access = bi->mw_access_flags;
	rxe_sq_commit(qp, wqe);
	rxe_sq_publish(qp);
	sv_unlock(&qp->sq.lock);
	ret = rxe_sq_ring(qp);
	/* the WQE is queued even when the doorbell failed: the key it will
	 * carry is the new one either way */
	mw->rkey = rkey;
	return ret;
}
