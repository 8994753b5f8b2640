#!/bin/sh
# A real trace cut in the middle of a background GC: that GC is reported
# incomplete with its reason, counted in the problems summary, never with a
# negative time; the GCs around it keep their numbers; the cut is an error
# (exit 2) after the report.
set -u
G=${GCSCOPE:-build/asan/gcscope}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "stats_truncated: $*"; exit 1; }

head -c 300000 tests/data/wks-concurrent.nettrace > "$tmp/cut.nettrace"
"$G" stats --format json "$tmp/cut.nettrace" > "$tmp/out.json" 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "exit $rc, not 2"
grep -q 'truncated at byte offset 300000' "$tmp/err" || fail "stderr: $(cat "$tmp/err")"
# GC 21 (a background GC whose end is past the cut) is incomplete, with why.
grep -q '{"number": 21, "generation": 2, "type": "BackgroundGC", .*"is_complete": false, "incomplete_reason": "no GCEnd"}' \
    "$tmp/out.json" || fail "GC 21 is not reported incomplete"
grep -q '"incomplete_gcs": 1,' "$tmp/out.json" || fail "problems do not count it"
# The foreground GCs nested in it are complete, with TraceEvent's numbers
# (tests/data/wks-concurrent.oracle-gcstats.json: GC 22 pauses 312.423 ms).
grep -q '{"number": 22, "generation": 1, "type": "ForegroundGC", .*"pause_ms": 312.423465, .*"is_complete": true}' \
    "$tmp/out.json" || fail "GC 22 changed"
if grep -qE '"(pause|suspend|duration)_ms": -' "$tmp/out.json"; then fail "a negative time"; fi
# The table says it too.
"$G" stats "$tmp/cut.nettrace" > "$tmp/out.txt" 2>/dev/null
grep -q 'Problems: 1 incomplete GCs' "$tmp/out.txt" || fail "table has no problems line"
echo "stats_truncated: ok"
