/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The command layer against recorded layouts: the bytes each command
 * writes (header words, field offsets, driver trailers), how replies and
 * trailers are decoded, how kernel errors come back, and the ioctl
 * encoding with its fallback to the write command. The kernel's part is
 * played by hooks on sv_cmd_write_fn / sv_cmd_ioctl_fn. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core.h"

#include <softverbs/softverbs.h>

#include "../check_main.h"

#define FAKE_FD 77

/* ---- the fake kernel ----------------------------------------------------- */

static uint8_t last_cmd[1024];  /* the last write */
static size_t last_len;
static int writes;
static int write_errno;         /* fail the write with this */
static ssize_t write_short;     /* or return this count */
static uint8_t reply[512];      /* copied to the response pointer */
static size_t reply_len;
static int ioctl_errno;
/* the last ioctl's header and attributes, as the kernel would read them */
#define MAX_ATTRS 12
static struct {
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr attrs[MAX_ATTRS];
} last_ioctl;
static unsigned long last_request;

static uint32_t u32_at(const uint8_t *p, size_t off)
{
	uint32_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

static uint64_t u64_at(const uint8_t *p, size_t off)
{
	uint64_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

static ssize_t fake_write(int fd, const void *buf, size_t len)
{
	const uint8_t *b = buf;
	uint64_t resp;
	size_t out;

	ck_assert_int_eq(fd, FAKE_FD);
	ck_assert_uint_le(len, sizeof(last_cmd));
	memcpy(last_cmd, buf, len);
	last_len = len;
	writes++;
	if (write_errno) {
		errno = write_errno;
		return -1;
	}
	if (write_short)
		return write_short;
	/* the response address: after the header (legacy) or in the
	 * extended header */
	if (u32_at(b, 0) & IB_USER_VERBS_CMD_FLAG_EXTENDED) {
		resp = u64_at(b, 8);
		out = (size_t)(u32_at(b, 4) >> 16) * 8 +
		      (size_t)(u32_at(b, 18) & 0xffff) * 8;
	} else {
		resp = len >= 16 ? u64_at(b, 8) : 0;
		out = (size_t)(u32_at(b, 4) >> 16) * 4;
	}
	if (out && resp)
		memcpy((void *)(uintptr_t)resp, reply,
		       reply_len < out ? reply_len : out);
	return (ssize_t)len;
}

/* QUERY_PORT's answer: an active port whose extended speed is this
 * (kernels from 6.8 report active_speed_ex; 6.1 leaves it zero) */
static uint32_t port_speed_ex;

static int fake_ioctl(int fd, unsigned long request, void *arg)
{
	const struct ib_uverbs_ioctl_hdr *hdr = arg;

	ck_assert_int_eq(fd, FAKE_FD);
	last_request = request;
	/* only what was sent: the command's own buffer may be shorter */
	ck_assert_uint_le(hdr->length, sizeof(last_ioctl));
	memset(&last_ioctl, 0, sizeof(last_ioctl));
	memcpy(&last_ioctl, arg, hdr->length);
	if (ioctl_errno) {
		errno = ioctl_errno;
		return -1;
	}
	if (last_ioctl.hdr.object_id == UVERBS_OBJECT_DEVICE &&
	    last_ioctl.hdr.method_id == UVERBS_METHOD_QUERY_PORT) {
		uint8_t *out = (uint8_t *)(uintptr_t)last_ioctl.attrs[1].data;
		struct ib_uverbs_query_port_resp legacy = {
			.state = IBV_PORT_ACTIVE,
			.active_speed = 2,
		};
		uint16_t flags2 = 0x12;

		ck_assert_uint_eq(last_ioctl.attrs[1].len, 48);
		memset(out, 0, 48);
		memcpy(out, &legacy, sizeof(legacy));
		memcpy(out + 40, &flags2, sizeof(flags2));
		memcpy(out + 44, &port_speed_ex, sizeof(port_speed_ex));
	}
	return 0;
}

static struct sv_context *ctx;
static struct ibv_context *ibctx;

static void setup(void)
{
	ctx = calloc(1, sizeof(*ctx));
	ck_assert_ptr_nonnull(ctx);
	ctx->core.ops = sv_default_ops;
	ctx->core.layout = &sv_native_layout;
	ctx->core.driver_id = RDMA_DRIVER_RXE;
	ctx->vctx.sz = sizeof(ctx->vctx);
	ctx->vctx.priv = &ctx->core;
	ibctx = &ctx->vctx.context;
	ibctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
	ibctx->cmd_fd = FAKE_FD;
	ibctx->async_fd = -1;
	ibctx->num_comp_vectors = 1;
	pthread_mutex_init(&ibctx->mutex, NULL);
	sv_context_install_ops(&ctx->vctx);
	sv_cmd_write_fn = fake_write;
	sv_cmd_ioctl_fn = fake_ioctl;
	writes = 0;
	write_errno = 0;
	write_short = 0;
	ioctl_errno = 0;
	memset(reply, 0, sizeof(reply));
	reply_len = 0;
}

static void teardown(void)
{
	free(ctx);
}

static void set_reply(const void *data, size_t len)
{
	memcpy(reply, data, len);
	reply_len = len;
}

/* header: command, in_words (low 16 bits of word 1), out_words (high) */
static void assert_hdr(uint32_t command, unsigned int in_words,
		       unsigned int out_words)
{
	ck_assert_uint_eq(u32_at(last_cmd, 0), command);
	ck_assert_uint_eq(u32_at(last_cmd, 4) & 0xffff, in_words);
	ck_assert_uint_eq(u32_at(last_cmd, 4) >> 16, out_words);
}

/* ---- layouts ------------------------------------------------------------- */

START_TEST(header_sizes)
{
	ck_assert_uint_eq(sizeof(struct ib_uverbs_cmd_hdr), 8);
	ck_assert_uint_eq(sizeof(struct ib_uverbs_ex_cmd_hdr), 16);
	ck_assert_uint_eq(sizeof(struct ib_uverbs_ioctl_hdr), 24);
	ck_assert_uint_eq(sizeof(struct ib_uverbs_attr), 16);
}
END_TEST

START_TEST(get_context)
{
	const uint32_t r[2] = { 12, 3 }; /* async_fd, num_comp_vectors */

	set_reply(r, sizeof(r));
	ioctl_errno = ENOTTY; /* no QUERY_CONTEXT: nothing optional */
	ck_assert_int_eq(sv_cmd_get_context(ibctx, NULL), 0);
	ck_assert_uint_eq(last_len, 16);
	assert_hdr(0, 4, 2);
	ck_assert_int_eq(ibctx->async_fd, 12);
	ck_assert_int_eq(ibctx->num_comp_vectors, 3);
	ck_assert_uint_eq(ctx->core.core_support, 0);
}
END_TEST

START_TEST(alloc_pd_with_driver_trailers)
{
	const uint32_t r[3] = { 7, 0xaabbccdd, 0x11223344 };
	const uint64_t drv_req = 0x0102030405060708ULL;
	uint64_t drv_resp = 0;
	struct sv_udata udata = { &drv_req, 8, &drv_resp, 8, NULL };
	struct ibv_pd pd;

	set_reply(r, sizeof(r));
	ck_assert_int_eq(sv_cmd_alloc_pd(ibctx, &pd, &udata), 0);
	/* hdr + response + driver request; core reply 4 + driver 8 */
	ck_assert_uint_eq(last_len, 24);
	assert_hdr(3, 6, 3);
	ck_assert(u64_at(last_cmd, 16) == drv_req);
	ck_assert_uint_eq(pd.handle, 7);
	ck_assert_ptr_eq(pd.context, ibctx);
	/* the driver's reply starts right after the core's 4 bytes */
	ck_assert(drv_resp == 0x11223344aabbccddULL);
}
END_TEST

/* An on-demand-paging MR pins nothing: even when the kernel accepts it
 * (HCAs with ODP do), it never enters the fork-safety map; an ordinary
 * MR beside it does. Runs in its own child: fork safety on here only. */
START_TEST(odp_mr_never_enters_the_fork_map)
{
	const uint32_t r[3] = { 5, 0x100, 0x200 }; /* handle, lkey, rkey */
	struct ibv_pd pd = { .context = NULL, .handle = 9 };
	struct softverbs_fork_stats st;
	static char buf[8 * 4096] __attribute__((aligned(4096)));
	struct ibv_mr *odp, *pinned;

	pd.context = ibctx;
	ck_assert_int_eq(ibv_fork_init(), 0);
	set_reply(r, sizeof(r));
	odp = ibv_reg_mr(&pd, buf, sizeof(buf),
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
	ck_assert_ptr_nonnull(odp);
	/* the kernel saw the ODP bit */
	ck_assert_uint_eq(u32_at(last_cmd, 8 + 36),
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
	ck_assert_int_eq(softverbs_fork_stats(&st, sizeof(st)), 0);
	ck_assert_uint_eq(st.tracked_pages, 0);
	ck_assert_uint_eq(st.live_ranges, 0);
	pinned = ibv_reg_mr(&pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(pinned);
	ck_assert_int_eq(softverbs_fork_stats(&st, sizeof(st)), 0);
	ck_assert_uint_eq(st.tracked_pages, 1);
	ck_assert_int_eq(ibv_dereg_mr(odp), 0);
	ck_assert_int_eq(softverbs_fork_stats(&st, sizeof(st)), 0);
	ck_assert_uint_eq(st.tracked_pages, 1);
	ck_assert_int_eq(ibv_dereg_mr(pinned), 0);
	ck_assert_int_eq(softverbs_fork_stats(&st, sizeof(st)), 0);
	ck_assert_uint_eq(st.tracked_pages, 0);
}
END_TEST

/* With fork safety off an MR is only noted (lib/fork.c's hash set); the
 * stats build the map from the notes. Registrations and deregistrations
 * interleaved, past the set's growth and its rebuilds, leave the notes
 * of exactly the live MRs: one range each (each MR on its own page, a
 * page apart), none after the last deregistration. Runs in its own
 * child: nothing else registered. */
START_TEST(mr_notes_follow_reg_and_dereg)
{
	enum { N = 600 };
	const uint32_t r[3] = { 5, 0x100, 0x200 }; /* handle, lkey, rkey */
	struct ibv_pd pd = { .context = NULL, .handle = 9 };
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	static struct ibv_mr *mr[N];
	struct softverbs_fork_stats st;
	unsigned int live = 0;
	uint8_t *area;

	pd.context = ibctx;
	area = mmap(NULL, 2 * page * N, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(area, MAP_FAILED);
	set_reply(r, sizeof(r));
	for (unsigned int round = 0; round < 12; round++) {
		for (unsigned int i = 0; i < N; i++) {
			if (mr[i] && (i + round) % 5 == 0) {
				ck_assert_int_eq(ibv_dereg_mr(mr[i]), 0);
				mr[i] = NULL;
				live--;
			} else if (!mr[i] && (i + round) % 3 != 0) {
				mr[i] = ibv_reg_mr(&pd, area + 2 * page * i,
						   page, IBV_ACCESS_LOCAL_WRITE);
				ck_assert_ptr_nonnull(mr[i]);
				live++;
			}
		}
	}
	ck_assert_int_eq(softverbs_fork_stats(&st, sizeof(st)), 0);
	ck_assert_uint_eq(st.live_ranges, live);
	for (unsigned int i = 0; i < N; i++)
		if (mr[i])
			ck_assert_int_eq(ibv_dereg_mr(mr[i]), 0);
	ck_assert_int_eq(softverbs_fork_stats(&st, sizeof(st)), 0);
	ck_assert_uint_eq(st.live_ranges, 0);
	munmap(area, 2 * page * N);
}
END_TEST

START_TEST(reg_mr_layout)
{
	const uint32_t r[3] = { 5, 0x100, 0x200 }; /* handle, lkey, rkey */
	struct ibv_pd pd = { .context = NULL, .handle = 9 };
	struct sv_mr smr;
	struct ibv_mr *mr = &smr.mr;
	char buf[64];

	pd.context = ibctx;
	set_reply(r, sizeof(r));
	ck_assert_int_eq(sv_cmd_reg_mr(&pd, buf, sizeof(buf), 0x1000,
				       IBV_ACCESS_LOCAL_WRITE, &smr, NULL), 0);
	ck_assert_uint_eq(last_len, 8 + 40);
	assert_hdr(9, 12, 3);
	ck_assert(u64_at(last_cmd, 8 + 8) == (uintptr_t)buf);  /* start */
	ck_assert(u64_at(last_cmd, 8 + 16) == sizeof(buf));    /* length */
	ck_assert(u64_at(last_cmd, 8 + 24) == 0x1000);         /* hca_va */
	ck_assert_uint_eq(u32_at(last_cmd, 8 + 32), 9);        /* pd_handle */
	ck_assert_uint_eq(u32_at(last_cmd, 8 + 36), IBV_ACCESS_LOCAL_WRITE);
	ck_assert_uint_eq(mr->handle, 5);
	ck_assert_uint_eq(mr->lkey, 0x100);
	ck_assert_uint_eq(mr->rkey, 0x200);
	/* what ibv_dereg_mr needs to know about it */
	ck_assert_uint_eq(smr.mr_type, SV_MR_TYPE_MR);
	ck_assert_int_eq(smr.access, IBV_ACCESS_LOCAL_WRITE);
}
END_TEST

/* The built-in providers' dma-buf registration asks the kernel: its
 * answer (EOPNOTSUPP from the soft drivers) reaches the caller. */
START_TEST(reg_dmabuf_mr_reaches_the_kernel)
{
	struct ibv_pd pd = { .context = NULL, .handle = 9 };
	int fd_seen = -1;

	pd.context = ibctx;
	ioctl_errno = EOPNOTSUPP;
	errno = 0;
	ck_assert_ptr_null(sv_default_ops.reg_dmabuf_mr(&pd, 4096, 8192, 0, 33,
							IBV_ACCESS_LOCAL_WRITE));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_uint_eq(last_ioctl.hdr.object_id, UVERBS_OBJECT_MR);
	ck_assert_uint_eq(last_ioctl.hdr.method_id, UVERBS_METHOD_REG_DMABUF_MR);
	ck_assert_uint_eq(last_ioctl.hdr.driver_id, RDMA_DRIVER_RXE);
	for (int i = 0; i < last_ioctl.hdr.num_attrs && i < MAX_ATTRS; i++)
		if (last_ioctl.attrs[i].attr_id == UVERBS_ATTR_REG_DMABUF_MR_FD)
			fd_seen = (int)last_ioctl.attrs[i].data;
	ck_assert_int_eq(fd_seen, 33);
}
END_TEST

START_TEST(dereg_mr_has_no_reply)
{
	struct ibv_mr mr = { .context = NULL, .handle = 0x42 };

	mr.context = ibctx;
	ck_assert_int_eq(sv_cmd_dereg_mr(&mr), 0);
	ck_assert_uint_eq(last_len, 12);
	assert_hdr(13, 3, 0);
	ck_assert_uint_eq(u32_at(last_cmd, 8), 0x42);
}
END_TEST

START_TEST(create_cq_layout_and_reply)
{
	const uint32_t r[4] = { 3, 255, 0xdead, 0xbeef }; /* handle, cqe, drv */
	uint64_t drv = 0;
	struct sv_udata udata = { NULL, 0, &drv, 8, NULL };
	struct ibv_comp_channel ch = { .context = NULL, .fd = 33 };
	struct sv_cq cq;

	ch.context = ibctx;
	set_reply(r, sizeof(r));
	ck_assert_int_eq(sv_cmd_create_cq(ibctx, 100, &ch, 0, &cq, &udata), 0);
	ck_assert_uint_eq(last_len, 8 + 32);
	assert_hdr(18, 10, 4);
	ck_assert(u64_at(last_cmd, 16) == (uintptr_t)&cq.cq); /* user_handle */
	ck_assert_uint_eq(u32_at(last_cmd, 24), 100);          /* cqe */
	ck_assert_uint_eq(u32_at(last_cmd, 28), 0);            /* vector */
	ck_assert_int_eq((int32_t)u32_at(last_cmd, 32), 33);   /* channel */
	ck_assert_uint_eq(cq.cq.handle, 3);
	ck_assert_int_eq(cq.cq.cqe, 255);
	ck_assert_ptr_eq(cq.cq.channel, &ch);
	/* create_cq_resp is 8 bytes: the driver part starts there */
	ck_assert(drv == 0xbeef0000deadULL);
}
END_TEST

START_TEST(destroy_cq_waits_for_nothing_when_acked)
{
	const uint32_t r[2] = { 2, 0 }; /* comp and async events reported */
	struct sv_cq cq;

	memset(&cq, 0, sizeof(cq));
	cq.cq.context = ibctx;
	cq.cq.handle = 4;
	pthread_mutex_init(&cq.cq.mutex, NULL);
	pthread_cond_init(&cq.cq.cond, NULL);
	cq.cq.comp_events_completed = 2;
	set_reply(r, sizeof(r));
	ck_assert_int_eq(sv_cmd_destroy_cq(&cq.cq), 0);
	assert_hdr(20, 6, 2);
	ck_assert_uint_eq(u32_at(last_cmd, 16), 4);
}
END_TEST

START_TEST(modify_qp_layout)
{
	struct ibv_qp qp = { .context = NULL, .handle = 6 };
	struct ibv_qp_attr attr;

	qp.context = ibctx;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_INIT;
	attr.port_num = 1;
	attr.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	ck_assert_int_eq(sv_cmd_modify_qp(&qp, &attr, IBV_QP_STATE |
					  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
					  NULL), 0);
	ck_assert_uint_eq(sizeof(struct ib_uverbs_modify_qp), 112);
	assert_hdr(26, 30, 0);
	ck_assert_uint_eq(u32_at(last_cmd, 8 + 64), 6); /* qp_handle */
	ck_assert_uint_eq(u32_at(last_cmd, 8 + 68),
			  IBV_QP_STATE | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	ck_assert_uint_eq(u32_at(last_cmd, 8 + 88), IBV_ACCESS_REMOTE_WRITE);
	ck_assert_uint_eq(last_cmd[8 + 96], IBV_QPS_INIT); /* qp_state */
	ck_assert_uint_eq(last_cmd[8 + 104], 1);           /* port_num */
	ck_assert_int_eq(qp.state, IBV_QPS_INIT);
}
END_TEST

START_TEST(doorbell_is_an_empty_post_send)
{
	struct ibv_qp qp = { .context = NULL, .handle = 11 };

	qp.context = ibctx;
	ck_assert_int_eq(sv_cmd_post_send_doorbell(&qp), 0);
	ck_assert_uint_eq(last_len, 8 + 24);
	assert_hdr(28, 8, 1);
	ck_assert_uint_eq(u32_at(last_cmd, 16), 11); /* qp_handle */
	ck_assert_uint_eq(u32_at(last_cmd, 20), 0);  /* wr_count */
}
END_TEST

/* ---- extended commands ---------------------------------------------------- */

START_TEST(query_device_ex_layout)
{
	struct ib_uverbs_ex_query_device_resp r;
	struct ib_uverbs_ex_query_device_resp answer;
	struct ibv_device_attr_ex attr;

	memset(&r, 0, sizeof(r));
	r.base.max_qp = 1000;
	r.base.phys_port_cnt = 1;
	r.base.fw_ver = 0x0000000100020003ULL;
	r.response_length = sizeof(r);
	r.device_cap_flags_ex = 0x1223c76;
	set_reply(&r, sizeof(r));
	ck_assert_int_eq(sv_cmd_query_device_ex(ibctx, NULL, &attr,
						sizeof(attr), &answer), 0);
	ck_assert_uint_eq(u32_at(last_cmd, 0),
			  IB_USER_VERBS_CMD_FLAG_EXTENDED | 1);
	ck_assert_uint_eq(u32_at(last_cmd, 4) & 0xffff, 1); /* 8 bytes in */
	ck_assert_uint_eq(u32_at(last_cmd, 4) >> 16, sizeof(r) / 8);
	ck_assert_uint_eq(last_len, 8 + 16 + 8);
	ck_assert_int_eq(attr.orig_attr.max_qp, 1000);
	ck_assert(attr.device_cap_flags_ex == 0x1223c76);
	ck_assert_uint_eq(attr.phys_port_cnt_ex, 1);
	/* the raw reply, for providers that format fw_ver themselves */
	ck_assert(answer.base.fw_ver == 0x0000000100020003ULL);
	ck_assert_uint_eq(answer.response_length, sizeof(r));
}
END_TEST

START_TEST(query_device_ex_short_reply_is_rejected)
{
	struct ib_uverbs_ex_query_device_resp r;
	struct ibv_device_attr_ex attr;

	memset(&r, 0, sizeof(r));
	r.response_length = 4; /* not even the header fields */
	set_reply(&r, sizeof(r));
	ck_assert_int_eq(sv_cmd_query_device_ex(ibctx, NULL, &attr,
						sizeof(attr), NULL), EPROTO);
}
END_TEST

START_TEST(query_device_falls_back_to_legacy)
{
	struct ib_uverbs_query_device_resp r;
	struct ibv_device_attr_ex attr;

	memset(&r, 0, sizeof(r));
	r.max_cq = 77;
	/* the first (extended) write fails as on old kernels */
	write_errno = EOPNOTSUPP;
	set_reply(&r, sizeof(r));
	ck_assert_int_eq(sv_cmd_query_device_ex(ibctx, NULL, &attr,
						sizeof(attr), NULL),
			 EOPNOTSUPP);
	/* the legacy size asks the legacy command directly */
	write_errno = 0;
	ck_assert_int_eq(sv_cmd_query_device_ex(ibctx, NULL, &attr,
						sizeof(attr.orig_attr), NULL), 0);
	assert_hdr(1, 4, sizeof(r) / 4);
	ck_assert_int_eq(attr.orig_attr.max_cq, 77);
	/* and the public verb for old programs */
	memset(&attr, 0, sizeof(attr));
	ck_assert_int_eq(ibv_query_device(ibctx, &attr.orig_attr), 0);
	ck_assert_int_eq(attr.orig_attr.max_cq, 77);
}
END_TEST

START_TEST(input_comp_mask_is_einval)
{
	struct ibv_query_device_ex_input in = { .comp_mask = 1 };
	struct ibv_device_attr_ex attr;

	ck_assert_int_eq(sv_cmd_query_device_ex(ibctx, &in, &attr, sizeof(attr),
						NULL), EINVAL);
	ck_assert_int_eq(sv_cmd_query_device_ex(ibctx, NULL, &attr, 16, NULL),
			 EINVAL);
	ck_assert_int_eq(writes, 0);
}
END_TEST

/* ---- errors --------------------------------------------------------------- */

START_TEST(kernel_errors_come_back_negative)
{
	struct ibv_pd pd;

	write_errno = EMFILE;
	ck_assert_int_eq(sv_cmd_alloc_pd(ibctx, &pd, NULL), EMFILE);
	write_errno = 0;
	write_short = 3;
	ck_assert_int_eq(sv_cmd_alloc_pd(ibctx, &pd, NULL), EIO);
	/* and positive at the public boundary */
	write_short = 0;
	write_errno = ENOMEM;
	errno = 0;
	ck_assert_ptr_null(ibv_alloc_pd(ibctx));
	ck_assert_int_eq(errno, ENOMEM);
}
END_TEST

START_TEST(misaligned_sizes_are_refused)
{
	uint8_t req[12] = { 0 }, resp[8];
	uint8_t odd[3] = { 0 };
	struct sv_udata u = { odd, sizeof(odd), NULL, 0, NULL };

	ck_assert_int_eq(sv_cmd_write(ibctx, 3, req, 10, resp, 8, NULL),
			 EINVAL);
	ck_assert_int_eq(sv_cmd_write(ibctx, 3, req, 8, resp, 8, &u), EINVAL);
	ck_assert_int_eq(sv_cmd_write_ex(ibctx, 1, req, 12, resp, 8, NULL),
			 EINVAL);
	ck_assert_int_eq(writes, 0);
}
END_TEST

/* ---- ioctl ----------------------------------------------------------------- */

START_TEST(query_port_uses_ioctl)
{
	struct ibv_port_attr attr;

	memset(&attr, 0xff, sizeof(attr));
	ck_assert_int_eq(sv_cmd_query_port(ibctx, 1, &attr, sizeof(attr)), 0);
	ck_assert_uint_eq(last_request, RDMA_VERBS_IOCTL);
	ck_assert_uint_eq(last_ioctl.hdr.length, 24 + 2 * 16);
	ck_assert_uint_eq(last_ioctl.hdr.object_id, UVERBS_OBJECT_DEVICE);
	ck_assert_uint_eq(last_ioctl.hdr.method_id, UVERBS_METHOD_QUERY_PORT);
	ck_assert_uint_eq(last_ioctl.hdr.num_attrs, 2);
	ck_assert_uint_eq(last_ioctl.hdr.driver_id, RDMA_DRIVER_RXE);
	ck_assert_uint_eq(last_ioctl.attrs[0].attr_id,
			  UVERBS_ATTR_QUERY_PORT_PORT_NUM);
	ck_assert(last_ioctl.attrs[0].data == 1);
	ck_assert_uint_eq(last_ioctl.attrs[1].attr_id,
			  UVERBS_ATTR_QUERY_PORT_RESP);
	ck_assert_uint_eq(last_ioctl.attrs[1].len,
			  sizeof(struct ib_uverbs_query_port_resp_ex));
	ck_assert_int_eq(writes, 0);
}
END_TEST

START_TEST(query_port_falls_back_to_write)
{
	struct ib_uverbs_query_port_resp r;
	struct ibv_port_attr attr;

	memset(&r, 0, sizeof(r));
	r.state = IBV_PORT_ACTIVE;
	r.gid_tbl_len = 1024;
	r.link_layer = IBV_LINK_LAYER_ETHERNET;
	set_reply(&r, sizeof(r));
	ioctl_errno = ENOTTY;
	ck_assert_int_eq(sv_cmd_query_port(ibctx, 1, &attr, sizeof(attr)), 0);
	assert_hdr(2, 6, sizeof(r) / 4);
	ck_assert_uint_eq(last_cmd[16], 1); /* port_num */
	ck_assert_int_eq(attr.state, IBV_PORT_ACTIVE);
	ck_assert_int_eq(attr.gid_tbl_len, 1024);
	ck_assert_uint_eq(attr.link_layer, IBV_LINK_LAYER_ETHERNET);
	/* other kernel errors are not a reason to fall back */
	writes = 0;
	ioctl_errno = EINVAL;
	ck_assert_int_eq(sv_cmd_query_port(ibctx, 9, &attr, sizeof(attr)), EINVAL);
	ck_assert_int_eq(writes, 0);
}
END_TEST

/* rdma-core 49's struct (56 bytes) gets active_speed_ex; 44's (52)
 * nothing past its end, whatever verbs.h this was built with. */
START_TEST(query_port_speed_ex_by_size)
{
	uint8_t buf[64];
	uint32_t v;

	port_speed_ex = 0x40;
	memset(buf, 0xab, sizeof(buf));
	ck_assert_int_eq(sv_cmd_query_port(ibctx, 1, (struct ibv_port_attr *)buf,
					   SV_PORT_ATTR_SIZE), 0);
	memcpy(&v, buf + 52, sizeof(v));
	ck_assert_uint_eq(v, 0x40);
	ck_assert_uint_eq(((struct ibv_port_attr *)buf)->port_cap_flags2, 0x12);
	ck_assert_uint_eq(buf[56], 0xab);
	memset(buf, 0xab, sizeof(buf));
	ck_assert_int_eq(sv_cmd_query_port(ibctx, 1, (struct ibv_port_attr *)buf,
					   52), 0);
	ck_assert_uint_eq(((struct ibv_port_attr *)buf)->state, IBV_PORT_ACTIVE);
	ck_assert_uint_eq(buf[52], 0xab);
	/* a program's verbs_context.query_port of either size */
	memset(buf, 0xab, sizeof(buf));
	ck_assert_int_eq(ctx->vctx.query_port(ibctx, 1, (struct ibv_port_attr *)buf,
					      56), 0);
	memcpy(&v, buf + 52, sizeof(v));
	ck_assert_uint_eq(v, 0x40);
	memset(buf, 0xab, sizeof(buf));
	ck_assert_int_eq(ctx->vctx.query_port(ibctx, 1, (struct ibv_port_attr *)buf,
					      52), 0);
	ck_assert_uint_eq(buf[52], 0xab);
	/* too small for even the old struct: refused */
	ck_assert_int_eq(sv_cmd_query_port(ibctx, 1, (struct ibv_port_attr *)buf,
					   48), EINVAL);
	port_speed_ex = 0;
}
END_TEST

START_TEST(short_port_attr_for_old_programs)
{
	struct ibv_port_attr full;
	uint8_t old[64];

	memset(old, 0xab, sizeof(old));
	ioctl_errno = 0;
	/* the exported @IBVERBS_1.1 symbol fills only the old layout */
	ck_assert_int_eq((ibv_query_port)(ibctx, 1,
					  (struct _compat_ibv_port_attr *)old),
			 0);
	ck_assert_uint_eq(old[SV_COMPAT_PORT_ATTR_SIZE], 0xab);
	ck_assert_uint_eq(old[SV_COMPAT_PORT_ATTR_SIZE - 1], 0);
	/* the verbs_context slot takes the caller's size */
	ck_assert_int_eq(ctx->vctx.query_port(ibctx, 1, &full, sizeof(full)), 0);
	memset(old, 0xab, sizeof(old));
	ck_assert_int_eq(ctx->vctx.query_port(ibctx, 1,
					      (struct ibv_port_attr *)old, 20),
			 0);
	ck_assert_uint_eq(old[20], 0xab);
}
END_TEST

START_TEST(gid_entry_ioctl_layout)
{
	struct ibv_gid_entry e;

	ck_assert_int_eq(sv_query_gid_entry(ibctx, 1, 5, &e), 0);
	ck_assert_uint_eq(last_ioctl.hdr.method_id,
			  UVERBS_METHOD_QUERY_GID_ENTRY);
	ck_assert_uint_eq(last_ioctl.hdr.num_attrs, 4);
	ck_assert(last_ioctl.attrs[0].data == 1);
	ck_assert(last_ioctl.attrs[1].data == 5);
	ck_assert_uint_eq(last_ioctl.attrs[3].len,
			  sizeof(struct ib_uverbs_gid_entry));
	/* an empty entry: the kernel's ENODATA reaches the caller */
	ioctl_errno = ENODATA;
	ck_assert_int_eq(sv_query_gid_entry(ibctx, 1, 6, &e), ENODATA);
}
END_TEST

static Suite *make_cmd_suite(void)
{
	Suite *s = suite_create("cmd");
	TCase *tc = tcase_create("layouts");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, header_sizes);
	tcase_add_test(tc, get_context);
	tcase_add_test(tc, alloc_pd_with_driver_trailers);
	tcase_add_test(tc, reg_mr_layout);
	tcase_add_test(tc, dereg_mr_has_no_reply);
	tcase_add_test(tc, reg_dmabuf_mr_reaches_the_kernel);
	tcase_add_test(tc, odp_mr_never_enters_the_fork_map);
	tcase_add_test(tc, mr_notes_follow_reg_and_dereg);
	tcase_add_test(tc, create_cq_layout_and_reply);
	tcase_add_test(tc, destroy_cq_waits_for_nothing_when_acked);
	tcase_add_test(tc, modify_qp_layout);
	tcase_add_test(tc, doorbell_is_an_empty_post_send);
	tcase_add_test(tc, query_device_ex_layout);
	tcase_add_test(tc, query_device_ex_short_reply_is_rejected);
	tcase_add_test(tc, query_device_falls_back_to_legacy);
	tcase_add_test(tc, input_comp_mask_is_einval);
	tcase_add_test(tc, kernel_errors_come_back_negative);
	tcase_add_test(tc, misaligned_sizes_are_refused);
	tcase_add_test(tc, query_port_uses_ioctl);
	tcase_add_test(tc, query_port_falls_back_to_write);
	tcase_add_test(tc, query_port_speed_ex_by_size);
	tcase_add_test(tc, short_port_attr_for_old_programs);
	tcase_add_test(tc, gid_entry_ioctl_layout);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(make_cmd_suite());
}
