/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The uverbs ioctl identifiers newer than the system's kernel uAPI headers
 * (linux-libc-dev): Debian 12's 6.1 headers lack what kernels 6.16-7.2 and
 * rdma-core 57-65 added. Each block is declared only when configure found
 * the system's <rdma/ib_user_ioctl_*.h> without it (HAVE_DECL_*), with the
 * values of those headers (the enums count up from the member before);
 * the rdma-core release whose kernel-headers/ first carries it is named.
 * A kernel that lacks a method answers the ioctl with EPROTONOSUPPORT or
 * EOPNOTSUPP, which the callers report. */
#ifndef SV_UVERBS_EXT_H
#define SV_UVERBS_EXT_H

#ifndef HAVE_DECL_UVERBS_OBJECT_DMAH
#error "config.h (configure's HAVE_DECL_*) must come first"
#endif

#include <linux/types.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>

/* rdma-core 57: GET_CONTEXT takes an array of fds */
#if !HAVE_DECL_UVERBS_ATTR_GET_CONTEXT_FD_ARR
#define UVERBS_ATTR_GET_CONTEXT_FD_ARR (UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT + 1)
#endif

/* rdma-core 59: CREATE_CQ on a buffer of the provider's (VA or dma-buf) */
#if !HAVE_DECL_UVERBS_ATTR_CREATE_CQ_BUFFER_VA
#define UVERBS_ATTR_CREATE_CQ_BUFFER_VA (UVERBS_ATTR_CREATE_CQ_EVENT_FD + 1)
#define UVERBS_ATTR_CREATE_CQ_BUFFER_LENGTH (UVERBS_ATTR_CREATE_CQ_EVENT_FD + 2)
#define UVERBS_ATTR_CREATE_CQ_BUFFER_FD (UVERBS_ATTR_CREATE_CQ_EVENT_FD + 3)
#define UVERBS_ATTR_CREATE_CQ_BUFFER_OFFSET (UVERBS_ATTR_CREATE_CQ_EVENT_FD + 4)
#endif

/* rdma-core 59: DMA handles (TPH steering) */
#if !HAVE_DECL_UVERBS_OBJECT_DMAH
#define UVERBS_OBJECT_DMAH (UVERBS_OBJECT_ASYNC_EVENT + 1)
#define UVERBS_METHOD_DMAH_ALLOC 0
#define UVERBS_METHOD_DMAH_FREE 1
#define UVERBS_ATTR_ALLOC_DMAH_HANDLE 0
#define UVERBS_ATTR_ALLOC_DMAH_CPU_ID 1
#define UVERBS_ATTR_ALLOC_DMAH_TPH_MEM_TYPE 2
#define UVERBS_ATTR_ALLOC_DMAH_PH 3
#define UVERBS_ATTR_FREE_DMA_HANDLE 0
#endif

/* rdma-core 59: REG_MR as an ioctl (address or dma-buf fd, DMA handle) */
#if !HAVE_DECL_UVERBS_METHOD_REG_MR
#define UVERBS_METHOD_REG_MR (UVERBS_METHOD_REG_DMABUF_MR + 1)
#define UVERBS_ATTR_REG_MR_HANDLE 0
#define UVERBS_ATTR_REG_MR_PD_HANDLE 1
#define UVERBS_ATTR_REG_MR_DMA_HANDLE 2
#define UVERBS_ATTR_REG_MR_IOVA 3
#define UVERBS_ATTR_REG_MR_ADDR 4
#define UVERBS_ATTR_REG_MR_LENGTH 5
#define UVERBS_ATTR_REG_MR_ACCESS_FLAGS 6
#define UVERBS_ATTR_REG_MR_FD 7
#define UVERBS_ATTR_REG_MR_FD_OFFSET 8
#define UVERBS_ATTR_REG_MR_RESP_LKEY 9
#define UVERBS_ATTR_REG_MR_RESP_RKEY 10
#endif

/* rdma-core 62: QUERY_PORT_SPEED */
#if !HAVE_DECL_UVERBS_METHOD_QUERY_PORT_SPEED
#define UVERBS_METHOD_QUERY_PORT_SPEED (UVERBS_METHOD_QUERY_GID_ENTRY + 1)
#define UVERBS_ATTR_QUERY_PORT_SPEED_PORT_NUM 0
#define UVERBS_ATTR_QUERY_PORT_SPEED_RESP 1
#endif

/* rdma-core 62: a dma-buf of device memory (mmap page offset) */
#if !HAVE_DECL_UVERBS_OBJECT_DMABUF
#define UVERBS_OBJECT_DMABUF (UVERBS_OBJECT_DMAH + 1)
#define UVERBS_METHOD_DMABUF_ALLOC 0
#define UVERBS_ATTR_ALLOC_DMABUF_HANDLE 0
#define UVERBS_ATTR_ALLOC_DMABUF_PGOFF 1
#endif

/* rdma-core 64: a buffer (dma-buf or user VA) as one attribute */
#if !HAVE_DECL_IB_UVERBS_BUFFER_TYPE_DMABUF
#define IB_UVERBS_BUFFER_TYPE_DMABUF 0
#define IB_UVERBS_BUFFER_TYPE_VA 1
struct ib_uverbs_buffer_desc {
	__u32 type;
	__s32 fd;
	__u32 flags;
	__u32 optional_flags;
	__aligned_u64 addr;
	__aligned_u64 length;
};
#endif

/* rdma-core 65: completion counters (no kernel of 2026 has them yet) */
#if !HAVE_DECL_UVERBS_OBJECT_COMP_CNTR
#define UVERBS_OBJECT_COMP_CNTR (UVERBS_OBJECT_DMABUF + 1)
#define UVERBS_METHOD_QUERY_COMP_CNTR_CAPS (UVERBS_METHOD_QUERY_PORT_SPEED + 1)
#define UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_COUNTERS 0
#define UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_VALUE 1
#define UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_SUPPORTED_QP_ATTACH_OPS 2
#define UVERBS_METHOD_QP_ATTACH_COMP_CNTR (UVERBS_METHOD_QP_DESTROY + 1)
#define UVERBS_ATTR_QP_ATTACH_COMP_CNTR_HANDLE 0
#define UVERBS_ATTR_QP_ATTACH_COMP_CNTR_CNTR_HANDLE 1
#define UVERBS_ATTR_QP_ATTACH_COMP_CNTR_OP_MASK 2
#define UVERBS_METHOD_COMP_CNTR_CREATE 0
#define UVERBS_METHOD_COMP_CNTR_DESTROY 1
#define UVERBS_METHOD_COMP_CNTR_MODIFY 2
#define UVERBS_METHOD_COMP_CNTR_READ 3
#define UVERBS_ATTR_CREATE_COMP_CNTR_HANDLE 0
#define UVERBS_ATTR_DESTROY_COMP_CNTR_HANDLE 0
#define UVERBS_ATTR_MODIFY_COMP_CNTR_HANDLE 0
#define UVERBS_ATTR_MODIFY_COMP_CNTR_ENTRY 1
#define UVERBS_ATTR_MODIFY_COMP_CNTR_OP 2
#define UVERBS_ATTR_MODIFY_COMP_CNTR_VALUE 3
#define UVERBS_ATTR_READ_COMP_CNTR_HANDLE 0
#define UVERBS_ATTR_READ_COMP_CNTR_ENTRY 1
#define UVERBS_ATTR_READ_COMP_CNTR_RESP_VALUE 2
#endif
#if !HAVE_DECL_IB_UVERBS_COMP_CNTR_ENTRY_COMP
#define IB_UVERBS_COMP_CNTR_ENTRY_COMP 0
#define IB_UVERBS_COMP_CNTR_ENTRY_ERR 1
#define IB_UVERBS_COMP_CNTR_MODIFY_OP_SET 0
#define IB_UVERBS_COMP_CNTR_MODIFY_OP_INC 1
/* the kernel's op bits are the verbs' (enum ibv_qp_attach_comp_cntr_op) */
#define IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_SEND (1 << 0)
#define IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RECV (1 << 1)
#define IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_READ (1 << 2)
#define IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ (1 << 3)
#define IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE (1 << 4)
#define IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE (1 << 5)
#endif

#endif
