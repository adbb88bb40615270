/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The uroce driver: what the core asks of whoever lists and opens
 * devices (lib/registry.h). It is the one part of provider/uroce that
 * sees the core, as lib/pabi/loader.c is for rdma-core's providers: no
 * kernel knows its devices, so it finds them itself, makes their
 * records, and opens them without a character device.
 *
 * Where the devices come from, at every listing (softverbs(7)):
 *
 * - SOFTVERBS_UROCE=IFNAME[,IFNAME...], when it is set (even empty): one
 *   device uroce<N> per interface, N its place in the list, and nothing
 *   else: the variable decides the process's uroce devices, so its
 *   names never meet a configured one. Read at the first listing; not
 *   in a privileged process (lib/env.h: it chooses which code drives a
 *   device).
 * - Otherwise the files `softverbs link` writes, "NAME IFNAME" lines:
 *   the system's (SV_SYSTEM_CONFIG_DIR/uroce.conf) first, then the
 *   user's ($XDG_CONFIG_HOME/softverbs/uroce.conf, else
 *   $HOME/.config/softverbs/uroce.conf). A privileged program reads the
 *   system's alone: the user's folder is its caller's. Read again at
 *   each listing, as the kernel's devices are looked up again; a line
 *   that is no device is skipped and said once per version of the file.
 *
 * Each listing asks the interfaces again: a device is listed while its
 * interface exists. */
#include "config.h"

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core.h"
#include "uroce.h"

#define ENV_NAME "SOFTVERBS_UROCE"
#define SYSCONF_ENV "SOFTVERBS_SYSCONFDIR" /* for tests: instead of /etc/softverbs */
#define CONF_FILE "uroce.conf"
#define CONF_LINE_MAX 256          /* bytes of a line, its newline left out */
#define CONF_READ_MAX (64 * 1024)  /* bytes of a file read; the rest ignored */

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
static bool env_set;                                   /* set once */
static char env_names[UROCE_MAX_DEVICES][IF_NAMESIZE]; /* set once */
static size_t env_n;                                   /* set once */
/* an interface already said missing (once each, not at every listing) */
static atomic_bool env_missing_told[UROCE_MAX_DEVICES];

static void read_env(void)
{
	const char *v = sv_env_path(ENV_NAME);

	env_set = v != NULL;
	if (v && *v)
		env_n = uroce_parse_list(v, env_names, UROCE_MAX_DEVICES);
	if (env_set)
		sv_info("%s is set: it alone names this process's uroce devices; softverbs link's files are not read",
			ENV_NAME);
}

/* ---- the files of softverbs link ---------------------------------------------- */

bool uroce_dev_name_valid(const char *name)
{
	size_t plen = strlen(UROCE_NAME_PREFIX), len = strlen(name);

	if (len <= plen || len >= IBV_SYSFS_NAME_MAX ||
	    strncmp(name, UROCE_NAME_PREFIX, plen))
		return false;
	if (name[plen] == '0' && len > plen + 1)
		return false;
	for (size_t i = plen; i < len; i++)
		if (name[i] < '0' || name[i] > '9')
			return false;
	return true;
}

enum { CONF_SYSTEM, CONF_USER, CONF_FILES };

struct conf_dev {
	char name[IBV_SYSFS_NAME_MAX];
	char netdev[IF_NAMESIZE];
	const char *path;      /* the file that names it, and where */
	unsigned int line;
};

/* One listing's reading of the files. */
struct conf {
	struct conf_dev dev[UROCE_MAX_DEVICES];
	size_t n;
	bool full_told;
	char path[CONF_FILES][PATH_MAX];
	struct stat st[CONF_FILES]; /* st_ino 0: not read */
};

/* The version of each file whose mistakes were said: said again only
 * when the file changed (not at every listing of a long-lived process). */
static pthread_mutex_t told_lock = PTHREAD_MUTEX_INITIALIZER;
static struct stat told_st[CONF_FILES]; /* told_lock */
static atomic_int told_open_errno[CONF_FILES];

static bool conf_should_tell(unsigned int which, const struct stat *st)
{
	struct stat *t = &told_st[which];
	bool tell;

	pthread_mutex_lock(&told_lock);
	tell = t->st_dev != st->st_dev || t->st_ino != st->st_ino ||
	       t->st_size != st->st_size ||
	       t->st_mtim.tv_sec != st->st_mtim.tv_sec ||
	       t->st_mtim.tv_nsec != st->st_mtim.tv_nsec;
	*t = *st;
	pthread_mutex_unlock(&told_lock);
	return tell;
}

/* The file's path for which (system or user): false when there is none
 * (a privileged process has no user's file) or it does not fit. */
static bool conf_path(unsigned int which, char *buf, size_t cap)
{
	const char *dir;
	int n;

	if (which == CONF_SYSTEM) {
		dir = sv_env_path(SYSCONF_ENV);
		if (!dir || !*dir)
			dir = SV_SYSTEM_CONFIG_DIR;
		n = snprintf(buf, cap, "%s/%s", dir, CONF_FILE);
	} else {
		/* XDG: a relative XDG_CONFIG_HOME is ignored */
		dir = sv_env_path("XDG_CONFIG_HOME");
		if (dir && dir[0] == '/') {
			n = snprintf(buf, cap, "%s/softverbs/%s", dir, CONF_FILE);
		} else {
			dir = sv_env_path("HOME");
			if (!dir || dir[0] != '/')
				return false;
			n = snprintf(buf, cap, "%s/.config/softverbs/%s", dir,
				     CONF_FILE);
		}
	}
	return n > 0 && (size_t)n < cap;
}

/* The effective uid as the parent user namespace knows it (the
 * uid_map line that holds it): in `unshare -Ur` geteuid() says 0, and
 * /tmp/softverbs-uroce-0 would be the real root's folder, which this
 * user may not use. Without a map (no user namespaces), geteuid(). */
static unsigned int outer_euid(void)
{
	unsigned long in, out, count;
	unsigned int uid = (unsigned int)geteuid(), ret = uid;
	FILE *f = fopen("/proc/self/uid_map", "re");

	if (!f)
		return uid;
	while (fscanf(f, "%lu %lu %lu", &in, &out, &count) == 3)
		if (uid >= in && uid - in < count) {
			ret = (unsigned int)(out + (uid - in));
			break;
		}
	fclose(f);
	return ret;
}

bool uroce_runtime_dir(char *buf, size_t cap, bool fallback)
{
	const char *dir = fallback ? NULL : sv_env_path("XDG_RUNTIME_DIR");
	int n;

	if (dir && dir[0] == '/')
		n = snprintf(buf, cap, "%s/softverbs-uroce", dir);
	else
		n = snprintf(buf, cap, "/tmp/softverbs-uroce-%u", outer_euid());
	return n > 0 && (size_t)n < cap;
}

/* One line of a file, NUL-free, at most CONF_LINE_MAX bytes; false when
 * no room is left for more devices. */
static bool conf_line(struct conf *c, unsigned int which, unsigned int lineno,
		      char *line, bool tell)
{
	const char *path = c->path[which];
	char orig[CONF_LINE_MAX + 1], *save = NULL, *name, *ifname, *more;

	memcpy(orig, line, strlen(line) + 1);
	name = strtok_r(line, " \t\r", &save);
	if (!name || name[0] == '#')
		return true;
	ifname = strtok_r(NULL, " \t\r", &save);
	more = ifname ? strtok_r(NULL, " \t\r", &save) : NULL;
	if (!ifname || more) {
		if (tell)
			sv_complain("%s line %u (\"%s\"): not NAME IFNAME; skipped",
				    path, lineno, orig);
		return true;
	}
	if (!uroce_dev_name_valid(name)) {
		if (tell)
			sv_complain("%s line %u: \"%s\" is no uroce device name (%s<N>); skipped",
				    path, lineno, name, UROCE_NAME_PREFIX);
		return true;
	}
	if (!uroce_netdev_name_valid(ifname)) {
		if (tell)
			sv_complain("%s line %u: \"%s\" is no interface name; skipped",
				    path, lineno, ifname);
		return true;
	}
	for (size_t i = 0; i < c->n; i++) {
		const struct conf_dev *d = &c->dev[i];

		if (!strcmp(d->name, name)) {
			if (tell)
				sv_complain("%s line %u: %s is configured already (%s line %u); skipped",
					    path, lineno, name, d->path, d->line);
			return true;
		}
		if (!strcmp(d->netdev, ifname)) {
			if (tell)
				sv_complain("%s line %u: %s has a device already, %s (%s line %u); no %s",
					    path, lineno, ifname, d->name,
					    d->path, d->line, name);
			return true;
		}
	}
	if (c->n == UROCE_MAX_DEVICES) {
		if (tell && !c->full_told)
			sv_complain("%s line %u: more than %d uroce devices configured; the rest are ignored",
				    path, lineno, UROCE_MAX_DEVICES);
		c->full_told = true;
		return false;
	}
	memcpy(c->dev[c->n].name, name, strlen(name) + 1);
	memcpy(c->dev[c->n].netdev, ifname, strlen(ifname) + 1);
	c->dev[c->n].path = path;
	c->dev[c->n].line = lineno;
	c->n++;
	return true;
}

/* Untrusted text: a line too long or with a NUL byte is skipped whole,
 * and only CONF_READ_MAX bytes are read, into a fixed buffer. */
static void conf_read_lines(struct conf *c, unsigned int which, FILE *f,
			    bool tell)
{
	const char *path = c->path[which];
	char line[CONF_LINE_MAX + 1];
	unsigned int lineno = 0;
	size_t total = 0;
	int ch = 0;

	while (ch != EOF) {
		size_t len = 0;
		bool too_long = false, nul = false;

		while ((ch = getc(f)) != EOF && ch != '\n') {
			if (++total > CONF_READ_MAX)
				break;
			if (ch == '\0')
				nul = true;
			if (len < CONF_LINE_MAX)
				line[len++] = (char)ch;
			else
				too_long = true;
		}
		if (total > CONF_READ_MAX) {
			if (tell)
				sv_complain("%s: longer than %d bytes; the rest is ignored",
					    path, CONF_READ_MAX);
			break;
		}
		line[len] = '\0';
		if (!len && ch == EOF)
			break;
		lineno++;
		if (too_long || nul) {
			if (tell && nul)
				sv_complain("%s line %u (\"%.32s...\"): a NUL byte; skipped",
					    path, lineno, line);
			else if (tell)
				sv_complain("%s line %u (\"%.32s...\"): longer than %d bytes; skipped",
					    path, lineno, line, CONF_LINE_MAX);
			continue;
		}
		if (!conf_line(c, which, lineno, line, tell))
			break;
	}
}

static void conf_read(struct conf *c, unsigned int which)
{
	const char *path = c->path[which];
	struct stat *st = &c->st[which];
	FILE *f;
	int fd, err;

	/* O_NONBLOCK: a FIFO in its place does not hang the listing */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		err = errno;
		goto err_tell;
	}
	if (fstat(fd, st)) {
		err = errno;
		goto err_close;
	}
	if (!S_ISREG(st->st_mode)) {
		err = EINVAL;
		goto err_close;
	}
	/* the user's file may be the system's ($XDG_CONFIG_HOME=/etc) */
	if (which == CONF_USER && c->st[CONF_SYSTEM].st_ino &&
	    st->st_dev == c->st[CONF_SYSTEM].st_dev &&
	    st->st_ino == c->st[CONF_SYSTEM].st_ino)
		goto out_skip;
	f = fdopen(fd, "r");
	if (!f) {
		err = errno;
		goto err_close;
	}
	atomic_store(&told_open_errno[which], 0);
	conf_read_lines(c, which, f, conf_should_tell(which, st));
	fclose(f);
	return;

out_skip:
	close(fd);
	st->st_ino = 0;
	return;
err_close:
	close(fd);
	st->st_ino = 0;
err_tell:
	if (err == ENOENT || err == ENOTDIR)
		return;
	if (atomic_exchange(&told_open_errno[which], err) != err)
		sv_complain("%s: %s; its uroce devices are not listed", path,
			    err == EINVAL ? "not a regular file" : strerror(err));
}

/* ---- the driver ------------------------------------------------------------- */

extern const struct sv_driver uroce_driver;

/* A record for the device name over the interface ifname: 0; a
 * positive errno when the interface cannot be asked (no record); or
 * -ENOMEM. */
static int add_record(struct sv_found *found, const char *name,
		      const char *ifname)
{
	struct uroce_netdev nd;
	struct sv_sysfs_dev *s;
	int ret;

	ret = uroce_netdev_query(ifname, &nd);
	if (ret)
		return ret;
	s = sv_record_new();
	if (!s)
		return -ENOMEM;
	snprintf(s->sd.ibdev_name, sizeof(s->sd.ibdev_name), "%s", name);
	s->owner = &uroce_driver;
	memcpy(s->netdev, ifname, strlen(ifname) + 1);
	s->sd.node_type = IBV_NODE_CA;
	s->sd.node_guid = uroce_guid_of_mac(nd.mac);
	s->sd.flags |= VSYSFS_READ_NODE_GUID;
	s->sd.num_ports = 1;
	ret = sv_found_add(found, s);
	if (ret)
		free(s);
	return ret;
}

static int discover_env(struct sv_found *found)
{
	for (size_t i = 0; i < env_n; i++) {
		const char *ifname = env_names[i];
		char name[IBV_SYSFS_NAME_MAX];
		int ret;

		if (!ifname[0])
			continue;
		snprintf(name, sizeof(name), "%s%zu", UROCE_NAME_PREFIX, i);
		ret = add_record(found, name, ifname);
		if (ret < 0)
			return ret;
		if (ret && !atomic_exchange(&env_missing_told[i], true))
			sv_complain("%s: network interface %s: %s; no %s",
				    ENV_NAME, ifname,
				    ret == ENODEV ? "no such interface here" :
						    strerror(ret),
				    name);
	}
	return 0;
}

/* A configured device whose interface is gone is not listed, as rxe's
 * device goes with its netdev; said at info level only (softverbs link
 * show says it), not by every program at every start. */
static int discover_conf(struct sv_found *found)
{
	struct conf *c = calloc(1, sizeof(*c));
	int ret = 0;

	if (!c)
		return -ENOMEM;
	for (unsigned int w = 0; w < CONF_FILES; w++) {
		if (!conf_path(w, c->path[w], sizeof(c->path[w])))
			continue;
		conf_read(c, w);
		if (c->full_told)
			break;
	}
	for (size_t i = 0; i < c->n; i++) {
		const struct conf_dev *d = &c->dev[i];

		ret = add_record(found, d->name, d->netdev);
		if (ret < 0)
			break;
		if (ret)
			sv_info("%s (%s line %u): network interface %s: %s; not listed",
				d->name, d->path, d->line, d->netdev,
				ret == ENODEV ? "no such interface here" :
						strerror(ret));
		ret = 0;
	}
	free(c);
	return ret;
}

static int uroce_discover(struct sv_found *found)
{
	pthread_once(&env_once, read_env);
	return env_set ? discover_env(found) : discover_conf(found);
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
