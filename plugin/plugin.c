/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A softverbs provider as an rdma-core plug-in: the adapter from
 * softverbs' provider contract (struct sv_provider, struct
 * sv_context_ops; lib/provider.h) to rdma-core's (struct
 * verbs_device_ops, verbs_set_ops; the provider ABI node of the system's
 * libibverbs, IBVERBS_PRIVATE_<SV_PLUGIN_PABI>: 34 on rdma-core 44-56,
 * 65 on 65). One of these is linked with one provider folder
 * (provider/rxe or provider/siw), the command back end plugin/cmd.c and
 * the core's op defaults (lib/ops.c) into
 * libsoftverbs-<name>-rdmav<N>.so, which rdma-core's libibverbs loads
 * (RDMAV_DRIVERS, a .driver file in /etc/libibverbs.d).
 *
 * rdma-core is the core here: it lists devices, opens the uverbs file,
 * validates what it validates, applies MADV_DONTFORK before our reg_mr
 * (fork safety is rdma-core's in this mode), and calls our ops through
 * its verbs_context. The adapter only builds the device and the context
 * and fills rdma-core's ops table from ours. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "pabi/abi.h"
#include "pabi/same_layout.h"

/* The provider this plug-in carries (-DSV_PLUGIN_PROVIDER=rxe_provider). */
#define sv_plugin_provider SV_PLUGIN_PROVIDER
extern const struct sv_provider SV_PLUGIN_PROVIDER;

/* The layout of the system rdma-core's struct verbs_context_ops: its
 * node's first release, but for IBVERBS_PRIVATE_59, whose table grew at
 * 62 (that rdma-core's verbs.h then declares ibv_query_port_speed). */
#if SV_PLUGIN_PABI == 34
#define PLUG_OPS_RELEASE 44
#elif SV_PLUGIN_PABI == 59 && HAVE_DECL_IBV_QUERY_PORT_SPEED
#define PLUG_OPS_RELEASE 62
#else
#define PLUG_OPS_RELEASE SV_PLUGIN_PABI
#endif

/* rdma-core's ops table, built slot by slot in its release's order
 * (lib/pabi/abi.h's PABI_CONTEXT_OPS). The ops of rdma-core 44 come from
 * the whole table (the core's defaults, then the provider's slots: the
 * generic commands run on rdma-core's ibv_cmd_* here); the newer ones only
 * from the provider itself, where rdma-core's own defaults are the
 * answer (its reg_mr_ex and alloc_buf, EOPNOTSUPP for the rest). The MR
 * ops take a struct verbs_mr *, which points at its ibv_mr, as ours do. */
static void (*plug_ops[PABI_OPS_SLOTS_MAX])(void);
static void plug_free_context(struct ibv_context *ibctx);

static void plug_ops_to_verbs(const struct sv_context_ops *all,
			      const struct sv_context_ops *own)
{
	size_t i = 0;

#define PUT(name, since, ...)                                                 \
	if ((since) <= PLUG_OPS_RELEASE)                                      \
		plug_ops[i++] = (void (*)(void))((since) > 44 ? own : all)->name;
	/* not a verb in our table: the adapter's, since it owns the memory */
#define PUT_FREE(name, since, ...)                                            \
	if ((since) <= PLUG_OPS_RELEASE)                                      \
		plug_ops[i++] = (void (*)(void))plug_free_context;
	PABI_CONTEXT_OPS(PUT, PUT_FREE)
#undef PUT_FREE
#undef PUT
}

/* ibv_create_qp on a provider that has only create_qp_ex (rxe): the
 * plain attributes are the ex ones with just a PD. (lib/ops.c's generic
 * one finds the op through softverbs' core state, which rdma-core's
 * contexts do not have.) */
static struct ibv_qp *plug_create_qp(struct ibv_pd *pd,
				     struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ex;
	struct ibv_qp *qp;

	if (!pd || !attr) {
		errno = EINVAL;
		return NULL;
	}
	ex = sv_qp_init_attr_ex(pd, attr);
	qp = sv_plugin_provider.ops->create_qp_ex(pd->context, &ex);
	if (qp)
		attr->cap = ex.cap;
	return qp;
}

/* The whole table: the core's defaults (generic commands, EOPNOTSUPP),
 * then the provider's slots, then the adapter's. Built once. */
static void plug_build_ops(void)
{
	struct sv_context_ops ops = sv_default_ops;

	sv_ops_merge(&ops, sv_plugin_provider.ops);
	if (sv_plugin_provider.ops->create_qp_ex &&
	    !sv_plugin_provider.ops->create_qp)
		ops.create_qp = plug_create_qp;
	else if (!sv_plugin_provider.ops->create_qp)
		ops.create_qp = NULL;
	plug_ops_to_verbs(&ops, sv_plugin_provider.ops);
}

/* ---- device ------------------------------------------------------------------ */

/* Called by rdma-core once the match table and the ABI range matched. */
static struct verbs_device *plug_alloc_device(struct verbs_sysfs_dev *sysfs_dev)
{
	struct verbs_device *dev = calloc(1, sizeof(*dev));

	if (dev)
		sv_info("softverbs %s provider drives %s",
			sv_plugin_provider.name, sysfs_dev->ibdev_name);
	return dev;
}

static void plug_uninit_device(struct verbs_device *dev)
{
	free(dev);
}

/* ---- context ----------------------------------------------------------------- */

static void plug_free_context(struct ibv_context *ibctx)
{
	struct sv_context *sv = sv_to_context(ibctx);

	if (sv_plugin_provider.free_context)
		sv_plugin_provider.free_context(sv);
	verbs_uninit_context(&sv->vctx);
	free(sv);
}

static struct verbs_context *plug_alloc_context(struct ibv_device *ibdev,
						int cmd_fd, void *private_data)
{
	struct verbs_device *vdev = verbs_get_device(ibdev);
	struct sv_context *sv;
	int ret;

	(void)private_data;
	sv = _verbs_init_and_alloc_context(
		ibdev, cmd_fd, sv_plugin_provider.context_size,
		(struct verbs_context *)offsetof(struct sv_context, vctx),
		sv_plugin_provider.driver_id);
	if (!sv)
		return NULL;
	sv->provider = &sv_plugin_provider;
	sv->abi_version = vdev->sysfs ? vdev->sysfs->abi_ver : 0;
	sv->core.driver_id = sv_plugin_provider.driver_id;
	if (sv_plugin_provider.alloc_context)
		ret = sv_plugin_provider.alloc_context(sv);
	else
		ret = sv_cmd_get_context(&sv->vctx.context, NULL);
	if (ret) {
		sv_err("GET_CONTEXT on %s failed: %s", ibdev->name,
		       strerror(ret));
		verbs_uninit_context(&sv->vctx);
		free(sv);
		errno = ret;
		return NULL;
	}
	verbs_set_ops(&sv->vctx, (const struct verbs_context_ops *)plug_ops);
	sv_dbg("softverbs %s provider: context on %s",
	       sv_plugin_provider.name, ibdev->name);
	return &sv->vctx;
}

/* ---- registration --------------------------------------------------------------- */

static struct verbs_match_ent plug_match[3];
static char plug_name_pattern[64];
static struct verbs_device_ops plug_device_ops;

/* the system rdma-core's registration function, verbs_register_driver_N */
#define PLUG_REGISTER_(n) verbs_register_driver_##n
#define PLUG_REGISTER(n) PLUG_REGISTER_(n)

/* After lib/log.c's constructor (priority 101) has read SOFTVERBS_LOG. */
__attribute__((constructor)) static void plug_register(void)
{
	plug_build_ops();
	plug_match[0].kind = VERBS_MATCH_DRIVER_ID;
	plug_match[0].u.driver_id = sv_plugin_provider.driver_id;
	/* a kernel that reports no driver id: the IB device name, as
	 * rdma-core's own rxe/siw providers match it (VERBS_NAME_MATCH) */
	if (sv_plugin_provider.names && sv_plugin_provider.names[0]) {
		snprintf(plug_name_pattern, sizeof(plug_name_pattern),
			 "rdma_device:*N%s*", sv_plugin_provider.names[0]);
		plug_match[1].kind = VERBS_MATCH_MODALIAS;
		plug_match[1].u.modalias = plug_name_pattern;
	}
	plug_device_ops.name = sv_plugin_provider.name;
	plug_device_ops.match_min_abi_version = sv_plugin_provider.abi_min;
	plug_device_ops.match_max_abi_version = sv_plugin_provider.abi_max;
	plug_device_ops.match_table = plug_match;
	plug_device_ops.alloc_device = plug_alloc_device;
	plug_device_ops.uninit_device = plug_uninit_device;
	plug_device_ops.alloc_context = plug_alloc_context;
	PLUG_REGISTER(SV_PLUGIN_PABI)(&plug_device_ops);
}
