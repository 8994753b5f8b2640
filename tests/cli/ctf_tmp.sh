#!/bin/sh
# The folder an LTTng .trace.zip is extracted into does not outlive
# gcscope: it is named gcscope-ctf-<pid>-XXXXXX in $TMPDIR, and
#  - gcscope killed by SIGTERM (or SIGINT, SIGHUP) deletes it before dying;
#  - one killed otherwise (SIGKILL) leaves it, and the next gcscope that
#    opens a zip deletes it since its pid is gone, while the folder of a
#    live process is kept.
set -u
G=${GCSCOPE:-build/asan/gcscope}
ZIP=../shared/traces/ctf/clr-only.trace.zip
[ -f "$ZIP" ] || { echo "skipped: $ZIP not present"; exit 0; }
command -v zip > /dev/null || { echo "skipped: the zip command is absent"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "ctf_tmp: $*"; exit 1; }
mkdir "$tmp/t" "$tmp/x"

# A zip that takes a while to extract and read: clr-only's session copied
# 24 times (150 MB; our reader reads it in about a second under ASan).
(cd "$tmp/x" && unzip -q "$OLDPWD/$ZIP") || fail "unzip"
s=$(ls -d "$tmp"/x/clr-only.trace/lttngTrace/auto-*)
i=1
while [ $i -lt 24 ]; do cp -r "$s" "$s-$i"; i=$((i + 1)); done
(cd "$tmp/x" && zip -qr0 ../big.trace.zip clr-only.trace) || fail "zip"

# Starts gcscope stats on the big zip in the background (pid in $bg) and
# waits until its extracted folder exists.
start() {
    TMPDIR="$tmp/t" "$G" stats "$tmp/big.trace.zip" > /dev/null 2>&1 &
    bg=$!
    i=0
    while [ -z "$(ls "$tmp/t" | grep "^gcscope-ctf-$bg-")" ]; do
        i=$((i + 1))
        [ $i -lt 600 ] || fail "no $tmp/t/gcscope-ctf-$bg-* folder appeared"
        kill -0 $bg 2> /dev/null || fail "gcscope ended before its folder was seen"
        sleep 0.05
    done
}

# (SIGINT: a background job of sh ignores it, and gcscope keeps that. So
# does SIGHUP under nohup: then only SIGTERM; SigIgn bit 0 is SIGHUP.)
sigs="TERM HUP"
ignored=$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/$$/status 2>/dev/null)
if [ -n "$ignored" ] && [ $((0x$ignored & 1)) -ne 0 ]; then
    echo "ctf_tmp: SIGHUP is ignored here (nohup?): only SIGTERM is sent"
    sigs="TERM"
fi
for sig in $sigs; do
    start
    kill -$sig $bg
    wait $bg
    rc=$?
    [ $rc -gt 128 ] || fail "SIG$sig: gcscope exited $rc, not killed by the signal"
    [ -z "$(ls -A "$tmp/t")" ] || fail "SIG$sig: left $(ls -A "$tmp/t")"
done

# SIGKILL leaves the folder; the next run deletes it (its pid is gone) but
# keeps the one of a process still alive (this shell's).
start
kill -KILL $bg
wait $bg
stale=$(ls "$tmp/t")
[ -n "$stale" ] || fail "SIGKILL: nothing left to test with"
mkdir "$tmp/t/gcscope-ctf-$$-live00"
TMPDIR="$tmp/t" "$G" info "$ZIP" > /dev/null 2> "$tmp/err" || fail "info: $(cat "$tmp/err")"
[ ! -e "$tmp/t/$stale" ] || fail "the folder of the killed gcscope ($stale) was not deleted"
[ -d "$tmp/t/gcscope-ctf-$$-live00" ] || fail "the folder of a live process was deleted"
[ "$(ls "$tmp/t")" = "gcscope-ctf-$$-live00" ] || fail "left: $(ls "$tmp/t")"
echo "ctf_tmp: ok"
