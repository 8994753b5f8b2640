#!/bin/sh
# `gcscope allocs` on the fixtures (docs/allocs.md):
#   - the table's first lines, its three lists, its heaviest call stacks and
#     the rows --limit leaves out;
#   - JSON: the exclusive list adds up to every sample and byte, each
#     inclusive row holds at most every sample, the lists sorted by bytes;
#   - CSV: a header and six cells a row (quoted where a name has a comma),
#     the same rows as JSON;
#   - --wide prints the names the table cuts; two runs print the same bytes;
#   - the notes: no AllocationTick events, samples without stacks (NativeAOT);
#   - --from-ms/--to-ms windows split the samples; --baseline compares two runs;
#   - --process with a pid that has no event says so on stderr (exit 0);
#     --process NAME on an ETL trace of several processes.
# The numbers themselves are TraceEvent's: test_allocs compares them.
set -u
G=${GCSCOPE:-build/asan/gcscope}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: allocs_cli: $*"; status=1; }
# the first "KEY":N of a JSON document (the summary's, before the lists)
json_num() { awk -v k="\"$1\":" '{ i = index($0, k); print substr($0, i + length(k)) + 0; exit }' "$2"; }

t=tests/data/cpu-sampled.nettrace
"$G" allocs "$t" > "$tmp/table" || fail "allocs failed"
head -1 "$tmp/table" | grep -qx 'Allocations by call stack: 6173 AllocationTick samples, 660.974 MB' ||
    fail "first line: $(head -1 "$tmp/table")"
grep -q '^Stacks: 6173 of 6173 samples have one (22 distinct); 14511 of 14511 frames (100.0 %) are in one of the 1149 methods' "$tmp/table" ||
    fail "stacks line: $(grep '^Stacks' "$tmp/table")"
[ "$(grep -c '^          MB      %  Samples  ' "$tmp/table")" -eq 3 ] || fail "not three lists"
grep -q '^     491.074  74.3%     4606  GcLoad.Program+<>c__DisplayClass37_1.<Service>b__0()$' "$tmp/table" ||
    fail "top allocating method missing"
grep -q '^  (20 more rows: --limit N or --format json)$' "$tmp/table" || fail "inclusive rows left out not said"
# the heaviest stack: the lambda that allocates, called by the thread's start
awk '/^Allocating call stacks/ { on = 1; next } on && n < 4 { print; n++ }' "$tmp/table" > "$tmp/stack1"
printf '%s\n' '          MB      %  Samples' '     491.074  74.3%     4606' \
    '      at GcLoad.Program+<>c__DisplayClass37_1.<Service>b__0()' \
    '      at System.Threading.Thread.StartCallback()' | cmp -s - "$tmp/stack1" ||
    fail "the heaviest call stack: $(cat "$tmp/stack1")"
grep -q '^  ([0-9]* more stacks: --limit N or --format json)$' "$tmp/table" || fail "stacks left out not said"
grep -q '^      \.\.\. 3 more frames (--wide: all)$' "$tmp/table" || fail "a deep stack not cut at 12 frames"
"$G" allocs "$t" | cmp -s - "$tmp/table" || fail "two runs differ"
"$G" allocs --limit 2 "$t" > "$tmp/limit2"
[ "$(grep -c 'more rows: --limit N' "$tmp/limit2")" -eq 3 ] || fail "--limit 2: every list should say what it left out"
grep -q '\.\.\.$' "$tmp/table" || fail "no long name cut in the table"
"$G" allocs --wide "$t" > "$tmp/wide"
grep -q '\.\.\.$' "$tmp/wide" && fail "--wide still cuts names"
grep -q 'System.Diagnostics.Tracing.EventPipeMetadataGenerator.GenerateMetadata(int32,class System.String,int64,unsigned int32,unsigned int32,value class System.Diagnostics.Tracing.EventOpcode,value class System.Diagnostics.Tracing.EventParameterInfo\[\])$' "$tmp/wide" ||
    fail "--wide: a full name missing"

"$G" allocs --format json "$t" > "$tmp/json" || fail "json failed"
"$G" allocs --format csv "$t" > "$tmp/csv" || fail "csv failed"
LC_ALL=C awk '
    function num(key, s,   i) { i = index(s, "\"" key "\":"); return substr(s, i + length(key) + 3) + 0 }
    {
        samples = num("samples", $0); bytes = num("bytes", $0)
        # the lists, each between its key and its _left_out
        # every sample with a stack in exactly one call stack
        at = index($0, "\"stacks\":["); body = substr($0, at)
        m = split(body, rs, /"samples":/); st = 0
        for (j = 2; j <= m; j++) st += rs[j] + 0
        if (st != num("samples_with_stack", $0)) { print "stacks: " st " samples, want " num("samples_with_stack", $0); bad = 1 }
        for (k = 1; k <= 3; k++) {
            key = (k == 1 ? "exclusive" : k == 2 ? "inclusive" : "by_type")
            at = index($0, "\"" key "\":["); end = index($0, "\"" key "_left_out\"")
            body = substr($0, at, end - at)
            m = split(body, rs, /"bytes":/)
            sb = 0; ss = 0; prev = -1
            for (j = 2; j <= m; j++) {
                b = rs[j] + 0; s = rs[j]; sub(/^[0-9]+,"samples":/, "", s); s += 0
                sb += b; ss += s
                if (prev >= 0 && b > prev) { print key " not sorted by bytes"; bad = 1 }
                prev = b
                if (key == "inclusive" && s > samples) { print "inclusive row above every sample"; bad = 1 }
            }
            if (key != "inclusive" && (sb != bytes || ss != samples)) {
                print key ": " sb " bytes " ss " samples, want " bytes " " samples; bad = 1
            }
            rows_of[key] = m - 1
        }
        print rows_of["exclusive"], rows_of["inclusive"], rows_of["by_type"] > "/dev/stderr"
        exit bad
    }' "$tmp/json" 2> "$tmp/json.rows" || fail "json: $(cat "$tmp/json.rows")"
# GC triggers: as many as the trace's GC/Triggered events, each in one row
trig=$("$G" info "$t" | awk '$2 == "Microsoft-Windows-DotNETRuntime/GC/Triggered" { print $1 }')
[ "$(json_num gc_triggers "$tmp/json")" -eq "$trig" ] || fail "gc_triggers $(json_num gc_triggers "$tmp/json"), info counts $trig"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if sum(t["gcs"] for t in d["gc_trigger_stacks"]) == d["gc_triggers"] and
         all(t["frames"] and t["reason"] for t in d["gc_trigger_stacks"]) else 1)' "$tmp/json" ||
    fail "gc_trigger_stacks do not add up to gc_triggers"
grep -q "^GCs by what triggered them ($trig GCTriggered events, $trig with a stack" "$tmp/table" ||
    fail "the table's GC triggers header"
head -1 "$tmp/csv" | grep -qx 'trace,view,type,method,bytes,samples' || fail "csv header"
# cells outside quotes: every row six
LC_ALL=C awk -F'"' 'NR > 1 { s = ""; for (i = 1; i <= NF; i += 2) s = s $i; n = gsub(/,/, ",", s); if (n != 5) { print "row " NR ": " n + 1 " cells"; bad = 1 } } END { exit bad }' "$tmp/csv" ||
    fail "csv cells"
read ex inc bt < "$tmp/json.rows"
for view in exclusive:$ex inclusive:$inc by_type:$bt; do
    v=${view%%:*}; n=${view#*:}
    got=$(grep -c "^cpu-sampled.nettrace,$v," "$tmp/csv")
    [ "$got" -eq "$n" ] || fail "csv $v rows $got, json $n"
done

# --from-ms/--to-ms: two windows that meet split the samples and bytes
"$G" allocs --format json --to-ms 400 "$t" > "$tmp/early"
"$G" allocs --format json --from-ms 400 "$t" > "$tmp/late"
for key in samples bytes samples_with_stack; do
    sum=$(( $(json_num $key "$tmp/early") + $(json_num $key "$tmp/late") ))
    [ "$sum" -eq "$(json_num $key "$tmp/json")" ] || fail "--to-ms/--from-ms 400: $key adds to $sum"
done
[ "$(json_num samples "$tmp/early")" -gt 0 ] && [ "$(json_num samples "$tmp/late")" -gt 0 ] ||
    fail "a window at 400 ms should leave samples on both sides"
[ "$(json_num outside_range "$tmp/early")" -eq "$(json_num samples "$tmp/late")" ] ||
    fail "outside_range is not the other window's samples"
"$G" allocs --from-ms 5 --to-ms 5 "$t" > /dev/null 2>&1; rc=$?
[ "$rc" -eq 1 ] || fail "--from-ms 5 --to-ms 5: exit $rc, want 1"
"$G" allocs --from-ms 99999 "$t" | grep -q '^note: no AllocationTick sample in the time range$' ||
    fail "an empty window is not said"

"$G" allocs tests/data/gen0size-small.nettrace > "$tmp/noticks" || fail "no-ticks trace failed"
grep -q '^note: no AllocationTick events: record the runtime provider' "$tmp/noticks" || fail "no-ticks note"
"$G" allocs tests/data/net10-aot.nettrace > "$tmp/aot" || fail "aot trace failed"
grep -q '^note: the samples carry no stack' "$tmp/aot" || fail "no-stack note"
grep -q '  (no stack)$' "$tmp/aot" || fail "no (no stack) row"

"$G" allocs --process 1 "$t" > "$tmp/p.out" 2> "$tmp/p.err"; rc=$?
[ "$rc" -eq 0 ] || fail "--process 1: exit $rc"
grep -q 'no event of a process 1 in this trace' "$tmp/p.err" || fail "--process 1: stderr $(cat "$tmp/p.err")"
pid=$("$G" info --format json "$t" | sed -n 's/.*"pid": *\([0-9][0-9]*\).*/\1/p')
"$G" allocs --process "$pid" "$t" | cmp -s - "$tmp/table" || fail "--process $pid (the trace's) changes the table"

# --baseline: a trace against itself differs nowhere and lists every
# allocating method; two runs' methods add up to each run's bytes, the
# largest difference first; a missing baseline is an input error (exit 2).
"$G" allocs --baseline "$t" --format csv "$t" > "$tmp/self.csv" || fail "--baseline itself failed"
awk -F, 'NR > 1 { n++; if ($(NF-3) != $(NF-1) || $(NF-2) != $NF) bad = 1 } END { print n; exit bad }' \
    "$tmp/self.csv" > "$tmp/self.n" || fail "--baseline itself: a row differs"
[ "$(cat "$tmp/self.n")" -eq "$ex" ] || fail "--baseline itself: $(cat "$tmp/self.n") rows, $ex methods"
"$G" allocs --baseline tests/data/wks-nonconcurrent.nettrace --format json tests/data/wks-concurrent.nettrace |
    python3 -c '
import json, sys
d = json.load(sys.stdin)
m = d["methods"]
deltas = [abs(r["bytes"] - r["base_bytes"]) for r in m]
ok = (sum(r["bytes"] for r in m) == d["bytes"] and sum(r["base_bytes"] for r in m) == d["base_bytes"]
      and deltas == sorted(deltas, reverse=True) and d["methods_left_out"] == 0 and d["samples"] > 0)
sys.exit(0 if ok else 1)' || fail "--baseline: the methods do not add up or are not ordered"
"$G" allocs --baseline /nonexistent.nettrace "$t" > /dev/null 2>&1; rc=$?
[ "$rc" -eq 2 ] || fail "--baseline of a missing file: exit $rc, want 2"

# An ETL trace from ../shared (.NET Framework 4.5.2, a 32-bit process): the
# stacks come as ClrStackWalk events after the ticks.
etl=../shared/traces/perfview/net.4.5.2.x86.etl.zip
if [ -f "$etl" ]; then
    "$G" allocs "$etl" > "$tmp/etl" || fail "etl: allocs failed"
    grep -q '^Stacks: 3196 of 3196 samples have one' "$tmp/etl" || fail "etl: $(grep '^Stacks' "$tmp/etl")"
    grep -q '^     248.091  72.7%     2323  System.TimeZoneInfo.GetDaylightTime(int32,class AdjustmentRule)$' "$tmp/etl" ||
        fail "etl: top allocating method"
    # --process NAME (the kernel's image name): the test program's 3190
    # samples and PerfView's own 6, which make the 3196
    "$G" allocs --process Test.x86 "$etl" > "$tmp/test" || fail "etl: --process Test.x86 failed"
    head -1 "$tmp/test" | grep -qx 'Allocations by call stack: 3190 AllocationTick samples, 340.681 MB' ||
        fail "etl: --process Test.x86: $(head -1 "$tmp/test")"
    "$G" allocs --process PerfView "$etl" > "$tmp/pv" || fail "etl: --process PerfView failed"
    head -1 "$tmp/pv" | grep -qx 'Allocations by call stack: 6 AllocationTick samples, 0.660 MB' ||
        fail "etl: --process PerfView: $(head -1 "$tmp/pv")"
else
    echo "skipped: allocs_cli on an ETL trace (../shared absent)"
fi

[ $status -eq 0 ] && echo "allocs_cli: ok ($ex exclusive, $inc inclusive, $bt by-type rows)"
exit $status
