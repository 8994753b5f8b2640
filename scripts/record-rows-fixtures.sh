#!/usr/bin/env bash
# Writes the uncompressed-row fixtures under tests/data/rows/ with
# tests/tools/rows_synthetic and asks the TraceEvent oracle what it reads:
#   uncompressed-v4.nettrace         rows of sizes not multiple of 4, back
#                                    to back, EventSize = 76 + PayloadSize
#                                    (TraceEvent's own test writer's layout)
#   uncompressed-v4.nettrace.oracle-all.txt   oracle dump --all of it
#   uncompressed-padded-v4.nettrace  the same rows padded to a multiple of
#                                    4, the padding counted in EventSize
#                                    (the runtime's layout of the
#                                    uncompressed rows it writes)
#   uncompressed-v3.netperf, uncompressed-padded-v3.netperf
#                                    the same events as netperf V3 streams
#                                    (.NET Core 2.1's format), unpadded and
#                                    padded the same way, each with its
#                                    .oracle-all.txt: TraceEvent steps over a
#                                    V3 event by EventSize + 4 and reads both
# TraceEvent 4.0.0 steps over an uncompressed V4/V5 row by 80 + PayloadSize,
# ignoring EventSize, so it cannot read the padded file (FormatException in
# ReadMetadataBlockV5OrLess); it has no oracle output, and test_nettrace_v5
# checks that gcscope reads from it the same events as from the unpadded one.
#
#   scripts/record-rows-fixtures.sh
#
# Needs dotnet (SDK 10) and `make`.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DATA="$ROOT/tests/data/rows"
mkdir -p "$DATA"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1

make -C "$ROOT" -s build/asan/tools/rows_synthetic
"$ROOT/build/asan/tools/rows_synthetic" "$DATA/uncompressed-v4.nettrace"
"$ROOT/build/asan/tools/rows_synthetic" --padded "$DATA/uncompressed-padded-v4.nettrace"
"$ROOT/build/asan/tools/rows_synthetic" --netperf-v3 "$DATA/uncompressed-v3.netperf"
"$ROOT/build/asan/tools/rows_synthetic" --netperf-v3 --padded "$DATA/uncompressed-padded-v3.netperf"

dotnet build "$ROOT/tools/oracle/oracle.csproj" -c Release --artifacts-path "$ROOT/build/oracle" \
    -nologo -v q >/dev/null
for trace in "$DATA/uncompressed-v4.nettrace" "$DATA"/*.netperf; do
    dotnet "$ROOT/build/oracle/bin/oracle/release/oracle.dll" dump --all "$trace" \
        > "$trace.oracle-all.txt"
done
for trace in "$DATA"/*.nettrace "$DATA"/*.netperf; do
    echo "  $(basename "$trace"): $(stat -c %s "$trace") bytes" >&2
done
