/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* uroce's shared receive queues (basic SRQs; no XRC, no tag matching,
 * as rxe).
 *
 * An SRQ is a ring of receive WQEs that any QP created with it takes
 * from: the responder (uroce_resp.c) moves the head WQE into the QP
 * when a message starts needing one (uroce_srq_take), so the ring moves
 * on while the QP fills it; a QP that goes to the error state completes
 * the WQE it holds with IBV_WC_WR_FLUSH_ERR, and leaves the SRQ's others
 * to the QPs still using it (IBTA 10.2.9.5).
 *
 * The limit (srq_limit, armed by ibv_modify_srq(IBV_SRQ_LIMIT); 0 is
 * disarmed): when a take leaves fewer WQEs than the limit, the context
 * gets IBV_EVENT_SRQ_LIMIT_REACHED once, and the limit is disarmed, as
 * rxe. ibv_destroy_srq waits until the application acknowledged every
 * such event (ibv_ack_async_event), as rdma-core's does; it is EBUSY
 * while QPs use the SRQ. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/ib_user_verbs.h>

#include "uroce.h"

/* A ring of at least max_wr WQEs of max_sge SGEs each: 0 or ENOMEM. */
static int ring_alloc(struct uroce_srq *srq, uint32_t max_wr,
		      struct uroce_rwqe **rq, struct ibv_sge **sge)
{
	uint32_t slots = max_wr ? max_wr : 1;

	*rq = calloc(slots, sizeof(**rq));
	*sge = calloc((size_t)slots * (srq->max_sge + 1), sizeof(**sge));
	if (!*rq || !*sge) {
		free(*rq);
		free(*sge);
		return ENOMEM;
	}
	for (uint32_t i = 0; i < slots; i++)
		(*rq)[i].sge = *sge + (size_t)i * (srq->max_sge + 1);
	return 0;
}

static int check_attr(const struct ibv_srq_attr *a)
{
	if (a->max_wr > UROCE_MAX_SRQ_WR || a->max_sge > UROCE_MAX_SRQ_SGE) {
		sv_err("uroce: SRQ max_wr %u or max_sge %u above rxe's limits (%d, %d)",
		       a->max_wr, a->max_sge, UROCE_MAX_SRQ_WR, UROCE_MAX_SRQ_SGE);
		return EINVAL;
	}
	if (a->srq_limit > a->max_wr) {
		sv_err("uroce: SRQ srq_limit %u above max_wr %u", a->srq_limit,
		       a->max_wr);
		return EINVAL;
	}
	return 0;
}

static struct ibv_srq *srq_create(struct ibv_pd *pd, struct ibv_srq_attr *a,
				  void *srq_context)
{
	struct uroce_context *ctx = to_uroce_context(pd->context);
	struct ibv_srq *ibsrq;
	struct uroce_srq *srq;
	int ret = check_attr(a);

	if (ret)
		goto err;
	srq = calloc(1, sizeof(*srq));
	if (!srq) {
		ret = ENOMEM;
		goto err;
	}
	srq->ctx = ctx;
	srq->max_sge = a->max_sge ? a->max_sge : 1;
	srq->slots = a->max_wr ? a->max_wr : 1;
	srq->limit = a->srq_limit;
	ret = ring_alloc(srq, srq->slots, &srq->rq, &srq->rq_sge);
	if (ret) {
		free(srq);
		goto err;
	}
	pthread_mutex_init(&srq->lock, NULL);
	ibsrq = &srq->core.srq;
	ibsrq->context = pd->context;
	ibsrq->srq_context = srq_context;
	ibsrq->pd = pd;
	ibsrq->handle = (uint32_t)(uintptr_t)srq;
	ibsrq->events_completed = 0;
	pthread_mutex_init(&ibsrq->mutex, NULL);
	pthread_cond_init(&ibsrq->cond, NULL);
	srq->core.srq_type = IBV_SRQT_BASIC;
	pthread_mutex_lock(&ctx->pd_lock);
	srq->next = ctx->srqs;
	ctx->srqs = srq;
	pthread_mutex_unlock(&ctx->pd_lock);
	a->max_wr = srq->slots;
	a->max_sge = srq->max_sge;
	return ibsrq;

err:
	errno = ret;
	return NULL;
}

struct ibv_srq *uroce_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	return srq_create(pd, &attr->attr, attr->srq_context);
}

struct ibv_srq *uroce_create_srq_ex(struct ibv_context *ibctx,
				    struct ibv_srq_init_attr_ex *attr)
{
	uint32_t known = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE;

	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd ||
	    attr->pd->context != ibctx) {
		sv_err("uroce: ibv_create_srq_ex needs a PD of this context (IBV_SRQ_INIT_ATTR_PD)");
		errno = EINVAL;
		return NULL;
	}
	if ((attr->comp_mask & ~known) ||
	    ((attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) &&
	     attr->srq_type != IBV_SRQT_BASIC)) {
		sv_err("uroce: only basic SRQs (comp_mask %#x, type %d)",
		       attr->comp_mask, (int)attr->srq_type);
		errno = EOPNOTSUPP;
		return NULL;
	}
	return srq_create(attr->pd, &attr->attr, attr->srq_context);
}

int uroce_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		     int attr_mask)
{
	struct uroce_srq *srq = to_uroce_srq(ibsrq);
	struct uroce_rwqe *rq = NULL, *old_rq;
	struct ibv_sge *sge = NULL, *old_sge;
	uint32_t slots = 0;
	int ret = 0;

	if ((attr_mask & IBV_SRQ_MAX_WR) &&
	    (attr->max_wr == 0 || attr->max_wr > UROCE_MAX_SRQ_WR)) {
		sv_err("uroce: SRQ max_wr %u out of range", attr->max_wr);
		return EINVAL;
	}
	if (attr_mask & IBV_SRQ_MAX_WR) {
		slots = attr->max_wr;
		/* allocated before the lock is taken */
		ret = ring_alloc(srq, slots, &rq, &sge);
		if (ret)
			return ret;
	}
	pthread_mutex_lock(&srq->lock);
	if ((attr_mask & IBV_SRQ_LIMIT) &&
	    attr->srq_limit > ((attr_mask & IBV_SRQ_MAX_WR) ? slots : srq->slots)) {
		sv_err("uroce: SRQ srq_limit %u above max_wr", attr->srq_limit);
		ret = EINVAL;
	} else if ((attr_mask & IBV_SRQ_MAX_WR) && srq->tail - srq->head > slots) {
		sv_err("uroce: SRQ max_wr %u below the %u WQEs it holds", slots,
		       srq->tail - srq->head);
		ret = EINVAL;
	}
	if (ret) {
		pthread_mutex_unlock(&srq->lock);
		free(rq);
		free(sge);
		return ret;
	}
	if (attr_mask & IBV_SRQ_MAX_WR) {
		uint32_t n = srq->tail - srq->head;

		for (uint32_t i = 0; i < n; i++) {
			const struct uroce_rwqe *w = &srq->rq[(srq->head + i) % srq->slots];

			rq[i].wr_id = w->wr_id;
			rq[i].num_sge = w->num_sge;
			memcpy(rq[i].sge, w->sge, sizeof(*w->sge) * w->num_sge);
		}
		old_rq = srq->rq;
		old_sge = srq->rq_sge;
		srq->rq = rq;
		srq->rq_sge = sge;
		srq->slots = slots;
		srq->head = 0;
		srq->tail = n;
		rq = old_rq;
		sge = old_sge;
	}
	if (attr_mask & IBV_SRQ_LIMIT)
		srq->limit = attr->srq_limit;
	pthread_mutex_unlock(&srq->lock);
	free(rq);
	free(sge);
	return 0;
}

int uroce_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct uroce_srq *srq = to_uroce_srq(ibsrq);

	pthread_mutex_lock(&srq->lock);
	attr->max_wr = srq->slots;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = srq->limit;
	pthread_mutex_unlock(&srq->lock);
	return 0;
}

static void srq_free(struct uroce_srq *srq)
{
	pthread_mutex_destroy(&srq->lock);
	pthread_cond_destroy(&srq->core.srq.cond);
	pthread_mutex_destroy(&srq->core.srq.mutex);
	free(srq->rq);
	free(srq->rq_sge);
	free(srq);
}

void uroce_srq_release_context(struct uroce_context *ctx)
{
	while (ctx->srqs) {
		struct uroce_srq *next = ctx->srqs->next;

		srq_free(ctx->srqs);
		ctx->srqs = next;
	}
}

int uroce_destroy_srq(struct ibv_srq *ibsrq)
{
	struct uroce_srq *srq = to_uroce_srq(ibsrq);
	struct uroce_context *ctx = srq->ctx;
	unsigned int written;

	if (atomic_load(&srq->qp_refs)) {
		sv_err("uroce: destroy_srq: %u QPs still use the SRQ",
		       atomic_load(&srq->qp_refs));
		return EBUSY;
	}
	pthread_mutex_lock(&srq->lock);
	written = srq->async_written;
	pthread_mutex_unlock(&srq->lock);
	/* every SRQ_LIMIT_REACHED event acknowledged, as rdma-core waits */
	pthread_mutex_lock(&ibsrq->mutex);
	while (ibsrq->events_completed != written)
		pthread_cond_wait(&ibsrq->cond, &ibsrq->mutex);
	pthread_mutex_unlock(&ibsrq->mutex);
	pthread_mutex_lock(&ctx->pd_lock);
	for (struct uroce_srq **p = &ctx->srqs; *p; p = &(*p)->next) {
		if (*p == srq) {
			*p = srq->next;
			break;
		}
	}
	pthread_mutex_unlock(&ctx->pd_lock);
	srq_free(srq);
	return 0;
}

static int post_one(struct uroce_srq *srq, const struct ibv_recv_wr *wr)
{
	struct uroce_rwqe *w;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > srq->max_sge) {
		sv_err("uroce: SRQ: num_sge %d above max_sge %u", wr->num_sge,
		       srq->max_sge);
		return EINVAL;
	}
	if (srq->tail - srq->head == srq->slots) {
		sv_err("uroce: SRQ full (%u WRs)", srq->slots);
		return ENOMEM;
	}
	w = &srq->rq[srq->tail % srq->slots];
	w->wr_id = wr->wr_id;
	w->num_sge = (uint32_t)wr->num_sge;
	if (wr->num_sge) /* a receive without SGEs may have no sg_list */
		memcpy(w->sge, wr->sg_list, sizeof(*wr->sg_list) * (size_t)wr->num_sge);
	srq->tail++;
	return 0;
}

int uroce_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr)
{
	struct uroce_srq *srq = to_uroce_srq(ibsrq);
	int ret = 0;

	pthread_mutex_lock(&srq->lock);
	for (; wr; wr = wr->next) {
		ret = post_one(srq, wr);
		if (ret) {
			*bad_wr = wr;
			break;
		}
	}
	pthread_mutex_unlock(&srq->lock);
	return ret;
}

/* IBV_EVENT_SRQ_LIMIT_REACHED to the context (srq->lock held) */
static void limit_event(struct uroce_srq *srq)
{
	struct ib_uverbs_async_event_desc ev = {
		.element = (uintptr_t)&srq->core.srq,
		.event_type = IBV_EVENT_SRQ_LIMIT_REACHED,
	};

	if (write(srq->ctx->async_wr_fd, &ev, sizeof(ev)) != (ssize_t)sizeof(ev)) {
		sv_err("uroce: async event SRQ_LIMIT_REACHED: %s; event lost",
		       strerror(errno));
		return;
	}
	srq->async_written++;
}

bool uroce_srq_take(struct uroce_srq *srq, struct uroce_rwqe *into)
{
	const struct uroce_rwqe *w;

	pthread_mutex_lock(&srq->lock);
	if (srq->head == srq->tail) {
		pthread_mutex_unlock(&srq->lock);
		return false;
	}
	w = &srq->rq[srq->head % srq->slots];
	into->wr_id = w->wr_id;
	into->num_sge = w->num_sge;
	memcpy(into->sge, w->sge, sizeof(*w->sge) * w->num_sge);
	srq->head++;
	if (srq->limit && srq->tail - srq->head < srq->limit) {
		srq->limit = 0;
		limit_event(srq);
	}
	pthread_mutex_unlock(&srq->lock);
	return true;
}
