/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* uroce's requester: ibv_post_send, and what an RC requester does with
 * the ACKs and NAKs that come back.
 *
 * post_send gathers each message (its SGEs checked as local reads of
 * MRs of the QP's PD, or its inline data) into a buffer of the WQE, and
 * cuts it into packets as rxe_requester does: FIRST and MIDDLE packets
 * of exactly the path MTU, the RETH on the first packet of an RDMA
 * WRITE, ImmDt on the last. UD and UC WQEs are sent at once from the
 * caller's thread and complete once sent; RC WQEs stay in the send
 * queue, with their message, until an ACK covers their last PSN (ACKs
 * are cumulative).
 *
 * RC windows, rxe's (kmod-notes/uroce-wire.md): a cursor (sq_cur,
 * cur_pkt) walks the send queue in order and sends a packet only while
 * its PSN is at most UROCE_MAX_UNACKED_PSNS past the oldest
 * unacknowledged one (acked_psn); a READ or an atomic only while fewer
 * than max_rd_atomic of them are outstanding, the WQEs behind it
 * waiting; a fenced WQE only once every WQE before it completed (its
 * message read from its buffers then, not at post). post_send sends the
 * first window from the caller's thread; the ACKs that open the window
 * send the rest from the thread that handles them (the progress thread,
 * or one polling an empty CQ: uroce_net_progress). AckReq on a message's
 * last packet and on the packet after more than UROCE_MAX_PKT_PER_ACK
 * without one (rxe's counter of the QP).
 * ibv_wr_complete's batches (uroce_qp_ex.c) come through
 * uroce_post_send_all: every WR checked, then all posted, or none.
 *
 * A PSN-sequence NAK acknowledges what precedes its PSN and makes the
 * requester send again from that PSN (go-back-N), which takes one retry
 * from retry_cnt as a timeout does (rxe's completer: at 0 the oldest WQE
 * completes with IBV_WC_RETRY_EXC_ERR); a NAK while a retry is under
 * way, before any ACK, starts none (rxe's started_retry); NAKs for an invalid
 * request, a remote access or operational error complete the WQE with
 * rxe's status and move the QP to the error state.
 *
 * RDMA READ: one request packet whose RETH names the whole range; the
 * responses take ceil(len / MTU) PSNs and are placed, in PSN order,
 * through the WQE's SGEs (checked as local writes); the last completes
 * the WQE, and any response acknowledges the WQEs before it.
 *
 * Atomics (CMP_AND_SWP, FETCH_AND_ADD; RC only): 8 bytes at an 8-byte
 * aligned remote address, as rxe's validate_send_wr demands; one
 * request packet with the AtomicETH, one PSN; the ATOMIC ACKNOWLEDGE's
 * original value goes through the WQE's SGEs (a local write) and
 * completes it. Like a READ, it completes only with its own response.
 *
 * Timers: while WQEs await their ACK, the retransmit timer (4.096 us *
 * 2^timeout) sends again from the oldest unacknowledged packet
 * (go-back-N, through the windows), retry_cnt times (7: for ever, as
 * rxe), then completes the oldest with IBV_WC_RETRY_EXC_ERR; an RNR NAK
 * sends again after the time its syndrome names (IBTA table 45),
 * rnr_retry times, then IBV_WC_RNR_RETRY_EXC_ERR. Either error (or an
 * error NAK) moves the QP to the error state and flushes the rest, with
 * no async event: rxe's completer raises none. The progress thread looks
 * at the timers every UROCE_TIMER_TICK_NS.
 *
 * ATOMIC WRITE and FLUSH (RC; rxe from kernel 6.2): one request packet,
 * one PSN each. An ATOMIC WRITE (RETH, its 8 bytes the payload) holds a
 * max_rd_atomic slot as rxe_requester's check_init_depth has it; a FLUSH
 * (FETH with the placement type and selectivity level, then the RETH
 * naming the range; no payload) does not. rxe's responder answers both
 * with an empty RDMA READ RESPONSE ONLY at the request's PSN, which
 * completes them, as does any later ACK (rxe_comp.c: neither is a READ
 * or an atomic that must see its own response). A FLUSH comes only
 * through ibv_wr_flush (an ibv_send_wr has no fields for it: the batch
 * carries it in wr.atomic, uroce_flush_wr_set); ibv_post_send refuses it.
 *
 * SEND with invalidate (RC): a SEND whose last packet is
 * SEND_LAST/ONLY_WITH_INVALIDATE, the IETH carrying the rkey.
 * LOCAL_INV and BIND_MW (RC; BIND_MW also UC) put nothing on the wire:
 * they execute at post time (uroce_mw.c), complete in the send queue's
 * order, and a failure completes them with rxe's status
 * (IBV_WC_LOC_QP_OP_ERR, IBV_WC_MW_BIND_ERR) and moves the QP to the
 * error state; the window's cursor steps over them. */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "explain.h"
#include "uroce.h"

/* rxe's largest message (RXE_PORT_MAX_MSG_SZ) */
#define UROCE_MAX_MSG 0x800000u

/* ---- cutting a message into packets ----------------------------------------------- */

enum { OP_FIRST, OP_MIDDLE, OP_LAST, OP_LAST_IMM, OP_ONLY, OP_ONLY_IMM };

static uint8_t qpt_bits(const struct uroce_qp *qp)
{
	switch (qp->core.qp.qp_type) {
	case IBV_QPT_UC:
		return UROCE_QPT_UC;
	case IBV_QPT_UD:
		return UROCE_QPT_UD;
	default:
		return UROCE_QPT_RC;
	}
}

/* SV_WR_FLUSH is no value of Debian 12's enum ibv_wr_opcode (rdma-core
 * 44): compared as an int */
static bool is_flush(enum ibv_wr_opcode op)
{
	return (int)op == SV_WR_FLUSH;
}

/* The opcode of packet i of n: SEND 0x00-0x05, WRITE 0x06-0x0b past the
 * transport's bits (ib_pack.h). */
static uint8_t opcode_of(const struct uroce_qp *qp, const struct uroce_swqe *w,
			 uint32_t i, uint32_t n)
{
	bool write = w->opcode == IBV_WR_RDMA_WRITE ||
		     w->opcode == IBV_WR_RDMA_WRITE_WITH_IMM;
	bool imm = w->opcode == IBV_WR_SEND_WITH_IMM ||
		   w->opcode == IBV_WR_RDMA_WRITE_WITH_IMM;
	unsigned int pos;

	if (is_flush(w->opcode))
		return UROCE_OP_RC_FLUSH;
	if (w->opcode == IBV_WR_ATOMIC_WRITE)
		return UROCE_OP_RC_ATOMIC_WRITE;
	/* SEND with invalidate: the IETH rides on the last packet (RC
	 * only: rxe's next_opcode_rc) */
	if (w->opcode == IBV_WR_SEND_WITH_INV && i + 1 == n)
		return n == 1 ? UROCE_OP_RC_SEND_ONLY_WITH_INVALIDATE :
				UROCE_OP_RC_SEND_LAST_WITH_INVALIDATE;
	if (n == 1)
		pos = imm ? OP_ONLY_IMM : OP_ONLY;
	else if (i == 0)
		pos = OP_FIRST;
	else if (i + 1 < n)
		pos = OP_MIDDLE;
	else
		pos = imm ? OP_LAST_IMM : OP_LAST;
	return (uint8_t)(qpt_bits(qp) | ((write ? 6 : 0) + pos));
}

static uint32_t mtu_of(const struct uroce_qp *qp)
{
	return qp->core.qp.qp_type == IBV_QPT_UD ? qp->ud_mtu :
						   128u << qp->attr.path_mtu;
}

static uint32_t npkts_of(const struct uroce_qp *qp, uint32_t len)
{
	uint32_t mtu = mtu_of(qp);

	return len ? (len + mtu - 1) / mtu : 1;
}

/* The packets (PSNs) of w's message: a FLUSH is one, whatever the
 * length of the range it names */
static uint32_t wqe_npkts(const struct uroce_qp *qp, const struct uroce_swqe *w)
{
	return is_flush(w->opcode) ? 1 : npkts_of(qp, w->len);
}

struct ud_dest {
	const struct uroce_route *route;
	uint32_t qpn, qkey;
};

/* Send packet i of w's message: 0 or a positive errno. */
static int send_packet(struct uroce_qp *qp, const struct uroce_swqe *w,
		       uint32_t i, const struct ud_dest *ud)
{
	uint8_t buf[UROCE_MAX_HDR_BYTES + UROCE_MAX_PAYLOAD + 8];
	uint32_t mtu = mtu_of(qp), n = wqe_npkts(qp, w);
	uint32_t off = i * mtu;
	/* a FLUSH's length is the RETH's, it carries no payload (oA19-2) */
	uint32_t plen = is_flush(w->opcode) ? 0 :
			w->len - off < mtu ? w->len - off : mtu;
	struct uroce_pkt pkt = { 0 };
	int len;

	pkt.bth.opcode = opcode_of(qp, w, i, n);
	pkt.bth.se = w->solicited && i + 1 == n;
	pkt.bth.pkey = UROCE_DEF_PKEY;
	pkt.bth.dest_qpn = ud ? ud->qpn : qp->attr.dest_qp_num;
	pkt.bth.psn = uroce_psn_add(w->first_psn, i);
	/* rxe's cadence: the last packet, and the one after more than
	 * UROCE_MAX_PKT_PER_ACK without (retransmissions count too) */
	if (qp->core.qp.qp_type == IBV_QPT_RC) {
		pkt.bth.ack_req = i + 1 == n ||
				  qp->noack_pkts++ > UROCE_MAX_PKT_PER_ACK;
		if (pkt.bth.ack_req)
			qp->noack_pkts = 0;
	}
	pkt.reth.va = w->remote_va;
	pkt.reth.rkey = w->rkey;
	pkt.reth.len = w->len;
	pkt.imm = be32toh(w->imm);
	pkt.ieth_rkey = w->inv_rkey;
	pkt.feth.plt = w->flush_type;
	pkt.feth.sel = w->flush_level;
	if (ud) {
		pkt.deth.qkey = ud->qkey;
		pkt.deth.src_qpn = qp->core.qp.qp_num;
	}
	len = uroce_build(buf, sizeof(buf), &pkt, plen ? w->data + off : NULL,
			  plen);
	if (len < 0)
		return -len;
	return uroce_net_send(qp->ctx, ud ? ud->route : &qp->peer, buf, (size_t)len);
}

/* Send all of w's packets (UC; the QP's lock held). */
static int send_all(struct uroce_qp *qp, const struct uroce_swqe *w)
{
	uint32_t n = wqe_npkts(qp, w);

	for (uint32_t i = 0; i < n; i++) {
		int ret = send_packet(qp, w, i, NULL);

		if (ret)
			return ret;
	}
	return 0;
}

/* ---- timers ---------------------------------------------------------------------- */

/* IBTA's RNR NAK timer field (table 45, the one rxe's rnrnak_usec
 * holds), in microseconds */
static const uint32_t rnr_usec[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The Local ACK Timeout: 4.096 us * 2^timeout, 0 meaning none (IBTA
 * 9.7.6.1.3); at least the progress thread's tick, which checks it */
static uint64_t rto_ns(const struct uroce_qp *qp)
{
	uint64_t t = 4096ull << qp->attr.timeout;

	if (!qp->attr.timeout)
		return 0;
	return t < UROCE_TIMER_TICK_NS ? UROCE_TIMER_TICK_NS : t;
}

/* The retransmit timer from now while WQEs await their ACK (the QP's
 * lock held) */
static void arm(struct uroce_qp *qp)
{
	uint64_t rto = rto_ns(qp);

	qp->rnr_wait = false;
	if (qp->core.qp.qp_type != IBV_QPT_RC || qp->sq_head == qp->sq_tail ||
	    !rto || qp->attr.qp_state != IBV_QPS_RTS)
		qp->timer_ns = 0;
	else
		qp->timer_ns = now_ns() + rto;
}

/* ---- post_send ------------------------------------------------------------------- */

/* Which QP types take an opcode. rxe: BIND_MW on RC and UC, LOCAL_INV
 * on RC (rxe_wr_opcode_info); SEND with invalidate is posted on RC, UC
 * and UD there but only RC's requester has a wire opcode for it (the
 * others complete with LOC_QP_OP_ERR): uroce refuses it on UC and UD at
 * post time (EINVAL), as softverbs' rxe provider does on UD. */
static bool opcode_ok(const struct uroce_qp *qp, enum ibv_wr_opcode op)
{
	if (is_flush(op))
		return qp->core.qp.qp_type == IBV_QPT_RC;
	switch (op) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		return true;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_BIND_MW:
		return qp->core.qp.qp_type != IBV_QPT_UD;
	case IBV_WR_RDMA_READ:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_LOCAL_INV:
	case IBV_WR_ATOMIC_WRITE:
		return qp->core.qp.qp_type == IBV_QPT_RC;
	default:
		return false;
	}
}

static bool is_atomic(enum ibv_wr_opcode op)
{
	return op == IBV_WR_ATOMIC_CMP_AND_SWP || op == IBV_WR_ATOMIC_FETCH_AND_ADD;
}

/* READ and atomics: complete with their responses, not with an ACK */
static bool wants_response(const struct uroce_swqe *w)
{
	return w->opcode == IBV_WR_RDMA_READ || is_atomic(w->opcode);
}

/* READ, atomics and ATOMIC WRITE: at most max_rd_atomic outstanding
 * (rxe_requester's check_init_depth; a FLUSH is not counted) */
static bool takes_rd_slot(const struct uroce_swqe *w)
{
	return wants_response(w) || w->opcode == IBV_WR_ATOMIC_WRITE;
}

/* LOCAL_INV, BIND_MW: executed at post, no packet */
static bool is_local(enum ibv_wr_opcode op)
{
	return op == IBV_WR_LOCAL_INV || op == IBV_WR_BIND_MW;
}

static int check_sq_room(const struct uroce_qp *qp)
{
	if (qp->sq_tail - qp->sq_head == qp->sq_slots) {
		sv_explain_send_full(&qp->core.qp, qp->cap.max_send_wr);
		return ENOMEM;
	}
	return 0;
}

/* A local WR's fields (no SGEs are read) */
static int check_local(const struct uroce_qp *qp, const struct ibv_send_wr *wr)
{
	if (wr->opcode == IBV_WR_BIND_MW) {
		const struct ibv_mw_bind_info *bi = &wr->bind_mw.bind_info;

		if (!wr->bind_mw.mw || (bi->length && !bi->mr)) {
			sv_err("uroce: QP %#x: BIND_MW needs a window, and an MR for a non-empty range",
			       qp->core.qp.qp_num);
			return EINVAL;
		}
		if (wr->bind_mw.mw->type != IBV_MW_TYPE_2) {
			sv_err("uroce: QP %#x: IBV_WR_BIND_MW binds type 2 windows; type 1 uses ibv_bind_mw",
			       qp->core.qp.qp_num);
			return EINVAL;
		}
	}
	return check_sq_room(qp);
}

static int check_wr(struct uroce_qp *qp, const struct ibv_send_wr *wr,
		    uint64_t *len)
{
	*len = 0;
	if (!opcode_ok(qp, wr->opcode)) {
		sv_err("uroce: QP %#x: send opcode %d is not supported on this QP (yet)",
		       qp->core.qp.qp_num, wr->opcode);
		return EINVAL;
	}
	if (is_local(wr->opcode))
		return check_local(qp, wr);
	if (is_flush(wr->opcode)) {
		/* ibv_wr_flush checked the type, level and length */
		*len = uroce_flush_wr_len(wr);
		return check_sq_room(qp);
	}
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->cap.max_send_sge) {
		sv_err("uroce: QP %#x: num_sge %d above max_send_sge %u",
		       qp->core.qp.qp_num, wr->num_sge, qp->cap.max_send_sge);
		return EINVAL;
	}
	for (int i = 0; i < wr->num_sge; i++)
		*len += wr->sg_list[i].length;
	if ((wr->send_flags & IBV_SEND_INLINE) &&
	    (wr->opcode == IBV_WR_RDMA_READ || is_atomic(wr->opcode))) {
		sv_err("uroce: QP %#x: a READ or an atomic cannot be inline",
		       qp->core.qp.qp_num);
		return EINVAL;
	}
	if (is_atomic(wr->opcode) && (*len != 8 || (wr->wr.atomic.remote_addr & 7))) {
		sv_err("uroce: QP %#x: an atomic takes 8 bytes (not %llu) at an 8-byte aligned address (not %#llx)",
		       qp->core.qp.qp_num, (unsigned long long)*len,
		       (unsigned long long)wr->wr.atomic.remote_addr);
		return EINVAL;
	}
	/* rxe_req.c: the 8 bytes travel in the WQE, never as SGEs read
	 * late; uroce_post_send reads them at post (through the SGEs,
	 * checked as local reads, or inline), ibv_wr_atomic_write takes
	 * them itself */
	if (wr->opcode == IBV_WR_ATOMIC_WRITE &&
	    (*len != 8 || (wr->wr.rdma.remote_addr & 7))) {
		sv_err("uroce: QP %#x: an ATOMIC WRITE writes 8 bytes (not %llu) at an 8-byte aligned address (not %#llx)",
		       qp->core.qp.qp_num, (unsigned long long)*len,
		       (unsigned long long)wr->wr.rdma.remote_addr);
		return EINVAL;
	}
	if ((wr->send_flags & IBV_SEND_INLINE) && *len > qp->cap.max_inline_data &&
	    wr->opcode != IBV_WR_ATOMIC_WRITE) {
		sv_err("uroce: QP %#x: %llu bytes inline, above max_inline_data %u",
		       qp->core.qp.qp_num, (unsigned long long)*len,
		       qp->cap.max_inline_data);
		return EINVAL;
	}
	if (*len > (qp->core.qp.qp_type == IBV_QPT_UD ? qp->ud_mtu : UROCE_MAX_MSG)) {
		sv_err("uroce: QP %#x: a message of %llu bytes is too long",
		       qp->core.qp.qp_num, (unsigned long long)*len);
		return EINVAL;
	}
	return check_sq_room(qp);
}

/* Copy the message the SGEs describe (inl: addresses of inline data)
 * into dst: false on a local protection error (an SGE outside the MRs
 * of the QP's PD). */
static bool gather(struct uroce_qp *qp, const struct ibv_sge *sges,
		   uint32_t num_sge, bool inl, uint8_t *dst)
{
	uint32_t off = 0;

	for (uint32_t i = 0; i < num_sge; i++) {
		const struct ibv_sge *sge = &sges[i];
		enum uroce_mr_fault fault;
		struct uroce_mr *mr;

		if (inl) {
			if (sge->length)
				memcpy(dst + off, (void *)(uintptr_t)sge->addr,
				       sge->length);
		} else if (sge->length) {
			mr = uroce_mr_check(qp->core.qp.pd, sge->lkey, sge->addr,
					    sge->length, 0, &fault);
			if (!mr)
				return false;
			memcpy(dst + off, uroce_mr_ptr(mr, sge->addr), sge->length);
			uroce_mr_put(mr);
		}
		off += sge->length;
	}
	return true;
}

/* A fenced SEND or WRITE reads its buffers when it is sent, not at
 * post (a READ before it may be what fills them): its SGEs wait behind
 * the message's room in w->data, aligned. */
static size_t fence_sge_off(uint32_t len)
{
	return ((size_t)len + 7) & ~(size_t)7;
}

static void fill_wqe(struct uroce_swqe *w, const struct ibv_send_wr *wr,
		     uint32_t len)
{
	w->wr_id = wr->wr_id;
	w->opcode = wr->opcode;
	w->signaled = wr->send_flags & IBV_SEND_SIGNALED;
	w->solicited = wr->send_flags & IBV_SEND_SOLICITED;
	w->imm = wr->imm_data;
	if (wr->opcode == IBV_WR_SEND_WITH_INV)
		w->inv_rkey = wr->invalidate_rkey;
	w->remote_va = wr->wr.rdma.remote_addr;
	w->rkey = wr->wr.rdma.rkey;
	w->len = len;
	w->fence = wr->send_flags & IBV_SEND_FENCE;
}

static int send_ud(struct uroce_qp *qp, const struct ibv_send_wr *wr,
		   const struct uroce_swqe *w)
{
	struct uroce_ah *ah = to_uroce_ah(wr->wr.ud.ah);
	/* a Q_Key with the top bit set means the QP's (IBTA 10.2.5) */
	struct ud_dest ud = {
		.route = &ah->route,
		.qpn = wr->wr.ud.remote_qpn,
		.qkey = (int32_t)wr->wr.ud.remote_qkey < 0 ? qp->attr.qkey :
							     wr->wr.ud.remote_qkey,
	};

	return send_packet(qp, w, 0, &ud);
}

/* A READ request: one packet, the RETH naming the whole range; the WQE
 * keeps its SGEs for the responses, which take ceil(len / MTU) PSNs. */
static void send_read_request(struct uroce_qp *qp, const struct uroce_swqe *w)
{
	uint8_t buf[UROCE_MAX_HDR_BYTES + 8];
	struct uroce_pkt pkt = { 0 };
	/* what the responses so far brought is not asked again */
	uint32_t done = (uint32_t)uroce_psn_diff(w->read_psn, w->first_psn) *
			mtu_of(qp);
	int out;

	pkt.bth.opcode = UROCE_OP_RC_RDMA_READ_REQUEST;
	pkt.bth.pkey = UROCE_DEF_PKEY;
	pkt.bth.dest_qpn = qp->attr.dest_qp_num;
	pkt.bth.psn = w->read_psn;
	pkt.bth.ack_req = true;
	pkt.reth.va = w->remote_va + done;
	pkt.reth.rkey = w->rkey;
	pkt.reth.len = w->len - done;
	out = uroce_build(buf, sizeof(buf), &pkt, NULL, 0);
	if (out > 0)
		uroce_net_send(qp->ctx, &qp->peer, buf, (size_t)out);
}

/* An atomic request: one packet, one PSN. */
static void send_atomic_request(struct uroce_qp *qp, const struct uroce_swqe *w)
{
	uint8_t buf[UROCE_MAX_HDR_BYTES + 8];
	struct uroce_pkt pkt = { 0 };
	int out;

	pkt.bth.opcode = w->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ?
				 UROCE_OP_RC_COMPARE_SWAP : UROCE_OP_RC_FETCH_ADD;
	pkt.bth.pkey = UROCE_DEF_PKEY;
	pkt.bth.dest_qpn = qp->attr.dest_qp_num;
	pkt.bth.psn = w->first_psn;
	pkt.bth.ack_req = true;
	pkt.atmeth.va = w->remote_va;
	pkt.atmeth.rkey = w->rkey;
	pkt.atmeth.swap_add = w->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ? w->swap :
								     w->compare_add;
	pkt.atmeth.comp = w->compare_add;
	out = uroce_build(buf, sizeof(buf), &pkt, NULL, 0);
	if (out > 0)
		uroce_net_send(qp->ctx, &qp->peer, buf, (size_t)out);
}

/* Send the request of a WQE that waits for a response (again). */
static void send_response_request(struct uroce_qp *qp, const struct uroce_swqe *w)
{
	if (w->opcode == IBV_WR_RDMA_READ)
		send_read_request(qp, w);
	else if (w->read_psn == w->first_psn)
		send_atomic_request(qp, w);
}

/* ---- the windows (RC) ----------------------------------------------------------------- */

static void fail_head(struct uroce_qp *qp, enum ibv_wc_status st);

/* How many READ/atomic WQEs may be outstanding: max_rd_atomic (already
 * a power of two, uroce_qp.c), and one when it is 0, as rxe's rounding
 * of 0 gives */
static uint32_t rd_limit(const struct uroce_qp *qp)
{
	return qp->attr.max_rd_atomic ? qp->attr.max_rd_atomic : 1;
}

/* The retries count again (rxe's reset_retry_counters) */
static void reset_retries(struct uroce_qp *qp)
{
	qp->retry_left = qp->attr.retry_cnt;
	qp->rnr_left = qp->attr.rnr_retry;
	qp->retry_started = false;
}

/* The PSNs before psn are acknowledged: false when they were already */
static bool acked_to(struct uroce_qp *qp, uint32_t psn)
{
	if (uroce_psn_diff(psn, qp->acked_psn) <= 0)
		return false;
	qp->acked_psn = psn;
	return true;
}

/* An ACK or a response acknowledges the PSNs before psn: progress, as
 * rxe's completer counts it, so the retries count again and the
 * retransmit timer starts again; a message longer than the window
 * completes over many round trips, each within the timeout. */
static void ack_to(struct uroce_qp *qp, uint32_t psn)
{
	if (!acked_to(qp, psn))
		return;
	reset_retries(qp);
	arm(qp);
}

/* The next packet to send is the head WQE's oldest unacknowledged one
 * (go-back-N starts there; a READ asks again from its first missing
 * response, send_read_request). */
static void cursor_to_head(struct uroce_qp *qp)
{
	qp->sq_cur = qp->sq_head;
	qp->cur_pkt = 0;
	if (qp->sq_head != qp->sq_tail) {
		const struct uroce_swqe *w = &qp->sq[qp->sq_head % qp->sq_slots];
		int32_t d = uroce_psn_diff(qp->acked_psn, w->first_psn);
		uint32_t n = wqe_npkts(qp, w);

		if (!wants_response(w) && d > 0)
			qp->cur_pkt = (uint32_t)d < n ? (uint32_t)d : n - 1;
	}
}

/* Send what the windows allow from the cursor on (RC in RTS, not
 * waiting out an RNR NAK; the QP's lock held). The caller's thread
 * sends from post_send, the thread that handles an ACK (the progress
 * thread, or one polling an empty CQ) the packets it lets go. */
static void push(struct uroce_qp *qp)
{
	if (qp->core.qp.qp_type != IBV_QPT_RC ||
	    qp->attr.qp_state != IBV_QPS_RTS || qp->rnr_wait)
		return;
	/* completions passed the cursor (the head WQE's ACK came while
	 * its last packets waited) */
	if (qp->sq_cur - qp->sq_head > qp->sq_tail - qp->sq_head)
		cursor_to_head(qp);
	while (qp->sq_cur != qp->sq_tail) {
		struct uroce_swqe *w = &qp->sq[qp->sq_cur % qp->sq_slots];
		bool response = wants_response(w);
		uint32_t psn;

		if (w->local) { /* LOCAL_INV, BIND_MW: nothing on the wire */
			qp->sq_cur++;
			qp->cur_pkt = 0;
			continue;
		}
		if (qp->cur_pkt == 0) {
			/* rxe_req.c's req_next_wqe: a fenced WQE waits for
			 * every WQE before it, not only READs and atomics */
			if (w->fence && qp->sq_cur != qp->sq_head)
				return;
			if (w->num_sge && !response) {
				/* a fenced SEND or WRITE: its message now */
				uint32_t n = w->num_sge;

				w->num_sge = 0;
				if (!gather(qp, (const struct ibv_sge *)(w->data +
						fence_sge_off(w->len)), n, false,
					    w->data)) {
					fail_head(qp, IBV_WC_LOC_PROT_ERR);
					return;
				}
			}
			/* check_init_depth: no slot, no sending, for it
			 * and the WQEs behind it */
			if (takes_rd_slot(w) && !w->rd_slot) {
				if (qp->rd_out >= rd_limit(qp))
					return;
				w->rd_slot = true;
				qp->rd_out++;
			}
		}
		psn = response ? w->read_psn : uroce_psn_add(w->first_psn, qp->cur_pkt);
		if (uroce_psn_diff(psn, qp->acked_psn) > UROCE_MAX_UNACKED_PSNS)
			return;
		if (response) {
			send_response_request(qp, w);
			qp->sq_cur++;
			continue;
		}
		/* a lost packet is the retransmit timer's */
		(void)send_packet(qp, w, qp->cur_pkt, NULL);
		if (++qp->cur_pkt == wqe_npkts(qp, w)) {
			qp->sq_cur++;
			qp->cur_pkt = 0;
		}
	}
}

/* Go-back-N: send again from the oldest unacknowledged packet. */
static void go_back(struct uroce_qp *qp)
{
	cursor_to_head(qp);
	push(qp);
}

void uroce_req_reset(struct uroce_qp *qp)
{
	qp->sq_cur = qp->sq_tail;
	qp->cur_pkt = 0;
	qp->acked_psn = qp->sq_psn;
	qp->rd_out = 0;
	qp->noack_pkts = 0;
	qp->retry_started = false;
}

/* Complete the head WQE with st: its message freed, its READ/atomic
 * slot given back. */
static void retire_head(struct uroce_qp *qp, enum ibv_wc_status st)
{
	struct uroce_swqe *w = &qp->sq[qp->sq_head % qp->sq_slots];

	uroce_complete_send(qp, w, st);
	free(w->data);
	w->data = NULL;
	if (w->rd_slot) {
		w->rd_slot = false;
		qp->rd_out--;
	}
	qp->sq_head++;
}

/* A READ or an atomic: the WQE keeps the SGEs for the response. */
static int post_read(struct uroce_qp *qp, const struct ibv_send_wr *wr,
		     struct uroce_swqe *w, uint32_t len)
{
	size_t sz = sizeof(struct ibv_sge) * (size_t)wr->num_sge;

	w->data = malloc(sz ? sz : 1);
	if (!w->data)
		return ENOMEM;
	if (sz)
		memcpy(w->data, wr->sg_list, sz);
	fill_wqe(w, wr, len);
	w->num_sge = (uint32_t)wr->num_sge;
	if (is_atomic(wr->opcode)) {
		w->remote_va = wr->wr.atomic.remote_addr;
		w->rkey = wr->wr.atomic.rkey;
		w->compare_add = wr->wr.atomic.compare_add;
		w->swap = wr->wr.atomic.swap;
	}
	qp->sq_tail++;
	if (qp->attr.qp_state == IBV_QPS_ERR) {
		uroce_qp_to_error(qp); /* flushes it */
		return 0;
	}
	w->first_psn = w->read_psn = qp->sq_psn;
	qp->sq_psn = uroce_psn_add(qp->sq_psn, is_atomic(w->opcode) ? 1 :
							npkts_of(qp, len));
	w->last_psn = uroce_psn_add(qp->sq_psn, UROCE_PSN_MASK); /* - 1 */
	return 0; /* push sends it */
}

/* A local WQE w (at the tail, not yet posted) failed with st: the
 * WQEs before it are flushed, it completes with st, the QP goes to the
 * error state (rxe_requester's err path, then its completer's flush) */
static void fail_local(struct uroce_qp *qp, struct uroce_swqe *w,
		       enum ibv_wc_status st)
{
	uroce_qp_to_error(qp);
	uroce_complete_send(qp, w, st);
}

/* Post a LOCAL_INV or BIND_MW (checked; the QP's lock held): executed
 * now, as rxe's requester executes it when it reaches it; it completes
 * now when nothing is ahead of it, else with the WQE before it (it
 * takes that one's last PSN), so completions keep the send queue's
 * order. b: BIND_MW's fields; inv_rkey: LOCAL_INV's key. */
static int post_local(struct uroce_qp *qp, uint64_t wr_id, int send_flags,
		      enum ibv_wr_opcode opcode, const struct uroce_bind *b,
		      uint32_t inv_rkey)
{
	struct uroce_swqe *w = &qp->sq[qp->sq_tail % qp->sq_slots];
	enum ibv_wc_status st = IBV_WC_SUCCESS;

	memset(w, 0, sizeof(*w));
	w->wr_id = wr_id;
	w->opcode = opcode;
	w->signaled = send_flags & IBV_SEND_SIGNALED;
	w->local = true;
	if (qp->attr.qp_state == IBV_QPS_ERR) {
		qp->sq_tail++;
		uroce_qp_to_error(qp); /* flushes it */
		return 0;
	}
	if (opcode == IBV_WR_BIND_MW) {
		if (uroce_mw_bind(qp, b))
			st = IBV_WC_MW_BIND_ERR;
	} else if (uroce_mw_invalidate(inv_rkey)) {
		sv_err("uroce: QP %#x: LOCAL_INV of %#x: no bound type 2 window has it",
		       qp->core.qp.qp_num, inv_rkey);
		st = IBV_WC_LOC_QP_OP_ERR;
	}
	if (st != IBV_WC_SUCCESS) {
		fail_local(qp, w, st);
		return 0;
	}
	if (qp->sq_head == qp->sq_tail) {
		uroce_complete_send(qp, w, IBV_WC_SUCCESS);
		return 0;
	}
	w->first_psn = w->last_psn = uroce_psn_add(qp->sq_psn, UROCE_PSN_MASK);
	qp->sq_tail++;
	return 0;
}

int uroce_post_bind(struct uroce_qp *qp, uint64_t wr_id, int send_flags,
		    const struct uroce_bind *b)
{
	int ret;

	pthread_mutex_lock(&qp->lock);
	if (qp->attr.qp_state != IBV_QPS_RTS && qp->attr.qp_state != IBV_QPS_ERR) {
		sv_err("uroce: QP %#x: bind in state %d (needs RTS)",
		       qp->core.qp.qp_num, qp->attr.qp_state);
		ret = EINVAL;
	} else {
		ret = check_sq_room(qp);
	}
	if (!ret)
		ret = post_local(qp, wr_id, send_flags, IBV_WR_BIND_MW, b, 0);
	pthread_mutex_unlock(&qp->lock);
	return ret;
}

/* A FLUSH (checked; the QP's lock held): one packet, no data; the range
 * and its length travel in the RETH. */
static int post_flush(struct uroce_qp *qp, const struct ibv_send_wr *wr,
		      struct uroce_swqe *w)
{
	fill_wqe(w, wr, uroce_flush_wr_len(wr));
	w->remote_va = wr->wr.atomic.remote_addr;
	w->rkey = wr->wr.atomic.rkey;
	w->flush_type = uroce_flush_wr_type(wr);
	w->flush_level = uroce_flush_wr_level(wr);
	qp->sq_tail++;
	if (qp->attr.qp_state == IBV_QPS_ERR) {
		uroce_qp_to_error(qp); /* flushes it */
		return 0;
	}
	w->first_psn = w->last_psn = qp->sq_psn;
	qp->sq_psn = uroce_psn_add(qp->sq_psn, 1);
	return 0; /* push sends it */
}

/* Post one WR (the QP's lock held): 0 or a positive errno. */
static int post_one(struct uroce_qp *qp, const struct ibv_send_wr *wr)
{
	struct uroce_swqe *w;
	uint64_t len;
	int ret;

	if (qp->attr.qp_state != IBV_QPS_RTS && qp->attr.qp_state != IBV_QPS_ERR) {
		sv_explain_post_state("post_send", &qp->core.qp, "needs RTS");
		return EINVAL;
	}
	ret = check_wr(qp, wr, &len);
	if (ret)
		return ret;
	if (!wr->wr.ud.ah && qp->core.qp.qp_type == IBV_QPT_UD)
		return EINVAL;
	if (wr->opcode == IBV_WR_BIND_MW) {
		const struct ibv_mw_bind_info *bi = &wr->bind_mw.bind_info;
		struct uroce_bind b = {
			.mw_rkey = wr->bind_mw.mw->rkey,
			.new_rkey = wr->bind_mw.rkey,
			.mr_lkey = bi->mr ? bi->mr->lkey : 0,
			.addr = bi->addr,
			.length = bi->length,
			.access = (int)bi->mw_access_flags,
		};

		return post_local(qp, wr->wr_id, (int)wr->send_flags,
				  wr->opcode, &b, 0);
	}
	if (wr->opcode == IBV_WR_LOCAL_INV)
		return post_local(qp, wr->wr_id, (int)wr->send_flags,
				  wr->opcode, NULL, wr->invalidate_rkey);
	w = &qp->sq[qp->sq_tail % qp->sq_slots];
	memset(w, 0, sizeof(*w));
	if (wr->opcode == IBV_WR_RDMA_READ || is_atomic(wr->opcode))
		return post_read(qp, wr, w, (uint32_t)len);
	if (is_flush(wr->opcode))
		return post_flush(qp, wr, w);
	fill_wqe(w, wr, (uint32_t)len);
	if (w->fence && !(wr->send_flags & IBV_SEND_INLINE) &&
	    qp->core.qp.qp_type == IBV_QPT_RC) {
		size_t sz = sizeof(struct ibv_sge) * (size_t)wr->num_sge;

		w->data = malloc(fence_sge_off((uint32_t)len) + sz + 1);
		if (!w->data)
			return ENOMEM;
		if (sz)
			memcpy(w->data + fence_sge_off((uint32_t)len), wr->sg_list, sz);
		w->num_sge = (uint32_t)wr->num_sge;
	} else {
		w->fence = false; /* only RC sends anything late */
		w->data = len ? malloc(len) : NULL;
		if (len && !w->data)
			return ENOMEM;
	}
	qp->sq_tail++;
	if (qp->attr.qp_state == IBV_QPS_ERR) {
		uroce_qp_to_error(qp); /* flushes it */
		return 0;
	}
	if (!w->num_sge &&
	    !gather(qp, wr->sg_list, (uint32_t)wr->num_sge,
		    wr->send_flags & IBV_SEND_INLINE, w->data)) {
		uroce_complete_send(qp, w, IBV_WC_LOC_PROT_ERR);
		free(w->data);
		w->data = NULL;
		qp->sq_head++;
		uroce_qp_to_error(qp);
		return 0;
	}
	w->first_psn = qp->sq_psn;
	qp->sq_psn = uroce_psn_add(qp->sq_psn, npkts_of(qp, w->len));
	w->last_psn = uroce_psn_add(qp->sq_psn, UROCE_PSN_MASK); /* - 1 */
	if (qp->core.qp.qp_type == IBV_QPT_RC)
		return 0; /* push sends it */
	/* UD and UC lose a lost packet */
	ret = qp->core.qp.qp_type == IBV_QPT_UD ? send_ud(qp, wr, w) :
						  send_all(qp, w);
	(void)ret;
	uroce_complete_send(qp, w, IBV_WC_SUCCESS);
	free(w->data);
	w->data = NULL;
	qp->sq_head++;
	return 0;
}

/* An ibv_send_wr has no fields for a FLUSH's length, type and level
 * (rdma-core's either: its librxe posts one only from ibv_wr_flush) */
static int flush_by_post_send(const struct uroce_qp *qp)
{
	sv_err("uroce: QP %#x: FLUSH is posted with ibv_wr_flush (an ibv_send_wr has no fields for it)",
	       qp->core.qp.qp_num);
	return EINVAL;
}

int uroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr)
{
	struct uroce_qp *qp = to_uroce_qp(ibqp);
	int ret = 0;

	pthread_mutex_lock(&qp->lock);
	for (; wr; wr = wr->next) {
		ret = is_flush(wr->opcode) ? flush_by_post_send(qp) :
					     post_one(qp, wr);
		if (ret) {
			*bad_wr = wr;
			break;
		}
	}
	push(qp);
	if (!qp->timer_ns)
		arm(qp);
	pthread_mutex_unlock(&qp->lock);
	return ret;
}

/* ibv_wr_complete's batch (uroce_qp_ex.c): post_one's checks for every
 * WR, and room for all, before the first is posted (the QP's lock held
 * throughout, so nothing changes between the two). What post_one can
 * still refuse after its checks is a malloc failure (ENOMEM), which
 * leaves the WRs before it posted. */
static int check_post(struct uroce_qp *qp, const struct ibv_send_wr *wr)
{
	uint64_t len;
	int ret;

	if (qp->attr.qp_state != IBV_QPS_RTS && qp->attr.qp_state != IBV_QPS_ERR) {
		sv_err("uroce: QP %#x: ibv_wr_complete in state %d (needs RTS)",
		       qp->core.qp.qp_num, qp->attr.qp_state);
		return EINVAL;
	}
	ret = check_wr(qp, wr, &len);
	if (ret)
		return ret;
	if (!wr->wr.ud.ah && qp->core.qp.qp_type == IBV_QPT_UD) {
		sv_err("uroce: QP %#x: a UD work request without ibv_wr_set_ud_addr",
		       qp->core.qp.qp_num);
		return EINVAL;
	}
	return 0;
}

int uroce_post_send_all(struct uroce_qp *qp, struct ibv_send_wr *wr)
{
	uint32_t n = 0;
	int ret = 0;

	pthread_mutex_lock(&qp->lock);
	for (struct ibv_send_wr *w = wr; w && !ret; w = w->next, n++)
		ret = check_post(qp, w);
	if (!ret && qp->sq_slots - (qp->sq_tail - qp->sq_head) < n) {
		sv_err("uroce: QP %#x: a batch of %u WRs, room for %u in the send queue",
		       qp->core.qp.qp_num, n,
		       qp->sq_slots - (qp->sq_tail - qp->sq_head));
		ret = ENOMEM;
	}
	for (; wr && !ret; wr = wr->next)
		ret = post_one(qp, wr);
	push(qp); /* RC's WQEs leave from here, as ibv_post_send's */
	if (!qp->timer_ns)
		arm(qp);
	pthread_mutex_unlock(&qp->lock);
	return ret;
}

/* ---- ACKs and NAKs (the progress thread) ------------------------------------------------- */

static void rnr_nak(struct uroce_qp *qp, const struct uroce_pkt *pkt);
static void seq_nak(struct uroce_qp *qp, const struct uroce_pkt *pkt);

/* Complete the WQEs whose last PSN precedes psn (before: true) or is at
 * most psn. */
static void complete_acked(struct uroce_qp *qp, uint32_t psn, bool before)
{
	uint32_t head = qp->sq_head;

	while (qp->sq_head != qp->sq_tail) {
		struct uroce_swqe *w = &qp->sq[qp->sq_head % qp->sq_slots];
		int32_t d = uroce_psn_diff(w->last_psn, psn);

		if (before ? d >= 0 : d > 0)
			break;
		/* a READ or an atomic completes with its (last)
		 * response, whatever a later ACK says (its lost responses:
		 * the retry's) */
		if (wants_response(w) &&
		    w->read_psn != uroce_psn_add(w->last_psn, 1))
			break;
		retire_head(qp, IBV_WC_SUCCESS);
	}
	/* progress: the retries count again, the timer from now */
	if (qp->sq_head != head) {
		reset_retries(qp);
		arm(qp);
	}
}

static enum ibv_wc_status nak_status(uint8_t syndrome)
{
	switch (syndrome) {
	case UROCE_AETH_NAK_INVALID_REQ:
		return IBV_WC_REM_INV_REQ_ERR;
	case UROCE_AETH_NAK_REM_ACC_ERR:
		return IBV_WC_REM_ACCESS_ERR;
	default:
		return IBV_WC_REM_OP_ERR;
	}
}

/* A READ response: its payload into the head WQE's buffers, in PSN
 * order (another PSN is dropped); the last one completes it. It also
 * acknowledges every WQE before the READ. */
static void read_response(struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	struct uroce_swqe *w;
	enum ibv_wc_status st;
	uint32_t off;

	complete_acked(qp, pkt->bth.psn, true);
	if (qp->sq_head == qp->sq_tail)
		return;
	w = &qp->sq[qp->sq_head % qp->sq_slots];
	if (w->opcode == IBV_WR_ATOMIC_WRITE || is_flush(w->opcode)) {
		/* rxe's responder acknowledges both with an empty READ
		 * RESPONSE ONLY (rxe_comp.c completes them with it) */
		if (pkt->bth.psn == w->first_psn) {
			ack_to(qp, uroce_psn_add(pkt->bth.psn, 1));
			complete_acked(qp, pkt->bth.psn, false);
			push(qp);
		}
		return;
	}
	if (w->opcode != IBV_WR_RDMA_READ || pkt->bth.psn != w->read_psn)
		return;
	ack_to(qp, pkt->bth.psn);
	off = (uint32_t)uroce_psn_diff(pkt->bth.psn, w->first_psn) * mtu_of(qp);
	st = uroce_scatter(qp, (const struct ibv_sge *)w->data, w->num_sge, off,
			   pkt->payload, pkt->payload_len);
	if (st == IBV_WC_SUCCESS && (pkt->flags & UROCE_OPF_LAST) &&
	    pkt->bth.psn != w->last_psn)
		st = IBV_WC_BAD_RESP_ERR;
	if (st != IBV_WC_SUCCESS) {
		fail_head(qp, st);
		return;
	}
	w->read_psn = uroce_psn_add(w->read_psn, 1);
	ack_to(qp, w->read_psn);
	if (pkt->flags & UROCE_OPF_LAST)
		complete_acked(qp, pkt->bth.psn, false);
	push(qp);
}

/* An ATOMIC ACKNOWLEDGE: the original value into the head WQE's SGEs
 * completes it; it also acknowledges every WQE before. */
static void atomic_response(struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	struct uroce_swqe *w;
	enum ibv_wc_status st;
	uint64_t orig = pkt->atmack_orig;

	complete_acked(qp, pkt->bth.psn, true);
	if (qp->sq_head == qp->sq_tail)
		return;
	w = &qp->sq[qp->sq_head % qp->sq_slots];
	if (!is_atomic(w->opcode) || pkt->bth.psn != w->read_psn)
		return;
	/* the responder's memory holds it in its own order, as rxe */
	st = uroce_scatter(qp, (const struct ibv_sge *)w->data, w->num_sge, 0,
			   (const uint8_t *)&orig, sizeof(orig));
	if (st != IBV_WC_SUCCESS) {
		fail_head(qp, st);
		return;
	}
	w->read_psn = uroce_psn_add(w->read_psn, 1);
	ack_to(qp, w->read_psn);
	complete_acked(qp, pkt->bth.psn, false);
	push(qp);
}

void uroce_req_ack(struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	uint8_t syn = pkt->aeth.syndrome;

	if (qp->attr.qp_state != IBV_QPS_RTS)
		return;
	if ((pkt->hdrs & UROCE_HDR_ATMACK) &&
	    (syn & UROCE_AETH_TYPE_MASK) == UROCE_AETH_ACK) {
		atomic_response(qp, pkt);
		return;
	}
	if (pkt->flags & UROCE_OPF_PAYLOAD) {
		read_response(qp, pkt);
		return;
	}
	if (!(pkt->hdrs & UROCE_HDR_AETH))
		return;
	switch (syn & UROCE_AETH_TYPE_MASK) {
	case UROCE_AETH_ACK:
		ack_to(qp, uroce_psn_add(pkt->bth.psn, 1));
		complete_acked(qp, pkt->bth.psn, false);
		push(qp);
		return;
	case UROCE_AETH_NAK:
		if (syn == UROCE_AETH_NAK_PSN_SEQ_ERROR) {
			seq_nak(qp, pkt);
			return;
		}
		/* a NAK acknowledges the PSNs before its own */
		ack_to(qp, pkt->bth.psn);
		complete_acked(qp, pkt->bth.psn, true);
		if (qp->sq_head != qp->sq_tail)
			retire_head(qp, nak_status(syn));
		uroce_qp_to_error(qp);
		return;
	default:
		rnr_nak(qp, pkt);
		return;
	}
}

/* Complete the head WQE with st and move the QP to the error state. */
static void fail_head(struct uroce_qp *qp, enum ibv_wc_status st)
{
	retire_head(qp, st);
	uroce_qp_to_error(qp);
}

/* No receive WQE at the peer: send again from the NAK's PSN after the
 * time it asks for, rnr_retry times (7: for ever). */
static void rnr_nak(struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	uroce_count(qp->ctx, UROCE_CTR_RCV_RNR);
	ack_to(qp, pkt->bth.psn);
	complete_acked(qp, pkt->bth.psn, true);
	if (qp->sq_head == qp->sq_tail)
		return;
	if (qp->attr.rnr_retry != 7 && qp->rnr_left-- == 0) {
		uroce_count(qp->ctx, UROCE_CTR_RNR_RETRY_EXCEEDED);
		fail_head(qp, IBV_WC_RNR_RETRY_EXC_ERR);
		return;
	}
	qp->rnr_wait = true;
	qp->rnr_psn = pkt->bth.psn;
	qp->timer_ns = now_ns() + 1000ull * rnr_usec[pkt->aeth.syndrome & 0x1f];
}

/* Send again from the oldest unacknowledged packet (a retransmit
 * timeout, a PSN-sequence NAK), retry_cnt times (7: for ever), then
 * complete the head WQE with RETRY_EXC_ERR: rxe's completer, which
 * takes one retry from retry_cnt for either. */
static void retry(struct uroce_qp *qp, const char *why)
{
	if (qp->attr.retry_cnt != 7 && qp->retry_left-- == 0) {
		uroce_count(qp->ctx, UROCE_CTR_RETRY_EXCEEDED);
		fail_head(qp, IBV_WC_RETRY_EXC_ERR);
		return;
	}
	sv_dbg("uroce: QP %#x: %s; sending again from PSN %#x",
	       qp->core.qp.qp_num, why, qp->acked_psn);
	uroce_count(qp->ctx, UROCE_CTR_COMP_RETRY);
	qp->retry_started = true;
	go_back(qp);
	arm(qp);
}

/* A PSN-sequence NAK: the PSNs before its own are acknowledged (counted
 * as rxe counts rcvd_seq_err: when that is news), and, unless a retry
 * is under way (rxe starts one per ACK), the requester sends again from
 * the NAK's PSN, one retry taken from retry_cnt. */
static void seq_nak(struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	if (acked_to(qp, pkt->bth.psn))
		uroce_count(qp->ctx, UROCE_CTR_RCV_SEQ_ERR);
	complete_acked(qp, pkt->bth.psn, true);
	if (qp->sq_head == qp->sq_tail || qp->retry_started)
		return;
	retry(qp, "PSN sequence error NAK");
}

void uroce_req_timer(struct uroce_qp *qp, uint64_t now)
{
	if (!qp->timer_ns || now < qp->timer_ns || qp->sq_head == qp->sq_tail)
		return;
	if (qp->rnr_wait) {
		qp->rnr_wait = false;
		go_back(qp);
		arm(qp);
		return;
	}
	retry(qp, "no ACK in time");
}

void uroce_req_timers(struct uroce_context *ctx)
{
	uint64_t now = now_ns();

	for (struct uroce_qp *qp = ctx->rc_qps; qp; qp = qp->rc_next) {
		pthread_mutex_lock(&qp->lock);
		uroce_req_timer(qp, now);
		pthread_mutex_unlock(&qp->lock);
	}
}
