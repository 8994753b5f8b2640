#!/bin/sh
# gcscope stats: whether each GC compacted, and why, on every fixture
# (test_gc_oracle checks `compacting` against TraceEvent's view of the
# same GlobalHeapHistory; this checks it against what the runtime's
# decision code does):
# - a GC that swept names no compact reason, one that compacted names one;
# - GC.Collect(..., compacting: true) (InducedCompacting) and the aggressive
#   GC.Collect (InducedAggressive) always compact, for the reason the runtime
#   sets for them (induced_compacting, aggressive_compacting) or a later one
#   that overrides it (loh_forced, set after it: the workload's CompactOnce,
#   and the aggressive GC of .NET 9 and 10 itself);
# - .NET 8's aggressive GC names aggressive_compacting (reason 11);
# - the table's `compact` column shows the reason, "swept" or "-", as CSV.
GCSCOPE=${GCSCOPE:-build/gcscope}
fail() { echo "stats_compaction: $*"; exit 1; }

rows=0
for t in tests/data/*.nettrace; do
    name=$(basename "$t" .nettrace)
    csv=$("$GCSCOPE" stats --format csv "$t" 2>/dev/null) || fail "$name: exit $?"
    bad=$(echo "$csv" | awk -F, '
        NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
        { c = $h["compacting"]; r = $h["compact_reason"]; why = $h["reason"]; n++ }
        c == "false" && r != ""  { print "GC " $h["number"] " swept with reason " r }
        c == "true" && r == ""   { print "GC " $h["number"] " compacted without reason" }
        c == "" && r != ""       { print "GC " $h["number"] " reason without history" }
        c != "" && (why == "InducedCompacting" || why == "InducedAggressive") &&
            (c != "true" || (r != "induced_compacting" && r != "aggressive_compacting" &&
                             r != "loh_forced")) { print "GC " $h["number"] " " why ": " c " " r }
        END { print "rows " n }')
    echo "$bad" | grep -v '^rows ' | head -3 | sed "s/^/$name: /" | grep . && fail "$name"
    rows=$((rows + $(echo "$bad" | sed -n 's/^rows //p')))
done
[ "$rows" -gt 1000 ] || fail "only $rows GCs looked at"

"$GCSCOPE" stats --format csv tests/data/net8-server.nettrace |
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
             $h["reason"] == "InducedAggressive" { print $h["compact_reason"] }' |
    grep -qx aggressive_compacting || fail "net8-server: the aggressive GC's reason"

# The table column says what CSV says.
T=tests/data/wks-nonconcurrent.nettrace
from_csv=$("$GCSCOPE" stats --format csv "$T" | awk -F, '
    NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
    { c = $h["compacting"]; print c == "" ? "-" : c == "false" ? "swept" : $h["compact_reason"] }')
from_table=$("$GCSCOPE" stats --columns number,compact "$T" |
    awk '/GC#/ { rows = 1; next } rows && $1 ~ /^[0-9]+$/ && NF == 2 { print $2 }')
[ -n "$from_csv" ] && [ "$from_csv" = "$from_table" ] || fail "compact column differs from CSV"
"$GCSCOPE" stats --format json "$T" | grep -q '"compacting": true, "compact_reason": "induced_compacting"' ||
    fail "json: compacting and its reason"
exit 0
