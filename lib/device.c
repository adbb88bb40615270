/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Device discovery (netlink RDMA_NLDEV, sysfs fallback), the device
 * list and the exported device-list functions (the device objects
 * themselves are lib/registry.c's).
 *
 * One device list per process, as rdma-core keeps: a device that is still
 * present keeps its struct ibv_device across ibv_get_device_list() calls
 * (librdmacm compares lists by pointer), a device that went away drops
 * out of later lists but its object lives while a list or a context
 * holds it, a new device gets a new object. */
#include "config.h"

#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <pthread.h>
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

/* ---- discovery: what both paths find ------------------------------------- */

int sv_found_add(struct sv_found *fv, struct sv_sysfs_dev *s)
{
	if (fv->n == fv->cap) {
		size_t cap = fv->cap ? fv->cap * 2 : 8;
		struct sv_sysfs_dev **v = realloc(fv->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		fv->v = v;
		fv->cap = cap;
	}
	fv->v[fv->n++] = s;
	return 0;
}

static void found_free(struct sv_found *fv)
{
	for (size_t i = 0; i < fv->n; i++)
		free(fv->v[i]);
	free(fv->v);
	memset(fv, 0, sizeof(*fv));
}

static int copy_name(char *dst, const char *src)
{
	size_t len = strlen(src);

	if (!len || len >= IBV_SYSFS_NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(dst, src, len + 1);
	return 0;
}

struct sv_sysfs_dev *sv_record_new(void)
{
	struct sv_sysfs_dev *s = calloc(1, sizeof(*s));

	if (s) {
		s->sd.ibdev_idx = -1;
		s->sd.driver_id = RDMA_DRIVER_UNKNOWN;
		s->sd.node_type = IBV_NODE_UNKNOWN;
	}
	return s;
}

static int set_ibdev(struct sv_sysfs_dev *s, const char *ibdev)
{
	int n;

	if (copy_name(s->sd.ibdev_name, ibdev))
		return -ENAMETOOLONG;
	n = snprintf(s->sd.ibdev_path, sizeof(s->sd.ibdev_path),
		     "%s/class/infiniband/%s", sv_sysfs_root(), ibdev);
	if (n < 0 || (size_t)n >= sizeof(s->sd.ibdev_path))
		return -ENAMETOOLONG;
	return 0;
}

/* The node GUID as sysfs prints it ("0002:c903:0010:92e0"). */
static int parse_guid(const char *buf, uint64_t *guid)
{
	unsigned int p[4];
	char tail;

	if (sscanf(buf, "%4x:%4x:%4x:%4x%c", &p[0], &p[1], &p[2], &p[3],
		   &tail) != 4)
		return -EINVAL;
	*guid = (uint64_t)p[0] << 48 | (uint64_t)p[1] << 32 |
		(uint64_t)p[2] << 16 | p[3];
	return 0;
}

/* The last checks of a found device: a character device that exists and
 * is the one the kernel named (otherwise opening it later could reach
 * some other device), the sysfs facts netlink does not give. 0 keeps
 * it. */
static int finish_record(struct sv_sysfs_dev *s)
{
	const char *ib = s->sd.ibdev_name;
	struct stat st;
	char buf[64];
	int n;

	if (s->sd.sysfs_name[0] == 0 || !s->sd.ibdev_path[0])
		return -EINVAL;
	n = snprintf(s->devnode, sizeof(s->devnode), "%s/%s", sv_dev_dir(),
		     s->sd.sysfs_name);
	if (n < 0 || (size_t)n >= sizeof(s->devnode)) {
		sv_warn("%s: device path too long; device skipped", ib);
		return -ENAMETOOLONG;
	}
	if (stat(s->devnode, &st) || !S_ISCHR(st.st_mode)) {
		sv_warn("%s: character device %s missing; device skipped", ib,
			s->devnode);
		return -ENODEV;
	}
	if (s->sd.sysfs_cdev && st.st_rdev != s->sd.sysfs_cdev) {
		sv_warn("%s: %s is %u:%u, the kernel says %u:%u; device skipped",
			ib, s->devnode, major(st.st_rdev), minor(st.st_rdev),
			major(s->sd.sysfs_cdev), minor(s->sd.sysfs_cdev));
		return -ENODEV;
	}
	if (!(s->sd.flags & VSYSFS_READ_NODE_GUID) &&
	    sv_read_sysfs(s->sd.ibdev_path, "node_guid", buf, sizeof(buf)) > 0 &&
	    !parse_guid(buf, &s->sd.node_guid))
		s->sd.flags |= VSYSFS_READ_NODE_GUID;
	return 0;
}

/* ---- sysfs ---------------------------------------------------------------- */

static int sysfs_one(const char *class_dir, const char *entry,
		     struct sv_sysfs_dev *s)
{
	char dir[IBV_SYSFS_PATH_MAX];
	char buf[IBV_SYSFS_NAME_MAX + 1];
	unsigned long abi;
	unsigned int maj, min;
	struct stat st;
	char tail;
	int n;

	if (copy_name(s->sd.sysfs_name, entry)) {
		sv_warn("%s: name too long; device skipped", entry);
		return -1;
	}
	n = snprintf(dir, sizeof(dir), "%s/%s", class_dir, entry);
	if (n < 0 || (size_t)n >= sizeof(dir))
		return -1;
	n = sv_read_sysfs(dir, "ibdev", buf, sizeof(buf));
	if (n < 0 || set_ibdev(s, buf)) {
		sv_warn("%s: unreadable or too long ibdev (%d); device skipped",
			entry, n);
		return -1;
	}
	n = sv_read_sysfs_uint(dir, "abi_version", &abi);
	if (n || abi > 0xffff) {
		sv_warn("%s: bad abi_version; device skipped", entry);
		return -1;
	}
	s->sd.abi_ver = (uint32_t)abi;
	n = sv_read_sysfs(dir, "dev", buf, sizeof(buf));
	if (n < 0 || sscanf(buf, "%u:%u%c", &maj, &min, &tail) != 2) {
		sv_warn("%s: bad dev file; device skipped", entry);
		return -1;
	}
	s->sd.sysfs_cdev = makedev(maj, min);
	/* without netlink's device index, a re-created device is told
	 * apart from the old one by its creation time */
	if (stat(s->sd.ibdev_path, &st) == 0)
		s->sd.time_created = st.st_mtim;
	if (sv_read_sysfs(s->sd.ibdev_path, "node_type", buf, sizeof(buf)) > 0)
		s->sd.node_type = sv_parse_node_type(buf);
	return 0;
}

/* In the directory's order, as rdma-core lists devices found this way
 * (the kernel's is a hash order). */
static int discover_sysfs(struct sv_found *fv, const char *class_dir)
{
	struct dirent *de;
	DIR *dir;
	int ret = 0;

	dir = opendir(class_dir);
	if (!dir)
		return -errno;
	while (!ret && (de = readdir(dir))) {
		struct sv_sysfs_dev *s;

		if (strncmp(de->d_name, "uverbs", 6))
			continue;
		s = sv_record_new();
		if (!s) {
			ret = -ENOMEM;
			break;
		}
		if (!sysfs_one(class_dir, de->d_name, s) && !finish_record(s)) {
			ret = sv_found_add(fv, s);
			if (!ret)
				s = NULL;
		}
		free(s);
	}
	closedir(dir);
	return ret;
}

/* ---- netlink -------------------------------------------------------------- */

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
	struct sv_found *fv = arg;
	struct sv_sysfs_dev *s;
	const char *name;
	int ret;

	sv_nl_parse(nlh, tb, RDMA_NLDEV_ATTR_MAX - 1);
	name = sv_nla_str(tb[RDMA_NLDEV_ATTR_DEV_NAME]);
	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX] || !name)
		return 0;
	s = sv_record_new();
	if (!s)
		return -ENOMEM;
	if (set_ibdev(s, name)) {
		sv_warn("%s: name too long; device skipped", name);
		free(s);
		return 0;
	}
	s->sd.ibdev_idx = (int)sv_nla_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	s->sd.num_ports = sv_nla_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	if (tb[RDMA_NLDEV_ATTR_DEV_NODE_TYPE])
		s->sd.node_type =
			sv_node_type_of(sv_nla_u8(tb[RDMA_NLDEV_ATTR_DEV_NODE_TYPE]));
	else {
		char buf[32];

		if (sv_read_sysfs(s->sd.ibdev_path, "node_type", buf,
				  sizeof(buf)) > 0)
			s->sd.node_type = sv_parse_node_type(buf);
	}
	if (tb[RDMA_NLDEV_ATTR_NODE_GUID]) {
		s->sd.node_guid = sv_nla_u64(tb[RDMA_NLDEV_ATTR_NODE_GUID]);
		s->sd.flags |= VSYSFS_READ_NODE_GUID;
	}
	ret = sv_found_add(fv, s);
	if (ret)
		free(s);
	return ret;
}

static int nl_chardev_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = { 0 };
	struct sv_sysfs_dev *s = arg;
	const char *name;
	uint64_t devt;

	sv_nl_parse(nlh, tb, RDMA_NLDEV_ATTR_MAX - 1);
	name = sv_nla_str(tb[RDMA_NLDEV_ATTR_CHARDEV_NAME]);
	if (!name || !tb[RDMA_NLDEV_ATTR_CHARDEV_ABI])
		return 0;
	if (copy_name(s->sd.sysfs_name, name))
		return 0;
	s->sd.abi_ver = (uint32_t)nla_uint(tb[RDMA_NLDEV_ATTR_CHARDEV_ABI]);
	s->sd.driver_id = (uint32_t)nla_uint(tb[RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID]);
	/* the kernel's new_encode_dev(): minor low byte, major, then the
	 * minor's upper bits */
	devt = nla_uint(tb[RDMA_NLDEV_ATTR_CHARDEV]);
	s->sd.sysfs_cdev = makedev((unsigned int)((devt & 0xfff00) >> 8),
				   (unsigned int)((devt & 0xff) |
						  ((devt >> 12) & 0xfff00)));
	return 0;
}

static int discover_netlink(struct sv_found *fv)
{
	struct sv_found all = { 0 };
	int ret;

	ret = sv_nl_nldev(RDMA_NLDEV_CMD_GET, 1, UINT32_MAX, NULL, nl_dev_cb,
			  &all);
	for (size_t i = 0; !ret && i < all.n; i++) {
		struct sv_sysfs_dev *s = all.v[i];

		if (sv_nl_nldev(RDMA_NLDEV_CMD_GET_CHARDEV, 0,
				(uint32_t)s->sd.ibdev_idx, "uverbs",
				nl_chardev_cb, s) || !s->sd.sysfs_name[0]) {
			sv_dbg("%s: no uverbs char device", s->sd.ibdev_name);
			continue;
		}
		if (finish_record(s))
			continue;
		ret = sv_found_add(fv, s);
		if (!ret)
			all.v[i] = NULL;
	}
	found_free(&all);
	return ret;
}

/* Every usable device the kernel has now, as fresh records. */
static int discover(struct sv_found *fv)
{
	char class_dir[IBV_SYSFS_PATH_MAX];
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

	/* Netlink first, as rdma-core does (SYSFS_PATH only moves the sysfs
	 * root its files are read from): it orders devices by the kernel's
	 * index and names their uverbs char devices; the sysfs class folder
	 * is the fallback for kernels or namespaces without RDMA netlink. */
	ret = discover_netlink(fv);
	if (ret) {
		sv_dbg("netlink discovery failed (%d), trying sysfs", ret);
		found_free(fv);
	}
	if (ret)
		ret = discover_sysfs(fv, class_dir);
	if (ret)
		found_free(fv);
	return ret;
}

/* The kernel's devices, then those the drivers know of that no kernel
 * does. A kernel without verbs (ENOSYS) is no error when a driver found
 * a device of its own: only they are listed. */
static int discover_all(struct sv_found *fv)
{
	int kernel = discover(fv);

	if (kernel && kernel != -ENOSYS)
		return kernel;
	for (const struct sv_driver *const *d = sv_drivers; *d; d++) {
		int ret = (*d)->discover ? (*d)->discover(fv) : 0;

		if (ret) {
			found_free(fv);
			return ret;
		}
	}
	if (kernel && !fv->n)
		return kernel;
	return 0;
}

/* ---- the device list ----------------------------------------------------- */

static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
/* The devices of the last listing, in list order; each holds one
 * reference. Guarded by list_lock. */
static struct verbs_device **list_devs;
static size_t list_n, list_cap;

/* rdma-core's rule: the same uverbs device, and the same kernel device
 * (netlink's index is unique for the machine's lifetime; without it, the
 * creation time of the sysfs directory). A device no kernel knows: the
 * same driver found it, with the same name, on the same interface. */
static int same_device(const struct sv_sysfs_dev *sa,
		       const struct sv_sysfs_dev *sb)
{
	const struct verbs_sysfs_dev *a = &sa->sd, *b = &sb->sd;

	if (sa->owner != sb->owner || strcmp(sa->netdev, sb->netdev))
		return 0;
	if (strcmp(a->sysfs_name, b->sysfs_name) ||
	    strcmp(a->ibdev_name, b->ibdev_name) ||
	    a->ibdev_idx != b->ibdev_idx)
		return 0;
	if (a->ibdev_idx == -1 &&
	    (a->time_created.tv_sec != b->time_created.tv_sec ||
	     a->time_created.tv_nsec != b->time_created.tv_nsec))
		return 0;
	return 1;
}

/* Attach the not yet listed records of fv, newest first in the list:
 * rdma-core walks its found list backwards and puts every device it can
 * drive at the head, so one pass leaves them in the kernel's order in
 * front of the devices already listed. Takes the records it uses (NULL
 * in fv). list_lock held. */
static void attach_pass(struct sv_found *fv)
{
	for (size_t k = fv->n; k-- > 0;) {
		struct sv_sysfs_dev *s = fv->v[k];
		struct verbs_device *vdev;

		if (!s)
			continue;
		s->magic = SV_DEVICE_MAGIC;
		vdev = sv_device_attach(s);
		if (!vdev) {
			s->magic = 0;
			continue;
		}
		fv->v[k] = NULL;
		s->listed = 1;
		memmove(&list_devs[1], &list_devs[0],
			list_n * sizeof(*list_devs));
		list_devs[0] = vdev;
		list_n++;
	}
}

/* A record of fv that no driver claimed is left in it. */
static int unclaimed(const struct sv_found *fv)
{
	for (size_t j = 0; j < fv->n; j++)
		if (fv->v[j])
			return 1;
	return 0;
}

/* Have every driver look for more of its providers: 1 when one looked
 * now. list_lock held. */
static int drivers_load(void)
{
	int looked = 0;

	for (const struct sv_driver *const *d = sv_drivers; *d; d++)
		if ((*d)->load && (*d)->load())
			looked = 1;
	return looked;
}

/* Drop from the list the devices the kernel no longer has, keep the
 * rest in place, add the new ones (the drivers load their providers, as
 * rdma-core loads its libraries, the first time a device turns up that
 * no registered provider drives).
 * list_lock held. */
static int list_update(struct sv_found *fv)
{
	size_t kept = 0, fresh = 0;

	for (size_t i = 0; i < list_n; i++) {
		struct verbs_device *vdev = list_devs[i];
		struct sv_sysfs_dev *old = (struct sv_sysfs_dev *)vdev->sysfs;
		size_t j;

		for (j = 0; j < fv->n; j++)
			if (fv->v[j] && same_device(old, fv->v[j]))
				break;
		if (j < fv->n) {
			free(fv->v[j]);
			fv->v[j] = NULL;
			list_devs[kept++] = vdev;
		} else {
			sv_info("%s (%s): gone; dropped from the device list",
				old->sd.ibdev_name,
				old->owner ? old->netdev : old->sd.sysfs_name);
			old->listed = 0;
			sv_device_put(&vdev->device);
		}
	}
	list_n = kept;

	for (size_t j = 0; j < fv->n; j++)
		fresh += fv->v[j] != NULL;
	if (list_n + fresh > list_cap) {
		struct verbs_device **v =
			realloc(list_devs, (list_n + fresh) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		list_devs = v;
		list_cap = list_n + fresh;
	}
	attach_pass(fv);
	if (unclaimed(fv) && drivers_load())
		attach_pass(fv);
	if (unclaimed(fv))
		for (const struct sv_driver *const *d = sv_drivers; *d; d++)
			if ((*d)->report_failures)
				(*d)->report_failures();
	for (size_t j = 0; j < fv->n; j++)
		if (fv->v[j])
			sv_warn("%s (%s): no provider for driver id %u with uverbs ABI %u; device skipped",
				fv->v[j]->sd.ibdev_name, fv->v[j]->sd.sysfs_name,
				fv->v[j]->sd.driver_id, fv->v[j]->sd.abi_ver);
	return 0;
}

int sv_device_list(struct ibv_device ***out)
{
	struct sv_found fv = { 0 };
	struct ibv_device **list;
	int ret;

	if (sv_provider_mode() < 0)
		return -EINVAL;
	ret = discover_all(&fv);
	if (ret)
		return ret;
	pthread_mutex_lock(&list_lock);
	ret = list_update(&fv);
	list = ret ? NULL : calloc(list_n + 1, sizeof(*list));
	if (!ret && !list)
		ret = -ENOMEM;
	for (size_t i = 0; !ret && i < list_n; i++) {
		list[i] = &list_devs[i]->device;
		sv_device_hold(list[i]);
	}
	if (!ret)
		ret = (int)list_n;
	pthread_mutex_unlock(&list_lock);
	found_free(&fv);
	*out = list;
	return ret;
}

/* ---- exported ------------------------------------------------------------- */

#undef ibv_get_device_list
SV_EXPORT struct ibv_device **ibv_get_device_list(int *num_devices)
{
	struct ibv_device **list = NULL;
	int n;

	sv_fork_env_first_use();
	if (num_devices)
		*num_devices = 0;
	n = sv_device_list(&list);
	if (n < 0) {
		errno = -n;
		return NULL;
	}
	if (num_devices)
		*num_devices = n;
	return list;
}

SV_EXPORT void ibv_free_device_list(struct ibv_device **list)
{
	if (!list)
		return;
	for (struct ibv_device **p = list; *p; p++)
		if (sv_device_sysfs(*p))
			sv_device_put(*p);
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
	struct sv_sysfs_dev *s = sv_device_sysfs(device);

	if (!s) {
		errno = EINVAL;
		return 0;
	}
	return htobe64(s->sd.node_guid);
}

SV_EXPORT int ibv_get_device_index(struct ibv_device *device)
{
	struct sv_sysfs_dev *s = sv_device_sysfs(device);

	return s ? s->sd.ibdev_idx : -1;
}
