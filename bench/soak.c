/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* bench/soak -- a long run of everything at once on one rxe device, to
 * find what only time and concurrency find. Not a CI test: run it by
 * hand, on either library (it links the system libibverbs; put
 * softverbs first on LD_LIBRARY_PATH to run it on softverbs), for as long
 * as you like. bench/soak.sh runs it on both in one VM boot.
 *
 *   soak [-t SECONDS] [-n THREADS] [-d DEV] [-g GID_INDEX] [-q]
 *
 * With fork safety on (ibv_fork_init), at the same time:
 *   - THREADS workers (4), each with a loopback RC pair on two CQs that
 *     all workers share: SEND, RDMA WRITE and RDMA READ with a pattern
 *     per round, completions dispatched by wr_id from whichever thread
 *     polls them, every byte checked;
 *   - MR churn: mmap, register, check the pages are MADV_DONTFORK
 *     (smaps "dc"), deregister, check they are not, unmap;
 *   - fork(), system() and posix_spawn(): children check that they see
 *     unregistered data, and exit cleanly;
 *   - a QP driven to error (RDMA WRITE with a bad rkey: the completion
 *     must say REM_ACCESS_ERR and the next one WR_FLUSH_ERR), then
 *     recovered (RESET, INIT, RTR, RTS) and checked with a SEND;
 *   - an SRQ armed with a limit and drained below it: the async event
 *     SRQ_LIMIT_REACHED must come; an async thread reads every event.
 * Every minute one line of operations per second; every anomaly is
 * printed when it happens (unexpected status, wrong data, a failed verb,
 * a stall of 30 s, an unexpected async event, a child that failed).
 * Exit 0 when there was none, 1 otherwise, 2 when setup failed. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

extern char **environ;

#define MAX_WORKERS 32
#define WBUF (64 * 1024)   /* per worker: send | recv | write src | write dst | read */
#define STALL_SECONDS 30

enum { OP_ROUND, OP_MR, OP_FORK, OP_SYSTEM, OP_SPAWN, OP_RECOVER, OP_SRQ_EVENT, OP_ASYNC, NOPS };
static const char *const op_names[NOPS] = { "rounds", "mr", "fork", "system", "spawn",
					    "recover", "srq_limit", "async" };
static atomic_ulong ops[NOPS];
static atomic_ulong anomalies;
static atomic_int stop;
/* The async reader stops last: the others may still wait for an event. */
static atomic_int stop_async;
static int quiet;

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static union ibv_gid gid;
static int gid_index = 1;
static size_t page;
static double t0;

/* Data a child must still see after fork (never registered). */
static volatile unsigned char plain_data[4096] = { [0] = 0x5a, [4095] = 0xa5 };

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((format(printf, 1, 2))) static void anomaly(const char *fmt, ...)
{
	va_list ap;

	atomic_fetch_add(&anomalies, 1);
	flockfile(stdout);
	printf("ANOMALY at %.1f s: ", now() - t0);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	funlockfile(stdout);
}

static int dc_at(const void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	char line[1024];
	int in = 0, dc = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		uintptr_t s, e;

		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &s, &e) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in = (uintptr_t)addr >= s && (uintptr_t)addr < e;
		} else if (in && !strncmp(line, "VmFlags:", 8)) {
			dc = strstr(line, " dc") != NULL;
			break;
		}
	}
	fclose(f);
	return dc;
}

/* ---- RC pairs on the one device ------------------------------------------ */

struct pair {
	struct ibv_qp *qp[2];
	struct ibv_cq *scq, *rcq;
	struct ibv_srq *srq; /* side 1 receives from it, if set */
};

static int qp_to(struct ibv_qp *qp, uint32_t dest, enum ibv_qp_state state)
{
	struct ibv_qp_attr a;
	int mask = IBV_QP_STATE;

	memset(&a, 0, sizeof(a));
	a.qp_state = state;
	if (state == IBV_QPS_INIT) {
		a.port_num = 1;
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
		mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	} else if (state == IBV_QPS_RTR) {
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = dest;
		a.rq_psn = 0x100;
		a.ah_attr.is_global = 1;
		a.ah_attr.port_num = 1;
		a.ah_attr.grh.dgid = gid;
		a.ah_attr.grh.sgid_index = (uint8_t)gid_index;
		a.ah_attr.grh.hop_limit = 1;
		a.max_dest_rd_atomic = 4;
		a.min_rnr_timer = 1;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	} else if (state == IBV_QPS_RTS) {
		a.sq_psn = 0x100;
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 4;
		mask |= IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	return ibv_modify_qp(qp, &a, mask);
}

/* RESET -> RTS on both sides. 0 or the failing errno. */
static int pair_connect(struct pair *p)
{
	static const enum ibv_qp_state path[] = { IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPS_RTR,
						  IBV_QPS_RTS };
	int ret;

	for (size_t s = 0; s < 4; s++)
		for (int i = 0; i < 2; i++)
			if ((ret = qp_to(p->qp[i], p->qp[!i]->qp_num, path[s])))
				return ret;
	return 0;
}

static int pair_create(struct pair *p, struct ibv_cq *scq, struct ibv_cq *rcq,
		       struct ibv_srq *srq)
{
	struct ibv_qp_init_attr qa;

	memset(p, 0, sizeof(*p));
	p->scq = scq;
	p->rcq = rcq;
	p->srq = srq;
	for (int i = 0; i < 2; i++) {
		memset(&qa, 0, sizeof(qa));
		qa.send_cq = scq;
		qa.recv_cq = rcq;
		qa.srq = i == 1 ? srq : NULL;
		qa.qp_type = IBV_QPT_RC;
		qa.cap.max_send_wr = 16;
		qa.cap.max_recv_wr = 16;
		qa.cap.max_send_sge = 1;
		qa.cap.max_recv_sge = 1;
		p->qp[i] = ibv_create_qp(pd, &qa);
		if (!p->qp[i])
			return errno;
	}
	return pair_connect(p);
}

static void pair_destroy(struct pair *p)
{
	for (int i = 0; i < 2; i++)
		if (p->qp[i] && ibv_destroy_qp(p->qp[i]))
			anomaly("destroy_qp failed");
}

static int post_send(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t id, void *addr,
		     uint32_t len, uint32_t lkey, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = { (uintptr_t)addr, len, lkey };
	struct ibv_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.opcode = op;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(qp, &wr, &bad);
}

static int post_recv(struct ibv_qp *qp, struct ibv_srq *srq, uint64_t id, void *addr,
		     uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = { (uintptr_t)addr, len, lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 }, *bad;

	return srq ? ibv_post_srq_recv(srq, &wr, &bad) : ibv_post_recv(qp, &wr, &bad);
}

/* Poll cq for one completion, up to STALL_SECONDS. 1, 0 on a stall. */
static int wait_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	double end = now() + STALL_SECONDS;
	int n;

	while ((n = ibv_poll_cq(cq, 1, wc)) == 0)
		if (now() > end)
			return 0;
	if (n < 0) {
		anomaly("ibv_poll_cq returned %d", n);
		return 0;
	}
	return 1;
}

/* ---- workers on shared CQs ------------------------------------------------ */

static struct ibv_cq *shared_scq, *shared_rcq;
static atomic_ulong done[MAX_WORKERS]; /* completions seen, by owner */

/* wr_id: owner in the top byte, kind in the low byte, round between. */
#define WR_ID(w, round, kind) (((uint64_t)(w) << 56) | ((uint64_t)(round) << 8) | (kind))
enum { K_SEND = 1, K_RECV, K_WRITE, K_READ };

static void dispatch(const struct ibv_wc *wc)
{
	unsigned int owner = (unsigned int)(wc->wr_id >> 56);

	if (wc->status != IBV_WC_SUCCESS)
		anomaly("worker %u: completion %#" PRIx64 " with status %s", owner, wc->wr_id,
			ibv_wc_status_str(wc->status));
	if (owner >= MAX_WORKERS) {
		anomaly("completion with unknown wr_id %#" PRIx64, wc->wr_id);
		return;
	}
	atomic_fetch_add(&done[owner], 1);
}

static void poll_shared(void)
{
	struct ibv_wc wc[8];
	int n;

	for (int c = 0; c < 2; c++) {
		n = ibv_poll_cq(c ? shared_rcq : shared_scq, 8, wc);
		if (n < 0)
			anomaly("ibv_poll_cq on a shared CQ returned %d", n);
		for (int i = 0; i < n; i++)
			dispatch(&wc[i]);
	}
}

static void fill(unsigned char *p, size_t len, uint64_t seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (unsigned char)(seed * 131 + i * 7 + (i >> 9));
}

static void *worker(void *arg)
{
	unsigned int w = (unsigned int)(uintptr_t)arg;
	unsigned char *a, *b;
	struct ibv_mr *ma, *mb;
	struct pair p;
	uint64_t round = 0, expect = 0;
	const uint32_t len = 8192;

	a = mmap(NULL, WBUF, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	b = mmap(NULL, WBUF, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED || b == MAP_FAILED) {
		anomaly("worker %u: mmap failed", w);
		return NULL;
	}
	ma = ibv_reg_mr(pd, a, WBUF, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
					     IBV_ACCESS_REMOTE_READ);
	mb = ibv_reg_mr(pd, b, WBUF, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
					     IBV_ACCESS_REMOTE_READ);
	if (!ma || !mb || pair_create(&p, shared_scq, shared_rcq, NULL)) {
		anomaly("worker %u: setup failed: %s", w, strerror(errno));
		return NULL;
	}
	while (!atomic_load(&stop)) {
		double end;

		round++;
		/* a: [0,len) send src, [len,2len) write src, [2len,3len) read dst
		 * b: [0,len) recv dst, [len,2len) write dst, [2len,3len) read src */
		fill(a, len, round);
		fill(a + len, len, round + 1000);
		fill(b + 2 * len, len, round + 2000);
		memset(a + 2 * len, 0, len);
		if (post_recv(p.qp[1], NULL, WR_ID(w, round, K_RECV), b, len, mb->lkey) ||
		    post_send(p.qp[0], IBV_WR_SEND, WR_ID(w, round, K_SEND), a, len, ma->lkey, 0, 0) ||
		    post_send(p.qp[0], IBV_WR_RDMA_WRITE, WR_ID(w, round, K_WRITE), a + len, len,
			      ma->lkey, (uintptr_t)b + len, mb->rkey) ||
		    post_send(p.qp[0], IBV_WR_RDMA_READ, WR_ID(w, round, K_READ), a + 2 * len, len,
			      ma->lkey, (uintptr_t)b + 2 * len, mb->rkey)) {
			anomaly("worker %u: post failed: %s", w, strerror(errno));
			break;
		}
		expect += 4;
		end = now() + STALL_SECONDS;
		while (atomic_load(&done[w]) < expect) {
			poll_shared();
			if (now() > end) {
				anomaly("worker %u: round %" PRIu64 " stalled (%lu of %" PRIu64
					" completions)", w, round, atomic_load(&done[w]), expect);
				goto out;
			}
		}
		{
			unsigned char want[8192];

			fill(want, len, round);
			if (memcmp(b, want, len))
				anomaly("worker %u round %" PRIu64 ": SEND data wrong", w, round);
			fill(want, len, round + 1000);
			if (memcmp(b + len, want, len))
				anomaly("worker %u round %" PRIu64 ": WRITE data wrong", w, round);
			fill(want, len, round + 2000);
			if (memcmp(a + 2 * len, want, len))
				anomaly("worker %u round %" PRIu64 ": READ data wrong", w, round);
		}
		atomic_fetch_add(&ops[OP_ROUND], 1);
	}
out:
	/* drain what is still ours before the QPs go */
	for (double end = now() + 5; atomic_load(&done[w]) < expect && now() < end;)
		poll_shared();
	pair_destroy(&p);
	if (ibv_dereg_mr(ma) || ibv_dereg_mr(mb))
		anomaly("worker %u: dereg failed", w);
	munmap(a, WBUF);
	munmap(b, WBUF);
	return NULL;
}

/* ---- MR churn ------------------------------------------------------------- */

static void *mr_churn(void *arg)
{
	unsigned int seed = 7;

	(void)arg;
	while (!atomic_load(&stop)) {
		size_t n = (size_t)rand_r(&seed) % 64 + 1;
		unsigned char *buf = mmap(NULL, (n + 2) * page, PROT_READ | PROT_WRITE,
					  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct ibv_mr *mr;
		int check = rand_r(&seed) % 16 == 0; /* smaps reads are slow */

		if (buf == MAP_FAILED) {
			anomaly("mr churn: mmap failed");
			break;
		}
		memset(buf, 1, (n + 2) * page);
		mr = ibv_reg_mr(pd, buf + page, n * page, IBV_ACCESS_LOCAL_WRITE);
		if (!mr) {
			anomaly("mr churn: reg_mr of %zu pages: %s", n, strerror(errno));
		} else {
			if (check && dc_at(buf + page) != 1)
				anomaly("mr churn: registered page not DONTFORK");
			if (ibv_dereg_mr(mr))
				anomaly("mr churn: dereg_mr failed");
			if (check && dc_at(buf + page) != 0)
				anomaly("mr churn: DONTFORK left after dereg");
		}
		munmap(buf, (n + 2) * page);
		atomic_fetch_add(&ops[OP_MR], 1);
	}
	return NULL;
}

/* ---- fork, system, posix_spawn --------------------------------------------- */

static void *forker(void *arg)
{
	unsigned int i = 0;

	(void)arg;
	while (!atomic_load(&stop)) {
		int status = 0, kind = i++ % 3;
		pid_t pid;

		if (kind == 0) {
			pid = fork();
			if (pid == 0)
				_exit(plain_data[0] == 0x5a && plain_data[4095] == 0xa5 ? 0 : 3);
			if (pid < 0 || waitpid(pid, &status, 0) != pid) {
				anomaly("fork/waitpid failed: %s", strerror(errno));
				continue;
			}
		} else if (kind == 1) {
			status = system("exit 0");
		} else {
			char *argv[] = { "/bin/true", NULL };

			if (posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ) ||
			    waitpid(pid, &status, 0) != pid) {
				anomaly("posix_spawn failed");
				continue;
			}
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			anomaly("%s child: status %#x", op_names[OP_FORK + kind], status);
		atomic_fetch_add(&ops[OP_FORK + kind], 1);
		usleep(20000);
	}
	return NULL;
}

/* ---- error and recovery, SRQ limit, async events ---------------------------- */

static atomic_ulong srq_events, unexpected_events;

static void *async_reader(void *arg)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };

	(void)arg;
	/* the fd is blocking; poll with a timeout so that stop is seen */
	while (!atomic_load(&stop_async)) {
		struct ibv_async_event ev;

		if (poll(&pfd, 1, 200) <= 0)
			continue;
		if (ibv_get_async_event(ctx, &ev)) {
			anomaly("ibv_get_async_event: %s", strerror(errno));
			continue;
		}
		switch (ev.event_type) {
		case IBV_EVENT_SRQ_LIMIT_REACHED:
			atomic_fetch_add(&srq_events, 1);
			break;
		/* the QP driven to error may raise these */
		case IBV_EVENT_QP_FATAL:
		case IBV_EVENT_QP_REQ_ERR:
		case IBV_EVENT_QP_ACCESS_ERR:
		case IBV_EVENT_COMM_EST:
		case IBV_EVENT_QP_LAST_WQE_REACHED:
		case IBV_EVENT_SQ_DRAINED:
			break;
		default:
			atomic_fetch_add(&unexpected_events, 1);
			anomaly("async event %s", ibv_event_type_str(ev.event_type));
		}
		ibv_ack_async_event(&ev);
		atomic_fetch_add(&ops[OP_ASYNC], 1);
	}
	return NULL;
}

static void error_and_recover(struct pair *p, unsigned char *buf, struct ibv_mr *mr)
{
	struct ibv_wc wc;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;

	/* a WRITE with a bad rkey: REM_ACCESS_ERR, then the QP is in error */
	if (post_send(p->qp[0], IBV_WR_RDMA_WRITE, 1, buf, 64, mr->lkey, (uintptr_t)buf + 4096,
		      mr->rkey ^ 0x5a5a00)) {
		anomaly("recover: post of the bad WRITE failed");
		return;
	}
	if (!wait_one(p->scq, &wc)) {
		anomaly("recover: no completion for the bad WRITE");
		return;
	}
	if (wc.status != IBV_WC_REM_ACCESS_ERR)
		anomaly("recover: bad WRITE completed with %s", ibv_wc_status_str(wc.status));
	if (ibv_query_qp(p->qp[0], &qa, IBV_QP_STATE, &qi) || qa.qp_state != IBV_QPS_ERR)
		anomaly("recover: QP state %d after the error, not ERR", (int)qa.qp_state);
	/* a post on the QP in error completes flushed */
	if (!post_send(p->qp[0], IBV_WR_SEND, 2, buf, 64, mr->lkey, 0, 0)) {
		if (!wait_one(p->scq, &wc))
			anomaly("recover: no flush completion");
		else if (wc.status != IBV_WC_WR_FLUSH_ERR)
			anomaly("recover: post in ERR completed with %s",
				ibv_wc_status_str(wc.status));
	}
	while (ibv_poll_cq(p->rcq, 1, &wc) > 0)
		;
	if (pair_connect(p)) {
		anomaly("recover: reconnecting failed: %s", strerror(errno));
		return;
	}
	/* and it works again */
	if (post_recv(p->qp[1], NULL, 3, buf + 8192, 64, mr->lkey) ||
	    post_send(p->qp[0], IBV_WR_SEND, 4, buf, 64, mr->lkey, 0, 0)) {
		anomaly("recover: posting after recovery failed");
		return;
	}
	if (!wait_one(p->scq, &wc) || wc.status != IBV_WC_SUCCESS ||
	    !wait_one(p->rcq, &wc) || wc.status != IBV_WC_SUCCESS)
		anomaly("recover: SEND after recovery did not complete successfully");
	else
		atomic_fetch_add(&ops[OP_RECOVER], 1);
}

/* SRQ with 16 receives, limit 8; 9 SENDs drain it below: one event. */
static void srq_limit_cycle(struct pair *p, unsigned char *buf, struct ibv_mr *mr)
{
	struct ibv_srq_attr sa = { .srq_limit = 8 };
	unsigned long before = atomic_load(&srq_events);
	struct ibv_wc wc;
	double end;

	for (int i = 0; i < 16; i++)
		if (post_recv(NULL, p->srq, 100 + i, buf + 8192 + i * 64, 64, mr->lkey)) {
			anomaly("srq: post_srq_recv failed");
			return;
		}
	if (ibv_modify_srq(p->srq, &sa, IBV_SRQ_LIMIT)) {
		anomaly("srq: arming the limit failed");
		return;
	}
	for (int i = 0; i < 9; i++) {
		if (post_send(p->qp[0], IBV_WR_SEND, 200 + i, buf, 64, mr->lkey, 0, 0) ||
		    !wait_one(p->scq, &wc) || wc.status != IBV_WC_SUCCESS ||
		    !wait_one(p->rcq, &wc) || wc.status != IBV_WC_SUCCESS) {
			anomaly("srq: SEND %d failed", i);
			return;
		}
	}
	for (end = now() + STALL_SECONDS; atomic_load(&srq_events) == before && now() < end;)
		usleep(1000);
	if (atomic_load(&srq_events) == before)
		anomaly("srq: no SRQ_LIMIT_REACHED event");
	else
		atomic_fetch_add(&ops[OP_SRQ_EVENT], 1);
	/* drain the rest: 7 more SENDs */
	for (int i = 0; i < 7; i++)
		if (post_send(p->qp[0], IBV_WR_SEND, 300 + i, buf, 64, mr->lkey, 0, 0) ||
		    !wait_one(p->scq, &wc) || !wait_one(p->rcq, &wc)) {
			anomaly("srq: draining failed");
			return;
		}
}

static void *errors(void *arg)
{
	struct ibv_srq_init_attr si = { .attr = { .max_wr = 32, .max_sge = 1 } };
	struct ibv_cq *scq[2], *rcq[2];
	struct pair perr, psrq;
	unsigned char *buf;
	struct ibv_srq *srq;
	struct ibv_mr *mr;

	(void)arg;
	buf = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (int i = 0; i < 2; i++) {
		scq[i] = ibv_create_cq(ctx, 64, NULL, NULL, 0);
		rcq[i] = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	}
	srq = ibv_create_srq(pd, &si);
	mr = buf == MAP_FAILED ? NULL
			       : ibv_reg_mr(pd, buf, 4 * 4096,
					    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!mr || !scq[0] || !scq[1] || !rcq[0] || !rcq[1] || !srq ||
	    pair_create(&perr, scq[0], rcq[0], NULL) || pair_create(&psrq, scq[1], rcq[1], srq)) {
		anomaly("errors: setup failed: %s", strerror(errno));
		return NULL;
	}
	while (!atomic_load(&stop)) {
		error_and_recover(&perr, buf, mr);
		srq_limit_cycle(&psrq, buf, mr);
		usleep(50000);
	}
	pair_destroy(&perr);
	pair_destroy(&psrq);
	if (ibv_destroy_srq(srq) || ibv_dereg_mr(mr))
		anomaly("errors: teardown failed");
	for (int i = 0; i < 2; i++)
		if (ibv_destroy_cq(scq[i]) || ibv_destroy_cq(rcq[i]))
			anomaly("errors: destroy_cq failed");
	munmap(buf, 4 * 4096);
	return NULL;
}

/* ---- main ------------------------------------------------------------------ */

static void report(double elapsed, const unsigned long *last, double span)
{
	printf("%7.0f s", elapsed);
	for (int i = 0; i < NOPS; i++)
		printf("  %s %.1f/s", op_names[i], (double)(atomic_load(&ops[i]) - last[i]) / span);
	printf("  anomalies %lu\n", atomic_load(&anomalies));
	fflush(stdout);
}

int main(int argc, char **argv)
{
	const char *dev_name = getenv("RXE_DEV");
	pthread_t th[MAX_WORKERS + 4];
	unsigned long last[NOPS] = { 0 };
	double seconds = 600, t_last;
	int nworkers = 4, nth = 0, opt, async_th;
	struct ibv_device **list;

	if (getenv("RXE_GID"))
		gid_index = atoi(getenv("RXE_GID"));
	while ((opt = getopt(argc, argv, "t:n:d:g:q")) != -1) {
		switch (opt) {
		case 't': seconds = atof(optarg); break;
		case 'n': nworkers = atoi(optarg); break;
		case 'd': dev_name = optarg; break;
		case 'g': gid_index = atoi(optarg); break;
		case 'q': quiet = 1; break;
		default:
			fprintf(stderr, "usage: soak [-t SECONDS] [-n THREADS] [-d DEV] [-g GID] [-q]\n");
			return 2;
		}
	}
	if (!dev_name || nworkers < 1 || nworkers > MAX_WORKERS) {
		fprintf(stderr, "soak: need a device (-d or RXE_DEV) and 1..%d threads\n", MAX_WORKERS);
		return 2;
	}
	page = (size_t)sysconf(_SC_PAGESIZE);
	if (ibv_fork_init()) {
		fprintf(stderr, "soak: ibv_fork_init failed\n");
		return 2;
	}
	list = ibv_get_device_list(NULL);
	for (int i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev_name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx || !(pd = ibv_alloc_pd(ctx)) || ibv_query_gid(ctx, 1, gid_index, &gid)) {
		fprintf(stderr, "soak: cannot open %s: %s\n", dev_name, strerror(errno));
		return 2;
	}
	shared_scq = ibv_create_cq(ctx, 1024, NULL, NULL, 0);
	shared_rcq = ibv_create_cq(ctx, 1024, NULL, NULL, 0);
	if (!shared_scq || !shared_rcq) {
		fprintf(stderr, "soak: create_cq: %s\n", strerror(errno));
		return 2;
	}
	printf("soak: %s, %d workers on shared CQs, MR churn, fork/system/posix_spawn, "
	       "error recovery, SRQ limit events; %.0f s\n", dev_name, nworkers, seconds);
	fflush(stdout);
	t0 = t_last = now();
	for (int i = 0; i < nworkers; i++)
		pthread_create(&th[nth++], NULL, worker, (void *)(uintptr_t)i);
	pthread_create(&th[nth++], NULL, mr_churn, NULL);
	pthread_create(&th[nth++], NULL, forker, NULL);
	async_th = nth;
	pthread_create(&th[nth++], NULL, async_reader, NULL);
	pthread_create(&th[nth++], NULL, errors, NULL);
	while (now() - t0 < seconds) {
		usleep(200000);
		if (!quiet && now() - t_last >= 60) {
			double t = now();

			report(t - t0, last, t - t_last);
			for (int i = 0; i < NOPS; i++)
				last[i] = atomic_load(&ops[i]);
			t_last = t;
		}
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < nth; i++)
		if (i != async_th)
			pthread_join(th[i], NULL);
	atomic_store(&stop_async, 1);
	pthread_join(th[async_th], NULL);
	{
		double el = now() - t0;
		unsigned long zero[NOPS] = { 0 };

		printf("total:");
		report(el, zero, el);
		for (int i = 0; i < NOPS; i++)
			printf("  %s %lu", op_names[i], atomic_load(&ops[i]));
		printf("\n");
	}
	if (ibv_destroy_cq(shared_scq) || ibv_destroy_cq(shared_rcq) || ibv_dealloc_pd(pd) ||
	    ibv_close_device(ctx))
		anomaly("final teardown failed");
	printf("soak: %lu anomalies\n", atomic_load(&anomalies));
	return atomic_load(&anomalies) ? 1 : 0;
}
