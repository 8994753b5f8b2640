#!/bin/sh
# gcscope objects --from-ms/--to-ms/--limit (issue 9). The time range counts
# only the objects allocated in it: per type, the AllocationTick events of
# the report are the ones `gcscope events` shows in the same range
# (counted here from its lines, by TypeName), every GC is still followed,
# and the report says it is filtered; --limit keeps the first N rows of
# each list (table, JSON, CSV); a range with no allocation says so on
# stderr, exit 0; bad values exit 1.
GCSCOPE=${GCSCOPE:-build/gcscope}
T=tests/data/objects-movement.nettrace
fail() { echo "objects_filters: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# "count name" per type: from events' AllocationTick lines, from the JSON types.
ticks_from_events() {
    "$GCSCOPE" events "$@" "$T" 2>/dev/null | grep 'Microsoft-Windows-DotNETRuntime/GC/AllocationTick ' |
        sed -n 's/.* TypeName="\([^"]*\)".*/\1/p' | sort | uniq -c | awk '{print $1, $2}' | sort -k2
}
ticks_from_objects() {
    "$GCSCOPE" objects --format json "$@" "$T" |
        sed -n 's/^ *{"name":"\([^"]*\)",.*"allocation_ticks":\([0-9]*\),.*/\2 \1/p' |
        awk '$1 > 0' | sort -k2
}
n=0
for range in "--from-ms 100 --to-ms 250" "--from-ms 200" "--to-ms 150" "--from-ms 250.5 --to-ms 300"; do
    # shellcheck disable=SC2086
    ticks_from_events $range >"$tmp/want"
    # shellcheck disable=SC2086
    ticks_from_objects $range >"$tmp/got"
    [ -s "$tmp/want" ] || fail "$range: no AllocationTick in range: the check proves nothing"
    cmp -s "$tmp/want" "$tmp/got" || { diff "$tmp/want" "$tmp/got" | head; fail "$range: ticks per type differ"; }
    n=$((n + $(awk '{s += $1} END {print s}' "$tmp/want")))
done
all=$(ticks_from_objects | awk '{s += $1} END {print s}')
[ "$all" -eq 220 ] || fail "unfiltered: $all ticks, want 220"
# 100..250 ms: 218 ticks of the 220; every GC still followed.
"$GCSCOPE" objects --format json --from-ms 100 --to-ms 250 "$T" >"$tmp/j"
grep -q '"counters":{[^}]*"allocation_ticks":218,' "$tmp/j" || fail "100..250: allocation_ticks counter"
grep -q '^"filter":{"from_ms":100.000,"to_ms":250.000,"allocations_outside_range":[1-9][0-9]*,' "$tmp/j" ||
    fail "JSON does not say it is filtered"
gcs=$("$GCSCOPE" objects --format json "$T" | grep -o '"gcs":[0-9]*')
grep -q "$gcs," "$tmp/j" || fail "filtered run followed other GCs than $gcs"
"$GCSCOPE" objects --format json "$T" | grep -q '^"filter"' && fail "unfiltered JSON has a filter"
"$GCSCOPE" objects --from-ms 100 --to-ms 250 "$T" >"$tmp/t"
grep -q '^Filtered: objects allocated from 100.000 ms to 250.000 ms only' "$tmp/t" || fail "table does not say it is filtered"
"$GCSCOPE" objects "$T" | grep -q '^Filtered' && fail "unfiltered table says filtered"
# --limit: the first N rows of each list.
"$GCSCOPE" objects "$T" >"$tmp/all"
"$GCSCOPE" objects --limit 3 "$T" >"$tmp/l3"
grep -q '^Filtered: at most 3 types per list$' "$tmp/l3" || fail "--limit 3: not said"
# rows of the three lists: the lines after each "Type" header up to the blank line
lists() { awk '/^Type /{on=1; c=0; next} /^$/{on=0} on {c++; if (c <= k) print}' k="$2" "$1"; }
lists "$tmp/all" 3 >"$tmp/want"
lists "$tmp/l3" 1000 >"$tmp/got"
[ "$(wc -l <"$tmp/got")" -ge 7 ] || fail "--limit 3: only $(wc -l <"$tmp/got") rows"
cmp -s "$tmp/want" "$tmp/got" || { diff "$tmp/want" "$tmp/got"; fail "--limit 3: not the first 3 rows"; }
[ "$("$GCSCOPE" objects --format csv --limit 2 "$T" | wc -l)" -eq 3 ] || fail "--limit 2: CSV rows"
[ "$("$GCSCOPE" objects --format json --limit 2 "$T" | sed -n '/^"types"/,/^"survivors/p' | grep -c '^ {"name"')" -eq 2 ] ||
    fail "--limit 2: JSON types"
# Nothing in range: said on stderr, exit 0.
"$GCSCOPE" objects --from-ms 5000 "$T" >"$tmp/o" 2>"$tmp/e" || fail "empty range: exit $?"
grep -qx 'gcscope objects: objects-movement.nettrace: no allocation in the time range.' "$tmp/e" ||
    fail "empty range: $(cat "$tmp/e")"
for bad in "--from-ms x" "--to-ms -1" "--limit 0" "--from-ms 9 --to-ms 3" "--gen 2" "--top 3"; do
    # shellcheck disable=SC2086
    "$GCSCOPE" objects $bad "$T" >"$tmp/o" 2>"$tmp/e"; rc=$?
    [ $rc -eq 1 ] || fail "$bad: exit $rc, want 1"
    [ -s "$tmp/o" ] && fail "$bad: stdout not empty"
done
echo "ok ($n ticks in ranges checked)"
