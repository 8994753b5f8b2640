#!/bin/sh
# Runs every test: sanitized unit-test binaries, then the CLI tests
# (tests/cli/*.sh). Ends with one line "N passed, M failed".
BUILD=${BUILD:-build}
export BUILD
export GCSCOPE="$BUILD/asan/gcscope"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
passed=0
failed=0
failures=""
for t in "$BUILD"/asan/tests/test_*; do
    [ -x "$t" ] || continue
    out=$("$t" 2>&1); rc=$?
    line=$(printf '%s\n' "$out" | grep -E '^[^ ]+: [0-9]+ passed, [0-9]+ failed' | tail -1)
    printf '%s\n' "$out" | grep -E '^skipped:' || true
    if [ -n "$line" ]; then
        p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\1/')
        f=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\2/')
    else
        p=0; f=1
    fi
    if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    passed=$((passed + p)); failed=$((failed + f))
    echo "$line (exit $rc) $(basename "$t")"
    if [ $rc -ne 0 ]; then
        failures="$failures $(basename "$t")"
        printf '%s\n' "$out" | tail -40
    fi
done
# Every input that ever failed a fuzz harness (tests/fuzz/regressions/
# <harness>/), replayed through that harness under ASan+UBSan; with
# REPLAY_CORPUS=1 also the corpus `make fuzz` grew in $BUILD/fuzz/corpus
# (minutes: thousands of inputs). docs/fuzzing.md.
for t in "$BUILD"/asan/fuzz/replay_*; do
    [ -x "$t" ] || continue
    h=${t##*/replay_}
    corpus=
    [ "${REPLAY_CORPUS:-0}" = 1 ] && corpus="$BUILD/fuzz/corpus/$h"
    out=$("$t" "fuzz_$h" "tests/fuzz/regressions/$h" $corpus 2>&1); rc=$?
    line=$(printf '%s\n' "$out" | grep -E '^fuzz_[a-z]+: [0-9]+ passed, [0-9]+ failed' | tail -1)
    if [ -n "$line" ] && [ $rc -eq 0 ]; then
        p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')
        passed=$((passed + p)); echo "$line (exit $rc) replay_$h"
    else
        failed=$((failed + 1)); failures="$failures replay_$h"
        echo "FAIL replay_$h (exit $rc)"; printf '%s\n' "$out" | tail -40
    fi
done
for t in tests/cli/*.sh; do
    [ -f "$t" ] || continue
    out=$(sh "$t" 2>&1); rc=$?
    printf '%s\n' "$out" | grep -E '^skipped:' || true
    if [ $rc -eq 0 ]; then
        passed=$((passed + 1)); echo "ok $(basename "$t")"
    else
        failed=$((failed + 1)); failures="$failures $(basename "$t")"
        echo "FAIL $(basename "$t")"; printf '%s\n' "$out" | tail -40
    fi
done
[ -n "$failures" ] && echo "failing:$failures"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
