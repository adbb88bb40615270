/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* uroce's responder: ibv_post_recv, and what the progress thread does
 * with a request packet for one of the context's QPs (rxe_resp.c's
 * checks, in the order rxe makes them).
 *
 * - The QP is in RTR or RTS; an RC or UC request comes from the address
 *   of the QP's AV; a UD one carries the QP's Q_Key. Otherwise dropped.
 * - RC PSNs: the expected one is executed; a later one gets one
 *   PSN-sequence NAK (with the expected PSN), then silence until the
 *   expected one comes; an earlier one (a duplicate SEND or WRITE) is
 *   ACKed again, not executed. UC: a gap drops the rest of the message.
 * - SEND places the payload into the head receive WQE, through its
 *   SGEs (each checked as a local write of an MR of the QP's PD), and
 *   completes it with the last packet. No WQE: an RNR NAK (RC); UD and
 *   UC drop. UD puts rxe's 40-byte GRH first: 20 zero bytes and the
 *   IPv4 header (rebuilt: a UDP socket does not see the sender's; TTL
 *   64, ID 0, DF).
 * - RDMA WRITE needs IBV_ACCESS_REMOTE_WRITE on the QP, then an MR of
 *   the QP's PD that grants it for [va, va + len) (uroce_mr_check);
 *   each packet is checked again for its own bytes, and none writes
 *   past the RETH's length. WITH IMMEDIATE also completes a receive WQE.
 * - FIRST and MIDDLE packets carry exactly the path MTU; a packet out of
 *   the message's order is an invalid request.
 * - RC: an ACK (AETH syndrome 0x1f, the MSN) when AckReq is set; a NAK
 *   (invalid request, remote access error, remote operational error)
 *   when the request fails, and the QP goes to the error state.
 *
 * - RDMA READ needs IBV_ACCESS_REMOTE_READ on the QP and an MR granting
 *   it over the RETH's range; the responses (FIRST/MIDDLE/LAST or ONLY,
 *   path-MTU payloads, AETH on the first and last) take the PSNs from
 *   the request's on.
 *
 * - READs and atomics take the QP's resources, a ring of
 *   max_dest_rd_atomic (rxe's): with none (0) they are invalid
 *   requests (rxe's check_resource); a duplicate one is answered while
 *   its resource is there, dropped once later ones took its place.
 *   A duplicate READ is answered from its own RETH, inside the first
 *   one's range (rxe replays from the saved resource; uroce reads
 *   again).
 *
 * - Atomics (CMP_AND_SWP, FETCH_AND_ADD) need IBV_ACCESS_REMOTE_ATOMIC
 *   on the QP, an 8-byte aligned address (else an invalid request, as
 *   rxe) and an MR granting remote atomic access over its 8 bytes; they
 *   execute with the compiler's atomics on the MR's memory (so they are
 *   atomic against this host's CPUs and other QPs too), and the ATOMIC
 *   ACKNOWLEDGE carries the original value. The result is saved in
 *   its resource: a duplicate is answered from it, never executed
 *   again, or dropped when it is gone (rxe's class D case).
 *
 * - ATOMIC WRITE and FLUSH (RC; rxe from kernel 6.2, rxe_resp.c), each
 *   answered, whatever its AckReq, with an empty RDMA READ RESPONSE
 *   ONLY at its PSN. ATOMIC WRITE needs IBV_ACCESS_REMOTE_WRITE on the
 *   QP and max_dest_rd_atomic > 0 (else an invalid request), an MR
 *   granting remote write over the RETH's range (else a remote access
 *   error), the RETH's length equal to the 8-byte payload and an 8-byte
 *   aligned target (else an invalid request); its 8 bytes go in one
 *   store, as they came, after everything before it (a release store:
 *   rxe's smp_store_release). FLUSH needs, for each placement type its
 *   FETH names, IBV_ACCESS_FLUSH_GLOBAL / _PERSISTENT on the QP (else an
 *   invalid request) and on the MR the rkey names (else a remote access
 *   error), the range inside the MR unless the level is the whole MR.
 *   Then it is a memory fence: a process's stores are globally visible
 *   once fenced, and no MR of uroce is ever on persistent memory
 *   (uroce_mr.c refuses IBV_ACCESS_FLUSH_PERSISTENT), so a persistent
 *   FLUSH always ends in the remote access error. Each takes a READ and
 *   atomic resource (an ATOMIC WRITE wants max_dest_rd_atomic > 0, a
 *   FLUSH does not), and a duplicate is answered again while its
 *   resource is there, never executed again (rxe's resource for a FLUSH
 *   keeps no PSN: its duplicates are dropped; uroce's keeps it).
 *
 * - A QP with an SRQ takes the SRQ's head WQE when a message needs one
 *   (uroce_srq.c), and keeps it until the message completes it; no WQE
 *   there: an RNR NAK (RC), a drop (UC, UD), as without one. post_recv
 *   on such a QP is refused (EINVAL), as rxe.
 *
 * - An rkey may name a memory window (uroce_rkey_check, uroce_mw.c):
 *   its rights and range are the window's, its memory its MR's.
 *
 * - SEND with invalidate (RC; the IETH on the last packet): once the
 *   data is placed, the IETH's rkey is invalidated (uroce_mw.c: a bound
 *   type 2 window); the receive completes with IBV_WC_WITH_INV and the
 *   key in invalidated_rkey. When it cannot be invalidated (a type 1
 *   window, an MR, no such key) uroce does what rxe does (rxe_resp.c,
 *   RESPST_ERR_INVALIDATE_RKEY, "class J"): the receive WQE completes
 *   with IBV_WC_REM_INV_REQ_ERR, the request is ACKed (so the sender's
 *   SEND_WITH_INV completes successfully), and the responder's QP goes
 *   to the error state. */
#include "config.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "uroce.h"

#define UROCE_GRH_BYTES 40
#define UROCE_RNR_NAK_SYNDROME(timer) (UROCE_AETH_RNR_NAK | ((timer) & 0x1f))

/* What executing a request gave: an AETH syndrome to answer with, or
 * one of these. */
enum {
	RESP_OK = UROCE_AETH_ACK_UNLIMITED,
	RESP_DROP = 0x100,    /* silently (UD, UC) */
	RESP_INV_FAILED,      /* SEND with invalidate: the rkey stayed */
};

/* ---- post_recv ------------------------------------------------------------------ */

static int post_one(struct uroce_qp *qp, const struct ibv_recv_wr *wr)
{
	struct uroce_rwqe *w;

	if (qp->attr.qp_state == IBV_QPS_RESET) {
		sv_err("uroce: QP %#x: post_recv in RESET", qp->core.qp.qp_num);
		return EINVAL;
	}
	if (qp->srq) {
		sv_err("uroce: QP %#x: post_recv on a QP with an SRQ (ibv_post_srq_recv)",
		       qp->core.qp.qp_num);
		return EINVAL;
	}
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->cap.max_recv_sge) {
		sv_err("uroce: QP %#x: num_sge %d above max_recv_sge %u",
		       qp->core.qp.qp_num, wr->num_sge, qp->cap.max_recv_sge);
		return EINVAL;
	}
	if (qp->rq_tail - qp->rq_head == qp->rq_slots) {
		sv_err("uroce: QP %#x: receive queue full (%u WRs)",
		       qp->core.qp.qp_num, qp->rq_slots);
		return ENOMEM;
	}
	w = &qp->rq[qp->rq_tail % qp->rq_slots];
	w->wr_id = wr->wr_id;
	w->num_sge = (uint32_t)wr->num_sge;
	if (wr->num_sge) /* a receive without SGEs may have no sg_list */
		memcpy(w->sge, wr->sg_list, sizeof(*wr->sg_list) * (size_t)wr->num_sge);
	qp->rq_tail++;
	if (qp->attr.qp_state == IBV_QPS_ERR)
		uroce_qp_to_error(qp); /* flushes it */
	return 0;
}

int uroce_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr)
{
	struct uroce_qp *qp = to_uroce_qp(ibqp);
	int ret = 0;

	pthread_mutex_lock(&qp->lock);
	for (; wr; wr = wr->next) {
		ret = post_one(qp, wr);
		if (ret) {
			*bad_wr = wr;
			break;
		}
	}
	pthread_mutex_unlock(&qp->lock);
	return ret;
}

/* ---- placing data ------------------------------------------------------------------ */

enum ibv_wc_status uroce_scatter(struct uroce_qp *qp, const struct ibv_sge *sges,
				 uint32_t num_sge, uint32_t off,
				 const uint8_t *data, uint32_t len)
{
	for (uint32_t i = 0; i < num_sge && len; i++) {
		const struct ibv_sge *sge = &sges[i];
		enum uroce_mr_fault fault;
		struct uroce_mr *mr;
		uint32_t n;

		if (off >= sge->length) {
			off -= sge->length;
			continue;
		}
		n = sge->length - off < len ? sge->length - off : len;
		mr = uroce_mr_check(qp->core.qp.pd, sge->lkey, sge->addr + off,
				    n, IBV_ACCESS_LOCAL_WRITE, &fault);
		if (!mr)
			return IBV_WC_LOC_PROT_ERR;
		memcpy(uroce_mr_ptr(mr, sge->addr + off), data, n);
		uroce_mr_put(mr);
		data += n;
		len -= n;
		off = 0;
	}
	return len ? IBV_WC_LOC_LEN_ERR : IBV_WC_SUCCESS;
}

static enum ibv_wc_status scatter(struct uroce_qp *qp,
				  const struct uroce_rwqe *w, uint32_t off,
				  const uint8_t *data, uint32_t len)
{
	return uroce_scatter(qp, w->sge, w->num_sge, off, data, len);
}

/* The receive WQE in use (resp.have_wqe): the QP's head one, or the one
 * it took from its SRQ */
static const struct uroce_rwqe *cur_wqe(const struct uroce_qp *qp)
{
	return qp->srq ? &qp->srq_wqe : &qp->rq[qp->rq_head % qp->rq_slots];
}

static void complete_recv(struct uroce_qp *qp, struct ibv_wc *wc,
			  const struct uroce_pkt *pkt)
{
	wc->qp_num = qp->core.qp.qp_num;
	wc->wr_id = cur_wqe(qp)->wr_id;
	if (pkt && (pkt->hdrs & UROCE_HDR_IMMDT)) {
		wc->wc_flags |= IBV_WC_WITH_IMM;
		wc->imm_data = htobe32(pkt->imm);
	}
	if (pkt && (pkt->hdrs & UROCE_HDR_IETH)) {
		wc->wc_flags |= IBV_WC_WITH_INV;
		wc->invalidated_rkey = pkt->ieth_rkey;
	}
	if (!qp->srq)
		qp->rq_head++;
	qp->resp.have_wqe = false;
	if (wc->status == IBV_WC_SUCCESS)
		uroce_count(qp->ctx, UROCE_CTR_RDMA_RECV);
	if (uroce_cq_push(to_uroce_cq(qp->core.qp.recv_cq), wc,
			  pkt && pkt->bth.se))
		uroce_qp_to_error(qp);
}

static void complete_recv_error(struct uroce_qp *qp, enum ibv_wc_status st)
{
	struct ibv_wc wc = { .status = st, .opcode = IBV_WC_RECV };

	complete_recv(qp, &wc, NULL);
}

/* ---- sending answers -------------------------------------------------------------------- */

/* An ACKNOWLEDGE or ATOMIC ACKNOWLEDGE (which also carries orig) to the
 * QP's peer. */
static void send_ack(struct uroce_qp *qp, uint8_t opcode, uint8_t syndrome,
		     uint32_t psn, uint32_t msn, uint64_t orig)
{
	uint8_t buf[UROCE_BTH_BYTES + UROCE_AETH_BYTES + UROCE_ATMACK_BYTES +
		    UROCE_ICRC_BYTES];
	struct uroce_pkt pkt = { 0 };
	int len;

	pkt.bth.opcode = opcode;
	pkt.bth.pkey = UROCE_DEF_PKEY;
	pkt.bth.dest_qpn = qp->attr.dest_qp_num;
	pkt.bth.psn = psn;
	pkt.aeth.syndrome = syndrome;
	pkt.aeth.msn = msn & 0xffffff;
	pkt.atmack_orig = orig;
	len = uroce_build(buf, sizeof(buf), &pkt, NULL, 0);
	if (len > 0)
		uroce_net_send(qp->ctx, &qp->peer, buf, (size_t)len);
}

static void send_aeth(struct uroce_qp *qp, uint8_t syndrome, uint32_t psn)
{
	send_ack(qp, UROCE_OP_RC_ACKNOWLEDGE, syndrome, psn, qp->msn, 0);
}

/* ---- UD ------------------------------------------------------------------------------------ */

static uint16_t ip_csum(const uint8_t *p, size_t len)
{
	uint32_t sum = 0;

	for (size_t i = 0; i < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* The GRH of a UD receive: rxe copies the packet's IP header, IPv4
 * behind 20 zero bytes, IPv6 in all 40. A UDP socket shows the
 * addresses, not the rest: the sender's TTL (hop limit), TOS (traffic
 * class), flow label and IPv4 ID are taken as 64, 0, 0 and 0. */
static void grh_of(uint8_t *grh, const struct uroce_pkt *pkt,
		   const union uroce_sockaddr *src,
		   const union uroce_sockaddr *dst)
{
	uint8_t *ip = grh + 20;
	uint16_t udp_len = UROCE_UDP_BYTES + pkt->pkt_len;
	uint16_t tot = UROCE_IP4_BYTES + udp_len;
	uint16_t sum;

	memset(grh, 0, UROCE_GRH_BYTES);
	if (src->sa.sa_family == AF_INET6) {
		grh[0] = 0x60;
		grh[4] = (uint8_t)(udp_len >> 8);
		grh[5] = (uint8_t)udp_len;
		grh[6] = 17;
		grh[7] = 64;
		memcpy(grh + 8, &src->sin6.sin6_addr, 16);
		memcpy(grh + 24, &dst->sin6.sin6_addr, 16);
		return;
	}
	ip[0] = 0x45;
	ip[2] = (uint8_t)(tot >> 8);
	ip[3] = (uint8_t)tot;
	ip[6] = 0x40; /* DF */
	ip[8] = 64;
	ip[9] = 17;
	memcpy(ip + 12, &src->sin.sin_addr, 4);
	memcpy(ip + 16, &dst->sin.sin_addr, 4);
	sum = ip_csum(ip, UROCE_IP4_BYTES);
	ip[10] = (uint8_t)(sum >> 8);
	ip[11] = (uint8_t)sum;
}

static bool take_wqe(struct uroce_qp *qp);

static void ud_request(struct uroce_qp *qp, const struct uroce_pkt *pkt,
		       const union uroce_sockaddr *src,
		       const union uroce_sockaddr *dst)
{
	uint8_t grh[UROCE_GRH_BYTES];
	struct ibv_wc wc = { .opcode = IBV_WC_RECV, .wc_flags = IBV_WC_GRH };
	const struct uroce_rwqe *w;

	if (pkt->deth.qkey != qp->attr.qkey || !take_wqe(qp))
		return;
	w = cur_wqe(qp);
	grh_of(grh, pkt, src, dst);
	wc.status = scatter(qp, w, 0, grh, sizeof(grh));
	if (wc.status == IBV_WC_SUCCESS)
		wc.status = scatter(qp, w, sizeof(grh), pkt->payload,
				    pkt->payload_len);
	wc.byte_len = UROCE_GRH_BYTES + pkt->payload_len;
	wc.src_qp = pkt->deth.src_qpn;
	complete_recv(qp, &wc, pkt);
}

/* ---- RC and UC: executing one packet -------------------------------------------------------- */

static bool starts(const struct uroce_pkt *pkt)
{
	return pkt->flags & UROCE_OPF_FIRST;
}

static bool ends(const struct uroce_pkt *pkt)
{
	return pkt->flags & UROCE_OPF_LAST;
}

/* The packet's place in the message: an invalid request when a message
 * starts inside another, continues none or changes kind, or when a
 * FIRST or MIDDLE packet is not exactly the path MTU. */
static bool in_order(const struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	bool write = pkt->flags & UROCE_OPF_WRITE;

	if (starts(pkt) == qp->resp.active)
		return false;
	if (!starts(pkt) && qp->resp.write != write)
		return false;
	if (!ends(pkt) && pkt->payload_len != 128u << qp->attr.path_mtu)
		return false;
	return true;
}

/* Take the head receive WQE for a message (the one in use, if any). */
static bool take_wqe(struct uroce_qp *qp)
{
	if (qp->resp.have_wqe)
		return true;
	if (qp->srq ? !uroce_srq_take(qp->srq, &qp->srq_wqe) :
		      qp->rq_head == qp->rq_tail)
		return false;
	qp->resp.have_wqe = true;
	qp->resp.offset = 0;
	return true;
}

static int exec_send(struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	const struct uroce_rwqe *w;
	enum ibv_wc_status st;

	if (!take_wqe(qp))
		return UROCE_RNR_NAK_SYNDROME(qp->attr.min_rnr_timer);
	w = cur_wqe(qp);
	st = scatter(qp, w, qp->resp.offset, pkt->payload, pkt->payload_len);
	if (st != IBV_WC_SUCCESS) {
		complete_recv_error(qp, st);
		return st == IBV_WC_LOC_LEN_ERR ? UROCE_AETH_NAK_INVALID_REQ :
						  UROCE_AETH_NAK_REM_OP_ERR;
	}
	qp->resp.offset += pkt->payload_len;
	/* rxe's execute: the data is placed, then the rkey invalidated;
	 * when that fails (no bound type 2 window has it: an MR's key
	 * included) the receive completes with REM_INV_REQ_ERR (its class
	 * J) */
	if ((pkt->hdrs & UROCE_HDR_IETH) && uroce_mw_invalidate(pkt->ieth_rkey)) {
		sv_dbg("uroce: QP %#x: SEND with invalidate of %#x: no bound type 2 window has it",
		       qp->core.qp.qp_num, pkt->ieth_rkey);
		complete_recv_error(qp, IBV_WC_REM_INV_REQ_ERR);
		return RESP_INV_FAILED;
	}
	if (ends(pkt)) {
		struct ibv_wc wc = { .opcode = IBV_WC_RECV,
				     .byte_len = qp->resp.offset,
				     .src_qp = qp->attr.dest_qp_num };

		complete_recv(qp, &wc, pkt);
	}
	return RESP_OK;
}

/* The RETH of a WRITE's first packet: the MR grants the whole range. */
static int write_begin(struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	enum uroce_mr_fault fault;
	struct uroce_mr *mr;
	uint64_t mr_va;

	qp->resp.va = pkt->reth.va;
	qp->resp.rkey = pkt->reth.rkey;
	qp->resp.resid = pkt->reth.len;
	qp->resp.length = pkt->reth.len;
	if (!pkt->reth.len)
		return RESP_OK; /* C9-88: no lookup for zero bytes */
	mr = uroce_rkey_check(qp, pkt->reth.rkey, pkt->reth.va, pkt->reth.len,
			      IBV_ACCESS_REMOTE_WRITE, &mr_va, &fault);
	if (!mr)
		return UROCE_AETH_NAK_REM_ACC_ERR;
	uroce_mr_put(mr);
	return RESP_OK;
}

static int exec_write(struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	enum uroce_mr_fault fault;
	struct uroce_mr *mr;
	uint64_t mr_va;
	int ret;

	if (!(qp->attr.qp_access_flags & IBV_ACCESS_REMOTE_WRITE))
		return UROCE_AETH_NAK_INVALID_REQ;
	/* WITH IMMEDIATE needs a receive WQE before anything is written */
	if ((pkt->flags & UROCE_OPF_RWR) && !take_wqe(qp))
		return UROCE_RNR_NAK_SYNDROME(qp->attr.min_rnr_timer);
	if (starts(pkt)) {
		ret = write_begin(qp, pkt);
		if (ret != RESP_OK)
			return ret;
	}
	if (pkt->payload_len > qp->resp.resid ||
	    (ends(pkt) && pkt->payload_len != qp->resp.resid))
		return UROCE_AETH_NAK_INVALID_REQ;
	if (pkt->payload_len) {
		mr = uroce_rkey_check(qp, qp->resp.rkey, qp->resp.va,
				      pkt->payload_len, IBV_ACCESS_REMOTE_WRITE,
				      &mr_va, &fault);
		if (!mr)
			return UROCE_AETH_NAK_REM_ACC_ERR;
		memcpy(uroce_mr_ptr(mr, mr_va), pkt->payload, pkt->payload_len);
		uroce_mr_put(mr);
	}
	qp->resp.va += pkt->payload_len;
	qp->resp.resid -= pkt->payload_len;
	if (ends(pkt) && (pkt->flags & UROCE_OPF_COMP)) {
		struct ibv_wc wc = { .opcode = IBV_WC_RECV_RDMA_WITH_IMM,
				     .byte_len = qp->resp.length,
				     .src_qp = qp->attr.dest_qp_num };

		complete_recv(qp, &wc, pkt);
	}
	return RESP_OK;
}

static uint32_t read_npkts(const struct uroce_qp *qp, uint32_t len)
{
	uint32_t mtu = 128u << qp->attr.path_mtu;

	return len ? (len + mtu - 1) / mtu : 1;
}

/* The responses to a READ request: ceil(len / MTU) packets (at least
 * one) from the request's PSN, AETH on the first and the last. */
static void send_read_responses(struct uroce_qp *qp, const struct uroce_pkt *req,
				const uint8_t *src)
{
	uint8_t buf[UROCE_MAX_HDR_BYTES + UROCE_MAX_PAYLOAD + 8];
	uint32_t mtu = 128u << qp->attr.path_mtu, len = req->reth.len;
	uint32_t n = read_npkts(qp, len);

	for (uint32_t i = 0; i < n; i++) {
		struct uroce_pkt pkt = { 0 };
		uint32_t plen = len - i * mtu < mtu ? len - i * mtu : mtu;
		int out;

		pkt.bth.opcode = n == 1 ? UROCE_OP_RC_RDMA_READ_RESPONSE_ONLY :
				 i == 0 ? UROCE_OP_RC_RDMA_READ_RESPONSE_FIRST :
				 i + 1 < n ? UROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE :
					     UROCE_OP_RC_RDMA_READ_RESPONSE_LAST;
		pkt.bth.pkey = UROCE_DEF_PKEY;
		pkt.bth.dest_qpn = qp->attr.dest_qp_num;
		pkt.bth.psn = uroce_psn_add(req->bth.psn, i);
		pkt.aeth.syndrome = UROCE_AETH_ACK_UNLIMITED;
		/* the READ itself counted (C9-148: at execution) */
		pkt.aeth.msn = (qp->msn + 1) & 0xffffff;
		out = uroce_build(buf, sizeof(buf), &pkt, src ? src + (size_t)i * mtu : NULL,
				  src ? plen : 0);
		if (out > 0)
			uroce_net_send(qp->ctx, &qp->peer, buf, (size_t)out);
	}
}

/* Check and answer a READ request: RESP_OK or the NAK's syndrome. */
static int answer_read(struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	enum uroce_mr_fault fault;
	struct uroce_mr *mr = NULL;
	uint64_t mr_va = 0;

	if (!(qp->attr.qp_access_flags & IBV_ACCESS_REMOTE_READ))
		return UROCE_AETH_NAK_INVALID_REQ;
	if (pkt->reth.len > 0x80000000u)
		return UROCE_AETH_NAK_INVALID_REQ;
	if (pkt->reth.len) {
		mr = uroce_rkey_check(qp, pkt->reth.rkey, pkt->reth.va,
				      pkt->reth.len, IBV_ACCESS_REMOTE_READ,
				      &mr_va, &fault);
		if (!mr)
			return UROCE_AETH_NAK_REM_ACC_ERR;
	}
	send_read_responses(qp, pkt, mr ? uroce_mr_ptr(mr, mr_va) : NULL);
	if (mr)
		uroce_mr_put(mr);
	return RESP_OK;
}

/* ---- READ and atomic resources ---------------------------------------------------- */

/* The resource the next READ or atomic takes: the oldest of the ring's
 * max_dest_rd_atomic (rxe's rxe_prepare_res) */
static struct uroce_rd_res *take_res(struct uroce_qp *qp)
{
	return &qp->rd_res[qp->rd_res_next++ % qp->attr.max_dest_rd_atomic];
}

/* What a resource holds */
enum res_kind { RES_READ, RES_ATOMIC, RES_EMPTY };

static enum res_kind res_kind(const struct uroce_rd_res *res)
{
	return res->read ? RES_READ : res->empty ? RES_EMPTY : RES_ATOMIC;
}

/* The resource of a request of kind whose answer took psn, or NULL:
 * gone (rxe's find_resource) */
static const struct uroce_rd_res *find_res(const struct uroce_qp *qp,
					   uint32_t psn, enum res_kind kind)
{
	for (uint32_t i = 0; i < qp->attr.max_dest_rd_atomic; i++) {
		const struct uroce_rd_res *res = &qp->rd_res[i];

		if (res->valid && res_kind(res) == kind &&
		    uroce_psn_diff(psn, res->first_psn) >= 0 &&
		    uroce_psn_diff(psn, res->last_psn) <= 0)
			return res;
	}
	return NULL;
}

static int exec_read(struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	int ret = answer_read(qp, pkt);
	uint32_t n = read_npkts(qp, pkt->reth.len);

	if (ret != RESP_OK)
		return ret;
	*take_res(qp) = (struct uroce_rd_res){
		.valid = true, .read = true, .first_psn = pkt->bth.psn,
		.last_psn = uroce_psn_add(pkt->bth.psn, n - 1),
		.va = pkt->reth.va, .len = pkt->reth.len,
	};
	/* the request took one PSN; its responses n */
	qp->rq_psn = uroce_psn_add(qp->rq_psn, n - 1);
	return RESP_OK;
}

/* A duplicate READ: the requester asks again from its first missing
 * response, with a RETH for the rest. Answered while the READ's
 * resource is there and the range inside the READ's (rxe's
 * duplicate_request), read again (uroce keeps no data); else dropped. */
static void replay_read(struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	const struct uroce_rd_res *res = find_res(qp, pkt->bth.psn, RES_READ);

	if (!res || pkt->reth.va < res->va || pkt->reth.len > res->len ||
	    pkt->reth.va + pkt->reth.len > res->va + res->len) {
		sv_dbg("uroce: QP %#x: duplicate READ at PSN %#x, %s: dropped",
		       qp->core.qp.qp_num, pkt->bth.psn,
		       res ? "outside the first one's range" : "its resource is gone");
		return;
	}
	answer_read(qp, pkt);
}

/* ---- atomics ------------------------------------------------------------------------- */

static void send_atomic_ack(struct uroce_qp *qp, uint32_t psn, uint32_t msn,
			    uint64_t orig)
{
	send_ack(qp, UROCE_OP_RC_ATOMIC_ACKNOWLEDGE, UROCE_AETH_ACK_UNLIMITED,
		 psn, msn, orig);
}

static int exec_atomic(struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	const struct uroce_atmeth *a = &pkt->atmeth;
	struct uroce_rd_res *res;
	enum uroce_mr_fault fault;
	struct uroce_mr *mr;
	uint64_t *p, orig, mr_va;

	if (!(qp->attr.qp_access_flags & IBV_ACCESS_REMOTE_ATOMIC))
		return UROCE_AETH_NAK_INVALID_REQ;
	if (a->va & 7)
		return UROCE_AETH_NAK_INVALID_REQ;
	mr = uroce_rkey_check(qp, a->rkey, a->va, sizeof(uint64_t),
			      IBV_ACCESS_REMOTE_ATOMIC, &mr_va, &fault);
	if (!mr)
		return UROCE_AETH_NAK_REM_ACC_ERR;
	if (mr_va & 7) {
		/* a zero-based window at an odd offset (rxe checks the
		 * address it reaches) */
		uroce_mr_put(mr);
		return UROCE_AETH_NAK_INVALID_REQ;
	}
	p = uroce_mr_ptr(mr, mr_va);
	if (pkt->bth.opcode == UROCE_OP_RC_COMPARE_SWAP) {
		orig = a->comp;
		__atomic_compare_exchange_n(p, &orig, a->swap_add, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	} else {
		orig = __atomic_fetch_add(p, a->swap_add, __ATOMIC_SEQ_CST);
	}
	uroce_mr_put(mr);
	res = take_res(qp);
	*res = (struct uroce_rd_res){ .valid = true, .first_psn = pkt->bth.psn,
				      .last_psn = pkt->bth.psn, .orig = orig };
	/* the atomic itself counted (C9-148: at execution) */
	send_atomic_ack(qp, pkt->bth.psn, qp->msn + 1, orig);
	return RESP_OK;
}

/* A duplicate atomic: answered with its saved result, or dropped. */
static void replay_atomic(struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	const struct uroce_rd_res *res = find_res(qp, pkt->bth.psn, RES_ATOMIC);

	if (res) {
		send_atomic_ack(qp, res->first_psn, qp->msn, res->orig);
		return;
	}
	sv_dbg("uroce: QP %#x: duplicate atomic at PSN %#x, its result is gone: dropped",
	       qp->core.qp.qp_num, pkt->bth.psn);
}

/* ---- ATOMIC WRITE and FLUSH ----------------------------------------------------- */

/* How rxe's responder acknowledges both (its acknowledge(): a
 * zero-length RDMA READ RESPONSE ONLY); msn the MSN counting it */
static void send_empty_read_response(struct uroce_qp *qp, uint32_t psn,
				     uint32_t msn)
{
	send_ack(qp, UROCE_OP_RC_RDMA_READ_RESPONSE_ONLY,
		 UROCE_AETH_ACK_UNLIMITED, psn, msn, 0);
}

/* The resource of an executed ATOMIC WRITE or FLUSH (rxe_prepare_res,
 * which keeps an ATOMIC WRITE's PSN and loses a FLUSH's: its duplicate
 * FLUSH finds nothing and is dropped, its requester retrying until its
 * retries run out; uroce keeps both) */
static void take_empty_res(struct uroce_qp *qp, uint32_t psn)
{
	*take_res(qp) = (struct uroce_rd_res){ .valid = true, .empty = true,
					       .first_psn = psn, .last_psn = psn };
}

/* A duplicate ATOMIC WRITE or FLUSH: answered again while its resource
 * is there, never executed again; else dropped (class D) */
static void replay_empty(struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	if (find_res(qp, pkt->bth.psn, RES_EMPTY)) {
		send_empty_read_response(qp, pkt->bth.psn, qp->msn);
		return;
	}
	sv_dbg("uroce: QP %#x: duplicate ATOMIC WRITE or FLUSH at PSN %#x, its resource is gone: dropped",
	       qp->core.qp.qp_num, pkt->bth.psn);
}

static int exec_atomic_write(struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	enum uroce_mr_fault fault;
	struct uroce_mr *mr;
	uint64_t mr_va, val;
	uint64_t *p;

	/* (execute checked max_dest_rd_atomic: rxe's check_resource) */
	if (!(qp->attr.qp_access_flags & IBV_ACCESS_REMOTE_WRITE))
		return UROCE_AETH_NAK_INVALID_REQ;
	if (pkt->reth.len > 0x80000000u)
		return UROCE_AETH_NAK_INVALID_REQ;
	mr = uroce_rkey_check(qp, pkt->reth.rkey, pkt->reth.va, pkt->reth.len,
			      IBV_ACCESS_REMOTE_WRITE, &mr_va, &fault);
	if (!mr)
		return UROCE_AETH_NAK_REM_ACC_ERR;
	/* the payload is 8 bytes (uroce_parse); the RETH must say so,
	 * and the target is aligned where it is in memory (rxe checks
	 * the address it reaches) */
	p = uroce_mr_ptr(mr, mr_va);
	if (pkt->reth.len != pkt->payload_len || ((uintptr_t)p & 7)) {
		uroce_mr_put(mr);
		return UROCE_AETH_NAK_INVALID_REQ;
	}
	memcpy(&val, pkt->payload, sizeof(val));
	__atomic_store_n(p, val, __ATOMIC_RELEASE);
	uroce_mr_put(mr);
	take_empty_res(qp, pkt->bth.psn);
	/* it counted (C9-148: at execution) */
	send_empty_read_response(qp, pkt->bth.psn, qp->msn + 1);
	return RESP_OK;
}

static int exec_flush(struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	bool whole = pkt->feth.sel == SV_FLUSH_MR;
	enum uroce_mr_fault fault;
	struct uroce_mr *mr;
	uint64_t mr_va;
	int access = 0;

	if (pkt->feth.plt & SV_FLUSH_GLOBAL)
		access |= SV_ACCESS_FLUSH_GLOBAL;
	if (pkt->feth.plt & SV_FLUSH_PERSISTENT)
		access |= SV_ACCESS_FLUSH_PERSISTENT;
	if ((qp->attr.qp_access_flags & (unsigned int)access) != (unsigned int)access)
		return UROCE_AETH_NAK_INVALID_REQ;
	if (pkt->reth.len > 0x80000000u)
		return UROCE_AETH_NAK_INVALID_REQ;
	/* the whole MR: key, PD and access, no range (rxe skips
	 * mr_check_range; uroce's checks look at the range last) */
	mr = uroce_rkey_check(qp, pkt->reth.rkey, pkt->reth.va,
			      whole ? 0 : pkt->reth.len, access, &mr_va, &fault);
	if (!mr && !(whole && fault == UROCE_MR_BAD_RANGE))
		return UROCE_AETH_NAK_REM_ACC_ERR;
	if (mr)
		uroce_mr_put(mr);
	/* rxe's process_flush takes a resource too (with none it still
	 * executes: check_resource does not ask for one) */
	if (qp->attr.max_dest_rd_atomic)
		take_empty_res(qp, pkt->bth.psn);
	/* global visibility: every store placed before this one (this
	 * thread's, other QPs' on this host) is visible before the
	 * answer goes */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	send_empty_read_response(qp, pkt->bth.psn, qp->msn + 1);
	return RESP_OK;
}

/* Execute a packet in sequence: RESP_OK or the syndrome to answer. */
static int execute(struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	int ret;

	if (!in_order(qp, pkt))
		return UROCE_AETH_NAK_INVALID_REQ;
	/* rxe's check_resource: no resources, no READ or atomic (a class
	 * C error); with some, the requester keeps within them */
	if ((pkt->flags & (UROCE_OPF_READ | UROCE_OPF_ATOMIC |
			   UROCE_OPF_ATOMIC_WRITE)) &&
	    !qp->attr.max_dest_rd_atomic)
		return UROCE_AETH_NAK_INVALID_REQ;
	if (pkt->flags & UROCE_OPF_SEND)
		ret = exec_send(qp, pkt);
	else if (pkt->flags & UROCE_OPF_WRITE)
		ret = exec_write(qp, pkt);
	else if (pkt->flags & UROCE_OPF_READ)
		ret = exec_read(qp, pkt);
	else if (pkt->flags & UROCE_OPF_ATOMIC)
		ret = exec_atomic(qp, pkt);
	else if (pkt->flags & UROCE_OPF_ATOMIC_WRITE)
		ret = exec_atomic_write(qp, pkt);
	else if (pkt->flags & UROCE_OPF_FLUSH)
		ret = exec_flush(qp, pkt);
	else
		ret = UROCE_AETH_NAK_INVALID_REQ;
	if (ret != RESP_OK)
		return ret;
	qp->resp.active = !ends(pkt);
	qp->resp.write = pkt->flags & UROCE_OPF_WRITE;
	if (ends(pkt))
		qp->msn++;
	return RESP_OK;
}

static void rc_request(struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	int32_t d = uroce_psn_diff(pkt->bth.psn, qp->rq_psn);
	int ret;

	if (d > 0) {
		if (!qp->nak_sent) {
			uroce_count(qp->ctx, UROCE_CTR_OUT_OF_SEQ_REQ);
			send_aeth(qp, UROCE_AETH_NAK_PSN_SEQ_ERROR, qp->rq_psn);
		}
		qp->nak_sent = true;
		return;
	}
	if (d < 0) {
		uroce_count(qp->ctx, UROCE_CTR_DUP_REQ);
		/* a duplicate: a READ or an atomic is answered again
		 * while its resource is there; anything else: ACK what we
		 * have */
		if (pkt->flags & UROCE_OPF_READ)
			replay_read(qp, pkt);
		else if (pkt->flags & UROCE_OPF_ATOMIC)
			replay_atomic(qp, pkt);
		else if (pkt->flags & (UROCE_OPF_ATOMIC_WRITE | UROCE_OPF_FLUSH))
			replay_empty(qp, pkt);
		else
			send_aeth(qp, UROCE_AETH_ACK_UNLIMITED,
				  uroce_psn_add(qp->rq_psn, UROCE_PSN_MASK));
		return;
	}
	qp->nak_sent = false;
	ret = execute(qp, pkt);
	if (ret == RESP_INV_FAILED) {
		/* rxe's class J: the receive completed in error, the request
		 * is acknowledged (not NAKed: the sender's SEND completes
		 * successfully), the MSN and PSN stay, the QP goes to the
		 * error state */
		if (pkt->bth.ack_req)
			send_aeth(qp, UROCE_AETH_ACK_UNLIMITED, pkt->bth.psn);
		uroce_qp_to_error(qp);
		return;
	}
	if ((ret & UROCE_AETH_TYPE_MASK) == UROCE_AETH_RNR_NAK) {
		uroce_count(qp->ctx, UROCE_CTR_SND_RNR);
		send_aeth(qp, (uint8_t)ret, pkt->bth.psn);
		return;
	}
	if (ret != RESP_OK) {
		sv_dbg("uroce: QP %#x: NAK %#x for opcode %#x at PSN %#x",
		       qp->core.qp.qp_num, ret, pkt->bth.opcode, pkt->bth.psn);
		send_aeth(qp, (uint8_t)ret, pkt->bth.psn);
		uroce_qp_to_error(qp);
		return;
	}
	qp->rq_psn = uroce_psn_add(qp->rq_psn, 1);
	/* a READ's responses, an atomic's ATOMIC ACKNOWLEDGE, the empty
	 * READ RESPONSE of an ATOMIC WRITE or a FLUSH are their
	 * acknowledgement */
	if (pkt->bth.ack_req &&
	    !(pkt->flags & (UROCE_OPF_READ | UROCE_OPF_ATOMIC |
			    UROCE_OPF_ATOMIC_WRITE | UROCE_OPF_FLUSH)))
		send_aeth(qp, UROCE_AETH_ACK_UNLIMITED, pkt->bth.psn);
}

static void uc_request(struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	if (pkt->bth.psn != qp->rq_psn) {
		/* a gap: the message in progress is lost; a new one may
		 * start here */
		qp->resp.active = false;
		qp->resp.offset = 0;
		if (!starts(pkt))
			return;
		qp->rq_psn = pkt->bth.psn;
	}
	qp->rq_psn = uroce_psn_add(qp->rq_psn, 1);
	if (execute(qp, pkt) != RESP_OK) {
		qp->resp.active = false;
		qp->resp.offset = 0;
	}
}

void uroce_resp_request(struct uroce_qp *qp, const struct uroce_pkt *pkt,
			const union uroce_sockaddr *src,
			const union uroce_sockaddr *dst)
{
	enum ibv_qp_type type = qp->core.qp.qp_type;

	if (qp->attr.qp_state != IBV_QPS_RTR && qp->attr.qp_state != IBV_QPS_RTS)
		return;
	if (type == IBV_QPT_UD) {
		ud_request(qp, pkt, src, dst);
		return;
	}
	if (!uroce_sa_same_ip(src, &qp->peer.dst))
		return;
	if (type == IBV_QPT_RC)
		rc_request(qp, pkt);
	else
		uc_request(qp, pkt);
}
