#!/bin/sh
# `gcscope stats --format json` as a user runs it (the reader's type
# filter and taps, the CLI's report) against TraceEvent's GC analysis on
# every fixture that has the oracle's output beside it
# (tests/data/X.oracle-gcstats.json[.gz]), through the comparison
# scripts/check-oracle.sh makes on any trace (test_gc_oracle given file
# pairs). test_gc_oracle compares the library's analysis of every event;
# this compares the command. Then one pause changed in the 6th decimal
# must be found.
GCSCOPE=${GCSCOPE:-build/gcscope}
BUILD=${BUILD:-build}
COMPARE="$BUILD/asan/tests/test_gc_oracle"
fail() { echo "stats_oracle: $*"; exit 1; }
[ -x "$COMPARE" ] || { echo "skipped: stats_oracle ($COMPARE not built)"; exit 0; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

n=0
for oracle in tests/data/*.oracle-gcstats.json tests/data/*.oracle-gcstats.json.gz; do
    [ -f "$oracle" ] || continue
    trace=${oracle%.oracle-gcstats.json*}.nettrace
    [ -f "$trace" ] || continue
    "$GCSCOPE" stats --format json "$trace" > "$TMP/ours.json" 2> "$TMP/err" ||
        fail "$trace: exit $?: $(cat "$TMP/err")"
    "$COMPARE" "$oracle" "$TMP/ours.json" > "$TMP/out" 2>&1 ||
        fail "$trace differs from TraceEvent: $(head -n 20 "$TMP/out")"
    grep -q '^same .*: [1-9][0-9]* GCs' "$TMP/out" || fail "$trace: no GC compared: $(cat "$TMP/out")"
    n=$((n + 1))
    last=$trace last_oracle=$oracle
done
[ "$n" -ge 10 ] || fail "only $n fixtures with TraceEvent's output (want 10 or more)"

# The comparison must see a difference in the 6th decimal of one pause.
"$GCSCOPE" stats --format json "$last" > "$TMP/ours.json"
awk '!done && match($0, /"pause_ms": *[0-9]+\.[0-9]+/) {
         key = substr($0, RSTART, RLENGTH); sub(/[0-9.]+$/, "", key)
         v = substr($0, RSTART + length(key), RLENGTH - length(key))
         $0 = substr($0, 1, RSTART - 1) key sprintf("%.6f", v + 0.000001) substr($0, RSTART + RLENGTH)
         done = 1 }
     { print }' "$TMP/ours.json" > "$TMP/changed.json"
cmp -s "$TMP/ours.json" "$TMP/changed.json" && fail "no pause to change in $last"
"$COMPARE" "$last_oracle" "$TMP/changed.json" > "$TMP/out" 2>&1 &&
    fail "a pause 1e-6 ms off was not seen"
grep -q '^FAIL ' "$TMP/out" || fail "no FAIL line: $(cat "$TMP/out")"
echo "stats_oracle: $n fixtures as TraceEvent computes them"
