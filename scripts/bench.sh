#!/bin/sh
# make bench: gcscope on a corpus of large real traces of several shapes,
# against `cat` and against TraceEvent doing the same job, in one run.
#
#   sh scripts/bench.sh [build/gcscope]
#
# Shapes (bench/out/, recorded when absent and the recorder can run):
#   alloc    bench.nettrace: allocation ticks, sampled allocations, GC
#            handle churn (scripts/record-bench.sh)
#   service  service.nettrace: .NET 10 service-like workload, keywords
#            0xC16FCCBF:5, stacks on, >= 1 GB (record-bench-shape.sh service)
#   cpu      cpu.nettrace: CPU sampling (SampleProfiler), stack-heavy
#   server   server.nettrace: server GC, many heaps, handles and pinning
#   netperf  netperf.netperf: netperf V3 (record-bench-netperf.sh)
#   ctf      ctf.trace/: LTTng (CTF), the shared clr-only trace's user-space
#            stream files made 87 times longer in time, 502 MB, and
#            ctf.trace.zip for TraceEvent (record-bench-ctf.sh, ~5 s;
#            skipped without ../shared); TraceEvent rows one round only
#            (0.04-0.14 M events/s: ~2 minutes), the shape adds ~3 minutes
# GCSCOPE_BENCH_SHAPES="alloc service" picks shapes.
#
# For each shape, per round (GCSCOPE_BENCH_ROUNDS, default 3), one run
# each, interleaved, on one core (taskset -c 0): cat, gcscope info, stats,
# events --format json, objects, and the TraceEvent oracle (tools/oracle,
# built into build/oracle when dotnet is there): bench-events (its own
# enumeration of every event), bench-format (the same, every field read
# and formatted as text: the work `events` does, for a fair second
# figure without a target) and bench-gc (TraceLoadedDotNetRuntime's GC
# analysis). The best time of each counts; ratios come from the same run.
# cat and gcscope's commands (0.05-4 s each) go on for more rounds than
# TraceEvent's (5-35 s each) without it (GCSCOPE_BENCH_FAST_ROUNDS,
# default ROUNDS + 4): the targets between them (info against cat, stats
# against info) compare runs of 50-200 ms, which one slow neighbour of
# this shared host moves by 5-10 %.
# Then peak RSS of each command (/usr/bin/time), and instructions per
# event (callgrind on the shape's first 30 MB), which do not move with
# the load of this shared machine as seconds do.
#
# Then every shape's `stats` against TraceEvent's numbers
# (scripts/check-oracle.sh).
# Targets (PASS/MISS): info >= 0.5x cat; stats >= 90% of info; events json
# >= 10x TraceEvent's enumeration; stats >= 50x TraceEvent's GC analysis;
# peak RSS <= 64 MB (objects: stated per tracked object instead; stats
# also stated per GC, as it keeps a record of each).
set -eu
GCSCOPE=${1:-build/gcscope}
OUT=bench/out
SHAPES=${GCSCOPE_BENCH_SHAPES:-alloc service cpu server netperf ctf}
ROUNDS=${GCSCOPE_BENCH_ROUNDS:-3}
FAST_ROUNDS=${GCSCOPE_BENCH_FAST_ROUNDS:-$((ROUNDS + 4))}
[ "$FAST_ROUNDS" -ge "$ROUNDS" ] || FAST_ROUNDS=$ROUNDS
ORACLE=build/oracle/bin/oracle/release/oracle.dll
TMP=${TMPDIR:-/tmp}/gcscope-bench.$$
mkdir -p "$TMP" "$OUT"
trap 'rm -rf "$TMP"' EXIT

# GCSCOPE_BENCH_CPU: the core to pin to (default 0); two benches of
# different shapes may then run side by side on two cores.
pin=""
command -v taskset >/dev/null 2>&1 && pin="taskset -c ${GCSCOPE_BENCH_CPU:-0}"
# The floor (bench/touch_floor.c): one byte loaded per event's worth of
# bytes, the least any reader of every event does.
FLOOR="$TMP/touch_floor"
cc -O2 -std=c11 -D_DEFAULT_SOURCE -o "$FLOOR" bench/touch_floor.c 2>/dev/null || FLOOR=""
if [ ! -x /usr/bin/time ]; then
    echo "bench: installing GNU time" && apt-get install -y time >/dev/null
fi
have_dotnet=false
command -v dotnet >/dev/null 2>&1 && have_dotnet=true
# (rebuilt when Program.cs is newer: bench-gc reads zipped CTF since the ctf shape)
if $have_dotnet && { [ ! -f "$ORACLE" ] || [ tools/oracle/Program.cs -nt "$ORACLE" ]; }; then
    echo "bench: building the TraceEvent oracle into build/oracle"
    DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 dotnet build tools/oracle/oracle.csproj \
        -c Release --artifacts-path build/oracle -nologo -v q >/dev/null || true
fi
have_oracle=false
$have_dotnet && [ -f "$ORACLE" ] && have_oracle=true

file_of() {
    case $1 in
        alloc) echo "${GCSCOPE_BENCH_TRACE:-$OUT/bench.nettrace}" ;;
        netperf) echo "$OUT/netperf.netperf" ;;
        ctf) echo "$OUT/ctf.trace" ;;
        *) echo "$OUT/$1.nettrace" ;;
    esac
}
# te_of SHAPE: what TraceEvent reads (CtfTraceEventSource reads a zip).
te_of() { if [ "$1" = ctf ]; then echo "$OUT/ctf.trace.zip"; else file_of "$1"; fi; }
# record SHAPE FILE: makes the shape's trace; false when it cannot.
record() {
    case $1 in
        netperf) sh scripts/record-bench-netperf.sh "$2" ;;
        ctf) sh scripts/record-bench-ctf.sh "$2" "$GCSCOPE" ;;
        *) $have_dotnet || return 1
           case $1 in
               alloc) sh scripts/record-bench.sh "$2" 1100 ;;
               *) sh scripts/record-bench-shape.sh "$1" "$2" ;;
           esac ;;
    esac
}

now() { date +%s.%N; }
# run_once CMD...: "seconds peak-RSS-KB" of one run, pinned (GNU time
# reports the RSS; the seconds are taken around it, to the nanosecond).
run_once() {
    t0=$(now); /usr/bin/time -f "%M" -o "$TMP/time" $pin "$@" >/dev/null 2>"$TMP/err" || true; t1=$(now)
    awk -v a="$t0" -v b="$t1" -v m="$(tail -n 1 "$TMP/time")" 'BEGIN { printf "%.4f %d", b - a, m }'
}
min_of() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a < b) ? a : b }'; }
max_of() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a > b) ? a : b }'; }
# measure NAME CMD...: one more round of NAME: t_NAME keeps the best time,
# m_NAME the largest peak RSS.
measure() {
    name=$1; shift
    set -- $(run_once "$@")
    eval "t_$name=\$(min_of $1 \"\${t_$name:-}\")"
    eval "m_$name=\$(max_of $2 \"\${m_$name:-}\")"
}
json_events() { "$GCSCOPE" info --format json "$1" 2>/dev/null | sed -E 's/.*"events":([0-9]+).*/\1/'; }
# ir CMD...: instructions of one run under callgrind (large copies counted
# per byte, not per rep-movsb instruction).
ir() {
    GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=4294967295 \
        valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
        sed -n 's/.*I *refs: *//p' | tr -d ,
}
pass() { awk -v v="$1" -v t="$2" 'BEGIN { print (v >= t) ? "PASS" : "MISS" }'; }
pass_le() { awk -v v="$1" -v t="$2" 'BEGIN { print (v <= t) ? "PASS" : "MISS" }'; }

SUMMARY="$TMP/summary"
: > "$SUMMARY"
for shape in $SHAPES; do
    trace=$(file_of "$shape"); te_trace=$(te_of "$shape")
    if [ ! -e "$trace" ] || [ ! -e "$te_trace" ]; then
        echo "bench: recording $shape into $trace"
        if ! record "$shape" "$trace" || [ ! -e "$trace" ] || [ ! -e "$te_trace" ]; then
            echo "bench: $shape skipped: no $trace and it cannot be recorded here"
            continue
        fi
    fi
    # A CTF trace is a folder: its files' bytes, all of them read by cat.
    cat_cmd="cat '$trace' > /dev/null"
    [ -d "$trace" ] && cat_cmd="find -L '$trace' -type f -exec cat {} + > /dev/null"
    bytes=$(find -L "$trace" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')
    mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
    sh -c "$cat_cmd" # warm the page cache
    # TraceEvent reads CTF at 0.04-0.14 M events/s: one round of its rows.
    te_rounds=$ROUNDS
    [ "$shape" = ctf ] && te_rounds=1
    events=$(json_events "$trace")
    for v in cat info stats events objects te_events te_format te_gc; do eval "t_$v=''; m_$v=''"; done
    r=0
    while [ $r -lt "$FAST_ROUNDS" ]; do
        measure cat sh -c "$cat_cmd"
        measure info "$GCSCOPE" info "$trace"
        measure stats "$GCSCOPE" stats "$trace"
        measure events "$GCSCOPE" events --format json "$trace"
        measure objects "$GCSCOPE" objects "$trace"
        if $have_oracle && [ $r -lt "$te_rounds" ]; then
            measure te_events dotnet "$ORACLE" bench-events "$te_trace"
            measure te_format dotnet "$ORACLE" bench-format "$te_trace"
            measure te_gc dotnet "$ORACLE" bench-gc "$te_trace"
        fi
        r=$((r + 1))
    done
    t_floor=""
    if [ -n "$FLOOR" ] && [ "${events:-0}" -gt 0 ]; then
        stride=$((bytes / events))
        # A pass takes tens of milliseconds: 10 of them at least, so that
        # the best is not one disturbed by a neighbour.
        floor_rounds=$((ROUNDS > 10 ? ROUNDS : 10))
        t_floor=$(find -L "$trace" -type f -print0 | LC_ALL=C sort -z |
                  xargs -0 $pin "$FLOOR" "$stride" "$floor_rounds" 2>/dev/null)
    fi
    json_bytes=$("$GCSCOPE" events --format json "$trace" 2>/dev/null | wc -c)
    tracked=$("$GCSCOPE" objects --format json "$trace" 2>/dev/null |
              grep -o '"samples":[0-9]*' | awk -F: '{ s += $2 } END { print s + 0 }')
    # GCs (complete and not) of every process: stats keeps a record of each.
    gcs=$("$GCSCOPE" stats "$trace" 2>/dev/null | awk '$1 == "GCs" { n += $2 + $4 } END { print n + 0 }')
    echo
    echo "== $shape: $trace, $mb MB, $events events; one core (${pin:-no taskset}), best of $FAST_ROUNDS interleaved rounds (TraceEvent: of the first $te_rounds$([ "$te_trace" = "$trace" ] || echo ", on $te_trace"))"
    row() { # name seconds rss_kb note
        awk -v n="$1" -v s="$2" -v r="$3" -v note="$4" -v mb="$mb" -v ev="$events" 'BEGIN {
            if (s == "") { printf "  %-28s %s\n", n, "-"; exit }
            printf "  %-28s %8.3f s %9.1f MB/s %7.2f M events/s", n, s, mb / s, ev / s / 1e6
            if (r != "") printf "  peak RSS %7.1f MB", r / 1024
            printf "  %s\n", note }'
    }
    row "cat" "$t_cat" "" ""
    [ -n "$t_floor" ] && row "floor: a load per event" "$t_floor" "" "one byte every $stride bytes, read as gcscope reads (bench/touch_floor.c)"
    row "gcscope info" "$t_info" "$m_info" "$(awk -v a="$t_cat" -v b="$t_info" 'BEGIN { printf "%.2fx cat", a / b }')"
    row "gcscope stats" "$t_stats" "$m_stats" "$(awk -v a="$t_info" -v b="$t_stats" 'BEGIN { printf "%.1f%% of info", 100 * a / b }')"
    row "gcscope events --format json" "$t_events" "$m_events" ""
    row "gcscope objects" "$t_objects" "$m_objects" "$tracked tracked objects"
    if $have_oracle; then
        row "TraceEvent enumeration" "$t_te_events" "$m_te_events" "$(awk -v a="$t_te_events" -v b="$t_events" 'BEGIN { printf "events json %.1fx faster", a / b }')"
        row "TraceEvent formatting fields" "$t_te_format" "$m_te_format" "$(awk -v a="$t_te_format" -v b="$t_events" 'BEGIN { printf "events json %.1fx faster", a / b }')"
        row "TraceEvent GC analysis" "$t_te_gc" "$m_te_gc" "$(awk -v a="$t_te_gc" -v b="$t_stats" 'BEGIN { printf "stats %.1fx faster", a / b }')"
    fi
    # Instructions per event on the first 30 MB (events json: 3 MB, it
    # is slow under callgrind).
    if command -v valgrind >/dev/null 2>&1; then
        if [ -d "$trace" ]; then # CTF: its first 5 copies (~30 MB), both
            head="$trace-head"; head3="$trace-head"; h3="first 30 MB"
        else
            h3="first 3 MB"
            head="$TMP/head"; head3="$TMP/head3"
            head -c 30000000 "$trace" > "$head"
            head -c 3000000 "$trace" > "$head3"
        fi
        hev=$(json_events "$head"); hev3=$(json_events "$head3")
        i_info=$(ir "$GCSCOPE" info "$head"); i_stats=$(ir "$GCSCOPE" stats "$head")
        i_objects=$(ir "$GCSCOPE" objects "$head")
        i_events=$(ir "$GCSCOPE" events --format json "$head3")
        awk -v h3="$h3" -v n="${hev:-0}" -v n3="${hev3:-0}" -v a="$i_info" -v b="$i_stats" -v c="$i_events" -v o="$i_objects" 'BEGIN {
            if (n < 1) n = 1; if (n3 < 1) n3 = 1
            printf "  instructions per event (callgrind; first 30 MB, %d events): info %.0f, stats %.0f, objects %.0f; (%s) events json %.0f\n",
                   n, a / n, b / n, o / n, h3, c / n3 }'
        rm -f "$TMP/head" "$TMP/head3"
    fi
    # Targets.
    {
        ratio=$(awk -v a="$t_cat" -v b="$t_info" 'BEGIN { printf "%.2f", a / b }')
        echo "$shape info >= 0.5x cat: ${ratio}x $(pass "$ratio" 0.5)"
        ratio=$(awk -v a="$t_info" -v b="$t_stats" 'BEGIN { printf "%.1f", 100 * a / b }')
        echo "$shape stats >= 90% of info: ${ratio}% $(pass "$ratio" 90)"
        if $have_oracle; then
            ratio=$(awk -v a="$t_te_events" -v b="$t_events" 'BEGIN { printf "%.1f", a / b }')
            echo "$shape events json >= 10x TraceEvent enumeration: ${ratio}x $(pass "$ratio" 10)"
            awk -v s="$shape" -v te="$t_te_events" -v b="$json_bytes" -v t="$t_events" 'BEGIN {
                printf "%s   (10x TraceEvent enumeration means %.2f GB of JSON in %.3f s, %.1f GB/s; gcscope writes %.1f GB/s)\n",
                       s, b / 1e9, te / 10, b / 1e9 / (te / 10), b / 1e9 / t }'
            ratio=$(awk -v a="$t_te_format" -v b="$t_events" 'BEGIN { printf "%.1f", a / b }')
            echo "$shape (no target) events json against TraceEvent reading every field as text: ${ratio}x faster"
            ratio=$(awk -v a="$t_te_gc" -v b="$t_stats" 'BEGIN { printf "%.1f", a / b }')
            echo "$shape stats >= 50x TraceEvent GC analysis: ${ratio}x $(pass "$ratio" 50)"
            [ -n "$t_floor" ] && awk -v s="$shape" -v te="$t_te_gc" -v f="$t_floor" 'BEGIN {
                printf "%s   (50x TraceEvent GC analysis means stats in %.3f s; a load per event alone takes %.3f s: %s)\n",
                       s, te / 50, f, (f < te / 50) ? "reachable" : "not reachable by any reader" }'
        fi
        most=$(printf '%s\n%s\n%s\n' "$m_info" "$m_stats" "$m_events" | sort -n | tail -n 1)
        mbr=$(awk -v k="$most" 'BEGIN { printf "%.1f", k / 1024 }')
        echo "$shape peak RSS <= 64 MB (info, stats, events): ${mbr} MB $(pass_le "$mbr" 64)"
        awk -v s="$shape" -v o="$m_objects" -v b="$m_stats" -v n="$tracked" 'BEGIN {
            if (n > 0) printf "%s objects: %.1f MB peak RSS, %.0f bytes per tracked object above stats (%d objects)\n",
                               s, o / 1024, (o - b) * 1024 / n, n
            else printf "%s objects: %.1f MB peak RSS, no tracked object\n", s, o / 1024 }'
        awk -v s="$shape" -v t="$m_stats" -v i="$m_info" -v n="$gcs" 'BEGIN {
            if (n > 0) printf "%s stats: %.1f MB peak RSS, %.0f bytes per GC above info (%d GCs)\n",
                               s, t / 1024, (t - i) * 1024 / n, n }'
    } >> "$SUMMARY"
done
echo
echo "== targets"
sed 's/^/  /' "$SUMMARY"

# The numbers, not only the speed: gcscope's stats against TraceEvent's
# GC analysis of the same traces, every GC (scripts/check-oracle.sh).
if $have_oracle; then
    set --
    for shape in $SHAPES; do
        t=$(te_of "$shape")
        [ -e "$t" ] && set -- "$@" "$t"
    done
    if [ $# -gt 0 ]; then
        echo
        echo "== gcscope stats against TraceEvent's GC analysis (every GC, 6 decimals)"
        sh scripts/check-oracle.sh -g "$GCSCOPE" "$@" 2>&1 | sed 's/^/  /' || true
    fi
fi

# Cold page cache (the file read from disk), where this user may drop it.
first=$(file_of alloc)
if [ -w /proc/sys/vm/drop_caches ] && [ -f "$first" ] && [ -z "${GCSCOPE_BENCH_SHAPES:-}" ]; then
    cold() { sync; echo 3 > /proc/sys/vm/drop_caches; t0=$(now); $pin "$@" >/dev/null 2>&1 || true; t1=$(now)
             awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }'; }
    mb=$(awk -v b="$(stat -L -c %s "$first")" 'BEGIN { printf "%.1f", b / 1048576 }')
    ccat=$(cold cat "$first"); cinfo=$(cold "$GCSCOPE" info "$first")
    awk -v c="$ccat" -v i="$cinfo" -v mb="$mb" 'BEGIN {
        printf "cold cache (alloc): cat %.3f s (%.1f MB/s), gcscope info %.3f s (%.1f MB/s), %.2f x cat\n",
               c, mb / c, i, mb / i, c / i }'
fi
if [ -f scripts/bench-objects.sh ] && [ -z "${GCSCOPE_BENCH_SHAPES:-}" ]; then
    sh scripts/bench-objects.sh
fi

# other readers' benches (one line each, called when present; not with
# GCSCOPE_BENCH_OTHERS=0, e.g. for a second bench.sh run on the other core)
if [ "${GCSCOPE_BENCH_OTHERS:-1}" != 0 ]; then
    [ -f scripts/bench-etl.sh ] && sh scripts/bench-etl.sh "$GCSCOPE"
    [ -f scripts/bench-ctf.sh ] && sh scripts/bench-ctf.sh "$GCSCOPE"
    [ -f scripts/bench-archive.sh ] && sh scripts/bench-archive.sh "$GCSCOPE"
    [ -f scripts/bench-profiler.sh ] && sh scripts/bench-profiler.sh "$GCSCOPE"
    [ -f scripts/bench-report.sh ] && sh scripts/bench-report.sh
fi
true
