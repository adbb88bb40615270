/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Errors that name their cause (lib/explain.c), on $RXE_DEV: each case
 * makes one verb fail the way users meet it, checks the errno the
 * caller gets, and checks that the library's log (VERBS_LOG_LEVEL=2,
 * VERBS_LOG_FILE in this test's own folder: rdma-core's variables) got
 * exactly one warning line for it, and that this line is the expected
 * one, word for word:
 *
 *   create_qp with max_inline_data over rxe's limit, max_send_wr over
 *   max_qp_wr, without attributes; create_cq over max_cqe; create_srq over max_srq_wr;
 *   modify_qp RESET to INIT without IBV_QP_ACCESS_FLAGS; INIT to RTR on
 *   RoCE without a GRH; post_send in RESET; post_send on a full send
 *   queue; reg_mr over RLIMIT_MEMLOCK (CAP_IPC_LOCK dropped before the
 *   device is opened: uverbs refuses writes from other credentials than
 *   the opener's, ib_safe_file_access); reg_mr with fork safety on when
 *   vm.max_map_count is reached (EAGAIN, madvise's; root: lowers
 *   /proc/sys/vm/max_map_count, restores it; not under ASan, whose
 *   runtime needs mappings of its own).
 *
 * Devices: $RXE_DEV (rxe on lo or a dummy netdev: a RoCE port). */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "../check_main.h"

static const char *dev_name;
static char log_path[512];
static long saved_max_map_count = -1;

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_device_attr dattr;
static off_t log_mark;

static off_t log_size(void)
{
	FILE *f = fopen(log_path, "re");
	off_t n;

	if (!f)
		return 0;
	fseeko(f, 0, SEEK_END);
	n = ftello(f);
	fclose(f);
	return n;
}

static void setup(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);

	for (int i = 0; list && list[i]; i++)
		if (!strcmp(list[i]->name, dev_name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	ck_assert_msg(ctx, "cannot open %s", dev_name);
	ck_assert_int_eq(ibv_query_device(ctx, &dattr), 0);
	pd = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(pd);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	ck_assert_ptr_nonnull(cq);
	log_mark = log_size();
}

static void teardown(void)
{
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
}

/* The warning lines this process logged since setup (or the last call):
 * exactly one, and it reads "softverbs[PID] W " + want. */
static void assert_one_warning(const char *want)
{
	char prefix[64], line[2048], got[4096] = "";
	int n = 0, match = 0;
	FILE *f = fopen(log_path, "re");

	ck_assert_msg(f, "no log file %s", log_path);
	fseeko(f, log_mark, SEEK_SET);
	snprintf(prefix, sizeof(prefix), "softverbs[%d] W ", (int)getpid());
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, prefix, strlen(prefix)))
			continue;
		n++;
		line[strcspn(line, "\n")] = '\0';
		match += !strcmp(line + strlen(prefix), want);
		strncat(got, line, sizeof(got) - strlen(got) - 2);
		strcat(got, "\n");
	}
	log_mark = ftello(f);
	fclose(f);
	ck_assert_msg(n == 1 && match == 1, "expected one warning \"%s\", the log has %d:\n%s", want,
		      n, got);
}

#define ASSERT_NULL_ERRNO(expr, want)                                         \
	do {                                                                  \
		void *p_;                                                     \
		errno = 0;                                                    \
		p_ = (void *)(expr);                                          \
		ck_assert_msg(!p_, #expr " succeeded");                       \
		ck_assert_msg(errno == (want), #expr ": errno %d (%s), not %d", \
			      errno, strerror(errno), (want));                \
	} while (0)

static struct ibv_qp *rc_qp(uint32_t max_send_wr, uint32_t max_inline)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = max_send_wr, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = max_inline },
		.qp_type = IBV_QPT_RC,
	};

	return ibv_create_qp(pd, &attr);
}

static int to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qp_access_flags = IBV_ACCESS_REMOTE_WRITE };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					     IBV_QP_ACCESS_FLAGS);
}

/* ---- create ------------------------------------------------------------- */

START_TEST(create_qp_inline_over_limit)
{
	/* the kernel's rxe: RXE_MAX_INLINE_DATA, 32 SGEs of 16 bytes */
	ASSERT_NULL_ERRNO(rc_qp(4, 1024), EINVAL);
	assert_one_warning("create_qp: max_inline_data 1024 > device limit 512");
}
END_TEST

START_TEST(create_qp_send_wr_over_limit)
{
	char want[128];

	ASSERT_NULL_ERRNO(rc_qp((uint32_t)dattr.max_qp_wr + 1, 0), EINVAL);
	snprintf(want, sizeof(want), "create_qp: max_send_wr %u > device max_qp_wr %d",
		 (uint32_t)dattr.max_qp_wr + 1, dattr.max_qp_wr);
	assert_one_warning(want);
}
END_TEST

START_TEST(create_cq_over_max_cqe)
{
	char want[128];

	ASSERT_NULL_ERRNO(ibv_create_cq(ctx, dattr.max_cqe + 1, NULL, NULL, 0), EINVAL);
	snprintf(want, sizeof(want), "create_cq: cqe %d > device max_cqe %d", dattr.max_cqe + 1,
		 dattr.max_cqe);
	assert_one_warning(want);
}
END_TEST

START_TEST(create_srq_over_max_srq_wr)
{
	struct ibv_srq_init_attr a = {
		.attr = { .max_wr = (uint32_t)dattr.max_srq_wr + 1, .max_sge = 1 },
	};
	char want[128];

	ASSERT_NULL_ERRNO(ibv_create_srq(pd, &a), EINVAL);
	snprintf(want, sizeof(want), "create_srq: max_wr %u > device max_srq_wr %d",
		 (uint32_t)dattr.max_srq_wr + 1, dattr.max_srq_wr);
	assert_one_warning(want);
}
END_TEST

START_TEST(create_qp_without_attr)
{
	ASSERT_NULL_ERRNO(ibv_create_qp(pd, NULL), EINVAL);
	assert_one_warning("create_qp: EINVAL: NULL or foreign pd or attr (not made by this library)");
}
END_TEST

/* ---- modify_qp ---------------------------------------------------------- */

START_TEST(modify_qp_missing_attribute)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct ibv_qp *qp = rc_qp(4, 0);

	ck_assert_ptr_nonnull(qp);
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT),
			 EINVAL);
	assert_one_warning("modify_qp to INIT: attr_mask lacks IBV_QP_ACCESS_FLAGS (required for RC from RESET)");
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

START_TEST(modify_qp_roce_without_grh)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024, .rq_psn = 1,
		.max_dest_rd_atomic = 1, .min_rnr_timer = 12,
		.ah_attr = { .port_num = 1, .is_global = 0 },
	};
	struct ibv_qp *qp = rc_qp(4, 0);

	ck_assert_ptr_nonnull(qp);
	a.dest_qp_num = qp->qp_num;
	ck_assert_int_eq(to_init(qp), 0);
	ck_assert_int_eq(ibv_modify_qp(qp, &a,
				       IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
					       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					       IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER),
			 EINVAL);
	assert_one_warning("modify_qp to RTR: RoCE port needs a GRH: ah_attr.is_global=1 and sgid_index");
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

/* ---- post_send ------------------------------------------------------------ */

START_TEST(post_send_in_reset)
{
	static char buf[64];
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf), 0);
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 8, .lkey = mr ? mr->lkey : 0 };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND },
			   *bad = NULL;
	struct ibv_qp *qp = rc_qp(4, 0);
	char want[128];

	ck_assert_ptr_nonnull(mr);
	ck_assert_ptr_nonnull(qp);
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), EINVAL);
	ck_assert_ptr_eq(bad, &wr);
	snprintf(want, sizeof(want), "post_send: QP %u is in state RESET (needs RTS)", qp->qp_num);
	assert_one_warning(want);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
}
END_TEST

/* An RC QP in RTS whose peer never answers: a QP of ours left in INIT
 * (rxe drops what reaches it), with the longest ACK timeout (2^31 x
 * 4.096 us): the sends stay in the queue. */
START_TEST(post_send_queue_full)
{
	static char buf[64];
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf), 0);
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 8, .lkey = mr ? mr->lkey : 0 };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND },
			   *bad = NULL;
	struct ibv_qp *qp = rc_qp(1, 0), *peer = rc_qp(1, 0);
	struct ibv_qp_attr a = { 0 }, q;
	struct ibv_qp_init_attr qi;
	struct ibv_port_attr pa;
	union ibv_gid gid;
	uint32_t cap;
	char want[128];
	int gid_index = getenv("RXE_GID") ? atoi(getenv("RXE_GID")) : 1;
	int ret = 0;

	ck_assert_ptr_nonnull(mr);
	ck_assert_ptr_nonnull(qp);
	ck_assert_ptr_nonnull(peer);
	ck_assert_int_eq(ibv_query_port(ctx, 1, &pa), 0);
	ck_assert_int_eq(ibv_query_gid(ctx, 1, gid_index, &gid), 0);
	ck_assert_int_eq(to_init(qp), 0);
	ck_assert_int_eq(to_init(peer), 0);
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = peer->qp_num;
	a.rq_psn = 1;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.port_num = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = gid;
	a.ah_attr.grh.sgid_index = (uint8_t)gid_index;
	a.ah_attr.grh.hop_limit = 1;
	ck_assert_int_eq(ibv_modify_qp(qp, &a,
				       IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
					       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					       IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER),
			 0);
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 31;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 1;
	a.max_rd_atomic = 1;
	ck_assert_int_eq(ibv_modify_qp(qp, &a,
				       IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					       IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
					       IBV_QP_MAX_QP_RD_ATOMIC),
			 0);
	ck_assert_int_eq(ibv_query_qp(qp, &q, IBV_QP_CAP, &qi), 0);
	cap = qi.cap.max_send_wr;
	log_mark = log_size();
	for (uint32_t i = 0; i <= cap && !ret; i++)
		ret = ibv_post_send(qp, &wr, &bad);
	ck_assert_int_eq(ret, ENOMEM);
	ck_assert_ptr_eq(bad, &wr);
	snprintf(want, sizeof(want), "post_send: QP %u: send queue full (max_send_wr %u)",
		 qp->qp_num, cap);
	assert_one_warning(want);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_destroy_qp(peer), 0);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
}
END_TEST

/* ---- reg_mr ---------------------------------------------------------------- */

/* Root has CAP_IPC_LOCK, which lifts RLIMIT_MEMLOCK: drop it from the
 * effective set (this test's process only). */
static void drop_ipc_lock(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	ck_assert_int_eq(syscall(SYS_capget, &h, d), 0);
	d[CAP_IPC_LOCK / 32].effective &= ~(1u << (CAP_IPC_LOCK % 32));
	ck_assert_int_eq(syscall(SYS_capset, &h, d), 0);
}

/* No fixture: the capability goes before the device is opened. */
START_TEST(reg_mr_over_memlock)
{
	const size_t len = 64u << 20;
	struct rlimit rl = { .rlim_cur = 8u << 20, .rlim_max = 8u << 20 };
	void *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(buf, MAP_FAILED);
	drop_ipc_lock();
	ck_assert_int_eq(setrlimit(RLIMIT_MEMLOCK, &rl), 0);
	setup();
	ASSERT_NULL_ERRNO(ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE), ENOMEM);
	assert_one_warning("reg_mr: ENOMEM: RLIMIT_MEMLOCK is 8 MiB, 0 bytes pinned already, this MR needs 64 MiB more (ulimit -l)");
	teardown();
	munmap(buf, len);
}
END_TEST

#if !defined(__SANITIZE_ADDRESS__)
static long count_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	long n = 0;
	int c;

	ck_assert_ptr_nonnull(f);
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

static void write_max_map_count(long v)
{
	FILE *f = fopen("/proc/sys/vm/max_map_count", "we");

	ck_assert_ptr_nonnull(f);
	fprintf(f, "%ld\n", v);
	ck_assert_int_eq(fclose(f), 0);
}

/* Fork safety on, one-page MRs every other page of one mapping: each
 * DONTFORK splits it, until the kernel's vm.max_map_count says no. */
START_TEST(reg_mr_max_map_count)
{
	const long pg = sysconf(_SC_PAGESIZE), npages = 400;
	char *buf = mmap(NULL, (size_t)(npages * pg), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct ibv_mr *mrs[200];
	long limit;
	int n = 0, err = 0;
	char want[256];

	ck_assert_ptr_ne(buf, MAP_FAILED);
	ck_assert_int_eq(ibv_fork_init(), 0);
	limit = count_maps() + 40;
	write_max_map_count(limit);
	log_mark = log_size();
	while (n < (int)(sizeof(mrs) / sizeof(mrs[0]))) {
		errno = 0;
		mrs[n] = ibv_reg_mr(pd, buf + (size_t)(2 * n + 1) * (size_t)pg, (size_t)pg,
				    IBV_ACCESS_LOCAL_WRITE);
		if (!mrs[n]) {
			err = errno;
			break;
		}
		n++;
	}
	write_max_map_count(saved_max_map_count);
	ck_assert_msg(n < (int)(sizeof(mrs) / sizeof(mrs[0])),
		      "%d registrations, none refused with vm.max_map_count %ld", n, limit);
	/* madvise's errno (mm/madvise.c: a split that fails is EAGAIN),
	 * as rdma-core passes it on too */
	ck_assert_int_eq(err, EAGAIN);
	snprintf(want, sizeof(want),
		 "reg_mr: EAGAIN: vm.max_map_count (%ld) reached: fork safety's MADV_DONTFORK splits mappings; sysctl -w vm.max_map_count=%ld",
		 limit, limit * 2);
	assert_one_warning(want);
	while (n--)
		ck_assert_int_eq(ibv_dereg_mr(mrs[n]), 0);
	munmap(buf, (size_t)(npages * pg));
}
END_TEST
#endif

static Suite *make_explain_suite(void)
{
	Suite *s = suite_create("explain");
	TCase *tc = tcase_create("rxe");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, create_qp_inline_over_limit);
	tcase_add_test(tc, create_qp_send_wr_over_limit);
	tcase_add_test(tc, create_cq_over_max_cqe);
	tcase_add_test(tc, create_srq_over_max_srq_wr);
	tcase_add_test(tc, create_qp_without_attr);
	tcase_add_test(tc, modify_qp_missing_attribute);
	tcase_add_test(tc, modify_qp_roce_without_grh);
	tcase_add_test(tc, post_send_in_reset);
	tcase_add_test(tc, post_send_queue_full);
#if defined(__SANITIZE_ADDRESS__)
	printf("SKIP (one case): reg_mr_max_map_count under ASan, whose runtime maps memory of its own as the limit is reached\n");
#else
	if (saved_max_map_count > 0 && geteuid() == 0)
		tcase_add_test(tc, reg_mr_max_map_count);
	else
		printf("SKIP (one case): reg_mr_max_map_count needs root (writes /proc/sys/vm/max_map_count)\n");
#endif
	suite_add_tcase(s, tc);
	tc = tcase_create("memlock");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, reg_mr_over_memlock);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	const char *tmp = getenv("TMPDIR");
	char dir[256];
	FILE *f;
	int ret;

	(void)argc;
	dev_name = getenv("RXE_DEV");
	if (!dev_name || !*dev_name) {
		printf("SKIP: RXE_DEV is not set (run inside tests/vm/run)\n");
		return 77;
	}
	/* the library opens its log at load: run again with rdma-core's
	 * variables set (ours unset: they would win), the log in a folder
	 * of this test's own */
	if (!getenv("SV_EXPLAIN_DIR")) {
		snprintf(dir, sizeof(dir), "%s/test_explain.XXXXXX", tmp ? tmp : "/tmp");
		if (!mkdtemp(dir)) {
			printf("FAIL: mkdtemp %s: %s\n", dir, strerror(errno));
			return 1;
		}
		setenv("SV_EXPLAIN_DIR", dir, 1);
		snprintf(log_path, sizeof(log_path), "%s/explain.%%p.log", dir);
		setenv("VERBS_LOG_FILE", log_path, 1);
		setenv("VERBS_LOG_LEVEL", "2", 1);
		unsetenv("SOFTVERBS_LOG");
		unsetenv("SOFTVERBS_LOG_FILE");
		execv("/proc/self/exe", argv);
		printf("FAIL: execv /proc/self/exe: %s\n", strerror(errno));
		return 1;
	}
	/* %p is this process's pid (exec keeps it) */
	snprintf(log_path, sizeof(log_path), "%s/explain.%d.log", getenv("SV_EXPLAIN_DIR"),
		 (int)getpid());
	f = fopen("/proc/sys/vm/max_map_count", "re");
	if (f) {
		if (fscanf(f, "%ld", &saved_max_map_count) != 1)
			saved_max_map_count = -1;
		fclose(f);
	}
	ret = check_run(make_explain_suite());
	/* a case that died midway leaves no lowered limit behind */
	if (saved_max_map_count > 0 && geteuid() == 0) {
		f = fopen("/proc/sys/vm/max_map_count", "we");
		if (f) {
			fprintf(f, "%ld\n", saved_max_map_count);
			fclose(f);
		}
	}
	if (ret == 0) {
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", getenv("SV_EXPLAIN_DIR"));
		if (system(cmd))
			printf("could not remove %s\n", getenv("SV_EXPLAIN_DIR"));
	} else {
		printf("the library's log: %s\n", log_path);
	}
	return ret;
}
