/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Completion channels and events, asynchronous events. A channel is the
 * kernel's (CREATE_COMP_CHANNEL, events read from its fd), or, on a
 * device no kernel knows, its driver's (the channel hooks of struct
 * sv_device_hooks): the same verbs either way. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "core.h"
#include "probe.h"

static int valid_ctx(struct ibv_context *ctx)
{
	return ctx && ctx->abi_compat == __VERBS_ABI_IS_EXTENDED;
}

/* The driver's hooks when the device's channels are its driver's (a
 * device no kernel knows: struct sv_device_hooks), else NULL. */
static const struct sv_device_hooks *channel_hooks(struct ibv_context *ctx)
{
	struct sv_sysfs_dev *s = sv_device_sysfs(ctx->device);

	return s && s->hooks && s->hooks->create_comp_channel ? s->hooks : NULL;
}

SV_EXPORT struct ibv_comp_channel *
ibv_create_comp_channel(struct ibv_context *context)
{
	struct ib_uverbs_create_comp_channel req = { 0 };
	struct ib_uverbs_create_comp_channel_resp resp = { 0 };
	const struct sv_device_hooks *hooks;
	struct ibv_comp_channel *ch;
	int ret;

	if (!valid_ctx(context)) {
		errno = EINVAL;
		return NULL;
	}
	ret = sv_inherit_check(context, "ibv_create_comp_channel");
	if (ret) {
		errno = ret;
		return NULL;
	}
	hooks = channel_hooks(context);
	if (hooks) {
		ch = hooks->create_comp_channel(context);
		if (!ch)
			return NULL;
		ch->context = context;
		ch->refcnt = 0;
		return ch;
	}
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return NULL;
	ret = sv_cmd_write(context, IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL,
			   &req, sizeof(req), &resp, sizeof(resp), NULL);
	if (ret) {
		free(ch);
		errno = ret;
		return NULL;
	}
	ch->context = context;
	ch->fd = (int)resp.fd;
	ch->refcnt = 0;
	return ch;
}

SV_EXPORT int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	const struct sv_device_hooks *hooks;
	struct ibv_context *ctx;
	int busy;

	if (!channel || !valid_ctx(channel->context))
		return EINVAL;
	ctx = channel->context;
	pthread_mutex_lock(&ctx->mutex);
	busy = channel->refcnt != 0;
	pthread_mutex_unlock(&ctx->mutex);
	if (busy) {
		sv_err("completion channel still used by %d CQ(s)",
		       channel->refcnt);
		return EBUSY;
	}
	hooks = channel_hooks(ctx);
	if (hooks) {
		hooks->destroy_comp_channel(channel);
		return 0;
	}
	close(channel->fd);
	free(channel);
	return 0;
}

/* 0, or -1 with errno (ibv_get_cq_event(3)). */
SV_EXPORT int ibv_get_cq_event(struct ibv_comp_channel *channel,
			       struct ibv_cq **cq, void **cq_context)
{
	const struct sv_device_hooks *hooks;
	struct ib_uverbs_comp_event_desc ev;
	struct ibv_cq *c;
	ssize_t n;

	if (!channel || !cq || !cq_context) {
		errno = EINVAL;
		return -1;
	}
	/* the channel's file is the parent's too: its events are the
	 * parent's */
	if (valid_ctx(channel->context) && sv_inherit_check(channel->context, "ibv_get_cq_event")) {
		errno = EPERM;
		return -1;
	}
	hooks = valid_ctx(channel->context) ? channel_hooks(channel->context) :
					      NULL;
	if (hooks) {
		int ret = hooks->get_cq_event(channel, &c);

		if (ret) {
			errno = ret;
			return -1;
		}
	} else {
		n = read(channel->fd, &ev, sizeof(ev));
		if (n != (ssize_t)sizeof(ev)) {
			if (n >= 0)
				errno = EIO;
			return -1;
		}
		/* the CQ's address is its user handle (lib/cmd_cq.c) */
		c = (struct ibv_cq *)(uintptr_t)ev.cq_handle;
	}
	*cq = c;
	*cq_context = c->cq_context;
	sv_priv(c->context)->ops.cq_event(c);
	return 0;
}

SV_EXPORT void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	if (!cq)
		return;
	pthread_mutex_lock(&cq->mutex);
	cq->comp_events_completed += nevents;
	pthread_cond_signal(&cq->cond);
	pthread_mutex_unlock(&cq->mutex);
}

/* 0, or -1 with errno (ibv_get_async_event(3)). */
SV_EXPORT int ibv_get_async_event(struct ibv_context *context,
				  struct ibv_async_event *event)
{
	struct ib_uverbs_async_event_desc ev;
	ssize_t n;

	if (!valid_ctx(context) || !event) {
		errno = EINVAL;
		return -1;
	}
	if (sv_inherit_check(context, "ibv_get_async_event")) {
		errno = EPERM;
		return -1;
	}
	n = read(context->async_fd, &ev, sizeof(ev));
	if (n != (ssize_t)sizeof(ev)) {
		if (n >= 0)
			errno = EIO;
		return -1;
	}
	event->event_type = (enum ibv_event_type)ev.event_type;
	switch (event->event_type) {
	case IBV_EVENT_CQ_ERR:
		event->element.cq = (struct ibv_cq *)(uintptr_t)ev.element;
		break;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		event->element.qp = (struct ibv_qp *)(uintptr_t)ev.element;
		break;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		event->element.srq = (struct ibv_srq *)(uintptr_t)ev.element;
		break;
	case IBV_EVENT_WQ_FATAL:
		event->element.wq = (struct ibv_wq *)(uintptr_t)ev.element;
		break;
	default:
		event->element.port_num = (int)ev.element;
		break;
	}
	sv_priv(context)->ops.async_event(context, event);
	SV_PROBE(softverbs, async_event, context->device->name,
		 (int)event->event_type, ev.element);
	return 0;
}

SV_EXPORT void ibv_ack_async_event(struct ibv_async_event *event)
{
	if (!event)
		return;
	switch (event->event_type) {
	case IBV_EVENT_CQ_ERR: {
		struct ibv_cq *cq = event->element.cq;

		pthread_mutex_lock(&cq->mutex);
		cq->async_events_completed++;
		pthread_cond_signal(&cq->cond);
		pthread_mutex_unlock(&cq->mutex);
		break;
	}
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED: {
		struct ibv_qp *qp = event->element.qp;

		pthread_mutex_lock(&qp->mutex);
		qp->events_completed++;
		pthread_cond_signal(&qp->cond);
		pthread_mutex_unlock(&qp->mutex);
		break;
	}
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED: {
		struct ibv_srq *srq = event->element.srq;

		pthread_mutex_lock(&srq->mutex);
		srq->events_completed++;
		pthread_cond_signal(&srq->cond);
		pthread_mutex_unlock(&srq->mutex);
		break;
	}
	case IBV_EVENT_WQ_FATAL: {
		struct ibv_wq *wq = event->element.wq;

		pthread_mutex_lock(&wq->mutex);
		wq->events_completed++;
		pthread_cond_signal(&wq->cond);
		pthread_mutex_unlock(&wq->mutex);
		break;
	}
	default:
		break;
	}
}
