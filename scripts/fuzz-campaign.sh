#!/bin/sh
# A fuzzing campaign measured in CPU time, for a machine shared with other
# work: each harness runs (under nice) until its own process has used
# MINUTES CPU-minutes (user + system, from /proc/PID/stat), whatever the
# wall time. A harness that finds something is restarted (the finding is
# kept) until its budget is spent. Harnesses run side by side.
#
#   scripts/fuzz-campaign.sh MINUTES [HARNESS...]     (default: all)
#
# Needs `make fuzz-build` and the corpus (tests/fuzz/make-corpus.sh); both
# done here when missing. Per harness it prints CPU-minutes, execs, exec/s
# (per CPU-second), corpus size and findings; the corpus grows in
# $BUILD/fuzz/corpus/<harness>, findings land in
# $BUILD/fuzz/campaign/<harness>/ (crash-*, leak-*, timeout-*, oom-*), the
# fuzzer's log in $BUILD/fuzz/campaign/<harness>.log. The summary is also
# written to $BUILD/fuzz/campaign/summary.txt.
set -u
BUILD=${BUILD:-build}
MINUTES=${1:?usage: fuzz-campaign.sh MINUTES [HARNESS...]}
shift
HARNESSES=${*:-reader scan again objtrack diag}
DIR="$BUILD/fuzz/campaign"
mkdir -p "$DIR"
# make is incremental: harnesses are rebuilt whenever a source changed.
make -s BUILD="$BUILD" fuzz-build || exit 1
[ -d "$BUILD/fuzz/corpus/reader" ] || BUILD="$BUILD" sh tests/fuzz/make-corpus.sh || exit 1
TICKS=$(getconf CLK_TCK)
BUDGET=$(awk "BEGIN{printf \"%d\", $MINUTES * 60 * $TICKS}")

# CPU ticks (user + system) of a live process, 0 if gone.
cpu_ticks() {
    # fields after the ")" of the command name: utime is the 12th, stime the 13th
    sed -e 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{print $12 + $13}' || echo 0
}

run_one() {
    h=$1
    mkdir -p "$DIR/$h" "$BUILD/fuzz/corpus/$h"
    used=0 execs=0 runs=0
    max_len=65536 # ctfread's inputs hold a metadata text and a stream file
    [ "$h" = ctfread ] && max_len=262144
    dict= # a harness's dictionary, when it has one
    [ -f "tests/fuzz/$h.dict" ] && dict="-dict=tests/fuzz/$h.dict"
    : >"$DIR/$h.log"
    while [ "$used" -lt "$BUDGET" ]; do
        left_s=$(( (BUDGET - used) / TICKS + 1 ))
        start=$(wc -l <"$DIR/$h.log")
        # -max_total_time is wall time: only a backstop here. /usr/bin/time
        # gives the exact CPU of a run that ends by itself (a finding).
        /usr/bin/time -f '%U %S' -o "$DIR/$h.time" nice -n 10 "$BUILD/fuzz/fuzz_$h" \
            -max_len="$max_len" $dict -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 \
            -artifact_prefix="$DIR/$h/" -max_total_time=$((left_s * 20)) \
            "$BUILD/fuzz/corpus/$h" >>"$DIR/$h.log" 2>&1 &
        tpid=$!
        runs=$((runs + 1))
        sleep 1
        pid=$(pgrep -P "$tpid" | head -1)
        last=0
        while [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; do
            t=$(cpu_ticks "$pid")
            [ -n "$t" ] && [ "$t" -gt 0 ] && last=$t
            if [ $((used + last)) -ge "$BUDGET" ]; then
                kill -INT "$pid" 2>/dev/null
                break
            fi
            sleep 5
        done
        wait "$tpid" 2>/dev/null
        t=$(awk -v tck="$TICKS" 'NF == 2 && $1 ~ /^[0-9.]+$/ {printf "%d", ($1 + $2) * tck}' "$DIR/$h.time" 2>/dev/null)
        [ -n "$t" ] && [ "$t" -gt "$last" ] && last=$t
        used=$((used + last))
        # execs of this run: libFuzzer's final stats, else its last status line
        tail -n +$((start + 1)) "$DIR/$h.log" >"$DIR/$h.run"
        e=$(grep -aE '^stat::number_of_executed_units:' "$DIR/$h.run" | tail -1 | awk '{print $2}')
        [ -n "$e" ] || e=$(grep -aE '^#[0-9]+' "$DIR/$h.run" | tail -1 | sed -E 's/^#([0-9]+).*/\1/')
        execs=$((execs + ${e:-0}))
        echo "run $runs ended: ${e:-0} execs, cpu $((used / TICKS)) s" >>"$DIR/$h.log"
    done
    findings=$(ls "$DIR/$h" | wc -l)
    corpus=$(ls "$BUILD/fuzz/corpus/$h" | wc -l)
    secs=$((used / TICKS))
    printf '%-9s %8s CPU-min %12s execs %9s exec/s %6s corpus %4s findings %3s runs\n' \
        "$h" "$(awk "BEGIN{printf \"%.1f\", $used / $TICKS / 60}")" "$execs" \
        "$(awk "BEGIN{printf \"%.0f\", ($secs > 0 ? $execs / $secs : 0)}")" "$corpus" "$findings" \
        "$runs" >"$DIR/$h.summary"
}

for h in $HARNESSES; do
    run_one "$h" &
done
wait
cat "$DIR"/*.summary | tee "$DIR/summary.txt"
