#!/bin/sh
# Every C example of the docs (```c blocks of README.md and docs/*.md) is a
# complete program: it compiles against the library with warnings as errors
# (and the sanitizers of `make test`), says its usage without an argument
# (exit 1), fails with one message on a missing file and on a cut trace
# (exit 2, no sanitizer report), and prints what the CLI says on a real
# trace. Examples are known by the file name in their first comment line
# ("/* events.c: ..."); each known one is compared with the CLI.
GCSCOPE=${GCSCOPE:-build/gcscope}
BUILD=${BUILD:-build}
CC=${CC:-cc}
LIB="$BUILD/asan/libgcscope.a"
TRACE=tests/data/wks-concurrent.nettrace
fail() { echo "doc_examples: $*"; exit 1; }
[ -f "$LIB" ] || fail "$LIB not built (make test builds it)"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# Extracts the blocks: tmp/src/<name>.c for each ```c block.
mkdir "$tmp/src"
for doc in README.md docs/*.md; do
    awk -v dir="$tmp/src" -v doc="$doc" '
        /^```c[ \t]*$/ { inblock = 1; n++; out = sprintf("%s/block%d.c", dir, n); next }
        /^```/ && inblock { inblock = 0; close(out); next }
        inblock { print > out }' "$doc"
    for b in "$tmp"/src/block*.c; do
        [ -f "$b" ] || continue
        name=$(sed -n '1s|^/\* \([a-z_0-9]*\)\.c:.*|\1|p' "$b")
        [ -n "$name" ] || fail "$doc: a C block does not start with /* NAME.c: ... */"
        [ -f "$tmp/src/$name.c" ] && fail "$doc: two examples named $name.c"
        mv "$b" "$tmp/src/$name.c"
        echo "$doc" > "$tmp/src/$name.doc"
    done
done
count=$(ls "$tmp"/src/*.c 2>/dev/null | wc -l)
[ "$count" -ge 2 ] || fail "expected at least 2 C examples (README events.c, docs/library.md pauses.c), found $count"

head -c 200000 "$TRACE" > "$tmp/cut.nettrace"
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"
for src in "$tmp"/src/*.c; do
    name=$(basename "$src" .c); doc=$(cat "$tmp/src/$name.doc")
    exe="$tmp/$name"
    $CC -std=c11 -D_DEFAULT_SOURCE -Wall -Wextra -Werror $SAN -Iinclude "$src" "$LIB" -lm -ldl -pthread -o "$exe" \
        2> "$tmp/cc.err" || { cat "$tmp/cc.err"; fail "$doc: $name.c does not compile"; }
    "$exe" > /dev/null 2>&1; [ $? -eq 1 ] || fail "$doc: $name.c without argument: want exit 1"
    "$exe" /nonexistent.nettrace > /dev/null 2> "$tmp/err"; rc=$?
    [ $rc -eq 2 ] || fail "$doc: $name.c on a missing file: want exit 2, got $rc: $(head -3 "$tmp/err")"
    [ "$(wc -l < "$tmp/err")" -eq 1 ] || fail "$doc: $name.c on a missing file: want one line of error"
    "$exe" "$tmp/cut.nettrace" > /dev/null 2> "$tmp/err"; rc=$?
    [ $rc -eq 2 ] || fail "$doc: $name.c on a cut trace: want exit 2, got $rc: $(head -3 "$tmp/err")"
    grep -q "offset" "$tmp/err" || fail "$doc: $name.c on a cut trace: the error names no offset"
    "$exe" "$TRACE" > "$tmp/$name.out" 2> "$tmp/err" || fail "$doc: $name.c on $TRACE: exit $?: $(head -3 "$tmp/err")"
    case $name in
    events)
        "$GCSCOPE" events "$TRACE" | awk '{ print $1 " " $4 }' > "$tmp/cli.out"
        cmp -s "$tmp/cli.out" "$tmp/$name.out" || fail "$doc: events.c differs from gcscope events (msec, name)"
        [ "$(wc -l < "$tmp/$name.out")" -gt 1000 ] || fail "$doc: events.c printed too few events"
        ;;
    pauses)
        "$GCSCOPE" stats --format csv "$TRACE" | awk -F, 'NR > 1 {
            if ($8 == "true") printf "pid %s GC %s gen %s pause %.3f ms\n", $2, $3, $4, $12
            else printf "pid %s GC %s gen %s pause -\n", $2, $3, $4 }' > "$tmp/cli.out"
        cmp -s "$tmp/cli.out" "$tmp/$name.out" || { diff "$tmp/cli.out" "$tmp/$name.out" | head; \
            fail "$doc: pauses.c differs from gcscope stats --format csv"; }
        [ "$(wc -l < "$tmp/$name.out")" -eq 47 ] || fail "$doc: pauses.c: want the fixture's 47 GCs (TraceEvent counts 47)"
        ;;
    finalized)
        # The same rows as `gcscope stats --format json` (which reads every
        # GC event as well): TraceEvent's, then the type ids behind "".
        "$GCSCOPE" stats --format json "$TRACE" | python3 -c '
import json, sys
for p in json.load(sys.stdin)["processes"]:
    fo = p["finalized_objects"]
    for t in fo["types"]:
        print("pid %d %d \"%s\"" % (p["pid"], t["count"], t["name"]))
    for t in fo["types"]:
        for u in t.get("type_ids", []):
            print("pid %d   %d %s (%s)" % (p["pid"], u["count"], u["name"] or "?", u["name_from"]))
' > "$tmp/cli.out" || fail "$doc: gcscope stats --format json did not parse"
        cmp -s "$tmp/cli.out" "$tmp/$name.out" || { diff "$tmp/cli.out" "$tmp/$name.out" | head; \
            fail "$doc: finalized.c differs from gcscope stats --format json"; }
        grep -q "^pid [0-9]* 28 \"\"$" "$tmp/$name.out" || fail "$doc: finalized.c: want the fixture's 28 objects under \"\""
        ;;
    allocs)
        # The allocating methods of `gcscope allocs --format json`, in order.
        "$GCSCOPE" allocs --format json "$TRACE" | python3 -c '
import json, sys
for r in json.load(sys.stdin)["exclusive"]:
    print("%d %d %s" % (r["bytes"], r["samples"], r["method"]))
' > "$tmp/cli.out" || fail "$doc: gcscope allocs --format json did not parse"
        cmp -s "$tmp/cli.out" "$tmp/$name.out" || { diff "$tmp/cli.out" "$tmp/$name.out" | head; \
            fail "$doc: allocs.c differs from gcscope allocs --format json"; }
        [ "$(wc -l < "$tmp/$name.out")" -ge 5 ] || fail "$doc: allocs.c: want the fixture's allocating methods"
        ;;
    *) fail "$doc: $name.c: no check for this example in tests/cli/doc_examples.sh" ;;
    esac
done
echo "doc_examples: $count examples compiled and checked"
