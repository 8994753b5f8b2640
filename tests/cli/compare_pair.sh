#!/bin/sh
# compare and check --baseline read their two traces at once when both are
# files (cli_gc_load_named_pair), and say what reading them one after the
# other says: a first trace that fails is the only one named; a second
# that fails after a good first is named; from standard input the second
# is read after the first; the results are those of a sequential read.
set -u
G=${GCSCOPE:-build/asan/gcscope}
A=tests/data/wks-concurrent.nettrace
B=tests/data/wks-nonconcurrent.nettrace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "compare_pair: $*"; exit 1; }
# Broken traces that begin as nettrace files (read in parallel, fail).
printf 'Nettrace\024\000\000\000but nothing more\n' > "$tmp/bad1"
printf 'Nettrace\024\000\000\000nor here\n' > "$tmp/bad2"

# Both bad: one line, the first's; exit 2.
"$G" compare "$tmp/bad1" "$tmp/bad2" > "$tmp/out" 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "bad, bad: exit $rc"
[ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "bad1" "$tmp/err" || fail "bad, bad: $(cat "$tmp/err")"
[ ! -s "$tmp/out" ] || fail "bad, bad: printed on stdout"
# Bad first, good second: the first named, nothing of the second.
"$G" compare "$tmp/bad1" "$A" > "$tmp/out" 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "bad1" "$tmp/err" ||
    fail "bad, good: exit $rc, $(cat "$tmp/err")"
# Good first, bad second: the second named.
"$G" compare "$A" "$tmp/bad2" > "$tmp/out" 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "bad2" "$tmp/err" ||
    fail "good, bad: exit $rc, $(cat "$tmp/err")"
# check --baseline: the checked trace first, then the baseline.
"$G" check --max-regression-pct 50 --baseline "$tmp/bad2" "$tmp/bad1" > "$tmp/out" 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "bad1" "$tmp/err" ||
    fail "check bad, bad: exit $rc, $(cat "$tmp/err")"

# Two files at once against the second from standard input (read after
# the first): the same metrics and verdicts (the labels name the file or -).
"$G" compare --format json "$A" "$B" > "$tmp/files.json" 2>&1 || fail "files: exit $?"
"$G" compare --format json "$A" - < "$B" > "$tmp/stdin.json" 2>&1 || fail "stdin: exit $?"
for f in files stdin; do
    grep -o '"metric": "[a-z0-9_]*", "base": [^,]*, "new": [^,]*' "$tmp/$f.json" > "$tmp/$f.m"
    grep -o '"verdict": "[a-z ]*"' "$tmp/$f.json" >> "$tmp/$f.m"
    grep -o '"ci_low": [^,]*, "ci_high": [^,}]*' "$tmp/$f.json" >> "$tmp/$f.m"
done
[ "$(wc -l < "$tmp/files.m")" -ge 36 ] || fail "files: $(wc -l < "$tmp/files.m") metric lines"
cmp -s "$tmp/files.m" "$tmp/stdin.m" || fail "files and stdin differ: $(diff "$tmp/files.m" "$tmp/stdin.m" | head -4)"
echo "compare_pair: ok"
