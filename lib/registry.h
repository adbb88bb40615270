/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The device objects (lib/registry.c): one listed device, its references
 * and its low accessors. What only the core sees, as lib/core.h (which
 * includes this). */
#ifndef SV_REGISTRY_H
#define SV_REGISTRY_H

#include <net/if.h>
#include <stdint.h>
#include <sys/types.h>

#include "verbs_device.h"

struct sv_obj_layout;
struct sv_provider;
struct sv_sysfs_dev;
struct sv_found;

/* What the core asks of whoever drives a device: set in the device's
 * record by the driver that claims it (struct sv_driver), and the only
 * way the core reaches that driver afterwards. None of them assumes a
 * character device: a driver that has one opens it itself. */
struct sv_device_hooks {
	/* A context on the device (private_data: verbs_open_device's, NULL
	 * from ibv_open_device), finished (sv_context_finish_open) and
	 * holding a reference to the device; or NULL with errno (logged). */
	struct ibv_context *(*open)(struct ibv_device *device,
				    void *private_data);
	/* Optional: a context on cmd_fd, a command fd of the device that
	 * another process opened (ibv_import_device), not yet finished; or
	 * NULL with errno. NULL: the driver cannot import. */
	struct verbs_context *(*import)(struct ibv_device *device, int cmd_fd);
	/* Release a context open or import made, once the core has
	 * forgotten it (ibv_close_device), and its device reference. */
	void (*close)(struct ibv_context *ctx);
	/* The device's last reference went: free the device object and the
	 * driver's data (the core frees the record after). */
	void (*free)(struct verbs_device *vdev);
	/* Optional: GID entry index of port_num, for a device whose GID
	 * table no kernel keeps (no ioctl, no sysfs to read): 0, ENODATA
	 * for an empty entry, or a positive errno. Its entries are packed
	 * from index 0 (the first empty one ends the table). NULL: the
	 * kernel's. */
	int (*query_gid)(struct ibv_context *ctx, uint32_t port_num,
			 uint32_t index, struct ibv_gid_entry *entry);
	/* Optional: P_Key index of port_num, for such a device (the kernel
	 * answers in sysfs): 0, or a positive errno (ENOENT past the
	 * table, as sysfs). NULL: the kernel's. */
	int (*query_pkey)(struct ibv_context *ctx, uint8_t port_num,
			  int index, __be16 *pkey);
	/* Optional, the three or none: completion channels of a device
	 * whose completion events no kernel delivers (lib/events.c).
	 * create_comp_channel: a channel whose fd is readable while it
	 * holds an event (the core sets its context and refcnt), or NULL
	 * with errno. destroy_comp_channel: free it (no CQ uses it any
	 * more). get_cq_event: take the next event as a read() of the
	 * kernel's channel would, blocking unless the application made the
	 * fd O_NONBLOCK: 0 and the CQ, or a positive errno (EAGAIN). NULL:
	 * the kernel's channel. */
	struct ibv_comp_channel *(*create_comp_channel)(struct ibv_context *ctx);
	void (*destroy_comp_channel)(struct ibv_comp_channel *channel);
	int (*get_cq_event)(struct ibv_comp_channel *channel,
			    struct ibv_cq **cq);
};

/* A driver: who claims the devices discovery finds. The core asks them
 * in the order of sv_drivers (lib/providers.c). */
struct sv_driver {
	const char *name;
	/* Optional: add to found a record (sv_record_new, sv_found_add) for
	 * each device this driver knows of that no kernel does, its owner
	 * set to this driver: 0 or -errno. Called at every listing, after
	 * the kernel's devices were found, whether or not the kernel has
	 * any. Device list lock not held. */
	int (*discover)(struct sv_found *found);
	/* A device object for a found record this driver drives, with
	 * s->hooks and s->layout set (the core fills the ibv_device); NULL
	 * when it does not drive it. A record with an owner is offered to
	 * its owner only. Device list lock held. */
	struct verbs_device *(*claim)(struct sv_sysfs_dev *s);
	/* Optional: look for more of its providers, once (rdma-core's
	 * libraries): 1 when it looked now, so claiming the devices left is
	 * worth trying again. Device list lock held. */
	int (*load)(void);
	/* Optional: a device was left without a driver: say, once, what
	 * failed to load. Device list lock held. */
	void (*report_failures)(void);
};
/* NULL-terminated. */
extern const struct sv_driver *const sv_drivers[];

/* The core's record of one device: a kernel device (found through
 * netlink or sysfs), or one a driver found itself that no kernel knows
 * (its owner set: no character device, no sysfs folder; devnode and
 * sd's sysfs_name, ibdev_path are empty, sd.ibdev_idx is -1). Every
 * listed device is a struct verbs_device whose `sysfs` points here:
 * rdma-core's providers allocate the verbs_device in alloc_device() and
 * are handed &sd; for the built-in providers the core allocates a bare
 * verbs_device. */
struct sv_sysfs_dev {
	struct verbs_sysfs_dev sd;        /* what rdma-core providers read: first */
	uint32_t magic;                   /* SV_DEVICE_MAGIC */
	char devnode[IBV_SYSFS_PATH_MAX]; /* /dev/infiniband/uverbsN, or "" */
	/* the driver that found a device no kernel knows; NULL: a kernel
	 * device */
	const struct sv_driver *owner;
	/* the network interface the device works over, when the record
	 * says (a device of an owner): part of its identity */
	char netdev[IF_NAMESIZE];
	/* the driver's hooks, set when it claimed the device */
	const struct sv_device_hooks *hooks;
	/* the built-in driver's data: which of its providers (rdma-core's
	 * providers are the verbs_device's ops) */
	const struct sv_provider *native;
	/* where the core finds its members in the driving provider's
	 * objects: &sv_native_layout, or the rdma-core provider's
	 * generation (set when the device is claimed) */
	const struct sv_obj_layout *layout;
	int listed;                       /* in the device list (its lock held) */
};
#define SV_DEVICE_MAGIC 0x73766476u

/* The records one listing found (lib/device.c), in list order. */
struct sv_found {
	struct sv_sysfs_dev **v;
	size_t n, cap;
};
/* A zeroed record (no index, driver id, node type unknown), or NULL. */
struct sv_sysfs_dev *sv_record_new(void);
/* Append s to found, which then owns it: 0 or -ENOMEM (s not taken). */
int sv_found_add(struct sv_found *found, struct sv_sysfs_dev *s);

/* The record of a device of ours, or NULL (not one of our lists). */
struct sv_sysfs_dev *sv_device_sysfs(struct ibv_device *dev);
void sv_device_hold(struct ibv_device *dev);
/* Drop a reference: the last one frees the device object and its
 * record. */
void sv_device_put(struct ibv_device *dev);
/* A device object for a found record (its magic set), claimed by the
 * first driver that drives it; NULL when none does (yet: the caller may
 * have the drivers load more providers and try again). Device list lock
 * held. */
struct verbs_device *sv_device_attach(struct sv_sysfs_dev *s);
/* Open a listed device through its driver's hook: ibv_open_device and
 * verbs_open_device. NULL with errno. */
struct ibv_context *sv_device_open(struct ibv_device *device,
				   void *private_data);

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
