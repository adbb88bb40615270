/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The IBVERBS_PRIVATE_34 entry points and the import / dma-buf verbs:
 * registrations are recorded, everything else fails cleanly with the
 * documented errno and touches nothing. White-box: links the core. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "core.h"
#include "pabi/pabi.h"

#include "../check_main.h"

/* ---- provider registration ---------------------------------------------- */

static struct verbs_device *fake_alloc_device(struct verbs_sysfs_dev *sd)
{
	(void)sd;
	return NULL;
}

START_TEST(registration_is_recorded)
{
	static const struct verbs_device_ops fake = {
		.name = "fake_hca",
		.alloc_device = fake_alloc_device,
	};
	size_t before = sv_rdmacore_driver_count();

	verbs_register_driver_34(&fake);
	ck_assert_uint_eq(sv_rdmacore_driver_count(), before + 1);
	ck_assert_ptr_eq(sv_rdmacore_driver(before), &fake);
	ck_assert_ptr_null(sv_rdmacore_driver(before + 1));
	/* a library's constructor may run twice (dlopen of two names of
	 * one file): one registration */
	verbs_register_driver_34(&fake);
	ck_assert_uint_eq(sv_rdmacore_driver_count(), before + 1);
}
END_TEST

START_TEST(registration_survives_bad_input)
{
	static const struct verbs_device_ops unnamed = {
		.alloc_device = fake_alloc_device,
	};
	static const struct verbs_device_ops no_alloc = { .name = "x" };
	size_t before = sv_rdmacore_driver_count();

	verbs_register_driver_34(NULL);
	verbs_register_driver_34(&unnamed);
	verbs_register_driver_34(&no_alloc);
	ck_assert_uint_eq(sv_rdmacore_driver_count(), before);
}
END_TEST

/* More registrations than any first allocation holds. */
START_TEST(many_registrations)
{
	static struct verbs_device_ops ops[100];
	size_t before = sv_rdmacore_driver_count();

	for (int i = 0; i < 100; i++) {
		ops[i].name = "many";
		ops[i].alloc_device = fake_alloc_device;
		verbs_register_driver_34(&ops[i]);
	}
	ck_assert_uint_eq(sv_rdmacore_driver_count(), before + 100);
	for (int i = 0; i < 100; i++)
		ck_assert_ptr_eq(sv_rdmacore_driver(before + (size_t)i), &ops[i]);
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

START_TEST(context_setup_rejects_foreign_devices)
{
	struct ibv_device *dev = (struct ibv_device *)&(struct verbs_device){ 0 };

	errno = 0;
	ck_assert_ptr_null(_verbs_init_and_alloc_context(dev, -1, 4096, NULL,
							 0));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(verbs_open_device(NULL, NULL));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(verbs_open_device(dev, NULL));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(ibv_read_ibdev_sysfs_file(NULL, 0, NULL, "x"), -1);
	ck_assert_int_eq(errno, EINVAL);
	verbs_uninit_context(NULL);
	verbs_set_ops(NULL, NULL);
}
END_TEST

/* verbs_init_cq does what the core does to every new CQ, including the
 * completion channel's reference. */
START_TEST(init_cq_holds_the_channel)
{
	struct ibv_context ctx;
	struct ibv_comp_channel ch = { .context = &ctx, .fd = -1 };
	struct ibv_cq cq;
	int tag;

	memset(&ctx, 0, sizeof(ctx));
	memset(&cq, 0xff, sizeof(cq));
	pthread_mutex_init(&ctx.mutex, NULL);
	verbs_init_cq(&cq, &ctx, &ch, &tag);
	ck_assert_ptr_eq(cq.context, &ctx);
	ck_assert_ptr_eq(cq.channel, &ch);
	ck_assert_ptr_eq(cq.cq_context, &tag);
	ck_assert_int_eq(ch.refcnt, 1);
	ck_assert_uint_eq(cq.comp_events_completed, 0);
	ck_assert_uint_eq(cq.async_events_completed, 0);
	pthread_mutex_destroy(&cq.mutex);
	pthread_cond_destroy(&cq.cond);
}
END_TEST

/* A provider's sysfs reads go under the device's sysfs folder. */
START_TEST(ibdev_sysfs_file_reads_under_the_device)
{
	char dir[] = "/tmp/sv_pabi_XXXXXX", path[64], buf[32];
	struct verbs_sysfs_dev sd;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/fw_ver", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("16.35.2000\n", f);
	fclose(f);
	memset(&sd, 0, sizeof(sd));
	snprintf(sd.ibdev_path, sizeof(sd.ibdev_path), "%s", dir);
	ck_assert_int_gt(ibv_read_ibdev_sysfs_file(buf, sizeof(buf), &sd,
						   "%s_%s", "fw", "ver"), 0);
	ck_assert_str_eq(buf, "16.35.2000");
	ck_assert_int_eq(ibv_read_ibdev_sysfs_file(buf, sizeof(buf), &sd,
						   "missing"), -1);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* __ioctl_final_num_attrs sizes the buffers providers put on their stack:
 * the attributes filled so far in every linked block count. */
struct test_cmdbuf {
	struct ibv_command_buffer cb;
	struct ib_uverbs_attr attrs[8];
};

START_TEST(final_num_attrs_counts_linked_buffers)
{
	struct test_cmdbuf a, b;

	ck_assert_uint_eq(offsetof(struct ibv_command_buffer, hdr) +
				  offsetof(struct ib_uverbs_ioctl_hdr, attrs),
			  sizeof(struct ibv_command_buffer));
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.cb.next = &b.cb;
	a.cb.next_attr = &a.cb.hdr.attrs[3];
	b.cb.next_attr = &b.cb.hdr.attrs[2];

	ck_assert_uint_eq(__ioctl_final_num_attrs(5, NULL), 5);
	ck_assert_uint_eq(__ioctl_final_num_attrs(5, &b.cb), 7);
	ck_assert_uint_eq(__ioctl_final_num_attrs(1, &a.cb), 6);
}
END_TEST

/* ---- import and dma-buf verbs -------------------------------------------- */

/* Objects this library did not make are refused before any dispatch;
 * what a real context answers is checked in the VM (test_core). */
START_TEST(imports_refuse_foreign_objects)
{
	struct ibv_context *ctx = (struct ibv_context *)&(char[512]){ 0 };
	struct ibv_pd *pd = (struct ibv_pd *)&(char[64]){ 0 };

	errno = 0;
	ck_assert_ptr_null(ibv_import_pd(NULL, 1));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(ibv_import_pd(ctx, 1));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(ibv_import_mr(NULL, 1));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(ibv_import_mr(pd, 1));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(ibv_import_dm(NULL, 1));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(ibv_import_dm(ctx, 1));
	ck_assert_int_eq(errno, EINVAL);

	ibv_unimport_pd(NULL);
	ibv_unimport_mr(NULL);
	ibv_unimport_dm(NULL);
	ibv_unimport_pd(pd);
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
	/* a pipe is no uverbs character device */
	errno = 0;
	ck_assert_ptr_null(ibv_import_device(fds[0]));
	ck_assert_int_eq(errno, EINVAL);
	close(fds[0]);
}
END_TEST

START_TEST(reg_dmabuf_mr_refuses_a_foreign_pd)
{
	struct ibv_pd *pd = (struct ibv_pd *)&(char[64]){ 0 };

	errno = 0;
	ck_assert_ptr_null(ibv_reg_dmabuf_mr(NULL, 0, 4096, 0, 3, 0));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(ibv_reg_dmabuf_mr(pd, 0, 4096, 0, 3, 0));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

/* ---- the shared structures and identifiers of rdma-core 57-65 ------------------
 * Sizes and offsets as rdma-core's headers have them at v57.0 (ibv_fd_arr),
 * v59.0 (verbs_create_cq_prov_attr, verbs_dmah, ibv_dmah_init_attr,
 * ibv_mr_init_attr), v64.0 (ibv_buf, ibv_mr_init_attr.buf,
 * ib_uverbs_buffer_desc) and 65.0 (the completion-counter structs), and the
 * uverbs identifiers of kernel-headers/rdma at 65.0, whether this build
 * declares them (lib/verbs_ext.h, lib/uverbs_ext.h) or the system's
 * headers do. notes/issue26.md says how they were checked against
 * programs compiled with each tag's headers. */
#define OFF(type, member) ((unsigned long)offsetof(type, member))
#define SZ(type) ((unsigned long)sizeof(type))

START_TEST(layouts_of_rdma_core_57_to_65)
{
	ck_assert_uint_eq(SZ(struct ibv_fd_arr), 16);
	ck_assert_uint_eq(OFF(struct ibv_fd_arr, count), 8);

	ck_assert_uint_eq(SZ(struct verbs_create_cq_prov_attr), 24);
	ck_assert_uint_eq(OFF(struct verbs_create_cq_prov_attr, buffer.length), 0);
	ck_assert_uint_eq(OFF(struct verbs_create_cq_prov_attr, buffer.ptr), 8);
	ck_assert_uint_eq(OFF(struct verbs_create_cq_prov_attr,
			      buffer.dmabuf.offset), 8);
	ck_assert_uint_eq(OFF(struct verbs_create_cq_prov_attr,
			      buffer.dmabuf.fd), 16);

	ck_assert_uint_eq(SZ(struct ibv_dmah), 8);
	ck_assert_uint_eq(SZ(struct verbs_dmah), 16);
	ck_assert_uint_eq(OFF(struct verbs_dmah, handle), 8);
	ck_assert_uint_eq(SZ(struct ibv_dmah_init_attr), 12);
	ck_assert_uint_eq(OFF(struct ibv_dmah_init_attr, cpu_id), 4);
	ck_assert_uint_eq(OFF(struct ibv_dmah_init_attr, ph), 8);
	ck_assert_uint_eq(OFF(struct ibv_dmah_init_attr, tph_mem_type), 9);

	ck_assert_uint_eq(OFF(struct ibv_mr_init_attr, access), 8);
	ck_assert_uint_eq(OFF(struct ibv_mr_init_attr, comp_mask), 16);
	ck_assert_uint_eq(OFF(struct ibv_mr_init_attr, iova), 24);
	ck_assert_uint_eq(OFF(struct ibv_mr_init_attr, addr), 32);
	ck_assert_uint_eq(OFF(struct ibv_mr_init_attr, fd), 40);
	ck_assert_uint_eq(OFF(struct ibv_mr_init_attr, fd_offset), 48);
	ck_assert_uint_eq(OFF(struct ibv_mr_init_attr, dmah), 56);
#if SV_MR_INIT_ATTR_HAS_BUF
	ck_assert_uint_eq(OFF(struct ibv_mr_init_attr, buf), 64);
	ck_assert_uint_eq(SZ(struct ibv_mr_init_attr), 72);
#else
	ck_assert_uint_eq(SZ(struct ibv_mr_init_attr), 64);
#endif
	ck_assert_int_eq(IBV_REG_MR_MASK_IOVA, 1);
	ck_assert_int_eq(IBV_REG_MR_MASK_ADDR, 2);
	ck_assert_int_eq(IBV_REG_MR_MASK_FD, 4);
	ck_assert_int_eq(IBV_REG_MR_MASK_FD_OFFSET, 8);
	ck_assert_int_eq(IBV_REG_MR_MASK_DMAH, 16);
	ck_assert_int_eq(IBV_REG_MR_MASK_BUF, 32);

	ck_assert_uint_eq(SZ(struct ibv_buf), 32);
	ck_assert_uint_eq(OFF(struct ibv_buf, size), 8);
	ck_assert_uint_eq(OFF(struct ibv_buf, pd), 16);
	ck_assert_uint_eq(OFF(struct ibv_buf, dmabuf_fd), 24);
	ck_assert_uint_eq(SZ(struct ib_uverbs_buffer_desc), 32);
	ck_assert_uint_eq(OFF(struct ib_uverbs_buffer_desc, addr), 16);

	ck_assert_uint_eq(SZ(struct ibv_comp_cntr_caps), 16);
	ck_assert_uint_eq(OFF(struct ibv_comp_cntr_caps, max_counters), 8);
	ck_assert_uint_eq(OFF(struct ibv_comp_cntr_caps, supported_qp_attach_ops),
			  12);
	ck_assert_uint_eq(SZ(struct ibv_comp_cntr), 16);
	ck_assert_uint_eq(OFF(struct ibv_comp_cntr, handle), 8);
	ck_assert_uint_eq(SZ(struct ibv_comp_cntr_init_attr), 12);
	ck_assert_uint_eq(OFF(struct ibv_comp_cntr_init_attr, flags), 8);
	ck_assert_uint_eq(SZ(struct ibv_qp_attach_comp_cntr_attr), 8);

	ck_assert_int_eq(CREATE_CQ_CMD_FLAGS_WITH_MEM_VA, 2);
	ck_assert_int_eq(CREATE_CQ_CMD_FLAGS_WITH_MEM_DMABUF, 4);
	ck_assert_int_eq((int)IBV_EVENT_DEVICE_SPEED_CHANGE, 20);
	ck_assert_int_eq(IBV_QUERY_QP_DATA_IN_ORDER_DEVICE_ONLY, 2);
}
END_TEST

START_TEST(uverbs_identifiers_of_kernel_7)
{
	ck_assert_int_eq(UVERBS_OBJECT_ASYNC_EVENT, 16);
	ck_assert_int_eq(UVERBS_OBJECT_DMAH, 17);
	ck_assert_int_eq(UVERBS_OBJECT_DMABUF, 18);
	ck_assert_int_eq(UVERBS_OBJECT_COMP_CNTR, 19);
	ck_assert_int_eq(UVERBS_METHOD_QUERY_GID_ENTRY, 6);
	ck_assert_int_eq(UVERBS_METHOD_QUERY_PORT_SPEED, 7);
	ck_assert_int_eq(UVERBS_METHOD_QUERY_COMP_CNTR_CAPS, 8);
	ck_assert_int_eq(UVERBS_ATTR_GET_CONTEXT_FD_ARR, 2);
	ck_assert_int_eq(UVERBS_METHOD_REG_MR, 5);
	ck_assert_int_eq(UVERBS_ATTR_REG_MR_RESP_RKEY, 10);
	ck_assert_int_eq(UVERBS_ATTR_CREATE_CQ_EVENT_FD, 7);
	ck_assert_int_eq(UVERBS_ATTR_CREATE_CQ_BUFFER_VA, 8);
	ck_assert_int_eq(UVERBS_ATTR_CREATE_CQ_BUFFER_OFFSET, 11);
	ck_assert_int_eq(UVERBS_METHOD_QP_ATTACH_COMP_CNTR, 2);
	ck_assert_int_eq(UVERBS_METHOD_DMAH_FREE, 1);
	ck_assert_int_eq(UVERBS_ATTR_ALLOC_DMAH_PH, 3);
	ck_assert_int_eq(UVERBS_ATTR_ALLOC_DMABUF_PGOFF, 1);
	ck_assert_int_eq(UVERBS_METHOD_COMP_CNTR_READ, 3);
	ck_assert_int_eq(UVERBS_ATTR_MODIFY_COMP_CNTR_VALUE, 3);
	ck_assert_int_eq(IB_UVERBS_BUFFER_TYPE_VA, 1);
	ck_assert_int_eq(IB_UVERBS_COMP_CNTR_MODIFY_OP_INC, 1);
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
	tcase_add_test(tc, context_setup_rejects_foreign_devices);
	tcase_add_test(tc, init_cq_holds_the_channel);
	tcase_add_test(tc, ibdev_sysfs_file_reads_under_the_device);
	tcase_add_test(tc, final_num_attrs_counts_linked_buffers);
	suite_add_tcase(s, tc);

	tc = tcase_create("import");
	tcase_add_test(tc, imports_refuse_foreign_objects);
	tcase_add_test(tc, import_device_checks_the_fd);
	tcase_add_test(tc, reg_dmabuf_mr_refuses_a_foreign_pd);
	tcase_add_test(tc, layouts_of_rdma_core_57_to_65);
	tcase_add_test(tc, uverbs_identifiers_of_kernel_7);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(make_private_abi_suite());
}
