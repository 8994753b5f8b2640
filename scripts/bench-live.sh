#!/bin/sh
# bench-live.sh [GCSCOPE] [SECONDS] - what the live path sustains.
#
# Attaches `gcscope live` to the test workload (tests/workloads/live, mode
# alloc: short-lived garbage at the normal GC rate) under four session
# configurations of rising event volume, and prints for each: events/s
# delivered, events the runtime dropped (gaps in sequence numbers, from
# the reader's lost_events) and gcscope's CPU (getrusage) over the run.
# Needs dotnet; run from the repository root after `make`.
GCSCOPE=${1:-build/gcscope}
SECONDS_RUN=${2:-8}
BUILD=${BUILD:-build}
command -v dotnet >/dev/null 2>&1 || { echo "skipped: bench-live (dotnet not installed)"; exit 0; }
[ -x "$GCSCOPE" ] || { echo "no $GCSCOPE: run make first"; exit 1; }
W=$BUILD/workloads/live
if [ ! -f "$W/bin/live.dll" ] || [ tests/workloads/live/Program.cs -nt "$W/bin/live.dll" ]; then
    mkdir -p "$W/src"
    cp tests/workloads/live/Program.cs tests/workloads/live/live.csproj "$W/src/"
    (cd "$W/src" && dotnet build -c Release -o ../bin -nologo -v q) >"$W/build.log" 2>&1 ||
        { cat "$W/build.log"; exit 1; }
fi
TMP=$(mktemp -d /tmp/gcs-bench-live.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

run() { # run LABEL THREADS [gcscope options]
    label=$1; threads=$2; shift 2
    dotnet "$W/bin/live.dll" alloc "$((SECONDS_RUN + 2))" "$threads" >"$TMP/w.out" 2>&1 &
    wp=$!
    n=0
    while ! grep -q '^pid' "$TMP/w.out" 2>/dev/null && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
    pid=$(sed -n 's/^pid //p' "$TMP/w.out")
    "$GCSCOPE" live "$pid" --duration "$SECONDS_RUN" "$@" >"$TMP/l.out" 2>"$TMP/l.err"
    wait $wp
    gcs=$(sed -n 's/^gcs total=\([0-9]*\).*/\1/p' "$TMP/l.out")
    line=$(grep '^stream:' "$TMP/l.err")
    # stream: E events, L lost, B bytes in T s; gcscope cpu C s (P%)
    echo "$line" | awk -v label="$label" -v gcs="$gcs" '{
        ev=$2; lost=$4; bytes=$6; t=$9; cpu=$13; pct=$15; gsub(/[()%]/,"",pct)
        printf "%-28s %8d %9.0f %6d %9.1f %8.3f %6.1f%% %6d\n", label, ev, ev/t, lost,
               bytes/t/1024, cpu, pct, gcs }'
}

printf "%-28s %8s %9s %6s %9s %8s %7s %6s\n" "session" "events" "events/s" "lost" "KiB/s" \
    "cpu s" "cpu%" "GCs"
HEAVY=Microsoft-Windows-DotNETRuntime:0xC00003:5,Microsoft-Windows-DotNETRuntimePrivate:0x1:5
run "GC level 4 (default)" 1
run "GC level 5 (alloc ticks)" 1 --alloc-ticks
run "0xC00003:5, 4 MB buffer" 1 --buffer-mb 4 --providers "$HEAVY"
run "0xC00003:5, 1 MB, 2 threads" 2 --buffer-mb 1 --providers "$HEAVY"
