/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* sysfs access: the root (SYSFS_PATH), small attribute files, and the
 * historical exported helpers ibv_get_sysfs_path / ibv_read_sysfs_file. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"

static pthread_mutex_t root_lock = PTHREAD_MUTEX_INITIALIZER;
static char root_buf[PATH_MAX]; /* guarded by root_lock until root_set */
static int root_set;            /* guarded by root_lock */

const char *sv_sysfs_root(void)
{
	pthread_mutex_lock(&root_lock);
	if (!root_set) {
		/* not in a privileged process: it must not be pointed at
		 * a tree its caller controls (lib/env.h) */
		const char *env = sv_env_path("SYSFS_PATH");
		size_t len;

		if (!env || !*env || strlen(env) >= sizeof(root_buf))
			env = "/sys";
		len = strlen(env);
		memcpy(root_buf, env, len + 1);
		while (len > 1 && root_buf[len - 1] == '/')
			root_buf[--len] = '\0';
		root_set = 1;
	}
	pthread_mutex_unlock(&root_lock);
	return root_buf;
}

void sv_sysfs_reset(void)
{
	pthread_mutex_lock(&root_lock);
	root_set = 0;
	pthread_mutex_unlock(&root_lock);
}

/* Read a whole small file at path: length without the trailing newline,
 * or -errno. */
static int read_small_file(const char *path, char *buf, size_t size)
{
	ssize_t len;
	int fd;

	if (!size)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, size);
	if (len < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	close(fd);
	if (len > 0 && buf[len - 1] == '\n') {
		buf[--len] = '\0';
	} else if ((size_t)len < size) {
		buf[len] = '\0';
	} else {
		/* no room for the terminator: a truncated value would be
		 * worse than none */
		buf[size - 1] = '\0';
		return -EOVERFLOW;
	}
	return (int)len;
}

int sv_read_sysfs(const char *dir, const char *file, char *buf, size_t size)
{
	char path[PATH_MAX];
	int n;

	/* a device no kernel knows has no folder: nothing under "/" */
	if (!*dir)
		return -ENOENT;
	n = snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	n = read_small_file(path, buf, size);
	if (n == 0)
		return -ENODATA;
	return n;
}

int sv_read_sysfs_uint(const char *dir, const char *file, unsigned long *val)
{
	char buf[32];
	char *end;
	int n;

	n = sv_read_sysfs(dir, file, buf, sizeof(buf));
	if (n < 0)
		return n;
	if (buf[0] < '0' || buf[0] > '9')
		return -EINVAL;
	errno = 0;
	*val = strtoul(buf, &end, 10);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

static const char *dev_dir_override; /* set by tests before discovery */

void sv_set_dev_dir(const char *dir)
{
	dev_dir_override = dir;
}

const char *sv_dev_dir(void)
{
	return dev_dir_override ? dev_dir_override : "/dev/infiniband";
}

/* ---- exported (IBVERBS_1.0) --------------------------------------------- */

SV_EXPORT const char *ibv_get_sysfs_path(void)
{
	return sv_sysfs_root();
}

/* Historical contract: the length read (trailing newline dropped), or -1
 * with errno set. */
SV_EXPORT int ibv_read_sysfs_file(const char *dir, const char *file,
				  char *buf, size_t size)
{
	char path[PATH_MAX];
	int n;

	if (!dir || !file || !buf) {
		errno = EINVAL;
		return -1;
	}
	if (!*dir) {
		errno = ENOENT;
		return -1;
	}
	n = snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	n = read_small_file(path, buf, size);
	if (n < 0) {
		errno = -n;
		return -1;
	}
	return n;
}
