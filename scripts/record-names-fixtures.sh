#!/usr/bin/env bash
# Records the event-naming fixtures under tests/data/names/ and asks the
# TraceEvent oracle how it names their events:
#   net10-names.nettrace   .NET 10, runtime file output: tests/workloads/names
#                          (an EventSource with every kind of opcode, TPL
#                          tasks/waits/awaits, sampler, memory pressure)
#   synthetic-v4.nettrace  nettrace V4 written by tests/tools/names_synthetic
#                          (metadata that disagrees with TraceEvent's parsers)
#   synthetic-v1.netperf   netperf V1 (providers by GUID), same tool
# and for each TRACE: TRACE.oracle-tracelog.txt (oracle dump --tracelog:
# names and counts as TraceLog/PerfView show them, first event of each) and
# TRACE.oracle-all.txt (oracle dump --all: every event through
# EventPipeEventSource, whose names come from the metadata).
#
#   scripts/record-names-fixtures.sh [--no-record]
#
# --no-record keeps the recorded trace and only rewrites the synthetic one
# and the oracle outputs. Needs dotnet (SDK 10) and `make`.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DATA="$ROOT/tests/data/names"
BUILD="$ROOT/build/workloads"
MAX_BYTES=$((2 * 1024 * 1024))
RECORD=1
[ "${1:-}" = "--no-record" ] && RECORD=0

mkdir -p "$DATA" "$BUILD"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1

if [ "$RECORD" = 1 ]; then
    dotnet build "$ROOT/tests/workloads/names/names.csproj" -c Release \
        --artifacts-path "$BUILD" -nologo -v q >/dev/null
    tmp="$BUILD/net10-names.nettrace"
    rm -f "$tmp"
    # GcScope-Names: all keywords, verbose. TplEventSource 0x7f: Tasks,
    # TaskTransfer, TaskStops, AsyncCausality*; not TasksFlowActivityIds.
    # Runtime 0x1 (GC) at level 5 for Increase/DecreaseMemoryPressure,
    # 0x40000000000 (WaitHandle, verbose) for WaitHandleWait/Start and /Stop.
    env DOTNET_EnableEventPipe=1 DOTNET_EventPipeOutputStreaming=1 \
        DOTNET_EventPipeOutputPath="$tmp" \
        DOTNET_EventPipeConfig="GcScope-Names:0xffffffff:5,System.Threading.Tasks.TplEventSource:0x7f:5,Microsoft-DotNETCore-SampleProfiler:0:5,Microsoft-Windows-DotNETRuntime:0x40000000001:5" \
        dotnet "$BUILD/bin/names/release/names.dll" --rounds 5 >/dev/null
    size=$(stat -c %s "$tmp")
    if [ "$size" -ge "$MAX_BYTES" ]; then
        echo "error: net10-names.nettrace is $size bytes (limit $MAX_BYTES)" >&2
        exit 1
    fi
    mv "$tmp" "$DATA/net10-names.nettrace"
fi

make -C "$ROOT" -s build/asan/tools/names_synthetic
"$ROOT/build/asan/tools/names_synthetic" "$DATA/synthetic-v4.nettrace"
# netperf V1: TraceEvent 4.0.0 does not read it (no oracle output); the
# expected names are in test_te_agreement (test_netperf_v1_names).
"$ROOT/build/asan/tools/names_synthetic" --netperf-v1 "$DATA/synthetic-v1.netperf"

dotnet build "$ROOT/tools/oracle/oracle.csproj" -c Release --artifacts-path "$ROOT/build/oracle" \
    -nologo -v q >/dev/null
ORACLE=(dotnet "$ROOT/build/oracle/bin/oracle/release/oracle.dll")
for trace in "$DATA"/*.nettrace; do
    "${ORACLE[@]}" dump --tracelog "$trace" > "$trace.oracle-tracelog.txt"
    "${ORACLE[@]}" dump --all "$trace" > "$trace.oracle-all.txt"
    echo "  $(basename "$trace"): $(stat -c %s "$trace") bytes" >&2
done
