#!/bin/sh
# make bench: throughput and memory of gcscope on one large real trace,
# measured in the same run as `cat FILE > /dev/null` on the same file.
#
#   sh scripts/bench.sh build/gcscope
#
# The trace is bench/out/bench.nettrace (or $GCSCOPE_BENCH_TRACE); when it
# is absent it is recorded first with scripts/record-bench.sh (needs dotnet).
# Each command runs ROUNDS times (7), interleaved, after a warm-up read;
# the best time of each counts.
set -eu
GCSCOPE=${1:-build/gcscope}
TRACE=${GCSCOPE_BENCH_TRACE:-bench/out/bench.nettrace}
SIZE_MB=${GCSCOPE_BENCH_SIZE_MB:-1100}

if [ ! -f "$TRACE" ]; then
    if ! command -v dotnet >/dev/null 2>&1; then
        echo "bench: skipped: no $TRACE and no dotnet to record it"
        exit 0
    fi
    mkdir -p "$(dirname "$TRACE")"
    echo "bench: recording $TRACE (~${SIZE_MB} MB) with scripts/record-bench.sh"
    sh scripts/record-bench.sh "$TRACE" "$SIZE_MB"
fi
if [ ! -x /usr/bin/time ]; then
    echo "bench: installing GNU time" && apt-get install -y time >/dev/null
fi

bytes=$(stat -L -c %s "$TRACE")
mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
pin=""
command -v taskset >/dev/null 2>&1 && pin="taskset -c 0"

now() { date +%s.%N; }

# The machine's speed drifts (shared cores, the clock moves between 2.5 and
# 2.9 GHz): the commands are timed in rounds, one run of each per round,
# so that every figure sees the same conditions; the best of ROUNDS counts.
ROUNDS=${GCSCOPE_BENCH_ROUNDS:-7}

# time_once CMD...: seconds of one run.
time_once() {
    t0=$(now); $pin "$@" >/dev/null 2>&1 || true; t1=$(now)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }'
}
# rss_of CMD...: peak RSS (KB) of one run.
rss_of() {
    /usr/bin/time -f "%M" -o /tmp/gcscope-bench-time $pin "$@" >/dev/null 2>/tmp/gcscope-bench-err || true
    cat /tmp/gcscope-bench-time
}
min_of() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a < b) ? a : b }'; }

cat "$TRACE" >/dev/null # warm the page cache
events=$("$GCSCOPE" info --format json "$TRACE" | sed -E 's/.*"events":([0-9]+).*/\1/')
has_stats=false
"$GCSCOPE" --help | grep -q '^  stats ' && has_stats=true

cat_s=""; info_s=""; stats_s=""
r=0
while [ $r -lt "$ROUNDS" ]; do
    cat_s=$(min_of "$(time_once sh -c "cat '$TRACE' > /dev/null")" "$cat_s")
    info_s=$(min_of "$(time_once "$GCSCOPE" info "$TRACE")" "$info_s")
    $has_stats && stats_s=$(min_of "$(time_once "$GCSCOPE" stats "$TRACE")" "$stats_s")
    r=$((r + 1))
done
info_rss=$(rss_of "$GCSCOPE" info "$TRACE")
$has_stats && stats_rss=$(rss_of "$GCSCOPE" stats "$TRACE")

report() { # name seconds rss
    awk -v n="$1" -v s="$2" -v r="$3" -v mb="$mb" -v ev="$events" -v cs="$cat_s" 'BEGIN {
        printf "%-16s %8.3f s %9.1f MB/s %12.0f events/s  peak RSS %6.1f MB  %5.2f x cat\n",
               n, s, mb / s, ev / s, r / 1024, cs / s }'
}
echo "trace: $TRACE  $mb MB  $events events  (one core: ${pin:-no taskset})"
awk -v s="$cat_s" -v mb="$mb" 'BEGIN { printf "%-16s %8.3f s %9.1f MB/s\n", "cat", s, mb / s }'
report "gcscope info" "$info_s" "$info_rss"
if $has_stats; then
    report "gcscope stats" "$stats_s" "$stats_rss"
    awk -v a="$info_s" -v b="$stats_s" 'BEGIN { printf "stats keeps %.1f%% of info throughput\n", 100 * a / b }'
fi
# Cold page cache (the file read from disk), where this user may drop it.
if [ -w /proc/sys/vm/drop_caches ]; then
    cold() { sync; echo 3 > /proc/sys/vm/drop_caches; t0=$(now); $pin "$@" >/dev/null 2>&1 || true; t1=$(now)
             awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }'; }
    ccat=$(cold cat "$TRACE"); cinfo=$(cold "$GCSCOPE" info "$TRACE")
    awk -v c="$ccat" -v i="$cinfo" -v mb="$mb" 'BEGIN {
        printf "cold cache: cat %.3f s (%.1f MB/s), gcscope info %.3f s (%.1f MB/s), %.2f x cat\n",
               c, mb / c, i, mb / i, c / i }'
    cat "$TRACE" >/dev/null # warm again for what follows
fi
# Instructions are deterministic where seconds on a shared machine are not:
# callgrind on the first 30 MB (large copies counted per byte, not per
# rep-movsb instruction, so one big copy is not cheaper than many).
if command -v valgrind >/dev/null 2>&1; then
    head -c 30000000 "$TRACE" > /tmp/gcscope-bench-head.nettrace
    ir() {
        GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=4294967295 \
            valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
            sed -n 's/.*I *refs: *//p' | tr -d ,
    }
    hev=$("$GCSCOPE" info --format json /tmp/gcscope-bench-head.nettrace 2>/dev/null |
          sed -E 's/.*"events":([0-9]+).*/\1/')
    ir_info=$(ir "$GCSCOPE" info /tmp/gcscope-bench-head.nettrace)
    ir_stats=$(ir "$GCSCOPE" stats /tmp/gcscope-bench-head.nettrace)
    awk -v a="$ir_info" -v b="$ir_stats" -v n="$hev" 'BEGIN {
        printf "instructions (callgrind, first 30 MB, %d events): info %.0f/event, stats %.0f/event: stats keeps %.1f%% of info throughput\n",
               n, a / n, b / n, 100 * a / b }'
    rm -f /tmp/gcscope-bench-head.nettrace
fi
if [ -f scripts/bench-objects.sh ]; then
    sh scripts/bench-objects.sh
fi
sh scripts/bench-etl.sh "$GCSCOPE" # ETL: issue 10
sh scripts/bench-archive.sh "$GCSCOPE" # zipped traces: gcscope info on a zip vs unzip -p
sh scripts/bench-ctf.sh "$GCSCOPE" # CTF (LTTng): issue 11
sh scripts/bench-report.sh  # issue 12: report at 100,000 GCs, < 2 s and < 5 MB
sh scripts/bench-profiler.sh "$GCSCOPE"
