#!/bin/sh
# gcscope info / events as a user meets them: options, JSON keys, and what
# bad input looks like (one line, exit 2; events before a fault still out).
set -u
G=${GCSCOPE:-build/asan/gcscope}
T=tests/data/wks-concurrent.nettrace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "reader_cli: $*"; exit 1; }

# info: the JSON keys the issue names, with this fixture's real values.
"$G" info --format json "$T" > "$tmp/info.json" || fail "info exit $?"
for k in '"format":"nettrace"' '"format_version":4' '"pointer_size":8' '"pid":15298' \
         '"events":16959' '"lost_events":0' '"counts":{' \
         '"Microsoft-Windows-DotNETRuntime/GC/Start":47'; do
    grep -q "$k" "$tmp/info.json" || fail "info JSON lacks $k"
done

# events: filters and limit agree with info's counts.
n=$("$G" events "$T" --event GC/Start | wc -l)
[ "$n" -eq 47 ] || fail "--event GC/Start gave $n lines, not 47"
n=$("$G" events "$T" --event Microsoft-Windows-DotNETRuntime/GC/Stop --format json | wc -l)
[ "$n" -eq 47 ] || fail "--event Provider/GC/Stop gave $n lines"
n=$("$G" events "$T" --provider Microsoft-DotNETCore-EventPipe | wc -l)
[ "$n" -eq 1 ] || fail "--provider gave $n lines"
n=$("$G" events "$T" --limit 5 | wc -l)
[ "$n" -eq 5 ] || fail "--limit 5 gave $n lines"
"$G" events "$T" --format json --limit 200 > "$tmp/ev.json" || fail "events json exit $?"
bad=$(grep -cv '^{"msec":.*}$' "$tmp/ev.json")
[ "$bad" -eq 0 ] || fail "$bad JSON lines are not one object per line"
# Timestamp order.
"$G" events "$T" --format json | sed -E 's/^\{"msec":([0-9.]+),.*/\1/' > "$tmp/ms"
sort -n -c "$tmp/ms" 2>/dev/null || fail "events are not in timestamp order"
# --provider/--event make the reader refuse the other types (they are
# counted, not delivered): the lines are those of the unfiltered output.
"$G" events "$T" > "$tmp/all.txt" || fail "events exit $?"
grep ' Microsoft-Windows-DotNETRuntime/GC/Start ' "$tmp/all.txt" > "$tmp/want.txt"
"$G" events "$T" --event GC/Start > "$tmp/got.txt" || fail "--event exit $?"
cmp -s "$tmp/want.txt" "$tmp/got.txt" || fail "--event GC/Start: not the unfiltered lines"
grep ' Microsoft-DotNETCore-EventPipe/' "$tmp/all.txt" > "$tmp/want.txt"
"$G" events "$T" --provider microsoft-dotnetcore-eventpipe > "$tmp/got.txt" || fail "--provider exit $?"
cmp -s "$tmp/want.txt" "$tmp/got.txt" || fail "--provider: not the unfiltered lines"
# --from-ms: the reader counts the earlier events; what it prints is the
# unfiltered output's tail (events come in time order).
"$G" events "$T" --from-ms 1500 > "$tmp/got.txt" || fail "--from-ms exit $?"
n=$(wc -l < "$tmp/got.txt")
[ "$n" -gt 0 ] && [ "$n" -lt "$(wc -l < "$tmp/all.txt")" ] || fail "--from-ms 1500 printed $n lines"
tail -n "$n" "$tmp/all.txt" | cmp -s - "$tmp/got.txt" || fail "--from-ms: not the unfiltered tail"
# The first GC/Start: TraceEvent's MSec and fields (tests/data/*.oracle-dump.txt).
first=$("$G" events "$T" --event GC/Start --limit 1)
case $first in
    *"Count=1 Depth=2 Reason=AllocSmall Type=NonConcurrentGC"*) ;;
    *) fail "first GC/Start: $first" ;;
esac

# Not a trace: one line on stderr, nothing on stdout, exit 2.
printf 'hello, world, this is not a trace at all\n' > "$tmp/not.txt"
"$G" info "$tmp/not.txt" > "$tmp/out" 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "not a trace: exit $rc"
[ ! -s "$tmp/out" ] || fail "not a trace: printed on stdout"
[ "$(wc -l < "$tmp/err")" -eq 1 ] || fail "not a trace: $(cat "$tmp/err")"
grep -q 'not a trace' "$tmp/err" || fail "not a trace: $(cat "$tmp/err")"

# A newer nettrace major version: unsupported, one line, exit 2.
printf 'Nettrace\000\000\000\000\007\000\000\000\000\000\000\000' > "$tmp/v7.nettrace"
"$G" events "$tmp/v7.nettrace" > "$tmp/out" 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "v7: exit $rc"
[ "$(wc -l < "$tmp/err")" -eq 1 ] || fail "v7: $(cat "$tmp/err")"
grep -qi 'version' "$tmp/err" || fail "v7: $(cat "$tmp/err")"

# Truncated: the message names the offset; events before it are printed and counted.
head -c 700000 "$T" > "$tmp/cut.nettrace"
"$G" events "$tmp/cut.nettrace" > "$tmp/out" 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "truncated events: exit $rc"
n=$(wc -l < "$tmp/out")
[ "$n" -gt 1000 ] && [ "$n" -lt 16959 ] || fail "truncated: $n events printed"
grep -q 'truncated at byte offset' "$tmp/err" || fail "truncated: $(cat "$tmp/err")"
# Filtered, the same fault and the same GCs before it.
want=$(grep -c '/GC/Start ' "$tmp/out")
"$G" events "$tmp/cut.nettrace" --event GC/Start > "$tmp/out" 2> "$tmp/err2"; rc=$?
[ $rc -eq 2 ] || fail "truncated, filtered: exit $rc"
cmp -s "$tmp/err" "$tmp/err2" || fail "truncated, filtered: $(cat "$tmp/err2")"
[ "$(wc -l < "$tmp/out")" -eq "$want" ] && [ "$want" -gt 0 ] || fail "truncated, filtered: not the $want GCs"
"$G" info --format json "$tmp/cut.nettrace" > "$tmp/out" 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "truncated info: exit $rc"
grep -q "\"events\":$n," "$tmp/out" || fail "truncated info does not count the $n events"
grep -q '"error":{"status":"truncated","offset":' "$tmp/out" || fail "truncated info: no error object"

# Usage errors: exit 1.
"$G" info > /dev/null 2>&1; [ $? -eq 1 ] || fail "info without a trace must exit 1"
"$G" events "$T" --format xml > /dev/null 2>&1; [ $? -eq 1 ] || fail "bad --format must exit 1"
echo "reader_cli: ok"
