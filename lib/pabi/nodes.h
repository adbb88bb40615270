/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The version nodes of the provider ABI: one library exports every node
 * rdma-core 44-65's providers import, IBVERBS_PRIVATE_34 (rdma-core
 * 34-56), _57 (57-58), _59 (59-63), _64 (64) and _65 (65), each with
 * that node's symbols (libibverbs/libibverbs.map.in at v56.0, v57.0,
 * v59.0, v62.0, v64.0 and 65.0).
 *
 * A name exported in several nodes is one function of the layer named
 * pabi_<name> (the defines below rename every definition and prototype
 * in lib/pabi/), bound to <name>@IBVERBS_PRIVATE_N for each node and to
 * <name>@@IBVERBS_PRIVATE_65, the default, by the PABI_EXPORT_* lines
 * next to its definition (.symver must be in the object that defines
 * it). Where a node's form differs (ibv_cmd_get_context before 57,
 * ibv_cmd_create_cq_ex(2) before 59, ibv_cmd_create_qp_ex2 before 64), the
 * older form is a function of its own, bound to the older nodes only.
 * The registration functions have one name per node (lib/libibverbs.map
 * lists them). Included by lib/pabi/pabi.h before anything else. */
#ifndef SV_PABI_NODES_H
#define SV_PABI_NODES_H

#define PABI_SYMVER_(impl, name, at)                                        \
	__asm__(".symver " impl ", " name at)
/* exported in every node from IBVERBS_PRIVATE_N on */
#define PABI_EXPORT_34(name)                                                \
	PABI_SYMVER_("pabi_" #name, #name, "@IBVERBS_PRIVATE_34");           \
	PABI_SYMVER_("pabi_" #name, #name, "@IBVERBS_PRIVATE_57");           \
	PABI_SYMVER_("pabi_" #name, #name, "@IBVERBS_PRIVATE_59");           \
	PABI_SYMVER_("pabi_" #name, #name, "@IBVERBS_PRIVATE_64");           \
	PABI_SYMVER_("pabi_" #name, #name, "@@IBVERBS_PRIVATE_65")
#define PABI_EXPORT_57(name)                                                \
	PABI_SYMVER_("pabi_" #name, #name, "@IBVERBS_PRIVATE_57");           \
	PABI_SYMVER_("pabi_" #name, #name, "@IBVERBS_PRIVATE_59");           \
	PABI_SYMVER_("pabi_" #name, #name, "@IBVERBS_PRIVATE_64");           \
	PABI_SYMVER_("pabi_" #name, #name, "@@IBVERBS_PRIVATE_65")
#define PABI_EXPORT_59(name)                                                \
	PABI_SYMVER_("pabi_" #name, #name, "@IBVERBS_PRIVATE_59");           \
	PABI_SYMVER_("pabi_" #name, #name, "@IBVERBS_PRIVATE_64");           \
	PABI_SYMVER_("pabi_" #name, #name, "@@IBVERBS_PRIVATE_65")
#define PABI_EXPORT_64(name)                                                \
	PABI_SYMVER_("pabi_" #name, #name, "@IBVERBS_PRIVATE_64");           \
	PABI_SYMVER_("pabi_" #name, #name, "@@IBVERBS_PRIVATE_65")
#define PABI_EXPORT_65(name)                                                \
	PABI_SYMVER_("pabi_" #name, #name, "@@IBVERBS_PRIVATE_65")
/* an older form, impl, as name in the nodes before one that changed it
 * (each stringifies its arguments itself: name is a renamed macro) */
#define PABI_OLD_FORM_34(impl, name)                                        \
	PABI_SYMVER_(#impl, #name, "@IBVERBS_PRIVATE_34")
#define PABI_OLD_FORM_57(impl, name)                                        \
	PABI_SYMVER_(#impl, #name, "@IBVERBS_PRIVATE_34");                   \
	PABI_SYMVER_(#impl, #name, "@IBVERBS_PRIVATE_57")
#define PABI_OLD_FORM_59(impl, name)                                        \
	PABI_SYMVER_(#impl, #name, "@IBVERBS_PRIVATE_34");                   \
	PABI_SYMVER_(#impl, #name, "@IBVERBS_PRIVATE_57");                   \
	PABI_SYMVER_(#impl, #name, "@IBVERBS_PRIVATE_59")

/* Every name of IBVERBS_PRIVATE_65 but the registration function (the
 * other nodes' names are subsets). */
#define __ioctl_final_num_attrs pabi___ioctl_final_num_attrs
#define __verbs_log pabi___verbs_log
#define _verbs_init_and_alloc_context pabi__verbs_init_and_alloc_context
#define execute_ioctl pabi_execute_ioctl
#define ibv_cmd_advise_mr pabi_ibv_cmd_advise_mr
#define ibv_cmd_alloc_dm pabi_ibv_cmd_alloc_dm
#define ibv_cmd_alloc_dmah pabi_ibv_cmd_alloc_dmah
#define ibv_cmd_alloc_mw pabi_ibv_cmd_alloc_mw
#define ibv_cmd_alloc_pd pabi_ibv_cmd_alloc_pd
#define ibv_cmd_attach_mcast pabi_ibv_cmd_attach_mcast
#define ibv_cmd_close_xrcd pabi_ibv_cmd_close_xrcd
#define ibv_cmd_create_ah pabi_ibv_cmd_create_ah
#define ibv_cmd_create_comp_cntr pabi_ibv_cmd_create_comp_cntr
#define ibv_cmd_create_counters pabi_ibv_cmd_create_counters
#define ibv_cmd_create_cq pabi_ibv_cmd_create_cq
#define ibv_cmd_create_cq_ex pabi_ibv_cmd_create_cq_ex
#define ibv_cmd_create_cq_ex2 pabi_ibv_cmd_create_cq_ex2
#define ibv_cmd_create_flow pabi_ibv_cmd_create_flow
#define ibv_cmd_create_flow_action_esp pabi_ibv_cmd_create_flow_action_esp
#define ibv_cmd_create_qp pabi_ibv_cmd_create_qp
#define ibv_cmd_create_qp_ex pabi_ibv_cmd_create_qp_ex
#define ibv_cmd_create_qp_ex2 pabi_ibv_cmd_create_qp_ex2
#define ibv_cmd_create_rwq_ind_table pabi_ibv_cmd_create_rwq_ind_table
#define ibv_cmd_create_srq pabi_ibv_cmd_create_srq
#define ibv_cmd_create_srq_ex pabi_ibv_cmd_create_srq_ex
#define ibv_cmd_create_wq pabi_ibv_cmd_create_wq
#define ibv_cmd_dealloc_mw pabi_ibv_cmd_dealloc_mw
#define ibv_cmd_dealloc_pd pabi_ibv_cmd_dealloc_pd
#define ibv_cmd_dereg_mr pabi_ibv_cmd_dereg_mr
#define ibv_cmd_destroy_ah pabi_ibv_cmd_destroy_ah
#define ibv_cmd_destroy_comp_cntr pabi_ibv_cmd_destroy_comp_cntr
#define ibv_cmd_destroy_counters pabi_ibv_cmd_destroy_counters
#define ibv_cmd_destroy_cq pabi_ibv_cmd_destroy_cq
#define ibv_cmd_destroy_flow pabi_ibv_cmd_destroy_flow
#define ibv_cmd_destroy_flow_action pabi_ibv_cmd_destroy_flow_action
#define ibv_cmd_destroy_qp pabi_ibv_cmd_destroy_qp
#define ibv_cmd_destroy_rwq_ind_table pabi_ibv_cmd_destroy_rwq_ind_table
#define ibv_cmd_destroy_srq pabi_ibv_cmd_destroy_srq
#define ibv_cmd_destroy_wq pabi_ibv_cmd_destroy_wq
#define ibv_cmd_detach_mcast pabi_ibv_cmd_detach_mcast
#define ibv_cmd_export_dmabuf_fd pabi_ibv_cmd_export_dmabuf_fd
#define ibv_cmd_free_dm pabi_ibv_cmd_free_dm
#define ibv_cmd_free_dmah pabi_ibv_cmd_free_dmah
#define ibv_cmd_get_context pabi_ibv_cmd_get_context
#define ibv_cmd_inc_comp_cntr pabi_ibv_cmd_inc_comp_cntr
#define ibv_cmd_inc_err_comp_cntr pabi_ibv_cmd_inc_err_comp_cntr
#define ibv_cmd_modify_cq pabi_ibv_cmd_modify_cq
#define ibv_cmd_modify_flow_action_esp pabi_ibv_cmd_modify_flow_action_esp
#define ibv_cmd_modify_qp pabi_ibv_cmd_modify_qp
#define ibv_cmd_modify_qp_ex pabi_ibv_cmd_modify_qp_ex
#define ibv_cmd_modify_srq pabi_ibv_cmd_modify_srq
#define ibv_cmd_modify_wq pabi_ibv_cmd_modify_wq
#define ibv_cmd_open_qp pabi_ibv_cmd_open_qp
#define ibv_cmd_open_xrcd pabi_ibv_cmd_open_xrcd
#define ibv_cmd_poll_cq pabi_ibv_cmd_poll_cq
#define ibv_cmd_post_recv pabi_ibv_cmd_post_recv
#define ibv_cmd_post_send pabi_ibv_cmd_post_send
#define ibv_cmd_post_srq_recv pabi_ibv_cmd_post_srq_recv
#define ibv_cmd_qp_attach_comp_cntr pabi_ibv_cmd_qp_attach_comp_cntr
#define ibv_cmd_query_comp_cntr_caps pabi_ibv_cmd_query_comp_cntr_caps
#define ibv_cmd_query_context pabi_ibv_cmd_query_context
#define ibv_cmd_query_device_any pabi_ibv_cmd_query_device_any
#define ibv_cmd_query_mr pabi_ibv_cmd_query_mr
#define ibv_cmd_query_port pabi_ibv_cmd_query_port
#define ibv_cmd_query_port_speed pabi_ibv_cmd_query_port_speed
#define ibv_cmd_query_qp pabi_ibv_cmd_query_qp
#define ibv_cmd_query_srq pabi_ibv_cmd_query_srq
#define ibv_cmd_read_comp_cntr pabi_ibv_cmd_read_comp_cntr
#define ibv_cmd_read_counters pabi_ibv_cmd_read_counters
#define ibv_cmd_read_err_comp_cntr pabi_ibv_cmd_read_err_comp_cntr
#define ibv_cmd_reg_dm_mr pabi_ibv_cmd_reg_dm_mr
#define ibv_cmd_reg_dmabuf_mr pabi_ibv_cmd_reg_dmabuf_mr
#define ibv_cmd_reg_mr pabi_ibv_cmd_reg_mr
#define ibv_cmd_reg_mr_ex pabi_ibv_cmd_reg_mr_ex
#define ibv_cmd_req_notify_cq pabi_ibv_cmd_req_notify_cq
#define ibv_cmd_rereg_mr pabi_ibv_cmd_rereg_mr
#define ibv_cmd_resize_cq pabi_ibv_cmd_resize_cq
#define ibv_cmd_set_comp_cntr pabi_ibv_cmd_set_comp_cntr
#define ibv_cmd_set_err_comp_cntr pabi_ibv_cmd_set_err_comp_cntr
#define ibv_dmabuf_heap_alloc pabi_ibv_dmabuf_heap_alloc
#define ibv_dmabuf_heap_cc_shared_init pabi_ibv_dmabuf_heap_cc_shared_init
#define ibv_dmabuf_heap_destroy pabi_ibv_dmabuf_heap_destroy
#define ibv_dmabuf_heap_free pabi_ibv_dmabuf_heap_free
#define ibv_query_gid_type pabi_ibv_query_gid_type
#define ibv_read_ibdev_sysfs_file pabi_ibv_read_ibdev_sysfs_file
#define ibv_wr_opcode_str pabi_ibv_wr_opcode_str
#define verbs_allow_disassociate_destroy pabi_verbs_allow_disassociate_destroy
#define verbs_init_cq pabi_verbs_init_cq
#define verbs_open_device pabi_verbs_open_device
#define verbs_set_ops pabi_verbs_set_ops
#define verbs_uninit_context pabi_verbs_uninit_context

#endif
