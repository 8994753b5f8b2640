#!/bin/sh
# The `gcscope objects` layouts on the objects fixtures:
#   - the default table fits 160 columns (display columns: "…" is one);
#   - in every section each row is exactly as wide as its header, so a long
#     type name never breaks the alignment;
#   - a cut name is "START…END" of the name --wide prints in full at the
#     same row, with at least 20 characters of its start and 15 of its end;
#   - --wide prints every column (Unseen, Pinned, p99, max) and full names;
#   - CSV: the first column is `trace` (the file name) on every row, every
#     row has the header's number of cells, so two traces' CSVs concatenate
#     into one table.
set -u
GCSCOPE=${GCSCOPE:-build/asan/gcscope}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: objects_table: $*"; status=1; }

for name in objects-movement objects-allocsampled; do
    trace=tests/data/$name.nettrace
    [ -f "$trace" ] || { echo "skipped: objects_table $name (fixture absent)"; continue; }
    "$GCSCOPE" objects "$trace" > "$tmp/$name.table" || fail "$name: objects failed"
    "$GCSCOPE" objects --wide "$trace" > "$tmp/$name.wide" || fail "$name: objects --wide failed"
    "$GCSCOPE" objects --format csv "$trace" > "$tmp/$name.csv" || fail "$name: --format csv failed"

    # widths in display columns: UTF-8 continuation bytes take none
    LC_ALL=C awk -v name="$name" '
    function cols(s) { gsub(/[\200-\277]/, "", s); return length(s) }
    { w = cols($0); if (w > max) max = w }
    /^Type / { header = w; section++; next }
    /^$/ { header = 0 }
    header && w != header { print name ": section " section " row " NR " is " w " wide, header " header; bad = 1 }
    END {
        if (max > 160) { print name ": the table is " max " columns wide"; bad = 1 }
        if (section != 3) { print name ": " section " sections"; bad = 1 }
        print name ": table " max " columns, rows aligned"
        exit bad
    }' "$tmp/$name.table" || status=1

    grep -q '^Type .* Unseen .* Pinned .* GCs99 .* GCsMax .* ms99 .* msMax$' "$tmp/$name.wide" ||
        fail "$name: --wide lacks columns"
    grep -q '^Type .*Unseen' "$tmp/$name.table" && fail "$name: the default table has the --wide columns"

    # cut names against the full ones, row by row (both tables list the same rows)
    LC_ALL=C awk -v name="$name" -v wide="$tmp/$name.wide" '
    function cols(s) { gsub(/[\200-\277]/, "", s); return length(s) }
    BEGIN { while ((getline l < wide) > 0) { n++; full[n] = l } }
    {
        row++
        e = index($0, "\342\200\246")
        if (!e) next
        cut++
        f = full[row]
        start = substr($0, 1, e - 1)
        # the cut name ends where the Samples column starts: column 53
        rest = substr($0, e + 3)
        end = substr(rest, 1, 52 - cols(start) - 1)
        if (length(start) < 20 || length(end) < 15) { print name ": row " row ": short pieces: " $0; bad = 1 }
        if (index(f, start) != 1) { print name ": row " row ": start \"" start "\" not that of: " f; bad = 1 }
        if (index(f, end " ") == 0) { print name ": row " row ": end \"" end "\" not in: " f; bad = 1 }
    }
    END {
        if (name == "objects-movement" && cut < 10) { print name ": " cut + 0 " names cut, want >= 10"; bad = 1 }
        print name ": " cut + 0 " names cut in the middle"
        exit bad
    }' "$tmp/$name.table" || status=1

    LC_ALL=C awk -F, -v name="$name" '
    # cells of a CSV line: quoted cells may hold commas
    function cells(s) { gsub(/"[^"]*"/, "Q", s); return split(s, unused, ",") }
    NR == 1 { if ($1 != "trace" || $2 != "type") { print name ": header " $0; bad = 1 }
              want = cells($0); next }
    $1 != "\"" name ".nettrace\"" { print name ": row " NR " trace cell " $1; bad = 1 }
    cells($0) != want { print name ": row " NR " has " cells($0) " cells, header " want; bad = 1 }
    / -,|,-,|,-$|null/ { print name ": row " NR " has a non-empty unknown cell"; bad = 1 }
    END { print name ": csv " NR - 1 " rows, " want " cells each"; exit bad }' "$tmp/$name.csv" || status=1
done

# Two traces concatenate: one header, rows of both, told apart by `trace`.
if [ -f "$tmp/objects-movement.csv" ] && [ -f "$tmp/objects-allocsampled.csv" ]; then
    { cat "$tmp/objects-movement.csv"; tail -n +2 "$tmp/objects-allocsampled.csv"; } > "$tmp/both.csv"
    traces=$(tail -n +2 "$tmp/both.csv" | cut -d, -f1 | sort -u | wc -l)
    [ "$traces" = 2 ] || fail "concatenated CSV holds $traces traces, want 2"
fi
[ $status = 0 ] && echo "objects_table: layouts checked"
exit $status
