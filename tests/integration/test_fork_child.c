/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * tests/integration/test_fork_child.c -- RDMA in a forked child, inside
 * the test VM, on softverbs over $RXE_DEV, while the parent's own traffic
 * goes on (a thread of the parent runs RDMA WRITE, SEND and RDMA READ on a
 * loopback RC pair through the whole test, every byte checked):
 *
 *   fresh        the child opens the device afresh (a new device list,
 *                or the device of the list it inherited), registers
 *                memory and runs its own loopback traffic, every byte
 *                checked; the parent's traffic made progress meanwhile
 *   inherited    the child calls the verbs on the context, PD, MR, CQ,
 *                QP, SRQ, extended QP and CQ, completion channel and
 *                async events it inherited: each fails with EPERM and
 *                writes exactly one log line (SOFTVERBS_LOG_FILE); then
 *                it frees the inherited device list, closes the
 *                inherited context (0) and runs traffic on a fresh one.
 *                The parent's objects are intact: its traffic pair, the
 *                MR, SRQ and QPs the child tried to destroy go on
 *                working, and the parent destroys them all cleanly
 *
 * each with fork safety on (ibv_fork_init) and off. Plain program (the
 * children must not use Check); prints PASS/FAIL per case. Exit 0 all
 * passed, 1 a failure, 77 no device here.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define LEN 8192
#define WAIT_S 60 /* a hang guard, not a timing */

static const char *dev_name;
static int gid_index = 1;
static char log_path[256];

/* ---- a device and a loopback pair, no asserts (children use them) -------- */

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	union ibv_gid gid;
	struct ibv_cq *cq[2];
	struct ibv_qp *qp[2];
	uint8_t *buf;     /* src | dst | recv | rd, LEN each */
	struct ibv_mr *mr;
	uint32_t seed;
	const char *err;  /* what failed */
};

static int fail_at(struct side *s, const char *what)
{
	s->err = what;
	return -1;
}

static struct ibv_context *open_named(struct ibv_device **list)
{
	struct ibv_context *ctx = NULL;

	for (int i = 0; list && list[i] && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev_name))
			ctx = ibv_open_device(list[i]);
	return ctx;
}

static int modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask)
{
	return ibv_modify_qp(qp, a, mask);
}

static int connect_qp(struct side *s, struct ibv_qp *qp, uint32_t dest)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	};

	if (modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest;
	a.rq_psn = 1;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = s->gid;
	a.ah_attr.grh.sgid_index = (uint8_t)gid_index;
	a.ah_attr.grh.hop_limit = 1;
	if (modify(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		   IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 1;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return modify(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
		      IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

/* ctx given (or NULL: open one); PD, two RC QPs connected to each other,
 * one registered buffer. 0 or -1 (s->err). */
static int side_open(struct side *s, struct ibv_context *ctx)
{
	memset(s, 0, sizeof(*s));
	s->ctx = ctx;
	if (!s->ctx) {
		struct ibv_device **list = ibv_get_device_list(NULL);

		s->ctx = open_named(list);
		ibv_free_device_list(list);
	}
	if (!s->ctx)
		return fail_at(s, "ibv_open_device");
	s->pd = ibv_alloc_pd(s->ctx);
	if (!s->pd)
		return fail_at(s, "ibv_alloc_pd");
	if (ibv_query_gid(s->ctx, 1, gid_index, &s->gid))
		return fail_at(s, "ibv_query_gid");
	for (int i = 0; i < 2; i++) {
		struct ibv_qp_init_attr ia = {
			.qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1,
				 .max_recv_sge = 1 },
		};

		s->cq[i] = ibv_create_cq(s->ctx, 32, NULL, NULL, 0);
		if (!s->cq[i])
			return fail_at(s, "ibv_create_cq");
		ia.send_cq = ia.recv_cq = s->cq[i];
		s->qp[i] = ibv_create_qp(s->pd, &ia);
		if (!s->qp[i])
			return fail_at(s, "ibv_create_qp");
	}
	if (connect_qp(s, s->qp[0], s->qp[1]->qp_num) || connect_qp(s, s->qp[1], s->qp[0]->qp_num))
		return fail_at(s, "connecting the QPs");
	/* one page more, and not page aligned: pages shared with data */
	s->buf = aligned_alloc(4096, 4 * LEN + 4096);
	if (!s->buf)
		return fail_at(s, "aligned_alloc");
	s->buf += 100;
	s->mr = ibv_reg_mr(s->pd, s->buf, 4 * LEN,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!s->mr)
		return fail_at(s, "ibv_reg_mr");
	return 0;
}

static void side_close(struct side *s)
{
	if (s->mr)
		ibv_dereg_mr(s->mr);
	for (int i = 0; i < 2; i++) {
		if (s->qp[i])
			ibv_destroy_qp(s->qp[i]);
		if (s->cq[i])
			ibv_destroy_cq(s->cq[i]);
	}
	if (s->pd)
		ibv_dealloc_pd(s->pd);
	if (s->ctx)
		ibv_close_device(s->ctx);
	if (s->buf)
		free(s->buf - 100);
	memset(s, 0, sizeof(*s));
}

static uint8_t pat(uint32_t seed, size_t i)
{
	uint32_t x = seed * 2654435761u ^ (uint32_t)i * 40503u;

	return (uint8_t)(x ^ x >> 13);
}

static int wait_wc(struct side *s, int q, int n)
{
	time_t end = time(NULL) + WAIT_S;
	struct ibv_wc wc;

	while (n > 0) {
		int got = ibv_poll_cq(s->cq[q], 1, &wc);

		if (got < 0)
			return fail_at(s, "ibv_poll_cq");
		if (got == 0 && time(NULL) > end)
			return fail_at(s, "no completion in 60 s");
		if (got == 1 && wc.status != IBV_WC_SUCCESS)
			return fail_at(s, ibv_wc_status_str(wc.status));
		n -= got;
	}
	return 0;
}

/* One round: WRITE src->dst, SEND src->recv, READ dst->rd; every byte
 * checked. 0 or -1 (s->err). */
static int side_round(struct side *s)
{
	uint8_t *src = s->buf, *dst = src + LEN, *recv = dst + LEN, *rd = recv + LEN;
	struct ibv_sge ss = { (uintptr_t)src, LEN, s->mr->lkey };
	struct ibv_sge rs = { (uintptr_t)recv, LEN, s->mr->lkey };
	struct ibv_sge ds = { (uintptr_t)rd, LEN, s->mr->lkey };
	struct ibv_recv_wr rwr = { .sg_list = &rs, .num_sge = 1 }, *rbad;
	struct ibv_send_wr w[3], *sbad;

	s->seed++;
	for (size_t i = 0; i < LEN; i++)
		src[i] = pat(s->seed, i);
	memset(w, 0, sizeof(w));
	w[0].opcode = IBV_WR_RDMA_WRITE;
	w[0].sg_list = &ss;
	w[0].wr.rdma.remote_addr = (uintptr_t)dst;
	w[0].wr.rdma.rkey = s->mr->rkey;
	w[1].opcode = IBV_WR_SEND;
	w[1].sg_list = &ss;
	w[2].opcode = IBV_WR_RDMA_READ;
	w[2].sg_list = &ds;
	w[2].wr.rdma = w[0].wr.rdma;
	for (int i = 0; i < 3; i++) {
		w[i].num_sge = 1;
		w[i].send_flags = IBV_SEND_SIGNALED;
		w[i].next = i < 2 ? &w[i + 1] : NULL;
	}
	if (ibv_post_recv(s->qp[1], &rwr, &rbad))
		return fail_at(s, "ibv_post_recv");
	if (ibv_post_send(s->qp[0], w, &sbad))
		return fail_at(s, "ibv_post_send");
	if (wait_wc(s, 0, 3) || wait_wc(s, 1, 1))
		return -1;
	for (size_t i = 0; i < LEN; i++)
		if (dst[i] != pat(s->seed, i) || recv[i] != pat(s->seed, i) ||
		    rd[i] != pat(s->seed, i))
			return fail_at(s, "CORRUPTED: a byte the device wrote is not what was sent");
	return 0;
}

/* ---- the parent's traffic ----------------------------------------------- */

static struct side parent;
static pthread_t traffic_tid;
static atomic_int traffic_stop;
static atomic_ulong traffic_rounds;
static atomic_int traffic_failed;

static void *traffic(void *arg)
{
	(void)arg;
	while (!atomic_load(&traffic_stop)) {
		if (side_round(&parent)) {
			atomic_store(&traffic_failed, 1);
			break;
		}
		atomic_fetch_add(&traffic_rounds, 1);
	}
	return NULL;
}

/* ---- results -------------------------------------------------------------- */

static int failures;

static void result(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s: ", ok ? "PASS" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	failures += !ok;
}

/* Fork; the child runs fn and exits with its return value; the parent
 * waits (the traffic thread running all along) and returns the status
 * and how many rounds the parent's traffic made meanwhile. */
static int run_child(int (*fn)(void *), void *arg, unsigned long *rounds_during)
{
	unsigned long before = atomic_load(&traffic_rounds);
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int r = fn(arg);

		fflush(stdout); /* the child's lines: _exit flushes nothing */
		_exit(r);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	*rounds_during = atomic_load(&traffic_rounds) - before;
	return status;
}

/* ---- fresh: RDMA from a new context in the child --------------------------- */

static int child_fresh(void *arg)
{
	struct ibv_device **inherited = arg;
	struct side s;
	int rounds = 0;

	/* a new list, or (arg) the list the parent had when it forked */
	if (side_open(&s, inherited ? open_named(inherited) : NULL)) {
		printf("  child: %s: %s\n", s.err, strerror(errno));
		return 1;
	}
	for (; rounds < 100; rounds++)
		if (side_round(&s)) {
			printf("  child: round %d: %s\n", rounds, s.err);
			return 1;
		}
	side_close(&s);
	printf("  child: %d rounds of RDMA WRITE, SEND and READ on a fresh context, every byte checked\n",
	       rounds);
	return 0;
}

static void case_fresh(const char *mode, struct ibv_device **inherited_list)
{
	unsigned long during = 0;
	int st = run_child(child_fresh, inherited_list, &during);

	result(st == 0 && during > 0 && !atomic_load(&traffic_failed),
	       "fork safety %s: a child opens %s, registers memory and runs traffic while the parent's traffic goes on (%lu parent rounds meanwhile, child status %#x)",
	       mode, inherited_list ? "the device of the list it inherited" : "the device afresh",
	       during, st);
}

/* ---- inherited: every verb refuses, one log line each ---------------------- */

struct inherited {
	struct ibv_device **list;
	struct ibv_srq *srq;
	struct ibv_cq_ex *cqx;
	struct ibv_qp *qpx;
	struct ibv_comp_channel *ch;
	struct ibv_cq *ch_cq;
};

static long log_lines(void)
{
	FILE *f = fopen(log_path, "r");
	long n = 0;
	int c;

	if (!f)
		return 0;
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

static int child_bad, child_verbs;

/* The verb returned its failure with errno (or value) EPERM and wrote one
 * log line. */
static void expect(const char *verb, int failed_eperm, long *lines)
{
	long now = log_lines();

	child_verbs++;
	if (!failed_eperm || now != *lines + 1) {
		printf("  child: %s: %s, %ld log line(s)\n", verb,
		       failed_eperm ? "EPERM" : "did not fail with EPERM", now - *lines);
		child_bad = 1;
	}
	*lines = now;
}

static int child_inherited(void *arg)
{
	struct inherited *in = arg;
	struct ibv_context *ctx = parent.ctx;
	uint8_t *mem = malloc(4096);
	struct ibv_sge sge = { (uintptr_t)parent.buf, 64, parent.mr->lkey };
	struct ibv_send_wr swr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND };
	struct ibv_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 };
	struct ibv_send_wr *sbad = NULL;
	struct ibv_recv_wr *rbad = NULL;
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };
	struct ibv_qp_init_attr qia;
	struct ibv_async_event ev;
	union ibv_gid gid;
	struct ibv_wc wc;
	struct ibv_cq *cq;
	void *cq_ctx;
	long lines = log_lines();
	struct side s;
	int r;

	errno = 0;
	expect("ibv_query_device", ibv_query_device(ctx, &da) == EPERM, &lines);
	expect("ibv_query_port", ibv_query_port(ctx, 1, &pa) == EPERM, &lines);
	r = ibv_query_gid(ctx, 1, gid_index, &gid);
	expect("ibv_query_gid", r == -1 && errno == EPERM, &lines);
	expect("ibv_alloc_pd", !ibv_alloc_pd(ctx) && errno == EPERM, &lines);
	expect("ibv_reg_mr", !ibv_reg_mr(parent.pd, mem, 4096, IBV_ACCESS_LOCAL_WRITE) &&
	       errno == EPERM, &lines);
	expect("ibv_create_cq", !ibv_create_cq(ctx, 4, NULL, NULL, 0) && errno == EPERM, &lines);
	expect("ibv_create_comp_channel", !ibv_create_comp_channel(ctx) && errno == EPERM, &lines);
	expect("ibv_post_send", ibv_post_send(parent.qp[0], &swr, &sbad) == EPERM && sbad == &swr,
	       &lines);
	expect("ibv_post_recv", ibv_post_recv(parent.qp[1], &rwr, &rbad) == EPERM && rbad == &rwr,
	       &lines);
	rbad = NULL;
	expect("ibv_post_srq_recv",
	       ibv_post_srq_recv(in->srq, &rwr, &rbad) == EPERM && rbad == &rwr, &lines);
	expect("ibv_poll_cq", ibv_poll_cq(parent.cq[0], 1, &wc) == -EPERM, &lines);
	expect("ibv_req_notify_cq", ibv_req_notify_cq(parent.cq[0], 0) == EPERM, &lines);
	expect("ibv_query_qp", ibv_query_qp(parent.qp[0], &qa, IBV_QP_STATE, &qia) == EPERM,
	       &lines);
	qa.qp_state = IBV_QPS_ERR;
	expect("ibv_modify_qp", ibv_modify_qp(parent.qp[0], &qa, IBV_QP_STATE) == EPERM, &lines);
	if (in->qpx) {
		struct ibv_qp_ex *x = ibv_qp_to_qp_ex(in->qpx);

		ibv_wr_start(x);
		ibv_wr_send(x);
		ibv_wr_set_sge(x, parent.mr->lkey, (uintptr_t)parent.buf, 64);
		expect("ibv_wr_complete", ibv_wr_complete(x) == EPERM, &lines);
	}
	if (in->cqx) {
		struct ibv_poll_cq_attr attr = { 0 };

		expect("ibv_start_poll", ibv_start_poll(in->cqx, &attr) == EPERM, &lines);
	}
	r = ibv_get_async_event(ctx, &ev);
	expect("ibv_get_async_event", r == -1 && errno == EPERM, &lines);
	r = ibv_get_cq_event(in->ch, &cq, &cq_ctx);
	expect("ibv_get_cq_event", r == -1 && errno == EPERM, &lines);
	/* the destroyers: the parent's objects must survive them */
	expect("ibv_destroy_qp", ibv_destroy_qp(parent.qp[1]) == EPERM, &lines);
	expect("ibv_destroy_srq", ibv_destroy_srq(in->srq) == EPERM, &lines);
	expect("ibv_dereg_mr", ibv_dereg_mr(parent.mr) == EPERM, &lines);
	expect("ibv_destroy_cq", ibv_destroy_cq(parent.cq[1]) == EPERM, &lines);
	expect("ibv_dealloc_pd", ibv_dealloc_pd(parent.pd) == EPERM, &lines);

	/* what is safe: freeing the list, closing the context */
	ibv_free_device_list(in->list);
	if (ibv_close_device(ctx)) {
		printf("  child: ibv_close_device on the inherited context failed\n");
		child_bad = 1;
	}
	if (side_open(&s, NULL) || side_round(&s)) {
		printf("  child: a fresh context after closing the inherited one: %s\n", s.err);
		child_bad = 1;
	}
	side_close(&s);
	free(mem);
	if (!child_bad)
		printf("  child: %d verbs on inherited objects failed with EPERM, one log line each; the inherited context closed, a fresh one worked\n",
		       child_verbs);
	return child_bad;
}

static void case_inherited(const char *mode)
{
	struct inherited in = { 0 };
	struct ibv_srq_init_attr sia = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_cq_init_attr_ex cia = { .cqe = 8, .wc_flags = IBV_WC_STANDARD_FLAGS };
	struct ibv_qp_init_attr_ex qia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND,
	};
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qinit;
	unsigned long during = 0;
	int st, ok;

	in.list = ibv_get_device_list(NULL);
	in.srq = ibv_create_srq(parent.pd, &sia);
	in.cqx = ibv_create_cq_ex(parent.ctx, &cia);
	qia.pd = parent.pd;
	qia.send_cq = qia.recv_cq = parent.cq[0];
	in.qpx = ibv_create_qp_ex(parent.ctx, &qia);
	in.ch = ibv_create_comp_channel(parent.ctx);
	if (in.ch)
		in.ch_cq = ibv_create_cq(parent.ctx, 4, NULL, in.ch, 0);
	if (!in.list || !in.srq || !in.cqx || !in.qpx || !in.ch || !in.ch_cq) {
		result(0, "fork safety %s: setting up the objects to inherit: %s", mode,
		       strerror(errno));
		return;
	}
	st = run_child(child_inherited, &in, &during);
	/* the parent's objects are intact: the pair the child tried to break
	 * goes on (the traffic thread), and everything destroys cleanly */
	ok = st == 0 && !atomic_load(&traffic_failed);
	if (ibv_query_qp(parent.qp[1], &qa, IBV_QP_STATE, &qinit) || qa.qp_state != IBV_QPS_RTS) {
		printf("  parent: its QP is no longer in RTS\n");
		ok = 0;
	}
	{
		unsigned long r = atomic_load(&traffic_rounds);
		time_t end = time(NULL) + WAIT_S;

		while (atomic_load(&traffic_rounds) < r + 5 && !atomic_load(&traffic_failed) &&
		       time(NULL) < end)
			usleep(1000);
		if (atomic_load(&traffic_rounds) < r + 5) {
			printf("  parent: its traffic stopped after the child\n");
			ok = 0;
		}
	}
	if (ibv_destroy_cq(in.ch_cq) || ibv_destroy_comp_channel(in.ch) ||
	    ibv_destroy_qp(in.qpx) || ibv_destroy_cq(ibv_cq_ex_to_cq(in.cqx)) ||
	    ibv_destroy_srq(in.srq)) {
		printf("  parent: destroying the objects the child inherited failed: %s\n",
		       strerror(errno));
		ok = 0;
	}
	ibv_free_device_list(in.list);
	result(ok,
	       "fork safety %s: verbs on inherited objects fail with EPERM and one log line each, the child closes the inherited context, the parent's objects stay intact (%lu parent rounds meanwhile, child status %#x)",
	       mode, during, st);
}

int main(int argc, char **argv)
{
	const char *g = getenv("RXE_GID");
	const char *tmp = getenv("TMPDIR");

	(void)argc;
	dev_name = getenv("RXE_DEV");
	if (g)
		gid_index = atoi(g);
	if (!dev_name || !*dev_name) {
		printf("SKIP: RXE_DEV is not set (run inside tests/vm/run)\n");
		return 77;
	}
	if (!dlsym(RTLD_DEFAULT, "softverbs_fork_stats")) {
		printf("FAIL: the libibverbs in use is not softverbs\n");
		return 1;
	}
	/* every refusal is one error line in the log, which the library
	 * opens at load: run again with it set */
	if (!getenv("SOFTVERBS_LOG_FILE") || strcmp(getenv("SOFTVERBS_LOG") ?: "", "error")) {
		snprintf(log_path, sizeof(log_path), "%s/test_fork_child.%d.log",
			 tmp ? tmp : "/tmp", (int)getpid());
		setenv("SOFTVERBS_LOG_FILE", log_path, 1);
		setenv("SOFTVERBS_LOG", "error", 1);
		execv("/proc/self/exe", argv);
		printf("FAIL: execv /proc/self/exe: %s\n", strerror(errno));
		return 1;
	}
	snprintf(log_path, sizeof(log_path), "%s", getenv("SOFTVERBS_LOG_FILE"));
	for (int safe = 0; safe < 2; safe++) {
		const char *mode = safe ? "on" : "off";
		struct ibv_device **list;
		int ret;

		if (safe && (ret = ibv_fork_init())) {
			result(0, "ibv_fork_init: %s", strerror(ret));
			break;
		}
		if (side_open(&parent, NULL)) {
			printf("FAIL: parent: %s: %s\n", parent.err, strerror(errno));
			return 1;
		}
		atomic_store(&traffic_stop, 0);
		if (pthread_create(&traffic_tid, NULL, traffic, NULL)) {
			printf("FAIL: pthread_create\n");
			return 1;
		}
		case_fresh(mode, NULL);
		list = ibv_get_device_list(NULL);
		case_fresh(mode, list);
		ibv_free_device_list(list);
		case_inherited(mode);
		atomic_store(&traffic_stop, 1);
		pthread_join(traffic_tid, NULL);
		result(!atomic_load(&traffic_failed),
		       "fork safety %s: the parent's traffic: %lu rounds, every byte checked%s%s", mode,
		       atomic_load(&traffic_rounds), parent.err ? ": " : "",
		       parent.err ? parent.err : "");
		side_close(&parent);
	}
	unlink(log_path);
	printf("test_fork_child: %s\n", failures ? "FAILED" : "all passed");
	return failures ? 1 : 0;
}
