#!/bin/sh
# Fork matrix row "overlap" (tests/integration/fork_matrix.sh), in the test VM.
exec "$(dirname "$0")/fork_matrix.sh" overlap
