#!/bin/sh
# gcscope live/record errors: one clear message each, exit 2.
. tests/cli/live_lib.inc

expect_error() { # expect_error PATTERN CMD...
    pat=$1; shift
    "$@" >"$WORK/out" 2>"$WORK/err"; rc=$?
    [ $rc -eq 2 ] || { cat "$WORK/out" "$WORK/err"; fail "exit $rc, not 2: $*"; }
    [ "$(wc -l <"$WORK/err")" -eq 1 ] || { cat "$WORK/err"; fail "not one line: $*"; }
    grep -q -- "$pat" "$WORK/err" || { cat "$WORK/err"; fail "no '$pat': $*"; }
}

# No such process (pids stop at 2^22).
expect_error "no such process: 2147483000" "$GCSCOPE" live 2147483000
expect_error "no such process" "$GCSCOPE" record 2147483000 -o "$WORK/x.nettrace"

# A process without a diagnostic socket: this shell.
expect_error "process $$ has no diagnostic socket" env TMPDIR="$WORK" "$GCSCOPE" live $$

# Each fake server writes its own file: one the previous server wrote still
# says "ready" before the new one has made its socket.
# A socket that is not a runtime: answers garbage.
mkdir "$WORK/sock"
"$FAKE_SERVER" "$WORK/sock" garbage >"$WORK/fake1.out" &
FPID=$!
wait_for "$WORK/fake1.out" '^ready' 10 || fail "fake server did not start"
expect_error 'not a .NET diagnostic server' env TMPDIR="$WORK/sock" "$GCSCOPE" live $FPID
expect_error 'not a .NET diagnostic server' env TMPDIR="$WORK/sock" "$GCSCOPE" record $FPID -o "$WORK/x.nettrace"
expect_error 'not a .NET diagnostic server' "$GCSCOPE" live --socket "$(ls "$WORK"/sock/dotnet-diagnostic-$FPID-*-socket)"
# ps lists it (it has a socket); live finds it by pid.
env TMPDIR="$WORK/sock" "$GCSCOPE" ps | grep -q "^ *$FPID  fake_diag_serve" || fail "ps does not list the fake server"
kill $FPID; wait $FPID 2>/dev/null; FPID=

# A runtime that refuses the command (fake).
"$FAKE_SERVER" "$WORK/sock" refuse 0x80131384 >"$WORK/fake2.out" &
FPID=$!
wait_for "$WORK/fake2.out" '^ready' 10 || fail "fake server did not start"
expect_error 'refused to start the session: error 0x80131384 (bad encoding' env TMPDIR="$WORK/sock" "$GCSCOPE" live $FPID
kill $FPID; wait $FPID 2>/dev/null; FPID=

# Permission denied: a root-owned 0600 socket, reached as another user.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
    chmod 755 "$WORK" "$WORK/sock"
    "$FAKE_SERVER" "$WORK/sock" private >"$WORK/fake3.out" &
    FPID=$!
    wait_for "$WORK/fake3.out" '^ready' 10 || fail "fake server did not start"
    expect_error 'permission denied' env TMPDIR="$WORK/sock" ASAN_OPTIONS=detect_leaks=0 \
        setpriv --reuid=65534 --regid=65534 --clear-groups "$GCSCOPE" live $FPID
    kill $FPID; wait $FPID 2>/dev/null; FPID=
elif [ "$(id -u)" != 0 ]; then
    "$FAKE_SERVER" "$WORK/sock" private >"$WORK/fake4.out" &
    FPID=$!
    wait_for "$WORK/fake4.out" '^ready' 10 || fail "fake server did not start"
    chmod 000 "$WORK/sock"/dotnet-diagnostic-$FPID-*-socket
    expect_error 'permission denied' env TMPDIR="$WORK/sock" "$GCSCOPE" live $FPID
    kill $FPID; wait $FPID 2>/dev/null; FPID=
else
    echo "skipped: permission test (root without setpriv cannot be refused)"
fi

# Usage errors are exit 1.
"$GCSCOPE" live notapid 2>/dev/null; [ $? -eq 1 ] || fail "bad pid is not a usage error"
"$GCSCOPE" record 1 2>/dev/null; [ $? -eq 1 ] || fail "record without -o is not a usage error"

# A real runtime that refuses the configuration (level 99).
need_dotnet "live_errors: refusing runtime"
build_workload
start_workload steady 1
expect_error 'refused to start the session: error 0x80131384' \
    "$GCSCOPE" live "$WPID" --providers Microsoft-Windows-DotNETRuntime:0x1:99
go
end_workload
echo "ok"
