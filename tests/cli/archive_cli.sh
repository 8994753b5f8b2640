#!/bin/sh
# Zipped and compressed traces from the command line: info, events, stats
# and objects on a .nettrace.gz, .nettrace.zip (made here with gzip and
# python3's zipfile, or the zip tool) and PerfView's .etl.zip print exactly
# what the plain trace prints (stats' header line names the file: compared
# with the name replaced); info names the member; --member picks one; a
# cut or damaged archive is bad input (exit 2, one line naming the member,
# the events before the fault still printed).
set -u
G=${GCSCOPE:-build/asan/gcscope}
T=tests/data/objects-allocsampled.nettrace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "archive_cli: $*"; exit 1; }

# make_zip OUT FILE...: a deflated zip of the files (by their base names).
make_zip() {
    out=$1
    shift
    if command -v python3 > /dev/null 2>&1; then
        python3 - "$out" "$@" <<'EOF' || return 1
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    for f in sys.argv[2:]:
        z.write(f, os.path.basename(f))
EOF
    elif command -v zip > /dev/null 2>&1; then
        zip -q -j "$out" "$@" || return 1
    else
        return 2
    fi
}

# same_output NAME PLAIN PACKED CMD...: CMD's output on both is the same.
same_output() {
    what=$1 plain=$2 packed=$3
    shift 3
    "$G" "$@" "$plain" > "$tmp/plain.out" 2>&1 || fail "$what: $* on $plain: exit $?"
    "$G" "$@" "$packed" > "$tmp/packed.out" 2>&1 || fail "$what: $* on $packed: exit $?"
    # The file's name, and info's note on the archive (checked below), masked.
    mask="s|$packed|TRACE|; s|$plain|TRACE|; s|${packed##*/}|TRACE|; s|${plain##*/}|TRACE|; s/ \((zip|gzip)( member [^)]*)?\)\$//"
    mask="$mask; s/,\"archive\":\"[a-z]*\",\"member\":\"[^\"]*\"//"
    sed -E "$mask" "$tmp/plain.out" > "$tmp/a"
    sed -E "$mask" "$tmp/packed.out" > "$tmp/b"
    cmp -s "$tmp/a" "$tmp/b" || { diff "$tmp/a" "$tmp/b" | head -5; fail "$what: $* differs"; }
    [ -s "$tmp/a" ] || fail "$what: $* printed nothing"
}

cp "$T" "$tmp/t.nettrace"
gzip -c "$T" > "$tmp/t.nettrace.gz" || fail "gzip failed"
printf 'collection log\n' > "$tmp/LogFile.txt"
for cmd in "events" "stats" "objects" "info --format json"; do
    # shellcheck disable=SC2086 # cmd is a command and its options
    same_output gzip "$tmp/t.nettrace" "$tmp/t.nettrace.gz" $cmd
done
"$G" info "$tmp/t.nettrace.gz" | grep -qx "file: *$tmp/t.nettrace.gz (gzip)" ||
    fail "info does not say gzip"
# Standard input.
"$G" events - < "$tmp/t.nettrace.gz" > "$tmp/stdin.out" || fail "events - exit $?"
"$G" events "$T" | cmp -s - "$tmp/stdin.out" || fail "gzip on standard input differs"

make_zip "$tmp/t.nettrace.zip" "$tmp/LogFile.txt" "$tmp/t.nettrace" "$tmp/t.nettrace.gz"
rc=$?
if [ $rc -eq 2 ]; then
    echo "skipped: zip tests (neither python3 nor zip)"
elif [ $rc -ne 0 ]; then
    fail "cannot make a zip"
else
    for cmd in "events" "stats" "objects" "info"; do
        # shellcheck disable=SC2086
        same_output zip "$tmp/t.nettrace" "$tmp/t.nettrace.zip" $cmd
    done
    "$G" info "$tmp/t.nettrace.zip" | grep -qx "file: *$tmp/t.nettrace.zip (zip member t.nettrace)" ||
        fail "info does not name the member"
    "$G" info --format json "$tmp/t.nettrace.zip" | grep -q '"archive":"zip","member":"t.nettrace"' ||
        fail "info JSON does not name the member"
    # --member: a member by name; one that is not there is named with the others.
    "$G" info --member LogFile.txt "$tmp/t.nettrace.zip" > /dev/null 2> "$tmp/err"
    [ $? -eq 2 ] || fail "--member LogFile.txt: exit not 2"
    grep -q "not a trace.*(in zip member LogFile.txt)" "$tmp/err" || fail "--member LogFile.txt: $(cat "$tmp/err")"
    "$G" stats --member nope "$tmp/t.nettrace.zip" > /dev/null 2> "$tmp/err"
    [ $? -eq 2 ] || fail "--member nope: exit not 2"
    grep -qx "gcscope: $tmp/t.nettrace.zip: no member nope in the zip (members: LogFile.txt, t.nettrace, t.nettrace.gz)" \
        "$tmp/err" || fail "--member nope: $(cat "$tmp/err")"

    # A zip cut inside the trace member: its events up to there, then one line.
    size=$(wc -c < "$tmp/t.nettrace.zip")
    head -c $((size / 3)) "$tmp/t.nettrace.zip" > "$tmp/cut.zip"
    "$G" events "$tmp/cut.zip" > "$tmp/cut.out" 2> "$tmp/err"
    [ $? -eq 2 ] || fail "cut zip: exit not 2"
    [ "$(wc -l < "$tmp/err")" -eq 1 ] || fail "cut zip: $(cat "$tmp/err")"
    grep -q "^gcscope: $tmp/cut.zip: truncated at byte offset [0-9]*: zip member t.nettrace: " "$tmp/err" ||
        fail "cut zip: $(cat "$tmp/err")"
    n=$(wc -l < "$tmp/cut.out")
    [ "$n" -gt 100 ] || fail "cut zip: only $n events before the fault"
    "$G" events "$T" | head -n "$n" | cmp -s - "$tmp/cut.out" || fail "cut zip: the events before the cut differ"
fi

# A zip with no trace names its members.
if [ $rc -eq 0 ]; then
    make_zip "$tmp/log.zip" "$tmp/LogFile.txt" || fail "cannot make a zip"
    "$G" stats "$tmp/log.zip" > /dev/null 2> "$tmp/err"
    [ $? -eq 2 ] || fail "zip without a trace: exit not 2"
    grep -qx "gcscope: $tmp/log.zip: not a trace: no member of the zip is a nettrace, netperf or ETL trace (members: LogFile.txt)" \
        "$tmp/err" || fail "zip without a trace: $(cat "$tmp/err")"
fi

# A gzip cut short.
size=$(wc -c < "$tmp/t.nettrace.gz")
head -c $((size / 2)) "$tmp/t.nettrace.gz" > "$tmp/cut.gz"
"$G" info "$tmp/cut.gz" > /dev/null 2> "$tmp/err"
[ $? -eq 2 ] || fail "cut gzip: exit not 2"
grep -q "truncated at byte offset [0-9]*: gzip data: truncated gzip input" "$tmp/err" ||
    fail "cut gzip: $(cat "$tmp/err")"

# PerfView's .etl.zip: exactly what the unzipped .etl prints.
Z=../shared/traces/perfview/net.4.5.2.x86.etl.zip
if [ ! -f "$Z" ]; then
    echo "skipped: PerfView .etl.zip (../shared absent)"
elif ! command -v unzip > /dev/null 2>&1; then
    echo "skipped: PerfView .etl.zip (unzip absent)"
else
    cp "$Z" "$tmp/net.etl.zip"
    unzip -p "$Z" net.4.5.2.x86.etl > "$tmp/net.etl" || fail "unzip failed"
    for cmd in "events" "stats" "info"; do
        # shellcheck disable=SC2086
        same_output etl.zip "$tmp/net.etl" "$tmp/net.etl.zip" $cmd
    done
    "$G" info "$tmp/net.etl.zip" | grep -qx "file: *$tmp/net.etl.zip (zip member net.4.5.2.x86.etl)" ||
        fail "etl.zip: info does not name the member"
fi

# perfcollect's .trace.zip (an LTTng CTF trace) is read from the file (the
# CTF reader extracts it); from standard input it is named for what it is.
C=../shared/traces/ctf/clr-only.trace.zip
if [ -f "$C" ]; then
    "$G" info "$C" > "$tmp/out" 2> "$tmp/err" || fail "trace.zip: exit $?: $(cat "$tmp/err")"
    grep -q "^format: *ctf" "$tmp/out" || fail "trace.zip: not read as CTF"
    "$G" info - < "$C" > /dev/null 2> "$tmp/err"
    [ $? -eq 2 ] || fail "trace.zip on standard input: exit not 2"
    grep -q "^gcscope: -: LTTng CTF trace: the zip holds a CTF trace" "$tmp/err" ||
        fail "trace.zip on standard input: $(cat "$tmp/err")"
else
    echo "skipped: perfcollect .trace.zip (../shared absent)"
fi
echo "archive_cli: ok"
