/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The send doorbell of the soft providers: the legacy uverbs POST_SEND
 * with no work request, which makes the kernel drain the send queue the
 * provider filled in shared memory. Built once per QP here and written as
 * is on every post by sv_cmd_doorbell_ring (inline, lib/provider.h). Only
 * the uAPI is needed, so the same code serves the built-in providers
 * (through the command layer's write seam, which the fault-injection
 * tests replace) and the rdma-core plug-ins (plugin/, SV_PLUGIN_PROVIDER:
 * a plain write()). */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <unistd.h>

#include "provider.h"

static void doorbell_fill(struct sv_doorbell *db, struct ibv_qp *qp)
{
	db->hdr = (struct ib_uverbs_cmd_hdr){
		.command = IB_USER_VERBS_CMD_POST_SEND,
		.in_words = (sizeof(db->hdr) + sizeof(db->req)) / 4,
		.out_words = sizeof(db->resp) / 4,
	};
	db->req = (struct ib_uverbs_post_send){
		.response = (uintptr_t)&db->resp,
		.qp_handle = qp->handle,
		/* no WRs, but the kernel rejects a wqe_size smaller than
		 * one ib_uverbs_send_wr even then (uverbs_cmd.c; in 6.1.y
		 * stable) */
		.wqe_size = sizeof(struct ib_uverbs_send_wr),
	};
	db->fd = qp->context->cmd_fd;
}

_Static_assert(offsetof(struct sv_doorbell, req) ==
		       sizeof(struct ib_uverbs_cmd_hdr),
	       "the doorbell's header and request are one write");

void sv_cmd_doorbell_init(struct sv_doorbell *db, struct ibv_qp *qp)
{
	doorbell_fill(db, qp);
}

int sv_cmd_doorbell_error(ssize_t n)
{
	return n < 0 && errno ? errno : EIO;
}

int sv_cmd_post_send_doorbell(struct ibv_qp *qp)
{
	struct sv_doorbell db;

	doorbell_fill(&db, qp);
	return sv_cmd_doorbell_ring(&db);
}
