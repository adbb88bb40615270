/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What only the core sees. Providers include provider.h, never this. */
#ifndef SV_CORE_H
#define SV_CORE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "env.h"
#include "log.h"
#include "provider.h"
#include "registry.h"
#include "uverbs_ext.h"
#include "verbs_device.h"
#include "verbs_ext.h"

#define SV_EXPORT __attribute__((visibility("default")))

#define SV_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- fork safety (lib/fork.c), used by MR registration ---------------- */
/* Record [base, base+len) as registered. When fork safety is on, its
 * pages become MADV_DONTFORK before this returns. 0 or -errno; on error
 * nothing changed. */
int sv_fork_range_add(void *base, size_t len);
/* Undo one sv_fork_range_add of the same range: the last holder of a page
 * makes it MADV_DOFORK again. 0 or -errno; on error nothing changed. */
int sv_fork_range_del(void *base, size_t len);
/* MR bookkeeping (lib/mr.c). While fork safety is off a registration
 * costs next to nothing: after REG_MR, sv_fork_mr_record notes {mr,
 * range} in a hash set, and ibv_fork_init() (or the stats) builds the
 * range map from the notes. sv_fork_mr_protecting: fork safety is on, so
 * a pinning registration must go through sv_fork_range_add before
 * REG_MR instead (it also reads the environment at the first
 * registration). sv_fork_mr_record: 0 or -errno (ENOMEM); when fork
 * safety came on meanwhile, the range goes to the map at once.
 * sv_fork_mr_forget, after DEREG_MR (mr is only a key, never read): drop
 * the note, or the map's range. 0 or -errno. */
int sv_fork_mr_protecting(void);
/* sv_fork_range_add for a registration once sv_fork_mr_protecting said
 * yes (the environment is read: no second look on the way). */
int sv_fork_mr_protect(void *base, size_t len);
int sv_fork_mr_record(const void *mr, void *base, size_t len);
int sv_fork_mr_forget(const void *mr, void *base, size_t len);
/* Read RDMAV_FORK_SAFE / IBV_FORK_SAFE again, once: from the first device
 * listing or registration (sv_fork_range_add calls it itself). */
void sv_fork_env_first_use(void);

/* ---- objects inherited through fork (lib/inherit.c) --------------------- */
/* Every open context is listed (from sv_context_finish_open to
 * ibv_close_device), and every extended QP and CQ (whose ibv_wr_* and
 * polling functions live in the object): in a forked child all of them
 * refuse their verbs with EPERM. object_add: 0 or ENOMEM; object_del of
 * an object never added does nothing. */
#define SV_INHERIT_QP_EX 1
#define SV_INHERIT_CQ_EX 2
void sv_inherit_context_add(struct verbs_context *vctx);
void sv_inherit_context_del(struct verbs_context *vctx);
int sv_inherit_object_add(struct ibv_context *ctx, void *obj, int kind);
void sv_inherit_object_del(void *obj);
/* 1 if ctx (one of ours) was opened by an ancestor of this process. */
int sv_inherited(struct ibv_context *ctx);
/* 0, or (inherited) EPERM with the one log line naming verb. */
int sv_inherit_check(struct ibv_context *ctx, const char *verb);
/* The table an inherited context's ops become (tests). */
const struct sv_context_ops *sv_inherit_refusing_ops(void);
/* pthread_atfork, called by fork.c's handlers */
void sv_inherit_fork_prepare(void);
void sv_inherit_fork_parent(void);
void sv_inherit_fork_child(void);

/* ---- sysfs (lib/sysfs.c) ------------------------------------------------ */
/* The sysfs root: $SYSFS_PATH (not for setuid programs), else "/sys";
 * never with a trailing slash. Read once. */
const char *sv_sysfs_root(void);
/* Forget the cached root (tests that switch SYSFS_PATH). */
void sv_sysfs_reset(void);
/* Read <dir>/<file> into buf as a NUL-terminated string, one trailing
 * newline dropped. Returns its length, or -errno (-EOVERFLOW when it
 * does not fit, -ENODATA when empty). */
int sv_read_sysfs(const char *dir, const char *file, char *buf, size_t size);
/* Same, then parse one unsigned decimal number: 0 or -errno. */
int sv_read_sysfs_uint(const char *dir, const char *file, unsigned long *val);
/* Exported (IBVERBS_1.0) but declared only in rdma-core's driver.h. */
const char *ibv_get_sysfs_path(void);
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf,
			size_t size);
/* Where the uverbs character devices live ("/dev/infiniband"); tests
 * point it at a fake tree (NULL restores the default). */
void sv_set_dev_dir(const char *dir);
const char *sv_dev_dir(void);

/* The members the core reads and writes inside a provider's objects, at
 * the offsets that provider was compiled with: they moved between
 * rdma-core releases (lib/pabi/generations.c has the history). Every
 * context points at one (verbs_ex_private.layout). */
struct sv_obj_layout {
	uint16_t qp_comp_mask;   /* offset of verbs_qp.comp_mask (a u32) */
	uint16_t qp_xrcd;        /* offset of verbs_qp.xrcd (a pointer) */
	uint16_t port_attr_size; /* sizeof(struct ibv_port_attr) */
	/* sizeof(struct verbs_context) as the provider has it: rdma-core
	 * 59, 62 and 64 added slots in front of query_port (the struct
	 * grows towards lower addresses, the ibv_context stays last), so
	 * only this much room lies before the context's ibv_context */
	uint16_t vctx_size;
};
/* sizeof(struct verbs_context) of rdma-core 44-58 and the slots added in
 * front of query_port since, nearest first: alloc_dmah, dealloc_dmah,
 * reg_mr_ex (59), dm_export_dmabuf_fd (62), alloc_buf, free_buf (64). */
#define SV_VCTX_SIZE_44 648
#define SV_VCTX_GROWN_SLOTS 6
#define SV_VCTX_SIZE_NEWEST (SV_VCTX_SIZE_44 + SV_VCTX_GROWN_SLOTS * 8)
_Static_assert(sizeof(struct verbs_context) >= SV_VCTX_SIZE_44 &&
		       sizeof(struct verbs_context) <= SV_VCTX_SIZE_NEWEST &&
		       offsetof(struct verbs_context, context) -
				       offsetof(struct verbs_context, query_port) ==
			       SV_VCTX_SIZE_44 - sizeof(struct ibv_context),
	       "struct verbs_context is rdma-core 44's, grown in front only");
/* The verbs_context of a provider's allocation whose verbs_context begins
 * at base and is vctx_size bytes (its ibv_context is last): the system
 * header's struct placed so that the common part (query_port on) falls
 * where the provider has it. Only members from query_port on, and the
 * grown slots through sv_vctx_set_grown, may be touched. */
static inline struct verbs_context *sv_vctx_at(void *base, size_t vctx_size)
{
	return (struct verbs_context *)((char *)base +
					((ptrdiff_t)vctx_size -
					 (ptrdiff_t)sizeof(struct verbs_context)));
}
/* The built-in providers' (struct sv_qp; the whole sv_port_attr). */
extern const struct sv_obj_layout sv_native_layout;

/* VERBS_QP_EX / SV_QP_EX: the QP has the ibv_qp_ex API */
static inline uint32_t sv_qp_comp_mask(const struct sv_obj_layout *l,
				       const struct ibv_qp *qp)
{
	uint32_t v;

	memcpy(&v, (const char *)qp + l->qp_comp_mask, sizeof(v));
	return v;
}

/* struct ibv_port_attr as rdma-core 49 and later lay it out (56 bytes:
 * active_speed_ex after port_cap_flags2), whatever the system's verbs.h
 * says; older programs and providers use the first 52. */
#define SV_PORT_ATTR_SPEED_EX_OFF 52
union sv_port_attr {
	struct ibv_port_attr attr;
	unsigned char bytes[SV_PORT_ATTR_SIZE];
};
_Static_assert(sizeof(struct ibv_port_attr) == SV_PORT_ATTR_SPEED_EX_OFF ||
		       sizeof(struct ibv_port_attr) == SV_PORT_ATTR_SIZE,
	       "struct ibv_port_attr is rdma-core 44's or 49's");
_Static_assert(((offsetof(struct ibv_port_attr, port_cap_flags2) + 2 + 3) &
			~(size_t)3) == SV_PORT_ATTR_SPEED_EX_OFF,
	       "active_speed_ex (a u32) follows port_cap_flags2");
static inline void sv_port_attr_set_speed_ex(union sv_port_attr *a,
					     uint32_t speed)
{
	memcpy(a->bytes + SV_PORT_ATTR_SPEED_EX_OFF, &speed, sizeof(speed));
}

/* ---- the device list (lib/device.c) ------------------------------------- */
/* Build the list of usable devices: the device list updated from the
 * kernel (netlink, else sysfs; sysfs only when SYSFS_PATH is set) and
 * from the drivers that find devices of their own (sv_driver.discover:
 * devices no kernel knows, listed after the kernel's). *list
 * is NULL-terminated, each device held once. A device still present
 * keeps its struct ibv_device across calls. Returns the count or -errno. */
int sv_device_list(struct ibv_device ***list);

/* ---- built-in providers and the drivers (lib/providers.c) ------------ */
/* NULL-terminated list of built-in providers. */
extern const struct sv_provider *const sv_providers[];
const struct sv_provider *sv_provider_match(enum rdma_driver_id driver_id,
					    const char *ibdev_name,
					    unsigned int abi_version);
/* Which providers drive devices: SOFTVERBS_PROVIDERS unset or "native"
 * (built-in rxe/siw for their devices, rdma-core's libraries for the
 * rest), "rdma-core" (rdma-core's libraries for every device). */
enum sv_provider_mode { SV_PROVIDERS_NATIVE, SV_PROVIDERS_RDMA_CORE };
/* The mode, or -EINVAL (logged) for any other value. Read once. */
int sv_provider_mode(void);

/* ---- ops (lib/ops.c) and contexts (lib/context.c) ----------------------- */
extern const struct sv_context_ops sv_default_ops;
/* dst gets every non-NULL slot of src. */
void sv_ops_merge(struct sv_context_ops *dst, const struct sv_context_ops *src);
/* rdma-core providers start from EOPNOTSUPP in every slot. */
void sv_ops_init_nosup(struct sv_context_ops *ops);
/* Number of NULL slots (a complete table has none). */
size_t sv_ops_null_slots(const struct sv_context_ops *ops);
/* Point the application-visible tables (ibv_context.ops and the
 * verbs_context slots) at the core state's ops and the core's wrappers. */
void sv_context_install_ops(struct verbs_context *vctx);
/* A zeroed context of prov->context_size bytes (at least a struct
 * sv_context) on device, its verbs_context set up with cmd_fd, no async
 * fd yet, the provider's ops over the defaults: a kernel device's
 * (kernel: the generic commands), else EOPNOTSUPP in every slot the
 * provider leaves. The driver's open finishes it (abi_version,
 * driver_id, async_fd, sv_context_finish_open). NULL when out of
 * memory. sv_context_free frees it (no fd closed). */
struct sv_context *sv_context_alloc(struct ibv_device *device,
				    const struct sv_provider *prov, int cmd_fd,
				    bool kernel);
void sv_context_free(struct sv_context *ctx);
/* The built-in providers' device hooks (opening a device one of them
 * drives). */
extern const struct sv_device_hooks sv_builtin_hooks;
/* The part of opening a context both kinds of provider share, once the
 * provider made it: tables installed, an async fd if it has none.
 * 0 or a positive errno. */
int sv_context_finish_open(struct verbs_context *vctx);

/* ---- the command layer (lib/cmd.c) -------------------------------------- */
/* How requests reach the kernel; tests replace these to record the bytes
 * and play the kernel's part. */
extern ssize_t (*sv_cmd_write_fn)(int fd, const void *buf, size_t len)
	__attribute__((visibility("hidden")));
/* Write a legacy command the caller laid out whole (header, request with
 * its response address): for the few on the hot paths, so inline (a call
 * level less on ibv_reg_mr and ibv_dereg_mr). 0 or a positive errno. The
 * kernel answers a whole write or an error, never part of one. */
static inline int sv_cmd_send(struct ibv_context *ctx, const void *cmd,
			      size_t len)
{
	ssize_t n = sv_cmd_write_fn(ctx->cmd_fd, cmd, len);

	if (n < 0)
		return errno ? errno : EIO;
	return (size_t)n == len ? 0 : EIO;
}
extern int (*sv_cmd_ioctl_fn)(int fd, unsigned long request, void *arg)
	__attribute__((visibility("hidden")));

/* Legacy write command. req (req_len bytes, a multiple of 4) is the core
 * request struct; when resp_len > 0 it begins with the u64 `response`
 * field, which this sets. The kernel writes resp_len bytes to resp and
 * udata->resp_len more after them. 0 or a positive errno. */
int sv_cmd_write(struct ibv_context *ctx, uint32_t command, void *req,
		 size_t req_len, void *resp, size_t resp_len,
		 struct sv_udata *udata);
/* Extended write command (sizes and udata in multiples of 8). */
int sv_cmd_write_ex(struct ibv_context *ctx, uint32_t command, void *req,
		    size_t req_len, void *resp, size_t resp_len,
		    struct sv_udata *udata);

/* ioctl commands: a header and its attributes on the caller's stack
 * (SV_IOCTL_DECLARE), filled one attribute at a time, then sent. The one
 * builder: lib/pabi/ builds rdma-core's methods with it too, and sends an
 * rdma-core provider's own attributes along through a link. */
struct sv_ioctl_link;
struct sv_ioctl {
	struct ib_uverbs_attr *next_attr;  /* where the next attribute goes */
	struct ib_uverbs_attr *last_attr;  /* the end of the room */
	const struct sv_ioctl_link *link;  /* attributes sent along, or NULL */
	bool too_long;                     /* an attribute over 64 KiB */
	struct ib_uverbs_ioctl_hdr hdr;    /* hdr.attrs[] follow in memory */
};
/* A caller's attributes a command sends along (lib/pabi/: the chain of an
 * rdma-core provider's command buffers): the room they take behind the
 * command's own, and the function that sends the command with them.
 * sv_ioctl_exec hands a linked command to exec. */
struct sv_ioctl_link {
	unsigned int nattrs;
	int (*exec)(struct ibv_context *ctx, struct sv_ioctl *cmd,
		    const struct sv_ioctl_link *link);
};
static inline unsigned int
sv_ioctl_link_nattrs(const struct sv_ioctl_link *link)
{
	return link ? link->nattrs : 0;
}
/* Array elements of struct sv_ioctl that hold one with n attributes. */
#define SV_IOCTL_ELEMS(n)                                                   \
	((sizeof(struct sv_ioctl) + (n) * sizeof(struct ib_uverbs_attr) +   \
	  sizeof(struct sv_ioctl) - 1) /                                    \
	 sizeof(struct sv_ioctl))
/* `name`, a command of object/method with room for nattrs attributes (a
 * declaration, so that more may follow it). */
#define SV_IOCTL_DECLARE(name, object, method, nattrs)                      \
	struct sv_ioctl name[SV_IOCTL_ELEMS(nattrs)];                       \
	const int name##_init __attribute__((unused)) =                     \
		sv_ioctl_init(name, (object), (method), (nattrs), NULL)
/* The same with room for link's attributes too (a variable-length
 * array). */
#define SV_IOCTL_DECLARE_LINKED(name, object, method, nattrs, link)         \
	struct sv_ioctl name[SV_IOCTL_ELEMS((nattrs) +                      \
					    sv_ioctl_link_nattrs(link))];   \
	const int name##_init __attribute__((unused)) =                     \
		sv_ioctl_init(name, (object), (method), (nattrs), (link))
/* Sets up cmd (room for nattrs plus link's attributes); returns 0. */
int sv_ioctl_init(struct sv_ioctl *cmd, uint16_t object_id,
		  uint16_t method_id, unsigned int nattrs,
		  const struct sv_ioctl_link *link);
/* The next attribute, zeroed but for its id and the MANDATORY flag. */
struct ib_uverbs_attr *sv_ioctl_attr(struct sv_ioctl *cmd, uint16_t attr_id);
/* A constant or integer input, carried inline. */
void sv_ioctl_in_u64(struct sv_ioctl *cmd, uint16_t attr_id, uint64_t val);
void sv_ioctl_in_u32(struct sv_ioctl *cmd, uint16_t attr_id, uint32_t val);
/* An object handle going in; the slot of one coming out (its data
 * holds the handle after sv_ioctl_exec). */
void sv_ioctl_in_obj(struct sv_ioctl *cmd, uint16_t attr_id, uint32_t handle);
struct ib_uverbs_attr *sv_ioctl_out_obj(struct sv_ioctl *cmd,
					uint16_t attr_id);
/* An fd going in; the slot of a new one coming out (in its data). */
struct ib_uverbs_attr *sv_ioctl_in_fd(struct sv_ioctl *cmd, uint16_t attr_id,
				      int fd);
struct ib_uverbs_attr *sv_ioctl_out_fd(struct sv_ioctl *cmd, uint16_t attr_id);
/* An input buffer of len bytes (up to 8 inline, more by address). */
struct ib_uverbs_attr *sv_ioctl_in_ptr(struct sv_ioctl *cmd, uint16_t attr_id,
				       const void *buf, size_t len);
/* An enum's element elem_id, with its len bytes of data. */
void sv_ioctl_in_enum(struct sv_ioctl *cmd, uint16_t attr_id, uint8_t elem_id,
		      const void *buf, size_t len);
/* An output buffer the kernel fills (len bytes at most). */
void sv_ioctl_out(struct sv_ioctl *cmd, uint16_t attr_id, void *buf,
		  size_t len);
/* The length of n elements of size bytes (more than an attribute can
 * say when it overflows). */
static inline size_t sv_ioctl_array_len(size_t size, size_t n)
{
	return n && size > SIZE_MAX / n ? SIZE_MAX : size * n;
}
/* Sends cmd (through its link's exec when it has one). 0 or a positive
 * errno: EINVAL when an attribute was too long to say. */
int sv_ioctl_exec(struct ibv_context *ctx, struct sv_ioctl *cmd);
/* Sends hdr with its first num_attrs attributes, laid out as they are
 * (a link's exec, after putting its attributes behind the command's).
 * 0 or a positive errno. */
int sv_ioctl_send(struct ibv_context *ctx, struct ib_uverbs_ioctl_hdr *hdr,
		  size_t num_attrs);
/* The kernel lacks the ioctl method: use the write command instead. */
static inline int sv_ioctl_unsupported(int err)
{
	return err == ENOTTY || err == EPROTONOSUPPORT || err == EOPNOTSUPP;
}

/* An MR the kernel registered: its context and pd, what it covers, its
 * handle and keys, type (SV_MR_TYPE_*) and access flags. */
void sv_cmd_mr_init(struct sv_mr *smr, struct ibv_pd *pd, uint32_t handle,
		    uint32_t lkey, uint32_t rkey, void *addr, size_t length,
		    uint32_t mr_type, int access);
/* sv_cmd_reg_dmabuf_mr (provider.h) with a caller's attributes sent along
 * (lib/pabi/: an rdma-core provider's), or none when link is NULL. */
int sv_cmd_reg_dmabuf_mr_linked(struct ibv_pd *pd, uint64_t offset,
				size_t length, uint64_t iova, int fd,
				int access, struct sv_mr *smr,
				const struct sv_ioctl_link *link);

/* The commands of provider.h's sv_cmd_advise_mr, sv_cmd_query_context and
 * sv_cmd_query_port_speed, sent through link (lib/pabi/: rdma-core's
 * ibv_cmd_*, a failure's errno left in errno too) or as the core sends
 * when NULL. They return the kernel's errno as it is: the core's own
 * wrappers read a missing method. query_context: the kernel writes the
 * vector count (a u32) to *vectors; core_support goes to the core state
 * on success. query_port_speed: the kernel writes *speed. */
int sv_cmd_advise_mr_linked(struct ibv_pd *pd,
			    enum ibv_advise_mr_advice advice, uint32_t flags,
			    const struct ibv_sge *sg_list, uint32_t num_sge,
			    const struct sv_ioctl_link *link);
int sv_cmd_query_context_linked(struct ibv_context *ctx, uint32_t *vectors,
				const struct sv_ioctl_link *link);
int sv_cmd_query_port_speed_linked(struct ibv_context *ctx, uint32_t port_num,
				   uint64_t *speed,
				   const struct sv_ioctl_link *link);

/* The core part of a CQ the kernel made (context, channel, handle, cqe,
 * mutex, cond, event counters). */
void sv_cmd_cq_init(struct sv_cq *cq, struct ibv_context *ctx,
		    struct ibv_comp_channel *channel, uint32_t handle,
		    uint32_t cqe);

/* The core part of a QP the kernel made (context, what attr names,
 * handle, number, state RESET, event counter, mutex, cond), and the caps
 * it granted into attr->cap. */
void sv_cmd_qp_init(struct ibv_qp *qp, struct ibv_context *ctx,
		    struct ibv_qp_init_attr_ex *attr,
		    const struct ib_uverbs_create_qp_resp *resp);

/* CREATE_QP for a bare struct ibv_qp (rdma-core's ibv_cmd_create_qp):
 * nothing written behind it. ex: the extended command. */
int sv_cmd_create_qp_base(struct ibv_context *ctx, struct ibv_qp *qp,
			  struct ibv_qp_init_attr_ex *attr,
			  struct sv_udata *udata, int ex);

/* An address vector between struct ibv_ah_attr and the kernel's two
 * forms of it: a QP's (struct ib_uverbs_qp_dest, QUERY_QP and MODIFY_QP)
 * and the one librdmacm hands over (struct ib_uverbs_ah_attr;
 * ibv_copy_ah_attr_from_kern). lib/cmd_qp.c. */
void sv_ah_attr_from_dest(struct ibv_ah_attr *dst,
			  const struct ib_uverbs_qp_dest *src);
void sv_ah_attr_to_dest(struct ib_uverbs_qp_dest *dst,
			const struct ibv_ah_attr *src);
void sv_ah_attr_from_kern(struct ibv_ah_attr *dst,
			  const struct ib_uverbs_ah_attr *src);

/* rdma-core's write helpers (ibv_cmd_* of IBVERBS_PRIVATE_34) take the
 * provider's buffers: cmd (cmd_size bytes) begins with room for the
 * uverbs header(s) and the core request, then the provider's own data;
 * presp (presp_size bytes) begins with the core response, then the
 * provider's. Send req/resp (the core structs, built by the caller) with
 * the provider's data as trailers; on success presp gets the core
 * response and the provider's response after it. 0 or a positive errno
 * (EINVAL for a buffer shorter than its core part). */
/* The driver's parts of an rdma-core provider's request and reply
 * buffers (cmd: the uverbs header(s), the req_len-byte core request, then
 * the driver's; presp: the resp_len-byte core reply, then the driver's)
 * as the trailers of a command; u->core_resp = presp. 0, or EINVAL (and a
 * log line) when a buffer is shorter than its core part. */
int sv_udata_of_provider(struct sv_udata *u, int ex, size_t req_len,
			 size_t resp_len, const void *cmd, size_t cmd_size,
			 void *presp, size_t presp_size);
int sv_cmd_write_drv(struct ibv_context *ctx, uint32_t command, int ex,
		     void *req, size_t req_len, void *resp, size_t resp_len,
		     const void *cmd, size_t cmd_size, void *presp,
		     size_t presp_size);

/* ---- device queries (lib/cmd_device.c) ---------------------------------- */
/* Every valid GID entry of every port, at most max_entries: the count or
 * -errno. */
ssize_t sv_query_gid_table(struct ibv_context *ctx,
			   struct ibv_gid_entry *entries, size_t max_entries);

/* ---- public verbs internals --------------------------------------------- */
/* The name of a work request opcode (lib/strings.c): exported as
 * ibv_wr_opcode_str, which rdma-core puts in its provider ABI node
 * (lib/pabi/context.c). */
const char *sv_wr_opcode_str(enum ibv_wr_opcode opcode);
/* The size of the pre-2017 struct ibv_port_attr that the exported
 * ibv_query_port@IBVERBS_1.1 fills (it ends after `flags`). */
#define SV_COMPAT_PORT_ATTR_SIZE offsetof(struct ibv_port_attr, port_cap_flags2)
int sv_query_port(struct ibv_context *ctx, uint8_t port_num,
		  struct ibv_port_attr *attr, size_t attr_len);

/* The creation verbs behind the verbs_context slots (lib/verbs.c). */
struct ibv_cq_ex *sv_vctx_create_cq_ex(struct ibv_context *ctx,
				       struct ibv_cq_init_attr_ex *attr);
struct ibv_qp *sv_vctx_create_qp_ex(struct ibv_context *ctx,
				    struct ibv_qp_init_attr_ex *attr);
struct ibv_qp *sv_vctx_open_qp(struct ibv_context *ctx,
			       struct ibv_qp_open_attr *attr);
struct ibv_srq *sv_vctx_create_srq_ex(struct ibv_context *ctx,
				      struct ibv_srq_init_attr_ex *attr);

#endif
