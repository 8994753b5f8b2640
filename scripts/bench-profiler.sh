#!/bin/sh
# The in-process profiler's cost (docs/performance.md, "The profiler"):
#
#   sh scripts/bench-profiler.sh [build/gcscope]     (called by scripts/bench.sh)
#
# 1. Slowdown of an allocation-heavy program, every object tracked: the
#    workload's churn mode (N small objects, 10 000 alive), its own
#    Stopwatch time and the process's wall time, profiler off vs on (best
#    of ROUNDS each, interleaved), plus `gcscope objects` reading the
#    profile afterwards.
# 2. Memory per tracked object: in the process (max RSS on vs off over the
#    objects allocated) and in `gcscope objects` (max RSS over the objects
#    tracked at once, less a small profile's).
# 3. Time inside MovedReferences2/SurvivingReferences2 per GC with 1 M live
#    objects (live mode: 2 M allocated, every other one dropped, compacting
#    gen-2 GCs), from the profiler's GCSCOPE_PROFILE_STATS line; and the
#    program's own time per GC off vs on.
# Needs dotnet (skipped without) and GNU time.
set -eu
GCSCOPE=${1:-build/gcscope}
# The profiler library and the workload live in the build directory: the
# binary's own when it is one (a binary copied aside for the bench is
# not), else build/.
if [ -z "${BUILD:-}" ]; then
    BUILD=$(dirname "$GCSCOPE")
    [ -f "$BUILD/libgcscope_profiler.so" ] || BUILD=build
fi
N=${GCSCOPE_BENCH_CHURN:-10000000}
ROUNDS=${GCSCOPE_BENCH_ROUNDS:-3}
if ! command -v dotnet >/dev/null 2>&1; then
    echo "bench-profiler: skipped: dotnet not installed"
    exit 0
fi
. tests/cli/profile_lib.inc
build_profile_workload
need_profiler
tmp=${TMPDIR:-/tmp}/gcscope-bench-profiler.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
export DOTNET_gcServer=0 DOTNET_gcConcurrent=0

# The profiler's environment, as `gcscope profile` sets it (paths without spaces).
profiled="env CORECLR_ENABLE_PROFILING=1 CORECLR_PROFILER={8C2E5F0A-3B7D-4E61-9A24-6D1F0C5B9E73}
    CORECLR_PROFILER_PATH=$GCSCOPE_PROFILER GCSCOPE_PROFILE_OUT=$tmp/p.gcprof GCSCOPE_PROFILE_STATS=1"
# run OUT CMD...: /usr/bin/time's "wall rss" line last in OUT.
run() { out=$1; shift; /usr/bin/time -f "time %e %M" "$@" >"$out" 2>&1; }
field() { awk -v k="$2" '{ for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) print substr($i, length(k) + 2) }' "$1"; }
wall() { awk '$1 == "time" { print $2 }' "$1"; }
rss() { awk '$1 == "time" { print $3 }' "$1"; }
min() { awk 'NR == 1 || $1 < m { m = $1 } END { print m }'; }

: >"$tmp/off.ms"; : >"$tmp/on.ms"; : >"$tmp/off.wall"; : >"$tmp/on.wall"; : >"$tmp/none.ms"
r=0
while [ $r -lt "$ROUNDS" ]; do
    run "$tmp/off" dotnet "$WORKLOAD_DLL" churn "$N"
    field "$tmp/off" ms >>"$tmp/off.ms"; wall "$tmp/off" >>"$tmp/off.wall"
    # The runtime's own price of ObjectAllocated: the callback runs, records
    # nothing (no type matches).
    run "$tmp/none" $profiled GCSCOPE_PROFILE_TYPES='^$' dotnet "$WORKLOAD_DLL" churn "$N"
    field "$tmp/none" ms >>"$tmp/none.ms"
    run "$tmp/on" $profiled dotnet "$WORKLOAD_DLL" churn "$N"
    field "$tmp/on" ms >>"$tmp/on.ms"; wall "$tmp/on" >>"$tmp/on.wall"
    r=$((r + 1))
done
grep -q 'records dropped' "$tmp/on" || { cat "$tmp/on"; echo "bench-profiler: no profiler line"; exit 1; }
dropped=$(sed -n 's/.* \([0-9]*\) records dropped$/\1/p' "$tmp/on")
size=$(stat -c %s "$tmp/p.gcprof")
run "$tmp/read" "$GCSCOPE" objects "$tmp/p.gcprof"
awk -v n="$N" -v a="$(min <"$tmp/off.ms")" -v b="$(min <"$tmp/on.ms")" \
    -v wa="$(min <"$tmp/off.wall")" -v wb="$(min <"$tmp/on.wall")" -v d="$dropped" \
    -v ro="$(rss "$tmp/off")" -v rn="$(rss "$tmp/on")" -v sz="$size" -v rd="$(wall "$tmp/read")" \
    -v z="$(min <"$tmp/none.ms")" 'BEGIN {
    printf "profiler: churn of %d objects, every one tracked: %.0f ms off, %.0f ms on (%.2fx); process %.2f s off, %.2f s on (%.2fx); %s records dropped\n",
           n, a, b, b / a, wa, wb, wb / wa, d
    printf "profiler: the runtime alone with ObjectAllocated on (callback recording nothing): %.0f ms (%.2fx); the profiler'"'"'s own share %.0f ns per object\n",
           z, z / a, (b - z) * 1e6 / n
    printf "profiler: in-process memory %d KB off, %d KB on (%.2f bytes per allocated object: nothing is kept per object); profile %.1f bytes per object; gcscope objects reads it in %.2f s\n",
           ro, rn, (rn - ro) * 1024 / n, sz / n, rd }'

# Memory of the reader per object tracked at once: live mode keeps 1 M of
# 2 M; a small live run is the baseline.
run "$tmp/live_off" dotnet "$WORKLOAD_DLL" live 2000000 5
run "$tmp/live_on" $profiled dotnet "$WORKLOAD_DLL" live 2000000 5
run "$tmp/read_big" "$GCSCOPE" objects "$tmp/p.gcprof"
run "$tmp/small" $profiled dotnet "$WORKLOAD_DLL" live 2000 5
run "$tmp/read_small" "$GCSCOPE" objects "$tmp/p.gcprof"
awk -v off="$(field "$tmp/live_off" ms_per_gc)" -v on="$(field "$tmp/live_on" ms_per_gc)" \
    -v big="$(rss "$tmp/read_big")" -v small="$(rss "$tmp/read_small")" '
/gcscope profiler:/ {
    for (i = 1; i <= NF; i++) if ($i == "GCs,") gcs = $(i - 1)
    match($0, /\(([0-9.]+) ms per GC\)/); per = substr($0, RSTART + 1, RLENGTH - 12)
    match($0, /with [0-9]+ ranges/); ranges = substr($0, RSTART + 5, RLENGTH - 12)
}
END {
    printf "profiler: 1 M live objects (2 M allocated, every other dropped), %d GCs: %s ms per GC inside MovedReferences2/SurvivingReferences2 (%d ranges in all); the program measures %.1f ms per compacting gen-2 GC off, %.1f ms on\n",
           gcs, per, ranges, off, on
    printf "profiler: gcscope objects on that profile: %d KB max RSS vs %d KB for a 2 000-object one: %.1f bytes per object tracked at once (2 M)\n",
           big, small, (big - small) * 1024 / 2000000
}' "$tmp/live_on"
