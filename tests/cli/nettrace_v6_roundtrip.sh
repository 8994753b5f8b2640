#!/bin/sh
# nettrace V6 end to end through the CLI: real fixtures converted to V6 by
# the test writer (both event encodings) print exactly the same events as
# the originals; a V6 file cut inside a block fails with the block's offset.
BUILD=${BUILD:-build}
GCSCOPE=${GCSCOPE:-$BUILD/asan/gcscope}
WRITER="$BUILD/asan/tools/nettrace_v6_write"
[ -x "$WRITER" ] || { echo "FAIL: $WRITER not built"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
checked=0
for trace in tests/data/wks-concurrent.nettrace tests/data/objects-movement.nettrace; do
    if [ ! -f "$trace" ]; then
        echo "skipped: $trace is missing"
        continue
    fi
    "$GCSCOPE" events "$trace" > "$tmp/orig.txt" || { echo "FAIL: cannot read $trace"; exit 1; }
    for mode in --compressed --uncompressed; do
        opt=""
        [ "$mode" = --uncompressed ] && opt=--uncompressed
        "$WRITER" $opt "$trace" "$tmp/v6.nettrace" 2>"$tmp/writer.err" ||
            { echo "FAIL: writer on $trace"; cat "$tmp/writer.err"; exit 1; }
        "$GCSCOPE" info "$tmp/v6.nettrace" | grep -q "nettrace version 6" ||
            { echo "FAIL: $trace $mode: not read as V6"; exit 1; }
        "$GCSCOPE" events "$tmp/v6.nettrace" > "$tmp/v6.txt" ||
            { echo "FAIL: $trace $mode: V6 unreadable"; exit 1; }
        if ! cmp -s "$tmp/orig.txt" "$tmp/v6.txt"; then
            echo "FAIL: $trace $mode: events differ"
            diff "$tmp/orig.txt" "$tmp/v6.txt" | head -20
            exit 1
        fi
        checked=$((checked + 1))
    done
    echo "ok: $trace: $(wc -l < "$tmp/orig.txt") events identical after V6 (both encodings)"
done
if [ "$checked" -gt 0 ]; then
    head -c 5000 "$tmp/v6.nettrace" > "$tmp/cut.nettrace"
    if "$GCSCOPE" events "$tmp/cut.nettrace" > /dev/null 2> "$tmp/cut.err"; then
        echo "FAIL: a cut V6 file was read without error"
        exit 1
    fi
    grep -q "block (kind 2) at offset [0-9]* declares" "$tmp/cut.err" ||
        { echo "FAIL: cut V6 error does not name the block:"; cat "$tmp/cut.err"; exit 1; }
fi
exit 0
