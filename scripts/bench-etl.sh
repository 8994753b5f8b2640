#!/bin/sh
# ETL bench (issue 10): throughput and memory of gcscope on a large ETW log,
# in the same run as `cat FILE > /dev/null` on the same file.
#
#   sh scripts/bench-etl.sh [build/gcscope]
#
# The trace is bench/out/bench.etl (or $GCSCOPE_BENCH_ETL): when absent it is
# written by tests/tools/etl_write.c (built here with -O2 against the
# libgcscope.a beside GCSCOPE): a synthetic GC trace of
# $GCSCOPE_BENCH_ETL_MB MiB (540): 8 processors' 64 KiB buffers interleaved
# in time, uncompressed as the kernel logger writes them; per GC 7 GC events
# and 2,000 SetGCHandle/DestroyGCHandle events on 6 threads.
# Commands run pinned to one core (taskset -c 0), ROUNDS times interleaved
# (7), best of each; peak RSS from GNU time; instructions per event from
# callgrind on the first 30 MB when valgrind is present.
set -eu
GCSCOPE=${1:-build/gcscope}
TRACE=${GCSCOPE_BENCH_ETL:-bench/out/bench.etl}
SIZE_MB=${GCSCOPE_BENCH_ETL_MB:-540}
ROUNDS=${GCSCOPE_BENCH_ROUNDS:-7}
BUILD=$(dirname "$GCSCOPE")
[ -f "$BUILD/libgcscope.a" ] || BUILD=build # a binary copied aside for the bench

if [ ! -f "$TRACE" ]; then
    mkdir -p "$(dirname "$TRACE")" "$BUILD/tools"
    ${CC:-cc} -std=c11 -D_DEFAULT_SOURCE -O2 -Iinclude -Isrc -Itests -o "$BUILD/tools/etl_write" \
        tests/tools/etl_write.c "$BUILD/libgcscope.a" -lm -ldl -pthread
    echo "bench-etl: writing $TRACE (${SIZE_MB} MiB) with tests/tools/etl_write"
    "$BUILD/tools/etl_write" --synthetic --cpus 8 --threads 6 --handles 2000 \
        --max-mb "$SIZE_MB" "$TRACE"
fi
if [ ! -x /usr/bin/time ]; then
    echo "bench-etl: installing GNU time" && apt-get install -y time >/dev/null
fi

bytes=$(stat -L -c %s "$TRACE")
mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
pin=""
command -v taskset >/dev/null 2>&1 && pin="taskset -c 0"
now() { date +%s.%N; }
time_once() {
    t0=$(now); $pin "$@" >/dev/null 2>&1 || true; t1=$(now)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }'
}
rss_of() {
    /usr/bin/time -f "%M" -o /tmp/gcscope-bench-etl-time $pin "$@" >/dev/null 2>&1 || true
    cat /tmp/gcscope-bench-etl-time
}
min_of() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a < b) ? a : b }'; }

cat "$TRACE" >/dev/null # warm the page cache
events=$("$GCSCOPE" info --format json "$TRACE" | sed -E 's/.*"events":([0-9]+).*/\1/')
cat_s=""; info_s=""; stats_s=""
r=0
while [ $r -lt "$ROUNDS" ]; do
    cat_s=$(min_of "$(time_once sh -c "cat '$TRACE' > /dev/null")" "$cat_s")
    info_s=$(min_of "$(time_once "$GCSCOPE" info "$TRACE")" "$info_s")
    stats_s=$(min_of "$(time_once "$GCSCOPE" stats "$TRACE")" "$stats_s")
    r=$((r + 1))
done
info_rss=$(rss_of "$GCSCOPE" info "$TRACE")
stats_rss=$(rss_of "$GCSCOPE" stats "$TRACE")
events_rss=$(rss_of "$GCSCOPE" events "$TRACE")

report() { # name seconds rss
    awk -v n="$1" -v s="$2" -v r="$3" -v mb="$mb" -v ev="$events" -v cs="$cat_s" 'BEGIN {
        printf "%-16s %8.3f s %9.1f MB/s %12.0f events/s  peak RSS %6.1f MB  %5.2f x cat\n",
               n, s, mb / s, ev / s, r / 1024, cs / s }'
}
echo "etl trace: $TRACE  $mb MB  $events events  (one core: ${pin:-no taskset})"
awk -v s="$cat_s" -v mb="$mb" 'BEGIN { printf "%-16s %8.3f s %9.1f MB/s\n", "cat", s, mb / s }'
report "gcscope info" "$info_s" "$info_rss"
report "gcscope stats" "$stats_s" "$stats_rss"
awk -v r="$events_rss" 'BEGIN { printf "gcscope events   peak RSS %6.1f MB (every event sorted and printed)\n", r / 1024 }'
if command -v valgrind >/dev/null 2>&1; then
    head -c 30000000 "$TRACE" > /tmp/gcscope-bench-head.etl
    ir() {
        GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=4294967295 \
            valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
            sed -n 's/.*I *refs: *//p' | tr -d ,
    }
    hev=$("$GCSCOPE" info --format json /tmp/gcscope-bench-head.etl 2>/dev/null |
          sed -E 's/.*"events":([0-9]+).*/\1/')
    ir_info=$(ir "$GCSCOPE" info /tmp/gcscope-bench-head.etl)
    ir_stats=$(ir "$GCSCOPE" stats /tmp/gcscope-bench-head.etl)
    awk -v a="$ir_info" -v b="$ir_stats" -v n="$hev" 'BEGIN {
        printf "etl instructions (callgrind, first 30 MB, %d events): info %.0f/event, stats %.0f/event\n",
               n, a / n, b / n }'
    rm -f /tmp/gcscope-bench-head.etl
fi
