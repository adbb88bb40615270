/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The built-in providers. Adding one takes its folder (provider/<name>/
 * with a Makefile.inc adding its sources to lib/libsvcore.la), one
 * `include` line in Makefile.am, and two lines here: its declaration and
 * its entry in the list. */
#include "config.h"

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
