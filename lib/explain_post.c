/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Errors that name their cause, the providers' data path (lib/explain.h):
 * what a refused post says. Context-free, so the rdma-core plug-ins
 * (plugin/) carry it too. */
#include "config.h"

#include "explain.h"

const char *sv_qp_state_name(int state)
{
	static const char *const names[] = { "RESET", "INIT", "RTR", "RTS",
					     "SQD",   "SQE",  "ERR" };

	return state >= 0 && state < (int)(sizeof(names) / sizeof(names[0])) ?
		       names[state] :
		       "UNKNOWN";
}

const char *sv_qp_type_name(enum ibv_qp_type t)
{
	switch (t) {
	case IBV_QPT_RC:
		return "RC";
	case IBV_QPT_UC:
		return "UC";
	case IBV_QPT_UD:
		return "UD";
	case IBV_QPT_RAW_PACKET:
		return "RAW_PACKET";
	case IBV_QPT_XRC_SEND:
		return "XRC_SEND";
	case IBV_QPT_XRC_RECV:
		return "XRC_RECV";
	case IBV_QPT_DRIVER:
		return "DRIVER";
	default:
		return "?";
	}
}

void sv_explain_post_state(const char *verb, const struct ibv_qp *qp, const char *needs)
{
	if (sv_log_level < SV_LOG_WARN)
		return;
	sv_log_write(SV_LOG_WARN, verb, "QP %u is in state %s (%s)", qp->qp_num,
		     sv_qp_state_name((int)qp->state), needs);
}

void sv_explain_send_full(const struct ibv_qp *qp, uint32_t max_send_wr)
{
	if (sv_log_level < SV_LOG_WARN)
		return;
	sv_log_write(SV_LOG_WARN, "post_send", "QP %u: send queue full (max_send_wr %u)",
		     qp->qp_num, max_send_wr);
}
