#!/bin/sh
# TraceEvent's own numbers on any trace: `gcscope stats --format json`
# against the oracle's `gcstats` (tools/oracle: TraceLoadedDotNetRuntime's
# GC analysis, TraceEvent 4.0.0), compared as test_gc_oracle compares the
# fixtures: every GC matched by number, generation, type, reason and
# completeness equal, every number gcscope prints with 6 decimals equal to
# TraceEvent's double rounded to 6 decimals, the per-generation rollups and
# the summary likewise (the named deliberate differences aside:
# tests/unit/test_gc_oracle.c).
#
#   sh scripts/check-oracle.sh [-g build/gcscope] [--events] [--allocs] [TRACE...]
#
# --events: every event too, field by field, against TraceEvent's reading
# (`oracle dump --all`, compared as test_te_agreement compares the
# fixtures: same order, time, ids, every value, the named display rules
# aside). Its text is ~200 bytes an event: for traces of up to a few
# million events, not the bench corpus.
#
# --allocs: the allocation samples and GC triggers by call stack too
# (`gcscope allocs`'s lists against TraceLog's, `oracle allocstacks`,
# compared as test_allocs compares the fixtures).
#
# Without TRACE: the bench corpus's traces that are present (bench/out;
# the CTF shape's zip, which TraceEvent reads). One line a trace ("same"
# or "FAIL", GCs compared), the first differences on stderr; exit 1 when a
# trace differs. Without dotnet it prints "skipped: why" and exits 0.
# Run by `make bench` after its timings; TraceEvent takes seconds to
# minutes a trace (the ctf shape ~1 minute).
set -eu
GCSCOPE=build/gcscope
EVENTS=false
ALLOCS=false
while [ $# -gt 0 ]; do
    case $1 in
        -g) GCSCOPE=$2; shift 2 ;;
        --events) EVENTS=true; shift ;;
        --allocs) ALLOCS=true; shift ;;
        *) break ;;
    esac
done
ORACLE=build/oracle/bin/oracle/release/oracle.dll
COMPARE=build/asan/tests/test_gc_oracle
if ! command -v dotnet >/dev/null 2>&1; then
    echo "check-oracle: skipped: no dotnet here to run TraceEvent"
    exit 0
fi
if [ ! -f "$ORACLE" ] || [ tools/oracle/Program.cs -nt "$ORACLE" ]; then
    DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 dotnet build tools/oracle/oracle.csproj \
        -c Release --artifacts-path build/oracle -nologo -v q >/dev/null
fi
EVERY=build/asan/tests/test_te_agreement
make -s "$COMPARE"
$EVENTS && make -s "$EVERY"
STACKS=build/asan/tests/test_allocs
$ALLOCS && make -s "$STACKS"
[ -x "$GCSCOPE" ] || make -s "$GCSCOPE"
if [ $# -eq 0 ]; then
    for f in bench/out/bench.nettrace bench/out/service.nettrace bench/out/cpu.nettrace \
             bench/out/server.nettrace bench/out/netperf.netperf bench/out/ctf.trace.zip; do
        [ -f "$f" ] && set -- "$@" "$f"
    done
    if [ $# -eq 0 ]; then
        echo "check-oracle: skipped: no bench trace in bench/out (make bench records them)"
        exit 0
    fi
fi
TMP=${TMPDIR:-/tmp}/gcscope-oracle.$$
mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT
status=0
i=0
for trace in "$@"; do
    i=$((i + 1))
    theirs="$TMP/$i.oracle.json" ours="$TMP/$i.ours.json"
    case $trace in
        *.etl | *.etl.zip | *.ETL | *.ETL.zip)
            # TraceEvent reads ETW logs through Windows' own API (OpenTrace).
            echo "skipped $trace: TraceEvent reads .etl files only on Windows"
            continue ;;
    esac
    if ! dotnet "$ORACLE" gcstats "$trace" > "$theirs" 2> "$TMP/err"; then
        echo "FAIL $trace: TraceEvent could not read it: $(tail -n 1 "$TMP/err")"
        status=1
        continue
    fi
    # A trace without GCs makes gcscope say so and exit 1; its JSON is
    # still written.
    "$GCSCOPE" stats --format json "$trace" > "$ours" 2> "$TMP/err" || true
    # its first differences (stderr) and its verdict, the trace named
    if ! "$COMPARE" "$theirs" "$ours" > "$TMP/out" 2> "$TMP/diff"; then
        status=1
    fi
    sed "s|$ours|$trace|" "$TMP/diff" "$TMP/out"
    if $EVENTS; then
        if ! dotnet "$ORACLE" dump --all "$trace" > "$TMP/all.txt" 2> "$TMP/err"; then
            echo "FAIL $trace: TraceEvent could not list its events: $(tail -n 1 "$TMP/err")"
            status=1
        elif ! "$EVERY" "$trace" "$TMP/all.txt" > "$TMP/out" 2>&1; then
            status=1
            # the first differences, then always the verdict
            grep -v '^same \|^FAIL ' "$TMP/out" | head -n 20
            grep '^FAIL ' "$TMP/out" || echo "FAIL $trace: every event against TraceEvent's"
        else
            grep -E '^same |events compared' "$TMP/out"
        fi
        rm -f "$TMP/all.txt"
    fi
    if $ALLOCS; then
        if ! dotnet "$ORACLE" allocstacks "$trace" > "$TMP/allocs.txt" 2> "$TMP/err"; then
            echo "FAIL $trace: TraceLog could not resolve its stacks: $(tail -n 1 "$TMP/err")"
            status=1
        elif [ "$(wc -l < "$TMP/allocs.txt")" -le 1 ]; then
            : # no AllocationTick or GCTriggered event: nothing to compare
        elif ! "$STACKS" "$trace" "$TMP/allocs.txt" > "$TMP/out" 2>&1; then
            status=1
            cat "$TMP/out"
        else
            cat "$TMP/out"
        fi
        rm -f "$TMP/allocs.txt"
    fi
done
exit $status
