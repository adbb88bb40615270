/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* tests/integration/fault_inject.c -- the seams of the fault-injection
 * build (configure --enable-fault-injection), for tests/integration/
 * fault_walk only: nothing here is in the shipped library.
 *
 * - the command layer: wrappers installed on the existing seams
 *   sv_cmd_write_fn / sv_cmd_ioctl_fn (the kernel "fails" the command);
 * - madvise and mmap: link-time wraps of the program that links the
 *   core's convenience library (-Wl,--wrap=madvise,--wrap=mmap), so the
 *   range map's MADV_DONTFORK/DOFORK and the providers' queue mappings
 *   (mmap of the uverbs fd) can fail without a line changed in lib/ or
 *   provider/.
 * fi_arm(kind, n) makes the nth call of that kind from now fail once. */
#include "config.h"

#include <errno.h>
#include <sys/mman.h>

#include "core.h"
#include "fault_inject.h"

static unsigned long calls[FI_NKINDS];
static unsigned long armed_at[FI_NKINDS]; /* 0: not armed */
static int fired;
static const char *fired_in;
const char *fi_where = "";

static ssize_t (*real_write)(int fd, const void *buf, size_t len);
static int (*real_ioctl)(int fd, unsigned long request, void *arg);

void *__real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int __real_madvise(void *addr, size_t len, int advice);
int __wrap_madvise(void *addr, size_t len, int advice);

/* Count one call of kind; 1 when this is the one to fail. */
static int hit(enum fi_kind kind)
{
	calls[kind]++;
	if (armed_at[kind] && calls[kind] == armed_at[kind]) {
		armed_at[kind] = 0;
		fired = 1;
		fired_in = fi_where;
		return 1;
	}
	return 0;
}

static ssize_t fi_write(int fd, const void *buf, size_t len)
{
	if (hit(FI_CMD)) {
		errno = ENOMEM;
		return -1;
	}
	return real_write(fd, buf, len);
}

static int fi_ioctl(int fd, unsigned long request, void *arg)
{
	if (hit(FI_CMD)) {
		errno = ENOMEM;
		return -1;
	}
	return real_ioctl(fd, request, arg);
}

void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	/* only mappings of a file: the providers' queues (the library's own
	 * anonymous probe page is not a queue) */
	if (fd >= 0 && hit(FI_MMAP)) {
		errno = ENOMEM;
		return MAP_FAILED;
	}
	return __real_mmap(addr, len, prot, flags, fd, off);
}

int __wrap_madvise(void *addr, size_t len, int advice)
{
	if (hit(FI_MADVISE)) {
		errno = EAGAIN;
		return -1;
	}
	return __real_madvise(addr, len, advice);
}

void fi_install(void)
{
	if (real_write)
		return;
	real_write = sv_cmd_write_fn;
	real_ioctl = sv_cmd_ioctl_fn;
	sv_cmd_write_fn = fi_write;
	sv_cmd_ioctl_fn = fi_ioctl;
}

void fi_arm(enum fi_kind kind, unsigned long n)
{
	for (int k = 0; k < FI_NKINDS; k++)
		armed_at[k] = 0;
	fired = 0;
	fired_in = NULL;
	if (n)
		armed_at[kind] = calls[kind] + n;
}

int fi_fired(const char **where)
{
	if (where)
		*where = fired_in;
	return fired;
}

void *fi_real_mmap(size_t len)
{
	return __real_mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}
