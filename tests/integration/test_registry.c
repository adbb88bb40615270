/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The device registry on real devices (in the test VM): what librdmacm
 * and other long-lived clients rely on.
 *
 *  - a device still present is the same struct ibv_device in every
 *    listing, and 1,000 listings leave no file descriptor or heap behind;
 *  - librdmacm's resync: ibv_get_device_list and rdma_get_devices twice,
 *    a PD on a context from the first, an rdma_cm_id bound to the device's
 *    address, rdma_create_qp with that PD — it must work (it failed with
 *    EINVAL when every listing made new device objects);
 *  - a device removed with `rdma link delete` while a context is open on
 *    it drops out of the list, the open context keeps working until it is
 *    closed (the kernel's delete waits for that), and the device added
 *    again under the same name is a new object.
 *
 * Needs rxe0 with an rdma_cm address ($RXE_DEV, $RXE_IP: tests/vm/run
 * --netdev dummy) and root for rdma link / ip link; exits 77 otherwise. */
#include "config.h"

#include <arpa/inet.h>
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "../check_main.h"

static const char *dev_name, *dev_ip;

static struct ibv_device *find(struct ibv_device **list, const char *name)
{
	for (; list && *list; list++)
		if (!strcmp((*list)->name, name))
			return *list;
	return NULL;
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

START_TEST(listings_share_objects_and_leave_nothing)
{
	struct ibv_device **a, **b;
	size_t heap, grown;
	int fds, missing = 0;

	a = ibv_get_device_list(NULL);
	b = ibv_get_device_list(NULL);
	ck_assert_ptr_nonnull(find(a, dev_name));
	ck_assert_ptr_eq(find(a, dev_name), find(b, dev_name));
	ibv_free_device_list(a);
	ibv_free_device_list(b);

	/* Warm up first: glibc's per-thread cache keeps freed chunks, which
	 * mallinfo counts as used until it is full. And no Check assertion
	 * inside the measured loop: Check's own bookkeeping allocates. */
	for (int i = 0; i < 100; i++)
		ibv_free_device_list(ibv_get_device_list(NULL));
	fds = count_fds();
	heap = mallinfo2().uordblks;
	for (int i = 0; i < 1000; i++) {
		struct ibv_device **l = ibv_get_device_list(NULL);

		missing += !find(l, dev_name);
		ibv_free_device_list(l);
	}
	grown = mallinfo2().uordblks - heap;
	ck_assert_int_eq(missing, 0);
	ck_assert_int_eq(count_fds(), fds);
	ck_assert_msg(grown == 0, "the heap grew by %zd bytes", (ssize_t)grown);
}
END_TEST

/* What libfabric's MSG endpoint does, in short. */
START_TEST(rdmacm_resync_keeps_the_pd_usable)
{
	struct ibv_context **ctxs, *ctx = NULL;
	struct rdma_event_channel *ch;
	struct ibv_qp_init_attr attr;
	struct ibv_device **l1, **l2;
	struct sockaddr_in sin;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	int n;

	l1 = ibv_get_device_list(NULL);
	ctxs = rdma_get_devices(&n);
	ck_assert_ptr_nonnull(ctxs);
	for (int i = 0; i < n; i++)
		if (!strcmp(ctxs[i]->device->name, dev_name))
			ctx = ctxs[i];
	ck_assert_msg(ctx, "librdmacm has no context for %s", dev_name);
	pd = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(pd);
	cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	ck_assert_ptr_nonnull(cq);

	/* a second listing, and librdmacm's own resync against it */
	l2 = ibv_get_device_list(NULL);
	ck_assert_ptr_eq(find(l1, dev_name), find(l2, dev_name));
	rdma_free_devices(rdma_get_devices(NULL));

	ch = rdma_create_event_channel();
	ck_assert_ptr_nonnull(ch);
	ck_assert_int_eq(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP), 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	ck_assert_int_eq(inet_pton(AF_INET, dev_ip, &sin.sin_addr), 1);
	ck_assert_msg(rdma_bind_addr(id, (struct sockaddr *)&sin) == 0,
		      "rdma_bind_addr(%s): %s", dev_ip, strerror(errno));
	ck_assert_ptr_eq(id->verbs, ctx);

	memset(&attr, 0, sizeof(attr));
	attr.send_cq = attr.recv_cq = cq;
	attr.cap.max_send_wr = attr.cap.max_recv_wr = 4;
	attr.cap.max_send_sge = attr.cap.max_recv_sge = 1;
	attr.qp_type = IBV_QPT_RC;
	ck_assert_msg(rdma_create_qp(id, pd, &attr) == 0,
		      "rdma_create_qp with the first context's PD: %s",
		      strerror(errno));

	rdma_destroy_qp(id);
	ck_assert_int_eq(rdma_destroy_id(id), 0);
	rdma_destroy_event_channel(ch);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	rdma_free_devices(ctxs);
	ibv_free_device_list(l2);
	ibv_free_device_list(l1);
}
END_TEST

static void sh(const char *cmd)
{
	ck_assert_msg(system(cmd) == 0, "%s failed", cmd);
}

START_TEST(removed_and_readded_device)
{
	struct ibv_device **before, **during = NULL, **after;
	struct ibv_device *old_dev;
	struct ibv_device_attr attr;
	struct ibv_context *ctx;
	struct ibv_pd *pd;

	sh("ip link add sv_reg0 type dummy && ip link set sv_reg0 up && "
	   "rdma link add rxe_reg0 type rxe netdev sv_reg0");
	before = ibv_get_device_list(NULL);
	old_dev = find(before, "rxe_reg0");
	ck_assert_ptr_nonnull(old_dev);
	ctx = ibv_open_device(old_dev);
	ck_assert_ptr_nonnull(ctx);

	/* the kernel's delete waits until the context is closed */
	sh("(rdma link delete rxe_reg0 &)");
	for (int i = 0; i < 200; i++) {
		ibv_free_device_list(during);
		during = ibv_get_device_list(NULL);
		if (!find(during, "rxe_reg0"))
			break;
		usleep(50000);
	}
	ck_assert_msg(!find(during, "rxe_reg0"),
		      "rxe_reg0 still listed while being deleted");
	ck_assert_ptr_nonnull(find(during, dev_name));
	ck_assert_ptr_eq(find(during, dev_name), find(before, dev_name));
	/* the open context and its device object still work */
	ck_assert_str_eq(ctx->device->name, "rxe_reg0");
	ck_assert_ptr_eq(ctx->device, old_dev);
	ck_assert_int_eq(ibv_query_device(ctx, &attr), 0);
	pd = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(pd);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
	ibv_free_device_list(during);

	/* once closed, the delete completes and the name can come back */
	for (int i = 0; i < 200 && system("rdma link show rxe_reg0 > /dev/null 2>&1") == 0; i++)
		usleep(50000);
	sh("rdma link add rxe_reg0 type rxe netdev sv_reg0");
	after = ibv_get_device_list(NULL);
	ck_assert_ptr_nonnull(find(after, "rxe_reg0"));
	ck_assert_ptr_ne(find(after, "rxe_reg0"), old_dev);
	ck_assert_str_eq(old_dev->name, "rxe_reg0"); /* held by `before` */
	ctx = ibv_open_device(find(after, "rxe_reg0"));
	ck_assert_ptr_nonnull(ctx);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
	ibv_free_device_list(after);
	ibv_free_device_list(before);
	sh("rdma link delete rxe_reg0 && ip link delete sv_reg0");
}
END_TEST

static Suite *make_registry_suite(void)
{
	Suite *s = suite_create("registry");
	TCase *tc = tcase_create("real devices");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, listings_share_objects_and_leave_nothing);
	tcase_add_test(tc, rdmacm_resync_keeps_the_pd_usable);
	tcase_add_test(tc, removed_and_readded_device);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{

	dev_name = getenv("RXE_DEV");
	dev_ip = getenv("RXE_IP");
	if (!dev_name || !*dev_name || !dev_ip || !strcmp(dev_ip, "127.0.0.1")) {
		printf("SKIP: needs rxe0 with an rdma_cm address (tests/vm/run --netdev dummy)\n");
		return 77;
	}
	if (geteuid() != 0) {
		printf("SKIP: needs root (rdma link, ip link)\n");
		return 77;
	}
	return check_run(make_registry_suite());
}
