/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* fork-classic: the pattern that used to corrupt RDMA programs.
 *
 * A program registers a buffer, then runs a shell command with system()
 * (a child process), and keeps doing RDMA into the same buffer. On
 * kernels that do not copy DMA-pinned pages at fork, the parent's next
 * write to the buffer after fork() could move it to a fresh page while the
 * device kept using the old one, now the child's: the parent stopped
 * seeing what the device wrote. ibv_fork_init() (or RDMAV_FORK_SAFE=1)
 * prevents it by marking registered pages MADV_DONTFORK: the child does
 * not get them at all.
 *
 * Here: one buffer, an RC QP talking to a second QP on the same device
 * (loopback), and for each of 5 rounds: write new data into the buffer,
 * RDMA WRITE it to the other side, run a shell command, check the other
 * side got exactly the new data.
 *
 * Usage: fork-classic [--no-fork-init]   (device: env RXE_DEV or the
 * first; GID index: env RXE_GID or 1). Exit 0 when every round matched. */
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LEN 8192

static void fail(const char *what)
{
	fprintf(stderr, "fork-classic: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* INIT -> RTR -> RTS towards dest on our own port (loopback). */
static void connect_qp(struct ibv_qp *qp, uint32_t dest, union ibv_gid *gid, int gid_index)
{
	struct ibv_qp_attr init = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	struct ibv_qp_attr rtr = {
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024, .dest_qp_num = dest,
		.rq_psn = 1, .max_dest_rd_atomic = 1, .min_rnr_timer = 1,
		.ah_attr = { .is_global = 1, .port_num = 1,
			     .grh = { .dgid = *gid, .sgid_index = (uint8_t)gid_index,
				      .hop_limit = 1 } },
	};
	struct ibv_qp_attr rts = {
		.qp_state = IBV_QPS_RTS, .sq_psn = 1, .timeout = 14, .retry_cnt = 7,
		.rnr_retry = 7, .max_rd_atomic = 1,
	};

	if ((errno = ibv_modify_qp(qp, &init, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				   IBV_QP_ACCESS_FLAGS)) ||
	    (errno = ibv_modify_qp(qp, &rtr, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				   IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)) ||
	    (errno = ibv_modify_qp(qp, &rts, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				   IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				   IBV_QP_MAX_QP_RD_ATOMIC)))
		fail("ibv_modify_qp");
}

int main(int argc, char **argv)
{
	const char *want = getenv("RXE_DEV"), *g = getenv("RXE_GID");
	int gid_index = g ? atoi(g) : 1, n, bad = 0;
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	struct ibv_qp *qp[2];
	struct ibv_cq *cq;
	union ibv_gid gid;
	unsigned char *buf, *dst;
	struct ibv_mr *mr, *dst_mr;
	struct ibv_pd *pd;

	/* 1. Fork safety first, before any registration (softverbs also
	 *    accepts it later and protects what is already registered). */
	if (argc < 2 || strcmp(argv[1], "--no-fork-init")) {
		if ((errno = ibv_fork_init()))
			fail("ibv_fork_init");
		printf("fork safety on\n");
	} else {
		printf("fork safety off (unless RDMAV_FORK_SAFE is set)\n");
	}

	list = ibv_get_device_list(&n);
	for (int i = 0; list && i < n && !ctx; i++)
		if (!want || !strcmp(ibv_get_device_name(list[i]), want))
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		fail("no RDMA device to open");
	ibv_free_device_list(list);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	if (!pd || !cq || ibv_query_gid(ctx, 1, gid_index, &gid))
		fail("device setup");
	for (int i = 0; i < 2; i++) {
		struct ibv_qp_init_attr ia = {
			.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
				 .max_recv_sge = 1 },
		};

		if (!(qp[i] = ibv_create_qp(pd, &ia)))
			fail("ibv_create_qp");
	}
	connect_qp(qp[0], qp[1]->qp_num, &gid, gid_index);
	connect_qp(qp[1], qp[0]->qp_num, &gid, gid_index);

	/* 2. Register the buffers. */
	buf = aligned_alloc(4096, LEN);
	dst = aligned_alloc(4096, LEN);
	if (!buf || !dst)
		fail("aligned_alloc");
	mr = ibv_reg_mr(pd, buf, LEN, IBV_ACCESS_LOCAL_WRITE);
	dst_mr = ibv_reg_mr(pd, dst, LEN, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!mr || !dst_mr)
		fail("ibv_reg_mr");

	for (int round = 0; round < 5; round++) {
		struct ibv_sge sge = { (uintptr_t)buf, LEN, mr->lkey };
		struct ibv_send_wr wr = {
			.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = { (uintptr_t)dst, dst_mr->rkey },
		}, *bad_wr;
		struct ibv_wc wc;

		/* 3. New data in the registered buffer: after a fork() this
		 *    write is what could have moved the page. */
		memset(buf, 'A' + round, LEN);
		if ((errno = ibv_post_send(qp[0], &wr, &bad_wr)))
			fail("ibv_post_send");

		/* 4. A child process, while the WRITE is in flight. */
		fflush(stdout);
		if (system("echo \"  child: $(uname -r), $(ls / | wc -l) entries in /\"") != 0)
			fprintf(stderr, "fork-classic: the shell command failed\n");

		while ((n = ibv_poll_cq(cq, 1, &wc)) == 0)
			;
		if (n < 0 || wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "fork-classic: RDMA WRITE failed: %s\n",
				n < 0 ? "poll" : ibv_wc_status_str(wc.status));
			return 1;
		}
		/* 5. The other side must hold exactly the new data. */
		for (int i = 0; i < LEN; i++)
			if (dst[i] != 'A' + round) {
				bad++;
				break;
			}
		printf("round %d: %s\n", round, bad ? "DATA LOST" : "the device wrote what we wrote");
	}

	ibv_dereg_mr(mr);
	ibv_dereg_mr(dst_mr);
	free(buf);
	free(dst);
	ibv_destroy_qp(qp[0]);
	ibv_destroy_qp(qp[1]);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	printf("%s\n", bad ? "FAILED" : "OK");
	return bad ? 1 : 0;
}
