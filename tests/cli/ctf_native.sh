#!/bin/sh
# Our own CTF reader (src/format/ctf/ctf_native.c) against babeltrace2's
# (GCSCOPE_CTF_READER=babeltrace), on traces nobody here recorded: the
# synthetic ones of tests/data/ctf (scripts/make-ctf-fixtures.py, shapes
# real tracers write that the shared traces do not: kernel compact headers
# with 27-bit wraps, big-endian, bit fields, sequences, variants, floats,
# two stream classes, packets without sizes, ...), the shared perfcollect
# traces, and the same traces rewritten by babeltrace2's own CTF writer
# (sink.ctf.fs). For each: every event's timestamp, pid, tid, CPU,
# process name and payload bytes (tests/tools/ctf_dump), `events --format
# json`, `info` (but its "blocks:" line: packets for ours, babeltrace2's
# batches otherwise) and `stats` identical. GCSCOPE_CTF_READER=native
# makes sure ours read them (no quiet fallback to babeltrace2). Then real
# values, so that two equally wrong readers cannot pass: timestamps after
# 27-, 32- and 16-bit wraps, ties ordered as babeltrace2's muxer orders
# them, the bit fields' values, the GCs' numbers.
set -u
BUILD=${BUILD:-build}
G=${GCSCOPE:-$BUILD/asan/gcscope}
D="$BUILD/asan/tools/ctf_dump"
DATA=tests/data/ctf
[ -x "$D" ] || { echo "ctf_native: $D not built"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "ctf_native: $*"; exit 1; }

# The fixtures are what the generator writes, byte for byte.
if command -v python3 > /dev/null; then
    python3 scripts/make-ctf-fixtures.py "$tmp/gen" || fail "make-ctf-fixtures.py failed"
    diff -r "$DATA" "$tmp/gen" > "$tmp/diff" || fail "fixtures differ from the generator's: $(head -5 "$tmp/diff")"
else
    echo "skipped: python3 absent, fixtures not re-created"
fi

# Both readers on trace $1 (a name for messages: $2): identical outputs,
# once the sed script $3 (if any: what docs/format-ctf.md says we do not
# copy) has been applied to both.
compare() {
    t=$1 name=$2 except=${3:-}
    GCSCOPE_CTF_READER=native "$D" "$t" > "$tmp/dump.native" 2> "$tmp/err" ||
        fail "$name: our reader: $(cat "$tmp/err")"
    GCSCOPE_CTF_READER=babeltrace "$D" "$t" > "$tmp/dump.bt" 2> "$tmp/err" ||
        fail "$name: babeltrace2: $(cat "$tmp/err")"
    if [ -n "$except" ]; then
        cp "$tmp/dump.native" "$tmp/dump.native.whole"
        sed -i "$except" "$tmp/dump.native" "$tmp/dump.bt"
    fi
    cmp -s "$tmp/dump.native" "$tmp/dump.bt" ||
        fail "$name: events differ (< ours, > babeltrace2): $(diff "$tmp/dump.native" "$tmp/dump.bt" | head -6)"
    for r in native babeltrace; do
        GCSCOPE_CTF_READER=$r "$G" events --format json "$t" > "$tmp/events.$r" 2>&1 ||
            fail "$name: events with $r: $(tail -1 "$tmp/events.$r")"
        GCSCOPE_CTF_READER=$r "$G" info "$t" 2>&1 | grep -v '^blocks:' > "$tmp/info.$r"
        GCSCOPE_CTF_READER=$r "$G" stats "$t" > "$tmp/stats.$r" 2>&1
        if [ -n "${lost_differs:-}" ]; then
            sed -i '/lost events/d' "$tmp/info.$r" "$tmp/stats.$r"
        fi
        [ -z "$except" ] || sed -i "$except" "$tmp/events.$r"
    done
    for what in events info stats; do
        cmp -s "$tmp/$what.native" "$tmp/$what.babeltrace" ||
            fail "$name: $what differs: $(diff "$tmp/$what.native" "$tmp/$what.babeltrace" | head -6)"
    done
}

# (babeltrace2 leaves an integer mapped to a clock out of the payload:
# mixed's gcscope:clocked events.)
CLOCKED='/clocked/s/payload.*//'
# (mixed's stream0 has no clock, stream1's first packet already says 9
# discarded: babeltrace2 then says events "may have" been discarded, with
# no count, and counts none; ours counts what the packet contexts'
# events_discarded grew by: 9, checked below.)
for f in kernel-le kernel-be ust-gc ust-be mixed single ties; do
    except= lost_differs=
    [ $f = mixed ] && except=$CLOCKED lost_differs=1
    compare "$DATA/$f" "$f" "$except"
    cp "${tmp}/dump.native${except:+.whole}" "$tmp/$f.dump"
done
lost_differs=
GCSCOPE_CTF_READER=native "$G" info "$DATA/mixed" | grep -q '^lost events: *9$' ||
    fail "mixed: our reader does not count the 9 events LTTng discarded"

# kernel-le: 15 events of 3 CPUs (a 4th file empty, an empty packet). The compact header's 27-bit timestamp
# wraps between cpu0's bits (671088540: low bits 2^27 - 100) and its
# sequences (671092640 = 5 * 2^27 + 4000); 805312368 comes in an extended
# header (2^27 later). cpu2's sched_switch at the same nanosecond as
# cpu0's sequences goes first: babeltrace2's muxer breaks ties by stream id
# (stream_instance_id 0 for channel0_2, 2 for channel0_0), not by file name.
K="$tmp/kernel-le.dump"
grep -q '^end events=15 anomalies=0 ' "$K" || fail "kernel-le: not 15 events: $(tail -1 "$K")"
grep -q '^671092640 .* cpu=0 .*/gcscope_sequences id=0 v=0 payload=03000000ffff0200008004610062006300640000002f0074006d0070002f0078000000$' "$K" ||
    fail "kernel-le: the event after the 27-bit wrap is wrong"
grep -q '^805312368 .* cpu=0 .*/sched_switch ' "$K" || fail "kernel-le: the extended header's time is wrong"
[ "$(grep '^671092640 ' "$K" | cut -d' ' -f4)" = "$(printf 'cpu=2\ncpu=0')" ] ||
    fail "kernel-le: the tie at 671092640 is not in babeltrace2's order"
# a=5 (3 bits), b=-4000 (13 bits, signed), c=2 (2-bit enum), d=-64 (7
# bits), f=2^63+1 (64 bits at bit 25), g=0xab, h=17 (5 bits).
grep -q '^671088540 .*/gcscope_bits .*payload=0560f002c00100000000000080ab11$' "$K" ||
    fail "kernel-le: bit fields misread"
# The big-endian trace holds the same events: the same rebuilt payloads.
cmp -s "$K" "$tmp/kernel-be.dump" || fail "kernel-be: differs from kernel-le: $(diff "$K" "$tmp/kernel-be.dump" | head -4)"

# ust-gc: 3 GCs in two processes named by their procname context. The
# 32-bit compact timestamps wrap at 3 * 2^32 between GC 1's start and an
# allocation 10 ms later on the same CPU.
U="$tmp/ust-gc.dump"
grep -q '^12894871888 pid=4242 tid=4251 cpu=0 proc=gcdemo .*/GC/AllocationTick id=10 v=3 ' "$U" ||
    fail "ust-gc: the event after the 32-bit wrap is wrong"
grep -q '^12878471888 pid=4444 tid=4444 cpu=0 proc=- ' "$U" || fail "ust-gc: pid 4444 (empty procname) named"
"$G" stats --format json "$DATA/ust-gc" > "$tmp/ust.json" 2>&1 || fail "ust-gc: stats: $(tail -1 "$tmp/ust.json")"
grep -A8 '"pid": 4242,' "$tmp/ust.json" | grep -q '"process_name": "gcdemo",' || fail "ust-gc: 4242 not named gcdemo"
grep -q '"gc_count": 2, .*"total_pause_ms": 3.200000, "max_pause_ms": 1.600000' "$tmp/ust.json" ||
    fail "ust-gc: pid 4242's 2 GCs wrong"
grep -q '{"number": 1, "generation": 0, "type": "NonConcurrentGC", "reason": "AllocSmall", "start_ms": 7.025000, "pause_start_ms": 7.000000, "pause_ms": 1.600000, "suspend_ms": 0.020000, .*"heap_size_after_mb": 6.291456,' "$tmp/ust.json" ||
    fail "ust-gc: GC 1's numbers wrong"
grep -q '{"number": 1, "generation": 2, .*"reason": "Induced", .*"pause_start_ms": 27.000000, "pause_ms": 1.600000,' "$tmp/ust.json" ||
    fail "ust-gc: pid 4343's GC wrong"

# ust-be: ust-gc's user-space trace written big-endian (as lttng-ust on a
# big-endian host): the same events, the same rebuilt payloads.
GCSCOPE_CTF_READER=native "$D" "$DATA/ust-gc/ust/uid/1000/64-bit" > "$tmp/ust-le.dump" ||
    fail "ust-gc's user-space trace alone unreadable"
cmp -s "$tmp/ust-le.dump" "$tmp/ust-be.dump" ||
    fail "ust-be: differs from ust-gc's user-space trace: $(diff "$tmp/ust-le.dump" "$tmp/ust-be.dump" | head -4)"

# mixed: 16 events of two stream classes; the three with a variant in
# their payload are kept without it (an anomaly each, by both readers);
# floats as their IEEE bytes (1.5f, 255, -2.25).
M="$tmp/mixed.dump"
grep -q '^end events=16 anomalies=3 first_anomaly=CTF payload field of an unsupported kind ' "$M" ||
    fail "mixed: not 16 events with 3 anomalies: $(tail -1 "$M")"
# byte orders said per field (be32 0x01020304, native 0x0506, le 0x0708),
# 0x090a aligned to 32 bits, [1, 2, 2^32 - 1], be -2, 0.5f: all little-endian
# in the manifest layout.
grep -q '^1000099 .*gcscope/orders .*payload=04030201060508070a090100000002000000fffffffffeffffffffffffff0000003f$' "$M" ||
    fail "mixed: per-field byte orders misread: $(grep orders "$M")"
grep -q '^1000030 pid=10 tid=11 cpu=0 proc=app10 gcscope/floats .*payload=0000c03fff00000000000002c0$' "$M" ||
    fail "mixed: floats misread"
# gcscope:clocked's times are its header's (1000085, 1000097), not its
# payload's field mapped to the clock (1000095, 1000098), which stays in
# its payload (ours, not babeltrace2's).
grep -q '^1000085 .*gcscope/clocked .*payload=9f420f000000000001$' "$M" &&
    grep -q '^1000097 .*gcscope/clocked .*payload=a2420f000000000002$' "$M" ||
    fail "mixed: gcscope:clocked misread: $(grep clocked "$M")"
"$G" events --format json "$DATA/mixed" > "$tmp/mixed.json" 2>&1
grep -q '"event":"ThreadPoolWorkerThreadAdjustment/Sample",.*"fields":{"Throughput":12.5,"ClrInstanceID":0}' "$tmp/mixed.json" ||
    fail "mixed: the double Throughput misread: $(head -1 "$tmp/mixed.json")"
# lttng-ust's doubles at byte alignment, already the manifest's layout.
grep -q '"event":"ThreadPoolWorkerThreadAdjustment/Stats",.*"fields":{"Duration":1.5,"Throughput":2.25,"ThreadWave":-3,.*"ThroughputErrorEstimate":1e+100,"AverageThroughputErrorEstimate":-1e-100,.*"NewThreadWaveMagnitude":4,' "$tmp/mixed.json" ||
    fail "mixed: ThreadPoolWorkerThreadAdjustment/Stats misread: $(grep Adjustment/Stats "$tmp/mixed.json")"
# single: no stream_id, no event id (the one stream class, the one event
# class, id 9); a 16-bit clock at 1 kHz wrapping; no timestamp_begin, so
# the second packet's clock goes on from the first's timestamp_end (70000:
# its 3392 is 2 * 65536 + 3392, not 65536 + 3392 after the last event).
S="$tmp/single.dump"
[ "$(grep -c '/GC/Triggered' "$S")" -eq 4 ] || fail "single: not 4 GC/Triggered events"
[ "$(grep -o '^[0-9]*' "$S" | tr '\n' ' ')" = "10 65535 65543 134464 " ] || fail "single: timestamps wrong: $(grep -o '^[0-9]*' "$S" | tr '\n' ' ')"

# ties: 284 events of 5 files in 2 traces, 61 raw timestamps held by more
# than one event (and more ties across the traces' clock offsets), over
# packets of 1 to 20 events: compared above, event by event.
grep -q '^end events=284 anomalies=0 ' "$tmp/ties.dump" || fail "ties: not 284 events"
[ "$(grep -o '^[0-9]* ' "$tmp/ties.dump" | uniq -d | wc -l)" -eq 61 ] || fail "ties: not 61 tied timestamps"

# clock3g: a 3 GHz clock, cycle 3 in file a (stream 1), cycle 4 in file b
# (stream 0): 5/3 and 6/3 ns from the origin (2 cycles), so a's first.
# (babeltrace2 rounds the offset and the value down each on its own, sees
# a tie and puts b first, out of time order: not compared, see
# docs/format-ctf.md.)
GCSCOPE_CTF_READER=native "$D" "$DATA/clock3g" > "$tmp/clock3g.dump" || fail "clock3g unreadable"
[ "$(grep -o '^[0-9]* ' "$tmp/clock3g.dump" | tr -d '\n')" = "3 4 " ] ||
    fail "clock3g: not in cycle order: $(cat "$tmp/clock3g.dump")"

# The shared perfcollect traces.
if [ -d ../shared/traces/ctf ]; then
    for z in ../shared/traces/ctf/*.trace.zip; do
        compare "$z" "$(basename "$z")"
        case $z in
        */clr-only.trace.zip)
            grep -q '^end events=32762 anomalies=0 ' "$tmp/dump.native" || fail "clr-only: not 32762 events" ;;
        */netcoreapp31.trace.zip)
            grep -q '^end events=66 anomalies=0 ' "$tmp/dump.native" || fail "netcoreapp31: not 66 events" ;;
        esac
    done
else
    echo "skipped: ../shared/traces/ctf absent, the perfcollect traces not compared"
fi

# What babeltrace2's own writer (sink.ctf.fs) makes of each trace folder
# (its own metadata layout: 64-bit ids and timestamps, string procnames,
# packet contexts in another order): ours reads it as babeltrace2 does.
if command -v babeltrace2 > /dev/null; then
    n=0
    for t in "$DATA"/kernel-le "$DATA"/kernel-be "$DATA"/mixed "$DATA"/single \
        "$DATA"/ust-gc/kernel "$DATA"/ust-gc/ust/uid/1000/64-bit; do
        n=$((n + 1))
        lost_differs= # (mixed: as above, babeltrace2 counts none)
        [ "$t" = "$DATA"/mixed ] && lost_differs=1
        babeltrace2 "$t" --component=sink.ctf.fs --params "path=\"$tmp/conv$n\"" > /dev/null 2>&1 ||
            fail "babeltrace2 cannot convert $t"
        compare "$tmp/conv$n" "$t rewritten by babeltrace2" "$CLOCKED"
    done
    lost_differs=
    # The rewritten kernel trace holds the same events as the original.
    compare "$tmp/conv1" "kernel-le rewritten"
    cmp -s "$tmp/dump.native" "$K" || fail "kernel-le rewritten by babeltrace2 reads otherwise: $(diff "$K" "$tmp/dump.native" | head -4)"
    if [ -f ../shared/traces/ctf/clr-only.trace.zip ]; then
        mkdir "$tmp/x"
        (cd "$tmp/x" && unzip -q "$OLDPWD/../shared/traces/ctf/clr-only.trace.zip") || fail "unzip"
        u=$(ls -d "$tmp"/x/clr-only.trace/lttngTrace/auto-*/ust/uid/1000/64-bit)
        babeltrace2 "$u" --component=sink.ctf.fs --params "path=\"$tmp/conv-clr\"" > /dev/null 2>&1 ||
            fail "babeltrace2 cannot convert clr-only"
        compare "$tmp/conv-clr" "clr-only rewritten by babeltrace2"
        grep -q '^end events=32762 anomalies=0 ' "$tmp/dump.native" || fail "clr-only rewritten: not 32762 events"
    fi
else
    echo "skipped: the babeltrace2 command is absent, its CTF writer's output not read"
fi
echo "ctf_native: ok"
