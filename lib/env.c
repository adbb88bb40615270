/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The environment rule (lib/env.h). AT_SECURE is what glibc's
 * secure_getenv() and the dynamic loader test: the kernel sets it when
 * the exec changed the credentials (setuid, setgid), raised capabilities
 * (file capabilities) or an LSM asked for it. Testing getuid() !=
 * geteuid() misses setgid and file-capability programs. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "env.h"
#include "log.h"

const char *const sv_env_path_names[] = {
	"SOFTVERBS_LOG_FILE",  /* a file to create and append to */
	"VERBS_LOG_FILE",      /* the same, rdma-core's name */
	"SOFTVERBS_PROVIDERS", /* which libraries drive the devices */
	"RDMAV_DRIVERS",       /* provider libraries to load, or their paths */
	"IBV_DRIVERS",         /* the same, rdma-core's older name */
	"SYSFS_PATH",          /* the sysfs tree to trust */
	"SOFTVERBS_UROCE",     /* devices to create, and which code drives them */
	"SOFTVERBS_SYSCONFDIR", /* the folder of the system's uroce.conf */
	"SOFTVERBS_UROCE_PCAP", /* a capture file to create */
	"SOFTVERBS_UROCE_FAULTS", /* faults on uroce's packets (no file, but
				   * a test knob a caller must not set for
				   * a privileged program) */
	NULL,
};

static int forced = -1;

void sv_env_force_secure(int secure)
{
	forced = secure;
}

bool sv_env_secure(void)
{
	if (forced >= 0)
		return forced;
	return getauxval(AT_SECURE) != 0;
}

const char *sv_env(const char *name)
{
	return getenv(name);
}

const char *sv_env_path(const char *name)
{
	return sv_env_secure() ? NULL : getenv(name);
}

void sv_env_report(void)
{
	char names[256];
	size_t n = 0;

	if (!sv_env_secure())
		return;
	names[0] = '\0';
	for (const char *const *v = sv_env_path_names; *v; v++) {
		size_t len = strlen(*v);

		if (!getenv(*v) || n + len + 3 >= sizeof(names))
			continue;
		if (n) {
			memcpy(names + n, ", ", 2);
			n += 2;
		}
		memcpy(names + n, *v, len + 1);
		n += len;
	}
	if (n)
		sv_complain("privileged program (AT_SECURE: setuid, setgid or file capabilities): ignoring %s; it takes no file, folder, library or provider choice from its caller's environment",
			    names);
}
