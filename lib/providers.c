/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The drivers that claim devices, and the built-in one among them.
 *
 * The built-in providers: adding one takes its folder (provider/<name>/
 * with a Makefile.inc adding its sources to lib/libsvcore.la), one
 * `include` line in Makefile.am, and two lines here: its declaration and
 * its entry in the list. Adding a driver (a layer of providers of its
 * own) takes its struct sv_driver and one line in sv_drivers. */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

extern const struct sv_provider rxe_provider;
extern const struct sv_provider siw_provider;

const struct sv_provider *const sv_providers[] = {
	&rxe_provider,
	&siw_provider,
	NULL,
};

static int name_matches(const struct sv_provider *prov, const char *ibdev)
{
	if (!prov->names || !ibdev)
		return 0;
	for (const char *const *n = prov->names; *n; n++)
		if (!strncmp(ibdev, *n, strlen(*n)))
			return 1;
	return 0;
}

const struct sv_provider *sv_provider_match(enum rdma_driver_id driver_id,
					    const char *ibdev_name,
					    unsigned int abi_version)
{
	for (const struct sv_provider *const *p = sv_providers; *p; p++) {
		const struct sv_provider *prov = *p;
		int match;

		/* The kernel's driver id is authoritative when it gave one;
		 * the name is a guess for sysfs-only discovery. */
		if (driver_id != RDMA_DRIVER_UNKNOWN)
			match = prov->driver_id != RDMA_DRIVER_UNKNOWN &&
				prov->driver_id == driver_id;
		else
			match = name_matches(prov, ibdev_name);
		if (!match)
			continue;
		if (abi_version < prov->abi_min || abi_version > prov->abi_max) {
			sv_warn("%s: provider %s speaks uverbs ABI %u..%u, the kernel %u",
				ibdev_name ? ibdev_name : "?", prov->name,
				prov->abi_min, prov->abi_max, abi_version);
			return NULL;
		}
		return prov;
	}
	return NULL;
}

/* ---- which providers drive devices ---------------------------------------- */

static pthread_once_t mode_once = PTHREAD_ONCE_INIT;
static int mode;

static void read_mode(void)
{
	const char *v = sv_env_path("SOFTVERBS_PROVIDERS");

	if (!v || !*v || !strcmp(v, "native")) {
		mode = SV_PROVIDERS_NATIVE;
	} else if (!strcmp(v, "rdma-core")) {
		mode = SV_PROVIDERS_RDMA_CORE;
		sv_info("SOFTVERBS_PROVIDERS=rdma-core: rdma-core's provider libraries drive every device");
	} else {
		sv_complain("SOFTVERBS_PROVIDERS=%s is not understood (use \"native\" or \"rdma-core\"); no device is listed",
			    v);
		mode = -EINVAL;
	}
}

int sv_provider_mode(void)
{
	pthread_once(&mode_once, read_mode);
	return mode;
}

/* ---- the built-in driver --------------------------------------------------- */

/* The device object is a bare verbs_device (its ops NULL): the record
 * says which provider drives it. */
static struct verbs_device *builtin_claim(struct sv_sysfs_dev *s)
{
	struct verbs_device *vdev;

	if (sv_provider_mode() != SV_PROVIDERS_NATIVE)
		return NULL;
	s->native = sv_provider_match((enum rdma_driver_id)s->sd.driver_id,
				      s->sd.ibdev_name, s->sd.abi_ver);
	if (!s->native)
		return NULL;
	vdev = calloc(1, sizeof(*vdev));
	if (!vdev)
		return NULL;
	s->hooks = &sv_builtin_hooks;
	s->layout = &sv_native_layout;
	sv_info("%s (%s): driven by softverbs' built-in %s provider",
		s->sd.ibdev_name, s->sd.sysfs_name, s->native->name);
	return vdev;
}

static const struct sv_driver builtin_driver = {
	.name = "softverbs",
	.claim = builtin_claim,
};

/* ---- the drivers ------------------------------------------------------------ */

/* rdma-core's provider libraries (lib/pabi/loader.c): the one place the
 * core names the provider-ABI layer. */
extern const struct sv_driver pabi_driver;
/* Devices no kernel knows: softverbs' userspace RoCE v2 provider
 * (provider/uroce/uroce_driver.c), which lists its own. */
extern const struct sv_driver uroce_driver;

/* The built-in providers first (SOFTVERBS_PROVIDERS=native), then
 * rdma-core's for every device they leave; uroce claims only the devices
 * it found itself. */
const struct sv_driver *const sv_drivers[] = {
	&builtin_driver,
	&pabi_driver,
	&uroce_driver,
	NULL,
};
