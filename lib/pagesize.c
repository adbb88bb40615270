/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/ioctl.h>
#include <linux/magic.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "log.h"
#include "pagesize.h"

/* Measured on this machine kind (Linux 6.18): one PROCMAP_QUERY ioctl
 * costs ~0.6 us whatever the number of mappings; rdma-core's smaps scan
 * costs 1.5 ms at 100 registrations and grows with every mapping.
 *
 * PROCMAP_QUERY (Linux 6.11, <linux/fs.h>) is newer than the system
 * headers this builds against, so its ABI is spelled out here: an ioctl
 * on an open /proc/<pid>/maps that describes the mapping covering
 * query_addr, vma_page_size included. */
#define SV_PROCFS_IOCTL_MAGIC 'f'
struct sv_procmap_query {
	uint64_t size;
	uint64_t query_flags;
	uint64_t query_addr;
	uint64_t vma_start;
	uint64_t vma_end;
	uint64_t vma_flags;
	uint64_t vma_page_size;
	uint64_t vma_offset;
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint32_t vma_name_size;
	uint32_t build_id_size;
	uint64_t vma_name_addr;
	uint64_t build_id_addr;
};
#define SV_PROCMAP_QUERY _IOWR(SV_PROCFS_IOCTL_MAGIC, 17, struct sv_procmap_query)

/* All guarded by lock. The descriptor is opened once: a query through it
 * is a single syscall. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int maps_fd = -1;
static int query_unsupported;
static int force_fallback;

int sv_pagesize_force_fallback(int on)
{
	int old;

	pthread_mutex_lock(&lock);
	old = force_fallback;
	force_fallback = on;
	pthread_mutex_unlock(&lock);
	return old;
}

/* Lock held. 1 answered (*ps may be 0: not mapped), 0 use the fallback. */
static int query_ioctl(uintptr_t addr, size_t *ps, uintptr_t *vma_end)
{
	struct sv_procmap_query q = { .size = sizeof(q), .query_addr = addr };

	if (query_unsupported || force_fallback)
		return 0;
	if (maps_fd < 0) {
		maps_fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
		if (maps_fd < 0) {
			query_unsupported = 1;
			return 0;
		}
	}
	if (ioctl(maps_fd, SV_PROCMAP_QUERY, &q) == 0) {
		*ps = (size_t)q.vma_page_size;
		*vma_end = (uintptr_t)q.vma_end;
		return 1;
	}
	if (errno == ENOENT) {
		*ps = 0;
		return 1;
	}
	sv_dbg("PROCMAP_QUERY unavailable (%s); using /proc/self/maps", strerror(errno));
	query_unsupported = 1;
	return 0;
}

/* KernelPageSize of the smaps entry starting at vma_start (hugetlbfs
 * mappings only get here, so the scan is rare). */
static size_t smaps_page_size(uintptr_t vma_start)
{
	char line[512];
	size_t ps = 0;
	int in = 0;
	FILE *f = fopen("/proc/self/smaps", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		uintptr_t s, e;
		unsigned long kb;

		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &s, &e) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			if (in)
				break;
			in = s == vma_start;
		} else if (in && sscanf(line, "KernelPageSize: %lu kB", &kb) == 1) {
			ps = (size_t)kb * 1024;
			break;
		}
	}
	fclose(f);
	return ps;
}

/* Kernels before 6.11: find the line of /proc/self/maps (far smaller
 * than smaps) covering addr. Anonymous memory (no inode) uses base pages;
 * a file-backed mapping is asked through statfs on its map_files link
 * (works for deleted files such as MAP_HUGETLB's anon_hugepage and
 * SysV SHM_HUGETLB); only if that is refused is smaps read, for that one
 * mapping. */
static size_t fallback_page_size(uintptr_t addr, uintptr_t *vma_end)
{
	char line[512];
	size_t ps = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		uintptr_t s, e;
		unsigned long inode;
		char path[64];
		struct statfs sfs;

		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %*s %*s %*s %lu", &s, &e, &inode) != 3)
			continue;
		if (addr < s || addr >= e)
			continue;
		*vma_end = e;
		ps = (size_t)sysconf(_SC_PAGESIZE);
		if (!inode)
			break;
		snprintf(path, sizeof(path), "/proc/self/map_files/%" PRIxPTR "-%" PRIxPTR, s, e);
		if (statfs(path, &sfs) == 0) {
			if (sfs.f_type == HUGETLBFS_MAGIC)
				ps = (size_t)sfs.f_bsize;
		} else {
			size_t sps = smaps_page_size(s);

			if (sps)
				ps = sps;
		}
		break;
	}
	fclose(f);
	return ps;
}

size_t sv_mapping_page_size(uintptr_t addr, uintptr_t *vma_end)
{
	uintptr_t end = 0;
	size_t ps = 0;

	pthread_mutex_lock(&lock);
	if (!query_ioctl(addr, &ps, &end))
		ps = fallback_page_size(addr, &end);
	pthread_mutex_unlock(&lock);
	if (vma_end)
		*vma_end = end;
	return ps;
}

void sv_pagesize_fork_prepare(void)
{
	pthread_mutex_lock(&lock);
}

void sv_pagesize_fork_parent(void)
{
	pthread_mutex_unlock(&lock);
}

void sv_pagesize_fork_child(void)
{
	if (maps_fd >= 0)
		close(maps_fd);
	maps_fd = -1;
	pthread_mutex_unlock(&lock);
}
