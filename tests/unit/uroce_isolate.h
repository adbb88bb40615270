/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* tests/unit/uroce_isolate.h -- the uroce unit tests' own network
 * namespace. make check runs them side by side as one user, root in CI:
 * all their contexts on 127.0.0.1 share one SO_REUSEPORT group of UDP
 * 4791, and a context that joins or leaves it moves the others' places.
 * A datagram queued on a socket that closes is lost with it (a UD
 * message, which nothing sends again; RC sends again). So, when root, a
 * test program unshares its network namespace before its first test and
 * brings lo up (127.0.0.1 and ::1): its group holds its own contexts
 * only, the churn the demux tests make on purpose. Not root, it runs
 * where it is (an unprivileged user's group is its own). */
#ifndef SV_TESTS_UROCE_ISOLATE_H
#define SV_TESTS_UROCE_ISOLATE_H

#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

static inline void uroce_isolate(void)
{
	struct ifreq ifr;
	int fd;

	if (geteuid() != 0 || unshare(CLONE_NEWNET))
		return;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr) ||
	    (ifr.ifr_flags |= IFF_UP, ioctl(fd, SIOCSIFFLAGS, &ifr)))
		fprintf(stderr, "uroce_isolate: lo up in a network namespace of its own: %m\n");
	if (fd >= 0)
		close(fd);
}

#endif
