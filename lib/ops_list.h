/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Every op a context can do, listed once. The tables are generated from
 * this list, nowhere written out by hand:
 *
 *  - struct sv_context_ops, the ops table a provider fills (lib/provider.h);
 *  - the EOPNOTSUPP defaults and the default tables (lib/ops.c);
 *  - the refusing ops of a context inherited through fork (lib/inherit.c);
 *  - rdma-core's struct verbs_context_ops, read from rdma-core's providers
 *    (lib/pabi/ops.c, through lib/pabi/abi.h's PABI_CONTEXT_OPS, an alias
 *    of SV_CONTEXT_OPS_SLOTS) and built by the plug-ins (plugin/plugin.c).
 *
 * The order is rdma-core's: struct verbs_context_ops sorts its ops by name
 * and inserts new ones in their alphabetical place, and rdma-core's
 * providers hand the core that struct, so its slot order is an ABI. (The
 * order of struct sv_context_ops is the core's own and may be anything:
 * the same order keeps one list.)
 *
 * OP(name, since, dflt, kind, ret, params):
 *   since   the rdma-core release whose verbs_context_ops added the op
 *           (44: was there in the oldest release we take);
 *   dflt    the default in a context before the provider's slots:
 *             NOSUP        nosup_<name>, whatever the provider;
 *             GENERIC      generic_<name> (the generic command, lib/
 *                          ops.c) for the built-in providers,
 *                          nosup_<name> for rdma-core's providers, which
 *                          start from nothing else on rdma-core either;
 *             GENERIC_ALL  generic_<name> for every provider (rdma-core
 *                          has the same default);
 *   kind    what the op answers, which says what its default and its
 *           refusal in a forked child return:
 *             INT    0 or a positive errno (EOPNOTSUPP, EPERM);
 *             PTR    an object, or NULL with errno;
 *             VOID   nothing (a nop by default; refused with the log
 *                    line in a child);
 *             QUIET  nothing, and a nop both by default and in a child,
 *                    where it writes no log line (the core's notices
 *                    to the provider, async_event and cq_event, and
 *                    unimport_*, which send no command);
 *             NEG    a count, or a negative errno (poll_cq);
 *             FD     a file descriptor, or -1 with errno;
 *             FLAGS  flags, 0 meaning "no promise" (no errno to give);
 *             POST   a positive errno and the first work request in
 *                    *bad_wr (the parameters are named wr and bad_wr);
 *   ret, params  the C prototype, parameter names included (the
 *           generated functions are definitions).
 *
 * SV_CONTEXT_OPS_SLOTS(OP, HOOK) also names, through HOOK, the one slot
 * of rdma-core's table that is not a verb (free_context: the provider's,
 * called by the core when a context closes); SV_CONTEXT_OPS(OP) is the
 * verbs alone, struct sv_context_ops' slots.
 *
 * Context ops follow the public verbs conventions exactly (lib/provider.h
 * says why). */
#ifndef SV_OPS_LIST_H
#define SV_OPS_LIST_H

#define SV_CONTEXT_OPS_SLOTS(OP, HOOK) \
	OP(advise_mr, 44, NOSUP, INT, int, \
	   (struct ibv_pd *pd, enum ibv_advise_mr_advice advice, \
	    uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sges)) \
	/* buffers for ibv_reg_buf_mr (rdma-core 64): the default is page \
	 * aligned anonymous memory of the caller's */ \
	OP(alloc_buf, 64, GENERIC_ALL, PTR, void *, \
	   (struct ibv_pd *pd, size_t size, struct ibv_buf **buf)) \
	OP(alloc_dm, 44, NOSUP, PTR, struct ibv_dm *, \
	   (struct ibv_context *ctx, struct ibv_alloc_dm_attr *attr)) \
	/* DMA handles (rdma-core 59) */ \
	OP(alloc_dmah, 59, NOSUP, PTR, struct ibv_dmah *, \
	   (struct ibv_context *ctx, struct ibv_dmah_init_attr *attr)) \
	OP(alloc_mw, 44, NOSUP, PTR, struct ibv_mw *, \
	   (struct ibv_pd *pd, enum ibv_mw_type type)) \
	OP(alloc_null_mr, 44, NOSUP, PTR, struct ibv_mr *, (struct ibv_pd *pd)) \
	OP(alloc_parent_domain, 44, NOSUP, PTR, struct ibv_pd *, \
	   (struct ibv_context *ctx, \
	    struct ibv_parent_domain_init_attr *attr)) \
	OP(alloc_pd, 44, GENERIC, PTR, struct ibv_pd *, \
	   (struct ibv_context *ctx)) \
	OP(alloc_td, 44, NOSUP, PTR, struct ibv_td *, \
	   (struct ibv_context *ctx, struct ibv_td_init_attr *attr)) \
	/* called by ibv_get_async_event for every event, before it returns */ \
	OP(async_event, 44, NOSUP, QUIET, void, \
	   (struct ibv_context *ctx, struct ibv_async_event *ev)) \
	OP(attach_counters_point_flow, 44, NOSUP, INT, int, \
	   (struct ibv_counters *counters, \
	    struct ibv_counter_attach_attr *attr, struct ibv_flow *flow)) \
	OP(attach_mcast, 44, GENERIC, INT, int, \
	   (struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)) \
	OP(bind_mw, 44, NOSUP, INT, int, \
	   (struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *mw_bind)) \
	OP(close_xrcd, 44, NOSUP, INT, int, (struct ibv_xrcd *xrcd)) \
	/* called by ibv_get_cq_event for the CQ that fired */ \
	OP(cq_event, 44, NOSUP, QUIET, void, (struct ibv_cq *cq)) \
	OP(create_ah, 44, NOSUP, PTR, struct ibv_ah *, \
	   (struct ibv_pd *pd, struct ibv_ah_attr *attr)) \
	/* completion counters (rdma-core 65) */ \
	OP(create_comp_cntr, 65, NOSUP, PTR, struct ibv_comp_cntr *, \
	   (struct ibv_context *ctx, struct ibv_comp_cntr_init_attr *attr)) \
	OP(create_counters, 44, NOSUP, PTR, struct ibv_counters *, \
	   (struct ibv_context *ctx, struct ibv_counters_init_attr *attr)) \
	OP(create_cq, 44, NOSUP, PTR, struct ibv_cq *, \
	   (struct ibv_context *ctx, int cqe, \
	    struct ibv_comp_channel *channel, int comp_vector)) \
	OP(create_cq_ex, 44, NOSUP, PTR, struct ibv_cq_ex *, \
	   (struct ibv_context *ctx, struct ibv_cq_init_attr_ex *attr)) \
	OP(create_flow, 44, NOSUP, PTR, struct ibv_flow *, \
	   (struct ibv_qp *qp, struct ibv_flow_attr *attr)) \
	OP(create_flow_action_esp, 44, NOSUP, PTR, struct ibv_flow_action *, \
	   (struct ibv_context *ctx, struct ibv_flow_action_esp_attr *attr)) \
	/* the generic default goes through create_qp_ex */ \
	OP(create_qp, 44, GENERIC, PTR, struct ibv_qp *, \
	   (struct ibv_pd *pd, struct ibv_qp_init_attr *attr)) \
	OP(create_qp_ex, 44, NOSUP, PTR, struct ibv_qp *, \
	   (struct ibv_context *ctx, struct ibv_qp_init_attr_ex *attr)) \
	OP(create_rwq_ind_table, 44, NOSUP, PTR, struct ibv_rwq_ind_table *, \
	   (struct ibv_context *ctx, \
	    struct ibv_rwq_ind_table_init_attr *attr)) \
	OP(create_srq, 44, NOSUP, PTR, struct ibv_srq *, \
	   (struct ibv_pd *pd, struct ibv_srq_init_attr *attr)) \
	OP(create_srq_ex, 44, NOSUP, PTR, struct ibv_srq *, \
	   (struct ibv_context *ctx, struct ibv_srq_init_attr_ex *attr)) \
	OP(create_wq, 44, NOSUP, PTR, struct ibv_wq *, \
	   (struct ibv_context *ctx, struct ibv_wq_init_attr *attr)) \
	OP(dealloc_dmah, 59, NOSUP, INT, int, (struct ibv_dmah *dmah)) \
	OP(dealloc_mw, 44, GENERIC, INT, int, (struct ibv_mw *mw)) \
	OP(dealloc_pd, 44, GENERIC, INT, int, (struct ibv_pd *pd)) \
	OP(dealloc_td, 44, NOSUP, INT, int, (struct ibv_td *td)) \
	OP(dereg_mr, 44, GENERIC, INT, int, (struct ibv_mr *mr)) \
	OP(destroy_ah, 44, NOSUP, INT, int, (struct ibv_ah *ah)) \
	OP(destroy_comp_cntr, 65, NOSUP, INT, int, \
	   (struct ibv_comp_cntr *comp_cntr)) \
	OP(destroy_counters, 44, NOSUP, INT, int, \
	   (struct ibv_counters *counters)) \
	OP(destroy_cq, 44, NOSUP, INT, int, (struct ibv_cq *cq)) \
	OP(destroy_flow, 44, NOSUP, INT, int, (struct ibv_flow *flow)) \
	OP(destroy_flow_action, 44, NOSUP, INT, int, \
	   (struct ibv_flow_action *action)) \
	OP(destroy_qp, 44, NOSUP, INT, int, (struct ibv_qp *qp)) \
	OP(destroy_rwq_ind_table, 44, NOSUP, INT, int, \
	   (struct ibv_rwq_ind_table *table)) \
	OP(destroy_srq, 44, NOSUP, INT, int, (struct ibv_srq *srq)) \
	OP(destroy_wq, 44, NOSUP, INT, int, (struct ibv_wq *wq)) \
	OP(detach_mcast, 44, GENERIC, INT, int, \
	   (struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)) \
	/* a dma-buf fd of device memory (rdma-core 62) */ \
	OP(dm_export_dmabuf_fd, 62, NOSUP, FD, int, (struct ibv_dm *dm)) \
	OP(free_buf, 64, GENERIC_ALL, VOID, void, (struct ibv_buf *buf)) \
	HOOK(free_context, 44, NOSUP, VOID, void, (struct ibv_context *ctx)) \
	OP(free_dm, 44, NOSUP, INT, int, (struct ibv_dm *dm)) \
	OP(get_srq_num, 44, NOSUP, INT, int, \
	   (struct ibv_srq *srq, uint32_t *srq_num)) \
	/* sharing objects between processes (ibv_import_*) */ \
	OP(import_dm, 44, NOSUP, PTR, struct ibv_dm *, \
	   (struct ibv_context *ctx, uint32_t dm_handle)) \
	OP(import_mr, 44, NOSUP, PTR, struct ibv_mr *, \
	   (struct ibv_pd *pd, uint32_t mr_handle)) \
	OP(import_pd, 44, NOSUP, PTR, struct ibv_pd *, \
	   (struct ibv_context *ctx, uint32_t pd_handle)) \
	OP(inc_comp_cntr, 65, NOSUP, INT, int, \
	   (struct ibv_comp_cntr *comp_cntr, uint64_t amount)) \
	OP(inc_err_comp_cntr, 65, NOSUP, INT, int, \
	   (struct ibv_comp_cntr *comp_cntr, uint64_t amount)) \
	OP(modify_cq, 44, NOSUP, INT, int, \
	   (struct ibv_cq *cq, struct ibv_modify_cq_attr *attr)) \
	OP(modify_flow_action_esp, 44, NOSUP, INT, int, \
	   (struct ibv_flow_action *action, \
	    struct ibv_flow_action_esp_attr *attr)) \
	OP(modify_qp, 44, GENERIC, INT, int, \
	   (struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)) \
	OP(modify_qp_rate_limit, 44, NOSUP, INT, int, \
	   (struct ibv_qp *qp, struct ibv_qp_rate_limit_attr *attr)) \
	OP(modify_srq, 44, NOSUP, INT, int, \
	   (struct ibv_srq *srq, struct ibv_srq_attr *attr, int attr_mask)) \
	OP(modify_wq, 44, NOSUP, INT, int, \
	   (struct ibv_wq *wq, struct ibv_wq_attr *attr)) \
	OP(open_qp, 44, NOSUP, PTR, struct ibv_qp *, \
	   (struct ibv_context *ctx, struct ibv_qp_open_attr *attr)) \
	OP(open_xrcd, 44, NOSUP, PTR, struct ibv_xrcd *, \
	   (struct ibv_context *ctx, struct ibv_xrcd_init_attr *attr)) \
	OP(poll_cq, 44, NOSUP, NEG, int, \
	   (struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)) \
	OP(post_recv, 44, NOSUP, POST, int, \
	   (struct ibv_qp *qp, struct ibv_recv_wr *wr, \
	    struct ibv_recv_wr **bad_wr)) \
	OP(post_send, 44, NOSUP, POST, int, \
	   (struct ibv_qp *qp, struct ibv_send_wr *wr, \
	    struct ibv_send_wr **bad_wr)) \
	OP(post_srq_ops, 44, NOSUP, POST, int, \
	   (struct ibv_srq *srq, struct ibv_ops_wr *wr, \
	    struct ibv_ops_wr **bad_wr)) \
	OP(post_srq_recv, 44, NOSUP, POST, int, \
	   (struct ibv_srq *srq, struct ibv_recv_wr *wr, \
	    struct ibv_recv_wr **bad_wr)) \
	OP(qp_attach_comp_cntr, 65, NOSUP, INT, int, \
	   (struct ibv_qp *qp, struct ibv_comp_cntr *comp_cntr, \
	    struct ibv_qp_attach_comp_cntr_attr *attr)) \
	OP(query_comp_cntr_caps, 65, NOSUP, INT, int, \
	   (struct ibv_context *ctx, struct ibv_comp_cntr_caps *caps, \
	    size_t caps_size)) \
	OP(query_device_ex, 44, GENERIC, INT, int, \
	   (struct ibv_context *ctx, \
	    const struct ibv_query_device_ex_input *input, \
	    struct ibv_device_attr_ex *attr, size_t attr_size)) \
	OP(query_ece, 44, NOSUP, INT, int, \
	   (struct ibv_qp *qp, struct ibv_ece *ece)) \
	/* attr is always the newest struct ibv_port_attr, 56 bytes (lib/ \
	 * core.h's union sv_port_attr; the core copies out what the \
	 * caller's struct can hold) */ \
	OP(query_port, 44, GENERIC, INT, int, \
	   (struct ibv_context *ctx, uint8_t port_num, \
	    struct ibv_port_attr *attr)) \
	/* the port's effective bandwidth, 100 Mb/s units (rdma-core 62) */ \
	OP(query_port_speed, 62, GENERIC, INT, int, \
	   (struct ibv_context *ctx, uint32_t port_num, uint64_t *speed)) \
	OP(query_qp, 44, GENERIC, INT, int, \
	   (struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask, \
	    struct ibv_qp_init_attr *init_attr)) \
	OP(query_qp_data_in_order, 44, NOSUP, FLAGS, int, \
	   (struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags)) \
	OP(query_rt_values, 44, NOSUP, INT, int, \
	   (struct ibv_context *ctx, struct ibv_values_ex *values)) \
	OP(query_srq, 44, GENERIC, INT, int, \
	   (struct ibv_srq *srq, struct ibv_srq_attr *attr)) \
	OP(read_comp_cntr, 65, NOSUP, INT, int, \
	   (struct ibv_comp_cntr *comp_cntr, uint64_t *value)) \
	OP(read_counters, 44, NOSUP, INT, int, \
	   (struct ibv_counters *counters, uint64_t *values, \
	    uint32_t ncounters, uint32_t flags)) \
	OP(read_err_comp_cntr, 65, NOSUP, INT, int, \
	   (struct ibv_comp_cntr *comp_cntr, uint64_t *value)) \
	OP(reg_dm_mr, 44, NOSUP, PTR, struct ibv_mr *, \
	   (struct ibv_pd *pd, struct ibv_dm *dm, uint64_t dm_offset, \
	    size_t length, unsigned int access)) \
	OP(reg_dmabuf_mr, 44, GENERIC, PTR, struct ibv_mr *, \
	   (struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova, \
	    int fd, int access)) \
	/* memory regions: the core has already validated the access flags \
	 * and added the range to the fork-safety map; the op only \
	 * registers */ \
	OP(reg_mr, 44, GENERIC, PTR, struct ibv_mr *, \
	   (struct ibv_pd *pd, void *addr, size_t length, uint64_t hca_va, \
	    int access)) \
	/* ibv_reg_mr_ex (rdma-core 59): the core has checked the attributes \
	 * and done the fork-safety part; the default registers through \
	 * reg_mr or reg_dmabuf_mr */ \
	OP(reg_mr_ex, 59, GENERIC_ALL, PTR, struct ibv_mr *, \
	   (struct ibv_pd *pd, struct ibv_mr_init_attr *attr)) \
	OP(req_notify_cq, 44, NOSUP, INT, int, \
	   (struct ibv_cq *cq, int solicited_only)) \
	/* flags: enum ibv_rereg_mr_flags; on error the MR is unchanged */ \
	OP(rereg_mr, 44, GENERIC, INT, int, \
	   (struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr, \
	    size_t length, int access)) \
	OP(resize_cq, 44, NOSUP, INT, int, (struct ibv_cq *cq, int cqe)) \
	OP(set_comp_cntr, 65, NOSUP, INT, int, \
	   (struct ibv_comp_cntr *comp_cntr, uint64_t value)) \
	OP(set_ece, 44, NOSUP, INT, int, \
	   (struct ibv_qp *qp, struct ibv_ece *ece)) \
	OP(set_err_comp_cntr, 65, NOSUP, INT, int, \
	   (struct ibv_comp_cntr *comp_cntr, uint64_t value)) \
	OP(unimport_dm, 44, NOSUP, QUIET, void, (struct ibv_dm *dm)) \
	OP(unimport_mr, 44, NOSUP, QUIET, void, (struct ibv_mr *mr)) \
	OP(unimport_pd, 44, NOSUP, QUIET, void, (struct ibv_pd *pd))

#define SV_OPS_NOT_A_VERB(name, since, dflt, kind, ret, params)
#define SV_CONTEXT_OPS(OP) SV_CONTEXT_OPS_SLOTS(OP, SV_OPS_NOT_A_VERB)

#endif
