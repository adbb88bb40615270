/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The device objects of the core's registry, in rdma-core's layout
 * (driver.h): rdma-core's provider libraries allocate the verbs_device of
 * a device they drive (alloc_device) and read the verbs_sysfs_dev the
 * core found, so every listed device is one, whoever drives it. These
 * structures are the same in every rdma-core release from 44 to 65
 * (checked against the sources at each tag; lib/pabi/generations.c has
 * the ones that differ). Member names follow rdma-core's, so that a
 * reader can compare. */
#ifndef SV_VERBS_DEVICE_H
#define SV_VERBS_DEVICE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <infiniband/verbs.h>

/* rdma-core 64 (driver.h): a buffer of ibv_alloc_buf, the provider's or
 * the core's default (page-aligned memory of its own); ibv_reg_buf_mr
 * registers a range of it, through the dma-buf when it has one. */
struct ibv_buf {
	void *addr;
	size_t size;
	struct ibv_pd *pd;
	int dmabuf_fd; /* -1: plain memory */
};

/* ccan's list node, embedded in two of the structures below. */
struct sv_list_node {
	struct sv_list_node *next, *prev;
};

/* ---- devices -------------------------------------------------------------- */

enum {
	VERBS_MATCH_SENTINEL = 0,
	VERBS_MATCH_PCI = 1,
	VERBS_MATCH_MODALIAS = 2,
	VERBS_MATCH_DRIVER_ID = 3,
};

/* One row of a provider's match table; the table ends with kind 0. */
struct verbs_match_ent {
	void *driver_data;
	union {
		const char *modalias; /* fnmatch(3) pattern */
		uint64_t driver_id;   /* enum rdma_driver_id */
	} u;
	uint16_t vendor;
	uint16_t device;
	uint8_t kind;
};

/* verbs_sysfs_dev.flags: which lazily read fields are valid */
enum {
	VSYSFS_READ_MODALIAS = 1 << 0,
	VSYSFS_READ_NODE_GUID = 1 << 1,
};

/* One kernel RDMA device as the core found it; providers read it in
 * match_device() and alloc_device() and keep a pointer to it. */
struct verbs_sysfs_dev {
	struct sv_list_node entry;
	void *provider_data;
	const struct verbs_match_ent *match;
	unsigned int flags;
	char sysfs_name[IBV_SYSFS_NAME_MAX];   /* uverbsN */
	dev_t sysfs_cdev;
	char ibdev_name[IBV_SYSFS_NAME_MAX];   /* mlx5_0 */
	char ibdev_path[IBV_SYSFS_PATH_MAX];   /* <sysfs>/class/infiniband/mlx5_0 */
	char modalias[512];
	uint64_t node_guid;
	uint32_t driver_id;
	enum ibv_node_type node_type;
	int ibdev_idx;
	uint32_t num_ports;
	uint32_t abi_ver;
	struct timespec time_created;
};

struct verbs_device;

/* What a provider hands to verbs_register_driver_34(). */
struct verbs_device_ops {
	const char *name;
	uint32_t match_min_abi_version;
	uint32_t match_max_abi_version;
	const struct verbs_match_ent *match_table;
	const struct verbs_device_ops **static_providers;
	bool (*match_device)(struct verbs_sysfs_dev *sysfs_dev);
	struct verbs_context *(*alloc_context)(struct ibv_device *device,
					       int cmd_fd, void *private_data);
	struct verbs_context *(*import_context)(struct ibv_device *device,
						int cmd_fd);
	struct verbs_device *(*alloc_device)(struct verbs_sysfs_dev *sysfs_dev);
	void (*uninit_device)(struct verbs_device *device);
};

/* Every device the core lists: providers allocate theirs (with this
 * first) in alloc_device(); the core allocates a bare one for its
 * built-in providers. */
struct verbs_device {
	struct ibv_device device; /* what applications see: first */
	const struct verbs_device_ops *ops;
	atomic_int refcount;
	struct sv_list_node entry;
	struct verbs_sysfs_dev *sysfs;
	uint64_t core_support;
};

static inline struct verbs_device *verbs_get_device(const struct ibv_device *dev)
{
	return (struct verbs_device *)((char *)dev -
				       offsetof(struct verbs_device, device));
}

#endif
