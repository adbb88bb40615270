#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Fork matrix row "huge" (tests/integration/fork_matrix.sh), in the test VM.
exec "$(dirname "$0")/fork_matrix.sh" huge
