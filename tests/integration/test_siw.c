/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * tests/integration/test_siw.c -- softverbs' siw provider as an
 * application sees it, inside the test VM: two RC QPs on $SIW_DEV
 * connected to each other through rdma_cm (Debian's librdmacm on top of
 * softverbs' libibverbs): send/receive, RDMA write and read, sub-page and
 * multi-SGE buffers, inline data, error completions, flush on QP error,
 * what iWARP cannot do (EOPNOTSUPP), CQ arming and completion events.
 * Outside the VM (no $SIW_DEV with $SIW_IP) the program exits 77.
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "../check_main.h"

/* A guard against hanging, not a timing requirement. */
#define WAIT_SECONDS 60
#define BUF_LEN 65536
#define NRECV 16
#define ACC_ALL (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		 IBV_ACCESS_REMOTE_READ)

static const char *siw_ip;
static int next_port = 20500;

/* One end of the connection. */
struct end {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp;
	uint8_t *buf;
	struct ibv_mr *mr;
};

struct conn {
	struct rdma_event_channel *cli_ch, *srv_ch;
	struct rdma_cm_id *listen_id;
	struct end e[2]; /* 0: the active side, 1: the passive side */
};

static void expect_event(struct rdma_event_channel *ch,
			 enum rdma_cm_event_type type,
			 struct rdma_cm_id **conn_id)
{
	struct rdma_cm_event *ev;

	ck_assert_int_eq(rdma_get_cm_event(ch, &ev), 0);
	ck_assert_msg(ev->event == type, "rdma_cm event %s (status %d), expected %s",
		      rdma_event_str(ev->event), ev->status,
		      rdma_event_str(type));
	if (conn_id)
		*conn_id = ev->id;
	rdma_ack_cm_event(ev);
}

/* PD, CQs (the receive CQ on a completion channel), buffer, QP. */
static void end_setup(struct end *e, struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr qa;

	e->id = id;
	ck_assert_ptr_nonnull(id->verbs);
	e->pd = ibv_alloc_pd(id->verbs);
	ck_assert_ptr_nonnull(e->pd);
	e->ch = ibv_create_comp_channel(id->verbs);
	ck_assert_ptr_nonnull(e->ch);
	e->scq = ibv_create_cq(id->verbs, 64, NULL, NULL, 0);
	ck_assert_ptr_nonnull(e->scq);
	e->rcq = ibv_create_cq(id->verbs, 64, NULL, e->ch, 0);
	ck_assert_ptr_nonnull(e->rcq);
	e->buf = mmap(NULL, BUF_LEN, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert(e->buf != MAP_FAILED);
	e->mr = ibv_reg_mr(e->pd, e->buf, BUF_LEN, ACC_ALL);
	ck_assert_ptr_nonnull(e->mr);

	memset(&qa, 0, sizeof(qa));
	qa.send_cq = e->scq;
	qa.recv_cq = e->rcq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 32;
	qa.cap.max_recv_wr = 32;
	qa.cap.max_send_sge = 4;
	qa.cap.max_recv_sge = 4;
	qa.cap.max_inline_data = 64;
	ck_assert_int_eq(rdma_create_qp(id, e->pd, &qa), 0);
	e->qp = id->qp;
}

static void post_recv(struct end *e, uint64_t id, uint32_t off, uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)e->buf + off, len, e->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad = NULL;

	ck_assert_int_eq(ibv_post_recv(e->qp, &wr, &bad), 0);
}

/* Connect e[0] (active) to e[1] (passive) on $SIW_IP; each end has one
 * receive posted before the connection exists (wr_id 1000, 4 KiB at
 * BUF_LEN/2), which iWARP allows. */
static void conn_up(struct conn *c)
{
	struct rdma_conn_param param;
	struct sockaddr_in sin;
	struct rdma_cm_id *cli, *srv;

	memset(c, 0, sizeof(*c));
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)(next_port + (getpid() % 500)));
	next_port++;
	ck_assert_int_eq(inet_pton(AF_INET, siw_ip, &sin.sin_addr), 1);

	c->srv_ch = rdma_create_event_channel();
	c->cli_ch = rdma_create_event_channel();
	ck_assert_ptr_nonnull(c->srv_ch);
	ck_assert_ptr_nonnull(c->cli_ch);
	ck_assert_int_eq(rdma_create_id(c->srv_ch, &c->listen_id, NULL,
					RDMA_PS_TCP), 0);
	ck_assert_int_eq(rdma_bind_addr(c->listen_id,
					(struct sockaddr *)&sin), 0);
	ck_assert_int_eq(rdma_listen(c->listen_id, 4), 0);

	ck_assert_int_eq(rdma_create_id(c->cli_ch, &cli, NULL, RDMA_PS_TCP), 0);
	ck_assert_int_eq(rdma_resolve_addr(cli, NULL, (struct sockaddr *)&sin,
					   5000), 0);
	expect_event(c->cli_ch, RDMA_CM_EVENT_ADDR_RESOLVED, NULL);
	ck_assert_int_eq(rdma_resolve_route(cli, 5000), 0);
	expect_event(c->cli_ch, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL);
	ck_assert_str_eq(ibv_get_device_name(cli->verbs->device),
			 getenv("SIW_DEV"));
	end_setup(&c->e[0], cli);
	post_recv(&c->e[0], 1000, BUF_LEN / 2, 4096);

	memset(&param, 0, sizeof(param));
	param.responder_resources = 4;
	param.initiator_depth = 4;
	ck_assert_int_eq(rdma_connect(cli, &param), 0);

	expect_event(c->srv_ch, RDMA_CM_EVENT_CONNECT_REQUEST, &srv);
	end_setup(&c->e[1], srv);
	post_recv(&c->e[1], 1000, BUF_LEN / 2, 4096);
	ck_assert_int_eq(rdma_accept(srv, &param), 0);

	expect_event(c->cli_ch, RDMA_CM_EVENT_ESTABLISHED, NULL);
	expect_event(c->srv_ch, RDMA_CM_EVENT_ESTABLISHED, NULL);
}

static void end_teardown(struct end *e)
{
	rdma_destroy_qp(e->id);
	ck_assert_int_eq(ibv_dereg_mr(e->mr), 0);
	munmap(e->buf, BUF_LEN);
	ck_assert_int_eq(ibv_destroy_cq(e->scq), 0);
	ck_assert_int_eq(ibv_destroy_cq(e->rcq), 0);
	ck_assert_int_eq(ibv_destroy_comp_channel(e->ch), 0);
	ck_assert_int_eq(ibv_dealloc_pd(e->pd), 0);
	ck_assert_int_eq(rdma_destroy_id(e->id), 0);
}

static void conn_down(struct conn *c)
{
	rdma_disconnect(c->e[0].id);
	for (int i = 0; i < 2; i++)
		end_teardown(&c->e[i]);
	rdma_destroy_id(c->listen_id);
	rdma_destroy_event_channel(c->cli_ch);
	rdma_destroy_event_channel(c->srv_ch);
}

/* Poll cq until one completion arrives (asserts it does in time). */
static struct ibv_wc wait_wc(struct ibv_cq *cq)
{
	time_t end = time(NULL) + WAIT_SECONDS;
	struct ibv_wc wc;
	int n;

	while ((n = ibv_poll_cq(cq, 1, &wc)) == 0)
		ck_assert_msg(time(NULL) < end, "no completion in %d s",
			      WAIT_SECONDS);
	ck_assert_int_eq(n, 1);
	return wc;
}

static void expect_ok(struct ibv_cq *cq, uint64_t id, enum ibv_wc_opcode op,
		      uint32_t len)
{
	struct ibv_wc wc = wait_wc(cq);

	ck_assert_msg(wc.status == IBV_WC_SUCCESS, "wr %llu: %s",
		      (unsigned long long)wc.wr_id,
		      ibv_wc_status_str(wc.status));
	ck_assert_uint_eq(wc.wr_id, id);
	ck_assert_int_eq(wc.opcode, op);
	if (op == IBV_WC_RECV || op == IBV_WC_RDMA_READ)
		ck_assert_uint_eq(wc.byte_len, len);
}

static void fill(uint8_t *p, size_t len, unsigned int seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}

static int post1(struct end *e, enum ibv_wr_opcode op, uint64_t id,
		 uint32_t off, uint32_t len, uint64_t raddr, uint32_t rkey,
		 unsigned int flags)
{
	struct ibv_sge sge = { (uintptr_t)e->buf + off, len, e->mr->lkey };
	struct ibv_send_wr wr, *bad = NULL;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.opcode = op;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED | flags;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(e->qp, &wr, &bad);
}

/* ---- the one libibverbs ------------------------------------------------------ */

/* librdmacm loads libibverbs.so.1 by its SONAME: the process must hold
 * exactly one, softverbs' (built in lib/.libs). */
START_TEST(test_one_libibverbs)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096], first[4096] = "";
	int ours = 0;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');

		if (!path || !strstr(path, "/libibverbs.so"))
			continue;
		path[strcspn(path, "\n")] = '\0';
		if (!first[0])
			snprintf(first, sizeof(first), "%s", path);
		ck_assert_msg(!strcmp(first, path),
			      "two libibverbs mapped: %s and %s", first, path);
		ours = strstr(path, "/lib/.libs/") != NULL;
	}
	fclose(f);
#ifdef RX_PLUGIN
	/* test_plugin_siw: rdma-core's libibverbs with our siw plug-in
	 * (test_plugin.sh checks the plug-in in the maps) */
	ck_assert_msg(first[0] && !ours,
		      "libibverbs mapped from '%s', not the system's", first);
#else
	ck_assert_msg(ours, "libibverbs mapped from '%s', not softverbs' lib/.libs",
		      first);
#endif
}
END_TEST

/* ---- data transfer ------------------------------------------------------------ */

START_TEST(test_send_recv)
{
	struct conn c;

	conn_up(&c);
	fill(c.e[0].buf, 4096, 1);
	ck_assert_int_eq(post1(&c.e[0], IBV_WR_SEND, 1, 0, 4096, 0, 0, 0), 0);
	expect_ok(c.e[0].scq, 1, IBV_WC_SEND, 4096);
	expect_ok(c.e[1].rcq, 1000, IBV_WC_RECV, 4096);
	ck_assert_mem_eq(c.e[1].buf + BUF_LEN / 2, c.e[0].buf, 4096);

	/* and back: the first lands in the receive posted before the
	 * connection existed; then many in a row (the queues wrap round) */
	fill(c.e[1].buf + 8192, 100, 9);
	ck_assert_int_eq(post1(&c.e[1], IBV_WR_SEND, 2999, 8192, 100, 0, 0,
			       0), 0);
	expect_ok(c.e[1].scq, 2999, IBV_WC_SEND, 100);
	expect_ok(c.e[0].rcq, 1000, IBV_WC_RECV, 100);
	ck_assert_mem_eq(c.e[0].buf + BUF_LEN / 2, c.e[1].buf + 8192, 100);
	for (int i = 0; i < 100; i++) {
		post_recv(&c.e[0], 2000 + i, 0, 256);
		fill(c.e[1].buf + 8192, 200, 10 + i);
		ck_assert_int_eq(post1(&c.e[1], IBV_WR_SEND, 3000 + i, 8192,
				       200, 0, 0, 0), 0);
		expect_ok(c.e[1].scq, 3000 + i, IBV_WC_SEND, 200);
		expect_ok(c.e[0].rcq, 2000 + i, IBV_WC_RECV, 200);
		ck_assert_mem_eq(c.e[0].buf, c.e[1].buf + 8192, 200);
	}
	conn_down(&c);
}
END_TEST

/* A negative count polls nothing and returns 0, as on rxe and with
 * rdma-core's siw; the completion stays for the next poll. */
START_TEST(test_poll_negative)
{
	struct conn c;
	struct ibv_wc wc[2];

	conn_up(&c);
	ck_assert_int_eq(ibv_poll_cq(c.e[0].scq, -1, wc), 0);
	ck_assert_int_eq(ibv_poll_cq(c.e[0].scq, 0, wc), 0);
	ck_assert_int_eq(post1(&c.e[0], IBV_WR_SEND, 7, 0, 64, 0, 0, 0), 0);
	expect_ok(c.e[1].rcq, 1000, IBV_WC_RECV, 64);
	ck_assert_int_eq(ibv_poll_cq(c.e[0].scq, -1, wc), 0);
	ck_assert_int_eq(ibv_poll_cq(c.e[0].scq, INT32_MIN, wc), 0);
	expect_ok(c.e[0].scq, 7, IBV_WC_SEND, 64);
	conn_down(&c);
}
END_TEST

START_TEST(test_write_then_send)
{
	struct conn c;

	conn_up(&c);
	fill(c.e[0].buf, 20000, 2);
	ck_assert_int_eq(post1(&c.e[0], IBV_WR_RDMA_WRITE, 1, 0, 20000,
			       (uintptr_t)c.e[1].buf + 100, c.e[1].mr->rkey,
			       0), 0);
	expect_ok(c.e[0].scq, 1, IBV_WC_RDMA_WRITE, 20000);
	/* iWARP places in order: once the following send has arrived, the
	 * written bytes are there */
	ck_assert_int_eq(post1(&c.e[0], IBV_WR_SEND, 2, 0, 8, 0, 0, 0), 0);
	expect_ok(c.e[0].scq, 2, IBV_WC_SEND, 8);
	expect_ok(c.e[1].rcq, 1000, IBV_WC_RECV, 8);
	ck_assert_mem_eq(c.e[1].buf + 100, c.e[0].buf, 20000);
	conn_down(&c);
}
END_TEST

START_TEST(test_read)
{
	struct conn c;

	conn_up(&c);
	fill(c.e[1].buf, BUF_LEN / 2, 3);
	ck_assert_int_eq(post1(&c.e[0], IBV_WR_RDMA_READ, 7, 5, 30000,
			       (uintptr_t)c.e[1].buf + 11, c.e[1].mr->rkey,
			       0), 0);
	expect_ok(c.e[0].scq, 7, IBV_WC_RDMA_READ, 30000);
	ck_assert_mem_eq(c.e[0].buf + 5, c.e[1].buf + 11, 30000);
	conn_down(&c);
}
END_TEST

/* Three odd-sized pieces at odd offsets inside one page go out as one
 * message and land across two receive SGEs; then the same as inline
 * (siw carries up to 80 inline bytes). */
START_TEST(test_subpage_multi_sge)
{
	struct ibv_sge s[3], r[2];
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_recv_wr rwr, *rbad = NULL;
	uint8_t expect[1024];
	struct conn c;
	struct end *a, *b;
	uint32_t lens[3] = { 1, 20, 33 }, offs[3] = { 3, 517, 1999 };
	uint32_t total = 0;

	conn_up(&c);
	a = &c.e[0];
	b = &c.e[1];
	fill(a->buf, 4096, 4);
	for (int i = 0; i < 3; i++) {
		s[i] = (struct ibv_sge){ (uintptr_t)a->buf + offs[i], lens[i],
					 a->mr->lkey };
		memcpy(expect + total, a->buf + offs[i], lens[i]);
		total += lens[i];
	}
	/* use up the pre-connect receive with a first message */
	ck_assert_int_eq(post1(a, IBV_WR_SEND, 9, 0, 1, 0, 0, 0), 0);
	expect_ok(b->rcq, 1000, IBV_WC_RECV, 1);
	expect_ok(a->scq, 9, IBV_WC_SEND, 1);

	for (int pass = 0; pass < 2; pass++) {
		r[0] = (struct ibv_sge){ (uintptr_t)b->buf + 4097, 10,
					 b->mr->lkey };
		r[1] = (struct ibv_sge){ (uintptr_t)b->buf + 6001, 1000,
					 b->mr->lkey };
		memset(b->buf, 0, 8192);
		memset(&rwr, 0, sizeof(rwr));
		rwr.wr_id = 20 + pass;
		rwr.sg_list = r;
		rwr.num_sge = 2;
		ck_assert_int_eq(ibv_post_recv(b->qp, &rwr, &rbad), 0);

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 10 + pass;
		wr.opcode = IBV_WR_SEND;
		wr.sg_list = s;
		wr.num_sge = 3;
		wr.send_flags = IBV_SEND_SIGNALED |
				(pass ? IBV_SEND_INLINE : 0);
		ck_assert_int_eq(ibv_post_send(a->qp, &wr, &bad), 0);
		expect_ok(a->scq, 10 + pass, IBV_WC_SEND, total);
		expect_ok(b->rcq, 20 + pass, IBV_WC_RECV, total);
		ck_assert_mem_eq(b->buf + 4097, expect, 10);
		ck_assert_mem_eq(b->buf + 6001, expect + 10, total - 10);
	}
	conn_down(&c);
}
END_TEST

/* ---- errors ------------------------------------------------------------------ */

/* What iWARP lacks is refused at post time, nothing is queued. */
START_TEST(test_not_supported)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE_WITH_IMM,
		IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD,
	};
	struct ibv_qp_init_attr qa;
	struct ibv_wc wc;
	struct conn c;

	conn_up(&c);
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		ck_assert_int_eq(post1(&c.e[0], ops[i], 50 + i, 0, 8,
				       (uintptr_t)c.e[1].buf,
				       c.e[1].mr->rkey, 0), EOPNOTSUPP);
	/* an iWARP READ lands in one buffer */
	{
		struct ibv_sge s[2] = {
			{ (uintptr_t)c.e[0].buf, 8, c.e[0].mr->lkey },
			{ (uintptr_t)c.e[0].buf + 8, 8, c.e[0].mr->lkey },
		};
		struct ibv_send_wr wr, *bad = NULL;

		memset(&wr, 0, sizeof(wr));
		wr.opcode = IBV_WR_RDMA_READ;
		wr.sg_list = s;
		wr.num_sge = 2;
		wr.wr.rdma.remote_addr = (uintptr_t)c.e[1].buf;
		wr.wr.rdma.rkey = c.e[1].mr->rkey;
		ck_assert_int_eq(ibv_post_send(c.e[0].qp, &wr, &bad), EINVAL);
		ck_assert_ptr_eq(bad, &wr);
	}
	ck_assert_int_eq(ibv_poll_cq(c.e[0].scq, 1, &wc), 0);

	memset(&qa, 0, sizeof(qa));
	qa.send_cq = c.e[0].scq;
	qa.recv_cq = c.e[0].rcq;
	qa.qp_type = IBV_QPT_UD;
	qa.cap.max_send_wr = 4;
	qa.cap.max_recv_wr = 4;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	errno = 0;
	ck_assert_ptr_null(ibv_create_qp(c.e[0].pd, &qa));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	conn_down(&c);
}
END_TEST

/* A read from a key the peer does not have completes in error, with the
 * WR's id. (A write to a bad key completes locally as soon as it is sent:
 * on iWARP the peer's TERMINATE only breaks the connection later.) */
START_TEST(test_bad_rkey)
{
	struct ibv_wc wc;
	struct conn c;

	conn_up(&c);
	ck_assert_int_eq(post1(&c.e[0], IBV_WR_RDMA_READ, 77, 0, 64,
			       (uintptr_t)c.e[1].buf, c.e[1].mr->rkey ^ 0x5500,
			       0), 0);
	wc = wait_wc(c.e[0].scq);
	ck_assert_uint_eq(wc.wr_id, 77);
	ck_assert_msg(wc.status != IBV_WC_SUCCESS,
		      "a read from a bad rkey succeeded");
	conn_down(&c);
}
END_TEST

/* A local SGE with a key that is not ours completes in error. */
START_TEST(test_bad_lkey)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_wc wc;
	struct conn c;

	conn_up(&c);
	sge = (struct ibv_sge){ (uintptr_t)c.e[0].buf, 64,
				c.e[0].mr->lkey ^ 0x3300 };
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 78;
	wr.opcode = IBV_WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	ck_assert_int_eq(ibv_post_send(c.e[0].qp, &wr, &bad), 0);
	wc = wait_wc(c.e[0].scq);
	ck_assert_uint_eq(wc.wr_id, 78);
	ck_assert_msg(wc.status != IBV_WC_SUCCESS,
		      "a send from a bad lkey succeeded");
	conn_down(&c);
}
END_TEST

/* Moving a QP to ERROR completes every posted receive with
 * IBV_WC_WR_FLUSH_ERR, in order, with their ids. */
START_TEST(test_flush_on_error)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };
	struct end *b;
	struct conn c;

	conn_up(&c);
	b = &c.e[1];
	for (int i = 0; i < NRECV; i++)
		post_recv(b, 500 + i, (uint32_t)i * 64, 64);
	ck_assert_int_eq(ibv_modify_qp(b->qp, &attr, IBV_QP_STATE), 0);
	for (int i = -1; i < NRECV; i++) {
		struct ibv_wc wc = wait_wc(b->rcq);

		ck_assert_uint_eq(wc.wr_id, i < 0 ? 1000 : 500 + (uint64_t)i);
		ck_assert_int_eq(wc.status, IBV_WC_WR_FLUSH_ERR);
		ck_assert_uint_eq(wc.qp_num, b->qp->qp_num);
	}
	conn_down(&c);
}
END_TEST

/* ---- CQ arming and events ---------------------------------------------------- */

static void wait_cq_event(struct end *e)
{
	struct pollfd pfd = { .fd = e->ch->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *cq_ctx;

	ck_assert_msg(poll(&pfd, 1, WAIT_SECONDS * 1000) == 1,
		      "no completion event in %d s", WAIT_SECONDS);
	ck_assert_int_eq(ibv_get_cq_event(e->ch, &cq, &cq_ctx), 0);
	ck_assert_ptr_eq(cq, e->rcq);
	ibv_ack_cq_events(cq, 1);
}

START_TEST(test_cq_events)
{
	struct ibv_wc wc;
	struct conn c;
	struct end *a, *b;

	conn_up(&c);
	a = &c.e[0];
	b = &c.e[1];
	/* armed for any completion: the first receive raises an event */
	ck_assert_int_eq(ibv_req_notify_cq(b->rcq, 0), 0);
	ck_assert_int_eq(post1(a, IBV_WR_SEND, 1, 0, 16, 0, 0, 0), 0);
	wait_cq_event(b);
	expect_ok(b->rcq, 1000, IBV_WC_RECV, 16);
	expect_ok(a->scq, 1, IBV_WC_SEND, 16);

	/* armed for solicited completions: a solicited send fires */
	post_recv(b, 3, 64, 64);
	ck_assert_int_eq(ibv_req_notify_cq(b->rcq, 1), 0);
	ck_assert_int_eq(post1(a, IBV_WR_SEND, 3, 0, 16, 0, 0,
			       IBV_SEND_SOLICITED), 0);
	wait_cq_event(b);
	expect_ok(b->rcq, 3, IBV_WC_RECV, 16);
	expect_ok(a->scq, 3, IBV_WC_SEND, 16);
	ck_assert_int_eq(ibv_poll_cq(b->rcq, 1, &wc), 0);

	/* re-armed: the next one fires again */
	post_recv(b, 4, 0, 64);
	ck_assert_int_eq(ibv_req_notify_cq(b->rcq, 0), 0);
	ck_assert_int_eq(post1(a, IBV_WR_SEND, 4, 0, 16, 0, 0, 0), 0);
	wait_cq_event(b);
	expect_ok(b->rcq, 4, IBV_WC_RECV, 16);
	expect_ok(a->scq, 4, IBV_WC_SEND, 16);
	conn_down(&c);
}
END_TEST

static Suite *make_siw_suite(void)
{
	Suite *s = suite_create("siw");
	TCase *tc = tcase_create("siw");

	tcase_set_timeout(tc, 3 * WAIT_SECONDS);
	tcase_add_test(tc, test_one_libibverbs);
	tcase_add_test(tc, test_send_recv);
	tcase_add_test(tc, test_poll_negative);
	tcase_add_test(tc, test_write_then_send);
	tcase_add_test(tc, test_read);
	tcase_add_test(tc, test_subpage_multi_sge);
	tcase_add_test(tc, test_not_supported);
	tcase_add_test(tc, test_bad_rkey);
	tcase_add_test(tc, test_bad_lkey);
	tcase_add_test(tc, test_flush_on_error);
	tcase_add_test(tc, test_cq_events);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	const char *dev = getenv("SIW_DEV");
	char path[256];

	siw_ip = getenv("SIW_IP");
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s",
		 dev ? dev : "");
	if (!dev || !siw_ip || access(path, F_OK)) {
		printf("SKIP: no siw device with an address (SIW_DEV, SIW_IP): run inside tests/vm/run --siw\n");
		return 77;
	}
	return check_run(make_siw_suite());
}
