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

dotnet build "$ROOT/tools/oracle/oracle.csproj" -c Release --artifacts-path "$ROOT/build/oracle" \
    -nologo -v q >/dev/null
dotnet "$ROOT/build/oracle/bin/oracle/release/oracle.dll" dump --all \
    "$DATA/uncompressed-v4.nettrace" > "$DATA/uncompressed-v4.nettrace.oracle-all.txt"
for trace in "$DATA"/*.nettrace; do
    echo "  $(basename "$trace"): $(stat -c %s "$trace") bytes" >&2
done
