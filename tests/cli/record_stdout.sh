#!/bin/sh
# gcscope record against a real runtime (9 induced GCs: gen 0, 1, 2 three
# times each):
#   - by default stdout is one line: "saved FILE: BYTES bytes, complete;
#     EVENTS events, 9 GCs (gen0 3, gen1 3, gen2 3), SECONDS s", the bytes
#     being the file's size;
#   - -o - writes the stream to stdout (here a pipe) and that line, like
#     every message, to stderr; what came through the pipe is a trace that
#     `gcscope stats` reads with the same 9 GCs.
. tests/cli/live_lib.inc
need_dotnet record_stdout
need_v5_reader record_stdout
build_workload

summary='; [1-9][0-9]* events, 9 GCs [(]gen0 3, gen1 3, gen2 3[)], [0-9.]* s$'

# record -o FILE: one line on stdout.
start_workload steady 9
"$GCSCOPE" record "$WPID" -o "$WORK/a.nettrace" >"$WORK/rec.out" 2>"$WORK/rec.err" &
RP=$!
wait_attached "$WORK/rec.err" $RP || fail "record did not attach"
go
wait_for "$WORK/workload.out" '^gcs total=' 60 || fail "workload did not finish"
wait_size "$WORK/a.nettrace" 6000 || fail "the stream did not reach the file"
kill -TERM $RP
wait $RP; rc=$?
cat "$WORK/rec.out" "$WORK/rec.err"
[ $rc -eq 0 ] || fail "record exit $rc"
[ "$(gc_counts "$WORK/workload.out")" = "gcs total=9 gen0=3 gen1=3 gen2=3" ] ||
    fail "workload says $(gc_counts "$WORK/workload.out")"
[ "$(wc -l <"$WORK/rec.out")" -eq 1 ] || fail "record printed more than one line"
size=$(wc -c <"$WORK/a.nettrace")
grep -Eq "^saved $WORK/a.nettrace: $size bytes, complete$summary" "$WORK/rec.out" ||
    fail "not the one-line summary (file of $size bytes)"
end_workload

# record -o - into a pipe.
rm -f "$WORK/in"
start_workload steady 9
mkfifo "$WORK/pipe"
cat "$WORK/pipe" >"$WORK/piped.nettrace" &
CP=$!
"$GCSCOPE" record "$WPID" -o - >"$WORK/pipe" 2>"$WORK/pipe.err" &
RP=$!
wait_attached "$WORK/pipe.err" $RP || fail "record -o - did not attach"
go
wait_for "$WORK/workload.out" '^gcs total=' 60 || fail "workload did not finish"
# the 9 GCs take some 12 KB: let the runtime's buffers reach the pipe first
wait_size "$WORK/piped.nettrace" 6000 || fail "the stream did not come through the pipe"
kill -TERM $RP
wait $RP; rc=$?
wait $CP
cat "$WORK/pipe.err"
[ $rc -eq 0 ] || fail "record -o - exit $rc"
size=$(wc -c <"$WORK/piped.nettrace")
grep -Eq "^saved to stdout: $size bytes, complete$summary" "$WORK/pipe.err" ||
    fail "no one-line summary on stderr (stream of $size bytes)"
"$GCSCOPE" stats "$WORK/piped.nettrace" >"$WORK/stats.out" 2>"$WORK/stats.err" ||
    { cat "$WORK/stats.err"; fail "the piped stream does not read back"; }
[ "$(stats_rows "$WORK/piped.nettrace" | awk '{print $4}' | tr '\n' ' ')" = \
  "0NI 1NI 2NI 0NI 1NI 2NI 0NI 1NI 2NI " ] || fail "the piped stream does not hold the 9 GCs"
end_workload
echo ok
