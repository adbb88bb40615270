/* The IBVERBS_PRIVATE_34 entry points and the import / dma-buf verbs:
 * registrations are recorded, everything else fails cleanly with the
 * documented errno and touches nothing. White-box: links the core. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "private34.h"

/* ---- provider registration ---------------------------------------------- */

START_TEST(registration_is_recorded)
{
	static const struct verbs_device_ops fake = { .name = "fake_hca" };
	size_t before = sv_private34_driver_count();
	char name[32];

	verbs_register_driver_34(&fake);
	ck_assert_uint_eq(sv_private34_driver_count(), before + 1);
	ck_assert_ptr_nonnull(sv_private34_driver_name(before, name,
						       sizeof(name)));
	ck_assert_str_eq(name, "fake_hca");
	ck_assert_ptr_null(sv_private34_driver_name(before + 1, name,
						    sizeof(name)));
}
END_TEST

START_TEST(registration_survives_bad_input)
{
	static const struct verbs_device_ops unnamed = { .name = NULL };
	size_t before = sv_private34_driver_count();

	verbs_register_driver_34(NULL);
	verbs_register_driver_34(&unnamed);
	ck_assert_uint_eq(sv_private34_driver_count(), before + 2);
}
END_TEST

/* More registrations than there are slots: counted, never overflowing. */
START_TEST(many_registrations)
{
	static const struct verbs_device_ops ops = {
		.name = "a_provider_name_longer_than_the_record_keeps_for_it",
	};
	char name[64];

	for (int i = 0; i < 100; i++)
		verbs_register_driver_34(&ops);
	ck_assert_uint_ge(sv_private34_driver_count(), 100);
	ck_assert_ptr_nonnull(sv_private34_driver_name(0, name, sizeof(name)));
	ck_assert_uint_lt(strlen(name), 32);
	ck_assert_ptr_null(sv_private34_driver_name(99, name, sizeof(name)));
}
END_TEST

/* ---- the rest of the private ABI ---------------------------------------- */

START_TEST(verbs_log_keeps_errno)
{
	errno = 1234;
	__verbs_log(NULL, 1, "test message %d", 42);
	__verbs_log(NULL, 99, "level out of range");
	ck_assert_int_eq(errno, 1234);
}
END_TEST

START_TEST(context_setup_fails_with_eopnotsupp)
{
	errno = 0;
	ck_assert_ptr_null(_verbs_init_and_alloc_context(NULL, -1, 4096, NULL,
							 0));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	errno = 0;
	ck_assert_ptr_null(verbs_open_device(NULL, NULL));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	errno = 0;
	ck_assert_int_eq(ibv_read_ibdev_sysfs_file(NULL, 0, NULL, "x"), -1);
	ck_assert_int_eq(errno, EOPNOTSUPP);
	verbs_uninit_context(NULL);
	verbs_set_ops(NULL, NULL);
	verbs_init_cq(NULL, NULL, NULL, NULL);
	ck_assert(!verbs_allow_disassociate_destroy);
}
END_TEST

START_TEST(commands_return_positive_eopnotsupp)
{
	struct ibv_send_wr swr, *bad_swr = NULL;
	struct ibv_recv_wr rwr, *bad_rwr = NULL;

	ck_assert_int_eq(execute_ioctl(NULL, NULL), EOPNOTSUPP);
	ck_assert_int_eq(ibv_cmd_alloc_pd(NULL, NULL, NULL, 0, NULL, 0),
			 EOPNOTSUPP);
	ck_assert_int_eq(ibv_cmd_dealloc_pd(NULL), EOPNOTSUPP);
	ck_assert_int_eq(ibv_cmd_reg_mr(NULL, NULL, 0, 0, 0, NULL, NULL, 0,
					NULL, 0), EOPNOTSUPP);
	ck_assert_int_eq(ibv_cmd_create_qp_ex2(NULL, NULL, NULL, NULL, 0,
					       NULL, 0), EOPNOTSUPP);
	ck_assert_int_eq(ibv_cmd_req_notify_cq(NULL, 0), EOPNOTSUPP);
	ck_assert_int_eq(ibv_cmd_post_send(NULL, &swr, &bad_swr), EOPNOTSUPP);
	ck_assert_ptr_eq(bad_swr, &swr);
	ck_assert_int_eq(ibv_cmd_post_recv(NULL, &rwr, &bad_rwr), EOPNOTSUPP);
	ck_assert_ptr_eq(bad_rwr, &rwr);
	errno = 0;
	ck_assert_int_lt(ibv_cmd_poll_cq(NULL, 1, NULL), 0);
	ck_assert_int_eq(errno, EOPNOTSUPP);
}
END_TEST

/* rdma-core 44's command buffer header, as providers lay it out on their
 * stack; __ioctl_final_num_attrs sizes those buffers. */
struct test_cmdbuf {
	struct test_cmdbuf *next;
	struct ib_uverbs_attr *next_attr;
	struct ib_uverbs_attr *last_attr;
	uint8_t idx[4];
	uint8_t flags;
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr attrs[8];
};

START_TEST(final_num_attrs_counts_linked_buffers)
{
	struct test_cmdbuf a, b;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.next = &b;
	a.next_attr = &a.hdr.attrs[3];
	b.next_attr = &b.hdr.attrs[2];

	ck_assert_uint_eq(__ioctl_final_num_attrs(5, NULL), 5);
	ck_assert_uint_eq(__ioctl_final_num_attrs(
				  5, (struct ibv_command_buffer *)&b), 7);
	ck_assert_uint_eq(__ioctl_final_num_attrs(
				  1, (struct ibv_command_buffer *)&a), 6);
}
END_TEST

/* ---- import and dma-buf verbs -------------------------------------------- */

START_TEST(imports_check_arguments_then_fail_eopnotsupp)
{
	struct ibv_context *ctx = (struct ibv_context *)&(char[64]){ 0 };
	struct ibv_pd *pd = (struct ibv_pd *)&(char[64]){ 0 };

	errno = 0;
	ck_assert_ptr_null(ibv_import_pd(NULL, 1));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(ibv_import_pd(ctx, 1));
	ck_assert_int_eq(errno, EOPNOTSUPP);

	errno = 0;
	ck_assert_ptr_null(ibv_import_mr(NULL, 1));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(ibv_import_mr(pd, 1));
	ck_assert_int_eq(errno, EOPNOTSUPP);

	errno = 0;
	ck_assert_ptr_null(ibv_import_dm(NULL, 1));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(ibv_import_dm(ctx, 1));
	ck_assert_int_eq(errno, EOPNOTSUPP);

	ibv_unimport_pd(NULL);
	ibv_unimport_mr(NULL);
	ibv_unimport_dm(NULL);
}
END_TEST

START_TEST(import_device_checks_the_fd)
{
	int fds[2];

	errno = 0;
	ck_assert_ptr_null(ibv_import_device(-1));
	ck_assert_int_eq(errno, EBADF);

	ck_assert_int_eq(pipe(fds), 0);
	close(fds[1]);
	errno = 0;
	ck_assert_ptr_null(ibv_import_device(fds[1]));
	ck_assert_int_eq(errno, EBADF);
	errno = 0;
	ck_assert_ptr_null(ibv_import_device(fds[0]));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	close(fds[0]);
}
END_TEST

START_TEST(reg_dmabuf_mr_checks_then_fails)
{
	struct ibv_pd *pd = (struct ibv_pd *)&(char[64]){ 0 };

	errno = 0;
	ck_assert_ptr_null(ibv_reg_dmabuf_mr(NULL, 0, 4096, 0, 3, 0));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(ibv_reg_dmabuf_mr(pd, 0, 0, 0, 3, 0));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(ibv_reg_dmabuf_mr(pd, 0, 4096, 0, -1, 0));
	ck_assert_int_eq(errno, EBADF);
	errno = 0;
	ck_assert_ptr_null(ibv_reg_dmabuf_mr(pd, 0, 4096, 0, 3,
					     IBV_ACCESS_LOCAL_WRITE));
	ck_assert_int_eq(errno, EOPNOTSUPP);
}
END_TEST

static Suite *make_private_abi_suite(void)
{
	Suite *s = suite_create("private_abi");
	TCase *tc = tcase_create("IBVERBS_PRIVATE_34");

	tcase_add_test(tc, registration_is_recorded);
	tcase_add_test(tc, registration_survives_bad_input);
	tcase_add_test(tc, many_registrations);
	tcase_add_test(tc, verbs_log_keeps_errno);
	tcase_add_test(tc, context_setup_fails_with_eopnotsupp);
	tcase_add_test(tc, commands_return_positive_eopnotsupp);
	tcase_add_test(tc, final_num_attrs_counts_linked_buffers);
	suite_add_tcase(s, tc);

	tc = tcase_create("import");
	tcase_add_test(tc, imports_check_arguments_then_fail_eopnotsupp);
	tcase_add_test(tc, import_device_checks_the_fd);
	tcase_add_test(tc, reg_dmabuf_mr_checks_then_fails);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(make_private_abi_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
