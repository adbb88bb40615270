/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The extended QP (ibv_qp_ex, the ibv_wr_* API) through whichever
 * provider drives $RXE_DEV: softverbs' rxe, or (SOFTVERBS_PROVIDERS=
 * rdma-core) rdma-core's librxe of the system's release. The core writes
 * verbs_qp.comp_mask into every provider's QP and reads it back in
 * ibv_qp_to_qp_ex; rdma-core 45 moved it (ibv_qp_ex grew wr_flush), so
 * a provider driven with the wrong generation's layout would lose its
 * ibv_qp_ex, or have the core's write land on its wr_flush. What must
 * hold:
 *
 *  - a QP created with send_ops_flags has an ibv_qp_ex, at the QP, and an
 *    RDMA WRITE and a SEND posted through it arrive, every byte checked;
 *  - under rdma-core 45 or later (Debian 13's librxe), a QP with
 *    IBV_QP_EX_WITH_FLUSH keeps the wr_flush librxe put in before its
 *    CREATE_QP: the pointer still points into librxe.
 *
 * Runs in the plain and rdma-core passes of every generation's stage. */
#include "config.h"

#include <check.h>
#include <dlfcn.h>
#include <endian.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "rxe_util.h"
#include "../check_main.h"

#define QP_EX_WITH_FLUSH (1ull << 11)  /* rdma-core 45's IBV_QP_EX_WITH_FLUSH */
#define WR_FLUSH_OFFSET 352            /* where 45's ibv_qp_ex has wr_flush */

static int rdma_core_mode(void)
{
	const char *m = getenv("SOFTVERBS_PROVIDERS");

	return m && !strcmp(m, "rdma-core");
}

/* The rdma-core release the system's providers come from (the name of
 * the libibverbs.so.1 installed with them), 0 when it does not say. */
static unsigned int system_release(void)
{
	char real[PATH_MAX];
	unsigned int minor, rel, patch;
	const char *b;

	if (!realpath("/usr/lib/x86_64-linux-gnu/libibverbs.so.1", real))
		return 0;
	b = strrchr(real, '/') + 1;
	if (sscanf(b, "libibverbs.so.1.%u.%u.%u", &minor, &rel, &patch) != 3)
		return 0;
	return rel;
}

START_TEST(wr_api_writes_and_sends)
{
	struct rx_pair_opts o = {
		.send_ops = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_SEND,
	};
	struct rx_buf src, dst, rbuf;
	struct ibv_qp_ex *qpx;
	struct ibv_sge rsg;
	struct ibv_wc wc;
	struct rx_dev d;
	struct rx_pair p;

	rx_dev_open(&d);
	rx_pair_create(&d, &p, IBV_QPT_RC, &o);
	qpx = ibv_qp_to_qp_ex(p.qp[0]);
	ck_assert_ptr_nonnull(qpx);
	ck_assert_ptr_eq((void *)qpx, (void *)p.qp[0]);
	ck_assert_ptr_nonnull(qpx->wr_start);
	ck_assert_ptr_nonnull(qpx->wr_rdma_write);
	ck_assert_ptr_nonnull(qpx->wr_send);

	rx_buf_alloc(&d, &src, 8192, IBV_ACCESS_LOCAL_WRITE);
	rx_buf_alloc(&d, &dst, 8192, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	rx_buf_alloc(&d, &rbuf, 4096, IBV_ACCESS_LOCAL_WRITE);
	rx_fill(src.addr, src.len, 45);
	rsg = (struct ibv_sge){ (uintptr_t)rbuf.addr, 1000, rbuf.mr->lkey };
	rx_post_recv(p.qp[1], 0x99, &rsg, 1);

	ibv_wr_start(qpx);
	qpx->wr_id = 1;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(qpx, dst.mr->rkey, (uintptr_t)dst.addr);
	ibv_wr_set_sge(qpx, src.mr->lkey, (uintptr_t)src.addr, 6000);
	qpx->wr_id = 2;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, src.mr->lkey, (uintptr_t)(src.addr + 6000), 1000);
	ck_assert_int_eq(ibv_wr_complete(qpx), 0);

	rx_wait_wc(p.scq[0], &wc);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, 1);
	ck_assert_int_eq(wc.opcode, IBV_WC_RDMA_WRITE);
	rx_wait_wc(p.scq[0], &wc);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, 2);
	rx_wait_wc(p.rcq[1], &wc);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, 0x99);
	ck_assert_uint_eq(wc.byte_len, 1000);
	ck_assert_int_eq(rx_diff(dst.addr, src.addr, 6000), -1);
	ck_assert_int_eq(rx_diff(rbuf.addr, src.addr + 6000, 1000), -1);

	rx_buf_free(&rbuf);
	rx_buf_free(&dst);
	rx_buf_free(&src);
	rx_pair_destroy(&p);
	rx_dev_close(&d);
}
END_TEST

/* A QP without send_ops_flags has no ibv_qp_ex (the provider did not set
 * VERBS_QP_EX; the core reads nothing else as if it had). */
START_TEST(plain_qp_has_no_qp_ex)
{
	struct rx_pair_opts o = { 0 };
	struct rx_dev d;
	struct rx_pair p;

	rx_dev_open(&d);
	rx_pair_create(&d, &p, IBV_QPT_RC, &o);
	ck_assert_ptr_null(ibv_qp_to_qp_ex(p.qp[0]));
	rx_pair_destroy(&p);
	rx_dev_close(&d);
}
END_TEST

/* rdma-core 45+'s librxe puts wr_flush into the QP, then calls
 * ibv_cmd_create_qp_ex2; the core's comp_mask must land after it. */
START_TEST(librxe_wr_flush_survives_create)
{
	struct rx_pair_opts o = {
		.send_ops = IBV_QP_EX_WITH_RDMA_WRITE | QP_EX_WITH_FLUSH,
	};
	unsigned int release = system_release();
	struct ibv_qp_ex *qpx;
	struct rx_dev d;
	struct rx_pair p;
	Dl_info info;
	void *fn;

	if (!rdma_core_mode() || release < 45) {
		printf("(not rdma-core 45 or later's librxe (mode %s, release %u): nothing to check)\n",
		       rdma_core_mode() ? "rdma-core" : "native", release);
		return;
	}
	rx_dev_open(&d);
	rx_pair_create(&d, &p, IBV_QPT_RC, &o);
	qpx = ibv_qp_to_qp_ex(p.qp[0]);
	ck_assert_ptr_nonnull(qpx);
	memcpy(&fn, (char *)qpx + WR_FLUSH_OFFSET, sizeof(fn));
	ck_assert_ptr_nonnull(fn);
	ck_assert_msg(dladdr(fn, &info) && info.dli_fname &&
			      strstr(info.dli_fname, "librxe"),
		      "wr_flush (%p) points into %s, not librxe", fn,
		      dladdr(fn, &info) && info.dli_fname ? info.dli_fname : "nothing");
	rx_pair_destroy(&p);
	rx_dev_close(&d);
}
END_TEST

static Suite *make_qp_ex_suite(void)
{
	Suite *s = suite_create("qp_ex");
	TCase *tc = tcase_create("qp_ex");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, wr_api_writes_and_sends);
	tcase_add_test(tc, plain_qp_has_no_qp_ex);
	tcase_add_test(tc, librxe_wr_flush_survives_create);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	int ret = rx_precheck();

	if (ret)
		return ret;
	return check_run(make_qp_ex_suite());
}
