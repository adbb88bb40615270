/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* One errno convention at the provider boundary: when the kernel refuses
 * a command with EINVAL, every verb that sent it through softverbs'
 * providers reports +22 — an int verb returns EINVAL (never -22, never
 * -1), a pointer verb returns NULL with errno EINVAL. Each case below
 * makes the 6.1 kernel's rxe or siw refuse one command with EINVAL.
 *
 * Devices: $RXE_DEV and, when set, $SIW_DEV (tests/vm/run --siw); on
 * the host, uroce0 (tests/unit/test_uroce_tier.sh), whose provider
 * answers as rxe's kernel would. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "../check_main.h"

static const char *dev_name;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static int is_siw;

static void setup(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);

	for (int i = 0; list && list[i]; i++)
		if (!strcmp(list[i]->name, dev_name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	ck_assert_msg(ctx, "cannot open %s", dev_name);
	pd = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(pd);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	ck_assert_ptr_nonnull(cq);
}

static void teardown(void)
{
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}

/* A pointer verb refused by the kernel: NULL and errno +22. */
#define ASSERT_NULL_EINVAL(expr)                                              \
	do {                                                                  \
		void *p_;                                                     \
		errno = 0;                                                    \
		p_ = (void *)(expr);                                          \
		ck_assert_msg(!p_, #expr " succeeded");                       \
		ck_assert_msg(errno == EINVAL, #expr ": errno %d, not %d",    \
			      errno, EINVAL);                                 \
	} while (0)

#define ASSERT_EINVAL(expr)                                                   \
	do {                                                                  \
		int r_ = (expr);                                              \
		ck_assert_msg(r_ == EINVAL, #expr " returned %d, not %d", r_, \
			      EINVAL);                                        \
	} while (0)

static struct ibv_qp *rc_qp(uint32_t max_send_wr)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = max_send_wr, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	return ibv_create_qp(pd, &attr);
}

START_TEST(create_cq_too_big)
{
	ASSERT_NULL_EINVAL(ibv_create_cq(ctx, 1 << 24, NULL, NULL, 0));
}
END_TEST

START_TEST(create_cq_ex_too_big)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = 1 << 24,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};

	ASSERT_NULL_EINVAL(ibv_create_cq_ex(ctx, &attr));
}
END_TEST

START_TEST(resize_cq_too_big)
{
	ASSERT_EINVAL(ibv_resize_cq(cq, 1 << 24));
}
END_TEST

START_TEST(create_qp_too_big)
{
	ASSERT_NULL_EINVAL(rc_qp(1 << 24));
}
END_TEST

START_TEST(modify_qp_reset_to_rts)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_RTS };
	struct ibv_qp *qp = rc_qp(4);

	ck_assert_ptr_nonnull(qp);
	ASSERT_EINVAL(ibv_modify_qp(qp, &attr, IBV_QP_STATE));
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

START_TEST(create_srq_too_big)
{
	struct ibv_srq_init_attr attr = {
		.attr = { .max_wr = 1 << 24, .max_sge = 1 },
	};

	ASSERT_NULL_EINVAL(ibv_create_srq(pd, &attr));
}
END_TEST

START_TEST(modify_srq_limit_above_max)
{
	struct ibv_srq_init_attr init = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_srq_attr attr = { .srq_limit = 1 << 20 };
	struct ibv_srq *srq = ibv_create_srq(pd, &init);

	ck_assert_ptr_nonnull(srq);
	ASSERT_EINVAL(ibv_modify_srq(srq, &attr, IBV_SRQ_LIMIT));
	ck_assert_int_eq(ibv_destroy_srq(srq), 0);
}
END_TEST

START_TEST(query_port_that_does_not_exist)
{
	struct ibv_port_attr attr;

	ASSERT_EINVAL(ibv_query_port(ctx, 9, &attr));
}
END_TEST

/* (an unset GID index gets ENODATA from the kernel, a port it does not
 * have EINVAL) */
START_TEST(create_ah_bad_port)
{
	struct ibv_ah_attr attr = {
		.is_global = 1,
		.port_num = 9,
		.grh = { .sgid_index = 1, .hop_limit = 1 },
	};

	attr.grh.dgid.raw[10] = attr.grh.dgid.raw[11] = 0xff;
	attr.grh.dgid.raw[12] = 127;
	attr.grh.dgid.raw[15] = 1;
	ASSERT_NULL_EINVAL(ibv_create_ah(pd, &attr));
}
END_TEST

START_TEST(attach_mcast_unicast_gid)
{
	union ibv_gid gid;
	struct ibv_qp_init_attr attr = {
		.send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_UD,
	};
	struct ibv_qp *qp;

	qp = ibv_create_qp(pd, &attr);
	ck_assert_ptr_nonnull(qp);
	memset(&gid, 0, sizeof(gid));
	gid.raw[15] = 1; /* ::1 is no multicast address */
	/* uroce has no multicast: EOPNOTSUPP first, as the kernel's
	 * ib_attach_mcast answers for a driver without attach_mcast */
	if (!strncmp(dev_name, "uroce", 5))
		ck_assert_int_eq(ibv_attach_mcast(qp, &gid, 0), EOPNOTSUPP);
	else
		ASSERT_EINVAL(ibv_attach_mcast(qp, &gid, 0));
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

START_TEST(alloc_mw_unknown_type)
{
	ASSERT_NULL_EINVAL(ibv_alloc_mw(pd, (enum ibv_mw_type)7));
}
END_TEST

static Suite *make_errno_suite(void)
{
	Suite *s = suite_create("errno");
	TCase *tc = tcase_create(dev_name);

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, create_cq_too_big);
	tcase_add_test(tc, create_qp_too_big);
	tcase_add_test(tc, modify_qp_reset_to_rts);
	tcase_add_test(tc, create_srq_too_big);
	tcase_add_test(tc, modify_srq_limit_above_max);
	tcase_add_test(tc, query_port_that_does_not_exist);
	/* siw has no create_cq_ex, no CQ resize, and iWARP no address
	 * handles, UD QPs, multicast or memory windows: those verbs answer
	 * EOPNOTSUPP there before any command (tested in test_siw) */
	if (!is_siw) {
		tcase_add_test(tc, create_cq_ex_too_big);
		tcase_add_test(tc, resize_cq_too_big);
		tcase_add_test(tc, create_ah_bad_port);
		tcase_add_test(tc, attach_mcast_unicast_gid);
		tcase_add_test(tc, alloc_mw_unknown_type);
	}
	suite_add_tcase(s, tc);
	return s;
}

static int run_on(const char *dev)
{
	dev_name = dev;
	is_siw = !strncmp(dev, "siw", 3);
	return check_run(make_errno_suite());
}

int main(void)
{
	const char *rxe = getenv("RXE_DEV"), *siw = getenv("SIW_DEV");
	int r1, r2 = 0;

	if (!rxe || !*rxe) {
		printf("SKIP: no RXE_DEV: run inside tests/vm/run\n");
		return 77;
	}
	r1 = run_on(rxe);
	if (siw && *siw)
		r2 = run_on(siw);
	if (r1 == 1 || r2 == 1)
		return 1;
	return r1 ? r1 : r2;
}
