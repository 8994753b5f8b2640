#!/bin/sh
# `gcscope objects` on real traces whose AllocationTick events are V3 (no
# ObjectSize, as .NET Core 2.2-3.1 write them): recorded fixtures converted
# by the test writer with --alloctick-v3 (metadata version 3, payload
# without the trailing ObjectSize).
#   tests/data/probe-net10.nettrace     every sample is a tick: every type's
#                                       sampled bytes are unknown (- / null /
#                                       empty), never 0
#   tests/data/objects-movement.nettrace ticks and SampledObjectAllocation:
#                                       types sampled by both show a lower
#                                       bound (N+); deaths, survivors and
#                                       every estimate are those of the V4
#                                       original
# For both: each type's estimated bytes equal the sum of the AllocationAmount
# fields (AllocationAmount64, or AllocationAmount when that is 0) that
# `gcscope events` prints for that type id, computed here, and the sums
# TraceEvent computed from its own reading of the converted trace, kept in
# tests/data/alloctick-v3.oracle-sums.txt. With dotnet and the oracle
# (ORACLE=path of oracle.dll) TraceEvent is asked again: it must read the
# ticks as V3 and give the kept sums; `--update` rewrites the file from it.
set -u
update=false
[ "${1:-}" = --update ] && update=true
KEPT=tests/data/alloctick-v3.oracle-sums.txt
BUILD=${BUILD:-build}
GCSCOPE=${GCSCOPE:-$BUILD/asan/gcscope}
WRITER="$BUILD/asan/tools/nettrace_v6_write"
ORACLE=${ORACLE:-$BUILD/oracle/bin/oracle/release/oracle.dll}
[ -x "$WRITER" ] || { echo "FAIL: $WRITER not built"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
have_oracle=false
command -v dotnet >/dev/null 2>&1 && [ -f "$ORACLE" ] && have_oracle=true
if $update; then
    $have_oracle || { echo "FAIL: --update needs dotnet and ORACLE=oracle.dll"; exit 1; }
    {
        echo "# TraceEvent 4.0.0 (tools/oracle dump --all) on the traces"
        echo "# \`nettrace_v6_write --alloctick-v3 tests/data/NAME.nettrace\` writes:"
        echo "# NAME v3_ticks COUNT: AllocationTick events TraceEvent reads as V3;"
        echo "# NAME TYPE_ID AMOUNT_SUM TICKS: per type id, the sum of AllocationAmount64"
        echo "# (AllocationAmount when 0) over its ticks. Written by"
        echo "# ORACLE=.../oracle.dll sh tests/cli/objects_v3_ticks.sh --update"
    } > "$KEPT.new"
fi

# Per type id: the estimated bytes of the ticks in an events dump.
# Text dump (gcscope events): hex values; oracle dump: decimal values.
tick_sums() { # FILE -> lines "type_id amount_sum ticks"
    awk '
    function num(s,   i, v) {
        if (s !~ /^0x/) return s + 0
        s = tolower(substr(s, 3)); v = 0
        for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
        return v
    }
    function field(name,   m) {
        if (!match($0, " " name "=[0-9a-fx]+")) return ""
        m = substr($0, RSTART + length(name) + 2, RLENGTH - length(name) - 2)
        return m
    }
    /\/GC\/AllocationTick / {
        a = num(field("AllocationAmount64")); if (a == 0) a = num(field("AllocationAmount"))
        if (a >= 2147483648 && field("AllocationAmount64") == "") bad++
        id = sprintf("%.0f", num(field("TypeID")))
        sum[id] += a; n[id]++
    }
    END {
        if (bad) print "bad amount in dump" > "/dev/stderr"
        for (id in sum) printf "%s %.0f %d\n", id, sum[id], n[id]
    }' "$1" | LC_ALL=C sort
}

# The CSV columns, by name (the header says where each one is).
csv_columns() { # CSV COLUMN... -> "type_id col..." per type row
    csv=$1
    shift
    awk -v want="$*" '
    { sub(/^("[^"]*"|trace),/, "") } # the trace column (a file name without quotes)
    NR == 1 { for (i = 1; i <= NF; i++) at[$i] = i; next }
    {
        # a quoted name may hold commas: take it out first
        q = index(substr($0, 2), "\""); rest = substr($0, q + 3)
        split("name," rest, f, ",")
        n = split(want, w, " "); line = f[at["type_id"]]
        for (i = 1; i <= n; i++) {
            if (!(w[i] in at)) { print "no column " w[i] > "/dev/stderr"; exit 1 }
            line = line " " (f[at[w[i]]] == "" ? "EMPTY" : f[at[w[i]]])
        }
        print line
    }' FS=, "$csv"
}

status=0
fail() { echo "FAIL: $*"; status=1; }

for name in probe-net10 objects-movement; do
    orig=tests/data/$name.nettrace
    if [ ! -f "$orig" ]; then echo "skipped: $orig is missing"; continue; fi
    v3=$tmp/$name-v3.nettrace
    "$WRITER" --alloctick-v3 "$orig" "$v3" 2>"$tmp/writer.err" ||
        { fail "writer on $orig"; cat "$tmp/writer.err"; continue; }
    "$GCSCOPE" events "$orig" > "$tmp/orig.events" || { fail "$orig unreadable"; continue; }
    "$GCSCOPE" events "$v3" > "$tmp/v3.events" || { fail "$v3 unreadable"; continue; }
    ticks=$(grep -c '/GC/AllocationTick ' "$tmp/orig.events")
    v3ticks=$(grep '/GC/AllocationTick ' "$tmp/v3.events" | grep -c ' v=3 ')
    [ "$ticks" -gt 100 ] || fail "$name: only $ticks AllocationTick events"
    [ "$v3ticks" = "$ticks" ] || fail "$name: $v3ticks of $ticks ticks read as V3"
    grep '/GC/AllocationTick ' "$tmp/v3.events" | grep -q 'ObjectSize=' &&
        fail "$name: a V3 tick shows an ObjectSize"

    for fmt in csv json table; do
        "$GCSCOPE" objects "$v3" --format $fmt > "$tmp/v3.$fmt" || fail "$name: objects --format $fmt"
        "$GCSCOPE" objects "$orig" --format $fmt > "$tmp/v4.$fmt" || fail "$name: objects on the original"
    done

    # Estimated bytes per type = the sum computed here from the events.
    tick_sums "$tmp/v3.events" > "$tmp/want.sums"
    csv_columns "$tmp/v3.csv" estimated_bytes allocation_ticks | awk '$3 > 0 { print $1, $2, $3 }' |
        LC_ALL=C sort > "$tmp/got.sums"
    if ! cmp -s "$tmp/want.sums" "$tmp/got.sums"; then
        fail "$name: estimated bytes per type differ from the events' AllocationAmount sums"
        diff "$tmp/want.sums" "$tmp/got.sums" | head -10
    fi
    types_with_ticks=$(wc -l < "$tmp/want.sums")
    [ "$types_with_ticks" -ge 5 ] || fail "$name: only $types_with_ticks types with ticks"

    # Losing the sizes loses nothing else: counts, deaths, survivors and the
    # estimates are those of the V4 original; sizes become unknown or partial.
    cols="samples died_gen0_gc died_gen1_gc died_gen2_gc died_unseen died_in_gen2 alive_at_end
          alive_gen0 alive_gen1 alive_gen2 alive_loh alive_poh allocation_ticks estimated_bytes
          alive_at_end_estimated_bytes"
    csv_columns "$tmp/v3.csv" $cols | LC_ALL=C sort > "$tmp/v3.cols"
    csv_columns "$tmp/v4.csv" $cols | LC_ALL=C sort > "$tmp/v4.cols"
    cmp -s "$tmp/v3.cols" "$tmp/v4.cols" ||
        { fail "$name: V3 and V4 reports differ beyond sizes"; diff "$tmp/v4.cols" "$tmp/v3.cols" | head -6; }
    csv_columns "$tmp/v3.csv" samples samples_without_size bytes > "$tmp/v3.bytes"
    csv_columns "$tmp/v4.csv" samples samples_without_size bytes > "$tmp/v4.bytes"
    awk -v name="$name" -v v4="$tmp/v4.bytes" '
    BEGIN { while ((getline l < v4) > 0) { split(l, f, " "); b4[f[1]] = f[4]; w4[f[1]] = f[3] } }
    {
        id = $1; samples = $2; without = $3; bytes = $4
        if (w4[id] != 0) { print "FAIL: " name ": the V4 original lacks sizes"; bad = 1 }
        if (samples > 0 && without == samples) {
            unknown++
            if (bytes != "EMPTY") { print "FAIL: " name ": type " id " has no sized sample but bytes " bytes; bad = 1 }
        } else if (without > 0) {
            partial++
            if (bytes == "EMPTY" || bytes + 0 >= b4[id] + 0) { print "FAIL: " name ": type " id " partial bytes " bytes " vs " b4[id]; bad = 1 }
        } else if (bytes != b4[id]) { print "FAIL: " name ": type " id " bytes " bytes " vs V4 " b4[id]; bad = 1 }
    }
    END { print name ": " unknown + 0 " types with unknown bytes, " partial + 0 " partial"
          if (name == "probe-net10" && (unknown < 5 || partial != 0)) { print "FAIL: expected only unknown"; bad = 1 }
          if (name == "objects-movement" && (unknown < 1 || partial < 5)) { print "FAIL: expected unknown and partial"; bad = 1 }
          exit bad }' "$tmp/v3.bytes" || status=1

    # The same rule in JSON (null) and the table (- and N+).
    unknown=$(awk '$2 > 0 && $3 == $2' "$tmp/v3.bytes" | wc -l)
    nulls=$(grep -o '"samples":[1-9][0-9]*,"bytes":null' "$tmp/v3.json" | wc -l)
    [ "$nulls" = "$unknown" ] || fail "$name: $nulls JSON types with bytes null, want $unknown"
    grep -q '"samples":[1-9][0-9]*,"bytes":0,' "$tmp/v3.json" &&
        fail "$name: JSON says 0 bytes for sampled objects"
    dashes=$(awk '/^Objects by type/ { on = 1; next } /^$/ { on = 0 } on && $2 ~ /^[1-9]/ && $3 == "-"' \
             "$tmp/v3.table" | wc -l)
    [ "$dashes" = "$unknown" ] || fail "$name: $dashes table rows with Bytes -, want $unknown"
    grep -q "samples without an object size (AllocationTick before V4)" "$tmp/v3.table" ||
        fail "$name: the table does not say why sizes are missing"

    # TraceEvent reads the converted ticks as V3, with the same amounts: as
    # kept, and (with the oracle at hand) asked again.
    if $have_oracle; then
        dotnet "$ORACLE" dump --all "$v3" > "$tmp/oracle.txt" 2>"$tmp/oracle.err" ||
            { fail "$name: oracle failed"; head -5 "$tmp/oracle.err"; continue; }
        te_v3=$(grep '/GC/AllocationTick ' "$tmp/oracle.txt" | grep -c ' v=3 ')
        tick_sums "$tmp/oracle.txt" > "$tmp/te.sums"
        if $update; then
            echo "$name v3_ticks $te_v3" >> "$KEPT.new"
            sed "s/^/$name /" "$tmp/te.sums" >> "$KEPT.new"
        fi
        if ! $update; then
            awk -v n="$name" '$1 == n && $2 != "v3_ticks" { print $2, $3, $4 }' "$KEPT" > "$tmp/kept.sums"
            cmp -s "$tmp/te.sums" "$tmp/kept.sums" ||
                { fail "$name: TraceEvent's sums now differ from $KEPT (--update?)"; diff "$tmp/kept.sums" "$tmp/te.sums" | head -6; }
        fi
        echo "$name: TraceEvent asked: $te_v3 ticks read as V3"
    else
        echo "skipped: objects_v3_ticks asking TraceEvent for $name (needs dotnet and ORACLE=$ORACLE); kept answers used"
        te_v3=$(awk -v n="$name" '$1 == n && $2 == "v3_ticks" { print $3 }' "$KEPT")
        awk -v n="$name" '$1 == n && $2 != "v3_ticks" { print $2, $3, $4 }' "$KEPT" > "$tmp/te.sums"
    fi
    [ "$te_v3" = "$ticks" ] || fail "$name: TraceEvent reads ${te_v3:-no} of $ticks ticks as V3"
    cmp -s "$tmp/te.sums" "$tmp/want.sums" ||
        { fail "$name: TraceEvent's AllocationAmount sums differ"; diff "$tmp/te.sums" "$tmp/want.sums" | head -6; }
    echo "$name: $ticks V3 ticks, estimated bytes of $types_with_ticks types checked"
done
if $update && [ $status -eq 0 ]; then mv "$KEPT.new" "$KEPT"; echo "wrote $KEPT"; fi
rm -f "$KEPT.new"
exit $status
