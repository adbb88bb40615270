/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rdma-core 64's dma-buf heap helpers (IBVERBS_PRIVATE_64 on): providers
 * that must place buffers in memory a confidential-computing guest
 * shares with the host (mlx5's alloc_buf on a CoCo VM) allocate them from
 * the kernel's "system_cc_shared" dma-buf heap (/dev/dma_heap/, the
 * DMA_HEAP_IOCTL_ALLOC of <linux/dma-heap.h>) and map them. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/dma-heap.h>

#include "pabi.h"

struct ibv_dmabuf_heap {
	int heap_fd;
};

SV_EXPORT struct ibv_dmabuf_heap *ibv_dmabuf_heap_cc_shared_init(void)
{
	struct ibv_dmabuf_heap *heap;
	int fd;

	fd = open("/dev/dma_heap/system_cc_shared", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		sv_dbg("/dev/dma_heap/system_cc_shared: %s", strerror(errno));
		return NULL;
	}
	heap = calloc(1, sizeof(*heap));
	if (!heap) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	heap->heap_fd = fd;
	return heap;
}
PABI_EXPORT_64(ibv_dmabuf_heap_cc_shared_init);

SV_EXPORT void ibv_dmabuf_heap_destroy(struct ibv_dmabuf_heap *heap)
{
	if (!heap)
		return;
	close(heap->heap_fd);
	free(heap);
}
PABI_EXPORT_64(ibv_dmabuf_heap_destroy);

/* size bytes of the heap, mapped: the address (and *dmabuf_fd), or NULL
 * with errno */
SV_EXPORT void *ibv_dmabuf_heap_alloc(struct ibv_dmabuf_heap *heap, size_t size,
				      int *dmabuf_fd)
{
	struct dma_heap_allocation_data data = {
		.len = size,
		.fd_flags = O_RDWR | O_CLOEXEC,
	};
	void *buf;
	int err;

	if (!heap || !size || !dmabuf_fd) {
		errno = EINVAL;
		return NULL;
	}
	if (ioctl(heap->heap_fd, DMA_HEAP_IOCTL_ALLOC, &data) < 0) {
		sv_dbg("DMA_HEAP_IOCTL_ALLOC of %zu bytes: %s", size,
		       strerror(errno));
		return NULL;
	}
	buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   (int)data.fd, 0);
	if (buf == MAP_FAILED) {
		err = errno;
		close((int)data.fd);
		errno = err;
		return NULL;
	}
	*dmabuf_fd = (int)data.fd;
	return buf;
}
PABI_EXPORT_64(ibv_dmabuf_heap_alloc);

SV_EXPORT void ibv_dmabuf_heap_free(void *buf, size_t size, int dmabuf_fd)
{
	if (buf)
		munmap(buf, size);
	if (dmabuf_fd >= 0)
		close(dmabuf_fd);
}
PABI_EXPORT_64(ibv_dmabuf_heap_free);
