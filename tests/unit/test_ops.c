/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The context-ops tables: no slot of the defaults is NULL, merging keeps
 * every slot filled, and each built-in provider is well formed. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

#include "../check_main.h"

START_TEST(defaults_have_no_null_slot)
{
	ck_assert_uint_eq(sv_ops_null_slots(&sv_default_ops), 0);
}
END_TEST

/* What an inherited context's verbs become in a forked child: every slot
 * set, and the ones an application calls refuse with EPERM. */
START_TEST(refusing_table_is_complete)
{
	const struct sv_context_ops *r = sv_inherit_refusing_ops();
	struct ibv_send_wr swr, *sbad = NULL;
	struct ibv_recv_wr rwr, *rbad = NULL;

	ck_assert_uint_eq(sv_ops_null_slots(r), 0);
	ck_assert_int_eq(r->post_send(NULL, &swr, &sbad), EPERM);
	ck_assert_ptr_eq(sbad, &swr);
	ck_assert_int_eq(r->post_recv(NULL, &rwr, &rbad), EPERM);
	ck_assert_ptr_eq(rbad, &rwr);
	ck_assert_int_eq(r->poll_cq(NULL, 1, NULL), -EPERM);
	ck_assert_int_eq(r->dereg_mr(NULL), EPERM);
	ck_assert_int_eq(r->destroy_qp(NULL), EPERM);
	errno = 0;
	ck_assert_ptr_null(r->alloc_pd(NULL));
	ck_assert_int_eq(errno, EPERM);
	/* the verbs of rdma-core 59-65 too */
	ck_assert_int_eq(r->query_port_speed(NULL, 1, NULL), EPERM);
	errno = 0;
	ck_assert_ptr_null(r->reg_mr_ex(NULL, NULL));
	ck_assert_int_eq(errno, EPERM);
	errno = 0;
	ck_assert_ptr_null(r->alloc_buf(NULL, 4096, NULL));
	ck_assert_int_eq(errno, EPERM);
	errno = 0;
	ck_assert_int_eq(r->dm_export_dmabuf_fd(NULL), -1);
	ck_assert_int_eq(errno, EPERM);
	ck_assert_int_eq(r->read_comp_cntr(NULL, NULL), EPERM);
}
END_TEST

START_TEST(merge_keeps_defaults_and_takes_provider_slots)
{
	for (const struct sv_provider *const *p = sv_providers; *p; p++) {
		struct sv_context_ops ops = sv_default_ops;

		sv_ops_merge(&ops, (*p)->ops);
		ck_assert_uint_eq(sv_ops_null_slots(&ops), 0);
		if ((*p)->ops->query_device_ex)
			ck_assert_ptr_eq(ops.query_device_ex,
					 (*p)->ops->query_device_ex);
		if (!(*p)->ops->create_ah)
			ck_assert_ptr_eq(ops.create_ah, sv_default_ops.create_ah);
	}
}
END_TEST

START_TEST(empty_table_counts_every_slot)
{
	struct sv_context_ops none;

	memset(&none, 0, sizeof(none));
	ck_assert_uint_eq(sv_ops_null_slots(&none),
			  sizeof(none) / sizeof(void (*)(void)));
	sv_ops_merge(&none, NULL);
	ck_assert_uint_eq(sv_ops_null_slots(&none),
			  sizeof(none) / sizeof(void (*)(void)));
}
END_TEST

START_TEST(providers_are_well_formed)
{
	int n = 0;

	for (const struct sv_provider *const *p = sv_providers; *p; p++, n++) {
		ck_assert_ptr_nonnull((*p)->name);
		ck_assert_ptr_nonnull((*p)->ops);
		ck_assert_uint_le((*p)->abi_min, (*p)->abi_max);
		ck_assert_uint_ge((*p)->context_size, sizeof(struct sv_context));
		ck_assert((*p)->driver_id != RDMA_DRIVER_UNKNOWN || (*p)->names);
	}
	ck_assert_int_ge(n, 1);
}
END_TEST

START_TEST(unsupported_defaults_answer_eopnotsupp)
{
	struct ibv_wc wc;

	errno = 0;
	ck_assert_ptr_null(sv_default_ops.create_cq(NULL, 1, NULL, 0));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_int_eq(sv_default_ops.poll_cq(NULL, 1, &wc), -EOPNOTSUPP);
	ck_assert_int_eq(sv_default_ops.req_notify_cq(NULL, 0), EOPNOTSUPP);
	ck_assert_int_eq(sv_default_ops.destroy_qp(NULL), EOPNOTSUPP);
	ck_assert_int_eq(sv_default_ops.modify_qp_rate_limit(NULL, NULL), EOPNOTSUPP);
}
END_TEST

START_TEST(post_defaults_report_the_first_wr_as_bad)
{
	struct ibv_send_wr swr = { 0 }, *bad_s = NULL;
	struct ibv_recv_wr rwr = { 0 }, *bad_r = NULL;

	ck_assert_int_eq(sv_default_ops.post_send(NULL, &swr, &bad_s),
			 EOPNOTSUPP);
	ck_assert_ptr_eq(bad_s, &swr);
	ck_assert_int_eq(sv_default_ops.post_recv(NULL, &rwr, &bad_r),
			 EOPNOTSUPP);
	ck_assert_ptr_eq(bad_r, &rwr);
}
END_TEST

START_TEST(provider_match_by_id_name_and_abi)
{
	ck_assert_ptr_nonnull(sv_provider_match(RDMA_DRIVER_RXE, "rxe0", 2));
	ck_assert_ptr_nonnull(sv_provider_match(RDMA_DRIVER_RXE, "anything", 1));
	/* the kernel's driver id wins over a misleading name */
	ck_assert_ptr_null(sv_provider_match(RDMA_DRIVER_MLX5, "rxe0", 2));
	/* no id (sysfs): the name decides */
	ck_assert_ptr_nonnull(sv_provider_match(RDMA_DRIVER_UNKNOWN, "rxe7", 2));
	ck_assert_ptr_null(sv_provider_match(RDMA_DRIVER_UNKNOWN, "mlx5_0", 2));
	/* ABI out of range */
	ck_assert_ptr_null(sv_provider_match(RDMA_DRIVER_RXE, "rxe0", 0));
	ck_assert_ptr_null(sv_provider_match(RDMA_DRIVER_RXE, "rxe0", 3));
}
END_TEST

static Suite *make_ops_suite(void)
{
	Suite *s = suite_create("ops");
	TCase *tc = tcase_create("tables");

	tcase_add_test(tc, defaults_have_no_null_slot);
	tcase_add_test(tc, refusing_table_is_complete);
	tcase_add_test(tc, merge_keeps_defaults_and_takes_provider_slots);
	tcase_add_test(tc, empty_table_counts_every_slot);
	tcase_add_test(tc, providers_are_well_formed);
	tcase_add_test(tc, unsupported_defaults_answer_eopnotsupp);
	tcase_add_test(tc, post_defaults_report_the_first_wr_as_bad);
	tcase_add_test(tc, provider_match_by_id_name_and_abi);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(make_ops_suite());
}
