/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * tests/integration/test_rxe_mcast.c -- ibv_attach_mcast/ibv_detach_mcast
 * on rxe through softverbs (inside the test VM).
 *
 * What a user sees (facts from the kernel's uverbs and rxe, 6.1): a UD QP
 * joins a group named by a multicast GID, an IPv6 one (ff0e::/16) or an
 * IPv4-mapped one (::ffff:239.x.y.z); joining the same (GID, LID) twice
 * succeeds; leaving a group the QP is not in fails with EINVAL, as does
 * joining with a GID that is not multicast or with a QP that is not UD.
 * On RoCE the LID is not checked, but uverbs remembers the (GID, LID) pair,
 * so a detach must repeat the LID of the attach. Destroying a QP that is
 * still in a group fails with EBUSY and leaves the QP whole. Whether
 * datagrams reach the group is the kernel's network path (a dummy netdev
 * drops what it sends), not checked.
 *
 * Outside the VM the program exits 77.
 */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "rxe_util.h"

#include "../check_main.h"

/* ff0e::1:2:3:N, a global-scope IPv6 multicast GID */
static union ibv_gid mgid6(uint8_t n)
{
	union ibv_gid g;

	memset(&g, 0, sizeof(g));
	g.raw[0] = 0xff;
	g.raw[1] = 0x0e;
	g.raw[11] = 1;
	g.raw[13] = 2;
	g.raw[14] = 3;
	g.raw[15] = n;
	return g;
}

/* ::ffff:239.1.2.N, an IPv4 multicast address in a RoCEv2 GID */
static union ibv_gid mgid4(uint8_t n)
{
	union ibv_gid g;

	memset(&g, 0, sizeof(g));
	g.raw[10] = 0xff;
	g.raw[11] = 0xff;
	g.raw[12] = 239;
	g.raw[13] = 1;
	g.raw[14] = 2;
	g.raw[15] = n;
	return g;
}

/* Send one datagram from side 0 to side 1 and check it arrived. */
static void ud_roundtrip(struct rx_dev *d, struct rx_pair *p)
{
	struct rx_buf sb, rb;
	struct ibv_sge ss, rs;
	struct ibv_send_wr wr;
	struct ibv_wc wc;

	rx_buf_alloc(d, &sb, 4096, IBV_ACCESS_LOCAL_WRITE);
	rx_buf_alloc(d, &rb, 4096, IBV_ACCESS_LOCAL_WRITE);
	rx_fill(sb.addr, 256, 7);
	rs = (struct ibv_sge){ (uintptr_t)rb.addr, RX_GRH + 256, rb.mr->lkey };
	rx_post_recv(p->qp[1], 1, &rs, 1);
	ss = (struct ibv_sge){ (uintptr_t)sb.addr, 256, sb.mr->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 2;
	wr.sg_list = &ss;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = p->ah[0];
	wr.wr.ud.remote_qpn = p->qp[1]->qp_num;
	wr.wr.ud.remote_qkey = RX_UD_QKEY;
	rx_post_send(p->qp[0], &wr);
	rx_wait_wc(p->scq[0], &wc);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	rx_wait_wc(p->rcq[1], &wc);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.byte_len, RX_GRH + 256);
	ck_assert_int_eq(rx_diff(rb.addr + RX_GRH, sb.addr, 256), -1);
	rx_buf_free(&sb);
	rx_buf_free(&rb);
}

START_TEST(test_attach_detach)
{
	struct rx_dev d;
	struct rx_pair p;
	union ibv_gid g6 = mgid6(1), g4 = mgid4(1);
	struct ibv_qp *a, *b;

	rx_dev_open(&d);
	rx_pair_create(&d, &p, IBV_QPT_UD, NULL);
	a = p.qp[0];
	b = p.qp[1];

	ck_assert_int_eq(ibv_attach_mcast(a, &g6, 0), 0);
	ck_assert_int_eq(ibv_attach_mcast(a, &g6, 0), 0); /* again: no-op */
	ck_assert_int_eq(ibv_attach_mcast(a, &g4, 0), 0); /* second group */
	ck_assert_int_eq(ibv_attach_mcast(b, &g6, 0), 0); /* second member */

	/* the pair still works as plain UD while in groups */
	ud_roundtrip(&d, &p);

	/* a detach names the (GID, LID) pair of the attach */
	ck_assert_int_eq(ibv_detach_mcast(a, &g6, 5), EINVAL);
	ck_assert_int_eq(ibv_detach_mcast(a, &g6, 0), 0);
	ck_assert_int_eq(ibv_detach_mcast(a, &g6, 0), EINVAL); /* gone */
	ck_assert_int_eq(ibv_detach_mcast(a, &g4, 0), 0);
	ck_assert_int_eq(ibv_detach_mcast(b, &g6, 0), 0);
	/* and a group left can be joined again */
	ck_assert_int_eq(ibv_attach_mcast(a, &g6, 0), 0);
	ck_assert_int_eq(ibv_detach_mcast(a, &g6, 0), 0);

	rx_pair_destroy(&p);
	rx_dev_close(&d);
}
END_TEST

START_TEST(test_not_multicast)
{
	struct rx_dev d;
	struct rx_pair p;
	union ibv_gid zero;

	rx_dev_open(&d);
	rx_pair_create(&d, &p, IBV_QPT_UD, NULL);
	memset(&zero, 0, sizeof(zero));
	/* the port's own (unicast) GID, and the null GID */
	ck_assert_int_eq(ibv_attach_mcast(p.qp[0], &d.gid, 0), EINVAL);
	ck_assert_int_eq(ibv_attach_mcast(p.qp[0], &zero, 0), EINVAL);
	/* nothing was half-attached: detaching them fails too */
	ck_assert_int_eq(ibv_detach_mcast(p.qp[0], &d.gid, 0), EINVAL);
	ck_assert_int_eq(ibv_detach_mcast(p.qp[0], &zero, 0), EINVAL);
	rx_pair_destroy(&p);
	rx_dev_close(&d);
}
END_TEST

START_TEST(test_not_ud)
{
	static const enum ibv_qp_type types[] = { IBV_QPT_RC, IBV_QPT_UC };
	struct rx_dev d;
	struct rx_pair p;
	union ibv_gid g = mgid6(2);

	rx_dev_open(&d);
	for (unsigned int i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		rx_pair_create(&d, &p, types[i], NULL);
		ck_assert_int_eq(ibv_attach_mcast(p.qp[0], &g, 0), EINVAL);
		ck_assert_int_eq(ibv_detach_mcast(p.qp[0], &g, 0), EINVAL);
		rx_pair_destroy(&p);
	}
	rx_dev_close(&d);
}
END_TEST

/* uverbs refuses to destroy a QP that is still in a group: EBUSY (the
 * kernel's answer; it detaches by force only when the context closes).
 * The refusal leaves the QP whole: it still sends and receives, leaves
 * its groups, and is destroyed then. */
START_TEST(test_destroy_while_attached)
{
	struct rx_dev d;
	struct rx_pair p;
	union ibv_gid g6 = mgid6(3), g4 = mgid4(3);

	rx_dev_open(&d);
	rx_pair_create(&d, &p, IBV_QPT_UD, NULL);
	ck_assert_int_eq(ibv_attach_mcast(p.qp[0], &g6, 0), 0);
	ck_assert_int_eq(ibv_attach_mcast(p.qp[0], &g4, 0), 0);
	ck_assert_int_eq(ibv_attach_mcast(p.qp[1], &g6, 0), 0);
	ck_assert_int_eq(ibv_destroy_qp(p.qp[0]), EBUSY);
	ck_assert_int_eq(ibv_destroy_qp(p.qp[1]), EBUSY);
	ud_roundtrip(&d, &p);
	ck_assert_int_eq(ibv_detach_mcast(p.qp[0], &g6, 0), 0);
	ck_assert_int_eq(ibv_destroy_qp(p.qp[0]), EBUSY); /* still in g4 */
	ck_assert_int_eq(ibv_detach_mcast(p.qp[0], &g4, 0), 0);
	ck_assert_int_eq(ibv_detach_mcast(p.qp[1], &g6, 0), 0);
	rx_pair_destroy(&p); /* asserts the destroys succeed now */
	rx_dev_close(&d);
}
END_TEST

static Suite *make_rxe_mcast_suite(void)
{
	Suite *s = suite_create("rxe_mcast");
	TCase *tc = tcase_create("mcast");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_attach_detach);
	tcase_add_test(tc, test_not_multicast);
	tcase_add_test(tc, test_not_ud);
	tcase_add_test(tc, test_destroy_while_attached);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	int pre = rx_precheck();

	if (pre)
		return pre;
	return check_run(make_rxe_mcast_suite());
}
