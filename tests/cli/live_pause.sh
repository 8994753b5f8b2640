#!/bin/sh
# record --stop-on-pause-ms stops and saves as soon as a GC pause exceeds
# the limit: a workload with a 100 MB heap of small objects induces one
# blocking compacting gen2 GC.
. tests/cli/live_lib.inc
need_dotnet live_pause
need_v5_reader live_pause
build_workload
start_workload longpause 100
"$GCSCOPE" record "$WPID" -o "$WORK/p.nettrace" --rows --stop-on-pause-ms 10 \
    >"$WORK/rec.out" 2>"$WORK/rec.err" &
RP=$!
wait_attached "$WORK/rec.err" $RP || fail "record did not attach"
go
wait $RP; rc=$?
cat "$WORK/rec.out" "$WORK/rec.err" "$WORK/workload.out"
[ $rc -eq 0 ] || fail "record exit $rc"
grep -Eq "stopped: GC #[0-9]+ paused [0-9.]+ ms > 10.000 ms" "$WORK/rec.err" || fail "no pause stop"
grep -Eq '^ +[0-9]+ +[0-9.]+ InducedCompacting +2N ' "$WORK/rec.out" || fail "no gen2 row"
grep -q "^saved $WORK/p.nettrace: [0-9]* bytes, complete" "$WORK/rec.out" || fail "not saved"
kill -0 "$WPID" || fail "the workload should still run"
"$GCSCOPE" live --replay "$WORK/p.nettrace" >"$WORK/replay.out" ||
    fail "saved file does not read back"
grep -Eq '^ +[0-9]+ +[0-9.]+ InducedCompacting +2N ' "$WORK/replay.out" || fail "replay row"
end_workload
echo ok
