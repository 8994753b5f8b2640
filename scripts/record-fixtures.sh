#!/usr/bin/env bash
# Records the GC trace fixtures under tests/data/ with the runtime's own
# EventPipe file output (DOTNET_EnableEventPipe=1), then regenerates the
# TraceEvent oracle outputs (tools/oracle/run-oracle.sh) unless --no-oracle.
#
#   scripts/record-fixtures.sh [--no-oracle] [FIXTURE...]
#
# With no FIXTURE names every fixture is recorded. Each fixture must stay
# under 2 MB; the script fails if one does not. Next to each TRACE it saves the
# workload's stdout as NAME.workload.txt. The recording environment (SDK and
# runtime versions) is written into docs/fixtures.md between the
# "recording-env" markers.
#
# Traces differ from run to run (timing, addresses, thread ids): re-recording
# changes every committed fixture and its oracle outputs, so re-record only
# what you need.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DATA="$ROOT/tests/data"
BUILD="$ROOT/build/workloads"
DOCS="$ROOT/docs/fixtures.md"
MAX_BYTES=$((2 * 1024 * 1024))

RUN_ORACLE=1
WANT=()
for a in "$@"; do
    case "$a" in
        --no-oracle) RUN_ORACLE=0 ;;
        -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
        *) WANT+=("$a") ;;
    esac
done

mkdir -p "$DATA" "$BUILD"
# shellcheck source=scripts/record-lib.sh
. "$ROOT/scripts/record-lib.sh"
build_gcload

# Runtime keywords (docs/gc-events.md section 3):
#   0x1 GC, 0x2 GCHandle, 0x80000 Type (BulkType), 0x200000 GCSampledObjectAllocationHigh,
#   0x400000 GCHeapSurvivalAndMovement, 0x1000000 GCHeapAndTypeNames,
#   0x80000000000 AllocationSampling (.NET 10 AllocationSampled; replaces AllocationTick)
# Private keyword 0x1 = GCPrivate (BGC phase events, PinPlugAtGCTime, ...).
# Level 5 (Verbose) adds AllocationTick, FinalizeObject, PinObjectAtGCTime,
# GCJoin, FitBucketInfo, Increase/DecreaseMemoryPressure.

wanted() {
    [ ${#WANT[@]} -eq 0 ] && return 0
    local w
    for w in "${WANT[@]}"; do [ "$w" = "$1" ] && return 0; done
    return 1
}

# save_fixture NAME TMP: moves a recorded trace into tests/data, if under 2 MB.
save_fixture() {
    local name=$1 tmp=$2 size
    size=$(stat -c %s "$tmp")
    if [ "$size" -ge "$MAX_BYTES" ]; then
        echo "error: $name is $size bytes (limit $MAX_BYTES); not saved" >&2
        exit 1
    fi
    mv "$tmp" "$DATA/$name.nettrace"
    echo "  $name.nettrace: $size bytes" >&2
}

# record NAME CONFIG "ENV=VAL ..." GCLOAD-ARGS... (GCLOAD_EXE: another build)
record() {
    local name=$1
    wanted "$name" || return 0
    shift
    run_gcload "$BUILD/$name.nettrace" "$DATA/$name.workload.txt" "$@"
    save_fixture "$name" "$BUILD/$name.nettrace"
}

# record_legacy NAME CONFIG "ENV=VAL ..." LEGACY-ARGS...: on .NET Core 3.1.
record_legacy() {
    local name=$1
    wanted "$name" || return 0
    shift
    run_legacy "$BUILD/$name.nettrace" "$DATA/$name.workload.txt" "$@"
    save_fixture "$name" "$BUILD/$name.nettrace"
}

# record_attached NAME SECONDS "ENV=VAL ..." GCLOAD-ARGS...: gcload
# attached after startup (run_attached); the runtime's own rundown is then
# the only RuntimeInformation in the trace.
record_attached() {
    local name=$1 seconds=$2 envs=$3
    shift 3
    wanted "$name" || return 0
    run_attached "$BUILD/$name.nettrace" "$DATA/$name.workload.txt" "$seconds" "$envs" \
        dotnet "$GCLOAD" "$@"
    save_fixture "$name" "$BUILD/$name.nettrace"
}

# record_dotnet_trace NAME "DOTNET-TRACE OPTIONS" GCLOAD-ARGS...: gcload
# launched by dotnet-trace (the tool most users record with; installed
# into build/tools when absent, the version docs/fixtures.md names).
record_dotnet_trace() {
    local name=$1 opts=$2
    shift 2
    wanted "$name" || return 0
    local tmp="$BUILD/$name.nettrace" tool
    rm -f "$tmp"
    tool=$(command -v dotnet-trace || true)
    if [ -z "$tool" ]; then
        tool="$ROOT/build/tools/dotnet-trace/dotnet-trace"
        [ -x "$tool" ] || dotnet tool install --tool-path "$ROOT/build/tools/dotnet-trace" \
            dotnet-trace --version 10.0.750501 >/dev/null
    fi
    echo "recording $name: dotnet-trace collect $opts -- gcload $*" >&2
    # shellcheck disable=SC2086
    env -u DOTNET_EnableEventPipe $GC_SETTINGS_UNSET \
        "$tool" collect $opts -o "$tmp" --show-child-io -- dotnet "$GCLOAD" "$@" \
        | grep '^gcload: ' > "$DATA/$name.workload.txt"
    save_fixture "$name" "$tmp"
}

# Workstation, non-concurrent: every scenario, GC + GCHandle keywords, verbose.
record wks-nonconcurrent "$RT:0x3:5,$PRIV:0x1:5" "DOTNET_gcConcurrent=0" \
    all --scale 0.15 --bgc-nodes 300000 --bgc-rounds 1

# Workstation, concurrent: background GCs with foreground GCs during them.
record wks-concurrent "$RT:0x1:5,$PRIV:0x1:5" "DOTNET_gcConcurrent=1" \
    gen0,gen2,loh,induced,bgc --scale 0.1 --bgc-rounds 3

# Workstation, concurrent, on the segments GC (the standalone libclrgc.so
# the runtime ships: the heap in segments as every runtime before .NET 7
# kept it, not regions): background GCs with foreground GCs during them.
record wks-segments "$RT:0x1:5,$PRIV:0x1:5" "DOTNET_gcConcurrent=1 DOTNET_GCName=libclrgc.so" \
    gen0,gen2,loh,induced,bgc --scale 0.1 --bgc-rounds 3

# Server GC, two heaps (the machine has 2 cores), background GC on.
record server "$RT:0x1:5,$PRIV:0x1:5" "DOTNET_gcServer=1 DOTNET_GCHeapCount=2 DOTNET_gcConcurrent=1" \
    gen0,gen1,gen2,loh,poh,handles,finalizers,induced,pressure,bgc --scale 0.1 --bgc-nodes 600000 --bgc-rounds 2

# Workstation, concurrent, a service-like request loop for 6 s: natural
# background GCs with foreground GCs during them. Some BGC histories land on
# a foreground GC still restarting (two GCPerHeapHistory events with one heap),
# which TraceEvent pairs heap by heap with the next GC's. That is a race:
# re-record until `oracle gcstats` shows a GC with per_heap_history_count 2
# (the committed trace has two: GCs 24 and 482; GC 417 also shows a rate
# that differs in its last printed digit when times are not computed as
# TraceEvent computes them). GC keyword only at
# Informational level, so that 6 s fit in 2 MB.
record wks-service "$RT:0x1:4" "DOTNET_gcConcurrent=1" \
    service --seconds 6 --threads 4

# Server GC, two heaps, background GC on, attached after startup (default
# `gcscope record` providers).
record_attached server-attach 3 "DOTNET_gcServer=1 DOTNET_GCHeapCount=2 DOTNET_gcConcurrent=1" \
    service --seconds 6 --threads 2

# server-attach as older runtimes write it and with the garbage a runtime once
# wrote (scripts/patch-trace.py): StartupFlags None in the rundown
# RuntimeInformation (.NET 10 names SERVER_GC there; older rundowns say
# None), and FinalizationPromotedSize 0xbaadbaadbaadbaad in the 5th GCHeapStats.
if wanted server-attach-patched; then
    python3 "$ROOT/scripts/patch-trace.py" --gcscope "$ROOT/build/gcscope" \
        --startup-flags-none --garbage-finalization 5 \
        "$DATA/server-attach.nettrace" "$DATA/server-attach-patched.nettrace"
    cp "$DATA/server-attach.workload.txt" "$DATA/server-attach-patched.workload.txt"
fi

# dotnet-trace's default profile (CPU sampling, the runtime's
# informational events, rundown) and its gc-verbose profile (GC, handles,
# AllocationTick at verbose level), as users record.
record_dotnet_trace dotnet-trace-default "" gen0,gen2,induced --scale 0.05
record_dotnet_trace dotnet-trace-gc-verbose "--profile gc-verbose" \
    gen0,gen2,loh,induced,bgc --scale 0.1 --bgc-rounds 2

# Older runtimes, whose GC events have older versions or other values.
# .NET 8, server GC on two heaps: its aggressive induced GC names compact
# reason 11, past TraceEvent's enum.
if wanted net8-server; then
    gcload8=$(gcload_on net8.0)
    GCLOAD_EXE=$gcload8 record net8-server "$RT:0x1:5,$PRIV:0x1:5" \
        "DOTNET_gcServer=1 DOTNET_GCHeapCount=2 DOTNET_gcConcurrent=1" \
        gen0,gen1,gen2,loh,poh,handles,finalizers,induced,pressure,bgc --scale 0.1 \
        --bgc-nodes 600000 --bgc-rounds 2
fi
# .NET 9, server GC as it comes: DATAS (dynamic heap count) on.
if wanted net9-server-datas; then
    gcload9=$(gcload_on net9.0)
    GCLOAD_EXE=$gcload9 record net9-server-datas "$RT:0x1:5,$PRIV:0x1:5" "DOTNET_gcServer=1" \
        gen0,gen1,gen2,loh,induced,bgc --scale 0.05 --bgc-rounds 2
fi
# .NET Core 3.1, the heap in segments, the GC events' older versions
# (AllocationTick V3 without the object's size, HeapStats V1 without the
# POH...), concurrent workstation GC with movement events and type names;
# and server GC on two heaps (its histories after GCEnd, which TraceEvent
# leaves unattached without the rundown's startup flags, as gcscope does).
record_legacy net31-concurrent "$RT:0x1680003:5,$PRIV:0x1:5" "COMPlus_gcConcurrent=1" \
    all --scale 0.25
record_legacy net31-server "$RT:0x3:5,$PRIV:0x1:5" \
    "COMPlus_gcServer=1 COMPlus_GCHeapCount=2 COMPlus_gcConcurrent=1" all --scale 0.3

# NativeAOT (.NET 10): gcload compiled ahead of time, workstation
# concurrent GC, the Loader keyword on (ModuleLoad version 3 with the
# build ID). Its runtime sends no RuntimeInformation and names no type
# ("NULL"); net10-aot.dbg keeps the executable's type symbols
# (MethodTables: _ZTV* and __GCStaticEEType_*; objcopy, ~0.6 MB) for
# `objects --symbols`.
if wanted net10-aot; then
    aot=$(gcload_aot wks)
    GCLOAD_EXE=$aot record net10-aot "$RT:0x9:5,$PRIV:0x1:5" "DOTNET_gcConcurrent=1" \
        gen0,gen1,gen2,loh,handles,finalizers,induced,bgc --scale 0.1 --bgc-rounds 2
    objcopy --strip-all -w -K '_ZTV*' -K '__GCStaticEEType_*' "$aot.dbg" "$DATA/net10-aot.dbg"
    chmod 644 "$DATA/net10-aot.dbg"
fi
# NativeAOT of .NET 9: no module event at all (objects --symbols infers the
# image's load address from the type ids), server GC on two heaps.
if wanted net9-aot; then
    aot=$(gcload_aot server net9.0)
    GCLOAD_EXE=$aot record net9-aot "$RT:0x9:5,$PRIV:0x1:5" "DOTNET_GCHeapCount=2 DOTNET_gcConcurrent=1" \
        gen0,gen1,gen2,loh,handles,finalizers,induced,bgc --scale 0.1 --bgc-rounds 2
    objcopy --strip-all -w -K '_ZTV*' -K '__GCStaticEEType_*' "$aot.dbg" "$DATA/net9-aot.dbg"
    chmod 644 "$DATA/net9-aot.dbg"
fi

# Object tracking: survival/movement ranges, BulkType, sampled object allocations.
record objects-movement "$RT:0x1680003:5,$PRIV:0x1:5" "DOTNET_gcConcurrent=1" \
    objects

# Objects that reach gen2 and the LOH and die in a background GC (its
# surviving ranges, which come at its end), beside objects kept to the end.
record objects-bgc "$RT:0x1680003:5" "DOTNET_gcConcurrent=1" \
    objectsbgc
# The same with server GC on two heaps: each heap walks its own part.
record objects-bgc-server "$RT:0x1680003:5" "DOTNET_gcServer=1 DOTNET_GCHeapCount=2 DOTNET_gcConcurrent=1" \
    objectsbgc

# .NET 10 randomized allocation sampling (AllocationSampled, event 303).
record objects-allocsampled "$RT:0x80000080003:5" "DOTNET_gcConcurrent=1" \
    objects

# A tiny gen0 budget (DOTNET_GCgen0size is hexadecimal: 0x40000 = 256 KiB) for
# many GCs; Informational level only (no AllocationTick), no private provider.
record gen0size-small "$RT:0x1:4" "DOTNET_gcConcurrent=0 DOTNET_GCgen0size=0x40000" \
    gen0,gen1 --scale 0.2

# The cpu bench shape in small (1 MiB, 20 blocked threads): sample-profiler
# rows that change only the thread id, between AllocationTick rows
# (test_reader_scan, test_reader_robust: the counting loops of
# nettrace_v5.c against the general decoder).
if wanted cpu-sampled; then
    GCLOAD_BENCH_IDLE_THREADS=20 GCLOAD_BENCH_SECONDS=20 \
        sh "$ROOT/scripts/record-bench-shape.sh" cpu "$DATA/cpu-sampled.nettrace" 1
fi

# Recording environment -> docs/fixtures.md
if [ -f "$DOCS" ] && grep -q '<!-- recording-env:begin -->' "$DOCS"; then
    envfile="$BUILD/recording-env.md"
    {
        echo '<!-- recording-env:begin -->'
        echo '```'
        echo "recorded:        $(date -u +%Y-%m-%d)"
        echo "dotnet --version: $(dotnet --version)"
        echo "runtimes:        $(dotnet --list-runtimes | grep Microsoft.NETCore.App | awk '{print $2}' | tr '\n' ' ')"
        echo "gcload runtime:  $(grep -m1 '^gcload: runtime' "$DATA/wks-nonconcurrent.workload.txt" 2>/dev/null | sed 's/^gcload: runtime //')"
        echo "older runtimes:  $(for f in net8-server net9-server-datas net31-concurrent; do
            grep -m1 -o 'runtime[ =]version=[0-9.]*\|runtime=[0-9.]*' "$DATA/$f.workload.txt" 2>/dev/null |
                sed "s/.*=/$f /"; done | tr '\n' ' ')(runtime packs, self-contained)"
        echo "os:              $(uname -srm)"
        echo "cpus:            $(nproc)"
        echo '```'
        echo '<!-- recording-env:end -->'
    } > "$envfile"
    awk -v f="$envfile" '
        /<!-- recording-env:begin -->/ { while ((getline l < f) > 0) print l; skip = 1; next }
        /<!-- recording-env:end -->/ { skip = 0; next }
        !skip { print }' "$DOCS" > "$DOCS.tmp" && mv "$DOCS.tmp" "$DOCS"
fi

if [ "$RUN_ORACLE" = 1 ]; then
    "$ROOT/tools/oracle/run-oracle.sh"
fi
