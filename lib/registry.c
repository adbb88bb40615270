/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The device objects: what one listed device is (its record, the struct
 * ibv_device applications hold), its references, and the low accessors
 * everything above needs (its record from an ibv_device, its character
 * device, its node type and transport). Discovery and the device list are
 * lib/device.c's. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

enum ibv_node_type sv_node_type_of(long v)
{
	switch (v) {
	case IBV_NODE_CA:
	case IBV_NODE_SWITCH:
	case IBV_NODE_ROUTER:
	case IBV_NODE_RNIC:
	case IBV_NODE_USNIC:
	case IBV_NODE_USNIC_UDP:
	case IBV_NODE_UNSPECIFIED:
		return (enum ibv_node_type)v;
	default:
		return IBV_NODE_UNKNOWN;
	}
}

enum ibv_node_type sv_parse_node_type(const char *text)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(text, &end, 10);
	if (errno || end == text || (*end && *end != ':'))
		return IBV_NODE_UNKNOWN;
	return sv_node_type_of(v);
}

enum ibv_transport_type sv_transport_of(enum ibv_node_type type)
{
	switch (type) {
	case IBV_NODE_CA:
	case IBV_NODE_SWITCH:
	case IBV_NODE_ROUTER:
		return IBV_TRANSPORT_IB;
	case IBV_NODE_RNIC:
		return IBV_TRANSPORT_IWARP;
	case IBV_NODE_USNIC:
		return IBV_TRANSPORT_USNIC;
	case IBV_NODE_USNIC_UDP:
		return IBV_TRANSPORT_USNIC_UDP;
	case IBV_NODE_UNSPECIFIED:
		return IBV_TRANSPORT_UNSPECIFIED;
	default:
		return IBV_TRANSPORT_UNKNOWN;
	}
}

/* ---- device objects ------------------------------------------------------ */

struct sv_sysfs_dev *sv_device_sysfs(struct ibv_device *dev)
{
	struct sv_sysfs_dev *s;

	if (!dev)
		return NULL;
	s = (struct sv_sysfs_dev *)verbs_get_device(dev)->sysfs;
	return s && s->magic == SV_DEVICE_MAGIC ? s : NULL;
}

void sv_device_hold(struct ibv_device *dev)
{
	atomic_fetch_add(&verbs_get_device(dev)->refcount, 1);
}

void sv_device_put(struct ibv_device *dev)
{
	struct verbs_device *vdev = verbs_get_device(dev);
	struct sv_sysfs_dev *s;

	if (atomic_fetch_sub(&vdev->refcount, 1) != 1)
		return;
	s = (struct sv_sysfs_dev *)vdev->sysfs;
	sv_dbg("%s: last reference gone, device object freed", dev->name);
	s->magic = 0;
	s->hooks->free(vdev);
	free(s);
}

static void fill_ibv_device(struct verbs_device *vdev, struct sv_sysfs_dev *s)
{
	struct ibv_device *dev = &vdev->device;

	atomic_init(&vdev->refcount, 1);
	vdev->sysfs = &s->sd;
	dev->node_type = s->sd.node_type;
	dev->transport_type = sv_transport_of(s->sd.node_type);
	/* lengths were checked when the record was made */
	strcpy(dev->name, s->sd.ibdev_name);
	if (s->owner) {
		/* no uverbs device, no sysfs folder: the paths stay empty
		 * (sysfs reads under them fail), the uverbs name is the
		 * device's */
		strcpy(dev->dev_name, s->sd.ibdev_name);
		return;
	}
	strcpy(dev->dev_name, s->sd.sysfs_name);
	snprintf(dev->dev_path, sizeof(dev->dev_path),
		 "%s/class/infiniband_verbs/%s", sv_sysfs_root(),
		 s->sd.sysfs_name);
	strcpy(dev->ibdev_path, s->sd.ibdev_path);
}

struct verbs_device *sv_device_attach(struct sv_sysfs_dev *s)
{
	for (const struct sv_driver *const *d = sv_drivers; *d; d++) {
		struct verbs_device *vdev;

		if (s->owner && s->owner != *d)
			continue;
		vdev = (*d)->claim(s);

		if (vdev) {
			fill_ibv_device(vdev, s);
			return vdev;
		}
	}
	return NULL;
}

/* ---- opening: one path, through the driver's hook ------------------------ */

struct ibv_context *sv_device_open(struct ibv_device *device,
				   void *private_data)
{
	struct sv_sysfs_dev *s = sv_device_sysfs(device);

	if (!s) {
		if (device)
			sv_err("not a device of this library's device list");
		errno = EINVAL;
		return NULL;
	}
	return s->hooks->open(device, private_data);
}

/* ---- the character device ------------------------------------------------ */

int sv_device_open_cdev(struct sv_sysfs_dev *s, const char *ibdev_name)
{
	int fd = open(s->devnode, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		int err = errno;

		sv_err("%s: cannot open its character device %s: %s",
		       ibdev_name, s->devnode, strerror(err));
		errno = err;
	}
	return fd;
}
