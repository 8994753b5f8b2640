#!/bin/sh
# The CTF (LTTng) shape of the bench corpus, built from the user-space trace
# of the shared clr-only.trace.zip (perfcollect, .NET Core 3.1: 4 stream
# files, 32,762 events, 5.8 MiB) made longer in time by tests/tools/ctf_stretch
# (its packets copied N times, each copy's timestamps moved past the one
# before: docs/performance.md, "The CTF shape"):
#
#   scripts/record-bench-ctf.sh OUT_FOLDER [GCSCOPE] [SIZE_MB]   (default 500 MiB)
#
# writes OUT_FOLDER/ust/uid/1000/64-bit (read by gcscope), OUT_FOLDER.zip
# (the same, stored without compression, as perfcollect's zips: what
# TraceEvent's CtfTraceEventSource reads; the folder name ending in
# "64-bit" gives it the pointer size) and OUT_FOLDER-head (5 copies, ~30 MB:
# the bench's callgrind runs). ctf_stretch is built with -O2 against the
# libgcscope.a beside GCSCOPE (default build/gcscope).
set -eu
OUT=$1
GCSCOPE=${2:-build/gcscope}
SIZE_MB=${3:-500}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SRC=${GCSCOPE_CTF_SOURCE:-$ROOT/../shared/traces/ctf/clr-only.trace.zip}
[ -f "$SRC" ] || { echo "record-bench-ctf: $SRC not present"; exit 1; }
BUILD=$(dirname "$GCSCOPE")
[ -f "$BUILD/libgcscope.a" ] || make -s -C "$ROOT" BUILD="$BUILD" "$BUILD/libgcscope.a"
mkdir -p "$BUILD/tools"
${CC:-cc} -std=c11 -D_DEFAULT_SOURCE -O2 -I"$ROOT/include" -I"$ROOT/src" -I"$ROOT/tests" \
    -o "$BUILD/tools/ctf_stretch" "$ROOT/tests/tools/ctf_stretch.c" "$BUILD/libgcscope.a" \
    -lm -ldl -pthread
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && unzip -q "$SRC")
ust=$(ls -d "$tmp"/*/lttngTrace/auto-*/ust/uid/*/64-bit | head -n 1)
rm -rf "$OUT" "$OUT.zip" "$OUT-head"
mkdir -p "$OUT/ust/uid/1000" "$OUT-head/ust/uid/1000"
echo "record-bench-ctf: $OUT: $("$BUILD/tools/ctf_stretch" --min-mb "$SIZE_MB" "$ust" "$OUT/ust/uid/1000/64-bit")"
echo "record-bench-ctf: $OUT-head: $("$BUILD/tools/ctf_stretch" --copies 5 "$ust" "$OUT-head/ust/uid/1000/64-bit")"
# zip -0: stored, so TraceEvent's time is its reading, not inflating.
(cd "$(dirname "$OUT")" && zip -q -0 -r "$(basename "$OUT").zip.tmp" "$(basename "$OUT")" &&
    mv "$(basename "$OUT").zip.tmp" "$(basename "$OUT").zip")
