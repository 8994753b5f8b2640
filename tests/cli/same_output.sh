#!/bin/sh
# scripts/same-output.sh, the check behind the performance notes' "output
# identical on N trace/format pairs": a build against itself differs
# nowhere; against a build whose output changes on one command it names
# every trace of that command and fails; usage on too few arguments.
GCSCOPE=${GCSCOPE:-build/gcscope}
fail() { echo "same_output: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case $GCSCOPE in /*) bin=$GCSCOPE ;; *) bin=$(pwd)/$GCSCOPE ;; esac
out=$(GCSCOPE_SHARED="$tmp/none" sh scripts/same-output.sh -c info "$bin" "$bin") || fail "itself: exit $?"
traces=0
for t in tests/data/*.nettrace tests/data/*.netperf tests/data/ctf/*; do
    [ -e "$t" ] && traces=$((traces + 1))
done
[ "$out" = "compared: $traces, differing: 0" ] || fail "itself: $out (want $traces traces)"
# A build whose `info` says one more line (and whose `stats` is the same).
printf '#!/bin/sh\n"%s" "$@"\nst=$?\n[ "$1" = info ] && echo changed\nexit $st\n' "$bin" > "$tmp/changed"
chmod +x "$tmp/changed"
if out=$(GCSCOPE_SHARED="$tmp/none" sh scripts/same-output.sh -c info -c stats "$bin" "$tmp/changed"); then
    fail "a changed output must fail"
fi
[ "$(echo "$out" | grep -c '^differs: info ')" -eq "$traces" ] || fail "want every trace of info named"
echo "$out" | grep -q '^differs: stats ' && fail "stats did not change"
echo "$out" | tail -1 | grep -q "^compared: $((2 * traces)), differing: $traces$" || fail "summary: $(echo "$out" | tail -1)"
if sh scripts/same-output.sh "$bin" > "$tmp/usage" 2>&1; then
    fail "too few arguments must fail"
fi
grep -q 'same-output.sh \[-c' "$tmp/usage" || fail "usage not shown"
exit 0
