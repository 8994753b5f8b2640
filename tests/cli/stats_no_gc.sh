#!/bin/sh
# gcscope stats on traces without a GC (the shared PerfView traces: a .NET
# 5.0 one whose runtime ran no GC, a 6.0 one and a 2.1 netperf without GC
# events): one clear line in every format, exit 0, no empty report with
# "Heap count -1". JSON stays JSON (no process) and CSV its header; the line
# goes to stderr for them. Also the "time paused" header says what it
# divides by, and JSON keeps TraceEvent's figure under its own name.
GCSCOPE=${GCSCOPE:-build/gcscope}
SHARED=../shared/traces/perfview
LINE="No GC in this trace: no .NET runtime started a GC while it was traced."
fail() { echo "stats_no_gc: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

TRACE=tests/data/wks-nonconcurrent.nettrace
"$GCSCOPE" stats "$TRACE" > "$tmp/t" || fail "table: exit $?"
grep -q '^  Time paused for GC   15\.91 % of the trace (total pause / trace duration)$' "$tmp/t" \
    || fail "table: time paused must be of the trace and say so"
"$GCSCOPE" stats --format json "$TRACE" > "$tmp/j" || fail "json: exit $?"
grep -q '"pause_time_pct_of_trace": 15\.913918, "traceevent_pause_time_pct": ' "$tmp/j" \
    || fail "json: pause_time_pct_of_trace then TraceEvent's figure"

# --process of a pid without GC: the same one line, naming the process
[ "$("$GCSCOPE" stats --process 1 "$TRACE")" = "No GC of process 1 in this trace." ] \
    || fail "--process 1: want one line"

found=0
for t in "$SHARED"/eventpipe-dotnetcore5.0-win-x64-arraytypes.nettrace \
         "$SHARED"/eventpipe-dotnetcore6.0-win-x64-executioncheckpoints.nettrace \
         "$SHARED"/eventpipe-dotnetcore2.1-linux-x64-objver3.netperf; do
    [ -f "$t" ] || continue
    found=$((found + 1))
    name=$(basename "$t")
    "$GCSCOPE" stats "$t" > "$tmp/out" 2> "$tmp/err" || fail "$name table: exit $?"
    [ "$(cat "$tmp/out")" = "$LINE" ] || fail "$name table: want the one line, got: $(head -3 "$tmp/out")"
    [ -s "$tmp/err" ] && fail "$name table: stderr $(cat "$tmp/err")"
    "$GCSCOPE" stats --format json "$t" > "$tmp/out" 2> "$tmp/err" || fail "$name json: exit $?"
    [ "$(cat "$tmp/err")" = "gcscope stats: $name: $LINE" ] || fail "$name json: stderr $(cat "$tmp/err")"
    grep -q '"pid"' "$tmp/out" && fail "$name json: a process without GC is listed"
    grep -q '"processes": \[' "$tmp/out" || fail "$name json: no processes array"
    "$GCSCOPE" stats --format csv "$t" > "$tmp/out" 2> "$tmp/err" || fail "$name csv: exit $?"
    [ "$(wc -l < "$tmp/out")" -eq 1 ] || fail "$name csv: want the header only"
    [ "$(cat "$tmp/err")" = "gcscope stats: $name: $LINE" ] || fail "$name csv: stderr $(cat "$tmp/err")"
done
[ "$found" -gt 0 ] || echo "skipped: stats_no_gc shared traces (no $SHARED)"
exit 0
