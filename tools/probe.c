/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* probe: what `softverbs doctor` learns through the verbs API itself, as a
 * program would. Linked against -libverbs like any application, it runs on
 * whichever libibverbs.so.1 the loader finds (doctor points it at
 * softverbs'), lists the devices, opens each one, queries its ports, and
 * creates what every RDMA program creates: a PD, a 1 MiB MR (pinned, so it
 * counts against RLIMIT_MEMLOCK), a CQ and an RC QP.
 *
 * Output: one record per line, "KIND key=value ...", for the shell:
 *   library path=P softverbs=0|1
 *   fork status=DISABLED|ENABLED|UNNEEDED [copy_on_fork=0|1 fork_safe=0|1 huge_safe=0|1]
 *   devices count=N | devices error=ERRNO
 *   device name=D transport=IB|iWARP|... open=ok|ERRNO [ports=N fw=V]
 *   port name=D port=P state=PORT_ACTIVE|PORT_DOWN|... link=Ethernet|InfiniBand active_mtu=M
 *   resources name=D pd=R mr=R mr_bytes=N cq=R qp=R   (R: ok|ERRNO|-)
 *   features name=D atomic_write=0|1 flush=0|1 odp=0|1  (ibv_query_device_ex;
 *                                   omitted when it fails)
 * Exit: 0 when the device list could be read, 1 otherwise. */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <infiniband/verbs.h>
#include <softverbs/softverbs.h>

#define MR_BYTES (1u << 20)

typedef int (*fork_stats_fn)(struct softverbs_fork_stats *, size_t);

static const char *err_name(int err)
{
	const char *s = strerrorname_np(err);

	return s ? s : "EUNKNOWN";
}

static const char *transport_name(enum ibv_transport_type t)
{
	switch (t) {
	case IBV_TRANSPORT_IB: return "IB";
	case IBV_TRANSPORT_IWARP: return "iWARP";
	case IBV_TRANSPORT_USNIC: return "usNIC";
	case IBV_TRANSPORT_USNIC_UDP: return "usNIC_UDP";
	case IBV_TRANSPORT_UNSPECIFIED: return "unspecified";
	default: return "unknown";
	}
}

static const char *link_name(uint8_t link_layer)
{
	switch (link_layer) {
	case IBV_LINK_LAYER_ETHERNET: return "Ethernet";
	case IBV_LINK_LAYER_INFINIBAND: return "InfiniBand";
	default: return "unspecified";
	}
}

static int mtu_bytes(enum ibv_mtu mtu)
{
	return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128 << mtu : 0;
}

static const char *state_name(enum ibv_port_state st)
{
	switch (st) {
	case IBV_PORT_DOWN: return "PORT_DOWN";
	case IBV_PORT_INIT: return "PORT_INIT";
	case IBV_PORT_ARMED: return "PORT_ARMED";
	case IBV_PORT_ACTIVE: return "PORT_ACTIVE";
	case IBV_PORT_ACTIVE_DEFER: return "PORT_ACTIVE_DEFER";
	default: return "PORT_NOP";
	}
}

static void print_library(void)
{
	fork_stats_fn stats = (fork_stats_fn)dlsym(RTLD_DEFAULT, "softverbs_fork_stats");
	Dl_info info = { 0 };
	enum ibv_fork_status st;
	static const char *const status_names[] = {
		[IBV_FORK_DISABLED] = "DISABLED",
		[IBV_FORK_ENABLED] = "ENABLED",
		[IBV_FORK_UNNEEDED] = "UNNEEDED",
	};

	/* The address of ibv_get_device_list names the library really loaded. */
	if (!dladdr((void *)ibv_get_device_list, &info) || !info.dli_fname)
		info.dli_fname = "?";
	printf("library path=%s softverbs=%d\n", info.dli_fname, stats != NULL);

	st = ibv_is_fork_initialized();
	printf("fork status=%s", (unsigned)st <= IBV_FORK_UNNEEDED ? status_names[st] : "?");
	if (stats) {
		struct softverbs_fork_stats s;

		if (!stats(&s, sizeof(s)))
			printf(" copy_on_fork=%d fork_safe=%d huge_safe=%d", s.copy_on_fork,
			       s.fork_safe, s.huge_pages_safe);
	}
	printf("\n");
}

/* The objects every RDMA program creates; prints one "resources" line. */
static void probe_resources(struct ibv_context *ctx, const char *name)
{
	struct ibv_pd *pd;
	struct ibv_mr *mr = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_qp *qp = NULL;
	const char *mr_res = "-", *cq_res = "-", *qp_res = "-";
	void *buf;

	pd = ibv_alloc_pd(ctx);
	if (!pd) {
		printf("resources name=%s pd=%s mr=- mr_bytes=%u cq=- qp=-\n", name,
		       err_name(errno), MR_BYTES);
		return;
	}
	buf = mmap(NULL, MR_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		mr_res = err_name(errno);
		buf = NULL;
	} else {
		mr = ibv_reg_mr(pd, buf, MR_BYTES, IBV_ACCESS_LOCAL_WRITE);
		mr_res = mr ? "ok" : err_name(errno);
	}
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	cq_res = cq ? "ok" : err_name(errno);
	if (cq) {
		struct ibv_qp_init_attr attr = {
			.send_cq = cq,
			.recv_cq = cq,
			.qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 16, .max_recv_wr = 16,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		};

		qp = ibv_create_qp(pd, &attr);
		qp_res = qp ? "ok" : err_name(errno);
	}
	printf("resources name=%s pd=ok mr=%s mr_bytes=%u cq=%s qp=%s\n", name, mr_res,
	       MR_BYTES, cq_res, qp_res);

	if (qp)
		ibv_destroy_qp(qp);
	if (cq)
		ibv_destroy_cq(cq);
	if (mr)
		ibv_dereg_mr(mr);
	if (buf)
		munmap(buf, MR_BYTES);
	ibv_dealloc_pd(pd);
}

static void probe_device(struct ibv_device *dev)
{
	const char *name = ibv_get_device_name(dev);
	struct ibv_device_attr attr;
	struct ibv_context *ctx;
	int ret;

	printf("device name=%s transport=%s", name, transport_name(dev->transport_type));
	ctx = ibv_open_device(dev);
	if (!ctx) {
		printf(" open=%s\n", err_name(errno));
		return;
	}
	ret = ibv_query_device(ctx, &attr);
	if (ret) {
		printf(" open=ok query=%s\n", err_name(ret));
		ibv_close_device(ctx);
		return;
	}
	printf(" open=ok ports=%u fw=%s\n", attr.phys_port_cnt,
	       attr.fw_ver[0] ? attr.fw_ver : "-");
	{
		/* device_cap_flags_ex bits 38-40 (FLUSH_GLOBAL,
		 * FLUSH_PERSISTENT, ATOMIC_WRITE): rdma-core 45's
		 * IBV_DEVICE_* names, which Debian 12's verbs.h lacks */
		struct ibv_device_attr_ex ax;

		memset(&ax, 0, sizeof(ax));
		if (!ibv_query_device_ex(ctx, NULL, &ax))
			printf("features name=%s atomic_write=%d flush=%d odp=%d\n", name,
			       !!(ax.device_cap_flags_ex & (1ULL << 40)),
			       !!(ax.device_cap_flags_ex & (3ULL << 38)),
			       !!(ax.odp_caps.general_caps & IBV_ODP_SUPPORT));
	}
	for (unsigned int p = 1; p <= attr.phys_port_cnt; p++) {
		struct ibv_port_attr pa;

		ret = ibv_query_port(ctx, (uint8_t)p, &pa);
		if (ret) {
			printf("port name=%s port=%u query=%s\n", name, p, err_name(ret));
			continue;
		}
		printf("port name=%s port=%u state=%s link=%s active_mtu=%d\n", name, p,
		       state_name(pa.state), link_name(pa.link_layer),
		       mtu_bytes(pa.active_mtu));
	}
	probe_resources(ctx, name);
	ibv_close_device(ctx);
}

int main(void)
{
	struct ibv_device **list;
	int n;

	setvbuf(stdout, NULL, _IOLBF, 0);
	print_library();
	list = ibv_get_device_list(&n);
	if (!list) {
		printf("devices error=%s\n", err_name(errno));
		return 1;
	}
	printf("devices count=%d\n", n);
	for (int i = 0; i < n; i++)
		probe_device(list[i]);
	ibv_free_device_list(list);
	return 0;
}
