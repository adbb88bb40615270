/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Every rdma-core release's provider ABI, in one place. rdma-core kept
 * the version node IBVERBS_PRIVATE_34 from release 34 to 56 but changed
 * what is under it, and changed IBVERBS_PRIVATE_59 at 62 without a new
 * node; each release's providers ask for their node and expect their own
 * layouts. Read this file against rdma-core's history (git log
 * v44.0..v64.0 and 65.0 -- libibverbs/driver.h libibverbs/verbs.h
 * libibverbs/libibverbs.map.in; the facts below were checked at every
 * tag from v44.0 to v64.0 and on 65.0, Debian unstable's).
 *
 * What does NOT change from 44 to 65, and so is written once (lib/
 * verbs_device.h, lib/pabi/abi.h): struct verbs_device_ops,
 * verbs_match_ent, verbs_sysfs_dev, verbs_device, ibv_context_ops,
 * ibv_context, verbs_cq (ibv_cq_ex did not grow), verbs_srq, verbs_mr,
 * verbs_xrcd, ibv_command_buffer, ibv_port_attr after 49, ibv_qp_ex after
 * 45, and every ibv_cmd_* signature but the five below.
 *
 * What changes, release by release:
 *
 *   v44.0  ibv_qp_ex gains wr_atomic_write (344 -> 352 bytes): the
 *          oldest layout this library drives (Debian 12). Releases 34-43
 *          have a shorter ibv_qp_ex and other ops tables (v35, v36
 *          inserted ops); their providers are refused.
 *   v45.0  ibv_qp_ex gains wr_flush (352 -> 360 bytes). verbs_qp embeds
 *          it, so the two members the core writes into every provider's
 *          QP move: comp_mask 352 -> 360, xrcd 360 -> 368 (sizeof
 *          verbs_qp 368 -> 376).
 *   v49.0  struct ibv_port_attr gains active_speed_ex (52 -> 56 bytes):
 *          ibv_cmd_query_port writes it. New export ibv_wr_opcode_str.
 *   v53.0  New export ibv_cmd_create_cq_ex2 (create_cq_ex with the
 *          provider's own ioctl attributes; libmlx5 uses it). No layout
 *          change: a provider of 53 differs from one of 49-52 only in
 *          that it may call the new function.
 *   v54.0  ibv_cmd_reg_dmabuf_mr gains an eighth argument, the
 *          provider's ioctl attributes (struct ibv_command_buffer *
 *          driver): providers of 44-53 pass seven, so the eighth is read
 *          only for 54 and later.
 *   v56.x  Debian 13's rdma-core (56.1): as 54.
 *   v57.0  IBVERBS_PRIVATE_57: ibv_cmd_get_context gains fd_arr (fds for
 *          GET_CONTEXT) after cmd_size; verbs_register_driver_57;
 *          ibv_cmd_query_device leaves the map (never exported here).
 *          58: as 57.
 *   v59.0  IBVERBS_PRIVATE_59: ibv_cmd_create_cq_ex and _ex2 gain
 *          prov_attr (the provider's CQ buffer) after cq_attr; new ops
 *          alloc_dmah, dealloc_dmah, reg_mr_ex (the table 76 -> 79
 *          slots) and struct verbs_context's slots for them (648 -> 672
 *          bytes); ibv_cmd_alloc_dmah, _free_dmah, _reg_mr_ex;
 *          IBVERBS_1.15. 60, 61: as 59.
 *   v62.0  Still IBVERBS_PRIVATE_59, yet: ops dm_export_dmabuf_fd and
 *          query_port_speed inserted (81 slots: every op after alloc_dm
 *          ... moved), verbs_context +8 (680); ibv_cmd_export_dmabuf_fd,
 *          _query_port_speed; IBVERBS_1.16. 63: as 62.
 *   v64.0  IBVERBS_PRIVATE_64: ibv_cmd_create_qp_ex2 gains driver (the
 *          provider's ioctl attributes); ops alloc_buf, free_buf (83),
 *          verbs_context +16 (696); struct ibv_buf; ibv_dmabuf_heap_*;
 *          IBVERBS_1.17.
 *   65.0   IBVERBS_PRIVATE_65: ten completion-counter ops (93 slots) and
 *          ibv_cmd_*_comp_cntr; verbs_context unchanged; IBVERBS_1.18.
 *
 * The signature changes are each node's own function (lib/pabi/
 * nodes.h): a provider gets the form its node has. The layouts are
 * the generation's, below.
 *
 * A release's generation is the run of releases with the same layouts
 * and conventions; the import table below says when each symbol that
 * was added after the node's first release appeared. */
#include "config.h"

#include <string.h>

#include "pabi.h"

#define NODE_34 "IBVERBS_PRIVATE_34"
#define NODE_57 "IBVERBS_PRIVATE_57"
#define NODE_59 "IBVERBS_PRIVATE_59"
#define NODE_64 "IBVERBS_PRIVATE_64"
#define NODE_65 "IBVERBS_PRIVATE_65"

/* verbs_qp: the ibv_qp_ex (its size), then u32 comp_mask, then (8-byte
 * aligned) the xrcd pointer. */
#define QP_LAYOUT(qp_ex_size)                                                  \
	.qp_comp_mask = (qp_ex_size), .qp_xrcd = (qp_ex_size) + 8

/* struct verbs_context: 648 bytes, plus 8 per slot added in front */
#define VCTX(slots) .vctx_size = SV_VCTX_SIZE_44 + (slots) * 8

/* The ops table's layout is that of the generation's first release
 * (pabi_ops_take(..., gen->first)). */
static const struct pabi_gen gens[] = {
	{
		.name = "rdma-core 44",
		.first = 44, .last = 44, .node = NODE_34,
		.layout = { QP_LAYOUT(352), .port_attr_size = 52, VCTX(0) },
		.reg_dmabuf_mr_driver = false,
	},
	{
		.name = "rdma-core 45-48",
		.first = 45, .last = 48, .node = NODE_34,
		.layout = { QP_LAYOUT(360), .port_attr_size = 52, VCTX(0) },
		.reg_dmabuf_mr_driver = false,
	},
	{
		.name = "rdma-core 49-53",
		.first = 49, .last = 53, .node = NODE_34,
		.layout = { QP_LAYOUT(360), .port_attr_size = 56, VCTX(0) },
		.reg_dmabuf_mr_driver = false,
	},
	{
		.name = "rdma-core 54-56",
		.first = 54, .last = 56, .node = NODE_34,
		.layout = { QP_LAYOUT(360), .port_attr_size = 56, VCTX(0) },
		.reg_dmabuf_mr_driver = true,
	},
	{
		.name = "rdma-core 57-58",
		.first = 57, .last = 58, .node = NODE_57,
		.layout = { QP_LAYOUT(360), .port_attr_size = 56, VCTX(0) },
		.reg_dmabuf_mr_driver = true,
	},
	{
		.name = "rdma-core 59-61",
		.first = 59, .last = 61, .node = NODE_59,
		.layout = { QP_LAYOUT(360), .port_attr_size = 56, VCTX(3) },
		.reg_dmabuf_mr_driver = true,
	},
	{
		.name = "rdma-core 62-63",
		.first = 62, .last = 63, .node = NODE_59,
		.layout = { QP_LAYOUT(360), .port_attr_size = 56, VCTX(4) },
		.reg_dmabuf_mr_driver = true,
	},
	{
		.name = "rdma-core 64",
		.first = 64, .last = 64, .node = NODE_64,
		.layout = { QP_LAYOUT(360), .port_attr_size = 56, VCTX(6) },
		.reg_dmabuf_mr_driver = true,
	},
	{
		.name = "rdma-core 65",
		.first = 65, .last = 65, .node = NODE_65,
		.layout = { QP_LAYOUT(360), .port_attr_size = 56, VCTX(6) },
		.reg_dmabuf_mr_driver = true,
	},
};

/* Symbols added to a node after its first release we drive. */
static const struct {
	const char *node, *name;
	unsigned int since;
} added[] = {
	{ NODE_34, "ibv_wr_opcode_str", 49 },
	{ NODE_34, "ibv_cmd_create_cq_ex2", 53 },
	{ NODE_59, "ibv_cmd_export_dmabuf_fd", 62 },
	{ NODE_59, "ibv_cmd_query_port_speed", 62 },
};

#define NGENS (sizeof(gens) / sizeof(gens[0]))

const struct pabi_gen *pabi_gen_of_release(unsigned int release)
{
	for (size_t i = 0; i < NGENS; i++)
		if (release >= gens[i].first && release <= gens[i].last)
			return &gens[i];
	return NULL;
}

size_t pabi_gen_count(void)
{
	return NGENS;
}

const struct pabi_gen *pabi_gen_at(size_t i)
{
	return i < NGENS ? &gens[i] : NULL;
}

unsigned int pabi_first_release(void)
{
	return gens[0].first;
}

unsigned int pabi_last_release(void)
{
	return gens[NGENS - 1].last;
}

unsigned int pabi_symbol_since(const char *node, const char *name,
			       unsigned int *last)
{
	unsigned int first = 0, newest = 0;

	for (size_t i = 0; i < NGENS; i++) {
		if (strcmp(gens[i].node, node))
			continue;
		if (!first)
			first = gens[i].first;
		newest = gens[i].last;
	}
	if (!first)
		return 0;
	if (last)
		*last = newest;
	for (size_t i = 0; i < sizeof(added) / sizeof(added[0]); i++)
		if (!strcmp(added[i].node, node) && !strcmp(added[i].name, name))
			return added[i].since;
	return first;
}

const struct pabi_gen *pabi_gen_of(struct ibv_context *ctx)
{
	const struct sv_obj_layout *l = sv_priv(ctx)->layout;

	for (size_t i = 0; i < NGENS; i++)
		if (l == &gens[i].layout)
			return &gens[i];
	return NULL;
}

void pabi_qp_set_core(const struct sv_obj_layout *layout, struct ibv_qp *qp,
		      uint32_t comp_mask, struct verbs_xrcd *xrcd)
{
	/* as rdma-core's core does: the xrcd only with the XRCD bit */
	memcpy((char *)qp + layout->qp_comp_mask, &comp_mask, sizeof(comp_mask));
	if (comp_mask & VERBS_QP_XRCD)
		memcpy((char *)qp + layout->qp_xrcd, &xrcd, sizeof(xrcd));
}
