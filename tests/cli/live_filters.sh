#!/bin/sh
# The filters of `gcscope live` and `record --rows` (issue 9): --gen,
# --kind, --induced, --min-pause-ms, --from-ms/--to-ms and --limit select
# the rows `live --replay` prints, and they are exactly the rows `gcscope
# stats` lists with the same filters on the same file (same GC numbers, in
# order); the summary still counts every GC and says how many rows the
# filter printed; a filter matching nothing says so on stderr (exit 0);
# --stop-on-pause-ms is not filtered; --top is not a live option; record
# refuses filters without --rows.
. tests/cli/live_lib.inc

# GC numbers of the live rows (before the summary) and of the stats list.
live_rows() { awk '/^Process /{exit} /^ +GC# /{on=1; next} on && /^ +[0-9]+ /{printf "%s ", $1}' "$1"; }
stats_rows() { awk '/^GCs$/{on=1; next} on && /^$/{on=0} on && /^ +[0-9]+ /{printf "%s ", $1}' "$1"; }

n_checks=0
for t in tests/data/wks-concurrent.nettrace tests/data/server.nettrace tests/data/wks-service.nettrace \
         tests/data/server-attach.nettrace tests/data/wks-nonconcurrent.nettrace; do
    total=$("$GCSCOPE" stats --format csv "$t" | awk 'NR > 1' | wc -l)
    [ "$total" -gt 10 ] || fail "$t: only $total GCs"
    for f in "--gen 2" "--gen 0 --gen 1" "--kind background" "--kind blocking --gen 1" \
             "--kind foreground" "--induced" "--min-pause-ms 5" "--min-pause-ms 0.5 --gen 0" \
             "--from-ms 1000 --to-ms 3000" "--from-ms 2000" "--to-ms 500 --limit 4" "--limit 3" \
             "--gen 2 --induced --limit 2"; do
        # shellcheck disable=SC2086
        "$GCSCOPE" stats $f "$t" >"$WORK/stats.out" 2>/dev/null || fail "$t: stats $f"
        # shellcheck disable=SC2086
        "$GCSCOPE" live --replay "$t" $f >"$WORK/live.out" 2>"$WORK/live.err" ||
            { cat "$WORK/live.err"; fail "$t: live $f failed"; }
        want=$(stats_rows "$WORK/stats.out")
        got=$(live_rows "$WORK/live.out")
        [ "$got" = "$want" ] || fail "$t: live $f: rows '$got', stats '$want'"
        n=$(echo "$got" | wc -w)
        grep -qx "rows filtered ($f): $n of $total GCs printed" "$WORK/live.out" ||
            fail "$t: live $f: no 'rows filtered' line: $(grep '^rows' "$WORK/live.out")"
        # the summary counts every GC
        grep -q "^gcs total=$total " "$WORK/live.out" || fail "$t: live $f: summary total"
        if [ "$n" -eq 0 ]; then
            grep -qx 'gcscope live: no GC matches the filter.' "$WORK/live.err" ||
                fail "$t: live $f: matches nothing but says nothing"
        else
            grep -q 'no GC matches' "$WORK/live.err" && fail "$t: live $f: says no match"
        fi
        n_checks=$((n_checks + 1))
    done
done
T=tests/data/wks-concurrent.nettrace
# By value (the stats_filters.sh rows of this trace).
"$GCSCOPE" live --replay "$T" --gen 2 --kind background >"$WORK/o" 2>/dev/null
[ "$(live_rows "$WORK/o")" = "2 3 16 18 21 27 38 " ] || fail "gen 2 background: $(live_rows "$WORK/o")"
"$GCSCOPE" live --replay "$T" --from-ms 2000 --to-ms 2400 >"$WORK/o" 2>/dev/null
[ "$(live_rows "$WORK/o")" = "26 27 28 29 " ] || fail "from 2000 to 2400: $(live_rows "$WORK/o")"
# Without a filter: no "rows filtered" line.
"$GCSCOPE" live --replay "$T" >"$WORK/o" 2>/dev/null
grep -q '^rows filtered' "$WORK/o" && fail "unfiltered live says filtered"
# --stop-on-pause-ms sees every GC: GC 22 (gen 1) stops it even with --gen 2.
"$GCSCOPE" live --replay "$T" --gen 2 --stop-on-pause-ms 200 >"$WORK/o" 2>"$WORK/e" || fail "stop-on-pause"
"$GCSCOPE" stats "$T" >"$WORK/stats.all"
want=$(awk '/^GCs$/{on=1; next} on && /^$/{exit} on && /^ +[0-9]+ /{ if ($6 != "-" && $6 + 0 > 200) { print $1; exit } }' "$WORK/stats.all")
grep -q "^gcscope live: stopped: GC #$want paused " "$WORK/e" || fail "stop-on-pause with --gen 2: $(cat "$WORK/e")"
[ "$(awk -v n="$want" '$1 == n' "$WORK/stats.all" | awk '{print substr($4, 1, 1)}')" != 2 ] ||
    fail "GC $want is gen 2: the check proves nothing"
# Usage errors: exit 1, message on stderr.
for bad in "--top 3" "--gen 3" "--kind concurrent" "--limit 0" "--from-ms 5 --to-ms 5" "--min-pause-ms x"; do
    # shellcheck disable=SC2086
    "$GCSCOPE" live --replay "$T" $bad >"$WORK/o" 2>"$WORK/e"; rc=$?
    [ $rc -eq 1 ] || fail "live $bad: exit $rc, want 1"
    [ -s "$WORK/o" ] && fail "live $bad: stdout not empty"
done
"$GCSCOPE" record 1 -o "$WORK/x.nettrace" --gen 2 >"$WORK/o" 2>"$WORK/e"; rc=$?
[ $rc -eq 1 ] || fail "record --gen without --rows: exit $rc"
grep -q 'the filters select the rows: add --rows' "$WORK/e" || fail "record --gen: $(head -1 "$WORK/e")"
[ -e "$WORK/x.nettrace" ] && fail "record wrote a file"
echo "ok ($n_checks filter checks)"
