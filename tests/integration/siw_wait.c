/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* tests/integration/siw_wait.c -- LD_PRELOAD for the rdma_cm programs of
 * the siw tests (both libraries): an ESTABLISHED event on an iWARP
 * device reaches the program SV_SIW_WAIT_MS milliseconds late (default
 * 200).
 *
 * Why: the kernel's siw_accept() (drivers/infiniband/sw/siw/siw_cm.c, the
 * same in 6.1, 6.12 and 7.2) sends the MPA reply and only then points the
 * socket's data_ready callback at the QP (siw_qp_socket_assoc). A client
 * that sends at once, as perftest -R and rping do, can have its first
 * FPDU arrive in between: the connection manager's callback, seeing the
 * endpoint already in RDMA mode, leaves it in the socket, and nothing
 * reads it until more data comes, which never does: the server waits for
 * a receive completion forever (kmod-notes/siw.md, "accept race"). On a
 * busy machine the window is wide enough to hit one run in ten. Holding
 * the event back keeps the first send behind the server's callback
 * switch; it changes no verb and no byte. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <stdlib.h>
#include <time.h>

int rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event);

int rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event)
{
	static int (*real)(struct rdma_event_channel *, struct rdma_cm_event **);
	struct rdma_cm_event *ev;
	int ret;

	if (!real)
		real = (int (*)(struct rdma_event_channel *, struct rdma_cm_event **))
			dlsym(RTLD_NEXT, "rdma_get_cm_event");
	if (!real)
		abort();
	ret = real(channel, event);
	ev = ret ? NULL : *event;
	if (ev && ev->event == RDMA_CM_EVENT_ESTABLISHED && ev->id && ev->id->verbs &&
	    ev->id->verbs->device->transport_type == IBV_TRANSPORT_IWARP) {
		const char *v = getenv("SV_SIW_WAIT_MS");
		long ms = v ? strtol(v, NULL, 10) : 200;
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

		nanosleep(&ts, NULL);
	}
	return ret;
}
