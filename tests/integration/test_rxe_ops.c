/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * tests/integration/test_rxe_ops.c -- every opcode on every QP type that
 * allows it, over softverbs' rxe provider (inside the test VM): data
 * checked byte by byte, gather and scatter lists, inline data, zero-length
 * messages, immediate data, multi-packet messages, chains of WRs.
 *
 * Two QPs on $RXE_DEV talk to each other (loopback). Outside the VM the
 * program exits 77.
 */
#include <check.h>
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "rxe_util.h"

#include "../check_main.h"

enum {
	C_MULTI = 1 << 0,  /* gather from 3 SGEs, scatter into 2 */
	C_INLINE = 1 << 1, /* IBV_SEND_INLINE, lkey 0, buffer reused at once */
};

struct op_case {
	enum ibv_qp_type type;
	enum ibv_wr_opcode opcode;
	unsigned int flags;
	size_t len;
};

static const struct op_case cases[] = {
	/* RC: everything */
	{ IBV_QPT_RC, IBV_WR_SEND, 0, 4096 },
	{ IBV_QPT_RC, IBV_WR_SEND, 0, 65536 },
	{ IBV_QPT_RC, IBV_WR_SEND, C_MULTI, 3001 },
	{ IBV_QPT_RC, IBV_WR_SEND, C_INLINE, 60 },
	{ IBV_QPT_RC, IBV_WR_SEND, C_INLINE | C_MULTI, 63 },
	{ IBV_QPT_RC, IBV_WR_SEND, 0, 0 },
	{ IBV_QPT_RC, IBV_WR_SEND_WITH_IMM, 0, 1000 },
	{ IBV_QPT_RC, IBV_WR_SEND_WITH_IMM, 0, 0 },
	{ IBV_QPT_RC, IBV_WR_RDMA_WRITE, 0, 8192 },
	{ IBV_QPT_RC, IBV_WR_RDMA_WRITE, C_MULTI, 5000 },
	{ IBV_QPT_RC, IBV_WR_RDMA_WRITE, C_INLINE, 48 },
	{ IBV_QPT_RC, IBV_WR_RDMA_WRITE, 0, 0 },
	{ IBV_QPT_RC, IBV_WR_RDMA_WRITE_WITH_IMM, 0, 2048 },
	{ IBV_QPT_RC, IBV_WR_RDMA_WRITE_WITH_IMM, 0, 0 },
	{ IBV_QPT_RC, IBV_WR_RDMA_READ, 0, 8192 },
	{ IBV_QPT_RC, IBV_WR_RDMA_READ, C_MULTI, 3333 },
	{ IBV_QPT_RC, IBV_WR_ATOMIC_FETCH_AND_ADD, 0, 8 },
	{ IBV_QPT_RC, IBV_WR_ATOMIC_CMP_AND_SWP, 0, 8 },
	/* UC: sends and writes */
	{ IBV_QPT_UC, IBV_WR_SEND, 0, 4096 },
	{ IBV_QPT_UC, IBV_WR_SEND, C_MULTI, 2500 },
	{ IBV_QPT_UC, IBV_WR_SEND, C_INLINE, 64 },
	{ IBV_QPT_UC, IBV_WR_SEND, 0, 0 },
	{ IBV_QPT_UC, IBV_WR_SEND_WITH_IMM, 0, 777 },
	{ IBV_QPT_UC, IBV_WR_RDMA_WRITE, 0, 8192 },
	{ IBV_QPT_UC, IBV_WR_RDMA_WRITE, C_MULTI, 3000 },
	{ IBV_QPT_UC, IBV_WR_RDMA_WRITE, C_INLINE, 40 },
	{ IBV_QPT_UC, IBV_WR_RDMA_WRITE_WITH_IMM, 0, 1500 },
	/* UD: sends of at most one MTU */
	{ IBV_QPT_UD, IBV_WR_SEND, 0, 1024 },
	{ IBV_QPT_UD, IBV_WR_SEND, C_MULTI, 900 },
	{ IBV_QPT_UD, IBV_WR_SEND, C_INLINE, 32 },
	{ IBV_QPT_UD, IBV_WR_SEND, 0, 0 },
	{ IBV_QPT_UD, IBV_WR_SEND_WITH_IMM, 0, 512 },
};

#define NCASES ((int)(sizeof(cases) / sizeof(cases[0])))
#define OFF 64 /* remote data starts here; bytes around it must stay */

static const char *op_name(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_SEND: return "SEND";
	case IBV_WR_SEND_WITH_IMM: return "SEND_WITH_IMM";
	case IBV_WR_RDMA_WRITE: return "RDMA_WRITE";
	case IBV_WR_RDMA_WRITE_WITH_IMM: return "RDMA_WRITE_WITH_IMM";
	case IBV_WR_RDMA_READ: return "RDMA_READ";
	case IBV_WR_ATOMIC_FETCH_AND_ADD: return "FETCH_AND_ADD";
	case IBV_WR_ATOMIC_CMP_AND_SWP: return "CMP_AND_SWP";
	default: return "?";
	}
}

/* Split [base, base+len) into n SGEs in a shuffled order (so that gather
 * and scatter really reorder memory); returns how many were used. */
static int make_sges(struct ibv_sge *sg, int n, uint8_t *base, size_t len,
		     uint32_t lkey)
{
	size_t piece = len / (size_t)n;

	if (n == 1 || len < (size_t)n) {
		sg[0] = (struct ibv_sge){ (uintptr_t)base, (uint32_t)len, lkey };
		return len ? 1 : 0;
	}
	for (int i = 0; i < n; i++) {
		/* SGE i covers piece (i + 1) % n; the last piece takes the
		 * remainder */
		int k = (i + 1) % n;
		size_t start = piece * (size_t)k;
		size_t plen = k == n - 1 ? len - start : piece;

		sg[i] = (struct ibv_sge){ (uintptr_t)(base + start),
					  (uint32_t)plen, lkey };
	}
	return n;
}

/* Concatenate what the SGEs point at. */
static void gather(const struct ibv_sge *sg, int n, uint8_t *out)
{
	for (int i = 0; i < n; i++) {
		memcpy(out, (void *)(uintptr_t)sg[i].addr, sg[i].length);
		out += sg[i].length;
	}
}

static void check_bytes(const void *got, const void *want, size_t len,
			const char *what)
{
	long at = rx_diff(got, want, len);

	ck_assert_msg(at < 0, "%s: byte %ld of %zu differs", what, at, len);
}

START_TEST(test_opcode)
{
	const struct op_case *c = &cases[_i];
	const int ud = c->type == IBV_QPT_UD;
	const int has_imm = c->opcode == IBV_WR_SEND_WITH_IMM ||
			    c->opcode == IBV_WR_RDMA_WRITE_WITH_IMM;
	const int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	const size_t len = c->len, buflen = 2 * len + RX_GRH + 2 * OFF;
	const __be32 imm = htobe32(0xc0ffee00u + (uint32_t)_i);
	struct ibv_sge ssg[3], rsg[3];
	struct ibv_send_wr wr;
	struct rx_buf src, dst;
	struct ibv_wc wc;
	struct rx_dev d;
	struct rx_pair p;
	uint8_t *want, *got;
	int ns, nr;

	fprintf(stderr, "case %d: %s %s%s%s, %zu bytes\n", _i,
		c->type == IBV_QPT_RC ? "RC" : c->type == IBV_QPT_UC ? "UC" : "UD",
		op_name(c->opcode), c->flags & C_MULTI ? " multi-SGE" : "",
		c->flags & C_INLINE ? " inline" : "", len);
	rx_dev_open(&d);
	rx_pair_create(&d, &p, c->type, NULL);
	rx_buf_alloc(&d, &src, buflen, acc);
	rx_buf_alloc(&d, &dst, buflen, acc);
	rx_fill(src.addr, buflen, (unsigned int)_i);
	memset(dst.addr, 0xee, buflen);
	want = malloc(buflen);
	got = malloc(buflen);
	ck_assert_ptr_nonnull(want);
	ck_assert_ptr_nonnull(got);

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 0x5000 + (uint64_t)_i;
	wr.opcode = c->opcode;
	wr.send_flags = IBV_SEND_SIGNALED;
	if (c->flags & C_INLINE)
		wr.send_flags |= IBV_SEND_INLINE;
	wr.imm_data = imm;

	switch (c->opcode) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		ns = make_sges(ssg, c->flags & C_MULTI ? 3 : 1, src.addr + OFF,
			       len, c->flags & C_INLINE ? 0 : src.mr->lkey);
		gather(ssg, ns, want);
		break;
	case IBV_WR_RDMA_READ:
		rx_fill(dst.addr + OFF, len, 1000u + (unsigned int)_i);
		memcpy(want, dst.addr + OFF, len);
		ns = make_sges(ssg, c->flags & C_MULTI ? 3 : 1, src.addr + OFF,
			       len, src.mr->lkey);
		break;
	default: /* atomics: 8 local bytes get the old remote value */
		*(uint64_t *)(dst.addr + OFF) = 1000;
		ns = make_sges(ssg, 1, src.addr + OFF, 8, src.mr->lkey);
		wr.wr.atomic.remote_addr = (uintptr_t)(dst.addr + OFF);
		wr.wr.atomic.rkey = dst.mr->rkey;
		wr.wr.atomic.compare_add =
			c->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD ? 5 : 1000;
		wr.wr.atomic.swap = 77;
		break;
	}
	wr.sg_list = ns ? ssg : NULL;
	wr.num_sge = ns;

	/* the receive side */
	nr = 0;
	if (c->opcode == IBV_WR_SEND || c->opcode == IBV_WR_SEND_WITH_IMM) {
		if (ud) /* the GRH lands in the first 40 bytes */
			nr = make_sges(rsg, 1, dst.addr + OFF, RX_GRH + len,
				       dst.mr->lkey);
		else
			nr = make_sges(rsg, c->flags & C_MULTI ? 2 : 1,
				       dst.addr + OFF, len, dst.mr->lkey);
		rx_post_recv(p.qp[1], 0x9000 + (uint64_t)_i, rsg, nr);
		if (ud) {
			wr.wr.ud.ah = p.ah[0];
			wr.wr.ud.remote_qpn = p.qp[1]->qp_num;
			wr.wr.ud.remote_qkey = RX_UD_QKEY;
		}
	} else if (c->opcode == IBV_WR_RDMA_WRITE_WITH_IMM) {
		/* consumes a receive WQE that needs no buffer */
		rx_post_recv(p.qp[1], 0x9000 + (uint64_t)_i, NULL, 0);
	}
	if (c->opcode == IBV_WR_RDMA_WRITE ||
	    c->opcode == IBV_WR_RDMA_WRITE_WITH_IMM ||
	    c->opcode == IBV_WR_RDMA_READ) {
		wr.wr.rdma.remote_addr = (uintptr_t)(dst.addr + OFF);
		wr.wr.rdma.rkey = dst.mr->rkey;
	}

	rx_post_send(p.qp[0], &wr);
	if (c->flags & C_INLINE) /* inline data was copied at post time */
		memset(src.addr, 0, buflen);

	/* the requester's completion */
	rx_wait_wc(p.scq[0], &wc);
	ck_assert_msg(wc.status == IBV_WC_SUCCESS, "send status %s",
		      ibv_wc_status_str(wc.status));
	ck_assert_uint_eq(wc.wr_id, wr.wr_id);
	ck_assert_uint_eq(wc.qp_num, p.qp[0]->qp_num);
	switch (c->opcode) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		ck_assert_int_eq(wc.opcode, IBV_WC_SEND);
		break;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		ck_assert_int_eq(wc.opcode, IBV_WC_RDMA_WRITE);
		break;
	case IBV_WR_RDMA_READ:
		ck_assert_int_eq(wc.opcode, IBV_WC_RDMA_READ);
		ck_assert_uint_eq(wc.byte_len, len);
		gather(ssg, ns, got);
		check_bytes(got, want, len, "RDMA read data");
		break;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		ck_assert_int_eq(wc.opcode, IBV_WC_FETCH_ADD);
		ck_assert_uint_eq(*(uint64_t *)(src.addr + OFF), 1000);
		ck_assert_uint_eq(*(uint64_t *)(dst.addr + OFF), 1005);
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		ck_assert_int_eq(wc.opcode, IBV_WC_COMP_SWAP);
		ck_assert_uint_eq(*(uint64_t *)(src.addr + OFF), 1000);
		ck_assert_uint_eq(*(uint64_t *)(dst.addr + OFF), 77);
		/* a compare that fails leaves the target alone */
		wr.wr.atomic.compare_add = 1000;
		wr.wr.atomic.swap = 99;
		rx_post_send(p.qp[0], &wr);
		rx_wait_wc(p.scq[0], &wc);
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		ck_assert_uint_eq(*(uint64_t *)(src.addr + OFF), 77);
		ck_assert_uint_eq(*(uint64_t *)(dst.addr + OFF), 77);
		break;
	default:
		break;
	}

	/* the responder's side */
	if (nr || c->opcode == IBV_WR_SEND || c->opcode == IBV_WR_SEND_WITH_IMM ||
	    c->opcode == IBV_WR_RDMA_WRITE_WITH_IMM) {
		rx_wait_wc(p.rcq[1], &wc);
		ck_assert_msg(wc.status == IBV_WC_SUCCESS, "recv status %s",
			      ibv_wc_status_str(wc.status));
		ck_assert_uint_eq(wc.wr_id, 0x9000 + (uint64_t)_i);
		ck_assert_uint_eq(wc.qp_num, p.qp[1]->qp_num);
		ck_assert_int_eq(wc.opcode,
				 c->opcode == IBV_WR_RDMA_WRITE_WITH_IMM ?
				 IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV);
		ck_assert_uint_eq(wc.byte_len, len + (ud ? RX_GRH : 0));
		ck_assert_int_eq(!!(wc.wc_flags & IBV_WC_WITH_IMM), has_imm);
		if (has_imm)
			ck_assert_uint_eq(wc.imm_data, imm);
		if (ud)
			ck_assert_uint_eq(wc.src_qp, p.qp[0]->qp_num);
	}
	if (c->opcode == IBV_WR_SEND || c->opcode == IBV_WR_SEND_WITH_IMM) {
		gather(rsg, nr, got);
		check_bytes(got + (ud ? RX_GRH : 0), want, len, "received data");
	}
	if (c->type == IBV_QPT_UC && c->opcode == IBV_WR_RDMA_WRITE) {
		/* UC: the requester completes a WRITE once its packets are
		 * sent, with no word from the responder, which may still be
		 * placing them (6.12's rxe runs it from a workqueue). A 0-byte
		 * SEND after it on the same QP: the responder handles a QP's
		 * packets in order, so its receive completion comes after
		 * the WRITE was placed. */
		struct ibv_send_wr fence = { .wr_id = 0x7000, .opcode = IBV_WR_SEND,
					     .send_flags = IBV_SEND_SIGNALED };

		rx_post_recv(p.qp[1], 0x9100, NULL, 0);
		rx_post_send(p.qp[0], &fence);
		rx_wait_wc(p.scq[0], &wc);
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		rx_wait_wc(p.rcq[1], &wc);
		ck_assert_msg(wc.status == IBV_WC_SUCCESS && wc.wr_id == 0x9100,
			      "the SEND after the UC WRITE: %s",
			      ibv_wc_status_str(wc.status));
	}
	if (c->opcode == IBV_WR_RDMA_WRITE ||
	    c->opcode == IBV_WR_RDMA_WRITE_WITH_IMM) {
		check_bytes(dst.addr + OFF, want, len, "written data");
		/* nothing outside the target range was touched */
		ck_assert_uint_eq(dst.addr[OFF - 1], 0xee);
		ck_assert_uint_eq(dst.addr[OFF + len], 0xee);
	}
	ck_assert(rx_cq_empty(p.scq[0]));
	ck_assert(rx_cq_empty(p.rcq[1]));

	free(want);
	free(got);
	rx_buf_free(&src);
	rx_buf_free(&dst);
	rx_pair_destroy(&p);
	rx_dev_close(&d);
}
END_TEST

/* A list of WRs in one post: all run, completions come in order, an
 * unsignaled WR gives none. */
START_TEST(test_chain)
{
	const int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	struct ibv_send_wr wr[4], *bad = NULL;
	struct ibv_sge sge[4];
	struct rx_buf src, dst;
	struct ibv_wc wc;
	struct rx_dev d;
	struct rx_pair p;

	rx_dev_open(&d);
	rx_pair_create(&d, &p, IBV_QPT_RC, NULL);
	rx_buf_alloc(&d, &src, 4096, acc);
	rx_buf_alloc(&d, &dst, 4096, acc);
	rx_fill(src.addr, 4096, 3);
	memset(wr, 0, sizeof(wr));
	for (int i = 0; i < 4; i++) {
		sge[i] = (struct ibv_sge){ (uintptr_t)(src.addr + i * 1024),
					   1024, src.mr->lkey };
		wr[i].wr_id = 100 + (uint64_t)i;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_RDMA_WRITE;
		/* the second one is unsignaled */
		wr[i].send_flags = i == 1 ? 0 : IBV_SEND_SIGNALED;
		wr[i].wr.rdma.remote_addr = (uintptr_t)(dst.addr + i * 1024);
		wr[i].wr.rdma.rkey = dst.mr->rkey;
		wr[i].next = i < 3 ? &wr[i + 1] : NULL;
	}
	ck_assert_int_eq(ibv_post_send(p.qp[0], wr, &bad), 0);
	for (int i = 0; i < 4; i++) {
		if (i == 1)
			continue;
		rx_wait_wc(p.scq[0], &wc);
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		ck_assert_uint_eq(wc.wr_id, 100 + (uint64_t)i);
	}
	ck_assert(rx_cq_empty(p.scq[0]));
	check_bytes(dst.addr, src.addr, 4096, "chained writes");
	rx_buf_free(&src);
	rx_buf_free(&dst);
	rx_pair_destroy(&p);
	rx_dev_close(&d);
}
END_TEST

/* Many more messages than the queues hold: indices wrap round. */
START_TEST(test_wraparound)
{
	const int acc = IBV_ACCESS_LOCAL_WRITE;
	struct rx_pair_opts o = { .max_send_wr = 4, .max_recv_wr = 4,
				  .cqe = 8 };
	struct ibv_sge ssg, rsg;
	struct ibv_send_wr wr;
	struct rx_buf src, dst;
	struct ibv_wc wc;
	struct rx_dev d;
	struct rx_pair p;

	rx_dev_open(&d);
	rx_pair_create(&d, &p, IBV_QPT_RC, &o);
	rx_buf_alloc(&d, &src, 256, acc);
	rx_buf_alloc(&d, &dst, 256, acc);
	for (unsigned int i = 0; i < 200; i++) {
		rx_fill(src.addr, 256, i);
		rsg = (struct ibv_sge){ (uintptr_t)dst.addr, 256, dst.mr->lkey };
		rx_post_recv(p.qp[1], i, &rsg, 1);
		ssg = (struct ibv_sge){ (uintptr_t)src.addr, 100 + i % 150,
					src.mr->lkey };
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = i;
		wr.sg_list = &ssg;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED;
		rx_post_send(p.qp[0], &wr);
		rx_wait_wc(p.scq[0], &wc);
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		ck_assert_uint_eq(wc.wr_id, i);
		rx_wait_wc(p.rcq[1], &wc);
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		ck_assert_uint_eq(wc.wr_id, i);
		ck_assert_uint_eq(wc.byte_len, ssg.length);
		check_bytes(dst.addr, src.addr, ssg.length, "message");
	}
	rx_buf_free(&src);
	rx_buf_free(&dst);
	rx_pair_destroy(&p);
	rx_dev_close(&d);
}
END_TEST

/* The ibv_wr_* send API and the ibv_start_poll CQ API: a batch of a
 * write, an inline send with immediate data and a fetch-and-add; an
 * aborted batch and a batch with a bad WR post nothing. */
START_TEST(test_ex_api)
{
	const int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_ATOMIC;
	struct rx_pair_opts o = {
		.send_ops = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_SEND |
			    IBV_QP_EX_WITH_SEND_WITH_IMM |
			    IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD,
		.cq_ex_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM |
			       IBV_WC_EX_WITH_QP_NUM,
	};
	struct ibv_poll_cq_attr pa = { 0 };
	struct ibv_sge sges[8];
	struct ibv_cq_ex *scq, *rcq;
	struct rx_buf src, dst;
	struct ibv_qp_ex *qpx;
	struct ibv_sge rsg;
	uint8_t msg[40];
	struct rx_dev d;
	struct rx_pair p;
	int n;

	rx_dev_open(&d);
	rx_pair_create(&d, &p, IBV_QPT_RC, &o);
	qpx = ibv_qp_to_qp_ex(p.qp[0]);
	ck_assert_ptr_nonnull(qpx);
	scq = p.scqx[0];
	rcq = p.rcqx[1];
	rx_buf_alloc(&d, &src, 8192, acc);
	rx_buf_alloc(&d, &dst, 8192, acc);
	rx_fill(src.addr, 8192, 21);
	rx_fill(msg, sizeof(msg), 22);
	*(uint64_t *)(dst.addr + 4096) = 40;
	rsg = (struct ibv_sge){ (uintptr_t)(dst.addr + 6000), 64, dst.mr->lkey };
	rx_post_recv(p.qp[1], 0x77, &rsg, 1);

	ibv_wr_start(qpx);
	qpx->wr_id = 1;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(qpx, dst.mr->rkey, (uintptr_t)dst.addr);
	ibv_wr_set_sge(qpx, src.mr->lkey, (uintptr_t)src.addr, 2000);
	qpx->wr_id = 2;
	ibv_wr_send_imm(qpx, htobe32(0xabcdef01));
	ibv_wr_set_inline_data(qpx, msg, sizeof(msg));
	qpx->wr_id = 3;
	ibv_wr_atomic_fetch_add(qpx, dst.mr->rkey, (uintptr_t)(dst.addr + 4096),
				2);
	ibv_wr_set_sge(qpx, src.mr->lkey, (uintptr_t)(src.addr + 4096), 8);
	memset(msg, 0, sizeof(msg)); /* inline data was copied */
	ck_assert_int_eq(ibv_wr_complete(qpx), 0);

	/* three send completions, in order, through the ex poll API */
	n = 0;
	for (int tries = 0; tries < 1000000 && n < 3; tries++) {
		int ret = ibv_start_poll(scq, &pa);

		if (ret == ENOENT)
			continue;
		ck_assert_int_eq(ret, 0);
		do {
			ck_assert_int_eq(scq->status, IBV_WC_SUCCESS);
			ck_assert_uint_eq(scq->wr_id, (uint64_t)++n);
			ck_assert_uint_eq(ibv_wc_read_qp_num(scq),
					  p.qp[0]->qp_num);
		} while (n < 3 && ibv_next_poll(scq) == 0);
		ibv_end_poll(scq);
	}
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(memcmp(dst.addr, src.addr, 2000), 0);
	ck_assert_uint_eq(*(uint64_t *)(src.addr + 4096), 40);
	ck_assert_uint_eq(*(uint64_t *)(dst.addr + 4096), 42);

	/* the receive, through the ex poll API too */
	for (int tries = 0; tries < 1000000; tries++)
		if (ibv_start_poll(rcq, &pa) == 0)
			break;
	ck_assert_int_eq(rcq->status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(rcq->wr_id, 0x77);
	ck_assert_int_eq(ibv_wc_read_opcode(rcq), IBV_WC_RECV);
	ck_assert_uint_eq(ibv_wc_read_byte_len(rcq), 40);
	ck_assert(ibv_wc_read_wc_flags(rcq) & IBV_WC_WITH_IMM);
	ck_assert_uint_eq(ibv_wc_read_imm_data(rcq), htobe32(0xabcdef01));
	ibv_end_poll(rcq);
	rx_fill(msg, sizeof(msg), 22);
	ck_assert_int_eq(memcmp(dst.addr + 6000, msg, sizeof(msg)), 0);

	/* an aborted batch posts nothing */
	ibv_wr_start(qpx);
	qpx->wr_id = 10;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, src.mr->lkey, (uintptr_t)src.addr, 8);
	ibv_wr_abort(qpx);
	/* nor does one with a bad WR in it, even the good WR before it */
	for (int i = 0; i < 8; i++)
		sges[i] = (struct ibv_sge){ (uintptr_t)src.addr, 8,
					    src.mr->lkey };
	ibv_wr_start(qpx);
	qpx->wr_id = 11;
	ibv_wr_rdma_write(qpx, dst.mr->rkey, (uintptr_t)dst.addr);
	ibv_wr_set_sge(qpx, src.mr->lkey, (uintptr_t)src.addr, 8);
	qpx->wr_id = 12;
	ibv_wr_rdma_write(qpx, dst.mr->rkey, (uintptr_t)dst.addr);
	ibv_wr_set_sge_list(qpx, 8, sges);
	ck_assert_int_eq(ibv_wr_complete(qpx), EINVAL);
	/* the queue still works, and the next completion is the next WR */
	ibv_wr_start(qpx);
	qpx->wr_id = 13;
	ibv_wr_rdma_write(qpx, dst.mr->rkey, (uintptr_t)dst.addr);
	ibv_wr_set_sge(qpx, src.mr->lkey, (uintptr_t)src.addr, 8);
	ck_assert_int_eq(ibv_wr_complete(qpx), 0);
	for (int tries = 0; tries < 1000000; tries++)
		if (ibv_start_poll(scq, &pa) == 0)
			break;
	ck_assert_uint_eq(scq->wr_id, 13);
	ck_assert_int_eq(scq->status, IBV_WC_SUCCESS);
	ibv_end_poll(scq);
	ck_assert(rx_cq_empty(p.scq[0]));

	rx_buf_free(&src);
	rx_buf_free(&dst);
	rx_pair_destroy(&p);
	rx_dev_close(&d);
}
END_TEST

/* A 1 GiB MR: writes land at its first and last bytes and in the middle,
 * and reads bring them back (addresses and lengths beyond 32 bits of
 * offset arithmetic, pages far from the start). */
START_TEST(test_1gib_mr)
{
	const size_t big = (size_t)1 << 30, chunk = 65536;
	const size_t offs[] = { 0, big / 2 + 12345, big - chunk };
	struct ibv_sge sge;
	struct ibv_send_wr wr;
	struct rx_buf src, back;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	struct rx_dev d;
	struct rx_pair p;
	uint8_t *mem;

	rx_dev_open(&d);
	rx_pair_create(&d, &p, IBV_QPT_RC, NULL);
	mem = mmap(NULL, big, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ck_assert_ptr_ne(mem, MAP_FAILED);
	mr = ibv_reg_mr(d.pd, mem, big, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	ck_assert_msg(mr, "ibv_reg_mr of 1 GiB: %s", strerror(errno));
	ck_assert_uint_eq(mr->length, big);
	rx_buf_alloc(&d, &src, chunk, IBV_ACCESS_LOCAL_WRITE);
	rx_buf_alloc(&d, &back, chunk, IBV_ACCESS_LOCAL_WRITE);

	for (unsigned int i = 0; i < 3; i++) {
		rx_fill(src.addr, chunk, 40 + i);
		sge = (struct ibv_sge){ (uintptr_t)src.addr, chunk,
					src.mr->lkey };
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = (uintptr_t)(mem + offs[i]);
		wr.wr.rdma.rkey = mr->rkey;
		rx_post_send(p.qp[0], &wr);
		rx_wait_wc(p.scq[0], &wc);
		ck_assert_msg(wc.status == IBV_WC_SUCCESS, "write: %s",
			      ibv_wc_status_str(wc.status));
		check_bytes(mem + offs[i], src.addr, chunk, "1 GiB MR write");

		sge = (struct ibv_sge){ (uintptr_t)back.addr, chunk,
					back.mr->lkey };
		wr.opcode = IBV_WR_RDMA_READ;
		rx_post_send(p.qp[0], &wr);
		rx_wait_wc(p.scq[0], &wc);
		ck_assert_msg(wc.status == IBV_WC_SUCCESS, "read: %s",
			      ibv_wc_status_str(wc.status));
		check_bytes(back.addr, src.addr, chunk, "1 GiB MR read");
	}
	rx_buf_free(&src);
	rx_buf_free(&back);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	munmap(mem, big);
	rx_pair_destroy(&p);
	rx_dev_close(&d);
}
END_TEST

#ifdef RX_PLUGIN
#define RX_OPS_PLUGIN 1
#else
#define RX_OPS_PLUGIN 0
#endif

static Suite *make_rxe_ops_suite(void)
{
	Suite *s = suite_create("rxe_ops");
	TCase *tc = tcase_create("opcodes");

	tcase_set_timeout(tc, 120);
	/* The plug-in build (test_plugin.sh) runs the same provider code
	 * on rdma-core's core, within a few seconds: the opcodes that go
	 * beyond a pingpong (RDMA write with immediate, read, atomics),
	 * not the 1 GiB pin (the core's work, rdma-core's there). */
	if (RX_OPS_PLUGIN)
		tcase_add_loop_test(tc, test_opcode, 12, 18);
	else
		tcase_add_loop_test(tc, test_opcode, 0, NCASES);
	tcase_add_test(tc, test_chain);
	tcase_add_test(tc, test_wraparound);
	tcase_add_test(tc, test_ex_api);
	if (!RX_OPS_PLUGIN)
		tcase_add_test(tc, test_1gib_mr);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	int pre = rx_precheck();

	if (pre)
		return pre;
	return check_run(make_rxe_ops_suite());
}
