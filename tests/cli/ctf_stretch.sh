#!/bin/sh
# tests/tools/ctf_stretch (the bench's CTF shape maker) on the user-space
# traces of the shared clr-only.trace.zip (2 copies; 10 of its 32,762
# events have an extended header) and netcoreapp31.trace.zip (3 copies;
# 62 of its 66 events do): the shift is the smallest multiple of 2^32
# cycles above the trace's span; `gcscope events --format json` of the
# result is exactly the original's events, then the original's events
# again with msec moved by the shift (ns -> ms), then again by twice the
# shift; the 64-bit event timestamps (extended headers) were among the
# fields rewritten; and babeltrace2's reader (GCSCOPE_CTF_READER=babeltrace)
# reads the stretched trace as ours does, and its CLI without a warning
# (packet sequence numbers run on without a gap).
set -u
BUILD=${BUILD:-build}
G=${GCSCOPE:-$BUILD/asan/gcscope}
STRETCH="$BUILD/asan/tools/ctf_stretch"
[ -x "$STRETCH" ] || { echo "FAIL: $STRETCH not built"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "ctf_stretch: $*"; exit 1; }

# check ZIP COPIES MIN_EVENTS
check() {
    zip=$1 copies=$2 min=$3
    rm -rf "$tmp/x" "$tmp/s"
    mkdir "$tmp/x"
    (cd "$tmp/x" && unzip -q "$OLDPWD/$zip") || fail "unzip $zip"
    ust=$(ls -d "$tmp"/x/*/*/ust/uid/*/64-bit "$tmp"/x/*/lttngTrace/auto-*/ust/uid/*/64-bit 2>/dev/null | head -n 1)
    [ -n "$ust" ] && [ -f "$ust/metadata" ] || fail "no UST trace folder in $zip"
    line=$("$STRETCH" --copies "$copies" "$ust" "$tmp/s" 2> "$tmp/err") || fail "tool: $(cat "$tmp/err")"
    field() { printf '%s\n' "$line" | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }
    shift_cycles=$(field shift); span=$(field span)
    awk -v d="$shift_cycles" -v s="$span" 'BEGIN { q = 4294967296
        exit !(d % q == 0 && d > s && d - q <= s) }' || fail "$zip: shift $shift_cycles is not the smallest multiple of 2^32 above the span $span"
    [ "$(field event-clocks)" -gt 0 ] || fail "$zip: no 64-bit event timestamp rewritten: the test misses extended headers ($line)"

    "$G" events --format json "$ust" > "$tmp/orig.json" || fail "$zip: events on the original"
    "$G" events --format json "$tmp/s" > "$tmp/s.json" 2> "$tmp/err" || fail "$zip: events on the stretched trace: $(cat "$tmp/err")"
    n=$(wc -l < "$tmp/orig.json")
    [ "$n" -ge "$min" ] || fail "$zip: only $n events in the original"
    # Copy k: msec + k * shift / 1e6 (the clock counts ns), in integers.
    k=0
    : > "$tmp/want.json"
    while [ $k -lt "$copies" ]; do
        awk -v d="$((k * shift_cycles))" '{
            if (!match($0, /^\{"msec":[0-9]+\.[0-9][0-9][0-9][0-9][0-9][0-9],/)) { print "no msec: " $0; exit 1 }
            split(substr($0, 9, RLENGTH - 9), p, ".")
            ns = p[1] * 1000000 + p[2] + d
            printf "{\"msec\":%d.%06d,%s\n", int(ns / 1000000), ns % 1000000, substr($0, RLENGTH + 1) }' \
            "$tmp/orig.json" >> "$tmp/want.json" || fail "$(tail -n 1 "$tmp/want.json")"
        k=$((k + 1))
    done
    if ! cmp -s "$tmp/want.json" "$tmp/s.json"; then
        diff "$tmp/want.json" "$tmp/s.json" | head -6
        fail "$zip: the stretched trace's events are not the original's $copies times, shifted by $shift_cycles"
    fi

    GCSCOPE_CTF_READER=babeltrace "$G" events --format json "$tmp/s" > "$tmp/bt.json" 2> "$tmp/err" ||
        fail "$zip: babeltrace2 path: $(cat "$tmp/err")"
    [ ! -s "$tmp/err" ] || fail "$zip: babeltrace2 path wrote: $(head -3 "$tmp/err")"
    cmp -s "$tmp/bt.json" "$tmp/s.json" || fail "$zip: babeltrace2 reads the stretched trace otherwise than ours"
    "$G" info "$tmp/s" | grep -q "^lost events: *0$" || fail "$zip: the stretched trace has lost events"
    # babeltrace2's own CLI warns of packets discarded where packet_seq_num
    # jumps (back, at each copy, were it not renumbered).
    if command -v babeltrace2 > /dev/null; then
        babeltrace2 "$tmp/s" > "$tmp/bt.txt" 2>&1 || fail "$zip: babeltrace2: $(tail -n 3 "$tmp/bt.txt")"
        ! grep -q "^WARNING" "$tmp/bt.txt" || fail "$zip: babeltrace2: $(grep -m 1 "^WARNING" "$tmp/bt.txt")"
    fi
    echo "ok: $zip: $n events, $copies times ($line), as babeltrace2 reads them"
}

ran=0
for spec in "clr-only.trace.zip 2 30000" "netcoreapp31.trace.zip 3 60"; do
    set -- $spec
    zip=../shared/traces/ctf/$1
    if [ -f "$zip" ]; then
        check "$zip" "$2" "$3"
        ran=$((ran + 1))
    fi
done
[ $ran -gt 0 ] || echo "skipped: no shared CTF trace (../shared/traces/ctf) present"
