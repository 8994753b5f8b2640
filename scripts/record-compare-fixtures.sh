#!/usr/bin/env bash
# Records tests/data/compare/run1.nettrace and run2.nettrace: the same
# workload (gen0size-small's: gcload gen0,gen1 --scale 0.2, a 256 KiB gen0
# budget, non-concurrent workstation GC) run twice, for `gcscope compare`'s
# test that two runs of one workload show no significant change in their
# pauses (tests/cli/report_cli.sh). Needs dotnet.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT="$ROOT/tests/data/compare"
BUILD="$ROOT/build/workloads"
mkdir -p "$OUT" "$BUILD"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1
dotnet build "$ROOT/tests/workloads/gcload/gcload.csproj" -c Release \
    --artifacts-path "$BUILD" -nologo -v q >/dev/null
GCLOAD="$BUILD/bin/gcload/release/gcload.dll"
for run in run1 run2; do
    rm -f "$OUT/$run.nettrace"
    env -u DOTNET_gcServer -u DOTNET_gcConcurrent -u DOTNET_GCHeapCount -u DOTNET_GCgen0size \
        DOTNET_EnableEventPipe=1 DOTNET_EventPipeOutputStreaming=1 DOTNET_EventPipeCircularMB=256 \
        DOTNET_EventPipeOutputPath="$OUT/$run.nettrace" \
        DOTNET_EventPipeConfig="Microsoft-Windows-DotNETRuntime:0x1:4" \
        DOTNET_gcConcurrent=0 DOTNET_GCgen0size=0x40000 \
        dotnet "$GCLOAD" gen0,gen1 --scale 0.2 > "$OUT/$run.workload.txt"
    echo "  $run.nettrace: $(stat -c %s "$OUT/$run.nettrace") bytes" >&2
done
