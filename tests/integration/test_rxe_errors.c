/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * tests/integration/test_rxe_errors.c -- what an application sees when
 * things go wrong on softverbs' rxe provider (inside the test VM): posts
 * rejected by QP state, opcode or size; full queues (ENOMEM, bad_wr at the
 * first WR not posted); ibv_wr_* batches refused or aborted (nothing
 * posted); error completions with the right status (remote
 * access, bad rkey, RNR retry exceeded, flush on QP error); async events
 * (CQ overflow, SRQ limit); CQ resize and SRQ resize keeping what was
 * queued. Outside the VM the program exits 77.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rxe_util.h"

#include "../check_main.h"

#define ACC_ALL (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

static struct ibv_send_wr send_wr(uint64_t id, struct ibv_sge *sge, int n)
{
	struct ibv_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.sg_list = sge;
	wr.num_sge = n;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	return wr;
}

/* Sends need RTS; receives need anything but RESET. */
START_TEST(test_post_by_state)
{
	struct rx_pair_opts o = { .no_connect = 1 };
	struct ibv_send_wr swr = send_wr(1, NULL, 0), *sbad = NULL;
	struct ibv_recv_wr rwr = { .wr_id = 2 }, *rbad = NULL;
	struct rx_dev d;
	struct rx_pair p;

	rx_dev_open(&d);
	rx_pair_create(&d, &p, IBV_QPT_RC, &o);
	ck_assert_int_eq(ibv_post_send(p.qp[0], &swr, &sbad), EINVAL);
	ck_assert_ptr_eq(sbad, &swr);
	ck_assert_int_eq(ibv_post_recv(p.qp[0], &rwr, &rbad), EINVAL);
	ck_assert_ptr_eq(rbad, &rwr);

	rx_qp_to(&d, &p, 0, IBV_QPS_INIT, NULL);
	sbad = NULL;
	ck_assert_int_eq(ibv_post_send(p.qp[0], &swr, &sbad), EINVAL);
	ck_assert_ptr_eq(sbad, &swr);
	rbad = NULL;
	ck_assert_int_eq(ibv_post_recv(p.qp[0], &rwr, &rbad), 0);
	ck_assert_ptr_null(rbad);

	rx_qp_to(&d, &p, 0, IBV_QPS_RTR, NULL);
	sbad = NULL;
	ck_assert_int_eq(ibv_post_send(p.qp[0], &swr, &sbad), EINVAL);
	ck_assert_ptr_eq(sbad, &swr);
	rx_pair_destroy(&p);
	rx_dev_close(&d);
}
END_TEST

/* Work requests the QP cannot carry are refused at post time, and the
 * ones before them in the list are posted. */
START_TEST(test_bad_wrs)
{
	struct rx_buf b;
	struct ibv_sge sge[8];
	struct ibv_send_wr wr[2], *bad;
	struct ibv_wc wc;
	struct rx_dev d;
	struct rx_pair rc, ud;

	rx_dev_open(&d);
	rx_pair_create(&d, &rc, IBV_QPT_RC, NULL);
	rx_pair_create(&d, &ud, IBV_QPT_UD, NULL);
	rx_buf_alloc(&d, &b, 4096, ACC_ALL);
	for (int i = 0; i < 8; i++)
		sge[i] = (struct ibv_sge){ (uintptr_t)b.addr, 8, b.mr->lkey };

	/* RDMA on UD */
	wr[0] = send_wr(1, sge, 1);
	wr[0].opcode = IBV_WR_RDMA_WRITE;
	bad = NULL;
	ck_assert_int_eq(ibv_post_send(ud.qp[0], &wr[0], &bad), EINVAL);
	ck_assert_ptr_eq(bad, &wr[0]);

	/* more SGEs than granted, second in a list: the first goes */
	ck_assert_uint_lt(rc.init[0].cap.max_send_sge, 8);
	rx_post_recv(rc.qp[1], 7, sge, 1);
	wr[0] = send_wr(1, sge, 1);
	wr[1] = send_wr(2, sge, 8);
	wr[0].next = &wr[1];
	bad = NULL;
	ck_assert_int_eq(ibv_post_send(rc.qp[0], wr, &bad), EINVAL);
	ck_assert_ptr_eq(bad, &wr[1]);
	rx_wait_wc(rc.scq[0], &wc);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, 1);

	/* inline data longer than granted */
	sge[0].length = rc.init[0].cap.max_inline_data + 1;
	wr[0] = send_wr(3, sge, 1);
	wr[0].send_flags |= IBV_SEND_INLINE;
	bad = NULL;
	ck_assert_int_eq(ibv_post_send(rc.qp[0], &wr[0], &bad), EINVAL);
	ck_assert_ptr_eq(bad, &wr[0]);

	/* an atomic on a misaligned address */
	sge[0].length = 8;
	wr[0] = send_wr(4, sge, 1);
	wr[0].opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr[0].wr.atomic.remote_addr = (uintptr_t)b.addr + 4;
	wr[0].wr.atomic.rkey = b.mr->rkey;
	bad = NULL;
	ck_assert_int_eq(ibv_post_send(rc.qp[0], &wr[0], &bad), EINVAL);
	ck_assert_ptr_eq(bad, &wr[0]);
	ck_assert(rx_cq_empty(rc.scq[0]));

	rx_buf_free(&b);
	rx_pair_destroy(&ud);
	rx_pair_destroy(&rc);
	rx_dev_close(&d);
}
END_TEST

/* A full send queue: ENOMEM, bad_wr at the first WR not posted, and every
 * WR before it really was posted (they all flush when the QP fails). */
START_TEST(test_queues_full)
{
	/* side 0 talks to a QPN nobody has and waits ~2 hours per try:
	 * nothing it posts can complete on its own */
	struct rx_pair_opts o = { .max_send_wr = 8, .max_recv_wr = 8,
				  .dest_qpn_override = 0xfffff0,
				  .timeout = 31 };
	enum { N = 64 };
	struct ibv_send_wr swr[N], *sbad = NULL;
	struct ibv_recv_wr rwr[N], *rbad = NULL;
	struct ibv_wc wc;
	struct rx_dev d;
	struct rx_pair p;
	long k;
	int ret;

	rx_dev_open(&d);
	rx_pair_create(&d, &p, IBV_QPT_RC, &o);
	for (int i = 0; i < N; i++) {
		swr[i] = send_wr((uint64_t)i, NULL, 0);
		swr[i].next = i + 1 < N ? &swr[i + 1] : NULL;
		memset(&rwr[i], 0, sizeof(rwr[i]));
		rwr[i].wr_id = 1000 + (uint64_t)i;
		rwr[i].next = i + 1 < N ? &rwr[i + 1] : NULL;
	}

	ret = ibv_post_send(p.qp[0], swr, &sbad);
	ck_assert_int_eq(ret, ENOMEM);
	ck_assert_ptr_nonnull(sbad);
	k = sbad - swr;
	ck_assert_int_ge(k, p.init[0].cap.max_send_wr);
	ck_assert_int_lt(k, N);

	ret = ibv_post_recv(p.qp[0], rwr, &rbad);
	ck_assert_int_eq(ret, ENOMEM);
	ck_assert_ptr_nonnull(rbad);
	ck_assert_int_ge(rbad - rwr, p.init[0].cap.max_recv_wr);
	ck_assert_int_lt(rbad - rwr, N);

	/* the error state flushes exactly what was posted, in order */
	rx_qp_to(&d, &p, 0, IBV_QPS_ERR, NULL);
	for (long i = 0; i < k; i++) {
		rx_wait_wc(p.scq[0], &wc);
		ck_assert_uint_eq(wc.wr_id, (uint64_t)i);
		ck_assert_int_ne(wc.status, IBV_WC_SUCCESS);
	}
	for (long i = 0; i < rbad - rwr; i++) {
		rx_wait_wc(p.rcq[0], &wc);
		ck_assert_uint_eq(wc.wr_id, 1000 + (uint64_t)i);
		ck_assert_int_eq(wc.status, IBV_WC_WR_FLUSH_ERR);
	}
	ck_assert(rx_cq_empty(p.scq[0]));
	ck_assert(rx_cq_empty(p.rcq[0]));
	rx_pair_destroy(&p);
	rx_dev_close(&d);
}
END_TEST

/* Remote access errors: 0 the target MR lacks REMOTE_WRITE, 1 the rkey
 * names no MR, 2 the range runs past the MR. */
START_TEST(test_remote_access)
{
	static const char *const what[] = { "no permission", "bad rkey",
					    "out of bounds" };
	struct rx_buf src, dst;
	struct ibv_sge sge;
	struct ibv_send_wr wr;
	struct ibv_wc wc;
	struct rx_dev d;
	struct rx_pair p;

	fprintf(stderr, "remote access: %s\n", what[_i]);
	rx_dev_open(&d);
	rx_pair_create(&d, &p, IBV_QPT_RC, NULL);
	rx_buf_alloc(&d, &src, 4096, ACC_ALL);
	rx_buf_alloc(&d, &dst, 4096,
		     _i == 0 ? IBV_ACCESS_LOCAL_WRITE : ACC_ALL);
	memset(dst.addr, 0xee, 4096);
	sge = (struct ibv_sge){ (uintptr_t)src.addr, 256, src.mr->lkey };
	wr = send_wr(9, &sge, 1);
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = (uintptr_t)dst.addr;
	wr.wr.rdma.rkey = dst.mr->rkey;
	if (_i == 1)
		wr.wr.rdma.rkey = dst.mr->rkey + 0x1000;
	if (_i == 2)
		wr.wr.rdma.remote_addr = (uintptr_t)dst.addr + 4096 - 128;
	rx_post_send(p.qp[0], &wr);
	rx_wait_wc(p.scq[0], &wc);
	ck_assert_msg(wc.status == IBV_WC_REM_ACCESS_ERR, "status %s",
		      ibv_wc_status_str(wc.status));
	ck_assert_uint_eq(wc.wr_id, 9);
	for (int i = 0; i < 4096; i++)
		ck_assert_uint_eq(dst.addr[i], 0xee);
	rx_buf_free(&src);
	rx_buf_free(&dst);
	rx_pair_destroy(&p);
	rx_dev_close(&d);
}
END_TEST

/* No receive posted and rnr_retry 0: the send fails with RNR retry
 * exceeded. */
START_TEST(test_rnr_retry)
{
	struct rx_pair_opts o = { .rnr_set = 1, .rnr_retry = 0,
				  .min_rnr_timer = 1 };
	struct ibv_send_wr wr = send_wr(5, NULL, 0);
	struct ibv_wc wc;
	struct rx_dev d;
	struct rx_pair p;

	rx_dev_open(&d);
	rx_pair_create(&d, &p, IBV_QPT_RC, &o);
	rx_post_send(p.qp[0], &wr);
	rx_wait_wc(p.scq[0], &wc);
	ck_assert_msg(wc.status == IBV_WC_RNR_RETRY_EXC_ERR, "status %s",
		      ibv_wc_status_str(wc.status));
	ck_assert_uint_eq(wc.wr_id, 5);
	rx_pair_destroy(&p);
	rx_dev_close(&d);
}
END_TEST

/* A QP moved to ERR flushes its receives, and sends posted afterwards
 * complete with a flush error too. */
START_TEST(test_flush)
{
	struct ibv_send_wr wr = send_wr(50, NULL, 0);
	struct ibv_wc wc;
	struct rx_dev d;
	struct rx_pair p;

	rx_dev_open(&d);
	rx_pair_create(&d, &p, IBV_QPT_RC, NULL);
	for (int i = 0; i < 3; i++)
		rx_post_recv(p.qp[1], 10 + (uint64_t)i, NULL, 0);
	rx_qp_to(&d, &p, 1, IBV_QPS_ERR, NULL);
	for (int i = 0; i < 3; i++) {
		rx_wait_wc(p.rcq[1], &wc);
		ck_assert_int_eq(wc.status, IBV_WC_WR_FLUSH_ERR);
		ck_assert_uint_eq(wc.wr_id, 10 + (uint64_t)i);
		ck_assert_uint_eq(wc.qp_num, p.qp[1]->qp_num);
	}
	rx_post_send(p.qp[1], &wr);
	rx_wait_wc(p.scq[1], &wc);
	ck_assert_int_eq(wc.status, IBV_WC_WR_FLUSH_ERR);
	ck_assert_uint_eq(wc.wr_id, 50);
	rx_pair_destroy(&p);
	rx_dev_close(&d);
}
END_TEST

/* More completions than the CQ holds: IBV_EVENT_CQ_ERR for that CQ. */
START_TEST(test_cq_overflow)
{
	struct rx_pair_opts o = { .cqe = 4, .max_recv_wr = 64 };
	struct ibv_async_event ev;
	struct rx_dev d;
	struct rx_pair p;
	int n;

	rx_dev_open(&d);
	rx_pair_create(&d, &p, IBV_QPT_RC, &o);
	n = p.rcq[1]->cqe + 4;
	ck_assert_int_le(n, (int)p.init[1].cap.max_recv_wr);
	for (int i = 0; i < n; i++)
		rx_post_recv(p.qp[1], (uint64_t)i, NULL, 0);
	rx_qp_to(&d, &p, 1, IBV_QPS_ERR, NULL);
	rx_wait_async(d.ctx, &ev);
	ck_assert_msg(ev.event_type == IBV_EVENT_CQ_ERR, "event %s",
		      ibv_event_type_str(ev.event_type));
	ck_assert_ptr_eq(ev.element.cq, p.rcq[1]);
	ibv_ack_async_event(&ev);
	rx_pair_destroy(&p);
	rx_dev_close(&d);
}
END_TEST

/* An armed SRQ limit fires once the queue runs below it; the SRQ keeps
 * working after a resize. */
START_TEST(test_srq_limit)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_srq_attr attr;
	struct ibv_async_event ev;
	struct ibv_recv_wr rwr, *bad;
	struct ibv_sge sge;
	struct ibv_send_wr wr;
	struct rx_pair_opts o;
	struct rx_buf src, dst;
	struct ibv_srq *srq;
	struct ibv_wc wc;
	struct rx_dev d;
	struct rx_pair p;

	rx_dev_open(&d);
	srq = ibv_create_srq(d.pd, &sa);
	ck_assert_ptr_nonnull(srq);
	memset(&o, 0, sizeof(o));
	o.srq = srq;
	rx_pair_create(&d, &p, IBV_QPT_RC, &o);
	rx_buf_alloc(&d, &src, 4096, ACC_ALL);
	rx_buf_alloc(&d, &dst, 4096, ACC_ALL);

	for (int i = 0; i < 5; i++) {
		sge = (struct ibv_sge){ (uintptr_t)(dst.addr + i * 512), 512,
					dst.mr->lkey };
		rwr = (struct ibv_recv_wr){ .wr_id = 20 + (uint64_t)i,
					    .sg_list = &sge, .num_sge = 1 };
		ck_assert_int_eq(ibv_post_srq_recv(srq, &rwr, &bad), 0);
	}
	attr.srq_limit = 3;
	ck_assert_int_eq(ibv_modify_srq(srq, &attr, IBV_SRQ_LIMIT), 0);
	ck_assert_int_eq(ibv_query_srq(srq, &attr), 0);
	ck_assert_uint_eq(attr.srq_limit, 3);

	rx_fill(src.addr, 4096, 11);
	for (int i = 0; i < 3; i++) {
		sge = (struct ibv_sge){ (uintptr_t)(src.addr + i * 100), 100,
					src.mr->lkey };
		wr = send_wr(30 + (uint64_t)i, &sge, 1);
		rx_post_send(p.qp[0], &wr);
		rx_wait_wc(p.scq[0], &wc);
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		rx_wait_wc(p.rcq[1], &wc);
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		ck_assert_uint_eq(wc.wr_id, 20 + (uint64_t)i);
		ck_assert_int_eq(memcmp(dst.addr + i * 512, src.addr + i * 100,
					100), 0);
	}
	rx_wait_async(d.ctx, &ev);
	ck_assert_msg(ev.event_type == IBV_EVENT_SRQ_LIMIT_REACHED, "event %s",
		      ibv_event_type_str(ev.event_type));
	ck_assert_ptr_eq(ev.element.srq, srq);
	ibv_ack_async_event(&ev);

	/* grow it: the two WRs still queued survive the new ring */
	attr.max_wr = 64;
	ck_assert_int_eq(ibv_modify_srq(srq, &attr, IBV_SRQ_MAX_WR), 0);
	for (int i = 3; i < 5; i++) {
		sge = (struct ibv_sge){ (uintptr_t)(src.addr + i * 100), 100,
					src.mr->lkey };
		wr = send_wr(30 + (uint64_t)i, &sge, 1);
		rx_post_send(p.qp[0], &wr);
		rx_wait_wc(p.scq[0], &wc);
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		rx_wait_wc(p.rcq[1], &wc);
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		ck_assert_uint_eq(wc.wr_id, 20 + (uint64_t)i);
	}
	/* and new ones go into the new ring */
	sge = (struct ibv_sge){ (uintptr_t)dst.addr, 512, dst.mr->lkey };
	rwr = (struct ibv_recv_wr){ .wr_id = 99, .sg_list = &sge,
				    .num_sge = 1 };
	ck_assert_int_eq(ibv_post_srq_recv(srq, &rwr, &bad), 0);
	wr = send_wr(98, &sge, 0);
	rx_post_send(p.qp[0], &wr);
	rx_wait_wc(p.rcq[1], &wc);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, 99);

	rx_buf_free(&src);
	rx_buf_free(&dst);
	rx_pair_destroy(&p);
	ck_assert_int_eq(ibv_destroy_srq(srq), 0);
	rx_dev_close(&d);
}
END_TEST

/* Completions waiting in a CQ survive a resize, in order. */
START_TEST(test_resize_cq)
{
	struct rx_pair_opts o = { .cqe = 16 };
	struct ibv_send_wr wr;
	struct ibv_wc wc;
	struct rx_dev d;
	struct rx_pair p;

	rx_dev_open(&d);
	rx_pair_create(&d, &p, IBV_QPT_RC, &o);
	for (int i = 0; i < 6; i++) {
		rx_post_recv(p.qp[1], 40 + (uint64_t)i, NULL, 0);
		wr = send_wr(60 + (uint64_t)i, NULL, 0);
		rx_post_send(p.qp[0], &wr);
	}
	/* all six landed before resizing */
	for (int i = 0; i < 6; i++) {
		rx_wait_wc(p.scq[0], &wc);
		ck_assert_uint_eq(wc.wr_id, 60 + (uint64_t)i);
	}
	ck_assert_int_eq(ibv_resize_cq(p.rcq[1], 100), 0);
	ck_assert_int_ge(p.rcq[1]->cqe, 100);
	for (int i = 0; i < 6; i++) {
		rx_wait_wc(p.rcq[1], &wc);
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		ck_assert_uint_eq(wc.wr_id, 40 + (uint64_t)i);
	}
	ck_assert(rx_cq_empty(p.rcq[1]));
	/* and the resized CQ keeps working */
	rx_post_recv(p.qp[1], 77, NULL, 0);
	wr = send_wr(78, NULL, 0);
	rx_post_send(p.qp[0], &wr);
	rx_wait_wc(p.rcq[1], &wc);
	ck_assert_uint_eq(wc.wr_id, 77);
	rx_pair_destroy(&p);
	rx_dev_close(&d);
}
END_TEST

/* The ibv_wr_* API's refusals and rewinds: a single WR and a wr_* batch
 * into a full send queue (ENOMEM, bad_wr the WR itself, nothing of the
 * batch posted); a batch with an atomic on 4 local bytes, with a setter
 * and no WR open, or aborted after three WRs posts nothing, and the next
 * batch's completions follow on in order; a UD WR without
 * ibv_wr_set_ud_addr is refused, with it the message arrives. */
START_TEST(test_ex_refusals)
{
	const uint64_t rc_ops = IBV_QP_EX_WITH_SEND |
				IBV_QP_EX_WITH_RDMA_WRITE |
				IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;
	struct rx_pair_opts dead = { .max_send_wr = 8, .send_ops = rc_ops,
				     .dest_qpn_override = 0xfffff0,
				     .timeout = 31 };
	struct rx_pair_opts rc = { .send_ops = rc_ops };
	struct rx_pair_opts ud = { .send_ops = IBV_QP_EX_WITH_SEND };
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_sge rsge;
	struct ibv_qp_ex *qx;
	struct rx_buf b;
	struct ibv_wc wc;
	struct rx_dev d;
	struct rx_pair p;
	long k = 0;
	int ret;

	rx_dev_open(&d);

	/* a full queue, one WR at a time and as a batch */
	rx_pair_create(&d, &p, IBV_QPT_RC, &dead);
	qx = ibv_qp_to_qp_ex(p.qp[0]);
	ck_assert_ptr_nonnull(qx);
	for (;; k++) {
		wr = send_wr((uint64_t)k, NULL, 0);
		ret = ibv_post_send(p.qp[0], &wr, &bad);
		if (ret)
			break;
		ck_assert_ptr_null(bad);
		ck_assert_int_lt(k, 1000);
	}
	ck_assert_int_eq(ret, ENOMEM);
	ck_assert_ptr_eq(bad, &wr);
	ck_assert_int_ge(k, p.init[0].cap.max_send_wr);
	ibv_wr_start(qx);
	qx->wr_id = 5000;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qx);
	ibv_wr_set_sge_list(qx, 0, NULL);
	ck_assert_int_eq(ibv_wr_complete(qx), ENOMEM);
	/* the error state flushes exactly the k single WRs */
	rx_qp_to(&d, &p, 0, IBV_QPS_ERR, NULL);
	for (long i = 0; i < k; i++) {
		rx_wait_wc(p.scq[0], &wc);
		ck_assert_uint_eq(wc.wr_id, (uint64_t)i);
	}
	ck_assert(rx_cq_empty(p.scq[0]));
	rx_pair_destroy(&p);

	/* batches that post nothing, then one that does */
	rx_pair_create(&d, &p, IBV_QPT_RC, &rc);
	rx_buf_alloc(&d, &b, 8192, ACC_ALL);
	qx = ibv_qp_to_qp_ex(p.qp[0]);
	ck_assert_ptr_nonnull(qx);
	ibv_wr_start(qx);
	qx->wr_id = 1;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_fetch_add(qx, b.mr->rkey, (uintptr_t)(b.addr + 4096), 1);
	ibv_wr_set_sge(qx, b.mr->lkey, (uintptr_t)b.addr, 4);
	ck_assert_int_eq(ibv_wr_complete(qx), EINVAL);
	ibv_wr_start(qx);
	ibv_wr_set_sge(qx, b.mr->lkey, (uintptr_t)b.addr, 8);
	ck_assert_int_eq(ibv_wr_complete(qx), EINVAL);
	ibv_wr_start(qx);
	for (int i = 0; i < 3; i++) {
		qx->wr_id = 10 + (uint64_t)i;
		ibv_wr_rdma_write(qx, b.mr->rkey, (uintptr_t)(b.addr + 4096));
		ibv_wr_set_sge(qx, b.mr->lkey, (uintptr_t)b.addr, 8);
	}
	ibv_wr_abort(qx);
	ck_assert(rx_cq_empty(p.scq[0]));
	ibv_wr_start(qx);
	for (int i = 0; i < 2; i++) {
		qx->wr_id = 20 + (uint64_t)i;
		ibv_wr_rdma_write(qx, b.mr->rkey, (uintptr_t)(b.addr + 4096));
		ibv_wr_set_sge(qx, b.mr->lkey, (uintptr_t)b.addr, 8);
	}
	ck_assert_int_eq(ibv_wr_complete(qx), 0);
	for (int i = 0; i < 2; i++) {
		rx_wait_wc(p.scq[0], &wc);
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		ck_assert_uint_eq(wc.wr_id, 20 + (uint64_t)i);
	}
	ck_assert(rx_cq_empty(p.scq[0]));
	rx_buf_free(&b);
	rx_pair_destroy(&p);

	/* UD: the address is not optional */
	rx_pair_create(&d, &p, IBV_QPT_UD, &ud);
	rx_buf_alloc(&d, &b, 8192, ACC_ALL);
	rx_fill(b.addr, 64, 7);
	rsge = (struct ibv_sge){ (uintptr_t)(b.addr + 4096), 64 + RX_GRH,
				 b.mr->lkey };
	rx_post_recv(p.qp[1], 99, &rsge, 1);
	qx = ibv_qp_to_qp_ex(p.qp[0]);
	ck_assert_ptr_nonnull(qx);
	ibv_wr_start(qx);
	qx->wr_id = 30;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qx);
	ibv_wr_set_sge(qx, b.mr->lkey, (uintptr_t)b.addr, 64);
	ck_assert_int_eq(ibv_wr_complete(qx), EINVAL);
	ibv_wr_start(qx);
	qx->wr_id = 31;
	ibv_wr_send(qx);
	ibv_wr_set_sge(qx, b.mr->lkey, (uintptr_t)b.addr, 64);
	ibv_wr_set_ud_addr(qx, p.ah[0], p.qp[1]->qp_num, RX_UD_QKEY);
	ck_assert_int_eq(ibv_wr_complete(qx), 0);
	rx_wait_wc(p.scq[0], &wc);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, 31);
	rx_wait_wc(p.rcq[1], &wc);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, 99);
	ck_assert_uint_eq(wc.byte_len, 64 + RX_GRH);
	ck_assert_int_eq(rx_diff(b.addr + 4096 + RX_GRH, b.addr, 64), -1);
	ck_assert(rx_cq_empty(p.scq[0]));
	rx_buf_free(&b);
	rx_pair_destroy(&p);
	rx_dev_close(&d);
}
END_TEST

static Suite *make_rxe_errors_suite(void)
{
	Suite *s = suite_create("rxe_errors");
	TCase *tc = tcase_create("errors");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_post_by_state);
	tcase_add_test(tc, test_bad_wrs);
	tcase_add_test(tc, test_queues_full);
	tcase_add_test(tc, test_ex_refusals);
	tcase_add_loop_test(tc, test_remote_access, 0, 3);
	tcase_add_test(tc, test_rnr_retry);
	tcase_add_test(tc, test_flush);
	tcase_add_test(tc, test_cq_overflow);
	tcase_add_test(tc, test_srq_limit);
	tcase_add_test(tc, test_resize_cq);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	int pre = rx_precheck();

	if (pre)
		return pre;
	return check_run(make_rxe_errors_suite());
}
