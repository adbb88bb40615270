/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* uroce's address vectors: the AV of a connected QP (modify_qp to RTR)
 * and address handles for UD. On RoCE v2 an AV is a GRH: the peer's GID,
 * an IPv4-mapped address or an IPv6 one, and the index of the local GID
 * to send from, of the same family, which must be an address one of the
 * context's sockets is bound to (uroce_net.c binds one per address of
 * the interface). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "uroce.h"

/* The sgid's entry as an address of the interface, into route->src */
static int sgid_addr(struct uroce_context *ctx, const struct ibv_ah_attr *av,
		     unsigned int ifindex, struct uroce_route *route)
{
	struct ibv_gid_entry e;
	int ret = uroce_query_gid(&ctx->sv.vctx.context, 1,
				  av->grh.sgid_index, &e);

	if (ret) {
		sv_err("uroce: AV sgid_index %u: no such GID", av->grh.sgid_index);
		return EINVAL;
	}
	uroce_sa_of_gid(&e.gid, ifindex, &route->src);
	return 0;
}

int uroce_av_resolve(struct uroce_context *ctx, const struct ibv_ah_attr *av,
		     struct uroce_route *route)
{
	char s[UROCE_SA_STRLEN], d[UROCE_SA_STRLEN];
	struct uroce_netdev nd;
	int ret;

	if (av->port_num != 1) {
		sv_err("uroce: AV port_num %u: the device has port 1", av->port_num);
		return EINVAL;
	}
	if (!av->is_global) {
		sv_err("uroce: a RoCE AV needs a GRH (is_global = 1)");
		return EINVAL;
	}
	ret = uroce_netdev_query(ctx->netdev, &nd);
	if (ret) {
		sv_err("uroce: AV: interface %s: %s", ctx->netdev, strerror(ret));
		return EINVAL;
	}
	ret = sgid_addr(ctx, av, nd.ifindex, route);
	if (ret)
		return ret;
	uroce_sa_of_gid(&av->grh.dgid, nd.ifindex, &route->dst);
	/* RoCE v2's network type is the sgid's (rxe's
	 * rdma_gid_attr_network_type): the dgid must be of its family */
	if (route->src.sa.sa_family != route->dst.sa.sa_family) {
		sv_err("uroce: AV sgid_index %u is %s, dgid %s: not one IP version",
		       av->grh.sgid_index, uroce_sa_str(&route->src, s),
		       uroce_sa_str(&route->dst, d));
		return EINVAL;
	}
	pthread_mutex_lock(&ctx->qp_lock);
	ret = ctx->net ? uroce_net_check_src(ctx, &route->src) : 0;
	pthread_mutex_unlock(&ctx->qp_lock);
	if (ret)
		sv_err("uroce: AV sgid_index %u (%s) cannot be sent from",
		       av->grh.sgid_index, uroce_sa_str(&route->src, s));
	return ret;
}

struct ibv_ah *uroce_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct uroce_ah *ah;
	struct uroce_route route;
	int ret = uroce_av_resolve(to_uroce_context(pd->context), attr, &route);

	if (ret) {
		errno = ret;
		return NULL;
	}
	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;
	ah->ibah.context = pd->context;
	ah->ibah.pd = pd;
	ah->ibah.handle = (uint32_t)(uintptr_t)ah;
	ah->route = route;
	ah->dgid = attr->grh.dgid;
	return &ah->ibah;
}

int uroce_destroy_ah(struct ibv_ah *ibah)
{
	free(to_uroce_ah(ibah));
	return 0;
}
