#!/bin/sh
# gcscope live and record against a real runtime: the GCs seen from
# outside match the workload's own GC.CollectionCount deltas, and the
# recorded file re-read gives the same GC list as the live view.
. tests/cli/live_lib.inc
need_dotnet live_attach
need_v5_reader live_attach
build_workload


# live: 12 induced GCs (gen 0,1,2,...), stopped with Ctrl-C.
start_workload steady 12
"$GCSCOPE" ps | grep -Eq "^ *$WPID  dotnet +dotnet .*live.dll steady 12" || fail "ps does not list the workload"
"$GCSCOPE" live "$WPID" >"$WORK/live.out" 2>"$WORK/live.err" &
LP=$!
wait_attached "$WORK/live.err" $LP || fail "live did not attach"
go
wait_for "$WORK/workload.out" '^gcs total=' 60 || fail "workload did not finish"
kill -INT $LP
wait $LP; rc=$?
cat "$WORK/live.out" "$WORK/live.err"
[ $rc -eq 0 ] || fail "live exit $rc"
grep -q "stopped: interrupted" "$WORK/live.err" || fail "no stop message"
[ "$(gc_counts "$WORK/workload.out")" = "gcs total=12 gen0=4 gen1=4 gen2=4" ] ||
    fail "workload says $(gc_counts "$WORK/workload.out")"
[ "$(gc_counts "$WORK/live.out")" = "$(gc_counts "$WORK/workload.out")" ] ||
    fail "live saw $(gc_counts "$WORK/live.out")"
# One row per GC, numbered 1..12, generations 0,1,2 in turn, all induced
# blocking (N) GCs.
[ "$(rows "$WORK/live.out" | awk '{printf "%s:%s:%s ", $1, $3, $4}')" = \
  "1:Induced:0NI 2:Induced:1NI 3:Induced:2NI 4:Induced:0NI 5:Induced:1NI 6:Induced:2NI 7:Induced:0NI 8:Induced:1NI 9:Induced:2NI 10:Induced:0NI 11:Induced:1NI 12:Induced:2NI " ] ||
    fail "rows"
grep -q '^stream: [0-9]* events, 0 lost' "$WORK/live.err" || fail "lost events"
end_workload

# record: stopped with SIGTERM; the saved file gives the same GCs.
rm -f "$WORK/in"
start_workload steady 9
"$GCSCOPE" record "$WPID" -o "$WORK/rec.nettrace" --rows >"$WORK/rec.out" 2>"$WORK/rec.err" &
RP=$!
wait_attached "$WORK/rec.err" $RP || fail "record did not attach"
go
wait_for "$WORK/workload.out" '^gcs total=' 60 || fail "workload did not finish"
kill -TERM $RP
wait $RP; rc=$?
cat "$WORK/rec.out" "$WORK/rec.err"
[ $rc -eq 0 ] || fail "record exit $rc"
grep -q "stopped: terminated" "$WORK/rec.err" || fail "no stop message"
grep -q "^saved $WORK/rec.nettrace: [0-9]* bytes, complete" "$WORK/rec.out" || fail "not saved complete"
[ "$(gc_counts "$WORK/rec.out")" = "$(gc_counts "$WORK/workload.out")" ] ||
    fail "record saw $(gc_counts "$WORK/rec.out"), workload $(gc_counts "$WORK/workload.out")"
"$GCSCOPE" live --replay "$WORK/rec.nettrace" >"$WORK/replay.out" 2>"$WORK/replay.err" ||
    { cat "$WORK/replay.err"; fail "replay failed"; }
rows "$WORK/rec.out" >"$WORK/a"
rows "$WORK/replay.out" >"$WORK/b"
[ "$(wc -l <"$WORK/a")" -eq 9 ] || fail "record rows"
cmp -s "$WORK/a" "$WORK/b" || { diff "$WORK/a" "$WORK/b"; fail "replayed GC list differs"; }
# gcscope stats on the saved file: the same GCs, numbers, reasons,
# generations, suspensions and pauses as the live rows.
awk '{print $1, $2, $3, $4, $5, $6}' "$WORK/a" >"$WORK/a6"
stats_rows "$WORK/rec.nettrace" >"$WORK/s6"
cmp -s "$WORK/a6" "$WORK/s6" || { diff "$WORK/a6" "$WORK/s6"; fail "gcscope stats GC list differs"; }
end_workload
echo ok
