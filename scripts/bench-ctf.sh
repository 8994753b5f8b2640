#!/bin/sh
# bench-ctf.sh - events/s of `gcscope info` and `gcscope stats` on the
# larger LTTng fixture (clr-only.trace.zip, 32762 events), zipped and as a
# folder, against TraceEvent's CtfTraceEventSource on the same zip (the
# oracle's `summary`, which reads every event). Best of N runs (default 5).
# Usage: scripts/bench-ctf.sh [GCSCOPE] [ORACLE_DLL] [N]
set -eu
G=${1:-build/gcscope}
O=${2:-build/oracle/bin/oracle/release/oracle.dll}
N=${3:-5}
ZIP=${CTF_TRACE:-../shared/traces/ctf/clr-only.trace.zip}
[ -f "$ZIP" ] || { echo "skipped: $ZIP not present"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && unzip -q "$OLDPWD/$ZIP")
DIR=$(ls -d "$tmp"/*/)
events=$("$G" info --format json "$ZIP" | sed 's/.*"events":\([0-9]*\).*/\1/')
best() { # best wall time in seconds of N runs of "$@"
    b=
    for _ in $(seq "$N"); do
        s=$(date +%s.%N); "$@" > /dev/null 2>&1 || true; e=$(date +%s.%N)
        t=$(echo "$e - $s" | bc -l)
        if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" -eq 1 ]; then b=$t; fi
    done
    echo "$b"
}
row() { t=$(best "$@"); printf '%-44s %8.3f s %12.0f events/s\n' "$label" "$t" "$(echo "$events / $t" | bc -l)"; }
echo "trace: $ZIP ($events events), best of $N"
label="gcscope info (zip)";    row "$G" info "$ZIP"
label="gcscope stats (zip)";   row "$G" stats "$ZIP"
label="gcscope info (folder)"; row "$G" info "$DIR"
label="gcscope stats (folder)"; row "$G" stats "$DIR"
if command -v dotnet > /dev/null && [ -f "$O" ]; then
    label="TraceEvent CtfTraceEventSource (summary)"; row dotnet "$O" summary "$ZIP"
    label="TraceEvent CtfTraceEventSource (gcstats)"; row dotnet "$O" gcstats "$ZIP"
else
    echo "TraceEvent: skipped (no dotnet or no $O)"
fi
