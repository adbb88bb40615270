/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* uroce's MRs and CQs on the host (SOFTVERBS_UROCE=lo; no VM, no root):
 * registration through the public verbs, the keys (random, distinct,
 * dead for good after deregistration), the checks the responder will
 * make (uroce_mr_check), fork safety through the core's range map, and
 * the CQ ring the engine fills (uroce_cq_push) with its completion
 * channel and overflow event. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "../check_main.h"
#include "uroce_isolate.h"
#include "core.h"
#include "fork.h"
#include "uroce.h"

static struct ibv_device **dev_list;
static struct ibv_context *ctx;
static struct ibv_pd *pd;

static void open_uroce(void)
{
	setenv("SOFTVERBS_UROCE", "lo", 1);
	dev_list = ibv_get_device_list(NULL);
	ck_assert_ptr_nonnull(dev_list);
	for (struct ibv_device **d = dev_list; *d; d++)
		if (!strcmp(ibv_get_device_name(*d), "uroce0"))
			ctx = ibv_open_device(*d);
	ck_assert_ptr_nonnull(ctx);
	pd = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(pd);
}

static void close_uroce(void)
{
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
	ibv_free_device_list(dev_list);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* ---- MRs ------------------------------------------------------------------ */

START_TEST(key_permutation_is_a_bijection)
{
	for (uint32_t x = 0; x < 100000; x++)
		ck_assert_uint_eq(uroce_key_unpermute(uroce_key_permute(x)), x);
	ck_assert_uint_eq(uroce_key_unpermute(uroce_key_permute(0xffffffffu)),
			  0xffffffffu);
}
END_TEST

START_TEST(keys_random_and_distinct)
{
	enum { N = 1000 };
	static char buf[N];
	static struct ibv_mr *mr[N];
	static uint32_t keys[N];
	unsigned int top[256] = { 0 }, ntop = 0;

	open_uroce();
	for (int i = 0; i < N; i++) {
		mr[i] = ibv_reg_mr(pd, buf + i, 1,
				   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
		ck_assert_ptr_nonnull(mr[i]);
		ck_assert_uint_ne(mr[i]->lkey, 0);
		/* lkey == rkey for an MR that grants a remote access (rxe) */
		ck_assert_uint_eq(mr[i]->rkey, mr[i]->lkey);
		ck_assert_ptr_eq(mr[i]->addr, buf + i);
		ck_assert_uint_eq(mr[i]->length, 1);
		keys[i] = mr[i]->lkey;
		if (!top[keys[i] >> 24]++)
			ntop++;
	}
	qsort(keys, N, sizeof(keys[0]), cmp_u32);
	for (int i = 1; i < N; i++)
		ck_assert_uint_ne(keys[i], keys[i - 1]);
	/* consecutive registrations, keys all over the space: 1,000 keys
	 * uniform over 2^32 leave fewer than 230 of 256 top bytes empty
	 * with overwhelming odds; a counter would fill one or two */
	ck_assert_uint_gt(ntop, 200);
	for (int i = 0; i < N; i++)
		ck_assert_int_eq(ibv_dereg_mr(mr[i]), 0);
	close_uroce();
}
END_TEST

START_TEST(rkey_zero_without_remote_access)
{
	char buf[64];
	struct ibv_mr *mr;

	open_uroce();
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(mr);
	ck_assert_uint_ne(mr->lkey, 0);
	ck_assert_uint_eq(mr->rkey, 0);
	/* rereg: access flags (the rkey follows) and the PD; not a new range */
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
				      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE), 0);
	ck_assert_uint_eq(mr->rkey, mr->lkey);
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL,
				      buf, 8, 0), IBV_REREG_MR_ERR_CMD);
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	close_uroce();
}
END_TEST

START_TEST(bounds_and_access)
{
	const uint64_t iova = 0x100000000ULL;
	static char buf[4096];
	enum uroce_mr_fault f;
	struct uroce_mr *m;
	struct ibv_pd *other;
	struct ibv_mr *mr;
	uint32_t k;

	open_uroce();
	other = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(other);
	mr = ibv_reg_mr_iova(pd, buf, sizeof(buf), iova,
			     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	ck_assert_ptr_nonnull(mr);
	k = mr->rkey;

	m = uroce_mr_check(pd, k, iova, 4096, IBV_ACCESS_REMOTE_READ, &f);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(f, UROCE_MR_OK);
	ck_assert_ptr_eq(uroce_mr_ptr(m, iova + 100), buf + 100);
	uroce_mr_put(m);
	/* both ends, by one byte */
	ck_assert_ptr_nonnull(m = uroce_mr_check(pd, k, iova + 4095, 1, 0, &f));
	uroce_mr_put(m);
	ck_assert_ptr_null(uroce_mr_check(pd, k, iova - 1, 1, 0, &f));
	ck_assert_int_eq(f, UROCE_MR_BAD_RANGE);
	ck_assert_ptr_null(uroce_mr_check(pd, k, iova - 1, 4096, 0, &f));
	ck_assert_int_eq(f, UROCE_MR_BAD_RANGE);
	ck_assert_ptr_null(uroce_mr_check(pd, k, iova + 1, 4096, 0, &f));
	ck_assert_int_eq(f, UROCE_MR_BAD_RANGE);
	ck_assert_ptr_null(uroce_mr_check(pd, k, iova + 4096, 1, 0, &f));
	ck_assert_int_eq(f, UROCE_MR_BAD_RANGE);
	ck_assert_ptr_null(uroce_mr_check(pd, k, iova, 4097, 0, &f));
	ck_assert_int_eq(f, UROCE_MR_BAD_RANGE);
	ck_assert_ptr_null(uroce_mr_check(pd, k, UINT64_MAX, 2, 0, &f));
	ck_assert_int_eq(f, UROCE_MR_BAD_RANGE);
	/* zero bytes at the end is inside; past it is not */
	ck_assert_ptr_nonnull(m = uroce_mr_check(pd, k, iova + 4096, 0, 0, &f));
	uroce_mr_put(m);
	ck_assert_ptr_null(uroce_mr_check(pd, k, iova + 4097, 0, 0, &f));
	/* access it does not grant */
	ck_assert_ptr_null(uroce_mr_check(pd, k, iova, 8, IBV_ACCESS_REMOTE_WRITE, &f));
	ck_assert_int_eq(f, UROCE_MR_BAD_ACCESS);
	ck_assert_ptr_null(uroce_mr_check(pd, k, iova, 8, IBV_ACCESS_REMOTE_ATOMIC, &f));
	ck_assert_int_eq(f, UROCE_MR_BAD_ACCESS);
	ck_assert_ptr_null(uroce_mr_check(pd, k, iova, 8,
					  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE, &f));
	ck_assert_int_eq(f, UROCE_MR_BAD_ACCESS);
	ck_assert_ptr_nonnull(m = uroce_mr_check(pd, k, iova, 8, IBV_ACCESS_LOCAL_WRITE, &f));
	uroce_mr_put(m);
	/* another PD, another key */
	ck_assert_ptr_null(uroce_mr_check(other, k, iova, 8, 0, &f));
	ck_assert_int_eq(f, UROCE_MR_BAD_PD);
	ck_assert_ptr_null(uroce_mr_check(pd, k ^ 1, iova, 8, 0, &f));
	ck_assert_int_eq(f, UROCE_MR_BAD_KEY);
	ck_assert_ptr_null(uroce_mr_check(pd, 0, iova, 8, 0, &f));
	ck_assert_int_eq(f, UROCE_MR_BAD_KEY);

	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert_ptr_null(uroce_mr_check(pd, k, iova, 8, 0, &f));
	ck_assert_int_eq(f, UROCE_MR_BAD_KEY);
	ck_assert_int_eq(ibv_dealloc_pd(other), 0);
	close_uroce();
}
END_TEST

START_TEST(dead_keys_stay_dead)
{
	enum { N = 10000 };
	static uint32_t keys[N];
	char buf[16];
	enum uroce_mr_fault f;

	open_uroce();
	for (int i = 0; i < N; i++) {
		struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf),
					       IBV_ACCESS_LOCAL_WRITE |
					       IBV_ACCESS_REMOTE_WRITE);

		ck_assert_ptr_nonnull(mr);
		keys[i] = mr->rkey;
		ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	}
	/* one live MR, in the slot they all used */
	struct ibv_mr *live = ibv_reg_mr(pd, buf, sizeof(buf),
					 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	ck_assert_ptr_nonnull(live);
	for (int i = 0; i < N; i++) {
		ck_assert_ptr_null(uroce_mr_check(pd, keys[i], (uintptr_t)buf, 1,
						  IBV_ACCESS_REMOTE_WRITE, &f));
		ck_assert_int_eq(f, UROCE_MR_BAD_KEY);
		ck_assert_uint_ne(keys[i], live->rkey);
	}
	qsort(keys, N, sizeof(keys[0]), cmp_u32);
	for (int i = 1; i < N; i++)
		ck_assert_uint_ne(keys[i], keys[i - 1]);
	ck_assert_int_eq(ibv_dereg_mr(live), 0);
	close_uroce();
}
END_TEST

START_TEST(invalid_registrations)
{
	char buf[64];

	open_uroce();
	/* IBTA 10.6.3.1, as rxe: remote write or atomic need local write */
	ck_assert_ptr_null(ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_REMOTE_WRITE));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_REMOTE_ATOMIC));
	ck_assert_int_eq(errno, EINVAL);
	/* what rxe does not do either */
	ck_assert_ptr_null(ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_ON_DEMAND));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_ptr_null(ibv_reg_mr(pd, buf, sizeof(buf),
				      IBV_ACCESS_ZERO_BASED | IBV_ACCESS_LOCAL_WRITE));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	/* an iova range that wraps */
	ck_assert_ptr_null(ibv_reg_mr_iova(pd, buf, sizeof(buf), UINT64_MAX - 8, 0));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(ibv_reg_mr(NULL, buf, sizeof(buf), 0));
	ck_assert_int_eq(errno, EINVAL);
	close_uroce();
}
END_TEST

/* Does /proc/self/smaps give the mapping at addr VmFlags "dc"? That is
 * MADV_DONTFORK's VM_DONTCOPY ("dd" is VM_DONTDUMP, MADV_DONTDUMP's). */
static int dontfork(const void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	int in = 0, dd = -1;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			in = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
			continue;
		}
		if (in && !strncmp(line, "VmFlags:", 8)) {
			dd = strstr(line, " dc") != NULL;
			break;
		}
	}
	fclose(f);
	ck_assert_int_ge(dd, 0);
	return dd;
}

START_TEST(fork_safety_through_the_core)
{
	long ps = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 3 * ps, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct ibv_mr *mr;

	ck_assert_ptr_ne(p, MAP_FAILED);
	/* read at the first device listing, as rdma-core */
	setenv("RDMAV_FORK_SAFE", "1", 1);
	/* whatever the kernel says of copy-on-fork (the map's rule) */
	sv_fork_set_copy_on_fork(0);
	open_uroce();
	ck_assert_int_eq(dontfork(p + ps), 0);
	mr = ibv_reg_mr(pd, p + ps, ps, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(mr);
	ck_assert_int_eq(dontfork(p + ps), 1);
	ck_assert_int_eq(dontfork(p), 0);
	ck_assert_int_eq(dontfork(p + 2 * ps), 0);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert_int_eq(dontfork(p + ps), 0);
	/* a registration the provider refuses leaves nothing behind */
	ck_assert_ptr_null(ibv_reg_mr(pd, p + ps, ps, IBV_ACCESS_ZERO_BASED));
	ck_assert_int_eq(dontfork(p + ps), 0);
	close_uroce();
	munmap(p, 3 * ps);
}
END_TEST

/* ---- CQs ------------------------------------------------------------------ */

static struct ibv_wc wc_of(uint64_t id)
{
	return (struct ibv_wc){ .wr_id = id, .status = IBV_WC_SUCCESS,
				.opcode = IBV_WC_RECV, .byte_len = (uint32_t)id };
}

static int readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0);
}

START_TEST(cq_sizes_and_order)
{
	struct ibv_wc wc[8];
	struct ibv_cq *cq;
	struct ibv_wc w;

	open_uroce();
	/* rxe's sizes: the next power of two, less one */
	cq = ibv_create_cq(ctx, 10, NULL, NULL, 0);
	ck_assert_ptr_nonnull(cq);
	ck_assert_int_eq(cq->cqe, 15);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ck_assert_ptr_null(ibv_create_cq(ctx, UROCE_MAX_CQE + 1, NULL, NULL, 0));
	ck_assert_int_eq(errno, EINVAL);
	cq = ibv_create_cq(ctx, UROCE_MAX_CQE, NULL, NULL, 0);
	ck_assert_ptr_nonnull(cq);
	ck_assert_int_eq(cq->cqe, UROCE_MAX_CQE);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);

	cq = ibv_create_cq(ctx, 4, (void *)0x1234, NULL, 0);
	ck_assert_ptr_nonnull(cq);
	ck_assert_int_eq(cq->cqe, 7);
	ck_assert_ptr_eq(cq->cq_context, (void *)0x1234);
	ck_assert_int_eq(ibv_poll_cq(cq, 8, wc), 0);
	for (uint64_t i = 1; i <= 5; i++) {
		w = wc_of(i);
		ck_assert_int_eq(uroce_cq_push(to_uroce_cq(cq), &w, false), 0);
	}
	ck_assert_int_eq(ibv_poll_cq(cq, 2, wc), 2);
	ck_assert_uint_eq(wc[0].wr_id, 1);
	ck_assert_uint_eq(wc[1].wr_id, 2);
	/* around the ring's end */
	for (uint64_t i = 6; i <= 9; i++) {
		w = wc_of(i);
		ck_assert_int_eq(uroce_cq_push(to_uroce_cq(cq), &w, false), 0);
	}
	/* resize keeps what it holds, in order; not below it */
	ck_assert_int_eq(ibv_resize_cq(cq, 6), EINVAL);
	ck_assert_int_eq(ibv_resize_cq(cq, 20), 0);
	ck_assert_int_eq(cq->cqe, 31);
	ck_assert_int_eq(ibv_poll_cq(cq, 8, wc), 7);
	for (int i = 0; i < 7; i++) {
		ck_assert_uint_eq(wc[i].wr_id, (uint64_t)i + 3);
		ck_assert_uint_eq(wc[i].byte_len, (uint32_t)i + 3);
	}
	ck_assert_int_eq(ibv_poll_cq(cq, 8, wc), 0);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	close_uroce();
}
END_TEST

START_TEST(cq_overflow_raises_cq_err)
{
	struct ibv_async_event ev;
	struct ibv_wc wc[4], w = wc_of(1);
	struct ibv_cq *cq, *lost;

	open_uroce();
	cq = ibv_create_cq(ctx, 1, NULL, NULL, 0);
	ck_assert_ptr_nonnull(cq);
	ck_assert_int_eq(cq->cqe, 1);
	ck_assert_int_eq(readable(ctx->async_fd), 0);
	ck_assert_int_eq(uroce_cq_push(to_uroce_cq(cq), &w, false), 0);
	w.wr_id = 2;
	ck_assert_int_eq(uroce_cq_push(to_uroce_cq(cq), &w, false), EBUSY);
	ck_assert_int_eq(readable(ctx->async_fd), 1);
	ck_assert_int_eq(ibv_get_async_event(ctx, &ev), 0);
	ck_assert_int_eq(ev.event_type, IBV_EVENT_CQ_ERR);
	ck_assert_ptr_eq(ev.element.cq, cq);
	ibv_ack_async_event(&ev);
	/* the first completion is kept, the one that did not fit dropped */
	ck_assert_int_eq(ibv_poll_cq(cq, 4, wc), 1);
	ck_assert_uint_eq(wc[0].wr_id, 1);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);

	/* destroyed with its CQ_ERR unread: kept until close, the event
	 * still readable */
	lost = ibv_create_cq(ctx, 1, NULL, NULL, 0);
	ck_assert_ptr_nonnull(lost);
	ck_assert_int_eq(uroce_cq_push(to_uroce_cq(lost), &w, false), 0);
	ck_assert_int_eq(uroce_cq_push(to_uroce_cq(lost), &w, false), EBUSY);
	ck_assert_int_eq(ibv_destroy_cq(lost), 0);
	ck_assert_int_eq(ibv_get_async_event(ctx, &ev), 0);
	ck_assert_ptr_eq(ev.element.cq, lost);
	ibv_ack_async_event(&ev);
	close_uroce();
}
END_TEST

START_TEST(channel_events)
{
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq, *got;
	struct ibv_wc wc[4], w = wc_of(7);
	void *got_ctx;

	open_uroce();
	ch = ibv_create_comp_channel(ctx);
	ck_assert_ptr_nonnull(ch);
	ck_assert_int_ge(ch->fd, 0);
	ck_assert_int_ne(fcntl(ch->fd, F_GETFD) & FD_CLOEXEC, 0);
	cq = ibv_create_cq(ctx, 8, (void *)0xc0ffee, ch, 0);
	ck_assert_ptr_nonnull(cq);
	ck_assert_ptr_eq(cq->channel, ch);

	/* not notified: no event */
	ck_assert_int_eq(uroce_cq_push(to_uroce_cq(cq), &w, false), 0);
	ck_assert_int_eq(readable(ch->fd), 0);
	/* notified: one event for the next completion */
	ck_assert_int_eq(ibv_req_notify_cq(cq, 0), 0);
	ck_assert_int_eq(readable(ch->fd), 0);
	ck_assert_int_eq(uroce_cq_push(to_uroce_cq(cq), &w, false), 0);
	ck_assert_int_eq(readable(ch->fd), 1);
	ck_assert_int_eq(uroce_cq_push(to_uroce_cq(cq), &w, false), 0);
	ck_assert_int_eq(ibv_get_cq_event(ch, &got, &got_ctx), 0);
	ck_assert_ptr_eq(got, cq);
	ck_assert_ptr_eq(got_ctx, (void *)0xc0ffee);
	ck_assert_int_eq(readable(ch->fd), 0);
	ibv_ack_cq_events(cq, 1);
	ck_assert_int_eq(ibv_poll_cq(cq, 4, wc), 3);

	/* solicited only: an unsolicited completion does not fire it */
	ck_assert_int_eq(ibv_req_notify_cq(cq, 1), 0);
	ck_assert_int_eq(uroce_cq_push(to_uroce_cq(cq), &w, false), 0);
	ck_assert_int_eq(readable(ch->fd), 0);
	ck_assert_int_eq(uroce_cq_push(to_uroce_cq(cq), &w, true), 0);
	ck_assert_int_eq(readable(ch->fd), 1);
	ck_assert_int_eq(ibv_get_cq_event(ch, &got, &got_ctx), 0);
	ck_assert_ptr_eq(got, cq);
	ibv_ack_cq_events(cq, 1);

	/* a non-blocking channel with nothing in it */
	ck_assert_int_eq(fcntl(ch->fd, F_SETFL, O_NONBLOCK), 0);
	ck_assert_int_eq(ibv_get_cq_event(ch, &got, &got_ctx), -1);
	ck_assert_int_eq(errno, EAGAIN);

	/* a channel in use cannot go */
	ck_assert_int_eq(ibv_destroy_comp_channel(ch), EBUSY);
	/* destroyed with an event undelivered: the event goes with it */
	ck_assert_int_eq(ibv_req_notify_cq(cq, 0), 0);
	ck_assert_int_eq(uroce_cq_push(to_uroce_cq(cq), &w, false), 0);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ck_assert_int_eq(ibv_get_cq_event(ch, &got, &got_ctx), -1);
	ck_assert_int_eq(errno, EAGAIN);
	ck_assert_int_eq(readable(ch->fd), 0);
	ck_assert_int_eq(ibv_destroy_comp_channel(ch), 0);
	close_uroce();
}
END_TEST

START_TEST(channel_of_two_cqs)
{
	struct ibv_comp_channel *ch;
	struct ibv_cq *a, *b, *got;
	struct ibv_wc w = wc_of(1);
	void *got_ctx;

	open_uroce();
	ch = ibv_create_comp_channel(ctx);
	ck_assert_ptr_nonnull(ch);
	a = ibv_create_cq(ctx, 4, NULL, ch, 0);
	b = ibv_create_cq(ctx, 4, NULL, ch, 0);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(ibv_req_notify_cq(a, 0), 0);
	ck_assert_int_eq(ibv_req_notify_cq(b, 0), 0);
	ck_assert_int_eq(uroce_cq_push(to_uroce_cq(b), &w, false), 0);
	ck_assert_int_eq(uroce_cq_push(to_uroce_cq(a), &w, false), 0);
	/* in the order they fired; blocking reads (events are there) */
	ck_assert_int_eq(ibv_get_cq_event(ch, &got, &got_ctx), 0);
	ck_assert_ptr_eq(got, b);
	ck_assert_int_eq(ibv_get_cq_event(ch, &got, &got_ctx), 0);
	ck_assert_ptr_eq(got, a);
	ibv_ack_cq_events(a, 1);
	ibv_ack_cq_events(b, 1);
	ck_assert_int_eq(ibv_destroy_cq(a), 0);
	ck_assert_int_eq(ibv_destroy_cq(b), 0);
	ck_assert_int_eq(ibv_destroy_comp_channel(ch), 0);
	close_uroce();
}
END_TEST

static Suite *make_uroce_mr_suite(void)
{
	Suite *s = suite_create("uroce_mr");
	TCase *tc;

	tc = tcase_create("mr");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, key_permutation_is_a_bijection);
	tcase_add_test(tc, keys_random_and_distinct);
	tcase_add_test(tc, rkey_zero_without_remote_access);
	tcase_add_test(tc, bounds_and_access);
	tcase_add_test(tc, dead_keys_stay_dead);
	tcase_add_test(tc, invalid_registrations);
	tcase_add_test(tc, fork_safety_through_the_core);
	suite_add_tcase(s, tc);

	tc = tcase_create("cq");
	tcase_add_test(tc, cq_sizes_and_order);
	tcase_add_test(tc, cq_overflow_raises_cq_err);
	tcase_add_test(tc, channel_events);
	tcase_add_test(tc, channel_of_two_cqs);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	uroce_isolate();
	return check_run(make_uroce_mr_suite());
}
