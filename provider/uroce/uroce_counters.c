/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* uroce's counters, visible while the process runs, as the kernel's rxe
 * shows its hw_counters (rdma statistic show, sysfs): rxe's names where
 * uroce does the thing counted, uroce's own for the rest.
 *
 * Each context with an engine (its first QP on) keeps its counters in a
 * file of the user's private folder, the one of the forwarding sockets
 * (uroce_net.c: $XDG_RUNTIME_DIR/softverbs-uroce or
 * /tmp/softverbs-uroce-<euid>, mode 0700, the user's, checked), named
 * counters-<pid>-<n>, mode 0600, mapped shared: the engine counts into
 * the mapping with atomics, and `softverbs link show -s` (tools/
 * softverbs.d/link.sh) reads the files and sums them per device. The
 * file is made under another name and renamed once written, so a reader
 * never sees half a header; it is removed when the context closes.
 *
 * A file outlives a process that dies without closing: its writer holds
 * an exclusive flock(2) on it for the context's life (the kernel drops
 * it with the last descriptor, whatever the process's pid namespace),
 * so a reader that can take the lock knows the writer is gone; the
 * readers ignore such a file, and the next context that starts removes
 * it.
 *
 * The layout (UROCE_CTR_HEADER_BYTES of text, NUL-padded, then the
 * values as 64-bit words of the host's byte order):
 *   softverbs-uroce-counters 1
 *   pid PID
 *   device uroce0
 *   netdev lo
 *   netns INODE          (the network namespace's, /proc/self/ns/net)
 *   names NAME NAME ...  (one per value, in order)
 * Readers take the names from the file, so a newer library may add
 * counters (at the end) without breaking an older reader. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <unistd.h>

#include "uroce.h"

#define UROCE_CTR_MAGIC "softverbs-uroce-counters 1"
#define UROCE_CTR_HEADER_BYTES 4096
#define UROCE_CTR_PREFIX "counters-"

struct uroce_ctr_file {
	void *map;                     /* the whole file */
	size_t len;
	int fd;                        /* holds the flock */
	pid_t pid;                     /* the process that made it */
	char path[128];
};

static const char *const ctr_names[] = {
#define UROCE_CTR_NAME(name, text) [UROCE_CTR_##name] = text,
	UROCE_COUNTERS(UROCE_CTR_NAME)
#undef UROCE_CTR_NAME
};

/* enum uroce_drop's reasons (wire.h), as counters */
static const char *const drop_names[UROCE_DROP_COUNT] = {
	[UROCE_DROP_SHORT] = "drop_short",
	[UROCE_DROP_OPCODE] = "drop_opcode",
	[UROCE_DROP_TRUNCATED] = "drop_truncated",
	[UROCE_DROP_TOO_LONG] = "drop_too_long",
	[UROCE_DROP_ALIGN] = "drop_align",
	[UROCE_DROP_TVER] = "drop_tver",
	[UROCE_DROP_PKEY] = "drop_pkey",
	[UROCE_DROP_QPN] = "drop_qpn0",
	[UROCE_DROP_PAD] = "drop_pad",
	[UROCE_DROP_PAYLOAD_LEN] = "drop_payload_len",
	[UROCE_DROP_QP_TYPE] = "drop_qp_type",
	[UROCE_DROP_ICRC] = "drop_icrc",
};

const char *uroce_ctr_name(enum uroce_ctr c)
{
	if (c < UROCE_CTR_DROP)
		return ctr_names[c];
	if (c < UROCE_CTR_COUNT && drop_names[c - UROCE_CTR_DROP + 1])
		return drop_names[c - UROCE_CTR_DROP + 1];
	return "drop_other"; /* a reason added to wire.h, not named here */
}

/* The header's text into buf (NUL-padded to cap): false when it does
 * not fit. */
static bool header(const struct uroce_context *ctx, unsigned long long ns_ino,
		   char *buf, size_t cap)
{
	size_t n;
	int len;

	memset(buf, 0, cap);
	len = snprintf(buf, cap, "%s\npid %ld\ndevice %s\nnetdev %s\nnetns %llu\nnames",
		       UROCE_CTR_MAGIC, (long)getpid(),
		       ctx->sv.vctx.context.device->name, ctx->netdev, ns_ino);
	if (len < 0 || (size_t)len >= cap)
		return false;
	n = (size_t)len;
	for (int c = 0; c < UROCE_CTR_COUNT; c++) {
		len = snprintf(buf + n, cap - n, " %s",
			       uroce_ctr_name((enum uroce_ctr)c));
		if (len < 0 || (size_t)len >= cap - n)
			return false;
		n += (size_t)len;
	}
	if (n + 1 >= cap)
		return false;
	buf[n] = '\n';
	return true;
}

/* Remove the files of contexts that are gone: their lock is free. */
static void sweep(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[300];
		int fd;

		if (strncmp(de->d_name, UROCE_CTR_PREFIX, strlen(UROCE_CTR_PREFIX)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!flock(fd, LOCK_EX | LOCK_NB))
			unlink(path);
		close(fd);
	}
	closedir(d);
}

/* Make, fill, lock and map the file: 0 or a positive errno. */
static int make_file(struct uroce_context *ctx, const char *dir,
		     unsigned long long ns_ino, struct uroce_ctr_file *f)
{
	static _Atomic unsigned int seq;
	unsigned int n = atomic_fetch_add(&seq, 1);
	char tmp[sizeof(f->path) + 8], head[UROCE_CTR_HEADER_BYTES];
	int ret;

	if (!header(ctx, ns_ino, head, sizeof(head)))
		return ENAMETOOLONG;
	if (snprintf(f->path, sizeof(f->path), "%s/" UROCE_CTR_PREFIX "%ld-%u",
		     dir, (long)getpid(), n) >= (int)sizeof(f->path))
		return ENAMETOOLONG;
	snprintf(tmp, sizeof(tmp), "%s/.new-%ld-%u", dir, (long)getpid(), n);
	unlink(tmp); /* a dead process's of the same pid */
	f->fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		     0600);
	if (f->fd < 0)
		return errno;
	f->len = UROCE_CTR_HEADER_BYTES + sizeof(struct uroce_counters);
	if (flock(f->fd, LOCK_EX | LOCK_NB) || ftruncate(f->fd, (off_t)f->len) ||
	    pwrite(f->fd, head, sizeof(head), 0) != (ssize_t)sizeof(head)) {
		ret = errno ? errno : EIO;
		goto err;
	}
	f->map = mmap(NULL, f->len, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd, 0);
	if (f->map == MAP_FAILED) {
		ret = errno;
		goto err;
	}
	if (rename(tmp, f->path)) {
		ret = errno;
		munmap(f->map, f->len);
		goto err;
	}
	f->pid = getpid();
	return 0;

err:
	unlink(tmp);
	close(f->fd);
	return ret;
}

int uroce_counters_open(struct uroce_context *ctx, const char *dir,
			unsigned long long ns_ino)
{
	struct uroce_ctr_file *f = calloc(1, sizeof(*f));
	int ret;

	if (!f)
		return ENOMEM;
	sweep(dir);
	ret = make_file(ctx, dir, ns_ino, f);
	if (!ret) {
		ctx->ctr_file = f;
		ctx->ctr = (struct uroce_counters *)((uint8_t *)f->map +
						     UROCE_CTR_HEADER_BYTES);
		return 0;
	}
	free(f);
	sv_info("uroce: %s: no counters file in %s (%s): softverbs link show -s will not see this context",
		ctx->netdev, dir, strerror(ret));
	ctx->ctr = calloc(1, sizeof(*ctx->ctr));
	return ctx->ctr ? 0 : ENOMEM;
}

void uroce_counters_close(struct uroce_context *ctx)
{
	struct uroce_ctr_file *f = ctx->ctr_file;

	if (!f) {
		free(ctx->ctr);
	} else {
		if (f->pid == getpid())
			unlink(f->path);
		munmap(f->map, f->len);
		close(f->fd);
		free(f);
	}
	ctx->ctr = NULL;
	ctx->ctr_file = NULL;
}
