/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* uroce's QPs on the host, over lo (SOFTVERBS_UROCE=lo; no VM, no root):
 * the state machine and its refusals (nothing half-applied), UD
 * send/receive with the GRH in front, RC SEND, RDMA WRITE, READ and
 * atomics checked byte for byte, a WRITE outside the peer's MR, an SRQ
 * shared by two QPs, and the SO_REUSEPORT demultiplexer: two contexts and two processes each get their own
 * QPs' packets. The data and demultiplexer tests run a second time over
 * lo's ::1 (RoCE v2 over UDP/IPv6), in a network namespace of their own
 * when root. */
#include "config.h"

#include <arpa/inet.h>
#include <check.h>
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <net/if.h>
#include <signal.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "../check_main.h"
#include "uroce_isolate.h"
#include "uroce.h"

#define TIMEOUT_MS 3000

struct end {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
};

static struct ibv_device **dev_list;

/* The GID the tests send from and to: lo's ::ffff:127.0.0.1 (index 1),
 * or in the IPv6 tcase its ::1 (found at open_end) */
static bool over_ipv6;
static uint8_t lo_gid_index = 1;

/* uroce0 over lo, or NULL when this host has no lo (the test skips) */
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

/* The index of ::1 in ctx's GID table, or -1 */
static int ipv6_lo_index(struct ibv_context *ctx)
{
	struct ibv_port_attr pa;
	union ibv_gid gid, lo = { .raw = { [15] = 1 } };

	ck_assert_int_eq(ibv_query_port(ctx, 1, &pa), 0);
	for (int i = 0; i < pa.gid_tbl_len; i++)
		if (!ibv_query_gid(ctx, 1, i, &gid) && !memcmp(&gid, &lo, sizeof(gid)))
			return i;
	return -1;
}

static void skip_no_ipv6(void)
{
	char v[16] = "?";
	FILE *f = fopen("/proc/sys/net/ipv6/conf/lo/disable_ipv6", "r");

	if (f) {
		if (!fgets(v, sizeof(v), f))
			v[0] = '\0';
		v[strcspn(v, "\n")] = '\0';
		fclose(f);
	}
	check_skip("lo has no ::1 (net.ipv6.conf.lo.disable_ipv6 = %s, or no IPv6 in this kernel): no RoCE v2 over IPv6 to test",
		   f ? v : "(no such sysctl)");
}

static bool open_end(struct end *e)
{
	struct ibv_device *dev = uroce0();

	memset(e, 0, sizeof(*e));
	if (!dev) {
		check_skip("no interface lo here: uroce0 cannot be listed");
		return false;
	}
	e->ctx = ibv_open_device(dev);
	ck_assert_ptr_nonnull(e->ctx);
	if (over_ipv6) {
		int i = ipv6_lo_index(e->ctx);

		if (i < 0) {
			ck_assert_int_eq(ibv_close_device(e->ctx), 0);
			skip_no_ipv6();
			return false;
		}
		lo_gid_index = (uint8_t)i;
	}
	e->pd = ibv_alloc_pd(e->ctx);
	ck_assert_ptr_nonnull(e->pd);
	e->cq = ibv_create_cq(e->ctx, 64, NULL, NULL, 0);
	ck_assert_ptr_nonnull(e->cq);
	return true;
}

static struct ibv_qp *make_qp(struct end *e, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = e->cq,
		.recv_cq = e->cq,
		.qp_type = type,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2,
			 .max_inline_data = 64 },
	};

	return ibv_create_qp(e->pd, &ia);
}

static void close_end(struct end *e)
{
	if (e->qp)
		ck_assert_int_eq(ibv_destroy_qp(e->qp), 0);
	ck_assert_int_eq(ibv_destroy_cq(e->cq), 0);
	ck_assert_int_eq(ibv_dealloc_pd(e->pd), 0);
	ck_assert_int_eq(ibv_close_device(e->ctx), 0);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One completion within TIMEOUT_MS (the test fails otherwise) */
static struct ibv_wc wait_wc(struct ibv_cq *cq)
{
	struct ibv_wc wc;
	long end = now_ms() + TIMEOUT_MS;

	for (;;) {
		int n = ibv_poll_cq(cq, 1, &wc);

		ck_assert_int_ge(n, 0);
		if (n)
			return wc;
		ck_assert_msg(now_ms() < end, "no completion within %d ms", TIMEOUT_MS);
		usleep(200);
	}
}

static int state_of(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	ck_assert_int_eq(ibv_query_qp(qp, &a, IBV_QP_STATE, &ia), 0);
	return a.qp_state;
}

/* From lo to lo: GID index 1, ::ffff:127.0.0.1, or ::1 over IPv6 */
static struct ibv_ah_attr av_lo(void)
{
	struct ibv_ah_attr av = { .is_global = 1, .port_num = 1 };

	av.grh.sgid_index = lo_gid_index;
	av.grh.hop_limit = 64;
	if (!over_ipv6) {
		av.grh.dgid.raw[10] = av.grh.dgid.raw[11] = 0xff;
		av.grh.dgid.raw[12] = 127;
	}
	av.grh.dgid.raw[15] = 1;
	return av;
}

static void to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	if (qp->qp_type == IBV_QPT_UD) {
		a.qkey = 0x11111111;
		mask |= IBV_QP_QKEY;
	} else {
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_ATOMIC;
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	ck_assert_int_eq(ibv_modify_qp(qp, &a, mask), 0);
}

static uint8_t rts_retry_cnt = 7, rts_rnr_retry = 7, rtr_max_dest_rd_atomic = 1;

static void to_rtr_rts(struct ibv_qp *qp, uint32_t dest_qpn)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTR };
	int mask = IBV_QP_STATE;

	if (qp->qp_type != IBV_QPT_UD) {
		a.ah_attr = av_lo();
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = dest_qpn;
		a.rq_psn = 100;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
	}
	if (qp->qp_type == IBV_QPT_RC) {
		a.max_dest_rd_atomic = rtr_max_dest_rd_atomic;
		a.min_rnr_timer = 12;
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	}
	ck_assert_int_eq(ibv_modify_qp(qp, &a, mask), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 100;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (qp->qp_type == IBV_QPT_RC) {
		a.timeout = 14;
		a.retry_cnt = rts_retry_cnt;
		a.rnr_retry = rts_rnr_retry;
		a.max_rd_atomic = 1;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	ck_assert_int_eq(ibv_modify_qp(qp, &a, mask), 0);
	ck_assert_int_eq(state_of(qp), IBV_QPS_RTS);
}

/* Two RC QPs of one context, connected, with the given retry counts
 * for a */
static void rc_pair(struct end *e, struct ibv_qp **a, struct ibv_qp **b,
		    uint8_t retry_cnt, uint8_t rnr_retry)
{
	*a = make_qp(e, IBV_QPT_RC);
	*b = make_qp(e, IBV_QPT_RC);
	ck_assert_ptr_nonnull(*a);
	ck_assert_ptr_nonnull(*b);
	to_init(*a);
	to_init(*b);
	rts_retry_cnt = retry_cnt;
	rts_rnr_retry = rnr_retry;
	to_rtr_rts(*a, (*b)->qp_num);
	rts_retry_cnt = rts_rnr_retry = 7;
	to_rtr_rts(*b, (*a)->qp_num);
}

static void post_recv(struct ibv_qp *qp, struct ibv_mr *mr, void *buf,
		      uint32_t len, uint64_t wr_id)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = len,
			       .lkey = mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	ck_assert_int_eq(ibv_post_recv(qp, &wr, &bad), 0);
}

static void fill(uint8_t *p, size_t len, unsigned int seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 7 + seed + (i >> 8));
}

/* ---- the state machine --------------------------------------------------------- */

START_TEST(create_refusals)
{
	struct end e;
	struct ibv_qp_init_attr ia = { .qp_type = IBV_QPT_RC };
	struct ibv_qp *a, *b;

	if (!open_end(&e))
		return;
	ia.send_cq = ia.recv_cq = e.cq;
	ia.qp_type = IBV_QPT_RAW_PACKET;
	ck_assert_ptr_null(ibv_create_qp(e.pd, &ia));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_sge = 33;
	ck_assert_ptr_null(ibv_create_qp(e.pd, &ia));
	ck_assert_int_eq(errno, EINVAL);
	ia.cap.max_send_sge = 1;
	ia.cap.max_inline_data = 513;
	ck_assert_ptr_null(ibv_create_qp(e.pd, &ia));
	ck_assert_int_eq(errno, EINVAL);
	ia.cap.max_inline_data = 0;
	ia.recv_cq = NULL;
	ck_assert_ptr_null(ibv_create_qp(e.pd, &ia));
	ck_assert_int_eq(errno, EINVAL);

	a = make_qp(&e, IBV_QPT_RC);
	b = make_qp(&e, IBV_QPT_UD);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_ne(a->qp_num, b->qp_num);
	ck_assert_uint_ge(a->qp_num & 0xffff, 16);
	ck_assert_uint_le(a->qp_num, 0xffffff);
	/* the same socket, so the same place in the top bits */
	ck_assert_uint_eq(a->qp_num >> 16, b->qp_num >> 16);
	ck_assert_int_eq(a->state, IBV_QPS_RESET);
	/* a CQ that QPs complete into stays (rxe: EBUSY) */
	ck_assert_int_eq(ibv_destroy_cq(e.cq), EBUSY);
	ck_assert_int_eq(ibv_destroy_qp(a), 0);
	ck_assert_int_eq(ibv_destroy_qp(b), 0);
	close_end(&e);
}
END_TEST

START_TEST(state_machine_refusals)
{
	struct end e;
	struct ibv_qp_attr a = { 0 }, q;
	struct ibv_qp_init_attr ia;
	struct ibv_send_wr swr = { .opcode = IBV_WR_SEND }, *sbad;
	struct ibv_recv_wr rwr = { 0 }, *rbad;

	if (!open_end(&e))
		return;
	e.qp = make_qp(&e, IBV_QPT_RC);
	ck_assert_ptr_nonnull(e.qp);

	/* posts in RESET */
	ck_assert_int_eq(ibv_post_send(e.qp, &swr, &sbad), EINVAL);
	ck_assert_ptr_eq(sbad, &swr);
	ck_assert_int_eq(ibv_post_recv(e.qp, &rwr, &rbad), EINVAL);

	/* RESET to RTR: no such transition */
	a.qp_state = IBV_QPS_RTR;
	ck_assert_int_eq(ibv_modify_qp(e.qp, &a, IBV_QP_STATE), EINVAL);
	/* RESET to INIT without the port */
	a.qp_state = IBV_QPS_INIT;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	ck_assert_int_eq(ibv_modify_qp(e.qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
						      IBV_QP_ACCESS_FLAGS),
			 EINVAL);
	/* a Q_Key is not an RC attribute */
	a.port_num = 1;
	ck_assert_int_eq(ibv_modify_qp(e.qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
						      IBV_QP_ACCESS_FLAGS | IBV_QP_PORT |
						      IBV_QP_QKEY),
			 EINVAL);
	/* port 2, with everything else right: nothing applied */
	a.port_num = 2;
	ck_assert_int_eq(ibv_modify_qp(e.qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
						      IBV_QP_ACCESS_FLAGS | IBV_QP_PORT),
			 EINVAL);
	ck_assert_int_eq(ibv_query_qp(e.qp, &q, IBV_QP_STATE | IBV_QP_ACCESS_FLAGS, &ia), 0);
	ck_assert_int_eq(q.qp_state, IBV_QPS_RESET);
	ck_assert_uint_eq(q.qp_access_flags, 0);
	ck_assert_int_eq(ia.qp_type, IBV_QPT_RC);
	ck_assert_ptr_eq(ia.send_cq, e.cq);
	ck_assert_uint_eq(ia.cap.max_send_wr, 16);
	to_init(e.qp);

	/* INIT to RTR without DEST_QPN; then a path MTU no enum has */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.ah_attr = av_lo();
	a.path_mtu = IBV_MTU_1024;
	a.max_dest_rd_atomic = 1;
	ck_assert_int_eq(ibv_modify_qp(e.qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
						      IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
						      IBV_QP_MIN_RNR_TIMER),
			 EINVAL);
	a.path_mtu = (enum ibv_mtu)7;
	ck_assert_int_eq(ibv_modify_qp(e.qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
						      IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
						      IBV_QP_MAX_DEST_RD_ATOMIC |
						      IBV_QP_MIN_RNR_TIMER),
			 EINVAL);
	/* an AV without a GRH */
	a.path_mtu = IBV_MTU_1024;
	a.ah_attr.is_global = 0;
	ck_assert_int_eq(ibv_modify_qp(e.qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
						      IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
						      IBV_QP_MAX_DEST_RD_ATOMIC |
						      IBV_QP_MIN_RNR_TIMER),
			 EINVAL);
	ck_assert_int_eq(state_of(e.qp), IBV_QPS_INIT);
	/* still INIT: a post_send is refused, a post_recv is taken */
	ck_assert_int_eq(ibv_post_send(e.qp, &swr, &sbad), EINVAL);

	to_rtr_rts(e.qp, e.qp->qp_num);
	ck_assert_int_eq(ibv_query_qp(e.qp, &q, IBV_QP_PATH_MTU | IBV_QP_SQ_PSN, &ia), 0);
	ck_assert_int_eq(q.path_mtu, IBV_MTU_1024);
	ck_assert_uint_eq(q.sq_psn, 100);
	ck_assert_uint_eq(q.dest_qp_num, e.qp->qp_num);
	ck_assert_uint_eq(q.timeout, 14);

	/* ERR takes IBV_QP_STATE alone */
	a.qp_state = IBV_QPS_ERR;
	ck_assert_int_eq(ibv_modify_qp(e.qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN), EINVAL);
	ck_assert_int_eq(ibv_modify_qp(e.qp, &a, IBV_QP_STATE), 0);
	ck_assert_int_eq(e.qp->state, IBV_QPS_ERR);
	a.qp_state = IBV_QPS_RESET;
	ck_assert_int_eq(ibv_modify_qp(e.qp, &a, IBV_QP_STATE), 0);
	ck_assert_int_eq(state_of(e.qp), IBV_QPS_RESET);
	close_end(&e);
}
END_TEST

START_TEST(ud_transitions)
{
	struct end e;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };

	if (!open_end(&e))
		return;
	e.qp = make_qp(&e, IBV_QPT_UD);
	ck_assert_ptr_nonnull(e.qp);
	/* UD wants a Q_Key, not access flags */
	ck_assert_int_eq(ibv_modify_qp(e.qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
						      IBV_QP_PORT | IBV_QP_ACCESS_FLAGS),
			 EINVAL);
	to_init(e.qp);
	to_rtr_rts(e.qp, 0);
	close_end(&e);
}
END_TEST

/* ---- UD -------------------------------------------------------------------------- */

struct ud_pair {
	struct end e;
	struct ibv_qp *a, *b;
	struct ibv_ah *ah;
};

static void ud_send(struct ibv_qp *qp, struct ibv_ah *ah, uint32_t qpn,
		    struct ibv_mr *mr, void *buf, uint32_t len, uint32_t imm)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = len,
			       .lkey = mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 7,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND_WITH_IMM,
		.send_flags = IBV_SEND_SIGNALED,
		.imm_data = htobe32(imm),
	}, *bad;

	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = qpn;
	wr.wr.ud.remote_qkey = 0x11111111;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), 0);
}

/* The GRH of a UD message of len bytes with immediate: rxe's, the IPv4
 * header behind 20 zero bytes, or the whole IPv6 header */
static void check_grh(const uint8_t *grh, uint32_t len)
{
	static const uint8_t zero[20];
	/* UDP, BTH, DETH, ImmDt, the payload padded to 4, ICRC */
	uint32_t udp_len = 8 + 12 + 8 + 4 + ((len + 3) & ~3u) + 4;

	if (over_ipv6) {
		static const uint8_t lo6[16] = { [15] = 1 };

		ck_assert_uint_eq(grh[0] >> 4, 6);
		ck_assert_uint_eq((uint32_t)grh[4] << 8 | grh[5], udp_len);
		ck_assert_uint_eq(grh[6], 17);           /* next header: UDP */
		ck_assert_mem_eq(grh + 8, lo6, 16);      /* from ::1 */
		ck_assert_mem_eq(grh + 24, lo6, 16);     /* to ::1 */
		return;
	}
	ck_assert_mem_eq(grh, zero, 20);
	ck_assert_uint_eq((uint32_t)grh[22] << 8 | grh[23], 20 + udp_len);
	ck_assert_uint_eq(grh[20], 0x45); /* the IPv4 header */
	ck_assert_uint_eq(grh[20 + 9], 17);
	ck_assert_uint_eq(grh[20 + 12], 127); /* from 127.0.0.1 */
	ck_assert_uint_eq(grh[20 + 15], 1);
}

START_TEST(ud_send_recv_with_grh)
{
	enum { LEN = 1000 };
	struct end e;
	struct ibv_qp *a, *b;
	struct ibv_ah *ah;
	struct ibv_mr *mr;
	struct ibv_wc wc, got[2];
	static uint8_t out[LEN], in[40 + LEN + 8];
	struct ibv_ah_attr av;

	if (!open_end(&e))
		return;
	av = av_lo();
	a = make_qp(&e, IBV_QPT_UD);
	b = make_qp(&e, IBV_QPT_UD);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	to_init(a);
	to_init(b);
	to_rtr_rts(a, 0);
	to_rtr_rts(b, 0);
	mr = ibv_reg_mr(e.pd, in, sizeof(in) + 0, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(mr);
	ah = ibv_create_ah(e.pd, &av);
	ck_assert_ptr_nonnull(ah);
	memset(in, 0xee, sizeof(in));
	post_recv(b, mr, in, sizeof(in), 42);
	fill(out, LEN, 3);
	{
		struct ibv_mr *omr = ibv_reg_mr(e.pd, out, LEN, 0);

		ck_assert_ptr_nonnull(omr);
		ud_send(a, ah, b->qp_num, omr, out, LEN, 0xabcd);
		got[0] = wait_wc(e.cq);
		got[1] = wait_wc(e.cq);
		ck_assert_int_eq(ibv_dereg_mr(omr), 0);
	}
	/* one send completion, one receive completion, in either order */
	wc = got[0].opcode == IBV_WC_RECV ? got[0] : got[1];
	ck_assert_int_eq((got[0].opcode == IBV_WC_SEND) + (got[1].opcode == IBV_WC_SEND), 1);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, 42);
	ck_assert_uint_eq(wc.byte_len, 40 + LEN);
	ck_assert_uint_eq(wc.qp_num, b->qp_num);
	ck_assert_uint_eq(wc.src_qp, a->qp_num);
	ck_assert(wc.wc_flags & IBV_WC_GRH);
	ck_assert(wc.wc_flags & IBV_WC_WITH_IMM);
	ck_assert_uint_eq(be32toh(wc.imm_data), 0xabcd);
	check_grh(in, LEN);
	ck_assert_mem_eq(in + 40, out, LEN);
	ck_assert_uint_eq(in[40 + LEN], 0xee); /* nothing past the message */

	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert_int_eq(ibv_destroy_qp(a), 0);
	ck_assert_int_eq(ibv_destroy_qp(b), 0);
	close_end(&e);
}
END_TEST

/* ---- RC ---------------------------------------------------------------------------- */

static void rc_post(struct ibv_qp *qp, enum ibv_wr_opcode op, struct ibv_mr *mr,
		    void *buf, uint32_t len, uint64_t raddr, uint32_t rkey,
		    uint64_t wr_id)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = len,
			       .lkey = mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.imm_data = htobe32(0x1234),
	}, *bad;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), 0);
}

/* The completions of wr_ids send_id (on the send side) and recv_id. */
static void wait_two(struct ibv_cq *cq, uint64_t send_id, struct ibv_wc *send,
		     uint64_t recv_id, struct ibv_wc *recv)
{
	for (int i = 0; i < 2; i++) {
		struct ibv_wc wc = wait_wc(cq);

		if (wc.wr_id == send_id)
			*send = wc;
		else if (wc.wr_id == recv_id)
			*recv = wc;
		else
			ck_abort_msg("unexpected completion wr_id %llu",
				     (unsigned long long)wc.wr_id);
	}
}

START_TEST(rc_send_and_write)
{
	enum { LEN = 10000, BUF = 16384 };
	struct end e;
	struct ibv_qp *a, *b;
	struct ibv_mr *amr, *bmr;
	struct ibv_wc s, r;
	uint8_t *abuf = malloc(BUF), *bbuf = malloc(BUF);

	if (!open_end(&e))
		return;
	rc_pair(&e, &a, &b, 7, 7);
	amr = ibv_reg_mr(e.pd, abuf, BUF, IBV_ACCESS_LOCAL_WRITE);
	bmr = ibv_reg_mr(e.pd, bbuf, BUF,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	ck_assert_ptr_nonnull(amr);
	ck_assert_ptr_nonnull(bmr);

	/* SEND of 10 packets of a 1024-byte path MTU, with immediate */
	fill(abuf, LEN, 1);
	memset(bbuf, 0, BUF);
	post_recv(b, bmr, bbuf, BUF, 100);
	rc_post(a, IBV_WR_SEND_WITH_IMM, amr, abuf, LEN, 0, 0, 1);
	wait_two(e.cq, 1, &s, 100, &r);
	ck_assert_int_eq(s.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(s.opcode, IBV_WC_SEND);
	ck_assert_int_eq(r.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(r.opcode, IBV_WC_RECV);
	ck_assert_uint_eq(r.byte_len, LEN);
	ck_assert_uint_eq(r.qp_num, b->qp_num);
	ck_assert(r.wc_flags & IBV_WC_WITH_IMM);
	ck_assert_uint_eq(be32toh(r.imm_data), 0x1234);
	ck_assert_mem_eq(bbuf, abuf, LEN);

	/* RDMA WRITE: the send completes on the ACK, the data is there */
	fill(abuf, LEN, 2);
	memset(bbuf, 0, BUF);
	rc_post(a, IBV_WR_RDMA_WRITE, amr, abuf, LEN, (uintptr_t)bbuf + 100,
		bmr->rkey, 2);
	s = wait_wc(e.cq);
	ck_assert_uint_eq(s.wr_id, 2);
	ck_assert_int_eq(s.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(s.opcode, IBV_WC_RDMA_WRITE);
	ck_assert_mem_eq(bbuf + 100, abuf, LEN);
	for (int i = 0; i < 100; i++)
		ck_assert_uint_eq(bbuf[i], 0);
	for (int i = 100 + LEN; i < BUF; i++)
		ck_assert_uint_eq(bbuf[i], 0);

	/* WRITE WITH IMMEDIATE: a receive completion with the length */
	post_recv(b, bmr, bbuf, 1, 101);
	fill(abuf, 3000, 3);
	rc_post(a, IBV_WR_RDMA_WRITE_WITH_IMM, amr, abuf, 3000, (uintptr_t)bbuf,
		bmr->rkey, 3);
	wait_two(e.cq, 3, &s, 101, &r);
	ck_assert_int_eq(s.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(r.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(r.opcode, IBV_WC_RECV_RDMA_WITH_IMM);
	ck_assert_uint_eq(r.byte_len, 3000);
	ck_assert_mem_eq(bbuf, abuf, 3000);

	/* a WRITE past the MR's end: a remote access error, nothing
	 * written, and the requester's QP in the error state */
	memset(bbuf, 0, BUF);
	rc_post(a, IBV_WR_RDMA_WRITE, amr, abuf, 200, (uintptr_t)bbuf + BUF - 100,
		bmr->rkey, 4);
	s = wait_wc(e.cq);
	ck_assert_uint_eq(s.wr_id, 4);
	ck_assert_int_eq(s.status, IBV_WC_REM_ACCESS_ERR);
	for (int i = 0; i < BUF; i++)
		ck_assert_uint_eq(bbuf[i], 0);
	ck_assert_int_eq(state_of(a), IBV_QPS_ERR);

	ck_assert_int_eq(ibv_destroy_qp(a), 0);
	ck_assert_int_eq(ibv_destroy_qp(b), 0);
	ck_assert_int_eq(ibv_dereg_mr(amr), 0);
	ck_assert_int_eq(ibv_dereg_mr(bmr), 0);
	close_end(&e);
	free(abuf);
	free(bbuf);
}
END_TEST

START_TEST(rc_read)
{
	enum { BUF = 16384 };
	struct end e;
	struct ibv_qp *a, *b;
	struct ibv_mr *amr, *bmr, *bmr_noread;
	struct ibv_wc s;
	uint8_t *abuf = malloc(BUF), *bbuf = malloc(BUF);
	struct ibv_sge sge[2];
	struct ibv_send_wr wr = { .wr_id = 5, .sg_list = sge, .num_sge = 2,
				  .opcode = IBV_WR_RDMA_READ,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	if (!open_end(&e))
		return;
	rc_pair(&e, &a, &b, 7, 7);
	amr = ibv_reg_mr(e.pd, abuf, BUF, IBV_ACCESS_LOCAL_WRITE);
	bmr = ibv_reg_mr(e.pd, bbuf, BUF, IBV_ACCESS_REMOTE_READ);
	ck_assert_ptr_nonnull(amr);
	ck_assert_ptr_nonnull(bmr);

	/* 9000 bytes (9 responses of a 1024-byte MTU) into two SGEs, then
	 * a SEND behind the READ: on a's side the READ completes first (b's
	 * receive may come before both) */
	fill(bbuf, BUF, 4);
	memset(abuf, 0, BUF);
	sge[0] = (struct ibv_sge){ (uintptr_t)abuf, 5000, amr->lkey };
	sge[1] = (struct ibv_sge){ (uintptr_t)abuf + 8000, 4000, amr->lkey };
	wr.wr.rdma.remote_addr = (uintptr_t)bbuf + 7;
	wr.wr.rdma.rkey = bmr->rkey;
	ck_assert_int_eq(ibv_post_send(a, &wr, &bad), 0);
	post_recv(b, amr, abuf + 14000, 100, 200);
	rc_post(a, IBV_WR_SEND, amr, abuf + 15000, 10, 0, 0, 6);
	{
		uint64_t sends[2];
		int nsend = 0;

		for (int i = 0; i < 3; i++) {
			struct ibv_wc wc = wait_wc(e.cq);

			ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
			if (wc.wr_id == 200)
				continue;
			ck_assert_int_lt(nsend, 2);
			sends[nsend++] = wc.wr_id;
			if (wc.wr_id == 5) {
				ck_assert_int_eq(wc.opcode, IBV_WC_RDMA_READ);
				ck_assert_uint_eq(wc.byte_len, 9000);
			}
		}
		ck_assert_int_eq(nsend, 2);
		ck_assert_uint_eq(sends[0], 5);
		ck_assert_uint_eq(sends[1], 6);
	}
	ck_assert_mem_eq(abuf, bbuf + 7, 5000);
	ck_assert_mem_eq(abuf + 8000, bbuf + 7 + 5000, 4000);
	for (int i = 5000; i < 8000; i++)
		ck_assert_uint_eq(abuf[i], 0);

	/* an MR without remote read: a remote access error */
	bmr_noread = ibv_reg_mr(e.pd, bbuf, BUF, IBV_ACCESS_REMOTE_WRITE |
						 IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(bmr_noread);
	wr.num_sge = 1;
	wr.wr_id = 7;
	wr.wr.rdma.rkey = bmr_noread->rkey;
	ck_assert_int_eq(ibv_post_send(a, &wr, &bad), 0);
	s = wait_wc(e.cq);
	ck_assert_uint_eq(s.wr_id, 7);
	ck_assert_int_eq(s.status, IBV_WC_REM_ACCESS_ERR);

	ck_assert_int_eq(ibv_destroy_qp(a), 0);
	ck_assert_int_eq(ibv_destroy_qp(b), 0);
	ck_assert_int_eq(ibv_dereg_mr(amr), 0);
	ck_assert_int_eq(ibv_dereg_mr(bmr), 0);
	ck_assert_int_eq(ibv_dereg_mr(bmr_noread), 0);
	close_end(&e);
	free(abuf);
	free(bbuf);
}
END_TEST

/* ---- the responder's READ and atomic resources --------------------------------------- */

/* A READ request for b, as if a sent it again (white-box: handed to
 * b's responder under the locks the progress thread holds): how many
 * packets b sent in answer (its context's sent_pkts) */
static uint64_t dup_read(struct end *e, struct ibv_qp *ibqp, uint32_t psn,
			 uint64_t va, uint32_t rkey, uint32_t len)
{
	struct uroce_context *ctx = to_uroce_context(e->ctx);
	struct uroce_qp *qp = to_uroce_qp(ibqp);
	struct uroce_pkt req = { 0 }, got;
	union uroce_sockaddr src = { .sin = { .sin_family = AF_INET,
					      .sin_port = htons(UROCE_UDP_PORT),
					      .sin_addr.s_addr = htonl(INADDR_LOOPBACK) } };
	uint8_t buf[128];
	uint64_t before = uroce_ctr_get(ctx, UROCE_CTR_SENT_PKTS);
	int len_pkt;

	req.bth.opcode = UROCE_OP_RC_RDMA_READ_REQUEST;
	req.bth.pkey = UROCE_DEF_PKEY;
	req.bth.dest_qpn = ibqp->qp_num;
	req.bth.psn = psn;
	req.bth.ack_req = 1;
	req.reth.va = va;
	req.reth.rkey = rkey;
	req.reth.len = len;
	len_pkt = uroce_build(buf, sizeof(buf), &req, NULL, 0);
	ck_assert_int_gt(len_pkt, 0);
	ck_assert_int_eq(uroce_parse(buf, (size_t)len_pkt, &got), UROCE_DROP_OK);
	pthread_mutex_lock(&ctx->qp_lock);
	pthread_mutex_lock(&qp->lock);
	uroce_resp_request(qp, &got, &src, &src);
	pthread_mutex_unlock(&qp->lock);
	pthread_mutex_unlock(&ctx->qp_lock);
	return uroce_ctr_get(ctx, UROCE_CTR_SENT_PKTS) - before;
}

/* As rxe's responder (check_resource, its ring of resources):
 * max_dest_rd_atomic reads back as the next power of two; with 0 a READ
 * is an invalid request (the requester's WQE completes with
 * REM_INV_REQ_ERR, the responder's QP goes to the error state); with 1
 * a duplicate of the last READ is answered again, one of the READ
 * before it (its resource taken by the last) is dropped. */
START_TEST(rd_atomic_resources)
{
	enum { BUF = 4096 };
	struct end e;
	struct ibv_qp *a, *b;
	struct ibv_mr *amr, *bmr;
	uint8_t *abuf = calloc(1, BUF), *bbuf = calloc(1, BUF);
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qia;
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_READ,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;

	ck_assert_ptr_nonnull(abuf);
	ck_assert_ptr_nonnull(bbuf);
	if (!open_end(&e))
		return;
	amr = ibv_reg_mr(e.pd, abuf, BUF, IBV_ACCESS_LOCAL_WRITE);
	bmr = ibv_reg_mr(e.pd, bbuf, BUF, IBV_ACCESS_REMOTE_READ);
	ck_assert_ptr_nonnull(amr);
	ck_assert_ptr_nonnull(bmr);
	sge = (struct ibv_sge){ (uintptr_t)abuf, 100, amr->lkey };
	wr.wr.rdma.remote_addr = (uintptr_t)bbuf;
	wr.wr.rdma.rkey = bmr->rkey;

	/* 3 reads back as 4 */
	rtr_max_dest_rd_atomic = 3;
	rc_pair(&e, &a, &b, 7, 7);
	ck_assert_int_eq(ibv_query_qp(b, &qa, IBV_QP_MAX_DEST_RD_ATOMIC, &qia), 0);
	ck_assert_uint_eq(qa.max_dest_rd_atomic, 4);
	ck_assert_int_eq(ibv_destroy_qp(a), 0);
	ck_assert_int_eq(ibv_destroy_qp(b), 0);

	/* none: a READ is an invalid request */
	rtr_max_dest_rd_atomic = 0;
	rc_pair(&e, &a, &b, 7, 7);
	wr.wr_id = 1;
	ck_assert_int_eq(ibv_post_send(a, &wr, &bad), 0);
	wc = wait_wc(e.cq);
	ck_assert_uint_eq(wc.wr_id, 1);
	ck_assert_int_eq(wc.status, IBV_WC_REM_INV_REQ_ERR);
	ck_assert_int_eq(state_of(b), IBV_QPS_ERR);
	ck_assert_int_eq(ibv_destroy_qp(a), 0);
	ck_assert_int_eq(ibv_destroy_qp(b), 0);

	/* one: only the last READ's duplicate is answered */
	rtr_max_dest_rd_atomic = 1;
	rc_pair(&e, &a, &b, 7, 7);
	for (uint64_t id = 2; id <= 3; id++) {
		wr.wr_id = id;
		ck_assert_int_eq(ibv_post_send(a, &wr, &bad), 0);
		wc = wait_wc(e.cq);
		ck_assert_uint_eq(wc.wr_id, id);
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	}
	/* a's READs took PSNs 100 and 101 (to_rtr_rts) */
	ck_assert_uint_eq(dup_read(&e, b, 101, (uintptr_t)bbuf, bmr->rkey, 100), 1);
	ck_assert_uint_eq(dup_read(&e, b, 100, (uintptr_t)bbuf, bmr->rkey, 100), 0);
	/* the last one's again, past its range: dropped too */
	ck_assert_uint_eq(dup_read(&e, b, 101, (uintptr_t)bbuf, bmr->rkey, 200), 0);
	ck_assert_int_eq(state_of(b), IBV_QPS_RTS);

	ck_assert_int_eq(ibv_destroy_qp(a), 0);
	ck_assert_int_eq(ibv_destroy_qp(b), 0);
	rtr_max_dest_rd_atomic = 1;
	ck_assert_int_eq(ibv_dereg_mr(amr), 0);
	ck_assert_int_eq(ibv_dereg_mr(bmr), 0);
	close_end(&e);
	free(abuf);
	free(bbuf);
}
END_TEST

/* RDMA atomics: FETCH_AND_ADD and CMP_AND_SWP (a match and a miss)
 * return the value before and change the peer's memory as they say; a
 * misaligned or non-8-byte one is refused at post; an MR without remote
 * atomic access is a remote access error. */
static void atomic_post(struct ibv_qp *qp, enum ibv_wr_opcode op,
			struct ibv_mr *mr, uint64_t *res, uint64_t raddr,
			uint32_t rkey, uint64_t compare_add, uint64_t swap,
			uint64_t wr_id, int want)
{
	struct ibv_sge sge = { .addr = (uintptr_t)res, .length = 8,
			       .lkey = mr->lkey };
	struct ibv_send_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
				  .opcode = op, .send_flags = IBV_SEND_SIGNALED },
			   *bad;

	wr.wr.atomic.remote_addr = raddr;
	wr.wr.atomic.rkey = rkey;
	wr.wr.atomic.compare_add = compare_add;
	wr.wr.atomic.swap = swap;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), want);
}

static uint64_t atomic_done(struct ibv_cq *cq, uint64_t wr_id,
			    enum ibv_wc_opcode opcode, const uint64_t *res)
{
	struct ibv_wc wc = wait_wc(cq);

	ck_assert_uint_eq(wc.wr_id, wr_id);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, opcode);
	ck_assert_uint_eq(wc.byte_len, 8);
	return *res;
}

START_TEST(rc_atomics)
{
	struct end e;
	struct ibv_qp *a, *b;
	struct ibv_mr *amr, *bmr, *bmr_noatomic;
	struct ibv_wc wc;
	static uint64_t res[4], target[4];

	if (!open_end(&e))
		return;
	rc_pair(&e, &a, &b, 7, 7);
	amr = ibv_reg_mr(e.pd, res, sizeof(res), IBV_ACCESS_LOCAL_WRITE);
	bmr = ibv_reg_mr(e.pd, target, sizeof(target),
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC);
	ck_assert_ptr_nonnull(amr);
	ck_assert_ptr_nonnull(bmr);

	target[1] = 1000;
	res[0] = ~0ull;
	atomic_post(a, IBV_WR_ATOMIC_FETCH_AND_ADD, amr, &res[0],
		    (uintptr_t)&target[1], bmr->rkey, 0x100000005ull, 0, 1, 0);
	ck_assert_uint_eq(atomic_done(e.cq, 1, IBV_WC_FETCH_ADD, &res[0]), 1000);
	ck_assert_uint_eq(target[1], 1000 + 0x100000005ull);

	/* a match swaps, a miss leaves it; both return what was there */
	atomic_post(a, IBV_WR_ATOMIC_CMP_AND_SWP, amr, &res[1],
		    (uintptr_t)&target[1], bmr->rkey, 1000 + 0x100000005ull,
		    0xabcdef0123456789ull, 2, 0);
	ck_assert_uint_eq(atomic_done(e.cq, 2, IBV_WC_COMP_SWAP, &res[1]),
			  1000 + 0x100000005ull);
	ck_assert_uint_eq(target[1], 0xabcdef0123456789ull);
	atomic_post(a, IBV_WR_ATOMIC_CMP_AND_SWP, amr, &res[2],
		    (uintptr_t)&target[1], bmr->rkey, 42, 7, 3, 0);
	ck_assert_uint_eq(atomic_done(e.cq, 3, IBV_WC_COMP_SWAP, &res[2]),
			  0xabcdef0123456789ull);
	ck_assert_uint_eq(target[1], 0xabcdef0123456789ull);
	ck_assert_uint_eq(target[0], 0);
	ck_assert_uint_eq(target[2], 0);

	/* rxe's rules at post: 8-byte aligned */
	atomic_post(a, IBV_WR_ATOMIC_FETCH_AND_ADD, amr, &res[0],
		    (uintptr_t)&target[1] + 4, bmr->rkey, 1, 0, 4, EINVAL);

	/* an MR without remote atomic access */
	bmr_noatomic = ibv_reg_mr(e.pd, target, sizeof(target),
				  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	ck_assert_ptr_nonnull(bmr_noatomic);
	atomic_post(a, IBV_WR_ATOMIC_FETCH_AND_ADD, amr, &res[3],
		    (uintptr_t)&target[1], bmr_noatomic->rkey, 1, 0, 5, 0);
	wc = wait_wc(e.cq);
	ck_assert_uint_eq(wc.wr_id, 5);
	ck_assert_int_eq(wc.status, IBV_WC_REM_ACCESS_ERR);
	ck_assert_uint_eq(target[1], 0xabcdef0123456789ull);

	ck_assert_int_eq(ibv_destroy_qp(a), 0);
	ck_assert_int_eq(ibv_destroy_qp(b), 0);
	ck_assert_int_eq(ibv_dereg_mr(amr), 0);
	ck_assert_int_eq(ibv_dereg_mr(bmr), 0);
	ck_assert_int_eq(ibv_dereg_mr(bmr_noatomic), 0);
	close_end(&e);
}
END_TEST

/* An SRQ shared by two RC QPs (b1, b2; a1 and a2 send to them): each
 * message lands in the next SRQ WQE, whichever QP it came to, its
 * completion naming that QP; an empty SRQ makes the sender wait (RNR)
 * until a WQE is posted; post_recv on such a QP is refused; the limit
 * fires IBV_EVENT_SRQ_LIMIT_REACHED once and disarms; destroy_srq is
 * EBUSY while QPs use it. */
START_TEST(srq_shared_by_two_qps)
{
	enum { MSG = 3000 }; /* three packets at MTU 1024 */
	struct end e;
	struct ibv_srq_init_attr sia = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ibv_qp_init_attr ia = {
		.send_cq = NULL, .recv_cq = NULL, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_send_sge = 1,
			 .max_recv_wr = 16, .max_recv_sge = 1 },
	};
	struct ibv_qp *a1, *a2, *b1, *b2;
	struct ibv_srq *srq;
	struct ibv_srq_attr sa;
	struct ibv_mr *mr;
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_sge sge;
	struct ibv_async_event ev;
	struct ibv_wc s, r;
	static uint8_t buf[8 * MSG + 2 * MSG];
	uint8_t *src = buf + 8 * MSG;

	if (!open_end(&e))
		return;
	srq = ibv_create_srq(e.pd, &sia);
	ck_assert_ptr_nonnull(srq);
	ck_assert_uint_ge(sia.attr.max_wr, 8);
	ia.send_cq = ia.recv_cq = e.cq;
	ia.srq = srq;
	b1 = ibv_create_qp(e.pd, &ia);
	b2 = ibv_create_qp(e.pd, &ia);
	ck_assert_ptr_nonnull(b1);
	ck_assert_ptr_nonnull(b2);
	ck_assert_ptr_eq(b1->srq, srq);
	a1 = make_qp(&e, IBV_QPT_RC);
	a2 = make_qp(&e, IBV_QPT_RC);
	ck_assert_ptr_nonnull(a1);
	ck_assert_ptr_nonnull(a2);
	to_init(a1);
	to_init(a2);
	to_init(b1);
	to_init(b2);
	to_rtr_rts(a1, b1->qp_num);
	to_rtr_rts(b1, a1->qp_num);
	to_rtr_rts(a2, b2->qp_num);
	to_rtr_rts(b2, a2->qp_num);
	mr = ibv_reg_mr(e.pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(mr);
	fill(src, 2 * MSG, 21);
	memset(buf, 0, 8 * MSG);

	/* the QP's own receive queue is not there */
	sge = (struct ibv_sge){ (uintptr_t)buf, MSG, mr->lkey };
	rwr = (struct ibv_recv_wr){ .wr_id = 99, .sg_list = &sge, .num_sge = 1 };
	ck_assert_int_eq(ibv_post_recv(b1, &rwr, &rbad), EINVAL);

	/* an empty SRQ: a1's SEND waits (RNR) until a WQE comes */
	rc_post(a1, IBV_WR_SEND, mr, src, MSG, 0, 0, 1);
	usleep(20000);
	ck_assert_int_eq(ibv_poll_cq(e.cq, 1, &s), 0);
	for (int i = 0; i < 4; i++) {
		sge = (struct ibv_sge){ (uintptr_t)buf + (size_t)i * MSG, MSG, mr->lkey };
		rwr = (struct ibv_recv_wr){ .wr_id = 100 + (uint64_t)i, .sg_list = &sge,
					    .num_sge = 1 };
		ck_assert_int_eq(ibv_post_srq_recv(srq, &rwr, &rbad), 0);
	}
	wait_two(e.cq, 1, &s, 100, &r);
	ck_assert_int_eq(s.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(r.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(r.qp_num, b1->qp_num);
	ck_assert_uint_eq(r.byte_len, MSG);
	ck_assert_mem_eq(buf, src, MSG);

	/* the limit: armed at 2 with 3 WQEs left; a2's SEND leaves 2 (no
	 * event), a1's next leaves 1: the event, once */
	sa.srq_limit = 2;
	ck_assert_int_eq(ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT), 0);
	ck_assert_int_eq(ibv_query_srq(srq, &sa), 0);
	ck_assert_uint_eq(sa.srq_limit, 2);
	rc_post(a2, IBV_WR_SEND, mr, src + MSG, MSG, 0, 0, 2);
	wait_two(e.cq, 2, &s, 101, &r);
	ck_assert_int_eq(r.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(r.qp_num, b2->qp_num);
	ck_assert_mem_eq(buf + MSG, src + MSG, MSG);
	rc_post(a1, IBV_WR_SEND, mr, src + 7, MSG, 0, 0, 3);
	wait_two(e.cq, 3, &s, 102, &r);
	ck_assert_int_eq(r.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(r.qp_num, b1->qp_num);
	ck_assert_mem_eq(buf + 2 * MSG, src + 7, MSG);
	ck_assert_int_eq(ibv_get_async_event(e.ctx, &ev), 0);
	ck_assert_int_eq(ev.event_type, IBV_EVENT_SRQ_LIMIT_REACHED);
	ck_assert_ptr_eq(ev.element.srq, srq);
	ibv_ack_async_event(&ev);
	ck_assert_int_eq(ibv_query_srq(srq, &sa), 0);
	ck_assert_uint_eq(sa.srq_limit, 0); /* disarmed */

	/* in use: not destroyed */
	ck_assert_int_eq(ibv_destroy_srq(srq), EBUSY);
	ck_assert_int_eq(ibv_destroy_qp(a1), 0);
	ck_assert_int_eq(ibv_destroy_qp(a2), 0);
	ck_assert_int_eq(ibv_destroy_qp(b1), 0);
	ck_assert_int_eq(ibv_destroy_qp(b2), 0);
	ck_assert_int_eq(ibv_destroy_srq(srq), 0);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	/* one left at close goes with the context (the sanitized build's
	 * leak check) */
	ck_assert_ptr_nonnull(ibv_create_srq(e.pd, &sia));
	close_end(&e);
}
END_TEST

/* ---- inline data on a QP made for it ----------------------------------------------- */

/* A QP with caps c of e's (RC, into e's CQ), or NULL */
static struct ibv_qp *qp_with_caps(struct end *e, struct ibv_qp_cap *c)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = e->cq,
		.recv_cq = e->cq,
		.qp_type = IBV_QPT_RC,
		.cap = *c,
	};
	struct ibv_qp *qp = ibv_create_qp(e->pd, &ia);

	*c = ia.cap;
	return qp;
}

/* rxe's send queue (rxe_init_sq): a WQE holds the larger of
 * max_send_sge SGEs and max_inline_data bytes, and the QP gets all
 * that room holds, in the caps create_qp returns and query_qp reports.
 * So a QP made with max_send_sge 0 and max_inline_data 64 has 4 SGEs,
 * and an inline SEND with num_sge 1 goes (rdma-core's rxe checks
 * num_sge against the kernel's grant), its bytes arriving whole from an
 * unregistered buffer; with max_inline_data 8 the room holds no SGE and
 * the same WR is refused (EINVAL), as on rxe. */
START_TEST(inline_on_a_qp_without_send_sges)
{
	struct end e;
	struct ibv_qp_cap c = { .max_send_wr = 4, .max_recv_wr = 4,
				.max_recv_sge = 1, .max_inline_data = 64 };
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qia;
	struct ibv_qp *a, *b, *small;
	struct ibv_mr *mr;
	uint8_t *rbuf = calloc(1, 4096), msg[40];
	struct ibv_sge sge = { .addr = (uintptr_t)msg, .length = sizeof(msg) };
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE },
			   *bad;
	struct ibv_wc swc, rwc;

	ck_assert_ptr_nonnull(rbuf);
	if (!open_end(&e))
		return;
	a = qp_with_caps(&e, &c);
	ck_assert_ptr_nonnull(a);
	ck_assert_uint_eq(c.max_send_sge, 4);
	ck_assert_uint_eq(c.max_inline_data, 64);
	ck_assert_int_eq(ibv_query_qp(a, &qa, IBV_QP_CAP, &qia), 0);
	ck_assert_uint_eq(qia.cap.max_send_sge, 4);
	ck_assert_uint_eq(qia.cap.max_inline_data, 64);
	b = make_qp(&e, IBV_QPT_RC);
	ck_assert_ptr_nonnull(b);
	to_init(a);
	to_init(b);
	to_rtr_rts(a, b->qp_num);
	to_rtr_rts(b, a->qp_num);
	mr = ibv_reg_mr(e.pd, rbuf, 4096, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(mr);
	post_recv(b, mr, rbuf, 4096, 2);
	fill(msg, sizeof(msg), 9);
	ck_assert_int_eq(ibv_post_send(a, &wr, &bad), 0);
	memset(msg, 0, sizeof(msg)); /* inline: copied at post */
	wait_two(e.cq, 1, &swc, 2, &rwc);
	ck_assert_int_eq(swc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(rwc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(rwc.byte_len, sizeof(msg));
	fill(msg, sizeof(msg), 9);
	ck_assert_int_eq(memcmp(rbuf, msg, sizeof(msg)), 0);

	/* max_send_sge 2, no inline asked: 32 inline bytes granted */
	c = (struct ibv_qp_cap){ .max_send_wr = 4, .max_send_sge = 2 };
	small = qp_with_caps(&e, &c);
	ck_assert_ptr_nonnull(small);
	ck_assert_uint_eq(c.max_send_sge, 2);
	ck_assert_uint_eq(c.max_inline_data, 32);
	ck_assert_int_eq(ibv_destroy_qp(small), 0);

	/* 8 inline bytes: no room for an SGE */
	c = (struct ibv_qp_cap){ .max_send_wr = 4, .max_inline_data = 8 };
	small = qp_with_caps(&e, &c);
	ck_assert_ptr_nonnull(small);
	ck_assert_uint_eq(c.max_send_sge, 0);
	ck_assert_uint_eq(c.max_inline_data, 8);
	to_init(small);
	to_rtr_rts(small, b->qp_num);
	sge.length = 8;
	bad = NULL;
	ck_assert_int_eq(ibv_post_send(small, &wr, &bad), EINVAL);
	ck_assert_ptr_eq(bad, &wr);
	ck_assert_int_eq(ibv_destroy_qp(small), 0);

	ck_assert_int_eq(ibv_destroy_qp(a), 0);
	ck_assert_int_eq(ibv_destroy_qp(b), 0);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	close_end(&e);
	free(rbuf);
}
END_TEST

/* A peer that never answers: the send is sent again retry_cnt times
 * (timeout 14: 67 ms each), then fails with RETRY_EXC_ERR. */
START_TEST(rc_retry_exceeded)
{
	struct end e;
	struct ibv_qp *a, *b;
	struct ibv_mr *mr;
	struct ibv_wc s;
	static uint8_t buf[64];
	long t0;

	if (!open_end(&e))
		return;
	rc_pair(&e, &a, &b, 2, 7);
	/* b goes away: nothing answers a */
	ck_assert_int_eq(ibv_destroy_qp(b), 0);
	mr = ibv_reg_mr(e.pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(mr);
	t0 = now_ms();
	rc_post(a, IBV_WR_SEND, mr, buf, 16, 0, 0, 9);
	s = wait_wc(e.cq);
	ck_assert_uint_eq(s.wr_id, 9);
	ck_assert_int_eq(s.status, IBV_WC_RETRY_EXC_ERR);
	/* three timeouts of 67 ms at least */
	ck_assert_int_ge(now_ms() - t0, 3 * 67);
	ck_assert_int_eq(state_of(a), IBV_QPS_ERR);
	ck_assert_int_eq(ibv_destroy_qp(a), 0);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	close_end(&e);
}
END_TEST

/* No receive posted at the peer: RNR NAKs; the send goes again after
 * the peer's min_rnr_timer (12: 0.64 ms) and succeeds once a receive is
 * there (rnr_retry 7); with rnr_retry 1 it fails with RNR_RETRY_EXC_ERR. */
START_TEST(rc_rnr_retry)
{
	struct end e;
	struct ibv_qp *a, *b;
	struct ibv_mr *mr;
	struct ibv_wc s, r;
	static uint8_t buf[256];

	if (!open_end(&e))
		return;
	mr = ibv_reg_mr(e.pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(mr);
	rc_pair(&e, &a, &b, 7, 7);
	fill(buf, 32, 9);
	rc_post(a, IBV_WR_SEND, mr, buf, 32, 0, 0, 10);
	usleep(50000);
	ck_assert_int_eq(ibv_poll_cq(e.cq, 1, &s), 0); /* still waiting */
	post_recv(b, mr, buf + 100, 100, 11);
	wait_two(e.cq, 10, &s, 11, &r);
	ck_assert_int_eq(s.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(r.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(r.byte_len, 32);
	ck_assert_mem_eq(buf + 100, buf, 32);
	ck_assert_int_eq(ibv_destroy_qp(a), 0);
	ck_assert_int_eq(ibv_destroy_qp(b), 0);

	rc_pair(&e, &a, &b, 7, 1);
	rc_post(a, IBV_WR_SEND, mr, buf, 32, 0, 0, 12);
	s = wait_wc(e.cq);
	ck_assert_uint_eq(s.wr_id, 12);
	ck_assert_int_eq(s.status, IBV_WC_RNR_RETRY_EXC_ERR);
	ck_assert_int_eq(state_of(a), IBV_QPS_ERR);
	ck_assert_int_eq(ibv_destroy_qp(a), 0);
	ck_assert_int_eq(ibv_destroy_qp(b), 0);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	close_end(&e);
}
END_TEST

/* ---- several sockets on UDP 4791 --------------------------------------------------- */

/* A UD QP in RTS, a registered buffer and an AH to lo */
struct ud_end {
	struct end e;
	struct ibv_mr *mr;
	struct ibv_ah *ah;
	uint8_t buf[256];
};

static bool ud_open(struct ud_end *u)
{
	struct ibv_ah_attr av;

	if (!open_end(&u->e))
		return false;
	av = av_lo();
	u->e.qp = make_qp(&u->e, IBV_QPT_UD);
	ck_assert_ptr_nonnull(u->e.qp);
	to_init(u->e.qp);
	to_rtr_rts(u->e.qp, 0);
	u->mr = ibv_reg_mr(u->e.pd, u->buf, sizeof(u->buf), IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(u->mr);
	u->ah = ibv_create_ah(u->e.pd, &av);
	ck_assert_ptr_nonnull(u->ah);
	return true;
}

static void ud_close(struct ud_end *u)
{
	ck_assert_int_eq(ibv_destroy_ah(u->ah), 0);
	ck_assert_int_eq(ibv_dereg_mr(u->mr), 0);
	close_end(&u->e);
}

/* Receive one message on u: its immediate */
static uint32_t ud_recv_one(struct ud_end *u)
{
	for (;;) {
		struct ibv_wc wc = wait_wc(u->e.cq);

		if (wc.opcode != IBV_WC_RECV)
			continue;
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		return be32toh(wc.imm_data);
	}
}

START_TEST(two_contexts_each_get_their_own)
{
	static struct ud_end x, y;

	if (!ud_open(&x) || !ud_open(&y))
		return;
	/* two sockets of the group: two places */
	ck_assert_uint_ne(x.e.qp->qp_num >> 16, y.e.qp->qp_num >> 16);
	for (int i = 0; i < 8; i++) {
		post_recv(x.e.qp, x.mr, x.buf, sizeof(x.buf), 1);
		post_recv(y.e.qp, y.mr, y.buf, sizeof(y.buf), 2);
		ud_send(x.e.qp, x.ah, y.e.qp->qp_num, x.mr, x.buf + 100, 16, 0x100 + i);
		ud_send(y.e.qp, y.ah, x.e.qp->qp_num, y.mr, y.buf + 100, 16, 0x200 + i);
		ck_assert_uint_eq(ud_recv_one(&y), 0x100 + i);
		ck_assert_uint_eq(ud_recv_one(&x), 0x200 + i);
	}
	ud_close(&x);
	ud_close(&y);
}
END_TEST

/* A context leaves the group: the kernel moves the group's last socket
 * into its place, so the QPNs of that socket's context no longer name
 * its index; a context that joins next finds its index named by the
 * moved one's QPNs and takes another number. Their packets still reach
 * them (forwarded by whichever context receives them). */
START_TEST(a_socket_that_moved_still_gets_its_own)
{
	static struct ud_end x, y, z, w;

	if (!ud_open(&x) || !ud_open(&y) || !ud_open(&z))
		return;
	ud_close(&y);
	ck_assert(ud_open(&w));
	for (int i = 0; i < 8; i++) {
		post_recv(x.e.qp, x.mr, x.buf, 128, 1);
		post_recv(z.e.qp, z.mr, z.buf, 128, 1);
		post_recv(w.e.qp, w.mr, w.buf, 128, 1);
		ud_send(x.e.qp, x.ah, z.e.qp->qp_num, x.mr, x.buf + 200, 8, 0x10 + i);
		ud_send(z.e.qp, z.ah, w.e.qp->qp_num, z.mr, z.buf + 200, 8, 0x20 + i);
		ud_send(w.e.qp, w.ah, x.e.qp->qp_num, w.mr, w.buf + 200, 8, 0x30 + i);
		ck_assert_uint_eq(ud_recv_one(&z), 0x10 + i);
		ck_assert_uint_eq(ud_recv_one(&w), 0x20 + i);
		ck_assert_uint_eq(ud_recv_one(&x), 0x30 + i);
	}
	ud_close(&x);
	ud_close(&z);
	ud_close(&w);
}
END_TEST

/* n UD SEND ONLY WITH IMMEDIATE packets to qpn on lo, immediates
 * base..base+n-1, one every gap_us, from a plain UDP socket as a peer
 * sends them (DF: IPv4 ID 0, what the receiver's ICRC check assumes).
 * For a forked child: 0, or the step that failed. */
static int raw_ud_burst(uint32_t qpn, uint32_t base, int n, unsigned int gap_us)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons(4791),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in me = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t melen = sizeof(me);
	int df = IP_PMTUDISC_DO;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&me, sizeof(me)) ||
	    getsockname(fd, (struct sockaddr *)&me, &melen) ||
	    setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &df, sizeof(df)))
		return 1;
	for (int i = 0; i < n; i++) {
		struct uroce_pkt pkt = { 0 };
		struct uroce_ipudp ip = { .ip4_id = 0, .ip4_frag_off = 0x4000,
					  .sport = ntohs(me.sin_port),
					  .dport = 4791 };
		uint8_t buf[128];
		int len;

		pkt.bth.opcode = UROCE_OP_UD_SEND_ONLY_WITH_IMMEDIATE;
		pkt.bth.pkey = 0xffff;
		pkt.bth.dest_qpn = qpn;
		pkt.bth.psn = (uint32_t)i;
		pkt.deth.qkey = 0x11111111;
		pkt.deth.src_qpn = 0x77;
		pkt.imm = base + (uint32_t)i;
		len = uroce_build(buf, sizeof(buf), &pkt, "burst", 5);
		if (len <= 0)
			return 2;
		memcpy(ip.saddr, &me.sin_addr, 4);
		memcpy(ip.daddr, &to.sin_addr, 4);
		uroce_icrc_fill(&ip, buf, (size_t)len);
		if (sendto(fd, buf, (size_t)len, 0, (struct sockaddr *)&to,
			   sizeof(to)) != len)
			return 3;
		usleep(gap_us);
	}
	close(fd);
	return 0;
}

/* A socket that joins the group takes at once every datagram steered to
 * its index, while its context still probes for that index: those for
 * other contexts' QPs are handed on once it knows its slot, not dropped.
 * z moves into x's place, so its QPNs name the index the next socket
 * gets; a peer sends to z while w joins there. UD keeps no order (some
 * take one hop more): each immediate must arrive, once. Eight of them:
 * a unix datagram socket queues net.unix.max_dgram_qlen (10) at most,
 * and w forwards all it held at once. */
START_TEST(packets_during_a_join_still_get_their_own)
{
	static struct ud_end x, y, z, w;
	uint32_t seen = 0;
	int status;
	pid_t pid;

	if (!ud_open(&x) || !ud_open(&y) || !ud_open(&z))
		return;
	ud_close(&x);
	for (int i = 0; i < 8; i++)
		post_recv(z.e.qp, z.mr, z.buf, 128, (uint64_t)i);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(raw_ud_burst(z.e.qp->qp_num, 0x500, 8, 2500));
	ck_assert(ud_open(&w));
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	for (int i = 0; i < 8; i++) {
		uint32_t imm = ud_recv_one(&z);

		ck_assert_uint_ge(imm, 0x500);
		ck_assert_uint_lt(imm, 0x500 + 8);
		ck_assert(!(seen & 1u << (imm - 0x500)));
		seen |= 1u << (imm - 0x500);
	}
	ud_close(&y);
	ud_close(&z);
	ud_close(&w);
}
END_TEST

/* Datagrams that are no good RoCE packet for a live QP cost nothing:
 * each is counted and dropped, no completion appears. */
START_TEST(bad_packets_are_counted_and_dropped)
{
	static struct ud_end u;
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons(4791),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct uroce_pkt pkt = { 0 };
	uint8_t buf[128];
	struct ibv_wc wc;
	int fd, len;

	if (!ud_open(&u))
		return;
	post_recv(u.e.qp, u.mr, u.buf, 128, 1);
	pkt.bth.opcode = UROCE_OP_UD_SEND_ONLY;
	pkt.bth.pkey = 0xffff;
	pkt.bth.dest_qpn = u.e.qp->qp_num;
	pkt.deth.qkey = 0x11111111;
	len = uroce_build(buf, sizeof(buf), &pkt, "hello", 5);
	ck_assert_int_gt(len, 0);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	ck_assert_int_ge(fd, 0);
	/* a zero ICRC: wrong */
	ck_assert_int_eq(sendto(fd, buf, (size_t)len, 0, (struct sockaddr *)&to,
				sizeof(to)), len);
	/* cut short: shorter than its headers */
	ck_assert_int_eq(sendto(fd, buf, 16, 0, (struct sockaddr *)&to,
				sizeof(to)), 16);
	for (long end = now_ms() + 2000;
	     uroce_net_drops(to_uroce_context(u.e.ctx), UROCE_DROP_ICRC) < 1 ||
	     uroce_net_drops(to_uroce_context(u.e.ctx), UROCE_DROP_TRUNCATED) < 1;)
		ck_assert_msg(now_ms() < end, "the drops were not counted");
	ck_assert_int_eq(ibv_poll_cq(u.e.cq, 1, &wc), 0);
	close(fd);
	ud_close(&u);
}
END_TEST

/* ---- the progress thread ---------------------------------------------------------- */

static int ntasks(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* The signals blocked in every thread but the caller's, ANDed */
static unsigned long long others_blocked(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	unsigned long long all = ~0ULL;
	char path[300], line[128];

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d))) {
		unsigned long long blk = 0;
		FILE *f;

		if (e->d_name[0] == '.' || atoi(e->d_name) == (int)gettid())
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/status", e->d_name);
		f = fopen(path, "r");
		ck_assert_ptr_nonnull(f);
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "SigBlk: %llx", &blk) == 1)
				break;
		fclose(f);
		all &= blk;
	}
	closedir(d);
	return all;
}

#define SIGBIT(s) (1ULL << ((s) - 1))

START_TEST(progress_thread_lifecycle)
{
	static struct ud_end u;
	unsigned long long blocked;
	int before = ntasks(), status;
	pid_t pid;

	if (!open_end(&u.e))
		return;
	/* no thread until the first QP */
	ck_assert_int_eq(ntasks(), before);
	close_end(&u.e);
	if (!ud_open(&u))
		return;
	ck_assert_int_eq(ntasks(), before + 1);
	/* it takes none of the program's signals */
	blocked = others_blocked();
	ck_assert(blocked & SIGBIT(SIGINT));
	ck_assert(blocked & SIGBIT(SIGTERM));
	ck_assert(blocked & SIGBIT(SIGUSR1));
	ck_assert(blocked & SIGBIT(SIGALRM));
	ck_assert(blocked & SIGBIT(SIGCHLD));
	ck_assert(blocked & SIGBIT(SIGPIPE));
	ck_assert(blocked & SIGBIT(SIGRTMIN + 1));

	/* a forked child has no such thread, and closes its copy of the
	 * context without waiting for one */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		alarm(10);
		if (ntasks() != 1)
			_exit(2);
		_exit(ibv_close_device(u.e.ctx) == 0 ? 0 : 3);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);

	/* the parent's context still works: a message to itself */
	post_recv(u.e.qp, u.mr, u.buf, 128, 1);
	ud_send(u.e.qp, u.ah, u.e.qp->qp_num, u.mr, u.buf + 200, 8, 0x77);
	ck_assert_uint_eq(ud_recv_one(&u), 0x77);

	/* closing leaves no thread behind */
	ud_close(&u);
	ck_assert_int_eq(ntasks(), before);
}
END_TEST

/* The child of two_processes: its own context; it tells its QPN, then
 * answers each message with its immediate plus one. Exit 0 when all
 * went well. */
static int child_main(int to_parent, int from_parent)
{
	static struct ud_end c;
	uint32_t peer, qpn;

	if (!ud_open(&c))
		return 2;
	qpn = c.e.qp->qp_num;
	for (int i = 0; i < 8; i++)
		post_recv(c.e.qp, c.mr, c.buf, 128, 1);
	if (write(to_parent, &qpn, 4) != 4 || read(from_parent, &peer, 4) != 4)
		return 3;
	for (int i = 0; i < 8; i++) {
		uint32_t imm = ud_recv_one(&c);

		ud_send(c.e.qp, c.ah, peer, c.mr, c.buf + 200, 8, imm + 1);
	}
	ud_close(&c);
	return 0;
}

START_TEST(two_processes_each_get_their_own)
{
	static struct ud_end p;
	int up[2], down[2], status;
	uint32_t child_qpn;
	pid_t pid;

	if (!ud_open(&p))
		return;
	ck_assert_int_eq(pipe(up), 0);
	ck_assert_int_eq(pipe(down), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(child_main(up[1], down[0]));
	ck_assert_int_eq(read(up[0], &child_qpn, 4), 4);
	ck_assert_uint_ne(child_qpn >> 16, p.e.qp->qp_num >> 16);
	ck_assert_int_eq(write(down[1], &p.e.qp->qp_num, 4), 4);
	for (int i = 0; i < 8; i++) {
		post_recv(p.e.qp, p.mr, p.buf, 128, 1);
		ud_send(p.e.qp, p.ah, child_qpn, p.mr, p.buf + 200, 8, 0x1000 * (i + 1));
		ck_assert_uint_eq(ud_recv_one(&p), 0x1000 * (i + 1) + 1);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	ud_close(&p);
}
END_TEST

/* Another user's process on the same address and port: refused
 * (SO_REUSEPORT groups are per owner), EADDRINUSE. */
START_TEST(another_user_is_refused)
{
	static struct ud_end p;
	int status;
	pid_t pid;

	if (geteuid() != 0) {
		check_skip("not root: cannot run a process as another user");
		return;
	}
	if (!ud_open(&p))
		return;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct end e;
		struct ibv_qp *qp;

		if (setgid(65534) || setuid(65534))
			_exit(2);
		if (!open_end(&e))
			_exit(3);
		qp = make_qp(&e, IBV_QPT_UD);
		_exit(!qp && errno == EADDRINUSE ? 0 : 4);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	ud_close(&p);
}
END_TEST

/* ---- over IPv6 -------------------------------------------------------------------- */

/* The IPv6 tcase's fixture (in the test's child): over ::1, and when
 * root in a network namespace of its own (lo up, which gives it ::1),
 * so that its sockets share no group with other tests' */
static bool isolated;

static void ipv6_setup(void)
{
	over_ipv6 = true;
	if (geteuid() == 0 && !unshare(CLONE_NEWNET)) {
		struct ifreq ifr;
		int fd = socket(AF_INET, SOCK_DGRAM, 0);

		ck_assert_int_ge(fd, 0);
		memset(&ifr, 0, sizeof(ifr));
		strcpy(ifr.ifr_name, "lo");
		ck_assert_int_eq(ioctl(fd, SIOCGIFFLAGS, &ifr), 0);
		ifr.ifr_flags |= IFF_UP;
		ck_assert_int_eq(ioctl(fd, SIOCSIFFLAGS, &ifr), 0);
		close(fd);
		isolated = true;
	}
}

/* AVs over IPv6 that cannot be sent: an sgid and a dgid of two IP
 * versions (EINVAL), and ::1 where another socket, without
 * SO_REUSEPORT, holds UDP 4791 (EADDRINUSE, as the IPv4 address's
 * holder makes ibv_create_qp fail; here the context still opens, on
 * 127.0.0.1) */
START_TEST(ipv6_refusals)
{
	struct sockaddr_in6 six = { .sin6_family = AF_INET6,
				    .sin6_port = htons(UROCE_UDP_PORT),
				    .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct ibv_ah_attr av;
	struct ibv_qp_attr a;
	struct end e;
	int fd, mask;

	if (!open_end(&e))
		return;
	av = av_lo();
	memset(av.grh.dgid.raw, 0, 16);
	av.grh.dgid.raw[10] = av.grh.dgid.raw[11] = 0xff;  /* ::ffff:127.0.0.1 */
	av.grh.dgid.raw[12] = 127;
	av.grh.dgid.raw[15] = 1;
	ck_assert_ptr_null(ibv_create_ah(e.pd, &av));
	ck_assert_int_eq(errno, EINVAL);
	av = av_lo();
	av.grh.sgid_index = 1;                              /* 127.0.0.1 to ::1 */
	ck_assert_ptr_null(ibv_create_ah(e.pd, &av));
	ck_assert_int_eq(errno, EINVAL);
	if (!isolated) {
		close_end(&e);
		check_skip("not root: no network namespace of its own to hold [::1]:4791 in");
		return;
	}
	fd = socket(AF_INET6, SOCK_DGRAM, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&six, sizeof(six)), 0);
	e.qp = make_qp(&e, IBV_QPT_RC);
	ck_assert_ptr_nonnull(e.qp);
	to_init(e.qp);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.ah_attr = av_lo();
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = e.qp->qp_num;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
	       IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	ck_assert_int_eq(ibv_modify_qp(e.qp, &a, mask), EADDRINUSE);
	ck_assert_int_eq(state_of(e.qp), IBV_QPS_INIT);
	av = av_lo();
	ck_assert_ptr_null(ibv_create_ah(e.pd, &av));
	ck_assert_int_eq(errno, EADDRINUSE);
	close_end(&e);
	close(fd);
}
END_TEST

static Suite *make_uroce_qp_suite(void)
{
	Suite *s = suite_create("uroce_qp");
	TCase *tc;

	tc = tcase_create("states");
	tcase_add_test(tc, create_refusals);
	tcase_add_test(tc, state_machine_refusals);
	tcase_add_test(tc, ud_transitions);
	suite_add_tcase(s, tc);

	tc = tcase_create("data");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, ud_send_recv_with_grh);
	tcase_add_test(tc, rc_send_and_write);
	tcase_add_test(tc, rc_read);
	tcase_add_test(tc, rc_atomics);
	tcase_add_test(tc, rd_atomic_resources);
	tcase_add_test(tc, srq_shared_by_two_qps);
	tcase_add_test(tc, inline_on_a_qp_without_send_sges);
	tcase_add_test(tc, rc_retry_exceeded);
	tcase_add_test(tc, rc_rnr_retry);
	suite_add_tcase(s, tc);

	tc = tcase_create("progress");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, progress_thread_lifecycle);
	suite_add_tcase(s, tc);

	tc = tcase_create("demux");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, two_contexts_each_get_their_own);
	tcase_add_test(tc, two_processes_each_get_their_own);
	tcase_add_test(tc, a_socket_that_moved_still_gets_its_own);
	tcase_add_test(tc, packets_during_a_join_still_get_their_own);
	tcase_add_test(tc, bad_packets_are_counted_and_dropped);
	tcase_add_test(tc, another_user_is_refused);
	suite_add_tcase(s, tc);

	tc = tcase_create("ipv6");
	tcase_set_timeout(tc, 20);
	tcase_add_checked_fixture(tc, ipv6_setup, NULL);
	tcase_add_test(tc, ud_send_recv_with_grh);
	tcase_add_test(tc, rc_send_and_write);
	tcase_add_test(tc, rc_read);
	tcase_add_test(tc, rc_atomics);
	tcase_add_test(tc, two_contexts_each_get_their_own);
	tcase_add_test(tc, a_socket_that_moved_still_gets_its_own);
	tcase_add_test(tc, ipv6_refusals);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	uroce_isolate();
	return check_run(make_uroce_qp_suite());
}
