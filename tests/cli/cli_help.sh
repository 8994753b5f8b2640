#!/bin/sh
# Help, option errors and exit codes, the same for every subcommand
# (docs/cli.md): the commands are read from `gcscope help`, so a new one is
# checked without touching this file.
#   --help / -h        usage on stdout, nothing on stderr, exit 0
#   help CMD           exactly CMD --help
#   unknown option     one line naming it, then the usage, on stderr; exit 1
#   option w/o value   the same (every option the usage lists with a value)
#   --version / -V     "gcscope VERSION" (include/gcscope/core.h), exit 0
#   a directory as TRACE, a cut trace: one line on stderr, exit 2
set -u
G=${GCSCOPE:-build/asan/gcscope}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
n_valued=0
fail() { echo "cli_help: $*"; bad=1; }

# run NAME ARGS...: stdout, stderr and exit code in $tmp/NAME.{out,err,rc}
run() {
    name=$1; shift
    "$G" "$@" > "$tmp/$name.out" 2> "$tmp/$name.err"
    echo $? > "$tmp/$name.rc"
}
rc() { cat "$tmp/$1.rc"; }
lines() { wc -l < "$tmp/$1"; }

# The list: `gcscope help` on stdout (exit 0), bare `gcscope` on stderr (exit 1).
run list help
[ "$(rc list)" -eq 0 ] || fail "help: exit $(rc list)"
[ -s "$tmp/list.err" ] && fail "help: stderr: $(head -3 "$tmp/list.err")"
cmds=$(awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }' "$tmp/list.out")
n=$(echo "$cmds" | grep -c .)
for known in info events stats objects allocs ps live record help; do
    echo "$cmds" | grep -qx "$known" || fail "help does not list $known (lists: $(echo $cmds))"
done
run bare
[ "$(rc bare)" -eq 1 ] || fail "gcscope alone: exit $(rc bare), want 1"
[ -s "$tmp/bare.out" ] && fail "gcscope alone: stdout not empty"
cmp -s "$tmp/bare.err" "$tmp/list.out" || fail "gcscope alone: stderr is not the list of gcscope help"
for h in --help -h; do
    run top "$h"
    [ "$(rc top)" -eq 0 ] && cmp -s "$tmp/top.out" "$tmp/list.out" || fail "gcscope $h: not the list, exit 0"
done
run nocmd no-such-command
[ "$(rc nocmd)" -eq 1 ] && grep -q "unknown command 'no-such-command'" "$tmp/nocmd.err" ||
    fail "unknown command: exit $(rc nocmd): $(head -1 "$tmp/nocmd.err")"
run topopt --no-such-option
[ "$(rc topopt)" -eq 1 ] && grep -q "unknown option --no-such-option" "$tmp/topopt.err" ||
    fail "gcscope --no-such-option: exit $(rc topopt): $(head -1 "$tmp/topopt.err")"
run nohelp help no-such-command
[ "$(rc nohelp)" -eq 1 ] || fail "help no-such-command: exit $(rc nohelp), want 1"

# --version and -V.
version=$(sed -n 's/^#define GCS_VERSION_STRING "\(.*\)"$/\1/p' include/gcscope/core.h)
[ -n "$version" ] || fail "no GCS_VERSION_STRING in include/gcscope/core.h"
for v in --version -V; do
    run ver "$v"
    [ "$(rc ver)" -eq 0 ] || fail "$v: exit $(rc ver)"
    [ "$(cat "$tmp/ver.out")" = "gcscope $version" ] || fail "$v: '$(cat "$tmp/ver.out")', want 'gcscope $version'"
    [ -s "$tmp/ver.err" ] && fail "$v: stderr: $(cat "$tmp/ver.err")"
done

# A usage error: exit 1, nothing on stdout, one line "gcscope CMD: ..." and
# then the usage on stderr.
usage_error() { # usage_error NAME CMD WHAT
    [ "$(rc "$1")" -eq 1 ] || fail "$3: exit $(rc "$1"), want 1"
    [ -s "$tmp/$1.out" ] && fail "$3: stdout not empty"
    head -1 "$tmp/$1.err" | grep -q "^gcscope $2: " || fail "$3: first line: $(head -1 "$tmp/$1.err")"
    sed -n 2p "$tmp/$1.err" | grep -q "^usage: gcscope $2 " || fail "$3: no usage after the error line"
}

for c in $cmds; do
    run help "$c" --help
    [ "$(rc help)" -eq 0 ] || fail "$c --help: exit $(rc help)"
    grep -q "usage" "$tmp/help.out" || fail "$c --help: no usage on stdout"
    [ -s "$tmp/help.err" ] && fail "$c --help: stderr: $(head -3 "$tmp/help.err")"
    run short "$c" -h
    [ "$(rc short)" -eq 0 ] && cmp -s "$tmp/short.out" "$tmp/help.out" || fail "$c -h is not $c --help"
    run helpcmd help "$c"
    [ "$(rc helpcmd)" -eq 0 ] && cmp -s "$tmp/helpcmd.out" "$tmp/help.out" || fail "help $c is not $c --help"

    run unknown "$c" --no-such-option
    usage_error unknown "$c" "$c --no-such-option"
    grep -q -- "unknown option --no-such-option" "$tmp/unknown.err" || fail "$c: the error does not name the option"

    # Every option the usage shows with a value, given without one.
    for opt in $(sed -n 's/^  \(-., \)\{0,1\} *\(--[a-z][a-z-]*\) [A-Za-z|.][A-Za-z|.]*  .*/\2/p' "$tmp/help.out"); do
        run noval "$c" "$opt"
        n_valued=$((n_valued + 1))
        usage_error noval "$c" "$c $opt without its value"
    done

    # A directory where a trace belongs (and which holds no CTF trace).
    if grep -q "^usage: gcscope $c .*TRACE" "$tmp/help.out"; then
        # check reads nothing without a limit (a usage error first).
        if [ "$c" = check ]; then run dir "$c" --max-gen2 1000 "$tmp"; else run dir "$c" "$tmp"; fi
        [ "$(rc dir)" -eq 2 ] || fail "$c DIR: exit $(rc dir), want 2"
        [ "$(lines dir.err)" -eq 1 ] && grep -q "$tmp.*holds no CTF trace" "$tmp/dir.err" ||
            fail "$c DIR: $(head -3 "$tmp/dir.err")"
    fi
done
[ "$n" -ge 8 ] || fail "only $n commands read from gcscope help"
[ "$n_valued" -ge 10 ] || fail "only $n_valued options with a value read from the usages"

# Invalid values (each command's own check, after the shared parser).
for args in "stats --process abc" "stats --format xml" "events --limit -5" "events --limit x" \
    "info --format csv" "objects --format xml" "live --buffer-mb 0" "live --duration -1" \
    "live notapid" "record 1" "ps extra"; do
    # shellcheck disable=SC2086
    run inval $args
    usage_error inval "${args%% *}" "$args"
done

# --replay takes a trace too.
run dir live --replay "$tmp"
[ "$(rc dir)" -eq 2 ] && [ "$(lines dir.err)" -eq 1 ] && grep -q "$tmp: is a directory" "$tmp/dir.err" ||
    fail "live --replay DIR: exit $(rc dir): $(head -3 "$tmp/dir.err")"

# A cut trace: one line that says "truncated" once.
head -c 100000 tests/data/wks-nonconcurrent.nettrace > "$tmp/cut.nettrace"
for c in info events stats objects; do
    run cut "$c" "$tmp/cut.nettrace"
    [ "$(rc cut)" -eq 2 ] || fail "$c on a cut trace: exit $(rc cut)"
    [ "$(lines cut.err)" -eq 1 ] && [ "$(grep -o truncated "$tmp/cut.err" | wc -l)" -eq 1 ] ||
        fail "$c on a cut trace: $(cat "$tmp/cut.err")"
done

[ $bad -eq 0 ] || exit 1
echo "cli_help: ok ($n commands, $n_valued options with a value)"
