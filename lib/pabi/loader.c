/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rdma-core's provider libraries on softverbs' core: loading them the way
 * rdma-core does (the config directory's "driver NAME" lines, the
 * provider directory, RDMAV_DRIVERS / IBV_DRIVERS), under the file name
 * of every provider ABI this library speaks (lib<name>-rdmav65.so ...
 * -rdmav34.so), recording what they register and through which node,
 * and matching a found device to one of them (driver id first, then the
 * match table by name, modalias, PCI id; match_device; the ABI range),
 * then alloc_device: the core's driver pabi_driver. */
#include "config.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pabi.h"

/* ---- registrations ------------------------------------------------------- */

/* Every verbs_register_driver_34() call, in order, with what was learnt
 * about the provider: its generation (looked up when it first matches a
 * device) and whether its refusal was said. A provider registers from
 * its constructor: when it is dlopen()ed here, or when a program that
 * links it (perftest links libmlx5) starts. Guarded by drivers_lock;
 * never shrinks (a provider's ops live as long as its library, which is
 * never unloaded). */
struct driver {
	const struct verbs_device_ops *ops;
	const char *node;             /* the node it registered through */
	int looked_up;                /* gen (NULL: refused) and why are set */
	const struct pabi_gen *gen;
	char why[384];                /* the evidence, or what is missing */
};
static pthread_mutex_t drivers_lock = PTHREAD_MUTEX_INITIALIZER;
static struct driver *drivers;
static size_t ndrivers, drivers_cap;

static void register_driver(const struct verbs_device_ops *ops,
			    const char *node)
{
	struct driver *v;

	if (!ops || !ops->name || !ops->alloc_device) {
		sv_complain("a provider registered itself without a name or alloc_device; ignored");
		return;
	}
	pthread_mutex_lock(&drivers_lock);
	for (size_t i = 0; i < ndrivers; i++) {
		if (drivers[i].ops == ops) {
			pthread_mutex_unlock(&drivers_lock);
			return;
		}
	}
	if (ndrivers == drivers_cap) {
		size_t cap = drivers_cap ? drivers_cap * 2 : 32;

		v = realloc(drivers, cap * sizeof(*v));
		if (!v) {
			pthread_mutex_unlock(&drivers_lock);
			sv_complain("out of memory registering provider %s", ops->name);
			return;
		}
		drivers = v;
		drivers_cap = cap;
	}
	drivers[ndrivers++] = (struct driver){ .ops = ops, .node = node };
	pthread_mutex_unlock(&drivers_lock);
	sv_dbg("rdma-core provider '%s' registered (%s)", ops->name, node);
}

/* One per version node: what node a provider registered through says
 * which rdma-core built it (lib/pabi/generations.c). */
SV_EXPORT void verbs_register_driver_34(const struct verbs_device_ops *ops)
{
	register_driver(ops, "IBVERBS_PRIVATE_34");
}

SV_EXPORT void verbs_register_driver_57(const struct verbs_device_ops *ops)
{
	register_driver(ops, "IBVERBS_PRIVATE_57");
}

SV_EXPORT void verbs_register_driver_59(const struct verbs_device_ops *ops)
{
	register_driver(ops, "IBVERBS_PRIVATE_59");
}

SV_EXPORT void verbs_register_driver_64(const struct verbs_device_ops *ops)
{
	register_driver(ops, "IBVERBS_PRIVATE_64");
}

SV_EXPORT void verbs_register_driver_65(const struct verbs_device_ops *ops)
{
	register_driver(ops, "IBVERBS_PRIVATE_65");
}

size_t sv_rdmacore_driver_count(void)
{
	size_t n;

	pthread_mutex_lock(&drivers_lock);
	n = ndrivers;
	pthread_mutex_unlock(&drivers_lock);
	return n;
}

const struct verbs_device_ops *sv_rdmacore_driver(size_t i)
{
	const struct verbs_device_ops *ops = NULL;

	pthread_mutex_lock(&drivers_lock);
	if (i < ndrivers)
		ops = drivers[i].ops;
	pthread_mutex_unlock(&drivers_lock);
	return ops;
}

/* ---- loading the libraries ------------------------------------------------ */

/* rdma-core names a provider lib<name>-rdmav<N>.so after its ABI node:
 * every node this library speaks, newest first (one folder normally
 * holds one rdma-core's providers; with several, the newest is taken). */
static const char *const provider_suffixes[] = {
	"-rdmav65.so", "-rdmav64.so", "-rdmav59.so", "-rdmav57.so",
	"-rdmav34.so",
};

/* Where the libraries and their config are; white-box tests point these
 * elsewhere (sv_rdmacore_set_dirs). */
static const char *config_dir = SV_RDMA_CORE_CONFIG_DIR;
static const char *provider_dir = SV_RDMA_CORE_PROVIDER_DIR;

void sv_rdmacore_set_dirs(const char *config, const char *providers)
{
	config_dir = config ? config : SV_RDMA_CORE_CONFIG_DIR;
	provider_dir = providers ? providers : SV_RDMA_CORE_PROVIDER_DIR;
}

/* Load failures are kept, not said: a "driver NAME" line of rdma-core's
 * config is there for hardware this machine may not have, and rdma-core
 * warns about each library that does not load even when no device needs
 * it (nccl#1044, pytorch#113600). They are said, once, when a device
 * ends up with no provider (report_failures); at debug
 * level at once too. Device list lock held. */
#define MAX_LOAD_FAILURES 32
static char *load_failures[MAX_LOAD_FAILURES];
static size_t n_load_failures, n_load_failures_dropped;

static __attribute__((format(printf, 1, 2))) void load_failed(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sv_dbg("%s (said again if a device is left without a provider)", msg);
	if (n_load_failures < MAX_LOAD_FAILURES && (load_failures[n_load_failures] = strdup(msg)))
		n_load_failures++;
	else
		n_load_failures_dropped++;
}

static void report_failures(void)
{
	for (size_t i = 0; i < n_load_failures; i++) {
		sv_log_write(SV_LOG_WARN, "load_provider", "%s", load_failures[i]);
		free(load_failures[i]);
	}
	if (n_load_failures_dropped)
		sv_log_write(SV_LOG_WARN, "load_provider", "and %zu more provider libraries did not load",
			     n_load_failures_dropped);
	n_load_failures = n_load_failures_dropped = 0;
}

/* dlopen the first of prefix + each suffix that exists: 1 when one was
 * loaded, 0 when none exists, -1 when one exists but failed to load
 * (kept: load_failed). */
static int load_with_suffixes(const char *prefix, const char *name)
{
	char path[IBV_SYSFS_PATH_MAX];

	for (size_t i = 0; i < SV_ARRAY_SIZE(provider_suffixes); i++) {
		int n = snprintf(path, sizeof(path), "%s%s", prefix,
				 provider_suffixes[i]);

		if (n < 0 || (size_t)n >= sizeof(path)) {
			load_failed("provider name too long: %.64s...; skipped", name);
			return -1;
		}
		if (access(path, F_OK))
			continue;
		if (dlopen(path, RTLD_NOW)) {
			sv_dbg("loaded %s", path);
			return 1;
		}
		load_failed("could not load provider %s: %s", path, dlerror());
		return -1;
	}
	return 0;
}

static void load_one(const char *name)
{
	char prefix[IBV_SYSFS_PATH_MAX];
	int n, ret;

	/* An absolute path gets the suffix and is opened as it is. */
	if (name[0] == '/')
		n = snprintf(prefix, sizeof(prefix), "%s", name);
	else
		n = snprintf(prefix, sizeof(prefix), "%s/lib%s", provider_dir,
			     name);
	if (n < 0 || (size_t)n >= sizeof(prefix)) {
		load_failed("provider name too long: %.64s...; skipped", name);
		return;
	}
	ret = load_with_suffixes(prefix, name);
	if (ret)
		return;
	if (name[0] == '/') {
		load_failed("could not load provider %s: no %s-rdmav{65,64,59,57,34}.so", name,
			    name);
		return;
	}
	/* then the library search path, as rdma-core falls back */
	for (size_t i = 0; i < SV_ARRAY_SIZE(provider_suffixes); i++) {
		snprintf(prefix, sizeof(prefix), "lib%s%s", name,
			 provider_suffixes[i]);
		if (dlopen(prefix, RTLD_NOW)) {
			sv_dbg("loaded %s from the library search path", prefix);
			return;
		}
	}
	load_failed("could not load provider '%s': no lib%s-rdmav{65,64,59,57,34}.so in %s or the library search path",
		    name, name, provider_dir);
}

/* A name list, one entry per "driver NAME" line or RDMAV_DRIVERS item. */
struct names {
	char **v;
	size_t n, cap;
};

static void names_add(struct names *nl, const char *name, size_t len)
{
	char *copy;

	if (!len)
		return;
	if (nl->n == nl->cap) {
		size_t cap = nl->cap ? nl->cap * 2 : 32;
		char **v = realloc(nl->v, cap * sizeof(*v));

		if (!v)
			return;
		nl->v = v;
		nl->cap = cap;
	}
	copy = strndup(name, len);
	if (copy)
		nl->v[nl->n++] = copy;
}

static void read_config_file(const char *path, struct names *nl)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;

	if (!f) {
		sv_warn("cannot read provider config file %s: %s", path,
			strerror(errno));
		return;
	}
	while (getline(&line, &cap, f) >= 0) {
		char *p = line + strspn(line, " \t");
		size_t len = strcspn(p, " \t\n");

		if (*p == '\n' || *p == '#' || !*p)
			continue;
		if (len == 6 && !strncmp(p, "driver", 6)) {
			p += len;
			p += strspn(p, " \t");
			len = strcspn(p, " \t\n");
			if (len) {
				names_add(nl, p, len);
				continue;
			}
		}
		sv_warn("%s: ignoring the line \"%.*s\"", path,
			(int)strcspn(line, "\n"), line);
	}
	free(line);
	fclose(f);
}

static int is_config(const struct dirent *de)
{
	return de->d_name[0] != '.';
}

static void read_config_dir(struct names *nl)
{
	const char *dir = config_dir;
	struct dirent **ents;
	int n;

	n = scandir(dir, &ents, is_config, alphasort);
	if (n < 0) {
		sv_warn("cannot open the provider config directory %s: %s", dir,
			strerror(errno));
		return;
	}
	for (int i = 0; i < n; i++) {
		char path[IBV_SYSFS_PATH_MAX];
		struct stat st;

		if (snprintf(path, sizeof(path), "%s/%s", dir,
			     ents[i]->d_name) < (int)sizeof(path) &&
		    !stat(path, &st) && S_ISREG(st.st_mode))
			read_config_file(path, nl);
		free(ents[i]);
	}
	free(ents);
}

static void load_all(void)
{
	struct names nl = { 0 };
	const char *env = NULL;

	/* The caller's own providers first, as rdma-core tries them before
	 * the system's; never in a privileged process (lib/env.h). */
	env = sv_env_path("RDMAV_DRIVERS");
	if (!env)
		env = sv_env_path("IBV_DRIVERS");
	for (const char *p = env; p && *p;) {
		size_t len = strcspn(p, ":;");

		names_add(&nl, p, len);
		p += len;
		p += *p != 0;
	}
	read_config_dir(&nl);
	for (size_t i = 0; i < nl.n; i++) {
		load_one(nl.v[i]);
		free(nl.v[i]);
	}
	free(nl.v);
}

static int loaded; /* the device list lock */

void sv_rdmacore_reset(void)
{
	loaded = 0;
}

/* ---- matching ------------------------------------------------------------- */

static int read_modalias(struct verbs_sysfs_dev *sd)
{
	if (!(sd->flags & VSYSFS_READ_MODALIAS)) {
		sd->flags |= VSYSFS_READ_MODALIAS;
		if (sv_read_sysfs(sd->ibdev_path, "device/modalias", sd->modalias,
				  sizeof(sd->modalias)) <= 0)
			sd->modalias[0] = 0;
	}
	return sd->modalias[0] != 0;
}

/* One modalias-like string against one table row. */
static int row_matches_alias(const struct verbs_match_ent *e, const char *alias)
{
	char pci[64];

	switch (e->kind) {
	case VERBS_MATCH_MODALIAS:
		return e->u.modalias && !fnmatch(e->u.modalias, alias, 0);
	case VERBS_MATCH_PCI:
		/* the kernel's PCI modalias: pci:vVVVVVVVVdDDDDDDDDsv... */
		snprintf(pci, sizeof(pci), "pci:v%08Xd%08Xsv*", e->vendor,
			 e->device);
		return !fnmatch(pci, alias, 0);
	default:
		return 0;
	}
}

static const struct verbs_match_ent *match_by_id(const struct verbs_device_ops *ops,
						 const struct verbs_sysfs_dev *sd)
{
	if (sd->driver_id == RDMA_DRIVER_UNKNOWN || !ops->match_table)
		return NULL;
	for (const struct verbs_match_ent *e = ops->match_table; e->kind; e++)
		if (e->kind == VERBS_MATCH_DRIVER_ID && e->u.driver_id == sd->driver_id)
			return e;
	return NULL;
}

static const struct verbs_match_ent *match_table(const struct verbs_device_ops *ops,
						 struct verbs_sysfs_dev *sd)
{
	const struct verbs_match_ent *e;
	char name[IBV_SYSFS_NAME_MAX + 16];

	if (!ops->match_table)
		return NULL;
	e = match_by_id(ops, sd);
	if (e)
		return e;
	/* the device name, as the pattern "rdma_device:N<name>" */
	snprintf(name, sizeof(name), "rdma_device:N%s", sd->ibdev_name);
	for (e = ops->match_table; e->kind; e++)
		if (row_matches_alias(e, name))
			return e;
	if (!read_modalias(sd))
		return NULL;
	for (e = ops->match_table; e->kind; e++)
		if (row_matches_alias(e, sd->modalias))
			return e;
	return NULL;
}

static int provider_matches(const struct verbs_device_ops *ops,
			    struct verbs_sysfs_dev *sd)
{
	sd->match = match_table(ops, sd);
	/* match_device, when there is one, decides (it may look at
	 * sd->match); without it a table row must have matched */
	if (ops->match_device ? !ops->match_device(sd) : !sd->match)
		return 0;
	if (sd->abi_ver < ops->match_min_abi_version ||
	    sd->abi_ver > ops->match_max_abi_version) {
		sv_warn("%s: provider %s speaks uverbs ABI %u..%u, the kernel %u",
			sd->ibdev_name, ops->name, ops->match_min_abi_version,
			ops->match_max_abi_version, sd->abi_ver);
		return 0;
	}
	return 1;
}

/* The file a provider's ops live in. */
static const char *library_of(const struct verbs_device_ops *ops)
{
	Dl_info info;

	if (dladdr(ops, &info) && info.dli_fname)
		return info.dli_fname;
	return NULL;
}

/* The generation of registered provider i, looked up once (device
 * list lock held, so one lookup at a time); NULL when it is refused,
 * which is said once per provider, when it first matches a device. */
static const struct pabi_gen *generation_of(size_t i, const char *ibdev_name,
					    struct driver *out)
{
	struct driver d;
	const char *path;

	pthread_mutex_lock(&drivers_lock);
	d = drivers[i];
	pthread_mutex_unlock(&drivers_lock);
	*out = d;
	if (d.looked_up)
		return d.gen;
	path = library_of(d.ops);
	d.gen = pabi_gen_of_library(path, d.node, d.why, sizeof(d.why));
	d.looked_up = 1;
	if (!d.gen)
		sv_complain("%s: rdma-core's %s provider (%s) is refused: %s",
			    ibdev_name, d.ops->name, path ? path : "?", d.why);
	else
		sv_dbg("rdma-core's %s provider (%s): %s, %s", d.ops->name,
		       path ? path : "?", d.gen->name, d.why);
	pthread_mutex_lock(&drivers_lock);
	drivers[i] = d;
	pthread_mutex_unlock(&drivers_lock);
	*out = d;
	return d.gen;
}

static struct verbs_device *try_provider(size_t i, struct sv_sysfs_dev *s)
{
	const struct verbs_device_ops *ops = sv_rdmacore_driver(i);
	const struct pabi_gen *gen;
	struct verbs_device *vdev;
	struct driver d;
	const char *path;

	if (!provider_matches(ops, &s->sd))
		return NULL;
	/* never drive a provider with a layout it was not built for */
	gen = generation_of(i, s->sd.ibdev_name, &d);
	if (!gen)
		return NULL;
	vdev = ops->alloc_device(&s->sd);
	if (!vdev) {
		sv_complain("%s: provider %s could not allocate its device",
			    s->sd.ibdev_name, ops->name);
		return NULL;
	}
	vdev->ops = ops;
	s->hooks = &pabi_device_hooks;
	s->layout = &gen->layout;
	path = library_of(ops);
	sv_info("%s (%s): driven by rdma-core's %s provider (%s), %s",
		s->sd.ibdev_name, s->sd.sysfs_name, ops->name,
		path ? path : "?", d.why);
	return vdev;
}

/* Matching by driver id wins over the other kinds, whichever provider
 * registered first; then the first provider that matches at all. */
static struct verbs_device *try_registered(struct sv_sysfs_dev *s)
{
	struct verbs_device *vdev;
	const struct verbs_device_ops *ops;

	for (size_t i = 0; (ops = sv_rdmacore_driver(i)); i++)
		if (match_by_id(ops, &s->sd) && (vdev = try_provider(i, s)))
			return vdev;
	for (size_t i = 0; (ops = sv_rdmacore_driver(i)); i++)
		if ((vdev = try_provider(i, s)))
			return vdev;
	return NULL;
}

/* Like rdma-core, the libraries are loaded once, when the first device
 * no registered provider drives turns up. */
static int load_once(void)
{
	if (loaded)
		return 0;
	loaded = 1;
	load_all();
	return 1;
}

const struct sv_driver pabi_driver = {
	.name = "rdma-core",
	.claim = try_registered,
	.load = load_once,
	.report_failures = report_failures,
};
