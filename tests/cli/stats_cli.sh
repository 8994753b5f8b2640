#!/bin/sh
# gcscope stats: usage errors, and on the wks-nonconcurrent fixture the
# three formats, --process, and the counts TraceEvent gives for it
# (71 complete GCs; tests/data/wks-nonconcurrent.oracle-gcstats.json).
GCSCOPE=${GCSCOPE:-build/gcscope}
TRACE=tests/data/wks-nonconcurrent.nettrace
fail() { echo "stats_cli: $*"; exit 1; }

"$GCSCOPE" stats >/dev/null 2>&1; [ $? -eq 1 ] || fail "no trace: want exit 1"
"$GCSCOPE" stats --format xml "$TRACE" >/dev/null 2>&1; [ $? -eq 1 ] || fail "bad format: want exit 1"
"$GCSCOPE" stats --process "" "$TRACE" >/dev/null 2>&1; [ $? -eq 1 ] || fail "empty --process: want exit 1"
# a name no process of the trace has (EventPipe traces name none): said, exit 0
out=$("$GCSCOPE" stats --process abc "$TRACE" 2>&1) || fail "unknown process name: want exit 0"
[ "$out" = "No GC of a process named abc in this trace." ] || fail "unknown process name: got '$out'"
"$GCSCOPE" stats /nonexistent.nettrace >/dev/null 2>&1; [ $? -eq 2 ] || fail "missing file: want exit 2"

if ! "$GCSCOPE" info "$TRACE" >/dev/null 2>&1; then
    echo "skipped: stats_cli fixture checks (this build cannot read $TRACE yet)"
    exit 0
fi
out=$("$GCSCOPE" stats "$TRACE") || fail "table: exit $?"
echo "$out" | grep -q "^Process 15219 " || fail "table: no process header"
echo "$out" | grep -q "GCs                  71 complete, 0 incomplete" || fail "table: GC count"
echo "$out" | grep -q "^GC Rollup By Generation" || fail "table: no rollup"

rows=$("$GCSCOPE" stats --format csv "$TRACE" | wc -l)
[ "$rows" -eq 72 ] || fail "csv: want 72 lines (header + 71 GCs), got $rows"
"$GCSCOPE" stats --format csv "$TRACE" | head -1 | grep -q '^trace,pid,number,generation,type,reason,' || fail "csv header"
# '.' decimal separator whatever the locale says
LC_ALL=de_DE.UTF-8 "$GCSCOPE" stats --format csv "$TRACE" 2>/dev/null | sed -n 2p | grep -q ',160\.655506,' \
    || fail "csv: GC 1 pause start 160.655506 with '.'"

json=$("$GCSCOPE" stats --format json "$TRACE") || fail "json: exit $?"
n=$(echo "$json" | grep -c '{"number": ')
[ "$n" -eq 71 ] || fail "json: want 71 GCs, got $n"
echo "$json" | grep -q '"pid": 15219' || fail "json: pid"
echo "$json" | grep -q '{"number": 1, "generation": 0, "type": "NonConcurrentGC", "reason": "AllocSmall", "start_ms": 160.810520, "pause_start_ms": 160.655506, "pause_ms": 26.065079, ' \
    || fail "json: GC 1 as TraceEvent computes it"

# The runtime's Sku (RuntimeInformation) as the decoder gives it, and what
# the table adds to a version that says little: CoreCLR before .NET 5
# (net31-concurrent, .NET Core 3.1.3) reports 4.0.30319.0.
for t in net31-concurrent net8-server; do
    sku=$("$GCSCOPE" events --event Runtime/Start "tests/data/$t.nettrace" | head -1 | sed -n 's/.* Sku=\([A-Za-z]*\) .*/\1/p')
    [ -n "$sku" ] || fail "$t: no Runtime/Start Sku"
    "$GCSCOPE" stats --format json "tests/data/$t.nettrace" | grep -q "\"runtime_sku\": \"$sku\"" ||
        fail "$t: json runtime_sku is not $sku"
done
"$GCSCOPE" stats tests/data/net31-concurrent.nettrace |
    grep -q '^  Runtime version      4.0.30319.0 (.NET Core 3.1 or earlier' || fail "net31: version note"
"$GCSCOPE" stats tests/data/net8-server.nettrace | grep -q '^  Runtime version      8\.0\.[0-9.]*$' ||
    fail "net8-server: a version with no note"

# --process filters; an unknown pid gives an empty process list
"$GCSCOPE" stats --format json --process 15219 "$TRACE" | grep -q '"pid": 15219' || fail "--process 15219"
"$GCSCOPE" stats --format json --process 1 "$TRACE" 2>/dev/null | grep -q '"pid"' && fail "--process 1 must list nothing"
exit 0
