/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* uroce's completion queues and completion channels.
 *
 * A CQ is a ring of struct ibv_wc in the process: the engine adds to it
 * (uroce_cq_push), the application polls it, both under the CQ's lock.
 * Sizes as rxe's queues: room for cqe completions in a ring of the next
 * power of two above cqe slots, so a CQ asked for 10 entries has 15
 * (rxe_queue_init); at most UROCE_MAX_CQE. A full CQ drops the
 * completion and raises IBV_EVENT_CQ_ERR, as rxe_cq_post does.
 *
 * Notification as rxe's: req_notify_cq arms the CQ for the next
 * completion, or for the next solicited one (never weakening a NEXT
 * already armed); the completion that matches disarms it and raises one
 * event on the CQ's channel.
 *
 * A channel (the device hooks of lib/registry.h: no kernel delivers our
 * events) is a queue of CQs with an undelivered event, and a pipe that
 * carries one byte per queued event: its read end is the channel's fd,
 * readable exactly while an event waits, so poll(2) and O_NONBLOCK work
 * as on the kernel's channel. ibv_get_cq_event takes a byte, then the
 * queue's head. A CQ holds at most one undelivered event (a notification
 * is one-shot), as the kernel's. Destroying a CQ withdraws its
 * undelivered event as the kernel does (ib_uverbs_release_ucq): its byte
 * stays in the pipe as a stale one, which the next reader skips. So the
 * fd may be readable with only stale bytes left, once, after such a
 * destroy: a blocking ibv_get_cq_event then waits for the next event,
 * a non-blocking one fails with EAGAIN.
 *
 * Events delivered (read) are counted per CQ: destroy_cq waits until the
 * application acknowledged them all (ibv_ack_cq_events), as the kernel's
 * DESTROY_CQ answer makes the core wait. A CQ_ERR event still unread in
 * the context's async pipe when its CQ is destroyed cannot be withdrawn:
 * the CQ's memory is kept (a zombie of the context) until
 * ibv_close_device, so that reading and acknowledging it stays safe.
 *
 * ibv_create_cq_ex gives the same CQ with the start_poll / next_poll /
 * end_poll API and rxe's read_* accessors (the section at the end); its
 * completions are the same ring's, so ibv_poll_cq, channels and
 * notification work on it unchanged. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uroce.h"

struct uroce_channel {
	struct ibv_comp_channel ch;   /* first; ch.fd the pipe's read end */
	int wr_fd;                    /* the pipe's write end; immutable */
	pthread_mutex_t lock;
	struct uroce_cq *head, *tail; /* CQs with an undelivered event; lock */
	unsigned int stale;           /* bytes of withdrawn events; lock */
};

static inline struct uroce_channel *to_uroce_channel(struct ibv_comp_channel *ch)
{
	return container_of(ch, struct uroce_channel, ch);
}

/* ---- channels -------------------------------------------------------------- */

struct ibv_comp_channel *uroce_create_comp_channel(struct ibv_context *ibctx)
{
	struct uroce_channel *uch = calloc(1, sizeof(*uch));
	int fds[2];

	(void)ibctx;
	if (!uch)
		return NULL;
	/* the kernel's channel fd is O_CLOEXEC too */
	if (pipe2(fds, O_CLOEXEC)) {
		int err = errno;

		free(uch);
		errno = err;
		return NULL;
	}
	/* the engine never blocks on a full pipe (it cannot be: one byte
	 * per CQ at most) */
	if (fcntl(fds[1], F_SETFL, O_NONBLOCK)) {
		int err = errno;

		close(fds[0]);
		close(fds[1]);
		free(uch);
		errno = err;
		return NULL;
	}
	uch->ch.fd = fds[0];
	uch->wr_fd = fds[1];
	pthread_mutex_init(&uch->lock, NULL);
	return &uch->ch;
}

void uroce_destroy_comp_channel(struct ibv_comp_channel *ch)
{
	struct uroce_channel *uch = to_uroce_channel(ch);

	close(uch->ch.fd);
	close(uch->wr_fd);
	pthread_mutex_destroy(&uch->lock);
	free(uch);
}

/* Queue cq's event, once. */
static void channel_raise(struct uroce_channel *uch, struct uroce_cq *cq)
{
	pthread_mutex_lock(&uch->lock);
	if (!cq->ev_queued) {
		if (write(uch->wr_fd, "", 1) != 1) {
			sv_err("uroce: completion channel: %s; event lost",
			       strerror(errno));
		} else {
			cq->ev_queued = true;
			cq->ev_next = NULL;
			if (uch->tail)
				uch->tail->ev_next = cq;
			else
				uch->head = cq;
			uch->tail = cq;
		}
	}
	pthread_mutex_unlock(&uch->lock);
}

int uroce_get_cq_event(struct ibv_comp_channel *ch, struct ibv_cq **out)
{
	struct uroce_channel *uch = to_uroce_channel(ch);

	for (;;) {
		struct uroce_cq *cq;
		char byte;
		ssize_t n = read(uch->ch.fd, &byte, 1);

		if (n < 0)
			return errno;
		if (n == 0)
			return EIO;
		pthread_mutex_lock(&uch->lock);
		if (uch->stale) {
			uch->stale--;
			pthread_mutex_unlock(&uch->lock);
			continue;
		}
		/* one byte per queued event, the stale ones aside */
		cq = uch->head;
		uch->head = cq->ev_next;
		if (!uch->head)
			uch->tail = NULL;
		cq->ev_queued = false;
		cq->comp_reported++;
		pthread_mutex_unlock(&uch->lock);
		*out = &cq->core.cq;
		return 0;
	}
}

/* ---- CQs ------------------------------------------------------------------- */

/* rxe's rule: cqe from 1 to max_cqe; the ring has the next power of two
 * above cqe slots. 0 or EINVAL. */
static int ring_slots(int cqe, uint32_t *nslots)
{
	uint32_t n = 1;

	if (cqe <= 0 || cqe > UROCE_MAX_CQE) {
		sv_err("uroce: cqe %d outside 1..%d", cqe, UROCE_MAX_CQE);
		return EINVAL;
	}
	while (n < (uint32_t)cqe + 1)
		n <<= 1;
	*nslots = n;
	return 0;
}

/* A CQ of cqe entries (plain or ex: the caller fills the ex part):
 * NULL and errno. */
static struct uroce_cq *cq_alloc(struct ibv_context *ibctx, int cqe,
				 struct ibv_comp_channel *channel)
{
	struct uroce_cq *cq;
	struct ibv_cq *ibcq;
	uint32_t nslots;
	int ret;

	ret = ring_slots(cqe, &nslots);
	if (ret)
		goto err;
	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		ret = ENOMEM;
		goto err;
	}
	cq->ring = calloc(nslots, sizeof(*cq->ring));
	if (!cq->ring) {
		free(cq);
		ret = ENOMEM;
		goto err;
	}
	cq->nslots = nslots;
	cq->channel = channel ? to_uroce_channel(channel) : NULL;
	pthread_mutex_init(&cq->lock, NULL);
	pthread_mutex_init(&cq->poll_lock, NULL);
	atomic_init(&cq->async_reported, 0);
	ibcq = &cq->core.cq;
	ibcq->context = ibctx;
	ibcq->channel = channel;
	ibcq->handle = (uint32_t)(uintptr_t)cq;
	ibcq->cqe = (int)nslots - 1;
	ibcq->comp_events_completed = 0;
	ibcq->async_events_completed = 0;
	pthread_mutex_init(&ibcq->mutex, NULL);
	pthread_cond_init(&ibcq->cond, NULL);
	return cq;

err:
	errno = ret;
	return NULL;
}

struct ibv_cq *uroce_create_cq(struct ibv_context *ibctx, int cqe,
			       struct ibv_comp_channel *channel,
			       int comp_vector)
{
	struct uroce_cq *cq;

	(void)comp_vector;
	cq = cq_alloc(ibctx, cqe, channel);
	return cq ? &cq->core.cq : NULL;
}

static void raise_cq_err(struct uroce_cq *cq)
{
	struct uroce_context *ctx = to_uroce_context(cq->core.cq.context);
	struct ib_uverbs_async_event_desc ev = {
		.element = (uintptr_t)&cq->core.cq,
		.event_type = IBV_EVENT_CQ_ERR,
	};

	if (write(ctx->async_wr_fd, &ev, sizeof(ev)) != (ssize_t)sizeof(ev)) {
		sv_err("uroce: async event CQ_ERR: %s; event lost",
		       strerror(errno));
		return;
	}
	cq->async_written++;
}

int uroce_cq_push(struct uroce_cq *cq, const struct ibv_wc *wc,
		  bool solicited)
{
	bool fire;

	pthread_mutex_lock(&cq->lock);
	if (cq->dead) {
		pthread_mutex_unlock(&cq->lock);
		return EINVAL;
	}
	if (cq->tail - cq->head == cq->nslots - 1) {
		sv_err("uroce: CQ of %u entries overflowed; completion dropped",
		       cq->nslots - 1);
		raise_cq_err(cq);
		pthread_mutex_unlock(&cq->lock);
		return EBUSY;
	}
	cq->ring[cq->tail & (cq->nslots - 1)] = *wc;
	cq->tail++;
	fire = cq->notify == UROCE_CQ_NOTIFY_NEXT ||
	       (cq->notify == UROCE_CQ_NOTIFY_SOLICITED && solicited);
	if (fire) {
		cq->notify = 0;
		if (cq->channel)
			channel_raise(cq->channel, cq);
	}
	pthread_mutex_unlock(&cq->lock);
	return 0;
}

static int take_wcs(struct uroce_cq *cq, int num_entries, struct ibv_wc *wc)
{
	int n = 0;

	pthread_mutex_lock(&cq->lock);
	while (n < num_entries && cq->head != cq->tail) {
		wc[n++] = cq->ring[cq->head & (cq->nslots - 1)];
		cq->head++;
	}
	pthread_mutex_unlock(&cq->lock);
	return n;
}

/* take_wcs for a poll that found the CQ empty: the caller busy-polls,
 * so it receives too, then takes again. */
static int take_wcs_progress(struct uroce_cq *cq, int num_entries,
			     struct ibv_wc *wc)
{
	int n;

	uroce_net_progress(to_uroce_context(cq->core.cq.context));
	n = take_wcs(cq, num_entries, wc);
	/* still empty: what it waits for needs another thread or process
	 * (the peer, the progress thread) to run; on a busy host, give it
	 * the CPU now rather than at the end of our time slice */
	if (!n)
		sched_yield();
	return n;
}

int uroce_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct uroce_cq *cq = to_uroce_cq(ibcq);
	int n;

	if (num_entries < 0)
		return -EINVAL;
	n = take_wcs(cq, num_entries, wc);
	if (n || !num_entries)
		return n;
	return take_wcs_progress(cq, num_entries, wc);
}

int uroce_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct uroce_cq *cq = to_uroce_cq(ibcq);

	pthread_mutex_lock(&cq->lock);
	if (cq->notify != UROCE_CQ_NOTIFY_NEXT)
		cq->notify = solicited_only ? UROCE_CQ_NOTIFY_SOLICITED :
					      UROCE_CQ_NOTIFY_NEXT;
	pthread_mutex_unlock(&cq->lock);
	return 0;
}

/* rxe's rule: the new size must hold what the CQ holds (EINVAL). */
int uroce_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct uroce_cq *cq = to_uroce_cq(ibcq);
	struct ibv_wc *ring;
	uint32_t nslots, count;
	int ret;

	ret = ring_slots(cqe, &nslots);
	if (ret)
		return ret;
	ring = calloc(nslots, sizeof(*ring));
	if (!ring)
		return ENOMEM;
	pthread_mutex_lock(&cq->lock);
	count = cq->tail - cq->head;
	if ((uint32_t)cqe < count) {
		pthread_mutex_unlock(&cq->lock);
		free(ring);
		sv_err("uroce: cannot resize a CQ holding %u completions to %d",
		       count, cqe);
		return EINVAL;
	}
	for (uint32_t i = 0; i < count; i++)
		ring[i] = cq->ring[(cq->head + i) & (cq->nslots - 1)];
	free(cq->ring);
	cq->ring = ring;
	cq->nslots = nslots;
	cq->head = 0;
	cq->tail = count;
	ibcq->cqe = (int)nslots - 1;
	pthread_mutex_unlock(&cq->lock);
	return 0;
}

static void cq_free(struct uroce_cq *cq)
{
	pthread_cond_destroy(&cq->core.cq.cond);
	pthread_mutex_destroy(&cq->core.cq.mutex);
	pthread_mutex_destroy(&cq->lock);
	pthread_mutex_destroy(&cq->poll_lock);
	free(cq->ring);
	free(cq);
}

int uroce_destroy_cq(struct ibv_cq *ibcq)
{
	struct uroce_cq *cq = to_uroce_cq(ibcq);
	struct uroce_context *ctx = to_uroce_context(ibcq->context);
	unsigned int comp_reported = 0, async_written;

	/* rxe's rule: not while a QP completes into it */
	if (atomic_load(&cq->qp_refs)) {
		sv_err("uroce: the CQ still serves %u QP(s): destroy them first",
		       atomic_load(&cq->qp_refs));
		return EBUSY;
	}

	pthread_mutex_lock(&cq->lock);
	cq->dead = true;
	cq->notify = 0;
	async_written = cq->async_written;
	pthread_mutex_unlock(&cq->lock);
	if (cq->channel) {
		struct uroce_channel *uch = cq->channel;

		pthread_mutex_lock(&uch->lock);
		if (cq->ev_queued) {
			struct uroce_cq **p = &uch->head, *prev = NULL;

			while (*p != cq) {
				prev = *p;
				p = &(*p)->ev_next;
			}
			*p = cq->ev_next;
			if (uch->tail == cq)
				uch->tail = prev;
			cq->ev_queued = false;
			uch->stale++;
		}
		comp_reported = cq->comp_reported;
		pthread_mutex_unlock(&uch->lock);
	}
	/* every event the application took must be acknowledged first
	 * (ibv_destroy_cq(3)) */
	pthread_mutex_lock(&ibcq->mutex);
	while (ibcq->comp_events_completed != comp_reported ||
	       ibcq->async_events_completed !=
		       atomic_load(&cq->async_reported))
		pthread_cond_wait(&ibcq->cond, &ibcq->mutex);
	pthread_mutex_unlock(&ibcq->mutex);
	if (atomic_load(&cq->async_reported) != async_written) {
		/* a CQ_ERR the application has not read yet */
		pthread_mutex_lock(&ctx->pd_lock);
		cq->zombie_next = ctx->zombies;
		ctx->zombies = cq;
		pthread_mutex_unlock(&ctx->pd_lock);
		return 0;
	}
	cq_free(cq);
	return 0;
}

void uroce_async_event(struct ibv_context *ibctx, struct ibv_async_event *ev)
{
	(void)ibctx;
	if (ev->event_type == IBV_EVENT_CQ_ERR)
		atomic_fetch_add(&to_uroce_cq(ev->element.cq)->async_reported, 1);
}

void uroce_cq_release_context(struct ibv_context *ibctx)
{
	struct uroce_context *ctx = to_uroce_context(ibctx);
	struct uroce_cq *cq = ctx->zombies;

	while (cq) {
		struct uroce_cq *next = cq->zombie_next;

		cq_free(cq);
		cq = next;
	}
	ctx->zombies = NULL;
}

/* ---- the ex poll API (ibv_create_cq_ex) ------------------------------------
 * A completion is taken from the ring (under the CQ's lock, as
 * ibv_poll_cq takes it) by start_poll and each next_poll, into cq->cur,
 * which the read_* accessors describe. The ring's lock is not held from
 * start_poll to end_poll, as rxe holds its CQ's: programs post sends
 * and receives between the two (ibv_rc_pingpong -t does), and uroce
 * completes UD and UC sends inside ibv_post_send, into this CQ, while the
 * progress thread completes with the QP's lock held. poll_lock, held
 * from start_poll to end_poll, keeps two threads' polls apart (cur is
 * one); the engine never takes it, and ibv_poll_cq needs only the ring's
 * lock, so a program may mix the two. */

static struct uroce_cq *cqx_to_uroce(struct ibv_cq_ex *cqx)
{
	return to_uroce_cq(ibv_cq_ex_to_cq(cqx));
}

static const struct ibv_wc *cur_of(struct ibv_cq_ex *cqx)
{
	return &cqx_to_uroce(cqx)->cur;
}

/* The wr_id and status of cq->cur, where ibv_cq_ex shows them. */
static void show_cur(struct uroce_cq *cq)
{
	cq->core.cq_ex.wr_id = cq->cur.wr_id;
	cq->core.cq_ex.status = cq->cur.status;
}

static int cq_start_poll(struct ibv_cq_ex *cqx, struct ibv_poll_cq_attr *attr)
{
	struct uroce_cq *cq = cqx_to_uroce(cqx);

	if (attr->comp_mask) {
		sv_err("uroce: ibv_start_poll: comp_mask %#x is not 0",
		       attr->comp_mask);
		return EINVAL;
	}
	pthread_mutex_lock(&cq->poll_lock);
	if (take_wcs(cq, 1, &cq->cur) || take_wcs_progress(cq, 1, &cq->cur)) {
		show_cur(cq);
		return 0;
	}
	/* ENOENT: the caller does not call end_poll */
	pthread_mutex_unlock(&cq->poll_lock);
	return ENOENT;
}

static int cq_next_poll(struct ibv_cq_ex *cqx)
{
	struct uroce_cq *cq = cqx_to_uroce(cqx);

	if (!take_wcs(cq, 1, &cq->cur))
		return ENOENT;
	show_cur(cq);
	return 0;
}

static void cq_end_poll(struct ibv_cq_ex *cqx)
{
	pthread_mutex_unlock(&cqx_to_uroce(cqx)->poll_lock);
}

static enum ibv_wc_opcode cq_read_opcode(struct ibv_cq_ex *cqx)
{
	return cur_of(cqx)->opcode;
}

static uint32_t cq_read_vendor_err(struct ibv_cq_ex *cqx)
{
	return cur_of(cqx)->vendor_err;
}

static unsigned int cq_read_wc_flags(struct ibv_cq_ex *cqx)
{
	return cur_of(cqx)->wc_flags;
}

static uint32_t cq_read_byte_len(struct ibv_cq_ex *cqx)
{
	return cur_of(cqx)->byte_len;
}

static __be32 cq_read_imm_data(struct ibv_cq_ex *cqx)
{
	return cur_of(cqx)->imm_data;
}

static uint32_t cq_read_qp_num(struct ibv_cq_ex *cqx)
{
	return cur_of(cqx)->qp_num;
}

static uint32_t cq_read_src_qp(struct ibv_cq_ex *cqx)
{
	return cur_of(cqx)->src_qp;
}

static uint32_t cq_read_slid(struct ibv_cq_ex *cqx)
{
	return cur_of(cqx)->slid;
}

static uint8_t cq_read_sl(struct ibv_cq_ex *cqx)
{
	return cur_of(cqx)->sl;
}

static uint8_t cq_read_dlid_path_bits(struct ibv_cq_ex *cqx)
{
	return cur_of(cqx)->dlid_path_bits;
}

/* rdma-core's rxe (RXE_SUP_WC_EX_FLAGS): what a struct ibv_wc answers;
 * no completion timestamps (rxe reports no completion_timestamp_mask) */
#define UROCE_CQ_EX_FLAGS                                                     \
	(IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM |                       \
	 IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP |                      \
	 IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL |                            \
	 IBV_WC_EX_WITH_DLID_PATH_BITS)

/* The attributes rxe refuses: a wc_flag it lacks (rdma-core's librxe),
 * a comp_mask past the flags, a create flag (the kernel's rxe_create_cq
 * takes none; SINGLE_THREADED is the library's, which may ignore it).
 * 0 or EOPNOTSUPP (logged). */
static int check_cq_ex(const struct ibv_cq_init_attr_ex *attr)
{
	if (attr->wc_flags & ~(uint64_t)UROCE_CQ_EX_FLAGS) {
		sv_err("uroce: completions carry no wc_flags %#llx (timestamps, flow tags, ...), as rxe's",
		       (unsigned long long)(attr->wc_flags &
					    ~(uint64_t)UROCE_CQ_EX_FLAGS));
		return EOPNOTSUPP;
	}
	if (attr->comp_mask & ~(uint32_t)IBV_CQ_INIT_ATTR_MASK_FLAGS) {
		sv_err("uroce: create_cq_ex comp_mask %#x: only IBV_CQ_INIT_ATTR_MASK_FLAGS is supported",
		       attr->comp_mask);
		return EOPNOTSUPP;
	}
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	    (attr->flags & ~(uint32_t)IBV_CREATE_CQ_ATTR_SINGLE_THREADED)) {
		sv_err("uroce: create_cq_ex flags %#x: rxe takes none (IGNORE_OVERRUN: EOPNOTSUPP)",
		       attr->flags);
		return EOPNOTSUPP;
	}
	return 0;
}

struct ibv_cq_ex *uroce_create_cq_ex(struct ibv_context *ibctx,
				     struct ibv_cq_init_attr_ex *attr)
{
	struct ibv_cq_ex *cqx;
	struct uroce_cq *cq;
	int ret;

	ret = check_cq_ex(attr);
	if (ret) {
		errno = ret;
		return NULL;
	}
	/* (the core has refused a cqe of 0 or above INT32_MAX) */
	cq = cq_alloc(ibctx, (int)attr->cqe, attr->channel);
	if (!cq)
		return NULL;
	cqx = &cq->core.cq_ex;
	cqx->start_poll = cq_start_poll;
	cqx->next_poll = cq_next_poll;
	cqx->end_poll = cq_end_poll;
	cqx->read_opcode = cq_read_opcode;
	cqx->read_vendor_err = cq_read_vendor_err;
	cqx->read_wc_flags = cq_read_wc_flags;
	if (attr->wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
		cqx->read_byte_len = cq_read_byte_len;
	if (attr->wc_flags & IBV_WC_EX_WITH_IMM)
		cqx->read_imm_data = cq_read_imm_data;
	if (attr->wc_flags & IBV_WC_EX_WITH_QP_NUM)
		cqx->read_qp_num = cq_read_qp_num;
	if (attr->wc_flags & IBV_WC_EX_WITH_SRC_QP)
		cqx->read_src_qp = cq_read_src_qp;
	if (attr->wc_flags & IBV_WC_EX_WITH_SLID)
		cqx->read_slid = cq_read_slid;
	if (attr->wc_flags & IBV_WC_EX_WITH_SL)
		cqx->read_sl = cq_read_sl;
	if (attr->wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS)
		cqx->read_dlid_path_bits = cq_read_dlid_path_bits;
	return cqx;
}
