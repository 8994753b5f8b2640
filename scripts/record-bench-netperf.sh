#!/bin/sh
# The netperf V3 shape of the bench corpus: no runtime writes netperf any
# more, so it is built from the real .NET Core 2.1 trace of the shared
# corpus by repeating its event blocks (scripts/repeat-netperf.py).
#
#   scripts/record-bench-netperf.sh OUT_PATH [SIZE_MB]    (default 600)
set -eu
OUT=$1
SIZE_MB=${2:-600}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SRC=${GCSCOPE_NETPERF_SOURCE:-$ROOT/../shared/traces/perfview/eventpipe-dotnetcore2.1-linux-x64-objver3.netperf}
mkdir -p "$(dirname "$OUT")"
python3 "$ROOT/scripts/repeat-netperf.py" "$SRC" "$OUT" "$SIZE_MB"
