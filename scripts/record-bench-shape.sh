#!/bin/sh
# Records one shape of the bench corpus (docs/performance.md) with the
# gcload workload and the runtime's own EventPipe file output.
#
#   scripts/record-bench-shape.sh SHAPE OUT_PATH [SIZE_MB]
#
# SHAPE:
#   alloc    gcload bench (steady mixed allocation on two threads) with GC
#            events at level 5 (AllocationTick, PinObjectAtGCTime, ...),
#            sampled allocations, and GC handle churn (GCLOAD_BENCH_HANDLE_CHURN
#            Alloc/Free pairs per 4096 allocations per thread, default 512)
#            with GCLOAD_BENCH_PINNED pinned handles (default 4000)
#            (scripts/record-bench.sh)
#   service  the shape of a service traced for GC investigation: gcload
#            service (request loop, cache churn, background GCs) until the
#            file has 1100 MiB (at least 60 s: ~8 MB/s here) with runtime keywords
#            0xC16FCCBF at level 5 (GC, handles, loader, types, sampled
#            allocations, survival and movement, ...), stacks on.
#   cpu      stack-heavy: gcload service with CPU sampling on
#            (Microsoft-DotNETCore-SampleProfiler, a ThreadSample with a
#            stack per managed thread per millisecond) plus GC events and
#            sampled allocations at level 5, with GCLOAD_BENCH_IDLE_THREADS
#            (default 60) blocked threads that are sampled too.
#   server   server GC with GCLOAD_BENCH_HEAPS heaps (default 8): gcload
#            bench with pinned handles and handle churn, GC + GCHandle at
#            level 5 and the private GC keyword (PinPlugAtGCTime).
# Recording stops when the file reaches SIZE_MB MiB (default 600, service
# 1100; the workload watches the file and exits normally, so the runtime
# closes the trace properly), or at GCLOAD_BENCH_SECONDS (default 600).
set -eu
if [ $# -lt 2 ]; then
    echo "usage: $0 alloc|service|cpu|server OUT_PATH [SIZE_MB]" >&2
    exit 2
fi
SHAPE=$1
OUT=$2
SECONDS_CAP=${GCLOAD_BENCH_SECONDS:-}
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
SP=Microsoft-DotNETCore-SampleProfiler
GC_ENV=""
case "$SHAPE" in
    alloc)
        SIZE_MB=${3:-1024}
        SECONDS_CAP=${SECONDS_CAP:-540}
        # 0x1 GC, 0x2 GCHandle, 0x80000 Type, 0x200000 GCSampledObjectAllocationHigh
        CONFIG="$RT:0x280003:5,$PRIV:0x1:5"
        set -- bench --threads 2 --pinned "${GCLOAD_BENCH_PINNED:-4000}" \
            --handle-churn "${GCLOAD_BENCH_HANDLE_CHURN:-512}" --seconds "$SECONDS_CAP" \
            --max-trace-mb "$SIZE_MB" ;;
    service)
        SIZE_MB=${3:-1100}
        SECONDS_CAP=${SECONDS_CAP:-600}
        CONFIG="$RT:0xC16FCCBF:5"
        set -- service --seconds "$SECONDS_CAP" --threads 2 --max-trace-mb "$SIZE_MB" ;;
    cpu)
        SIZE_MB=${3:-600}
        SECONDS_CAP=${SECONDS_CAP:-600}
        # 0x1 GC, 0x80000 Type, 0x200000 GCSampledObjectAllocationHigh
        CONFIG="$SP:0:5,$RT:0x280001:5"
        set -- service --seconds "$SECONDS_CAP" --threads 2 --max-trace-mb "$SIZE_MB" \
            --idle-threads "${GCLOAD_BENCH_IDLE_THREADS:-60}" ;;
    server)
        SIZE_MB=${3:-600}
        SECONDS_CAP=${SECONDS_CAP:-600}
        CONFIG="$RT:0x3:5,$PRIV:0x1:5"
        GC_ENV="DOTNET_gcServer=1 DOTNET_GCHeapCount=${GCLOAD_BENCH_HEAPS:-8} DOTNET_GCHeapAffinitizeMask=0"
        set -- bench --seconds "$SECONDS_CAP" --threads 4 --pinned 4000 --handle-churn 256 \
            --max-trace-mb "$SIZE_MB" ;;
    *)
        echo "record-bench-shape: unknown shape $SHAPE" >&2
        exit 2 ;;
esac
rm -f "$OUT"
echo "record-bench-shape: $SHAPE -> $OUT (config $CONFIG, $GC_ENV gcload $*)" >&2
# shellcheck disable=SC2086
env -u DOTNET_gcServer -u DOTNET_gcConcurrent -u DOTNET_GCHeapCount -u DOTNET_GCgen0size \
    $GC_ENV \
    DOTNET_EnableEventPipe=1 \
    DOTNET_EventPipeOutputStreaming=1 \
    DOTNET_EventPipeCircularMB=256 \
    DOTNET_EventPipeOutputPath="$OUT" \
    DOTNET_EventPipeConfig="$CONFIG" \
    dotnet "$GCLOAD" "$@" >&2
echo "record-bench-shape: wrote $OUT ($(stat -c %s "$OUT") bytes)" >&2
