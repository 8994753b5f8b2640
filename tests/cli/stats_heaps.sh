#!/bin/sh
# gcscope stats: heap counts that change during a trace (server GC with
# DATAS), against the GlobalHeapHistory events as `gcscope events` decodes
# them (the decoder's path, not the analyzer's): the first NumHeaps is
# heap_count (TraceEvent's), the smallest and largest min/max_heap_count,
# and the header line says the range only when there is one. Each GC's
# `heaps` is one of the trace's NumHeaps, and CSV and JSON agree on it.
# (test_gc_oracle checks each GC's against the history TraceEvent attached.)
# The HTML report shows the same.
GCSCOPE=${GCSCOPE:-build/gcscope}
fail() { echo "stats_heaps: $*"; exit 1; }

check() {
    trace=$1
    nums=$("$GCSCOPE" events --event GC/GlobalHeapHistory "$trace" |
        sed -n 's/.* NumHeaps=\([0-9]*\).*/\1/p') || fail "$trace: events"
    [ -n "$nums" ] || fail "$trace: no GlobalHeapHistory"
    first=$(echo "$nums" | head -1)
    min=$(echo "$nums" | sort -n | head -1)
    max=$(echo "$nums" | sort -n | tail -1)
    json=$("$GCSCOPE" stats --format json "$trace") || fail "$trace: json"
    echo "$json" | grep -q "\"heap_count\": $first, \"min_heap_count\": $min, \"max_heap_count\": $max," ||
        fail "$trace: want heap_count $first, min $min, max $max"
    table=$("$GCSCOPE" stats "$trace") || fail "$trace: table"
    if [ "$min" = "$max" ]; then
        echo "$table" | grep -q "^  Heap count           $first\$" || fail "$trace: header line"
    else
        echo "$table" | grep -q "^  Heap count           $first at the first GC, $min to $max over the trace" ||
            fail "$trace: header line should give the range $min to $max"
    fi
    # Per GC: JSON's heaps, CSV's heaps column (empty for null), in order.
    from_json=$(echo "$json" | grep -o '"heaps": [0-9a-z]*' | sed 's/"heaps": //; s/null/-/')
    col=$("$GCSCOPE" stats --format csv "$trace" | head -1 | tr ',' '\n' | grep -n '^heaps$' | cut -d: -f1)
    [ -n "$col" ] || fail "$trace: no heaps column in the CSV"
    from_csv=$("$GCSCOPE" stats --format csv "$trace" | sed 1d | cut -d, -f"$col" | sed 's/^$/-/')
    [ "$from_json" = "$from_csv" ] || fail "$trace: CSV and JSON heaps differ"
    for h in $(echo "$from_json" | grep -v '^-$' | sort -u); do
        echo "$nums" | grep -qx "$h" || fail "$trace: a GC with $h heaps, no history says $h"
    done
    echo "$from_json" | grep -qv '^-$' || fail "$trace: no GC has a heap count"
}

check tests/data/net9-server-datas.nettrace
check tests/data/server.nettrace
check tests/data/wks-concurrent.nettrace
# the changing one changes
"$GCSCOPE" stats --format json tests/data/net9-server-datas.nettrace |
    grep -q '"min_heap_count": 1, "max_heap_count": 2,' || fail "net9-server-datas: 1 to 2 heaps"

# The HTML report: the range in the header and each GC's count in the
# table's data (the "h" column, as stats gives them) when it changed; one
# number and no column when it did not.
html=${TMPDIR:-/tmp}/gcscope-heaps.$$.html
trap 'rm -f "$html"' EXIT
"$GCSCOPE" report -o "$html" tests/data/net9-server-datas.nettrace || fail "report"
grep -q 'heaps 1 to 2 (DATAS' "$html" || fail "report: no heap range in the header"
from_html=$(grep -o '"h":\[[^]]*\]' "$html" | sed 's/"h":\[//; s/\]//' | tr ',' '\n' | sed 's/null/-/')
from_json=$("$GCSCOPE" stats --format json tests/data/net9-server-datas.nettrace |
    grep -o '"heaps": [0-9a-z]*' | sed 's/"heaps": //; s/null/-/')
[ -n "$from_html" ] && [ "$from_html" = "$from_json" ] || fail "report: heaps per GC differ from stats"
"$GCSCOPE" report -o "$html" tests/data/server.nettrace || fail "report server"
grep -q '"h":\[' "$html" && fail "report: a heaps column for a constant heap count"
grep -q 'heaps 2</p>' "$html" || fail "report server: heaps 2"
exit 0
