/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Helpers of the rxe data-path integration tests: see rxe_util.h. */
#define _GNU_SOURCE
#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rxe_util.h"

int rx_precheck(void)
{
	const char *dev = getenv("RXE_DEV");
	char path[256];
	struct stat st;

	if (!dev || !*dev) {
		printf("SKIP: RXE_DEV is not set (run inside tests/vm/run)\n");
		return 77;
	}
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s", dev);
	/* uroce<N> (SOFTVERBS_UROCE) has no kernel device: the host tier */
	if (strncmp(dev, "uroce", 5) && stat(path, &st)) {
		printf("SKIP: no %s (run inside tests/vm/run)\n", path);
		return 77;
	}
#ifdef RX_PLUGIN
	/* built against the system's libibverbs: softverbs' provider as an
	 * rdma-core plug-in (test_plugin.sh checks the maps) */
	if (dlsym(RTLD_DEFAULT, "softverbs_fork_stats")) {
		printf("FAIL: softverbs' libibverbs is in use, not rdma-core's\n");
		return 1;
	}
	if (!getenv("RDMAV_DRIVERS")) {
		printf("SKIP: RDMAV_DRIVERS does not name softverbs' plug-in (run from test_plugin.sh)\n");
		return 77;
	}
	return 0;
#endif
	/* these tests are about softverbs' provider, not the system's */
	if (!dlsym(RTLD_DEFAULT, "softverbs_fork_stats")) {
		printf("FAIL: the libibverbs in use is not softverbs\n");
		return 1;
	}
	return 0;
}

void rx_dev_open(struct rx_dev *d)
{
	const char *name = getenv("RXE_DEV");
	const char *gid = getenv("RXE_GID");
	struct ibv_device **list;
	int n;

	memset(d, 0, sizeof(*d));
	ck_assert_ptr_nonnull(name);
	list = ibv_get_device_list(&n);
	ck_assert_ptr_nonnull(list);
	for (int i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			d->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	ck_assert_msg(d->ctx, "cannot open %s", name);
	d->pd = ibv_alloc_pd(d->ctx);
	ck_assert_ptr_nonnull(d->pd);
	d->port = 1;
	d->gid_index = gid ? atoi(gid) : 1;
	ck_assert_int_eq(ibv_query_gid(d->ctx, d->port, d->gid_index, &d->gid),
			 0);
}

void rx_dev_close(struct rx_dev *d)
{
	ck_assert_int_eq(ibv_dealloc_pd(d->pd), 0);
	ck_assert_int_eq(ibv_close_device(d->ctx), 0);
}

#define OPT(o, field, dflt) ((o) && (o)->field ? (o)->field : (dflt))

void rx_pair_create(struct rx_dev *d, struct rx_pair *p,
		    enum ibv_qp_type type, const struct rx_pair_opts *o)
{
	memset(p, 0, sizeof(*p));
	p->type = type;
	for (int i = 0; i < 2; i++) {
		struct ibv_qp_init_attr *a = &p->init[i];

		if (o && o->cq_ex_flags) {
			struct ibv_cq_init_attr_ex ca = {
				.cqe = (uint32_t)OPT(o, cqe, 256),
				.wc_flags = o->cq_ex_flags,
			};
			struct ibv_cq_ex *s = ibv_create_cq_ex(d->ctx, &ca);
			struct ibv_cq_ex *r = ibv_create_cq_ex(d->ctx, &ca);

			ck_assert_ptr_nonnull(s);
			ck_assert_ptr_nonnull(r);
			p->scqx[i] = s;
			p->rcqx[i] = r;
			p->scq[i] = ibv_cq_ex_to_cq(s);
			p->rcq[i] = ibv_cq_ex_to_cq(r);
		} else {
			p->scq[i] = ibv_create_cq(d->ctx, OPT(o, cqe, 256),
						  NULL, NULL, 0);
			p->rcq[i] = ibv_create_cq(d->ctx, OPT(o, cqe, 256),
						  NULL, NULL, 0);
		}
		ck_assert_ptr_nonnull(p->scq[i]);
		ck_assert_ptr_nonnull(p->rcq[i]);
		a->send_cq = p->scq[i];
		a->recv_cq = p->rcq[i];
		a->qp_type = type;
		a->cap.max_send_wr = OPT(o, max_send_wr, 64);
		a->cap.max_recv_wr = OPT(o, max_recv_wr, 64);
		a->cap.max_send_sge = OPT(o, max_sge, 4);
		a->cap.max_recv_sge = OPT(o, max_sge, 4);
		a->cap.max_inline_data = OPT(o, max_inline, 64);
		if (i == 1 && o && o->srq)
			a->srq = o->srq;
		if (o && o->send_ops) {
			struct ibv_qp_init_attr_ex xa = {
				.send_cq = a->send_cq,
				.recv_cq = a->recv_cq,
				.srq = a->srq,
				.cap = a->cap,
				.qp_type = type,
				.comp_mask = IBV_QP_INIT_ATTR_PD |
					     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
				.pd = d->pd,
				.send_ops_flags = o->send_ops,
			};

			p->qp[i] = ibv_create_qp_ex(d->ctx, &xa);
			a->cap = xa.cap;
		} else {
			p->qp[i] = ibv_create_qp(d->pd, a);
		}
		ck_assert_msg(p->qp[i], "ibv_create_qp: %s", strerror(errno));
	}
	if (type == IBV_QPT_UD) {
		for (int i = 0; i < 2; i++) {
			struct ibv_ah_attr ah = {
				.is_global = 1,
				.port_num = d->port,
				.grh = {
					.dgid = d->gid,
					.sgid_index = (uint8_t)d->gid_index,
					.hop_limit = 1,
				},
			};

			p->ah[i] = ibv_create_ah(d->pd, &ah);
			ck_assert_msg(p->ah[i], "ibv_create_ah: %s",
				      strerror(errno));
		}
	}
	if (o && o->no_connect)
		return;
	for (int i = 0; i < 2; i++) {
		rx_qp_to(d, p, i, IBV_QPS_INIT, o);
		rx_qp_to(d, p, i, IBV_QPS_RTR, o);
		rx_qp_to(d, p, i, IBV_QPS_RTS, o);
	}
}

void rx_qp_to(struct rx_dev *d, struct rx_pair *p, int side,
	      enum ibv_qp_state state, const struct rx_pair_opts *o)
{
	struct ibv_qp *qp = p->qp[side];
	struct ibv_qp_attr a;
	int mask = IBV_QP_STATE;
	int rc = p->type == IBV_QPT_RC, ud = p->type == IBV_QPT_UD;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = state;
	switch (state) {
	case IBV_QPS_INIT:
		a.pkey_index = 0;
		a.port_num = d->port;
		mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT;
		if (ud) {
			a.qkey = RX_UD_QKEY;
			mask |= IBV_QP_QKEY;
		} else {
			a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
					    IBV_ACCESS_REMOTE_READ |
					    IBV_ACCESS_REMOTE_ATOMIC;
			mask |= IBV_QP_ACCESS_FLAGS;
		}
		break;
	case IBV_QPS_RTR:
		if (ud)
			break;
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = p->qp[!side]->qp_num;
		if (side == 0 && o && o->dest_qpn_override)
			a.dest_qp_num = o->dest_qpn_override;
		a.rq_psn = 0x100;
		a.ah_attr.is_global = 1;
		a.ah_attr.port_num = d->port;
		a.ah_attr.grh.dgid = d->gid;
		a.ah_attr.grh.sgid_index = (uint8_t)d->gid_index;
		a.ah_attr.grh.hop_limit = 1;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN;
		if (rc) {
			a.max_dest_rd_atomic = 4;
			a.min_rnr_timer = OPT(o, min_rnr_timer, 1);
			mask |= IBV_QP_MAX_DEST_RD_ATOMIC |
				IBV_QP_MIN_RNR_TIMER;
		}
		break;
	case IBV_QPS_RTS:
		a.sq_psn = 0x100;
		mask |= IBV_QP_SQ_PSN;
		if (rc) {
			a.timeout = OPT(o, timeout, 14);
			a.retry_cnt = OPT(o, retry_cnt, 7);
			a.rnr_retry = o && o->rnr_set ? o->rnr_retry : 7;
			a.max_rd_atomic = 4;
			mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
		}
		break;
	default:
		break;
	}
	ret = ibv_modify_qp(qp, &a, mask);
	ck_assert_msg(ret == 0, "modify QP %#x to state %d: %s", qp->qp_num,
		      (int)state, strerror(ret));
}

void rx_pair_destroy(struct rx_pair *p)
{
	for (int i = 0; i < 2; i++) {
		if (p->ah[i])
			ck_assert_int_eq(ibv_destroy_ah(p->ah[i]), 0);
		ck_assert_int_eq(ibv_destroy_qp(p->qp[i]), 0);
		ck_assert_int_eq(ibv_destroy_cq(p->scq[i]), 0);
		ck_assert_int_eq(ibv_destroy_cq(p->rcq[i]), 0);
	}
}

void rx_buf_alloc(struct rx_dev *d, struct rx_buf *b, size_t len, int access)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t alloc = (len + page - 1) / page * page;

	b->len = len;
	b->addr = aligned_alloc(page, alloc ? alloc : page);
	ck_assert_ptr_nonnull(b->addr);
	memset(b->addr, 0, alloc ? alloc : page);
	b->mr = ibv_reg_mr(d->pd, b->addr, len ? len : 1, access);
	ck_assert_msg(b->mr, "ibv_reg_mr: %s", strerror(errno));
}

void rx_buf_free(struct rx_buf *b)
{
	ck_assert_int_eq(ibv_dereg_mr(b->mr), 0);
	free(b->addr);
}

void rx_fill(void *p, size_t len, unsigned int seed)
{
	uint8_t *b = p;

	for (size_t i = 0; i < len; i++)
		b[i] = (uint8_t)((i * 131u + seed * 7u + (i >> 8)) ^ 0x5a);
}

long rx_diff(const void *a, const void *b, size_t len)
{
	const uint8_t *x = a, *y = b;

	for (size_t i = 0; i < len; i++)
		if (x[i] != y[i])
			return (long)i;
	return -1;
}

void rx_post_recv(struct ibv_qp *qp, uint64_t wr_id, struct ibv_sge *sge,
		  int num_sge)
{
	struct ibv_recv_wr wr = {
		.wr_id = wr_id,
		.sg_list = sge,
		.num_sge = num_sge,
	};
	struct ibv_recv_wr *bad = NULL;
	int ret;

	ret = ibv_post_recv(qp, &wr, &bad);
	ck_assert_msg(ret == 0, "ibv_post_recv: %s", strerror(ret));
}

void rx_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad = NULL;
	int ret;

	ret = ibv_post_send(qp, wr, &bad);
	ck_assert_msg(ret == 0, "ibv_post_send: %s", strerror(ret));
	ck_assert_ptr_null(bad);
}

void rx_wait_wc(struct ibv_cq *cq, struct ibv_wc *wc)
{
	time_t end = time(NULL) + RX_WAIT_SECONDS;
	int n;

	do {
		n = ibv_poll_cq(cq, 1, wc);
		ck_assert_int_ge(n, 0);
		if (n)
			return;
		usleep(100);
	} while (time(NULL) < end);
	ck_abort_msg("no completion within %d s", RX_WAIT_SECONDS);
}

int rx_cq_empty(struct ibv_cq *cq)
{
	struct ibv_wc wc;

	return ibv_poll_cq(cq, 1, &wc) == 0;
}

void rx_wait_async(struct ibv_context *ctx, struct ibv_async_event *ev)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	int n;

	n = poll(&pfd, 1, RX_WAIT_SECONDS * 1000);
	ck_assert_msg(n == 1, "no async event within %d s", RX_WAIT_SECONDS);
	ck_assert_int_eq(ibv_get_async_event(ctx, ev), 0);
}
