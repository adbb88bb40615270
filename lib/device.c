/* Device discovery (netlink RDMA_NLDEV, sysfs fallback) and the exported
 * device-list functions. */
#include "config.h"

#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core.h"
#include "netlink.h"

/* The uverbs ABI of the kernel's infiniband_verbs class as a whole (not a
 * provider's): 6 since 2006, the only one this library speaks. */
#define SV_UVERBS_ABI 6

static enum ibv_node_type node_type_of(long v)
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
	return node_type_of(v);
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

void sv_device_get(struct sv_device *dev)
{
	__atomic_add_fetch(&dev->refcnt, 1, __ATOMIC_RELAXED);
}

void sv_device_put(struct sv_device *dev)
{
	if (__atomic_sub_fetch(&dev->refcnt, 1, __ATOMIC_ACQ_REL) == 0) {
		dev->magic = 0;
		free(dev);
	}
}

/* ---- what both discovery paths find ------------------------------------- */

struct found {
	char ibdev[IBV_SYSFS_NAME_MAX];  /* rxe0 */
	char chardev[IBV_SYSFS_NAME_MAX]; /* uverbs0 */
	unsigned int abi_version;
	enum rdma_driver_id driver_id;
	dev_t devt;                       /* 0 unknown */
	uint64_t node_guid;
	int have_guid;
	int node_type;                    /* -2: read it from sysfs */
	int ib_index;
};

/* Fill the list entry for one found device, or skip it (NULL). */
static struct sv_device *make_device(const struct found *f)
{
	const char *root = sv_sysfs_root();
	const struct sv_provider *prov;
	struct sv_device *dev;
	char buf[64];
	struct stat st;
	int n;

	prov = sv_provider_match(f->driver_id, f->ibdev, f->abi_version);
	if (!prov) {
		sv_warn("%s (%s): no provider for driver id %d with uverbs ABI %u; device skipped",
			f->ibdev, f->chardev, (int)f->driver_id, f->abi_version);
		return NULL;
	}
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	dev->magic = SV_DEVICE_MAGIC;
	dev->provider = prov;
	dev->abi_version = f->abi_version;
	dev->driver_id = f->driver_id;
	dev->ib_index = f->ib_index;
	dev->refcnt = 1;
	strcpy(dev->ibdev.name, f->ibdev);
	strcpy(dev->ibdev.dev_name, f->chardev);
	n = snprintf(dev->ibdev.dev_path, sizeof(dev->ibdev.dev_path),
		     "%s/class/infiniband_verbs/%s", root, f->chardev);
	if (n < 0 || (size_t)n >= sizeof(dev->ibdev.dev_path))
		goto skip_long;
	n = snprintf(dev->ibdev.ibdev_path, sizeof(dev->ibdev.ibdev_path),
		     "%s/class/infiniband/%s", root, f->ibdev);
	if (n < 0 || (size_t)n >= sizeof(dev->ibdev.ibdev_path))
		goto skip_long;
	n = snprintf(dev->devnode, sizeof(dev->devnode), "%s/%s", sv_dev_dir(),
		     f->chardev);
	if (n < 0 || (size_t)n >= sizeof(dev->devnode))
		goto skip_long;

	/* The character device must exist and be the one the kernel named;
	 * otherwise opening it later could reach some other device. */
	if (stat(dev->devnode, &st) || !S_ISCHR(st.st_mode)) {
		sv_warn("%s: character device %s missing; device skipped",
			f->ibdev, dev->devnode);
		goto skip;
	}
	if (f->devt && st.st_rdev != f->devt) {
		sv_warn("%s: %s is %u:%u, the kernel says %u:%u; device skipped",
			f->ibdev, dev->devnode, major(st.st_rdev),
			minor(st.st_rdev), major(f->devt), minor(f->devt));
		goto skip;
	}

	if (f->node_type >= -1) {
		dev->ibdev.node_type = (enum ibv_node_type)f->node_type;
	} else if (sv_read_sysfs(dev->ibdev.ibdev_path, "node_type", buf,
				 sizeof(buf)) > 0) {
		dev->ibdev.node_type = sv_parse_node_type(buf);
	} else {
		dev->ibdev.node_type = IBV_NODE_UNKNOWN;
	}
	dev->ibdev.transport_type = sv_transport_of(dev->ibdev.node_type);

	if (f->have_guid) {
		dev->node_guid = f->node_guid;
	} else if (sv_read_sysfs(dev->ibdev.ibdev_path, "node_guid", buf,
				 sizeof(buf)) > 0) {
		unsigned int p[4];
		char tail;

		if (sscanf(buf, "%4x:%4x:%4x:%4x%c", &p[0], &p[1], &p[2], &p[3],
			   &tail) == 4)
			dev->node_guid = (uint64_t)p[0] << 48 |
					 (uint64_t)p[1] << 32 |
					 (uint64_t)p[2] << 16 | p[3];
	}
	return dev;

skip_long:
	sv_warn("%s: sysfs or device path too long; device skipped", f->ibdev);
skip:
	free(dev);
	return NULL;
}

struct dev_vec {
	struct sv_device **v; /* NULL-terminated */
	int n;
	int cap;
};

static int vec_add(struct dev_vec *vec, struct sv_device *dev)
{
	if (vec->n + 1 >= vec->cap) {
		int cap = vec->cap ? vec->cap * 2 : 8;
		struct sv_device **v = realloc(vec->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		vec->v = v;
		vec->cap = cap;
	}
	vec->v[vec->n++] = dev;
	vec->v[vec->n] = NULL;
	return 0;
}

static void vec_free(struct dev_vec *vec)
{
	for (int i = 0; i < vec->n; i++)
		sv_device_put(vec->v[i]);
	free(vec->v);
	vec->v = NULL;
	vec->n = vec->cap = 0;
}

static int vec_add_found(struct dev_vec *vec, const struct found *f)
{
	struct sv_device *dev = make_device(f);
	int ret;

	if (!dev)
		return 0;
	ret = vec_add(vec, dev);
	if (ret)
		sv_device_put(dev);
	return ret;
}

/* ---- sysfs -------------------------------------------------------------- */

static int copy_name(char *dst, const char *src)
{
	size_t len = strlen(src);

	if (!len || len >= IBV_SYSFS_NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(dst, src, len + 1);
	return 0;
}

static int sysfs_one(const char *class_dir, const char *entry,
		     struct found *f)
{
	char dir[IBV_SYSFS_PATH_MAX];
	char buf[IBV_SYSFS_NAME_MAX + 1];
	unsigned long abi;
	unsigned int maj, min;
	char tail;
	int n;

	memset(f, 0, sizeof(*f));
	f->node_type = -2;
	f->ib_index = -1;
	f->driver_id = RDMA_DRIVER_UNKNOWN;
	if (copy_name(f->chardev, entry)) {
		sv_warn("%s: name too long; device skipped", entry);
		return -1;
	}
	n = snprintf(dir, sizeof(dir), "%s/%s", class_dir, entry);
	if (n < 0 || (size_t)n >= sizeof(dir))
		return -1;
	n = sv_read_sysfs(dir, "ibdev", buf, sizeof(buf));
	if (n < 0 || copy_name(f->ibdev, buf)) {
		sv_warn("%s: unreadable or too long ibdev (%d); device skipped",
			entry, n);
		return -1;
	}
	n = sv_read_sysfs_uint(dir, "abi_version", &abi);
	if (n || abi > 0xffff) {
		sv_warn("%s: bad abi_version; device skipped", entry);
		return -1;
	}
	f->abi_version = (unsigned int)abi;
	n = sv_read_sysfs(dir, "dev", buf, sizeof(buf));
	if (n < 0 || sscanf(buf, "%u:%u%c", &maj, &min, &tail) != 2) {
		sv_warn("%s: bad dev file; device skipped", entry);
		return -1;
	}
	f->devt = makedev(maj, min);
	return 0;
}

static int is_uverbs(const struct dirent *de)
{
	return !strncmp(de->d_name, "uverbs", 6);
}

/* In uverbsN order (versionsort: uverbs2 before uverbs10), which is the
 * order the devices were created in, like the kernel's device index that
 * orders the netlink listing; readdir's order is a hash order. */
static int discover_sysfs(struct dev_vec *vec, const char *class_dir)
{
	struct dirent **names;
	int n, ret = 0;

	n = scandir(class_dir, &names, is_uverbs, versionsort);
	if (n < 0)
		return -errno;
	for (int i = 0; i < n; i++) {
		struct found f;

		if (!ret && !sysfs_one(class_dir, names[i]->d_name, &f))
			ret = vec_add_found(vec, &f);
		free(names[i]);
	}
	free(names);
	return ret;
}

/* ---- netlink ------------------------------------------------------------ */

struct nl_devs {
	struct found *v;
	int n;
	int cap;
	int err;
};

/* An integer attribute the kernel sends as u32 or u64. */
static uint64_t nla_uint(const struct nlattr *a)
{
	if (!a)
		return 0;
	if (a->nla_len >= NLA_HDRLEN + sizeof(uint64_t))
		return sv_nla_u64(a);
	return sv_nla_u32(a);
}

static int nl_dev_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = { 0 };
	struct nl_devs *devs = arg;
	struct found *f;
	const char *name;

	sv_nl_parse(nlh, tb, RDMA_NLDEV_ATTR_MAX - 1);
	name = sv_nla_str(tb[RDMA_NLDEV_ATTR_DEV_NAME]);
	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX] || !name)
		return 0;
	if (devs->n == devs->cap) {
		int cap = devs->cap ? devs->cap * 2 : 8;
		struct found *v = realloc(devs->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		devs->v = v;
		devs->cap = cap;
	}
	f = &devs->v[devs->n];
	memset(f, 0, sizeof(*f));
	if (copy_name(f->ibdev, name)) {
		sv_warn("%s: name too long; device skipped", name);
		return 0;
	}
	f->ib_index = (int)sv_nla_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	f->node_type = tb[RDMA_NLDEV_ATTR_DEV_NODE_TYPE] ?
		(int)node_type_of(sv_nla_u8(tb[RDMA_NLDEV_ATTR_DEV_NODE_TYPE])) :
		-2;
	if (tb[RDMA_NLDEV_ATTR_NODE_GUID]) {
		f->node_guid = sv_nla_u64(tb[RDMA_NLDEV_ATTR_NODE_GUID]);
		f->have_guid = 1;
	}
	devs->n++;
	return 0;
}

static int nl_chardev_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = { 0 };
	struct found *f = arg;
	const char *name;
	uint64_t devt;

	sv_nl_parse(nlh, tb, RDMA_NLDEV_ATTR_MAX - 1);
	name = sv_nla_str(tb[RDMA_NLDEV_ATTR_CHARDEV_NAME]);
	if (!name || !tb[RDMA_NLDEV_ATTR_CHARDEV_ABI])
		return 0;
	if (copy_name(f->chardev, name))
		return 0;
	f->abi_version = (unsigned int)nla_uint(tb[RDMA_NLDEV_ATTR_CHARDEV_ABI]);
	f->driver_id = (enum rdma_driver_id)nla_uint(
		tb[RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID]);
	/* the kernel's new_encode_dev(): minor low byte, major, then the
	 * minor's upper bits */
	devt = nla_uint(tb[RDMA_NLDEV_ATTR_CHARDEV]);
	f->devt = makedev((unsigned int)((devt & 0xfff00) >> 8),
			  (unsigned int)((devt & 0xff) | ((devt >> 12) & 0xfff00)));
	return 0;
}

static int discover_netlink(struct dev_vec *vec)
{
	struct nl_devs devs = { 0 };
	int ret;

	ret = sv_nl_nldev(RDMA_NLDEV_CMD_GET, 1, UINT32_MAX, NULL, nl_dev_cb,
			  &devs);
	if (ret)
		goto out;
	for (int i = 0; i < devs.n; i++) {
		struct found *f = &devs.v[i];

		if (sv_nl_nldev(RDMA_NLDEV_CMD_GET_CHARDEV, 0, (uint32_t)f->ib_index,
				"uverbs", nl_chardev_cb, f) || !f->chardev[0]) {
			sv_dbg("%s: no uverbs char device", f->ibdev);
			continue;
		}
		ret = vec_add_found(vec, f);
		if (ret)
			break;
	}
out:
	free(devs.v);
	return ret;
}

int sv_discover(struct sv_device ***list)
{
	char class_dir[IBV_SYSFS_PATH_MAX];
	struct dev_vec vec = { 0 };
	unsigned long abi;
	int ret = -1;
	int n;

	/* Like rdma-core: a kernel without the uverbs class (or with an ABI
	 * this library does not speak) has no verbs at all: ENOSYS, which
	 * programs report as "Function not implemented". */
	n = snprintf(class_dir, sizeof(class_dir), "%s/class/infiniband_verbs",
		     sv_sysfs_root());
	if (n < 0 || (size_t)n >= sizeof(class_dir))
		return -ENAMETOOLONG;
	n = sv_read_sysfs_uint(class_dir, "abi_version", &abi);
	if (n) {
		sv_dbg("%s/abi_version unreadable (%d): no uverbs support",
		       class_dir, n);
		return -ENOSYS;
	}
	if (abi != SV_UVERBS_ABI) {
		sv_warn("kernel uverbs ABI %lu, this library speaks %d", abi,
			SV_UVERBS_ABI);
		return -ENOSYS;
	}

	/* With SYSFS_PATH the caller asks about that tree: netlink would
	 * describe this machine instead. */
	if (!secure_getenv("SYSFS_PATH")) {
		ret = discover_netlink(&vec);
		if (ret) {
			sv_dbg("netlink discovery failed (%d), trying sysfs", ret);
			vec_free(&vec);
		}
	}
	if (ret)
		ret = discover_sysfs(&vec, class_dir);
	if (ret) {
		vec_free(&vec);
		return ret;
	}
	if (!vec.v) {
		vec.v = calloc(1, sizeof(*vec.v));
		if (!vec.v)
			return -ENOMEM;
	}
	*list = vec.v;
	return vec.n;
}

/* ---- exported ----------------------------------------------------------- */

static struct sv_device *checked_device(struct ibv_device *ibdev)
{
	struct sv_device *dev;

	if (!ibdev)
		return NULL;
	dev = sv_to_device(ibdev);
	return dev->magic == SV_DEVICE_MAGIC ? dev : NULL;
}

#undef ibv_get_device_list
SV_EXPORT struct ibv_device **ibv_get_device_list(int *num_devices)
{
	struct sv_device **list;
	int n;

	sv_init_once();
	sv_fork_env_first_use();
	n = sv_discover(&list);
	if (n < 0) {
		if (num_devices)
			*num_devices = 0;
		errno = -n;
		return NULL;
	}
	if (num_devices)
		*num_devices = n;
	/* struct ibv_device is the first member of each sv_device */
	return (struct ibv_device **)list;
}

SV_EXPORT void ibv_free_device_list(struct ibv_device **list)
{
	if (!list)
		return;
	for (struct ibv_device **p = list; *p; p++) {
		struct sv_device *dev = checked_device(*p);

		if (dev)
			sv_device_put(dev);
	}
	free(list);
}

SV_EXPORT const char *ibv_get_device_name(struct ibv_device *device)
{
	if (!device) {
		errno = EINVAL;
		return NULL;
	}
	return device->name;
}

SV_EXPORT __be64 ibv_get_device_guid(struct ibv_device *device)
{
	struct sv_device *dev = checked_device(device);

	if (!dev) {
		errno = EINVAL;
		return 0;
	}
	return htobe64(dev->node_guid);
}

SV_EXPORT int ibv_get_device_index(struct ibv_device *device)
{
	struct sv_device *dev = checked_device(device);

	return dev ? dev->ib_index : -1;
}
