#!/bin/sh
# Part of `make bench`: builds bench/report_bench.c with -O2 against
# $BUILD/libgcscope.a and runs it: `gcscope report`'s HTML at 100,000
# synthetic GCs fed through the GC analyzer, against issue 12's budget
# (under 2 s and 5 MB; exit 1 over it).
#
#   sh scripts/bench-report.sh [GCS [OUT.html]]
set -eu
BUILD=${BUILD:-build}
CC=${CC:-cc}
out="$BUILD/bench/report_bench"
mkdir -p "$BUILD/bench"
# shellcheck disable=SC2046
# Against the release library `make bench` has just built (make all).
[ -f "$BUILD/libgcscope.a" ] || make -s BUILD="$BUILD" "$BUILD/libgcscope.a"
$CC -std=c11 -D_DEFAULT_SOURCE -D_FILE_OFFSET_BITS=64 -O2 -g -Iinclude -Isrc -Itests \
    -o "$out" bench/report_bench.c "$BUILD/libgcscope.a" -lm -ldl -pthread
pin=""
command -v taskset >/dev/null 2>&1 && pin="taskset -c 0"
$pin "$out" "$@"
