/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The device objects (lib/registry.c): one listed device, its references
 * and its low accessors. What only the core sees, as lib/core.h (which
 * includes this). */
#ifndef SV_REGISTRY_H
#define SV_REGISTRY_H

#include <stdint.h>

#include "verbs_device.h"

struct sv_obj_layout;
struct sv_provider;

/* The core's record of one kernel device. Every listed device is a
 * struct verbs_device whose `sysfs` points here: rdma-core's providers
 * allocate the verbs_device in alloc_device() and are handed &sd; for the
 * built-in providers the core allocates a bare verbs_device. */
struct sv_sysfs_dev {
	struct verbs_sysfs_dev sd;        /* what rdma-core providers read: first */
	uint32_t magic;                   /* SV_DEVICE_MAGIC */
	char devnode[IBV_SYSFS_PATH_MAX]; /* /dev/infiniband/uverbsN */
	/* who drives it: a built-in provider, or (NULL) the rdma-core
	 * provider in the verbs_device's ops */
	const struct sv_provider *native;
	/* where the core finds its members in the driving provider's
	 * objects: &sv_native_layout, or the rdma-core provider's
	 * generation (set by sv_rdmacore_attach) */
	const struct sv_obj_layout *layout;
	int listed;                       /* in the device list (its lock held) */
};
#define SV_DEVICE_MAGIC 0x73766476u

/* The record of a device of ours, or NULL (not one of our lists). */
struct sv_sysfs_dev *sv_device_sysfs(struct ibv_device *dev);
void sv_device_hold(struct ibv_device *dev);
/* Drop a reference: the last one frees the device object and its
 * record. */
void sv_device_put(struct ibv_device *dev);
/* A device object for a found record (its magic set), driven by a
 * built-in provider or by one of rdma-core's already registered; NULL
 * when nobody drives it (yet: the caller may load rdma-core's libraries
 * and try again). Device list lock held. */
struct verbs_device *sv_device_attach(struct sv_sysfs_dev *s);

/* Node type from the number the kernel gives (netlink, sysfs), and from
 * the text of sysfs node_type ("1: CA"); the transport a node type
 * means. */
enum ibv_node_type sv_node_type_of(long v);
enum ibv_node_type sv_parse_node_type(const char *text);
enum ibv_transport_type sv_transport_of(enum ibv_node_type type);
/* The character device of a listed device, opened O_RDWR|O_CLOEXEC:
 * an fd or -1 with errno (logged). */
int sv_device_open_cdev(struct sv_sysfs_dev *sysfs, const char *ibdev_name);

#endif
