/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * tests/unit/test_rxe_queue.c -- the rxe data path without a kernel: the
 * queues are memfd pages laid out like rdma_rxe's (struct rxe_queue_buf),
 * so the test plays the kernel's part. Checks the header validation, the
 * WQE bytes each opcode produces, full and empty rings, index wrap-round,
 * and the CQE translation (including the invalidate flag).
 */
#define _GNU_SOURCE
#include "config.h"

#include <check.h>
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rxe_dp.h"

#include "../check_main.h"

/* A fake kernel queue: nslots elements of 2^log2 bytes in a memfd. */
struct fake_q {
	int fd;
	struct mminfo mi;
	struct rxe_queue_buf *kview; /* the "kernel's" mapping */
};

static void fake_q_make(struct fake_q *f, uint32_t log2, uint32_t nslots)
{
	size_t len = sizeof(struct rxe_queue_buf) + ((size_t)nslots << log2);

	f->fd = memfd_create("rxe-queue", MFD_CLOEXEC);
	ck_assert_int_ge(f->fd, 0);
	ck_assert_int_eq(ftruncate(f->fd, (off_t)len), 0);
	f->kview = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd,
			0);
	ck_assert_ptr_ne(f->kview, MAP_FAILED);
	f->kview->log2_elem_size = log2;
	f->kview->index_mask = nslots - 1;
	f->mi.offset = 0;
	f->mi.size = (uint32_t)len;
}

static void fake_q_free(struct fake_q *f)
{
	munmap(f->kview, f->mi.size);
	close(f->fd);
}

static void *kslot(struct fake_q *f, uint32_t i)
{
	return f->kview->data + ((size_t)(i & f->kview->index_mask)
				 << f->kview->log2_elem_size);
}

START_TEST(test_map_checks_header)
{
	struct rxe_queue q;
	struct fake_q f;
	struct mminfo mi;

	fake_q_make(&f, 6, 8);
	ck_assert_int_eq(rxe_queue_map(&q, f.fd, &f.mi), 0);
	ck_assert_uint_eq(q.mask, 7);
	ck_assert_uint_eq(rxe_queue_elem_size(&q), 64);
	rxe_queue_unmap(&q);
	ck_assert_ptr_null(q.buf);

	/* a mask that is not 2^n - 1 */
	f.kview->index_mask = 6;
	ck_assert_int_eq(rxe_queue_map(&q, f.fd, &f.mi), EPROTO);
	/* more slots than the mapping holds */
	f.kview->index_mask = 15;
	ck_assert_int_eq(rxe_queue_map(&q, f.fd, &f.mi), EPROTO);
	/* a mapping too small for the header */
	f.kview->index_mask = 7;
	mi = f.mi;
	mi.size = 100;
	ck_assert_int_eq(rxe_queue_map(&q, f.fd, &mi), EPROTO);
	ck_assert_ptr_null(q.buf);
	fake_q_free(&f);
}
END_TEST

/* An RC QP whose send queue is a fake ring of 8 slots of 512 bytes. */
static void make_qp(struct rxe_qp *qp, struct fake_q *f, enum ibv_qp_type t)
{
	memset(qp, 0, sizeof(*qp));
	fake_q_make(f, 9, 8);
	qp->core.qp.qp_type = t;
	qp->core.qp.state = IBV_QPS_RTS;
	qp->ops_ok = rxe_sq_ops(t, 0);
	ck_assert_int_eq(rxe_wq_init(&qp->sq, f->fd, &f->mi,
				     sizeof(struct rxe_send_wqe), 4, 128), 0);
	/* slots hold what earlier WQEs left: posting must reset the
	 * kernel's state words itself */
	memset(rxe_queue_elem(&qp->sq.q, 0), 0xa5, 8u << 9);
}

START_TEST(test_send_wqe_layout)
{
	uint8_t payload[100];
	struct ibv_sge sge[2] = {
		{ 0x1000, 300, 0x11 },
		{ 0x2000, 200, 0x22 },
	};
	struct ibv_send_wr wr;
	struct rxe_send_wqe *w;
	struct rxe_qp qp;
	struct fake_q f;

	make_qp(&qp, &f, IBV_QPT_RC);

	/* RDMA write, two SGEs */
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 0xabc;
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.imm_data = htobe32(0x01020304);
	wr.sg_list = sge;
	wr.num_sge = 2;
	wr.wr.rdma.remote_addr = 0x7000;
	wr.wr.rdma.rkey = 0x55;
	ck_assert_int_eq(rxe_sq_post_wr(&qp, &wr), 0);
	w = kslot(&f, 0);
	ck_assert_uint_eq(w->wr.wr_id, 0xabc);
	ck_assert_uint_eq(w->wr.opcode, IB_UVERBS_WR_RDMA_WRITE_WITH_IMM);
	ck_assert_uint_eq(w->wr.send_flags, IBV_SEND_SIGNALED);
	ck_assert_uint_eq(w->wr.ex.imm_data, htobe32(0x01020304));
	ck_assert_uint_eq(w->wr.wr.rdma.remote_addr, 0x7000);
	ck_assert_uint_eq(w->wr.wr.rdma.rkey, 0x55);
	ck_assert_uint_eq(w->iova, 0x7000);
	ck_assert_uint_eq(w->dma.length, 500);
	ck_assert_uint_eq(w->dma.resid, 500);
	ck_assert_uint_eq(w->dma.num_sge, 2);
	ck_assert_uint_eq(w->dma.sge[1].addr, 0x2000);
	ck_assert_uint_eq(w->dma.sge[1].length, 200);
	ck_assert_uint_eq(w->dma.sge[1].lkey, 0x22);
	ck_assert_uint_eq(w->ssn, 0);
	ck_assert_uint_eq(w->status, 0);
	ck_assert_uint_eq(w->state, 0);
	ck_assert_uint_eq(w->has_rd_atomic, 0);
	ck_assert_uint_eq(w->dma.cur_sge, 0);
	ck_assert_uint_eq(w->dma.sge_offset, 0);

	/* inline: the bytes themselves */
	for (int i = 0; i < 100; i++)
		payload[i] = (uint8_t)i;
	sge[0] = (struct ibv_sge){ (uintptr_t)payload, 60, 0 };
	sge[1] = (struct ibv_sge){ (uintptr_t)(payload + 60), 40, 0 };
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_INLINE;
	wr.sg_list = sge;
	wr.num_sge = 2;
	ck_assert_int_eq(rxe_sq_post_wr(&qp, &wr), 0);
	w = kslot(&f, 1);
	ck_assert_uint_eq(w->wr.opcode, IB_UVERBS_WR_SEND);
	ck_assert_uint_eq(w->dma.length, 100);
	ck_assert_int_eq(memcmp(w->dma.inline_data, payload, 100), 0);
	ck_assert_uint_eq(w->ssn, 1);

	/* atomics: iova is the target, compare/swap carried */
	sge[0] = (struct ibv_sge){ 0x3000, 8, 0x33 };
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.sg_list = sge;
	wr.num_sge = 1;
	wr.wr.atomic.remote_addr = 0x8008;
	wr.wr.atomic.rkey = 0x66;
	wr.wr.atomic.compare_add = 1;
	wr.wr.atomic.swap = 2;
	ck_assert_int_eq(rxe_sq_post_wr(&qp, &wr), 0);
	w = kslot(&f, 2);
	ck_assert_uint_eq(w->wr.opcode, IB_UVERBS_WR_ATOMIC_CMP_AND_SWP);
	ck_assert_uint_eq(w->iova, 0x8008);
	ck_assert_uint_eq(w->wr.wr.atomic.rkey, 0x66);
	ck_assert_uint_eq(w->wr.wr.atomic.compare_add, 1);
	ck_assert_uint_eq(w->wr.wr.atomic.swap, 2);

	/* local invalidate carries the key in the ex word */
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_LOCAL_INV;
	wr.invalidate_rkey = 0x1234;
	ck_assert_int_eq(rxe_sq_post_wr(&qp, &wr), 0);
	w = kslot(&f, 3);
	ck_assert_uint_eq(w->wr.opcode, IB_UVERBS_WR_LOCAL_INV);
	ck_assert_uint_eq(w->wr.ex.invalidate_rkey, 0x1234);

	/* nothing is visible to the kernel before the ring is published */
	ck_assert_uint_eq(f.kview->producer_index, 0);
	rxe_wq_fini(&qp.sq);
	fake_q_free(&f);
}
END_TEST

START_TEST(test_send_refusals)
{
	struct ibv_sge sge[5] = { { 0x1000, 8, 1 } };
	struct ibv_send_wr wr, *bad = NULL;
	struct rxe_qp qp;
	struct fake_q f;

	make_qp(&qp, &f, IBV_QPT_UC);
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = sge;
	wr.num_sge = 1;
	/* not on UC */
	wr.opcode = IBV_WR_RDMA_READ;
	ck_assert_int_eq(rxe_sq_post_wr(&qp, &wr), EINVAL);
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	ck_assert_int_eq(rxe_sq_post_wr(&qp, &wr), EINVAL);
	wr.opcode = (enum ibv_wr_opcode)200;
	ck_assert_int_eq(rxe_sq_post_wr(&qp, &wr), EINVAL);
	/* too many SGEs; too much inline */
	wr.opcode = IBV_WR_SEND;
	wr.num_sge = 5;
	ck_assert_int_eq(rxe_sq_post_wr(&qp, &wr), EINVAL);
	wr.num_sge = 1;
	sge[0].length = qp.sq.max_inline + 1;
	wr.send_flags = IBV_SEND_INLINE;
	ck_assert_int_eq(rxe_sq_post_wr(&qp, &wr), EINVAL);
	/* a QP in RESET takes nothing */
	qp.core.qp.state = IBV_QPS_RESET;
	sge[0].length = 8;
	wr.send_flags = 0;
	ck_assert_int_eq(rxe_post_send(&qp.core.qp, &wr, &bad), EINVAL);
	ck_assert_ptr_eq(bad, &wr);
	ck_assert_uint_eq(qp.sq.prod, 0);
	rxe_wq_fini(&qp.sq);
	fake_q_free(&f);
}
END_TEST

START_TEST(test_recv_full_and_wrap)
{
	struct ibv_sge sge = { 0x4000, 64, 9 };
	struct ibv_recv_wr wr[10], *bad = NULL;
	struct rxe_recv_wqe *w;
	struct rxe_wq rq;
	struct fake_q f;

	memset(&rq, 0, sizeof(rq));
	fake_q_make(&f, 6, 8); /* 7 usable slots */
	ck_assert_int_eq(rxe_wq_init(&rq, f.fd, &f.mi,
				     sizeof(struct rxe_recv_wqe), 1, 0), 0);
	for (int i = 0; i < 10; i++) {
		wr[i] = (struct ibv_recv_wr){ .wr_id = 100 + (uint64_t)i,
					      .sg_list = &sge, .num_sge = 1,
					      .next = i < 9 ? &wr[i + 1] : NULL };
	}
	ck_assert_int_eq(rxe_wq_post_recv(&rq, wr, &bad), ENOMEM);
	ck_assert_ptr_eq(bad, &wr[7]);
	ck_assert_uint_eq(f.kview->producer_index, 7);
	w = kslot(&f, 6);
	ck_assert_uint_eq(w->wr_id, 106);
	ck_assert_uint_eq(w->dma.length, 64);
	ck_assert_uint_eq(w->dma.num_sge, 1);
	ck_assert_uint_eq(w->dma.sge[0].lkey, 9);

	/* the "kernel" consumes five: the next five fit, wrapping round */
	f.kview->consumer_index = 5;
	bad = NULL;
	ck_assert_int_eq(rxe_wq_post_recv(&rq, &wr[5], &bad), 0);
	ck_assert_ptr_null(bad);
	ck_assert_uint_eq(f.kview->producer_index, (7 + 5) & 7);
	w = kslot(&f, 7 + 4);
	ck_assert_uint_eq(w->wr_id, 109);

	/* more SGEs than the queue takes */
	wr[0].num_sge = 2;
	wr[0].next = NULL;
	ck_assert_int_eq(rxe_wq_post_recv(&rq, wr, &bad), EINVAL);
	ck_assert_ptr_eq(bad, &wr[0]);
	rxe_wq_fini(&rq);
	fake_q_free(&f);
}
END_TEST

START_TEST(test_cq_poll)
{
	struct ib_uverbs_wc *k;
	struct ibv_wc wc[4];
	struct rxe_cq cq;
	struct fake_q f;

	memset(&cq, 0, sizeof(cq));
	fake_q_make(&f, 6, 4);
	ck_assert_int_eq(rxe_queue_map(&cq.q, f.fd, &f.mi), 0);
	sv_lock_init(&cq.lock);
	ck_assert_int_eq(rxe_poll_cq(&cq.core.cq, 4, wc), 0);

	/* the kernel writes three entries, wrapping past slot 3 */
	f.kview->producer_index = 2;
	f.kview->consumer_index = 2;
	cq.cons = 2;
	for (uint32_t i = 0; i < 3; i++) {
		k = kslot(&f, 2 + i);
		memset(k, 0, sizeof(*k));
		k->wr_id = 10 + i;
		k->status = i == 2 ? IBV_WC_WR_FLUSH_ERR : IBV_WC_SUCCESS;
		k->opcode = IBV_WC_RECV;
		k->byte_len = 100 * i;
		k->qp_num = 0x42;
		k->src_qp = 0x43;
		k->ex.invalidate_rkey = 0x777;
		/* the kernel's flags: GRH | WITH_INVALIDATE */
		k->wc_flags = 1 | 4;
	}
	f.kview->producer_index = (2 + 3) & 3;

	ck_assert_int_eq(rxe_poll_cq(&cq.core.cq, 2, wc), 2);
	ck_assert_uint_eq(wc[0].wr_id, 10);
	ck_assert_uint_eq(wc[1].wr_id, 11);
	ck_assert_uint_eq(wc[1].byte_len, 100);
	ck_assert_uint_eq(wc[1].qp_num, 0x42);
	ck_assert_uint_eq(wc[1].src_qp, 0x43);
	ck_assert_uint_eq(wc[1].wc_flags, IBV_WC_GRH | IBV_WC_WITH_INV);
	ck_assert_uint_eq(wc[1].invalidated_rkey, 0x777);
	/* slots handed back to the kernel */
	ck_assert_uint_eq(f.kview->consumer_index, 0);
	ck_assert_int_eq(rxe_poll_cq(&cq.core.cq, 4, wc), 1);
	ck_assert_uint_eq(wc[0].wr_id, 12);
	ck_assert_int_eq(wc[0].status, IBV_WC_WR_FLUSH_ERR);
	ck_assert_int_eq(rxe_poll_cq(&cq.core.cq, 4, wc), 0);
	ck_assert_uint_eq(f.kview->consumer_index, 1);
	rxe_queue_unmap(&cq.q);
	fake_q_free(&f);
}
END_TEST

START_TEST(test_wc_flags)
{
	ck_assert_uint_eq(rxe_wc_flags(0), 0);
	ck_assert_uint_eq(rxe_wc_flags(1), IBV_WC_GRH);
	ck_assert_uint_eq(rxe_wc_flags(2), IBV_WC_WITH_IMM);
	ck_assert_uint_eq(rxe_wc_flags(4), IBV_WC_WITH_INV);
	ck_assert_uint_eq(rxe_wc_flags(8), IBV_WC_IP_CSUM_OK);
}
END_TEST

static Suite *make_rxe_queue_suite(void)
{
	Suite *s = suite_create("rxe_queue");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_map_checks_header);
	tcase_add_test(tc, test_send_wqe_layout);
	tcase_add_test(tc, test_send_refusals);
	tcase_add_test(tc, test_recv_full_and_wrap);
	tcase_add_test(tc, test_cq_poll);
	tcase_add_test(tc, test_wc_flags);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(make_rxe_queue_suite());
}
