#!/bin/sh
# gcscope report / compare / check (docs/report.md):
#   - report on every fixture and ../shared trace with GCs: the HTML parses,
#     and its embedded data equals `stats --format json` (check_report_html.py);
#   - the golden report of wks-concurrent (tests/golden/wks-concurrent.report.html.gz);
#   - live --replay --report writes the same HTML as report;
#   - its Who allocates section lists the allocating methods of allocs;
#   - compare: two runs of one workload (tests/data/compare) show no
#     significant change in any pause metric; JSON and HTML formats;
#   - check: exit 0 within limits, 1 over (a line per violation), 2 on bad
#     input; JUnit XML of both.
set -u
G=${GCSCOPE:-build/asan/gcscope}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
fail() { echo "report_cli: $*"; bad=1; }

if ! command -v python3 > /dev/null 2>&1; then
    echo "skipped: report_cli: no python3 to parse the reports"
    exit 0
fi
n=0
for t in tests/data/*.nettrace tests/data/compare/*.nettrace ../shared/traces/perfview/*.nettrace \
         ../shared/traces/perfview/*.netperf ../shared/traces/perfview/*.etl; do
    [ -f "$t" ] || continue
    "$G" stats --format json "$t" > "$tmp/s.json" 2> /dev/null || continue
    grep -q "\"pid\":" "$tmp/s.json" || continue
    "$G" report "$t" -o "$tmp/r.html" 2> "$tmp/r.err" || { fail "report $t: exit $?: $(cat "$tmp/r.err")"; continue; }
    [ -s "$tmp/r.err" ] && fail "report $t: stderr: $(head -2 "$tmp/r.err")"
    python3 tests/tools/check_report_html.py "$tmp/r.html" "$tmp/s.json" || fail "report $t: data differs from stats"
    n=$((n + 1))
done
[ "$n" -ge 10 ] || fail "only $n traces with GCs reported"

# Golden report (deterministic: no time of the run).
(cd tests/data && "$OLDPWD/$G" report wks-concurrent.nettrace -o -) > "$tmp/golden.html" 2>/dev/null ||
    case $G in /*) (cd tests/data && "$G" report wks-concurrent.nettrace -o -) > "$tmp/golden.html" ;; esac
gzip -dc tests/golden/wks-concurrent.report.html.gz | cmp -s - "$tmp/golden.html" ||
    fail "wks-concurrent report differs from tests/golden/wks-concurrent.report.html.gz"
# --process, the default output file, and a trace with no GC.
(cd "$tmp" && "$OLDPWD/$G" report "$OLDPWD/tests/data/server.nettrace" --process 1 2> err; echo $? > rc) 2>/dev/null
[ "$(cat "$tmp/rc")" = 0 ] || fail "report --process 1: exit $(cat "$tmp/rc")"
grep -q "no GC of process 1" "$tmp/err" || fail "report --process 1: stderr $(cat "$tmp/err")"
[ -f "$tmp/report.html" ] || fail "report: no report.html by default"

# Who allocates: the allocating methods of `gcscope allocs`, in its order,
# and no section on a trace without AllocationTick events.
"$G" report tests/data/wks-concurrent.nettrace -o "$tmp/alloc.html" 2>/dev/null
"$G" allocs --format json tests/data/wks-concurrent.nettrace | python3 -c '
import html, json, re, sys
doc = json.load(sys.stdin)
page = open(sys.argv[1]).read()
sec = page[page.index("<section><h2>Who allocates</h2>"):]
sec = sec[:sec.index("</section>")]
rows = re.findall(r"<tr><td>([0-9.]+)</td><td>[0-9.]+</td><td>([0-9]+)</td><td>([^<]*)</td></tr>",
                  sec[:sec.index("</table>")])
want = [("%.3f" % (r["bytes"] / 1e6), str(r["samples"]), r["method"]) for r in doc["exclusive"][:15]]
got = [(b, n, html.unescape(m)) for b, n, m in rows]
sys.exit(0 if got == want and len(got) == min(15, len(doc["exclusive"])) else 1)
' "$tmp/alloc.html" || fail "report: Who allocates differs from allocs --format json"
"$G" report tests/data/gen0size-small.nettrace -o "$tmp/noalloc.html" 2>/dev/null
grep -q 'Who allocates' "$tmp/noalloc.html" && fail "report: a Who allocates section without samples"
"$G" report --no-allocs tests/data/wks-concurrent.nettrace -o "$tmp/na.html" 2>/dev/null
grep -q 'Who allocates' "$tmp/na.html" && fail "report --no-allocs: a Who allocates section"

# live --report: the same report at the end of a (replayed) session.
"$G" live --replay tests/data/wks-concurrent.nettrace --report "$tmp/live.html" > /dev/null 2>&1 || fail "live --report: exit $?"
"$G" report tests/data/wks-concurrent.nettrace -o "$tmp/rep.html" 2>/dev/null
cmp -s "$tmp/live.html" "$tmp/rep.html" || fail "live --report differs from report"
"$G" live --replay tests/data/wks-concurrent.nettrace --report "$tmp/no/such/dir/r.html" > /dev/null 2>&1; rc=$?
[ $rc = 2 ] || fail "live --report to a missing folder: exit $rc, want 2"

# compare: same workload twice -> no significant change in any pause metric.
"$G" compare tests/data/compare/run1.nettrace tests/data/compare/run2.nettrace > "$tmp/c.txt" || fail "compare: exit $?"
for m in mean_pause_ms p50_pause_ms p90_pause_ms p99_pause_ms max_pause_ms; do
    grep -E "^$m .*no significant change\$" "$tmp/c.txt" > /dev/null || fail "compare run1 run2: $m: $(grep "^$m " "$tmp/c.txt")"
done
# Very different GC settings -> the pauses improved (concurrent vs non-concurrent workstation).
"$G" compare tests/data/wks-concurrent.nettrace tests/data/wks-nonconcurrent.nettrace > "$tmp/c2.txt"
grep -E '^p50_pause_ms .* improved$' "$tmp/c2.txt" > /dev/null || fail "compare wks: p50 not improved: $(grep p50 "$tmp/c2.txt")"
"$G" compare --format json tests/data/compare/run1.nettrace tests/data/compare/run2.nettrace > "$tmp/c.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); m={r["metric"]: r for r in d["pairs"][0]["metrics"]}; assert m["p99_pause_ms"]["verdict"] == "no significant change"; assert len(m) == 12' "$tmp/c.json" ||
    fail "compare --format json"
"$G" compare --format html tests/data/compare/run1.nettrace tests/data/compare/run2.nettrace > "$tmp/c.html"
grep -q '<td>p99_pause_ms</td>' "$tmp/c.html" || fail "compare --format html: no p99 row"
"$G" compare --format xml a b > /dev/null 2>&1; [ $? = 1 ] || fail "compare --format xml: not a usage error"

# check: pass, fail, bad input; JUnit.
W=tests/data/wks-concurrent.nettrace
"$G" check "$W" --max-pause-ms 1000 --max-gen2 100 --junit "$tmp/pass.xml" > "$tmp/k.out"; rc=$?
[ $rc = 0 ] || fail "check within limits: exit $rc"
grep -q ': pass (1 runtime, 2 checks)' "$tmp/k.out" || fail "check pass line: $(cat "$tmp/k.out")"
grep -q 'tests="2" failures="0"' "$tmp/pass.xml" || fail "JUnit pass: $(cat "$tmp/pass.xml")"
"$G" check "$W" --max-pause-ms 100 --max-p99-pause-ms 100 --max-gc-pct 10 --max-gen2 5 --junit "$tmp/fail.xml" > "$tmp/k.out"; rc=$?
[ $rc = 1 ] || fail "check over limits: exit $rc"
[ "$(wc -l < "$tmp/k.out")" = 4 ] || fail "check: want 4 violation lines: $(cat "$tmp/k.out")"
grep -q 'max pause 312.423 ms is over --max-pause-ms 100' "$tmp/k.out" || fail "check max pause line: $(cat "$tmp/k.out")"
grep -q '18 gen2 GCs is over --max-gen2 5' "$tmp/k.out" || fail "check gen2 line"
grep -q 'tests="4" failures="4"' "$tmp/fail.xml" || fail "JUnit fail: $(head -3 "$tmp/fail.xml")"
[ "$(grep -c '<failure message=' "$tmp/fail.xml")" = 4 ] || fail "JUnit: want 4 failures"
python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1]); m.parse(sys.argv[2])' "$tmp/pass.xml" "$tmp/fail.xml" || fail "JUnit XML does not parse"
"$G" check "$tmp/missing.nettrace" --max-pause-ms 1 > "$tmp/k.out" 2>&1; rc=$?
[ $rc = 2 ] || fail "check on a missing trace: exit $rc, want 2"
head -c 1000 "$W" > "$tmp/cut.nettrace"
"$G" check "$tmp/cut.nettrace" --max-pause-ms 1 > /dev/null 2>&1; rc=$?
[ $rc = 2 ] || fail "check on a cut trace: exit $rc, want 2"
"$G" check "$W" > /dev/null 2>&1; [ $? = 1 ] || fail "check without limits: not a usage error"
"$G" check "$W" --max-regression-pct 10 > /dev/null 2>&1; [ $? = 1 ] || fail "check --max-regression-pct without --baseline: not a usage error"
# Against a baseline: the same workload passes a 10 % regression limit.
"$G" check tests/data/compare/run2.nettrace --baseline tests/data/compare/run1.nettrace --max-regression-pct 10 > "$tmp/k.out"; rc=$?
[ $rc = 0 ] || fail "check run2 vs run1: exit $rc: $(cat "$tmp/k.out")"
# A much worse run fails it (non-concurrent's baseline, concurrent's pauses).
"$G" check tests/data/wks-concurrent.nettrace --baseline tests/data/wks-nonconcurrent.nettrace --max-regression-pct 10 > "$tmp/k.out"; rc=$?
[ $rc = 1 ] || fail "check concurrent vs non-concurrent: exit $rc"
grep -q 'p99_pause_ms regressed' "$tmp/k.out" || fail "check regression line: $(cat "$tmp/k.out")"

[ $bad = 0 ] && echo "report_cli: ok ($n reports checked against stats)"
exit $bad
