/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Errors that name their cause: after a verb failed with EINVAL, ENOMEM
 * or EOPNOTSUPP, one warning line (logging at warn or more) that names
 * the attribute, the value given and the device's limit or the missing
 * prerequisite ("create_qp: max_inline_data 1024 > device limit 512").
 * Every function here is cold and out of line, called only on a verb's
 * error path: the success paths carry not one instruction of it. The
 * device's attributes are queried on the first explanation a context
 * needs and kept in it (verbs_ex_private.explain_attr).
 *
 * lib/explain.c (the core's verbs; needs a context of this library) and
 * lib/explain_post.c (the providers' data path; knows no context: it is
 * part of the rdma-core plug-ins too). */
#ifndef SV_EXPLAIN_H
#define SV_EXPLAIN_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "log.h"

#define SV_COLD __attribute__((cold, noinline))

/* Each takes the verb's arguments and the errno it is about to return
 * (positive); it logs when err is EINVAL, ENOMEM or EOPNOTSUPP. */
SV_COLD void sv_explain_create_cq(struct ibv_context *ctx, uint32_t cqe, int err);
SV_COLD void sv_explain_create_qp(struct ibv_context *ctx,
				  const struct ibv_qp_init_attr_ex *attr, int err);
SV_COLD void sv_explain_create_srq(struct ibv_context *ctx,
				   const struct ibv_srq_attr *attr, int err);
/* returns err */
SV_COLD int sv_explain_modify_qp(struct ibv_qp *qp, const struct ibv_qp_attr *attr,
				 int attr_mask, int err);
SV_COLD void sv_explain_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			       unsigned int access, int err);
/* MADV_DONTFORK of the range failed (fork safety on) with err: the
 * path's one line, whatever err (at error level for the others). */
SV_COLD void sv_explain_reg_mr_fork(void *addr, size_t length, int err);
/* A verb called with NULL (or a context, PD or QP this library did not
 * make) where `what` must be: "VERB: EINVAL: NULL or foreign WHAT".
 * Returns EINVAL. */
SV_COLD int sv_explain_args(const char *verb, const char *what);
/* A freed context: its cached attributes go. */
void sv_explain_forget(struct ibv_context *ctx);

/* The data path (lib/explain_post.c). */
/* A post to a QP whose state takes none ("needs RTS" or "needs RTR"). */
SV_COLD void sv_explain_post_state(const char *verb, const struct ibv_qp *qp,
				   const char *needs);
/* post_send found the send queue full: max_send_wr its capacity. */
SV_COLD void sv_explain_send_full(const struct ibv_qp *qp, uint32_t max_send_wr);
/* What IBTA's transition table (vol. 1, 11.2.5.2) says of cur -> next
 * for a UD, UC or RC QP: 0 with the attr_mask bits it requires (*req) and
 * allows (*opt), or -1 when the table has no such move or type (moves to
 * RESET and ERR, which take IBV_QP_STATE alone, are not in it). The one
 * table: ibv_modify_qp's explanation and providers that check the masks
 * themselves (provider/uroce) read it. */
int sv_qp_transition_masks(enum ibv_qp_type type, int cur, int next, int *req,
			   int *opt);
/* The names of a QP state and a QP type ("RTS", "RC"). */
const char *sv_qp_state_name(int state);
const char *sv_qp_type_name(enum ibv_qp_type t);

#endif
