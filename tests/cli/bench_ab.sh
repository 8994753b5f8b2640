#!/bin/sh
# scripts/bench-ab.sh, the interleaved comparison the performance notes
# cite: one row per build and one for `cat`, each a best and a median in
# ms, the rounds asked for; the core and the command as given; usage on
# too few arguments.
GCSCOPE=${GCSCOPE:-build/gcscope}
fail() { echo "bench_ab: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$(sh scripts/bench-ab.sh -n 2 --cat tests/data/server.nettrace info "$GCSCOPE") ||
    fail "exit $?"
echo "$out" | head -1 | grep -q '^info on tests/data/server.nettrace, 2 rounds interleaved on core 0 (best, median):$' ||
    fail "header: $(echo "$out" | head -1)"
[ "$(echo "$out" | grep -c ' ms  *[0-9.]* ms$')" -eq 2 ] || fail "want a cat row and one row per name"
echo "$out" | grep -q '^  cat  *[0-9]*\.[0-9] ms  *[0-9]*\.[0-9] ms$' || fail "no cat row"
out=$(sh scripts/bench-ab.sh -n 1 -c 0 tests/data/server.nettrace "stats --format csv" "$GCSCOPE") ||
    fail "csv: exit $?"
echo "$out" | head -1 | grep -q '^stats --format csv on .*, 1 rounds interleaved on core 0' || fail "csv header"
[ "$(echo "$out" | grep -c ' ms  *[0-9.]* ms$')" -eq 1 ] || fail "csv: want one row, no cat"
if sh scripts/bench-ab.sh tests/data/server.nettrace info > "$tmp/usage" 2>&1; then
    fail "too few arguments must fail"
fi
grep -q 'bench-ab.sh \[-n ROUNDS\]' "$tmp/usage" || fail "usage not shown"
exit 0
