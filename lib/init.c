/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "config.h"

#include <pthread.h>

#include "core.h"
#include "fork.h"

/* Runs when the library is loaded, before main(): RDMAV_FORK_SAFE and
 * friends take effect here, not at the first device listing. */
__attribute__((constructor)) static void sv_load(void)
{
	sv_init_once();
}

static void init_all(void)
{
	sv_log_init();
	/* fork safety: environment (RDMAV_FORK_SAFE, IBV_FORK_SAFE,
	 * RDMAV_HUGEPAGES_SAFE) is read here. */
	sv_fork_setup();
}

void sv_init_once(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, init_all);
}
