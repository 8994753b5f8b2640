#!/bin/sh
# The sampled view agrees with the exact one within sampling error: the
# workload's churn mode (2 M ChurnItems of 24 bytes, a window of 10 000
# alive) recorded with EventPipe (DOTNET_EnableEventPipe: GC keyword +
# GCHeapSurvivalAndMovement 0x400000, level 5 for AllocationTick) and
# profiled with `gcscope profile`:
#   - EventPipe's estimated bytes (sum of AllocationAmount) are within 2 %
#     of the exact bytes;
#   - the fractions of samples that died young (in a gen-0 or a gen-1 GC)
#     and that were alive at the end are each within 4 standard errors
#     (sqrt(p(1-p)/samples)) plus 3 points (the two runs' GCs fall at
#     slightly different moments) of the exact fractions.
# Gen 0 and gen 1 apart would compare the two runs' GC schedules, not the
# views: on one machine (2026-11-28) the EventPipe run made 9 gen-0 GCs and
# 1 gen-1 GC, the profiled run as many gen-1 GCs as it took for half the
# items to die in one (sampled 0.667 died in gen 0, exact 0.472), while
# the items that died young were 0.907 and 0.957.
set -u
GCSCOPE=${GCSCOPE:-build/asan/gcscope}
. tests/cli/profile_lib.inc
need_dotnet profile_sampled
build_profile_workload
need_profiler
tmp=${TMPDIR:-/tmp}/gcscope-profile-sampled.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "profile_sampled: $*"; exit 1; }

DOTNET_gcServer=0 DOTNET_gcConcurrent=0 DOTNET_EnableEventPipe=1 \
    DOTNET_EventPipeOutputPath="$tmp/churn.nettrace" \
    DOTNET_EventPipeConfig='Microsoft-Windows-DotNETRuntime:0x400001:5' \
    dotnet "$WORKLOAD_DLL" churn 2000000 >"$tmp/ep.out" 2>&1 || { cat "$tmp/ep.out"; fail "EventPipe run failed"; }
"$GCSCOPE" objects "$tmp/churn.nettrace" --format csv >"$tmp/sampled.csv" 2>"$tmp/err" ||
    { cat "$tmp/err"; fail "objects on the EventPipe trace failed"; }
DOTNET_gcServer=0 DOTNET_gcConcurrent=0 "$GCSCOPE" profile --types Churn --format csv \
    -- dotnet "$WORKLOAD_DLL" churn 2000000 >"$tmp/exact.csv" 2>"$tmp/err" ||
    { cat "$tmp/err"; fail "gcscope profile failed"; }

row() { grep '^"[^"]*","ProfileLoad.ChurnItem",' "$1" | sed 's/^"[^"]*","[^"]*",//'; }
# Columns after the type: type_id samples bytes g0 g1 g2 unseen in_gen2
# in_gen2_bytes first last alive ... (estimated_bytes is the 31st).
row "$tmp/sampled.csv" >"$tmp/s"
row "$tmp/exact.csv" >"$tmp/e"
[ -s "$tmp/s" ] && [ -s "$tmp/e" ] || fail "no ChurnItem row"
awk -F, -v sfile="$tmp/s" '
BEGIN { getline sl < sfile; split(sl, s, ",") }
{
    n = s[2]; en = $2
    if (en != 2000000) { print "exact: " en " ChurnItems, not 2000000"; exit 1 }
    if (n < 100) { print "sampled: only " n " samples"; exit 1 }
    est = s[31]; bytes = $3
    if (est < bytes * 0.98 || est > bytes * 1.02) { print "estimated bytes " est " vs exact " bytes; exit 1 }
    printf "died in a gen-0 GC: sampled %.3f, exact %.3f; in a gen-1 GC: sampled %.3f, exact %.3f (not compared)\n", s[4] / n, $4 / en, s[5] / n, $5 / en
    split("died_young alive_end", names, " ")
    sv[1] = s[4] + s[5]; ev[1] = $4 + $5; sv[2] = s[12]; ev[2] = $12
    for (i = 1; i <= 2; i++) {
        p = ev[i] / en; q = sv[i] / n
        se = sqrt(p * (1 - p) / n)
        d = q - p; if (d < 0) d = -d
        printf "%s: sampled %.3f (%d of %d), exact %.3f (%d of %d), se %.3f\n", names[i], q, sv[i], n, p, ev[i], en, se
        if (d > 4 * se + 0.03) { print names[i] ": outside the sampling error"; exit 1 }
    }
    printf "estimated bytes %d, exact %d\n", est, bytes
}' "$tmp/e" || fail "sampled and exact views disagree"
echo "profile_sampled: ok"
