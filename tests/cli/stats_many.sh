#!/bin/sh
# gcscope stats with several traces (--jobs): the output is in argument
# order and the same whatever the number of jobs; CSV is the traces' own
# CSVs under one header; JSON holds each trace's own report; the table has
# one row per trace with the numbers the single-trace report gives; a
# trace that fails makes the exit code 2 and leaves the others reported.
GCSCOPE=${GCSCOPE:-build/gcscope}
A=tests/data/wks-nonconcurrent.nettrace
B=tests/data/server.nettrace
C=tests/data/gen0size-small.nettrace
fail() { echo "stats_many: $*"; exit 1; }
TMP=${TMPDIR:-/tmp}/stats_many.$$
mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT

"$GCSCOPE" stats --jobs 0 "$A" "$B" >/dev/null 2>&1; [ $? -eq 1 ] || fail "--jobs 0: want exit 1"
"$GCSCOPE" stats "$A" - >/dev/null 2>&1; [ $? -eq 1 ] || fail "stdin among several: want exit 1"

# CSV: the single-trace CSVs, header once, in argument order.
for t in "$A" "$B" "$C"; do "$GCSCOPE" stats --format csv "$t" > "$TMP/$(basename "$t").csv" || fail "csv $t"; done
{ cat "$TMP/wks-nonconcurrent.nettrace.csv"; tail -n +2 "$TMP/server.nettrace.csv"
  tail -n +2 "$TMP/gen0size-small.nettrace.csv"; } > "$TMP/want.csv"
for j in 1 2 3; do
    "$GCSCOPE" stats --format csv --jobs $j "$A" "$B" "$C" > "$TMP/got.csv" || fail "csv --jobs $j: exit $?"
    cmp -s "$TMP/want.csv" "$TMP/got.csv" || fail "csv --jobs $j differs from the single-trace CSVs"
done
"$GCSCOPE" stats --format csv -j 2 "$C" "$A" | sed -n 2p | grep -q '^gen0size-small.nettrace,' \
    || fail "csv: argument order"

# JSON: each trace's report, in order.
{ printf '{"traces":[\n'; "$GCSCOPE" stats --format json "$A" | sed '$s/$/,/'
  "$GCSCOPE" stats --format json "$B"; printf ']}\n'; } > "$TMP/want.json"
"$GCSCOPE" stats --format json "$A" "$B" > "$TMP/got.json" || fail "json: exit $?"
cmp -s "$TMP/want.json" "$TMP/got.json" || fail "json differs from the single-trace reports"

# Table: one row per trace; the GC counts and total pauses the single
# reports give (wks-nonconcurrent: 71 GCs, TraceEvent's count).
"$GCSCOPE" stats -j 1 "$A" "$B" "$C" > "$TMP/t1" || fail "table: exit $?"
"$GCSCOPE" stats -j 3 "$A" "$B" "$C" > "$TMP/t3" || fail "table -j 3: exit $?"
cmp -s "$TMP/t1" "$TMP/t3" || fail "table: --jobs 1 and 3 differ"
[ "$(wc -l < "$TMP/t1")" -eq 4 ] || fail "table: want a header and 3 rows"
head -1 "$TMP/t1" | grep -q '^Trace  *PID  *Process  *GCs  *Gen0  *Gen1  *Gen2  *Induced  *TotalPauseMs' || fail "table header"
sed -n 2p "$TMP/t1" | grep -q '^wks-nonconcurrent.nettrace  *15219  *-  *71 ' || fail "table: wks-nonconcurrent row"
for t in "$A" "$B" "$C"; do
    name=$(basename "$t")
    single=$("$GCSCOPE" stats "$t" | sed -n 's/^  Total pause  *\([0-9.]*\) ms.*/\1/p')
    row=$(grep "^$name " "$TMP/t1" | awk '{ print $9 }')
    [ -n "$single" ] && [ "$single" = "$row" ] || fail "table: $name total pause $row, single report $single"
done

# A trace that names its processes (ETL kernel events) shows the name.
X=../shared/traces/perfview/net.4.5.2.x86.etl.zip
if [ -f "$X" ]; then
    "$GCSCOPE" stats "$A" "$X" > "$TMP/named" || fail "named: exit $?"
    grep -q '^net.4.5.2.x86.etl.zip  *3644  *Test.x86  *80 ' "$TMP/named" || fail "named: $(cat "$TMP/named")"
else
    echo "skipped: a trace naming its processes (../shared absent)"
fi

# A failing trace: reported on stderr, the others still listed, exit 2.
"$GCSCOPE" stats "$A" /nonexistent.nettrace "$C" > "$TMP/out" 2> "$TMP/err"
[ $? -eq 2 ] || fail "a missing trace: want exit 2"
grep -q 'nonexistent' "$TMP/err" || fail "a missing trace: no message"
[ "$(wc -l < "$TMP/out")" -eq 3 ] || fail "a missing trace: the other two rows are missing"
exit 0
