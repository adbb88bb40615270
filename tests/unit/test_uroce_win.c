/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* uroce's RC requester windows on the host, over lo (SOFTVERBS_UROCE=lo;
 * no VM, no root): rxe's 128 unacknowledged PSNs (8 MiB messages arrive
 * whole, the socket drops nothing, the requester never runs ahead), the
 * max_rd_atomic window (more READs than it allows complete, in order,
 * with their data), IBV_SEND_FENCE (a SEND behind a READ into its
 * buffer carries what the READ brought), and a peer that never answers
 * (RETRY_EXC_ERR, the rest flushed, no async event: rxe raises none). */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "../check_main.h"
#include "uroce_isolate.h"
#include "uroce.h"

#define TIMEOUT_MS 30000

struct end {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *a, *b;          /* connected to each other */
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

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static struct ibv_ah_attr av_lo(void)
{
	struct ibv_ah_attr av = { .is_global = 1, .port_num = 1 };

	av.grh.sgid_index = 1; /* ::ffff:127.0.0.1 on lo */
	av.grh.hop_limit = 64;
	av.grh.dgid.raw[10] = av.grh.dgid.raw[11] = 0xff;
	av.grh.dgid.raw[12] = 127;
	av.grh.dgid.raw[15] = 1;
	return av;
}

static struct ibv_qp *rc_qp(struct end *e)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = e->cq,
		.recv_cq = e->cq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 2, .max_recv_sge = 2 },
	};
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
						    IBV_ACCESS_REMOTE_READ };
	struct ibv_qp *qp = ibv_create_qp(e->pd, &ia);

	ck_assert_ptr_nonnull(qp);
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
						      IBV_QP_PORT | IBV_QP_ACCESS_FLAGS),
			 0);
	return qp;
}

static void rc_connect(struct ibv_qp *qp, uint32_t dest_qpn, enum ibv_mtu mtu,
		       uint8_t retry_cnt, uint8_t max_rd_atomic, uint8_t timeout)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTR };

	a.ah_attr = av_lo();
	a.path_mtu = mtu;
	a.dest_qp_num = dest_qpn;
	a.rq_psn = 0xfffff0; /* the PSNs wrap during the test */
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = 1;
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
						      IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
						      IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
						      IBV_QP_MIN_RNR_TIMER),
			 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0xfffff0;
	a.timeout = timeout; /* 14: 67 ms; 0: no retransmit timer */
	a.retry_cnt = retry_cnt;
	a.rnr_retry = 7;
	a.max_rd_atomic = max_rd_atomic;
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
						      IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
						      IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC),
			 0);
}

/* A context with a connected pair of RC QPs (path MTU mtu, a's
 * max_rd_atomic rd, retry_cnt retry and Local ACK Timeout timeout), or
 * false (the test skips) without lo. */
static bool open_pair_timeout(struct end *e, enum ibv_mtu mtu, uint8_t rd,
			      uint8_t retry, uint8_t timeout)
{
	struct ibv_device *dev = uroce0();

	memset(e, 0, sizeof(*e));
	if (!dev) {
		check_skip("no interface lo here: uroce0 cannot be listed");
		return false;
	}
	e->ctx = ibv_open_device(dev);
	ck_assert_ptr_nonnull(e->ctx);
	e->pd = ibv_alloc_pd(e->ctx);
	ck_assert_ptr_nonnull(e->pd);
	e->cq = ibv_create_cq(e->ctx, 256, NULL, NULL, 0);
	ck_assert_ptr_nonnull(e->cq);
	e->a = rc_qp(e);
	e->b = rc_qp(e);
	rc_connect(e->a, e->b->qp_num, mtu, retry, rd, timeout);
	rc_connect(e->b, e->a->qp_num, mtu, 7, 16, 14);
	return true;
}

static bool open_pair(struct end *e, enum ibv_mtu mtu, uint8_t rd,
		      uint8_t retry)
{
	return open_pair_timeout(e, mtu, rd, retry, 14);
}

static void close_pair(struct end *e)
{
	if (e->a)
		ck_assert_int_eq(ibv_destroy_qp(e->a), 0);
	if (e->b)
		ck_assert_int_eq(ibv_destroy_qp(e->b), 0);
	ck_assert_int_eq(ibv_destroy_cq(e->cq), 0);
	ck_assert_int_eq(ibv_dealloc_pd(e->pd), 0);
	ck_assert_int_eq(ibv_close_device(e->ctx), 0);
}

static void fill(uint8_t *p, size_t len, unsigned int seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 7 + seed + (i >> 12));
}

static void post(struct ibv_qp *qp, enum ibv_wr_opcode op, struct ibv_mr *mr,
		 void *buf, uint32_t len, void *raddr, uint32_t rkey,
		 uint64_t wr_id, unsigned int flags)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = len,
			       .lkey = mr->lkey };
	struct ibv_send_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
				  .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED | flags }, *bad;

	wr.wr.rdma.remote_addr = (uintptr_t)raddr;
	wr.wr.rdma.rkey = rkey;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), 0);
}

static void post_recv(struct ibv_qp *qp, struct ibv_mr *mr, void *buf,
		      uint32_t len, uint64_t wr_id)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = len,
			       .lkey = mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 },
			   *bad;

	ck_assert_int_eq(ibv_post_recv(qp, &wr, &bad), 0);
}

/* What a's requester holds while a test waits (white-box, under the
 * QP's lock): the PSNs between the oldest unacknowledged one and the
 * next to send, and the READ/atomic WQEs sent and not complete. */
struct snoop {
	int32_t max_unacked;
	uint32_t max_reads;
};

static void snoop(struct ibv_qp *ibqp, struct snoop *sn)
{
	struct uroce_qp *qp = to_uroce_qp(ibqp);
	uint32_t next, reads = 0;

	pthread_mutex_lock(&qp->lock);
	if (qp->sq_cur == qp->sq_tail) {
		next = qp->sq_psn;
	} else {
		const struct uroce_swqe *w = &qp->sq[qp->sq_cur % qp->sq_slots];

		next = (w->first_psn + qp->cur_pkt) & UROCE_PSN_MASK;
	}
	for (uint32_t i = qp->sq_head; i != qp->sq_cur; i++)
		if (qp->sq[i % qp->sq_slots].opcode == IBV_WR_RDMA_READ)
			reads++;
	if (uroce_psn_diff(next, qp->acked_psn) > sn->max_unacked)
		sn->max_unacked = uroce_psn_diff(next, qp->acked_psn);
	if (reads > sn->max_reads)
		sn->max_reads = reads;
	pthread_mutex_unlock(&qp->lock);
}

/* The next completion within TIMEOUT_MS, snooping on a meanwhile */
static struct ibv_wc wait_wc(struct end *e, struct snoop *sn)
{
	long end = now_ms() + TIMEOUT_MS;
	struct ibv_wc wc;

	for (;;) {
		int n = ibv_poll_cq(e->cq, 1, &wc);

		ck_assert_int_ge(n, 0);
		if (n)
			return wc;
		if (sn)
			snoop(e->a, sn);
		ck_assert_msg(now_ms() < end, "no completion within %d ms", TIMEOUT_MS);
		usleep(100);
	}
}

/* The receive drops the kernel counted on this process's UDP sockets
 * (/proc/net/udp's last column, for the inodes of our descriptors) */
static unsigned long long udp_drops(void)
{
	unsigned long long total = 0;
	char line[512], path[300], link[64];
	unsigned long inodes[64];
	size_t n = 0;
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	FILE *f;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)) && n < 64) {
		ssize_t len;
		unsigned long ino;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		len = readlink(path, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = 0;
		if (sscanf(link, "socket:[%lu]", &ino) == 1)
			inodes[n++] = ino;
	}
	closedir(d);
	f = fopen("/proc/net/udp", "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long ino;
		unsigned long long drops;

		/* sl local rem st tx:rx tr:when retr uid timeout inode ref ptr drops */
		if (sscanf(line, "%*s %*s %*s %*s %*s %*s %*s %*s %*s %lu %*s %*s %llu",
			   &ino, &drops) != 2)
			continue;
		for (size_t i = 0; i < n; i++)
			if (inodes[i] == ino)
				total += drops;
	}
	fclose(f);
	return total;
}

/* ---- the PSN window ---------------------------------------------------------------- */

/* 8 MiB (rxe's largest message) as one RDMA WRITE and one SEND, at
 * path MTUs 4096 and 1024 (2,048 and 8,192 packets): both arrive whole,
 * the requester never has more than 128 PSNs past the oldest
 * unacknowledged one, and the kernel drops nothing on the socket. */
static void big_messages(enum ibv_mtu mtu)
{
	enum { LEN = 8 << 20 };
	struct end e;
	struct ibv_mr *src_mr, *dst_mr;
	uint8_t *src = malloc(LEN), *dst = malloc(LEN);
	struct snoop sn = { 0 };
	unsigned long long drops;
	struct ibv_wc wc;
	bool got_send = false, got_recv = false;

	ck_assert_ptr_nonnull(src);
	ck_assert_ptr_nonnull(dst);
	if (!open_pair(&e, mtu, 16, 7))
		return;
	src_mr = ibv_reg_mr(e.pd, src, LEN, IBV_ACCESS_LOCAL_WRITE);
	dst_mr = ibv_reg_mr(e.pd, dst, LEN, IBV_ACCESS_LOCAL_WRITE |
					     IBV_ACCESS_REMOTE_WRITE);
	ck_assert_ptr_nonnull(src_mr);
	ck_assert_ptr_nonnull(dst_mr);
	drops = udp_drops();

	fill(src, LEN, 1);
	memset(dst, 0, LEN);
	post(e.a, IBV_WR_RDMA_WRITE, src_mr, src, LEN, dst, dst_mr->rkey, 1, 0);
	wc = wait_wc(&e, &sn);
	ck_assert_uint_eq(wc.wr_id, 1);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(memcmp(dst, src, LEN), 0);

	fill(src, LEN, 2);
	post_recv(e.b, dst_mr, dst, LEN, 3);
	post(e.a, IBV_WR_SEND, src_mr, src, LEN, NULL, 0, 2, 0);
	for (int i = 0; i < 2; i++) {
		wc = wait_wc(&e, &sn);
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		if (wc.wr_id == 2) {
			got_send = true;
		} else {
			ck_assert_uint_eq(wc.wr_id, 3);
			ck_assert_uint_eq(wc.byte_len, LEN);
			got_recv = true;
		}
	}
	ck_assert(got_send && got_recv);
	ck_assert_int_eq(memcmp(dst, src, LEN), 0);

	/* the next packet to send is at most one past the window */
	ck_assert_int_le(sn.max_unacked, UROCE_MAX_UNACKED_PSNS + 1);
	ck_assert_int_gt(sn.max_unacked, 0);
	ck_assert_uint_eq(udp_drops(), drops);

	ck_assert_int_eq(ibv_dereg_mr(src_mr), 0);
	ck_assert_int_eq(ibv_dereg_mr(dst_mr), 0);
	close_pair(&e);
	free(src);
	free(dst);
}

START_TEST(eight_mib_messages_mtu_4096)
{
	big_messages(IBV_MTU_4096);
}
END_TEST

START_TEST(eight_mib_messages_mtu_1024)
{
	big_messages(IBV_MTU_1024);
}
END_TEST

/* ---- the READ window ---------------------------------------------------------------- */

/* max_rd_atomic 3 reads back as 4 (rxe keeps the next power of two);
 * 24 READs of 3,000 bytes (3 responses each) and a SEND behind them:
 * never more than 4 READs outstanding, all complete in order, each with
 * its own bytes, the SEND last. */
START_TEST(more_reads_than_max_rd_atomic)
{
	enum { NREAD = 24, LEN = 3000, STRIDE = 4096 };
	struct end e;
	struct ibv_mr *lmr, *rmr;
	uint8_t *local = calloc(NREAD + 1, STRIDE), *remote = malloc(NREAD * STRIDE);
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qia;
	struct snoop sn = { 0 };
	uint64_t next = 0;

	ck_assert_ptr_nonnull(local);
	ck_assert_ptr_nonnull(remote);
	if (!open_pair(&e, IBV_MTU_1024, 3, 7))
		return;
	ck_assert_int_eq(ibv_query_qp(e.a, &qa, IBV_QP_MAX_QP_RD_ATOMIC, &qia), 0);
	ck_assert_uint_eq(qa.max_rd_atomic, 4);
	lmr = ibv_reg_mr(e.pd, local, (NREAD + 1) * STRIDE, IBV_ACCESS_LOCAL_WRITE);
	rmr = ibv_reg_mr(e.pd, remote, NREAD * STRIDE, IBV_ACCESS_REMOTE_READ);
	ck_assert_ptr_nonnull(lmr);
	ck_assert_ptr_nonnull(rmr);
	fill(remote, NREAD * STRIDE, 3);

	post_recv(e.b, lmr, local + NREAD * STRIDE, 64, 100);
	for (int i = 0; i < NREAD; i++)
		post(e.a, IBV_WR_RDMA_READ, lmr, local + i * STRIDE, LEN,
		     remote + i * STRIDE + i, rmr->rkey, (uint64_t)i, 0);
	post(e.a, IBV_WR_SEND, lmr, local, 16, NULL, 0, NREAD, 0);
	snoop(e.a, &sn);
	for (int i = 0; i < NREAD + 2; i++) {
		struct ibv_wc wc = wait_wc(&e, &sn);

		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		if (wc.wr_id == 100)
			continue;
		/* a's completions come in the order of its WQEs */
		ck_assert_uint_eq(wc.wr_id, next);
		next++;
		if (wc.wr_id < NREAD) {
			ck_assert_int_eq(wc.opcode, IBV_WC_RDMA_READ);
			ck_assert_uint_eq(wc.byte_len, LEN);
		}
	}
	ck_assert_uint_eq(next, NREAD + 1);
	for (int i = 0; i < NREAD; i++)
		ck_assert_int_eq(memcmp(local + i * STRIDE, remote + i * STRIDE + i,
					LEN), 0);
	ck_assert_uint_le(sn.max_reads, 4);
	ck_assert_uint_ge(sn.max_reads, 1);

	ck_assert_int_eq(ibv_dereg_mr(lmr), 0);
	ck_assert_int_eq(ibv_dereg_mr(rmr), 0);
	close_pair(&e);
	free(local);
	free(remote);
}
END_TEST

/* ---- fence ---------------------------------------------------------------------------- */

/* A READ fills a buffer, a fenced SEND from that buffer follows at
 * once: the SEND carries what the READ brought (the fence holds it until
 * the READ completed, and its message is read then); the same with a
 * fenced RDMA WRITE. */
START_TEST(fenced_send_carries_what_the_read_brought)
{
	enum { LEN = 20000 };
	struct end e;
	struct ibv_mr *mr;
	uint8_t *buf = calloc(4, LEN);
	uint8_t *remote = buf, *local = buf + LEN, *recv = buf + 2 * LEN,
		*wdst = buf + 3 * LEN;
	uint64_t order[3];
	int n = 0;

	ck_assert_ptr_nonnull(buf);
	if (!open_pair(&e, IBV_MTU_1024, 1, 7))
		return;
	mr = ibv_reg_mr(e.pd, buf, 4 * LEN, IBV_ACCESS_LOCAL_WRITE |
					     IBV_ACCESS_REMOTE_READ |
					     IBV_ACCESS_REMOTE_WRITE);
	ck_assert_ptr_nonnull(mr);
	fill(remote, LEN, 5);
	post_recv(e.b, mr, recv, LEN, 100);
	post(e.a, IBV_WR_RDMA_READ, mr, local, LEN, remote, mr->rkey, 1, 0);
	post(e.a, IBV_WR_SEND, mr, local, LEN, NULL, 0, 2, IBV_SEND_FENCE);
	post(e.a, IBV_WR_RDMA_WRITE, mr, local, LEN, wdst, mr->rkey, 3,
	     IBV_SEND_FENCE);
	for (int i = 0; i < 4; i++) {
		struct ibv_wc wc = wait_wc(&e, NULL);

		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		if (wc.wr_id != 100)
			order[n++] = wc.wr_id;
	}
	ck_assert_int_eq(n, 3);
	ck_assert_uint_eq(order[0], 1);
	ck_assert_uint_eq(order[1], 2);
	ck_assert_uint_eq(order[2], 3);
	ck_assert_int_eq(memcmp(recv, remote, LEN), 0);
	ck_assert_int_eq(memcmp(wdst, remote, LEN), 0);

	/* a fenced SEND whose buffer is not in an MR: LOC_PROT_ERR when it
	 * is sent, the QP in the error state */
	{
		static uint8_t stray[64];
		struct ibv_sge sge = { .addr = (uintptr_t)stray, .length = 64,
				       .lkey = mr->lkey };
		struct ibv_send_wr wr = { .wr_id = 4, .sg_list = &sge, .num_sge = 1,
					  .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED |
							IBV_SEND_FENCE }, *bad;
		struct ibv_wc wc;

		ck_assert_int_eq(ibv_post_send(e.a, &wr, &bad), 0);
		wc = wait_wc(&e, NULL);
		ck_assert_uint_eq(wc.wr_id, 4);
		ck_assert_int_eq(wc.status, IBV_WC_LOC_PROT_ERR);
	}
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	close_pair(&e);
	free(buf);
}
END_TEST

/* ---- a peer that never answers -------------------------------------------------------- */

/* b is destroyed: a's 1 MiB WRITE (more than a window) is sent again
 * twice (retry_cnt 2, 67 ms each), then completes with RETRY_EXC_ERR;
 * the READ and SEND behind it are flushed; the QP is in the error
 * state; and, as on rxe (whose completer moves the QP to the error state
 * without an event), no async event. Destroying the QP at once is safe. */
START_TEST(retry_exhausted_against_a_silent_peer)
{
	enum { LEN = 1 << 20 };
	struct end e;
	struct ibv_mr *mr;
	uint8_t *buf = calloc(2, LEN);
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qia;
	struct pollfd pfd;
	long t0;

	ck_assert_ptr_nonnull(buf);
	if (!open_pair(&e, IBV_MTU_4096, 4, 2))
		return;
	mr = ibv_reg_mr(e.pd, buf, 2 * LEN, IBV_ACCESS_LOCAL_WRITE |
					     IBV_ACCESS_REMOTE_WRITE);
	ck_assert_ptr_nonnull(mr);
	ck_assert_int_eq(ibv_destroy_qp(e.b), 0);
	e.b = NULL;
	t0 = now_ms();
	post(e.a, IBV_WR_RDMA_WRITE, mr, buf, LEN, buf + LEN, mr->rkey, 1, 0);
	post(e.a, IBV_WR_RDMA_READ, mr, buf, 64, buf + LEN, mr->rkey, 2, 0);
	post(e.a, IBV_WR_SEND, mr, buf, 64, NULL, 0, 3, 0);
	for (uint64_t id = 1; id <= 3; id++) {
		struct ibv_wc wc = wait_wc(&e, NULL);

		ck_assert_uint_eq(wc.wr_id, id);
		ck_assert_int_eq(wc.status, id == 1 ? IBV_WC_RETRY_EXC_ERR :
						      IBV_WC_WR_FLUSH_ERR);
	}
	/* three timeouts of 67 ms at least */
	ck_assert_int_ge(now_ms() - t0, 3 * 67);
	ck_assert_int_eq(ibv_query_qp(e.a, &qa, IBV_QP_STATE, &qia), 0);
	ck_assert_int_eq(qa.qp_state, IBV_QPS_ERR);
	pfd = (struct pollfd){ .fd = e.ctx->async_fd, .events = POLLIN };
	ck_assert_int_eq(poll(&pfd, 1, 100), 0);
	ck_assert_int_eq(ibv_destroy_qp(e.a), 0);
	e.a = NULL;
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	close_pair(&e);
	free(buf);
}
END_TEST

/* ---- PSN-sequence NAKs ------------------------------------------------------------- */

/* A PSN-sequence NAK for a's PSN psn, as the progress thread hands it
 * on (white-box: built, parsed, given to the requester under the
 * locks it holds then) */
static void seq_nak(struct end *e, uint32_t psn)
{
	struct uroce_context *ctx = to_uroce_context(e->ctx);
	struct uroce_qp *qp = to_uroce_qp(e->a);
	struct uroce_pkt nak = { 0 }, got;
	uint8_t buf[64];
	int len;

	nak.bth.opcode = UROCE_OP_RC_ACKNOWLEDGE;
	nak.bth.pkey = UROCE_DEF_PKEY;
	nak.bth.dest_qpn = e->a->qp_num;
	nak.bth.psn = psn & UROCE_PSN_MASK;
	nak.aeth.syndrome = UROCE_AETH_NAK_PSN_SEQ_ERROR;
	len = uroce_build(buf, sizeof(buf), &nak, NULL, 0);
	ck_assert_int_gt(len, 0);
	ck_assert_int_eq(uroce_parse(buf, (size_t)len, &got), UROCE_DROP_OK);
	pthread_mutex_lock(&ctx->qp_lock);
	pthread_mutex_lock(&qp->lock);
	uroce_req_ack(qp, &got);
	pthread_mutex_unlock(&qp->lock);
	pthread_mutex_unlock(&ctx->qp_lock);
}

static uint64_t counter(struct end *e, enum uroce_ctr c)
{
	return uroce_ctr_get(to_uroce_context(e->ctx), c);
}

/* A completion of e's CQ now, or none (false) */
static bool polled(struct end *e, struct ibv_wc *wc)
{
	int n = ibv_poll_cq(e->cq, 1, wc);

	ck_assert_int_ge(n, 0);
	return n == 1;
}


/* The NAK cases' start: a pair with retry_cnt, b destroyed (nothing
 * answers but the NAKs the case injects), buf registered, and two SENDs
 * from a (wr_id 1 and 2) of 64 bytes; false when the pair cannot open */
static bool two_sends_to_none(struct end *e, uint8_t retry_cnt, uint8_t *buf,
			      struct ibv_mr **mr)
{
	ck_assert_ptr_nonnull(buf);
	if (!open_pair_timeout(e, IBV_MTU_1024, 1, retry_cnt, 0))
		return false;
	*mr = ibv_reg_mr(e->pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(*mr);
	ck_assert_int_eq(ibv_destroy_qp(e->b), 0);
	e->b = NULL;
	post(e->a, IBV_WR_SEND, *mr, buf, 64, NULL, 0, 1, 0);
	post(e->a, IBV_WR_SEND, *mr, buf, 64, NULL, 0, 2, 0);
	return true;
}
/* As rxe's completer: a PSN-sequence NAK takes one retry from
 * retry_cnt, and at 0 the oldest WQE completes with RETRY_EXC_ERR, the
 * rest flushed, the QP in the error state. b is gone (a's packets reach
 * no QP) and a has no retransmit timer (timeout 0), so only the NAKs
 * below drive a's requester. */
START_TEST(seq_nak_with_retry_cnt_0_retry_exceeded)
{
	struct end e;
	struct ibv_mr *mr;
	uint8_t *buf = calloc(1, 4096);
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qia;
	struct ibv_wc wc;

	if (!two_sends_to_none(&e, 0, buf, &mr))
		return;
	usleep(20000);
	ck_assert(!polled(&e, &wc));
	seq_nak(&e, 0xfffff0); /* the first SEND's PSN (rc_connect) */
	ck_assert(polled(&e, &wc));
	ck_assert_uint_eq(wc.wr_id, 1);
	ck_assert_int_eq(wc.status, IBV_WC_RETRY_EXC_ERR);
	ck_assert(polled(&e, &wc));
	ck_assert_uint_eq(wc.wr_id, 2);
	ck_assert_int_eq(wc.status, IBV_WC_WR_FLUSH_ERR);
	ck_assert_int_eq(ibv_query_qp(e.a, &qa, IBV_QP_STATE, &qia), 0);
	ck_assert_int_eq(qa.qp_state, IBV_QPS_ERR);
	ck_assert_uint_eq(counter(&e, UROCE_CTR_RETRY_EXCEEDED), 1);
	ck_assert_uint_eq(counter(&e, UROCE_CTR_COMP_RETRY), 0);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	close_pair(&e);
	free(buf);
}
END_TEST

/* retry_cnt 1: the first NAK sends again (one retry taken); a second
 * NAK before any ACK starts no retry (rxe's started_retry), so nothing
 * completes; a NAK for the next PSN acknowledges the first SEND (it
 * completes, the retries count again: rcvd_seq_err) and takes the one
 * retry again; a further NAK for it starts none; then an ACK completes
 * the second SEND. */
START_TEST(seq_nak_one_retry_per_ack)
{
	struct end e;
	struct ibv_mr *mr;
	uint8_t *buf = calloc(1, 4096);
	struct ibv_wc wc;

	if (!two_sends_to_none(&e, 1, buf, &mr))
		return;

	seq_nak(&e, 0xfffff0);
	ck_assert(!polled(&e, &wc));
	ck_assert_uint_eq(counter(&e, UROCE_CTR_COMP_RETRY), 1);
	seq_nak(&e, 0xfffff0);
	ck_assert(!polled(&e, &wc));
	ck_assert_uint_eq(counter(&e, UROCE_CTR_COMP_RETRY), 1);
	ck_assert_uint_eq(counter(&e, UROCE_CTR_RCV_SEQ_ERR), 0);

	seq_nak(&e, 0xfffff1);
	ck_assert(polled(&e, &wc));
	ck_assert_uint_eq(wc.wr_id, 1);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert(!polled(&e, &wc));
	ck_assert_uint_eq(counter(&e, UROCE_CTR_RCV_SEQ_ERR), 1);
	ck_assert_uint_eq(counter(&e, UROCE_CTR_COMP_RETRY), 2);
	seq_nak(&e, 0xfffff1);
	ck_assert(!polled(&e, &wc));
	ck_assert_uint_eq(counter(&e, UROCE_CTR_RETRY_EXCEEDED), 0);

	/* the ACK of the second SEND */
	{
		struct uroce_context *ctx = to_uroce_context(e.ctx);
		struct uroce_qp *qp = to_uroce_qp(e.a);
		struct uroce_pkt ack = { 0 }, got;
		uint8_t pkt[64];
		int len;

		ack.bth.opcode = UROCE_OP_RC_ACKNOWLEDGE;
		ack.bth.pkey = UROCE_DEF_PKEY;
		ack.bth.dest_qpn = e.a->qp_num;
		ack.bth.psn = 0xfffff1;
		ack.aeth.syndrome = UROCE_AETH_ACK_UNLIMITED;
		len = uroce_build(pkt, sizeof(pkt), &ack, NULL, 0);
		ck_assert_int_gt(len, 0);
		ck_assert_int_eq(uroce_parse(pkt, (size_t)len, &got), UROCE_DROP_OK);
		pthread_mutex_lock(&ctx->qp_lock);
		pthread_mutex_lock(&qp->lock);
		uroce_req_ack(qp, &got);
		pthread_mutex_unlock(&qp->lock);
		pthread_mutex_unlock(&ctx->qp_lock);
	}
	ck_assert(polled(&e, &wc));
	ck_assert_uint_eq(wc.wr_id, 2);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	close_pair(&e);
	free(buf);
}
END_TEST

static Suite *make_uroce_win_suite(void)
{
	Suite *s = suite_create("uroce_win");
	TCase *tc;

	tc = tcase_create("windows");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, eight_mib_messages_mtu_4096);
	tcase_add_test(tc, eight_mib_messages_mtu_1024);
	tcase_add_test(tc, more_reads_than_max_rd_atomic);
	tcase_add_test(tc, fenced_send_carries_what_the_read_brought);
	tcase_add_test(tc, retry_exhausted_against_a_silent_peer);
	tcase_add_test(tc, seq_nak_with_retry_cnt_0_retry_exceeded);
	tcase_add_test(tc, seq_nak_one_retry_per_ack);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	uroce_isolate();
	return check_run(make_uroce_win_suite());
}
