#!/bin/sh
# `gcscope record -o` is checked before attaching: each case below names a
# process that does not exist, so an answer about -o (and not "no such
# process") shows the check came first.
#   -o DIR                     exit 1, "is a directory", nothing written
#   -o EXISTING                exit 1, "--force overwrites it", file unchanged
#   -o EXISTING --force        accepted: the attach is tried (no such
#                              process, exit 2) and the file is unchanged
#   -o MISSING/x.nettrace      exit 2, "no such directory"
#   -o READONLY_DIR/x.nettrace exit 2, "not writable" (not as root: root
#                              writes everywhere)
#   -o - with stdout a file already written to: exit 1 (the stream would
#                              overwrite it)
# Nothing is ever printed on stdout.
. tests/cli/live_lib.inc

NOPID=2147483000
# expect CODE PATTERN ARGS...: gcscope record NOPID ARGS exits CODE with one
# stderr line matching PATTERN and nothing on stdout.
expect() {
    code=$1 pattern=$2
    shift 2
    "$GCSCOPE" record $NOPID "$@" >"$WORK/out" 2>"$WORK/err"
    rc=$?
    [ $rc -eq "$code" ] || { cat "$WORK/err"; fail "record $*: exit $rc, want $code"; }
    grep -q -- "$pattern" "$WORK/err" || { cat "$WORK/err"; fail "record $*: no '$pattern'"; }
    [ "$(wc -l <"$WORK/err")" -eq 1 ] || { cat "$WORK/err"; fail "record $*: more than one line"; }
    [ -s "$WORK/out" ] && fail "record $*: wrote on stdout"
    echo "record $*: exit $code: $(cat "$WORK/err")"
}

mkdir "$WORK/dir"
expect 1 "$WORK/dir: is a directory; -o takes a file" -o "$WORK/dir"
ls -A "$WORK/dir" | grep -q . && fail "something was written in the directory"

echo "keep me" >"$WORK/old.nettrace"
expect 1 "old.nettrace: exists; --force overwrites it" -o "$WORK/old.nettrace"
expect 1 "exists; --force" --output="$WORK/old.nettrace"
expect 2 "no such process: $NOPID" -o "$WORK/old.nettrace" --force
[ "$(cat "$WORK/old.nettrace")" = "keep me" ] || fail "the existing file was changed"

expect 2 "no such directory: $WORK/missing" -o "$WORK/missing/x.nettrace"
[ -e "$WORK/missing" ] && fail "the missing directory was created"

if [ "$(id -u)" -ne 0 ]; then
    mkdir "$WORK/ro"
    chmod 555 "$WORK/ro"
    expect 2 "directory $WORK/ro is not writable" -o "$WORK/ro/x.nettrace"
    chmod 755 "$WORK/ro"
else
    echo "skipped: the read-only directory case (running as root)"
fi

# A new file in a writable folder passes the check: the attach is tried.
expect 2 "no such process: $NOPID" -o "$WORK/new.nettrace"
[ -e "$WORK/new.nettrace" ] && fail "a file was created for a process that does not exist"

# -o - onto a file already written to (here, opened for appending).
echo "earlier output" >"$WORK/log"
"$GCSCOPE" record $NOPID -o - >>"$WORK/log" 2>"$WORK/err"
rc=$?
[ $rc -eq 1 ] || fail "-o - onto a written file: exit $rc"
grep -q -- "-o -: stdout is a file already written to" "$WORK/err" || { cat "$WORK/err"; fail "-o - message"; }
[ "$(cat "$WORK/log")" = "earlier output" ] || fail "-o - changed the file"
# -o - onto a pipe passes the check; the message goes to stderr.
"$GCSCOPE" record $NOPID -o - 2>"$WORK/err" | cat >"$WORK/piped"
grep -q "no such process" "$WORK/err" || { cat "$WORK/err"; fail "-o - onto a pipe"; }
[ -s "$WORK/piped" ] && fail "-o - wrote on the pipe without a session"
echo ok
