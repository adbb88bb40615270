/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* bench/verbs_instr: user-space instructions per hot verb, measured with
 * callgrind client requests around each call (bench/verbs-instr runs it on
 * softverbs and on rdma-core in one VM boot and prints the table).
 *
 *   verbs_instr cg|strace dp|reg [DEV [GID_INDEX]]
 *   verbs_instr cg|strace siw DEV IP
 *
 * cg: collection is switched on only around the measured call
 * (CALLGRIND_TOGGLE_COLLECT) and each row ends with a dump named after it;
 * the "bracket" row measures an empty pair of toggles, which the script
 * subtracts. strace: the same calls between write(-1, "B") and
 * write(-1, "E row") markers, so strace shows the syscalls each one made.
 * dp: the data-path rows on loopback QPs; reg: ibv_reg_mr/ibv_dereg_mr of
 * 64 KiB with 1, 100 and 10,000 other MRs live (run it with and without
 * RDMAV_FORK_SAFE=1); siw: post_send, post_recv and poll_cq on two RC
 * QPs of the iWARP device DEV connected to each other through rdma_cm on
 * its address IP. Every call's result and every completion is checked;
 * any failure exits 1. Prints "row NAME ITERATIONS" for each row.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <valgrind/callgrind.h>

#define ITERS 1000
#define MSG 64
#define BUF (64 * 1024)

static int use_strace;
static unsigned int iters = ITERS;

static void die(const char *what, int err)
{
	fprintf(stderr, "verbs_instr: %s: %s\n", what, strerror(err));
	exit(1);
}

#define CHECK(expr)                                                            \
	do {                                                                   \
		int rc_ = (expr);                                              \
		if (rc_)                                                       \
			die(#expr, rc_ < 0 ? -rc_ : rc_);                      \
	} while (0)

/* The bracket: identical instructions around every measured call, so the
 * empty bracket row is exactly what to subtract. */
#define BEGIN()                                                                \
	do {                                                                   \
		if (use_strace)                                                \
			syscall(SYS_write, -1, "B", 1);                        \
		else                                                           \
			CALLGRIND_TOGGLE_COLLECT;                              \
	} while (0)
#define END()                                                                  \
	do {                                                                   \
		if (use_strace)                                                \
			syscall(SYS_write, -1, "E", 1);                        \
		else                                                           \
			CALLGRIND_TOGGLE_COLLECT;                              \
	} while (0)

static void row_done(const char *name)
{
	if (use_strace)
		syscall(SYS_write, -1, name, strlen(name));
	else
		CALLGRIND_DUMP_STATS_AT(name);
	printf("row %s %u\n", name, iters);
	fflush(stdout);
}

struct dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	int gid_index;
	union ibv_gid gid;
	uint8_t *buf;
	struct ibv_mr *mr;
};

static void dev_open(struct dev *d, const char *name, int gid_index)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	int i;

	if (!list)
		die("ibv_get_device_list", errno);
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			break;
	if (!list[i]) {
		fprintf(stderr, "verbs_instr: no device %s\n", name);
		exit(1);
	}
	d->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!d->ctx)
		die("ibv_open_device", errno);
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd)
		die("ibv_alloc_pd", errno);
	d->gid_index = gid_index;
	CHECK(ibv_query_gid(d->ctx, 1, gid_index, &d->gid));
	d->buf = aligned_alloc(4096, 2 * BUF);
	if (!d->buf)
		die("aligned_alloc", ENOMEM);
	memset(d->buf, 0x5a, 2 * BUF);
	d->mr = ibv_reg_mr(d->pd, d->buf, 2 * BUF,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ);
	if (!d->mr)
		die("ibv_reg_mr", errno);
}

/* Two QPs of one type on the device, each with its own send and receive
 * CQ (on one completion channel), connected to each other. */
struct pair {
	struct ibv_comp_channel *ch;
	struct ibv_cq *scq[2], *rcq[2];
	struct ibv_cq_ex *scqx; /* side 0's send CQ when ex */
	struct ibv_qp *qp[2];
	struct ibv_qp_ex *qpx;  /* side 0 when ex */
	struct ibv_ah *ah;      /* UD: side 0 -> side 1 */
	struct ibv_srq *srq;    /* side 1 receives from it when set */
};

enum { PAIR_EX = 1, PAIR_SRQ = 2 };

static void qp_connect(struct dev *d, struct ibv_qp *qp, enum ibv_qp_type t,
		       uint32_t dest)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
						    IBV_ACCESS_REMOTE_READ };
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	if (t == IBV_QPT_UD) {
		a.qkey = 0x11111111;
		mask |= IBV_QP_QKEY;
	} else {
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	CHECK(ibv_modify_qp(qp, &a, mask));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	mask = IBV_QP_STATE;
	if (t == IBV_QPT_RC) {
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = dest;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 1;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = d->gid;
		a.ah_attr.grh.sgid_index = (uint8_t)d->gid_index;
		a.ah_attr.grh.hop_limit = 1;
		a.ah_attr.port_num = 1;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			IBV_QP_MIN_RNR_TIMER;
	}
	CHECK(ibv_modify_qp(qp, &a, mask));
	a.qp_state = IBV_QPS_RTS;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (t == IBV_QPT_RC) {
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 1;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	CHECK(ibv_modify_qp(qp, &a, mask));
}

static void pair_create(struct dev *d, struct pair *p, enum ibv_qp_type t,
			int flags)
{
	memset(p, 0, sizeof(*p));
	p->ch = ibv_create_comp_channel(d->ctx);
	if (!p->ch)
		die("ibv_create_comp_channel", errno);
	for (int i = 0; i < 2; i++) {
		if (i == 0 && (flags & PAIR_EX)) {
			struct ibv_cq_init_attr_ex ca = {
				.cqe = 256, .channel = p->ch,
				.wc_flags = IBV_WC_EX_WITH_BYTE_LEN,
			};

			p->scqx = ibv_create_cq_ex(d->ctx, &ca);
			if (!p->scqx)
				die("ibv_create_cq_ex", errno);
			p->scq[i] = ibv_cq_ex_to_cq(p->scqx);
		} else {
			p->scq[i] = ibv_create_cq(d->ctx, 256, NULL, p->ch, 0);
		}
		p->rcq[i] = ibv_create_cq(d->ctx, 256, NULL, NULL, 0);
		if (!p->scq[i] || !p->rcq[i])
			die("ibv_create_cq", errno);
	}
	if (flags & PAIR_SRQ) {
		struct ibv_srq_init_attr sa = { .attr = { .max_wr = 128,
							  .max_sge = 1 } };

		p->srq = ibv_create_srq(d->pd, &sa);
		if (!p->srq)
			die("ibv_create_srq", errno);
	}
	for (int i = 0; i < 2; i++) {
		struct ibv_qp_init_attr_ex qa = {
			.send_cq = p->scq[i], .recv_cq = p->rcq[i],
			.srq = i == 1 ? p->srq : NULL,
			.cap = { .max_send_wr = 128, .max_recv_wr = 128,
				 .max_send_sge = 1, .max_recv_sge = 1,
				 .max_inline_data = MSG },
			.qp_type = t, .sq_sig_all = 0,
			.comp_mask = IBV_QP_INIT_ATTR_PD, .pd = d->pd,
		};

		if (i == 0 && (flags & PAIR_EX)) {
			qa.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
			qa.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
					    IBV_QP_EX_WITH_SEND;
		}
		p->qp[i] = ibv_create_qp_ex(d->ctx, &qa);
		if (!p->qp[i])
			die("ibv_create_qp_ex", errno);
	}
	if (flags & PAIR_EX) {
		p->qpx = ibv_qp_to_qp_ex(p->qp[0]);
		if (!p->qpx)
			die("ibv_qp_to_qp_ex", EINVAL);
	}
	qp_connect(d, p->qp[0], t, p->qp[1]->qp_num);
	qp_connect(d, p->qp[1], t, p->qp[0]->qp_num);
	if (t == IBV_QPT_UD) {
		struct ibv_ah_attr aa = {
			.is_global = 1, .port_num = 1,
			.grh = { .dgid = d->gid, .hop_limit = 1,
				 .sgid_index = (uint8_t)d->gid_index },
		};

		p->ah = ibv_create_ah(d->pd, &aa);
		if (!p->ah)
			die("ibv_create_ah", errno);
	}
}

/* Poll cq until one completion arrives (not measured); check it. */
static void wait_one(struct ibv_cq *cq, uint64_t wr_id)
{
	struct ibv_wc wc;
	long spins = 0;
	int n;

	while ((n = ibv_poll_cq(cq, 1, &wc)) == 0)
		if (++spins > 2000000000L)
			die("waiting for a completion", ETIMEDOUT);
	if (n < 0)
		die("ibv_poll_cq", -n);
	if (wc.status != IBV_WC_SUCCESS || wc.wr_id != wr_id) {
		fprintf(stderr, "verbs_instr: completion %llu status %s, expected %llu\n",
			(unsigned long long)wc.wr_id,
			ibv_wc_status_str(wc.status), (unsigned long long)wr_id);
		exit(1);
	}
}

/* Block until cq's channel reports an event: the CQE is then in the ring
 * (not measured). The CQ was armed before the post. */
static void wait_event(struct pair *p, struct ibv_cq *cq)
{
	struct ibv_cq *ev_cq;
	void *ev_ctx;

	CHECK(ibv_get_cq_event(p->ch, &ev_cq, &ev_ctx));
	if (ev_cq != cq)
		die("event on another CQ", EINVAL);
	ibv_ack_cq_events(ev_cq, 1);
}

static struct ibv_sge sge(struct dev *d, size_t off)
{
	return (struct ibv_sge){ .addr = (uintptr_t)d->buf + off,
				 .length = MSG, .lkey = d->mr->lkey };
}

/* The rows' work requests, built outside the bracket: a signaled RDMA
 * WRITE of MSG bytes from buf to buf + BUF, a SEND of buf, a receive into
 * buf + BUF; *s is the SGE each points to. */
static struct ibv_send_wr write_wr(struct dev *d, unsigned int i, struct ibv_sge *s)
{
	*s = sge(d, 0);
	return (struct ibv_send_wr){
		.wr_id = i, .sg_list = s, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)d->buf + BUF, .rkey = d->mr->rkey },
	};
}

static struct ibv_send_wr send_wr(struct dev *d, unsigned int i, struct ibv_sge *s,
				  unsigned int flags)
{
	*s = sge(d, 0);
	return (struct ibv_send_wr){ .wr_id = i, .sg_list = s, .num_sge = 1,
				     .opcode = IBV_WR_SEND, .send_flags = flags };
}

static struct ibv_recv_wr recv_wr(struct dev *d, unsigned int i, struct ibv_sge *s)
{
	*s = sge(d, BUF);
	return (struct ibv_recv_wr){ .wr_id = i, .sg_list = s, .num_sge = 1 };
}

static void post_recv(struct dev *d, struct pair *p, uint64_t wr_id)
{
	struct ibv_sge s = sge(d, BUF);
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &s, .num_sge = 1 };

	if (p->ah) /* UD: the 40-byte GRH lands first */
		s.length += 40;
	struct ibv_recv_wr *bad;

	if (p->srq)
		CHECK(ibv_post_srq_recv(p->srq, &wr, &bad));
	else
		CHECK(ibv_post_recv(p->qp[1], &wr, &bad));
}

static void run_dp(struct dev *d)
{
	struct pair rc, ud, srq, ex;
	struct ibv_send_wr *bad;
	struct ibv_recv_wr *rbad;
	struct ibv_wc wc;
	int ret = 0;

	pair_create(d, &rc, IBV_QPT_RC, 0);
	pair_create(d, &ud, IBV_QPT_UD, 0);
	pair_create(d, &srq, IBV_QPT_RC, PAIR_SRQ);
	pair_create(d, &ex, IBV_QPT_RC, PAIR_EX);

	for (unsigned int i = 0; i < iters; i++) {
		BEGIN();
		END();
	}
	row_done("bracket");

	for (unsigned int i = 0; i < iters; i++) {
		struct ibv_sge s;
		struct ibv_send_wr wr = write_wr(d, i, &s);

		BEGIN();
		ret = ibv_post_send(rc.qp[0], &wr, &bad);
		END();
		CHECK(ret);
		wait_one(rc.scq[0], i);
	}
	row_done("post_send_write");

	for (int k = 0; k < 2; k++) { /* inline SEND, then SEND */
		unsigned int flags = IBV_SEND_SIGNALED | (k ? 0 : IBV_SEND_INLINE);

		for (unsigned int i = 0; i < iters; i++) {
			struct ibv_sge s;
			struct ibv_send_wr wr = send_wr(d, i, &s, flags);

			post_recv(d, &rc, i);
			BEGIN();
			ret = ibv_post_send(rc.qp[0], &wr, &bad);
			END();
			CHECK(ret);
			wait_one(rc.scq[0], i);
			wait_one(rc.rcq[1], i);
		}
		row_done(k ? "post_send_send" : "post_send_inline");
	}

	for (unsigned int i = 0; i < iters; i++) {
		struct ibv_sge s, rs;
		struct ibv_send_wr wr = send_wr(d, i, &s, IBV_SEND_SIGNALED);
		struct ibv_recv_wr rwr = recv_wr(d, i, &rs);

		BEGIN();
		ret = ibv_post_recv(rc.qp[1], &rwr, &rbad);
		END();
		CHECK(ret);
		CHECK(ibv_post_send(rc.qp[0], &wr, &bad));
		wait_one(rc.scq[0], i);
		wait_one(rc.rcq[1], i);
	}
	row_done("post_recv");

	for (unsigned int i = 0; i < iters; i++) {
		struct ibv_sge s, rs;
		struct ibv_send_wr wr = send_wr(d, i, &s, IBV_SEND_SIGNALED);
		struct ibv_recv_wr rwr = recv_wr(d, i, &rs);

		BEGIN();
		ret = ibv_post_srq_recv(srq.srq, &rwr, &rbad);
		END();
		CHECK(ret);
		CHECK(ibv_post_send(srq.qp[0], &wr, &bad));
		wait_one(srq.scq[0], i);
		wait_one(srq.rcq[1], i);
	}
	row_done("post_srq_recv");

	for (unsigned int i = 0; i < iters; i++) {
		struct ibv_sge s = sge(d, 0);
		struct ibv_send_wr wr = {
			.wr_id = i, .sg_list = &s, .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
			.wr.ud = { .ah = ud.ah, .remote_qpn = ud.qp[1]->qp_num,
				   .remote_qkey = 0x11111111 },
		};

		post_recv(d, &ud, i);
		BEGIN();
		ret = ibv_post_send(ud.qp[0], &wr, &bad);
		END();
		CHECK(ret);
		wait_one(ud.scq[0], i);
		wait_one(ud.rcq[1], i);
	}
	row_done("post_send_ud");

	for (unsigned int i = 0; i < iters; i++) {
		struct ibv_sge s;
		struct ibv_send_wr wr = write_wr(d, i, &s);

		CHECK(ibv_req_notify_cq(rc.scq[0], 0));
		CHECK(ibv_post_send(rc.qp[0], &wr, &bad));
		wait_event(&rc, rc.scq[0]);
		BEGIN();
		ret = ibv_poll_cq(rc.scq[0], 1, &wc);
		END();
		if (ret != 1 || wc.status != IBV_WC_SUCCESS || wc.wr_id != i ||
		    wc.opcode != IBV_WC_RDMA_WRITE)
			die("ibv_poll_cq returning 1", EIO);
	}
	row_done("poll_cq_1");

	for (unsigned int i = 0; i < iters; i++) {
		BEGIN();
		ret = ibv_poll_cq(rc.scq[0], 1, &wc);
		END();
		if (ret != 0)
			die("ibv_poll_cq on an empty CQ", EIO);
	}
	row_done("poll_cq_empty");

	for (unsigned int i = 0; i < iters; i++) {
		BEGIN();
		ret = ibv_req_notify_cq(rc.rcq[0], 0);
		END();
		CHECK(ret);
	}
	row_done("req_notify_cq");

	for (unsigned int i = 0; i < iters; i++) {
		struct ibv_qp_ex *qx = ex.qpx;

		BEGIN();
		ibv_wr_start(qx);
		qx->wr_id = i;
		qx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_rdma_write(qx, d->mr->rkey, (uintptr_t)d->buf + BUF);
		ibv_wr_set_sge(qx, d->mr->lkey, (uintptr_t)d->buf, MSG);
		ret = ibv_wr_complete(qx);
		END();
		CHECK(ret);
		wait_one(ex.scq[0], i);
	}
	row_done("wr_rdma_write");

	for (unsigned int i = 0; i < iters; i++) {
		struct ibv_poll_cq_attr pa = { 0 };
		struct ibv_sge s;
		struct ibv_send_wr wr = write_wr(d, i, &s);
		uint64_t wr_id;
		enum ibv_wc_status st;
		enum ibv_wc_opcode op;
		uint32_t len;

		CHECK(ibv_req_notify_cq(ex.scq[0], 0));
		CHECK(ibv_post_send(ex.qp[0], &wr, &bad));
		wait_event(&ex, ex.scq[0]);
		BEGIN();
		ret = ibv_start_poll(ex.scqx, &pa);
		wr_id = ex.scqx->wr_id;
		st = ex.scqx->status;
		op = ibv_wc_read_opcode(ex.scqx);
		len = ibv_wc_read_byte_len(ex.scqx);
		ibv_end_poll(ex.scqx);
		END();
		CHECK(ret);
		if (wr_id != i || st != IBV_WC_SUCCESS ||
		    op != IBV_WC_RDMA_WRITE || len != MSG)
			die("cq_ex completion", EIO);
	}
	row_done("cq_ex_poll");
}

/* ibv_reg_mr/ibv_dereg_mr of 64 KiB with `live` MRs registered,
 * each on its own page with a gap (so no two merge in a range map). */
static void run_reg(struct dev *d)
{
	static const unsigned int lives[] = { 1, 100, 10000 };
	/* under strace only the first: the count does not depend on it */
	const unsigned int nlives = use_strace ? 1 : 3;
	const long page = sysconf(_SC_PAGESIZE);
	uint8_t *area, *buf;
	struct ibv_mr **bg;
	unsigned int have = 0;

	/* d->mr is one live MR already */
	area = mmap(NULL, (size_t)page * 2 * 10000, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	buf = mmap(NULL, BUF, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	bg = calloc(10000, sizeof(*bg));
	if (area == MAP_FAILED || buf == MAP_FAILED || !bg)
		die("mmap", errno);
	memset(buf, 1, BUF);
	for (unsigned int l = 0; l < nlives; l++) {
		char name[32];

		while (have + 1 < lives[l]) {
			bg[have] = ibv_reg_mr(d->pd, area + 2 * page * have,
					      (size_t)page,
					      IBV_ACCESS_LOCAL_WRITE);
			if (!bg[have])
				die("ibv_reg_mr (background)", errno);
			have++;
		}
		for (unsigned int k = 0; k < 2; k++) {
			for (unsigned int i = 0; i < iters; i++) {
				struct ibv_mr *mr;
				int ret;

				if (k == 0) {
					BEGIN();
					mr = ibv_reg_mr(d->pd, buf, BUF,
							IBV_ACCESS_LOCAL_WRITE);
					END();
					if (!mr)
						die("ibv_reg_mr", errno);
					CHECK(ibv_dereg_mr(mr));
					continue;
				}
				mr = ibv_reg_mr(d->pd, buf, BUF,
						IBV_ACCESS_LOCAL_WRITE);
				if (!mr)
					die("ibv_reg_mr", errno);
				BEGIN();
				ret = ibv_dereg_mr(mr);
				END();
				CHECK(ret);
			}
			snprintf(name, sizeof(name), "%s_%u",
				 k == 0 ? "reg_mr" : "dereg_mr", lives[l]);
			row_done(name);
		}
	}
	while (have)
		CHECK(ibv_dereg_mr(bg[--have]));
	free(bg);
}

/* ---- siw: two RC QPs connected through rdma_cm ---------------------------- */

static void cm_expect(struct rdma_event_channel *ch,
		      enum rdma_cm_event_type type, struct rdma_cm_id **id)
{
	struct rdma_cm_event *ev;

	CHECK(rdma_get_cm_event(ch, &ev));
	if (ev->event != type) {
		fprintf(stderr, "verbs_instr: rdma_cm event %s (status %d), expected %s\n",
			rdma_event_str(ev->event), ev->status,
			rdma_event_str(type));
		exit(1);
	}
	if (id)
		*id = ev->id;
	rdma_ack_cm_event(ev);
}

/* Block until ch reports an event on cq (not measured). */
static void wait_chan(struct ibv_comp_channel *ch, struct ibv_cq *cq)
{
	struct ibv_cq *ev_cq;
	void *ev_ctx;

	CHECK(ibv_get_cq_event(ch, &ev_cq, &ev_ctx));
	if (ev_cq != cq)
		die("event on another CQ", EINVAL);
	ibv_ack_cq_events(ev_cq, 1);
}

static void run_siw(const char *dev_name, const char *ip)
{
	struct rdma_event_channel *cch, *sch;
	struct rdma_cm_id *lid, *id[2];
	struct rdma_conn_param param = { .responder_resources = 4,
					 .initiator_depth = 4 };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct ibv_comp_channel *ch;
	struct ibv_cq *scq[2], *rcq[2];
	struct ibv_qp *qp[2];
	struct ibv_send_wr *bad;
	struct ibv_recv_wr *rbad;
	struct ibv_wc wc;
	struct dev dd, *d = &dd;
	int ret;

	sin.sin_port = htons((uint16_t)(20900 + getpid() % 500));
	if (inet_pton(AF_INET, ip, &sin.sin_addr) != 1)
		die("inet_pton", EINVAL);
	cch = rdma_create_event_channel();
	sch = rdma_create_event_channel();
	if (!cch || !sch)
		die("rdma_create_event_channel", errno);
	CHECK(rdma_create_id(sch, &lid, NULL, RDMA_PS_TCP));
	CHECK(rdma_bind_addr(lid, (struct sockaddr *)&sin));
	CHECK(rdma_listen(lid, 1));
	CHECK(rdma_create_id(cch, &id[0], NULL, RDMA_PS_TCP));
	CHECK(rdma_resolve_addr(id[0], NULL, (struct sockaddr *)&sin, 5000));
	cm_expect(cch, RDMA_CM_EVENT_ADDR_RESOLVED, NULL);
	CHECK(rdma_resolve_route(id[0], 5000));
	cm_expect(cch, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL);
	if (strcmp(ibv_get_device_name(id[0]->verbs->device), dev_name)) {
		fprintf(stderr, "verbs_instr: %s resolves to %s, not %s\n", ip,
			ibv_get_device_name(id[0]->verbs->device), dev_name);
		exit(1);
	}

	/* one context (rdma_cm opens each device once): one PD, one MR */
	memset(d, 0, sizeof(*d));
	d->ctx = id[0]->verbs;
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd)
		die("ibv_alloc_pd", errno);
	d->buf = aligned_alloc(4096, 2 * BUF);
	if (!d->buf)
		die("aligned_alloc", ENOMEM);
	memset(d->buf, 0x5a, 2 * BUF);
	d->mr = ibv_reg_mr(d->pd, d->buf, 2 * BUF,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ);
	if (!d->mr)
		die("ibv_reg_mr", errno);
	ch = ibv_create_comp_channel(d->ctx);
	if (!ch)
		die("ibv_create_comp_channel", errno);
	for (int i = 0; i < 2; i++) {
		scq[i] = ibv_create_cq(d->ctx, 256, NULL, ch, 0);
		rcq[i] = ibv_create_cq(d->ctx, 256, NULL, NULL, 0);
		if (!scq[i] || !rcq[i])
			die("ibv_create_cq", errno);
	}
	for (int i = 0; i < 2; i++) {
		struct ibv_qp_init_attr qa = {
			.send_cq = scq[i], .recv_cq = rcq[i],
			.cap = { .max_send_wr = 128, .max_recv_wr = 128,
				 .max_send_sge = 1, .max_recv_sge = 1,
				 .max_inline_data = MSG },
			.qp_type = IBV_QPT_RC,
		};

		if (i == 1) {
			CHECK(rdma_connect(id[0], &param));
			cm_expect(sch, RDMA_CM_EVENT_CONNECT_REQUEST, &id[1]);
		}
		CHECK(rdma_create_qp(id[i], d->pd, &qa));
		qp[i] = id[i]->qp;
	}
	CHECK(rdma_accept(id[1], &param));
	cm_expect(cch, RDMA_CM_EVENT_ESTABLISHED, NULL);
	cm_expect(sch, RDMA_CM_EVENT_ESTABLISHED, NULL);

	for (unsigned int i = 0; i < iters; i++) {
		BEGIN();
		END();
	}
	row_done("bracket");

	for (unsigned int i = 0; i < iters; i++) {
		struct ibv_sge s;
		struct ibv_send_wr wr = write_wr(d, i, &s);

		BEGIN();
		ret = ibv_post_send(qp[0], &wr, &bad);
		END();
		CHECK(ret);
		wait_one(scq[0], i);
	}
	row_done("siw_post_send_write");

	for (unsigned int i = 0; i < iters; i++) {
		struct ibv_sge s, rs;
		struct ibv_send_wr wr = send_wr(d, i, &s, IBV_SEND_SIGNALED);
		struct ibv_recv_wr rwr = recv_wr(d, i, &rs);

		CHECK(ibv_post_recv(qp[1], &rwr, &rbad));
		BEGIN();
		ret = ibv_post_send(qp[0], &wr, &bad);
		END();
		CHECK(ret);
		wait_one(scq[0], i);
		wait_one(rcq[1], i);
	}
	row_done("siw_post_send_send");

	for (unsigned int i = 0; i < iters; i++) {
		struct ibv_sge s, rs;
		struct ibv_send_wr wr = send_wr(d, i, &s, IBV_SEND_SIGNALED);
		struct ibv_recv_wr rwr = recv_wr(d, i, &rs);

		BEGIN();
		ret = ibv_post_recv(qp[1], &rwr, &rbad);
		END();
		CHECK(ret);
		CHECK(ibv_post_send(qp[0], &wr, &bad));
		wait_one(scq[0], i);
		wait_one(rcq[1], i);
	}
	row_done("siw_post_recv");

	for (unsigned int i = 0; i < iters; i++) {
		struct ibv_sge s;
		struct ibv_send_wr wr = write_wr(d, i, &s);

		CHECK(ibv_req_notify_cq(scq[0], 0));
		CHECK(ibv_post_send(qp[0], &wr, &bad));
		wait_chan(ch, scq[0]);
		BEGIN();
		ret = ibv_poll_cq(scq[0], 1, &wc);
		END();
		if (ret != 1 || wc.status != IBV_WC_SUCCESS || wc.wr_id != i ||
		    wc.opcode != IBV_WC_RDMA_WRITE)
			die("ibv_poll_cq returning 1 (siw)", EIO);
	}
	row_done("siw_poll_cq_1");

	for (unsigned int i = 0; i < iters; i++) {
		BEGIN();
		ret = ibv_poll_cq(scq[0], 1, &wc);
		END();
		if (ret != 0)
			die("ibv_poll_cq on an empty CQ (siw)", EIO);
	}
	row_done("siw_poll_cq_empty");
	/* the rest goes with the process */
}

int main(int argc, char **argv)
{
	struct dev d;

	if (argc < 3) {
		fprintf(stderr, "usage: verbs_instr cg|strace dp|reg [DEV [GID_INDEX]]\n");
		return 2;
	}
	/* syscalls are counted, not instructions: a few calls tell (and
	 * each one stops in strace, slow under emulation) */
	use_strace = !strcmp(argv[1], "strace");
	if (use_strace)
		iters = 10;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[2], "siw")) {
		if (argc < 5) {
			fprintf(stderr, "usage: verbs_instr cg|strace siw DEV IP\n");
			return 2;
		}
		run_siw(argv[3], argv[4]);
		return 0;
	}
	dev_open(&d, argc > 3 ? argv[3] : "rxe0", argc > 4 ? atoi(argv[4]) : 1);
	if (!strcmp(argv[2], "dp"))
		run_dp(&d);
	else
		run_reg(&d);
	CHECK(ibv_dereg_mr(d.mr));
	/* the rest goes with the process */
	return 0;
}
