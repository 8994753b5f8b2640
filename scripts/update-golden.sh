#!/bin/sh
# Writes the golden dumps of every committed fixture and of the shared
# perfview traces:
#   tests/golden/NAME.events.json.gz         gcscope events --format json (gzip -9n)
#   tests/golden/NAME.info.txt               gcscope info (run in the trace's folder)
#   tests/golden/NAME.events.txt.gz          gcscope events --format text, only for the
#                                            small traces in TEXT_TRACES (the text printer;
#                                            JSON of everything is the precise record)
#   tests/golden/NAME.stats.txt              gcscope stats (the default table), fixtures only
#   tests/golden/wks-concurrent.report.html.gz  gcscope report (the HTML; tests/cli/report_cli.sh)
#   tests/golden/wks-concurrent.stats-*.txt  gcscope stats with filters / --wide / --columns
#                                            (STATS_VARIANTS below)
#   tests/golden/NAME.objects.txt            gcscope objects (the 160-column table), and
#   tests/golden/NAME.objects-wide.txt.gz    with --wide, and
#   tests/golden/NAME.objects.csv.gz         --format csv, only for OBJECTS_TRACES
#   tests/golden/net10-aot.objects-symbols.txt  gcscope objects --symbols net10-aot.dbg
#                                            (NativeAOT types named from the symbols; the
#                                            same for net9-aot, its load address inferred)
#   tests/golden/shared/NAME.events.json.gz  the same for ../shared/traces/perfview
#                                            (nettrace, netperf and plain .etl files)
#   tests/golden/shared/NAME.info.txt
#   tests/golden/shared/NAME.stats.txt       gcscope stats of the .etl files
#                                            (net.4.5.2.x86.etl unzipped from its .zip
#                                            to a temporary folder: events, info, stats)
# Usage: scripts/update-golden.sh [--out DIR]   (default: tests/golden)
# GCSCOPE selects the CLI (default: build/gcscope, built by `make`).
# tests/cli/golden_events.sh runs this into a temporary folder and compares.
# Run from the repository root. Only rerun it when a change of output is
# intended, and review `git diff --stat tests/golden` (and the decoded
# differences, see docs/testing.md) before committing.
set -eu
out=tests/golden
if [ "${1:-}" = "--out" ]; then out=$2; fi
GCSCOPE=${GCSCOPE:-build/gcscope}
case $GCSCOPE in /*) ;; *) GCSCOPE=$(pwd)/$GCSCOPE ;; esac
[ -x "$GCSCOPE" ] || { echo "update-golden: $GCSCOPE not built (run make)" >&2; exit 2; }
root=$(pwd)
case $out in /*) ;; *) out=$root/$out ;; esac
shared=$root/../shared/traces/perfview

# Traces whose text dump is kept too (small, and between them every kind of
# value: runtime GC events, rundown, EventSource arrays, strings, GUIDs).
TEXT_TRACES="probe-net10.nettrace eventpipe-dotnetcore5.0-win-x64-arraytypes.nettrace eventpipe-dotnetcore6.0-win-x64-executioncheckpoints.nettrace"

# Traces whose object reports are kept (the fixtures recorded for them;
# cpu-sampled: sampled objects without movement events, GCs without ranges;
# objects-bgc, objects-bgc-server: objects that die in a background GC;
# net10-aot, net9-aot: a NativeAOT trace's types, unnamed).
OBJECTS_TRACES="objects-movement.nettrace objects-allocsampled.nettrace cpu-sampled.nettrace objects-bgc.nettrace objects-bgc-server.nettrace net10-aot.nettrace net9-aot.nettrace"

# dump TRACE_DIR TRACE_FILE OUT_PREFIX
dump() {
    (cd "$1" && "$GCSCOPE" events --format json "$2") | gzip -9n > "$3.events.json.gz.tmp"
    mv "$3.events.json.gz.tmp" "$3.events.json.gz"
    (cd "$1" && "$GCSCOPE" info "$2") > "$3.info.txt.tmp"
    mv "$3.info.txt.tmp" "$3.info.txt"
    case " $TEXT_TRACES " in
    *" $2 "*)
        (cd "$1" && "$GCSCOPE" events --format text "$2") | gzip -9n > "$3.events.txt.gz.tmp"
        mv "$3.events.txt.gz.tmp" "$3.events.txt.gz"
        ;;
    esac
    case " $OBJECTS_TRACES " in
    *" $2 "*)
        (cd "$1" && "$GCSCOPE" objects "$2") > "$3.objects.txt.tmp"
        mv "$3.objects.txt.tmp" "$3.objects.txt"
        (cd "$1" && "$GCSCOPE" objects --wide "$2") | gzip -9n > "$3.objects-wide.txt.gz.tmp"
        mv "$3.objects-wide.txt.gz.tmp" "$3.objects-wide.txt.gz"
        (cd "$1" && "$GCSCOPE" objects --format csv "$2") | gzip -9n > "$3.objects.csv.gz.tmp"
        mv "$3.objects.csv.gz.tmp" "$3.objects.csv.gz"
        ;;
    esac
}

# stats_dump NAME OUT ARGS...: gcscope stats ARGS of tests/data/NAME.nettrace
stats_dump() {
    n=$1; o=$2; shift 2
    (cd "$root/tests/data" && "$GCSCOPE" stats --color never "$@" "$n.nettrace") > "$o.tmp"
    mv "$o.tmp" "$o"
}

mkdir -p "$out"
for t in "$root"/tests/data/*.nettrace; do
    name=$(basename "$t" .nettrace)
    dump "$root/tests/data" "$name.nettrace" "$out/$name"
    stats_dump "$name" "$out/$name.stats.txt"
done
(cd "$root/tests/data" && "$GCSCOPE" report wks-concurrent.nettrace -o -) | gzip -9n > "$out/wks-concurrent.report.html.gz"
(cd "$root/tests/data" && "$GCSCOPE" objects --symbols net10-aot.dbg net10-aot.nettrace) \
    > "$out/net10-aot.objects-symbols.txt.tmp"
mv "$out/net10-aot.objects-symbols.txt.tmp" "$out/net10-aot.objects-symbols.txt"
(cd "$root/tests/data" && "$GCSCOPE" objects --symbols net9-aot.dbg net9-aot.nettrace) \
    > "$out/net9-aot.objects-symbols.txt.tmp"
mv "$out/net9-aot.objects-symbols.txt.tmp" "$out/net9-aot.objects-symbols.txt"
# The table layouts and filters of gcscope stats, on a fixture with every
# kind of GC (blocking, background, foreground, induced, pauses > 200 ms).
stats_dump wks-concurrent "$out/wks-concurrent.stats-wide.txt" --wide
stats_dump wks-concurrent "$out/wks-concurrent.stats-gen1-min100.txt" --gen 1 --min-pause-ms 100
stats_dump wks-concurrent "$out/wks-concurrent.stats-top5.txt" --top 5 --columns number,start,gen,pause,condemned
stats_dump wks-concurrent "$out/wks-concurrent.stats-background.txt" --kind background --long-pause-ms 100
stats_dump wks-concurrent "$out/wks-concurrent.stats-range.txt" --from-ms 2000 --to-ms 3000 --limit 3 --format json
stats_dump wks-concurrent "$out/wks-concurrent.stats-induced.txt" --induced --format csv
if [ -d "$shared" ]; then
    mkdir -p "$out/shared"
    for t in "$shared"/*.nettrace "$shared"/*.netperf "$shared"/*.etl; do
        [ -f "$t" ] || continue
        dump "$shared" "$(basename "$t")" "$out/shared/$(basename "$t")"
    done
    for t in "$shared"/*.etl; do
        [ -f "$t" ] || continue
        n=$(basename "$t")
        (cd "$shared" && "$GCSCOPE" stats --color never "$n") > "$out/shared/$n.stats.txt.tmp"
        mv "$out/shared/$n.stats.txt.tmp" "$out/shared/$n.stats.txt"
    done
    if [ -f "$shared/net.4.5.2.x86.etl.zip" ] && command -v unzip > /dev/null 2>&1; then
        z=$(mktemp -d)
        n=net.4.5.2.x86.etl
        unzip -p "$shared/$n.zip" "$n" > "$z/$n"
        dump "$z" "$n" "$out/shared/$n"
        (cd "$z" && "$GCSCOPE" stats --color never "$n") > "$out/shared/$n.stats.txt"
        rm -rf "$z"
    fi
    # LTTng (CTF) traces zipped by perfcollect (docs/format-ctf.md).
    ctf=$root/../shared/traces/ctf
    for t in "$ctf"/*.trace.zip; do
        [ -f "$t" ] || continue
        n=$(basename "$t")
        dump "$ctf" "$n" "$out/shared/$n"
        (cd "$ctf" && "$GCSCOPE" stats --color never "$n") > "$out/shared/$n.stats.txt"
    done
else
    echo "skipped: shared traces (../shared/traces/perfview not present)"
fi
