/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The core's objects are laid out as rdma-core's (lib/provider.h: struct
 * sv_srq, sv_mr, sv_cq, sv_qp), so that the core treats objects of its own
 * providers and of rdma-core's alike, and the plug-ins hand theirs to
 * rdma-core's core as its own. Checked once here, included by lib/pabi/
 * context.c (the library) and plugin/plugin.c (the plug-ins, against the
 * rdma-core they are built for). */
#ifndef SV_PABI_SAME_LAYOUT_H
#define SV_PABI_SAME_LAYOUT_H

#include <stddef.h>

#include "abi.h"
#include "provider.h"

_Static_assert(sizeof(struct sv_srq) == sizeof(struct verbs_srq) &&
		       offsetof(struct sv_srq, srq_num) ==
			       offsetof(struct verbs_srq, srq_num),
	       "sv_srq is laid out as verbs_srq");
_Static_assert(sizeof(struct sv_mr) == sizeof(struct verbs_mr) &&
		       offsetof(struct sv_mr, mr_type) ==
			       offsetof(struct verbs_mr, mr_type) &&
		       offsetof(struct sv_mr, access) ==
			       offsetof(struct verbs_mr, access) &&
		       (int)SV_MR_TYPE_DMABUF_MR == (int)IBV_MR_TYPE_DMABUF_MR,
	       "sv_mr is laid out as verbs_mr");
_Static_assert(sizeof(struct sv_cq) == sizeof(struct verbs_cq),
	       "sv_cq is laid out as verbs_cq");
_Static_assert(SV_QP_EX == VERBS_QP_EX, "one bit says a QP has ibv_qp_ex");
#ifdef SV_PLUGIN_PROVIDER
/* In the library a provider's verbs_qp is its generation's (lib/pabi/
 * generations.c); a plug-in's is the one of its rdma-core's verbs.h. */
_Static_assert(sizeof(struct sv_qp) == sizeof(struct verbs_qp) &&
		       offsetof(struct sv_qp, comp_mask) ==
			       offsetof(struct verbs_qp, comp_mask),
	       "sv_qp is laid out as verbs_qp");
#endif

#endif
