#!/bin/sh
# Records the allocation-tick heavy trace of the bench corpus (the "alloc"
# shape of scripts/record-bench-shape.sh, which says what it holds).
#
#   scripts/record-bench.sh OUT_PATH [SIZE_MB]     (SIZE_MB default 1024)
#
# Allocation events alone grow the file by only ~0.6 MB/s here, so the
# workload also churns GC handles (about 7 MB/s: 1 GiB in about 2.5
# minutes on 2 cores). It stops when the output file reaches SIZE_MB MiB
# (the workload watches the file and exits normally, so the runtime closes
# the trace properly), or after GCLOAD_BENCH_MAX_SECONDS (default 540).
# POSIX sh: scripts/bench.sh runs it with `sh`.
set -eu
if [ $# -lt 1 ]; then
    echo "usage: $0 OUT_PATH [SIZE_MB]" >&2
    exit 2
fi
GCLOAD_BENCH_SECONDS=${GCLOAD_BENCH_MAX_SECONDS:-540} \
    exec sh "$(dirname "$0")/record-bench-shape.sh" alloc "$1" "${2:-1024}"
