#!/bin/sh
# The committed profile tests/data/profile-exact.gcprof (recorded by
# scripts/record-profile-fixture.sh) read by `gcscope objects` without
# dotnet: every type's counts equal the account the workload printed in
# that run (profile-exact.workload.txt), and a profile cut short is a
# "truncated" failure (exit 2), never a crash.
set -u
GCSCOPE=${GCSCOPE:-build/asan/gcscope}
. tests/cli/profile_lib.inc
tmp=${TMPDIR:-/tmp}/gcscope-profile-fixture.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "profile_fixture: $*"; exit 1; }
P=tests/data/profile-exact.gcprof

"$GCSCOPE" objects "$P" --format csv >"$tmp/csv" 2>"$tmp/err" ||
    { cat "$tmp/err"; fail "gcscope objects failed"; }
check_expect tests/data/profile-exact.workload.txt "$tmp/csv" ||
    fail "the profile differs from the workload's account"
head -c 40000 "$P" >"$tmp/cut.gcprof"
"$GCSCOPE" objects "$tmp/cut.gcprof" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "a cut profile: exit $rc, not 2"
grep -q 'truncated' "$tmp/err" || { cat "$tmp/err"; fail "a cut profile: no 'truncated'"; }
echo "profile_fixture: $(grep -c '^expect ' tests/data/profile-exact.workload.txt) types agree"
