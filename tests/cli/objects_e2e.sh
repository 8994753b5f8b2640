#!/bin/sh
# End to end: `gcscope objects` on tests/data/objects-movement.nettrace
# (recorded with the movement keyword from the gcload "objects" workload)
# and on tests/data/objects-bgc.nettrace and objects-bgc-server.nettrace
# (gcload "objectsbgc": objects that die in a background GC; workstation
# GC, and server GC on two heaps) must agree with what the workload says it
# did, in tests/data/NAME.workload.txt:
#   kept_alive type=T ...          every sample of T is alive at the end,
#                                  none died; heap=loh: all in the LOH
#   died type=T dies=D [step=S]    every sample of T died in a reported GC
#                                  (none alive, none unseen); with step=S,
#                                  all in GC number gc_index of that step,
#                                  or in a GC after the step began (a
#                                  natural GC inside the step), the last
#                                  in the step's;
#                                  D=gen2|loh: they died as gen2 objects,
#                                  D=gen0|gen1: they died young
#   where=end type=T in_genK=0     no sample of T alive in generation K
#                                  (GC.GetGeneration counts LOH/POH as 2)
#   kept_alive ... pinned=P with where=end in_gen0=P: the pinned samples,
#                                  and only they, are in gen0 at the end
#
# OBJECTS_E2E_TRACES="DIR/NAME ..." checks other recordings of the same
# workloads instead (DIR/NAME.nettrace beside DIR/NAME.workload.txt; a
# NAME containing "objectsbgc" or "objects-bgc" is held to the objectsbgc
# workload's 6 checks, the others to the objects workload's 8).
set -u
GCSCOPE=${GCSCOPE:-build/asan/gcscope}
tmp=${TMPDIR:-/tmp}/gcscope-objects-e2e.$$
trap 'rm -f "$tmp".csv "$tmp".err' EXIT
status=0
for path in ${OBJECTS_E2E_TRACES:-tests/data/objects-movement tests/data/objects-bgc tests/data/objects-bgc-server}; do
name=${path##*/}
TRACE=$path.nettrace
WORKLOAD=$path.workload.txt
if [ ! -f "$TRACE" ] || [ ! -f "$WORKLOAD" ]; then
    echo "skipped: objects_e2e $name (fixture $TRACE absent)"
    continue
fi
if ! "$GCSCOPE" objects "$TRACE" --format csv >"$tmp.csv" 2>"$tmp.err"; then
    echo "objects_e2e: gcscope objects $TRACE failed:"; cat "$tmp.err"
    status=1
    continue
fi

awk -F, -v csv="$tmp.csv" -v trace_name="$name" -v min_checks="$(case $name in *objectsbgc* | *objects-bgc*) echo 6 ;; *) echo 8 ;; esac)" '
BEGIN {
    # CSV columns after the quoted name (names checked here have no comma).
    while ((getline line < csv) > 0) {
        # first the trace column: the file name, quoted
        prefix = "\"" trace_name ".nettrace\","
        if (index(line, prefix) != 1) continue
        line = substr(line, length(prefix) + 1)
        name = substr(line, 2, index(substr(line, 2), "\"") - 1)
        rest = substr(line, length(name) + 4)
        n = split(rest, f, ",")
        samples[name] = f[2]; died0[name] = f[4]; died1[name] = f[5]; died2[name] = f[6]
        unseen[name] = f[7]; in_gen2[name] = f[8]; first_gc[name] = f[10]
        last_gc[name] = f[11]; alive[name] = f[12]
        gen[name, 0] = f[14]; gen[name, 1] = f[15]; gen[name, 2] = f[16]
        gen[name, 3] = f[17] + f[18]; pinned[name] = f[19]
    }
    failures = 0; checks = 0
}
function kv(key,   i) {
    for (i = 1; i <= NF; i++)
        if (index($i, key "=") == 1) return substr($i, length(key) + 2)
    return ""
}
function fail(msg) { print "objects_e2e: " trace_name ": " msg; failures++ }
function need_samples(t) {
    checks++
    if (!(t in samples) || samples[t] + 0 == 0) { fail(t ": no sampled object in the report"); return 0 }
    return 1
}
{ FS = " "; $0 = $0 }
# A step: its GC, and the GC before the step began (the last one of the
# phase or of the step before): a natural GC inside a step (smaller budgets: the
# segments GC, small regions) collects what the step had dropped by then.
/ phase_begin / { prev_gc = kv("last_gc_index") + 0 }
/ objects gc step=/ {
    s = kv("step"); step_gc[s] = kv("gc_index") + 0; step_from[s] = prev_gc
    if (step_gc[s] > 0) prev_gc = step_gc[s]
}
/ kept_alive type=/ {
    t = kv("type")
    if (!need_samples(t)) next
    if (alive[t] != samples[t]) fail(t ": kept alive, but " alive[t] " of " samples[t] " alive at end")
    if (died0[t] + died1[t] + died2[t] + unseen[t] != 0) fail(t ": kept alive, but some died")
    if (kv("heap") == "loh" && gen[t, 3] != samples[t]) fail(t ": kept in the LOH, but " gen[t, 3] " there")
    if (kv("pinned") != "") pinned_wl[t] = kv("pinned")
}
/ died type=/ {
    t = kv("type"); d = kv("dies"); s = kv("step")
    if (!need_samples(t)) next
    if (alive[t] != 0) fail(t ": died, but " alive[t] " alive at end")
    if (unseen[t] != 0) fail(t ": " unseen[t] " deaths not seen in a GC")
    if (died0[t] + died1[t] + died2[t] != samples[t]) fail(t ": not every sample died in a GC")
    # (a step whose GC did not happen, as a background GC under
    # non-concurrent GC, says gc_index=0: no GC to check against)
    if (s != "" && (s in step_gc) && step_gc[s] > 0) {
        if (first_gc[t] + 0 <= step_from[s] || last_gc[t] + 0 != step_gc[s])
            fail(t ": died in GCs " first_gc[t] "-" last_gc[t] ", workload step " s " is GC " \
                 step_gc[s] " (after GC " step_from[s] ")")
    }
    if ((d == "gen2" || d == "loh") && in_gen2[t] != samples[t]) fail(t ": dies=" d " but " in_gen2[t] " died as gen2 objects")
    if ((d == "gen0" || d == "gen1") && in_gen2[t] != 0) fail(t ": dies=" d " but " in_gen2[t] " died as gen2 objects")
    if (d == "loh" && died2[t] != samples[t]) fail(t ": LOH objects must die in gen2 GCs")
}
/ where=end type=/ {
    t = kv("type")
    if (!(t in samples)) next
    checks++
    end_gen0[t] = kv("in_gen0")
    if (kv("in_gen0") == "0" && gen[t, 0] != 0) fail(t ": workload has none in gen0 at end, report " gen[t, 0])
    if (kv("in_gen1") == "0" && gen[t, 1] != 0) fail(t ": workload has none in gen1 at end, report " gen[t, 1])
    # GC.GetGeneration says 2 for LOH/POH objects: compare gen2 with gen2+LOH+POH.
    if (kv("in_gen2") == "0" && kv("in_gen3plus") == "0" && gen[t, 2] + gen[t, 3] != 0)
        fail(t ": workload has none in gen2/LOH/POH at end, report " gen[t, 2] + gen[t, 3])
}
END {
    # Pinned survivors stay in (are demoted to) gen0: when the workload finds
    # exactly its pinned objects in gen0 at the end, the report must find
    # exactly its pinned samples there (GenerationRange, not the promotion rule).
    for (t in pinned_wl)
        if ((t in end_gen0) && end_gen0[t] == pinned_wl[t]) {
            checks++
            if (gen[t, 0] != pinned[t]) fail(t ": " pinned[t] " pinned samples but " gen[t, 0] " in gen0 at end")
        }
    if (checks < min_checks) fail("only " checks " workload facts checked: workload file changed?")
    if (failures) exit 1
    print "objects_e2e: " trace_name ": " checks " workload facts agree"
}
' "$WORKLOAD" || status=1
done
exit $status
