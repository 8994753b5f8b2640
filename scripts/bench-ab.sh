#!/bin/sh
# bench-ab.sh - two or more gcscope builds on one command and trace, in
# interleaved rounds on one core, best and median of each: how this
# project measures a step against the build before it (docs/performance.md
# "interleaved" figures). On a shared machine the load moves from minute
# to minute; only runs side by side in the same rounds compare.
#
#   sh scripts/bench-ab.sh [-n ROUNDS] [-c CPU] [--cat] TRACE 'COMMAND' BIN...
#
#   ROUNDS  rounds (default 11); each runs every BIN once, in order
#   CPU     the core to pin to (default 0)
#   --cat   also `cat` the trace (a file, or every file of a folder) in
#           each round, the bench's baseline
#   each run is `BIN COMMAND TRACE > /dev/null`, e.g.
#   sh scripts/bench-ab.sh --cat bench/out/ctf.trace info /tmp/old/gcscope build/gcscope
#
# A build of an older commit: `git worktree add /tmp/old COMMIT --detach
# && make -C /tmp/old build/gcscope`.
set -eu
ROUNDS=11 CPU=0 CAT=false
while [ $# -gt 0 ]; do
    case $1 in
    -n) ROUNDS=$2; shift 2 ;;
    -c) CPU=$2; shift 2 ;;
    --cat) CAT=true; shift ;;
    *) break ;;
    esac
done
[ $# -ge 3 ] || { sed -n '2,19p' "$0" >&2; exit 2; }
TRACE=$1 CMD=$2
shift 2
pin=""
command -v taskset >/dev/null 2>&1 && pin="taskset -c $CPU"
ns() { date +%s%N; }
times=$(mktemp)
trap 'rm -f "$times"' EXIT
r=0
while [ "$r" -lt "$ROUNDS" ]; do
    if $CAT; then
        s=$(ns)
        # shellcheck disable=SC2086
        $pin find "$TRACE" -type f -exec cat {} + > /dev/null
        echo "cat $(( $(ns) - s ))" >> "$times"
    fi
    for bin in "$@"; do
        s=$(ns)
        # shellcheck disable=SC2086
        $pin "$bin" $CMD "$TRACE" > /dev/null 2>&1 || true
        echo "$bin $(( $(ns) - s ))" >> "$times"
    done
    r=$((r + 1))
done
echo "$CMD on $TRACE, $ROUNDS rounds interleaved on core $CPU (best, median):"
for name in $($CAT && echo cat) "$@"; do
    grep "^$name " "$times" | awk '{print $2}' | sort -n |
        awk -v n="$name" '{v[NR] = $1} END {
            printf "  %-40s %8.1f ms  %8.1f ms\n", n, v[1] / 1e6, v[int((NR + 1) / 2)] / 1e6 }'
done
