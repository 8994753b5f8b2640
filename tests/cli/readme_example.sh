#!/bin/sh
# The example output of README.md's "Use" section (the ```console block
# after "<!-- example: tests/cli/readme_example.sh -->") is what the
# command it shows prints today: its "$ build/gcscope ..." line (continued
# by trailing backslashes) is run, every output line cut at 80 columns
# (trailing blanks dropped), and each run of lines between "..." lines must
# appear in that output, in order, lines following each other. No line of
# the block is wider than 80 columns.
GCSCOPE=${GCSCOPE:-build/gcscope}
fail() { echo "readme_example: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

awk '/^<!-- example: tests\/cli\/readme_example.sh -->$/ { mark = 1; next }
     mark == 1 && /^```console$/ { mark = 2; next }
     mark == 2 && /^```$/ { exit }
     mark == 2 { print }' README.md >"$tmp/block"
[ "$(wc -l <"$tmp/block")" -ge 20 ] || fail "README.md: no example block (or under 20 lines)"
awk 'length($0) > 80 { print NR ": " length($0) " columns"; bad = 1 } END { exit bad }' "$tmp/block" ||
    fail "README.md example: lines wider than 80 columns"
# The command: "$ " line and its continuations.
awk 'NR == 1 && !/^\$ build\/gcscope / { exit 1 }
     { line = $0; cont = sub(/ *\\$/, "", line); sub(/^\$ /, "", line); sub(/^ +/, "", line)
       printf "%s%s", line, cont ? " " : "\n"; if (!cont) exit }' "$tmp/block" >"$tmp/cmd" ||
    fail "README.md example does not start with \$ build/gcscope"
awk 'body { print } !/\\$/ && !body { body = 1 }' "$tmp/block" >"$tmp/excerpt"
cmd=$(sed "s|^build/gcscope|$GCSCOPE|" "$tmp/cmd")
# shellcheck disable=SC2086
$cmd >"$tmp/out" || fail "README.md example: '$(cat "$tmp/cmd")' exits $?"
cut -c1-80 "$tmp/out" | sed 's/ *$//' >"$tmp/cut"
awk 'NR == FNR { out[++n] = $0; next }
     function flush(   i, k, found) {
         if (m == 0) return
         for (i = pos + 1; i + m - 1 <= n; i++) {
             found = 1
             for (k = 1; k <= m; k++) if (out[i + k - 1] != want[k]) { found = 0; break }
             if (found) { pos = i + m - 1; m = 0; chunks++; return }
         }
         printf "this run of lines is not in the output (after line %d):\n", pos
         for (k = 1; k <= m; k++) print "  " want[k]
         failed = 1
         exit 1
     }
     $0 == "..." { flush(); next }
     { sub(/ *$/, ""); want[++m] = $0 }
     END { if (failed) exit 1; flush(); if (chunks < 2) { print "fewer than 2 runs of lines"; exit 1 } }' \
    "$tmp/cut" "$tmp/excerpt" || fail "README.md example differs from what '$(cat "$tmp/cmd")' prints"
echo "ok ($(wc -l <"$tmp/excerpt") lines of $(cat "$tmp/cmd"))"
