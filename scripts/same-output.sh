#!/bin/sh
# same-output.sh - two gcscope builds give the same output (stdout,
# stderr and exit status) for every command on every trace: how this
# project checks that a speed-up changed nothing (docs/performance.md:
# "output identical on N trace/format pairs").
#
#   sh scripts/same-output.sh [-c 'COMMAND'] ... OLD NEW [TRACE...]
#
#   -c COMMAND  a gcscope command with its options, e.g. 'objects --format
#               json' (repeatable; default: objects as table, JSON and CSV)
#   TRACE       more traces (files or CTF folders), e.g. heads of the bench
#               traces (`head -c 31457280 bench/out/cpu.nettrace > HEAD`)
#   It always reads the fixtures (tests/data: nettrace, netperf, CTF) and,
#   when ../shared is there, its perfview nettrace, netperf and ETL files
#   and its zipped LTTng traces. Each run is `BIN COMMAND TRACE`.
#
# Prints one line per difference ("differs: COMMAND TRACE") and a last
# line "compared: N, differing: M"; exits 1 when M > 0.
set -u
CMDS=""
while [ $# -gt 0 ]; do
    case $1 in
    -c) CMDS="$CMDS
$2"; shift 2 ;;
    *) break ;;
    esac
done
[ $# -ge 2 ] || { sed -n '2,17p' "$0" >&2; exit 2; }
OLD=$1 NEW=$2
shift 2
[ -n "$CMDS" ] || CMDS="objects
objects --format json
objects --format csv"
SHARED=${GCSCOPE_SHARED:-../shared/traces}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 bad=0
run() { # BIN COMMAND TRACE OUT
    # shellcheck disable=SC2086
    "$1" $2 "$3" > "$4" 2>&1
    echo "exit $?" >> "$4"
}
for trace in tests/data/*.nettrace tests/data/*.netperf tests/data/ctf/* \
             "$SHARED"/perfview/*.nettrace "$SHARED"/perfview/*.netperf \
             "$SHARED"/perfview/*.etl "$SHARED"/ctf/*.zip "$@"; do
    [ -e "$trace" ] || continue
    echo "$CMDS" | while IFS= read -r cmd; do
        [ -n "$cmd" ] || continue
        run "$OLD" "$cmd" "$trace" "$tmp/old"
        run "$NEW" "$cmd" "$trace" "$tmp/new"
        if cmp -s "$tmp/old" "$tmp/new"; then echo same; else echo "differs: $cmd $trace"; fi
    done
done > "$tmp/log"
n=$(grep -c . "$tmp/log")
bad=$(grep -c '^differs: ' "$tmp/log")
grep '^differs: ' "$tmp/log"
echo "compared: $n, differing: $bad"
[ "$bad" -eq 0 ]
