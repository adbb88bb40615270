#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Fork matrix row "odp" (tests/integration/fork_matrix.sh), in the test VM:
# ODP MRs across every fork way where the kernel's rxe has ODP (7.x), the
# refusal with rdma-core's errno where it has not.
exec "$(dirname "$0")/fork_matrix.sh" odp
