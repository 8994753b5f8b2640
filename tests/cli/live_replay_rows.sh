#!/bin/sh
# The rows `gcscope live` prints are the GCs of `gcscope stats` (issue 14):
# for every trace in tests/data, `live --replay` (the live code path fed
# from the file) prints one row per GC of the stats table, in its order,
# with the same GC#, PauseStart, Reason, Gen, Suspend, Pause and
# INCOMPLETE note, and the Duration of the CSV report, once: the summary
# after them is the rollup and percentiles, without the rows again; and
# --stop-on-pause-ms names the first GC of the stats table whose pause
# exceeds the limit.
. tests/cli/live_lib.inc

traces=$(ls tests/data/*.nettrace tests/data/*.netperf tests/data/v6/*.nettrace 2>/dev/null)
[ -n "$traces" ] || fail "no traces in tests/data"
n_traces=0
n_rows=0
for t in $traces; do
    "$GCSCOPE" stats "$t" >"$WORK/stats.out" 2>"$WORK/stats.err" || continue
    n_traces=$((n_traces + 1))
    "$GCSCOPE" live --replay "$t" >"$WORK/live.out" 2>"$WORK/live.err" ||
        { cat "$WORK/live.err"; fail "$t: live --replay failed"; }
    # Live rows: GC# PauseStart Reason Gen Suspend Pause [INCOMPLETE: why];
    # their Duration apart.
    awk '/^Process /{exit} /^ +GC# /{on=1; next}
         on && /^ +[0-9]+ /{note=""; if (match($0, /INCOMPLETE: [A-Za-z_]+/)) note=substr($0, RSTART, RLENGTH);
                            print $1, $2, $3, $4, $5, $6, note}' "$WORK/live.out" >"$WORK/live.rows"
    awk '/^Process /{exit} /^ +GC# /{on=1; next} on && /^ +[0-9]+ /{print $1, $7}' \
        "$WORK/live.out" >"$WORK/live.dur"
    awk '/^GCs$/{on=1; next} on && /^$/{on=0}
         on && /^ +[0-9]+ /{note=""; if (match($0, /INCOMPLETE: [A-Za-z_]+/)) note=substr($0, RSTART, RLENGTH);
                            print $1, $2, $3, $4, $5, $6, note}' "$WORK/stats.out" >"$WORK/stats.rows"
    cmp -s "$WORK/live.rows" "$WORK/stats.rows" ||
        { diff "$WORK/stats.rows" "$WORK/live.rows" | head -20; fail "$t: live rows differ from stats"; }
    # Duration: the CSV's duration_ms (6 decimals) rounded the same way.
    "$GCSCOPE" stats --format csv "$t" | awk -F, 'NR > 1 {print $3, $14}' >"$WORK/csv.dur"
    awk 'NR == FNR {d[$1] = $2; next}
         {c = d[$1]; if (c == "") { if ($2 != "-") bad = bad " " $1 }
          else { x = $2 - c; if ($2 == "-" || x > 0.0005001 || x < -0.0005001) bad = bad " " $1 } }
         END {if (bad != "") {print "durations differ for GC" bad; exit 1}}' \
        "$WORK/csv.dur" "$WORK/live.dur" || fail "$t: durations"
    [ "$(wc -l <"$WORK/live.dur")" -eq "$(wc -l <"$WORK/csv.dur")" ] || fail "$t: row count"
    # The summary is the rollup and the percentiles, not the rows again.
    if grep -q '^GC Rollup By Generation' "$WORK/stats.out"; then
        grep -q '^GC Rollup By Generation' "$WORK/live.out" || fail "$t: no rollup in the summary"
        grep -q '^Pause percentiles' "$WORK/live.out" || fail "$t: no percentiles in the summary"
    fi
    grep -q '^GCs$' "$WORK/live.out" && fail "$t: the summary lists the GCs again"
    # rows before the summary (whose "Pauses over" section names a few GCs again, by design)
    [ "$(awk '/^Process [0-9]/ { exit } /^ +[0-9]+ +[0-9.-]+ [A-Za-z]/ { n++ } END { print n + 0 }' \
        "$WORK/live.out")" -eq "$(wc -l <"$WORK/live.rows")" ] ||
        fail "$t: GC rows printed more than once"
    n_rows=$((n_rows + $(wc -l <"$WORK/live.rows")))
    # --stop-on-pause-ms: the first GC of the table with Pause > N.
    for limit in 0.5 10 100; do
        want=$(awk -v n=$limit '$6 != "-" && $6 + 0 > n + 0 {print "GC #" $1 " paused " $6 " ms"; exit}' \
            "$WORK/stats.rows")
        "$GCSCOPE" live --replay "$t" --stop-on-pause-ms $limit >/dev/null 2>"$WORK/pause.err" ||
            fail "$t: live --replay --stop-on-pause-ms $limit failed"
        got=$(sed -n 's/^gcscope live: stopped: \(GC #[0-9]* paused [0-9.]* ms\) > .*/\1/p' "$WORK/pause.err")
        [ "$got" = "$want" ] || fail "$t: --stop-on-pause-ms $limit: '$got', stats says '$want'"
    done
done
[ $n_traces -ge 8 ] || fail "only $n_traces traces read"
[ $n_rows -ge 250 ] || fail "only $n_rows rows"
# The two GCs of the issue, by value.
"$GCSCOPE" live --replay tests/data/wks-concurrent.nettrace >"$WORK/wks.out" 2>/dev/null
grep -Eq '^ +2 +211\.526 AllocLarge +2B +0\.012 +0\.012 ' "$WORK/wks.out" || fail "GC 2"
grep -Eq '^ +19 +346\.563 AllocSmall +0N +0\.000 +41\.509 ' "$WORK/wks.out" || fail "GC 19"
echo "ok ($n_traces traces, $n_rows rows)"
