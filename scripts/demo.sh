#!/bin/sh
# make demo: what gcscope says about a real trace bundled in the repo.
GCSCOPE=${1:-build/gcscope}
TRACE=tests/data/wks-concurrent.nettrace
[ -f "$TRACE" ] || TRACE=$(ls tests/data/*.nettrace | head -1)
echo "\$ gcscope info $TRACE"
"$GCSCOPE" info "$TRACE" || exit $?
if "$GCSCOPE" --help | grep -q '^  stats '; then
    echo
    echo "\$ gcscope stats $TRACE"
    "$GCSCOPE" stats "$TRACE" || exit $?
fi
if "$GCSCOPE" --help | grep -q '^  allocs '; then
    echo
    echo "\$ gcscope allocs --limit 5 $TRACE"
    "$GCSCOPE" allocs --limit 5 "$TRACE" || exit $?
fi
