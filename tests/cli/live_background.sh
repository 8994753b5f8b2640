#!/bin/sh
# Background GCs watched live (issue 14): `record --rows` on a workload
# running background gen2 GCs with foreground GCs during them prints the
# GCs of `gcscope stats` on the saved file, the same columns, in the same
# order (rows come from the GC analyzer, printed once final).
. tests/cli/live_lib.inc
need_dotnet live_background
need_v5_reader live_background
build_workload
export DOTNET_gcConcurrent=1
start_workload background 4
"$GCSCOPE" record "$WPID" -o "$WORK/bg.nettrace" --rows >"$WORK/rec.out" 2>"$WORK/rec.err" &
RP=$!
wait_attached "$WORK/rec.err" $RP || fail "record did not attach"
go
wait_for "$WORK/workload.out" '^gcs total=' 120 || fail "workload did not finish"
sleep 1
kill -TERM $RP
wait $RP; rc=$?
cat "$WORK/rec.err" "$WORK/workload.out"
[ $rc -eq 0 ] || fail "record exit $rc"
grep -q "^saved $WORK/bg.nettrace: [0-9]* bytes, complete" "$WORK/rec.out" || fail "not saved complete"
rows "$WORK/rec.out" | awk '{print $1, $2, $3, $4, $5, $6}' >"$WORK/a6"
stats_rows "$WORK/bg.nettrace" >"$WORK/s6"
cat "$WORK/a6"
[ "$(awk '$4 ~ /B/' "$WORK/a6" | wc -l)" -ge 2 ] || fail "fewer than 2 background GC rows"
cmp -s "$WORK/a6" "$WORK/s6" || { diff "$WORK/s6" "$WORK/a6"; fail "live rows differ from gcscope stats"; }
end_workload
echo ok
