#!/bin/sh
# The every-event comparison scripts/check-oracle.sh --events makes on any
# trace (test_te_agreement given TRACE ORACLE-ALL pairs): a fixture against
# its own `oracle dump --all` is the same, against another fixture's or a
# missing one it fails.
BUILD=${BUILD:-build}
EVERY="$BUILD/asan/tests/test_te_agreement"
fail() { echo "events_oracle: $*"; exit 1; }
[ -x "$EVERY" ] || { echo "skipped: events_oracle ($EVERY not built)"; exit 0; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
A=tests/data/probe-net10
B=tests/data/gen0size-small
"$EVERY" "$A.nettrace" "$A.oracle-all.txt" > "$TMP/out" 2>&1 ||
    fail "probe-net10 against its own dump: $(tail -n 5 "$TMP/out")"
grep -q "^same $A.nettrace" "$TMP/out" || fail "no 'same' line: $(cat "$TMP/out")"
grep -q "1178 events compared" "$TMP/out" || fail "not every event compared: $(cat "$TMP/out")"
"$EVERY" "$A.nettrace" "$B.oracle-all.txt" > "$TMP/out" 2>&1 &&
    fail "probe-net10 against gen0size-small's dump passed"
grep -q "^FAIL $A.nettrace" "$TMP/out" || fail "no FAIL line: $(tail -n 5 "$TMP/out")"
"$EVERY" "$A.nettrace" "$TMP/no-such-dump.txt" > "$TMP/out" 2>&1 &&
    fail "a missing dump passed"
grep -q "^FAIL $A.nettrace" "$TMP/out" || fail "a missing dump: no FAIL line: $(cat "$TMP/out")"
"$EVERY" "$A.nettrace" > /dev/null 2>&1; [ $? -eq 2 ] || fail "an odd argument count: want exit 2"
echo "events_oracle: ok"
