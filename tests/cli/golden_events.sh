#!/bin/sh
# Golden dumps: `gcscope events --format json`, `gcscope info` and `gcscope stats` of every
# fixture and shared trace (and `--format text` of a few small ones, and
# `gcscope objects` of the objects fixtures), regenerated with $GCSCOPE (the sanitized CLI
# from tests/run-tests.sh) into a temporary folder, must equal
# tests/golden/ byte for byte (after gunzip). On a difference it prints the
# first differing lines. Refresh with scripts/update-golden.sh.
set -u
GCSCOPE=${GCSCOPE:-build/asan/gcscope}
export GCSCOPE
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sh scripts/update-golden.sh --out "$tmp" || { echo "golden: regeneration failed"; exit 1; }
status=0
compared=0
for want in tests/golden/*.events.*.gz tests/golden/*.info.txt tests/golden/*.stats*.txt tests/golden/*.objects* \
            tests/golden/shared/*.events.*.gz tests/golden/shared/*.info.txt tests/golden/shared/*.stats.txt; do
    [ -f "$want" ] || continue
    rel=${want#tests/golden/}
    got=$tmp/$rel
    case $rel in
    shared/*) [ -d ../shared/traces/perfview ] || continue ;;
    esac
    if [ ! -f "$got" ]; then
        echo "golden: $rel not regenerated (trace missing?)"; status=1; continue
    fi
    case $want in
    *.gz) gzip -dc "$want" > "$tmp/want.txt"; gzip -dc "$got" > "$tmp/got.txt" ;;
    *) cp "$want" "$tmp/want.txt"; cp "$got" "$tmp/got.txt" ;;
    esac
    compared=$((compared + 1))
    if ! cmp -s "$tmp/want.txt" "$tmp/got.txt"; then
        echo "golden: $rel differs (first differing lines, - golden + now):"
        diff "$tmp/want.txt" "$tmp/got.txt" | head -20 | cut -c1-400
        status=1
    fi
done
# every regenerated file must have a golden (a new fixture needs one)
for got in "$tmp"/*.events.*.gz "$tmp"/*.info.txt "$tmp"/*.stats*.txt "$tmp"/*.objects* "$tmp"/shared/*; do
    [ -f "$got" ] || continue
    rel=${got#"$tmp"/}
    [ -f "tests/golden/$rel" ] || { echo "golden: no tests/golden/$rel (run scripts/update-golden.sh)"; status=1; }
done
echo "golden: $compared files compared"
exit $status
