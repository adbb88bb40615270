/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* pvrdma-fork: fork safety on a PCI HCA (QEMU's pvrdma in the nested test
 * VM, tests/vm/check-nested), with send/recv traffic to a peer on another
 * device (RDMA READ/WRITE do not work on QEMU's pvrdma: kmod-notes/pvrdma.md).
 *
 *   pvrdma-fork server DEV GID_INDEX PORT
 *       one connection on TCP PORT; echoes ROUNDS messages back.
 *   pvrdma-fork client DEV GID_INDEX HOST PORT env|late
 *       registers one MR (a send page and a receive page) and checks, in order:
 *       env:  RDMAV_FORK_SAFE=1 is set; after ibv_reg_mr() the MR's pages
 *             are "dc" (MADV_DONTFORK) in /proc/self/smaps;
 *       late: after ibv_reg_mr() they are not "dc"; ibv_fork_init() then
 *             returns 0 and they are;
 *       both: a forked child writing to the MR dies of SIGSEGV (the pages
 *             are not in it); then ROUNDS echo rounds through the MR, the
 *             parent writing a new pattern each round after the fork, and
 *             the echo byte-identical; /proc/self/maps names the
 *             libibverbs in use (must be under $PVRDMA_FORK_LIBDIR when
 *             set) and, on a vmw_pvrdma device, libvmw_pvrdma.
 * Exit 0 when every check held; 1 with the failed step on stderr.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <netdb.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MSG_BYTES 4096
#define ROUNDS 3
#define POLL_SECONDS 120

struct peer {
	uint32_t qpn, psn;
	uint8_t gid[16];
};

struct conn {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	unsigned char *buf; /* page 0: send, page 1: receive */
	size_t page;
	int gid_index;
};

static void die(const char *what, int err)
{
	fprintf(stderr, "pvrdma-fork: FAIL: %s%s%s\n", what, err ? ": " : "", err ? strerror(err) : "");
	exit(1);
}

static void open_dev(struct conn *c, const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);

	if (!list)
		die("ibv_get_device_list", errno);
	for (int i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			c->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!c->ctx)
		die("no such device (or ibv_open_device failed)", errno);
	c->pd = ibv_alloc_pd(c->ctx);
	if (!c->pd)
		die("ibv_alloc_pd", errno);
	c->cq = ibv_create_cq(c->ctx, 8, NULL, NULL, 0);
	if (!c->cq)
		die("ibv_create_cq", errno);
	struct ibv_qp_init_attr ia = {
		.send_cq = c->cq, .recv_cq = c->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 2, .max_recv_wr = 2, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	c->qp = ibv_create_qp(c->pd, &ia);
	if (!c->qp)
		die("ibv_create_qp", errno);
	struct ibv_qp_attr init = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	int err = ibv_modify_qp(c->qp, &init, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				IBV_QP_ACCESS_FLAGS);
	if (err)
		die("ibv_modify_qp INIT", err);
}

static void alloc_buf(struct conn *c)
{
	c->page = (size_t)sysconf(_SC_PAGESIZE);
	if (posix_memalign((void **)&c->buf, c->page, 2 * c->page))
		die("posix_memalign", ENOMEM);
	memset(c->buf, 0, 2 * c->page);
}

static void reg(struct conn *c)
{
	c->mr = ibv_reg_mr(c->pd, c->buf, 2 * c->page, IBV_ACCESS_LOCAL_WRITE);
	if (!c->mr)
		die("ibv_reg_mr", errno);
}

static void post_recv(struct conn *c)
{
	struct ibv_sge sge = { (uintptr_t)c->buf + c->page, MSG_BYTES, c->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1 }, *bad;
	int err = ibv_post_recv(c->qp, &wr, &bad);

	if (err)
		die("ibv_post_recv", err);
}

static void post_send(struct conn *c)
{
	struct ibv_sge sge = { (uintptr_t)c->buf, MSG_BYTES, c->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED }, *bad;
	int err = ibv_post_send(c->qp, &wr, &bad);

	if (err)
		die("ibv_post_send", err);
}

/* Wait for nsend send and nrecv receive completions. */
static void wait_wc(struct conn *c, int nsend, int nrecv)
{
	time_t end = time(NULL) + POLL_SECONDS;

	while (nsend > 0 || nrecv > 0) {
		struct ibv_wc wc;
		int n = ibv_poll_cq(c->cq, 1, &wc);

		if (n < 0)
			die("ibv_poll_cq", EIO);
		if (n == 1) {
			if (wc.status != IBV_WC_SUCCESS) {
				fprintf(stderr, "pvrdma-fork: FAIL: %s completion: %s\n",
					wc.wr_id == 1 ? "send" : "receive", ibv_wc_status_str(wc.status));
				exit(1);
			}
			if (wc.wr_id == 1)
				nsend--;
			else
				nrecv--;
			continue;
		}
		if (time(NULL) > end)
			die("no completion within 120 s", ETIMEDOUT);
	}
}

static void connect_qp(struct conn *c, const struct peer *p, uint32_t my_psn)
{
	struct ibv_qp_attr rtr = {
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024, .dest_qp_num = p->qpn,
		.rq_psn = p->psn, .max_dest_rd_atomic = 1, .min_rnr_timer = 12,
		.ah_attr = { .is_global = 1, .port_num = 1,
			     .grh = { .sgid_index = (uint8_t)c->gid_index, .hop_limit = 1 } },
	};
	struct ibv_qp_attr rts = {
		.qp_state = IBV_QPS_RTS, .sq_psn = my_psn, .timeout = 14, .retry_cnt = 7,
		.rnr_retry = 7, .max_rd_atomic = 1,
	};
	int err;

	memcpy(rtr.ah_attr.grh.dgid.raw, p->gid, 16);
	err = ibv_modify_qp(c->qp, &rtr, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			    IBV_QP_MIN_RNR_TIMER);
	if (err)
		die("ibv_modify_qp RTR", err);
	err = ibv_modify_qp(c->qp, &rts, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			    IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
	if (err)
		die("ibv_modify_qp RTS", err);
}

/* Send our QP's address, read the peer's. */
static void exchange(struct conn *c, int fd, uint32_t psn, struct peer *p)
{
	union ibv_gid gid;
	struct peer me = { htonl(c->qp->qp_num), htonl(psn), { 0 } };
	int err = ibv_query_gid(c->ctx, 1, c->gid_index, &gid);

	if (err)
		die("ibv_query_gid", err);
	memcpy(me.gid, gid.raw, 16);
	if (write(fd, &me, sizeof(me)) != (ssize_t)sizeof(me))
		die("write to the peer", errno);
	size_t got = 0;
	while (got < sizeof(*p)) {
		ssize_t n = read(fd, (char *)p + got, sizeof(*p) - got);

		if (n <= 0)
			die("read from the peer", n ? errno : ECONNRESET);
		got += (size_t)n;
	}
	p->qpn = ntohl(p->qpn);
	p->psn = ntohl(p->psn);
}

/* Both QPs are ready to receive: one byte each way. */
static void sync_peer(int fd)
{
	char b = 'r';

	if (write(fd, &b, 1) != 1 || read(fd, &b, 1) != 1)
		die("sync with the peer", errno ? errno : ECONNRESET);
}

/* Is the page at addr "dc" (VM_DONTCOPY) in /proc/self/smaps? */
static int smaps_dc(const void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	int in = 0, dc = -1;
	uintptr_t a = (uintptr_t)addr;

	if (!f)
		die("open /proc/self/smaps", errno);
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
			in = a >= lo && a < hi;
			continue;
		}
		if (in && !strncmp(line, "VmFlags:", 8)) {
			dc = strstr(line, " dc") != NULL;
			break;
		}
	}
	fclose(f);
	if (dc < 0)
		die("the MR's pages are not in /proc/self/smaps", 0);
	return dc;
}

static void check_child_faults(struct conn *c)
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		die("fork", errno);
	if (pid == 0) {
		((volatile unsigned char *)c->buf)[0] = 0x5a;
		((volatile unsigned char *)c->buf)[c->page] = 0x5a;
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid)
		die("waitpid", errno);
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGSEGV) {
		fprintf(stderr, "pvrdma-fork: FAIL: the child touching the MR was not killed by SIGSEGV (status 0x%x)\n", st);
		exit(1);
	}
	printf("pvrdma-fork: child touching the MR: SIGSEGV\n");
}

static void check_maps(const char *dev)
{
	FILE *f = fopen("/proc/self/maps", "r");
	const char *libdir = getenv("PVRDMA_FORK_LIBDIR");
	char line[512], verbs[512] = "", prov[512] = "";

	if (!f)
		die("open /proc/self/maps", errno);
	while (fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');

		if (!path)
			continue;
		path[strcspn(path, "\n")] = 0;
		if (strstr(path, "/libibverbs.so") && !verbs[0])
			snprintf(verbs, sizeof(verbs), "%s", path);
		if (strstr(path, "/libvmw_pvrdma") && !prov[0])
			snprintf(prov, sizeof(prov), "%s", path);
	}
	fclose(f);
	printf("pvrdma-fork: maps: libibverbs %s\n", verbs[0] ? verbs : "(none)");
	printf("pvrdma-fork: maps: provider %s\n", prov[0] ? prov : "(none)");
	if (!verbs[0] || (libdir && strncmp(verbs, libdir, strlen(libdir))))
		die("libibverbs in /proc/self/maps is not the expected one ($PVRDMA_FORK_LIBDIR)", 0);
	if (!strncmp(dev, "vmw_pvrdma", 10) && !prov[0])
		die("libvmw_pvrdma is not in /proc/self/maps", 0);
}

static int tcp(const char *host, const char *port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = host ? 0 : AI_PASSIVE }, *ai;
	int fd, one = 1, err = getaddrinfo(host, port, &hints, &ai);

	if (err) {
		fprintf(stderr, "pvrdma-fork: FAIL: getaddrinfo: %s\n", gai_strerror(err));
		exit(1);
	}
	fd = socket(ai->ai_family, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket", errno);
	if (host) {
		/* the server may still be starting: retry for 60 s */
		for (int i = 0; connect(fd, ai->ai_addr, ai->ai_addrlen); i++) {
			if (i == 60)
				die("connect", errno);
			sleep(1);
		}
	} else {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 1))
			die("bind/listen", errno);
		int c = accept(fd, NULL, NULL);
		if (c < 0)
			die("accept", errno);
		close(fd);
		fd = c;
	}
	freeaddrinfo(ai);
	return fd;
}

static int server(const char *dev, int gid_index, const char *port)
{
	struct conn c = { .gid_index = gid_index };
	struct peer p;

	open_dev(&c, dev);
	alloc_buf(&c);
	reg(&c);
	post_recv(&c);
	int fd = tcp(NULL, port);
	exchange(&c, fd, 2000, &p);
	connect_qp(&c, &p, 2000);
	sync_peer(fd);
	for (int r = 0; r < ROUNDS; r++) {
		wait_wc(&c, 0, 1);
		memcpy(c.buf, c.buf + c.page, MSG_BYTES);
		post_recv(&c);
		post_send(&c);
		wait_wc(&c, 1, 0);
	}
	printf("pvrdma-fork: server: %d rounds echoed\n", ROUNDS);
	close(fd);
	return 0;
}

static int client(const char *dev, int gid_index, const char *host, const char *port, const char *mode)
{
	struct conn c = { .gid_index = gid_index };
	struct peer p;
	int late = !strcmp(mode, "late");
	const char *safe = getenv("RDMAV_FORK_SAFE");

	if (!late && strcmp(mode, "env"))
		die("mode is env or late", EINVAL);
	if (!late && !(safe && *safe))
		die("mode env needs RDMAV_FORK_SAFE=1 in the environment", EINVAL);
	open_dev(&c, dev);
	alloc_buf(&c);
	reg(&c);
	if (late) {
		if (smaps_dc(c.buf))
			die("the MR is already dc before ibv_fork_init()", 0);
		int err = ibv_fork_init();
		if (err)
			die("late ibv_fork_init()", err);
		printf("pvrdma-fork: late ibv_fork_init() after ibv_reg_mr(): 0\n");
	}
	if (!smaps_dc(c.buf) || !smaps_dc(c.buf + c.page))
		die("the MR's pages are not dc (MADV_DONTFORK) in /proc/self/smaps", 0);
	printf("pvrdma-fork: MR pages dc in smaps\n");
	check_child_faults(&c);
	post_recv(&c);
	int fd = tcp(host, port);
	exchange(&c, fd, 1000, &p);
	connect_qp(&c, &p, 1000);
	sync_peer(fd);
	for (int r = 0; r < ROUNDS; r++) {
		for (int i = 0; i < MSG_BYTES; i++)
			c.buf[i] = (unsigned char)(i * 7 + r * 31 + 1);
		post_send(&c);
		wait_wc(&c, 1, 1);
		if (memcmp(c.buf, c.buf + c.page, MSG_BYTES)) {
			fprintf(stderr, "pvrdma-fork: FAIL: round %d: the echo differs from what was sent\n", r);
			return 1;
		}
		memset(c.buf + c.page, 0, MSG_BYTES);
		if (r + 1 < ROUNDS)
			post_recv(&c);
	}
	printf("pvrdma-fork: %d rounds after the fork byte-identical\n", ROUNDS);
	check_maps(dev);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 5 && !strcmp(argv[1], "server"))
		return server(argv[2], atoi(argv[3]), argv[4]);
	if (argc == 7 && !strcmp(argv[1], "client"))
		return client(argv[2], atoi(argv[3]), argv[4], argv[5], argv[6]);
	fprintf(stderr, "usage: pvrdma-fork server DEV GID_INDEX PORT\n"
			"       pvrdma-fork client DEV GID_INDEX HOST PORT env|late\n");
	return 2;
}
