#!/usr/bin/env bash
# Regenerates every TraceEvent oracle output:
#   tests/data/NAME.oracle-dump.txt      oracle dump        (counts + first event)
#   tests/data/NAME.oracle-all.txt       oracle dump --all  (every event; if under 2 MB,
#                                        else NAME.oracle-all.txt.gz if that is under 2 MB)
#   tests/data/NAME.oracle-gcstats.json  oracle gcstats (.json.gz if over 2 MB)
#   tests/data/NAME.oracle-allocs.txt    oracle allocstacks (fixtures with AllocationTick or
#                                        GCTriggered events: test_allocs compares them)
#   tests/data/shared/TRACE.oracle-all.txt[.gz]  oracle dump --all of /work/shared/traces/perfview
# and the generated fixture table in docs/fixtures.md (between the
# "fixture-table" markers) from `oracle summary`.
#
#   tools/oracle/run-oracle.sh [SHARED_TRACES_DIR]
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DATA="$ROOT/tests/data"
SHARED=${1:-/work/shared/traces/perfview}
BUILD="$ROOT/build/oracle"
DOCS="$ROOT/docs/fixtures.md"
MAX_BYTES=$((2 * 1024 * 1024))

export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1
dotnet build "$ROOT/tools/oracle/oracle.csproj" -c Release --artifacts-path "$BUILD" -nologo -v q >/dev/null
ORACLE=(dotnet "$BUILD/bin/oracle/release/oracle.dll")

# write_all TRACE OUT_BASE: OUT_BASE.oracle-all.txt, or .txt.gz, or nothing
write_all() {
    local trace=$1 base=$2 tmp
    tmp=$(mktemp)
    "${ORACLE[@]}" dump --all "$trace" > "$tmp"
    rm -f "$base.oracle-all.txt" "$base.oracle-all.txt.gz"
    chmod 644 "$tmp"
    if [ "$(stat -c %s "$tmp")" -lt "$MAX_BYTES" ]; then
        mv "$tmp" "$base.oracle-all.txt"
    else
        gzip -9 -n -c "$tmp" > "$tmp.gz"
        if [ "$(stat -c %s "$tmp.gz")" -lt "$MAX_BYTES" ]; then
            chmod 644 "$tmp.gz"
            mv "$tmp.gz" "$base.oracle-all.txt.gz"
            echo "  $(basename "$base"): --all output is $(stat -c %s "$tmp") bytes, saved gzipped" >&2
        else
            echo "  $(basename "$base"): --all output too large even gzipped, skipped" >&2
            rm -f "$tmp.gz"
        fi
        rm -f "$tmp"
    fi
}

rows=$(mktemp)
versions=$(mktemp)
trap 'rm -f "$rows" "$versions"' EXIT

for trace in "$DATA"/*.nettrace; do
    [ -e "$trace" ] || continue
    name=$(basename "$trace" .nettrace)
    echo "oracle: $name" >&2
    "${ORACLE[@]}" dump "$trace" > "$DATA/$name.oracle-dump.txt"
    # gcstats: plain JSON, gzipped when over 2 MB (test_gc_oracle reads both)
    rm -f "$DATA/$name.oracle-gcstats.json" "$DATA/$name.oracle-gcstats.json.gz"
    "${ORACLE[@]}" gcstats "$trace" > "$DATA/$name.oracle-gcstats.json"
    if [ "$(stat -c %s "$DATA/$name.oracle-gcstats.json")" -ge "$MAX_BYTES" ]; then
        gzip -9 -n "$DATA/$name.oracle-gcstats.json"
    fi
    write_all "$trace" "$DATA/$name"
    rm -f "$DATA/$name.oracle-allocs.txt"
    allocs=$("${ORACLE[@]}" allocstacks "$trace" 2>/dev/null)
    # when the trace has AllocationTick or GCTriggered events (lines after
    # the first: ticks N with_stack M ...)
    if [ "$(echo "$allocs" | wc -l)" -gt 1 ]; then
        echo "$allocs" > "$DATA/$name.oracle-allocs.txt"
    fi
    summary=$("${ORACLE[@]}" summary "$trace")
    size=$(stat -c %s "$trace")
    row=$(echo "$summary" | head -1)
    echo "| $name | $size $row" >> "$rows"
    echo "$summary" | tail -n +2 | sed "s/^version /$name: /" >> "$versions"
done

if [ -d "$SHARED" ]; then
    mkdir -p "$DATA/shared"
    for trace in "$SHARED"/*.nettrace "$SHARED"/*.netperf; do
        [ -e "$trace" ] || continue
        echo "oracle: shared/$(basename "$trace")" >&2
        write_all "$trace" "$DATA/shared/$(basename "$trace")"
    done
fi

if [ -f "$DOCS" ] && grep -q '<!-- fixture-table:begin -->' "$DOCS"; then
    gen=$(mktemp)
    {
        echo '<!-- fixture-table:begin -->'
        echo '| fixture | bytes | events | GCs | NonConcurrentGC | BackgroundGC | ForegroundGC | reasons | heaps / mode (TraceEvent) |'
        echo '| --- | --- | --- | --- | --- | --- | --- | --- | --- |'
        cat "$rows"
        echo
        echo '<details><summary>Event versions per fixture (provider/event, id, version, count)</summary>'
        echo
        echo '```'
        cat "$versions"
        echo '```'
        echo
        echo '</details>'
        echo '<!-- fixture-table:end -->'
    } > "$gen"
    awk -v f="$gen" '
        /<!-- fixture-table:begin -->/ { while ((getline l < f) > 0) print l; skip = 1; next }
        /<!-- fixture-table:end -->/ { skip = 0; next }
        !skip { print }' "$DOCS" > "$DOCS.tmp" && mv "$DOCS.tmp" "$DOCS"
    rm -f "$gen"
fi
