#!/usr/bin/env bash
# Records gcload (and, for .NET Core 3.1, tests/workloads/legacy) on the
# older runtimes this machine's NuGet serves (.NET Core 3.1.3, 8.0, 9.0:
# self-contained builds from their runtime packs) and as NativeAOT
# executables of .NET 10, 9 and 8 (their own runtime: no RuntimeInformation
# event, type names it leaves "NULL", .NET 10's version 3 module events) in
# many GC settings, and checks every trace against TraceEvent: every GC and every
# event (scripts/check-oracle.sh --events). The .NET 8 and 9 objects
# workloads are also held to what they say they did
# (tests/cli/objects_e2e.sh), the allocation samples by call stack to
# TraceLog's (check-oracle.sh --allocs), and the NativeAOT traces' type names as
# gcscope reads them from the executable's symbols
# (tests/cli/objects_aot_symbols.sh).
#
#   scripts/check-runtimes.sh [--all-keywords] [--out DIR]
#
# --all-keywords adds one recording per runtime (.NET 10 too) with every
# runtime keyword on (~70 MB each, 2 million events). DIR (default
# build/runtimes) keeps the traces, the workloads' output and check.txt.
# Prints, per runtime, the traces and GCs compared; exit 1 when a trace
# differs from TraceEvent or a workload fact fails. Traces differ from run
# to run (timing), so the GC counts do too; "all the same" should not.
# Needs dotnet; says "skipped" without it.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD="$ROOT/build/workloads"
OUT="$ROOT/build/runtimes"
ALL=0
while [ $# -gt 0 ]; do
    case "$1" in
        --all-keywords) ALL=1; shift ;;
        --out) OUT=$2; shift 2 ;;
        -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
        *) echo "usage: scripts/check-runtimes.sh [--all-keywords] [--out DIR]" >&2; exit 2 ;;
    esac
done
if ! command -v dotnet >/dev/null 2>&1; then
    echo "check-runtimes: skipped: no dotnet here to run the workloads"
    exit 0
fi
case $OUT in /*) ;; *) OUT=$(pwd)/$OUT ;; esac
mkdir -p "$OUT" "$BUILD"
rm -f "$OUT"/*.nettrace "$OUT"/*.workload.txt
# shellcheck source=scripts/record-lib.sh
. "$ROOT/scripts/record-lib.sh"
cd "$ROOT"
build_gcload
RUNDOWN=Microsoft-Windows-DotNETRuntimeRundown
EVERY_KEYWORD="$RT:0xFFFFFFFFFFFF:5,$PRIV:0xFFFFFFFF:5,$RUNDOWN:0xFFFFFFFF:5"

# gcload_matrix P WKS SERVER "SERVER-ENV": gcload's GC settings on one
# runtime, traces OUT/P-NAME. WKS runs the workstation recordings, SERVER
# the server ones with SERVER-ENV (CoreCLR: the same executable and
# DOTNET_gcServer=1; NativeAOT links one GC flavour at publish: the server
# executable, no setting). GCgen0size, the standalone segments GC (GCName)
# and the movement events are CoreCLR's: not for P=aot*. WKS empty: the
# SDK's runtime (dotnet gcload.dll).
gcload_matrix() {
    local p=$1 wks=$2 server=$3 server_env=$4
    GCLOAD_EXE=$wks
    run_gcload "$OUT/$p-wks-nonconcurrent.nettrace" "$OUT/$p-wks-nonconcurrent.workload.txt" \
        "$RT:0x3:5,$PRIV:0x1:5" "DOTNET_gcConcurrent=0" \
        all --scale 0.15 --bgc-nodes 300000 --bgc-rounds 1
    run_gcload "$OUT/$p-wks-concurrent.nettrace" "$OUT/$p-wks-concurrent.workload.txt" \
        "$RT:0x1:5,$PRIV:0x1:5" "DOTNET_gcConcurrent=1" \
        gen0,gen2,loh,induced,bgc --scale 0.1 --bgc-rounds 3
    run_gcload "$OUT/$p-service.nettrace" "$OUT/$p-service.workload.txt" \
        "$RT:0x1:4" "DOTNET_gcConcurrent=1" service --seconds 6 --threads 4
    # The Loader keyword too: NativeAOT's ModuleLoad gives the image's address.
    run_gcload "$OUT/$p-objects.nettrace" "$OUT/$p-objects.workload.txt" \
        "$RT:0x168000B:5,$PRIV:0x1:5" "DOTNET_gcConcurrent=1" objects
    run_attached "$OUT/$p-attached.nettrace" "$OUT/$p-attached.workload.txt" 3 "" \
        "$wks" service --seconds 6 --threads 2
    if [ "${p#aot}" = "$p" ]; then
        run_gcload "$OUT/$p-segments.nettrace" "$OUT/$p-segments.workload.txt" \
            "$RT:0x1:5,$PRIV:0x1:5" "DOTNET_gcConcurrent=1 DOTNET_GCName=libclrgc.so" \
            gen0,gen2,loh,induced,bgc --scale 0.1 --bgc-rounds 3
        run_gcload "$OUT/$p-gen0small.nettrace" "$OUT/$p-gen0small.workload.txt" \
            "$RT:0x1:4" "DOTNET_gcConcurrent=0 DOTNET_GCgen0size=0x40000" gen0,gen1 --scale 0.2
    fi
    if [ $ALL = 1 ]; then
        # NativeAOT: every keyword but GCHeapDump (0x100000), with which its
        # runtime dumps the heap (BulkNode/BulkEdge) at every GC (1.2 GB here).
        local every=$EVERY_KEYWORD
        [ "${p#aot}" != "$p" ] && every="$RT:0xFFFFFFEFFFFF:5,$PRIV:0xFFFFFFFF:5,$RUNDOWN:0xFFFFFFFF:5"
        run_gcload "$OUT/$p-every-keyword.nettrace" "$OUT/$p-every-keyword.workload.txt" \
            "$every" "DOTNET_gcConcurrent=1" gen1,bgc,handles,finalizers --scale 0.05 --bgc-rounds 1
    fi
    GCLOAD_EXE=$server
    run_gcload "$OUT/$p-server.nettrace" "$OUT/$p-server.workload.txt" \
        "$RT:0x1:5,$PRIV:0x1:5" "$server_env DOTNET_GCHeapCount=2 DOTNET_gcConcurrent=1" \
        gen0,gen1,gen2,loh,poh,handles,finalizers,induced,pressure,bgc --scale 0.1 \
        --bgc-nodes 600000 --bgc-rounds 2
    run_gcload "$OUT/$p-server-default.nettrace" "$OUT/$p-server-default.workload.txt" \
        "$RT:0x1:5,$PRIV:0x1:5" "$server_env" gen0,gen1,gen2,loh,induced,bgc --scale 0.1 --bgc-rounds 2
    run_gcload "$OUT/$p-datas.nettrace" "$OUT/$p-datas.workload.txt" \
        "$RT:0x1:5,$PRIV:0x1:5" "$server_env DOTNET_GCDynamicAdaptationMode=1" \
        gen0,gen1,gen2,loh,induced,bgc --scale 0.1 --bgc-rounds 2
    if [ "${p#aot}" = "$p" ]; then
        run_gcload "$OUT/$p-objectsbgc-server.nettrace" "$OUT/$p-objectsbgc-server.workload.txt" \
            "$RT:0x1680003:5" "$server_env DOTNET_GCHeapCount=2 DOTNET_gcConcurrent=1" objectsbgc
    fi
    GCLOAD_EXE=
}

net8=$(gcload_on net8.0)
gcload_matrix net8 "$net8" "$net8" DOTNET_gcServer=1
net9=$(gcload_on net9.0)
gcload_matrix net9 "$net9" "$net9" DOTNET_gcServer=1
if [ $ALL = 1 ]; then
    run_gcload "$OUT/net10-every-keyword.nettrace" "$OUT/net10-every-keyword.workload.txt" \
        "$EVERY_KEYWORD" "DOTNET_gcConcurrent=1" gen1,bgc,handles,finalizers --scale 0.05 --bgc-rounds 1
fi
# NativeAOT (.NET 10, 9, 8): a workstation and a server executable each.
aot_wks=$(gcload_aot wks)
aot_server=$(gcload_aot server)
gcload_matrix aot "$aot_wks" "$aot_server" ""
aot9_wks=$(gcload_aot wks net9.0)
gcload_matrix aot9 "$aot9_wks" "$(gcload_aot server net9.0)" ""
gcload_matrix aot8 "$(gcload_aot wks net8.0)" "$(gcload_aot server net8.0)" ""

# .NET Core 3.1: the legacy workload.
p=net31
run_legacy "$OUT/$p-wks-concurrent.nettrace" "$OUT/$p-wks-concurrent.workload.txt" \
    "$RT:0x1:5,$PRIV:0x1:5" "COMPlus_gcConcurrent=1" all --scale 1
run_legacy "$OUT/$p-wks-nonconcurrent.nettrace" "$OUT/$p-wks-nonconcurrent.workload.txt" \
    "$RT:0x3:5,$PRIV:0x1:5" "COMPlus_gcConcurrent=0" all --scale 1
run_legacy "$OUT/$p-server.nettrace" "$OUT/$p-server.workload.txt" \
    "$RT:0x1:5,$PRIV:0x1:5" "COMPlus_gcServer=1 COMPlus_GCHeapCount=2 COMPlus_gcConcurrent=1" all --scale 1
run_legacy "$OUT/$p-server-nonconcurrent.nettrace" "$OUT/$p-server-nonconcurrent.workload.txt" \
    "$RT:0x1:5,$PRIV:0x1:5" "COMPlus_gcServer=1 COMPlus_GCHeapCount=2 COMPlus_gcConcurrent=0" all --scale 0.3
run_legacy "$OUT/$p-movement.nettrace" "$OUT/$p-movement.workload.txt" \
    "$RT:0x1680003:5,$PRIV:0x1:5" "COMPlus_gcConcurrent=1" gen1,gen2,loh,bgc --scale 0.5
run_legacy "$OUT/$p-informational.nettrace" "$OUT/$p-informational.workload.txt" \
    "$RT:0x1:4" "COMPlus_gcConcurrent=1" all --scale 1
run_legacy "$OUT/$p-gen0small.nettrace" "$OUT/$p-gen0small.workload.txt" \
    "$RT:0x1:4" "COMPlus_gcConcurrent=0 COMPlus_GCgen0size=0x40000" gen0,gen1 --scale 0.5
run_attached "$OUT/$p-attached.nettrace" "$OUT/$p-attached.workload.txt" 3 "" \
    "$(legacy_exe)" gen0,gen1,loh,bgc,gen0,bgc --scale 6
if [ $ALL = 1 ]; then
    run_legacy "$OUT/$p-every-keyword.nettrace" "$OUT/$p-every-keyword.workload.txt" \
        "$RT:0xFFFFFFFF:5,$PRIV:0xFFFFFFFF:5" "COMPlus_gcConcurrent=1" gen1,bgc,handles --scale 0.2
fi

# Every trace against TraceEvent, then the totals per runtime.
status=0
sh scripts/check-oracle.sh --events --allocs "$OUT"/*.nettrace > "$OUT/check.txt" 2>&1 || status=1
for p in net31 net8 net9 net10 aot aot9 aot8; do
    awk -v p="$p" '
        function ours(path,   n, a) { n = split(path, a, "/"); return index(a[n], p "-") == 1 }
        /^same .*: [0-9]+ GCs/ && ours($2) { traces++; gcs += $3 }
        / events compared / && ours($1) { events += $2 }
        /^FAIL / && ours($2) { fails++ }
        END { if (traces || fails)
                  printf "check-runtimes: %-5s %2d traces, %6d GCs and %8d events compared: %s\n", p,
                         traces, gcs, events,
                         fails ? fails " differ from TraceEvent" : "every one as TraceEvent gives them" }' \
        "$OUT/check.txt"
done
# Allocation samples by call stack against TraceLog (the traces whose
# ticks have stacks: NativeAOT's have none).
awk '/^same .*: allocation samples by stack/ { traces++; n = $0; sub(/.*\(/, "", n); samples += n + 0
                                                 sub(/^[0-9]* samples, /, "", n); triggers += n + 0 }
     /^FAIL .*: allocation samples by stack/ { fails++ }
     END { printf "check-runtimes: allocation samples and GC triggers by stack: %d traces, %d samples and %d GCTriggered events compared: %s\n",
                  traces, samples, triggers, fails ? fails " differ from TraceLog" : "every list as TraceLog gives it" }' \
    "$OUT/check.txt"
if grep -q '^FAIL' "$OUT/check.txt"; then
    grep '^FAIL' "$OUT/check.txt"
    echo "check-runtimes: differences from TraceEvent: $OUT/check.txt"
fi
# Finalized objects by type (the rows test_gc_oracle and check-oracle hold
# to TraceEvent's): how many objects the recordings finalized, how many
# TraceEvent names, and how many of its "" row gcscope names.
for t in "$OUT"/*.nettrace; do
    "$ROOT/build/gcscope" stats --format json "$t" 2>/dev/null || true
done | python3 -c '
import json, sys
dec = json.JSONDecoder()
text = sys.stdin.read()
at, traces, objects, named, unnamed, ours = 0, 0, 0, 0, 0, 0
while True:
    while at < len(text) and text[at].isspace():
        at += 1
    if at >= len(text):
        break
    doc, at = dec.raw_decode(text, at)
    seen = False
    for p in doc["processes"]:
        fo = p.get("finalized_objects") or {}
        objects += fo.get("objects", 0)
        seen |= fo.get("objects", 0) > 0
        for row in fo.get("types", []):
            if row["name"]:
                named += row["count"]
            else:
                unnamed += row["count"]
                ours += sum(u["count"] for u in row.get("type_ids", []) if u["name"])
    traces += seen
print("check-runtimes: finalized objects: %d in %d traces; TraceEvent names %d, gcscope names %d of the %d in TraceEvent\x27s \"\" row" % (objects, traces, named, ours, unnamed))
' || status=1
OBJECTS_E2E_TRACES="$OUT/net8-objects $OUT/net9-objects $OUT/net8-objectsbgc-server $OUT/net9-objectsbgc-server" \
    sh tests/cli/objects_e2e.sh || status=1
# NativeAOT's type names from its symbols: the recordings with allocation
# ticks (.NET 8's NativeAOT writes none), .NET 10's with module events,
# .NET 9's without (its load address inferred from the type ids).
OBJECTS_AOT_PAIRS="$OUT/aot-wks-nonconcurrent.nettrace:${aot_wks}.dbg $OUT/aot-objects.nettrace:${aot_wks}.dbg \
$OUT/aot-server.nettrace:${aot_server}.dbg $OUT/aot-datas.nettrace:${aot_server}.dbg \
$OUT/aot9-wks-nonconcurrent.nettrace:${aot9_wks}.dbg $OUT/aot9-objects.nettrace:${aot9_wks}.dbg" \
    AOT_EXECUTABLE=$aot_wks sh tests/cli/objects_aot_symbols.sh || status=1
exit $status
