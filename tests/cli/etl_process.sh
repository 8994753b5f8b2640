#!/bin/sh
# Processes named from the Windows kernel's Process events of an ETL file
# (net.4.5.2.x86.etl, a PerfView collection: 35 processes at the rundown,
# Test.x86.exe started during the trace): `stats` shows the name and the
# command line in the header and JSON, and `--process` selects by id or by
# name (any case, with or without .exe) in stats and objects; a name no
# process has says so, exit 0. The .zip is unzipped to a temporary file
# (reading .etl.zip directly is another step of issue 10).
GCSCOPE=${GCSCOPE:-build/gcscope}
ZIP=../shared/traces/perfview/net.4.5.2.x86.etl.zip
fail() { echo "etl_process: $*"; exit 1; }
[ -f "$ZIP" ] || { echo "etl_process: skipped: ../shared absent"; exit 0; }
command -v unzip >/dev/null 2>&1 || { echo "etl_process: skipped: unzip absent"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
TRACE=$tmp/net.4.5.2.x86.etl
unzip -p "$ZIP" net.4.5.2.x86.etl > "$TRACE" || fail "unzip"

"$GCSCOPE" stats "$TRACE" > "$tmp/all.txt" || fail "stats exit $?"
head -2 "$tmp/all.txt" > "$tmp/head.txt"
printf 'Process 3644 Test.x86 (ClrInstanceID 11) in net.4.5.2.x86.etl\n  Command line         Test.x86.exe\n' > "$tmp/want.txt"
cmp -s "$tmp/head.txt" "$tmp/want.txt" || { cat "$tmp/head.txt"; fail "header: want the kernel's name and command line"; }
for spec in 3644 Test.x86 test.x86 TEST.X86.EXE; do
    "$GCSCOPE" stats --process "$spec" "$TRACE" > "$tmp/one.txt" || fail "--process $spec: exit $?"
    cmp -s "$tmp/one.txt" "$tmp/all.txt" || fail "--process $spec: not the report of process 3644"
done
"$GCSCOPE" stats --format json --process Test.x86 "$TRACE" | grep -q '"process_name": "Test.x86"' ||
    fail "JSON: no process_name"
out=$("$GCSCOPE" stats --process smss "$TRACE" 2>&1) || fail "--process smss: want exit 0"
[ "$out" = "No GC of a process named smss in this trace." ] || fail "--process smss (no runtime): got '$out'"
err=$("$GCSCOPE" stats --format csv --process nosuch "$TRACE" 2>&1 >/dev/null) || fail "csv nosuch: exit"
[ "$err" = "gcscope stats: net.4.5.2.x86.etl: no GC of a process named nosuch in this trace." ] ||
    fail "csv nosuch: got '$err'"

# PerfView itself (pid 3988, .NET 4) sampled allocations too: 8 types in
# all, 2 of Test.x86 (3,190 of the 3,196 samples without size are its).
"$GCSCOPE" objects "$TRACE" > "$tmp/objects-all.txt" || fail "objects exit $?"
"$GCSCOPE" objects --process 3644 "$TRACE" > "$tmp/objects-pid.txt" || fail "objects --process 3644 exit $?"
"$GCSCOPE" objects --process test.x86.exe "$TRACE" > "$tmp/objects-one.txt" || fail "objects --process exit $?"
# Two .NET processes (Test.x86 and PerfView itself): followed apart (an
# address means a different object in each), one report each, pid order.
[ "$(grep '^Process ' "$tmp/objects-all.txt" | tr '\n' ';')" = "Process 3644 Test.x86;Process 3988 PerfView;" ] ||
    fail "objects: want the reports of 3644 Test.x86 then 3988 PerfView: $(grep '^Process ' "$tmp/objects-all.txt")"
sed -n 2p "$tmp/objects-all.txt" | grep -q "^Objects by type (2 types;" || fail "objects: want 2 types in Test.x86"
grep -q "^Objects by type (6 types;" "$tmp/objects-all.txt" || fail "objects: want 6 types in PerfView"
"$GCSCOPE" objects --format json "$TRACE" | python3 -c '
import json, sys
d = json.load(sys.stdin)
got = [(p["pid"], p["process_name"]) for p in d["processes"]]
assert got == [(3644, "Test.x86"), (3988, "PerfView")], got' || fail "objects JSON: processes"
"$GCSCOPE" objects --format csv "$TRACE" > "$tmp/objects.csv" || fail "objects csv exit $?"
[ "$(grep -c '^trace,' "$tmp/objects.csv")" = 1 ] || fail "objects CSV: want one header"
grep -q '^"net.4.5.2.x86.etl (pid 3644)","' "$tmp/objects.csv" || fail "objects CSV: no pid 3644 rows"
grep -q '^"net.4.5.2.x86.etl (pid 3988)","' "$tmp/objects.csv" || fail "objects CSV: no pid 3988 rows"
# One process selected: its report alone, exactly Test.x86's whole part of
# the report of both (the lines between its heading and the blank line
# before the next heading).
awk '/^Process 3988 /{ exit } NR > 1 { print }' "$tmp/objects-all.txt" | sed '$d' > "$tmp/first.txt"
cmp -s "$tmp/objects-pid.txt" "$tmp/first.txt" ||
    fail "objects: Test.x86's part differs from objects --process 3644"
head -1 "$tmp/objects-one.txt" | grep -q "^Objects by type (2 types;" || fail "objects --process: want 2 types"
grep -q "note: 3190 samples without an object size" "$tmp/objects-one.txt" || fail "objects --process: samples"
cmp -s "$tmp/objects-pid.txt" "$tmp/objects-one.txt" || fail "objects: --process 3644 and test.x86.exe differ"
err=$("$GCSCOPE" objects --process nosuch "$TRACE" 2>&1 >/dev/null) || fail "objects nosuch: exit"
[ "$err" = "gcscope objects: net.4.5.2.x86.etl: no event of a process nosuch in this trace." ] ||
    fail "objects nosuch: got '$err'"
echo "etl_process: ok"
