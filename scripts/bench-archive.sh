#!/bin/sh
# Zipped traces: `gcscope info` on a zip (read through libarchive,
# streaming, nothing unpacked) against `unzip -p ZIP > /dev/null`, the
# cost of decompressing alone. Called by scripts/bench.sh; alone:
#
#   sh scripts/bench-archive.sh build/gcscope
#
# The traces zipped: bench/out/bench.nettrace ($GCSCOPE_BENCH_TRACE) and
# bench/out/bench.etl ($GCSCOPE_BENCH_ETL, the synthetic ETL), those that
# exist; each zip is made once beside them (bench/out/NAME.zip, or under
# $GCSCOPE_BENCH_ZIP_DIR), deflated (zip -6, or python3's zipfile). Runs
# pinned to one core (taskset -c 0), ROUNDS (5) interleaved rounds after a
# warm-up read, best of each; peak RSS of one more run.
set -eu
GCSCOPE=${1:-build/gcscope}
ROUNDS=${GCSCOPE_BENCH_ROUNDS:-5}
pin=""
command -v taskset >/dev/null 2>&1 && pin="taskset -c 0"
if ! command -v unzip >/dev/null 2>&1; then
    echo "bench-archive: skipped: no unzip to compare with"
    exit 0
fi

now() { date +%s.%N; }
time_once() {
    t0=$(now); $pin "$@" >/dev/null 2>&1 || true; t1=$(now)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }'
}
min_of() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a < b) ? a : b }'; }

# make_zip TRACE ZIP: ZIP holds TRACE (by its base name), deflated.
make_zip() {
    if command -v zip >/dev/null 2>&1; then
        rm -f "$2" && zip -q -j -6 "$2" "$1"
    elif command -v python3 >/dev/null 2>&1; then
        python3 -c 'import os, sys, zipfile
with zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED, allowZip64=True) as z:
    z.write(sys.argv[1], os.path.basename(sys.argv[1]))' "$1" "$2"
    else
        return 1
    fi
}

found=0
for trace in "${GCSCOPE_BENCH_TRACE:-bench/out/bench.nettrace}" "${GCSCOPE_BENCH_ETL:-bench/out/bench.etl}"; do
    [ -f "$trace" ] || continue
    found=1
    dir=${GCSCOPE_BENCH_ZIP_DIR:-$(dirname "$trace")}
    zipf="$dir/$(basename "$trace").zip"
    if [ ! -f "$zipf" ] || [ "$zipf" -ot "$trace" ]; then
        echo "bench-archive: zipping $trace into $zipf"
        make_zip "$trace" "$zipf" || { echo "bench-archive: skipped: neither zip nor python3"; exit 0; }
    fi
    cat "$zipf" >/dev/null # warm the page cache
    unzip_s=""; info_s=""
    r=0
    while [ $r -lt "$ROUNDS" ]; do
        unzip_s=$(min_of "$(time_once sh -c "unzip -p '$zipf' > /dev/null")" "$unzip_s")
        info_s=$(min_of "$(time_once "$GCSCOPE" info "$zipf")" "$info_s")
        r=$((r + 1))
    done
    /usr/bin/time -f "%M" -o /tmp/gcscope-bench-archive-time $pin "$GCSCOPE" info "$zipf" >/dev/null 2>&1 || true
    rss=$(cat /tmp/gcscope-bench-archive-time)
    zmb=$(stat -L -c %s "$zipf" | awk '{ printf "%.1f", $1 / 1048576 }')
    mb=$(stat -L -c %s "$trace" | awk '{ printf "%.1f", $1 / 1048576 }')
    echo "zip: $zipf  $zmb MB, member $mb MB  (one core: ${pin:-no taskset})"
    awk -v s="$unzip_s" -v mb="$mb" 'BEGIN { printf "%-20s %8.3f s %9.1f MB/s out\n", "unzip -p > /dev/null", s, mb / s }'
    awk -v s="$info_s" -v mb="$mb" -v u="$unzip_s" -v r="$rss" 'BEGIN {
        printf "%-20s %8.3f s %9.1f MB/s out  peak RSS %6.1f MB  %5.2f x unzip -p\n",
               "gcscope info (zip)", s, mb / s, r / 1024, u / s }'
done
[ $found -eq 1 ] || echo "bench-archive: skipped: no bench/out/bench.nettrace nor bench/out/bench.etl"
