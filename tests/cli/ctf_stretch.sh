#!/bin/sh
# tests/tools/ctf_stretch (the bench's CTF shape maker) on the user-space
# trace of clr-only.trace.zip, two copies: the shift is the smallest
# multiple of 2^32 cycles above the trace's span; `gcscope events --format
# json` of the result is exactly the original's events, then the original's
# events again with msec moved by the shift (ns -> ms); the trace's 64-bit
# event timestamps (extended headers) were among the fields rewritten; and
# babeltrace2's reader (GCSCOPE_CTF_READER=babeltrace) reads the stretched
# trace as ours does (packet sequence numbers without a gap, no warning).
set -u
BUILD=${BUILD:-build}
G=${GCSCOPE:-$BUILD/asan/gcscope}
STRETCH="$BUILD/asan/tools/ctf_stretch"
ZIP=../shared/traces/ctf/clr-only.trace.zip
[ -f "$ZIP" ] || { echo "skipped: $ZIP not present"; exit 0; }
[ -x "$STRETCH" ] || { echo "FAIL: $STRETCH not built"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "ctf_stretch: $*"; exit 1; }
(cd "$tmp" && unzip -q "$OLDPWD/$ZIP") || fail "unzip"
ust=$(ls -d "$tmp"/clr-only.trace/lttngTrace/auto-*/ust/uid/*/64-bit)
[ -f "$ust/metadata" ] || fail "no UST trace folder in $ZIP"

line=$("$STRETCH" --copies 2 "$ust" "$tmp/s2" 2> "$tmp/err") || fail "tool: $(cat "$tmp/err")"
field() { printf '%s\n' "$line" | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }
shift_cycles=$(field shift); span=$(field span)
awk -v d="$shift_cycles" -v s="$span" 'BEGIN { q = 4294967296
    exit !(d % q == 0 && d > s && d - q <= s) }' || fail "shift $shift_cycles is not the smallest multiple of 2^32 above the span $span"
[ "$(field event-clocks)" -gt 0 ] || fail "no 64-bit event timestamp rewritten: the test misses extended headers ($line)"

"$G" events --format json "$ust" > "$tmp/orig.json" || fail "events on the original"
"$G" events --format json "$tmp/s2" > "$tmp/s2.json" 2> "$tmp/err" || fail "events on the stretched trace: $(cat "$tmp/err")"
n=$(wc -l < "$tmp/orig.json")
[ "$n" -gt 30000 ] || fail "only $n events in the original"
# The second copy: msec + shift / 1e6 (the clock counts ns), in integers.
awk -v d="$shift_cycles" '{
    if (!match($0, /^\{"msec":[0-9]+\.[0-9][0-9][0-9][0-9][0-9][0-9],/)) { print "no msec: " $0; exit 1 }
    split(substr($0, 9, RLENGTH - 9), p, ".")
    ns = p[1] * 1000000 + p[2] + d
    printf "{\"msec\":%d.%06d,%s\n", int(ns / 1000000), ns % 1000000, substr($0, RLENGTH + 1) }' \
    "$tmp/orig.json" > "$tmp/shifted.json" || fail "$(head -1 "$tmp/shifted.json")"
cat "$tmp/orig.json" "$tmp/shifted.json" > "$tmp/want.json"
if ! cmp -s "$tmp/want.json" "$tmp/s2.json"; then
    diff "$tmp/want.json" "$tmp/s2.json" | head -6
    fail "the stretched trace's events are not the original's twice, shifted by $shift_cycles"
fi

GCSCOPE_CTF_READER=babeltrace "$G" events --format json "$tmp/s2" > "$tmp/bt.json" 2> "$tmp/err" ||
    fail "babeltrace2 path: $(cat "$tmp/err")"
[ ! -s "$tmp/err" ] || fail "babeltrace2 path wrote: $(head -3 "$tmp/err")"
cmp -s "$tmp/bt.json" "$tmp/s2.json" || fail "babeltrace2 reads the stretched trace otherwise than ours"
"$G" info "$tmp/s2" | grep -q "^lost events: *0$" || fail "the stretched trace has lost events"
echo "ok: $n events, twice ($line), as babeltrace2 reads them"
