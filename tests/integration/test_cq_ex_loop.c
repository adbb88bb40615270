/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The documented ibv_create_cq_ex polling loop on rxe0 loses no
 * completion: ibv_start_poll, ibv_next_poll until ENOENT, ibv_end_poll,
 * over 10,000 signaled RDMA writes, each completion seen once and in
 * order. (rdma-core 44's rxe hangs here: its next_poll already hands the
 * slot back, and end_poll advances the index once more.) */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <check.h>

#include "../check_main.h"
#include "rxe_util.h"

#define TOTAL 10000
#define BATCH 32

START_TEST(test_loop_loses_nothing)
{
	struct rx_pair_opts o = { .cq_ex_flags = IBV_WC_EX_WITH_BYTE_LEN |
						 IBV_WC_EX_WITH_QP_NUM };
	struct rx_buf src, dst;
	struct rx_dev d;
	struct rx_pair p;
	uint64_t posted = 0, seen = 0;

	rx_dev_open(&d);
	rx_pair_create(&d, &p, IBV_QPT_RC, &o);
	rx_buf_alloc(&d, &src, 4096, IBV_ACCESS_LOCAL_WRITE);
	rx_buf_alloc(&d, &dst, 4096,
		     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);

	while (seen < TOTAL) {
		struct ibv_poll_cq_attr pa = { 0 };
		struct ibv_cq_ex *cq = p.scqx[0];
		time_t start = time(NULL);
		uint64_t batch_end;
		int ret;

		for (; posted < TOTAL && posted < seen + BATCH; posted++) {
			struct ibv_sge sge = { (uintptr_t)src.addr, 64,
					       src.mr->lkey };
			struct ibv_send_wr wr = {
				.wr_id = posted, .sg_list = &sge, .num_sge = 1,
				.opcode = IBV_WR_RDMA_WRITE,
				.send_flags = IBV_SEND_SIGNALED,
				.wr.rdma = { (uintptr_t)dst.addr, dst.mr->rkey },
			};

			rx_post_send(p.qp[0], &wr);
		}
		batch_end = posted;
		/* drain this batch with the documented loop */
		while (seen < batch_end) {
			ret = ibv_start_poll(cq, &pa);
			if (ret == ENOENT) {
				ck_assert_msg(time(NULL) - start < RX_WAIT_SECONDS,
					      "completion %llu never came (%llu posted)",
					      (unsigned long long)seen,
					      (unsigned long long)posted);
				continue;
			}
			ck_assert_int_eq(ret, 0);
			do {
				ck_assert_msg(cq->wr_id == seen,
					      "completion %llu where %llu was due",
					      (unsigned long long)cq->wr_id,
					      (unsigned long long)seen);
				ck_assert_int_eq(cq->status, IBV_WC_SUCCESS);
				ck_assert_int_eq(ibv_wc_read_opcode(cq),
						 IBV_WC_RDMA_WRITE);
				ck_assert_uint_eq(ibv_wc_read_qp_num(cq),
						  p.qp[0]->qp_num);
				seen++;
				ret = ibv_next_poll(cq);
			} while (ret == 0);
			ck_assert_int_eq(ret, ENOENT);
			ibv_end_poll(cq);
			ck_assert_uint_le(seen, batch_end);
		}
	}
	ck_assert_uint_eq(seen, TOTAL);
	/* and nothing more: every slot was consumed exactly once */
	{
		struct ibv_poll_cq_attr pa = { 0 };

		ck_assert_int_eq(ibv_start_poll(p.scqx[0], &pa), ENOENT);
	}
	rx_buf_free(&src);
	rx_buf_free(&dst);
	rx_pair_destroy(&p);
	rx_dev_close(&d);
}
END_TEST

static Suite *make_cq_ex_loop_suite(void)
{
	Suite *s = suite_create("cq_ex_loop");
	TCase *tc = tcase_create("loop");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_loop_loses_nothing);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	int pre = rx_precheck();

	if (pre)
		return pre;
	return check_run(make_cq_ex_loop_suite());
}
