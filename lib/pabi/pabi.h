/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The provider-ABI layer (lib/pabi/): rdma-core's provider libraries on
 * softverbs' core. Its files include this header; the core never does:
 * it reaches the layer only through the driver table (pabi_driver) that
 * lib/providers.c lists, and the device hooks that table sets.
 *
 *   loader.c       finding, loading and registering the libraries;
 *                  matching a device to one; refusing one of unknown
 *                  generation
 *   provenance.c   which rdma-core release built a library (the evidence)
 *   elf.c          the versioned symbols a library imports
 *   nodes.h        the version nodes (IBVERBS_PRIVATE_34 ... 65): which
 *                  node exports which function, in which form
 *   generations.c  every release's differences, one table
 *   context.c      the context a provider builds on the core
 *   ops.c          the provider's ops table into the core's
 *   cmd*.c         the ibv_cmd_* helpers, per kind of object
 */
#ifndef SV_PABI_H
#define SV_PABI_H

#include "nodes.h"

#include <stdbool.h>
#include <stddef.h>

#include "core.h"
#include "abi.h"

/* ---- the driver (loader.c, context.c) ---------------------------------------
 * The layer is one driver of the core's (struct sv_driver, listed in
 * lib/providers.c): it claims a device for a registered provider, and
 * sets the device's hooks to pabi_device_hooks. */
extern const struct sv_driver pabi_driver;
extern const struct sv_device_hooks pabi_device_hooks;
/* Tests: forget the loaded state (drivers registered stay); read the
 * config and libraries from elsewhere (NULL: the configured folders). */
void sv_rdmacore_reset(void);
void sv_rdmacore_set_dirs(const char *config, const char *providers);
/* The registered rdma-core providers, in registration order. */
size_t sv_rdmacore_driver_count(void);
const struct verbs_device_ops *sv_rdmacore_driver(size_t i);

/* A destroy command's result as rdma-core reports it: EIO (the device is
 * gone) counts as success when verbs_allow_disassociate_destroy
 * (RDMAV_ALLOW_DISASSOC_DESTROY, context.c) is set. */
static inline int sv_destroy_result(int ret)
{
	return ret == EIO && verbs_allow_disassociate_destroy ? 0 : ret;
}

/* ---- generations (generations.c) -------------------------------------------
 * A run of rdma-core releases whose providers share one provider ABI: the
 * same version node, the same layout of every structure the core and the
 * provider share, the same calling conventions. */
struct pabi_gen {
	const char *name;          /* "rdma-core 45-48", for the log */
	unsigned int first, last;  /* the releases it covers */
	const char *node;          /* the version node its providers import */
	/* where the core's members are in the provider's objects, and the
	 * size of its struct verbs_context */
	struct sv_obj_layout layout;
	/* ibv_cmd_reg_dmabuf_mr has its eighth argument (v54) */
	bool reg_dmabuf_mr_driver;
};

/* The generation of release `release`, or NULL (not one this library
 * drives). */
const struct pabi_gen *pabi_gen_of_release(unsigned int release);
/* Every generation, oldest first (tests, the log). */
size_t pabi_gen_count(void);
const struct pabi_gen *pabi_gen_at(size_t i);
/* The generation of a context's provider; NULL for a context of the
 * built-in providers (their layout is sv_native_layout). */
const struct pabi_gen *pabi_gen_of(struct ibv_context *ctx);
/* The releases between which a symbol of `node` exists: 0 when the node
 * never had it. *last is the newest release that has it. */
unsigned int pabi_symbol_since(const char *node, const char *name,
			       unsigned int *last);
/* The oldest and newest release this library drives. */
unsigned int pabi_first_release(void);
unsigned int pabi_last_release(void);

/* The core's part of a new QP, written where the provider's layout has
 * them (rdma-core 45 moved comp_mask and xrcd): comp_mask, and xrcd when
 * comp_mask has VERBS_QP_XRCD. */
void pabi_qp_set_core(const struct sv_obj_layout *layout, struct ibv_qp *qp,
		      uint32_t comp_mask, struct verbs_xrcd *xrcd);

/* ---- provenance (provenance.c) ----------------------------------------------
 * Which generation the provider library at `path` (as dladdr names it),
 * registered through version node `node`, belongs to, from the evidence
 * around it; NULL when the evidence is missing or contradicts itself. why (why_len bytes) says which evidence
 * decided, or what is missing. */
const struct pabi_gen *pabi_gen_of_library(const char *path, const char *node,
					   char *why, size_t why_len);
/* "libibverbs.so.1.14.56.1" -> 56: rdma-core names its libraries
 * lib<name>.so.<soname>.<minor>.<release>.<patch>; 0 for any other
 * name. */
unsigned int pabi_release_of_name(const char *file_name);

/* ---- ELF (elf.c) --------------------------------------------------------------
 * Calls fn for every undefined dynamic symbol of the ELF shared object
 * at path that is bound to version `node` of a needed library. 0, or
 * -errno (-ENOEXEC: not an ELF64 object this code can read). */
int pabi_elf_imports(const char *path, const char *node,
		     void (*fn)(const char *symbol, void *arg), void *arg);

/* ---- ops (ops.c) ---------------------------------------------------------------- */
/* The number of slots of release `release`'s struct verbs_context_ops, and
 * the slot of op `name` in it (-1: the release has no such op). */
size_t pabi_ops_slots(unsigned int release);
int pabi_ops_slot(unsigned int release, const char *name);
/* dst gets every non-NULL slot of an rdma-core provider's table, laid out
 * as release `release` lays it out; *free_context its free_context. */
void pabi_ops_take(struct sv_context_ops *dst,
		   void (**free_context)(struct ibv_context *),
		   const struct verbs_context_ops *src, unsigned int release);

/* ---- command paths the helpers share (cmd.c, cmd_ioctl.c) ------------------- */
/* GET_CONTEXT as the ioctl, with fds for the kernel (v57's fd_arr), u the
 * provider's driver data; the async event fd is allocated after it. */
int pabi_get_context_ioctl(struct ibv_context *ctx, struct sv_udata *u,
			   const struct ibv_fd_arr *fd_arr);
/* create_cq_ex's two paths: the extended write command, and the CQ_CREATE
 * ioctl (the provider's attributes, its own buffer: v59's prov_attr with
 * cmd_flags & PABI_CQ_WITH_MEM). */
#define PABI_CQ_WITH_MEM                                                       \
	(CREATE_CQ_CMD_FLAGS_WITH_MEM_VA | CREATE_CQ_CMD_FLAGS_WITH_MEM_DMABUF)
int pabi_create_cq_ex_write(struct ibv_context *context,
			    const struct ibv_cq_init_attr_ex *cq_attr,
			    struct verbs_cq *cq, void *cmd, size_t cmd_size,
			    void *resp, size_t resp_size);
int pabi_create_cq_ioctl(struct ibv_context *context,
			 const struct ibv_cq_init_attr_ex *cq_attr,
			 const struct verbs_create_cq_prov_attr *prov_attr,
			 struct verbs_cq *cq, void *cmd, size_t cmd_size,
			 void *resp, size_t resp_size, uint32_t cmd_flags,
			 struct ibv_command_buffer *driver);

/* ---- the older forms of functions whose signature a node changed ------------
 * (nodes.h; the current forms are abi.h's) */
int pabi_cmd_get_context_34(struct verbs_context *context, void *cmd,
			    size_t cmd_size, void *resp, size_t resp_size);
int pabi_cmd_create_cq_ex_34(struct ibv_context *context,
			     const struct ibv_cq_init_attr_ex *cq_attr,
			     struct verbs_cq *cq, void *cmd, size_t cmd_size,
			     void *resp, size_t resp_size, uint32_t cmd_flags);
int pabi_cmd_create_cq_ex2_34(struct ibv_context *context,
			      const struct ibv_cq_init_attr_ex *cq_attr,
			      struct verbs_cq *cq, void *cmd, size_t cmd_size,
			      void *resp, size_t resp_size, uint32_t cmd_flags,
			      struct ibv_command_buffer *driver);
int pabi_cmd_create_qp_ex2_34(struct ibv_context *context, struct verbs_qp *qp,
			      struct ibv_qp_init_attr_ex *qp_attr, void *cmd,
			      size_t cmd_size, void *resp, size_t resp_size);

#endif
