#!/bin/sh
# gcscope objects on NativeAOT traces: the trace names no type (its
# AllocationTick TypeName is "NULL"); `objects --symbols APP.dbg` names
# them from the executable's MethodTable symbols. Checked for each
# TRACE:SYMBOLS pair (default: the committed fixtures,
# tests/data/net10-aot.nettrace with tests/data/net10-aot.dbg, and
# net9-aot's, which has no module event;
# scripts/check-runtimes.sh passes its NativeAOT recordings):
#  - without --symbols every type row is an id, and the note names the
#    option (with the executable's path when a ModuleLoad gave it);
#  - with them every type the trace left unnamed gets a name, and each
#    name is the one binutils' readelf finds at (type id - the image's load
#    address) as `_ZTV<len><name>` (a reader other than ours; skipped
#    without readelf), the load address is the ModuleLoad/ModuleDCStop
#    ModuleID `gcscope events` decodes, the build ID the trace's (.NET 9's
#    NativeAOT writes no module event: the address is inferred from the
#    type ids, and readelf's names check it);
#  - the workload's own classes are among the names (gcload_GcLoad_*);
#  - symbols of another build (the build-id note changed by one byte)
#    name nothing, and say so; stats calls the runtime NativeAOT;
#  - a file without type symbols (the symbols stripped by objcopy; with
#    AOT_EXECUTABLE set, as check-runtimes does, the stripped executable
#    itself) is an error that says where the symbols are, and `profile`
#    says a NativeAOT executable cannot be profiled.
GCSCOPE=${GCSCOPE:-build/gcscope}
fail() { echo "objects_aot_symbols: $*"; exit 1; }
TMP=${TMPDIR:-/tmp}/objects_aot_symbols.$$
mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT

PAIRS=${OBJECTS_AOT_PAIRS:-tests/data/net10-aot.nettrace:tests/data/net10-aot.dbg tests/data/net9-aot.nettrace:tests/data/net9-aot.dbg}
HAVE_READELF=0
command -v readelf >/dev/null 2>&1 && HAVE_READELF=1
[ $HAVE_READELF = 1 ] || echo "objects_aot_symbols: skipped: the readelf cross-check (no readelf here)"

checked=0
for pair in $PAIRS; do
    trace=${pair%%:*}
    syms=${pair#*:}
    [ -f "$trace" ] && [ -f "$syms" ] || fail "$trace or $syms missing"

    plain=$("$GCSCOPE" objects --format json "$trace") || fail "$trace: objects"
    echo "$plain" | grep -q '"types_without_name":[1-9]' || fail "$trace: the trace should leave types unnamed"
    "$GCSCOPE" objects "$trace" | grep -q 'types have no name in the trace (a NativeAOT application writes none): --symbols .*\.dbg' ||
        fail "$trace: no --symbols hint"
    # The module events of the native image, as the decoder reads them.
    "$GCSCOPE" events --event Loader/ModuleLoad "$trace" > "$TMP/mod.txt" 2>/dev/null
    "$GCSCOPE" events --event Loader/ModuleDCStop "$trace" >> "$TMP/mod.txt" 2>/dev/null
    has_module=0
    grep -q 'AssemblyID=0x0 ModuleFlags=Native' "$TMP/mod.txt" && has_module=1
    if [ $has_module = 1 ]; then
        "$GCSCOPE" stats "$trace" | grep -q '^  Runtime version      unknown (NativeAOT application' ||
            fail "$trace: stats does not say NativeAOT"
    fi

    json=$("$GCSCOPE" objects --symbols "$syms" --format json "$trace") || fail "$trace: objects --symbols"
    without=$(echo "$json" | sed -n 's/.*"types_without_name":\([0-9]*\),"types_named_from_symbols":\([0-9]*\)}.*/\1 \2/p')
    [ -n "$without" ] || fail "$trace: no native_image in the JSON"
    set -- $without
    [ "$1" -gt 0 ] && [ "$1" = "$2" ] || fail "$trace: $2 of $1 unnamed types named"
    base=$(echo "$json" | sed -n 's/.*"native_image":{[^}]*"base":"\(0x[0-9a-f]*\)".*/\1/p')
    from=$(echo "$json" | sed -n 's/.*"base_from":"\([a-z_]*\)".*/\1/p')
    id=
    if [ $has_module = 1 ]; then
        [ "$from" = module_event ] || fail "$trace: load address from $from"
        grep -q "ModuleID=$base AssemblyID=0x0 ModuleFlags=Native" "$TMP/mod.txt" ||
            fail "$trace: load address $base is no native image's ModuleID"
        id=$(grep -o 'NativeBuildID="[0-9A-F]*"' "$TMP/mod.txt" | head -1 | sed 's/.*="//; s/"//')
        echo "$json" | grep -q "\"build_id\":\"$id\"" || fail "$trace: build ID $id not the image's"
        echo "$json" | grep -q "\"symbols_build_id\":\"$id\"" || fail "$trace: the symbols' build ID is not $id"
    else
        [ "$from" = type_ids ] || fail "$trace: no module event, load address from $from"
    fi
    echo "$json" | grep -q '"name":"gcload_GcLoad_[A-Za-z]*"' || fail "$trace: none of the workload's classes named"

    # Each type: name, type id (decimal) from the JSON's types list.
    echo "$json" | grep -o '"name":"[^"]*","type_id":[0-9]*' |
        sed 's/"name":"\([^"]*\)","type_id":\([0-9]*\)/\2 \1/' | sort -u > "$TMP/types.txt"
    [ -s "$TMP/types.txt" ] || fail "$trace: no type in the JSON"
    if [ $HAVE_READELF = 1 ]; then
        readelf -sW "$syms" 2>/dev/null | awk '$8 ~ /^_ZTV[1-9]/ || $8 ~ /^__GCStaticEEType_/ { print $2, $8 }' > "$TMP/syms.txt"
        while read -r tid name; do
            off=$(printf '%016x' $((tid - base)))
            want=$(awk -v o="$off" '$1 == o { print $2; exit }' "$TMP/syms.txt")
            case $want in
                __GCStaticEEType_*) ;;
                _ZTV*) want=$(echo "$want" | sed 's/^_ZTV[0-9]*//') ;;
                *) fail "$trace: no type symbol at offset $off for $name" ;;
            esac
            [ "$want" = "$name" ] || fail "$trace: type id $tid is $want by readelf, $name by gcscope"
        done < "$TMP/types.txt"
    fi

    # Another build: the build-id note's last byte changed (the trace must
    # name its build: NativeAOT of .NET 10).
    checked=$((checked + 1))
    [ -n "$id" ] || continue
    cp "$syms" "$TMP/other.dbg"
    perl -e '
        my ($p, $hex) = @ARGV;
        open(my $f, "+<:raw", $p) or die;
        local $/; my $d = <$f>;
        my $raw = pack("H*", $hex);
        my $i = index($d, "GNU\0" . $raw);
        die "no build-id note" if $i < 0;
        my $at = $i + 4 + length($raw) - 1;
        seek($f, $at, 0); print $f chr(ord(substr($d, $at, 1)) ^ 0xff); close $f;
    ' "$TMP/other.dbg" "$id" || fail "$trace: could not change the build ID"
    "$GCSCOPE" objects --symbols "$TMP/other.dbg" "$trace" > "$TMP/other.txt" || fail "$trace: objects, other build"
    grep -q 'note: the symbols are of another build' "$TMP/other.txt" || fail "$trace: another build not noticed"
    grep -q 'gcload_GcLoad_' "$TMP/other.txt" && fail "$trace: names from another build"
done
# The first pair's trace and symbols, for the error cases.
first=$(echo "$PAIRS" | tr ' ' '\n' | head -1)
first_trace=${first%%:*}
first_syms=${first#*:}
# Symbols stripped: exit 2, and why.
if command -v objcopy >/dev/null 2>&1; then
    objcopy --strip-all "$first_syms" "$TMP/stripped.dbg"
    "$GCSCOPE" objects --symbols "$TMP/stripped.dbg" "$first_trace" > /dev/null 2> "$TMP/err.txt"
    [ $? -eq 2 ] || fail "stripped symbols: exit code"
    grep -q 'no type symbols in it' "$TMP/err.txt" || fail "stripped symbols: no reason"
else
    echo "objects_aot_symbols: skipped: the stripped-symbols check (no objcopy here)"
fi
if [ -n "${AOT_EXECUTABLE:-}" ]; then
    "$GCSCOPE" objects --symbols "$AOT_EXECUTABLE" "$first_trace" > /dev/null 2> "$TMP/err.txt"
    grep -q 'a stripped NativeAOT executable: its symbols are in the .dbg file' "$TMP/err.txt" ||
        fail "the stripped executable as symbols: $(cat "$TMP/err.txt")"
    "$GCSCOPE" profile -- "$AOT_EXECUTABLE" gen0 --scale 0.02 > /dev/null 2> "$TMP/err.txt"
    [ $? -eq 2 ] || fail "profile of a NativeAOT executable: exit code"
    grep -q 'is a NativeAOT executable: its runtime has no profiling API' "$TMP/err.txt" ||
        fail "profile of a NativeAOT executable: $(tail -1 "$TMP/err.txt")"
fi
# A file that is not ELF: an error with the reason, exit 2.
"$GCSCOPE" objects --symbols "$first_trace" "$first_trace" > /dev/null 2> "$TMP/err.txt"
[ $? -eq 2 ] || fail "a trace as symbols: exit code"
grep -q 'not an ELF file' "$TMP/err.txt" || fail "a trace as symbols: no reason"
echo "objects_aot_symbols: $checked NativeAOT trace(s) named from their symbols as readelf reads them"
