#!/bin/sh
# The process exits mid-session: clean summary, a valid saved file, exit 0.
. tests/cli/live_lib.inc
need_dotnet live_exit
need_v5_reader live_exit
build_workload

# A normal exit: the runtime ends the stream itself.
start_workload exit 6
"$GCSCOPE" record "$WPID" -o "$WORK/a.nettrace" --rows >"$WORK/rec.out" 2>"$WORK/rec.err" &
RP=$!
wait_attached "$WORK/rec.err" $RP || fail "record did not attach"
go
wait $RP; rc=$?
cat "$WORK/rec.out" "$WORK/rec.err"
[ $rc -eq 0 ] || fail "record exit $rc"
grep -Eq "the (process exited|runtime ended the stream)" "$WORK/rec.err" || fail "no end message"
grep -q '^GC Rollup By Generation' "$WORK/rec.out" || fail "no summary"
grep -q "^saved $WORK/a.nettrace: [0-9]* bytes" "$WORK/rec.out" || fail "not saved"
[ "$(gc_counts "$WORK/rec.out")" = "$(gc_counts "$WORK/workload.out")" ] || fail "counts"
"$GCSCOPE" live --replay "$WORK/a.nettrace" >"$WORK/replay.out" 2>"$WORK/replay.err" ||
    { cat "$WORK/replay.err"; fail "saved file does not read back"; }
[ "$(rows "$WORK/replay.out" | wc -l)" -eq 6 ] || fail "replay rows"
WPID=
exec 3>&-

# A crash (SIGKILL): the stream stops wherever it was; the file is cut
# to its last whole block and closed, and reads back without error.
# (rec.* of the first record still says "attached": never wait on them)
rm -f "$WORK/in" "$WORK/rec.out" "$WORK/rec.err"
start_workload steady 6
"$GCSCOPE" record "$WPID" -o "$WORK/b.nettrace" --rows >"$WORK/rec.out" 2>"$WORK/rec.err" &
RP=$!
wait_attached "$WORK/rec.err" $RP || fail "record did not attach"
go
wait_for "$WORK/workload.out" '^gcs total=' 60 || fail "workload did not finish"
# Kill once the runtime has flushed the GCs to us: the 6 GCs make about
# 10 KB of stream (the header and trace object alone are ~100 bytes).
wait_size "$WORK/b.nettrace" 8000 || fail "the GCs did not arrive"
kill -KILL "$WPID"
WPID=
wait $RP; rc=$?
cat "$WORK/rec.out" "$WORK/rec.err"
[ $rc -eq 0 ] || fail "record exit $rc after a crash"
grep -q "the process exited" "$WORK/rec.err" || fail "no exit message"
grep -q '^GC Rollup By Generation' "$WORK/rec.out" || fail "no summary"
grep -Eq '^gcs total=[1-9]' "$WORK/rec.out" || fail "no GC in the summary"
grep -Eq "^saved $WORK/b.nettrace: [0-9]* bytes(, complete|, [0-9]* whole blocks; )" "$WORK/rec.out" ||
    fail "not saved"
"$GCSCOPE" live --replay "$WORK/b.nettrace" >"$WORK/replay.out" 2>"$WORK/replay.err" ||
    { cat "$WORK/replay.err"; fail "saved file does not read back"; }
rows "$WORK/rec.out" >"$WORK/x"
rows "$WORK/replay.out" >"$WORK/y"
cmp -s "$WORK/x" "$WORK/y" || { diff "$WORK/x" "$WORK/y"; fail "replayed GC list differs"; }
echo ok
