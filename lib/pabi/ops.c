/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* An rdma-core provider's ops table (struct verbs_context_ops, what it
 * hands to verbs_set_ops) into the core's (struct sv_context_ops): the
 * tables hold the same verbs in a different order. The layout of
 * verbs_context_ops is the same in every release 44-56 (ops are added in
 * alphabetical order, and none was added in between). */
#include "config.h"

#include "pabi.h"

/* rdma-core's verbs_context_ops into ours, slot by slot by name (the
 * tables are ordered differently); only non-NULL slots are taken. The
 * MR ops take a struct verbs_mr *, which points at its ibv_mr. */
void pabi_ops_take(struct sv_context_ops *dst,
		   const struct verbs_context_ops *src)
{
#define TAKE(name)                                                            \
	do {                                                                  \
		if (src->name)                                                \
			dst->name = (__typeof__(dst->name))(void (*)(void))src->name; \
	} while (0)
	TAKE(advise_mr);
	TAKE(alloc_dm);
	TAKE(alloc_mw);
	TAKE(alloc_null_mr);
	TAKE(alloc_parent_domain);
	TAKE(alloc_pd);
	TAKE(alloc_td);
	TAKE(async_event);
	TAKE(attach_counters_point_flow);
	TAKE(attach_mcast);
	TAKE(bind_mw);
	TAKE(close_xrcd);
	TAKE(cq_event);
	TAKE(create_ah);
	TAKE(create_counters);
	TAKE(create_cq);
	TAKE(create_cq_ex);
	TAKE(create_flow);
	TAKE(create_flow_action_esp);
	TAKE(create_qp);
	TAKE(create_qp_ex);
	TAKE(create_rwq_ind_table);
	TAKE(create_srq);
	TAKE(create_srq_ex);
	TAKE(create_wq);
	TAKE(dealloc_mw);
	TAKE(dealloc_pd);
	TAKE(dealloc_td);
	TAKE(dereg_mr);
	TAKE(destroy_ah);
	TAKE(destroy_counters);
	TAKE(destroy_cq);
	TAKE(destroy_flow);
	TAKE(destroy_flow_action);
	TAKE(destroy_qp);
	TAKE(destroy_rwq_ind_table);
	TAKE(destroy_srq);
	TAKE(destroy_wq);
	TAKE(detach_mcast);
	/* free_context: kept in the core state, not a verb */
	TAKE(free_dm);
	TAKE(get_srq_num);
	TAKE(import_dm);
	TAKE(import_mr);
	TAKE(import_pd);
	TAKE(modify_cq);
	TAKE(modify_flow_action_esp);
	TAKE(modify_qp);
	TAKE(modify_qp_rate_limit);
	TAKE(modify_srq);
	TAKE(modify_wq);
	TAKE(open_qp);
	TAKE(open_xrcd);
	TAKE(poll_cq);
	TAKE(post_recv);
	TAKE(post_send);
	TAKE(post_srq_ops);
	TAKE(post_srq_recv);
	TAKE(query_device_ex);
	TAKE(query_ece);
	TAKE(query_port);
	TAKE(query_qp);
	TAKE(query_qp_data_in_order);
	TAKE(query_rt_values);
	TAKE(query_srq);
	TAKE(read_counters);
	TAKE(reg_dm_mr);
	TAKE(reg_dmabuf_mr);
	TAKE(reg_mr);
	TAKE(req_notify_cq);
	TAKE(rereg_mr);
	TAKE(resize_cq);
	TAKE(set_ece);
	TAKE(unimport_dm);
	TAKE(unimport_mr);
	TAKE(unimport_pd);
#undef TAKE
}
