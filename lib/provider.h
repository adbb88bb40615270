/* What providers see: ops tables, registration, command helpers. */
#ifndef SV_PROVIDER_H
#define SV_PROVIDER_H

#include <infiniband/verbs.h>

#endif
