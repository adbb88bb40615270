/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The exported ABI of the built libibverbs.so.1, against the system's.
 *
 * Debian's binaries are linked against rdma-core 44, 56 or 65 with
 * immediate binding: one missing (symbol, version) pair and the program
 * does not start. So this test reads both libraries' dynamic symbol
 * tables and version definitions (through `objdump`, which ships with
 * binutils next to every gcc) and checks, as a user of a prebuilt binary
 * would notice:
 *   - every default-version pair the system library exports exists here
 *     (pairs shown in parentheses are compat-only, pre-2006 layouts that
 *     no binary built since can reference: they are not required); a
 *     provider-ABI pair may be a non-default version here, since one
 *     library serves every node and only IBVERBS_PRIVATE_65 can be the
 *     default (a binary's reference names its version either way),
 *   - every public node from IBVERBS_1.15 and every provider-ABI node
 *     (IBVERBS_PRIVATE_34, 57, 59, 64, 65) holds exactly the names
 *     rdma-core's libibverbs.map.in gives it at its releases (the lists
 *     below: 57, 59 and 64 have no Debian package to compare with),
 *   - nothing is exported that is neither in the system library nor in
 *     those lists, but softverbs' own SOFTVERBS_1 node,
 *   - functions are functions and objects are objects of the same size
 *     (a copy relocation of a different size corrupts memory),
 *   - the version nodes exist and chain (IBVERBS_1.1 depends on 1.0...),
 *   - the SONAME is libibverbs.so.1,
 *   - the dynamic linker really binds every required pair (dlvsym),
 *   - Debian's rdma-core provider libraries (lib<name>-rdmav<N>.so) and
 *     direct-verbs libraries, which import the private node, load with
 *     RTLD_NOW and their registration is recorded.
 *
 * It links only the built shared library, exactly like an application. */
#include "config.h"

#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../check_main.h"

#define SYSTEM_LIB_DEFAULT "/usr/lib/x86_64-linux-gnu/libibverbs.so.1"
#define OWN_NODE "SOFTVERBS_1"
#define SKIP 77

struct sym {
	char name[128];
	char ver[64];
	int hidden;       /* version printed in parentheses: compat only */
	char kind;        /* 'F' function, 'O' object, ' ' other */
	unsigned long size;
};

struct verdef {
	char name[72]; /* a node, or "@base:" and the file */
	char parents[4][64];
	int nparents;
};

struct lib_abi {
	char path[4096];
	char soname[128];
	struct sym *syms;
	size_t nsyms;
	struct verdef defs[64];
	size_t ndefs;
};

static struct lib_abi ours, sys;

/* ---- reading objdump ---------------------------------------------------- */

/* A line of `objdump -T`:
 *   0000000000014aa0 g    DF .text	0000000000000098  IBVERBS_1.0 name
 * 16 hex digits, a space, 7 flag characters, a space, then the section,
 * size, version and name separated by white space. */
static void parse_dynsym_line(struct lib_abi *lib, const char *line)
{
	char section[64], size[32], ver[64], name[128];
	const char *flags;
	struct sym *s;
	int n;

	if (strlen(line) < 26 || line[16] != ' ')
		return;
	flags = line + 17;
	n = sscanf(line + 25, "%63s %31s %63s %127s", section, size, ver, name);
	if (n < 3 || !strcmp(section, "*UND*"))
		return;
	if (n == 3) { /* no version column */
		snprintf(name, sizeof(name), "%s", ver);
		ver[0] = '\0';
	}
	if (flags[0] != 'g' && flags[1] != 'w' && flags[0] != 'u')
		return;
	/* The symbol a version node defines for itself, where shown. */
	if (!strcmp(name, ver) || !strcmp(section, "*ABS*"))
		return;

	lib->syms = realloc(lib->syms, (lib->nsyms + 1) * sizeof(*lib->syms));
	if (!lib->syms)
		abort();
	s = &lib->syms[lib->nsyms++];
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	if (ver[0] == '(') {
		s->hidden = 1;
		snprintf(s->ver, sizeof(s->ver), "%.*s", (int)strlen(ver) - 2,
			 ver + 1);
	} else {
		snprintf(s->ver, sizeof(s->ver), "%s", ver);
	}
	s->kind = flags[6] == 'F' || flags[6] == 'O' ? flags[6] : ' ';
	s->size = strtoul(size, NULL, 16);
}

/* `objdump -p`: the SONAME line and the "Version definitions:" block,
 *   3 0x00 0x06365ab1 IBVERBS_1.1
 *   	IBVERBS_1.0
 * where the indented lines name the parents of the definition above;
 * flag 0x01 marks the file's own base definition. */
static void parse_private_line(struct lib_abi *lib, const char *line,
			       int *in_defs)
{
	char a[64], b[64], c[64], d[64];

	if (sscanf(line, " SONAME %127s", lib->soname) == 1)
		return;
	if (!strncmp(line, "Version definitions:", 20)) {
		*in_defs = 1;
		return;
	}
	if (!*in_defs)
		return;
	if (line[0] == '\n' || line[0] == '\0') {
		*in_defs = 0;
		return;
	}
	if (line[0] == '\t' || line[0] == ' ') {
		struct verdef *def;

		if (!lib->ndefs || sscanf(line, "%63s", a) != 1)
			return;
		def = &lib->defs[lib->ndefs - 1];
		if (def->nparents < 4)
			snprintf(def->parents[def->nparents++], 64, "%s", a);
		return;
	}
	if (sscanf(line, "%63s %63s %63s %63s", a, b, c, d) != 4 ||
	    lib->ndefs >= 64)
		return;
	memset(&lib->defs[lib->ndefs], 0, sizeof(lib->defs[0]));
	/* The base definition (the file itself) is kept, marked, so that
	 * indented lines after it are not taken for another node's. */
	snprintf(lib->defs[lib->ndefs++].name, 72, "%s%s",
		 strcmp(b, "0x01") ? "" : "@base:", d);
}

/* 0 on success, -1 (with a message) when the library cannot be read. */
static int read_abi(struct lib_abi *lib, const char *path)
{
	char cmd[4200], line[1024];
	int in_defs = 0;
	FILE *p;

	if (access(path, R_OK)) {
		fprintf(stderr, "test_abi: cannot read %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	snprintf(lib->path, sizeof(lib->path), "%s", path);

	snprintf(cmd, sizeof(cmd), "objdump -T '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p))
		parse_dynsym_line(lib, line);
	if (pclose(p) != 0) {
		fprintf(stderr, "test_abi: '%s' failed (is binutils installed?)\n",
			cmd);
		return -1;
	}

	snprintf(cmd, sizeof(cmd), "objdump -p '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p))
		parse_private_line(lib, line, &in_defs);
	if (pclose(p) != 0)
		return -1;
	return 0;
}

static const struct sym *find_sym(const struct lib_abi *lib, const char *name,
				  const char *ver, int hidden)
{
	for (size_t i = 0; i < lib->nsyms; i++)
		if (!strcmp(lib->syms[i].name, name) &&
		    !strcmp(lib->syms[i].ver, ver) &&
		    lib->syms[i].hidden == hidden)
			return &lib->syms[i];
	return NULL;
}

static const struct verdef *find_def(const struct lib_abi *lib,
				     const char *name)
{
	for (size_t i = 0; i < lib->ndefs; i++)
		if (!strcmp(lib->defs[i].name, name))
			return &lib->defs[i];
	return NULL;
}

/* ---- the nodes, from rdma-core's libibverbs.map.in --------------------------
 * Provider ABI nodes: IBVERBS_PRIVATE_34 as rdma-core 56 has it (53 added
 * ibv_cmd_create_cq_ex2, 49 ibv_wr_opcode_str; ibv_cmd_query_device is
 * listed but no release defines it), _57 (v57.0, v58.0), _59 (v62.0: 59-61
 * lack ibv_cmd_export_dmabuf_fd and ibv_cmd_query_port_speed), _64
 * (v64.0), _65 (65.0). */
static const char *const private_34[] = {
	"__ioctl_final_num_attrs", "__verbs_log", "_verbs_init_and_alloc_context",
	"execute_ioctl", "ibv_cmd_advise_mr", "ibv_cmd_alloc_dm",
	"ibv_cmd_alloc_mw", "ibv_cmd_alloc_pd", "ibv_cmd_attach_mcast",
	"ibv_cmd_close_xrcd", "ibv_cmd_create_ah", "ibv_cmd_create_counters",
	"ibv_cmd_create_cq", "ibv_cmd_create_cq_ex", "ibv_cmd_create_cq_ex2",
	"ibv_cmd_create_flow", "ibv_cmd_create_flow_action_esp",
	"ibv_cmd_create_qp", "ibv_cmd_create_qp_ex", "ibv_cmd_create_qp_ex2",
	"ibv_cmd_create_rwq_ind_table", "ibv_cmd_create_srq",
	"ibv_cmd_create_srq_ex", "ibv_cmd_create_wq", "ibv_cmd_dealloc_mw",
	"ibv_cmd_dealloc_pd", "ibv_cmd_dereg_mr", "ibv_cmd_destroy_ah",
	"ibv_cmd_destroy_counters", "ibv_cmd_destroy_cq", "ibv_cmd_destroy_flow",
	"ibv_cmd_destroy_flow_action", "ibv_cmd_destroy_qp",
	"ibv_cmd_destroy_rwq_ind_table", "ibv_cmd_destroy_srq",
	"ibv_cmd_destroy_wq", "ibv_cmd_detach_mcast", "ibv_cmd_free_dm",
	"ibv_cmd_get_context", "ibv_cmd_modify_cq",
	"ibv_cmd_modify_flow_action_esp", "ibv_cmd_modify_qp",
	"ibv_cmd_modify_qp_ex", "ibv_cmd_modify_srq", "ibv_cmd_modify_wq",
	"ibv_cmd_open_qp", "ibv_cmd_open_xrcd", "ibv_cmd_poll_cq",
	"ibv_cmd_post_recv", "ibv_cmd_post_send", "ibv_cmd_post_srq_recv",
	"ibv_cmd_query_context", "ibv_cmd_query_device_any", "ibv_cmd_query_mr",
	"ibv_cmd_query_port", "ibv_cmd_query_qp", "ibv_cmd_query_srq",
	"ibv_cmd_read_counters", "ibv_cmd_reg_dm_mr", "ibv_cmd_reg_dmabuf_mr",
	"ibv_cmd_reg_mr", "ibv_cmd_req_notify_cq", "ibv_cmd_rereg_mr",
	"ibv_cmd_resize_cq", "ibv_query_gid_type", "ibv_read_ibdev_sysfs_file",
	"ibv_wr_opcode_str", "verbs_allow_disassociate_destroy", "verbs_init_cq",
	"verbs_open_device", "verbs_register_driver_34", "verbs_set_ops",
	"verbs_uninit_context", NULL,
};
static const char *const private_57[] = {
	"__ioctl_final_num_attrs", "__verbs_log", "_verbs_init_and_alloc_context",
	"execute_ioctl", "ibv_cmd_advise_mr", "ibv_cmd_alloc_dm",
	"ibv_cmd_alloc_mw", "ibv_cmd_alloc_pd", "ibv_cmd_attach_mcast",
	"ibv_cmd_close_xrcd", "ibv_cmd_create_ah", "ibv_cmd_create_counters",
	"ibv_cmd_create_cq", "ibv_cmd_create_cq_ex", "ibv_cmd_create_cq_ex2",
	"ibv_cmd_create_flow", "ibv_cmd_create_flow_action_esp",
	"ibv_cmd_create_qp", "ibv_cmd_create_qp_ex", "ibv_cmd_create_qp_ex2",
	"ibv_cmd_create_rwq_ind_table", "ibv_cmd_create_srq",
	"ibv_cmd_create_srq_ex", "ibv_cmd_create_wq", "ibv_cmd_dealloc_mw",
	"ibv_cmd_dealloc_pd", "ibv_cmd_dereg_mr", "ibv_cmd_destroy_ah",
	"ibv_cmd_destroy_counters", "ibv_cmd_destroy_cq", "ibv_cmd_destroy_flow",
	"ibv_cmd_destroy_flow_action", "ibv_cmd_destroy_qp",
	"ibv_cmd_destroy_rwq_ind_table", "ibv_cmd_destroy_srq",
	"ibv_cmd_destroy_wq", "ibv_cmd_detach_mcast", "ibv_cmd_free_dm",
	"ibv_cmd_get_context", "ibv_cmd_modify_cq",
	"ibv_cmd_modify_flow_action_esp", "ibv_cmd_modify_qp",
	"ibv_cmd_modify_qp_ex", "ibv_cmd_modify_srq", "ibv_cmd_modify_wq",
	"ibv_cmd_open_qp", "ibv_cmd_open_xrcd", "ibv_cmd_poll_cq",
	"ibv_cmd_post_recv", "ibv_cmd_post_send", "ibv_cmd_post_srq_recv",
	"ibv_cmd_query_context", "ibv_cmd_query_device_any", "ibv_cmd_query_mr",
	"ibv_cmd_query_port", "ibv_cmd_query_qp", "ibv_cmd_query_srq",
	"ibv_cmd_read_counters", "ibv_cmd_reg_dm_mr", "ibv_cmd_reg_dmabuf_mr",
	"ibv_cmd_reg_mr", "ibv_cmd_req_notify_cq", "ibv_cmd_rereg_mr",
	"ibv_cmd_resize_cq", "ibv_query_gid_type", "ibv_read_ibdev_sysfs_file",
	"ibv_wr_opcode_str", "verbs_allow_disassociate_destroy", "verbs_init_cq",
	"verbs_open_device", "verbs_register_driver_57", "verbs_set_ops",
	"verbs_uninit_context", NULL,
};
static const char *const private_59[] = {
	"__ioctl_final_num_attrs", "__verbs_log", "_verbs_init_and_alloc_context",
	"execute_ioctl", "ibv_cmd_advise_mr", "ibv_cmd_alloc_dm",
	"ibv_cmd_alloc_dmah", "ibv_cmd_alloc_mw", "ibv_cmd_alloc_pd",
	"ibv_cmd_attach_mcast", "ibv_cmd_close_xrcd", "ibv_cmd_create_ah",
	"ibv_cmd_create_counters", "ibv_cmd_create_cq", "ibv_cmd_create_cq_ex",
	"ibv_cmd_create_cq_ex2", "ibv_cmd_create_flow",
	"ibv_cmd_create_flow_action_esp", "ibv_cmd_create_qp",
	"ibv_cmd_create_qp_ex", "ibv_cmd_create_qp_ex2",
	"ibv_cmd_create_rwq_ind_table", "ibv_cmd_create_srq",
	"ibv_cmd_create_srq_ex", "ibv_cmd_create_wq", "ibv_cmd_dealloc_mw",
	"ibv_cmd_dealloc_pd", "ibv_cmd_dereg_mr", "ibv_cmd_destroy_ah",
	"ibv_cmd_destroy_counters", "ibv_cmd_destroy_cq", "ibv_cmd_destroy_flow",
	"ibv_cmd_destroy_flow_action", "ibv_cmd_destroy_qp",
	"ibv_cmd_destroy_rwq_ind_table", "ibv_cmd_destroy_srq",
	"ibv_cmd_destroy_wq", "ibv_cmd_detach_mcast", "ibv_cmd_export_dmabuf_fd",
	"ibv_cmd_free_dm", "ibv_cmd_free_dmah", "ibv_cmd_get_context",
	"ibv_cmd_modify_cq", "ibv_cmd_modify_flow_action_esp", "ibv_cmd_modify_qp",
	"ibv_cmd_modify_qp_ex", "ibv_cmd_modify_srq", "ibv_cmd_modify_wq",
	"ibv_cmd_open_qp", "ibv_cmd_open_xrcd", "ibv_cmd_poll_cq",
	"ibv_cmd_post_recv", "ibv_cmd_post_send", "ibv_cmd_post_srq_recv",
	"ibv_cmd_query_context", "ibv_cmd_query_device_any", "ibv_cmd_query_mr",
	"ibv_cmd_query_port", "ibv_cmd_query_port_speed", "ibv_cmd_query_qp",
	"ibv_cmd_query_srq", "ibv_cmd_read_counters", "ibv_cmd_reg_dm_mr",
	"ibv_cmd_reg_dmabuf_mr", "ibv_cmd_reg_mr", "ibv_cmd_reg_mr_ex",
	"ibv_cmd_req_notify_cq", "ibv_cmd_rereg_mr", "ibv_cmd_resize_cq",
	"ibv_query_gid_type", "ibv_read_ibdev_sysfs_file", "ibv_wr_opcode_str",
	"verbs_allow_disassociate_destroy", "verbs_init_cq", "verbs_open_device",
	"verbs_register_driver_59", "verbs_set_ops", "verbs_uninit_context", NULL,
};
static const char *const private_64[] = {
	"__ioctl_final_num_attrs", "__verbs_log", "_verbs_init_and_alloc_context",
	"execute_ioctl", "ibv_cmd_advise_mr", "ibv_cmd_alloc_dm",
	"ibv_cmd_alloc_dmah", "ibv_cmd_alloc_mw", "ibv_cmd_alloc_pd",
	"ibv_cmd_attach_mcast", "ibv_cmd_close_xrcd", "ibv_cmd_create_ah",
	"ibv_cmd_create_counters", "ibv_cmd_create_cq", "ibv_cmd_create_cq_ex",
	"ibv_cmd_create_cq_ex2", "ibv_cmd_create_flow",
	"ibv_cmd_create_flow_action_esp", "ibv_cmd_create_qp",
	"ibv_cmd_create_qp_ex", "ibv_cmd_create_qp_ex2",
	"ibv_cmd_create_rwq_ind_table", "ibv_cmd_create_srq",
	"ibv_cmd_create_srq_ex", "ibv_cmd_create_wq", "ibv_cmd_dealloc_mw",
	"ibv_cmd_dealloc_pd", "ibv_cmd_dereg_mr", "ibv_cmd_destroy_ah",
	"ibv_cmd_destroy_counters", "ibv_cmd_destroy_cq", "ibv_cmd_destroy_flow",
	"ibv_cmd_destroy_flow_action", "ibv_cmd_destroy_qp",
	"ibv_cmd_destroy_rwq_ind_table", "ibv_cmd_destroy_srq",
	"ibv_cmd_destroy_wq", "ibv_cmd_detach_mcast", "ibv_cmd_export_dmabuf_fd",
	"ibv_cmd_free_dm", "ibv_cmd_free_dmah", "ibv_cmd_get_context",
	"ibv_cmd_modify_cq", "ibv_cmd_modify_flow_action_esp", "ibv_cmd_modify_qp",
	"ibv_cmd_modify_qp_ex", "ibv_cmd_modify_srq", "ibv_cmd_modify_wq",
	"ibv_cmd_open_qp", "ibv_cmd_open_xrcd", "ibv_cmd_poll_cq",
	"ibv_cmd_post_recv", "ibv_cmd_post_send", "ibv_cmd_post_srq_recv",
	"ibv_cmd_query_context", "ibv_cmd_query_device_any", "ibv_cmd_query_mr",
	"ibv_cmd_query_port", "ibv_cmd_query_port_speed", "ibv_cmd_query_qp",
	"ibv_cmd_query_srq", "ibv_cmd_read_counters", "ibv_cmd_reg_dm_mr",
	"ibv_cmd_reg_dmabuf_mr", "ibv_cmd_reg_mr", "ibv_cmd_reg_mr_ex",
	"ibv_cmd_req_notify_cq", "ibv_cmd_rereg_mr", "ibv_cmd_resize_cq",
	"ibv_dmabuf_heap_alloc", "ibv_dmabuf_heap_cc_shared_init",
	"ibv_dmabuf_heap_destroy", "ibv_dmabuf_heap_free", "ibv_query_gid_type",
	"ibv_read_ibdev_sysfs_file", "ibv_wr_opcode_str",
	"verbs_allow_disassociate_destroy", "verbs_init_cq", "verbs_open_device",
	"verbs_register_driver_64", "verbs_set_ops", "verbs_uninit_context", NULL,
};
static const char *const private_65[] = {
	"__ioctl_final_num_attrs", "__verbs_log", "_verbs_init_and_alloc_context",
	"execute_ioctl", "ibv_cmd_advise_mr", "ibv_cmd_alloc_dm",
	"ibv_cmd_alloc_dmah", "ibv_cmd_alloc_mw", "ibv_cmd_alloc_pd",
	"ibv_cmd_attach_mcast", "ibv_cmd_close_xrcd", "ibv_cmd_create_ah",
	"ibv_cmd_create_comp_cntr", "ibv_cmd_create_counters", "ibv_cmd_create_cq",
	"ibv_cmd_create_cq_ex", "ibv_cmd_create_cq_ex2", "ibv_cmd_create_flow",
	"ibv_cmd_create_flow_action_esp", "ibv_cmd_create_qp",
	"ibv_cmd_create_qp_ex", "ibv_cmd_create_qp_ex2",
	"ibv_cmd_create_rwq_ind_table", "ibv_cmd_create_srq",
	"ibv_cmd_create_srq_ex", "ibv_cmd_create_wq", "ibv_cmd_dealloc_mw",
	"ibv_cmd_dealloc_pd", "ibv_cmd_dereg_mr", "ibv_cmd_destroy_ah",
	"ibv_cmd_destroy_comp_cntr", "ibv_cmd_destroy_counters",
	"ibv_cmd_destroy_cq", "ibv_cmd_destroy_flow", "ibv_cmd_destroy_flow_action",
	"ibv_cmd_destroy_qp", "ibv_cmd_destroy_rwq_ind_table",
	"ibv_cmd_destroy_srq", "ibv_cmd_destroy_wq", "ibv_cmd_detach_mcast",
	"ibv_cmd_export_dmabuf_fd", "ibv_cmd_free_dm", "ibv_cmd_free_dmah",
	"ibv_cmd_get_context", "ibv_cmd_inc_comp_cntr", "ibv_cmd_inc_err_comp_cntr",
	"ibv_cmd_modify_cq", "ibv_cmd_modify_flow_action_esp", "ibv_cmd_modify_qp",
	"ibv_cmd_modify_qp_ex", "ibv_cmd_modify_srq", "ibv_cmd_modify_wq",
	"ibv_cmd_open_qp", "ibv_cmd_open_xrcd", "ibv_cmd_poll_cq",
	"ibv_cmd_post_recv", "ibv_cmd_post_send", "ibv_cmd_post_srq_recv",
	"ibv_cmd_qp_attach_comp_cntr", "ibv_cmd_query_comp_cntr_caps",
	"ibv_cmd_query_context", "ibv_cmd_query_device_any", "ibv_cmd_query_mr",
	"ibv_cmd_query_port", "ibv_cmd_query_port_speed", "ibv_cmd_query_qp",
	"ibv_cmd_query_srq", "ibv_cmd_read_comp_cntr", "ibv_cmd_read_counters",
	"ibv_cmd_read_err_comp_cntr", "ibv_cmd_reg_dm_mr", "ibv_cmd_reg_dmabuf_mr",
	"ibv_cmd_reg_mr", "ibv_cmd_reg_mr_ex", "ibv_cmd_req_notify_cq",
	"ibv_cmd_rereg_mr", "ibv_cmd_resize_cq", "ibv_cmd_set_comp_cntr",
	"ibv_cmd_set_err_comp_cntr", "ibv_dmabuf_heap_alloc",
	"ibv_dmabuf_heap_cc_shared_init", "ibv_dmabuf_heap_destroy",
	"ibv_dmabuf_heap_free", "ibv_query_gid_type", "ibv_read_ibdev_sysfs_file",
	"ibv_wr_opcode_str", "verbs_allow_disassociate_destroy", "verbs_init_cq",
	"verbs_open_device", "verbs_register_driver_65", "verbs_set_ops",
	"verbs_uninit_context", NULL,
};

static const char *const public_1_15[] = {
	"ibv_alloc_dmah", "ibv_dealloc_dmah", "ibv_reg_mr_ex", NULL,
};
static const char *const public_1_16[] = {
	"ibv_dm_export_dmabuf_fd", "ibv_query_port_speed", NULL,
};
static const char *const public_1_17[] = {
	"ibv_alloc_buf", "ibv_free_buf", "ibv_reg_buf_mr", NULL,
};
static const char *const public_1_18[] = {
	"_ibv_query_comp_cntr_caps", "ibv_create_comp_cntr",
	"ibv_destroy_comp_cntr", "ibv_export_buf_dmabuf_fd",
	"ibv_inc_comp_cntr", "ibv_inc_err_comp_cntr", "ibv_qp_attach_comp_cntr",
	"ibv_read_comp_cntr", "ibv_read_err_comp_cntr", "ibv_set_comp_cntr",
	"ibv_set_err_comp_cntr", NULL,
};

static const struct node_facts {
	const char *node, *parent;
	const char *const *names;
} nodes[] = {
	{ "IBVERBS_1.15", "IBVERBS_1.14", public_1_15 },
	{ "IBVERBS_1.16", "IBVERBS_1.15", public_1_16 },
	{ "IBVERBS_1.17", "IBVERBS_1.16", public_1_17 },
	{ "IBVERBS_1.18", "IBVERBS_1.17", public_1_18 },
	{ "IBVERBS_PRIVATE_34", NULL, private_34 },
	{ "IBVERBS_PRIVATE_57", NULL, private_57 },
	{ "IBVERBS_PRIVATE_59", NULL, private_59 },
	{ "IBVERBS_PRIVATE_64", NULL, private_64 },
	{ "IBVERBS_PRIVATE_65", NULL, private_65 },
};
#define NNODES (sizeof(nodes) / sizeof(nodes[0]))
#define DEFAULT_PRIVATE "IBVERBS_PRIVATE_65"

static const struct node_facts *node_of(const char *ver)
{
	for (size_t i = 0; i < NNODES; i++)
		if (!strcmp(nodes[i].node, ver))
			return &nodes[i];
	return NULL;
}

static int in_list(const char *const *names, const char *name)
{
	for (; *names; names++)
		if (!strcmp(*names, name))
			return 1;
	return 0;
}

static int is_private(const char *ver)
{
	return !strncmp(ver, "IBVERBS_PRIVATE_", 16);
}

/* What a binary's reference to name@ver binds to here: the default
 * version, or for a provider-ABI node any. */
static const struct sym *find_bindable(const struct lib_abi *lib,
				       const char *name, const char *ver)
{
	const struct sym *s = find_sym(lib, name, ver, 0);

	if (!s && is_private(ver))
		s = find_sym(lib, name, ver, 1);
	return s;
}

/* ---- the checks ----------------------------------------------------------- */

START_TEST(soname_is_libibverbs_so_1)
{
	ck_assert_str_eq(sys.soname, "libibverbs.so.1");
	ck_assert_msg(!strcmp(ours.soname, "libibverbs.so.1"),
		      "%s has SONAME '%s'", ours.path, ours.soname);
}
END_TEST

START_TEST(every_system_pair_is_exported)
{
	size_t missing = 0, required = 0;
	char first[512] = "";

	for (size_t i = 0; i < sys.nsyms; i++) {
		const struct sym *s = &sys.syms[i];

		if (s->hidden)
			continue;
		required++;
		if (find_bindable(&ours, s->name, s->ver))
			continue;
		fprintf(stderr, "missing: %s@%s\n", s->name, s->ver);
		if (strlen(first) < 300) {
			size_t len = strlen(first);

			snprintf(first + len, sizeof(first) - len, "%s%s@%s",
				 missing ? ", " : "", s->name, s->ver);
		}
		missing++;
	}
	ck_assert_msg(required > 100, "only %zu pairs read from %s", required,
		      sys.path);
	ck_assert_msg(!missing, "%zu of %zu (symbol, version) pairs missing "
		      "(all listed on stderr): %s", missing, required, first);
}
END_TEST

START_TEST(every_node_is_the_sources_list)
{
	size_t bad = 0;

	for (size_t n = 0; n < NNODES; n++) {
		const struct node_facts *f = &nodes[n];

		/* every listed name is there... */
		for (const char *const *nm = f->names; *nm; nm++) {
			if (find_bindable(&ours, *nm, f->node))
				continue;
			fprintf(stderr, "missing: %s@%s\n", *nm, f->node);
			bad++;
		}
		/* ...and nothing else */
		for (size_t i = 0; i < ours.nsyms; i++) {
			const struct sym *s = &ours.syms[i];

			if (strcmp(s->ver, f->node) || in_list(f->names, s->name))
				continue;
			fprintf(stderr, "not in rdma-core's %s: %s\n", f->node,
				s->name);
			bad++;
		}
	}
	ck_assert_msg(!bad, "%zu differences from rdma-core's node lists (on stderr)",
		      bad);
}
END_TEST

/* One name, one default: a program or provider linked against this
 * library gets the newest node's form. */
START_TEST(private_names_default_to_the_newest_node)
{
	size_t bad = 0;

	for (size_t i = 0; i < ours.nsyms; i++) {
		const struct sym *s = &ours.syms[i];

		if (!is_private(s->ver) || s->hidden ||
		    !strcmp(s->ver, DEFAULT_PRIVATE) ||
		    !strncmp(s->name, "verbs_register_driver_", 22))
			continue;
		fprintf(stderr, "%s@@%s is a default version\n", s->name, s->ver);
		bad++;
	}
	for (const char *const *nm = private_65; *nm; nm++)
		if (!find_sym(&ours, *nm, DEFAULT_PRIVATE, 0)) {
			fprintf(stderr, "%s@@%s is missing\n", *nm, DEFAULT_PRIVATE);
			bad++;
		}
	ck_assert_msg(!bad, "%zu default versions wrong (on stderr)", bad);
}
END_TEST

START_TEST(nothing_exported_beyond_the_system_set)
{
	size_t extra = 0;

	for (size_t i = 0; i < ours.nsyms; i++) {
		const struct sym *s = &ours.syms[i];
		const struct node_facts *f = node_of(s->ver);

		if (!strcmp(s->ver, OWN_NODE) && !s->hidden)
			continue;
		if (find_sym(&sys, s->name, s->ver, s->hidden) ||
		    (is_private(s->ver) && find_sym(&sys, s->name, s->ver, 0)))
			continue;
		/* another rdma-core release's node (checked above) */
		if (f && in_list(f->names, s->name))
			continue;
		fprintf(stderr, "exported but not in %s: %s%s%s%s\n", sys.path,
			s->name, s->hidden ? "@(" : "@", s->ver,
			s->hidden ? ")" : "");
		extra++;
	}
	ck_assert_msg(!extra, "%zu exported symbols are not in the system "
		      "library (listed on stderr)", extra);
}
END_TEST

START_TEST(symbol_kinds_and_object_sizes_match)
{
	size_t bad = 0;

	for (size_t i = 0; i < sys.nsyms; i++) {
		const struct sym *s = &sys.syms[i], *o;

		if (s->hidden)
			continue;
		o = find_bindable(&ours, s->name, s->ver);
		if (!o)
			continue; /* reported by every_system_pair_is_exported */
		if (o->kind != s->kind ||
		    (s->kind == 'O' && o->size != s->size)) {
			fprintf(stderr, "%s@%s: system has %c size %lu, "
				"softverbs %c size %lu\n", s->name, s->ver,
				s->kind, s->size, o->kind, o->size);
			bad++;
		}
	}
	ck_assert_msg(!bad, "%zu symbols differ in kind or object size", bad);
}
END_TEST

START_TEST(version_nodes_exist_and_chain)
{
	for (size_t i = 0; i < sys.ndefs; i++) {
		const struct verdef *s = &sys.defs[i], *o;

		if (!strncmp(s->name, "@base:", 6))
			continue;
		o = find_def(&ours, s->name);
		ck_assert_msg(o, "version node %s is not defined", s->name);
		ck_assert_msg(o->nparents == s->nparents,
			      "%s has %d parents, system has %d", s->name,
			      o->nparents, s->nparents);
		for (int p = 0; p < s->nparents; p++)
			ck_assert_msg(!strcmp(o->parents[p], s->parents[p]),
				      "%s depends on %s, system's on %s",
				      s->name, o->parents[p], s->parents[p]);
	}
	for (size_t i = 0; i < ours.ndefs; i++) {
		const struct verdef *o = &ours.defs[i];
		const struct node_facts *f = node_of(o->name);

		if (!strncmp(o->name, "@base:", 6) || !strcmp(o->name, OWN_NODE))
			continue;
		if (f) {
			/* a node of another release: its parent as there */
			ck_assert_msg(f->parent ? o->nparents == 1 &&
							  !strcmp(o->parents[0], f->parent) :
						  o->nparents == 0,
				      "%s's parents are not rdma-core's", o->name);
			continue;
		}
		ck_assert_msg(find_def(&sys, o->name),
			      "version node %s is not in the system library",
			      o->name);
	}
}
END_TEST

/* What the dynamic linker does for an application: look every required
 * pair up by version. */
START_TEST(dynamic_linker_binds_every_pair)
{
	void *h = dlopen(ours.path, RTLD_NOW | RTLD_LOCAL);
	size_t unbound = 0;

	ck_assert_msg(h, "dlopen(%s): %s", ours.path, dlerror());
	for (size_t i = 0; i < sys.nsyms; i++) {
		const struct sym *s = &sys.syms[i];

		if (s->hidden)
			continue;
		if (!dlvsym(h, s->name, s->ver)) {
			fprintf(stderr, "dlvsym(%s, %s) failed\n", s->name,
				s->ver);
			unbound++;
		}
	}
	dlclose(h);
	ck_assert_msg(!unbound, "%zu pairs cannot be bound (listed on stderr)",
		      unbound);
}
END_TEST

/* ---- rdma-core providers loaded into a softverbs process --------------- */

/* Child mode: load one provider library and report. Its constructor
 * calls verbs_register_driver_<N>, which softverbs records and logs. */
static int load_provider_and_exit(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		fprintf(stderr, "dlopen(%s): %s\n", path, dlerror());
		return 1;
	}
	return 0;
}

/* The direct-verbs libraries (perftest links libmlx5 and libefa) and
 * every plugin Debian ships, each bound immediately (LD_BIND_NOW): a
 * symbol or version softverbs lacks fails the load. */
static glob_t providers;

static void find_providers(void)
{
	glob("/usr/lib/x86_64-linux-gnu/libmlx5.so.1", 0, NULL, &providers);
	glob("/usr/lib/x86_64-linux-gnu/libmlx4.so.1", GLOB_APPEND, NULL,
	     &providers);
	glob("/usr/lib/x86_64-linux-gnu/libefa.so.1", GLOB_APPEND, NULL,
	     &providers);
	glob("/usr/lib/x86_64-linux-gnu/libmana.so.1", GLOB_APPEND, NULL,
	     &providers);
	glob("/usr/lib/x86_64-linux-gnu/libhns.so.1", GLOB_APPEND, NULL,
	     &providers);
	glob("/usr/lib/x86_64-linux-gnu/libionic.so.1", GLOB_APPEND, NULL,
	     &providers);
	glob("/usr/lib/x86_64-linux-gnu/libibverbs/*-rdmav*.so", GLOB_APPEND,
	     NULL, &providers);
}

START_TEST(rdma_core_provider_loads_and_registers)
{
	const char *path = providers.gl_pathv[_i];
	char logfile[] = "/tmp/test_abi_log.XXXXXX";
	char line[1024];
	int fd, status, registered = 0;
	FILE *f;
	pid_t pid;

	fd = mkstemp(logfile);
	ck_assert_int_ge(fd, 0);
	close(fd);

	/* A fresh process: the log settings are read when softverbs loads. */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		setenv("SOFTVERBS_LOG", "debug", 1);
		setenv("LD_BIND_NOW", "1", 1);
		setenv("SOFTVERBS_LOG_FILE", logfile, 1);
		execl("/proc/self/exe", "test_abi", "--load-provider", path,
		      (char *)NULL);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);

	f = fopen(logfile, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "' registered"))
			registered = 1;
	fclose(f);
	unlink(logfile);

	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "loading %s on softverbs failed (status 0x%x; the "
		      "dlerror is on stderr)", path, (unsigned int)status);
	ck_assert_msg(registered, "%s loaded but no registration was logged",
		      path);
}
END_TEST

static Suite *make_abi_suite(void)
{
	Suite *s = suite_create("abi");
	TCase *tc = tcase_create("exports");

	tcase_add_test(tc, soname_is_libibverbs_so_1);
	tcase_add_test(tc, every_system_pair_is_exported);
	tcase_add_test(tc, nothing_exported_beyond_the_system_set);
	tcase_add_test(tc, every_node_is_the_sources_list);
	tcase_add_test(tc, private_names_default_to_the_newest_node);
	tcase_add_test(tc, symbol_kinds_and_object_sizes_match);
	tcase_add_test(tc, version_nodes_exist_and_chain);
	tcase_add_test(tc, dynamic_linker_binds_every_pair);
	suite_add_tcase(s, tc);

	tc = tcase_create("rdma-core providers");
	if (providers.gl_pathc)
		tcase_add_loop_test(tc, rdma_core_provider_loads_and_registers,
				    0, (int)providers.gl_pathc);
	suite_add_tcase(s, tc);
	return s;
}

static const char *own_library_path(char *buf, size_t len)
{
	const char *dir = getenv("SOFTVERBS_LIBDIR");
	const char *top = getenv("top_builddir");

	if (dir && *dir)
		snprintf(buf, len, "%s/libibverbs.so.1", dir);
	else if (top && *top)
		snprintf(buf, len, "%s/lib/.libs/libibverbs.so.1", top);
	else
		snprintf(buf, len, "lib/.libs/libibverbs.so.1");
	return buf;
}

int main(int argc, char **argv)
{
	const char *system_lib = getenv("SYSTEM_LIBIBVERBS");
	char own_path[4096];
	int ret;

	if (argc == 3 && !strcmp(argv[1], "--load-provider"))
		return load_provider_and_exit(argv[2]);

	if (!system_lib || !*system_lib)
		system_lib = SYSTEM_LIB_DEFAULT;
	if (read_abi(&sys, system_lib)) {
		printf("SKIP: the system libibverbs (%s) cannot be read; "
		       "install libibverbs1 and binutils\n", system_lib);
		return SKIP;
	}
	if (read_abi(&ours, own_library_path(own_path, sizeof(own_path)))) {
		fprintf(stderr, "test_abi: the built library %s cannot be "
			"read\n", own_path);
		return 1;
	}
	find_providers();

	ret = check_run(make_abi_suite());
	globfree(&providers);
	return ret;
}
