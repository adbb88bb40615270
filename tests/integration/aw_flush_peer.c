/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* aw_flush_peer: RDMA ATOMIC WRITE and FLUSH between two processes, each
 * on its own device, for the interop of uroce with the kernel's rxe
 * (6.2 and later have both opcodes) in the test VM, both ways round.
 *
 *   aw_flush_peer -d DEV -g GIDX [-p PORT]             the target
 *   aw_flush_peer -d DEV -g GIDX [-p PORT] SERVER_IP   the requester
 *
 * The target registers a page with IBV_ACCESS_FLUSH_GLOBAL and one
 * without, grants remote write and FLUSH_GLOBAL on its RC QP, and sends
 * their keys over TCP. The requester posts, through ibv_wr_*: an RDMA
 * WRITE of 64 bytes, a FLUSH (global) of that range, a FLUSH of the whole
 * MR, an ATOMIC WRITE of 8 bytes after the 64; then a FLUSH to the page
 * without the FLUSH access (a remote access error: last, the QP fails).
 * Each completion is printed as "NAME: wc success opcode N" or
 * "NAME: wc STATUS". The target then prints whether the bytes are in
 * place. Exit 0 when every line is what rxe 6.12 gives, 1 otherwise.
 * It links the system's libibverbs: run it on softverbs with `softverbs
 * run` (ibv_wr_flush needs rdma-core 45's ibv_qp_ex slot, which
 * softverbs' QPs have and Debian 12's librxe's lack). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

/* rdma-core 45's names, which Debian 12's verbs.h lacks */
#define ACCESS_FLUSH_GLOBAL (1 << 8)
#define QP_EX_WITH_FLUSH (1ULL << 11)
#define FLUSH_GLOBAL 1
#define FLUSH_RANGE 0
#define FLUSH_MR 1
#define WR_FLUSH_OFF 352
typedef void (*wr_flush_fn)(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr,
			    size_t len, uint8_t type, uint8_t level);

#define PAGE 4096
static const uint8_t aw_bytes[8] = { 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8 };

/* What one side tells the other */
struct peer {
	uint32_t qpn, psn;
	uint8_t gid[16];
	uint32_t g_rkey, plain_rkey;
	uint64_t g_addr, plain_addr;
};

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *g, *plain, *src;
	uint8_t *gbuf, *plainbuf, *srcbuf;
};

static void die(const char *what)
{
	fprintf(stderr, "aw_flush_peer: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void fill(uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 11 + 3);
}

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **l = ibv_get_device_list(NULL);

	for (int i = 0; l && l[i]; i++)
		if (!strcmp(ibv_get_device_name(l[i]), name)) {
			struct ibv_context *c = ibv_open_device(l[i]);

			ibv_free_device_list(l);
			return c;
		}
	errno = ENODEV;
	return NULL;
}

static struct ibv_mr *reg(struct side *s, uint8_t **buf, int access)
{
	struct ibv_mr *mr;

	*buf = aligned_alloc(PAGE, PAGE);
	if (!*buf)
		die("aligned_alloc");
	memset(*buf, 0x55, PAGE);
	mr = ibv_reg_mr(s->pd, *buf, PAGE, access);
	if (!mr)
		die("ibv_reg_mr");
	return mr;
}

static void setup(struct side *s, const char *dev, bool requester)
{
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 4, .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD,
	};
	const int w = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;

	s->ctx = open_dev(dev);
	if (!s->ctx)
		die(dev);
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = ibv_create_cq(s->ctx, 32, NULL, NULL, 0);
	if (!s->pd || !s->cq)
		die("ibv_alloc_pd/ibv_create_cq");
	ia.pd = s->pd;
	ia.send_cq = ia.recv_cq = s->cq;
	if (requester) {
		ia.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		ia.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
				    IBV_QP_EX_WITH_ATOMIC_WRITE | QP_EX_WITH_FLUSH;
		s->src = reg(s, &s->srcbuf, IBV_ACCESS_LOCAL_WRITE);
		fill(s->srcbuf, 64);
	} else {
		s->g = reg(s, &s->gbuf, w | ACCESS_FLUSH_GLOBAL);
		s->plain = reg(s, &s->plainbuf, w);
	}
	s->qp = ibv_create_qp_ex(s->ctx, &ia);
	if (!s->qp)
		die("ibv_create_qp_ex");
}

static void connect_qp(struct side *s, int gidx, const struct peer *p)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
						    ACCESS_FLUSH_GLOBAL };

	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("modify_qp INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = p->qpn;
	a.rq_psn = p->psn;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.sgid_index = (uint8_t)gidx;
	a.ah_attr.grh.hop_limit = 64;
	memcpy(a.ah_attr.grh.dgid.raw, p->gid, 16);
	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
					     IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					     IBV_QP_MAX_DEST_RD_ATOMIC |
					     IBV_QP_MIN_RNR_TIMER))
		die("modify_qp RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 1000;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
					     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
					     IBV_QP_MAX_QP_RD_ATOMIC))
		die("modify_qp RTS");
}

/* A TCP connection: accepted on port (ip NULL) or made to ip:port */
static int tcp(const char *ip, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1, c;

	if (fd < 0)
		die("socket");
	if (!ip) {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 1))
			die("bind/listen");
		c = accept(fd, NULL, NULL);
		if (c < 0)
			die("accept");
		close(fd);
		return c;
	}
	if (inet_pton(AF_INET, ip, &sa.sin_addr) != 1)
		die("inet_pton");
	for (int i = 0; connect(fd, (struct sockaddr *)&sa, sizeof(sa)); i++) {
		if (i == 100)
			die("connect");
		usleep(100000);
	}
	return fd;
}

static void xfer(int fd, const void *out, void *in, size_t len)
{
	if (write(fd, out, len) != (ssize_t)len)
		die("write");
	for (size_t got = 0; got < len;) {
		ssize_t n = read(fd, (char *)in + got, len - got);

		if (n <= 0)
			die("read");
		got += (size_t)n;
	}
}

/* The next completion, printed: is it status st (and, successful, of
 * opcode op)? */
static bool poll_print(struct side *s, const char *name, enum ibv_wc_status st,
		       int op)
{
	struct ibv_wc wc;
	time_t end = time(NULL) + 10;
	int n;

	while (!(n = ibv_poll_cq(s->cq, 1, &wc)) && time(NULL) < end)
		usleep(1000);
	if (n <= 0) {
		printf("%s: no completion\n", name);
		return false;
	}
	if (wc.status != IBV_WC_SUCCESS) {
		printf("%s: wc %s\n", name, ibv_wc_status_str(wc.status));
		return wc.status == st;
	}
	printf("%s: wc success opcode %d\n", name, (int)wc.opcode);
	return st == IBV_WC_SUCCESS && (int)wc.opcode == op;
}

static void wr_flush(struct ibv_qp_ex *qx, uint32_t rkey, uint64_t addr, size_t len,
		     uint8_t type, uint8_t level)
{
	wr_flush_fn f;

	memcpy(&f, (char *)qx + WR_FLUSH_OFF, sizeof(f));
	f(qx, rkey, addr, len, type, level);
}

static bool request(struct side *s, const struct peer *p)
{
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(s->qp);
	bool ok = true;
	int ret;

	if (!qx)
		die("ibv_qp_to_qp_ex");
	ibv_wr_start(qx);
	qx->wr_flags = IBV_SEND_SIGNALED;
	qx->wr_id = 1;
	ibv_wr_rdma_write(qx, p->g_rkey, p->g_addr);
	ibv_wr_set_sge(qx, s->src->lkey, (uintptr_t)s->srcbuf, 64);
	qx->wr_id = 2;
	wr_flush(qx, p->g_rkey, p->g_addr, 64, FLUSH_GLOBAL, FLUSH_RANGE);
	qx->wr_id = 3;
	wr_flush(qx, p->g_rkey, p->g_addr, 0, FLUSH_GLOBAL, FLUSH_MR);
	qx->wr_id = 4;
	ibv_wr_atomic_write(qx, p->g_rkey, p->g_addr + 64, aw_bytes);
	ret = ibv_wr_complete(qx);
	printf("wr_complete: %d\n", ret);
	if (ret)
		return false;
	/* IBV_WC_RDMA_WRITE 1, IBV_WC_FLUSH 8, IBV_WC_ATOMIC_WRITE 9 */
	ok &= poll_print(s, "RDMA WRITE", IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
	ok &= poll_print(s, "FLUSH global, range", IBV_WC_SUCCESS, 8);
	ok &= poll_print(s, "FLUSH global, whole MR", IBV_WC_SUCCESS, 8);
	ok &= poll_print(s, "ATOMIC WRITE", IBV_WC_SUCCESS, IBV_WC_ATOMIC_WRITE);

	ibv_wr_start(qx);
	qx->wr_id = 5;
	wr_flush(qx, p->plain_rkey, p->plain_addr, 64, FLUSH_GLOBAL, FLUSH_RANGE);
	ret = ibv_wr_complete(qx);
	printf("wr_complete: %d\n", ret);
	if (ret)
		return false;
	ok &= poll_print(s, "FLUSH to an MR without the access",
			 IBV_WC_REM_ACCESS_ERR, 0);
	return ok;
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *ip = NULL;
	int gidx = -1, port = 18515, opt, fd;
	struct side s = { 0 };
	struct peer me = { 0 }, them;
	union ibv_gid gid;
	char done = 'd', ack;
	bool ok;

	while ((opt = getopt(argc, argv, "d:g:p:")) != -1) {
		if (opt == 'd')
			dev = optarg;
		else if (opt == 'g')
			gidx = atoi(optarg);
		else if (opt == 'p')
			port = atoi(optarg);
		else
			return 2;
	}
	if (optind < argc)
		ip = argv[optind];
	if (!dev || gidx < 0) {
		fprintf(stderr, "usage: aw_flush_peer -d DEV -g GIDX [-p PORT] [SERVER_IP]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	setup(&s, dev, ip != NULL);
	if (ibv_query_gid(s.ctx, 1, gidx, &gid))
		die("ibv_query_gid");
	me.qpn = s.qp->qp_num;
	me.psn = 1000;
	memcpy(me.gid, gid.raw, 16);
	if (s.g) {
		me.g_rkey = s.g->rkey;
		me.g_addr = (uintptr_t)s.gbuf;
		me.plain_rkey = s.plain->rkey;
		me.plain_addr = (uintptr_t)s.plainbuf;
	}
	fd = tcp(ip, port);
	xfer(fd, &me, &them, sizeof(me));
	connect_qp(&s, gidx, &them);
	/* both sides in RTR before the first request */
	xfer(fd, &done, &ack, 1);
	if (ip) {
		ok = request(&s, &them);
		xfer(fd, &done, &ack, 1);
	} else {
		uint8_t want[64];

		xfer(fd, &done, &ack, 1); /* the requester is done */
		fill(want, 64);
		ok = !memcmp(s.gbuf, want, 64) && !memcmp(s.gbuf + 64, aw_bytes, 8);
		printf("target: the written bytes %s\n", ok ? "are in place" : "ARE NOT in place");
		ok &= s.gbuf[72] == 0x55 && s.plainbuf[0] == 0x55;
		printf("target: the bytes around them %s\n",
		       s.gbuf[72] == 0x55 ? "are untouched" : "CHANGED");
	}
	close(fd);
	printf("%s\n", ok ? "PASS" : "FAIL");
	return ok ? 0 : 1;
}
