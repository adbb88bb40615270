/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What the library takes from the environment, and its one rule: a
 * process privileged by exec (the kernel's AT_SECURE: setuid, setgid,
 * file capabilities, an LSM domain transition) takes nothing from its
 * caller that names a file, a folder or a library, or that chooses which
 * code drives a device. Its caller's environment is not its own: a
 * variable read here in such a process could create a root-owned file
 * or load the caller's code. Variables that can only add protection
 * (RDMAV_FORK_SAFE, IBV_FORK_SAFE, RDMAV_HUGEPAGES_SAFE) or set how much
 * is logged to stderr are read everywhere. softverbs(7), SECURITY, lists
 * every variable with its rule. */
#ifndef SV_ENV_H
#define SV_ENV_H

#include <stdbool.h>

/* True in a process privileged by exec. */
bool sv_env_secure(void);

/* A variable any process may take from its caller. */
const char *sv_env(const char *name);

/* A variable that names a file, a folder, a library or a provider
 * choice: NULL in a privileged process. name must be one of
 * sv_env_path_names (a test checks each). */
const char *sv_env_path(const char *name);

/* Those variables, NULL-terminated. */
extern const char *const sv_env_path_names[];

/* In a privileged process, one warning line naming the variables of
 * sv_env_path_names that are set and ignored; nothing otherwise. Called
 * once at library load (sv_log_init). */
void sv_env_report(void);

/* Tests only: -1 follows AT_SECURE, 0 or 1 forces the answer. */
void sv_env_force_secure(int secure);

#endif
