/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* uroce's memory windows: alloc, dealloc, bind (type 1 through
 * ibv_bind_mw, type 2 through IBV_WR_BIND_MW), invalidation (LOCAL_INV,
 * SEND with invalidate) and the responder's check of an rkey that may
 * name a window. The windows sit in a table of the process beside the
 * MRs' (uroce_mr.c), under the MR table's lock, so that a remote access
 * through a window finds its MR, and takes a reference on it, in one
 * step.
 *
 * Keys. An rkey of a window is T << 8 | K: K the 8-bit key the consumer
 * picks at each bind (ibv_inc_rkey; IBTA's "key" portion), T a 24-bit
 * tag fixed for the window's life: T = Q(slot << 5 | generation), Q a
 * secret 24-bit permutation (uroce_mw_tag_permute, keyed like the MR
 * keys). A tag is never handed out twice while the process lives (a
 * slot's 32 generations, then it is retired), and no live MR key ever
 * has a live window's tag in its top 24 bits: an MR registration skips a
 * key that would (uroce_mr.c), a window skips a tag that would. So a key
 * names one object, and finding it is O(1) either way. K alone is what
 * rxe and the verbs let a consumer choose; T is as hard to guess as an
 * MR key.
 *
 * What rxe does and uroce does alike (read in torvalds/linux rxe_mw.c,
 * rxe_req.c's rxe_do_local_ops, rxe_resp.c's check_rkey/execute and
 * rxe_mr.c's rxe_invalidate_mr, the 6.x series):
 * - type 1 windows start valid and unbound, type 2 free; a type 1 bind
 *   may not be zero based; a type 2 bind needs a free window, the QP's
 *   PD, an MR and a non-empty range; the MR needs IBV_ACCESS_MW_BIND,
 *   and LOCAL_WRITE when the window grants REMOTE_WRITE or
 *   REMOTE_ATOMIC; the range lies inside the MR (zero based: its length
 *   fits; uroce also wants it inside the MR's iova space, rxe checks
 *   that at each access); a bind with length 0 unbinds a type 1 window. A failed bind
 *   completes with IBV_WC_MW_BIND_ERR and the QP goes to the error state.
 * - a remote access through a window wants its current rkey, its PD, the
 *   QP it was bound through (type 2), a non-empty window, every access
 *   asked for in the window's rights; the MR's own rights do not matter.
 *   rxe then checks the range against the MR only; uroce checks it
 *   against the window (IBTA o10-36.2.1; a stricter answer, the same
 *   status: a remote access error).
 * - invalidation (LOCAL_INV, or the IETH of a SEND with invalidate)
 *   works on a bound type 2 window only: a type 1 window or an MR
 *   registered by the application fails it (rxe_invalidate_mr wants a
 *   fast-registration MR, which uroce has none of).
 * - an MR with windows bound to it cannot be deregistered (EINVAL).
 * Where uroce is stricter: a bind to an MR of another PD than the
 * window's fails (rxe looks the MR up by key alone). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "uroce.h"

#define MW_SLOT_BITS 19
#define MW_GEN_BITS 5
#define MW_MAX_SLOTS (1u << MW_SLOT_BITS)
#define MW_GEN_LIMIT (1u << MW_GEN_BITS)

/* what a bind may grant (rxe's RXE_ACCESS_SUPPORTED_MW) */
#define UROCE_MW_ACCESS                                                        \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |                   \
	 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |                  \
	 IBV_ACCESS_MW_BIND | IBV_ACCESS_ZERO_BASED)

/* the table: the MR table's lock (uroce_mr_lock) */
static struct {
	struct uroce_mw **mw;    /* slot -> its live window, or NULL */
	uint8_t *gen;            /* slot -> the generation of its live or next tag */
	uint32_t *free;          /* slots to use again (a stack) */
	uint32_t nfree, nslots, cap, live;
} table;

/* Room for one more slot: 0 or ENOMEM/ENOSPC. */
static int table_grow(void)
{
	uint32_t cap;
	void *p;

	if (table.nslots < table.cap)
		return 0;
	if (table.cap == MW_MAX_SLOTS)
		return ENOSPC;
	cap = table.cap ? table.cap * 2 : 64;
	p = realloc(table.mw, cap * sizeof(*table.mw));
	if (!p)
		return ENOMEM;
	table.mw = p;
	p = realloc(table.gen, cap * sizeof(*table.gen));
	if (!p)
		return ENOMEM;
	table.gen = p;
	p = realloc(table.free, cap * sizeof(*table.free));
	if (!p)
		return ENOMEM;
	table.free = p;
	table.cap = cap;
	return 0;
}

static void spend_generation(uint32_t slot)
{
	if (++table.gen[slot] < MW_GEN_LIMIT)
		table.free[table.nfree++] = slot;
}

/* Does any live MR key begin with tag (its top 24 bits)? */
static bool mr_has_tag(uint32_t tag)
{
	for (uint32_t k = 0; k < 256; k++)
		if (uroce_mr_find_locked(tag << 8 | k))
			return true;
	return false;
}

/* A slot and a tag for mw: 0, or ENOMEM/ENOSPC. */
static int table_insert(struct uroce_mw *mw, uint32_t *tag)
{
	for (;;) {
		uint32_t slot, t;
		int ret;

		if (table.nfree) {
			slot = table.free[--table.nfree];
		} else {
			ret = table_grow();
			if (ret)
				return ret;
			slot = table.nslots++;
			table.gen[slot] = 0;
		}
		t = uroce_mw_tag_permute(slot << MW_GEN_BITS | table.gen[slot]);
		/* tag 0 could give rkey 0 ("no key"); an MR's tag is taken */
		if (!t || mr_has_tag(t)) {
			spend_generation(slot);
			continue;
		}
		table.mw[slot] = mw;
		mw->slot = slot;
		*tag = t;
		return 0;
	}
}

static struct uroce_mw *find_tag(uint32_t tag)
{
	uint32_t x = uroce_mw_tag_unpermute(tag & 0xffffff);
	uint32_t slot = x >> MW_GEN_BITS;

	if (slot >= table.nslots || !table.mw[slot] ||
	    table.gen[slot] != (x & (MW_GEN_LIMIT - 1)))
		return NULL;
	return table.mw[slot];
}

bool uroce_mw_tag_live(uint32_t tag)
{
	return table.nslots && find_tag(tag);
}

/* The window whose current rkey is rkey, or NULL. */
static struct uroce_mw *find_rkey(uint32_t rkey)
{
	struct uroce_mw *mw;

	if (!table.nslots)
		return NULL;
	mw = find_tag(rkey >> 8);
	return mw && mw->rkey == rkey ? mw : NULL;
}

/* Unbind (the MR's count of windows goes down) */
static void unbind(struct uroce_mw *mw)
{
	if (mw->mr)
		mw->mr->nmw--;
	mw->mr = NULL;
	mw->qp = NULL;
	mw->addr = 0;
	mw->length = 0;
	mw->access = 0;
}

/* ---- the verbs ------------------------------------------------------------ */

struct ibv_mw *uroce_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct uroce_mw *mw;
	uint32_t tag;
	int ret;

	if (type != IBV_MW_TYPE_1 && type != IBV_MW_TYPE_2) {
		sv_err("uroce: no memory window type %d", (int)type);
		ret = EINVAL;
		goto err;
	}
	ret = uroce_key_secret_ready();
	if (ret)
		goto err;
	mw = calloc(1, sizeof(*mw));
	if (!mw) {
		ret = ENOMEM;
		goto err;
	}
	mw->pd = pd;
	mw->type = type;
	uroce_mr_lock();
	if (table.live >= UROCE_MAX_MW) {
		sv_err("uroce: %u memory windows already (the device's max_mw)",
		       table.live);
		ret = ENOMEM;
	} else {
		ret = table_insert(mw, &tag);
		if (ret == ENOSPC)
			sv_err("uroce: every memory window tag of the process is spent");
	}
	if (ret) {
		uroce_mr_unlock();
		free(mw);
		goto err;
	}
	table.live++;
	/* the first key portion: one the peer cannot predict either */
	mw->rkey = tag << 8 | (uroce_mw_tag_permute(tag ^ 0xa5a5a5) & 0xff);
	mw->state = type == IBV_MW_TYPE_1 ? UROCE_MW_VALID : UROCE_MW_FREE;
	mw->ibmw.context = pd->context;
	mw->ibmw.pd = pd;
	mw->ibmw.rkey = mw->rkey;
	mw->ibmw.handle = mw->slot;
	mw->ibmw.type = type;
	uroce_mr_unlock();
	return &mw->ibmw;

err:
	errno = ret;
	return NULL;
}

/* Take mw out of the table and free it. MR table lock held. */
static void mw_remove(struct uroce_mw *mw)
{
	table.mw[mw->slot] = NULL;
	unbind(mw);
	spend_generation(mw->slot);
	table.live--;
	free(mw);
}

int uroce_dealloc_mw(struct ibv_mw *ibmw)
{
	uroce_mr_lock();
	mw_remove(to_uroce_mw(ibmw));
	uroce_mr_unlock();
	return 0;
}

void uroce_mw_release_context(struct ibv_context *ibctx)
{
	uroce_mr_lock();
	for (uint32_t slot = 0; slot < table.nslots; slot++) {
		struct uroce_mw *mw = table.mw[slot];

		if (mw && mw->ibmw.context == ibctx)
			mw_remove(mw);
	}
	uroce_mr_unlock();
}

void uroce_mw_forget_qp(struct uroce_qp *qp)
{
	uroce_mr_lock();
	for (uint32_t slot = 0; slot < table.nslots; slot++) {
		struct uroce_mw *mw = table.mw[slot];

		/* a type 2 window is usable through its QP only (rxe holds
		 * the QP; here it is gone: no QP will match) */
		if (mw && mw->qp == qp)
			mw->qp = NULL;
	}
	uroce_mr_unlock();
}

/* rxe_check_bind_mw's rules: 0 or EINVAL (logged). MR table lock held. */
static int check_bind(const struct uroce_qp *qp, const struct uroce_mw *mw,
		      const struct uroce_mr *mr, const struct uroce_bind *b)
{
	if (mw->type == IBV_MW_TYPE_1) {
		if (b->access & IBV_ACCESS_ZERO_BASED) {
			sv_err("uroce: a type 1 window is not zero based");
			return EINVAL;
		}
	} else {
		if (mw->state != UROCE_MW_FREE) {
			sv_err("uroce: type 2 window %#x is bound: invalidate it first",
			       mw->rkey);
			return EINVAL;
		}
		if (qp->core.qp.pd != mw->pd) {
			sv_err("uroce: a type 2 window binds through a QP of its PD");
			return EINVAL;
		}
		if (!mr || !b->length) {
			sv_err("uroce: a type 2 bind needs an MR and a non-empty range");
			return EINVAL;
		}
	}
	if (!mr)
		return 0;
	if (mr->pd != mw->pd) {
		sv_err("uroce: the MR is another PD's than the window");
		return EINVAL;
	}
	if (!(mr->access & IBV_ACCESS_MW_BIND)) {
		sv_err("uroce: the MR was registered without IBV_ACCESS_MW_BIND");
		return EINVAL;
	}
	if ((b->access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
	    !(mr->access & IBV_ACCESS_LOCAL_WRITE)) {
		sv_err("uroce: a writable window needs an MR with LOCAL_WRITE");
		return EINVAL;
	}
	/* zero based too: addr is where the window starts in the MR's
	 * iova space (rxe checks only the length at bind time, and the
	 * range at each access) */
	if (b->addr < mr->iova || b->length > mr->length ||
	    b->addr - mr->iova > mr->length - b->length) {
		sv_err("uroce: the window [%#llx, +%llu) is not inside its MR",
		       (unsigned long long)b->addr,
		       (unsigned long long)b->length);
		return EINVAL;
	}
	return 0;
}

int uroce_mw_bind(struct uroce_qp *qp, const struct uroce_bind *b)
{
	struct uroce_mr *mr = NULL;
	struct uroce_mw *mw;
	int ret;

	uroce_mr_lock();
	mw = find_rkey(b->mw_rkey);
	if (!mw) {
		sv_err("uroce: QP %#x: no window has rkey %#x",
		       qp->core.qp.qp_num, b->mw_rkey);
		ret = EINVAL;
		goto out;
	}
	if (b->length) {
		mr = uroce_mr_find_locked(b->mr_lkey);
		if (!mr || mr->core.mr.lkey != b->mr_lkey) {
			sv_err("uroce: QP %#x: no MR has lkey %#x",
			       qp->core.qp.qp_num, b->mr_lkey);
			ret = EINVAL;
			goto out;
		}
	}
	if (b->access & ~UROCE_MW_ACCESS) {
		sv_err("uroce: window access flags %#x not supported",
		       b->access & ~UROCE_MW_ACCESS);
		ret = EOPNOTSUPP;
		goto out;
	}
	ret = check_bind(qp, mw, mr, b);
	if (ret)
		goto out;
	unbind(mw);
	mw->rkey = (mw->rkey & ~0xffu) | (b->new_rkey & 0xff);
	mw->access = b->access;
	mw->state = UROCE_MW_VALID;
	mw->addr = b->addr;
	mw->length = b->length;
	if (b->length) {
		mw->mr = mr;
		mr->nmw++;
	}
	if (mw->type == IBV_MW_TYPE_2)
		mw->qp = qp;
out:
	uroce_mr_unlock();
	return ret;
}

int uroce_mw_invalidate(uint32_t rkey)
{
	struct uroce_mw *mw;
	int ret = 0;

	uroce_mr_lock();
	mw = find_rkey(rkey);
	if (!mw) {
		/* an MR's key, or nothing: rxe_invalidate_mr refuses every
		 * MR but a fast-registration one, and uroce has none */
		sv_dbg("uroce: rkey %#x names no window: not invalidated", rkey);
		ret = EINVAL;
	} else if (mw->type == IBV_MW_TYPE_1 || mw->state != UROCE_MW_VALID) {
		sv_dbg("uroce: window %#x is not a bound type 2 window: not invalidated",
		       rkey);
		ret = EINVAL;
	} else {
		unbind(mw);
		mw->state = UROCE_MW_FREE;
	}
	uroce_mr_unlock();
	return ret;
}

struct uroce_mr *uroce_rkey_check(struct uroce_qp *qp, uint32_t rkey,
				  uint64_t va, size_t len, int access,
				  uint64_t *mr_va, enum uroce_mr_fault *fault)
{
	struct uroce_mr *mr = NULL;
	struct uroce_mw *mw;
	enum uroce_mr_fault f = UROCE_MR_OK;

	uroce_mr_lock();
	mw = find_rkey(rkey);
	uroce_mr_unlock();
	if (!mw) {
		*mr_va = va;
		return uroce_mr_check(qp->core.qp.pd, rkey, va, len, access, fault);
	}
	/* the window could have gone between the two lock holds: look again */
	uroce_mr_lock();
	mw = find_rkey(rkey);
	if (!mw)
		f = UROCE_MR_BAD_KEY;
	else if (mw->pd != qp->core.qp.pd)
		f = UROCE_MR_BAD_PD;
	else if ((mw->type == IBV_MW_TYPE_2 && mw->qp != qp) || !mw->length ||
		 mw->state != UROCE_MW_VALID || !mw->mr)
		f = UROCE_MR_BAD_KEY;
	else if ((mw->access & access) != access)
		f = UROCE_MR_BAD_ACCESS;
	else {
		uint64_t base = mw->access & IBV_ACCESS_ZERO_BASED ? 0 : mw->addr;

		uint64_t at = mw->access & IBV_ACCESS_ZERO_BASED ?
				      mw->addr + va : va;

		/* inside the window, and so inside its MR (the bind
		 * checked; the MR's range never changes) */
		if (va < base || len > mw->length ||
		    va - base > mw->length - len || at < mw->mr->iova ||
		    at - mw->mr->iova > mw->mr->length - len) {
			f = UROCE_MR_BAD_RANGE;
		} else {
			mr = mw->mr;
			mr->refs++;
			*mr_va = at;
		}
	}
	uroce_mr_unlock();
	*fault = f;
	return mr;
}

/* ---- type 1: ibv_bind_mw ---------------------------------------------------- */

int uroce_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *ibmw,
		  struct ibv_mw_bind *mw_bind)
{
	const struct ibv_mw_bind_info *bi = &mw_bind->bind_info;
	struct uroce_bind b = {
		.mw_rkey = ibmw->rkey,
		.new_rkey = ibv_inc_rkey(ibmw->rkey),
		.mr_lkey = bi->mr ? bi->mr->lkey : 0,
		.addr = bi->addr,
		.length = bi->length,
		.access = (int)bi->mw_access_flags,
	};
	int ret;

	if (ibmw->type != IBV_MW_TYPE_1) {
		sv_err("uroce: ibv_bind_mw binds type 1 windows; type 2 uses IBV_WR_BIND_MW");
		return EINVAL;
	}
	if (ibqp->qp_type != IBV_QPT_RC && ibqp->qp_type != IBV_QPT_UC) {
		sv_err("uroce: QP %#x: windows are bound through RC or UC QPs",
		       ibqp->qp_num);
		return EINVAL;
	}
	if (bi->length && !bi->mr) {
		sv_err("uroce: binding %llu bytes needs an MR",
		       (unsigned long long)bi->length);
		return EINVAL;
	}
	if (bi->mw_access_flags & IBV_ACCESS_ZERO_BASED) {
		sv_err("uroce: a type 1 window is not zero based");
		return EINVAL;
	}
	/* rdma-core's rxe: the MR of the window's PD (verbs.h's wrapper
	 * checks the QP's) */
	if (bi->mr && bi->mr->pd != ibmw->pd) {
		sv_err("uroce: the MR is another PD's than the window");
		return EPERM;
	}
	ret = uroce_post_bind(to_uroce_qp(ibqp), mw_bind->wr_id,
			      (int)mw_bind->send_flags, &b);
	/* the key the window will carry (as rdma-core's rxe: set once
	 * the WQE is posted, whatever its completion says) */
	if (!ret)
		ibmw->rkey = b.new_rkey;
	return ret;
}
