#!/bin/sh
# Records a large EventPipe trace for benchmarks.
#
#   scripts/record-bench.sh OUT_PATH [SIZE_MB]     (SIZE_MB default 1024)
#
# Runs the gcload workload's "bench" scenario (steady mixed allocation on two
# threads) with GC events at Verbose level (AllocationTick every ~100 KB,
# PinObjectAtGCTime, ...) plus sampled object allocation (keyword 0x200000:
# GCSampledObjectAllocationHigh, BulkType for the types) and GC handle events
# (0x2). Allocation events alone grow the file by only ~0.6 MB/s here, so the
# workload also churns GC handles (GCLOAD_BENCH_HANDLE_CHURN Alloc/Free pairs
# per 4096 allocations per thread, default 512: about 7 MB/s, 1 GiB in
# about 2.5 minutes on 2 cores) and holds GCLOAD_BENCH_PINNED
# pinned handles (default 4000). It stops when the output file reaches
# SIZE_MB MiB: the workload itself watches the file (gcload bench
# --max-trace-mb) and exits normally, so the runtime closes the trace
# properly. A time cap (GCLOAD_BENCH_MAX_SECONDS, default 540) bounds the run.
# POSIX sh: scripts/bench.sh runs it with `sh`.
set -eu

if [ $# -lt 1 ]; then
    echo "usage: $0 OUT_PATH [SIZE_MB]" >&2
    exit 2
fi
OUT=$1
SIZE_MB=${2:-1024}
MAX_SECONDS=${GCLOAD_BENCH_MAX_SECONDS:-540}
PINNED=${GCLOAD_BENCH_PINNED:-4000}
CHURN=${GCLOAD_BENCH_HANDLE_CHURN:-512}

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD="$ROOT/build/workloads"
mkdir -p "$BUILD" "$(dirname "$OUT")"
case "$OUT" in
    /*) ;;
    *) OUT="$(pwd)/$OUT" ;;
esac

DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 \
    dotnet build "$ROOT/tests/workloads/gcload/gcload.csproj" -c Release \
    --artifacts-path "$BUILD" -nologo -v q >/dev/null
GCLOAD="$BUILD/bin/gcload/release/gcload.dll"

RT=Microsoft-Windows-DotNETRuntime
PRIV=Microsoft-Windows-DotNETRuntimePrivate
# 0x1 GC, 0x2 GCHandle, 0x80000 Type, 0x200000 GCSampledObjectAllocationHigh
CONFIG="$RT:0x280003:5,$PRIV:0x1:5"

rm -f "$OUT"
echo "record-bench: $OUT, target $SIZE_MB MiB, at most $MAX_SECONDS s" >&2
env -u DOTNET_gcServer -u DOTNET_gcConcurrent -u DOTNET_GCHeapCount -u DOTNET_GCgen0size \
    DOTNET_EnableEventPipe=1 \
    DOTNET_EventPipeOutputStreaming=1 \
    DOTNET_EventPipeCircularMB=256 \
    DOTNET_EventPipeOutputPath="$OUT" \
    DOTNET_EventPipeConfig="$CONFIG" \
    dotnet "$GCLOAD" bench --threads 2 --pinned "$PINNED" --handle-churn "$CHURN" --seconds "$MAX_SECONDS" --max-trace-mb "$SIZE_MB" >&2

size=$(stat -c %s "$OUT")
echo "record-bench: wrote $OUT ($size bytes)" >&2
