#!/bin/sh
# ETL end to end through the CLI: a real fixture written as an ETW log by
# our writer (tests/tools/etl_write: 6 processors' 8 KiB buffers, so that
# the reader's per-processor merge puts them back in order) prints exactly
# the same runtime events (name, MSec, pid, tid, fields) and the same GC
# tables as the original; a 32-bit log of the writer is read as one; a file
# cut inside a buffer fails with that buffer's offset.
BUILD=${BUILD:-build}
GCSCOPE=${GCSCOPE:-$BUILD/asan/gcscope}
WRITER="$BUILD/asan/tools/etl_write"
[ -x "$WRITER" ] || { echo "FAIL: $WRITER not built"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trace=tests/data/gen0size-small.nettrace
[ -f "$trace" ] || { echo "skipped: $trace is missing"; exit 0; }
"$WRITER" --cpus 6 --buffer-size 8192 "$trace" "$tmp/t.etl" 2>"$tmp/writer.err" ||
    { echo "FAIL: writer on $trace"; cat "$tmp/writer.err"; exit 1; }
"$GCSCOPE" info "$tmp/t.etl" | grep -q "^format: *etl" ||
    { echo "FAIL: not read as ETL"; exit 1; }
# Runtime events only: the writer gives other providers (EventPipe's own)
# made-up GUIDs, and the ETL has its header event.
"$GCSCOPE" events "$trace" | grep "Microsoft-Windows-DotNETRuntime" > "$tmp/orig.txt"
"$GCSCOPE" events "$tmp/t.etl" | grep "Microsoft-Windows-DotNETRuntime" > "$tmp/etl.txt"
[ -s "$tmp/orig.txt" ] || { echo "FAIL: no runtime events in $trace"; exit 1; }
if ! cmp -s "$tmp/orig.txt" "$tmp/etl.txt"; then
    echo "FAIL: runtime events differ after ETL"
    diff "$tmp/orig.txt" "$tmp/etl.txt" | head -20
    exit 1
fi
# The GC tables (the process header above them names the file and the
# trace's span, which the ETL's header event starts at 0).
"$GCSCOPE" stats "$trace" | sed -n '/^GC Rollup/,$p' > "$tmp/orig.stats"
"$GCSCOPE" stats "$tmp/t.etl" | sed -n '/^GC Rollup/,$p' > "$tmp/etl.stats"
[ "$(wc -l < "$tmp/orig.stats")" -gt 20 ] || { echo "FAIL: no GC tables for $trace"; exit 1; }
if ! cmp -s "$tmp/orig.stats" "$tmp/etl.stats"; then
    echo "FAIL: stats differ after ETL"
    diff "$tmp/orig.stats" "$tmp/etl.stats" | head -20
    exit 1
fi
echo "ok: $trace: $(wc -l < "$tmp/orig.txt") runtime events and the GC tables identical as ETL"

"$WRITER" --synthetic --pointer-size 4 --gcs 5 --handles 20 "$tmp/s32.etl" 2>/dev/null ||
    { echo "FAIL: writer --synthetic --pointer-size 4"; exit 1; }
"$GCSCOPE" info "$tmp/s32.etl" > "$tmp/s32.info"
grep -q "^pointer size: *4" "$tmp/s32.info" && grep -q "^undecodable: *0" "$tmp/s32.info" ||
    { echo "FAIL: 32-bit log:"; cat "$tmp/s32.info"; exit 1; }
"$GCSCOPE" stats "$tmp/s32.etl" | grep -q "GCs *5 complete, 0 incomplete" ||
    { echo "FAIL: 32-bit log: not 5 complete GCs"; exit 1; }

head -c 20000 "$tmp/t.etl" > "$tmp/cut.etl"
if "$GCSCOPE" events "$tmp/cut.etl" > /dev/null 2> "$tmp/cut.err"; then
    echo "FAIL: a cut ETL file was read without error"
    exit 1
fi
grep -q "offset 16384.*ETL buffer of 8192 bytes, 3616 present" "$tmp/cut.err" ||
    { echo "FAIL: cut ETL error does not name the buffer:"; cat "$tmp/cut.err"; exit 1; }
echo "ok: 32-bit log, cut file"
exit 0
