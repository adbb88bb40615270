/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* uroce's memory windows, SEND with invalidate and LOCAL_INV between
 * two RC QPs of one context over lo (SOFTVERBS_UROCE=lo; no VM, no
 * root): type 1 and type 2 binds, remote WRITE and READ through a
 * window inside it and (a remote access error, as rxe) outside it,
 * after a rebind, an unbind, an invalidation or a dealloc; rxe's
 * completion statuses for a bind or an invalidation that fails; the
 * post-time refusals (nothing half-applied: the next WR goes through). */
#include "config.h"

#include <check.h>
#include <endian.h>
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "../check_main.h"
#include "uroce_isolate.h"
#include "uroce.h"

#define TIMEOUT_MS 3000
#define BUF 8192

static struct ibv_device **dev_list;

struct pair {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;           /* both QPs' */
	struct ibv_qp *a, *b;        /* a accesses b's memory */
	uint8_t *abuf, *bbuf;
	struct ibv_mr *amr;          /* a's buffer, local write */
	struct ibv_mr *bmr;          /* b's buffer: MW_BIND, LOCAL_WRITE */
	struct ibv_wc stash[16];     /* completions seen before they were asked for */
	int nstash;
};

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

/* The completion of wr_id within TIMEOUT_MS; the others seen on the way
 * are kept for later calls. */
static struct ibv_wc wait_id(struct pair *p, uint64_t wr_id)
{
	long end = now_ms() + TIMEOUT_MS;
	struct ibv_wc wc;

	for (int i = 0; i < p->nstash; i++) {
		if (p->stash[i].wr_id == wr_id) {
			wc = p->stash[i];
			p->stash[i] = p->stash[--p->nstash];
			return wc;
		}
	}
	for (;;) {
		int n = ibv_poll_cq(p->cq, 1, &wc);

		ck_assert_int_ge(n, 0);
		if (n && wc.wr_id == wr_id)
			return wc;
		if (n) {
			ck_assert_int_lt(p->nstash, 16);
			p->stash[p->nstash++] = wc;
			continue;
		}
		ck_assert_msg(now_ms() < end, "no completion of wr_id %llu within %d ms",
			      (unsigned long long)wr_id, TIMEOUT_MS);
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

static struct ibv_qp *make_qp(struct pair *p, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = p->cq,
		.recv_cq = p->cq,
		.qp_type = type,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(p->pd, &ia);

	ck_assert_ptr_nonnull(qp);
	return qp;
}

static void connect_qp(struct ibv_qp *qp, uint32_t dest_qpn)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
						    IBV_ACCESS_REMOTE_READ |
						    IBV_ACCESS_REMOTE_ATOMIC };
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		   IBV_QP_ACCESS_FLAGS;

	ck_assert_int_eq(ibv_modify_qp(qp, &a, mask), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.sgid_index = 1;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.grh.dgid.raw[10] = a.ah_attr.grh.dgid.raw[11] = 0xff;
	a.ah_attr.grh.dgid.raw[12] = 127;
	a.ah_attr.grh.dgid.raw[15] = 1;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest_qpn;
	a.rq_psn = 100;
	mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
	       IBV_QP_RQ_PSN;
	if (qp->qp_type == IBV_QPT_RC) {
		a.max_dest_rd_atomic = 1;
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
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 1;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	ck_assert_int_eq(ibv_modify_qp(qp, &a, mask), 0);
}

/* A new connected pair of QPs of type (a QP that failed stays failed) */
static void new_qps(struct pair *p, enum ibv_qp_type type)
{
	if (p->a) {
		ck_assert_int_eq(ibv_destroy_qp(p->a), 0);
		ck_assert_int_eq(ibv_destroy_qp(p->b), 0);
	}
	p->a = make_qp(p, type);
	p->b = make_qp(p, type);
	connect_qp(p->a, p->b->qp_num);
	connect_qp(p->b, p->a->qp_num);
	p->nstash = 0;
}

static bool open_pair(struct pair *p)
{
	struct ibv_device *dev = uroce0();

	memset(p, 0, sizeof(*p));
	if (!dev) {
		check_skip("no interface lo here: uroce0 cannot be listed");
		return false;
	}
	p->ctx = ibv_open_device(dev);
	ck_assert_ptr_nonnull(p->ctx);
	p->pd = ibv_alloc_pd(p->ctx);
	ck_assert_ptr_nonnull(p->pd);
	p->cq = ibv_create_cq(p->ctx, 64, NULL, NULL, 0);
	ck_assert_ptr_nonnull(p->cq);
	p->abuf = calloc(1, BUF);
	p->bbuf = calloc(1, BUF);
	p->amr = ibv_reg_mr(p->pd, p->abuf, BUF, IBV_ACCESS_LOCAL_WRITE);
	p->bmr = ibv_reg_mr(p->pd, p->bbuf, BUF,
			    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	ck_assert_ptr_nonnull(p->amr);
	ck_assert_ptr_nonnull(p->bmr);
	/* the MR grants no remote access itself: only the windows do */
	ck_assert_uint_eq(p->bmr->rkey, 0);
	new_qps(p, IBV_QPT_RC);
	return true;
}

static void close_pair(struct pair *p)
{
	ck_assert_int_eq(ibv_destroy_qp(p->a), 0);
	ck_assert_int_eq(ibv_destroy_qp(p->b), 0);
	ck_assert_int_eq(ibv_dereg_mr(p->amr), 0);
	ck_assert_int_eq(ibv_dereg_mr(p->bmr), 0);
	ck_assert_int_eq(ibv_destroy_cq(p->cq), 0);
	ck_assert_int_eq(ibv_dealloc_pd(p->pd), 0);
	ck_assert_int_eq(ibv_close_device(p->ctx), 0);
	free(p->abuf);
	free(p->bbuf);
}

/* a's WRITE or READ of len bytes at b's raddr through rkey, from/to
 * abuf + aoff: its completion status */
static enum ibv_wc_status rdma(struct pair *p, enum ibv_wr_opcode op,
			       uint32_t aoff, uint32_t len, uint64_t raddr,
			       uint32_t rkey, uint64_t wr_id)
{
	struct ibv_sge sge = { (uintptr_t)p->abuf + aoff, len, p->amr->lkey };
	struct ibv_send_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
				  .opcode = op, .send_flags = IBV_SEND_SIGNALED },
			   *bad;
	struct ibv_wc wc;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	ck_assert_int_eq(ibv_post_send(p->a, &wr, &bad), 0);
	wc = wait_id(p, wr_id);
	return wc.status;
}

static uint64_t baddr(const struct pair *p, size_t off)
{
	return (uintptr_t)p->bbuf + off;
}

/* Post a type 2 bind on b: 0 or post_send's error */
static int post_bind2(struct pair *p, struct ibv_qp *qp, struct ibv_mw *mw,
		      uint32_t rkey, struct ibv_mr *mr, uint64_t addr,
		      uint64_t len, unsigned int access, uint64_t wr_id)
{
	struct ibv_send_wr wr = { .wr_id = wr_id, .opcode = IBV_WR_BIND_MW,
				  .send_flags = IBV_SEND_SIGNALED }, *bad = NULL;
	int ret;

	(void)p;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info.mr = mr;
	wr.bind_mw.bind_info.addr = addr;
	wr.bind_mw.bind_info.length = len;
	wr.bind_mw.bind_info.mw_access_flags = access;
	ret = ibv_post_send(qp, &wr, &bad);
	if (ret)
		ck_assert_ptr_eq(bad, &wr);
	return ret;
}

static int post_inv(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t rkey,
		    struct ibv_mr *mr, void *buf, uint32_t len, uint64_t wr_id)
{
	struct ibv_sge sge = { (uintptr_t)buf, len, mr ? mr->lkey : 0 };
	struct ibv_send_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = mr ? 1 : 0, .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED,
				  .invalidate_rkey = rkey }, *bad = NULL;
	int ret = ibv_post_send(qp, &wr, &bad);

	if (ret)
		ck_assert_ptr_eq(bad, &wr);
	return ret;
}

static void post_recv(struct ibv_qp *qp, struct ibv_mr *mr, void *buf,
		      uint32_t len, uint64_t wr_id)
{
	struct ibv_sge sge = { (uintptr_t)buf, len, mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	ck_assert_int_eq(ibv_post_recv(qp, &wr, &bad), 0);
}

/* ---- the device and the objects ------------------------------------------- */

START_TEST(device_and_alloc)
{
	struct ibv_device_attr da;
	struct pair p;
	struct ibv_mw *mw1, *mw2, *gone;
	uint32_t gone_rkey;

	if (!open_pair(&p))
		return;
	ck_assert_int_eq(ibv_query_device(p.ctx, &da), 0);
	ck_assert_int_eq(da.max_mw, UROCE_MAX_MW);
	ck_assert(da.device_cap_flags & IBV_DEVICE_MEM_WINDOW);
	ck_assert(da.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B);

	mw1 = ibv_alloc_mw(p.pd, IBV_MW_TYPE_1);
	mw2 = ibv_alloc_mw(p.pd, IBV_MW_TYPE_2);
	ck_assert_ptr_nonnull(mw1);
	ck_assert_ptr_nonnull(mw2);
	ck_assert_int_eq(mw1->type, IBV_MW_TYPE_1);
	ck_assert_int_eq(mw2->type, IBV_MW_TYPE_2);
	ck_assert_ptr_eq(mw1->pd, p.pd);
	ck_assert_uint_ne(mw1->rkey, 0);
	ck_assert_uint_ne(mw2->rkey, 0);
	ck_assert_uint_ne(mw1->rkey >> 8, mw2->rkey >> 8);
	ck_assert_uint_ne(mw1->rkey >> 8, p.amr->lkey >> 8);
	ck_assert_uint_ne(mw1->rkey >> 8, p.bmr->lkey >> 8);
	ck_assert_ptr_null(ibv_alloc_mw(p.pd, (enum ibv_mw_type)3));
	ck_assert_int_eq(errno, EINVAL);

	/* a window's key is dead once it is deallocated, even unbound */
	gone = ibv_alloc_mw(p.pd, IBV_MW_TYPE_2);
	ck_assert_ptr_nonnull(gone);
	gone_rkey = ibv_inc_rkey(gone->rkey);
	ck_assert_int_eq(post_bind2(&p, p.b, gone, gone_rkey, p.bmr, baddr(&p, 0),
				    BUF, IBV_ACCESS_REMOTE_WRITE, 1), 0);
	ck_assert_int_eq(wait_id(&p, 1).status, IBV_WC_SUCCESS);
	ck_assert_int_eq(rdma(&p, IBV_WR_RDMA_WRITE, 0, 8, baddr(&p, 0),
			      gone_rkey, 2), IBV_WC_SUCCESS);
	/* the MR cannot go while a window is bound to it (rxe) */
	ck_assert_int_eq(ibv_dereg_mr(p.bmr), EINVAL);
	ck_assert_int_eq(ibv_dealloc_mw(gone), 0);
	ck_assert_int_eq(rdma(&p, IBV_WR_RDMA_WRITE, 0, 8, baddr(&p, 0),
			      gone_rkey, 3), IBV_WC_REM_ACCESS_ERR);

	ck_assert_int_eq(ibv_dealloc_mw(mw1), 0);
	ck_assert_int_eq(ibv_dealloc_mw(mw2), 0);
	close_pair(&p);
}
END_TEST

/* ---- type 1 --------------------------------------------------------------- */

static int bind1(struct pair *p, struct ibv_mw *mw, struct ibv_mr *mr,
		 size_t off, size_t len, unsigned int access, uint64_t wr_id)
{
	struct ibv_mw_bind bind = {
		.wr_id = wr_id,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .mr = mr, .addr = baddr(p, off), .length = len,
			       .mw_access_flags = access },
	};

	return ibv_bind_mw(p->b, mw, &bind);
}

START_TEST(type1_write_read_inside_and_out)
{
	struct pair p;
	struct ibv_mw *mw;
	struct ibv_wc wc;
	uint32_t old;

	if (!open_pair(&p))
		return;
	mw = ibv_alloc_mw(p.pd, IBV_MW_TYPE_1);
	ck_assert_ptr_nonnull(mw);
	old = mw->rkey;
	ck_assert_int_eq(bind1(&p, mw, p.bmr, 1024, 2048,
			       IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
			       10), 0);
	/* a new key portion, the same tag */
	ck_assert_uint_eq(mw->rkey, ibv_inc_rkey(old));
	wc = wait_id(&p, 10);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, IBV_WC_BIND_MW);

	/* inside: WRITE, then READ back */
	for (int i = 0; i < 2048; i++)
		p.abuf[i] = (uint8_t)(i * 13 + 1);
	ck_assert_int_eq(rdma(&p, IBV_WR_RDMA_WRITE, 0, 2048, baddr(&p, 1024),
			      mw->rkey, 11), IBV_WC_SUCCESS);
	ck_assert_mem_eq(p.bbuf + 1024, p.abuf, 2048);
	for (int i = 0; i < 1024; i++)
		ck_assert_uint_eq(p.bbuf[i], 0);
	ck_assert_int_eq(rdma(&p, IBV_WR_RDMA_READ, 4096, 100, baddr(&p, 2000),
			      mw->rkey, 12), IBV_WC_SUCCESS);
	ck_assert_mem_eq(p.abuf + 4096, p.bbuf + 2000, 100);
	/* the old key is dead */
	ck_assert_int_eq(rdma(&p, IBV_WR_RDMA_WRITE, 0, 8, baddr(&p, 1024),
			      old, 13), IBV_WC_REM_ACCESS_ERR);
	ck_assert_int_eq(state_of(p.a), IBV_QPS_ERR);

	/* outside the window, inside the MR: a remote access error */
	new_qps(&p, IBV_QPT_RC);
	ck_assert_int_eq(bind1(&p, mw, p.bmr, 1024, 2048,
			       IBV_ACCESS_REMOTE_READ, 20), 0);
	ck_assert_int_eq(wait_id(&p, 20).status, IBV_WC_SUCCESS);
	ck_assert_int_eq(rdma(&p, IBV_WR_RDMA_READ, 0, 8, baddr(&p, 3070),
			      mw->rkey, 21), IBV_WC_REM_ACCESS_ERR);

	/* a right the window lacks (WRITE into a READ window) */
	new_qps(&p, IBV_QPT_RC);
	ck_assert_int_eq(bind1(&p, mw, p.bmr, 1024, 2048,
			       IBV_ACCESS_REMOTE_READ, 30), 0);
	ck_assert_int_eq(wait_id(&p, 30).status, IBV_WC_SUCCESS);
	ck_assert_int_eq(rdma(&p, IBV_WR_RDMA_READ, 0, 8, baddr(&p, 1024),
			      mw->rkey, 31), IBV_WC_SUCCESS);
	ck_assert_int_eq(rdma(&p, IBV_WR_RDMA_WRITE, 0, 8, baddr(&p, 1024),
			      mw->rkey, 32), IBV_WC_REM_ACCESS_ERR);

	/* unbound (length 0): nothing gets through */
	new_qps(&p, IBV_QPT_RC);
	{
		struct ibv_mw_bind unbind = { .wr_id = 40,
					      .send_flags = IBV_SEND_SIGNALED };

		ck_assert_int_eq(ibv_bind_mw(p.b, mw, &unbind), 0);
	}
	ck_assert_int_eq(wait_id(&p, 40).status, IBV_WC_SUCCESS);
	ck_assert_int_eq(rdma(&p, IBV_WR_RDMA_READ, 0, 8, baddr(&p, 1024),
			      mw->rkey, 41), IBV_WC_REM_ACCESS_ERR);

	/* invalidating a type 1 window fails (rxe: LOC_QP_OP_ERR) */
	new_qps(&p, IBV_QPT_RC);
	ck_assert_int_eq(post_inv(p.b, IBV_WR_LOCAL_INV, mw->rkey, NULL, NULL,
				  0, 50), 0);
	ck_assert_int_eq(wait_id(&p, 50).status, IBV_WC_LOC_QP_OP_ERR);
	ck_assert_int_eq(state_of(p.b), IBV_QPS_ERR);

	ck_assert_int_eq(ibv_dealloc_mw(mw), 0);
	new_qps(&p, IBV_QPT_RC);
	close_pair(&p);
}
END_TEST

/* ---- type 2, SEND with invalidate, LOCAL_INV -------------------------------- */

START_TEST(type2_send_with_inv_and_local_inv)
{
	struct pair p;
	struct ibv_mw *mw;
	struct ibv_wc wc;
	uint32_t key;

	if (!open_pair(&p))
		return;
	mw = ibv_alloc_mw(p.pd, IBV_MW_TYPE_2);
	ck_assert_ptr_nonnull(mw);
	key = ibv_inc_rkey(mw->rkey);
	ck_assert_int_eq(post_bind2(&p, p.b, mw, key, p.bmr, baddr(&p, 0), 4096,
				    IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_ATOMIC, 1), 0);
	wc = wait_id(&p, 1);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, IBV_WC_BIND_MW);
	ck_assert_int_eq(rdma(&p, IBV_WR_RDMA_WRITE, 0, 64, baddr(&p, 100), key, 2),
			 IBV_WC_SUCCESS);
	/* a bound type 2 window is not bound again (rxe: FREE state only) */
	ck_assert_int_eq(post_bind2(&p, p.b, mw, ibv_inc_rkey(key), p.bmr,
				    baddr(&p, 0), 64, IBV_ACCESS_REMOTE_READ, 3), 0);
	ck_assert_int_eq(wait_id(&p, 3).status, IBV_WC_MW_BIND_ERR);
	ck_assert_int_eq(state_of(p.b), IBV_QPS_ERR);
	new_qps(&p, IBV_QPT_RC);
	/* ... and it is usable through the QP it was bound through only:
	 * that QP is gone */
	ck_assert_int_eq(rdma(&p, IBV_WR_RDMA_WRITE, 0, 8, baddr(&p, 100), key, 4),
			 IBV_WC_REM_ACCESS_ERR);

	/* SEND with invalidate of a window bound through the new b */
	new_qps(&p, IBV_QPT_RC);
	mw->rkey = key; /* the consumer keeps its window's current key */
	ck_assert_int_eq(ibv_dealloc_mw(mw), 0);
	mw = ibv_alloc_mw(p.pd, IBV_MW_TYPE_2);
	ck_assert_ptr_nonnull(mw);
	key = ibv_inc_rkey(mw->rkey);
	ck_assert_int_eq(post_bind2(&p, p.b, mw, key, p.bmr, baddr(&p, 0), 4096,
				    IBV_ACCESS_REMOTE_WRITE, 10), 0);
	ck_assert_int_eq(wait_id(&p, 10).status, IBV_WC_SUCCESS);
	ck_assert_int_eq(rdma(&p, IBV_WR_RDMA_WRITE, 0, 8, baddr(&p, 0), key, 11),
			 IBV_WC_SUCCESS);
	post_recv(p.b, p.bmr, p.bbuf + 6000, 100, 12);
	memcpy(p.abuf + 200, "invalidate", 10);
	ck_assert_int_eq(post_inv(p.a, IBV_WR_SEND_WITH_INV, key, p.amr,
				  p.abuf + 200, 10, 13), 0);
	wc = wait_id(&p, 13);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, IBV_WC_SEND);
	wc = wait_id(&p, 12);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, IBV_WC_RECV);
	ck_assert_uint_eq(wc.byte_len, 10);
	ck_assert(wc.wc_flags & IBV_WC_WITH_INV);
	ck_assert(!(wc.wc_flags & IBV_WC_WITH_IMM));
	ck_assert_uint_eq(wc.invalidated_rkey, key);
	ck_assert_mem_eq(p.bbuf + 6000, "invalidate", 10);
	ck_assert_int_eq(rdma(&p, IBV_WR_RDMA_WRITE, 0, 8, baddr(&p, 0), key, 14),
			 IBV_WC_REM_ACCESS_ERR);

	/* bound again (free after the invalidation), then LOCAL_INV */
	new_qps(&p, IBV_QPT_RC);
	mw->rkey = key;
	key = ibv_inc_rkey(key);
	ck_assert_int_eq(post_bind2(&p, p.b, mw, key, p.bmr, baddr(&p, 512), 1024,
				    IBV_ACCESS_REMOTE_READ, 20), 0);
	ck_assert_int_eq(wait_id(&p, 20).status, IBV_WC_SUCCESS);
	ck_assert_int_eq(rdma(&p, IBV_WR_RDMA_READ, 0, 16, baddr(&p, 512), key, 21),
			 IBV_WC_SUCCESS);
	ck_assert_int_eq(post_inv(p.b, IBV_WR_LOCAL_INV, key, NULL, NULL, 0, 22), 0);
	wc = wait_id(&p, 22);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, IBV_WC_LOCAL_INV);
	ck_assert_int_eq(rdma(&p, IBV_WR_RDMA_READ, 0, 16, baddr(&p, 512), key, 23),
			 IBV_WC_REM_ACCESS_ERR);
	/* a second LOCAL_INV of a free window fails (the NAK moved both
	 * QPs to the error state: new ones) */
	new_qps(&p, IBV_QPT_RC);
	ck_assert_int_eq(post_inv(p.b, IBV_WR_LOCAL_INV, key, NULL, NULL, 0, 24), 0);
	ck_assert_int_eq(wait_id(&p, 24).status, IBV_WC_LOC_QP_OP_ERR);
	ck_assert_int_eq(state_of(p.b), IBV_QPS_ERR);

	ck_assert_int_eq(ibv_dealloc_mw(mw), 0);
	new_qps(&p, IBV_QPT_RC);
	close_pair(&p);
}
END_TEST

/* A SEND with invalidate of three packets (MTU 1024): the IETH on the
 * last one */
START_TEST(send_with_inv_of_three_packets)
{
	struct pair p;
	struct ibv_mw *mw;
	struct ibv_wc wc;
	uint32_t key;

	if (!open_pair(&p))
		return;
	mw = ibv_alloc_mw(p.pd, IBV_MW_TYPE_2);
	ck_assert_ptr_nonnull(mw);
	key = ibv_inc_rkey(mw->rkey);
	ck_assert_int_eq(post_bind2(&p, p.b, mw, key, p.bmr, baddr(&p, 0), 64,
				    IBV_ACCESS_REMOTE_READ, 1), 0);
	ck_assert_int_eq(wait_id(&p, 1).status, IBV_WC_SUCCESS);
	for (int i = 0; i < 3000; i++)
		p.abuf[i] = (uint8_t)(i * 5 + 3);
	post_recv(p.b, p.bmr, p.bbuf + 4096, 4096, 2);
	ck_assert_int_eq(post_inv(p.a, IBV_WR_SEND_WITH_INV, key, p.amr, p.abuf,
				  3000, 3), 0);
	ck_assert_int_eq(wait_id(&p, 3).status, IBV_WC_SUCCESS);
	wc = wait_id(&p, 2);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.byte_len, 3000);
	ck_assert(wc.wc_flags & IBV_WC_WITH_INV);
	ck_assert_uint_eq(wc.invalidated_rkey, key);
	ck_assert_mem_eq(p.bbuf + 4096, p.abuf, 3000);
	ck_assert_int_eq(rdma(&p, IBV_WR_RDMA_READ, 0, 8, baddr(&p, 0), key, 4),
			 IBV_WC_REM_ACCESS_ERR);
	ck_assert_int_eq(ibv_dealloc_mw(mw), 0);
	new_qps(&p, IBV_QPT_RC);
	close_pair(&p);
}
END_TEST

/* A type 2 window is reached through the QP it was bound through only
 * (rxe_lookup_mw: mw->qp == qp) */
START_TEST(type2_only_through_its_qp)
{
	struct pair p;
	struct ibv_mw *mw;
	struct ibv_qp *c, *d;
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .wr_id = 3, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	uint32_t key;

	if (!open_pair(&p))
		return;
	mw = ibv_alloc_mw(p.pd, IBV_MW_TYPE_2);
	ck_assert_ptr_nonnull(mw);
	key = ibv_inc_rkey(mw->rkey);
	ck_assert_int_eq(post_bind2(&p, p.b, mw, key, p.bmr, baddr(&p, 0), 64,
				    IBV_ACCESS_REMOTE_WRITE, 1), 0);
	ck_assert_int_eq(wait_id(&p, 1).status, IBV_WC_SUCCESS);
	/* another pair of the same PD: d is not the window's QP */
	c = make_qp(&p, IBV_QPT_RC);
	d = make_qp(&p, IBV_QPT_RC);
	connect_qp(c, d->qp_num);
	connect_qp(d, c->qp_num);
	sge = (struct ibv_sge){ (uintptr_t)p.abuf, 8, p.amr->lkey };
	wr.wr.rdma.remote_addr = baddr(&p, 0);
	wr.wr.rdma.rkey = key;
	ck_assert_int_eq(ibv_post_send(c, &wr, &bad), 0);
	ck_assert_int_eq(wait_id(&p, 3).status, IBV_WC_REM_ACCESS_ERR);
	/* through b it still works */
	ck_assert_int_eq(rdma(&p, IBV_WR_RDMA_WRITE, 0, 8, baddr(&p, 0), key, 4),
			 IBV_WC_SUCCESS);
	ck_assert_int_eq(ibv_destroy_qp(c), 0);
	ck_assert_int_eq(ibv_destroy_qp(d), 0);
	ck_assert_int_eq(ibv_dealloc_mw(mw), 0);
	close_pair(&p);
}
END_TEST

/* A zero-based type 2 window: the peer's addresses start at 0 */
START_TEST(type2_zero_based)
{
	struct pair p;
	struct ibv_mw *mw;
	uint32_t key;

	if (!open_pair(&p))
		return;
	mw = ibv_alloc_mw(p.pd, IBV_MW_TYPE_2);
	ck_assert_ptr_nonnull(mw);
	key = ibv_inc_rkey(mw->rkey);
	/* addr: where the window starts (the peer's address 0) */
	ck_assert_int_eq(post_bind2(&p, p.b, mw, key, p.bmr, baddr(&p, 512), 1024,
				    IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_ZERO_BASED,
				    1), 0);
	ck_assert_int_eq(wait_id(&p, 1).status, IBV_WC_SUCCESS);
	memcpy(p.abuf, "zero-based", 10);
	ck_assert_int_eq(rdma(&p, IBV_WR_RDMA_WRITE, 0, 10, 100, key, 2),
			 IBV_WC_SUCCESS);
	ck_assert_mem_eq(p.bbuf + 612, "zero-based", 10);
	ck_assert_int_eq(rdma(&p, IBV_WR_RDMA_WRITE, 0, 10, 1020, key, 3),
			 IBV_WC_REM_ACCESS_ERR);
	ck_assert_int_eq(ibv_dealloc_mw(mw), 0);
	new_qps(&p, IBV_QPT_RC);
	close_pair(&p);
}
END_TEST

/* SEND with invalidate of an MR's key: rxe's class J error */
START_TEST(send_with_inv_of_an_mr)
{
	struct pair p;
	struct ibv_mr *rmr;
	struct ibv_wc wc;

	if (!open_pair(&p))
		return;
	rmr = ibv_reg_mr(p.pd, p.bbuf, 64, IBV_ACCESS_LOCAL_WRITE |
					   IBV_ACCESS_REMOTE_WRITE);
	ck_assert_ptr_nonnull(rmr);
	post_recv(p.b, p.bmr, p.bbuf + 6000, 100, 1);
	ck_assert_int_eq(post_inv(p.a, IBV_WR_SEND_WITH_INV, rmr->rkey, p.amr,
				  p.abuf, 10, 2), 0);
	/* the receive fails, the SEND is acknowledged, b is in error */
	wc = wait_id(&p, 1);
	ck_assert_int_eq(wc.status, IBV_WC_REM_INV_REQ_ERR);
	wc = wait_id(&p, 2);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(state_of(p.b), IBV_QPS_ERR);
	/* the MR is still registered and still works for others */
	ck_assert_int_eq(ibv_dereg_mr(rmr), 0);
	close_pair(&p);
}
END_TEST

/* ---- refusals ---------------------------------------------------------------- */

START_TEST(post_time_refusals)
{
	struct pair p;
	struct ibv_mw *mw1, *mw2;
	struct ibv_pd *pd2;
	struct ibv_mr *mr2;
	struct ibv_qp *ud;
	struct ibv_mw_bind bind = { .wr_id = 1 };
	uint32_t rkey1;

	if (!open_pair(&p))
		return;
	mw1 = ibv_alloc_mw(p.pd, IBV_MW_TYPE_1);
	mw2 = ibv_alloc_mw(p.pd, IBV_MW_TYPE_2);
	ck_assert_ptr_nonnull(mw1);
	ck_assert_ptr_nonnull(mw2);
	rkey1 = mw1->rkey;

	/* IBV_WR_BIND_MW: a type 2 window; an MR for a non-empty range */
	ck_assert_int_eq(post_bind2(&p, p.b, mw1, 1, p.bmr, baddr(&p, 0), 8,
				    IBV_ACCESS_REMOTE_READ, 1), EINVAL);
	ck_assert_int_eq(post_bind2(&p, p.b, NULL, 1, p.bmr, baddr(&p, 0), 8,
				    IBV_ACCESS_REMOTE_READ, 1), EINVAL);
	ck_assert_int_eq(post_bind2(&p, p.b, mw2, 1, NULL, baddr(&p, 0), 8,
				    IBV_ACCESS_REMOTE_READ, 1), EINVAL);
	/* ibv_bind_mw: a type 1 window, not zero based; the QP's PD */
	bind.bind_info.mr = p.bmr;
	bind.bind_info.addr = baddr(&p, 0);
	bind.bind_info.length = 8;
	bind.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ;
	ck_assert_int_eq(ibv_bind_mw(p.b, mw2, &bind), EINVAL);
	bind.bind_info.mw_access_flags |= IBV_ACCESS_ZERO_BASED;
	ck_assert_int_eq(ibv_bind_mw(p.b, mw1, &bind), EINVAL);
	pd2 = ibv_alloc_pd(p.ctx);
	mr2 = ibv_reg_mr(pd2, p.bbuf, 64, IBV_ACCESS_MW_BIND);
	ck_assert_ptr_nonnull(mr2);
	bind.bind_info.mr = mr2;
	bind.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ;
	ck_assert_int_eq(ibv_bind_mw(p.b, mw1, &bind), EPERM);
	/* none of them changed the window's key */
	ck_assert_uint_eq(mw1->rkey, rkey1);

	/* LOCAL_INV and SEND with invalidate: RC only; BIND_MW: not UD */
	new_qps(&p, IBV_QPT_UC);
	ck_assert_int_eq(post_inv(p.a, IBV_WR_LOCAL_INV, 5, NULL, NULL, 0, 2),
			 EINVAL);
	ck_assert_int_eq(post_inv(p.a, IBV_WR_SEND_WITH_INV, 5, p.amr, p.abuf, 4,
				  3), EINVAL);
	ud = make_qp(&p, IBV_QPT_UD);
	{
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
					 .qkey = 1 };

		ck_assert_int_eq(ibv_modify_qp(ud, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					       IBV_QP_PORT | IBV_QP_QKEY), 0);
		a.qp_state = IBV_QPS_RTR;
		ck_assert_int_eq(ibv_modify_qp(ud, &a, IBV_QP_STATE), 0);
		a.qp_state = IBV_QPS_RTS;
		ck_assert_int_eq(ibv_modify_qp(ud, &a, IBV_QP_STATE | IBV_QP_SQ_PSN), 0);
	}
	ck_assert_int_eq(post_bind2(&p, ud, mw2, 1, p.bmr, baddr(&p, 0), 8,
				    IBV_ACCESS_REMOTE_READ, 4), EINVAL);
	bind.bind_info.mr = p.bmr;
	ck_assert_int_eq(ibv_bind_mw(ud, mw1, &bind), EINVAL);
	ck_assert_int_eq(ibv_destroy_qp(ud), 0);

	/* a type 1 bind through a UC QP */
	bind.wr_id = 5;
	bind.send_flags = IBV_SEND_SIGNALED;
	bind.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	ck_assert_int_eq(ibv_bind_mw(p.b, mw1, &bind), 0);
	ck_assert_int_eq(wait_id(&p, 5).status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(mw1->rkey, ibv_inc_rkey(rkey1));

	/* nothing was half-applied: the send queues take the next WRs */
	new_qps(&p, IBV_QPT_RC);
	ck_assert_int_eq(post_bind2(&p, p.b, mw2, ibv_inc_rkey(mw2->rkey), p.bmr,
				    baddr(&p, 0), 8, IBV_ACCESS_REMOTE_READ, 6), 0);
	ck_assert_int_eq(wait_id(&p, 6).status, IBV_WC_SUCCESS);
	ck_assert_int_eq(rdma(&p, IBV_WR_RDMA_READ, 0, 8, baddr(&p, 0),
			      ibv_inc_rkey(mw2->rkey), 7), IBV_WC_SUCCESS);
	ck_assert_int_eq(ibv_dealloc_mw(mw1), 0);
	ck_assert_int_eq(ibv_dealloc_mw(mw2), 0);
	ck_assert_int_eq(ibv_dereg_mr(mr2), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd2), 0);
	close_pair(&p);
}
END_TEST

/* A bind that rxe executes and refuses: IBV_WC_MW_BIND_ERR, QP in error */
START_TEST(bind_errors_complete_with_mw_bind_err)
{
	struct pair p;
	struct ibv_mw *mw1, *mw2;
	struct ibv_mr *nobind, *ro;
	struct {
		bool type2;
		struct ibv_mr **mr;
		size_t off, len;
		unsigned int access;
	} cases[] = {
		/* the MR was registered without MW_BIND (C10-73) */
		{ false, &nobind, 0, 64, IBV_ACCESS_REMOTE_READ },
		/* a writable window on an MR without LOCAL_WRITE (C10-74) */
		{ false, &ro, 0, 64, IBV_ACCESS_REMOTE_WRITE },
		/* not inside the MR (C10-75) */
		{ false, &p.bmr, BUF - 8, 64, IBV_ACCESS_REMOTE_READ },
		/* a type 2 bind of nothing (o10-37.2.40) */
		{ true, &p.bmr, 0, 0, IBV_ACCESS_REMOTE_READ },
		{ true, &p.bmr, BUF - 8, 64, IBV_ACCESS_REMOTE_READ },
	};

	if (!open_pair(&p))
		return;
	nobind = ibv_reg_mr(p.pd, p.bbuf, 256, IBV_ACCESS_LOCAL_WRITE);
	ro = ibv_reg_mr(p.pd, p.bbuf, 256, IBV_ACCESS_MW_BIND);
	ck_assert_ptr_nonnull(nobind);
	ck_assert_ptr_nonnull(ro);
	mw1 = ibv_alloc_mw(p.pd, IBV_MW_TYPE_1);
	mw2 = ibv_alloc_mw(p.pd, IBV_MW_TYPE_2);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t id = 100 + i;
		struct ibv_wc wc;

		if (cases[i].type2) {
			ck_assert_int_eq(post_bind2(&p, p.b, mw2, ibv_inc_rkey(mw2->rkey),
						    *cases[i].mr, baddr(&p, cases[i].off),
						    cases[i].len, cases[i].access, id), 0);
		} else {
			ck_assert_int_eq(bind1(&p, mw1, *cases[i].mr, cases[i].off,
					       cases[i].len, cases[i].access, id), 0);
		}
		wc = wait_id(&p, id);
		ck_assert_msg(wc.status == IBV_WC_MW_BIND_ERR, "case %zu: status %d",
			      i, wc.status);
		ck_assert_int_eq(state_of(p.b), IBV_QPS_ERR);
		new_qps(&p, IBV_QPT_RC);
	}
	/* no MR was left holding a window */
	ck_assert_int_eq(ibv_dereg_mr(nobind), 0);
	ck_assert_int_eq(ibv_dereg_mr(ro), 0);
	ck_assert_int_eq(ibv_dealloc_mw(mw1), 0);
	ck_assert_int_eq(ibv_dealloc_mw(mw2), 0);
	close_pair(&p);
}
END_TEST

/* A bind behind a WRITE that awaits its ACK completes after it */
START_TEST(local_ops_complete_in_order)
{
	struct pair p;
	struct ibv_mw *mw;
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_mr *rmr;
	struct ibv_wc wc[2];
	int n = 0;
	long end = now_ms() + TIMEOUT_MS;

	if (!open_pair(&p))
		return;
	rmr = ibv_reg_mr(p.pd, p.bbuf + 4096, 4096, IBV_ACCESS_LOCAL_WRITE |
						     IBV_ACCESS_REMOTE_WRITE);
	mw = ibv_alloc_mw(p.pd, IBV_MW_TYPE_2);
	ck_assert_ptr_nonnull(rmr);
	ck_assert_ptr_nonnull(mw);
	sge = (struct ibv_sge){ (uintptr_t)p.abuf, 4096, p.amr->lkey };
	wr.wr.rdma.remote_addr = (uintptr_t)p.bbuf + 4096;
	wr.wr.rdma.rkey = rmr->rkey;
	ck_assert_int_eq(ibv_post_send(p.b, &wr, &bad), 0);
	ck_assert_int_eq(post_bind2(&p, p.b, mw, ibv_inc_rkey(mw->rkey), p.bmr,
				    baddr(&p, 0), 8, IBV_ACCESS_REMOTE_READ, 2), 0);
	while (n < 2) {
		int got = ibv_poll_cq(p.cq, 2 - n, wc + n);

		ck_assert_int_ge(got, 0);
		n += got;
		ck_assert(now_ms() < end);
		if (!got)
			usleep(200);
	}
	ck_assert_uint_eq(wc[0].wr_id, 1);
	ck_assert_int_eq(wc[0].status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc[1].wr_id, 2);
	ck_assert_int_eq(wc[1].status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc[1].opcode, IBV_WC_BIND_MW);
	ck_assert_int_eq(ibv_dealloc_mw(mw), 0);
	ck_assert_int_eq(ibv_dereg_mr(rmr), 0);
	close_pair(&p);
}
END_TEST

static Suite *make_uroce_mw_suite(void)
{
	Suite *s = suite_create("uroce_mw");
	TCase *tc = tcase_create("windows");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, device_and_alloc);
	tcase_add_test(tc, type1_write_read_inside_and_out);
	tcase_add_test(tc, type2_send_with_inv_and_local_inv);
	tcase_add_test(tc, send_with_inv_of_three_packets);
	tcase_add_test(tc, type2_only_through_its_qp);
	tcase_add_test(tc, type2_zero_based);
	tcase_add_test(tc, send_with_inv_of_an_mr);
	tcase_add_test(tc, post_time_refusals);
	tcase_add_test(tc, bind_errors_complete_with_mw_bind_err);
	tcase_add_test(tc, local_ops_complete_in_order);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	uroce_isolate();
	return check_run(make_uroce_mw_suite());
}
