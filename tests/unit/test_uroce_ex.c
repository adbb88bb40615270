/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* uroce's extended verbs on the host, over lo (SOFTVERBS_UROCE=lo; no
 * VM, no root): ibv_create_cq_ex (rxe's wc_flags and refusals, polling
 * with start/next/end_poll beside ibv_poll_cq, a send posted between
 * start_poll and end_poll, completion channels) and the ibv_wr_* API on
 * RC, UC and UD QPs (every opcode uroce posts, SGE lists and inline data,
 * checked byte for byte), with its error paths: a batch with a bad WR
 * posts nothing and returns the error, wr_abort posts nothing, a batch
 * larger than the send queue is refused, and the QP goes on as if they
 * had never been; two threads' batches on one QP do not mix. RDMA
 * ATOMIC WRITE and FLUSH (RC, as rxe from kernel 6.2): the device caps
 * and MR access flags, the 8 bytes in place (and never torn), FLUSH after
 * a WRITE, the responder's refusals with rxe's completion statuses, and
 * the checks before posting (EINVAL). */
#include "config.h"

#include <check.h>
#include <endian.h>
#include <errno.h>
#include <net/if.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "../check_main.h"
#include "uroce_isolate.h"
#include "uroce.h"

#define TIMEOUT_MS 3000
#define BUF 16384

struct end {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq_ex *cqx;
	struct ibv_cq *cq;           /* cqx's */
	struct ibv_mr *mr;           /* buf, every access */
	uint8_t *buf;
};

static struct ibv_device **dev_list;

static struct ibv_device *uroce0(void)
{
	if (!if_nametoindex("lo"))
		return NULL;
	setenv("SOFTVERBS_UROCE", "lo", 1);
	setenv("XDG_CONFIG_HOME", "/nonexistent/softverbs-test", 1);
	setenv("SOFTVERBS_SYSCONFDIR", "/nonexistent/softverbs-test", 1);
	if (!dev_list)
		dev_list = ibv_get_device_list(NULL);
	for (struct ibv_device **d = dev_list; d && *d; d++)
		if (!strcmp(ibv_get_device_name(*d), "uroce0"))
			return *d;
	return NULL;
}

#define ALL_WC_FLAGS                                                          \
	(IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM |                       \
	 IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP |                      \
	 IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL |                            \
	 IBV_WC_EX_WITH_DLID_PATH_BITS)

static bool open_end(struct end *e, struct ibv_comp_channel **ch)
{
	struct ibv_device *dev = uroce0();
	struct ibv_cq_init_attr_ex ca = { .cqe = 64, .wc_flags = ALL_WC_FLAGS };

	memset(e, 0, sizeof(*e));
	if (!dev) {
		check_skip("no interface lo here: uroce0 cannot be listed");
		return false;
	}
	e->ctx = ibv_open_device(dev);
	ck_assert_ptr_nonnull(e->ctx);
	e->pd = ibv_alloc_pd(e->ctx);
	ck_assert_ptr_nonnull(e->pd);
	if (ch) {
		*ch = ibv_create_comp_channel(e->ctx);
		ck_assert_ptr_nonnull(*ch);
		ca.channel = *ch;
	}
	e->cqx = ibv_create_cq_ex(e->ctx, &ca);
	ck_assert_ptr_nonnull(e->cqx);
	e->cq = ibv_cq_ex_to_cq(e->cqx);
	e->buf = calloc(1, BUF);
	ck_assert_ptr_nonnull(e->buf);
	e->mr = ibv_reg_mr(e->pd, e->buf, BUF,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	ck_assert_ptr_nonnull(e->mr);
	return true;
}

static void close_end(struct end *e, struct ibv_comp_channel *ch)
{
	ck_assert_int_eq(ibv_dereg_mr(e->mr), 0);
	ck_assert_int_eq(ibv_destroy_cq(e->cq), 0);
	if (ch)
		ck_assert_int_eq(ibv_destroy_comp_channel(ch), 0);
	ck_assert_int_eq(ibv_dealloc_pd(e->pd), 0);
	ck_assert_int_eq(ibv_close_device(e->ctx), 0);
	free(e->buf);
}

/* A QP of type on e's CQ; with send_ops_flags when ops is not 0. NULL
 * and errno on failure. */
static struct ibv_qp *make_qp(struct end *e, enum ibv_qp_type type,
			      uint64_t ops, uint32_t max_send_wr)
{
	struct ibv_qp_init_attr_ex ia = {
		.send_cq = e->cq,
		.recv_cq = e->cq,
		.qp_type = type,
		.cap = { .max_send_wr = max_send_wr, .max_recv_wr = 16,
			 .max_send_sge = 3, .max_recv_sge = 2,
			 .max_inline_data = 64 },
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = e->pd,
	};

	if (ops) {
		ia.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		ia.send_ops_flags = ops;
	}
	return ibv_create_qp_ex(e->ctx, &ia);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* What the read_* accessors said of one completion */
struct exwc {
	uint64_t wr_id;
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode;
	unsigned int wc_flags;
	uint32_t byte_len, qp_num, src_qp;
	__be32 imm;
};

static void read_cur(struct ibv_cq_ex *cqx, struct exwc *w)
{
	w->wr_id = cqx->wr_id;
	w->status = cqx->status;
	w->opcode = ibv_wc_read_opcode(cqx);
	w->wc_flags = ibv_wc_read_wc_flags(cqx);
	w->byte_len = ibv_wc_read_byte_len(cqx);
	w->qp_num = ibv_wc_read_qp_num(cqx);
	w->src_qp = ibv_wc_read_src_qp(cqx);
	w->imm = ibv_wc_read_imm_data(cqx);
	/* rxe's CQEs carry these, always 0 on RoCE */
	ck_assert_uint_eq(ibv_wc_read_slid(cqx), 0);
	ck_assert_uint_eq(ibv_wc_read_sl(cqx), 0);
	ck_assert_uint_eq(ibv_wc_read_dlid_path_bits(cqx), 0);
	ck_assert_uint_eq(ibv_wc_read_vendor_err(cqx), 0);
}

/* n completions within TIMEOUT_MS, through start/next/end_poll */
static void poll_ex(struct ibv_cq_ex *cqx, struct exwc *w, int n)
{
	struct ibv_poll_cq_attr pa = { 0 };
	long end = now_ms() + TIMEOUT_MS;
	int got = 0;

	while (got < n) {
		int ret = ibv_start_poll(cqx, &pa);

		if (ret == ENOENT) {
			ck_assert_msg(now_ms() < end, "%d of %d completions within %d ms",
				      got, n, TIMEOUT_MS);
			usleep(200);
			continue;
		}
		ck_assert_int_eq(ret, 0);
		do {
			read_cur(cqx, &w[got++]);
		} while (got < n && !(ret = ibv_next_poll(cqx)));
		ck_assert(ret == 0 || ret == ENOENT);
		ibv_end_poll(cqx);
	}
}

/* No completion now (after giving the engine a moment) */
static void no_completion(struct ibv_cq *cq)
{
	struct ibv_wc wc;

	usleep(50000);
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(ibv_poll_cq(cq, 1, &wc), 0);
}

/* GID index 1 of lo: ::ffff:127.0.0.1 */
static struct ibv_ah_attr av_lo(void)
{
	struct ibv_ah_attr av = { .is_global = 1, .port_num = 1 };

	av.grh.sgid_index = 1;
	av.grh.hop_limit = 64;
	av.grh.dgid.raw[10] = av.grh.dgid.raw[11] = 0xff;
	av.grh.dgid.raw[12] = 127;
	av.grh.dgid.raw[15] = 1;
	return av;
}

/* The Local ACK Timeout RC QPs get (to_rts_with): 18, about a second */
static uint8_t rc_timeout = 18;

/* RTS, connected to dest_qpn; an RC QP grants remote write, read and
 * atomics and extra (IBV_ACCESS_*), and takes max_dest_rd incoming READs
 * and atomics */
static void to_rts_with(struct ibv_qp *qp, uint32_t dest_qpn,
			unsigned int access, uint8_t max_dest_rd)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	if (qp->qp_type == IBV_QPT_UD) {
		a.qkey = 0x11111111;
		mask |= IBV_QP_QKEY;
	} else {
		a.qp_access_flags = qp->qp_type == IBV_QPT_RC ? access :
				    IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	ck_assert_int_eq(ibv_modify_qp(qp, &a, mask), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	mask = IBV_QP_STATE;
	if (qp->qp_type != IBV_QPT_UD) {
		a.ah_attr = av_lo();
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = dest_qpn;
		a.rq_psn = 100;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
	}
	if (qp->qp_type == IBV_QPT_RC) {
		a.max_dest_rd_atomic = max_dest_rd;
		a.min_rnr_timer = 12;
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	}
	ck_assert_int_eq(ibv_modify_qp(qp, &a, mask), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 100;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (qp->qp_type == IBV_QPT_RC) {
		/* the retransmit timer at about a second by default (a
		 * datagram can be lost on a busy lo: other contexts' sockets
		 * join and leave the SO_REUSEPORT group), so that the packets
		 * counted right after ibv_wr_complete are its own
		 * (qp_ex_rc_batch); a case under faults sets less */
		a.timeout = rc_timeout;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 4;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	ck_assert_int_eq(ibv_modify_qp(qp, &a, mask), 0);
}

#define RC_ACCESS                                                             \
	(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |                   \
	 IBV_ACCESS_REMOTE_ATOMIC)

static void to_rts(struct ibv_qp *qp, uint32_t dest_qpn)
{
	to_rts_with(qp, dest_qpn, RC_ACCESS, 4);
}

/* Two connected QPs of type: a (with ops and a send queue of
 * max_send_wr) sends to b (plain). */
static void pair(struct end *e, enum ibv_qp_type type, uint64_t ops,
		 uint32_t max_send_wr, struct ibv_qp **a, struct ibv_qp **b)
{
	*a = make_qp(e, type, ops, max_send_wr);
	*b = make_qp(e, type, 0, 16);
	ck_assert_ptr_nonnull(*a);
	ck_assert_ptr_nonnull(*b);
	to_rts(*a, (*b)->qp_num);
	to_rts(*b, (*a)->qp_num);
}

static void post_recv(struct ibv_qp *qp, struct end *e, uint32_t off,
		      uint32_t len, uint64_t wr_id)
{
	struct ibv_sge sge = { .addr = (uintptr_t)e->buf + off, .length = len,
			       .lkey = e->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	ck_assert_int_eq(ibv_post_recv(qp, &wr, &bad), 0);
}

static void fill(uint8_t *p, size_t len, unsigned int seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 7 + seed + (i >> 8));
}

/* The completion of wr_id among n */
static const struct exwc *find(const struct exwc *w, int n, uint64_t wr_id)
{
	for (int i = 0; i < n; i++)
		if (w[i].wr_id == wr_id)
			return &w[i];
	ck_abort_msg("no completion for wr_id %llu", (unsigned long long)wr_id);
	return NULL;
}

/* ---- ibv_create_cq_ex ---------------------------------------------------------- */

/* rxe's wc_flags are taken, their accessors set, the others NULL;
 * a timestamp, a flag rxe refuses (IGNORE_OVERRUN) and a comp_mask
 * past the flags are EOPNOTSUPP, as on rxe; SINGLE_THREADED is taken. */
START_TEST(cq_ex_create)
{
	struct ibv_device *dev = uroce0();
	struct ibv_context *ctx;
	struct ibv_cq_init_attr_ex ca = { .cqe = 10, .wc_flags = IBV_WC_EX_WITH_BYTE_LEN };
	struct ibv_cq_ex *cqx;

	if (!dev) {
		check_skip("no interface lo here: uroce0 cannot be listed");
		return;
	}
	ctx = ibv_open_device(dev);
	ck_assert_ptr_nonnull(ctx);
	cqx = ibv_create_cq_ex(ctx, &ca);
	ck_assert_ptr_nonnull(cqx);
	ck_assert_int_eq(ibv_cq_ex_to_cq(cqx)->cqe, 15); /* rxe's ring */
	ck_assert_ptr_nonnull(cqx->read_byte_len);
	ck_assert_ptr_nonnull(cqx->read_opcode);
	ck_assert_ptr_nonnull(cqx->read_wc_flags);
	ck_assert_ptr_null(cqx->read_imm_data);
	ck_assert_ptr_null(cqx->read_completion_ts);
	ck_assert_int_eq(ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)), 0);

	ca.wc_flags = ALL_WC_FLAGS;
	ca.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
	ca.flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED;
	cqx = ibv_create_cq_ex(ctx, &ca);
	ck_assert_ptr_nonnull(cqx);
	ck_assert_ptr_nonnull(cqx->read_dlid_path_bits);
	ck_assert_int_eq(ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)), 0);

	ca.flags = IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN;
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq_ex(ctx, &ca));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ca.comp_mask = 0;
	ca.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq_ex(ctx, &ca));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ca.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_FLOW_TAG;
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq_ex(ctx, &ca));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ca.wc_flags = 0;
	ca.cqe = UROCE_MAX_CQE + 1;
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq_ex(ctx, &ca));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}
END_TEST

/* Completions of ibv_post_send's WRs through start/next/end_poll, with
 * what each accessor says; an empty CQ is ENOENT; ibv_poll_cq takes from
 * the same CQ; a UD send posted between start_poll and end_poll
 * completes into the CQ being polled (no deadlock). */
START_TEST(cq_ex_poll)
{
	struct end e;
	struct ibv_qp *a, *b;
	struct ibv_ah *ah;
	struct ibv_ah_attr av = av_lo();
	struct ibv_poll_cq_attr pa = { 0 };
	struct exwc w[4];
	struct ibv_wc wc;
	const struct exwc *r;

	if (!open_end(&e, NULL))
		return;
	ck_assert_int_eq(ibv_start_poll(e.cqx, &pa), ENOENT);
	a = make_qp(&e, IBV_QPT_UD, 0, 16);
	b = make_qp(&e, IBV_QPT_UD, 0, 16);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	to_rts(a, 0);
	to_rts(b, 0);
	ah = ibv_create_ah(e.pd, &av);
	ck_assert_ptr_nonnull(ah);
	fill(e.buf, 100, 1);
	for (int i = 0; i < 2; i++) {
		struct ibv_sge sge = { (uintptr_t)e.buf, 100, e.mr->lkey };
		struct ibv_send_wr swr = { .wr_id = 10 + i, .sg_list = &sge, .num_sge = 1,
					   .opcode = IBV_WR_SEND_WITH_IMM,
					   .send_flags = IBV_SEND_SIGNALED,
					   .imm_data = htobe32(0x5150 + i) }, *bad;

		swr.wr.ud.ah = ah;
		swr.wr.ud.remote_qpn = b->qp_num;
		swr.wr.ud.remote_qkey = 0x11111111;
		post_recv(b, &e, 4096 + 2048 * i, 2048, 20 + i);
		ck_assert_int_eq(ibv_post_send(a, &swr, &bad), 0);
	}
	poll_ex(e.cqx, w, 4);
	r = find(w, 4, 10);
	ck_assert_int_eq(r->status, IBV_WC_SUCCESS);
	ck_assert_int_eq(r->opcode, IBV_WC_SEND);
	ck_assert_uint_eq(r->qp_num, a->qp_num);
	for (int i = 0; i < 2; i++) {
		r = find(w, 4, 20 + i);
		ck_assert_int_eq(r->status, IBV_WC_SUCCESS);
		ck_assert_int_eq(r->opcode, IBV_WC_RECV);
		ck_assert_uint_eq(r->byte_len, 40 + 100);
		ck_assert_uint_eq(r->qp_num, b->qp_num);
		ck_assert_uint_eq(r->src_qp, a->qp_num);
		ck_assert_uint_eq(r->wc_flags, IBV_WC_GRH | IBV_WC_WITH_IMM);
		ck_assert_uint_eq(be32toh(r->imm), 0x5150 + i);
		ck_assert_mem_eq(e.buf + 4096 + 2048 * i + 40, e.buf, 100);
	}
	ck_assert_int_eq(ibv_start_poll(e.cqx, &pa), ENOENT);

	/* a send between start_poll and end_poll, completing into this CQ
	 * at once (UD); then ibv_poll_cq takes what is left */
	{
		struct ibv_sge sge = { (uintptr_t)e.buf, 10, e.mr->lkey };
		struct ibv_send_wr swr = { .sg_list = &sge, .num_sge = 1,
					   .opcode = IBV_WR_SEND,
					   .send_flags = IBV_SEND_SIGNALED }, *bad;
		long end = now_ms() + TIMEOUT_MS;
		int ret;

		swr.wr.ud.ah = ah;
		swr.wr.ud.remote_qpn = b->qp_num;
		swr.wr.ud.remote_qkey = 0x11111111;
		post_recv(b, &e, 8192, 2048, 30);
		post_recv(b, &e, 10240, 2048, 31);
		swr.wr_id = 40;
		ck_assert_int_eq(ibv_post_send(a, &swr, &bad), 0);
		do {
			ret = ibv_start_poll(e.cqx, &pa);
		} while (ret == ENOENT && now_ms() < end);
		ck_assert_int_eq(ret, 0);
		swr.wr_id = 41;
		ck_assert_int_eq(ibv_post_send(a, &swr, &bad), 0);
		ibv_end_poll(e.cqx);
		/* three more: 40's other, 41's two */
		for (int got = 0; got < 3;) {
			int n = ibv_poll_cq(e.cq, 1, &wc);

			ck_assert_int_ge(n, 0);
			ck_assert_msg(now_ms() < end, "%d of 3 completions", got);
			if (n) {
				ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
				got++;
			}
		}
	}
	no_completion(e.cq);
	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
	ck_assert_int_eq(ibv_destroy_qp(a), 0);
	ck_assert_int_eq(ibv_destroy_qp(b), 0);
	close_end(&e, NULL);
}
END_TEST

/* A cq_ex on a completion channel: armed, it raises its event, which
 * names the CQ; polled with start_poll after. */
START_TEST(cq_ex_channel)
{
	struct end e;
	struct ibv_comp_channel *ch;
	struct ibv_qp *a, *b;
	struct ibv_cq *evcq;
	void *evctx;
	struct exwc w[2];

	if (!open_end(&e, &ch))
		return;
	pair(&e, IBV_QPT_RC, 0, 16, &a, &b);
	ck_assert_int_eq(ibv_req_notify_cq(e.cq, 0), 0);
	post_recv(b, &e, 8192, 100, 1);
	{
		struct ibv_sge sge = { (uintptr_t)e.buf, 50, e.mr->lkey };
		struct ibv_send_wr swr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1,
					   .opcode = IBV_WR_SEND,
					   .send_flags = IBV_SEND_SIGNALED }, *bad;

		ck_assert_int_eq(ibv_post_send(a, &swr, &bad), 0);
	}
	ck_assert_int_eq(ibv_get_cq_event(ch, &evcq, &evctx), 0);
	ck_assert_ptr_eq(evcq, e.cq);
	ibv_ack_cq_events(evcq, 1);
	poll_ex(e.cqx, w, 2);
	ck_assert_int_eq(find(w, 2, 1)->opcode, IBV_WC_RECV);
	ck_assert_int_eq(find(w, 2, 2)->opcode, IBV_WC_SEND);
	ck_assert_int_eq(ibv_destroy_qp(a), 0);
	ck_assert_int_eq(ibv_destroy_qp(b), 0);
	close_end(&e, ch);
}
END_TEST

/* ---- ibv_create_qp_ex with send_ops_flags ------------------------------------------ */

#define RC_OPS                                                                \
	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |                 \
	 IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |     \
	 IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |       \
	 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
#define UC_OPS                                                                \
	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |                 \
	 IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
#define UD_OPS (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)

/* What each type takes; an op it cannot post (rxe's rule, or uroce's
 * stricter one: LOCAL_INV on UC), or one uroce's requester lacks, is
 * EOPNOTSUPP (ATOMIC WRITE and FLUSH: RC only); a QP without
 * send_ops_flags has no ibv_qp_ex. */
START_TEST(qp_ex_create)
{
	static const struct {
		enum ibv_qp_type type;
		uint64_t ops;
		int err;
	} cases[] = {
		{ IBV_QPT_RC, RC_OPS, 0 },
		{ IBV_QPT_UC, UC_OPS, 0 },
		{ IBV_QPT_UD, UD_OPS, 0 },
		{ IBV_QPT_UC, IBV_QP_EX_WITH_RDMA_READ, EOPNOTSUPP },
		{ IBV_QPT_UC, IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD, EOPNOTSUPP },
		{ IBV_QPT_UD, IBV_QP_EX_WITH_RDMA_WRITE, EOPNOTSUPP },
		{ IBV_QPT_RC, IBV_QP_EX_WITH_ATOMIC_WRITE | SV_QP_EX_WITH_FLUSH, 0 },
		{ IBV_QPT_UC, IBV_QP_EX_WITH_ATOMIC_WRITE, EOPNOTSUPP },
		{ IBV_QPT_UC, SV_QP_EX_WITH_FLUSH, EOPNOTSUPP },
		{ IBV_QPT_UD, IBV_QP_EX_WITH_ATOMIC_WRITE, EOPNOTSUPP },
		{ IBV_QPT_RC, IBV_QP_EX_WITH_SEND_WITH_INV |
			      IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_BIND_MW, 0 },
		{ IBV_QPT_UC, IBV_QP_EX_WITH_BIND_MW, 0 },
		{ IBV_QPT_UC, IBV_QP_EX_WITH_LOCAL_INV, EOPNOTSUPP },
		{ IBV_QPT_UD, IBV_QP_EX_WITH_SEND_WITH_INV, EOPNOTSUPP },
		{ IBV_QPT_RC, IBV_QP_EX_WITH_TSO, EOPNOTSUPP },
	};
	struct end e;
	struct ibv_qp *qp;

	if (!open_end(&e, NULL))
		return;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		errno = 0;
		qp = make_qp(&e, cases[i].type, cases[i].ops, 16);
		if (cases[i].err) {
			ck_assert_msg(!qp && errno == cases[i].err,
				      "case %zu: %p errno %d", i, (void *)qp, errno);
			continue;
		}
		ck_assert_ptr_nonnull(qp);
		ck_assert_ptr_eq(ibv_qp_to_qp_ex(qp), (struct ibv_qp_ex *)qp);
		ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	}
	qp = make_qp(&e, IBV_QPT_RC, 0, 16);
	ck_assert_ptr_nonnull(qp);
	errno = 0;
	ck_assert_ptr_null(ibv_qp_to_qp_ex(qp));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	close_end(&e, NULL);
}
END_TEST

/* One RC batch with every opcode: SEND from an SGE list, SEND with
 * immediate and inline data from two buffers (reused at once), WRITE,
 * WRITE with immediate, READ, FETCH_AND_ADD, CMP_AND_SWP; each signaled
 * WR completes with its wr_id and opcode, an unsignaled one not, and the
 * bytes are where they should be. */
enum {
	OFF_SEND = 0, OFF_IMM = 1024, OFF_W = 2048, OFF_WI = 3072,
	OFF_RD = 4096, OFF_AT = 5120,               /* a's buffer */
	OFF_RSEND = 8192, OFF_RIMM = 9216, OFF_RW = 10240, OFF_RWI = 11264,
	OFF_RRD = 12288, OFF_RAT = 13312,           /* b's (the same buffer) */
};

START_TEST(qp_ex_rc_batch)
{
	struct end e;
	struct ibv_qp *a, *b;
	struct ibv_qp_ex *qx;
	struct exwc w[11];
	uint64_t *at, *rat, sent;
	char one[8] = "inline-", two[8] = "data!!!";
	struct ibv_data_buf inl[2] = { { one, 7 }, { two, 7 } };
	struct ibv_sge list[2];
	const struct exwc *r;

	if (!open_end(&e, NULL))
		return;
	pair(&e, IBV_QPT_RC, RC_OPS, 16, &a, &b);
	qx = ibv_qp_to_qp_ex(a);
	ck_assert_ptr_nonnull(qx);
	fill(e.buf, 8192, 5);
	at = (uint64_t *)(e.buf + OFF_AT);
	rat = (uint64_t *)(e.buf + OFF_RAT);
	rat[0] = 1000;
	rat[1] = 77;
	fill(e.buf + OFF_RRD, 512, 9);
	post_recv(b, &e, OFF_RSEND, 1024, 100);
	post_recv(b, &e, OFF_RIMM, 1024, 101);
	post_recv(b, &e, OFF_RWI, 1, 102); /* WRITE with imm: consumes one */
	list[0] = (struct ibv_sge){ (uintptr_t)e.buf + OFF_SEND, 300, e.mr->lkey };
	list[1] = (struct ibv_sge){ (uintptr_t)e.buf + OFF_SEND + 500, 200, e.mr->lkey };

	ibv_wr_start(qx);
	qx->wr_id = 1;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qx);
	ibv_wr_set_sge_list(qx, 2, list);
	qx->wr_id = 2;
	ibv_wr_send_imm(qx, htobe32(0xfeed));
	ibv_wr_set_inline_data_list(qx, 2, inl);
	memset(one, 'x', sizeof(one)); /* copied already */
	qx->wr_id = 3;
	qx->wr_flags = 0; /* unsignaled: no completion */
	ibv_wr_rdma_write(qx, e.mr->rkey, (uintptr_t)e.buf + OFF_RW);
	ibv_wr_set_sge(qx, e.mr->lkey, (uintptr_t)e.buf + OFF_W, 1000);
	qx->wr_id = 4;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write_imm(qx, e.mr->rkey, (uintptr_t)e.buf + OFF_RWI, htobe32(0xbeef));
	ibv_wr_set_inline_data(qx, e.buf + OFF_WI, 40);
	qx->wr_id = 5;
	ibv_wr_rdma_read(qx, e.mr->rkey, (uintptr_t)e.buf + OFF_RRD);
	ibv_wr_set_sge(qx, e.mr->lkey, (uintptr_t)e.buf + OFF_RD, 512);
	qx->wr_id = 6;
	ibv_wr_atomic_fetch_add(qx, e.mr->rkey, (uintptr_t)&rat[0], 24);
	ibv_wr_set_sge(qx, e.mr->lkey, (uintptr_t)&at[0], 8);
	qx->wr_id = 7;
	ibv_wr_atomic_cmp_swp(qx, e.mr->rkey, (uintptr_t)&rat[1], 77, 88);
	ibv_wr_set_sge(qx, e.mr->lkey, (uintptr_t)&at[1], 8);
	sent = uroce_ctr_get(to_uroce_context(e.ctx), UROCE_CTR_SENT_PKTS);
	ck_assert_int_eq(ibv_wr_complete(qx), 0);
	/* the batch left from ibv_wr_complete itself, as ibv_post_send's
	 * WRs do, not at the retransmit timer a second later (it once did:
	 * 150 ms per message of ibv_rc_pingpong -N); at least the first
	 * WR's packet, within the window */
	ck_assert_uint_gt(uroce_ctr_get(to_uroce_context(e.ctx), UROCE_CTR_SENT_PKTS), sent);

	/* 6 signaled sends, 3 receives */
	poll_ex(e.cqx, w, 9);
	no_completion(e.cq);
	for (uint64_t id = 1; id <= 7; id++) {
		static const enum ibv_wc_opcode op[] = {
			0, IBV_WC_SEND, IBV_WC_SEND, 0, IBV_WC_RDMA_WRITE,
			IBV_WC_RDMA_READ, IBV_WC_FETCH_ADD, IBV_WC_COMP_SWAP,
		};

		if (id == 3)
			continue;
		r = find(w, 9, id);
		ck_assert_msg(r->status == IBV_WC_SUCCESS, "wr %llu: status %d",
			      (unsigned long long)id, r->status);
		ck_assert_int_eq(r->opcode, op[id]);
		ck_assert_uint_eq(r->qp_num, a->qp_num);
	}
	r = find(w, 9, 100);
	ck_assert_int_eq(r->opcode, IBV_WC_RECV);
	ck_assert_uint_eq(r->byte_len, 500);
	ck_assert_mem_eq(e.buf + OFF_RSEND, e.buf + OFF_SEND, 300);
	ck_assert_mem_eq(e.buf + OFF_RSEND + 300, e.buf + OFF_SEND + 500, 200);
	r = find(w, 9, 101);
	ck_assert_uint_eq(r->byte_len, 14);
	ck_assert(r->wc_flags & IBV_WC_WITH_IMM);
	ck_assert_uint_eq(be32toh(r->imm), 0xfeed);
	ck_assert_mem_eq(e.buf + OFF_RIMM, "inline-data!!!", 14);
	r = find(w, 9, 102);
	ck_assert_int_eq(r->opcode, IBV_WC_RECV_RDMA_WITH_IMM);
	ck_assert_uint_eq(be32toh(r->imm), 0xbeef);
	ck_assert_mem_eq(e.buf + OFF_RW, e.buf + OFF_W, 1000);
	ck_assert_mem_eq(e.buf + OFF_RWI, e.buf + OFF_WI, 40);
	ck_assert_mem_eq(e.buf + OFF_RD, e.buf + OFF_RRD, 512);
	ck_assert_uint_eq(at[0], 1000);
	ck_assert_uint_eq(rat[0], 1024);
	ck_assert_uint_eq(at[1], 77);
	ck_assert_uint_eq(rat[1], 88);

	ck_assert_int_eq(ibv_destroy_qp(a), 0);
	ck_assert_int_eq(ibv_destroy_qp(b), 0);
	close_end(&e, NULL);
}
END_TEST

/* A batch that fails posts nothing: a setter with no WR open, too
 * much inline data, a misaligned atomic, more SGEs than max_send_sge,
 * an inline READ, and a good WR before each; wr_complete returns the
 * error (EINVAL). wr_abort posts nothing either, and a batch longer
 * than the send queue is ENOMEM. After each the QP goes on: the next
 * good batch is the peer's next message (its PSNs were not taken). */
static void good_send(struct ibv_qp_ex *qx, struct end *e, uint64_t id,
		      uint32_t len)
{
	qx->wr_id = id;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qx);
	ibv_wr_set_sge(qx, e->mr->lkey, (uintptr_t)e->buf, len);
}

START_TEST(qp_ex_failed_batches)
{
	struct end e;
	struct ibv_qp *a, *b;
	struct ibv_qp_ex *qx;
	struct exwc w[2];
	static uint8_t big[100];
	struct ibv_sge five[5];

	if (!open_end(&e, NULL))
		return;
	pair(&e, IBV_QPT_RC, RC_OPS, 4, &a, &b);
	qx = ibv_qp_to_qp_ex(a);
	fill(e.buf, 4096, 8);
	for (int i = 0; i < 5; i++)
		five[i] = (struct ibv_sge){ (uintptr_t)e.buf, 8, e.mr->lkey };
	post_recv(b, &e, 8192, 1024, 50);

	for (int c = 0; c < 7; c++) {
		ibv_wr_start(qx);
		if (c != 0)
			good_send(qx, &e, 1, 10);
		switch (c) {
		case 0: /* a setter before any WR */
			ibv_wr_set_sge(qx, e.mr->lkey, (uintptr_t)e.buf, 8);
			good_send(qx, &e, 1, 10);
			break;
		case 1: /* 100 bytes inline, max_inline_data 64 */
			ibv_wr_send(qx);
			ibv_wr_set_inline_data(qx, big, sizeof(big));
			break;
		case 2: /* an atomic at a misaligned address */
			ibv_wr_atomic_fetch_add(qx, e.mr->rkey, (uintptr_t)e.buf + 4, 1);
			ibv_wr_set_sge(qx, e.mr->lkey, (uintptr_t)e.buf, 8);
			break;
		case 3: /* five SGEs, max_send_sge 3 (4 granted, as rxe:
			 * the room of 64 inline bytes) */
			ibv_wr_send(qx);
			ibv_wr_set_sge_list(qx, 5, five);
			break;
		case 4: /* a READ with inline data */
			ibv_wr_rdma_read(qx, e.mr->rkey, (uintptr_t)e.buf);
			ibv_wr_set_inline_data(qx, big, 8);
			break;
		case 5: /* ibv_wr_set_ud_addr without an address handle */
			ibv_wr_send(qx);
			ibv_wr_set_ud_addr(qx, NULL, 0, 0);
			break;
		case 6: /* five WRs, a send queue of 4 */
			for (int i = 0; i < 4; i++)
				good_send(qx, &e, 1, 10);
			break;
		}
		ck_assert_int_eq(ibv_wr_complete(qx), c == 6 ? ENOMEM : EINVAL);
		ck_assert_uint_eq(to_uroce_qp(a)->sq_tail, to_uroce_qp(a)->sq_head);
	}
	ibv_wr_start(qx);
	good_send(qx, &e, 1, 10);
	good_send(qx, &e, 1, 10);
	ibv_wr_abort(qx);
	no_completion(e.cq);

	/* the next batch is b's next message */
	ibv_wr_start(qx);
	good_send(qx, &e, 2, 333);
	ck_assert_int_eq(ibv_wr_complete(qx), 0);
	poll_ex(e.cqx, w, 2);
	ck_assert_int_eq(find(w, 2, 2)->status, IBV_WC_SUCCESS);
	ck_assert_int_eq(find(w, 2, 50)->status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(find(w, 2, 50)->byte_len, 333);
	ck_assert_mem_eq(e.buf + 8192, e.buf, 333);
	/* an empty batch is fine */
	ibv_wr_start(qx);
	ck_assert_int_eq(ibv_wr_complete(qx), 0);
	no_completion(e.cq);

	ck_assert_int_eq(ibv_destroy_qp(a), 0);
	ck_assert_int_eq(ibv_destroy_qp(b), 0);
	close_end(&e, NULL);
}
END_TEST

/* A QP in RESET (or INIT) refuses the batch: EINVAL, nothing posted. */
START_TEST(qp_ex_not_rts)
{
	struct end e;
	struct ibv_qp *a;
	struct ibv_qp_ex *qx;

	if (!open_end(&e, NULL))
		return;
	a = make_qp(&e, IBV_QPT_RC, RC_OPS, 16);
	ck_assert_ptr_nonnull(a);
	qx = ibv_qp_to_qp_ex(a);
	ibv_wr_start(qx);
	good_send(qx, &e, 1, 10);
	ck_assert_int_eq(ibv_wr_complete(qx), EINVAL);
	no_completion(e.cq);
	ck_assert_int_eq(ibv_destroy_qp(a), 0);
	close_end(&e, NULL);
}
END_TEST

/* UD: SEND with immediate to an AH (ibv_wr_set_ud_addr), the GRH in
 * front at the receiver; a WR without an address fails the batch. */
START_TEST(qp_ex_ud)
{
	struct end e;
	struct ibv_qp *a, *b;
	struct ibv_qp_ex *qx;
	struct ibv_ah *ah;
	struct ibv_ah_attr av = av_lo();
	struct exwc w[4];
	const struct exwc *r;

	if (!open_end(&e, NULL))
		return;
	pair(&e, IBV_QPT_UD, UD_OPS, 16, &a, &b);
	qx = ibv_qp_to_qp_ex(a);
	ah = ibv_create_ah(e.pd, &av);
	ck_assert_ptr_nonnull(ah);
	fill(e.buf, 1000, 2);
	post_recv(b, &e, 4096, 2048, 60);
	post_recv(b, &e, 8192, 2048, 61);

	ibv_wr_start(qx);
	good_send(qx, &e, 1, 10); /* no address */
	ck_assert_int_eq(ibv_wr_complete(qx), EINVAL);

	ibv_wr_start(qx);
	qx->wr_id = 3;
	qx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED;
	ibv_wr_send_imm(qx, htobe32(0xa5a5));
	ibv_wr_set_ud_addr(qx, ah, b->qp_num, 0x11111111);
	ibv_wr_set_sge(qx, e.mr->lkey, (uintptr_t)e.buf, 1000);
	qx->wr_id = 4;
	ibv_wr_send(qx);
	ibv_wr_set_inline_data(qx, e.buf + 100, 50);
	ibv_wr_set_ud_addr(qx, ah, b->qp_num, 0x11111111);
	ck_assert_int_eq(ibv_wr_complete(qx), 0);
	poll_ex(e.cqx, w, 4);
	no_completion(e.cq);
	r = find(w, 4, 60);
	ck_assert_uint_eq(r->byte_len, 40 + 1000);
	ck_assert_uint_eq(r->src_qp, a->qp_num);
	ck_assert_uint_eq(r->wc_flags, IBV_WC_GRH | IBV_WC_WITH_IMM);
	ck_assert_uint_eq(be32toh(r->imm), 0xa5a5);
	ck_assert_mem_eq(e.buf + 4096 + 40, e.buf, 1000);
	r = find(w, 4, 61);
	ck_assert_uint_eq(r->byte_len, 40 + 50);
	ck_assert_uint_eq(r->wc_flags, IBV_WC_GRH);
	ck_assert_mem_eq(e.buf + 8192 + 40, e.buf + 100, 50);
	ck_assert_int_eq(find(w, 4, 3)->opcode, IBV_WC_SEND);
	ck_assert_int_eq(find(w, 4, 4)->opcode, IBV_WC_SEND);

	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
	ck_assert_int_eq(ibv_destroy_qp(a), 0);
	ck_assert_int_eq(ibv_destroy_qp(b), 0);
	close_end(&e, NULL);
}
END_TEST

/* UC: WRITE with immediate and SEND; a READ (not a UC opcode) fails
 * the batch. */
START_TEST(qp_ex_uc)
{
	struct end e;
	struct ibv_qp *a, *b;
	struct ibv_qp_ex *qx;
	struct exwc w[4];
	const struct exwc *r;

	if (!open_end(&e, NULL))
		return;
	pair(&e, IBV_QPT_UC, UC_OPS, 16, &a, &b);
	qx = ibv_qp_to_qp_ex(a);
	fill(e.buf, 4096, 3);
	post_recv(b, &e, 12288, 1, 70);
	post_recv(b, &e, 13312, 1024, 71);

	ibv_wr_start(qx);
	good_send(qx, &e, 1, 10);
	ibv_wr_rdma_read(qx, e.mr->rkey, (uintptr_t)e.buf);
	ibv_wr_set_sge(qx, e.mr->lkey, (uintptr_t)e.buf, 8);
	ck_assert_int_eq(ibv_wr_complete(qx), EINVAL);

	ibv_wr_start(qx);
	qx->wr_id = 5;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write_imm(qx, e.mr->rkey, (uintptr_t)e.buf + 8192, htobe32(7));
	ibv_wr_set_sge(qx, e.mr->lkey, (uintptr_t)e.buf, 3000);
	good_send(qx, &e, 6, 600);
	ck_assert_int_eq(ibv_wr_complete(qx), 0);
	poll_ex(e.cqx, w, 4);
	r = find(w, 4, 70);
	ck_assert_int_eq(r->opcode, IBV_WC_RECV_RDMA_WITH_IMM);
	ck_assert_uint_eq(be32toh(r->imm), 7);
	ck_assert_mem_eq(e.buf + 8192, e.buf, 3000);
	r = find(w, 4, 71);
	ck_assert_uint_eq(r->byte_len, 600);
	ck_assert_mem_eq(e.buf + 13312, e.buf, 600);
	ck_assert_int_eq(find(w, 4, 5)->opcode, IBV_WC_RDMA_WRITE);
	ck_assert_int_eq(find(w, 4, 6)->opcode, IBV_WC_SEND);

	ck_assert_int_eq(ibv_destroy_qp(a), 0);
	ck_assert_int_eq(ibv_destroy_qp(b), 0);
	close_end(&e, NULL);
}
END_TEST

/* Two threads post batches of two signaled UD sends on one QP at once
 * (to a QP with no receives: the peer drops them): each batch is posted
 * whole, so in the CQ (UD completes at post time) its two completions
 * are next to each other, and none is lost or doubled. */
enum { THREAD_BATCHES = 300 };

struct poster {
	struct ibv_qp_ex *qx;
	struct ibv_ah *ah;
	struct end *e;
	uint32_t qpn;
	unsigned int id;
	int failed;        /* ibv_wr_complete's errors */
};

static void *post_batches(void *arg)
{
	struct poster *p = arg;

	for (unsigned int i = 0; i < THREAD_BATCHES; i++) {
		ibv_wr_start(p->qx);
		for (unsigned int k = 0; k < 2; k++) {
			p->qx->wr_id = (uint64_t)p->id << 32 | i << 1 | k;
			p->qx->wr_flags = IBV_SEND_SIGNALED;
			ibv_wr_send(p->qx);
			ibv_wr_set_ud_addr(p->qx, p->ah, p->qpn, 0x11111111);
			ibv_wr_set_inline_data(p->qx, p->e->buf, 16);
		}
		if (ibv_wr_complete(p->qx))
			p->failed++;
	}
	return NULL;
}

START_TEST(qp_ex_two_threads)
{
	struct end e;
	struct ibv_cq_init_attr_ex ca = { .cqe = 4 * THREAD_BATCHES };
	struct ibv_cq_ex *big;
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 8, .max_recv_wr = 1, .max_send_sge = 1,
			 .max_recv_sge = 1, .max_inline_data = 64 },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND,
	};
	struct ibv_ah_attr av = av_lo();
	struct ibv_qp *a, *b;
	struct poster p[2];
	pthread_t th[2];
	static uint64_t ids[4 * THREAD_BATCHES];
	static uint8_t seen[2][2 * THREAD_BATCHES];
	struct ibv_poll_cq_attr pa = { 0 };
	unsigned int n = 0;
	long end;

	if (!open_end(&e, NULL))
		return;
	big = ibv_create_cq_ex(e.ctx, &ca);
	ck_assert_ptr_nonnull(big);
	ia.send_cq = ia.recv_cq = ibv_cq_ex_to_cq(big);
	ia.pd = e.pd;
	a = ibv_create_qp_ex(e.ctx, &ia);
	ck_assert_ptr_nonnull(a);
	b = make_qp(&e, IBV_QPT_UD, 0, 16);
	ck_assert_ptr_nonnull(b);
	to_rts(a, 0);
	to_rts(b, 0);
	for (unsigned int t = 0; t < 2; t++) {
		p[t] = (struct poster){ .qx = ibv_qp_to_qp_ex(a), .e = &e,
					.qpn = b->qp_num, .id = t };
		p[t].ah = ibv_create_ah(e.pd, &av);
		ck_assert_ptr_nonnull(p[t].ah);
	}
	for (unsigned int t = 0; t < 2; t++)
		ck_assert_int_eq(pthread_create(&th[t], NULL, post_batches, &p[t]), 0);
	for (unsigned int t = 0; t < 2; t++) {
		ck_assert_int_eq(pthread_join(th[t], NULL), 0);
		ck_assert_int_eq(p[t].failed, 0);
	}
	end = now_ms() + TIMEOUT_MS;
	while (n < 4 * THREAD_BATCHES && now_ms() < end) {
		int ret = ibv_start_poll(big, &pa);

		if (ret == ENOENT)
			continue;
		ck_assert_int_eq(ret, 0);
		do {
			ck_assert_int_eq(big->status, IBV_WC_SUCCESS);
			ck_assert_uint_lt(n, 4 * THREAD_BATCHES);
			ids[n++] = big->wr_id;
		} while (!ibv_next_poll(big));
		ibv_end_poll(big);
	}
	ck_assert_uint_eq(n, 4 * THREAD_BATCHES);
	for (unsigned int i = 0; i < n; i += 2) {
		unsigned int t = (unsigned int)(ids[i] >> 32);
		unsigned int k = (unsigned int)(ids[i] & 0xffffffffu);

		ck_assert_msg(ids[i + 1] == ids[i] + 1 && !(k & 1) && t < 2,
			      "completions %u, %u: wr_ids %#llx, %#llx are not one batch",
			      i, i + 1, (unsigned long long)ids[i],
			      (unsigned long long)ids[i + 1]);
		ck_assert(!seen[t][k] && !seen[t][k + 1]);
		seen[t][k] = seen[t][k + 1] = 1;
	}
	no_completion(ibv_cq_ex_to_cq(big));
	for (unsigned int t = 0; t < 2; t++)
		ck_assert_int_eq(ibv_destroy_ah(p[t].ah), 0);
	ck_assert_int_eq(ibv_destroy_qp(a), 0);
	ck_assert_int_eq(ibv_destroy_qp(b), 0);
	ck_assert_int_eq(ibv_destroy_cq(ibv_cq_ex_to_cq(big)), 0);
	close_end(&e, NULL);
}
END_TEST

/* ---- RDMA ATOMIC WRITE and FLUSH (rxe from kernel 6.2) --------------------------- */

#define AW_OPS (RC_OPS | IBV_QP_EX_WITH_ATOMIC_WRITE | SV_QP_EX_WITH_FLUSH)
/* bits 38-40 of device_cap_flags_ex (the kernel's IB_UVERBS_DEVICE_*) */
#define CAP_FLUSH_GLOBAL (1ULL << 38)
#define CAP_FLUSH_PERSISTENT (1ULL << 39)
#define CAP_ATOMIC_WRITE (1ULL << 40)

/* a requester a (AW_OPS) and a responder b granting access, with
 * max_dest_rd incoming READs and atomics */
static void aw_pair(struct end *e, unsigned int access, uint8_t max_dest_rd,
		    struct ibv_qp **a, struct ibv_qp **b)
{
	*a = make_qp(e, IBV_QPT_RC, AW_OPS, 16);
	*b = make_qp(e, IBV_QPT_RC, 0, 16);
	ck_assert_ptr_nonnull(*a);
	ck_assert_ptr_nonnull(*b);
	to_rts(*a, (*b)->qp_num);
	to_rts_with(*b, (*a)->qp_num, access, max_dest_rd);
}

/* ibv_wr_flush as a program built against rdma-core 45 or later calls it:
 * through the slot after wr_atomic_write (Debian 12's verbs.h has none) */
static void wr_flush(struct ibv_qp_ex *qx, uint32_t rkey, uint64_t addr,
		     size_t len, uint8_t type, uint8_t level)
{
	sv_wr_flush_fn f;

	memcpy(&f, (char *)qx + SV_QP_EX_WR_FLUSH_OFF, sizeof(f));
	ck_assert_ptr_nonnull((void *)f);
	f(qx, rkey, addr, len, type, level);
}

/* One signaled ATOMIC WRITE of src to addr (rkey) through ibv_wr_*:
 * its completion */
static struct exwc atomic_write1(struct end *e, struct ibv_qp *a, uint32_t rkey,
				 uint64_t addr, const void *src)
{
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(a);
	struct exwc w;

	ibv_wr_start(qx);
	qx->wr_id = 77;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(qx, rkey, addr, src);
	ck_assert_int_eq(ibv_wr_complete(qx), 0);
	poll_ex(e->cqx, &w, 1);
	ck_assert_uint_eq(w.wr_id, 77);
	return w;
}

/* The same for one FLUSH */
static struct exwc flush1(struct end *e, struct ibv_qp *a, uint32_t rkey,
			  uint64_t addr, size_t len, uint8_t type, uint8_t level)
{
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(a);
	struct exwc w;

	ibv_wr_start(qx);
	qx->wr_id = 78;
	qx->wr_flags = IBV_SEND_SIGNALED;
	wr_flush(qx, rkey, addr, len, type, level);
	ck_assert_int_eq(ibv_wr_complete(qx), 0);
	poll_ex(e->cqx, &w, 1);
	ck_assert_uint_eq(w.wr_id, 78);
	return w;
}

/* What uroce0 claims, as an honest userspace device: ATOMIC WRITE and
 * FLUSH to global visibility, not to persistence; MRs take
 * IBV_ACCESS_FLUSH_GLOBAL, and IBV_ACCESS_FLUSH_PERSISTENT is
 * EOPNOTSUPP (the kernel's answer on a device without the cap). */
START_TEST(aw_flush_caps)
{
	struct ibv_device_attr_ex da;
	struct end e;
	struct ibv_mr *mr;
	const int base = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;

	if (!open_end(&e, NULL))
		return;
	ck_assert_int_eq(ibv_query_device_ex(e.ctx, NULL, &da), 0);
	ck_assert(da.device_cap_flags_ex & CAP_ATOMIC_WRITE);
	ck_assert(da.device_cap_flags_ex & CAP_FLUSH_GLOBAL);
	ck_assert(!(da.device_cap_flags_ex & CAP_FLUSH_PERSISTENT));
	/* the 32 bits of device_cap_flags are the same */
	ck_assert_uint_eq(da.device_cap_flags_ex & 0xffffffffu,
			  da.orig_attr.device_cap_flags);
	mr = ibv_reg_mr(e.pd, e.buf, 4096, base | SV_ACCESS_FLUSH_GLOBAL);
	ck_assert_ptr_nonnull(mr);
	ck_assert_uint_ne(mr->rkey, 0);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	errno = 0;
	ck_assert_ptr_null(ibv_reg_mr(e.pd, e.buf, 4096, base | SV_ACCESS_FLUSH_PERSISTENT));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	/* rereg to FLUSH_GLOBAL and back to FLUSH_PERSISTENT */
	ck_assert_int_eq(ibv_rereg_mr(e.mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
				      base | SV_ACCESS_FLUSH_GLOBAL), 0);
	errno = 0;
	ck_assert_int_eq(ibv_rereg_mr(e.mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
				      base | SV_ACCESS_FLUSH_PERSISTENT), IBV_REREG_MR_ERR_CMD);
	ck_assert_int_eq(errno, EOPNOTSUPP);
	close_end(&e, NULL);
}
END_TEST

/* ATOMIC WRITE puts exactly its 8 bytes at the remote address, as they
 * were when ibv_wr_atomic_write was called (the caller may reuse them at
 * once) or where ibv_post_send's SGE points; the neighbours keep theirs;
 * the completion is IBV_WC_ATOMIC_WRITE with byte_len 8. */
START_TEST(aw_data)
{
	const uint8_t want[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	uint8_t src[8], around[64];
	struct end e;
	struct ibv_qp *a, *b;
	struct ibv_qp_ex *qx;
	struct exwc w[2];
	uint8_t *t1, *t2;

	if (!open_end(&e, NULL))
		return;
	aw_pair(&e, RC_ACCESS, 4, &a, &b);
	qx = ibv_qp_to_qp_ex(a);
	t1 = e.buf + 8192 + 24; /* 8-byte aligned, inside 64 bytes of 0x5a */
	t2 = e.buf + 12288 + 24;
	memset(e.buf + 8192, 0x5a, 64);
	memset(e.buf + 12288, 0x5a, 64);
	memcpy(src, want, 8);
	memcpy(e.buf + 100, "ABCDEFGH", 8); /* ibv_post_send's source */

	ibv_wr_start(qx);
	qx->wr_id = 1;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(qx, e.mr->rkey, (uintptr_t)t1, src);
	memset(src, 0xee, 8); /* copied already */
	ck_assert_int_eq(ibv_wr_complete(qx), 0);
	{
		struct ibv_sge sge = { (uintptr_t)e.buf + 100, 8, e.mr->lkey };
		struct ibv_send_wr wr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1,
					  .opcode = IBV_WR_ATOMIC_WRITE,
					  .send_flags = IBV_SEND_SIGNALED }, *bad;

		wr.wr.rdma.remote_addr = (uintptr_t)t2;
		wr.wr.rdma.rkey = e.mr->rkey;
		ck_assert_int_eq(ibv_post_send(a, &wr, &bad), 0);
	}
	poll_ex(e.cqx, w, 2);
	for (int i = 0; i < 2; i++) {
		const struct exwc *r = find(w, 2, 1 + i);

		ck_assert_int_eq(r->status, IBV_WC_SUCCESS);
		ck_assert_int_eq(r->opcode, IBV_WC_ATOMIC_WRITE);
		ck_assert_uint_eq(r->byte_len, 8);
	}
	ck_assert_mem_eq(t1, want, 8);
	ck_assert_mem_eq(t2, "ABCDEFGH", 8);
	memset(around, 0x5a, sizeof(around));
	ck_assert_mem_eq(e.buf + 8192, around, 24);
	ck_assert_mem_eq(t1 + 8, around, 32);
	ck_assert_mem_eq(e.buf + 12288, around, 24);
	ck_assert_mem_eq(t2 + 8, around, 32);
	no_completion(e.cq);
	ck_assert_int_eq(ibv_destroy_qp(a), 0);
	ck_assert_int_eq(ibv_destroy_qp(b), 0);
	close_end(&e, NULL);
}
END_TEST

/* A reader of the target word never sees half of one ATOMIC WRITE and
 * half of another (or of the old value): 256 writes alternating two
 * patterns, a thread loading the word all the while. */
struct watch {
	const uint64_t *word;
	atomic_bool stop;
	uint64_t seen, torn;
};

static void *watch_word(void *arg)
{
	struct watch *wt = arg;

	while (!atomic_load(&wt->stop)) {
		uint64_t v = __atomic_load_n(wt->word, __ATOMIC_ACQUIRE);

		wt->seen++;
		if (v != 0 && v != 0x1111111111111111ULL && v != 0x2222222222222222ULL)
			wt->torn = v;
	}
	return NULL;
}

START_TEST(aw_atomic)
{
	const uint64_t pat[2] = { 0x1111111111111111ULL, 0x2222222222222222ULL };
	struct end e;
	struct ibv_qp *a, *b;
	struct ibv_qp_ex *qx;
	struct exwc w[8];
	struct watch wt = { 0 };
	pthread_t th;
	uint64_t *word;

	if (!open_end(&e, NULL))
		return;
	aw_pair(&e, RC_ACCESS, 4, &a, &b);
	qx = ibv_qp_to_qp_ex(a);
	word = (uint64_t *)(e.buf + 4096);
	*word = 0;
	wt.word = word;
	atomic_init(&wt.stop, false);
	ck_assert_int_eq(pthread_create(&th, NULL, watch_word, &wt), 0);
	for (int round = 0; round < 32; round++) {
		ibv_wr_start(qx);
		qx->wr_flags = IBV_SEND_SIGNALED;
		for (int i = 0; i < 8; i++) {
			qx->wr_id = (uint64_t)i;
			ibv_wr_atomic_write(qx, e.mr->rkey, (uintptr_t)word, &pat[i & 1]);
		}
		ck_assert_int_eq(ibv_wr_complete(qx), 0);
		poll_ex(e.cqx, w, 8);
		for (int i = 0; i < 8; i++)
			ck_assert_int_eq(w[i].status, IBV_WC_SUCCESS);
		ck_assert_uint_eq(*word, pat[1]); /* the last of the round */
	}
	atomic_store(&wt.stop, true);
	pthread_join(th, NULL);
	ck_assert_msg(!wt.torn, "a reader saw %#llx", (unsigned long long)wt.torn);
	ck_assert_uint_gt(wt.seen, 0);
	ck_assert_int_eq(ibv_destroy_qp(a), 0);
	ck_assert_int_eq(ibv_destroy_qp(b), 0);
	close_end(&e, NULL);
}
END_TEST

/* The responder's refusals, with the status rxe's give the requester
 * (rxe_resp.c: an rkey or range violation is a remote access error; an
 * access the QP does not grant, no responder resources, a length or an
 * alignment it cannot take, an invalid request): the target keeps its
 * bytes and the requester's QP goes to the error state. */
START_TEST(aw_errors)
{
	static const uint8_t v[8] = { 9, 9, 9, 9, 9, 9, 9, 9 };
	struct end e;
	struct ibv_mr *ro, *odd;
	uint8_t zero[8] = { 0 };

	if (!open_end(&e, NULL))
		return;
	ro = ibv_reg_mr(e.pd, e.buf + 8192, 4096,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	ck_assert_ptr_nonnull(ro);
	/* aligned in the peers' addresses, not in memory */
	odd = ibv_reg_mr_iova(e.pd, e.buf + 4100, 64, 0x100000,
			      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	ck_assert_ptr_nonnull(odd);
	memset(e.buf + 4096, 0, 128);
	memset(e.buf + 8192, 0, 64);
	for (int c = 0; c < 5; c++) {
		static const enum ibv_wc_status want[] = {
			IBV_WC_REM_ACCESS_ERR,  /* the MR grants no remote write */
			IBV_WC_REM_ACCESS_ERR,  /* past the MR's end */
			IBV_WC_REM_INV_REQ_ERR, /* the QP grants no remote write */
			IBV_WC_REM_INV_REQ_ERR, /* max_dest_rd_atomic 0 */
			IBV_WC_REM_INV_REQ_ERR, /* misaligned in memory */
		};
		struct ibv_qp *a, *b;
		struct exwc w;
		struct ibv_qp_attr qa;
		struct ibv_qp_init_attr qia;
		uint32_t rkey = c == 0 ? ro->rkey : c == 4 ? odd->rkey : e.mr->rkey;
		uint64_t addr = c == 0 ? (uintptr_t)e.buf + 8192 :
				c == 1 ? (uintptr_t)e.buf + BUF :
				c == 4 ? 0x100000 : (uintptr_t)e.buf + 4096;

		aw_pair(&e, c == 2 ? IBV_ACCESS_REMOTE_READ : RC_ACCESS,
			c == 3 ? 0 : 4, &a, &b);
		w = atomic_write1(&e, a, rkey, addr, v);
		ck_assert_msg(w.status == want[c], "case %d: status %s", c,
			      ibv_wc_status_str(w.status));
		ck_assert_int_eq(ibv_query_qp(a, &qa, IBV_QP_STATE, &qia), 0);
		ck_assert_int_eq(qa.cur_qp_state, IBV_QPS_ERR);
		no_completion(e.cq);
		ck_assert_int_eq(ibv_destroy_qp(a), 0);
		ck_assert_int_eq(ibv_destroy_qp(b), 0);
	}
	ck_assert_mem_eq(e.buf + 8192, zero, 8);
	ck_assert_mem_eq(e.buf + 4096, zero, 8);
	ck_assert_mem_eq(e.buf + 4100, zero, 8);
	ck_assert_int_eq(ibv_dereg_mr(ro), 0);
	ck_assert_int_eq(ibv_dereg_mr(odd), 0);
	close_end(&e, NULL);
}
END_TEST

/* FLUSH on an MR with IBV_ACCESS_FLUSH_GLOBAL, through a QP granting it:
 * after an RDMA WRITE, FLUSH of its range, of a zero-length range and of
 * the whole MR (whose address need not be inside it) complete with
 * IBV_WC_FLUSH (byte_len the range's), and the written bytes are in
 * place when they do. */
START_TEST(flush_ok)
{
	struct end e;
	struct ibv_qp *a, *b;
	struct ibv_qp_ex *qx;
	struct ibv_mr *gmr;
	struct exwc w[4];
	uint8_t *g;
	const struct exwc *r;

	if (!open_end(&e, NULL))
		return;
	g = calloc(1, 4096);
	ck_assert_ptr_nonnull(g);
	gmr = ibv_reg_mr(e.pd, g, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
					       SV_ACCESS_FLUSH_GLOBAL);
	ck_assert_ptr_nonnull(gmr);
	aw_pair(&e, RC_ACCESS | SV_ACCESS_FLUSH_GLOBAL, 4, &a, &b);
	qx = ibv_qp_to_qp_ex(a);
	fill(e.buf, 256, 3);

	ibv_wr_start(qx);
	qx->wr_flags = IBV_SEND_SIGNALED;
	qx->wr_id = 1;
	ibv_wr_rdma_write(qx, gmr->rkey, (uintptr_t)g + 512);
	ibv_wr_set_sge(qx, e.mr->lkey, (uintptr_t)e.buf, 256);
	qx->wr_id = 2;
	wr_flush(qx, gmr->rkey, (uintptr_t)g + 512, 256, SV_FLUSH_GLOBAL, SV_FLUSH_RANGE);
	qx->wr_id = 3;
	wr_flush(qx, gmr->rkey, (uintptr_t)g + 4096, 0, SV_FLUSH_GLOBAL, SV_FLUSH_RANGE);
	qx->wr_id = 4;
	wr_flush(qx, gmr->rkey, (uintptr_t)g + 65536, 0, SV_FLUSH_GLOBAL, SV_FLUSH_MR);
	ck_assert_int_eq(ibv_wr_complete(qx), 0);
	poll_ex(e.cqx, w, 4);
	r = find(w, 4, 1);
	ck_assert_int_eq(r->status, IBV_WC_SUCCESS);
	ck_assert_int_eq(r->opcode, IBV_WC_RDMA_WRITE);
	for (uint64_t id = 2; id <= 4; id++) {
		r = find(w, 4, id);
		ck_assert_msg(r->status == IBV_WC_SUCCESS, "FLUSH %llu: %s",
			      (unsigned long long)id, ibv_wc_status_str(r->status));
		ck_assert_int_eq(r->opcode, SV_WC_FLUSH);
		ck_assert_uint_eq(r->byte_len, id == 2 ? 256 : 0);
	}
	ck_assert_mem_eq(g + 512, e.buf, 256);
	no_completion(e.cq);
	ck_assert_int_eq(ibv_destroy_qp(a), 0);
	ck_assert_int_eq(ibv_destroy_qp(b), 0);
	ck_assert_int_eq(ibv_dereg_mr(gmr), 0);
	free(g);
	close_end(&e, NULL);
}
END_TEST

/* FLUSH's refusals, as rxe's: an MR without the FLUSH access (its rkey
 * fine for writes) or a range past the MR is a remote access error; a
 * QP not granting the placement type an invalid request; a persistent
 * FLUSH through a QP that grants it still finds no MR that does (uroce
 * registers none: a remote access error, as rxe's on ordinary memory). */
START_TEST(flush_errors)
{
	struct end e;
	struct ibv_mr *gmr;
	uint8_t *g;

	if (!open_end(&e, NULL))
		return;
	g = calloc(1, 4096);
	ck_assert_ptr_nonnull(g);
	gmr = ibv_reg_mr(e.pd, g, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
					       SV_ACCESS_FLUSH_GLOBAL);
	ck_assert_ptr_nonnull(gmr);
	for (int c = 0; c < 5; c++) {
		static const enum ibv_wc_status want[] = {
			IBV_WC_REM_ACCESS_ERR,  /* MR without FLUSH_GLOBAL */
			IBV_WC_REM_ACCESS_ERR,  /* range past the MR's end */
			IBV_WC_REM_INV_REQ_ERR, /* QP without FLUSH_GLOBAL */
			IBV_WC_REM_INV_REQ_ERR, /* persistent, QP without it */
			IBV_WC_REM_ACCESS_ERR,  /* persistent, no MR has it */
		};
		unsigned int access = RC_ACCESS |
				      (c == 2 ? 0 : SV_ACCESS_FLUSH_GLOBAL) |
				      (c == 4 ? SV_ACCESS_FLUSH_PERSISTENT : 0);
		struct ibv_qp *a, *b;
		struct exwc w;

		aw_pair(&e, access, 4, &a, &b);
		if (c == 0)
			w = flush1(&e, a, e.mr->rkey, (uintptr_t)e.buf, 64,
				   SV_FLUSH_GLOBAL, SV_FLUSH_RANGE);
		else if (c == 1)
			w = flush1(&e, a, gmr->rkey, (uintptr_t)g + 4000, 200,
				   SV_FLUSH_GLOBAL, SV_FLUSH_RANGE);
		else
			w = flush1(&e, a, gmr->rkey, (uintptr_t)g, 64,
				   c == 2 ? SV_FLUSH_GLOBAL : SV_FLUSH_PERSISTENT,
				   SV_FLUSH_RANGE);
		ck_assert_msg(w.status == want[c], "case %d: status %s", c,
			      ibv_wc_status_str(w.status));
		no_completion(e.cq);
		ck_assert_int_eq(ibv_destroy_qp(a), 0);
		ck_assert_int_eq(ibv_destroy_qp(b), 0);
	}
	ck_assert_int_eq(ibv_dereg_mr(gmr), 0);
	free(g);
	close_end(&e, NULL);
}
END_TEST

/* The checks before anything is posted, each EINVAL with nothing of the
 * batch posted (softverbs' rxe gives the same): ibv_wr_atomic_write to a
 * misaligned address or without bytes; ibv_wr_flush of no placement
 * type, an unknown one, an unknown level, a length past 32 bits; a
 * setter after either; ibv_post_send of a FLUSH (it has no fields for
 * one), of an ATOMIC WRITE of other than 8 bytes or misaligned, of one on
 * a UC QP. Then the QP still works. */
START_TEST(aw_flush_validation)
{
	static const uint64_t v = 0x0123456789abcdefULL;
	struct end e;
	struct ibv_qp *a, *b, *uc, *ucb;
	struct ibv_qp_ex *qx;
	struct exwc w;

	if (!open_end(&e, NULL))
		return;
	aw_pair(&e, RC_ACCESS, 4, &a, &b);
	qx = ibv_qp_to_qp_ex(a);
	for (int c = 0; c < 8; c++) {
		ibv_wr_start(qx);
		good_send(qx, &e, 1, 10);
		switch (c) {
		case 0:
			ibv_wr_atomic_write(qx, e.mr->rkey, (uintptr_t)e.buf + 4, &v);
			break;
		case 1:
			ibv_wr_atomic_write(qx, e.mr->rkey, (uintptr_t)e.buf, NULL);
			break;
		case 2:
			wr_flush(qx, e.mr->rkey, (uintptr_t)e.buf, 8, 0, SV_FLUSH_RANGE);
			break;
		case 3:
			wr_flush(qx, e.mr->rkey, (uintptr_t)e.buf, 8, 4, SV_FLUSH_RANGE);
			break;
		case 4:
			wr_flush(qx, e.mr->rkey, (uintptr_t)e.buf, 8, SV_FLUSH_GLOBAL, 2);
			break;
		case 5:
			wr_flush(qx, e.mr->rkey, (uintptr_t)e.buf, (size_t)UINT32_MAX + 1,
				 SV_FLUSH_GLOBAL, SV_FLUSH_RANGE);
			break;
		case 6:
			ibv_wr_atomic_write(qx, e.mr->rkey, (uintptr_t)e.buf, &v);
			ibv_wr_set_sge(qx, e.mr->lkey, (uintptr_t)e.buf, 8);
			break;
		case 7:
			wr_flush(qx, e.mr->rkey, (uintptr_t)e.buf, 8, SV_FLUSH_GLOBAL,
				 SV_FLUSH_RANGE);
			ibv_wr_set_inline_data(qx, e.buf, 8);
			break;
		}
		ck_assert_msg(ibv_wr_complete(qx) == EINVAL, "case %d", c);
		ck_assert_uint_eq(to_uroce_qp(a)->sq_tail, to_uroce_qp(a)->sq_head);
	}
	for (int c = 0; c < 3; c++) {
		struct ibv_sge sge = { (uintptr_t)e.buf, c == 1 ? 4 : 8, e.mr->lkey };
		struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
					  .opcode = c == 0 ? (enum ibv_wr_opcode)SV_WR_FLUSH :
							     IBV_WR_ATOMIC_WRITE,
					  .send_flags = IBV_SEND_SIGNALED }, *bad = NULL;

		wr.wr.rdma.remote_addr = (uintptr_t)e.buf + (c == 2 ? 4 : 0);
		wr.wr.rdma.rkey = e.mr->rkey;
		ck_assert_msg(ibv_post_send(a, &wr, &bad) == EINVAL, "post_send case %d", c);
		ck_assert_ptr_eq(bad, &wr);
	}
	ck_assert_uint_eq(to_uroce_qp(a)->sq_tail, to_uroce_qp(a)->sq_head);
	pair(&e, IBV_QPT_UC, 0, 16, &uc, &ucb);
	{
		struct ibv_sge sge = { (uintptr_t)e.buf, 8, e.mr->lkey };
		struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
					  .opcode = IBV_WR_ATOMIC_WRITE }, *bad = NULL;

		wr.wr.rdma.remote_addr = (uintptr_t)e.buf;
		wr.wr.rdma.rkey = e.mr->rkey;
		ck_assert_int_eq(ibv_post_send(uc, &wr, &bad), EINVAL);
	}
	no_completion(e.cq);
	/* the QP goes on */
	w = atomic_write1(&e, a, e.mr->rkey, (uintptr_t)e.buf + 64, &v);
	ck_assert_int_eq(w.status, IBV_WC_SUCCESS);
	ck_assert_mem_eq(e.buf + 64, &v, 8);
	ck_assert_int_eq(ibv_destroy_qp(uc), 0);
	ck_assert_int_eq(ibv_destroy_qp(ucb), 0);
	ck_assert_int_eq(ibv_destroy_qp(a), 0);
	ck_assert_int_eq(ibv_destroy_qp(b), 0);
	close_end(&e, NULL);
}
END_TEST

/* Under loss, duplication, reordering and delay (SOFTVERBS_UROCE_FAULTS):
 * rounds of ATOMIC WRITE, an RDMA WRITE over the same word, a FLUSH of
 * it, another ATOMIC WRITE, a FLUSH of the whole MR all complete, and
 * the words hold the last values written: a lost answer is asked for
 * again and given, a duplicate request is answered and never executed
 * again (an ATOMIC WRITE replayed after the WRITE would show). */
START_TEST(aw_flush_faults)
{
	struct end e;
	struct ibv_qp *a, *b;
	struct ibv_qp_ex *qx;
	struct ibv_mr *gmr;
	struct exwc w[5];
	uint64_t *g, v[3];

	setenv("SOFTVERBS_UROCE_FAULTS",
	       "loss=0.1,dup=0.2,reorder=0.1,delay=100,seed=5", 1);
	if (!open_end(&e, NULL))
		return;
	g = calloc(1, 4096);
	ck_assert_ptr_nonnull(g);
	gmr = ibv_reg_mr(e.pd, g, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
					       SV_ACCESS_FLUSH_GLOBAL);
	ck_assert_ptr_nonnull(gmr);
	rc_timeout = 14; /* 67 ms: a lost packet is sent again */
	aw_pair(&e, RC_ACCESS | SV_ACCESS_FLUSH_GLOBAL, 4, &a, &b);
	rc_timeout = 18;
	qx = ibv_qp_to_qp_ex(a);
	for (uint64_t round = 0; round < 16; round++) {
		v[0] = 0xa000 + round;
		v[1] = 0xb000 + round;
		v[2] = 0xc000 + round;
		memcpy(e.buf, &v[1], 8);
		ibv_wr_start(qx);
		qx->wr_flags = IBV_SEND_SIGNALED;
		qx->wr_id = 0;
		ibv_wr_atomic_write(qx, gmr->rkey, (uintptr_t)&g[0], &v[0]);
		qx->wr_id = 1;
		ibv_wr_rdma_write(qx, gmr->rkey, (uintptr_t)&g[0]);
		ibv_wr_set_sge(qx, e.mr->lkey, (uintptr_t)e.buf, 8);
		qx->wr_id = 2;
		wr_flush(qx, gmr->rkey, (uintptr_t)&g[0], 8, SV_FLUSH_GLOBAL, SV_FLUSH_RANGE);
		qx->wr_id = 3;
		ibv_wr_atomic_write(qx, gmr->rkey, (uintptr_t)&g[1], &v[2]);
		qx->wr_id = 4;
		wr_flush(qx, gmr->rkey, (uintptr_t)g, 0, SV_FLUSH_GLOBAL, SV_FLUSH_MR);
		ck_assert_int_eq(ibv_wr_complete(qx), 0);
		poll_ex(e.cqx, w, 5);
		for (int i = 0; i < 5; i++)
			ck_assert_msg(w[i].status == IBV_WC_SUCCESS, "round %llu, wr %llu: %s",
				      (unsigned long long)round,
				      (unsigned long long)w[i].wr_id,
				      ibv_wc_status_str(w[i].status));
		ck_assert_uint_eq(g[0], v[1]);
		ck_assert_uint_eq(g[1], v[2]);
	}
	/* late duplicates still come in: they must change nothing */
	usleep(300000);
	ck_assert_uint_eq(g[0], 0xb00f);
	ck_assert_uint_eq(g[1], 0xc00f);
	ck_assert_int_eq(ibv_destroy_qp(a), 0);
	ck_assert_int_eq(ibv_destroy_qp(b), 0);
	ck_assert_int_eq(ibv_dereg_mr(gmr), 0);
	free(g);
	close_end(&e, NULL);
	unsetenv("SOFTVERBS_UROCE_FAULTS");
}
END_TEST

static Suite *make_uroce_ex_suite(void)
{
	Suite *s = suite_create("uroce_ex");
	TCase *tc;

	tc = tcase_create("cq_ex");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, cq_ex_create);
	tcase_add_test(tc, cq_ex_poll);
	tcase_add_test(tc, cq_ex_channel);
	suite_add_tcase(s, tc);

	tc = tcase_create("qp_ex");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, qp_ex_create);
	tcase_add_test(tc, qp_ex_rc_batch);
	tcase_add_test(tc, qp_ex_failed_batches);
	tcase_add_test(tc, qp_ex_not_rts);
	tcase_add_test(tc, qp_ex_ud);
	tcase_add_test(tc, qp_ex_uc);
	tcase_add_test(tc, qp_ex_two_threads);
	suite_add_tcase(s, tc);

	tc = tcase_create("atomic_write_flush");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, aw_flush_caps);
	tcase_add_test(tc, aw_data);
	tcase_add_test(tc, aw_atomic);
	tcase_add_test(tc, aw_errors);
	tcase_add_test(tc, flush_ok);
	tcase_add_test(tc, flush_errors);
	tcase_add_test(tc, aw_flush_validation);
	tcase_add_test(tc, aw_flush_faults);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	uroce_isolate();
	return check_run(make_uroce_ex_suite());
}
