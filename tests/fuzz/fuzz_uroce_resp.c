/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* tests/fuzz/fuzz_uroce_resp.c -- uroce's responder (provider/uroce/
 * uroce_resp.c) fed hostile packets with live MRs: bad input never costs
 * memory or data (issue 38).
 *
 * The setup, once: uroce0 over lo (SOFTVERBS_UROCE=lo, as the host unit
 * tests), a PD with five MRs and another PD with one, each over a buffer
 * between canary bytes:
 *   0 REMOTE_WRITE (and LOCAL_WRITE,   may change: RDMA WRITE,
 *     FLUSH_GLOBAL)                    ATOMIC WRITE
 *   1 REMOTE_READ only                 never changes
 *   2 REMOTE_ATOMIC (and LOCAL_WRITE)  may change: atomics
 *   3 LOCAL_WRITE, no remote access    never changes
 *   4 LOCAL_WRITE: the receive WQEs'   may change: SEND
 *   5 every access, the other PD's     never changes
 * and an RC, a UC and a UD QP taken to RTS, peer 127.0.0.1. No socket:
 * the engine's network end is replaced at link time (-Wl,--wrap):
 * uroce_net_start does nothing, the QPNs carry slot 0, uroce_qp_find
 * looks in this harness's three QPs, and uroce_net_send captures what the
 * responder answers. Packets enter at uroce_net_deliver, where the
 * progress thread hands a datagram on after the socket read: parse, ICRC,
 * QP, then the responder (requests) or the requester (ACKs).
 *
 * The input: a 4-byte header, then up to 16 packets.
 *   byte 0: bits 0-2: 8 - n receive WQEs posted on each QP (n = 1..8);
 *           bit 3: none posted (RNR NAKs); bit 4: the QPs lack
 *           REMOTE_WRITE; bit 5: they lack REMOTE_READ; bit 6: they
 *           lack REMOTE_ATOMIC; bit 7: path MTU 1024 (else 256)
 *   bytes 1-3: the RC and UC QPs' expected PSN (rq_psn), little-endian
 *   per packet: a flags byte, a 16-bit little-endian length, then that
 *   many bytes of UDP payload (BTH onward; fewer when the input ends).
 *   Flags: bits 6-7 the QP (RC, UC, UD, RC); bit 0: compute the ICRC;
 *   bit 1: the destination QPN is that QP's; bit 2: the PSN is the QP's
 *   expected PSN plus the packet's PSN low byte as a signed number;
 *   bit 3: RETH/AtomicETH keys name MR (rkey & 7) (6: key 0, 7: as
 *   given) and their VA lands at offset (va % (length + 1024)) - 512 of
 *   it; a DETH carries the UD QP's Q_Key; bit 4: sent from 127.0.0.2.
 * Each input starts from the same state: the QPs it reaches are reset
 * and taken to RTS again, receives posted, the MRs refilled.
 *
 * After each input: no canary byte changed; MRs 1, 3 and 5 are as they
 * were, MR 0 changed only if a WRITE or an ATOMIC WRITE was fed and only
 * inside the ranges of their RETHs, MR 2 only if an atomic,
 * MR 4 only if a SEND; every packet uroce sent is one it parses, is a
 * response (ACK, NAK, READ response) to the QP's peer, and a READ
 * response carries bytes of MR 1 only; every completion is of one of
 * the QPs, and a received one fits its WQE. ASan and UBSan see the rest.
 * The seeds (tests/fuzz/corpus/uroce_resp) are valid packets of each
 * kind in this format, written by tests/fuzz/seeds_uroce_resp.py.
 * FUZZ_TRACE=1 in the environment: each packet's fate, what uroce sent,
 * the completions and the MRs that changed, on stderr. */
#include "config.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "uroce.h"
#include "fuzz.h"

#define NMR 6
#define MR_BYTES 4096
#define CANARY_BYTES 64
#define CANARY 0xee
#define NRECV 8
#define RECV_SGE0 64
#define RECV_SGE1 1024
#define RECV_WQE_BYTES (RECV_SGE0 + RECV_SGE1)
#define MR_RECV_BYTES (NRECV * RECV_WQE_BYTES)
#define MAX_PKTS 16
#define NQP 3
#define QKEY 0x11111111u
#define PEER_QPN 0x123456u

enum { MR_WRITE, MR_READ, MR_ATOMIC, MR_NONE, MR_RECV, MR_OTHER_PD };

static const int mr_access[NMR] = {
	[MR_WRITE] = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     SV_ACCESS_FLUSH_GLOBAL,
	[MR_READ] = IBV_ACCESS_REMOTE_READ,
	[MR_ATOMIC] = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC,
	[MR_NONE] = IBV_ACCESS_LOCAL_WRITE,
	[MR_RECV] = IBV_ACCESS_LOCAL_WRITE,
	[MR_OTHER_PD] = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
};

/* the QP's settings an input asks for: a QP is reset when they change
 * or a packet reached it */
struct qp_setup {
	uint8_t nrecv;
	int access;
	enum ibv_mtu mtu;
	uint32_t rq_psn;
};

static struct {
	struct ibv_context *ctx;
	struct ibv_pd *pd, *pd2;
	struct ibv_cq *cq;
	struct ibv_qp *qp[NQP];
	struct qp_setup setup[NQP];
	bool dirty[NQP];
	struct ibv_mr *mr[NMR];
	uint8_t *mem, *golden;    /* the buffers and canaries; their first state */
	size_t mem_bytes;
	size_t off[NMR], len[NMR]; /* each MR's place in mem */
	union uroce_sockaddr peer, self;
	/* during one input */
	bool fed_write, fed_atomic, fed_send;
	/* the RETHs of the WRITEs fed: [va, va + len) as pointers */
	struct { uintptr_t start, end; } wrange[MAX_PKTS];
	unsigned int nwrange;
	unsigned int sent;
	bool trace;               /* FUZZ_TRACE set: say what happens */
} h;

static const enum ibv_qp_type qp_types[NQP] = { IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD };

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_uroce_resp: %s\n", what);
	abort();
}

/* ---- the engine's network end, replaced (-Wl,--wrap) ----------------------- */

int __wrap_uroce_net_start(struct uroce_context *ctx);
uint32_t __wrap_uroce_net_slot(const struct uroce_context *ctx);
struct uroce_qp *__wrap_uroce_qp_find(struct uroce_context *ctx, uint32_t qpn);
int __wrap_uroce_net_send(struct uroce_context *ctx, const struct uroce_route *route,
			  uint8_t *pkt, size_t len);

int __wrap_uroce_net_start(struct uroce_context *ctx)
{
	(void)ctx;
	return 0;
}

uint32_t __wrap_uroce_net_slot(const struct uroce_context *ctx)
{
	(void)ctx;
	return 0;
}

struct uroce_qp *__wrap_uroce_qp_find(struct uroce_context *ctx, uint32_t qpn)
{
	(void)ctx;
	for (int i = 0; i < NQP; i++)
		if (h.qp[i] && h.qp[i]->qp_num == qpn)
			return to_uroce_qp(h.qp[i]);
	return NULL;
}

/* What uroce answers: a response it can parse itself, to the peer; a
 * READ response's payload is MR_READ's bytes. */
int __wrap_uroce_net_send(struct uroce_context *ctx, const struct uroce_route *route,
			  uint8_t *buf, size_t len)
{
	struct uroce_pkt pkt;

	(void)ctx;
	h.sent++;
	if (h.trace)
		fprintf(stderr, "  sent opcode %#x psn %#x syndrome %#x, %zu bytes\n",
			buf[0], (unsigned int)(buf[9] << 16 | buf[10] << 8 | buf[11]),
			len > 12 ? buf[12] : 0, len);
	if (!uroce_sa_same_ip(&route->dst, &h.peer) ||
	    route->dst.sin.sin_port != h.peer.sin.sin_port ||
	    !uroce_sa_same_ip(&route->src, &h.self))
		fail("a packet sent elsewhere than the QP's peer");
	if (uroce_parse(buf, len, &pkt) != UROCE_DROP_OK)
		fail("a packet sent that uroce's own parser drops");
	if (!(pkt.flags & UROCE_OPF_ACK) || pkt.bth.dest_qpn != PEER_QPN)
		fail("the responder sent something else than a response to the peer QP");
	for (uint32_t i = 0; i < pkt.payload_len; i++)
		if ((pkt.payload[i] >> 5) != MR_READ)
			fail("a READ response carries bytes that are not the readable MR's");
	return 0;
}

/* ---- setup --------------------------------------------------------------------- */

static uint8_t pattern(int mr, size_t j)
{
	/* the MR's number in the top 3 bits (the canary's are 111) */
	return (uint8_t)(mr << 5 | ((j * 7 + 3) & 0x1f));
}

static void setup_memory(void)
{
	size_t at = CANARY_BYTES;

	for (int i = 0; i < NMR; i++) {
		h.off[i] = at;
		h.len[i] = i == MR_RECV ? MR_RECV_BYTES : MR_BYTES;
		at += h.len[i] + CANARY_BYTES;
	}
	h.mem_bytes = at;
	h.mem = malloc(h.mem_bytes);
	h.golden = malloc(h.mem_bytes);
	if (!h.mem || !h.golden)
		fail("out of memory");
	memset(h.golden, CANARY, h.mem_bytes);
	for (int i = 0; i < NMR; i++)
		for (size_t j = 0; j < h.len[i]; j++)
			h.golden[h.off[i] + j] = pattern(i, j);
	memcpy(h.mem, h.golden, h.mem_bytes);
}

static struct ibv_device *uroce0(void)
{
	static struct ibv_device **list;

	setenv("SOFTVERBS_UROCE", "lo", 1);
	setenv("XDG_CONFIG_HOME", "/nonexistent/softverbs-fuzz", 1);
	setenv("SOFTVERBS_SYSCONFDIR", "/nonexistent/softverbs-fuzz", 1);
	list = ibv_get_device_list(NULL);
	for (struct ibv_device **d = list; d && *d; d++)
		if (!strcmp(ibv_get_device_name(*d), "uroce0"))
			return *d;
	fail("no uroce0 over lo (does this host have lo?)");
	return NULL;
}

static void modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask)
{
	if (ibv_modify_qp(qp, a, mask))
		fail("modify_qp refused the harness's attributes");
}

/* QP i from any state to RTS with s, its receive WQEs posted */
static void qp_ready(int i, const struct qp_setup *s)
{
	struct ibv_qp *qp = h.qp[i];
	bool ud = qp_types[i] == IBV_QPT_UD;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };

	modify(qp, &a, IBV_QP_STATE);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	if (ud) {
		a.qkey = QKEY;
		modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY);
	} else {
		a.qp_access_flags = (unsigned int)s->access;
		modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			       IBV_QP_ACCESS_FLAGS);
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	if (ud) {
		modify(qp, &a, IBV_QP_STATE);
	} else {
		a.path_mtu = s->mtu;
		a.dest_qp_num = PEER_QPN;
		a.rq_psn = s->rq_psn;
		a.ah_attr.is_global = 1;
		a.ah_attr.port_num = 1;
		a.ah_attr.grh.sgid_index = 1; /* lo's ::ffff:127.0.0.1 */
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.grh.dgid.raw[10] = a.ah_attr.grh.dgid.raw[11] = 0xff;
		memcpy(a.ah_attr.grh.dgid.raw + 12, &h.peer.sin.sin_addr, 4);
		a.max_dest_rd_atomic = 4;
		a.min_rnr_timer = 12;
		modify(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			       (qp_types[i] == IBV_QPT_RC ?
				IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER : 0));
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0x10;
	if (qp_types[i] == IBV_QPT_RC) {
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 4;
		modify(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
	} else {
		modify(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
	}
	/* WQE k: 64 bytes, then 1024, each in MR_RECV's k-th stretch */
	for (uint32_t k = 0; k < s->nrecv; k++) {
		uint64_t base = (uint64_t)(uintptr_t)(h.mem + h.off[MR_RECV]) +
				k * RECV_WQE_BYTES;
		struct ibv_sge sge[2] = {
			{ base, RECV_SGE0, h.mr[MR_RECV]->lkey },
			{ base + RECV_SGE0, RECV_SGE1, h.mr[MR_RECV]->lkey },
		};
		struct ibv_recv_wr wr = { .wr_id = (uint64_t)i << 8 | k,
					  .sg_list = sge, .num_sge = 2 }, *bad;

		if (ibv_post_recv(qp, &wr, &bad))
			fail("post_recv refused");
	}
	h.setup[i] = *s;
	h.dirty[i] = false;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct ibv_qp_init_attr ia = {
		.cap = { .max_send_wr = 4, .max_recv_wr = NRECV,
			 .max_send_sge = 1, .max_recv_sge = 2 },
	};

	(void)argc;
	(void)argv;
	h.trace = getenv("FUZZ_TRACE");
	memset(&h.peer, 0, sizeof(h.peer));
	h.peer.sin.sin_family = AF_INET;
	h.peer.sin.sin_port = htons(UROCE_UDP_PORT);
	h.peer.sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	h.self = h.peer;
	setup_memory();
	h.ctx = ibv_open_device(uroce0());
	if (!h.ctx)
		fail("cannot open uroce0");
	h.pd = ibv_alloc_pd(h.ctx);
	h.pd2 = ibv_alloc_pd(h.ctx);
	h.cq = ibv_create_cq(h.ctx, 256, NULL, NULL, 0);
	if (!h.pd || !h.pd2 || !h.cq)
		fail("cannot allocate a PD or a CQ");
	for (int i = 0; i < NMR; i++) {
		h.mr[i] = ibv_reg_mr(i == MR_OTHER_PD ? h.pd2 : h.pd, h.mem + h.off[i],
				     h.len[i], mr_access[i]);
		if (!h.mr[i])
			fail("cannot register an MR");
	}
	ia.send_cq = ia.recv_cq = h.cq;
	for (int i = 0; i < NQP; i++) {
		struct qp_setup s = { .nrecv = NRECV, .access = 0, .mtu = IBV_MTU_256 };

		ia.qp_type = qp_types[i];
		h.qp[i] = ibv_create_qp(h.pd, &ia);
		if (!h.qp[i])
			fail("cannot create a QP");
		qp_ready(i, &s);
	}
	return 0;
}

/* ---- one input ----------------------------------------------------------------- */

static void fix_reth(uint8_t *p, size_t len, unsigned int off, bool atomic)
{
	uint64_t va;
	uint32_t rkey;
	unsigned int idx;

	if (!off || off + (atomic ? UROCE_ATMETH_BYTES : UROCE_RETH_BYTES) > len)
		return;
	va = (uint64_t)uroce_be32_decode(p + off) << 32 | uroce_be32_decode(p + off + 4);
	rkey = uroce_be32_decode(p + off + 8);
	idx = rkey & 7;
	if (idx == 7)
		return;
	if (idx == 6) {
		rkey = 0;
	} else {
		rkey = h.mr[idx]->lkey;
		va = (uint64_t)(uintptr_t)(h.mem + h.off[idx]) +
		     va % (h.len[idx] + 1024) - 512;
	}
	uroce_be32_encode(p + off, (uint32_t)(va >> 32));
	uroce_be32_encode(p + off + 4, (uint32_t)va);
	uroce_be32_encode(p + off + 8, rkey);
}

/* The packet's fields the input asked the harness to make right. */
static void fix(uint8_t *p, size_t len, uint8_t flags, int q,
		const union uroce_sockaddr *src)
{
	const struct uroce_opcode_info *info;
	unsigned int off;

	if (len < UROCE_BTH_BYTES)
		return;
	if (flags & 0x02) {
		uint32_t qpn = h.qp[q]->qp_num;

		p[5] = (uint8_t)(qpn >> 16);
		p[6] = (uint8_t)(qpn >> 8);
		p[7] = (uint8_t)qpn;
	}
	if (flags & 0x04) {
		uint32_t psn = uroce_psn_add(to_uroce_qp(h.qp[q])->rq_psn,
					     (uint32_t)(int32_t)(int8_t)p[11]);

		p[9] = (uint8_t)(psn >> 16);
		p[10] = (uint8_t)(psn >> 8);
		p[11] = (uint8_t)psn;
	}
	info = uroce_opcode_info(p[0]);
	if ((flags & 0x08) && info) {
		fix_reth(p, len, uroce_hdr_offset(p[0], UROCE_HDR_RETH), false);
		fix_reth(p, len, uroce_hdr_offset(p[0], UROCE_HDR_ATMETH), true);
		off = uroce_hdr_offset(p[0], UROCE_HDR_DETH);
		if (off && off + UROCE_DETH_BYTES <= len)
			uroce_be32_encode(p + off, QKEY);
	}
	if (flags & 0x01) {
		struct uroce_ipudp n = { .ip4_frag_off = 0x4000,
					 .sport = ntohs(src->sin.sin_port),
					 .dport = UROCE_UDP_PORT };

		memcpy(n.saddr, &src->sin.sin_addr, 4);
		memcpy(n.daddr, &h.self.sin.sin_addr, 4);
		uroce_icrc_fill(&n, p, len);
	}
}

/* A WRITE's or an ATOMIC WRITE's RETH, as the range it may change
 * (an ATOMIC WRITE wants remote write, as rxe) */
static void note_write_range(const uint8_t *p, size_t len)
{
	const struct uroce_opcode_info *info;
	struct uroce_reth reth;
	unsigned int off;

	if (!len || !(info = uroce_opcode_info(p[0])) ||
	    !(info->flags & (UROCE_OPF_WRITE | UROCE_OPF_ATOMIC_WRITE)))
		return;
	off = uroce_hdr_offset(p[0], UROCE_HDR_RETH);
	if (!off || off + UROCE_RETH_BYTES > len || h.nwrange == MAX_PKTS)
		return;
	uroce_reth_decode(p + off, &reth);
	h.wrange[h.nwrange].start = (uintptr_t)reth.va;
	h.wrange[h.nwrange].end = (uintptr_t)(reth.va + reth.len);
	h.nwrange++;
}

static void feed(uint8_t *p, size_t len, uint8_t flags)
{
	struct uroce_context *ctx = to_uroce_context(h.ctx);
	union uroce_sockaddr src = h.peer;
	int q = (flags >> 6) % NQP;
	const struct uroce_opcode_info *info;
	enum uroce_drop why;

	if (flags & 0x10)
		src.sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK + 1);
	fix(p, len, flags, q, &src);
	note_write_range(p, len);
	pthread_mutex_lock(&ctx->qp_lock);
	why = uroce_net_deliver(ctx, p, len, &src, &h.self);
	if (h.trace)
		fprintf(stderr, "packet opcode %#x to QP %d: %s, QP state %d, rq_psn %#x\n",
			len ? p[0] : 0, q, why == UROCE_DROP_COUNT ? "no such QP" : uroce_drop_name(why),
			to_uroce_qp(h.qp[q])->attr.qp_state, to_uroce_qp(h.qp[q])->rq_psn);
	if (why == UROCE_DROP_OK) {
		uint32_t qpn = (uint32_t)p[5] << 16 | (uint32_t)p[6] << 8 | p[7];

		info = uroce_opcode_info(p[0]);
		for (int i = 0; i < NQP; i++)
			if (h.qp[i]->qp_num == qpn)
				h.dirty[i] = true;
		h.fed_write |= !!(info->flags & (UROCE_OPF_WRITE | UROCE_OPF_ATOMIC_WRITE));
		h.fed_atomic |= !!(info->flags & UROCE_OPF_ATOMIC);
		h.fed_send |= !!(info->flags & UROCE_OPF_SEND);
	}
	pthread_mutex_unlock(&ctx->qp_lock);
}

/* The completions of the input: of our QPs; a received message fits
 * its WQE. */
static void drain_cq(void)
{
	struct ibv_wc wc[16];
	int n;

	while ((n = ibv_poll_cq(h.cq, 16, wc)) > 0) {
		for (int i = 0; i < n; i++) {
			bool ours = false;

			if (h.trace)
				fprintf(stderr, "  completion qp %#x wr_id %#llx status %d opcode %d byte_len %u\n",
					wc[i].qp_num, (unsigned long long)wc[i].wr_id, wc[i].status,
					wc[i].opcode, wc[i].byte_len);

			for (int q = 0; q < NQP; q++)
				ours |= wc[i].qp_num == h.qp[q]->qp_num;
			if (!ours)
				fail("a completion of no QP of ours");
			if (wc[i].status == IBV_WC_SUCCESS &&
			    wc[i].opcode == IBV_WC_RECV &&
			    wc[i].byte_len > RECV_WQE_BYTES)
				fail("a received message longer than its WQE");
		}
	}
	if (n < 0)
		fail("poll_cq failed");
}

static void check_memory(void)
{
	const bool may_change[NMR] = {
		[MR_WRITE] = h.fed_write,
		[MR_ATOMIC] = h.fed_atomic,
		[MR_RECV] = h.fed_send,
	};
	size_t at = 0;

	/* MR_WRITE: only inside the RETHs' ranges */
	for (size_t j = 0; may_change[MR_WRITE] && j < h.len[MR_WRITE]; j++) {
		const uint8_t *now = h.mem + h.off[MR_WRITE] + j;
		bool inside = false;

		/* 64 bytes at a time where nothing changed */
		if (!(j % 64) && !memcmp(now, h.golden + h.off[MR_WRITE] + j, 64)) {
			j += 63;
			continue;
		}
		if (*now == h.golden[h.off[MR_WRITE] + j])
			continue;
		for (unsigned int k = 0; k < h.nwrange && !inside; k++)
			inside = (uintptr_t)now >= h.wrange[k].start &&
				 (uintptr_t)now < h.wrange[k].end;
		if (!inside)
			fail("a WRITE changed a byte outside every RETH's range");
	}
	for (int i = 0; h.trace && i < NMR; i++)
		if (memcmp(h.mem + h.off[i], h.golden + h.off[i], h.len[i]))
			fprintf(stderr, "  MR %d changed\n", i);
	for (int i = 0; i < NMR; i++) {
		if (memcmp(h.mem + at, h.golden + at, h.off[i] - at))
			fail("a canary byte changed");
		if (!may_change[i] && memcmp(h.mem + h.off[i], h.golden + h.off[i], h.len[i])) {
			fprintf(stderr, "fuzz_uroce_resp: MR %d changed\n", i);
			fail("an MR changed that the input had no right to change");
		}
		at = h.off[i] + h.len[i];
	}
	if (memcmp(h.mem + at, h.golden + at, h.mem_bytes - at))
		fail("a canary byte changed");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	uint8_t ctl = fuzz_u8(&in);
	struct qp_setup s = { .nrecv = (ctl & 0x08) ? 0 : (uint8_t)(8 - (ctl & 7)),
			      .access = IBV_ACCESS_REMOTE_WRITE |
					IBV_ACCESS_REMOTE_READ |
					IBV_ACCESS_REMOTE_ATOMIC |
					SV_ACCESS_FLUSH_GLOBAL,
			      .mtu = (ctl & 0x80) ? IBV_MTU_1024 : IBV_MTU_256 };
	uint8_t psn[3];

	fuzz_take(&in, psn, 3);
	s.rq_psn = (uint32_t)psn[0] | (uint32_t)psn[1] << 8 | (uint32_t)psn[2] << 16;
	if (ctl & 0x10)
		s.access &= ~IBV_ACCESS_REMOTE_WRITE;
	if (ctl & 0x20)
		s.access &= ~IBV_ACCESS_REMOTE_READ;
	if (ctl & 0x40)
		s.access &= ~IBV_ACCESS_REMOTE_ATOMIC;
	for (int i = 0; i < NQP; i++)
		if (h.dirty[i] || h.setup[i].nrecv != s.nrecv ||
		    h.setup[i].access != s.access || h.setup[i].mtu != s.mtu ||
		    h.setup[i].rq_psn != s.rq_psn)
			qp_ready(i, &s);
	h.fed_write = h.fed_atomic = h.fed_send = false;
	h.nwrange = 0;
	h.sent = 0;

	for (int k = 0; k < MAX_PKTS && in.left; k++) {
		uint8_t flags = fuzz_u8(&in);
		size_t len = fuzz_u16(&in);
		uint8_t *p;

		len = len < in.left ? len : in.left;
		/* a heap copy of exactly its length: ASan sees a read past it */
		p = malloc(len ? len : 1);
		if (!p)
			fail("out of memory");
		fuzz_take(&in, p, len);
		feed(p, len, flags);
		free(p);
	}
	drain_cq();
	check_memory();
	memcpy(h.mem, h.golden, h.mem_bytes);
	return 0;
}
