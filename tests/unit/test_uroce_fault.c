/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* SOFTVERBS_UROCE_FAULTS and SOFTVERBS_UROCE_PCAP on the host, over lo
 * (issue 39): the value's parser and its complaints; one seed, one
 * sequence of fates, on the wire too; each fault seen from a receiving QP (UD: a lost,
 * corrupted, duplicated, reordered and delayed message); RC under
 * loss=1 ends in IBV_WC_RETRY_EXC_ERR, and with no receive posted in
 * IBV_WC_RNR_RETRY_EXC_ERR under the other faults; a capture has every packet sent
 * and received, mode 0600, and no capture through a symbolic link; a
 * privileged process (AT_SECURE) takes neither variable. Each test runs
 * in a child of its own (Check's fork mode), so its environment is its
 * own. */
#include "config.h"

#include <check.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "../check_main.h"
#include "uroce_isolate.h"
#include "env.h"
#include "log.h"
#include "uroce.h"

#define TIMEOUT_MS 3000
#define ONE (1ull << 32)

/* ---- the value and the generator ---------------------------------------------- */

/* What the parser complains of, as written to stderr */
static int parse_capturing(const char *value, struct uroce_fault_conf *conf,
			   char *out, size_t cap)
{
	FILE *tmp = tmpfile();
	int saved = dup(2), ret;
	size_t n;

	ck_assert_ptr_nonnull(tmp);
	fflush(stderr);
	dup2(fileno(tmp), 2);
	ret = uroce_fault_parse(value, conf);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(out, 1, cap - 1, tmp);
	out[n] = '\0';
	fclose(tmp);
	return ret;
}

START_TEST(parse_values)
{
	struct uroce_fault_conf c;
	char out[1024];

	ck_assert_int_eq(parse_capturing("loss=0.01,dup=.5,reorder=1,corrupt=0,delay=250,seed=42",
					 &c, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "");
	ck_assert_uint_eq(c.loss, (ONE + 50) / 100);
	ck_assert_uint_eq(c.dup, ONE / 2);
	ck_assert_uint_eq(c.reorder, ONE);
	ck_assert_uint_eq(c.corrupt, 0);
	ck_assert_uint_eq(c.delay_us, 250);
	ck_assert_uint_eq(c.seed, 42);
	ck_assert_int_eq(uroce_fault_parse("delay=0", &c), 0);
	ck_assert_uint_eq(c.seed, 1);   /* the default */
	ck_assert_int_eq(uroce_fault_parse("loss=1.000", &c), 0);
	ck_assert_uint_eq(c.loss, ONE);
}
END_TEST

START_TEST(parse_refusals)
{
	static const struct {
		const char *value, *named;
	} bad[] = {
		{ "loss", "\"loss\" is not NAME=VALUE" },
		{ "loss=1.5", "\"loss=1.5\": loss wants a probability" },
		{ "loss=-0.1", "\"loss=-0.1\"" },
		{ "loss=0.1x", "\"loss=0.1x\"" },
		{ "loss=1e-3", "\"loss=1e-3\"" },
		{ "loss=", "\"loss=\"" },
		{ "drop=0.1", "no fault \"drop\"" },
		{ "loss=0.1,loss=0.2", "loss given twice" },
		{ "delay=abc", "\"delay=abc\": delay wants microseconds" },
		{ "delay=10000001", "\"delay=10000001\"" },
		{ "seed=18446744073709551616", "\"seed=18446744073709551616\"" },
		{ "loss=0.1,", "\"\" is not NAME=VALUE" },
		/* what comes from outside is escaped in the log */
		{ "loss=0\n* * * root", "loss=0\\n* * * root" },
	};
	struct uroce_fault_conf c;
	char out[1024];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(parse_capturing(bad[i].value, &c, out, sizeof(out)),
				 EINVAL);
		ck_assert_msg(strstr(out, "SOFTVERBS_UROCE_FAULTS") &&
			      strstr(out, bad[i].named) &&
			      strstr(out, "the variable is ignored"),
			      "%s: %s", bad[i].value, out);
		/* one line */
		ck_assert_ptr_eq(strchr(out, '\n'), out + strlen(out) - 1);
	}
}
END_TEST

START_TEST(same_seed_same_faults)
{
	struct uroce_fault_conf c;
	struct uroce_fault_rng a, b, other_seed, other_ctx;
	unsigned int n[16] = { 0 }, diff_seed = 0, diff_ctx = 0;
	const unsigned int draws = 100000;

	ck_assert_int_eq(uroce_fault_parse("loss=0.1,corrupt=0.2,dup=0.3,reorder=0.4", &c), 0);
	uroce_fault_rng_seed(&a, 7, 0);
	uroce_fault_rng_seed(&b, 7, 0);
	uroce_fault_rng_seed(&other_seed, 8, 0);
	uroce_fault_rng_seed(&other_ctx, 7, 1);
	for (unsigned int i = 0; i < draws; i++) {
		uint32_t bit_a, bit_b, bit;
		unsigned int m = uroce_fault_decide(&c, &a, &bit_a);

		ck_assert_uint_eq(uroce_fault_decide(&c, &b, &bit_b), m);
		ck_assert_uint_eq(bit_a, bit_b);
		diff_seed += uroce_fault_decide(&c, &other_seed, &bit) != m;
		diff_ctx += uroce_fault_decide(&c, &other_ctx, &bit) != m;
		n[m]++;
	}
	/* another seed, another context: other sequences */
	ck_assert_uint_gt(diff_seed, draws / 4);
	ck_assert_uint_gt(diff_ctx, draws / 4);
	/* a lost packet meets nothing else; the rest at their rates
	 * (within 5 standard deviations) */
	{
		unsigned int lost = n[UROCE_FAULT_LOSS], kept = draws - lost;
		unsigned int corrupt = 0, dup = 0, reorder = 0;

		for (unsigned int m = 0; m < 16; m++) {
			if (m & UROCE_FAULT_LOSS) {
				ck_assert_msg(m == UROCE_FAULT_LOSS || !n[m], "mask %u", m);
				continue;
			}
			corrupt += m & UROCE_FAULT_CORRUPT ? n[m] : 0;
			dup += m & UROCE_FAULT_DUP ? n[m] : 0;
			reorder += m & UROCE_FAULT_REORDER ? n[m] : 0;
		}
		ck_assert_uint_lt(abs((int)lost - 10000), 500);
		ck_assert_uint_lt(abs((int)corrupt - (int)(kept * 0.2)), 700);
		ck_assert_uint_lt(abs((int)dup - (int)(kept * 0.3)), 800);
		ck_assert_uint_lt(abs((int)reorder - (int)(kept * 0.4)), 800);
	}
	/* probabilities 0 and 1 are never and always */
	ck_assert_int_eq(uroce_fault_parse("loss=0,dup=1", &c), 0);
	for (unsigned int i = 0; i < 1000; i++) {
		uint32_t bit;

		ck_assert_uint_eq(uroce_fault_decide(&c, &a, &bit), UROCE_FAULT_DUP);
	}
}
END_TEST

/* ---- on lo ------------------------------------------------------------------------ */

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

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A context with two QPs of one type, a CQ each, connected (RC) or with
 * an AH to lo (UD), and a buffer */
struct pair {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq[2];
	struct ibv_qp *qp[2];
	struct ibv_mr *mr;
	struct ibv_ah *ah;
	unsigned int next_slot;
	/* messages sent from [0, 32 KiB), 4 KiB each (WR i of a chain at
	 * i % 8), received into 16 slots of 2 KiB above */
	uint8_t buf[65536];
};
#define SEND_SLOT(p, i) ((p)->buf + ((i) % 8) * 4096)
#define RECV_SLOT(p, k) ((p)->buf + 32768 + (k) * 2048)

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

/* the RC QPs' rnr_retry (7: for ever); a case that changes it does so
 * in its own child (Check's fork mode) */
static uint8_t rnr_retry = 7;

static void to_rts(struct ibv_qp *qp, uint32_t dest_qpn, uint8_t retry_cnt)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
	bool rc = qp->qp_type == IBV_QPT_RC;

	if (rc) {
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
		mask |= IBV_QP_ACCESS_FLAGS;
	} else {
		a.qkey = 0x11111111;
		mask |= IBV_QP_QKEY;
	}
	ck_assert_int_eq(ibv_modify_qp(qp, &a, mask), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	mask = IBV_QP_STATE;
	if (rc) {
		a.ah_attr = av_lo();
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = dest_qpn;
		a.rq_psn = 100;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 12;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	}
	ck_assert_int_eq(ibv_modify_qp(qp, &a, mask), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 100;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (rc) {
		a.timeout = 14;
		a.retry_cnt = retry_cnt;
		a.rnr_retry = rnr_retry;
		a.max_rd_atomic = 1;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	ck_assert_int_eq(ibv_modify_qp(qp, &a, mask), 0);
}

static bool pair_open(struct pair *p, enum ibv_qp_type type, uint8_t retry_cnt)
{
	struct ibv_device *dev = uroce0();
	struct ibv_ah_attr av = av_lo();

	memset(p, 0, sizeof(*p) - sizeof(p->buf));
	if (!dev) {
		check_skip("no interface lo here: uroce0 cannot be listed");
		return false;
	}
	p->ctx = ibv_open_device(dev);
	ck_assert_ptr_nonnull(p->ctx);
	p->pd = ibv_alloc_pd(p->ctx);
	ck_assert_ptr_nonnull(p->pd);
	p->mr = ibv_reg_mr(p->pd, p->buf, sizeof(p->buf), IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(p->mr);
	for (int i = 0; i < 2; i++) {
		struct ibv_qp_init_attr ia = {
			.qp_type = type,
			.cap = { .max_send_wr = 16, .max_recv_wr = 16,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		};

		p->cq[i] = ibv_create_cq(p->ctx, 64, NULL, NULL, 0);
		ck_assert_ptr_nonnull(p->cq[i]);
		ia.send_cq = ia.recv_cq = p->cq[i];
		p->qp[i] = ibv_create_qp(p->pd, &ia);
		ck_assert_ptr_nonnull(p->qp[i]);
	}
	to_rts(p->qp[0], p->qp[1]->qp_num, retry_cnt);
	to_rts(p->qp[1], p->qp[0]->qp_num, retry_cnt);
	if (type == IBV_QPT_UD) {
		p->ah = ibv_create_ah(p->pd, &av);
		ck_assert_ptr_nonnull(p->ah);
	}
	return true;
}

static void pair_close(struct pair *p)
{
	if (p->ah)
		ck_assert_int_eq(ibv_destroy_ah(p->ah), 0);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(ibv_destroy_qp(p->qp[i]), 0);
		ck_assert_int_eq(ibv_destroy_cq(p->cq[i]), 0);
	}
	ck_assert_int_eq(ibv_dereg_mr(p->mr), 0);
	ck_assert_int_eq(ibv_dealloc_pd(p->pd), 0);
	ck_assert_int_eq(ibv_close_device(p->ctx), 0);
}

/* QP 0 sends n messages of len bytes to QP 1, in one chain of WRs
 * (SEND WITH IMMEDIATE imm0, imm0 + 1, ...) */
static void send_msgs(struct pair *p, uint32_t len, int n, uint32_t imm0)
{
	struct ibv_sge sge[16];
	struct ibv_send_wr wr[16], *bad;

	ck_assert_int_le(n, 16);
	ck_assert_uint_le(len, 4096);
	memset(wr, 0, sizeof(wr));
	for (int i = 0; i < n; i++) {
		sge[i] = (struct ibv_sge){ .addr = (uintptr_t)SEND_SLOT(p, i),
					   .length = len, .lkey = p->mr->lkey };
		wr[i].wr_id = imm0 + (uint64_t)i;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_SEND_WITH_IMM;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].imm_data = htobe32(imm0 + (uint32_t)i);
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
		if (p->ah) {
			wr[i].wr.ud.ah = p->ah;
			wr[i].wr.ud.remote_qpn = p->qp[1]->qp_num;
			wr[i].wr.ud.remote_qkey = 0x11111111;
		}
	}
	ck_assert_int_eq(ibv_post_send(p->qp[0], wr, &bad), 0);
}

static void post_recvs(struct pair *p, int n)
{
	for (int i = 0; i < n; i++) {
		unsigned int k = p->next_slot++ % 16;
		struct ibv_sge sge = { .addr = (uintptr_t)RECV_SLOT(p, k),
				       .length = 2048, .lkey = p->mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = k, .sg_list = &sge,
					  .num_sge = 1 }, *bad;

		ck_assert_int_eq(ibv_post_recv(p->qp[1], &wr, &bad), 0);
	}
}

/* A completion of cq within ms (false when none came) */
static bool poll_one(struct ibv_cq *cq, struct ibv_wc *wc, long ms)
{
	long end = now_ms() + ms;

	for (;;) {
		int n = ibv_poll_cq(cq, 1, wc);

		ck_assert_int_ge(n, 0);
		if (n)
			return true;
		if (now_ms() >= end)
			return false;
		usleep(200);
	}
}

/* QP 0's send completions, n of them, successful */
static void sends_done(struct pair *p, int n)
{
	struct ibv_wc wc;

	for (int i = 0; i < n; i++) {
		ck_assert_msg(poll_one(p->cq[0], &wc, TIMEOUT_MS), "no send completion");
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	}
}

/* The immediates QP 1 receives until ms pass without one (and the
 * receive slots they went to, when slot is not NULL); their count */
static int recv_msgs(struct pair *p, uint32_t *imm, unsigned int *slot,
		     int max, long ms)
{
	struct ibv_wc wc;
	int n = 0;

	while (poll_one(p->cq[1], &wc, ms)) {
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		ck_assert_int_eq(wc.opcode, IBV_WC_RECV);
		ck_assert_int_lt(n, max);
		if (slot)
			slot[n] = (unsigned int)wc.wr_id;
		imm[n++] = be32toh(wc.imm_data);
	}
	return n;
}

static int recv_imms(struct pair *p, uint32_t *imm, int max, long ms)
{
	return recv_msgs(p, imm, NULL, max, ms);
}

static void fill(uint8_t *b, size_t len, uint32_t seed)
{
	for (size_t i = 0; i < len; i++)
		b[i] = (uint8_t)(i * 13 + seed * 101 + (i >> 8));
}

START_TEST(ud_loss_and_corrupt)
{
	struct pair p;
	uint32_t imm[8];

	setenv("SOFTVERBS_UROCE_FAULTS", "loss=1", 1);
	if (!pair_open(&p, IBV_QPT_UD, 0))
		return;
	post_recvs(&p, 4);
	send_msgs(&p, 64, 1, 1);
	sends_done(&p, 1);
	ck_assert_int_eq(recv_imms(&p, imm, 8, 200), 0);
	pair_close(&p);

	/* a corrupted packet fails the receiver's ICRC check: counted,
	 * never completed */
	setenv("SOFTVERBS_UROCE_FAULTS", "corrupt=1", 1);
	ck_assert(pair_open(&p, IBV_QPT_UD, 0));
	post_recvs(&p, 4);
	send_msgs(&p, 1000, 3, 0);
	sends_done(&p, 3);
	ck_assert_int_eq(recv_imms(&p, imm, 8, 200), 0);
	ck_assert_uint_eq(uroce_net_drops(to_uroce_context(p.ctx), UROCE_DROP_ICRC), 3);
	pair_close(&p);
}
END_TEST

START_TEST(ud_dup_reorder_delay)
{
	struct pair p;
	uint32_t imm[16];
	long t0;

	setenv("SOFTVERBS_UROCE_FAULTS", "dup=1", 1);
	if (!pair_open(&p, IBV_QPT_UD, 0))
		return;
	post_recvs(&p, 8);
	send_msgs(&p, 64, 2, 1);
	sends_done(&p, 2);
	ck_assert_int_eq(recv_imms(&p, imm, 16, 200), 4);
	ck_assert_uint_eq(imm[0], 1);
	ck_assert_uint_eq(imm[1], 1);
	ck_assert_uint_eq(imm[2], 2);
	ck_assert_uint_eq(imm[3], 2);
	pair_close(&p);

	/* every packet held back: each goes after the next one, so pairs
	 * swap; the last one alone leaves after its wait (5 ms) */
	setenv("SOFTVERBS_UROCE_FAULTS", "reorder=1", 1);
	ck_assert(pair_open(&p, IBV_QPT_UD, 0));
	post_recvs(&p, 8);
	send_msgs(&p, 64, 5, 1);
	sends_done(&p, 5);
	ck_assert_int_eq(recv_imms(&p, imm, 16, 200), 5);
	ck_assert_uint_eq(imm[0], 2);
	ck_assert_uint_eq(imm[1], 1);
	ck_assert_uint_eq(imm[2], 4);
	ck_assert_uint_eq(imm[3], 3);
	ck_assert_uint_eq(imm[4], 5);
	pair_close(&p);

	/* 300 ms on the way, in order; the progress thread sends them (UD
	 * has no timers to wake it) */
	setenv("SOFTVERBS_UROCE_FAULTS", "delay=300000", 1);
	ck_assert(pair_open(&p, IBV_QPT_UD, 0));
	post_recvs(&p, 8);
	t0 = now_ms();
	send_msgs(&p, 64, 3, 1);
	ck_assert_int_eq(recv_imms(&p, imm, 16, 100), 0);
	ck_assert_int_eq(recv_imms(&p, imm, 16, 1000), 3);
	ck_assert_int_ge(now_ms() - t0, 300);
	for (uint32_t i = 0; i < 3; i++)
		ck_assert_uint_eq(imm[i], i + 1);
	sends_done(&p, 3);
	pair_close(&p);
}
END_TEST

/* The fates on the wire are the generator's: the first context of a
 * process (number 0) with seed 5 loses exactly the UD messages the
 * generator says, whichever run */
START_TEST(ud_losses_are_the_seeds)
{
	struct uroce_fault_conf c;
	struct uroce_fault_rng rng;
	struct pair p;
	uint32_t imm[16];
	int n, want = 0, lost = 0;

	setenv("SOFTVERBS_UROCE_FAULTS", "loss=0.5,seed=5", 1);
	if (!pair_open(&p, IBV_QPT_UD, 0))
		return;
	post_recvs(&p, 16);
	send_msgs(&p, 64, 16, 0);
	sends_done(&p, 16);
	n = recv_imms(&p, imm, 16, 200);
	pair_close(&p);
	ck_assert_int_eq(uroce_fault_parse("loss=0.5,seed=5", &c), 0);
	uroce_fault_rng_seed(&rng, 5, 0);
	for (uint32_t i = 0; i < 16; i++) {
		uint32_t bit;

		if (uroce_fault_decide(&c, &rng, &bit) & UROCE_FAULT_LOSS) {
			lost++;
			continue;
		}
		ck_assert_int_lt(want, n);
		ck_assert_uint_eq(imm[want], i);
		want++;
	}
	ck_assert_int_eq(n, want);
	/* the seed makes a mixed sequence: something lost, something not */
	ck_assert_int_gt(lost, 0);
	ck_assert_int_gt(want, 0);
}
END_TEST

/* Every packet lost: an RC send is sent again retry_cnt times, then
 * completes with RETRY_EXC_ERR */
START_TEST(rc_loss_all_retry_exceeded)
{
	struct pair p;
	struct ibv_wc wc;

	setenv("SOFTVERBS_UROCE_FAULTS", "loss=1", 1);
	if (!pair_open(&p, IBV_QPT_RC, 1))
		return;
	post_recvs(&p, 1);
	send_msgs(&p, 64, 1, 9);
	ck_assert(poll_one(p.cq[0], &wc, TIMEOUT_MS));
	ck_assert_uint_eq(wc.wr_id, 9);
	ck_assert_int_eq(wc.status, IBV_WC_RETRY_EXC_ERR);
	ck_assert(!poll_one(p.cq[1], &wc, 50));
	pair_close(&p);
}
END_TEST

/* No receive posted, rnr_retry 1, every packet duplicated and delayed,
 * half of them reordered: the send ends in RNR_RETRY_EXC_ERR, as on rxe (the faults
 * turn it into neither a success nor a RETRY_EXC_ERR), and the receiver
 * completes nothing */
START_TEST(rc_rnr_exceeded_under_faults)
{
	struct pair p;
	struct ibv_wc wc;

	setenv("SOFTVERBS_UROCE_FAULTS", "dup=1,reorder=0.5,delay=200,seed=11", 1);
	rnr_retry = 1;
	if (!pair_open(&p, IBV_QPT_RC, 7))
		return;
	send_msgs(&p, 64, 1, 21);
	ck_assert(poll_one(p.cq[0], &wc, TIMEOUT_MS));
	ck_assert_uint_eq(wc.wr_id, 21);
	ck_assert_int_eq(wc.status, IBV_WC_RNR_RETRY_EXC_ERR);
	ck_assert(!poll_one(p.cq[1], &wc, 50));
	pair_close(&p);
}
END_TEST

/* RC under every fault at once: 24 messages of 2 packets arrive
 * whole, in order, byte for byte */
START_TEST(rc_recovers)
{
	enum { LEN = 2000 };
	struct pair p;
	uint32_t imm[8];
	unsigned int slot[8];
	uint8_t want[LEN];

	setenv("SOFTVERBS_UROCE_FAULTS",
	       "loss=0.1,corrupt=0.1,dup=0.1,reorder=0.1,delay=100,seed=3", 1);
	if (!pair_open(&p, IBV_QPT_RC, 7))
		return;
	for (uint32_t batch = 0; batch < 3; batch++) {
		for (uint32_t i = 0; i < 8; i++)
			fill(SEND_SLOT(&p, i), LEN, batch * 8 + i);
		post_recvs(&p, 8);
		send_msgs(&p, LEN, 8, batch * 8);
		sends_done(&p, 8);
		ck_assert_int_eq(recv_msgs(&p, imm, slot, 8, 100), 8);
		for (uint32_t i = 0; i < 8; i++) {
			ck_assert_uint_eq(imm[i], batch * 8 + i);
			fill(want, LEN, imm[i]);
			ck_assert_msg(!memcmp(RECV_SLOT(&p, slot[i]), want, LEN),
				      "message %u damaged", imm[i]);
		}
	}
	pair_close(&p);
}
END_TEST

/* ---- the capture ------------------------------------------------------------------ */

static int count_records(const char *path, uint32_t *linktype)
{
	FILE *f = fopen(path, "rb");
	uint32_t fh[6], rh[4];
	uint8_t rec[70000];
	int n = 0;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fread(fh, 4, 6, f), 6);
	ck_assert_uint_eq(fh[0], 0xa1b2c3d4);
	*linktype = fh[5];
	while (fread(rh, 4, 4, f) == 4) {
		ck_assert_uint_le(rh[2], sizeof(rec));
		ck_assert_int_eq(fread(rec, 1, rh[2], f), rh[2]);
		/* IPv4, UDP to 4791, then a BTH */
		ck_assert_uint_eq(rec[0], 0x45);
		ck_assert_uint_eq(rec[9], 17);
		ck_assert_uint_eq(rec[22] << 8 | rec[23], 4791);
		n++;
	}
	fclose(f);
	return n;
}

START_TEST(pcap_has_every_packet)
{
	char dir[] = "/tmp/test_uroce_fault.XXXXXX", path[128], tmpl[128];
	char link_path[160], target[160];
	struct pair p;
	struct stat st;
	uint32_t imm[8], linktype;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(tmpl, sizeof(tmpl), "%s/cap.%%p", dir);
	snprintf(path, sizeof(path), "%s/cap.%d", dir, (int)getpid());
	setenv("SOFTVERBS_UROCE_PCAP", tmpl, 1);
	setenv("SOFTVERBS_UROCE_FAULTS", "dup=1", 1);
	if (!pair_open(&p, IBV_QPT_UD, 0))
		return;
	post_recvs(&p, 8);
	send_msgs(&p, 100, 3, 0);
	sends_done(&p, 3);
	ck_assert_int_eq(recv_imms(&p, imm, 8, 200), 6);
	pair_close(&p);
	/* 6 sent (3 twice), 6 received: one context does both */
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	ck_assert_int_eq(count_records(path, &linktype), 12);
	ck_assert_uint_eq(linktype, 101);

	/* the process's next capture takes a suffix; a symbolic link in its
	 * place is not followed */
	snprintf(link_path, sizeof(link_path), "%s.1", path);
	snprintf(target, sizeof(target), "%s/target", dir);
	ck_assert_int_eq(symlink(target, link_path), 0);
	unsetenv("SOFTVERBS_UROCE_FAULTS");
	ck_assert(pair_open(&p, IBV_QPT_UD, 0));
	post_recvs(&p, 2);
	send_msgs(&p, 100, 1, 1);
	sends_done(&p, 1);
	ck_assert_int_eq(recv_imms(&p, imm, 8, 100), 1);
	pair_close(&p);
	ck_assert_int_eq(access(target, F_OK), -1);
	ck_assert_int_eq(lstat(link_path, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	unlink(link_path);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* ---- a privileged process ----------------------------------------------------------- */

START_TEST(privileged_takes_neither)
{
	char dir[] = "/tmp/test_uroce_fault.XXXXXX", path[128];
	struct pair p;
	uint32_t imm[8];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/cap", dir);
	setenv("SOFTVERBS_UROCE_PCAP", path, 1);
	setenv("SOFTVERBS_UROCE_FAULTS", "loss=1", 1);
	/* the device list needs SOFTVERBS_UROCE, which a privileged
	 * process ignores too: listed first, then privileged */
	if (!uroce0()) {
		check_skip("no interface lo here: uroce0 cannot be listed");
		return;
	}
	sv_env_force_secure(1);
	ck_assert(pair_open(&p, IBV_QPT_UD, 0));
	post_recvs(&p, 2);
	send_msgs(&p, 100, 1, 5);
	sends_done(&p, 1);
	ck_assert_int_eq(recv_imms(&p, imm, 8, 500), 1);
	ck_assert_uint_eq(imm[0], 5);
	pair_close(&p);
	sv_env_force_secure(-1);
	ck_assert_int_eq(access(path, F_OK), -1);
	rmdir(dir);
}
END_TEST

static Suite *make_uroce_fault_suite(void)
{
	Suite *s = suite_create("uroce_fault");
	TCase *tc = tcase_create("values");

	tcase_add_test(tc, parse_values);
	tcase_add_test(tc, parse_refusals);
	tcase_add_test(tc, same_seed_same_faults);
	suite_add_tcase(s, tc);
	tc = tcase_create("lo");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, ud_loss_and_corrupt);
	tcase_add_test(tc, ud_dup_reorder_delay);
	tcase_add_test(tc, ud_losses_are_the_seeds);
	tcase_add_test(tc, rc_loss_all_retry_exceeded);
	tcase_add_test(tc, rc_rnr_exceeded_under_faults);
	tcase_add_test(tc, rc_recovers);
	tcase_add_test(tc, pcap_has_every_packet);
	tcase_add_test(tc, privileged_takes_neither);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	uroce_isolate();
	return check_run(make_uroce_fault_suite());
}
