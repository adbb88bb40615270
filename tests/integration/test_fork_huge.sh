#!/bin/sh
# Fork matrix row "huge" (tests/integration/fork_matrix.sh), in the test VM.
exec "$(dirname "$0")/fork_matrix.sh" huge
