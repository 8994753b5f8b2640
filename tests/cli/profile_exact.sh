#!/bin/sh
# `gcscope profile` on tests/workloads/profile (mode exact): for every type
# of the workload, the profile's counts (allocated, died in a gen-0/1/2
# GC, died while in gen2/LOH/POH, alive at exit, and the survivors'
# generations as GC.GetGeneration gives them) equal the workload's own
# account exactly, with no unseen death; `gcscope objects FILE` on the
# kept profile prints the same; --types keeps only the matching types.
# Nested types (Outer+Inner, Outer+Inner+Deep) are among them: named
# with their enclosing types, as the runtime does.
# Workstation GC, non-concurrent (the account's GCs are all induced).
set -u
GCSCOPE=${GCSCOPE:-build/asan/gcscope}
. tests/cli/profile_lib.inc
need_dotnet profile_exact
build_profile_workload
need_profiler
tmp=${TMPDIR:-/tmp}/gcscope-profile-exact.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "profile_exact: $*"; exit 1; }

DOTNET_gcServer=0 DOTNET_gcConcurrent=0 "$GCSCOPE" profile -o "$tmp/p.gcprof" --format csv \
    -- dotnet "$WORKLOAD_DLL" exact >"$tmp/out" 2>"$tmp/err" ||
    { cat "$tmp/err"; fail "gcscope profile failed"; }
grep '^expect ' "$tmp/out" >"$tmp/account"
grep -v '^expect ' "$tmp/out" >"$tmp/csv"
check_expect "$tmp/account" "$tmp/csv" || fail "profile differs from the workload's account"

# The saved profile reads the same later (the trace column names the file).
"$GCSCOPE" objects "$tmp/p.gcprof" --format csv >"$tmp/csv2" 2>"$tmp/err" ||
    { cat "$tmp/err"; fail "gcscope objects FILE failed"; }
check_expect "$tmp/account" "$tmp/csv2" || fail "objects FILE differs from the account"
[ "$(sed 's/^"[^"]*",//' "$tmp/csv")" = "$(sed 's/^"[^"]*",//' "$tmp/csv2")" ] ||
    fail "profile and objects FILE print different rows"
"$GCSCOPE" info "$tmp/p.gcprof" | grep -q '^format: *profile version 1$' || fail "info: format"

# --types: only the matching types are recorded (and still exact).
DOTNET_gcServer=0 DOTNET_gcConcurrent=0 "$GCSCOPE" profile --types 'Dies' --format csv \
    -- dotnet "$WORKLOAD_DLL" exact >"$tmp/out" 2>"$tmp/err" ||
    { cat "$tmp/err"; fail "gcscope profile --types failed"; }
grep '^expect type=[^ ]*Dies' "$tmp/out" >"$tmp/account"
grep -v '^expect ' "$tmp/out" >"$tmp/csv"
check_expect "$tmp/account" "$tmp/csv" || fail "--types: counts differ"
others=$(grep '^"' "$tmp/csv" | grep -vc '^"[^"]*","[^"]*Dies')
[ "$others" = 0 ] || fail "--types Dies: $others other types recorded"
echo "profile_exact: ok"
