/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * tests/integration/test_rxe_mw.c -- memory windows on softverbs' rxe
 * provider (inside the test VM): type 1 bound with ibv_bind_mw, type 2
 * bound with IBV_WR_BIND_MW, remote access through the window and only
 * inside it, invalidation by LOCAL_INV and by SEND_WITH_INV. Outside the
 * VM the program exits 77.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rxe_util.h"

#include "../check_main.h"

#define MR_ACC (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		IBV_ACCESS_MW_BIND)

struct mw_env {
	struct rx_dev d;
	struct rx_pair p;
	struct rx_buf src, dst; /* src on side 0, dst (with windows) on 1 */
};

static void env_open(struct mw_env *e)
{
	rx_dev_open(&e->d);
	rx_pair_create(&e->d, &e->p, IBV_QPT_RC, NULL);
	rx_buf_alloc(&e->d, &e->src, 8192, IBV_ACCESS_LOCAL_WRITE);
	rx_buf_alloc(&e->d, &e->dst, 8192, MR_ACC);
	rx_fill(e->src.addr, 8192, 5);
	memset(e->dst.addr, 0xee, 8192);
}

static void env_close(struct mw_env *e)
{
	rx_buf_free(&e->src);
	rx_buf_free(&e->dst);
	rx_pair_destroy(&e->p);
	rx_dev_close(&e->d);
}

/* Side 0 writes len bytes of src to addr through rkey; the status. */
static enum ibv_wc_status remote_write(struct mw_env *e, uint64_t addr,
				       uint32_t rkey, uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)e->src.addr, len, e->src.mr->lkey };
	struct ibv_send_wr wr;
	struct ibv_wc wc;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 0x77;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = addr;
	wr.wr.rdma.rkey = rkey;
	rx_post_send(e->p.qp[0], &wr);
	rx_wait_wc(e->p.scq[0], &wc);
	ck_assert_uint_eq(wc.wr_id, 0x77);
	return wc.status;
}

/* Bind a type 2 window over dst[off, off+len) with a new key; the key. */
static uint32_t bind_type2(struct mw_env *e, struct ibv_mw *mw, size_t off,
			   size_t len)
{
	struct ibv_send_wr wr;
	struct ibv_wc wc;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 0xb1;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info.mr = e->dst.mr;
	wr.bind_mw.bind_info.addr = (uintptr_t)(e->dst.addr + off);
	wr.bind_mw.bind_info.length = len;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	rx_post_send(e->p.qp[1], &wr);
	rx_wait_wc(e->p.scq[1], &wc);
	ck_assert_msg(wc.status == IBV_WC_SUCCESS, "bind: %s",
		      ibv_wc_status_str(wc.status));
	ck_assert_int_eq(wc.opcode, IBV_WC_BIND_MW);
	ck_assert_uint_eq(wc.wr_id, 0xb1);
	/* the application owns a type 2 window's key */
	mw->rkey = wr.bind_mw.rkey;
	return wr.bind_mw.rkey;
}

START_TEST(test_type1)
{
	struct ibv_mw_bind bind;
	struct mw_env e;
	struct ibv_mw *mw;
	struct ibv_wc wc;
	uint32_t old_rkey;

	env_open(&e);
	mw = ibv_alloc_mw(e.d.pd, IBV_MW_TYPE_1);
	ck_assert_ptr_nonnull(mw);
	ck_assert_int_eq(mw->type, IBV_MW_TYPE_1);
	old_rkey = mw->rkey;

	memset(&bind, 0, sizeof(bind));
	bind.wr_id = 0xb0;
	bind.send_flags = IBV_SEND_SIGNALED;
	bind.bind_info.mr = e.dst.mr;
	bind.bind_info.addr = (uintptr_t)(e.dst.addr + 1024);
	bind.bind_info.length = 1024;
	bind.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	ck_assert_int_eq(ibv_bind_mw(e.p.qp[1], mw, &bind), 0);
	/* the bind gave the window a new key */
	ck_assert_uint_ne(mw->rkey, old_rkey);
	ck_assert_uint_eq(mw->rkey >> 8, old_rkey >> 8);
	rx_wait_wc(e.p.scq[1], &wc);
	ck_assert_msg(wc.status == IBV_WC_SUCCESS, "bind: %s",
		      ibv_wc_status_str(wc.status));
	ck_assert_int_eq(wc.opcode, IBV_WC_BIND_MW);
	ck_assert_uint_eq(wc.wr_id, 0xb0);

	/* inside the window: lands */
	ck_assert_int_eq(remote_write(&e, (uintptr_t)(e.dst.addr + 1024),
				      mw->rkey, 1024), IBV_WC_SUCCESS);
	ck_assert_int_eq(memcmp(e.dst.addr + 1024, e.src.addr, 1024), 0);
	ck_assert_uint_eq(e.dst.addr[1023], 0xee);
	ck_assert_uint_eq(e.dst.addr[2048], 0xee);
	/* Rebinding (here: unbinding, length 0) retires the key. (A write
	 * past the window's end but inside the MR is not tested: Linux
	 * 6.1's rdma_rxe checks such writes against the MR only.) */
	old_rkey = mw->rkey;
	bind.wr_id = 0xb2;
	bind.bind_info.length = 0;
	ck_assert_int_eq(ibv_bind_mw(e.p.qp[1], mw, &bind), 0);
	rx_wait_wc(e.p.scq[1], &wc);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, 0xb2);
	ck_assert_uint_ne(mw->rkey, old_rkey);
	memset(e.dst.addr + 1024, 0xee, 1024);
	ck_assert_int_eq(remote_write(&e, (uintptr_t)(e.dst.addr + 1024),
				      old_rkey, 64), IBV_WC_REM_ACCESS_ERR);
	ck_assert_uint_eq(e.dst.addr[1024], 0xee);

	ck_assert_int_eq(ibv_dealloc_mw(mw), 0);
	env_close(&e);
}
END_TEST

START_TEST(test_type2_local_inv)
{
	struct ibv_send_wr wr;
	struct mw_env e;
	struct ibv_mw *mw;
	struct ibv_wc wc;
	uint32_t rkey;

	env_open(&e);
	mw = ibv_alloc_mw(e.d.pd, IBV_MW_TYPE_2);
	ck_assert_ptr_nonnull(mw);
	rkey = bind_type2(&e, mw, 4096, 2048);

	ck_assert_int_eq(remote_write(&e, (uintptr_t)(e.dst.addr + 4096), rkey,
				      2048), IBV_WC_SUCCESS);
	ck_assert_int_eq(memcmp(e.dst.addr + 4096, e.src.addr, 2048), 0);

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 0x1a;
	wr.opcode = IBV_WR_LOCAL_INV;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.invalidate_rkey = rkey;
	rx_post_send(e.p.qp[1], &wr);
	rx_wait_wc(e.p.scq[1], &wc);
	ck_assert_msg(wc.status == IBV_WC_SUCCESS, "local inv: %s",
		      ibv_wc_status_str(wc.status));
	ck_assert_int_eq(wc.opcode, IBV_WC_LOCAL_INV);
	ck_assert_uint_eq(wc.wr_id, 0x1a);

	/* the key is dead now */
	memset(e.dst.addr + 4096, 0xee, 2048);
	ck_assert_int_eq(remote_write(&e, (uintptr_t)(e.dst.addr + 4096), rkey,
				      64), IBV_WC_REM_ACCESS_ERR);
	ck_assert_uint_eq(e.dst.addr[4096], 0xee);
	ck_assert_int_eq(ibv_dealloc_mw(mw), 0);
	env_close(&e);
}
END_TEST

START_TEST(test_send_with_inv)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr;
	struct mw_env e;
	struct ibv_mw *mw;
	struct ibv_wc wc;
	uint32_t rkey;

	env_open(&e);
	mw = ibv_alloc_mw(e.d.pd, IBV_MW_TYPE_2);
	ck_assert_ptr_nonnull(mw);
	rkey = bind_type2(&e, mw, 0, 4096);
	ck_assert_int_eq(remote_write(&e, (uintptr_t)e.dst.addr, rkey, 100),
			 IBV_WC_SUCCESS);

	sge = (struct ibv_sge){ (uintptr_t)(e.dst.addr + 6000), 256,
				e.dst.mr->lkey };
	rx_post_recv(e.p.qp[1], 0x5e, &sge, 1);
	sge = (struct ibv_sge){ (uintptr_t)e.src.addr, 128, e.src.mr->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 0x5d;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND_WITH_INV;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.invalidate_rkey = rkey;
	rx_post_send(e.p.qp[0], &wr);
	rx_wait_wc(e.p.scq[0], &wc);
	ck_assert_msg(wc.status == IBV_WC_SUCCESS, "send with inv: %s",
		      ibv_wc_status_str(wc.status));
	ck_assert_int_eq(wc.opcode, IBV_WC_SEND);
	rx_wait_wc(e.p.rcq[1], &wc);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, 0x5e);
	ck_assert_int_eq(wc.opcode, IBV_WC_RECV);
	ck_assert_uint_eq(wc.byte_len, 128);
	ck_assert_msg(wc.wc_flags & IBV_WC_WITH_INV, "wc_flags %#x",
		      wc.wc_flags);
	ck_assert_uint_eq(wc.invalidated_rkey, rkey);
	ck_assert_int_eq(memcmp(e.dst.addr + 6000, e.src.addr, 128), 0);

	ck_assert_int_eq(remote_write(&e, (uintptr_t)e.dst.addr, rkey, 64),
			 IBV_WC_REM_ACCESS_ERR);
	ck_assert_int_eq(ibv_dealloc_mw(mw), 0);
	env_close(&e);
}
END_TEST

/* What the bind verbs refuse up front. */
START_TEST(test_bind_refused)
{
	struct ibv_mw_bind bind;
	struct ibv_send_wr wr, *bad;
	struct mw_env e;
	struct ibv_mw *mw1, *mw2;

	env_open(&e);
	mw1 = ibv_alloc_mw(e.d.pd, IBV_MW_TYPE_1);
	mw2 = ibv_alloc_mw(e.d.pd, IBV_MW_TYPE_2);
	ck_assert_ptr_nonnull(mw1);
	ck_assert_ptr_nonnull(mw2);
	memset(&bind, 0, sizeof(bind));
	bind.bind_info.mr = e.dst.mr;
	bind.bind_info.addr = (uintptr_t)e.dst.addr;
	bind.bind_info.length = 64;
	bind.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	/* ibv_bind_mw is for type 1 */
	ck_assert_int_eq(ibv_bind_mw(e.p.qp[1], mw2, &bind), EINVAL);
	/* a range with no MR */
	bind.bind_info.mr = NULL;
	ck_assert_int_eq(ibv_bind_mw(e.p.qp[1], mw1, &bind), EINVAL);
	/* IBV_WR_BIND_MW is for type 2 */
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_BIND_MW;
	wr.bind_mw.mw = mw1;
	wr.bind_mw.rkey = ibv_inc_rkey(mw1->rkey);
	wr.bind_mw.bind_info.mr = e.dst.mr;
	wr.bind_mw.bind_info.length = 64;
	bad = NULL;
	ck_assert_int_eq(ibv_post_send(e.p.qp[1], &wr, &bad), EINVAL);
	ck_assert_ptr_eq(bad, &wr);
	ck_assert_int_eq(ibv_dealloc_mw(mw1), 0);
	ck_assert_int_eq(ibv_dealloc_mw(mw2), 0);
	env_close(&e);
}
END_TEST

static Suite *make_rxe_mw_suite(void)
{
	Suite *s = suite_create("rxe_mw");
	TCase *tc = tcase_create("mw");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_type1);
	tcase_add_test(tc, test_type2_local_inv);
	tcase_add_test(tc, test_send_with_inv);
	tcase_add_test(tc, test_bind_refused);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	int pre = rx_precheck();

	if (pre)
		return pre;
	return check_run(make_rxe_mw_suite());
}
