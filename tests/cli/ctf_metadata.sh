#!/bin/sh
# Hostile CTF metadata never hangs gcscope. babeltrace2 2.0.4 loops forever
# on a packetized metadata file cut inside a packet, so gcscope checks the
# metadata itself first (format/ctf/ctf_metadata.c): every metadata file of
# both fixtures cut at each packet boundary and at a spread of offsets, and
# with bytes changed at a spread of offsets, gives either a correct read
# (exit 0) or a clear error (exit 2), within `timeout`; a cut inside a
# packet names the metadata file and the offset of the cut packet.
set -u
G=${GCSCOPE:-build/asan/gcscope}
D=../shared/traces/ctf
[ -f "$D/clr-only.trace.zip" ] && [ -f "$D/netcoreapp31.trace.zip" ] ||
    { echo "skipped: $D/*.trace.zip not present"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "ctf_metadata: $*"; exit 1; }
(cd "$tmp" && unzip -q "$OLDPWD/$D/clr-only.trace.zip" && unzip -q "$OLDPWD/$D/netcoreapp31.trace.zip") ||
    fail "unzip"
runs=0
reader=default

# Runs gcscope info on trace folder $1 with the reader $reader (default:
# ours, falling back to babeltrace2); the exit code in rc, stderr in $tmp/err.
# (Leak checks off where babeltrace2 may see the metadata: its ctf plugin
# leaks 32 bytes on its metadata error path, not ours.)
run() {
    GCSCOPE_CTF_READER=$reader ASAN_OPTIONS=${2:-detect_leaks=1} timeout 60 "$G" info "$1" > /dev/null 2> "$tmp/err"
    rc=$?
    runs=$((runs + 1))
    [ $rc -ne 124 ] || fail "$what: gcscope hung (killed after 60 s)"
    [ $rc -eq 0 ] || [ $rc -eq 2 ] || fail "$what: exit $rc: $(cat "$tmp/err")"
    [ $rc -eq 0 ] || grep -q '^gcscope: ' "$tmp/err" || fail "$what: exit 2 without an error: $(cat "$tmp/err")"
}

u32le() { od -An -tu4 --endian=little -j "$2" -N4 "$1" | tr -d ' '; }

for m in $(find "$tmp" -name metadata | LC_ALL=C sort); do
    trace=$(dirname "$m")
    cp "$m" "$tmp/whole"
    size=$(wc -c < "$m")
    psize=$(($(u32le "$m" 28) / 8)) # the first packet's size: LTTng's are all alike
    [ "$psize" -gt 37 ] || fail "$m: no packet size in its first header"

    # Cuts at every packet boundary: whole packets, the text possibly cut
    # between declarations (babeltrace2 may then read or refuse the trace).
    b=$psize
    while [ "$b" -lt "$size" ]; do
        what="$m cut at the packet boundary $b"
        head -c "$b" "$tmp/whole" > "$m"
        run "$trace" detect_leaks=0
        b=$((b + psize))
    done
    # Cuts inside packets (the cut that made babeltrace2 loop forever).
    for cut in 1 20 36 37 100 $((psize + 17)) $((size / 3)) $((size / 2)) $((size - psize / 2)) $((size - 1)); do
        [ $((cut % psize)) -ne 0 ] || continue # a boundary: above
        head -c "$cut" "$tmp/whole" > "$m"
        # Both readers: ours checks the shape as it reads; the babeltrace2
        # path must check it before babeltrace2 sees the file.
        for reader in native babeltrace; do
            what="$m cut at byte $cut ($reader)"
            run "$trace"
            [ $rc -eq 2 ] || fail "$what: exit $rc, not 2"
            start=$((cut / psize * psize))
            grep -q "truncated at byte offset $start: metadata file .*/metadata: ends at byte $cut inside the \(header of the \)\?packet at byte $start" "$tmp/err" ||
                fail "$what: stderr does not name the file and offset: $(cat "$tmp/err")"
        done
        reader=default
    done
    what="$m emptied"
    : > "$m"
    run "$trace"
    grep -q "metadata file .*/metadata: neither packetized" "$tmp/err" || fail "$what: $(cat "$tmp/err")"

    # Changed bytes: headers (magic, uuid, sizes, version) and text.
    for off in 0 3 5 25 29 33 36 37 40 $((psize + 24)) $((psize + 60)) $((size / 5)) $((size / 2 + 11)) $((size - psize + 1000)); do
        [ "$off" -lt "$size" ] || continue
        what="$m with byte $off changed"
        cp "$tmp/whole" "$m"
        byte=$(od -An -tu1 -j "$off" -N1 "$m" | tr -d ' ')
        printf "\\$(printf %o $((byte ^ 0x5a)))" | dd of="$m" bs=1 seek="$off" conv=notrunc 2>/dev/null
        run "$trace" detect_leaks=0
    done
    cp "$tmp/whole" "$m"
done

# A brace of the text changed: the error names the file and the offset
# where the text ends unbalanced. (Byte 8150 of clr-only's user-space
# metadata is a '{' of an event declaration.)
m=$(ls "$tmp"/clr-only.trace/lttngTrace/auto-*/ust/uid/1000/64-bit/metadata)
cp "$m" "$tmp/whole"
[ "$(od -An -c -j 8150 -N1 "$m" | tr -d ' ')" = "{" ] || fail "byte 8150 of $m is not a '{'"
printf ' ' | dd of="$m" bs=1 seek=8150 conv=notrunc 2>/dev/null
what="$m without the '{' at byte 8150"
run "$(dirname "$m")"
[ $rc -eq 2 ] && grep -q "corrupt at byte offset [0-9]*: metadata file .*/metadata: a '}' closes" "$tmp/err" ||
    fail "$what: exit $rc: $(cat "$tmp/err")"
cp "$tmp/whole" "$m"

# Zipped: the metadata file is named by its path in the zip.
head -c 5000 "$tmp/whole" > "$m"
(cd "$tmp" && zip -qr cut.trace.zip clr-only.trace) || fail "zip"
what="cut.trace.zip"
run "$tmp/cut.trace.zip"
grep -q "cut.trace.zip: truncated at byte offset 4096: metadata file clr-only.trace/lttngTrace/auto-[0-9-]*/ust/uid/1000/64-bit/metadata: ends at byte 5000" "$tmp/err" ||
    fail "$what: $(cat "$tmp/err")"
echo "ctf_metadata: ok ($runs runs)"
