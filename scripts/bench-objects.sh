#!/bin/sh
# Part of `make bench`: builds bench/objects_bench.c with -O2 against the
# library sources and runs it (10 M tracked objects, 100 k moved ranges per
# GC, 100 GCs by default; pass other figures as arguments).
#
#   sh scripts/bench-objects.sh [OBJECTS [RANGES_PER_GC [GCS]]]
set -eu
BUILD=${BUILD:-build}
CC=${CC:-cc}
out="$BUILD/bench/objects_bench"
mkdir -p "$BUILD/bench"
# The library as `make` builds it (-O2), with the Makefile's libraries
# (the sources alone no longer link: the readers need libarchive and
# libbabeltrace2).
make -s BUILD="$BUILD" "$BUILD/libgcscope.a"
$CC -std=c11 -D_DEFAULT_SOURCE -D_FILE_OFFSET_BITS=64 -O2 -g -Iinclude -Isrc \
    -o "$out" bench/objects_bench.c "$BUILD/libgcscope.a" -lm -ldl -pthread
pin=""
command -v taskset >/dev/null 2>&1 && pin="taskset -c 0"
$pin "$out" "$@"
