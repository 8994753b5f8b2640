#!/bin/sh
# gcscope stats (issue 9): the default per-GC table fits 160 columns and has
# its legend; --columns is validated; the filters select the GCs they say
# on tests/data/wks-concurrent.nettrace (47 GCs, values from its table);
# filtered output says so, a filter matching nothing says so on stderr and
# exits 0; the long pauses and condemned reasons sections; the CSV trace
# column; no color in a pipe, color with --color always; events --from-ms.
GCSCOPE=${GCSCOPE:-build/gcscope}
T=tests/data/wks-concurrent.nettrace
fail() { echo "stats_filters: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# GC numbers of the table's rows
rows() { awk '/^GCs$/{on=1; next} on && /^$/{on=0} on && /^ +[0-9]+ /{printf "%s ", $1}' "$1"; }

# Default table: at most 160 columns on every fixture, legend line, notes.
for t in tests/data/*.nettrace; do
    "$GCSCOPE" stats "$t" > "$tmp/t" 2>/dev/null || continue
    # the Problems line is one sentence and the command line is the
    # program's; the tables are what must fit
    w=$(grep -Ev '^(Problems:|  Command line )' "$tmp/t" | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')
    [ "$w" -le 160 ] || fail "$t: table $w columns wide"
done
"$GCSCOPE" stats "$T" > "$tmp/t" || fail "table: exit $?"
grep -q '^  Gen: generation, then N non-concurrent (blocking), B background, F foreground' "$tmp/t" || fail "no legend"
grep -Eq '^ +GC# +PauseStart Reason +Gen +Suspend +Pause +%Pause +Gen0Alloc +PeakMB +AfterMB +Promoted +Notes$' "$tmp/t" \
    || fail "default columns: $(grep 'GC# ' "$tmp/t" | tail -1)"
[ "$(rows "$tmp/t" | wc -w)" -eq 47 ] || fail "want 47 rows"
grep -q '^  Command line         /usr/share/dotnet/dotnet .*gcload.dll gen0,gen2,loh,induced,bgc --scale 0.1 --bgc-rounds 3$' "$tmp/t" \
    || fail "command line (ProcessInfo)"
grep -q '^  Finalizers run       [0-9][0-9]* (GCFinalizersEnd)$' "$tmp/t" || fail "finalizers"
grep -q '^  ALL       47      312.4       244.5     15366.346       3727.2        1509.1           0.405              -' "$tmp/t" \
    || fail "rollup AllocMB/MSecGC: 1509.1 MB / 3727.2 ms"
# --wide: every column; --columns: the chosen ones
"$GCSCOPE" stats --wide "$T" | grep -Eq '^ +GC# .* Gen0MB/s .* POHMB +Surv% +Frag% +FinPrMB +Pinned +Heaps +Compacted +Condemned / Notes$' \
    || fail "--wide header"
"$GCSCOPE" stats --columns pause,number "$T" | grep -Eq '^ +Pause +GC#$' || fail "--columns order"
"$GCSCOPE" stats --columns number,nope "$T" > "$tmp/o" 2> "$tmp/e"; rc=$?
[ $rc -eq 1 ] || fail "--columns nope: exit $rc, want 1"
[ -s "$tmp/o" ] && fail "--columns nope: stdout not empty"
grep -q "unknown column 'nope'; valid: number,start,reason,gen," "$tmp/e" || fail "--columns nope: $(head -1 "$tmp/e")"
for bad in "--gen 3" "--kind concurrent" "--min-pause-ms -1" "--top 0" "--limit x" "--color maybe" \
           "--from-ms 5 --to-ms 5" "--long-pause-ms 0"; do
    # shellcheck disable=SC2086
    "$GCSCOPE" stats $bad "$T" > /dev/null 2>&1; rc=$?
    [ $rc -eq 1 ] || fail "$bad: exit $rc, want 1"
done

# Filters
"$GCSCOPE" stats --gen 2 --kind background "$T" > "$tmp/t" || fail "--gen 2 --kind background: exit $?"
[ "$(rows "$tmp/t")" = "2 3 16 18 21 27 38 " ] || fail "--gen 2 --kind background: $(rows "$tmp/t")"
grep -q '^  Filtered (gen 2, kind background): 7 of 47 GCs shown; the sections above count them all\.$' "$tmp/t" \
    || fail "filtered table does not say so"
grep -q '^  ALL       47 ' "$tmp/t" || fail "the rollup must count all GCs"
"$GCSCOPE" stats --top 3 "$T" > "$tmp/t"
[ "$(rows "$tmp/t")" = "22 43 24 " ] || fail "--top 3: $(rows "$tmp/t")"
"$GCSCOPE" stats --min-pause-ms 200 "$T" > "$tmp/t"
[ "$(rows "$tmp/t")" = "22 23 24 43 " ] || fail "--min-pause-ms 200: $(rows "$tmp/t")"
"$GCSCOPE" stats --induced --gen 1 "$T" > "$tmp/t"
[ "$(rows "$tmp/t")" = "6 9 13 " ] || fail "--induced --gen 1: $(rows "$tmp/t")"
"$GCSCOPE" stats --from-ms 2000 --to-ms 2400 "$T" > "$tmp/t"
[ "$(rows "$tmp/t")" = "26 27 28 29 " ] || fail "--from-ms 2000 --to-ms 2400: $(rows "$tmp/t")"
"$GCSCOPE" stats --kind foreground --limit 2 "$T" > "$tmp/t"
[ "$(rows "$tmp/t")" = "22 23 " ] || fail "--kind foreground --limit 2: $(rows "$tmp/t")"
# JSON and CSV select the same GCs; JSON says it is filtered
"$GCSCOPE" stats --format json --top 3 "$T" > "$tmp/j"
grep -q '^  "filter": "top 3 pauses",$' "$tmp/j" || fail "json filter"
grep -q '"gcs_total": 47,' "$tmp/j" && grep -q '"gcs_shown": 3,' "$tmp/j" || fail "json counts"
[ "$(grep -o '{"number": [0-9]*, "generation"' "$tmp/j" | tr -dc '0-9 \n' | awk '{printf "%s ", $1}')" = "22 43 24 " ] \
    || fail "json --top 3 order"
"$GCSCOPE" stats --format json "$T" | grep -q '^  "filter": null,$' || fail "json unfiltered: filter null"
[ "$("$GCSCOPE" stats --format csv --gen 0 "$T" | awk -F, 'NR > 1 {printf "%s ", $3}')" = "5 19 26 29 37 40 44 " ] \
    || fail "csv --gen 0"
# Nothing matches: the message on stderr, exit 0, in every format
for f in table json csv; do
    "$GCSCOPE" stats --format $f --min-pause-ms 1000 "$T" > "$tmp/o" 2> "$tmp/e"; rc=$?
    [ $rc -eq 0 ] || fail "$f: no match: exit $rc, want 0"
    [ "$(cat "$tmp/e")" = "gcscope stats: wks-concurrent.nettrace: no GC matches the filter." ] \
        || fail "$f: no match: stderr '$(cat "$tmp/e")'"
done
grep -q '"gcs_shown": 0,' "$tmp/j" && fail "json unfiltered shows 0"

# Sections: pauses over the threshold, condemned reasons
"$GCSCOPE" stats "$T" > "$tmp/t"
awk '/^Pauses over 200 ms$/{on=1; next} on && /^$/{exit} on && /^ +[0-9]+ /{printf "%s ", $1}' "$tmp/t" > "$tmp/long"
[ "$(cat "$tmp/long")" = "22 23 24 43 " ] || fail "pauses over 200 ms: $(cat "$tmp/long")"
"$GCSCOPE" stats --long-pause-ms 250 "$T" | grep -A3 '^Pauses over 250 ms$' | grep -Ec '^ +(22|43) ' | grep -q 2 \
    || fail "--long-pause-ms 250"
grep -q '^  Alloc_Exceeded                32    68.1$' "$tmp/t" || fail "condemned reasons: Alloc_Exceeded"
grep -q '^  Induced                       13    27.7$' "$tmp/t" || fail "condemned reasons: Induced"
grep -q '^  (of 47 GCs with a GCGlobalHeapHistory)$' "$tmp/t" || fail "condemned reasons: total"
"$GCSCOPE" stats --format json "$T" > "$tmp/j"
grep -q '"long_pauses": {"threshold_ms": 200.000000, "gcs": \[{"number": 22, ' "$tmp/j" || fail "json long pauses"
grep -q '"condemned_reasons": {"gcs_with_reasons": 47, "counts": {"Alloc_Exceeded": 32, ' "$tmp/j" || fail "json condemned"

# CSV: the trace first, empty cells empty (no "" for a complete GC)
"$GCSCOPE" stats --format csv "$T" | sed -n 2p | grep -q '^wks-concurrent\.nettrace,15298,1,2,NonConcurrentGC,AllocSmall,2N,true,,144\.025240,143\.' \
    || fail "csv row 1: $("$GCSCOPE" stats --format csv "$T" | sed -n 2p | cut -c1-80)"
"$GCSCOPE" stats --format csv "$T" | grep -q '""' && fail "csv has quoted empty cells"

# Color: never in a pipe (even with NO_COLOR unset), --color always forces it
esc=$(printf '\033')
"$GCSCOPE" stats "$T" | grep -q "$esc" && fail "color in a pipe"
"$GCSCOPE" stats --color always "$T" | grep "$esc\[1;31m" | grep -Eq ' 22 +883\.824 ' || fail "--color always: long pause GC 22 not red"
if command -v script > /dev/null 2>&1; then
    NO_COLOR=1 script -qec "$GCSCOPE stats $T" /dev/null | grep -q "$esc\[" && fail "NO_COLOR on a terminal: color"
    script -qec "$GCSCOPE stats $T" /dev/null | grep -q "$esc\[1;31m" || fail "terminal: no color"
fi

# events --from-ms/--to-ms: only events in [from, to)
"$GCSCOPE" events --from-ms 100 --to-ms 100.5 "$T" | awk '{print $1}' > "$tmp/ev"
[ "$(sed -n '1p;$p' "$tmp/ev" | tr '\n' ' ')" = "100.320 100.491 " ] || fail "events range: $(sed -n '1p;$p' "$tmp/ev" | tr '\n' ' ')"
"$GCSCOPE" events --from-ms 999999 "$T" > "$tmp/o" 2> "$tmp/e"; rc=$?
[ $rc -eq 0 ] && [ ! -s "$tmp/o" ] || fail "events past the end: exit $rc"
grep -q 'no event matches the filter' "$tmp/e" || fail "events: no match not said"
echo "stats_filters: ok"
