/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The uroce driver: what the core asks of whoever lists and opens
 * devices (lib/registry.h). It is the one part of provider/uroce that
 * sees the core, as lib/pabi/loader.c is for rdma-core's providers: no
 * kernel knows its devices, so it finds them itself (SOFTVERBS_UROCE),
 * makes their records, and opens them without a character device.
 *
 * SOFTVERBS_UROCE=IFNAME[,IFNAME...]: one device uroce<N> per interface,
 * N its place in the list. Read at the first listing; not in a
 * privileged process (lib/env.h: it chooses which code drives a
 * device). Each listing asks the interfaces again: a device is listed
 * while its interface exists. */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "uroce.h"

#define ENV_NAME "SOFTVERBS_UROCE"

/* ---- the variable ------------------------------------------------------------ */

size_t uroce_parse_list(const char *value, char names[][IF_NAMESIZE],
			size_t max)
{
	size_t n = 0;

	for (const char *p = value; p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char item[IF_NAMESIZE];
		bool ok = len && len < IF_NAMESIZE;

		if (n == max) {
			sv_complain("%s=%s: more than %zu interfaces; the rest are ignored",
				    ENV_NAME, value, max);
			break;
		}
		if (ok) {
			memcpy(item, p, len);
			item[len] = '\0';
			ok = uroce_netdev_name_valid(item);
		}
		names[n][0] = '\0';
		if (!ok) {
			sv_complain("%s: item %zu (\"%.*s\") is no interface name; no %s%zu",
				    ENV_NAME, n + 1, (int)len, p,
				    UROCE_NAME_PREFIX, n);
		} else {
			size_t k;

			for (k = 0; k < n && strcmp(names[k], item); k++)
				;
			if (k < n)
				sv_complain("%s: %s is listed twice (one device per interface); no %s%zu",
					    ENV_NAME, item, UROCE_NAME_PREFIX, n);
			else
				memcpy(names[n], item, len + 1);
		}
		n++;
		p = comma ? comma + 1 : NULL;
	}
	return n;
}

static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static char env_names[UROCE_MAX_DEVICES][IF_NAMESIZE]; /* set once */
static size_t env_n;                                   /* set once */
/* an interface already said missing (once each, not at every listing) */
static atomic_bool env_missing_told[UROCE_MAX_DEVICES];

static void read_env(void)
{
	const char *v = sv_env_path(ENV_NAME);

	if (v && *v)
		env_n = uroce_parse_list(v, env_names, UROCE_MAX_DEVICES);
}

/* ---- the driver ------------------------------------------------------------- */

extern const struct sv_driver uroce_driver;

static int uroce_discover(struct sv_found *found)
{
	pthread_once(&env_once, read_env);
	for (size_t i = 0; i < env_n; i++) {
		const char *name = env_names[i];
		struct uroce_netdev nd;
		struct sv_sysfs_dev *s;
		int ret;

		if (!name[0])
			continue;
		ret = uroce_netdev_query(name, &nd);
		if (ret) {
			if (!atomic_exchange(&env_missing_told[i], true))
				sv_complain("%s: network interface %s: %s; no %s%zu",
					    ENV_NAME, name,
					    ret == ENODEV ? "no such interface here" :
							    strerror(ret),
					    UROCE_NAME_PREFIX, i);
			continue;
		}
		s = sv_record_new();
		if (!s)
			return -ENOMEM;
		snprintf(s->sd.ibdev_name, sizeof(s->sd.ibdev_name), "%s%zu",
			 UROCE_NAME_PREFIX, i);
		s->owner = &uroce_driver;
		memcpy(s->netdev, name, strlen(name) + 1);
		s->sd.node_type = IBV_NODE_CA;
		s->sd.node_guid = uroce_guid_of_mac(nd.mac);
		s->sd.flags |= VSYSFS_READ_NODE_GUID;
		s->sd.num_ports = 1;
		ret = sv_found_add(found, s);
		if (ret) {
			free(s);
			return ret;
		}
	}
	return 0;
}

static const struct sv_device_hooks uroce_hooks;

/* Only the devices uroce_discover found: a kernel's are never ours. */
static struct verbs_device *uroce_claim(struct sv_sysfs_dev *s)
{
	struct verbs_device *vdev;

	if (s->owner != &uroce_driver)
		return NULL;
	vdev = calloc(1, sizeof(*vdev));
	if (!vdev)
		return NULL;
	s->hooks = &uroce_hooks;
	s->layout = &sv_native_layout;
	sv_info("%s: softverbs' userspace RoCE v2 device over %s",
		s->sd.ibdev_name, s->netdev);
	return vdev;
}

const struct sv_driver uroce_driver = {
	.name = "uroce",
	.discover = uroce_discover,
	.claim = uroce_claim,
};

/* ---- the device's hooks ------------------------------------------------------- */

static struct ibv_context *uroce_open(struct ibv_device *device,
				      void *private_data)
{
	struct sv_sysfs_dev *s = sv_device_sysfs(device);
	struct uroce_context *ctx;
	struct sv_context *sctx;
	int ret;

	(void)private_data;
	sctx = sv_context_alloc(device, &uroce_provider, -1, false);
	if (!sctx) {
		errno = ENOMEM;
		return NULL;
	}
	ctx = container_of(sctx, struct uroce_context, sv);
	ret = uroce_context_init(ctx, s->netdev);
	if (ret) {
		sv_err("%s: could not set up a context: %s", device->name,
		       strerror(ret));
		goto err_free;
	}
	ret = sv_context_finish_open(&sctx->vctx);
	if (ret)
		goto err_release;
	sv_device_hold(device);
	return &sctx->vctx.context;

err_release:
	uroce_context_release(ctx);
	close(sctx->vctx.context.async_fd);
err_free:
	sv_context_free(sctx);
	errno = ret;
	return NULL;
}

static void uroce_close(struct ibv_context *ibctx)
{
	struct ibv_device *device = ibctx->device;

	uroce_context_release(to_uroce_context(ibctx));
	close(ibctx->async_fd);
	sv_context_free(sv_to_context(ibctx));
	sv_device_put(device);
}

static void uroce_free_device(struct verbs_device *vdev)
{
	free(vdev);
}

/* No import: another process's context has no fd to hand over. */
static const struct sv_device_hooks uroce_hooks = {
	.open = uroce_open,
	.close = uroce_close,
	.free = uroce_free_device,
	.query_gid = uroce_query_gid,
	.query_pkey = uroce_query_pkey,
	.create_comp_channel = uroce_create_comp_channel,
	.destroy_comp_channel = uroce_destroy_comp_channel,
	.get_cq_event = uroce_get_cq_event,
};
